//! Sends INT telemetry reports over UDP, for the XDP fast path's system test and its CPU
//! measurement (docs/collector.md, "XDP fast path"). Reports are built with the test
//! encoder (collector/tests/int_encoder), written from the specs apart from the decoder.
//!
//! int_send script ADDR:PORT [SETTLE_MS]
//!     A scripted sequence (8 flows, 6 hops, INT v0.5 and v1.0, 40 rounds, then a v2
//!     report and a garbage datagram) where it is known which reports the kernel must
//!     send up and which it filters; waits SETTLE_MS (default 30) after each report that
//!     must come up so the collector has applied it before the next. Prints the
//!     expectation as JSON.
//! int_send steady ADDR:PORT FLOWS RATE SECONDS [VERSION]
//!     FLOWS flows of 6 hops, all nine INT v0.5 fields (or v1.0), values moving inside
//!     their 64-wide intervals, RATE reports per second for SECONDS. Prints what it sent.

#[path = "../tests/int_encoder/mod.rs"]
mod int_encoder;

use std::net::{IpAddr, Ipv4Addr, UdpSocket};
use std::time::{Duration, Instant};

use int_encoder::*;
use planck_collector::decode::FiveTuple;
use planck_collector::decode::int::{HopMetadata, ReportFlags, ReportVersion};

const HOPS: usize = 6;
/// v0.5: all eight fields (nine values). v1.0: switch, ports, latency, queue, both
/// timestamps, utilisation.
const V05_BITMAP: u16 = 0xff00;
const V10_BITMAP: u16 = 0xfd00;

fn flow(i: usize) -> FiveTuple {
    FiveTuple {
        src: IpAddr::V4(Ipv4Addr::new(10, 1, 0, 1)),
        dst: IpAddr::V4(Ipv4Addr::new(10, 1, (i / 256) as u8, (i % 256) as u8)),
        proto: 17,
        sport: 5000,
        dport: 6000,
    }
}

/// One hop's values, path order position `pos`.
#[derive(Clone, Copy)]
struct Hop {
    switch: u32,
    port: u16,
    latency: u32,
    util: u32,
    occupancy: u32,
    congestion: u32,
}

fn report(version: ReportVersion, f: usize, path: &[Hop], hop_budget: u8, seq: u32) -> Vec<u8> {
    let hops = path
        .iter()
        .rev()
        .map(|h| HopMetadata {
            switch_id: h.switch,
            ingress_port: 1,
            egress_port: h.port,
            hop_latency: h.latency,
            queue_id: 0,
            queue_occupancy: h.occupancy,
            ingress_ts: 1000 + seq as u64,
            egress_ts: 2000 + seq as u64,
            congestion_queue_id: 0,
            queue_congestion: if version == ReportVersion::V05 { h.congestion } else { 0 },
            tx_utilization: h.util,
            ..HopMetadata::default()
        })
        .collect();
    let bitmap = if version == ReportVersion::V05 { V05_BITMAP } else { V10_BITMAP };
    encode_report(&ReportSpec {
        version,
        hw_id: 0,
        seq,
        node_id: 77,
        report_ts: seq,
        flags: ReportFlags { tracked_flow: true, ..ReportFlags::default() },
        framing: InnerFraming::Ethernet,
        flow: flow(f),
        local_bitmap: 0,
        local: HopMetadata::default(),
        int: Some(IntStack { bitmap, hop_budget, hops, original_dscp: 0 }),
    })
}

/// Values that stay inside 64-wide intervals: each base is a multiple of 64 and the
/// flow latency (six hops) moves by at most 42.
fn steady_path(f: usize, k: usize) -> Vec<Hop> {
    let x = ((k + f) % 8) as u32;
    (0..HOPS)
        .map(|p| Hop { switch: p as u32 + 1, port: 3, latency: 640 + x, util: 1280 + x, occupancy: 1920 + x, congestion: 2560 + x })
        .collect()
}

fn script(to: &str, settle: Duration) {
    const FLOWS: usize = 8;
    const ROUNDS: usize = 40;
    let sock = UdpSocket::bind("0.0.0.0:0").expect("bind");
    let mut seq = 0u32;
    let (mut ring, mut filtered) = (0u64, 0u64);
    let mut reasons = std::collections::BTreeMap::<&str, u64>::new();
    let mut send = |bytes: &[u8], up: Option<&'static str>, seq: &mut u32| {
        *seq += 1;
        sock.send_to(bytes, to).expect("send");
        match up {
            Some(reason) => {
                ring += 1;
                *reasons.entry(reason).or_default() += 1;
                std::thread::sleep(settle);
            }
            None => {
                filtered += 1;
                std::thread::sleep(Duration::from_micros(500));
            }
        }
    };
    for k in 0..ROUNDS {
        for f in 0..FLOWS {
            let version = if f < 6 { ReportVersion::V05 } else { ReportVersion::V10 };
            let mut path = steady_path(f, k);
            let mut up = (k == 0).then_some("no_entry");
            // Flow 1: the hop latency at the fourth switch moves up an interval at round 10.
            if f == 1 && k >= 10 {
                path[3].latency += 640;
                up = up.or((k == 10).then_some("latency"));
            }
            // Flow 6 leaves switch 1 by its own port, whose utilisation rises at round 15.
            if f == 6 {
                path[0].port = 9;
                if k >= 15 {
                    path[0].util += 640;
                    up = up.or((k == 15).then_some("shared"));
                }
            }
            // Flow 2 moves from switch 5 to switch 50 at round 20.
            if f == 2 && k >= 20 {
                path[4].switch = 50;
                up = up.or((k == 20).then_some("path"));
            }
            // Switch 3's queue fills up at round 30: the first report that shows it comes
            // up, the others find the new interval in the kernel's queue map.
            if k >= 30 {
                path[2].occupancy += 640;
                up = up.or((k == 30 && f == 0).then_some("shared"));
            }
            // Flow 3 reports another MaxHopCnt in round 25 (no event, but another header
            // shape) and goes back in round 26.
            let budget = if f == 3 && k == 25 { 9 } else { 8 };
            if f == 3 && (k == 25 || k == 26) && version == ReportVersion::V05 {
                up = up.or(Some("shape"));
            }
            send(&report(version, f, &path, budget, seq), up, &mut seq);
        }
    }
    // A v2.x queue report and garbage: not read by the kernel, both come up.
    let v2 = encode_report(&ReportSpec {
        version: ReportVersion::V2,
        hw_id: 0,
        seq: 1,
        node_id: 9,
        report_ts: 0,
        flags: ReportFlags { congested_queue: true, ..ReportFlags::default() },
        framing: InnerFraming::Ethernet,
        flow: flow(100),
        local_bitmap: 0x1000,
        local: HopMetadata { queue_id: 3, queue_occupancy: 100, ..HopMetadata::default() },
        int: None,
    });
    send(&v2, Some("unsupported"), &mut seq);
    send(b"\x30garbage-not-a-report", Some("unsupported"), &mut seq);
    let reasons: Vec<String> = reasons.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
    println!(
        "{{\"sent\": {seq}, \"ring\": {ring}, \"filtered\": {filtered}, \"passed\": {{{}}}}}",
        reasons.join(", ")
    );
}

fn steady(to: &str, flows: usize, rate: u64, seconds: f64, version: ReportVersion) {
    let sock = UdpSocket::bind("0.0.0.0:0").expect("bind");
    // Eight rounds of every flow: the values repeat after eight.
    let frames: Vec<Vec<u8>> = (0..8).flat_map(|k| (0..flows).map(move |f| (f, k))).map(|(f, k)| report(version, f, &steady_path(f, k), 8, k as u32)).collect();
    let start = Instant::now();
    let total = (rate as f64 * seconds) as u64;
    let mut sent = 0u64;
    let mut errors = 0u64;
    while sent < total {
        // Paced in 1 ms steps.
        let due = ((start.elapsed().as_secs_f64() * rate as f64) as u64).min(total);
        while sent < due {
            if sock.send_to(&frames[(sent as usize) % frames.len()], to).is_err() {
                errors += 1;
            }
            sent += 1;
        }
        std::thread::sleep(Duration::from_micros(1000));
    }
    let secs = start.elapsed().as_secs_f64();
    // The sender's own CPU time (softirq work done on its behalf is not in it when the
    // kernel accounts irq time apart).
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: ru is a valid rusage.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let cpu = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    println!(
        "{{\"sent\": {sent}, \"send_errors\": {errors}, \"seconds\": {secs:.3}, \"rate\": {:.0}, \"cpu_seconds\": {:.3}}}",
        sent as f64 / secs,
        cpu(ru.ru_utime) + cpu(ru.ru_stime)
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: int_send script ADDR:PORT [SETTLE_MS] | int_send steady ADDR:PORT FLOWS RATE SECONDS [0.5|1.0]";
    let num = |i: usize| -> f64 { args.get(i).and_then(|a| a.parse().ok()).unwrap_or_else(|| panic!("{usage}")) };
    match args.get(1).map(String::as_str) {
        Some("script") if args.len() >= 3 => {
            let settle = args.get(3).map(|_| num(3)).unwrap_or(30.0);
            script(&args[2], Duration::from_millis(settle as u64));
        }
        Some("steady") if args.len() >= 6 => {
            let version = match args.get(6).map(String::as_str) {
                None | Some("0.5") => ReportVersion::V05,
                Some("1.0") => ReportVersion::V10,
                Some(_) => panic!("{usage}"),
            };
            steady(&args[2], num(3) as usize, num(4) as u64, num(5), version);
        }
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    }
}
