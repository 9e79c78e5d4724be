#!/usr/bin/env python3
"""PINT latency quantiles on the emulated fabric under load, against exact values.

For 4 and 8 latency bits and seeds 1..N: one planck-emu run of base.toml (k = 4 fat
tree, DCTCP, web search at 70 % load). The probe (emulator/src/pint_probe.rs) writes,
for every tracked (flow, hop) at 100, 500, 2000, 5000 and 10000 packets of the flow,
the sink's median and p99 of the hop latency next to the exact ones. This script
averages the relative errors over all (flow, hop) pairs and seeds per (bits, packets),
with a 95 % normal interval, and the sketch bytes per (flow, hop).

    python3 emulator/experiments/pint_latency/run.py --emu target/release/planck-emu --out target/pint-latency
"""
import argparse
import csv
import math
import os
import subprocess
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))


def mean_ci(xs):
    n = len(xs)
    if n == 0:
        return float("nan"), float("nan")
    m = sum(xs) / n
    if n < 2:
        return m, float("nan")
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    return m, 1.96 * sd / math.sqrt(n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--emu", default="target/release/planck-emu")
    ap.add_argument("--out", default="target/pint-latency")
    ap.add_argument("--seeds", type=int, default=3)
    a = ap.parse_args()
    emu = os.path.abspath(a.emu)
    rows = defaultdict(list)
    for bits in (4, 8):
        for seed in range(1, a.seeds + 1):
            d = os.path.abspath(os.path.join(a.out, f"bits{bits}-seed{seed}"))
            os.makedirs(d, exist_ok=True)
            text = open(os.path.join(HERE, "base.toml")).read()
            for k, v in {"LATBITS": bits, "SEED": seed, "OUTDIR": d}.items():
                text = text.replace(k, str(v))
            cfg = os.path.join(d, "config.toml")
            open(cfg, "w").write(text)
            subprocess.run([emu, "run", "--config", cfg], check=True, stdout=subprocess.DEVNULL)
            with open(os.path.join(d, "pint_latency.csv")) as f:
                n = 0
                for r in csv.DictReader(f):
                    rows[(bits, int(r["packets"]))].append(r)
                    n += 1
            print(f"stage bits {bits} seed {seed}: {n} comparisons", file=sys.stderr)
    lines = [f"Seeds 1..{a.seeds}; mean over (flow, hop) pairs and seeds +- 95 % normal half-width.", "",
             "| bits | packets per flow | (flow, hop) pairs | samples per hop (mean) | median rel. error | p99 rel. error | sketch bytes per (flow, hop) (mean / max) |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
    for (bits, pk) in sorted(rows):
        rs = rows[(bits, pk)]
        e50, c50 = mean_ci([float(r["p50_rel_err"]) for r in rs])
        e99, c99 = mean_ci([float(r["p99_rel_err"]) for r in rs])
        samples = sum(int(r["samples"]) for r in rs) / len(rs)
        sb = [int(r["sketch_bytes"]) for r in rs]
        lines.append(f"| {bits} | {pk} | {len(rs)} | {samples:.0f} | {100 * e50:.2f} % +- {100 * c50:.2f} | "
                     f"{100 * e99:.2f} % +- {100 * c99:.2f} | {sum(sb) / len(sb):.0f} / {max(sb)} |")
    table = "\n".join(lines)
    print(table)
    os.makedirs(a.out, exist_ok=True)
    open(os.path.join(a.out, "table.md"), "w").write(table + "\n")


if __name__ == "__main__":
    main()
