//! End-to-end: synthetic mirrored traffic -> pcap/pcapng -> `planck-collector replay`.

mod common;

use assert_cmd::Command;
use common::*;
use serde_json::Value;

fn run_replay(file: &std::path::Path, extra: &[&str]) -> (Vec<Value>, Value) {
    let out = Command::cargo_bin("planck-collector")
        .unwrap()
        .arg("replay")
        .arg("--pcap")
        .arg(file)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let flows = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let report = serde_json::from_str(String::from_utf8(out.stderr).unwrap().trim()).unwrap();
    (flows, report)
}

fn find<'a>(flows: &'a [Value], src: &str, dst: &str, sport: u64, dport: u64) -> &'a Value {
    flows
        .iter()
        .find(|f| f["src"] == src && f["dst"] == dst && f["sport"] == sport && f["dport"] == dport)
        .unwrap_or_else(|| panic!("no flow {src}:{sport} -> {dst}:{dport} in {flows:#?}"))
}

fn within(got: f64, want: f64, tol: f64) -> bool {
    (got - want).abs() <= want * tol
}

fn check_scenario(flows: &[Value], report: &Value, with_map: bool) {
    let a = find(flows, "10.0.0.1", "10.0.0.2", 40000, 5201);
    // 1448 bytes / 100 µs = 115.84 Mb/s, estimated exactly from sequence numbers although
    // only ~1 in 8 segments was sampled and the sequence space wrapped.
    assert_eq!(a["estimator"], "TCP_SEQ");
    assert!(
        within(a["bps"].as_f64().unwrap(), 115.84e6, 0.001),
        "flow A: {a}"
    );
    assert_eq!(a["proto"], 6);
    assert!(
        a["samples"].as_u64().unwrap() > 500 && a["samples"].as_u64().unwrap() < 900,
        "{a}"
    );

    let b = find(flows, "10.0.0.3", "10.0.0.4", 5201, 40001);
    assert_eq!(b["estimator"], "TCP_ACK");
    assert!(
        within(b["bps"].as_f64().unwrap(), 23.168e6, 0.01),
        "flow B: {b}"
    );

    let c = find(flows, "10.0.0.1", "10.0.0.4", 9000, 9001);
    assert_eq!(c["estimator"], "SAMPLED_BYTES");
    assert_eq!(c["proto"], 17);
    // 1000 B / 400 µs = 20 Mb/s: sampled bytes x the ratio measured on flow A. A random
    // 1-in-8 sample gives a rough answer only.
    assert!(
        within(c["bps"].as_f64().unwrap(), 20e6, 0.15),
        "flow C: {c}"
    );

    assert_eq!(report["decode_errors"], 5, "{report}");
    assert_eq!(report["non_ip"], 5, "{report}");
    assert_eq!(report["unknown_vlan"], 5, "{report}");
    assert_eq!(flows.len(), 3, "{flows:#?}");
    if with_map {
        assert_eq!(a["port"], 2);
        assert_eq!(a["switch"], "of:0000000000000001");
        assert_eq!(a["dstMac"], "02:00:00:00:00:02");
        assert_eq!(b["port"], 4);
        assert_eq!(c["port"], 4);
        assert_eq!(report["unmapped_samples"], 0);
    } else {
        assert_eq!(a["port"], Value::Null);
        assert_eq!(a["switch"], "of:0000000000000001");
    }
}

#[test]
fn replay_pcap_with_vlan_map() {
    let dir = tempfile::tempdir().unwrap();
    let pcap = dir.path().join("mirror.pcap");
    write_pcap(&pcap, &scenario());
    let (flows, report) = run_replay(&pcap, &["--vlan-map", "10=of:0000000000000001"]);
    check_scenario(&flows, &report, false);
}

#[test]
fn replay_pcapng_with_forwarding_map() {
    let dir = tempfile::tempdir().unwrap();
    let pcap = dir.path().join("mirror.pcapng");
    write_pcapng(&pcap, &scenario());
    let map = dir.path().join("fwd.json");
    std::fs::write(&map, FORWARDING).unwrap();
    let (flows, report) = run_replay(&pcap, &["--forwarding", map.to_str().unwrap()]);
    check_scenario(&flows, &report, true);
}

#[test]
fn untagged_samples_take_the_interface_switch() {
    let dir = tempfile::tempdir().unwrap();
    let pcap = dir.path().join("plain.pcap");
    let frames: Vec<Captured> = (0..100u32)
        .map(|i| Captured {
            ts_ns: T0 + i as u64 * 1_000_000,
            frame: tcp(
                MAC_H1,
                MAC_H2,
                [10, 0, 0, 1],
                [10, 0, 0, 2],
                1,
                2,
                i * 1000,
                0,
                1000,
                None,
                1054,
            ),
        })
        .collect();
    write_pcap(&pcap, &frames);
    let (flows, _) = run_replay(&pcap, &["--switch", "of:00000000000000ff"]);
    assert_eq!(flows.len(), 1);
    assert_eq!(flows[0]["switch"], "of:00000000000000ff");
    assert!(
        within(flows[0]["bps"].as_f64().unwrap(), 8e6, 1e-9),
        "{}",
        flows[0]
    );
    assert_eq!(flows[0]["samples"], 100);
}

#[test]
fn bad_input_exits_nonzero_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let notpcap = dir.path().join("x.pcap");
    std::fs::write(&notpcap, b"this is not a capture file at all").unwrap();
    let cases: Vec<Vec<String>> = vec![
        vec![
            "replay".into(),
            "--pcap".into(),
            dir.path().join("missing.pcap").to_string_lossy().into(),
        ],
        vec![
            "replay".into(),
            "--pcap".into(),
            notpcap.to_string_lossy().into(),
        ],
        vec![
            "replay".into(),
            "--pcap".into(),
            notpcap.to_string_lossy().into(),
            "--vlan-map".into(),
            "5000=of:1".into(),
        ],
        vec![
            "replay".into(),
            "--pcap".into(),
            notpcap.to_string_lossy().into(),
            "--vlan-map".into(),
            "ten".into(),
        ],
        vec![
            "replay".into(),
            "--pcap".into(),
            notpcap.to_string_lossy().into(),
            "--max-window-ms".into(),
            "4001".into(),
        ],
    ];
    for args in cases {
        let out = Command::cargo_bin("planck-collector")
            .unwrap()
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.starts_with("planck-collector: "), "{err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn run_rejects_bad_config_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    std::fs::write(
        &cfg,
        "collector_id = \"c1\"\n[capture]\ninterface = \"lo\"\nworkers = 0\n",
    )
    .unwrap();
    let out = Command::cargo_bin("planck-collector")
        .unwrap()
        .args(["run", "--config"])
        .arg(&cfg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("workers"), "{err}");

    std::fs::write(&cfg, "collector_id = \"c1\"\n[capture]\ninterface = \"lo\"\n[forwarding]\nfile = \"/nonexistent/fwd.json\"\n").unwrap();
    let out = Command::cargo_bin("planck-collector")
        .unwrap()
        .args(["run", "--config"])
        .arg(&cfg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("/nonexistent/fwd.json")
    );
}

#[test]
fn help_explains_every_option() {
    let out = Command::cargo_bin("planck-collector")
        .unwrap()
        .args(["replay", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    for opt in [
        "--pcap",
        "--forwarding",
        "--vlan-map",
        "--switch",
        "--pace",
        "--min-window-us",
        "--max-window-ms",
        "--window-kib",
        "--max-flows",
    ] {
        assert!(help.contains(opt), "{opt} missing from:\n{help}");
    }
    let out = Command::cargo_bin("planck-collector")
        .unwrap()
        .args(["run", "--help"])
        .output()
        .unwrap();
    assert!(String::from_utf8(out.stdout).unwrap().contains("--config"));
}

#[test]
fn recorded_pace_takes_the_recorded_time() {
    let dir = tempfile::tempdir().unwrap();
    let pcap = dir.path().join("slow.pcap");
    // 4 samples 100 ms apart: 300 ms of recording.
    let frames: Vec<Captured> = (0..4u32)
        .map(|i| Captured {
            ts_ns: T0 + i as u64 * 100_000_000,
            frame: tcp(
                MAC_H1,
                MAC_H2,
                [10, 0, 0, 1],
                [10, 0, 0, 2],
                1,
                2,
                i * 1000,
                0,
                1000,
                None,
                1054,
            ),
        })
        .collect();
    write_pcap(&pcap, &frames);
    let start = std::time::Instant::now();
    let (flows, _) = run_replay(&pcap, &["--pace", "recorded"]);
    assert!(start.elapsed() >= std::time::Duration::from_millis(300));
    assert_eq!(flows[0]["samples"], 4);
}

#[test]
fn a_capture_cut_inside_its_last_record_replays_the_rest_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let pcap = dir.path().join("cut.pcap");
    write_pcap(&pcap, &scenario());
    let full = std::fs::read(&pcap).unwrap();
    // tcpdump killed while writing: the last record loses its last 10 bytes.
    std::fs::write(&pcap, &full[..full.len() - 10]).unwrap();
    let out = Command::cargo_bin("planck-collector")
        .unwrap()
        .args(["replay", "--vlan-map", "10=of:0000000000000001", "--pcap"])
        .arg(&pcap)
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{err}");
    let mut lines = err.lines();
    let warning = lines.next().unwrap();
    assert!(
        warning.contains("warning") && warning.contains("bytes ignored"),
        "{err}"
    );
    let report: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let (_, whole) = run_replay(
        &full_copy(&dir, &full),
        &["--vlan-map", "10=of:0000000000000001"],
    );
    assert_eq!(report["frames"], whole["frames"].as_u64().unwrap() - 1);
    assert!(report["truncated_tail_bytes"].as_u64().unwrap() > 0);
    assert_eq!(whole["truncated_tail_bytes"], 0);
    let flows: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(flows.len(), 3);
}

fn full_copy(dir: &tempfile::TempDir, bytes: &[u8]) -> std::path::PathBuf {
    let p = dir.path().join("whole.pcap");
    std::fs::write(&p, bytes).unwrap();
    p
}
