//! INT metrics on the collector's `/metrics` (prefix `planck_collector_int_`).
//!
//! Counters: reports by version, rejected packets by reason, events by measurement and
//! cause, table refusals and expiries, InfluxDB writer outcomes. Gauges: table sizes;
//! the latest value per (switch, egress port) link utilisation, per (switch, queue)
//! occupancy and congestion, and per switch the largest latest hop latency of any flow.
//! Per-key gauge families hold at most `max_series` series each (further keys are
//! counted in `int_series_refused_total`), are rebuilt from the state tables every
//! refresh, and so lose a key when it expires. Per-flow values are never labels here
//! (unbounded): they go to InfluxDB.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::decode::int::{IntError, RejectCounts, ReportVersion};
use crate::export::influx::InfluxCounters;
use crate::export::int_signals::ControllerCounters;

use super::state::{Cause, EventKind, IntState, StateCounters};
use super::xdp_filter::COUNTERS;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct VersionLabel {
    pub version: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ReasonLabel {
    pub reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct EventLabel {
    pub measurement: &'static str,
    pub cause: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OutcomeLabel {
    pub outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TableLabel {
    pub table: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct PortLabel {
    pub switch: u32,
    pub port: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct QueueLabel {
    pub switch: u32,
    pub queue: u8,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SwitchLabel {
    pub switch: u32,
}

pub const MEASUREMENTS: [&str; 7] = [
    "flow_path",
    "flow_latency",
    "hop_latency",
    "link_utilization",
    "queue_occupancy",
    "queue_congestion",
    "drop",
];
pub const CAUSES: [&str; 5] = ["new_key", "path_change", "interval", "periodic", "report"];

pub fn measurement_index(k: &EventKind) -> usize {
    match k {
        EventKind::FlowPath { .. } => 0,
        EventKind::FlowLatency { .. } => 1,
        EventKind::HopLatency { .. } => 2,
        EventKind::LinkUtilization { .. } => 3,
        EventKind::QueueOccupancy { .. } => 4,
        EventKind::QueueCongestion { .. } => 5,
        EventKind::Drop { .. } => 6,
    }
}

pub fn cause_index(c: Cause) -> usize {
    match c {
        Cause::NewKey => 0,
        Cause::PathChange => 1,
        Cause::Interval => 2,
        Cause::Periodic => 3,
        Cause::Report => 4,
    }
}

/// Counts kept by the INT thread between refreshes.
#[derive(Clone, Copy, Debug, Default)]
pub struct LocalCounts {
    pub datagrams: u64,
    pub reports: [u64; 3],
    pub rejects: RejectCounts,
    pub events: [[u64; 5]; 7],
    pub receive_errors: u64,
}

impl LocalCounts {
    pub fn event(&mut self, k: &EventKind, c: Cause) {
        self.events[measurement_index(k)][cause_index(c)] += 1;
    }
}

pub struct IntMetrics {
    max_series: AtomicUsize,
    datagrams: Counter,
    receive_errors: Counter,
    reports: Family<VersionLabel, Counter>,
    rejected: Family<ReasonLabel, Counter>,
    events: Family<EventLabel, Counter>,
    keys: Family<TableLabel, Gauge>,
    refused: Family<TableLabel, Counter>,
    expired: Family<TableLabel, Counter>,
    link_utilization: Family<PortLabel, Gauge>,
    queue_occupancy: Family<QueueLabel, Gauge>,
    queue_congestion: Family<QueueLabel, Gauge>,
    switch_hop_latency: Family<SwitchLabel, Gauge<f64, AtomicU64>>,
    series_refused: Counter,
    xdp_reports: Family<OutcomeLabel, Counter>,
    xdp_passed: Family<ReasonLabel, Counter>,
    xdp_write_errors: Counter,
    pub influx: InfluxCounters,
    pub controller: ControllerCounters,
}

impl IntMetrics {
    pub fn new(max_series: usize) -> IntMetrics {
        IntMetrics {
            max_series: AtomicUsize::new(max_series),
            datagrams: Counter::default(),
            receive_errors: Counter::default(),
            reports: Family::default(),
            rejected: Family::default(),
            events: Family::default(),
            keys: Family::default(),
            refused: Family::default(),
            expired: Family::default(),
            link_utilization: Family::default(),
            queue_occupancy: Family::default(),
            queue_congestion: Family::default(),
            switch_hop_latency: Family::default(),
            series_refused: Counter::default(),
            xdp_reports: Family::default(),
            xdp_passed: Family::default(),
            xdp_write_errors: Counter::default(),
            influx: InfluxCounters::default(),
            controller: ControllerCounters::default(),
        }
    }

    /// Most series per per-key gauge family (`int.prometheus.max_series`).
    pub fn set_max_series(&self, n: usize) {
        self.max_series.store(n, Ordering::Relaxed);
    }

    pub fn register(&self, reg: &mut Registry) {
        let r = reg.sub_registry_with_prefix("int");
        r.register("datagrams", "UDP datagrams received on the INT report ports", self.datagrams.clone());
        r.register("receive_errors", "Errors receiving from the INT report sockets", self.receive_errors.clone());
        r.register("reports", "Telemetry reports decoded, by report version", self.reports.clone());
        r.register("rejected", "Report packets rejected, by reason", self.rejected.clone());
        r.register("events", "INT events, by measurement and cause", self.events.clone());
        r.register("keys", "Keys in the INT state tables (flows, links, queues)", self.keys.clone());
        r.register("keys_refused", "New keys refused because their table was full", self.refused.clone());
        r.register("keys_expired", "Keys forgotten after idle_timeout_ms", self.expired.clone());
        r.register("link_utilization", "Latest egress link utilisation reported per switch and egress port", self.link_utilization.clone());
        r.register("queue_occupancy", "Latest queue occupancy reported per switch and queue", self.queue_occupancy.clone());
        r.register("queue_congestion", "Latest queue congestion status (INT v0.5) per switch and queue", self.queue_congestion.clone());
        r.register("switch_hop_latency_seconds", "Largest latest hop latency of any flow at the switch", self.switch_hop_latency.clone());
        r.register("series_refused", "Gauge series not shown because a family reached max_series", self.series_refused.clone());
        r.register("xdp_reports", "XDP fast path: reports seen on the interface, filtered in the kernel, sent up the ring, lost (ring full), passed to the socket (too big)", self.xdp_reports.clone());
        r.register("xdp_passed", "XDP fast path: reports sent up, by the first reason the kernel could not filter them", self.xdp_passed.clone());
        r.register("xdp_map_write_errors", "XDP fast path: failed writes of the kernel maps", self.xdp_write_errors.clone());
        let i = &self.influx;
        r.register("influx_lines", "Lines written to InfluxDB", i.lines_written.clone());
        r.register("influx_batches", "Batches written to InfluxDB", i.batches_written.clone());
        r.register("influx_write_failures", "Failed InfluxDB write attempts (connection errors, 5xx)", i.write_failures.clone());
        r.register("influx_batches_rejected", "Batches InfluxDB refused with 4xx", i.batches_rejected.clone());
        r.register("influx_batches_abandoned", "Batches dropped after max_attempts failures", i.batches_abandoned.clone());
        r.register("influx_lines_dropped", "Lines dropped: queue full, batch refused or abandoned", i.lines_dropped.clone());
        let c = &self.controller;
        r.register("controller_events", "INT_PORT events delivered to the controller", c.events_sent.clone());
        r.register("controller_batches", "telemetry-events-v2 batches delivered to the controller", c.batches_sent.clone());
        r.register("controller_batches_rejected", "v2 batches the controller refused with 4xx", c.batches_rejected.clone());
        r.register("controller_failures", "Failed delivery attempts to the controller (retried)", c.failures.clone());
        r.register("controller_dropped", "INT_PORT events dropped: queue full, refused or abandoned", c.dropped.clone());
        r.register("controller_unmapped", "Port signals of INT switches without a device id mapping", c.unmapped.clone());
    }

    /// Adds what the kernel counters of the XDP fast path grew by since `last`.
    pub fn refresh_xdp(&self, now: &[u64; COUNTERS.len()], last: &mut [u64; COUNTERS.len()], write_errors: u64) {
        for (i, name) in COUNTERS.iter().enumerate() {
            let d = now[i].saturating_sub(last[i]);
            if i < 5 {
                self.xdp_reports.get_or_create(&OutcomeLabel { outcome: name }).inc_by(d);
            } else {
                self.xdp_passed.get_or_create(&ReasonLabel { reason: name }).inc_by(d);
            }
        }
        *last = *now;
        let seen = self.xdp_write_errors.get();
        self.xdp_write_errors.inc_by(write_errors.saturating_sub(seen));
    }

    /// Adds the thread's counts (and the state's counters since `last`) and refreshes
    /// the gauges from the state tables.
    pub fn refresh(&self, c: &mut LocalCounts, last: &mut StateCounters, state: &IntState) {
        self.datagrams.inc_by(c.datagrams);
        self.receive_errors.inc_by(c.receive_errors);
        for v in ReportVersion::ALL {
            let n = c.reports[v as usize];
            if n > 0 {
                self.reports.get_or_create(&VersionLabel { version: v.as_str() }).inc_by(n);
            }
        }
        for e in IntError::ALL {
            let n = c.rejects.get(e);
            if n > 0 {
                self.rejected.get_or_create(&ReasonLabel { reason: e.reason() }).inc_by(n);
            }
        }
        for (m, row) in c.events.iter().enumerate() {
            for (k, &n) in row.iter().enumerate() {
                if n > 0 {
                    self.events.get_or_create(&EventLabel { measurement: MEASUREMENTS[m], cause: CAUSES[k] }).inc_by(n);
                }
            }
        }
        *c = LocalCounts::default();

        let s = state.counters;
        let l = *last;
        for (table, refused, expired, size) in [
            ("flows", s.flows_refused - l.flows_refused, s.flows_expired - l.flows_expired, state.flows()),
            ("links", s.ports_refused - l.ports_refused, s.ports_expired - l.ports_expired, state.links()),
            ("queues", s.queues_refused - l.queues_refused, s.queues_expired - l.queues_expired, state.queues()),
        ] {
            let label = TableLabel { table };
            self.refused.get_or_create(&label).inc_by(refused);
            self.expired.get_or_create(&label).inc_by(expired);
            self.keys.get_or_create(&label).set(size as i64);
        }
        *last = s;

        let mut refused = 0u64;
        let max = self.max_series.load(Ordering::Relaxed);
        self.link_utilization.clear();
        for (n, ((switch, port), v)) in state.links_snapshot().enumerate() {
            if n >= max {
                refused += 1;
                continue;
            }
            self.link_utilization.get_or_create(&PortLabel { switch, port }).set(v as i64);
        }
        self.queue_occupancy.clear();
        self.queue_congestion.clear();
        let (mut occ_n, mut con_n) = (0, 0);
        for ((switch, queue), occ, con) in state.queues_snapshot() {
            let label = QueueLabel { switch, queue };
            if let Some(v) = occ {
                if occ_n < max {
                    self.queue_occupancy.get_or_create(&label).set(v as i64);
                } else {
                    refused += 1;
                }
                occ_n += 1;
            }
            if let Some(v) = con {
                if con_n < max {
                    self.queue_congestion.get_or_create(&label).set(v as i64);
                } else {
                    refused += 1;
                }
                con_n += 1;
            }
        }
        self.switch_hop_latency.clear();
        let by_switch: HashMap<u32, u32> = state.hop_latency_by_switch();
        for (n, (switch, v)) in by_switch.into_iter().enumerate() {
            if n >= max {
                refused += 1;
                continue;
            }
            self.switch_hop_latency.get_or_create(&SwitchLabel { switch }).set(v as f64 * 1e-9);
        }
        self.series_refused.inc_by(refused);
    }
}
