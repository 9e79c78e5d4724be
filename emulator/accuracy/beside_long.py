#!/usr/bin/env python3
"""Microbenchmark behind docs/emulator.md "Discrepancies" 6-8: short flows
beside long ones through one switch port, on planck-emu and on the ns-3
reference, with the settings of accuracy.py. N long flows (40,000 packets,
servers 0, 2, ...) start together into client 32; every 400-600 us a short
flow of 1, 5, 10, 20, 40 or 68 packets (random.Random(7)) starts from an
odd-numbered server to the same client. Prints the mean FCT (to the last
byte at the receiver) per size on both sides.

    python3 emulator/accuracy/beside_long.py --scheme dctcp --long 2 --out target/micro
"""
import argparse
import csv
import os
import random
import statistics
import subprocess
import sys

import accuracy as A


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scheme", choices=("droptail", "dctcp"), default="dctcp")
    ap.add_argument("--long", type=int, default=2, help="long flows (1-16)")
    ap.add_argument("--out", default=os.path.join(A.ROOT, "target", "micro"))
    ap.add_argument("--emu", default=os.path.join(A.ROOT, "target", "release", "planck-emu"))
    a = ap.parse_args()
    if not 1 <= a.long <= 16:
        ap.error("--long is 1..16")
    if not os.path.exists(a.emu):
        sys.exit(f"beside_long: {a.emu} missing: cargo build -p planck-emu --release")
    d = os.path.join(a.out, f"{a.scheme}_{a.long}")
    os.makedirs(d, exist_ok=True)
    exe = A.build_ns3(a.out)
    rng = random.Random(7)
    sizes = [1, 5, 10, 20, 40, 68]
    flows = [(2 * i, 40000, 0.0) for i in range(a.long)]
    t = 2000.0
    while t < 40000 * 1.2 * a.long - 2000:
        flows.append((1 + 2 * rng.randrange(8), rng.choice(sizes), t))
        t += 400 + rng.random() * 200
    fc = os.path.join(d, "flows.csv")
    with open(fc, "w") as f:
        f.write("id,src,dst,bytes,start_us\n")
        for i, (src, pkts, start) in enumerate(flows):
            f.write(f"{i},{src},32,{pkts * A.PAYLOAD},{start:.3f}\n")
    emu = A.run_emu(a.emu, fc, a.scheme, d, 1)
    A.run_ns3_fresh(exe, fc, a.scheme, os.path.join(d, "ns3.csv"))
    ref = {int(r["id"]): float(r["rx_fct_us"]) for r in csv.DictReader(open(os.path.join(d, "ns3.csv")))}
    for pkts in [40000] + sizes:
        ids = [i for i, f in enumerate(flows) if f[1] == pkts]
        r = statistics.mean(ref[i] for i in ids)
        e = statistics.mean(emu[i] for i in ids)
        print(f"{a.scheme} {a.long} long, {pkts:6} packets, n = {len(ids):3}: ns-3 {r:9.1f} us, "
              f"planck-emu {e:9.1f} us ({100 * (e / r - 1):+.1f} %)")


if __name__ == "__main__":
    main()
