//! INT port signals to the controller: `INT_PORT` events in telemetry-events-v2 batches
//! (docs/protocol/telemetry-events-v2.md), POSTed to the same endpoint as the v1 events,
//! in batches of their own so a v1-only controller keeps receiving its v1 batches.
//! Bounded like the InfluxDB writer: a fixed-capacity channel (full: dropped, counted) and
//! one batch held while it is retried with backoff; 4xx or `max_attempts` failures drop
//! the batch (counted). INT switch ids become device ids through
//! `[int.controller.switches]`; events of unmapped switches are counted and skipped.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use base64::Engine;
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TrySendError};
use prometheus_client::metrics::counter::Counter;
use serde_json::{Value, json};

use crate::export::event::now_ns;
use crate::inband::config::ControllerSection;
use crate::inband::state::{Cause, EventKind, IntEvent};

#[derive(Clone, Debug, Default)]
pub struct ControllerCounters {
    pub events_sent: Counter,
    pub batches_sent: Counter,
    pub batches_rejected: Counter,
    pub failures: Counter,
    pub dropped: Counter,
    pub unmapped: Counter,
}

/// Where the INT thread hands events; keeps only port signals of mapped switches.
#[derive(Clone)]
pub struct SignalSink {
    tx: Sender<Value>,
    switches: std::sync::Arc<HashMap<u32, String>>,
    counters: ControllerCounters,
}

impl SignalSink {
    pub fn send(&self, e: &IntEvent) {
        let Some(v) = signal_json(e, &self.switches, &self.counters) else {
            return;
        };
        match self.tx.try_send(v) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                self.counters.dropped.inc();
            }
        }
    }
}

fn cause_name(c: Cause) -> Option<&'static str> {
    match c {
        Cause::NewKey => Some("NEW_KEY"),
        Cause::PathChange => Some("PATH_CHANGE"),
        Cause::Interval => Some("INTERVAL"),
        Cause::Periodic => Some("PERIODIC"),
        Cause::Report => None,
    }
}

/// The `INT_PORT` event for an INT event, if it is a port signal with a known port.
pub fn signal_json(e: &IntEvent, switches: &HashMap<u32, String>, counters: &ControllerCounters) -> Option<Value> {
    let cause = cause_name(e.cause)?;
    let (switch, port, signal, value, queue) = match e.kind {
        EventKind::QueueOccupancy { switch, queue, port: Some(port), occupancy } => {
            (switch, port, "QUEUE_OCCUPANCY", occupancy as u64, Some(queue))
        }
        EventKind::HopLatency { switch, port: Some(port), latency_ns, .. } => {
            (switch, port, "HOP_LATENCY", latency_ns as u64, None)
        }
        EventKind::LinkUtilization { switch, port, utilization } => {
            (switch, port, "LINK_UTILIZATION", utilization as u64, None)
        }
        _ => return None,
    };
    let Some(device) = switches.get(&switch) else {
        counters.unmapped.inc();
        return None;
    };
    let mut v = json!({
        "type": "INT_PORT",
        "switch": device,
        "port": port,
        "signal": signal,
        "value": value,
        "cause": cause,
        "reportUs": e.ts_ns / 1000,
    });
    if let Some(q) = queue {
        v["queue"] = json!(q);
    }
    Some(v)
}

pub struct SignalSender {
    cfg: ControllerSection,
    rx: Receiver<Value>,
    agent: ureq::Agent,
    auth: Option<String>,
    counters: ControllerCounters,
    next_seq: u64,
}

impl SignalSender {
    pub fn new(cfg: ControllerSection, counters: ControllerCounters) -> Result<(SignalSender, SignalSink), String> {
        let mut switches = HashMap::new();
        for (k, v) in &cfg.switches {
            let id: u32 = k.parse().map_err(|_| format!("int.controller.switches: {k:?} is not an INT switch id (0-4294967295)"))?;
            switches.insert(id, v.clone());
        }
        let (tx, rx) = crossbeam_channel::bounded(cfg.queue_capacity);
        let agent = ureq::AgentBuilder::new().timeout(Duration::from_millis(cfg.timeout_ms)).max_idle_connections(1).build();
        let auth = cfg.username.as_ref().map(|u| {
            let p = cfg.password.clone().unwrap_or_default();
            format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{u}:{p}")))
        });
        let sink = SignalSink { tx, switches: std::sync::Arc::new(switches), counters: counters.clone() };
        Ok((SignalSender { cfg, rx, agent, auth, counters, next_seq: 0 }, sink))
    }

    /// Runs until every sink is dropped; a batch goes out when full or `flush_ms` after
    /// its first event.
    pub fn run(mut self) {
        let flush_every = Duration::from_millis(self.cfg.flush_ms);
        let mut open = true;
        while open {
            let mut events = Vec::new();
            match self.rx.recv_timeout(flush_every) {
                Ok(v) => events.push(v),
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => break,
            }
            let deadline = Instant::now() + flush_every;
            while events.len() < self.cfg.batch_events {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                match self.rx.recv_timeout(left) {
                    Ok(v) => events.push(v),
                    Err(RecvTimeoutError::Timeout) => break,
                    Err(RecvTimeoutError::Disconnected) => {
                        open = false;
                        break;
                    }
                }
            }
            self.deliver(events);
        }
    }

    fn deliver(&mut self, events: Vec<Value>) {
        let n = events.len() as u64;
        let body = json!({
            "version": 2,
            "collector": self.cfg.collector_id,
            "seq": self.next_seq,
            "sentUs": now_ns() / 1000,
            "events": events,
        })
        .to_string();
        self.next_seq += 1;
        let mut backoff = Duration::from_millis(self.cfg.min_backoff_ms);
        for attempt in 1..=self.cfg.max_attempts {
            let mut req = self.agent.post(&self.cfg.url).set("Content-Type", "application/json");
            if let Some(a) = &self.auth {
                req = req.set("Authorization", a);
            }
            match req.send_string(&body) {
                Ok(_) => {
                    self.counters.events_sent.inc_by(n);
                    self.counters.batches_sent.inc();
                    return;
                }
                Err(ureq::Error::Status(code, resp)) if (400..500).contains(&code) => {
                    eprintln!(
                        "planck-collector: controller refused an INT batch ({code}): {}",
                        resp.into_string().unwrap_or_default().trim()
                    );
                    self.counters.batches_rejected.inc();
                    self.counters.dropped.inc_by(n);
                    return;
                }
                Err(e) => {
                    self.counters.failures.inc();
                    if attempt == self.cfg.max_attempts {
                        eprintln!("planck-collector: INT batch to the controller failed {attempt} times ({e}); dropped");
                        break;
                    }
                    std::thread::sleep(backoff);
                    backoff = (backoff * 2).min(Duration::from_millis(self.cfg.max_backoff_ms));
                }
            }
        }
        self.counters.dropped.inc_by(n);
    }
}
