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

/// A bitmap checked against a set: its normalised fields and bytes per hop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub bitmap: u16,
    pub fields: u16,
    pub hop_bytes: usize,
    pub count: u32,
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
        let mut rest = bitmap;
        while rest != 0 {
            let i = rest.leading_zeros() as usize;
            rest &= !(0x8000 >> i);
            fields |= self.slots[i].field;
            bytes += self.slots[i].width as usize;
        }
        Ok(Plan {
            bitmap,
            fields,
            hop_bytes: bytes,
            count: bitmap.count_ones(),
        })
    }

    /// Reads one hop's fields from `b` (at least `plan.hop_bytes` long) into `hop`.
    #[inline]
    pub fn read_hop(&self, plan: &Plan, b: &[u8], hop: &mut HopMetadata) {
        *hop = HopMetadata::default();
        let mut off = 0usize;
        let mut rest = plan.bitmap;
        while rest != 0 {
            let i = rest.leading_zeros() as usize;
            rest &= !(0x8000 >> i);
            let slot = self.slots[i];
            let w = slot.width as usize;
            let v = &b[off..off + w];
            off += w;
            let hi = be32(v);
            match slot.field {
                field::SWITCH_ID => hop.switch_id = hi,
                field::L1_PORTS => {
                    hop.ingress_port = (hi >> 16) as u16;
                    hop.egress_port = hi as u16;
                }
                field::HOP_LATENCY => hop.hop_latency = hi,
                field::QUEUE_OCCUPANCY => {
                    hop.queue_id = (hi >> 24) as u8;
                    hop.queue_occupancy = hi & 0x00ff_ffff;
                }
                field::INGRESS_TS => hop.ingress_ts = be_wide(v),
                field::EGRESS_TS => hop.egress_ts = be_wide(v),
                field::L2_PORTS => {
                    hop.l2_ingress_port = hi;
                    hop.l2_egress_port = be32(&v[4..]);
                }
                field::TX_UTILIZATION => hop.tx_utilization = hi,
                field::BUFFER_OCCUPANCY => {
                    hop.buffer_id = (hi >> 24) as u8;
                    hop.buffer_occupancy = hi & 0x00ff_ffff;
                }
                field::QUEUE_CONGESTION => {
                    hop.congestion_queue_id = (hi >> 24) as u8;
                    hop.queue_congestion = hi & 0x00ff_ffff;
                }
                field::CHECKSUM_COMPLEMENT => {}
                field::DROP_REASON => {
                    hop.drop_queue_id = (hi >> 24) as u8;
                    hop.drop_reason = (hi >> 16) as u8;
                }
                _ => {}
            }
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

/// A 4- or 8-byte big-endian value.
#[inline(always)]
fn be_wide(b: &[u8]) -> u64 {
    if b.len() == 8 {
        u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    } else {
        be32(b) as u64
    }
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
