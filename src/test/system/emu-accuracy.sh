#!/usr/bin/env bash
# Short form of the emulator accuracy experiment (emulator/accuracy/accuracy.py,
# docs/emulator.md "Accuracy against ns-3"): one seed, one load, 100 flows, DropTail,
# DCTCP and RED with ECN, planck-emu against the ns-3 reference on the same flows. Asserts that
# every flow completes on both sides and that the mean normalised FCT of small
# (< 100 KB) and large (>= 10 MB; seed 1 has one) flows agrees within 10 % for
# each scheme. The reference runs with accuracy.py's default host
# jitter (DropTail 600 ns centred on the link's delay, DCTCP and RED none); with it this run's DropTail
# small flows are -1.2 %, medium -0.4 % (one flow times out on both sides), its large flow 0 %,
# DCTCP's +2.0 % and 0 % and RED's -2.1 % and 0 % (29 Nov 2026; with 50 ns added, the earlier default: +0.4 %, medium
# +11.4 % from a loss only the emulator had). In longer runs a handful of timeouts decide
# DropTail's small-flow means and a run's mean is not resolved to 10 % (docs/emulator.md); this
# is a check that the model has not moved, on a run both sides agree on. timeouts.py prints the
# timeouts per side and the flows without one.
#
# Needs g++, pkg-config, libns3-dev, libgsl-dev, python3 (scripts/deps.sh).
set -euo pipefail

NAME=emu-accuracy
TOL=${EMU_ACCURACY_TOL:-0.10}
DCTCP_TOL=${EMU_ACCURACY_DCTCP_TOL:-0.10}
fail() { echo "$NAME: FAIL ($*)"; exit 1; }
for tool in g++ pkg-config python3; do
  command -v "$tool" >/dev/null || fail "missing $tool"
done
pkg-config --exists ns3-core ns3-internet ns3-point-to-point ns3-traffic-control || fail "ns-3 (libns3-dev) missing"

REPO=$(cd "$(dirname "$0")/../../.." && pwd)
TARGET_DIR=${CARGO_TARGET_DIR:-$REPO/target}
"$REPO/scripts/cargo-release.sh" -p planck-emu || fail "build"
D=$(mktemp -d /tmp/planck-$NAME.XXXXXX)
trap 'rm -rf "$D"' EXIT

run() { timeout 300 python3 "$REPO/emulator/accuracy/accuracy.py" --emu "$TARGET_DIR/release/planck-emu" \
  --out "$D" --seeds 1 --flows 100 --loads 0.2 "$@"; }
# The second call reuses the first one's reference binary and idle runs.
run --schemes droptail --check "$TOL" --check-bins small,large \
  || fail "DropTail: emulator and ns-3 disagree by more than $TOL (table above)"
# Timeouts per side and the flows without one (the statistic longer runs are compared by).
python3 "$REPO/emulator/accuracy/timeouts.py" "$D" || fail "timeouts.py"
run --schemes dctcp --check "$DCTCP_TOL" --check-bins small,large \
  || fail "DCTCP: emulator and ns-3 disagree by more than $DCTCP_TOL (table above)"
run --schemes red --check "$TOL" --check-bins small,large \
  || fail "RED with ECN: emulator and ns-3 disagree by more than $TOL (table above)"
# Each side against itself with its own draws reseeded (DCTCP: the emulator's draws only, no
# ns-3 run; docs/emulator.md, discrepancy 16).
python3 "$REPO/emulator/accuracy/noise_floor.py" "$D" --schemes dctcp --emu "$TARGET_DIR/release/planck-emu" \
  || fail "noise_floor.py"
echo "$NAME: OK"
