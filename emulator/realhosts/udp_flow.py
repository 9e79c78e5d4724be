#!/usr/bin/env python3
"""A paced UDP flow between two real hosts, counted at both ends (docs/emulator.md, "System test").

    udp_flow.py recv --bind IP:PORT [--from IP:PORT] --seconds S --out recv.json
    udp_flow.py send --to IP:PORT [--port P] --mbps R [--len 1472] [--tos 0] --seconds S --out send.json

The sender paces datagrams of --len payload bytes at --mbps (IP bytes: payload + 28), each
carrying its sequence number, with IP TOS --tos; it writes how many it sent and over how long.
The receiver counts datagrams, distinct sequence numbers and bytes until --seconds have passed
or 1 s after traffic stopped.

Why not iperf3 -u: its server sleeps in select() and is woken for every datagram, and behind an
emulator that wake-up (an IPI to the other core) runs in the softirq of the emulator's own write
to the veth, on the emulator's core. This receiver never sleeps on the socket: it wakes on a
timer every millisecond and drains the socket, so a datagram's arrival wakes nobody. Its receive
buffer (8 MB) holds tens of milliseconds of a 1 Gb/s flow; what overflows it is counted by the
kernel (nstat UdpRcvbufErrors) and shows here as loss.
"""
import argparse
import json
import socket
import struct
import sys
import time

HEADER = struct.Struct("!Q")  # sequence number
IP_UDP = 28  # IPv4 + UDP headers
# The sender catches up at most this much after a stall (a descheduled sender would otherwise
# send a burst the flow never had); what it skips is not sent and not counted as sent.
MAX_DEBT_S = 0.005


def addr(s):
    host, _, port = s.rpartition(":")
    if not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected IP:PORT, got {s!r}")
    return host, int(port)


def send(a):
    if a.len < HEADER.size or a.len > 65507:
        sys.exit(f"udp_flow: --len must be {HEADER.size}..65507")
    if a.mbps <= 0 or a.seconds <= 0:
        sys.exit("udp_flow: --mbps and --seconds must be positive")
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, a.tos)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    if a.port:
        s.bind(("0.0.0.0", a.port))
    s.connect(a.to)
    pps = a.mbps * 1e6 / ((a.len + IP_UDP) * 8)
    payload = bytearray(a.len)
    sent = skipped = errors = 0
    t0 = time.monotonic()
    end = t0 + a.seconds
    while True:
        now = time.monotonic()
        if now >= end:
            break
        due = int((now - t0) * pps)
        debt = due - (sent + skipped + errors)
        if debt > pps * MAX_DEBT_S:
            skipped += debt - int(pps * MAX_DEBT_S)
        while sent + skipped + errors < due:
            HEADER.pack_into(payload, 0, sent + skipped + errors)
            try:
                s.send(payload)
                sent += 1
            except (BlockingIOError, ConnectionRefusedError, OSError):
                errors += 1
        time.sleep(0.0002)
    took = time.monotonic() - t0
    out = {"sent": sent, "skipped": skipped, "send_errors": errors, "seconds": took,
           "ip_bytes": sent * (a.len + IP_UDP), "target_mbps": a.mbps,
           "sent_mbps": sent * (a.len + IP_UDP) * 8 / took / 1e6, "tos": a.tos}
    json.dump(out, open(a.out, "w"))


def recv(a):
    if a.seconds <= 0:
        sys.exit("udp_flow: --seconds must be positive")
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:  # root may go past net.core.rmem_max
        s.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.bind(a.bind)
    if a.sender:
        # Connected, the socket is found by early demux: no route lookup per datagram.
        s.connect(a.sender)
    s.setblocking(False)
    buf = bytearray(65536)
    seen = set()
    frames = ip_bytes = 0
    first = last = None
    end = time.monotonic() + a.seconds
    while True:
        now = time.monotonic()
        if now >= end or (last is not None and now - last > 1.0):
            break
        got = False
        while True:
            try:
                n = s.recv_into(buf)
            except BlockingIOError:
                break
            got = True
            frames += 1
            ip_bytes += n + IP_UDP
            if n >= HEADER.size:
                seen.add(HEADER.unpack_from(buf, 0)[0])
        if got:
            last = time.monotonic()
            first = first if first is not None else last
        time.sleep(0.001)
    out = {"received": frames, "distinct": len(seen), "ip_bytes": ip_bytes,
           "active_seconds": (last - first) if first is not None else 0.0}
    json.dump(out, open(a.out, "w"))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("recv")
    r.add_argument("--bind", type=addr, required=True)
    r.add_argument("--from", dest="sender", type=addr, help="the sender's IP:PORT (takes only its datagrams)")
    r.add_argument("--seconds", type=float, required=True)
    r.add_argument("--out", required=True)
    t = sub.add_parser("send")
    t.add_argument("--to", type=addr, required=True)
    t.add_argument("--mbps", type=float, required=True)
    t.add_argument("--port", type=int, default=0, help="source port (default: any)")
    t.add_argument("--len", type=int, default=1472)
    t.add_argument("--tos", type=lambda v: int(v, 0), default=0)
    t.add_argument("--seconds", type=float, required=True)
    t.add_argument("--out", required=True)
    a = p.parse_args()
    (send if a.cmd == "send" else recv)(a)


if __name__ == "__main__":
    main()
