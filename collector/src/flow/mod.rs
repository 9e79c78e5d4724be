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
/// and share adjacent cache lines; the fallback estimators come last.
#[derive(Clone, Debug)]
#[repr(C)]
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
/// The index holds only 4-byte slot numbers (a few MB for 100k+ flows, mostly cache
/// resident); the key comparison reads the flow state, which the sample needs next anyway.
/// This saves one memory miss per sample over a map that stores the keys.
pub struct FlowTable {
    index: hashbrown::HashTable<u32>,
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
            index: hashbrown::HashTable::with_capacity(capacity),
            hasher: foldhash::fast::RandomState::default(),
            slots,
            live: Vec::with_capacity(capacity),
            free: Vec::with_capacity(capacity),
            capacity,
        }
    }

    pub fn len(&self) -> usize {
        self.index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
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
        let hash = self.hasher.hash_one(key);
        let slots = &self.slots;
        if let Some(&slot) = self.index.find(hash, |&s| slots[s as usize].key == key) {
            return Some(slot);
        }
        if self.index.len() >= self.capacity {
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
        let (slots, hasher) = (&self.slots, &self.hasher);
        self.index
            .insert_unique(hash, slot, |&s| hasher.hash_one(slots[s as usize].key));
        Some(slot)
    }

    #[inline]
    pub fn get(&mut self, slot: u32) -> &mut FlowState {
        &mut self.slots[slot as usize]
    }

    pub fn remove(&mut self, slot: u32) -> FlowState {
        let st = self.slots[slot as usize].clone();
        let hash = self.hasher.hash_one(st.key);
        if let Ok(entry) = self.index.find_entry(hash, |&s| s == slot) {
            entry.remove();
        }
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
}
