//! Ethernet / VLAN / IPv4 / IPv6 / TCP / UDP decoder for mirrored samples (zero-copy,
//! on etherparse slices). Lax slicing is used on purpose: samples are often truncated by
//! a snap length, and the estimators need the lengths the headers declare, not the
//! captured length.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use etherparse::{LaxNetSlice, LaxSlicedPacket, LinkSlice, TransportSlice, VlanSlice};

use super::{DecodeError, Decoder, FiveTuple, PacketSample, TcpSegment, Transport};

pub const IPPROTO_TCP: u8 = 6;
const IPPROTO_UDP: u8 = 17;

#[derive(Clone, Copy, Debug, Default)]
pub struct MirroredFrameDecoder;

impl Decoder for MirroredFrameDecoder {
    #[inline(always)]
    fn decode(&self, frame: &[u8], vlan_hint: Option<u16>) -> Result<PacketSample, DecodeError> {
        decode_frame(frame, vlan_hint)
    }

    #[inline(always)]
    fn decode_common(&self, frame: &[u8], vlan_hint: Option<u16>) -> Option<PacketSample> {
        decode_common_ipv4(frame, vlan_hint)
    }
}

/// Decode one Ethernet frame into a packet sample.
///
/// Nearly every mirrored sample is Ethernet [+ one 802.1Q tag] + option-less IPv4 +
/// TCP/UDP with complete headers; that case is read straight from its fixed offsets.
/// Everything else (IPv6, options, fragments, truncation, garbage, ...) goes through
/// etherparse's lax slicing, [`decode_frame_sliced`], which is the reference: both
/// give the same answer for every frame the fast path takes (property test and the
/// `frame_decoder` fuzz target check it).
#[inline(always)]
pub fn decode_frame(frame: &[u8], vlan_hint: Option<u16>) -> Result<PacketSample, DecodeError> {
    match decode_common_ipv4(frame, vlan_hint) {
        Some(s) => Ok(s),
        None => decode_frame_sliced(frame, vlan_hint),
    }
}

#[inline(always)]
fn be16<const N: usize>(b: &[u8; N], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

#[inline(always)]
fn be32<const N: usize>(b: &[u8; N], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The common case, or None when the frame is anything else. Only frames whose every
/// header is complete and unambiguous are taken, so no error can arise here. Headers are
/// read from fixed-size arrays: every offset is checked once, at compile time.
#[inline(always)]
pub fn decode_common_ipv4(frame: &[u8], vlan_hint: Option<u16>) -> Option<PacketSample> {
    const ETH_IPV4: u16 = 0x0800;
    const ETH_VLAN: u16 = 0x8100;
    // Shorter than Ethernet + IPv4 + TCP without options: the general path.
    let eth: &[u8; 18] = frame.get(..18)?.try_into().ok()?;
    let (ip, frame_vlan) = match be16(eth, 12) {
        ETH_IPV4 => (14, None),
        ETH_VLAN if be16(eth, 16) == ETH_IPV4 => (18, Some(be16(eth, 14) & 0x0fff)),
        _ => return None,
    };
    // IPv4 without options and the fixed TCP header (or UDP's and more).
    let h: &[u8; 40] = frame.get(ip..ip + 40)?.try_into().ok()?;
    // Version 4, 20-byte header (no options); neither more fragments nor an offset.
    if h[0] != 0x45 || be16(h, 6) & 0x3fff != 0 {
        return None;
    }
    let total_len = be16(h, 2) as usize;
    let proto = h[9];
    // IP payload present in the frame: the declared length, or what was captured.
    let ip_payload = total_len.min(frame.len() - ip).checked_sub(20)?;
    let declared = total_len - 20;
    let (sport, dport) = (be16(h, 20), be16(h, 22));
    let transport = match proto {
        IPPROTO_TCP => {
            let header_len = ((h[32] >> 4) as usize) * 4;
            if header_len < 20 || header_len > ip_payload {
                return None;
            }
            let flags = h[33];
            Transport::Tcp(TcpSegment {
                seq: be32(h, 24),
                ack: be32(h, 28),
                syn: flags & 0x02 != 0,
                fin: flags & 0x01 != 0,
                rst: flags & 0x04 != 0,
                ack_flag: flags & 0x10 != 0,
                payload_len: (declared - header_len) as u32,
            })
        }
        IPPROTO_UDP if ip_payload >= 8 => Transport::Udp {
            payload_len: (declared - 8) as u32,
        },
        _ => return None,
    };
    Some(PacketSample {
        vlan: vlan_hint.or(frame_vlan),
        src_mac: [eth[6], eth[7], eth[8], eth[9], eth[10], eth[11]],
        dst_mac: [eth[0], eth[1], eth[2], eth[3], eth[4], eth[5]],
        tuple: FiveTuple {
            src: IpAddr::V4(Ipv4Addr::from(be32(h, 12))),
            dst: IpAddr::V4(Ipv4Addr::from(be32(h, 16))),
            proto,
            sport,
            dport,
        },
        transport,
        ipv4_id: Some(be16(h, 4)),
    })
}

/// Decode any frame with etherparse's lax slicing (the general path and the reference
/// for the fast path). Out of line: it is the rare case.
#[inline(never)]
pub fn decode_frame_sliced(
    frame: &[u8],
    vlan_hint: Option<u16>,
) -> Result<PacketSample, DecodeError> {
    let sliced = LaxSlicedPacket::from_ethernet(frame)
        .map_err(|_| DecodeError::Malformed("truncated ethernet header"))?;
    let (src_mac, dst_mac) = match &sliced.link {
        Some(LinkSlice::Ethernet2(eth)) => (eth.source(), eth.destination()),
        _ => return Err(DecodeError::Malformed("no ethernet header")),
    };
    let frame_vlan = match &sliced.vlan {
        Some(VlanSlice::SingleVlan(v)) => Some(v.vlan_identifier().value()),
        Some(VlanSlice::DoubleVlan(v)) => Some(v.outer().vlan_identifier().value()),
        None => None,
    };
    let vlan = vlan_hint.or(frame_vlan);

    let (src, dst, proto, ip_payload_len, complete, ipv4_id) = match &sliced.net {
        Some(LaxNetSlice::Ipv4(ip)) => {
            let h = ip.header();
            let declared = (h.total_len() as usize)
                .checked_sub(h.slice().len() + ip.extensions().auth.map_or(0, |a| a.slice().len()))
                .ok_or(DecodeError::Malformed(
                    "ipv4 total length shorter than headers",
                ))?;
            let p = ip.payload();
            (
                IpAddr::V4(Ipv4Addr::from(h.source())),
                IpAddr::V4(Ipv4Addr::from(h.destination())),
                p.ip_number.0,
                declared,
                !p.fragmented,
                Some(h.identification()),
            )
        }
        Some(LaxNetSlice::Ipv6(ip)) => {
            let h = ip.header();
            let p = ip.payload();
            let declared = if h.payload_length() == 0 {
                // Jumbogram or zero length: only what was captured is known.
                p.payload.len()
            } else {
                (h.payload_length() as usize)
                    .checked_sub(ip.extensions().slice().len())
                    .ok_or(DecodeError::Malformed(
                        "ipv6 payload length shorter than extensions",
                    ))?
            };
            (
                IpAddr::V6(Ipv6Addr::from(h.source())),
                IpAddr::V6(Ipv6Addr::from(h.destination())),
                p.ip_number.0,
                declared,
                !p.fragmented,
                None,
            )
        }
        None => {
            return match sliced.stop_err {
                // An IP ether type whose header did not parse is garbage, not "non-IP".
                Some(_) if is_ip_ether_type(&sliced) => {
                    Err(DecodeError::Malformed("bad ip header"))
                }
                Some((_, etherparse::err::Layer::VlanHeader)) => {
                    Err(DecodeError::Malformed("truncated vlan header"))
                }
                _ => Err(DecodeError::NotIp),
            };
        }
    };

    let (sport, dport, transport) = match (&sliced.transport, complete) {
        (Some(TransportSlice::Tcp(tcp)), true) => {
            let header_len = tcp.header_slice().len();
            let payload_len = ip_payload_len
                .checked_sub(header_len)
                .ok_or(DecodeError::Malformed("tcp header longer than ip payload"))?;
            let seg = TcpSegment {
                seq: tcp.sequence_number(),
                ack: tcp.acknowledgment_number(),
                syn: tcp.syn(),
                fin: tcp.fin(),
                rst: tcp.rst(),
                ack_flag: tcp.ack(),
                payload_len: payload_len as u32,
            };
            (
                tcp.source_port(),
                tcp.destination_port(),
                Transport::Tcp(seg),
            )
        }
        (Some(TransportSlice::Udp(udp)), true) => {
            let payload_len = ip_payload_len
                .checked_sub(8)
                .ok_or(DecodeError::Malformed("udp header longer than ip payload"))?;
            (
                udp.source_port(),
                udp.destination_port(),
                Transport::Udp {
                    payload_len: payload_len as u32,
                },
            )
        }
        (None, true) if proto == IPPROTO_TCP || proto == IPPROTO_UDP => {
            // The IP header announces TCP/UDP but the transport header is cut or bad.
            return Err(DecodeError::Malformed("truncated transport header"));
        }
        _ => (
            0,
            0,
            Transport::Other {
                payload_len: ip_payload_len as u32,
            },
        ),
    };

    Ok(PacketSample {
        vlan,
        src_mac,
        dst_mac,
        tuple: FiveTuple {
            src,
            dst,
            proto,
            sport,
            dport,
        },
        transport,
        ipv4_id,
    })
}

fn is_ip_ether_type(sliced: &LaxSlicedPacket<'_>) -> bool {
    matches!(
        sliced.ether_payload().map(|p| p.ether_type),
        Some(etherparse::EtherType::IPV4) | Some(etherparse::EtherType::IPV6)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use etherparse::PacketBuilder;

    fn tcp_frame(vlan: Option<u16>, payload: usize, seq: u32) -> Vec<u8> {
        let b = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]);
        let b = b
            .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .tcp(1000, 5201, seq, 1000)
            .ack(77);
        let data = vec![0u8; payload];
        let mut out = Vec::new();
        b.write(&mut out, &data).unwrap();
        if let Some(v) = vlan {
            out.splice(12..12, [0x81, 0x00, (v >> 8) as u8, v as u8]);
        }
        out
    }

    #[test]
    fn decodes_tagged_tcp_with_declared_length_even_when_truncated() {
        let full = tcp_frame(Some(42), 1000, 5);
        let truncated = &full[..80];
        let s = decode_frame(truncated, None).unwrap();
        assert_eq!(s.vlan, Some(42));
        assert_eq!(s.dst_mac, [2, 0, 0, 0, 0, 2]);
        assert_eq!(s.tuple.sport, 1000);
        assert_eq!(s.tuple.dport, 5201);
        match s.transport {
            Transport::Tcp(t) => {
                assert_eq!(t.payload_len, 1000);
                assert_eq!(t.seq, 5);
                assert_eq!(t.ack, 77);
                assert_eq!(t.seq_end(), 1005);
            }
            other => panic!("expected tcp, got {other:?}"),
        }
    }

    #[test]
    fn vlan_hint_from_capture_wins_over_absent_tag() {
        let s = decode_frame(&tcp_frame(None, 10, 1), Some(7)).unwrap();
        assert_eq!(s.vlan, Some(7));
        let s = decode_frame(&tcp_frame(None, 10, 1), None).unwrap();
        assert_eq!(s.vlan, None);
    }

    #[test]
    fn ipv6_udp() {
        let b = PacketBuilder::ethernet2([1; 6], [2; 6])
            .ipv6([1; 16], [2; 16], 32)
            .udp(53, 4000);
        let mut out = Vec::new();
        b.write(&mut out, &[9u8; 33]).unwrap();
        let s = decode_frame(&out, None).unwrap();
        assert_eq!(s.tuple.proto, 17);
        assert_eq!(s.transport, Transport::Udp { payload_len: 33 });
        assert!(s.tuple.src.is_ipv6());
    }

    #[test]
    fn arp_is_not_ip_and_garbage_is_malformed() {
        let mut arp = vec![0xffu8; 12];
        arp.extend_from_slice(&[0x08, 0x06]);
        arp.extend_from_slice(&[0u8; 28]);
        assert_eq!(decode_frame(&arp, None), Err(DecodeError::NotIp));
        assert!(matches!(
            decode_frame(&[1, 2, 3], None),
            Err(DecodeError::Malformed(_))
        ));
        let mut bad_ip = tcp_frame(None, 10, 1);
        bad_ip[14] = 0x41; // version 4, IHL 1: impossible
        assert!(matches!(
            decode_frame(&bad_ip, None),
            Err(DecodeError::Malformed(_))
        ));
    }

    #[test]
    fn ipv4_total_length_shorter_than_header_is_rejected() {
        let mut f = tcp_frame(None, 10, 1);
        f[16] = 0;
        f[17] = 10;
        assert!(decode_frame(&f, None).is_err());
    }

    #[test]
    fn pure_ack_and_seq_end() {
        let s = decode_frame(&tcp_frame(None, 0, 9), None).unwrap();
        let Transport::Tcp(t) = s.transport else {
            panic!()
        };
        assert!(t.is_pure_ack());
        assert_eq!(t.seq_end(), 9);
    }

    #[test]
    fn common_samples_take_the_fast_path() {
        for vlan in [None, Some(42)] {
            let f = tcp_frame(vlan, 10, 7);
            let fast = decode_common_ipv4(&f, None).expect("fast path");
            assert_eq!(Ok(fast), decode_frame_sliced(&f, None));
        }
        let b = PacketBuilder::ethernet2([1; 6], [2; 6])
            .ipv4([1; 4], [2; 4], 32)
            .udp(53, 4000);
        let mut out = Vec::new();
        b.write(&mut out, &[9u8; 40]).unwrap();
        assert!(decode_common_ipv4(&out, None).is_some());
    }

    proptest::proptest! {
        /// The fast path and etherparse's lax slicing agree on every frame: well-formed,
        /// tagged or not, TCP with or without options, UDP, truncated anywhere, and
        /// with header bytes corrupted.
        #[test]
        fn fast_path_agrees_with_sliced_decoder(
            vlan in proptest::option::of(0u16..4096),
            hint in proptest::option::of(0u16..4096),
            kind in 0u8..3,
            payload in 0usize..64,
            cut in proptest::option::of(0usize..160),
            corrupt in proptest::collection::vec((0usize..80, proptest::prelude::any::<u8>()), 0..4),
        ) {
            let b = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
                .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64);
            let data = vec![0x5au8; payload];
            let mut f = Vec::new();
            match kind {
                0 => b.tcp(1000, 5201, 99, 1000).ack(5).write(&mut f, &data).unwrap(),
                1 => b
                    .tcp(1000, 5201, 99, 1000)
                    .options(&[etherparse::TcpOptionElement::Timestamp(1, 2)])
                    .unwrap()
                    .write(&mut f, &data)
                    .unwrap(),
                _ => b.udp(53, 4000).write(&mut f, &data).unwrap(),
            }
            if let Some(v) = vlan {
                f.splice(12..12, [0x81, 0x00, (v >> 8) as u8, v as u8]);
            }
            for (at, byte) in corrupt {
                let n = f.len();
                f[at % n] = byte;
            }
            if let Some(c) = cut {
                f.truncate(c);
            }
            proptest::prop_assert_eq!(decode_frame(&f, hint), decode_frame_sliced(&f, hint));
        }
    }
}
