//! Seeded hashing shared by the switch encoders and the sink's inference.
//!
//! Everything PINT decides per packet (which layer, which hop writes, the digest
//! of a value) is a pure function of the configured seed, the packet id and the
//! hop number, so the decoder can replay every switch's decision without the
//! switches sending anything but the digest.

/// SplitMix64 finaliser: a bijective 64-bit mixer with full avalanche.
#[inline(always)]
pub fn mix64(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The packet id of an IPv4 packet, from fields no switch rewrites: addresses, protocol,
/// ports and an invariant of the transport (the TCP sequence number; for UDP the first 8
/// payload bytes), hashed with the configured seed. Switches (the emulator's lab fabric)
/// and the sink (the collector's frame decoder) both call this, so they agree by construction.
#[inline]
pub fn ipv4_packet_id(seed: u64, src: [u8; 4], dst: [u8; 4], proto: u8, sport: u16, dport: u16, invariant: u64) -> u64 {
    let a = (u64::from(u32::from_be_bytes(src)) << 32) | u64::from(u32::from_be_bytes(dst));
    let b = (u64::from(proto) << 32) | (u64::from(sport) << 16) | u64::from(dport);
    mix64(mix64(mix64(seed ^ a) ^ b) ^ invariant)
}

/// Odd constant (2^64 / golden ratio) used to separate hash "streams".
pub const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// Seed of one independent instantiation: distinct instances must not share hashes.
#[inline]
pub fn instance_seed(seed: u64, instance: u32) -> u64 {
    mix64(seed ^ mix64(u64::from(instance).wrapping_add(1).wrapping_mul(GOLDEN)))
}

/// Per-packet key of one instance; every per-packet decision derives from it.
#[inline(always)]
pub fn packet_key(instance_seed: u64, packet_id: u64) -> u64 {
    mix64(packet_id ^ instance_seed)
}

/// Per-value key; a switch computes its own once, the decoder once per universe entry.
#[inline(always)]
pub fn value_key(instance_seed: u64, value: u32) -> u64 {
    mix64(u64::from(value) ^ instance_seed.rotate_left(17) ^ 0x5851_f42d_4c95_7f2d)
}

/// q-bit digest of a value for a packet: multiply-shift (Dietzfelbinger) with a
/// per-packet odd multiplier, so two distinct value keys collide with probability
/// at most 2/2^q per packet. One multiply per candidate keeps the sink's candidate
/// filtering cheap.
#[inline(always)]
pub fn value_digest(packet_key: u64, value_key: u64, bits: u32) -> u64 {
    debug_assert!((1..=32).contains(&bits));
    (value_key.wrapping_mul(packet_key | 1)) >> (64 - bits)
}

/// Uniform 64-bit variate for (packet, hop, stream).
#[inline(always)]
pub fn hop_variate(packet_key: u64, hop: u32, stream: u64) -> u64 {
    mix64(packet_key ^ (u64::from(hop).wrapping_mul(GOLDEN)) ^ stream)
}

/// Threshold t such that `variate < t` happens with probability p (p in [0, 1]).
#[inline]
pub fn probability_threshold(p: f64) -> u64 {
    if p >= 1.0 {
        u64::MAX
    } else if p <= 0.0 {
        0
    } else {
        (p * 18_446_744_073_709_551_616.0) as u64
    }
}

/// True with probability 1/hop: the reservoir rule that leaves every hop of a
/// path equally likely to be the last writer.
#[inline(always)]
pub fn reservoir_writes(packet_key: u64, hop: u32, stream: u64) -> bool {
    hop <= 1 || hop_variate(packet_key, hop, stream) < u64::MAX / u64::from(hop)
}

/// The hop (1-based) whose write survives on a path of `hops` hops under the
/// reservoir rule: the last hop that chose to write. Scans from the sink back.
#[inline]
pub fn reservoir_writer(packet_key: u64, hops: u32, stream: u64) -> u32 {
    let mut hop = hops;
    while hop > 1 {
        if reservoir_writes(packet_key, hop, stream) {
            return hop;
        }
        hop -= 1;
    }
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservoir_writer_is_close_to_uniform() {
        let hops = 10u32;
        let mut counts = [0u32; 10];
        let n = 100_000u64;
        for p in 0..n {
            let k = packet_key(7, p);
            counts[(reservoir_writer(k, hops, 3) - 1) as usize] += 1;
        }
        for c in counts {
            let share = f64::from(c) / n as f64;
            assert!((share - 0.1).abs() < 0.01, "share {share} far from 1/10: {counts:?}");
        }
    }

    #[test]
    fn writer_agrees_with_per_hop_decisions() {
        for p in 0..2000u64 {
            let k = packet_key(11, p);
            let last = (1..=17).filter(|&h| reservoir_writes(k, h, 5)).max().unwrap();
            assert_eq!(last, reservoir_writer(k, 17, 5));
        }
    }

    #[test]
    fn digests_of_distinct_values_rarely_collide() {
        let bits = 8;
        let (a, b) = (value_key(1, 10), value_key(1, 11));
        let same = (0..100_000u64)
            .filter(|&p| {
                let k = packet_key(1, p);
                value_digest(k, a, bits) == value_digest(k, b, bits)
            })
            .count();
        // 1/256 expected: 390; allow a wide band, but far from "always" or "never".
        assert!((200..700).contains(&same), "{same} collisions");
    }

    #[test]
    fn thresholds() {
        assert_eq!(probability_threshold(0.0), 0);
        assert_eq!(probability_threshold(1.0), u64::MAX);
        assert_eq!(probability_threshold(0.5), 1u64 << 63);
    }
}
