//! PINT digests in frames from sink switches: Ethernet [+ 802.1Q] + IPv4 whose
//! Identification field carries the digest (low `budget_bits` bits) and whose TTL
//! gives the number of PINT hops (initial TTL - TTL). See docs/pint.md for why IPv4 ID.
//!
//! The packet id that drives PINT's hashes must be the same at every switch and the
//! sink, so it comes from fields no switch rewrites: the 5-tuple and the TCP sequence
//! number (UDP: the first 8 payload bytes), hashed with the configured seed.

use std::net::{IpAddr, Ipv4Addr};

use etherparse::{LaxNetSlice, LaxSlicedPacket, LinkSlice, TransportSlice};

use super::{DecodeError, FiveTuple};

/// How sink switches lay PINT out in the frame; the same at every switch by configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PintFrameLayout {
    /// Digest bits in the IPv4 ID field (1..=16).
    pub budget_bits: u32,
    /// TTL the first PINT switch sees (hosts' initial TTL).
    pub initial_ttl: u8,
    /// Seed of the packet-id hash.
    pub seed: u64,
}

/// One frame's PINT content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PintDigestSample {
    pub tuple: FiveTuple,
    /// PINT hops the packet crossed (1..=64).
    pub hops: u32,
    pub digest: u64,
    pub packet_id: u64,
    /// The whole IPv4 ID: bits above the path digest may carry other PINT queries
    /// (a latency code, see `inband::pint_flows`).
    pub ident: u16,
}

/// Extract the PINT digest of a frame. Non-IPv4, fragments, other transports,
/// truncated headers and impossible TTLs are errors (counted by the caller).
pub fn decode_pint_frame(frame: &[u8], layout: &PintFrameLayout) -> Result<PintDigestSample, DecodeError> {
    if !(1..=16).contains(&layout.budget_bits) {
        return Err(DecodeError::Malformed("pint budget not in 1..=16 bits"));
    }
    let sliced = LaxSlicedPacket::from_ethernet(frame)
        .map_err(|_| DecodeError::Malformed("truncated ethernet header"))?;
    if !matches!(sliced.link, Some(LinkSlice::Ethernet2(_))) {
        return Err(DecodeError::Malformed("no ethernet header"));
    }
    let ip = match &sliced.net {
        Some(LaxNetSlice::Ipv4(ip)) => ip,
        Some(LaxNetSlice::Ipv6(_)) => return Err(DecodeError::Malformed("pint digest expected in ipv4")),
        None => return Err(DecodeError::NotIp),
    };
    let h = ip.header();
    if ip.payload().fragmented {
        return Err(DecodeError::Malformed("fragment: ipv4 id is not a pint digest"));
    }
    let ttl = h.ttl();
    let hops = u32::from(layout.initial_ttl)
        .checked_sub(u32::from(ttl))
        .filter(|h| (1..=64).contains(h))
        .ok_or(DecodeError::Malformed("ttl gives no pint hop count in 1..=64"))?;
    let (src, dst) = (Ipv4Addr::from(h.source()), Ipv4Addr::from(h.destination()));
    let (proto, sport, dport, invariant) = match &sliced.transport {
        Some(TransportSlice::Tcp(t)) => (6u8, t.source_port(), t.destination_port(), u64::from(t.sequence_number())),
        Some(TransportSlice::Udp(u)) => {
            let p = u.payload();
            if p.len() < 8 {
                return Err(DecodeError::Malformed("udp payload too short for a packet id"));
            }
            let mut b = [0u8; 8];
            b.copy_from_slice(&p[..8]);
            (17u8, u.source_port(), u.destination_port(), u64::from_be_bytes(b))
        }
        _ => return Err(DecodeError::Malformed("pint needs a tcp or udp packet")),
    };
    let tuple = FiveTuple { src: IpAddr::V4(src), dst: IpAddr::V4(dst), proto, sport, dport };
    Ok(PintDigestSample {
        tuple,
        hops,
        digest: u64::from(h.identification()) & ((1u64 << layout.budget_bits) - 1),
        ident: h.identification(),
        packet_id: packet_id(layout.seed, src, dst, proto, sport, dport, invariant),
    })
}

/// The packet id both switches and the sink compute from a packet's invariant fields.
pub fn packet_id(seed: u64, src: Ipv4Addr, dst: Ipv4Addr, proto: u8, sport: u16, dport: u16, invariant: u64) -> u64 {
    pint::hash::ipv4_packet_id(seed, src.octets(), dst.octets(), proto, sport, dport, invariant)
}

#[cfg(test)]
mod tests {
    use super::*;
    use etherparse::PacketBuilder;
    use proptest::prelude::*;

    const LAYOUT: PintFrameLayout = PintFrameLayout { budget_bits: 8, initial_ttl: 64, seed: 5 };

    fn tcp_frame(ident: u16, ttl: u8, seq: u32, vlan: Option<u16>) -> Vec<u8> {
        let b = PacketBuilder::ethernet2([1; 6], [2; 6]);
        let mut ip = etherparse::Ipv4Header::new(20, ttl, etherparse::IpNumber::TCP, [10, 0, 0, 1], [10, 0, 0, 2]).unwrap();
        ip.identification = ident;
        ip.dont_fragment = true;
        let b = b.ip(etherparse::IpHeaders::Ipv4(ip, Default::default())).tcp(1000, 80, seq, 100);
        let mut out = Vec::new();
        b.write(&mut out, &[0u8; 20]).unwrap();
        if let Some(v) = vlan {
            // 802.1Q tag between the MAC addresses and the ether type.
            let tag = [0x81, 0x00, (v >> 8) as u8 & 0x0f, v as u8];
            out.splice(12..12, tag);
        }
        out
    }

    proptest! {
        #[test]
        fn well_formed_frames_give_their_fields(ident in any::<u16>(), ttl in 0u8..=255, seq in any::<u32>(), vlan in prop::option::of(1u16..4095)) {
            let frame = tcp_frame(ident, ttl, seq, vlan);
            let r = decode_pint_frame(&frame, &LAYOUT);
            if (1..=64).contains(&(64i32 - i32::from(ttl))) {
                let s = r.unwrap();
                prop_assert_eq!(s.hops, 64 - u32::from(ttl));
                prop_assert_eq!(s.digest, u64::from(ident & 0xff));
                prop_assert_eq!(s.packet_id, packet_id(5, Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2), 6, 1000, 80, u64::from(seq)));
            } else {
                prop_assert!(r.is_err());
            }
        }

        #[test]
        fn garbage_and_truncation_never_panic(data in prop::collection::vec(any::<u8>(), 0..120), cut in 0usize..80) {
            let _ = decode_pint_frame(&data, &LAYOUT);
            let frame = tcp_frame(7, 60, 1, None);
            // Ethernet 14 + IPv4 20 + TCP 20: any shorter cut loses a header field;
            // a truncated payload is fine (sink frames may be snapped).
            let r = decode_pint_frame(&frame[..cut.min(frame.len())], &LAYOUT);
            prop_assert_eq!(r.is_ok(), cut >= 54);
        }
    }

    #[test]
    fn packet_id_depends_on_sequence_not_on_digest() {
        let a = decode_pint_frame(&tcp_frame(1, 60, 9, None), &LAYOUT).unwrap();
        let b = decode_pint_frame(&tcp_frame(2, 60, 9, None), &LAYOUT).unwrap();
        let c = decode_pint_frame(&tcp_frame(1, 60, 10, None), &LAYOUT).unwrap();
        assert_eq!(a.packet_id, b.packet_id);
        assert_ne!(a.packet_id, c.packet_id);
        assert_eq!((a.digest, b.digest), (1, 2));
    }

    #[test]
    fn rejects_bad_budget() {
        let l = PintFrameLayout { budget_bits: 17, ..LAYOUT };
        assert!(decode_pint_frame(&tcp_frame(1, 60, 9, None), &l).is_err());
    }
}
