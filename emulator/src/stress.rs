//! Automated stress test (Flexplane §5.3): raise the offered load until the
//! emulator can no longer keep up with real time, and report the highest
//! router throughput it sustained.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::Serialize;

use crate::clock::process_cpu_seconds;
use crate::config::{
    ArrivalProcess, Config, ConfigError, Destination, Emulation, LinkDefaults, Mode, OutputConfig,
    RandomWord, SchemeConfig, TopologyConfig, TransportConfig, Workload,
};
use crate::experiment::{run_config_with_stop, scheme_name};

/// `rack:N` (one rack of N endpoints), `rack:RxN` (R racks of N behind one
/// aggregation switch) or `fat_tree:K`.
pub fn parse_topology(spec: &str, gbps: f64) -> Result<TopologyConfig, String> {
    let link = LinkDefaults {
        gbps,
        ..LinkDefaults::default()
    };
    let bad = || format!("bad topology '{spec}': expected rack:N, rack:RxN or fat_tree:K");
    let (kind, arg) = spec.split_once(':').ok_or_else(bad)?;
    match kind {
        "rack" => {
            let (racks, hosts) = match arg.split_once('x') {
                Some((r, h)) => (r.parse().map_err(|_| bad())?, h.parse().map_err(|_| bad())?),
                None => (1, arg.parse().map_err(|_| bad())?),
            };
            Ok(TopologyConfig::Rack {
                racks,
                hosts_per_rack: hosts,
                host_link: link,
                uplink: LinkDefaults {
                    gbps: gbps * hosts as f64,
                    ..link
                },
            })
        }
        "fat_tree" => Ok(TopologyConfig::FatTree {
            k: arg.parse().map_err(|_| bad())?,
            link,
        }),
        _ => Err(bad()),
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct StressLevel {
    /// Offered load per endpoint, fraction of its link.
    pub load: f64,
    pub pkts_per_sec: f64,
    /// Router packets per CPU-second of the whole process (less sensitive to
    /// other load on the machine than the wall-clock rate).
    pub pkts_per_cpu_sec: f64,
    /// Emulated time over wall time; >= 1 keeps up with real time.
    pub realtime_factor: f64,
    pub kept_up: bool,
    /// Packets that reached another worker after their due slot (loose synchronisation only).
    pub late_transfers: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct StressResult {
    pub topology: String,
    pub scheme: String,
    pub threads: usize,
    pub requested_threads: usize,
    pub link_gbps: f64,
    pub skew_slots: u64,
    /// Highest router throughput (packets through router ports per second)
    /// at a load the emulator kept up with.
    pub max_pkts_per_sec: f64,
    /// max_pkts_per_sec in Gbit/s of MTU-sized packets.
    pub gbps_equivalent: f64,
    pub pkts_per_sec_per_thread: f64,
    /// Highest offered load kept up with (None if none was).
    pub max_load_kept_up: Option<f64>,
    /// Throughput when running as fast as possible at the first load it could
    /// not keep up with (or at full load if it always kept up).
    pub saturated_pkts_per_sec: f64,
    /// Highest per-CPU-second rate seen at any level.
    pub max_pkts_per_cpu_sec: f64,
    /// /proc/loadavg when the test finished: context for the wall-clock figures.
    pub load_average: String,
    pub levels: Vec<StressLevel>,
}

/// Loads of the upward sweep (fractions of each endpoint's link).
const SWEEP: [f64; 10] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
/// If even the lowest sweep load cannot keep up (a busy machine), halve the
/// load at most this many times, so the result is the rate at the highest
/// load that did keep up rather than nothing.
const MAX_HALVINGS: usize = 6;
/// Bisection steps between the last load kept up with and the first not.
const REFINE_STEPS: usize = 3;
/// Levels a typical search runs (sweep + refinement): each gets this share of `--seconds`.
const TYPICAL_LEVELS: f64 = 13.0;

pub fn stress(
    topology: &str,
    scheme: SchemeConfig,
    threads: usize,
    seconds: f64,
    link_gbps: f64,
    skew_slots: u64,
) -> Result<StressResult, ConfigError> {
    if !(seconds > 0.0 && seconds <= 3600.0) {
        return Err(ConfigError::Invalid(format!(
            "--seconds must be in (0, 3600], got {seconds}"
        )));
    }
    let topo_cfg = parse_topology(topology, link_gbps).map_err(ConfigError::Invalid)?;
    let budget = Duration::from_secs_f64(seconds / TYPICAL_LEVELS);
    let mtu = 1500u32;
    let mut levels: Vec<StressLevel> = Vec::new();
    let mut eff_threads = threads;
    let mut saturated = None;
    let mut run_level = |load: f64, levels: &mut Vec<StressLevel>| -> Result<bool, ConfigError> {
        let mut cfg = Config {
            emulation: Emulation {
                slot_gbps: link_gbps,
                mtu_bytes: mtu,
                threads,
                skew_slots,
                mode: Mode::Virtual,
                duration_us: 3.6e9,
                ..Emulation::default()
            },
            topology: topo_cfg.clone(),
            scheme: scheme.clone(),
            transport: TransportConfig::default(),
            workload: vec![],
            output: OutputConfig::default(),
            pint: Default::default(),
            real_hosts: None,
        };
        let n = cfg.validate()?.endpoints.len() as u16;
        cfg.workload.push(Workload::OpenLoop {
            sources: (0..n).collect(),
            destination: Destination::Random(RandomWord::Random),
            rate: load,
            process: ArrivalProcess::Poisson,
            class: 0,
        });
        let flag = Arc::new(AtomicBool::new(false));
        let timer = {
            let flag = flag.clone();
            std::thread::spawn(move || {
                std::thread::sleep(budget);
                flag.store(true, Ordering::Relaxed);
            })
        };
        let cpu0 = process_cpu_seconds();
        let report = run_config_with_stop(&cfg, Some(flag))?;
        let cpu = process_cpu_seconds() - cpu0;
        let _ = timer.join();
        let s = &report.summary;
        eff_threads = s.threads;
        let factor = s.emulated_us / 1e6 / s.wall_seconds.max(1e-9);
        let kept_up = factor >= 1.0;
        let per_cpu = if cpu > 0.0 {
            s.router_packets as f64 / cpu
        } else {
            0.0
        };
        levels.push(StressLevel {
            load,
            pkts_per_sec: s.pkts_per_sec,
            pkts_per_cpu_sec: per_cpu,
            realtime_factor: factor,
            kept_up,
            late_transfers: s.late_transfers,
        });
        Ok(kept_up)
    };
    // Sweep up until a load is not kept up with.
    let mut kept_load: Option<f64> = None;
    let mut failed_load: Option<f64> = None;
    for &load in &SWEEP {
        if run_level(load, &mut levels)? {
            kept_load = Some(load);
        } else {
            failed_load = Some(load);
            saturated = levels.last().map(|l| l.pkts_per_sec);
            break;
        }
    }
    // Nothing kept up (typically another process holds the cores): go down.
    if kept_load.is_none() {
        let mut load = SWEEP[0];
        for _ in 0..MAX_HALVINGS {
            load /= 2.0;
            if run_level(load, &mut levels)? {
                kept_load = Some(load);
                break;
            }
            failed_load = Some(load);
        }
    }
    // Narrow the gap between the last load kept up with and the first not.
    if let (Some(mut lo), Some(mut hi)) = (kept_load, failed_load) {
        for _ in 0..REFINE_STEPS {
            let mid = (lo + hi) / 2.0;
            if run_level(mid, &mut levels)? {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        kept_load = Some(lo);
    }
    let kept: Vec<&StressLevel> = levels.iter().filter(|l| l.kept_up).collect();
    let max = kept.iter().map(|l| l.pkts_per_sec).fold(0.0, f64::max);
    Ok(StressResult {
        topology: topology.to_string(),
        scheme: scheme_name(&scheme).to_string(),
        threads: eff_threads,
        requested_threads: threads,
        link_gbps,
        skew_slots,
        max_pkts_per_sec: max,
        gbps_equivalent: max * mtu as f64 * 8.0 / 1e9,
        pkts_per_sec_per_thread: max / eff_threads as f64,
        max_load_kept_up: kept_load,
        saturated_pkts_per_sec: saturated
            .unwrap_or_else(|| levels.last().map(|l| l.pkts_per_sec).unwrap_or(0.0)),
        max_pkts_per_cpu_sec: levels
            .iter()
            .map(|l| l.pkts_per_cpu_sec)
            .fold(0.0, f64::max),
        load_average: std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
            .to_string(),
        levels,
    })
}
