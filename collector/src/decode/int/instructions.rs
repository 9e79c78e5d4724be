//! Instruction bitmaps: which per-hop fields a bitmap asks for, in which order and how
//! wide each one is, per INT version. Bit 0 is the most significant bit of the 16-bit
//! bitmap, as the specs number them; fields appear in the stack in bit order.

use super::{HopMetadata, IntError};

/// Normalised field set, the same numbering for every version (what a hop carries).
pub mod field {
    pub const SWITCH_ID: u16 = 1 << 0;
    /// Level-1 ingress port (16 bits) + egress port (16 bits).
    pub const L1_PORTS: u16 = 1 << 1;
    pub const HOP_LATENCY: u16 = 1 << 2;
    /// Queue id (8 bits) + queue occupancy (24 bits).
    pub const QUEUE_OCCUPANCY: u16 = 1 << 3;
    pub const INGRESS_TS: u16 = 1 << 4;
    pub const EGRESS_TS: u16 = 1 << 5;
    /// Level-2 ingress interface (32 bits) + egress interface (32 bits); v1.0 and later.
    pub const L2_PORTS: u16 = 1 << 6;
    pub const TX_UTILIZATION: u16 = 1 << 7;
    /// Buffer id (8 bits) + buffer occupancy (24 bits); v1.0 and later.
    pub const BUFFER_OCCUPANCY: u16 = 1 << 8;
    /// Queue id (8 bits) + congestion status (24 bits); v0.5 only (bit 6).
    pub const QUEUE_CONGESTION: u16 = 1 << 9;
    /// Checksum complement (32 bits, carried and ignored); v1.0 and INT-MD v2.x bit 15.
    pub const CHECKSUM_COMPLEMENT: u16 = 1 << 10;
    /// Queue id (8) + drop reason (8) + padding (16); telemetry report v2.x RepMdBits bit 15.
    pub const DROP_REASON: u16 = 1 << 11;
}

/// One bitmap position: the normalised field and its width in bytes (0: no such bit).
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    pub field: u16,
    pub width: u8,
}

const NONE: Slot = Slot { field: 0, width: 0 };

const fn s(field: u16, width: u8) -> Slot {
    Slot { field, width }
}

/// What each of the 16 bitmap bits means in one version.
#[derive(Debug)]
pub struct InstructionSet {
    pub name: &'static str,
    pub slots: [Slot; 16],
}

/// INT v0.5 (what INTCollector reads): eight 4-byte fields, bits 8-15 reserved.
pub static V05: InstructionSet = InstructionSet {
    name: "INT v0.5",
    slots: [
        s(field::SWITCH_ID, 4),
        s(field::L1_PORTS, 4),
        s(field::HOP_LATENCY, 4),
        s(field::QUEUE_OCCUPANCY, 4),
        s(field::INGRESS_TS, 4),
        s(field::EGRESS_TS, 4),
        s(field::QUEUE_CONGESTION, 4),
        s(field::TX_UTILIZATION, 4),
        NONE,
        NONE,
        NONE,
        NONE,
        NONE,
        NONE,
        NONE,
        NONE,
    ],
};

/// INT v1.0 and INT-MD v2.0/v2.1: 64-bit timestamps and level-2 ports, bits 9-14
/// reserved, bit 15 checksum complement.
pub static V1_V2: InstructionSet = InstructionSet {
    name: "INT v1.0/v2.x",
    slots: [
        s(field::SWITCH_ID, 4),
        s(field::L1_PORTS, 4),
        s(field::HOP_LATENCY, 4),
        s(field::QUEUE_OCCUPANCY, 4),
        s(field::INGRESS_TS, 8),
        s(field::EGRESS_TS, 8),
        s(field::L2_PORTS, 8),
        s(field::TX_UTILIZATION, 4),
        s(field::BUFFER_OCCUPANCY, 4),
        NONE,
        NONE,
        NONE,
        NONE,
        NONE,
        NONE,
        s(field::CHECKSUM_COMPLEMENT, 4),
    ],
};

/// Telemetry report v2.x RepMdBits (the reporting node's own metadata): as INT-MD, but
/// bit 15 is the drop reason of drop reports.
pub static REPORT_V2: InstructionSet = InstructionSet {
    name: "telemetry report v2.x",
    slots: [
        s(field::SWITCH_ID, 4),
        s(field::L1_PORTS, 4),
        s(field::HOP_LATENCY, 4),
        s(field::QUEUE_OCCUPANCY, 4),
        s(field::INGRESS_TS, 8),
        s(field::EGRESS_TS, 8),
        s(field::L2_PORTS, 8),
        s(field::TX_UTILIZATION, 4),
        s(field::BUFFER_OCCUPANCY, 4),
        NONE,
        NONE,
        NONE,
        NONE,
        NONE,
        NONE,
        s(field::DROP_REASON, 4),
    ],
};

/// A bitmap checked against a set: its normalised fields, bytes per hop, and where in a
/// hop each field starts (by normalised field index), so reading a hop is straight-line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub bitmap: u16,
    pub fields: u16,
    pub hop_bytes: usize,
    pub count: u32,
    /// Byte offset of normalised field `1 << i` within a hop.
    offsets: [u8; 12],
    /// Timestamps are 8 bytes (v1.0 and later), else 4.
    wide_ts: bool,
}

impl InstructionSet {
    /// Bits of the bitmap this version defines.
    pub const fn known_mask(&self) -> u16 {
        let mut m = 0u16;
        let mut i = 0;
        while i < 16 {
            if self.slots[i].width != 0 {
                m |= 0x8000 >> i;
            }
            i += 1;
        }
        m
    }

    /// Checks the bitmap: unknown bits are rejected (their width is unknown, so the
    /// stack cannot be walked).
    #[inline]
    pub fn plan(&self, bitmap: u16) -> Result<Plan, IntError> {
        if bitmap & !self.known_mask() != 0 {
            return Err(IntError::UnknownInstructionBits);
        }
        let mut fields = 0u16;
        let mut bytes = 0usize;
        let mut offsets = [0u8; 12];
        let mut wide_ts = false;
        let mut rest = bitmap;
        while rest != 0 {
            let i = rest.leading_zeros() as usize;
            rest &= !(0x8000 >> i);
            let slot = self.slots[i];
            fields |= slot.field;
            offsets[slot.field.trailing_zeros() as usize] = bytes as u8;
            if slot.field & (field::INGRESS_TS | field::EGRESS_TS) != 0 {
                wide_ts = slot.width == 8;
            }
            bytes += slot.width as usize;
        }
        Ok(Plan {
            bitmap,
            fields,
            hop_bytes: bytes,
            count: bitmap.count_ones(),
            offsets,
            wide_ts,
        })
    }

    /// Reads one hop's fields from `b` (at least `plan.hop_bytes` long) into `hop`.
    #[inline]
    pub fn read_hop(&self, plan: &Plan, b: &[u8], hop: &mut HopMetadata) {
        let b = &b[..plan.hop_bytes];
        let f = plan.fields;
        let at = |fl: u16| plan.offsets[fl.trailing_zeros() as usize] as usize;
        let w32 = |fl: u16| be32(&b[at(fl)..]);
        let w32_at = |o: usize| be32(&b[o..]);
        let ts = |fl: u16| {
            let o = at(fl);
            if plan.wide_ts { (w32_at(o) as u64) << 32 | w32_at(o + 4) as u64 } else { w32_at(o) as u64 }
        };
        *hop = HopMetadata::default();
        if f & field::SWITCH_ID != 0 {
            hop.switch_id = w32(field::SWITCH_ID);
        }
        if f & field::L1_PORTS != 0 {
            let v = w32(field::L1_PORTS);
            hop.ingress_port = (v >> 16) as u16;
            hop.egress_port = v as u16;
        }
        if f & field::HOP_LATENCY != 0 {
            hop.hop_latency = w32(field::HOP_LATENCY);
        }
        if f & field::QUEUE_OCCUPANCY != 0 {
            let v = w32(field::QUEUE_OCCUPANCY);
            hop.queue_id = (v >> 24) as u8;
            hop.queue_occupancy = v & 0x00ff_ffff;
        }
        if f & field::INGRESS_TS != 0 {
            hop.ingress_ts = ts(field::INGRESS_TS);
        }
        if f & field::EGRESS_TS != 0 {
            hop.egress_ts = ts(field::EGRESS_TS);
        }
        if f & field::L2_PORTS != 0 {
            let o = at(field::L2_PORTS);
            hop.l2_ingress_port = w32_at(o);
            hop.l2_egress_port = w32_at(o + 4);
        }
        if f & field::TX_UTILIZATION != 0 {
            hop.tx_utilization = w32(field::TX_UTILIZATION);
        }
        if f & field::BUFFER_OCCUPANCY != 0 {
            let v = w32(field::BUFFER_OCCUPANCY);
            hop.buffer_id = (v >> 24) as u8;
            hop.buffer_occupancy = v & 0x00ff_ffff;
        }
        if f & field::QUEUE_CONGESTION != 0 {
            let v = w32(field::QUEUE_CONGESTION);
            hop.congestion_queue_id = (v >> 24) as u8;
            hop.queue_congestion = v & 0x00ff_ffff;
        }
        if f & field::DROP_REASON != 0 {
            let v = w32(field::DROP_REASON);
            hop.drop_queue_id = (v >> 24) as u8;
            hop.drop_reason = (v >> 16) as u8;
        }
    }
}

#[inline(always)]
pub fn be16(b: &[u8]) -> u16 {
    u16::from_be_bytes([b[0], b[1]])
}

#[inline(always)]
pub fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_follow_the_specs() {
        let all05 = V05.plan(0xff00).unwrap();
        assert_eq!(all05.hop_bytes, 32);
        assert_eq!(all05.count, 8);
        let all1 = V1_V2.plan(0xff80).unwrap();
        // 4+4+4+4+8+8+8+4+4
        assert_eq!(all1.hop_bytes, 48);
        assert_eq!(V1_V2.plan(0x0001).unwrap().hop_bytes, 4);
        assert_eq!(REPORT_V2.plan(0x0001).unwrap().fields, field::DROP_REASON);
    }

    #[test]
    fn reserved_bits_are_rejected() {
        assert_eq!(V05.plan(0x0080), Err(IntError::UnknownInstructionBits));
        assert_eq!(V1_V2.plan(0x0040), Err(IntError::UnknownInstructionBits));
        assert_eq!(V1_V2.plan(0x0002), Err(IntError::UnknownInstructionBits));
        assert_eq!(V05.known_mask(), 0xff00);
        assert_eq!(V1_V2.known_mask(), 0xff81);
    }
}
