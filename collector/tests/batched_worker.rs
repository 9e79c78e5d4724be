//! `Worker::on_frames` (decode a group, prefetch, then apply) must leave exactly the
//! state that `Worker::on_frame` on each frame in turn leaves.

mod common;

use std::sync::Arc;

use arc_swap::ArcSwap;
use common::*;
use planck_collector::decode::MirroredFrameDecoder;
use planck_collector::detect::DetectionSettings;
use planck_collector::forwarding::{CompiledMap, ForwardingMapV1, StaticSwitches};
use planck_collector::pipeline::{CapturedFrame, Worker, WorkerConfig};

fn worker() -> Worker<MirroredFrameDecoder> {
    let map: ForwardingMapV1 = serde_json::from_str(FORWARDING).unwrap();
    let statics = StaticSwitches {
        vlans: vec![],
        interface_switches: vec!["of:0000000000000001".into()],
    };
    let compiled = CompiledMap::build(None, Some(&map), &statics, 1).unwrap();
    // A small table and a short idle timeout: new flows get refused and idle ones
    // expire, so slots are removed and reused while samples keep coming.
    let cfg = WorkerConfig {
        max_flows: 40,
        idle_timeout_ns: 3_000_000,
        ..WorkerConfig::default()
    };
    Worker::new(
        cfg,
        MirroredFrameDecoder,
        Arc::new(ArcSwap::from_pointee(compiled)),
        Arc::new(DetectionSettings::new(80.0, 5.0, 5.0)),
        None,
        None,
    )
}

/// The shared scenario interleaved with many short TCP flows, some untagged (interface
/// switch), several samples of one flow close together (same prefetch group).
fn traffic() -> Vec<(u64, Vec<u8>)> {
    let mut out: Vec<(u64, Vec<u8>)> = scenario().into_iter().map(|c| (c.ts_ns, c.frame)).collect();
    let mut rng = Lcg(0x1234_5678_9abc_def1);
    let mut seq = [0u32; 64];
    for i in 0..20_000u64 {
        let f = (rng.next() % 64) as usize;
        let payload = [0usize, 1448, 100][(rng.next() % 3) as usize];
        seq[f] = seq[f].wrapping_add(payload as u32);
        let dst = [MAC_H2, MAC_H3, MAC_H4, [2, 0, 0, 0, 0, 9]][f % 4];
        let vlan = if f.is_multiple_of(5) { None } else { Some(10) };
        let frame = tcp(
            MAC_H1,
            dst,
            [10, 9, 0, f as u8],
            [10, 8, 0, 1],
            30_000 + f as u16,
            80,
            seq[f],
            1,
            payload,
            vlan,
            64,
        );
        out.push((T0 + i * 20_000 + (rng.next() % 5_000), frame));
    }
    out.sort_by_key(|c| c.0);
    out
}

#[test]
fn batched_input_leaves_the_same_state_as_frame_by_frame() {
    let traffic = traffic();
    let mut one_by_one = worker();
    let mut batched = worker();
    let window = *one_by_one.window();
    let describe = |w: &Worker<MirroredFrameDecoder>| -> Vec<String> {
        w.flows()
            .iter()
            .map(|st| {
                format!(
                    "{:?} port={} bps={} current={:?} lifetime={:?}",
                    st.key,
                    st.port,
                    st.contributed_bps,
                    st.current(&window),
                    st.lifetime(&window)
                )
            })
            .collect()
    };
    let mut rng = Lcg(77);
    let mut most_flows = 0;
    let mut at = 0;
    while at < traffic.len() {
        let n = ((rng.next() % 100) as usize + 1).min(traffic.len() - at);
        let group = &traffic[at..at + n];
        at += n;
        for (ts, f) in group {
            one_by_one.on_frame(*ts, None, Some(0), f);
        }
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
        let now = group.last().unwrap().0;
        one_by_one.tick(now);
        batched.tick(now);
        let a = describe(&one_by_one);
        most_flows = most_flows.max(a.len());
        assert_eq!(a, describe(&batched), "after frame {at}");
    }
    assert_eq!(one_by_one.counters, batched.counters);
    assert_eq!(one_by_one.counters.packets, traffic.len() as u64);
    // The scenario's noise and the small table exercise every counter.
    let c = one_by_one.counters;
    assert!(
        c.decode_errors > 0 && c.non_ip > 0 && c.unknown_vlan > 0,
        "{c:?}"
    );
    assert!(c.flow_table_full > 0 && c.unmapped_samples > 0, "{c:?}");
    // The table filled up at some point.
    assert_eq!(most_flows, 40);
}
