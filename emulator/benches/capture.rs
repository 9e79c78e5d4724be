//! Frames per CPU-second of the real-host path with each capture, side by
//! side in one run: AF_PACKET (TPACKET_V2 ring), AF_XDP with the program in
//! the veth driver (native) and AF_XDP in the stack (generic).
//!
//! Two namespaces on veths as `planck-emu hosts up` makes them (names with a
//! random prefix, removed on exit). A thread in host a sends bursts of 800 UDP
//! datagrams of 1,472 bytes (1,500-byte IP packets, ECT(0)) to host b; once
//! the burst is in the capture, the bench thread carries it through the whole
//! path as a slot loop does (capture, inspection, frame store, abstract
//! packet, delivery with CE set on every other frame, `sendmmsg` to b's veth)
//! until nothing is left, timed with the thread's CPU clock. Criterion's
//! time per iteration is that CPU time per 800 frames carried (scaled by the
//! frames actually carried, should any be lost), so its throughput is frames
//! per CPU-second. The kernel's copy of each frame into the capture happens in
//! the sending thread (veth transmit, softirq on the way out of `send`) and
//! is not in that figure; the process's whole CPU time per frame (sender,
//! receiver, kernel work charged to them) is printed beside it. A second
//! figure per capture, `*_capture_only`, is the capture alone on the same
//! veth: frames polled and their destination address read, nothing stored
//! or sent (the part of the path that differs between the captures).
//!
//! Needs root; prints a note and measures nothing otherwise.
//! Run: `cargo bench -p planck-emu --bench capture`.

#[path = "../tests/support/veth_pair.rs"]
mod veth_pair;

use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use planck_emu::endpoint::EndpointState;
use planck_emu::engine::HostIo;
use planck_emu::packet::CE;
use planck_emu::realhost::VethHosts;
use planck_emu::realhost::capture::{Capture, CaptureRing, XdpMode};
use veth_pair::{Pair, Receiver, Sender, is_root, process_cpu_seconds, thread_cpu_seconds};

const BURST: usize = 800;

struct Totals {
    name: &'static str,
    sent: u64,
    carried: u64,
    cpu: f64,
    process_cpu: f64,
    ring_drops: u64,
    /// The capture alone: frames polled and the thread's CPU seconds for them.
    polled: u64,
    poll_cpu: f64,
    refused: u64,
    veth_drops: u64,
    ce: u64,
}

fn capture_paths(c: &mut Criterion) {
    if !is_root() {
        println!("capture bench: skipped (needs root for namespaces, veths and XDP)");
        return;
    }
    let mut g = c.benchmark_group("realhost_path");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Elements(BURST as u64));
    let mut all = Vec::new();
    for (name, capture, net) in [
        ("afpacket", Capture::Packet, 221u8),
        ("afxdp_native", Capture::Xdp(XdpMode::Native), 222),
        ("afxdp_generic", Capture::Xdp(XdpMode::Generic), 223),
    ] {
        let pair = Pair::up("cb", net);
        let mut io = VethHosts::open_with(&pair.hosts, &pair.setup, 0, 1500, capture)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let rx = Receiver::start(&pair, false);
        let tx = Sender::start(&pair);
        let mut eps: Vec<EndpointState> = (0..2).map(|i| EndpointState::new(i, 1 << 14)).collect();
        let mut ready = vec![0u64; 1];
        let slot_ns = pair.setup.slot_ns;
        let clock = Instant::now();
        let (mut t, mut seq) = (0u64, 0u32);
        let mut tot = Totals {
            name,
            sent: 0,
            carried: 0,
            cpu: 0.0,
            process_cpu: 0.0,
            ring_drops: 0,
            polled: 0,
            poll_cpu: 0.0,
            refused: 0,
            veth_drops: 0,
            ce: 0,
        };
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let (mut cpu, mut carried) = (0.0, 0u64);
                let p0 = process_cpu_seconds();
                for _ in 0..iters {
                    tot.sent += tx.burst(seq, BURST, 1472, true) as u64;
                    seq = seq.wrapping_add(BURST as u32);
                    // The kernel finishes the burst's receive work on the way out of send.
                    std::thread::sleep(Duration::from_millis(1));
                    let c0 = thread_cpu_seconds();
                    loop {
                        t = (t + 1).max((clock.elapsed().as_nanos() as f64 / slot_ns) as u64);
                        io.exchange(t, &mut eps, &mut ready);
                        let mut moved = 0;
                        while let Some(mut pkt) = eps[0].nic.pop_front() {
                            // Every other packet as if a scheme had marked it.
                            if pkt.seq & 1 == 0 {
                                pkt.flags |= CE;
                            }
                            io.deliver(1, pkt, t);
                            moved += 1;
                        }
                        carried += moved;
                        if moved == 0 {
                            break;
                        }
                    }
                    t += 1;
                    io.exchange(t, &mut eps, &mut ready); // flush the last writes
                    cpu += thread_cpu_seconds() - c0;
                }
                tot.cpu += cpu;
                tot.carried += carried;
                tot.process_cpu += process_cpu_seconds() - p0;
                let per_frame = cpu / carried.max(1) as f64;
                Duration::from_secs_f64(per_frame * (BURST as u64 * iters) as f64)
            })
        });
        rx.finish();
        let report = io.finish();
        drop(io);
        let a = &report["hosts"][0]["counters"];
        let n = |k: &str| a[k].as_u64().unwrap_or(0);
        tot.ring_drops = n("ring_drops");
        tot.refused = [
            "refused_oversize",
            "refused_not_ipv4",
            "refused_malformed",
            "unknown_destination",
            "nic_drops",
        ]
        .iter()
        .map(|k| n(k))
        .sum();
        tot.ce = report["hosts"][1]["counters"]["ce_marked"]
            .as_u64()
            .unwrap_or(0);
        // The capture alone on the same veth: frames polled, their destination
        // address read, nothing stored or sent.
        let mut ring = CaptureRing::open(capture, &pair.veth('a'), 1514, 4096)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        g.bench_function(format!("{name}_capture_only"), |b| {
            b.iter_custom(|iters| {
                let (mut cpu, mut polled) = (0.0, 0u64);
                for _ in 0..iters {
                    tot.sent += tx.burst(seq, BURST, 1472, false) as u64;
                    seq = seq.wrapping_add(BURST as u32);
                    std::thread::sleep(Duration::from_millis(1));
                    let c0 = thread_cpu_seconds();
                    let mut dst = 0u32;
                    loop {
                        let n = ring.poll(256, u64::MAX, |f| {
                            dst ^= u32::from_be_bytes(f.data[30..34].try_into().unwrap())
                        });
                        polled += n as u64;
                        if n == 0 {
                            break;
                        }
                    }
                    cpu += thread_cpu_seconds() - c0;
                    std::hint::black_box(dst);
                }
                tot.polled += polled;
                tot.poll_cpu += cpu;
                let per_frame = cpu / polled.max(1) as f64;
                Duration::from_secs_f64(per_frame * (BURST as u64 * iters) as f64)
            })
        });
        tot.ring_drops += ring.take_stats().1;
        drop(ring);
        tx.stop();
        tot.veth_drops = pair.veth_drops('a');
        all.push(tot);
    }
    g.finish();
    println!(
        "\nreal-host path, 1514-byte frames, bursts of {BURST} (under whatever load the machine has):"
    );
    println!(
        "{:<14} {:>10} {:>10} {:>22} {:>12} {:>20} {:>26}",
        "capture",
        "sent",
        "carried",
        "k frames/CPU-s (path)",
        "us/frame",
        "Gb/s of 1500 B/core",
        "process CPU us/frame (all)"
    );
    let base = all[0].carried as f64 / all[0].cpu;
    for r in &all {
        let pps = r.carried as f64 / r.cpu;
        println!(
            "{:<14} {:>10} {:>10} {:>14.0} ({:>4.2}x) {:>12.2} {:>20.2} {:>26.2}",
            r.name,
            r.sent,
            r.carried,
            pps / 1e3,
            pps / base,
            1e6 / pps,
            pps * 1500.0 * 8.0 / 1e9,
            r.process_cpu * 1e6 / r.carried.max(1) as f64,
        );
        let cap = r.polled as f64 / r.poll_cpu;
        println!(
            "{:<14} capture alone: {} frames, {:.0} k frames/CPU-s ({:.2}x), {:.2} us/frame",
            "",
            r.polled,
            cap / 1e3,
            cap / (all[0].polled as f64 / all[0].poll_cpu),
            1e6 / cap
        );
        println!(
            "{:<14} lost: {} ring drops, {} veth drops, {} refused; CE set on {} frames",
            "", r.ring_drops, r.veth_drops, r.refused, r.ce
        );
    }
}

criterion_group!(benches, capture_paths);
criterion_main!(benches);
