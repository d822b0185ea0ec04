#!/usr/bin/env bash
# Compile-checks the HIP build: the whole project (library, minigpu, every test) built with
# hipcc against a HIP-enabled Kokkos for an AMD GPU (gfx90a, MI250X, unless HIP_KOKKOS_ARCH
# says otherwise). Needs no GPU: it compiles and links (Debian's libamdhip64), it does not run.
#   scripts/gpu/check_hip_build.sh [BUILD_DIR]      (default: build-hip-check/, kept incremental)
# hipcc comes from Debian 12's packages (installed here when apt offers them, like every other
# package the project needs). Kokkos: HIP_KOKKOS_ROOT, else built once from the same Kokkos
# 4.6.01 source as the CUDA check into ~/.cache/minigpu, keyed by source checksum, options and
# compiler (see scripts/gpu/hip_kokkos.sh).
# Exit codes: 0 built; 77 skipped (no hipcc, nor a package to install it from); else: failed.
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
source "$MINIGPU_ROOT/scripts/gpu/hip_kokkos.sh"

start=$SECONDS
if apt-cache show hipcc >/dev/null 2>&1; then
  install_packages "${MINIGPU_HIP_PACKAGES[@]}"
fi
if ! command -v hipcc >/dev/null; then
  echo "skipped: no hipcc on the PATH (nor a hipcc package), so the HIP build cannot be compiled here"
  exit 77
fi
build_dir="${1:-$MINIGPU_ROOT/build-hip-check}"
install_packages "${MINIGPU_PACKAGES[@]}"
kokkos_root="$(ensure_hip_kokkos)"
require_hip_kokkos "$kokkos_root"
# A compile check, not a build to run: no -O (CMAKE_BUILD_TYPE=None) cuts the host compiler's
# time by about 40 % (hipcc, experiments/matmul.cpp: 13.3 s at -O3, 8.1 s at -O0) and accepts
# exactly what -O3 accepts. build_cuda.sh and gpu_check.sh build Release.
build_project_with_hip "$kokkos_root" "$build_dir" -DCMAKE_BUILD_TYPE="${MINIGPU_CHECK_BUILD_TYPE:-None}"
log "HIP build compiled and linked in $((SECONDS - start)) s: $build_dir (Kokkos $kokkos_root)"
