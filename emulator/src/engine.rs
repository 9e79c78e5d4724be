//! One partition of the emulated network: the routers and endpoints that one
//! worker thread owns, the links between them, and the timeslot loop.
//!
//! Each timeslot: packets due this slot are delivered (routers route, classify
//! and enqueue them; endpoints consume data and ACKs); every router port sends
//! as many packets as its link rate allows this slot; endpoints start flows,
//! fire timers and send on their uplinks; queues are sampled. A packet sent
//! in slot t on a link with latency L is delivered in slot t + L (L >= 1), so a
//! packet crosses at most one hop per slot.
//!
//! ACKs do not occupy links: they are delivered to the sender
//! `ack_delay_slots` after the data packet reached the receiver, carrying the
//! cumulative ACK and the CE echo.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;

use crate::config::TransportConfig;
use crate::config::TransportKind;
use crate::endpoint::EndpointState;
use crate::endpoint::sizes::packets_for;
use crate::endpoint::transport::{AckOutcome, FlowSender};
use crate::endpoint::workload::{
    FlowArrival, OpenLoopStream, PoissonFlows, WorkloadPlan, other_endpoint, other_endpoint_from,
};
use crate::fabric::topology::{Peer, Topology};
use crate::packet::{ACK, CE, ECE, ECT, EndpointId, FIN, OPEN_LOOP, Packet, PortId, Slot};
use crate::scheme::route::TableRoute;
use crate::scheme::{Route, Router, RouterPorts};
use rand::RngCore;
use rtrb::Consumer;

/// Open-loop stream ids live in the upper half of the flow id space.
pub const STREAM_FLOW_BIT: u32 = 1 << 31;
/// Slots in the wheel that schedules open-loop packet arrivals.
const STREAM_WHEEL_MASK: u64 = 1023;
/// Transport timers are checked every this many slots.
const TIMER_INTERVAL: u64 = 8;

/// Where a packet goes inside a partition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Switch { idx: u32, port: PortId },
    Endpoint { idx: u32 },
}

/// A packet on its way to another partition. `to` is already in the
/// receiving partition's local indices (the sender knows the placement), so
/// nothing is looked up on the way in.
#[derive(Clone, Copy, Debug)]
pub struct Transfer {
    /// Due slot, low 32 bits: sender and receiver are never 2^31 slots apart,
    /// and 40 bytes instead of 48 is less for the cores to pass around.
    pub arrive: u32,
    pub to: PackedTarget,
    pub pkt: Packet,
}

/// Where a link (or the ACK path) leads: a target in this partition (`dest ==
/// WireEnd::LOCAL`), a target in another partition, reached through outbound
/// box `dest`, or into a split switch (`dest == WireEnd::SPLIT`, `to` holding
/// the index of the link's `SplitEntry`), where the partition depends on the
/// packet. A plain struct, not an enum: the local send path tests one field.
#[derive(Clone, Copy, Debug)]
struct WireEnd {
    to: PackedTarget,
    dest: u16,
}

impl WireEnd {
    const LOCAL: u16 = u16::MAX;
    const SPLIT: u16 = u16::MAX - 1;
}

/// A link into a split switch, as the sending partition sees it: for each
/// destination endpoint, the target (the switch's router in the partition
/// of the output port the packet will leave by, at the link's input port)
/// and where that is (`WireEnd::LOCAL` or an outbound box); `ROUTE_EACH`
/// where ECMP candidates sit on different partitions and the flow hash
/// decides.
#[derive(Clone, Debug)]
struct SplitEntry {
    split: u32,
    in_port: PortId,
    delay: u32,
    by_dst: Vec<(PackedTarget, u16)>,
}

/// See `SplitEntry`.
const ROUTE_EACH: u16 = u16::MAX - 2;
/// See `Outbox::ack_dest`.
const NO_RING: u16 = u16::MAX - 3;

/// A switch split by output port, as seen by partitions sending to it: its
/// routes (the same table its routers use) pick the output port, whose
/// partition then receives the packet.
#[derive(Clone, Debug)]
struct SplitSwitch {
    /// Per destination endpoint: the partition and local router index that
    /// every candidate output port leads to, or `None` when ECMP candidates
    /// sit on different partitions and the flow hash decides.
    by_dst: Vec<Option<(u16, u32)>>,
    route: TableRoute,
    port_part: Vec<u16>,
    /// Local router index of the switch in each partition (`NO_ROUTER` if none).
    local: Vec<u32>,
}

impl SplitSwitch {
    fn new(next_hops: &[Vec<PortId>], port_part: &[u16], local: &[u32]) -> Self {
        let by_dst = next_hops
            .iter()
            .map(|ports| {
                let part = port_part[*ports.first()? as usize];
                ports
                    .iter()
                    .all(|&p| port_part[p as usize] == part)
                    .then_some((part, local[part as usize]))
            })
            .collect();
        SplitSwitch {
            by_dst,
            route: TableRoute::new(next_hops),
            port_part: port_part.to_vec(),
            local: local.to_vec(),
        }
    }
}

/// The sending end of a link: where it leads, its latency and its rate credit.
#[derive(Clone, Copy, Debug)]
struct Wire {
    to: WireEnd,
    latency: u32,
    /// Link rate in Mb/s; the base rate sends one packet per slot.
    rate: u32,
    credit: u32,
    /// Slot of the last credit update (credit is refilled lazily).
    last: Slot,
}

impl Wire {
    /// A link starts with a full credit: it can send in slot 0.
    fn new(to: WireEnd, latency: u32, rate: u32, base: u32) -> Self {
        Wire {
            to,
            latency,
            rate,
            credit: rate.max(base),
            last: 0,
        }
    }
    /// Refill the rate credit for the slots since the last visit.
    #[inline]
    fn refill(&mut self, t: Slot, base: u32) {
        let cap = self.rate.max(base) as u64;
        let add = (t - self.last).min(cap) * self.rate as u64;
        self.credit = (self.credit as u64 + add).min(cap) as u32;
        self.last = t;
    }
}

/// Packets leaving the partition: a batch per other partition, and the
/// routes of split switches that decide which partition a packet goes to.
pub struct Outbox {
    /// Transfers for each outbound ring (see `Placement::exchanges`),
    /// published once per batch.
    pub boxes: Vec<Vec<Transfer>>,
    /// Per partition: (delay, index in `boxes`) of the rings towards it.
    rings: Vec<Vec<(u32, u16)>>,
    /// Per partition: where ACKs to its endpoints go (`WireEnd::LOCAL` or a box).
    ack_dest: Vec<u16>,
    splits: Vec<SplitSwitch>,
    /// The links of this partition into split switches.
    entries: Vec<SplitEntry>,
    me: u16,
}

impl Outbox {
    fn new(
        exchanges: &[(u16, u32)],
        splits: Vec<SplitSwitch>,
        me: u16,
        parts: usize,
        ack_delay: u32,
    ) -> Self {
        let rings: Vec<Vec<(u32, u16)>> = (0..parts)
            .map(|j| {
                exchanges
                    .iter()
                    .enumerate()
                    .filter(|(_, (to, _))| *to as usize == j)
                    .map(|(k, &(_, delay))| (delay, k as u16))
                    .collect()
            })
            .collect();
        let mut outbox = Outbox {
            boxes: exchanges.iter().map(|_| Vec::new()).collect(),
            rings,
            ack_dest: Vec::new(),
            splits,
            entries: Vec::new(),
            me,
        };
        // No ring means no endpoints there: no ACK ever goes there.
        outbox.ack_dest = (0..parts as u16)
            .map(|j| outbox.find_dest(j, ack_delay).unwrap_or(NO_RING))
            .collect();
        outbox
    }

    /// Where a packet for `part` sent with `delay` goes: `WireEnd::LOCAL`, or
    /// the box of its ring if there is one.
    fn find_dest(&self, part: u16, delay: u32) -> Option<u16> {
        if part == self.me {
            return Some(WireEnd::LOCAL);
        }
        self.rings[part as usize]
            .iter()
            .find(|&&(d, _)| d == delay)
            .map(|&(_, k)| k)
    }

    /// `find_dest` for a link that crosses: it has a ring (see
    /// `Placement::exchanges`). For building wires; sends use the result.
    fn dest(&self, part: u16, delay: u32) -> u16 {
        self.find_dest(part, delay)
            .unwrap_or_else(|| panic!("no ring towards partition {part} for delay {delay}"))
    }

    /// Target and destination of a packet entering a split switch at
    /// `in_port` over a link of `delay`, to leave by a port of `part`, where
    /// the switch's router is `idx`.
    fn split_hop(&self, part: u16, idx: u32, in_port: PortId, delay: u32) -> (PackedTarget, u16) {
        debug_assert_ne!(idx, NO_ROUTER);
        (
            PackedTarget::pack(Target::Switch { idx, port: in_port }),
            self.dest(part, delay),
        )
    }

    /// The end of a link with `latency` into split switch `split` at `in_port`.
    fn split_end(&mut self, split: u32, in_port: PortId, latency: u32) -> WireEnd {
        let s = &self.splits[split as usize];
        let by_dst = s
            .by_dst
            .iter()
            .map(|hop| match *hop {
                Some((part, idx)) => self.split_hop(part, idx, in_port, latency),
                None => (PackedTarget(0), ROUTE_EACH),
            })
            .collect();
        self.entries.push(SplitEntry {
            split,
            in_port,
            delay: latency,
            by_dst,
        });
        WireEnd {
            to: PackedTarget(self.entries.len() as u32 - 1),
            dest: WireEnd::SPLIT,
        }
    }

    /// Target and destination of a packet sent on split entry `entry`.
    #[inline]
    fn enter_split(&mut self, entry: PackedTarget, pkt: &Packet) -> (PackedTarget, u16) {
        debug_assert!((entry.0 as usize) < self.entries.len());
        // SAFETY: split ends are only made by `split_end`, with the index of
        // the entry it pushed, and entries are never removed.
        let e = unsafe { self.entries.get_unchecked(entry.0 as usize) };
        debug_assert!((pkt.dst as usize) < e.by_dst.len());
        // SAFETY: `by_dst` has one entry per endpoint of the topology, and
        // packets only ever carry endpoint ids of the topology (flows and
        // streams are validated against it).
        let hop = unsafe { *e.by_dst.get_unchecked(pkt.dst as usize) };
        if hop.1 != ROUTE_EACH {
            return hop;
        }
        self.route_into_split(entry, pkt)
    }

    /// A packet whose output port at the split switch (hence partition)
    /// depends on its flow: routed there now (the router there routes it
    /// again, identically).
    #[inline(never)]
    fn route_into_split(&mut self, entry: PackedTarget, pkt: &Packet) -> (PackedTarget, u16) {
        let (split, in_port, delay) = {
            let e = &self.entries[entry.0 as usize];
            (e.split as usize, e.in_port, e.delay)
        };
        let s = &mut self.splits[split];
        let out = s.route.route(pkt, in_port);
        let part = s.port_part[out as usize];
        let idx = s.local[part as usize];
        self.split_hop(part, idx, in_port, delay)
    }
}

/// A packet due at a local target.
#[derive(Clone, Copy, Debug)]
struct Delivery {
    pkt: Packet,
    to: PackedTarget,
}

/// `Target` packed into 32 bits: bit 31 set = endpoint `idx`; else switch
/// `idx` (bits 16..31) and input port (bits 0..16).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedTarget(u32);

impl PackedTarget {
    const ENDPOINT: u32 = 1 << 31;
    #[inline]
    fn pack(t: Target) -> Self {
        match t {
            Target::Switch { idx, port } => PackedTarget((idx << 16) | port as u32),
            Target::Endpoint { idx } => PackedTarget(Self::ENDPOINT | idx),
        }
    }
}

/// Marks a partition that holds no router of a switch.
pub const NO_ROUTER: u32 = u32::MAX;

/// Which partition emulates each switch port and each endpoint.
///
/// Switches of one group (rack, pod) share a partition and endpoints follow
/// their switch. An output-queued switch's output ports are independent (every
/// scheme keeps its state per output port), so a switch without endpoints
/// whose neighbours live on several partitions is *split* by output port: the
/// port towards a neighbour is emulated by the neighbour's partition, each
/// such partition holding a router for the switch that only ever uses its own
/// ports. A packet sent towards a split switch is routed at the sender (the
/// switch's routes are a function of the packet) and goes straight to the
/// partition of the port it will leave by, with the link's latency as before.
/// With 2 racks + aggregation on 2 workers this makes the partition
/// symmetric: each worker runs its ToR, its hosts and the aggregation ports
/// towards its rack.
#[derive(Clone, Debug)]
pub struct Placement {
    /// Per switch, per output port: the partition that emulates the port.
    pub port_part: Vec<Vec<u16>>,
    /// Per switch, per partition: the switch's local router index there, or
    /// `NO_ROUTER`. A switch that is not split has one router, on its group's
    /// partition.
    pub switch_local: Vec<Vec<u32>>,
    /// Switches split across partitions by output port.
    pub split: Vec<bool>,
    pub endpoint_part: Vec<u16>,
    pub endpoint_local: Vec<u32>,
    pub parts: usize,
}

impl Placement {
    /// Switches of one group share a partition; endpoints follow their switch;
    /// switches without endpoints that join several partitions are split by
    /// output port (see the type's comment).
    pub fn by_group(topo: &Topology, threads: usize) -> Placement {
        let mut groups: Vec<u32> = topo.switches.iter().map(|s| s.group).collect();
        groups.sort();
        groups.dedup();
        let parts = threads.clamp(1, groups.len().max(1));
        let home: Vec<u16> = topo
            .switches
            .iter()
            .map(|s| (groups.binary_search(&s.group).unwrap_or(0) % parts) as u16)
            .collect();
        let split = if parts > 1 {
            Self::switches_to_split(topo, &home)
        } else {
            vec![false; topo.switches.len()]
        };
        let port_part: Vec<Vec<u16>> = topo
            .switches
            .iter()
            .enumerate()
            .map(|(sid, sw)| {
                sw.ports
                    .iter()
                    .map(|p| match (split[sid], p.peer) {
                        // Neighbours of a split switch are never split themselves.
                        (true, Peer::Switch { switch, .. }) => home[switch as usize],
                        _ => home[sid],
                    })
                    .collect()
            })
            .collect();
        let mut counts = vec![0u32; parts];
        let mut switch_local = Vec::with_capacity(topo.switches.len());
        for (sid, ports) in port_part.iter().enumerate() {
            let mut local = vec![NO_ROUTER; parts];
            for (p, slot) in local.iter_mut().enumerate() {
                let holds = if split[sid] {
                    ports.iter().any(|&q| q as usize == p)
                } else {
                    home[sid] as usize == p
                };
                if holds {
                    *slot = counts[p];
                    counts[p] += 1;
                }
            }
            switch_local.push(local);
        }
        let mut ecounts = vec![0u32; parts];
        let mut endpoint_part = Vec::new();
        let mut endpoint_local = Vec::new();
        for e in &topo.endpoints {
            let p = home[e.switch as usize] as usize;
            endpoint_part.push(p as u16);
            endpoint_local.push(ecounts[p]);
            ecounts[p] += 1;
        }
        Placement {
            port_part,
            switch_local,
            split,
            endpoint_part,
            endpoint_local,
            parts,
        }
    }

    /// Split switches without endpoints whose neighbours sit on more than one
    /// partition, farthest from the endpoints first (the aggregation switch of
    /// racks, the cores of a fat tree), never two neighbours: a split switch's
    /// ports are placed by its neighbours, which must therefore be whole.
    fn switches_to_split(topo: &Topology, home: &[u16]) -> Vec<bool> {
        let n = topo.switches.len();
        let has_endpoint: Vec<bool> = topo
            .switches
            .iter()
            .map(|s| s.ports.iter().any(|p| matches!(p.peer, Peer::Endpoint(_))))
            .collect();
        // Hops from the nearest switch with endpoints (breadth first).
        let mut dist = vec![u32::MAX; n];
        let mut frontier: Vec<usize> = (0..n).filter(|&s| has_endpoint[s]).collect();
        for &s in &frontier {
            dist[s] = 0;
        }
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for s in frontier {
                for p in &topo.switches[s].ports {
                    if let Peer::Switch { switch, .. } = p.peer
                        && dist[switch as usize] == u32::MAX
                    {
                        dist[switch as usize] = dist[s] + 1;
                        next.push(switch as usize);
                    }
                }
            }
            frontier = next;
        }
        let mut order: Vec<usize> = (0..n).filter(|&s| !has_endpoint[s]).collect();
        order.sort_by_key(|&s| (std::cmp::Reverse(dist[s]), s));
        let mut split = vec![false; n];
        for s in order {
            let peers: Vec<usize> = topo.switches[s]
                .ports
                .iter()
                .filter_map(|p| match p.peer {
                    Peer::Switch { switch, .. } => Some(switch as usize),
                    Peer::Endpoint(_) => None,
                })
                .collect();
            let spans = peers.iter().any(|&q| home[q] != home[peers[0]]);
            if spans && peers.iter().all(|&q| !split[q]) {
                split[s] = true;
            }
        }
        split
    }

    /// The exchanges between partitions: for each partition, the (receiving
    /// partition, delay in slots) pairs it may send packets on, sorted. Each
    /// pair gets its own ring, so the packets in one ring fall due in the
    /// order they were sent and the receiver takes them straight from the
    /// ring in their slot. Delays are those of links that cross partitions
    /// (into a split switch: towards any partition holding one of its ports)
    /// and, between partitions that both have endpoints, the ACK delay.
    pub fn exchanges(&self, topo: &Topology, ack_delay: u32) -> Vec<Vec<(u16, u32)>> {
        let mut plan = vec![std::collections::BTreeSet::new(); self.parts];
        let mut link = |from: u16, peer: Peer, latency: u32| {
            let targets: Vec<u16> = match peer {
                Peer::Endpoint(e) => vec![self.endpoint_part[e as usize]],
                Peer::Switch { switch, .. } if self.split[switch as usize] => {
                    self.port_part[switch as usize].clone()
                }
                Peer::Switch { switch, .. } => vec![self.owner(switch)],
            };
            for to in targets {
                if to != from {
                    plan[from as usize].insert((to, latency));
                }
            }
        };
        for (sid, sw) in topo.switches.iter().enumerate() {
            for (p, port) in sw.ports.iter().enumerate() {
                link(self.port_part[sid][p], port.peer, port.link.latency_slots);
            }
        }
        for (e, ep) in topo.endpoints.iter().enumerate() {
            link(
                self.endpoint_part[e],
                Peer::Switch {
                    switch: ep.switch,
                    port: ep.port,
                },
                ep.link.latency_slots,
            );
        }
        let mut with_endpoints: Vec<u16> = self.endpoint_part.clone();
        with_endpoints.sort();
        with_endpoints.dedup();
        for &a in &with_endpoints {
            for &b in &with_endpoints {
                if a != b {
                    plan[a as usize].insert((b, ack_delay));
                }
            }
        }
        plan.into_iter().map(|s| s.into_iter().collect()).collect()
    }

    /// The partition of an endpoint-facing or unsplit switch's router.
    fn owner(&self, switch: u32) -> u16 {
        debug_assert!(!self.split[switch as usize]);
        self.switch_local[switch as usize]
            .iter()
            .position(|&l| l != NO_ROUTER)
            .expect("an unsplit switch has a router") as u16
    }
}

/// Read-only facts every partition shares.
#[derive(Clone, Debug)]
pub struct Shared {
    pub transport: TransportConfig,
    /// Base link rate in Mb/s (one packet per slot).
    pub base_rate: u32,
    pub sample_interval: u64,
    pub keep_series: bool,
    pub max_series: usize,
    pub endpoints: usize,
    pub payload_bytes: u32,
    pub nic_capacity: usize,
    pub placement: Placement,
    /// `placement.exchanges(..)`: the rings between partitions, made by the
    /// runner and indexed the same way by every partition.
    pub exchanges: Vec<Vec<(u16, u32)>>,
}

#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct QueueSample {
    pub slot: Slot,
    pub switch: u32,
    pub port: PortId,
    pub occupancy: u32,
}

/// Counters a partition accumulates over a run.
#[derive(Debug, Default)]
pub struct PartitionStats {
    /// Packets sent by router ports (one per router hop).
    pub router_packets: u64,
    /// Data packets delivered in order (transport) or received (open loop).
    pub delivered: u64,
    pub nic_drops: u64,
    pub late_transfers: u64,
    pub late_slots: u64,
    pub samples: u64,
    /// Per local router, per port: sum and max of sampled occupancy.
    pub occupancy_sum: Vec<Vec<u64>>,
    pub occupancy_max: Vec<Vec<u32>>,
    pub series: Vec<QueueSample>,
    pub series_dropped: u64,
    /// Open-loop packets received, indexed by stream id without STREAM_FLOW_BIT.
    pub stream_delivered: Vec<u64>,
}

pub struct Partition<R> {
    pub index: usize,
    pub now: Slot,
    shared: Arc<Shared>,
    pub routers: Vec<R>,
    /// Global id of each local router.
    pub router_ids: Vec<u32>,
    /// Per local router, the ports this partition emulates (all of them
    /// unless the switch is split).
    owned_ports: Vec<Vec<bool>>,
    wires: Vec<Vec<Wire>>,
    pub endpoints: Vec<EndpointState>,
    ep_wires: Vec<Wire>,
    /// Endpoints that may have something to send.
    ep_ready: Vec<u64>,
    /// Indexed by the global endpoint id that sends first in a slot
    /// (slot modulo endpoints): the first local endpoint to send.
    ep_rotation: Vec<u32>,
    poisson_next: f64,
    /// Open-loop streams by the slot of their next arrival (modulo the wheel).
    stream_wheel: Vec<Vec<u32>>,
    /// Streams that draw each slot's arrival count at once (not on the wheel).
    per_slot_streams: Vec<PerSlotStream>,
    /// Emptied wheel bucket kept for reuse, so turning the wheel never allocates.
    wheel_spare: Vec<u32>,
    /// Per stream, the slot of its next arrival (ceil of `next`), kept as an
    /// integer so the wheel compares slots without float conversions.
    stream_due: Vec<Slot>,
    pub flows: Vec<FlowSender>,
    recv: HashMap<u32, u32>,
    calendar: Vec<Vec<Delivery>>,
    mask: u64,
    far: BinaryHeap<Reverse<(Slot, u64)>>,
    far_items: HashMap<u64, Delivery>,
    far_seq: u64,
    pub outbox: Outbox,
    /// Rings from other partitions, in `Placement::exchanges` order.
    inbound: Vec<Inbound>,
    scheduled: Vec<FlowArrival>,
    next_scheduled: usize,
    sequential: Vec<std::collections::VecDeque<FlowArrival>>,
    sequential_started: Vec<bool>,
    from_sequential: Vec<bool>,
    poisson: Vec<PoissonFlows>,
    pub streams: Vec<OpenLoopStream>,
    stream_src_local: Vec<u32>,
    srpt: bool,
    /// Smallest cross-partition delay in slots (u64::MAX if nothing crosses).
    pub lookahead: u64,
    pub stats: PartitionStats,
}

/// A ring of packets from another partition, all sent with the same delay,
/// so they fall due in ring order: each slot takes the due ones from its head.
struct Inbound {
    ring: Consumer<Transfer>,
    /// Transfers known to be in the ring (as of the last look at its tail).
    avail: usize,
}

/// The slot nearest to `now` whose low 32 bits are `low`.
#[inline]
fn full_slot(now: Slot, low: u32) -> Slot {
    now.wrapping_add(low.wrapping_sub(now as u32) as i32 as i64 as u64)
}

/// An open-loop Poisson stream fast enough to have arrivals in most slots.
#[derive(Debug)]
struct PerSlotStream {
    stream: u32,
    src_local: u32,
    /// See `poisson_count_thresholds`.
    counts: Arc<[u64]>,
}

/// First slot at or after time `x` (in slots, >= 0): ceil without a libm call.
#[inline]
fn slot_at_or_after(x: f64) -> Slot {
    // Via i64: one conversion instruction each way (u64 <-> f64 takes a
    // two-range dance); slots never come near 2^63, and +inf saturates.
    let s = x.max(0.0) as i64;
    (if (s as f64) < x {
        s.saturating_add(1)
    } else {
        s
    }) as Slot
}

fn rate_mbps(gbps: f64) -> u32 {
    (gbps * 1000.0).round().max(1.0) as u32
}

impl<R: Router> Partition<R> {
    pub fn new(
        index: usize,
        topo: &Topology,
        shared: Arc<Shared>,
        plan: &WorkloadPlan,
        mut build: impl FnMut(u32, &RouterPorts, TableRoute) -> R,
    ) -> Self {
        let pl = &shared.placement;
        let nparts = pl.parts;
        let tables = topo.next_hops();
        let base = shared.base_rate;
        // Split switches, numbered in switch order: senders route into them.
        let mut split_index = vec![u32::MAX; topo.switches.len()];
        let mut splits = Vec::new();
        for (sid, &is_split) in pl.split.iter().enumerate() {
            if is_split {
                split_index[sid] = splits.len() as u32;
                splits.push(SplitSwitch::new(
                    &tables[sid],
                    &pl.port_part[sid],
                    &pl.switch_local[sid],
                ));
            }
        }
        let mut outbox = Outbox::new(
            &shared.exchanges[index],
            splits,
            index as u16,
            nparts,
            shared.transport.ack_delay_slots,
        );
        let mut end_for = |peer: Peer, latency: u32| -> WireEnd {
            let (part, local) = match peer {
                Peer::Endpoint(e) => (
                    pl.endpoint_part[e as usize],
                    Target::Endpoint {
                        idx: pl.endpoint_local[e as usize],
                    },
                ),
                Peer::Switch { switch, port } if pl.split[switch as usize] => {
                    return outbox.split_end(split_index[switch as usize], port, latency);
                }
                Peer::Switch { switch, port } => {
                    let part = pl.owner(switch);
                    let idx = pl.switch_local[switch as usize][part as usize];
                    (part, Target::Switch { idx, port })
                }
            };
            WireEnd {
                to: PackedTarget::pack(local),
                dest: outbox.dest(part, latency),
            }
        };
        let mut routers = Vec::new();
        let mut router_ids = Vec::new();
        let mut wires: Vec<Vec<Wire>> = Vec::new();
        let mut owned_ports: Vec<Vec<bool>> = Vec::new();
        let mut max_delay = shared.transport.ack_delay_slots as u64;
        // Smallest delay of anything sent to this partition: how far it may
        // run ahead of the others without a packet arriving after its due slot.
        let lookahead = shared
            .exchanges
            .iter()
            .flatten()
            .filter(|&&(to, _)| to as usize == index)
            .map(|&(_, delay)| delay as u64)
            .min()
            .unwrap_or(u64::MAX);
        for (sid, sw) in topo.switches.iter().enumerate() {
            if pl.switch_local[sid][index] == NO_ROUTER {
                continue;
            }
            debug_assert_eq!(pl.switch_local[sid][index] as usize, routers.len());
            let ports = RouterPorts {
                buffers: sw.ports.iter().map(|p| p.link.buffer_pkts).collect(),
            };
            let router = build(sid as u32, &ports, TableRoute::new(&tables[sid]));
            // `routers_transmit` indexes wires by the ports a router marks busy.
            assert_eq!(router.port_count(), sw.ports.len(), "router port count");
            routers.push(router);
            router_ids.push(sid as u32);
            // A split switch's router here only ever queues packets for the
            // ports this partition owns; the others' wires stay idle.
            let owned: Vec<bool> = pl.port_part[sid]
                .iter()
                .map(|&p| p as usize == index)
                .collect();
            wires.push(
                sw.ports
                    .iter()
                    .zip(&owned)
                    .map(|(p, &own)| {
                        let w = Wire::new(
                            end_for(p.peer, p.link.latency_slots),
                            p.link.latency_slots,
                            rate_mbps(p.link.gbps),
                            base,
                        );
                        if own {
                            max_delay = max_delay.max(p.link.latency_slots as u64);
                        }
                        w
                    })
                    .collect(),
            );
            owned_ports.push(owned);
        }
        let mut endpoints = Vec::new();
        let mut ep_wires = Vec::new();
        for (eid, ep) in topo.endpoints.iter().enumerate() {
            if pl.endpoint_part[eid] as usize != index {
                continue;
            }
            endpoints.push(EndpointState::new(eid as EndpointId, shared.nic_capacity));
            ep_wires.push(Wire::new(
                end_for(
                    Peer::Switch {
                        switch: ep.switch,
                        port: ep.port,
                    },
                    ep.link.latency_slots,
                ),
                ep.link.latency_slots,
                rate_mbps(ep.link.gbps),
                base,
            ));
            max_delay = max_delay.max(ep.link.latency_slots as u64);
        }
        let ep_words = endpoints.len().div_ceil(64);
        // Local endpoints are in global id order: the first local endpoint at
        // or after global id g sends first; past the last one, wrap to 0.
        let ep_rotation: Vec<u32> = (0..topo.endpoints.len().max(1))
            .map(|g| {
                let k = endpoints.partition_point(|e: &EndpointState| (e.id as usize) < g);
                if k == endpoints.len() { 0 } else { k as u32 }
            })
            .collect();
        let horizon = (max_delay + 1).next_power_of_two().max(2);
        let local = |e: EndpointId| pl.endpoint_part[e as usize] as usize == index;
        let mut sequential = Vec::new();
        for (src, flows) in &plan.sequential {
            if local(*src) {
                let li = pl.endpoint_local[*src as usize] as usize;
                endpoints[li].sequential = Some(sequential.len());
                sequential.push(flows.iter().cloned().collect());
            }
        }
        // Stream ids are their index in the plan: the same whatever the
        // placement, so flow hashes (ECMP, DRR) agree between thread counts.
        let streams: Vec<OpenLoopStream> = plan
            .open_loop
            .iter()
            .enumerate()
            .filter(|(_, s)| local(s.src))
            .map(|(g, s)| OpenLoopStream {
                flow: STREAM_FLOW_BIT | g as u32,
                ..s.clone()
            })
            .collect();
        let mut stream_wheel: Vec<Vec<u32>> = vec![Vec::new(); (STREAM_WHEEL_MASK + 1) as usize];
        let stream_due: Vec<Slot> = streams.iter().map(|s| slot_at_or_after(s.next)).collect();
        let mut per_slot_streams = Vec::new();
        for (k, (&due, s)) in stream_due.iter().zip(&streams).enumerate() {
            match &s.per_slot {
                Some(counts) => per_slot_streams.push(PerSlotStream {
                    stream: k as u32,
                    src_local: pl.endpoint_local[s.src as usize],
                    counts: counts.clone(),
                }),
                None => stream_wheel[(due & STREAM_WHEEL_MASK) as usize].push(k as u32),
            }
        }
        let stream_src_local = streams
            .iter()
            .map(|s| pl.endpoint_local[s.src as usize])
            .collect();
        let stats = PartitionStats {
            occupancy_sum: wires.iter().map(|w| vec![0; w.len()]).collect(),
            occupancy_max: wires.iter().map(|w| vec![0; w.len()]).collect(),
            stream_delivered: vec![0; plan.open_loop.len()],
            ..Default::default()
        };
        Partition {
            index,
            now: 0,
            srpt: shared.transport.kind == TransportKind::Pfabric,
            routers,
            router_ids,
            owned_ports,
            wires,
            endpoints,
            ep_ready: vec![0; ep_words],
            ep_rotation,
            ep_wires,
            poisson_next: 0.0,
            stream_wheel,
            wheel_spare: Vec::new(),
            per_slot_streams,
            stream_due,
            flows: Vec::new(),
            recv: HashMap::new(),
            calendar: (0..horizon).map(|_| Vec::new()).collect(),
            mask: horizon - 1,
            far: BinaryHeap::new(),
            far_items: HashMap::new(),
            far_seq: 0,
            outbox,
            inbound: Vec::new(),
            scheduled: plan
                .scheduled
                .iter()
                .filter(|f| local(f.src))
                .cloned()
                .collect(),
            next_scheduled: 0,
            sequential_started: vec![false; sequential.len()],
            from_sequential: Vec::new(),
            sequential,
            poisson: plan
                .poisson
                .iter()
                .filter(|p| local(p.src))
                .cloned()
                .collect(),
            streams,
            stream_src_local,
            stats,
            lookahead,
            shared,
        }
    }

    /// Run one timeslot.
    pub fn step(&mut self) {
        self.step_sends();
        self.step_rest();
    }

    /// The first part of a slot: everything that may send to other
    /// partitions. Deliveries (ACKs to remote endpoints leave as data
    /// arrives), then every router port sends. Ports go before the endpoints
    /// because nothing else a slot does reaches a port's queue within the
    /// slot (every link takes at least one slot). A worker publishes its
    /// progress after this part, so a peer waiting for this slot's packets
    /// need not wait for the rest.
    #[inline]
    pub fn step_sends(&mut self) {
        let t = self.now;
        self.pull_far(t);
        self.deliver(t);
        self.routers_transmit(t);
    }

    /// The rest of the slot (see `step_sends`): flows start, traffic is
    /// generated, timers fire, endpoints send (to their own switch, in this
    /// partition), queues are sampled.
    #[inline]
    pub fn step_rest(&mut self) {
        let t = self.now;
        self.start_flows(t);
        self.generate_open_loop(t);
        if t.is_multiple_of(TIMER_INTERVAL) {
            self.check_timers(t);
        }
        self.endpoints_transmit(t);
        if t.is_multiple_of(self.shared.sample_interval) {
            self.sample(t);
        }
        self.now = t + 1;
    }

    /// Hand the packets due this slot to their routers and endpoints.
    // Each phase of a slot is its own function: inlined into one, the phases'
    // per-packet loops compete for registers and spill packets field by field.
    #[inline(never)]
    fn deliver(&mut self, t: Slot) {
        let slot = (t & self.mask) as usize;
        let mut bucket = std::mem::take(&mut self.calendar[slot]);
        for d in bucket.drain(..) {
            self.deliver_one(d.to, d.pkt, t);
        }
        self.calendar[slot] = bucket;
        if !self.inbound.is_empty() {
            self.deliver_inbound(t);
        }
    }

    /// The packets of other partitions due now (or late), in ring order:
    /// partitions in index order, then by delay.
    // Out of line: the single-partition slot loop stays as lean as before.
    #[inline(never)]
    fn deliver_inbound(&mut self, t: Slot) {
        let mut inbound = std::mem::take(&mut self.inbound);
        for i in inbound.iter_mut().filter(|i| i.avail > 0) {
            let chunk = i
                .ring
                .read_chunk(i.avail)
                .expect("transfers seen in the ring stay readable");
            let (a, b) = chunk.as_slices();
            let mut taken = 0;
            for tr in a.iter().chain(b) {
                if self.due_slot(tr.arrive) > t {
                    break;
                }
                self.deliver_one(tr.to, tr.pkt, t);
                taken += 1;
            }
            chunk.commit(taken);
            i.avail -= taken;
        }
        self.inbound = inbound;
    }

    #[inline(always)]
    fn deliver_one(&mut self, to: PackedTarget, pkt: Packet, t: Slot) {
        let to = to.0;
        if to & PackedTarget::ENDPOINT == 0 {
            let r = (to >> 16) as usize;
            debug_assert!(r < self.routers.len());
            // SAFETY: targets are only made from the placement's local
            // router indices (in `new`, `Outbox::split_hop`), and a partition
            // holds a router for each local index of its own.
            unsafe { self.routers.get_unchecked_mut(r) }.receive(pkt, to as PortId, t);
        } else {
            self.endpoint_receive((to & !PackedTarget::ENDPOINT) as usize, pkt, t);
        }
    }

    #[inline(never)]
    fn endpoints_transmit(&mut self, t: Slot) {
        // Rotate which endpoint goes first, so that no source always wins the
        // last free buffer slot at a shared port. The rotation runs over all
        // endpoints of the network, so every partition sends in the order a
        // single partition would.
        let n = self.endpoints.len();
        if n > 0 {
            let first = self.ep_rotation[(t % self.ep_rotation.len() as u64) as usize] as usize;
            for (lo, hi) in [(first, n), (0, first)] {
                for wi in lo >> 6..hi.div_ceil(64) {
                    // Only the bits of this word that fall in [lo, hi).
                    let from = lo.saturating_sub(wi * 64).min(64);
                    let to = (hi - wi * 64).min(64);
                    let low_mask = if from == 64 { 0 } else { !0u64 << from };
                    let high_mask = if to == 64 { !0u64 } else { (1u64 << to) - 1 };
                    let mut bits = self.ep_ready[wi] & low_mask & high_mask;
                    while bits != 0 {
                        let i = wi * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        self.endpoint_transmit(i, t);
                    }
                }
            }
        }
    }

    // Always inlined: the common case is one compare and a push.
    #[inline(always)]
    fn send(
        calendar: &mut [Vec<Delivery>],
        mask: u64,
        outbox: &mut Outbox,
        end: WireEnd,
        arrive: Slot,
        pkt: Packet,
    ) {
        let (mut to, mut dest) = (end.to, end.dest);
        if dest == WireEnd::SPLIT {
            (to, dest) = outbox.enter_split(to, &pkt);
        }
        if dest == WireEnd::LOCAL {
            debug_assert!(calendar.len() == mask as usize + 1);
            // SAFETY: the calendar has mask + 1 buckets (a power of two).
            unsafe { calendar.get_unchecked_mut((arrive & mask) as usize) }
                .push(Delivery { to, pkt })
        } else {
            outbox.boxes[dest as usize].push(Transfer {
                arrive: arrive as u32,
                to,
                pkt,
            })
        }
    }

    #[inline]
    fn mark_ready(ready: &mut [u64], i: usize) {
        ready[i >> 6] |= 1 << (i & 63);
    }

    #[inline(never)]
    fn routers_transmit(&mut self, t: Slot) {
        let base = self.shared.base_rate;
        let Partition {
            routers,
            wires,
            calendar,
            outbox,
            mask,
            stats,
            ..
        } = self;
        let mut sent = 0u64;
        for (router, wires) in routers.iter_mut().zip(wires.iter_mut()) {
            debug_assert_eq!(wires.len(), router.port_count());
            for wi in 0..router.backlog().len() {
                let mut bits = router.backlog()[wi];
                while bits != 0 {
                    let p = wi * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    // SAFETY: routers only mark ports they have, and a router has
                    // one wire per port (built together in `new`).
                    let w = unsafe { wires.get_unchecked_mut(p) };
                    if w.rate == base {
                        // Base-rate link: exactly one packet per slot, no credit to keep.
                        if let Some(mut pkt) = router.transmit(p as PortId, t) {
                            pkt.hops = pkt.hops.wrapping_add(1);
                            sent += 1;
                            Self::send(calendar, *mask, outbox, w.to, t + w.latency as u64, pkt);
                        }
                        continue;
                    }
                    w.refill(t, base);
                    while w.credit >= base {
                        let Some(mut pkt) = router.transmit(p as PortId, t) else {
                            break;
                        };
                        w.credit -= base;
                        pkt.hops = pkt.hops.wrapping_add(1);
                        sent += 1;
                        Self::send(calendar, *mask, outbox, w.to, t + w.latency as u64, pkt);
                    }
                }
            }
        }
        stats.router_packets += sent;
    }

    #[inline]
    fn endpoint_transmit(&mut self, i: usize, t: Slot) {
        let base = self.shared.base_rate;
        let w = &mut self.ep_wires[i];
        let single = w.rate == base;
        if !single {
            w.refill(t, base);
        }
        while single || self.ep_wires[i].credit >= base {
            let pkt = match self.endpoints[i].nic.pop_front() {
                Some(p) => p,
                None => match self.next_transport_packet(i, t) {
                    Some(p) => p,
                    None => {
                        // Idle until a packet is generated, a flow opens, an ACK or a timeout.
                        self.ep_ready[i >> 6] &= !(1 << (i & 63));
                        break;
                    }
                },
            };
            let w = &mut self.ep_wires[i];
            let (end, arrive) = (w.to, t + w.latency as u64);
            if !single {
                w.credit -= base;
            }
            Self::send(
                &mut self.calendar,
                self.mask,
                &mut self.outbox,
                end,
                arrive,
                pkt,
            );
            if single {
                break;
            }
        }
    }

    #[inline(never)]
    fn next_transport_packet(&mut self, i: usize, t: Slot) -> Option<Packet> {
        let ep = &mut self.endpoints[i];
        let n = ep.active.len();
        if n == 0 {
            return None;
        }
        let chosen = if self.srpt {
            // pFabric hosts send the flow with the least remaining data first.
            ep.active
                .iter()
                .map(|&fi| fi as usize)
                .filter(|&fi| self.flows[fi].can_send())
                .min_by_key(|&fi| self.flows[fi].remaining())?
        } else {
            let mut found = None;
            for k in 0..n {
                let j = (ep.rr + k) % n;
                let fi = ep.active[j] as usize;
                if self.flows[fi].can_send() {
                    ep.rr = j + 1;
                    found = Some(fi);
                    break;
                }
            }
            found?
        };
        let tr = &self.shared.transport;
        let f = &mut self.flows[chosen];
        let seq = f.take_seq(t);
        let ect = match tr.kind {
            TransportKind::Dctcp => true,
            TransportKind::Tcp => tr.ecn,
            TransportKind::Pfabric => false,
        };
        let mut flags = if ect { ECT } else { 0 };
        if seq + 1 == f.size {
            flags |= FIN;
        }
        Some(Packet {
            flow: f.id,
            seq,
            prio: if self.srpt { f.remaining() } else { f.class },
            stamp: t as u32,
            src: f.src,
            dst: f.dst,
            tag: 0,
            flags,
            hops: 0,
            data: [0; 8],
        })
    }

    #[inline]
    fn endpoint_receive(&mut self, idx: usize, pkt: Packet, t: Slot) {
        if pkt.flags & (ACK | OPEN_LOOP) == OPEN_LOOP {
            self.endpoints[idx].delivered += 1;
            self.stats.delivered += 1;
            // Sized for every stream of the plan in `new`.
            self.stats.stream_delivered[(pkt.flow & !STREAM_FLOW_BIT) as usize] += 1;
            return;
        }
        self.transport_receive(idx, pkt, t);
    }

    /// Data and ACKs of window-controlled flows (kept out of the open-loop path).
    #[inline(never)]
    fn transport_receive(&mut self, idx: usize, pkt: Packet, t: Slot) {
        if pkt.has(ACK) {
            self.sender_ack(pkt, t);
            return;
        }
        let ep = &mut self.endpoints[idx];
        let expected = self.recv.entry(pkt.flow).or_insert(0);
        if pkt.seq == *expected {
            *expected += 1;
            ep.delivered += 1;
            self.stats.delivered += 1;
        }
        let cum = *expected;
        if pkt.has(FIN) && cum == pkt.seq + 1 {
            self.recv.remove(&pkt.flow);
        }
        let ack = Packet {
            seq: cum,
            src: pkt.dst,
            dst: pkt.src,
            flags: ACK | if pkt.has(CE) { ECE } else { 0 },
            ..pkt
        };
        let arrive = t + self.shared.transport.ack_delay_slots as u64;
        let pl = &self.shared.placement;
        let part = pl.endpoint_part[pkt.src as usize];
        let to = PackedTarget::pack(Target::Endpoint {
            idx: pl.endpoint_local[pkt.src as usize],
        });
        let end = WireEnd {
            to,
            dest: self.outbox.ack_dest[part as usize],
        };
        Self::send(
            &mut self.calendar,
            self.mask,
            &mut self.outbox,
            end,
            arrive,
            ack,
        );
    }

    fn sender_ack(&mut self, ack: Packet, t: Slot) {
        // Flow ids are (flows the source opened before) * endpoints + source.
        let n = self.shared.endpoints;
        let li = self.shared.placement.endpoint_local[ack.flow as usize % n] as usize;
        let fi = self.endpoints[li].opened[ack.flow as usize / n] as usize;
        let f = &mut self.flows[fi];
        Self::mark_ready(&mut self.ep_ready, li);
        if f.on_ack(ack.seq, ack.has(ECE), t, &self.shared.transport) == AckOutcome::Completed {
            let ep = &mut self.endpoints[li];
            if let Some(pos) = ep.active.iter().position(|&x| x as usize == fi) {
                ep.active.swap_remove(pos);
            }
            if let (Some(q), true) = (ep.sequential, self.from_sequential[fi])
                && let Some(mut next) = self.sequential[q].pop_front()
            {
                next.start = t;
                self.open_flow(&next, t);
                *self.from_sequential.last_mut().unwrap() = true;
            }
        }
    }

    fn open_flow(&mut self, a: &FlowArrival, t: Slot) {
        let li = self.shared.placement.endpoint_local[a.src as usize] as usize;
        // Numbered per source, so that a flow has the same id (and hence the
        // same ECMP path and DRR queue) whatever the placement.
        let nth = self.endpoints[li].opened.len() as u64;
        let id = nth * self.shared.endpoints as u64 + a.src as u64;
        assert!(
            id < STREAM_FLOW_BIT as u64,
            "flow id space exhausted: endpoint {} opened {nth} flows",
            a.src
        );
        self.endpoints[li].opened.push(self.flows.len() as u32);
        let id = id as u32;
        self.flows.push(FlowSender::new(
            id,
            a.src,
            a.dst,
            a.size,
            a.class,
            t,
            &self.shared.transport,
        ));
        self.from_sequential.push(false);
        self.endpoints[li]
            .active
            .push((self.flows.len() - 1) as u32);
        Self::mark_ready(&mut self.ep_ready, li);
    }

    fn start_flows(&mut self, t: Slot) {
        while self.next_scheduled < self.scheduled.len()
            && self.scheduled[self.next_scheduled].start <= t
        {
            let a = self.scheduled[self.next_scheduled].clone();
            self.next_scheduled += 1;
            self.open_flow(&a, t);
        }
        for q in 0..self.sequential.len() {
            if !self.sequential_started[q]
                && self.sequential[q].front().is_some_and(|f| f.start <= t)
            {
                self.sequential_started[q] = true;
                let a = self.sequential[q].pop_front().unwrap();
                self.open_flow(&a, t);
                *self.from_sequential.last_mut().unwrap() = true;
            }
        }
        let n = self.shared.endpoints;
        let payload = self.shared.payload_bytes;
        let tf = t as f64;
        if tf < self.poisson_next {
            return;
        }
        self.poisson_next = f64::INFINITY;
        for k in 0..self.poisson.len() {
            while self.poisson[k].next <= tf && t < self.poisson[k].stop {
                let p = &mut self.poisson[k];
                p.next += rand_distr::Distribution::sample(&p.gap, &mut p.rng);
                let size = packets_for(p.sizes.sample_bytes(&mut p.rng), payload);
                let dst = other_endpoint(&mut p.rng, n, p.src);
                let a = FlowArrival {
                    start: t,
                    src: p.src,
                    dst,
                    size,
                    class: p.class,
                };
                self.open_flow(&a, t);
            }
            if t < self.poisson[k].stop {
                self.poisson_next = self.poisson_next.min(self.poisson[k].next);
            }
        }
    }

    #[inline(never)]
    fn generate_open_loop(&mut self, t: Slot) {
        // A Poisson process from slot 0 has its first arrivals in slot 1
        // (the gaps below are counted the same way: arrivals in (t - 1, t]).
        if t > 0 && !self.per_slot_streams.is_empty() {
            self.generate_per_slot(t);
        }
        let b = (t & STREAM_WHEEL_MASK) as usize;
        if self.stream_wheel[b].is_empty() {
            return;
        }
        let n = self.shared.endpoints;
        let tf = t as f64;
        let spare = std::mem::take(&mut self.wheel_spare);
        let mut due = std::mem::replace(&mut self.stream_wheel[b], spare);
        for &k in &due {
            let k = k as usize;
            if self.stream_due[k] > t {
                // Due a whole wheel turn (or more) later.
                self.stream_wheel[b].push(k as u32);
                continue;
            }
            let s = &mut self.streams[k];
            let li = self.stream_src_local[k] as usize;
            let ep = &mut self.endpoints[li];
            while s.next <= tf {
                s.next += s.gap();
                let dst = match s.dst {
                    Some(d) => d,
                    None => other_endpoint(&mut s.rng, n, s.src),
                };
                Self::send_open_loop(ep, s, &mut self.stats, dst, t);
            }
            Self::mark_ready(&mut self.ep_ready, li);
            let next = slot_at_or_after(s.next).max(t + 1);
            self.stream_due[k] = next;
            self.stream_wheel[(next & STREAM_WHEEL_MASK) as usize].push(k as u32);
        }
        // Keep the bucket's allocation for the next turn.
        due.clear();
        self.wheel_spare = due;
    }

    /// An open-loop arrival of stream `s` at its endpoint's NIC: queued as the
    /// stream's next packet, or dropped and counted when the NIC is full.
    #[inline(always)]
    fn send_open_loop(
        ep: &mut EndpointState,
        s: &mut OpenLoopStream,
        stats: &mut PartitionStats,
        dst: EndpointId,
        t: Slot,
    ) {
        if ep.nic.len() >= ep.nic_capacity {
            s.nic_dropped += 1;
            stats.nic_drops += 1;
            return;
        }
        s.sent += 1;
        ep.nic.push_back(Packet {
            flow: s.flow,
            seq: s.seq,
            prio: s.class,
            stamp: t as u32,
            src: s.src,
            dst,
            tag: 0,
            flags: OPEN_LOOP,
            hops: 0,
            data: [0; 8],
        });
        s.seq = s.seq.wrapping_add(1);
    }

    /// One slot of the per-slot Poisson streams: one 64-bit draw gives the
    /// arrival count (high half) and the first packet's destination (low half).
    fn generate_per_slot(&mut self, t: Slot) {
        let n = self.shared.endpoints;
        for ps in &self.per_slot_streams {
            let s = &mut self.streams[ps.stream as usize];
            let u = s.rng.next_u64();
            let hi = u >> 32;
            let mut count = 0;
            // The last threshold is 2^32, above any 32-bit value: the scan stops.
            while hi >= ps.counts[count] {
                count += 1;
            }
            if count == 0 {
                continue;
            }
            let li = ps.src_local as usize;
            let ep = &mut self.endpoints[li];
            let mut bits = u as u32;
            for i in 0..count {
                if i > 0 {
                    bits = s.rng.next_u32();
                }
                let dst = match s.dst {
                    Some(d) => d,
                    None => other_endpoint_from(bits, n, s.src),
                };
                Self::send_open_loop(ep, s, &mut self.stats, dst, t);
            }
            Self::mark_ready(&mut self.ep_ready, li);
        }
    }

    fn check_timers(&mut self, t: Slot) {
        for (i, ep) in self.endpoints.iter().enumerate() {
            for &fi in &ep.active {
                if self.flows[fi as usize].check_timeout(t, &self.shared.transport) {
                    self.ep_ready[i >> 6] |= 1 << (i & 63);
                }
            }
        }
    }

    fn sample(&mut self, t: Slot) {
        self.stats.samples += 1;
        for (r, router) in self.routers.iter().enumerate() {
            for p in 0..router.port_count() {
                if !self.owned_ports[r][p] {
                    continue;
                }
                let occ = router.occupancy(p as PortId);
                self.stats.occupancy_sum[r][p] += occ as u64;
                let m = &mut self.stats.occupancy_max[r][p];
                *m = (*m).max(occ);
                if self.shared.keep_series {
                    if self.stats.series.len() < self.shared.max_series {
                        self.stats.series.push(QueueSample {
                            slot: t,
                            switch: self.router_ids[r],
                            port: p as PortId,
                            occupancy: occ,
                        });
                    } else {
                        self.stats.series_dropped += 1;
                    }
                }
            }
        }
    }

    /// Take the rings from other partitions, in `Placement::exchanges`
    /// order (by sending partition, then delay).
    pub fn attach_inbound(&mut self, rings: Vec<Consumer<Transfer>>) {
        self.inbound = rings
            .into_iter()
            .map(|ring| Inbound { ring, avail: 0 })
            .collect();
    }

    /// Look at what the other partitions have published. Called after seeing
    /// their progress: every packet they sent before it, so every packet due
    /// before `progress + lookahead`, is then known to be in the rings.
    pub fn refresh_inbound(&mut self) {
        for i in &mut self.inbound {
            i.avail = i.ring.slots();
        }
    }

    /// Move everything published to the calendar: makes room for a peer
    /// waiting to send while this partition waits to send to it.
    pub fn drain_inbound(&mut self) {
        let mut inbound = std::mem::take(&mut self.inbound);
        for i in &mut inbound {
            let n = i.ring.slots();
            if n > 0 {
                let chunk = i.ring.read_chunk(n).expect("slots() are readable");
                let (a, b) = chunk.as_slices();
                self.accept(a);
                self.accept(b);
                chunk.commit_all();
            }
            i.avail = 0;
        }
        self.inbound = inbound;
    }

    /// The slot a transfer due at `low` (low 32 bits) is delivered in: its
    /// due slot, or now if that has passed (loose synchronisation; counted).
    #[inline]
    fn due_slot(&mut self, low: u32) -> Slot {
        let arrive = full_slot(self.now, low);
        if arrive < self.now {
            self.stats.late_transfers += 1;
            self.stats.late_slots += self.now - arrive;
            return self.now;
        }
        arrive
    }

    /// Packets from other partitions into the calendar. Late ones are
    /// delivered in the current slot.
    #[inline(never)]
    fn accept(&mut self, batch: &[Transfer]) {
        let (now, mask) = (self.now, self.mask);
        debug_assert!(self.calendar.len() == mask as usize + 1);
        for tr in batch {
            let arrive = self.due_slot(tr.arrive);
            let d = Delivery {
                to: tr.to,
                pkt: tr.pkt,
            };
            if arrive <= now + mask {
                // SAFETY: the calendar has mask + 1 buckets (a power of two).
                unsafe { self.calendar.get_unchecked_mut((arrive & mask) as usize) }.push(d);
            } else {
                self.far_seq += 1;
                self.far.push(Reverse((arrive, self.far_seq)));
                self.far_items.insert(self.far_seq, d);
            }
        }
    }

    fn pull_far(&mut self, t: Slot) {
        while let Some(&Reverse((arrive, seq))) = self.far.peek() {
            if arrive > t + self.mask {
                break;
            }
            self.far.pop();
            if let Some(d) = self.far_items.remove(&seq) {
                self.calendar[(arrive.max(t) & self.mask) as usize].push(d);
            }
        }
    }

    /// Occupancy of a local router's port right now.
    pub fn occupancy(&self, router: usize, port: PortId) -> u32 {
        self.routers[router].occupancy(port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::experiment::run_config;
    use crate::fabric::topology::LinkParams;

    const LINK: LinkParams = LinkParams {
        gbps: 10.0,
        buffer_pkts: 64,
        latency_slots: 1,
    };

    fn run_toml(text: &str) -> crate::output::Report {
        let cfg: Config = toml::from_str(text).expect("test config");
        run_config(&cfg).expect("valid test config")
    }

    #[test]
    fn transfers_carry_the_due_slot_in_32_bits() {
        assert_eq!(std::mem::size_of::<Transfer>(), 40);
        for now in [0u64, 5, (1 << 32) - 3, 1 << 32, (7 << 32) + 12345] {
            for delta in [-70i64, -1, 0, 1, 4, 65, 1 << 20] {
                let slot = (now as i64 + delta).max(0) as u64;
                assert_eq!(full_slot(now, slot as u32), slot, "now {now}, slot {slot}");
            }
        }
    }

    #[test]
    fn aggregation_switch_of_two_racks_is_split_by_rack() {
        let topo = Topology::racks(2, 4, LINK, LINK).unwrap();
        let agg = 2;
        let one = Placement::by_group(&topo, 1);
        assert!(
            one.split.iter().all(|&s| !s),
            "one partition splits nothing"
        );
        assert_eq!(one.switch_local[agg], vec![2]);

        let two = Placement::by_group(&topo, 2);
        assert_eq!(two.split, vec![false, false, true]);
        // agg port r faces tor r: emulated by rack r's partition.
        assert_eq!(two.port_part[agg], vec![0, 1]);
        assert_eq!(two.port_part[0], vec![0; 5]);
        assert_eq!(two.port_part[1], vec![1; 5]);
        // Each partition: its ToR, then its router of the aggregation switch.
        assert_eq!(two.switch_local[0], vec![0, NO_ROUTER]);
        assert_eq!(two.switch_local[1], vec![NO_ROUTER, 0]);
        assert_eq!(two.switch_local[agg], vec![1, 1]);
        assert_eq!(two.endpoint_part, vec![0, 0, 0, 0, 1, 1, 1, 1]);
    }

    #[test]
    fn fat_tree_splits_the_cores_by_pod() {
        let topo = Topology::fat_tree(4, LINK).unwrap();
        let pl = Placement::by_group(&topo, 2);
        for (sid, sw) in topo.switches.iter().enumerate() {
            let is_core = sw.name.starts_with("core");
            assert_eq!(pl.split[sid], is_core, "{}", sw.name);
            for (p, port) in sw.ports.iter().enumerate() {
                let Peer::Switch { switch, .. } = port.peer else {
                    assert_eq!(pl.port_part[sid][p], pl.owner(sid as u32));
                    continue;
                };
                if is_core {
                    // Pods alternate between the two partitions.
                    let pod = topo.switches[switch as usize].group;
                    assert_eq!(pl.port_part[sid][p] as u32, pod % 2, "{}", sw.name);
                } else {
                    assert!(!pl.split[sid]);
                }
            }
        }
        // Three workers, k = 4: four pods on three partitions; still every
        // port has exactly one partition and that partition has a router.
        let pl = Placement::by_group(&topo, 3);
        for (sid, ports) in pl.port_part.iter().enumerate() {
            for &p in ports {
                assert_ne!(pl.switch_local[sid][p as usize], NO_ROUTER);
            }
        }
    }

    /// One ring per (receiver, delay): ToR-to-aggregation links (latency 3)
    /// enter the split aggregation switch, ACKs (delay 4) go between the
    /// racks' endpoints.
    #[test]
    fn exchanges_have_one_ring_per_receiver_and_delay() {
        let uplink = LinkParams {
            latency_slots: 3,
            ..LINK
        };
        let topo = Topology::racks(2, 4, LINK, uplink).unwrap();
        let two = Placement::by_group(&topo, 2);
        assert_eq!(
            two.exchanges(&topo, 4),
            vec![vec![(1, 3), (1, 4)], vec![(0, 3), (0, 4)]]
        );
        // Same delay twice: one ring.
        assert_eq!(two.exchanges(&topo, 3), vec![vec![(1, 3)], vec![(0, 3)]]);
        assert_eq!(
            Placement::by_group(&topo, 1).exchanges(&topo, 4),
            vec![Vec::<(u16, u32)>::new()]
        );
        let fat = Topology::fat_tree(4, LINK).unwrap();
        let plan = Placement::by_group(&fat, 2).exchanges(&fat, 7);
        // Pods alternate between the partitions; cores are split by pod, so
        // aggregation-to-core links cross, and so do ACKs.
        assert_eq!(plan, vec![vec![(1, 1), (1, 7)], vec![(0, 1), (0, 7)]]);
    }

    /// Packets from other workers are delivered in a fixed order (after the
    /// partition's own, ring by ring), not in the order they happened to be
    /// taken in: two runs on 2 workers give the same result to the packet,
    /// even where ports are fed from both workers (the fat tree's cores) and
    /// data and ACKs cross with different delays.
    #[test]
    fn runs_on_two_workers_are_repeatable() {
        let run = || {
            let text = r#"
                [emulation]
                duration_us = 12000
                threads = 2
                pin_threads = false
                [topology]
                kind = "fat_tree"
                k = 4
                link = { gbps = 10, buffer_pkts = 16, latency_slots = 2 }
                [transport]
                ack_delay_slots = 3
                [[workload]]
                kind = "poisson"
                load = 0.8
                sizes = "web_search"
                "#;
            run_toml(text)
        };
        let first = run();
        assert_eq!(first.summary.late_transfers, 0);
        assert!(first.summary.drops > 0, "the test must see drops");
        let counters = |r: &crate::output::Report| {
            r.ports
                .iter()
                .map(|p| (p.switch_id, p.port, p.enqueued, p.transmitted, p.dropped))
                .collect::<Vec<_>>()
        };
        let fcts = |r: &crate::output::Report| {
            r.flows
                .iter()
                .map(|f| (f.id, f.fct_us.map(f64::to_bits)))
                .collect::<Vec<_>>()
        };
        for _ in 0..3 {
            let again = run();
            assert_eq!(counters(&first), counters(&again));
            assert_eq!(fcts(&first), fcts(&again));
        }
    }

    fn two_racks(scheme: &str, threads: usize, workload: &str) -> crate::output::Report {
        let text = format!(
            r#"
            [emulation]
            duration_us = 6000
            threads = {threads}
            pin_threads = false
            [topology]
            kind = "rack"
            racks = 2
            hosts_per_rack = 8
            host_link = {{ gbps = 10, buffer_pkts = 12, latency_slots = 1 }}
            uplink = {{ gbps = 40, buffer_pkts = 24, latency_slots = 3 }}
            [scheme]
            {scheme}
            {workload}
            "#
        );
        run_toml(&text)
    }

    /// A fat tree on 2 workers (cores split by pod) emulates the 1-worker
    /// network: flows keep their ids (and so their ECMP paths), every port is
    /// reported once, nothing is late and every flow completes. (Ports fed
    /// from both workers, the cores', may order same-slot arrivals
    /// differently, so TCP's dynamics need not match packet for packet.)
    #[test]
    fn fat_tree_on_two_workers_matches_one() {
        let run = |threads: usize| {
            let text = format!(
                r#"
                [emulation]
                duration_us = 20000
                threads = {threads}
                pin_threads = false
                [topology]
                kind = "fat_tree"
                k = 4
                link = {{ gbps = 10, buffer_pkts = 32, latency_slots = 2 }}
                [[workload]]
                kind = "random"
                flow_bytes = 730000
                [[workload]]
                kind = "stride"
                k = 5
                flow_bytes = 730000
                "#
            );
            run_toml(&text)
        };
        let (one, two) = (run(1), run(2));
        assert_eq!(two.summary.threads, 2);
        assert_eq!(two.summary.late_transfers, 0);
        // 20 switches with 4 ports each, every one reported once.
        assert_eq!(two.ports.len(), 80);
        assert!(
            two.ports
                .iter()
                .any(|p| p.switch.starts_with("core") && p.transmitted > 0)
        );
        let ids = |r: &crate::output::Report| {
            let mut v: Vec<(u32, u16, u16)> =
                r.flows.iter().map(|f| (f.id, f.src, f.dst)).collect();
            v.sort();
            v
        };
        assert_eq!(ids(&one), ids(&two), "same flows, same ids");
        assert_eq!(one.summary.flows_completed, 32);
        assert_eq!(two.summary.flows_completed, 32);
        assert_eq!(one.summary.delivered_packets, two.summary.delivered_packets);
        let share =
            two.summary.workers[0].router_packets as f64 / two.summary.router_packets as f64;
        assert!((0.3..0.7).contains(&share), "worker 0 share {share}");
    }

    /// With exact synchronisation and a split aggregation switch, 2 workers
    /// emulate exactly what 1 does: every port's counters agree.
    #[test]
    fn split_switch_runs_are_exact() {
        let open_loop = r#"
            [[workload]]
            kind = "open_loop"
            sources = [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]
            destination = "random"
            rate = 0.9
        "#;
        let flows = r#"
            [[workload]]
            kind = "poisson"
            load = 0.7
            sizes = "web_search"
        "#;
        for (scheme, workload) in [
            (r#"kind = "droptail""#, open_loop),
            (
                r#"kind = "red"
                min_th = 2.0
                max_th = 10.0
                max_p = 0.3
                weight = 0.2"#,
                open_loop,
            ),
            (r#"kind = "drr""#, open_loop),
            (r#"kind = "pfabric""#, open_loop),
            (r#"kind = "droptail""#, flows),
            (
                r#"kind = "dctcp"
                k = 4"#,
                flows,
            ),
        ] {
            let one = two_racks(scheme, 1, workload);
            let two = two_racks(scheme, 2, workload);
            assert_eq!(two.summary.threads, 2);
            assert_eq!(two.summary.late_transfers, 0);
            assert!(one.summary.drops > 0, "{scheme}: the test must see drops");
            assert_eq!(
                one.ports.len(),
                two.ports.len(),
                "{scheme}: one report per port"
            );
            for (a, b) in one.ports.iter().zip(&two.ports) {
                assert_eq!(
                    (
                        a.switch_id,
                        a.port,
                        a.enqueued,
                        a.transmitted,
                        a.dropped,
                        a.marked
                    ),
                    (
                        b.switch_id,
                        b.port,
                        b.enqueued,
                        b.transmitted,
                        b.dropped,
                        b.marked
                    ),
                    "{scheme}: port {} of {}",
                    a.port,
                    a.switch
                );
            }
            assert_eq!(one.summary.router_packets, two.summary.router_packets);
            assert_eq!(one.summary.delivered_packets, two.summary.delivered_packets);
            assert_eq!(one.summary.flows_completed, two.summary.flows_completed);
            // The aggregation switch's work is shared out: under symmetric
            // traffic each worker emulates about half of the router hops
            // (without the split, rack 0's worker did about 60 %).
            if workload == open_loop {
                let w = &two.summary.workers;
                let share = w[0].router_packets as f64 / one.summary.router_packets as f64;
                assert!(
                    (0.45..0.55).contains(&share),
                    "{scheme}: worker 0 share {share}"
                );
            }
        }
    }
}
