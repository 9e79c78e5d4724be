//! Path-tracing decoder throughput: digests consumed per second by the sink's
//! inference while tracing random 25-hop paths with an 8-bit budget (decode from
//! scratch, so the cost of narrowing candidates is included), and the per-digest
//! cost once a path is decoded (each digest is only checked against it).

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pint::hash::mix64;
use pint::path::{
    DecoderLimits, PathDecoder, PathEncoder, PathScheme, PathTracingConfig, TraceStatus, Universe,
    encode_path,
};

const HOPS: u32 = 25;
const FLOWS: usize = 64;

struct Workload {
    scheme: Arc<PathScheme>,
    universe: Arc<Universe>,
    /// Per flow: (packet id, digest) until the flow decoded.
    flows: Vec<Vec<(u64, u64)>>,
}

fn workload(budget: u32) -> Workload {
    let scheme = Arc::new(PathScheme::new(PathTracingConfig::hybrid(budget, HOPS, 7)).unwrap());
    let ids: Vec<u32> = (0..1024).collect();
    let universe = Arc::new(Universe::new(&scheme, ids).unwrap());
    let mut flows = Vec::new();
    for f in 0..FLOWS as u64 {
        let path: Vec<u32> = (0..HOPS as u64).map(|h| (mix64(f << 8 | h) % 1024) as u32).collect();
        let enc: Vec<PathEncoder> = path.iter().map(|&s| PathEncoder::new(scheme.clone(), s)).collect();
        let mut dec =
            PathDecoder::new(scheme.clone(), universe.clone(), HOPS, DecoderLimits::default()).unwrap();
        let mut pkts = Vec::new();
        let mut pid = mix64(f);
        loop {
            pid = pid.wrapping_add(1);
            let d = encode_path(&enc, pid, 0);
            pkts.push((pid, d));
            if dec.observe(pid, d) != TraceStatus::Decoding {
                break;
            }
        }
        flows.push(pkts);
    }
    Workload { scheme, universe, flows }
}

fn bench(c: &mut Criterion) {
    for budget in [8u32, 16] {
        let w = workload(budget);
        let total: usize = w.flows.iter().map(Vec::len).sum();
        let mut g = c.benchmark_group(format!("path_decode_{HOPS}hops_{budget}bits"));
        g.throughput(Throughput::Elements(total as u64));
        g.bench_function("from_scratch", |b| {
            b.iter(|| {
                for pkts in &w.flows {
                    let mut dec = PathDecoder::new(
                        w.scheme.clone(),
                        w.universe.clone(),
                        HOPS,
                        DecoderLimits::default(),
                    )
                    .unwrap();
                    for &(p, d) in pkts {
                        black_box(dec.observe(p, d));
                    }
                }
            })
        });
        // Steady state: the path is known; every digest is checked against it.
        let mut decoded: Vec<PathDecoder> = w
            .flows
            .iter()
            .map(|pkts| {
                let mut dec =
                    PathDecoder::new(w.scheme.clone(), w.universe.clone(), HOPS, DecoderLimits::default())
                        .unwrap();
                for &(p, d) in pkts {
                    dec.observe(p, d);
                }
                dec
            })
            .collect();
        g.bench_function("decoded_check", |b| {
            b.iter(|| {
                for (dec, pkts) in decoded.iter_mut().zip(&w.flows) {
                    for &(p, d) in pkts {
                        black_box(dec.observe(p, d));
                    }
                }
            })
        });
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(4));
    targets = bench
}
criterion_main!(benches);
