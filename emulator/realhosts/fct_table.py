#!/usr/bin/env python3
"""Normalised FCT by size bin from fct-accuracy.sh's output (docs/realhosts.md).

A flow's normalised FCT is its FCT over the ideal one: two base RTTs (handshake, then request
and the response's last byte) plus the response's frames serialised at the link rate. The
base RTT is the kernel reference's unloaded ping (the same ideal for every network, so the
emulator's own added latency counts as error); without a kernel run, each network's own.
Per network, load and size bin: the mean over seeds of each seed's mean, with a 95 %
t-interval over seeds; the p99 pooled over seeds. Emulated vs kernel: the difference of means.

An emulated run counts only if the emulator kept real time by the system test's rule
(src/test/system/emu-realhosts.sh): p99 lag <= 20 packet times at the link rate (240 us at
1 Gb/s, what a queue of 20 packets takes to drain) and max lag <= 20 ms. Runs that broke it
are listed with their lag and left out of the table and comparison (a lagging emulator
stretches every RTT: its FCTs measure the machine, not the scheme).

Comparisons are paired by seed: a kernel run whose emulated partner broke the rule (or did
not run) is left out of them, though it stays in the first table. Flexplane's band is stated
for small flows (< 100 KB) and large ones: the comparison has a column for all flows <= 100 KB.

A small flow whose FCT reaches Linux's minimum retransmission timeout (200 ms, hundreds of
times its ideal at these rates) almost surely waited out a timeout; a handful of those decide a
bin's mean. A last table counts them per side and compares the mean normalised FCT of the
small flows that stayed under it (95 % bootstrap interval of the ratio of means, flows pooled
over the paired seeds, resampled 2,000 times with a fixed seed).

Usage: fct_table.py OUT_DIR [--pairs A:B,...] [> table.md]
(--pairs: which networks to set against which, the first of each pair against the second;
default emu-droptail:kern-droptail,emu-dctcp:kern-ecn,emu-dctcp:kern-red. A kernel network
against a repeat of itself, e.g. kern-droptail:kern-droptail-again, shows the reference's own
run-to-run spread.)
"""
import csv
import glob
import json
import math
import os
import random
import statistics
import sys

BINS = [(0, 10e3, "<= 10 KB"), (10e3, 100e3, "10-100 KB"), (100e3, 1e6, "100 KB-1 MB"),
        (1e6, 10e6, "1-10 MB"), (10e6, float("inf"), "> 10 MB")]
PAIRS = [("emu-droptail", "kern-droptail"), ("emu-dctcp", "kern-ecn"), ("emu-dctcp", "kern-red")]
MSS, FRAME = 1448, 1514
RTO_MIN_US = 200_000  # Linux's TCP_RTO_MIN
# t quantiles (0.975) by degrees of freedom
T975 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26}


def mean_ci(xs):
    if not xs:
        return float("nan"), float("nan")
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, float("nan")
    return m, T975.get(len(xs) - 1, 1.96) * statistics.stdev(xs) / math.sqrt(len(xs))


def p99(xs):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, math.ceil(0.99 * len(xs)) - 1)]


def main(out, pairs=PAIRS):
    meta = json.load(open(os.path.join(out, "meta.json")))
    gbps = float(meta["gbps"])
    p99_bound = 20 * FRAME * 8 / (gbps * 1e3)  # us
    runs, lagged = {}, []  # (net, load, seed) -> dir; runs the emulator did not keep up with
    for d in glob.glob(os.path.join(out, "*", "load*", "seed*")):
        net, load, seed = d.split(os.sep)[-3:]
        key = (net, float(load[4:]), int(seed[4:]))
        sp = os.path.join(d, "emu.summary.json")
        if os.path.exists(sp) and os.path.getsize(sp) > 0:
            rt = json.load(open(sp)).get("realtime") or {}
            if not (rt.get("p99_lag_us", 1e18) <= p99_bound and rt.get("max_lag_us", 1e18) <= 20_000):
                lagged.append((key, rt))
                continue
        elif net.startswith("emu"):
            lagged.append((key, {}))
            continue
        runs[key] = d
    nets = sorted({k[0] for k in runs} | {k[0] for k, _ in lagged}, key=lambda n: (not n.startswith("emu"), n))
    loads = sorted({k[1] for k in runs} | {k[1] for k, _ in lagged})

    def rtt(net):
        xs = [float(open(os.path.join(d, "rtt_us")).read() or "nan")
              for (n, _, _), d in runs.items() if n == net and os.path.exists(os.path.join(d, "rtt_us"))]
        xs = [x for x in xs if x == x]
        return statistics.median(xs) if xs else float("nan")

    rtts = {n: rtt(n) for n in nets}
    kern = [n for n in nets if n.startswith("kern")]
    base = statistics.median([rtts[n] for n in kern]) if kern else None

    def ideal(size, net):
        b = base if base is not None else rtts[net]
        return 2 * b + math.ceil(size / MSS) * FRAME * 8 / (gbps * 1e3)

    def collect(items):
        """stats[(net, load)]: per-seed bin means, pooled values, counts, emulator figures."""
        stats = {}
        for key, d in sorted(items):
            add_run(stats, key, d)
        return stats

    def add_run(stats, key, d):
        net, load, _seed = key
        st = stats.setdefault((net, load), {"bins": [[] for _ in BINS], "pooled": [[] for _ in BINS],
                                            "under_rto": [[] for _ in BINS], "rto": [0 for _ in BINS],
                                            "small": [], "flows": 0, "ok": 0, "unfinished": 0,
                                            "not_started": 0, "failed": 0, "emu": [], "loadavg": []})
        kd = os.path.join(d, "port_drops")
        if os.path.exists(kd):
            st.setdefault("kdrops", []).append(int(open(kd).read().strip() or 0))
        ce = os.path.join(d, "ce_at_clients")
        if os.path.exists(ce):
            st.setdefault("ce", []).append(int(open(ce).read().strip() or 0))
        la = os.path.join(d, "loadavg")
        if os.path.exists(la):
            st["loadavg"] += [float(x) for x in open(la).read().split()]
        per = [[] for _ in BINS]
        for f in glob.glob(os.path.join(d, "c*.csv")):
            for r in csv.DictReader(open(f)):
                st["flows"] += 1
                s = r["status"]
                if s == "ok":
                    st["ok"] += 1
                    size = int(r["size_bytes"])
                    nf = float(r["fct_us"]) / ideal(size, net)
                    i = next(i for i, (lo, hi, _) in enumerate(BINS) if lo < size <= hi)
                    per[i].append(nf)
                    st["pooled"][i].append(nf)
                    if float(r["fct_us"]) >= RTO_MIN_US:
                        st["rto"][i] += 1
                    else:
                        st["under_rto"][i].append(nf)
                elif s in ("unfinished", "not_started"):
                    st[s] += 1
                else:
                    st["failed"] += 1
        for i, xs in enumerate(per):
            if xs:
                st["bins"][i].append(statistics.fmean(xs))
        if per[0] or per[1]:
            st["small"].append(statistics.fmean(per[0] + per[1]))
        sp = os.path.join(d, "emu.summary.json")
        if os.path.exists(sp) and os.path.getsize(sp) > 0:
            s = json.load(open(sp))
            rt = s.get("realtime") or {}
            ports = list(csv.DictReader(open(os.path.join(d, "emu", "ports.csv"))))
            down = [p for p in ports if p["peer"] in ("c0", "c1")]
            st["emu"].append({
                "p99_lag_us": rt.get("p99_lag_us", float("nan")),
                "max_lag_us": rt.get("max_lag_us", float("nan")),
                "cpu_share": rt.get("cpu_share", float("nan")),
                "q_mean": statistics.fmean(float(p["mean_occupancy"]) for p in down) if down else float("nan"),
                "q_max": max((int(float(p["max_occupancy"])) for p in down), default=-1),
                "drops": sum(int(p["dropped"]) for p in ports),
                "down_drops": sum(int(p["dropped"]) for p in down),
                "marks": sum(int(p["marked"]) for p in ports),
            })

    stats = collect(runs.items())

    def paired(key):
        n, l, sd = key
        return any((n == a and (b, l, sd) in runs) or (n == b and (a, l, sd) in runs) for a, b in pairs)

    cmp_stats = collect((k, d) for k, d in runs.items() if paired(k))

    def partners(n):
        return [b if n == a else a for a, b in pairs if n in (a, b) and (b if n == a else a) in nets]

    unpaired = sorted(k for k in runs if partners(k[0]) and not paired(k))

    w = sys.stdout.write
    w(f"Links {gbps:g} Gb/s, buffer {meta['buffer']} packets, K {meta['k']}, {meta['run_seconds']} s of "
      f"arrivals per run, seeds {meta['seeds']}; base RTT (unloaded ping, median over runs): "
      + ", ".join(f"{n} {rtts[n]:.0f} us" for n in nets)
      + (f"; ideal FCT uses {base:.0f} us" if base is not None else "") + "\n\n")
    w("Mean normalised FCT (mean over seeds of each seed's mean, +- 95 % CI over seeds) and pooled p99:\n\n")
    w("| network | load | " + " | ".join(b[2] for b in BINS) + " | p99 <= 100 KB | flows ok / unfinished / not started / failed | CE at clients | drops at the clients' ports | machine load average |\n")
    w("|---|---|" + "---|" * (len(BINS) + 5) + "\n")
    for net in nets:
        for load in loads:
            st = stats.get((net, load))
            if not st:
                continue
            cells = []
            for xs in st["bins"]:
                m, ci = mean_ci(xs)
                cells.append("-" if m != m else (f"{m:.2f}" + ("" if ci != ci else f" +- {ci:.2f}")))
            small = st["pooled"][0] + st["pooled"][1]
            w(f"| {net} | {load:g} | " + " | ".join(cells) + f" | {p99(small):.2f} | "
              f"{st['ok']} / {st['unfinished']} / {st['not_started']} / {st['failed']} | "
              + (str(sum(st["ce"])) if st.get("ce") else "-") + " | "
              + (str(sum(st["kdrops"])) if st.get("kdrops") else
                 str(sum(e["down_drops"] for e in st["emu"])) if st["emu"] else "-") + " | "
              + (f"{min(st['loadavg']):.0f}-{max(st['loadavg']):.0f}" if st["loadavg"] else "-") + " |\n")
    w("\nEmulated against kernel reference, seeds paired (difference of the mean normalised FCT, "
      "% of the kernel's; seeds compared):\n\n")
    w("| emulated vs kernel | load | seeds | " + " | ".join(b[2] for b in BINS) + " | all <= 100 KB |\n")
    w("|---|---|---|" + "---|" * (len(BINS) + 1) + "\n")

    def diff(xa, xb):
        ma, mb = mean_ci(xa)[0], mean_ci(xb)[0]
        return "-" if ma != ma or mb != mb else f"{100 * (ma - mb) / mb:+.0f} %"

    for e, k in pairs:
        for load in loads:
            a, b = cmp_stats.get((e, load)), cmp_stats.get((k, load))
            if not (a and b):
                continue
            seeds = sorted(sd for (n, l, sd) in runs if n == e and l == load and (k, l, sd) in runs)
            cells = [diff(xa, xb) for xa, xb in zip(a["bins"], b["bins"])] + [diff(a["small"], b["small"])]
            w(f"| {e} vs {k} | {load:g} | {','.join(map(str, seeds))} | " + " | ".join(cells) + " |\n")

    w("\nSmall flows and the 200 ms timeout (seeds paired): flows that reached it (emulated / kernel), "
      "and the difference of the mean normalised FCT of those that did not, % of the kernel's, with "
      "its 95 % bootstrap interval:\n\n")
    w("| emulated vs kernel | load | <= 10 KB: timeouts | <= 10 KB: mean diff | 10-100 KB: timeouts | 10-100 KB: mean diff |\n")
    w("|---|---|---|---|---|---|\n")
    rng = random.Random(1)

    def boot(a, b):
        if len(a) < 2 or len(b) < 2:
            return float("nan"), float("nan"), float("nan")
        d = 100 * (statistics.fmean(a) / statistics.fmean(b) - 1)
        ds = sorted(100 * (statistics.fmean(rng.choices(a, k=len(a))) /
                           statistics.fmean(rng.choices(b, k=len(b))) - 1) for _ in range(2000))
        return d, ds[49], ds[1949]

    for e, k in pairs:
        for load in loads:
            a, b = cmp_stats.get((e, load)), cmp_stats.get((k, load))
            if not (a and b):
                continue
            cells = []
            for i in (0, 1):
                d, lo, hi = boot(a["under_rto"][i], b["under_rto"][i])
                cells.append(f"{a['rto'][i]} / {b['rto'][i]} of {len(a['pooled'][i])} / {len(b['pooled'][i])}")
                cells.append("-" if d != d else f"{d:+.0f} % [{lo:+.0f}, {hi:+.0f}]")
            w(f"| {e} vs {k} | {load:g} | " + " | ".join(cells) + " |\n")
    if unpaired:
        w("\nLeft out of the comparisons (their partner run broke the real-time rule or did not run): "
          + ", ".join(f"{n} load {l:g} seed {sd}" for n, l, sd in unpaired) + "\n")
    if lagged:
        w(f"\nLeft out: emulated runs that broke the real-time rule (p99 lag <= {p99_bound:.0f} us, "
          "max <= 20 ms):\n\n| network | load | seed | p99 lag us | max lag us | CPU share |\n|---|---|---|---|---|---|\n")
        for (n, l, sd), rt in sorted(lagged):
            w(f"| {n} | {l:g} | {sd} | {rt.get('p99_lag_us', float('nan')):.0f} | "
              f"{rt.get('max_lag_us', float('nan')):.0f} | {rt.get('cpu_share', float('nan')):.2f} |\n")
    emu = [(n, l) for (n, l), st in stats.items() if st["emu"]]
    if emu:
        w("\nEmulator per run (worst over seeds): lag behind the wall clock, its thread's CPU share, "
          "the clients' downlink queues (sampled every 10 slots), drops and marks (sum over seeds):\n\n")
        w("| network | load | p99 lag us | max lag us | CPU share (min) | queue mean | queue max | drops | marks |\n")
        w("|---|---|---|---|---|---|---|---|---|\n")
        for n, l in sorted(emu):
            es = stats[(n, l)]["emu"]
            w(f"| {n} | {l:g} | {max(e['p99_lag_us'] for e in es):.0f} | {max(e['max_lag_us'] for e in es):.0f} | "
              f"{min(e['cpu_share'] for e in es):.2f} | {statistics.fmean(e['q_mean'] for e in es):.1f} | "
              f"{max(e['q_max'] for e in es)} | {sum(e['drops'] for e in es)} | {sum(e['marks'] for e in es)} |\n")


def parse_pairs(text):
    """--pairs A:B,C:D (the first of each pair set against the second); None if malformed."""
    pairs = [tuple(p.split(":")) for p in text.split(",")]
    return pairs if all(len(p) == 2 and all(p) for p in pairs) else None


if __name__ == "__main__":
    args = sys.argv[1:]
    pairs = PAIRS
    if len(args) == 3 and args[1] == "--pairs":
        pairs = parse_pairs(args[2])
        if pairs is None:
            sys.exit(f"fct_table: --pairs takes A:B[,C:D...], got {args[2]!r}")
        args = args[:1]
    if len(args) != 1:
        sys.exit(__doc__)
    main(args[0], pairs)
