#!/usr/bin/env bash
# The compiler launcher of the GPU compile checks (compile_check_project in
# scripts/gpu/kokkos_build.sh): runs one compile command so that it checks what only the device
# compiler can check, then leaves an empty object file as ninja's mark that it passed.
#   nvcc (nvcc_wrapper): with -cuda, nvcc runs its CUDA front end (cudafe++, where the
#     cross-execution-space diagnostics are made errors), cicc and ptxas on the device code, and
#     skips its host g++ pass over cudafe++'s output: about half of nvcc's time, and the same g++
#     the host build already ran.
#   hipcc (clang): with -fsyntax-only --cuda-device-only, clang's front end over the whole
#     translation unit as the GPU (gfx90a) sees it, HIP's host/device rules included; no code
#     is generated, and clang's host pass (as long again) is left out.
#   device_compile_check.sh COMPILER ARGS...

# -h/--help: this header. Not through scripts/common.sh: this runs once per compile command.
case "${1:-}" in -h | --help) awk 'NR == 1 && /^#!/ { next } $0 != "#" && !/^# / { exit } { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
set -euo pipefail
out=""
prev=""
for arg in "$@"; do
  [ "$prev" = -o ] && out="$arg"
  prev="$arg"
done
case "$(basename "$1")" in
  nvcc_wrapper | nvcc) NVCC_APPEND_FLAGS="-cuda ${NVCC_APPEND_FLAGS:-}" "$@" ;;
  hipcc | clang++*) "$@" -fsyntax-only --cuda-device-only ;;
  *)
    echo "device_compile_check.sh: $1 is not nvcc_wrapper, nvcc or hipcc" >&2
    exit 2
    ;;
esac
# -cuda leaves nvcc's preprocessed host source (megabytes) where the object would be.
[ -z "$out" ] || : >"$out"
