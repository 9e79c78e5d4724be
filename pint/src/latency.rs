//! Dynamic per-flow aggregation: per-hop latency quantiles.
//!
//! Each packet carries one hop's latency: hop i overwrites the field with
//! probability 1/i (reservoir sampling), so the surviving value is from a hop chosen
//! uniformly and the sink knows which (it replays the same hash). The latency is
//! compressed into the bit budget; the sink feeds the codes of each (flow, hop) into
//! a KLL sketch and answers quantiles from it.

use datasketches::common::SearchCriteria;
use datasketches::kll::KllSketch;

use crate::compress::ValueCodec;
use crate::error::{ConfigError, invalid};
use crate::hash::{hop_variate, instance_seed, packet_key, reservoir_writer, reservoir_writes};
use crate::path::MAX_HOPS;

const WRITER_STREAM: u64 = 0x6c61_7465_6e63_7977;
const COIN_STREAM: u64 = 0x6c61_7465_6e63_7963;

/// Shared by the switches and the sink.
#[derive(Debug, Clone, Copy)]
pub struct LatencyConfig {
    pub codec: ValueCodec,
    pub seed: u64,
}

impl LatencyConfig {
    fn key(&self, packet_id: u64) -> u64 {
        packet_key(instance_seed(self.seed, 0x1a7e), packet_id)
    }

    fn mask(&self) -> u64 {
        (1u64 << self.codec.bits()) - 1
    }
}

/// The per-switch stage.
#[derive(Debug, Clone, Copy)]
pub struct LatencyEncoder {
    config: LatencyConfig,
}

impl LatencyEncoder {
    pub fn new(config: LatencyConfig) -> Self {
        LatencyEncoder { config }
    }

    /// Digest after the switch at 1-based `hop` saw `latency` (any unit the
    /// codec's range is in). Bits above the code are left alone.
    #[inline]
    pub fn encode(&self, digest: u64, packet_id: u64, hop: u32, latency: f64) -> u64 {
        let key = self.config.key(packet_id);
        if !reservoir_writes(key, hop, WRITER_STREAM) {
            return digest;
        }
        let code = self.config.codec.encode(latency, hop_variate(key, hop, COIN_STREAM));
        (digest & !self.config.mask()) | u64::from(code)
    }
}

/// The sink's recording for one flow of `hops` hops: one KLL sketch per hop.
#[derive(Debug, Clone)]
pub struct LatencyRecorder {
    config: LatencyConfig,
    sketches: Vec<KllSketch<u16>>,
}

impl LatencyRecorder {
    /// `kll_k`: the KLL accuracy parameter (8..=65535; 200 gives about 1.65 % rank error).
    pub fn new(config: LatencyConfig, hops: u32, kll_k: u16) -> Result<Self, ConfigError> {
        if hops == 0 || hops > MAX_HOPS {
            return Err(invalid(format!("path length {hops} not in 1..={MAX_HOPS}")));
        }
        let mut sketches = Vec::with_capacity(hops as usize);
        for _ in 0..hops {
            sketches.push(KllSketch::new(kll_k).map_err(|e| invalid(format!("kll k: {e}")))?);
        }
        Ok(LatencyRecorder { config, sketches })
    }

    pub fn hops(&self) -> u32 {
        self.sketches.len() as u32
    }

    /// Which hop's latency a packet carries on this flow's path.
    pub fn writer(&self, packet_id: u64) -> u32 {
        reservoir_writer(self.config.key(packet_id), self.hops(), WRITER_STREAM)
    }

    /// Record one packet; returns the hop whose latency it carried.
    pub fn record(&mut self, packet_id: u64, digest: u64) -> u32 {
        let hop = self.writer(packet_id);
        let code = (digest & self.config.mask()) as u16;
        self.sketches[(hop - 1) as usize].update(code);
        hop
    }

    /// Samples recorded for a hop (1-based).
    pub fn samples(&self, hop: u32) -> u64 {
        self.sketch(hop).map_or(0, KllSketch::n)
    }

    /// Estimated `rank`-quantile of the hop's latency, None without samples.
    pub fn quantile(&self, hop: u32, rank: f64) -> Option<f64> {
        let code = self.sketch(hop)?.quantile(rank.clamp(0.0, 1.0), SearchCriteria::Inclusive).ok()??;
        Some(self.config.codec.decode(u32::from(code)))
    }

    /// Bytes held for one (flow, hop): retained codes plus the sketch's fixed part.
    pub fn memory_bytes(&self, hop: u32) -> usize {
        self.sketch(hop).map_or(0, |s| {
            std::mem::size_of::<KllSketch<u16>>() + s.num_retained() * std::mem::size_of::<u16>()
        })
    }

    fn sketch(&self, hop: u32) -> Option<&KllSketch<u16>> {
        self.sketches.get(hop.checked_sub(1)? as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix64;

    #[test]
    fn every_hop_gets_its_own_latencies() {
        let cfg = LatencyConfig { codec: ValueCodec::multiplicative(8, 100.0, 1e6).unwrap(), seed: 9 };
        let enc = LatencyEncoder::new(cfg);
        let hops = 6;
        let mut rec = LatencyRecorder::new(cfg, hops, 200).unwrap();
        // Hop h always sees latency 1000 * h: each hop's median must come back as that.
        for p in 0..30_000u64 {
            let d = (1..=hops).fold(0u64, |d, h| enc.encode(d, p, h, 1000.0 * f64::from(h)));
            rec.record(p, d);
        }
        for h in 1..=hops {
            let n = rec.samples(h);
            assert!((4000..6000).contains(&n), "hop {h}: {n} samples");
            let m = rec.quantile(h, 0.5).unwrap();
            let want = 1000.0 * f64::from(h);
            assert!((m / want - 1.0).abs() <= cfg.codec.error_bound() + 1e-9, "hop {h}: {m} vs {want}");
        }
    }

    #[test]
    fn quantiles_follow_the_distribution() {
        let cfg = LatencyConfig { codec: ValueCodec::multiplicative(8, 1.0, 1e5).unwrap(), seed: 1 };
        let enc = LatencyEncoder::new(cfg);
        let mut rec = LatencyRecorder::new(cfg, 1, 200).unwrap();
        let mut exact = Vec::new();
        for p in 0..50_000u64 {
            let u = (mix64(p) >> 11) as f64 / (1u64 << 53) as f64;
            let v = -1000.0 * (1.0 - u).ln(); // exponential, mean 1000
            exact.push(v);
            rec.record(p, enc.encode(0, p, 1, v));
        }
        exact.sort_by(f64::total_cmp);
        // KLL bounds rank error (about 1.65 % at k = 200), the codec adds a 4.6 % value step.
        for q in [0.5, 0.9, 0.99] {
            let est = rec.quantile(1, q).unwrap();
            let lo = exact.partition_point(|&v| v < est / 1.05) as f64 / exact.len() as f64;
            let hi = exact.partition_point(|&v| v <= est * 1.05) as f64 / exact.len() as f64;
            assert!(lo - 0.025 <= q && q <= hi + 0.025, "q{q}: estimate {est} has rank {lo}..{hi}");
        }
        assert!(rec.memory_bytes(1) < 4096, "{}", rec.memory_bytes(1));
    }
}
