//! INT port signals reach the controller as telemetry-events-v2 INT_PORT events, batched,
//! with INT switch ids mapped to device ids (unmapped switches counted, not sent).

mod int_encoder;

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use int_encoder::*;
use planck_collector::decode::FiveTuple;
use planck_collector::decode::int::{HopMetadata, IntDecoder, IntDecoderConfig, ReportBuf, ReportFlags, ReportVersion};
use planck_collector::export::int_signals::{ControllerCounters, SignalSender};
use planck_collector::inband::config::ControllerSection;
use planck_collector::inband::{IntState, StateConfig};
use serde_json::Value;

#[test]
fn port_signals_are_posted_as_v2_batches() {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let addr = server.server_addr().to_ip().unwrap();
    let mut switches = BTreeMap::new();
    switches.insert("2".to_string(), "of:0000000000000002".to_string());
    let cfg = ControllerSection {
        url: format!("http://{addr}/onos/planck/v1/telemetry/events"),
        collector_id: "c1".into(),
        username: Some("onos".into()),
        password: Some("rocks".into()),
        switches,
        queue_capacity: 1024,
        batch_events: 1000,
        flush_ms: 20,
        timeout_ms: 2000,
        min_backoff_ms: 10,
        max_backoff_ms: 100,
        max_attempts: 3,
    };
    let counters = ControllerCounters::default();
    let (sender, sink) = SignalSender::new(cfg, counters.clone()).unwrap();
    let t = std::thread::spawn(move || sender.run());

    // One report over switches 1 and 2 (only 2 is mapped): 2 hops x (queue, hop latency,
    // link) signals, of which switch 2's three go out.
    let flow = FiveTuple { src: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)), dst: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)), proto: 6, sport: 1, dport: 2 };
    let hop = |sw: u32, port: u16, lat: u32, occ: u32| HopMetadata {
        switch_id: sw, ingress_port: 1, egress_port: port, hop_latency: lat, queue_id: 0, queue_occupancy: occ,
        tx_utilization: 700, ..HopMetadata::default()
    };
    let payload = encode_report(&ReportSpec {
        version: ReportVersion::V10,
        hw_id: 0,
        seq: 1,
        node_id: 2,
        report_ts: 0,
        flags: ReportFlags::default(),
        framing: InnerFraming::Ip,
        flow,
        local_bitmap: 0,
        local: HopMetadata::default(),
        // switch id, ports, hop latency, queue occupancy, egress ts, tx utilisation
        int: Some(IntStack { bitmap: 0xf500, hop_budget: 6, hops: vec![HopMetadata { egress_ts: 1_763_718_000_220_001_000, ..hop(2, 4, 260, 900) }, hop(1, 3, 100, 5)], original_dscp: 0 }),
    });
    let d = IntDecoder::new(&IntDecoderConfig::default()).unwrap();
    let mut buf = ReportBuf::default();
    d.decode_payload(&payload, &mut buf).unwrap();
    let mut state = IntState::new(StateConfig::default());
    state.apply(&buf.reports()[0], 5, &mut |e| sink.send(&e));
    drop(sink);

    let mut req = server.recv_timeout(Duration::from_secs(10)).unwrap().expect("a batch");
    assert_eq!(req.url(), "/onos/planck/v1/telemetry/events");
    let auth = req.headers().iter().find(|h| h.field.equiv("Authorization")).map(|h| h.value.to_string());
    assert_eq!(auth.as_deref(), Some("Basic b25vczpyb2Nrcw=="));
    let mut body = String::new();
    req.as_reader().read_to_string(&mut body).unwrap();
    req.respond(tiny_http::Response::from_string("{\"accepted\":3}")).unwrap();
    t.join().unwrap();

    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["version"], 2);
    assert_eq!(v["collector"], "c1");
    let mut got: Vec<(String, u64, u64, Option<u64>, String, u64)> = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            assert_eq!(e["type"], "INT_PORT");
            assert_eq!(e["switch"], "of:0000000000000002");
            (
                e["signal"].as_str().unwrap().to_string(),
                e["port"].as_u64().unwrap(),
                e["value"].as_u64().unwrap(),
                e.get("queue").and_then(Value::as_u64),
                e["cause"].as_str().unwrap().to_string(),
                e["reportUs"].as_u64().unwrap(),
            )
        })
        .collect();
    got.sort();
    let ts = 1_763_718_000_220_001;
    assert_eq!(got, vec![
        ("HOP_LATENCY".into(), 4, 260, None, "NEW_KEY".into(), ts),
        ("LINK_UTILIZATION".into(), 4, 700, None, "NEW_KEY".into(), ts),
        ("QUEUE_OCCUPANCY".into(), 4, 900, Some(0), "NEW_KEY".into(), ts),
    ]);
    assert_eq!(counters.unmapped.get(), 3, "switch 1's three signals");
    assert_eq!((counters.events_sent.get(), counters.batches_sent.get()), (3, 1));
}

