//! Capture stage: live AF_PACKET TPACKET_V3 rings and pcap/pcapng replay.

pub mod afpacket;
pub mod pcap;

/// Capture metadata of one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameMeta {
    /// Capture time, ns since the Unix epoch.
    pub ts_ns: u64,
    /// VLAN the capture layer stripped from the frame (AF_PACKET reports it out of band).
    pub vlan: Option<u16>,
    /// Length on the wire (may exceed the captured bytes).
    pub wire_len: u32,
}
