#!/usr/bin/env bash
# `scripts/lab.sh --endpoints linux`: Planck's experiment with real Linux TCP hosts as the endpoints
# of the emulated k=4 fat tree (mirrors, collector, shadow-MAC rules and reroutes as with the
# fabric's own endpoints), then the same workloads, seeds and modes with the fabric's own
# endpoints at the same link rate and flow size; report.md ends with the two side by side and the
# real-host runs' real-time check (docs/realhosts.md, "The lab with real hosts").
#
#   scripts/lab.sh --endpoints linux [--out DIR] [lab.sh / planck-lab experiment arguments]
#   LAB_LINUX_MBPS=50      link rate (Mb/s) of hosts and fabric
#   LAB_LINUX_FLOW_BYTES   flow size (default: what a link carries in 84 ms, as 10 MiB at 1 Gb/s)
#   LAB_LINUX_ONLY=1       skip the emulated-endpoint run
#
# The 16 hosts are namespaces <P>h0..<P>h15 with veths <P>e0..<P>e15, P a random prefix; they are
# removed by name on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
    echo "lab: --endpoints linux must run as root (network namespaces, veths)" >&2
    exit 1
fi
mbps=${LAB_LINUX_MBPS:-50}
[[ "$mbps" =~ ^[0-9]+$ ]] && [ "$mbps" -ge 1 ] || { echo "lab: LAB_LINUX_MBPS must be a whole number of Mb/s" >&2; exit 2; }
flow_bytes=${LAB_LINUX_FLOW_BYTES:-$((mbps * 1000000 / 8 * 84 / 1000))}

out="results/lab-linux-$(date -u +%Y%m%d-%H%M%S)"
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        --out=*) out="${1#--out=}"; shift ;;
        --link-gbps|--link-mbps|--flow-mib|--flow-bytes|--linux-hosts)
            echo "lab: $1 is set by --endpoints linux (LAB_LINUX_MBPS, LAB_LINUX_FLOW_BYTES)" >&2; exit 2 ;;
        *) args+=("$1"); shift ;;
    esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

prefix="l$(od -An -N2 -tx1 /dev/urandom | tr -d ' \n')"
child=""
cleanup() {
    local rc=$?
    # The experiment runs in the background so that a signal reaches this trap at once; its own
    # trap stops the fabric, the collector and the controller.
    if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
        kill -TERM "$child" 2>/dev/null || true
        wait "$child" 2>/dev/null || true
    fi
    emulator/realhosts/lab-hosts.sh down "$prefix" || true
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The live view's headless browser would take a core from the hosts and the fabric.
case " ${args[*]:-} " in *" --view "*) ;; *) args+=(--view off) ;; esac
common=(--link-mbps "$mbps" --flow-bytes "$flow_bytes" "${args[@]}")

echo "== Real hosts: 16 namespaces (${prefix}h0..15), links at $mbps Mb/s, flows of $flow_bytes bytes =="
emulator/realhosts/lab-hosts.sh up "$prefix" "$mbps"
cat > "$out/linux-hosts.toml" <<TOML
[linux_hosts]
prefix = "$prefix"
agent = "$(pwd)/src/test/system/ovs/tcp-agent.py"
TOML

scripts/lab.sh --out "$out" --linux-hosts "$out/linux-hosts.toml" "${common[@]}" &
child=$!
wait "$child"
child=""
if [ -z "${LAB_LINUX_ONLY:-}" ]; then
    echo "== The same experiment with the fabric's own endpoints =="
    LAB_SKIP_BUILD=1 scripts/lab.sh --out "$out/emulated-endpoints" "${common[@]}" &
    child=$!
    wait "$child"
    child=""
fi
python3 emulator/realhosts/lab_compare.py "$out" ${LAB_LINUX_ONLY:+--linux-only} | tee -a "$out/report.md"
echo "Report: $out/report.md"
