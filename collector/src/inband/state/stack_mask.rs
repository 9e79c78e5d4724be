//! The short way's comparison of raw stacks: per stack layout (version and bitmap), a
//! mask of the bytes the state reads of each hop.

use crate::decode::int::instructions::{Plan, field};
use crate::decode::int::{RAW_STACK_MAX, RawStack, ReportVersion};

pub(super) const NO_LAYOUT: u32 = u32::MAX;
pub(super) const STACK_WORDS: usize = RAW_STACK_MAX / 8;

/// What determines where each field of a raw stack lies: the version (v0.5 or v1.0
/// instruction set) and the bitmap.
#[inline(always)]
pub(super) fn stack_layout(version: ReportVersion, bitmap: u16) -> u32 {
    (version as u32) << 16 | bitmap as u32
}

/// Per stack layout, a mask over a whole raw stack that keeps the bytes the state reads
/// of each hop (switch id, egress port, hop latency, queue id and occupancy, congestion
/// queue id and status, tx utilisation) and zeroes the rest (timestamps, ingress port,
/// ...): two stacks are equal under the mask exactly when their hops' [`HopValues`](super::HopValues) are.
/// A few layouts are kept (a fabric uses one or two bitmaps).
pub(super) struct StackMasks {
    layouts: Vec<u32>,
    masks: Vec<[u64; STACK_WORDS]>,
    next: usize,
}

impl StackMasks {
    const KEEP: usize = 4;

    pub(super) fn new() -> StackMasks {
        StackMasks { layouts: Vec::with_capacity(Self::KEEP), masks: Vec::with_capacity(Self::KEEP), next: 0 }
    }

    #[inline(always)]
    pub(super) fn get(&mut self, layout: u32, plan: &Plan) -> &[u64; STACK_WORDS] {
        let i = match self.layouts.iter().position(|&l| l == layout) {
            Some(i) => i,
            None => self.add(layout, plan),
        };
        &self.masks[i]
    }

    #[cold]
    fn add(&mut self, layout: u32, plan: &Plan) -> usize {
        let mut bytes = [0u8; RAW_STACK_MAX];
        let hb = plan.hop_bytes;
        // (field, first byte read, bytes read): of the ports word only the egress port.
        let read = [
            (field::SWITCH_ID, 0, 4),
            (field::L1_PORTS, 2, 2),
            (field::HOP_LATENCY, 0, 4),
            (field::QUEUE_OCCUPANCY, 0, 4),
            (field::QUEUE_CONGESTION, 0, 4),
            (field::TX_UTILIZATION, 0, 4),
        ];
        if hb > 0 {
            let mut at = 0;
            while at + hb <= RAW_STACK_MAX {
                for (fl, skip, len) in read {
                    if plan.fields & fl != 0 {
                        let o = at + plan.offset(fl) + skip;
                        bytes[o..o + len].fill(0xff);
                    }
                }
                at += hb;
            }
        }
        let mask = std::array::from_fn(|j| u64::from_le_bytes(*bytes[j * 8..].first_chunk().expect("8 bytes")));
        let i = if self.layouts.len() < Self::KEEP {
            self.layouts.push(layout);
            self.masks.push(mask);
            self.layouts.len() - 1
        } else {
            let i = self.next;
            self.next = (self.next + 1) % Self::KEEP;
            self.layouts[i] = layout;
            self.masks[i] = mask;
            i
        };
        i
    }
}

/// Word `j` of a raw stack of `len` bytes (bytes past `len` read as 0).
#[inline(always)]
pub(super) fn stack_word(raw: &RawStack, j: usize, len: usize) -> u64 {
    let w = u64::from_le_bytes(*raw.bytes[j * 8..].first_chunk().expect("8 bytes"));
    let end = len.saturating_sub(j * 8);
    if end >= 8 { w } else { w & ((1u64 << (end * 8)) - 1) }
}

