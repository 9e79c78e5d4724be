//! The INT thread: receives telemetry reports on UDP sockets, decodes them, keeps the
//! INT state, and hands events to InfluxDB (and, as port signals, to the controller).
//! One thread owns all sockets and the state, so a key reported on two ports is one key.

use std::net::UdpSocket;
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::decode::int::{IntDecoder, ReportBuf};
use crate::export::event::now_ns;
use crate::export::influx::{InfluxSink, InfluxWriter};
use crate::export::int_signals::{SignalSender, SignalSink};
use crate::metrics::Metrics;

use super::config::{IntOnlyConfig, IntSection};
use super::metrics::LocalCounts;
use super::state::{IntState, StateCounters};
use super::xdp::XdpPath;

/// Metrics and expiry run this often.
const REFRESH: Duration = Duration::from_millis(500);
/// Datagrams read from one socket before the others get a turn.
const BURST: usize = 1024;

pub struct IntHandles {
    pub int: JoinHandle<()>,
    pub influx: Option<JoinHandle<()>>,
    pub controller: Option<JoinHandle<()>>,
}

impl IntHandles {
    pub fn join(self) {
        let _ = self.int.join();
        for h in [self.influx, self.controller].into_iter().flatten() {
            let _ = h.join();
        }
    }
}

/// Binds the report sockets and starts the INT thread (and the InfluxDB writer).
pub fn spawn(cfg: &IntSection, metrics: Arc<Metrics>, stop: Arc<AtomicBool>) -> Result<IntHandles, String> {
    let decoder = IntDecoder::new(&cfg.decoder())?;
    let mut sockets = Vec::new();
    for addr in cfg.listen_addrs() {
        let s = UdpSocket::bind(addr).map_err(|e| format!("int.listen {addr}: {e}"))?;
        s.set_nonblocking(true).map_err(|e| format!("int.listen {addr}: {e}"))?;
        sockets.push(s);
    }
    metrics.int.set_max_series(cfg.prometheus.max_series);
    let (influx, sink) = match &cfg.influx {
        Some(x) => {
            let (w, s) = InfluxWriter::new(x.clone(), metrics.int.influx.clone());
            let h = std::thread::Builder::new()
                .name("int-influx".into())
                .spawn(move || w.run())
                .map_err(|e| e.to_string())?;
            (Some(h), Some(s))
        }
        None => (None, None),
    };
    let (controller, signals) = match &cfg.controller {
        Some(c) => {
            let (s, sink) = SignalSender::new(c.clone(), metrics.int.controller.clone())?;
            let h = std::thread::Builder::new()
                .name("int-controller".into())
                .spawn(move || s.run())
                .map_err(|e| e.to_string())?;
            (Some(h), Some(sink))
        }
        None => (None, None),
    };
    let state = IntState::new(cfg.state());
    let xdp = match &cfg.xdp {
        Some(x) => Some(XdpPath::attach(&x.interface, &cfg.decoder().ports, state.config())?),
        None => None,
    };
    let int = std::thread::Builder::new()
        .name("int".into())
        .spawn(move || receive(sockets, xdp, decoder, state, Sinks { influx: sink, signals }, metrics, stop))
        .map_err(|e| e.to_string())?;
    Ok(IntHandles { int, influx, controller })
}

/// Where events go.
struct Sinks {
    influx: Option<InfluxSink>,
    signals: Option<SignalSink>,
}

fn receive(
    sockets: Vec<UdpSocket>,
    mut xdp: Option<XdpPath>,
    decoder: IntDecoder,
    mut state: IntState,
    sinks: Sinks,
    metrics: Arc<Metrics>,
    stop: Arc<AtomicBool>,
) {
    let mut fds: Vec<libc::pollfd> = sockets
        .iter()
        .map(|s| libc::pollfd { fd: s.as_raw_fd(), events: libc::POLLIN, revents: 0 })
        .collect();
    if let Some(x) = &xdp {
        fds.push(libc::pollfd { fd: x.ring_fd(), events: libc::POLLIN, revents: 0 });
    }
    let mut xdp_last = [0u64; super::xdp_filter::COUNTERS.len()];
    let mut buf = vec![0u8; 65536];
    let mut reports = ReportBuf::deferring();
    let mut counts = LocalCounts::default();
    let mut last = StateCounters::default();
    let mut last_refresh = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        // SAFETY: fds is a valid array of pollfd for the duration of the call.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 50) };
        if n > 0 {
            for (s, fd) in sockets.iter().zip(fds.iter_mut()) {
                if fd.revents == 0 {
                    continue;
                }
                fd.revents = 0;
                for _ in 0..BURST {
                    let len = match s.recv(&mut buf) {
                        Ok(len) => len,
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                        Err(_) => {
                            counts.receive_errors += 1;
                            break;
                        }
                    };
                    counts.datagrams += 1;
                    apply(&decoder, &buf[..len], &mut reports, &mut state, &mut counts, &sinks);
                    if let Some(x) = xdp.as_mut() {
                        // Not through the ring: the flow's kernel entry goes, its keys are rewritten.
                        if let Some(rs) = accepted(&mut reports) {
                            x.writer().after_apply(&state, rs, None);
                        }
                    }
                }
            }
            // The ring is read whenever poll returns: its fd is level-triggered on data.
            if let Some(x) = xdp.as_mut() {
                if let Some(fd) = fds.last_mut() {
                    fd.revents = 0;
                }
                for _ in 0..BURST {
                    let more = x.next_record(|w, rec| {
                        let Some((head, payload)) = rec else {
                            counts.receive_errors += 1;
                            return;
                        };
                        counts.datagrams += 1;
                        apply(&decoder, payload, &mut reports, &mut state, &mut counts, &sinks);
                        if let Some(rs) = accepted(&mut reports) {
                            w.after_apply(&state, rs, Some(&head));
                        }
                    });
                    if !more {
                        break;
                    }
                }
            }
        }
        if last_refresh.elapsed() >= REFRESH {
            last_refresh = Instant::now();
            state.expire(now_ns());
            metrics.int.refresh(&mut counts, &mut last, &state);
            if let Some(x) = &xdp {
                metrics.int.refresh_xdp(&x.counters(), &mut xdp_last, x.write_errors);
            }
        }
    }
    metrics.int.refresh(&mut counts, &mut last, &state);
    if let Some(x) = &xdp {
        metrics.int.refresh_xdp(&x.counters(), &mut xdp_last, x.write_errors);
    }
    // Dropping the sinks lets the writers flush and stop.
    drop(sinks);
}

/// Decodes one UDP payload and applies its reports.
fn apply(decoder: &IntDecoder, payload: &[u8], reports: &mut ReportBuf, state: &mut IntState, counts: &mut LocalCounts, sinks: &Sinks) {
    let now = now_ns();
    match decoder.decode_payload(payload, reports) {
        Err(e) => counts.rejects.count(e),
        Ok(()) => {
            for v in reports.versions() {
                counts.reports[v as usize] += 1;
            }
            state.apply_buf(reports, now, &mut |e| {
                counts.event(&e.kind, e.cause);
                if let Some(s) = &sinks.signals {
                    s.send(&e);
                }
                if let Some(s) = &sinks.influx {
                    s.send(e);
                }
            });
        }
    }
}

/// The reports of the payload just applied (hops read), or None when it was rejected.
fn accepted(reports: &mut ReportBuf) -> Option<&[crate::decode::int::IntReport]> {
    reports.read_hops();
    let rs = reports.reports();
    (!rs.is_empty()).then_some(rs)
}

/// `planck-collector int`: INT reports only, with /metrics.
pub fn run_int_only(cfg: IntOnlyConfig) -> Result<(), String> {
    let metrics = Arc::new(Metrics::new());
    let server = tiny_http::Server::http(&cfg.metrics_listen)
        .map_err(|e| format!("metrics_listen {}: {e}", cfg.metrics_listen))?;
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, stop.clone()).map_err(|e| format!("signal handler: {e}"))?;
    }
    let handles = spawn(&cfg.int, metrics.clone(), stop.clone())?;
    let m = metrics.clone();
    std::thread::Builder::new()
        .name("metrics".into())
        .spawn(move || {
            for req in server.incoming_requests() {
                let reply = if req.method() == &tiny_http::Method::Get && req.url() == "/metrics" {
                    tiny_http::Response::from_string(m.encode()).with_header(
                        tiny_http::Header::from_bytes(
                            "Content-Type",
                            "application/openmetrics-text; version=1.0.0; charset=utf-8",
                        )
                        .expect("static header"),
                    )
                } else {
                    tiny_http::Response::from_string("not found\n").with_status_code(404)
                };
                let _ = req.respond(reply);
            }
        })
        .map_err(|e| e.to_string())?;
    eprintln!(
        "planck-collector: INT reports on {}, metrics on {}",
        cfg.int.listen.join(", "),
        cfg.metrics_listen
    );
    handles.join();
    Ok(())
}
