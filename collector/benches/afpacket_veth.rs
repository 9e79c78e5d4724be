//! Live AF_PACKET rate on a veth: a sender thread blasts 64-byte TCP frames of 100k flows
//! into one end (sendmmsg on a raw socket); the collector's TPACKET_V3 ring and worker
//! (decode -> map -> estimate) consume the other end. Prints frames/s sent, processed
//! and dropped by the kernel. Needs root (creates and deletes a veth pair).
//!
//! cargo bench -p planck-collector --bench afpacket_veth            (3 s)
//! PLANCK_BENCH_SECS=10 cargo bench -p planck-collector --bench afpacket_veth

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use etherparse::PacketBuilder;
use planck_collector::capture::afpacket::{PacketRing, RingConfig, interface_index};
use planck_collector::decode::MirroredFrameDecoder;
use planck_collector::detect::DetectionSettings;
use planck_collector::forwarding::{CompiledMap, StaticSwitches};
use planck_collector::pipeline::{CapturedFrame, Worker, WorkerConfig};

const FLOWS: usize = 100_000;
const BATCH: usize = 64;

struct VethPair(String);

impl Drop for VethPair {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["link", "del", &self.0]).status();
    }
}

fn ip(args: &[&str]) {
    let ok = Command::new("ip")
        .args(args)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(ok, "ip {args:?} failed");
}

fn main() {
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("afpacket_veth: skipped (needs root to create a veth pair)");
        return;
    }
    let secs: u64 = std::env::var("PLANCK_BENCH_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let tag = std::process::id() & 0xffff;
    let (tx_if, rx_if) = (format!("pkv{tag:04x}a"), format!("pkv{tag:04x}b"));
    ip(&[
        "link", "add", &tx_if, "type", "veth", "peer", "name", &rx_if,
    ]);
    let _guard = VethPair(tx_if.clone());
    for l in [&tx_if, &rx_if] {
        let _ = std::fs::write(format!("/proc/sys/net/ipv6/conf/{l}/disable_ipv6"), "1");
        ip(&["link", "set", l, "up"]);
    }

    // 64-byte frames, one per flow.
    let mut frames = Vec::with_capacity(FLOWS * 64);
    for f in 0..FLOWS {
        PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
            .ipv4([10, 1, (f >> 8) as u8, f as u8], [10, 2, 0, 1], 64)
            .tcp(10_000 + (f % 50_000) as u16, 5201, (f as u32) << 8, 65535)
            .ack(1)
            .write(&mut frames, &[0u8; 10])
            .unwrap();
    }

    let statics = StaticSwitches {
        vlans: vec![],
        interface_switches: vec!["of:1".into()],
    };
    let map = CompiledMap::build(None, None, &statics, 1).unwrap();
    let mut worker = Worker::new(
        WorkerConfig::default(),
        MirroredFrameDecoder,
        Arc::new(ArcSwap::from_pointee(map)),
        Arc::new(DetectionSettings::new(80.0, 5.0, 5.0)),
        None,
        None,
    );
    let mut ring = PacketRing::open(
        &rx_if,
        &RingConfig {
            block_size: 1 << 22,
            block_count: 64,
            block_timeout_ms: 1,
            promiscuous: false,
        },
        None,
    )
    .unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicU64::new(0));
    let sender = {
        let (stop, sent) = (stop.clone(), sent.clone());
        let ifindex = interface_index(&tx_if).unwrap();
        std::thread::spawn(move || {
            let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW, 0) };
            assert!(fd >= 0);
            let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
            sll.sll_family = libc::AF_PACKET as u16;
            sll.sll_ifindex = ifindex as i32;
            let rc = unsafe {
                libc::bind(
                    fd,
                    &sll as *const _ as *const libc::sockaddr,
                    std::mem::size_of::<libc::sockaddr_ll>() as u32,
                )
            };
            assert_eq!(rc, 0);
            let mut next = 0usize;
            let mut iov: Vec<libc::iovec> = vec![
                libc::iovec {
                    iov_base: std::ptr::null_mut(),
                    iov_len: 64
                };
                BATCH
            ];
            let mut msgs: Vec<libc::mmsghdr> =
                (0..BATCH).map(|_| unsafe { std::mem::zeroed() }).collect();
            while !stop.load(Ordering::Relaxed) {
                for i in 0..BATCH {
                    iov[i].iov_base = frames[next * 64..].as_ptr() as *mut libc::c_void;
                    msgs[i].msg_hdr.msg_iov = &mut iov[i];
                    msgs[i].msg_hdr.msg_iovlen = 1;
                    next = (next + 1) % FLOWS;
                }
                let n = unsafe { libc::sendmmsg(fd, msgs.as_mut_ptr(), BATCH as u32, 0) };
                if n > 0 {
                    sent.fetch_add(n as u64, Ordering::Relaxed);
                }
            }
            unsafe { libc::close(fd) };
        })
    };

    // Warm up, then measure.
    let warm = Instant::now() + Duration::from_millis(500);
    while Instant::now() < warm {
        ring.poll_once(10, |b| {
            worker.on_frames(&CapturedFrame::from_ring(b, Some(0))[..b.len()])
        })
        .unwrap();
    }
    let _ = ring.take_stats();
    let sent0 = sent.load(Ordering::Relaxed);
    let mut processed = 0u64;
    let cpu0 = thread_cpu_ns();
    let start = Instant::now();
    let end = start + Duration::from_secs(secs);
    while Instant::now() < end {
        processed += ring
            .poll_once(10, |b| {
                worker.on_frames(&CapturedFrame::from_ring(b, Some(0))[..b.len()])
            })
            .unwrap() as u64;
        worker.tick(m_now());
    }
    let elapsed = start.elapsed().as_secs_f64();
    let cpu = (thread_cpu_ns() - cpu0) as f64;
    let (_, drops) = ring.take_stats();
    stop.store(true, Ordering::Relaxed);
    sender.join().unwrap();
    let sent = sent.load(Ordering::Relaxed) - sent0;
    println!(
        "afpacket_veth: {secs} s, sent {:.3} Mpps, processed {:.3} Mpps, capture thread CPU {:.0} ns/frame (incl. poll), kernel ring drops {:.3} Mpps, flows {}",
        sent as f64 / elapsed / 1e6,
        processed as f64 / elapsed / 1e6,
        cpu / processed.max(1) as f64,
        drops as f64 / elapsed / 1e6,
        worker.flows().len()
    );
}

fn m_now() -> u64 {
    planck_collector::export::event::now_ns()
}

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}
