//! `planck-collector pint-replay`: frames from PINT sink switches (pcap/pcapng) ->
//! digests (`decode::pint`) -> per-flow state (`inband::pint_flows`) -> telemetry-events
//! v3 events, one JSON object per line. The offline twin of a live PINT sink: the same
//! decoder, state and event JSON; frames that are not PINT frames are counted and skipped.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::capture::pcap::{Pace, PcapReplay};
use crate::decode::pint::{PintFrameLayout, decode_pint_frame};
use crate::export::pint_events::pint_event_json;
use crate::inband::pint_flows::{PintCounters, PintFlows, PintFlowsConfig};

pub struct PintReplayOptions {
    pub layout: PintFrameLayout,
    pub flows: PintFlowsConfig,
    /// PINT switch id -> device id in the events; ids not listed become "pint:<id>".
    pub devices: HashMap<u32, String>,
}

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PintReplayReport {
    pub frames: u64,
    /// Frames that are no PINT frame (not IPv4 TCP/UDP, fragments, impossible TTL).
    pub not_pint: u64,
    pub events: u64,
    pub digests: u64,
    pub flows_refused: u64,
    pub paths_decoded: u64,
    pub path_changes: u64,
    pub hop_count_changes: u64,
}

/// Replay `path`; every event goes to `emit` as the contract's JSON.
pub fn pint_replay(path: &Path, opts: PintReplayOptions, mut emit: impl FnMut(Value)) -> Result<PintReplayReport, String> {
    let mut devices = opts.devices;
    for &id in &opts.flows.switch_ids {
        devices.entry(id).or_insert_with(|| format!("pint:{id}"));
    }
    let mut state = PintFlows::new(opts.flows)?;
    let mut report = PintReplayReport::default();
    let mut events = Vec::new();
    PcapReplay::open(path, Pace::Fast)?.for_each(|meta, frame| {
        report.frames += 1;
        match decode_pint_frame(frame, &opts.layout) {
            Ok(s) => {
                state.observe(&s, meta.ts_ns, &mut events);
                for e in events.drain(..) {
                    if let Some(v) = pint_event_json(&e, &devices, meta.ts_ns / 1000) {
                        report.events += 1;
                        emit(v);
                    }
                }
            }
            Err(_) => report.not_pint += 1,
        }
    })?;
    let PintCounters { digests, flows_refused, paths_decoded, path_changes, hop_count_changes, .. } = state.counters;
    report.digests = digests;
    report.flows_refused = flows_refused;
    report.paths_decoded = paths_decoded;
    report.path_changes = path_changes;
    report.hop_count_changes = hop_count_changes;
    Ok(report)
}

/// The CLI: events on stdout, the report on stderr.
pub fn print_pint_replay(path: &Path, opts: PintReplayOptions) -> Result<(), String> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut failed = None;
    let report = pint_replay(path, opts, |v| {
        if failed.is_none()
            && let Err(e) = writeln!(out, "{v}")
        {
            failed = Some(e.to_string());
        }
    })?;
    out.flush().map_err(|e| e.to_string())?;
    if let Some(e) = failed {
        return Err(format!("stdout: {e}"));
    }
    eprintln!("{}", serde_json::to_string(&report).map_err(|e| e.to_string())?);
    Ok(())
}

/// Arguments of `planck-collector pint-replay`.
#[derive(clap::Args, Debug)]
pub struct PintReplayArgs {
    /// pcap or pcapng file of frames from PINT sink switches (Ethernet link type).
    #[arg(long, value_name = "FILE")]
    pub pcap: std::path::PathBuf,
    /// Low bits of the IPv4 ID that carry the path digest.
    #[arg(long, default_value_t = 8)]
    pub path_bits: u32,
    /// Bits above them carrying the hop-latency code (0: no latency query).
    #[arg(long, default_value_t = 8)]
    pub latency_bits: u32,
    /// Hash seed the switches use.
    #[arg(long, default_value_t = 2020)]
    pub seed: u64,
    /// TTL the hosts send with (hop count = initial TTL - TTL at the sink).
    #[arg(long, default_value_t = 64)]
    pub initial_ttl: u8,
    /// Path length the switches' layer probabilities are tuned for.
    #[arg(long, default_value_t = 5)]
    pub path_hops: u32,
    /// Switch ids that may be on a path: ids and ranges, e.g. 1..20,31.
    #[arg(long, value_delimiter = ',', required = true)]
    pub switches: Vec<String>,
    /// Topology links between switch ids, e.g. 1-5,5-9 (optional: fewer packets to decode).
    #[arg(long, value_delimiter = ',')]
    pub links: Vec<String>,
    /// Device ids for switch ids in the events, e.g. 1=of:0000000000000001.
    #[arg(long, value_delimiter = ',')]
    pub device_map: Vec<String>,
}

fn parse_u32(s: &str, what: &str) -> Result<u32, String> {
    s.trim().parse().map_err(|_| format!("{what}: {s:?} is not a switch id"))
}

impl PintReplayArgs {
    pub fn options(&self) -> Result<PintReplayOptions, String> {
        if !(1..=16).contains(&self.path_bits) || self.path_bits + self.latency_bits > 16 {
            return Err("--path-bits must be 1..=16 and --path-bits + --latency-bits at most 16".into());
        }
        let mut switch_ids = Vec::new();
        for s in self.switches.iter().filter(|s| !s.is_empty()) {
            match s.split_once("..") {
                Some((a, b)) => {
                    let (a, b) = (parse_u32(a, "--switches")?, parse_u32(b, "--switches")?);
                    if a > b || b - a > 1_000_000 {
                        return Err(format!("--switches: range {s} is empty or too large"));
                    }
                    switch_ids.extend(a..=b);
                }
                None => switch_ids.push(parse_u32(s, "--switches")?),
            }
        }
        let mut links = Vec::new();
        for l in self.links.iter().filter(|s| !s.is_empty()) {
            let (a, b) = l.split_once('-').ok_or_else(|| format!("--links: {l:?} is not A-B"))?;
            links.push((parse_u32(a, "--links")?, parse_u32(b, "--links")?));
        }
        let mut devices = HashMap::new();
        for d in self.device_map.iter().filter(|s| !s.is_empty()) {
            let (a, b) = d.split_once('=').ok_or_else(|| format!("--device-map: {d:?} is not ID=DEVICE"))?;
            if b.is_empty() {
                return Err(format!("--device-map: {d:?} has no device id"));
            }
            devices.insert(parse_u32(a, "--device-map")?, b.to_string());
        }
        let mut flows = PintFlowsConfig::sixteen_bits(self.seed, self.path_hops, switch_ids);
        flows.path = pint::path::PathTracingConfig::hybrid(self.path_bits, self.path_hops.clamp(1, 64), self.seed);
        flows.latency = match self.latency_bits {
            0 => None,
            b => Some(pint::latency::LatencyConfig {
                codec: pint::compress::ValueCodec::multiplicative(b, 100.0, 1_000_000.0).map_err(|e| e.0)?,
                seed: self.seed,
            }),
        };
        flows.links = links;
        Ok(PintReplayOptions {
            layout: PintFrameLayout { budget_bits: self.path_bits, initial_ttl: self.initial_ttl, seed: self.seed },
            flows,
            devices,
        })
    }
}

/// Entry point of the subcommand.
pub fn run_cli(args: &PintReplayArgs) -> Result<(), String> {
    print_pint_replay(&args.pcap, args.options()?)
}
