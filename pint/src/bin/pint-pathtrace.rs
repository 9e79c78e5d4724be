//! Packets needed to decode a k-hop path with PINT path tracing, for several path
//! lengths and bit budgets: median and p99 over random paths, plus false decodes
//! (a decoded path that is not the true one) and traces that did not finish.
//!
//! cargo run --release -p pint --bin pint-pathtrace -- --paths 1000

use std::io::IsTerminal;
use std::sync::Arc;

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use pint::hash::mix64;
use pint::path::{
    DecoderLimits, LayerPlan, PathDecoder, PathEncoder, PathScheme, PathTracingConfig, TraceStatus,
    Universe, XorLayer, encode_path,
};

#[derive(Parser, Debug)]
#[command(about = "PINT path tracing: packets to decode a k-hop path")]
struct Args {
    /// Random paths per (k, budget) cell.
    #[arg(long, default_value_t = 1000)]
    paths: u32,
    /// Number of switch ids in the network (the decoder's universe).
    #[arg(long, default_value_t = 1024)]
    universe: u32,
    /// Path lengths, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "5,10,25,64")]
    hops: Vec<u32>,
    /// Bit budgets, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "1,4,8,16")]
    budgets: Vec<u32>,
    /// Master seed; path r of a cell uses hash seed and switch ids derived from it.
    #[arg(long, default_value_t = 2020)]
    seed: u64,
    /// Give up on a path after this many packets (counted as unfinished).
    #[arg(long, default_value_t = 200_000)]
    max_packets: u64,
    /// Scheme: hybrid (default) or baseline.
    #[arg(long, default_value = "hybrid")]
    scheme: String,
    /// Override the hybrid plan: baseline share, then share:probability-multiplier pairs
    /// (probability = 2^-round(log2(d/m))), e.g. "0.5,0.25:2,0.25:1".
    #[arg(long)]
    plan: Option<String>,
    /// With --plan: per-hop hash sampling with probability m/d exactly (no power-of-two rounding).
    #[arg(long)]
    per_hop_hash: bool,
    /// Bits per instance (default: 8-bit instances for budgets that are multiples of 16).
    #[arg(long)]
    instance_bits: Option<u32>,
    /// What the sink knows: "ids" (the switch ids only: any id may follow any other)
    /// or "links:D" (a random topology of average degree D over the ids; paths are
    /// random walks on it without repeats, and the decoder knows the links).
    #[arg(long, default_value = "ids")]
    topology: String,
}

/// The paper's figure (hybrid scheme): (hops, bits) -> (median, p99) packets.
const PAPER: &[((u32, u32), (u64, u64))] = &[((25, 8), (41, 68))];

/// The network the paths run on.
enum Topology {
    Ids,
    Links { adj: Vec<Vec<usize>>, links: Vec<(u32, u32)> },
}

impl Topology {
    fn parse(spec: &str, ids: &[u32], seed: u64) -> Result<Topology, String> {
        if spec == "ids" {
            return Ok(Topology::Ids);
        }
        let d: u32 = spec
            .strip_prefix("links:")
            .and_then(|d| d.parse().ok())
            .filter(|d| (2..=64).contains(d))
            .ok_or_else(|| format!("--topology {spec}: expected ids or links:D with D in 2..=64"))?;
        // A ring keeps it connected; the other D-2 links per node on average are random.
        let n = ids.len();
        let mut adj = vec![Vec::new(); n];
        let add = |a: usize, b: usize, adj: &mut Vec<Vec<usize>>| {
            if a != b && !adj[a].contains(&b) {
                adj[a].push(b);
                adj[b].push(a);
            }
        };
        for i in 0..n {
            add(i, (i + 1) % n, &mut adj);
        }
        let mut s = mix64(seed ^ 0x746f_706f);
        for _ in 0..(n as u64 * u64::from(d - 2) / 2) {
            s = mix64(s.wrapping_add(pint::hash::GOLDEN));
            let a = (s % n as u64) as usize;
            let b = ((s >> 32) % n as u64) as usize;
            add(a, b, &mut adj);
        }
        let mut links = Vec::new();
        for (a, ns) in adj.iter().enumerate() {
            for &b in ns {
                if a < b {
                    links.push((ids[a], ids[b]));
                }
            }
        }
        Ok(Topology::Links { adj, links })
    }

    fn universe(&self, scheme: &PathScheme, ids: &[u32]) -> Universe {
        match self {
            Topology::Ids => Universe::new(scheme, ids.to_vec()).expect("universe"),
            Topology::Links { links, .. } => Universe::with_links(scheme, ids.to_vec(), links).expect("universe"),
        }
    }

    /// k distinct switch ids: drawn at random, or a random walk that never revisits.
    fn path(&self, ids: &[u32], k: u32, seed: u64) -> Vec<u32> {
        match self {
            Topology::Ids => random_path(ids, k, seed),
            Topology::Links { adj, .. } => {
                let mut s = seed;
                loop {
                    s = mix64(s.wrapping_add(pint::hash::GOLDEN));
                    let mut walk = vec![(s % ids.len() as u64) as usize];
                    while walk.len() < k as usize {
                        let here = *walk.last().expect("non-empty");
                        let next: Vec<usize> = adj[here].iter().copied().filter(|n| !walk.contains(n)).collect();
                        if next.is_empty() {
                            break;
                        }
                        s = mix64(s.wrapping_add(pint::hash::GOLDEN));
                        walk.push(next[(s % next.len() as u64) as usize]);
                    }
                    if walk.len() == k as usize {
                        return walk.into_iter().map(|i| ids[i]).collect();
                    }
                }
            }
        }
    }
}

struct Cell {
    median: u64,
    p99: u64,
    mean: f64,
    false_decodes: u32,
    unfinished: u32,
}

fn main() {
    let args = Args::parse();
    if args.universe < 64 {
        eprintln!("--universe must be at least 64 (the longest path has 64 distinct switches)");
        std::process::exit(2);
    }
    if let Some(&k) = args.hops.iter().find(|&&k| k == 0 || k > 64) {
        eprintln!("--hops {k}: path lengths must be in 1..=64");
        std::process::exit(2);
    }
    let tty = std::io::stderr().is_terminal();
    let cells = args.hops.len() * args.budgets.len();
    let bar = if tty {
        let b = ProgressBar::new((cells as u64) * u64::from(args.paths));
        b.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} {msg}")
                .expect("template"),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let universe_ids: Vec<u32> = (0..args.universe).map(|i| 1000 + i * 7).collect();
    let topology = Topology::parse(&args.topology, &universe_ids, args.seed).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let mut rows = Vec::new();
    for &k in &args.hops {
        for &b in &args.budgets {
            bar.set_message(format!("k={k} b={b}"));
            let started = std::time::Instant::now();
            let cell = run_cell(&args, k, b, &universe_ids, &topology, &bar);
            if !tty {
                eprintln!(
                    "stage k={k} budget={b}: median {} p99 {} false {} unfinished {} ({:.1}s)",
                    cell.median,
                    cell.p99,
                    cell.false_decodes,
                    cell.unfinished,
                    started.elapsed().as_secs_f64()
                );
            }
            rows.push((k, b, cell));
        }
    }
    bar.finish_and_clear();
    println!(
        "PINT path tracing ({} scheme), universe {} switch ids, topology {}, {} random paths per cell, seed {}",
        args.scheme, args.universe, args.topology, args.paths, args.seed
    );
    println!(
        "| hops k | budget (bits) | instances x bits | median | p99 | mean | false decodes | unfinished | paper median / p99 |"
    );
    println!("|---:|---:|---|---:|---:|---:|---:|---:|---:|");
    for (k, b, c) in rows {
        let cfg = config(&args, k, b, 0);
        let paper = PAPER
            .iter()
            .find(|(kb, _)| *kb == (k, b))
            .map_or("-".to_string(), |(_, (m, p))| format!("{m} / {p}"));
        println!(
            "| {k} | {b} | {} x {} | {} | {} | {:.1} | {} | {} | {paper} |",
            cfg.instances,
            cfg.budget_bits / cfg.instances,
            c.median,
            c.p99,
            c.mean,
            c.false_decodes,
            c.unfinished
        );
    }
}

fn config(args: &Args, k: u32, b: u32, seed: u64) -> PathTracingConfig {
    let mut cfg = PathTracingConfig::hybrid(b, k, seed);
    if let Some(ib) = args.instance_bits {
        cfg.instances = (b / ib.max(1)).max(1);
    }
    if args.scheme == "baseline" {
        cfg.layers = LayerPlan::baseline();
    } else if let Some(plan) = &args.plan {
        let mut parts = plan.split(',');
        let base: f64 = parts.next().and_then(|s| s.parse().ok()).expect("--plan baseline share");
        let xor_layers = parts
            .map(|p| {
                let (s, m) = p.split_once(':').expect("--plan share:multiplier");
                let m: f64 = m.parse().expect("multiplier");
                XorLayer {
                    share: s.parse().expect("share"),
                    probability: if args.per_hop_hash {
                        (m / f64::from(k)).min(0.5)
                    } else {
                        pint::path::scheme::pow2_at_most((m / f64::from(k)).min(0.5) * std::f64::consts::SQRT_2)
                    },
                }
            })
            .collect();
        cfg.layers = LayerPlan { baseline_share: base, xor_layers };
        if args.per_hop_hash {
            cfg.sampling = pint::path::HopSampling::PerHopHash;
        }
    }
    cfg
}

fn run_cell(args: &Args, k: u32, b: u32, universe_ids: &[u32], topology: &Topology, bar: &ProgressBar) -> Cell {
    let mut needed = Vec::with_capacity(args.paths as usize);
    let (mut false_decodes, mut unfinished) = (0, 0);
    for r in 0..args.paths {
        let path_seed = mix64(args.seed ^ mix64(u64::from(k) << 40 | u64::from(b) << 32 | u64::from(r)));
        let scheme = Arc::new(PathScheme::new(config(args, k, b, path_seed)).unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(2)
        }));
        let universe = Arc::new(topology.universe(&scheme, universe_ids));
        let path = topology.path(universe_ids, k, path_seed);
        let encoders: Vec<PathEncoder> =
            path.iter().map(|&s| PathEncoder::new(scheme.clone(), s)).collect();
        let mut dec = PathDecoder::new(scheme, universe, k, DecoderLimits::default()).expect("decoder");
        let mut pid = mix64(path_seed ^ 0xabcdef);
        let mut done = false;
        for n in 1..=args.max_packets {
            pid = pid.wrapping_add(1);
            let digest = encode_path(&encoders, pid, 0);
            match dec.observe(pid, digest) {
                TraceStatus::Decoded => {
                    if dec.path().as_deref() != Some(&path[..]) {
                        false_decodes += 1;
                    }
                    needed.push(n);
                    done = true;
                    break;
                }
                TraceStatus::Inconsistent => {
                    panic!("inconsistent trace on a fixed path (k={k}, b={b}, path {r})")
                }
                TraceStatus::Decoding => {}
            }
        }
        if !done {
            unfinished += 1;
        }
        bar.inc(1);
    }
    needed.sort_unstable();
    let pick = |q: f64| -> u64 {
        if needed.is_empty() {
            return 0;
        }
        let i = ((q * needed.len() as f64).ceil() as usize).clamp(1, needed.len()) - 1;
        needed[i]
    };
    Cell {
        median: pick(0.5),
        p99: pick(0.99),
        mean: needed.iter().sum::<u64>() as f64 / needed.len().max(1) as f64,
        false_decodes,
        unfinished,
    }
}

/// k distinct switch ids drawn from the universe.
fn random_path(ids: &[u32], k: u32, seed: u64) -> Vec<u32> {
    let mut out = Vec::with_capacity(k as usize);
    let mut s = seed;
    while out.len() < k as usize {
        s = mix64(s.wrapping_add(pint::hash::GOLDEN));
        let v = ids[(s % ids.len() as u64) as usize];
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}
