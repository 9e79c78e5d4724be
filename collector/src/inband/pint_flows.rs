//! Per-flow PINT state at the sink: the path tracer (`pint::path::PathDecoder`) and
//! the per-hop latency sketches (`pint::latency::LatencyRecorder`) of every flow whose
//! frames carry PINT digests, and the events they yield (telemetry-events v3,
//! docs/protocol/telemetry-events-v3.md):
//!
//! - `PINT_PATH` once a flow's path is decoded (cause `NEW_KEY`), and again after the
//!   path changed and was traced anew (`PATH_CHANGE`): digests that contradict a
//!   decoded path reset the tracer;
//! - `PINT_HOP_LATENCY` per (flow, hop): median and p99 of the hop's latency from
//!   the KLL sketch, first after `min_samples` samples, then every time the hop's
//!   sample count doubles, so a long flow reports O(log n) times per hop.
//!
//! The IPv4 ID carries both queries: the low `path_bits` bits the path digest, the
//! next `latency_bits` bits the latency code. The table is bounded (`max_flows`; new
//! flows beyond it are refused and counted) and idle flows expire (counted).

use std::collections::HashMap;
use std::sync::Arc;

use pint::compress::ValueCodec;
use pint::latency::{LatencyConfig, LatencyRecorder};
use pint::path::{DecoderLimits, PathDecoder, PathScheme, PathTracingConfig, TraceStatus, Universe};

use crate::decode::FiveTuple;
use crate::decode::pint::PintDigestSample;

type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// What the sink needs to agree with the switches, and its bounds.
#[derive(Clone, Debug)]
pub struct PintFlowsConfig {
    /// Path tracing as the switches run it (budget = path bits of the ID).
    pub path: PathTracingConfig,
    /// Latency codes in the ID above the path digest; None: no latency query.
    pub latency: Option<LatencyConfig>,
    /// Every switch id that may be on a path, and the topology's links if known.
    pub switch_ids: Vec<u32>,
    pub links: Vec<(u32, u32)>,
    pub max_flows: usize,
    pub idle_timeout_ns: u64,
    /// Samples of a hop before its first latency event.
    pub min_samples: u64,
    /// KLL accuracy parameter per (flow, hop).
    pub kll_k: u16,
}

impl PintFlowsConfig {
    /// 8-bit path digests and 8-bit latency codes over [100 ns, 1 ms] in one 16-bit ID.
    pub fn sixteen_bits(seed: u64, path_hops: u32, switch_ids: Vec<u32>) -> Self {
        PintFlowsConfig {
            path: PathTracingConfig::hybrid(8, path_hops, seed),
            latency: Some(LatencyConfig {
                codec: ValueCodec::multiplicative(8, 100.0, 1_000_000.0).expect("valid codec"),
                seed,
            }),
            switch_ids,
            links: Vec::new(),
            max_flows: 100_000,
            idle_timeout_ns: 10_000_000_000,
            min_samples: 64,
            kll_k: 200,
        }
    }
}

/// Why a path event was sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathCause {
    NewKey,
    PathChange,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PintEvent {
    Path {
        flow: FiveTuple,
        /// Switch ids, first hop first.
        switches: Vec<u32>,
        /// Packets the trace took.
        packets: u64,
        cause: PathCause,
    },
    HopLatency {
        flow: FiveTuple,
        /// 1-based hop.
        hop: u32,
        /// The hop's switch, once the path is decoded.
        switch: Option<u32>,
        samples: u64,
        p50_ns: f64,
        p99_ns: f64,
    },
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PintCounters {
    pub digests: u64,
    pub flows_refused: u64,
    pub flows_expired: u64,
    pub paths_decoded: u64,
    pub path_changes: u64,
    /// A flow's packets arrived with another hop count than its tracer's: reset.
    pub hop_count_changes: u64,
}

struct FlowEntry {
    tracer: PathDecoder,
    latency: Option<LatencyRecorder>,
    reported: Option<Vec<u32>>,
    changed: bool,
    /// Per hop, the sample count that triggers the next latency event.
    next_report: Vec<u64>,
    last_ns: u64,
}

pub struct PintFlows {
    cfg: PintFlowsConfig,
    scheme: Arc<PathScheme>,
    universe: Arc<Universe>,
    flows: Map<FiveTuple, FlowEntry>,
    pub counters: PintCounters,
}

impl PintFlows {
    pub fn new(cfg: PintFlowsConfig) -> Result<Self, String> {
        let scheme = Arc::new(PathScheme::new(cfg.path.clone()).map_err(|e| format!("pint path: {}", e.0))?);
        let latency_bits = cfg.latency.map_or(0, |l| l.codec.bits());
        if cfg.path.budget_bits + latency_bits > 16 {
            return Err(format!(
                "pint: {} path bits and {latency_bits} latency bits do not fit the 16-bit IPv4 ID",
                cfg.path.budget_bits
            ));
        }
        let universe = if cfg.links.is_empty() {
            Universe::new(&scheme, cfg.switch_ids.clone())
        } else {
            Universe::with_links(&scheme, cfg.switch_ids.clone(), &cfg.links)
        }
        .map_err(|e| format!("pint switches: {}", e.0))?;
        if cfg.max_flows == 0 {
            return Err("pint: max_flows must be >= 1".into());
        }
        Ok(PintFlows { cfg, scheme, universe: Arc::new(universe), flows: Map::default(), counters: PintCounters::default() })
    }

    pub fn len(&self) -> usize {
        self.flows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.flows.is_empty()
    }

    /// Record one frame's digests; events go to `out`.
    pub fn observe(&mut self, s: &PintDigestSample, now_ns: u64, out: &mut Vec<PintEvent>) {
        self.counters.digests += 1;
        let path_bits = self.cfg.path.budget_bits;
        let path_digest = u64::from(s.ident) & ((1u64 << path_bits) - 1);
        if !self.flows.contains_key(&s.tuple) {
            if self.flows.len() >= self.cfg.max_flows {
                self.counters.flows_refused += 1;
                return;
            }
            let Some(e) = self.entry(s.hops) else { return };
            self.flows.insert(s.tuple, e);
        }
        let Some(e) = self.flows.get_mut(&s.tuple) else { return };
        if e.tracer.hops() != s.hops {
            // Another hop count: the flow moved to a path of another length.
            self.counters.hop_count_changes += 1;
            let changed = e.reported.is_some();
            let Some(fresh) = Self::make_entry(&self.cfg, &self.scheme, &self.universe, s.hops) else { return };
            *e = fresh;
            e.changed = changed;
        }
        e.last_ns = now_ns;
        match e.tracer.observe(s.packet_id, path_digest) {
            TraceStatus::Decoded if e.reported.is_none() => {
                let switches = e.tracer.path().expect("decoded path");
                self.counters.paths_decoded += 1;
                out.push(PintEvent::Path {
                    flow: s.tuple,
                    switches: switches.clone(),
                    packets: e.tracer.packets(),
                    cause: if e.changed { PathCause::PathChange } else { PathCause::NewKey },
                });
                e.reported = Some(switches);
            }
            TraceStatus::Inconsistent => {
                self.counters.path_changes += 1;
                e.tracer.reset();
                e.changed = e.changed || e.reported.is_some();
                e.reported = None;
                // This packet belongs to the new path: it starts the new trace.
                e.tracer.observe(s.packet_id, path_digest);
            }
            _ => {}
        }
        if let Some(lat) = e.latency.as_mut() {
            let code = u64::from(s.ident) >> path_bits;
            let hop = lat.record(s.packet_id, code);
            let n = lat.samples(hop);
            let i = hop as usize - 1;
            if n >= e.next_report[i] {
                e.next_report[i] = n * 2;
                if let (Some(p50), Some(p99)) = (lat.quantile(hop, 0.5), lat.quantile(hop, 0.99)) {
                    out.push(PintEvent::HopLatency {
                        flow: s.tuple,
                        hop,
                        switch: e.tracer.hop_value(hop),
                        samples: n,
                        p50_ns: p50,
                        p99_ns: p99,
                    });
                }
            }
        }
    }

    /// Drop flows idle for longer than the timeout; returns how many.
    pub fn expire(&mut self, now_ns: u64) -> usize {
        let before = self.flows.len();
        let t = self.cfg.idle_timeout_ns;
        self.flows.retain(|_, e| now_ns.saturating_sub(e.last_ns) <= t);
        let gone = before - self.flows.len();
        self.counters.flows_expired += gone as u64;
        gone
    }

    /// Sketch bytes of one (flow, hop), if the flow is known.
    pub fn sketch_bytes(&self, flow: &FiveTuple, hop: u32) -> Option<usize> {
        Some(self.flows.get(flow)?.latency.as_ref()?.memory_bytes(hop))
    }

    fn entry(&self, hops: u32) -> Option<FlowEntry> {
        Self::make_entry(&self.cfg, &self.scheme, &self.universe, hops)
    }

    fn make_entry(cfg: &PintFlowsConfig, scheme: &Arc<PathScheme>, universe: &Arc<Universe>, hops: u32) -> Option<FlowEntry> {
        let tracer = PathDecoder::new(scheme.clone(), universe.clone(), hops, DecoderLimits::default()).ok()?;
        let latency = match cfg.latency {
            Some(l) => Some(LatencyRecorder::new(l, hops, cfg.kll_k).ok()?),
            None => None,
        };
        Some(FlowEntry {
            tracer,
            latency,
            reported: None,
            changed: false,
            next_report: vec![cfg.min_samples.max(1); hops as usize],
            last_ns: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pint::latency::LatencyEncoder;
    use pint::path::{PathEncoder, encode_path};
    use std::net::IpAddr;

    fn flow(sport: u16) -> FiveTuple {
        FiveTuple {
            src: "10.0.0.1".parse::<IpAddr>().unwrap(),
            dst: "10.0.0.2".parse::<IpAddr>().unwrap(),
            proto: 6,
            sport,
            dport: 80,
        }
    }

    /// Frames of `tuple` over `path`, hop h seeing latency `lat(h)` ns.
    struct Sender {
        cfg: PintFlowsConfig,
        path: Vec<PathEncoder>,
        latency: LatencyEncoder,
    }

    impl Sender {
        fn new(cfg: &PintFlowsConfig, switches: &[u32]) -> Self {
            let scheme = Arc::new(PathScheme::new(cfg.path.clone()).unwrap());
            Sender {
                cfg: cfg.clone(),
                path: switches.iter().map(|&s| PathEncoder::new(scheme.clone(), s)).collect(),
                latency: LatencyEncoder::new(cfg.latency.unwrap()),
            }
        }
        fn frame(&self, tuple: FiveTuple, pid: u64, lat: impl Fn(u32) -> f64) -> PintDigestSample {
            let bits = self.cfg.path.budget_bits;
            let path = encode_path(&self.path, pid, 0);
            let mut code = 0;
            for h in 1..=self.path.len() as u32 {
                code = self.latency.encode(code, pid, h, lat(h));
            }
            PintDigestSample {
                tuple,
                hops: self.path.len() as u32,
                digest: path,
                packet_id: pid,
                ident: (path | (code << bits)) as u16,
            }
        }
    }

    fn ids() -> Vec<u32> {
        (1..=40).collect()
    }

    #[test]
    fn reports_the_traced_path_once_and_hop_latencies() {
        let cfg = PintFlowsConfig::sixteen_bits(9, 5, ids());
        let mut flows = PintFlows::new(cfg.clone()).unwrap();
        let path = [3u32, 17, 22, 8, 30];
        let tx = Sender::new(&cfg, &path);
        let mut out = Vec::new();
        for p in 0..20_000u64 {
            flows.observe(&tx.frame(flow(1), p * 7919, |h| 1000.0 * f64::from(h)), p, &mut out);
        }
        let paths: Vec<_> = out.iter().filter(|e| matches!(e, PintEvent::Path { .. })).collect();
        assert_eq!(paths.len(), 1, "one PINT_PATH per decoded path");
        match paths[0] {
            PintEvent::Path { switches, cause, .. } => {
                assert_eq!(switches, &path.to_vec());
                assert_eq!(*cause, PathCause::NewKey);
            }
            _ => unreachable!(),
        }
        // Every hop reported, at doubling sample counts, with medians near h us.
        for hop in 1..=5u32 {
            let reports: Vec<_> = out
                .iter()
                .filter_map(|e| match e {
                    PintEvent::HopLatency { hop: h, samples, p50_ns, switch, .. } if *h == hop => {
                        Some((*samples, *p50_ns, *switch))
                    }
                    _ => None,
                })
                .collect();
            assert!(reports.len() >= 3 && reports.len() <= 8, "hop {hop}: {} reports", reports.len());
            let (n, p50, sw) = *reports.last().unwrap();
            assert!(n >= 1000);
            assert!((p50 / (1000.0 * f64::from(hop)) - 1.0).abs() < 0.06, "hop {hop} median {p50}");
            assert_eq!(sw, Some(path[hop as usize - 1]));
        }
        assert!(flows.sketch_bytes(&flow(1), 1).unwrap() < 4096);
    }

    #[test]
    fn a_moved_flow_is_traced_again_as_a_path_change() {
        let cfg = PintFlowsConfig::sixteen_bits(4, 5, ids());
        let mut flows = PintFlows::new(cfg.clone()).unwrap();
        let (old, new) = ([1u32, 2, 3, 4, 5], [1u32, 2, 9, 4, 5]);
        let (a, b) = (Sender::new(&cfg, &old), Sender::new(&cfg, &new));
        let mut out = Vec::new();
        for p in 0..2000u64 {
            flows.observe(&a.frame(flow(2), p, |_| 500.0), p, &mut out);
        }
        for p in 2000..6000u64 {
            flows.observe(&b.frame(flow(2), p, |_| 500.0), p, &mut out);
        }
        let paths: Vec<_> = out
            .iter()
            .filter_map(|e| match e {
                PintEvent::Path { switches, cause, .. } => Some((switches.clone(), *cause)),
                _ => None,
            })
            .collect();
        assert_eq!(paths, vec![(old.to_vec(), PathCause::NewKey), (new.to_vec(), PathCause::PathChange)]);
        assert!(flows.counters.path_changes >= 1);
    }

    #[test]
    fn table_is_bounded_and_idle_flows_expire() {
        let mut cfg = PintFlowsConfig::sixteen_bits(4, 3, ids());
        cfg.max_flows = 2;
        cfg.idle_timeout_ns = 100;
        let mut flows = PintFlows::new(cfg.clone()).unwrap();
        let tx = Sender::new(&cfg, &[1, 2, 3]);
        let mut out = Vec::new();
        for sport in 0..5 {
            flows.observe(&tx.frame(flow(sport), 1, |_| 500.0), 10, &mut out);
        }
        assert_eq!(flows.len(), 2);
        assert_eq!(flows.counters.flows_refused, 3);
        assert_eq!(flows.expire(50), 0);
        assert_eq!(flows.expire(200), 2);
        assert_eq!(flows.counters.flows_expired, 2);
    }

    #[test]
    fn rejects_layouts_that_do_not_fit_the_id() {
        let mut cfg = PintFlowsConfig::sixteen_bits(4, 3, ids());
        cfg.path = PathTracingConfig::hybrid(16, 3, 4);
        assert!(PintFlows::new(cfg).err().unwrap().contains("16-bit"));
        let cfg = PintFlowsConfig::sixteen_bits(4, 3, vec![]);
        assert!(PintFlows::new(cfg).is_err());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 48, ..Default::default() })]

        /// Any path over the switch ids, any seed: exactly one PINT_PATH, with the true
        /// switches, and every hop-latency event names the hop's true switch once decoded.
        #[test]
        fn every_path_is_reported_once_and_right(
            picks in proptest::collection::vec(0usize..40, 1..=8),
            seed in proptest::prelude::any::<u64>(),
        ) {
            let mut path: Vec<u32> = Vec::new();
            for p in picks {
                let mut v = p as u32 + 1;
                while path.contains(&v) {
                    v = v % 40 + 1;
                }
                path.push(v);
            }
            let cfg = PintFlowsConfig::sixteen_bits(seed, path.len() as u32, ids());
            let mut flows = PintFlows::new(cfg.clone()).unwrap();
            let tx = Sender::new(&cfg, &path);
            let mut out = Vec::new();
            for p in 0..4000u64 {
                flows.observe(&tx.frame(flow(9), seed.wrapping_add(p.wrapping_mul(0x9e37_79b9_7f4a_7c15)), |_| 1000.0), p, &mut out);
            }
            let paths: Vec<Vec<u32>> = out.iter().filter_map(|e| match e {
                PintEvent::Path { switches, .. } => Some(switches.clone()),
                _ => None,
            }).collect();
            proptest::prop_assert_eq!(paths, vec![path.clone()]);
            for e in &out {
                if let PintEvent::HopLatency { hop, switch: Some(s), .. } = e {
                    proptest::prop_assert_eq!(*s, path[*hop as usize - 1]);
                }
            }
            proptest::prop_assert_eq!(flows.counters.path_changes, 0);
        }
    }
}
