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
    /// Window length for a flow currently estimated at `bytes_per_sec` (0 = unknown),
    /// at most u32::MAX ns (4.29 s; the config allows no longer window).
    #[inline]
    pub fn window_ns(&self, bytes_per_sec: f64) -> u64 {
        if bytes_per_sec <= 0.0 {
            return self.min_window_ns.min(u32::MAX as u64);
        }
        let ns = (self.window_bytes as f64 / bytes_per_sec * 1e9) as u64;
        ns.clamp(self.min_window_ns, self.max_window_ns)
            .min(u32::MAX as u64)
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

/// Rate from a monotonically advancing 32-bit counter (TCP sequence or ack numbers):
/// a [`SeqWindow`] (what every sample touches) and its [`SeqTotals`] (touched when a
/// window closes, a sample is rejected, or the counter starts).
#[derive(Clone, Copy, Debug, Default)]
pub struct SequenceRate {
    pub window: SeqWindow,
    pub totals: SeqTotals,
}

/// The per-sample part of a sequence-rate estimator, integers only: the window's start
/// and the highest counter value seen, with the window's length fixed when it opens (so
/// no division runs per sample). Small enough to share a cache line with a flow's key.
#[derive(Clone, Copy, Debug, Default)]
pub struct SeqWindow {
    high_ns: u64,
    window_start_ns: u64,
    high_seq: u32,
    window_seq: u32,
    /// Length of the open window, at most u32::MAX ns ([`WindowParams::window_ns`]).
    window_len_ns: u32,
    window_samples: u32,
    /// Sampled payload bytes inside the window (sampling-ratio estimate), saturating.
    window_sampled_bytes: u32,
    consecutive_rejects: u8,
    phase: WindowPhase,
}

/// Where a [`SeqWindow`] stands; anything but `Running` takes the cold path of a sample.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum WindowPhase {
    #[default]
    NotStarted,
    Running,
    /// The flow fell silent: the next sample that advances the counter opens a fresh
    /// window, so no estimate spans the silence.
    Resuming,
}

/// What one sample did to a [`SeqWindow`]. Only `Accepted` needs nothing more; the
/// others are finished by [`SeqTotals::finish`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeqStep {
    Started,
    Accepted,
    Rejected,
    /// The window closed: `covered` counter bytes over `elapsed_ns`.
    Closed {
        covered: u32,
        elapsed_ns: u64,
        from_ns: u64,
        samples: u32,
        sampled_bytes: u32,
    },
}

/// The rarely touched part of a sequence-rate estimator: the last closed window's rate
/// and the lifetime totals.
#[derive(Clone, Copy, Debug, Default)]
pub struct SeqTotals {
    first_ns: u64,
    /// Counter bytes and samples (after the first) of the closed windows.
    closed_bytes: u64,
    closed_samples: u64,
    rate: f64,
    has_rate: bool,
    /// Start and end (capture times of its first and last samples) of the window that
    /// produced `rate`.
    rate_from_ns: u64,
    rate_to_ns: u64,
    rate_samples: u64,
    rejected: u64,
}

/// A closed window's coverage, used to estimate the mirror's sampling ratio.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WindowCoverage {
    pub covered_bytes: u64,
    pub sampled_bytes: u64,
}

impl SeqWindow {
    /// Feed one sample whose counter value is `seq` (the sequence number after the
    /// segment, or the ack number) captured at `ts_ns`, carrying `sampled_bytes` payload.
    #[inline(always)]
    pub fn on_sample(
        &mut self,
        seq: u32,
        ts_ns: u64,
        sampled_bytes: u32,
        params: &WindowParams,
    ) -> SeqStep {
        if self.phase != WindowPhase::Running {
            return self.start(seq, ts_ns, params);
        }
        if !seq_after(self.high_seq, seq) || ts_ns < self.high_ns {
            self.consecutive_rejects = self.consecutive_rejects.saturating_add(1);
            return SeqStep::Rejected;
        }
        self.consecutive_rejects = 0;
        self.high_seq = seq;
        self.high_ns = ts_ns;
        self.window_samples += 1;
        self.window_sampled_bytes = self.window_sampled_bytes.saturating_add(sampled_bytes);
        let elapsed = ts_ns - self.window_start_ns;
        // A window closes once it is `window_len` long or has covered `window_bytes` (after
        // at least `min_window`). By length alone, a flow measured slow (in slow start, or
        // squeezed) got a long next window and reported nothing new for it however fast it
        // went meanwhile: 256 KiB after 22 Mb/s is a 95 ms window, so TE saw a flow that had
        // reached 500 Mb/s 90 ms late.
        let covered = seq_distance(self.window_seq, seq);
        if elapsed == 0
            || elapsed < params.min_window_ns
            || (elapsed < self.window_len_ns as u64 && (covered as u64) < params.window_bytes)
        {
            return SeqStep::Accepted;
        }
        let step = SeqStep::Closed {
            covered,
            elapsed_ns: elapsed,
            from_ns: self.window_start_ns,
            samples: self.window_samples,
            sampled_bytes: self.window_sampled_bytes,
        };
        self.window_seq = seq;
        self.window_start_ns = ts_ns;
        self.window_samples = 0;
        self.window_sampled_bytes = 0;
        step
    }

    #[cold]
    fn start(&mut self, seq: u32, ts_ns: u64, params: &WindowParams) -> SeqStep {
        let resuming = self.phase == WindowPhase::Resuming;
        if resuming && (!seq_after(self.high_seq, seq) || ts_ns < self.high_ns) {
            self.consecutive_rejects = self.consecutive_rejects.saturating_add(1);
            return SeqStep::Rejected;
        }
        *self = SeqWindow {
            high_ns: ts_ns,
            window_start_ns: ts_ns,
            high_seq: seq,
            window_seq: seq,
            window_len_ns: params.window_ns(0.0) as u32,
            window_samples: 0,
            window_sampled_bytes: 0,
            consecutive_rejects: 0,
            phase: WindowPhase::Running,
        };
        // A resumed window is a new window of a flow already counted as started.
        if resuming {
            SeqStep::Accepted
        } else {
            SeqStep::Started
        }
    }

    /// The flow fell silent: drop the open window, so that the estimate after the silence
    /// does not average over it (the closed windows and lifetime totals stay).
    pub fn resume_after_silence(&mut self) {
        if self.phase == WindowPhase::Running {
            self.phase = WindowPhase::Resuming;
        }
    }

    /// Too many consecutive rejects: the counter does not describe the flow's bytes.
    /// (Counted up to 255: a larger `unusable_after_rejects` acts as 255.)
    #[inline(always)]
    pub fn unusable(&self, params: &WindowParams) -> bool {
        self.consecutive_rejects as u32 >= params.unusable_after_rejects.min(255)
    }

    pub fn started(&self) -> bool {
        self.phase != WindowPhase::NotStarted
    }

    /// Capture time of the highest sample (0 before the first).
    pub fn last_ns(&self) -> u64 {
        self.high_ns
    }
}

impl SeqTotals {
    /// Finish a step of `window` that was not a plain `Accepted`.
    #[inline]
    pub fn finish(
        &mut self,
        window: &mut SeqWindow,
        step: SeqStep,
        ts_ns: u64,
        params: &WindowParams,
    ) -> (SampleOutcome, Option<WindowCoverage>) {
        match step {
            SeqStep::Accepted => (SampleOutcome::Accepted, None),
            SeqStep::Started => {
                self.first_ns = ts_ns;
                (SampleOutcome::Accepted, None)
            }
            SeqStep::Rejected => {
                self.rejected += 1;
                (SampleOutcome::Rejected, None)
            }
            SeqStep::Closed {
                covered,
                elapsed_ns,
                from_ns,
                samples,
                sampled_bytes,
            } => {
                self.closed_bytes += covered as u64;
                self.closed_samples += samples as u64;
                self.rate = covered as f64 * 1e9 / elapsed_ns as f64;
                self.has_rate = true;
                self.rate_from_ns = from_ns;
                self.rate_to_ns = ts_ns;
                self.rate_samples = samples as u64 + 1;
                // The next window's length follows the rate just measured; computed here,
                // once per window, not per sample.
                window.window_len_ns = params.window_ns(self.rate) as u32;
                let coverage = WindowCoverage {
                    covered_bytes: covered as u64,
                    sampled_bytes: sampled_bytes as u64,
                };
                (SampleOutcome::RateUpdated, Some(coverage))
            }
        }
    }
}

/// Read-only view of a sequence-rate estimator split in two.
#[derive(Clone, Copy, Debug)]
pub struct SeqRef<'a> {
    pub window: &'a SeqWindow,
    pub totals: &'a SeqTotals,
}

impl SeqRef<'_> {
    /// Latest windowed estimate in bytes per second.
    pub fn rate(&self) -> Option<f64> {
        self.totals.has_rate.then_some(self.totals.rate)
    }
    /// Samples that contributed to the latest window (both ends).
    pub fn rate_samples(&self) -> u64 {
        self.totals.rate_samples
    }
    pub fn rate_from_ns(&self) -> u64 {
        self.totals.rate_from_ns
    }
    pub fn rate_to_ns(&self) -> u64 {
        self.totals.rate_to_ns
    }
    pub fn samples(&self) -> u64 {
        self.window.started() as u64
            + self.totals.closed_samples
            + self.window.window_samples as u64
    }
    pub fn first_ns(&self) -> u64 {
        self.totals.first_ns
    }
    pub fn last_ns(&self) -> u64 {
        self.window.high_ns
    }
    pub fn rejected(&self) -> u64 {
        self.totals.rejected
    }
    pub fn unusable(&self, params: &WindowParams) -> bool {
        self.window.unusable(params)
    }
    /// Mean rate over the sampled lifetime, bytes per second.
    pub fn lifetime_rate(&self) -> Option<f64> {
        let w = self.window;
        let span = w.high_ns.checked_sub(self.totals.first_ns)?;
        let bytes = self.totals.closed_bytes + seq_distance(w.window_seq, w.high_seq) as u64;
        (span > 0 && self.samples() > 1).then(|| bytes as f64 * 1e9 / span as f64)
    }
}

impl SequenceRate {
    /// Feed one sample (see [`SeqWindow::on_sample`]).
    #[inline]
    pub fn on_sample(
        &mut self,
        seq: u32,
        ts_ns: u64,
        sampled_bytes: u32,
        params: &WindowParams,
    ) -> (SampleOutcome, Option<WindowCoverage>) {
        let step = self.window.on_sample(seq, ts_ns, sampled_bytes, params);
        self.totals.finish(&mut self.window, step, ts_ns, params)
    }

    pub fn view(&self) -> SeqRef<'_> {
        SeqRef {
            window: &self.window,
            totals: &self.totals,
        }
    }
    pub fn rate(&self) -> Option<f64> {
        self.view().rate()
    }
    pub fn rate_samples(&self) -> u64 {
        self.view().rate_samples()
    }
    pub fn rate_from_ns(&self) -> u64 {
        self.view().rate_from_ns()
    }
    pub fn rate_to_ns(&self) -> u64 {
        self.view().rate_to_ns()
    }
    pub fn samples(&self) -> u64 {
        self.view().samples()
    }
    pub fn first_ns(&self) -> u64 {
        self.view().first_ns()
    }
    pub fn last_ns(&self) -> u64 {
        self.view().last_ns()
    }
    pub fn rejected(&self) -> u64 {
        self.view().rejected()
    }
    pub fn unusable(&self, params: &WindowParams) -> bool {
        self.window.unusable(params)
    }
    pub fn lifetime_rate(&self) -> Option<f64> {
        self.view().lifetime_rate()
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
    fn window_length_follows_the_last_rate() {
        let p = params();
        let mut r = SequenceRate::default();
        r.on_sample(0, 0, 100, &p);
        // 2 MB/s: the next window is 10 kB / 2 MB/s = 5 ms long.
        assert_eq!(
            r.on_sample(2_000, 1_000_000, 100, &p).0,
            SampleOutcome::RateUpdated
        );
        assert_eq!(
            r.on_sample(4_000, 2_000_000, 100, &p).0,
            SampleOutcome::Accepted
        );
        assert_eq!(
            r.on_sample(10_000, 5_999_999, 100, &p).0,
            SampleOutcome::Accepted
        );
        let (o, cov) = r.on_sample(12_000, 6_000_000, 100, &p);
        assert_eq!(o, SampleOutcome::RateUpdated);
        assert_eq!(
            cov,
            Some(WindowCoverage {
                covered_bytes: 10_000,
                sampled_bytes: 300
            })
        );
        assert_eq!(r.rate_samples(), 4);
        assert_eq!(r.samples(), 5);
        assert!((r.lifetime_rate().unwrap() - 2e6).abs() < 1e-6);
    }

    #[test]
    fn a_flow_that_speeds_up_is_reported_once_it_covered_a_window_of_bytes() {
        let p = params();
        let mut r = SequenceRate::default();
        r.on_sample(0, 0, 100, &p);
        // 1 MB/s: by its rate alone the next window would be 10 ms long.
        assert_eq!(r.on_sample(1_000, 1_000_000, 100, &p).0, SampleOutcome::RateUpdated);
        assert_eq!(p.window_ns(r.rate().unwrap()), 10_000_000);
        // Then 20 MB/s: 10 kB are covered in 0.5 ms, the window closes at the first sample
        // past the 1 ms minimum, not 10 ms later.
        assert_eq!(r.on_sample(11_000, 1_500_000, 100, &p).0, SampleOutcome::Accepted);
        let (o, cov) = r.on_sample(21_000, 2_000_000, 100, &p);
        assert_eq!(o, SampleOutcome::RateUpdated);
        assert_eq!(cov.unwrap().covered_bytes, 20_000);
        assert!((r.rate().unwrap() - 20e6).abs() < 1.0, "{:?}", r.rate());
    }

    #[test]
    fn a_window_after_silence_does_not_span_it() {
        let p = params();
        let mut r = SequenceRate::default();
        r.on_sample(0, 0, 100, &p);
        // 5 MB/s: 10,000 bytes in 2 ms.
        assert_eq!(
            r.on_sample(10_000, 2_000_000, 100, &p).0,
            SampleOutcome::RateUpdated
        );
        r.on_sample(12_000, 2_400_000, 100, &p);
        // Silent for 50 ms, then on at 5 MB/s. Without the restart the window would close
        // at once over the silence (about 0.2 MB/s).
        r.window.resume_after_silence();
        // A retransmission of old data is still rejected while resuming.
        assert_eq!(
            r.on_sample(11_000, 52_000_000, 100, &p).0,
            SampleOutcome::Rejected
        );
        assert_eq!(
            r.on_sample(14_000, 52_400_000, 100, &p).0,
            SampleOutcome::Accepted
        );
        assert_eq!(
            r.on_sample(19_000, 53_400_000, 100, &p).0,
            SampleOutcome::RateUpdated
        );
        assert!((r.rate().unwrap() - 5e6).abs() < 1.0, "{:?}", r.rate());
        assert!(r.window.started());
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
