//! Live AF_PACKET rate on a veth: a sender thread blasts 64-byte TCP frames of 100k flows
//! into one end (sendmmsg on a raw socket); the collector's TPACKET_V3 ring and worker
//! (decode -> map -> estimate) consume the other end. Prints frames/s sent, processed
//! and dropped by the kernel. Needs root (creates and deletes a veth pair).
//!
//! cargo bench -p planck-collector --bench afpacket_veth            (3 s)
//! PLANCK_BENCH_SECS=10 cargo bench -p planck-collector --bench afpacket_veth
//!
//! Second part, the software path of a notice: a paced TCP flow over a 100 Mb/s port goes
//! into the veth, the collector (ring, worker, exporter) captures it, detects the congestion
//! and posts the notice to an HTTP server on loopback; measured per cycle from the kernel's
//! capture stamp of the triggering frame (the notice's `sampleUs`) to the server having read
//! the whole request, on the same clock. Each cycle then waits for the port to clear.
//! PLANCK_BENCH_CYCLES (default 300) sets the cycles, PLANCK_BENCH_BLOCK_KIB (default 8, the
//! lab's) the ring's block size, PLANCK_BENCH_HANDOVER (block, the default, or frame) how
//! the ring hands frames over.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use etherparse::PacketBuilder;
use planck_collector::capture::afpacket::{Handover, PacketRing, RingConfig, interface_index};
use planck_collector::decode::MirroredFrameDecoder;
use planck_collector::detect::DetectionSettings;
use planck_collector::export::{ExportConfig, Exporter};
use planck_collector::forwarding::{CompiledMap, ForwardingMapV1, StaticSwitches};
use planck_collector::metrics::Metrics;
use planck_collector::pipeline::{CapturedFrame, Worker, WorkerConfig};

const FLOWS: usize = 100_000;
const BATCH: usize = 64;

struct VethPair(String);

impl Drop for VethPair {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["link", "del", &self.0]).status();
    }
}

/// PLANCK_BENCH_HANDOVER: "block" (TPACKET_V3, the default) or "frame" (TPACKET_V2).
fn handover() -> Handover {
    match std::env::var("PLANCK_BENCH_HANDOVER").as_deref() {
        Ok("frame") => Handover::Frame,
        Ok("block") | Err(_) => Handover::Block,
        Ok(other) => panic!("PLANCK_BENCH_HANDOVER must be block or frame, not {other}"),
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
            handover: handover(),
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
    drop(ring);
    notice_latency(&tx_if, &rx_if);
}

/// Port 2 of switch of:1 (RSPAN VLAN 10) has 100 Mb/s; host 02:..:02 is behind it.
const FORWARDING: &str = r#"{
  "version": 1, "collector": "bench", "generation": 1,
  "switches": [{
    "switch": "of:0000000000000001", "rspanVlan": 10, "mirrorPort": 9,
    "ports": [{"port": 2, "capacityBps": 100000000}],
    "entries": [{"mac": "02:00:00:00:00:02", "port": 2}]
  }]
}"#;

/// A controller stand-in: TCP_NODELAY, one write per answer; sends (receipt µs, body).
fn notice_receiver(got: std::sync::mpsc::Sender<(u64, String)>) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            stream.set_nodelay(true).unwrap();
            let got = got.clone();
            std::thread::spawn(move || {
                let mut out = stream.try_clone().unwrap();
                let mut r = BufReader::new(stream);
                loop {
                    let mut len = 0usize;
                    let mut line = String::new();
                    loop {
                        line.clear();
                        if r.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        if line == "\r\n" {
                            break;
                        }
                        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                            len = v.trim().parse().unwrap();
                        }
                    }
                    let mut body = vec![0; len];
                    r.read_exact(&mut body).unwrap();
                    let at = planck_collector::export::event::now_us();
                    let answer = r#"{"accepted":1,"unknownDevice":0,"unknownPort":0}"#;
                    let _ = out.write_all(
                        format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{answer}", answer.len())
                            .as_bytes(),
                    );
                    if got
                        .send((at, String::from_utf8_lossy(&body).into_owned()))
                        .is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    format!("http://{addr}/onos/planck/v1/telemetry/events")
}

/// A 128-byte snap of a VLAN-10 tagged TCP segment of 1448 bytes.
fn mirrored_segment(sport: u16, seq: u32) -> Vec<u8> {
    let mut f = Vec::with_capacity(1600);
    PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
        .tcp(sport, 5201, seq, 65535)
        .ack(1)
        .write(&mut f, &[0u8; 1448])
        .unwrap();
    f.truncate(128);
    f.splice(12..12, [0x81, 0x00, 0x00, 10]);
    f
}

fn percentile(sorted: &[u64], q: f64) -> u64 {
    sorted[((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1]
}

fn notice_latency(tx_if: &str, rx_if: &str) {
    let cycles: u32 = std::env::var("PLANCK_BENCH_CYCLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let (got_tx, got) = std::sync::mpsc::channel();
    let url = notice_receiver(got_tx);
    let metrics = Arc::new(Metrics::new());
    let settings = Arc::new(DetectionSettings::new(80.0, 5.0, 5.0));
    let (exporter, sink) = Exporter::new(
        ExportConfig {
            url,
            collector: "bench".into(),
            username: None,
            password: None,
            queue_capacity: 4096,
            max_pending: 100_000,
            timeout: Duration::from_secs(2),
            min_backoff: Duration::from_millis(10),
            max_backoff: Duration::from_millis(100),
        },
        metrics.clone(),
        settings.clone(),
    );
    let exporter = std::thread::spawn(move || exporter.run());
    let map: ForwardingMapV1 = serde_json::from_str(FORWARDING).unwrap();
    let compiled = CompiledMap::build(None, Some(&map), &StaticSwitches::default(), 1).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let capture = {
        let (stop, rx_if) = (stop.clone(), rx_if.to_string());
        std::thread::spawn(move || {
            let mut worker = Worker::new(
                WorkerConfig::default(),
                MirroredFrameDecoder,
                Arc::new(ArcSwap::from_pointee(compiled)),
                settings,
                Some(sink),
                Some(metrics),
            );
            // The lab's ring: 8 KiB blocks (PLANCK_BENCH_BLOCK_KIB), 1 ms block timeout.
            let block_kib: usize = std::env::var("PLANCK_BENCH_BLOCK_KIB")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(8);
            let mut ring = PacketRing::open(
                &rx_if,
                &RingConfig {
                    handover: handover(),
                    block_size: (block_kib << 10) as _,
                    block_count: (8192 / block_kib).max(16) as _,
                    block_timeout_ms: 1,
                    promiscuous: false,
                },
                None,
            )
            .unwrap();
            while !stop.load(Ordering::Relaxed) {
                ring.poll_once(10, |b| {
                    worker.on_frames(&CapturedFrame::from_ring(b, None)[..b.len()])
                })
                .unwrap();
                worker.tick(m_now());
            }
        })
    };
    let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW, 0) };
    assert!(fd >= 0);
    let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
    sll.sll_family = libc::AF_PACKET as u16;
    sll.sll_ifindex = interface_index(tx_if).unwrap() as i32;
    assert_eq!(
        unsafe {
            libc::bind(
                fd,
                &sll as *const _ as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_ll>() as u32,
            )
        },
        0
    );
    std::thread::sleep(Duration::from_millis(200));
    let (mut total, mut detect, mut export) = (Vec::new(), Vec::new(), Vec::new());
    let mut missed = 0;
    'cycles: for c in 0..cycles {
        // One sampled segment every 50 µs, 8 segments apart in sequence space: ~1.85 Gb/s
        // estimated on a 100 Mb/s port; sent until the notice is in.
        let sport = 20_000 + (c % 40_000) as u16;
        let mut seq = 1u32;
        let mut next = Instant::now();
        let deadline = next + Duration::from_millis(500);
        let notice = loop {
            if Instant::now() > deadline {
                missed += 1;
                continue 'cycles;
            }
            if Instant::now() >= next {
                let f = mirrored_segment(sport, seq);
                unsafe { libc::send(fd, f.as_ptr().cast(), f.len(), 0) };
                seq = seq.wrapping_add(8 * 1448);
                next += Duration::from_micros(50);
            }
            if let Ok((at, body)) = got.try_recv() {
                let v: serde_json::Value = serde_json::from_str(&body).unwrap();
                let n = v["events"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|e| e["type"] == "PORT_CONGESTION" && e["state"] == "CONGESTED")
                    .cloned();
                if let Some(n) = n {
                    break (at, n);
                }
            }
        };
        let (at, n) = notice;
        let sample = n["sampleUs"].as_u64().unwrap();
        let time = n["timeUs"].as_u64().unwrap();
        total.push(at.saturating_sub(sample));
        detect.push(time.saturating_sub(sample));
        export.push(at.saturating_sub(time));
        // The flow stops; the port clears once the flow is quiet (>= 10 ms).
        let clear_by = Instant::now() + Duration::from_secs(2);
        loop {
            match got.recv_timeout(clear_by.saturating_duration_since(Instant::now())) {
                Ok((_, body)) if body.contains("CLEARED") => break,
                Ok(_) => {}
                Err(_) => break,
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    capture.join().unwrap();
    exporter.join().unwrap();
    unsafe { libc::close(fd) };
    if total.is_empty() {
        println!("notice latency: no notice in {cycles} cycles");
        return;
    }
    for (name, v) in [
        ("frame on veth -> notice received (us)", &mut total),
        ("  of which frame -> detected (us)", &mut detect),
        (
            "  of which detected -> received by the HTTP server (us)",
            &mut export,
        ),
    ] {
        v.sort_unstable();
        println!(
            "notice latency, {name}: n {} p50 {} p90 {} p99 {} max {}",
            v.len(),
            percentile(v, 0.5),
            percentile(v, 0.9),
            percentile(v, 0.99),
            v[v.len() - 1]
        );
    }
    if missed > 0 {
        println!("notice latency: {missed} cycles without a notice within 500 ms");
    }
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
