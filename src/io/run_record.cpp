// CSV and JSON forms of a run, and the atomic creation of its results directory.
#include "io/run_record.hpp"

#include "core/errors.hpp"
#include "io/format.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace minigpu::io {
namespace fs = std::filesystem;
namespace {

nlohmann::json stats_json(const Stats& s) {
  return {{"min", s.min}, {"median", s.median}, {"mean", s.mean},
          {"max", s.max}, {"cv", s.cv},         {"median_ci95", {s.median_ci_low, s.median_ci_high}}};
}

nlohmann::json ceiling_json(const std::optional<CeilingShare>& c) {
  if (!c) return nullptr;
  nlohmann::json j = {{"name", c->name}, {"of", c->label}, {"percent", c->percent}, {"scale", c->scale}};
  if (!c->above_because.empty()) j["above_because"] = c->above_because;
  return j;
}

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

Stats stats_from_json(const nlohmann::json& j) {
  Stats s{j.at("min").get<double>(), j.at("median").get<double>(), j.at("mean").get<double>(),
          j.at("max").get<double>()};
  // Records written before spread was reported have neither.
  s.cv = j.value("cv", 0.0);
  const auto ci = j.value("median_ci95", std::vector<double>{s.min, s.max});
  if (ci.size() == 2) {
    s.median_ci_low = ci[0];
    s.median_ci_high = ci[1];
  }
  return s;
}

// The one spelling of a resume key, for planned cases and recorded ones alike.
std::string key_of(const std::string& experiment, const std::string& label, const std::string& device,
                   const std::string& dtype) {
  return experiment + " / " + label + " / " + device + " / " + dtype;
}

}  // namespace

std::string resume_key(const std::string& experiment, const CaseSpec& spec) {
  return key_of(experiment, spec.label, describe(spec.device), to_string(spec.dtype));
}

std::vector<std::pair<std::string, CaseResult>> recorded_results(const nlohmann::json& record) {
  std::vector<std::pair<std::string, CaseResult>> out;
  try {
    for (const auto& j : record.at("results")) {
      CaseResult r;
      r.experiment = j.at("experiment").get<std::string>();
      r.spec.label = j.at("case").get<std::string>();
      r.repetitions = j.at("repetitions").get<int>();
      r.repetitions_stopped_by = j.value("repetitions_stopped_by", std::string("repetitions"));
      r.seconds = stats_from_json(j.at("seconds"));
      r.samples = j.value("samples_seconds", std::vector<double>{});
      r.rank_means = stats_from_json(j.at("rank_mean_seconds"));
      r.work = {j.at("bytes").get<double>(), j.at("flops").get<double>()};
      r.gbps = j.at("gbps").get<double>();
      r.gflops = j.at("gflops").get<double>();
      r.check = {j.at("verified").get<bool>(), j.at("check").get<std::string>()};
      for (const auto& [name, stats] : j.at("phase_seconds").items())
        r.phases.emplace_back(name, stats_from_json(stats));
      const std::string key = key_of(r.experiment, r.spec.label, j.at("device").get<std::string>(),
                                     j.at("dtype").get<std::string>());
      out.emplace_back(key, std::move(r));
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("not a miniGPU run record: ") + e.what());
  }
  return out;
}

std::optional<std::string> read_run_json(const std::string& dir) {
  std::ifstream in(dir + "/run.json");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (!in) return std::nullopt;
  return buffer.str();
}

std::map<std::string, CaseResult> resumable_results(const std::string& text, nlohmann::json resolved_input) {
  std::map<std::string, CaseResult> resumed;
  std::string error;
  try {
    const auto record = nlohmann::json::parse(text);
    auto before = record.value("resolved_input", nlohmann::json());
    if (before.contains("run")) before["run"].erase("output_dir");
    resolved_input["run"].erase("output_dir");
    if (before != resolved_input) error = "that run was of a different input (or other settings)";
    for (auto& [key, result] : recorded_results(record)) {
      if (result.check.passed) resumed.emplace(key, std::move(result));
    }
  } catch (const nlohmann::json::exception& e) {
    error = std::string("run.json is not valid JSON: ") + e.what();
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  if (!error.empty()) throw InputError(error);
  return resumed;
}

// The names of one kind of column (params, phases, values), in first-seen order over all rows;
// `of(r)` is a row's (name, ...) pairs of that kind.
template <class PairsOf>
std::vector<std::string> column_names(const std::vector<CaseResult>& results, PairsOf of) {
  std::vector<std::string> names;
  for (const auto& r : results) {
    for (const auto& entry : of(r)) {
      if (std::find(names.begin(), names.end(), entry.first) == names.end()) names.push_back(entry.first);
    }
  }
  return names;
}

std::string results_csv(const std::vector<CaseResult>& results) {
  const auto params = column_names(
      results, [](const CaseResult& r) -> const auto& { return r.spec.params; });
  const auto phases = column_names(
      results, [](const CaseResult& r) -> const auto& { return r.phases; });
  const auto values = column_names(
      results, [](const CaseResult& r) -> const auto& { return r.values; });
  std::ostringstream os;
  os << "experiment,case";
  for (const auto& p : params) os << ',' << csv_field(p);
  os << ",device,dtype,reps,min_s,median_s,mean_s,max_s,cv,median_ci95_low_s,median_ci95_high_s,rank_min_s,"
        "rank_mean_s,rank_max_s,work_bytes,work_"
        "flops,gbps,"
        "gflops,pct_of_ceiling,ceiling,reliable,unreliable_because,verified,check";
  for (const auto& p : phases) os << ',' << csv_field(p + "_median_s");
  for (const auto& v : values) os << ',' << csv_field(v);
  os << '\n';
  for (const auto& r : results) {
    os << csv_field(r.experiment) << ',' << csv_field(r.spec.label);
    for (const auto& p : params) os << ',' << csv_field(r.spec.param(p));
    os << ',' << csv_field(describe(r.spec.device)) << ',' << to_string(r.spec.dtype) << ',' << r.repetitions;
    for (double v : {r.seconds.min, r.seconds.median, r.seconds.mean, r.seconds.max, r.seconds.cv,
                     r.seconds.median_ci_low, r.seconds.median_ci_high, r.rank_means.min, r.rank_means.mean,
                     r.rank_means.max, r.work.bytes, r.work.flops, r.gbps, r.gflops}) {
      os << ',' << csv_number(v);
    }
    os << ',' << (r.ceiling ? csv_number(r.ceiling->percent) : "") << ','
       << csv_field(r.ceiling ? r.ceiling->label : "") << ',' << (r.reliable ? "true" : "false") << ','
       << csv_field(r.unreliable_because);
    os << ',' << (r.check.passed ? "true" : "false") << ',' << csv_field(r.check.detail);
    for (const auto& p : phases) {
      const auto median = r.phase_median(p);
      os << ',' << (median ? csv_number(*median) : "");
    }
    for (const auto& v : values) {
      const auto value = r.value(v);
      os << ',' << (value ? csv_number(*value) : "");
    }
    os << '\n';
  }
  return os.str();
}

nlohmann::json run_json(const Provenance& provenance, const std::vector<CaseResult>& results,
                        const std::vector<Finding>& findings) {
  nlohmann::json record = provenance.fields;
  record["results"] = nlohmann::json::array();
  for (const auto& r : results) {
    nlohmann::json params = nlohmann::json::object();
    for (const auto& [key, value] : r.spec.params) params[key] = value;
    nlohmann::json phases = nlohmann::json::object();
    for (const auto& [name, stats] : r.phases) phases[name] = stats_json(stats);
    nlohmann::json values = nlohmann::json::object();
    for (const auto& [name, value] : r.values)
      values[name] = value ? nlohmann::json(*value) : nlohmann::json();
    record["results"].push_back({{"experiment", r.experiment},
                                 {"case", r.spec.label},
                                 {"params", params},
                                 {"device", describe(r.spec.device)},
                                 {"dtype", to_string(r.spec.dtype)},
                                 {"fenced", r.spec.fence_after_run},
                                 {"repetitions", r.repetitions},
                                 {"repetitions_stopped_by", r.repetitions_stopped_by},
                                 {"seconds", stats_json(r.seconds)},
                                 {"samples_seconds", r.samples},
                                 {"rank_mean_seconds", stats_json(r.rank_means)},
                                 {"bytes", r.work.bytes},
                                 {"flops", r.work.flops},
                                 {"gbps", r.gbps},
                                 {"gflops", r.gflops},
                                 {"phase_seconds", phases},
                                 {"values", values},
                                 {"ceiling", ceiling_json(r.ceiling)},
                                 {"reliable", r.reliable},
                                 {"unreliable_because", r.unreliable_because},
                                 {"verified", r.check.passed},
                                 {"check", r.check.detail}});
  }
  record["findings"] = nlohmann::json::array();
  for (const auto& f : findings) {
    record["findings"].push_back({{"experiment", f.experiment},
                                  {"name", f.name},
                                  {"value", f.value ? nlohmann::json(*f.value) : nlohmann::json(nullptr)},
                                  {"reliable", f.reliable},
                                  {"unreliable_because", f.unreliable_because},
                                  {"unit", f.unit},
                                  {"note", f.note}});
    if (f.ci95) record["findings"].back()["ci95"] = {f.ci95->first, f.ci95->second};
  }
  return record;
}

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
