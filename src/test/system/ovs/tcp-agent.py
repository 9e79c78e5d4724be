#!/usr/bin/env python3
"""A host of the OVS lab: real Linux TCP flows of a fixed size, driven on stdin.

Runs inside a host's network namespace. It accepts any number of connections on port 5001
(each is read to its end, then closed: the sender's close completes once every byte is in),
and sends flows on command:

    send ID DST_IP SPORT DPORT BYTES      -> (later) done ID START_US FINISH_US BYTES RETRANS RTOS
                                             or     fail ID REASON
    quit

START_US is taken before connect, FINISH_US when the receiver has read every byte and closed
(its FIN reached the sender), both on the Unix epoch clock. RETRANS and RTOS are the sender's
tcp_info tcpi_total_retrans (segments sent again) and tcpi_total_rto (retransmission timeouts,
Linux 6.7+; -1 where the kernel does not report it).
"""
import socket
import struct
import sys
import threading
import time

LISTEN_PORT = 5001
CHUNK = bytes(65536)
TCP_INFO_LEN = 248
TOTAL_RETRANS_AT = 100
TOTAL_RTO_AT = 240
# Every sender's congestion control: Linux's default, whatever the namespace's own default is.
CONGESTION_CONTROL = b"cubic"

out_lock = threading.Lock()


def say(line):
    with out_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def now_us():
    return time.time_ns() // 1000


def drain(conn):
    try:
        while conn.recv(65536):
            pass
    except OSError:
        pass
    finally:
        conn.close()


def serve(srv):
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=drain, args=(conn,), daemon=True).start()


def send(fid, dst, sport, dport, size):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, CONGESTION_CONTROL)
        s.bind(("0.0.0.0", sport))
        start = now_us()
        s.settimeout(120)
        s.connect((dst, dport))
        left = size
        while left > 0:
            n = s.send(CHUNK[:min(left, len(CHUNK))])
            left -= n
        s.shutdown(socket.SHUT_WR)
        while s.recv(4096):
            pass
        finish = now_us()
        info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO_LEN)
        retrans = struct.unpack_from("I", info, TOTAL_RETRANS_AT)[0]
        rtos = struct.unpack_from("H", info, TOTAL_RTO_AT)[0] if len(info) >= TOTAL_RTO_AT + 2 else -1
        say("done %d %d %d %d %d %d" % (fid, start, finish, size, retrans, rtos))
    except OSError as e:
        say("fail %d %s" % (fid, str(e).replace("\n", " ")))
    finally:
        s.close()


def main():
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", LISTEN_PORT))
    srv.listen(256)
    threading.Thread(target=serve, args=(srv,), daemon=True).start()
    say("ready")
    for line in sys.stdin:
        w = line.split()
        if not w:
            continue
        if w[0] == "quit":
            break
        if w[0] == "send" and len(w) == 6:
            try:
                fid, sport, dport, size = int(w[1]), int(w[3]), int(w[4]), int(w[5])
                socket.inet_aton(w[2])
            except (ValueError, OSError):
                say("fail -1 bad command: " + line.strip())
                continue
            threading.Thread(target=send, args=(fid, w[2], sport, dport, size), daemon=True).start()
        else:
            say("fail -1 bad command: " + line.strip())


if __name__ == "__main__":
    main()
