#!/usr/bin/env bash
# Real captures with a snap length, replayed by planck-collector.
#
# Two network namespaces joined by a veth pair carry an iperf3 TCP flow while tcpdump
# (-s 128, pcap with microsecond and with nanosecond timestamps) and dumpcap (-s 128,
# pcapng) capture it. `planck-collector replay` must read every record of every file
# (the count tcpdump itself reads) and estimate the flow from its sequence numbers within
# 10 % of iperf3's sender figure. Each file cut inside its last record (as when a
# capture is killed while writing) must still give every complete record, the count
# tcpdump reads from the cut file, with a warning and exit 0.
#
# Needs root, tcpdump, dumpcap (tshark), iperf3, iproute2, python3.
set -euo pipefail

NAME=collector-pcap-snaplen
fail() { echo "$NAME: FAIL ($*)"; exit 1; }
[ "$(id -u)" = 0 ] || fail "must run as root"
for tool in tcpdump dumpcap iperf3 ip python3; do
  command -v "$tool" >/dev/null || fail "missing $tool (scripts/deps.sh installs it)"
done

REPO=$(cd "$(dirname "$0")/../../.." && pwd)
TARGET_DIR=${CARGO_TARGET_DIR:-$REPO/target}
BIN="$TARGET_DIR/release/planck-collector"
"$REPO/scripts/cargo-release.sh" -p planck-collector || fail "build"

P="pc$(printf %04x $((RANDOM % 65536)))"
D=$(mktemp -d /tmp/planck-$NAME.XXXXXX)
PIDS=()
cleanup() {
  set +e
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  ip netns del "${P}a" 2>/dev/null
  ip netns del "${P}b" 2>/dev/null
  [ -n "${PLANCK_TEST_KEEP:-}" ] && cp -r "$D" "$PLANCK_TEST_KEEP"
  rm -rf "$D"
}
trap cleanup EXIT
MAIN=$$
(
  trap 'kill "$s" 2>/dev/null; exit 0' TERM
  sleep 100 & s=$!
  wait "$s" && { echo "$NAME: FAIL (timeout)"; kill -TERM "$MAIN"; }
) &
PIDS+=("$!")

ip netns add "${P}a"
ip netns add "${P}b"
ip link add "${P}x" netns "${P}a" type veth peer name "${P}y" netns "${P}b"
ip -n "${P}a" link set "${P}x" name eth0
ip -n "${P}b" link set "${P}y" name eth0
for s in a b; do
  ip -n "${P}$s" link set lo up
  ip -n "${P}$s" link set eth0 up
  ip netns exec "${P}$s" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
done
ip -n "${P}a" addr add 10.78.0.1/24 dev eth0
ip -n "${P}b" addr add 10.78.0.2/24 dev eth0
# Segments of at most one MTU, as a switch's mirror would see them.
ip netns exec "${P}a" ethtool -K eth0 tso off gso off >/dev/null 2>&1 || true

in_a() { ip netns exec "${P}a" "$@"; }
ip netns exec "${P}a" tcpdump -i eth0 -s 128 -U -w "$D/us.pcap" tcp 2>"$D/us.log" &
PIDS+=("$!"); T1=$!
ip netns exec "${P}a" tcpdump -i eth0 -s 128 -U --time-stamp-precision nano -w "$D/ns.pcap" tcp 2>"$D/ns.log" &
PIDS+=("$!"); T2=$!
ip netns exec "${P}a" dumpcap -q -i eth0 -s 128 -f tcp -w "$D/ng.pcapng" 2>"$D/ng.log" &
PIDS+=("$!"); T3=$!
for _ in $(seq 100); do
  grep -q listening "$D/us.log" && grep -q listening "$D/ns.log" && [ -s "$D/ng.pcapng" ] && break
  sleep 0.1
done
grep -q listening "$D/us.log" || fail "tcpdump did not start: $(cat "$D/us.log")"
[ -s "$D/ng.pcapng" ] || fail "dumpcap did not start: $(cat "$D/ng.log")"

ip netns exec "${P}b" iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
PIDS+=("$!")
sleep 0.3
in_a iperf3 -c 10.78.0.2 -p 5201 -t 3 -b 40M -J >"$D/iperf.json" || fail "iperf3: $(head -c 300 "$D/iperf.json")"
sleep 0.3
kill -TERM "$T1" "$T2" "$T3"
wait "$T1" "$T2" "$T3" 2>/dev/null || true

check() { # file, cut(0|1)
  local f=$1 cut=$2 expect out code
  expect=$( (tcpdump -r "$f" 2>/dev/null || true) | wc -l)
  [ "$expect" -gt 1000 ] || fail "$f: only $expect packets captured"
  set +e
  "$BIN" replay --pcap "$f" >"$f.flows" 2>"$f.err"
  code=$?
  set -e
  [ "$code" = 0 ] || fail "$f: exit $code: $(cat "$f.err")"
  python3 - "$f" "$expect" "$cut" "$D/iperf.json" <<'PY' || fail "$f: $(cat "$f.err")"
import json, sys
f, expect, cut, iperf = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
err = open(f + ".err").read().strip().splitlines()
report = json.loads(err[-1])
assert report["frames"] == expect, f"replayed {report['frames']} frames, tcpdump read {expect}"
if cut:
    assert report["truncated_tail_bytes"] > 0, report
    assert any("warning" in l and "bytes ignored" in l for l in err[:-1]), err
else:
    assert report["truncated_tail_bytes"] == 0, report
    assert len(err) == 1, err
flows = [json.loads(l) for l in open(f + ".flows")]
data = [x for x in flows if x["src"] == "10.78.0.1" and x["dport"] == 5201]
big = max(data, key=lambda x: x["bps"])
sent = json.load(open(iperf))["end"]["sum_sent"]["bits_per_second"]
err_pct = abs(big["bps"] - sent) / sent * 100
print(f"  {f.rsplit('/', 1)[1]}: {report['frames']} frames, flow {big['bps'] / 1e6:.2f} Mb/s "
      f"({big['estimator']}) vs iperf3 {sent / 1e6:.2f} Mb/s, error {err_pct:.1f} %"
      + (f", {report['truncated_tail_bytes']} bytes cut" if cut else ""))
assert big["estimator"] == "TCP_SEQ", big
assert err_pct < 10, big
PY
}

for f in us.pcap ns.pcap ng.pcapng; do
  check "$D/$f" 0
  size=$(stat -c %s "$D/$f")
  head -c $((size - 37)) "$D/$f" >"$D/cut-$f"
  check "$D/cut-$f" 1
done
echo "$NAME: PASS"
