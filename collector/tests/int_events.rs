//! INT state and event detection on scripted report sequences: the events expected are
//! worked out by hand from the interval widths.

mod int_encoder;

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr};

use int_encoder::*;
use planck_collector::decode::FiveTuple;
use planck_collector::decode::int::{HopMetadata, IntDecoder, IntDecoderConfig, ReportBuf, ReportFlags, ReportVersion};
use planck_collector::inband::{Cause, EventKind, IntEvent, IntState, IntervalWidths, StateConfig};

const MS: u64 = 1_000_000;

fn flow(n: u8) -> FiveTuple {
    FiveTuple {
        src: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
        dst: IpAddr::V4(Ipv4Addr::new(10, 0, 1, n)),
        proto: 17,
        sport: 5000,
        dport: 5001,
    }
}

/// A v0.5 report with all fields; `path` from source to sink, `lat` per path position.
fn report(f: FiveTuple, path: &[u32], lat: &[u32], util: u32, occ: u32) -> Vec<u8> {
    let hops = path
        .iter()
        .zip(lat)
        .rev()
        .map(|(&sw, &l)| HopMetadata {
            switch_id: sw,
            ingress_port: 1,
            egress_port: 2,
            hop_latency: l,
            queue_id: 0,
            queue_occupancy: occ,
            ingress_ts: 1,
            egress_ts: 2,
            congestion_queue_id: 0,
            queue_congestion: 0,
            tx_utilization: util,
            ..HopMetadata::default()
        })
        .collect();
    encode_report(&ReportSpec {
        version: ReportVersion::V05,
        hw_id: 0,
        seq: 0,
        node_id: 0,
        report_ts: 0,
        flags: ReportFlags::default(),
        framing: InnerFraming::Ethernet,
        flow: f,
        local_bitmap: 0,
        local: HopMetadata::default(),
        int: Some(IntStack { bitmap: 0xff00, hop_budget: 8, hops, original_dscp: 0 }),
    })
}

struct Rig {
    d: IntDecoder,
    s: IntState,
    buf: ReportBuf,
}

impl Rig {
    fn new(cfg: StateConfig) -> Rig {
        Rig { d: IntDecoder::new(&IntDecoderConfig::default()).unwrap(), s: IntState::new(cfg), buf: ReportBuf::default() }
    }

    /// Events of one report, counted by (measurement, cause).
    fn feed(&mut self, payload: &[u8], now: u64) -> (BTreeMap<(&'static str, Cause), usize>, Vec<IntEvent>) {
        self.d.decode_payload(payload, &mut self.buf).unwrap();
        let mut evs = Vec::new();
        for r in self.buf.reports() {
            self.s.apply(r, now, &mut |e| evs.push(e));
        }
        let mut m = BTreeMap::new();
        for e in &evs {
            let k = match e.kind {
                EventKind::FlowPath { .. } => "path",
                EventKind::FlowLatency { .. } => "flow_latency",
                EventKind::HopLatency { .. } => "hop_latency",
                EventKind::LinkUtilization { .. } => "link",
                EventKind::QueueOccupancy { .. } => "queue_occupancy",
                EventKind::QueueCongestion { .. } => "queue_congestion",
                EventKind::Drop { .. } => "drop",
            };
            *m.entry((k, e.cause)).or_default() += 1;
        }
        (m, evs)
    }
}

fn counts(items: &[(&'static str, Cause, usize)]) -> BTreeMap<(&'static str, Cause), usize> {
    items.iter().map(|&(k, c, n)| ((k, c), n)).collect()
}

#[test]
fn new_keys_intervals_path_changes_and_periodic_pushes() {
    let cfg = StateConfig {
        widths: IntervalWidths { flow_latency_ns: 64, hop_latency_ns: 64, link_utilization: 100, queue_occupancy: 10, queue_congestion: 64 },
        push_interval_ns: 1000 * MS,
        ..StateConfig::default()
    };
    let mut rig = Rig::new(cfg);
    let f = flow(1);
    // 1. New flow over switches 1-2-3: every key is new.
    let (m, evs) = rig.feed(&report(f, &[1, 2, 3], &[100, 200, 300], 500, 15), 0);
    assert_eq!(m, counts(&[
        ("path", Cause::NewKey, 1),
        ("flow_latency", Cause::NewKey, 1),
        ("hop_latency", Cause::NewKey, 3),
        ("link", Cause::NewKey, 3),
        ("queue_occupancy", Cause::NewKey, 3),
        ("queue_congestion", Cause::NewKey, 3),
    ]));
    let path = evs.iter().find_map(|e| match e.kind { EventKind::FlowPath { path, .. } => Some(path), _ => None }).unwrap();
    assert_eq!(path.as_slice(), &[1, 2, 3], "path runs from source to sink");
    assert!(evs.contains(&IntEvent { ts_ns: 0, cause: Cause::NewKey, kind: EventKind::FlowLatency { flow: f, latency_ns: 600 } }));
    // 2. The same values: nothing.
    assert!(rig.feed(&report(f, &[1, 2, 3], &[100, 200, 300], 500, 15), MS).0.is_empty());
    // 3. Switch 2: 200 -> 250 stays in [192, 256); utilisation 500 -> 599 stays in
    //    [500, 600); occupancy 15 -> 19 stays in [10, 20); but the flow's latency
    //    600 -> 650 leaves [576, 640): one flow latency event.
    let (m, _) = rig.feed(&report(f, &[1, 2, 3], &[100, 250, 300], 599, 19), 2 * MS);
    assert_eq!(m, counts(&[("flow_latency", Cause::Interval, 1)]));
    // 4. Switch 2 latency 250 -> 260 crosses 256; flow 650 -> 660 stays in [640, 704);
    //    utilisation 599 -> 600 crosses 600 on all three links; occupancy 19 -> 20 too.
    let (m, evs) = rig.feed(&report(f, &[1, 2, 3], &[100, 260, 300], 600, 20), 3 * MS);
    assert_eq!(m, counts(&[
        ("hop_latency", Cause::Interval, 1),
        ("link", Cause::Interval, 3),
        ("queue_occupancy", Cause::Interval, 3),
    ]));
    assert!(evs.contains(&IntEvent { ts_ns: 3 * MS, cause: Cause::Interval, kind: EventKind::HopLatency { flow: f, switch: 2, port: Some(2), latency_ns: 260 } }));
    // 5. Path change 1-5-3: the path, the three (flow, switch) keys, and switch 5's
    //    link and queue are new.
    let (m, _) = rig.feed(&report(f, &[1, 5, 3], &[100, 260, 300], 600, 20), 4 * MS);
    assert_eq!(m, counts(&[
        ("path", Cause::PathChange, 1),
        ("hop_latency", Cause::NewKey, 3),
        ("link", Cause::NewKey, 1),
        ("queue_occupancy", Cause::NewKey, 1),
        ("queue_congestion", Cause::NewKey, 1),
    ]));
    // 6. A push interval after the first report, every key created then is pushed
    //    (switch 5's link and queue, new at 4 ms, are not due yet).
    let (m, _) = rig.feed(&report(f, &[1, 5, 3], &[100, 260, 300], 600, 20), 1000 * MS);
    assert_eq!(m, counts(&[
        ("path", Cause::Periodic, 1),
        ("flow_latency", Cause::Periodic, 1),
        ("hop_latency", Cause::Periodic, 3),
        ("link", Cause::Periodic, 2),
        ("queue_occupancy", Cause::Periodic, 2),
        ("queue_congestion", Cause::Periodic, 2),
    ]));
    assert!(rig.feed(&report(f, &[1, 5, 3], &[100, 260, 300], 600, 20), 1001 * MS).0.is_empty());
    let (m, _) = rig.feed(&report(f, &[1, 5, 3], &[100, 260, 300], 600, 20), 1004 * MS);
    assert_eq!(m, counts(&[
        ("link", Cause::Periodic, 1),
        ("queue_occupancy", Cause::Periodic, 1),
        ("queue_congestion", Cause::Periodic, 1),
    ]));
    assert_eq!((rig.s.flows(), rig.s.links(), rig.s.queues()), (1, 4, 4));
}

#[test]
fn tables_are_bounded_and_idle_keys_expire() {
    let cfg = StateConfig { max_flows: 2, max_ports: 3, max_queues: 3, idle_timeout_ns: 100 * MS, ..StateConfig::default() };
    let mut rig = Rig::new(cfg);
    rig.feed(&report(flow(1), &[1, 2], &[1, 1], 1, 1), 0);
    rig.feed(&report(flow(2), &[1, 2], &[1, 1], 1, 1), 0);
    let (m, _) = rig.feed(&report(flow(3), &[3, 4], &[1, 1], 1, 1), 0);
    // Flow 3 refused; switch 3's link and queue fit, switch 4's do not.
    assert_eq!(m, counts(&[("link", Cause::NewKey, 1), ("queue_occupancy", Cause::NewKey, 1), ("queue_congestion", Cause::NewKey, 1)]));
    let c = rig.s.counters;
    assert_eq!((c.flows_refused, c.ports_refused, c.queues_refused), (1, 1, 1));
    assert_eq!(rig.s.flows(), 2);
    // Flow 1 stays active; the rest goes idle.
    rig.feed(&report(flow(1), &[1, 2], &[1, 1], 1, 1), 90 * MS);
    rig.s.expire(150 * MS);
    assert_eq!(rig.s.flows(), 1);
    assert_eq!(rig.s.counters.flows_expired, 1);
    assert_eq!(rig.s.links(), 2);
    assert_eq!(rig.s.counters.ports_expired, 1);
}

#[test]
fn a_flow_keeps_hitting_its_own_keys_after_expiry_moves_the_tables() {
    // The state remembers where a flow's per-switch keys sit; expiring other keys moves
    // them. Flow 2's keys come after flow 1's in the tables, so expiring flow 1 moves them.
    let cfg = StateConfig {
        widths: IntervalWidths { flow_latency_ns: 64, hop_latency_ns: 64, link_utilization: 100, queue_occupancy: 10, queue_congestion: 64 },
        idle_timeout_ns: 100 * MS,
        ..StateConfig::default()
    };
    let mut rig = Rig::new(cfg);
    rig.feed(&report(flow(1), &[1, 2], &[1, 1], 1, 1), 0);
    rig.feed(&report(flow(2), &[3, 4], &[1, 1], 1, 1), 0);
    assert!(rig.feed(&report(flow(2), &[3, 4], &[1, 1], 1, 1), MS).0.is_empty(), "cached and unchanged");
    rig.feed(&report(flow(2), &[3, 4], &[1, 1], 1, 1), 90 * MS);
    rig.s.expire(150 * MS);
    assert_eq!((rig.s.flows(), rig.s.links(), rig.s.queues()), (1, 2, 2));
    // Flow 2's utilisation crosses 100 and occupancy 10: exactly its own two links and
    // queues move interval, none is taken for new.
    let (m, evs) = rig.feed(&report(flow(2), &[3, 4], &[1, 1], 150, 15), 151 * MS);
    assert_eq!(m, counts(&[("link", Cause::Interval, 2), ("queue_occupancy", Cause::Interval, 2)]));
    for sw in [3, 4] {
        assert!(evs.iter().any(|e| e.kind == EventKind::LinkUtilization { switch: sw, port: 2, utilization: 150 }));
    }
    assert_eq!(rig.s.links_snapshot().map(|(k, v)| (k.0, v)).collect::<BTreeMap<_, _>>(), BTreeMap::from([(3, 150), (4, 150)]));
    // Flow 1 comes back: its keys are new again, and flow 2's stay as they were.
    let (m, _) = rig.feed(&report(flow(1), &[1, 2], &[1, 1], 1, 1), 152 * MS);
    assert_eq!(m.get(&("link", Cause::NewKey)), Some(&2));
    assert!(rig.feed(&report(flow(2), &[3, 4], &[1, 1], 150, 15), 153 * MS).0.is_empty());
    assert_eq!(rig.s.links(), 4);
}

#[test]
fn v2_drop_and_queue_reports_become_events() {
    let mut rig = Rig::new(StateConfig::default());
    let base = ReportSpec {
        version: ReportVersion::V2,
        hw_id: 0,
        seq: 1,
        node_id: 7,
        report_ts: 0,
        flags: ReportFlags { dropped: true, ..ReportFlags::default() },
        framing: InnerFraming::Ip,
        flow: flow(9),
        local_bitmap: 0x1001,
        local: HopMetadata { queue_id: 2, queue_occupancy: 900, drop_queue_id: 2, drop_reason: 71, ..HopMetadata::default() },
        int: None,
    };
    let (m, evs) = rig.feed(&encode_report(&base), 5);
    assert_eq!(m, counts(&[("drop", Cause::Report, 1), ("queue_occupancy", Cause::NewKey, 1)]));
    assert!(evs.contains(&IntEvent { ts_ns: 5, cause: Cause::Report, kind: EventKind::Drop { switch: 7, queue: 2, reason: 71, flow: Some(flow(9)) } }));
    // A second drop report is a second event; the queue did not change interval.
    let (m, _) = rig.feed(&encode_report(&base), 6);
    assert_eq!(m, counts(&[("drop", Cause::Report, 1)]));
}
