#!/usr/bin/env python3
"""Loko validation on real Open vSwitch: benchmark -> switch model -> admission -> worst-case traffic.

One private OVS bridge (userspace datapath) serves the whole run, so the model is derived under
the same conditions it is then checked in:

 1. benchmark: the sweep of switch_bench.py (1..3 port pairs, 64 B and 1500 B frames) on this
    bridge, then the buffer the switch holds while its forwarding thread is stopped (SIGSTOP);
    the switch model (R, T, per-packet cost, backlog) is derived with its margin;
 2. admission: the same list of candidate flows (token buckets of 64 B frames over 3 port pairs,
    one deadline) goes through the app's own AdmissionPlanner (lab's admission-plan command),
    once as one shared switch (Loko) and once as independent ports;
 3. traffic: every admitted flow sends greedy token-bucket bursts (waits until its bucket is full,
    then empties it back to back: the arrival curve b + r t is met at every burst), all flows
    started at the same instant, plus best-effort cross traffic on a fourth port pair at the
    model's best-effort allowance; every frame carries its send time (CLOCK_REALTIME just before
    send()) and the receiver takes the kernel receive timestamp (same clock);
 4. report: per flow packets, loss, packets over the deadline, max latency / bound; a violation
    is a packet lost anywhere or later than its deadline.

Roles tbsend/tbrecv run inside the namespaces; everything else is the orchestrator (root).
"""
import argparse
import array
import bisect
import json
import os
import random
import signal
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import switch_bench as sb  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SO_RCVBUFFORCE = 33
GUARANTEED_PAIRS = 3
CROSS_PAIR = 3
MTU = 1514
PORT_BPS = 10_000_000_000  # veth reports 10 Gb/s; one MTU's transmission is 1.2 us
LATE_WINDOW_NS = 100_000_000
STALL_GAP_NS = 1_000_000  # a gap between departures of a backlogged switch longer than this is a stall
log = sb.log


# ---------------------------------------------------------------- traffic roles


SO_TIMESTAMPING = 37
# Software transmit timestamps (taken by the device's xmit, i.e. as the frame enters the switch's
# input ring), reported on the error queue, numbered per socket, without the frame.
TS_FLAGS = (1 << 1) | (1 << 4) | (1 << 7) | (1 << 11)
PACKET_TX_TIMESTAMP = 16
MSG_ERRQUEUE = 0x2000


def drain_tx_stamps(s, kts):
    """Moves the kernel transmit timestamps on the error queue into kts[send index]."""
    while True:
        try:
            _, anc, _, _ = s.recvmsg(1, 512, MSG_ERRQUEUE | socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            return
        ts = idx = None
        for level, typ, val in anc:
            if level == socket.SOL_SOCKET and typ == SO_TIMESTAMPING:
                sec, ns = struct.unpack("qq", val[:16])
                ts = sec * 1_000_000_000 + ns
            elif level == sb.SOL_PACKET and typ == PACKET_TX_TIMESTAMP:
                idx = struct.unpack_from("I", val, 12)[0]  # sock_extended_err.ee_data
        if ts is not None and idx is not None and idx < len(kts):
            kts[idx] = ts


def role_tbsend(a):
    """Greedy token-bucket senders, one per flow, all on this port.

    A flow waits until its bucket (in frames, refilled at pps) is full, then sends while it holds a
    token: b frames back to back, then whatever refilled meanwhile. The bucket is accounted on the
    very timestamp each frame carries, so the stamped stream keeps (pps, burst) by construction.
    """
    flows = json.loads(a.flow_spec)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((a.ifname, 0))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 32 << 20)  # holds the error queue
    s.setsockopt(sb.SOL_PACKET, sb.PACKET_QDISC_BYPASS, 1)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPING, TS_FLAGS)
    dst = bytes.fromhex(a.dst_mac.replace(":", ""))
    src = bytes.fromhex(a.src_mac.replace(":", ""))
    head = dst + src + struct.pack("!H", sb.ETH_TYPE)
    for f in flows:
        f["pad"] = bytes(max(0, f["size"] - len(head) - sb.HDR.size))
        f["seq"] = 0
        f["errors"] = 0
        f["tokens"] = float(f["burst"])  # a full bucket at the start: every flow bursts at t0
    order = array.array("q")  # per send index: flow, seq, user stamp
    kts = array.array("q")  # per send index: kernel transmit stamp (0: none reported)
    delay = a.start_at - time.time()
    if delay > 0:
        time.sleep(delay)
    done = []
    signal.signal(signal.SIGTERM, lambda *_: done.append(1))  # the orchestrator: stop now
    t0 = time.time_ns()
    stop = t0 + int(a.duration * 1e9)
    for f in flows:
        f["last"] = t0
    while not done:
        now = time.time_ns()
        live = [f for f in flows if f.get("quota") is None or f["seq"] < f["quota"]]
        if now >= stop or not live:
            break
        wake = stop
        for f in live:
            f["tokens"] = min(float(f["burst"]), f["tokens"] + f["pps"] * (now - f["last"]) / 1e9)
            f["last"] = now
            if f["tokens"] >= f["burst"] - 1e-9:
                while True:
                    t = time.time_ns()
                    f["tokens"] = min(float(f["burst"]), f["tokens"] + f["pps"] * (t - f["last"]) / 1e9)
                    f["last"] = t
                    if f["tokens"] < 1 - 1e-9 or (f.get("quota") is not None and f["seq"] >= f["quota"]):
                        break
                    f["tokens"] -= 1
                    frame = head + sb.HDR.pack(sb.MAGIC, a.run, f["flow"], f["seq"], t) + f["pad"]
                    try:
                        s.send(frame)
                        order.extend((f["flow"], f["seq"], t))
                        kts.append(0)
                    except OSError:
                        f["errors"] += 1  # refused at the switch's input: counted as lost
                    f["seq"] += 1
                drain_tx_stamps(s, kts)
            wake = min(wake, f["last"] + int((f["burst"] - f["tokens"]) / f["pps"] * 1e9))
        pause = (wake - time.time_ns()) / 1e9
        if pause > 0:
            time.sleep(pause)
    end = time.monotonic() + 1.0
    while time.monotonic() < end and 0 in kts[-64:]:
        drain_tx_stamps(s, kts)
        time.sleep(0.01)
    drain_tx_stamps(s, kts)
    with open(a.out, "wb") as fh:
        out = array.array("q")
        for i in range(len(kts)):
            out.extend((order[3 * i], order[3 * i + 1], order[3 * i + 2], kts[i]))
        out.tofile(fh)
    elapsed = (time.time_ns() - t0) / 1e9
    print(json.dumps({str(f["flow"]): {"sent": f["seq"], "sendErrors": f["errors"], "elapsedSec": elapsed}
                      for f in flows}), flush=True)


def role_tbrecv(a):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(sb.ETH_TYPE))
    s.bind((a.ifname, sb.ETH_TYPE))
    s.setsockopt(socket.SOL_SOCKET, sb.SO_TIMESTAMPNS, 1)
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)  # root: above rmem_max
    s.setsockopt(socket.SOL_SOCKET, sb.SO_RXQ_OVFL, 1)
    s.settimeout(0.5)
    rec = array.array("q")  # flow, seq, send ns, receive ns
    drops = 0
    done = []
    signal.signal(signal.SIGTERM, lambda *_: done.append(1))  # the orchestrator: senders are done
    print("ready", flush=True)
    stop_at = time.monotonic() + a.duration
    while time.monotonic() < stop_at and not done:
        try:
            data, anc, _, _ = s.recvmsg(2048, 64)
        except socket.timeout:
            continue
        if len(data) < 14 + sb.HDR.size:
            continue
        magic, run, flow, seq, sent = sb.HDR.unpack_from(data, 14)
        if magic != sb.MAGIC or run != a.run:
            continue
        rx = None
        for level, typ, val in anc:
            if level == socket.SOL_SOCKET and typ == sb.SCM_TIMESTAMPNS:
                sec, ns = struct.unpack("qq", val[:16])
                rx = sec * 1_000_000_000 + ns
            elif level == socket.SOL_SOCKET and typ == sb.SO_RXQ_OVFL:
                drops = struct.unpack("I", val[:4])[0]
        if rx is not None:
            rec.extend((flow, seq, sent, rx))
    with open(a.out, "wb") as f:
        rec.tofile(f)
    print(json.dumps({"records": len(rec) // 4, "socketDrops": drops}), flush=True)


# ---------------------------------------------------------------- orchestrator


def measure_buffer(lab, size, count=int(1.5 * sb.TAP_QUEUE)):
    """Frames of `size` the switch holds for one input port while its forwarding is stopped: more
    frames than the ring holds are sent back to back (a quota, however slowly this process runs)."""
    me = os.path.abspath(__file__)
    pid = lab.vswitchd_pid()
    before = lab.port_counters()
    out = os.path.join(lab.d, "buffer-%d.tx" % size)
    os.kill(pid, signal.SIGSTOP)
    try:
        prefix, ifname = lab.sender(0)
        spec = [{"flow": 0, "size": size, "pps": 1_000_000, "burst": count, "quota": count}]
        p = subprocess.run(prefix + [sys.executable, me, "tbsend", "--ifname", ifname, "--run", "7",
                                     "--flow-spec", json.dumps(spec), "--start-at", "0", "--duration", "60",
                                     "--out", out, "--src-mac", "02:00:00:00:01:00", "--dst-mac", "02:00:00:00:02:00"],
                           check=True, stdout=subprocess.PIPE, text=True, timeout=120)
        time.sleep(0.3)
    finally:
        os.kill(pid, signal.SIGCONT)
    os.unlink(out)
    time.sleep(1.5)
    after = lab.port_counters()
    r = json.loads(p.stdout.strip().splitlines()[-1])["0"]
    offered = r["sent"]
    held = after[2][1] - before[2][1]
    if held >= offered:
        raise RuntimeError("buffer test: all %d frames of %d B held; offer more" % (offered, size))
    return held, offered


def measure_drain(lab, run_id, size, ports=GUARANTEED_PAIRS, frames=int(0.95 * sb.TAP_QUEUE)):
    """The switch's service rate while `ports` input ports are backlogged: with forwarding
    stopped, the input ring of each of the first `ports` guaranteed ports is filled with `frames`
    frames; forwarding resumes and the receivers' kernel stamps give the rate at which the switch
    empties the rings together (sender speed plays no part). The rate depends on how many ports
    are backlogged: OVS's forwarding thread reads at most one batch (32 frames) per port per
    iteration of its main loop, whose own cost is paid per iteration, so one backlogged port is
    served more slowly than several. Returns (frames/s, frames received, frames sent)."""
    me = os.path.abspath(__file__)
    if lab.isolate:
        lab.isolate_switch()
    pid = lab.vswitchd_pid()
    outs, recvs = {}, {}
    for i in range(ports):
        outs[i] = os.path.join(lab.d, "drain-%d-%d.bin" % (run_id, i))
        recvs[i] = subprocess.Popen(["ip", "netns", "exec", lab.ns("r", i), sys.executable, me, "tbrecv",
                                     "--ifname", "eth0", "--run", str(run_id), "--duration", "120",
                                     "--out", outs[i]], stdout=subprocess.PIPE, text=True)
    for p in recvs.values():
        if p.stdout.readline().strip() != "ready":
            raise RuntimeError("receiver did not start")
    sent = 0
    os.kill(pid, signal.SIGSTOP)
    try:
        for i in range(ports):
            # One bucket of `frames` frames, sent back to back however slowly this process runs.
            prefix, ifname = lab.sender(i)
            spec = [{"flow": i, "size": size, "pps": 1_000_000, "burst": frames, "quota": frames}]
            p = subprocess.run(prefix + [sys.executable, me, "tbsend", "--ifname", ifname, "--run", str(run_id),
                                         "--flow-spec", json.dumps(spec), "--start-at", "0", "--duration", "60",
                                         "--out", outs[i] + ".tx", "--src-mac", "02:00:00:00:01:%02x" % i,
                                         "--dst-mac", "02:00:00:00:02:%02x" % i],
                               check=True, stdout=subprocess.PIPE, text=True, timeout=120)
            os.unlink(outs[i] + ".tx")
            r = json.loads(p.stdout.strip().splitlines()[-1])[str(i)]
            sent += r["sent"] - r["sendErrors"]
    finally:
        resumed = time.time_ns()
        os.kill(pid, signal.SIGCONT)
    time.sleep(4.0)
    rx = []
    for i, p in recvs.items():
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=60)
        a = array.array("q")
        with open(outs[i], "rb") as fh:
            a.frombytes(fh.read())
        os.unlink(outs[i])
        rx.extend(a[j + 3] for j in range(0, len(a), 4))
    rx.sort()
    if len(rx) < 2:
        raise RuntimeError("drain test: nothing forwarded")
    return rx, resumed, sent


def serving_rate(rx):
    """Frames/s while the switch was serving: departures over the time between them, leaving out
    gaps of more than STALL_GAP_NS (the forwarding thread held up). Reported, not used for R: how
    fast the switch forwards when it runs, next to what it sustains on this machine."""
    busy = sum(min(b - a, STALL_GAP_NS) for a, b in zip(rx, rx[1:]) if b - a <= STALL_GAP_NS)
    return (len(rx) - 1) / (busy / 1e9) if busy > 0 else float("inf")


def drain_latency(rx, resumed, frame_work, rate):
    """Smallest T (s) for which the service curve rate x (t - T), started when forwarding resumed,
    has served the k-th frame of the drain (frame_work work bytes each) by its departure."""
    return max((t - resumed) / 1e9 - (k + 1) * frame_work / rate for k, t in enumerate(rx))


def bench_run(lab, n, k, size, pps, burst, d):
    flows = [{"id": "b%d" % i, "num": i, "pair": i, "size": size, "pps": pps, "burstPackets": burst}
             for i in range(k)]
    records, tx, sent, sock_drops, switch = drive(lab, 100 + n, flows, None, d)
    st = [flow_stats(f, records.get(f["num"], []), tx.get(f["num"], {}), sent[f["num"]], d, None) for f in flows]
    for x in st:
        x.pop("lateWindows")
    received = sum(x["received"] for x in st)
    lost = sum(x["lost"] for x in st)
    return {"ports": k, "sizeBytes": size, "offeredPpsPerPort": pps, "burstPackets": burst,
            "durationSec": d, "sent": sum(x["sent"] for x in st), "received": received, "lost": lost,
            "senderLocalDrops": sum(x["sendErrors"] for x in st), "receiverSocketDrops": sock_drops,
            "switchRx": switch["rx"], "switchTx": received, "switchLost": lost,
            "achievedPps": received / d, "achievedBytesPerSec": received * size / d,
            "latencyNs": {q: max((x["latencyNs"][q] or 0) for x in st) for q in ("p50", "p99", "p999", "max")},
            "forwardingThread": switch.get("forwardingThread"), "flows": st}


def benchmark(lab, a):
    """Loko's recipe on this bridge, with the validation's own senders (greedy token buckets).

    1. Capacity: the rate at which the switch empties 1, 2 and 3 full input rings (measure_drain),
       per frame size, the slowest of every count of rings and of --drain-repeats; a fit of 1/pps(L) = (L + o)/R through 64 B and
       1500 B gives R (work bytes/s) and o. (Python senders cannot offer more than the switch
       serves on 2 shared cores, so an offered-load sweep would only give a lower bound.)
    2. Latency: 1, 2, 3 ports at fractions of that capacity; T is the smallest latency for which
       T + (ports x burst x (L + o))/R covers every loss-free run's maximum.
    3. Margin: R x (1 - m), T x (1 + m); the buffer from frames held while forwarding is stopped.
    """
    d = a.bench_duration
    runs = []
    cap = {}
    drains = []
    drain_ports = [int(x) for x in a.drain_ports.split(",")]
    for rep_i in range(a.drain_repeats):
        for size in (64, 1500):
            for k in drain_ports:
                rx, resumed, sent = measure_drain(lab, 50 + len(drains), size, ports=k)
                got = len(rx)
                rate_pps = serving_rate(rx)
                drains.append({"sizeBytes": size, "ports": k, "servingPps": rate_pps, "received": got, "sent": sent,
                               "overallPps": (got - 1) / ((rx[-1] - rx[0]) / 1e9),
                               "resumeToFirstNs": rx[0] - resumed,
                               "longestGapNs": max(b - a for a, b in zip(rx, rx[1:])),
                               "departures": rx, "resumedNs": resumed})
                log("bench capacity %d B [%d/%d]: %d ring(s) of frames emptied at %.0f frames/s (%.0f between "
                    "gaps over 1 ms; longest gap %.1f ms; %d of %d forwarded)" % (
                        size, rep_i + 1, a.drain_repeats, k, drains[-1]["overallPps"], rate_pps,
                        drains[-1]["longestGapNs"] / 1e6, got, sent))
                if got != sent:
                    raise RuntimeError("drain test lost frames: %d of %d" % (got, sent))
    def median_rate(size, k):
        v = sorted(x["overallPps"] for x in drains if x["sizeBytes"] == size and x["ports"] == k)
        return v[len(v) // 2]
    for size in (64, 1500):
        # Per number of backlogged ports the median repeat, then the slowest number of ports: the
        # switch's rate whichever ports carry its backlog. A repeat slowed by a stall does not set
        # the rate: the service curve is fitted to every drain below, and its stall goes into T.
        cap[size] = min(median_rate(size, k) for k in drain_ports)
    by_ports = {str(k): {str(size): median_rate(size, k) for size in (64, 1500)} for k in drain_ports}
    c1, c2 = 1.0 / cap[64], 1.0 / cap[1500]
    slope = (c2 - c1) / (1500 - 64)
    if slope > 0:
        rate = 1.0 / slope
        o = max(0.0, c1 * rate - 64)
    else:
        # The cost did not grow with size in this run: per frame, the slower of the two. A large o
        # makes every size cost about one frame (1500 B at most 10 % more than 64 B).
        o = 15000.0
        rate = (64 + o) * min(cap.values())
    fractions = [float(x) for x in a.load_fractions.split(",")]
    ports = [int(x) for x in a.bench_ports.split(",")]
    grid = [(k, size, f) for size in (64, 1500) for k in ports for f in fractions]
    for i, (k, size, f) in enumerate(grid, 1):
        pps = max(1, int(f * cap[size] / k))
        burst = max(a.bench_burst, int(pps * 0.003))
        r = bench_run(lab, len(runs) + 1, k, size, pps, burst, d)
        r["kind"] = "latency"
        r["loadFraction"] = f
        runs.append(r)
        log("bench latency [%d/%d] ports=%d size=%d at %.0f %% of capacity (%d pps/port, burst %d): "
            "sent %d, lost %d, max %.1f ms; forwarding thread waited %.0f ms for a CPU" % (
                i, len(grid), k, size, 100 * f, pps, burst, r["sent"], r["lost"], r["latencyNs"]["max"] / 1e6,
                (r["forwardingThread"] or {}).get("runQueueWaitNs", 0) / 1e6))
    clean = [r for r in runs if r["kind"] == "latency" and r["lost"] == 0 and r["received"] > 0]
    if not clean:
        raise RuntimeError("no loss-free latency run: cannot derive a model")
    t_runs = max(r["latencyNs"]["max"] / 1e9 - r["ports"] * r["burstPackets"] * (r["sizeBytes"] + o) / rate
                 for r in clean)
    # The drains' stalls (and the wake-up after the stop) are latency of the same service curve.
    for x in drains:
        x["latencyNeededNs"] = drain_latency(x["departures"], x["resumedNs"], x["sizeBytes"] + o, rate) * 1e9
    t_drains = max(x["latencyNeededNs"] for x in drains) / 1e9
    t_needed = max(t_runs, t_drains)
    log("bench latency T: %.1f ms from the latency runs, %.1f ms from the drains" % (t_runs * 1e3, t_drains * 1e3))
    model = {
        "serviceRateBytesPerSec": int(rate * (1 - a.margin)),
        "serviceLatencyMicros": int(max(0.0, t_needed) * (1 + a.margin) * 1e6) + 1,
        "perPacketOverheadBytes": int(round(o)),
        "maxBurstPackets": max(r["ports"] * r["burstPackets"] for r in clean),
        "margin": a.margin,
        "measured": {"serviceRateBytesPerSec": rate, "serviceLatencyMicros": t_needed * 1e6,
                     "capacityPps": {str(k): v for k, v in cap.items()},
                     "drains": drains, "capacityPpsByBackloggedPorts": by_ports,
                     "latencyRunsWithLoss": sum(1 for r in runs if r["kind"] == "latency" and r["lost"] > 0)},
    }
    viol = 0
    for r in clean:
        work = (r["sizeBytes"] + model["perPacketOverheadBytes"]) * r["ports"] * r["burstPackets"]
        r["modelBoundNs"] = model["serviceLatencyMicros"] * 1e3 + work / model["serviceRateBytesPerSec"] * 1e9
        viol += r["latencyNs"]["max"] > r["modelBoundNs"]
    for x in drains:  # every drained frame served by the margined curve too
        work = x["sizeBytes"] + model["perPacketOverheadBytes"]
        t_margined = drain_latency(x.pop("departures"), x.pop("resumedNs"), work, model["serviceRateBytesPerSec"])
        viol += t_margined * 1e6 > model["serviceLatencyMicros"]
    model["observationsAboveBound"] = viol
    o = model["perPacketOverheadBytes"]
    held = {}
    for size in (64, 1500):
        held[size] = measure_buffer(lab, size)
        log("bench buffer: %d of %d frames of %d B held while forwarding was stopped" % (
            held[size][0], held[size][1], size))
    # The backlog of all ports may sit in one input port's ring: one port's buffer, in work bytes.
    model["maxBacklogBytes"] = int(min(h * (s + o) for s, (h, _) in held.items()) * (1 - a.margin))
    model["measured"]["framesHeldWhileStopped"] = {str(s): h for s, (h, _) in held.items()}
    model["bestEffortRateBytesPerSec"] = int(a.best_effort_share * rate_budget(model))
    model["bestEffortBurstBytes"] = a.cross_burst * (1500 + o)
    return runs, model


def rate_budget(model):
    """Work rate the switch can be offered at all: R, and no more than fills half its buffer
    during T (the backlog bound holds rate x T plus the bursts, which get the other half)."""
    t = model["serviceLatencyMicros"] / 1e6
    return min(model["serviceRateBytesPerSec"], model["maxBacklogBytes"] / 2 / t)


def candidates(model, a):
    """Identical flows of 64 B frames, interleaved over the guaranteed port pairs."""
    o = model["perPacketOverheadBytes"]
    R = model["serviceRateBytesPerSec"]
    free = rate_budget(model) - model["bestEffortRateBytesPerSec"]
    pps = max(1, int(free / a.flows_per_capacity / (64 + o)))
    # --deadline-flows + 1 flows' bursts fit in half the buffer.
    burst = max(1, min(a.flow_burst, int(model["maxBacklogBytes"] / 2 / (a.deadline_flows + 1) / (64 + o))))
    n = a.flows_per_port * GUARANTEED_PAIRS
    tx = -(-MTU * 8 * 1_000_000_000 // PORT_BPS)
    # The deadline admits --deadline-flows flows' bursts (and a half) on one server: the shared
    # switch stops there, independent ports each admit that many (Loko's contrast: bursts on the
    # other ports delay a flow too). The rate alone would allow --flows-per-capacity on the switch.
    bursts = (a.deadline_flows + 0.5) * burst * (64 + o) + model["bestEffortBurstBytes"]
    T = model["serviceLatencyMicros"] / 1e6
    if a.scopes.split(",")[0] == "SHARED_SWITCH_ANY_ORDER":
        # The switch serves its inputs in no fixed order (OVS polls them round-robin): the bound
        # is the longest busy period T + (B + rho T)/(R - rho), with rho the flows' and best
        # effort's work rate.
        rho = (a.deadline_flows + 0.5) * pps * (64 + o) + model["bestEffortRateBytesPerSec"]
        deadline = int((T + (bursts + rho * T) / (R - rho)) * 1e9 + tx)
    else:
        deadline = int((T + bursts / R) * 1e9 + tx)
    return [{"id": "f%d" % i, "pair": i % GUARANTEED_PAIRS, "outPort": 2 * (i % GUARANTEED_PAIRS) + 2,
             "pps": pps, "burstPackets": burst, "rateBytesPerSec": pps * 64, "burstBytes": burst * 64,
             "minPacketBytes": 64, "maxPacketBytes": 64, "deadlineNanos": deadline} for i in range(n)]


def admit(model, flows, scope, out, jar):
    req = {"model": {k: v for k, v in model.items() if isinstance(v, int)}, "scope": scope, "mtuBytes": MTU,
           "portCapacityBps": PORT_BPS,
           "flows": [{k: f[k] for k in ("id", "outPort", "rateBytesPerSec", "burstBytes", "minPacketBytes",
                                         "maxPacketBytes", "deadlineNanos")} for f in flows]}
    path = os.path.join(out, "admission-%s-request.json" % scope)
    with open(path, "w") as fh:
        json.dump(req, fh, indent=1)
    p = subprocess.run(["java", "-cp", jar, "org.planck.lab.admission.AdmissionPlanCommand", path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    if p.returncode != 0:
        raise RuntimeError("admission-plan failed: " + p.stderr.strip())
    with open(os.path.join(out, "admission-%s.json" % scope), "w") as fh:
        fh.write(p.stdout)
    return json.loads(p.stdout)


def burst_needed(send_ns, pps):
    """Smallest bucket, in frames, for which the frames' send times keep rate pps."""
    tokens = 0.0
    low = 0.0
    last = None
    for t in send_ns:
        if last is not None:
            tokens = min(0.0, tokens + pps * (t - last) / 1e9)
        last = t
        tokens -= 1
        low = min(low, tokens)
    return -low


def drive(lab, run_id, flows, cross, duration):
    """Runs every pair's senders and receivers at once; returns per-flow records and sent counts."""
    me = os.path.abspath(__file__)
    if lab.isolate:
        lab.isolate_switch()
    pairs = sorted({f["pair"] for f in flows} | ({CROSS_PAIR} if cross else set()))
    recvs, outs = {}, {}
    for i in pairs:
        outs[i] = os.path.join(lab.d, "v-%d-%d.bin" % (run_id, i))
        recvs[i] = subprocess.Popen(["ip", "netns", "exec", lab.ns("r", i), sys.executable, me, "tbrecv",
                                     "--ifname", "eth0", "--run", str(run_id), "--duration", str(duration + 60),
                                     "--out", outs[i]], stdout=subprocess.PIPE, text=True)
    for p in recvs.values():
        if p.stdout.readline().strip() != "ready":
            raise RuntimeError("receiver did not start")
    start_at = time.time() + 2.0
    fwd_before = lab.forwarding_thread_stats()
    sends = {}
    for i in pairs:
        mine = [{"flow": f["num"], "size": f["size"], "pps": f["pps"], "burst": f["burstPackets"],
                 "quota": f.get("quota")} for f in flows + ([cross] if cross else []) if f["pair"] == i]
        prefix, ifname = lab.sender(i)
        sends[i] = (subprocess.Popen(
            prefix + [sys.executable, me, "tbsend", "--ifname", ifname,
             "--run", str(run_id), "--flow-spec", json.dumps(mine), "--start-at", repr(start_at),
             "--duration", str(duration), "--out", outs[i] + ".tx", "--src-mac", "02:00:00:00:01:%02x" % i,
             "--dst-mac", "02:00:00:00:02:%02x" % i], stdout=subprocess.PIPE, text=True))
    before = lab.port_counters()
    sent = {}
    # Senders of guaranteed flows end on their own (quota or duration); cross traffic then stops.
    order = [i for i in pairs if i != CROSS_PAIR or not cross] + ([CROSS_PAIR] if cross else [])
    for i in order:
        p = sends[i]
        if cross and i == CROSS_PAIR:
            p.send_signal(signal.SIGTERM)
        o, _ = p.communicate(timeout=duration + 60)
        for k, v in json.loads(o.strip().splitlines()[-1]).items():
            sent[int(k)] = v
    time.sleep(2.5)  # frames still queued in the switch (its ring drains in well under a second)
    for p in recvs.values():
        p.send_signal(signal.SIGTERM)
    tx = {}  # flow -> {seq: (user stamp, kernel stamp)}
    for i in pairs:
        a = array.array("q")
        with open(outs[i] + ".tx", "rb") as fh:
            a.frombytes(fh.read())
        os.unlink(outs[i] + ".tx")
        for j in range(0, len(a), 4):
            tx.setdefault(a[j], {})[a[j + 1]] = (a[j + 2], a[j + 3])
    records = {}
    sock_drops = 0
    for i, p in recvs.items():
        o, _ = p.communicate(timeout=duration + 60)
        sock_drops += json.loads(o.strip().splitlines()[-1])["socketDrops"]
        a = array.array("q")
        with open(outs[i], "rb") as fh:
            a.frombytes(fh.read())
        os.unlink(outs[i])
        for j in range(0, len(a), 4):
            records.setdefault(a[j], []).append((a[j + 1], a[j + 2], a[j + 3]))
    after = lab.port_counters()
    switch = {"rx": sum(after[2 * i + 1][0] - before[2 * i + 1][0] for i in pairs),
              "tx": sum(after[2 * i + 2][1] - before[2 * i + 2][1] for i in pairs)}
    fwd_after = lab.forwarding_thread_stats()
    if fwd_before and fwd_after:
        switch["forwardingThread"] = {k: fwd_after[k] - fwd_before[k] for k in fwd_before}
    return records, tx, sent, sock_drops, switch


def flow_stats(f, recs, tx, sent, duration, bound):
    """Latency of a frame: kernel receive stamp - kernel transmit stamp (the frame entering the
    switch's input ring), both CLOCK_REALTIME; where the transmit stamp was not reported, from the
    stamp the sender wrote into the frame (earlier, so an over-estimate), counted in userStamped."""
    recs.sort()
    lat = []
    user_only = 0
    late = set()  # 100 ms windows (of the transmit stamp) with a frame over the deadline
    for seq, ut, rx in recs:
        k = tx.get(seq, (ut, 0))[1]
        if k == 0:
            user_only += 1
            k = ut
        lat.append(rx - k)
        if "deadlineNanos" in f and rx - k > f["deadlineNanos"]:
            late.add(k // LATE_WINDOW_NS)
    lat.sort()
    stamps = sorted(tx.values())
    n_sent = sent["sent"]
    over = len(lat) - bisect.bisect_right(lat, f["deadlineNanos"]) if "deadlineNanos" in f else 0
    lost = n_sent - len(lat)  # includes frames the switch's full input ring refused
    user_lag = max((k - u for u, k in stamps if k), default=0)
    return {
        "userStamped": user_only, "sendErrors": sent["sendErrors"],
        "burstAsStamped": burst_needed([u for u, _ in stamps], f["pps"]),
        "burstAtSwitchInput": burst_needed(sorted(k for _, k in stamps if k), f["pps"]),
        "maxStampToXmitNs": user_lag,
        "id": f["id"], "pair": f["pair"], "pps": f["pps"], "burstPackets": f["burstPackets"],
        "sent": n_sent, "received": len(lat), "lost": lost, "overDeadline": over,
        "violations": lost + over if "deadlineNanos" in f else None,
        "achievedPps": n_sent / duration, "boundNs": bound, "deadlineNs": f.get("deadlineNanos"),
        "latencyNs": {"p50": sb.percentile(lat, 0.5), "p99": sb.percentile(lat, 0.99),
                      "p999": sb.percentile(lat, 0.999), "max": lat[-1] if lat else None},
        "maxOverBound": (lat[-1] / bound) if lat and bound else None,
        "lateWindows": sorted(late),
    }


def late_windows(stats):
    """Where the late frames were: 100 ms windows with a late frame, and how many of them had late
    frames on every guaranteed port pair in use (a stall of the whole switch) rather than on some
    pairs only (interference between ports or one pair's sender/receiver)."""
    pairs = {s["pair"] for s in stats}
    by_window = {}
    for s in stats:
        for w in s.pop("lateWindows"):
            by_window.setdefault(w, set()).add(s["pair"])
    return {"windowMs": LATE_WINDOW_NS // 1_000_000, "windows": len(by_window),
            "allPairs": sum(1 for p in by_window.values() if p == pairs),
            "perPair": {str(p): sum(1 for q in by_window.values() if p in q) for p in sorted(pairs)}}


def validate(lab, model, a, jar):
    flows = candidates(model, a)
    o = model["perPacketOverheadBytes"]
    cross_pps = int(model["bestEffortRateBytesPerSec"] / (1500 + o))
    cross = None
    if cross_pps >= 1:
        cross = {"id": "cross", "num": 999, "pair": CROSS_PAIR, "size": 1500, "pps": cross_pps,
                 "burstPackets": a.cross_burst}
    results = []
    for n, scope in enumerate(a.scopes.split(",")):
        answer = admit(model, flows, scope, a.out, jar)
        ok = [d["id"] for d in answer["decisions"] if d["admitted"]]
        refused = [d for d in answer["decisions"] if not d["admitted"]]
        chosen = [dict(f, num=i, size=64) for i, f in enumerate(flows) if f["id"] in ok]
        bounds = answer["boundsNanos"]
        if not chosen:
            log("%s admits nothing: %s" % (scope, refused[0]["reason"] if refused else "?"))
            results.append({"scope": scope, "admitted": 0, "flows": [], "firstRefusal": refused[0]["reason"]})
            continue
        total_pps = sum(f["pps"] for f in chosen)
        target = a.packets if n == 0 else a.contrast_packets
        for f in chosen:
            f["quota"] = -(-target // len(chosen))
        # The guarantee is checked over --packets; the independent-port contrast needs fewer.
        # Senders under load fall short of their rate: they stop at their quota, or at 4x the time.
        duration = 4 * max(a.min_duration, target / total_pps)
        log("%s admits %d of %d flows (%d pps of 64 B each, burst %d), bound %.1f ms, deadline %.1f ms; "
            "driving up to %.0f s%s" % (scope, len(chosen), len(flows), chosen[0]["pps"], chosen[0]["burstPackets"],
                                  max(bounds.values()) / 1e6, flows[0]["deadlineNanos"] / 1e6, duration,
                                  "" if not cross else " with %d pps of 1500 B cross traffic" % cross_pps))
        records, tx, sent, sock_drops, switch = drive(lab, 3_000_000 + n, chosen, cross, duration)
        duration = max(v["elapsedSec"] for v in sent.values())
        stats = [flow_stats(f, records.get(f["num"], []), tx.get(f["num"], {}), sent[f["num"]], duration,
                            bounds[f["id"]]) for f in chosen]
        windows = late_windows(stats)
        cross_stats = None
        if cross:
            cross_stats = flow_stats(cross, records.get(999, []), tx.get(999, {}), sent[999], duration, None)
            cross_stats.pop("lateWindows")
        r = {"scope": scope, "admitted": len(chosen), "candidates": len(flows), "durationSec": duration,
             "firstRefusal": refused[0]["reason"] if refused else None, "flows": stats, "cross": cross_stats,
             "receiverSocketDrops": sock_drops, "switch": switch,
             "packets": sum(s["sent"] for s in stats), "violations": sum(s["violations"] for s in stats),
             "lost": sum(s["lost"] for s in stats), "overDeadline": sum(s["overDeadline"] for s in stats),
             "loadavg": os.getloadavg(), "lateWindows": windows}
        results.append(r)
        ft = switch.get("forwardingThread")
        log("%s: %d packets, %d lost, %d over deadline, max/bound %s; late in %d windows of %d ms (%d on every "
            "pair)%s" % (
                scope, r["packets"], r["lost"], r["overDeadline"],
                " ".join("%.3f" % s["maxOverBound"] for s in stats if s["maxOverBound"] is not None),
                windows["windows"], windows["windowMs"], windows["allPairs"],
                "" if not ft else "; forwarding thread: %.0f ms CPU, %.0f ms waiting for a CPU, %d preemptions" % (
                    ft["cpuNs"] / 1e6, ft["runQueueWaitNs"] / 1e6, ft["involuntarySwitches"])))
    return flows, results


# ---------------------------------------------------------------- report


def write_report(a, model, flows, results, started, elapsed):
    with open(os.path.join(a.out, "validation.json"), "w") as fh:
        json.dump({"args": vars(a), "model": model, "candidates": flows, "runs": results,
                   "startedUtc": started, "elapsedSec": elapsed}, fh, indent=1)
    plotted = plot(results, os.path.join(a.out, "validation.png"))
    ms = lambda ns: "-" if ns is None else "%.2f" % (ns / 1e6)  # noqa: E731
    L = ["# Loko validation on real Open vSwitch", "",
         "Started %s UTC, %.0f s in total. Command: `%s`." % (started, elapsed, " ".join(sys.argv)), "",
         "## Switch model (this run's benchmark, margin %.0f %%)" % (100 * a.margin), "",
         "| R (work B/s) | T (us) | per-packet cost o (B) | backlog (work B) | best effort (work B/s + B) |",
         "|---|---|---|---|---|",
         "| %d | %d | %d | %d | %d + %d |" % (
             model["serviceRateBytesPerSec"], model["serviceLatencyMicros"], model["perPacketOverheadBytes"],
             model["maxBacklogBytes"], model["bestEffortRateBytesPerSec"], model["bestEffortBurstBytes"]), "",
         "Measured before the margin: R = %.0f B/s, T = %.0f us, frames held while stopped %s; loss-free "
         "observations above the bound: %d." % (
             model["measured"]["serviceRateBytesPerSec"], model["measured"]["serviceLatencyMicros"],
             model["measured"]["framesHeldWhileStopped"], model["observationsAboveBound"]), "",
         "## Admission (the app's AdmissionPlanner) and traffic", "",
         "%d candidate flows of 64 B frames, %d pps (%d B/s), burst %d frames, deadline %s ms, over %d port pairs; "
         "best-effort cross traffic of 1500 B frames on a fourth pair." % (
             len(flows), flows[0]["pps"], flows[0]["rateBytesPerSec"], flows[0]["burstPackets"],
             ms(flows[0]["deadlineNanos"]), GUARANTEED_PAIRS), "",
         "| model | admitted | packets | lost | over deadline | violations | max latency (ms) | max / bound |",
         "|---|---|---|---|---|---|---|---|"]
    for r in results:
        if not r["flows"]:
            L.append("| %s | 0 | - | - | - | - | - | - |" % r["scope"])
            continue
        mx = max(s["latencyNs"]["max"] or 0 for s in r["flows"])
        mob = max(s["maxOverBound"] or 0 for s in r["flows"])
        L.append("| %s | %d of %d | %d | %d | %d | **%d** | %s | %.3f |" % (
            r["scope"], r["admitted"], r["candidates"], r["packets"], r["lost"], r["overDeadline"],
            r["violations"], ms(mx), mob))
    for r in results:
        if not r["flows"]:
            continue
        L += ["", "### %s: per flow (%.0f s, load average %s at the end)" % (
            r["scope"], r["durationSec"], " ".join("%.1f" % x for x in r["loadavg"])), "",
              "| flow | pair | sent | achieved pps | lost | over deadline | p50 | p99 | max (ms) | bound (ms) | "
              "max / bound | burst at switch input / bucket (frames) |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for s in r["flows"] + ([r["cross"]] if r["cross"] else []):
            lt = s["latencyNs"]
            L.append("| %s | %d | %d | %.0f | %d | %s | %s | %s | %s | %s | %s | %s |" % (
                s["id"], s["pair"], s["sent"], s["achievedPps"], s["lost"],
                s["overDeadline"] if s["boundNs"] else "-", ms(lt["p50"]), ms(lt["p99"]), ms(lt["max"]),
                ms(s["boundNs"]), "%.3f" % s["maxOverBound"] if s["maxOverBound"] else "-",
                "%.2f / %d" % (s["burstAtSwitchInput"], s["burstPackets"])))
        if r["firstRefusal"]:
            L += ["", "First refusal: `%s`" % r["firstRefusal"]]
    if plotted:
        L += ["", "![max latency / bound per flow and latency CDF](validation.png)"]
    with open(os.path.join(a.out, "report.md"), "w") as fh:
        fh.write("\n".join(L) + "\n")


def plot(results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib missing: no plot")
        return False
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    x = 0
    for r, color in zip(results, ("tab:green", "tab:orange", "tab:red")):
        ys = [s["maxOverBound"] or 0 for s in r["flows"]]
        ax1.bar(range(x, x + len(ys)), ys, color=color, label="%s (%d flows)" % (r["scope"], len(ys)))
        x += len(ys) + 1
    ax1.axhline(1.0, color="k", linestyle="--", linewidth=0.8, label="bound")
    ax1.set_ylabel("max observed latency / bound")
    ax1.set_xlabel("admitted flow")
    ax1.set_yscale("log")
    ax1.legend(fontsize=8)
    ax1.set_title("per flow: max latency over its bound")
    for r, color in zip(results, ("tab:green", "tab:orange", "tab:red")):
        if not r["flows"]:
            continue
        ax2.axvline(r["flows"][0]["deadlineNs"] / 1e6, color="k", linestyle="--", linewidth=0.8)
        # Quantiles of the received packets of every flow; lost packets are counted in the legend.
        for key, q, mk in (("p50", 0.5, "o"), ("p99", 0.99, "s"), ("p999", 0.999, "^"), ("max", 1.0, "x")):
            v = [f["latencyNs"][key] / 1e6 for f in r["flows"] if f["latencyNs"][key]]
            ax2.scatter(v, [q] * len(v), color=color, marker=mk, s=14,
                        label=None if key != "max" else "%s: %d of %d lost" % (r["scope"], r["lost"], r["packets"]))
    ax2.set_xscale("log")
    ax2.set_xlabel("latency through OVS, ms (dashed: deadline)")
    ax2.set_ylabel("quantile per flow (p50, p99, p99.9, max)")
    ax2.legend(fontsize=8)
    ax2.set_title("latency quantiles of every admitted flow")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def role_main(a):
    if os.geteuid() != 0:
        sys.exit("validate: must run as root")
    jar = a.lab_jar
    if not os.path.exists(jar):
        sys.exit("validate: %s missing: mvn -B -q -ntp -o install -DskipTests -pl api,app,lab -am" % jar)
    random.seed(a.seed)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("validate: terminated"))
    os.makedirs(a.out, exist_ok=True)
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
    t0 = time.monotonic()
    lab = sb.Lab(GUARANTEED_PAIRS + 1, ingress=a.ingress, isolate=not a.no_isolate)
    try:
        lab.start()
        if lab.isolate and lab.isolate_switch():
            log("switch isolated: forwarding thread on CPU %s, senders, receivers and OVS's other threads on %s" % (
                sorted(lab.switch_cpus), sorted(lab.generator_cpus)))
        lab.warm_up()
        log("stage 1/3: benchmark")
        runs, model = benchmark(lab, a)
        os.makedirs(os.path.join(a.out, "bench"), exist_ok=True)
        with open(os.path.join(a.out, "bench", "measurements.json"), "w") as fh:
            json.dump({"meta": {"tool": "loko/validate.py", "loadavg": os.getloadavg(), "args": vars(a)},
                       "runs": runs}, fh, indent=1)
        with open(os.path.join(a.out, "switch-model.json"), "w") as fh:
            json.dump(model, fh, indent=1)
        sb.plot(runs, model, os.path.join(a.out, "bench", "latency-vs-load.png"))
        log("model: R=%d B/s T=%d us o=%d B backlog=%d B best effort %d B/s + %d B" % (
            model["serviceRateBytesPerSec"], model["serviceLatencyMicros"], model["perPacketOverheadBytes"],
            model["maxBacklogBytes"], model["bestEffortRateBytesPerSec"], model["bestEffortBurstBytes"]))
        log("stage 2/3: admission and traffic")
        flows, results = validate(lab, model, a, jar)
    finally:
        lab.stop()
    log("stage 3/3: report")
    write_report(a, model, flows, results, started, time.monotonic() - t0)
    log("wrote %s/report.md" % a.out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="role")
    v = ap
    v.add_argument("--out", default="results/loko-validation")
    v.add_argument("--lab-jar", default=os.path.join(REPO, "lab", "target", "planck-lab.jar"))
    v.add_argument("--packets", type=int, default=1_000_000, help="guaranteed packets per model, at least")
    v.add_argument("--contrast-packets", type=int, default=300_000,
                   help="guaranteed packets offered under the independent-port model")
    v.add_argument("--min-duration", type=float, default=5.0, help="seconds of traffic per model, at least")
    v.add_argument("--bench-duration", type=float, default=8.0, help="seconds per benchmark run")
    v.add_argument("--bench-burst", type=int, default=8, help="latency runs: bucket, frames (at least)")
    v.add_argument("--drain-repeats", type=int, default=3, help="capacity (ring drain) tests per frame size")
    v.add_argument("--drain-ports", default="1,2,3",
                   help="capacity: numbers of input ports backlogged at once (the slowest counts)")
    v.add_argument("--load-fractions", default="0.3,0.6,0.85", help="latency runs: fractions of capacity")
    v.add_argument("--bench-ports", default="1,2,3", help="latency runs: port pairs driven at once")
    v.add_argument("--margin", type=float, default=0.25, help="R and backlog scaled by 1-margin, T by 1+margin")
    v.add_argument("--flows-per-port", type=int, default=6, help="candidate flows per guaranteed port pair")
    v.add_argument("--scopes", default="SHARED_SWITCH_ANY_ORDER,SHARED_SWITCH,PER_PORT",
                   help="analysis scopes of the app's planner, each admitting and driven in turn; the first is the "
                        "guarantee checked over --packets and sets the deadline, the others are contrasts")
    v.add_argument("--flows-per-capacity", type=float, default=8,
                   help="a flow's rate is the guaranteed capacity divided by this")
    v.add_argument("--flow-burst", type=int, default=512, help="token bucket depth, 64 B frames")
    v.add_argument("--deadline-flows", type=int, default=4,
                   help="the deadline leaves room for this many flows' bursts on one server")
    v.add_argument("--best-effort-share", type=float, default=0.15, help="share of R for cross traffic")
    v.add_argument("--cross-burst", type=int, default=4, help="cross traffic bucket, 1500 B frames")
    v.add_argument("--seed", type=int, default=1)
    v.add_argument("--ingress", choices=("tap", "veth"), default="tap",
                   help="switch input: OVS internal port (tap ring of %d frames) or veth" % sb.TAP_QUEUE)
    v.add_argument("--no-isolate", action="store_true",
                   help="leave OVS's forwarding thread to share CPUs with the senders and receivers, and OVS's "
                        "flow expiry, revalidation and statistics at their defaults")
    s = sub.add_parser("tbsend")
    s.add_argument("--ifname", required=True)
    s.add_argument("--run", type=int, required=True)
    s.add_argument("--flow-spec", required=True)
    s.add_argument("--start-at", type=float, required=True)
    s.add_argument("--duration", type=float, required=True)
    s.add_argument("--src-mac", required=True)
    s.add_argument("--dst-mac", required=True)
    s.add_argument("--out", required=True, help="per frame: flow, seq, user stamp, kernel transmit stamp")
    r = sub.add_parser("tbrecv")
    r.add_argument("--ifname", required=True)
    r.add_argument("--run", type=int, required=True)
    r.add_argument("--duration", type=float, required=True)
    r.add_argument("--out", required=True)
    a = ap.parse_args()
    {None: role_main, "tbsend": role_tbsend, "tbrecv": role_tbrecv}[a.role](a)


if __name__ == "__main__":
    main()
