#!/usr/bin/env python3
"""HPCC-INT vs HPCC-PINT (8 bits) on the emulated k = 4 fat tree.

Web-search flow sizes, Poisson arrivals at 50 % and 70 % load, seeds 1..N.
For each (load, feedback, seed) one planck-emu run; normalised FCT (FCT over
the ideal FCT of the flow's bytes at full payload, so INT's header bytes count
against it) by flow-size bin, median and p99 per run, then the mean over seeds
with a 95 % t interval. Writes a markdown table (stdout and table.md) and PNG
plots into --out. Both feedback kinds see the same flows (same seed: same
arrival times, sizes and destinations).

    python3 emulator/experiments/hpcc/run.py --emu target/release/planck-emu --out docs/results/hpcc
"""
import argparse
import csv
import math
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# Flow-size bins in bytes.
BINS = [(0, 10e3, "<10K"), (10e3, 100e3, "10K-100K"), (100e3, 1e6, "100K-1M"),
        (1e6, 10e6, "1M-10M"), (10e6, math.inf, ">10M")]
T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26}


def quantile(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    i = min(len(xs) - 1, max(0, math.ceil(q * len(xs)) - 1))
    return xs[i]


def mean_ci(vals):
    vals = [v for v in vals if not math.isnan(v)]
    n = len(vals)
    if n == 0:
        return float("nan"), float("nan")
    m = sum(vals) / n
    if n == 1:
        return m, float("nan")
    sd = math.sqrt(sum((v - m) ** 2 for v in vals) / (n - 1))
    return m, T95.get(n - 1, 1.96) * sd / math.sqrt(n)


def run(emu, out, load, feedback, seed, duration_us):
    d = os.path.abspath(os.path.join(out, "runs", f"load{int(load * 100)}-{feedback}-seed{seed}"))
    os.makedirs(d, exist_ok=True)
    text = open(os.path.join(HERE, "base.toml")).read()
    for k, v in {"DURATION": duration_us, "SEED": seed, "FEEDBACK": feedback, "PATHBITS": 8,
                 "LOAD": load, "STOP": int(duration_us * 0.8), "OUTDIR": d}.items():
        text = text.replace(k, str(v))
    cfg = os.path.join(d, "config.toml")
    open(cfg, "w").write(text)
    subprocess.run([emu, "run", "--config", cfg], check=True, stdout=subprocess.DEVNULL)
    flows, unfinished = [], 0
    with open(os.path.join(d, "flows.csv")) as f:
        for r in csv.DictReader(f):
            if r["normalized_fct"]:
                flows.append((float(r["size_bytes"]), float(r["normalized_fct"])))
            else:
                unfinished += 1
    return flows, unfinished


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--emu", default="target/release/planck-emu")
    ap.add_argument("--out", default="docs/results/hpcc")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--duration-us", type=int, default=600000)
    a = ap.parse_args()
    emu = os.path.abspath(a.emu)
    os.makedirs(a.out, exist_ok=True)
    loads, modes = [0.5, 0.7], ["int", "pint"]
    # stats[(load, mode, bin)] = ([median per seed], [p99 per seed], [count per seed])
    stats = {}
    unfinished = {}
    total = len(loads) * len(modes) * a.seeds
    done = 0
    for load in loads:
        for mode in modes:
            for seed in range(1, a.seeds + 1):
                flows, unf = run(emu, a.out, load, mode, seed, a.duration_us)
                unfinished[(load, mode)] = unfinished.get((load, mode), 0) + unf
                done += 1
                print(f"stage {done}/{total}: load {load} {mode} seed {seed}: {len(flows)} flows completed, "
                      f"{unf} unfinished at the end", file=sys.stderr)
                for lo, hi, name in BINS:
                    xs = [n for s, n in flows if lo <= s < hi]
                    st = stats.setdefault((load, mode, name), ([], [], []))
                    st[0].append(quantile(xs, 0.5))
                    st[1].append(quantile(xs, 0.99))
                    st[2].append(len(xs))
    lines = [f"Seeds 1..{a.seeds}, {a.duration_us / 1e3:.0f} ms emulated per run (arrivals stop at 80 %), "
             "mean over seeds +- 95 % t half-width. Unfinished flows at the end of the runs (all seeds): "
             + ", ".join(f"{int(l * 100)} % {m}: {unfinished[(l, m)]}" for l in loads for m in modes) + ".", "",
             "| load | size bin | flows/run | INT median | PINT median | PINT/INT | INT p99 | PINT p99 | PINT/INT |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for load in loads:
        for _, _, name in BINS:
            im, ic = mean_ci(stats[(load, "int", name)][0])
            pm, pc = mean_ci(stats[(load, "pint", name)][0])
            i9, i9c = mean_ci(stats[(load, "int", name)][1])
            p9, p9c = mean_ci(stats[(load, "pint", name)][1])
            n = sum(stats[(load, "int", name)][2]) / a.seeds
            lines.append(f"| {int(load * 100)} % | {name} | {n:.0f} | {im:.2f} +- {ic:.2f} | {pm:.2f} +- {pc:.2f} | "
                         f"{pm / im:.3f} | {i9:.2f} +- {i9c:.2f} | {p9:.2f} +- {p9c:.2f} | {p9 / i9:.3f} |")
    table = "\n".join(lines)
    print(table)
    open(os.path.join(a.out, "table.md"), "w").write(table + "\n")
    for load in loads:
        fig, axes = plt.subplots(1, 2, figsize=(11, 4))
        for ax, (qi, qname) in zip(axes, [(0, "median"), (1, "p99")]):
            x = list(range(len(BINS)))
            for off, mode, label in [(-0.18, "int", "HPCC-INT"), (0.18, "pint", "HPCC-PINT (8 bits)")]:
                ms, cs = zip(*[mean_ci(stats[(load, mode, b[2])][qi]) for b in BINS])
                ax.bar([i + off for i in x], ms, width=0.36, yerr=[0 if math.isnan(c) else c for c in cs],
                       capsize=3, label=label)
            ax.set_xticks(x)
            ax.set_xticklabels([b[2] for b in BINS])
            ax.set_xlabel("flow size (bytes)")
            ax.set_ylabel(f"{qname} normalised FCT")
            ax.set_title(f"web search, {int(load * 100)} % load, {qname} (k = 4 fat tree)")
            ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(a.out, f"hpcc-fct-load{int(load * 100)}.png"), dpi=110)
        plt.close(fig)


if __name__ == "__main__":
    main()
