//! Export stage: batches events and POSTs them to the controller over kept-alive
//! connections, congestion notices on a lane of their own. Memory is bounded twice: the channel from the workers has a fixed
//! capacity and the exporter holds at most `max_pending` events; whatever does not fit
//! is dropped and counted. While the controller is away the exporter retries the same
//! batch (same `seq`) with exponential backoff.

pub mod event;
pub mod influx;
pub mod int_signals;
pub mod pint_events;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use base64::Engine;
use crossbeam_channel::{Receiver, Select, Sender, TrySendError};

use crate::detect::DetectionSettings;
use crate::metrics::Metrics;
pub use event::{
    Batch, CongestionState, Event, FlowId, FlowRate, MAX_EVENTS_PER_BATCH, MacAddr, PortCongestion,
};

#[derive(Clone, Debug)]
pub struct ExportConfig {
    pub url: String,
    pub collector: String,
    pub username: Option<String>,
    pub password: Option<String>,
    pub queue_capacity: usize,
    pub max_pending: usize,
    pub timeout: Duration,
    pub min_backoff: Duration,
    pub max_backoff: Duration,
}

/// Where workers hand events; never blocks. Congestion notices and everything else go to
/// separate lanes (see [`Exporter`]).
#[derive(Clone)]
pub struct EventSink {
    tx: Sender<Event>,
    /// The notice lane; `None` puts notices in `tx` with the rest (plain channel).
    notices: Option<Sender<Event>>,
    /// Marks the end of a worker's report round on the report lane (`None`: plain channel).
    end_of_report: Option<Sender<()>>,
    metrics: Arc<Metrics>,
}

impl EventSink {
    /// Queue an event; a full queue drops it and counts the drop.
    pub fn send(&self, ev: Event) -> bool {
        let tx = match (&ev, &self.notices) {
            (Event::PortCongestion(_), Some(n)) => n,
            _ => &self.tx,
        };
        match tx.try_send(ev) {
            Ok(()) => true,
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                self.metrics.queue_drops.inc();
                false
            }
        }
    }

    /// A worker's report round is complete: the report lane sends what it holds now rather
    /// than after its batching interval. The worker's round already waited for the flow report
    /// interval; batching it for another interval in the lane made each report up to twice as
    /// old when the controller got it.
    pub fn end_of_report(&self) {
        if let Some(e) = &self.end_of_report {
            // Full: a mark is pending already, and it covers these events too.
            let _ = e.try_send(());
        }
    }

    /// A sink backed by a plain bounded channel (tests, offline use).
    pub fn channel(capacity: usize, metrics: Arc<Metrics>) -> (EventSink, Receiver<Event>) {
        let (tx, rx) = crossbeam_channel::bounded(capacity);
        (
            EventSink {
                tx,
                notices: None,
                end_of_report: None,
                metrics,
            },
            rx,
        )
    }
}

/// Outcome of one delivery attempt.
enum Delivery {
    Accepted,
    /// The controller refused the batch as malformed: retrying cannot help.
    Rejected(u16, String),
    Failed(String),
}

/// Delivers the collector's events to the controller on two lanes, each a thread with its own
/// kept-alive connection: congestion notices, sent the moment they are queued, and everything
/// else, batched for the flow report interval. A POST is synchronous, so with one lane a
/// notice detected while a report batch was on its way (the controller applies a batch, and
/// may decide on it, before it answers) waited for that answer: several milliseconds of the
/// loop's tail. Both lanes take batch sequence numbers from one counter, so the controller
/// sees one gap-free sequence per collector, possibly a little out of order.
pub struct Exporter {
    reports: Lane,
    notices: Lane,
}

/// One delivery lane: a bounded queue in, batches out over its own connection.
struct Lane {
    name: &'static str,
    cfg: ExportConfig,
    rx: Receiver<Event>,
    agent: ureq::Agent,
    auth: Option<String>,
    metrics: Arc<Metrics>,
    settings: Arc<DetectionSettings>,
    next_seq: Arc<AtomicU64>,
    /// Send whatever is pending at once (the notice lane; the sink routes every congestion
    /// notice there, so the report lane never holds one).
    immediate: bool,
    /// End-of-round marks from the workers (the report lane): send what is pending then.
    end_of_report: Option<Receiver<()>>,
}

impl Exporter {
    pub fn new(
        cfg: ExportConfig,
        metrics: Arc<Metrics>,
        settings: Arc<DetectionSettings>,
    ) -> (Exporter, EventSink) {
        let auth = cfg.username.as_ref().map(|u| {
            let creds = format!("{}:{}", u, cfg.password.as_deref().unwrap_or(""));
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(creds)
            )
        });
        let next_seq = Arc::new(AtomicU64::new(0));
        let lane = |name, immediate, end_of_report| {
            let (tx, rx) = crossbeam_channel::bounded(cfg.queue_capacity.max(1));
            // TCP_NODELAY: a request's headers and body leave in separate writes; with Nagle
            // on, the body would wait for the controller's delayed ACK of the headers (up to
            // 40 ms).
            let agent = ureq::AgentBuilder::new()
                .no_delay(true)
                .timeout(cfg.timeout)
                .max_idle_connections_per_host(1)
                .build();
            let lane = Lane {
                name,
                cfg: cfg.clone(),
                rx,
                agent,
                auth: auth.clone(),
                metrics: metrics.clone(),
                settings: settings.clone(),
                next_seq: next_seq.clone(),
                immediate,
                end_of_report,
            };
            (lane, tx)
        };
        let (end_tx, end_rx) = crossbeam_channel::bounded(1);
        let (reports, tx) = lane("reports", false, Some(end_rx));
        let (notices, notice_tx) = lane("notices", true, None);
        let sink = EventSink {
            tx,
            notices: Some(notice_tx),
            end_of_report: Some(end_tx),
            metrics,
        };
        (Exporter { reports, notices }, sink)
    }

    /// Run until every sink is dropped, then try once to deliver what is left.
    pub fn run(self) {
        let notices = self.notices;
        let notice_thread = std::thread::Builder::new()
            .name("export-notices".into())
            .spawn(move || notices.run());
        match notice_thread {
            Ok(t) => {
                self.reports.run();
                let _ = t.join();
            }
            Err(e) => {
                // No thread for the lane: its queue is never read, so notices are dropped
                // and counted at the sink; say so once.
                eprintln!("planck-collector: cannot start the notice lane: {e}");
                self.reports.run();
            }
        }
    }
}

impl Lane {
    fn post(&self, body: &str) -> Delivery {
        let mut req = self
            .agent
            .post(&self.cfg.url)
            .set("Content-Type", "application/json");
        if let Some(a) = &self.auth {
            req = req.set("Authorization", a);
        }
        match req.send_string(body) {
            Ok(resp) => {
                // Read the body so the connection goes back to the pool.
                let _ = resp.into_string();
                Delivery::Accepted
            }
            Err(ureq::Error::Status(code, resp)) => {
                let text = resp.into_string().unwrap_or_default();
                if code == 400 || code == 413 || code == 422 {
                    Delivery::Rejected(code, text)
                } else {
                    Delivery::Failed(format!("HTTP {code}: {}", text.trim()))
                }
            }
            Err(e) => Delivery::Failed(e.to_string()),
        }
    }

    /// Run until every sink is dropped, then try once to deliver what is left.
    fn run(self) {
        let mut pending: Vec<Event> =
            Vec::with_capacity(self.cfg.max_pending.min(MAX_EVENTS_PER_BATCH));
        let mut first_pending: Option<Instant> = None;
        let mut in_flight: Option<(u64, Vec<Event>)> = None;
        let mut retry_at: Option<Instant> = None;
        let mut backoff = self.cfg.min_backoff;
        let mut last_error_log: Option<Instant> = None;
        let mut open = true;
        // A worker ended its report round: send what is pending without waiting for the interval.
        let mut round_ended = false;
        let mut end_of_report = self.end_of_report.clone();
        while open || in_flight.is_some() || !pending.is_empty() {
            let interval = Duration::from_nanos(self.settings.report_interval_ns());
            let now = Instant::now();
            let deadline = match (&in_flight, retry_at, first_pending) {
                (Some(_), Some(r), _) => r,
                (Some(_), None, _) => now,
                (None, _, Some(_)) if self.immediate || round_ended => now,
                (None, _, Some(f)) => f + interval,
                (None, _, None) => now + Duration::from_millis(200),
            };
            let mut end_gone = false;
            if open {
                let mut sel = Select::new();
                let events = sel.recv(&self.rx);
                if let Some(end) = &end_of_report {
                    sel.recv(end);
                }
                match sel.select_deadline(deadline.max(now)) {
                    Ok(op) if op.index() == events => match op.recv(&self.rx) {
                        Ok(ev) => {
                            self.admit(&mut pending, &mut first_pending, ev);
                            while let Ok(ev) = self.rx.try_recv() {
                                self.admit(&mut pending, &mut first_pending, ev);
                            }
                        }
                        Err(_) => open = false,
                    },
                    Ok(op) => {
                        let end = end_of_report.as_ref().expect("selected");
                        if op.recv(end).is_ok() {
                            round_ended = true;
                        } else {
                            // Every sink is gone; the event channel says so next.
                            end_gone = true;
                        }
                        // The round's events were queued before its mark.
                        while let Ok(ev) = self.rx.try_recv() {
                            self.admit(&mut pending, &mut first_pending, ev);
                        }
                    }
                    Err(_) => {}
                };
            }
            if end_gone {
                end_of_report = None;
            }
            if pending.is_empty() {
                // Its events left already: the mark must not hurry the next round's first event.
                round_ended = false;
            }
            let now = Instant::now();
            if in_flight.is_none() && !pending.is_empty() {
                let due = self.immediate
                    || round_ended
                    || !open
                    || pending.len() >= MAX_EVENTS_PER_BATCH
                    || first_pending.is_some_and(|f| now >= f + interval);
                if due {
                    let n = pending.len().min(MAX_EVENTS_PER_BATCH);
                    let batch: Vec<Event> = pending.drain(..n).collect();
                    first_pending = if pending.is_empty() { None } else { Some(now) };
                    in_flight = Some((self.next_seq.fetch_add(1, Ordering::Relaxed), batch));
                    retry_at = None;
                    // Events of the ended round beyond one batch follow at once.
                    round_ended = round_ended && !pending.is_empty();
                }
            }
            if let Some((seq, events)) = &in_flight {
                if retry_at.is_some_and(|r| now < r) {
                    continue;
                }
                let body = serde_json::to_string(&Batch {
                    version: 1,
                    collector: &self.cfg.collector,
                    seq: *seq,
                    sent_us: event::now_us(),
                    events,
                })
                .expect("events serialize");
                match self.post(&body) {
                    Delivery::Accepted => {
                        let t = event::now_us();
                        for e in events {
                            if let Event::PortCongestion(n) = e {
                                self.metrics
                                    .notice_delivery
                                    .observe(t.saturating_sub(n.time_us) as f64 / 1e6);
                            }
                        }
                        self.metrics.events_sent.inc_by(events.len() as u64);
                        self.metrics.batches_sent.inc();
                        in_flight = None;
                        retry_at = None;
                        backoff = self.cfg.min_backoff;
                    }
                    Delivery::Rejected(code, text) => {
                        eprintln!(
                            "planck-collector: controller rejected batch {seq} ({code}): {}",
                            text.trim()
                        );
                        self.metrics.batches_rejected.inc();
                        in_flight = None;
                        retry_at = None;
                    }
                    Delivery::Failed(why) => {
                        self.metrics.export_failures.inc();
                        if last_error_log
                            .is_none_or(|t| now.duration_since(t) > Duration::from_secs(10))
                        {
                            eprintln!(
                                "planck-collector: export of {} to {} failed, retrying with backoff: {why}",
                                self.name, self.cfg.url
                            );
                            last_error_log = Some(now);
                        }
                        if !open {
                            // Shutting down and the controller is away: give up, counted.
                            self.metrics
                                .queue_drops
                                .inc_by((events.len() + pending.len()) as u64);
                            return;
                        }
                        retry_at = Some(Instant::now() + backoff);
                        backoff = (backoff * 2).min(self.cfg.max_backoff);
                    }
                }
            }
        }
    }

    fn admit(&self, pending: &mut Vec<Event>, first_pending: &mut Option<Instant>, ev: Event) {
        if pending.len() >= self.cfg.max_pending {
            // Full: dropped and counted. Notices have a lane and a bound of their own, so
            // flow-rate updates can no longer crowd them out.
            self.metrics.queue_drops.inc();
            return;
        }
        if first_pending.is_none() {
            *first_pending = Some(Instant::now());
        }
        pending.push(ev);
    }
}
