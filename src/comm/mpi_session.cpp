// MPI initialisation and teardown; nothing here knows about Kokkos or devices.
#include "comm/mpi_session.hpp"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace minigpu {
namespace {

// A launcher reads each rank's stderr from a pipe, and on MPI_Abort may kill the job before it
// has read what the aborting rank wrote last: MPICH's mpiexec (Hydra) lost the error line in 3
// of 16 injected faults. So wait until the pipe is empty (the launcher has read it), at most 2 s.
// A terminal or a file holds what was written already; a flushed stdio buffer is in the pipe.
void wait_until_stderr_is_read() {
  struct stat st {};
  if (fstat(STDERR_FILENO, &st) != 0 || !S_ISFIFO(st.st_mode)) return;
  for (int i = 0; i < 200; ++i) {
    int unread = 0;
    if (ioctl(STDERR_FILENO, FIONREAD, &unread) != 0 || unread <= 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  // Not MPI_Init_thread(MPI_THREAD_FUNNELED), which SUMMA's MPI calls inside the native GEMM's
  // parallel regions would want (mpi_funneled()): asking for it cost Open MPI 4.1.4's 8-byte
  // ping-pong 6-15 % (2-core Zen 4 VM, 2026-12-05: medians of paired launches 1.061-1.150 against
  // hpcc, 0.930-0.990 without it). A user can ask for it: OMPI_MPI_THREAD_LEVEL=1 (Open MPI),
  // MPIR_CVAR_DEFAULT_THREAD_LEVEL=MPI_THREAD_FUNNELED (MPICH).
  if (!initialized) MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
  if (!initialized_) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

void MpiSession::abort(int exit_code) const {
  std::fflush(stderr);
  if (!initialized_) std::exit(exit_code);
  wait_until_stderr_is_read();
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::exit(exit_code);  // MPI_Abort does not return; this satisfies [[noreturn]]
}

bool mpi_funneled() {
  int initialized = 0, level = MPI_THREAD_SINGLE;
  MPI_Initialized(&initialized);
  if (initialized) MPI_Query_thread(&level);
  return initialized && level >= MPI_THREAD_FUNNELED;
}

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string line;
  // Open MPI counts the terminating NUL in the length (its run.json string once ended in \u0000).
  for (const char c : std::string(text, static_cast<std::size_t>(length))) {
    if (c == '\0' || (c == '\n' && !line.empty())) break;
    const bool space = c == ' ' || c == '\t' || c == '\n';
    if (space && (line.empty() || line.back() == ' ')) continue;
    line += space ? ' ' : c;
  }
  while (!line.empty() && (line.back() == ' ' || line.back() == ',')) line.pop_back();
  return line;
}

std::string processor_name() {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  return std::string(name, static_cast<std::size_t>(length));
}

}  // namespace minigpu
