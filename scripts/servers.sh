#!/usr/bin/env bash
# The object-store servers the tests run against: a single-node Ceph cluster (one monitor,
# one memstore OSD, the RADOS Gateway's S3 API on 127.0.0.1) and Azurite, Microsoft's Azure
# Blob emulator (npm, pinned by tests/azurite/package-lock.json; scripts/install-deps.sh
# installs it).
#
# Usage: scripts/servers.sh start   starts them (idempotent: a running set is reused)
#        scripts/servers.sh stop    stops them, one daemon at a time, by pid file
#        scripts/servers.sh status  exit 0 when the S3 and the Azure endpoints answer
#
# Everything lives in one state directory, $LITHIFY_SERVERS_DIR (default build/servers):
# ceph.conf, keyrings, logs, pid files, Azurite's store and `env`, a file of `export` lines
# (endpoints, credentials, region, the test bucket and container) that tests read from the
# environment:
#     scripts/servers.sh start && source build/servers/env && ctest --test-dir build
# Ports are chosen free at start. Nothing here needs systemd (see
# ../shared/docs/object-storage.md for what was verified on these machines).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${LITHIFY_SERVERS_DIR:-$root/build/servers}"
access_key=lithifytestkey
secret_key=lithifytestsecret0123456789
bucket=lithify-test
region=us-east-1
# Azurite's documented development account and key (the same in every installation).
az_account=devstoreaccount1
az_key='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
az_container=lithify-test
az_bin="$root/tests/azurite/node_modules/azurite/dist/src/blob/main.js"

die() { echo "servers.sh: $*" >&2; exit 1; }

# A TCP port on 127.0.0.1 that nothing listens on.
free_port() {
  local p
  for _ in $(seq 1 200); do
    p=$(( 20000 + RANDOM % 30000 ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  die "no free port found"
}

alive() { [[ -f "$1" ]] && running "$(cat "$1")"; }
# Whether process $1 exists and is not a zombie (the daemons' parent is PID 1, which may
# reap them late).
running() { kill -0 "$1" 2>/dev/null && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null; }

# A signed S3 request (curl's own SigV4); prints the HTTP status.
s3_status() {
  local method=$1 path=$2
  curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X "$method" \
    --aws-sigv4 "aws:amz:$region:s3" --user "$access_key:$secret_key" \
    -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "http://127.0.0.1:$rgw_port$path" || true
}

# Whether Azurite answers HTTP at all (an unsigned request: any status but 000).
azurite_up() {
  local code
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$az_port/$az_account?comp=list" || true)
  [[ -n "$code" && "$code" != 000 ]]
}

status() {
  [[ -f "$dir/env" ]] || return 1
  alive "$dir/client.rgw.lithify.pid" || return 1
  alive "$dir/azurite.pid" || return 1
  rgw_port=$(sed -n 's/^# rgw_port=//p' "$dir/env")
  az_port=$(sed -n 's/^# azurite_port=//p' "$dir/env")
  [[ "$(s3_status GET /)" == 200 ]] && azurite_up
}

# Azurite in the background (pid file $dir/azurite.pid). --disableTelemetry: without it
# Azurite starts slower and ignores SIGTERM (../shared/docs/object-storage.md).
start_azurite() {
  mkdir -p "$dir/azurite"
  node "$az_bin" --location "$dir/azurite" --blobHost 127.0.0.1 --blobPort "$az_port" --loose \
    --skipApiVersionCheck --disableProductStyleUrl --disableTelemetry \
    >"$dir/log/azurite.log" 2>&1 </dev/null &
  echo $! >"$dir/azurite.pid"
}

write_conf() {
  cat >"$dir/ceph.conf" <<EOF
[global]
fsid = $fsid
mon host = v1:127.0.0.1:$mon_port
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind msgr2 = false
ms bind ipv6 = false
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
keyring = $dir/\$name.keyring
run dir = $dir/run
admin socket = $dir/run/\$name.asok
log file = $dir/log/\$name.log
pid file = $dir/\$name.pid
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
mon data avail warn = 1
mon data avail crit = 0
paxos propose interval = 0.05
paxos min wait = 0.01
[mon.a]
mon data = $dir/mon-a
[osd.0]
osd objectstore = memstore
osd data = $dir/osd-0
memstore device bytes = 2147483648
osd crush update on start = false
[client.rgw.lithify]
rgw frontends = beast endpoint=127.0.0.1:$rgw_port tcp_nodelay=1
rgw data = $dir/rgw
EOF
}

make_keyrings() {
  ceph-authtool --create-keyring "$dir/mon.a.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-authtool --create-keyring "$dir/client.admin.keyring" --gen-key -n client.admin \
    --cap mon 'allow *' --cap osd 'allow *' --cap mds 'allow *' --cap mgr 'allow *' >/dev/null
  ceph-authtool --create-keyring "$dir/osd.0.keyring" --gen-key -n osd.0 \
    --cap mon 'allow profile osd' --cap osd 'allow *' --cap mgr 'allow profile osd' >/dev/null
  ceph-authtool --create-keyring "$dir/client.rgw.lithify.keyring" --gen-key -n client.rgw.lithify \
    --cap mon 'allow rw' --cap osd 'allow rwx' --cap mgr 'allow rw' >/dev/null
  cp "$dir/mon.a.keyring" "$dir/mon-init.keyring"
  for k in client.admin osd.0 client.rgw.lithify; do
    ceph-authtool "$dir/mon-init.keyring" --import-keyring "$dir/$k.keyring" >/dev/null
  done
}

# Polls `cmd` (a string evaluated) every 0.1 s for up to `secs` seconds.
wait_for() {
  local secs=$1 what=$2; shift 2
  for _ in $(seq 1 $((secs * 10))); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  die "$what did not come up within ${secs}s (logs in $dir/log)"
}

osd_up() { ceph -c "$dir/ceph.conf" osd stat 2>/dev/null | grep -q '1 up'; }
rgw_up() { [[ "$(s3_status GET /)" == 200 ]]; }

start() {
  if status; then echo "servers.sh: reusing the servers in $dir"; return 0; fi
  for tool in ceph-mon ceph-osd radosgw radosgw-admin ceph-authtool monmaptool ceph curl node; do
    command -v "$tool" >/dev/null || die "$tool not found: run scripts/install-deps.sh"
  done
  [[ -f "$az_bin" ]] || die "Azurite not found ($az_bin): run scripts/install-deps.sh"
  stop >/dev/null 2>&1 || true
  rm -rf "$dir"
  mkdir -p "$dir/run" "$dir/log" "$dir/mon-a" "$dir/osd-0" "$dir/rgw"
  fsid=$(uuidgen)
  mon_port=$(free_port)
  rgw_port=$(free_port)
  while [[ "$rgw_port" == "$mon_port" ]]; do rgw_port=$(free_port); done
  az_port=$(free_port)
  while [[ "$az_port" == "$mon_port" || "$az_port" == "$rgw_port" ]]; do az_port=$(free_port); done
  local conf=(-c "$dir/ceph.conf")
  # Azurite first: it comes up while the Ceph daemons start.
  start_azurite
  write_conf
  make_keyrings
  monmaptool --create --fsid "$fsid" --addv a "[v1:127.0.0.1:$mon_port]" "$dir/monmap" >/dev/null
  ceph-mon "${conf[@]}" -i a --mkfs --monmap "$dir/monmap" --keyring "$dir/mon-init.keyring" \
    >"$dir/log/mkfs-mon.out" 2>&1
  ceph-mon "${conf[@]}" -i a 2>"$dir/log/mon.err"
  local uuid
  uuid=$(uuidgen)
  ceph "${conf[@]}" osd new "$uuid" 0 -i /dev/null >/dev/null 2>"$dir/log/osd-new.err" ||
    ceph "${conf[@]}" osd new "$uuid" 0 >/dev/null
  ceph "${conf[@]}" auth add osd.0 -i "$dir/osd.0.keyring" >/dev/null 2>&1 || true
  ceph "${conf[@]}" osd crush add osd.0 1.0 root=default >/dev/null 2>&1
  ceph-osd "${conf[@]}" -i 0 --mkfs --osd-uuid "$uuid" >"$dir/log/mkfs-osd.out" 2>&1
  ceph-osd "${conf[@]}" -i 0 2>"$dir/log/osd.err"
  wait_for 60 "the OSD" osd_up
  radosgw "${conf[@]}" -n client.rgw.lithify 2>"$dir/log/rgw.err"
  radosgw-admin "${conf[@]}" user create --uid=lithify --display-name=lithify \
    --access-key="$access_key" --secret="$secret_key" >/dev/null 2>"$dir/log/user-create.err"
  wait_for 60 "radosgw" rgw_up
  [[ "$(s3_status PUT "/$bucket")" == 200 ]] || die "could not create bucket $bucket"
  wait_for 60 "Azurite" azurite_up
  node "$root/tests/azurite/create-container.mjs" "http://127.0.0.1:$az_port/$az_account" "$az_account" \
    "$az_key" "$az_container" || die "could not create container $az_container"
  cat >"$dir/env" <<EOF
# Written by scripts/servers.sh start; source it to reach the test servers.
# rgw_port=$rgw_port
export AWS_ENDPOINT_URL=http://127.0.0.1:$rgw_port
export AWS_ACCESS_KEY_ID=$access_key
export AWS_SECRET_ACCESS_KEY=$secret_key
export AWS_REGION=$region
export LITHIFY_TEST_S3_BUCKET=$bucket
# azurite_port=$az_port
export AZURE_STORAGE_ACCOUNT=$az_account
export AZURE_STORAGE_KEY=$az_key
export LITHIFY_AZURE_BLOB_ENDPOINT=http://127.0.0.1:$az_port/$az_account
export LITHIFY_TEST_AZURE_CONTAINER=$az_container
EOF
  echo "servers.sh: S3 (Ceph RGW) on http://127.0.0.1:$rgw_port, Azure Blob (Azurite) on" \
    "http://127.0.0.1:$az_port/$az_account; source $dir/env"
}

# One daemon at a time, each waited for until gone (signalling radosgw and the OSD together
# hung once). SIGKILL, not SIGTERM: the cluster's data lives in the memstore OSD's memory
# and is thrown away anyway (start begins from an empty directory), and an orderly
# shutdown costs ~10 s (radosgw alone ~6 s).
stop_one() {
  local pidfile=$1 pid
  alive "$pidfile" || { rm -f "$pidfile"; return 0; }
  pid=$(cat "$pidfile")
  kill -KILL "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do
    running "$pid" || break
    sleep 0.05
  done
  rm -f "$pidfile"
}

stop() {
  [[ -d "$dir" ]] || return 0
  stop_one "$dir/azurite.pid"
  stop_one "$dir/client.rgw.lithify.pid"
  stop_one "$dir/osd.0.pid"
  stop_one "$dir/mon.a.pid"
  rm -f "$dir/env"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
