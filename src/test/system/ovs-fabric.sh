#!/usr/bin/env bash
# Real-switch test of the app's shadow-MAC routing: a k=4 fat tree of 20 Open vSwitch bridges
# (userspace datapath, private ovsdb-server/ovs-vswitchd in a temp dir) joined by veth pairs,
# 16 hosts in network namespaces, programmed over OpenFlow 1.3 by the lab's southbound
# (OvsFabricControl) with the routing plan the ONOS app computes. Asserted:
#  - the fabric comes up from nothing and all 20 switches get their 1,072 rules in force;
#  - on the default plan and then with every host pair's ICMP forced onto shadow path 0, 1, 2, 3
#    in turn, every host reaches every other host (so the delivery rule restored its real MAC:
#    the host's kernel drops frames for other MACs), and every rule on every switch counted
#    exactly the packets whose path crosses it;
#  - a running TCP flow moved to another path by one per-flow rule: its packets appear on the
#    new path's switches, stop on the old path's, and the sender sees no retransmission timeout;
#  - a flow-mod the switch refuses comes back as an error naming the rule, which is not kept;
#  - one switch losing its controller mid-run: a move meanwhile is reported unavailable and goes
#    in on reconnect, after which the switch holds exactly the wanted rules;
#  - an ovs-vswitchd restart (all switches drop and lose their tables) and a controller restart
#    are each reported and followed by complete reprogramming, proved by counters again;
#  - every bridge's mirror copies reach the collector link with its RSPAN VLAN, and
#    planck-collector, given the fabric's forwarding map, sees a TCP flow on its path's switches
#    only and reports ports on that path (and no other) congested.
# Everything is torn down by name.
#
# Needs root, openvswitch-switch, iperf3, iputils-ping, ethtool, iproute2, java.
set -euo pipefail

NAME=ovs-fabric
fail() { echo "$NAME: FAIL ($*)"; [ -n "${D:-}" ] && [ -f "$D/ctl.err" ] && tail -5 "$D/ctl.err"; exit 1; }
[ "$(id -u)" = 0 ] || fail "must run as root"
for tool in ovs-vswitchd ovsdb-server ovsdb-tool ovs-vsctl ovs-ofctl iperf3 ping ethtool ip tc tcpdump curl python3 java; do
  command -v "$tool" >/dev/null || fail "missing $tool"
done

REPO=$(cd "$(dirname "$0")/../../.." && pwd)
JAR="$REPO/lab/target/planck-lab.jar"
COLLECTOR="${CARGO_TARGET_DIR:-$REPO/target}/release/planck-collector"
if [ -z "${PLANCK_OVS_INSIDE:-}" ]; then
  "$REPO/scripts/cargo-release.sh" -p planck-collector || fail "collector build"
  if [ ! -s "$JAR" ]; then
    (cd "$REPO" && mvn -B -q -ntp package -pl lab -am -DskipTests) || fail "build"
  fi
fi

P="${PLANCK_OVS_PREFIX:-pf$(printf %04x $((RANDOM % 65536)))}"
# The switches live in a namespace of their own, ${P}sw: the userspace datapath's tap device
# is always named "ovs-netdev", so a second userspace OVS on the machine (another test) would
# otherwise take it from this one. The controller and collector run there too (switches reach
# the controller on that namespace's loopback); hosts get their own namespaces as usual.
if [ -z "${PLANCK_OVS_INSIDE:-}" ]; then
  source "$REPO/src/test/system/ovs/sndbuf.sh"
  ovs_sndbuf_raise
  ip netns add "${P}sw" || fail "cannot create namespace ${P}sw"
  PLANCK_OVS_INSIDE=1 PLANCK_OVS_PREFIX=$P ip netns exec "${P}sw" bash "$0" "$@" &
  INNER=$!
  trap 'kill -TERM "$INNER" 2>/dev/null' TERM INT
  rc=0
  wait "$INNER" || rc=$?
  wait "$INNER" 2>/dev/null || true
  ip netns del "${P}sw" 2>/dev/null
  exit "$rc"
fi
ip link set lo up
D=$(mktemp -d /tmp/planck-$NAME.XXXXXX)
# shellcheck source=ovs/fabric.sh
source "$REPO/src/test/system/ovs/fabric.sh"
CTL_PID=
PIDS=()

cleanup() {
  set +e
  [ -n "$CTL_PID" ] && kill "$CTL_PID" 2>/dev/null
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  ovs_teardown
  wait 2>/dev/null
  [ -n "${PLANCK_TEST_KEEP:-}" ] && cp -r "$D" "$PLANCK_TEST_KEEP"
  rm -rf "$D"
}
trap cleanup EXIT
MAIN=$$
(
  trap 'kill "$s" 2>/dev/null; exit 0' TERM
  sleep 170 & s=$!
  wait "$s" && { echo "$NAME: FAIL (timeout)"; kill -TERM "$MAIN"; }
) &
PIDS+=("$!")

CPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
start_controller() {
  coproc CTL { exec java -cp "$JAR" org.planck.lab.ovs.OvsFabricControl --port "$CPORT" 2>>"$D/ctl.err"; }
  CTL_PID=$CTL_PID
}
# Sends one command; the answer (in ANS) must start with "ok". Never call it inside $(...):
# a failure there would only end the subshell.
ANS=
ctl() {
  echo "$*" >&"${CTL[1]}"
  IFS= read -r -t 90 ANS <&"${CTL[0]}" || fail "controller did not answer '$*'"
  case $ANS in
    ok*) ;;
    *) fail "'$*': $ANS" ;;
  esac
}
ping_round() { # label
  local lost
  lost=$(ovs_ping_all 1)
  [ -z "$lost" ] || fail "$1: $(echo "$lost" | wc -l) host pairs unreachable, e.g. $(echo "$lost" | head -2 | tr '\n' ' ')"
  ctl check 1
  echo "$1: 240 host pairs reachable; $ANS"
}

# --- from nothing to a programmed fabric --------------------------------------------------------
SECONDS=0
ovs_start
start_controller
ovs_fabric_build "$CPORT"
echo "fabric built in $SECONDS s"
ctl await 60
echo "$ANS"
ctl baseline
ping_round "default plan"

# --- every host pair on every shadow path -------------------------------------------------------
for i in 0 1 2 3; do
  ctl force "$i"
  echo "path $i: $ANS"
  ping_round "path $i"
done
ctl unforce

# --- port statistics over OpenFlow (the Poll baseline's input) ------------------------------------
# After the rounds above every port of core 0 has carried packets both ways.
ctl portstats of:0000000001000000
echo "core 0 port rx/tx packets: ${ANS#ok }"
for pc in ${ANS#ok }; do
  rx=${pc#*:}; rx=${rx%/*}; tx=${pc#*/}
  [ "$rx" -gt 0 ] && [ "$tx" -gt 0 ] || fail "core 0 port ${pc%%:*} counted no traffic: $ANS"
done
[ "$(echo "${ANS#ok }" | wc -w)" -eq 4 ] || fail "core 0 should report 4 ports: $ANS"

# --- a refused flow-mod ---------------------------------------------------------------------------
ctl refuse
echo "refusal: $ANS"

# --- reroute of a running TCP flow -----------------------------------------------------------------
SRC=000; DST=311
SNS=$(host_ns $SRC); SIP=$(host_ip $SRC); DIP=$(host_ip $DST)
FLOW="$SIP $DIP 6 41000 5201"
timeouts() { ip netns exec "$SNS" awk '$1 == "TcpExt:" && !h {split($0, n); h = 1; next}
  $1 == "TcpExt:" {for (i = 2; i <= NF; i++) if (n[i] == "TCPTimeouts") print $i}' /proc/net/netstat; }
ctl pathof $FLOW
read -r _ OLD OLD_HOPS <<<"$ANS"
NEW=$(((OLD + 1) % 4))
ip netns exec "$(host_ns $DST)" iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
PIDS+=("$!")
sleep 0.5
T0=$(timeouts)
ip netns exec "$SNS" iperf3 -c "$DIP" -p 5201 --cport 41000 -t 8 -J >"$D/iperf.json" 2>&1 &
IPERF=$!
sleep 2.5
# pathpackets answers "ok AGG=n CORE=n AGG=n EDGE=n": the tree rules' counters after the source edge.
ctl pathpackets $FLOW "$OLD"; read -r _ _ O1 _ <<<"$ANS"
ctl move $FLOW "$NEW"; MOVE=$ANS
sleep 2
ctl pathpackets $FLOW "$OLD"; read -r _ _ O2 _ <<<"$ANS"
ctl pathpackets $FLOW "$NEW"; read -r _ _ N2 _ <<<"$ANS"
sleep 1
ctl pathpackets $FLOW "$OLD"; read -r _ _ O3 _ <<<"$ANS"
ctl pathpackets $FLOW "$NEW"; read -r _ _ N3 _ <<<"$ANS"
wait "$IPERF" || fail "iperf3: $(head -c 300 "$D/iperf.json")"
T1=$(timeouts)
core() { echo "${1#*=}"; }  # "DEVICE=n" -> n
echo "reroute: path $OLD ($OLD_HOPS) -> $NEW: $MOVE"
echo "  old-path core packets at move/+2 s/+3 s: $(core "$O1") $(core "$O2") $(core "$O3"); new path: $(core "$N2") $(core "$N3")"
echo "  sender TCPTimeouts $T0 -> $T1; iperf3: $(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["end"]; print("%.1f Mb/s, %d retransmits" % (e["sum_received"]["bits_per_second"]/1e6, e["sum_sent"]["retransmits"]))' "$D/iperf.json")"
[ "$(core "$O1")" -gt 100 ] || fail "the flow was not on its old path before the move"
[ "$(core "$N3")" -gt "$(core "$N2")" ] && [ "$(core "$N2")" -gt 100 ] || fail "the flow's packets do not appear on the new path"
[ $(( $(core "$O3") - $(core "$O2") )) -eq 0 ] || fail "packets still on the old path a second after the move"
[ "$T1" -eq "$T0" ] || fail "retransmission timeout during the reroute ($T0 -> $T1)"
# How long one TE move takes to be in force: flow-mod sent to barrier reply, 200 moves.
ctl movebench $FLOW 200
echo "rule moves: ${ANS#ok }"

# --- one switch disconnects mid-run -------------------------------------------------------------
# The flow's source edge loses its controller connection (fail-secure: it keeps forwarding on what
# it holds). A move made meanwhile is answered "unavailable", not in force, and kept as wanted; on
# reconnect the edge is wiped and reprogrammed: it holds exactly the wanted rules, the deferred move
# included, and nothing else.
disconnected_count() { ctl events; [[ $ANS =~ disconnected=([0-9]+) ]] && echo "${BASH_REMATCH[1]}"; }
D0=$(disconnected_count)
"${VSCTL[@]}" del-controller "${P}e00"
for _ in $(seq 100); do [ "$(disconnected_count)" -gt "$D0" ] && break; sleep 0.1; done
[ "$(disconnected_count)" -gt "$D0" ] || fail "edge ${P}e00 lost its controller but no disconnect was reported"
LATE=$(((OLD + 2) % 4))
echo "move $FLOW $LATE" >&"${CTL[1]}"
IFS= read -r -t 90 ANS <&"${CTL[0]}" || fail "controller did not answer the move"
[[ $ANS == unavailable* ]] || fail "a move onto a disconnected switch must be reported unavailable: $ANS"
echo "disconnect: $ANS"
"${VSCTL[@]}" set-controller "${P}e00" "tcp:127.0.0.1:$CPORT" -- set controller "${P}e00" max_backoff=1000 inactivity_probe=5000
ctl await 30
ctl ruleof $FLOW; read -r _ _ LATE_MAC LATE_PORT <<<"$ANS"
HELD=$("${OFCTL[@]}" dump-flows "${P}e00" | grep 'tp_src=41000' || true)
[ "$(echo "$HELD" | grep -c .)" -eq 1 ] && grep -qi "$LATE_MAC" <<<"$HELD" && grep -q "output:$LATE_PORT" <<<"$HELD" \
  || fail "after reconnect the edge should hold the deferred move ($LATE_MAC out $LATE_PORT), holds: $HELD"
n=$("${OFCTL[@]}" dump-flows "${P}e00" | grep -c priority=)
ctl wanted of:0000000003000000; w=${ANS#ok }
[ "$n" -eq "$w" ] || fail "edge of:0000000003000000 holds $n flows after reconnect, controller wants $w"
echo "  after reconnect: the deferred move is in force (eth_dst $LATE_MAC, out $LATE_PORT); $n flows held = wanted"

# --- switch restart: every bridge drops and loses its flow table ---------------------------------
VSWITCHD=$(cat "$D/ovs-vswitchd.pid")
kill "$VSWITCHD"
for _ in $(seq 50); do [ -e "/proc/$VSWITCHD" ] || break; sleep 0.1; done
# The controller must notice every switch go before "await" means anything.
for _ in $(seq 100); do
  ctl events
  [[ $ANS =~ disconnected=([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 20 ] && break
  sleep 0.1
done
ovs-vswitchd "unix:$D/db.sock" --pidfile="$D/ovs-vswitchd.pid" --unixctl="$D/ovs-vswitchd.ctl" \
  --log-file="$D/ovs-vswitchd.log" --detach --no-chdir >/dev/null 2>&1
ctl await 60
echo "after ovs-vswitchd restart: $ANS"
ctl events; EV=$ANS
echo "  $EV"
[[ $EV =~ disconnected=([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 20 ] || fail "restart not reported for every switch: $EV"
n=$("${OFCTL[@]}" dump-flows "${P}e00" | grep -c priority=)
ctl wanted of:0000000003000000; w=${ANS#ok }
[ "$n" -eq "$w" ] || fail "edge of:0000000003000000 holds $n flows after restart, controller wants $w"
ctl baseline
ping_round "after switch restart"

# --- controller restart ---------------------------------------------------------------------------
echo quit >&"${CTL[1]}"
wait "$CTL_PID" 2>/dev/null || true
CTL_PID=
start_controller
ctl await 60
echo "after controller restart: $ANS"
ctl baseline
ping_round "after controller restart"

# --- mirrors: every bridge's copies reach the collector link, tagged with its RSPAN VLAN --------
MIRROR_RATE=2mbit
ovs_fabric_mirrors "$MIRROR_RATE"
timeout 30 tcpdump -i "${P}colb" -nn -e -U -w "$D/mirror.pcap" 2>/dev/null &
DUMP=$!
sleep 1
lost=$(ovs_ping_all 1)
[ -z "$lost" ] || fail "with mirrors: $(echo "$lost" | wc -l) host pairs unreachable"
ip netns exec "$(host_ns $DST)" iperf3 -s -1 -p 5202 >/dev/null 2>&1 &
PIDS+=("$!")
sleep 0.3
ip netns exec "$SNS" iperf3 -c "$DIP" -p 5202 -t 3 >/dev/null 2>&1 || fail "iperf3 with mirrors"
sleep 0.5
kill "$DUMP"; wait "$DUMP" 2>/dev/null || true
tcpdump -r "$D/mirror.pcap" -nn -e 2>/dev/null >"$D/mirror.txt"
VLANS=$(grep -o 'vlan [0-9]*' "$D/mirror.txt" | sort -u | awk '{print $2}' | tr '\n' ' ')
WANT=$(for b in $(ovs_bridges); do bridge_vlan "$b"; done | sort -u | tr '\n' ' ')
[ "$VLANS" = "$WANT" ] || fail "mirror VLANs seen: '$VLANS', bridges: '$WANT'"
# A core switch only ever carries shadow MACs: its copies must show them.
CORE_REAL=$(awk '/vlan 10[0-3],/ && / > 00:00:0a:/' "$D/mirror.txt" | wc -l)
CORE_SHADOW=$(awk '/vlan 10[0-3],/' "$D/mirror.txt" | wc -l)
[ "$CORE_SHADOW" -gt 0 ] && [ "$CORE_REAL" -eq 0 ] || fail "core mirror copies: $CORE_SHADOW, $CORE_REAL with a real host MAC"
E00=$(ovs_mirror_drops | grep "^${P}e00=")
[ "${E00#*=}" != "0/${E00#*/}" ] || fail "the $MIRROR_RATE mirror port of ${P}e00 dropped nothing under a TCP flow ($E00)"
echo "mirrors: copies from all 20 bridges with VLANs $VLANS; core copies carry shadow MACs ($CORE_SHADOW frames); ${P}e00 mirror port dropped/sent packets: ${E00#*=}"

# --- the collector on the collector link ---------------------------------------------------------
# planck-collector gets the fabric's forwarding map (RSPAN VLAN per switch, ports at 5 Mb/s) and
# must see a TCP flow on the switches of its path only and call ports on that path congested.
python3 "$REPO/src/test/system/collector/receiver.py" "$D/receiver.port" "$D/events.jsonl" planck s3cret &
PIDS+=("$!")
for _ in $(seq 50); do [ -s "$D/receiver.port" ] && break; sleep 0.1; done
[ -s "$D/receiver.port" ] || fail "receiver did not start"
COLPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$D/collector.toml" <<TOML
collector_id = "ovs-fabric"

[capture]
interface = "${P}colb"
workers = 2
ring_block_kib = 256
ring_blocks = 16

[detect]
congestion_threshold_pct = 80
hysteresis_pct = 5
flow_report_interval_ms = 5

[export]
url = "http://127.0.0.1:$(cat "$D/receiver.port")/onos/planck/v1/telemetry/events"
username = "planck"
password = "s3cret"

[control]
listen = "127.0.0.1:$COLPORT"
TOML
"$COLLECTOR" run --config "$D/collector.toml" 2>"$D/collector.log" &
COLLECTOR_PID=$!
PIDS+=("$COLLECTOR_PID")
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$COLPORT/metrics" >/dev/null && break; sleep 0.1; done
kill -0 "$COLLECTOR_PID" 2>/dev/null || fail "collector did not start: $(tail -3 "$D/collector.log")"
ctl forwardingmap "$D/forwarding.json" 1 5000000
code=$(curl -s -o /dev/null -w '%{http_code}' -X PUT -H 'Content-Type: application/json' \
  --data-binary @"$D/forwarding.json" "http://127.0.0.1:$COLPORT/v1/forwarding")
[ "$code" = 204 ] || fail "collector refused the fabric's forwarding map ($code)"
ip netns exec "$(host_ns $DST)" iperf3 -s -1 -p 5203 >/dev/null 2>&1 &
PIDS+=("$!")
sleep 0.3
ip netns exec "$SNS" iperf3 -c "$DIP" -p 5203 -t 3 >/dev/null 2>&1 || fail "iperf3 with the collector"
sleep 0.5
kill -TERM "$COLLECTOR_PID"; wait "$COLLECTOR_PID" 2>/dev/null || true
python3 - "$D/events.jsonl" "$SIP" "$DIP" "$OLD_HOPS" <<'PY' || fail "collector events do not match the flow's path"
import json, sys
events_file, sip, dip, hops = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(",")
seen, congested = set(), set()
for line in open(events_file):
    for e in json.loads(line)["events"]:
        if e["type"] == "FLOW_RATE" and e["estimator"] == "TCP_SEQ" and e["flow"]["src"] == sip \
                and e["flow"]["dst"] == dip and e["flow"]["dport"] == 5203 and e["bytesPerSec"] > 0:
            seen.add(e["switch"])
        if e["type"] == "PORT_CONGESTION" and e["state"] == "CONGESTED":
            congested.add((e["switch"], e["port"]))
off = seen - set(hops)
off_congested = {c for c in congested if c[0] not in hops}
print(f"collector: flow seen at {len(seen)} of its {len(hops)} switches, off-path {sorted(off)}; "
      f"congested ports on its path: {sorted(c for c in congested if c[0] in hops)}, off it: {sorted(off_congested)}")
# OVS mirrors a frame as it arrived: at the source edge that is before the ingress rewrite, with
# the destination's real MAC, which has no entry at that switch in the app's forwarding map; so
# the source edge's copies are not attributed (4 of 5 switches).
ok = len(seen) >= 3 and not off and len(congested) > len(off_congested) and not off_congested
sys.exit(0 if ok else 1)
PY

echo "$NAME: PASS ($SECONDS s)"
