//! `planck-collector replay`: run a pcap/pcapng through the pipeline and report each
//! flow's mean rate over its sampled lifetime.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use arc_swap::ArcSwap;
use serde::Serialize;

use crate::capture::pcap::{Pace, PcapReplay};
use crate::decode::MirroredFrameDecoder;
use crate::detect::DetectionSettings;
use crate::flow::estimator::WindowParams;
use crate::flow::{EstimatorKind, NO_PORT};
use crate::forwarding::{CompiledMap, ForwardingMapV1, StaticSwitches, format_mac};
use crate::metrics::WorkerCounters;
use crate::pipeline::{Worker, WorkerConfig};

pub struct ReplayOptions {
    pub window: WindowParams,
    pub pace: Pace,
    pub max_flows: usize,
    /// Switch id of untagged samples.
    pub switch: String,
    pub vlans: Vec<(u16, String)>,
    pub forwarding: Option<ForwardingMapV1>,
}

/// One output line.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlowSummary {
    pub switch: String,
    pub src: String,
    pub dst: String,
    pub sport: u16,
    pub dport: u16,
    pub proto: u8,
    /// Mean rate over the sampled lifetime, bits per second.
    pub bps: f64,
    pub samples: u64,
    pub estimator: EstimatorKind,
    /// Sampled bytes x a ratio measured on TCP flows (see [`EstimatorKind::low_confidence`]).
    pub low_confidence: bool,
    /// What sampled bytes x the sampling ratio give over the lifetime, bits per second, for
    /// comparison (kept for non-TCP flows and TCP flows that fell back to it).
    pub sampled_bytes_bps: Option<f64>,
    pub port: Option<u32>,
    pub dst_mac: String,
    pub first_sample_us: u64,
    pub last_sample_us: u64,
}

#[derive(Debug, Default, Serialize)]
pub struct ReplayReport {
    pub frames: u64,
    pub flows: usize,
    /// Packets of non-Ethernet pcapng interfaces, skipped.
    pub non_ethernet: u64,
    /// Bytes of a last record cut short (the file ended inside it), ignored.
    pub truncated_tail_bytes: u64,
    #[serde(flatten)]
    pub counters: WorkerCounters,
}

pub fn load_forwarding(path: &Path) -> Result<ForwardingMapV1, String> {
    let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let map: ForwardingMapV1 =
        serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    map.validate(None)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(map)
}

pub fn replay(
    pcap: &Path,
    opts: &ReplayOptions,
) -> Result<(Vec<FlowSummary>, ReplayReport), String> {
    let statics = StaticSwitches {
        vlans: opts.vlans.clone(),
        interface_switches: vec![opts.switch.clone()],
    };
    let map = CompiledMap::build(None, opts.forwarding.as_ref(), &statics, 1)?;
    let iface_switch = map.switch_index(&opts.switch);
    let source = Arc::new(ArcSwap::from_pointee(map));
    let settings = Arc::new(DetectionSettings::new(80.0, 5.0, 5.0));
    let cfg = WorkerConfig {
        window: opts.window,
        max_flows: opts.max_flows,
        idle_timeout_ns: u64::MAX,
        // Replay runs ahead of the capture clock: silence is not measured against it.
        quiet_after_gaps: 0,
        ..WorkerConfig::default()
    };
    let mut worker = Worker::new(cfg, MirroredFrameDecoder, source, settings, None, None);
    let read = PcapReplay::open(pcap, opts.pace)?
        .for_each(|meta, data| worker.on_frame(meta.ts_ns, meta.vlan, iface_switch, data))?;
    let window = *worker.window();
    let map = worker.map();
    let mut out: Vec<FlowSummary> = worker
        .flows()
        .iter()
        .map(|st| {
            let est = st.lifetime(&window);
            FlowSummary {
                switch: map.switch_ids[st.key.switch as usize].to_string(),
                src: st.key.tuple.src.to_string(),
                dst: st.key.tuple.dst.to_string(),
                sport: st.key.tuple.sport,
                dport: st.key.tuple.dport,
                proto: st.key.tuple.proto,
                bps: est.bytes_per_sec * 8.0,
                samples: est.samples,
                estimator: est.kind,
                low_confidence: est.kind.low_confidence(st.key.tuple.proto == crate::decode::frame::IPPROTO_TCP),
                sampled_bytes_bps: st.sampled_bytes_lifetime_rate().map(|r| r * 8.0),
                port: (st.port != NO_PORT).then(|| map.ports[st.port as usize].port),
                dst_mac: format_mac(&st.dst_mac),
                first_sample_us: est.first_ns / 1000,
                last_sample_us: est.last_ns / 1000,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        (&a.switch, &a.src, &a.dst, a.proto, a.sport, a.dport)
            .cmp(&(&b.switch, &b.src, &b.dst, b.proto, b.sport, b.dport))
    });
    let report = ReplayReport {
        frames: read.frames,
        flows: out.len(),
        non_ethernet: read.non_ethernet,
        truncated_tail_bytes: read.truncated_tail_bytes,
        counters: worker.counters,
    };
    Ok((out, report))
}

pub fn print_lines(flows: &[FlowSummary], w: &mut impl Write) -> std::io::Result<()> {
    for f in flows {
        serde_json::to_writer(&mut *w, f)?;
        w.write_all(b"\n")?;
    }
    w.flush()
}
