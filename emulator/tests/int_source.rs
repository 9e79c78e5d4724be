//! The lab fabric as INT source/transit/sink: its telemetry reports decode with the
//! collector's INT decoder (planck-collector, a dev-dependency) to the values the
//! emulated switches had, for both report versions.

use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;

use planck_collector::decode::int::{HopMetadata, IntDecoder, IntDecoderConfig, ReportBuf, ReportVersion};
use planck_emu::fabric::topology::{Peer, Topology};
use planck_emu::lab::FabricConfig;
use planck_emu::lab::engine::{Command, FabricEngine, FlowSpec};
use planck_emu::lab::frames::FrameFields;
use planck_emu::lab::int_report::{IntHop, Report, ReportAddress, ReportFormat, build_report};
use planck_emu::lab::rules::{Mac, OpKind, RuleActions, RuleMatch, RuleOp};

const SLOT_NS: u32 = 12_000;

fn decoder() -> IntDecoder {
    IntDecoder::new(&IntDecoderConfig::default()).unwrap()
}

fn as_collector(h: &IntHop) -> HopMetadata {
    HopMetadata {
        switch_id: h.switch_id,
        ingress_port: h.ingress_port,
        egress_port: h.egress_port,
        hop_latency: h.hop_latency_ns,
        queue_id: h.queue_id,
        queue_occupancy: h.queue_occupancy,
        tx_utilization: h.tx_utilization,
        ..HopMetadata::default()
    }
}

#[test]
fn report_frames_decode_to_every_field_in_both_versions() {
    let packet = FrameFields {
        vlan: 0,
        eth_src: Mac(1),
        eth_dst: Mac(5),
        ip_src: Ipv4Addr::new(10, 0, 0, 1),
        ip_dst: Ipv4Addr::new(10, 0, 0, 5),
        sport: 40011,
        dport: 5001,
        seq: 0xdead_beef,
        ack: 7,
        payload: 1460,
        ip_id: 0,
        ttl: 59,
    };
    let hops: Vec<IntHop> = (0..5u32)
        .map(|i| IntHop {
            switch_id: 20 - i,
            ingress_port: 1 + i as u16,
            egress_port: 4 - i as u16,
            hop_latency_ns: i * SLOT_NS,
            queue_id: (4 - i) as u8,
            queue_occupancy: 0x00ab_cdef >> i,
            tx_utilization: 1000 - 100 * i,
        })
        .collect();
    let to = ReportAddress {
        src_mac: Mac(0x0200_0000_1e01),
        dst_mac: Mac(0x0200_0000_1e02),
        src_ip: Ipv4Addr::new(198, 18, 14, 2),
        dst_ip: Ipv4Addr::new(198, 18, 14, 1),
        src_port: 54320,
        dst_port: 54321,
    };
    for (format, version) in [(ReportFormat::V10, ReportVersion::V10), (ReportFormat::V2, ReportVersion::V2)] {
        for exceeded in [false, true] {
            let r = Report {
                format,
                sink: 20,
                seq: 0x0040_0007,
                ingress_ts: 123_456_789,
                congested_queue: false,
                packet: &packet,
                hops: &hops,
                remaining_hops: 3,
                exceeded,
            };
            let mut frame = Vec::new();
            build_report(&r, &to, &mut frame);
            let mut buf = ReportBuf::default();
            decoder().decode_frame(&frame, &mut buf).unwrap_or_else(|e| panic!("{format:?}: {e}"));
            let reports = buf.reports();
            assert_eq!(reports.len(), 1);
            let d = &reports[0];
            assert_eq!(d.version, version);
            assert_eq!(d.node_id, Some(20));
            assert!(d.has_int);
            assert_eq!(d.instructions, 0xf100);
            assert_eq!(d.hop_budget, 3);
            let flow = d.flow.unwrap();
            assert_eq!((flow.src, flow.dst), (IpAddr::V4(packet.ip_src), IpAddr::V4(packet.ip_dst)));
            assert_eq!((flow.proto, flow.sport, flow.dport), (6, 40011, 5001));
            let want: Vec<HopMetadata> = hops.iter().map(as_collector).collect();
            assert_eq!(d.hops(), &want[..], "{format:?}");
            match format {
                ReportFormat::V10 => assert_eq!((d.seq, d.report_ts), (0x0040_0007, Some(123_456_789))),
                // v2.x keeps 22 bits of the sequence number.
                ReportFormat::V2 => assert_eq!(d.seq, 7),
            }
        }
    }
}

/// Rules that send every packet for host d's MAC along BFS shortest paths (lowest port first).
fn routes(topo: &Topology) -> Vec<RuleOp> {
    let mut ops = Vec::new();
    for (d, e) in topo.endpoints.iter().enumerate() {
        // Next hop towards the destination's switch from every switch.
        let mut port_to: HashMap<usize, u16> = HashMap::new();
        port_to.insert(e.switch as usize, e.port);
        let mut q = VecDeque::from([e.switch as usize]);
        while let Some(u) = q.pop_front() {
            for p in &topo.switches[u].ports {
                if let Peer::Switch { switch: v, port: back } = p.peer {
                    let v = v as usize;
                    if let std::collections::hash_map::Entry::Vacant(slot) = port_to.entry(v) {
                        slot.insert(back);
                        q.push_back(v);
                    }
                }
            }
        }
        for (&sw, &port) in &port_to {
            ops.push(RuleOp {
                kind: OpKind::Add,
                switch: sw,
                priority: 100,
                matcher: RuleMatch { eth_dst: Some(Mac(d as u64 + 1)), ..RuleMatch::default() },
                actions: Some(RuleActions { set_eth_dst: None, output: port + 1 }),
            });
        }
    }
    ops
}

/// The (switch number, in port, out port) hops of host s to host d under [`routes`].
fn path(topo: &Topology, s: usize, d: usize) -> Vec<(u32, u16, u16)> {
    let ops = routes(topo);
    let out = |sw: usize| {
        ops.iter()
            .find(|o| o.switch == sw && o.matcher.eth_dst == Some(Mac(d as u64 + 1)))
            .unwrap()
            .actions
            .unwrap()
            .output
    };
    let (mut sw, mut in_port) = (topo.endpoints[s].switch as usize, topo.endpoints[s].port + 1);
    let mut hops = Vec::new();
    loop {
        let o = out(sw);
        hops.push((sw as u32 + 1, in_port, o));
        match topo.switches[sw].ports[o as usize - 1].peer {
            Peer::Endpoint(_) => return hops,
            Peer::Switch { switch, port } => {
                sw = switch as usize;
                in_port = port + 1;
            }
        }
    }
}

/// Runs flows of `flows` (src, dst, start µs) on a virtual-time k=4 fat tree with INT on
/// every switch (edges source and sink), `slots` timeslots; the reports' pcap and status.
fn run(version: &str, flows: &[(usize, usize, f64)], slots: u64, pcap: &Path) -> (Topology, serde_json::Value) {
    let cfg = FabricConfig::parse(&format!(
        "[fabric]\ntopology = \"fattree:4\"\nlink_gbps = 1.0\nbuffer_pkts = 100\nmode = \"virtual\"\n\
         [int]\ndomain = \"edges\"\nsample_one_in = 4\nversion = \"{version}\"\nmax_reports_per_ms = 100000\n\
         [int.report]\npcap = \"{}\"\n",
        pcap.display()
    ))
    .unwrap();
    let mut engine = FabricEngine::new(&cfg, false).unwrap();
    let topo = engine.topology().clone();
    engine.handle(Command::Rules(routes(&topo))).unwrap();
    let specs = flows
        .iter()
        .enumerate()
        .map(|(i, &(src, dst, start_us))| FlowSpec {
            id: i as u64 + 1,
            src,
            dst,
            bytes: 4_000_000,
            start_us,
            sport: 40000 + i as u16,
            dport: 5001,
        })
        .collect();
    engine.handle(Command::StartFlows(specs)).unwrap();
    for _ in 0..slots {
        engine.step();
    }
    let status = engine.handle(Command::Status).unwrap();
    (topo, status)
}

fn decoded(pcap: &Path) -> Vec<planck_collector::decode::int::IntReport> {
    let mut reader = pcap_file::pcap::PcapReader::new(std::fs::File::open(pcap).unwrap()).unwrap();
    let dec = decoder();
    let mut buf = ReportBuf::default();
    let mut out = Vec::new();
    while let Some(p) = reader.next_packet() {
        let p = p.unwrap();
        assert_eq!(p.orig_len as usize, p.data.len());
        dec.decode_frame(&p.data, &mut buf).unwrap_or_else(|e| panic!("report rejected: {e}"));
        out.push(buf.reports()[0]);
    }
    out
}

#[test]
fn a_lone_flow_sees_empty_queues_and_its_five_hop_path() {
    for version in ["1.0", "2"] {
        let dir = tempfile::tempdir().unwrap();
        let pcap = dir.path().join("int.pcap");
        // 20 ms: the flow (4 MB, ~33 ms at line rate) is still running.
        let (topo, status) = run(version, &[(0, 4, 0.0)], 1664, &pcap);
        let reports = decoded(&pcap);
        let int = &status["int"];
        assert_eq!(int["reports"].as_u64().unwrap() as usize, reports.len(), "{status}");
        assert_eq!(int["reportsDropped"], 0);
        assert_eq!(int["sinkErrors"], 0);
        assert!(reports.len() > 100, "{} reports", reports.len());
        let want = path(&topo, 0, 4);
        assert_eq!(want.len(), 5);
        for r in &reports {
            assert_eq!(r.node_id, Some(want[4].0));
            let f = r.flow.unwrap();
            assert_eq!((f.sport, f.dport), (40000, 5001));
            // Stack order: the sink first.
            let got: Vec<(u32, u16, u16)> = r.hops().iter().rev().map(|h| (h.switch_id, h.ingress_port, h.egress_port)).collect();
            assert_eq!(got, want);
            for h in r.hops() {
                // One packet per slot in, one per slot out: nothing waits anywhere.
                assert_eq!((h.hop_latency, h.queue_occupancy), (0, 0), "{h:?}");
                assert_eq!(u16::from(h.queue_id), h.egress_port);
                assert!(h.tx_utilization <= 1000);
            }
        }
        // Once the window is open the flow sends every slot: its ports are (nearly) fully used.
        let busiest = reports.iter().flat_map(|r| r.hops().iter().map(|h| h.tx_utilization)).max().unwrap();
        assert!(busiest >= 900, "max utilisation {busiest}");
    }
}

#[test]
fn converging_flows_show_the_queue_they_build_and_its_delay() {
    let dir = tempfile::tempdir().unwrap();
    let pcap = dir.path().join("int.pcap");
    // Hosts 0 and 1 (edge 1) both send to host 4: same path, so edge 1's uplink carries
    // two flows at line rate each and its queue builds.
    let (topo, status) = run("2", &[(0, 4, 0.0), (1, 4, 0.0)], 2500, &pcap);
    let reports = decoded(&pcap);
    assert_eq!(status["int"]["reports"].as_u64().unwrap() as usize, reports.len());
    let uplink = path(&topo, 0, 4)[0];
    let other = path(&topo, 1, 4)[0];
    assert_eq!((uplink.0, uplink.2), (other.0, other.2), "the two flows share their first uplink");
    let at_uplink: Vec<&HopMetadata> = reports
        .iter()
        .map(|r| r.hops().last().unwrap())
        .filter(|h| h.switch_id == uplink.0 && h.egress_port == uplink.2)
        .collect();
    assert!(!at_uplink.is_empty());
    let max_q = at_uplink.iter().map(|h| h.queue_occupancy).max().unwrap();
    let max_lat = at_uplink.iter().map(|h| h.hop_latency).max().unwrap();
    // The DropTail buffer is 100 packets.
    assert!((20..=100).contains(&max_q), "max queue {max_q}");
    assert!(max_lat >= 20 * SLOT_NS && max_lat <= 101 * SLOT_NS, "max latency {max_lat}");
    for h in &at_uplink {
        // Latency is whole slots of the emulator's clock.
        assert_eq!(h.hop_latency % SLOT_NS, 0);
    }
}

mod round_trip {
    use super::*;
    use proptest::prelude::*;

    fn hop() -> impl Strategy<Value = IntHop> {
        (any::<u32>(), any::<u16>(), any::<u16>(), any::<u32>(), any::<u8>(), 0u32..(1 << 24), any::<u32>()).prop_map(
            |(switch_id, ingress_port, egress_port, hop_latency_ns, queue_id, queue_occupancy, tx_utilization)| IntHop {
                switch_id,
                ingress_port,
                egress_port,
                hop_latency_ns,
                queue_id,
                queue_occupancy,
                tx_utilization,
            },
        )
    }

    proptest! {
        /// Any stack of 1-8 hops, any sequence number, payload and ports: the collector reads
        /// back exactly what the fabric wrote, in either version.
        #[test]
        fn any_report_decodes_to_what_was_written(
            hops in proptest::collection::vec(hop(), 1..=8),
            v2 in any::<bool>(),
            seq in any::<u32>(),
            payload in 0u16..=1460,
            sport in any::<u16>(),
            dport in any::<u16>(),
            exceeded in any::<bool>(),
        ) {
            let packet = FrameFields {
                vlan: 0, eth_src: Mac(3), eth_dst: Mac(0x0270_0000_0009),
                ip_src: Ipv4Addr::new(10, 0, 0, 3), ip_dst: Ipv4Addr::new(10, 0, 0, 9),
                sport, dport, seq: 1, ack: 2, payload, ip_id: 0, ttl: 60,
            };
            let remaining = 8 - hops.len() as u8;
            let r = Report {
                format: if v2 { ReportFormat::V2 } else { ReportFormat::V10 },
                sink: hops[0].switch_id,
                seq,
                ingress_ts: 5,
                congested_queue: false,
                packet: &packet,
                hops: &hops,
                remaining_hops: remaining,
                exceeded,
            };
            let to = ReportAddress {
                src_mac: Mac(1), dst_mac: Mac(2), src_ip: Ipv4Addr::new(198, 18, 14, 2),
                dst_ip: Ipv4Addr::new(198, 18, 14, 1), src_port: 54320, dst_port: 54321,
            };
            let mut frame = Vec::new();
            build_report(&r, &to, &mut frame);
            let mut buf = ReportBuf::default();
            prop_assert!(decoder().decode_frame(&frame, &mut buf).is_ok());
            let d = buf.reports()[0];
            let want: Vec<HopMetadata> = hops.iter().map(as_collector).collect();
            prop_assert_eq!(d.hops(), &want[..]);
            prop_assert_eq!(d.hop_budget, remaining);
            prop_assert_eq!(d.seq, if v2 { seq & 0x003f_ffff } else { seq });
            let f = d.flow.unwrap();
            prop_assert_eq!((f.sport, f.dport), (sport, dport));
        }
    }
}
