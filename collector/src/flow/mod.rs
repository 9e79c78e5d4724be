//! Flow-state stage: per-worker flow table and the estimators of each flow.

pub mod estimator;
pub mod seq;

use std::hash::BuildHasher;

use crate::decode::FiveTuple;
use crate::forwarding::SwitchIdx;
use estimator::{SampledBytesRate, SequenceRate, WindowParams};

/// A flow as seen at one switch: the same 5-tuple sampled at two switches is two flows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowKey {
    pub switch: SwitchIdx,
    pub tuple: FiveTuple,
}

fn addr_bits(a: &std::net::IpAddr) -> u128 {
    match a {
        std::net::IpAddr::V4(v4) => v4.to_bits() as u128,
        std::net::IpAddr::V6(v6) => v6.to_bits(),
    }
}

/// Three word-sized writes instead of the field-by-field derive: this hash runs for
/// every sample.
impl std::hash::Hash for FlowKey {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        let t = &self.tuple;
        let v6 = t.src.is_ipv6() as u64;
        h.write_u64(
            (self.switch as u64) << 48
                | (t.proto as u64) << 40
                | v6 << 32
                | (t.sport as u64) << 16
                | t.dport as u64,
        );
        h.write_u128(addr_bits(&t.src));
        h.write_u128(addr_bits(&t.dst));
    }
}

/// Which estimator produced a rate (the contract's `estimator` field).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EstimatorKind {
    TcpSeq,
    TcpAck,
    SampledBytes,
}

/// A rate estimate ready to report.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateEstimate {
    pub kind: EstimatorKind,
    pub bytes_per_sec: f64,
    pub samples: u64,
    pub first_ns: u64,
    pub last_ns: u64,
}

pub const NO_PORT: u32 = u32::MAX;

/// `repr(C)`: the fields a data sample touches (key, port, sequence estimator) come first
/// and share adjacent cache lines; the fallback estimators come last. Aligned to a cache
/// line so that the hot part spans as few lines as possible.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct FlowState {
    pub key: FlowKey,
    /// Destination MAC of the data direction (shadow MAC while rerouted).
    pub dst_mac: [u8; 6],
    /// Egress port index in the current compiled map, or NO_PORT.
    pub port: u32,
    pub is_tcp: bool,
    pub seq: SequenceRate,
    pub last_seen_ns: u64,
    /// Bits per second this flow currently adds to its port's load.
    pub contributed_bps: u64,
    /// Changed since the last report.
    pub dirty: bool,
    /// End of the last reported estimate window: a window is reported once.
    pub reported_to_ns: u64,

    /// Fallback estimators, rarely touched by data samples.
    pub ack: SequenceRate,
    pub bytes: SampledBytesRate,
}

impl FlowState {
    fn new(key: FlowKey, dst_mac: [u8; 6], port: u32, is_tcp: bool, now_ns: u64) -> Self {
        FlowState {
            key,
            dst_mac,
            port,
            is_tcp,
            seq: SequenceRate::default(),
            ack: SequenceRate::default(),
            bytes: SampledBytesRate::default(),
            last_seen_ns: now_ns,
            contributed_bps: 0,
            dirty: false,
            reported_to_ns: 0,
        }
    }

    /// The current windowed estimate: sequence numbers when usable, else ack numbers,
    /// else sampled bytes.
    pub fn current(&self, params: &WindowParams) -> Option<RateEstimate> {
        if self.is_tcp
            && !self.seq.unusable(params)
            && let Some(r) = self.seq.rate()
        {
            return Some(RateEstimate {
                kind: EstimatorKind::TcpSeq,
                bytes_per_sec: r,
                samples: self.seq.rate_samples(),
                first_ns: self.seq.rate_from_ns(),
                last_ns: self.seq.rate_to_ns(),
            });
        }
        if self.is_tcp
            && self.seq.samples() == 0
            && let Some(r) = self.ack.rate()
        {
            return Some(RateEstimate {
                kind: EstimatorKind::TcpAck,
                bytes_per_sec: r,
                samples: self.ack.rate_samples(),
                first_ns: self.ack.rate_from_ns(),
                last_ns: self.ack.rate_to_ns(),
            });
        }
        let usable_seq = self.is_tcp && self.seq.rate().is_some() && !self.seq.unusable(params);
        if !usable_seq && let Some(r) = self.bytes.rate() {
            return Some(RateEstimate {
                kind: EstimatorKind::SampledBytes,
                bytes_per_sec: r,
                samples: self.bytes.rate_samples(),
                first_ns: self.bytes.rate_from_ns(),
                last_ns: self.bytes.rate_to_ns(),
            });
        }
        None
    }

    /// Mean rate over the flow's whole sampled lifetime (replay output).
    pub fn lifetime(&self, params: &WindowParams) -> RateEstimate {
        let seq_ok = self.is_tcp
            && self.seq.samples() > 1
            && (!self.seq.unusable(params) || self.bytes.samples() < 2);
        let (kind, rate, samples, first, last) = if seq_ok {
            (
                EstimatorKind::TcpSeq,
                self.seq.lifetime_rate(),
                self.seq.samples(),
                self.seq.first_ns(),
                self.seq.last_ns(),
            )
        } else if self.is_tcp && self.seq.samples() == 0 && self.ack.samples() > 1 {
            (
                EstimatorKind::TcpAck,
                self.ack.lifetime_rate(),
                self.ack.samples(),
                self.ack.first_ns(),
                self.ack.last_ns(),
            )
        } else {
            (
                EstimatorKind::SampledBytes,
                self.bytes.lifetime_rate(),
                self.bytes.samples(),
                self.bytes.first_ns(),
                self.bytes.last_ns(),
            )
        };
        RateEstimate {
            kind,
            bytes_per_sec: rate.unwrap_or(0.0),
            samples,
            first_ns: first,
            last_ns: last,
        }
    }
}

/// Flow table with a fixed capacity allocated up front: inserting never allocates, and a
/// full table refuses new flows (counted) instead of growing without bound. The hasher is
/// randomly seeded because flow keys come from traffic an attacker can shape.
///
/// The index ([`SlotIndex`]) holds only 8-byte (hash tag, slot) entries; the key
/// comparison reads the flow state, which the sample needs next anyway. Both the index
/// entry and the flow state can be prefetched from the hash alone
/// ([`FlowTable::prefetch_index`], [`FlowTable::prefetch_flow`]), so a worker can
/// overlap the memory misses of a batch of samples instead of taking them one by one.
pub struct FlowTable {
    index: SlotIndex,
    hasher: foldhash::fast::RandomState,
    slots: Vec<FlowState>,
    live: Vec<bool>,
    free: Vec<u32>,
    capacity: usize,
}

impl FlowTable {
    pub fn with_capacity(capacity: usize) -> Self {
        let slots: Vec<FlowState> = Vec::with_capacity(capacity);
        advise_huge_pages(
            slots.as_ptr() as usize,
            capacity * std::mem::size_of::<FlowState>(),
        );
        FlowTable {
            index: SlotIndex::with_capacity(capacity),
            hasher: foldhash::fast::RandomState::default(),
            slots,
            live: Vec::with_capacity(capacity),
            free: Vec::with_capacity(capacity),
            capacity,
        }
    }

    pub fn len(&self) -> usize {
        self.index.len
    }

    pub fn is_empty(&self) -> bool {
        self.index.len == 0
    }

    /// The table's (seeded) hash of a key.
    #[inline]
    pub fn hash(&self, key: &FlowKey) -> u64 {
        self.hasher.hash_one(key)
    }

    /// Start loading the index entry of `hash` into the cache.
    #[inline]
    pub fn prefetch_index(&self, hash: u64) {
        prefetch(self.index.home_ptr(hash));
    }

    /// Start loading the per-sample part of the flow state of `hash` (if its index
    /// entry is already known) into the cache. Only a hint: changes nothing.
    #[inline]
    pub fn prefetch_flow(&self, hash: u64) {
        if let Some(slot) = self.index.first_tag_match(hash)
            && let Some(st) = self.slots.get(slot as usize)
        {
            let base = st as *const FlowState as *const u8;
            let mut off = 0;
            while off < HOT_BYTES {
                prefetch(base.wrapping_add(off));
                off += 64;
            }
        }
    }

    /// Slot of `key`, inserting a new flow if there is room.
    #[inline]
    pub fn get_or_insert(
        &mut self,
        key: FlowKey,
        dst_mac: [u8; 6],
        port: u32,
        is_tcp: bool,
        now_ns: u64,
    ) -> Option<u32> {
        let hash = self.hash(&key);
        self.get_or_insert_hashed(hash, key, dst_mac, port, is_tcp, now_ns)
    }

    /// [`FlowTable::get_or_insert`] with `hash` = [`FlowTable::hash`] of `key`.
    #[inline]
    pub fn get_or_insert_hashed(
        &mut self,
        hash: u64,
        key: FlowKey,
        dst_mac: [u8; 6],
        port: u32,
        is_tcp: bool,
        now_ns: u64,
    ) -> Option<u32> {
        debug_assert_eq!(hash, self.hash(&key));
        let slots = &self.slots;
        if let Some(slot) = self.index.find(hash, |s| slots[s as usize].key == key) {
            return Some(slot);
        }
        if self.index.len >= self.capacity {
            return None;
        }
        let state = FlowState::new(key, dst_mac, port, is_tcp, now_ns);
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = state;
                self.live[s as usize] = true;
                s
            }
            None => {
                self.slots.push(state);
                self.live.push(true);
                (self.slots.len() - 1) as u32
            }
        };
        self.index.insert(hash, slot);
        Some(slot)
    }

    #[inline]
    pub fn get(&mut self, slot: u32) -> &mut FlowState {
        &mut self.slots[slot as usize]
    }

    pub fn remove(&mut self, slot: u32) -> FlowState {
        let st = self.slots[slot as usize].clone();
        let hash = self.hash(&st.key);
        self.index.remove(hash, slot);
        self.live[slot as usize] = false;
        self.free.push(slot);
        st
    }

    /// Number of slots ever used (live or free); slot ids are below this.
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    pub fn is_live(&self, slot: u32) -> bool {
        self.live.get(slot as usize).copied().unwrap_or(false)
    }

    pub fn iter(&self) -> impl Iterator<Item = &FlowState> {
        self.slots
            .iter()
            .zip(self.live.iter())
            .filter(|(_, l)| **l)
            .map(|(s, _)| s)
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut FlowState> {
        self.slots
            .iter_mut()
            .zip(self.live.iter())
            .filter(|(_, l)| **l)
            .map(|(s, _)| s)
    }
}

/// Bytes at the start of a [`FlowState`] that a data sample reads or writes.
const HOT_BYTES: usize = std::mem::offset_of!(FlowState, ack);

/// Open-addressed hash -> slot index with linear probing, at most half full (its size is
/// fixed by the table's capacity). An entry packs the low 32 bits of the hash (its home
/// position and a tag that spares most key comparisons) above `slot + 1`; 0 is empty.
/// Removal shifts the following entries back, so there are no tombstones and probe
/// lengths do not degrade as flows come and go.
struct SlotIndex {
    entries: Box<[u64]>,
    mask: usize,
    len: usize,
}

impl SlotIndex {
    fn with_capacity(capacity: usize) -> Self {
        let size = (capacity.max(4) * 2).next_power_of_two();
        assert!(size <= 1 << 32, "flow table capacity too large");
        SlotIndex {
            entries: vec![0u64; size].into_boxed_slice(),
            mask: size - 1,
            len: 0,
        }
    }

    #[inline(always)]
    fn tag(hash: u64) -> u64 {
        (hash as u32 as u64) << 32
    }

    #[inline(always)]
    fn home(&self, hash: u64) -> usize {
        hash as usize & self.mask
    }

    #[inline(always)]
    fn home_ptr(&self, hash: u64) -> *const u64 {
        &self.entries[self.home(hash)]
    }

    /// Slot of the first entry whose tag matches, without comparing keys (prefetch).
    #[inline]
    fn first_tag_match(&self, hash: u64) -> Option<u32> {
        let tag = Self::tag(hash);
        let mut i = self.home(hash);
        loop {
            let e = self.entries[i];
            if e == 0 {
                return None;
            }
            if e & !0xffff_ffff == tag {
                return Some((e as u32).wrapping_sub(1));
            }
            i = (i + 1) & self.mask;
        }
    }

    #[inline]
    fn find(&self, hash: u64, mut is_key: impl FnMut(u32) -> bool) -> Option<u32> {
        let tag = Self::tag(hash);
        let mut i = self.home(hash);
        loop {
            let e = self.entries[i];
            if e == 0 {
                return None;
            }
            if e & !0xffff_ffff == tag {
                let slot = (e as u32).wrapping_sub(1);
                if is_key(slot) {
                    return Some(slot);
                }
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Add an entry; the caller keeps the index at most half full.
    fn insert(&mut self, hash: u64, slot: u32) {
        debug_assert!(self.len < self.entries.len() / 2);
        let mut i = self.home(hash);
        while self.entries[i] != 0 {
            i = (i + 1) & self.mask;
        }
        self.entries[i] = Self::tag(hash) | (slot as u64 + 1);
        self.len += 1;
    }

    fn remove(&mut self, hash: u64, slot: u32) {
        let entry = Self::tag(hash) | (slot as u64 + 1);
        let mut i = self.home(hash);
        loop {
            match self.entries[i] {
                0 => return,
                e if e == entry => break,
                _ => i = (i + 1) & self.mask,
            }
        }
        self.len -= 1;
        // Backward-shift deletion: move later entries of the probe run into the hole
        // when their home position allows it.
        let mut hole = i;
        let mut j = i;
        loop {
            j = (j + 1) & self.mask;
            let e = self.entries[j];
            if e == 0 {
                break;
            }
            let home = (e >> 32) as usize & self.mask;
            if (hole.wrapping_sub(home) & self.mask) < (j.wrapping_sub(home) & self.mask) {
                self.entries[hole] = e;
                hole = j;
            }
        }
        self.entries[hole] = 0;
    }
}

/// A cache hint for `p`; never faults, changes nothing.
#[inline(always)]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint; it does not fault on any address.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Flow state is touched at random: with 4 KiB pages nearly every sample also misses
/// the TLB. Ask for transparent huge pages on the (not yet touched) slab; harmless where
/// THP is off.
fn advise_huge_pages(addr: usize, len: usize) {
    const HUGE: usize = 2 << 20;
    let start = addr.next_multiple_of(HUGE);
    let end = (addr + len) / HUGE * HUGE;
    if end > start {
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{IpAddr, Ipv4Addr};

    fn key(n: u16) -> FlowKey {
        FlowKey {
            switch: 0,
            tuple: FiveTuple {
                src: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
                dst: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
                proto: 6,
                sport: n,
                dport: 80,
            },
        }
    }

    #[test]
    fn flow_state_stays_compact() {
        // A data sample touches the first ~4 cache lines; keep the hot part small.
        assert!(
            std::mem::size_of::<FlowState>() <= 448,
            "{}",
            std::mem::size_of::<FlowState>()
        );
    }

    #[test]
    fn bounded_table_refuses_and_reuses_slots() {
        let mut t = FlowTable::with_capacity(2);
        let a = t.get_or_insert(key(1), [0; 6], NO_PORT, true, 0).unwrap();
        let b = t.get_or_insert(key(2), [0; 6], NO_PORT, true, 0).unwrap();
        assert_ne!(a, b);
        assert_eq!(t.get_or_insert(key(1), [0; 6], NO_PORT, true, 0), Some(a));
        assert_eq!(t.get_or_insert(key(3), [0; 6], NO_PORT, true, 0), None);
        t.remove(a);
        assert!(!t.is_live(a));
        let c = t.get_or_insert(key(3), [0; 6], NO_PORT, true, 0).unwrap();
        assert_eq!(c, a);
        assert_eq!(t.len(), 2);
        assert_eq!(t.iter().count(), 2);
    }

    proptest::proptest! {
        /// The index answers like a map under any mix of inserts and removals, with
        /// hashes crowded into a few home positions (long probe runs that wrap around).
        #[test]
        fn slot_index_matches_a_map(
            ops in proptest::collection::vec((proptest::prelude::any::<bool>(), 0u32..48, 0u64..8), 1..300),
        ) {
            let mut index = SlotIndex::with_capacity(32);
            let mut model = std::collections::HashMap::new();
            // Slot s always has hash h(s): a few distinct tags, all near the end of the
            // table so that runs wrap.
            let size = index.entries.len() as u64;
            let h = |s: u32| ((s as u64 % 5) << 40) | (size - 1 - (s as u64 % 3));
            for (insert, slot, _) in ops {
                let hash = h(slot);
                if insert && !model.contains_key(&slot) && model.len() < 32 {
                    index.insert(hash, slot);
                    model.insert(slot, ());
                } else if !insert && model.remove(&slot).is_some() {
                    index.remove(hash, slot);
                }
                proptest::prop_assert_eq!(index.len, model.len());
                for s in 0..48u32 {
                    let found = index.find(h(s), |x| x == s);
                    proptest::prop_assert_eq!(found.is_some(), model.contains_key(&s));
                }
            }
        }
    }
}
