#!/usr/bin/env bash
# Real Linux hosts through planck-emu (docs/emulator.md, "Real hosts"): two network namespaces
# joined to the emulator by veths, one switch, the sender's link at 2 Gb/s and the switch's port
# towards the receiver at 1 Gb/s, so that port is the bottleneck (at its rate below, or less).
#
# 1. DCTCP port (K = 20) at 1 Gb/s (EMU_REALHOSTS_DCTCP_MBPS, 100..1000): one iperf3 TCP
#    flow between DCTCP hosts: the kernel's tcp_dctcp when it has one, else planck_dctcp, a BPF
#    congestion control built and registered for the test (emulator/realhosts/dctcp-cc.sh; this
#    machine's kernel has reno, cubic and bbr only) and unregistered after it, else cubic with
#    ECN. Always asserted: the emulator set CE on frames and the receiver's kernel counted CE
#    packets (nstat IpExtInCEPkts). Asserted under the real-time rule (below): from the
#    emulator's own counters, the bottleneck delivered >= 85 % of the port's rate in emulated
#    time while the flow ran, with the port's median queue in 2..2K; from iperf3, goodput >= 85 %
#    of the port's rate. Reported, met or not ("TARGET NOT MET"): the issue's targets, >= 90 %
#    both ways and the median queue near K (K/2..2K).
#    The emulator runs on core 0, the hosts' programs on the others, and so does the hosts'
#    kernel receive work (real_hosts.receive_cpus: RPS on their veths). Without the latter, a
#    veth runs the receiver's IP and TCP inside the emulator's own write, on the emulator's core:
#    on this 2-core machine (Zen 3, 2.45 GHz; 29 Nov 2026) 1 Gb/s then delivered 735-865 Mb/s,
#    iperf3 707-808 Mb/s, median queue 6-9, the emulator's p50 lag up to 441 us. With it, eleven
#    quiet runs: 960-980 Mb/s delivered, iperf3 878-945 Mb/s (>= 905 in ten), median queue
#    15-16, the emulator's p50 lag 0 and p99 19-48 us (docs/emulator.md, System test). Its
#    port still drops 1-6 thousand frames a run (of ~650 k): the queue traces show runs of
#    frames at the sender link's 2 Gb/s that overfill the 200-frame buffer, the longest after
#    the emulator stalled for a few ms (p99.9 lag up to 5 ms here) and then wrote the stalled
#    frames at once, so that the receiver acknowledged them at once and the sender answered
#    with a burst as long as the stall.
# 2. Strict-priority port, at 500 Mb/s: a paced UDP flow of 150 Mb/s in a high class (TOS
#    0xb8, class 2) beside a bulk UDP flow of 450 Mb/s (class 7), 1.2x the port
#    (emulator/realhosts/udp_flow.py, sequence numbers counted at both ends). Always asserted:
#    both classes' frames crossed the emulator, and when the port overflowed by >= 5 % of what
#    entered it, the emulator delivered >= 99 % of the high class's frames (emulated time:
#    frames enter in the slot they arrived, so this holds whatever the lag). Under the rule,
#    with the senders at >= 95 % of their rates: the high class lost
#    <= 1 % and arrived at >= 95 % of its 150 Mb/s, the bulk flow had >= 75 % of the other
#    350 Mb/s, and the port dropped (its overflow). The bulk flow is unresponsive so that a port
#    without priority must take rate from the high class: with
#    EMU_REALHOSTS_PRIORITY_SCHEME=droptail both flows lose about a sixth and the test fails.
#    The senders and receivers are emulator/realhosts/udp_flow.py rather than iperf3: its
#    receivers drain their sockets on a 1 ms timer, so no arrival wakes anyone (iperf3's UDP
#    server is woken for every datagram), and connected, they are found without a route lookup.
#    The port runs at 500 Mb/s because the senders, Python on the hosts' one core here, offered
#    533-551 of the 900 Mb/s asked of them with the port at 1 Gb/s (29 Nov 2026); the property
#    is the same at any rate.
#
# The real-time rule bounds the emulator's lag behind the wall clock (summary realtime, a
# histogram of every slot's lag): p99 lag <= 1 ms and max lag <= 20 ms. Frames enter the
# emulated network in the slot they reached the veth whatever the lag, so a lag only delays
# what the emulator writes to the hosts, i.e. it stretches the flows' RTT (the emulated path
# alone: 84 us; the test prints the ping RTT through the idle emulator, 0.18-0.26 ms quiet
# with the receive work handed to the hosts' core, 0.12 ms without): at
# p99 <= 1 ms that stays within the RTT of a few queues at K, and the max bound keeps any
# single stall at a tenth of Linux's 200 ms minimum RTO and a fifth of a 100 ms rate bin.
# (A first rule, p99 <= 240 us, the queue at K draining, was broken by a quiet run that
# delivered 955 Mb/s and kept by one that delivered 844.) A run that breaks the rule prints
# its figures with "RATES NOT CHECKED" and why (the emulator's CPU share says whether it had
# a core of its own) and passes on what is always asserted; EMU_REALHOSTS_STRICT=1 asserts
# the floors whatever the lag.
# EMU_REALHOSTS_KEEP=DIR copies the run's files (configs, emulator output, iperf3's JSON) there.
# Everything is named with a random prefix and removed on exit. Needs root, iproute2,
# ethtool, iperf3, python3 (scripts/deps.sh); clang-14 and bpftool for planck_dctcp.
set -euo pipefail

NAME=emu-realhosts
fail() { echo "FAIL $NAME: $*"; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "needs root (namespaces, AF_PACKET)"
for tool in ip ethtool iperf3 nstat python3; do
  command -v "$tool" >/dev/null || fail "missing $tool"
done

REPO=$(cd "$(dirname "$0")/../../.." && pwd)
TARGET_DIR=${CARGO_TARGET_DIR:-$REPO/target}
"$REPO/scripts/cargo-release.sh" -p planck-emu || fail "build"
EMU=$TARGET_DIR/release/planck-emu

P=rh$(od -An -N2 -tx1 /dev/urandom | tr -d ' \n')
D=$(mktemp -d /tmp/planck-$NAME.XXXXXX)
NET=10.213.$((RANDOM % 250)).
A=${P}a
B=${P}b
EMU_PID=
PIDS=()
DCTCP_CC=$REPO/emulator/realhosts/dctcp-cc.sh
stop_emu() {
  [ -n "$EMU_PID" ] || return 0
  kill -TERM "$EMU_PID" 2>/dev/null || true
  for _ in $(seq 150); do kill -0 "$EMU_PID" 2>/dev/null || break; sleep 0.2; done
  kill -KILL "$EMU_PID" 2>/dev/null || true
  wait "$EMU_PID" 2>/dev/null || true
  EMU_PID=
}
cleanup() {
  set +e
  stop_emu
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -f "$D/dctcp.toml" ] && "$EMU" hosts down --config "$D/dctcp.toml" >/dev/null 2>&1
  for n in "$A" "$B"; do ip netns del "$n" 2>/dev/null; ip link del "$n-e" 2>/dev/null; done
  # The allowed list as it was; planck_dctcp unregistered only if this run registered it.
  "$DCTCP_CC" restore "$D/cc.state" >/dev/null 2>&1
  [ -z "${EMU_REALHOSTS_KEEP:-}" ] || cp -r "$D" "$EMU_REALHOSTS_KEEP"
  rm -rf "$D"
}
trap cleanup EXIT

pair() { # file, Gb/s of the port towards b
  cat >"$D/$1" <<EOF
{
  "switches": [{ "name": "s" }],
  "endpoints": ["a", "b"],
  "links": [
    { "a": "a", "b": "s", "gbps": 2, "buffer_pkts": 200, "latency_slots": 2 },
    { "a": "s", "b": "b", "gbps": $2, "buffer_pkts": 200, "latency_slots": 2 }
  ]
}
EOF
}
# A port's rate from the environment: whole Mb/s, 100..1000, else a one-line error.
port_mbps() { # result variable, environment variable, default
  local v=${!2:-$3}
  case $v in
    ''|*[!0-9]*) fail "$2: a whole number of Mb/s, 100..1000" ;;
  esac
  [ "$v" -ge 100 ] && [ "$v" -le 1000 ] || fail "$2: a whole number of Mb/s, 100..1000"
  printf -v "$1" '%s' "$v"
}
port_mbps DCTCP_MBPS EMU_REALHOSTS_DCTCP_MBPS 1000
# Part 2's port and offered rates, Mb/s of IP bytes: the high class at 30 % of the port, the
# bulk flow at 90 %, 1.2x the port in all. The port runs at 500 Mb/s (the header says why);
# EMU_REALHOSTS_PRIORITY_MBPS=1000 runs it at 1 Gb/s.
port_mbps PRIO_PORT_MBPS EMU_REALHOSTS_PRIORITY_MBPS 500
HIGH_MBPS=$((PRIO_PORT_MBPS * 3 / 10))
BULK_MBPS=$((PRIO_PORT_MBPS * 9 / 10))
pair pair.json "$(awk -v m="$DCTCP_MBPS" 'BEGIN {print m / 1000}')"
pair pair-priority.json "$(awk -v m="$PRIO_PORT_MBPS" 'BEGIN {print m / 1000}')"
# The emulator's worker spins on core 0 and the hosts' programs run on the others, so that
# neither takes the other's core (without pinning the emulator loses scheduler slices to iperf3
# and falls behind); on a one-CPU machine nothing is pinned.
EMU_PIN=()
HOST_PIN=()
RECEIVE_CPUS=
NCPU=$(nproc)
if [ "$NCPU" -ge 2 ]; then
  HOST_CPUS=1-$((NCPU - 1))
  EMU_PIN=(taskset -c 0)
  HOST_PIN=(taskset -c "$HOST_CPUS")
  # This script and everything it starts too: scheduled on core 0, they took it from the
  # emulator for milliseconds at a time (perf sched).
  taskset -p -c "$HOST_CPUS" $$ >/dev/null
  # The hosts' kernel receive work (IP, TCP, waking iperf3) on their cores too: without it the
  # veth runs it inside the emulator's writes, on the emulator's core (real_hosts.receive_cpus).
  RECEIVE_CPUS="receive_cpus = \"$HOST_CPUS\""
fi

config() { # scheme table body, topology file
  cat <<EOF
[emulation]
slot_gbps = 2.0
duration_us = 100000000.0
mode = "realtime"
batch_slots = 1
sample_interval_slots = 10
[topology]
kind = "custom"
file = "${2:-pair.json}"
[scheme]
$1
[output]
queue_samples = true
max_queue_samples = 4000000
[real_hosts]
$RECEIVE_CPUS
[[real_hosts.host]]
endpoint = "a"
namespace = "$A"
address = "${NET}1/24"
veth = "$A-e"
[[real_hosts.host]]
endpoint = "b"
namespace = "$B"
address = "${NET}2/24"
veth = "$B-e"
EOF
}
config $'kind = "dctcp"\nk = 20' >"$D/dctcp.toml"
# EMU_REALHOSTS_PRIORITY_SCHEME=droptail runs part 2 over a DropTail port instead: the
# high class must then lose rate and the test fail (the check that part 2 can fail).
case ${EMU_REALHOSTS_PRIORITY_SCHEME:-priority} in
  priority) config $'kind = "priority"\nqueues = 8' pair-priority.json >"$D/priority.toml" ;;
  droptail) config 'kind = "droptail"' pair-priority.json >"$D/priority.toml" ;;
  *) fail "EMU_REALHOSTS_PRIORITY_SCHEME: priority or droptail" ;;
esac

"$EMU" hosts up --config "$D/dctcp.toml" >/dev/null || fail "hosts up"
"$EMU" hosts check --config "$D/dctcp.toml" >/dev/null || fail "hosts check"
# The hosts' DCTCP: the kernel's tcp_dctcp when it has one, else planck_dctcp, a BPF
# struct_ops congestion control built here, either allowed as the namespaces' default for the
# run (dctcp-cc.sh select; restored on exit); else cubic with ECN (halves on a mark: reported).
# The receiver's echo of CE is its congestion control's (DCTCP echoes each segment's state,
# cubic holds ECE until CWR), and iperf3 sets -C on the sender only: hence the default.
CC=$("$DCTCP_CC" select "$D/cc.state") || CC=cubic
echo "$NAME: hosts' congestion control $CC"
for n in "$A" "$B"; do
  ip netns exec "$n" sysctl -qw net.ipv4.tcp_ecn=1
  [ "$CC" = cubic ] || ip netns exec "$n" sysctl -qw net.ipv4.tcp_congestion_control="$CC"
done


start_emu() { # config name
  "${EMU_PIN[@]}" "$EMU" run --config "$D/$1.toml" --out "$D/$1" >"$D/$1.summary.json" 2>"$D/$1.err" &
  EMU_PID=$!
  for _ in $(seq 100); do
    ip netns exec "$A" ping -c1 -W1 "${NET}2" >/dev/null 2>&1 && return 0
    kill -0 "$EMU_PID" 2>/dev/null || fail "emulator exited: $(cat "$D/$1.err")"
    sleep 0.2
  done
  fail "no ping through the emulator"
}

# 1. DCTCP port.
start_emu dctcp
RTT=$(ip netns exec "$A" ping -q -c 20 -i 0.01 "${NET}2" | awk -F/ '/^rtt/ {print $5}')
"${HOST_PIN[@]}" ip netns exec "$B" timeout 40 iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
PIDS+=($!)
sleep 0.5
"${HOST_PIN[@]}" timeout 40 ip netns exec "$A" iperf3 -c "${NET}2" -p 5201 -t 8 -C "$CC" -J >"$D/dctcp.iperf.json" \
  || fail "iperf3 (dctcp) failed"
CE=$(ip netns exec "$B" nstat -saz IpExtInCEPkts | awk '$1 == "IpExtInCEPkts" {print $2}')
stop_emu
[ -s "$D/dctcp.summary.json" ] || fail "no emulator summary: $(cat "$D/dctcp.err")"

# 2. Strict priority: a paced high-class UDP flow beside an unresponsive bulk one that
# overfills the port (udp_flow.py: receivers drain on a timer, so no arrival wakes anyone).
start_emu priority
UDP_FLOW=$REPO/emulator/realhosts/udp_flow.py
for f in high:5202 bulk:5203; do
  "${HOST_PIN[@]}" ip netns exec "$B" timeout 40 python3 "$UDP_FLOW" recv --bind "${NET}2:${f#*:}" \
    --from "${NET}1:$((${f#*:} + 1000))" --seconds 30 --out "$D/${f%:*}.recv.json" &
  PIDS+=($!)
done
RECEIVERS=("${PIDS[@]: -2}")
sleep 0.5
"${HOST_PIN[@]}" timeout 40 ip netns exec "$A" python3 "$UDP_FLOW" send --to "${NET}2:5202" --port 6202 --mbps "$HIGH_MBPS" \
  --tos 0xb8 --seconds 6 --out "$D/high.send.json" &
HIGH=$!
PIDS+=($HIGH)
"${HOST_PIN[@]}" timeout 40 ip netns exec "$A" python3 "$UDP_FLOW" send --to "${NET}2:5203" --port 6203 --mbps "$BULK_MBPS" \
  --seconds 6 --out "$D/bulk.send.json" || fail "bulk sender failed"
wait "$HIGH" || fail "high-class sender failed"
for p in "${RECEIVERS[@]}"; do wait "$p" || fail "UDP receiver failed"; done
RCVBUF_ERRORS=$(ip netns exec "$B" nstat -saz UdpRcvbufErrors | awk '$1 == "UdpRcvbufErrors" {print $2}')
stop_emu
[ -s "$D/priority.summary.json" ] || fail "no emulator summary: $(cat "$D/priority.err")"

python3 - "$D" "$CE" "$CC" "${EMU_REALHOSTS_STRICT:-0}" "${RTT:-0}" "$HIGH_MBPS" "$BULK_MBPS" \
  "${RCVBUF_ERRORS:-0}" "$PRIO_PORT_MBPS" "$DCTCP_MBPS" <<'PY'
import csv, json, statistics, sys
d, ce_kernel, cc, strict = sys.argv[1], int(sys.argv[2] or 0), sys.argv[3], sys.argv[4] == "1"
rtt_ms = float(sys.argv[5] or 0)
high_mbps, bulk_mbps_offered, rcvbuf_errors = float(sys.argv[6]), float(sys.argv[7]), int(sys.argv[8] or 0)
prio_port_mbps = float(sys.argv[9])
K, RATE_MBPS = 20, float(sys.argv[10])
# The real-time rule (header): lag bounds in us, and the CPU share below which a lag is the
# machine's doing rather than the emulator's.
P99_LAG_US, MAX_LAG_US, OWN_CORE = 1000.0, 20_000.0, 0.9
# Floors asserted under the rule (a broken path or pacing falls far below them), and the
# issue's targets, reported: on this 2-core machine the emulator's spinning thread and the
# hosts' TCP share the cores, and quiet runs landed on both sides of 90 % (824-955 Mb/s).
FLOOR, DCTCP_FLOOR, TARGET = 0.75, 0.85, 0.9
targets_missed = []
failures, notes = [], []

def load(name):
    return json.load(open(f"{d}/{name}"))

def host(summary, endpoint):
    return next(h for h in summary["real_hosts"]["hosts"] if h["endpoint"] == endpoint)

def kept_up(name, s):
    """The real-time rule; a run that breaks it with a core of its own is a failure."""
    rt = s["realtime"]
    kept = rt["p99_lag_us"] <= P99_LAG_US and rt["max_lag_us"] <= MAX_LAG_US
    print(f"{name}: emulator lag p50 {rt['p50_lag_us']:.0f} us, p99 {rt['p99_lag_us']:.0f} us "
          f"(rule <= {P99_LAG_US:.0f}), p99.9 {rt['p999_lag_us']:.0f} us, max {rt['max_lag_us']:.0f} us "
          f"(rule <= {MAX_LAG_US:.0f}), > 1 ms in {100*rt['over_1ms_fraction']:.2f} % of "
          f"{rt['batches']} slots; CPU share {rt['cpu_share']:.2f} -> "
          + ("real time kept" if kept else "real time NOT kept"))
    if not kept:
        why = (f"{name}: emulator broke the real-time rule (p99 lag {rt['p99_lag_us']:.0f} us, "
               f"max {rt['max_lag_us']:.0f} us) while its thread had {100*rt['cpu_share']:.0f} % of a core")
        notes.append(why + (": it fell behind with a core of its own (the machine's limit)"
                            if rt["cpu_share"] >= OWN_CORE else ": the machine was busy"))
    return kept, rt

def active_bins(h, cls):
    """Bins of emulated time in which class `cls` flowed at over half its peak, less the first and last."""
    bins = [b[cls] for b in h["counters"]["out_bytes_per_bin"]]
    if not bins:
        return [], 0, 0
    peak = max(bins)
    idx = [i for i, b in enumerate(bins) if b > peak / 2]
    if len(idx) < 3:
        return [], 0, 0
    lo, hi = idx[0] + 1, idx[-1]  # trim the partial bins at both ends
    return bins[lo:hi], lo, hi

def target(bad, msg):
    """The issue's target: printed, met or not."""
    if bad:
        targets_missed.append(msg)

def check(bad, msg, kept):
    """A rate: asserted when the emulator kept real time (or always, strict)."""
    if bad:
        (failures if kept or strict else notes).append(msg)

# 1. DCTCP.
s = load("dctcp.summary.json")
print(f"ping RTT through the idle emulator {rtt_ms:.3f} ms")
ok, rt = kept_up("dctcp", s)
b = host(s, 1)
bin_us = s["real_hosts"]["bin_us"]
bins, lo, hi = active_bins(b, 7)
if not bins:
    failures.append("dctcp: the receiver got almost nothing through the emulator")
else:
    emu_mbps = statistics.median(bins) * 8 / bin_us
    slot_lo, slot_hi = lo * bin_us * 1000 / s["slot_ns"], hi * bin_us * 1000 / s["slot_ns"]
    occ = [int(r["occupancy"]) for r in csv.DictReader(open(f"{d}/dctcp/queues.csv"))
           if r["switch"] == "0" and r["port"] == "1" and slot_lo <= int(r["slot"]) < slot_hi]
    q_med = statistics.median(occ) if occ else -1
    q_mean = sum(occ) / max(1, len(occ))
    port = next(p for p in csv.DictReader(open(f"{d}/dctcp/ports.csv")) if p["peer"] == "b")
    print(f"dctcp: emulated bottleneck delivered {emu_mbps:.0f} Mb/s (median of {len(bins)} x {bin_us/1000:.0f} ms), "
          f"queue median {q_med} mean {q_mean:.1f} (K = {K}), marks {port['marked']}, drops {port['dropped']}, "
          f"CE at receiver {ce_kernel}, sender cc {cc}")
    check(emu_mbps < DCTCP_FLOOR * RATE_MBPS, f"dctcp: emulated delivery {emu_mbps:.0f} Mb/s < 85 % of {RATE_MBPS:.0f}", ok)
    check(not (2 <= q_med <= 2 * K), f"dctcp: median queue {q_med} not in 2..2K (K = {K})", ok)
    target(emu_mbps < TARGET * RATE_MBPS, f"dctcp: emulated delivery {emu_mbps:.0f} Mb/s < 90 % of {RATE_MBPS:.0f}")
    target(not (K / 2 <= q_med <= 2 * K), f"dctcp: median queue {q_med} not near K = {K} (K/2..2K)"
           + ("; the sender is cubic with ECN, which halves on a mark, not DCTCP" if cc == "cubic" else ""))
if b["counters"]["ce_marked"] == 0:
    failures.append("dctcp: emulator set CE on no frame")
if ce_kernel == 0:
    failures.append("dctcp: receiver kernel counted no CE packet")
ip = load("dctcp.iperf.json")["end"]["sum_received"]["bits_per_second"] / 1e6
print(f"dctcp: iperf3 goodput {ip:.0f} Mb/s")
check(ip < DCTCP_FLOOR * RATE_MBPS, f"dctcp: iperf3 goodput {ip:.0f} Mb/s < 85 % of {RATE_MBPS:.0f}", ok)
target(ip < TARGET * RATE_MBPS, f"dctcp: iperf3 goodput {ip:.0f} Mb/s < 90 % of {RATE_MBPS:.0f}")

# 2. Strict priority.
s = load("priority.summary.json")
a, b = host(s, 0), host(s, 1)
hi_in, hi_out = a["counters"]["class_in"][2], b["counters"]["class_out"][2]
bulk_out = b["counters"]["class_out"][7]
port = next(p for p in csv.DictReader(open(f"{d}/priority/ports.csv")) if p["peer"] == "b")
print(f"priority: high class {hi_out}/{hi_in} frames delivered, bulk {bulk_out} frames, port drops {port['dropped']}")
if hi_out == 0 or bulk_out == 0:
    failures.append("priority: the emulator delivered no high-class or no bulk frame")
ok, rt = kept_up("priority", s)
hs, hr, bs, br = (load(f) for f in ("high.send.json", "high.recv.json", "bulk.send.json", "bulk.recv.json"))
# Rates of IP bytes received over the sender's time; loss from the sequence numbers.
hi_mbps = hr["ip_bytes"] * 8 / hs["seconds"] / 1e6
bulk_mbps = br["ip_bytes"] * 8 / bs["seconds"] / 1e6
hi_loss = 100 * (1 - hr["distinct"] / max(1, hs["sent"]))
hi_bins, _, _ = active_bins(b, 2)
hi_emu = statistics.median(hi_bins) * 8 / bin_us if hi_bins else 0
print(f"priority: senders offered high {hs['sent_mbps']:.0f} of {high_mbps:.0f} Mb/s, bulk {bs['sent_mbps']:.0f} of "
      f"{bulk_mbps_offered:.0f} Mb/s; received high {hi_mbps:.0f} Mb/s (emulated {hi_emu:.0f}), loss {hi_loss:.2f} % "
      f"({hr['distinct']} of {hs['sent']}); bulk {bulk_mbps:.0f} Mb/s; receive-buffer drops at b {rcvbuf_errors}")
# The test needs the offered load: senders the machine starved offer less and may not
# overfill the port, so their rates are not checked either.
offered = hs["sent_mbps"] >= 0.95 * high_mbps and bs["sent_mbps"] >= 0.95 * bulk_mbps_offered
if ok and not offered:
    notes.append(f"priority: the senders offered {hs['sent_mbps']:.0f} and {bs['sent_mbps']:.0f} Mb/s of "
                 f"{high_mbps:.0f} and {bulk_mbps_offered:.0f} (starved by the machine)")
ok = ok and offered
# The scheme's own property, in emulated time and so asserted whatever the lag (frames enter
# the emulated port in the slot they arrived): when the port overflowed, by at least 5 % of
# what entered it (1.2x its rate: a sixth), strict priority pushes out bulk frames and
# delivers every high-class one; a port without priority drops both alike.
bulk_in = a["counters"]["class_in"][7]
overflowed = int(port["dropped"]) >= 0.05 * (hi_in + bulk_in)
if not overflowed:
    notes.append(f"priority: the port dropped {port['dropped']} of {hi_in + bulk_in} frames, under 5 %: "
                 "not overfilled, so the high class's share of the drops is not checked")
elif hi_out < 0.99 * hi_in:
    failures.append(f"priority: the port dropped {port['dropped']} of {hi_in + bulk_in} frames and "
                    f"delivered {hi_out} of {hi_in} high-class frames (< 99 %)")
rest = prio_port_mbps - high_mbps
for bad, msg in [(hi_loss > 1.0, f"priority: high-class loss {hi_loss:.2f} % > 1 %"),
                 (hi_mbps < 0.95 * high_mbps, f"priority: high class {hi_mbps:.0f} Mb/s < 95 % of {high_mbps:.0f}"),
                 (bulk_mbps < FLOOR * rest, f"priority: bulk {bulk_mbps:.0f} Mb/s < 75 % of the other {rest:.0f}"),
                 (int(port["dropped"]) == 0, "priority: the port dropped nothing although offered 1.2x its rate")]:
    check(bad, msg, ok)

for n in notes:
    print(f"RATES NOT CHECKED: {n}")
for m in targets_missed:
    print(f"TARGET NOT MET: {m}")
if failures:
    print("FAIL emu-realhosts: " + "; ".join(failures))
    sys.exit(1)
print("PASS emu-realhosts" + (" (some rates NOT CHECKED: why above)"
                              if notes else " (rates checked under the real-time rule)"))
PY
