#!/usr/bin/env python3
"""The lab with real Linux hosts beside the lab with the fabric's own endpoints (Markdown).

    lab_compare.py OUT [--linux-only]

OUT is a `scripts/lab.sh --endpoints linux` report directory: OUT/throughput.csv (real hosts),
OUT/emulated-endpoints/throughput.csv (the fabric's endpoints, same workloads, seeds, modes, link
rate and flow size) and OUT/fabric/fabric-N.log, whose last line per real-host run is the fabric's
`linux hosts {...}` summary: its lag behind the wall clock per timeslot and the hosts' frame
counters. A run kept real time if its p99 lag was at most 1 ms and its largest at most 20 ms (the
rule of the emulator's real-host system test); every run that did not is named.
"""
import csv
import json
import re
import sys
from pathlib import Path

P99_LIMIT_US = 1000.0
MAX_LIMIT_US = 20000.0
FLOWS_PER_RUN = {"shuffle": 240}


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def fabric_runs(fabric_dir):
    """(run number, summary dict) of every fabric log with a linux-hosts summary, in run order."""
    runs = []
    for log in fabric_dir.glob("fabric-*.log"):
        n = int(re.search(r"fabric-(\d+)\.log$", log.name).group(1))
        summary = None
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith("planck-emu fabric: linux hosts "):
                summary = json.loads(line[len("planck-emu fabric: linux hosts "):])
        if summary is not None:
            runs.append((n, summary))
    return sorted(runs)


def run_labels(real):
    """Run order of ExperimentRunner.runAll: workloads outer, repeats, then modes."""
    workloads, modes, repeats = [], [], {}
    for r in real:
        if r["workload"] not in workloads:
            workloads.append(r["workload"])
        if r["mode"] not in modes:
            modes.append(r["mode"])
        repeats[r["workload"]] = int(r["flows"]) // FLOWS_PER_RUN.get(r["workload"], 16)
    labels = []
    for w in workloads:
        for k in range(max(1, repeats[w])):
            for m in modes:
                labels.append(f"{w} / {m}" + (f" (repeat {k + 1})" if repeats[w] > 1 else ""))
    return labels


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(argv[1])
    linux_only = "--linux-only" in argv[2:]
    real = rows(out / "throughput.csv")
    emu = {} if linux_only else {(r["workload"], r["mode"]): r for r in rows(out / "emulated-endpoints" / "throughput.csv")}
    rate = int(real[0]["link_bps"]) / 1e6 if real else 0
    lines = ["", "## Real Linux hosts beside the fabric's own endpoints", ""]
    lines.append(f"Same workloads, seeds, modes, {rate:g} Mb/s links and flow size; the emulated-endpoint "
                 "run's full report is `emulated-endpoints/report.md`. Mean flow throughput (Mb/s) and "
                 "% of Optimal:")
    lines.append("")
    lines.append("| workload | mode | real hosts Mb/s | real hosts % of Optimal | emulated endpoints Mb/s | emulated % of Optimal |")
    lines.append("|---|---|---:|---:|---:|---:|")
    for r in real:
        e = emu.get((r["workload"], r["mode"]))
        lines.append(f"| {r['workload']} | {r['mode']} | {r['mean_mbps']} | {r['mean_pct_of_optimal']} | "
                     f"{e['mean_mbps'] if e else '-'} | {e['mean_pct_of_optimal'] if e else '-'} |")
    runs = fabric_runs(out / "fabric")
    labels = run_labels(real)
    lines += ["", "### Real time (real-host runs)", ""]
    if not runs:
        lines.append("**No real-host run left a summary**: the fabric's logs have no `linux hosts` line.")
    else:
        lines.append("| run | p50 lag (us) | p99 lag (us) | max lag (us) | fabric CPU share | frames in | frames out | NIC drops | refused | mirror copies expired |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        behind = []
        for i, (n, s) in enumerate(runs):
            label = labels[i] if i < len(labels) else f"fabric {n}"
            h = s.get("hosts", [])
            tot = lambda k: sum(x.get(k, 0) for x in h)
            refused = sum(tot(k) for k in ("refusedOversize", "refusedNotIpv4", "refusedNotTcp", "refusedMalformed",
                                           "unknownDestination"))
            lines.append(f"| {label} | {s['lagP50Us']:.0f} | {s['lagP99Us']:.0f} | {s['lagMaxUs']:.0f} | "
                         f"{s.get('cpuShare', 0):.2f} | {tot('framesIn')} | {tot('framesOut')} | {tot('nicDrops')} | {refused} | {s.get('mirrorExpired', 0)} |")
            if s["lagP99Us"] > P99_LIMIT_US or s["lagMaxUs"] > MAX_LIMIT_US:
                behind.append(f"{label} (p99 {s['lagP99Us']:.0f} us, max {s['lagMaxUs']:.0f} us)")
        lines.append("")
        if behind:
            lines.append(f"**The fabric fell behind real time** (p99 lag above {P99_LIMIT_US:.0f} us or max above "
                         f"{MAX_LIMIT_US / 1000:.0f} ms) in {len(behind)} of {len(runs)} real-host runs: "
                         + "; ".join(behind) + ". Those runs' flow times include the machine's delays, "
                         "not only the network's.")
        else:
            lines.append(f"Every real-host run kept real time (p99 lag at most {P99_LIMIT_US:.0f} us and max at "
                         f"most {MAX_LIMIT_US / 1000:.0f} ms).")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
