//! Control endpoint: the controller pushes the forwarding map and config here
//! (docs/protocol/forwarding-map-v1.md); Prometheus scrapes `/metrics`.
//!
//! With credentials configured, every `/v1/...` request (reads too: the forwarding map
//! describes the network) must carry them as HTTP basic auth, the scheme of the export
//! path; others get 401 and are counted. `/metrics` stays open for Prometheus.

use std::io::Read;
use std::net::TcpListener;
use std::os::fd::AsRawFd;
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;
use base64::Engine;

use crate::detect::DetectionSettings;
use crate::forwarding::{CollectorConfigV1, CompiledMap, ForwardingMapV1, StaticSwitches};
use crate::metrics::Metrics;

const MAX_BODY: u64 = 16 << 20;

pub struct ControlPlane {
    pub collector_id: String,
    pub map: Arc<ArcSwap<CompiledMap>>,
    pub statics: StaticSwitches,
    pub workers: usize,
    pub settings: Arc<DetectionSettings>,
    pub metrics: Arc<Metrics>,
    /// Serializes map updates so the generation check and the swap are one step.
    update: Mutex<()>,
    credentials: Option<ControlCredentials>,
}

/// Username and password a control request must present (HTTP basic auth).
#[derive(Clone)]
pub struct ControlCredentials {
    /// `username:password`, as a basic-auth header carries it once decoded.
    expected: Vec<u8>,
}

impl std::fmt::Debug for ControlCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ControlCredentials(..)")
    }
}

impl ControlCredentials {
    pub fn new(username: &str, password: &str) -> Self {
        ControlCredentials {
            expected: format!("{username}:{password}").into_bytes(),
        }
    }

    /// Whether an `Authorization` header value carries these credentials.
    pub fn admit(&self, authorization: Option<&str>) -> bool {
        let Some(value) = authorization else {
            return false;
        };
        let Some((scheme, token)) = value.trim().split_once(' ') else {
            return false;
        };
        if !scheme.eq_ignore_ascii_case("basic") {
            return false;
        }
        match base64::engine::general_purpose::STANDARD.decode(token.trim()) {
            Ok(given) => constant_time_eq(&given, &self.expected),
            Err(_) => false,
        }
    }
}

/// Equality whose time does not depend on where the inputs first differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

/// Bind the control endpoint's listener with TCP_NODELAY set. Linux copies the option to
/// every socket accepted from it, so each response leaves at once instead of waiting
/// out the client's delayed ACK (~40 ms per keep-alive request otherwise).
pub fn bind_listener(listen: &str) -> Result<TcpListener, String> {
    let listener =
        TcpListener::bind(listen).map_err(|e| format!("control endpoint {listen}: {e}"))?;
    set_nodelay(&listener).map_err(|e| format!("control endpoint {listen}: TCP_NODELAY: {e}"))?;
    Ok(listener)
}

/// The control HTTP server on a listener from [`bind_listener`].
pub fn server(listener: TcpListener) -> Result<tiny_http::Server, String> {
    tiny_http::Server::from_listener(listener, None).map_err(|e| format!("control endpoint: {e}"))
}

fn set_nodelay(socket: &impl AsRawFd) -> std::io::Result<()> {
    let one: libc::c_int = 1;
    // SAFETY: a valid fd and a c_int option value of the size given.
    let rc = unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_NODELAY,
            &one as *const libc::c_int as *const libc::c_void,
            size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Whether TCP_NODELAY is set on a socket.
pub fn nodelay(socket: &impl AsRawFd) -> std::io::Result<bool> {
    let mut v: libc::c_int = 0;
    let mut len = size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: a valid fd; v and len describe a c_int buffer.
    let rc = unsafe {
        libc::getsockopt(
            socket.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_NODELAY,
            &mut v as *mut libc::c_int as *mut libc::c_void,
            &mut len,
        )
    };
    if rc == 0 {
        Ok(v != 0)
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// An HTTP answer: status, body, content type.
#[derive(Debug, PartialEq)]
pub struct Reply {
    pub status: u16,
    pub body: String,
    pub content_type: &'static str,
}

fn error(status: u16, message: impl Into<String>) -> Reply {
    let body = serde_json::json!({"code": status, "message": message.into()}).to_string();
    Reply {
        status,
        body,
        content_type: "application/json",
    }
}

fn no_content() -> Reply {
    Reply {
        status: 204,
        body: String::new(),
        content_type: "application/json",
    }
}

impl ControlPlane {
    pub fn new(
        collector_id: String,
        map: Arc<ArcSwap<CompiledMap>>,
        statics: StaticSwitches,
        workers: usize,
        settings: Arc<DetectionSettings>,
        metrics: Arc<Metrics>,
    ) -> Self {
        ControlPlane {
            collector_id,
            map,
            statics,
            workers,
            settings,
            metrics,
            update: Mutex::new(()),
            credentials: None,
        }
    }

    /// Require these credentials on every `/v1/...` request.
    pub fn with_credentials(mut self, credentials: Option<ControlCredentials>) -> Self {
        self.credentials = credentials;
        self
    }

    /// One request as it arrived: checks its credentials, then [`ControlPlane::handle`].
    pub fn handle_request(
        &self,
        method: &str,
        path: &str,
        authorization: Option<&str>,
        body: &[u8],
    ) -> Reply {
        match self.refusal(path, authorization) {
            Some(r) => r,
            None => self.handle(method, path, body),
        }
    }

    /// A 401 (counted) when the request needs credentials it does not carry.
    fn refusal(&self, path: &str, authorization: Option<&str>) -> Option<Reply> {
        let resource = path.split('?').next().unwrap_or(path);
        if resource != "/metrics"
            && let Some(c) = &self.credentials
            && !c.admit(authorization)
        {
            self.metrics.control_unauthorized.inc();
            return Some(error(401, "credentials required (HTTP basic auth)"));
        }
        None
    }

    /// A request already admitted (see [`ControlPlane::handle_request`]).
    pub fn handle(&self, method: &str, path: &str, body: &[u8]) -> Reply {
        let path = path.split('?').next().unwrap_or(path);
        match (method, path) {
            ("PUT", "/v1/forwarding") => self.put_forwarding(body),
            ("GET", "/v1/forwarding") => match &self.map.load().source {
                Some(m) => Reply {
                    status: 200,
                    body: serde_json::to_string(m).expect("map serializes"),
                    content_type: "application/json",
                },
                None => error(404, "no forwarding map received yet"),
            },
            ("PUT", "/v1/config") => self.put_config(body),
            ("GET", "/v1/config") => {
                let s = &self.settings;
                let c = CollectorConfigV1 {
                    version: 1,
                    congestion_threshold_pct: s.threshold_pct(),
                    hysteresis_pct: s.hysteresis_pct(),
                    flow_report_interval_ms: s.report_interval_ns() as f64 / 1e6,
                };
                Reply {
                    status: 200,
                    body: serde_json::to_string(&c).expect("config serializes"),
                    content_type: "application/json",
                }
            }
            ("GET", "/metrics") => Reply {
                status: 200,
                body: self.metrics.encode(),
                content_type: "application/openmetrics-text; version=1.0.0; charset=utf-8",
            },
            (_, "/v1/forwarding" | "/v1/config" | "/metrics") => {
                error(405, format!("method {method} not allowed on {path}"))
            }
            _ => error(404, format!("no resource {path}")),
        }
    }

    fn put_forwarding(&self, body: &[u8]) -> Reply {
        let map: ForwardingMapV1 = match serde_json::from_slice(body) {
            Ok(m) => m,
            Err(e) => return error(400, format!("bad forwarding map: {e}")),
        };
        if let Err(e) = map.validate(Some(&self.collector_id)) {
            return error(400, format!("bad forwarding map: {e}"));
        }
        let _guard = self.update.lock().unwrap_or_else(|p| p.into_inner());
        let current = self.map.load_full();
        if let Some(g) = current.generation
            && map.generation <= g
        {
            return error(
                409,
                format!("generation {} is not newer than {}", map.generation, g),
            );
        }
        match CompiledMap::build(Some(&current), Some(&map), &self.statics, self.workers) {
            Ok(compiled) => {
                self.metrics
                    .forwarding_generation
                    .set(map.generation as i64);
                self.map.store(Arc::new(compiled));
                no_content()
            }
            Err(e) => error(400, format!("bad forwarding map: {e}")),
        }
    }

    fn put_config(&self, body: &[u8]) -> Reply {
        let cfg: CollectorConfigV1 = match serde_json::from_slice(body) {
            Ok(c) => c,
            Err(e) => return error(400, format!("bad config: {e}")),
        };
        if let Err(e) = cfg.validate() {
            return error(400, format!("bad config: {e}"));
        }
        self.settings.set(
            cfg.congestion_threshold_pct,
            cfg.hysteresis_pct,
            cfg.flow_report_interval_ms,
        );
        no_content()
    }

    /// Serve until the process exits.
    pub fn serve(self: Arc<Self>, server: tiny_http::Server) {
        for mut req in server.incoming_requests() {
            let method = req.method().as_str().to_owned();
            let url = req.url().to_owned();
            let authorization = req
                .headers()
                .iter()
                .find(|h| h.field.equiv("Authorization"))
                .map(|h| h.value.as_str().to_owned());
            let mut body = Vec::new();
            let too_big = req.body_length().is_some_and(|l| l as u64 > MAX_BODY);
            // Credentials first: a refused request's body is never read.
            let reply = if let Some(r) = self.refusal(&url, authorization.as_deref()) {
                r
            } else if too_big {
                error(413, format!("body larger than {MAX_BODY} bytes"))
            } else {
                match req.as_reader().take(MAX_BODY + 1).read_to_end(&mut body) {
                    Ok(_) if body.len() as u64 > MAX_BODY => {
                        error(413, format!("body larger than {MAX_BODY} bytes"))
                    }
                    Ok(_) => self.handle(&method, &url, &body),
                    Err(e) => error(400, format!("could not read body: {e}")),
                }
            };
            let header =
                tiny_http::Header::from_bytes(&b"Content-Type"[..], reply.content_type.as_bytes())
                    .expect("static header");
            let mut resp = tiny_http::Response::from_string(reply.body)
                .with_status_code(reply.status)
                .with_header(header);
            if reply.status == 401 {
                resp.add_header(
                    tiny_http::Header::from_bytes(
                        &b"WWW-Authenticate"[..],
                        &b"Basic realm=\"planck-collector\""[..],
                    )
                    .expect("static header"),
                );
            }
            let _ = req.respond(resp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plane() -> ControlPlane {
        let statics = StaticSwitches::default();
        let map = Arc::new(ArcSwap::from_pointee(
            CompiledMap::build(None, None, &statics, 1).unwrap(),
        ));
        ControlPlane::new(
            "c1".into(),
            map,
            statics,
            1,
            Arc::new(DetectionSettings::new(80.0, 5.0, 5.0)),
            Arc::new(Metrics::new()),
        )
    }

    fn map_body(generation: u64) -> String {
        format!(
            r#"{{"version":1,"collector":"c1","generation":{generation},"switches":[{{"switch":"of:1","rspanVlan":3,"mirrorPort":9,"ports":[{{"port":1,"capacityBps":1000}}],"entries":[{{"mac":"02:00:00:00:00:01","port":1}}]}}]}}"#
        )
    }

    #[test]
    fn forwarding_push_generation_rule() {
        let p = plane();
        assert_eq!(
            p.handle("PUT", "/v1/forwarding", map_body(5).as_bytes())
                .status,
            204
        );
        assert_eq!(p.map.load().generation, Some(5));
        let r = p.handle("PUT", "/v1/forwarding", map_body(5).as_bytes());
        assert_eq!(r.status, 409);
        let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
        assert_eq!(v["code"], 409);
        assert_eq!(
            p.handle("PUT", "/v1/forwarding", map_body(4).as_bytes())
                .status,
            409
        );
        assert_eq!(
            p.handle("PUT", "/v1/forwarding", map_body(6).as_bytes())
                .status,
            204
        );
        assert_eq!(p.map.load().generation, Some(6));
        let got = p.handle("GET", "/v1/forwarding", b"");
        assert_eq!(got.status, 200);
        assert!(got.body.contains("\"generation\":6"));
    }

    #[test]
    fn malformed_pushes_change_nothing() {
        let p = plane();
        assert_eq!(
            p.handle("PUT", "/v1/forwarding", map_body(5).as_bytes())
                .status,
            204
        );
        for bad in [
            "{".to_string(),
            map_body(9).replace("\"rspanVlan\":3", "\"rspanVlan\":0"),
            map_body(9).replace("\"collector\":\"c1\"", "\"collector\":\"c2\""),
            map_body(9).replace("02:00:00:00:00:01", "zz"),
            map_body(9).replace("\"version\":1", "\"version\":2"),
            map_body(9).replace("\"generation\":9,", ""),
        ] {
            let r = p.handle("PUT", "/v1/forwarding", bad.as_bytes());
            assert_eq!(r.status, 400, "{bad}");
            let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
            assert_eq!(v["code"], 400);
            assert!(v["message"].as_str().unwrap().len() > 5);
            assert_eq!(p.map.load().generation, Some(5));
        }
    }

    #[test]
    fn config_push() {
        let p = plane();
        let r = p.handle("PUT", "/v1/config", br#"{"version": 1, "congestionThresholdPct": 60, "hysteresisPct": 5, "flowReportIntervalMs": 2}"#);
        assert_eq!(r.status, 204);
        assert_eq!(p.settings.threshold_pct(), 60.0);
        assert_eq!(p.settings.report_interval_ns(), 2_000_000);
        let r = p.handle("PUT", "/v1/config", br#"{"version": 1, "congestionThresholdPct": 160, "hysteresisPct": 5, "flowReportIntervalMs": 2}"#);
        assert_eq!(r.status, 400);
        assert_eq!(p.settings.threshold_pct(), 60.0);
        assert_eq!(p.handle("GET", "/v1/config", b"").status, 200);
    }

    #[test]
    fn metrics_and_unknown_routes() {
        let p = plane();
        let m = p.handle("GET", "/metrics", b"");
        assert_eq!(m.status, 200);
        assert!(m.body.contains("planck_collector_packets_total"));
        assert!(m.body.contains("planck_collector_notice_latency_seconds"));
        assert_eq!(p.handle("GET", "/nope", b"").status, 404);
        assert_eq!(p.handle("DELETE", "/v1/config", b"").status, 405);
    }
}
