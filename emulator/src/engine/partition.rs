//! The partition: the routers and endpoints one worker owns, how it is
//! built from the topology and the placement, and its timeslot loop (see the
//! module comment of `engine`).

use std::collections::HashMap;
use std::sync::Arc;

use super::arrivals::{Arrivals, STREAM_FLOW_BIT};
use super::exchange::{
    Calendar, Delivery, Inbound, Outbox, PackedTarget, SplitSwitch, Target, Wire, WireEnd,
    packet_price, send,
};
use super::order::{self, BitVisit, SlotOrder, visit_bits};
use super::placement::{NO_ROUTER, Placement};
use crate::config::TransportKind;
use crate::config::{AckPath, TransportConfig};
use crate::endpoint::EndpointState;
use crate::endpoint::receiver::FlowReceiver;
use crate::endpoint::transport::FlowSender;
use crate::endpoint::workload::WorkloadPlan;
use crate::fabric::topology::{Peer, Topology};
use crate::packet::{
    ACK, CE, DELAYED, ECE, ECT, EndpointId, FIN, OPEN_LOOP, Packet, PortId, SACK, Slot,
};
use crate::scheme::route::TableRoute;
use crate::scheme::{Router, RouterPorts};

/// Transport timers are checked every this many slots.
const TIMER_INTERVAL: u64 = 8;

/// Endpoints whose packets come from outside the emulator (real hosts on
/// veths, `crate::realhost`). The partition hands such an endpoint every
/// packet that reaches it, and once a slot lets the I/O put what its hosts
/// sent on their NIC queues (marking them ready).
pub trait HostIo: Send {
    /// Whether local endpoint `local` is served by this I/O.
    fn serves(&self, local: usize) -> bool;
    /// A packet reached local endpoint `local` in slot `t`.
    fn deliver(&mut self, local: usize, pkt: Packet, t: Slot);
    /// Once a slot, before endpoints send: send out what was delivered and
    /// take in what the hosts sent.
    fn exchange(&mut self, t: Slot, endpoints: &mut [EndpointState], ready: &mut [u64]);
    /// Counters for the run report.
    fn finish(&mut self) -> serde_json::Value;
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
    /// `output.trace_flows`, sorted: flows whose senders keep a trace.
    pub trace_flows: Vec<u32>,
    pub endpoints: usize,
    pub payload_bytes: u32,
    pub nic_capacity: usize,
    pub placement: Placement,
    pub pint: crate::pint_stage::PintStageConfig,
    /// With `pint.latency_probe`: where switches record the latency query's accuracy.
    pub pint_probe: Option<Arc<std::sync::Mutex<crate::pint_probe::LatencyProbe>>>,
    /// `placement.exchanges(..)`: the rings between partitions, made by the
    /// runner and indexed the same way by every partition.
    pub exchanges: Vec<Vec<(u16, u32)>>,
    /// Seeds each slot's send order (`engine::order`): derived from the
    /// run's seed, the same in every partition.
    pub order_seed: u64,
    /// Links price frames by their length (`real_hosts.frame_time =
    /// "length"`, or `transport.ack_path = "in_band"`): the bytes of one
    /// MTU-sized frame, which costs a slot at the base rate; 0 when every
    /// packet costs one MTU.
    pub frame_bytes: u32,
}

/// `order::draw` groups: the endpoints' order, the routers' order, and
/// (from `PORT_ORDER` + switch id) each switch's ports' order.
const ENDPOINT_ORDER: u64 = 0;
const ROUTER_ORDER: u64 = 1;
const PORT_ORDER: u64 = 2;

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
    /// (flow, slot) of each flow whose receiver got its last byte here.
    pub rx_done: Vec<(u32, Slot)>,
    /// Open-loop packets received, indexed by stream id without STREAM_FLOW_BIT.
    pub stream_delivered: Vec<u64>,
}

/// One worker's share of the network. Fields of the rooms that hold them:
/// `arrivals` (flows and streams to come), `calendar`, `outbox` and
/// `inbound` (the exchange).
pub struct Partition<R> {
    pub index: usize,
    pub now: Slot,
    pub(super) shared: Arc<Shared>,
    pub routers: Vec<R>,
    /// Global id of each local router.
    pub router_ids: Vec<u32>,
    /// Per local router, the ports this partition emulates (all of them
    /// unless the switch is split).
    owned_ports: Vec<Vec<bool>>,
    wires: Vec<Vec<Wire>>,
    pub endpoints: Vec<EndpointState>,
    ep_wires: Vec<Wire>,
    /// Endpoints that may have something to send, by global endpoint id
    /// (bit g of word g / 64; only this partition's own are ever set), so
    /// that every partition visits its endpoints in the slot's global order
    /// (`engine::order::visit_xor`).
    pub(super) ep_ready: Vec<u64>,
    /// The same over global switch ids, for local routers.
    router_below: Vec<u32>,
    /// Per local router: whether two of its ports lead to the same switch
    /// (parallel links), the only case in which the order of its ports
    /// within a slot decides anything (see `routers_transmit`).
    port_order: Vec<bool>,
    pub flows: Vec<FlowSender>,
    /// Per flow received: reassembly and delayed-ACK state.
    recv: HashMap<u32, FlowReceiver>,
    /// Flows and open-loop traffic still to come.
    pub arrivals: Arrivals,
    pub(super) calendar: Calendar,
    pub outbox: Outbox,
    /// Rings from other partitions, in `Placement::exchanges` order.
    pub(super) inbound: Vec<Inbound>,
    srpt: bool,
    /// The partitions that send to this one, each with the smallest delay
    /// of its rings into this one (`Placement::senders`): how far this
    /// partition may run ahead of that sender. Exact synchronisation waits
    /// for these and no others.
    pub senders: Vec<(u16, u64)>,
    /// The smallest delay of this partition's rings to others (u64::MAX if
    /// it sends to none): how far its receivers may run ahead of it.
    pub out_lookahead: u64,
    pub stats: PartitionStats,
    /// Switches' PINT stage (path digests, HPCC feedback), if configured.
    pub pint: Option<crate::pint_stage::PintStage>,
    /// Real hosts among this partition's endpoints, if any.
    pub host_io: Option<Box<dyn HostIo>>,
}

fn rate_mbps(gbps: f64) -> u32 {
    (gbps * 1000.0).round().max(1.0) as u32
}

/// The most slots after sending that a packet on `w` can arrive: its latency,
/// and on a length-priced link the rest of an MTU frame's serialisation.
fn link_delay(w: &Wire, base: u32, frame_bytes: u32) -> u64 {
    let ser = if frame_bytes > 0 {
        base.div_ceil(w.rate) as u64
    } else {
        1
    };
    w.latency as u64 + ser - 1
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
        let mut port_order: Vec<bool> = Vec::new();
        let mut max_delay = shared.transport.ack_delay_slots as u64;
        if shared.transport.delayed_ack {
            max_delay = max_delay.max(shared.transport.delayed_ack_slots());
        }
        // Per sender, the smallest delay of anything it sends here: how far
        // this partition may run ahead of it without a packet arriving after
        // its due slot.
        let senders = Placement::senders(&shared.exchanges, index);
        let out_lookahead = shared.exchanges[index]
            .iter()
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
                rates: sw
                    .ports
                    .iter()
                    .map(|p| rate_mbps(p.link.gbps) as f64 / base as f64)
                    .collect(),
            };
            let router = build(sid as u32, &ports, TableRoute::new(&tables[sid]));
            // `routers_transmit` indexes wires by the ports a router marks busy.
            assert_eq!(router.port_count(), sw.ports.len(), "router port count");
            routers.push(router);
            router_ids.push(sid as u32);
            port_order.push(has_parallel_links(&sw.ports));
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
                        let mut w = Wire::new(
                            end_for(p.peer, p.link.latency_slots),
                            p.link.latency_slots,
                            rate_mbps(p.link.gbps),
                            base,
                        );
                        if shared.frame_bytes > 0 {
                            w = w.priced_by_length(base);
                        }
                        if own {
                            max_delay = max_delay.max(link_delay(&w, base, shared.frame_bytes));
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
            let mut w = Wire::new(
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
            );
            if shared.frame_bytes > 0 {
                w = w.priced_by_length(base);
            }
            max_delay = max_delay.max(link_delay(&w, base, shared.frame_bytes));
            ep_wires.push(w);
        }
        let ep_words = topo.endpoints.len().div_ceil(64);
        // Local routers are in global id order.
        let router_below = order::below_table(&router_ids, topo.switches.len());
        let horizon = (max_delay + 1).next_power_of_two().max(2);
        let arrivals = Arrivals::new(plan, pl, index, &mut endpoints);
        let stats = PartitionStats {
            occupancy_sum: wires.iter().map(|w| vec![0; w.len()]).collect(),
            occupancy_max: wires.iter().map(|w| vec![0; w.len()]).collect(),
            stream_delivered: vec![0; plan.open_loop.len()],
            ..Default::default()
        };
        let pint = shared.pint.active(&shared.transport).then(|| {
            let switches: Vec<(u32, Vec<bool>)> = router_ids
                .iter()
                .map(|&sid| {
                    let ports = &topo.switches[sid as usize].ports;
                    (sid, ports.iter().map(|p| matches!(p.peer, Peer::Endpoint(_))).collect())
                })
                .collect();
            let rtt = crate::pint_stage::base_rtt_slots(topo, &tables, shared.transport.ack_delay_slots);
            crate::pint_stage::PintStage::new(&shared.pint, &shared.transport, &switches, rtt, shared.pint_probe.clone())
        });
        Partition {
            pint,
            index,
            now: 0,
            srpt: shared.transport.kind == TransportKind::Pfabric,
            routers,
            router_ids,
            owned_ports,
            wires,
            endpoints,
            ep_ready: vec![0; ep_words],
            router_below,
            port_order,
            ep_wires,
            flows: Vec::new(),
            recv: HashMap::new(),
            arrivals,
            calendar: Calendar::new(horizon),
            outbox,
            inbound: Vec::new(),
            stats,
            senders,
            out_lookahead,
            shared,
            host_io: None,
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
        self.calendar.pull_far(t);
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
        if let Some(io) = self.host_io.as_mut() {
            io.exchange(t, &mut self.endpoints, &mut self.ep_ready);
        }
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
        let slot = (t & self.calendar.mask) as usize;
        let mut bucket = std::mem::take(&mut self.calendar.buckets[slot]);
        for d in bucket.drain(..) {
            self.deliver_one(d.to, d.pkt, t);
        }
        self.calendar.buckets[slot] = bucket;
        if !self.inbound.is_empty() {
            self.deliver_inbound(t);
        }
    }

    #[inline(always)]
    pub(super) fn deliver_one(&mut self, to: PackedTarget, pkt: Packet, t: Slot) {
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
        // An order drawn for the slot (`engine::order`), so that no source
        // always wins the last free buffer place at a shared port. The order
        // is over the global ids of all endpoints of the network, so every
        // partition sends in the order a single partition would.
        if !self.endpoints.is_empty() {
            let mask = order::draw(self.shared.order_seed, t, ENDPOINT_ORDER);
            let words = self.ep_ready.len();
            if self.shared.frame_bytes > 0 {
                order::visit_xor(&mut EndpointSends::<'_, R, true> { p: self, t }, words, mask);
            } else {
                order::visit_xor(&mut EndpointSends::<'_, R, false> { p: self, t }, words, mask);
            }
        }
    }

    #[inline(never)]
    fn routers_transmit(&mut self, t: Slot) {
        // Decided once a slot: the unpriced ports' path carries no test for it.
        if self.shared.frame_bytes > 0 {
            self.routers_transmit_as::<true>(t)
        } else {
            self.routers_transmit_as::<false>(t)
        }
    }

    #[inline(always)]
    fn routers_transmit_as<const PRICED: bool>(&mut self, t: Slot) {
        let base = self.shared.base_rate;
        let Partition {
            routers,
            wires,
            calendar,
            outbox,
            stats,
            pint,
            shared,
            router_below,
            router_ids,
            port_order,
            ..
        } = self;
        let Calendar {
            buckets: calendar,
            mask,
            ..
        } = calendar;
        let nr = routers.len();
        if nr == 0 {
            return;
        }
        // Routers go in an order drawn for the slot (`engine::order`), as
        // endpoints do: packets from several routers that meet at one port
        // in a later slot arrive there in the order they were sent.
        let seed = shared.order_seed;
        let o = SlotOrder::from_draw(order::draw(seed, t, ROUTER_ORDER), router_below.len() - 1);
        let first = o.first_local(router_below, nr);
        let mut sent = 0u64;
        for k in 0..nr {
            let ri = order::nth(first, k, nr, o.down);
            // SAFETY: ri < nr (`order::nth`), and there is a wire list per router.
            let router = unsafe { routers.get_unchecked_mut(ri) };
            let wires = unsafe { wires.get_unchecked_mut(ri) };
            debug_assert_eq!(wires.len(), router.port_count());
            // A router's ports lead to different neighbours, so packets that
            // two of its ports send in one slot never meet at a port, and
            // their order decides nothing, unless two ports lead to the same
            // switch (parallel links): only such a router draws an order for
            // its ports, and only when two or more of them are busy (a draw is
            // a pure function of seed, slot and switch, so leaving it out
            // changes nothing else). The others go in port order.
            let ports = router.port_count();
            let draw_ports = port_order[ri]
                && router.backlog().iter().map(|w| w.count_ones()).sum::<u32>() > 1;
            let mut v = PortSends::<'_, R, PRICED> {
                router,
                wires,
                calendar,
                mask: *mask,
                outbox,
                pint,
                ri,
                base,
                frame_bytes: shared.frame_bytes,
                ack_bytes: shared.transport.ack_bytes,
                t,
                sent: 0,
            };
            if draw_ports {
                let group = PORT_ORDER + router_ids[ri] as u64;
                let po = SlotOrder::from_draw(order::draw(seed, t, group), ports);
                visit_bits(&mut v, ports, po.start, po.down);
            } else {
                order::visit_up(&mut v, ports.div_ceil(64));
            }
            sent += v.sent;
        }
        stats.router_packets += sent;
    }

    /// The next packet endpoint `i` sends: its NIC queue first, then its
    /// transport; with neither, it is marked idle until a packet is
    /// generated, a flow opens, an ACK or a timeout.
    #[inline(always)]
    fn next_to_send(&mut self, i: usize, t: Slot) -> Option<Packet> {
        if let Some(p) = self.endpoints[i].nic.pop_front() {
            return Some(p);
        }
        let p = self.next_transport_packet(i, t);
        if p.is_none() {
            let g = self.endpoints[i].id as usize;
            self.ep_ready[g >> 6] &= !(1 << (g & 63));
        }
        p
    }

    #[inline(always)]
    fn endpoint_transmit(&mut self, i: usize, t: Slot) {
        let base = self.shared.base_rate;
        let w = &mut self.ep_wires[i];
        let single = w.rate == base;
        if !single {
            w.refill(t, base);
        }
        while single || self.ep_wires[i].credit >= base {
            let Some(pkt) = self.next_to_send(i, t) else {
                break;
            };
            let w = &mut self.ep_wires[i];
            let (end, arrive) = (w.to, t + w.latency as u64);
            if !single {
                w.credit -= base;
            }
            send(
                &mut self.calendar.buckets,
                self.calendar.mask,
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

    /// `endpoint_transmit` on a link that prices frames by length: frames
    /// start while the link's credit is positive, and each arrives when its
    /// last byte is through.
    #[inline(never)]
    fn endpoint_transmit_priced(&mut self, i: usize, t: Slot) {
        let (base, fb) = (self.shared.base_rate, self.shared.frame_bytes);
        let ack = self.shared.transport.ack_bytes;
        self.ep_wires[i].refill_priced(t, base);
        while self.ep_wires[i].can_start(base) {
            let Some(pkt) = self.next_to_send(i, t) else {
                break;
            };
            let w = &mut self.ep_wires[i];
            let extra = w.start(packet_price(&pkt, ack, fb, base), base);
            let (end, arrive) = (w.to, t + w.latency as u64 + extra);
            send(
                &mut self.calendar.buckets,
                self.calendar.mask,
                &mut self.outbox,
                end,
                arrive,
                pkt,
            );
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
            TransportKind::Pfabric | TransportKind::Hpcc => false,
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
        if let Some(io) = self.host_io.as_mut()
            && io.serves(idx)
        {
            io.deliver(idx, pkt, t);
            return;
        }
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
        if pkt.has(DELAYED) {
            // A delayed-ACK timer (scheduled through the calendar as a marker
            // addressed to the receiver itself).
            if let Some(r) = self.recv.get_mut(&pkt.flow)
                && r.timer_due()
            {
                let cum = r.expected;
                self.send_ack(pkt, cum, None, t);
            }
            return;
        }
        let ep = &mut self.endpoints[idx];
        let tr = &self.shared.transport;
        let r = self.recv.entry(pkt.flow).or_default();
        let out = r.on_data(pkt.seq, pkt.has(FIN), pkt.has(CE), tr);
        ep.delivered += out.delivered as u64;
        self.stats.delivered += out.delivered as u64;
        let cum = r.expected;
        if r.complete() {
            // The flow's last byte is at the receiver: the receiver's end of
            // its FCT (`rx_fct_us`).
            self.recv.remove(&pkt.flow);
            self.stats.rx_done.push((pkt.flow, t));
        }
        if out.ack_now {
            self.send_ack(pkt, cum, out.sack, t);
        } else {
            // Arm the delayed-ACK timer: a marker back to this endpoint.
            let marker = Packet {
                flags: DELAYED,
                ..pkt
            };
            let at = t + tr.delayed_ack_slots();
            let end = WireEnd {
                to: PackedTarget::pack(Target::Endpoint { idx: idx as u32 }),
                dest: WireEnd::LOCAL,
            };
            send(
                &mut self.calendar.buckets,
                self.calendar.mask,
                &mut self.outbox,
                end,
                at,
                marker,
            );
        }
    }

    /// The receiver's ACK of `pkt` (cumulative `cum`, SACK block `sacked`):
    /// reaching the sender `ack_delay_slots` later, or sent in band.
    fn send_ack(&mut self, pkt: Packet, cum: u32, sacked: Option<u32>, t: Slot) {
        let mut data = [0u8; 8];
        let mut flags = ACK | if pkt.has(CE) { ECE } else { 0 };
        if let Some(s) = sacked {
            data[..4].copy_from_slice(&s.to_le_bytes());
            flags |= SACK;
        }
        // The receiver echoes the switches' HPCC feedback.
        let fb = crate::endpoint::transport::hpcc::FEEDBACK_OFFSET;
        data[fb..].copy_from_slice(&pkt.data[fb..]);
        let ack = Packet {
            seq: cum,
            src: pkt.dst,
            dst: pkt.src,
            flags,
            data,
            ..pkt
        };
        if self.shared.transport.ack_path == AckPath::InBand {
            // Onto the receiver's uplink, behind what its NIC holds, and on
            // through the reverse path's queues.
            let li = self.shared.placement.endpoint_local[pkt.dst as usize] as usize;
            let ep = &mut self.endpoints[li];
            if ep.nic.len() >= ep.nic_capacity {
                self.stats.nic_drops += 1;
                return;
            }
            ep.nic.push_back(Packet { hops: 0, ..ack });
            mark_ready(&mut self.ep_ready, pkt.dst as usize);
            return;
        }
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
        send(
            &mut self.calendar.buckets,
            self.calendar.mask,
            &mut self.outbox,
            end,
            arrive,
            ack,
        );
    }

    fn check_timers(&mut self, t: Slot) {
        for ep in &self.endpoints {
            for &fi in &ep.active {
                if self.flows[fi as usize].check_timeout(t, &self.shared.transport) {
                    mark_ready(&mut self.ep_ready, ep.id as usize);
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

    /// Occupancy of a local router's port right now.
    pub fn occupancy(&self, router: usize, port: PortId) -> u32 {
        self.routers[router].occupancy(port)
    }
}

/// Marks endpoint `g` (a global endpoint id) ready to send in a partition's
/// ready bitmap (bit g of word g / 64; `Partition::ep_ready`).
#[inline]
pub fn mark_ready(ready: &mut [u64], g: usize) {
    ready[g >> 6] |= 1 << (g & 63);
}

/// Whether two of a switch's ports lead to the same switch (parallel links).
pub(super) fn has_parallel_links(ports: &[crate::fabric::topology::SwitchPort]) -> bool {
    let mut peers: Vec<u32> = ports
        .iter()
        .filter_map(|p| match p.peer {
            Peer::Switch { switch, .. } => Some(switch),
            Peer::Endpoint(_) => None,
        })
        .collect();
    peers.sort_unstable();
    peers.windows(2).any(|w| w[0] == w[1])
}

/// A slot's ready endpoints, visited in the slot's order; `PRICED`: on
/// links that price frames by length (`Shared::frame_bytes`).
struct EndpointSends<'a, R, const PRICED: bool> {
    p: &'a mut Partition<R>,
    t: Slot,
}

impl<R: Router, const PRICED: bool> BitVisit for EndpointSends<'_, R, PRICED> {
    #[inline(always)]
    fn word(&self, wi: usize) -> u64 {
        self.p.ep_ready[wi]
    }
    #[inline(always)]
    fn visit(&mut self, g: usize) {
        // Only this partition's endpoints are marked ready: their local index.
        let i = self.p.shared.placement.endpoint_local[g] as usize;
        if PRICED {
            self.p.endpoint_transmit_priced(i, self.t);
        } else {
            self.p.endpoint_transmit(i, self.t);
        }
    }
}

/// One router's busy ports in a slot, visited in the slot's order: each
/// sends what its link's rate allows.
struct PortSends<'a, R, const PRICED: bool> {
    router: &'a mut R,
    wires: &'a mut [Wire],
    calendar: &'a mut [Vec<Delivery>],
    mask: u64,
    outbox: &'a mut Outbox,
    pint: &'a mut Option<crate::pint_stage::PintStage>,
    ri: usize,
    base: u32,
    /// `Shared::frame_bytes`: links price frames by length when > 0.
    frame_bytes: u32,
    /// `transport.ack_bytes`: an in-band ACK's length on such links.
    ack_bytes: u32,
    t: Slot,
    sent: u64,
}

impl<R: Router, const PRICED: bool> BitVisit for PortSends<'_, R, PRICED> {
    #[inline(always)]
    fn word(&self, wi: usize) -> u64 {
        self.router.backlog()[wi]
    }
    #[inline(always)]
    fn visit(&mut self, p: usize) {
        let (t, base, ri) = (self.t, self.base, self.ri);
        // SAFETY: routers only mark ports they have, and a router has
        // one wire per port (built together in `new`).
        let w = unsafe { self.wires.get_unchecked_mut(p) };
        if PRICED {
            return self.visit_priced(p);
        }
        if w.rate == base {
            // Base-rate link: exactly one packet per slot, no credit to keep.
            if let Some(mut pkt) = self.router.transmit(p as PortId, t) {
                if let Some(s) = self.pint.as_mut() {
                    s.on_transmit(ri, p, self.router.occupancy(p as PortId), 1.0, t, &mut pkt);
                }
                pkt.hops = pkt.hops.wrapping_add(1);
                self.sent += 1;
                send(self.calendar, self.mask, self.outbox, w.to, t + w.latency as u64, pkt);
            }
            return;
        }
        w.refill(t, base);
        while w.credit >= base {
            let Some(mut pkt) = self.router.transmit(p as PortId, t) else {
                break;
            };
            w.credit -= base;
            if let Some(s) = self.pint.as_mut() {
                let capacity = w.rate as f64 / base as f64;
                s.on_transmit(ri, p, self.router.occupancy(p as PortId), capacity, t, &mut pkt);
            }
            pkt.hops = pkt.hops.wrapping_add(1);
            self.sent += 1;
            send(self.calendar, self.mask, self.outbox, w.to, t + w.latency as u64, pkt);
        }
    }
}

impl<R: Router, const PRICED: bool> PortSends<'_, R, PRICED> {
    /// A busy port on a link that prices frames by length (no PINT stage:
    /// validation keeps the two apart).
    #[inline(never)]
    fn visit_priced(&mut self, p: usize) {
        let (t, base, fb, ack) = (self.t, self.base, self.frame_bytes, self.ack_bytes);
        // SAFETY: as in `visit`.
        let w = unsafe { self.wires.get_unchecked_mut(p) };
        w.refill_priced(t, base);
        while w.can_start(base) {
            let Some(mut pkt) = self.router.transmit(p as PortId, t) else {
                break;
            };
            let extra = w.start(packet_price(&pkt, ack, fb, base), base);
            pkt.hops = pkt.hops.wrapping_add(1);
            self.sent += 1;
            send(self.calendar, self.mask, self.outbox, w.to, t + w.latency as u64 + extra, pkt);
        }
    }
}
