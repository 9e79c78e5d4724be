//! The `[int]` configuration section (also the whole file of `planck-collector int`).

use std::net::SocketAddr;
use std::path::Path;

use serde::Deserialize;

use crate::decode::int::{IntDecoderConfig, MAX_HOPS, ReportVersion};

use super::state::{IntervalWidths, StateConfig};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntSection {
    /// UDP addresses the switches send their reports to.
    #[serde(default = "default_listen")]
    pub listen: Vec<String>,
    /// Report versions accepted: "0.5", "1.0", "2" (v2.0 and v2.1).
    #[serde(default = "default_versions")]
    pub versions: Vec<ReportVersion>,
    #[serde(default = "default_max_hops")]
    pub max_hops: u8,
    #[serde(default = "default_push")]
    pub push_interval_ms: u64,
    #[serde(default = "default_idle")]
    pub idle_timeout_ms: u64,
    #[serde(default = "default_max_flows")]
    pub max_flows: usize,
    #[serde(default = "default_max_keys")]
    pub max_ports: usize,
    #[serde(default = "default_max_keys")]
    pub max_queues: usize,
    #[serde(default)]
    pub intervals: IntervalSection,
    pub influx: Option<InfluxSection>,
    /// INT port signals to the controller (telemetry-events-v2 INT_PORT events).
    pub controller: Option<ControllerSection>,
    #[serde(default)]
    pub prometheus: PrometheusSection,
    /// The XDP fast path (`inband::xdp`): filters reports in the kernel.
    pub xdp: Option<XdpSection>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct XdpSection {
    /// The interface the reports arrive on.
    pub interface: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControllerSection {
    /// The controller's ingestion endpoint (`.../onos/planck/v1/telemetry/events`).
    pub url: String,
    /// Collector id as configured in the controller.
    pub collector_id: String,
    pub username: Option<String>,
    pub password: Option<String>,
    /// INT switch id -> device id ("1" = "of:0000000000000001").
    #[serde(default)]
    pub switches: std::collections::BTreeMap<String, String>,
    #[serde(default = "default_queue")]
    pub queue_capacity: usize,
    #[serde(default = "default_batch_events")]
    pub batch_events: usize,
    #[serde(default = "default_flush")]
    pub flush_ms: u64,
    #[serde(default = "default_timeout")]
    pub timeout_ms: u64,
    #[serde(default = "default_min_backoff")]
    pub min_backoff_ms: u64,
    #[serde(default = "default_max_backoff")]
    pub max_backoff_ms: u64,
    #[serde(default = "default_attempts")]
    pub max_attempts: u32,
}

fn default_batch_events() -> usize {
    1000
}

/// Interval widths of event detection, per measurement.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IntervalSection {
    pub flow_latency_ns: u64,
    pub hop_latency_ns: u64,
    pub link_utilization: u64,
    pub queue_occupancy: u64,
    pub queue_congestion: u64,
}

impl Default for IntervalSection {
    fn default() -> Self {
        let w = IntervalWidths::default();
        IntervalSection {
            flow_latency_ns: w.flow_latency_ns,
            hop_latency_ns: w.hop_latency_ns,
            link_utilization: w.link_utilization,
            queue_occupancy: w.queue_occupancy,
            queue_congestion: w.queue_congestion,
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InfluxSection {
    /// Base URL of InfluxDB 1.x (`http://host:8086`); lines go to `/write?db=..&precision=ns`.
    pub url: String,
    pub database: String,
    #[serde(default = "default_batch")]
    pub batch_lines: usize,
    #[serde(default = "default_flush")]
    pub flush_ms: u64,
    /// Events waiting for the writer; more are dropped and counted.
    #[serde(default = "default_queue")]
    pub queue_capacity: usize,
    #[serde(default = "default_timeout")]
    pub timeout_ms: u64,
    #[serde(default = "default_min_backoff")]
    pub min_backoff_ms: u64,
    #[serde(default = "default_max_backoff")]
    pub max_backoff_ms: u64,
    /// Attempts per batch before it is dropped (and counted).
    #[serde(default = "default_attempts")]
    pub max_attempts: u32,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PrometheusSection {
    /// Most series per INT gauge family on /metrics; further keys are counted, not shown.
    pub max_series: usize,
}

impl Default for PrometheusSection {
    fn default() -> Self {
        PrometheusSection { max_series: 1024 }
    }
}

fn default_listen() -> Vec<String> {
    vec![format!("0.0.0.0:{}", crate::decode::int::DEFAULT_PORT)]
}
fn default_versions() -> Vec<ReportVersion> {
    ReportVersion::ALL.to_vec()
}
fn default_max_hops() -> u8 {
    8
}
fn default_push() -> u64 {
    1000
}
fn default_idle() -> u64 {
    10_000
}
fn default_max_flows() -> usize {
    100_000
}
fn default_max_keys() -> usize {
    4096
}
fn default_batch() -> usize {
    5000
}
fn default_flush() -> u64 {
    100
}
fn default_queue() -> usize {
    65536
}
fn default_timeout() -> u64 {
    2000
}
fn default_min_backoff() -> u64 {
    50
}
fn default_max_backoff() -> u64 {
    2000
}
fn default_attempts() -> u32 {
    10
}

impl IntSection {
    pub fn validate(&self) -> Result<(), String> {
        if self.listen.is_empty() {
            return Err("int.listen is empty".into());
        }
        for a in &self.listen {
            let addr: SocketAddr = a
                .parse()
                .map_err(|_| format!("int.listen {a:?} is not an address:port"))?;
            if addr.port() == 0 {
                return Err(format!("int.listen {a:?}: port 0"));
            }
        }
        if self.versions.is_empty() {
            return Err("int.versions is empty".into());
        }
        if self.max_hops == 0 || self.max_hops as usize > MAX_HOPS {
            return Err(format!("int.max_hops {} out of range 1-{MAX_HOPS}", self.max_hops));
        }
        if self.push_interval_ms == 0 || self.idle_timeout_ms == 0 {
            return Err("int.push_interval_ms and int.idle_timeout_ms must be > 0".into());
        }
        if self.max_flows == 0 || self.max_ports == 0 || self.max_queues == 0 {
            return Err("int.max_flows, int.max_ports and int.max_queues must be > 0".into());
        }
        let i = &self.intervals;
        if [i.flow_latency_ns, i.hop_latency_ns, i.link_utilization, i.queue_occupancy, i.queue_congestion].contains(&0) {
            return Err("int.intervals: every width must be > 0".into());
        }
        if let Some(x) = &self.xdp {
            if x.interface.is_empty() || x.interface.len() > 15 || x.interface.contains(['/', ' ', '\0']) {
                return Err(format!("int.xdp.interface {:?} is not an interface name", x.interface));
            }
        }
        if self.prometheus.max_series == 0 {
            return Err("int.prometheus.max_series must be > 0".into());
        }
        if let Some(x) = &self.influx {
            if !x.url.starts_with("http://") {
                return Err(format!("int.influx.url {:?} must be an http:// URL", x.url));
            }
            if x.database.is_empty() || !x.database.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(format!("int.influx.database {:?}: letters, digits and _ only", x.database));
            }
            if x.batch_lines == 0 || x.queue_capacity == 0 || x.flush_ms == 0 || x.max_attempts == 0 {
                return Err("int.influx: batch_lines, queue_capacity, flush_ms and max_attempts must be > 0".into());
            }
            if x.min_backoff_ms == 0 || x.max_backoff_ms < x.min_backoff_ms {
                return Err("int.influx: need 0 < min_backoff_ms <= max_backoff_ms".into());
            }
        }
        if let Some(c) = &self.controller {
            if !c.url.starts_with("http://") {
                return Err(format!("int.controller.url {:?} must be an http:// URL", c.url));
            }
            if c.collector_id.is_empty() {
                return Err("int.controller.collector_id is empty".into());
            }
            if c.password.is_some() && c.username.is_none() {
                return Err("int.controller.password given without username".into());
            }
            if !(1..=10_000).contains(&c.batch_events) || c.queue_capacity == 0 || c.flush_ms == 0 || c.max_attempts == 0 {
                return Err("int.controller: need batch_events 1-10000 and queue_capacity, flush_ms, max_attempts > 0".into());
            }
            if c.min_backoff_ms == 0 || c.max_backoff_ms < c.min_backoff_ms {
                return Err("int.controller: need 0 < min_backoff_ms <= max_backoff_ms".into());
            }
            for (k, v) in &c.switches {
                if k.parse::<u32>().is_err() || v.is_empty() {
                    return Err(format!("int.controller.switches: {k:?} = {v:?} is not INT switch id = device id"));
                }
            }
        }
        Ok(())
    }

    pub fn listen_addrs(&self) -> Vec<SocketAddr> {
        self.listen.iter().filter_map(|a| a.parse().ok()).collect()
    }

    pub fn decoder(&self) -> IntDecoderConfig {
        IntDecoderConfig {
            ports: self.listen_addrs().iter().map(|a| a.port()).collect(),
            versions: self.versions.clone(),
            max_hops: self.max_hops,
        }
    }

    pub fn state(&self) -> StateConfig {
        let i = &self.intervals;
        StateConfig {
            widths: IntervalWidths {
                flow_latency_ns: i.flow_latency_ns,
                hop_latency_ns: i.hop_latency_ns,
                link_utilization: i.link_utilization,
                queue_occupancy: i.queue_occupancy,
                queue_congestion: i.queue_congestion,
            },
            push_interval_ns: self.push_interval_ms * 1_000_000,
            idle_timeout_ns: self.idle_timeout_ms * 1_000_000,
            max_flows: self.max_flows,
            max_ports: self.max_ports,
            max_queues: self.max_queues,
        }
    }
}

/// The file of `planck-collector int`: INT only, with the metrics endpoint.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntOnlyConfig {
    /// Address of the /metrics endpoint.
    #[serde(default = "default_metrics")]
    pub metrics_listen: String,
    pub int: IntSection,
}

fn default_metrics() -> String {
    "127.0.0.1:9901".into()
}

impl IntOnlyConfig {
    pub fn load(path: &Path) -> Result<IntOnlyConfig, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Self::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> Result<IntOnlyConfig, String> {
        let cfg: IntOnlyConfig = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| text[..s.start.min(text.len())].lines().count().max(1));
            let msg = e.message().replace('\n', " ");
            match line {
                Some(l) => format!("line {l}: {msg}"),
                None => msg,
            }
        })?;
        cfg.metrics_listen
            .parse::<SocketAddr>()
            .map_err(|_| format!("metrics_listen {:?} is not an address:port", cfg.metrics_listen))?;
        cfg.int.validate()?;
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_errors() {
        let c = IntOnlyConfig::parse("[int]\n").unwrap();
        assert_eq!(c.int.listen, vec!["0.0.0.0:54321".to_string()]);
        assert_eq!(c.int.decoder().ports, vec![54321]);
        assert_eq!(c.int.state().push_interval_ns, 1_000_000_000);
        let c = IntOnlyConfig::parse("[int]\nversions = [\"2\", \"0.5\"]\n[int.intervals]\nhop_latency_ns = 1000\n").unwrap();
        assert_eq!(c.int.versions, vec![ReportVersion::V2, ReportVersion::V05]);
        assert_eq!(c.int.state().widths.hop_latency_ns, 1000);
        for (bad, why) in [
            ("[int]\nversions = [\"3\"]\n", "line 2"),
            ("[int]\nmax_hops = 40\n", "max_hops 40"),
            ("[int]\nlisten = [\"nowhere\"]\n", "not an address"),
            ("[int.intervals]\nqueue_occupancy = 0\n", "every width"),
            ("[int]\n[int.influx]\nurl = \"https://x\"\ndatabase = \"int\"\n", "http://"),
            ("[int]\n[int.influx]\nurl = \"http://x\"\ndatabase = \"a b\"\n", "letters"),
            ("[int]\nbogus = 1\n", "unknown field"),
            ("[int.xdp]\n", "missing field `interface`"),
            ("[int.xdp]\ninterface = \"\"\n", "int.xdp.interface"),
        ] {
            let e = IntOnlyConfig::parse(bad).unwrap_err();
            assert!(e.contains(why), "{bad:?}: {e}");
            assert!(!e.contains('\n'));
        }
    }
}
