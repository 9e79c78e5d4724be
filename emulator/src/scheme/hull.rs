//! HULL (Alizadeh et al., NSDI'12) phantom queues: each port keeps a virtual
//! queue that drains at `gamma` (< 1) of the link rate. ECN-capable packets are
//! CE-marked when the phantom queue exceeds `threshold`, so senders back off
//! before a real queue builds and the link runs with bandwidth headroom.

use super::route::TableRoute;
use super::{Admission, Enqueue, FifoSchedule, PatternRouter, QueueBank, RouterPorts, SingleQueue};
use crate::packet::{CE, ECT, Packet, PortId, QueueId, Slot};

pub struct PhantomQueueMarker {
    /// Drain rate as a fraction of the link rate, per timeslot.
    pub gamma: f64,
    /// Marking threshold on the phantom queue, in packets.
    pub threshold: f64,
    level: Vec<f64>,
    last: Vec<Slot>,
}

impl PhantomQueueMarker {
    pub fn new(ports: usize, gamma: f64, threshold: f64) -> Self {
        PhantomQueueMarker {
            gamma,
            threshold,
            level: vec![0.0; ports],
            last: vec![0; ports],
        }
    }
    pub fn level(&self, port: PortId) -> f64 {
        self.level[port as usize]
    }
}

impl Enqueue for PhantomQueueMarker {
    #[inline]
    fn enqueue(
        &mut self,
        mut pkt: Packet,
        port: PortId,
        queue: QueueId,
        bank: &mut QueueBank,
        now: Slot,
    ) -> Admission {
        let p = port as usize;
        let drained = self.gamma * (now - self.last[p]) as f64;
        self.last[p] = now;
        self.level[p] = (self.level[p] - drained).max(0.0) + 1.0;
        let pq = bank.port(port);
        if pq.is_full() {
            return Admission::Dropped;
        }
        let mark = self.level[p] > self.threshold && pkt.has(ECT);
        if mark {
            pkt.flags |= CE;
        }
        pq.push(queue, pkt);
        if mark {
            Admission::Marked
        } else {
            Admission::Accepted
        }
    }
}

pub type HullRouter = PatternRouter<TableRoute, SingleQueue, PhantomQueueMarker, FifoSchedule>;

pub fn router(ports: &RouterPorts, route: TableRoute, gamma: f64, threshold: f64) -> HullRouter {
    let e = PhantomQueueMarker::new(ports.buffers.len(), gamma, threshold);
    PatternRouter::new(ports, route, SingleQueue, e, FifoSchedule)
}
