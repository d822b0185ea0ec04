#!/usr/bin/env bash
# Compile-checks the HIP build: every translation unit of it (the library, minigpu, the tests
# that hold device code, in unity batches) through hipcc's device (gfx90a, MI250X, unless
# HIP_KOKKOS_ARCH says otherwise) front end, -fsyntax-only: clang's C++ and HIP rules, no code
# generated, nothing linked. Needs no GPU.
#   scripts/gpu/check_hip_build.sh [BUILD_DIR]      (default: build-hip-check/, kept incremental)
# hipcc comes from Debian 12's packages (installed here when apt offers them, like every other
# package the project needs). Kokkos: HIP_KOKKOS_ROOT, else the same Kokkos 4.6.01 source as
# the CUDA check, configured (not built) into ~/.cache/minigpu, keyed by source checksum,
# options and compiler (see scripts/gpu/hip_kokkos.sh).
# Exit codes: 0 compiled; 77 skipped (no hipcc, nor a package to install it from); else: failed.
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
kokkos_dir="$(ensure_hip_kokkos_configured)"
require_hip_kokkos "$kokkos_dir"
compile_check_hip "$kokkos_dir" "$build_dir"
log "HIP build compile-checked in $((SECONDS - start)) s: $build_dir (Kokkos $kokkos_dir)"
