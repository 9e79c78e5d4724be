//! End-to-end: frames as PINT switches leave them (path digest and latency code in the
//! IPv4 ID, TTL counting the hops) -> pcap -> `planck-collector pint-replay` -> the
//! telemetry-events v3 JSON lines: the traced path of each flow, once, and hop latencies.

mod common;

use std::net::Ipv4Addr;
use std::sync::Arc;

use assert_cmd::Command;
use common::{Captured, T0, write_pcap};
use etherparse::PacketBuilder;
use planck_collector::decode::pint::packet_id;
use pint::compress::ValueCodec;
use pint::latency::{LatencyConfig, LatencyEncoder};
use pint::path::{PathEncoder, PathScheme, PathTracingConfig};
use serde_json::Value;

const SEED: u64 = 77;

/// `n` TCP segments of one flow over `path`, hop h adding `lat_ns(h)` of latency.
fn flow_frames(sport: u16, path: &[u32], n: u32, t0: u64, lat_ns: impl Fn(u32) -> f64) -> Vec<Captured> {
    let scheme = Arc::new(PathScheme::new(PathTracingConfig::hybrid(8, 5, SEED)).unwrap());
    let enc: Vec<PathEncoder> = path.iter().map(|&s| PathEncoder::new(scheme.clone(), s)).collect();
    let lat = LatencyEncoder::new(LatencyConfig {
        codec: ValueCodec::multiplicative(8, 100.0, 1_000_000.0).unwrap(),
        seed: SEED,
    });
    let (src, dst) = ([10, 0, 0, 1], [10, 0, 0, 2]);
    (0..n)
        .map(|i| {
            let seq = 1000 + i * 1448;
            let pid = packet_id(SEED, Ipv4Addr::from(src), Ipv4Addr::from(dst), 6, sport, 5201, u64::from(seq));
            let mut id = 0u64;
            let mut code = 0u64;
            for (h, e) in enc.iter().enumerate() {
                let hop = h as u32 + 1;
                id = e.encode(id, pid, hop);
                code = lat.encode(code, pid, hop, lat_ns(hop));
            }
            let mut ip = etherparse::Ipv4Header::new(0, 64 - path.len() as u8, etherparse::IpNumber::TCP, src, dst).unwrap();
            ip.identification = (id | (code << 8)) as u16;
            ip.dont_fragment = true;
            let b = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
                .ip(etherparse::IpHeaders::Ipv4(ip, Default::default()))
                .tcp(sport, 5201, seq, 65535);
            let mut frame = Vec::new();
            b.write(&mut frame, &[0u8; 100]).unwrap();
            Captured { ts_ns: t0 + u64::from(i) * 10_000, frame }
        })
        .collect()
}

fn run(pcap: &std::path::Path, extra: &[&str]) -> (Vec<Value>, Value) {
    let out = Command::cargo_bin("planck-collector")
        .unwrap()
        .args(["pint-replay", "--seed", "77", "--switches", "1..20", "--pcap"])
        .arg(pcap)
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let events = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let report = serde_json::from_str(String::from_utf8(out.stderr).unwrap().trim()).unwrap();
    (events, report)
}

#[test]
fn traced_paths_and_hop_latencies_come_out_as_v3_events() {
    let dir = tempfile::tempdir().unwrap();
    let pcap = dir.path().join("pint.pcap");
    let mut frames = flow_frames(40000, &[3, 7, 11, 2, 5], 3000, T0, |h| 2000.0 * f64::from(h));
    frames.extend(flow_frames(40001, &[4, 9, 6], 3000, T0 + 5, |_| 700.0));
    frames.sort_by_key(|c| c.ts_ns);
    // Noise: not IPv4, counted and skipped.
    frames.push(Captured { ts_ns: T0 + 1, frame: vec![0xff; 60] });
    write_pcap(&pcap, &frames);
    let (events, report) = run(&pcap, &["--device-map", "3=of:0000000000000003"]);
    let paths: Vec<&Value> = events.iter().filter(|e| e["type"] == "PINT_PATH").collect();
    assert_eq!(paths.len(), 2, "{paths:?}");
    let a = paths.iter().find(|e| e["flow"]["sport"] == 40000).unwrap();
    assert_eq!(a["path"], serde_json::json!(["of:0000000000000003", "pint:7", "pint:11", "pint:2", "pint:5"]));
    assert_eq!(a["cause"], "NEW_KEY");
    assert_eq!(a["flow"]["src"], "10.0.0.1");
    let b = paths.iter().find(|e| e["flow"]["sport"] == 40001).unwrap();
    assert_eq!(b["path"], serde_json::json!(["pint:4", "pint:9", "pint:6"]));
    // Hop 4 of flow A: 8 us median, within the 8-bit codec's step and the sketch's error.
    let hop4: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "PINT_HOP_LATENCY" && e["flow"]["sport"] == 40000 && e["hop"] == 4)
        .collect();
    let last = hop4.last().expect("hop 4 latency events");
    let p50 = last["p50Ns"].as_f64().unwrap();
    assert!((p50 / 8000.0 - 1.0).abs() < 0.05, "{last}");
    assert_eq!(last["switch"], "pint:2");
    assert_eq!(report["frames"], 6001);
    assert_eq!(report["notPint"], 1);
    assert_eq!(report["pathsDecoded"], 2);
}

#[test]
fn bad_arguments_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let pcap = dir.path().join("empty.pcap");
    write_pcap(&pcap, &[]);
    for (args, msg) in [
        (vec!["--path-bits", "12"], "at most 16"),
        (vec!["--links", "1:2"], "not A-B"),
        (vec!["--device-map", "x=of:1"], "not a switch id"),
    ] {
        let out = Command::cargo_bin("planck-collector")
            .unwrap()
            .args(["pint-replay", "--switches", "1..20", "--pcap"])
            .arg(&pcap)
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(msg) && err.lines().count() == 1, "{args:?}: {err}");
    }
}
