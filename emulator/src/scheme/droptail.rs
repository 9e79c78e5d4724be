//! DropTail: accept while the port buffer has room, else drop the arriving packet.

use super::route::TableRoute;
use super::{Admission, Enqueue, FifoSchedule, PatternRouter, QueueBank, RouterPorts, SingleQueue};
use crate::packet::{Packet, PortId, QueueId, Slot};

#[derive(Clone, Copy, Debug, Default)]
pub struct DropTailEnqueue;

impl Enqueue for DropTailEnqueue {
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
        if pq.is_full() {
            return Admission::Dropped;
        }
        pq.push(queue, pkt);
        Admission::Accepted
    }
}

pub type DropTailRouter = PatternRouter<TableRoute, SingleQueue, DropTailEnqueue, FifoSchedule>;

pub fn router(ports: &RouterPorts, route: TableRoute) -> DropTailRouter {
    PatternRouter::new(ports, route, SingleQueue, DropTailEnqueue, FifoSchedule)
}
