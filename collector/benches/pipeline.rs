//! decode -> map -> estimate, on an in-memory replay of 64-byte TCP samples over 100k
//! flows in random order (the flow table does not fit in cache, as in real traffic).
//!
//! cargo bench -p planck-collector --bench pipeline -- --measurement-time 5

use std::sync::Arc;

use arc_swap::ArcSwap;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use etherparse::PacketBuilder;
use planck_collector::decode::{MirroredFrameDecoder, frame::decode_frame};
use planck_collector::detect::DetectionSettings;
use planck_collector::forwarding::{
    CompiledMap, ForwardingMapV1, MacEntry, PortEntry, StaticSwitches, SwitchEntry,
};
use planck_collector::pipeline::{Worker, WorkerConfig};

const FRAMES: usize = 1 << 20;
const BATCH: usize = 8192;
const HOSTS: usize = 64;
const FRAME_LEN: usize = 64;

fn host_mac(h: usize) -> [u8; 6] {
    [2, 0, 0, 0, (h >> 8) as u8, h as u8]
}

/// FRAMES frames of FRAME_LEN bytes from `flows` flows in random order.
fn frames(flows: usize) -> (Vec<u8>, Vec<u32>) {
    let mut buf = Vec::with_capacity(FRAMES * FRAME_LEN);
    let mut flow_of = Vec::with_capacity(FRAMES);
    let mut x: u64 = 0x2545f4914f6cdd1d;
    for i in 0..FRAMES {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // Every flow once, then at random.
        let f = if i < flows {
            i
        } else {
            (x % flows as u64) as usize
        };
        let dst_host = f % HOSTS;
        let b = PacketBuilder::ethernet2(host_mac(HOSTS + 1), host_mac(dst_host))
            .ipv4(
                [10, 1, (f >> 8) as u8, f as u8],
                [10, 2, 0, dst_host as u8],
                64,
            )
            .tcp(10_000 + (f % 50_000) as u16, 5201, 0, 65535)
            .ack(1);
        let start = buf.len();
        b.write(&mut buf, &[0u8; FRAME_LEN - 54]).unwrap();
        assert_eq!(buf.len() - start, FRAME_LEN);
        flow_of.push(f as u32);
    }
    (buf, flow_of)
}

fn forwarding() -> ForwardingMapV1 {
    ForwardingMapV1 {
        version: 1,
        collector: "bench".into(),
        generation: 1,
        switches: vec![SwitchEntry {
            switch: "of:0000000000000001".into(),
            rspan_vlan: 1,
            mirror_port: 99,
            ports: (0..HOSTS as u32)
                .map(|p| PortEntry {
                    port: p,
                    capacity_bps: 10_000_000_000,
                })
                .collect(),
            entries: (0..HOSTS)
                .map(|h| MacEntry {
                    mac: planck_collector::forwarding::format_mac(&host_mac(h)),
                    port: h as u32,
                })
                .collect(),
        }],
    }
}

/// Replays the buffer cyclically. Each pass rewrites the sequence numbers forward (a
/// 4-byte store per frame) so every sample advances its flow as real traffic would.
struct Replay {
    buf: Vec<u8>,
    flow_of: Vec<u32>,
    seq: Vec<u32>,
    next: usize,
    ts_ns: u64,
}

impl Replay {
    fn run_batch(&mut self, worker: &mut Worker<MirroredFrameDecoder>, n: usize) {
        for _ in 0..n {
            let i = self.next;
            self.next = (self.next + 1) % FRAMES;
            let f = self.flow_of[i] as usize;
            let s = self.seq[f].wrapping_add(1448);
            self.seq[f] = s;
            let frame = &mut self.buf[i * FRAME_LEN..(i + 1) * FRAME_LEN];
            frame[38..42].copy_from_slice(&s.to_be_bytes());
            self.ts_ns += 50; // 20 Mpps of samples
            worker.on_frame(self.ts_ns, None, Some(0), frame);
        }
        worker.tick(self.ts_ns);
    }
}

fn setup(flows: usize) -> (Worker<MirroredFrameDecoder>, Replay) {
    let (buf, flow_of) = frames(flows);
    let statics = StaticSwitches {
        vlans: vec![],
        interface_switches: vec!["of:0000000000000001".into()],
    };
    let map = CompiledMap::build(None, Some(&forwarding()), &statics, 1).unwrap();
    let source = Arc::new(ArcSwap::from_pointee(map));
    let settings = Arc::new(DetectionSettings::new(80.0, 5.0, 5.0));
    let cfg = WorkerConfig {
        max_flows: 1 << 18,
        ..WorkerConfig::default()
    };
    let mut worker = Worker::new(cfg, MirroredFrameDecoder, source, settings, None, None);
    let mut replay = Replay {
        buf,
        flow_of,
        seq: vec![0; flows],
        next: 0,
        ts_ns: 1_000_000_000,
    };
    // Warm the flow table so every flow exists before measuring.
    replay.run_batch(&mut worker, FRAMES);
    assert_eq!(worker.flows().len(), flows);
    (worker, replay)
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("pipeline");
    // 100k flows: the target case; 1k flows: the same work with the flow table in cache,
    // which separates memory stalls from computation.
    for (flows, name) in [
        (100_000, "decode_map_estimate_64B_100k_flows"),
        (1_000, "decode_map_estimate_64B_1k_flows"),
    ] {
        let (mut worker, mut replay) = setup(flows);
        // Wall-clock figures suffer when other work shares the cores; the thread's own
        // CPU time per packet does much less. Print it alongside criterion's figures.
        let rounds = 100;
        let cpu0 = thread_cpu_ns();
        for _ in 0..rounds {
            replay.run_batch(&mut worker, BATCH);
        }
        let cpu_ns = (thread_cpu_ns() - cpu0) as f64 / (rounds * BATCH) as f64;
        println!(
            "{name}: {cpu_ns:.1} ns CPU time per packet = {:.2} Mpps per core",
            1e3 / cpu_ns
        );
        g.throughput(Throughput::Elements(BATCH as u64));
        g.bench_function(name, |b| b.iter(|| replay.run_batch(&mut worker, BATCH)));
    }
    let (_, replay) = setup(1);
    let frame = replay.buf[..FRAME_LEN].to_vec();
    g.throughput(Throughput::Elements(1));
    g.bench_function("decode_only_64B", |b| {
        b.iter(|| decode_frame(std::hint::black_box(&frame), None))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).warm_up_time(std::time::Duration::from_secs(1)).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}
