//! Frames from a real host's veth (`planck_emu::realhost::frame`): any bytes
//! are inspected or refused, never a panic; CE marking and checksum filling
//! change nothing but the TOS byte and the checksums, and a frame accepted
//! before is accepted after with the same addresses and flow.
#![no_main]

use libfuzzer_sys::fuzz_target;
use planck_emu::realhost::frame::{fill_l4_checksum, inspect, set_ce};

fuzz_target!(|data: &[u8]| {
    let before = inspect(data);
    let mut f = data.to_vec();
    let marked = set_ce(&mut f);
    if let Ok(info) = before {
        assert_eq!(marked, info.ect());
        let after = inspect(&f).expect("a marked frame stays valid");
        assert_eq!(
            (after.src, after.dst, after.flow),
            (info.src, info.dst, info.flow)
        );
        assert_eq!(after.ce(), info.ect());
        for (i, (a, b)) in data.iter().zip(&f).enumerate() {
            assert!(a == b || i == 15 || i == 24 || i == 25, "byte {i} changed");
        }
    } else {
        assert!(!marked);
        assert_eq!(f, data);
    }
    let mut g = data.to_vec();
    if fill_l4_checksum(&mut g) {
        assert_eq!(inspect(&g).map(|i| i.flow), before.map(|i| i.flow));
    }
});
