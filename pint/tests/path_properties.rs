//! Encoder -> decoder properties of path tracing over random paths, budgets and seeds.

use std::sync::Arc;

use pint::path::{
    DecoderLimits, HopSampling, LayerPlan, PathDecoder, PathEncoder, PathScheme, PathTracingConfig,
    TraceStatus, Universe, encode_path,
};
use proptest::prelude::*;

fn universe_ids() -> Vec<u32> {
    (0..256u32).map(|i| 10_000 + i * 3).collect()
}

fn path_from(indices: &[usize]) -> Vec<u32> {
    let ids = universe_ids();
    let mut out: Vec<u32> = Vec::new();
    for &i in indices {
        let mut j = i % ids.len();
        while out.contains(&ids[j]) {
            j = (j + 1) % ids.len();
        }
        out.push(ids[j]);
    }
    out
}

fn trace(cfg: PathTracingConfig, path: &[u32], first_pid: u64, max: u64) -> (TraceStatus, PathDecoder) {
    trace_with(cfg, path, first_pid, max, DecoderLimits::default())
}

fn trace_with(
    cfg: PathTracingConfig,
    path: &[u32],
    first_pid: u64,
    max: u64,
    limits: DecoderLimits,
) -> (TraceStatus, PathDecoder) {
    let scheme = Arc::new(PathScheme::new(cfg).unwrap());
    let uni = Arc::new(Universe::new(&scheme, universe_ids()).unwrap());
    let enc: Vec<PathEncoder> = path.iter().map(|&s| PathEncoder::new(scheme.clone(), s)).collect();
    let mut dec = PathDecoder::new(scheme, uni, path.len() as u32, limits).unwrap();
    let mut st = TraceStatus::Decoding;
    for p in 0..max {
        let pid = first_pid.wrapping_add(p.wrapping_mul(0x9e37_79b9));
        st = dec.observe(pid, encode_path(&enc, pid, 0xffff_ffff));
        if st != TraceStatus::Decoding {
            break;
        }
    }
    (st, dec)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    /// Every path is recovered exactly (never a wrong one) within a generous bound.
    #[test]
    fn recovers_every_path(
        hops in prop::collection::vec(any::<usize>(), 1..=20),
        budget in prop::sample::select(vec![4u32, 8, 16]),
        seed in any::<u64>(),
        first_pid in any::<u64>(),
        per_hop_hash in any::<bool>(),
    ) {
        let path = path_from(&hops);
        let mut cfg = PathTracingConfig::hybrid(budget, path.len() as u32, seed);
        if per_hop_hash {
            cfg.sampling = HopSampling::PerHopHash;
            cfg.layers.xor_layers[0].probability = (2.5 / path.len() as f64).min(0.5);
        }
        let (st, dec) = trace(cfg.clone(), &path, first_pid, 20_000);
        prop_assert_eq!(st, TraceStatus::Decoded);
        prop_assert_eq!(dec.path(), Some(path.clone()));
        prop_assert_eq!(dec.conflicts(), 0);
        // The confirmation margin changes when hops are decoded, never what.
        let limits = DecoderLimits { confirm_bits: Some(16.0), ..DecoderLimits::default() };
        let (st, dec) = trace_with(cfg, &path, first_pid, 20_000, limits);
        prop_assert_eq!(st, TraceStatus::Decoded);
        prop_assert_eq!(dec.path(), Some(path));
    }

    /// The baseline scheme alone also recovers paths.
    #[test]
    fn baseline_recovers(hops in prop::collection::vec(any::<usize>(), 1..=12), seed in any::<u64>()) {
        let path = path_from(&hops);
        let mut cfg = PathTracingConfig::hybrid(8, path.len() as u32, seed);
        cfg.layers = LayerPlan::baseline();
        let (st, dec) = trace(cfg, &path, seed, 20_000);
        prop_assert_eq!(st, TraceStatus::Decoded);
        prop_assert_eq!(dec.path(), Some(path));
    }

    /// With a confirmation margin, a hop whose switch is outside the universe does
    /// not yield a "decoded" path with a wrong switch (probability about 2^-24 per
    /// hop): the trace stays undecided or turns Inconsistent.
    #[test]
    fn unknown_switch_is_never_decoded(
        hops in prop::collection::vec(any::<usize>(), 2..=10),
        bad_hop in any::<usize>(),
        seed in any::<u64>(),
    ) {
        let mut path = path_from(&hops);
        let i = bad_hop % path.len();
        path[i] = 7; // not in the universe
        let limits = DecoderLimits { confirm_bits: Some(24.0), ..DecoderLimits::default() };
        let (st, dec) =
            trace_with(PathTracingConfig::hybrid(8, path.len() as u32, seed), &path, seed, 3_000, limits);
        prop_assert_ne!(st, TraceStatus::Decoded);
        prop_assert!(dec.hop_value(i as u32 + 1).is_none());
    }
}

/// After a flow moves, packets from the new path contradict the decoded one.
#[test]
fn path_change_is_detected() {
    let old = path_from(&[1, 2, 3, 4, 5, 6]);
    let mut new = old.clone();
    new[3] = 10_000 + 200 * 3;
    let cfg = PathTracingConfig::hybrid(8, 6, 42);
    let scheme = Arc::new(PathScheme::new(cfg).unwrap());
    let uni = Arc::new(Universe::new(&scheme, universe_ids()).unwrap());
    let mut dec = PathDecoder::new(scheme.clone(), uni, 6, DecoderLimits::default()).unwrap();
    let enc_old: Vec<_> = old.iter().map(|&s| PathEncoder::new(scheme.clone(), s)).collect();
    let enc_new: Vec<_> = new.iter().map(|&s| PathEncoder::new(scheme.clone(), s)).collect();
    let mut p = 0u64;
    while dec.observe(p, encode_path(&enc_old, p, 0)) == TraceStatus::Decoding {
        p += 1;
    }
    assert_eq!(dec.path(), Some(old));
    let mut st = TraceStatus::Decoded;
    for _ in 0..200 {
        p += 1;
        st = dec.observe(p, encode_path(&enc_new, p, 0));
        if st == TraceStatus::Inconsistent {
            break;
        }
    }
    assert_eq!(st, TraceStatus::Inconsistent);
    dec.reset();
    while dec.observe(p, encode_path(&enc_new, p, 0)) == TraceStatus::Decoding {
        p += 1;
    }
    assert_eq!(dec.path(), Some(new));
}

/// The encoder leaves bits above the budget alone (the field is shared).
#[test]
fn encoder_keeps_bits_outside_budget() {
    let scheme = Arc::new(PathScheme::new(PathTracingConfig::hybrid(8, 5, 1)).unwrap());
    let e = PathEncoder::new(scheme, 10_003);
    for p in 0..1000 {
        assert_eq!(e.encode(0xab00, p, 1) & 0xff00, 0xab00);
        assert_eq!(e.encode(0x1234, p, 3) & 0xff00, 0x1200);
    }
}

/// A sparse topology over `universe_ids()`: a ring plus random chords, and a walk on
/// it that never revisits a switch (the kind of path a sink with links decodes).
fn topology_and_walk(seed: u64, hops: usize) -> (Vec<(u32, u32)>, Vec<u32>) {
    let ids = universe_ids();
    let n = ids.len();
    let mut adj = vec![Vec::new(); n];
    let mut s = seed;
    let mut next = || {
        s = pint::hash::mix64(s.wrapping_add(pint::hash::GOLDEN));
        s
    };
    for i in 0..n {
        adj[i].push((i + 1) % n);
        adj[(i + 1) % n].push(i);
    }
    for _ in 0..n {
        let (a, b) = ((next() % n as u64) as usize, (next() % n as u64) as usize);
        if a != b {
            adj[a].push(b);
            adj[b].push(a);
        }
    }
    let mut walk = vec![(next() % n as u64) as usize];
    while walk.len() < hops {
        let here = *walk.last().unwrap();
        let open: Vec<usize> = adj[here].iter().copied().filter(|x| !walk.contains(x)).collect();
        if open.is_empty() {
            break;
        }
        walk.push(open[(next() % open.len() as u64) as usize]);
    }
    let mut links = Vec::new();
    for (a, ns) in adj.iter().enumerate() {
        links.extend(ns.iter().map(|&b| (ids[a], ids[b])));
    }
    (links, walk.into_iter().map(|i| ids[i]).collect())
}

fn trace_on_links(
    cfg: PathTracingConfig,
    links: &[(u32, u32)],
    path: &[u32],
    max: u64,
    limits: DecoderLimits,
) -> (TraceStatus, PathDecoder, u64) {
    let scheme = Arc::new(PathScheme::new(cfg).unwrap());
    let uni = Arc::new(Universe::with_links(&scheme, universe_ids(), links).unwrap());
    let enc: Vec<PathEncoder> = path.iter().map(|&s| PathEncoder::new(scheme.clone(), s)).collect();
    let mut dec = PathDecoder::new(scheme, uni, path.len() as u32, limits).unwrap();
    let mut st = TraceStatus::Decoding;
    let mut n = 0;
    while n < max && st == TraceStatus::Decoding {
        n += 1;
        let pid = n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        st = dec.observe(pid, encode_path(&enc, pid, 0));
    }
    (st, dec, n)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    /// With the topology's links known, every walk is recovered exactly.
    #[test]
    fn recovers_every_walk_with_links(
        seed in any::<u64>(),
        hops in 2usize..=30,
        budget in prop::sample::select(vec![4u32, 8, 16]),
    ) {
        let (links, path) = topology_and_walk(seed, hops);
        let cfg = PathTracingConfig::hybrid(budget, path.len() as u32, seed ^ 1);
        let (st, dec, _) = trace_on_links(cfg, &links, &path, 20_000, DecoderLimits::default());
        prop_assert_eq!(st, TraceStatus::Decoded);
        prop_assert_eq!(dec.path(), Some(path));
        prop_assert_eq!(dec.conflicts(), 0);
    }

    /// Links that leave out one hop's link (the controller's view is wrong, or a rule
    /// sends packets over a link it does not know): with a margin the wrong topology
    /// never produces a decoded path that is not the true one.
    #[test]
    fn missing_link_is_never_decoded_wrongly(seed in any::<u64>(), hops in 3usize..=12, cut in any::<usize>()) {
        let (mut links, path) = topology_and_walk(seed, hops);
        let i = cut % (path.len() - 1);
        let (a, b) = (path[i], path[i + 1]);
        links.retain(|&(x, y)| !((x == a && y == b) || (x == b && y == a)));
        let limits = DecoderLimits { confirm_bits: Some(24.0), ..DecoderLimits::default() };
        let cfg = PathTracingConfig::hybrid(8, path.len() as u32, seed ^ 2);
        let (st, dec, _) = trace_on_links(cfg, &links, &path, 3_000, limits);
        if st == TraceStatus::Decoded {
            prop_assert_eq!(dec.path(), Some(path));
        }
    }
}

/// Knowing the links takes fewer packets: 25-hop walks at 8 bits, summed over paths.
#[test]
fn links_need_fewer_packets_than_ids_alone() {
    let (mut with, mut without) = (0, 0);
    for seed in 0..20u64 {
        let (links, path) = topology_and_walk(seed, 25);
        let cfg = PathTracingConfig::hybrid(8, 25, seed);
        with += trace_on_links(cfg.clone(), &links, &path, 20_000, DecoderLimits::default()).2;
        let (st, dec) = trace(cfg, &path, 1, 20_000);
        assert_eq!(dec.path(), Some(path));
        assert_eq!(st, TraceStatus::Decoded);
        without += dec.packets();
    }
    assert!(with * 3 < without * 2, "with links {with} packets, without {without}");
}

#[test]
fn links_outside_the_universe_are_rejected() {
    let scheme = PathScheme::new(PathTracingConfig::hybrid(8, 5, 1)).unwrap();
    assert!(Universe::with_links(&scheme, universe_ids(), &[(10_000, 7)]).unwrap_err().0.contains("outside"));
    assert!(Universe::with_links(&scheme, universe_ids(), &[(10_000, 10_000)]).is_err());
    assert!(Universe::with_links(&scheme, universe_ids(), &[(10_000, 10_003)]).unwrap().has_links());
}
