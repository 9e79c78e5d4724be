//! Strict priority: packet class `prio` (0 = highest) selects one of up to 64
//! queues; the scheduler always serves the highest non-empty class. The port
//! buffer is shared: when it is full, an arriving packet pushes out the tail of
//! the lowest non-empty class below its own, so low classes cannot hold the
//! buffer against high ones.

use super::route::TableRoute;
use super::{Admission, Classify, Enqueue, PatternRouter, QueueBank, RouterPorts, Schedule};
use crate::packet::{Packet, PortId, QueueId, Slot};

pub const MAX_PRIORITY_QUEUES: usize = 64;

#[derive(Clone, Copy, Debug)]
pub struct PriorityClassify {
    pub queues: u16,
}

impl Classify for PriorityClassify {
    fn queues_per_port(&self) -> usize {
        self.queues as usize
    }
    #[inline]
    fn classify(&mut self, pkt: &Packet, _port: PortId) -> QueueId {
        pkt.prio.min(self.queues as u32 - 1) as QueueId
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct PriorityPushOut;

impl Enqueue for PriorityPushOut {
    #[inline]
    fn enqueue(
        &mut self,
        pkt: Packet,
        port: PortId,
        queue: QueueId,
        bank: &mut QueueBank,
        _now: Slot,
    ) -> Admission {
        let pq = bank.port(port);
        if !pq.is_full() {
            pq.push(queue, pkt);
            return Admission::Accepted;
        }
        match pq.queues.iter().rposition(|q| !q.is_empty()) {
            Some(low) if low > queue as usize => {
                pq.drop_tail(low as QueueId);
                pq.push(queue, pkt);
                Admission::Evicted
            }
            _ => Admission::Dropped,
        }
    }
}

/// Per port, a bitmap of non-empty queues would be faster; with <= 64 queues a
/// scan of `queues` lengths is a few cycles and keeps the stage stateless.
#[derive(Clone, Copy, Debug, Default)]
pub struct StrictPrioritySchedule;

impl Schedule for StrictPrioritySchedule {
    #[inline]
    fn schedule(&mut self, port: PortId, bank: &mut QueueBank, _now: Slot) -> Option<Packet> {
        let pq = bank.port(port);
        let q = pq.queues.iter().position(|q| !q.is_empty())?;
        pq.pop(q as QueueId)
    }
}

pub type PriorityRouter =
    PatternRouter<TableRoute, PriorityClassify, PriorityPushOut, StrictPrioritySchedule>;

pub fn router(ports: &RouterPorts, route: TableRoute, queues: u16) -> PriorityRouter {
    PatternRouter::new(
        ports,
        route,
        PriorityClassify { queues },
        PriorityPushOut,
        StrictPrioritySchedule,
    )
}
