#!/usr/bin/env bash
# Real-system test of planck-collector.
#
# An Open vSwitch bridge (userspace datapath, its own ovsdb-server and ovs-vswitchd in a
# temp dir) connects four hosts in network namespaces. Every bridge port is mirrored to a
# mirror port whose traffic is redirected (tc mirred) into a veth shaped by a small tbf:
# the mirror link is oversubscribed and drops its excess after OVS, so OVS is not slowed.
# The collector captures live (AF_PACKET) on the far end of that link, exports to a
# stand-in controller on loopback, and must estimate each iperf3 TCP flow within 10 % of
# iperf3's measured throughput while seeing only a fraction of the packets. It must also
# flag the port whose capacity (from the pushed forwarding map) a flow exceeds.
#
# Needs root, openvswitch-switch, iperf3, ethtool, iproute2, curl, python3.
set -euo pipefail

NAME=collector-ovs
fail() { echo "$NAME: FAIL ($*)"; exit 1; }
[ "$(id -u)" = 0 ] || fail "must run as root"
for tool in ovs-vswitchd ovsdb-server ovsdb-tool ovs-vsctl iperf3 ethtool ip tc curl python3; do
  command -v "$tool" >/dev/null || fail "missing $tool"
done

REPO=$(cd "$(dirname "$0")/../../.." && pwd)
HELPERS="$REPO/src/test/system/collector"
TARGET_DIR=${CARGO_TARGET_DIR:-$REPO/target}
BIN="$TARGET_DIR/release/planck-collector"
(cd "$REPO" && cargo build --release -q -p planck-collector) || fail "build"

P="pk$(printf %04x $((RANDOM % 65536)))"   # unique prefix for namespaces and links
D=$(mktemp -d /tmp/planck-$NAME.XXXXXX)
export OVS_RUNDIR=$D OVS_LOGDIR=$D OVS_DBDIR=$D OVS_SYSCONFDIR=$D
VSCTL=(ovs-vsctl --db="unix:$D/db.sock" --timeout=20)
BR="${P}br"
PIDS=()
RATE_A=30   # Mb/s, h1 -> h3
RATE_B=50   # Mb/s, h2 -> h4
MIRROR_RATE=6mbit
DURATION=8

cleanup() {
  set +e
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  [ -S "$D/db.sock" ] && "${VSCTL[@]}" --if-exists del-br "$BR" 2>/dev/null
  for f in ovs-vswitchd ovsdb-server; do
    [ -f "$D/$f.pid" ] && kill "$(cat "$D/$f.pid")" 2>/dev/null
  done
  for h in 1 2 3 4; do ip netns del "${P}h$h" 2>/dev/null; done
  for l in "${P}1b" "${P}2b" "${P}3b" "${P}4b" "${P}ma" "${P}mb" "${P}ra" "${P}rb" "$BR"; do
    ip link del "$l" 2>/dev/null
  done
  wait 2>/dev/null
  # PLANCK_TEST_KEEP=DIR keeps logs, events and iperf3 reports for inspection.
  [ -n "${PLANCK_TEST_KEEP:-}" ] && cp -r "$D" "$PLANCK_TEST_KEEP"
  rm -rf "$D"
}
trap cleanup EXIT
# Hard bound on the whole test.
MAIN=$$
(
  trap 'kill "$s" 2>/dev/null; exit 0' TERM
  sleep 170 & s=$!
  wait "$s" && { echo "$NAME: FAIL (timeout)"; kill -TERM "$MAIN"; }
) &
WATCHDOG=$!
PIDS+=("$WATCHDOG")

# --- Open vSwitch, private instance -------------------------------------------------
ovsdb-tool create "$D/conf.db" /usr/share/openvswitch/vswitch.ovsschema
ovsdb-server "$D/conf.db" --remote="punix:$D/db.sock" --pidfile="$D/ovsdb-server.pid" \
  --unixctl="$D/ovsdb-server.ctl" --log-file="$D/ovsdb-server.log" --detach --no-chdir >/dev/null 2>&1
"${VSCTL[@]}" --no-wait init
ovs-vswitchd "unix:$D/db.sock" --pidfile="$D/ovs-vswitchd.pid" --unixctl="$D/ovs-vswitchd.ctl" \
  --log-file="$D/ovs-vswitchd.log" --detach --no-chdir >/dev/null 2>&1
"${VSCTL[@]}" add-br "$BR" -- set bridge "$BR" datapath_type=netdev

# --- hosts ------------------------------------------------------------------------------
for h in 1 2 3 4; do
  ns="${P}h$h"
  ip netns add "$ns"
  ip link add "${P}${h}a" type veth peer name "${P}${h}b"
  ip link set "${P}${h}a" netns "$ns"
  ip -n "$ns" link set "${P}${h}a" name eth0 address "02:77:00:00:00:0$h"
  ip -n "$ns" addr add "10.77.0.$h/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
  # OVS's userspace datapath does not fill in offloaded checksums.
  ip netns exec "$ns" ethtool -K eth0 tx off >/dev/null 2>&1
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
  sysctl -qw "net.ipv6.conf.${P}${h}b.disable_ipv6=1"
  ip link set "${P}${h}b" up
  "${VSCTL[@]}" add-port "$BR" "${P}${h}b"
done

# --- mirror port and the oversubscribed mirror link --------------------------------------
ip link add "${P}ma" type veth peer name "${P}mb"
ip link add "${P}ra" type veth peer name "${P}rb"
for l in "${P}ma" "${P}mb" "${P}ra" "${P}rb"; do
  sysctl -qw "net.ipv6.conf.$l.disable_ipv6=1"
  ip link set "$l" up
done
"${VSCTL[@]}" add-port "$BR" "${P}ma"
"${VSCTL[@]}" -- --id=@p get port "${P}ma" \
  -- --id=@m create mirror name=all select-all=true output-port=@p \
  -- set bridge "$BR" mirrors=@m >/dev/null
# Whatever OVS mirrors arrives on ${P}mb; it is redirected into ${P}ra, whose small tbf
# drops what the "mirror link" cannot carry.
tc qdisc add dev "${P}mb" handle ffff: ingress
tc filter add dev "${P}mb" parent ffff: protocol all u32 match u32 0 0 \
  action mirred egress redirect dev "${P}ra"
tc qdisc add dev "${P}ra" root tbf rate "$MIRROR_RATE" burst 6kb limit 9kb

port_of() { "${VSCTL[@]}" get interface "$1" ofport; }
P1=$(port_of "${P}1b"); P2=$(port_of "${P}2b"); P3=$(port_of "${P}3b"); P4=$(port_of "${P}4b")
PM=$(port_of "${P}ma")

# --- stand-in controller and collector ------------------------------------------------
python3 "$HELPERS/receiver.py" "$D/receiver.port" "$D/events.jsonl" planck s3cret &
PIDS+=("$!")
for _ in $(seq 50); do [ -s "$D/receiver.port" ] && break; sleep 0.1; done
[ -s "$D/receiver.port" ] || fail "receiver did not start"
RPORT=$(cat "$D/receiver.port")
CPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
SWITCH="of:00000000000000be"
cat >"$D/collector.toml" <<TOML
collector_id = "ovs-test"

[capture]
interface = "${P}rb"
switch = "$SWITCH"
workers = 2
ring_block_kib = 256
ring_blocks = 16

[detect]
congestion_threshold_pct = 80
hysteresis_pct = 5
flow_report_interval_ms = 5

[export]
url = "http://127.0.0.1:$RPORT/onos/planck/v1/telemetry/events"
username = "planck"
password = "s3cret"

[control]
listen = "127.0.0.1:$CPORT"
TOML
"$BIN" run --config "$D/collector.toml" 2>"$D/collector.log" &
COLLECTOR=$!
PIDS+=("$COLLECTOR")
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$CPORT/metrics" >/dev/null && break; sleep 0.1; done
kill -0 "$COLLECTOR" 2>/dev/null || fail "collector did not start: $(cat "$D/collector.log")"

# Port of h4 gets a 40 Mb/s capacity: the 50 Mb/s flow congests it. h3's port is 1 Gb/s.
forwarding_map() {
  cat <<JSON
{"version": 1, "collector": "ovs-test", "generation": $1,
 "switches": [{"switch": "$SWITCH", "rspanVlan": 100, "mirrorPort": $PM,
   "ports": [{"port": $P1, "capacityBps": 1000000000}, {"port": $P2, "capacityBps": 1000000000},
             {"port": $P3, "capacityBps": 1000000000}, {"port": $P4, "capacityBps": 40000000}],
   "entries": [{"mac": "02:77:00:00:00:01", "port": $P1}, {"mac": "02:77:00:00:00:02", "port": $P2},
               {"mac": "02:77:00:00:00:03", "port": $P3}, {"mac": "02:77:00:00:00:04", "port": $P4}]}]}
JSON
}
put() { curl -s -o /dev/null -w '%{http_code}' -X PUT -H 'Content-Type: application/json' --data-binary @- "http://127.0.0.1:$CPORT$1"; }
[ "$(forwarding_map 2 | put /v1/forwarding)" = 204 ] || fail "forwarding map push refused"
[ "$(forwarding_map 1 | put /v1/forwarding)" = 409 ] || fail "stale forwarding map not answered 409"
[ "$(echo '{"version":1}' | put /v1/forwarding)" = 400 ] || fail "malformed forwarding map not answered 400"
[ "$(echo '{"version":1,"congestionThresholdPct":80,"hysteresisPct":5,"flowReportIntervalMs":5}' | put /v1/config)" = 204 ] \
  || fail "config push refused"

# --- traffic ------------------------------------------------------------------------------
ip netns exec "${P}h3" iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
PIDS+=("$!")
ip netns exec "${P}h4" iperf3 -s -1 -p 5202 >/dev/null 2>&1 &
PIDS+=("$!")
sleep 0.5
ip netns exec "${P}h1" iperf3 -c 10.77.0.3 -p 5201 -t "$DURATION" -b "${RATE_A}M" -l 16K -J >"$D/a.json" &
A=$!
ip netns exec "${P}h2" iperf3 -c 10.77.0.4 -p 5202 -t "$DURATION" -b "${RATE_B}M" -l 16K -J >"$D/b.json" &
B=$!
wait "$A" || fail "iperf3 h1->h3: $(head -c 300 "$D/a.json")"
wait "$B" || fail "iperf3 h2->h4: $(head -c 300 "$D/b.json")"
sleep 0.3

metric() { curl -sf "http://127.0.0.1:$CPORT/metrics" | awk -v m="$1" '$1 == m {print $2}'; }
SEEN=$(metric planck_collector_packets_total)
DROPS=$(metric planck_collector_export_queue_drops_total)
TOTAL=0
TOTAL_BYTES=0
for h in 1 2 3 4; do
  n=$("${VSCTL[@]}" get interface "${P}${h}b" statistics:rx_packets)
  b=$("${VSCTL[@]}" get interface "${P}${h}b" statistics:rx_bytes)
  TOTAL=$((TOTAL + n))
  TOTAL_BYTES=$((TOTAL_BYTES + b))
done
# What the mirror link itself carried and dropped: the oversubscription is in bytes (a mirror
# port's rate), so small ACK frames get through far more often than full-size data frames.
read -r MIRROR_SENT_BYTES MIRROR_DROPS < <(tc -s qdisc show dev "${P}ra" |
  awk '$1 == "Sent" {b = $2; d = $7; sub(/,/, "", d); print b, d; exit}')
kill -TERM "$COLLECTOR"
for _ in $(seq 50); do kill -0 "$COLLECTOR" 2>/dev/null || break; sleep 0.1; done
kill -0 "$COLLECTOR" 2>/dev/null && fail "collector did not stop on SIGTERM"
wait "$COLLECTOR" || fail "collector exited non-zero: $(tail -3 "$D/collector.log")"
echo "export queue drops: $DROPS"

if python3 "$HELPERS/evaluate.py" "$D/events.jsonl" "$SEEN" "$TOTAL" \
    "$MIRROR_SENT_BYTES" "$MIRROR_DROPS" "$TOTAL_BYTES" "$P4" "$P3" \
    "10.77.0.1,10.77.0.3,5201,$D/a.json" "10.77.0.2,10.77.0.4,5202,$D/b.json"; then
  echo "$NAME: PASS"
else
  echo "--- collector log"; tail -20 "$D/collector.log"
  echo "$NAME: FAIL"
  exit 1
fi
