//! INT v0.5 reports through decode -> state -> event detection, as INTCollector measured
//! its fast path: 6 hops, all nine v0.5 fields (bitmap 0xff00), 100 flows. Two inputs:
//! steady values (events only on the first pass and from periodic pushes), and values
//! that move so that about one report in ten crosses an interval.
//!
//! Time is the benchmark thread's CPU time (CLOCK_THREAD_CPUTIME_ID), not wall time:
//! the figure is reports per second per core even on a machine shared with other work,
//! and throughput is reported as reports per CPU-second.
//!
//! cargo bench -p planck-collector --bench int_reports -- --measurement-time 5

#[path = "../tests/int_encoder/mod.rs"]
mod int_encoder;

use std::hint::black_box;
use std::net::{IpAddr, Ipv4Addr};

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use int_encoder::*;
use planck_collector::decode::FiveTuple;
use planck_collector::decode::int::{HopMetadata, IntDecoder, IntDecoderConfig, ReportBuf, ReportFlags, ReportVersion};
use planck_collector::inband::{IntState, StateConfig};

const FLOWS: usize = 100;
const HOPS: u32 = 6;
/// Frames per pass: every flow 10 times, interleaved.
const PASS: usize = FLOWS * 10;

fn frame(flow: usize, variant: u32) -> Vec<u8> {
    let f = FiveTuple {
        src: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
        dst: IpAddr::V4(Ipv4Addr::new(10, 0, (flow / 256) as u8, (flow % 256) as u8)),
        proto: 17,
        sport: 5000,
        dport: 5000,
    };
    let hops = (0..HOPS)
        .map(|j| HopMetadata {
            switch_id: j,
            ingress_port: 2,
            egress_port: 3,
            hop_latency: 4 + j + variant * 64,
            queue_id: 5,
            queue_occupancy: 6,
            ingress_ts: 7 + j as u64,
            egress_ts: 1_524_234_560,
            congestion_queue_id: 5,
            queue_congestion: 10 + j,
            tx_utilization: 11 + j,
            ..HopMetadata::default()
        })
        .collect();
    let payload = encode_report(&ReportSpec {
        version: ReportVersion::V05,
        hw_id: 0,
        seq: 0,
        node_id: 0,
        report_ts: 1_524_138_290,
        flags: ReportFlags { tracked_flow: true, ..ReportFlags::default() },
        framing: InnerFraming::Ethernet,
        flow: f,
        local_bitmap: 0,
        local: HopMetadata::default(),
        int: Some(IntStack { bitmap: 0xff00, hop_budget: 8, hops, original_dscp: 14 }),
    });
    outer_frame(&payload, 54321)
}

fn run(c: &mut Criterion<ThreadCpu>, name: &str, frames: &[Vec<u8>]) {
    let d = IntDecoder::new(&IntDecoderConfig::default()).unwrap();
    let mut state = IntState::new(StateConfig { push_interval_ns: 1_000_000_000, ..StateConfig::default() });
    // As the INT thread runs it: stacks kept raw, the state compares them first.
    let mut buf = ReportBuf::deferring();
    let mut now = 0u64;
    let mut events = 0u64;
    let mut g = c.benchmark_group("int_v05_6hops_all_fields_100flows");
    g.throughput(Throughput::Elements(frames.len() as u64));
    g.bench_function(name, |b| {
        b.iter(|| {
            for f in frames {
                // 1 µs per report: periodic pushes fire once a second of report time.
                now += 1000;
                d.decode_frame(black_box(f), &mut buf).unwrap();
                state.apply_buf(&mut buf, now, &mut |e| {
                    events += 1;
                    black_box(e);
                });
            }
        })
    });
    g.finish();
    let c = state.counters;
    eprintln!("{name}: {} reports ({} with an unchanged stack), {events} events ({:.4} per report)", c.reports, c.unchanged_stacks, events as f64 / c.reports as f64);
}

fn bench(c: &mut Criterion<ThreadCpu>) {
    let steady: Vec<Vec<u8>> = (0..PASS).map(|i| frame(i % FLOWS, 0)).collect();
    run(c, "steady", &steady);
    // Every tenth report of a flow moves its hop latencies into the next interval.
    let moving: Vec<Vec<u8>> = (0..PASS).map(|i| frame(i % FLOWS, ((i / FLOWS) % 10 == 9) as u32)).collect();
    run(c, "one_in_ten_crossing", &moving);
}

/// CPU time of the calling thread, in nanoseconds.
fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: ts is a valid timespec to write into.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

struct ThreadCpu;

impl Measurement for ThreadCpu {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, i: u64) -> u64 {
        thread_cpu_ns() - i
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuFormatter
    }
}

struct CpuFormatter;

impl ValueFormatter for CpuFormatter {
    fn scale_values(&self, _typical: f64, values: &mut [f64]) -> &'static str {
        for v in values.iter_mut() {
            *v /= 1000.0;
        }
        "µs cpu"
    }
    fn scale_throughputs(&self, _typical: f64, t: &Throughput, values: &mut [f64]) -> &'static str {
        let n = match t {
            Throughput::Elements(n) | Throughput::Bytes(n) | Throughput::BytesDecimal(n) => *n as f64,
        };
        for v in values.iter_mut() {
            *v = n * 1e9 / *v / 1e6;
        }
        "M reports per cpu-second"
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(ThreadCpu);
    targets = bench
}
criterion_main!(benches);
