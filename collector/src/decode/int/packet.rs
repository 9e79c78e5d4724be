//! Ethernet / IPv4 / IPv6 / UDP / TCP headers around and inside telemetry reports: just
//! the 5-tuple and where the transport payload starts. Hand-written because it runs
//! twice per report on the hot path and needs no more than fixed offsets; the inner
//! packet of a report may be truncated after its transport header, so IP lengths are
//! not required to cover the payload. The 5-tuple is read into a [`PackedTuple`] (words,
//! no `IpAddr`), what the INT state keys flows by.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::super::FiveTuple;
use super::instructions::{be16, be32};

pub const TCP: u8 = 6;
pub const UDP: u8 = 17;

const ETH_IPV4: u16 = 0x0800;
const ETH_IPV6: u16 = 0x86dd;
const ETH_VLAN: u16 = 0x8100;
const ETH_QINQ: u16 = 0x88a8;

/// A 5-tuple in five words: source and destination address as 128-bit numbers (an
/// IPv4 address in the low 32 bits), then protocol, ports and IP version (4 or 6) in
/// one word. Read from the header bytes in a few loads, and the INT state's flow key as
/// it is; [`PackedTuple::five_tuple`] gives the [`FiveTuple`] back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PackedTuple(pub [u64; 5]);

impl PackedTuple {
    #[inline(always)]
    fn pack(family: u64, src: u128, dst: u128, proto: u8, sport: u16, dport: u16) -> PackedTuple {
        PackedTuple([
            (src >> 64) as u64,
            src as u64,
            (dst >> 64) as u64,
            dst as u64,
            proto as u64 | (sport as u64) << 8 | (dport as u64) << 24 | family << 40,
        ])
    }

    /// The packed form of a 5-tuple (what decoding the same headers gives).
    pub fn of(t: &FiveTuple) -> PackedTuple {
        let (family, src, dst) = match (t.src, t.dst) {
            (IpAddr::V4(s), IpAddr::V4(d)) => (4u64, u32::from(s) as u128, u32::from(d) as u128),
            (s, d) => (6u64, v6(s), v6(d)),
        };
        Self::pack(family, src, dst, t.proto, t.sport, t.dport)
    }

    pub fn five_tuple(&self) -> FiveTuple {
        let w = &self.0;
        let src = (w[0] as u128) << 64 | w[1] as u128;
        let dst = (w[2] as u128) << 64 | w[3] as u128;
        let (src, dst) = if w[4] >> 40 == 4 {
            (IpAddr::V4(Ipv4Addr::from(src as u32)), IpAddr::V4(Ipv4Addr::from(dst as u32)))
        } else {
            (IpAddr::V6(Ipv6Addr::from(src)), IpAddr::V6(Ipv6Addr::from(dst)))
        };
        FiveTuple { src, dst, proto: w[4] as u8, sport: (w[4] >> 8) as u16, dport: (w[4] >> 24) as u16 }
    }

    pub fn proto(&self) -> u8 {
        self.0[4] as u8
    }

    pub fn dport(&self) -> u16 {
        (self.0[4] >> 24) as u16
    }
}

fn v6(a: IpAddr) -> u128 {
    match a {
        IpAddr::V4(a) => u128::from(a.to_ipv6_mapped()),
        IpAddr::V6(a) => u128::from(a),
    }
}

/// A transport header and what follows it.
#[derive(Clone, Copy, Debug)]
pub struct L4<'a> {
    pub tuple: PackedTuple,
    pub dscp: u8,
    pub payload: &'a [u8],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketError {
    Truncated,
    Unsupported,
}

/// Ethernet with up to two VLAN tags: the inner EtherType and what follows it.
#[inline(always)]
fn ethernet_payload(f: &[u8]) -> Result<(u16, &[u8]), PacketError> {
    if f.len() < 14 {
        return Err(PacketError::Truncated);
    }
    let mut off = 12;
    let mut ty = be16(&f[off..]);
    let mut tags = 0;
    while (ty == ETH_VLAN || ty == ETH_QINQ) && tags < 2 {
        off += 4;
        if f.len() < off + 2 {
            return Err(PacketError::Truncated);
        }
        ty = be16(&f[off..]);
        tags += 1;
    }
    Ok((ty, &f[off + 2..]))
}

/// The outer headers of a report frame: Ethernet (up to two VLAN tags), IPv4 or IPv6,
/// UDP; the destination port and the UDP payload. None for anything else, where
/// [`parse_ethernet`] would fail, find no IP or find another transport. Reads only
/// what it returns (no 5-tuple is built).
#[inline(always)]
pub fn outer_udp(f: &[u8]) -> Option<(u16, &[u8])> {
    let (ty, p) = ethernet_payload(f).ok()?;
    let t = match ty {
        ETH_IPV4 => {
            if p.len() < 20 || p[0] >> 4 != 4 || p[9] != UDP {
                return None;
            }
            let ihl = (p[0] & 0x0f) as usize * 4;
            // Later fragments carry no transport header.
            if ihl < 20 || p.len() < ihl || be16(&p[6..]) & 0x1fff != 0 {
                return None;
            }
            &p[ihl..]
        }
        ETH_IPV6 => {
            if p.len() < 40 || p[0] >> 4 != 6 || p[6] != UDP {
                return None;
            }
            &p[40..]
        }
        _ => return None,
    };
    if t.len() < 8 {
        return None;
    }
    Some((be16(&t[2..]), &t[8..]))
}

/// Ethernet (up to two VLAN tags) then IP. `Ok((None, rest))` for a non-IP frame.
#[inline(always)]
pub fn parse_ethernet(f: &[u8]) -> Result<(Option<L4<'_>>, &[u8]), PacketError> {
    let (ty, rest) = ethernet_payload(f)?;
    match ty {
        ETH_IPV4 => parse_ipv4(rest).map(|l4| (Some(l4), rest)),
        ETH_IPV6 => parse_ipv6(rest).map(|l4| (Some(l4), rest)),
        _ => Ok((None, rest)),
    }
}

#[inline(always)]
pub fn parse_ipv4(p: &[u8]) -> Result<L4<'_>, PacketError> {
    if p.len() < 20 {
        return Err(PacketError::Truncated);
    }
    if p[0] >> 4 != 4 {
        return Err(PacketError::Unsupported);
    }
    let ihl = (p[0] & 0x0f) as usize * 4;
    if ihl < 20 {
        return Err(PacketError::Unsupported);
    }
    if p.len() < ihl {
        return Err(PacketError::Truncated);
    }
    // Later fragments carry no transport header.
    if be16(&p[6..]) & 0x1fff != 0 {
        return Err(PacketError::Unsupported);
    }
    let src = be32(&p[12..]) as u128;
    let dst = be32(&p[16..]) as u128;
    parse_l4(4, p[9], src, dst, p[1] >> 2, &p[ihl..])
}

#[inline(always)]
pub fn parse_ipv6(p: &[u8]) -> Result<L4<'_>, PacketError> {
    if p.len() < 40 {
        return Err(PacketError::Truncated);
    }
    if p[0] >> 4 != 6 {
        return Err(PacketError::Unsupported);
    }
    let tc = (p[0] << 4) | (p[1] >> 4);
    let src = u128::from_be_bytes(*p[8..].first_chunk().expect("16 bytes"));
    let dst = u128::from_be_bytes(*p[24..].first_chunk().expect("16 bytes"));
    parse_l4(6, p[6], src, dst, tc >> 2, &p[40..])
}

#[inline(always)]
fn parse_l4(family: u64, proto: u8, src: u128, dst: u128, dscp: u8, t: &[u8]) -> Result<L4<'_>, PacketError> {
    let hdr = match proto {
        UDP => 8,
        TCP => {
            if t.len() < 20 {
                return Err(PacketError::Truncated);
            }
            let off = (t[12] >> 4) as usize * 4;
            if off < 20 {
                return Err(PacketError::Unsupported);
            }
            off
        }
        _ => return Err(PacketError::Unsupported),
    };
    if t.len() < hdr {
        return Err(PacketError::Truncated);
    }
    Ok(L4 {
        tuple: PackedTuple::pack(family, src, dst, proto, be16(t), be16(&t[2..])),
        dscp,
        payload: &t[hdr..],
    })
}

/// Inner packet of a report, by the report's inner-type code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inner {
    Ethernet,
    Ipv4,
    Ipv6,
}

/// Parses the monitored packet a report carries, down to its transport payload.
#[inline(always)]
pub fn parse_inner(kind: Inner, p: &[u8]) -> Result<L4<'_>, super::IntError> {
    use super::IntError;
    let r = match kind {
        Inner::Ethernet => parse_ethernet(p).and_then(|(l4, _)| l4.ok_or(PacketError::Unsupported)),
        Inner::Ipv4 => parse_ipv4(p),
        Inner::Ipv6 => parse_ipv6(p),
    };
    r.map_err(|e| match e {
        PacketError::Truncated => IntError::InnerTruncated,
        PacketError::Unsupported => IntError::InnerUnsupported,
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// What `outer_udp` must agree with: the full parse, then "is it UDP".
    fn by_full_parse(f: &[u8]) -> Option<(u16, &[u8])> {
        let l4 = parse_ethernet(f).ok()?.0?;
        (l4.tuple.proto() == UDP).then_some((l4.tuple.dport(), l4.payload))
    }

    /// Ethernet (0-3 VLAN tags), IPv4 or IPv6 (or another type), a transport, with
    /// fields drawn around the values that matter, cut anywhere.
    fn frames() -> impl Strategy<Value = Vec<u8>> {
        (
            0usize..4,
            prop::sample::select(vec![ETH_IPV4, ETH_IPV6, 0x0806]),
            prop::sample::select(vec![0x45u8, 0x46, 0x44, 0x4f, 0x65, 0x60]),
            prop::sample::select(vec![UDP, TCP, 1]),
            any::<bool>(),
            prop::collection::vec(any::<u8>(), 0..80),
            0usize..200,
        )
            .prop_map(|(tags, ty, b0, proto, fragment, body, cut)| {
                let mut f = vec![0u8; 12];
                for _ in 0..tags {
                    f.extend_from_slice(&ETH_VLAN.to_be_bytes());
                    f.extend_from_slice(&[0, 7]);
                }
                f.extend_from_slice(&ty.to_be_bytes());
                if ty == ETH_IPV6 {
                    let mut h = vec![b0 & 0xf0; 40];
                    h[6] = proto;
                    f.extend_from_slice(&h);
                } else {
                    let mut h = vec![0u8; ((b0 & 0x0f) as usize * 4).max(20)];
                    h[0] = b0;
                    h[7] = fragment as u8;
                    h[9] = proto;
                    f.extend_from_slice(&h);
                }
                f.extend_from_slice(&body);
                f.truncate(cut.min(f.len()));
                f
            })
    }

    proptest! {
        #[test]
        fn outer_udp_agrees_with_the_full_parse(f in frames()) {
            prop_assert_eq!(outer_udp(&f), by_full_parse(&f));
        }

        #[test]
        fn packed_tuples_give_the_five_tuple_back(
            v4 in any::<bool>(), src in any::<u128>(), dst in any::<u128>(), proto in any::<u8>(), sport in any::<u16>(), dport in any::<u16>(),
        ) {
            let (src, dst) = if v4 {
                (IpAddr::V4(Ipv4Addr::from(src as u32)), IpAddr::V4(Ipv4Addr::from(dst as u32)))
            } else {
                (IpAddr::V6(Ipv6Addr::from(src)), IpAddr::V6(Ipv6Addr::from(dst)))
            };
            let t = FiveTuple { src, dst, proto, sport, dport };
            let p = PackedTuple::of(&t);
            prop_assert_eq!(p.five_tuple(), t);
            prop_assert_eq!((p.proto(), p.dport()), (proto, dport));
        }

        /// Parsing the headers packs what the 5-tuple of the same headers packs.
        #[test]
        fn parsed_headers_pack_as_their_five_tuple(
            v4 in any::<bool>(), src in any::<[u8; 16]>(), dst in any::<[u8; 16]>(), tcp in any::<bool>(), sport in any::<u16>(), dport in any::<u16>(),
        ) {
            let proto = if tcp { TCP } else { UDP };
            let mut p = Vec::new();
            let (s, d) = if v4 {
                let mut h = vec![0u8; 20];
                h[0] = 0x45;
                h[9] = proto;
                h[12..16].copy_from_slice(&src[..4]);
                h[16..20].copy_from_slice(&dst[..4]);
                p.extend_from_slice(&h);
                (IpAddr::V4(Ipv4Addr::new(src[0], src[1], src[2], src[3])), IpAddr::V4(Ipv4Addr::new(dst[0], dst[1], dst[2], dst[3])))
            } else {
                let mut h = vec![0u8; 40];
                h[0] = 0x60;
                h[6] = proto;
                h[8..24].copy_from_slice(&src);
                h[24..40].copy_from_slice(&dst);
                p.extend_from_slice(&h);
                (IpAddr::V6(Ipv6Addr::from(src)), IpAddr::V6(Ipv6Addr::from(dst)))
            };
            let mut l4 = vec![0u8; 20];
            l4[..2].copy_from_slice(&sport.to_be_bytes());
            l4[2..4].copy_from_slice(&dport.to_be_bytes());
            l4[12] = 0x50;
            p.extend_from_slice(&l4);
            let got = if v4 { parse_ipv4(&p) } else { parse_ipv6(&p) }.expect("parses");
            prop_assert_eq!(got.tuple, PackedTuple::of(&FiveTuple { src: s, dst: d, proto, sport, dport }));
        }

        #[test]
        fn outer_udp_agrees_on_any_bytes(f in prop::collection::vec(any::<u8>(), 0..100)) {
            prop_assert_eq!(outer_udp(&f), by_full_parse(&f));
        }
    }
}
