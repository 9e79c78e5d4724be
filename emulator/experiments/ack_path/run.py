#!/usr/bin/env python3
"""Out-of-band against in-band ACKs where the reverse path carries data.

A rack of 16 hosts at 10 Gb/s, every host sending to every other (web-search flow sizes,
Poisson arrivals), DCTCP (K = 65) and DropTail, loads 0.3 and 0.6, seeds 1..N. The same
flows run with `transport.ack_path = "out_of_band"` (ACKs back after a fixed 4 slots, the
idle path's latency) and `"in_band"` (66-byte ACKs through the reverse path's ports, behind
the data queued there). Per run: mean normalised FCT of small flows (< 100 KB) that had no
retransmission timeout, how many small flows had one, and the mean of large flows
(>= 10 MB). The table gives, per scheme and load, the per-seed ratio in band / out of band
(mean over seeds with a 95 % t interval) and the timeouts summed over seeds.

    python3 emulator/experiments/ack_path/run.py --emu target/release/planck-emu --out target/ack_path
"""
import argparse
import csv
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26}
SCHEMES = {"dctcp": ('kind = "dctcp"\nk = 65', "dctcp"), "droptail": ('kind = "droptail"', "tcp")}
LOADS = (0.3, 0.6)
PATHS = ("out_of_band", "in_band")


def mean_ci(vals):
    n = len(vals)
    m = sum(vals) / n
    if n == 1:
        return m, float("nan")
    sd = math.sqrt(sum((v - m) ** 2 for v in vals) / (n - 1))
    return m, T95.get(n - 1, 1.96) * sd / math.sqrt(n)


def run(emu, out, scheme, load, path, seed, duration_us):
    d = os.path.abspath(os.path.join(out, f"{scheme}-load{load}-{path}-seed{seed}"))
    os.makedirs(d, exist_ok=True)
    sch, transport = SCHEMES[scheme]
    text = open(os.path.join(HERE, "base.toml")).read()
    for k, v in {"DURATION": duration_us, "SEED": seed, "SCHEME": sch, "TRANSPORT": transport,
                 "ACKPATH": path, "LOAD": load, "STOP": int(duration_us * 0.8), "OUTDIR": d}.items():
        text = text.replace(k, str(v))
    cfg = os.path.join(d, "config.toml")
    open(cfg, "w").write(text)
    subprocess.run([emu, "run", "--config", cfg], check=True, stdout=subprocess.DEVNULL)
    small, timeouts, large, unfinished = [], 0, [], 0
    with open(os.path.join(d, "flows.csv")) as f:
        for r in csv.DictReader(f):
            if not r["normalized_fct"]:
                unfinished += 1
                continue
            size, norm = int(r["size_bytes"]), float(r["normalized_fct"])
            if size < 100_000:
                if int(r["timeouts"]) > 0:
                    timeouts += 1
                else:
                    small.append(norm)
            elif size >= 10_000_000:
                large.append(norm)
    return {"small": sum(small) / len(small), "timeouts": timeouts,
            "large": sum(large) / len(large) if large else float("nan"), "unfinished": unfinished}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--emu", default="target/release/planck-emu")
    ap.add_argument("--out", default="target/ack_path")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--duration-us", type=int, default=100_000)
    a = ap.parse_args()
    if a.seeds < 2:
        ap.error("--seeds must be >= 2 (the interval is over seeds)")
    emu = os.path.abspath(a.emu)
    os.makedirs(a.out, exist_ok=True)
    res = {}
    total = len(SCHEMES) * len(LOADS) * len(PATHS) * a.seeds
    done = 0
    for scheme in SCHEMES:
        for load in LOADS:
            for seed in range(1, a.seeds + 1):
                for path in PATHS:
                    r = run(emu, a.out, scheme, load, path, seed, a.duration_us)
                    res[(scheme, load, path, seed)] = r
                    done += 1
                    print(f"stage {done}/{total}: {scheme} load {load} {path} seed {seed}: small mean "
                          f"{r['small']:.2f}, {r['timeouts']} small flows with a timeout, "
                          f"{r['unfinished']} unfinished", file=sys.stderr)
    lines = [f"Seeds 1..{a.seeds}, {a.duration_us / 1e3:.0f} ms emulated per run (arrivals stop at 80 %); "
             "ratio in band / out of band per seed, mean over seeds +- 95 % t half-width.", "",
             "| scheme | load | small, no timeout: out of band | in band | ratio | small with a timeout (out / in) "
             "| large: out of band | in band | ratio |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for scheme in SCHEMES:
        for load in LOADS:
            seeds = range(1, a.seeds + 1)
            o = [res[(scheme, load, "out_of_band", s)] for s in seeds]
            i = [res[(scheme, load, "in_band", s)] for s in seeds]
            so, si = (mean_ci([r["small"] for r in x])[0] for x in (o, i))
            sr, src = mean_ci([b["small"] / c["small"] for b, c in zip(i, o)])
            lo, li = (mean_ci([r["large"] for r in x])[0] for x in (o, i))
            lr, lrc = mean_ci([b["large"] / c["large"] for b, c in zip(i, o)])
            to, ti = (sum(r["timeouts"] for r in x) for x in (o, i))
            lines.append(f"| {scheme} | {load} | {so:.2f} | {si:.2f} | {sr:.2f} +- {src:.2f} | {to} / {ti} "
                         f"| {lo:.2f} | {li:.2f} | {lr:.2f} +- {lrc:.2f} |")
    table = "\n".join(lines)
    print(table)
    open(os.path.join(a.out, "table.md"), "w").write(table + "\n")


if __name__ == "__main__":
    main()
