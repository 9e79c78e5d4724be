//! Rate estimators (Planck §4).
//!
//! Between two samples of a TCP flow the bytes sent are the sequence-number advance, so
//! rate = (seq2 - seq1 mod 2^32) / (t2 - t1) no matter how many packets the mirror dropped
//! in between. The estimate is taken over a window that is long enough to smooth TCP's
//! burstiness: at least `min_window`, and long enough for `window_bytes` at the current
//! rate (so slow flows get proportionally longer windows), at most `max_window`.

use super::seq::{seq_after, seq_distance};

/// Window parameters, shared by every flow of a worker.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WindowParams {
    pub min_window_ns: u64,
    pub max_window_ns: u64,
    /// Bytes that should pass during one window; with `min/max` this sets the window.
    pub window_bytes: u64,
    /// Consecutive rejected samples (retransmitted / out of order) after which a flow's
    /// sequence numbers are deemed unusable and it falls back to sampled bytes.
    pub unusable_after_rejects: u32,
}

impl Default for WindowParams {
    fn default() -> Self {
        // 256 KiB at 10 Gb/s is ~210 µs: the paper's window at line rate.
        WindowParams {
            min_window_ns: 200_000,
            max_window_ns: 200_000_000,
            window_bytes: 256 * 1024,
            unusable_after_rejects: 16,
        }
    }
}

impl WindowParams {
    /// Window length for a flow currently estimated at `bytes_per_sec` (0 = unknown).
    #[inline]
    pub fn window_ns(&self, bytes_per_sec: f64) -> u64 {
        if bytes_per_sec <= 0.0 {
            return self.min_window_ns;
        }
        let ns = (self.window_bytes as f64 / bytes_per_sec * 1e9) as u64;
        ns.clamp(self.min_window_ns, self.max_window_ns)
    }
}

/// What a sample did to an estimator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleOutcome {
    /// First sample, or accepted inside the current window.
    Accepted,
    /// Accepted and closed a window: the rate estimate changed.
    RateUpdated,
    /// Retransmitted, duplicate or out-of-order: ignored.
    Rejected,
}

/// Rate from a monotonically advancing 32-bit counter (TCP sequence or ack numbers).
#[derive(Clone, Copy, Debug, Default)]
pub struct SequenceRate {
    started: bool,
    window_seq: u32,
    window_start_ns: u64,
    high_seq: u32,
    high_ns: u64,
    first_ns: u64,
    /// Bytes accepted since the first sample (lifetime mean = this / lifetime).
    lifetime_bytes: u64,
    /// Sampled payload bytes inside the current window (sampling-ratio estimate).
    window_sampled_bytes: u64,
    rate: f64,
    has_rate: bool,
    /// Start and end (capture times of its first and last samples) of the window that
    /// produced `rate`.
    rate_from_ns: u64,
    rate_to_ns: u64,
    samples: u64,
    window_samples: u64,
    rate_samples: u64,
    consecutive_rejects: u32,
    rejected: u64,
}

/// A closed window's coverage, used to estimate the mirror's sampling ratio.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WindowCoverage {
    pub covered_bytes: u64,
    pub sampled_bytes: u64,
}

impl SequenceRate {
    /// Feed one sample whose counter value is `seq` (the sequence number after the
    /// segment, or the ack number) captured at `ts_ns`, carrying `sampled_bytes` payload.
    #[inline]
    pub fn on_sample(
        &mut self,
        seq: u32,
        ts_ns: u64,
        sampled_bytes: u32,
        params: &WindowParams,
    ) -> (SampleOutcome, Option<WindowCoverage>) {
        if !self.started {
            self.started = true;
            self.window_seq = seq;
            self.window_start_ns = ts_ns;
            self.high_seq = seq;
            self.high_ns = ts_ns;
            self.first_ns = ts_ns;
            self.samples = 1;
            return (SampleOutcome::Accepted, None);
        }
        if !seq_after(self.high_seq, seq) || ts_ns < self.high_ns {
            self.rejected += 1;
            self.consecutive_rejects = self.consecutive_rejects.saturating_add(1);
            return (SampleOutcome::Rejected, None);
        }
        self.consecutive_rejects = 0;
        self.lifetime_bytes += seq_distance(self.high_seq, seq) as u64;
        self.high_seq = seq;
        self.high_ns = ts_ns;
        self.samples += 1;
        self.window_samples += 1;
        self.window_sampled_bytes += sampled_bytes as u64;

        let elapsed = ts_ns - self.window_start_ns;
        if elapsed == 0 || elapsed < params.window_ns(if self.has_rate { self.rate } else { 0.0 }) {
            return (SampleOutcome::Accepted, None);
        }
        let covered = seq_distance(self.window_seq, seq) as u64;
        self.rate = covered as f64 * 1e9 / elapsed as f64;
        self.has_rate = true;
        self.rate_from_ns = self.window_start_ns;
        self.rate_to_ns = ts_ns;
        self.rate_samples = self.window_samples + 1;
        let coverage = WindowCoverage {
            covered_bytes: covered,
            sampled_bytes: self.window_sampled_bytes,
        };
        self.window_seq = seq;
        self.window_start_ns = ts_ns;
        self.window_samples = 0;
        self.window_sampled_bytes = 0;
        (SampleOutcome::RateUpdated, Some(coverage))
    }

    /// Latest windowed estimate in bytes per second.
    pub fn rate(&self) -> Option<f64> {
        self.has_rate.then_some(self.rate)
    }
    /// Samples that contributed to the latest window (both ends).
    pub fn rate_samples(&self) -> u64 {
        self.rate_samples
    }
    pub fn rate_from_ns(&self) -> u64 {
        self.rate_from_ns
    }
    pub fn rate_to_ns(&self) -> u64 {
        self.rate_to_ns
    }
    pub fn samples(&self) -> u64 {
        self.samples
    }
    pub fn first_ns(&self) -> u64 {
        self.first_ns
    }
    pub fn last_ns(&self) -> u64 {
        self.high_ns
    }
    pub fn rejected(&self) -> u64 {
        self.rejected
    }
    /// Too many consecutive rejects: the counter does not describe the flow's bytes.
    pub fn unusable(&self, params: &WindowParams) -> bool {
        self.consecutive_rejects >= params.unusable_after_rejects
    }
    /// Mean rate over the sampled lifetime, bytes per second.
    pub fn lifetime_rate(&self) -> Option<f64> {
        let span = self.high_ns.checked_sub(self.first_ns)?;
        (span > 0 && self.samples > 1).then(|| self.lifetime_bytes as f64 * 1e9 / span as f64)
    }
}

/// Fallback estimate: sampled bytes x the estimated sampling ratio of the mirror.
#[derive(Clone, Copy, Debug, Default)]
pub struct SampledBytesRate {
    started: bool,
    window_start_ns: u64,
    window_bytes: f64,
    window_samples: u64,
    first_ns: u64,
    last_ns: u64,
    lifetime_bytes: f64,
    rate: f64,
    has_rate: bool,
    rate_from_ns: u64,
    rate_to_ns: u64,
    rate_samples: u64,
    samples: u64,
}

impl SampledBytesRate {
    /// `scaled_bytes` = payload bytes of this sample x the current sampling ratio.
    #[inline]
    pub fn on_sample(
        &mut self,
        ts_ns: u64,
        scaled_bytes: f64,
        params: &WindowParams,
    ) -> SampleOutcome {
        self.samples += 1;
        if !self.started || ts_ns < self.last_ns {
            if !self.started {
                self.first_ns = ts_ns;
            }
            self.started = true;
            self.window_start_ns = ts_ns;
            self.last_ns = self.last_ns.max(ts_ns);
            self.window_bytes = 0.0;
            self.window_samples = 0;
            return SampleOutcome::Accepted;
        }
        self.last_ns = ts_ns;
        // A window's first sample only marks its start; the bytes after it are what
        // arrived during the window.
        self.window_bytes += scaled_bytes;
        self.lifetime_bytes += scaled_bytes;
        self.window_samples += 1;
        let elapsed = ts_ns - self.window_start_ns;
        if elapsed == 0 || elapsed < params.window_ns(if self.has_rate { self.rate } else { 0.0 }) {
            return SampleOutcome::Accepted;
        }
        self.rate = self.window_bytes * 1e9 / elapsed as f64;
        self.has_rate = true;
        self.rate_from_ns = self.window_start_ns;
        self.rate_to_ns = ts_ns;
        self.rate_samples = self.window_samples + 1;
        self.window_start_ns = ts_ns;
        self.window_bytes = 0.0;
        self.window_samples = 0;
        SampleOutcome::RateUpdated
    }

    pub fn rate(&self) -> Option<f64> {
        self.has_rate.then_some(self.rate)
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
    pub fn samples(&self) -> u64 {
        self.samples
    }
    pub fn first_ns(&self) -> u64 {
        self.first_ns
    }
    pub fn last_ns(&self) -> u64 {
        self.last_ns
    }
    pub fn lifetime_rate(&self) -> Option<f64> {
        let span = self.last_ns.checked_sub(self.first_ns)?;
        (span > 0 && self.samples > 1).then(|| self.lifetime_bytes * 1e9 / span as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn params() -> WindowParams {
        WindowParams {
            min_window_ns: 1_000_000,
            max_window_ns: 10_000_000,
            window_bytes: 10_000,
            unusable_after_rejects: 4,
        }
    }

    #[test]
    fn window_adapts_to_rate() {
        let p = params();
        assert_eq!(p.window_ns(0.0), 1_000_000);
        assert_eq!(p.window_ns(1e9), 1_000_000); // fast: min window
        assert_eq!(p.window_ns(2e6), 5_000_000); // 10 kB at 2 MB/s = 5 ms
        assert_eq!(p.window_ns(1.0), 10_000_000); // slow: capped
    }

    #[test]
    fn rate_across_sequence_wrap() {
        let p = params();
        let mut r = SequenceRate::default();
        let start = u32::MAX - 5_000;
        r.on_sample(start, 0, 1000, &p);
        // 10,000 bytes in 2 ms, crossing 2^32.
        let (o, cov) = r.on_sample(start.wrapping_add(10_000), 2_000_000, 1000, &p);
        assert_eq!(o, SampleOutcome::RateUpdated);
        assert_eq!(cov.unwrap().covered_bytes, 10_000);
        assert!((r.rate().unwrap() - 5e6).abs() < 1.0);
    }

    #[test]
    fn retransmissions_and_reordering_are_ignored() {
        let p = params();
        let mut r = SequenceRate::default();
        r.on_sample(1000, 0, 100, &p);
        r.on_sample(5000, 500_000, 100, &p);
        assert_eq!(
            r.on_sample(3000, 600_000, 100, &p).0,
            SampleOutcome::Rejected
        );
        assert_eq!(
            r.on_sample(5000, 700_000, 100, &p).0,
            SampleOutcome::Rejected
        );
        let (o, _) = r.on_sample(11_000, 2_000_000, 100, &p);
        assert_eq!(o, SampleOutcome::RateUpdated);
        // 10,000 bytes over 2 ms, the rejected samples changed nothing.
        assert!((r.rate().unwrap() - 5e6).abs() < 1.0);
        assert_eq!(r.rejected(), 2);
        assert!(!r.unusable(&p));
        for i in 0..4 {
            r.on_sample(100, 3_000_000 + i, 100, &p);
        }
        assert!(r.unusable(&p));
    }

    #[test]
    fn no_rate_inside_first_window() {
        let p = params();
        let mut r = SequenceRate::default();
        r.on_sample(0, 0, 1, &p);
        assert_eq!(r.on_sample(100, 10_000, 1, &p).0, SampleOutcome::Accepted);
        assert_eq!(r.rate(), None);
    }

    #[test]
    fn sampled_bytes_scaled() {
        let p = params();
        let mut r = SampledBytesRate::default();
        r.on_sample(0, 500.0, &p);
        r.on_sample(500_000, 500.0, &p);
        assert_eq!(
            r.on_sample(1_000_000, 500.0, &p),
            SampleOutcome::RateUpdated
        );
        assert!((r.rate().unwrap() - 1e6).abs() < 1e-6);
        assert!((r.lifetime_rate().unwrap() - 1e6).abs() < 1e-6);
    }

    proptest! {
        /// A flow sending at a constant rate, seen through any random subset of its
        /// packets (with sequence numbers wrapping anywhere), is estimated at that rate.
        #[test]
        fn constant_rate_estimated_exactly_from_any_sample(
            isn: u32,
            seg in 100u32..9000,
            gap_ns in 1_000u64..200_000,
            keep in proptest::collection::vec(any::<bool>(), 50..400),
        ) {
            let p = params();
            let mut r = SequenceRate::default();
            let mut fed = 0;
            for (i, k) in keep.iter().enumerate() {
                if *k || i == 0 || i + 1 == keep.len() {
                    let seq = isn.wrapping_add(seg.wrapping_mul(i as u32 + 1));
                    let (o, _) = r.on_sample(seq, gap_ns * i as u64, seg, &p);
                    prop_assert_ne!(o, SampleOutcome::Rejected);
                    fed += 1;
                }
            }
            let expected = seg as f64 * 1e9 / gap_ns as f64;
            let life = r.lifetime_rate().unwrap();
            prop_assert!((life - expected).abs() / expected < 1e-9, "life {} expected {}", life, expected);
            if let Some(rate) = r.rate() {
                prop_assert!((rate - expected).abs() / expected < 1e-9);
            }
            prop_assert_eq!(r.samples(), fed);
        }
    }
}
