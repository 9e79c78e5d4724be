//! RED (Floyd & Jacobson): drop (or, with ECN, mark) with a probability that rises
//! linearly from 0 at `min_th` to `max_p` at `max_th` of the EWMA queue length;
//! above `max_th` every packet is dropped. The probability is applied per packet
//! as configured (no inter-drop count spreading), so the measured drop rate
//! follows the configured curve directly.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::route::TableRoute;
use super::{Admission, Enqueue, FifoSchedule, PatternRouter, QueueBank, RouterPorts, SingleQueue};
use crate::packet::{CE, ECT, Packet, PortId, QueueId, Slot};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedParams {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    /// EWMA weight w_q.
    pub weight: f64,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
}

impl RedParams {
    /// The configured curve: drop/mark probability at average queue `avg`.
    pub fn probability(&self, avg: f64) -> f64 {
        if avg < self.min_th {
            0.0
        } else if avg >= self.max_th {
            1.0
        } else {
            self.max_p * (avg - self.min_th) / (self.max_th - self.min_th)
        }
    }
}

pub struct RedEnqueue {
    pub params: RedParams,
    /// EWMA of the queue length, per port.
    pub avg: Vec<f64>,
    /// One generator per port: all RED state is per port, so a switch split
    /// across workers by output port draws exactly what it draws whole.
    rng: Vec<SmallRng>,
}

impl RedEnqueue {
    pub fn new(params: RedParams, ports: usize, seed: u64) -> Self {
        RedEnqueue {
            params,
            avg: vec![0.0; ports],
            rng: (0..ports as u64)
                .map(|p| SmallRng::seed_from_u64(seed ^ p.wrapping_mul(0x9E37_79B9_7F4A_7C15)))
                .collect(),
        }
    }
}

impl Enqueue for RedEnqueue {
    #[inline]
    fn enqueue(
        &mut self,
        mut pkt: Packet,
        port: PortId,
        queue: QueueId,
        bank: &mut QueueBank,
        _now: Slot,
    ) -> Admission {
        let pq = bank.port(port);
        let avg = &mut self.avg[port as usize];
        *avg += self.params.weight * (pq.len as f64 - *avg);
        if pq.is_full() {
            return Admission::Dropped;
        }
        let p = self.params.probability(*avg);
        if p > 0.0 && (p >= 1.0 || self.rng[port as usize].r#gen::<f64>() < p) {
            if self.params.ecn && pkt.has(ECT) && p < 1.0 {
                pkt.flags |= CE;
                pq.push(queue, pkt);
                return Admission::Marked;
            }
            return Admission::Dropped;
        }
        pq.push(queue, pkt);
        Admission::Accepted
    }
}

pub type RedRouter = PatternRouter<TableRoute, SingleQueue, RedEnqueue, FifoSchedule>;

pub fn router(ports: &RouterPorts, route: TableRoute, params: RedParams, seed: u64) -> RedRouter {
    let e = RedEnqueue::new(params, ports.buffers.len(), seed);
    PatternRouter::new(ports, route, SingleQueue, e, FifoSchedule)
}
