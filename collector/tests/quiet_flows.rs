//! A flow that falls silent at a switch (it ended, or was rerouted off it) stops adding to
//! its port's load after a few of its own sample gaps, long before it expires: the port
//! clears and the flow is reported once at rate 0. A flow whose samples keep coming is
//! untouched, and a silent flow that resumes counts again.

mod common;

use std::sync::Arc;

use arc_swap::ArcSwap;
use common::*;
use crossbeam_channel::Receiver;
use planck_collector::decode::MirroredFrameDecoder;
use planck_collector::detect::DetectionSettings;
use planck_collector::export::{CongestionState, Event, EventSink};
use planck_collector::forwarding::{CompiledMap, ForwardingMapV1, StaticSwitches};
use planck_collector::metrics::Metrics;
use planck_collector::pipeline::{Worker, WorkerConfig};

const US: u64 = 1_000;
const MS: u64 = 1_000_000;

fn worker(metrics: Arc<Metrics>) -> (Worker<MirroredFrameDecoder>, Receiver<Event>) {
    let map: ForwardingMapV1 = serde_json::from_str(FORWARDING).unwrap();
    let statics = StaticSwitches {
        vlans: vec![],
        interface_switches: vec!["of:0000000000000001".into()],
    };
    let compiled = CompiledMap::build(None, Some(&map), &statics, 1).unwrap();
    let (sink, rx) = EventSink::channel(100_000, metrics.clone());
    let w = Worker::new(
        WorkerConfig {
            idle_timeout_ns: 2_000 * MS,
            quiet_after_gaps: 16,
            quiet_min_ns: 10 * MS,
            ..WorkerConfig::default()
        },
        MirroredFrameDecoder,
        Arc::new(ArcSwap::from_pointee(compiled)),
        // Reports every 1 ms.
        Arc::new(DetectionSettings::new(80.0, 5.0, 1.0)),
        Some(sink),
        Some(metrics),
    );
    (w, rx)
}

/// Flow `sport` to h2 (port 2, 100 Mb/s): one `bytes`-byte segment every 100 µs.
struct Sender {
    sport: u16,
    bytes: u32,
    seq: u32,
}

impl Sender {
    fn send(&mut self, w: &mut Worker<MirroredFrameDecoder>, ts: u64) {
        self.seq = self.seq.wrapping_add(self.bytes);
        let f = tcp(
            MAC_H1,
            MAC_H2,
            [10, 0, 0, 1],
            [10, 0, 0, 2],
            self.sport,
            5201,
            self.seq,
            1,
            self.bytes as usize,
            Some(10),
            128,
        );
        w.on_frame(ts, None, None, &f);
    }
}

/// Runs [from, to) in 100 µs steps: the senders send, the worker ticks every 500 µs.
fn run(w: &mut Worker<MirroredFrameDecoder>, senders: &mut [&mut Sender], from: u64, to: u64) {
    let mut t = from;
    while t < to {
        for s in senders.iter_mut() {
            s.send(w, t);
        }
        if (t - from).is_multiple_of(500 * US) {
            w.tick(t);
        }
        t += 100 * US;
    }
}

fn drain(rx: &Receiver<Event>) -> Vec<Event> {
    rx.try_iter().collect()
}

fn notices(ev: &[Event]) -> Vec<CongestionState> {
    ev.iter()
        .filter_map(|e| match e {
            Event::PortCongestion(n) if n.port == 2 => Some(n.state),
            _ => None,
        })
        .collect()
}

/// The rates reported for the flow from `sport`, in order.
fn rates(ev: &[Event], sport: u16) -> Vec<f64> {
    ev.iter()
        .filter_map(|e| match e {
            Event::FlowRate(f) if f.flow.sport == sport => Some(f.bytes_per_sec),
            _ => None,
        })
        .collect()
}

#[test]
fn silent_flow_leaves_its_port_and_comes_back() {
    let metrics = Arc::new(Metrics::new());
    let (mut w, rx) = worker(metrics.clone());
    // A: 750 B / 100 µs = 60 Mb/s; B: 375 B / 100 µs = 30 Mb/s. Together 90 % of port 2.
    let mut a = Sender {
        sport: 40_001,
        bytes: 750,
        seq: 1,
    };
    let mut b = Sender {
        sport: 40_002,
        bytes: 375,
        seq: 1,
    };
    run(&mut w, &mut [&mut a, &mut b], T0, T0 + 100 * MS);
    let ev = drain(&rx);
    assert_eq!(notices(&ev), vec![CongestionState::Congested]);
    // The notice comes after the estimates that add up to it.
    let at = ev
        .iter()
        .position(|e| matches!(e, Event::PortCongestion(_)))
        .unwrap();
    assert!(!rates(&ev[..at], 40_001).is_empty() && !rates(&ev[..at], 40_002).is_empty());
    let last_a = *rates(&ev, 40_001).last().expect("A reported");
    assert!((last_a - 7.5e6).abs() < 0.02 * 7.5e6, "A at {last_a} B/s");

    // A stops; B goes on. Its samples were 100 µs apart: after 16 gaps, floored at
    // 10 ms, A is quiet. Well inside the 2 s idle timeout.
    run(&mut w, &mut [&mut b], T0 + 100 * MS, T0 + 130 * MS);
    let ev = drain(&rx);
    assert_eq!(notices(&ev), vec![CongestionState::Cleared], "{ev:?}");
    assert_eq!(rates(&ev, 40_001), vec![0.0], "A reported once at rate 0");
    assert!(rates(&ev, 40_002).iter().all(|&r| r > 0.0));
    let cleared = ev
        .iter()
        .find_map(|e| match e {
            Event::PortCongestion(n) => Some(n.load_bps),
            _ => None,
        })
        .unwrap();
    assert!((cleared - 30e6).abs() < 0.02 * 30e6, "load left: {cleared}");
    assert_eq!(metrics.quiet_flows.get(), 1);

    // Silence goes on: A is neither withdrawn nor reported again.
    run(&mut w, &mut [&mut b], T0 + 130 * MS, T0 + 200 * MS);
    let ev = drain(&rx);
    assert!(notices(&ev).is_empty());
    assert!(rates(&ev, 40_001).is_empty());
    // B's windows (256 KiB) last about 70 ms: it has been reported meanwhile, at its rate.
    let b_rates = rates(&ev, 40_002);
    assert!(!b_rates.is_empty() && b_rates.iter().all(|r| (r - 3.75e6).abs() < 0.02 * 3.75e6));
    assert_eq!(metrics.quiet_flows.get(), 1);

    // A resumes: its rate comes back and the port congests again.
    run(&mut w, &mut [&mut a, &mut b], T0 + 200 * MS, T0 + 260 * MS);
    let ev = drain(&rx);
    assert_eq!(
        notices(&ev),
        vec![CongestionState::Congested],
        "{:?}",
        rates(&ev, 40_001)
    );
    let back = *rates(&ev, 40_001).last().expect("A reported again");
    assert!((back - 7.5e6).abs() < 0.02 * 7.5e6, "A back at {back} B/s");
}

#[test]
fn steady_flows_are_never_quiet() {
    let metrics = Arc::new(Metrics::new());
    let (mut w, rx) = worker(metrics.clone());
    let mut a = Sender {
        sport: 40_001,
        bytes: 750,
        seq: 1,
    };
    run(&mut w, &mut [&mut a], T0, T0 + 500 * MS);
    let ev = drain(&rx);
    let r = rates(&ev, 40_001);
    assert!(r.len() > 10);
    assert!(r.iter().all(|&x| x > 0.0), "a steady flow reported at 0");
    assert_eq!(metrics.quiet_flows.get(), 0);
}
