//! The abstract packet: one MTU of data moving through the emulated network.

/// Timeslot index. One timeslot is one MTU's serialisation time at the base link rate.
pub type Slot = u64;
/// Endpoint (host) identifier, global across the topology.
pub type EndpointId = u16;
/// Output or input port index on a switch.
pub type PortId = u16;
/// Queue index within a port.
pub type QueueId = u16;

/// Packet carries an ECN-capable transport.
pub const ECT: u8 = 1 << 0;
/// Congestion Experienced, set by a marking scheme.
pub const CE: u8 = 1 << 1;
/// Acknowledgement travelling back to the sender (out of band, or in band with
/// `transport.ack_path = "in_band"`; see `engine`).
pub const ACK: u8 = 1 << 2;
/// ACK echoes a CE mark (ECN-Echo).
pub const ECE: u8 = 1 << 3;
/// Last packet of a flow.
pub const FIN: u8 = 1 << 4;
/// Open-loop packet: counted at the receiver but never acknowledged.
pub const OPEN_LOOP: u8 = 1 << 5;
/// A receiver's delayed-ACK timer, scheduled to itself as a marker.
pub const DELAYED: u8 = 1 << 6;
/// ACK carries a SACK block: the triggering packet's sequence in `data[0..4]`.
pub const SACK: u8 = 1 << 7;

/// Where a real host's frame carries its length (`data[WIRE_LEN..WIRE_LEN + 2]`,
/// little-endian bytes; 0 means one MTU) for links that price frames by length
/// (`real_hosts.frame_time = "length"` or in-band ACKs, `engine::Shared::frame_bytes`;
/// an in-band ACK is priced by its `ACK` flag instead). Only real hosts' frames
/// set it, and a run that prices by length has no scheme or transport that
/// writes those bytes (PINT, HPCC): checked at validation.
pub const WIRE_LEN: usize = 6;

/// One abstract packet (32 bytes, 8-aligned so copies are whole words). `src`/`dst` plus `flow` and `seq` are enough
/// for the lab fabric to derive real addresses and TCP sequence numbers
/// (`seq * payload_bytes`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(8))]
pub struct Packet {
    pub flow: u32,
    /// Sequence number within the flow, in packets. For ACKs: the cumulative ACK.
    pub seq: u32,
    /// Priority class (strict priority) or remaining flow size in packets (pFabric).
    pub prio: u32,
    /// Timeslot the packet was sent (low 32 bits), echoed in ACKs.
    pub stamp: u32,
    pub src: EndpointId,
    pub dst: EndpointId,
    /// Forwarding tag: 0 follows the default routes. Reserved for path tags
    /// (e.g. shadow-MAC path ids) chosen at the ingress edge.
    pub tag: u16,
    pub flags: u8,
    /// Hops taken so far (guards against routing loops in custom topologies).
    pub hops: u8,
    /// Scheme-defined bytes; the emulator interprets none of them, except a
    /// real host's frame length at `WIRE_LEN` when links price by length.
    pub data: [u8; 8],
}

impl Packet {
    #[inline]
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
    /// The frame length a real host's frame carries (`WIRE_LEN`); 0 for
    /// every other packet (one MTU).
    #[inline]
    pub fn wire_len(&self) -> u32 {
        u16::from_le_bytes([self.data[WIRE_LEN], self.data[WIRE_LEN + 1]]) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn packet_is_compact() {
        assert_eq!(std::mem::size_of::<Packet>(), 32);
    }
}
