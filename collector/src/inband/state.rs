//! Latest INT values per key and event detection (the INTCollector model):
//!
//! - flow (5-tuple) -> path and end-to-end latency (sum of the hop latencies);
//! - flow + switch -> hop latency (kept in the flow's entry, one slot per hop);
//! - (switch, egress port) -> egress link utilisation;
//! - (switch, queue) -> queue occupancy and (v0.5) congestion.
//!
//! An event is emitted for a new key, a path change, or a value that leaves the interval
//! its last reported value was in (interval widths per measurement); and every
//! `push_interval` a key that keeps being reported is pushed again with its latest value,
//! so readers know it is alive. Tables are bounded (new keys are refused and counted when
//! full) and keys idle for `idle_timeout` are dropped (counted).

mod filter_view;
mod flows;
mod stack_mask;
mod switch;
pub use filter_view::{FlowView, LinkView, QueueView};
use flows::{FlowCold, FlowHot, FlowTable, HotHop, QuickOps};
use stack_mask::{NO_LAYOUT, STACK_WORDS, StackMasks, differs, keep_masked, stack_layout};
use switch::SwitchTables;

use super::flow_key::FlowKeys;
use super::table::Table;
use crate::decode::FiveTuple;
use crate::decode::int::instructions::{be64, field};
use crate::decode::int::{HopMetadata, IntReport, MAX_HOPS, RawStack, ReportBuf, ReportVersion};

/// Interval widths: a value's interval is `value / width`; an event fires when a new
/// value falls in another interval than the last reported one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IntervalWidths {
    pub flow_latency_ns: u64,
    pub hop_latency_ns: u64,
    pub link_utilization: u64,
    pub queue_occupancy: u64,
    pub queue_congestion: u64,
}

impl Default for IntervalWidths {
    fn default() -> Self {
        // INTCollector's defaults: 2^6 for every measurement.
        IntervalWidths {
            flow_latency_ns: 64,
            hop_latency_ns: 64,
            link_utilization: 64,
            queue_occupancy: 64,
            queue_congestion: 64,
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct StateConfig {
    pub widths: IntervalWidths,
    pub push_interval_ns: u64,
    pub idle_timeout_ns: u64,
    pub max_flows: usize,
    pub max_ports: usize,
    pub max_queues: usize,
}

impl Default for StateConfig {
    fn default() -> Self {
        StateConfig {
            widths: IntervalWidths::default(),
            push_interval_ns: 1_000_000_000,
            idle_timeout_ns: 10_000_000_000,
            max_flows: 100_000,
            max_ports: 4096,
            max_queues: 4096,
        }
    }
}

/// Why an event was emitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    NewKey,
    PathChange,
    Interval,
    Periodic,
    /// Drop reports are events by themselves.
    Report,
}

/// A flow's path, from the first INT switch to the last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Path {
    pub len: u8,
    pub switches: [u32; MAX_HOPS],
}

impl Path {
    pub fn as_slice(&self) -> &[u32] {
        &self.switches[..self.len as usize]
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    FlowPath { flow: FiveTuple, path: Path },
    FlowLatency { flow: FiveTuple, latency_ns: u64 },
    /// `port`: the switch's egress port, when the report carries ports.
    HopLatency { flow: FiveTuple, switch: u32, port: Option<u16>, latency_ns: u32 },
    LinkUtilization { switch: u32, port: u16, utilization: u32 },
    /// `port`: the egress port of the hop that reported it, when the report carries ports.
    QueueOccupancy { switch: u32, queue: u8, port: Option<u16>, occupancy: u32 },
    QueueCongestion { switch: u32, queue: u8, congestion: u32 },
    Drop { switch: u32, queue: u8, reason: u8, flow: Option<FiveTuple> },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntEvent {
    /// Time of the report (see [`report_time_ns`]).
    pub ts_ns: u64,
    pub cause: Cause,
    pub kind: EventKind,
}

/// Counts of the state stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct StateCounters {
    pub reports: u64,
    pub events: u64,
    /// Reports whose hops carry no switch id: nothing per switch can be keyed.
    pub reports_without_switch_id: u64,
    pub flows_refused: u64,
    pub ports_refused: u64,
    pub queues_refused: u64,
    pub flows_expired: u64,
    pub ports_expired: u64,
    pub queues_expired: u64,
    /// Reports whose hop stack equalled their flow's last one (under the state mask)
    /// and were applied without reading their hops ([`IntState::apply_buf`]).
    pub unchanged_stacks: u64,
}

/// A value and where the interval its last reported value was in starts.
#[derive(Clone, Copy, Debug, Default)]
struct Tracked {
    value: u64,
    /// `value - value % width`: the interval is `[start, start + width)`.
    start: u64,
}

impl Tracked {
    #[inline]
    fn new(value: u64, width: u64) -> Self {
        Tracked { value, start: value - value % width }
    }

    /// Records `value`; true when it left the reported interval (which then moves).
    #[inline(always)]
    fn update(&mut self, value: u64, width: u64) -> bool {
        self.value = value;
        // One subtraction and compare (below `start` wraps to a large number); a
        // division only when the value moved to another interval.
        if value.wrapping_sub(self.start) < width {
            false
        } else {
            self.start = value - value % width;
            true
        }
    }
}

const NO_SLOT: u32 = u32::MAX;
/// One hop's values and the table indices its link, queue and congestion-queue entries
/// were found at (`NO_SLOT`: the hop has no such key, or it was refused). The keys are
/// those of `values` ((switch, egress port), (switch, queue id), (switch, congestion
/// queue id)), so they are not stored twice.
#[derive(Clone, Copy, Debug)]
struct HopSlots {
    link: u32,
    queue: u32,
    cqueue: u32,
    /// Every key the hop has was found or added (none refused).
    complete: bool,
    values: HopValues,
}

impl HopSlots {
    const NONE: HopSlots = HopSlots {
        link: NO_SLOT,
        queue: NO_SLOT,
        cqueue: NO_SLOT,
        complete: false,
        values: HopValues { switch_id: 0, egress_port: 0, hop_latency: 0, tx_utilization: 0, queue_id: 0, queue_occupancy: 0, congestion_queue_id: 0, queue_congestion: 0 },
    };
}

/// What the state reads from a hop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct HopValues {
    switch_id: u32,
    egress_port: u16,
    hop_latency: u32,
    tx_utilization: u32,
    queue_id: u8,
    queue_occupancy: u32,
    congestion_queue_id: u8,
    queue_congestion: u32,
}

impl HopValues {
    #[inline(always)]
    fn of(h: &HopMetadata) -> HopValues {
        HopValues {
            switch_id: h.switch_id,
            egress_port: h.egress_port,
            hop_latency: h.hop_latency,
            tx_utilization: h.tx_utilization,
            queue_id: h.queue_id,
            queue_occupancy: h.queue_occupancy,
            congestion_queue_id: h.congestion_queue_id,
            queue_congestion: h.queue_congestion,
        }
    }
}

/// The time an event is stamped with: a 64-bit timestamp the report carries (the
/// reporting node's ingress timestamp in v2.x, the sink hop's egress timestamp in v1.0
/// and v2.x INT-MD), else the time the collector received it. v0.5 timestamps are 32
/// bits and cannot place an event in absolute time.
pub fn report_time_ns(r: &IntReport, received_ns: u64) -> u64 {
    if r.local_fields & field::INGRESS_TS != 0 && r.local.ingress_ts != 0 {
        return r.local.ingress_ts;
    }
    if r.version != ReportVersion::V05 && r.hop_fields & field::EGRESS_TS != 0 && r.hop_count > 0 && r.hops[0].egress_ts != 0 {
        return r.hops[0].egress_ts;
    }
    received_ns
}

pub struct IntState {
    cfg: StateConfig,
    flows: FlowTable,
    flow_keys: FlowKeys,
    sw: SwitchTables,
    masks: StackMasks,
    pub counters: StateCounters,
    last_sweep_ns: u64,
}

impl IntState {
    pub fn new(cfg: StateConfig) -> IntState {
        IntState {
            flows: FlowTable::new(),
            flow_keys: FlowKeys::default(),
            sw: SwitchTables { links: Table::with_capacity(cfg.max_ports.min(1 << 12)), queues: Table::with_capacity(cfg.max_queues.min(1 << 12)) },
            masks: StackMasks::new(),
            cfg,
            counters: StateCounters::default(),
            last_sweep_ns: 0,
        }
    }

    pub fn config(&self) -> &StateConfig {
        &self.cfg
    }

    pub fn flows(&self) -> usize {
        self.flows.len()
    }

    pub fn links(&self) -> usize {
        self.sw.links.len()
    }

    pub fn queues(&self) -> usize {
        self.sw.queues.len()
    }

    /// Applies one report received at `now_ns`; events go to `emit`.
    #[inline]
    pub fn apply(&mut self, r: &IntReport, now_ns: u64, emit: &mut impl FnMut(IntEvent)) {
        self.apply_report(r, None, now_ns, emit);
    }

    /// [`IntState::apply`]; `stack`: the report's hops as raw bytes too, kept with the
    /// flow for the short way of the next report.
    #[inline]
    fn apply_report(&mut self, r: &IntReport, stack: Option<&RawStack>, now_ns: u64, emit: &mut impl FnMut(IntEvent)) {
        self.counters.reports += 1;
        let ts = report_time_ns(r, now_ns);
        let mut events = 0u64;
        let mut out = |e: IntEvent| {
            events += 1;
            emit(e)
        };
        if r.flags.dropped && r.local_fields & field::DROP_REASON != 0 {
            out(IntEvent {
                ts_ns: ts,
                cause: Cause::Report,
                kind: EventKind::Drop {
                    switch: r.local.switch_id,
                    queue: r.local.drop_queue_id,
                    reason: r.local.drop_reason,
                    flow: r.flow,
                },
            });
        }
        if r.local_fields != 0 {
            self.sw.apply_hop(&self.cfg, &mut self.counters, &HopValues::of(&r.local), r.local_fields, now_ns, ts, &mut out, &mut { HopSlots::NONE });
        }
        if r.has_int {
            if r.hop_fields & field::SWITCH_ID == 0 {
                self.counters.reports_without_switch_id += 1;
            } else if let Some(flow) = r.flow {
                self.apply_flow(flow, r, stack, now_ns, ts, &mut out);
            } else {
                for h in r.hops() {
                    self.sw.apply_hop(&self.cfg, &mut self.counters, &HopValues::of(h), r.hop_fields, now_ns, ts, &mut out, &mut { HopSlots::NONE });
                }
            }
        }
        self.counters.events += events;
    }

    /// Applies the reports of a buffer, which may hold a raw stack
    /// ([`ReportBuf::deferring`]): the same events as [`IntState::apply`] on each report.
    /// A report whose hops carry what its flow's last one did (the same switches, egress
    /// ports, latencies, queues, utilisation; timestamps and other fields may differ)
    /// and whose flow is not due a periodic push takes the short way: nothing the flow
    /// owns can change, so only the per-switch keys (shared with other flows) are
    /// updated, from the values kept for the flow.
    #[inline]
    pub fn apply_buf(&mut self, buf: &mut ReportBuf, now_ns: u64, emit: &mut impl FnMut(IntEvent)) {
        if let Some((r, raw)) = buf.pending() {
            if self.apply_unchanged(r, raw, now_ns, emit) {
                return;
            }
            buf.read_hops();
            let (first, raw) = buf.first_with_stack();
            self.apply_report(first, Some(raw), now_ns, emit);
            for r in &buf.reports()[1..] {
                self.apply(r, now_ns, emit);
            }
            return;
        }
        for r in buf.reports() {
            self.apply(r, now_ns, emit);
        }
    }

    /// The short way of [`IntState::apply_buf`]; false (and nothing changed) when it
    /// does not apply.
    #[inline]
    fn apply_unchanged(&mut self, r: &IntReport, raw: &RawStack, now: u64, emit: &mut impl FnMut(IntEvent)) -> bool {
        // A report whose hops are unread has its flow beside them (decoding sets it
        // in the report with the hops).
        debug_assert!(r.flow.is_none());
        if r.local_fields != 0 || !r.has_int || r.hop_fields & field::SWITCH_ID == 0 {
            return false;
        }
        let key = self.flow_keys.key_packed(&raw.flow);
        let Some(at) = self.flows.find(&key) else { return false };
        let (e, cold) = self.flows.entry(at);
        let n = r.hop_count as usize;
        let plan = &raw.plan;
        let layout = stack_layout(r.version, plan.bitmap);
        if n == 0
            || e.slot_layout != layout
            || e.slot_fields != r.hop_fields
            || e.slot_hops as usize != n
            || !e.slots_complete
            || now.saturating_sub(e.last_push_ns) >= self.cfg.push_interval_ns
        {
            return false;
        }
        // The bytes the state reads of every hop, against the flow's last stack.
        let len = n * plan.hop_bytes;
        if differs(raw, self.masks.get(layout, plan, len), &e.stack, len) {
            return false;
        }
        // As report_time_ns: v1.0 stamps with the sink hop's egress timestamp.
        let ts = if r.version != ReportVersion::V05 && r.hop_fields & field::EGRESS_TS != 0 {
            let t = be64(&raw.bytes[plan.offset(field::EGRESS_TS)..]);
            if t != 0 { t } else { now }
        } else {
            now
        };
        self.counters.reports += 1;
        self.counters.unchanged_stacks += 1;
        let mut events = 0u64;
        let mut out = |ev: IntEvent| {
            events += 1;
            emit(ev)
        };
        e.last_seen_ns = now;
        let mut sw = self.sw.hot(&self.cfg);
        // Usually every entry just takes its value; else every hop in full, in order,
        // with its events (and the push floor worked out again).
        if !sw.quick(&e.quick, now) {
            for (i, s) in cold.slots[..n].iter().enumerate() {
                sw.apply_hop(&HotHop::of(s), raw, i, r.hop_fields, now, ts, &mut out);
            }
            e.quick.push_floor = sw.push_floor(&e.quick);
        }
        self.counters.events += events;
        true
    }

    fn apply_flow(&mut self, flow: FiveTuple, r: &IntReport, stack: Option<&RawStack>, now: u64, ts: u64, out: &mut impl FnMut(IntEvent)) {
        let w = self.cfg.widths;
        let n = r.hop_count as usize;
        let mut path = Path { len: n as u8, switches: [0; MAX_HOPS] };
        // The stack is pushed: its first hop is the last switch.
        for (i, h) in r.hops().iter().enumerate() {
            path.switches[n - 1 - i] = h.switch_id;
        }
        let has_latency = r.hop_fields & field::HOP_LATENCY != 0;
        let has_ports = r.hop_fields & field::L1_PORTS != 0;
        let port_of = |stack_index: usize| has_ports.then_some(r.hops[stack_index].egress_port);
        let latency: u64 = if has_latency { r.hops().iter().map(|h| h.hop_latency as u64).sum() } else { 0 };
        let push_every = self.cfg.push_interval_ns;
        let full = self.flows.len() >= self.cfg.max_flows;
        let key = self.flow_keys.key(&flow);
        let (hot, e) = match self.flows.find(&key) {
            Some(at) => {
                let (hot, e) = self.flows.entry(at);
                // Per-switch keys first (their events come before the flow's), through the
                // flow's slot cache.
                for (h, slots) in r.hops().iter().zip(e.slots.iter_mut()) {
                    self.sw.apply_hop(&self.cfg, &mut self.counters, &HopValues::of(h), r.hop_fields, now, ts, out, slots);
                }
                hot.slot_fields = r.hop_fields;
                hot.slot_hops = n as u8;
                hot.slots_complete = e.slots[..n].iter().all(|s| s.complete);
                self.sw.fill_quick(&mut hot.quick, &e.slots[..n], r.hop_fields, hot.slots_complete);
                hot.slot_layout = NO_LAYOUT;
                if let Some(raw) = stack {
                    let layout = stack_layout(r.version, raw.plan.bitmap);
                    let len = n * raw.plan.hop_bytes;
                    keep_masked(raw, self.masks.get(layout, &raw.plan, len), &mut hot.stack, len);
                    hot.slot_layout = layout;
                }
                (hot, e)
            }
            None => {
                for h in r.hops() {
                    self.sw.apply_hop(&self.cfg, &mut self.counters, &HopValues::of(h), r.hop_fields, now, ts, out, &mut { HopSlots::NONE });
                }
                if full {
                    self.counters.flows_refused += 1;
                    return;
                }
                let mut hop_latency = [Tracked::default(); MAX_HOPS];
                for (slot, h) in hop_latency.iter_mut().zip(r.hops().iter().rev()) {
                    *slot = Tracked::new(h.hop_latency as u64, w.hop_latency_ns);
                }
                let hot = FlowHot {
                    words: *key.words(),
                    last_seen_ns: now,
                    last_push_ns: now,
                    slot_fields: 0,
                    slot_hops: 0,
                    slots_complete: false,
                    slot_layout: NO_LAYOUT,
                    quick: QuickOps::NONE,
                    stack: [0; STACK_WORDS],
                };
                let cold = FlowCold { path, has_latency, latency: Tracked::new(latency, w.flow_latency_ns), hop_latency, slots: [HopSlots::NONE; MAX_HOPS] };
                self.flows.insert(&key, hot, cold);
                out(IntEvent { ts_ns: ts, cause: Cause::NewKey, kind: EventKind::FlowPath { flow, path } });
                if has_latency {
                    out(IntEvent { ts_ns: ts, cause: Cause::NewKey, kind: EventKind::FlowLatency { flow, latency_ns: latency } });
                    for i in 0..n {
                        out(IntEvent {
                            ts_ns: ts,
                            cause: Cause::NewKey,
                            kind: EventKind::HopLatency { flow, switch: path.switches[i], port: port_of(n - 1 - i), latency_ns: r.hops[n - 1 - i].hop_latency },
                        });
                    }
                }
                return;
            }
        };
        hot.last_seen_ns = now;
        let periodic = now.saturating_sub(hot.last_push_ns) >= push_every;
        if periodic {
            hot.last_push_ns = now;
        }
        let path_changed = e.path != path;
        if path_changed || periodic {
            e.path = path;
            let cause = if path_changed { Cause::PathChange } else { Cause::Periodic };
            out(IntEvent { ts_ns: ts, cause, kind: EventKind::FlowPath { flow, path } });
        }
        if has_latency {
            let cause = if !e.has_latency {
                e.latency = Tracked::new(latency, w.flow_latency_ns);
                Some(Cause::NewKey)
            } else if e.latency.update(latency, w.flow_latency_ns) {
                Some(Cause::Interval)
            } else {
                periodic.then_some(Cause::Periodic)
            };
            if let Some(cause) = cause {
                out(IntEvent { ts_ns: ts, cause, kind: EventKind::FlowLatency { flow, latency_ns: latency } });
            }
            for i in 0..n {
                let v = r.hops[n - 1 - i].hop_latency as u64;
                let switch = path.switches[i];
                // A hop whose switch changed is a new (flow, switch) key.
                let cause = if path_changed || !e.has_latency {
                    e.hop_latency[i] = Tracked::new(v, w.hop_latency_ns);
                    Some(Cause::NewKey)
                } else if e.hop_latency[i].update(v, w.hop_latency_ns) {
                    Some(Cause::Interval)
                } else if periodic {
                    Some(Cause::Periodic)
                } else {
                    None
                };
                if let Some(cause) = cause {
                    out(IntEvent { ts_ns: ts, cause, kind: EventKind::HopLatency { flow, switch, port: port_of(n - 1 - i), latency_ns: v as u32 } });
                }
            }
            e.has_latency = true;
        }
    }

    /// Forgets keys idle for `idle_timeout`; runs its full scan at most once per
    /// `idle_timeout / 4`.
    pub fn expire(&mut self, now_ns: u64) {
        let idle = self.cfg.idle_timeout_ns;
        if now_ns.saturating_sub(self.last_sweep_ns) < idle / 4 {
            return;
        }
        self.last_sweep_ns = now_ns;
        let alive = |seen: u64| now_ns.saturating_sub(seen) < idle;
        self.counters.flows_expired += self.flows.retain(|e| alive(e.last_seen_ns)) as u64;
        let generation = self.sw.generation();
        self.counters.ports_expired += self.sw.links.retain(|e| alive(e.last_seen_ns)) as u64;
        self.counters.queues_expired += self.sw.queues.retain(|e| alive(e.last_seen_ns)) as u64;
        if self.sw.generation() != generation {
            // Per-switch entries moved: no flow's cached indices hold.
            self.flows.forget_slots();
        }
    }

    /// Per switch, the largest latest hop latency of any flow through it.
    pub fn hop_latency_by_switch(&self) -> std::collections::HashMap<u32, u32> {
        let mut m = std::collections::HashMap::new();
        for e in self.flows.cold_entries().filter(|e| e.has_latency) {
            for (sw, t) in e.path.as_slice().iter().zip(&e.hop_latency) {
                let v = m.entry(*sw).or_insert(0u32);
                *v = (*v).max(t.value as u32);
            }
        }
        m
    }

    /// Latest utilisation of each (switch, egress port).
    pub fn links_snapshot(&self) -> impl Iterator<Item = ((u32, u16), u32)> + '_ {
        self.sw.links.iter().map(|(k, e)| (*k, e.util.value as u32))
    }

    /// Latest occupancy and congestion of each (switch, queue).
    pub fn queues_snapshot(&self) -> impl Iterator<Item = ((u32, u8), Option<u32>, Option<u32>)> + '_ {
        self.sw
            .queues
            .iter()
            .map(|(k, e)| (*k, e.occupancy.map(|t| t.value as u32), e.congestion.map(|t| t.value as u32)))
    }
}
