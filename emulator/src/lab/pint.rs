//! PINT path tracing on the lab fabric's packets (`[pint]` in the fabric config): every
//! switch runs its `pint::path::PathEncoder` on each data packet it sends, on the digest
//! carried in the packet's IPv4 Identification field, and the packet's TTL counts the hops
//! (the hosts send with TTL 64). Mirror frames show both as the switch sent them, so the
//! frame a packet's last switch mirrors (its delivery to the host, whose destination MAC
//! is the host's again, not a shadow MAC) carries the final digest: that is the frame the
//! collector's PINT decoder reads (`planck-collector pint-live`, docs/pint.md).
//!
//! Switch ids in PINT are the switch number of the device id (`of:…0001` is 1); the
//! packet id is `pint::hash::ipv4_packet_id` of the frame's 5-tuple and TCP sequence
//! number, as the collector computes it from the frame.

use std::net::Ipv4Addr;
use std::sync::Arc;

use pint::path::{PathEncoder, PathScheme, PathTracingConfig};
use serde::Deserialize;

/// TTL hosts send with; a switch's hop number is INITIAL_TTL - TTL + 1.
pub const INITIAL_TTL: u8 = 64;

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PintSection {
    /// Bits of the IPv4 ID carrying the path digest; 0 turns PINT off.
    pub path_bits: u32,
    /// Path length the hybrid scheme's layer probabilities are tuned for.
    pub path_hops: u32,
    /// Hash seed shared with the collector.
    pub seed: u64,
}

impl Default for PintSection {
    fn default() -> Self {
        PintSection { path_bits: 0, path_hops: 5, seed: 2020 }
    }
}

impl PintSection {
    pub fn validate(&self) -> anyhow::Result<()> {
        if self.path_bits > 16 {
            anyhow::bail!("pint.path_bits must be 0 (off) to 16 (the IPv4 ID), got {}", self.path_bits);
        }
        if !(1..=64).contains(&self.path_hops) {
            anyhow::bail!("pint.path_hops must be 1..=64, got {}", self.path_hops);
        }
        if self.path_bits > 0 {
            self.tracing().validate().map_err(|e| anyhow::anyhow!("pint: {}", e.0))?;
        }
        Ok(())
    }

    fn tracing(&self) -> PathTracingConfig {
        PathTracingConfig::hybrid(self.path_bits, self.path_hops, self.seed)
    }
}

/// The per-switch encoders of one fabric.
pub struct LabPint {
    encoders: Vec<PathEncoder>,
    seed: u64,
}

impl LabPint {
    /// Encoders for `switches` switches, or None when PINT is off.
    pub fn new(cfg: &PintSection, switches: usize) -> anyhow::Result<Option<LabPint>> {
        if cfg.path_bits == 0 {
            return Ok(None);
        }
        let scheme = Arc::new(PathScheme::new(cfg.tracing()).map_err(|e| anyhow::anyhow!("pint: {}", e.0))?);
        let encoders = (0..switches).map(|sw| PathEncoder::new(scheme.clone(), sw as u32 + 1)).collect();
        Ok(Some(LabPint { encoders, seed: cfg.seed }))
    }

    /// The packet id of a TCP packet of the fabric, as the collector derives it from the frame.
    #[inline]
    pub fn packet_id(&self, src: Ipv4Addr, dst: Ipv4Addr, sport: u16, dport: u16, tcp_seq: u32) -> u64 {
        pint::hash::ipv4_packet_id(self.seed, src.octets(), dst.octets(), 6, sport, dport, u64::from(tcp_seq))
    }

    /// Switch `sw` sends a packet: its hop count grows by one and its encoder acts on the
    /// digest in the IPv4 ID.
    #[inline]
    pub fn stamp(&self, sw: usize, ip_id: &mut u16, hops: &mut u8, packet_id: u64) {
        let hop = u32::from(*hops) + 1;
        if hop > 64 {
            return;
        }
        *hops = hop as u8;
        *ip_id = self.encoders[sw].encode(u64::from(*ip_id), packet_id, hop) as u16;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pint::path::{DecoderLimits, PathDecoder, TraceStatus, Universe};

    #[test]
    fn digests_stamped_along_a_path_decode_to_its_switches() {
        let cfg = PintSection { path_bits: 8, path_hops: 5, seed: 7 };
        let lab = LabPint::new(&cfg, 20).unwrap().unwrap();
        let path = [0usize, 8, 16, 10, 2];
        let scheme = Arc::new(PathScheme::new(cfg.tracing()).unwrap());
        let universe = Arc::new(Universe::new(&scheme, (1..=20).collect()).unwrap());
        let mut decoder = PathDecoder::new(scheme, universe, path.len() as u32, DecoderLimits::default()).unwrap();
        let (src, dst) = (Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 9));
        let mut decoded = false;
        for seq in 0..2000u32 {
            let (mut id, mut hops) = (0u16, 0u8);
            let pid = lab.packet_id(src, dst, 10001, 5001, seq.wrapping_mul(1460));
            for &sw in &path {
                lab.stamp(sw, &mut id, &mut hops, pid);
            }
            assert_eq!(hops, 5);
            if decoder.observe(pid, u64::from(id)) == TraceStatus::Decoded {
                decoded = true;
                break;
            }
        }
        assert!(decoded, "path not decoded in 2000 packets");
        assert_eq!(decoder.path().unwrap(), vec![1, 9, 17, 11, 3]);
    }

    #[test]
    fn bad_sections_are_rejected_and_zero_bits_is_off() {
        assert!(PintSection { path_bits: 17, ..Default::default() }.validate().is_err());
        assert!(PintSection { path_hops: 0, path_bits: 8, ..Default::default() }.validate().is_err());
        assert!(LabPint::new(&PintSection::default(), 4).unwrap().is_none());
    }
}
