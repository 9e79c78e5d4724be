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
}

#[derive(Clone, Debug, Serialize)]
pub struct StressResult {
    pub topology: String,
    pub scheme: String,
    pub threads: usize,
    pub requested_threads: usize,
    pub link_gbps: f64,
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

pub fn stress(
    topology: &str,
    scheme: SchemeConfig,
    threads: usize,
    seconds: f64,
    link_gbps: f64,
) -> Result<StressResult, ConfigError> {
    if !(seconds > 0.0 && seconds <= 3600.0) {
        return Err(ConfigError::Invalid(format!(
            "--seconds must be in (0, 3600], got {seconds}"
        )));
    }
    let topo_cfg = parse_topology(topology, link_gbps).map_err(ConfigError::Invalid)?;
    let loads: Vec<f64> = (1..=10).map(|i| i as f64 / 10.0).collect();
    let budget = Duration::from_secs_f64(seconds / loads.len() as f64);
    let mtu = 1500u32;
    let mut levels = Vec::new();
    let mut eff_threads = threads;
    let mut saturated = 0.0;
    for &load in &loads {
        let mut cfg = Config {
            emulation: Emulation {
                slot_gbps: link_gbps,
                mtu_bytes: mtu,
                threads,
                mode: Mode::Virtual,
                duration_us: 3.6e9,
                ..Emulation::default()
            },
            topology: topo_cfg.clone(),
            scheme: scheme.clone(),
            transport: TransportConfig::default(),
            workload: vec![],
            output: OutputConfig::default(),
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
        });
        saturated = s.pkts_per_sec;
        if !kept_up {
            break;
        }
    }
    let kept: Vec<&StressLevel> = levels.iter().filter(|l| l.kept_up).collect();
    let max = kept.iter().map(|l| l.pkts_per_sec).fold(0.0, f64::max);
    Ok(StressResult {
        topology: topology.to_string(),
        scheme: scheme_name(&scheme).to_string(),
        threads: eff_threads,
        requested_threads: threads,
        link_gbps,
        max_pkts_per_sec: max,
        gbps_equivalent: max * mtu as f64 * 8.0 / 1e9,
        pkts_per_sec_per_thread: max / eff_threads as f64,
        max_load_kept_up: kept.last().map(|l| l.load),
        saturated_pkts_per_sec: saturated,
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
