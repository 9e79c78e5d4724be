//! Run results and their CSV / JSON forms.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use serde::Serialize;

use crate::config::{Mode, OutputFormat};
use crate::engine::QueueSample;
use crate::packet::Slot;
use crate::runner::{Lag, WorkerLoad};

#[derive(Clone, Debug, Serialize)]
pub struct FlowRecord {
    pub id: u32,
    pub src: u16,
    pub dst: u16,
    pub size_pkts: u32,
    pub size_bytes: u64,
    pub class: u32,
    pub start_us: f64,
    pub finish_us: Option<f64>,
    pub fct_us: Option<f64>,
    /// Completion time on an otherwise empty network with an open window.
    pub ideal_fct_us: f64,
    pub normalized_fct: Option<f64>,
    pub retransmits: u32,
    pub timeouts: u32,
    /// Start to the last byte at the receiver: `fct_us` minus the ACK delay
    /// (ACKs are never delayed, and the last packet is ACKed at once).
    pub rx_fct_us: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct PortReport {
    pub switch: String,
    pub switch_id: u32,
    pub port: u16,
    pub peer: String,
    pub gbps: f64,
    pub buffer_pkts: u32,
    pub enqueued: u64,
    pub transmitted: u64,
    pub dropped: u64,
    pub marked: u64,
    pub mean_occupancy: f64,
    pub max_occupancy: u32,
    pub utilization: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct StreamReport {
    pub id: u32,
    pub src: u16,
    pub dst: Option<u16>,
    pub class: u32,
    pub rate: f64,
    pub sent: u64,
    pub nic_dropped: u64,
    pub delivered: u64,
    pub throughput_gbps: f64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct FctSummary {
    pub completed: usize,
    pub mean_us: Option<f64>,
    pub p50_us: Option<f64>,
    pub p99_us: Option<f64>,
    pub mean_normalized: Option<f64>,
    /// Flows under 100 KB.
    pub small_mean_normalized: Option<f64>,
    pub small_p99_normalized: Option<f64>,
}

fn percentile(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    Some(sorted[i])
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

impl FctSummary {
    pub fn of(flows: &[FlowRecord]) -> Self {
        let mut fct: Vec<f64> = flows.iter().filter_map(|f| f.fct_us).collect();
        fct.sort_by(f64::total_cmp);
        let norm: Vec<f64> = flows.iter().filter_map(|f| f.normalized_fct).collect();
        let mut small: Vec<f64> = flows
            .iter()
            .filter(|f| f.size_bytes < 100_000)
            .filter_map(|f| f.normalized_fct)
            .collect();
        small.sort_by(f64::total_cmp);
        FctSummary {
            completed: fct.len(),
            mean_us: mean(&fct),
            p50_us: percentile(&fct, 0.5),
            p99_us: percentile(&fct, 0.99),
            mean_normalized: mean(&norm),
            small_mean_normalized: mean(&small),
            small_p99_normalized: percentile(&small, 0.99),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub scheme: String,
    pub mode: Mode,
    pub threads: usize,
    pub endpoints: usize,
    pub switches: usize,
    pub slots: Slot,
    pub slot_ns: f64,
    pub emulated_us: f64,
    pub wall_seconds: f64,
    /// Packets sent by router ports (one per router hop).
    pub router_packets: u64,
    /// router_packets per wall-clock second.
    pub pkts_per_sec: f64,
    pub delivered_packets: u64,
    pub throughput_gbps: f64,
    pub drops: u64,
    pub marks: u64,
    pub nic_drops: u64,
    pub late_transfers: u64,
    pub flows_started: usize,
    pub flows_completed: usize,
    pub fct: FctSummary,
    pub realtime: Option<Lag>,
    /// Per worker thread: router hops, run time and time spent waiting for the others.
    pub workers: Vec<WorkerLoad>,
    pub queue_samples_kept: usize,
    pub queue_samples_dropped: u64,
    /// Events of `output.trace_flows` kept in flow_trace.csv, and those over
    /// the bound per flow (counted, not kept).
    pub trace_events: usize,
    pub trace_events_dropped: u64,
    /// Real hosts' frame counters (`crate::realhost`), when the run had any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub real_hosts: Option<serde_json::Value>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub summary: Summary,
    pub flows: Vec<FlowRecord>,
    pub ports: Vec<PortReport>,
    pub streams: Vec<StreamReport>,
    pub queue_series: Vec<QueueSample>,
    /// Sender events of the traced flows (`output.trace_flows`), by slot.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flow_trace: Vec<crate::endpoint::transport::TraceEvent>,
    /// PINT latency query against exact values (`[pint] latency_probe`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pint_latency: Vec<crate::pint_probe::LatencyRow>,
}

fn csv_file<T: Serialize>(path: &Path, rows: &[T]) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_path(path)?;
    for r in rows {
        w.serialize(r)?;
    }
    w.flush()?;
    Ok(())
}

impl Report {
    /// CSV: flows.csv, ports.csv, streams.csv, queues.csv and summary.json.
    /// JSON: report.json with everything.
    pub fn write(&self, dir: &Path, format: OutputFormat) -> anyhow::Result<()> {
        std::fs::create_dir_all(dir)?;
        match format {
            OutputFormat::Json => {
                serde_json::to_writer_pretty(
                    BufWriter::new(File::create(dir.join("report.json"))?),
                    self,
                )?;
            }
            OutputFormat::Csv => {
                csv_file(&dir.join("flows.csv"), &self.flows)?;
                csv_file(&dir.join("ports.csv"), &self.ports)?;
                csv_file(&dir.join("streams.csv"), &self.streams)?;
                csv_file(&dir.join("queues.csv"), &self.queue_series)?;
                if !self.pint_latency.is_empty() {
                    csv_file(&dir.join("pint_latency.csv"), &self.pint_latency)?;
                }
                if !self.flow_trace.is_empty() {
                    csv_file(&dir.join("flow_trace.csv"), &self.flow_trace)?;
                }
                serde_json::to_writer_pretty(
                    BufWriter::new(File::create(dir.join("summary.json"))?),
                    &self.summary,
                )?;
            }
        }
        Ok(())
    }
}
