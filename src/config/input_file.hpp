// Reading an input file into YAML, with the checks that keep yaml-cpp within bounds.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

namespace minigpu {

/// The single YAML document of the input at `path`; throws InputError, with file, line and
/// column where known, for a file that is unreadable, not UTF-8 text, over 1 MiB, not a block
/// mapping at its root, not valid YAML, empty, or more than one document.
YAML::Node load_input_file(const std::string& path);

}  // namespace minigpu
