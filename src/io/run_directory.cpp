// The atomic creation of a run's results directory and the files in it.
#include "io/run_directory.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <vector>

namespace minigpu::io {
namespace fs = std::filesystem;
namespace {

std::string os_reason() { return std::strerror(errno); }

// Through a temporary and a rename, so a reader (or a killed run) sees the old file or the new.
void write_file(const fs::path& path, const std::string& text) {
  const fs::path temporary = path.string() + ".tmp";
  errno = 0;
  std::ofstream out(temporary);
  out << text;
  out.flush();
  if (!out || (out.close(), !out)) {
    const std::string reason = errno ? os_reason() : "write failed";
    std::error_code ignored;
    fs::remove(temporary, ignored);  // on a full disk, give back what the failed write took
    throw std::runtime_error("cannot write " + path.string() + ": " + reason);
  }
  std::error_code ec;
  fs::rename(temporary, path, ec);
  if (ec) throw std::runtime_error("cannot write " + path.string() + ": " + ec.message());
}

}  // namespace

namespace {
constexpr int kMaxNameSuffix = 100000;  // runs of one name and second in one directory
}  // namespace

RunDirectory::RunDirectory(const std::string& output_dir, const std::string& run_name,
                           const std::string& stamp) {
  // system_error: the caller words the message, and cuts a long path for it.
  std::error_code ec;
  fs::create_directories(output_dir, ec);
  if (ec) throw std::system_error(ec, "cannot create directory");
  base_ = (fs::path(output_dir) / (run_name + "-" + stamp)).string();
  std::string templ = base_ + ".partial-XXXXXX";
  if (!mkdtemp(templ.data()))
    throw std::system_error(errno, std::generic_category(), "cannot create a directory in it");
  partial_ = templ;
}

void RunDirectory::write(const std::string& csv, const nlohmann::json& record) {
  write_file(fs::path(partial_) / "results.csv", csv);
  write_file(fs::path(partial_) / "run.json", record.dump(2) + "\n");
}

std::string RunDirectory::finish() {
  // rename() onto an existing non-empty directory fails, so a taken name is never replaced;
  // the name is claimed by the rename itself, not by a look beforehand: two runs of one name
  // started in the same second (a Slurm job array) once both saw the name free and the
  // second failed with "Directory not empty", its results left in the temporary.
  for (int k = 0;; ++k) {
    const fs::path final_path = k == 0 ? fs::path(base_) : fs::path(base_ + "-" + std::to_string(k));
    std::error_code ec;
    fs::rename(partial_, final_path, ec);
    if (!ec) return final_path.string();
    const bool taken = ec == std::errc::directory_not_empty || ec == std::errc::file_exists ||
                       ec == std::errc::not_a_directory || ec == std::errc::is_a_directory;
    if (!taken || k >= kMaxNameSuffix) throw fs::filesystem_error("cannot rename", partial_, final_path, ec);
  }
}

std::string RunDirectory::mark_failed() {
  const std::string suffix = partial_.substr(partial_.size() - 6);  // mkdtemp's XXXXXX
  const fs::path failed = base_ + ".failed-" + suffix;
  std::error_code ec;
  if (fs::exists(failed, ec)) return partial_;
  fs::rename(partial_, failed, ec);
  if (ec) return partial_;
  partial_ = failed.string();
  return partial_;
}

void RunDirectory::discard() {
  std::error_code ignored;
  fs::remove_all(partial_, ignored);
}

void probe_output_dir(const std::string& output_dir) {
  std::vector<fs::path> created;  // deepest first
  std::error_code ec;
  for (fs::path p = output_dir; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    created.push_back(p);
    if (p == p.parent_path()) break;
  }
  const auto remove_created = [&created] {
    std::error_code ignored;
    for (const auto& p : created) fs::remove(p, ignored);  // rmdir: an empty directory only
  };
  try {
    RunDirectory probe(output_dir, "probe", "dry-run");
    probe.discard();
  } catch (...) {
    remove_created();
    throw;
  }
  remove_created();
}

std::string write_run_directory(const std::string& output_dir, const std::string& run_name,
                                const std::string& stamp, const std::string& csv,
                                const nlohmann::json& record) {
  RunDirectory dir(output_dir, run_name, stamp);
  try {
    dir.write(csv, record);
    return dir.finish();
  } catch (...) {
    dir.discard();
    throw;
  }
}

}  // namespace minigpu::io
