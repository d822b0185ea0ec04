#!/usr/bin/env bash
# Builds miniGPU and runs the whole test suite (unit, MPI and end-to-end) under ctest.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_packages "${MINIGPU_PACKAGES[@]}"
configure_and_build
cd "$MINIGPU_BUILD"
ctest --output-on-failure --timeout 600 "$@"
