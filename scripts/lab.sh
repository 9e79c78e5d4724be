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
#   scripts/lab.sh --fabric ovs [...]  # on real OVS bridges instead (src/test/system/ovs/experiment.sh)
# Any other arguments go to `planck-lab experiment` (see `--help` there).
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

if [ "$(id -u)" -ne 0 ]; then
    echo "lab: must run as root (it creates a veth pair for the mirror port)" >&2
    exit 1
fi

# Names and ports are the lab's own, so nothing else on the machine is touched.
MIR=plk-mir0          # the fabric writes mirror frames here
CAP=plk-mir1          # the collector captures here
LISTEN=127.0.0.1:18181
COLLECTOR_CONTROL=127.0.0.1:17070
EMU_CONTROL=127.0.0.1:19870
LAB_USER=planck
LAB_PASSWORD=planck-lab
# The loop's processes (controller, collector) get a core when they have work, as a
# switch's control plane would: real-time FIFO priority 10 (LAB_SCHED=fifo, the default; they
# block in poll/recv between samples) with reset-on-fork, so the fabric the controller starts
# runs at normal priority, at nice 10. LAB_SCHED=nice runs them at nice LAB_NICE (-10) instead,
# with the fabric 10 below them (--fabric-nice is relative).
LAB_SCHED=${LAB_SCHED:-fifo}
LAB_NICE=${LAB_NICE:--10}
loop_priority=(nice -n "$LAB_NICE")
if [ "$LAB_SCHED" = fifo ] && chrt --fifo --reset-on-fork 10 true 2>/dev/null; then
    loop_priority=(chrt --fifo --reset-on-fork 10)
fi

out="results/lab-$(date -u +%Y%m%d-%H%M%S)"
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        --out=*) out="${1#--out=}"; shift ;;
        *) args+=("$1"); shift ;;
    esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

collector_pid=""
lab_pid=""
cleanup() {
    local rc=$?
    if [ -n "$lab_pid" ] && kill -0 "$lab_pid" 2>/dev/null; then
        # The fabric is the lab's child: end it by its parent's pid, then the lab.
        pkill -TERM -P "$lab_pid" 2>/dev/null || true
        kill -TERM "$lab_pid" 2>/dev/null || true
        wait "$lab_pid" 2>/dev/null || true
    fi
    if [ -n "$collector_pid" ] && kill -0 "$collector_pid" 2>/dev/null; then
        kill -TERM "$collector_pid" 2>/dev/null || true
        wait "$collector_pid" 2>/dev/null || true
    fi
    ip link del "$MIR" 2>/dev/null || true
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -x scripts/deps.sh ]; then
    scripts/deps.sh
fi

echo "== [1/4] Building the Java parts (mvn install) =="
mvn -B -q -ntp install -DskipTests
echo "== [2/4] Building planck-emu and planck-collector (cargo build --release) =="
cargo build --release -q -p planck-emu -p planck-collector

echo "== [3/4] Mirror port veth $MIR <-> $CAP =="
ip link del "$MIR" 2>/dev/null || true
ip link add "$MIR" type veth peer name "$CAP"
for dev in "$MIR" "$CAP"; do
    # Only mirrored samples may cross: no addresses, no IPv6 autoconfiguration chatter.
    sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1" 2>/dev/null || true
    ip link set "$dev" up
done

echo "== [4/4] ($(echo "${loop_priority[@]}")) Experiment (one emulated fabric per workload and routing mode) and planck-collector on $CAP =="
"${loop_priority[@]}" java -jar lab/target/planck-lab.jar experiment \
    --emu-bin target/release/planck-emu --out "$out" \
    --listen "$LISTEN" --user "$LAB_USER" --password "$LAB_PASSWORD" \
    --collector-control "http://$COLLECTOR_CONTROL" --collector-id c1 \
    --mirror-interface "$MIR" --emu-control "$EMU_CONTROL" \
    "${args[@]}" &
lab_pid=$!

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

[detect]
congestion_threshold_pct = 80.0
hysteresis_pct = 5.0
flow_report_interval_ms = 5.0

[export]
url = "http://$LISTEN/onos/planck/v1/telemetry/events"
username = "$LAB_USER"
password = "$LAB_PASSWORD"

[control]
listen = "$COLLECTOR_CONTROL"
TOML
"${loop_priority[@]}" target/release/planck-collector run --config "$out/collector.toml" > "$out/collector.log" 2>&1 &
collector_pid=$!
for _ in $(seq 1 100); do
    listening "$COLLECTOR_CONTROL" && break
    kill -0 "$collector_pid" 2>/dev/null || { echo "lab: planck-collector exited (see $out/collector.log)" >&2; exit 1; }
    sleep 0.1
done
listening "$COLLECTOR_CONTROL" || { echo "lab: planck-collector does not answer on $COLLECTOR_CONTROL" >&2; exit 1; }

wait "$lab_pid"
lab_pid=""

echo
echo "Report: $out/report.md"
echo "  tables: $out/throughput.csv, $out/flows.csv, $out/loop-latency.csv"
echo "  charts: $(cd "$out" && ls ./*.png | tr '\n' ' ')"
