use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use planck_collector::capture::pcap::Pace;
use planck_collector::config::{Config, parse_vlan_pair};
use planck_collector::flow::estimator::WindowParams;
use planck_collector::replay::{ReplayOptions, load_forwarding, print_lines, replay};

/// Planck collector: estimates per-flow rates from the samples of an oversubscribed
/// mirror port and tells the controller which switch ports are congested.
#[derive(Parser)]
#[command(version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Capture live (AF_PACKET) and export events to the controller, as configured.
    Run {
        /// TOML configuration file (see docs/collector.md).
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
    },
    /// Receive INT telemetry reports over UDP only (no mirror capture), export to
    /// InfluxDB and /metrics, as configured.
    Int {
        /// TOML configuration file with an [int] section (see docs/collector.md).
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
    },
    /// Replay a pcap/pcapng file and print one JSON line per flow with its mean rate
    /// over its sampled lifetime.
    Replay {
        /// pcap or pcapng file of mirrored samples (Ethernet link type).
        #[arg(long, value_name = "FILE")]
        pcap: PathBuf,
        /// Forwarding map (forwarding-map-v1 JSON) to attribute flows to egress ports
        /// and switches by RSPAN VLAN.
        #[arg(long, value_name = "FILE")]
        forwarding: Option<PathBuf>,
        /// RSPAN VLAN to switch id pairs, e.g. 10=of:0000000000000001,11=of:0000000000000002.
        /// Tagged samples whose VLAN is in neither this list nor the forwarding map are
        /// counted and skipped.
        #[arg(long, value_name = "VLAN=SWITCH,...", value_delimiter = ',')]
        vlan_map: Vec<String>,
        /// Switch id given to untagged samples (the switch of the capture interface).
        #[arg(long, value_name = "ID", default_value = "pcap")]
        switch: String,
        /// Replay as fast as possible or at the recorded pace.
        #[arg(long, value_enum, default_value = "fast")]
        pace: Pace,
        /// Smallest estimation window in microseconds.
        #[arg(long, value_name = "US", default_value_t = 200)]
        min_window_us: u64,
        /// Largest estimation window in milliseconds (reached by slow flows), at most 4000.
        #[arg(long, value_name = "MS", default_value_t = 200)]
        max_window_ms: u64,
        /// Bytes a flow should send within one window, in KiB: the window stretches
        /// from the minimum until this much passes at the flow's rate.
        #[arg(long, value_name = "KIB", default_value_t = 256)]
        window_kib: u64,
        /// Most flows tracked; samples of further flows are counted and skipped.
        #[arg(long, value_name = "N", default_value_t = 1 << 20)]
        max_flows: usize,
    },
    /// Replay frames from PINT sink switches and print the PINT events (telemetry-events
    /// v3: traced paths, hop latency quantiles) as JSON lines.
    PintReplay(planck_collector::inband::pint_replay::PintReplayArgs),
    /// Live PINT sink: decode digests from the mirror frames of packets' last switches on
    /// an interface and send the traced paths to the controller (telemetry-events v3).
    PintLive(planck_collector::inband::pint_live::PintLiveArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::PintReplay(args) => planck_collector::inband::pint_replay::run_cli(&args),
        Command::PintLive(args) => planck_collector::inband::pint_live::run_cli(&args),
        Command::Run { config } => Config::load(&config).and_then(planck_collector::runtime::run),
        Command::Int { config } => planck_collector::inband::config::IntOnlyConfig::load(&config)
            .and_then(planck_collector::inband::runtime::run_int_only),
        Command::Replay {
            pcap,
            forwarding,
            vlan_map,
            switch,
            pace,
            min_window_us,
            max_window_ms,
            window_kib,
            max_flows,
        } => run_replay(
            pcap,
            forwarding,
            vlan_map,
            switch,
            pace,
            WindowParams {
                min_window_ns: min_window_us * 1000,
                max_window_ns: max_window_ms.saturating_mul(1_000_000),
                window_bytes: window_kib * 1024,
                ..WindowParams::default()
            },
            max_flows,
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("planck-collector: {e}");
            ExitCode::from(2)
        }
    }
}

fn run_replay(
    pcap: PathBuf,
    forwarding: Option<PathBuf>,
    vlan_map: Vec<String>,
    switch: String,
    pace: Pace,
    window: WindowParams,
    max_flows: usize,
) -> Result<(), String> {
    let mut vlans = Vec::new();
    for pair in vlan_map.iter().filter(|p| !p.is_empty()) {
        let (v, s) = pair
            .split_once('=')
            .ok_or_else(|| format!("--vlan-map entry {pair:?} is not VLAN=SWITCH"))?;
        vlans.push(parse_vlan_pair(v, s).map_err(|e| format!("--vlan-map: {e}"))?);
    }
    if window.min_window_ns == 0
        || window.max_window_ns < window.min_window_ns
        || window.window_bytes == 0
        || max_flows == 0
    {
        return Err(
            "window options need 0 < min-window-us <= max-window-ms and window-kib, max-flows > 0"
                .into(),
        );
    }
    if window.max_window_ns > 4_000_000_000 {
        return Err("--max-window-ms must be at most 4000".into());
    }
    let forwarding = forwarding.map(|f| load_forwarding(&f)).transpose()?;
    let opts = ReplayOptions {
        window,
        pace,
        max_flows,
        switch,
        vlans,
        forwarding,
    };
    let (flows, report) = replay(&pcap, &opts)?;
    if report.truncated_tail_bytes > 0 {
        // As tcpdump and tshark do: keep what was complete, say what was not.
        eprintln!(
            "planck-collector: warning: {}: file ends inside a record ({} bytes ignored); replayed the {} complete packets before it",
            pcap.display(),
            report.truncated_tail_bytes,
            report.frames
        );
    }
    print_lines(&flows, &mut std::io::stdout().lock()).map_err(|e| format!("stdout: {e}"))?;
    eprintln!(
        "{}",
        serde_json::to_string(&report).expect("report serializes")
    );
    Ok(())
}
