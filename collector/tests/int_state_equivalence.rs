//! The INT state (caches, interval bounds, packed flow keys) against a plain model of the
//! same rules (tests/int_state_model): on random report sequences over few flows,
//! switches, ports and queues, with small tables, short push intervals and expiry, both
//! must emit the same events in the same order and end with the same counters.

mod int_state_model;

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use int_state_model::Model;
use planck_collector::decode::FiveTuple;
use planck_collector::decode::int::instructions::field;
use planck_collector::decode::int::{HopMetadata, IntReport, MAX_HOPS, ReportVersion};
use planck_collector::inband::{IntState, IntervalWidths, StateConfig};
use proptest::prelude::*;

/// Fields the state reads, in any combination.
const FIELDS: [u16; 8] = [
    field::SWITCH_ID,
    field::L1_PORTS,
    field::HOP_LATENCY,
    field::QUEUE_OCCUPANCY,
    field::INGRESS_TS,
    field::EGRESS_TS,
    field::TX_UTILIZATION,
    field::QUEUE_CONGESTION,
];

fn flow(n: u8) -> FiveTuple {
    // Two IPv4 flows, one IPv6 flow, and one IPv6 flow whose address maps the first
    // IPv4 one: all four distinct keys.
    let (src, dst) = match n % 4 {
        0 => (IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)), IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2))),
        1 => (IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)), IpAddr::V4(Ipv4Addr::new(10, 0, 0, 3))),
        2 => (IpAddr::V6(Ipv6Addr::LOCALHOST), IpAddr::V6(Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 2))),
        _ => (IpAddr::V6(Ipv4Addr::new(10, 0, 0, 1).to_ipv6_mapped()), IpAddr::V6(Ipv4Addr::new(10, 0, 0, 2).to_ipv6_mapped())),
    };
    FiveTuple { src, dst, proto: 17, sport: 5000, dport: 5001 }
}

#[derive(Clone, Debug)]
struct HopSpec {
    switch: u32,
    port: u16,
    latency: u32,
    queue: u8,
    cqueue: u8,
    occupancy: u32,
    congestion: u32,
    util: u32,
}

fn hop_spec() -> impl Strategy<Value = HopSpec> {
    (0u32..4, 0u16..3, 0u32..40, 0u8..2, 0u8..2, 0u32..40, 0u32..40, 0u32..40).prop_map(
        |(switch, port, latency, queue, cqueue, occupancy, congestion, util)| HopSpec { switch, port, latency, queue, cqueue, occupancy, congestion, util },
    )
}

#[derive(Clone, Debug)]
enum Step {
    /// A report of flow `flow` (None: no flow headers) after `dt` ns.
    Report { dt: u64, flow: Option<u8>, fields: u16, hops: Vec<HopSpec>, local: Option<(u16, HopSpec)>, dropped: bool },
    Expire { dt: u64 },
}

fn fields() -> impl Strategy<Value = u16> {
    // Mostly with a switch id (else nothing per switch is keyed).
    (proptest::bits::u16::between(0, FIELDS.len()), prop::bool::weighted(0.85)).prop_map(|(bits, sw)| {
        let mut f = FIELDS.iter().enumerate().filter(|(i, _)| bits & (1 << i) != 0).fold(0, |a, (_, f)| a | f);
        if sw {
            f |= field::SWITCH_ID;
        }
        f
    })
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        12 => (
            0u64..400,
            prop::option::weighted(0.9, 0u8..4),
            fields(),
            prop::collection::vec(hop_spec(), 0..6),
            prop::option::weighted(0.15, (fields(), hop_spec())),
            prop::bool::weighted(0.3),
        )
            .prop_map(|(dt, flow, fields, hops, local, dropped)| Step::Report {
                dt,
                flow,
                fields,
                hops,
                local: local.map(|(f, h)| (f | if dropped { field::DROP_REASON } else { 0 }, h)),
                dropped
            }),
        1 => (0u64..3000).prop_map(|dt| Step::Expire { dt }),
    ]
}

fn metadata(h: &HopSpec, fields: u16) -> HopMetadata {
    let on = |f: u16| fields & f != 0;
    HopMetadata {
        switch_id: if on(field::SWITCH_ID) { h.switch } else { 0 },
        ingress_port: if on(field::L1_PORTS) { 1 } else { 0 },
        egress_port: if on(field::L1_PORTS) { h.port } else { 0 },
        hop_latency: if on(field::HOP_LATENCY) { h.latency } else { 0 },
        queue_id: if on(field::QUEUE_OCCUPANCY) { h.queue } else { 0 },
        queue_occupancy: if on(field::QUEUE_OCCUPANCY) { h.occupancy } else { 0 },
        ingress_ts: if on(field::INGRESS_TS) { 5 } else { 0 },
        egress_ts: if on(field::EGRESS_TS) { 6 } else { 0 },
        tx_utilization: if on(field::TX_UTILIZATION) { h.util } else { 0 },
        congestion_queue_id: if on(field::QUEUE_CONGESTION) { h.cqueue } else { 0 },
        queue_congestion: if on(field::QUEUE_CONGESTION) { h.congestion } else { 0 },
        drop_queue_id: if on(field::DROP_REASON) { h.queue } else { 0 },
        drop_reason: if on(field::DROP_REASON) { 7 } else { 0 },
        ..HopMetadata::default()
    }
}

fn report(flow_n: Option<u8>, fields: u16, hops: &[HopSpec], local: &Option<(u16, HopSpec)>, dropped: bool) -> IntReport {
    let mut r = IntReport::EMPTY;
    r.version = ReportVersion::V2;
    r.flow = flow_n.map(flow);
    r.flags.dropped = dropped;
    r.has_int = !hops.is_empty() || local.is_none();
    r.hop_fields = if r.has_int { fields } else { 0 };
    r.hop_count = hops.len().min(MAX_HOPS) as u8;
    for (slot, h) in r.hops.iter_mut().zip(hops) {
        *slot = metadata(h, fields);
    }
    if let Some((lf, h)) = local {
        r.local_fields = *lf;
        r.local = metadata(h, *lf);
    }
    r
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn same_events_and_counters_as_the_model(
        steps in prop::collection::vec(step(), 1..120),
        widths in (1u64..20, 1u64..20, 1u64..20, 1u64..20, 1u64..20),
        tables in (1usize..4, 1usize..7, 1usize..7),
    ) {
        let cfg = StateConfig {
            widths: IntervalWidths { flow_latency_ns: widths.0, hop_latency_ns: widths.1, link_utilization: widths.2, queue_occupancy: widths.3, queue_congestion: widths.4 },
            push_interval_ns: 1000,
            idle_timeout_ns: 4000,
            max_flows: tables.0,
            max_ports: tables.1,
            max_queues: tables.2,
        };
        let mut state = IntState::new(cfg);
        let mut model = Model::new(cfg);
        let mut now = 0u64;
        for (i, s) in steps.iter().enumerate() {
            match s {
                Step::Report { dt, flow, fields, hops, local, dropped } => {
                    now += dt;
                    let r = report(*flow, *fields, hops, local, *dropped);
                    let mut got = Vec::new();
                    state.apply(&r, now, &mut |e| got.push(e));
                    let mut want = Vec::new();
                    model.apply(&r, now, &mut want);
                    prop_assert_eq!(got, want, "step {}: {:?}", i, s);
                }
                Step::Expire { dt } => {
                    now += dt;
                    state.expire(now);
                    model.expire(now);
                }
            }
            prop_assert_eq!(state.counters, model.counters, "step {}", i);
        }
    }
}
