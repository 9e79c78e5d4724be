//! INT events to InfluxDB 1.x as line protocol over HTTP (`POST /write?db=..&precision=ns`),
//! stamped with the report's time. Bounded twice: the event channel has a fixed capacity
//! (a full channel drops and counts), and the writer holds one batch of at most
//! `batch_lines` lines while it retries with exponential backoff; a batch that fails
//! `max_attempts` times, or that InfluxDB refuses with 4xx, is dropped and counted.
//!
//! Measurements (tags; fields):
//! - `int_flow_path` (src, dst, proto, sport, dport; path="1-2-3", hops, cause)
//! - `int_flow_latency` (flow tags; value ns, cause)
//! - `int_hop_latency` (flow tags, switch; value ns, cause)
//! - `int_link_utilization` (switch, port; value, cause)
//! - `int_queue_occupancy` (switch, queue; value, cause)
//! - `int_queue_congestion` (switch, queue; value, cause)
//! - `int_drop` (switch, queue; reason, cause; flow tags when known)

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TrySendError};
use prometheus_client::metrics::counter::Counter;

use crate::decode::FiveTuple;
use crate::inband::config::InfluxSection;
use crate::inband::state::{Cause, EventKind, IntEvent};

/// Counters of the writer (exported on /metrics by the INT metrics).
#[derive(Clone, Debug, Default)]
pub struct InfluxCounters {
    pub lines_written: Counter,
    pub batches_written: Counter,
    pub write_failures: Counter,
    pub batches_rejected: Counter,
    pub batches_abandoned: Counter,
    pub lines_dropped: Counter,
}

/// Where the INT stage hands events; never blocks.
#[derive(Clone)]
pub struct InfluxSink {
    tx: Sender<IntEvent>,
    counters: InfluxCounters,
}

impl InfluxSink {
    pub fn send(&self, e: IntEvent) {
        match self.tx.try_send(e) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                self.counters.lines_dropped.inc_by(1);
            }
        }
    }
}

fn cause_str(c: Cause) -> &'static str {
    match c {
        Cause::NewKey => "new_key",
        Cause::PathChange => "path_change",
        Cause::Interval => "interval",
        Cause::Periodic => "periodic",
        Cause::Report => "report",
    }
}

fn flow_tags(out: &mut String, f: &FiveTuple) {
    // IPv6 addresses contain ':' only, which needs no escaping in tag values.
    let _ = write!(out, ",src={},dst={},proto={},sport={},dport={}", f.src, f.dst, f.proto, f.sport, f.dport);
}

/// Appends one event as a line of line protocol (with its newline).
pub fn format_line(out: &mut String, e: &IntEvent) {
    let cause = cause_str(e.cause);
    match &e.kind {
        EventKind::FlowPath { flow, path } => {
            out.push_str("int_flow_path");
            flow_tags(out, flow);
            out.push_str(" path=\"");
            for (i, s) in path.as_slice().iter().enumerate() {
                if i > 0 {
                    out.push('-');
                }
                let _ = write!(out, "{s}");
            }
            let _ = write!(out, "\",hops={}i", path.len);
        }
        EventKind::FlowLatency { flow, latency_ns } => {
            out.push_str("int_flow_latency");
            flow_tags(out, flow);
            let _ = write!(out, " value={latency_ns}i");
        }
        EventKind::HopLatency { flow, switch, latency_ns, .. } => {
            out.push_str("int_hop_latency");
            flow_tags(out, flow);
            let _ = write!(out, ",switch={switch} value={latency_ns}i");
        }
        EventKind::LinkUtilization { switch, port, utilization } => {
            let _ = write!(out, "int_link_utilization,switch={switch},port={port} value={utilization}i");
        }
        EventKind::QueueOccupancy { switch, queue, occupancy, .. } => {
            let _ = write!(out, "int_queue_occupancy,switch={switch},queue={queue} value={occupancy}i");
        }
        EventKind::QueueCongestion { switch, queue, congestion } => {
            let _ = write!(out, "int_queue_congestion,switch={switch},queue={queue} value={congestion}i");
        }
        EventKind::Drop { switch, queue, reason, flow } => {
            let _ = write!(out, "int_drop,switch={switch},queue={queue}");
            if let Some(f) = flow {
                flow_tags(out, f);
            }
            let _ = write!(out, " reason={reason}i");
        }
    }
    let _ = writeln!(out, ",cause=\"{cause}\" {}", e.ts_ns);
}

pub struct InfluxWriter {
    cfg: InfluxSection,
    rx: Receiver<IntEvent>,
    agent: ureq::Agent,
    write_url: String,
    counters: InfluxCounters,
}

enum Outcome {
    Written,
    Rejected(u16, String),
    Failed(String),
}

impl InfluxWriter {
    pub fn new(cfg: InfluxSection, counters: InfluxCounters) -> (InfluxWriter, InfluxSink) {
        let (tx, rx) = crossbeam_channel::bounded(cfg.queue_capacity);
        let agent = ureq::AgentBuilder::new()
            .timeout(Duration::from_millis(cfg.timeout_ms))
            .max_idle_connections(1)
            .build();
        let write_url = format!("{}/write?db={}&precision=ns", cfg.url.trim_end_matches('/'), cfg.database);
        (
            InfluxWriter { cfg, rx, agent, write_url, counters: counters.clone() },
            InfluxSink { tx, counters },
        )
    }

    fn post(&self, body: &str) -> Outcome {
        match self.agent.post(&self.write_url).set("Content-Type", "text/plain; charset=utf-8").send_string(body) {
            Ok(_) => Outcome::Written,
            Err(ureq::Error::Status(code, resp)) if (400..500).contains(&code) => {
                Outcome::Rejected(code, resp.into_string().unwrap_or_default())
            }
            Err(e) => Outcome::Failed(e.to_string()),
        }
    }

    /// Runs until every sink is dropped, then flushes what it holds. A batch is sent
    /// when it is full or `flush_ms` after its first line.
    pub fn run(self) {
        let flush_every = Duration::from_millis(self.cfg.flush_ms);
        let mut batch = String::with_capacity(self.cfg.batch_lines.min(1 << 16) * 96);
        let mut open = true;
        while open {
            batch.clear();
            match self.rx.recv_timeout(flush_every) {
                Ok(e) => format_line(&mut batch, &e),
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => break,
            }
            let mut lines = 1;
            let deadline = Instant::now() + flush_every;
            while lines < self.cfg.batch_lines {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                match self.rx.recv_timeout(left) {
                    Ok(e) => {
                        format_line(&mut batch, &e);
                        lines += 1;
                    }
                    Err(RecvTimeoutError::Timeout) => break,
                    Err(RecvTimeoutError::Disconnected) => {
                        open = false;
                        break;
                    }
                }
            }
            self.deliver(&batch, lines);
        }
    }

    /// Delivers one batch, retrying with backoff; events arriving meanwhile wait in the
    /// bounded channel.
    fn deliver(&self, batch: &str, lines: usize) {
        let mut backoff = Duration::from_millis(self.cfg.min_backoff_ms);
        for attempt in 1..=self.cfg.max_attempts {
            match self.post(batch) {
                Outcome::Written => {
                    self.counters.lines_written.inc_by(lines as u64);
                    self.counters.batches_written.inc_by(1);
                    return;
                }
                Outcome::Rejected(code, why) => {
                    eprintln!("planck-collector: InfluxDB refused a batch of {lines} lines ({code}): {}", why.trim());
                    self.counters.batches_rejected.inc_by(1);
                    self.counters.lines_dropped.inc_by(lines as u64);
                    return;
                }
                Outcome::Failed(why) => {
                    self.counters.write_failures.inc_by(1);
                    if attempt == self.cfg.max_attempts {
                        eprintln!("planck-collector: InfluxDB write failed {attempt} times ({why}); dropping {lines} lines");
                        break;
                    }
                    std::thread::sleep(backoff);
                    backoff = (backoff * 2).min(Duration::from_millis(self.cfg.max_backoff_ms));
                }
            }
        }
        self.counters.batches_abandoned.inc_by(1);
        self.counters.lines_dropped.inc_by(lines as u64);
    }
}

#[cfg(test)]
mod tests {
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

    use super::*;
    use crate::decode::int::MAX_HOPS;
    use crate::inband::state::Path;

    fn flow(src: IpAddr, dst: IpAddr) -> FiveTuple {
        FiveTuple { src, dst, proto: 17, sport: 5000, dport: 5001 }
    }

    #[test]
    fn lines_follow_the_documented_schema() {
        let f = flow(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)), IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)));
        let mut switches = [0; MAX_HOPS];
        switches[..3].copy_from_slice(&[1, 2, 3]);
        let mut out = String::new();
        format_line(&mut out, &IntEvent { ts_ns: 42, cause: Cause::NewKey, kind: EventKind::FlowPath { flow: f, path: Path { len: 3, switches } } });
        format_line(&mut out, &IntEvent { ts_ns: 43, cause: Cause::Interval, kind: EventKind::HopLatency { flow: f, switch: 2, port: Some(3), latency_ns: 260 } });
        format_line(&mut out, &IntEvent { ts_ns: 44, cause: Cause::Periodic, kind: EventKind::QueueOccupancy { switch: 7, queue: 1, port: None, occupancy: 900 } });
        let v6 = flow(IpAddr::V6(Ipv6Addr::LOCALHOST), IpAddr::V6(Ipv6Addr::UNSPECIFIED));
        format_line(&mut out, &IntEvent { ts_ns: 45, cause: Cause::Report, kind: EventKind::Drop { switch: 7, queue: 1, reason: 71, flow: Some(v6) } });
        assert_eq!(
            out,
            "int_flow_path,src=10.0.0.1,dst=10.0.0.2,proto=17,sport=5000,dport=5001 path=\"1-2-3\",hops=3i,cause=\"new_key\" 42\n\
             int_hop_latency,src=10.0.0.1,dst=10.0.0.2,proto=17,sport=5000,dport=5001,switch=2 value=260i,cause=\"interval\" 43\n\
             int_queue_occupancy,switch=7,queue=1 value=900i,cause=\"periodic\" 44\n\
             int_drop,switch=7,queue=1,src=::1,dst=::,proto=17,sport=5000,dport=5001 reason=71i,cause=\"report\" 45\n"
        );
    }
}
