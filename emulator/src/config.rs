//! Experiment configuration (TOML or JSON) and its validation.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::fabric::topology::{LinkParams, Topology};
use crate::scheme::priority::MAX_PRIORITY_QUEUES;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub emulation: Emulation,
    pub topology: TopologyConfig,
    #[serde(default)]
    pub scheme: SchemeConfig,
    #[serde(default)]
    pub transport: TransportConfig,
    #[serde(default)]
    pub workload: Vec<Workload>,
    #[serde(default)]
    pub output: OutputConfig,
    /// Per-switch PINT stage (path digests, HPCC feedback).
    #[serde(default)]
    pub pint: crate::pint_stage::PintStageConfig,
    /// Hosts that are network namespaces on veths (`crate::realhost`).
    #[serde(default)]
    pub real_hosts: Option<crate::realhost::RealHostsConfig>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// As fast as possible.
    Virtual,
    /// Timeslots paced to the wall clock.
    Realtime,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Emulation {
    /// Base link rate: one timeslot is one MTU at this rate.
    pub slot_gbps: f64,
    pub mtu_bytes: u32,
    /// Emulated duration in microseconds.
    pub duration_us: f64,
    pub mode: Mode,
    pub threads: usize,
    pub seed: u64,
    /// Queue occupancy is sampled every this many slots.
    pub sample_interval_slots: u64,
    /// Slots between exchanges of packet batches between worker threads.
    pub batch_slots: u64,
    /// Loose synchronisation: slots a worker may run ahead of each worker that
    /// sends to it beyond that sender's lookahead (its smallest link or ACK
    /// delay into this worker).
    /// 0 is exact; more trades timing accuracy for less waiting, and packets that
    /// arrive after their due slot are delivered at once and counted as late.
    pub skew_slots: u64,
    /// Pin worker threads to cores.
    pub pin_threads: bool,
}

impl Default for Emulation {
    fn default() -> Self {
        Emulation {
            slot_gbps: 10.0,
            mtu_bytes: 1500,
            duration_us: 10_000.0,
            mode: Mode::Virtual,
            threads: 1,
            seed: 1,
            sample_interval_slots: 100,
            batch_slots: 8,
            skew_slots: 0,
            pin_threads: true,
        }
    }
}

impl Emulation {
    /// Duration of one timeslot in nanoseconds.
    pub fn slot_ns(&self) -> f64 {
        self.mtu_bytes as f64 * 8.0 / self.slot_gbps
    }
    pub fn slots(&self) -> u64 {
        (self.duration_us * 1000.0 / self.slot_ns()).round() as u64
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TopologyConfig {
    Rack {
        #[serde(default = "one")]
        racks: u32,
        hosts_per_rack: u32,
        #[serde(default)]
        host_link: LinkDefaults,
        #[serde(default)]
        uplink: LinkDefaults,
    },
    FatTree {
        k: u32,
        #[serde(default)]
        link: LinkDefaults,
    },
    Custom {
        file: PathBuf,
        #[serde(default)]
        link: LinkDefaults,
    },
}

fn one() -> u32 {
    1
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LinkDefaults {
    pub gbps: f64,
    pub buffer_pkts: u32,
    pub latency_slots: u32,
}

impl Default for LinkDefaults {
    fn default() -> Self {
        LinkDefaults {
            gbps: 10.0,
            buffer_pkts: 128,
            latency_slots: 1,
        }
    }
}

impl From<LinkDefaults> for LinkParams {
    fn from(d: LinkDefaults) -> Self {
        LinkParams {
            gbps: d.gbps,
            buffer_pkts: d.buffer_pkts,
            latency_slots: d.latency_slots,
        }
    }
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[derive(Default)]
pub enum SchemeConfig {
    #[default]
    Droptail,
    Red {
        min_th: f64,
        max_th: f64,
        #[serde(default = "default_max_p")]
        max_p: f64,
        #[serde(default = "default_red_weight")]
        weight: f64,
        #[serde(default)]
        ecn: bool,
        /// `floyd` (count-spread drops, idle decay; as ns-3's RedQueueDisc)
        /// or `fixed` (the curve's probability on every packet).
        #[serde(default)]
        variant: crate::scheme::red::RedVariant,
    },
    Dctcp {
        k: u32,
    },
    Priority {
        #[serde(default = "default_prio_queues")]
        queues: u16,
    },
    Drr {
        #[serde(default = "default_drr_queues")]
        queues: u16,
        #[serde(default = "one")]
        quantum: u32,
    },
    Hull {
        #[serde(default = "default_hull_gamma")]
        gamma: f64,
        #[serde(default = "default_hull_threshold")]
        threshold: f64,
    },
    Pfabric,
}

/// `output.trace_flows` at most (each keeps up to
/// `transport::MAX_TRACE_EVENTS` events).
pub const MAX_TRACED_FLOWS: usize = 64;

fn default_max_p() -> f64 {
    0.1
}
fn default_red_weight() -> f64 {
    0.002
}
fn default_prio_queues() -> u16 {
    8
}
fn default_drr_queues() -> u16 {
    64
}
fn default_hull_gamma() -> f64 {
    0.95
}
fn default_hull_threshold() -> f64 {
    2.0
}

impl SchemeConfig {
    pub fn parse_name(name: &str) -> Result<Self, String> {
        Ok(match name {
            "droptail" => SchemeConfig::Droptail,
            "red" => SchemeConfig::Red {
                min_th: 20.0,
                max_th: 60.0,
                max_p: 0.1,
                weight: 0.002,
                ecn: false,
                variant: Default::default(),
            },
            "red_ecn" => SchemeConfig::Red {
                min_th: 20.0,
                max_th: 60.0,
                max_p: 0.1,
                weight: 0.002,
                ecn: true,
                variant: Default::default(),
            },
            "dctcp" => SchemeConfig::Dctcp { k: 20 },
            "priority" => SchemeConfig::Priority { queues: 8 },
            "drr" => SchemeConfig::Drr {
                queues: 64,
                quantum: 1,
            },
            "hull" => SchemeConfig::Hull {
                gamma: 0.95,
                threshold: 2.0,
            },
            "pfabric" => SchemeConfig::Pfabric,
            other => {
                return Err(format!(
                    "unknown scheme '{other}' (droptail, red, red_ecn, dctcp, priority, drr, hull, pfabric)"
                ));
            }
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TransportKind {
    /// Reno-style: slow start, AIMD, fast retransmit, halves on ECN echo.
    Tcp,
    /// DCTCP: window cut in proportion to the fraction of marked packets.
    Dctcp,
    /// pFabric minimal rate control: start at a full BDP window, no AIMD.
    Pfabric,
    /// HPCC: window from the bottleneck utilisation switches report in-band
    /// (`transport.hpcc`, `crate::pint_stage`).
    Hpcc,
}

/// How a receiver's ACKs reach the sender (`transport.ack_path`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AckPath {
    /// Outside the emulated links, `ack_delay_slots` after the data reached
    /// the receiver: no ACK is queued, dropped or marked.
    OutOfBand,
    /// As packets of `ack_bytes` on the reverse path: through the
    /// receiver's uplink and the switches' queues, behind their data, at
    /// the price of their length (links price frames by length).
    InBand,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TransportConfig {
    pub kind: TransportKind,
    pub init_cwnd: u32,
    pub max_cwnd: u32,
    /// The receiver's window, packets: a sender puts no new data beyond its
    /// cumulative ACK + this (TCP's flow control), and a receiver holds at most
    /// `REASSEMBLY_PACKETS` out of order, the default.
    pub rcv_wnd_pkts: u32,
    /// Floor of the retransmission timeout (RFC 6298 (2.4)), microseconds;
    /// also the timer before the first RTT sample, and pFabric's fixed timer.
    pub min_rto_us: f64,
    /// Ceiling of the backed-off timeout, microseconds.
    pub max_rto_us: f64,
    /// SACK-based loss recovery (RFC 6675); false: go-back-N after three
    /// duplicate ACKs, receivers keep no out-of-order data.
    pub sack: bool,
    /// Receivers ACK every second in-order packet (at once on anything out
    /// of order, a FIN or a change of CE), or after `delayed_ack_us`.
    pub delayed_ack: bool,
    pub delayed_ack_us: f64,
    /// Delay of the (out-of-band) ACK path from receiver back to sender, in slots.
    pub ack_delay_slots: u32,
    /// Where ACKs travel: out of band (the default) or in band, queued
    /// behind data on the reverse path.
    pub ack_path: AckPath,
    /// An in-band ACK's frame, bytes, counted as `emulation.mtu_bytes` plus
    /// the Ethernet header is for data: 66 is Ethernet, IPv4 and TCP with
    /// timestamps, as a Linux ACK.
    pub ack_bytes: u32,
    /// Mark data packets ECN-capable (tcp only; dctcp always is).
    pub ecn: bool,
    /// DCTCP's EWMA gain g.
    pub dctcp_g: f64,
    /// DCTCP's alpha before the first window ends (Linux's dctcp_alpha_on_init
    /// and ns-3's DctcpAlphaOnInit: 1, so the first marks halve the window).
    pub dctcp_init_alpha: f64,
    /// pFabric: consecutive timeouts before falling back to a one-packet window.
    pub pfabric_probe_after: u32,
    pub hpcc: crate::endpoint::transport::hpcc::HpccConfig,
    /// Slot length in ns (from the emulation section, not configurable here).
    #[serde(skip)]
    pub slot_ns: f64,
}

impl TransportConfig {
    pub fn us_to_slots(&self, us: f64) -> f64 {
        (us * 1000.0 / self.slot_ns).round().max(1.0)
    }
    pub fn min_rto_slots(&self) -> f64 {
        self.us_to_slots(self.min_rto_us)
    }
    pub fn max_rto_slots(&self) -> f64 {
        self.us_to_slots(self.max_rto_us)
    }
    pub fn delayed_ack_slots(&self) -> u64 {
        self.us_to_slots(self.delayed_ack_us).ceil() as u64
    }
}

impl Default for TransportConfig {
    fn default() -> Self {
        TransportConfig {
            kind: TransportKind::Tcp,
            init_cwnd: 10,
            max_cwnd: 10_000,
            rcv_wnd_pkts: crate::endpoint::receiver::REASSEMBLY_PACKETS as u32,
            min_rto_us: 10_000.0,
            max_rto_us: 1_000_000.0,
            sack: true,
            delayed_ack: false,
            delayed_ack_us: 40.0,
            ack_delay_slots: 4,
            ack_path: AckPath::OutOfBand,
            ack_bytes: 66,
            ecn: true,
            dctcp_g: 1.0 / 16.0,
            dctcp_init_alpha: 1.0,
            pfabric_probe_after: 5,
            hpcc: Default::default(),
            slot_ns: 1200.0,
        }
    }
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum SizeDistName {
    WebSearch,
    DataMining,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum FlowSizes {
    Named(SizeDistName),
    File { cdf_file: PathBuf },
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Destination {
    Endpoint(u16),
    Random(RandomWord),
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum RandomWord {
    Random,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ArrivalProcess {
    Poisson,
    Constant,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Workload {
    /// Poisson flow arrivals at every endpoint, sizes from a distribution,
    /// uniformly random destinations; `load` is a fraction of the host link.
    Poisson {
        load: f64,
        sizes: FlowSizes,
        #[serde(default)]
        start_us: f64,
        stop_us: Option<f64>,
        #[serde(default)]
        class: u32,
    },
    /// Planck workloads: one flow of `flow_bytes` per source (shuffle: to every
    /// other endpoint, one at a time).
    Stride {
        k: u32,
        flow_bytes: u64,
        #[serde(default)]
        start_us: f64,
    },
    Shuffle {
        flow_bytes: u64,
        #[serde(default)]
        start_us: f64,
    },
    Random {
        flow_bytes: u64,
        #[serde(default)]
        start_us: f64,
    },
    RandomBijection {
        flow_bytes: u64,
        #[serde(default)]
        start_us: f64,
    },
    /// Explicit flows.
    Flows { flows: Vec<FlowSpec> },
    /// Open-loop packet streams (no transport): `rate` packets per slot per source.
    OpenLoop {
        sources: Vec<u16>,
        destination: Destination,
        rate: f64,
        #[serde(default = "poisson_process")]
        process: ArrivalProcess,
        #[serde(default)]
        class: u32,
    },
}

fn poisson_process() -> ArrivalProcess {
    ArrivalProcess::Poisson
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub src: u16,
    pub dst: u16,
    pub bytes: u64,
    #[serde(default)]
    pub start_us: f64,
    #[serde(default)]
    pub class: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum OutputFormat {
    #[default]
    Csv,
    Json,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OutputConfig {
    pub dir: Option<PathBuf>,
    pub format: OutputFormat,
    /// Keep the sampled per-port queue time series (bounded by `max_queue_samples`).
    pub queue_samples: bool,
    pub max_queue_samples: usize,
    /// Flows (ids as in flows.csv) whose sender events go to flow_trace.csv:
    /// every ACK that moved its state, retransmission, recovery entry, ECN
    /// cut and timeout, with cwnd, ssthresh and pipe after it.
    pub trace_flows: Vec<u32>,
}

impl Default for OutputConfig {
    fn default() -> Self {
        OutputConfig {
            dir: None,
            format: OutputFormat::Csv,
            queue_samples: false,
            max_queue_samples: 1_000_000,
            trace_flows: Vec::new(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("config {path}: {msg}")]
    Parse { path: String, msg: String },
    #[error("config: {0}")]
    Invalid(String),
}

impl Config {
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.display().to_string(),
            source,
        })?;
        let p = path.display().to_string();
        let mut cfg: Config = if path.extension().is_some_and(|e| e == "json") {
            serde_json::from_str(&text).map_err(|e| ConfigError::Parse {
                path: p.clone(),
                msg: e.to_string(),
            })?
        } else {
            toml::from_str(&text).map_err(|e| ConfigError::Parse {
                path: p.clone(),
                msg: e.message().to_string() + &span_hint(&text, e.span()),
            })?
        };
        cfg.transport.slot_ns = cfg.emulation.slot_ns();
        // Relative file paths are relative to the config file.
        let base = path.parent().unwrap_or(Path::new("."));
        if let TopologyConfig::Custom { file, .. } = &mut cfg.topology
            && file.is_relative()
        {
            *file = base.join(&*file);
        }
        for w in &mut cfg.workload {
            if let Workload::Poisson {
                sizes: FlowSizes::File { cdf_file },
                ..
            } = w
                && cdf_file.is_relative()
            {
                *cdf_file = base.join(&*cdf_file);
            }
        }
        Ok(cfg)
    }

    /// Builds the topology and checks every cross-field constraint.
    pub fn validate(&self) -> Result<Topology, ConfigError> {
        let e = &self.emulation;
        let bad = |m: String| Err(ConfigError::Invalid(m));
        if !(e.slot_gbps.is_finite() && e.slot_gbps > 0.0) {
            return bad(format!(
                "emulation.slot_gbps must be > 0, got {}",
                e.slot_gbps
            ));
        }
        if !(64..=65_536).contains(&e.mtu_bytes) {
            return bad(format!(
                "emulation.mtu_bytes must be in 64..=65536, got {}",
                e.mtu_bytes
            ));
        }
        if !(e.duration_us.is_finite() && e.duration_us > 0.0) || e.slots() == 0 {
            return bad(format!(
                "emulation.duration_us must be > 0, got {}",
                e.duration_us
            ));
        }
        if e.threads == 0 || e.threads > 256 {
            return bad(format!(
                "emulation.threads must be in 1..=256, got {}",
                e.threads
            ));
        }
        if e.sample_interval_slots == 0 || e.batch_slots == 0 {
            return bad("emulation.sample_interval_slots and batch_slots must be >= 1".into());
        }
        if e.skew_slots > 1_000_000 || e.batch_slots > 1_000_000 {
            return bad("emulation.skew_slots and batch_slots must be <= 1000000".into());
        }
        let topo = match &self.topology {
            TopologyConfig::Rack {
                racks,
                hosts_per_rack,
                host_link,
                uplink,
            } => Topology::racks(
                *racks,
                *hosts_per_rack,
                (*host_link).into(),
                (*uplink).into(),
            ),
            TopologyConfig::FatTree { k, link } => Topology::fat_tree(*k, (*link).into()),
            TopologyConfig::Custom { file, link } => {
                let text = std::fs::read_to_string(file).map_err(|err| {
                    ConfigError::Invalid(format!(
                        "cannot read topology file {}: {err}",
                        file.display()
                    ))
                })?;
                Topology::from_json(&text, (*link).into())
            }
        }
        .map_err(|err| ConfigError::Invalid(err.to_string()))?;
        let n = topo.endpoints.len();
        match &self.scheme {
            SchemeConfig::Red {
                min_th,
                max_th,
                max_p,
                weight,
                ..
            } => {
                if !(*min_th >= 0.0 && max_th > min_th) {
                    return bad(format!(
                        "scheme red: need 0 <= min_th < max_th, got {min_th} and {max_th}"
                    ));
                }
                if !(*max_p > 0.0 && *max_p <= 1.0 && *weight > 0.0 && *weight <= 1.0) {
                    return bad("scheme red: max_p and weight must be in (0, 1]".into());
                }
            }
            SchemeConfig::Dctcp { k } if *k == 0 => {
                return bad("scheme dctcp: k must be >= 1".into());
            }
            SchemeConfig::Priority { queues }
                if *queues == 0 || *queues as usize > MAX_PRIORITY_QUEUES =>
            {
                return bad(format!(
                    "scheme priority: queues must be in 1..={MAX_PRIORITY_QUEUES}, got {queues}"
                ));
            }
            SchemeConfig::Drr { queues, quantum }
                if *queues == 0 || *queues > 4096 || *quantum == 0 =>
            {
                return bad("scheme drr: queues must be in 1..=4096 and quantum >= 1".into());
            }
            SchemeConfig::Hull { gamma, threshold }
                if !(*gamma > 0.0 && *gamma <= 1.0 && *threshold > 0.0) =>
            {
                return bad("scheme hull: gamma must be in (0, 1] and threshold > 0".into());
            }
            _ => {}
        }
        let t = &self.transport;
        if t.init_cwnd == 0
            || t.max_cwnd < t.init_cwnd
            || !(t.min_rto_us > 0.0 && t.max_rto_us >= t.min_rto_us)
            || !(t.delayed_ack_us > 0.0)
            || t.ack_delay_slots == 0
        {
            return bad("transport: need init_cwnd >= 1, max_cwnd >= init_cwnd, 0 < min_rto_us <= max_rto_us, delayed_ack_us > 0, ack_delay_slots >= 1".into());
        }
        if t.ack_path == AckPath::InBand {
            if !(40..=self.emulation.mtu_bytes).contains(&t.ack_bytes) {
                return bad(format!(
                    "transport.ack_bytes must be in 40..={} (emulation.mtu_bytes), got {}",
                    self.emulation.mtu_bytes, t.ack_bytes
                ));
            }
            if self.pint.active(t) {
                return bad("transport.ack_path = \"in_band\" prices frames by length, which PINT and HPCC do not model: use ack_path = \"out_of_band\" with them".into());
            }
        }
        if t.rcv_wnd_pkts == 0
            || t.rcv_wnd_pkts as usize > crate::endpoint::receiver::REASSEMBLY_PACKETS
        {
            return bad(format!(
                "transport.rcv_wnd_pkts must be in 1..={} (what a receiver holds out of order), got {}",
                crate::endpoint::receiver::REASSEMBLY_PACKETS,
                t.rcv_wnd_pkts
            ));
        }
        if !(t.dctcp_g > 0.0 && t.dctcp_g <= 1.0) {
            return bad("transport.dctcp_g must be in (0, 1]".into());
        }
        if !(0.0..=1.0).contains(&t.dctcp_init_alpha) {
            return bad("transport.dctcp_init_alpha must be in [0, 1]".into());
        }
        let ep = |id: u16, what: &str| -> Result<(), ConfigError> {
            if id as usize >= n {
                return Err(ConfigError::Invalid(format!(
                    "workload {what}: endpoint {id} out of range (topology has {n})"
                )));
            }
            Ok(())
        };
        for w in &self.workload {
            match w {
                Workload::Poisson { load, .. } if !(*load > 0.0 && *load <= 1.5) => {
                    return bad(format!(
                        "workload poisson: load must be in (0, 1.5], got {load}"
                    ));
                }
                Workload::Stride { k, .. } if *k == 0 || (*k as usize).is_multiple_of(n) => {
                    return bad(format!(
                        "workload stride: k must not be a multiple of the endpoint count {n}"
                    ));
                }
                Workload::Stride { flow_bytes, .. }
                | Workload::Shuffle { flow_bytes, .. }
                | Workload::Random { flow_bytes, .. }
                | Workload::RandomBijection { flow_bytes, .. }
                    if *flow_bytes == 0 =>
                {
                    return bad("workload: flow_bytes must be >= 1".into());
                }
                Workload::Flows { flows } => {
                    for f in flows {
                        ep(f.src, "flows")?;
                        ep(f.dst, "flows")?;
                        if f.src == f.dst || f.bytes == 0 {
                            return bad(format!(
                                "workload flows: flow {} -> {} needs distinct ends and bytes >= 1",
                                f.src, f.dst
                            ));
                        }
                    }
                }
                Workload::OpenLoop {
                    sources,
                    destination,
                    rate,
                    ..
                } => {
                    if sources.is_empty() {
                        return bad("workload open_loop: sources is empty".into());
                    }
                    for s in sources {
                        ep(*s, "open_loop")?;
                    }
                    if let Destination::Endpoint(d) = destination {
                        ep(*d, "open_loop")?;
                        if sources.contains(d) {
                            return bad(format!(
                                "workload open_loop: endpoint {d} is both source and destination"
                            ));
                        }
                    }
                    if !(*rate > 0.0 && *rate <= 64.0) {
                        return bad(format!(
                            "workload open_loop: rate must be in (0, 64] packets/slot, got {rate}"
                        ));
                    }
                }
                _ => {}
            }
        }
        if self.output.trace_flows.len() > MAX_TRACED_FLOWS {
            return bad(format!(
                "output.trace_flows: at most {MAX_TRACED_FLOWS} flows, got {}",
                self.output.trace_flows.len()
            ));
        }
        if let Some(0) = Some(self.output.max_queue_samples) {
            return bad("output.max_queue_samples must be >= 1".into());
        }
        if self.transport.kind == TransportKind::Hpcc {
            self.transport
                .hpcc
                .validate()
                .map_err(ConfigError::Invalid)?;
            if crate::pint_stage::int_overhead_bytes(&self.transport) > 0
                && self
                    .workload
                    .iter()
                    .any(|w| !matches!(w, Workload::Poisson { .. }))
            {
                return bad("transport.hpcc.feedback = \"int\": header overhead is modelled for poisson workloads only".into());
            }
            if crate::pint_stage::int_overhead_bytes(&self.transport) + 64
                >= self.emulation.mtu_bytes
            {
                return bad("transport.hpcc.int_bytes leaves no payload in an MTU".into());
            }
        }
        self.pint
            .validate(&self.transport)
            .map_err(ConfigError::Invalid)?;
        if let Some(r) = &self.real_hosts {
            r.validate(self, &topo).map_err(ConfigError::Invalid)?;
        }
        Ok(topo)
    }
}

impl Config {
    /// Whether links price frames by their length: for real hosts' frames
    /// (`real_hosts.frame_time = "length"`) or in-band ACKs.
    pub fn prices_by_length(&self) -> bool {
        self.transport.ack_path == AckPath::InBand
            || self
                .real_hosts
                .as_ref()
                .is_some_and(|r| r.frame_time == crate::realhost::FrameTime::Length)
    }
}

fn span_hint(text: &str, span: Option<std::ops::Range<usize>>) -> String {
    match span {
        Some(s) => format!(
            " (line {})",
            text[..s.start.min(text.len())].lines().count().max(1)
        ),
        None => String::new(),
    }
}
