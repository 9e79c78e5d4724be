//! The per-switch path-tracing stage: what a switch does to the digest field of a
//! packet it forwards. It needs only its own switch id, its hop number (from the
//! TTL) and the packet id; no per-flow state.

use std::sync::Arc;

use crate::hash::{packet_key, value_digest, value_key};
use crate::path::scheme::PathScheme;

/// Encoder of one switch: its value keys per instance are computed once.
#[derive(Debug, Clone)]
pub struct PathEncoder {
    scheme: Arc<PathScheme>,
    switch_id: u32,
    value_keys: Vec<u64>,
}

impl PathEncoder {
    pub fn new(scheme: Arc<PathScheme>, switch_id: u32) -> Self {
        let value_keys = scheme.instances.iter().map(|i| value_key(i.seed, switch_id)).collect();
        PathEncoder { scheme, switch_id, value_keys }
    }

    pub fn switch_id(&self) -> u32 {
        self.switch_id
    }

    /// New digest after this switch, at 1-based `hop`, handled the packet. Hop 1
    /// starts from an all-zero field: whatever the sender left there is not PINT's.
    /// Bits above the budget are preserved so the digest can share a header field.
    #[inline]
    pub fn encode(&self, digest: u64, packet_id: u64, hop: u32) -> u64 {
        let q = self.scheme.bits_per_instance;
        let field = self.scheme.field_mask();
        let budget_mask = if self.scheme.config.budget_bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.scheme.config.budget_bits) - 1
        };
        let mut d = if hop <= 1 { digest & !budget_mask } else { digest };
        for (i, inst) in self.scheme.instances.iter().enumerate() {
            let pkey = packet_key(inst.seed, packet_id);
            let layer = self.scheme.layer(inst, pkey);
            if !self.scheme.hop_acts(inst, pkey, layer, hop) {
                continue;
            }
            let shift = i as u32 * q;
            let h = value_digest(pkey, self.value_keys[i], q);
            if layer == 0 {
                d = (d & !(field << shift)) | (h << shift);
            } else {
                d ^= h << shift;
            }
        }
        d
    }
}

/// Runs a whole path of encoders over one packet (the emulator and tests use it).
pub fn encode_path(encoders: &[PathEncoder], packet_id: u64, initial: u64) -> u64 {
    encoders
        .iter()
        .enumerate()
        .fold(initial, |d, (i, e)| e.encode(d, packet_id, i as u32 + 1))
}
