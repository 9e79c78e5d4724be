#!/usr/bin/env bash
# Planck's traffic-engineering experiment on the emulated fabric, end to end on this machine:
# builds the Java and Rust parts, creates a veth pair for mirrored samples, starts
# planck-collector on one end, runs the lab controller's experiment (which starts one
# planck-emu fabric per run, writing mirror frames to the other end), tears everything down
# and says where the report is.
#
#   scripts/lab.sh            # full: stride(8), shuffle, random, random bijection; 10 MiB flows
#                             # (at 1 Gb/s ~84 ms each: shorter than Poll-100ms's period, as in Planck)
#   scripts/lab.sh --flow-mib 100   # the earlier, slower time scale (flows of ~0.84 s)
#   scripts/lab.sh --quick    # CI: stride(8) and random bijection only (< 5 minutes)
#   scripts/lab.sh --out DIR  # report directory (default results/lab-<time>)
#   scripts/lab.sh --pint     # PINT path tracing on the fabric + planck-collector pint-live;
#                             # pint-conformance.md: moved flows confirmed on their new path (docs/pint.md)
#   scripts/lab.sh --telemetry int      # PlanckTE decides on INT queue occupancy: the fabric's switches run
#                             # INT (edges source and sink) and send telemetry reports on the veth
#                             # plk-int0 <-> plk-int1 to the collector's INT socket; `both`: mirrors or INT;
#                             # `mirror` (default): mirror samples only (docs/lab.md "INT as the loop's telemetry")
#   scripts/lab.sh --fabric ovs [...]  # on real OVS bridges instead (src/test/system/ovs/experiment.sh)
#   scripts/lab.sh --endpoints linux [...]  # real Linux TCP hosts over the emulated fat tree, beside
#                             # the emulated endpoints (scripts/lab-linux-hosts.sh)
# Any other arguments go to `planck-lab experiment` (see `--help` there). LAB_JAVA_OPTS adds JVM
# options to the lab controller (e.g. a flight recording: -XX:StartFlightRecording=filename=lab.jfr).
# LAB_GC picks its collector (default -XX:+UseZGC: pauses well under a millisecond, where G1's
# young collections paused the loop for up to 14 ms; LAB_GC= for the JVM's default).
set -euo pipefail
cd "$(dirname "$0")/.."

# --fabric ovs: the same experiment on real Open vSwitch bridges (docs/ovs-fabric.md).
fabric=emu
case "${1:-}" in
    --fabric) fabric=${2:-}; shift; if [ $# -gt 0 ]; then shift; fi ;;
    --fabric=*) fabric=${1#--fabric=}; shift ;;
esac
case "$fabric" in
    ovs) exec src/test/system/ovs/experiment.sh "$@" ;;
    emu) ;;
    *) echo "lab: --fabric must be emu or ovs" >&2; exit 2 ;;
esac

# --endpoints linux: real Linux TCP hosts over the emulated fat tree, then the same experiment
# with the fabric's own endpoints, side by side in one report (docs/realhosts.md).
case "${1:-}" in
    --endpoints) endpoints=${2:-}; shift; if [ $# -gt 0 ]; then shift; fi ;;
    --endpoints=*) endpoints=${1#--endpoints=}; shift ;;
    *) endpoints=emulated ;;
esac
case "$endpoints" in
    linux) exec scripts/lab-linux-hosts.sh "$@" ;;
    emulated) ;;
    *) echo "lab: --endpoints must be emulated or linux" >&2; exit 2 ;;
esac

if [ "$(id -u)" -ne 0 ]; then
    echo "lab: must run as root (it creates a veth pair for the mirror port)" >&2
    exit 1
fi

# Names and ports are the lab's own, so nothing else on the machine is touched.
# LAB_IF (interface name prefix, default plk) and LAB_PORTS (added to every port below, default
# 0) let runs from two checkouts share the machine (the system tests pick random ones).
LAB_IF=${LAB_IF:-plk}
LAB_PORTS=${LAB_PORTS:-0}
MIR=$LAB_IF-mir0          # the fabric writes mirror frames here
CAP=$LAB_IF-mir1          # the collector captures here
INT_TX=$LAB_IF-int0       # --telemetry int|both: the fabric's INT sinks send telemetry reports here
INT_RX=$LAB_IF-int1       # the collector's INT socket listens on this end's address
INT_IP=198.18.14.1    # (benchmarking range, RFC 2544; the fabric's report frames are addressed to it)
INT_MAC=02:00:00:00:1e:02
INT_PORT=54321
LISTEN=127.0.0.1:$((18181 + LAB_PORTS))
COLLECTOR_CONTROL=127.0.0.1:$((17070 + LAB_PORTS))
EMU_CONTROL=127.0.0.1:$((19870 + LAB_PORTS))
LAB_USER=planck
LAB_PASSWORD=planck-lab
# The loop gets a core when it has work, as a switch's control plane would: the collector runs
# at real-time FIFO priority LAB_COLLECTOR_RT (20; LAB_SCHED=fifo, the default; its threads
# block in poll/recv between samples), every thread of it: not with reset-on-fork, which the
# kernel applies to new threads as well as to new processes, so it left capture, detection and
# export at normal priority behind the fabric and the JVM's loop threads (stalls of 10-60 ms at
# the start of runs, checked below once it runs). The controller's JVM runs at normal
# priority and moves only its loop threads (telemetry intake, rule installer, poller, and the
# VM and GC threads whose pauses hold them) to FIFO 10 itself (--loop-rt-priority): a whole JVM
# at FIFO once let a JIT compilation hold a core while a telemetry batch waited. The collector
# sits above the JVM so a stop-the-world pause (both GC workers at FIFO 10 on both cores) does
# not also hold capture, detection and export. The fabric runs at normal priority.
# LAB_SCHED=nice runs the collector at nice LAB_NICE (-10) instead and the loop threads at
# normal priority.
LAB_SCHED=${LAB_SCHED:-fifo}
LAB_NICE=${LAB_NICE:--10}
LAB_COLLECTOR_RT=${LAB_COLLECTOR_RT:-20}
loop_priority=(nice -n "$LAB_NICE")
controller_rt=(--loop-rt-priority 0)
if [ "$LAB_SCHED" = fifo ] && chrt --fifo "$LAB_COLLECTOR_RT" true 2>/dev/null; then
    loop_priority=(chrt --fifo "$LAB_COLLECTOR_RT")
    controller_rt=(--loop-rt-priority 10)
fi

out="results/lab-$(date -u +%Y%m%d-%H%M%S)"
args=()
pint_bits=0
telemetry=mirror
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        --out=*) out="${1#--out=}"; shift ;;
        # PINT path tracing on the fabric, planck-collector pint-live as its sink (docs/pint.md).
        --pint) pint_bits=8; args+=(--pint-bits 8); shift ;;
        --telemetry) telemetry="${2:-}"; args+=(--telemetry "$telemetry"); shift 2 ;;
        --telemetry=*) telemetry="${1#--telemetry=}"; args+=(--telemetry "$telemetry"); shift ;;
        *) args+=("$1"); shift ;;
    esac
done
case "$telemetry" in
    mirror|int|both) ;;
    *) echo "lab: --telemetry must be mirror, int or both" >&2; exit 2 ;;
esac
mkdir -p "$out"
out=$(cd "$out" && pwd)

collector_pid=""
pint_pid=""
lab_pid=""
view_pid=""
cleanup() {
    local rc=$?
    [ -z "$view_pid" ] || kill -TERM -- -"$view_pid" 2>/dev/null || true
    if [ -n "$lab_pid" ] && kill -0 "$lab_pid" 2>/dev/null; then
        # The fabric is the lab's child: end it by its parent's pid, then the lab.
        pkill -TERM -P "$lab_pid" 2>/dev/null || true
        kill -TERM "$lab_pid" 2>/dev/null || true
        wait "$lab_pid" 2>/dev/null || true
    fi
    if [ -n "$pint_pid" ] && kill -0 "$pint_pid" 2>/dev/null; then
        kill -TERM "$pint_pid" 2>/dev/null || true
        wait "$pint_pid" 2>/dev/null || true
    fi
    if [ -n "$collector_pid" ] && kill -0 "$collector_pid" 2>/dev/null; then
        kill -TERM "$collector_pid" 2>/dev/null || true
        wait "$collector_pid" 2>/dev/null || true
    fi
    ip link del "$MIR" 2>/dev/null || true
    [ "$telemetry" = mirror ] || ip link del "$INT_TX" 2>/dev/null || true
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -x scripts/deps.sh ]; then
    scripts/deps.sh
fi

if [ -n "${LAB_SKIP_BUILD:-}" ]; then
    # Repeated experiments on an unchanged tree (LAB_SKIP_BUILD=1): the parts must exist.
    for f in lab/target/planck-lab.jar target/release/planck-emu target/release/planck-collector; do
        [ -e "$f" ] || { echo "lab: LAB_SKIP_BUILD set but $f is missing; build first" >&2; exit 1; }
    done
    echo "== [1-2/4] Build skipped (LAB_SKIP_BUILD) =="
else
    echo "== [1/4] Building the Java parts (mvn install) =="
    mvn -B -q -ntp -Dstyle.color=never install -DskipTests
    echo "== [2/4] Building planck-emu and planck-collector (cargo build --release) =="
    cargo build --release -q -p planck-emu -p planck-collector
fi

echo "== [3/4] Mirror port veth $MIR <-> $CAP =="
ip link del "$MIR" 2>/dev/null || true
ip link add "$MIR" type veth peer name "$CAP"
for dev in "$MIR" "$CAP"; do
    # Only mirrored samples may cross: no addresses, no IPv6 autoconfiguration chatter.
    sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1" 2>/dev/null || true
    ip link set "$dev" up
done
# The collector's AF_PACKET ring sees a frame before ingress filtering; dropping every frame at
# ingress after that spares the kernel passing samples up its IP stack (a few % of the fabric's
# time went there, in the fabric's own sendmmsg).
if tc qdisc add dev "$CAP" clsact 2>/dev/null; then
    tc filter add dev "$CAP" ingress matchall action drop 2>/dev/null || true
fi

if [ "$telemetry" != mirror ]; then
    # The INT sinks' report frames go up the collector end's IP stack to its UDP socket: that end
    # has the address and MAC they are sent to; nothing else is routed there.
    echo "== [3/4] INT report veth $INT_TX <-> $INT_RX ($INT_IP:$INT_PORT) =="
    ip link del "$INT_TX" 2>/dev/null || true
    ip link add "$INT_TX" type veth peer name "$INT_RX"
    for dev in "$INT_TX" "$INT_RX"; do
        sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1" 2>/dev/null || true
    done
    ip link set "$INT_RX" address "$INT_MAC"
    ip addr add "$INT_IP/30" dev "$INT_RX"
    ip link set "$INT_TX" up
    ip link set "$INT_RX" up
    args+=(--int-interface "$INT_TX")
fi
int_section=""
if [ "$telemetry" != mirror ]; then
    switch_map=""
    for n in $(seq 1 20); do
        switch_map+="\"$n\" = \"$(printf 'of:%016x' "$n")\""$'\n'
    done
    # Queue occupancy is in packets (the fabric's DropTail buffers hold 100): an event for every
    # 4 packets of change; INT_PORT batches leave 1 ms after their first event.
    int_section="[int]
listen = [\"$INT_IP:$INT_PORT\"]
versions = [\"1.0\", \"2\"]
max_hops = 8
push_interval_ms = 100
idle_timeout_ms = 3000

[int.intervals]
flow_latency_ns = 48000
hop_latency_ns = 48000
link_utilization = 100
queue_occupancy = 4
queue_congestion = 64

[int.controller]
url = \"http://$LISTEN/onos/planck/v1/telemetry/events\"
collector_id = \"c1-int\"
username = \"$LAB_USER\"
password = \"$LAB_PASSWORD\"
flush_ms = 1

[int.controller.switches]
$switch_map"
fi

echo "== [4/4] Experiment (one emulated fabric per workload and routing mode) and planck-collector on $CAP ($(echo "${loop_priority[@]}")) =="
java ${LAB_GC--XX:+UseZGC} ${LAB_JAVA_OPTS:-} -jar lab/target/planck-lab.jar experiment "${controller_rt[@]}" \
    --emu-bin target/release/planck-emu --out "$out" \
    --listen "$LISTEN" --user "$LAB_USER" --password "$LAB_PASSWORD" \
    --collector-control "http://$COLLECTOR_CONTROL" --collector-id c1 \
    --mirror-interface "$MIR" --emu-control "$EMU_CONTROL" \
    "${args[@]}" &
lab_pid=$!
# Headless Chromium records the live view mid-run (own process group; never fails the lab).
setsid lab/live-view.sh record "$out" "${args[@]}" > "$out/live-view.log" 2>&1 &
view_pid=$!

# The collector starts once the lab's telemetry endpoint listens, so its first exports succeed
# (a refused export would put it into back-off just as the first PlanckTE run begins).
listening() {
    (exec 3<>"/dev/tcp/${1%:*}/${1##*:}") 2>/dev/null
}
for _ in $(seq 1 300); do
    listening "$LISTEN" && break
    kill -0 "$lab_pid" 2>/dev/null || break
    sleep 0.1
done
cat > "$out/collector.toml" <<TOML
collector_id = "c1"

[capture]
interface = "$CAP"
workers = 1
# Small ring blocks: a block reaches the collector when it is full or when its timeout
# (1 ms, i.e. one 4 ms jiffy at HZ=250) retires it; 8 KiB (~40 mirror frames) fills in well
# under a millisecond while the fabric mirrors congestion, so samples do not wait for the timer.
ring_block_kib = 8
ring_blocks = 4096
block_timeout_ms = 1
handover = "${LAB_HANDOVER:-block}"

${LAB_COLLECTOR_ESTIMATOR:+[estimator]
$LAB_COLLECTOR_ESTIMATOR
}
[detect]
congestion_threshold_pct = 80.0
hysteresis_pct = 5.0
flow_report_interval_ms = 1.0   # until the controller sets it (--flow-report-ms)

[export]
url = "http://$LISTEN/onos/planck/v1/telemetry/events"
username = "$LAB_USER"
password = "$LAB_PASSWORD"

[control]
listen = "$COLLECTOR_CONTROL"

$int_section
TOML
"${loop_priority[@]}" target/release/planck-collector run --config "$out/collector.toml" > "$out/collector.log" 2>&1 &
collector_pid=$!
for _ in $(seq 1 100); do
    listening "$COLLECTOR_CONTROL" && break
    kill -0 "$collector_pid" 2>/dev/null || { echo "lab: planck-collector exited (see $out/collector.log)" >&2; exit 1; }
    sleep 0.1
done
listening "$COLLECTOR_CONTROL" || { echo "lab: planck-collector does not answer on $COLLECTOR_CONTROL" >&2; exit 1; }
if [ "${loop_priority[0]}" = chrt ]; then
    # Every collector thread (capture, detection, export) must run at the loop's priority.
    slow=$(ps -L -o cls=,comm= -p "$collector_pid" | awk '$1 != "FF"' | awk '{print $2}' | sort -u | tr '\n' ' ')
    [ -z "$slow" ] || { echo "lab: planck-collector threads not at FIFO $LAB_COLLECTOR_RT: $slow" >&2; exit 1; }
    echo "lab: planck-collector: $(ps -L -o cls= -p "$collector_pid" | wc -l) threads at FIFO $LAB_COLLECTOR_RT"
fi
if [ "$pint_bits" -gt 0 ]; then
    # The PINT sink: its own ring on the capture veth, sink frames only, v3 batches to the lab
    # controller (a collector id of its own); its counters go to pint-live.json on exit. At the
    # collector's priority: at normal priority, beside a collector, fabric and controller at
    # FIFO, it fell behind and moved flows stayed untraced (7 of 8 in one CI run).
    "${loop_priority[@]}" target/release/planck-collector pint-live --iface "$CAP" \
        --controller "http://$LISTEN/onos/planck/v1/telemetry/events" --user "$LAB_USER" --password "$LAB_PASSWORD" \
        --path-bits "$pint_bits" --path-hops 5 --seed 2020 --switches 1..20 --of-device-ids \
        --report "$out/pint-live.json" > "$out/pint-live.log" 2>&1 &
    pint_pid=$!
fi

wait "$lab_pid"
lab_pid=""
if [ -n "$pint_pid" ]; then
    kill -TERM "$pint_pid" 2>/dev/null || true
    wait "$pint_pid" 2>/dev/null || true
    pint_pid=""
    echo "PINT: $out/pint-conformance.md, sink counters $out/pint-live.json"
fi
lab/live-view.sh report "$out" "$view_pid" || echo "lab: the live view section and index.html were not written" >&2
view_pid=""

echo
echo "Report: $out/report.md"
echo "  tables: $out/throughput.csv, $out/flows.csv, $out/loop-latency.csv"
echo "  charts: $(cd "$out" && ls ./*.png | tr '\n' ' ')"
