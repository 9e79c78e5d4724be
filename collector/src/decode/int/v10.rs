//! Telemetry report v1.0 + INT v1.0 over TCP/UDP.
//!
//! ```text
//! report (Len x 4 B, Len >= 4):
//!   Ver(4)=1 Len(4) NProto(3) RepMdBits(6) rsvd(6) D Q F hw_id(6) | switch id(32)
//!   | seq(32) | ingress ts(32)
//! inner packet: Ethernet / IPv4 / IPv6 (NProto 0 / 1 / 2), then TCP or UDP
//! shim (4 B):   type(8)=1 | rsvd(8) | length(8) | DSCP(6) rsvd(2)
//! INT (8 B):    Ver(4)=1 Rep(2) C E | M rsvd(7) rsvd(3) HopML(5) | RemainingHopCnt(8)
//!               | instruction bitmap(16) | rsvd(16)
//! stack:        (length - 3) words, a whole number of HopML-word hops
//! ```
//! The shim length counts shim, INT header and stack in words.

use super::instructions::{V1_V2, be32};
use super::packet::{Inner, parse_inner};
use super::{IntDecoder, IntError, ReportBuf, ReportFlags, ReportVersion};

pub const MIN_HEADER_WORDS: u8 = 4;
const SHIM_LEN: usize = 4;
const MD_LEN: usize = 8;
pub const SHIM_TYPE_HOP_BY_HOP: u8 = 1;

#[inline(always)]
pub fn decode(d: &IntDecoder, p: &[u8], out: &mut ReportBuf) -> Result<(), IntError> {
    let hdr_len = (p[0] & 0x0f) as usize * 4;
    if p.len() < hdr_len {
        return Err(IntError::ReportHeaderTruncated);
    }
    let inner = match p[1] >> 5 {
        0 => Inner::Ethernet,
        1 => Inner::Ipv4,
        2 => Inner::Ipv6,
        _ => return Err(IntError::InnerUnsupported),
    };
    let l4 = parse_inner(inner, &p[hdr_len..])?;
    let int = l4.payload;
    if int.len() < SHIM_LEN + MD_LEN {
        return Err(IntError::ShimTruncated);
    }
    if int[0] != SHIM_TYPE_HOP_BY_HOP {
        return Err(IntError::ShimTypeUnsupported);
    }
    let total = int[2] as usize * 4;
    if total < SHIM_LEN + MD_LEN {
        return Err(IntError::ShimLengthMismatch);
    }
    if int.len() < total {
        return Err(IntError::HopCountExceedsPacket);
    }
    let md = &int[SHIM_LEN..SHIM_LEN + MD_LEN];
    if md[0] >> 4 != 1 {
        return Err(IntError::IntVersionMismatch);
    }
    let hop_ml = (md[2] & 0x1f) as usize;
    let bitmap = u16::from_be_bytes([md[4], md[5]]);
    let plan = V1_V2.plan(bitmap)?;
    if hop_ml * 4 != plan.hop_bytes {
        return Err(IntError::InstructionCountMismatch);
    }
    let stack = &int[SHIM_LEN + MD_LEN..total];
    let hops = if plan.hop_bytes == 0 {
        if !stack.is_empty() {
            return Err(IntError::StackNotWholeHops);
        }
        0
    } else {
        if !stack.len().is_multiple_of(plan.hop_bytes) {
            return Err(IntError::StackNotWholeHops);
        }
        stack.len() / plan.hop_bytes
    };
    let (r, raw) = out.push(ReportVersion::V10)?;
    r.hw_id = p[3] & 0x3f;
    r.node_id = Some(be32(&p[4..]));
    r.seq = be32(&p[8..]);
    r.report_ts = Some(be32(&p[12..]));
    r.flags = ReportFlags {
        dropped: p[2] & 0x01 != 0,
        congested_queue: p[3] & 0x80 != 0,
        tracked_flow: p[3] & 0x40 != 0,
        intermediate: false,
    };
    r.original_dscp = Some(int[3] >> 2);
    r.hop_budget = md[3];
    d.read_stack(&V1_V2, &plan, stack, hops, r, raw, Some(l4.tuple))
}
