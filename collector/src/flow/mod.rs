//! Flow-state stage: per-worker flow table and the estimators of each flow.

pub mod estimator;
pub mod ipid;
pub mod seq;

use std::hash::BuildHasher;

use crate::decode::FiveTuple;
use crate::forwarding::SwitchIdx;
use estimator::{SampledBytesRate, SeqRef, SeqTotals, SeqWindow, SequenceRate, WindowParams};
use ipid::Ipv4IdRate;

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

/// Three word-sized writes instead of the field-by-field derive. (The flow table hashes
/// the [`CompactKey`] instead.)
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
    /// Packets counted from IPv4 identification deltas x their mean size. On the wire
    /// (telemetry-events-v1) it is reported as `SAMPLED_BYTES` without `lowConfidence`,
    /// so that v1 readers keep working.
    #[serde(rename = "IPV4_ID")]
    Ipv4Id,
    SampledBytes,
}

impl EstimatorKind {
    /// Whether an estimate of this kind for a flow of this protocol may be far off: sampled
    /// bytes x a sampling ratio measured on TCP flows, for a flow that is not TCP (a drop-tail
    /// mirror samples smooth flows more often than bursty ones). A TCP flow falls back to
    /// sampled bytes only while its sequence numbers are unusable (a retransmission in the
    /// window, too short a window), typically just when its port congests; its ratio comes from
    /// flows of its own kind, so the estimate stays actionable.
    pub fn low_confidence(self, tcp: bool) -> bool {
        self == EstimatorKind::SampledBytes && !tcp
    }
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

/// A flow's presence at its switch, as its samples show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quiet {
    /// Samples keep coming; the flow's estimate counts in its port's load.
    Active,
    /// Silent too long: its load has left the port; the next report says rate 0.
    Withdrawn,
    /// Withdrawn and reported.
    Reported,
}

pub const NO_PORT: u32 = u32::MAX;
/// No slot (a prefetch that found no index entry).
pub const NO_SLOT: u32 = u32::MAX;

/// A [`FlowKey`] in 16 bytes, for the flow's hot cache line. IPv4 keys are exact (both
/// addresses, ports, protocol, switch); an IPv6 key carries a seeded digest of its
/// addresses instead, so a match must be confirmed against the full key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompactKey {
    addrs: u64,
    /// sport << 48 | dport << 32 | proto << 24 | switch << 8 | is_v6
    rest: u64,
}

impl CompactKey {
    /// Matches no flow's key (bit 1 of `rest` is never set in one): the key of a free
    /// slot.
    pub const EMPTY: CompactKey = CompactKey { addrs: 0, rest: 2 };

    #[inline(always)]
    pub fn is_v6(&self) -> bool {
        self.rest & 1 != 0
    }
    #[inline(always)]
    fn bits(&self) -> u128 {
        (self.addrs as u128) << 64 | self.rest as u128
    }
}

impl std::hash::Hash for CompactKey {
    #[inline(always)]
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write_u128(self.bits());
    }
}

/// What a data sample of a flow reads and writes, in one cache line: the key, the
/// sequence window, and what tells whether the flow's egress port is still right.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub struct FlowHot {
    pub(crate) key: CompactKey,
    pub(crate) seq: SeqWindow,
    /// Destination MAC of the data direction (shadow MAC while rerouted); a sample to
    /// another MAC moves the flow to that MAC's port.
    pub(crate) dst_mac: [u8; 6],
    /// The flow maps to no monitored port (NO_PORT).
    pub(crate) unmapped: bool,
}

/// The rest of a flow's state: read or written when a window closes, on the fallback
/// estimators, on reports and expiry.
#[derive(Clone, Debug)]
pub struct FlowCold {
    pub(crate) key: FlowKey,
    /// Egress port index in the current compiled map, or NO_PORT.
    pub(crate) port: u32,
    pub(crate) is_tcp: bool,
    /// Changed since the last report.
    pub(crate) dirty: bool,
    /// Latest capture time of a sample that did not advance the sequence window (the
    /// flow was last seen at the later of this and the window's last sample).
    pub(crate) last_seen_ns: u64,
    /// Bits per second this flow currently adds to its port's load.
    pub(crate) contributed_bps: u64,
    /// Whether the flow fell silent at this switch (its load withdrawn).
    pub(crate) quiet: Quiet,
    /// Silence after which the flow counts as quiet (from its current estimate).
    pub(crate) quiet_after_ns: u64,
    /// End of the last reported estimate window: a window is reported once.
    pub(crate) reported_to_ns: u64,
    pub(crate) seq: SeqTotals,
    pub(crate) ack: SequenceRate,
    pub(crate) bytes: SampledBytesRate,
    pub(crate) ipid: Ipv4IdRate,
}

impl FlowCold {
    fn new(key: FlowKey, port: u32, is_tcp: bool, now_ns: u64) -> Self {
        FlowCold {
            key,
            port,
            is_tcp,
            dirty: false,
            last_seen_ns: now_ns,
            contributed_bps: 0,
            quiet: Quiet::Active,
            quiet_after_ns: u64::MAX,
            reported_to_ns: 0,
            seq: SeqTotals::default(),
            ack: SequenceRate::default(),
            bytes: SampledBytesRate::default(),
            ipid: Ipv4IdRate::default(),
        }
    }
}

/// One flow, read-only: its identity and estimates.
#[derive(Clone, Copy, Debug)]
pub struct FlowView<'a> {
    pub key: &'a FlowKey,
    /// Egress port index in the current compiled map, or NO_PORT.
    pub port: u32,
    pub dst_mac: [u8; 6],
    /// Bits per second this flow currently adds to its port's load.
    pub contributed_bps: u64,
    hot: &'a FlowHot,
    cold: &'a FlowCold,
}

impl<'a> FlowView<'a> {
    pub(crate) fn new(hot: &'a FlowHot, cold: &'a FlowCold) -> Self {
        FlowView {
            key: &cold.key,
            port: cold.port,
            dst_mac: hot.dst_mac,
            contributed_bps: cold.contributed_bps,
            hot,
            cold,
        }
    }

    pub fn is_tcp(&self) -> bool {
        self.cold.is_tcp
    }

    /// The data direction's sequence-number estimator.
    pub fn seq(&self) -> SeqRef<'a> {
        SeqRef {
            window: &self.hot.seq,
            totals: &self.cold.seq,
        }
    }

    /// Capture time of the flow's latest sample.
    pub fn last_seen_ns(&self) -> u64 {
        self.cold.last_seen_ns.max(self.hot.seq.last_ns())
    }

    /// The current windowed estimate: sequence numbers when usable, else ack numbers,
    /// else sampled bytes.
    pub fn current(&self, params: &WindowParams) -> Option<RateEstimate> {
        let seq = self.seq();
        let c = self.cold;
        if c.is_tcp
            && !seq.unusable(params)
            && let Some(r) = seq.rate()
        {
            return Some(RateEstimate {
                kind: EstimatorKind::TcpSeq,
                bytes_per_sec: r,
                samples: seq.rate_samples(),
                first_ns: seq.rate_from_ns(),
                last_ns: seq.rate_to_ns(),
            });
        }
        if c.is_tcp
            && seq.samples() == 0
            && let Some(r) = c.ack.rate()
        {
            return Some(RateEstimate {
                kind: EstimatorKind::TcpAck,
                bytes_per_sec: r,
                samples: c.ack.rate_samples(),
                first_ns: c.ack.rate_from_ns(),
                last_ns: c.ack.rate_to_ns(),
            });
        }
        if !c.is_tcp
            && let Some(r) = c.ipid.rate()
        {
            return Some(RateEstimate {
                kind: EstimatorKind::Ipv4Id,
                bytes_per_sec: r,
                samples: c.ipid.rate_samples(),
                first_ns: c.ipid.rate_from_ns(),
                last_ns: c.ipid.rate_to_ns(),
            });
        }
        let usable_seq = c.is_tcp && seq.rate().is_some() && !seq.unusable(params);
        if !usable_seq && let Some(r) = c.bytes.rate() {
            return Some(RateEstimate {
                kind: EstimatorKind::SampledBytes,
                bytes_per_sec: r,
                samples: c.bytes.rate_samples(),
                first_ns: c.bytes.rate_from_ns(),
                last_ns: c.bytes.rate_to_ns(),
            });
        }
        None
    }

    /// Mean rate over the sampled lifetime from sampled bytes x the sampling ratio, whatever
    /// estimator the flow uses (replay output, for comparison).
    pub fn sampled_bytes_lifetime_rate(&self) -> Option<f64> {
        self.cold.bytes.lifetime_rate()
    }

    /// Mean rate over the flow's whole sampled lifetime (replay output).
    pub fn lifetime(&self, params: &WindowParams) -> RateEstimate {
        let seq = self.seq();
        let c = self.cold;
        let seq_ok =
            c.is_tcp && seq.samples() > 1 && (!seq.unusable(params) || c.bytes.samples() < 2);
        let (kind, rate, samples, first, last) = if seq_ok {
            (
                EstimatorKind::TcpSeq,
                seq.lifetime_rate(),
                seq.samples(),
                seq.first_ns(),
                seq.last_ns(),
            )
        } else if c.is_tcp && seq.samples() == 0 && c.ack.samples() > 1 {
            (
                EstimatorKind::TcpAck,
                c.ack.lifetime_rate(),
                c.ack.samples(),
                c.ack.first_ns(),
                c.ack.last_ns(),
            )
        } else if !c.is_tcp
            && c.ipid.lifetime_rate().is_some()
            // Counted over most of the flow's samples (a sender that numbers sequentially).
            && c.ipid.counted_samples() * 2 >= c.bytes.samples()
        {
            (
                EstimatorKind::Ipv4Id,
                c.ipid.lifetime_rate(),
                c.ipid.counted_samples(),
                c.ipid.first_counted_ns(),
                c.ipid.last_counted_ns(),
            )
        } else {
            (
                EstimatorKind::SampledBytes,
                c.bytes.lifetime_rate(),
                c.bytes.samples(),
                c.bytes.first_ns(),
                c.bytes.last_ns(),
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
/// The index ([`SlotIndex`]) holds only 8-byte (hash tag, slot) entries; a slot's state
/// is split in a 64-byte [`FlowHot`] line, all that a data sample needs, and a
/// [`FlowCold`] record. Both the index entry and the hot line can be prefetched from
/// the hash alone ([`FlowTable::prefetch_index`], [`FlowTable::prefetch_flow`]), so a
/// worker can overlap the memory misses of many samples instead of taking them one by
/// one. With 100k flows the index and hot lines (~10 MB) stay in the last-level cache.
pub struct FlowTable {
    index: SlotIndex,
    hasher: foldhash::fast::RandomState,
    hot: Vec<FlowHot>,
    cold: Vec<FlowCold>,
    live: Vec<bool>,
    free: Vec<u32>,
    capacity: usize,
}

impl FlowTable {
    pub fn with_capacity(capacity: usize) -> Self {
        let hot: Vec<FlowHot> = Vec::with_capacity(capacity);
        advise_huge_pages(hot.as_ptr() as usize, capacity * size_of::<FlowHot>());
        let index = SlotIndex::with_capacity(capacity);
        advise_huge_pages(
            index.entries.as_ptr() as usize,
            index.entries.len() * size_of::<u64>(),
        );
        FlowTable {
            index,
            hasher: foldhash::fast::RandomState::default(),
            hot,
            cold: Vec::with_capacity(capacity),
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

    /// The compact form of a key (IPv6 addresses digested with the table's seed).
    #[inline(always)]
    pub fn compact_key(&self, key: &FlowKey) -> CompactKey {
        let t = &key.tuple;
        let (addrs, v6) = match (t.src, t.dst) {
            (std::net::IpAddr::V4(s), std::net::IpAddr::V4(d)) => {
                ((s.to_bits() as u64) << 32 | d.to_bits() as u64, 0)
            }
            (s, d) => (self.hasher.hash_one((addr_bits(&s), addr_bits(&d))), 1),
        };
        CompactKey {
            addrs,
            rest: (t.sport as u64) << 48
                | (t.dport as u64) << 32
                | (t.proto as u64) << 24
                | (key.switch as u64) << 8
                | v6,
        }
    }

    /// The table's (seeded) hash of a key.
    #[inline]
    pub fn hash(&self, key: &FlowKey) -> u64 {
        self.hash_compact(&self.compact_key(key))
    }

    #[inline(always)]
    pub fn hash_compact(&self, ck: &CompactKey) -> u64 {
        self.hasher.hash_one(ck)
    }

    /// Start loading the index entry of `hash` into the cache.
    #[inline(always)]
    pub fn prefetch_index(&self, hash: u64) {
        prefetch(self.index.home_ptr(hash));
    }

    /// Start loading the hot line of the flow of `hash` (if its index entry is already
    /// known) into the cache. Changes nothing; returns the slot prefetched (or NO_SLOT),
    /// a hint for [`FlowTable::find_hinted`].
    #[inline(always)]
    pub fn prefetch_flow(&self, hash: u64) -> u32 {
        if let Some(slot) = self.index.first_tag_match(hash)
            && let Some(st) = self.hot.get(slot as usize)
        {
            prefetch(st);
            return slot;
        }
        NO_SLOT
    }

    /// [`FlowTable::find`], trying `hint` (any slot number, or NO_SLOT) first: an IPv4
    /// compact key is exact, unique among live flows, and a free slot's key is
    /// [`CompactKey::EMPTY`], so a slot holding the key is the flow's.
    #[inline(always)]
    pub fn find_hinted(
        &self,
        hint: u32,
        hash: u64,
        ck: CompactKey,
        key: impl Fn() -> FlowKey,
    ) -> Option<u32> {
        if !ck.is_v6()
            && let Some(h) = self.hot.get(hint as usize)
            && h.key == ck
        {
            return Some(hint);
        }
        self.find(hash, ck, key)
    }

    /// Slot of the flow with compact key `ck` (hash `hash`); `key` gives the full key,
    /// needed only to confirm an IPv6 match.
    #[inline(always)]
    pub fn find(&self, hash: u64, ck: CompactKey, key: impl Fn() -> FlowKey) -> Option<u32> {
        let (hot, cold) = (&self.hot, &self.cold);
        self.index.find(hash, |s| {
            hot[s as usize].key == ck && (!ck.is_v6() || cold[s as usize].key == key())
        })
    }

    /// Add a flow that [`FlowTable::find`] did not find; None when the table is full.
    #[allow(clippy::too_many_arguments)]
    pub fn insert(
        &mut self,
        hash: u64,
        ck: CompactKey,
        key: FlowKey,
        dst_mac: [u8; 6],
        port: u32,
        is_tcp: bool,
        now_ns: u64,
    ) -> Option<u32> {
        debug_assert_eq!(hash, self.hash(&key));
        if self.index.len >= self.capacity {
            return None;
        }
        let hot = FlowHot {
            key: ck,
            seq: SeqWindow::default(),
            dst_mac,
            unmapped: port == NO_PORT,
        };
        let cold = FlowCold::new(key, port, is_tcp, now_ns);
        let slot = match self.free.pop() {
            Some(s) => {
                self.hot[s as usize] = hot;
                self.cold[s as usize] = cold;
                self.live[s as usize] = true;
                s
            }
            None => {
                self.hot.push(hot);
                self.cold.push(cold);
                self.live.push(true);
                (self.hot.len() - 1) as u32
            }
        };
        self.index.insert(hash, slot);
        Some(slot)
    }

    /// Slot of `key`, inserting a new flow if there is room.
    pub fn get_or_insert(
        &mut self,
        key: FlowKey,
        dst_mac: [u8; 6],
        port: u32,
        is_tcp: bool,
        now_ns: u64,
    ) -> Option<u32> {
        let ck = self.compact_key(&key);
        let hash = self.hash_compact(&ck);
        match self.find(hash, ck, || key) {
            Some(s) => Some(s),
            None => self.insert(hash, ck, key, dst_mac, port, is_tcp, now_ns),
        }
    }

    #[inline(always)]
    pub fn hot_mut(&mut self, slot: u32) -> &mut FlowHot {
        &mut self.hot[slot as usize]
    }

    #[inline]
    pub fn cold_mut(&mut self, slot: u32) -> &mut FlowCold {
        &mut self.cold[slot as usize]
    }

    #[inline]
    pub fn parts_mut(&mut self, slot: u32) -> (&mut FlowHot, &mut FlowCold) {
        (&mut self.hot[slot as usize], &mut self.cold[slot as usize])
    }

    pub fn view(&self, slot: u32) -> FlowView<'_> {
        FlowView::new(&self.hot[slot as usize], &self.cold[slot as usize])
    }

    pub fn remove(&mut self, slot: u32) -> FlowCold {
        let st = self.cold[slot as usize].clone();
        let hash = self.hash_compact(&self.hot[slot as usize].key);
        self.index.remove(hash, slot);
        self.hot[slot as usize].key = CompactKey::EMPTY;
        self.live[slot as usize] = false;
        self.free.push(slot);
        st
    }

    /// Number of slots ever used (live or free); slot ids are below this.
    pub fn slot_count(&self) -> usize {
        self.hot.len()
    }

    pub fn is_live(&self, slot: u32) -> bool {
        self.live.get(slot as usize).copied().unwrap_or(false)
    }

    pub fn iter(&self) -> impl Iterator<Item = FlowView<'_>> {
        self.hot
            .iter()
            .zip(self.cold.iter())
            .zip(self.live.iter())
            .filter(|(_, l)| **l)
            .map(|((h, c), _)| FlowView::new(h, c))
    }

    /// Every live flow's hot and cold parts.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&mut FlowHot, &mut FlowCold)> {
        self.hot
            .iter_mut()
            .zip(self.cold.iter_mut())
            .zip(self.live.iter())
            .filter(|(_, l)| **l)
            .map(|((h, c), _)| (h, c))
    }
}

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

    #[test]
    fn only_non_tcp_sampled_bytes_is_low_confidence() {
        // A congested TCP flow whose window holds a retransmission falls back to sampled
        // bytes: TE must still act on it (this flag once hid every congested flow from TE).
        assert!(!EstimatorKind::SampledBytes.low_confidence(true));
        assert!(EstimatorKind::SampledBytes.low_confidence(false));
        for k in [EstimatorKind::TcpSeq, EstimatorKind::TcpAck, EstimatorKind::Ipv4Id] {
            assert!(!k.low_confidence(true) && !k.low_confidence(false), "{k:?}");
        }
    }

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
    fn hot_state_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<FlowHot>(), 64);
        assert_eq!(std::mem::align_of::<FlowHot>(), 64);
    }

    fn key6(src_last: u8, sport: u16) -> FlowKey {
        let mut s = [0u8; 16];
        s[0] = 0xfd;
        s[15] = src_last;
        FlowKey {
            switch: 0,
            tuple: FiveTuple {
                src: IpAddr::V6(s.into()),
                dst: IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
                proto: 6,
                sport,
                dport: 80,
            },
        }
    }

    #[test]
    fn compact_keys_tell_every_field_apart() {
        let t = FlowTable::with_capacity(4);
        let base = key(1);
        let mut variants = vec![base];
        let mut k = base;
        k.switch = 1;
        variants.push(k);
        let mut k = base;
        k.tuple.proto = 17;
        variants.push(k);
        let mut k = base;
        k.tuple.dport = 81;
        variants.push(k);
        variants.push(FlowKey {
            switch: 0,
            tuple: base.tuple.reversed(),
        });
        variants.push(key6(1, 1));
        variants.push(key6(2, 1));
        let cks: Vec<CompactKey> = variants.iter().map(|k| t.compact_key(k)).collect();
        for i in 0..cks.len() {
            assert_ne!(cks[i], CompactKey::EMPTY);
            for j in 0..i {
                assert_ne!(cks[i], cks[j], "{:?} vs {:?}", variants[i], variants[j]);
            }
        }
        assert!(!cks[0].is_v6() && cks[5].is_v6());
    }

    #[test]
    fn ipv6_flows_are_confirmed_by_full_key() {
        let mut t = FlowTable::with_capacity(8);
        let a = t
            .get_or_insert(key6(1, 5), [0; 6], NO_PORT, true, 0)
            .unwrap();
        let b = t
            .get_or_insert(key6(2, 5), [0; 6], NO_PORT, true, 0)
            .unwrap();
        assert_ne!(a, b);
        assert_eq!(
            t.get_or_insert(key6(1, 5), [0; 6], NO_PORT, true, 0),
            Some(a)
        );
        // A hint is never taken for an IPv6 key: the full key decides.
        let ck = t.compact_key(&key6(2, 5));
        let hash = t.hash_compact(&ck);
        assert_eq!(t.find_hinted(a, hash, ck, || key6(2, 5)), Some(b));
        // Same compact key (as after a digest collision) but another full key: no match.
        assert_eq!(t.find(hash, ck, || key6(3, 5)), None);
    }

    #[test]
    fn freed_slot_hint_matches_nothing() {
        let mut t = FlowTable::with_capacity(4);
        let a = t.get_or_insert(key(1), [0; 6], NO_PORT, true, 0).unwrap();
        let ck = t.compact_key(&key(1));
        let hash = t.hash_compact(&ck);
        assert_eq!(t.find_hinted(a, hash, ck, || key(1)), Some(a));
        t.remove(a);
        assert_eq!(t.find_hinted(a, hash, ck, || key(1)), None);
        assert_eq!(t.find_hinted(NO_SLOT, hash, ck, || key(1)), None);
        // A stale hint to another flow's slot falls back to the index.
        let b = t.get_or_insert(key(2), [0; 6], NO_PORT, true, 0).unwrap();
        let c = t.get_or_insert(key(1), [0; 6], NO_PORT, true, 0).unwrap();
        assert_eq!(t.find_hinted(b, hash, ck, || key(1)), Some(c));
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
