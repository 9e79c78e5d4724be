//! A plain model of the INT state's event detection, written for the tests from the
//! rules in docs/collector.md: hash maps keyed by the domain keys, an interval taken by
//! dividing, no caches. The collector's `IntState` must emit exactly the same events
//! (same order, same causes, same values) and the same counters on any input.

use std::collections::HashMap;

use planck_collector::decode::FiveTuple;
use planck_collector::decode::int::instructions::field;
use planck_collector::decode::int::{HopMetadata, IntReport, MAX_HOPS};
use planck_collector::inband::state::{Path, report_time_ns};
use planck_collector::inband::{Cause, EventKind, IntEvent, StateConfig, StateCounters};

struct Flow {
    path: Path,
    has_latency: bool,
    latency: u64,
    hop_latency: [u64; MAX_HOPS],
    last_seen: u64,
    last_push: u64,
}

struct Link {
    util: u64,
    last_seen: u64,
    last_push: u64,
}

struct Queue {
    occupancy: Option<u64>,
    congestion: Option<u64>,
    last_seen: u64,
    last_push: u64,
}

pub struct Model {
    cfg: StateConfig,
    flows: HashMap<FiveTuple, Flow>,
    links: HashMap<(u32, u16), Link>,
    queues: HashMap<(u32, u8), Queue>,
    pub counters: StateCounters,
    last_sweep: u64,
}

/// Another interval than the last reported value's.
fn crossed(old: u64, new: u64, width: u64) -> bool {
    old / width != new / width
}

impl Model {
    pub fn new(cfg: StateConfig) -> Model {
        Model { cfg, flows: HashMap::new(), links: HashMap::new(), queues: HashMap::new(), counters: StateCounters::default(), last_sweep: 0 }
    }

    pub fn apply(&mut self, r: &IntReport, now: u64, out: &mut Vec<IntEvent>) {
        self.counters.reports += 1;
        let before = out.len();
        let ts = report_time_ns(r, now);
        if r.flags.dropped && r.local_fields & field::DROP_REASON != 0 {
            out.push(IntEvent {
                ts_ns: ts,
                cause: Cause::Report,
                kind: EventKind::Drop { switch: r.local.switch_id, queue: r.local.drop_queue_id, reason: r.local.drop_reason, flow: r.flow },
            });
        }
        if r.local_fields != 0 {
            self.hop(&r.local, r.local_fields, now, ts, out);
        }
        if r.has_int {
            if r.hop_fields & field::SWITCH_ID == 0 {
                self.counters.reports_without_switch_id += 1;
            } else if let Some(flow) = r.flow {
                self.flow(flow, r, now, ts, out);
            } else {
                for h in r.hops() {
                    self.hop(h, r.hop_fields, now, ts, out);
                }
            }
        }
        self.counters.events += (out.len() - before) as u64;
    }

    fn flow(&mut self, flow: FiveTuple, r: &IntReport, now: u64, ts: u64, out: &mut Vec<IntEvent>) {
        let w = self.cfg.widths;
        let n = r.hop_count as usize;
        // Source first; the stack has the sink's hop first.
        let hops: Vec<HopMetadata> = r.hops().iter().rev().copied().collect();
        let mut path = Path { len: n as u8, switches: [0; MAX_HOPS] };
        for (i, h) in hops.iter().enumerate() {
            path.switches[i] = h.switch_id;
        }
        let has_latency = r.hop_fields & field::HOP_LATENCY != 0;
        let port = |h: &HopMetadata| (r.hop_fields & field::L1_PORTS != 0).then_some(h.egress_port);
        let latency: u64 = if has_latency { hops.iter().map(|h| h.hop_latency as u64).sum() } else { 0 };
        for h in r.hops() {
            self.hop(h, r.hop_fields, now, ts, out);
        }
        let Some(e) = self.flows.get_mut(&flow) else {
            if self.flows.len() >= self.cfg.max_flows {
                self.counters.flows_refused += 1;
                return;
            }
            let mut hop_latency = [0; MAX_HOPS];
            for (i, h) in hops.iter().enumerate() {
                hop_latency[i] = h.hop_latency as u64;
            }
            self.flows.insert(flow, Flow { path, has_latency, latency, hop_latency, last_seen: now, last_push: now });
            out.push(IntEvent { ts_ns: ts, cause: Cause::NewKey, kind: EventKind::FlowPath { flow, path } });
            if has_latency {
                out.push(IntEvent { ts_ns: ts, cause: Cause::NewKey, kind: EventKind::FlowLatency { flow, latency_ns: latency } });
                for (i, h) in hops.iter().enumerate() {
                    let kind = EventKind::HopLatency { flow, switch: path.switches[i], port: port(h), latency_ns: h.hop_latency };
                    out.push(IntEvent { ts_ns: ts, cause: Cause::NewKey, kind });
                }
            }
            return;
        };
        e.last_seen = now;
        let periodic = now.saturating_sub(e.last_push) >= self.cfg.push_interval_ns;
        if periodic {
            e.last_push = now;
        }
        let path_changed = e.path != path;
        if path_changed || periodic {
            e.path = path;
            let cause = if path_changed { Cause::PathChange } else { Cause::Periodic };
            out.push(IntEvent { ts_ns: ts, cause, kind: EventKind::FlowPath { flow, path } });
        }
        if !has_latency {
            return;
        }
        let cause = if !e.has_latency {
            Some(Cause::NewKey)
        } else if crossed(e.latency, latency, w.flow_latency_ns) {
            Some(Cause::Interval)
        } else {
            periodic.then_some(Cause::Periodic)
        };
        e.latency = latency;
        if let Some(cause) = cause {
            out.push(IntEvent { ts_ns: ts, cause, kind: EventKind::FlowLatency { flow, latency_ns: latency } });
        }
        for (i, h) in hops.iter().enumerate() {
            let v = h.hop_latency as u64;
            let cause = if path_changed || !e.has_latency {
                Some(Cause::NewKey)
            } else if crossed(e.hop_latency[i], v, w.hop_latency_ns) {
                Some(Cause::Interval)
            } else {
                periodic.then_some(Cause::Periodic)
            };
            e.hop_latency[i] = v;
            if let Some(cause) = cause {
                let kind = EventKind::HopLatency { flow, switch: path.switches[i], port: port(h), latency_ns: h.hop_latency };
                out.push(IntEvent { ts_ns: ts, cause, kind });
            }
        }
        e.has_latency = true;
    }

    fn hop(&mut self, h: &HopMetadata, fields: u16, now: u64, ts: u64, out: &mut Vec<IntEvent>) {
        let w = self.cfg.widths;
        let every = self.cfg.push_interval_ns;
        if fields & field::L1_PORTS != 0 && fields & field::TX_UTILIZATION != 0 {
            let v = h.tx_utilization as u64;
            let kind = EventKind::LinkUtilization { switch: h.switch_id, port: h.egress_port, utilization: h.tx_utilization };
            let full = self.links.len() >= self.cfg.max_ports;
            match self.links.get_mut(&(h.switch_id, h.egress_port)) {
                Some(e) => {
                    e.last_seen = now;
                    let periodic = now.saturating_sub(e.last_push) >= every;
                    if periodic {
                        e.last_push = now;
                    }
                    let c = crossed(e.util, v, w.link_utilization);
                    e.util = v;
                    if c {
                        out.push(IntEvent { ts_ns: ts, cause: Cause::Interval, kind });
                    } else if periodic {
                        out.push(IntEvent { ts_ns: ts, cause: Cause::Periodic, kind });
                    }
                }
                None if full => self.counters.ports_refused += 1,
                None => {
                    self.links.insert((h.switch_id, h.egress_port), Link { util: v, last_seen: now, last_push: now });
                    out.push(IntEvent { ts_ns: ts, cause: Cause::NewKey, kind });
                }
            }
        }
        let port = (fields & field::L1_PORTS != 0).then_some(h.egress_port);
        let occ = (fields & field::QUEUE_OCCUPANCY != 0).then_some(h.queue_occupancy);
        let con = (fields & field::QUEUE_CONGESTION != 0).then_some(h.queue_congestion);
        match (occ, con) {
            (None, None) => {}
            (Some(_), Some(_)) if h.queue_id != h.congestion_queue_id => {
                self.queue(h.switch_id, h.queue_id, port, occ, None, now, ts, out);
                self.queue(h.switch_id, h.congestion_queue_id, port, None, con, now, ts, out);
            }
            (None, Some(_)) => self.queue(h.switch_id, h.congestion_queue_id, port, None, con, now, ts, out),
            _ => self.queue(h.switch_id, h.queue_id, port, occ, con, now, ts, out),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn queue(&mut self, switch: u32, queue: u8, port: Option<u16>, occ: Option<u32>, con: Option<u32>, now: u64, ts: u64, out: &mut Vec<IntEvent>) {
        let w = self.cfg.widths;
        let occ_kind = |v: u32| EventKind::QueueOccupancy { switch, queue, port, occupancy: v };
        let con_kind = |v: u32| EventKind::QueueCongestion { switch, queue, congestion: v };
        let Some(e) = self.queues.get_mut(&(switch, queue)) else {
            if self.queues.len() >= self.cfg.max_queues {
                self.counters.queues_refused += 1;
                return;
            }
            self.queues.insert((switch, queue), Queue { occupancy: occ.map(u64::from), congestion: con.map(u64::from), last_seen: now, last_push: now });
            if let Some(v) = occ {
                out.push(IntEvent { ts_ns: ts, cause: Cause::NewKey, kind: occ_kind(v) });
            }
            if let Some(v) = con {
                out.push(IntEvent { ts_ns: ts, cause: Cause::NewKey, kind: con_kind(v) });
            }
            return;
        };
        e.last_seen = now;
        let periodic = now.saturating_sub(e.last_push) >= self.cfg.push_interval_ns;
        if periodic {
            e.last_push = now;
        }
        let step = |slot: &mut Option<u64>, v: u32, width: u64| {
            let cause = match *slot {
                None => Some(Cause::NewKey),
                Some(old) if crossed(old, v as u64, width) => Some(Cause::Interval),
                Some(_) => periodic.then_some(Cause::Periodic),
            };
            *slot = Some(v as u64);
            cause
        };
        if let Some(v) = occ
            && let Some(cause) = step(&mut e.occupancy, v, w.queue_occupancy)
        {
            out.push(IntEvent { ts_ns: ts, cause, kind: occ_kind(v) });
        }
        if let Some(v) = con
            && let Some(cause) = step(&mut e.congestion, v, w.queue_congestion)
        {
            out.push(IntEvent { ts_ns: ts, cause, kind: con_kind(v) });
        }
    }

    /// Forgets keys idle for the idle timeout, scanning at most every quarter of it.
    pub fn expire(&mut self, now: u64) {
        let idle = self.cfg.idle_timeout_ns;
        if now.saturating_sub(self.last_sweep) < idle / 4 {
            return;
        }
        self.last_sweep = now;
        let alive = |seen: u64| now.saturating_sub(seen) < idle;
        let (f, l, q) = (self.flows.len(), self.links.len(), self.queues.len());
        self.flows.retain(|_, e| alive(e.last_seen));
        self.links.retain(|_, e| alive(e.last_seen));
        self.queues.retain(|_, e| alive(e.last_seen));
        self.counters.flows_expired += (f - self.flows.len()) as u64;
        self.counters.ports_expired += (l - self.links.len()) as u64;
        self.counters.queues_expired += (q - self.queues.len()) as u64;
    }
}
