//! Telemetry report v0.5 + INT v0.5 over TCP/UDP (shim, metadata header, stack, tail).
//!
//! ```text
//! report (12 B): Ver(4) NProto(4) | D Q F rsvd(15) hw_id(6) | seq(32) | ingress ts(32)
//! inner packet:  Ethernet / IPv4 / IPv6 (NProto 0 / 1 / 2), then TCP or UDP
//! shim (4 B):    type(8)=1 | rsvd(8) | length(8) | rsvd(8)
//! INT (8 B):     Ver(2) Rep(2) C E R(5) InsCnt(5) | MaxHopCnt(8) | TotalHopCnt(8)
//!                | instruction bitmap(16) | rsvd(16)
//! stack:         TotalHopCnt x InsCnt 4-byte words
//! tail (4 B):    next proto(8) | dest port(16) | original DSCP(8)
//! ```
//! The shim length counts shim, header, stack and tail in words; 0 is read as "not
//! filled in" (INTCollector's benchmark generator leaves it 0), any other value must
//! match.

use super::instructions::{V05, be32};
use super::packet::{Inner, parse_inner};
use super::{IntDecoder, IntError, ReportBuf, ReportFlags, ReportVersion};

pub const REPORT_HEADER_LEN: usize = 12;
const SHIM_LEN: usize = 4;
const MD_LEN: usize = 8;
const TAIL_LEN: usize = 4;
/// INT v0.5 shim type of hop-by-hop INT.
pub const SHIM_TYPE_HOP_BY_HOP: u8 = 1;

#[inline(always)]
pub fn decode(d: &IntDecoder, p: &[u8], out: &mut ReportBuf) -> Result<(), IntError> {
    if p.len() < REPORT_HEADER_LEN {
        return Err(IntError::ReportHeaderTruncated);
    }
    let inner = match p[0] & 0x0f {
        0 => Inner::Ethernet,
        1 => Inner::Ipv4,
        2 => Inner::Ipv6,
        _ => return Err(IntError::InnerUnsupported),
    };
    let l4 = parse_inner(inner, &p[REPORT_HEADER_LEN..])?;
    let int = l4.payload;
    if int.len() < SHIM_LEN {
        return Err(IntError::ShimTruncated);
    }
    if int[0] != SHIM_TYPE_HOP_BY_HOP {
        return Err(IntError::ShimTypeUnsupported);
    }
    let shim_words = int[2] as usize;
    if int.len() < SHIM_LEN + MD_LEN {
        return Err(IntError::ShimTruncated);
    }
    let md = &int[SHIM_LEN..SHIM_LEN + MD_LEN];
    if md[0] >> 6 != 0 {
        return Err(IntError::IntVersionMismatch);
    }
    let ins_cnt = (md[1] & 0x1f) as u32;
    let max_hops = md[2];
    let total_hops = md[3] as usize;
    let bitmap = u16::from_be_bytes([md[4], md[5]]);
    let plan = V05.plan(bitmap)?;
    if plan.count != ins_cnt {
        return Err(IntError::InstructionCountMismatch);
    }
    if total_hops > max_hops as usize {
        return Err(IntError::HopCountExceedsMax);
    }
    if total_hops > d.max_hops() {
        return Err(IntError::TooManyHops);
    }
    let stack_len = total_hops * plan.hop_bytes;
    let stack_start = SHIM_LEN + MD_LEN;
    if int.len() < stack_start + stack_len {
        return Err(IntError::HopCountExceedsPacket);
    }
    if shim_words != 0 && shim_words * 4 != stack_start + stack_len + TAIL_LEN {
        return Err(IntError::ShimLengthMismatch);
    }
    let tail_at = stack_start + stack_len;
    if int.len() < tail_at + TAIL_LEN {
        return Err(IntError::TailTruncated);
    }
    let (r, raw) = out.push(ReportVersion::V05)?;
    r.hw_id = p[3] & 0x3f;
    r.seq = be32(&p[4..]);
    r.report_ts = Some(be32(&p[8..]));
    r.flags = ReportFlags {
        dropped: p[1] & 0x80 != 0,
        congested_queue: p[1] & 0x40 != 0,
        tracked_flow: p[1] & 0x20 != 0,
        intermediate: false,
    };
    r.original_dscp = Some(int[tail_at + 3]);
    r.hop_budget = max_hops;
    d.read_stack(&V05, &plan, &int[stack_start..tail_at], total_hops, r, raw, Some(l4.tuple))
}
