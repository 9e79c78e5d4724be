#!/usr/bin/env bash
# Whole-system check of PINT path conformance in the lab: scripts/lab.sh --pint runs PlanckTE on
# stride(8) with every switch of the emulated fabric writing PINT path digests into the IPv4 ID,
# planck-collector pint-live decoding them from the mirror frames of the packets' last switches
# and sending telemetry-events v3 to the lab controller, whose conformance view (the app's
# PathConformance) is written to pint-conformance.csv at the end of the run.
# Asserted: TE moved flows; the sink decoded paths and the controller accepted its batches; no
# flow TE did not move is off its planned path; every moved flow is confirmed on its new path
# (a trace of it received after the move), except those moved less than the 1 s confirmation
# timeout before the run ended and not traced since (MOVE_PENDING: not judged yet), which must
# be at most half of the moved flows; none is NON_CONFORMING or UNTRACED.
# Prints how many moved flows were confirmed and how long after the move (ms, packets).
# Flows of 30 MiB (~250 ms at 1 Gb/s): with 10 MiB flows (~84 ms) a flow moved late in its life
# could end before the sink had its new path, and one CI run had 6 of 7 moves untraced.
set -euo pipefail
cd "$(dirname "$0")/../../.."
[ "$(id -u)" -eq 0 ] || { echo "SKIP lab-pint: needs root (veth)"; exit 0; }
out=$(mktemp -d /tmp/planck-lab-pint.XXXXXX)
log="$out.log"
trap 'rm -rf "$out" "$log"' EXIT
fail() {
    echo "FAIL lab-pint: $*"
    exit 1
}

if ! timeout 400 scripts/lab.sh --pint --workloads stride8 --modes planck --link-gbps 1 --flow-mib 30 --rounds 1 --view off \
        --out "$out" > "$log" 2>&1; then
    tail -40 "$log" | tr '\r' '\n' | grep -v '^lab ' >&2 || true
    fail "scripts/lab.sh --pint failed"
fi
for f in pint-conformance.csv pint-conformance.md pint-live.json; do
    [ -s "$out/$f" ] || fail "$f missing (pint-live: $(tail -3 "$out/pint-live.log" 2>/dev/null))"
done
sent=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["pathsDecoded"], r["eventsSent"], r["batchesRejected"])' "$out/pint-live.json")
read -r decoded events rejected <<< "$sent"
[ "$decoded" -gt 0 ] || fail "the PINT sink decoded no path ($(cat "$out/pint-live.json"))"
[ "$events" -gt 0 ] || fail "no PINT event reached the controller ($(cat "$out/pint-live.json"))"
[ "$rejected" -eq 0 ] || fail "the controller refused $rejected PINT batches"

# workload,mode,seed,src,dst,proto,sport,dport,status,traces,trace_packets,traced_ms,moves,moved_ms,
# moved_from,moved_to,confirmation_ms,traced_path,planned_path
read -r moved confirmed pending offpath unmoved_bad p50 p90 pk50 <<< "$(python3 - "$out/pint-conformance.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
moved = [r for r in rows if int(r["moves"]) > 0]
conf = [r for r in moved if r["status"] == "MOVED_CONFIRMED"]
pend = [r for r in moved if r["status"] == "MOVE_PENDING"]
off = [r for r in moved if r["status"] not in ("MOVED_CONFIRMED", "MOVE_PENDING")]
unmoved_bad = [r for r in rows if int(r["moves"]) == 0 and r["status"] == "NON_CONFORMING"]
d = sorted(int(r["confirmation_ms"]) for r in conf)
p = sorted(int(r["trace_packets"]) for r in conf)
q = lambda v, f: v[min(len(v) - 1, max(0, -(-int(f * len(v) * 100) // 100) - 1))] if v else -1
print(len(moved), len(conf), len(pend), len(off), len(unmoved_bad), q(d, .5), q(d, .9), q(p, .5))
PY
)"
[ "$moved" -gt 0 ] || fail "TE moved no flow"
[ "$unmoved_bad" -eq 0 ] || fail "$unmoved_bad flows TE never moved were traced off their planned path"
[ "$offpath" -eq 0 ] || fail "$offpath moved flows are NON_CONFORMING or UNTRACED (see pint-conformance.csv)"
[ $((confirmed + pending)) -eq "$moved" ] || fail "only $confirmed of $moved moved flows confirmed ($pending pending)"
[ "$confirmed" -gt 0 ] && [ $((pending * 2)) -le "$moved" ] \
    || fail "$pending of $moved moved flows still pending at the end of the run, $confirmed confirmed"
echo "PASS lab-pint: $confirmed of $moved moved flows traced on their new path ($pending moved < 1 s before the end, pending); move -> confirmation p50 ${p50} ms, p90 ${p90} ms; trace p50 ${pk50} sink packets"
