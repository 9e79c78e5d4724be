#!/usr/bin/env bash
# Real-system test of planck-collector's estimate of a non-TCP flow, on the bench of
# collector/ovs-bench.sh (an OVS bridge mirrored into an oversubscribed drop-tail mirror link,
# four hosts, the collector capturing on the mirror link). A bursty iperf3 TCP flow (h1 -> h3)
# and a paced iperf3 UDP flow (-u -b 4M, h2 -> h4) run together. A drop-tail mirror samples
# the paced flow far more often than the bursty one, so sampled bytes x the TCP-measured
# ratio inflate it; the collector must instead count the UDP sender's packets from their
# IPv4 identification and estimate the flow within 10 % of iperf3's figure, with the TCP
# flow within 10 % as before. The control endpoint runs with credentials: pushes without
# them or with a wrong password are refused (401) and counted.
#
# Needs root, openvswitch-switch, iperf3, ethtool, iproute2, curl, python3 (tcpdump optional).
set -euo pipefail

NAME=collector-ovs-udp
fail() { echo "$NAME: FAIL ($*)"; exit 1; }
RATE_A=30   # Mb/s, h1 -> h3, TCP in 16 KiB bursts
RATE_U=4    # Mb/s, h2 -> h4, UDP, paced
MIRROR_RATE=6mbit
DURATION=10
# shellcheck source=collector/ovs-bench.sh
source "$(dirname "$0")/collector/ovs-bench.sh"
bench_init pu 110
bench_switch
bench_collector

[ "$(forwarding_map 2 | put_as - /v1/forwarding)" = 401 ] || fail "unauthenticated forwarding push not answered 401"
[ "$(forwarding_map 2 | put_as te:wrong /v1/forwarding)" = 401 ] \
  || fail "forwarding push with a wrong password not answered 401"
[ "$(forwarding_map 2 | put /v1/forwarding)" = 204 ] || fail "forwarding map push refused"
[ "$(forwarding_map 1 | put /v1/forwarding)" = 409 ] || fail "stale forwarding map not answered 409"
[ "$(echo '{"version":1}' | put /v1/forwarding)" = 400 ] || fail "malformed forwarding map not answered 400"
[ "$(echo '{"version":1,"congestionThresholdPct":80,"hysteresisPct":5,"flowReportIntervalMs":5}' | put /v1/config)" = 204 ] \
  || fail "config push refused"

# --- traffic ------------------------------------------------------------------------------
# The mirror link's samples are also written to a file (if tcpdump is there), to compare
# offline what sampled bytes x the TCP-measured ratio would have said.
TCPDUMP=""
if command -v tcpdump >/dev/null; then
  "${INSW[@]}" tcpdump -i "${P}rb" -s 128 -U -w "$D/mirror.pcap" 2>"$D/tcpdump.log" &
  TCPDUMP=$!
  PIDS+=("$TCPDUMP")
  for _ in $(seq 50); do grep -q listening "$D/tcpdump.log" && break; sleep 0.1; done
fi
ip netns exec "${P}h3" iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
PIDS+=("$!")
ip netns exec "${P}h4" iperf3 -s -1 -p 5202 >/dev/null 2>&1 &
PIDS+=("$!")
sleep 0.5
ip netns exec "${P}h1" iperf3 -c 10.77.0.3 -p 5201 -t "$DURATION" -b "${RATE_A}M" -l 16K -J >"$D/a.json" &
A=$!
ip netns exec "${P}h2" iperf3 -c 10.77.0.4 -p 5202 -u -t "$DURATION" -b "${RATE_U}M" -J >"$D/u.json" &
U=$!
wait "$A" || fail "iperf3 h1->h3: $(head -c 300 "$D/a.json")"
wait "$U" || fail "iperf3 -u h2->h4: $(head -c 300 "$D/u.json")"
sleep 0.3

UNAUTH=$(metric planck_collector_control_unauthorized_total)
[ "$UNAUTH" = 2 ] || fail "control_unauthorized_total is $UNAUTH, expected 2"
DROPS=$(metric planck_collector_export_queue_drops_total)
bench_stop_collector
echo "export queue drops: $DROPS"
if [ -n "$TCPDUMP" ]; then
  kill -TERM "$TCPDUMP"; wait "$TCPDUMP" 2>/dev/null || true
  "$BIN" replay --pcap "$D/mirror.pcap" 2>/dev/null | python3 "$HELPERS/compare_replay.py" 5202 || true
fi

if python3 "$HELPERS/evaluate_udp.py" "$D/events.jsonl" \
    "10.77.0.1,10.77.0.3,5201,$D/a.json" "10.77.0.2,10.77.0.4,5202,$D/u.json" 0.10; then
  echo "$NAME: PASS"
else
  echo "--- collector log"; tail -20 "$D/collector.log"
  echo "$NAME: FAIL"
  exit 1
fi
