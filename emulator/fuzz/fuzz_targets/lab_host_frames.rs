//! Frames from a real host of the lab fabric (`planck_emu::lab::linux_hosts`): any bytes are
//! classified or refused, never a panic; a classified frame's mirror copy is the frame with a
//! tag after the MACs and the destination MAC replaced, cut to the snap length.
#![no_main]

use libfuzzer_sys::fuzz_target;
use planck_emu::lab::linux_hosts::{classify, mirror_copy};
use planck_emu::lab::rules::Mac;

fuzz_target!(|data: &[u8]| {
    let Ok(c) = classify(data, 1514) else {
        return;
    };
    assert!(data.len() <= 1514);
    let mut out = Vec::new();
    let snap = 64 + data.len() % 128;
    let full = mirror_copy(data, Mac(7), 100, snap, &mut out);
    assert_eq!(full, data.len() + 4);
    assert_eq!(out.len(), snap.min(full));
    assert_eq!(&out[..6], &[0, 0, 0, 0, 0, 7]);
    assert_eq!(&out[16..], &data[12..12 + out.len() - 16]);
    assert_eq!(classify(data, 1514), Ok(c));
});
