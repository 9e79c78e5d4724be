//! The flow table of the INT state: entries in two dense vectors, a small hot part (what
//! the short way of `IntState::apply_buf` reads: the key, times, the flow's last stack
//! and where its hops' per-switch entries sit) and a cold part (path, latencies, hop
//! values: only the full way reads it), found through an open-addressing index of
//! 8-byte slots. The hot parts of 100 flows take 50 KB in 13 pages, where one map of
//! whole entries (1.3 KB each) spread them over as many pages as flows.

use super::stack_mask::STACK_WORDS;
use super::{HopSlots, MAX_HOPS, Path, Tracked};
use crate::inband::flow_key::FlowKey;

/// What the short way updates for one hop: where its link, queue and congestion-queue
/// entries sit (`NO_SLOT`: none) and the values they get.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct HotHop {
    pub link: u32,
    pub queue: u32,
    pub cqueue: u32,
    pub tx_utilization: u32,
    pub queue_occupancy: u32,
    pub queue_congestion: u32,
}

impl HotHop {
    #[inline(always)]
    pub(super) fn of(s: &HopSlots) -> HotHop {
        HotHop {
            link: s.link,
            queue: s.queue,
            cqueue: s.cqueue,
            tx_utilization: s.values.tx_utilization,
            queue_occupancy: s.values.queue_occupancy,
            queue_congestion: s.values.queue_congestion,
        }
    }
}

/// Hops the hot part holds the entry updates of ([`QuickOps`]); the short way of a flow
/// with more hops (or more keys) goes through the cold part. Ten: the hot part is then 9
/// lines, an odd number, so that the entries of a vector spread over the cache's sets.
pub(super) const HOT_HOPS: usize = 10;

/// One hop's entry updates on the short way: the index of its link entry and the
/// utilisation it gets, the index of its queue entry and the occupancy and congestion it
/// gets (which of them a hop has: [`QuickOps::shape`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct QuickHop {
    pub link: u32,
    pub util: u32,
    pub queue: u32,
    pub occupancy: u32,
    pub congestion: u32,
}

/// [`QuickOps::shape`] bits: every hop has a link entry (utilisation), a queue entry
/// (occupancy), and that queue entry gets the congestion too.
pub(super) const SHAPE_LINK: u8 = 1;
pub(super) const SHAPE_OCC: u8 = 2;
pub(super) const SHAPE_CON: u8 = 4;

/// A flow's per-switch entry updates for the first pass of the short way
/// (`HotTables::quick`): write each entry's value and last-seen time and see whether any
/// value left its interval, without events and without testing per hop which keys it
/// has. Filled from the flow's slots by `SwitchTables::fill_quick` whenever the full way
/// rewrites them, when every hop has the same keys (the usual case: one bitmap for the
/// fabric) and the flow at most [`HOT_HOPS`] hops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub(super) struct QuickOps {
    /// No entry of `hop` can be due a periodic push before this time (the earliest
    /// next push of any of them when the ops were filled or last checked; an entry's
    /// next push time only moves later while its index holds).
    pub push_floor: u64,
    /// Every link index in `hop` is below `link_bound`, every queue index below
    /// `queue_bound`: checked against the tables' lengths once per report.
    pub link_bound: u32,
    pub queue_bound: u32,
    /// `hop[..hops]` holds every key of every hop of the flow's last report.
    pub ready: bool,
    pub shape: u8,
    pub hops: u8,
    pub hop: [QuickHop; HOT_HOPS],
}

impl QuickOps {
    pub(super) const NONE: QuickOps = QuickOps {
        push_floor: 0,
        link_bound: 0,
        queue_bound: 0,
        ready: false,
        shape: 0,
        hops: 0,
        hop: [QuickHop { link: 0, util: 0, queue: 0, occupancy: 0, congestion: 0 }; HOT_HOPS],
    };
}

/// What the short way reads, in the order it reads it: one 64-byte line of key, times
/// and stack description, then the masked stack, then the entry updates.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(super) struct FlowHot {
    pub words: [u64; 5],
    pub last_seen_ns: u64,
    pub last_push_ns: u64,
    /// The hop fields of the last report applied to the existing flow (0: none yet);
    /// with `index` and `stack`, what the short way compares a new report with.
    pub slot_fields: u16,
    /// Hops of that report.
    pub slot_hops: u8,
    /// Every key of every hop of that report was found or added (none refused), and
    /// no table index moved since.
    pub slots_complete: bool,
    /// Version and bitmap of that report's stack (`stack_layout`) when `stack` holds
    /// it, else `NO_LAYOUT`.
    pub slot_layout: u32,
    /// That report's hop stack, raw, with every byte the state does not read zeroed.
    pub stack: [u64; STACK_WORDS],
    /// The per-switch entries its hops update (from the cold `slots`).
    pub quick: QuickOps,
}

/// What only the full way reads.
#[derive(Clone, Copy, Debug)]
pub(super) struct FlowCold {
    /// Where each stack position's link and queue entries were found last time, and the
    /// hop's values (the keys they were found at).
    pub slots: [HopSlots; MAX_HOPS],
    pub path: Path,
    pub has_latency: bool,
    pub latency: Tracked,
    /// Hop latency per position of `path` (flow + switch keys).
    pub hop_latency: [Tracked; MAX_HOPS],
}

/// Index slot: 0 empty, else the high 32 bits of the key's hash and the entry's
/// position + 1.
const EMPTY: u64 = 0;
const MIN_SLOTS: usize = 256;

pub(super) struct FlowTable {
    index: Vec<u64>,
    mask: usize,
    hot: Vec<FlowHot>,
    cold: Vec<FlowCold>,
    /// Each entry's key hash (for rebuilding the index).
    hashes: Vec<u64>,
}

impl FlowTable {
    pub(super) fn new() -> FlowTable {
        FlowTable { index: vec![EMPTY; MIN_SLOTS], mask: MIN_SLOTS - 1, hot: Vec::new(), cold: Vec::new(), hashes: Vec::new() }
    }

    pub(super) fn len(&self) -> usize {
        self.hot.len()
    }

    #[inline(always)]
    fn tag(hash: u64) -> u64 {
        hash >> 32 << 32
    }

    /// The position of the key's entry.
    #[inline(always)]
    pub(super) fn find(&self, key: &FlowKey) -> Option<usize> {
        let tag = Self::tag(key.hash());
        let mut i = key.hash() as usize;
        loop {
            i &= self.mask;
            let s = self.index[i];
            if s == EMPTY {
                return None;
            }
            if s & !0xffff_ffff == tag {
                let at = (s as u32 - 1) as usize;
                if key.words_eq(&self.hot[at].words) {
                    return Some(at);
                }
            }
            i += 1;
        }
    }

    /// Both parts of an entry.
    #[inline(always)]
    pub(super) fn entry(&mut self, at: usize) -> (&mut FlowHot, &mut FlowCold) {
        (&mut self.hot[at], &mut self.cold[at])
    }

    /// Adds a key that is not in the table.
    pub(super) fn insert(&mut self, key: &FlowKey, hot: FlowHot, cold: FlowCold) {
        debug_assert_eq!(hot.words, *key.words());
        let at = self.hot.len();
        self.hot.push(hot);
        self.cold.push(cold);
        self.hashes.push(key.hash());
        if self.hot.len() * 2 > self.index.len() {
            self.rebuild(self.index.len() * 2);
        } else {
            self.place(key.hash(), at);
        }
    }

    fn place(&mut self, hash: u64, at: usize) {
        let mut i = hash as usize;
        loop {
            i &= self.mask;
            if self.index[i] == EMPTY {
                self.index[i] = Self::tag(hash) | (at as u64 + 1);
                return;
            }
            i += 1;
        }
    }

    /// The index over the current entries, with `slots` slots.
    fn rebuild(&mut self, slots: usize) {
        self.index.clear();
        self.index.resize(slots, EMPTY);
        self.mask = slots - 1;
        for at in 0..self.hot.len() {
            let h = self.hashes[at];
            self.place(h, at);
        }
    }

    /// Keeps the entries `keep` accepts; returns how many went.
    pub(super) fn retain(&mut self, keep: impl Fn(&FlowHot) -> bool) -> usize {
        let before = self.hot.len();
        let mut w = 0;
        for r in 0..before {
            if keep(&self.hot[r]) {
                self.hot.swap(w, r);
                self.cold.swap(w, r);
                self.hashes.swap(w, r);
                w += 1;
            }
        }
        self.hot.truncate(w);
        self.cold.truncate(w);
        self.hashes.truncate(w);
        let removed = before - w;
        if removed > 0 {
            let slots = (w * 2).next_power_of_two().max(MIN_SLOTS).max(self.index.len() / 4);
            self.rebuild(slots);
        }
        removed
    }

    /// Every entry: the slot indices no longer hold (a table index moved).
    pub(super) fn forget_slots(&mut self) {
        for (h, c) in self.hot.iter_mut().zip(&mut self.cold) {
            h.slots_complete = false;
            h.quick.ready = false;
            c.slots = [HopSlots::NONE; MAX_HOPS];
        }
    }

    pub(super) fn cold_entries(&self) -> impl Iterator<Item = &FlowCold> {
        self.cold.iter()
    }

    pub(super) fn get(&self, key: &FlowKey) -> Option<(&FlowHot, &FlowCold)> {
        self.find(key).map(|at| (&self.hot[at], &self.cold[at]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::FiveTuple;
    use crate::inband::flow_key::FlowKeys;
    use crate::inband::state::NO_SLOT;
    use crate::inband::state::stack_mask::NO_LAYOUT;

    fn entry(keys: &FlowKeys, n: u32) -> (FlowKey, FlowHot, FlowCold) {
        let f = FiveTuple { src: [10, 0, 0, 1].into(), dst: std::net::Ipv4Addr::from(n).into(), proto: 17, sport: 1, dport: 2 };
        let key = keys.key(&f);
        let hot = FlowHot {
            words: *key.words(),
            last_seen_ns: n as u64,
            last_push_ns: 0,
            slot_fields: 0,
            slot_hops: 0,
            slots_complete: true,
            slot_layout: NO_LAYOUT,
            stack: [0; STACK_WORDS],
            quick: QuickOps { hops: 1, hop: [QuickHop { link: n, ..QuickHop::default() }; HOT_HOPS], ..QuickOps::NONE },
        };
        let cold = FlowCold { slots: [HopSlots::NONE; MAX_HOPS], path: Path { len: 0, switches: [0; MAX_HOPS] }, has_latency: false, latency: Tracked::default(), hop_latency: [Tracked::default(); MAX_HOPS] };
        (key, hot, cold)
    }

    #[test]
    fn the_hot_part_is_nine_lines() {
        assert_eq!(std::mem::size_of::<FlowHot>(), 576);
    }

    #[test]
    fn entries_are_found_through_growth_and_retain() {
        let keys = FlowKeys::default();
        let mut t = FlowTable::new();
        // Past the first index size (256 slots hold 128 entries).
        for n in 0..1000 {
            let (k, h, c) = entry(&keys, n);
            assert_eq!(t.find(&k), None);
            t.insert(&k, h, c);
        }
        assert_eq!(t.len(), 1000);
        for n in 0..1000 {
            let (k, ..) = entry(&keys, n);
            let at = t.find(&k).expect("inserted");
            assert_eq!(t.entry(at).0.quick.hop[0].link, n);
        }
        assert_eq!(t.retain(|h| h.last_seen_ns % 3 == 0), 666);
        t.forget_slots();
        for n in 0..1000 {
            let (k, ..) = entry(&keys, n);
            match t.find(&k) {
                Some(at) => {
                    assert_eq!(n % 3, 0);
                    let (h, c) = t.entry(at);
                    assert_eq!(h.last_seen_ns, n as u64);
                    assert!(!h.slots_complete);
                    assert!(!h.quick.ready);
                    assert_eq!(c.slots[0].link, NO_SLOT);
                }
                None => assert_ne!(n % 3, 0),
            }
        }
        assert!(t.index.len() >= 2 * t.len());
    }
}
