#!/usr/bin/env bash
# Real-system test of planck-collector, on the bench of collector/ovs-bench.sh: an Open vSwitch
# bridge whose ports are all mirrored into an oversubscribed, drop-tail mirror link, four hosts
# in network namespaces, the collector capturing live on the far end of the mirror link and
# exporting to a stand-in controller. Two iperf3 TCP flows run: the collector must estimate each
# within 10 % of iperf3's measured throughput while the mirror link carries only a fraction of
# the bytes, and flag the port whose capacity (from the pushed forwarding map) a flow exceeds.
# The control endpoint answers a stale map 409 and a malformed one 400.
#
# Needs root, openvswitch-switch, iperf3, ethtool, iproute2, curl, python3.
set -euo pipefail

NAME=collector-ovs
fail() { echo "$NAME: FAIL ($*)"; exit 1; }
RATE_A=30   # Mb/s, h1 -> h3
RATE_B=50   # Mb/s, h2 -> h4, above h4 port's 40 Mb/s capacity in the forwarding map
MIRROR_RATE=6mbit
DURATION=8
# shellcheck source=collector/ovs-bench.sh
source "$(dirname "$0")/collector/ovs-bench.sh"
bench_init pk 170
bench_switch
bench_collector

[ "$(forwarding_map 2 | put /v1/forwarding)" = 204 ] || fail "forwarding map push refused"
[ "$(forwarding_map 1 | put /v1/forwarding)" = 409 ] || fail "stale forwarding map not answered 409"
[ "$(echo '{"version":1}' | put /v1/forwarding)" = 400 ] || fail "malformed forwarding map not answered 400"
[ "$(echo '{"version":1,"congestionThresholdPct":80,"hysteresisPct":5,"flowReportIntervalMs":5}' | put /v1/config)" = 204 ] \
  || fail "config push refused"

# --- traffic ------------------------------------------------------------------------------
ip netns exec "${P}h3" iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
PIDS+=("$!")
ip netns exec "${P}h4" iperf3 -s -1 -p 5202 >/dev/null 2>&1 &
PIDS+=("$!")
sleep 0.5
ip netns exec "${P}h1" iperf3 -c 10.77.0.3 -p 5201 -t "$DURATION" -b "${RATE_A}M" -l 16K -J >"$D/a.json" &
A=$!
ip netns exec "${P}h2" iperf3 -c 10.77.0.4 -p 5202 -t "$DURATION" -b "${RATE_B}M" -l 16K -J >"$D/b.json" &
B=$!
wait "$A" || fail "iperf3 h1->h3: $(head -c 300 "$D/a.json")"
wait "$B" || fail "iperf3 h2->h4: $(head -c 300 "$D/b.json")"
sleep 0.3

SEEN=$(metric planck_collector_packets_total)
DROPS=$(metric planck_collector_export_queue_drops_total)
TOTAL=$(bridge_rx packets)
TOTAL_BYTES=$(bridge_rx bytes)
# What the mirror link itself carried and dropped: the oversubscription is in bytes (a mirror
# port's rate), so small ACK frames get through far more often than full-size data frames.
read -r MIRROR_SENT_BYTES MIRROR_DROPS < <("${INSW[@]}" tc -s qdisc show dev "${P}ra" |
  awk '$1 == "Sent" {b = $2; d = $7; sub(/,/, "", d); print b, d; exit}')
bench_stop_collector
echo "export queue drops: $DROPS"

if python3 "$HELPERS/evaluate.py" "$D/events.jsonl" "$SEEN" "$TOTAL" \
    "$MIRROR_SENT_BYTES" "$MIRROR_DROPS" "$TOTAL_BYTES" "$P4" "$P3" \
    "10.77.0.1,10.77.0.3,5201,$D/a.json" "10.77.0.2,10.77.0.4,5202,$D/b.json"; then
  echo "$NAME: PASS"
else
  echo "--- collector log"; tail -20 "$D/collector.log"
  echo "$NAME: FAIL"
  exit 1
fi
