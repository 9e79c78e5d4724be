//! Decode stage: turns captured bytes into typed samples without copying.
//!
//! One module per telemetry source: `frame` (mirrored data-plane frames, the Planck
//! samples the capture workers decode into a [`PacketSample`]), `int` (INT telemetry
//! reports, which arrive on UDP sockets and feed `inband`), `pint` (PINT digests carried in
//! a sink's frames). Each source keeps its own pipeline from this stage on, so the mirrored
//! frame path dispatches on nothing.

pub mod frame;
pub mod int;
pub mod pint;

use std::net::IpAddr;

pub use frame::MirroredFrameDecoder;

/// The 5-tuple of a flow as seen in one direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FiveTuple {
    pub src: IpAddr,
    pub dst: IpAddr,
    pub proto: u8,
    pub sport: u16,
    pub dport: u16,
}

impl FiveTuple {
    /// The same conversation seen from the other end.
    pub fn reversed(&self) -> FiveTuple {
        FiveTuple {
            src: self.dst,
            dst: self.src,
            proto: self.proto,
            sport: self.dport,
            dport: self.sport,
        }
    }
}

/// TCP header fields the estimators need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpSegment {
    pub seq: u32,
    pub ack: u32,
    pub syn: bool,
    pub fin: bool,
    pub rst: bool,
    pub ack_flag: bool,
    /// Payload length declared by the IP header (not the captured length: mirrors and
    /// snap lengths may truncate the sample).
    pub payload_len: u32,
}

impl TcpSegment {
    /// Sequence number just after this segment (SYN and FIN occupy one number each).
    pub fn seq_end(&self) -> u32 {
        self.seq
            .wrapping_add(self.payload_len)
            .wrapping_add(self.syn as u32)
            .wrapping_add(self.fin as u32)
    }

    /// An acknowledgement carrying no data: its ack number measures the reverse direction.
    pub fn is_pure_ack(&self) -> bool {
        self.ack_flag && self.payload_len == 0 && !self.syn && !self.fin && !self.rst
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    Tcp(TcpSegment),
    /// UDP with its declared payload length.
    Udp {
        payload_len: u32,
    },
    /// Any other IP payload (ICMP, non-first fragments, ...), with the IP payload length.
    Other {
        payload_len: u32,
    },
}

impl Transport {
    pub fn payload_len(&self) -> u32 {
        match self {
            Transport::Tcp(t) => t.payload_len,
            Transport::Udp { payload_len } | Transport::Other { payload_len } => *payload_len,
        }
    }
}

/// One mirrored packet sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketSample {
    /// Outermost VLAN id (the RSPAN VLAN), from the frame or from the capture metadata.
    pub vlan: Option<u16>,
    pub src_mac: [u8; 6],
    pub dst_mac: [u8; 6],
    pub tuple: FiveTuple,
    pub transport: Transport,
    /// IPv4 identification (None for IPv6): counts the packets of a sender that numbers
    /// them sequentially.
    pub ipv4_id: Option<u16>,
}

/// Why a frame was skipped. Each kind has its own counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// Too short or inconsistent headers.
    Malformed(&'static str),
    /// A well-formed frame that does not carry IPv4 or IPv6 (ARP, LLDP, ...).
    NotIp,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::Malformed(why) => write!(f, "malformed frame: {why}"),
            DecodeError::NotIp => f.write_str("not an IP frame"),
        }
    }
}

/// A decoder of captured frames. `vlan_hint` is the VLAN the capture layer already
/// stripped from the frame (AF_PACKET reports it out of band), if any.
pub trait Decoder {
    fn decode(&self, frame: &[u8], vlan_hint: Option<u16>) -> Result<PacketSample, DecodeError>;

    /// Optional fast path for the decoder's most common frames, inlined into the
    /// worker's per-frame loop: the same packet sample [`Decoder::decode`] gives for
    /// the frames it takes, None for every other frame (which then goes to `decode`).
    #[inline(always)]
    fn decode_common(&self, _frame: &[u8], _vlan_hint: Option<u16>) -> Option<PacketSample> {
        None
    }
}
