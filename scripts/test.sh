#!/usr/bin/env bash
# The test command: installs dependencies, builds once, starts the object-store test
# servers (scripts/servers.sh), runs the whole suite under ctest, stops the servers.
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
# shellcheck source=scripts/ccache.sh
source "$root/scripts/ccache.sh"
cmake -S "$root" -B "$bdir" -G Ninja "${extra[@]}" "${ccache_args[@]}" >/dev/null
ninja -C "$bdir" -j"$(nproc)"
# The object-store servers (scripts/servers.sh) for the tests labelled s3: started here and
# stopped on exit, unless they were running already (then reused and left running).
servers="$root/scripts/servers.sh"
if "$servers" status 2>/dev/null; then
  echo "test.sh: reusing the running test servers"
else
  "$servers" start
  trap '"$servers" stop' EXIT
fi
set -a
# shellcheck disable=SC1091
source "${LITHIFY_SERVERS_DIR:-$root/build/servers}/env"
set +a
cd "$bdir"
ctest --output-on-failure -j"$(nproc)" ${CTEST_ARGS:-}
