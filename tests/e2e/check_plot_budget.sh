#!/usr/bin/env bash
# `minigpu run --plot` under MPI cannot hang the job on its plot: rank 0 runs scripts/plot.py
# while the other ranks wait for it, so a plot that never returns (here a "python3" first on
# PATH that sleeps) is ended after its budget (the longest case budget, at least 60 s) with one
# line saying so and exit 3, the results complete and kept, and nothing left running. And a
# SIGINT to minigpu alone while it plots (as Open MPI's mpirun and scripts/run.sh signal the
# ranks, not their children) ends the plot at once: exit 130, a line saying the results are
# complete, nothing left running.
# Usage: check_plot_budget.sh MPIEXEC MINIGPU INPUT
set -u
export OMPI_MCA_rmaps_base_oversubscribe=1  # Open MPI's --oversubscribe; MPICH's mpiexec refuses that flag and needs none
mpiexec="$1" minigpu="$2" input="$3"
budget=60 bound=15  # seconds: the plot's budget here, and the most the job may outlive it
out="$(mktemp -d)"
cleanup() {
  [ -s "$out/fake/plot.pid" ] && kill -KILL "$(cat "$out/fake/plot.pid")" 2>/dev/null
  rm -rf "$out"
}
trap cleanup EXIT
mkdir -p "$out/fake"
printf '#!/bin/sh\necho $$ > "%s/fake/plot.pid"\nexec sleep 600\n' "$out" >"$out/fake/python3"
chmod +x "$out/fake/python3"
status=0
fail() { echo "FAIL: $1"; cat "$out/log"; status=1; }

# Timed from the plot's start (the fake's pid file), not the launch: a fresh machine measures its
# ceilings first, for as long as its load makes that take.
timeout 300 "$mpiexec" -np 2 env PATH="$out/fake:$PATH" \
  "$minigpu" run "$input" --only lazy --output-dir "$out/results" --plot >"$out/log" 2>&1 &
job=$! waited=0
until [ -s "$out/fake/plot.pid" ] || ! kill -0 "$job" 2>/dev/null || [ "$waited" -gt 1200 ]; do
  sleep 0.1
  waited=$((waited + 1))
done
start=$SECONDS
wait "$job"
rc=$? took=$((SECONDS - start))
echo "exit $rc after $took s of plotting"
[ "$rc" -eq 3 ] || fail "exit code $rc, expected 3 (124: the job hung on its plot)"
[ "$took" -ge $((budget - 2)) ] || fail "ended $took s into the plot, before its $budget s budget"
[ "$took" -le $((budget + bound)) ] || fail "plotted $took s, more than the $budget s budget + $bound s"
grep -q "^minigpu: error: scripts/plot.py had not finished after $budget s .* and was ended; the results in .* are complete\$" "$out/log" ||
  fail "no line saying the plot was ended"
[ -s "$out/fake/plot.pid" ] || fail "the fake python3 never ran: the plot step was not reached"
pid="$(cat "$out/fake/plot.pid" 2>/dev/null)"
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then fail "the plot ($pid) was left running"; fi
run_json="$(compgen -G "$out/results/quickstart-*[0-9]Z/run.json" | head -n 1)"
if [ -z "$run_json" ]; then
  fail "no finished run directory (a .partial or .interrupted one would mean the results were cut)"
elif ! grep -q '"status": *"complete"' "$run_json"; then
  fail "run.json does not say the run completed"
fi
# SIGINT to the rank alone, once the plot runs.
rm -f "$out/fake/plot.pid"
PATH="$out/fake:$PATH" "$minigpu" run "$input" --only lazy --output-dir "$out/stopped" --plot >"$out/log" 2>&1 &
job=$! waited=0
until [ -s "$out/fake/plot.pid" ]; do
  sleep 0.1
  waited=$((waited + 1))
  if [ "$waited" -gt 600 ] || ! kill -0 "$job" 2>/dev/null; then fail "the plot step was never reached"; break; fi
done
start=$SECONDS
kill -INT "$job"
for _ in $(seq 100); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
kill -KILL "$job" 2>/dev/null  # still running 10 s on: failed below (exit 137)
wait "$job"
rc=$? took=$((SECONDS - start))
echo "SIGINT while plotting: exit $rc after $took s"
[ "$rc" -eq 130 ] || fail "SIGINT while plotting: exit code $rc, expected 130"
[ "$took" -le 5 ] || fail "SIGINT while plotting: took $took s to end"
grep -q "^minigpu: interrupted by SIGINT .* while drawing the figures; the results in .* are complete" "$out/log" ||
  fail "SIGINT while plotting: no line saying the results are complete"
pid="$(cat "$out/fake/plot.pid" 2>/dev/null)"
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then fail "SIGINT while plotting: the plot ($pid) was left running"; fi
exit "$status"
