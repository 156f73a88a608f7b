#!/usr/bin/env bash
# The test command: installs dependencies, builds once, runs the whole suite under ctest.
# Usage: scripts/test.sh            (Release-with-debug-info build in build/)
#        LITHIFY_SANITIZE=1 scripts/test.sh   (ASan+UBSan build in build-asan/)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
if [[ "${LITHIFY_SANITIZE:-0}" == 1 ]]; then
  bdir="$root/build-asan"; extra=(-DLITHIFY_SANITIZE=ON -DLITHIFY_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug)
else
  bdir="$root/build"; extra=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
fi
cmake -S "$root" -B "$bdir" -G Ninja "${extra[@]}" >/dev/null
ninja -C "$bdir" -j"$(nproc)"
cd "$bdir"
ctest --output-on-failure -j"$(nproc)" ${CTEST_ARGS:-}
