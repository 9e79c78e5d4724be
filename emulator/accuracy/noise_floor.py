#!/usr/bin/env python3
"""How far each simulator moves from itself when only its own random draws change.

For every seed, scheme and load of an accuracy.py output, runs the same flows again on each
side with another seed (the run's seed + --reseed): the reference's host jitter (fct_ref's
--seed seeds nothing else, so a scheme without jitter, DCTCP and RED by default, comes out
the same), the emulator's send-order and schemes' draws; the flows themselves are read from
the run's flows.csv and stay the same. Prints, per run and size bin, the mean normalised FCT's
change on each side (reseeded over original, each normalised by its side's original idle
run) beside emu over ref, the same for the p99, and how many runs exceed --tol and --tol-p99. A per-seed target tighter than
what a side does against itself cannot be met by any model.

    python3 emulator/accuracy/noise_floor.py OUT --schemes droptail,dctcp,red --jobs 2
"""
import argparse
import csv
import os
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import accuracy as acc


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="an accuracy.py --out directory (both sides run)")
    ap.add_argument("--schemes", default="droptail,dctcp,red")
    ap.add_argument("--reseed", type=int, default=1000, help="added to each run's seed (default %(default)s)")
    ap.add_argument("--emu", default=os.path.join(acc.ROOT, "target", "release", "planck-emu"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--tol", type=float, default=0.05, help="the per-seed target of means to count against")
    ap.add_argument("--tol-p99", type=float, default=0.20, help="the per-seed target of p99s to count against")
    a = ap.parse_args()
    exe = os.path.join(a.out, "fct_ref")
    if not os.path.exists(exe) or not os.path.exists(a.emu):
        sys.exit(f"noise_floor: need {exe} (run accuracy.py --out {a.out} first) and {a.emu}")
    runs = []  # (seed, scheme, load, dir)
    for sd in sorted(os.listdir(a.out)):
        if not sd.startswith("s") or not sd[1:].isdigit():
            continue
        for scheme in a.schemes.split(","):
            base = os.path.join(a.out, sd, scheme)
            if not os.path.isdir(base):
                continue
            for load in sorted(x for x in os.listdir(base) if x != "idle"):
                d = os.path.join(base, load)
                if os.path.exists(os.path.join(d, "ns3.csv")) and os.path.isdir(os.path.join(d, "emu")):
                    runs.append((int(sd[1:]), scheme, load, d))
    if not runs:
        sys.exit(f"noise_floor: no finished accuracy runs of {a.schemes} in {a.out}")

    def work(run, side):
        seed, scheme, load, d = run
        rd = os.path.join(d, f"reseed{a.reseed}")
        os.makedirs(rd, exist_ok=True)
        fc = os.path.join(rd, "flows.csv")
        shutil.copyfile(os.path.join(d, "flows.csv"), fc)
        t0 = time.time()
        if side == "emu":
            # The emulator's records are matched to the flows' ids by run_emu; the original
            # seed is run again beside (the emulator is deterministic, and fast).
            od = os.path.join(rd, "orig")
            os.makedirs(od, exist_ok=True)
            shutil.copyfile(fc, os.path.join(od, "flows.csv"))
            r = (acc.run_emu(a.emu, os.path.join(od, "flows.csv"), scheme, od, seed),
                 acc.run_emu(a.emu, fc, scheme, rd, seed + a.reseed))
        elif acc.HOST_JITTER_NS[scheme] == 0:
            # fct_ref's --seed seeds the host jitter only (ns-3's own RNG run is fixed): without
            # jitter the reference draws nothing, and runs again to the same result.
            r = acc.read_ns3(os.path.join(d, "ns3.csv"))
        else:
            out = os.path.join(rd, "ns3.csv")
            if not os.path.exists(out):
                acc.run_ns3_fresh(exe, fc, scheme, out, seed + a.reseed)
            r = acc.read_ns3(out)
        acc.log(f"{side} seed {seed} {scheme} load {load} reseeded: {time.time() - t0:.0f} s")
        return run, side, r

    # Each side's idle run normalises both its runs; the emulator's again, for the ids.
    idle_emu = {}
    for seed, scheme in sorted({(r[0], r[1]) for r in runs}):
        idle_dir = os.path.join(a.out, f"s{seed}", scheme, "idle")
        wd = os.path.join(idle_dir, f"reseed{a.reseed}")
        os.makedirs(wd, exist_ok=True)
        shutil.copyfile(os.path.join(idle_dir, "flows.csv"), os.path.join(wd, "flows.csv"))
        idle_emu[(seed, scheme)] = acc.run_emu(a.emu, os.path.join(wd, "flows.csv"), "droptail", wd, seed)
    res = {}
    with ThreadPoolExecutor(a.jobs) as pool:
        for run, side, r in pool.map(lambda j: work(*j), [(r, s) for r in runs for s in ("ref", "emu")]):
            res[(run, side)] = r
    print(f"mean normalised FCT per run: ref'/ref and emu'/emu (the same flows, seed + {a.reseed}), emu/ref")
    print(f"{'scheme':9} {'load':>4} {'bin':6} {'seed':>4} {'n':>4}"
          + "".join(f" {x:>9}" for x in ("ref_/ref", "emu_/emu", "emu/ref")) + "  (means)"
          + "".join(f" {x:>9}" for x in ("ref_/ref", "emu_/emu", "emu/ref")) + "  (p99)")
    over = {}
    rows = 0
    for run in runs:
        seed, scheme, load, d = run
        emu_orig, emu_re = res[(run, "emu")]
        orig = {"ref": acc.read_ns3(os.path.join(d, "ns3.csv")), "emu": emu_orig}
        idle_dir = os.path.join(os.path.dirname(d), "idle")
        idle = {"ref": acc.read_ns3(os.path.join(idle_dir, "ns3.csv")), "emu": idle_emu[(seed, scheme)]}
        flows = {int(r["id"]): int(r["bytes"]) for r in csv.DictReader(open(os.path.join(d, "flows.csv")))}
        for b in ("small", "medium", "large"):
            ids = [i for i, by in flows.items() if acc.size_bin(by) == b
                   and all(x.get(i) for x in (orig["ref"], orig["emu"], res[(run, "ref")], emu_re,
                                               idle["ref"], idle["emu"]))]
            if not ids:
                continue
            norm = {k: [src[i] / idle[side][i] for i in ids]
                    for k, src, side in (("ref", orig["ref"], "ref"), ("emu", orig["emu"], "emu"),
                                         ("ref2", res[(run, "ref")], "ref"), ("emu2", emu_re, "emu"))}
            line = f"{scheme:9} {load:>4} {b:6} {seed:>4} {len(ids):>4}"
            for stat, f, tol in (("mean", acc.mean, a.tol), ("p99", acc.p99, a.tol_p99)):
                m = {k: f(v) for k, v in norm.items()}
                d = {"ref": m["ref2"] / m["ref"] - 1, "emu": m["emu2"] / m["emu"] - 1,
                     "cross": m["emu"] / m["ref"] - 1}
                for k, v in d.items():
                    over[(stat, k)] = over.get((stat, k), 0) + (abs(v) > tol)
                line += "".join(f" {100 * d[k]:+8.1f}%" for k in ("ref", "emu", "cross"))
            rows += 1
            print(line)
    for stat, tol in (("mean", a.tol), ("p99", a.tol_p99)):
        print(f"{stat}: of {rows} run-bins beyond {100 * tol:.0f} %: ref against itself {over[(stat, 'ref')]}, "
              f"emu against itself {over[(stat, 'emu')]}, emu against ref {over[(stat, 'cross')]}")


if __name__ == "__main__":
    main()
