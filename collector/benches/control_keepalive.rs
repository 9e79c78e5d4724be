//! One keep-alive request to the control endpoint (authenticated GET /v1/config) on
//! loopback, on the collector's listener (TCP_NODELAY) and on a plain one. Without
//! TCP_NODELAY a response written in more than one segment can wait out the client's
//! delayed ACK (~40 ms); this measures what a controller's pushes see.
//!
//! cargo bench -p planck-collector --bench control_keepalive

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use criterion::{Criterion, criterion_group, criterion_main};
use planck_collector::control::{ControlCredentials, ControlPlane, bind_listener, server};
use planck_collector::detect::DetectionSettings;
use planck_collector::forwarding::{CompiledMap, StaticSwitches};
use planck_collector::metrics::Metrics;

fn start(listener: TcpListener) -> std::net::SocketAddr {
    let addr = listener.local_addr().unwrap();
    let statics = StaticSwitches::default();
    let map = Arc::new(ArcSwap::from_pointee(
        CompiledMap::build(None, None, &statics, 1).unwrap(),
    ));
    let plane = Arc::new(
        ControlPlane::new(
            "c1".into(),
            map,
            statics,
            1,
            Arc::new(DetectionSettings::new(80.0, 5.0, 5.0)),
            Arc::new(Metrics::new()),
        )
        .with_credentials(Some(ControlCredentials::new("te", "s3cret"))),
    );
    let srv = server(listener).unwrap();
    std::thread::spawn(move || plane.serve(srv));
    addr
}

/// Sends one request in one write and reads the whole response (Content-Length body).
fn round_trip(w: &mut TcpStream, r: &mut BufReader<TcpStream>, req: &[u8]) {
    w.write_all(req).unwrap();
    let mut len = 0usize;
    let mut status = String::new();
    r.read_line(&mut status).unwrap();
    assert!(status.contains(" 200 "), "{status}");
    loop {
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        if line == "\r\n" {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            len = v.trim().parse().unwrap();
        }
    }
    let mut body = vec![0u8; len];
    r.read_exact(&mut body).unwrap();
}

fn bench(c: &mut Criterion) {
    let req = b"GET /v1/config HTTP/1.1\r\nHost: x\r\nAuthorization: Basic dGU6czNjcmV0\r\n\r\n";
    let mut g = c.benchmark_group("control_keepalive");
    g.measurement_time(Duration::from_secs(5));
    for (name, listener) in [
        ("nodelay", bind_listener("127.0.0.1:0").unwrap()),
        ("plain", TcpListener::bind("127.0.0.1:0").unwrap()),
    ] {
        let addr = start(listener);
        let mut w = TcpStream::connect(addr).unwrap();
        let mut r = BufReader::new(w.try_clone().unwrap());
        g.bench_function(name, |b| b.iter(|| round_trip(&mut w, &mut r, req)));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
