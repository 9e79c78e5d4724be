//! Rate of a flow without TCP sequence numbers, from the IPv4 identification field.
//!
//! A drop-tail mirror port does not sample all flows alike: a smooth (paced) flow finds
//! the mirror queue free more often than a bursty TCP flow, so scaling its sampled bytes
//! by the ratio TCP flows measured inflates it (a paced 4 Mb/s UDP flow beside TCP read
//! ~29 Mb/s on a real OVS mirror). Many senders number their packets: Linux gives a
//! connected socket's DF packets consecutive IDs. Then the packets sent between two
//! samples are the ID difference, whatever the mirror dropped, and the flow's rate is
//! that count x the mean size of its sampled packets over the time between them.
//!
//! Whether a sender numbers sequentially is judged from the samples: only after
//! [`SEQUENTIAL_AFTER`] consecutive forward steps of at most [`MAX_STEP`] is the estimate
//! used (random IDs pass that with probability 4^-16); any other step (a repeat, a step
//! back, a random jump) ends the run, and the flow falls back to sampled bytes, flagged
//! low-confidence, until a new run qualifies.

use super::estimator::{SampleOutcome, WindowParams};

/// Consecutive plausible steps before the IDs are trusted.
pub const SEQUENTIAL_AFTER: u32 = 16;
/// Largest ID step taken as packets sent: a quarter of the 16-bit space, so that the
/// step is unambiguous. (A flow must be sampled at least once per 16384 packets.)
pub const MAX_STEP: u16 = 1 << 14;

#[derive(Clone, Copy, Debug, Default)]
pub struct Ipv4IdRate {
    started: bool,
    last_id: u16,
    last_ns: u64,
    /// Consecutive plausible steps (saturating).
    run: u32,
    /// Mean payload size of the sampled packets.
    size_sum: u64,
    size_samples: u64,
    // Open window (within the current run).
    window_start_ns: u64,
    window_packets: u64,
    window_samples: u64,
    // Last closed window.
    rate: f64,
    has_rate: bool,
    rate_from_ns: u64,
    rate_to_ns: u64,
    rate_samples: u64,
    // Lifetime, over qualified runs only.
    counted_packets: u64,
    counted_ns: u64,
    counted_samples: u64,
    first_counted_ns: u64,
    last_counted_ns: u64,
    breaks: u64,
}

impl Ipv4IdRate {
    /// Feed a sample with IPv4 identification `id`, captured at `ts_ns`, carrying
    /// `payload_len` bytes.
    pub fn on_sample(
        &mut self,
        id: u16,
        ts_ns: u64,
        payload_len: u32,
        params: &WindowParams,
    ) -> SampleOutcome {
        self.size_sum += payload_len as u64;
        self.size_samples += 1;
        if !self.started {
            self.started = true;
            self.restart(id, ts_ns);
            return SampleOutcome::Accepted;
        }
        let step = id.wrapping_sub(self.last_id);
        if step == 0 || step > MAX_STEP || ts_ns < self.last_ns {
            if self.run > 0 {
                self.breaks += 1;
            }
            self.run = 0;
            // The estimate of the run that ended no longer describes the sender.
            self.has_rate = false;
            self.restart(id, ts_ns);
            return SampleOutcome::Rejected;
        }
        let elapsed_since_last = ts_ns - self.last_ns;
        self.last_id = id;
        self.last_ns = ts_ns;
        self.run = self.run.saturating_add(1);
        if self.run < SEQUENTIAL_AFTER {
            // Not yet trusted: the window starts at the sample that qualifies the run.
            self.window_start_ns = ts_ns;
            self.window_packets = 0;
            self.window_samples = 0;
            return SampleOutcome::Accepted;
        }
        if self.run == SEQUENTIAL_AFTER {
            self.window_start_ns = ts_ns;
            self.window_packets = 0;
            self.window_samples = 0;
            if self.counted_samples == 0 {
                self.first_counted_ns = ts_ns;
            }
            return SampleOutcome::Accepted;
        }
        self.window_packets += step as u64;
        self.window_samples += 1;
        self.counted_packets += step as u64;
        self.counted_ns += elapsed_since_last;
        self.counted_samples += 1;
        self.last_counted_ns = ts_ns;
        let elapsed = ts_ns - self.window_start_ns;
        let current = if self.has_rate { self.rate } else { 0.0 };
        if elapsed == 0 || elapsed < params.window_ns(current) {
            return SampleOutcome::Accepted;
        }
        self.rate = self.window_packets as f64 * self.mean_size() * 1e9 / elapsed as f64;
        self.has_rate = true;
        self.rate_from_ns = self.window_start_ns;
        self.rate_to_ns = ts_ns;
        self.rate_samples = self.window_samples + 1;
        self.window_start_ns = ts_ns;
        self.window_packets = 0;
        self.window_samples = 0;
        SampleOutcome::RateUpdated
    }

    fn restart(&mut self, id: u16, ts_ns: u64) {
        self.last_id = id;
        self.last_ns = ts_ns;
        self.window_start_ns = ts_ns;
        self.window_packets = 0;
        self.window_samples = 0;
    }

    fn mean_size(&self) -> f64 {
        if self.size_samples == 0 {
            0.0
        } else {
            self.size_sum as f64 / self.size_samples as f64
        }
    }

    /// The sender numbers its packets sequentially, as far as the samples show.
    pub fn sequential(&self) -> bool {
        self.run >= SEQUENTIAL_AFTER
    }

    /// Latest windowed estimate (bytes per second) of the current sequential run.
    pub fn rate(&self) -> Option<f64> {
        (self.sequential() && self.has_rate).then_some(self.rate)
    }
    pub fn rate_samples(&self) -> u64 {
        self.rate_samples
    }
    pub fn rate_from_ns(&self) -> u64 {
        self.rate_from_ns
    }
    pub fn rate_to_ns(&self) -> u64 {
        self.rate_to_ns
    }
    /// Samples counted by sequential runs.
    pub fn counted_samples(&self) -> u64 {
        self.counted_samples
    }
    pub fn first_counted_ns(&self) -> u64 {
        self.first_counted_ns
    }
    pub fn last_counted_ns(&self) -> u64 {
        self.last_counted_ns
    }
    /// Times a sequential run ended.
    pub fn breaks(&self) -> u64 {
        self.breaks
    }
    /// Mean rate over the time covered by sequential runs, bytes per second.
    pub fn lifetime_rate(&self) -> Option<f64> {
        (self.counted_ns > 0)
            .then(|| self.counted_packets as f64 * self.mean_size() * 1e9 / self.counted_ns as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn params() -> WindowParams {
        WindowParams {
            min_window_ns: 1_000_000,
            max_window_ns: 100_000_000,
            window_bytes: 10_000,
            unusable_after_rejects: 4,
        }
    }

    /// 1000-byte packets every 100 µs (10 MB/s), IDs from `id0`, sampled where `keep`.
    fn paced(r: &mut Ipv4IdRate, id0: u16, keep: &[bool]) {
        let p = params();
        for (i, k) in keep.iter().enumerate() {
            if *k {
                r.on_sample(id0.wrapping_add(i as u16), i as u64 * 100_000, 1000, &p);
            }
        }
    }

    #[test]
    fn counts_the_packets_the_mirror_dropped() {
        let mut r = Ipv4IdRate::default();
        // One packet in 7 sampled, IDs wrapping through 0.
        let keep: Vec<bool> = (0..2000).map(|i| i % 7 == 0).collect();
        paced(&mut r, 65000, &keep);
        assert!(r.sequential());
        assert!((r.rate().unwrap() - 1e7).abs() < 1.0, "{:?}", r.rate());
        assert!((r.lifetime_rate().unwrap() - 1e7).abs() < 1.0);
    }

    #[test]
    fn not_trusted_before_a_run_of_sequential_steps() {
        let mut r = Ipv4IdRate::default();
        let keep: Vec<bool> = (0..SEQUENTIAL_AFTER as usize).map(|_| true).collect();
        paced(&mut r, 1, &keep);
        assert!(!r.sequential());
        assert_eq!(r.rate(), None);
        assert_eq!(r.lifetime_rate(), None);
    }

    #[test]
    fn constant_or_backward_ids_are_not_sequential() {
        let p = params();
        let mut zero = Ipv4IdRate::default();
        for i in 0..500u64 {
            zero.on_sample(0, i * 100_000, 1000, &p);
        }
        assert!(!zero.sequential());
        assert_eq!(zero.rate(), None);
        let mut back = Ipv4IdRate::default();
        for i in 0..500u64 {
            back.on_sample(60000 - i as u16, i * 100_000, 1000, &p);
        }
        assert_eq!(back.rate(), None);
    }

    #[test]
    fn a_break_drops_the_estimate_until_a_new_run() {
        let p = params();
        let mut r = Ipv4IdRate::default();
        let keep: Vec<bool> = (0..400).map(|i| i % 2 == 0).collect();
        paced(&mut r, 0, &keep);
        assert!(r.rate().is_some());
        // The sender restarts its numbering.
        r.on_sample(30000, 40_000_000, 1000, &p);
        assert_eq!(r.rate(), None);
        assert_eq!(r.breaks(), 1);
    }

    proptest! {
        /// Random IDs (a sender that does not number its packets) are almost never
        /// taken as sequential: at most a short-lived false run in 500 samples.
        #[test]
        fn random_ids_are_rejected(ids in proptest::collection::vec(any::<u16>(), 500)) {
            let p = params();
            let mut r = Ipv4IdRate::default();
            let mut trusted = 0;
            for (i, id) in ids.iter().enumerate() {
                r.on_sample(*id, i as u64 * 100_000, 1000, &p);
                trusted += r.sequential() as u32;
            }
            prop_assert!(trusted <= 2, "trusted {} times", trusted);
        }

        /// A paced sequential sender seen through any subset of its packets (gaps below
        /// MAX_STEP) is estimated at its rate once qualified.
        #[test]
        fn any_sample_of_a_paced_sender(
            id0: u16,
            size in 64u32..1500,
            gap_ns in 10_000u64..1_000_000,
            keep in proptest::collection::vec(any::<bool>(), 200..600),
        ) {
            let p = params();
            let mut r = Ipv4IdRate::default();
            for (i, k) in keep.iter().enumerate() {
                if *k || i % 5 == 0 {
                    r.on_sample(id0.wrapping_add(i as u16), i as u64 * gap_ns, size, &p);
                }
            }
            let expected = size as f64 * 1e9 / gap_ns as f64;
            let life = r.lifetime_rate().unwrap();
            prop_assert!((life - expected).abs() / expected < 1e-9);
            if let Some(rate) = r.rate() {
                prop_assert!((rate - expected).abs() / expected < 1e-9);
            }
        }
    }
}
