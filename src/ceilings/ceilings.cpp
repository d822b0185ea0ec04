// Which ceiling bounds which case, and the table's JSON form and cache.
#include "ceilings/ceilings.hpp"

#include "core/backend.hpp"
#include "core/backend_blas.hpp"
#include "core/environment.hpp"
#include "kernels/gemm_host_bf16.hpp"

#include <Kokkos_Core.hpp>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace minigpu {
namespace fs = std::filesystem;

// Memory that is the host's (cpu, emulated GPUs) is bounded by the host's figures.
std::string copy_ceiling(Device device, bool host_to_device, bool device_to_host) {
  if (uses_host_memory(device)) return "host_memcpy";
  if (host_to_device) return "gpu_h2d_pinned";
  if (device_to_host) return "gpu_d2h_pinned";
  return "gpu_d2d";
}

std::string stream_ceiling(Device device) { return uses_host_memory(device) ? "host_triad" : "gpu_triad"; }

std::string arithmetic_peak_for(const std::string& gemm_ceiling) {
  if (gemm_ceiling == "host_sgemm") return "host_fma_f32";
  if (gemm_ceiling == "host_dgemm") return "host_fma_f64";
  if (gemm_ceiling == "gpu_sgemm") return "gpu_fma_f32";
  if (gemm_ceiling == "gpu_dgemm") return "gpu_fma_f64";
  return "";
}

std::string gemm_peak(Device device, DType dtype, GemmKernel kernel) {
  if (kernel == GemmKernel::vendor && dtype == DType::f64 && !uses_host_memory(device)) return "";
  return arithmetic_peak_for(gemm_ceiling(device, dtype));
}

bool host_sbgemm_measured() { return host_has_bf16_gemm() && kernels::kHostBf16Dot; }

std::string gemm_ceiling(Device device, DType dtype) {
  // bfloat16 on the host where measured (host_sbgemm: oneDNN and vdpbf16ps both run). Elsewhere
  // on the host a 16-bit product computes in float (no AVX512_FP16 kernel here; bfloat16 widened
  // where its pairs cannot be multiplied), so float's GEMM bounds it. No GPU 16-bit or TF32 GEMM
  // is measured: the datasheet's peak stands for them in the GPU report.
  if (is_low_precision(dtype) && uses_host_memory(device))
    return dtype == DType::bf16 && host_sbgemm_measured() ? "host_sbgemm" : "host_sgemm";
  if (is_low_precision(dtype)) return "";
  const std::string kind = dtype == DType::f32 ? "sgemm" : "dgemm";
  return (uses_host_memory(device) ? "host_" : "gpu_") + kind;
}

nlohmann::json ceilings_cache_key(const nlohmann::json& build) {
  const HostInfo host = host_info();
  const HostBlasInfo blas = host_blas_info();
  // Bump kFormat when the set of ceilings changes, so older cache files are not taken.
  constexpr int kFormat = 8;  // 8: host GEMM ceilings are the best over sizes
  nlohmann::json key = {{"format", kFormat},
                        {"build", build},
                        {"hostname", host.hostname},
                        {"cpu", host.cpu_model},
                        {"kokkos", kokkos_backends()},
                        {"kokkos_host_threads", HostExecSpace().concurrency()},
                        {"blas", {blas.library, blas.core, blas.threads}},
                        {"gpu_blas", kGpuBlasName},
                        {"num_gpus", num_gpus()},
                        {"emulated", gpus_are_emulated()}};
  if (num_gpus() > 0 && !gpus_are_emulated()) key["gpu"] = gpu_properties(active_gpu_id()).name;
  for (const char* name : {"OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"}) {
    const char* value = std::getenv(name);
    key["environment"][name] = value ? value : "";
  }
  return key;
}

std::string ceilings_cache_dir() {
  if (const char* dir = std::getenv("MINIGPU_CEILINGS_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/minigpu";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/minigpu";
  return "";
}

namespace {

// One file per kind, host and key: a changed build or environment writes a new one.
fs::path cache_file(const std::string& kind, const nlohmann::json& key) {
  const std::string dir = ceilings_cache_dir();
  if (dir.empty()) return {};
  return fs::path(dir) / (kind + "-" + key.value("hostname", std::string("host")) + "-" +
                          std::to_string(std::hash<std::string>{}(key.dump())) + ".json");
}

}  // namespace

std::optional<nlohmann::json> load_cached(const std::string& kind, const nlohmann::json& key,
                                          std::string& path) {
  const fs::path file = cache_file(kind, key);
  path = file.string();
  std::ifstream in(file);
  if (file.empty() || !in) return std::nullopt;
  try {
    nlohmann::json j = nlohmann::json::parse(in);
    if (j.at("key") != key) return std::nullopt;  // a hash collision, or an edited file
    return j;
  } catch (const std::exception&) {
    return std::nullopt;  // unreadable: measure again and replace it
  }
}

std::string store_cached(const std::string& kind, const nlohmann::json& key, nlohmann::json body,
                         std::string& why) {
  const fs::path path = cache_file(kind, key);
  if (path.empty()) {
    why = "no cache directory (set MINIGPU_CEILINGS_DIR or HOME)";
    return "";
  }
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  body["key"] = key;
  // Ranks of several jobs may write at once: each through its own temporary and a rename.
  const fs::path temporary = path.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary);
    out << body.dump(2) << '\n';
    if (!out) {
      why = "cannot write " + temporary.string();
      fs::remove(temporary, ec);
      return "";
    }
  }
  fs::rename(temporary, path, ec);
  if (ec) {
    why = "cannot write " + path.string() + ": " + ec.message();
    fs::remove(temporary, ec);
    return "";
  }
  return path.string();
}

std::optional<CeilingTable> load_cached_ceilings(const nlohmann::json& key) {
  std::string path;
  const auto j = load_cached("ceilings", key, path);
  if (!j) return std::nullopt;
  try {
    CeilingTable t = CeilingTable::from_json(j->at("ceilings"));
    t.source = "cached in " + path + " (measured " + j->at("measured").get<std::string>() + ")";
    t.doubt = j->value("doubt", std::string());
    return t;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string store_ceilings(const CeilingTable& table, const nlohmann::json& key, const std::string& measured,
                           std::string& why) {
  return store_cached("ceilings", key,
                      {{"measured", measured}, {"ceilings", table.to_json()}, {"doubt", table.doubt}}, why);
}

}  // namespace minigpu
