#!/usr/bin/env bash
# Real hosts through planck-emu with `[real_hosts] capture = "afxdp"` (docs/emulator.md,
# "AF_XDP capture"): two namespaces through one switch, the run's capture an XDP socket on
# each veth. Asserted: while the emulator runs, each veth carries the emulator's XDP
# program in native mode; pings from a to b are answered through the emulated network
# (at least 8 of 10; a late emulator delays them, it does not lose them); in the report,
# every frame a took in was written to b and the other way round, with no ring drops,
# refusals or expired frames; after the emulator exits, no XDP program is left on either
# veth; a second emulator on the same veths is refused with one line. Rates are the other
# system test's (emu-realhosts.sh). Everything is named with a random prefix and removed on
# exit. Needs root, iproute2, ethtool, python3 (scripts/deps.sh).
set -euo pipefail

NAME=emu-realhosts-afxdp
fail() { echo "FAIL $NAME: $*"; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "needs root (namespaces, XDP)"
for tool in ip ethtool ping python3; do
  command -v "$tool" >/dev/null || fail "missing $tool"
done

REPO=$(cd "$(dirname "$0")/../../.." && pwd)
TARGET_DIR=${CARGO_TARGET_DIR:-$REPO/target}
"$REPO/scripts/cargo-release.sh" -p planck-emu || fail "build"
EMU=$TARGET_DIR/release/planck-emu

P=rx$(od -An -N2 -tx1 /dev/urandom | tr -d ' \n')
D=$(mktemp -d /tmp/planck-$NAME.XXXXXX)
NET=10.214.$((RANDOM % 250)).
EMU_PID=
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
  [ -f "$D/c.toml" ] && "$EMU" hosts down --config "$D/c.toml" >/dev/null 2>&1
  for n in "${P}a" "${P}b"; do ip netns del "$n" 2>/dev/null; ip link del "$n-e" 2>/dev/null; done
  rm -rf "$D"
}
trap cleanup EXIT

cp "$REPO/emulator/realhosts/pair.json" "$D/"
cat > "$D/c.toml" <<EOF
[emulation]
slot_gbps = 2.0
mode = "realtime"
duration_us = 60000000.0
batch_slots = 1
[topology]
kind = "custom"
file = "pair.json"
[scheme]
kind = "droptail"
[real_hosts]
capture = "afxdp"
[[real_hosts.host]]
endpoint = "a"
namespace = "${P}a"
address = "${NET}1/24"
veth = "${P}a-e"
[[real_hosts.host]]
endpoint = "b"
namespace = "${P}b"
address = "${NET}2/24"
veth = "${P}b-e"
EOF

"$EMU" hosts up --config "$D/c.toml" >/dev/null || fail "hosts up"
timeout 120 "$EMU" run --config "$D/c.toml" --out "$D/out" > "$D/summary.json" 2> "$D/err" &
EMU_PID=$!
# iproute2 says "Peer netns reference is invalid" on stderr for a veth whose peer is in a
# namespace it has no id for; the XDP attachment is on stdout either way.
xdp_on() { ip -d link show "$1" 2>/dev/null | grep -oE '\bxdp(generic)?\b' | head -1; }
for _ in $(seq 100); do
  [ "$(xdp_on "${P}b-e")" = xdp ] && break
  kill -0 "$EMU_PID" 2>/dev/null || fail "emulator exited: $(cat "$D/err")"
  sleep 0.1
done
for v in "${P}a-e" "${P}b-e"; do
  [ "$(xdp_on "$v")" = xdp ] || fail "no native XDP program on $v while the emulator runs"
done
second=$(timeout 30 "$EMU" run --config "$D/c.toml" --out "$D/out2" 2>&1 >/dev/null) && fail "a second emulator on the same veths was accepted"
[ "$(printf '%s\n' "$second" | wc -l)" -eq 1 ] || fail "second emulator: not one line: $second"
echo "$second" | grep -q "in use by another planck-emu" || fail "second emulator: $second"

replies=$(ip netns exec "${P}a" ping -c 10 -i 0.2 -W 5 "${NET}2" | sed -n 's/.* \([0-9]*\) received.*/\1/p')
echo "$NAME: $replies of 10 pings answered through the emulator"
[ "${replies:-0}" -ge 8 ] || fail "only ${replies:-0} of 10 pings answered"
stop_emu
for v in "${P}a-e" "${P}b-e"; do
  [ -z "$(xdp_on "$v")" ] || fail "XDP program left on $v after the emulator exited"
done

python3 - "$D/summary.json" <<'PY' || fail "report"
import json, sys
s = json.load(open(sys.argv[1]))
a, b = (h["counters"] for h in s["real_hosts"]["hosts"])
print("emu-realhosts-afxdp: a took in %d, b got %d; b took in %d, a got %d; lag max %.0f us"
      % (a["frames_in"], b["frames_out"], b["frames_in"], a["frames_out"],
         s["realtime"]["max_lag_us"]))
assert a["frames_in"] >= 8 and b["frames_in"] >= 8, "too few frames taken in"
assert a["frames_in"] == b["frames_out"] and b["frames_in"] == a["frames_out"], "frames in != frames out"
for c in (a, b):
    for k in ("ring_drops", "refused_oversize", "refused_not_ipv4", "refused_malformed",
              "unknown_destination", "nic_drops", "expired", "tx_errors"):
        assert c[k] == 0, "%s = %d" % (k, c[k])
PY
echo "PASS $NAME"
