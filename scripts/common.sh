# Shared by the scripts: paths, package installation, configure-and-build, MPI launch.
# Sourced, not run.
set -euo pipefail

# -h/--help as a script's first argument: its header comment (each script documents its usage
# there) on stdout, exit 0, before the script can install, build or write anything.
#   minigpu_script_help SCRIPT ARGS...
minigpu_script_help() {
  case "${2:-}" in
    -h | --help) ;;
    *) return 0 ;;
  esac
  awk 'NR == 1 && /^#!/ { next } $0 != "#" && !/^# / { exit } { sub(/^# ?/, ""); print }' "$1"
  exit 0
}
# Only where a script sources this file at its top level, so "$@" is the script's own: a
# `bash -c 'source scripts/common.sh; ...'` (the tests) has no script, and in a function "$@"
# would be the function's arguments.
if [ "${#BASH_SOURCE[@]}" -eq 2 ]; then
  minigpu_script_help "${BASH_SOURCE[1]}" "$@"
fi

MINIGPU_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MINIGPU_BUILD="${MINIGPU_BUILD_DIR:-$MINIGPU_ROOT/build}"
# shellcheck source=signal_exit.sh
source "$MINIGPU_ROOT/scripts/signal_exit.sh"
exit_on_interrupt  # a Ctrl-C during the build or the launcher probe ends the script, not the next step

# Debian 12 / Ubuntu packages. scripts/run.sh needs only the first list (build minigpu, run it
# under mpirun: ~25 s of apt on a fresh machine); the test build adds the second, the tests the
# third (~2.5 min of apt, which scripts/test.sh overlaps with the build); MINIGPU_PACKAGES is all.
MINIGPU_RUN_PACKAGES=(
  cmake ninja-build g++ git patch python3 libgtest-dev  # patch: the vendored Kokkos's patch
  libopenblas-dev libdnnl-dev  # oneDNN: the host's vendor bfloat16 GEMM
  ocl-icd-opencl-dev  # Debian's dnnl-config.cmake requires OpenCL (its GPU runtime): only Recommended
  libopenmpi-dev openmpi-bin libscalapack-openmpi-dev  # ScaLAPACK: matmul_scaling's scalapack decomposition
  libyaml-cpp-dev libcli11-dev nlohmann-json3-dev
)
# Debian's Kokkos 3.4 (Serial) and its KokkosKernels: only the compatibility build
# (MINIGPU_KOKKOS=system: the sanitizer pass) compiles against them.
MINIGPU_SYSTEM_KOKKOS_PACKAGES=(libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev)
if [ "${MINIGPU_KOKKOS:-openmp}" = system ]; then
  MINIGPU_RUN_PACKAGES+=("${MINIGPU_SYSTEM_KOKKOS_PACKAGES[@]}")
fi
# The sanitizer build's launcher, bench's library, the compatibility build's Kokkos, and BLIS,
# a peer scripts/dev/bench.sh measures miniGPU's GEMM against where it is faster than OpenBLAS
# (tests/bench/blis_peer.cpp opens it at run time; its priority leaves libblas.so.3 OpenBLAS's).
# MPICH with its ScaLAPACK: the sanitizer pass builds against it (CI's MPICH leg); Debian's
# alternatives keep mpirun, mpicxx and the generic libmpi.so Open MPI's.
MINIGPU_TEST_BUILD_PACKAGES=(ccache libbenchmark-dev "${MINIGPU_SYSTEM_KOKKOS_PACKAGES[@]}" libblis-openmp-dev libblis-dev
                             mpich libmpich-dev libscalapack-mpich-dev)
MINIGPU_TEST_PACKAGES=(
  make
  python3-matplotlib python3-jsonschema  # scripts/plot.py and report.py (47 packages, ~45 s); the schema tests
  slurm-wlm slurm-client munge libpmix-dev  # scripts/slurm/, tests/slurm/ (a local Slurm cluster)
  iproute2  # tests/slurm/test_slurm_two_nodes.sh: a network namespace per emulated node
  chromium  # tests/e2e/check_report.py opens `minigpu report`'s page in it, headless (15 packages, ~35 s)
  python3-torch python3-yaml  # scripts/torch_reference.py (the chapter in PyTorch; ~160 packages, ~80 s)
)
MINIGPU_PACKAGES=("${MINIGPU_RUN_PACKAGES[@]}" "${MINIGPU_TEST_BUILD_PACKAGES[@]}" "${MINIGPU_TEST_PACKAGES[@]}")
# scripts/dev/bench.sh's references for the machine's limits (likwid-bench's peakflops and stream
# kernels, HPC Challenge's PingPong): the benchmark installs them, CI does not need them.
MINIGPU_BENCH_PACKAGES=(likwid hpcc)

log() { echo "[minigpu] $*" >&2; }

# Installs whatever of "$@" is missing, with sudo when not root. No-op when all present.
install_packages() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  log "installing: ${missing[*]}"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# "-G Ninja" for a build directory not yet configured, where ninja is installed and
# CMAKE_GENERATOR names no other generator: Ninja compiles a target's files while the targets
# below it still link, which make does not (minigpu on 2 cores: 86 s, with make 126 s).
ninja_generator() {
  if [ ! -f "$1/CMakeCache.txt" ] && [ -z "${CMAKE_GENERATOR:-}" ] && command -v ninja >/dev/null; then
    echo "-G Ninja"
  fi
}

# Configures once (with Ninja where it is installed and CMAKE_GENERATOR names none) against
# MINIGPU_KOKKOS's Kokkos (scripts/host_kokkos.sh), then builds incrementally; a build directory
# configured against another Kokkos is made afresh. `--target T` (repeatable, first) builds only
# T; the other arguments go to the first configure.
configure_and_build() {
  local targets=()
  while [ "${1:-}" = --target ]; do
    targets+=(--target "$2")
    shift 2
  done
  source "$MINIGPU_ROOT/scripts/host_kokkos.sh"
  local kokkos_args stamp="$MINIGPU_BUILD/.minigpu-kokkos"
  kokkos_args="$(host_kokkos_configure_args)" || exit $?
  # The stamp holds every configure choice (Kokkos, MPI, ...): a tree configured otherwise is redone.
  if [ -f "$MINIGPU_BUILD/CMakeCache.txt" ] && [ "$(cat "$stamp" 2>/dev/null)" != "$kokkos_args $*" ]; then
    log "$MINIGPU_BUILD was configured against another Kokkos or MPI: configuring it afresh"
    rm -rf "$MINIGPU_BUILD"
  fi
  if [ ! -f "$MINIGPU_BUILD/CMakeCache.txt" ]; then
    # shellcheck disable=SC2046,SC2086
    cmake -S "$MINIGPU_ROOT" -B "$MINIGPU_BUILD" $(ninja_generator "$MINIGPU_BUILD") -DCMAKE_BUILD_TYPE=Release \
      $kokkos_args "$@"
    echo "$kokkos_args $*" >"$stamp"
  fi
  cmake --build "$MINIGPU_BUILD" --parallel "$(nproc)" "${targets[@]}"
}

# scripts/run.sh's arguments in any order: sets RUN_INPUT (the first *.yaml/*.yml that is
# not an option's value; default inputs/quickstart.yaml), RUN_RANKS (-n N, -nN, --ranks N,
# or a bare number; default 2) and RUN_ARGS (everything else, for `minigpu run`).
parse_run_args() {
  RUN_INPUT="" RUN_RANKS="" RUN_ARGS=()
  while [ "$#" -gt 0 ]; do
    case "$1" in
      -n | --ranks) [ "$#" -ge 2 ] || { log "$1 needs a rank count"; exit 2; }; RUN_RANKS="$2"; shift 2; continue ;;
      -n[0-9]* | --ranks=*) RUN_RANKS="${1#-n}"; RUN_RANKS="${RUN_RANKS#--ranks=}"; shift; continue ;;
      --only | --set | --output-dir | --resume | --repetitions | --warmups)
        RUN_ARGS+=("$1"); [ "$#" -ge 2 ] && RUN_ARGS+=("$2"); shift $(( $# >= 2 ? 2 : 1 )); continue ;;
      *.yaml | *.yml) if [ -z "$RUN_INPUT" ]; then RUN_INPUT="$1"; shift; continue; fi ;;
      *) if [ -z "$RUN_RANKS" ] && [[ "$1" =~ ^[0-9]+$ ]]; then RUN_RANKS="$1"; shift; continue; fi ;;
    esac
    RUN_ARGS+=("$1")
    shift
  done
  RUN_INPUT="${RUN_INPUT:-$MINIGPU_ROOT/inputs/quickstart.yaml}"
  RUN_RANKS="${RUN_RANKS:-2}"
  if ! [[ "$RUN_RANKS" =~ ^[1-9][0-9]*$ ]]; then
    log "'$RUN_RANKS' is not a rank count"
    exit 2
  fi
}

# Open MPI's mpirun as root and with more ranks than cores (as on CI machines), as environment
# variables: MPICH's mpiexec (Hydra) refuses --oversubscribe and needs none.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# The launcher: MINIGPU_MPIEXEC, else the one the build was configured with (the linked MPI's
# own: cmake/MiniGPUMpi.cmake; the PATH's mpirun can be another MPI's), else mpirun.
minigpu_launcher() {
  if [ -n "${MINIGPU_MPIEXEC:-}" ]; then
    echo "$MINIGPU_MPIEXEC"
    return
  fi
  local cached
  cached="$(sed -n 's/^MPIEXEC_EXECUTABLE:FILEPATH=//p' "$MINIGPU_BUILD/CMakeCache.txt" 2>/dev/null | head -n 1)"
  if [ -n "$cached" ] && [ -x "$cached" ]; then echo "$cached"; else echo mpirun; fi
}

# A live progress line when this script's own output is a terminal (a rank cannot tell).
# MPIRUN_ARGV: the launch command line for "$@" on RANKS ranks (an executable first, so that
# run_forwarding_signals can signal the launcher itself), in the options the launcher in hand
# accepts. MINIGPU_LAUNCHER_FLAVOUR: that launcher's kind (launcher_flavour, signal_exit.sh).
mpirun_argv() {
  local ranks="$1"
  shift
  local progress=lines launcher layout pass=()
  [ -t 1 ] && progress=live
  launcher="$(minigpu_launcher)"
  MINIGPU_LAUNCHER_FLAVOUR="$(launcher_flavour "$launcher")"
  read -r -a layout <<<"$(rank_layout_args "$ranks" "$MINIGPU_LAUNCHER_FLAVOUR")"
  # Open MPI hands remote ranks only the variables named with -x; Hydra passes the whole
  # environment; other launchers (srun) pass theirs.
  [ "$MINIGPU_LAUNCHER_FLAVOUR" = openmpi ] && pass=(-x MINIGPU_PROGRESS)
  MPIRUN_ARGV=(env "MINIGPU_PROGRESS=${MINIGPU_PROGRESS:-$progress}" "$launcher" -n "$ranks"
               "${layout[@]}" "${pass[@]}" "$@")
}

# Ranks × threads on this machine: THREADS per rank (MINIGPU_THREADS, else the cores shared out
# among the ranks), each rank bound to THREADS cores of its own (a Serial build runs one thread
# there). Threads are not pinned within the rank (no OMP_PROC_BIND): the OpenMP runtime would pin
# the main thread to one core, and the BLAS's threads, started from it, would all share that
# core. Where ranks × THREADS exceed the cores, ranks run unbound, and minigpu shares the cores
# out itself (or flags the threads the user asked for as oversubscribed).
#   rank_layout_args RANKS [openmpi|mpich|other]: the launcher's options for it (default openmpi)
rank_layout_args() {
  local ranks="$1" flavour="${2:-openmpi}" cores threads
  cores="$(lscpu -p=CORE 2>/dev/null | grep -v '^#' | sort -u | wc -l)"
  [ "$cores" -ge 1 ] && [ "$cores" -le "$(nproc)" ] || cores="$(nproc)"
  threads="${MINIGPU_THREADS:-$(( cores / ranks ))}"
  if [ "$threads" -ge 1 ] && [ $(( ranks * threads )) -le "$cores" ]; then
    case "$flavour" in
      openmpi) echo "--map-by slot:PE=$threads --bind-to core -x OMP_NUM_THREADS=$threads" ;;
      mpich) echo "-bind-to core:$threads -genv OMP_NUM_THREADS $threads" ;;
      *) echo "" ;;  # a launcher we do not know binds as its site set it up
    esac
  else
    case "$flavour" in
      openmpi) echo "--bind-to none${MINIGPU_THREADS:+ -x OMP_NUM_THREADS=$MINIGPU_THREADS}" ;;
      mpich) echo "-bind-to none${MINIGPU_THREADS:+ -genv OMP_NUM_THREADS $MINIGPU_THREADS}" ;;
      *) echo "" ;;
    esac
  fi
}

mpirun_n() {
  mpirun_argv "$@"
  "${MPIRUN_ARGV[@]}"
}

# scripts/run.sh's launch: minigpu's main job on RANKS ranks, a signal reported as 128+N.
run_main_job() {
  mpirun_argv "$@"
  run_forwarding_signals "${MPIRUN_ARGV[@]}"
}
