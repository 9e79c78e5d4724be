//! The path-tracing scheme both ends agree on: bit budget, instances, layers,
//! how hops decide to act. Switch encoders and the sink's decoder are built
//! from the same `PathScheme`, so their hash decisions are identical.

use crate::error::{ConfigError, invalid};
use crate::hash::{
    GOLDEN, hop_variate, instance_seed, mix64, packet_key, probability_threshold, reservoir_writer,
    reservoir_writes,
};

/// Longest path the scheme traces: the set of hops acting on a packet is a 64-bit mask.
pub const MAX_HOPS: u32 = 64;

const LAYER_STREAM: u64 = 0x6c61_7965_7273_0001;
const BASELINE_STREAM: u64 = 0x6261_7365_6c69_6e65;
const XOR_STREAM: u64 = 0x786f_725f_6c61_7972;

/// How a hop in an XOR layer decides whether it acts on a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HopSampling {
    /// One hash per (packet, hop) compared with p: the decoder evaluates one hash per hop.
    PerHopHash,
    /// Near-linear decoding: the bitwise AND of r pseudo-random 64-bit words
    /// (derived from the packet id) has each bit set with probability 2^-r; hop i
    /// acts iff bit i-1 is set. The decoder learns the whole acting set from r
    /// hashes instead of one per hop. Layer probabilities must be powers of two.
    BitVector,
}

/// One XOR layer: the share of packets it gets and the per-hop XOR probability.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct XorLayer {
    pub share: f64,
    pub probability: f64,
}

/// Which fraction of packets each layer gets. Baseline packets carry the digest of
/// one hop chosen uniformly (reservoir sampling); XOR packets carry the XOR of the
/// digests of the hops that chose to act.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerPlan {
    pub baseline_share: f64,
    pub xor_layers: Vec<XorLayer>,
}

impl LayerPlan {
    /// Baseline only (the paper's first scheme).
    pub fn baseline() -> Self {
        LayerPlan { baseline_share: 1.0, xor_layers: Vec::new() }
    }

    /// The hybrid scheme for paths of about `expected_hops` = d hops: a small
    /// baseline layer (10 % of packets; every hop equally likely to be the writer)
    /// and an XOR layer (90 %) in which each hop acts with probability about 3/d,
    /// rounded to a power of two so the near-linear decoder applies. With the
    /// decoder's joint inference, packets with two or three unknown hops carry as
    /// much as baseline packets, so the XOR layer takes most packets. Chosen by the
    /// sweep recorded in docs/pint.md.
    pub fn hybrid(expected_hops: u32) -> Self {
        let d = f64::from(expected_hops.max(2));
        let r = (d / 3.0).log2().round().clamp(1.0, 16.0) as i32;
        LayerPlan {
            baseline_share: 0.1,
            xor_layers: vec![XorLayer { share: 0.9, probability: 0.5f64.powi(r) }],
        }
    }
}

/// Largest power of two (2^-r, r >= 1) not above p.
pub fn pow2_at_most(p: f64) -> f64 {
    let mut q = 0.5;
    while q > p && q > 1.0 / 65536.0 {
        q /= 2.0;
    }
    q
}

/// Configuration of path tracing, identical at the switches and at the sink.
#[derive(Debug, Clone, PartialEq)]
pub struct PathTracingConfig {
    /// Bits of the packet the digest may use (all instances together), 1..=32.
    pub budget_bits: u32,
    /// Independent instantiations sharing the budget; each gets budget/instances bits.
    pub instances: u32,
    /// Global seed of every hash.
    pub seed: u64,
    pub layers: LayerPlan,
    pub sampling: HopSampling,
}

impl PathTracingConfig {
    /// Hybrid scheme, one instance per 8 bits of budget (so 16 bits run two
    /// independent 8-bit instances), near-linear decoding.
    pub fn hybrid(budget_bits: u32, expected_hops: u32, seed: u64) -> Self {
        let instances = if budget_bits >= 16 && budget_bits % 8 == 0 { budget_bits / 8 } else { 1 };
        PathTracingConfig {
            budget_bits,
            instances,
            seed,
            layers: LayerPlan::hybrid(expected_hops),
            sampling: HopSampling::BitVector,
        }
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(1..=32).contains(&self.budget_bits) {
            return Err(invalid(format!("budget_bits {} not in 1..=32", self.budget_bits)));
        }
        if self.instances == 0 || self.budget_bits % self.instances != 0 {
            return Err(invalid(format!(
                "instances {} must divide budget_bits {}",
                self.instances, self.budget_bits
            )));
        }
        let l = &self.layers;
        let mut total = l.baseline_share;
        if !(0.0..=1.0).contains(&l.baseline_share) {
            return Err(invalid("baseline_share not in [0, 1]"));
        }
        for (i, x) in l.xor_layers.iter().enumerate() {
            if !(0.0..=1.0).contains(&x.share) || !(x.probability > 0.0 && x.probability <= 1.0) {
                return Err(invalid(format!("xor layer {i}: share or probability out of range")));
            }
            if self.sampling == HopSampling::BitVector && pow2_rounds(x.probability).is_none() {
                return Err(invalid(format!(
                    "xor layer {i}: probability {} is not 2^-r (1<=r<=16), which bit-vector sampling needs",
                    x.probability
                )));
            }
            total += x.share;
        }
        if (total - 1.0).abs() > 1e-9 {
            return Err(invalid(format!("layer shares sum to {total}, not 1")));
        }
        Ok(())
    }
}

fn pow2_rounds(p: f64) -> Option<u32> {
    (1..=16).find(|&r| (p - 0.5f64.powi(r as i32)).abs() < 1e-12)
}

/// What one instance of the scheme did to a packet, as the sink reconstructs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Baseline layer: the digest is the value digest of exactly this hop (1-based).
    Wrote(u32),
    /// XOR layer: the digest is the XOR of the value digests of the hops in this mask
    /// (bit i-1 = hop i); an empty mask leaves the digest zero.
    Xored(u64),
}

#[derive(Debug, Clone)]
pub(crate) struct InstanceScheme {
    pub seed: u64,
    /// Cumulative layer thresholds: layer 0 is baseline, 1.. are XOR layers.
    layer_bounds: Vec<u64>,
    xor_thresholds: Vec<u64>,
    xor_rounds: Vec<u32>,
}

/// The compiled scheme: what encoders and decoders evaluate per packet.
#[derive(Debug, Clone)]
pub struct PathScheme {
    pub(crate) config: PathTracingConfig,
    pub(crate) bits_per_instance: u32,
    pub(crate) instances: Vec<InstanceScheme>,
}

impl PathScheme {
    pub fn new(config: PathTracingConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        let bits_per_instance = config.budget_bits / config.instances;
        let mut instances = Vec::new();
        for i in 0..config.instances {
            let mut layer_bounds = Vec::new();
            let mut acc = config.layers.baseline_share;
            layer_bounds.push(probability_threshold(acc));
            for x in &config.layers.xor_layers {
                acc += x.share;
                layer_bounds.push(probability_threshold(acc));
            }
            // Shares summing to 1 within rounding: the last layer takes the rest.
            *layer_bounds.last_mut().expect("baseline bound") = u64::MAX;
            instances.push(InstanceScheme {
                seed: instance_seed(config.seed, i),
                layer_bounds,
                xor_thresholds: config
                    .layers
                    .xor_layers
                    .iter()
                    .map(|x| probability_threshold(x.probability))
                    .collect(),
                xor_rounds: config
                    .layers
                    .xor_layers
                    .iter()
                    .map(|x| pow2_rounds(x.probability).unwrap_or(0))
                    .collect(),
            });
        }
        Ok(PathScheme { config, bits_per_instance, instances })
    }

    pub fn config(&self) -> &PathTracingConfig {
        &self.config
    }

    pub fn bits_per_instance(&self) -> u32 {
        self.bits_per_instance
    }

    pub fn instance_count(&self) -> usize {
        self.instances.len()
    }

    /// Mask of one instance's field within the packed digest.
    #[inline]
    pub fn field_mask(&self) -> u64 {
        (1u64 << self.bits_per_instance) - 1
    }

    #[inline]
    pub(crate) fn layer(&self, inst: &InstanceScheme, pkey: u64) -> usize {
        let v = mix64(pkey ^ LAYER_STREAM);
        inst.layer_bounds.iter().position(|&b| v < b).unwrap_or(inst.layer_bounds.len() - 1)
    }

    /// Does the hop act on this packet (baseline: overwrite; XOR: xor in)?
    #[inline]
    pub(crate) fn hop_acts(&self, inst: &InstanceScheme, pkey: u64, layer: usize, hop: u32) -> bool {
        if layer == 0 {
            return reservoir_writes(pkey, hop, BASELINE_STREAM);
        }
        let x = layer - 1;
        match self.config.sampling {
            HopSampling::PerHopHash => {
                hop_variate(pkey, hop, XOR_STREAM ^ (x as u64)) < inst.xor_thresholds[x]
            }
            HopSampling::BitVector => {
                hop <= MAX_HOPS && (and_mask(pkey, x, inst.xor_rounds[x]) >> (hop - 1)) & 1 == 1
            }
        }
    }

    /// The sink's view: what instance `i` did to the packet on a `hops`-hop path.
    #[inline]
    pub fn action(&self, instance: usize, packet_id: u64, hops: u32) -> Action {
        let pkey = packet_key(self.instances[instance].seed, packet_id);
        self.action_for_key(instance, pkey, hops)
    }

    /// As `action`, from the instance's packet key (see `hash::packet_key`).
    #[inline]
    pub fn action_for_key(&self, instance: usize, pkey: u64, hops: u32) -> Action {
        let inst = &self.instances[instance];
        let layer = self.layer(inst, pkey);
        if layer == 0 {
            return Action::Wrote(reservoir_writer(pkey, hops, BASELINE_STREAM));
        }
        let x = layer - 1;
        let path_mask = if hops >= 64 { u64::MAX } else { (1u64 << hops) - 1 };
        match self.config.sampling {
            HopSampling::BitVector => Action::Xored(and_mask(pkey, x, inst.xor_rounds[x]) & path_mask),
            HopSampling::PerHopHash => {
                let t = inst.xor_thresholds[x];
                let mut m = 0u64;
                for hop in 1..=hops.min(MAX_HOPS) {
                    if hop_variate(pkey, hop, XOR_STREAM ^ (x as u64)) < t {
                        m |= 1 << (hop - 1);
                    }
                }
                Action::Xored(m)
            }
        }
    }
}

/// AND of `rounds` pseudo-random words: each bit is set with probability 2^-rounds.
#[inline(always)]
fn and_mask(pkey: u64, layer: usize, rounds: u32) -> u64 {
    let mut m = u64::MAX;
    let base = XOR_STREAM.wrapping_add((layer as u64) << 8);
    for r in 0..rounds {
        m &= mix64(pkey ^ base.wrapping_add(u64::from(r)).wrapping_mul(GOLDEN));
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_budgets_and_shares() {
        let mut c = PathTracingConfig::hybrid(8, 10, 1);
        assert!(c.validate().is_ok());
        c.budget_bits = 0;
        assert!(c.validate().is_err());
        let mut c = PathTracingConfig::hybrid(8, 10, 1);
        c.instances = 3;
        assert!(c.validate().is_err());
        let mut c = PathTracingConfig::hybrid(8, 10, 1);
        c.layers.baseline_share = 0.9;
        assert!(c.validate().unwrap_err().0.contains("sum"));
        let mut c = PathTracingConfig::hybrid(8, 10, 1);
        c.layers.xor_layers[0].probability = 0.3;
        assert!(c.validate().unwrap_err().0.contains("2^-r"));
        c.sampling = HopSampling::PerHopHash;
        assert!(c.validate().is_ok());
    }

    #[test]
    fn bit_vector_density_matches_probability() {
        let s = PathScheme::new(PathTracingConfig::hybrid(8, 16, 3)).unwrap();
        let rounds = s.instances[0].xor_rounds[0];
        let ones: u32 = (0..10_000u64).map(|p| and_mask(mix64(p), 0, rounds).count_ones()).sum();
        let expected = 10_000.0 * 64.0 * 0.5f64.powi(rounds as i32);
        assert!((f64::from(ones) / expected - 1.0).abs() < 0.05, "{ones} vs {expected}");
    }

    #[test]
    fn layer_shares_follow_plan() {
        let s = PathScheme::new(PathTracingConfig::hybrid(8, 16, 3)).unwrap();
        let inst = &s.instances[0];
        let n = 40_000u64;
        let base = (0..n).filter(|&p| s.layer(inst, packet_key(inst.seed, p)) == 0).count();
        assert!((base as f64 / n as f64 - 0.1).abs() < 0.01);
    }
}
