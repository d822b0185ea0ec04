#!/usr/bin/env bash
# clang-tidy (the checks in .clang-tidy: bugprone-*, performance-*, with the exclusions it
# justifies) on every source file of src/, compiled as clang 14 sees it.
#   scripts/dev/tidy.sh [FILE...]     (default: all of src/; exit 1 on any finding)
# Build tree: build-tidy/ (configured only, for compile_commands.json).
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
install_packages "${MINIGPU_PACKAGES[@]}" clang-14 clang-tidy-14
build="$MINIGPU_ROOT/build-tidy"
if [ ! -f "$build/compile_commands.json" ]; then
  CC=clang-14 CXX=clang++-14 cmake -S "$MINIGPU_ROOT" -B "$build" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    -DMINIGPU_NATIVE_ARCH=OFF >/dev/null
  # The generated version header must exist for the sources to parse.
  cmake --build "$build" --target minigpu_version_header >/dev/null
fi
if [ "$#" -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(cd "$MINIGPU_ROOT" && git ls-files 'src/*.cpp' | sed "s|^|$MINIGPU_ROOT/|")
fi
findings=0
for f in "${files[@]}"; do
  out="$(clang-tidy-14 -p "$build" --quiet "$f" 2>/dev/null)"
  if [ -n "$out" ]; then
    echo "$out"
    findings=$((findings + $(grep -c "warning:" <<<"$out")))
  fi
done
log "clang-tidy: ${#files[@]} files, $findings findings"
[ "$findings" -eq 0 ]
