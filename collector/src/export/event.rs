//! Telemetry events, version 1 (docs/protocol/telemetry-events-v1.md).

use std::net::IpAddr;
use std::sync::Arc;

use serde::{Serialize, Serializer};

use crate::flow::EstimatorKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MacAddr(pub [u8; 6]);

impl Serialize for MacAddr {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&crate::forwarding::format_mac(&self.0))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FlowId {
    pub src: IpAddr,
    pub dst: IpAddr,
    pub proto: u8,
    pub sport: u16,
    pub dport: u16,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlowRate {
    pub flow: FlowId,
    pub switch: Arc<str>,
    pub port: u32,
    pub dst_mac: MacAddr,
    pub bytes_per_sec: f64,
    pub samples: u64,
    pub first_sample_us: u64,
    pub last_sample_us: u64,
    pub estimator: EstimatorKind,
    /// The rate is sampled bytes x a sampling ratio measured on other flows (see
    /// docs/protocol/telemetry-events-v1.md); omitted when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub low_confidence: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CongestionState {
    Congested,
    Cleared,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PortCongestion {
    pub switch: Arc<str>,
    pub port: u32,
    pub state: CongestionState,
    pub utilization: f64,
    pub load_bps: f64,
    pub capacity_bps: f64,
    pub sample_us: u64,
    pub time_us: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Event {
    FlowRate(FlowRate),
    PortCongestion(PortCongestion),
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Batch<'a> {
    pub version: u32,
    pub collector: &'a str,
    pub seq: u64,
    pub sent_us: u64,
    pub events: &'a [Event],
}

pub const MAX_EVENTS_PER_BATCH: usize = 10_000;

pub fn now_us() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or(0)
}

pub fn now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serializes_as_the_contract_example() {
        let events = vec![
            Event::FlowRate(FlowRate {
                flow: FlowId {
                    src: "10.0.0.1".parse().unwrap(),
                    dst: "10.0.0.9".parse().unwrap(),
                    proto: 6,
                    sport: 41234,
                    dport: 5201,
                },
                switch: Arc::from("of:0000000000000001"),
                port: 3,
                dst_mac: MacAddr([2, 0x70, 0, 0, 0, 9]),
                bytes_per_sec: 118000000.0,
                samples: 42,
                first_sample_us: 1763718000100000,
                last_sample_us: 1763718000121000,
                estimator: EstimatorKind::TcpSeq,
                low_confidence: false,
            }),
            Event::PortCongestion(PortCongestion {
                switch: Arc::from("of:0000000000000001"),
                port: 3,
                state: CongestionState::Congested,
                utilization: 0.93,
                load_bps: 930000000.0,
                capacity_bps: 1000000000.0,
                sample_us: 1763718000120950,
                time_us: 1763718000121010,
            }),
        ];
        let b = Batch {
            version: 1,
            collector: "c1",
            seq: 17,
            sent_us: 1763718000123456,
            events: &events,
        };
        let got: serde_json::Value = serde_json::to_value(&b).unwrap();
        let want: serde_json::Value = serde_json::from_str(r#"{
          "version": 1, "collector": "c1", "seq": 17, "sentUs": 1763718000123456,
          "events": [
            {"type": "FLOW_RATE",
             "flow": {"src": "10.0.0.1", "dst": "10.0.0.9", "proto": 6, "sport": 41234, "dport": 5201},
             "switch": "of:0000000000000001", "port": 3, "dstMac": "02:70:00:00:00:09",
             "bytesPerSec": 118000000.0, "samples": 42, "firstSampleUs": 1763718000100000,
             "lastSampleUs": 1763718000121000, "estimator": "TCP_SEQ"},
            {"type": "PORT_CONGESTION", "switch": "of:0000000000000001", "port": 3,
             "state": "CONGESTED", "utilization": 0.93, "loadBps": 930000000.0,
             "capacityBps": 1000000000.0, "sampleUs": 1763718000120950, "timeUs": 1763718000121010}
          ]}"#).unwrap();
        assert_eq!(got, want);
    }

    #[test]
    fn low_confidence_is_written_only_when_set() {
        let mut f = FlowRate {
            flow: FlowId {
                src: "10.0.0.1".parse().unwrap(),
                dst: "10.0.0.9".parse().unwrap(),
                proto: 17,
                sport: 1,
                dport: 2,
            },
            switch: Arc::from("of:1"),
            port: 3,
            dst_mac: MacAddr([2, 0, 0, 0, 0, 9]),
            bytes_per_sec: 1.0,
            samples: 2,
            first_sample_us: 1,
            last_sample_us: 2,
            estimator: EstimatorKind::SampledBytes,
            low_confidence: true,
        };
        let v = serde_json::to_value(Event::FlowRate(f.clone())).unwrap();
        assert_eq!(v["lowConfidence"], true);
        assert_eq!(v["estimator"], "SAMPLED_BYTES");
        f.low_confidence = false;
        let v = serde_json::to_value(Event::FlowRate(f)).unwrap();
        assert!(v.get("lowConfidence").is_none(), "{v}");
    }
}
