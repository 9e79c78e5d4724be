//! The command line: bad configs fail with one line, runs write their outputs.

use assert_cmd::Command;
use predicates::prelude::*;

fn emu() -> Command {
    Command::cargo_bin("planck-emu").unwrap()
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Runs with `config` and checks for a non-zero exit and a single stderr line containing `needle`.
fn rejects(config: &str, name: &str, needle: &str) {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), name, config);
    let out = emu()
        .args(["run", "--config"])
        .arg(&p)
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert!(!out.status.success(), "accepted: {config}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
    assert!(err.contains(needle), "{err} lacks {needle}");
    assert!(out.stdout.is_empty());
    // A rejected config writes nothing.
    assert!(!dir.path().join("out").exists());
}

#[test]
fn bad_configs_exit_nonzero_with_one_line() {
    rejects(
        "[topology]\nkind = \"rack\"\nhosts_per_rack = 1\n",
        "a.toml",
        "at least 2 endpoints",
    );
    rejects(
        "[topology]\nkind = \"ring\"\n",
        "b.toml",
        "unknown variant `ring`",
    );
    rejects(
        "[topology]\nkind = \"rack\"\nhosts_per_rack = 4\n[scheme]\nkind = \"red\"\nmin_th = 30\nmax_th = 10\n",
        "c.toml",
        "min_th < max_th",
    );
    rejects(
        "[topology]\nkind = \"rack\"\nhosts_per_rack = 4\n[scheme]\nkind = \"red\"\nmin_th = 10\nmax_th = 30\nvariant = \"gentle\"\n",
        "c1.toml",
        "unknown variant `gentle`, expected `floyd` or `fixed`",
    );
    rejects(
        "[topology]\nkind = \"rack\"\nhosts_per_rack = 4\n[transport]\nrcv_wnd_pkts = 5000\n",
        "c2.toml",
        "rcv_wnd_pkts must be in 1..=4096",
    );
    rejects(
        "[topology]\nkind = \"fat_tree\"\nk = 3\n",
        "d.toml",
        "k must be even",
    );
    rejects(
        "[topology]\nkind = \"rack\"\nhosts_per_rack = 4\n[[workload]]\nkind = \"flows\"\nflows = [{ src = 0, dst = 9, bytes = 10 }]\n",
        "e.toml",
        "endpoint 9 out of range",
    );
    rejects(
        "[topology]\nkind = \"rack\"\nhosts_per_rack = 4\nbogus = 1\n",
        "f.toml",
        "bogus",
    );
    rejects(
        "{\"topology\": {\"kind\": \"rack\", \"hosts_per_rack\": 4}, \"emulation\": {\"threads\": 0}}",
        "g.json",
        "threads must be in 1..=256",
    );
    rejects(
        "[topology]\nkind = \"custom\"\nfile = \"missing.json\"\n",
        "h.toml",
        "cannot read topology file",
    );
    rejects(
        "[topology]\nkind = \"rack\"\nhosts_per_rack = 4\n[scheme]\nkind = \"priority\"\nqueues = 65\n",
        "i.toml",
        "queues must be in 1..=64",
    );
    rejects("[topology\n", "j.toml", "config");
    rejects(
        "[topology]\nkind = \"rack\"\nhosts_per_rack = 4\n[transport]\nack_path = \"in_band\"\nack_bytes = 20\n",
        "k.toml",
        "transport.ack_bytes must be in 40..=1500",
    );
    rejects(
        "[topology]\nkind = \"rack\"\nhosts_per_rack = 4\n[transport]\nkind = \"hpcc\"\nack_path = \"in_band\"\n",
        "l.toml",
        "ack_path = \"in_band\" prices frames by length, which PINT and HPCC do not model",
    );
    rejects(
        "[topology]\nkind = \"rack\"\nhosts_per_rack = 4\n[transport]\nack_path = \"sideways\"\n",
        "m.toml",
        "unknown variant `sideways`, expected `out_of_band` or `in_band`",
    );
}

#[test]
fn missing_config_file_is_one_line() {
    emu()
        .args(["run", "--config", "/nonexistent/x.toml"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("cannot read config"));
}

#[test]
fn run_writes_csv_and_json_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(
        dir.path(),
        "exp.toml",
        r#"
        [emulation]
        duration_us = 5000
        [topology]
        kind = "rack"
        hosts_per_rack = 4
        [scheme]
        kind = "dctcp"
        k = 10
        [transport]
        kind = "dctcp"
        [output]
        queue_samples = true
        [[workload]]
        kind = "stride"
        k = 1
        flow_bytes = 100000
        "#,
    );
    let out = emu()
        .args(["run", "--config"])
        .arg(&cfg)
        .arg("--out")
        .arg(dir.path().join("csv"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["flows_completed"], 4);
    let flows = std::fs::read_to_string(dir.path().join("csv/flows.csv")).unwrap();
    assert!(flows.starts_with("id,src,dst,size_pkts,size_bytes,class,start_us,finish_us,fct_us,ideal_fct_us,normalized_fct"));
    assert_eq!(flows.lines().count(), 5);
    for f in ["ports.csv", "queues.csv", "streams.csv", "summary.json"] {
        assert!(dir.path().join("csv").join(f).exists(), "{f}");
    }
    emu()
        .args(["run", "--format", "json", "--config"])
        .arg(&cfg)
        .arg("--out")
        .arg(dir.path().join("json"))
        .assert()
        .success();
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("json/report.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(report["flows"].as_array().unwrap().len(), 4);
    assert!(report["queue_series"].as_array().unwrap().len() > 10);
}

/// `output.trace_flows`: flow_trace.csv holds the named flow's sender
/// events only, as many as the summary counts, and tracing changes nothing
/// else; more than 64 flows is a one-line error.
#[test]
fn traced_flows_get_their_sender_events() {
    let dir = tempfile::tempdir().unwrap();
    // Two flows into one DropTail port of 8 packets: both lose and recover.
    let base = r#"
        [emulation]
        duration_us = 20000
        [topology]
        kind = "rack"
        hosts_per_rack = 3
        host_link = { gbps = 10.0, buffer_pkts = 8, latency_slots = 2 }
        [[workload]]
        kind = "flows"
        flows = [ { src = 0, dst = 2, bytes = 2000000, start_us = 0 },
                  { src = 1, dst = 2, bytes = 2000000, start_us = 0 } ]
        "#;
    let plain = write(dir.path(), "plain.toml", base);
    let traced = write(
        dir.path(),
        "traced.toml",
        &format!(
            "{base}
[output]
trace_flows = [1]
"
        ),
    );
    for (cfg, out) in [(&plain, "plain"), (&traced, "traced")] {
        emu()
            .args(["run", "--config"])
            .arg(cfg)
            .arg("--out")
            .arg(dir.path().join(out))
            .assert()
            .success();
    }
    let read = |p: &str| std::fs::read_to_string(dir.path().join(p)).unwrap();
    assert_eq!(read("plain/flows.csv"), read("traced/flows.csv"));
    assert!(!dir.path().join("plain/flow_trace.csv").exists());
    let trace = read("traced/flow_trace.csv");
    let rows: Vec<&str> = trace.lines().skip(1).collect();
    assert!(
        trace.starts_with(
            "time_us,slot,flow,event,seq,acked,high_seq,cwnd,ssthresh,pipe,in_recovery"
        )
    );
    assert!(
        rows.iter().all(|r| r.split(',').nth(2) == Some("1")),
        "only flow 1"
    );
    assert!(
        rows.iter().any(|r| r.contains(",rtx,")),
        "its retransmissions"
    );
    assert!(
        rows.last().unwrap().contains(",done,"),
        "ends with its last ACK"
    );
    let summary: serde_json::Value = serde_json::from_str(&read("traced/summary.json")).unwrap();
    assert_eq!(summary["trace_events"], rows.len());
    assert_eq!(summary["trace_events_dropped"], 0);
    let many: Vec<String> = (0..65).map(|i| i.to_string()).collect();
    rejects(
        &format!("{base}\n[output]\ntrace_flows = [{}]\n", many.join(", ")),
        "many.toml",
        "output.trace_flows: at most 64 flows, got 65",
    );
}

#[test]
fn stress_prints_one_json_object() {
    let out = emu()
        .args([
            "stress",
            "--topology",
            "rack:8",
            "--scheme",
            "droptail",
            "--seconds",
            "0.5",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for k in [
        "max_pkts_per_sec",
        "gbps_equivalent",
        "threads",
        "pkts_per_sec_per_thread",
    ] {
        assert!(v.get(k).is_some(), "missing {k}: {v}");
    }
    assert_eq!(v["threads"], 1);
    assert!(!v["levels"].as_array().unwrap().is_empty());
}

#[test]
fn stress_rejects_bad_arguments() {
    emu()
        .args(["stress", "--topology", "ring:3"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("bad topology"));
    emu()
        .args(["stress", "--scheme", "fifo"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("unknown scheme"));
}

#[test]
fn shipped_example_configs_run() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if name == "dumbbell.json" {
            continue;
        }
        let mut cfg =
            planck_emu::config::Config::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        cfg.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        // A short slice of each keeps the suite fast; it still exercises the whole path.
        cfg.emulation.duration_us = cfg.emulation.duration_us.min(20_000.0);
        cfg.output.dir = None;
        let r = planck_emu::experiment::run_config(&cfg).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(r.summary.router_packets > 0, "{name} moved no packets");
        seen += 1;
    }
    assert_eq!(seen, 7);
}
