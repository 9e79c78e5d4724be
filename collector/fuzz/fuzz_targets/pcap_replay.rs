//! pcap / pcapng replay reader: no input may panic or loop; what it hands on is bounded
//! by the input, and an answer is frames read or a reason.
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use planck_collector::capture::pcap::{Pace, PcapReplay};

fuzz_target!(|data: &[u8]| {
    let Ok(replay) = PcapReplay::from_reader(Cursor::new(data.to_vec()), "fuzz", Pace::Fast) else {
        return;
    };
    let mut frames = 0u64;
    let mut bytes = 0usize;
    let res = replay.for_each(|_, d| {
        frames += 1;
        bytes += d.len();
    });
    assert!(bytes <= data.len());
    if let Ok(r) = res {
        assert_eq!(r.frames, frames);
        assert!(r.truncated_tail_bytes as usize <= data.len());
    }
});
