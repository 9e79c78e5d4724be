//! What the XDP fast path (`inband::xdp_filter`) needs to read of the state: for a flow
//! and for the per-switch keys, the interval each value is in and when the key is next
//! due a periodic push or an idle check. Read-only.

use super::{IntState, MAX_HOPS};
use crate::decode::FiveTuple;

/// A flow as the state holds it. Intervals are `value / width` of the last reported
/// values (the state keeps each interval's start, `start / width` is the same number).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowView {
    pub hops: u8,
    /// Switch ids from the first switch to the last (path order).
    pub path: [u32; MAX_HOPS],
    pub has_latency: bool,
    pub latency_interval: u64,
    /// Per path position.
    pub hop_latency_interval: [u64; MAX_HOPS],
    pub last_push_ns: u64,
    pub last_seen_ns: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkView {
    pub interval: u64,
    pub last_push_ns: u64,
    pub last_seen_ns: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueView {
    pub occupancy_interval: Option<u64>,
    pub congestion_interval: Option<u64>,
    pub last_push_ns: u64,
    pub last_seen_ns: u64,
}

impl IntState {
    pub fn flow_view(&self, flow: &FiveTuple) -> Option<FlowView> {
        let (hot, e) = self.flows.get(&self.flow_keys.key(flow))?;
        let w = self.cfg.widths;
        let mut hop_latency_interval = [0; MAX_HOPS];
        for (o, t) in hop_latency_interval.iter_mut().zip(&e.hop_latency) {
            *o = t.start / w.hop_latency_ns;
        }
        Some(FlowView {
            hops: e.path.len,
            path: e.path.switches,
            has_latency: e.has_latency,
            latency_interval: e.latency.start / w.flow_latency_ns,
            hop_latency_interval,
            last_push_ns: hot.last_push_ns,
            last_seen_ns: hot.last_seen_ns,
        })
    }

    pub fn link_view(&self, switch: u32, port: u16) -> Option<LinkView> {
        let i = self.sw.links.find(&(switch, port))?;
        let e = self.sw.links.get(i);
        Some(LinkView {
            interval: e.util.start / self.cfg.widths.link_utilization,
            last_push_ns: e.push.last_ns,
            last_seen_ns: e.last_seen_ns,
        })
    }

    pub fn queue_view(&self, switch: u32, queue: u8) -> Option<QueueView> {
        let i = self.sw.queues.find(&(switch, queue))?;
        let e = self.sw.queues.get(i);
        let w = self.cfg.widths;
        Some(QueueView {
            occupancy_interval: e.occupancy.map(|t| t.start / w.queue_occupancy),
            congestion_interval: e.congestion.map(|t| t.start / w.queue_congestion),
            last_push_ns: e.push.last_ns,
            last_seen_ns: e.last_seen_ns,
        })
    }
}
