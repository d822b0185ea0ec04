// CSV and JSON forms of a run, and the atomic creation of its results directory.
#include "io/run_record.hpp"

#include "core/errors.hpp"
#include "io/format.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace minigpu::io {
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

// null when not measured; a NaN measure (a NaN product, which fails its check) is null too.
nlohmann::json error_json(const std::optional<ReferenceError>& e) {
  if (!e) return nullptr;
  const auto number = [](double x) { return std::isnan(x) ? nlohmann::json(nullptr) : nlohmann::json(x); };
  return {{"max_abs_rel", number(e->max_abs_rel)}, {"frobenius_rel", number(e->frobenius_rel)}};
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
      if (const auto e = j.find("error"); e != j.end() && e->is_object()) {  // absent before 2026-11-27
        const auto number = [&](const char* key) {
          return e->at(key).is_number() ? e->at(key).get<double>() : std::nan("");
        };
        r.check.error = ReferenceError{number("max_abs_rel"), number("frobenius_rel")};
      }
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

namespace {

// The first setting two resolved inputs disagree on, as "run.repetitions is 300 there, 3 here".
std::string first_difference(const nlohmann::json& there, const nlohmann::json& here) {
  const auto patch = nlohmann::json::diff(there, here);
  if (patch.empty()) return "none";
  // Keys come in alphabetical order, so another input's first difference was a default such as
  // block_size: an experiment's name, or an experiment more or less, says what differs.
  const auto names_an_experiment = [](const nlohmann::json& op) {
    const std::string path = op.at("path").get<std::string>(), list = "/experiments/";
    if (path.rfind(list, 0) != 0) return false;
    const std::string rest = path.substr(list.size());
    const std::size_t slash = rest.find('/');
    return slash == std::string::npos || rest.substr(slash) == "/name";
  };
  const auto named = std::find_if(patch.begin(), patch.end(), names_an_experiment);
  std::string pointer = (named != patch.end() ? *named : patch.front()).at("path").get<std::string>();
  // An item added at the end of a list is at "/list/-" in the patch: give it its index here.
  if (pointer.size() >= 2 && pointer.compare(pointer.size() - 2, 2, "/-") == 0) {
    const nlohmann::json::json_pointer list(pointer.substr(0, pointer.size() - 2));
    const std::size_t index = there.contains(list) ? there.at(list).size() : 0;
    pointer = pointer.substr(0, pointer.size() - 1) + std::to_string(index);
  }
  std::string key;  // "/experiments/0/sizes" -> "experiments[0].sizes"
  for (std::size_t i = 1; i <= pointer.size();) {
    const std::size_t end = std::min(pointer.find('/', i), pointer.size());
    const std::string part = pointer.substr(i, end - i);
    const bool index = !part.empty() && std::all_of(part.begin(), part.end(), ::isdigit);
    key += index ? "[" + part + "]" : (key.empty() ? "" : ".") + part;
    i = end + 1;
  }
  const nlohmann::json::json_pointer at(pointer);
  const auto value = [&](const nlohmann::json& j) {
    if (!j.contains(at)) return std::string("absent");
    const nlohmann::json& v = j.at(at);
    if (v.is_object() && v.contains("name") && v.at("name").is_string())
      return "experiment " + v.at("name").dump();
    const std::string text = v.dump();
    return text.size() > 60 ? text.substr(0, 57) + "..." : text;
  };
  return key + " is " + value(there) + " there, " + value(here) +
         " here (resume with the arguments that started it; its run.json's resolved_input has them all)";
}

}  // namespace

std::map<std::string, CaseResult> resumable_results(const std::string& text, nlohmann::json resolved_input) {
  std::map<std::string, CaseResult> resumed;
  std::string error;
  try {
    const auto record = nlohmann::json::parse(text);
    auto before = record.value("resolved_input", nlohmann::json());
    // Where results go and how long a case may stall change nothing a case measures.
    for (auto* input : {&before, &resolved_input}) {
      if (input->contains("run")) {
        (*input)["run"].erase("output_dir");
        (*input)["run"].erase("case_timeout");
      }
      if (input->contains("experiments") && (*input)["experiments"].is_array()) {
        for (auto& entry : (*input)["experiments"])
          if (entry.is_object()) entry.erase("case_timeout");
      }
    }
    if (before != resolved_input)
      error = "that run was of other settings: " + first_difference(before, resolved_input);
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
        "gflops,pct_of_ceiling,ceiling,reliable,unreliable_because,verified,check,error_max_abs_rel,"
        "error_frobenius_rel,pct_of_peak,peak";
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
    os << ',' << (r.check.error ? csv_number(r.check.error->max_abs_rel) : "") << ','
       << (r.check.error ? csv_number(r.check.error->frobenius_rel) : "");
    os << ',' << (r.peak ? csv_number(r.peak->percent) : "") << ',' << csv_field(r.peak ? r.peak->label : "");
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

std::string to_string(RunStatus status) {
  switch (status) {
    case RunStatus::running:
      return "running";
    case RunStatus::complete:
      return "complete";
    case RunStatus::interrupted:
      return "interrupted";
    case RunStatus::failed:
      return "failed";
  }
  return "unknown";
}

namespace {

// Everything but the results and findings, keys as docs/run.schema.json names them.
nlohmann::json record_json(const RunRecord& r) {
  nlohmann::json j;
  write_provenance(r.provenance, j);
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& p : r.ranks) ranks.push_back(to_json(p));
  j["mpi"] = {{"size", r.ranks.size()}, {"ranks", ranks}, {"library", r.provenance.mpi_library}};
  j["input_file"] = r.input_file;
  j["resolved_input"] = r.resolved_input;
  j["overrides"] = r.overrides;
  j["experiments"] = nlohmann::json::array();
  for (const auto& e : r.experiments) {
    j["experiments"].push_back(
        {{"name", e.name},
         {"description", e.description},
         {"figure", e.figure.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.figure)}});
  }
  if (!r.resumed_from.empty()) j["resumed_from"] = r.resumed_from;
  j["ceilings"] = r.ceilings.to_json();
  j["ceilings_source"] = r.ceilings.source;
  if (!r.ceilings.doubt.empty()) j["ceilings_doubt"] = r.ceilings.doubt;
  j["gemm_auto"] = r.gemm_auto ? nlohmann::json{{"entries", gemm_choice_entries_json(*r.gemm_auto)},
                                                {"source", r.gemm_auto->source}}
                               : nlohmann::json();
  j["status"] = to_string(r.status);
  if (!r.failure.empty()) j["failure"] = r.failure;
  j["started"] = r.started;
  if (!r.finished.empty()) j["finished"] = r.finished;
  if (r.cases_planned) j["cases_planned"] = *r.cases_planned;
  if (!r.stop_reason.empty()) j["stop_reason"] = r.stop_reason;
  if (r.machine_load) {
    j["machine_load"] = {{"others_share", r.machine_load->others},
                         {"steal_share", r.machine_load->steal},
                         {"seconds", r.machine_load->seconds},
                         {"loaded", r.machine_load->loaded()}};
  }
  for (const auto& [key, section] : r.sections) j[key] = section;
  return j;
}

}  // namespace

namespace {
constexpr const char* kAutoPrefix = "auto→";
}  // namespace

std::string auto_choice(const std::string& kernel, const std::string& why) {
  return kAutoPrefix + kernel + " (" + why + ")";
}

std::string auto_pick(const std::string& kernel_choice) {
  const std::string prefix = kAutoPrefix;
  if (kernel_choice.compare(0, prefix.size(), prefix) != 0) return "";
  const std::string rest = kernel_choice.substr(prefix.size());
  return rest.substr(0, rest.find(' '));
}

nlohmann::json gemm_choice_entries_json(const GemmChoiceRecord& record) {
  nlohmann::json entries = nlohmann::json::object();
  for (const auto& e : record.entries) {
    entries[e.key] = {
        {"vendor_s", e.vendor_s}, {"native_s", e.native_s}, {"measured", e.measured}, {"on", e.on}};
  }
  return entries;
}

nlohmann::json run_json(const RunRecord& run, const std::vector<CaseResult>& results,
                        const std::vector<Finding>& findings) {
  nlohmann::json record = record_json(run);
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
                                 {"peak", ceiling_json(r.peak)},
                                 {"reliable", r.reliable},
                                 {"unreliable_because", r.unreliable_because},
                                 {"verified", r.check.passed},
                                 {"check", r.check.detail},
                                 {"error", error_json(r.check.error)}});
  }
  record["findings"] = nlohmann::json::array();
  for (const auto& f : findings) {
    record["findings"].push_back({{"experiment", f.experiment},
                                  {"name", f.name},
                                  {"value", f.value ? nlohmann::json(*f.value) : nlohmann::json(nullptr)},
                                  {"reliable", f.reliable},
                                  {"unreliable_because", f.unreliable_because},
                                  {"unit", f.unit},
                                  {"note", f.note},
                                  {"drawn_from", f.rows}});
    if (f.ci95) record["findings"].back()["ci95"] = {f.ci95->first, f.ci95->second};
  }
  return record;
}

}  // namespace minigpu::io
