use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use planck_emu::config::{Config, OutputFormat, SchemeConfig};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use planck_emu::experiment::{run_config, run_config_with_stop};
use planck_emu::realhost::{ResolvedHost, lifecycle, parse_cpu_list};
use planck_emu::stress::stress;

/// Flexplane-style emulator of data-plane resource-management schemes.
#[derive(Parser)]
#[command(name = "planck-emu", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the experiment described by a TOML or JSON config file.
    Run {
        #[arg(long)]
        config: PathBuf,
        /// Write results here (overrides output.dir).
        #[arg(long)]
        out: Option<PathBuf>,
        /// csv or json (overrides output.format).
        #[arg(long, value_parser = ["csv", "json"])]
        format: Option<String>,
        /// Worker threads (overrides emulation.threads).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Run the emulator as the lab fabric, driven through its control API.
    Fabric {
        #[arg(long)]
        config: PathBuf,
        /// Control API address (overrides control.listen).
        #[arg(long)]
        listen: Option<String>,
    },
    /// Create, check or remove the real hosts of a config (namespaces, veths) by name.
    Hosts {
        #[arg(value_enum)]
        action: HostsAction,
        #[arg(long)]
        config: PathBuf,
    },
    /// Raise the offered load until the emulator cannot keep up with real time.
    Stress {
        /// rack:N, rack:RxN or fat_tree:K
        #[arg(long, default_value = "rack:32")]
        topology: String,
        /// droptail, red, red_ecn, dctcp, priority, drr, hull or pfabric
        #[arg(long, default_value = "droptail")]
        scheme: String,
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Total wall-clock budget across all load levels.
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
        #[arg(long, default_value_t = 10.0)]
        link_gbps: f64,
        /// Loose synchronisation: slots a worker may run past the lookahead
        /// (0 = exact). With several workers and 1-slot links, exact runs
        /// rendezvous every slot.
        #[arg(long, default_value_t = 0)]
        skew_slots: u64,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum HostsAction {
    Up,
    Check,
    Down,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match execute(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let msg = format!("{e:#}").replace('\n', " ");
            eprintln!("planck-emu: {msg}");
            ExitCode::from(2)
        }
    }
}

fn execute(cmd: Command) -> anyhow::Result<()> {
    match cmd {
        Command::Run {
            config,
            out,
            format,
            threads,
        } => {
            let mut cfg = Config::load(&config)?;
            if let Some(t) = threads {
                cfg.emulation.threads = t;
            }
            if let Some(f) = format {
                cfg.output.format = if f == "json" {
                    OutputFormat::Json
                } else {
                    OutputFormat::Csv
                };
            }
            if out.is_some() {
                cfg.output.dir = out;
            }
            let report = if cfg.real_hosts.is_some() {
                // Real hosts run until the configured duration or a signal;
                // either way the report is written.
                let stop = Arc::new(AtomicBool::new(false));
                for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
                    signal_hook::flag::register(sig, stop.clone())?;
                }
                run_config_with_stop(&cfg, Some(stop))?
            } else {
                run_config(&cfg)?
            };
            if let Some(dir) = &cfg.output.dir {
                report.write(dir, cfg.output.format)?;
            }
            println!("{}", serde_json::to_string(&report.summary)?);
        }
        Command::Fabric { config, listen } => {
            let mut cfg = planck_emu::lab::FabricConfig::load(&config)?;
            if let Some(l) = listen {
                cfg.control.listen = l;
            }
            let running = planck_emu::lab::start(&cfg)?;
            eprintln!("planck-emu fabric: control API on http://{}", running.addr);
            running.join();
        }
        Command::Hosts { action, config } => {
            let cfg = Config::load(&config)?;
            let topo = cfg.validate()?;
            let Some(rh) = &cfg.real_hosts else {
                anyhow::bail!("config {} has no [real_hosts]", config.display());
            };
            let hosts = rh.resolve(&topo).map_err(anyhow::Error::msg)?;
            let mtu = cfg.emulation.mtu_bytes;
            let receive_cpus = rh
                .receive_cpus
                .as_deref()
                .map(parse_cpu_list)
                .transpose()
                .map_err(anyhow::Error::msg)?;
            let receive_cpus = receive_cpus.as_deref();
            match action {
                HostsAction::Up => {
                    lifecycle::up(&hosts, mtu, receive_cpus).map_err(anyhow::Error::msg)?;
                    lifecycle::check(&hosts, mtu, receive_cpus).map_err(anyhow::Error::msg)?;
                    println!("real hosts up: {}", names(&hosts));
                }
                HostsAction::Check => {
                    lifecycle::check(&hosts, mtu, receive_cpus).map_err(anyhow::Error::msg)?;
                    println!("real hosts ok: {}", names(&hosts));
                }
                HostsAction::Down => {
                    let gone = lifecycle::down(&hosts);
                    println!(
                        "removed: {}",
                        if gone.is_empty() {
                            "nothing".into()
                        } else {
                            gone.join(", ")
                        }
                    );
                }
            }
        }
        Command::Stress {
            topology,
            scheme,
            threads,
            seconds,
            link_gbps,
            skew_slots,
        } => {
            let scheme = SchemeConfig::parse_name(&scheme).map_err(anyhow::Error::msg)?;
            let r = stress(&topology, scheme, threads, seconds, link_gbps, skew_slots)?;
            println!("{}", serde_json::to_string(&r)?);
        }
    }
    Ok(())
}

fn names(hosts: &[ResolvedHost]) -> String {
    hosts
        .iter()
        .map(|h| format!("{} ({} {})", h.namespace, h.ip, h.veth))
        .collect::<Vec<_>>()
        .join(", ")
}
