//! Real frames while their abstract packets cross the emulated network.
//!
//! Schemes drop packets inside their routers without telling anyone, so a
//! frame cannot wait for an explicit free. The store is a ring in order of
//! arrival instead: the n-th frame taken in goes to slot n mod capacity, and
//! its abstract packet carries n (32 bits) as its reference. A packet that
//! arrives finds its frame if the slot still holds frame n; a dropped
//! packet's slot is simply written over later. The capacity is made several
//! times what the network can hold (all port buffers, NIC queues and links),
//! so only a packet that waited while that many newer frames entered loses
//! its frame; it is then dropped and counted as expired.

pub struct FrameStore {
    data: Vec<u8>,
    len: Vec<u16>,
    /// The reference of the frame each slot holds.
    owner: Vec<u32>,
    stride: usize,
    mask: u32,
    next: u32,
}

impl FrameStore {
    /// Room for `frames` (rounded up to a power of two) of up to `max_frame` bytes.
    pub fn new(frames: usize, max_frame: usize) -> Self {
        let n = frames.max(2).next_power_of_two();
        let stride = max_frame.div_ceil(64) * 64;
        let mut data = vec![0u8; n * stride];
        // Zeroed memory comes as untouched pages, each faulted in by the first
        // frame copied into it: up to 100 MB of faults, the first pass of the
        // ring, in the slots of a real-time emulator. Fault them in now.
        for b in data.iter_mut().step_by(4096) {
            // SAFETY: `b` is a valid, exclusive reference; volatile so the
            // store of a zero into zeroed memory is not elided.
            unsafe { std::ptr::write_volatile(b, 0) };
        }
        FrameStore {
            data,
            len: vec![0; n],
            // No slot holds a frame yet: owner n + 1 is never a reference to slot n...
            owner: (0..n as u32).map(|i| i.wrapping_add(1)).collect(),
            stride,
            mask: n as u32 - 1,
            next: 0,
        }
    }

    pub fn capacity(&self) -> usize {
        self.len.len()
    }

    /// Keep a copy of `frame` (at most the store's frame size); returns its reference.
    pub fn put(&mut self, frame: &[u8]) -> u32 {
        let r = self.next;
        self.next = self.next.wrapping_add(1);
        let i = (r & self.mask) as usize;
        let n = frame.len().min(self.stride);
        self.data[i * self.stride..i * self.stride + n].copy_from_slice(&frame[..n]);
        self.len[i] = n as u16;
        self.owner[i] = r;
        r
    }

    /// The frame of reference `r`, unless it was written over.
    pub fn get(&mut self, r: u32) -> Option<&mut [u8]> {
        let i = (r & self.mask) as usize;
        if self.owner[i] != r {
            return None;
        }
        let start = i * self.stride;
        Some(&mut self.data[start..start + self.len[i] as usize])
    }

    /// Forget reference `r` (its packet was delivered): a second delivery of
    /// the same reference finds nothing.
    pub fn release(&mut self, r: u32) {
        let i = (r & self.mask) as usize;
        if self.owner[i] == r {
            self.owner[i] = r.wrapping_add(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_come_back_until_written_over() {
        let mut s = FrameStore::new(4, 100);
        assert_eq!(s.capacity(), 4);
        let a = s.put(&[1, 2, 3]);
        let b = s.put(&[4; 100]);
        assert_eq!(s.get(a).unwrap(), &[1, 2, 3]);
        assert_eq!(s.get(b).unwrap().len(), 100);
        // Empty slots match no reference.
        assert!(s.get(2).is_none() && s.get(3).is_none());
        for _ in 0..3 {
            s.put(&[9]);
        }
        // Five frames into four slots: the first is gone, the second is not.
        assert!(s.get(a).is_none());
        assert_eq!(s.get(b).unwrap()[0], 4);
        s.release(b);
        assert!(s.get(b).is_none());
    }

    #[test]
    fn references_survive_wrapping() {
        let mut s = FrameStore::new(2, 8);
        s.next = u32::MAX;
        let a = s.put(&[1]);
        let b = s.put(&[2]);
        assert_eq!(a, u32::MAX);
        assert_eq!(b, 0);
        assert_eq!(s.get(a).unwrap(), &[1]);
        assert_eq!(s.get(b).unwrap(), &[2]);
    }
}
