#!/usr/bin/env bash
# Measures what the OVS fat tree sustains on this machine: brings the k=4 fabric up (as the
# system test does), then runs iperf3 TCP for DURATION s: one flow across the core, then the
# 16 flows of stride(8) at once (every flow crosses the core), unshaped or shaped with
# SHAPE=tbf:RATE (tc tbf on every fabric veth) or SHAPE=police:KBPS (OVS ingress_policing_rate
# on every bridge port). Prints per-flow and total Mb/s and ovs-vswitchd's CPU use.
# MIRRORS=RATE adds the experiment's mirrors (all ports of every bridge into a mirror port shaped
# to RATE); PLACE=1 adds stride(8) placed link-aware by per-flow rules.
#   src/test/system/ovs/capacity.sh [DURATION] ; SHAPE=tbf:20mbit src/test/system/ovs/capacity.sh 8
#   SHAPE=tbf:2500kbit MIRRORS=250kbit PLACE=1 src/test/system/ovs/capacity.sh 10
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../../../.." && pwd)
JAR="$REPO/lab/target/planck-lab.jar"
DURATION=${1:-8}
SHAPE=${SHAPE:-none}
P="${PLANCK_OVS_PREFIX:-pc$(printf %04x $((RANDOM % 65536)))}"
# Switches, controller and OVS's "ovs-netdev" tap in a namespace of their own (see ovs-fabric.sh).
if [ -z "${PLANCK_OVS_INSIDE:-}" ]; then
  source "$REPO/src/test/system/ovs/sndbuf.sh"
  ovs_sndbuf_raise
  ip netns add "${P}sw"
  rc=0
  PLANCK_OVS_INSIDE=1 PLANCK_OVS_PREFIX=$P ip netns exec "${P}sw" bash "$0" "$@" || rc=$?
  ip netns del "${P}sw" 2>/dev/null
  exit "$rc"
fi
ip link set lo up
D=$(mktemp -d /tmp/planck-ovs-capacity.XXXXXX)
source "$REPO/src/test/system/ovs/fabric.sh"
CTL=
cleanup() { set +e; [ -n "$CTL" ] && kill "$CTL"; ovs_teardown; wait 2>/dev/null; rm -rf "$D"; }
trap cleanup EXIT
CPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkfifo "$D/ctl.in"
java -cp "$JAR" org.planck.lab.ovs.OvsFabricControl --port "$CPORT" <"$D/ctl.in" >"$D/ctl.out" 2>"$D/ctl.err" &
CTL=$!
exec 9>"$D/ctl.in"
ovs_start
ovs_fabric_build "$CPORT"
echo "await 60" >&9
for _ in $(seq 600); do grep -q . "$D/ctl.out" && break; sleep 0.1; done
grep -q '^ok' "$D/ctl.out" || { cat "$D/ctl.out"; exit 1; }
case $SHAPE in
  tbf:*) ovs_fabric_shape "${SHAPE#tbf:}" ;;
  bridgetbf:*)
    # Only the qdiscs on the veth ends OVS transmits into (not the hosts' own eth0).
    while read -r x y; do
      tc qdisc replace dev "$x" root tbf rate "${SHAPE#bridgetbf:}" burst 32kb latency 20ms
      tc qdisc replace dev "$y" root tbf rate "${SHAPE#bridgetbf:}" burst 32kb latency 20ms
    done < <(ovs_links)
    for h in $(ovs_hosts); do tc qdisc replace dev "${P}h${h}b" root tbf rate "${SHAPE#bridgetbf:}" burst 32kb latency 20ms; done ;;
  police:*)
    for b in $(ovs_bridges); do
      for i in $("${VSCTL[@]}" list-ifaces "$b"); do
        "${VSCTL[@]}" set interface "$i" "ingress_policing_rate=${SHAPE#police:}" ingress_policing_burst=$(( ${SHAPE#police:} / 10 ))
      done
    done ;;
esac
echo "shaping: $SHAPE"
# MIRRORS=RATE: every bridge mirrors all its ports into an oversubscribed mirror port shaped to
# RATE, as in Planck's experiment (the mirror copies are per-packet work for the switch).
if [ -n "${MIRRORS:-}" ]; then
  ovs_fabric_mirrors "$MIRRORS"
  echo "mirrors: every bridge into a $MIRRORS mirror port"
fi

hosts=($(ovs_hosts))
# run LABEL CBASE PBASE PAIRS...: flow i is TCP from port CBASE+i to PBASE+i (as placestride
# expects); every run uses its own ports so no 4-tuple is still in TIME_WAIT from an earlier one.
run() {
  local label=$1 cbase=$2 pbase=$3; shift 3
  local i=0 pids=() s d
  for pair in "$@"; do
    s=${pair%:*}; d=${pair#*:}
    ip netns exec "$(host_ns "$d")" iperf3 -s -1 -p $((pbase + i)) >/dev/null 2>&1 &
    i=$((i + 1))
  done
  sleep 0.5
  local vs; vs=$(cat "$D/ovs-vswitchd.pid")
  local t0; t0=$(awk '{print $14 + $15}' "/proc/$vs/stat")
  i=0
  for pair in "$@"; do
    s=${pair%:*}; d=${pair#*:}
    ip netns exec "$(host_ns "$s")" iperf3 -c "$(host_ip "$d")" -p $((pbase + i)) --cport $((cbase + i)) -t "$DURATION" -J >"$D/r$i.json" 2>&1 &
    pids+=($!)
    i=$((i + 1))
  done
  for p in "${pids[@]}"; do wait "$p" || true; done
  local t1; t1=$(awk '{print $14 + $15}' "/proc/$vs/stat")
  python3 - "$label" "$D" "$i" "$(( (t1 - t0) ))" "$DURATION" "$(getconf CLK_TCK)" <<'PY'
import json, sys
label, d, n, ticks, dur, hz = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
rates, retr = [], 0
for i in range(n):
    try:
        e = json.load(open(f"{d}/r{i}.json"))["end"]
        rates.append(e["sum_received"]["bits_per_second"] / 1e6); retr += e["sum_sent"]["retransmits"]
    except Exception as ex:
        rates.append(0.0)
print(f"{label}: total {sum(rates):.1f} Mb/s over {n} flows (min {min(rates):.1f}, max {max(rates):.1f}), "
      f"{retr} retransmits, ovs-vswitchd {100 * ticks / hz / dur:.0f} % of one core")
PY
}
run "1 flow across the core" 41000 5200 "${hosts[0]}:${hosts[15]}"
pairs=()
for i in $(seq 0 15); do pairs+=("${hosts[$i]}:${hosts[$(( (i + 8) % 16 ))]}"); done
[ "${ONE_FLOW:-0}" = 1 ] || run "stride(8), 16 flows" 42000 5300 "${pairs[@]}"
if [ "${PLACE:-0}" = 1 ]; then
  # The same flows placed link-aware by per-flow rules, beside the hash placement above.
  echo "placestride 8 43000 5400" >&9
  for _ in $(seq 100); do [ "$(grep -c . "$D/ctl.out")" -ge 2 ] && break; sleep 0.1; done
  echo "placement: $(tail -1 "$D/ctl.out")"
  run "stride(8), 16 flows, placed" 43000 5400 "${pairs[@]}"
fi
for x in $(ovs_links | awk '{print $1}' | head -2) "${P}h${hosts[15]}b"; do
  echo "$x: $(tc -s qdisc show dev "$x" | grep -o 'Sent [0-9]* bytes [0-9]* pkt (dropped [0-9]*')"
done
[ -z "${MIRRORS:-}" ] || echo "mirror ports (bridge=dropped/sent packets): $(ovs_mirror_drops | tr '\n' ' ')"
