#!/usr/bin/env python3
"""Flexplane's FCT accuracy experiment (NSDI'17 §5, Fig. 4) on planck-emu and
on ns-3 (the reference), with the same flows.

32 servers send to 4 clients through one switch (10 Gb/s links), web-search
flow sizes (DCTCP paper), Poisson arrivals loading the client links to the
given loads. Each flow's FCT (start to the last byte at the receiver) is
normalised by the same flow's FCT alone in the idle network, on the same
simulator with the same scheme. Prints mean and p99 normalised FCT by scheme,
load and size bin, side by side, and plots normalised FCT against flow size.

    python3 emulator/accuracy/accuracy.py --loads 0.2,0.4,0.6 --seeds 1,2 \
        --flows 1000 --out target/accuracy

Needs: target/release/planck-emu (cargo build -p planck-emu --release),
ns-3.37 headers and libraries (Debian libns3-dev, libgsl-dev), g++,
pkg-config, python3-matplotlib (for --plot).
"""
import argparse
import bisect
import csv
import json
import math
import os
import random
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SERVERS, CLIENTS = 32, 4
HOSTS = SERVERS + CLIENTS
GBPS = 10.0
PAYLOAD = 1460          # bytes per 1500-byte packet (no TCP options)
LATENCY_SLOTS = 2       # per link: 1 slot serialisation + 1.2 us propagation
DELAY_US = 1.2          # ns-3: the same propagation delay
ACK_DELAY_SLOTS = 2     # ns-3: 40-byte ACKs back over two links: 2 x 1.23 us
BUFFER = 1024
K = 65
# RED with ECN (scheme "red"): Floyd's RED on both sides (count-spread marks, idle decay, hard
# drops at max_th), TCP NewReno with classic ECN. Thresholds in packets waiting at the port.
RED_MIN_TH, RED_MAX_TH, RED_MAX_P, RED_QW = 65, 195, 0.1, 0.002
# The emulator's RED variant (--red-variant; the reference always runs Floyd's).
RED_VARIANT = "floyd"
# How the emulator's ACKs return (--ack-path): out of band after ACK_DELAY_SLOTS, or in band
# through the client's uplink and the server's downlink (each hop at least a slot).
ACK_PATH = "out_of_band"
MIN_RTO_US = 10000.0
# The reference's 4 MB receive buffers (fct_ref), in packets: TCP sends no new data beyond
# the cumulative ACK + the receiver's window, which matters when a lost packet holds it.
RCV_WND_PKTS = (4 << 20) // PAYLOAD
# The reference's host jitter (fct_ref --hostJitterNs), uniform [0, J) ns a packet, by
# scheme: DropTail's full ports need it (docs/emulator.md, discrepancies 11 and 12); DCTCP keeps
# none. Centred: the host link's delay shortened by J / 2, so a packet's mean delay is the link's.
HOST_JITTER_NS = {"droptail": 600.0, "dctcp": 0.0, "red": 0.0}
SCHEMES = tuple(HOST_JITTER_NS)
HOST_JITTER_MODE = "centred"
SMALL, LARGE = 100_000, 10_000_000
NS3_MODULES = "ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control"


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def load_cdf(path):
    pts = []
    with open(path) as f:
        for line in f:
            line = line.split("#")[0].strip()
            if line:
                x, p = line.split()
                pts.append((float(x), float(p)))
    return pts


def cdf_mean(pts):
    return sum((p1 - p0) * (x0 + x1) / 2 for (x0, p0), (x1, p1) in zip(pts, pts[1:]))


def sample_size(pts, u):
    ps = [p for _, p in pts]
    i = bisect.bisect_left(ps, u)
    i = max(1, min(i, len(pts) - 1))
    (x0, p0), (x1, p1) = pts[i - 1], pts[i]
    x = x0 + (x1 - x0) * ((u - p0) / (p1 - p0) if p1 > p0 else 0.0)
    # Whole packets, so both sides send exactly the same packets.
    return max(1, math.ceil(x / PAYLOAD)) * PAYLOAD


def make_flows(seed, n, pts):
    """Sizes, ends and unit-rate Poisson gaps; the load scales the gaps."""
    rng = random.Random(seed)
    flows, t = [], 0.0
    for i in range(n):
        t += rng.expovariate(1.0)
        flows.append(dict(id=i, src=rng.randrange(SERVERS), dst=SERVERS + rng.randrange(CLIENTS),
                          bytes=sample_size(pts, rng.random()), unit_t=t))
    return flows


def write_flows(path, flows, starts):
    with open(path, "w") as f:
        f.write("id,src,dst,bytes,start_us\n")
        for fl, s in zip(flows, starts):
            f.write(f"{fl['id']},{fl['src']},{fl['dst']},{fl['bytes']},{s:.3f}\n")


def loaded_starts(flows, load, mean_bytes):
    # Arrival rate loading the 4 client links to `load` on average.
    rate_per_us = load * CLIENTS * GBPS * 1e3 / 8 / mean_bytes
    return [fl["unit_t"] / rate_per_us for fl in flows]


def idle_starts(flows):
    # One flow at a time: each starts long after the previous one finished.
    starts, t = [], 0.0
    for fl in flows:
        starts.append(t)
        t += 3 * fl["bytes"] * 8 / (GBPS * 1e3) + 2000.0
    return starts


def emu_config(path, flows_csv, scheme, duration_us, seed):
    rows = list(csv.DictReader(open(flows_csv)))
    tr = "dctcp" if scheme == "dctcp" else "tcp"
    sch = {"dctcp": f'kind = "dctcp"\nk = {K}',
           "red": (f'kind = "red"\nmin_th = {RED_MIN_TH}\nmax_th = {RED_MAX_TH}\nmax_p = {RED_MAX_P}\n'
                   f'weight = {RED_QW}\necn = true\nvariant = "{RED_VARIANT}"'),
           "droptail": 'kind = "droptail"'}[scheme]
    ecn = "true" if scheme == "red" else "false"
    with open(path, "w") as f:
        f.write(f"""[emulation]
duration_us = {duration_us:.1f}
seed = {seed}
threads = 1

[topology]
kind = "rack"
racks = 1
hosts_per_rack = {HOSTS}
host_link = {{ gbps = {GBPS}, buffer_pkts = {BUFFER}, latency_slots = {LATENCY_SLOTS} }}

[scheme]
{sch}

[transport]
kind = "{tr}"
init_cwnd = 10
rcv_wnd_pkts = {RCV_WND_PKTS}
min_rto_us = {MIN_RTO_US}
sack = true
delayed_ack = false
ack_delay_slots = {ACK_DELAY_SLOTS}
ack_path = "{ACK_PATH}"
ecn = {ecn}

[[workload]]
kind = "flows"
flows = [
""")
        for r in rows:
            f.write(f"  {{ src = {r['src']}, dst = {r['dst']}, bytes = {r['bytes']}, start_us = {r['start_us']} }},\n")
        f.write("]\n\n[output]\nformat = \"csv\"\n")


def run_emu(emu, flows_csv, scheme, workdir, seed):
    rows = list(csv.DictReader(open(flows_csv)))
    last = max(float(r["start_us"]) for r in rows)
    total = sum(int(r["bytes"]) for r in rows)
    # Time for everything to drain at one client link, plus timeouts.
    duration = last + total * 8 / (GBPS * 1e3) / 2 + 200_000
    cfg = os.path.join(workdir, "emu.toml")
    emu_config(cfg, flows_csv, scheme, duration, seed)
    out = os.path.join(workdir, "emu")
    subprocess.run([emu, "run", "--config", cfg, "--out", out], check=True,
                   stdout=subprocess.DEVNULL)
    # Match records to flows by ends and size, then start time (the
    # emulator starts flows on slot boundaries, so two flows starting in
    # the same slot may be listed in either order).
    recs = {}
    for e in csv.DictReader(open(os.path.join(out, "flows.csv"))):
        recs.setdefault((int(e["src"]), int(e["dst"]), int(e["size_bytes"])), []).append(e)
    res = {}
    for key, group in recs.items():
        mine = sorted((r for r in rows if (int(r["src"]), int(r["dst"]), int(r["bytes"])) == key),
                      key=lambda r: float(r["start_us"]))
        group.sort(key=lambda e: float(e["start_us"]))
        assert len(mine) == len(group), key
        for r, e in zip(mine, group):
            res[int(r["id"])] = float(e["rx_fct_us"]) if e["rx_fct_us"] else None
    assert len(res) == len(rows)
    return res


def build_ns3(out_dir):
    exe = os.path.join(out_dir, "fct_ref")
    src = os.path.join(HERE, "fct_ref.cc")
    if os.path.exists(exe) and os.path.getmtime(exe) > os.path.getmtime(src):
        return exe
    flags = subprocess.run(["pkg-config", "--cflags", "--libs"] + NS3_MODULES.split(),
                           check=True, capture_output=True, text=True).stdout.split()
    t0 = time.time()
    subprocess.run(["g++", "-O2", "-std=c++17", src, "-o", exe] + flags, check=True)
    log(f"built ns-3 reference in {time.time() - t0:.0f} s")
    return exe


def centred_jitter_error(jitter_ns):
    """Why a host jitter cannot be centred on the link's delay (J up to twice it), or None."""
    limit = 2 * DELAY_US * 1000
    if jitter_ns > limit:
        return f"--host-jitter-mode centred: J at most {limit:g} ns (twice the link delay)"
    return None


def ns3_args(scheme, seed, host_jitter_ns, centred=False):
    """fct_ref's arguments besides its files: part of what makes a result reusable."""
    return [f"--scheme={scheme}", f"--hosts={HOSTS}", f"--gbps={GBPS}", f"--delayUs={DELAY_US}",
            f"--buffer={BUFFER}", f"--k={K}", f"--minRtoMs={MIN_RTO_US / 1000}", "--limitS=100",
            f"--hostJitterNs={host_jitter_ns:g}", f"--seed={seed}"] + (["--hostJitterCentred=1"] if centred else []) + (
        [f"--redMinTh={RED_MIN_TH}", f"--redMaxTh={RED_MAX_TH}", f"--redMaxP={RED_MAX_P}", f"--redQw={RED_QW}"]
        if scheme == "red" else [])


def run_ns3(exe, flows_csv, scheme, workdir, seed, host_jitter_ns, centred=False):
    out = os.path.join(workdir, "ns3.csv")
    args = ns3_args(scheme, seed, host_jitter_ns, centred)
    inputs = open(flows_csv).read() + " ".join(args)
    stamp = os.path.join(workdir, "ns3.inputs")
    fresh = (os.path.exists(out) and os.path.getmtime(out) > os.path.getmtime(exe)
             and os.path.exists(stamp) and open(stamp).read() == inputs)
    if not fresh:
        run_ns3_fresh(exe, flows_csv, scheme, out, seed, host_jitter_ns, centred)
        with open(stamp, "w") as f:
            f.write(inputs)
    return read_ns3(out)


def read_ns3(path):
    """fct_ref's output: flow id -> FCT at the receiver, us (None if unfinished)."""
    return {int(r["id"]): (float(r["rx_fct_us"]) if r["rx_fct_us"] else None)
            for r in csv.DictReader(open(path))}


def run_ns3_fresh(exe, flows_csv, scheme, out, seed=1, host_jitter_ns=None, centred=None):
    """Runs the reference (the scheme's default host jitter and mode unless given)."""
    j = HOST_JITTER_NS[scheme] if host_jitter_ns is None else host_jitter_ns
    centred = HOST_JITTER_MODE == "centred" if centred is None else centred
    subprocess.run([exe, f"--flows={flows_csv}", f"--out={out}"] + ns3_args(scheme, seed, j, centred), check=True,
                   stderr=subprocess.DEVNULL)


def size_bin(b):
    return "small" if b < SMALL else ("large" if b >= LARGE else "medium")


def p99(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, math.ceil(0.99 * len(xs)) - 1)] if xs else float("nan")


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


BOOT = 2000


def bootstrap(pairs, rng):
    """95 % percentile intervals of the reference's mean and of emu mean / ref mean - 1,
    resampling the run's flows (pairs of normalised FCTs, the same flow on both sides)."""
    n = len(pairs)
    ref_means, diffs = [], []
    for _ in range(BOOT):
        sample = rng.choices(pairs, k=n)
        r = sum(p[0] for p in sample) / n
        ref_means.append(r)
        diffs.append(sum(p[1] for p in sample) / n / r - 1)
    ref_means.sort()
    diffs.sort()
    lo, hi = int(0.025 * BOOT), int(0.975 * BOOT) - 1
    return ref_means[lo], ref_means[hi], diffs[lo], diffs[hi]


def seed_row(scheme, load, b, seed, flows, results):
    """One seed run's size bin: flows finished on both sides, paired."""
    norm = {}
    for side in ("ref", "emu"):
        idle = results[((seed, scheme, "idle"), side)]
        run = results[((seed, scheme, load), side)]
        norm[side] = {f["id"]: run[f["id"]] / idle[f["id"]] for f in flows
                      if size_bin(f["bytes"]) == b and run.get(f["id"]) and idle.get(f["id"])}
    pairs = [(norm["ref"][i], norm["emu"][i]) for i in sorted(norm["ref"]) if i in norm["emu"]]
    ref, emu = [p[0] for p in pairs], [p[1] for p in pairs]
    lo, hi, dlo, dhi = bootstrap(pairs, random.Random(f"{scheme}/{load}/{b}/{seed}"))
    return dict(scheme=scheme, load=load, bin=b, seed=seed, n=len(pairs), ref_mean=mean(ref), ref_lo=lo,
                ref_hi=hi, emu_mean=mean(emu), mean_diff=mean(emu) / mean(ref) - 1, diff_lo=dlo, diff_hi=dhi,
                ref_p99=p99(ref), emu_p99=p99(emu), p99_diff=p99(emu) / p99(ref) - 1)


def parse_jitter(text):
    """--host-jitter-ns: one J for every scheme, or SCHEME=J,...; None if malformed."""
    try:
        if "=" not in text:
            j = dict.fromkeys(HOST_JITTER_NS, float(text))
        else:
            j = dict(HOST_JITTER_NS)
            for part in text.split(","):
                k, v = part.split("=")
                if k not in HOST_JITTER_NS:
                    return None
                j[k] = float(v)
    except ValueError:
        return None
    return j if all(0 <= v < 1e6 for v in j.values()) else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--loads", default="0.2,0.4,0.6")
    ap.add_argument("--schemes", default="droptail,dctcp,red")
    ap.add_argument("--seeds", default="1")
    ap.add_argument("--red-variant", choices=("floyd", "fixed"), default="floyd",
                    help="the emulator's RED: floyd (as the reference) or fixed (the curve on every packet); "
                         "default %(default)s")
    ap.add_argument("--ack-path", choices=("out_of_band", "in_band"), default=ACK_PATH,
                    help="the emulator's ACKs: out of band after a fixed delay, or in band on the reverse "
                         "path at their length; default %(default)s")
    ap.add_argument("--flows", type=int, default=1000, help="measured flows per run")
    ap.add_argument("--out", default=os.path.join(ROOT, "target", "accuracy"))
    ap.add_argument("--emu", default=os.path.join(ROOT, "target", "release", "planck-emu"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--side", choices=("both", "ref", "emu"), default="both",
                    help="run one side only (the reference's results are reused when its inputs are unchanged)")
    ap.add_argument("--plot", action="store_true", help="write fct_vs_size.png (matplotlib)")
    ap.add_argument("--check", type=float, default=None,
                    help="exit 1 unless every per-seed mean of --check-bins is within this fraction of the reference")
    ap.add_argument("--check-bins", default="small,large", help="size bins --check applies to")
    ap.add_argument("--host-jitter-ns", default=",".join(f"{k}={v:g}" for k, v in HOST_JITTER_NS.items()),
                    help="reference only: random delay uniform [0, J) ns on every packet a host sends, seeded "
                         "from the run's seed; J for every scheme, or SCHEME=J,... (0: none; default %(default)s; "
                         "docs/emulator.md, discrepancy 11)")
    ap.add_argument("--host-jitter-mode", choices=("centred", "added"), default=HOST_JITTER_MODE,
                    help="reference only: centred shortens the host link's delay by J / 2, so the jitter keeps "
                         "the link's mean delay (J up to twice the link delay); added only adds it "
                         "(default %(default)s)")
    a = ap.parse_args()
    globals()["RED_VARIANT"] = a.red_variant
    globals()["ACK_PATH"] = a.ack_path
    try:
        loads = [float(x) for x in a.loads.split(",")]
        seeds = [int(x) for x in a.seeds.split(",")]
    except ValueError:
        ap.error("--loads and --seeds are comma-separated numbers")
    schemes = a.schemes.split(",")
    check_bins = a.check_bins.split(",")
    jitter = parse_jitter(a.host_jitter_ns)
    if jitter is None:
        ap.error("--host-jitter-ns: J or SCHEME=J,... with schemes droptail|dctcp|red and J in [0, 1e6)")
    centred = a.host_jitter_mode == "centred"
    if centred and centred_jitter_error(max(jitter.values())):
        ap.error(centred_jitter_error(max(jitter.values())))
    if any(s not in SCHEMES for s in schemes) or not all(0 < l < 1 for l in loads) or a.flows < 1:
        ap.error("schemes are droptail|dctcp|red, loads in (0, 1), flows >= 1")
    if not os.path.exists(a.emu):
        sys.exit(f"accuracy: {a.emu} missing: cargo build -p planck-emu --release")
    os.makedirs(a.out, exist_ok=True)
    exe = build_ns3(a.out)
    pts = load_cdf(os.path.join(ROOT, "emulator", "data", "web_search.cdf"))
    mean_bytes = cdf_mean(pts)

    jobs = []  # (key, flows_csv, scheme, workdir, seed)
    for seed in seeds:
        flows = make_flows(seed, a.flows, pts)
        # The idle-network FCT does not depend on the scheme (one flow at a
        # time never queues at the switch): DropTail, but with each scheme's
        # host jitter, so one idle run per scheme and seed.
        for scheme, load in [(s, l) for s in schemes for l in ["idle"] + loads]:
            d = os.path.join(a.out, f"s{seed}", scheme, str(load))
            os.makedirs(d, exist_ok=True)
            fc = os.path.join(d, "flows.csv")
            starts = idle_starts(flows) if load == "idle" else loaded_starts(flows, load, mean_bytes)
            write_flows(fc, flows, starts)
            jobs.append(((seed, scheme, load), fc, scheme, d, seed, flows))
    results = {}

    def work(job, side):
        key, fc, scheme, d, seed, _ = job
        t0 = time.time()
        if side == "emu":
            r = run_emu(a.emu, fc, "droptail" if key[2] == "idle" else scheme, d, seed)
        else:
            r = run_ns3(exe, fc, "droptail" if key[2] == "idle" else scheme, d, seed, jitter[scheme],
                        centred)
        log(f"{side} seed {key[0]} {key[1]} load {key[2]}: {time.time() - t0:.0f} s, "
            f"{sum(v is not None for v in r.values())}/{len(r)} flows done")
        return key, side, r

    sides = ("ref", "emu") if a.side == "both" else (a.side,)
    with ThreadPoolExecutor(a.jobs) as pool:
        futs = [pool.submit(work, j, side) for j in jobs for side in sides]
        for f in futs:
            key, side, r = f.result()
            results[(key, side)] = r
    if a.side != "both":
        return

    rows, points, worst, seed_rows = [], [], 0.0, []
    flows_by_seed = {j[0][0]: j[5] for j in jobs}
    for scheme in schemes:
        for load in loads:
            for b in ("small", "medium", "large"):
                agg = {"ref": [], "emu": []}
                per_seed = []
                for seed in seeds:
                    fl = flows_by_seed[seed]
                    seed_vals = {}
                    for side in ("ref", "emu"):
                        idle = results[((seed, scheme, "idle"), side)]
                        run = results[((seed, scheme, load), side)]
                        vals = [run[f["id"]] / idle[f["id"]] for f in fl
                                if size_bin(f["bytes"]) == b and run.get(f["id"]) and idle.get(f["id"])]
                        agg[side] += vals
                        seed_vals[side] = vals
                        if side == "emu":
                            points += [(scheme, load, f["bytes"], "emu", run[f["id"]] / idle[f["id"]])
                                       for f in fl if run.get(f["id"]) and idle.get(f["id"])]
                        else:
                            points += [(scheme, load, f["bytes"], "ref", run[f["id"]] / idle[f["id"]])
                                       for f in fl if run.get(f["id"]) and idle.get(f["id"])]
                    if seed_vals["ref"] and seed_vals["emu"]:
                        per_seed.append(mean(seed_vals["emu"]) / mean(seed_vals["ref"]) - 1)
                        seed_rows.append(seed_row(scheme, load, b, seed, fl, results))
                if not agg["ref"] or not agg["emu"]:
                    continue
                rm, em, rp, ep = mean(agg["ref"]), mean(agg["emu"]), p99(agg["ref"]), p99(agg["emu"])
                row = dict(scheme=scheme, load=load, bin=b, n=len(agg["ref"]), n_emu=len(agg["emu"]),
                           ref_mean=rm, emu_mean=em, mean_diff=em / rm - 1,
                           ref_p99=rp, emu_p99=ep, p99_diff=ep / rp - 1,
                           seed_mean_diffs=per_seed)
                rows.append(row)
                if b in check_bins and per_seed:
                    worst = max(worst, max(abs(x) for x in per_seed))

    print(f"seeds {seeds}, {a.flows} flows per run; normalised FCT (last byte at the receiver, "
          f"over the same flow alone); ref = ns-3.37, emu = planck-emu")
    print(f"{'scheme':9} {'load':>4} {'bin':6} {'n':>5} {'ref mean':>9} {'emu mean':>9} {'diff':>7} "
          f"{'ref p99':>9} {'emu p99':>9} {'diff':>7}  per-seed mean diffs")
    for r in rows:
        print(f"{r['scheme']:9} {r['load']:>4} {r['bin']:6} {r['n']:>5} {r['ref_mean']:9.2f} {r['emu_mean']:9.2f} "
              f"{100 * r['mean_diff']:+6.1f}% {r['ref_p99']:9.2f} {r['emu_p99']:9.2f} {100 * r['p99_diff']:+6.1f}%  "
              + " ".join(f"{100 * x:+.1f}%" for x in r["seed_mean_diffs"]))
    print(f"\nper seed; [lo, hi]: 95 % bootstrap interval ({BOOT} resamples of the run's flows): of the "
          f"reference's mean, and of the mean difference (the same flows resampled on both sides)")
    print(f"{'scheme':9} {'load':>4} {'bin':6} {'seed':>4} {'n':>5} {'ref mean':>9} {'ref 95% interval':>17} "
          f"{'emu mean':>9} {'diff':>7} {'diff 95% interval':>17} {'ref p99':>8} {'emu p99':>8} {'diff':>7}")
    for r in seed_rows:
        print(f"{r['scheme']:9} {r['load']:>4} {r['bin']:6} {r['seed']:>4} {r['n']:>5} {r['ref_mean']:9.2f} "
              f"[{r['ref_lo']:7.2f},{r['ref_hi']:7.2f}] {r['emu_mean']:9.2f} {100 * r['mean_diff']:+6.1f}% "
              f"[{100 * r['diff_lo']:+6.1f}%,{100 * r['diff_hi']:+6.1f}%] {r['ref_p99']:8.2f} {r['emu_p99']:8.2f} "
              f"{100 * r['p99_diff']:+6.1f}%")
    with open(os.path.join(a.out, "accuracy.json"), "w") as f:
        json.dump(dict(seeds=seeds, flows=a.flows, loads=loads, schemes=schemes, host_jitter_ns=jitter, host_jitter_mode=a.host_jitter_mode,
                       rows=rows, seed_rows=seed_rows), f, indent=1)
    if a.plot:
        plot(points, schemes, loads, os.path.join(a.out, "fct_vs_size.png"))
    incomplete = [k for k, r in results.items() if any(v is None for v in r.values())]
    if a.check is not None and incomplete:
        print(f"accuracy: flows left unfinished in {incomplete}", file=sys.stderr)
        sys.exit(1)
    if a.check is not None and worst > a.check:
        print(f"accuracy: worst per-seed {a.check_bins} mean difference {100 * worst:.1f}% "
              f"exceeds {100 * a.check:g}%", file=sys.stderr)
        sys.exit(1)


def plot(points, schemes, loads, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(len(schemes), len(loads), figsize=(4 * len(loads), 3.2 * len(schemes)),
                             squeeze=False, sharex=True)
    edges = [10 ** (3.5 + 0.5 * i) for i in range(10)]
    for i, scheme in enumerate(schemes):
        for j, load in enumerate(loads):
            ax = axes[i][j]
            for side, style in (("ref", "o-"), ("emu", "s--")):
                xs, ys = [], []
                for lo, hi in zip(edges, edges[1:]):
                    v = [p[4] for p in points if p[0] == scheme and p[1] == load and p[3] == side and lo <= p[2] < hi]
                    if v:
                        xs.append(math.sqrt(lo * hi))
                        ys.append(mean(v))
                ax.plot(xs, ys, style, label="ns-3" if side == "ref" else "planck-emu")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(f"{scheme}, load {load}")
            ax.set_xlabel("flow size (bytes)")
            ax.set_ylabel("mean normalised FCT")
            ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    log(f"plot: {path}")


if __name__ == "__main__":
    main()
