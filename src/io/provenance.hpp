// What a run record says about where and how it ran: version, Kokkos, host, BLAS, devices and
// each rank's place, so each result can reproduce itself. Typed here; JSON only in run.json.
#pragma once

#include "core/binding.hpp"
#include "core/wire.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace minigpu::io {

/// One rank's place in the job, as the console's and run.json's rank map show it.
struct RankPlacement {
  int rank = 0;
  std::string host;  ///< the node's name
  int local_rank = 0;
  int device_id = -1;            ///< -1: no GPU
  std::string device;            ///< "gpu(0) = NVIDIA H100 …", "emulated GPU 1", "cpu"
  std::string cores;             ///< the affinity mask, "0-3"
  int threads = 1;               ///< Kokkos host threads
  std::string binding = "none";  ///< the rule that chose the device (DeviceBinding::rule)
};

/// This build, this host and this process's BLAS, threads, environment and devices.
struct Provenance {
  struct Build {
    std::string version, git, compiler, type, flags;
    std::string kokkos_version, default_execution_space;
    std::vector<std::string> kokkos_backends;
  } build;
  struct Host {
    std::string hostname, cpu, vector_isa;
    int logical_cores = 0, vector_bytes = 0;
    std::uint64_t memory_bytes = 0;
    std::int64_t l1d = 0, l2 = 0, l3 = 0;
  } host;
  struct Blas {
    std::string library, config, core;
    std::string warning;  ///< "" or why its figures undersell the CPU
    int threads = 1;
  } blas;
  int kokkos_host_threads = 1;
  std::vector<std::pair<std::string, std::string>>
      environment;          ///< the variables that change threads and kernels
  std::string mpi_library;  ///< MPI_Get_library_version's first line (comm gives it; io knows no MPI)
  int num_gpus = 0;
  std::vector<std::string> gpus;
  bool gpus_emulated = false;
};

/// This rank's place; `host` is the node's name.
RankPlacement rank_placement(int rank, const std::string& host, const DeviceBinding& binding);
/// This process's build, machine and environment.
Provenance provenance();

/// A placement's JSON form: run.json's mpi.ranks items.
nlohmann::json to_json(const RankPlacement& p);
/// How the ranks send theirs to each other (core/wire.hpp, comm/typed_exchange.hpp).
template <class Archive>
void fields(Archive& a, RankPlacement& p) {
  a(p.rank, p.host, p.local_rank, p.device_id, p.device, p.cores, p.threads, p.binding);
}
/// run.json's minigpu, kokkos, host, build, blas, threads, environment and devices, into `record`.
void write_provenance(const Provenance& p, nlohmann::json& record);

}  // namespace minigpu::io
