//! From a validated configuration to a finished run and its report.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::config::{AckPath, Config, ConfigError, SchemeConfig};
use crate::endpoint::workload::{PlanContext, WorkloadPlan};
use crate::engine::{STREAM_FLOW_BIT, Shared};
use crate::fabric::topology::{Peer, Topology};
use crate::output::{FctSummary, FlowRecord, PortReport, Report, StreamReport, Summary};
use crate::packet::Slot;
use crate::runner::{RunOutput, RunVisitor, SchemeVisitor, Setup, Stop, placement};
use crate::scheme::{dctcp, droptail, drr, hull, pfabric, priority, red};

/// TCP/IP header bytes per MTU; the rest is payload.
pub const HEADER_BYTES: u32 = 40;
/// Open-loop packets that can wait at one endpoint's NIC.
pub const NIC_BUFFER_PKTS: usize = 1024;

/// Hands `v` a constructor for the configured scheme's router type.
pub fn with_scheme<V: SchemeVisitor>(scheme: &SchemeConfig, seed: u64, v: V) -> V::Out {
    match *scheme {
        SchemeConfig::Droptail => v.visit(|_, p, r| droptail::router(p, r)),
        SchemeConfig::Red {
            min_th,
            max_th,
            max_p,
            weight,
            ecn,
            variant,
        } => {
            let params = red::RedParams {
                min_th,
                max_th,
                max_p,
                weight,
                ecn,
                variant,
            };
            v.visit(move |id, p, r| {
                red::router(
                    p,
                    r,
                    params,
                    seed ^ (id as u64 + 1).wrapping_mul(0x9E37_79B9),
                )
            })
        }
        SchemeConfig::Dctcp { k } => v.visit(move |_, p, r| dctcp::router(p, r, k)),
        SchemeConfig::Priority { queues } => v.visit(move |_, p, r| priority::router(p, r, queues)),
        SchemeConfig::Drr { queues, quantum } => {
            v.visit(move |_, p, r| drr::router(p, r, queues, quantum))
        }
        SchemeConfig::Hull { gamma, threshold } => {
            v.visit(move |_, p, r| hull::router(p, r, gamma, threshold))
        }
        SchemeConfig::Pfabric => v.visit(|_, p, r| pfabric::PFabricRouter::new(p, r)),
    }
}

pub fn scheme_name(s: &SchemeConfig) -> &'static str {
    match s {
        SchemeConfig::Droptail => "droptail",
        SchemeConfig::Red { ecn: false, .. } => "red",
        SchemeConfig::Red { ecn: true, .. } => "red_ecn",
        SchemeConfig::Dctcp { .. } => "dctcp",
        SchemeConfig::Priority { .. } => "priority",
        SchemeConfig::Drr { .. } => "drr",
        SchemeConfig::Hull { .. } => "hull",
        SchemeConfig::Pfabric => "pfabric",
    }
}

pub fn setup(cfg: &Config, topo: Topology) -> Result<Setup, ConfigError> {
    let e = &cfg.emulation;
    let pl = placement(&topo, e.threads);
    let host_rate = topo
        .endpoints
        .iter()
        .map(|ep| ep.link.gbps / e.slot_gbps)
        .collect();
    let ctx = PlanContext {
        endpoints: topo.endpoints.len(),
        slot_ns: e.slot_ns(),
        payload_bytes: e.mtu_bytes - HEADER_BYTES,
        slots: e.slots(),
        seed: e.seed,
        host_rate,
    };
    let plan = WorkloadPlan::build(&cfg.workload, &ctx)
        .map_err(|m| ConfigError::Invalid(format!("workload: {m}")))?;
    let shared = Arc::new(Shared {
        transport: crate::config::TransportConfig {
            slot_ns: cfg.emulation.slot_ns(),
            ..cfg.transport.clone()
        },
        base_rate: (e.slot_gbps * 1000.0).round().max(1.0) as u32,
        sample_interval: e.sample_interval_slots,
        keep_series: cfg.output.queue_samples,
        max_series: cfg.output.max_queue_samples,
        trace_flows: {
            let mut t = cfg.output.trace_flows.clone();
            t.sort_unstable();
            t.dedup();
            t
        },
        endpoints: topo.endpoints.len(),
        // INT's header comes out of each packet's payload (flow sizes in bytes
        // stay, packets per flow grow); the offered load stays the same bytes.
        payload_bytes: e.mtu_bytes
            - HEADER_BYTES
            - crate::pint_stage::int_overhead_bytes(&cfg.transport),
        pint: cfg.pint.clone(),
        pint_probe: cfg.pint.latency_probe.then(|| {
            let l = cfg.pint.latency_config().expect("validated pint config");
            Arc::new(std::sync::Mutex::new(crate::pint_probe::LatencyProbe::new(
                l, 4096,
            )))
        }),
        nic_capacity: NIC_BUFFER_PKTS,
        exchanges: pl.exchanges(&topo, cfg.transport.ack_delay_slots),
        // Apart from the seeds the workload and the schemes draw from.
        order_seed: e.seed ^ 0x5EED_0F0D_E12E_55A1,
        frame_bytes: if cfg.prices_by_length() {
            e.mtu_bytes + crate::realhost::frame::ETH_HEADER as u32
        } else {
            0
        },
        placement: pl,
    });
    Ok(Setup {
        topo,
        shared,
        plan,
        mode: e.mode,
        slot_ns: e.slot_ns(),
        batch_slots: e.batch_slots,
        skew_slots: e.skew_slots,
        pin_threads: e.pin_threads,
        os_threads: 0,
        host_io: std::sync::Mutex::new(Vec::new()),
    })
}

/// Validate, run and report.
pub fn run_config(cfg: &Config) -> Result<Report, ConfigError> {
    run_config_with_stop(cfg, None)
}

/// As `run_config`, but a raised `stop` flag ends the run early.
pub fn run_config_with_stop(
    cfg: &Config,
    stop: Option<Arc<AtomicBool>>,
) -> Result<Report, ConfigError> {
    let topo = cfg.validate()?;
    let s = setup(cfg, topo)?;
    crate::realhost::attach(cfg, &s)?;
    let end = cfg.emulation.slots();
    let stop = match stop {
        Some(f) => Stop::Flag(f, end),
        None => Stop::AtSlot(end),
    };
    let out = with_scheme(
        &cfg.scheme,
        cfg.emulation.seed,
        RunVisitor { setup: &s, stop },
    );
    Ok(report(cfg, &s, out))
}

fn node_name(topo: &Topology, peer: Peer) -> String {
    match peer {
        Peer::Endpoint(e) => topo.endpoints[e as usize].name.clone(),
        Peer::Switch { switch, .. } => topo.switches[switch as usize].name.clone(),
    }
}

pub fn report(cfg: &Config, s: &Setup, out: RunOutput) -> Report {
    let e = &cfg.emulation;
    let slot_us = e.slot_ns() / 1000.0;
    let topo = &s.topo;
    let hops = topo.next_hops();
    let slots = out.parts.iter().map(|p| p.slots).min().unwrap_or(0);
    let payload = e.mtu_bytes - HEADER_BYTES;
    // Where each flow's last byte reached its receiver (the receiver may be
    // on another worker than the sender).
    let rx_done: HashMap<u32, Slot> = out
        .parts
        .iter()
        .flat_map(|p| p.stats.rx_done.iter().copied())
        .collect();

    let mut flows = Vec::new();
    for p in &out.parts {
        for f in &p.flows {
            // The ACK's way back: the fixed delay, or the reverse path.
            let ack = match cfg.transport.ack_path {
                AckPath::OutOfBand => cfg.transport.ack_delay_slots as f64,
                AckPath::InBand => topo.path_latency(f.dst, f.src, &hops) as f64,
            };
            let ratio = e.slot_gbps / topo.path_gbps(f.src, f.dst, &hops);
            // The ideal is the flow's bytes at full payload: header overhead
            // (INT) counts against the flow.
            let bytes = f.size as u64 * s.shared.payload_bytes as u64;
            let ideal = ((bytes as f64 / payload as f64).ceil() * ratio).ceil() - 1.0
                + topo.path_latency(f.src, f.dst, &hops) as f64
                + ack;
            let fct = f.finish.map(|t| (t - f.start) as f64);
            flows.push(FlowRecord {
                id: f.id,
                src: f.src,
                dst: f.dst,
                size_pkts: f.size,
                size_bytes: bytes,
                class: f.class,
                start_us: f.start as f64 * slot_us,
                finish_us: f.finish.map(|t| t as f64 * slot_us),
                fct_us: fct.map(|x| x * slot_us),
                ideal_fct_us: ideal * slot_us,
                normalized_fct: fct.map(|x| x / ideal),
                retransmits: f.retransmits,
                timeouts: f.timeouts,
                rx_fct_us: f
                    .finish
                    .and(rx_done.get(&f.id))
                    .map(|&t| (t - f.start) as f64 * slot_us),
            });
        }
    }
    flows.sort_by(|a, b| a.start_us.total_cmp(&b.start_us).then(a.id.cmp(&b.id)));

    let mut ports = Vec::new();
    let samples = out
        .parts
        .iter()
        .map(|p| p.stats.samples)
        .max()
        .unwrap_or(0)
        .max(1);
    let pl = &s.shared.placement;
    for (pi, p) in out.parts.iter().enumerate() {
        for (r, &sid) in p.router_ids.iter().enumerate() {
            let sw = &topo.switches[sid as usize];
            for (port, c) in p.counters[r].iter().enumerate() {
                // A split switch has a router on several workers; each port is
                // reported by the worker that emulated it.
                if pl.port_part[sid as usize][port] as usize != pi {
                    continue;
                }
                let link = &sw.ports[port].link;
                let capacity_pkts = slots as f64 * link.gbps / e.slot_gbps;
                ports.push(PortReport {
                    switch: sw.name.clone(),
                    switch_id: sid,
                    port: port as u16,
                    peer: node_name(topo, sw.ports[port].peer),
                    gbps: link.gbps,
                    buffer_pkts: link.buffer_pkts,
                    enqueued: c.enqueued,
                    transmitted: c.transmitted,
                    dropped: c.dropped,
                    marked: c.marked,
                    mean_occupancy: p.stats.occupancy_sum[r][port] as f64
                        / p.stats.samples.max(1) as f64,
                    max_occupancy: p.stats.occupancy_max[r][port],
                    utilization: if capacity_pkts > 0.0 {
                        c.transmitted as f64 / capacity_pkts
                    } else {
                        0.0
                    },
                });
            }
        }
    }
    ports.sort_by_key(|p| (p.switch_id, p.port));
    let _ = samples;

    let mut streams = Vec::new();
    for p in &out.parts {
        for st in &p.streams {
            let delivered: u64 = out
                .parts
                .iter()
                .map(|q| {
                    q.stats
                        .stream_delivered
                        .get((st.flow & !STREAM_FLOW_BIT) as usize)
                        .copied()
                        .unwrap_or(0)
                })
                .sum();
            streams.push(StreamReport {
                id: st.flow & !STREAM_FLOW_BIT,
                src: st.src,
                dst: st.dst,
                class: st.class,
                rate: st.rate,
                sent: st.sent,
                nic_dropped: st.nic_dropped,
                delivered,
                throughput_gbps: delivered as f64 * e.mtu_bytes as f64 * 8.0
                    / (slots.max(1) as f64 * e.slot_ns()),
            });
        }
    }
    streams.sort_by_key(|s| (s.src, s.id));

    let router_packets: u64 = out.parts.iter().map(|p| p.stats.router_packets).sum();
    let delivered: u64 = out.parts.iter().map(|p| p.stats.delivered).sum();
    let wall = out.wall.as_secs_f64();
    let lag =
        out.parts
            .iter()
            .filter_map(|p| p.lag)
            .fold(None, |acc: Option<crate::runner::Lag>, l| {
                Some(match acc {
                    None => l,
                    Some(a) => a.worst(l),
                })
            });
    // The threads' CPU over their emulation time (each from the common start
    // to its last slot, about the longest worker's).
    let emu_seconds = out.parts.iter().map(|p| p.load.seconds).fold(0.0, f64::max);
    let lag = lag.map(|l| crate::lag::Lag {
        cpu_share: out.cpu_seconds / (out.os_threads as f64 * emu_seconds).max(1e-9),
        ..l
    });
    let traces: Vec<_> = out
        .parts
        .iter()
        .flat_map(|p| p.flows.iter())
        .filter_map(|f| f.trace.as_deref())
        .collect();
    let mut flow_trace: Vec<_> = traces
        .iter()
        .flat_map(|t| t.events.iter().copied())
        .collect();
    flow_trace.sort_by_key(|r| (r.slot, r.flow));
    let summary = Summary {
        scheme: scheme_name(&cfg.scheme).to_string(),
        mode: e.mode,
        threads: out.threads,
        endpoints: topo.endpoints.len(),
        switches: topo.switches.len(),
        slots,
        slot_ns: e.slot_ns(),
        emulated_us: slots as f64 * slot_us,
        wall_seconds: wall,
        router_packets,
        pkts_per_sec: router_packets as f64 / wall.max(1e-9),
        delivered_packets: delivered,
        throughput_gbps: delivered as f64 * e.mtu_bytes as f64 * 8.0
            / (slots.max(1) as f64 * e.slot_ns()),
        drops: ports.iter().map(|p| p.dropped).sum(),
        marks: ports.iter().map(|p| p.marked).sum(),
        nic_drops: out.parts.iter().map(|p| p.stats.nic_drops).sum(),
        late_transfers: out.parts.iter().map(|p| p.stats.late_transfers).sum(),
        flows_started: flows.len(),
        flows_completed: flows.iter().filter(|f| f.fct_us.is_some()).count(),
        fct: FctSummary::of(&flows),
        realtime: lag,
        workers: out.parts.iter().map(|p| p.load).collect(),
        queue_samples_kept: out.parts.iter().map(|p| p.stats.series.len()).sum(),
        trace_events: flow_trace.len(),
        trace_events_dropped: traces.iter().map(|t| t.dropped).sum(),
        queue_samples_dropped: out.parts.iter().map(|p| p.stats.series_dropped).sum(),
        real_hosts: out.parts.iter().find_map(|p| p.real_hosts.clone()),
    };
    let mut queue_series: Vec<_> = out.parts.into_iter().flat_map(|p| p.stats.series).collect();
    queue_series.sort_by_key(|q| (q.slot, q.switch, q.port));
    let pint_latency = s
        .shared
        .pint_probe
        .as_ref()
        .map(|p| std::mem::take(&mut p.lock().expect("probe lock").rows))
        .unwrap_or_default();
    Report {
        summary,
        flows,
        ports,
        streams,
        queue_series,
        flow_trace,
        pint_latency,
    }
}
