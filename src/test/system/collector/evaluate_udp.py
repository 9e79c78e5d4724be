#!/usr/bin/env python3
"""Compare live FLOW_RATE estimates of a TCP and a paced UDP flow with iperf3's figures.

Usage: evaluate_udp.py EVENTS TCP_FLOW UDP_FLOW UDP_TOLERANCE
where TCP_FLOW and UDP_FLOW are "src,dst,dport,iperf3.json". Exits non-zero on failure.
Each estimate is the time-weighted mean of the flow's windows after its first (which
spans iperf3's start-up).
"""
import json
import sys

events_file, tcp_flow, udp_flow, udp_tol = sys.argv[1:5]
udp_tol = float(udp_tol)
events = [e for line in open(events_file) for e in json.loads(line)["events"]]
ok = True


def windows(src, dst, dport, proto):
    mine = [e for e in events if e["type"] == "FLOW_RATE" and e["flow"]["src"] == src
            and e["flow"]["dst"] == dst and e["flow"]["dport"] == int(dport)
            and e["flow"]["proto"] == proto and e["bytesPerSec"] > 0]
    by_sport = {}
    for e in mine:
        by_sport.setdefault(e["flow"]["sport"], []).append(e)
    if not by_sport:
        return []
    # iperf3's control connection shares the port: the data flow moved the bytes.
    mine = max(by_sport.values(), key=lambda es: sum(e["bytesPerSec"] * (e["lastSampleUs"] - e["firstSampleUs"]) for e in es))
    return sorted(mine, key=lambda e: e["firstSampleUs"])[1:]


def mean_bps(steady):
    span = sum(e["lastSampleUs"] - e["firstSampleUs"] for e in steady)
    return sum(8 * e["bytesPerSec"] * (e["lastSampleUs"] - e["firstSampleUs"]) for e in steady) / span if span > 0 else None


src, dst, dport, report = tcp_flow.split(",")
measured = json.load(open(report))["end"]["sum_received"]["bits_per_second"]
steady = [e for e in windows(src, dst, dport, 6) if e["estimator"] == "TCP_SEQ"]
est = mean_bps(steady)
if est is None:
    print(f"FAIL TCP {src}->{dst}:{dport}: no TCP_SEQ estimates")
    ok = False
else:
    err = (est - measured) / measured
    print(f"TCP {src}->{dst}:{dport}: iperf3 {measured / 1e6:.2f} Mb/s, collector {est / 1e6:.2f} Mb/s "
          f"({100 * err:+.1f} %), {len(steady)} windows")
    if abs(err) > 0.10:
        print("FAIL TCP estimate off by more than 10 %")
        ok = False

src, dst, dport, report = udp_flow.split(",")
udp = json.load(open(report))["end"]["sum"]
measured = udp["bits_per_second"] * (1 - udp.get("lost_percent", 0) / 100)
steady = windows(src, dst, dport, 17)
counted = [e for e in steady if not e.get("lowConfidence", False)]
low = len(steady) - len(counted)
est = mean_bps(counted)
if est is None:
    print(f"FAIL UDP {src}->{dst}:{dport}: no estimate counted from IPv4 ids ({low} low-confidence windows)")
    ok = False
else:
    err = (est - measured) / measured
    flagged = mean_bps([e for e in steady if e.get("lowConfidence", False)])
    print(f"UDP {src}->{dst}:{dport}: iperf3 {measured / 1e6:.2f} Mb/s, collector {est / 1e6:.2f} Mb/s "
          f"({100 * err:+.1f} %), {len(counted)} windows from IPv4 ids, {low} low-confidence"
          + (f" (at {flagged / 1e6:.2f} Mb/s)" if flagged else ""))
    if abs(err) > udp_tol:
        print(f"FAIL UDP estimate off by more than {100 * udp_tol:.0f} %")
        ok = False
    if low > len(counted) / 4:
        print("FAIL too many low-confidence windows for a sender that numbers its packets")
        ok = False

sys.exit(0 if ok else 1)
