//! Per-hop latency quantiles from PINT digests: relative error of the median and
//! p99 estimated at the sink (reservoir-chosen hop, compressed value, KLL sketch)
//! against the exact quantiles of the latencies the hops saw, for several bit
//! budgets and numbers of packets; and the sketch memory per (flow, hop).
//!
//! Latencies are synthetic: hop h sees base_h + queueing, queueing exponential
//! with a per-hop mean, base and mean drawn per repeat (seeded).
//!
//! cargo run --release -p pint --bin pint-latency

use std::io::IsTerminal;

use clap::Parser;
use indicatif::ProgressBar;
use pint::compress::ValueCodec;
use pint::hash::mix64;
use pint::latency::{LatencyConfig, LatencyEncoder, LatencyRecorder};

#[derive(Parser, Debug)]
#[command(about = "PINT per-hop latency quantiles: error against exact")]
struct Args {
    /// Hops on the path.
    #[arg(long, default_value_t = 5)]
    hops: u32,
    /// Packets per flow, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "500,2000,10000,50000")]
    packets: Vec<u64>,
    /// Bit budgets, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "4,8")]
    budgets: Vec<u32>,
    /// Independent repeats per cell (different seeds).
    #[arg(long, default_value_t = 20)]
    repeats: u32,
    /// KLL accuracy parameter.
    #[arg(long, default_value_t = 200)]
    kll_k: u16,
    #[arg(long, default_value_t = 2020)]
    seed: u64,
}

fn uniform(x: u64) -> f64 {
    ((mix64(x) >> 11) as f64 + 0.5) / (1u64 << 53) as f64
}

fn main() {
    let args = Args::parse();
    if args.hops == 0 || args.hops > 64 || args.repeats < 2 {
        eprintln!("--hops must be in 1..=64 and --repeats at least 2");
        std::process::exit(2);
    }
    let tty = std::io::stderr().is_terminal();
    let cells = (args.packets.len() * args.budgets.len()) as u64;
    let bar = if tty { ProgressBar::new(cells * u64::from(args.repeats)) } else { ProgressBar::hidden() };
    println!(
        "PINT latency quantiles: {} hops, {} repeats per cell (mean +- 95% CI over repeats and hops), KLL k={}, seed {}",
        args.hops, args.repeats, args.kll_k, args.seed
    );
    println!("| bits | codec | packets per flow | samples per hop | median rel. error | p99 rel. error | sketch bytes per (flow, hop) |");
    println!("|---:|---|---:|---:|---:|---:|---:|");
    for &b in &args.budgets {
        // Latencies between 100 ns and 1 ms; multiplicative codes over that range.
        let codec = ValueCodec::multiplicative(b, 100.0, 1_000_000.0).expect("codec");
        for &n in &args.packets {
            let (mut med, mut p99, mut mem, mut per_hop) = (Vec::new(), Vec::new(), 0usize, 0u64);
            for r in 0..args.repeats {
                let seed = mix64(args.seed ^ (u64::from(b) << 48) ^ (n << 8) ^ u64::from(r));
                let cfg = LatencyConfig { codec, seed };
                let enc = LatencyEncoder::new(cfg);
                let mut rec = LatencyRecorder::new(cfg, args.hops, args.kll_k).expect("recorder");
                let params: Vec<(f64, f64)> = (0..args.hops)
                    .map(|h| {
                        let base = 500.0 + 4500.0 * uniform(seed ^ (u64::from(h) << 20) ^ 1);
                        let mean_q = 1000.0 + 49_000.0 * uniform(seed ^ (u64::from(h) << 20) ^ 2);
                        (base, mean_q)
                    })
                    .collect();
                let mut exact: Vec<Vec<f64>> = vec![Vec::new(); args.hops as usize];
                for p in 0..n {
                    let pid = mix64(seed ^ p);
                    let mut d = 0u64;
                    for h in 1..=args.hops {
                        let (base, mean_q) = params[(h - 1) as usize];
                        let lat = base - mean_q * uniform(pid ^ u64::from(h) ^ 0x77).ln();
                        exact[(h - 1) as usize].push(lat);
                        d = enc.encode(d, pid, h, lat);
                    }
                    rec.record(pid, d);
                }
                for h in 1..=args.hops {
                    let e = &mut exact[(h - 1) as usize];
                    e.sort_by(f64::total_cmp);
                    let truth = |q: f64| e[((q * e.len() as f64) as usize).min(e.len() - 1)];
                    if let (Some(m), Some(t)) = (rec.quantile(h, 0.5), rec.quantile(h, 0.99)) {
                        med.push((m / truth(0.5) - 1.0).abs());
                        p99.push((t / truth(0.99) - 1.0).abs());
                    }
                    mem = mem.max(rec.memory_bytes(h));
                    per_hop += rec.samples(h);
                }
                bar.inc(1);
            }
            let (mm, mc) = mean_ci(&med);
            let (pm, pc) = mean_ci(&p99);
            println!(
                "| {b} | mult. [100 ns, 1 ms], {:.1} % step | {n} | {} | {:.2} % +- {:.2} | {:.2} % +- {:.2} | {mem} |",
                codec.error_bound() * 100.0,
                per_hop / u64::from(args.repeats * args.hops),
                mm * 100.0,
                mc * 100.0,
                pm * 100.0,
                pc * 100.0
            );
            if !tty {
                eprintln!("stage bits={b} packets={n} done");
            }
        }
    }
    bar.finish_and_clear();
}

/// Mean and half-width of a normal-approximation 95 % confidence interval.
fn mean_ci(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    if n < 2.0 {
        return (xs.first().copied().unwrap_or(f64::NAN), f64::NAN);
    }
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, 1.96 * (var / n).sqrt())
}
