# shellcheck shell=bash
# The bench that collector-ovs.sh and collector-ovs-udp.sh share (sourced). An Open vSwitch
# bridge (userspace datapath, its own ovsdb-server and ovs-vswitchd in a temp dir) connects four
# hosts in network namespaces, h1..h4 at 10.77.0.1..4 (MAC 02:77:00:00:00:0N). Every bridge port
# is mirrored to a mirror port whose traffic is redirected (tc mirred) into a veth shaped by a
# small tbf: the mirror link is oversubscribed and drops its excess after OVS, so OVS is not
# slowed. The collector captures live (AF_PACKET) on the far end of that link and exports to a
# stand-in controller on loopback (receiver.py). The switch, the mirror link, the collector and
# the stand-in controller live in a namespace of their own, so this OVS userspace datapath
# (whose tap device has a fixed name) does not clash with another OVS on the machine.
#
# The caller sets NAME, MIRROR_RATE and defines fail(), then calls, in order:
#   bench_init PREFIX WATCHDOG_SECONDS   temp dir, names, cleanup by name on exit, a watchdog
#   bench_switch                         the bridge, hosts and mirror link; P1..P4, PM: ofports
#   bench_collector                      stand-in controller and collector (control endpoint with
#                                        credentials te:ctl-s3cret); CPORT, COLLECTOR, SWITCH
# and then uses forwarding_map GEN, put PATH, put_as USER:PASSWORD PATH, metric NAME,
# bridge_rx packets|bytes, bench_stop_collector. Needs root, openvswitch-switch, iperf3, ethtool,
# iproute2, curl, python3.

bench_init() {
  [ "$(id -u)" = 0 ] || fail "must run as root"
  local tool
  for tool in ovs-vswitchd ovsdb-server ovsdb-tool ovs-vsctl iperf3 ethtool ip tc curl python3; do
    command -v "$tool" >/dev/null || fail "missing $tool"
  done
  REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)
  HELPERS="$REPO/src/test/system/collector"
  BIN="${CARGO_TARGET_DIR:-$REPO/target}/release/planck-collector"
  "$REPO/scripts/cargo-release.sh" -p planck-collector || fail "build"
  P="$1$(printf %04x $((RANDOM % 65536)))"   # unique prefix for namespaces and links
  D=$(mktemp -d "/tmp/planck-$NAME.XXXXXX")
  export OVS_RUNDIR=$D OVS_LOGDIR=$D OVS_DBDIR=$D OVS_SYSCONFDIR=$D
  VSCTL=(ovs-vsctl --db="unix:$D/db.sock" --timeout=20)
  BR="${P}br"
  SW="${P}sw"
  INSW=(ip netns exec "$SW")
  PIDS=()
  trap bench_cleanup EXIT
  # Hard bound on the whole test.
  local main=$$ limit=$2
  (
    trap 'kill "$s" 2>/dev/null; exit 0' TERM
    sleep "$limit" & s=$!
    wait "$s" && { echo "$NAME: FAIL (timeout)"; kill -TERM "$main"; }
  ) &
  PIDS+=("$!")
}

bench_cleanup() {
  set +e
  local pid f h
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  [ -S "$D/db.sock" ] && "${VSCTL[@]}" --if-exists del-br "$BR" 2>/dev/null
  for f in ovs-vswitchd ovsdb-server; do
    [ -f "$D/$f.pid" ] && kill "$(cat "$D/$f.pid")" 2>/dev/null
  done
  wait 2>/dev/null
  for h in 1 2 3 4; do ip netns del "${P}h$h" 2>/dev/null; done
  ip netns del "$SW" 2>/dev/null
  # PLANCK_TEST_KEEP=DIR keeps logs, events and iperf3 reports for inspection.
  [ -n "${PLANCK_TEST_KEEP:-}" ] && cp -r "$D" "$PLANCK_TEST_KEEP"
  rm -rf "$D"
}

bench_switch() {
  local h ns l
  ip netns add "$SW"
  "${INSW[@]}" ip link set lo up
  "${INSW[@]}" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
  "${INSW[@]}" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
  ovsdb-tool create "$D/conf.db" /usr/share/openvswitch/vswitch.ovsschema
  "${INSW[@]}" ovsdb-server "$D/conf.db" --remote="punix:$D/db.sock" --pidfile="$D/ovsdb-server.pid" \
    --unixctl="$D/ovsdb-server.ctl" --log-file="$D/ovsdb-server.log" --detach --no-chdir >/dev/null 2>&1
  "${VSCTL[@]}" --no-wait init
  "${INSW[@]}" ovs-vswitchd "unix:$D/db.sock" --pidfile="$D/ovs-vswitchd.pid" --unixctl="$D/ovs-vswitchd.ctl" \
    --log-file="$D/ovs-vswitchd.log" --detach --no-chdir >/dev/null 2>&1
  "${VSCTL[@]}" add-br "$BR" -- set bridge "$BR" datapath_type=netdev

  for h in 1 2 3 4; do
    ns="${P}h$h"
    ip netns add "$ns"
    ip link add "${P}${h}a" netns "$ns" type veth peer name "${P}${h}b" netns "$SW"
    ip -n "$ns" link set "${P}${h}a" name eth0 address "02:77:00:00:00:0$h"
    ip -n "$ns" addr add "10.77.0.$h/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    # OVS's userspace datapath does not fill in offloaded checksums.
    ip netns exec "$ns" ethtool -K eth0 tx off >/dev/null 2>&1
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
    "${INSW[@]}" ip link set "${P}${h}b" up
    "${VSCTL[@]}" add-port "$BR" "${P}${h}b"
  done

  # Mirror port and the oversubscribed mirror link.
  "${INSW[@]}" ip link add "${P}ma" type veth peer name "${P}mb"
  "${INSW[@]}" ip link add "${P}ra" type veth peer name "${P}rb"
  for l in "${P}ma" "${P}mb" "${P}ra" "${P}rb"; do
    "${INSW[@]}" ip link set "$l" up
  done
  "${VSCTL[@]}" add-port "$BR" "${P}ma"
  "${VSCTL[@]}" -- --id=@p get port "${P}ma" \
    -- --id=@m create mirror name=all select-all=true output-port=@p \
    -- set bridge "$BR" mirrors=@m >/dev/null
  # Whatever OVS mirrors arrives on ${P}mb; it is redirected into ${P}ra, whose small tbf
  # drops what the "mirror link" cannot carry.
  "${INSW[@]}" tc qdisc add dev "${P}mb" handle ffff: ingress
  "${INSW[@]}" tc filter add dev "${P}mb" parent ffff: protocol all u32 match u32 0 0 \
    action mirred egress redirect dev "${P}ra"
  "${INSW[@]}" tc qdisc add dev "${P}ra" root tbf rate "$MIRROR_RATE" burst 6kb limit 9kb

  P1=$(port_of "${P}1b"); P2=$(port_of "${P}2b"); P3=$(port_of "${P}3b"); P4=$(port_of "${P}4b")
  PM=$(port_of "${P}ma")
}

port_of() { "${VSCTL[@]}" get interface "$1" ofport; }

bench_collector() {
  "${INSW[@]}" python3 "$HELPERS/receiver.py" "$D/receiver.port" "$D/events.jsonl" planck s3cret &
  PIDS+=("$!")
  for _ in $(seq 50); do [ -s "$D/receiver.port" ] && break; sleep 0.1; done
  [ -s "$D/receiver.port" ] || fail "receiver did not start"
  local rport
  rport=$(cat "$D/receiver.port")
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
url = "http://127.0.0.1:$rport/onos/planck/v1/telemetry/events"
username = "planck"
password = "s3cret"

[control]
listen = "127.0.0.1:$CPORT"
username = "te"
password = "ctl-s3cret"
TOML
  "${INSW[@]}" "$BIN" run --config "$D/collector.toml" 2>"$D/collector.log" &
  COLLECTOR=$!
  PIDS+=("$COLLECTOR")
  for _ in $(seq 50); do "${INSW[@]}" curl -sf "http://127.0.0.1:$CPORT/metrics" >/dev/null && break; sleep 0.1; done
  kill -0 "$COLLECTOR" 2>/dev/null || fail "collector did not start: $(cat "$D/collector.log")"
}

# The forwarding map the tests push: h4's port gets a 40 Mb/s capacity, the others 1 Gb/s.
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

# put_as USER:PASSWORD|- PATH < BODY: the HTTP status of a PUT to the collector's control
# endpoint ("-": no credentials); put PATH: with the right ones.
put_as() {
  local auth=()
  [ "$1" = - ] || auth=(-u "$1")
  "${INSW[@]}" curl -s -o /dev/null -w '%{http_code}' "${auth[@]}" -X PUT \
    -H 'Content-Type: application/json' --data-binary @- "http://127.0.0.1:$CPORT$2"
}
put() { put_as te:ctl-s3cret "$1"; }

metric() { "${INSW[@]}" curl -sf "http://127.0.0.1:$CPORT/metrics" | awk -v m="$1" '$1 == m {print $2}'; }

# bridge_rx packets|bytes: what the four host ports delivered into the bridge.
bridge_rx() {
  local h n total=0
  for h in 1 2 3 4; do
    n=$("${VSCTL[@]}" get interface "${P}${h}b" "statistics:rx_$1")
    total=$((total + n))
  done
  echo "$total"
}

bench_stop_collector() {
  kill -TERM "$COLLECTOR"
  for _ in $(seq 50); do kill -0 "$COLLECTOR" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$COLLECTOR" 2>/dev/null && fail "collector did not stop on SIGTERM"
  wait "$COLLECTOR" || fail "collector exited non-zero: $(tail -3 "$D/collector.log")"
}
