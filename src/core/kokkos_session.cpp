// Kokkos start-up through the argv interface, the one both Kokkos 3.4 and 4.x accept.
#include "core/kokkos_session.hpp"

#include "core/backend_blas.hpp"
#include "core/errors.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace minigpu {
namespace {

// Kokkos 3.x spells the host thread count --kokkos-threads, 4.x --kokkos-num-threads; users
// may write either, and get the one this Kokkos reads.
#if KOKKOS_VERSION >= 30700
constexpr const char* kThreadsFlag = "--kokkos-num-threads";
#else
constexpr const char* kThreadsFlag = "--kokkos-threads";
#endif

bool is_threads_flag(const std::string& arg) {
  return arg.rfind("--kokkos-threads", 0) == 0 || arg.rfind("--kokkos-num-threads", 0) == 0;
}

// Kokkos itself would die in std::stoi on a bad count; say what is wrong instead (exit 2).
std::string threads_flag_for_this_kokkos(const std::string& arg) {
  const auto eq = arg.find('=');
  const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
  const bool digits = !value.empty() && value.size() <= 6 &&
                      value.find_first_not_of("0123456789") == std::string::npos && std::stoi(value) > 0;
  if (!digits) {
    throw InputError(arg.substr(0, eq) + ": '" + value.substr(0, 80) +
                     "' is not a thread count (a positive integer, e.g. --kokkos-threads=4)");
  }
  return std::string(kThreadsFlag) + "=" + value;
}

}  // namespace

KokkosSession::KokkosSession(int& argc, char** argv, int device_id, int host_threads) {
  // Kokkos also answers un-prefixed flags such as --help; hand it only --kokkos-* flags
  // and leave everything else in argv for our own parser.
  std::vector<char*> kokkos_argv{argv[0]};
  std::vector<std::string> owned;  // rewritten flags; reserved so pointers into it stay valid
  owned.reserve(static_cast<std::size_t>(argc) + 2);
  bool user_chose_threads = std::getenv("KOKKOS_NUM_THREADS") || std::getenv("OMP_NUM_THREADS");
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (is_threads_flag(arg)) {
      user_chose_threads = true;
      kokkos_argv.push_back(owned.emplace_back(threads_flag_for_this_kokkos(arg)).data());
    } else if (arg.rfind("--kokkos-", 0) == 0) {
      kokkos_argv.push_back(argv[i]);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  argv[argc] = nullptr;
  // --kokkos-device-id is the spelling both Kokkos 3.4 and 4.x accept.
  bool user_chose = std::getenv("KOKKOS_DEVICE_ID") != nullptr;
  for (std::size_t i = 1; i < kokkos_argv.size(); ++i) {
    const std::string arg = kokkos_argv[i];
    user_chose =
        user_chose || arg.rfind("--kokkos-device-id", 0) == 0 || arg.rfind("--kokkos-num-devices", 0) == 0;
  }
  if (device_id >= 0 && !user_chose) {
    kokkos_argv.push_back(owned.emplace_back("--kokkos-device-id=" + std::to_string(device_id)).data());
  }
#if defined(KOKKOS_ENABLE_OPENMP) || defined(KOKKOS_ENABLE_THREADS)
  if (!user_chose_threads) {
    kokkos_argv.push_back(
        owned.emplace_back(std::string(kThreadsFlag) + "=" + std::to_string(std::max(1, host_threads))).data());
  }
#else
  (void)host_threads;  // a Serial host space is one thread, whatever was asked
  (void)user_chose_threads;
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  // The OpenMP runtime read OMP_PROC_BIND when it was loaded, and without it pins no thread:
  // say so, and Kokkos does not print its advice to pin on every rank. The launchers bind each
  // rank to its cores and leave its threads unpinned within them, since a pinned main thread
  // would pin the BLAS's threads, which it starts, to its one core (pinned_blas_threads()).
  setenv("OMP_PROC_BIND", "false", 0);
#endif
  int kokkos_argc = static_cast<int>(kokkos_argv.size());
  kokkos_argv.push_back(nullptr);
  Kokkos::initialize(kokkos_argc, kokkos_argv.data());
  // The host BLAS computes on the same cores as Kokkos's host space, with as many threads.
  if (!std::getenv("OPENBLAS_NUM_THREADS")) set_host_blas_threads(Kokkos::DefaultHostExecutionSpace().concurrency());
}

KokkosSession::~KokkosSession() {
  if (Kokkos::is_initialized()) Kokkos::finalize();
}

}  // namespace minigpu
