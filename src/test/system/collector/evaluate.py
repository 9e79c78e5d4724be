#!/usr/bin/env python3
"""Compare the collector's live FLOW_RATE estimates with iperf3's measured throughput.

Usage: evaluate.py EVENTS COLLECTOR_PACKETS BRIDGE_PACKETS CONGESTED_PORT CLEAR_PORT FLOW_JSON...
where each FLOW_JSON is "src,dst,dport,iperf3.json". Exits non-zero on failure.
"""
import json
import sys

events_file, seen, total, congested_port, calm_port = sys.argv[1:6]
flows = [a.split(",") for a in sys.argv[6:]]
seen, total = int(seen), int(total)

batches = [json.loads(line) for line in open(events_file)]
events = [e for b in batches for e in b["events"]]
seqs = [b["seq"] for b in batches]
ok = True

if seqs != list(range(len(seqs))):
    print(f"FAIL batch seq not 0..n without gaps: {seqs[:20]}...")
    ok = False

fraction = seen / total if total else 1.0
print(f"collector saw {seen} of {total} packets through the bridge ({100 * fraction:.1f} %)")
if not (0 < fraction < 0.5):
    print("FAIL the mirror was not oversubscribed (collector should see only a fraction)")
    ok = False

for src, dst, dport, report in flows:
    with open(report) as f:
        iperf = json.load(f)
    measured = iperf["end"]["sum_received"]["bits_per_second"]
    mine = [e for e in events if e["type"] == "FLOW_RATE" and e["flow"]["src"] == src
            and e["flow"]["dst"] == dst and e["flow"]["dport"] == int(dport)
            and e["estimator"] == "TCP_SEQ"]
    # iperf3's control connection shares the port: the data connection moved the bytes.
    by_sport = {}
    for e in mine:
        by_sport.setdefault(e["flow"]["sport"], []).append(e)
    mine = max(by_sport.values(), key=lambda es: sum(e["bytesPerSec"] * (e["lastSampleUs"] - e["firstSampleUs"]) for e in es)) if mine else []
    # The collector's windows are consecutive; the first one spans the handshake and
    # iperf3's idle wait before the test starts, which iperf3 does not count.
    steady = sorted(mine, key=lambda e: e["firstSampleUs"])[1:]
    span = sum(e["lastSampleUs"] - e["firstSampleUs"] for e in steady)
    if not steady or span <= 0:
        print(f"FAIL {src}->{dst}:{dport}: no TCP_SEQ estimates ({len(mine)} events)")
        ok = False
        continue
    est = sum(8 * e["bytesPerSec"] * (e["lastSampleUs"] - e["firstSampleUs"]) for e in steady) / span
    err = (est - measured) / measured
    ports = sorted({e["port"] for e in mine})
    print(f"{src}->{dst}:{dport}: iperf3 {measured / 1e6:.2f} Mb/s, collector {est / 1e6:.2f} Mb/s "
          f"({100 * err:+.1f} %), {len(steady)} windows, {sum(e['samples'] for e in steady)} samples, ports {ports}")
    if abs(err) > 0.10:
        print(f"FAIL {src}->{dst}:{dport}: estimate off by more than 10 %")
        ok = False

notices = [e for e in events if e["type"] == "PORT_CONGESTION"]
by_port = {}
for n in notices:
    by_port.setdefault(n["port"], []).append(n["state"])
    print(f"  notice port {n['port']} {n['state']} at load {n['loadBps'] / 1e6:.1f} Mb/s, "
          f"decided {n['timeUs'] - n['sampleUs']} us after the sample")
print(f"congestion notices by port: {by_port}")
if by_port.get(int(congested_port), [None])[0] != "CONGESTED":
    print(f"FAIL no CONGESTED notice for port {congested_port}")
    ok = False
if int(calm_port) in by_port:
    print(f"FAIL unexpected notice for port {calm_port}")
    ok = False

sys.exit(0 if ok else 1)
