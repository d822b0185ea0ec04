#!/usr/bin/env bash
# A disk that fills mid-run: under mpirun -np 2, the output goes to a 24 KiB tmpfs (mounted in
# a private user and mount namespace, so no privilege is needed and nothing outside changes)
# that the growing run.json outgrows after a few cases. Expect exit 3 with the OS reason
# ("No space left on device"), the directory renamed .failed-XXXXXX with the cases written
# before the failure intact, and no temporary file left. Skipped (77) where the kernel or
# container refuses unprivileged namespaces.
# Usage: check_disk_full.sh MPIEXEC MINIGPU INPUT
set -u
export OMPI_MCA_rmaps_base_oversubscribe=1  # Open MPI's --oversubscribe; MPICH's mpiexec refuses that flag and needs none
mpiexec="$1" minigpu="$2" input="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/disk"
if ! unshare -rm sh -c "mount -t tmpfs -o size=24k tmpfs '$work/disk'" 2>/dev/null; then
  echo "SKIP: cannot mount a tmpfs in a user namespace here"
  exit 77
fi
unshare -rm sh -c "mount -t tmpfs -o size=24k tmpfs '$work/disk' &&
  timeout 120 '$mpiexec' -np 2 '$minigpu' run '$input' --output-dir '$work/disk/out' \
    >'$work/log' 2>&1; echo \$? >'$work/rc'
  cp -r '$work/disk/out' '$work/kept'"
rc="$(cat "$work/rc")"
cat "$work/log"
fail() { echo "FAIL: $*"; exit 1; }
[ "$rc" -eq 3 ] || fail "exit $rc, expected 3"
grep -q "error: cannot write .*: No space left on device" "$work/log" || fail "no error line with the OS reason"
failed=("$work"/kept/full-*.failed-*)
[ -d "${failed[0]}" ] && [ "${#failed[@]}" -eq 1 ] || fail "no single .failed-XXXXXX directory: $(ls "$work/kept")"
ls "$work"/kept/*.partial-* >/dev/null 2>&1 && fail "a .partial directory was left"
ls "${failed[0]}"/*.tmp >/dev/null 2>&1 && fail "a temporary file was left"
/usr/bin/python3 - "${failed[0]}/run.json" <<'PY' || exit 1
import json, sys
record = json.load(open(sys.argv[1]))
results = record["results"]
if not results or not all(r["verified"] for r in results):
    sys.exit(f"FAIL: run.json keeps {len(results)} results, expected the verified cases before the failure")
if record["status"] not in ("failed", "running"):
    sys.exit(f"FAIL: status {record['status']!r}")
print(f"disk full after {len(results)} of 34 cases: kept, status {record['status']!r}")
PY
