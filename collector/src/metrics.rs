//! Prometheus metrics (`GET /metrics`). Workers count locally and add their counts here
//! once per ring block / tick, so the hot path touches no shared cache line per packet.

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

pub struct Metrics {
    registry: Registry,
    pub packets: Counter,
    pub decode_errors: Counter,
    pub non_ip: Counter,
    pub unknown_vlan: Counter,
    pub unmapped_samples: Counter,
    pub flow_table_full: Counter,
    pub quiet_flows: Counter,
    pub flows: Gauge,
    pub kernel_drops: Counter,
    pub queue_drops: Counter,
    pub events_sent: Counter,
    pub batches_sent: Counter,
    pub batches_rejected: Counter,
    pub export_failures: Counter,
    pub notices: Counter,
    pub notice_latency: Histogram,
    pub notice_delivery: Histogram,
    pub forwarding_generation: Gauge,
    pub control_unauthorized: Counter,
    /// INT reports, events and latest values (src/inband/metrics.rs).
    pub int: crate::inband::metrics::IntMetrics,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("planck_collector");
        let m = Metrics {
            packets: Counter::default(),
            decode_errors: Counter::default(),
            non_ip: Counter::default(),
            unknown_vlan: Counter::default(),
            unmapped_samples: Counter::default(),
            flow_table_full: Counter::default(),
            quiet_flows: Counter::default(),
            flows: Gauge::default(),
            kernel_drops: Counter::default(),
            queue_drops: Counter::default(),
            events_sent: Counter::default(),
            batches_sent: Counter::default(),
            batches_rejected: Counter::default(),
            export_failures: Counter::default(),
            notices: Counter::default(),
            // 1 µs .. ~4 s
            notice_latency: Histogram::new(exponential_buckets(1e-6, 2.0, 23)),
            notice_delivery: Histogram::new(exponential_buckets(1e-6, 2.0, 23)),
            forwarding_generation: Gauge::default(),
            control_unauthorized: Counter::default(),
            int: crate::inband::metrics::IntMetrics::new(1024),
            registry: Registry::default(),
        };
        registry.register("packets", "Frames received from capture", m.packets.clone());
        registry.register(
            "decode_errors",
            "Frames skipped as malformed",
            m.decode_errors.clone(),
        );
        registry.register(
            "non_ip",
            "Frames skipped as not IPv4/IPv6",
            m.non_ip.clone(),
        );
        registry.register("unknown_vlan", "Samples skipped: VLAN not mapped to a switch, or untagged on an interface without a switch", m.unknown_vlan.clone());
        registry.register(
            "unmapped_samples",
            "Samples whose destination MAC has no forwarding entry",
            m.unmapped_samples.clone(),
        );
        registry.register(
            "flow_table_full",
            "Samples of new flows refused because the flow table was full",
            m.flow_table_full.clone(),
        );
        registry.register(
            "quiet_flows",
            "Times a flow fell silent at a switch and its load left the port",
            m.quiet_flows.clone(),
        );
        registry.register("flows", "Flows currently tracked", m.flows.clone());
        registry.register(
            "kernel_drops",
            "Frames the kernel dropped because the capture ring was full",
            m.kernel_drops.clone(),
        );
        registry.register(
            "export_queue_drops",
            "Events dropped because the export queue was full",
            m.queue_drops.clone(),
        );
        registry.register(
            "export_events",
            "Events delivered to the controller",
            m.events_sent.clone(),
        );
        registry.register(
            "export_batches",
            "Batches delivered to the controller",
            m.batches_sent.clone(),
        );
        registry.register(
            "export_batches_rejected",
            "Batches the controller rejected with 4xx",
            m.batches_rejected.clone(),
        );
        registry.register(
            "export_failures",
            "Failed delivery attempts (connection errors, 5xx)",
            m.export_failures.clone(),
        );
        registry.register(
            "congestion_notices",
            "Congestion notices emitted",
            m.notices.clone(),
        );
        registry.register(
            "notice_latency_seconds",
            "Capture time of the triggering sample to the congestion decision",
            m.notice_latency.clone(),
        );
        registry.register(
            "notice_delivery_seconds",
            "Congestion decision to the controller's acknowledgement",
            m.notice_delivery.clone(),
        );
        registry.register(
            "forwarding_generation",
            "Generation of the forwarding map in use",
            m.forwarding_generation.clone(),
        );
        registry.register(
            "control_unauthorized",
            "Control requests refused with 401 (missing or wrong credentials)",
            m.control_unauthorized.clone(),
        );
        m.int.register(&mut registry);
        Metrics { registry, ..m }
    }

    pub fn encode(&self) -> String {
        let mut out = String::new();
        encode(&mut out, &self.registry).expect("encoding to a String cannot fail");
        out
    }
}

/// Per-worker counts, folded into [`Metrics`] periodically.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct WorkerCounters {
    pub packets: u64,
    pub decode_errors: u64,
    pub non_ip: u64,
    pub unknown_vlan: u64,
    pub unmapped_samples: u64,
    pub flow_table_full: u64,
    pub quiet_flows: u64,
}

impl WorkerCounters {
    pub fn drain_into(&mut self, m: &Metrics) {
        m.packets.inc_by(self.packets);
        m.decode_errors.inc_by(self.decode_errors);
        m.non_ip.inc_by(self.non_ip);
        m.unknown_vlan.inc_by(self.unknown_vlan);
        m.unmapped_samples.inc_by(self.unmapped_samples);
        m.flow_table_full.inc_by(self.flow_table_full);
        m.quiet_flows.inc_by(self.quiet_flows);
        *self = WorkerCounters::default();
    }

    pub fn add(&mut self, o: &WorkerCounters) {
        self.packets += o.packets;
        self.decode_errors += o.decode_errors;
        self.non_ip += o.non_ip;
        self.unknown_vlan += o.unknown_vlan;
        self.unmapped_samples += o.unmapped_samples;
        self.flow_table_full += o.flow_table_full;
        self.quiet_flows += o.quiet_flows;
    }
}
