#!/usr/bin/env python3
"""Timeouts apart: an accuracy.py output compared by two statistics that a
handful of retransmission timeouts does not decide (docs/emulator.md,
"Accuracy against ns-3").

A DropTail small-flow mean rests on its few flows that time out (each worth
hundreds of times its idle FCT), so per run it cannot be resolved to 5 %.
Per scheme, load and size bin, pooled over the seeds found in OUT:

- flows with at least one retransmission timeout: the reference's, the
  emulator's, and both;
- the mean normalised FCT of the flows that timed out on neither side, each
  side's, their difference and its 95 % bootstrap interval (the same flows
  resampled on both sides, as accuracy.py does per seed).

    python3 emulator/accuracy/timeouts.py target/accuracy300
"""

import argparse
import os
import random
import re
import sys

import accuracy as A
import flow_by_flow as F


def runs(out):
    """{(scheme, load): [run directory per seed]} of an accuracy.py output."""
    found = {}
    for s in sorted(os.listdir(out)):
        if not re.fullmatch(r"s\d+", s):
            continue
        for scheme in sorted(os.listdir(os.path.join(out, s))):
            for load in sorted(os.listdir(os.path.join(out, s, scheme))):
                d = os.path.join(out, s, scheme, load)
                if load != "idle" and os.path.exists(os.path.join(d, "ns3.csv")):
                    found.setdefault((scheme, load), []).append(d)
    return found


def rows_of(d):
    """Per flow of one run, by size bin: (normalised ref, normalised emu, ref timed out, emu timed out)."""
    flows, ref, emu = F.load(d)
    _, iref, iemu = F.load(os.path.join(os.path.dirname(d), "idle"))
    out = {"small": [], "medium": [], "large": []}
    for f in flows:
        i = int(f["id"])
        if not (ref[i]["rx_fct_us"] and emu[i]["rx_fct_us"]):
            continue
        out[A.size_bin(int(f["bytes"]))].append(
            (float(ref[i]["rx_fct_us"]) / float(iref[i]["rx_fct_us"]),
             float(emu[i]["rx_fct_us"]) / float(iemu[i]["rx_fct_us"]),
             int(ref[i]["timeouts"]) > 0, int(emu[i]["timeouts"]) > 0))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="an output directory of accuracy.py")
    a = ap.parse_args()
    if not os.path.isdir(a.out):
        sys.exit(f"timeouts: {a.out}: not a directory")
    found = runs(a.out)
    if not found:
        sys.exit(f"timeouts: no runs with both sides in {a.out}")
    print(f"{'scheme':9} {'load':>4} {'bin':6} {'seeds':>5} {'n':>5} {'TO ref':>6} {'TO emu':>6} {'both':>4} | "
          f"{'n no TO':>7} {'ref mean':>8} {'emu mean':>8} {'diff':>7} {'diff 95% interval':>17}")
    for (scheme, load), dirs in sorted(found.items()):
        by_bin = [rows_of(d) for d in dirs]
        for b in ("small", "medium", "large"):
            rows = [r for run in by_bin for r in run[b]]
            if not rows:
                continue
            clean = [(r[0], r[1]) for r in rows if not r[2] and not r[3]]
            line = (f"{scheme:9} {load:>4} {b:6} {len(dirs):5} {len(rows):5} {sum(r[2] for r in rows):6} "
                    f"{sum(r[3] for r in rows):6} {sum(r[2] and r[3] for r in rows):4} | {len(clean):7}")
            if clean:
                rm, em = A.mean([c[0] for c in clean]), A.mean([c[1] for c in clean])
                _, _, lo, hi = A.bootstrap(clean, random.Random(f"{scheme}/{load}/{b}/no-timeout"))
                line += (f" {rm:8.2f} {em:8.2f} {100 * (em / rm - 1):+6.1f}% "
                         f"[{100 * lo:+6.1f}%,{100 * hi:+6.1f}%]")
            print(line)


if __name__ == "__main__":
    main()
