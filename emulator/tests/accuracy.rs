//! Accuracy of the emulated schemes against theory and against each other.

mod common;
use common::*;

use planck_emu::packet::{ECT, Packet};
use planck_emu::scheme::red::{RedEnqueue, RedParams, RedVariant};
use planck_emu::scheme::{Admission, Enqueue, QueueBank};

/// Poisson arrivals (16 sources on 10x-rate links, so per-slot arrivals at the
/// bottleneck are exactly Poisson) into a DropTail port serving one packet per
/// slot: an M/D/1 queue, mean waiting packets rho^2 / (2 (1 - rho)).
fn md1_mean_queue(rho: f64, slots: u64) -> (f64, f64) {
    let dir = tempfile::tempdir().unwrap();
    let topo = star_topology(dir.path(), 16, 10.0, 100.0, 100_000);
    let sources: Vec<String> = (1..=16).map(|i| i.to_string()).collect();
    let r = run_toml(&format!(
        r#"
        [emulation]
        duration_us = {dur}
        sample_interval_slots = 1
        seed = 7
        [topology]
        kind = "custom"
        file = "{file}"
        [[workload]]
        kind = "open_loop"
        sources = [{src}]
        destination = 0
        rate = {rate}
        "#,
        dur = slots as f64 * 1.2,
        file = topo.display(),
        src = sources.join(","),
        rate = rho / 16.0
    ));
    let measured = port(&r, "s", "h0").mean_occupancy;
    let theory = rho * rho / (2.0 * (1.0 - rho));
    assert_eq!(r.summary.drops, 0);
    assert_eq!(r.summary.nic_drops, 0);
    (measured, theory)
}

#[test]
fn droptail_matches_md1_at_load_0_5() {
    let (m, t) = md1_mean_queue(0.5, 600_000);
    eprintln!(
        "M/D/1 rho=0.5: measured {m:.4}, theory {t:.4}, error {:.2}%",
        100.0 * (m - t) / t
    );
    assert!((m - t).abs() / t < 0.05, "measured {m}, M/D/1 {t}");
}

#[test]
fn droptail_matches_md1_at_load_0_8() {
    let (m, t) = md1_mean_queue(0.8, 1_000_000);
    eprintln!(
        "M/D/1 rho=0.8: measured {m:.4}, theory {t:.4}, error {:.2}%",
        100.0 * (m - t) / t
    );
    assert!((m - t).abs() / t < 0.05, "measured {m}, M/D/1 {t}");
}

fn long_flows(scheme: &str, transport: &str) -> planck_emu::output::Report {
    // Four senders, one receiver, all long-lived; the ToR port to h4 is the bottleneck.
    run_toml(&format!(
        r#"
        [emulation]
        duration_us = 60000
        sample_interval_slots = 1
        [topology]
        kind = "rack"
        hosts_per_rack = 5
        host_link = {{ gbps = 10, buffer_pkts = 200, latency_slots = 1 }}
        [scheme]
        {scheme}
        [transport]
        kind = "{transport}"
        [[workload]]
        kind = "flows"
        flows = [
          {{ src = 0, dst = 4, bytes = 1000000000 }},
          {{ src = 1, dst = 4, bytes = 1000000000 }},
          {{ src = 2, dst = 4, bytes = 1000000000 }},
          {{ src = 3, dst = 4, bytes = 1000000000 }},
        ]
        "#
    ))
}

#[test]
fn dctcp_holds_queue_near_k_at_full_utilisation() {
    let k = 20.0;
    let r = long_flows("kind = \"dctcp\"\nk = 20", "dctcp");
    let p = port(&r, "tor0", "h4");
    eprintln!(
        "DCTCP K=20: mean queue {:.2}, max {}, utilisation {:.4}, marks {}",
        p.mean_occupancy, p.max_occupancy, p.utilization, p.marked
    );
    assert!(
        p.utilization > 0.97,
        "bottleneck utilisation {}",
        p.utilization
    );
    assert!(
        (p.mean_occupancy - k).abs() < 0.25 * k,
        "mean queue {} vs K {k}",
        p.mean_occupancy
    );
    assert_eq!(p.dropped, 0);
    // Without marking, the same flows fill the buffer instead.
    let tail = long_flows("kind = \"droptail\"", "tcp");
    let q = port(&tail, "tor0", "h4");
    assert!(
        q.mean_occupancy > 3.0 * k,
        "droptail mean queue {}",
        q.mean_occupancy
    );
}

fn unequal_open_loop(scheme: &str) -> Vec<f64> {
    let r = run_toml(&format!(
        r#"
        [emulation]
        duration_us = 30000
        [topology]
        kind = "rack"
        hosts_per_rack = 5
        [scheme]
        {scheme}
        [[workload]]
        kind = "open_loop"
        sources = [1]
        destination = 0
        rate = 0.3
        [[workload]]
        kind = "open_loop"
        sources = [2]
        destination = 0
        rate = 0.5
        [[workload]]
        kind = "open_loop"
        sources = [3]
        destination = 0
        rate = 0.8
        [[workload]]
        kind = "open_loop"
        sources = [4]
        destination = 0
        rate = 1.0
        process = "constant"
        "#
    ));
    assert_eq!(r.streams.len(), 4);
    r.streams.iter().map(|s| s.throughput_gbps).collect()
}

#[test]
fn drr_gives_long_flows_equal_shares() {
    let drr = unequal_open_loop("kind = \"drr\"");
    let j = jain(&drr);
    eprintln!("DRR shares (Gb/s) {drr:?}, Jain {j:.4}");
    assert!(j >= 0.99, "Jain {j} for {drr:?}");
    assert!(
        (drr.iter().sum::<f64>() - 10.0).abs() < 0.2,
        "link not fully used: {drr:?}"
    );
    // The same offered loads under DropTail are served in proportion to the offer.
    let tail = unequal_open_loop("kind = \"droptail\"");
    assert!(
        jain(&tail) < 0.95,
        "droptail Jain {} for {tail:?}",
        jain(&tail)
    );
}

fn two_classes(scheme: &str) -> (f64, f64) {
    let r = run_toml(&format!(
        r#"
        [emulation]
        duration_us = 20000
        [topology]
        kind = "rack"
        hosts_per_rack = 3
        [scheme]
        {scheme}
        [[workload]]
        kind = "open_loop"
        sources = [1]
        destination = 0
        rate = 1.0
        process = "constant"
        class = 0
        [[workload]]
        kind = "open_loop"
        sources = [2]
        destination = 0
        rate = 0.5
        class = 1
        "#
    ));
    let hi = r.streams.iter().find(|s| s.class == 0).unwrap();
    let lo = r.streams.iter().find(|s| s.class == 1).unwrap();
    (
        hi.delivered as f64 / hi.sent as f64,
        lo.delivered as f64 / lo.sent as f64,
    )
}

#[test]
fn strict_priority_starves_low_class_under_overload() {
    let (hi, lo) = two_classes("kind = \"priority\"\nqueues = 2");
    eprintln!("priority: high class delivered {hi:.4}, low class delivered {lo:.4}");
    assert!(hi > 0.99, "high class delivered fraction {hi}");
    assert!(lo < 0.01, "low class delivered fraction {lo}");
    let (_, lo_tail) = two_classes("kind = \"droptail\"");
    assert!(lo_tail > 0.2, "droptail low class fraction {lo_tail}");
}

fn web_search(scheme: &str, transport: &str, buffer: u32) -> planck_emu::output::Report {
    run_toml(&format!(
        r#"
        [emulation]
        duration_us = 100000
        seed = 11
        [topology]
        kind = "rack"
        hosts_per_rack = 16
        host_link = {{ gbps = 10, buffer_pkts = {buffer}, latency_slots = 1 }}
        [scheme]
        {scheme}
        [transport]
        {transport}
        [[workload]]
        kind = "poisson"
        load = 0.6
        sizes = "web_search"
        stop_us = 80000
        "#
    ))
}

#[test]
fn pfabric_beats_droptail_on_small_flow_fct() {
    let pf = web_search(
        "kind = \"pfabric\"",
        "kind = \"pfabric\"\ninit_cwnd = 12\nmax_cwnd = 12\nmin_rto_us = 48.0",
        36,
    );
    let dt = web_search("kind = \"droptail\"", "kind = \"tcp\"", 128);
    let (p, d) = (
        pf.summary.fct.small_mean_normalized.unwrap(),
        dt.summary.fct.small_mean_normalized.unwrap(),
    );
    eprintln!(
        "web search 60%: small-flow mean normalised FCT pfabric {p:.3} ({} flows done), droptail {d:.3} ({} flows done)",
        pf.summary.flows_completed, dt.summary.flows_completed
    );
    assert!(pf.summary.flows_completed > 300 && dt.summary.flows_completed > 300);
    assert!(p < d, "pfabric {p} vs droptail {d}");
}

#[test]
fn red_drop_probability_follows_its_curve() {
    for ecn in [false, true] {
        let params = RedParams {
            min_th: 20.0,
            max_th: 60.0,
            max_p: 0.2,
            weight: 0.002,
            ecn,
            variant: RedVariant::Fixed,
        };
        let mut red = RedEnqueue::new(params, 1, 42);
        let mut bank = QueueBank::new(&[1000], 1);
        let pkt = Packet {
            flags: ECT,
            ..Packet::default()
        };
        for level in [10u32, 25, 40, 55, 70] {
            // Hold the real queue at `level` long enough for the EWMA to settle.
            while bank.ports[0].len < level {
                bank.ports[0].push(0, pkt);
            }
            while bank.ports[0].len > level {
                bank.ports[0].pop(0);
            }
            let (mut hit, n) = (0u32, 40_000u32);
            for i in 0..(n + 5000) {
                let out = red.enqueue(pkt, 0, 0, &mut bank, 0);
                if matches!(out, Admission::Accepted | Admission::Marked) {
                    bank.ports[0].pop(0);
                }
                let congested = if ecn {
                    out == Admission::Marked || (level >= 60 && out == Admission::Dropped)
                } else {
                    out == Admission::Dropped
                };
                if i >= 5000 && congested {
                    hit += 1;
                }
            }
            let measured = hit as f64 / n as f64;
            let expected = params.probability(red.avg[0]);
            let sigma = (expected * (1.0 - expected) / n as f64).sqrt();
            eprintln!("RED ecn={ecn} queue {level}: measured {measured:.4}, curve {expected:.4}");
            assert!(
                (measured - expected).abs() <= 4.0 * sigma + 1e-3,
                "level {level}: {measured} vs {expected}"
            );
            assert!((red.avg[0] - level as f64).abs() < 0.5);
        }
    }
}
