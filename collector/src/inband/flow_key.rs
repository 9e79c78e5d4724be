//! The INT state's flow key: a 5-tuple packed into five words ([`PackedTuple`], as
//! decoding reads it) and hashed once, when the report's flow is looked up; the flow
//! table then uses that hash as it is.

use std::hash::BuildHasher;

use crate::decode::FiveTuple;
use crate::decode::int::packet::PackedTuple;

#[derive(Clone, Copy, Debug, Eq)]
pub(super) struct FlowKey {
    /// First, so that unequal keys usually differ on the first word compared.
    hash: u64,
    words: [u64; 5],
}

impl PartialEq for FlowKey {
    /// Word by word without branching (a derived comparison of the array calls `bcmp`).
    #[inline(always)]
    fn eq(&self, o: &Self) -> bool {
        self.hash == o.hash && self.words_eq(&o.words)
    }
}

impl FlowKey {
    #[inline(always)]
    pub(super) fn hash(&self) -> u64 {
        self.hash
    }

    #[inline(always)]
    pub(super) fn words(&self) -> &[u64; 5] {
        &self.words
    }

    /// The key's words equal `v` (without branching).
    #[inline(always)]
    pub(super) fn words_eq(&self, v: &[u64; 5]) -> bool {
        let w = &self.words;
        ((w[0] ^ v[0]) | (w[1] ^ v[1]) | (w[2] ^ v[2]) | (w[3] ^ v[3]) | (w[4] ^ v[4])) == 0
    }
}

/// Packs and hashes flows with seeds chosen per state (drawn from foldhash's random
/// state). The hash is foldhash's folded multiply over pairs of words: three
/// independent products and one to combine them, instead of a chain of five.
#[derive(Clone)]
pub(super) struct FlowKeys([u64; 7]);

impl Default for FlowKeys {
    fn default() -> Self {
        let r = foldhash::fast::RandomState::default();
        // Odd seeds, so that no product can be zeroed by a seed alone.
        FlowKeys(std::array::from_fn(|i| r.hash_one(i as u64) | 1))
    }
}

#[inline(always)]
fn folded_multiply(a: u64, b: u64) -> u64 {
    let p = a as u128 * b as u128;
    p as u64 ^ (p >> 64) as u64
}

impl FlowKeys {
    #[inline]
    pub(super) fn key(&self, f: &FiveTuple) -> FlowKey {
        self.key_packed(&PackedTuple::of(f))
    }

    /// The key of a flow decoding packed (the same as [`FlowKeys::key`] of its 5-tuple).
    #[inline(always)]
    pub(super) fn key_packed(&self, p: &PackedTuple) -> FlowKey {
        let words = p.0;
        let s = &self.0;
        let a = folded_multiply(words[0] ^ s[0], words[1] ^ s[1]);
        let b = folded_multiply(words[2] ^ s[2], words[3] ^ s[3]);
        let c = folded_multiply(words[4] ^ s[4], s[5]);
        FlowKey { hash: folded_multiply(a ^ c, b ^ s[6]), words }
    }
}

#[cfg(test)]
mod tests {
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

    use super::*;

    fn t(src: IpAddr, dst: IpAddr, sport: u16) -> FiveTuple {
        FiveTuple { src, dst, proto: 6, sport, dport: 80 }
    }

    #[test]
    fn distinct_tuples_give_distinct_keys_and_equal_ones_equal_keys() {
        let k = FlowKeys::default();
        let a4 = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
        let b4 = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));
        let a6 = IpAddr::V6(Ipv4Addr::new(10, 0, 0, 1).to_ipv6_mapped());
        let b6 = IpAddr::V6(Ipv4Addr::new(10, 0, 0, 2).to_ipv6_mapped());
        let keys = [
            k.key(&t(a4, b4, 1)),
            k.key(&t(b4, a4, 1)),
            k.key(&t(a4, b4, 2)),
            k.key(&t(a6, b6, 1)),
            k.key(&t(IpAddr::V6(Ipv6Addr::LOCALHOST), b6, 1)),
        ];
        for i in 0..keys.len() {
            for j in 0..keys.len() {
                assert_eq!(keys[i] == keys[j], i == j, "{i} {j}");
            }
        }
        assert_eq!(k.key(&t(a4, b4, 1)), keys[0]);
    }
}
