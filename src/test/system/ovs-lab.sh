#!/usr/bin/env bash
# Short form of Planck's experiment on the OVS fabric (scripts/lab.sh --fabric ovs): the k=4 fat
# tree of Open vSwitch bridges from nothing, stride(8) under Static and PlanckTE (and Optimal on the
# single bridge, mirrored as the fat tree is) with real Linux TCP hosts, mirrors and
# planck-collector, through the lab's own experiment runner and report.
# Asserted: a complete report; every flow of the three runs finished, none failed; the PlanckTE run's
# mirror ports carried copies to the collector, the collector's telemetry reached the controller
# (congestion notices) and every TE decision that moved flows has its loop latency with the rule
# batch in force (the switches' barrier replies) after the decision; everything is torn down by
# name (experiment.sh's own cleanup). Flows are 4x the full run's (~336 ms at 5 Mb/s) so that
# stride(8)'s collisions last long enough to be seen on a loaded 2-core machine.
#
# Needs root, openvswitch-switch, iproute2, ethtool, python3, java and the planck-collector build.
set -euo pipefail
NAME=ovs-lab
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
fail() { echo "$NAME: FAIL ($*)"; exit 1; }
[ "$(id -u)" = 0 ] || fail "must run as root"
"$REPO/scripts/cargo-release.sh" -p planck-collector || fail "collector build"
if [ ! -s "$REPO/lab/target/planck-lab.jar" ]; then
  (cd "$REPO" && mvn -B -q -ntp package -pl lab -am -DskipTests) || fail "build"
fi
OUT=$(mktemp -d /tmp/planck-$NAME.XXXXXX)
trap '[ -n "${PLANCK_TEST_KEEP:-}" ] && cp -r "$OUT" "$PLANCK_TEST_KEEP"; rm -rf "$OUT"' EXIT
SECONDS=0
rc=0
SKIP_BUILD=1 OVS_FLOW_BYTES=210000 timeout -k 10 170 "$REPO/src/test/system/ovs/experiment.sh" \
  --workloads stride8 --modes static,planck,optimal --out "$OUT" >"$OUT/run.log" 2>&1 || rc=$?
[ "$rc" = 0 ] || { tail -5 "$OUT/run.log"; fail "experiment exited $rc"; }
[ -s "$OUT/report.md" ] || fail "no report"
grep -q '^# Planck lab: traffic engineering on the OVS fabric' "$OUT/report.md" || fail "report title"
python3 - "$OUT" <<'PY' || fail "report check"
import csv, sys
out = sys.argv[1]
flows = list(csv.DictReader(open(f"{out}/flows.csv")))
by_mode = {}
for f in flows:
    by_mode.setdefault(f["mode"], []).append(f)
    assert int(f["finish_us"]) > int(f["start_us"]) > 0, f
    assert int(f["bytes"]) == 210000, f
assert sorted(by_mode) == ["Optimal", "PlanckTE", "Static"], sorted(by_mode)
for m, fs in by_mode.items():
    assert len(fs) == 16, (m, len(fs))
runs = {}
for line in open(f"{out}/report.md"):
    c = [x.strip() for x in line.split("|")]
    if len(c) == 11 and c[1] == "stride(8)" and c[3] == "16":
        runs[c[2]] = c
planck = runs["PlanckTE"]
frames, notices = int(planck[8]), int(planck[5])
assert frames > 0, "PlanckTE: no mirror copies"
assert notices > 0, "PlanckTE: no congestion notice reached the controller"
loops = [r for r in csv.DictReader(open(f"{out}/loop-latency.csv")) if int(r["moves"]) > 0]
for r in loops:
    assert int(r["answered_us"]) >= int(r["decision_us"]) > 0, r
print(f"PlanckTE: {frames} mirror copies, {notices} notices, {len(loops)} decisions that moved flows; "
      f"mean Mb/s Static {sum(float(f['throughput_mbps']) for f in by_mode['Static']) / 16:.2f}, "
      f"PlanckTE {sum(float(f['throughput_mbps']) for f in by_mode['PlanckTE']) / 16:.2f}")
PY
echo "$NAME: PASS ($SECONDS s)"
