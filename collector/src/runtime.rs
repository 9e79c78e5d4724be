//! `planck-collector run`: live capture workers, control endpoint, exporter.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;

use crate::capture::afpacket::PacketRing;
use crate::config::Config;
use crate::control::ControlPlane;
use crate::decode::MirroredFrameDecoder;
use crate::detect::DetectionSettings;
use crate::export::event::now_ns;
use crate::export::{ExportConfig, Exporter};
use crate::forwarding::CompiledMap;
use crate::metrics::Metrics;
use crate::pipeline::{CapturedFrame, Worker, WorkerConfig};
use crate::replay::load_forwarding;

pub fn run(cfg: Config) -> Result<(), String> {
    let metrics = Arc::new(Metrics::new());
    let d = &cfg.detect;
    let settings = Arc::new(DetectionSettings::new(
        d.congestion_threshold_pct,
        d.hysteresis_pct,
        d.flow_report_interval_ms,
    ));
    let statics = cfg.statics()?;
    let workers = cfg.capture.workers;
    let initial = match &cfg.forwarding.file {
        Some(f) => {
            let m = load_forwarding(std::path::Path::new(f))?;
            m.validate(Some(&cfg.collector_id))
                .map_err(|e| format!("{f}: {e}"))?;
            metrics.forwarding_generation.set(m.generation as i64);
            Some(m)
        }
        None => None,
    };
    let map = CompiledMap::build(None, initial.as_ref(), &statics, workers)?;
    let iface_switch = cfg
        .capture
        .switch
        .as_deref()
        .and_then(|s| map.switch_index(s));
    let map_source = Arc::new(ArcSwap::from_pointee(map));

    // Open every ring before starting anything, so a capture error exits cleanly.
    let fanout = (workers > 1).then_some((std::process::id() & 0xffff) as u16);
    let mut rings = Vec::with_capacity(workers);
    for _ in 0..workers {
        rings.push(PacketRing::open(
            &cfg.capture.interface,
            &cfg.ring(),
            fanout,
        )?);
    }

    let server = crate::control::server(crate::control::bind_listener(&cfg.control.listen)?)?;
    let plane = Arc::new(
        ControlPlane::new(
            cfg.collector_id.clone(),
            map_source.clone(),
            statics,
            workers,
            settings.clone(),
            metrics.clone(),
        )
        .with_credentials(cfg.control.credentials()),
    );
    std::thread::Builder::new()
        .name("control".into())
        .spawn(move || plane.serve(server))
        .map_err(|e| e.to_string())?;

    let (exporter, sink) = match &cfg.export {
        Some(x) => {
            let ec = ExportConfig {
                url: x.url.clone(),
                collector: cfg.collector_id.clone(),
                username: x.username.clone(),
                password: x.password.clone(),
                queue_capacity: x.queue_capacity,
                max_pending: x.max_pending,
                timeout: Duration::from_millis(x.timeout_ms),
                min_backoff: Duration::from_millis(x.min_backoff_ms),
                max_backoff: Duration::from_millis(x.max_backoff_ms),
            };
            let (e, s) = Exporter::new(ec, metrics.clone(), settings.clone());
            (
                Some(
                    std::thread::Builder::new()
                        .name("export".into())
                        .spawn(move || e.run())
                        .map_err(|e| e.to_string())?,
                ),
                Some(s),
            )
        }
        None => (None, None),
    };

    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, stop.clone())
            .map_err(|e| format!("signal handler: {e}"))?;
    }
    eprintln!(
        "planck-collector: {} capturing on {} with {} worker(s), control on {}",
        cfg.collector_id, cfg.capture.interface, workers, cfg.control.listen
    );

    let int = match &cfg.int {
        Some(i) => Some(crate::inband::runtime::spawn(i, metrics.clone(), stop.clone())?),
        None => None,
    };
    let mut handles = Vec::new();
    for (i, mut ring) in rings.into_iter().enumerate() {
        let wc = WorkerConfig {
            worker_id: i,
            window: cfg.estimator.window(),
            max_flows: cfg.estimator.max_flows_per_worker,
            idle_timeout_ns: cfg.estimator.idle_timeout_ms * 1_000_000,
            quiet_after_gaps: cfg.estimator.quiet_after_gaps,
            quiet_min_ns: cfg.estimator.quiet_min_ms * 1_000_000,
            default_sampling_ratio: cfg.estimator.default_sampling_ratio,
        };
        let mut worker = Worker::new(
            wc,
            MirroredFrameDecoder,
            map_source.clone(),
            settings.clone(),
            sink.clone(),
            Some(metrics.clone()),
        );
        let stop = stop.clone();
        let metrics = metrics.clone();
        let h = std::thread::Builder::new()
            .name(format!("capture-{i}"))
            .spawn(move || {
                let mut last_stats = Instant::now();
                let mut res = Ok(());
                while !stop.load(Ordering::Relaxed) {
                    if let Err(e) = ring.poll_once(1, |batch| {
                        worker.on_frames(
                            &CapturedFrame::from_ring(batch, iface_switch)[..batch.len()],
                        )
                    }) {
                        res = Err(e);
                        break;
                    }
                    worker.tick(now_ns());
                    if last_stats.elapsed() >= Duration::from_millis(500) {
                        last_stats = Instant::now();
                        metrics.kernel_drops.inc_by(ring.take_stats().1);
                    }
                }
                worker.flush();
                res
            })
            .map_err(|e| e.to_string())?;
        handles.push(h);
    }
    drop(sink);
    let mut result = Ok(());
    for h in handles {
        match h.join() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                stop.store(true, Ordering::Relaxed);
                result = Err(e);
            }
            Err(_) => result = Err("capture worker panicked".into()),
        }
    }
    if let Some(e) = exporter {
        let _ = e.join();
    }
    if let Some(h) = int {
        stop.store(true, Ordering::Relaxed);
        h.join();
    }
    result
}
