//! Arrivals: flows and open-loop traffic starting at a partition's
//! endpoints. Scheduled flows in start order, sequential flows (the next one
//! opens when the last completes), Poisson flow arrivals, and open-loop
//! streams: slow ones on a wheel by the slot of their next arrival, fast ones
//! drawing each slot's arrival count at once.

use std::collections::VecDeque;
use std::sync::Arc;

use rand::RngCore;

use super::partition::{Partition, PartitionStats, mark_ready};
use super::placement::Placement;
use crate::endpoint::EndpointState;
use crate::endpoint::sizes::packets_for;
use crate::endpoint::transport::{Ack, AckOutcome, FlowSender, FlowTrace};
use crate::endpoint::workload::{
    FlowArrival, OpenLoopStream, PoissonFlows, WorkloadPlan, other_endpoint, other_endpoint_from,
};
use crate::packet::{ECE, EndpointId, OPEN_LOOP, Packet, SACK, Slot};
use crate::scheme::Router;

/// Open-loop stream ids live in the upper half of the flow id space.
pub const STREAM_FLOW_BIT: u32 = 1 << 31;
/// Slots in the wheel that schedules open-loop packet arrivals.
const STREAM_WHEEL_MASK: u64 = 1023;

/// The flows and streams of a partition's endpoints, and where each stands.
pub struct Arrivals {
    /// Flows that start at a given slot, in start order.
    scheduled: Vec<FlowArrival>,
    next_scheduled: usize,
    /// Per endpoint with sequential flows: those not yet opened.
    sequential: Vec<VecDeque<FlowArrival>>,
    sequential_started: Vec<bool>,
    /// Per flow opened: whether it came from a sequential queue.
    from_sequential: Vec<bool>,
    poisson: Vec<PoissonFlows>,
    /// Earliest next Poisson flow arrival (time in slots).
    poisson_next: f64,
    pub streams: Vec<OpenLoopStream>,
    /// Local endpoint index of each stream's source.
    stream_src_local: Vec<u32>,
    /// Open-loop streams by the slot of their next arrival (modulo the wheel).
    stream_wheel: Vec<Vec<u32>>,
    /// Emptied wheel bucket kept for reuse, so turning the wheel never allocates.
    wheel_spare: Vec<u32>,
    /// Per stream, the slot of its next arrival (ceil of `next`), kept as an
    /// integer so the wheel compares slots without float conversions.
    stream_due: Vec<Slot>,
    /// Streams that draw each slot's arrival count at once (not on the wheel).
    per_slot_streams: Vec<PerSlotStream>,
}

impl Arrivals {
    /// The part of `plan` whose sources are in partition `index`; marks the
    /// local `endpoints` that have sequential flows.
    pub(super) fn new(
        plan: &WorkloadPlan,
        pl: &Placement,
        index: usize,
        endpoints: &mut [EndpointState],
    ) -> Self {
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
        Arrivals {
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
            poisson_next: 0.0,
            streams,
            stream_src_local,
            stream_wheel,
            wheel_spare: Vec::new(),
            stream_due,
            per_slot_streams,
        }
    }
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

impl<R: Router> Partition<R> {
    pub(super) fn sender_ack(&mut self, ack: Packet, t: Slot) {
        // Flow ids are (flows the source opened before) * endpoints + source.
        let n = self.shared.endpoints;
        let li = self.shared.placement.endpoint_local[ack.flow as usize % n] as usize;
        let fi = self.endpoints[li].opened[ack.flow as usize / n] as usize;
        let f = &mut self.flows[fi];
        mark_ready(&mut self.ep_ready, ack.flow as usize % n);
        let info = Ack {
            cum: ack.seq,
            sacked: ack
                .has(SACK)
                .then(|| u32::from_le_bytes([ack.data[0], ack.data[1], ack.data[2], ack.data[3]])),
            ece: ack.has(ECE),
        };
        let outcome = f.on_ack(info, t, &self.shared.transport);
        if let Some(s) = &self.pint {
            s.on_ack(&ack, f, t, &self.shared.transport);
        }
        if outcome == AckOutcome::Completed {
            let ep = &mut self.endpoints[li];
            if let Some(pos) = ep.active.iter().position(|&x| x as usize == fi) {
                ep.active.swap_remove(pos);
            }
            if let (Some(q), true) = (ep.sequential, self.arrivals.from_sequential[fi])
                && let Some(mut next) = self.arrivals.sequential[q].pop_front()
            {
                next.start = t;
                self.open_flow(&next, t);
                *self.arrivals.from_sequential.last_mut().unwrap() = true;
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
        let mut f = FlowSender::new(id, a.src, a.dst, a.size, a.class, t, &self.shared.transport);
        if self.shared.trace_flows.binary_search(&id).is_ok() {
            let slot_us = self.shared.transport.slot_ns / 1000.0;
            f.trace = Some(Box::new(FlowTrace::new(slot_us)));
        }
        self.flows.push(f);
        self.arrivals.from_sequential.push(false);
        self.endpoints[li]
            .active
            .push((self.flows.len() - 1) as u32);
        mark_ready(&mut self.ep_ready, a.src as usize);
    }

    pub(super) fn start_flows(&mut self, t: Slot) {
        while self.arrivals.next_scheduled < self.arrivals.scheduled.len()
            && self.arrivals.scheduled[self.arrivals.next_scheduled].start <= t
        {
            let a = self.arrivals.scheduled[self.arrivals.next_scheduled].clone();
            self.arrivals.next_scheduled += 1;
            self.open_flow(&a, t);
        }
        for q in 0..self.arrivals.sequential.len() {
            if !self.arrivals.sequential_started[q]
                && self.arrivals.sequential[q]
                    .front()
                    .is_some_and(|f| f.start <= t)
            {
                self.arrivals.sequential_started[q] = true;
                let a = self.arrivals.sequential[q].pop_front().unwrap();
                self.open_flow(&a, t);
                *self.arrivals.from_sequential.last_mut().unwrap() = true;
            }
        }
        let n = self.shared.endpoints;
        let payload = self.shared.payload_bytes;
        let tf = t as f64;
        if tf < self.arrivals.poisson_next {
            return;
        }
        self.arrivals.poisson_next = f64::INFINITY;
        for k in 0..self.arrivals.poisson.len() {
            while self.arrivals.poisson[k].next <= tf && t < self.arrivals.poisson[k].stop {
                let p = &mut self.arrivals.poisson[k];
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
            if t < self.arrivals.poisson[k].stop {
                self.arrivals.poisson_next = self
                    .arrivals
                    .poisson_next
                    .min(self.arrivals.poisson[k].next);
            }
        }
    }

    #[inline(never)]
    pub(super) fn generate_open_loop(&mut self, t: Slot) {
        // A Poisson process from slot 0 has its first arrivals in slot 1
        // (the gaps below are counted the same way: arrivals in (t - 1, t]).
        if t > 0 && !self.arrivals.per_slot_streams.is_empty() {
            self.generate_per_slot(t);
        }
        let b = (t & STREAM_WHEEL_MASK) as usize;
        if self.arrivals.stream_wheel[b].is_empty() {
            return;
        }
        let n = self.shared.endpoints;
        let tf = t as f64;
        let spare = std::mem::take(&mut self.arrivals.wheel_spare);
        let mut due = std::mem::replace(&mut self.arrivals.stream_wheel[b], spare);
        for &k in &due {
            let k = k as usize;
            if self.arrivals.stream_due[k] > t {
                // Due a whole wheel turn (or more) later.
                self.arrivals.stream_wheel[b].push(k as u32);
                continue;
            }
            let s = &mut self.arrivals.streams[k];
            let li = self.arrivals.stream_src_local[k] as usize;
            let ep = &mut self.endpoints[li];
            while s.next <= tf {
                s.next += s.gap();
                let dst = match s.dst {
                    Some(d) => d,
                    None => other_endpoint(&mut s.rng, n, s.src),
                };
                Self::send_open_loop(ep, s, &mut self.stats, dst, t);
            }
            mark_ready(&mut self.ep_ready, s.src as usize);
            let next = slot_at_or_after(s.next).max(t + 1);
            self.arrivals.stream_due[k] = next;
            self.arrivals.stream_wheel[(next & STREAM_WHEEL_MASK) as usize].push(k as u32);
        }
        // Keep the bucket's allocation for the next turn.
        due.clear();
        self.arrivals.wheel_spare = due;
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
        for ps in &self.arrivals.per_slot_streams {
            let s = &mut self.arrivals.streams[ps.stream as usize];
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
            mark_ready(&mut self.ep_ready, s.src as usize);
        }
    }
}
