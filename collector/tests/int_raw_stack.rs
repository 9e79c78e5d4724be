//! The INT state's short way for unchanged hop stacks (`ReportBuf::deferring` +
//! `IntState::apply_buf`) against decoding every hop (`ReportBuf::default` +
//! `IntState::apply`): on random sequences of encoded v0.5, v1.0 and v2 reports whose
//! stacks often repeat (with timestamps that always change), both emit the same events
//! in the same order and end with the same counters.

mod int_encoder;

use std::net::{IpAddr, Ipv4Addr};

use int_encoder::*;
use planck_collector::decode::FiveTuple;
use planck_collector::decode::int::{HopMetadata, IntDecoder, IntDecoderConfig, ReportBuf, ReportFlags, ReportVersion};
use planck_collector::inband::{IntEvent, IntState, IntervalWidths, StateConfig, StateCounters};
use proptest::prelude::*;

fn flow(n: u8) -> FiveTuple {
    FiveTuple { src: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)), dst: IpAddr::V4(Ipv4Addr::new(10, 0, 1, n)), proto: 17, sport: 5000, dport: 5001 }
}

#[derive(Clone, Debug)]
struct Rep {
    dt: u64,
    flow: u8,
    version: ReportVersion,
    bitmap: u16,
    path: u8,
    /// Values 0-2: stacks repeat often.
    variant: u32,
    /// One hop's latency or occupancy moves on its own.
    jitter: Option<(usize, u32)>,
    ts: u64,
}

/// Bitmaps with a switch id (the state keys nothing without one), full and partial.
fn bitmap(version: ReportVersion) -> impl Strategy<Value = u16> {
    let choices: Vec<u16> = match version {
        ReportVersion::V05 => vec![0xff00, 0xb300, 0xe000, 0x8100, 0x9200, 0xfc00],
        _ => vec![0xff80, 0xff81, 0xb100, 0xe000, 0x8d00, 0xf801],
    };
    prop::sample::select(choices)
}

fn rep() -> impl Strategy<Value = Rep> {
    prop_oneof![Just(ReportVersion::V05), Just(ReportVersion::V10), Just(ReportVersion::V2)].prop_flat_map(|version| {
        (0u64..300, 0u8..4, bitmap(version), 0u8..5, 0u32..3, prop::option::weighted(0.2, (0usize..4, 0u32..200)), any::<u64>()).prop_map(
            move |(dt, flow, bitmap, path, variant, jitter, ts)| Rep { dt, flow, version, bitmap, path, variant, jitter, ts },
        )
    })
}

fn payload(r: &Rep) -> Vec<u8> {
    let switches: &[u32] = match r.path {
        0 => &[1, 2, 3, 4],
        1 => &[1, 5, 3],
        // Its stack is the start of path 0's: slots kept past its end must not count.
        2 => &[3, 4],
        3 => &[6],
        // Longer than the hops a flow entry keeps in its hot part.
        _ => &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13],
    };
    let hops = switches
        .iter()
        .enumerate()
        .map(|(i, &sw)| {
            let (lat, occ) = match r.jitter {
                Some((j, v)) if j == i => (v, v),
                _ => (10 + 30 * r.variant, 5 + 40 * r.variant),
            };
            HopMetadata {
                switch_id: sw,
                ingress_port: 1,
                egress_port: 2 + (sw % 2) as u16,
                hop_latency: lat,
                queue_id: (sw % 2) as u8,
                queue_occupancy: occ,
                // Timestamps change with every report (masked out by the comparison,
                // read for v1.0/v2 event times).
                ingress_ts: r.ts.wrapping_add(i as u64),
                egress_ts: r.ts.wrapping_add(10 + i as u64),
                l2_ingress_port: 7,
                l2_egress_port: 8,
                tx_utilization: 100 * r.variant,
                buffer_id: 1,
                buffer_occupancy: 3,
                congestion_queue_id: if r.variant == 2 { 1 } else { (sw % 2) as u8 },
                queue_congestion: 20 * r.variant,
                ..HopMetadata::default()
            }
        })
        .rev()
        .collect();
    let v05 = r.version == ReportVersion::V05;
    encode_report(&ReportSpec {
        version: r.version,
        hw_id: 0,
        seq: 0,
        node_id: 9,
        report_ts: r.ts as u32,
        flags: ReportFlags { tracked_flow: true, ..ReportFlags::default() },
        framing: InnerFraming::Ethernet,
        flow: flow(r.flow),
        local_bitmap: 0,
        local: HopMetadata::default(),
        int: Some(IntStack { bitmap: r.bitmap, hop_budget: if v05 { 16 } else { 4 }, hops, original_dscp: 0 }),
    })
}

fn run(cfg: StateConfig, reps: &[Rep], expire_every: usize, deferring: bool) -> (Vec<(usize, IntEvent)>, StateCounters) {
    let d = IntDecoder::new(&IntDecoderConfig { max_hops: 16, ..IntDecoderConfig::default() }).unwrap();
    let mut state = IntState::new(cfg);
    let mut buf = if deferring { ReportBuf::deferring() } else { ReportBuf::default() };
    let mut events = Vec::new();
    let mut now = 0;
    for (i, r) in reps.iter().enumerate() {
        now += r.dt;
        d.decode_payload(&payload(r), &mut buf).expect("encoder output decodes");
        if deferring {
            state.apply_buf(&mut buf, now, &mut |e| events.push((i, e)));
        } else {
            for rep in buf.reports() {
                state.apply(rep, now, &mut |e| events.push((i, e)));
            }
        }
        if i % expire_every == expire_every - 1 {
            state.expire(now);
        }
    }
    (events, state.counters)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn short_way_gives_the_events_of_the_long_way(
        reps in prop::collection::vec(rep(), 1..150),
        widths in (1u64..50, 1u64..50, 1u64..150, 1u64..50, 1u64..50),
        tables in (1usize..5, 1usize..8, 1usize..8),
        expire_every in 5usize..60,
    ) {
        let cfg = StateConfig {
            widths: IntervalWidths { flow_latency_ns: widths.0, hop_latency_ns: widths.1, link_utilization: widths.2, queue_occupancy: widths.3, queue_congestion: widths.4 },
            push_interval_ns: 2000,
            idle_timeout_ns: 3000,
            max_flows: tables.0,
            max_ports: tables.1,
            max_queues: tables.2,
        };
        let (long, long_counts) = run(cfg, &reps, expire_every, false);
        let (short, short_counts) = run(cfg, &reps, expire_every, true);
        prop_assert_eq!(long, short);
        prop_assert_eq!(long_counts, StateCounters { unchanged_stacks: 0, ..short_counts });
    }
}

/// The comparison is not vacuous: repeated stacks do take the short way, and the events
/// still come (periodic pushes, other flows moving a shared key).
#[test]
fn repeated_stacks_take_the_short_way() {
    let reps: Vec<Rep> = (0..400)
        .map(|i| Rep {
            dt: 10,
            flow: (i % 4) as u8,
            version: if i % 4 < 2 { ReportVersion::V05 } else { ReportVersion::V10 },
            bitmap: if i % 4 < 2 { 0xff00 } else { 0xff80 },
            path: 0,
            variant: if i % 4 == 3 && i % 40 >= 20 { 1 } else { 0 },
            jitter: None,
            ts: i as u64 * 1000,
        })
        .collect();
    let cfg = StateConfig { push_interval_ns: 1000, ..StateConfig::default() };
    let (long, long_counts) = run(cfg, &reps, 50, false);
    let (short, short_counts) = run(cfg, &reps, 50, true);
    assert_eq!(long, short);
    assert_eq!(long_counts.reports, short_counts.reports);
    assert!(short_counts.unchanged_stacks > 250, "{short_counts:?}");
    assert_eq!(long_counts.unchanged_stacks, 0);
    assert!(short.len() > 40, "periodic pushes and flow 3's moves still come: {}", short.len());
}

/// A path longer than the hops a flow entry keeps in its hot part takes the short way
/// too (the further hops from the cold part), with the same events.
#[test]
fn long_paths_take_the_short_way() {
    let reps: Vec<Rep> = (0..400)
        .map(|i| Rep {
            dt: 10,
            flow: (i % 2) as u8,
            version: if i % 2 == 0 { ReportVersion::V05 } else { ReportVersion::V10 },
            bitmap: if i % 2 == 0 { 0x9300 } else { 0xb100 },
            path: 4,
            variant: if i % 40 >= 30 { 1 } else { 0 },
            jitter: None,
            ts: i as u64 * 1000,
        })
        .collect();
    let cfg = StateConfig { push_interval_ns: 1000, ..StateConfig::default() };
    let (long, long_counts) = run(cfg, &reps, 50, false);
    let (short, short_counts) = run(cfg, &reps, 50, true);
    assert_eq!(long, short);
    assert_eq!(long_counts, StateCounters { unchanged_stacks: 0, ..short_counts });
    assert!(short_counts.unchanged_stacks > 300, "{short_counts:?}");
    assert!(long.len() > 100, "pushes and crossings still come: {}", long.len());
}
