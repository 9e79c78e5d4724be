#!/usr/bin/env python3
"""Telemetry reports built with scapy, as an encoder independent of the collector.

The header classes below are written from the INT and telemetry report specifications
(v0.5, v1.0, v2.0/2.1): each field with its width, in order. The script writes a pcap of
Ethernet/IPv4/UDP frames to the report port and a JSON file with the values it put into
every report, for collector/tests/int_scapy.rs to compare with what the decoder reads.

usage: int_reports.py OUT.pcap OUT.json [SEED]
"""
import json
import random
import sys

from scapy.all import (IP, UDP, TCP, BitField, ByteField, Ether, IntField, IPv6,
                       LongField, Packet, ShortField, X3BytesField, wrpcap)

REPORT_PORT = 54321


# ---- telemetry report and INT v0.5 ----
class TelemetryReportV05(Packet):
    name = "Telemetry report v0.5"
    fields_desc = [BitField("ver", 0, 4), BitField("nproto", 0, 4),
                   BitField("d", 0, 1), BitField("q", 0, 1), BitField("f", 0, 1),
                   BitField("rsvd", 0, 15), BitField("hw_id", 0, 6),
                   IntField("seq", 0), IntField("ingress_ts", 0)]


class IntShimV05(Packet):
    name = "INT v0.5 shim over TCP/UDP"
    fields_desc = [ByteField("type", 1), ByteField("rsvd1", 0),
                   ByteField("length", 0), ByteField("rsvd2", 0)]


class IntMetadataV05(Packet):
    name = "INT v0.5 metadata header"
    fields_desc = [BitField("ver", 0, 2), BitField("rep", 0, 2), BitField("c", 0, 1),
                   BitField("e", 0, 1), BitField("r", 0, 5), BitField("ins_cnt", 0, 5),
                   ByteField("max_hop_cnt", 8), ByteField("total_hop_cnt", 0),
                   ShortField("ins", 0), ShortField("rsvd", 0)]


class IntTailV05(Packet):
    name = "INT v0.5 tail"
    fields_desc = [ByteField("next_proto", 17), ShortField("dest_port", 0), ByteField("dscp", 0)]


# ---- telemetry report and INT v1.0 ----
class TelemetryReportV10(Packet):
    name = "Telemetry report v1.0"
    fields_desc = [BitField("ver", 1, 4), BitField("len", 4, 4), BitField("nproto", 0, 3),
                   BitField("rep_md_bits", 0, 6), BitField("rsvd", 0, 6),
                   BitField("d", 0, 1), BitField("q", 0, 1), BitField("f", 0, 1),
                   BitField("hw_id", 0, 6), IntField("switch_id", 0), IntField("seq", 0),
                   IntField("ingress_ts", 0)]


class IntShimV10(Packet):
    name = "INT v1.0 shim over TCP/UDP"
    fields_desc = [ByteField("type", 1), ByteField("rsvd1", 0), ByteField("length", 0),
                   BitField("dscp", 0, 6), BitField("rsvd2", 0, 2)]


class IntMetadataV10(Packet):
    name = "INT v1.0 metadata header"
    fields_desc = [BitField("ver", 1, 4), BitField("rep", 0, 2), BitField("c", 0, 1),
                   BitField("e", 0, 1), BitField("m", 0, 1), BitField("rsvd1", 0, 7),
                   BitField("rsvd2", 0, 3), BitField("hop_ml", 0, 5),
                   ByteField("remaining_hop_cnt", 0), ShortField("ins", 0),
                   ShortField("rsvd3", 0)]


# ---- telemetry report v2.0/2.1 and INT-MD v2 ----
class ReportGroupV2(Packet):
    name = "Telemetry report v2 group header"
    fields_desc = [BitField("ver", 2, 4), BitField("hw_id", 0, 6), BitField("seq", 0, 22),
                   IntField("node_id", 0)]


class IndividualReportV2(Packet):
    name = "Telemetry report v2 individual report header"
    fields_desc = [BitField("rep_type", 1, 4), BitField("in_type", 0, 4),
                   ByteField("report_length", 0), ByteField("md_length", 0),
                   BitField("d", 0, 1), BitField("q", 0, 1), BitField("f", 0, 1),
                   BitField("i", 0, 1), BitField("rsvd", 0, 4),
                   ShortField("rep_md_bits", 0), ShortField("domain_id", 0),
                   ShortField("ds_md_bits", 0), ShortField("ds_md_status", 0)]


class IntShimV2(Packet):
    name = "INT v2 shim over TCP/UDP"
    fields_desc = [BitField("type", 1, 4), BitField("npt", 0, 2), BitField("rsvd1", 0, 2),
                   ByteField("length", 0), ByteField("rsvd2", 0),
                   BitField("dscp", 0, 6), BitField("rsvd3", 0, 2)]


class IntMdV2(Packet):
    name = "INT-MD v2 metadata header"
    fields_desc = [BitField("ver", 2, 4), BitField("d", 0, 1), BitField("e", 0, 1),
                   BitField("m", 0, 1), BitField("rsvd", 0, 12), BitField("hop_ml", 0, 5),
                   ByteField("remaining_hop_cnt", 0), ShortField("ins", 0),
                   ShortField("domain_id", 0), ShortField("ds_ins", 0),
                   ShortField("ds_flags", 0)]


# ---- per-hop metadata, one class per instruction bit ----
class SwitchId(Packet):
    fields_desc = [IntField("switch_id", 0)]


class L1Ports(Packet):
    fields_desc = [ShortField("ingress_port", 0), ShortField("egress_port", 0)]


class HopLatency(Packet):
    fields_desc = [IntField("hop_latency", 0)]


class QueueOccupancy(Packet):
    fields_desc = [ByteField("queue_id", 0), X3BytesField("queue_occupancy", 0)]


class Timestamp32(Packet):
    fields_desc = [IntField("ts", 0)]


class Timestamp64(Packet):
    fields_desc = [LongField("ts", 0)]


class L2Ports(Packet):
    fields_desc = [IntField("l2_ingress_port", 0), IntField("l2_egress_port", 0)]


class TxUtilization(Packet):
    fields_desc = [IntField("tx_utilization", 0)]


class BufferOccupancy(Packet):
    fields_desc = [ByteField("buffer_id", 0), X3BytesField("buffer_occupancy", 0)]


class QueueCongestion(Packet):
    fields_desc = [ByteField("congestion_queue_id", 0), X3BytesField("queue_congestion", 0)]


class ChecksumComplement(Packet):
    fields_desc = [IntField("value", 0)]


class DropReason(Packet):
    fields_desc = [ByteField("drop_queue_id", 0), ByteField("drop_reason", 0),
                   ShortField("pad", 0)]


# bit (0 = MSB) -> (class, {field of the class: key of the expected hop})
V05_BITS = {
    0: (SwitchId, {"switch_id": "switch_id"}),
    1: (L1Ports, {"ingress_port": "ingress_port", "egress_port": "egress_port"}),
    2: (HopLatency, {"hop_latency": "hop_latency"}),
    3: (QueueOccupancy, {"queue_id": "queue_id", "queue_occupancy": "queue_occupancy"}),
    4: (Timestamp32, {"ts": "ingress_ts"}),
    5: (Timestamp32, {"ts": "egress_ts"}),
    6: (QueueCongestion, {"congestion_queue_id": "congestion_queue_id",
                          "queue_congestion": "queue_congestion"}),
    7: (TxUtilization, {"tx_utilization": "tx_utilization"}),
}
V1_BITS = {
    0: V05_BITS[0], 1: V05_BITS[1], 2: V05_BITS[2], 3: V05_BITS[3],
    4: (Timestamp64, {"ts": "ingress_ts"}),
    5: (Timestamp64, {"ts": "egress_ts"}),
    6: (L2Ports, {"l2_ingress_port": "l2_ingress_port", "l2_egress_port": "l2_egress_port"}),
    7: V05_BITS[7],
    8: (BufferOccupancy, {"buffer_id": "buffer_id", "buffer_occupancy": "buffer_occupancy"}),
    15: (ChecksumComplement, {}),
}
REPORT_V2_BITS = dict(V1_BITS)
REPORT_V2_BITS[15] = (DropReason, {"drop_queue_id": "drop_queue_id", "drop_reason": "drop_reason"})

FIELD_BITS = {"switch_id": 32, "ingress_port": 16, "egress_port": 16, "hop_latency": 32,
              "queue_id": 8, "queue_occupancy": 24, "l2_ingress_port": 32,
              "l2_egress_port": 32, "tx_utilization": 32, "buffer_id": 8,
              "buffer_occupancy": 24, "congestion_queue_id": 8, "queue_congestion": 24,
              "drop_queue_id": 8, "drop_reason": 8}


def random_hop(rng, bits, bitmap, ts_bits):
    """Values for every field the bitmap asks for, and the encoded metadata."""
    hop, raw = {}, b""
    for bit in range(16):
        if not bitmap & (0x8000 >> bit):
            continue
        cls, names = bits[bit]
        kwargs = {}
        for field, key in names.items():
            width = ts_bits if key.endswith("_ts") else FIELD_BITS[key]
            v = rng.getrandbits(width)
            kwargs[field] = v
            hop[key] = v
        if cls is ChecksumComplement:
            kwargs["value"] = rng.getrandbits(32)
        raw += bytes(cls(**kwargs))
    return hop, raw


def random_bitmap(rng, bits):
    b = 0
    for bit in bits:
        if rng.random() < 0.5:
            b |= 0x8000 >> bit
    return b


def inner_packet(rng, framing, l4_payload):
    v6 = rng.random() < 0.3
    tcp = rng.random() < 0.4
    sport, dport = rng.randrange(1, 65536), rng.randrange(1, 65536)
    if v6:
        src, dst = "2001:db8::%x" % rng.randrange(1, 65536), "2001:db8:1::%x" % rng.randrange(1, 65536)
        ip = IPv6(src=src, dst=dst, tc=0x17 << 2)
    else:
        src, dst = "10.0.%d.%d" % (rng.randrange(256), rng.randrange(1, 255)), "10.1.%d.%d" % (rng.randrange(256), rng.randrange(1, 255))
        ip = IP(src=src, dst=dst, tos=0x17 << 2)
    l4 = TCP(sport=sport, dport=dport, flags="PA") if tcp else UDP(sport=sport, dport=dport)
    pkt = ip / l4 / l4_payload
    if framing == "ethernet":
        pkt = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / pkt
    flow = {"src": src, "dst": dst, "proto": 6 if tcp else 17, "sport": sport, "dport": dport}
    code = 0 if framing == "ethernet" else (2 if v6 else 1)
    return bytes(pkt), flow, code


def outer(payload):
    return (Ether(src="02:00:00:00:00:10", dst="02:00:00:00:00:20") /
            IP(src="192.168.0.1", dst="192.168.0.2") /
            UDP(sport=5000, dport=REPORT_PORT) / payload)


def v05_report(rng):
    bitmap = random_bitmap(rng, range(8))
    n = rng.randrange(0, 7)
    hops, stack = [], b""
    for _ in range(n):
        h, raw = random_hop(rng, V05_BITS, bitmap, 32)
        hops.append(h)
        stack += raw
    dscp = rng.randrange(64)
    words = 1 + 2 + len(stack) // 4 + 1
    int_bytes = (bytes(IntShimV05(length=words)) +
                 bytes(IntMetadataV05(ins_cnt=bin(bitmap).count("1"), max_hop_cnt=8,
                                      total_hop_cnt=n, ins=bitmap)) +
                 stack + bytes(IntTailV05(dest_port=5001, dscp=dscp)))
    framing = rng.choice(["ethernet", "ip"])
    inner, flow, code = inner_packet(rng, framing, int_bytes)
    hdr = TelemetryReportV05(nproto=code, f=1, hw_id=rng.randrange(64),
                             seq=rng.getrandbits(32), ingress_ts=rng.getrandbits(32))
    exp = {"version": "0.5", "hw_id": hdr.hw_id, "seq": hdr.seq, "report_ts": hdr.ingress_ts,
           "flags": [0, 0, 1, 0], "flow": flow, "instructions": bitmap, "hops": hops,
           "hop_budget": 8, "original_dscp": dscp}
    return bytes(hdr) + inner, [exp]


def v10_report(rng):
    bitmap = random_bitmap(rng, [0, 1, 2, 3, 4, 5, 6, 7, 8, 15])
    n = rng.randrange(0, 7) if bitmap else 0
    hops, stack = [], b""
    for _ in range(n):
        h, raw = random_hop(rng, V1_BITS, bitmap, 64)
        hops.append(h)
        stack += raw
    hop_ml = (len(stack) // n // 4) if n else sum(
        {4: 2, 5: 2, 6: 2}.get(b, 1) for b in V1_BITS if bitmap & (0x8000 >> b))
    dscp = rng.randrange(64)
    int_bytes = (bytes(IntShimV10(length=3 + len(stack) // 4, dscp=dscp)) +
                 bytes(IntMetadataV10(hop_ml=hop_ml, remaining_hop_cnt=8 - n, ins=bitmap)) + stack)
    framing = rng.choice(["ethernet", "ip"])
    inner, flow, code = inner_packet(rng, framing, int_bytes)
    d, q = rng.randrange(2), rng.randrange(2)
    hdr = TelemetryReportV10(nproto=code, d=d, q=q, f=1, hw_id=rng.randrange(64),
                             switch_id=rng.getrandbits(32), seq=rng.getrandbits(32),
                             ingress_ts=rng.getrandbits(32))
    exp = {"version": "1.0", "hw_id": hdr.hw_id, "seq": hdr.seq, "report_ts": hdr.ingress_ts,
           "node_id": hdr.switch_id, "flags": [d, q, 1, 0], "flow": flow,
           "instructions": bitmap, "hops": hops, "hop_budget": 8 - n, "original_dscp": dscp}
    return bytes(hdr) + inner, [exp]


def v2_individual(rng, kind):
    """kind: 'int' (tracked flow, INT-MD), 'drop' or 'queue'."""
    if kind == "drop":
        rep_bits = 0x8001 | random_bitmap(rng, [1, 2])
    elif kind == "queue":
        rep_bits = 0x1000 | random_bitmap(rng, [0, 7])
    else:
        rep_bits = random_bitmap(rng, [0, 1, 2, 3, 4, 5, 6, 7, 8])
    local, md = random_hop(rng, REPORT_V2_BITS, rep_bits, 64)
    int_bytes, hops, bitmap, dscp = b"", [], None, None
    if kind == "int":
        bitmap = random_bitmap(rng, [0, 1, 2, 3, 4, 5, 6, 7, 8, 15]) or 0x8000
        n = rng.randrange(1, 7)
        stack = b""
        for _ in range(n):
            h, raw = random_hop(rng, V1_BITS, bitmap, 64)
            hops.append(h)
            stack += raw
        dscp = rng.randrange(64)
        int_bytes = (bytes(IntShimV2(length=3 + len(stack) // 4, dscp=dscp)) +
                     bytes(IntMdV2(hop_ml=len(stack) // n // 4, remaining_hop_cnt=4, ins=bitmap)) + stack)
    framing = rng.choice(["ethernet", "ip"])
    inner, flow, code = inner_packet(rng, framing, int_bytes)
    inner += b"\0" * (-len(inner) % 4)
    in_type = {0: 3, 1: 4, 2: 5}[code]
    body_len = 12 + len(md) + len(inner)
    hdr = IndividualReportV2(in_type=in_type, report_length=body_len // 4 - 1,
                             md_length=len(md) // 4, d=int(kind == "drop"),
                             q=int(kind == "queue"), f=int(kind == "int"),
                             rep_md_bits=rep_bits)
    exp = {"version": "2", "flags": [int(kind == "drop"), int(kind == "queue"), int(kind == "int"), 0],
           "flow": flow, "local_bits": rep_bits, "local": local}
    if kind == "int":
        exp.update({"instructions": bitmap, "hops": hops, "hop_budget": 4, "original_dscp": dscp})
    else:
        exp.update({"hops": [], "original_dscp": 0x17})
    return bytes(hdr) + md + inner, exp


def v2_report(rng):
    kinds = [rng.choice(["int", "int", "drop", "queue"]) for _ in range(rng.randrange(1, 4))]
    group = ReportGroupV2(hw_id=rng.randrange(64), seq=rng.getrandbits(22), node_id=rng.getrandbits(32))
    payload, exps = bytes(group), []
    for k in kinds:
        b, e = v2_individual(rng, k)
        e.update({"hw_id": group.hw_id, "seq": group.seq, "node_id": group.node_id})
        payload += b
        exps.append(e)
    return payload, exps


def main():
    pcap, out_json = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 14
    rng = random.Random(seed)
    frames, expected = [], []
    for i in range(150):
        payload, exps = [v05_report, v10_report, v2_report][i % 3](rng)
        frames.append(outer(payload))
        expected.append(exps)
    wrpcap(pcap, frames)
    with open(out_json, "w") as f:
        json.dump({"seed": seed, "frames": expected}, f)


if __name__ == "__main__":
    main()
