//! Property tests of the fabric's parsers and rule semantics: MAC strings,
//! match overlap against brute force, all-or-nothing batches, and request
//! bodies that never panic and, when rejected, change nothing.

use planck_emu::lab::FabricConfig;
use planck_emu::lab::api::{BodyKind, parse_body};
use planck_emu::lab::engine::{Command, FabricEngine};
use planck_emu::lab::rules::{
    Headers, Mac, OpKind, RuleActions, RuleMatch, RuleOp, RuleTable, apply_batch,
};
use proptest::prelude::*;

fn small_match() -> impl Strategy<Value = RuleMatch> {
    (
        proptest::option::of(1u16..=2),
        proptest::option::of(1u64..=2),
        proptest::option::of(1u16..=2),
    )
        .prop_map(|(in_port, dst, sport)| RuleMatch {
            in_port,
            eth_dst: dst.map(Mac),
            sport,
            ..Default::default()
        })
}

fn all_headers() -> Vec<Headers> {
    let mut v = Vec::new();
    for in_port in 1..=2u16 {
        for dst in 1..=2u64 {
            for sport in 1..=2u16 {
                v.push(Headers {
                    in_port,
                    eth_src: Mac(9),
                    eth_dst: Mac(dst),
                    ip_src: "10.0.0.1".parse().unwrap(),
                    ip_dst: "10.0.0.2".parse().unwrap(),
                    proto: 6,
                    sport,
                    dport: 5001,
                });
            }
        }
    }
    v
}

fn snapshot(t: &[RuleTable]) -> Vec<Vec<(u32, RuleMatch, RuleActions)>> {
    t.iter()
        .map(|t| {
            t.rules()
                .iter()
                .map(|r| (r.priority, r.matcher, r.actions))
                .collect()
        })
        .collect()
}

proptest! {
    #[test]
    fn mac_round_trips(v in 0u64..(1 << 48)) {
        let m = Mac(v);
        prop_assert_eq!(m.to_string().parse::<Mac>(), Ok(m));
    }

    #[test]
    fn mac_parse_never_panics(s in ".{0,24}") {
        let _ = s.parse::<Mac>();
    }

    #[test]
    fn overlap_means_some_packet_matches_both(a in small_match(), b in small_match()) {
        let both = all_headers().iter().any(|h| a.matches(h) && b.matches(h));
        prop_assert_eq!(a.overlaps(&b), both);
    }

    #[test]
    fn batches_apply_entirely_or_not_at_all(
        ops in proptest::collection::vec((0usize..2, any::<bool>(), 1u32..4, small_match(), 1u16..=5), 1..8)
    ) {
        let ports = [4u16, 4];
        let mut tables = vec![RuleTable::default(), RuleTable::default()];
        let ops: Vec<RuleOp> = ops.into_iter().map(|(sw, add, prio, m, out)| RuleOp {
            kind: if add { OpKind::Add } else { OpKind::Delete },
            switch: sw,
            priority: prio,
            matcher: m,
            actions: Some(RuleActions { set_eth_dst: None, output: out }),
        }).collect();
        // Pre-populate with the first op if it applies on its own.
        let _ = apply_batch(&mut tables, &ops[..1], &ports);
        let before = snapshot(&tables);
        match apply_batch(&mut tables, &ops, &ports) {
            Ok(n) => prop_assert_eq!(n, ops.len()),
            Err(_) => prop_assert_eq!(snapshot(&tables), before),
        }
        // Whatever happened, the tables keep their invariant: no two rules of one
        // priority overlap, and priorities are sorted.
        for t in &tables {
            let r = t.rules();
            for i in 0..r.len() {
                if i + 1 < r.len() { prop_assert!(r[i].priority >= r[i + 1].priority); }
                for j in i + 1..r.len() {
                    prop_assert!(!(r[i].priority == r[j].priority && r[i].matcher.overlaps(&r[j].matcher)));
                }
            }
        }
    }

    #[test]
    fn arbitrary_bodies_never_panic(body in proptest::collection::vec(any::<u8>(), 0..256)) {
        for kind in [BodyKind::Rules, BodyKind::Mirrors, BodyKind::Flows] {
            let _ = parse_body(kind, &body, 20, 16);
        }
    }

    #[test]
    fn rejected_rule_and_flow_requests_change_nothing(
        prio in 0u32..3, out in 0u16..7, sw in 0u64..23, port in proptest::option::of(0u16..7),
        bytes in 0u64..3000, src in 0u64..18, dst in 0u64..18,
    ) {
        let cfg = FabricConfig::parse("[fabric]\ntopology = \"fattree:4\"\nmode = \"virtual\"\n").unwrap();
        let mut e = FabricEngine::new(&cfg, false).unwrap();
        e.handle(Command::Rules(vec![RuleOp { kind: OpKind::Add, switch: 0, priority: 1,
            matcher: RuleMatch::default(), actions: Some(RuleActions { set_eth_dst: None, output: 1 }) }])).unwrap();
        let rules = serde_json::json!({"version": 1, "ops": [{"op": "add", "switch": format!("of:{sw:016x}"),
            "priority": prio, "match": {"inPort": port}, "actions": {"output": out}}]});
        let flows = serde_json::json!({"version": 1, "flows": [{"id": 1, "src": Mac(src).to_string(),
            "dst": Mac(dst).to_string(), "bytes": bytes, "sport": 1, "dport": 2}]});
        for (kind, body) in [(BodyKind::Rules, rules), (BodyKind::Flows, flows)] {
            let before = (e.handle(Command::Counters).unwrap()["rules"].clone(),
                          e.handle(Command::Flows).unwrap());
            let applied = parse_body(kind, body.to_string().as_bytes(), 20, 16)
                .and_then(|c| e.handle(c));
            let after = (e.handle(Command::Counters).unwrap()["rules"].clone(),
                         e.handle(Command::Flows).unwrap());
            if let Err(err) = applied {
                prop_assert_eq!(err.code, 400);
                prop_assert_eq!(after, before);
            }
        }
    }
}
