//! The control endpoint over real HTTP on loopback.

mod common;

use std::sync::Arc;

use arc_swap::ArcSwap;
use planck_collector::control::ControlPlane;
use planck_collector::detect::DetectionSettings;
use planck_collector::forwarding::{CompiledMap, StaticSwitches};
use planck_collector::metrics::Metrics;

fn put(url: &str, body: &str) -> (u16, String) {
    match ureq::put(url)
        .set("Content-Type", "application/json")
        .send_string(body)
    {
        Ok(r) => (r.status(), r.into_string().unwrap()),
        Err(ureq::Error::Status(code, r)) => (code, r.into_string().unwrap()),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn forwarding_and_config_over_http() {
    let statics = StaticSwitches::default();
    let map = Arc::new(ArcSwap::from_pointee(
        CompiledMap::build(None, None, &statics, 2).unwrap(),
    ));
    let settings = Arc::new(DetectionSettings::new(80.0, 5.0, 5.0));
    let metrics = Arc::new(Metrics::new());
    let plane = Arc::new(ControlPlane::new(
        "c1".into(),
        map.clone(),
        statics,
        2,
        settings.clone(),
        metrics,
    ));
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let base = format!("http://{}", server.server_addr().to_ip().unwrap());
    std::thread::spawn(move || plane.serve(server));

    let (code, _) = put(&format!("{base}/v1/forwarding"), common::FORWARDING);
    assert_eq!(code, 204);
    assert_eq!(map.load().generation, Some(3));
    let port = map.load().port_for(0, &common::MAC_H2).unwrap();
    assert_eq!(map.load().ports[port as usize].port, 2);

    let (code, body) = put(&format!("{base}/v1/forwarding"), common::FORWARDING);
    assert_eq!(code, 409);
    assert!(body.contains("\"code\":409"), "{body}");

    let (code, body) = put(&format!("{base}/v1/forwarding"), "{\"version\": 1}");
    assert_eq!(code, 400);
    assert!(body.contains("\"code\":400"), "{body}");
    assert_eq!(map.load().generation, Some(3));

    let (code, _) = put(
        &format!("{base}/v1/config"),
        r#"{"version":1,"congestionThresholdPct":70,"hysteresisPct":10,"flowReportIntervalMs":20}"#,
    );
    assert_eq!(code, 204);
    assert_eq!(settings.threshold_pct(), 70.0);
    assert_eq!(settings.report_interval_ns(), 20_000_000);

    let metrics = ureq::get(&format!("{base}/metrics")).call().unwrap();
    assert!(metrics.content_type().contains("openmetrics"));
    let text = metrics.into_string().unwrap();
    assert!(
        text.contains("planck_collector_forwarding_generation 3"),
        "{text}"
    );
    assert!(text.contains("planck_collector_export_queue_drops_total 0"));
}
