//! Engine behaviour: timing, workloads, threads, real-time mode.

mod common;
use common::*;

#[test]
fn lone_flow_on_empty_network_completes_in_ideal_time() {
    // Open window (pFabric starts at a full BDP), so FCT = serialisation + path + ACK.
    let r = run_toml(
        r#"
        [emulation]
        duration_us = 2000
        [topology]
        kind = "fat_tree"
        k = 4
        [scheme]
        kind = "droptail"
        [transport]
        kind = "pfabric"
        init_cwnd = 64
        max_cwnd = 64
        [[workload]]
        kind = "flows"
        flows = [{ src = 0, dst = 15, bytes = 146000 }, { src = 1, dst = 0, bytes = 1460, start_us = 100 }]
        "#,
    );
    assert_eq!(r.flows.len(), 2);
    for f in &r.flows {
        let n = f.normalized_fct.expect("flow completes");
        assert!((n - 1.0).abs() < 1e-9, "flow {} normalised FCT {n}", f.id);
    }
    // 100 packets + 6 hops + 4-slot ACK path - 1 = 109 slots of 1.2 us.
    assert!(
        (r.flows[0].fct_us.unwrap() - 109.0 * 1.2).abs() < 1e-6,
        "{:?}",
        r.flows[0]
    );
    assert_eq!(r.flows[0].size_pkts, 100);
    assert_eq!(r.summary.drops, 0);
}

#[test]
fn planck_workloads_complete_on_fat_tree() {
    for w in [
        "kind = \"stride\"\nk = 8",
        "kind = \"shuffle\"",
        "kind = \"random\"",
        "kind = \"random_bijection\"",
    ] {
        let r = run_toml(&format!(
            r#"
            [emulation]
            duration_us = 60000
            [topology]
            kind = "fat_tree"
            k = 4
            [[workload]]
            {w}
            flow_bytes = 146000
            "#
        ));
        let expected = if w.contains("shuffle") { 16 * 15 } else { 16 };
        assert_eq!(r.summary.flows_started, expected, "{w}");
        assert_eq!(r.summary.flows_completed, expected, "{w}: {:?}", r.summary);
        assert!(r.flows.iter().all(|f| f.src != f.dst));
        if w.contains("stride") {
            assert!(r.flows.iter().all(|f| f.dst == (f.src + 8) % 16));
        }
    }
}

#[test]
fn shuffle_sends_one_flow_at_a_time_per_source() {
    let r = run_toml(
        r#"
        [emulation]
        duration_us = 60000
        [topology]
        kind = "rack"
        hosts_per_rack = 4
        [[workload]]
        kind = "shuffle"
        flow_bytes = 14600
        "#,
    );
    for src in 0..4u16 {
        let mut fl: Vec<_> = r.flows.iter().filter(|f| f.src == src).collect();
        fl.sort_by(|a, b| a.start_us.total_cmp(&b.start_us));
        assert_eq!(fl.len(), 3);
        for w in fl.windows(2) {
            assert!(
                w[1].start_us >= w[0].finish_us.unwrap() - 1e-9,
                "overlap: {:?}",
                w
            );
        }
    }
}

fn two_racks(threads: usize, skew: u64) -> planck_emu::output::Report {
    run_toml(&format!(
        r#"
        [emulation]
        duration_us = 20000
        threads = {threads}
        skew_slots = {skew}
        pin_threads = false
        [topology]
        kind = "rack"
        racks = 2
        hosts_per_rack = 8
        uplink = {{ gbps = 80, buffer_pkts = 256, latency_slots = 2 }}
        [[workload]]
        kind = "stride"
        k = 8
        flow_bytes = 1460000
        "#
    ))
}

#[test]
fn two_threads_emulate_the_same_network() {
    let one = two_racks(1, 0);
    let two = two_racks(2, 0);
    assert_eq!(one.summary.threads, 1);
    assert_eq!(two.summary.threads, 2);
    assert_eq!(one.summary.flows_completed, 16);
    assert_eq!(two.summary.flows_completed, 16);
    // Same packets through the routers (every flow crosses ToR, agg, ToR).
    assert_eq!(one.summary.delivered_packets, two.summary.delivered_packets);
    let f1: f64 = one.flows.iter().map(|f| f.fct_us.unwrap()).sum::<f64>() / 16.0;
    let f2: f64 = two.flows.iter().map(|f| f.fct_us.unwrap()).sum::<f64>() / 16.0;
    // Exact synchronisation: nothing late, timing as on one thread up to the
    // order of same-slot arrivals.
    assert_eq!(two.summary.late_transfers, 0);
    assert!(
        (f1 - f2).abs() / f1 < 0.01,
        "mean FCT 1 thread {f1}, 2 threads {f2}"
    );
}

#[test]
fn loose_synchronisation_still_delivers_everything() {
    let loose = two_racks(2, 64);
    assert_eq!(loose.summary.threads, 2);
    assert_eq!(loose.summary.flows_completed, 16);
    assert_eq!(
        loose.summary.delivered_packets,
        two_racks(1, 0).summary.delivered_packets
    );
}

#[test]
fn realtime_mode_tracks_the_wall_clock() {
    let start = std::time::Instant::now();
    let r = run_toml(
        r#"
        [emulation]
        duration_us = 50000
        mode = "realtime"
        [topology]
        kind = "rack"
        hosts_per_rack = 4
        [[workload]]
        kind = "open_loop"
        sources = [1, 2]
        destination = 0
        rate = 0.3
        "#,
    );
    let wall = start.elapsed().as_secs_f64();
    assert!(wall >= 0.05, "real-time run of 50 ms took {wall} s");
    let lag = r.summary.realtime.expect("real-time lag reported");
    assert!(lag.behind_fraction >= 0.0 && lag.behind_fraction <= 1.0);
    // Every paced batch is in the histogram, and its quantiles are ordered.
    assert!(lag.batches > 0);
    assert!(lag.p50_lag_us <= lag.p99_lag_us && lag.p99_lag_us <= lag.p999_lag_us);
    assert!(lag.p999_lag_us <= lag.max_lag_us.ceil());
    assert!(
        (0.0..=1.0).contains(&lag.over_1ms_fraction)
            && lag.over_1ms_fraction <= lag.behind_fraction
    );
    // The worker spins or works for the whole run: it used CPU, at most its wall time.
    assert!(
        lag.cpu_share > 0.0 && lag.cpu_share <= 1.05,
        "cpu share {}",
        lag.cpu_share
    );
    assert!(r.summary.wall_seconds >= 0.05);
}

#[test]
fn hull_trades_bandwidth_for_near_empty_queues() {
    let run = |scheme: &str| {
        run_toml(&format!(
            r#"
            [emulation]
            duration_us = 30000
            [topology]
            kind = "rack"
            hosts_per_rack = 3
            [scheme]
            {scheme}
            [transport]
            kind = "dctcp"
            [[workload]]
            kind = "flows"
            flows = [{{ src = 0, dst = 2, bytes = 1000000000 }}, {{ src = 1, dst = 2, bytes = 1000000000 }}]
            "#
        ))
    };
    let hull = run("kind = \"hull\"\ngamma = 0.9\nthreshold = 3");
    let dctcp = run("kind = \"dctcp\"\nk = 20");
    let (h, d) = (port(&hull, "tor0", "h2"), port(&dctcp, "tor0", "h2"));
    eprintln!(
        "HULL queue {:.2} util {:.3}; DCTCP queue {:.2} util {:.3}",
        h.mean_occupancy, h.utilization, d.mean_occupancy, d.utilization
    );
    assert!(
        h.mean_occupancy < 0.25 * d.mean_occupancy,
        "hull {} dctcp {}",
        h.mean_occupancy,
        d.mean_occupancy
    );
    assert!(
        h.utilization > 0.7 && h.utilization < 0.99,
        "hull utilisation {}",
        h.utilization
    );
}

#[test]
fn queue_samples_are_bounded_and_counted() {
    let r = run_toml(
        r#"
        [emulation]
        duration_us = 1200
        sample_interval_slots = 1
        [topology]
        kind = "rack"
        hosts_per_rack = 2
        [output]
        queue_samples = true
        max_queue_samples = 100
        [[workload]]
        kind = "open_loop"
        sources = [1]
        destination = 0
        rate = 0.5
        "#,
    );
    assert_eq!(r.summary.queue_samples_kept, 100);
    // 1000 slots x 2 ports sampled, 100 kept.
    assert_eq!(r.summary.queue_samples_dropped, 1900);
}
