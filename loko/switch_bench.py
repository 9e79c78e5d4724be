#!/usr/bin/env python3
"""Loko switch benchmark: per-packet latency through a real Open vSwitch bridge.

Roles:
  run   (root, orchestrator) starts a private ovsdb-server/ovs-vswitchd (userspace datapath) in
        a temp dir, creates 2N network namespaces (sender i -> receiver i, one bridge port
        each, one OpenFlow rule per pair), sweeps port counts, packet sizes and rates, and
        writes the measurements, the derived switch model (JSON) and a plot.
  send  (inside a sender namespace) paced raw Ethernet frames carrying seq + send time.
  recv  (inside a receiver namespace) kernel receive timestamps (SO_TIMESTAMPNS), latency
        per packet = receive time - send time; both are CLOCK_REALTIME of the same kernel.

The send time is read just before sendto(), so the measured latency includes the sender's
own syscall path: it over-estimates the switch's latency, never under-estimates it.
"""
import argparse
import array
import json
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

ETH_TYPE = 0x88B5  # IEEE local experimental: the kernel stack ignores it
MAGIC = 0x4C4F4B4F  # "LOKO"
HDR = struct.Struct("!IIHQq")  # magic, run id, flow, seq, send ns
SO_TIMESTAMPNS = 35
SCM_TIMESTAMPNS = SO_TIMESTAMPNS
SO_RXQ_OVFL = 40  # cmsg: packets the socket dropped (receiver too slow), not the switch
SO_RCVBUFFORCE = 33  # root may exceed net.core.rmem_max for its own socket
PACKET_QDISC_BYPASS = 20  # straight to the device: a tap's ring is then the switch's input buffer
SOL_PACKET = 263
TAP_QUEUE = 4096  # frames an ingress tap holds for ovs-vswitchd (its txqueuelen)
MIN_FRAME = 60


def log(msg):
    print(msg, flush=True)


# ---------------------------------------------------------------- sender / receiver roles


def role_send(a):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((a.ifname, 0))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
    s.setsockopt(SOL_PACKET, PACKET_QDISC_BYPASS, 1)
    dst = bytes.fromhex(a.dst_mac.replace(":", ""))
    src = bytes.fromhex(a.src_mac.replace(":", ""))
    head = dst + src + struct.pack("!H", ETH_TYPE)
    pad = bytes(max(0, a.size - len(head) - HDR.size))
    interval = a.burst / a.pps
    deadline = time.perf_counter() + a.duration
    nxt = time.perf_counter()
    seq = 0
    dropped_local = 0
    while True:
        now = time.perf_counter()
        if now >= deadline:
            break
        if now < nxt:
            time.sleep(max(0.0, nxt - now - 0.0002))
            continue
        for _ in range(a.burst):
            frame = head + HDR.pack(MAGIC, a.run, a.flow, seq, time.time_ns()) + pad
            try:
                s.send(frame)
            except OSError:
                dropped_local += 1  # counted: the sender's own queue was full
            seq += 1
        nxt += interval
        if nxt < now - 0.05:  # fell behind by > 50 ms: do not burst to catch up
            nxt = now
    print(json.dumps({"sent": seq, "localDrops": dropped_local}), flush=True)


def role_recv(a):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_TYPE))
    s.bind((a.ifname, ETH_TYPE))  # CPython converts the protocol to network order itself
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
    s.setsockopt(socket.SOL_SOCKET, SO_RXQ_OVFL, 1)
    s.settimeout(0.5)
    lat = array.array("q")
    seen = 0
    sock_drops = 0
    print("ready", flush=True)
    stop_at = time.monotonic() + a.duration
    while time.monotonic() < stop_at:
        try:
            data, anc, _, _ = s.recvmsg(2048, 64)
        except socket.timeout:
            continue
        if len(data) < 14 + HDR.size:
            continue
        magic, run, flow, seq, sent = HDR.unpack_from(data, 14)
        if magic != MAGIC or run != a.run or flow != a.flow:
            continue
        rx = None
        for level, typ, val in anc:
            if level == socket.SOL_SOCKET and typ == SCM_TIMESTAMPNS:
                sec, ns = struct.unpack("qq", val[:16])
                rx = sec * 1_000_000_000 + ns
            elif level == socket.SOL_SOCKET and typ == SO_RXQ_OVFL:
                sock_drops = struct.unpack("I", val[:4])[0]
        if rx is None:
            continue
        lat.append(rx - sent)
        seen += 1
    with open(a.out, "wb") as f:
        lat.tofile(f)
    print(json.dumps({"received": seen, "socketDrops": sock_drops}), flush=True)


# ---------------------------------------------------------------- orchestrator


class Lab:
    """A private OVS instance, N receiver namespaces on veths and N senders; everything named with
    a random prefix.

    Senders are namespaces on veths too (ingress "veth": OVS reads them from an AF_PACKET socket
    whose buffer is net.core.rmem_default, about 250 small frames), or (ingress "tap") processes
    in the root namespace writing to an OVS internal port, a tap whose ring of TAP_QUEUE frames
    is the switch's input buffer, set per device without touching system-wide settings.
    """

    def __init__(self, ports, ingress="veth", isolate=False):
        self.ingress = ingress
        self.isolate = isolate
        self.switch_cpus = self.generator_cpus = None
        # From the OS, not from the seeded generator: runs with the same seed (every CI run of the
        # validation) must not share names, or one run's setup and cleanup removes the other's links.
        self.p = "lk%s" % os.urandom(3).hex()
        self.d = tempfile.mkdtemp(prefix="planck-loko.")
        self.ports = ports
        self.br = self.p + "br"
        self.env = dict(os.environ, OVS_RUNDIR=self.d, OVS_LOGDIR=self.d, OVS_DBDIR=self.d,
                        OVS_SYSCONFDIR=self.d)
        self.vsctl = ["ovs-vsctl", "--db=unix:%s/db.sock" % self.d, "--timeout=20"]

    def sh(self, *cmd, check=True):
        return subprocess.run(list(cmd), env=self.env, check=check, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)

    def ns(self, kind, i):
        return "%s%s%d" % (self.p, kind, i)

    def start(self):
        d = self.d
        self.sh("ovsdb-tool", "create", d + "/conf.db", "/usr/share/openvswitch/vswitch.ovsschema")
        self.sh("ovsdb-server", d + "/conf.db", "--remote=punix:%s/db.sock" % d,
                "--pidfile=%s/ovsdb-server.pid" % d, "--unixctl=%s/ovsdb-server.ctl" % d,
                "--log-file=%s/ovsdb-server.log" % d, "--detach", "--no-chdir")
        self.sh(*self.vsctl, "--no-wait", "init")
        if self.isolate:
            # The switch under test kept deterministic, as a dedicated switch would be: no datapath
            # flow expires during a run (so no upcall on a flow's packets after the warm-up), the
            # revalidators dump rarely, statistics go to the database rarely, one handler and one
            # revalidator thread, memory locked (no page faults in the forwarding path).
            self.sh(*self.vsctl, "--no-wait", "set", "Open_vSwitch", ".",
                    "other_config:max-idle=3600000", "other_config:max-revalidator=3600000",
                    "other_config:stats-update-interval=3600000", "other_config:n-handler-threads=1",
                    "other_config:n-revalidator-threads=1")
        self.sh("ovs-vswitchd", "unix:%s/db.sock" % d, "--pidfile=%s/ovs-vswitchd.pid" % d,
                "--unixctl=%s/ovs-vswitchd.ctl" % d, "--log-file=%s/ovs-vswitchd.log" % d,
                "--detach", "--no-chdir", *(["--mlockall"] if self.isolate else []))
        self.sh(*self.vsctl, "add-br", self.br, "--", "set", "bridge", self.br, "datapath_type=netdev",
                "--", "set", "bridge", self.br, "fail-mode=secure")
        ofport = 1
        flows = []
        for i in range(self.ports):
            for kind in ("s", "r"):
                if kind == "s" and self.ingress == "tap":
                    self.add_tap(self.tap(i), ofport)
                    ofport += 1
                    continue
                ns = self.ns(kind, i)
                a, b = ns + "a", ns + "b"
                self.sh("ip", "netns", "add", ns)
                self.sh("ip", "link", "add", a, "type", "veth", "peer", "name", b)
                self.sh("ip", "link", "set", a, "netns", ns)
                self.sh("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
                self.sh("ip", "netns", "exec", ns, "ip", "link", "set", a, "name", "eth0")
                self.sh("ip", "netns", "exec", ns, "ip", "link", "set", "eth0", "up")
                self.sh("sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % b, check=False)
                self.sh("ip", "link", "set", b, "up")
                self.sh(*self.vsctl, "add-port", self.br, b, "--", "set", "interface", b,
                        "ofport_request=%d" % ofport)
                ofport += 1
            flows.append("in_port=%d,actions=output:%d" % (2 * i + 1, 2 * i + 2))
        mgmt = "%s/%s.mgmt" % (self.d, self.br)
        for _ in range(100):  # vswitchd creates the bridge's socket asynchronously
            if os.path.exists(mgmt):
                break
            time.sleep(0.1)
        for f in flows:
            self.sh("ovs-ofctl", "add-flow", "unix:" + mgmt, f)
        # ovs-ofctl reaches the bridge through its mgmt socket in the run dir.
        dump = self.sh("ovs-ofctl", "dump-flows", "unix:%s/%s.mgmt" % (self.d, self.br), check=False)
        if dump.stdout.count("actions=output") < self.ports:
            raise RuntimeError("flows not installed: " + dump.stdout + dump.stderr)

    def vswitchd_pid(self):
        with open(os.path.join(self.d, "ovs-vswitchd.pid")) as fh:
            return int(fh.read().strip())

    def isolate_switch(self):
        """Gives the switch's forwarding thread a CPU of its own among this run's processes.

        With a userspace datapath and non-PMD ports (taps, veths), ovs-vswitchd's main thread polls
        every port: it is the switch's forwarding engine. Left to the scheduler it shares the CPUs
        with this run's own senders and receivers, so the switch is slower while traffic is offered
        than while its rings drain, and its benchmark does not describe it under validation. The
        forwarding thread goes on the last CPU; OVS's other threads (handlers, revalidators, RCU),
        the orchestrator and every sender and receiver it starts on the others. Only the placement
        of this run's own processes changes: no priority, nothing of other processes.
        Called again before each stage, since OVS may start threads at any time."""
        cpus = sorted(os.sched_getaffinity(0) if self.generator_cpus is None else
                      self.generator_cpus | self.switch_cpus)
        if len(cpus) < 2:
            return False
        self.switch_cpus, self.generator_cpus = {cpus[-1]}, set(cpus[:-1])
        os.sched_setaffinity(0, self.generator_cpus)  # children (senders, receivers) inherit it
        pid = self.vswitchd_pid()
        for tid in os.listdir("/proc/%d/task" % pid):
            try:
                os.sched_setaffinity(int(tid), self.switch_cpus if int(tid) == pid else self.generator_cpus)
            except OSError:
                pass  # a thread that ended meanwhile
        return True

    def forwarding_thread_stats(self):
        """The forwarding thread's CPU time, time spent runnable but waiting for a CPU (schedstat),
        and involuntary context switches: how much the switch was held up by the scheduler."""
        pid = self.vswitchd_pid()
        try:
            run, wait, _ = (int(x) for x in open("/proc/%d/task/%d/schedstat" % (pid, pid)).read().split())
            status = open("/proc/%d/task/%d/status" % (pid, pid)).read()
        except OSError:
            return None
        invol = int(status.split("nonvoluntary_ctxt_switches:")[1].split()[0])
        return {"cpuNs": run, "runQueueWaitNs": wait, "involuntarySwitches": invol}

    def tap(self, i):
        return "%st%d" % (self.p, i)

    def add_tap(self, name, ofport):
        self.sh(*self.vsctl, "add-port", self.br, name, "--", "set", "interface", name, "type=internal",
                "ofport_request=%d" % ofport)
        for _ in range(100):
            if os.path.exists("/sys/class/net/" + name):
                break
            time.sleep(0.1)
        self.sh("sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % name, check=False)
        self.sh("ip", "link", "set", name, "txqueuelen", str(TAP_QUEUE), "up")

    def sender(self, i):
        """Command prefix and interface of sender i."""
        if self.ingress == "tap":
            return [], self.tap(i)
        return ["ip", "netns", "exec", self.ns("s", i)], "eth0"

    def port_counters(self):
        """OpenFlow port -> (rx packets, tx packets) as OVS counts them."""
        out = self.sh("ovs-ofctl", "dump-ports", "unix:%s/%s.mgmt" % (self.d, self.br)).stdout
        c = {}
        port = None
        for line in out.splitlines():
            line = line.strip()
            if line.startswith("port"):
                head, rest = line.split(":", 1)
                name = head.split()[1]
                port = None if name == "LOCAL" else int(name)
                if port is not None:
                    c[port] = [int(rest.split("pkts=")[1].split(",")[0]), 0]
            elif line.startswith("tx") and port is not None:
                c[port][1] = int(line.split("pkts=")[1].split(",")[0])
        return c

    def warm_up(self):
        """One short run per pair so the datapath flows exist before anything is measured."""
        for i in range(self.ports):
            run_one(self, 1_000_000 + i, 1, 64, 500, 0.5, 1, first=i)

    def stop(self):
        for i in range(self.ports):
            for kind in ("s", "r"):
                subprocess.run(["ip", "netns", "del", self.ns(kind, i)], stderr=subprocess.DEVNULL)
                subprocess.run(["ip", "link", "del", self.ns(kind, i) + "b"], stderr=subprocess.DEVNULL)
            if self.ingress == "tap":
                subprocess.run(["ip", "link", "del", self.tap(i)], stderr=subprocess.DEVNULL)
        self.sh(*self.vsctl, "--if-exists", "del-br", self.br, check=False)
        for f in ("ovs-vswitchd", "ovsdb-server"):
            try:
                with open("%s/%s.pid" % (self.d, f)) as fh:
                    os.kill(int(fh.read().strip()), signal.SIGTERM)
            except (OSError, ValueError):
                pass
        time.sleep(0.3)
        shutil.rmtree(self.d, ignore_errors=True)


def percentile(sorted_vals, q):
    if not sorted_vals:
        return None
    k = min(len(sorted_vals) - 1, max(0, int(round(q * (len(sorted_vals) - 1)))))
    return sorted_vals[k]


def run_one(lab, run_id, k, size, pps, duration, burst, first=0, deadline_ns=None):
    """k sender->receiver pairs at once, each at pps packets/s of `size` bytes."""
    me = os.path.abspath(__file__)
    recvs, sends, outs = [], [], []
    for i in range(first, first + k):
        out = os.path.join(lab.d, "lat-%d-%d.bin" % (run_id, i))
        outs.append(out)
        recvs.append(subprocess.Popen(
            ["ip", "netns", "exec", lab.ns("r", i), sys.executable, me, "recv", "--ifname", "eth0",
             "--run", str(run_id), "--flow", str(i), "--duration", str(duration + 1.5), "--out", out],
            stdout=subprocess.PIPE, text=True))
    for p in recvs:
        if p.stdout.readline().strip() != "ready":
            raise RuntimeError("receiver did not start")
    before = lab.port_counters()
    for i in range(first, first + k):
        prefix, ifname = lab.sender(i)
        sends.append(subprocess.Popen(
            prefix + [sys.executable, me, "send", "--ifname", ifname,
             "--run", str(run_id), "--flow", str(i), "--duration", str(duration), "--size", str(size),
             "--pps", str(pps), "--burst", str(burst), "--src-mac", "02:00:00:00:01:%02x" % i,
             "--dst-mac", "02:00:00:00:02:%02x" % i], stdout=subprocess.PIPE, text=True))
    sent = 0
    local = 0
    for p in sends:
        o, _ = p.communicate(timeout=duration + 30)
        r = json.loads(o.strip().splitlines()[-1])
        sent += r["sent"]
        local += r["localDrops"]
    received = 0
    sock_drops = 0
    lat = []
    per_flow_max = []
    for p, out in zip(recvs, outs):
        o, _ = p.communicate(timeout=duration + 30)
        r = json.loads(o.strip().splitlines()[-1])
        received += r["received"]
        sock_drops += r["socketDrops"]
        a = array.array("q")
        with open(out, "rb") as f:
            a.frombytes(f.read())
        per_flow_max.append(max(a) if a else None)
        lat.extend(a)
        os.unlink(out)
    lat.sort()
    after = lab.port_counters()
    into = sum(after[2 * i + 1][0] - before[2 * i + 1][0] for i in range(first, first + k))
    out_of = sum(after[2 * i + 2][1] - before[2 * i + 2][1] for i in range(first, first + k))
    wire = max(size, MIN_FRAME)
    over = None
    if deadline_ns is not None:
        import bisect
        over = len(lat) - bisect.bisect_right(lat, deadline_ns)
    return {
        "perFlowMaxNs": per_flow_max, "overDeadline": over,
        "switchRx": into, "switchTx": out_of, "switchLost": into - out_of, "receiverSocketDrops": sock_drops,
        "ports": k, "sizeBytes": wire, "offeredPpsPerPort": pps, "burstPackets": burst,
        "durationSec": duration, "sent": sent, "senderLocalDrops": local, "received": received,
        "lost": sent - local - received,
        # Latency is known for every packet the receiver read; the switch forwarded switchTx.
        "achievedPps": received / duration, "achievedBytesPerSec": received * wire / duration,
        "latencyNs": {"min": lat[0] if lat else None, "p50": percentile(lat, 0.5),
                      "p99": percentile(lat, 0.99), "p999": percentile(lat, 0.999),
                      "max": lat[-1] if lat else None},
    }


def derive_model(runs, margin):
    """A deterministic switch model covering every measurement, with `margin` of headroom.

    Per packet size: the highest aggregate rate served without loss. Per-packet cost from the
    two extreme sizes: 1/pps(L) = (L + o)/R. T: the largest latency seen in any loss-free run
    minus the time to drain the burst the senders offered then (k ports x burst packets),
    i.e. the smallest T for which T + b/R covers every loss-free observation. Then R is
    scaled down and T up by the margin.
    """
    # Loss-free end to end: nothing lost in the switch, refused at its input (a full tap ring
    # refuses the send) or dropped at the receiver.
    clean = [r for r in runs if r["switchLost"] == 0 and r["senderLocalDrops"] == 0 and r["lost"] == 0
             and r["received"] > 0]
    if not clean:
        raise RuntimeError("no loss-free run: cannot derive a model")
    best = {}
    for r in clean:
        best[r["sizeBytes"]] = max(best.get(r["sizeBytes"], 0.0), r["switchTx"] / r["durationSec"])
    sizes = sorted(best)
    if len(sizes) >= 2 and best[sizes[0]] > 0 and best[sizes[-1]] > 0:
        l1, l2 = sizes[0], sizes[-1]
        c1, c2 = 1.0 / best[l1], 1.0 / best[l2]  # seconds per packet
        slope = (c2 - c1) / (l2 - l1)
        if slope <= 0:
            # Cost did not grow with size: purely per-packet within what was measured.
            rate = l2 / c2
            overhead = 0.0
            per_packet = c1
        else:
            rate = 1.0 / slope
            overhead = max(0.0, c1 * rate - l1)
            per_packet = None
    else:
        l2 = sizes[-1]
        rate = best[l2] * l2
        overhead = 0.0
        per_packet = None
    t_needed = 0.0
    for r in clean:
        work = (r["sizeBytes"] + overhead) * r["ports"] * r["burstPackets"]
        t_needed = max(t_needed, r["latencyNs"]["max"] / 1e9 - work / rate)
    model = {
        "serviceRateBytesPerSec": int(rate * (1 - margin)),
        "serviceLatencyMicros": int(t_needed * (1 + margin) * 1e6) + 1,
        "perPacketOverheadBytes": int(round(overhead)),
        "maxBurstPackets": max(r["ports"] * r["burstPackets"] for r in clean),
        "margin": margin,
        "measured": {"serviceRateBytesPerSec": rate, "serviceLatencyMicros": t_needed * 1e6,
                     "maxLossFreePps": {str(k): v for k, v in best.items()}},
    }
    if per_packet is not None:
        model["note"] = "service cost did not grow with packet size in the measured range"
    # Check: the model (with its margin) covers every loss-free observation.
    viol = 0
    for r in clean:
        work = (r["sizeBytes"] + model["perPacketOverheadBytes"]) * r["ports"] * r["burstPackets"]
        bound = model["serviceLatencyMicros"] * 1e3 + work / model["serviceRateBytesPerSec"] * 1e9
        r["modelBoundNs"] = bound
        if r["latencyNs"]["max"] > bound:
            viol += 1
    model["observationsAboveBound"] = viol
    return model


def plot(runs, model, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib missing: no plot")
        return False
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for k in sorted({r["ports"] for r in runs}):
        for size in sorted({r["sizeBytes"] for r in runs}):
            pts = [r for r in runs if r["ports"] == k and r["sizeBytes"] == size and r["received"] > 0]
            if not pts:
                continue
            pts.sort(key=lambda r: r["achievedBytesPerSec"])
            x = [(r["achievedPps"] * (size + model["perPacketOverheadBytes"])) / 1e6 for r in pts]
            ax.plot(x, [r["latencyNs"]["max"] / 1e3 for r in pts], marker="o",
                    label="%d port(s), %d B, max" % (k, size))
            ax.plot(x, [r["latencyNs"]["p99"] / 1e3 for r in pts], linestyle=":", color=ax.lines[-1].get_color())
    rate = model["serviceRateBytesPerSec"] / 1e6
    xs = [rate * i / 50 for i in range(50)]
    burst = model["maxBurstPackets"] * (1500 + model["perPacketOverheadBytes"])
    ax.plot(xs, [model["serviceLatencyMicros"] + burst / (rate * 1e6) * 1e6 for _ in xs], "k--",
            label="model bound T + b/R (b = %d pkts x 1500 B)" % model["maxBurstPackets"])
    ax.axvline(rate, color="k", linewidth=0.8, linestyle="-.", label="model R")
    ax.set_xlabel("served load, work MB/s (bytes + per-packet cost)")
    ax.set_ylabel("per-packet latency through OVS, us")
    ax.set_yscale("log")
    ax.legend(fontsize=7)
    ax.set_title("OVS userspace datapath: latency vs load (max solid, p99 dotted)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def role_run(a):
    if os.geteuid() != 0:
        sys.exit("switch_bench: must run as root")
    ports = [int(x) for x in a.ports.split(",")]
    sizes = [int(x) for x in a.sizes.split(",")]
    rates = [int(x) for x in a.rates.split(",")]
    random.seed(a.seed)
    # A timeout's SIGTERM unwinds through the finally below, which removes everything.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("switch_bench: terminated"))
    lab = Lab(max(ports))
    runs = []
    try:
        lab.start()
        lab.warm_up()
        total = len(ports) * len(sizes) * len(rates)
        n = 0
        for k in ports:
            for size in sizes:
                for pps in rates:
                    n += 1
                    r = run_one(lab, n, k, size, pps, a.duration, a.burst)
                    runs.append(r)
                    log("[%d/%d] ports=%d size=%d pps/port=%d: switch fwd %d/%d, read %d, max %s us p99 %s us" % (
                        n, total, k, r["sizeBytes"], pps, r["switchTx"], r["switchRx"], r["received"],
                        None if r["latencyNs"]["max"] is None else round(r["latencyNs"]["max"] / 1e3, 1),
                        None if r["latencyNs"]["p99"] is None else round(r["latencyNs"]["p99"] / 1e3, 1)))
    finally:
        lab.stop()
    model = derive_model(runs, a.margin)
    os.makedirs(a.out, exist_ok=True)
    meta = {"tool": "loko/switch_bench.py", "ovs": subprocess.run(["ovs-vswitchd", "--version"],
            stdout=subprocess.PIPE, text=True).stdout.splitlines()[0], "datapath": "netdev (userspace)",
            "cpus": os.cpu_count(), "loadavg": os.getloadavg(), "seed": a.seed,
            "args": vars(a), "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    with open(os.path.join(a.out, "measurements.json"), "w") as f:
        json.dump({"meta": meta, "runs": runs}, f, indent=1)
    with open(os.path.join(a.out, "switch-model.json"), "w") as f:
        json.dump(model, f, indent=1)
    plotted = plot(runs, model, os.path.join(a.out, "latency-vs-load.png"))
    log("model: " + json.dumps({k: v for k, v in model.items() if k != "measured"}))
    log("wrote %s/{measurements.json,switch-model.json%s}" % (a.out, ",latency-vs-load.png" if plotted else ""))
    if model["observationsAboveBound"]:
        sys.exit("model does not cover %d observations" % model["observationsAboveBound"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="role", required=True)
    r = sub.add_parser("run", help="benchmark a private OVS bridge")
    r.add_argument("--ports", default="1,2,3", help="port pairs driven at once, e.g. 1,2,3")
    r.add_argument("--sizes", default="64,1500", help="frame sizes, bytes")
    r.add_argument("--rates", default="2000,10000,30000", help="offered packets/s per port")
    r.add_argument("--duration", type=float, default=3.0, help="seconds per run")
    r.add_argument("--burst", type=int, default=4, help="packets sent back to back per pacing tick")
    r.add_argument("--margin", type=float, default=0.2, help="R scaled by 1-margin, T by 1+margin")
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--out", default="docs/results/loko")
    for name in ("send", "recv"):
        p = sub.add_parser(name)
        p.add_argument("--ifname", required=True)
        p.add_argument("--run", type=int, required=True)
        p.add_argument("--flow", type=int, required=True)
        p.add_argument("--duration", type=float, required=True)
        if name == "send":
            p.add_argument("--size", type=int, required=True)
            p.add_argument("--pps", type=int, required=True)
            p.add_argument("--burst", type=int, default=1)
            p.add_argument("--src-mac", required=True)
            p.add_argument("--dst-mac", required=True)
        else:
            p.add_argument("--out", required=True)
    a = ap.parse_args()
    {"run": role_run, "send": role_send, "recv": role_recv}[a.role](a)


if __name__ == "__main__":
    main()
