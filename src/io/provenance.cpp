// The provenance of a run, gathered from core's view of the build, the host and its devices.
#include "io/provenance.hpp"

#include "core/backend.hpp"
#include "core/backend_blas.hpp"
#include "core/binding.hpp"
#include "core/cpu_info.hpp"
#include "core/device.hpp"
#include "core/environment.hpp"
#include "core/host_threads.hpp"
#include "minigpu_build_info.hpp"
#include "minigpu_version.hpp"

#include <Kokkos_Core.hpp>

#include <cstdlib>

namespace minigpu::io {

RankPlacement rank_placement(int rank, const std::string& host, const DeviceBinding& b) {
  const int id = bound_device_id(b);
  std::string name = describe(try_gpu());
  if (id >= 0 && !gpus_are_emulated()) name += " = " + gpu_properties(id).name;
  if (id >= 0 && gpus_are_emulated()) name = "emulated GPU " + std::to_string(id);
  return {rank,
          host,
          b.local_rank,
          id,
          name,
          cpu_list_text(b.cpus),
          Kokkos::DefaultHostExecutionSpace().concurrency(),
          id >= 0 ? b.rule : "none"};
}

Provenance provenance() {
  Provenance p;
  p.build = {MINIGPU_VERSION,
             MINIGPU_GIT_HASH,
             MINIGPU_HOST_COMPILER,
             MINIGPU_BUILD_TYPE,
             MINIGPU_HOST_FLAGS,
             kokkos_version_string(),
             Kokkos::DefaultExecutionSpace::name(),
             kokkos_backends()};
  const HostInfo host = host_info();
  const CpuCaches& caches = cpu_caches();
  p.host = {host.hostname,     host.cpu_model, kHostVectorIsa, host.logical_cores, kHostVectorBytes,
            host.memory_bytes, caches.l1d,     caches.l2,      caches.l3};
  const HostBlasInfo blas = host_blas_info();
  p.blas = {blas.library, blas.config, blas.core, blas.kernel_warning, blas.threads};
  p.kokkos_host_threads = Kokkos::DefaultHostExecutionSpace().concurrency();
  for (const char* name :
       {"OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "KOKKOS_NUM_THREADS"}) {
    const char* value = std::getenv(name);
    p.environment.emplace_back(name, value ? value : "");
  }
  p.num_gpus = num_gpus();
  for (Device d : try_all_gpus()) p.gpus.push_back(describe(d));
  p.gpus_emulated = gpus_are_emulated();
  return p;
}

nlohmann::json to_json(const RankPlacement& p) {
  return {{"rank", p.rank},     {"host", p.host},   {"local_rank", p.local_rank}, {"device_id", p.device_id},
          {"device", p.device}, {"cores", p.cores}, {"threads", p.threads},       {"binding", p.binding}};
}

void write_provenance(const Provenance& p, nlohmann::json& j) {
  j["minigpu"] = {{"version", p.build.version}, {"git", p.build.git}};
  j["kokkos"] = {{"version", p.build.kokkos_version},
                 {"backends", p.build.kokkos_backends},
                 {"default_execution_space", p.build.default_execution_space}};
  j["host"] = {{"hostname", p.host.hostname},
               {"cpu", p.host.cpu},
               {"logical_cores", p.host.logical_cores},
               {"memory_bytes", p.host.memory_bytes},
               {"vector_isa", p.host.vector_isa},
               {"vector_bytes", p.host.vector_bytes},
               {"cache_bytes", {{"l1d", p.host.l1d}, {"l2", p.host.l2}, {"l3", p.host.l3}}}};
  j["build"] = {{"compiler", p.build.compiler}, {"type", p.build.type}, {"flags", p.build.flags}};
  j["blas"] = {{"library", p.blas.library}, {"config", p.blas.config}, {"core", p.blas.core}};
  if (!p.blas.warning.empty()) j["blas"]["warning"] = p.blas.warning;
  j["threads"] = {{"kokkos_host", p.kokkos_host_threads}, {"blas", p.blas.threads}};
  j["environment"] = nlohmann::json::object();
  for (const auto& [name, value] : p.environment) j["environment"][name] = value;
  j["devices"] = {{"num_gpus", p.num_gpus}, {"gpus", p.gpus}, {"emulated", p.gpus_emulated}};
}

}  // namespace minigpu::io
