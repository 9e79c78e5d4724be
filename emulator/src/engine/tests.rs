//! Tests of the engine's rooms: placement, exchange rings, and runs on
//! two workers against one.

use super::exchange::full_slot;
use super::*;
use crate::config::Config;
use crate::experiment::run_config;
use crate::fabric::topology::{LinkParams, Peer, Topology};

const LINK: LinkParams = LinkParams {
    gbps: 10.0,
    buffer_pkts: 64,
    latency_slots: 1,
};

fn run_toml(text: &str) -> crate::output::Report {
    let cfg: Config = toml::from_str(text).expect("test config");
    run_config(&cfg).expect("valid test config")
}

/// Runs `cfg` over `topo` on `threads` OS threads.
fn run_on_threads(cfg: &Config, topo: Topology, threads: usize) -> crate::output::Report {
    let mut s = crate::experiment::setup(cfg, topo).expect("setup");
    s.os_threads = threads;
    let out = crate::experiment::with_scheme(
        &cfg.scheme,
        cfg.emulation.seed,
        crate::runner::RunVisitor {
            setup: &s,
            stop: crate::runner::Stop::AtSlot(cfg.emulation.slots()),
        },
    );
    crate::experiment::report(cfg, &s, out)
}

/// What two runs must agree on to the packet: every port's counters and every flow's FCT.
#[allow(clippy::type_complexity)]
fn outcome(r: &crate::output::Report) -> (Vec<(u32, u16, u64, u64, u64)>, Vec<(u32, Option<u64>)>) {
    (
        r.ports
            .iter()
            .map(|p| (p.switch_id, p.port, p.enqueued, p.transmitted, p.dropped))
            .collect(),
        r.flows
            .iter()
            .map(|f| (f.id, f.fct_us.map(f64::to_bits)))
            .collect(),
    )
}

#[test]
fn transfers_carry_the_due_slot_in_32_bits() {
    assert_eq!(std::mem::size_of::<Transfer>(), 40);
    for now in [0u64, 5, (1 << 32) - 3, 1 << 32, (7 << 32) + 12345] {
        for delta in [-70i64, -1, 0, 1, 4, 65, 1 << 20] {
            let slot = (now as i64 + delta).max(0) as u64;
            assert_eq!(full_slot(now, slot as u32), slot, "now {now}, slot {slot}");
        }
    }
}

#[test]
fn aggregation_switch_of_two_racks_is_split_by_rack() {
    let topo = Topology::racks(2, 4, LINK, LINK).unwrap();
    let agg = 2;
    let one = Placement::by_group(&topo, 1);
    assert!(
        one.split.iter().all(|&s| !s),
        "one partition splits nothing"
    );
    assert_eq!(one.switch_local[agg], vec![2]);

    let two = Placement::by_group(&topo, 2);
    assert_eq!(two.split, vec![false, false, true]);
    // agg port r faces tor r: emulated by rack r's partition.
    assert_eq!(two.port_part[agg], vec![0, 1]);
    assert_eq!(two.port_part[0], vec![0; 5]);
    assert_eq!(two.port_part[1], vec![1; 5]);
    // Each partition: its ToR, then its router of the aggregation switch.
    assert_eq!(two.switch_local[0], vec![0, NO_ROUTER]);
    assert_eq!(two.switch_local[1], vec![NO_ROUTER, 0]);
    assert_eq!(two.switch_local[agg], vec![1, 1]);
    assert_eq!(two.endpoint_part, vec![0, 0, 0, 0, 1, 1, 1, 1]);
}

#[test]
fn fat_tree_splits_the_cores_by_pod() {
    let topo = Topology::fat_tree(4, LINK).unwrap();
    let pl = Placement::by_group(&topo, 2);
    for (sid, sw) in topo.switches.iter().enumerate() {
        let is_core = sw.name.starts_with("core");
        assert_eq!(pl.split[sid], is_core, "{}", sw.name);
        for (p, port) in sw.ports.iter().enumerate() {
            let Peer::Switch { switch, .. } = port.peer else {
                assert_eq!(pl.port_part[sid][p], pl.owner(sid as u32));
                continue;
            };
            if is_core {
                // Pods alternate between the two partitions.
                let pod = topo.switches[switch as usize].group;
                assert_eq!(pl.port_part[sid][p] as u32, pod % 2, "{}", sw.name);
            } else {
                assert!(!pl.split[sid]);
            }
        }
    }
    // Three workers, k = 4: four pods on three partitions; still every
    // port has exactly one partition and that partition has a router.
    let pl = Placement::by_group(&topo, 3);
    for (sid, ports) in pl.port_part.iter().enumerate() {
        for &p in ports {
            assert_ne!(pl.switch_local[sid][p as usize], NO_ROUTER);
        }
    }
}

/// One ring per (receiver, delay): ToR-to-aggregation links (latency 3)
/// enter the split aggregation switch, ACKs (delay 4) go between the
/// racks' endpoints.
#[test]
fn exchanges_have_one_ring_per_receiver_and_delay() {
    let uplink = LinkParams {
        latency_slots: 3,
        ..LINK
    };
    let topo = Topology::racks(2, 4, LINK, uplink).unwrap();
    let two = Placement::by_group(&topo, 2);
    assert_eq!(
        two.exchanges(&topo, 4),
        vec![vec![(1, 3), (1, 4)], vec![(0, 3), (0, 4)]]
    );
    // Same delay twice: one ring.
    assert_eq!(two.exchanges(&topo, 3), vec![vec![(1, 3)], vec![(0, 3)]]);
    assert_eq!(
        Placement::by_group(&topo, 1).exchanges(&topo, 4),
        vec![Vec::<(u16, u32)>::new()]
    );
    let fat = Topology::fat_tree(4, LINK).unwrap();
    let plan = Placement::by_group(&fat, 2).exchanges(&fat, 7);
    // Pods alternate between the partitions; cores are split by pod, so
    // aggregation-to-core links cross, and so do ACKs.
    assert_eq!(plan, vec![vec![(1, 1), (1, 7)], vec![(0, 1), (0, 7)]]);
}

/// Packets from other workers are delivered in a fixed order (after the
/// partition's own, ring by ring), not in the order they happened to be
/// taken in: two runs on 2 workers give the same result to the packet,
/// even where ports are fed from both workers (the fat tree's cores) and
/// data and ACKs cross with different delays.
#[test]
fn workers_sharing_threads_emulate_what_one_thread_each_does() {
    // 4 workers (a fat tree split by pod) on 1, 2 and 4 OS threads: the
    // partitions and the order of deliveries do not depend on the thread
    // that runs them, so the runs match to the packet.
    let text = r#"
        [emulation]
        duration_us = 8000
        threads = 4
        pin_threads = false
        [topology]
        kind = "fat_tree"
        k = 4
        link = { gbps = 10, buffer_pkts = 16, latency_slots = 2 }
        [[workload]]
        kind = "poisson"
        load = 0.8
        sizes = "web_search"
        "#;
    let four = four_workers_match_on_fewer_threads(text);
    assert!(four.summary.drops > 0, "the test must see drops");
}

/// Runs `text` (4 workers) on 4 OS threads, then on 1 and 2: every run is
/// on time, the 4-thread run completes more than 20 flows, and the others
/// match it to the packet. Returns the 4-thread run.
fn four_workers_match_on_fewer_threads(text: &str) -> crate::output::Report {
    let cfg: Config = toml::from_str(text).expect("test config");
    let on = |threads: usize| run_on_threads(&cfg, cfg.validate().expect("valid"), threads);
    let four = on(4);
    assert_eq!(four.summary.threads, 4);
    assert_eq!(four.summary.workers.len(), 4);
    assert_eq!(four.summary.late_transfers, 0);
    assert!(four.summary.flows_completed > 20);
    for threads in [1, 2] {
        let fewer = on(threads);
        assert_eq!(fewer.summary.late_transfers, 0);
        assert_eq!(fewer.summary.workers.len(), 4);
        assert!(
            outcome(&four) == outcome(&fewer),
            "4 workers on {threads} threads differ"
        );
    }
    four
}

#[test]
fn runs_on_two_workers_are_repeatable() {
    let run = || {
        let text = r#"
            [emulation]
            duration_us = 12000
            threads = 2
            pin_threads = false
            [topology]
            kind = "fat_tree"
            k = 4
            link = { gbps = 10, buffer_pkts = 16, latency_slots = 2 }
            [transport]
            ack_delay_slots = 3
            [[workload]]
            kind = "poisson"
            load = 0.8
            sizes = "web_search"
            "#;
        run_toml(text)
    };
    let first = run();
    assert_eq!(first.summary.late_transfers, 0);
    assert!(first.summary.drops > 0, "the test must see drops");
    let counters = |r: &crate::output::Report| {
        r.ports
            .iter()
            .map(|p| (p.switch_id, p.port, p.enqueued, p.transmitted, p.dropped))
            .collect::<Vec<_>>()
    };
    let fcts = |r: &crate::output::Report| {
        r.flows
            .iter()
            .map(|f| (f.id, f.fct_us.map(f64::to_bits)))
            .collect::<Vec<_>>()
    };
    for _ in 0..3 {
        let again = run();
        assert_eq!(counters(&first), counters(&again));
        assert_eq!(fcts(&first), fcts(&again));
    }
}

fn two_racks(scheme: &str, threads: usize, workload: &str) -> crate::output::Report {
    let text = format!(
        r#"
        [emulation]
        duration_us = 6000
        threads = {threads}
        pin_threads = false
        [topology]
        kind = "rack"
        racks = 2
        hosts_per_rack = 8
        host_link = {{ gbps = 10, buffer_pkts = 12, latency_slots = 1 }}
        uplink = {{ gbps = 40, buffer_pkts = 24, latency_slots = 3 }}
        [scheme]
        {scheme}
        {workload}
        "#
    );
    run_toml(&text)
}

/// A fat tree on 2 workers (cores split by pod) emulates the 1-worker
/// network: flows keep their ids (and so their ECMP paths), every port is
/// reported once, nothing is late and every flow completes. (Ports fed
/// from both workers, the cores', may order same-slot arrivals
/// differently, so TCP's dynamics need not match packet for packet.)
#[test]
fn fat_tree_on_two_workers_matches_one() {
    let run = |threads: usize| {
        let text = format!(
            r#"
            [emulation]
            duration_us = 20000
            threads = {threads}
            pin_threads = false
            [topology]
            kind = "fat_tree"
            k = 4
            link = {{ gbps = 10, buffer_pkts = 32, latency_slots = 2 }}
            [transport]
            # 32-packet buffers lose packets; a short timer lets every flow
            # finish within the 20 ms run.
            min_rto_us = 480.0
            [[workload]]
            kind = "random"
            flow_bytes = 730000
            [[workload]]
            kind = "stride"
            k = 5
            flow_bytes = 730000
            "#
        );
        run_toml(&text)
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(two.summary.threads, 2);
    assert_eq!(two.summary.late_transfers, 0);
    // 20 switches with 4 ports each, every one reported once.
    assert_eq!(two.ports.len(), 80);
    assert!(
        two.ports
            .iter()
            .any(|p| p.switch.starts_with("core") && p.transmitted > 0)
    );
    let ids = |r: &crate::output::Report| {
        let mut v: Vec<(u32, u16, u16)> = r.flows.iter().map(|f| (f.id, f.src, f.dst)).collect();
        v.sort();
        v
    };
    assert_eq!(ids(&one), ids(&two), "same flows, same ids");
    assert_eq!(one.summary.flows_completed, 32);
    assert_eq!(two.summary.flows_completed, 32);
    assert_eq!(one.summary.delivered_packets, two.summary.delivered_packets);
    let share = two.summary.workers[0].router_packets as f64 / two.summary.router_packets as f64;
    assert!((0.3..0.7).contains(&share), "worker 0 share {share}");
}

/// With exact synchronisation and a split aggregation switch, 2 workers
/// emulate exactly what 1 does: every port's counters agree.
#[test]
fn split_switch_runs_are_exact() {
    let open_loop = r#"
        [[workload]]
        kind = "open_loop"
        sources = [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]
        destination = "random"
        rate = 0.9
    "#;
    let flows = r#"
        [[workload]]
        kind = "poisson"
        load = 0.7
        sizes = "web_search"
    "#;
    for (scheme, workload) in [
        (r#"kind = "droptail""#, open_loop),
        (
            r#"kind = "red"
            min_th = 2.0
            max_th = 10.0
            max_p = 0.3
            weight = 0.2"#,
            open_loop,
        ),
        (r#"kind = "drr""#, open_loop),
        (r#"kind = "pfabric""#, open_loop),
        (r#"kind = "droptail""#, flows),
        (
            r#"kind = "dctcp"
            k = 4"#,
            flows,
        ),
    ] {
        let one = two_racks(scheme, 1, workload);
        let two = two_racks(scheme, 2, workload);
        assert_eq!(two.summary.threads, 2);
        assert_eq!(two.summary.late_transfers, 0);
        assert!(one.summary.drops > 0, "{scheme}: the test must see drops");
        assert_eq!(
            one.ports.len(),
            two.ports.len(),
            "{scheme}: one report per port"
        );
        for (a, b) in one.ports.iter().zip(&two.ports) {
            assert_eq!(
                (
                    a.switch_id,
                    a.port,
                    a.enqueued,
                    a.transmitted,
                    a.dropped,
                    a.marked
                ),
                (
                    b.switch_id,
                    b.port,
                    b.enqueued,
                    b.transmitted,
                    b.dropped,
                    b.marked
                ),
                "{scheme}: port {} of {}",
                a.port,
                a.switch
            );
        }
        assert_eq!(one.summary.router_packets, two.summary.router_packets);
        assert_eq!(one.summary.delivered_packets, two.summary.delivered_packets);
        assert_eq!(one.summary.flows_completed, two.summary.flows_completed);
        // The aggregation switch's work is shared out: under symmetric
        // traffic each worker emulates about half of the router hops
        // (without the split, rack 0's worker did about 60 %).
        if workload == open_loop {
            let w = &two.summary.workers;
            let share = w[0].router_packets as f64 / one.summary.router_packets as f64;
            assert!(
                (0.45..0.55).contains(&share),
                "{scheme}: worker 0 share {share}"
            );
        }
    }
}

/// Three groups in a line: s0 (h0, h1) -- s1 (h2, h3) -- s2 (no endpoints).
/// s2's only neighbour is s1, so nothing is split: partition 0 exchanges with
/// 1 (link and ACKs), 1 with 2 (link only), and 0 and 2 share no ring.
fn line_of_three() -> Topology {
    let json = r#"{
        "switches": [{"name": "s0"}, {"name": "s1"}, {"name": "s2"}],
        "endpoints": ["h0", "h1", "h2", "h3"],
        "links": [
            {"a": "h0", "b": "s0"}, {"a": "h1", "b": "s0"},
            {"a": "h2", "b": "s1"}, {"a": "h3", "b": "s1"},
            {"a": "s0", "b": "s1", "latency_slots": 3},
            {"a": "s1", "b": "s2", "latency_slots": 5}
        ]
    }"#;
    Topology::from_json(json, LINK).expect("line of three")
}

#[test]
fn senders_are_the_partitions_with_a_ring_in_at_their_smallest_delay() {
    let topo = line_of_three();
    let pl = Placement::by_group(&topo, 3);
    assert!(pl.split.iter().all(|&s| !s));
    let ex = pl.exchanges(&topo, 4);
    assert_eq!(
        ex,
        vec![
            vec![(1, 3), (1, 4)],
            vec![(0, 3), (0, 4), (2, 5)],
            vec![(1, 5)]
        ]
    );
    // Each receiver may run a sender's smallest delay into it ahead of it.
    assert_eq!(Placement::senders(&ex, 0), vec![(1, 3)]);
    assert_eq!(Placement::senders(&ex, 1), vec![(0, 3), (2, 5)]);
    assert_eq!(Placement::senders(&ex, 2), vec![(1, 5)]);
    // One partition: nobody to wait for.
    let one = Placement::by_group(&topo, 1).exchanges(&topo, 4);
    assert_eq!(Placement::senders(&one, 0), vec![]);
    // Two racks: each the other's sender, at the smaller of uplink and ACK delay.
    let racks = Topology::racks(
        2,
        4,
        LINK,
        LinkParams {
            latency_slots: 6,
            ..LINK
        },
    )
    .unwrap();
    let ex = Placement::by_group(&racks, 2).exchanges(&racks, 4);
    assert_eq!(Placement::senders(&ex, 0), vec![(1, 4)]);
    assert_eq!(Placement::senders(&ex, 1), vec![(0, 4)]);
}

/// Exact workers look only at the progress of the workers that send to
/// them: on the line of three, the end workers load one progress line per
/// look (their one neighbour), never the other end's, and the runs are
/// still exact (the same to the packet on 1, 2 and 3 OS threads).
#[test]
fn exact_workers_wait_only_for_their_senders() {
    let text = r#"
        [emulation]
        duration_us = 20000
        threads = 3
        pin_threads = false
        [topology]
        kind = "rack"
        racks = 1
        hosts_per_rack = 4
        [transport]
        ack_delay_slots = 4
        [[workload]]
        kind = "poisson"
        load = 0.8
        sizes = "web_search"
        "#;
    let cfg: Config = toml::from_str(text).expect("test config");
    let on = |threads: usize| run_on_threads(&cfg, line_of_three(), threads);
    let key = outcome;
    let three = on(3);
    assert_eq!(three.summary.threads, 3);
    assert_eq!(three.summary.late_transfers, 0);
    assert!(
        three.summary.flows_completed > 10,
        "the test needs traffic across"
    );
    let w = &three.summary.workers;
    assert_eq!(w.len(), 3);
    for (i, senders) in [(0, 1), (1, 2), (2, 1)] {
        assert!(w[i].progress_looks > 0, "worker {i} never looked");
        // Waiting for every other worker would load 2 lines per look.
        assert_eq!(
            w[i].progress_loads,
            senders * w[i].progress_looks,
            "worker {i} loads per look"
        );
    }
    for threads in [1, 2] {
        let fewer = on(threads);
        assert_eq!(fewer.summary.late_transfers, 0);
        assert!(
            key(&three) == key(&fewer),
            "3 workers on {threads} threads differ"
        );
    }
}

/// Only a switch with two links to one neighbour draws an order for its
/// ports (`routers_transmit`): elsewhere two ports lead to different
/// switches, so what they send in one slot never meets at a port.
#[test]
fn only_switches_with_parallel_links_order_their_ports() {
    let json = r#"{
        "switches": [{"name": "s0"}, {"name": "s1"}, {"name": "s2"}],
        "endpoints": ["h0", "h1", "h2"],
        "links": [
            {"a": "h0", "b": "s0"}, {"a": "h1", "b": "s1"}, {"a": "h2", "b": "s2"},
            {"a": "s0", "b": "s1"}, {"a": "s0", "b": "s1"},
            {"a": "s1", "b": "s2"}
        ]
    }"#;
    let topo = Topology::from_json(json, LINK).expect("parallel links");
    let parallel: Vec<bool> = topo
        .switches
        .iter()
        .map(|s| partition::has_parallel_links(&s.ports))
        .collect();
    assert_eq!(parallel, vec![true, true, false]);
    for t in [
        line_of_three(),
        Topology::fat_tree(4, LINK).expect("fat tree"),
    ] {
        assert!(
            t.switches
                .iter()
                .all(|s| !partition::has_parallel_links(&s.ports))
        );
    }
}

/// A rack of 4 at 10 Gb/s (one slot per MTU): `transport` and `workload`
/// as TOML, in-band or out-of-band ACKs.
fn rack_of_four(ack_path: &str, workload: &str) -> crate::output::Report {
    run_toml(&format!(
        r#"
        [emulation]
        duration_us = 5000
        [topology]
        kind = "rack"
        hosts_per_rack = 4
        host_link = {{ gbps = 10, buffer_pkts = 1024, latency_slots = 2 }}
        [transport]
        ack_path = "{ack_path}"
        {workload}
        "#
    ))
}

fn flow_to(r: &crate::output::Report, src: u16, dst: u16) -> &crate::output::FlowRecord {
    r.flows
        .iter()
        .find(|f| f.src == src && f.dst == dst)
        .expect("the flow")
}

/// In band, a flow's ACKs queue behind the data that fills their port on
/// the reverse path (h0's downlink, loaded by two streams at 1.2 times its
/// rate: 100 packets queued when the flow starts, 0.2 more each slot), so
/// each of its round trips takes the queue's 100 slots and more; out of
/// band they take a fixed 4 slots whatever the load.
#[test]
fn in_band_acks_wait_behind_data_on_a_loaded_reverse_path() {
    let quiet = r#"
        [[workload]]
        kind = "flows"
        flows = [{ src = 0, dst = 1, bytes = 146000, start_us = 600 }]
        "#;
    let work = &format!(
        r#"{quiet}
        [[workload]]
        kind = "open_loop"
        sources = [2, 3]
        destination = 0
        rate = 0.6
        "#
    );
    let slot_us = 1.2;
    let fct = |r: &crate::output::Report| flow_to(r, 0, 1).fct_us.expect("done") / slot_us;
    let (oob, inb) = (
        rack_of_four("out_of_band", work),
        rack_of_four("in_band", work),
    );
    let (oob_quiet, inb_quiet) = (
        rack_of_four("out_of_band", quiet),
        rack_of_four("in_band", quiet),
    );
    // h0's downlink: a long queue and no loss, so the ACKs are late, not lost.
    let down = |r: &crate::output::Report| {
        r.ports
            .iter()
            .find(|p| p.peer == "h0")
            .expect("h0's port")
            .clone()
    };
    for r in [&oob, &inb] {
        assert!(
            down(r).max_occupancy > 500 && down(r).dropped == 0,
            "{:?}",
            down(r)
        );
    }
    // Out of band the load beside the ACKs changes nothing.
    assert_eq!(fct(&oob), fct(&oob_quiet));
    // In band on a quiet reverse path: the ACKs' 2-hop path of 4 slots in
    // place of the 4-slot delay, within a few slots.
    assert!(
        (fct(&inb_quiet) - fct(&oob_quiet)).abs() <= 8.0,
        "{} {}",
        fct(&inb_quiet),
        fct(&oob_quiet)
    );
    // 100 packets from a window of 10: at least three round trips, each
    // with 100 slots of queue or more on the way back.
    assert!(
        fct(&inb) > fct(&oob) + 300.0,
        "in band {} out of band {}",
        fct(&inb),
        fct(&oob)
    );
}

/// Two bulk flows in opposite directions: in band each link carries one
/// flow's data and the other's 66-byte ACKs (one per packet), so each flow
/// gets about 1514 / (1514 + 66) of the link; an ACK priced as a whole
/// slot would halve it.
#[test]
fn in_band_acks_take_their_length_of_a_link() {
    let work = r#"
        [[workload]]
        kind = "flows"
        flows = [{ src = 0, dst = 1, bytes = 4380000, start_us = 0 },
                 { src = 1, dst = 0, bytes = 4380000, start_us = 0 }]
        "#;
    let (oob, inb) = (
        rack_of_four("out_of_band", work),
        rack_of_four("in_band", work),
    );
    for (s, d) in [(0, 1), (1, 0)] {
        let o = flow_to(&oob, s, d).normalized_fct.expect("done");
        let i = flow_to(&inb, s, d).normalized_fct.expect("done");
        assert!(o < 1.02, "out of band {o}");
        assert!((1.03..1.08).contains(&i), "in band {i}, 1.044 expected");
    }
    // ACKs are packets on the links: the ports count them.
    let sent = |r: &crate::output::Report| r.ports.iter().map(|p| p.transmitted).sum::<u64>();
    assert!(
        sent(&inb) > sent(&oob) + 5000,
        "{} {}",
        sent(&inb),
        sent(&oob)
    );
}

/// The receiver's end of an FCT is where the last byte arrived: out of
/// band that is the sender's end less the fixed ACK delay.
#[test]
fn receiver_fct_is_the_last_byte_at_the_receiver() {
    let r = rack_of_four(
        "out_of_band",
        r#"
        [[workload]]
        kind = "poisson"
        load = 0.6
        sizes = "web_search"
        "#,
    );
    let done: Vec<_> = r.flows.iter().filter(|f| f.fct_us.is_some()).collect();
    assert!(done.len() > 5, "{} flows done", done.len());
    for f in done {
        let (fct, rx) = (f.fct_us.unwrap(), f.rx_fct_us.expect("the receiver's end"));
        assert!(
            (fct - rx - 4.0 * 1.2).abs() < 1e-6,
            "flow {}: {fct} {rx}",
            f.id
        );
    }
}

/// In-band ACKs cross partitions as packets: 4 workers on 1, 2 and 4 OS
/// threads emulate the same network to the packet.
#[test]
fn in_band_acks_on_workers_sharing_threads_match() {
    let text = r#"
        [emulation]
        duration_us = 6000
        threads = 4
        pin_threads = false
        [topology]
        kind = "fat_tree"
        k = 4
        link = { gbps = 10, buffer_pkts = 16, latency_slots = 2 }
        [transport]
        ack_path = "in_band"
        [[workload]]
        kind = "poisson"
        load = 0.8
        sizes = "web_search"
        "#;
    four_workers_match_on_fewer_threads(text);
}
