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

/// Per stack layout and length, a mask over a raw stack that keeps the bytes the state
/// reads of each hop (switch id, egress port, hop latency, queue id and occupancy,
/// congestion queue id and status, tx utilisation) and zeroes the rest (timestamps,
/// ingress port, ...) and every byte past the stack's length: two stacks of one layout
/// and length are equal under the mask exactly when their hops' [`HopValues`](super::HopValues) are.
/// Since the mask is zero past the length, stacks are compared and kept in whole
/// 32-byte blocks (four words, a few vector operations each) without a partial last
/// word. A few masks are kept (a fabric uses one or two bitmaps and path lengths).
pub(super) struct StackMasks {
    keys: Vec<u64>,
    masks: Vec<[u64; STACK_WORDS]>,
    next: usize,
}

/// Bytes compared at a time.
const BLOCK: usize = 32;
const BLOCK_WORDS: usize = BLOCK / 8;

impl StackMasks {
    const KEEP: usize = 8;

    pub(super) fn new() -> StackMasks {
        StackMasks { keys: Vec::with_capacity(Self::KEEP), masks: Vec::with_capacity(Self::KEEP), next: 0 }
    }

    /// The mask of stacks of `layout` ([`stack_layout`]) and `len` bytes.
    #[inline(always)]
    pub(super) fn get(&mut self, layout: u32, plan: &Plan, len: usize) -> &[u64; STACK_WORDS] {
        let key = layout as u64 | (len as u64) << 32;
        let i = match self.keys.iter().position(|&k| k == key) {
            Some(i) => i,
            None => self.add(key, plan, len),
        };
        &self.masks[i]
    }

    #[cold]
    fn add(&mut self, key: u64, plan: &Plan, len: usize) -> usize {
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
            while at + hb <= len.min(RAW_STACK_MAX) {
                for (fl, skip, n) in read {
                    if plan.fields & fl != 0 {
                        let o = at + plan.offset(fl) + skip;
                        bytes[o..o + n].fill(0xff);
                    }
                }
                at += hb;
            }
        }
        let mask = std::array::from_fn(|j| u64::from_le_bytes(*bytes[j * 8..].first_chunk().expect("8 bytes")));
        let i = if self.keys.len() < Self::KEEP {
            self.keys.push(key);
            self.masks.push(mask);
            self.keys.len() - 1
        } else {
            let i = self.next;
            self.next = (self.next + 1) % Self::KEEP;
            self.keys[i] = key;
            self.masks[i] = mask;
            i
        };
        i
    }
}

/// The blocks a stack of `len` bytes spans (at most `STACK_WORDS / 4`).
#[inline(always)]
fn blocks(len: usize) -> usize {
    len.div_ceil(BLOCK).min(STACK_WORDS / BLOCK_WORDS)
}

/// The raw stack under `mask` (from [`StackMasks::get`] for its layout and `len`)
/// differs from `last` (kept by [`keep_masked`] for the same layout and length).
#[inline(always)]
pub(super) fn differs(raw: &RawStack, mask: &[u64; STACK_WORDS], last: &[u64; STACK_WORDS], len: usize) -> bool {
    let mut diff = [0u64; BLOCK_WORDS];
    let n = blocks(len);
    for ((b, m), l) in raw.bytes.chunks_exact(BLOCK).zip(mask.chunks_exact(BLOCK_WORDS)).zip(last.chunks_exact(BLOCK_WORDS)).take(n) {
        for k in 0..BLOCK_WORDS {
            diff[k] |= (u64::from_le_bytes(*b[k * 8..].first_chunk().expect("8 bytes")) & m[k]) ^ l[k];
        }
    }
    diff.iter().fold(0, |a, d| a | d) != 0
}

/// Keeps the raw stack under `mask` in `last`, for [`differs`].
#[inline(always)]
pub(super) fn keep_masked(raw: &RawStack, mask: &[u64; STACK_WORDS], last: &mut [u64; STACK_WORDS], len: usize) {
    let n = blocks(len);
    for ((b, m), l) in raw.bytes.chunks_exact(BLOCK).zip(mask.chunks_exact(BLOCK_WORDS)).zip(last.chunks_exact_mut(BLOCK_WORDS)).take(n) {
        for k in 0..BLOCK_WORDS {
            l[k] = u64::from_le_bytes(*b[k * 8..].first_chunk().expect("8 bytes")) & m[k];
        }
    }
}
