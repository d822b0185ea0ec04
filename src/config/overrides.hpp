// `--set PATH=VALUE` on the command line: input keys changed without editing the YAML,
// applied to the parsed document before anything is validated, so an override is checked
// like the file's own keys and an error in it names the override.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <vector>

namespace minigpu {

/// Full key ("run.repetitions", "experiments[2].sizes") -> the override that set it
/// ("--set experiments.matmul.sizes=[64,128]"), for error messages.
using OverrideOrigins = std::map<std::string, std::string>;

/// Applies each "PATH=VALUE" in order to `root`. PATH is run.KEY, experiments[I].KEY,
/// experiments.NAME.KEY (every entry of that experiment) or experiments.*.KEY (every entry);
/// VALUE is YAML ("5", "[64, 128]", "{a: 1}"). Throws InputError naming the override when
/// it is malformed or names no entry.
OverrideOrigins apply_overrides(YAML::Node& root, const std::vector<std::string>& overrides);

}  // namespace minigpu
