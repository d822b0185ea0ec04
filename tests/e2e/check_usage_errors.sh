#!/usr/bin/env bash
# Usage errors on the command line exit 2 with one readable line, never a library's raw
# exception (Kokkos once died in std::stoi on --kokkos-threads=abc, exit 3), and so does a
# bad MINIGPU_EMULATE_GPUS.
# Usage: check_usage_errors.sh MINIGPU
set -u
minigpu="$1"
status=0
expect() {  # expect TEXT ARGS...
  local text="$1"
  shift
  local log rc
  log="$("$minigpu" "$@" 2>&1)"
  rc=$?
  if [ "$rc" -ne 2 ] || ! grep -qF -- "$text" <<<"$log" || [ "$(grep -c "error:" <<<"$log")" -ne 1 ]; then
    echo "FAIL: minigpu $*: exit $rc, expected 2 and one error line with '$text':"
    echo "$log"
    status=1
  fi
}
expect "unknown command 'frobnicate' (commands: devices, list, run, ceilings, model, compare, report)" frobnicate
expect "no command given (commands: devices, list, run, ceilings, model, compare, report); try --help"
expect "--kokkos-threads: 'abc' is not a thread count" --kokkos-threads=abc devices
expect "--kokkos-num-threads: '0' is not a thread count" --kokkos-num-threads=0 devices
expect "--kokkos-threads: '' is not a thread count" --kokkos-threads= devices
# The variable is bounded like run.emulate_gpus and, like it, a usage error (it was exit 3).
MINIGPU_EMULATE_GPUS=abc expect "MINIGPU_EMULATE_GPUS='abc' must be an integer" devices
MINIGPU_EMULATE_GPUS=-1 expect "MINIGPU_EMULATE_GPUS='-1' must be >= 0" devices
MINIGPU_EMULATE_GPUS=100000 expect "MINIGPU_EMULATE_GPUS='100000' is too large (max 1024)" devices
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf 'run: {repetitions: 1, warmups: 0}\nexperiments: [{name: devices}]\n' >"$work/in.yaml"
# An empty path (a shell variable left unset) is refused, not taken as "not given".
expect "--resume: is empty (an unset shell variable?)" run "$work/in.yaml" --resume ""
expect "--output-dir: is empty (an unset shell variable?)" run "$work/in.yaml" --output-dir ""
expect "--resume $work/none: cannot read run.json there" run "$work/in.yaml" --resume "$work/none"
mkdir -p "$work/other" && echo '{"resolved_input": {"run": {}}, "results": []}' >"$work/other/run.json"
expect "that run was of other settings: run.dtype is absent there, \"float32\" here" run "$work/in.yaml" --resume "$work/other"
# A run with other settings is refused naming the first that differs, both values beside it.
"$minigpu" run "$work/in.yaml" --set run.repetitions=2 --output-dir "$work/twice" >/dev/null 2>&1 ||
  { echo "FAIL: the run with --set run.repetitions=2 failed"; status=1; }
expect "that run was of other settings: experiments[0].repetitions is 2 there, 1 here" \
  run "$work/in.yaml" --resume "$(ls -d "$work"/twice/*/ | head -n 1)"
# Another input: the experiment that differs, not the first default key in alphabetical order.
# (lazy's device, dtypes and elements come before "name", and devices has none of them.)
printf 'run: {repetitions: 1, warmups: 0}\nexperiments: [{name: lazy, elements: 1000}]\n' >"$work/lazy.yaml"
"$minigpu" run "$work/lazy.yaml" --output-dir "$work/lazy" >/dev/null 2>&1 || { echo "FAIL: lazy.yaml"; status=1; }
expect "that run was of other settings: experiments[0].name is \"lazy\" there, \"devices\" here" \
  run "$work/in.yaml" --resume "$(ls -d "$work"/lazy/*/ | head -n 1)"
printf 'run: {repetitions: 1, warmups: 0}\nexperiments: [{name: devices}, {name: lazy}]\n' >"$work/two.yaml"
expect "that run was of other settings: experiments[1] is absent there, experiment \"lazy\" here" \
  run "$work/two.yaml" --resume "$(ls -d "$work"/twice/*/ | head -n 1)"
[ -e "$work/other/run.json" ] || { echo "FAIL: a refused --resume moved $work/other"; status=1; }
# A resumed run completes in its own directory: there is nowhere else for --output-dir to send it.
expect "--resume continues the run in its own directory ($work/other); --output-dir cannot move it" \
  run "$work/in.yaml" --output-dir "$work/o" --resume "$work/other"
[ -e "$work/o" ] && { echo "FAIL: a refused --resume wrote $work/o"; status=1; }
# `minigpu report` refuses what it cannot draw from, naming the file and the key.
expect "report: '$work/none': no run.json" report "$work/none"
mkdir -p "$work/torn" && printf '{"results": [' >"$work/torn/run.json"
expect "$work/torn/run.json: not valid JSON: " report "$work/torn"
expect "$work/other/run.json: key 'experiments': missing or not a list" report "$work/other"
# A glob over results/ can match a run still starting (.partial-XXXXXX, no run.json yet): alone it
# is refused with that reason; beside a finished run it is skipped with a note and the run's page
# is written.
mkdir -p "$work/twice/in-20261129T000000Z.partial-Ab12Cd"
expect "no run.json yet" report "$work/twice/in-20261129T000000Z.partial-Ab12Cd"
finished="$(ls -d "$work"/twice/*/ | grep -v partial | head -n 1)"
log="$("$minigpu" report "$finished" "$work/twice/in-20261129T000000Z.partial-Ab12Cd" 2>&1)" &&
  grep -q "skipped '$work/twice/in-20261129T000000Z.partial-Ab12Cd'" <<<"$log" && [ -s "$finished/report.html" ] ||
  { echo "FAIL: report of a finished run beside a starting one: exit $?, no note or no page:"; echo "$log"; status=1; }
# A dry run proves the output location by creating a run directory, then leaves no trace.
if ! "$minigpu" run "$work/in.yaml" --dry-run --output-dir "$work/new/deeper" >/dev/null 2>&1 || [ -e "$work/new" ]; then
  echo "FAIL: --dry-run failed on a valid input or left $work/new behind"; status=1
fi
exit $status
