#!/usr/bin/env python3
"""A few flows into one switch port (client 32), DropTail or DCTCP, on
planck-emu and on the ns-3 reference with the settings of accuracy.py:
per flow the FCT (to the last byte at the receiver), the segments sent
again, timeouts and (ns-3) fast recoveries. The microbenchmark behind
docs/emulator.md "Discrepancies" 4, 9 and 10; ns-3's cwnd trace is left in
OUT/NAME/ns3_cwnd.csv.

    python3 emulator/accuracy/one_port.py --name two 0:3000:0 2:3000:0
    python3 emulator/accuracy/one_port.py --name three 0:3000:0 5:3000:137.3 11:2000:611.7

Each flow is SRC:PACKETS:START_US (SRC a server, 0-31).
"""
import argparse
import csv
import os
import subprocess
import sys

import accuracy as A


def flow_arg(s):
    try:
        src, pkts, start = s.split(":")
        f = (int(src), int(pkts), float(start))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{s!r}: want SRC:PACKETS:START_US")
    if not 0 <= f[0] < A.SERVERS or f[1] < 1 or f[2] < 0:
        raise argparse.ArgumentTypeError(f"{s!r}: SRC in 0..{A.SERVERS - 1}, PACKETS >= 1, START_US >= 0")
    return f


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("flows", nargs="+", type=flow_arg)
    ap.add_argument("--name", default="one_port")
    ap.add_argument("--scheme", choices=("droptail", "dctcp", "red"), default="droptail")
    ap.add_argument("--out", default=os.path.join(A.ROOT, "target", "micro"))
    ap.add_argument("--host-jitter-ns", type=float, default=None,
                    help="reference's host jitter, ns (fct_ref --hostJitterNs; default: accuracy.py's for the scheme)")
    ap.add_argument("--host-jitter-mode", choices=("centred", "added"), default=A.HOST_JITTER_MODE,
                    help="centred: the reference's host link delay shortened by J / 2 (fct_ref "
                         "--hostJitterCentred); added: not (default %(default)s)")
    ap.add_argument("--seed", type=int, default=1,
                    help="the run's seed on both sides: the reference's host jitter, the emulator's send order")
    ap.add_argument("--emu", default=os.path.join(A.ROOT, "target", "release", "planck-emu"))
    a = ap.parse_args()
    if len({(s, t) for s, _, t in a.flows}) != len(a.flows):
        ap.error("two flows with the same source and start")
    if not os.path.exists(a.emu):
        sys.exit(f"one_port: {a.emu} missing: cargo build -p planck-emu --release")
    jitter = A.HOST_JITTER_NS[a.scheme] if a.host_jitter_ns is None else a.host_jitter_ns
    if not 0 <= jitter < 1e6:
        ap.error("--host-jitter-ns in [0, 1e6)")
    if a.host_jitter_mode == "centred" and A.centred_jitter_error(jitter):
        ap.error(A.centred_jitter_error(jitter))
    d = os.path.join(a.out, a.name)
    os.makedirs(d, exist_ok=True)
    exe = A.build_ns3(a.out)
    fc = os.path.join(d, "flows.csv")
    with open(fc, "w") as f:
        f.write("id,src,dst,bytes,start_us\n")
        for i, (src, pkts, start) in enumerate(a.flows):
            f.write(f"{i},{src},32,{pkts * A.PAYLOAD},{start:.3f}\n")
    A.run_emu(a.emu, fc, a.scheme, d, a.seed)
    emu = list(csv.DictReader(open(os.path.join(d, "emu", "flows.csv"))))
    out = os.path.join(d, "ns3.csv")
    subprocess.run([exe, f"--flows={fc}", f"--out={out}", f"--trace={os.path.join(d, 'ns3_cwnd.csv')}"]
                   + A.ns3_args(a.scheme, a.seed, jitter, a.host_jitter_mode == "centred"), check=True, stderr=subprocess.DEVNULL)
    ref = {int(r["id"]): r for r in csv.DictReader(open(out))}
    for i, (src, pkts, start) in enumerate(a.flows):
        r = ref[i]
        # The emulator starts a flow at the slot its start falls in.
        e = min((x for x in emu if int(x["src"]) == src), key=lambda x: abs(float(x["start_us"]) - start))
        print(f"flow {i} (server {src}, {pkts} packets, start {start} us): "
              f"ns-3 {float(r['rx_fct_us']):9.1f} us, resent {r['retransmits']:>5}, timeouts {r['timeouts']}, "
              f"recoveries {r['recoveries']} | planck-emu {float(e['rx_fct_us']):9.1f} us, "
              f"resent {e['retransmits']:>5}, timeouts {e['timeouts']}")


if __name__ == "__main__":
    main()
