//! Synthetic mirrored traffic for the integration tests.
#![allow(dead_code)]

use etherparse::PacketBuilder;

pub const MAC_H1: [u8; 6] = [2, 0, 0, 0, 0, 1];
pub const MAC_H2: [u8; 6] = [2, 0, 0, 0, 0, 2];
pub const MAC_H3: [u8; 6] = [2, 0, 0, 0, 0, 3];
pub const MAC_H4: [u8; 6] = [2, 0, 0, 0, 0, 4];

pub fn with_vlan(mut frame: Vec<u8>, vlan: Option<u16>) -> Vec<u8> {
    if let Some(v) = vlan {
        frame.splice(12..12, [0x81, 0x00, (v >> 8) as u8, v as u8]);
    }
    frame
}

/// A TCP segment; only the first `snap` bytes are kept (mirror truncation).
#[allow(clippy::too_many_arguments)]
pub fn tcp(
    src_mac: [u8; 6],
    dst_mac: [u8; 6],
    src: [u8; 4],
    dst: [u8; 4],
    sport: u16,
    dport: u16,
    seq: u32,
    ack: u32,
    payload: usize,
    vlan: Option<u16>,
    snap: usize,
) -> Vec<u8> {
    let b = PacketBuilder::ethernet2(src_mac, dst_mac)
        .ipv4(src, dst, 64)
        .tcp(sport, dport, seq, 65535)
        .ack(ack);
    let mut out = Vec::with_capacity(payload + 64);
    b.write(&mut out, &vec![0u8; payload]).unwrap();
    out.truncate(snap.max(54));
    with_vlan(out, vlan)
}

#[allow(clippy::too_many_arguments)]
pub fn udp(
    src_mac: [u8; 6],
    dst_mac: [u8; 6],
    src: [u8; 4],
    dst: [u8; 4],
    sport: u16,
    dport: u16,
    payload: usize,
    vlan: Option<u16>,
) -> Vec<u8> {
    let b = PacketBuilder::ethernet2(src_mac, dst_mac)
        .ipv4(src, dst, 64)
        .udp(sport, dport);
    let mut out = Vec::new();
    b.write(&mut out, &vec![0u8; payload]).unwrap();
    with_vlan(out, vlan)
}

/// Deterministic xorshift so the "mirror drops" are reproducible.
pub struct Lcg(pub u64);
impl Lcg {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// True with probability 1/n.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.next().is_multiple_of(n)
    }
}

/// A captured frame with its timestamp (ns since epoch).
pub struct Captured {
    pub ts_ns: u64,
    pub frame: Vec<u8>,
}

pub const T0: u64 = 1_763_718_000_000_000_000;

/// The test scenario, all at switch VLAN 10 unless noted:
/// - flow A: 10.0.0.1:40000 -> 10.0.0.2:5201, 1448-byte segments every 100 µs
///   (115.84 Mb/s) for 0.5 s, ISN just below 2^32 so it wraps, sampled 1 in 8 at
///   random, plus its ACKs (1 in 8) and one stale retransmission.
/// - flow B: 10.0.0.3:5201 -> 10.0.0.4:40001 at 23.168 Mb/s, only its ACKs are mirrored.
/// - flow C: UDP 10.0.0.1:9000 -> 10.0.0.4:9001, 1000-byte payloads every 400 µs
///   (20 Mb/s), sampled 1 in 8.
/// - noise: garbage, ARP, a frame on unknown VLAN 20.
pub fn scenario() -> Vec<Captured> {
    let mut rng = Lcg(0x9e3779b97f4a7c15);
    let mut out = Vec::new();
    let isn_a: u32 = u32::MAX - 3_000_000;
    let seg = 1448usize;
    let n = 5000u64;
    for i in 0..n {
        let ts = T0 + i * 100_000;
        let seq = isn_a.wrapping_add((i as u32) * seg as u32);
        if rng.one_in(8) || i == 0 || i == n - 1 {
            out.push(Captured {
                ts_ns: ts,
                frame: tcp(
                    MAC_H1,
                    MAC_H2,
                    [10, 0, 0, 1],
                    [10, 0, 0, 2],
                    40000,
                    5201,
                    seq,
                    1,
                    seg,
                    Some(10),
                    128,
                ),
            });
        }
        if rng.one_in(8) {
            out.push(Captured {
                ts_ns: ts + 20_000,
                frame: tcp(
                    MAC_H2,
                    MAC_H1,
                    [10, 0, 0, 2],
                    [10, 0, 0, 1],
                    5201,
                    40000,
                    1,
                    seq.wrapping_add(seg as u32),
                    0,
                    Some(10),
                    128,
                ),
            });
        }
        if i == 2500 {
            // Retransmission of an old segment: must not disturb the estimate.
            out.push(Captured {
                ts_ns: ts + 1,
                frame: tcp(
                    MAC_H1,
                    MAC_H2,
                    [10, 0, 0, 1],
                    [10, 0, 0, 2],
                    40000,
                    5201,
                    isn_a.wrapping_add(100 * seg as u32),
                    1,
                    seg,
                    Some(10),
                    128,
                ),
            });
        }
        // Flow B: 1448 bytes every 500 µs, only ACKs seen.
        if i % 5 == 0 {
            let acked = 7u32.wrapping_add((i / 5 + 1) as u32 * seg as u32);
            if rng.one_in(4) || i == 0 || i == n - 5 {
                out.push(Captured {
                    ts_ns: ts + 30_000,
                    frame: tcp(
                        MAC_H4,
                        MAC_H3,
                        [10, 0, 0, 4],
                        [10, 0, 0, 3],
                        40001,
                        5201,
                        99,
                        acked,
                        0,
                        Some(10),
                        128,
                    ),
                });
            }
        }
        // Flow C.
        if i % 4 == 0 && (rng.one_in(8) || i == 0 || i == n - 4) {
            out.push(Captured {
                ts_ns: ts + 50_000,
                frame: udp(
                    MAC_H1,
                    MAC_H4,
                    [10, 0, 0, 1],
                    [10, 0, 0, 4],
                    9000,
                    9001,
                    1000,
                    Some(10),
                ),
            });
        }
        if i % 1000 == 0 {
            out.push(Captured {
                ts_ns: ts + 60_000,
                frame: vec![0xde, 0xad, 0xbe, 0xef],
            });
            let mut arp = vec![0xff; 6];
            arp.extend_from_slice(&MAC_H1);
            arp.extend_from_slice(&[0x08, 0x06]);
            arp.extend_from_slice(&[0u8; 28]);
            out.push(Captured {
                ts_ns: ts + 61_000,
                frame: arp,
            });
            out.push(Captured {
                ts_ns: ts + 62_000,
                frame: tcp(
                    MAC_H1,
                    MAC_H2,
                    [10, 9, 0, 1],
                    [10, 9, 0, 2],
                    1,
                    2,
                    0,
                    0,
                    10,
                    Some(20),
                    128,
                ),
            });
        }
    }
    out.sort_by_key(|c| c.ts_ns);
    out
}

pub const FORWARDING: &str = r#"{
  "version": 1, "collector": "c1", "generation": 3,
  "switches": [{
    "switch": "of:0000000000000001", "rspanVlan": 10, "mirrorPort": 9,
    "ports": [{"port": 2, "capacityBps": 100000000}, {"port": 3, "capacityBps": 1000000000}, {"port": 4, "capacityBps": 1000000000}],
    "entries": [
      {"mac": "02:00:00:00:00:01", "port": 1},
      {"mac": "02:00:00:00:00:02", "port": 2},
      {"mac": "02:00:00:00:00:03", "port": 3},
      {"mac": "02:00:00:00:00:04", "port": 4}
    ]
  }]
}"#;

pub fn write_pcap(path: &std::path::Path, frames: &[Captured]) {
    use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
    let f = std::fs::File::create(path).unwrap();
    let header = PcapHeader {
        ts_resolution: pcap_file::TsResolution::NanoSecond,
        ..PcapHeader::default()
    };
    let mut w = PcapWriter::with_header(f, header).unwrap();
    for c in frames {
        let ts = std::time::Duration::from_nanos(c.ts_ns);
        w.write_packet(&PcapPacket::new(ts, c.frame.len() as u32 + 1400, &c.frame))
            .unwrap();
    }
}

pub fn write_pcapng(path: &std::path::Path, frames: &[Captured]) {
    use pcap_file::pcapng::PcapNgWriter;
    use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
    use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionBlock;
    use std::borrow::Cow;
    let f = std::fs::File::create(path).unwrap();
    let mut w = PcapNgWriter::new(f).unwrap();
    // No if_tsresol option: timestamps are in microseconds.
    w.write_pcapng_block(InterfaceDescriptionBlock {
        linktype: pcap_file::DataLink::ETHERNET,
        snaplen: 0,
        options: vec![],
    })
    .unwrap();
    for c in frames {
        // pcap-file writes the Duration's nanoseconds raw; store microsecond units.
        let epb = EnhancedPacketBlock {
            interface_id: 0,
            timestamp: std::time::Duration::from_nanos(c.ts_ns / 1000),
            original_len: c.frame.len() as u32,
            data: Cow::Borrowed(&c.frame),
            options: vec![],
        };
        w.write_pcapng_block(epb).unwrap();
    }
}

/// An IPv6 TCP segment (no truncation, no VLAN).
#[allow(clippy::too_many_arguments)]
pub fn tcp6(
    src_mac: [u8; 6],
    dst_mac: [u8; 6],
    src: [u8; 16],
    dst: [u8; 16],
    sport: u16,
    dport: u16,
    seq: u32,
    ack: u32,
    payload: usize,
) -> Vec<u8> {
    let b = PacketBuilder::ethernet2(src_mac, dst_mac)
        .ipv6(src, dst, 64)
        .tcp(sport, dport, seq, 65535)
        .ack(ack);
    let mut out = Vec::with_capacity(payload + 80);
    b.write(&mut out, &vec![0u8; payload]).unwrap();
    out
}
