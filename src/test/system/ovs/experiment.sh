#!/usr/bin/env bash
# Planck's experiment on real switches (scripts/lab.sh --fabric ovs): the k=4 fat tree of 20 Open
# vSwitch bridges and, for Optimal, one bridge with all 16 hosts; hosts are network namespaces
# running Linux TCP; mirrors into oversubscribed mirror ports, tagged with each switch's RSPAN
# VLAN, reach planck-collector; the lab's experiment runner, controller and report drive it all
# over OpenFlow 1.3 (org.planck.lab.ovs.OvsExperimentCommand).
#
#   scripts/lab.sh --fabric ovs                        # all four workloads x Static/Poll-100ms/PlanckTE + Optimal
#   scripts/lab.sh --fabric ovs --repeats 3            # three seeds, paired statistics
#   scripts/lab.sh --fabric ovs --workloads stride8,bijection --out DIR
# Settings (environment): OVS_LINK_KBPS (link rate, default 5000), OVS_FLOW_BYTES (default: what a
# link carries in 84 ms, as Planck's 100 MiB flows at 10 Gb/s against a 100 ms poll), SKIP_BUILD=1.
# Any other arguments go to OvsExperimentCommand (--workloads, --modes, --seed, --repeats,
# --poll-ms, --damping-ms, --mirror-rate-fraction, --mirror-every-run: mirrors on in every
# fat-tree run, so mirroring costs the switches the same in every mode; docs/ovs-fabric.md).
#
# Needs root, openvswitch-switch, iproute2 (tc), ethtool, python3, java. Every name carries a random
# prefix and is removed by name on exit; the switches, controller and collector run in a namespace
# of their own (see ovs-fabric.sh for why).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../../../.." && pwd)
JAR="$REPO/lab/target/planck-lab.jar"
COLLECTOR="${CARGO_TARGET_DIR:-$REPO/target}/release/planck-collector"
LINK_KBPS=${OVS_LINK_KBPS:-5000}
LINK_BPS=$((LINK_KBPS * 1000))
FLOW_BYTES=${OVS_FLOW_BYTES:-$((LINK_BPS * 84 / 8000))}
say() { echo "ovs lab: $*"; }

if [ -z "${PLANCK_OVS_INSIDE:-}" ]; then
  [ "$(id -u)" = 0 ] || { echo "ovs lab: must run as root (it creates bridges, veths and namespaces)" >&2; exit 1; }
  for tool in ovs-vswitchd ovsdb-server ovsdb-tool ovs-vsctl ovs-ofctl ethtool ip tc python3 java; do
    command -v "$tool" >/dev/null || { echo "ovs lab: missing $tool (scripts/deps.sh installs it)" >&2; exit 1; }
  done
  out="$REPO/results/lab-ovs-$(date -u +%Y%m%d-%H%M%S)"
  args=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --out) out="$2"; shift 2 ;;
      --out=*) out="${1#--out=}"; shift ;;
      *) args+=("$1"); shift ;;
    esac
  done
  mkdir -p "$out"; out=$(cd "$out" && pwd)
  if [ -z "${SKIP_BUILD:-}" ]; then
    say "[build] Java parts (mvn install -pl lab -am) and planck-collector (cargo build --release)"
    (cd "$REPO" && mvn -B -q -ntp install -DskipTests -pl lab -am)
    "$REPO/scripts/cargo-release.sh" -p planck-collector
  fi
  P="${PLANCK_OVS_PREFIX:-px$(printf %04x $((RANDOM % 65536)))}"
  source "$REPO/src/test/system/ovs/sndbuf.sh"
  ovs_sndbuf_raise
  ip netns add "${P}sw"
  rc=0
  PLANCK_OVS_INSIDE=1 PLANCK_OVS_PREFIX=$P PLANCK_OVS_OUT=$out ip netns exec "${P}sw" bash "$0" "${args[@]}" &
  inner=$!
  trap 'kill -TERM "$inner" 2>/dev/null' TERM INT
  wait "$inner" || rc=$?
  wait "$inner" 2>/dev/null || true
  ip netns del "${P}sw" 2>/dev/null || true
  [ "$rc" = 0 ] && echo "Report: $out/report.md"
  exit "$rc"
fi

# ---- inside ${P}sw ------------------------------------------------------------------------------
P=$PLANCK_OVS_PREFIX
OUT=$PLANCK_OVS_OUT
ip link set lo up
D=$(mktemp -d /tmp/planck-ovs-lab.XXXXXX)
# shellcheck source=fabric.sh
source "$REPO/src/test/system/ovs/fabric.sh"
LAB_PID=
COLLECTOR_PID=
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
OFPORT=$(free_port); LISTEN="127.0.0.1:$(free_port)"; COLLECTOR_CONTROL="127.0.0.1:$(free_port)"
CONTROL="127.0.0.1:$(free_port)"

cleanup() {
  set +e
  for pid in $LAB_PID $COLLECTOR_PID; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  local h b
  "${VSCTL[@]}" --timeout=5 --if-exists del-br "${P}o" 2>/dev/null
  for h in $(ovs_hosts); do ip netns del "${P}o$h" 2>/dev/null; ip link del "${P}o${h}b" 2>/dev/null; done
  ip link del "${P}om" 2>/dev/null
  for b in $(ovs_bridges); do ip link del "${b}m" 2>/dev/null; done
  ovs_teardown
  cp "$D"/*.log "$OUT/" 2>/dev/null
  rm -rf "$D"
}
trap cleanup EXIT

# Switch number = datapath id = RSPAN VLAN (OvsLabFabric): core c 1+c, aggregation (p,a) 5+2p+a,
# edge (p,e) 13+2p+e; the single bridge 21.
switch_number() {
  local s=${1#"$P"}
  case $s in
    c*) echo $((1 + ${s:1:1})) ;;
    a*) echo $((5 + 2 * ${s:1:1} + ${s:2:1})) ;;
    e*) echo $((13 + 2 * ${s:1:1} + ${s:2:1})) ;;
  esac
}

SECONDS=0
say "[1/5] fat tree: 20 bridges, 16 hosts (${P}...), links shaped to $LINK_KBPS kb/s"
ovs_start
# Rule counters are folded in from the datapath at most this often (ms; OVS's default is 500):
# as often as Poll-100ms reads them.
"${VSCTL[@]}" set open_vswitch . other_config:max-revalidator=100
ovs_fabric_build "$OFPORT"
args=()
for b in $(ovs_bridges); do
  args+=(-- set bridge "$b" "other-config:datapath-id=$(printf %016x "$(switch_number "$b")")")
done
"${VSCTL[@]}" "${args[@]}"

say "[2/5] mirrors: a mirror port (port 5) per bridge, the RSPAN bridge ${P}rs, collector link ${P}cola/${P}colb"
ip link add "${P}cola" type veth peer name "${P}colb"
for x in "${P}cola" "${P}colb"; do sysctl -qw "net.ipv6.conf.$x.disable_ipv6=1"; ip link set "$x" up; done
"${VSCTL[@]}" -- add-br "${P}rs" -- set bridge "${P}rs" datapath_type=netdev fail_mode=secure \
  protocols=OpenFlow13 -- add-port "${P}rs" "${P}cola" -- set interface "${P}cola" ofport_request=1
: >"$D/rspan.flows"
n=10
for b in $(ovs_bridges); do
  n=$((n + 1))
  ip link add "${b}m" type veth peer name "${b}r"
  sysctl -qw "net.ipv6.conf.${b}m.disable_ipv6=1" "net.ipv6.conf.${b}r.disable_ipv6=1"
  ip link set "${b}m" up; ip link set "${b}r" up
  "${VSCTL[@]}" -- add-port "$b" "${b}m" -- set interface "${b}m" ofport_request=5 \
    -- add-port "${P}rs" "${b}r" -- set interface "${b}r" "ofport_request=$n" >/dev/null
  echo "in_port=$n actions=push_vlan:0x8100,set_field:$(( $(switch_number "$b") | 4096 ))->vlan_vid,output:1" >>"$D/rspan.flows"
done
"${OFCTL[@]}" add-flows "${P}rs" "$D/rspan.flows"

# Optimal's fabric only when Optimal runs (--modes without it: not built).
BUILD_SINGLE=1
prev=
for a in "$@"; do
  case $prev in --modes) [[ $a == *optimal* ]] || BUILD_SINGLE=0 ;; esac
  case $a in --modes=*) [[ $a == *optimal* ]] || BUILD_SINGLE=0 ;; esac
  prev=$a
done
single_hosts() { [ "$BUILD_SINGLE" = 1 ] && ovs_hosts; return 0; }
say "[3/5] Optimal's fabric: bridge ${P}o with the 16 hosts again (namespaces ${P}o...)$([ "$BUILD_SINGLE" = 1 ] || echo ': not needed')"
if [ "$BUILD_SINGLE" = 1 ]; then
args=(-- add-br "${P}o" -- set bridge "${P}o" datapath_type=netdev fail_mode=secure protocols=OpenFlow13
      "other-config:datapath-id=$(printf %016x 21)" other-config:disable-in-band=true
      -- set-controller "${P}o" "tcp:127.0.0.1:$OFPORT")
port=1
: >"$D/neigh.ip"
for o in $(single_hosts); do
  echo "neigh replace $(host_ip "$o") lladdr $(host_mac "$o") dev eth0 nud permanent" >>"$D/neigh.ip"
done
for h in $(single_hosts); do
  ip link add "${P}o${h}b" type veth peer name "${P}o${h}n"
  args+=(-- add-port "${P}o" "${P}o${h}b" -- set interface "${P}o${h}b" "ofport_request=$port")
  port=$((port + 1))
done
# Its mirror port (port 17), so Optimal can mirror as the fat tree's switches do and pay the same
# per-packet cost; the copies that pass the port's tbf end at ${P}or, read by nobody.
ip link add "${P}om" type veth peer name "${P}or"
args+=(-- add-port "${P}o" "${P}om" -- set interface "${P}om" "ofport_request=$port")
"${VSCTL[@]}" "${args[@]}"
"${VSCTL[@]}" -- set controller "${P}o" max_backoff=1000 inactivity_probe=5000 >/dev/null
for x in "${P}om" "${P}or"; do sysctl -qw "net.ipv6.conf.$x.disable_ipv6=1"; ip link set "$x" up; done
for h in $(single_hosts); do
  ns="${P}o$h"
  ip netns add "$ns"
  sysctl -qw "net.ipv6.conf.${P}o${h}b.disable_ipv6=1"
  ip link set "${P}o${h}b" up
  ip link set "${P}o${h}n" netns "$ns"
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n "$ns" link set "${P}o${h}n" name eth0 address "$(host_mac "$h")"
  ip -n "$ns" addr add "$(host_ip "$h")/8" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
  ip netns exec "$ns" ethtool -K eth0 tx off >/dev/null 2>&1
  grep -v " $(host_ip "$h") " "$D/neigh.ip" | ip -n "$ns" -batch -
done
fi

say "[4/5] shaping every link to $LINK_KBPS kb/s (tc tbf; OVS resets a port's qdisc when it takes it, so after add-port)"
# A small bucket (2 full frames), or a whole ~26 kB flow would pass a hop at veth speed; a queue
# of 10 full frames (24 ms at 5 Mb/s).
shape() { tc "${@:3}" qdisc replace dev "$1" root tbf rate "$2" burst 3000 limit 15000; }
while read -r x y; do shape "$x" "${LINK_KBPS}kbit"; shape "$y" "${LINK_KBPS}kbit"; done < <(ovs_links)
for h in $(ovs_hosts); do
  shape "${P}h${h}b" "${LINK_KBPS}kbit"; shape eth0 "${LINK_KBPS}kbit" -n "$(host_ns "$h")"
done
for h in $(single_hosts); do
  shape "${P}o${h}b" "${LINK_KBPS}kbit"; shape eth0 "${LINK_KBPS}kbit" -n "${P}o$h"
done
say "fabrics built in $SECONDS s"

# What the report says about the fabric, appended to it.
cat >"$D/notes.md" <<EOF
## The OVS fabric of this run

Links: every fabric veth (both ends) and each host's eth0 shaped by a tc tbf to $LINK_KBPS kb/s
(bucket 3,000 bytes, queue 15,000 bytes); flows of $FLOW_BYTES bytes, what a link carries in
$((FLOW_BYTES * 8000 / LINK_BPS)) ms (84 ms: a flow's lifetime against the 100 ms poll is Planck's, 100 MiB at 10 Gb/s). OVS $(ovs-vswitchd --version | head -1 | awk '{print $NF}'),
userspace datapath, rule counters folded in every 100 ms (other_config:max-revalidator).
Kernel $(uname -r); every flow's sender uses TCP cubic, Linux's default (set per socket by
tcp-agent.py: this machine's namespaces default to $(cat /proc/sys/net/ipv4/tcp_congestion_control)).
The lab controller, collector and switches ran at the machine's idle scheduling class
(SCHED_IDLE) on a shared 2-core machine; load average at the start: $(cut -d' ' -f1-3 /proc/loadavg).
EOF

say "[5/5] experiment (OvsExperimentCommand) and planck-collector on ${P}colb"
java -cp "$JAR" org.planck.lab.ovs.OvsExperimentCommand --prefix "$P" --db "unix:$D/db.sock" \
  --agent "$REPO/src/test/system/ovs/tcp-agent.py" --openflow "127.0.0.1:$OFPORT" --control "$CONTROL" \
  --link-bps "$LINK_BPS" --link-reason "tc tbf on every link at $LINK_KBPS kb/s: what this shared 2-core machine's OVS fabric sustains with margin (docs/ovs-fabric.md)" \
  --flow-bytes "$FLOW_BYTES" --out "$OUT" --listen "$LISTEN" --collector-control "http://$COLLECTOR_CONTROL" \
  --collector-link "${P}colb" --notes "$D/notes.md" "$@" &
LAB_PID=$!

listening() { (exec 3<>"/dev/tcp/${1%:*}/${1##*:}") 2>/dev/null; }
for _ in $(seq 1 600); do
  listening "$LISTEN" && break
  kill -0 "$LAB_PID" 2>/dev/null || break
  sleep 0.1
done
cat >"$OUT/collector.toml" <<TOML
collector_id = "c1"

[capture]
interface = "${P}colb"
workers = 1
ring_block_kib = 8
ring_blocks = 4096
block_timeout_ms = 1

[detect]
congestion_threshold_pct = 80.0
hysteresis_pct = 5.0
flow_report_interval_ms = 5.0

[export]
url = "http://$LISTEN/onos/planck/v1/telemetry/events"
username = "planck"
password = "planck-lab"

[control]
listen = "$COLLECTOR_CONTROL"
TOML
"$COLLECTOR" run --config "$OUT/collector.toml" >"$OUT/collector.log" 2>&1 &
COLLECTOR_PID=$!
for _ in $(seq 1 100); do
  listening "$COLLECTOR_CONTROL" && break
  kill -0 "$COLLECTOR_PID" 2>/dev/null || { say "planck-collector exited (see $OUT/collector.log)"; exit 1; }
  sleep 0.1
done
rc=0
wait "$LAB_PID" || rc=$?
LAB_PID=
exit "$rc"
