// The atomic creation of a run's results directory and the files in it.
#include "io/run_directory.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
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
const std::regex kStateSuffix(
    R"((\.partial-[A-Za-z0-9]{6}|\.failed-[A-Za-z0-9]{6}|\.interrupted(-[0-9]+)?)$)");

// `stem` + six random characters, created with mkdir so that the umask applies (mkdtemp would
// make it 0700 whatever the umask); throws std::system_error.
std::string make_unique_directory(const std::string& stem) {
  static constexpr char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device entropy;
  std::uniform_int_distribution<std::size_t> pick(0, sizeof(kChars) - 2);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    std::string path = stem;
    for (int i = 0; i < 6; ++i) path += kChars[pick(entropy)];
    if (::mkdir(path.c_str(), 0777) == 0) return path;
    if (errno != EEXIST)
      throw std::system_error(errno, std::generic_category(), "cannot create a directory in it");
  }
  throw std::system_error(EEXIST, std::generic_category(), "cannot create a directory in it");
}

bool name_taken(const std::error_code& ec) {
  return ec == std::errc::directory_not_empty || ec == std::errc::file_exists ||
         ec == std::errc::not_a_directory || ec == std::errc::is_a_directory;
}

}  // namespace

bool unwritten_run_directory(const std::string& path) {
  static const std::regex partial(R"(\.partial-[A-Za-z0-9]{6}$)");
  const fs::path p(path);
  const std::string name = (p.has_filename() ? p : p.parent_path()).filename().string();
  return std::regex_search(name, partial) && fs::is_directory(p) && !fs::exists(p / "run.json");
}

std::string run_directory_base(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return std::regex_replace(p, kStateSuffix, "");
}

RunDirectory::RunDirectory(const std::string& output_dir, const std::string& run_name,
                           const std::string& stamp) {
  // system_error: the caller words the message, and cuts a long path for it.
  std::error_code ec;
  fs::create_directories(output_dir, ec);
  if (ec) throw std::system_error(ec, "cannot create directory");
  base_ = (fs::path(output_dir) / (run_name + "-" + stamp)).string();
  partial_ = make_unique_directory(base_ + ".partial-");
  token_ = partial_.substr(partial_.size() - 6);
}

RunDirectory RunDirectory::reopen(const std::string& path) {
  RunDirectory d;
  d.base_ = run_directory_base(path);
  if (!fs::is_regular_file(fs::path(path) / "run.json"))
    throw std::system_error(std::make_error_code(std::errc::no_such_file_or_directory), "no run.json in it");
  // Onto a new empty directory: rename() replaces an empty one, so the name is claimed first.
  d.partial_ = make_unique_directory(d.base_ + ".partial-");
  d.token_ = d.partial_.substr(d.partial_.size() - 6);
  std::error_code ec;
  fs::rename(path, d.partial_, ec);
  if (ec) {
    fs::remove(d.partial_);
    throw std::system_error(ec, "cannot take it up again");
  }
  return d;
}

void RunDirectory::write(const std::string& csv, const nlohmann::json& record) {
  write_file(fs::path(partial_) / "results.csv", csv);
  write_file(fs::path(partial_) / "run.json", record.dump(2) + "\n");
}

std::string RunDirectory::claim(const std::string& suffix) {
  // rename() onto an existing non-empty directory fails, so a taken name is never replaced;
  // the name is claimed by the rename itself, not by a look beforehand: two runs of one name
  // started in the same second (a Slurm job array) once both saw the name free and the
  // second failed with "Directory not empty", its results left in the temporary.
  for (int k = 0;; ++k) {
    const fs::path target = base_ + suffix + (k == 0 ? "" : "-" + std::to_string(k));
    if (target == fs::path(partial_)) return partial_;
    std::error_code ec;
    fs::rename(partial_, target, ec);
    if (!ec) return partial_ = target.string();
    if (!name_taken(ec) || k >= kMaxNameSuffix)
      throw fs::filesystem_error("cannot rename", partial_, target, ec);
  }
}

std::string RunDirectory::finish() { return claim(""); }

std::string RunDirectory::mark_interrupted() { return claim(".interrupted"); }

std::string RunDirectory::mark_failed() {
  const fs::path failed = base_ + ".failed-" + token_;
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
