//! INT decoder: property round-trips through the test encoder for every report version
//! and instruction combination, and one rejection test per reason.

mod int_encoder;

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use int_encoder::*;
use planck_collector::decode::FiveTuple;
use planck_collector::decode::int::{
    HopMetadata, IntDecoder, IntDecoderConfig, IntError, IntReport, ReportBuf, ReportFlags,
    ReportVersion,
};
use proptest::prelude::*;

const PORT: u16 = 54321;

fn decoder(max_hops: u8) -> IntDecoder {
    IntDecoder::new(&IntDecoderConfig {
        ports: vec![PORT, 32766],
        versions: ReportVersion::ALL.to_vec(),
        max_hops,
    })
    .unwrap()
}

fn flow_v4() -> FiveTuple {
    FiveTuple {
        src: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
        dst: IpAddr::V4(Ipv4Addr::new(10, 0, 1, 2)),
        proto: 17,
        sport: 5000,
        dport: 5001,
    }
}

fn hop(i: u32) -> HopMetadata {
    HopMetadata {
        switch_id: 100 + i,
        ingress_port: 1,
        egress_port: 2 + i as u16,
        hop_latency: 400 + i,
        queue_id: 3,
        queue_occupancy: 50 + i,
        ingress_ts: 1000 + i as u64,
        egress_ts: 2000 + i as u64,
        congestion_queue_id: 3,
        queue_congestion: 7,
        tx_utilization: 900 + i,
        ..HopMetadata::default()
    }
}

/// A v0.5 report with all eight fields and `n` hops.
fn v05_spec(n: u32) -> ReportSpec {
    ReportSpec {
        version: ReportVersion::V05,
        hw_id: 3,
        seq: 77,
        node_id: 0,
        report_ts: 123_456,
        flags: ReportFlags { tracked_flow: true, ..ReportFlags::default() },
        framing: InnerFraming::Ethernet,
        flow: flow_v4(),
        local_bitmap: 0,
        local: HopMetadata::default(),
        int: Some(IntStack {
            bitmap: 0xff00,
            hop_budget: 8,
            hops: (0..n).map(hop).collect(),
            original_dscp: 14,
        }),
    }
}

fn v1_hop(i: u32) -> HopMetadata {
    HopMetadata {
        switch_id: 100 + i,
        ingress_port: 1,
        egress_port: 2,
        hop_latency: 400 + i,
        queue_id: 1,
        queue_occupancy: 9,
        ingress_ts: 1 << 40,
        egress_ts: (1 << 40) + 5,
        l2_ingress_port: 11,
        l2_egress_port: 12,
        tx_utilization: 500,
        buffer_id: 2,
        buffer_occupancy: 33,
        ..HopMetadata::default()
    }
}

fn v10_spec(n: u32) -> ReportSpec {
    ReportSpec {
        version: ReportVersion::V10,
        node_id: 9,
        int: Some(IntStack {
            bitmap: 0xff80,
            hop_budget: 4,
            hops: (0..n).map(v1_hop).collect(),
            original_dscp: 5,
        }),
        ..v05_spec(0)
    }
}

fn v2_spec(n: u32) -> ReportSpec {
    ReportSpec {
        version: ReportVersion::V2,
        local_bitmap: 0x9000, // switch id + queue occupancy
        local: HopMetadata { switch_id: 9, queue_id: 1, queue_occupancy: 4000, ..HopMetadata::default() },
        ..v10_spec(n)
    }
}

fn decode(d: &IntDecoder, payload: &[u8]) -> Result<Vec<IntReport>, IntError> {
    let mut buf = ReportBuf::default();
    let r = d.decode_payload(payload, &mut buf);
    if r.is_err() {
        assert!(buf.reports().is_empty(), "a rejected packet leaves no report");
    }
    r.map(|()| buf.reports().to_vec())
}

/// What the decoder must give for a spec.
fn check(spec: &ReportSpec, got: &IntReport) {
    assert_eq!(got.version, spec.version);
    assert_eq!(got.hw_id, spec.hw_id & 0x3f);
    assert_eq!(got.flow, Some(spec.flow));
    let flags = match spec.version {
        ReportVersion::V2 => spec.flags,
        _ => ReportFlags { intermediate: false, ..spec.flags },
    };
    assert_eq!(got.flags, flags);
    match spec.version {
        ReportVersion::V05 => {
            assert_eq!(got.seq, spec.seq);
            assert_eq!(got.report_ts, Some(spec.report_ts));
            assert_eq!(got.node_id, None);
        }
        ReportVersion::V10 => {
            assert_eq!(got.seq, spec.seq);
            assert_eq!(got.report_ts, Some(spec.report_ts));
            assert_eq!(got.node_id, Some(spec.node_id));
        }
        ReportVersion::V2 => {
            assert_eq!(got.seq, spec.seq & 0x3f_ffff);
            assert_eq!(got.node_id, Some(spec.node_id));
            let mut local = spec.local;
            if spec.local_bitmap & 0x8000 == 0 {
                local.switch_id = spec.node_id;
            }
            assert_eq!(got.local, local);
        }
    }
    match &spec.int {
        Some(s) => {
            assert!(got.has_int);
            assert_eq!(got.instructions, s.bitmap);
            assert_eq!(got.hop_budget, s.hop_budget);
            assert_eq!(got.original_dscp, Some(s.original_dscp));
            assert_eq!(got.hops(), &s.hops[..]);
        }
        None => {
            assert!(!got.has_int);
            assert_eq!(got.hop_count, 0);
        }
    }
}

#[test]
fn v05_all_fields_six_hops() {
    let d = decoder(8);
    let spec = v05_spec(6);
    let got = decode(&d, &encode_report(&spec)).unwrap();
    assert_eq!(got.len(), 1);
    check(&spec, &got[0]);
    assert_eq!(got[0].hops[5].switch_id, 105);
    assert_eq!(got[0].hops[5].queue_occupancy, 55);
}

#[test]
fn frames_are_taken_only_on_configured_ports() {
    let d = decoder(8);
    let payload = encode_report(&v05_spec(2));
    let mut buf = ReportBuf::default();
    d.decode_frame(&outer_frame(&payload, PORT), &mut buf).unwrap();
    assert_eq!(buf.reports().len(), 1);
    assert_eq!(buf.reports()[0].hops()[1].switch_id, 101);
    assert_eq!(d.decode_frame(&outer_frame(&payload, 9999), &mut buf), Err(IntError::NotReportPort));
    assert!(buf.reports().is_empty());
}

#[test]
fn v10_and_v2_all_fields() {
    let d = decoder(8);
    for spec in [v10_spec(5), v2_spec(5)] {
        let got = decode(&d, &encode_report(&spec)).unwrap();
        check(&spec, &got[0]);
        assert_eq!(got[0].hops[0].egress_ts, (1 << 40) + 5);
    }
}

#[test]
fn v2_drop_and_queue_reports_without_int() {
    let d = decoder(8);
    let drop = ReportSpec {
        flags: ReportFlags { dropped: true, ..ReportFlags::default() },
        local_bitmap: 0x8001, // switch id + drop reason
        local: HopMetadata { switch_id: 4, drop_queue_id: 2, drop_reason: 71, ..HopMetadata::default() },
        int: None,
        ..v2_spec(0)
    };
    let queue = ReportSpec {
        flags: ReportFlags { congested_queue: true, ..ReportFlags::default() },
        local_bitmap: 0x1000, // queue occupancy only: the switch is the group's node
        local: HopMetadata { queue_id: 7, queue_occupancy: 0xabcdef, ..HopMetadata::default() },
        int: None,
        ..v2_spec(0)
    };
    let got = decode(&d, &encode_group(&[drop.clone(), queue.clone(), v2_spec(2)])).unwrap();
    assert_eq!(got.len(), 3);
    check(&drop, &got[0]);
    check(&queue, &got[1]);
    check(&v2_spec(2), &got[2]);
    assert_eq!(got[1].local.switch_id, 9, "node id stands in for an absent switch id");
    assert_eq!(got[0].local.drop_reason, 71);
}

#[test]
fn intcollector_layout_with_version_one_reads_as_v05() {
    // INTCollector's generator writes Ver=1 over the v0.5 layout and leaves the shim
    // length 0.
    let d = decoder(8);
    let mut p = encode_report(&v05_spec(3));
    p[0] |= 0x10;
    let shim = 12 + 14 + 20 + 8;
    p[shim + 2] = 0;
    let got = decode(&d, &p).unwrap();
    check(&v05_spec(3), &got[0]);
}

// ---- rejections, one per reason ----

fn v05_payload(n: u32) -> Vec<u8> {
    encode_report(&v05_spec(n))
}

/// Offset of the v0.5 shim in `v05_payload` (report 12, Ethernet 14, IPv4 20, UDP 8).
const V05_SHIM: usize = 54;
/// Offset of the v1.0 shim (report 16, Ethernet 14, IPv4 20, UDP 8).
const V10_SHIM: usize = 58;

#[test]
fn rejects_with_reasons() {
    let d = decoder(8);
    let cases: Vec<(&str, Vec<u8>, IntError)> = vec![
        ("empty", vec![], IntError::ReportHeaderTruncated),
        ("short v0.5 header", v05_payload(1)[..8].to_vec(), IntError::ReportHeaderTruncated),
        ("version 3", { let mut p = v05_payload(1); p[0] = 0x30; p }, IntError::VersionUnknown),
        ("nproto 7", { let mut p = v05_payload(1); p[0] = 0x07; p }, IntError::InnerUnsupported),
        ("inner cut", v05_payload(1)[..30].to_vec(), IntError::InnerTruncated),
        ("no shim", v05_payload(1)[..V05_SHIM + 2].to_vec(), IntError::ShimTruncated),
        ("shim type 2", { let mut p = v05_payload(1); p[V05_SHIM] = 2; p }, IntError::ShimTypeUnsupported),
        ("md version 1", { let mut p = v05_payload(1); p[V05_SHIM + 4] = 0x40; p }, IntError::IntVersionMismatch),
        ("reserved bit", { let mut p = v05_payload(1); p[V05_SHIM + 9] = 0x80; p }, IntError::UnknownInstructionBits),
        ("ins count", { let mut p = v05_payload(1); p[V05_SHIM + 5] = 7; p }, IntError::InstructionCountMismatch),
        ("hops over max", { let mut p = v05_payload(2); p[V05_SHIM + 6] = 1; p }, IntError::HopCountExceedsMax),
        ("hops over packet", { let mut p = v05_payload(2); p[V05_SHIM + 7] = 5; p }, IntError::HopCountExceedsPacket),
        ("shim length", { let mut p = v05_payload(2); p[V05_SHIM + 2] += 1; p }, IntError::ShimLengthMismatch),
        ("no tail", { let p = v05_payload(2); p[..p.len() - 2].to_vec() }, IntError::TailTruncated),
        ("truncated stack", { let p = v05_payload(2); p[..p.len() - 10].to_vec() }, IntError::HopCountExceedsPacket),
        ("v1 short header", encode_report(&v10_spec(1))[..10].to_vec(), IntError::ReportHeaderTruncated),
        ("v1 hop ml", { let mut p = encode_report(&v10_spec(2)); p[V10_SHIM + 6] = 3; p }, IntError::InstructionCountMismatch),
        ("v1 partial hop", { let mut p = encode_report(&v10_spec(2)); p[V10_SHIM + 2] -= 1; p }, IntError::StackNotWholeHops),
        ("v1 shim beyond packet", { let mut p = encode_report(&v10_spec(2)); p[V10_SHIM + 2] += 12; p }, IntError::HopCountExceedsPacket),
        ("v1 shim too short", { let mut p = encode_report(&v10_spec(2)); p[V10_SHIM + 2] = 2; p }, IntError::ShimLengthMismatch),
        ("v1 reserved bit", { let mut p = encode_report(&v10_spec(1)); p[V10_SHIM + 9] = 0x02; p }, IntError::UnknownInstructionBits),
        ("v2 no report", encode_report(&v2_spec(1))[..8].to_vec(), IntError::IndividualReportTruncated),
        ("v2 report length", { let mut p = encode_report(&v2_spec(1)); p[9] += 1; p }, IntError::ReportLengthMismatch),
        ("v2 rep type", { let mut p = encode_report(&v2_spec(1)); p[8] = 0x24; p }, IntError::ReportTypeUnsupported),
        ("v2 md length", { let mut p = encode_report(&v2_spec(1)); p[10] += 1; p }, IntError::ReportMetadataMismatch),
        ("v2 in type 9", { let mut p = encode_report(&v2_spec(1)); p[8] = 0x19; p }, IntError::InnerUnsupported),
        ("v2 trailing bytes", { let mut p = encode_report(&v2_spec(1)); p.extend_from_slice(&[0x14, 0]); p }, IntError::IndividualReportTruncated),
    ];
    for (name, payload, want) in cases {
        assert_eq!(decode(&d, &payload).err(), Some(want), "{name}");
    }
    // More hops than configured.
    assert_eq!(decode(&decoder(4), &v05_payload(6)).err(), Some(IntError::TooManyHops));
    assert_eq!(decode(&decoder(4), &encode_report(&v2_spec(6))).err(), Some(IntError::TooManyHops));
    // A version the configuration leaves out.
    let only_v2 = IntDecoder::new(&IntDecoderConfig { versions: vec![ReportVersion::V2], ..IntDecoderConfig::default() }).unwrap();
    assert_eq!(decode(&only_v2, &v05_payload(1)).err(), Some(IntError::VersionDisabled));
    assert!(decode(&only_v2, &encode_report(&v2_spec(1))).is_ok());
    // A bad second report rejects the whole group.
    let mut group = encode_group(&[v2_spec(1), v2_spec(1)]);
    let second = group.len() / 2 + 4;
    group[second] = 0x20 | (group[second] & 0x0f);
    assert_eq!(decode(&d, &group).err(), Some(IntError::ReportTypeUnsupported));
}

#[test]
fn bad_settings_are_refused() {
    for cfg in [
        IntDecoderConfig { max_hops: 0, ..IntDecoderConfig::default() },
        IntDecoderConfig { max_hops: 17, ..IntDecoderConfig::default() },
        IntDecoderConfig { versions: vec![], ..IntDecoderConfig::default() },
        IntDecoderConfig { ports: vec![0], ..IntDecoderConfig::default() },
    ] {
        assert!(IntDecoder::new(&cfg).is_err());
    }
}

// ---- properties ----

fn any_flow() -> impl Strategy<Value = FiveTuple> {
    (any::<bool>(), any::<[u8; 16]>(), any::<[u8; 16]>(), prop_oneof![Just(6u8), Just(17u8)], any::<u16>(), any::<u16>())
        .prop_map(|(v6, s, d, proto, sport, dport)| {
            let (src, dst) = if v6 {
                (IpAddr::V6(Ipv6Addr::from(s)), IpAddr::V6(Ipv6Addr::from(d)))
            } else {
                (
                    IpAddr::V4(Ipv4Addr::new(s[0], s[1], s[2], s[3])),
                    IpAddr::V4(Ipv4Addr::new(d[0], d[1], d[2], d[3])),
                )
            };
            FiveTuple { src, dst, proto, sport, dport }
        })
}

fn any_flags() -> impl Strategy<Value = ReportFlags> {
    any::<[bool; 4]>().prop_map(|b| ReportFlags { dropped: b[0], congested_queue: b[1], tracked_flow: b[2], intermediate: b[3] })
}

fn any_version() -> impl Strategy<Value = ReportVersion> {
    prop_oneof![Just(ReportVersion::V05), Just(ReportVersion::V10), Just(ReportVersion::V2)]
}

fn any_spec() -> impl Strategy<Value = ReportSpec> {
    any_version().prop_flat_map(spec_for)
}

prop_compose! {
    fn spec_for(version: ReportVersion)(
        bitmap in any::<u16>().prop_map(move |b| b & known_bits(version)),
        n_hops in 0usize..=16,
        raws in proptest::collection::vec(any::<[u64; 12]>(), 16),
        local_bits in any::<u16>().prop_map(|b| b & 0xff81),
        local_raw in any::<[u64; 12]>(),
        with_int in any::<bool>(),
        flow in any_flow(),
        ethernet in any::<bool>(),
        flags in any_flags(),
        (hw_id, seq, node_id, report_ts) in (0u8..64, any::<u32>(), any::<u32>(), any::<u32>()),
        (budget, dscp) in (any::<u8>(), 0u8..64),
    ) -> ReportSpec {
        // Hops without fields have no size in v1.0/v2.x: none can be carried.
        let n = if bitmap == 0 && version != ReportVersion::V05 { 0 } else { n_hops };
        let hops = raws[..n].iter().map(|r| masked_hop(version, bitmap, r, false)).collect();
        let int = (with_int || version != ReportVersion::V2).then_some(IntStack {
            bitmap,
            // v0.5 requires TotalHopCnt <= MaxHopCnt.
            hop_budget: if version == ReportVersion::V05 { budget.max(n as u8) } else { budget },
            hops,
            original_dscp: dscp,
        });
        ReportSpec {
            version,
            hw_id,
            seq,
            node_id,
            report_ts,
            flags: if version == ReportVersion::V05 { ReportFlags { intermediate: false, ..flags } } else { flags },
            framing: if ethernet { InnerFraming::Ethernet } else { InnerFraming::Ip },
            flow,
            local_bitmap: if version == ReportVersion::V2 { local_bits } else { 0 },
            local: if version == ReportVersion::V2 { masked_hop(version, local_bits, &local_raw, true) } else { HopMetadata::default() },
            int,
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Every version and instruction combination round-trips.
    #[test]
    fn round_trip(spec in any_spec()) {
        let d = decoder(16);
        let payload = encode_report(&spec);
        let got = decode(&d, &payload).map_err(|e| TestCaseError::fail(format!("{e}: {spec:?}")))?;
        prop_assert_eq!(got.len(), 1);
        check(&spec, &got[0]);
        // The same through an outer frame.
        let mut buf = ReportBuf::default();
        d.decode_frame(&outer_frame(&payload, PORT), &mut buf).unwrap();
        prop_assert_eq!(buf.reports(), &got[..]);
    }

    /// v2.x groups of several individual reports round-trip in order.
    #[test]
    fn v2_groups_round_trip(specs in proptest::collection::vec(spec_for(ReportVersion::V2), 1..5)) {
        let first = &specs[0];
        let specs: Vec<ReportSpec> = specs.iter().map(|s| ReportSpec { hw_id: first.hw_id, seq: first.seq, node_id: first.node_id, ..s.clone() }).collect();
        let got = decode(&decoder(16), &encode_group(&specs)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(got.len(), specs.len());
        for (s, g) in specs.iter().zip(&got) {
            check(s, g);
        }
    }

    /// A truncated report is rejected (never a panic, never a partial result).
    #[test]
    fn truncation_is_rejected(spec in any_spec(), cut in any::<prop::sample::Index>()) {
        let payload = encode_report(&spec);
        let at = cut.index(payload.len());
        let r = decode(&decoder(16), &payload[..at]);
        prop_assert!(r.is_err(), "{at} of {} bytes decoded: {:?}", payload.len(), r);
    }

    /// Arbitrary bytes and single-byte corruptions never panic.
    #[test]
    fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..400), spec in any_spec(), at in any::<prop::sample::Index>(), v in any::<u8>()) {
        let d = decoder(16);
        let _ = decode(&d, &bytes);
        let mut p = encode_report(&spec);
        let i = at.index(p.len());
        p[i] = v;
        let _ = decode(&d, &p);
        let mut buf = ReportBuf::default();
        let _ = d.decode_frame(&bytes, &mut buf);
    }
}
