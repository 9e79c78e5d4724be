//! The userspace half of the XDP fast path's filter rule (kernel half:
//! `collector/bpf/int_xdp.c`): what the collector writes into the kernel's maps after
//! applying a report, from its own state, so that the kernel drops only reports that
//! would change nothing but latest values.
//!
//! The kernel drops an INT v0.5 / v1.0 report over IPv4 when, and only when:
//! - nothing is waiting in the ring buffer and userspace is not writing its maps;
//! - its flow has an entry, written by userspace after a report of that flow it accepted,
//!   and the report's header shape (lengths, offsets, report header byte 0, inner kind,
//!   transport, shim length, instruction bitmap and counts) is that report's;
//! - the kernel clock is before the entry's deadline: the earliest periodic push due of
//!   the flow and of every link and queue key of its hops, and half the idle timeout after
//!   any of them was last seen;
//! - every hop carries the same switch id, and its hop latency, the flow latency, and each
//!   hop's link utilisation and queue occupancy / congestion are in the interval
//!   (`value / width`) userspace holds for that key; link and queue intervals are read from
//!   maps userspace rewrites after every report that touches the key, so a change made by
//!   another flow is seen.
//!
//! Everything else (v2.x, IPv6, VLAN-tagged inner packets, garbage) comes up unchanged.
//! These structures repeat the C ones; their sizes are checked in the tests below.

use crate::decode::FiveTuple;
use crate::decode::int::instructions::{Plan, V05, V1_V2, field};
use crate::decode::int::{HopMetadata, IntReport, MAX_HOPS, ReportVersion};

use super::state::IntState;

/// Kernel counters, in the order of `enum counter` in int_xdp.c.
pub const COUNTERS: [&str; 13] = [
    "reports",
    "filtered",
    "ring",
    "ring_full",
    "too_big",
    "unsupported",
    "no_entry",
    "shape",
    "path",
    "latency",
    "shared",
    "due",
    "busy",
];
pub const C_FILTERED: usize = 1;
pub const C_RING: usize = 2;
pub const C_NO_ENTRY: u8 = 6;
pub const C_SHARED: u8 = 10;
pub const NO_FIELD: u8 = 0xff;
/// Largest UDP payload the kernel copies into the ring buffer.
pub const MAX_PAYLOAD: usize = 2048;

macro_rules! pod {
    ($($t:ty),*) => {$(
        // SAFETY: repr(C), only integers and arrays of them, no padding left implicit.
        unsafe impl aya::Pod for $t {}
    )*};
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KConfig {
    pub width_flow_latency: u64,
    pub width_hop_latency: u64,
    pub width_link: u64,
    pub width_occupancy: u64,
    pub width_congestion: u64,
    pub generation: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KFlowKey {
    /// Addresses as they lie in the packet (network order bytes read natively).
    pub src: u32,
    pub dst: u32,
    pub sport: u16,
    pub dport: u16,
    pub proto: u8,
    pub pad: [u8; 3],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KShape {
    pub payload_len: u16,
    pub stack_off: u16,
    pub bitmap: u16,
    pub version: u8,
    pub hdr0: u8,
    pub inner: u8,
    pub md_count: u8,
    pub md_hops: u8,
    pub md_max_hops: u8,
    pub shim_len: u8,
    pub l4_proto: u8,
    pub l4_len: u8,
    pub pad: u8,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KHopExpect {
    pub switch_id: u32,
    pub pad: u32,
    pub latency_interval: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KFlowEntry {
    pub shape: KShape,
    pub filter_until_ns: u64,
    pub latency_interval: u64,
    pub hops: u8,
    pub hop_bytes: u8,
    pub off_switch: u8,
    pub off_ports: u8,
    pub off_latency: u8,
    pub off_occupancy: u8,
    pub off_congestion: u8,
    pub off_utilization: u8,
    pub hop: [KHopExpect; MAX_HOPS],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KLinkKey {
    pub switch_id: u32,
    pub port: u16,
    pub pad: u16,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KLinkValue {
    pub interval: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KQueueKey {
    pub switch_id: u32,
    pub queue: u8,
    pub pad: [u8; 3],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KQueueValue {
    pub occupancy_interval: u64,
    pub congestion_interval: u64,
    pub has_occupancy: u8,
    pub has_congestion: u8,
    pub pad: [u8; 6],
}

pod!(KConfig, KFlowKey, KShape, KFlowEntry, KLinkKey, KLinkValue, KQueueKey, KQueueValue);

/// The head of a ring-buffer record (`struct record` without its data).
#[derive(Clone, Copy, Debug)]
pub struct RecordHead {
    pub shape: KShape,
    pub key: KFlowKey,
    pub len: usize,
    pub filterable: bool,
    /// Index in [`COUNTERS`] of the check that sent it up.
    pub why: u8,
}

pub const RECORD_HEAD: usize = 40;

impl RecordHead {
    /// Splits a record into its head and payload; None when it is shorter than it says.
    pub fn parse(b: &[u8]) -> Option<(RecordHead, &[u8])> {
        if b.len() < RECORD_HEAD {
            return None;
        }
        // SAFETY: both are plain integer structs of 16 bytes; read_unaligned copies.
        let shape: KShape = unsafe { std::ptr::read_unaligned(b.as_ptr().cast()) };
        let key: KFlowKey = unsafe { std::ptr::read_unaligned(b[16..].as_ptr().cast()) };
        let len = u32::from_ne_bytes(b[32..36].try_into().ok()?) as usize;
        let filterable = b[36] != 0;
        let why = b[37];
        let data = b.get(RECORD_HEAD..RECORD_HEAD + len)?;
        Some((RecordHead { shape, key, len, filterable, why }, data))
    }
}

/// The interval a value is in: the number both halves of the rule compare.
#[inline]
pub fn interval(value: u64, width: u64) -> u64 {
    value / width
}

/// The kernel key of a flow (IPv4 only).
pub fn flow_key(f: &FiveTuple) -> Option<KFlowKey> {
    match (f.src, f.dst) {
        (std::net::IpAddr::V4(s), std::net::IpAddr::V4(d)) => Some(KFlowKey {
            src: u32::from_ne_bytes(s.octets()),
            dst: u32::from_ne_bytes(d.octets()),
            sport: f.sport,
            dport: f.dport,
            proto: f.proto,
            pad: [0; 3],
        }),
        _ => None,
    }
}

/// Converts the state's clock (wall clock, `export::event::now_ns`) to the kernel's
/// (`bpf_ktime_get_ns`, CLOCK_MONOTONIC).
#[derive(Clone, Copy, Debug)]
pub struct Clocks {
    pub wall_ns: u64,
    pub mono_ns: u64,
}

impl Clocks {
    pub fn now() -> Clocks {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: ts is a valid timespec.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        Clocks { wall_ns: crate::export::event::now_ns(), mono_ns: ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64 }
    }

    /// Kernel time of wall-clock time `t`, `margin` earlier (0 when before boot). The
    /// offset between the clocks is rounded to the millisecond, so that the same
    /// deadline converts to the same kernel time from one report to the next (and an
    /// unchanged entry need not be written again); the margin covers the rounding.
    fn to_mono(&self, t: u64, margin: u64) -> u64 {
        const Q: i128 = 1_000_000;
        let offset = self.mono_ns as i128 - self.wall_ns as i128;
        let offset = (offset + Q / 2).div_euclid(Q) * Q;
        (t as i128 + offset - margin as i128).max(0) as u64
    }
}

/// A deadline is moved this much earlier: the two clocks are read a little apart and
/// their offset is rounded, and a report that comes up early is only an extra pass.
pub const DEADLINE_MARGIN_NS: u64 = 2_000_000;

/// One per-switch key a report touched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SharedKey {
    Link(KLinkKey),
    Queue(KQueueKey),
}

/// The per-switch keys one hop touches, as `IntState` keys them.
pub fn hop_keys(h: &HopMetadata, fields: u16, out: &mut Vec<SharedKey>) {
    if fields & (field::L1_PORTS | field::TX_UTILIZATION) == field::L1_PORTS | field::TX_UTILIZATION {
        out.push(SharedKey::Link(KLinkKey { switch_id: h.switch_id, port: h.egress_port, pad: 0 }));
    }
    if fields & field::QUEUE_OCCUPANCY != 0 {
        out.push(SharedKey::Queue(KQueueKey { switch_id: h.switch_id, queue: h.queue_id, pad: [0; 3] }));
    }
    if fields & field::QUEUE_CONGESTION != 0 && (fields & field::QUEUE_OCCUPANCY == 0 || h.congestion_queue_id != h.queue_id) {
        out.push(SharedKey::Queue(KQueueKey { switch_id: h.switch_id, queue: h.congestion_queue_id, pad: [0; 3] }));
    }
}

/// Every per-switch key a report touched (hops and, in v2.x, the reporting node's own).
pub fn report_keys(r: &IntReport, out: &mut Vec<SharedKey>) {
    if r.local_fields != 0 {
        hop_keys(&r.local, r.local_fields, out);
    }
    if r.has_int && r.hop_fields & field::SWITCH_ID != 0 {
        for h in r.hops() {
            hop_keys(h, r.hop_fields, out);
        }
    }
}

/// What the kernel map should hold for a per-switch key now (None: delete it).
pub enum SharedValue {
    Link(Option<KLinkValue>),
    Queue(Option<KQueueValue>),
}

pub fn shared_value(state: &IntState, k: &SharedKey) -> SharedValue {
    match k {
        SharedKey::Link(l) => SharedValue::Link(state.link_view(l.switch_id, l.port).map(|v| KLinkValue { interval: v.interval })),
        SharedKey::Queue(q) => SharedValue::Queue(state.queue_view(q.switch_id, q.queue).map(|v| KQueueValue {
            occupancy_interval: v.occupancy_interval.unwrap_or(0),
            congestion_interval: v.congestion_interval.unwrap_or(0),
            has_occupancy: v.occupancy_interval.is_some() as u8,
            has_congestion: v.congestion_interval.is_some() as u8,
            pad: [0; 6],
        })),
    }
}

/// The flow entry the kernel may filter with after `r` (decoded from a record with
/// `head`) was applied to `state`; None when the kernel must pass the flow's next
/// report up (the report is not one the kernel reads, a key was refused, or a push is
/// already due).
pub fn flow_entry(state: &IntState, head: &RecordHead, r: &IntReport, clocks: &Clocks) -> Option<KFlowEntry> {
    let version = match r.version {
        ReportVersion::V05 => 0,
        ReportVersion::V10 => 1,
        ReportVersion::V2 => return None,
    };
    if !head.filterable || head.shape.version != version || !r.has_int || r.local_fields != 0 || r.hop_fields & field::SWITCH_ID == 0 {
        return None;
    }
    let n = r.hop_count as usize;
    let flow = r.flow?;
    if n == 0 || n > MAX_HOPS || flow_key(&flow)? != head.key {
        return None;
    }
    let plan: Plan = if version == 0 { *V05.plan(head.shape.bitmap).ok()? } else { *V1_V2.plan(head.shape.bitmap).ok()? };
    if plan.fields != r.hop_fields {
        return None;
    }
    let view = state.flow_view(&flow)?;
    let has_latency = r.hop_fields & field::HOP_LATENCY != 0;
    if view.hops as usize != n || (has_latency && !view.has_latency) {
        return None;
    }
    let cfg = state.config();
    let half_idle = cfg.idle_timeout_ns / 2;
    let push = cfg.push_interval_ns;
    let mut deadline = (view.last_push_ns + push).min(view.last_seen_ns + half_idle);
    let off = |f: u16| if plan.fields & f != 0 { plan.offset(f) as u8 } else { NO_FIELD };
    let mut e = KFlowEntry {
        shape: head.shape,
        filter_until_ns: 0,
        latency_interval: if has_latency { view.latency_interval } else { 0 },
        hops: n as u8,
        hop_bytes: plan.hop_bytes as u8,
        off_switch: off(field::SWITCH_ID),
        off_ports: off(field::L1_PORTS),
        off_latency: off(field::HOP_LATENCY),
        off_occupancy: off(field::QUEUE_OCCUPANCY),
        off_congestion: off(field::QUEUE_CONGESTION),
        off_utilization: off(field::TX_UTILIZATION),
        hop: [KHopExpect::default(); MAX_HOPS],
    };
    let mut keys = Vec::with_capacity(3);
    for (i, h) in r.hops().iter().enumerate() {
        // The state keeps the path from the first switch; the stack starts at the last.
        let at = n - 1 - i;
        if view.path[at] != h.switch_id {
            return None;
        }
        e.hop[i] = KHopExpect {
            switch_id: h.switch_id,
            pad: 0,
            latency_interval: if has_latency { view.hop_latency_interval[at] } else { 0 },
        };
        keys.clear();
        hop_keys(h, r.hop_fields, &mut keys);
        for k in &keys {
            let (push_at, seen) = match k {
                SharedKey::Link(l) => {
                    let v = state.link_view(l.switch_id, l.port)?;
                    (v.last_push_ns, v.last_seen_ns)
                }
                SharedKey::Queue(q) => {
                    let v = state.queue_view(q.switch_id, q.queue)?;
                    if r.hop_fields & field::QUEUE_OCCUPANCY != 0 && h.queue_id == q.queue && v.occupancy_interval.is_none() {
                        return None;
                    }
                    if r.hop_fields & field::QUEUE_CONGESTION != 0 && h.congestion_queue_id == q.queue && v.congestion_interval.is_none() {
                        return None;
                    }
                    (v.last_push_ns, v.last_seen_ns)
                }
            };
            deadline = deadline.min(push_at + push).min(seen + half_idle);
        }
    }
    e.filter_until_ns = clocks.to_mono(deadline, DEADLINE_MARGIN_NS);
    (e.filter_until_ns > clocks.mono_ns).then_some(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_match_the_c_program() {
        use std::mem::size_of;
        assert_eq!(size_of::<KConfig>(), 48);
        assert_eq!(size_of::<KFlowKey>(), 16);
        assert_eq!(size_of::<KShape>(), 16);
        assert_eq!(size_of::<KFlowEntry>(), 16 + 8 + 8 + 8 + 16 * MAX_HOPS);
        assert_eq!(size_of::<KLinkKey>(), 8);
        assert_eq!(size_of::<KQueueValue>(), 24);
        assert_eq!(MAX_HOPS, 16, "int_xdp.c MAX_HOPS");
    }

    #[test]
    fn deadlines_convert_stably_and_never_late() {
        let a = Clocks { wall_ns: 1_700_000_000_000_000_000, mono_ns: 5_000_123_456 };
        // Read 300 ns apart: the same deadline converts to the same kernel time.
        let b = Clocks { wall_ns: a.wall_ns + 1000, mono_ns: a.mono_ns + 1300 };
        let t = a.wall_ns + 1_000_000_000;
        assert_eq!(a.to_mono(t, DEADLINE_MARGIN_NS), b.to_mono(t, DEADLINE_MARGIN_NS));
        let exact = t - a.wall_ns + a.mono_ns;
        let k = a.to_mono(t, DEADLINE_MARGIN_NS);
        assert!(k < exact && exact - k <= DEADLINE_MARGIN_NS + 500_000, "{k} vs {exact}");
        assert_eq!(a.to_mono(0, DEADLINE_MARGIN_NS), 0);
    }

    #[test]
    fn record_head_rejects_short_records() {
        let mut b = vec![0u8; RECORD_HEAD + 10];
        b[32..36].copy_from_slice(&10u32.to_ne_bytes());
        b[36] = 1;
        b[37] = C_SHARED;
        let (h, data) = RecordHead::parse(&b).unwrap();
        assert_eq!((h.len, h.filterable, h.why, data.len()), (10, true, C_SHARED, 10));
        b[32..36].copy_from_slice(&11u32.to_ne_bytes());
        assert!(RecordHead::parse(&b).is_none());
        assert!(RecordHead::parse(&b[..RECORD_HEAD - 1]).is_none());
    }

    #[test]
    fn congestion_of_the_occupancy_queue_is_one_key() {
        let mut h = HopMetadata::EMPTY;
        h.switch_id = 7;
        h.egress_port = 3;
        h.queue_id = 1;
        h.congestion_queue_id = 1;
        let all = field::SWITCH_ID | field::L1_PORTS | field::TX_UTILIZATION | field::QUEUE_OCCUPANCY | field::QUEUE_CONGESTION;
        let mut keys = Vec::new();
        hop_keys(&h, all, &mut keys);
        assert_eq!(keys.len(), 2);
        h.congestion_queue_id = 2;
        keys.clear();
        hop_keys(&h, all, &mut keys);
        assert_eq!(keys.len(), 3);
        keys.clear();
        hop_keys(&h, field::SWITCH_ID | field::L1_PORTS, &mut keys);
        assert!(keys.is_empty(), "ports without utilisation key nothing");
    }
}
