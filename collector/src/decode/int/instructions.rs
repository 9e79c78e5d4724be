//! Instruction bitmaps: which per-hop fields a bitmap asks for, in which order and how
//! wide each one is, per INT version. Bit 0 is the most significant bit of the 16-bit
//! bitmap, as the specs number them; fields appear in the stack in bit order.

use std::sync::OnceLock;

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
    /// The plan of every bitmap, worked out once: a packet's plan is then one lookup.
    plans: OnceLock<PlanTable>,
}

/// Every defined bit of every set lies in bits 0-8 or 15 (mask 0xff81), so a checked
/// bitmap maps onto 10 bits.
const PLAN_INDEX_BITS: usize = 10;

#[derive(Debug)]
struct PlanTable {
    known_mask: u16,
    plans: Box<[Plan; 1 << PLAN_INDEX_BITS]>,
}

#[inline(always)]
fn plan_index(bitmap: u16) -> usize {
    ((bitmap as usize >> 7) << 1 | (bitmap as usize & 1)) & ((1 << PLAN_INDEX_BITS) - 1)
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
    plans: OnceLock::new(),
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
    plans: OnceLock::new(),
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
    plans: OnceLock::new(),
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
    pub(crate) wide_ts: bool,
}

impl Plan {
    /// Byte offset of a normalised field within a hop.
    #[inline(always)]
    pub(crate) fn offset(&self, fl: u16) -> usize {
        self.offsets[fl.trailing_zeros() as usize] as usize
    }

    pub(crate) const EMPTY: Plan = Plan { bitmap: 0, fields: 0, hop_bytes: 0, count: 0, offsets: [0; 12], wide_ts: false };
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
    /// The plan is returned by reference: a `Result<Plan>` returned through memory
    /// was read back before its stores had completed, which stalled every packet.
    #[inline(always)]
    pub fn plan(&'static self, bitmap: u16) -> Result<&'static Plan, IntError> {
        let t = self.plans.get_or_init(|| self.plan_table());
        if bitmap & !t.known_mask != 0 {
            return Err(IntError::UnknownInstructionBits);
        }
        Ok(&t.plans[plan_index(bitmap)])
    }

    fn plan_table(&self) -> PlanTable {
        let known_mask = self.known_mask();
        debug_assert_eq!(known_mask & !0xff81, 0, "a defined bit outside the plan index");
        let mut plans = Box::new([Plan::EMPTY; 1 << PLAN_INDEX_BITS]);
        for i in 0..1u32 << PLAN_INDEX_BITS {
            let bitmap = ((i >> 1) << 7 | (i & 1)) as u16;
            if bitmap & !known_mask == 0 {
                plans[plan_index(bitmap)] = self.compute_plan(bitmap);
            }
        }
        PlanTable { known_mask, plans }
    }

    /// The plan of a bitmap with no unknown bits.
    fn compute_plan(&self, bitmap: u16) -> Plan {
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
        Plan {
            bitmap,
            fields,
            hop_bytes: bytes,
            count: bitmap.count_ones(),
            offsets,
            wide_ts,
        }
    }

    /// Reads one hop's fields from `b` (at least `plan.hop_bytes` long) into `hop`.
    #[inline]
    pub fn read_hop(&self, plan: &Plan, b: &[u8], hop: &mut HopMetadata) {
        // Straight from the packet: every present field lies inside the hop (the plan
        // was built so), so each read is one predictable bounds check; absent fields are
        // written as 0 in the same pass instead of clearing the hop first.
        let b = &b[..plan.hop_bytes];
        let f = plan.fields;
        let r32 = |fl: u16| if f & fl != 0 { be32(&b[plan.offset(fl)..]) } else { 0 };
        let ts = |fl: u16| {
            if f & fl == 0 {
                0
            } else if plan.wide_ts {
                be64(&b[plan.offset(fl)..])
            } else {
                be32(&b[plan.offset(fl)..]) as u64
            }
        };
        let ports = r32(field::L1_PORTS);
        let queue = r32(field::QUEUE_OCCUPANCY);
        let buffer = r32(field::BUFFER_OCCUPANCY);
        let congestion = r32(field::QUEUE_CONGESTION);
        let drop = r32(field::DROP_REASON);
        let (l2_in, l2_out) = if f & field::L2_PORTS != 0 {
            let o = plan.offset(field::L2_PORTS);
            (be32(&b[o..]), be32(&b[o + 4..]))
        } else {
            (0, 0)
        };
        *hop = HopMetadata {
            switch_id: r32(field::SWITCH_ID),
            ingress_port: (ports >> 16) as u16,
            egress_port: ports as u16,
            hop_latency: r32(field::HOP_LATENCY),
            queue_id: (queue >> 24) as u8,
            queue_occupancy: queue & 0x00ff_ffff,
            ingress_ts: ts(field::INGRESS_TS),
            egress_ts: ts(field::EGRESS_TS),
            l2_ingress_port: l2_in,
            l2_egress_port: l2_out,
            tx_utilization: r32(field::TX_UTILIZATION),
            buffer_id: (buffer >> 24) as u8,
            buffer_occupancy: buffer & 0x00ff_ffff,
            congestion_queue_id: (congestion >> 24) as u8,
            queue_congestion: congestion & 0x00ff_ffff,
            drop_queue_id: (drop >> 24) as u8,
            drop_reason: (drop >> 16) as u8,
        };
    }
}

// One bounds check per read (indexing byte by byte would check every byte).
#[inline(always)]
pub fn be16(b: &[u8]) -> u16 {
    u16::from_be_bytes(*b.first_chunk().expect("2 bytes"))
}

#[inline(always)]
pub fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes(*b.first_chunk().expect("4 bytes"))
}

#[inline(always)]
pub fn be64(b: &[u8]) -> u64 {
    u64::from_be_bytes(*b.first_chunk().expect("8 bytes"))
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
    fn every_bitmap_looks_up_the_plan_worked_out_for_it() {
        for set in [&V05, &V1_V2, &REPORT_V2] {
            for bitmap in 0..=u16::MAX {
                match set.plan(bitmap) {
                    Ok(p) => {
                        assert_eq!(bitmap & !set.known_mask(), 0);
                        assert_eq!(*p, set.compute_plan(bitmap), "{} {bitmap:#06x}", set.name);
                        assert_eq!(p.bitmap, bitmap);
                    }
                    Err(e) => {
                        assert_eq!(e, IntError::UnknownInstructionBits);
                        assert_ne!(bitmap & !set.known_mask(), 0, "{} {bitmap:#06x}", set.name);
                    }
                }
            }
        }
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
