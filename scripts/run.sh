#!/usr/bin/env bash
# Builds miniGPU and runs its main job: scripts/run.sh [INPUT.yaml] [RANKS] [minigpu run options]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
input="${1:-$MINIGPU_ROOT/inputs/quickstart.yaml}"
ranks="${2:-2}"
shift $(( $# > 2 ? 2 : $# ))
install_packages "${MINIGPU_PACKAGES[@]}"
configure_and_build
if [ ! -f "$input" ]; then
  log "no such input: $input"
  exit 2
fi
log "running $input on $ranks MPI rank(s)"
mpirun_n "$ranks" "$MINIGPU_BUILD/src/minigpu" run "$input" "$@"
