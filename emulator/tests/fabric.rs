//! The lab fabric: rule tables, the control API, shadow-MAC forwarding end to
//! end on a k=4 fat tree, and mirror frames decoded back from a pcap.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use planck_emu::lab::rules::{
    Headers, Mac, OpKind, RuleActions, RuleMatch, RuleOp, RuleTable, apply_batch,
};
use planck_emu::lab::{FabricConfig, RunningFabric};
use serde_json::{Value, json};

fn mac(s: &str) -> Mac {
    s.parse().unwrap()
}

fn headers(in_port: u16, src: &str, dst: &str, sport: u16) -> Headers {
    Headers {
        in_port,
        eth_src: mac(src),
        eth_dst: mac(dst),
        ip_src: "10.0.0.1".parse().unwrap(),
        ip_dst: "10.0.0.5".parse().unwrap(),
        proto: 6,
        sport,
        dport: 5001,
    }
}

fn out(port: u16) -> RuleActions {
    RuleActions {
        set_eth_dst: None,
        output: port,
    }
}

#[test]
fn highest_priority_wins_and_add_replaces_actions() {
    let mut t = RuleTable::default();
    let by_dst = RuleMatch {
        eth_dst: Some(mac("00:00:00:00:00:05")),
        ..Default::default()
    };
    let by_flow = RuleMatch {
        sport: Some(40001),
        ..by_dst
    };
    t.add(100, by_dst, out(3), 4).unwrap();
    t.add(2000, by_flow, out(4), 4).unwrap();
    let h = headers(1, "00:00:00:00:00:01", "00:00:00:00:00:05", 40001);
    assert_eq!(t.rules()[t.lookup(&h).unwrap()].actions.output, 4);
    let other = headers(1, "00:00:00:00:00:01", "00:00:00:00:00:05", 40002);
    assert_eq!(t.rules()[t.lookup(&other).unwrap()].actions.output, 3);
    assert!(
        t.lookup(&headers(1, "00:00:00:00:00:01", "00:00:00:00:00:06", 1))
            .is_none()
    );
    // Same (priority, match): modify in place.
    let g = t.generation;
    t.add(2000, by_flow, out(2), 4).unwrap();
    assert_eq!(t.rules().len(), 2);
    assert_eq!(t.rules()[t.lookup(&h).unwrap()].actions.output, 2);
    assert_ne!(t.generation, g);
}

#[test]
fn overlapping_equal_priority_rejected_disjoint_accepted() {
    let mut t = RuleTable::default();
    let a = RuleMatch {
        eth_dst: Some(mac("00:00:00:00:00:05")),
        ..Default::default()
    };
    let overlapping = RuleMatch {
        eth_src: Some(mac("00:00:00:00:00:01")),
        ..Default::default()
    };
    let disjoint = RuleMatch {
        eth_dst: Some(mac("00:00:00:00:00:06")),
        ..Default::default()
    };
    t.add(100, a, out(1), 4).unwrap();
    assert!(t.add(100, overlapping, out(2), 4).is_err());
    t.add(100, disjoint, out(2), 4).unwrap();
    t.add(101, overlapping, out(2), 4).unwrap();
    assert_eq!(t.rules().len(), 3);
    // Output must be a port of the switch.
    assert!(t.add(5, a, out(5), 4).is_err());
    assert!(t.add(5, a, out(0), 4).is_err());
}

#[test]
fn delete_missing_is_an_error_and_batches_are_atomic() {
    let mut tables = vec![RuleTable::default(), RuleTable::default()];
    let m = RuleMatch {
        eth_dst: Some(mac("02:70:00:00:00:05")),
        ..Default::default()
    };
    let add = |sw, prio| RuleOp {
        kind: OpKind::Add,
        switch: sw,
        priority: prio,
        matcher: m,
        actions: Some(out(1)),
    };
    let del = |sw, prio| RuleOp {
        kind: OpKind::Delete,
        switch: sw,
        priority: prio,
        matcher: m,
        actions: None,
    };
    let ports = [4u16, 4];
    assert_eq!(
        apply_batch(&mut tables, &[add(0, 10), add(1, 10)], &ports),
        Ok(2)
    );
    // The third op fails: none of the batch may apply.
    let err = apply_batch(&mut tables, &[del(0, 10), add(1, 20), del(1, 99)], &ports);
    assert!(err.unwrap_err().contains("op 2"));
    assert_eq!(tables[0].rules().len(), 1);
    assert_eq!(tables[1].rules().len(), 1);
    // Add then delete within one batch is fine.
    assert_eq!(
        apply_batch(&mut tables, &[add(1, 30), del(1, 30), del(0, 10)], &ports),
        Ok(3)
    );
    assert!(tables[0].rules().is_empty());
    assert_eq!(tables[1].rules().len(), 1);
}

#[test]
fn mac_parsing_round_trips_and_rejects_garbage() {
    assert_eq!(mac("02:70:00:00:01:05").to_string(), "02:70:00:00:01:05");
    for bad in [
        "",
        "02:70:00:00:01",
        "02:70:00:00:01:05:06",
        "zz:70:00:00:01:05",
        "2:70:00:00:01:05",
    ] {
        assert!(bad.parse::<Mac>().is_err(), "{bad}");
    }
}

// ---------------------------------------------------------------- API

fn fabric(topology: &str) -> RunningFabric {
    // rt_priority: as root the control thread runs at SCHED_FIFO (the lab's setting), otherwise
    // it says so on stderr and serves at normal priority; either way every API test below runs.
    let cfg = FabricConfig::parse(&format!(
        "[fabric]\ntopology = \"{topology}\"\nlink_gbps = 1.0\nbuffer_pkts = 100\nmode = \"realtime\"\nspin = false\n[control]\nlisten = \"127.0.0.1:0\"\nrt_priority = 10\n"
    ))
    .unwrap();
    planck_emu::lab::start(&cfg).unwrap()
}

struct Client {
    base: String,
}

impl Client {
    fn new(f: &RunningFabric) -> Self {
        Client {
            base: format!("http://{}", f.addr),
        }
    }
    fn get(&self, path: &str) -> Value {
        ureq::get(&format!("{}{path}", self.base))
            .call()
            .unwrap()
            .into_json()
            .unwrap()
    }
    /// (status, body) for any status.
    fn send(&self, method: &str, path: &str, body: &str) -> (u16, Value) {
        match ureq::request(method, &format!("{}{path}", self.base)).send_string(body) {
            Ok(r) => {
                let code = r.status();
                let text = r.into_string().unwrap();
                (code, serde_json::from_str(&text).unwrap_or(Value::Null))
            }
            Err(ureq::Error::Status(code, r)) => (code, r.into_json().unwrap()),
            Err(e) => panic!("{e}"),
        }
    }
    /// Installs rule ops (one version-1 batch), which must be accepted; the answer.
    fn apply_rules(&self, ops: Value) -> Value {
        let (code, ans) = self.send(
            "POST",
            "/v1/rules",
            &json!({"version": 1, "ops": ops}).to_string(),
        );
        assert_eq!(code, 200, "{ans}");
        ans
    }
    fn shutdown(self, f: RunningFabric) {
        let (code, _) = self.send("POST", "/v1/shutdown", "");
        assert_eq!(code, 204);
        f.join();
    }
}

/// A shadow-MAC plan as the controller would build it: for each destination
/// host one shadow MAC 02:70:00:00:00:xx, routed along BFS shortest paths
/// (lowest port first) to its edge switch, which restores the real MAC; the
/// source's edge switch rewrites the real MAC to the shadow one.
fn shadow_plan(topo: &Value, pairs: &[(usize, usize)]) -> Vec<Value> {
    let links = topo["links"].as_array().unwrap();
    let hosts = topo["hosts"].as_array().unwrap();
    let mut adj: HashMap<String, Vec<(u64, String)>> = HashMap::new();
    for l in links {
        adj.entry(l["src"].as_str().unwrap().into())
            .or_default()
            .push((
                l["srcPort"].as_u64().unwrap(),
                l["dst"].as_str().unwrap().into(),
            ));
    }
    for v in adj.values_mut() {
        v.sort();
    }
    let mut ops = Vec::new();
    let mut done_dst = Vec::new();
    for &(s, d) in pairs {
        let dst = &hosts[d];
        let dsw = dst["switch"].as_str().unwrap().to_string();
        let shadow = format!("02:70:00:00:00:{:02x}", d + 1);
        // Next hop towards dsw from every switch: BFS from dsw over reversed links
        // (links are symmetric in a fat tree).
        let mut next: HashMap<String, u64> = HashMap::new();
        let mut seen = vec![dsw.clone()];
        let mut q = VecDeque::from([dsw.clone()]);
        while let Some(u) = q.pop_front() {
            for (_, v) in &adj[&u] {
                if !seen.contains(v) {
                    seen.push(v.clone());
                    // Port on v that leads back to u.
                    let port = adj[v].iter().find(|(_, w)| *w == u).unwrap().0;
                    next.insert(v.clone(), port);
                    q.push_back(v.clone());
                }
            }
        }
        if !done_dst.contains(&d) {
            done_dst.push(d);
            for (sw, port) in &next {
                ops.push(json!({"op": "add", "switch": sw, "priority": 100,
                    "match": {"ethDst": shadow}, "actions": {"output": port}}));
            }
            ops.push(json!({"op": "add", "switch": dsw, "priority": 100,
                "match": {"ethDst": shadow},
                "actions": {"setEthDst": dst["mac"], "output": dst["port"]}}));
        }
        let src = &hosts[s];
        let ssw = src["switch"].as_str().unwrap();
        ops.push(json!({"op": "add", "switch": ssw, "priority": 1000,
            "match": {"ethSrc": src["mac"], "ethDst": dst["mac"]},
            "actions": {"setEthDst": shadow, "output": next[ssw]}}));
    }
    ops
}

fn wait_flows_done(c: &Client, n: usize) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let f = c.get("/v1/flows");
        let flows = f["flows"].as_array().unwrap();
        if flows.len() == n && flows.iter().all(|x| x["done"] == true) {
            return f;
        }
        assert!(Instant::now() < deadline, "flows not done: {f}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn topology_follows_the_contract() {
    let f = fabric("fattree:4");
    let c = Client::new(&f);
    let t = c.get("/v1/topology");
    assert_eq!(t["version"], 1);
    assert_eq!(t["linkBps"], 1_000_000_000u64);
    assert_eq!(t["switches"].as_array().unwrap().len(), 20);
    // 16 edge-agg + 16 agg-core bidirectional links, one entry per direction.
    assert_eq!(t["links"].as_array().unwrap().len(), 64);
    let hosts = t["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 16);
    assert_eq!(hosts[0]["mac"], "00:00:00:00:00:01");
    assert_eq!(hosts[15]["ip"], "10.0.0.16");
    assert_eq!(hosts[0]["switch"], "of:0000000000000001");
    let roles: Vec<&str> = t["switches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles.iter().filter(|r| **r == "core").count(), 4);
    assert_eq!(roles.iter().filter(|r| **r == "edge").count(), 8);
    c.shutdown(f);
}

#[test]
fn bad_requests_are_rejected_and_change_nothing() {
    let f = fabric("fattree:4");
    let c = Client::new(&f);
    let good = json!({"op": "add", "switch": "of:0000000000000001", "priority": 100,
        "match": {"ethDst": "02:70:00:00:00:05"}, "actions": {"output": 3}});
    c.apply_rules(json!([good]));
    let before = c.get("/v1/counters")["rules"].clone();
    let bad_rules = [
        "{not json".to_string(),
        json!({"version": 2, "ops": []}).to_string(),
        json!({"version": 1, "ops": [good, {"op": "add", "switch": "of:0000000000000099", "priority": 1,
            "match": {}, "actions": {"output": 1}}]}).to_string(),
        json!({"version": 1, "ops": [{"op": "add", "switch": "of:0000000000000001", "priority": 1,
            "match": {"ethDst": "nope"}, "actions": {"output": 1}}]}).to_string(),
        json!({"version": 1, "ops": [{"op": "add", "switch": "of:0000000000000001", "priority": 1,
            "match": {"vlan": 3}, "actions": {"output": 1}}]}).to_string(),
        // A valid add followed by a delete of a missing rule: all-or-nothing.
        json!({"version": 1, "ops": [
            {"op": "add", "switch": "of:0000000000000002", "priority": 5, "match": {}, "actions": {"output": 1}},
            {"op": "delete", "switch": "of:0000000000000001", "priority": 7, "match": {}}]}).to_string(),
        // Overlap at equal priority with the installed rule.
        json!({"version": 1, "ops": [{"op": "add", "switch": "of:0000000000000001", "priority": 100,
            "match": {"ethSrc": "00:00:00:00:00:01"}, "actions": {"output": 4}}]}).to_string(),
        json!({"version": 1, "ops": [{"op": "add", "switch": "of:0000000000000001", "priority": 1,
            "match": {}, "actions": {"output": 9}}]}).to_string(),
    ];
    for body in &bad_rules {
        let (code, err) = c.send("POST", "/v1/rules", body);
        assert_eq!(code, 400, "{body}: {err}");
        assert_eq!(err["code"], 400);
        assert!(!err["message"].as_str().unwrap().is_empty());
    }
    assert_eq!(c.get("/v1/counters")["rules"], before);

    let bad_mirrors = [
        json!({"version": 1, "mirrors": [{"switch": "of:0000000000000001", "rspanVlan": 1,
            "rateBps": 100000000, "bufferBytes": 30000, "snapLen": 128}]}).to_string(),
        json!({"version": 1, "sink": {"type": "interface", "name": "no-such-if0"}, "mirrors": [{"switch": "of:0000000000000001", "rspanVlan": 1,
            "rateBps": 100000000, "bufferBytes": 30000, "snapLen": 128}]}).to_string(),
        json!({"version": 1, "sink": {"type": "pcap", "path": "/tmp/x.pcap"}, "mirrors": [{"switch": "of:0000000000000001", "rspanVlan": 5000,
            "rateBps": 100000000, "bufferBytes": 30000, "snapLen": 128}]}).to_string(),
        json!({"version": 1, "sink": {"type": "carrier-pigeon"}, "mirrors": []}).to_string(),
    ];
    for body in &bad_mirrors {
        let (code, err) = c.send("PUT", "/v1/mirrors", body);
        assert_eq!(code, 400, "{body}: {err}");
    }
    let bad_flows = [
        json!({"version": 1, "flows": [{"id": 1, "src": "00:00:00:00:00:01", "dst": "00:00:00:00:00:99",
            "bytes": 1000, "sport": 1, "dport": 2}]}).to_string(),
        json!({"version": 1, "flows": [{"id": 1, "src": "00:00:00:00:00:01", "dst": "00:00:00:00:00:01",
            "bytes": 1000, "sport": 1, "dport": 2}]}).to_string(),
        json!({"version": 1, "flows": [{"id": 1, "src": "00:00:00:00:00:01", "dst": "00:00:00:00:00:02",
            "bytes": 0, "sport": 1, "dport": 2}]}).to_string(),
        json!({"version": 1, "flows": [
            {"id": 1, "src": "00:00:00:00:00:01", "dst": "00:00:00:00:00:02", "bytes": 10, "sport": 1, "dport": 2},
            {"id": 1, "src": "00:00:00:00:00:03", "dst": "00:00:00:00:00:02", "bytes": 10, "sport": 1, "dport": 2}]}).to_string(),
    ];
    for body in &bad_flows {
        let (code, err) = c.send("POST", "/v1/flows", body);
        assert_eq!(code, 400, "{body}: {err}");
    }
    assert_eq!(c.get("/v1/flows")["flows"].as_array().unwrap().len(), 0);
    let st = c.get("/v1/status");
    assert_eq!(st["mirrorFrames"], 0);
    assert_eq!(c.send("GET", "/v1/nothing", "").0, 404);
    assert_eq!(c.send("DELETE", "/v1/rules", "").0, 405);
    c.shutdown(f);
}

#[test]
fn unmatched_packets_are_dropped_and_counted() {
    let f = fabric("switch:16");
    let c = Client::new(&f);
    let (code, _) = c.send("POST", "/v1/flows", &json!({"version": 1, "flows": [{"id": 3,
        "src": "00:00:00:00:00:01", "dst": "00:00:00:00:00:02", "bytes": 3000, "sport": 1, "dport": 2}]}).to_string());
    assert_eq!(code, 200);
    let deadline = Instant::now() + Duration::from_secs(10);
    while c.get("/v1/status")["unmatched"].as_u64().unwrap() < 2 {
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(10));
    }
    let counters = c.get("/v1/counters");
    let p1 = counters["ports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["port"] == 1)
        .unwrap()
        .clone();
    assert!(p1["drops"].as_u64().unwrap() >= 2, "{p1}");
    assert_eq!(c.get("/v1/flows")["flows"][0]["done"], false);
    c.shutdown(f);
}

/// Shadow-MAC plan installed over the API on a k=4 fat tree; two flows, one
/// after the other, cross pods to host 5; mirrors on the ingress edge (fast) and on the egress edge (slow,
/// oversubscribed) write into a pcap that is decoded back.
#[test]
fn shadow_mac_flows_cross_the_fat_tree_and_mirrors_emit_real_frames() {
    let f = fabric("fattree:4");
    let c = Client::new(&f);
    let topo = c.get("/v1/topology");
    let ops = shadow_plan(&topo, &[(0, 4), (1, 4)]);
    let ans = c.apply_rules(json!(ops));
    assert_eq!(ans["applied"].as_u64().unwrap() as usize, ops.len());
    assert!(ans["appliedUs"].as_u64().unwrap() > 1_600_000_000_000_000);

    let dir = tempfile::tempdir().unwrap();
    let pcap = dir.path().join("mirror.pcap");
    let (code, ans) = c.send("PUT", "/v1/mirrors", &json!({"version": 1,
        "sink": {"type": "pcap", "path": pcap},
        "mirrors": [
            {"switch": "of:0000000000000001", "rspanVlan": 1, "rateBps": 2_000_000_000u64, "bufferBytes": 200_000, "snapLen": 128},
            {"switch": "of:0000000000000005", "rspanVlan": 3, "rateBps": 100_000_000u64, "bufferBytes": 6000, "snapLen": 96}]}).to_string());
    assert_eq!(code, 200, "{ans}");
    let bytes = 2_000_000u64;
    let (code, ans) = c.send("POST", "/v1/flows", &json!({"version": 1, "flows": [
        {"id": 11, "src": "00:00:00:00:00:01", "dst": "00:00:00:00:00:05", "bytes": bytes, "sport": 40011, "dport": 5001},
        {"id": 12, "src": "00:00:00:00:00:02", "dst": "00:00:00:00:00:05", "bytes": bytes, "startUs": 25000.0, "sport": 40012, "dport": 5001}]}).to_string());
    assert_eq!(code, 200, "{ans}");
    let flows = wait_flows_done(&c, 2);
    for fl in flows["flows"].as_array().unwrap() {
        assert_eq!(fl["sentBytes"], bytes);
        let dur = fl["finishUs"].as_u64().unwrap() - fl["startUs"].as_u64().unwrap();
        // 2 MB at 1 Gb/s (1460 payload bytes per 1500-byte slot) takes >= 16.4 ms.
        assert!(dur >= 16_000, "{fl}");
    }
    let st = c.get("/v1/status");
    assert_eq!(st["unmatched"], 0, "{st}");
    assert_eq!(st["misdelivered"], 0, "{st}");
    assert!(
        st["mirrorDrops"].as_u64().unwrap() > 0,
        "slow mirror must drop: {st}"
    );
    let counters = c.get("/v1/counters");
    let ingress = counters["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["switch"] == "of:0000000000000001" && r["priority"] == 1000)
        .unwrap()
        .clone();
    assert!(
        ingress["packets"].as_u64().unwrap() >= bytes / 1460,
        "{ingress}"
    );
    let frames_reported = st["mirrorFrames"].as_u64().unwrap();
    c.shutdown(f);

    // Decode the pcap.
    let file = std::fs::File::open(&pcap).unwrap();
    let mut reader = pcap_file::pcap::PcapReader::new(file).unwrap();
    /// (seq, sport, IPv4 total length, eth src, eth dst, ip src, ip dst, captured length, original length)
    type Decoded = (
        u32,
        u16,
        u32,
        [u8; 6],
        [u8; 6],
        [u8; 4],
        [u8; 4],
        usize,
        u32,
    );
    let mut by_vlan: HashMap<u16, Vec<Decoded>> = HashMap::new();
    let mut count = 0u64;
    while let Some(p) = reader.next_packet() {
        let p = p.unwrap();
        count += 1;
        let s = etherparse::LaxSlicedPacket::from_ethernet(&p.data).unwrap();
        let eth = match s.link.unwrap() {
            etherparse::LinkSlice::Ethernet2(e) => e,
            other => panic!("{other:?}"),
        };
        let vlan = match s.vlan.unwrap() {
            etherparse::VlanSlice::SingleVlan(v) => v.vlan_identifier().value(),
            other => panic!("{other:?}"),
        };
        let ip = match s.net.unwrap() {
            etherparse::LaxNetSlice::Ipv4(ip) => ip,
            other => panic!("{other:?}"),
        };
        let h = ip.header().to_header();
        assert_eq!(h.header_checksum, h.calc_header_checksum(), "IPv4 checksum");
        let tcp = match s.transport.unwrap() {
            etherparse::TransportSlice::Tcp(t) => t,
            other => panic!("{other:?}"),
        };
        assert!(tcp.ack() && tcp.psh());
        by_vlan.entry(vlan).or_default().push((
            tcp.sequence_number(),
            tcp.source_port(),
            h.total_len as u32,
            eth.source(),
            eth.destination(),
            h.source,
            h.destination,
            p.data.len(),
            p.orig_len,
        ));
    }
    assert_eq!(count, frames_reported);
    let fast = &by_vlan[&1];
    let slow = &by_vlan[&3];
    assert!(
        slow.len() < fast.len(),
        "oversubscribed mirror carries fewer frames"
    );
    for (vlan, frames, snap) in [(1, fast, 128usize), (3, slow, 96)] {
        for fr in frames {
            assert_eq!(fr.7, snap, "vlan {vlan}: truncated to snapLen");
            // Real length: 14 + 4 + IPv4 total length.
            assert_eq!(fr.8, 18 + fr.2);
            assert_eq!(fr.6, [10, 0, 0, 5]);
        }
    }
    // On the ingress edge (fast mirror, no drops, no loss on the path) each
    // flow's frames advance by exactly one segment of 1460 bytes.
    for (sport, src_ip, src_mac) in [
        (40011u16, [10, 0, 0, 1], [0, 0, 0, 0, 0, 1]),
        (40012, [10, 0, 0, 2], [0, 0, 0, 0, 0, 2]),
    ] {
        let seqs: Vec<_> = fast.iter().filter(|f| f.1 == sport).collect();
        let n = bytes.div_ceil(1460) as usize;
        assert_eq!(seqs.len(), n, "every packet mirrored once");
        for w in seqs.windows(2) {
            assert_eq!(w[1].0.wrapping_sub(w[0].0), 1460);
        }
        for fr in &seqs {
            assert_eq!(fr.3, src_mac);
            assert_eq!(fr.5, src_ip);
            // Leaving the ingress edge the packet carries the shadow MAC.
            assert_eq!(fr.4, [0x02, 0x70, 0, 0, 0, 5]);
        }
        assert_eq!(
            seqs.last().unwrap().2,
            40 + (bytes - 1460 * (n as u64 - 1)) as u32
        );
    }
    // Leaving the egress edge towards host 5 the real MAC is restored.
    assert!(slow.iter().any(|f| f.4 == [0, 0, 0, 0, 0, 5]));
}

/// A veth pair created (and deleted) by the test.
/// An oversubscribed mirror port samples every busy port of its switch fairly. Two flows
/// leave one switch by two ports in the same timeslots; a mirror at a tenth of one link's
/// rate has room for one copy in ten, and that copy must not always go to the port that
/// happens to be served first in a slot (which left the other port's flow without samples
/// for as long as both were busy: invisible to the collector, so never rerouted).
#[test]
fn an_oversubscribed_mirror_samples_the_ports_of_its_switch_fairly() {
    let f = fabric("switch:4");
    let c = Client::new(&f);
    let topo = c.get("/v1/topology");
    let hosts = topo["hosts"].as_array().unwrap();
    let sw = hosts[0]["switch"].as_str().unwrap().to_string();
    let ops: Vec<Value> = hosts
        .iter()
        .map(|h| json!({"op": "add", "switch": sw, "priority": 100,
            "match": {"ethDst": h["mac"]}, "actions": {"output": h["port"]}}))
        .collect();
    c.apply_rules(json!(ops));
    let dir = tempfile::tempdir().unwrap();
    let pcap = dir.path().join("mirror.pcap");
    let (code, ans) = c.send("PUT", "/v1/mirrors", &json!({"version": 1,
        "sink": {"type": "pcap", "path": pcap},
        "mirrors": [{"switch": sw, "rspanVlan": 1, "rateBps": 100_000_000u64, "bufferBytes": 6000, "snapLen": 96}]}).to_string());
    assert_eq!(code, 200, "{ans}");
    let bytes = 3_000_000u64;
    let (code, ans) = c.send("POST", "/v1/flows", &json!({"version": 1, "flows": [
        {"id": 1, "src": hosts[0]["mac"], "dst": hosts[2]["mac"], "bytes": bytes, "sport": 40001, "dport": 5001},
        {"id": 2, "src": hosts[1]["mac"], "dst": hosts[3]["mac"], "bytes": bytes, "sport": 40002, "dport": 5001}]}).to_string());
    assert_eq!(code, 200, "{ans}");
    wait_flows_done(&c, 2);
    let st = c.get("/v1/status");
    assert!(st["mirrorDrops"].as_u64().unwrap() > st["mirrorFrames"].as_u64().unwrap(), "the mirror is oversubscribed: {st}");
    c.shutdown(f);

    let mut reader = pcap_file::pcap::PcapReader::new(std::fs::File::open(&pcap).unwrap()).unwrap();
    let mut by_sport: HashMap<u16, u64> = HashMap::new();
    while let Some(p) = reader.next_packet() {
        let p = p.unwrap();
        let s = etherparse::LaxSlicedPacket::from_ethernet(&p.data).unwrap();
        if let Some(etherparse::TransportSlice::Tcp(t)) = s.transport {
            *by_sport.entry(t.source_port()).or_default() += 1;
        }
    }
    let (a, b) = (by_sport.get(&40001).copied().unwrap_or(0), by_sport.get(&40002).copied().unwrap_or(0));
    let total = (a + b) as f64;
    assert!(total > 100.0, "{by_sport:?}");
    // Both flows ran side by side at line rate for their whole life: each port's share of
    // the copies is about a half (binomial spread over hundreds of copies is a few %).
    for (sport, n) in [(40001, a), (40002, b)] {
        assert!(n as f64 >= 0.35 * total, "flow {sport} got {n} of {total} mirror copies: {by_sport:?}");
    }
}

struct Veth {
    a: String,
}

impl Veth {
    fn create(a: &str, b: &str) -> Option<Veth> {
        let ok = |args: &[&str]| {
            std::process::Command::new("ip")
                .args(args)
                .status()
                .map(|s| s.success())
                .unwrap_or(false)
        };
        if !ok(&["link", "add", a, "type", "veth", "peer", "name", b]) {
            return None;
        }
        let v = Veth { a: a.to_string() };
        if ok(&["link", "set", a, "up"]) && ok(&["link", "set", b, "up"]) {
            Some(v)
        } else {
            None
        }
    }
}

impl Drop for Veth {
    fn drop(&mut self) {
        let _ = std::process::Command::new("ip")
            .args(["link", "del", &self.a])
            .status();
    }
}

/// Receive frames on `ifname` until `until` (AF_PACKET, all protocols).
/// A flow moved mid-flight from a queued path to an idle one overtakes its own packets still in
/// the queue: its receiver holds the early arrivals and the cumulative ACK jumps once the gap
/// fills, as a host's TCP keeps out-of-order data.
#[test]
fn a_moved_flow_is_reassembled_at_its_receiver() {
    let f = fabric("fattree:4");
    let c = Client::new(&f);
    let topo = c.get("/v1/topology");
    // Hosts 0 and 1 share an edge switch; their shadow trees leave it by the same (lowest) uplink.
    let ops = shadow_plan(&topo, &[(0, 4), (1, 5)]);
    c.apply_rules(json!(ops));
    let bytes = 20_000_000u64;
    let (code, ans) = c.send("POST", "/v1/flows", &json!({"version": 1, "flows": [
        {"id": 21, "src": "00:00:00:00:00:01", "dst": "00:00:00:00:00:05", "bytes": bytes, "sport": 40021, "dport": 5001},
        {"id": 22, "src": "00:00:00:00:00:02", "dst": "00:00:00:00:00:06", "bytes": bytes, "sport": 40022, "dport": 5001}]}).to_string());
    assert_eq!(code, 200, "{ans}");
    // Both share the uplink (a queue builds); then flow 21 alone takes the other uplink.
    std::thread::sleep(Duration::from_millis(40));
    let hosts = topo["hosts"].as_array().unwrap();
    let ssw = hosts[0]["switch"].as_str().unwrap();
    let uplinks: Vec<u64> = topo["links"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["src"] == ssw)
        .map(|l| l["srcPort"].as_u64().unwrap())
        .collect();
    let used = ops
        .iter()
        .find(|o| {
            o["switch"] == ssw && o["priority"] == 1000 && o["match"]["ethSrc"] == hosts[0]["mac"]
        })
        .unwrap()["actions"]["output"]
        .as_u64()
        .unwrap();
    let other = *uplinks.iter().find(|&&p| p != used).unwrap();
    c.apply_rules(json!([
        {"op": "add", "switch": ssw, "priority": 2000,
         "match": {"ethSrc": hosts[0]["mac"], "ethDst": hosts[4]["mac"]},
         "actions": {"setEthDst": "02:70:00:00:00:05", "output": other}}]));
    let flows = wait_flows_done(&c, 2);
    for fl in flows["flows"].as_array().unwrap() {
        assert_eq!(fl["sentBytes"], bytes, "{fl}");
    }
    let st = c.get("/v1/status");
    assert!(
        st["heldOutOfOrder"].as_u64().unwrap() > 0,
        "no reordering after the move: {st}"
    );
    assert_eq!(st["reassemblyDrops"], 0, "{st}");
    assert_eq!(st["misdelivered"], 0, "{st}");
    c.shutdown(f);
}

fn capture(ifname: &str, until: Instant, stop: &std::sync::atomic::AtomicBool) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let name = std::ffi::CString::new(ifname).unwrap();
    // SAFETY: plain socket calls on a socket this function owns and closes.
    unsafe {
        let fd = libc::socket(
            libc::AF_PACKET,
            libc::SOCK_RAW,
            (libc::ETH_P_ALL as u16).to_be() as i32,
        );
        assert!(fd >= 0);
        let mut sll: libc::sockaddr_ll = std::mem::zeroed();
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = (libc::ETH_P_ALL as u16).to_be();
        sll.sll_ifindex = libc::if_nametoindex(name.as_ptr()) as i32;
        assert_eq!(
            libc::bind(
                fd,
                &sll as *const _ as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_ll>() as u32
            ),
            0
        );
        let tv = libc::timeval {
            tv_sec: 0,
            tv_usec: 50_000,
        };
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_RCVTIMEO,
            &tv as *const _ as *const libc::c_void,
            std::mem::size_of::<libc::timeval>() as u32,
        );
        let mut buf = vec![0u8; 4096];
        // Room for every frame of the test even if this thread runs late.
        let rcvbuf: libc::c_int = 8 << 20;
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_RCVBUFFORCE,
            &rcvbuf as *const _ as *const libc::c_void,
            std::mem::size_of::<libc::c_int>() as u32,
        );
        while Instant::now() < until {
            let n = libc::recv(fd, buf.as_mut_ptr() as *mut libc::c_void, buf.len(), 0);
            if n > 0 {
                out.push(buf[..n as usize].to_vec());
            } else if stop.load(std::sync::atomic::Ordering::Relaxed) {
                // Drained: nothing arrived for one receive timeout after the sender stopped.
                break;
            }
        }
        libc::close(fd);
    }
    out
}

#[test]
fn interface_sink_sends_frames_over_a_veth() {
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("interface_sink_sends_frames_over_a_veth: needs root (veth), not run");
        return;
    }
    let tag = std::process::id() % 100_000;
    let (a, b) = (format!("pkf{tag}a"), format!("pkf{tag}b"));
    let Some(_veth) = Veth::create(&a, &b) else {
        panic!("could not create veth {a}/{b}");
    };
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (b2, stop2) = (b.clone(), stop.clone());
    let rx =
        std::thread::spawn(move || capture(&b2, Instant::now() + Duration::from_secs(10), &stop2));
    std::thread::sleep(Duration::from_millis(100));

    let f = fabric("switch:16");
    let c = Client::new(&f);
    c.apply_rules(
        json!([{"op": "add", "switch": "of:0000000000000001", "priority": 10,
        "match": {"ethDst": "00:00:00:00:00:02"}, "actions": {"output": 2}}]),
    );
    let mirrors = json!({"version": 1, "sink": {"type": "interface", "name": a},
        "mirrors": [{"switch": "of:0000000000000001", "rspanVlan": 7, "rateBps": 2_000_000_000u64, "bufferBytes": 100_000, "snapLen": 128}]});
    let (code, ans) = c.send("PUT", "/v1/mirrors", &mirrors.to_string());
    assert_eq!(code, 200, "{ans}");
    let flow = json!({"version": 1, "flows": [{"id": 1, "src": "00:00:00:00:00:01", "dst": "00:00:00:00:00:02",
        "bytes": 500_000, "sport": 40001, "dport": 5001}]});
    assert_eq!(c.send("POST", "/v1/flows", &flow.to_string()).0, 200);
    wait_flows_done(&c, 1);
    let st = c.get("/v1/status");
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    c.shutdown(f);
    let frames = rx.join().unwrap();
    assert_eq!(st["sinkErrors"], 0, "{st}");
    let sent = st["mirrorFrames"].as_u64().unwrap();
    assert_eq!(
        sent,
        500_000u64.div_ceil(1460),
        "every packet mirrored once: {st}"
    );
    // The kernel may move the 802.1Q tag out of the frame (VLAN offload); the
    // rest must arrive as sent.
    let ours: Vec<_> = frames
        .iter()
        .filter_map(|fr| etherparse::LaxSlicedPacket::from_ethernet(fr).ok())
        .filter_map(|p| match (&p.net, &p.transport) {
            (Some(etherparse::LaxNetSlice::Ipv4(ip)), Some(etherparse::TransportSlice::Tcp(t)))
                if ip.header().source() == [10, 0, 0, 1] =>
            {
                Some((
                    ip.header().destination(),
                    t.source_port(),
                    t.sequence_number(),
                ))
            }
            _ => None,
        })
        .collect();
    assert_eq!(ours.len() as u64, sent, "captured all frames on the peer");
    assert!(ours.iter().all(|o| o.0 == [10, 0, 0, 2] && o.1 == 40001));
    for w in ours.windows(2) {
        assert_eq!(w[1].2.wrapping_sub(w[0].2), 1460);
    }
}

#[test]
fn cli_bad_config_exits_with_one_line_reason() {
    let dir = tempfile::tempdir().unwrap();
    for (text, want) in [
        ("[fabric]\ntopology = \"ring:5\"\n", "fabric.topology"),
        ("[fabric]\nscheme = \"red\"\n", "droptail"),
        ("[fabric]\nlink_gbps = 0.0\n", "link_gbps"),
        ("[fabric]\ncolour = 1\n", "unknown field"),
        ("[fabric]\n[control]\nrt_priority = 100\n", "control.rt_priority"),
        ("[fabric]\nbatch_us = 20000\n", "fabric.batch_us"),
        ("[fabric]\nengine_rt_priority = 100\n", "fabric.engine_rt_priority"),
    ] {
        let path = dir.path().join("bad.toml");
        std::fs::write(&path, text).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_planck-emu"))
            .args(["fabric", "--config"])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{text}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(want), "{text}: {err}");
    }
}

#[test]
fn cli_fabric_serves_and_shuts_down_cleanly() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.toml");
    std::fs::write(
        &path,
        "[fabric]\ntopology = \"switch:16\"\nspin = false\n[control]\nlisten = \"127.0.0.1:0\"\n",
    )
    .unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_planck-emu"))
        .args(["fabric", "--config"])
        .arg(&path)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.trim().rsplit(' ').next().unwrap().to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{line}");
    let st: Value = ureq::get(&format!("{url}/v1/status"))
        .call()
        .unwrap()
        .into_json()
        .unwrap();
    assert_eq!(st["mode"], "realtime");
    let r = ureq::post(&format!("{url}/v1/shutdown")).call().unwrap();
    assert_eq!(r.status(), 204);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            assert!(s.success());
            break;
        }
        assert!(Instant::now() < deadline, "fabric did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Median of `n` sequential request/answer pairs on one kept-alive connection, in ms.
fn keep_alive_median_ms(url: &str, n: usize) -> f64 {
    let agent = ureq::AgentBuilder::new()
        .max_idle_connections_per_host(1)
        .build();
    let mut ms: Vec<f64> = (0..n)
        .map(|_| {
            let t = Instant::now();
            let body = agent.get(url).call().unwrap().into_string().unwrap();
            assert!(body.len() > 2048, "the answer must span several writes");
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    ms[n / 2]
}

#[test]
fn control_api_answers_are_not_held_by_delayed_acks() {
    // The topology answer (~10 KiB) leaves tiny_http's 1 KiB buffer in several writes; with
    // Nagle on the server socket each later one waits for the client's delayed ACK (40 ms).
    let f = fabric("fattree:4");
    let c = Client::new(&f);
    let median = keep_alive_median_ms(&format!("{}/v1/topology", c.base), 50);
    assert!(
        median < 25.0,
        "median answer {median:.1} ms: a delayed-ACK stall (~40 ms)"
    );
    c.shutdown(f);
}

#[test]
fn real_hosts_refuse_telemetry_that_only_the_fabric_s_own_packets_carry() {
    // Real frames carry neither a PINT digest nor an INT stack from the fabric.
    let agent = std::env::current_exe().unwrap();
    let base = format!(
        "[fabric]\ntopology = \"fat_tree:4\"\nlink_gbps = 0.05\nbuffer_pkts = 100\n[control]\nlisten = \"127.0.0.1:0\"\n[linux_hosts]\nprefix = \"ab1\"\nagent = \"{}\"\n",
        agent.display()
    );
    FabricConfig::parse(&base).expect("real hosts alone are a valid fabric");
    let with_int = format!("{base}[int]\ndomain = \"edges\"\n[int.report]\npcap = \"/tmp/unused.pcap\"\n");
    let e = FabricConfig::parse(&with_int).unwrap_err().to_string();
    assert!(e.contains("INT"), "{e}");
    let with_pint = format!("{base}[pint]\npath_bits = 8\n");
    let e = FabricConfig::parse(&with_pint).unwrap_err().to_string();
    assert!(e.contains("PINT"), "{e}");
}

#[test]
fn a_sleeping_engine_applies_rules_from_the_slot_their_request_arrived_in() {
    // With batch_us the engine sleeps until that much time is due, then runs the slots back
    // to back. A request that wakes it must see the slots due before it run first: its rules
    // are in force from its own arrival, not from where the engine fell asleep (up to 10 ms
    // earlier here, 5 ms at the median if the catch-up were missing).
    let cfg = FabricConfig::parse(
        "[fabric]\ntopology = \"switch:4\"\nlink_gbps = 1.0\nmode = \"realtime\"\nspin = false\nbatch_us = 10000\n[control]\nlisten = \"127.0.0.1:0\"\n",
    )
    .unwrap();
    let f = planck_emu::lab::start(&cfg).unwrap();
    let c = Client::new(&f);
    let now_us = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_micros() as i64
    };
    let mut early_us = Vec::new();
    for i in 0..24u64 {
        // Gaps that fall at different points of the engine's 10 ms sleep.
        std::thread::sleep(Duration::from_micros(3_100 + 1_700 * (i % 5)));
        let op = if i % 2 == 0 { "add" } else { "delete" };
        let sent = now_us();
        let ans = c.apply_rules(json!([{
            "op": op, "switch": "of:0000000000000001", "priority": 10,
            "match": {"ethDst": "02:70:00:00:00:01"}, "actions": {"output": 1}
        }]));
        let answered = now_us();
        let applied = ans["appliedUs"].as_i64().unwrap();
        assert!(applied <= answered + 1_000, "applied {applied} after the answer {answered}");
        early_us.push(sent - applied);
    }
    early_us.sort();
    let median = early_us[early_us.len() / 2];
    assert!(
        median < 2_000,
        "rules applied a median {median} us before their request was sent: {early_us:?}"
    );
    c.shutdown(f);
}
