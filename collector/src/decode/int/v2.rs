//! Telemetry report v2.0 / v2.1: a group header, then individual reports; each carries
//! the reporting node's own metadata (RepMdBits) and, for InType Ethernet/IPv4/IPv6, the
//! monitored packet, which in INT-MD mode holds the v2 shim, INT-MD header and stack.
//!
//! ```text
//! group (8 B):      Ver(4)=2 hw_id(6) seq(22) | node id(32)
//! individual (12 B + metadata + contents):
//!   RepType(4)=1 InType(4) | Report Length(8) | MD Length(8) | D Q F I rsvd(4)
//!   | RepMdBits(16) | Domain Specific ID(16) | DSMdBits(16) | DSMdStatus(16)
//!   | MD Length words: RepMdBits fields, then domain-specific metadata
//!   | contents (InType 0 none, 1 TLV, 2 DNS, 3 Ethernet, 4 IPv4, 5 IPv6)
//! INT-MD shim (4 B): Type(4)=1 NPT(2) rsvd(2) | Length(8) | port / proto / DSCP(16)
//! INT-MD (12 B):     Ver(4)=2 D E M rsvd(12) HopML(5) | RemainingHopCnt(8)
//!                    | instruction bitmap(16) | domain id(16) | DS instr(16) | DS flags(16)
//! stack:             (Length - 3) words, a whole number of HopML-word hops
//! ```
//! Report Length counts the words after the first one; the INT-MD shim's Length counts
//! the INT-MD header and stack, not the shim. The contents of a report are a monitored
//! packet that may not carry INT (drop and queue reports): INT-MD is read when the
//! transport payload starts with an INT-MD shim (type 1) and a version-2 header, and is
//! then checked as strictly as the other versions.

use super::instructions::{REPORT_V2, V1_V2, be16, be32};
use super::packet::{Inner, parse_inner};
use super::{IntDecoder, IntError, IntReport, ReportBuf, ReportFlags, ReportVersion};

pub const GROUP_HEADER_LEN: usize = 8;
pub const INDIVIDUAL_HEADER_LEN: usize = 12;
pub const REP_TYPE_INT: u8 = 1;
pub const SHIM_TYPE_INT_MD: u8 = 1;
const SHIM_LEN: usize = 4;
const MD_LEN: usize = 12;

pub fn decode(d: &IntDecoder, p: &[u8], out: &mut ReportBuf) -> Result<(), IntError> {
    if p.len() < GROUP_HEADER_LEN {
        return Err(IntError::ReportHeaderTruncated);
    }
    let hw_id = ((p[0] & 0x0f) << 2) | (p[1] >> 6);
    let seq = be32(p) & 0x003f_ffff;
    let node_id = be32(&p[4..]);
    let mut rest = &p[GROUP_HEADER_LEN..];
    if rest.is_empty() {
        return Err(IntError::IndividualReportTruncated);
    }
    while !rest.is_empty() {
        if rest.len() < 4 {
            return Err(IntError::IndividualReportTruncated);
        }
        let total = 4 + rest[1] as usize * 4;
        if total < INDIVIDUAL_HEADER_LEN || total > rest.len() {
            return Err(IntError::ReportLengthMismatch);
        }
        let (one, tail) = rest.split_at(total);
        rest = tail;
        let (r, _) = out.push(ReportVersion::V2)?;
        r.hw_id = hw_id;
        r.seq = seq;
        r.node_id = Some(node_id);
        individual(d, one, r)?;
    }
    Ok(())
}

fn individual(d: &IntDecoder, b: &[u8], r: &mut IntReport) -> Result<(), IntError> {
    if b[0] >> 4 != REP_TYPE_INT {
        return Err(IntError::ReportTypeUnsupported);
    }
    let in_type = b[0] & 0x0f;
    let md_len = b[2] as usize * 4;
    r.flags = ReportFlags {
        dropped: b[3] & 0x80 != 0,
        congested_queue: b[3] & 0x40 != 0,
        tracked_flow: b[3] & 0x20 != 0,
        intermediate: b[3] & 0x10 != 0,
    };
    let rep_md_bits = be16(&b[4..]);
    let ds_md_bits = be16(&b[8..]);
    if INDIVIDUAL_HEADER_LEN + md_len > b.len() {
        return Err(IntError::ReportMetadataMismatch);
    }
    let plan = REPORT_V2.plan(rep_md_bits)?;
    // Domain-specific metadata has no width we know: it may only take what RepMdBits
    // leaves of MD Length, and without DSMdBits nothing may be left.
    if plan.hop_bytes > md_len || (ds_md_bits == 0 && plan.hop_bytes != md_len) {
        return Err(IntError::ReportMetadataMismatch);
    }
    let md = &b[INDIVIDUAL_HEADER_LEN..INDIVIDUAL_HEADER_LEN + md_len];
    REPORT_V2.read_hop(&plan, md, &mut r.local);
    r.local_fields = plan.fields;
    if plan.fields & super::instructions::field::SWITCH_ID == 0 {
        r.local.switch_id = r.node_id.unwrap_or(0);
    }
    let contents = &b[INDIVIDUAL_HEADER_LEN + md_len..];
    let inner = match in_type {
        0..=2 => return Ok(()),
        3 => Inner::Ethernet,
        4 => Inner::Ipv4,
        5 => Inner::Ipv6,
        _ => return Err(IntError::InnerUnsupported),
    };
    let l4 = parse_inner(inner, contents)?;
    r.flow = Some(l4.tuple.five_tuple());
    r.original_dscp = Some(l4.dscp);
    let int = l4.payload;
    if int.len() >= SHIM_LEN + MD_LEN && int[0] >> 4 == SHIM_TYPE_INT_MD && int[SHIM_LEN] >> 4 == 2 {
        int_md(d, int, r)?;
    }
    Ok(())
}

/// INT-MD with the v2 shim over TCP/UDP, starting at the shim.
pub fn int_md(d: &IntDecoder, int: &[u8], r: &mut IntReport) -> Result<(), IntError> {
    if int.len() < SHIM_LEN + MD_LEN {
        return Err(IntError::ShimTruncated);
    }
    if int[0] >> 4 != SHIM_TYPE_INT_MD {
        return Err(IntError::ShimTypeUnsupported);
    }
    let npt = (int[0] >> 2) & 0x03;
    let covered = int[1] as usize * 4;
    if covered < MD_LEN {
        return Err(IntError::ShimLengthMismatch);
    }
    if int.len() < SHIM_LEN + covered {
        return Err(IntError::HopCountExceedsPacket);
    }
    let md = &int[SHIM_LEN..SHIM_LEN + MD_LEN];
    if md[0] >> 4 != 2 {
        return Err(IntError::IntVersionMismatch);
    }
    let hop_ml = (md[2] & 0x1f) as usize;
    let plan = V1_V2.plan(be16(&md[4..]))?;
    if hop_ml * 4 != plan.hop_bytes {
        return Err(IntError::InstructionCountMismatch);
    }
    let stack = &int[SHIM_LEN + MD_LEN..SHIM_LEN + covered];
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
    if npt == 0 {
        r.original_dscp = Some(int[3] >> 2);
    }
    r.hop_budget = md[3];
    d.read_stack(&V1_V2, &plan, stack, hops, r, None, None)
}
