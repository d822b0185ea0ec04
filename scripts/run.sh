#!/usr/bin/env bash
# Builds the minigpu program (with only the packages it needs; scripts/test.sh adds the rest and
# builds the tests) and runs its main job, in any order of arguments:
#   scripts/run.sh [INPUT.yaml] [-n RANKS] [minigpu run options]
# (defaults: inputs/quickstart.yaml on 2 ranks; a bare number is taken as RANKS too).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
parse_run_args "$@"
install_packages "${MINIGPU_RUN_PACKAGES[@]}"
configure_and_build --target minigpu
if [ ! -f "$RUN_INPUT" ]; then
  log "no such input: $RUN_INPUT"
  exit 2
fi
log "running $RUN_INPUT on $RUN_RANKS MPI rank(s)"
# An interrupted run says how to finish it: with this script, as it was called, and its ranks.
export MINIGPU_RESUME_WITH="$0 -n $RUN_RANKS"
run_main_job "$RUN_RANKS" "$MINIGPU_BUILD/src/minigpu" run "$RUN_INPUT" "${RUN_ARGS[@]}"
