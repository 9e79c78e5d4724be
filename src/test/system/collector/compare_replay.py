#!/usr/bin/env python3
"""Print, from `planck-collector replay` output on stdin, a UDP flow's offline estimate and
what sampled bytes x the TCP-measured sampling ratio would have said.

Usage: planck-collector replay --pcap F | compare_replay.py DPORT
"""
import json
import sys

dport = int(sys.argv[1])
for line in sys.stdin:
    f = json.loads(line)
    if f["proto"] == 17 and f["dport"] == dport:
        sb = f.get("sampledBytesBps")
        print("offline replay of the mirror link: UDP %.2f Mb/s (%s); sampled bytes x TCP ratio: %s"
              % (f["bps"] / 1e6, f["estimator"], "%.2f Mb/s" % (sb / 1e6) if sb else "n/a"))
