#!/usr/bin/env bash
# CPU cost per INT report on a veth pair, userspace path against the XDP fast path, same
# reports: int_send (examples/int_send.rs) sends FLOWS flows of 6-hop INT v0.5 reports
# (all nine fields, values inside their intervals: the steady case) at RATE reports/s for
# SECONDS from one network namespace to the collector in another. Per path it reports,
# per report:
#   collector  the collector process's CPU time (/proc/PID/stat utime+stime)
#   softirq    the machine's softirq time (/proc/stat, all CPUs) minus the softirq time of
#              an idle period of the same length just before: the veth receive, the UDP
#              stack and the XDP program run there
#   xdp_prog   (XDP only) the program's own run time, bpftool run_time_ns / run_cnt with
#              kernel.bpf_stats_enabled=1
# and the receive-side sum (collector + softirq). The sender's own CPU is printed too.
# On a shared machine the softirq figure carries others' softirq noise: repeat and compare.
#
# usage: collector/benches/int_xdp_veth.sh [RATE] [SECONDS] [FLOWS] [REPEATS]
# needs root, ip, bpftool (scripts/deps.sh).
set -euo pipefail
RATE=${1:-100000}
SECONDS_=${2:-5}
FLOWS=${3:-100}
REPEATS=${4:-3}

REPO=$(cd "$(dirname "$0")/../.." && pwd)
TARGET_DIR=${CARGO_TARGET_DIR:-$REPO/target}
BIN="$TARGET_DIR/release/planck-collector"
SEND="$TARGET_DIR/release/examples/int_send"
(cd "$REPO" && cargo build --release -q -p planck-collector --bin planck-collector --example int_send)

P=iv$(printf '%04x' $((RANDOM % 65536)))
D=$(mktemp -d /tmp/planck-int-xdp-veth.XXXXXX)
OLD_STATS=$(cat /proc/sys/kernel/bpf_stats_enabled)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  ip netns del "${P}s" 2>/dev/null || true
  ip netns del "${P}c" 2>/dev/null || true
  sysctl -q -w kernel.bpf_stats_enabled="$OLD_STATS" >/dev/null || true
  rm -rf "$D"
}
trap cleanup EXIT
sysctl -q -w kernel.bpf_stats_enabled=1 >/dev/null

ip netns add "${P}s"
ip netns add "${P}c"
ip link add "${P}s0" type veth peer name "${P}c0"
ip link set "${P}s0" netns "${P}s"
ip link set "${P}c0" netns "${P}c"
ip -n "${P}s" addr add 10.78.0.1/24 dev "${P}s0"
ip -n "${P}c" addr add 10.78.0.2/24 dev "${P}c0"
for ns in "${P}s" "${P}c"; do ip -n "$ns" link set lo up; done
ip -n "${P}s" link set "${P}s0" up
ip -n "${P}c" link set "${P}c0" up
# Resolve the neighbour once, outside the measured period.
ip netns exec "${P}s" ping -c 1 -W 2 10.78.0.2 >/dev/null

for mode in user xdp; do
  {
    echo 'metrics_listen = "127.0.0.1:9901"'
    echo '[int]'
    echo 'listen = ["0.0.0.0:54321"]'
    if [ "$mode" = xdp ]; then printf '[int.xdp]\ninterface = "%s"\n' "${P}c0"; fi
  } > "$D/$mode.toml"
done

ticks=$(getconf CLK_TCK)
softirq() { awk '$1 == "cpu" { print $8 }' /proc/stat; }
proc_cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
prog_stats() {  # run_time_ns run_cnt of the XDP program on the collector's interface
  local id
  id=$(ip -n "${P}c" -d link show "${P}c0" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p' | head -1)
  # bpftool leaves both out while run_cnt is 0.
  bpftool prog show id "$id" | sed -n 's/.*run_time_ns \([0-9]*\) run_cnt \([0-9]*\).*/\1 \2/p' | grep . || echo "0 0"
}

echo "rate $RATE/s, $SECONDS_ s, $FLOWS flows, $REPEATS repeats; ns per report"
printf '%-5s %-3s %10s %10s %10s %10s %10s %8s\n' path run collector softirq receive xdp_prog sender filtered
for r in $(seq 1 "$REPEATS"); do
  for mode in user xdp; do
    ip netns exec "${P}c" "$BIN" int --config "$D/$mode.toml" > "$D/collector.log" 2>&1 &
    pid=$!
    PIDS+=("$pid")
    sleep 1
    kill -0 "$pid" 2>/dev/null || { cat "$D/collector.log"; exit 1; }
    # Idle baseline of softirq, same length as the run.
    s0=$(softirq); sleep "$SECONDS_"; s1=$(softirq)
    c0=$(proc_cpu "$pid"); q0=$(softirq)
    if [ "$mode" = xdp ]; then read -r rt0 rc0 < <(prog_stats); fi
    out=$(ip netns exec "${P}s" "$SEND" steady 10.78.0.2:54321 "$FLOWS" "$RATE" "$SECONDS_")
    sleep 0.2
    c1=$(proc_cpu "$pid"); q1=$(softirq)
    xdp_ns=-
    if [ "$mode" = xdp ]; then
      read -r rt1 rc1 < <(prog_stats)
      xdp_ns=$(( (rt1 - rt0) / (rc1 > rc0 ? rc1 - rc0 : 1) ))
    fi
    filtered=$(ip netns exec "${P}c" curl -fsS http://127.0.0.1:9901/metrics 2>/dev/null | awk '$1 == "planck_collector_int_xdp_reports_total{outcome=\"filtered\"}" { print $2 }')
    kill "$pid"; wait "$pid" 2>/dev/null || true
    sent=$(echo "$out" | sed -n 's/.*"sent": \([0-9]*\).*/\1/p')
    scpu=$(echo "$out" | sed -n 's/.*"cpu_seconds": \([0-9.]*\).*/\1/p')
    python3 - "$mode" "$r" "$sent" "$ticks" "$c0" "$c1" "$s0" "$s1" "$q0" "$q1" "$xdp_ns" "$scpu" "${filtered:-0}" <<'PY'
import sys
mode, r, sent, ticks, c0, c1, s0, s1, q0, q1, xdp, scpu, filt = sys.argv[1:]
sent, ticks = int(sent), int(ticks)
ns = lambda t: t / ticks * 1e9 / sent
coll = ns(int(c1) - int(c0))
soft = ns((int(q1) - int(q0)) - (int(s1) - int(s0)))
print(f"{mode:<5} {r:<3} {coll:10.0f} {soft:10.0f} {coll + soft:10.0f} {xdp:>10} {float(scpu) * 1e9 / sent:10.0f} {int(float(filt)):8d}")
PY
  done
done
