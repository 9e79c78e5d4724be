//! PINT events to the controller: `PINT_PATH` and `PINT_HOP_LATENCY` in
//! telemetry-events-v3 batches (docs/protocol/telemetry-events-v3.md). PINT switch
//! ids become device ids through the same switch map as INT's; an event naming an
//! unmapped switch is skipped (the caller counts it).

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::inband::pint_flows::{PathCause, PintEvent};

/// Batch version that carries PINT events.
pub const PINT_EVENTS_VERSION: u32 = 3;

fn flow_json(f: &crate::decode::FiveTuple) -> Value {
    json!({"src": f.src.to_string(), "dst": f.dst.to_string(), "proto": f.proto, "sport": f.sport, "dport": f.dport})
}

/// The contract's JSON for one event; None if a switch on it is not mapped.
pub fn pint_event_json(e: &PintEvent, switches: &HashMap<u32, String>, time_us: u64) -> Option<Value> {
    match e {
        PintEvent::Path { flow, switches: path, packets, cause } => {
            let devices: Option<Vec<&String>> = path.iter().map(|s| switches.get(s)).collect();
            Some(json!({
                "type": "PINT_PATH",
                "flow": flow_json(flow),
                "path": devices?,
                "packets": packets,
                "cause": match cause { PathCause::NewKey => "NEW_KEY", PathCause::PathChange => "PATH_CHANGE" },
                "timeUs": time_us,
            }))
        }
        PintEvent::HopLatency { flow, hop, switch, samples, p50_ns, p99_ns } => {
            let mut v = json!({
                "type": "PINT_HOP_LATENCY",
                "flow": flow_json(flow),
                "hop": hop,
                "samples": samples,
                "p50Ns": p50_ns.round() as u64,
                "p99Ns": p99_ns.round() as u64,
                "timeUs": time_us,
            });
            if let Some(s) = switch {
                v["switch"] = json!(switches.get(s)?);
            }
            Some(v)
        }
    }
}

/// A version-3 batch around already converted events.
pub fn pint_batch_json(collector: &str, seq: u64, sent_us: u64, events: Vec<Value>) -> Value {
    json!({"version": PINT_EVENTS_VERSION, "collector": collector, "seq": seq, "sentUs": sent_us, "events": events})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::FiveTuple;

    fn map() -> HashMap<u32, String> {
        (1..=3).map(|i| (i, format!("of:000000000000000{i}"))).collect()
    }

    fn flow() -> FiveTuple {
        FiveTuple { src: "10.0.0.1".parse().unwrap(), dst: "10.0.0.9".parse().unwrap(), proto: 6, sport: 41234, dport: 5201 }
    }

    /// The example in docs/protocol/telemetry-events-v3.md, field for field.
    #[test]
    fn serializes_as_the_contract_example() {
        let events = vec![
            pint_event_json(
                &PintEvent::Path { flow: flow(), switches: vec![1, 3, 2], packets: 17, cause: PathCause::NewKey },
                &map(),
                1763718000220001,
            )
            .unwrap(),
            pint_event_json(
                &PintEvent::HopLatency {
                    flow: flow(),
                    hop: 2,
                    switch: Some(3),
                    samples: 128,
                    p50_ns: 1840.4,
                    p99_ns: 9120.0,
                },
                &map(),
                1763718000220001,
            )
            .unwrap(),
        ];
        let got = pint_batch_json("c1", 19, 1763718000223456, events);
        let doc = include_str!("../../../docs/protocol/telemetry-events-v3.md");
        let start = doc.find("```json").unwrap() + 7;
        let end = start + doc[start..].find("```").unwrap();
        let want: Value = serde_json::from_str(&doc[start..end]).unwrap();
        assert_eq!(got, want);
    }

    #[test]
    fn unmapped_switches_are_skipped() {
        let e = PintEvent::Path { flow: flow(), switches: vec![1, 7], packets: 9, cause: PathCause::PathChange };
        assert!(pint_event_json(&e, &map(), 0).is_none());
        let e = PintEvent::HopLatency { flow: flow(), hop: 1, switch: Some(7), samples: 64, p50_ns: 1.0, p99_ns: 2.0 };
        assert!(pint_event_json(&e, &map(), 0).is_none());
        // Before the path is decoded a hop has no switch yet: the event goes without it.
        let e = PintEvent::HopLatency { flow: flow(), hop: 1, switch: None, samples: 64, p50_ns: 1.0, p99_ns: 2.0 };
        assert!(pint_event_json(&e, &map(), 0).unwrap().get("switch").is_none());
    }
}
