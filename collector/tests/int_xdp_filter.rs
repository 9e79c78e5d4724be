//! The XDP fast path's filter rule, in userspace: the collector's half
//! (`inband::xdp_filter`: the flow entries and link/queue intervals it writes after each
//! report) with a transcription of the kernel's check (`bpf/int_xdp.c`, `same_intervals`
//! and the entry checks before it). On random sequences of v0.5, v1.0 and v2 reports,
//! applying only the reports the kernel would send up gives the same events, in the same
//! order, as applying all of them; and the rule does filter (the sequences repeat values
//! inside their intervals). The kernel program itself is checked against the userspace
//! path on a veth in src/test/system/int-xdp.sh.

mod int_encoder;

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};

use int_encoder::*;
use planck_collector::decode::FiveTuple;
use planck_collector::decode::int::{HopMetadata, IntDecoder, IntDecoderConfig, IntReport, ReportBuf, ReportFlags, ReportVersion};
use planck_collector::inband::xdp_filter::{
    Clocks, KFlowEntry, KFlowKey, KLinkKey, KLinkValue, KQueueKey, KQueueValue, KShape, NO_FIELD, RecordHead, SharedKey,
    SharedValue, flow_entry, flow_key, interval, report_keys, shared_value,
};
use planck_collector::inband::{IntEvent, IntState, IntervalWidths, StateConfig};
use proptest::prelude::*;

const MS: u64 = 1_000_000;

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
    hop_budget: u8,
    /// Base value; each value moves by `wiggle` from it (often inside its interval).
    base: u32,
    wiggle: u32,
    /// One hop's latency, occupancy and utilisation move on their own.
    jitter: Option<(usize, u32)>,
}

fn bitmap(version: ReportVersion) -> impl Strategy<Value = u16> {
    let choices: Vec<u16> = match version {
        ReportVersion::V05 => vec![0xff00, 0xb300, 0xe000, 0x8100, 0xd100, 0xfc00],
        _ => vec![0xff80, 0xff81, 0xb100, 0xe000, 0x8d00, 0xf801],
    };
    prop::sample::select(choices)
}

fn rep() -> impl Strategy<Value = Rep> {
    prop_oneof![4 => Just(ReportVersion::V05), 4 => Just(ReportVersion::V10), 1 => Just(ReportVersion::V2)].prop_flat_map(|version| {
        (0u64..3 * MS, 0u8..4, bitmap(version), 0u8..4, prop::sample::select(vec![8u8, 8, 8, 9]), 0u32..2, 0u32..8, prop::option::weighted(0.1, (0usize..4, 0u32..400)))
            .prop_map(move |(dt, flow, bitmap, path, hop_budget, base, wiggle, jitter)| Rep { dt, flow, version, bitmap, path, hop_budget, base, wiggle, jitter })
    })
}

fn payload(r: &Rep) -> Vec<u8> {
    let switches: &[u32] = match r.path {
        0 => &[1, 2, 3, 4],
        1 => &[1, 5, 3],
        2 => &[3, 4],
        _ => &[6],
    };
    let v = 100 * r.base + r.wiggle;
    let hops = switches
        .iter()
        .enumerate()
        .map(|(i, &sw)| {
            let j = match r.jitter {
                Some((at, x)) if at == i => x,
                _ => v,
            };
            HopMetadata {
                switch_id: sw,
                ingress_port: 1,
                egress_port: 2 + (sw % 2) as u16,
                hop_latency: j,
                queue_id: (sw % 2) as u8,
                queue_occupancy: j,
                ingress_ts: 5,
                egress_ts: 6,
                tx_utilization: j,
                congestion_queue_id: if r.base == 1 { 1 } else { (sw % 2) as u8 },
                queue_congestion: v,
                ..HopMetadata::default()
            }
        })
        .rev()
        .collect();
    encode_report(&ReportSpec {
        version: r.version,
        hw_id: 0,
        seq: 0,
        node_id: 9,
        report_ts: 0,
        flags: ReportFlags::default(),
        framing: InnerFraming::Ethernet,
        flow: flow(r.flow),
        local_bitmap: 0,
        local: HopMetadata::default(),
        int: Some(IntStack { bitmap: r.bitmap, hop_budget: r.hop_budget, hops, original_dscp: 0 }),
    })
}

/// The kernel's maps, as the collector writes them.
#[derive(Default)]
struct Maps {
    flows: HashMap<KFlowKey, KFlowEntry>,
    links: HashMap<KLinkKey, KLinkValue>,
    queues: HashMap<KQueueKey, KQueueValue>,
}

impl Maps {
    /// As `XdpWriter::after_apply`.
    fn after_apply(&mut self, state: &IntState, r: &IntReport, head: &RecordHead, now: u64) {
        let mut keys = Vec::new();
        report_keys(r, &mut keys);
        for k in &keys {
            match (k, shared_value(state, k)) {
                (SharedKey::Link(l), SharedValue::Link(Some(v))) => drop(self.links.insert(*l, v)),
                (SharedKey::Queue(q), SharedValue::Queue(Some(v))) => drop(self.queues.insert(*q, v)),
                (SharedKey::Link(l), _) => drop(self.links.remove(l)),
                (SharedKey::Queue(q), _) => drop(self.queues.remove(q)),
            }
        }
        if let Some(key) = r.flow.as_ref().and_then(flow_key) {
            match flow_entry(state, head, r, &Clocks { wall_ns: now, mono_ns: now }) {
                Some(e) => drop(self.flows.insert(key, e)),
                None => drop(self.flows.remove(&key)),
            }
        }
    }

    /// The kernel's decision (int_xdp.c), on the decoded report: true = drop.
    fn drops(&self, r: &IntReport, shape: &KShape, now: u64, w: &IntervalWidths) -> bool {
        let Some(key) = r.flow.as_ref().and_then(flow_key) else { return false };
        let Some(f) = self.flows.get(&key) else { return false };
        if f.shape != *shape || now >= f.filter_until_ns {
            return false;
        }
        let mut latency = 0u64;
        for i in 0..f.hops as usize {
            let h = &r.hops[i];
            if h.switch_id != f.hop[i].switch_id {
                return false;
            }
            if f.off_latency != NO_FIELD {
                latency += h.hop_latency as u64;
                if interval(h.hop_latency as u64, w.hop_latency_ns) != f.hop[i].latency_interval {
                    return false;
                }
            }
            if f.off_ports != NO_FIELD && f.off_utilization != NO_FIELD {
                match self.links.get(&KLinkKey { switch_id: h.switch_id, port: h.egress_port, pad: 0 }) {
                    Some(l) if l.interval == interval(h.tx_utilization as u64, w.link_utilization) => {}
                    _ => return false,
                }
            }
            if f.off_occupancy != NO_FIELD {
                match self.queues.get(&KQueueKey { switch_id: h.switch_id, queue: h.queue_id, pad: [0; 3] }) {
                    Some(q) if q.has_occupancy == 1 && q.occupancy_interval == interval(h.queue_occupancy as u64, w.queue_occupancy) => {}
                    _ => return false,
                }
            }
            if f.off_congestion != NO_FIELD {
                match self.queues.get(&KQueueKey { switch_id: h.switch_id, queue: h.congestion_queue_id, pad: [0; 3] }) {
                    Some(q) if q.has_congestion == 1 && q.congestion_interval == interval(h.queue_congestion as u64, w.queue_congestion) => {}
                    _ => return false,
                }
            }
        }
        f.off_latency == NO_FIELD || interval(latency, w.flow_latency_ns) == f.latency_interval
    }
}

/// What the kernel's parse records of a v0.5/v1.0 report, as far as the model needs it:
/// reports with another version, bitmap, hop count, MaxHopCnt or length differ.
fn shape(r: &IntReport, len: usize) -> KShape {
    KShape {
        payload_len: len as u16,
        bitmap: r.instructions,
        version: if r.version == ReportVersion::V05 { 0 } else { 1 },
        md_hops: r.hop_count,
        md_max_hops: r.hop_budget,
        ..KShape::default()
    }
}

struct Run {
    events: Vec<(usize, IntEvent)>,
    reports: u64,
    dropped: u64,
}

fn run(cfg: StateConfig, reps: &[Rep], with_filter: bool) -> Run {
    let d = IntDecoder::new(&IntDecoderConfig::default()).unwrap();
    let mut state = IntState::new(cfg);
    let mut buf = ReportBuf::default();
    let mut maps = Maps::default();
    let mut out = Run { events: Vec::new(), reports: 0, dropped: 0 };
    let mut now = 1_000 * MS;
    for (i, rep) in reps.iter().enumerate() {
        now += rep.dt;
        let p = payload(rep);
        d.decode_payload(&p, &mut buf).expect("encoder output decodes");
        let r = buf.reports()[0].clone();
        let filterable = r.version != ReportVersion::V2;
        let head = RecordHead { shape: shape(&r, p.len()), key: r.flow.as_ref().and_then(flow_key).unwrap(), len: p.len(), filterable, why: 0 };
        if with_filter && filterable && maps.drops(&r, &head.shape, now, &cfg.widths) {
            out.dropped += 1;
            continue;
        }
        state.apply(&r, now, &mut |e| out.events.push((i, e)));
        maps.after_apply(&state, &r, &head, now);
    }
    out.reports = state.counters.reports;
    out
}

fn config(widths: (u64, u64, u64, u64, u64), push_ms: u64, tables: (usize, usize, usize)) -> StateConfig {
    StateConfig {
        widths: IntervalWidths { flow_latency_ns: widths.0, hop_latency_ns: widths.1, link_utilization: widths.2, queue_occupancy: widths.3, queue_congestion: widths.4 },
        push_interval_ns: push_ms * MS,
        idle_timeout_ns: 1_000_000 * MS,
        max_flows: tables.0,
        max_ports: tables.1,
        max_queues: tables.2,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn filtered_reports_would_have_made_no_event(
        reps in prop::collection::vec(rep(), 1..200),
        widths in (1u64..100, 1u64..100, 1u64..100, 1u64..100, 1u64..100),
        push_ms in 5u64..100,
        tables in (1usize..5, 1usize..8, 1usize..8),
    ) {
        let cfg = config(widths, push_ms, tables);
        let all = run(cfg, &reps, false);
        let up = run(cfg, &reps, true);
        prop_assert_eq!(&all.events, &up.events);
        prop_assert_eq!(all.reports, up.reports + up.dropped);
    }
}

/// Not vacuous: with values inside their intervals most reports are dropped, and
/// interval crossings, path changes and pushes still come.
#[test]
fn steady_reports_are_dropped_and_events_still_come() {
    let reps: Vec<Rep> = (0..600)
        .map(|i| Rep {
            dt: MS / 2,
            flow: (i % 4) as u8,
            version: if i % 4 < 2 { ReportVersion::V05 } else { ReportVersion::V10 },
            bitmap: if i % 4 < 2 { 0xff00 } else { 0xff80 },
            path: if i % 4 == 1 && i >= 300 { 1 } else { 0 },
            hop_budget: 8,
            base: if i % 4 == 3 && i % 80 >= 40 { 1 } else { 0 },
            wiggle: (i % 7) as u32,
            jitter: None,
        })
        .collect();
    let cfg = config((64, 64, 64, 64, 64), 50, (100, 100, 100));
    let all = run(cfg, &reps, false);
    let up = run(cfg, &reps, true);
    assert_eq!(all.events, up.events);
    assert!(up.dropped > 400, "dropped {}", up.dropped);
    let causes = |c: planck_collector::inband::Cause| up.events.iter().filter(|(_, e)| e.cause == c).count();
    use planck_collector::inband::Cause::*;
    assert!(causes(PathChange) > 0 && causes(Interval) > 0 && causes(Periodic) > 0, "{:?}", (causes(PathChange), causes(Interval), causes(Periodic)));
}
