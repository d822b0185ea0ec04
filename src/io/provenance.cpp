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

nlohmann::json rank_placement(int rank, const std::string& host) {
  const DeviceBinding& b = rank_binding();
  const int id = bound_device_id();
  std::string name = describe(try_gpu());
  if (id >= 0 && !gpus_are_emulated()) name += " = " + gpu_properties(id).name;
  if (id >= 0 && gpus_are_emulated()) name = "emulated GPU " + std::to_string(id);
  return {{"rank", rank},         {"host", host},
          {"local_rank", b.local_rank}, {"device_id", id},
          {"device", name},           {"cores", cpu_list_text(b.cpus)},
          {"threads", Kokkos::DefaultHostExecutionSpace().concurrency()}};
}

Provenance provenance(const ProvenanceInputs& in) {
  const HostInfo host = host_info();
  nlohmann::json j;
  j["minigpu"] = {{"version", MINIGPU_VERSION}, {"git", MINIGPU_GIT_HASH}};
  j["kokkos"] = {{"version", kokkos_version_string()},
                 {"backends", kokkos_backends()},
                 {"default_execution_space", Kokkos::DefaultExecutionSpace::name()}};
  j["host"] = {{"hostname", host.hostname},
               {"cpu", host.cpu_model},
               {"logical_cores", host.logical_cores},
               {"memory_bytes", host.memory_bytes}};
  const CpuCaches& caches = cpu_caches();
  j["host"]["vector_isa"] = kHostVectorIsa;
  j["host"]["vector_bytes"] = kHostVectorBytes;
  j["host"]["cache_bytes"] = {{"l1d", caches.l1d}, {"l2", caches.l2}, {"l3", caches.l3}};
  j["build"] = {
      {"compiler", MINIGPU_HOST_COMPILER}, {"type", MINIGPU_BUILD_TYPE}, {"flags", MINIGPU_HOST_FLAGS}};
  const HostBlasInfo blas = host_blas_info();
  j["blas"] = {{"library", blas.library}, {"config", blas.config}, {"core", blas.core}};
  if (!blas.kernel_warning.empty()) j["blas"]["warning"] = blas.kernel_warning;
  j["threads"] = {{"kokkos_host", Kokkos::DefaultHostExecutionSpace().concurrency()}, {"blas", blas.threads}};
  j["environment"] = nlohmann::json::object();
  for (const char* name :
       {"OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "KOKKOS_NUM_THREADS"}) {
    const char* value = std::getenv(name);
    j["environment"][name] = value ? value : "";
  }
  nlohmann::json devices = nlohmann::json::array();
  for (Device d : try_all_gpus()) devices.push_back(describe(d));
  j["devices"] = {{"num_gpus", num_gpus()}, {"gpus", devices}, {"emulated", gpus_are_emulated()}};
  j["mpi"] = {{"size", in.ranks}, {"ranks", in.rank_map}};
  j["input_file"] = in.input_file;
  j["resolved_input"] = in.resolved_input;
  j["overrides"] = in.overrides;
  j["experiments"] = in.experiments;
  return Provenance{j};
}

}  // namespace minigpu::io
