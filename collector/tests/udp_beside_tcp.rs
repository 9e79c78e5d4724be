//! A paced UDP flow beside a bursty TCP flow on a drop-tail mirror: the mirror samples
//! the smooth flow more often, so sampled bytes x the TCP-measured ratio inflate it.
//! A sender that numbers its packets (IPv4 identification) is counted exactly instead;
//! one that does not is reported with the low-confidence flag.

mod common;

use std::sync::Arc;

use arc_swap::ArcSwap;
use common::*;
use planck_collector::decode::MirroredFrameDecoder;
use planck_collector::detect::DetectionSettings;
use planck_collector::export::{Event, EventSink};
use planck_collector::flow::EstimatorKind;
use planck_collector::forwarding::{CompiledMap, ForwardingMapV1, StaticSwitches};
use planck_collector::metrics::Metrics;
use planck_collector::pipeline::{Worker, WorkerConfig};

const US: u64 = 1_000;

/// A UDP datagram of `payload` bytes to h4 with IPv4 identification `id`.
fn udp_with_id(sport: u16, payload: usize, id: u16) -> Vec<u8> {
    let mut f = udp(
        MAC_H1,
        MAC_H4,
        [10, 0, 0, 1],
        [10, 0, 0, 4],
        sport,
        9001,
        payload,
        None,
    );
    f[18..20].copy_from_slice(&id.to_be_bytes());
    f
}

#[test]
fn sequential_ids_give_the_true_rate_and_others_are_flagged() {
    let map: ForwardingMapV1 = serde_json::from_str(FORWARDING).unwrap();
    let statics = StaticSwitches {
        vlans: vec![],
        interface_switches: vec!["of:0000000000000001".into()],
    };
    let compiled = CompiledMap::build(None, Some(&map), &statics, 1).unwrap();
    let metrics = Arc::new(Metrics::new());
    let (sink, rx) = EventSink::channel(1_000_000, metrics.clone());
    let mut w = Worker::new(
        WorkerConfig {
            idle_timeout_ns: u64::MAX,
            quiet_after_gaps: 0,
            ..WorkerConfig::default()
        },
        MirroredFrameDecoder,
        Arc::new(ArcSwap::from_pointee(compiled)),
        Arc::new(DetectionSettings::new(80.0, 5.0, 1.0)),
        Some(sink),
        None,
    );
    let sw = w.map().switch_index("of:0000000000000001");
    // 2 s. TCP: 1448 B every 100 µs (115.84 Mb/s), one segment in 8 sampled, so the
    // mirror's ratio measures 8. UDP: 1000 B every 1 ms (8 Mb/s) from two senders, one
    // numbering its packets and one sending ID 0; every other datagram sampled (the
    // smooth flows find the mirror queue free more often).
    let mut seq = 0u32;
    for step in 0..20_000u64 {
        let t = T0 + step * 100 * US;
        seq = seq.wrapping_add(1448);
        if step % 8 == 0 {
            let f = tcp(
                MAC_H1,
                MAC_H2,
                [10, 0, 0, 1],
                [10, 0, 0, 2],
                40000,
                5201,
                seq,
                1,
                1448,
                None,
                128,
            );
            w.on_frame(t, None, sw, &f);
        }
        if step % 10 == 0 {
            let n = step / 10;
            if n % 2 == 0 {
                w.on_frame(
                    t,
                    None,
                    sw,
                    &udp_with_id(7000, 1000, 40_000u16.wrapping_add(n as u16)),
                );
                w.on_frame(t, None, sw, &udp_with_id(7001, 1000, 0));
            }
        }
        if step % 5 == 0 {
            w.tick(t);
        }
    }
    w.flush();
    let ratio = w.sampling_ratio(sw.unwrap()).unwrap();
    assert!((ratio - 8.0).abs() < 0.5, "ratio {ratio}");

    let params = *w.window();
    let mut seen = 0;
    for f in w.flows().iter() {
        let life = f.lifetime(&params);
        match f.key.tuple.sport {
            40000 => assert_eq!(life.kind, EstimatorKind::TcpSeq),
            7000 => {
                seen += 1;
                assert_eq!(life.kind, EstimatorKind::Ipv4Id);
                let err = (life.bytes_per_sec * 8.0 - 8e6).abs() / 8e6;
                assert!(
                    err < 0.01,
                    "numbered UDP at {} b/s",
                    life.bytes_per_sec * 8.0
                );
                let cur = f.current(&params).unwrap();
                assert_eq!(cur.kind, EstimatorKind::Ipv4Id);
                assert!(!cur.kind.low_confidence(false));
            }
            7001 => {
                seen += 1;
                assert_eq!(life.kind, EstimatorKind::SampledBytes);
                // What the ratio gives: half the datagrams x 8 = 4x the true rate.
                let bps = life.bytes_per_sec * 8.0;
                assert!(bps > 24e6, "unnumbered UDP at {bps} b/s");
                assert!(f.current(&params).unwrap().kind.low_confidence(false));
            }
            other => panic!("unexpected flow {other}"),
        }
    }
    assert_eq!(seen, 2);

    // On the wire: the numbered flow as SAMPLED_BYTES without the flag (v1 values), the
    // other flagged.
    let mut numbered = None;
    let mut unnumbered = None;
    for e in rx.try_iter() {
        if let Event::FlowRate(r) = e {
            match r.flow.sport {
                7000 => numbered = Some(r),
                7001 => unnumbered = Some(r),
                _ => {}
            }
        }
    }
    let numbered = serde_json::to_value(Event::FlowRate(numbered.unwrap())).unwrap();
    assert_eq!(numbered["estimator"], "SAMPLED_BYTES");
    assert!(numbered.get("lowConfidence").is_none(), "{numbered}");
    let bps = numbered["bytesPerSec"].as_f64().unwrap() * 8.0;
    assert!((bps - 8e6).abs() / 8e6 < 0.05, "{numbered}");
    let unnumbered = serde_json::to_value(Event::FlowRate(unnumbered.unwrap())).unwrap();
    assert_eq!(unnumbered["lowConfidence"], true, "{unnumbered}");
}
