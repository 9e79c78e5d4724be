//! What the emulator reads from a real host's frame (Ethernet II + IPv4) and
//! the one change it makes to it: CE in the IP header, checksum fixed. Pure
//! functions, no state: frames come from the network, so every malformed one
//! is refused with a reason (fuzzed in `emulator/fuzz`, property-tested below).

use crate::engine::STREAM_FLOW_BIT;

pub const ETH_HEADER: usize = 14;
const ETHERTYPE_IPV4: u16 = 0x0800;
const ECN_MASK: u8 = 0b11;
const ECN_CE: u8 = 0b11;

/// Why a frame is not carried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Shorter than Ethernet + a minimal IPv4 header.
    Short,
    /// Not IPv4 (ARP, IPv6, VLAN-tagged, ...): hosts get static neighbours.
    NotIpv4,
    /// IPv4 header inconsistent (version, header length, total length).
    BadHeader,
}

/// The fields of a frame the emulator uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameInfo {
    pub src: u32,
    pub dst: u32,
    /// The IP TOS byte (DSCP and ECN).
    pub tos: u8,
    /// Hash of the 5-tuple (addresses, protocol, ports when present): the
    /// abstract packet's flow id, for ECMP and per-flow schemes.
    pub flow: u32,
}

impl FrameInfo {
    /// ECN-capable transport (ECT(0), ECT(1) or already CE).
    pub fn ect(&self) -> bool {
        self.tos & ECN_MASK != 0
    }
    pub fn ce(&self) -> bool {
        self.tos & ECN_MASK == ECN_CE
    }
    /// Strict-priority class from the IP precedence (the DSCP's top three
    /// bits): precedence 7 is class 0, the highest; best effort (0) is 7.
    pub fn class(&self) -> u32 {
        7 - (self.tos >> 5) as u32
    }
}

#[inline]
fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

#[inline]
fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Inspect an Ethernet frame as it came off a veth.
pub fn inspect(frame: &[u8]) -> Result<FrameInfo, Refusal> {
    if frame.len() < ETH_HEADER + 20 {
        if frame.len() >= ETH_HEADER && be16(frame, 12) != ETHERTYPE_IPV4 {
            return Err(Refusal::NotIpv4);
        }
        return Err(Refusal::Short);
    }
    if be16(frame, 12) != ETHERTYPE_IPV4 {
        return Err(Refusal::NotIpv4);
    }
    let ip = &frame[ETH_HEADER..];
    let ihl = (ip[0] & 0x0f) as usize * 4;
    let total = be16(ip, 2) as usize;
    if ip[0] >> 4 != 4 || ihl < 20 || total < ihl || total > ip.len() {
        return Err(Refusal::BadHeader);
    }
    let proto = ip[9];
    let (src, dst) = (be32(ip, 12), be32(ip, 16));
    // Ports only in a first (or only) fragment that holds them.
    let frag_offset = be16(ip, 6) & 0x1fff;
    let ports = if (proto == 6 || proto == 17) && frag_offset == 0 && total >= ihl + 4 {
        be32(ip, ihl)
    } else {
        0
    };
    let mut h = (src as u64) << 32 | dst as u64;
    h = (h ^ ((proto as u64) << 32 | ports as u64)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^= h >> 29;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^= h >> 32;
    Ok(FrameInfo {
        src,
        dst,
        tos: ip[1],
        flow: h as u32 & !STREAM_FLOW_BIT,
    })
}

/// The IPv4 header checksum (RFC 791) of `hdr`, its checksum field taken as 0.
pub fn ipv4_checksum(hdr: &[u8]) -> u16 {
    let mut sum = 0u32;
    for (i, w) in hdr.chunks(2).enumerate() {
        if i == 5 {
            continue;
        }
        let v = if w.len() == 2 {
            u16::from_be_bytes([w[0], w[1]])
        } else {
            u16::from_be_bytes([w[0], 0])
        };
        sum += v as u32;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Set CE in an ECN-capable frame's IP header and fix its checksum. Returns
/// false (frame unchanged) for a frame that is not ECN-capable or not a
/// well-formed IPv4 frame. The TCP/UDP checksum does not cover the TOS byte.
pub fn set_ce(frame: &mut [u8]) -> bool {
    let Ok(info) = inspect(frame) else {
        return false;
    };
    if !info.ect() {
        return false;
    }
    let ip = &mut frame[ETH_HEADER..];
    let ihl = (ip[0] & 0x0f) as usize * 4;
    ip[1] |= ECN_CE;
    let c = ipv4_checksum(&ip[..ihl]);
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    true
}

/// Fill in the TCP or UDP checksum of an IPv4 frame whose host left it to an
/// offload (AF_PACKET's TP_STATUS_CSUMNOTREADY): the receiving host would
/// otherwise drop the frame as corrupt. Returns false for anything else
/// (fragments, other protocols, malformed frames), left unchanged.
pub fn fill_l4_checksum(frame: &mut [u8]) -> bool {
    if inspect(frame).is_err() {
        return false;
    }
    let ip = &mut frame[ETH_HEADER..];
    let ihl = (ip[0] & 0x0f) as usize * 4;
    let total = be16(ip, 2) as usize;
    let proto = ip[9];
    let at = match proto {
        6 => 16,
        17 => 6,
        _ => return false,
    };
    let frag = be16(ip, 6);
    if frag & 0x3fff != 0 || total < ihl + at + 2 {
        return false;
    }
    let seg_len = total - ihl;
    let mut sum = 0u64;
    for w in ip[12..20].chunks(2) {
        sum += u16::from_be_bytes([w[0], w[1]]) as u64;
    }
    sum += proto as u64 + seg_len as u64;
    ip[ihl + at] = 0;
    ip[ihl + at + 1] = 0;
    for w in ip[ihl..total].chunks(2) {
        sum += if w.len() == 2 {
            u16::from_be_bytes([w[0], w[1]])
        } else {
            u16::from_be_bytes([w[0], 0])
        } as u64;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    let mut c = !(sum as u16);
    if proto == 17 && c == 0 {
        c = 0xffff;
    }
    ip[ihl + at..ihl + at + 2].copy_from_slice(&c.to_be_bytes());
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use etherparse::PacketBuilder;
    use proptest::prelude::*;

    fn tcp_frame(tos: u8, payload: usize) -> Vec<u8> {
        let b = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
            .ipv4([10, 1, 0, 1], [10, 1, 0, 2], 64)
            .tcp(40000, 5201, 7, 1000);
        let mut v = Vec::new();
        b.write(&mut v, &vec![0xab; payload]).unwrap();
        v[ETH_HEADER + 1] = tos;
        let ihl = 20;
        let c = ipv4_checksum(&v[ETH_HEADER..ETH_HEADER + ihl]);
        v[ETH_HEADER + 10..ETH_HEADER + 12].copy_from_slice(&c.to_be_bytes());
        v
    }

    fn header_valid(frame: &[u8]) -> bool {
        let ip = etherparse::Ipv4HeaderSlice::from_slice(&frame[ETH_HEADER..]).unwrap();
        ip.header_checksum() == ip.to_header().calc_header_checksum()
    }

    #[test]
    fn reads_addresses_tos_and_class() {
        let f = tcp_frame(0xb8 | 0b10, 100);
        let i = inspect(&f).unwrap();
        assert_eq!(i.src, u32::from_be_bytes([10, 1, 0, 1]));
        assert_eq!(i.dst, u32::from_be_bytes([10, 1, 0, 2]));
        assert!(i.ect() && !i.ce());
        // EF (DSCP 46) is precedence 5: class 2; best effort is class 7.
        assert_eq!(i.class(), 2);
        assert_eq!(inspect(&tcp_frame(0, 10)).unwrap().class(), 7);
        assert_eq!(i.flow & STREAM_FLOW_BIT, 0);
    }

    #[test]
    fn flows_differ_by_port_and_agree_within_a_flow() {
        let a = tcp_frame(0, 10);
        let mut b = a.clone();
        b[ETH_HEADER + 20] ^= 1; // source port
        assert_eq!(
            inspect(&a).unwrap().flow,
            inspect(&tcp_frame(2, 900)).unwrap().flow
        );
        assert_ne!(inspect(&a).unwrap().flow, inspect(&b).unwrap().flow);
    }

    #[test]
    fn refuses_what_it_cannot_carry() {
        let mut arp = tcp_frame(0, 10);
        arp[12..14].copy_from_slice(&0x0806u16.to_be_bytes());
        assert_eq!(inspect(&arp), Err(Refusal::NotIpv4));
        assert_eq!(inspect(&arp[..20]), Err(Refusal::NotIpv4));
        assert_eq!(inspect(&tcp_frame(0, 10)[..30]), Err(Refusal::Short));
        let mut v6 = tcp_frame(0, 10);
        v6[ETH_HEADER] = 0x65;
        assert_eq!(inspect(&v6), Err(Refusal::BadHeader));
        let mut long = tcp_frame(0, 10);
        long[ETH_HEADER + 2..ETH_HEADER + 4].copy_from_slice(&2000u16.to_be_bytes());
        assert_eq!(inspect(&long), Err(Refusal::BadHeader));
        let mut ihl = tcp_frame(0, 10);
        ihl[ETH_HEADER] = 0x44;
        assert_eq!(inspect(&ihl), Err(Refusal::BadHeader));
    }

    #[test]
    fn ce_is_set_only_on_ect_with_a_valid_checksum() {
        for ect in [0b01, 0b10] {
            let mut f = tcp_frame(0x20 | ect, 500);
            let before = f.clone();
            assert!(set_ce(&mut f));
            assert_eq!(f[ETH_HEADER + 1], 0x23);
            assert!(header_valid(&f));
            // Only TOS and checksum changed.
            let diff: Vec<usize> = (0..f.len()).filter(|&i| f[i] != before[i]).collect();
            assert!(diff.iter().all(|&i| [15, 24, 25].contains(&i)), "{diff:?}");
        }
        let mut not_ect = tcp_frame(0x20, 500);
        let before = not_ect.clone();
        assert!(!set_ce(&mut not_ect));
        assert_eq!(not_ect, before);
    }

    #[test]
    fn fills_the_checksum_an_offload_left_out() {
        for payload in [0, 1, 17, 1400] {
            let good = tcp_frame(0, payload);
            let mut f = good.clone();
            f[ETH_HEADER + 36] ^= 0x5a; // garble the TCP checksum
            assert!(fill_l4_checksum(&mut f));
            assert_eq!(f, good, "payload {payload}");
        }
        let b = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
            .ipv4([10, 1, 0, 1], [10, 1, 0, 2], 64)
            .udp(5000, 5001);
        let mut good = Vec::new();
        b.write(&mut good, &[7; 33]).unwrap();
        let mut f = good.clone();
        f[ETH_HEADER + 26] = 0;
        f[ETH_HEADER + 27] = 0;
        assert!(fill_l4_checksum(&mut f));
        assert_eq!(f, good);
    }

    proptest! {
        #[test]
        fn inspect_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = inspect(&bytes);
            let mut b = bytes.clone();
            let _ = set_ce(&mut b);
            let _ = fill_l4_checksum(&mut b);
        }

        #[test]
        fn marking_keeps_the_header_valid(tos in any::<u8>(), payload in 0usize..1400) {
            let mut f = tcp_frame(tos, payload);
            let marked = set_ce(&mut f);
            prop_assert_eq!(marked, tos & 0b11 != 0);
            prop_assert!(header_valid(&f));
            prop_assert_eq!(inspect(&f).unwrap().ce(), tos & 0b11 != 0);
            // Checksum agrees with a full recomputation by etherparse.
            let ip = etherparse::Ipv4HeaderSlice::from_slice(&f[ETH_HEADER..]).unwrap();
            prop_assert_eq!(ip.header_checksum(), ipv4_checksum(&f[ETH_HEADER..ETH_HEADER + 20]));
        }
    }
}
