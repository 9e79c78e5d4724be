//! Per-flow deficit round robin (Shreedhar & Varghese). Flows hash into `queues`
//! queues per port; when the port buffer is full the longest queue loses its
//! tail packet, so an aggressive flow cannot take the buffer from the others.

use std::collections::VecDeque;

use super::route::{TableRoute, flow_hash};
use super::{Admission, Classify, Enqueue, PatternRouter, QueueBank, RouterPorts, Schedule};
use crate::packet::{Packet, PortId, QueueId, Slot};

#[derive(Clone, Copy, Debug)]
pub struct FlowClassify {
    pub queues: u16,
}

impl Classify for FlowClassify {
    fn queues_per_port(&self) -> usize {
        self.queues as usize
    }
    #[inline]
    fn classify(&mut self, pkt: &Packet, _port: PortId) -> QueueId {
        (flow_hash(pkt.flow ^ 0x5bd1_e995) % self.queues as u32) as QueueId
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct LongestQueueDrop;

impl Enqueue for LongestQueueDrop {
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
        let (longest, len) = pq
            .queues
            .iter()
            .enumerate()
            .map(|(i, q)| (i, q.len()))
            .max_by_key(|&(_, l)| l)
            .unwrap_or((0, 0));
        if longest == queue as usize || len == 0 {
            return Admission::Dropped;
        }
        pq.drop_tail(longest as QueueId);
        pq.push(queue, pkt);
        Admission::Evicted
    }
}

/// Deficit counters are in packets: abstract packets all have one MTU.
pub struct DrrSchedule {
    quantum: u32,
    deficit: Vec<Vec<u32>>,
    /// Round-robin list of backlogged queues, per port.
    active: Vec<VecDeque<QueueId>>,
    in_active: Vec<Vec<bool>>,
}

impl DrrSchedule {
    pub fn new(ports: usize, queues: usize, quantum: u32) -> Self {
        DrrSchedule {
            quantum: quantum.max(1),
            deficit: vec![vec![0; queues]; ports],
            active: vec![VecDeque::new(); ports],
            in_active: vec![vec![false; queues]; ports],
        }
    }
}

impl Schedule for DrrSchedule {
    fn schedule(&mut self, port: PortId, bank: &mut QueueBank, _now: Slot) -> Option<Packet> {
        let p = port as usize;
        let pq = bank.port(port);
        // Queues that became backlogged since the last visit join the round's tail.
        for (q, queue) in pq.queues.iter().enumerate() {
            if !queue.is_empty() && !self.in_active[p][q] {
                self.in_active[p][q] = true;
                self.active[p].push_back(q as QueueId);
            }
        }
        while let Some(&q) = self.active[p].front() {
            let qi = q as usize;
            if pq.queues[qi].is_empty() {
                self.active[p].pop_front();
                self.in_active[p][qi] = false;
                self.deficit[p][qi] = 0;
                continue;
            }
            if self.deficit[p][qi] == 0 {
                // New turn for this queue: grant a quantum, but serve it only
                // once it reaches the head again after this grant.
                self.deficit[p][qi] = self.quantum;
            }
            self.deficit[p][qi] -= 1;
            let pkt = pq.pop(q);
            if self.deficit[p][qi] == 0 || pq.queues[qi].is_empty() {
                self.active[p].pop_front();
                if pq.queues[qi].is_empty() {
                    self.in_active[p][qi] = false;
                    self.deficit[p][qi] = 0;
                } else {
                    self.active[p].push_back(q);
                }
            }
            return pkt;
        }
        None
    }
}

pub type DrrRouter = PatternRouter<TableRoute, FlowClassify, LongestQueueDrop, DrrSchedule>;

pub fn router(ports: &RouterPorts, route: TableRoute, queues: u16, quantum: u32) -> DrrRouter {
    let s = DrrSchedule::new(ports.buffers.len(), queues as usize, quantum);
    PatternRouter::new(ports, route, FlowClassify { queues }, LongestQueueDrop, s)
}
