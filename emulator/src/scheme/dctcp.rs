//! DCTCP marking: CE-mark ECN-capable packets that arrive to a queue at or above K.

use super::route::TableRoute;
use super::{Admission, Enqueue, FifoSchedule, PatternRouter, QueueBank, RouterPorts, SingleQueue};
use crate::packet::{CE, ECT, Packet, PortId, QueueId, Slot};

#[derive(Clone, Copy, Debug)]
pub struct DctcpEnqueue {
    /// Marking threshold in packets (instantaneous queue).
    pub k: u32,
}

impl Enqueue for DctcpEnqueue {
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
        if pq.is_full() {
            return Admission::Dropped;
        }
        let mark = pq.len >= self.k && pkt.has(ECT);
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

pub type DctcpRouter = PatternRouter<TableRoute, SingleQueue, DctcpEnqueue, FifoSchedule>;

pub fn router(ports: &RouterPorts, route: TableRoute, k: u32) -> DctcpRouter {
    PatternRouter::new(ports, route, SingleQueue, DctcpEnqueue { k }, FifoSchedule)
}
