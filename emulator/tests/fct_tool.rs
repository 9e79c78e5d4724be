//! planck-fct over loopback: a server and a client, every flow answered in
//! full and recorded; bad arguments get one line and exit 2.

use std::net::TcpListener;
use std::process::{Child, Command as StdCommand};
use std::time::Duration;

use assert_cmd::Command;
use assert_cmd::cargo::cargo_bin;
use predicates::str::contains;

struct Killed(Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn server(port: u16) -> Killed {
    let child = StdCommand::new(cargo_bin("planck-fct"))
        .args([
            "server",
            "--bind",
            &format!("127.0.0.1:{port}"),
            "--seconds",
            "30",
        ])
        .spawn()
        .unwrap();
    // Wait until it listens.
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Killed(child)
}

#[test]
fn client_records_every_flow_it_fetched() {
    let port = free_port();
    let _s = server(port);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("flows.csv");
    // 0.5 of 1 Gb/s with web-search sizes: about 37 flows/s, so ~37 flows in 1 s.
    Command::cargo_bin("planck-fct")
        .unwrap()
        .args([
            "client",
            "--servers",
            &format!("127.0.0.1:{port}"),
            "--load",
            "0.5",
            "--seconds",
            "1",
            "--drain-seconds",
            "20",
            "--seed",
            "7",
            "--out",
        ])
        .arg(&out)
        .timeout(Duration::from_secs(60))
        .assert()
        .success()
        .stderr(contains("flows:"));
    let mut rdr = csv::Reader::from_path(&out).unwrap();
    let rows: Vec<csv::StringRecord> = rdr.records().map(|r| r.unwrap()).collect();
    assert!(
        (10..=100).contains(&rows.len()),
        "{} flows in 1 s",
        rows.len()
    );
    let mut starts = Vec::new();
    for r in &rows {
        assert_eq!(&r[5], "ok", "flow {} not completed: {:?}", &r[0], r);
        let size: u64 = r[2].parse().unwrap();
        assert!((1..=30_000_000).contains(&size));
        let fct: f64 = r[4].parse().unwrap();
        assert!(fct > 0.0);
        starts.push(r[3].parse::<f64>().unwrap());
    }
    // Arrivals in order and within the second.
    assert!(starts.windows(2).all(|w| w[0] <= w[1]));
    assert!(*starts.last().unwrap() < 1.1e6);
    // Same seed, same flows (sizes and servers): a repeatable workload.
    let out2 = dir.path().join("flows2.csv");
    Command::cargo_bin("planck-fct")
        .unwrap()
        .args([
            "client",
            "--servers",
            &format!("127.0.0.1:{port}"),
            "--load",
            "0.5",
            "--seconds",
            "1",
            "--seed",
            "7",
            "--out",
        ])
        .arg(&out2)
        .timeout(Duration::from_secs(60))
        .assert()
        .success();
    let sizes = |p: &std::path::Path| -> Vec<String> {
        csv::Reader::from_path(p)
            .unwrap()
            .records()
            .map(|r| r.unwrap()[2].to_string())
            .collect()
    };
    assert_eq!(sizes(&out), sizes(&out2));
}

#[test]
fn unreachable_server_is_recorded_as_failed() {
    let port = free_port(); // nothing listens
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("flows.csv");
    Command::cargo_bin("planck-fct")
        .unwrap()
        .args([
            "client",
            "--servers",
            &format!("127.0.0.1:{port}"),
            "--load",
            "0.5",
            "--seconds",
            "0.5",
            "--out",
        ])
        .arg(&out)
        .timeout(Duration::from_secs(60))
        .assert()
        .success();
    let rows: Vec<csv::StringRecord> = csv::Reader::from_path(&out)
        .unwrap()
        .records()
        .map(|r| r.unwrap())
        .collect();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| &r[5] == "connect" && r[4].is_empty()));
}

#[test]
fn bad_load_is_one_line() {
    Command::cargo_bin("planck-fct")
        .unwrap()
        .args([
            "client",
            "--servers",
            "127.0.0.1:1",
            "--load",
            "1.5",
            "--seconds",
            "1",
            "--out",
            "/dev/null",
        ])
        .assert()
        .code(2)
        .stderr(contains("--load must be in (0, 1]"));
}
