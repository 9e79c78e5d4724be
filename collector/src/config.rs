//! `planck-collector run --config FILE`: the TOML configuration.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::capture::afpacket::RingConfig;
use crate::flow::estimator::WindowParams;
use crate::forwarding::{StaticSwitches, validate_detection};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Collector id, as configured in the controller.
    pub collector_id: String,
    pub capture: CaptureConfig,
    /// Static RSPAN VLAN -> switch id map ("10" = "of:0000000000000001"); the
    /// controller's forwarding map overrides it.
    #[serde(default)]
    pub vlans: BTreeMap<String, String>,
    #[serde(default)]
    pub estimator: EstimatorConfig,
    #[serde(default)]
    pub detect: DetectConfig,
    pub export: Option<ExportSection>,
    #[serde(default)]
    pub control: ControlConfig,
    #[serde(default)]
    pub forwarding: ForwardingSection,
    /// INT telemetry reports over UDP (docs/collector.md, "In-band Network Telemetry").
    pub int: Option<crate::inband::config::IntSection>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureConfig {
    pub interface: String,
    /// Switch of samples that arrive untagged on this interface.
    pub switch: Option<String>,
    #[serde(default = "default_workers")]
    pub workers: usize,
    #[serde(default = "default_block_kib")]
    pub ring_block_kib: u32,
    #[serde(default = "default_blocks")]
    pub ring_blocks: u32,
    #[serde(default = "default_block_timeout")]
    pub block_timeout_ms: u32,
    #[serde(default = "default_true")]
    pub promiscuous: bool,
    /// "block" (TPACKET_V3, cheapest per frame) or "frame" (TPACKET_V2: each frame reaches
    /// the worker as it lands, so no sample waits for a block to fill or retire).
    #[serde(default)]
    pub handover: crate::capture::afpacket::Handover,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EstimatorConfig {
    pub min_window_us: u64,
    pub max_window_ms: u64,
    pub window_kib: u64,
    pub idle_timeout_ms: u64,
    /// A flow silent for this many of its mean sample gaps (at least `quiet_min_ms`) no
    /// longer adds to its port's load; 0: only expiry removes it.
    pub quiet_after_gaps: u32,
    pub quiet_min_ms: u64,
    pub max_flows_per_worker: usize,
    pub default_sampling_ratio: f64,
}

impl Default for EstimatorConfig {
    fn default() -> Self {
        EstimatorConfig {
            min_window_us: 200,
            max_window_ms: 200,
            window_kib: 256,
            idle_timeout_ms: 2000,
            quiet_after_gaps: 16,
            quiet_min_ms: 10,
            max_flows_per_worker: 1 << 18,
            default_sampling_ratio: 1.0,
        }
    }
}

impl EstimatorConfig {
    pub fn window(&self) -> WindowParams {
        WindowParams {
            min_window_ns: self.min_window_us * 1000,
            max_window_ns: self.max_window_ms * 1_000_000,
            window_bytes: self.window_kib * 1024,
            ..WindowParams::default()
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DetectConfig {
    pub congestion_threshold_pct: f64,
    pub hysteresis_pct: f64,
    pub flow_report_interval_ms: f64,
}

impl Default for DetectConfig {
    fn default() -> Self {
        DetectConfig {
            congestion_threshold_pct: 80.0,
            hysteresis_pct: 5.0,
            flow_report_interval_ms: 5.0,
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportSection {
    /// Controller ingestion endpoint (`.../onos/planck/v1/telemetry/events`).
    pub url: String,
    pub username: Option<String>,
    pub password: Option<String>,
    #[serde(default = "default_queue")]
    pub queue_capacity: usize,
    #[serde(default = "default_pending")]
    pub max_pending: usize,
    #[serde(default = "default_timeout")]
    pub timeout_ms: u64,
    #[serde(default = "default_min_backoff")]
    pub min_backoff_ms: u64,
    #[serde(default = "default_max_backoff")]
    pub max_backoff_ms: u64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControlConfig {
    /// Address of the control / metrics HTTP endpoint.
    #[serde(default = "default_listen")]
    pub listen: String,
    /// Basic-auth credentials every `/v1/...` request must carry; required unless the
    /// endpoint listens on loopback only.
    pub username: Option<String>,
    pub password: Option<String>,
}

impl Default for ControlConfig {
    fn default() -> Self {
        ControlConfig {
            listen: default_listen(),
            username: None,
            password: None,
        }
    }
}

impl ControlConfig {
    pub fn credentials(&self) -> Option<crate::control::ControlCredentials> {
        match (&self.username, &self.password) {
            (Some(u), Some(p)) => Some(crate::control::ControlCredentials::new(u, p)),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForwardingSection {
    /// Initial forwarding map (JSON, forwarding-map-v1), until the controller pushes one.
    pub file: Option<String>,
}

fn default_workers() -> usize {
    1
}
fn default_block_kib() -> u32 {
    1024
}
fn default_blocks() -> u32 {
    64
}
fn default_block_timeout() -> u32 {
    1
}
fn default_true() -> bool {
    true
}
fn default_queue() -> usize {
    65_536
}
fn default_pending() -> usize {
    100_000
}
fn default_timeout() -> u64 {
    2000
}
fn default_min_backoff() -> u64 {
    50
}
fn default_max_backoff() -> u64 {
    5000
}
fn default_listen() -> String {
    "127.0.0.1:7070".into()
}

/// Parse a `VLAN=SWITCH` pair.
pub fn parse_vlan_pair(vlan: &str, switch: &str) -> Result<(u16, String), String> {
    let v: u16 = vlan
        .trim()
        .parse()
        .map_err(|_| format!("VLAN {vlan:?} is not a number"))?;
    if !(1..=4094).contains(&v) {
        return Err(format!("VLAN {v} out of range 1-4094"));
    }
    if switch.trim().is_empty() {
        return Err(format!("VLAN {v}: empty switch id"));
    }
    Ok((v, switch.trim().to_string()))
}

impl Config {
    pub fn load(path: &Path) -> Result<Config, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Self::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> Result<Config, String> {
        let cfg: Config = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].lines().count().max(1));
            let msg = e.message().replace('\n', " ");
            match line {
                Some(l) => format!("line {l}: {msg}"),
                None => msg,
            }
        })?;
        cfg.validate()?;
        Ok(cfg)
    }

    fn validate(&self) -> Result<(), String> {
        if self.collector_id.is_empty() {
            return Err("collector_id is empty".into());
        }
        if self.capture.interface.is_empty() {
            return Err("capture.interface is empty".into());
        }
        if !(1..=64).contains(&self.capture.workers) {
            return Err(format!(
                "capture.workers {} out of range 1-64",
                self.capture.workers
            ));
        }
        let block = self.capture.ring_block_kib.checked_mul(1024).unwrap_or(0);
        if block < 4096 || !block.is_power_of_two() {
            return Err(format!(
                "capture.ring_block_kib {} must be a power of two >= 4",
                self.capture.ring_block_kib
            ));
        }
        if self.capture.ring_blocks == 0 || self.capture.ring_blocks > 4096 {
            return Err(format!(
                "capture.ring_blocks {} out of range 1-4096",
                self.capture.ring_blocks
            ));
        }
        self.statics()?;
        let e = &self.estimator;
        if e.min_window_us == 0 || e.max_window_ms.saturating_mul(1000) < e.min_window_us {
            return Err("estimator: need 0 < min_window_us <= max_window_ms".into());
        }
        // A window's length is kept in 32 bits of nanoseconds in the per-flow hot state.
        if e.max_window_ms > 4000 {
            return Err(format!(
                "estimator: max_window_ms {} out of range (at most 4000)",
                e.max_window_ms
            ));
        }
        if e.window_kib == 0 || e.max_flows_per_worker == 0 || e.idle_timeout_ms == 0 {
            return Err(
                "estimator: window_kib, max_flows_per_worker and idle_timeout_ms must be > 0"
                    .into(),
            );
        }
        if e.quiet_after_gaps > 0 && (e.quiet_min_ms == 0 || e.quiet_min_ms >= e.idle_timeout_ms) {
            return Err(format!(
                "estimator: need 0 < quiet_min_ms < idle_timeout_ms (got {} and {})",
                e.quiet_min_ms, e.idle_timeout_ms
            ));
        }
        if !(e.default_sampling_ratio >= 1.0 && e.default_sampling_ratio.is_finite()) {
            return Err("estimator.default_sampling_ratio must be >= 1".into());
        }
        validate_detection(
            self.detect.congestion_threshold_pct,
            self.detect.hysteresis_pct,
        )
        .map_err(|e| format!("detect: {e}"))?;
        if !(1.0..=1000.0).contains(&self.detect.flow_report_interval_ms) {
            return Err("detect.flow_report_interval_ms out of range 1-1000".into());
        }
        if let Some(x) = &self.export {
            if !x.url.starts_with("http://") {
                return Err(format!("export.url {:?} must be an http:// URL", x.url));
            }
            if x.queue_capacity == 0 || x.max_pending == 0 {
                return Err("export.queue_capacity and export.max_pending must be > 0".into());
            }
            if x.password.is_some() && x.username.is_none() {
                return Err("export.password given without export.username".into());
            }
            if x.min_backoff_ms == 0 || x.max_backoff_ms < x.min_backoff_ms {
                return Err("export: need 0 < min_backoff_ms <= max_backoff_ms".into());
            }
        }
        if let Some(i) = &self.int {
            i.validate()?;
        }
        let listen = self
            .control
            .listen
            .parse::<std::net::SocketAddr>()
            .map_err(|_| {
                format!(
                    "control.listen {:?} is not an address:port",
                    self.control.listen
                )
            })?;
        let c = &self.control;
        match (&c.username, &c.password) {
            (Some(u), Some(p)) => {
                if u.is_empty() || u.contains(':') || p.is_empty() {
                    return Err(
                        "control.username must be non-empty without ':' and control.password non-empty"
                            .into(),
                    );
                }
            }
            (Some(_), None) | (None, Some(_)) => {
                return Err("control.username and control.password go together".into());
            }
            (None, None) if !listen.ip().is_loopback() => {
                return Err(format!(
                    "control.listen {} is not a loopback address: set control.username and control.password (writes to the forwarding map must be authenticated)",
                    self.control.listen
                ));
            }
            (None, None) => {}
        }
        Ok(())
    }

    pub fn statics(&self) -> Result<StaticSwitches, String> {
        let mut vlans = Vec::new();
        for (v, s) in &self.vlans {
            vlans.push(parse_vlan_pair(v, s).map_err(|e| format!("vlans: {e}"))?);
        }
        Ok(StaticSwitches {
            vlans,
            interface_switches: self.capture.switch.iter().cloned().collect(),
        })
    }

    pub fn ring(&self) -> RingConfig {
        RingConfig {
            handover: self.capture.handover,
            block_size: self.capture.ring_block_kib * 1024,
            block_count: self.capture.ring_blocks,
            block_timeout_ms: self.capture.block_timeout_ms,
            promiscuous: self.capture.promiscuous,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub const EXAMPLE: &str = r#"
collector_id = "c1"

[capture]
interface = "mirror0"
switch = "of:0000000000000001"
workers = 2

[vlans]
"10" = "of:0000000000000002"

[estimator]
min_window_us = 200
max_window_ms = 100

[detect]
congestion_threshold_pct = 80
hysteresis_pct = 5
flow_report_interval_ms = 5

[export]
url = "http://127.0.0.1:8181/onos/planck/v1/telemetry/events"
username = "onos"
password = "rocks"

[control]
listen = "127.0.0.1:7070"
"#;

    #[test]
    fn example_parses() {
        let c = Config::parse(EXAMPLE).unwrap();
        assert_eq!(c.capture.workers, 2);
        assert_eq!(
            c.statics().unwrap().vlans,
            vec![(10, "of:0000000000000002".to_string())]
        );
        assert_eq!(c.estimator.window().max_window_ns, 100_000_000);
        assert_eq!(c.estimator.window_kib, 256);
        assert!(c.control.credentials().is_none());
    }

    #[test]
    fn control_beyond_loopback_with_credentials() {
        let text = EXAMPLE.replace(
            "listen = \"127.0.0.1:7070\"",
            "listen = \"0.0.0.0:7070\"\nusername = \"planck\"\npassword = \"s3cret\"",
        );
        let c = Config::parse(&text).unwrap();
        let cred = c.control.credentials().unwrap();
        assert!(cred.admit(Some("Basic cGxhbmNrOnMzY3JldA==")));
        assert!(!cred.admit(Some("Basic cGxhbmNrOnMzY3JldB==")));
    }

    #[test]
    fn errors_are_one_line_with_reason() {
        for (bad, needle) in [
            (EXAMPLE.replace("workers = 2", "workers = 0"), "workers"),
            (EXAMPLE.replace("workers = 2", "wrokers = 2"), "wrokers"),
            (EXAMPLE.replace("\"10\" =", "\"5000\" ="), "VLAN"),
            (
                EXAMPLE.replace("hysteresis_pct = 5", "hysteresis_pct = 90"),
                "hysteresis",
            ),
            (EXAMPLE.replace("http://127", "ftp://127"), "http"),
            (
                EXAMPLE.replace("max_window_ms = 100", "max_window_ms = 4001"),
                "max_window_ms",
            ),
            (
                EXAMPLE.replace("listen = \"127.0.0.1:7070\"", "listen = \"nowhere\""),
                "listen",
            ),
            (
                EXAMPLE.replace("collector_id = \"c1\"", "collector_id = 5"),
                "line 2",
            ),
            (
                EXAMPLE.replace("listen = \"127.0.0.1:7070\"", "listen = \"0.0.0.0:7070\""),
                "loopback",
            ),
            (
                EXAMPLE.replace(
                    "listen = \"127.0.0.1:7070\"",
                    "listen = \"0.0.0.0:7070\"\nusername = \"planck\"",
                ),
                "together",
            ),
        ] {
            let e = Config::parse(&bad).unwrap_err();
            assert!(e.contains(needle), "{e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
