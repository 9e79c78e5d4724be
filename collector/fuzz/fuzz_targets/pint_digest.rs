//! Frame -> PINT digest: no input may panic, and what is accepted must be in range
//! and agree with the ordinary frame decoder on the flow's 5-tuple.
#![no_main]

use libfuzzer_sys::fuzz_target;
use planck_collector::decode::frame::decode_frame;
use planck_collector::decode::pint::{PintFrameLayout, decode_pint_frame};

fuzz_target!(|data: &[u8]| {
    // First byte: budget (1..=16) and initial TTL choice, so layouts are fuzzed too.
    let (layout, frame) = match data {
        [a, rest @ ..] => (
            PintFrameLayout { budget_bits: u32::from(a & 0x1f), initial_ttl: if a & 0x20 == 0 { 64 } else { 255 }, seed: 1 },
            rest,
        ),
        _ => return,
    };
    if let Ok(s) = decode_pint_frame(frame, &layout) {
        assert!((1..=16).contains(&layout.budget_bits));
        assert!((1..=64).contains(&s.hops));
        assert!(s.digest < (1u64 << layout.budget_bits));
        assert!(s.tuple.proto == 6 || s.tuple.proto == 17);
        if let Ok(f) = decode_frame(frame, None) {
            assert_eq!(f.tuple, s.tuple);
        }
    }
});
