#!/usr/bin/env bash
# Every script a user runs answers -h and --help with its usage and does nothing else: exit 0,
# the usage on stdout (the word "usage" or the script's own name in it), and no file or
# directory created or changed, neither in the repository nor in HOME or TMPDIR. Once
# scripts/gpu/gpu_bundle.sh ran `mkdir --help` and scripts/gpu/build_cuda.sh `cd --help`.
# The scripts are found, not listed: every tracked file under scripts/ whose first line is a #!
# (a command), except one carrying the sourced libraries' line `# Sourced, not run.`; the
# libraries and Python modules have no #! (scripts/signal_exit.sh, plotlib/, ...). Each runs
# under the interpreter its #! names, with PATH as given, in a copy of the tracked files made
# a git repository, so a script that builds or writes does so there, where `git status` sees it.
# Usage: check_script_help.sh REPO_ROOT
set -uo pipefail
root="$(cd "${1:?usage: check_script_help.sh REPO_ROOT}" && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
copy="$scratch/repo"
mkdir "$copy" "$scratch/home" "$scratch/tmp"
# Tracked files as they are now (a file deleted but not yet `git rm`ed is left out).
git -C "$root" ls-files -z | while IFS= read -r -d '' file; do
  [ -f "$root/$file" ] && printf '%s\0' "$file"
done | (cd "$root" && xargs -0 cp --parents -t "$copy") || { echo "FAIL: cannot copy $root"; exit 1; }
git_copy() { git -C "$copy" -c user.name=check -c user.email=check@localhost "$@"; }
# -f: a tracked file that .gitignore matches is part of the baseline too.
if ! { git_copy init -q && git_copy add -Af . && git_copy commit -qm baseline; }; then
  echo "FAIL: cannot make $copy a git repository"
  exit 1
fi
# git shows no empty directory: the paths themselves are compared too.
paths() { (cd "$copy" && find . -path ./.git -prune -o -print | LC_ALL=C sort); }
paths >"$scratch/paths"

scripts=()
while IFS= read -r -d '' file; do
  if [ -f "$copy/$file" ] && [ "$(head -c 2 "$copy/$file")" = '#!' ] &&
     ! grep -qx '# Sourced, not run\.' "$copy/$file"; then
    scripts+=("$file")
  fi
done < <(git -C "$root" ls-files -z scripts)
if [ "${#scripts[@]}" -eq 0 ]; then
  echo "FAIL: no script found under $root/scripts"
  exit 1
fi

failed=0
fail() {
  echo "FAIL $*"
  failed=$((failed + 1))
}
for script in "${scripts[@]}"; do
  # The #! line's interpreter: `#!/usr/bin/env python3` runs python3 from PATH.
  read -r -a interpreter <<<"$(head -n 1 "$copy/$script" | cut -c 3-)"
  [ "$(basename "${interpreter[0]}")" = env ] && interpreter=("${interpreter[@]:1}")
  for flag in --help -h; do
    # The timeout only stops a script that went on to build or install instead of answering.
    (cd "$copy" && HOME="$scratch/home" TMPDIR="$scratch/tmp" XDG_CACHE_HOME="$scratch/home/.cache" \
      PYTHONDONTWRITEBYTECODE=1 timeout -k 5 60 "${interpreter[@]}" "$script" "$flag" \
      </dev/null >"$scratch/out" 2>"$scratch/err")
    rc=$?
    err="$(head -c 300 "$scratch/err" | tr '\n' ' ')"
    if [ "$rc" -ne 0 ]; then
      fail "$script $flag: exit $rc, expected 0${err:+ (stderr: $err)}"
    elif [ ! -s "$scratch/out" ]; then
      fail "$script $flag: printed nothing on stdout${err:+ (stderr: $err)}"
    elif ! grep -qiF usage "$scratch/out" && ! grep -qF "$(basename "$script")" "$scratch/out"; then
      fail "$script $flag: stdout names neither 'usage' nor $(basename "$script"): $(head -c 200 "$scratch/out")"
    fi
    changed="$(git -C "$copy" status --porcelain --ignored --untracked-files=all
               paths | LC_ALL=C comm -13 "$scratch/paths" - | sed 's/^/new: /')"
    if [ -n "$changed" ]; then
      fail "$script $flag: changed the tree: $(echo "$changed" | head -n 5 | tr '\n' ' ')"
      git -C "$copy" checkout -q -- . && git -C "$copy" clean -qffdx
    fi
    outside="$(cd "$scratch" && find home tmp -mindepth 1 | head -n 5 | tr '\n' ' ')"
    if [ -n "$outside" ]; then
      fail "$script $flag: wrote outside the tree: $outside"
      rm -rf "${scratch:?}/home" "${scratch:?}/tmp" && mkdir "$scratch/home" "$scratch/tmp"
    fi
  done
done
if [ "$failed" -gt 0 ]; then
  echo "$failed failure(s) over ${#scripts[@]} script(s)"
  exit 1
fi
echo "all ${#scripts[@]} scripts answer -h and --help with their usage, nothing written: ${scripts[*]}"
