#!/usr/bin/env python3
"""One accuracy run, flow by flow: the same flows on ns-3 and planck-emu,
matched one to one, with the flows whose normalised FCT differs most first,
and per size bin the flows that resent data, lost their whole initial
window, or timed out on each side (docs/emulator.md, "Discrepancies" 9, 10).

    python3 emulator/accuracy/flow_by_flow.py target/acc_newd/s2/droptail/0.4 --bin small --top 10

The directory is one run of accuracy.py (flows.csv, ns3.csv, emu/flows.csv);
the idle run beside it (../idle) gives the normalisation.
"""
import argparse
import csv
import os
import sys

import accuracy as A

INIT_CWND = 10


def load(d):
    """(flows, ref, emu): the run's flows and each side's record by flow id."""
    try:
        flows = list(csv.DictReader(open(os.path.join(d, "flows.csv"))))
        ref = {int(r["id"]): r for r in csv.DictReader(open(os.path.join(d, "ns3.csv")))}
        recs = list(csv.DictReader(open(os.path.join(d, "emu", "flows.csv"))))
    except FileNotFoundError as e:
        sys.exit(f"flow_by_flow: {e.filename} missing: run accuracy.py for this directory first")
    # As accuracy.run_emu: by ends and size, then start order.
    by_key = {}
    for e in recs:
        by_key.setdefault((int(e["src"]), int(e["dst"]), int(e["size_bytes"])), []).append(e)
    emu = {}
    for key, group in by_key.items():
        mine = sorted((r for r in flows if (int(r["src"]), int(r["dst"]), int(r["bytes"])) == key),
                      key=lambda r: float(r["start_us"]))
        group.sort(key=lambda e: float(e["start_us"]))
        for r, e in zip(mine, group):
            emu[int(r["id"])] = e
    if len(emu) != len(flows) or len(ref) != len(flows):
        sys.exit(f"flow_by_flow: {d}: {len(flows)} flows, {len(ref)} ns-3 and {len(emu)} emulator records")
    return flows, ref, emu


def loss_kind(rec, pkts):
    rtx, to = int(rec["retransmits"]), int(rec["timeouts"])
    if rtx == 0:
        return None
    kind = "whole IW" if rtx >= min(INIT_CWND, pkts) else "part"
    return kind + (" +RTO" if to else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="a run directory of accuracy.py: OUT/sSEED/SCHEME/LOAD")
    ap.add_argument("--bin", choices=("small", "medium", "large"), default="small")
    ap.add_argument("--top", type=int, default=15)
    a = ap.parse_args()
    flows, ref, emu = load(a.run)
    _, iref, iemu = load(os.path.join(os.path.dirname(os.path.abspath(a.run)), "idle"))
    rows = []
    for f in flows:
        i, pkts = int(f["id"]), int(f["bytes"]) // A.PAYLOAD
        if A.size_bin(int(f["bytes"])) != a.bin:
            continue
        r, e = ref[i], emu[i]
        rows.append(dict(id=i, src=int(f["src"]), dst=int(f["dst"]), pkts=pkts, start=float(f["start_us"]),
                         rf=float(r["rx_fct_us"]), ef=float(e["rx_fct_us"]),
                         rn=float(r["rx_fct_us"]) / float(iref[i]["rx_fct_us"]),
                         en=float(e["rx_fct_us"]) / float(iemu[i]["rx_fct_us"]),
                         rr=int(r["retransmits"]), rt=int(r["timeouts"]), rc=int(r["recoveries"]),
                         er=int(e["retransmits"]), et=int(e["timeouts"]),
                         rk=loss_kind(r, pkts), ek=loss_kind(e, pkts)))
    if not rows:
        sys.exit(f"flow_by_flow: no {a.bin} flows in {a.run}")
    n = len(rows)
    print(f"{a.bin} flows: {n}; mean normalised FCT ns-3 {sum(x['rn'] for x in rows) / n:.2f}, "
          f"planck-emu {sum(x['en'] for x in rows) / n:.2f}")
    for side, k in (("ns-3", "rk"), ("planck-emu", "ek")):
        kinds = {}
        for x in rows:
            if x[k]:
                kinds[x[k]] = kinds.get(x[k], 0) + 1
        print(f"  {side}: flows that resent data, by what they lost: {dict(sorted(kinds.items()))}")
    rows.sort(key=lambda x: -abs(x["rn"] - x["en"]))
    print(f"{'id':>5} {'src':>3} {'dst':>3} {'pkts':>6} {'start_us':>10} {'ns3_fct':>9} {'emu_fct':>9} "
          f"{'ns3_n':>8} {'emu_n':>8} | ns-3 rtx to rec | emu rtx to")
    for x in rows[:a.top]:
        print(f"{x['id']:5} {x['src']:3} {x['dst']:3} {x['pkts']:6} {x['start']:10.1f} {x['rf']:9.1f} {x['ef']:9.1f} "
              f"{x['rn']:8.2f} {x['en']:8.2f} | {x['rr']:8} {x['rt']:2} {x['rc']:3} | {x['er']:7} {x['et']:2}")


if __name__ == "__main__":
    main()
