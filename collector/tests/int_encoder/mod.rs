//! Telemetry report encoder for the tests: written from the specs' field tables,
//! independently of the decoder's tables (it shares only the data types).
#![allow(dead_code)]

use std::net::IpAddr;

use planck_collector::decode::FiveTuple;
use planck_collector::decode::int::{HopMetadata, ReportFlags, ReportVersion};

/// What the monitored packet inside a report is framed as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InnerFraming {
    Ethernet,
    Ip,
}

/// INT carried by a monitored packet.
#[derive(Clone, Debug)]
pub struct IntStack {
    pub bitmap: u16,
    pub hop_budget: u8,
    /// Stack order: hops[0] is the last switch that pushed.
    pub hops: Vec<HopMetadata>,
    pub original_dscp: u8,
}

#[derive(Clone, Debug)]
pub struct ReportSpec {
    pub version: ReportVersion,
    pub hw_id: u8,
    pub seq: u32,
    pub node_id: u32,
    pub report_ts: u32,
    pub flags: ReportFlags,
    pub framing: InnerFraming,
    pub flow: FiveTuple,
    /// v2.x: RepMdBits and the node's own metadata.
    pub local_bitmap: u16,
    pub local: HopMetadata,
    pub int: Option<IntStack>,
}

/// Field widths in bytes for bit `i` (0 = MSB) of an instruction bitmap.
pub fn width(version: ReportVersion, i: u32) -> Option<usize> {
    match version {
        ReportVersion::V05 => (i < 8).then_some(4),
        _ => match i {
            0..=3 | 7 | 8 | 15 => Some(4),
            4..=6 => Some(8),
            _ => None,
        },
    }
}

/// Bits the version defines.
pub fn known_bits(version: ReportVersion) -> u16 {
    match version {
        ReportVersion::V05 => 0xff00,
        _ => 0xff81,
    }
}

fn put_field(out: &mut Vec<u8>, version: ReportVersion, bit: u32, h: &HopMetadata, report_md: bool) {
    let w32 = |o: &mut Vec<u8>, v: u32| o.extend_from_slice(&v.to_be_bytes());
    let w64 = |o: &mut Vec<u8>, v: u64| o.extend_from_slice(&v.to_be_bytes());
    let v05 = version == ReportVersion::V05;
    match bit {
        0 => w32(out, h.switch_id),
        1 => w32(out, (h.ingress_port as u32) << 16 | h.egress_port as u32),
        2 => w32(out, h.hop_latency),
        3 => w32(out, (h.queue_id as u32) << 24 | h.queue_occupancy),
        4 if v05 => w32(out, h.ingress_ts as u32),
        5 if v05 => w32(out, h.egress_ts as u32),
        6 if v05 => w32(out, (h.congestion_queue_id as u32) << 24 | h.queue_congestion),
        7 if v05 => w32(out, h.tx_utilization),
        4 => w64(out, h.ingress_ts),
        5 => w64(out, h.egress_ts),
        6 => {
            w32(out, h.l2_ingress_port);
            w32(out, h.l2_egress_port);
        }
        7 => w32(out, h.tx_utilization),
        8 => w32(out, (h.buffer_id as u32) << 24 | h.buffer_occupancy),
        15 if report_md => w32(out, (h.drop_queue_id as u32) << 24 | (h.drop_reason as u32) << 16),
        15 => w32(out, 0xdead_beef), // checksum complement: carried, not decoded
        _ => panic!("bit {bit} has no field in {version:?}"),
    }
}

pub fn encode_hop(version: ReportVersion, bitmap: u16, h: &HopMetadata, report_md: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for bit in 0..16 {
        if bitmap & (0x8000 >> bit) != 0 {
            put_field(&mut out, version, bit, h, report_md);
        }
    }
    out
}

/// Words one hop takes.
pub fn hop_words(version: ReportVersion, bitmap: u16) -> usize {
    (0..16)
        .filter(|b| bitmap & (0x8000 >> b) != 0)
        .map(|b| width(version, b).expect("known bit"))
        .sum::<usize>()
        / 4
}

/// The monitored packet: framing, IP, UDP/TCP, then `l4_payload`.
pub fn monitored_packet(flow: &FiveTuple, dscp: u8, framing: InnerFraming, l4_payload: &[u8]) -> Vec<u8> {
    let mut l4 = Vec::new();
    l4.extend_from_slice(&flow.sport.to_be_bytes());
    l4.extend_from_slice(&flow.dport.to_be_bytes());
    if flow.proto == 17 {
        l4.extend_from_slice(&((8 + l4_payload.len()) as u16).to_be_bytes());
        l4.extend_from_slice(&[0, 0]);
    } else {
        l4.extend_from_slice(&1000u32.to_be_bytes()); // seq
        l4.extend_from_slice(&0u32.to_be_bytes()); // ack
        l4.extend_from_slice(&[0x50, 0x18, 0xff, 0xff, 0, 0, 0, 0]);
    }
    l4.extend_from_slice(l4_payload);
    let mut ip = Vec::new();
    let ethertype: u16;
    match (flow.src, flow.dst) {
        (IpAddr::V4(s), IpAddr::V4(d)) => {
            ethertype = 0x0800;
            ip.extend_from_slice(&[0x45, dscp << 2]);
            ip.extend_from_slice(&((20 + l4.len()) as u16).to_be_bytes());
            ip.extend_from_slice(&[0, 1, 0x40, 0, 64, flow.proto, 0, 0]);
            ip.extend_from_slice(&s.octets());
            ip.extend_from_slice(&d.octets());
        }
        (IpAddr::V6(s), IpAddr::V6(d)) => {
            ethertype = 0x86dd;
            ip.extend_from_slice(&[0x60 | (dscp >> 2), (dscp & 3) << 6, 0, 0]);
            ip.extend_from_slice(&(l4.len() as u16).to_be_bytes());
            ip.extend_from_slice(&[flow.proto, 64]);
            ip.extend_from_slice(&s.octets());
            ip.extend_from_slice(&d.octets());
        }
        _ => panic!("mixed address families"),
    }
    ip.extend_from_slice(&l4);
    match framing {
        InnerFraming::Ip => ip,
        InnerFraming::Ethernet => {
            let mut f = vec![0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1];
            f.extend_from_slice(&ethertype.to_be_bytes());
            f.extend_from_slice(&ip);
            f
        }
    }
}

fn is_v6(flow: &FiveTuple) -> bool {
    matches!(flow.src, IpAddr::V6(_))
}

/// The INT headers (shim .. stack [.. tail]) of one version.
pub fn int_headers(version: ReportVersion, s: &IntStack, flow: &FiveTuple) -> Vec<u8> {
    let hop_w = hop_words(version, s.bitmap);
    let mut stack = Vec::new();
    for h in &s.hops {
        stack.extend(encode_hop(version, s.bitmap, h, false));
    }
    let n = s.hops.len();
    let mut out = Vec::new();
    match version {
        ReportVersion::V05 => {
            let words = 1 + 2 + n * hop_w + 1;
            out.extend_from_slice(&[1, 0, words as u8, 0]);
            out.extend_from_slice(&[0x00, s.bitmap.count_ones() as u8, s.hop_budget, n as u8]);
            out.extend_from_slice(&s.bitmap.to_be_bytes());
            out.extend_from_slice(&[0, 0]);
            out.extend(stack);
            out.push(flow.proto);
            out.extend_from_slice(&flow.dport.to_be_bytes());
            out.push(s.original_dscp);
        }
        ReportVersion::V10 => {
            let words = 1 + 2 + n * hop_w;
            out.extend_from_slice(&[1, 0, words as u8, s.original_dscp << 2]);
            out.extend_from_slice(&[0x10, 0, hop_w as u8, s.hop_budget]);
            out.extend_from_slice(&s.bitmap.to_be_bytes());
            out.extend_from_slice(&[0, 0]);
            out.extend(stack);
        }
        ReportVersion::V2 => {
            let words = 3 + n * hop_w;
            // NPT 0: the original DSCP in the last byte.
            out.extend_from_slice(&[0x10, words as u8, 0, s.original_dscp << 2]);
            out.extend_from_slice(&[0x20, 0, hop_w as u8, s.hop_budget]);
            out.extend_from_slice(&s.bitmap.to_be_bytes());
            out.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
            out.extend(stack);
        }
    }
    out
}

/// One report's UDP payload (for v2.x, a group with this one individual report).
pub fn encode_report(r: &ReportSpec) -> Vec<u8> {
    encode_group(std::slice::from_ref(r))
}

/// Several v2.x individual reports in one group (all other versions: the first only).
pub fn encode_group(rs: &[ReportSpec]) -> Vec<u8> {
    let r = &rs[0];
    let int = r.int.as_ref().map(|s| int_headers(r.version, s, &r.flow)).unwrap_or_default();
    let dscp = 0x17;
    let mut out = Vec::new();
    let inner_code = |r: &ReportSpec| -> u8 {
        match (r.framing, is_v6(&r.flow)) {
            (InnerFraming::Ethernet, _) => 0,
            (InnerFraming::Ip, false) => 1,
            (InnerFraming::Ip, true) => 2,
        }
    };
    let flag_bits = |f: &ReportFlags| -> u8 {
        (f.dropped as u8) << 7 | (f.congested_queue as u8) << 6 | (f.tracked_flow as u8) << 5 | (f.intermediate as u8) << 4
    };
    match r.version {
        ReportVersion::V05 => {
            out.push(inner_code(r)); // version 0
            out.push(flag_bits(&r.flags) & 0xe0);
            out.extend_from_slice(&[0, r.hw_id & 0x3f]);
            out.extend_from_slice(&r.seq.to_be_bytes());
            out.extend_from_slice(&r.report_ts.to_be_bytes());
            out.extend(monitored_packet(&r.flow, dscp, r.framing, &int));
        }
        ReportVersion::V10 => {
            let nproto = inner_code(r);
            out.push(0x10 | 4);
            out.push(nproto << 5);
            out.push(r.flags.dropped as u8);
            out.push((r.flags.congested_queue as u8) << 7 | (r.flags.tracked_flow as u8) << 6 | (r.hw_id & 0x3f));
            out.extend_from_slice(&r.node_id.to_be_bytes());
            out.extend_from_slice(&r.seq.to_be_bytes());
            out.extend_from_slice(&r.report_ts.to_be_bytes());
            out.extend(monitored_packet(&r.flow, dscp, r.framing, &int));
        }
        ReportVersion::V2 => {
            let hw = r.hw_id & 0x3f;
            let first = (2u32 << 28) | (hw as u32) << 22 | (r.seq & 0x003f_ffff);
            out.extend_from_slice(&first.to_be_bytes());
            out.extend_from_slice(&r.node_id.to_be_bytes());
            for r in rs {
                let int = r.int.as_ref().map(|s| int_headers(r.version, s, &r.flow)).unwrap_or_default();
                let md = encode_hop(ReportVersion::V2, r.local_bitmap, &r.local, true);
                let mut contents = monitored_packet(&r.flow, dscp, r.framing, &int);
                while !contents.len().is_multiple_of(4) {
                    contents.push(0);
                }
                let in_type = match (r.framing, is_v6(&r.flow)) {
                    (InnerFraming::Ethernet, _) => 3,
                    (InnerFraming::Ip, false) => 4,
                    (InnerFraming::Ip, true) => 5,
                };
                let len_words = (12 + md.len() + contents.len()) / 4 - 1;
                out.push(0x10 | in_type);
                out.push(len_words as u8);
                out.push((md.len() / 4) as u8);
                out.push(flag_bits(&r.flags));
                out.extend_from_slice(&r.local_bitmap.to_be_bytes());
                out.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
                out.extend(md);
                out.extend(contents);
            }
        }
    }
    out
}

/// Ethernet/IPv4/UDP around a report payload, to `port`.
pub fn outer_frame(payload: &[u8], port: u16) -> Vec<u8> {
    let mut f = vec![0x02, 0, 0, 0, 0, 0x10, 0x02, 0, 0, 0, 0, 0x20, 0x08, 0x00];
    let total = 20 + 8 + payload.len();
    f.extend_from_slice(&[0x45, 0]);
    f.extend_from_slice(&(total as u16).to_be_bytes());
    f.extend_from_slice(&[0, 0, 0x40, 0, 64, 17, 0, 0, 192, 168, 0, 1, 192, 168, 0, 2]);
    f.extend_from_slice(&5000u16.to_be_bytes());
    f.extend_from_slice(&port.to_be_bytes());
    f.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
    f.extend_from_slice(&[0, 0]);
    f.extend_from_slice(payload);
    f
}

/// A hop with only the bitmap's fields set, from arbitrary values masked to widths.
pub fn masked_hop(version: ReportVersion, bitmap: u16, raw: &[u64; 12], report_md: bool) -> HopMetadata {
    let mut h = HopMetadata::default();
    let on = |b: u32| bitmap & (0x8000 >> b) != 0;
    let v05 = version == ReportVersion::V05;
    if on(0) {
        h.switch_id = raw[0] as u32;
    }
    if on(1) {
        h.ingress_port = raw[1] as u16;
        h.egress_port = (raw[1] >> 16) as u16;
    }
    if on(2) {
        h.hop_latency = raw[2] as u32;
    }
    if on(3) {
        h.queue_id = raw[3] as u8;
        h.queue_occupancy = (raw[3] >> 8) as u32 & 0xff_ffff;
    }
    let ts_mask = if v05 { u32::MAX as u64 } else { u64::MAX };
    if on(4) {
        h.ingress_ts = raw[4] & ts_mask;
    }
    if on(5) {
        h.egress_ts = raw[5] & ts_mask;
    }
    if on(6) {
        if v05 {
            h.congestion_queue_id = raw[6] as u8;
            h.queue_congestion = (raw[6] >> 8) as u32 & 0xff_ffff;
        } else {
            h.l2_ingress_port = raw[6] as u32;
            h.l2_egress_port = (raw[6] >> 32) as u32;
        }
    }
    if on(7) {
        h.tx_utilization = raw[7] as u32;
    }
    if !v05 && on(8) {
        h.buffer_id = raw[8] as u8;
        h.buffer_occupancy = (raw[8] >> 8) as u32 & 0xff_ffff;
    }
    if report_md && on(15) {
        h.drop_queue_id = raw[9] as u8;
        h.drop_reason = (raw[9] >> 8) as u8;
    }
    h
}
