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

fn put_with(url: &str, auth: Option<&str>, body: &str) -> (u16, String, Option<String>) {
    let mut req = ureq::put(url).set("Content-Type", "application/json");
    if let Some(a) = auth {
        req = req.set("Authorization", a);
    }
    match req.send_string(body) {
        Ok(r) => (r.status(), String::new(), None),
        Err(ureq::Error::Status(code, r)) => {
            let www = r.header("WWW-Authenticate").map(str::to_owned);
            (code, r.into_string().unwrap(), www)
        }
        Err(e) => panic!("{e}"),
    }
}

fn get_with(url: &str, auth: Option<&str>) -> u16 {
    let mut req = ureq::get(url);
    if let Some(a) = auth {
        req = req.set("Authorization", a);
    }
    match req.call() {
        Ok(r) => r.status(),
        Err(ureq::Error::Status(code, _)) => code,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn writes_need_the_configured_credentials() {
    use planck_collector::control::{ControlCredentials, bind_listener, server};
    let statics = StaticSwitches::default();
    let map = Arc::new(ArcSwap::from_pointee(
        CompiledMap::build(None, None, &statics, 1).unwrap(),
    ));
    let settings = Arc::new(DetectionSettings::new(80.0, 5.0, 5.0));
    let metrics = Arc::new(Metrics::new());
    let plane = Arc::new(
        ControlPlane::new(
            "c1".into(),
            map.clone(),
            statics,
            1,
            settings.clone(),
            metrics.clone(),
        )
        .with_credentials(Some(ControlCredentials::new("planck", "s3cret"))),
    );
    let listener = bind_listener("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || plane.serve(server(listener).unwrap()));

    // planck:s3cret, planck:wrong, other:s3cret
    let good = "Basic cGxhbmNrOnMzY3JldA==";
    let refused = [
        None,
        Some("Basic cGxhbmNrOndyb25n"),
        Some("Basic b3RoZXI6czNjcmV0"),
        Some("Bearer s3cret"),
        Some("Basic !!!not-base64"),
        Some("Basic"),
    ];
    let config =
        r#"{"version":1,"congestionThresholdPct":70,"hysteresisPct":10,"flowReportIntervalMs":20}"#;
    for (i, auth) in refused.iter().enumerate() {
        let (code, body, www) =
            put_with(&format!("{base}/v1/forwarding"), *auth, common::FORWARDING);
        assert_eq!(code, 401, "{auth:?}");
        assert!(body.contains("\"code\":401"), "{body}");
        assert_eq!(www.as_deref(), Some("Basic realm=\"planck-collector\""));
        let (code, _, _) = put_with(&format!("{base}/v1/config"), *auth, config);
        assert_eq!(code, 401);
        assert_eq!(get_with(&format!("{base}/v1/config"), *auth), 401);
        // Nothing changed.
        assert_eq!(map.load().generation, None);
        assert_eq!(settings.threshold_pct(), 80.0);
        assert_eq!(metrics.control_unauthorized.get(), 3 * (i as u64 + 1));
    }
    let text = ureq::get(&format!("{base}/metrics"))
        .call()
        .unwrap()
        .into_string()
        .unwrap();
    assert!(
        text.contains(&format!(
            "planck_collector_control_unauthorized_total {}",
            3 * refused.len()
        )),
        "{text}"
    );

    let (code, _, _) = put_with(
        &format!("{base}/v1/forwarding"),
        Some(good),
        common::FORWARDING,
    );
    assert_eq!(code, 204);
    assert_eq!(map.load().generation, Some(3));
    let (code, _, _) = put_with(&format!("{base}/v1/config"), Some(good), config);
    assert_eq!(code, 204);
    assert_eq!(settings.threshold_pct(), 70.0);
    assert_eq!(get_with(&format!("{base}/v1/forwarding"), Some(good)), 200);
    assert_eq!(metrics.control_unauthorized.get(), 3 * refused.len() as u64);
}

#[test]
fn control_sockets_have_nodelay() {
    use planck_collector::control::{bind_listener, nodelay};
    let listener = bind_listener("127.0.0.1:0").unwrap();
    assert!(nodelay(&listener).unwrap());
    // What tiny_http accepts from this listener: the option is inherited.
    let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let (accepted, _) = listener.accept().unwrap();
    assert!(nodelay(&accepted).unwrap());
    // A plain listener's sockets do not have it: the check can fail.
    let plain = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let _c = std::net::TcpStream::connect(plain.local_addr().unwrap()).unwrap();
    let (a, _) = plain.accept().unwrap();
    assert!(!nodelay(&a).unwrap());
    drop(client);
}
