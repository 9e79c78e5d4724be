//! Scheme API after Flexplane's pattern API.
//!
//! A router is composed from four stages — [`Route`], [`Classify`], [`Enqueue`],
//! [`Schedule`] — as generic type parameters of [`PatternRouter`], so every
//! scheme is monomorphised and the hot path has no dynamic dispatch. Schemes
//! that do not fit the pattern implement the whole-router trait [`Router`]
//! directly (see [`pfabric`]).

pub mod counters;
pub mod dctcp;
pub mod droptail;
pub mod drr;
pub mod hull;
pub mod pfabric;
pub mod priority;
pub mod red;
pub mod route;

use crate::packet::{Packet, PortId, QueueId, Slot};
use crate::queue::PacketQueue;
pub use counters::PortCounters;

/// Outcome of offering a packet to a port's queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    Accepted,
    /// Accepted and CE-marked.
    Marked,
    /// The offered packet was dropped.
    Dropped,
    /// The offered packet was accepted and another one was dropped to make room.
    Evicted,
}

/// Room a queue's ring starts with (it grows on demand up to the port buffer).
const INITIAL_QUEUE_PKTS: usize = 16;

/// The queues of one output port. The buffer limit applies to the whole port.
#[derive(Debug)]
pub struct PortQueues {
    pub queues: Vec<PacketQueue>,
    /// Packets held across all queues of the port.
    pub len: u32,
    /// Port buffer in packets.
    pub capacity: u32,
}

impl PortQueues {
    pub fn new(queues: usize, capacity: u32) -> Self {
        // Rings start small and double when a queue is longer than ever
        // before: short queues stay within a few cache lines.
        let q = (0..queues)
            .map(|_| PacketQueue::with_capacity(INITIAL_QUEUE_PKTS.min(capacity as usize)))
            .collect();
        PortQueues {
            queues: q,
            len: 0,
            capacity,
        }
    }
    #[inline]
    pub fn is_full(&self) -> bool {
        self.len >= self.capacity
    }
    #[inline]
    pub fn push(&mut self, queue: QueueId, pkt: Packet) {
        self.queues[queue as usize].push_back(pkt);
        self.len += 1;
    }
    #[inline]
    pub fn pop(&mut self, queue: QueueId) -> Option<Packet> {
        let p = self.queues[queue as usize].pop_front();
        if p.is_some() {
            self.len -= 1;
        }
        p
    }
    /// Drop the packet at the tail of `queue`.
    #[inline]
    pub fn drop_tail(&mut self, queue: QueueId) -> Option<Packet> {
        let p = self.queues[queue as usize].pop_back();
        if p.is_some() {
            self.len -= 1;
        }
        p
    }
}

/// All queues of one router, indexed by output port.
#[derive(Debug)]
pub struct QueueBank {
    pub ports: Vec<PortQueues>,
}

impl QueueBank {
    pub fn new(buffers: &[u32], queues_per_port: usize) -> Self {
        QueueBank {
            ports: buffers
                .iter()
                .map(|&b| PortQueues::new(queues_per_port, b))
                .collect(),
        }
    }
    #[inline]
    pub fn port(&mut self, port: PortId) -> &mut PortQueues {
        &mut self.ports[port as usize]
    }
}

/// Static facts about a router's ports, handed to stage constructors.
#[derive(Clone, Debug)]
pub struct RouterPorts {
    /// Buffer per output port, in packets.
    pub buffers: Vec<u32>,
    /// Rate of each output port's link in full packets per slot (its rate
    /// over the base rate: 1 for a link at `slot_gbps`).
    pub rates: Vec<f64>,
}

/// Route stage: choose the output port of a packet.
pub trait Route {
    fn route(&mut self, pkt: &Packet, in_port: PortId) -> PortId;
}

/// Classify stage: choose the queue within the output port.
pub trait Classify {
    fn queues_per_port(&self) -> usize;
    fn classify(&mut self, pkt: &Packet, port: PortId) -> QueueId;
}

/// Enqueue stage (queue management): admit, drop or mark, and store the packet.
pub trait Enqueue {
    fn enqueue(
        &mut self,
        pkt: Packet,
        port: PortId,
        queue: QueueId,
        bank: &mut QueueBank,
        now: Slot,
    ) -> Admission;
    /// The link of `port` took the port's last packet in slot `now` (the
    /// port is empty from `now + 1`). RED's average decays over idle time.
    #[inline]
    fn drained(&mut self, _port: PortId, _now: Slot) {}
}

/// Schedule stage: pick the next packet to send on a port, if any.
pub trait Schedule {
    fn schedule(&mut self, port: PortId, bank: &mut QueueBank, now: Slot) -> Option<Packet>;
}

/// Whole-router API: what the engine needs from any router.
pub trait Router: Send {
    /// A packet arrived on `in_port`.
    fn receive(&mut self, pkt: Packet, in_port: PortId, now: Slot);
    /// The link on `port` can carry one packet now.
    fn transmit(&mut self, port: PortId, now: Slot) -> Option<Packet>;
    /// Packets buffered at output `port`.
    fn occupancy(&self, port: PortId) -> u32;
    fn port_count(&self) -> usize;
    fn counters(&self) -> &[PortCounters];
    /// Bitmap of ports holding packets (bit p of word p / 64), so the engine
    /// visits only busy ports each timeslot.
    fn backlog(&self) -> &[u64];
}

/// Bitmap of busy ports, kept by routers for the engine.
#[derive(Clone, Debug, Default)]
pub struct PortSet {
    pub words: Vec<u64>,
}

impl PortSet {
    pub fn new(ports: usize) -> Self {
        PortSet {
            words: vec![0; ports.div_ceil(64)],
        }
    }
    #[inline]
    pub fn insert(&mut self, port: PortId) {
        self.words[port as usize >> 6] |= 1 << (port & 63);
    }
    #[inline]
    pub fn remove(&mut self, port: PortId) {
        self.words[port as usize >> 6] &= !(1 << (port & 63));
    }
}

/// A router composed of the four pattern stages.
pub struct PatternRouter<R, C, E, S> {
    pub route: R,
    pub classify: C,
    pub enqueue: E,
    pub schedule: S,
    pub bank: QueueBank,
    pub counters: Vec<PortCounters>,
    pub busy: PortSet,
}

impl<R: Route, C: Classify, E: Enqueue, S: Schedule> PatternRouter<R, C, E, S> {
    pub fn new(ports: &RouterPorts, route: R, classify: C, enqueue: E, schedule: S) -> Self {
        let bank = QueueBank::new(&ports.buffers, classify.queues_per_port());
        let counters = vec![PortCounters::default(); ports.buffers.len()];
        let busy = PortSet::new(ports.buffers.len());
        PatternRouter {
            route,
            classify,
            enqueue,
            schedule,
            bank,
            counters,
            busy,
        }
    }
}

impl<R, C, E, S> Router for PatternRouter<R, C, E, S>
where
    R: Route + Send,
    C: Classify + Send,
    E: Enqueue + Send,
    S: Schedule + Send,
{
    #[inline(always)]
    fn receive(&mut self, pkt: Packet, in_port: PortId, now: Slot) {
        let port = self.route.route(&pkt, in_port);
        let queue = self.classify.classify(&pkt, port);
        let outcome = self.enqueue.enqueue(pkt, port, queue, &mut self.bank, now);
        self.counters[port as usize].record(outcome);
        if outcome != Admission::Dropped {
            self.busy.insert(port);
        }
    }
    #[inline]
    fn transmit(&mut self, port: PortId, now: Slot) -> Option<Packet> {
        let i = port as usize;
        if self.bank.ports[i].len == 0 {
            return None;
        }
        let p = self.schedule.schedule(port, &mut self.bank, now);
        let counters = &mut self.counters[i];
        counters.transmitted += p.is_some() as u64;
        if self.bank.ports[i].len == 0 {
            self.busy.remove(port);
            self.enqueue.drained(port, now);
        }
        p
    }
    #[inline]
    fn occupancy(&self, port: PortId) -> u32 {
        self.bank.ports[port as usize].len
    }
    fn port_count(&self) -> usize {
        self.bank.ports.len()
    }
    fn counters(&self) -> &[PortCounters] {
        &self.counters
    }
    fn backlog(&self) -> &[u64] {
        &self.busy.words
    }
}

/// Single FIFO queue per port.
#[derive(Clone, Copy, Debug, Default)]
pub struct SingleQueue;

impl Classify for SingleQueue {
    fn queues_per_port(&self) -> usize {
        1
    }
    #[inline]
    fn classify(&mut self, _pkt: &Packet, _port: PortId) -> QueueId {
        0
    }
}

/// Serve queue 0 first-in first-out.
#[derive(Clone, Copy, Debug, Default)]
pub struct FifoSchedule;

impl Schedule for FifoSchedule {
    #[inline]
    fn schedule(&mut self, port: PortId, bank: &mut QueueBank, _now: Slot) -> Option<Packet> {
        bank.port(port).pop(0)
    }
}
