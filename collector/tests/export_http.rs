//! Pipeline -> exporter -> HTTP, against a stand-in controller on loopback.

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use common::*;
use planck_collector::decode::MirroredFrameDecoder;
use planck_collector::detect::DetectionSettings;
use planck_collector::export::{Event, ExportConfig, Exporter, FlowId, FlowRate, MacAddr};
use planck_collector::flow::EstimatorKind;
use planck_collector::forwarding::{CompiledMap, ForwardingMapV1, StaticSwitches};
use planck_collector::metrics::Metrics;
use planck_collector::pipeline::{Worker, WorkerConfig};
use serde_json::Value;

#[derive(Default)]
struct Received {
    auth: Vec<Option<String>>,
    batches: Vec<Value>,
}

/// A controller stand-in: records every batch, answers as the contract says.
fn controller(server: tiny_http::Server) -> Arc<Mutex<Received>> {
    let got = Arc::new(Mutex::new(Received::default()));
    let g = got.clone();
    std::thread::spawn(move || {
        for mut req in server.incoming_requests() {
            let mut body = String::new();
            req.as_reader().read_to_string(&mut body).unwrap();
            let auth = req
                .headers()
                .iter()
                .find(|h| h.field.equiv("Authorization"))
                .map(|h| h.value.to_string());
            let v: Value = serde_json::from_str(&body).unwrap();
            let n = v["events"].as_array().unwrap().len();
            {
                let mut g = g.lock().unwrap();
                g.auth.push(auth);
                g.batches.push(v);
            }
            let _ = req.respond(tiny_http::Response::from_string(format!(
                r#"{{"accepted":{n},"unknownDevice":0,"unknownPort":0}}"#
            )));
        }
    });
    got
}

fn export_config(url: String) -> ExportConfig {
    ExportConfig {
        url,
        collector: "c1".into(),
        username: Some("onos".into()),
        password: Some("rocks".into()),
        queue_capacity: 4096,
        max_pending: 100_000,
        timeout: Duration::from_secs(2),
        min_backoff: Duration::from_millis(20),
        max_backoff: Duration::from_millis(200),
    }
}

fn events_of(r: &Received, ty: &str) -> Vec<Value> {
    r.batches
        .iter()
        .flat_map(|b| b["events"].as_array().unwrap().clone())
        .filter(|e| e["type"] == ty)
        .collect()
}

fn wait_for(got: &Arc<Mutex<Received>>, what: impl Fn(&Received) -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if what(&got.lock().unwrap()) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

#[test]
fn congestion_notice_and_flow_rates_reach_the_controller() {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let url = format!(
        "http://{}/onos/planck/v1/telemetry/events",
        server.server_addr().to_ip().unwrap()
    );
    let got = controller(server);

    let metrics = Arc::new(Metrics::new());
    // A report interval far longer than the wait below: the notice must not wait for it.
    let settings = Arc::new(DetectionSettings::new(80.0, 5.0, 60_000.0));
    let (exporter, sink) = Exporter::new(export_config(url), metrics.clone(), settings.clone());
    let export_thread = std::thread::spawn(move || exporter.run());

    let map: ForwardingMapV1 = serde_json::from_str(FORWARDING).unwrap();
    let compiled = CompiledMap::build(None, Some(&map), &StaticSwitches::default(), 1).unwrap();
    let source = Arc::new(ArcSwap::from_pointee(compiled));
    let cfg = WorkerConfig {
        idle_timeout_ns: 50_000_000,
        ..WorkerConfig::default()
    };
    let mut worker = Worker::new(
        cfg,
        MirroredFrameDecoder,
        source,
        settings.clone(),
        Some(sink),
        Some(metrics.clone()),
    );

    // Flow A at 115.84 Mb/s to port 2 (capacity 100 Mb/s): congested.
    let mut rng = Lcg(7);
    // Samples from the recent past, as a capture would deliver them.
    let t0 = planck_collector::export::event::now_ns() - 300_000_000;
    for i in 0..2000u64 {
        let ts = t0 + i * 100_000;
        if rng.one_in(8) || i == 0 {
            let seq = (i as u32).wrapping_mul(1448);
            worker.on_frame(
                ts,
                None,
                None,
                &tcp(
                    MAC_H1,
                    MAC_H2,
                    [10, 0, 0, 1],
                    [10, 0, 0, 2],
                    40000,
                    5201,
                    seq,
                    1,
                    1448,
                    Some(10),
                    128,
                ),
            );
        }
        if i % 10 == 0 {
            worker.tick(ts);
        }
    }
    assert!(
        wait_for(&got, |r| !events_of(r, "PORT_CONGESTION").is_empty()),
        "no congestion notice"
    );
    {
        let r = got.lock().unwrap();
        let n = &events_of(&r, "PORT_CONGESTION")[0];
        assert_eq!(n["state"], "CONGESTED");
        assert_eq!(n["switch"], "of:0000000000000001");
        assert_eq!(n["port"], 2);
        assert_eq!(n["capacityBps"].as_f64().unwrap(), 1e8);
        let load = n["loadBps"].as_f64().unwrap();
        assert!((load - 115.84e6).abs() < 0.01 * 115.84e6, "{n}");
        assert!((n["utilization"].as_f64().unwrap() - load / 1e8).abs() < 1e-9);
        assert!(n["timeUs"].as_u64().unwrap() >= n["sampleUs"].as_u64().unwrap());
        assert_eq!(r.batches[0]["version"], 1);
        assert_eq!(r.batches[0]["collector"], "c1");
        // base64("onos:rocks")
        assert_eq!(r.auth[0].as_deref(), Some("Basic b25vczpyb2Nrcw=="));
    }
    // A minute later (one report interval): the flow's rate is reported, and the flow,
    // idle, expires; its load leaves the port, which clears.
    worker.tick(t0 + 2000 * 100_000 + 60_000_000_000);
    assert!(
        wait_for(&got, |r| events_of(r, "PORT_CONGESTION").len() >= 2),
        "no clear notice"
    );
    // The flow report waits for its interval (a minute of wall clock here) or for the
    // exporter's last delivery at shutdown; notices never take it along.
    drop(worker);
    export_thread.join().unwrap();

    let r = got.lock().unwrap();
    let notices = events_of(&r, "PORT_CONGESTION");
    assert_eq!(notices.len(), 2);
    assert_eq!(notices[1]["state"], "CLEARED");
    assert_eq!(notices[1]["loadBps"].as_f64().unwrap(), 0.0);
    let rates = events_of(&r, "FLOW_RATE");
    let f = &rates[0];
    assert_eq!(f["flow"]["src"], "10.0.0.1");
    assert_eq!(f["flow"]["dport"], 5201);
    assert_eq!(f["port"], 2);
    assert_eq!(f["dstMac"], "02:00:00:00:00:02");
    assert_eq!(f["estimator"], "TCP_SEQ");
    assert!(
        (f["bytesPerSec"].as_f64().unwrap() - 14.48e6).abs() < 0.01 * 14.48e6,
        "{f}"
    );
    assert!(f["samples"].as_u64().unwrap() > 0);
    assert!(f["lastSampleUs"].as_u64().unwrap() >= f["firstSampleUs"].as_u64().unwrap());
    // Batch sequence numbers: 0, 1, 2, ... without gaps (the two lanes share one counter, so
    // they may arrive a little out of order).
    let mut seqs: Vec<u64> = r
        .batches
        .iter()
        .map(|b| b["seq"].as_u64().unwrap())
        .collect();
    seqs.sort_unstable();
    assert_eq!(seqs, (0..seqs.len() as u64).collect::<Vec<_>>());
    assert_eq!(metrics.queue_drops.get(), 0);
    assert_eq!(metrics.notices.get(), 2);
    assert!(
        metrics
            .encode()
            .contains("planck_collector_notice_delivery_seconds_count 2")
    );
}

fn flow_rate(i: u16) -> Event {
    Event::FlowRate(FlowRate {
        flow: FlowId {
            src: "10.0.0.1".parse().unwrap(),
            dst: "10.0.0.2".parse().unwrap(),
            proto: 6,
            sport: i,
            dport: 80,
        },
        switch: Arc::from("of:1"),
        port: 1,
        dst_mac: MacAddr([2, 0, 0, 0, 0, 2]),
        bytes_per_sec: 1.0,
        samples: 1,
        first_sample_us: 1,
        last_sample_us: 2,
        estimator: EstimatorKind::TcpSeq,
        low_confidence: false,
    })
}

#[test]
fn controller_away_bounded_queue_counted_drops_then_retry() {
    // Reserve a port with nothing listening on it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/onos/planck/v1/telemetry/events");
    let metrics = Arc::new(Metrics::new());
    let settings = Arc::new(DetectionSettings::new(80.0, 5.0, 1.0));
    let cfg = ExportConfig {
        queue_capacity: 16,
        max_pending: 32,
        ..export_config(url)
    };
    let (exporter, sink) = Exporter::new(cfg, metrics.clone(), settings);
    let export_thread = std::thread::spawn(move || exporter.run());
    for i in 0..2000u16 {
        sink.send(flow_rate(i));
    }
    // Wait for at least one failed attempt and some backoff.
    let deadline = Instant::now() + Duration::from_secs(5);
    while metrics.export_failures.get() < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(metrics.export_failures.get() >= 2);
    let dropped = metrics.queue_drops.get();
    // At most queue (16) + pending (32) + one batch in flight (32) survive.
    assert!(dropped >= 2000 - 80, "dropped {dropped}");

    // The controller comes up on that port: the held batch goes out with seq 0.
    let server = tiny_http::Server::http(format!("127.0.0.1:{port}")).unwrap();
    let got = controller(server);
    assert!(wait_for(&got, |r| r
        .batches
        .iter()
        .map(|b| b["events"].as_array().unwrap().len() as u64)
        .sum::<u64>()
        == 2000 - dropped));
    drop(sink);
    export_thread.join().unwrap();
    let r = got.lock().unwrap();
    assert_eq!(r.batches[0]["seq"], 0);
    assert_eq!(metrics.events_sent.get(), 2000 - dropped);
}

/// A controller stand-in that cannot stall anyone: TCP_NODELAY and every answer in one
/// write. `on_request` sees each request's body (on the connection's own thread) before it is
/// answered. Returns the endpoint's URL.
fn one_write_server(on_request: impl Fn(&[u8]) + Clone + Send + 'static) -> String {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            stream.set_nodelay(true).unwrap();
            let on_request = on_request.clone();
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
                        let l = line.to_ascii_lowercase();
                        if let Some(v) = l.strip_prefix("content-length:") {
                            len = v.trim().parse().unwrap();
                        }
                    }
                    let mut body = vec![0; len];
                    r.read_exact(&mut body).unwrap();
                    on_request(&body);
                    let answer = r#"{"accepted":1,"unknownDevice":0,"unknownPort":0}"#;
                    let _ = out.write_all(
                        format!(
                            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{answer}",
                            answer.len()
                        )
                        .as_bytes(),
                    );
                }
            });
        }
    });
    format!("http://{addr}/onos/planck/v1/telemetry/events")
}

/// The stand-in above, sending the arrival time of each request on `arrived`.
fn one_write_controller(arrived: std::sync::mpsc::Sender<Instant>) -> String {
    one_write_server(move |_| {
        let _ = arrived.send(Instant::now());
    })
}

fn notice(i: u32) -> Event {
    let now = planck_collector::export::event::now_us();
    Event::PortCongestion(planck_collector::export::PortCongestion {
        switch: Arc::from("of:1"),
        port: i,
        state: planck_collector::export::CongestionState::Congested,
        utilization: 0.9,
        load_bps: 9e8,
        capacity_bps: 1e9,
        sample_us: now,
        time_us: now,
    })
}

#[test]
fn notices_reach_the_controller_without_delayed_ack_stalls() {
    // 50 notices one after the other on one kept-alive connection: each must arrive in far
    // less than the 40 ms a delayed ACK would add (the request's headers and body leave in
    // separate writes; without TCP_NODELAY the body would wait for the server's ACK), and
    // without waiting for the flow report interval (a minute here).
    let (tx, rx) = std::sync::mpsc::channel();
    let url = one_write_controller(tx);
    let metrics = Arc::new(Metrics::new());
    let settings = Arc::new(DetectionSettings::new(80.0, 5.0, 60_000.0));
    let (exporter, sink) = Exporter::new(export_config(url), metrics, settings);
    let export_thread = std::thread::spawn(move || exporter.run());
    let mut ms = Vec::new();
    for i in 0..51 {
        let t = Instant::now();
        assert!(sink.send(notice(i)));
        let at = rx
            .recv_timeout(Duration::from_secs(5))
            .expect("notice delivered");
        if i > 0 {
            // The first one also opens the connection.
            ms.push(at.duration_since(t).as_secs_f64() * 1e3);
        }
    }
    drop(sink);
    export_thread.join().unwrap();
    ms.sort_by(f64::total_cmp);
    let median = ms[ms.len() / 2];
    assert!(median < 25.0, "median notice delivery {median:.2} ms: a delayed-ACK stall (~40 ms)");
}

/// A controller stand-in that holds its answer to a batch of flow rates until a congestion
/// notice has arrived (or 10 s have passed). `held` gets, per held batch, whether the notice
/// came while the answer was held.
fn holding_controller(held: std::sync::mpsc::Sender<bool>) -> String {
    let (notice_tx, notice_rx) = std::sync::mpsc::channel::<()>();
    let notice_rx = Arc::new(Mutex::new(notice_rx));
    one_write_server(move |body| {
        let v: Value = serde_json::from_slice(body).unwrap();
        let kinds: Vec<&str> = v["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["type"].as_str().unwrap())
            .collect();
        if kinds.contains(&"PORT_CONGESTION") {
            let _ = notice_tx.send(());
        } else if kinds.contains(&"FLOW_RATE") {
            let came = notice_rx
                .lock()
                .unwrap()
                .recv_timeout(Duration::from_secs(10))
                .is_ok();
            let _ = held.send(came);
        }
    })
}

#[test]
fn a_notice_does_not_wait_for_the_report_batch_on_its_way() {
    // The controller holds its answer to a report batch until a notice arrives. With one
    // connection the notice would only leave after that answer (10 s later, and the test
    // would see `false`); on its own lane it arrives while the report is held.
    let (tx, rx) = std::sync::mpsc::channel();
    let url = holding_controller(tx);
    let metrics = Arc::new(Metrics::new());
    // Flow reports every millisecond: the rate below leaves at once.
    let settings = Arc::new(DetectionSettings::new(80.0, 5.0, 1.0));
    let cfg = ExportConfig {
        timeout: Duration::from_secs(20),
        ..export_config(url)
    };
    let (exporter, sink) = Exporter::new(cfg, metrics.clone(), settings);
    let export_thread = std::thread::spawn(move || exporter.run());
    assert!(sink.send(flow_rate(1)));
    // Give the report time to be on its way before the notice is detected.
    std::thread::sleep(Duration::from_millis(200));
    assert!(sink.send(notice(7)));
    let came_while_held = rx
        .recv_timeout(Duration::from_secs(15))
        .expect("the report batch reached the controller");
    assert!(
        came_while_held,
        "the notice waited for the answer to the report batch"
    );
    drop(sink);
    export_thread.join().unwrap();
    assert_eq!(metrics.events_sent.get(), 2);
    assert_eq!(metrics.batches_sent.get(), 2);
    assert_eq!(metrics.queue_drops.get(), 0);
}

#[test]
fn a_finished_report_round_leaves_without_waiting_for_the_batching_interval() {
    // A worker's report round already waited for the report interval; the lane must not hold
    // it for another one. With a 5 s interval the batch would arrive after 5 s; the end of the
    // round sends both events, in one batch, at once.
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let url = format!("http://{}/onos/planck/v1/telemetry/events", server.server_addr());
    let got = controller(server);
    let metrics = Arc::new(Metrics::new());
    let settings = Arc::new(DetectionSettings::new(80.0, 5.0, 5000.0));
    let (exporter, sink) = Exporter::new(export_config(url), metrics.clone(), settings);
    let export_thread = std::thread::spawn(move || exporter.run());
    // Events without the mark wait for the interval.
    assert!(sink.send(flow_rate(1)));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(got.lock().unwrap().batches.len(), 0, "sent before its round ended");
    assert!(sink.send(flow_rate(2)));
    let marked = Instant::now();
    sink.end_of_report();
    assert!(wait_for(&got, |r| !r.batches.is_empty()));
    assert!(
        marked.elapsed() < Duration::from_millis(2500),
        "the round waited {:?}, as for the 5 s interval",
        marked.elapsed()
    );
    {
        let g = got.lock().unwrap();
        assert_eq!(g.batches.len(), 1);
        assert_eq!(g.batches[0]["events"].as_array().unwrap().len(), 2);
    }
    // A mark with nothing pending does not hurry the next round's first event.
    sink.end_of_report();
    std::thread::sleep(Duration::from_millis(50));
    assert!(sink.send(flow_rate(3)));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(got.lock().unwrap().batches.len(), 1, "the next round's first event left alone");
    drop(sink);
    export_thread.join().unwrap();
    assert_eq!(metrics.events_sent.get(), 3);
    assert_eq!(metrics.queue_drops.get(), 0);
}
