//! The lab fabric's timeslot loop: hosts running the emulator's window
//! transport, DropTail switch ports forwarding through per-switch rule tables
//! (shadow-MAC rewrites), and per-switch mirror ports that sample every
//! transmitted packet into an oversubscribed buffer and emit real frames.
//!
//! One slot is one MTU at the link rate; every link sends at most one packet
//! per slot. Control requests are applied between slots, so a rule batch is in
//! force from the start of a slot on. ACKs travel out of band
//! (`ack_delay_slots`) as in the emulator's engine.

use std::collections::BTreeSet;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use serde_json::{Value, json};

use super::addr::{host_ip, host_mac, switch_id};
use super::config::FabricConfig;
use super::frames::{FrameFields, FrameSink, HEADER_BYTES, VLAN_BYTES, build_frame};
use super::int::{LabInt, NO_INT};
use super::pint::{INITIAL_TTL, LabPint};
use super::rules::{Headers, Mac, RuleOp, RuleTable, apply_batch};
use crate::config::{Mode, TransportConfig};
use crate::endpoint::transport::{Ack, AckOutcome, FlowSender};
use crate::fabric::topology::{Peer, Topology};
use crate::packet::Slot;

mod linux;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub code: u16,
    pub message: String,
}

impl ApiError {
    pub fn bad(message: impl Into<String>) -> Self {
        ApiError {
            code: 400,
            message: message.into(),
        }
    }
}

pub type ApiResult = Result<Value, ApiError>;

#[derive(Debug, Clone, PartialEq)]
pub enum SinkSpec {
    Interface(String),
    Pcap(PathBuf),
}

#[derive(Debug, Clone, PartialEq)]
pub struct MirrorSpec {
    pub switch: usize,
    pub vlan: u16,
    pub rate_bps: u64,
    pub buffer_bytes: u64,
    pub snap_len: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FlowSpec {
    pub id: u64,
    pub src: usize,
    pub dst: usize,
    pub bytes: u64,
    pub start_us: f64,
    pub sport: u16,
    pub dport: u16,
}

/// What the control API asks of the engine thread.
#[derive(Debug)]
pub enum Command {
    Counters,
    Rules(Vec<RuleOp>),
    Mirrors {
        sink: Option<SinkSpec>,
        mirrors: Vec<MirrorSpec>,
    },
    StartFlows(Vec<FlowSpec>),
    Flows,
    Status,
    Shutdown,
}

pub struct Request {
    pub cmd: Command,
    pub reply: SyncSender<ApiResult>,
}

#[derive(Clone, Copy, Debug)]
enum Dest {
    Switch { sw: u32, port: u16 },
    Host(u32),
}

/// A packet inside the fabric: its flow, sequence (in packets), current
/// destination MAC (rewritten by shadow-MAC rules) and TCP payload bytes.
#[derive(Clone, Copy, Debug)]
struct Pkt {
    flow: u32,
    seq: u32,
    eth_dst: Mac,
    payload: u16,
    /// IPv4 ID (PINT digest) and switches crossed (TTL = 64 - hops), as the last switch sent it.
    ip_id: u16,
    hops: u8,
    /// INT stack of a sampled packet ([`NO_INT`]: none).
    int: u32,
}

impl Pkt {
    fn wire_bytes(&self) -> u64 {
        self.payload as u64 + HEADER_BYTES as u64
    }
}

struct Port {
    peer: Dest,
    latency: u32,
    queue: VecDeque<Pkt>,
    cap: usize,
    queue_bytes: u64,
    tx_bytes: u64,
    tx_packets: u64,
    drops: u64,
}

/// An oversubscribed mirror port: every transmitted packet of its switch is
/// offered to a small byte buffer drained at `rate`.
struct MirrorPort {
    spec: MirrorSpec,
    bytes_per_slot: f64,
    credit: f64,
    queue: VecDeque<Pkt>,
    queued_bytes: u64,
}

struct Flow {
    spec: FlowSpec,
    packets: u32,
    last_payload: u16,
    start_slot: Slot,
    sender: Option<FlowSender>,
    /// Receiver: next in-order packet expected.
    expected: u32,
    /// Receiver: packets held beyond `expected` (arrived out of order), at most
    /// [`REASSEMBLY_PACKETS`]; the cumulative ACK jumps over them once the gap fills, as a
    /// host's TCP keeps out-of-order data instead of dropping it.
    held: BTreeSet<u32>,
    isn: u32,
    peer_isn: u32,
}

#[derive(Clone, Copy)]
struct CacheEntry {
    in_port: u16,
    eth_dst: Mac,
    generation: u32,
    rule: u32,
}

const NO_RULE: u32 = u32::MAX;
/// Out-of-order packets a receiver holds per flow (about 6 MB at 1,500 bytes): more than any
/// window the fabric's TCP opens on a 1 or 10 Gb/s path with its buffers.
const REASSEMBLY_PACKETS: usize = 4096;
const TIMER_INTERVAL: u64 = 8;
/// In the ACK queue: the ACK carries no SACK block.
const NO_SACK: u32 = u32::MAX;
const FLUSH_INTERVAL: u64 = 8;

struct Host {
    switch: u32,
    port: u16,
    latency: u32,
    active: Vec<u32>,
    rr: usize,
}

pub struct FabricEngine {
    topo: Topology,
    transport: TransportConfig,
    realtime: bool,
    spin: bool,
    /// Without `spin`: how long the engine may sleep past a due slot (see `wait_for_slot`).
    batch: Duration,
    slot_ns: f64,
    payload_full: u16,
    ports: Vec<Vec<Port>>,
    port_counts: Vec<u16>,
    tables: Vec<RuleTable>,
    /// Per switch, per flow: the rule last found for (in port, dst MAC).
    cache: Vec<Vec<Vec<CacheEntry>>>,
    hosts: Vec<Host>,
    flows: Vec<Flow>,
    pending_starts: Vec<u32>,
    calendar: Vec<Vec<(Dest, Pkt)>>,
    /// Order of same-slot arrivals (seeded: a run is reproducible in virtual time).
    arrival_order: SmallRng,
    /// Order in which one slot's copies reach a mirror port (seeded, see
    /// `switches_transmit`).
    mirror_order: SmallRng,
    mirror_copies: Vec<Pkt>,
    acks: VecDeque<(Slot, u32, u32, u32)>,
    mirrors: Vec<Option<MirrorPort>>,
    sink: Option<FrameSink>,
    frame_buf: Vec<u8>,
    pint: Option<LabPint>,
    int: Option<LabInt>,
    now: Slot,
    epoch_us: f64,
    started: Instant,
    lag_us: u64,
    max_lag_us: u64,
    unmatched: u64,
    misdelivered: u64,
    /// Data packets that reached their receiver a second time (not acknowledged).
    duplicates: u64,
    /// Data packets a receiver held because they arrived ahead of a gap.
    held_out_of_order: u64,
    /// Out-of-order packets dropped because the receiver already held REASSEMBLY_PACKETS.
    reassembly_drops: u64,
    mirror_frames: u64,
    mirror_drops: u64,
    sink_errors: u64,
    /// Real Linux hosts as the endpoints (`[linux_hosts]`), or None.
    linux: Option<super::linux_hosts::LinuxHosts>,
}

impl FabricEngine {
    pub fn new(cfg: &FabricConfig, spin: bool) -> anyhow::Result<Self> {
        let topo = cfg.topology()?;
        let mut max_lat = 1;
        let mut ports = Vec::new();
        for s in &topo.switches {
            let mut v = Vec::new();
            for p in &s.ports {
                let peer = match p.peer {
                    Peer::Endpoint(e) => Dest::Host(e as u32),
                    Peer::Switch { switch, port } => Dest::Switch { sw: switch, port },
                };
                max_lat = max_lat.max(p.link.latency_slots);
                v.push(Port {
                    peer,
                    latency: p.link.latency_slots,
                    queue: VecDeque::with_capacity(p.link.buffer_pkts as usize),
                    cap: p.link.buffer_pkts as usize,
                    queue_bytes: 0,
                    tx_bytes: 0,
                    tx_packets: 0,
                    drops: 0,
                });
            }
            ports.push(v);
        }
        let hosts = topo
            .endpoints
            .iter()
            .map(|e| Host {
                switch: e.switch,
                port: e.port,
                latency: e.link.latency_slots,
                active: Vec::new(),
                rr: 0,
            })
            .collect();
        let n = topo.switches.len();
        let linux = match &cfg.linux_hosts {
            Some(s) => Some(super::linux_hosts::LinuxHosts::open(
                s,
                topo.endpoints.len(),
                cfg.fabric.mtu_bytes,
            )?),
            None => None,
        };
        let port_counts = topo.switches.iter().map(|s| s.ports.len() as u16).collect();
        let epoch_us = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs_f64() * 1e6)
            .unwrap_or(0.0);
        Ok(FabricEngine {
            transport: TransportConfig {
                slot_ns: cfg.slot_ns(),
                ..cfg.transport.clone()
            },
            realtime: cfg.fabric.mode == Mode::Realtime,
            spin,
            batch: if cfg.linux_hosts.is_some() {
                Duration::ZERO
            } else {
                Duration::from_micros(u64::from(cfg.fabric.batch_us))
            },
            slot_ns: cfg.slot_ns(),
            payload_full: (cfg.fabric.mtu_bytes - 40) as u16,
            ports,
            port_counts,
            tables: vec![RuleTable::default(); n],
            cache: vec![Vec::new(); n],
            hosts,
            flows: Vec::new(),
            pending_starts: Vec::new(),
            calendar: vec![Vec::new(); max_lat as usize + 1],
            arrival_order: SmallRng::seed_from_u64(0x706c_616e_636b),
            mirror_order: SmallRng::seed_from_u64(0x6d69_7272_6f72),
            mirror_copies: Vec::with_capacity(64),
            acks: VecDeque::new(),
            mirrors: (0..n).map(|_| None).collect(),
            sink: None,
            frame_buf: Vec::with_capacity(9100),
            pint: LabPint::new(&cfg.pint, n)?,
            int: LabInt::new(&cfg.int, &topo, cfg.slot_ns())?,
            now: 0,
            epoch_us,
            started: Instant::now(),
            lag_us: 0,
            max_lag_us: 0,
            unmatched: 0,
            misdelivered: 0,
            duplicates: 0,
            held_out_of_order: 0,
            reassembly_drops: 0,
            mirror_frames: 0,
            mirror_drops: 0,
            sink_errors: 0,
            linux,
            topo,
        })
    }

    pub fn topology(&self) -> &Topology {
        &self.topo
    }

    /// Emulator time of the start of slot `t`, in Unix-epoch microseconds.
    fn time_us(&self, t: Slot) -> u64 {
        (self.epoch_us + t as f64 * self.slot_ns / 1000.0) as u64
    }

    /// Real time, paced by sleeping until a batch of slots is due (see `wait_for_slot`).
    pub fn sleeps_between_batches(&self) -> bool {
        self.realtime && !self.spin && self.batch > Duration::ZERO
    }

    /// Run until a shutdown request; answers requests between slots.
    pub fn run(mut self, rx: Receiver<Request>) {
        if self.sleeps_between_batches() {
            precise_timers();
        }
        self.started = Instant::now();
        self.epoch_us = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs_f64() * 1e6)
            .unwrap_or(0.0);
        loop {
            while let Ok(req) = rx.try_recv() {
                if self.answer(req) {
                    return;
                }
            }
            if self.realtime {
                if let Some(req) = self.wait_for_slot(&rx) {
                    // Woken by a request while asleep: run the slots that fell due before
                    // it arrived, so that its rules are in force from the slot it arrived
                    // in, as with a spinning engine.
                    let arrived = Instant::now();
                    while self.deadline(self.now) <= arrived {
                        self.step();
                    }
                    if self.answer(req) {
                        return;
                    }
                    continue;
                }
            }
            self.step();
        }
    }

    /// Answers one request; true on shutdown (the sink flushed).
    fn answer(&mut self, req: Request) -> bool {
        let stop = matches!(req.cmd, Command::Shutdown);
        let answer = self.handle(req.cmd);
        let _ = req.reply.send(answer);
        if stop {
            self.flush_sink();
        }
        stop
    }

    /// Wall-clock start of slot `t`.
    fn deadline(&self, t: Slot) -> Instant {
        self.started + Duration::from_nanos((t as f64 * self.slot_ns) as u64)
    }

    /// Returns once the current slot is due, or early with a request that arrived while
    /// the engine slept. Spinning: busy-waits for the slot. Otherwise sleeps until
    /// `batch` worth of slots are due (a request wakes it), so the engine's core is free
    /// between batches; a slot run late is counted as lag (at most `batch` when the
    /// machine keeps up).
    fn wait_for_slot(&mut self, rx: &Receiver<Request>) -> Option<Request> {
        let due = self.deadline(self.now);
        let now = Instant::now();
        if now >= due {
            self.lag_us = (now - due).as_micros() as u64;
            self.max_lag_us = self.max_lag_us.max(self.lag_us);
            return None;
        }
        self.lag_us = 0;
        let ahead = due - now;
        if !self.spin {
            if self.batch > Duration::ZERO {
                return match rx.recv_timeout(ahead + self.batch) {
                    Ok(req) => Some(req),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => {
                        std::thread::sleep(ahead);
                        None
                    }
                };
            }
            if ahead > Duration::from_micros(60) {
                std::thread::sleep(ahead);
            }
        }
        while Instant::now() < due {
            std::hint::spin_loop();
        }
        None
    }

    pub fn handle(&mut self, cmd: Command) -> ApiResult {
        match cmd {
            Command::Counters => Ok(self.counters_json()),
            Command::Rules(ops) => {
                let applied = apply_batch(&mut self.tables, &ops, &self.port_counts)
                    .map_err(ApiError::bad)?;
                Ok(json!({"version": 1, "applied": applied, "appliedUs": self.time_us(self.now)}))
            }
            Command::Mirrors { sink, mirrors } => self.set_mirrors(sink, mirrors),
            Command::StartFlows(specs) if self.linux.is_some() => self.linux_start_flows(specs),
            Command::StartFlows(specs) => self.start_flows(specs),
            Command::Flows => Ok(match &self.linux {
                Some(l) => l.flows_json(),
                None => self.flows_json(),
            }),
            Command::Status => Ok(self.status_with_linux()),
            Command::Shutdown => Ok(Value::Null),
        }
    }

    fn set_mirrors(&mut self, sink: Option<SinkSpec>, specs: Vec<MirrorSpec>) -> ApiResult {
        for (i, m) in specs.iter().enumerate() {
            if m.switch >= self.ports.len() {
                return Err(ApiError::bad(format!("mirror {i}: unknown switch")));
            }
            if specs[..i].iter().any(|o| o.switch == m.switch) {
                return Err(ApiError::bad(format!("mirror {i}: switch listed twice")));
            }
        }
        let new_sink = match (&sink, specs.is_empty()) {
            (_, true) => None,
            (None, false) => return Err(ApiError::bad("sink is required with mirrors")),
            (Some(SinkSpec::Pcap(p)), false) => Some(FrameSink::pcap(p).map_err(ApiError::bad)?),
            (Some(SinkSpec::Interface(n)), false) => {
                Some(FrameSink::interface(n).map_err(ApiError::bad)?)
            }
        };
        self.flush_sink();
        self.sink = new_sink;
        for m in self.mirrors.iter_mut() {
            *m = None;
        }
        let slot_s = self.slot_ns / 1e9;
        for m in &specs {
            self.mirrors[m.switch] = Some(MirrorPort {
                bytes_per_slot: m.rate_bps as f64 * slot_s / 8.0,
                credit: 0.0,
                queue: VecDeque::new(),
                queued_bytes: 0,
                spec: m.clone(),
            });
        }
        Ok(json!({"version": 1, "mirrors": specs.len()}))
    }

    fn start_flows(&mut self, specs: Vec<FlowSpec>) -> ApiResult {
        let hosts = self.hosts.len();
        for (i, f) in specs.iter().enumerate() {
            if f.src >= hosts || f.dst >= hosts || f.src == f.dst {
                return Err(ApiError::bad(format!(
                    "flow {i}: src and dst must be two different hosts"
                )));
            }
            if f.bytes == 0 || f.bytes > (u32::MAX as u64 / 2) * self.payload_full as u64 {
                return Err(ApiError::bad(format!("flow {i}: bytes out of range")));
            }
            if !(f.start_us.is_finite() && f.start_us >= 0.0 && f.start_us <= 3.6e9) {
                return Err(ApiError::bad(format!("flow {i}: startUs out of range")));
            }
            if self.flows.iter().any(|o| o.spec.id == f.id)
                || specs[..i].iter().any(|o| o.id == f.id)
            {
                return Err(ApiError::bad(format!("flow {i}: id {} already used", f.id)));
            }
        }
        for f in specs.iter() {
            let pl = self.payload_full as u64;
            let packets = f.bytes.div_ceil(pl) as u32;
            let last = (f.bytes - (packets as u64 - 1) * pl) as u16;
            let start_slot = self.now + (f.start_us * 1000.0 / self.slot_ns).ceil() as u64;
            let idx = self.flows.len() as u32;
            // Deterministic per-flow ISNs, distinct per direction.
            let isn = (f.id as u32).wrapping_mul(0x9E37_79B1) ^ 0x5eed_0001;
            self.flows.push(Flow {
                spec: f.clone(),
                packets,
                last_payload: last,
                start_slot,
                sender: None,
                expected: 0,
                held: BTreeSet::new(),
                isn,
                peer_isn: isn.rotate_left(13) ^ 0x00ac_0000,
            });
            self.pending_starts.push(idx);
        }
        Ok(json!({"version": 1, "accepted": specs.len(), "acceptedUs": self.time_us(self.now)}))
    }

    /// One timeslot: deliveries, ACKs, timers, flow starts, host sends,
    /// switch transmissions (and mirror sampling), mirror drains.
    pub fn step(&mut self) {
        let t = self.now;
        let ring = self.calendar.len() as u64;
        let mut due = std::mem::take(&mut self.calendar[(t % ring) as usize]);
        // Packets that arrive in the same timeslot are taken in random order, as they would
        // interleave on real links. In a fixed order the same flow always finds a full queue
        // first, and one TCP flow locks another out of a shared link for hundreds of ms.
        due.shuffle(&mut self.arrival_order);
        for &(dest, pkt) in &due {
            match dest {
                Dest::Switch { sw, port } => self.forward(sw as usize, port, pkt),
                Dest::Host(h) => self.receive(h as usize, pkt, t),
            }
        }
        due.clear();
        self.calendar[(t % ring) as usize] = due;

        while let Some(&(at, flow, cum, seq)) = self.acks.front() {
            if at > t {
                break;
            }
            self.acks.pop_front();
            let f = &mut self.flows[flow as usize];
            if let Some(s) = f.sender.as_mut()
                && s.on_ack(
                    Ack {
                        cum,
                        sacked: (seq != NO_SACK && seq >= cum).then_some(seq),
                        ece: false,
                    },
                    t,
                    &self.transport,
                ) == AckOutcome::Completed
            {
                let h = &mut self.hosts[f.spec.src];
                h.active.retain(|&x| x != flow);
            }
        }
        if t.is_multiple_of(TIMER_INTERVAL) {
            for h in &self.hosts {
                for &fi in &h.active {
                    if let Some(s) = self.flows[fi as usize].sender.as_mut() {
                        s.check_timeout(t, &self.transport);
                    }
                }
            }
        }
        if !self.pending_starts.is_empty() {
            let mut i = 0;
            while i < self.pending_starts.len() {
                let fi = self.pending_starts[i];
                let f = &mut self.flows[fi as usize];
                if f.start_slot <= t {
                    f.sender = Some(FlowSender::new(
                        fi,
                        f.spec.src as u16,
                        f.spec.dst as u16,
                        f.packets,
                        0,
                        t,
                        &self.transport,
                    ));
                    self.hosts[f.spec.src].active.push(fi);
                    self.pending_starts.swap_remove(i);
                } else {
                    i += 1;
                }
            }
        }
        self.linux_slot(t);
        self.hosts_send(t);
        self.switches_transmit(t);
        self.drain_mirrors(t);
        if t.is_multiple_of(FLUSH_INTERVAL) {
            self.flush_sink();
        }
        self.now += 1;
    }

    fn hosts_send(&mut self, t: Slot) {
        let ring = self.calendar.len() as u64;
        for h in 0..self.hosts.len() {
            let n = self.hosts[h].active.len();
            if n == 0 {
                continue;
            }
            let start = self.hosts[h].rr % n;
            for k in 0..n {
                let fi = self.hosts[h].active[(start + k) % n];
                let f = &mut self.flows[fi as usize];
                let s = f.sender.as_mut().expect("active flows have senders");
                if !s.can_send() {
                    continue;
                }
                let seq = s.take_seq(t);
                let payload = if seq + 1 == f.packets {
                    f.last_payload
                } else {
                    self.payload_full
                };
                let pkt = Pkt {
                    flow: fi,
                    seq,
                    eth_dst: host_mac(f.spec.dst),
                    payload,
                    ip_id: 0,
                    hops: 0,
                    int: NO_INT,
                };
                let host = &mut self.hosts[h];
                host.rr = start + k + 1;
                let at = t + host.latency as u64;
                self.calendar[(at % ring) as usize].push((
                    Dest::Switch {
                        sw: host.switch,
                        port: host.port,
                    },
                    pkt,
                ));
                break;
            }
        }
    }

    fn receive(&mut self, h: usize, pkt: Pkt, t: Slot) {
        if self.linux.is_some() {
            return self.linux_receive(h, pkt);
        }
        let f = &mut self.flows[pkt.flow as usize];
        if f.spec.dst != h || pkt.eth_dst != host_mac(h) {
            self.misdelivered += 1;
            return;
        }
        if pkt.seq < f.expected || f.held.contains(&pkt.seq) {
            // A second copy of data already received (a go-back-N resend that crossed the
            // original's ACK, or of data held out of order). It is not acknowledged: its ACK
            // would repeat the last one, and a sender counting that as a duplicate ACK goes back
            // again, resends more copies, and can keep itself in spurious fast retransmits for
            // seconds (DSACK-aware senders ignore such ACKs for the same reason).
            self.duplicates += 1;
            return;
        }
        if pkt.seq == f.expected {
            f.expected += 1;
            while f.held.remove(&f.expected) {
                f.expected += 1;
            }
        } else if f.held.len() < REASSEMBLY_PACKETS {
            f.held.insert(pkt.seq);
            self.held_out_of_order += 1;
        } else {
            self.reassembly_drops += 1;
            // Not held, so not SACKed: report the cumulative point only.
            self.acks.push_back((t + self.transport.ack_delay_slots as u64, pkt.flow, f.expected, NO_SACK));
            return;
        }
        self.acks.push_back((
            t + self.transport.ack_delay_slots as u64,
            pkt.flow,
            f.expected,
            pkt.seq,
        ));
    }

    fn forward(&mut self, sw: usize, in_port: u16, mut pkt: Pkt) {
        let rule = self.lookup(sw, in_port, &pkt);
        if rule == NO_RULE {
            self.unmatched += 1;
            self.ports[sw][in_port as usize].drops += 1;
            return;
        }
        let r = self.tables[sw].rule_mut(rule as usize);
        r.packets += 1;
        r.bytes += pkt.wire_bytes();
        if let Some(m) = r.actions.set_eth_dst {
            pkt.eth_dst = m;
        }
        let out_port = r.actions.output as usize - 1;
        if let Some(int) = self.int.as_mut() {
            let from_host = matches!(self.ports[sw][in_port as usize].peer, Dest::Host(_));
            int.on_ingress(sw, in_port, from_host, &mut pkt.int, self.now);
        }
        let out = &mut self.ports[sw][out_port];
        if out.queue.len() >= out.cap {
            out.drops += 1;
        } else {
            out.queue_bytes += pkt.wire_bytes();
            out.queue.push_back(pkt);
        }
    }

    #[inline]
    fn lookup(&mut self, sw: usize, in_port: u16, pkt: &Pkt) -> u32 {
        let table = &self.tables[sw];
        let generation = table.generation;
        let per_flow = &mut self.cache[sw];
        if per_flow.len() <= pkt.flow as usize {
            per_flow.resize(self.flows.len().max(pkt.flow as usize + 1), Vec::new());
        }
        let entries = &mut per_flow[pkt.flow as usize];
        if let Some(e) = entries
            .iter()
            .find(|e| e.in_port == in_port && e.eth_dst == pkt.eth_dst)
            && e.generation == generation
        {
            return e.rule;
        }
        let f = &self.flows[pkt.flow as usize];
        let h = Headers {
            in_port: in_port + 1,
            eth_src: host_mac(f.spec.src),
            eth_dst: pkt.eth_dst,
            ip_src: host_ip(f.spec.src),
            ip_dst: host_ip(f.spec.dst),
            proto: 6,
            sport: f.spec.sport,
            dport: f.spec.dport,
        };
        let rule = table.lookup(&h).map(|i| i as u32).unwrap_or(NO_RULE);
        entries.retain(|e| {
            e.generation == generation && !(e.in_port == in_port && e.eth_dst == pkt.eth_dst)
        });
        entries.push(CacheEntry {
            in_port,
            eth_dst: pkt.eth_dst,
            generation,
            rule,
        });
        rule
    }

    fn switches_transmit(&mut self, t: Slot) {
        let ring = self.calendar.len() as u64;
        for sw in 0..self.ports.len() {
            for p in 0..self.ports[sw].len() {
                let port = &mut self.ports[sw][p];
                let Some(mut pkt) = port.queue.pop_front() else {
                    continue;
                };
                if let Some(pint) = &self.pint {
                    let f = &self.flows[pkt.flow as usize];
                    let seq = f.isn.wrapping_add(pkt.seq.wrapping_mul(self.payload_full as u32));
                    let id = pint.packet_id(host_ip(f.spec.src), host_ip(f.spec.dst), f.spec.sport, f.spec.dport, seq);
                    pint.stamp(sw, &mut pkt.ip_id, &mut pkt.hops, id);
                }
                if self.int.is_some() {
                    self.int_egress(sw, p, &mut pkt, t);
                }
                let port = &mut self.ports[sw][p];
                let bytes = pkt.wire_bytes();
                port.queue_bytes -= bytes;
                port.tx_bytes += bytes;
                port.tx_packets += 1;
                let at = t + port.latency as u64;
                let dest = port.peer;
                self.calendar[(at % ring) as usize].push((dest, pkt));
                if self.mirrors[sw].is_some() {
                    self.mirror_copies.push(pkt);
                }
            }
            // The copies of one slot reach the mirror port in random order. In port order, an
            // oversubscribed mirror (room for about one copy per drain) gave every copy to the
            // first busy port: the flows of the switch's other ports went unsampled for as
            // long as it was busy, invisible to the collector.
            if let Some(m) = self.mirrors[sw].as_mut() {
                self.mirror_copies.shuffle(&mut self.mirror_order);
                for pkt in self.mirror_copies.drain(..) {
                    let b = pkt.wire_bytes() + VLAN_BYTES as u64;
                    if m.queued_bytes + b > m.spec.buffer_bytes {
                        self.mirror_drops += 1;
                    } else {
                        m.queued_bytes += b;
                        m.queue.push_back(pkt);
                    }
                }
            }
        }
    }

    fn drain_mirrors(&mut self, t: Slot) {
        for sw in 0..self.mirrors.len() {
            let Some(m) = self.mirrors[sw].as_mut() else {
                continue;
            };
            m.credit += m.bytes_per_slot;
            if m.queue.is_empty() {
                // An idle port does not bank more than one slot's worth plus one frame.
                m.credit = m.credit.min(m.bytes_per_slot + 1600.0);
                continue;
            }
            while let Some(&pkt) = m.queue.front() {
                let b = pkt.wire_bytes() + VLAN_BYTES as u64;
                if m.credit < b as f64 {
                    break;
                }
                m.credit -= b as f64;
                m.queued_bytes -= b;
                m.queue.pop_front();
                let full = if let Some(lh) = self.linux.as_mut() {
                    // A real packet's copy is its own frame's headers.
                    let Some(fr) = lh.store.get(pkt.seq) else {
                        lh.mirror_expired += 1;
                        continue;
                    };
                    super::linux_hosts::mirror_copy(
                        fr,
                        pkt.eth_dst,
                        m.spec.vlan,
                        m.spec.snap_len as usize,
                        &mut self.frame_buf,
                    )
                } else {
                    let f = &self.flows[pkt.flow as usize];
                    let fields = FrameFields {
                        vlan: m.spec.vlan,
                        eth_src: host_mac(f.spec.src),
                        eth_dst: pkt.eth_dst,
                        ip_src: host_ip(f.spec.src),
                        ip_dst: host_ip(f.spec.dst),
                        sport: f.spec.sport,
                        dport: f.spec.dport,
                        seq: f
                            .isn
                            .wrapping_add(pkt.seq.wrapping_mul(self.payload_full as u32)),
                        ack: f.peer_isn.wrapping_add(1),
                        payload: pkt.payload,
                        ip_id: pkt.ip_id,
                        ttl: INITIAL_TTL.saturating_sub(pkt.hops),
                    };
                    build_frame(&fields, m.spec.snap_len as usize, &mut self.frame_buf)
                };
                let ts = if self.realtime {
                    SystemTime::now()
                        .duration_since(UNIX_EPOCH)
                        .unwrap_or_default()
                } else {
                    Duration::from_micros((self.epoch_us + t as f64 * self.slot_ns / 1000.0) as u64)
                };
                if let Some(sink) = self.sink.as_mut() {
                    if sink.push(&self.frame_buf, full, ts) {
                        self.mirror_frames += 1;
                    } else {
                        self.sink_errors += 1;
                    }
                }
            }
        }
    }

    /// The INT stage at a transmission: the switch's hop, and the report if it is the sink.
    fn int_egress(&mut self, sw: usize, p: usize, pkt: &mut Pkt, t: Slot) {
        let port = &self.ports[sw][p];
        let to_host = matches!(port.peer, Dest::Host(_));
        let left = port.queue.len();
        let Some(int) = self.int.as_mut() else { return };
        if !int.on_egress(sw, p as u16, to_host, &mut pkt.int, t, left) {
            return;
        }
        let f = &self.flows[pkt.flow as usize];
        let fields = FrameFields {
            vlan: 0,
            eth_src: host_mac(f.spec.src),
            eth_dst: pkt.eth_dst,
            ip_src: host_ip(f.spec.src),
            ip_dst: host_ip(f.spec.dst),
            sport: f.spec.sport,
            dport: f.spec.dport,
            seq: f.isn.wrapping_add(pkt.seq.wrapping_mul(self.payload_full as u32)),
            ack: f.peer_isn.wrapping_add(1),
            payload: pkt.payload,
            ip_id: pkt.ip_id,
            ttl: INITIAL_TTL.saturating_sub(pkt.hops),
        };
        let ts = if self.realtime {
            SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default()
        } else {
            Duration::from_micros(self.time_us(t))
        };
        let epoch_ns = self.epoch_us * 1000.0;
        if let Some(int) = self.int.as_mut() {
            int.emit(sw, &mut pkt.int, &fields, t, epoch_ns, ts);
        }
    }

    fn flush_sink(&mut self) {
        if let Some(int) = self.int.as_mut() {
            int.flush();
        }
        if let Some(s) = self.sink.as_mut() {
            let failed = s.flush();
            self.sink_errors += failed;
            self.mirror_frames = self.mirror_frames.saturating_sub(failed);
        }
    }

    fn counters_json(&self) -> Value {
        let mut ports = Vec::new();
        for (sw, v) in self.ports.iter().enumerate() {
            for (p, port) in v.iter().enumerate() {
                ports.push(json!({"switch": switch_id(sw), "port": p + 1,
                    "txBytes": port.tx_bytes, "txPackets": port.tx_packets,
                    "drops": port.drops, "queueBytes": port.queue_bytes}));
            }
        }
        let mut rules = Vec::new();
        for (sw, t) in self.tables.iter().enumerate() {
            for r in t.rules() {
                rules.push(json!({"switch": switch_id(sw), "priority": r.priority,
                    "match": r.matcher, "actions": r.actions,
                    "bytes": r.bytes, "packets": r.packets}));
            }
        }
        json!({"version": 1, "timeUs": self.time_us(self.now), "ports": ports, "rules": rules})
    }

    fn flows_json(&self) -> Value {
        let flows: Vec<Value> = self
            .flows
            .iter()
            .map(|f| {
                let (acked, finish, retx, rto) = match &f.sender {
                    Some(s) => (s.acked, s.finish, s.retransmits, s.timeouts),
                    None => (0, None, 0, 0),
                };
                let sent = (acked as u64 * self.payload_full as u64).min(f.spec.bytes);
                json!({"id": f.spec.id, "src": host_mac(f.spec.src), "dst": host_mac(f.spec.dst),
                    "bytes": f.spec.bytes, "startUs": self.time_us(f.start_slot),
                    "finishUs": finish.map(|s| self.time_us(s)),
                    "sentBytes": sent, "done": finish.is_some(),
                    "retransmits": retx, "timeouts": rto})
            })
            .collect();
        json!({"version": 1, "flows": flows})
    }

    fn status_json(&self) -> Value {
        json!({"version": 1, "mode": if self.realtime {"realtime"} else {"virtual"},
            "timeUs": self.time_us(self.now), "lagUs": self.lag_us, "maxLagUs": self.max_lag_us,
            "timeslots": self.now, "unmatched": self.unmatched,
            "mirrorFrames": self.mirror_frames, "mirrorDrops": self.mirror_drops,
            "sinkErrors": self.sink_errors, "misdelivered": self.misdelivered,
            "duplicates": self.duplicates, "heldOutOfOrder": self.held_out_of_order,
            "reassemblyDrops": self.reassembly_drops,
            "int": self.int.as_ref().map(LabInt::status_json),
            "slotNs": self.slot_ns})
    }
}

/// Wake-ups on time: a normal thread's sleeps may end up to 50 us late (the kernel's
/// default timer slack, which lets it merge wake-ups); the engine's batches are a few
/// hundred microseconds, so this thread asks for 1 us.
fn precise_timers() {
    // SAFETY: PR_SET_TIMERSLACK takes a plain integer and changes only this thread.
    let rc = unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong, 0, 0, 0) };
    if rc != 0 {
        eprintln!(
            "planck-emu fabric: timer slack left at the default ({})",
            std::io::Error::last_os_error()
        );
    }
}
