#!/usr/bin/env bash
# Installs everything lithify needs to build and test on a fresh Debian 12 machine:
# the Debian packages (compiler, codecs, test frameworks, sanitizers, libcurl and OpenSSL
# for the object-store backends, Ceph's RADOS Gateway as the S3 test server) and the npm
# packages the test oracle uses (DuckDB), the Azure test server (Azurite) and the panel's
# browser test (playwright-core, driving Debian's chromium). Idempotent; safe to run repeatedly.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

pkgs=(
  build-essential cmake ninja-build pkg-config git ccache
  libzstd-dev libsnappy-dev liblz4-dev libbrotli-dev zlib1g-dev libdeflate-dev
  libfmt-dev nlohmann-json3-dev libsimdjson-dev libcli11-dev
  libroaring-dev libxxhash-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev
  nodejs npm
  chromium
  libcurl4-openssl-dev libssl-dev
  radosgw ceph-mon ceph-osd ceph-common uuid-runtime curl
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
# nodejs/npm may come from a non-Debian install already on PATH.
if command -v node >/dev/null && command -v npm >/dev/null; then
  missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}")
fi
filtered=()
for p in "${missing[@]}"; do [[ -n "$p" ]] && filtered+=("$p"); done
if ((${#filtered[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${filtered[@]}"
fi

# The DuckDB oracle: npm packages pinned by tests/oracle/package-lock.json.
if [[ ! -d "$here/tests/oracle/node_modules/@duckdb/node-api" ]]; then
  (cd "$here/tests/oracle" && npm ci --no-audit --no-fund --loglevel=error)
fi

# The independent Iceberg reader: icebird pinned by tests/iceberg_icebird/package-lock.json.
if [[ ! -d "$here/tests/iceberg_icebird/node_modules/icebird" ]]; then
  (cd "$here/tests/iceberg_icebird" && npm ci --no-audit --no-fund --loglevel=error)
fi

# The Azure Blob test server: Azurite pinned by tests/azurite/package-lock.json (started by
# scripts/servers.sh).
if [[ ! -f "$here/tests/azurite/node_modules/azurite/dist/src/blob/main.js" ]]; then
  (cd "$here/tests/azurite" && npm ci --no-audit --no-fund --loglevel=error)
fi

# The panel's end-to-end test: playwright-core pinned by tests/web/package-lock.json (it
# drives /usr/bin/chromium; it downloads no browser of its own).
if [[ ! -d "$here/tests/web/node_modules/playwright-core" ]]; then
  (cd "$here/tests/web" && npm ci --no-audit --no-fund --loglevel=error)
fi
