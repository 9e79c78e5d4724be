//! `planck-collector pint-live`: the live PINT sink. Captures mirror frames on an
//! interface (its own AF_PACKET ring, beside the main collector's), keeps the frames that
//! a packet's **last switch** mirrored, decodes their digests (`decode::pint`), traces
//! paths per flow (`inband::pint_flows`) and POSTs the events to the controller as
//! telemetry-events v3 batches of their own (docs/protocol/telemetry-events-v3.md).
//!
//! Which frames carry the final digest: every switch mirrors the packets it sends, each
//! copy showing the digest and TTL as that switch left them, so only the copy from the
//! packet's last switch holds the whole path's digest. With shadow-MAC routing that copy is
//! the one whose destination MAC is a host's again (the destination edge rewrites the
//! shadow MAC back on delivery; every earlier hop sends the shadow MAC): frames whose
//! destination MAC starts with the shadow prefix (`--shadow-prefix`, 02:70 by default) are
//! skipped and counted. A pair on one edge switch is never rewritten: its one copy is both
//! first and last hop, and is a sink frame too.
//!
//! Bounded like the collector's other exporters: events go through a fixed-capacity
//! channel (full: dropped, counted) to one sender thread that batches them; a batch is
//! retried with backoff, and dropped (counted) on a 4xx or after `--max-attempts`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use base64::Engine;
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TrySendError};
use serde::Serialize;
use serde_json::{Value, json};

use crate::capture::afpacket::{Handover, PacketRing, RingConfig};
use crate::decode::pint::decode_pint_frame;
use crate::export::event::now_ns;
use crate::export::pint_events::pint_event_json;
use crate::inband::pint_flows::{PintEvent, PintFlows};
use crate::inband::pint_replay::PintReplayArgs;

/// Arguments of `planck-collector pint-live`.
#[derive(clap::Args, Debug)]
pub struct PintLiveArgs {
    /// Interface the mirror frames arrive on.
    #[arg(long)]
    pub iface: String,
    /// Telemetry endpoint of the controller (POST), e.g. http://127.0.0.1:18181/onos/planck/v1/telemetry/events.
    #[arg(long)]
    pub controller: String,
    #[arg(long)]
    pub user: Option<String>,
    #[arg(long)]
    pub password: Option<String>,
    /// Collector id in the batches (a sequence of its own, apart from the main collector's).
    #[arg(long, default_value = "pint")]
    pub collector_id: String,
    /// Low bits of the IPv4 ID that carry the path digest.
    #[arg(long, default_value_t = 8)]
    pub path_bits: u32,
    /// Bits above them carrying a hop-latency code (0: none).
    #[arg(long, default_value_t = 0)]
    pub latency_bits: u32,
    #[arg(long, default_value_t = 2020)]
    pub seed: u64,
    #[arg(long, default_value_t = 64)]
    pub initial_ttl: u8,
    /// Path length the switches' layer probabilities are tuned for.
    #[arg(long, default_value_t = 5)]
    pub path_hops: u32,
    /// Switch ids that may be on a path: ids and ranges, e.g. 1..20.
    #[arg(long, value_delimiter = ',', required = true)]
    pub switches: Vec<String>,
    /// Topology links between switch ids, e.g. 1-5,5-9.
    #[arg(long, value_delimiter = ',')]
    pub links: Vec<String>,
    /// Device ids for switch ids, e.g. 1=of:0000000000000001.
    #[arg(long, value_delimiter = ',')]
    pub device_map: Vec<String>,
    /// Device id of switch n is of:<n as 16 hex digits> (the lab fabric's naming).
    #[arg(long)]
    pub of_device_ids: bool,
    /// First two bytes of shadow MACs: frames sent to one are not from a packet's last switch.
    #[arg(long, default_value = "02:70")]
    pub shadow_prefix: String,
    /// Events per batch at most.
    #[arg(long, default_value_t = 500)]
    pub batch_events: usize,
    /// A batch leaves at most this long after its first event.
    #[arg(long, default_value_t = 5)]
    pub flush_ms: u64,
    /// Events waiting for the sender at most (more are dropped and counted).
    #[arg(long, default_value_t = 8192)]
    pub queue_capacity: usize,
    #[arg(long, default_value_t = 3)]
    pub max_attempts: u32,
    /// Write the counters as JSON to this file on exit (also printed on stderr).
    #[arg(long)]
    pub report: Option<PathBuf>,
}

/// What the live sink saw and did.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PintLiveReport {
    pub frames: u64,
    /// Frames sent to a shadow MAC: mirrored before the packet's last switch.
    pub not_sink: u64,
    /// Sink frames without a PINT digest (not IPv4 TCP/UDP, impossible TTL).
    pub not_pint: u64,
    pub digests: u64,
    pub flows_refused: u64,
    pub flows_expired: u64,
    pub paths_decoded: u64,
    pub path_changes: u64,
    pub hop_count_changes: u64,
    pub events: u64,
    pub unmapped: u64,
    pub events_sent: u64,
    pub batches_sent: u64,
    pub batches_rejected: u64,
    pub send_failures: u64,
    pub dropped: u64,
    pub ring_drops: u64,
}

/// Whether a frame (Ethernet, VLAN stripped or not) was mirrored by a packet's last switch.
pub fn is_sink_frame(frame: &[u8], shadow_prefix: [u8; 2]) -> bool {
    frame.len() >= 6 && frame[0..2] != shadow_prefix
}

fn parse_prefix(s: &str) -> Result<[u8; 2], String> {
    let bad = || format!("--shadow-prefix: {s:?} is not two hex bytes like 02:70");
    let (a, b) = s.split_once(':').ok_or_else(bad)?;
    Ok([u8::from_str_radix(a, 16).map_err(|_| bad())?, u8::from_str_radix(b, 16).map_err(|_| bad())?])
}

#[derive(Default)]
struct SendCounters {
    sent: AtomicU64,
    batches: AtomicU64,
    rejected: AtomicU64,
    failures: AtomicU64,
    dropped: AtomicU64,
}

struct BatchSender {
    url: String,
    collector: String,
    auth: Option<String>,
    agent: ureq::Agent,
    rx: Receiver<Value>,
    batch_events: usize,
    flush: Duration,
    max_attempts: u32,
    counters: Arc<SendCounters>,
    seq: u64,
}

impl BatchSender {
    fn run(mut self) {
        let mut open = true;
        while open {
            let mut events = Vec::new();
            match self.rx.recv_timeout(Duration::from_millis(100)) {
                Ok(v) => events.push(v),
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => break,
            }
            let deadline = Instant::now() + self.flush;
            while events.len() < self.batch_events {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                match self.rx.recv_timeout(left) {
                    Ok(v) => events.push(v),
                    Err(RecvTimeoutError::Timeout) => break,
                    Err(RecvTimeoutError::Disconnected) => {
                        open = false;
                        break;
                    }
                }
            }
            self.deliver(events);
        }
    }

    fn deliver(&mut self, events: Vec<Value>) {
        let n = events.len() as u64;
        let body = json!({"version": 3, "collector": self.collector, "seq": self.seq,
            "sentUs": now_ns() / 1000, "events": events})
        .to_string();
        self.seq += 1;
        let mut backoff = Duration::from_millis(20);
        for attempt in 1..=self.max_attempts {
            let mut req = self.agent.post(&self.url).set("Content-Type", "application/json");
            if let Some(a) = &self.auth {
                req = req.set("Authorization", a);
            }
            match req.send_string(&body) {
                Ok(_) => {
                    self.counters.sent.fetch_add(n, Ordering::Relaxed);
                    self.counters.batches.fetch_add(1, Ordering::Relaxed);
                    return;
                }
                Err(ureq::Error::Status(code, resp)) if (400..500).contains(&code) => {
                    eprintln!("planck-collector pint-live: controller refused a batch ({code}): {}",
                        resp.into_string().unwrap_or_default().trim());
                    self.counters.rejected.fetch_add(1, Ordering::Relaxed);
                    break;
                }
                Err(e) => {
                    self.counters.failures.fetch_add(1, Ordering::Relaxed);
                    if attempt == self.max_attempts {
                        eprintln!("planck-collector pint-live: batch failed {attempt} times ({e}); dropped");
                        break;
                    }
                    std::thread::sleep(backoff);
                    backoff = (backoff * 2).min(Duration::from_millis(1000));
                }
            }
        }
        self.counters.dropped.fetch_add(n, Ordering::Relaxed);
    }
}

/// The frame -> event stage, apart from capture and transport so it can be tested.
pub struct PintSink {
    flows: PintFlows,
    layout: crate::decode::pint::PintFrameLayout,
    devices: HashMap<u32, String>,
    shadow_prefix: [u8; 2],
    events: Vec<PintEvent>,
    pub report: PintLiveReport,
}

impl PintSink {
    pub fn new(args: &PintLiveArgs) -> Result<PintSink, String> {
        let replay = PintReplayArgs {
            pcap: PathBuf::new(),
            path_bits: args.path_bits,
            latency_bits: args.latency_bits,
            seed: args.seed,
            initial_ttl: args.initial_ttl,
            path_hops: args.path_hops,
            switches: args.switches.clone(),
            links: args.links.clone(),
            device_map: args.device_map.clone(),
        };
        let opts = replay.options()?;
        let mut devices = opts.devices;
        if args.of_device_ids {
            for &id in &opts.flows.switch_ids {
                devices.entry(id).or_insert_with(|| format!("of:{id:016x}"));
            }
        }
        Ok(PintSink {
            flows: PintFlows::new(opts.flows)?,
            layout: opts.layout,
            devices,
            shadow_prefix: parse_prefix(&args.shadow_prefix)?,
            events: Vec::new(),
            report: PintLiveReport::default(),
        })
    }

    /// One captured frame; its events' JSON go to `emit`.
    pub fn on_frame(&mut self, frame: &[u8], ts_ns: u64, mut emit: impl FnMut(Value)) {
        self.report.frames += 1;
        if !is_sink_frame(frame, self.shadow_prefix) {
            self.report.not_sink += 1;
            return;
        }
        let Ok(s) = decode_pint_frame(frame, &self.layout) else {
            self.report.not_pint += 1;
            return;
        };
        self.flows.observe(&s, ts_ns, &mut self.events);
        for e in self.events.drain(..) {
            match pint_event_json(&e, &self.devices, ts_ns / 1000) {
                Some(v) => {
                    self.report.events += 1;
                    emit(v);
                }
                None => self.report.unmapped += 1,
            }
        }
    }

    pub fn expire(&mut self, now_ns: u64) {
        self.flows.expire(now_ns);
    }

    fn fill_report(&mut self) {
        let c = &self.flows.counters;
        self.report.digests = c.digests;
        self.report.flows_refused = c.flows_refused;
        self.report.flows_expired = c.flows_expired;
        self.report.paths_decoded = c.paths_decoded;
        self.report.path_changes = c.path_changes;
        self.report.hop_count_changes = c.hop_count_changes;
    }
}

/// Entry point of the subcommand: runs until SIGINT/SIGTERM.
pub fn run_cli(args: &PintLiveArgs) -> Result<(), String> {
    if args.batch_events == 0 || args.queue_capacity == 0 || args.max_attempts == 0 || args.flush_ms == 0 {
        return Err("--batch-events, --queue-capacity, --max-attempts and --flush-ms must be > 0".into());
    }
    let mut sink = PintSink::new(args)?;
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, stop.clone()).map_err(|e| format!("signal handler: {e}"))?;
    }
    let ring_cfg = RingConfig { handover: Handover::Block, block_size: 8192, block_count: 256, block_timeout_ms: 1,
        promiscuous: true };
    let mut ring = PacketRing::open(&args.iface, &ring_cfg, None)?;
    let (tx, rx): (Sender<Value>, Receiver<Value>) = crossbeam_channel::bounded(args.queue_capacity);
    let counters = Arc::new(SendCounters::default());
    let sender = BatchSender {
        url: args.controller.clone(),
        collector: args.collector_id.clone(),
        auth: args.user.as_ref().map(|u| {
            let p = args.password.clone().unwrap_or_default();
            format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{u}:{p}")))
        }),
        agent: ureq::AgentBuilder::new().timeout(Duration::from_millis(2000)).no_delay(true)
            .max_idle_connections(1).build(),
        rx,
        batch_events: args.batch_events,
        flush: Duration::from_millis(args.flush_ms),
        max_attempts: args.max_attempts,
        counters: counters.clone(),
        seq: 0,
    };
    let thread = std::thread::Builder::new().name("pint-export".into()).spawn(move || sender.run())
        .map_err(|e| format!("sender thread: {e}"))?;
    let mut last_expiry = now_ns();
    let mut queue_drops = 0u64;
    while !stop.load(Ordering::Relaxed) {
        ring.poll_once(50, |frames| {
            for (meta, data) in frames {
                sink.on_frame(data, meta.ts_ns, |v| {
                    if let Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) = tx.try_send(v) {
                        queue_drops += 1;
                    }
                });
            }
        })?;
        let now = now_ns();
        if now - last_expiry > 1_000_000_000 {
            sink.expire(now);
            last_expiry = now;
        }
    }
    drop(tx);
    let _ = thread.join();
    sink.fill_report();
    let r = &mut sink.report;
    r.ring_drops = ring.take_stats().1;
    r.events_sent = counters.sent.load(Ordering::Relaxed);
    r.batches_sent = counters.batches.load(Ordering::Relaxed);
    r.batches_rejected = counters.rejected.load(Ordering::Relaxed);
    r.send_failures = counters.failures.load(Ordering::Relaxed);
    r.dropped = counters.dropped.load(Ordering::Relaxed) + queue_drops;
    let text = serde_json::to_string(&sink.report).map_err(|e| e.to_string())?;
    eprintln!("{text}");
    if let Some(p) = &args.report {
        std::fs::write(p, format!("{text}\n")).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use etherparse::PacketBuilder;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: PintLiveArgs,
    }

    fn args() -> PintLiveArgs {
        Cli::parse_from(["x", "--iface", "lo", "--controller", "http://127.0.0.1:1/", "--switches", "1..20",
            "--of-device-ids", "--path-hops", "5", "--seed", "7"])
        .args
    }

    /// A frame whose digest the given switches wrote, as the lab fabric writes it.
    fn frame(dst_mac: [u8; 6], path: &[u32], seq: u32) -> Vec<u8> {
        let cfg = pint::path::PathTracingConfig::hybrid(8, 5, 7);
        let scheme = Arc::new(pint::path::PathScheme::new(cfg).unwrap());
        let (src, dst) = ([10, 0, 0, 1], [10, 0, 0, 9]);
        let id = pint::hash::ipv4_packet_id(7, src, dst, 6, 10001, 5001, u64::from(seq));
        let mut digest = 0u64;
        for (i, &sw) in path.iter().enumerate() {
            digest = pint::path::PathEncoder::new(scheme.clone(), sw).encode(digest, id, i as u32 + 1);
        }
        let mut out = Vec::new();
        let b = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], dst_mac).ipv4(src, dst, 64 - path.len() as u8)
            .tcp(10001, 5001, seq, 65535);
        let mut buf = Vec::new();
        b.write(&mut buf, &[]).unwrap();
        // Set the IPv4 ID (bytes 18..20 of an untagged frame) and fix the header checksum.
        buf[18..20].copy_from_slice(&(digest as u16).to_be_bytes());
        buf[24..26].copy_from_slice(&[0, 0]);
        let mut sum = 0u32;
        for c in buf[14..34].chunks(2) {
            sum += u32::from(u16::from_be_bytes([c[0], c[1]]));
        }
        while sum > 0xffff {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        buf[24..26].copy_from_slice(&(!(sum as u16)).to_be_bytes());
        out.extend_from_slice(&buf);
        out
    }

    #[test]
    fn sink_frames_trace_the_path_and_shadow_frames_are_skipped() {
        let mut sink = PintSink::new(&args()).unwrap();
        let path = [1, 9, 17, 11, 3];
        let mut got = Vec::new();
        for seq in 0..3000u32 {
            // Copies mirrored before the last switch carry a shadow MAC and a partial digest.
            sink.on_frame(&frame([0x02, 0x70, 0, 0, 0, 5], &path[..2], seq * 1460), 1, |v| got.push(v));
            sink.on_frame(&frame([0, 0, 0, 0, 0, 9], &path, seq * 1460), 2, |v| got.push(v));
            if !got.is_empty() {
                break;
            }
        }
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0]["type"], "PINT_PATH");
        let devices: Vec<String> = path.iter().map(|n| format!("of:{n:016x}")).collect();
        assert_eq!(got[0]["path"], json!(devices));
        assert_eq!(got[0]["cause"], "NEW_KEY");
        assert_eq!(sink.report.not_sink, sink.report.frames / 2);
        assert_eq!(sink.report.not_pint, 0);
    }

    #[test]
    fn a_moved_flow_is_traced_again_on_its_new_path() {
        let mut sink = PintSink::new(&args()).unwrap();
        let (old, new) = ([1, 9, 17, 11, 3], [1, 10, 19, 12, 3]);
        let mut got = Vec::new();
        let mut seq = 0u32;
        while got.is_empty() && seq < 3000 {
            sink.on_frame(&frame([0, 0, 0, 0, 0, 9], &old, seq * 1460), 1, |v| got.push(v));
            seq += 1;
        }
        while got.len() < 2 && seq < 6000 {
            sink.on_frame(&frame([0, 0, 0, 0, 0, 9], &new, seq * 1460), 1, |v| got.push(v));
            seq += 1;
        }
        assert_eq!(got.len(), 2);
        assert_eq!(got[1]["cause"], "PATH_CHANGE");
        assert_eq!(got[1]["path"][1], json!(format!("of:{:016x}", 10)));
    }

    #[test]
    fn bad_arguments_are_rejected() {
        let mut a = args();
        a.shadow_prefix = "0270".into();
        assert!(PintSink::new(&a).err().unwrap().contains("--shadow-prefix"));
        let mut a = args();
        a.path_bits = 17;
        assert!(PintSink::new(&a).is_err());
    }
}
