#!/usr/bin/env python3
"""Sends a scripted sequence of telemetry reports (built with the scapy header classes of
collector/tests/int_scapy/int_reports.py) to the collector over UDP, and writes what
InfluxDB and Prometheus must then hold: the last value per key and the number of events
per measurement that interval detection predicts (a small model of the rules in
docs/collector.md, written here independently of the collector).

usage: send_reports.py HOST PORT OUT.json  (widths: see WIDTHS; push interval must be
longer than the run, so that no periodic pushes happen)
"""
import json
import socket
import sys
import time
import os

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../../collector/tests/int_scapy"))
from int_reports import (IP, UDP, Ether, HopLatency, IndividualReportV2, IntMetadataV05,  # noqa: E402
                         IntShimV05, IntTailV05, L1Ports, QueueCongestion, QueueOccupancy,
                         ReportGroupV2, SwitchId, TelemetryReportV05, Timestamp32,
                         TxUtilization)

WIDTHS = {"flow_latency": 100, "hop_latency": 100, "link_utilization": 100,
          "queue_occupancy": 10, "queue_congestion": 10}


def v05(seq, dst, hops):
    """hops: source-to-sink list of dicts(switch, lat, util, occ, cong)."""
    stack = b""
    for h in reversed(hops):  # the stack is pushed: the sink's hop comes first
        stack += (bytes(SwitchId(switch_id=h["switch"])) +
                  bytes(L1Ports(ingress_port=1, egress_port=h["port"])) +
                  bytes(HopLatency(hop_latency=h["lat"])) +
                  bytes(QueueOccupancy(queue_id=0, queue_occupancy=h["occ"])) +
                  bytes(Timestamp32(ts=1)) + bytes(Timestamp32(ts=2)) +
                  bytes(QueueCongestion(congestion_queue_id=0, queue_congestion=h["cong"])) +
                  bytes(TxUtilization(tx_utilization=h["util"])))
    words = 1 + 2 + len(stack) // 4 + 1
    int_bytes = (bytes(IntShimV05(length=words)) +
                 bytes(IntMetadataV05(ins_cnt=8, max_hop_cnt=8, total_hop_cnt=len(hops), ins=0xff00)) +
                 stack + bytes(IntTailV05(dest_port=5001, dscp=0)))
    inner = Ether() / IP(src="10.0.0.1", dst=dst) / UDP(sport=5000, dport=5001) / int_bytes
    return bytes(TelemetryReportV05(f=1, seq=seq, ingress_ts=seq)) + bytes(inner)


def v2_queue(seq, node, queue, occ):
    md = bytes(QueueOccupancy(queue_id=queue, queue_occupancy=occ))
    hdr = IndividualReportV2(in_type=0, report_length=(12 + len(md)) // 4 - 1, md_length=1, q=1,
                             rep_md_bits=0x1000)
    return bytes(ReportGroupV2(seq=seq, node_id=node)) + bytes(hdr) + md


class Model:
    """Interval detection as documented: an event on a new key, a path change, or a value
    whose interval (value // width) differs from that of the last reported value."""

    def __init__(self):
        self.last = {}
        self.events = {}
        self.values = {}
        self.evvalues = {}
        self.paths = {}

    def see(self, measurement, key, value, force_new=False):
        k = (measurement, key)
        iv = value // WIDTHS.get(measurement, 1)
        self.values[k] = value
        if force_new or k not in self.last or self.last[k] != iv:
            self.last[k] = iv
            self.evvalues[k] = value
            self.events[measurement] = self.events.get(measurement, 0) + 1

    def flow(self, dst, hops):
        path = [h["switch"] for h in hops]
        changed = self.paths.get(dst) is not None and self.paths[dst] != path
        if self.paths.get(dst) != path:
            self.events["flow_path"] = self.events.get("flow_path", 0) + 1
        self.paths[dst] = path
        self.see("flow_latency", dst, sum(h["lat"] for h in hops))
        for h in hops:
            self.see("hop_latency", (dst, h["switch"]), h["lat"], force_new=changed)
            self.see("link_utilization", (h["switch"], h["port"]), h["util"])
            self.see("queue_occupancy", (h["switch"], 0), h["occ"])
            self.see("queue_congestion", (h["switch"], 0), h["cong"])


def main():
    host, port, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    model = Model()
    seq = 0
    sent = 0

    def hop(switch, lat, util, occ, port=2, cong=0):
        return {"switch": switch, "lat": lat, "util": util, "occ": occ, "port": port, "cong": cong}

    # Two flows over a three-switch path; queues build up at switch 2, then flow A moves
    # to switch 5, and a v2.x queue report comes from switch 9.
    script = []
    for step in range(12):
        occ2 = 5 + step * 7          # crosses a 10-wide interval most steps
        lat2 = 150 + step * 30       # crosses a 100-wide interval every few steps
        path_a = [1, 2, 3] if step < 8 else [1, 5, 3]
        script.append(("10.0.1.1", [hop(path_a[0], 40, 300, 1),
                                    hop(path_a[1], lat2, 900 + step, occ2),
                                    hop(path_a[2], 60, 310, 2, cong=step)]))
        script.append(("10.0.1.2", [hop(1, 45, 300, 1, port=4), hop(2, lat2 + 5, 900 + step, occ2),
                                    hop(3, 61, 310, 2, cong=step)]))
    for dst, hops in script:
        seq += 1
        sock.sendto(v05(seq, dst, hops), (host, port))
        model.flow(dst, hops)
        sent += 1
        time.sleep(0.005)
    for i, occ in enumerate([100, 104, 111, 250]):
        seq += 1
        sock.sendto(v2_queue(seq, 9, 3, occ), (host, port))
        model.see("queue_occupancy", (9, 3), occ)
        sent += 1
        time.sleep(0.005)
    # Garbage and a report with a reserved instruction bit: both rejected with reasons.
    sock.sendto(b"\x30garbage", (host, port))
    bad = bytearray(v05(seq + 1, "10.0.1.3", [hop(1, 1, 1, 1)]))
    bad[12 + 14 + 20 + 8 + 4 + 5] = 0x80  # low byte of the instruction bitmap
    sock.sendto(bytes(bad), (host, port))

    def by_measurement(values):
        out = {}
        for (m, key), v in values.items():
            out.setdefault(m, []).append({"key": list(key) if isinstance(key, tuple) else [key], "value": v})
        return out

    # InfluxDB holds events: the value of each key's last event. The gauges on /metrics
    # hold the latest value reported.
    with open(out, "w") as f:
        json.dump({"reports": sent, "events": model.events, "last": by_measurement(model.values),
                   "last_event": by_measurement(model.evvalues),
                   "rejected": {"version_unknown": 1, "unknown_instruction_bits": 1}}, f, indent=1)


if __name__ == "__main__":
    main()
