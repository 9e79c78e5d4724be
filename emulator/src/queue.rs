//! FIFO of abstract packets on a power-of-two ring: the port queues and NIC
//! queues of the hot path. Indices wrap with a mask (no division, no wrap
//! branch); storage grows by doubling only when a queue is fuller than ever
//! before, so a warmed-up queue never allocates. Callers bound the length
//! (port buffer, NIC capacity); the ring itself only grows to what they admit.

use crate::packet::Packet;

#[derive(Clone, Debug)]
pub struct PacketQueue {
    buf: Box<[Packet]>,
    /// Index of the oldest packet.
    head: u32,
    len: u32,
    /// buf.len() - 1; buf.len() is a power of two.
    mask: u32,
}

impl Default for PacketQueue {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl PacketQueue {
    /// Room for at least `n` packets before the first growth.
    pub fn with_capacity(n: usize) -> Self {
        let cap = n.max(4).next_power_of_two();
        PacketQueue {
            buf: vec![Packet::default(); cap].into_boxed_slice(),
            head: 0,
            len: 0,
            mask: (cap - 1) as u32,
        }
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    #[inline]
    pub fn push_back(&mut self, pkt: Packet) {
        if self.len > self.mask {
            self.grow();
        }
        let i = (self.head.wrapping_add(self.len) & self.mask) as usize;
        // SAFETY: i <= mask and buf.len() == mask + 1.
        unsafe { *self.buf.get_unchecked_mut(i) = pkt };
        self.len += 1;
    }
    #[inline]
    pub fn pop_front(&mut self) -> Option<Packet> {
        if self.len == 0 {
            return None;
        }
        // SAFETY: head <= mask and buf.len() == mask + 1.
        let pkt = unsafe { *self.buf.get_unchecked(self.head as usize) };
        self.head = (self.head + 1) & self.mask;
        self.len -= 1;
        Some(pkt)
    }
    #[inline]
    pub fn pop_back(&mut self) -> Option<Packet> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        let i = (self.head.wrapping_add(self.len) & self.mask) as usize;
        // SAFETY: i <= mask and buf.len() == mask + 1.
        Some(unsafe { *self.buf.get_unchecked(i) })
    }
    #[inline]
    pub fn front(&self) -> Option<&Packet> {
        (self.len > 0).then(|| &self.buf[self.head as usize])
    }
    /// Packets oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &Packet> + '_ {
        (0..self.len).map(move |k| &self.buf[(self.head.wrapping_add(k) & self.mask) as usize])
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let cap = self.buf.len() * 2;
        let mut buf = vec![Packet::default(); cap].into_boxed_slice();
        for (k, slot) in buf.iter_mut().take(self.len as usize).enumerate() {
            *slot = self.buf[(self.head as usize + k) & self.mask as usize];
        }
        self.buf = buf;
        self.head = 0;
        self.mask = (cap - 1) as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    fn pkt(seq: u32) -> Packet {
        Packet {
            seq,
            ..Packet::default()
        }
    }

    #[test]
    fn behaves_like_a_deque_across_wraps_and_growth() {
        let mut q = PacketQueue::with_capacity(4);
        let mut model = VecDeque::new();
        let mut seq = 0;
        // A pattern of pushes and pops (front and back) that wraps the ring many
        // times and grows it twice.
        for round in 0..200u32 {
            for _ in 0..(round % 7) {
                q.push_back(pkt(seq));
                model.push_back(pkt(seq));
                seq += 1;
            }
            for k in 0..(round % 5) {
                if k % 3 == 2 {
                    assert_eq!(q.pop_back(), model.pop_back());
                } else {
                    assert_eq!(q.pop_front(), model.pop_front());
                }
            }
            assert_eq!(q.len(), model.len());
            assert_eq!(q.front(), model.front());
            assert!(q.iter().eq(model.iter()));
        }
        assert!(q.buf.len() > 4, "the ring grew");
        while let Some(p) = model.pop_front() {
            assert_eq!(q.pop_front(), Some(p));
        }
        assert_eq!(q.pop_front(), None);
        assert_eq!(q.pop_back(), None);
        assert!(q.is_empty());
    }
}
