// The hostile-input corpus (tests/inputs/invalid/) through `minigpu run`'s command in one
// process: every input, as a dry run and as a run, must end in one InputError that names the
// file with line:col (unless it says '# no-position') and every '# expect:' text, the dry run's
// error the same as the run's, with nothing written. tests/e2e/check_invalid_input.py checks the
// same input by input through the program (exit code 2, one stderr line); one process is what
// lets the sanitizer pass afford the whole corpus (2 x 50 launches under ASan: ~7 min of CPU).
#include "app/run_command.hpp"
#include "core/errors.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace minigpu {
namespace {

namespace fs = std::filesystem;

/// One corpus file and what its header lines ask for (the same directives the script reads).
struct CorpusInput {
  fs::path path;
  std::vector<std::string> expected;
  bool positioned = true;
  bool own_output_dir = false;
  std::uintmax_t pad_to_bytes = 0;
};

CorpusInput read_corpus_input(const fs::path& path) {
  CorpusInput input{path, {}, true, false, 0};
  std::ifstream in(path, std::ios::binary);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("# expect:", 0) == 0) {
      const auto text = line.substr(9);
      input.expected.push_back(text.substr(std::min(text.find_first_not_of(' '), text.size())));
    }
    if (line == "# no-position") input.positioned = false;
    if (line == "# own-output-dir") input.own_output_dir = true;
    if (line.rfind("# pad-to-bytes:", 0) == 0) input.pad_to_bytes = std::stoull(line.substr(15));
  }
  return input;
}

std::vector<fs::path> corpus() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(MINIGPU_INVALID_INPUTS_DIR)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// Names, sizes and modification times of what `dir` holds: "nothing touched" made comparable.
std::map<std::string, std::pair<std::uintmax_t, fs::file_time_type>> snapshot(const fs::path& dir) {
  std::map<std::string, std::pair<std::uintmax_t, fs::file_time_type>> entries;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const auto size = entry.is_regular_file() ? entry.file_size() : 0;
    entries[entry.path().filename().string()] = {size, entry.last_write_time()};
  }
  return entries;
}

/// The error a run of `options` ends with: its message, or a failure when it ends otherwise.
std::string input_error_of(const RunOptions& options) {
  try {
    run_command(options, testing::mpi_session(), DeviceBinding{});
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not an input error: " << e.what();
    return {};
  }
  ADD_FAILURE() << "accepted";
  return {};
}

class InvalidInput : public ::testing::TestWithParam<fs::path> {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/minigpu-invalid-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    tmp_ = pattern;
    previous_dir_ = fs::current_path();
    fs::current_path(tmp_);  // an '# own-output-dir' input writes relative to here, if at all
  }
  void TearDown() override {
    fs::current_path(previous_dir_);
    fs::remove_all(tmp_);
    reset_emulated_gpus();
  }

  /// The input to run: the corpus file, or its copy padded with comment lines to N bytes.
  fs::path input_to_run(const CorpusInput& input) const {
    if (input.pad_to_bytes == 0) return input.path;
    const fs::path padded = tmp_ / "input" / input.path.filename();
    fs::create_directory(padded.parent_path());
    fs::copy_file(input.path, padded);
    std::ofstream out(padded, std::ios::app | std::ios::binary);
    for (auto size = fs::file_size(input.path); size < input.pad_to_bytes; size += 10) out << "# padding\n";
    return padded;
  }

  fs::path tmp_;
  fs::path previous_dir_;
};

TEST_P(InvalidInput, IsRefusedWithItsPositionAndNothingWritten) {
  const CorpusInput input = read_corpus_input(GetParam());
  ASSERT_FALSE(input.expected.empty()) << input.path << ": no '# expect:' line";
  const fs::path path = input_to_run(input);
  const auto before = snapshot(path.parent_path());
  RunOptions options;
  options.input = path.string();
  if (!input.own_output_dir) options.output_dir = (tmp_ / "results").string();
  options.dry_run = true;
  const std::string dry = input_error_of(options);
  options.dry_run = false;
  const std::string real = input_error_of(options);
  EXPECT_EQ(dry, real) << "a dry run must refuse an input as the run does";
  for (const auto& text : input.expected) {
    EXPECT_NE(real.find(text), std::string::npos) << "does not say '" << text << "': " << real;
  }
  if (input.positioned) {
    const std::regex where(
        std::regex_replace(path.filename().string(), std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
        ":[0-9]+:[0-9]+: ");
    EXPECT_TRUE(std::regex_search(real, where)) << "no file:line:col in: " << real;
  }
  EXPECT_EQ(std::count(real.begin(), real.end(), '\n'), 0) << "one line: " << real;
  for (const auto& entry : fs::directory_iterator(tmp_)) {
    EXPECT_EQ(entry.path().filename(), "input") << "written for an invalid input: " << entry.path();
  }
  EXPECT_EQ(snapshot(path.parent_path()), before) << path.parent_path() << " changed";
}

INSTANTIATE_TEST_SUITE_P(Corpus, InvalidInput, ::testing::ValuesIn(corpus()),
                         [](const ::testing::TestParamInfo<fs::path>& param_info) {
                           return param_info.param.stem().string();
                         });

}  // namespace
}  // namespace minigpu
