//! Built-in endpoints: flow generators, open-loop packet sources and the
//! per-flow window transport, so experiments run without real hosts.

pub mod receiver;
pub mod sizes;
pub mod transport;
pub mod workload;

use crate::packet::EndpointId;
use crate::queue::PacketQueue;

/// One endpoint's sending side.
#[derive(Debug)]
pub struct EndpointState {
    pub id: EndpointId,
    /// Local indices of flows with data left to send.
    pub active: Vec<u32>,
    /// Local indices of all flows this endpoint opened, in order: the n-th
    /// has flow id n * endpoints + id.
    pub opened: Vec<u32>,
    pub rr: usize,
    /// Open-loop packets waiting for the uplink (bounded; overflow is counted).
    pub nic: PacketQueue,
    pub nic_capacity: usize,
    /// Indices into the partition's shuffle queues, if this endpoint runs one.
    pub sequential: Option<usize>,
    pub delivered: u64,
}

impl EndpointState {
    pub fn new(id: EndpointId, nic_capacity: usize) -> Self {
        EndpointState {
            id,
            active: Vec::new(),
            opened: Vec::new(),
            rr: 0,
            // Grows on demand up to `nic_capacity`: a short backlog stays in a few cache lines.
            nic: PacketQueue::with_capacity(nic_capacity.min(16)),
            nic_capacity,
            sequential: None,
            delivered: 0,
        }
    }
}
