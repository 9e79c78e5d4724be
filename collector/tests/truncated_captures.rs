//! Captures as real capture tools leave them: records cut by a snap length (original
//! length > captured length and > the file's snap length), and a last record cut short
//! at any byte (a capture killed or still being written). Files are written byte by byte
//! here, so nothing depends on a writer that would refuse them.

mod common;

use std::io::{Cursor, Read};

use common::*;
use planck_collector::capture::pcap::{Pace, PcapReplay, ReplayRead};

const SNAP: usize = 128;

/// A frame as tcpdump -s 128 stores it: its first SNAP bytes, and its wire length.
fn sample(i: u32) -> (Vec<u8>, u32) {
    let full = tcp(
        MAC_H1,
        MAC_H2,
        [10, 0, 0, 1],
        [10, 0, 0, 2],
        40000,
        5201,
        1000 + 1448 * i,
        1,
        1448,
        None,
        usize::MAX,
    );
    let wire = full.len() as u32;
    // Every other record is short enough to be whole: both kinds in one file.
    let kept = if i.is_multiple_of(2) { SNAP } else { 60 };
    let mut data = full;
    data.truncate(kept);
    (data, if i.is_multiple_of(2) { wire } else { 60 })
}

/// Legacy pcap, microseconds, snap length SNAP. Returns the file and each record's end.
fn legacy_pcap(n: u32) -> (Vec<u8>, Vec<usize>) {
    let mut f = Vec::new();
    f.extend_from_slice(&0xa1b2c3d4u32.to_le_bytes());
    f.extend_from_slice(&2u16.to_le_bytes());
    f.extend_from_slice(&4u16.to_le_bytes());
    f.extend_from_slice(&0i32.to_le_bytes());
    f.extend_from_slice(&0u32.to_le_bytes());
    f.extend_from_slice(&(SNAP as u32).to_le_bytes());
    f.extend_from_slice(&1u32.to_le_bytes());
    let mut ends = vec![f.len()];
    for i in 0..n {
        let (data, wire) = sample(i);
        f.extend_from_slice(&(1_700_000_000u32 + i).to_le_bytes());
        f.extend_from_slice(&(i * 10).to_le_bytes());
        f.extend_from_slice(&(data.len() as u32).to_le_bytes());
        f.extend_from_slice(&wire.to_le_bytes());
        f.extend_from_slice(&data);
        ends.push(f.len());
    }
    (f, ends)
}

fn block(f: &mut Vec<u8>, kind: u32, body: &[u8]) {
    let len = 12 + body.len().next_multiple_of(4);
    f.extend_from_slice(&kind.to_le_bytes());
    f.extend_from_slice(&(len as u32).to_le_bytes());
    f.extend_from_slice(body);
    f.resize(f.len() + (body.len().next_multiple_of(4) - body.len()), 0);
    f.extend_from_slice(&(len as u32).to_le_bytes());
}

/// pcapng with one Ethernet interface (snap length SNAP, nanosecond timestamps) and one
/// non-Ethernet interface. Returns the file and the end of each packet block.
fn pcapng(n: u32) -> (Vec<u8>, Vec<usize>) {
    let mut f = Vec::new();
    let mut shb = Vec::new();
    shb.extend_from_slice(&0x1a2b3c4du32.to_le_bytes());
    shb.extend_from_slice(&1u16.to_le_bytes());
    shb.extend_from_slice(&0u16.to_le_bytes());
    shb.extend_from_slice(&(-1i64).to_le_bytes());
    block(&mut f, 0x0a0d0d0a, &shb);
    let mut idb = Vec::new();
    idb.extend_from_slice(&1u16.to_le_bytes());
    idb.extend_from_slice(&0u16.to_le_bytes());
    idb.extend_from_slice(&(SNAP as u32).to_le_bytes());
    // if_tsresol = 9 (nanoseconds), then opt_endofopt.
    idb.extend_from_slice(&[9, 0, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0]);
    block(&mut f, 1, &idb);
    let mut idb2 = Vec::new();
    idb2.extend_from_slice(&113u16.to_le_bytes()); // Linux cooked: not Ethernet
    idb2.extend_from_slice(&0u16.to_le_bytes());
    idb2.extend_from_slice(&0u32.to_le_bytes());
    block(&mut f, 1, &idb2);
    let mut ends = vec![f.len()];
    for i in 0..n {
        let (data, wire) = sample(i);
        let ts = 1_700_000_000_000_000_000u64 + i as u64 * 10_000;
        let mut epb = Vec::new();
        // Every third packet is on the non-Ethernet interface.
        epb.extend_from_slice(&((i % 3 == 2) as u32).to_le_bytes());
        epb.extend_from_slice(&((ts >> 32) as u32).to_le_bytes());
        epb.extend_from_slice(&(ts as u32).to_le_bytes());
        epb.extend_from_slice(&(data.len() as u32).to_le_bytes());
        epb.extend_from_slice(&wire.to_le_bytes());
        epb.extend_from_slice(&data);
        epb.resize(epb.len().next_multiple_of(4), 0);
        block(&mut f, 6, &epb);
        ends.push(f.len());
    }
    (f, ends)
}

/// Hands out at most `chunk` bytes per read (after a first read big enough for the
/// file header), like a pipe or a file still being written.
struct Trickle {
    data: Cursor<Vec<u8>>,
    chunk: usize,
    first: bool,
}

impl Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = if self.first { 64 } else { self.chunk };
        self.first = false;
        let n = n.min(buf.len());
        self.data.read(&mut buf[..n])
    }
}

/// Frames handed on: (timestamp ns, wire length, captured bytes).
type Frames = Vec<(u64, u32, Vec<u8>)>;

fn replay(bytes: Vec<u8>, chunk: Option<usize>) -> (Result<ReplayRead, String>, Frames) {
    let r = match chunk {
        None => PcapReplay::from_reader(Cursor::new(bytes), "t", Pace::Fast),
        Some(c) => PcapReplay::from_reader(
            Trickle {
                data: Cursor::new(bytes),
                chunk: c,
                first: true,
            },
            "t",
            Pace::Fast,
        ),
    };
    let mut got = Vec::new();
    let res = r
        .unwrap()
        .for_each(|m, d| got.push((m.ts_ns, m.wire_len, d.to_vec())));
    (res, got)
}

fn check_frames(got: &[(u64, u32, Vec<u8>)], expected: &[u32], ts: impl Fn(u32) -> u64) {
    assert_eq!(got.len(), expected.len());
    for (g, &i) in got.iter().zip(expected) {
        let (data, wire) = sample(i);
        assert_eq!(g.0, ts(i), "record {i}");
        assert_eq!(g.1, wire, "record {i}");
        assert_eq!(g.2, data, "record {i}");
    }
}

#[test]
fn snap_length_records_are_read_with_their_wire_length() {
    let (f, _) = legacy_pcap(40);
    let (res, got) = replay(f, None);
    let read = res.unwrap();
    assert_eq!(read.frames, 40);
    assert_eq!(read.truncated_tail_bytes, 0);
    let all: Vec<u32> = (0..40).collect();
    check_frames(&got, &all, |i| {
        (1_700_000_000 + i as u64) * 1_000_000_000 + i as u64 * 10_000
    });
    assert!(got[0].1 as usize > SNAP, "orig_len exceeds the snap length");
}

#[test]
fn legacy_pcap_cut_at_every_byte_gives_every_complete_record() {
    let n = 6;
    let (f, ends) = legacy_pcap(n);
    let ts = |i: u32| (1_700_000_000 + i as u64) * 1_000_000_000 + i as u64 * 10_000;
    for cut in ends[0]..=f.len() {
        for chunk in [None, Some(7)] {
            let (res, got) = replay(f[..cut].to_vec(), chunk);
            let read = res.unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
            let complete = ends.iter().filter(|&&e| e <= cut).count() as u32 - 1;
            let last_end = ends[complete as usize];
            assert_eq!(read.frames, complete as u64, "cut at {cut}");
            assert_eq!(
                read.truncated_tail_bytes,
                (cut - last_end) as u64,
                "cut at {cut}"
            );
            check_frames(&got, &(0..complete).collect::<Vec<_>>(), ts);
        }
    }
}

#[test]
fn pcapng_cut_at_every_byte_gives_every_complete_record() {
    let n = 6;
    let (f, ends) = pcapng(n);
    let ts = |i: u32| 1_700_000_000_000_000_000u64 + i as u64 * 10_000;
    for cut in ends[0]..=f.len() {
        for chunk in [None, Some(5)] {
            let (res, got) = replay(f[..cut].to_vec(), chunk);
            let read = res.unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
            let complete = ends.iter().filter(|&&e| e <= cut).count() as u32 - 1;
            let ethernet: Vec<u32> = (0..complete).filter(|i| i % 3 != 2).collect();
            assert_eq!(read.frames, ethernet.len() as u64, "cut at {cut}");
            assert_eq!(read.non_ethernet, (complete - ethernet.len() as u32) as u64);
            assert_eq!(
                read.truncated_tail_bytes,
                (cut - ends[complete as usize]) as u64,
                "cut at {cut}"
            );
            check_frames(&got, &ethernet, ts);
        }
    }
}

#[test]
fn a_record_larger_than_the_buffer_is_read_whole() {
    // 3 MiB of captured bytes: the reader's buffer grows to take it.
    let (mut f, _) = legacy_pcap(1);
    let big = vec![0xabu8; 3 << 20];
    f.extend_from_slice(&5u32.to_le_bytes());
    f.extend_from_slice(&0u32.to_le_bytes());
    f.extend_from_slice(&(big.len() as u32).to_le_bytes());
    f.extend_from_slice(&(big.len() as u32).to_le_bytes());
    f.extend_from_slice(&big);
    let (res, got) = replay(f, None);
    assert_eq!(res.unwrap().frames, 2);
    assert_eq!(got[1].2.len(), big.len());
}

#[test]
fn corrupt_input_is_an_error_not_a_panic() {
    let (f, ends) = legacy_pcap(3);
    // A length field claiming more than the largest record: an error with a reason.
    let mut bad = f.clone();
    let at = ends[1] + 8;
    bad[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let (res, got) = replay(bad, None);
    let e = res.unwrap_err();
    assert!(e.contains("corrupt"), "{e}");
    assert_eq!(got.len(), 1);
    // Not a capture at all.
    assert!(
        PcapReplay::from_reader(
            Cursor::new(b"hello, world, not pcap".to_vec()),
            "t",
            Pace::Fast
        )
        .is_err()
    );
    assert!(PcapReplay::from_reader(Cursor::new(Vec::new()), "t", Pace::Fast).is_err());
    // A pcapng block whose two length fields disagree.
    let (mut ng, ends) = pcapng(2);
    let last = ends[2] - 4;
    ng[last] ^= 0x40;
    assert!(replay(ng, None).0.is_err());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Any bytes after a valid header: an answer (frames or a reason), never a panic,
    /// and never more frames than records could fit.
    #[test]
    fn arbitrary_records_never_panic(tail in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..600)) {
        let (mut f, _) = legacy_pcap(0);
        f.extend_from_slice(&tail);
        let (res, got) = replay(f, Some(13));
        if let Ok(r) = res {
            proptest::prop_assert_eq!(r.frames as usize, got.len());
            proptest::prop_assert!(got.len() * 16 <= tail.len());
        }
    }
}
