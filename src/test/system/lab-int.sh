#!/usr/bin/env bash
# Whole-system check of the lab loop on INT: scripts/lab.sh --telemetry int runs PlanckTE on
# stride(8) with every switch of the emulated fabric running INT (edges source and sink), the
# sinks sending telemetry reports (v2.x) as UDP frames on the veth plk-int0 to planck-collector's
# INT socket on plk-int1, the collector sending INT_PORT signals (telemetry-events v2) to the lab
# controller, and the controller deciding congestion on INT queue occupancy only (mirror notices
# and the load view's own triggers off, as the app's congestionSignal "int").
# Asserted from the run's output: the fabric sent reports and none failed at the kernel; the
# controller received INT signals; at least one INT queue congestion decision moved flows; every
# port such a decision named is the congested port of a move in moves.csv (the flow left that
# port); no decision was taken on a mirror notice; every flow finished.
set -euo pipefail
cd "$(dirname "$0")/../../.."
[ "$(id -u)" -eq 0 ] || { echo "SKIP lab-int: needs root (veth)"; exit 0; }
out=$(mktemp -d /tmp/planck-lab-int.XXXXXX)
log="$out.log"
trap 'rm -rf "$out" "$log"' EXIT
fail() {
    echo "FAIL lab-int: $*"
    if [ -s "$out/loop-latency.csv" ]; then
        # The decisions by trigger and outcome, so a failure can be told apart from a slow run.
        echo "lab-int: decisions (count trigger moved-anything):"
        awk -F, 'NR > 1 { print $3, ($11 > 0 ? "moved" : "none") }' "$out/loop-latency.csv" | sort | uniq -c
    fi
    exit 1
}

# Names and ports of its own, so a lab run of another checkout is not disturbed.
export LAB_IF="p$(printf %04x $((RANDOM % 65536)))" LAB_PORTS=$((1 + RANDOM % 900))
if ! timeout 400 scripts/lab.sh --telemetry int --workloads stride8 --modes planck --link-gbps 1 --rounds 1 --view off \
        --out "$out" > "$log" 2>&1; then
    tail -40 "$log" | tr '\r' '\n' | grep -v '^lab ' >&2 || true
    fail "scripts/lab.sh --telemetry int failed"
fi
for f in int-source.csv loop-latency.csv moves.csv flows.csv; do
    [ -s "$out/$f" ] || fail "$f missing"
done
grep -q "congestion signal: INT queue occupancy" "$out/report.md" || fail "the report does not name INT as the telemetry source"

read -r reports sink_errors signals int_moves int_ports missing notices unfinished <<< "$(python3 - "$out" <<'PY'
import csv, sys, os
d = sys.argv[1]
src = list(csv.DictReader(open(os.path.join(d, "int-source.csv"))))
loop = [r for r in csv.DictReader(open(os.path.join(d, "loop-latency.csv"))) if r["mode"] == "PlanckTE"]
moves = [r for r in csv.DictReader(open(os.path.join(d, "moves.csv"))) if r["mode"] == "PlanckTE"]
flows = list(csv.DictReader(open(os.path.join(d, "flows.csv"))))
int_rows = [r for r in loop if r["trigger"] == "INT_QUEUE" and int(r["moves"]) > 0]
moved_off = {r["congested_port"] for r in moves}
ports = {f'{r["switch"]}/{r["port"]}' for r in int_rows}
missing = [p for p in ports if p not in moved_off]
notices = sum(1 for r in loop if r["trigger"] == "NOTICE")
unfinished = sum(1 for f in flows if not f["finish_us"] or int(f["finish_us"]) <= 0)
print(sum(int(r["reports"]) for r in src), sum(int(r["sink_errors"]) for r in src),
      sum(int(r["controller_signals"]) for r in src), sum(int(r["moves"]) for r in int_rows),
      len(ports), len(missing), notices, unfinished)
PY
)"
[ "$reports" -gt 0 ] || fail "the fabric sent no INT report ($(cat "$out/int-source.csv"))"
[ "$sink_errors" -eq 0 ] || fail "$sink_errors INT report frames refused by the kernel"
[ "$signals" -gt 0 ] || fail "no INT_PORT signal reached the controller (collector log: $(grep -i int "$out/collector.log" | tail -3))"
[ "$int_moves" -gt 0 ] || fail "no flow moved on INT queue congestion ($(cat "$out/int-source.csv"))"
[ "$missing" -eq 0 ] || fail "$missing of $int_ports ports INT decisions moved flows off are not the congested port of any move in moves.csv"
[ "$notices" -eq 0 ] || fail "$notices decisions on mirror notices under --telemetry int"
[ "$unfinished" -eq 0 ] || fail "$unfinished flows did not finish"
echo "PASS lab-int: $reports INT reports from the fabric, $signals INT_PORT signals at the controller, $int_moves flows moved off $int_ports INT-congested ports"
