//! Per-packet aggregation: the bottleneck's utilisation in 8 bits, as HPCC-PINT
//! uses it. Every switch compresses its link utilisation (HPCC's U = qlen/(B*T) +
//! txRate/B) multiplicatively and keeps the larger of its code and the packet's:
//! the code order is the value order, so the sink reads the path's maximum.

use crate::compress::ValueCodec;
use crate::error::ConfigError;
use crate::hash::{hop_variate, instance_seed, packet_key};

const COIN_STREAM: u64 = 0x7574_696c_636f_696e;

/// Shared by switches and the sink: an 8-bit multiplicative code over [min, max].
#[derive(Debug, Clone, Copy)]
pub struct UtilisationCodec {
    codec: ValueCodec,
    seed: u64,
}

impl UtilisationCodec {
    /// Utilisations from 2^-10 to 8 in 8 bits: 3.6 % relative error per value.
    pub fn hpcc(seed: u64) -> Self {
        Self::new(8, 1.0 / 1024.0, 8.0, seed).expect("valid default range")
    }

    pub fn new(bits: u32, min: f64, max: f64, seed: u64) -> Result<Self, ConfigError> {
        Ok(UtilisationCodec { codec: ValueCodec::multiplicative(bits, min, max)?, seed })
    }

    pub fn relative_error_bound(&self) -> f64 {
        self.codec.error_bound()
    }

    /// Field after the switch at 1-based `hop` with utilisation `u`; hop 1 starts it.
    #[inline]
    pub fn encode(&self, field: u32, packet_id: u64, hop: u32, u: f64) -> u32 {
        let key = packet_key(instance_seed(self.seed, 0x0711), packet_id);
        let code = self.codec.encode(u, hop_variate(key, hop, COIN_STREAM));
        if hop <= 1 { code } else { field.max(code) }
    }

    /// The path's bottleneck utilisation as carried by the field.
    #[inline]
    pub fn decode(&self, field: u32) -> f64 {
        self.codec.decode(field.min(self.codec.max_code()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carries_the_maximum_within_the_bound() {
        let c = UtilisationCodec::hpcc(3);
        let eps = c.relative_error_bound();
        assert!(eps < 0.04);
        for p in 0..5000u64 {
            let us: Vec<f64> = (0..5).map(|h| 0.05 + ((p * 7 + h * 13) % 100) as f64 / 80.0).collect();
            let field = us.iter().enumerate().fold(0, |f, (h, &u)| c.encode(f, p, h as u32 + 1, u));
            let max = us.iter().copied().fold(0.0, f64::max);
            let got = c.decode(field);
            assert!(got >= max / (1.0 + eps) - 1e-12 && got <= max * (1.0 + eps) + 1e-12, "{got} vs {max}");
        }
    }

    #[test]
    fn first_hop_discards_stale_field() {
        let c = UtilisationCodec::hpcc(3);
        let f = c.encode(255, 1, 1, 0.5);
        assert!((c.decode(f) / 0.5 - 1.0).abs() <= c.relative_error_bound() + 1e-12);
    }
}
