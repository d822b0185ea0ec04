// Kokkos start-up through the argv interface, the one both Kokkos 3.4 and 4.x accept.
#include "core/kokkos_session.hpp"

#include <Kokkos_Core.hpp>

#include <cstdlib>
#include <string>
#include <vector>

namespace minigpu {

KokkosSession::KokkosSession(int& argc, char** argv, int device_id) {
  // Kokkos also answers un-prefixed flags such as --help; hand it only --kokkos-* flags
  // and leave everything else in argv for our own parser.
  std::vector<char*> kokkos_argv{argv[0]};
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]).rfind("--kokkos-", 0) == 0) {
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
  std::string device_flag = "--kokkos-device-id=" + std::to_string(device_id);
  if (device_id >= 0 && !user_chose) kokkos_argv.push_back(device_flag.data());
  int kokkos_argc = static_cast<int>(kokkos_argv.size());
  kokkos_argv.push_back(nullptr);
  Kokkos::initialize(kokkos_argc, kokkos_argv.data());
}

KokkosSession::~KokkosSession() {
  if (Kokkos::is_initialized()) Kokkos::finalize();
}

}  // namespace minigpu
