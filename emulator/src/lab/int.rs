//! In-band Network Telemetry on the lab fabric (`[int]` in the fabric config): chosen
//! switches act as INT source, transit or sink. A source starts INT on 1 in
//! `sample_one_in` of the packets it receives from a host port; every INT switch then
//! pushes its hop metadata (switch id, ingress/egress port, hop latency, queue id and
//! occupancy, egress tx utilisation, all from its own state at the moment it transmits
//! the packet); a sink, sending the packet to a host port, adds its own hop and emits a
//! telemetry report (v1.0 or v2.x, [`super::int_report`]) as a real UDP frame on the
//! telemetry interface, towards the collector's report port. Switches outside the INT
//! domain forward INT packets unchanged, as a non-INT switch would.
//!
//! What a hop reports, in the emulator's terms: hop latency = (slot the packet left the
//! switch − slot it arrived) × slot length, i.e. its queueing delay on the emulator's
//! clock (0 on an empty queue); queue occupancy = packets left in the egress queue when
//! it was dequeued; queue id = the egress port's number (one FIFO per port); tx
//! utilisation = per mille of the last complete `util_window_us` window's timeslots in
//! which the egress port transmitted.
//!
//! Bounded: at most `max_in_flight` stacks are carried at once (a ring: the oldest is
//! overwritten and counted, which also reclaims stacks of packets the fabric dropped), and
//! at most `max_reports_per_ms` reports per ms of emulator time leave (a token bucket with
//! one ms of burst); reports beyond are dropped and counted.

use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};

use super::frames::{FrameFields, FrameSink};
use super::int_report::{IntHop, Report, ReportAddress, ReportFormat, build_report};
use super::rules::Mac;
use crate::fabric::topology::{Peer, Topology};

/// A packet that carries no INT stack.
pub const NO_INT: u32 = u32::MAX;
/// Hops a stack can hold (the collector's `MAX_HOPS`).
pub const MAX_HOPS: usize = 16;

const SOURCE: u8 = 1;
const TRANSIT: u8 = 2;
const SINK: u8 = 4;

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct IntSection {
    /// `"none"` (default: only the lists below), or `"edges"`: every switch with a host
    /// port is source and sink, every other switch transit.
    pub domain: String,
    /// Switch numbers (`of:…0001` is 1) by role; a switch may have several.
    pub sources: Vec<u32>,
    pub transits: Vec<u32>,
    pub sinks: Vec<u32>,
    /// A source starts INT on 1 packet in this many it receives from hosts.
    pub sample_one_in: u32,
    /// Telemetry report version: `"1.0"` or `"2"` (v2.0/v2.1).
    pub version: String,
    /// Hop budget a source gives a packet (RemainingHopCnt), 1-16.
    pub max_hops: u8,
    /// Stacks carried at once; more overwrite the oldest (counted).
    pub max_in_flight: u32,
    /// Reports per ms of emulator time; beyond: dropped, counted.
    pub max_reports_per_ms: u32,
    /// Window of the egress tx utilisation, µs.
    pub util_window_us: f64,
    pub report: ReportSection,
}

impl Default for IntSection {
    fn default() -> Self {
        IntSection {
            domain: "none".into(),
            sources: Vec::new(),
            transits: Vec::new(),
            sinks: Vec::new(),
            sample_one_in: 16,
            version: "2".into(),
            max_hops: 8,
            max_in_flight: 4096,
            max_reports_per_ms: 200,
            util_window_us: 1000.0,
            report: ReportSection::default(),
        }
    }
}

/// Where the sinks' reports go: an interface (AF_PACKET, the telemetry veth) or a pcap
/// file, and the addresses of the report frames.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ReportSection {
    pub interface: Option<String>,
    pub pcap: Option<PathBuf>,
    pub src_mac: Mac,
    pub dst_mac: Mac,
    pub src_ip: Ipv4Addr,
    pub dst_ip: Ipv4Addr,
    pub src_port: u16,
    pub dst_port: u16,
}

impl Default for ReportSection {
    fn default() -> Self {
        ReportSection {
            interface: None,
            pcap: None,
            src_mac: Mac(0x02_00_00_00_1e_01),
            dst_mac: Mac(0x02_00_00_00_1e_02),
            src_ip: Ipv4Addr::new(198, 18, 14, 2),
            dst_ip: Ipv4Addr::new(198, 18, 14, 1),
            src_port: 54320,
            dst_port: 54321,
        }
    }
}

impl IntSection {
    /// INT is on when a domain or any role list is given.
    pub fn enabled(&self) -> bool {
        self.domain == "edges" || !self.sources.is_empty() || !self.transits.is_empty() || !self.sinks.is_empty()
    }

    pub fn validate(&self) -> anyhow::Result<()> {
        if self.domain != "none" && self.domain != "edges" {
            anyhow::bail!("int.domain must be \"none\" or \"edges\", got {:?}", self.domain);
        }
        if self.domain == "edges" && !(self.sources.is_empty() && self.transits.is_empty() && self.sinks.is_empty()) {
            anyhow::bail!("int: domain = \"edges\" sets the roles; leave sources, transits and sinks empty");
        }
        self.format()?;
        if !(1..=1_000_000).contains(&self.sample_one_in) {
            anyhow::bail!("int.sample_one_in must be 1..=1000000, got {}", self.sample_one_in);
        }
        if !(1..=MAX_HOPS as u8).contains(&self.max_hops) {
            anyhow::bail!("int.max_hops must be 1..={MAX_HOPS}, got {}", self.max_hops);
        }
        if !(16..=1 << 20).contains(&self.max_in_flight) {
            anyhow::bail!("int.max_in_flight must be 16..=1048576, got {}", self.max_in_flight);
        }
        if !(1..=1_000_000).contains(&self.max_reports_per_ms) {
            anyhow::bail!("int.max_reports_per_ms must be 1..=1000000, got {}", self.max_reports_per_ms);
        }
        if !(self.util_window_us.is_finite() && self.util_window_us >= 1.0 && self.util_window_us <= 1e6) {
            anyhow::bail!("int.util_window_us must be in [1, 1000000]");
        }
        if self.enabled() {
            let r = &self.report;
            match (&r.interface, &r.pcap) {
                (Some(_), None) | (None, Some(_)) => {}
                _ => anyhow::bail!("int.report needs exactly one of interface or pcap"),
            }
            if r.dst_port == 0 || r.src_port == 0 {
                anyhow::bail!("int.report ports must be 1-65535");
            }
        }
        Ok(())
    }

    fn format(&self) -> anyhow::Result<ReportFormat> {
        match self.version.as_str() {
            "1.0" => Ok(ReportFormat::V10),
            "2" => Ok(ReportFormat::V2),
            v => anyhow::bail!("int.version must be \"1.0\" or \"2\", got {v:?}"),
        }
    }

    /// Role bits per switch index, checked against the topology.
    fn roles(&self, topo: &Topology) -> anyhow::Result<Vec<u8>> {
        let n = topo.switches.len();
        let mut roles = vec![0u8; n];
        if self.domain == "edges" {
            for (i, s) in topo.switches.iter().enumerate() {
                let edge = s.ports.iter().any(|p| matches!(p.peer, Peer::Endpoint(_)));
                roles[i] = if edge { SOURCE | SINK } else { TRANSIT };
            }
        }
        for (list, bit, name) in [(&self.sources, SOURCE, "sources"), (&self.transits, TRANSIT, "transits"), (&self.sinks, SINK, "sinks")] {
            for &sw in list {
                if sw == 0 || sw as usize > n {
                    anyhow::bail!("int.{name}: switch {sw} is not in the fabric (1..={n})");
                }
                roles[sw as usize - 1] |= bit;
            }
        }
        Ok(roles)
    }
}

/// One sampled packet's INT stack, in a ring slot.
#[derive(Clone, Copy)]
struct Stack {
    tag: u32,
    live: bool,
    /// Stack order: hops[0] is the first switch; reversed when reported.
    hops: [IntHop; MAX_HOPS],
    n: u8,
    exceeded: bool,
    /// Arrival at the switch that holds the packet now.
    in_slot: u64,
    in_port: u16,
}

const EMPTY_STACK: Stack = Stack {
    tag: NO_INT,
    live: false,
    hops: [IntHop { switch_id: 0, ingress_port: 0, egress_port: 0, hop_latency_ns: 0, queue_id: 0, queue_occupancy: 0, tx_utilization: 0 }; MAX_HOPS],
    n: 0,
    exceeded: false,
    in_slot: 0,
    in_port: 0,
};

/// Transmit utilisation of one egress port, by windows of timeslots.
#[derive(Clone, Copy, Default)]
struct PortUtil {
    win_start: u64,
    win_packets: u64,
    last_permille: u32,
}

/// Counters of the INT stage (`GET /v1/status`, `int`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntCounters {
    /// Packets a source started INT on.
    pub sampled: u64,
    /// Reports sent on the telemetry interface (or written to the pcap).
    pub reports: u64,
    /// Reports over `max_reports_per_ms`, not sent.
    pub reports_dropped: u64,
    /// Stacks overwritten before their packet reached a sink (it was dropped, or more
    /// than `max_in_flight` were in flight).
    pub stacks_lost: u64,
    /// INT packets that reached a host through no sink (their stack is discarded).
    pub unsunk: u64,
    /// Pushes refused for lack of hop budget (E flag set).
    pub hops_exceeded: u64,
    /// Report frames the kernel refused.
    pub sink_errors: u64,
}

/// The INT stage of one fabric.
pub struct LabInt {
    roles: Vec<u8>,
    one_in: u32,
    /// Per switch: packets received from hosts (source sampling counter).
    from_hosts: Vec<u32>,
    format: ReportFormat,
    max_hops: u8,
    stacks: Vec<Stack>,
    next_tag: u32,
    util: Vec<Vec<PortUtil>>,
    window_slots: u64,
    slot_ns: f64,
    tokens: f64,
    tokens_per_slot: f64,
    burst: f64,
    last_refill: u64,
    sink: FrameSink,
    to: ReportAddress,
    seq: Vec<u32>,
    frame: Vec<u8>,
    hop_buf: Vec<IntHop>,
    pub counters: IntCounters,
}

impl LabInt {
    /// The INT stage of a fabric, or None when the config has no INT switch. Opens the
    /// report sink.
    pub fn new(cfg: &IntSection, topo: &Topology, slot_ns: f64) -> anyhow::Result<Option<LabInt>> {
        if !cfg.enabled() {
            return Ok(None);
        }
        cfg.validate()?;
        let roles = cfg.roles(topo)?;
        let r = &cfg.report;
        let sink = match (&r.interface, &r.pcap) {
            (Some(i), _) => FrameSink::interface(i),
            (None, Some(p)) => FrameSink::pcap(p),
            (None, None) => unreachable!("validated"),
        }
        .map_err(|e| anyhow::anyhow!("int.report: {e}"))?;
        Ok(Some(Self::with_sink(cfg, topo, slot_ns, roles, sink)))
    }

    fn with_sink(cfg: &IntSection, topo: &Topology, slot_ns: f64, roles: Vec<u8>, sink: FrameSink) -> LabInt {
        let n = topo.switches.len();
        let slots_per_ms = 1e6 / slot_ns;
        let r = &cfg.report;
        LabInt {
            roles,
            one_in: cfg.sample_one_in,
            from_hosts: vec![0; n],
            format: cfg.format().expect("validated"),
            max_hops: cfg.max_hops,
            stacks: vec![EMPTY_STACK; cfg.max_in_flight as usize],
            next_tag: 0,
            util: topo.switches.iter().map(|s| vec![PortUtil::default(); s.ports.len()]).collect(),
            window_slots: ((cfg.util_window_us * 1000.0 / slot_ns).round() as u64).max(1),
            slot_ns,
            tokens: f64::from(cfg.max_reports_per_ms),
            tokens_per_slot: f64::from(cfg.max_reports_per_ms) / slots_per_ms,
            burst: f64::from(cfg.max_reports_per_ms),
            last_refill: 0,
            sink,
            to: ReportAddress {
                src_mac: r.src_mac,
                dst_mac: r.dst_mac,
                src_ip: r.src_ip,
                dst_ip: r.dst_ip,
                src_port: r.src_port,
                dst_port: r.dst_port,
            },
            seq: vec![0; n],
            frame: Vec::with_capacity(512),
            hop_buf: Vec::with_capacity(MAX_HOPS),
            counters: IntCounters::default(),
        }
    }

    fn stack_mut(&mut self, tag: u32) -> Option<&mut Stack> {
        if tag == NO_INT {
            return None;
        }
        let len = self.stacks.len();
        let s = &mut self.stacks[tag as usize % len];
        (s.live && s.tag == tag).then_some(s)
    }

    /// A packet arrives at switch `sw` on port index `in_port` (0-based) in slot `t` and
    /// is queued: a source may start INT on it, an INT switch notes the arrival.
    #[inline]
    pub fn on_ingress(&mut self, sw: usize, in_port: u16, from_host: bool, int: &mut u32, t: u64) {
        let role = self.roles[sw];
        if role == 0 {
            return;
        }
        if *int == NO_INT {
            if role & SOURCE == 0 || !from_host {
                return;
            }
            let c = self.from_hosts[sw];
            self.from_hosts[sw] = c.wrapping_add(1);
            if c % self.one_in != 0 {
                return;
            }
            *int = self.start();
        }
        match self.stack_mut(*int) {
            Some(s) => {
                s.in_slot = t;
                s.in_port = in_port;
            }
            None => *int = NO_INT,
        }
    }

    fn start(&mut self) -> u32 {
        let tag = self.next_tag;
        self.next_tag = if tag == NO_INT - 1 { 0 } else { tag + 1 };
        let len = self.stacks.len();
        let s = &mut self.stacks[tag as usize % len];
        if s.live {
            self.counters.stacks_lost += 1;
        }
        *s = Stack { tag, live: true, ..EMPTY_STACK };
        self.counters.sampled += 1;
        tag
    }

    /// Switch `sw` transmits a packet from egress port index `out_port` in slot `t`,
    /// leaving `queue_left` packets behind. An INT switch pushes its hop. Returns true
    /// when this switch is the packet's sink (it goes to a host): the caller then hands
    /// the packet's headers to [`LabInt::emit`].
    #[inline]
    pub fn on_egress(&mut self, sw: usize, out_port: u16, to_host: bool, int: &mut u32, t: u64, queue_left: usize) -> bool {
        let role = self.roles[sw];
        if role == 0 {
            if *int != NO_INT && to_host {
                self.discard(int);
            }
            return false;
        }
        let util = self.tx_utilisation(sw, out_port as usize, t);
        let tag = *int;
        let (slot_ns, max_hops) = (self.slot_ns, self.max_hops);
        let Some(s) = self.stack_mut(tag) else {
            *int = NO_INT;
            return false;
        };
        if s.n < max_hops {
            s.hops[s.n as usize] = IntHop {
                switch_id: sw as u32 + 1,
                ingress_port: s.in_port + 1,
                egress_port: out_port + 1,
                hop_latency_ns: ((t.saturating_sub(s.in_slot)) as f64 * slot_ns).min(u32::MAX as f64) as u32,
                queue_id: (out_port + 1).min(255) as u8,
                queue_occupancy: (queue_left as u32).min(0x00ff_ffff),
                tx_utilization: util,
            };
            s.n += 1;
        } else {
            s.exceeded = true;
            self.counters.hops_exceeded += 1;
        }
        if !to_host {
            return false;
        }
        if role & SINK != 0 {
            return true;
        }
        self.discard(int);
        false
    }

    fn discard(&mut self, int: &mut u32) {
        if let Some(s) = self.stack_mut(*int) {
            s.live = false;
        }
        self.counters.unsunk += 1;
        *int = NO_INT;
    }

    fn tx_utilisation(&mut self, sw: usize, port: usize, t: u64) -> u32 {
        let w = self.window_slots;
        let u = &mut self.util[sw][port];
        if t >= u.win_start + w {
            u.last_permille = if t < u.win_start + 2 * w { (u.win_packets * 1000 / w) as u32 } else { 0 };
            u.win_start = t - (t - u.win_start) % w;
            u.win_packets = 0;
        }
        u.win_packets += 1;
        u.last_permille
    }

    /// The sink `sw` reports the packet whose headers are `packet` (after
    /// [`LabInt::on_egress`] returned true) and ends its INT. `epoch_ns` is the emulator
    /// time of slot 0; `ts` the frame's pcap timestamp.
    pub fn emit(&mut self, sw: usize, int: &mut u32, packet: &FrameFields, t: u64, epoch_ns: f64, ts: Duration) {
        let tag = std::mem::replace(int, NO_INT);
        self.refill(t);
        let max_hops = self.max_hops;
        let Some(s) = self.stack_mut(tag) else {
            return;
        };
        s.live = false;
        let s = *s;
        let hops = s.n as usize;
        let (remaining, exceeded, in_slot) = (max_hops - s.n, s.exceeded, s.in_slot);
        self.hop_buf.clear();
        // Reports list hops from the sink back to the source.
        self.hop_buf.extend(s.hops[..hops].iter().rev());
        if self.tokens < 1.0 {
            self.counters.reports_dropped += 1;
            return;
        }
        self.tokens -= 1.0;
        let seq = self.seq[sw];
        self.seq[sw] = seq.wrapping_add(1);
        let report = Report {
            format: self.format,
            sink: sw as u32 + 1,
            seq,
            ingress_ts: (epoch_ns + in_slot as f64 * self.slot_ns) as u64 as u32,
            congested_queue: false,
            packet,
            hops: &self.hop_buf[..hops],
            remaining_hops: remaining,
            exceeded,
        };
        build_report(&report, &self.to, &mut self.frame);
        if self.sink.push(&self.frame, self.frame.len(), ts) {
            self.counters.reports += 1;
        } else {
            self.counters.sink_errors += 1;
        }
    }

    fn refill(&mut self, t: u64) {
        if t > self.last_refill {
            self.tokens = (self.tokens + (t - self.last_refill) as f64 * self.tokens_per_slot).min(self.burst);
            self.last_refill = t;
        }
    }

    /// Sends the queued report frames.
    pub fn flush(&mut self) {
        let failed = self.sink.flush();
        self.counters.sink_errors += failed;
        self.counters.reports = self.counters.reports.saturating_sub(failed);
    }

    pub fn status_json(&self) -> Value {
        let c = &self.counters;
        json!({"sampled": c.sampled, "reports": c.reports, "reportsDropped": c.reports_dropped,
            "stacksLost": c.stacks_lost, "unsunk": c.unsunk, "hopsExceeded": c.hops_exceeded,
            "sinkErrors": c.sink_errors})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::topology::LinkParams;

    fn fat_tree() -> Topology {
        Topology::fat_tree(4, LinkParams { gbps: 1.0, buffer_pkts: 100, latency_slots: 1 }).unwrap()
    }

    fn lab_int(cfg: &IntSection, path: &std::path::Path) -> LabInt {
        let topo = fat_tree();
        let roles = cfg.roles(&topo).unwrap();
        LabInt::with_sink(cfg, &topo, 12_000.0, roles, FrameSink::pcap(path).unwrap())
    }

    #[test]
    fn edges_domain_makes_edge_switches_source_and_sink_and_the_rest_transit() {
        let cfg = IntSection { domain: "edges".into(), ..Default::default() };
        let roles = cfg.roles(&fat_tree()).unwrap();
        // Per pod: two edges then two aggregations; then four cores.
        assert_eq!(&roles[..4], &[SOURCE | SINK, SOURCE | SINK, TRANSIT, TRANSIT]);
        assert_eq!(&roles[16..], &[TRANSIT; 4]);
    }

    /// The `[int]` section the lab writes (lab `IntSourceSpecTest.SECTION`; keep both in step).
    #[test]
    fn the_labs_int_section_parses() {
        let text = "[fabric]\ntopology = \"fattree:4\"\n\n[int]\ndomain = \"edges\"\nversion = \"2\"\nsample_one_in = 64\n\
            max_reports_per_ms = 50\n\n[int.report]\ninterface = \"plk-int0\"\ndst_mac = \"02:00:00:00:1e:02\"\n\
            dst_ip = \"198.18.14.1\"\ndst_port = 54321\n";
        let cfg = crate::lab::FabricConfig::parse(text).unwrap();
        assert!(cfg.int.enabled());
        assert_eq!((cfg.int.sample_one_in, cfg.int.max_reports_per_ms), (64, 50));
        assert_eq!(cfg.int.report.dst_mac, Mac(0x02_00_00_00_1e_02));
        assert_eq!(cfg.int.report.dst_ip, Ipv4Addr::new(198, 18, 14, 1));
        assert_eq!(cfg.int.report.interface.as_deref(), Some("plk-int0"));
        assert!(crate::lab::FabricConfig::parse(&text.replace("sample_one_in", "sample_one")).is_err());
    }

    #[test]
    fn bad_sections_are_rejected() {
        let ok = IntSection { sinks: vec![1], report: ReportSection { pcap: Some("/dev/null".into()), ..Default::default() }, ..Default::default() };
        assert!(ok.validate().is_ok());
        for bad in [
            IntSection { version: "1.5".into(), ..ok.clone() },
            IntSection { sample_one_in: 0, ..ok.clone() },
            IntSection { max_hops: 17, ..ok.clone() },
            IntSection { max_in_flight: 1, ..ok.clone() },
            IntSection { max_reports_per_ms: 0, ..ok.clone() },
            IntSection { domain: "edges".into(), ..ok.clone() },
            IntSection { domain: "core".into(), sinks: vec![], ..ok.clone() },
            IntSection { report: ReportSection::default(), ..ok.clone() },
        ] {
            assert!(bad.validate().is_err(), "{bad:?} accepted");
        }
        let unknown = IntSection { sinks: vec![21], ..ok };
        assert!(unknown.roles(&fat_tree()).is_err());
        assert!(!IntSection::default().enabled());
    }

    #[test]
    fn sources_sample_one_in_n_host_packets_and_the_ring_counts_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = IntSection { domain: "edges".into(), sample_one_in: 4, max_in_flight: 16, ..Default::default() };
        let mut int = lab_int(&cfg, &dir.path().join("r.pcap"));
        let mut tags = Vec::new();
        for t in 0..100u64 {
            let mut tag = NO_INT;
            int.on_ingress(0, 0, true, &mut tag, t);
            tags.push(tag);
        }
        assert_eq!(tags.iter().filter(|&&t| t != NO_INT).count(), 25);
        assert_eq!(int.counters.sampled, 25);
        // 25 stacks through a ring of 16, none sunk: 9 overwritten.
        assert_eq!(int.counters.stacks_lost, 9);
        // A packet from another switch (not from a host) is never sampled; a transit never starts INT.
        let mut tag = NO_INT;
        for t in 0..8 {
            int.on_ingress(0, 2, false, &mut tag, t);
            int.on_ingress(2, 0, true, &mut tag, t);
        }
        assert_eq!(tag, NO_INT);
    }

    #[test]
    fn reports_beyond_the_rate_cap_are_dropped_and_counted() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = IntSection { domain: "edges".into(), sample_one_in: 1, max_reports_per_ms: 3, ..Default::default() };
        let mut int = lab_int(&cfg, &dir.path().join("r.pcap"));
        let fields = FrameFields {
            vlan: 0, eth_src: Mac(1), eth_dst: Mac(2), ip_src: Ipv4Addr::new(10, 0, 0, 1), ip_dst: Ipv4Addr::new(10, 0, 0, 2),
            sport: 1, dport: 2, seq: 0, ack: 0, payload: 1460, ip_id: 0, ttl: 63,
        };
        // Ten reports in one slot: the burst (one ms worth, 3) goes, 7 are dropped.
        for _ in 0..10 {
            let mut tag = NO_INT;
            int.on_ingress(0, 0, true, &mut tag, 5);
            assert!(int.on_egress(0, 1, true, &mut tag, 5, 0));
            int.emit(0, &mut tag, &fields, 5, 0.0, Duration::ZERO);
            assert_eq!(tag, NO_INT);
        }
        assert_eq!((int.counters.reports, int.counters.reports_dropped), (3, 7));
        // One ms later (84 slots of 12 µs) three more tokens.
        for _ in 0..4 {
            let mut tag = NO_INT;
            int.on_ingress(0, 0, true, &mut tag, 90);
            int.on_egress(0, 1, true, &mut tag, 90, 0);
            int.emit(0, &mut tag, &fields, 90, 0.0, Duration::ZERO);
        }
        assert_eq!((int.counters.reports, int.counters.reports_dropped), (6, 8));
    }

    #[test]
    fn a_packet_leaving_to_a_host_through_no_sink_is_counted_unsunk() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = IntSection { sources: vec![1], transits: vec![3], sample_one_in: 1, report: ReportSection { pcap: Some(dir.path().join("r.pcap")), ..Default::default() }, ..Default::default() };
        let mut int = lab_int(&cfg, &dir.path().join("r.pcap"));
        let mut tag = NO_INT;
        int.on_ingress(0, 0, true, &mut tag, 0);
        assert!(!int.on_egress(0, 2, false, &mut tag, 0, 0));
        // Switch 2 (index 1) is outside the domain: it forwards INT to its host unchanged, and the stack is lost.
        int.on_ingress(1, 2, false, &mut tag, 2);
        assert!(!int.on_egress(1, 0, true, &mut tag, 2, 0));
        assert_eq!(tag, NO_INT);
        assert_eq!(int.counters.unsunk, 1);
    }

    #[test]
    fn utilisation_is_the_share_of_busy_slots_in_the_last_window() {
        let dir = tempfile::tempdir().unwrap();
        // 1 ms windows at 12 µs slots: 83 slots.
        let cfg = IntSection { domain: "edges".into(), ..Default::default() };
        let mut int = lab_int(&cfg, &dir.path().join("r.pcap"));
        assert_eq!(int.window_slots, 83);
        for t in (0..83).step_by(2) {
            assert_eq!(int.tx_utilisation(0, 1, t), 0);
        }
        // 42 of 83 slots busy.
        assert_eq!(int.tx_utilisation(0, 1, 83), 506);
        // A whole idle window in between: 0.
        assert_eq!(int.tx_utilisation(0, 1, 83 * 3 + 1), 0);
    }
}
