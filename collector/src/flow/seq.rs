//! TCP sequence-space arithmetic (RFC 793 / RFC 1982 serial numbers, modulo 2^32).

/// Bytes from `from` to `to` going forward in sequence space, modulo 2^32.
#[inline]
pub fn seq_distance(from: u32, to: u32) -> u32 {
    to.wrapping_sub(from)
}

/// True when `b` lies strictly after `a` in sequence space (less than 2^31 ahead).
#[inline]
pub fn seq_after(a: u32, b: u32) -> bool {
    (b.wrapping_sub(a) as i32) > 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn boundaries() {
        assert_eq!(seq_distance(u32::MAX, 0), 1);
        assert_eq!(seq_distance(u32::MAX - 9, 10), 20);
        assert!(seq_after(u32::MAX, 0));
        assert!(!seq_after(0, u32::MAX));
        assert!(!seq_after(5, 5));
        assert!(seq_after(0, (1 << 31) - 1));
        assert!(!seq_after(0, 1 << 31));
    }

    proptest! {
        #[test]
        fn distance_inverts_wrapping_add(start: u32, len: u32) {
            prop_assert_eq!(seq_distance(start, start.wrapping_add(len)), len);
        }

        #[test]
        fn after_iff_advance_below_half_space(start: u32, len in 1u32..(1 << 31)) {
            let end = start.wrapping_add(len);
            prop_assert!(seq_after(start, end));
            prop_assert!(!seq_after(end, start));
        }

        #[test]
        fn distances_compose_across_wrap(a: u32, x in 0u32..(1 << 30), y in 0u32..(1 << 30)) {
            let b = a.wrapping_add(x);
            let c = b.wrapping_add(y);
            prop_assert_eq!(seq_distance(a, c) as u64, seq_distance(a, b) as u64 + seq_distance(b, c) as u64);
        }
    }
}
