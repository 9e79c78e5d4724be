//! Reports built by an independent encoder (scapy, with header classes written from the
//! INT specs in tests/int_scapy/int_reports.py) decode to the values the generator put
//! in. Needs python3 with scapy (scripts/deps.sh installs python3-scapy).

use std::fs::File;
use std::net::IpAddr;
use std::process::Command;

use pcap_file::pcap::PcapReader;
use planck_collector::decode::int::{
    HopMetadata, IntDecoder, IntDecoderConfig, IntReport, ReportBuf, ReportVersion,
};
use serde_json::Value;

fn u(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

fn hop_from(v: &Value) -> HopMetadata {
    HopMetadata {
        switch_id: u(v, "switch_id") as u32,
        ingress_port: u(v, "ingress_port") as u16,
        egress_port: u(v, "egress_port") as u16,
        hop_latency: u(v, "hop_latency") as u32,
        queue_id: u(v, "queue_id") as u8,
        queue_occupancy: u(v, "queue_occupancy") as u32,
        ingress_ts: u(v, "ingress_ts"),
        egress_ts: u(v, "egress_ts"),
        l2_ingress_port: u(v, "l2_ingress_port") as u32,
        l2_egress_port: u(v, "l2_egress_port") as u32,
        tx_utilization: u(v, "tx_utilization") as u32,
        buffer_id: u(v, "buffer_id") as u8,
        buffer_occupancy: u(v, "buffer_occupancy") as u32,
        congestion_queue_id: u(v, "congestion_queue_id") as u8,
        queue_congestion: u(v, "queue_congestion") as u32,
        drop_queue_id: u(v, "drop_queue_id") as u8,
        drop_reason: u(v, "drop_reason") as u8,
    }
}

fn check(want: &Value, got: &IntReport, at: &str) {
    let version = match want["version"].as_str().unwrap() {
        "0.5" => ReportVersion::V05,
        "1.0" => ReportVersion::V10,
        _ => ReportVersion::V2,
    };
    assert_eq!(got.version, version, "{at}");
    assert_eq!(got.hw_id as u64, u(want, "hw_id"), "{at} hw_id");
    assert_eq!(got.seq as u64, u(want, "seq"), "{at} seq");
    if version != ReportVersion::V2 {
        assert_eq!(got.report_ts.map(u64::from), Some(u(want, "report_ts")), "{at} ts");
    }
    if version != ReportVersion::V05 {
        assert_eq!(got.node_id.map(u64::from), Some(u(want, "node_id")), "{at} node");
    }
    let f: Vec<u64> = want["flags"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
    assert_eq!(
        [got.flags.dropped, got.flags.congested_queue, got.flags.tracked_flow, got.flags.intermediate],
        [f[0] == 1, f[1] == 1, f[2] == 1, f[3] == 1],
        "{at} flags"
    );
    let flow = got.flow.expect("flow");
    let wf = &want["flow"];
    assert_eq!(flow.src, wf["src"].as_str().unwrap().parse::<IpAddr>().unwrap(), "{at}");
    assert_eq!(flow.dst, wf["dst"].as_str().unwrap().parse::<IpAddr>().unwrap(), "{at}");
    assert_eq!(
        (flow.proto as u64, flow.sport as u64, flow.dport as u64),
        (u(wf, "proto"), u(wf, "sport"), u(wf, "dport")),
        "{at} flow"
    );
    assert_eq!(got.original_dscp.map(u64::from), Some(u(want, "original_dscp")), "{at} dscp");
    let hops: Vec<HopMetadata> = want["hops"].as_array().unwrap().iter().map(hop_from).collect();
    assert_eq!(got.hops(), &hops[..], "{at} hops");
    if let Some(bits) = want.get("instructions") {
        assert_eq!(got.instructions as u64, bits.as_u64().unwrap(), "{at} bitmap");
        assert_eq!(got.hop_budget as u64, u(want, "hop_budget"), "{at} budget");
        assert!(got.has_int, "{at}");
    } else {
        assert!(!got.has_int, "{at}");
    }
    if version == ReportVersion::V2 {
        let mut local = hop_from(&want["local"]);
        if u(want, "local_bits") & 0x8000 == 0 {
            local.switch_id = u(want, "node_id") as u32;
        }
        assert_eq!(got.local, local, "{at} local");
    }
}

#[test]
fn scapy_reports_decode_to_the_values_sent() {
    let dir = tempfile::tempdir().unwrap();
    let pcap = dir.path().join("reports.pcap");
    let json = dir.path().join("expected.json");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/int_scapy/int_reports.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(&pcap)
        .arg(&json)
        .arg("14")
        .output()
        .expect("python3 is required (scripts/deps.sh)");
    assert!(
        out.status.success(),
        "the scapy generator failed (scapy is installed by scripts/deps.sh): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected: Value = serde_json::from_reader(File::open(&json).unwrap()).unwrap();
    let frames = expected["frames"].as_array().unwrap();
    let d = IntDecoder::new(&IntDecoderConfig { max_hops: 8, ..IntDecoderConfig::default() }).unwrap();
    let mut reader = PcapReader::new(File::open(&pcap).unwrap()).unwrap();
    let mut buf = ReportBuf::default();
    let mut n = 0;
    let mut reports = 0;
    let mut versions = [0usize; 3];
    while let Some(pkt) = reader.next_packet() {
        let pkt = pkt.unwrap();
        let want = frames[n].as_array().unwrap();
        d.decode_frame(&pkt.data, &mut buf)
            .unwrap_or_else(|e| panic!("frame {n} rejected: {e}"));
        assert_eq!(buf.reports().len(), want.len(), "frame {n}");
        for (i, (w, g)) in want.iter().zip(buf.reports()).enumerate() {
            check(w, g, &format!("frame {n} report {i}"));
            versions[g.version as usize] += 1;
        }
        reports += want.len();
        n += 1;
    }
    assert_eq!(n, frames.len());
    assert!(versions.iter().all(|&v| v >= 50), "every version exercised: {versions:?}");
    assert!(reports > n);
}
