//! IPv6 flows: their compact keys carry a digest of the addresses, so a match is
//! confirmed against the full key. Flows that differ only in an address stay apart and
//! are each estimated at their own rate, frame by frame and batched.

mod common;

use std::sync::Arc;

use arc_swap::ArcSwap;
use common::*;
use planck_collector::decode::MirroredFrameDecoder;
use planck_collector::detect::DetectionSettings;
use planck_collector::flow::EstimatorKind;
use planck_collector::forwarding::{CompiledMap, ForwardingMapV1, StaticSwitches};
use planck_collector::pipeline::{CapturedFrame, Worker, WorkerConfig};

fn worker() -> Worker<MirroredFrameDecoder> {
    let map: ForwardingMapV1 = serde_json::from_str(FORWARDING).unwrap();
    let statics = StaticSwitches {
        vlans: vec![],
        interface_switches: vec!["of:0000000000000001".into()],
    };
    let compiled = CompiledMap::build(None, Some(&map), &statics, 1).unwrap();
    Worker::new(
        WorkerConfig {
            idle_timeout_ns: u64::MAX,
            ..WorkerConfig::default()
        },
        MirroredFrameDecoder,
        Arc::new(ArcSwap::from_pointee(compiled)),
        Arc::new(DetectionSettings::new(80.0, 5.0, 5.0)),
        None,
        None,
    )
}

fn addr(last: u8) -> [u8; 16] {
    let mut a = [0u8; 16];
    a[0] = 0xfd;
    a[15] = last;
    a
}

/// Flow k (0..4) sends 1000 * (k + 1) bytes every 100 µs from fd00::k to fd00::ff, all
/// on the same ports; flow 4 is an IPv4 flow on the same ports. Also pure ACKs of a
/// sixth flow (fd00::ff -> fd00::77) measuring its reverse direction.
fn traffic() -> Vec<(u64, Vec<u8>)> {
    let mut out = Vec::new();
    let mut seq = [7u32; 5];
    for i in 0..400u64 {
        for (k, seq) in seq.iter_mut().enumerate() {
            *seq = seq.wrapping_add(1000 * (k as u32 + 1));
            let frame = if k < 4 {
                tcp6(
                    MAC_H1,
                    MAC_H2,
                    addr(k as u8),
                    addr(0xff),
                    40_000,
                    80,
                    *seq,
                    1,
                    100,
                )
            } else {
                tcp(
                    MAC_H1,
                    MAC_H2,
                    [10, 0, 0, 1],
                    [10, 0, 0, 2],
                    40_000,
                    80,
                    *seq,
                    1,
                    100,
                    None,
                    200,
                )
            };
            out.push((T0 + i * 100_000 + k as u64, frame));
        }
        // Pure ACK from fd00::ff to fd00::77: 500 bytes acknowledged per 100 µs.
        let ack = 1u32.wrapping_add(500 * i as u32);
        out.push((
            T0 + i * 100_000 + 9,
            tcp6(
                MAC_H2,
                MAC_H3,
                addr(0xff),
                addr(0x77),
                80,
                40_001,
                5,
                ack,
                0,
            ),
        ));
    }
    out
}

fn check(w: &Worker<MirroredFrameDecoder>) {
    let window = *w.window();
    let mut found = 0;
    for st in w.flows().iter() {
        let est = st.lifetime(&window);
        let t = st.key.tuple;
        let expected = if t.src.is_ipv4() {
            5000.0
        } else if t.src.to_string() == "fd00::77" {
            // The ACK-measured flow: its data goes fd00::77 -> fd00::ff.
            assert_eq!((t.sport, t.dport), (40_001, 80));
            assert_eq!(est.kind, EstimatorKind::TcpAck);
            500.0
        } else {
            assert_eq!(t.dst.to_string(), "fd00::ff");
            assert_eq!(est.kind, EstimatorKind::TcpSeq);
            let std::net::IpAddr::V6(src) = t.src else {
                unreachable!()
            };
            let k = src.octets()[15] as f64;
            1000.0 * (k + 1.0)
        } / 100e-6;
        assert!(
            (est.bytes_per_sec - expected).abs() / expected < 1e-6,
            "{:?}: {} B/s, expected {expected}",
            st.key,
            est.bytes_per_sec
        );
        found += 1;
    }
    assert_eq!(found, 6);
}

#[test]
fn ipv6_flows_that_differ_only_in_an_address_are_kept_apart() {
    let traffic = traffic();
    let mut one = worker();
    for (ts, f) in &traffic {
        one.on_frame(*ts, None, Some(0), f);
    }
    check(&one);
    let mut batched = worker();
    for group in traffic.chunks(37) {
        let frames: Vec<CapturedFrame> = group
            .iter()
            .map(|(ts, f)| CapturedFrame {
                ts_ns: *ts,
                vlan_hint: None,
                iface_switch: Some(0),
                data: f,
            })
            .collect();
        batched.on_frames(&frames);
    }
    check(&batched);
    assert_eq!(one.counters, batched.counters);
    assert_eq!(one.counters.packets, traffic.len() as u64);
}
