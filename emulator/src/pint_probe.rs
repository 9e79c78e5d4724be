//! Measuring PINT's latency query on the emulated fabric: every switch records the
//! exact latency it adds to a tracked flow's packets, the last switch of the path acts
//! as the PINT sink (one KLL sketch per hop of the flow, fed with the codes packets
//! carry), and at fixed packet counts of a flow the sink's per-hop median and p99 are
//! compared with the exact ones. Bounded: `max_flows` flows, exact values kept only up
//! to the largest checkpoint per (flow, hop).

use std::collections::HashMap;

use pint::latency::{LatencyConfig, LatencyRecorder};
use serde::Serialize;

/// Packets of a flow (seen by the sink) at which estimates are compared.
pub const CHECKPOINTS: [u64; 5] = [100, 500, 2000, 5000, 10_000];
const KLL_K: u16 = 200;

/// One comparison: a (flow, hop) after `packets` packets of the flow.
#[derive(Debug, Clone, Serialize)]
pub struct LatencyRow {
    pub bits: u32,
    pub flow: u32,
    pub hop: u32,
    pub hops: u32,
    pub packets: u64,
    pub samples: u64,
    pub exact_p50_ns: f64,
    pub est_p50_ns: f64,
    pub exact_p99_ns: f64,
    pub est_p99_ns: f64,
    pub p50_rel_err: f64,
    pub p99_rel_err: f64,
    pub sketch_bytes: usize,
}

#[derive(Debug)]
struct ProbeFlow {
    exact: Vec<Vec<f64>>,
    recorder: Option<LatencyRecorder>,
    sunk: u64,
}

#[derive(Debug)]
pub struct LatencyProbe {
    config: LatencyConfig,
    max_flows: usize,
    flows: HashMap<u32, ProbeFlow>,
    pub rows: Vec<LatencyRow>,
    /// Flows not tracked because `max_flows` were.
    pub untracked: u64,
}

fn quantile(sorted: &[f64], rank: f64) -> f64 {
    let i = ((rank * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

impl LatencyProbe {
    pub fn new(config: LatencyConfig, max_flows: usize) -> Self {
        LatencyProbe { config, max_flows, flows: HashMap::new(), rows: Vec::new(), untracked: 0 }
    }

    /// A switch at `hop` added `ns` to a packet of `flow`.
    pub fn exact(&mut self, flow: u32, hop: u32, ns: f64) {
        if !self.flows.contains_key(&flow) {
            if self.flows.len() >= self.max_flows {
                self.untracked += 1;
                return;
            }
            self.flows.insert(flow, ProbeFlow { exact: Vec::new(), recorder: None, sunk: 0 });
        }
        let f = self.flows.get_mut(&flow).expect("tracked");
        let h = hop as usize - 1;
        if f.exact.len() <= h {
            f.exact.resize_with(h + 1, Vec::new);
        }
        if (f.exact[h].len() as u64) < CHECKPOINTS[CHECKPOINTS.len() - 1] * 2 {
            f.exact[h].push(ns);
        }
    }

    /// The sink (the flow's last switch, at `hops`) received a packet whose latency
    /// field is `code`.
    pub fn sink(&mut self, flow: u32, hops: u32, packet_id: u64, code: u64) {
        let Some(f) = self.flows.get_mut(&flow) else { return };
        if f.recorder.as_ref().is_none_or(|r| r.hops() != hops) {
            f.recorder = LatencyRecorder::new(self.config, hops, KLL_K).ok();
        }
        let Some(r) = f.recorder.as_mut() else { return };
        r.record(packet_id, code);
        f.sunk += 1;
        if !CHECKPOINTS.contains(&f.sunk) {
            return;
        }
        for hop in 1..=hops {
            let (Some(e50), Some(e99)) = (r.quantile(hop, 0.5), r.quantile(hop, 0.99)) else { continue };
            let Some(ex) = f.exact.get(hop as usize - 1).filter(|v| !v.is_empty()) else { continue };
            let mut sorted = ex.clone();
            sorted.sort_by(f64::total_cmp);
            let (x50, x99) = (quantile(&sorted, 0.5), quantile(&sorted, 0.99));
            self.rows.push(LatencyRow {
                bits: self.config.codec.bits(),
                flow,
                hop,
                hops,
                packets: f.sunk,
                samples: r.samples(hop),
                exact_p50_ns: x50,
                est_p50_ns: e50,
                exact_p99_ns: x99,
                est_p99_ns: e99,
                p50_rel_err: (e50 / x50 - 1.0).abs(),
                p99_rel_err: (e99 / x99 - 1.0).abs(),
                sketch_bytes: r.memory_bytes(hop),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pint::compress::ValueCodec;
    use pint::latency::LatencyEncoder;

    #[test]
    fn compares_sink_estimates_with_exact_values_at_checkpoints() {
        let cfg = LatencyConfig { codec: ValueCodec::multiplicative(8, 100.0, 1e6).unwrap(), seed: 3 };
        let enc = LatencyEncoder::new(cfg);
        let mut p = LatencyProbe::new(cfg, 1);
        for pid in 0..2000u64 {
            let mut code = 0;
            for hop in 1..=3u32 {
                let ns = 1000.0 * f64::from(hop) + (pid % 100) as f64 * 10.0;
                p.exact(5, hop, ns);
                p.exact(6, hop, ns); // beyond max_flows: not tracked
                code = enc.encode(code, pid, hop, ns);
            }
            p.sink(5, 3, pid, code);
        }
        assert!(p.untracked > 0);
        let at2000: Vec<_> = p.rows.iter().filter(|r| r.packets == 2000).collect();
        assert_eq!(at2000.len(), 3);
        for r in at2000 {
            assert!(r.p50_rel_err < 0.05, "{r:?}");
            assert!(r.p99_rel_err < 0.08, "{r:?}");
            assert!(r.samples > 400);
        }
        assert_eq!(p.rows.iter().map(|r| r.packets).max(), Some(2000));
    }
}
