#!/usr/bin/env bash
# Short form of the Loko validation on real Open vSwitch (loko/validate.py; the full run is
# loko/validate.sh, docs/loko.md). One private OVS bridge, namespaces and taps named with a random
# prefix and removed on exit by the tool: a short benchmark derives the switch model, the app's own
# AdmissionPlanner (lab's admission-plan command) admits flows under the shared-switch and the
# per-port model, and every admitted flow sends greedy token-bucket bursts with cross traffic.
#
# Asserted (robust on a loaded machine):
#  - the shared-switch model admits at least one flow and refuses flows the per-port model admits;
#  - every admitted flow's frames were received and timed by kernel stamps at both ends;
#  - as stamped, every flow kept its token bucket (greedy bursts never exceeded it);
#  - the model covers every loss-free benchmark observation and every drain of 1 and 3 full input
#    rings (its rate-latency curve lies below the departures);
#  - the forwarding thread's CPU wait (schedstat) was read for every traffic stage.
# Reported, not asserted: violations under either model. Zero violations under the shared model
# holds only if no stall longer than the benchmark's T hits the run, which a shared CI machine
# does not promise; the per-port model's violations need a switch not starved by other work.
#
# Needs root, openvswitch-switch, iproute2, python3, java 17 and the lab jar (built if absent).
set -euo pipefail

NAME=loko-validate
fail() { echo "$NAME: FAIL ($*)"; exit 1; }
[ "$(id -u)" = 0 ] || fail "must run as root"
for tool in ovs-vswitchd ovsdb-server ovsdb-tool ovs-vsctl ovs-ofctl ip python3 java; do
  command -v "$tool" >/dev/null || fail "missing $tool"
done
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
JAR="$REPO/lab/target/planck-lab.jar"
if [ ! -f "$JAR" ]; then
  (cd "$REPO" && mvn -B -q -ntp -o install -DskipTests -pl api,app,lab -am) || fail "building $JAR"
fi
OUT=$(mktemp -d /tmp/planck-$NAME.XXXXXX)
trap 'rm -rf "$OUT"' EXIT

timeout 240 python3 "$REPO/loko/validate.py" --lab-jar "$JAR" --out "$OUT" --packets 20000 \
  --contrast-packets 20000 --min-duration 1 --bench-duration 1 --load-fractions 0.5 --bench-ports 1,3 \
  --drain-repeats 1 --drain-ports 1,3 --scopes SHARED_SWITCH_ANY_ORDER,PER_PORT > "$OUT/log" 2>&1 || { cat "$OUT/log"; fail "validation run"; }
python3 - "$OUT" <<'PY' || { cat "$OUT/log"; fail "checks"; }
import json, sys
d = json.load(open(sys.argv[1] + "/validation.json"))
runs = {r["scope"]: r for r in d["runs"]}
shared, per_port = runs["SHARED_SWITCH_ANY_ORDER"], runs["PER_PORT"]
assert d["model"]["observationsAboveBound"] == 0, d["model"]
assert shared["admitted"] >= 1, shared.get("firstRefusal")
assert per_port["admitted"] > shared["admitted"], (per_port["admitted"], shared["admitted"])
assert shared["firstRefusal"], shared
for r in (shared, per_port):
    for f in r["flows"]:
        assert f["received"] > 0, f
        assert f["latencyNs"]["p50"] > 0, f  # receive after transmit, same clock
        # Frames whose kernel transmit stamp the error queue lost are timed from the send call
        # (which can only overstate latency). Their share is printed, not asserted: it reached
        # 6 % of a shared-model flow's frames under CPU pressure and 11 % in an over-admitted
        # per-port run on a quiet machine, where the error queue overflows with the senders'.
        assert f["burstAsStamped"] <= f["burstPackets"] + 1e-6, f
        assert f["maxOverBound"] is not None, f
    assert "forwardingThread" in r["switch"], r["switch"]  # the switch's CPU wait is reported
drains = d["model"]["measured"]["drains"]
assert {x["ports"] for x in drains} == {1, 3}, drains
assert all(x["latencyNeededNs"] <= d["model"]["serviceLatencyMicros"] * 1000 for x in drains), drains
print("loko-validate: frames timed from the send call, largest share of a flow: %.1f %% (shared), %.1f %% (per-port)" % tuple(
    100 * max(f["userStamped"] / f["received"] for f in r["flows"]) for r in (shared, per_port)))
print("loko-validate: shared admits %d, per-port %d; violations %d of %d (shared), %d of %d (per-port); "
      "max/bound %.3f vs %.3f; first shared refusal: %s" % (
          shared["admitted"], per_port["admitted"], shared["violations"], shared["packets"],
          per_port["violations"], per_port["packets"], max(f["maxOverBound"] for f in shared["flows"]),
          max(f["maxOverBound"] for f in per_port["flows"]), shared["firstRefusal"]))
PY
echo "$NAME: PASS"
