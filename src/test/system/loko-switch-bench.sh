#!/usr/bin/env bash
# Short form of the Loko switch benchmark on real Open vSwitch (userspace datapath, private
# ovsdb-server/ovs-vswitchd in a temp dir, namespaces and veths named with a random prefix,
# all removed on exit by the tool). Drives 1 and then 2 port pairs at once with 64 B frames
# at two rates, measures per-packet latency (kernel receive timestamps) and switch loss (OVS
# port counters), and derives a switch model. Checks: every run forwarded and timed packets,
# the model has positive R and T, and it covers every loss-free observation.
#
# Needs root, openvswitch-switch, iproute2, python3 (matplotlib optional: plot only).
set -euo pipefail

NAME=loko-switch-bench
fail() { echo "$NAME: FAIL ($*)"; exit 1; }
[ "$(id -u)" = 0 ] || fail "must run as root"
for tool in ovs-vswitchd ovsdb-server ovsdb-tool ovs-vsctl ovs-ofctl ip python3; do
  command -v "$tool" >/dev/null || fail "missing $tool"
done
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
OUT=$(mktemp -d /tmp/planck-$NAME.XXXXXX)
trap 'rm -rf "$OUT"' EXIT

timeout 150 python3 "$REPO/loko/switch_bench.py" run --ports 1,2 --sizes 64 --rates 500,4000 \
  --duration 1 --burst 2 --seed 1 --out "$OUT" > "$OUT/log" 2>&1 || { cat "$OUT/log"; fail "benchmark"; }
python3 - "$OUT" <<'PY' || fail "checks"
import json, sys
d = sys.argv[1]
runs = json.load(open(d + "/measurements.json"))["runs"]
model = json.load(open(d + "/switch-model.json"))
assert len(runs) == 4, runs
for r in runs:
    assert r["switchTx"] > 0 and r["received"] > 0, r
    assert r["latencyNs"]["min"] > 0, r  # receive after send, same clock
    assert r["received"] <= r["switchTx"] <= r["switchRx"] <= r["sent"], r
assert model["serviceRateBytesPerSec"] > 0 and model["serviceLatencyMicros"] > 0, model
assert model["observationsAboveBound"] == 0, model
print("loko-switch-bench: R=%d B/s T=%d us o=%d B over %d runs" % (
    model["serviceRateBytesPerSec"], model["serviceLatencyMicros"], model["perPacketOverheadBytes"], len(runs)))
PY
echo "$NAME: PASS"
