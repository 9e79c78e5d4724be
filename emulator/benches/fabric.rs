//! Lab fabric speed: time per timeslot of a k=4 fat tree with 16 busy hosts
//! (stride(8), shadow-MAC rules installed, window transport), without and with
//! mirrors on all 20 switches. A link rate keeps real time when one slot is
//! computed faster than one MTU's serialisation time (1.2 us at 10 Gb/s,
//! 12 us at 1 Gb/s).

use std::collections::VecDeque;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use planck_emu::fabric::topology::{Peer, Topology};
use planck_emu::lab::FabricConfig;
use planck_emu::lab::addr::host_mac;
use planck_emu::lab::engine::{Command, FabricEngine, FlowSpec, MirrorSpec, SinkSpec};
use planck_emu::lab::rules::{Mac, OpKind, RuleActions, RuleMatch, RuleOp};

/// Shortest-path shadow-MAC plan (first port wins) for host pairs.
fn plan(topo: &Topology, pairs: &[(usize, usize)]) -> Vec<RuleOp> {
    let mut ops = Vec::new();
    for &(s, d) in pairs {
        let dsw = topo.endpoints[d].switch as usize;
        let shadow = Mac(0x0270_0000_0000 | (d as u64 + 1));
        // BFS from the destination switch: port on each switch towards dsw.
        let mut next = vec![None; topo.switches.len()];
        let mut q = VecDeque::from([dsw]);
        let mut seen = vec![false; topo.switches.len()];
        seen[dsw] = true;
        while let Some(u) = q.pop_front() {
            for p in &topo.switches[u].ports {
                if let Peer::Switch { switch, port } = p.peer
                    && !seen[switch as usize]
                {
                    seen[switch as usize] = true;
                    next[switch as usize] = Some(port + 1);
                    q.push_back(switch as usize);
                }
            }
        }
        let by_shadow = RuleMatch {
            eth_dst: Some(shadow),
            ..Default::default()
        };
        for (sw, port) in next.iter().enumerate() {
            if let Some(port) = port {
                ops.push(RuleOp {
                    kind: OpKind::Add,
                    switch: sw,
                    priority: 100,
                    matcher: by_shadow,
                    actions: Some(RuleActions {
                        set_eth_dst: None,
                        output: *port,
                    }),
                });
            }
        }
        ops.push(RuleOp {
            kind: OpKind::Add,
            switch: dsw,
            priority: 100,
            matcher: by_shadow,
            actions: Some(RuleActions {
                set_eth_dst: Some(host_mac(d)),
                output: topo.endpoints[d].port + 1,
            }),
        });
        let ssw = topo.endpoints[s].switch as usize;
        ops.push(RuleOp {
            kind: OpKind::Add,
            switch: ssw,
            priority: 1000,
            matcher: RuleMatch {
                eth_src: Some(host_mac(s)),
                eth_dst: Some(host_mac(d)),
                ..Default::default()
            },
            actions: Some(RuleActions {
                set_eth_dst: Some(shadow),
                output: next[ssw].expect("connected"),
            }),
        });
    }
    ops
}

fn busy_fabric(mirrors: bool) -> FabricEngine {
    busy_fabric_with(mirrors, "")
}

/// `extra`: more config sections (the INT stage).
fn busy_fabric_with(mirrors: bool, extra: &str) -> FabricEngine {
    let cfg = FabricConfig::parse(&format!(
        "[fabric]\ntopology = \"fattree:4\"\nlink_gbps = 10.0\nmode = \"virtual\"\n{extra}"
    ))
    .unwrap();
    let mut e = FabricEngine::new(&cfg, false).unwrap();
    let pairs: Vec<(usize, usize)> = (0..16).map(|i| (i, (i + 8) % 16)).collect();
    let ops = plan(e.topology(), &pairs);
    e.handle(Command::Rules(ops)).unwrap();
    if mirrors {
        let specs = (0..20)
            .map(|sw| MirrorSpec {
                switch: sw,
                vlan: sw as u16 + 1,
                rate_bps: 10_000_000_000,
                buffer_bytes: 30_000,
                snap_len: 128,
            })
            .collect();
        e.handle(Command::Mirrors {
            sink: Some(SinkSpec::Pcap("/dev/null".into())),
            mirrors: specs,
        })
        .unwrap();
    }
    let flows = pairs
        .iter()
        .enumerate()
        .map(|(i, &(s, d))| FlowSpec {
            id: i as u64,
            src: s,
            dst: d,
            // Long enough never to finish while measured.
            bytes: 1 << 40,
            start_us: 0.0,
            sport: 40000 + i as u16,
            dport: 5001,
        })
        .collect();
    e.handle(Command::StartFlows(flows)).unwrap();
    // Past slow start: every host link busy.
    for _ in 0..20_000 {
        e.step();
    }
    e
}

fn slot_time(c: &mut Criterion) {
    let mut g = c.benchmark_group("fabric_fattree4_16_busy_hosts");
    g.measurement_time(Duration::from_secs(4));
    let mut plain = busy_fabric(false);
    g.bench_function("slot", |b| b.iter(|| plain.step()));
    let mut mirrored = busy_fabric(true);
    g.bench_function("slot_mirrors_20_switches", |b| b.iter(|| mirrored.step()));
    // INT on every switch (edges source and sink), reports to a pcap on /dev/null: the lab's
    // sampling, and every packet (the stage's worst case).
    for (name, one_in) in [("slot_int_20_switches_1_in_64", 64), ("slot_int_20_switches_every_packet", 1)] {
        let mut int = busy_fabric_with(false, &format!(
            "[int]\ndomain = \"edges\"\nsample_one_in = {one_in}\nmax_reports_per_ms = 1000000\n\
             [int.report]\npcap = \"/dev/null\"\n"));
        g.bench_function(name, |b| b.iter(|| int.step()));
    }
    g.finish();
}

criterion_group!(benches, slot_time);
criterion_main!(benches);
