//! HULL (Alizadeh et al., NSDI'12) phantom queues: each port keeps a virtual
//! queue that drains at `gamma` (< 1) of the link rate. ECN-capable packets are
//! CE-marked when the phantom queue exceeds `threshold`, so senders back off
//! before a real queue builds and the link runs with bandwidth headroom.

use super::route::TableRoute;
use super::{Admission, Enqueue, FifoSchedule, PatternRouter, QueueBank, RouterPorts, SingleQueue};
use crate::packet::{CE, ECT, Packet, PortId, QueueId, Slot};

pub struct PhantomQueueMarker {
    /// Drain rate as a fraction of the link rate.
    pub gamma: f64,
    /// Marking threshold on the phantom queue, in packets.
    pub threshold: f64,
    /// Per port: packets the phantom queue drains per slot, `gamma` times the
    /// link's rate in packets per slot (a link slower than the slots drains
    /// its phantom queue as much slower).
    drain: Vec<f64>,
    level: Vec<f64>,
    last: Vec<Slot>,
}

impl PhantomQueueMarker {
    /// Ports whose links run at the base rate (one packet per slot).
    pub fn new(ports: usize, gamma: f64, threshold: f64) -> Self {
        Self::with_rates(&vec![1.0; ports], gamma, threshold)
    }
    /// Ports whose links carry `rates[p]` packets per slot.
    pub fn with_rates(rates: &[f64], gamma: f64, threshold: f64) -> Self {
        PhantomQueueMarker {
            gamma,
            threshold,
            drain: rates.iter().map(|r| gamma * r).collect(),
            level: vec![0.0; rates.len()],
            last: vec![0; rates.len()],
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
        let drained = self.drain[p] * (now - self.last[p]) as f64;
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
    let e = PhantomQueueMarker::with_rates(&ports.rates, gamma, threshold);
    PatternRouter::new(ports, route, SingleQueue, e, FifoSchedule)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slower_link_drains_its_phantom_queue_in_proportion() {
        // A link at half the slot rate, offered its full rate (a packet
        // every 2 slots): above gamma of its rate, so the phantom queue
        // grows and marks.
        let mut half = PhantomQueueMarker::with_rates(&[0.5], 0.95, 2.0);
        assert!(marks_at(&mut half, 0.5, 2000) > 900);
        // The same offered load at 90 % of that link's rate: below gamma,
        // no marks.
        let mut half = PhantomQueueMarker::with_rates(&[0.5], 0.95, 2.0);
        assert_eq!(marks_at(&mut half, 0.45, 2000), 0);
        // Drained as if at the slot rate (the old model), the full-rate
        // offer never marks.
        let mut full = PhantomQueueMarker::new(1, 0.95, 2.0);
        assert_eq!(marks_at(&mut full, 0.5, 2000), 0);
    }

    /// Packets at `per_slot` packets per slot (evenly spaced) for `slots`.
    fn marks_at(m: &mut PhantomQueueMarker, per_slot: f64, slots: u64) -> usize {
        let mut bank = QueueBank::new(&[100_000], 1);
        let mut next = 0.0;
        let mut n = 0;
        for t in 0..slots {
            while next <= t as f64 {
                let pkt = Packet {
                    flags: ECT,
                    ..Packet::default()
                };
                if matches!(m.enqueue(pkt, 0, 0, &mut bank, t), Admission::Marked) {
                    n += 1;
                }
                next += 1.0 / per_slot;
            }
        }
        n
    }
}
