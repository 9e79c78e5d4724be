//! How far a real-time run fell behind the wall clock: the distribution of
//! each batch's lag (wall time at the end of its last slot minus that slot's
//! due time; 0 when on time), so a test can bound the lag's tail instead of
//! counting batches that were late by any amount (with one-slot batches of
//! 6 us nearly every batch is a few us late on a machine that keeps up).

use serde::Serialize;

/// 1 us resolution below this many us, then 64 steps per power of two (1.6 %).
const LINEAR_US: u64 = 2048;
const SUB_BITS: u32 = 6;
const SUB: usize = 1 << SUB_BITS;
/// Powers of two above LINEAR_US up to 2^40 us (12 days).
const OCTAVES: usize = 40 - 11;
const BUCKETS: usize = LINEAR_US as usize + OCTAVES * SUB;

fn bucket(us: u64) -> usize {
    if us < LINEAR_US {
        return us as usize;
    }
    let e = 63 - us.leading_zeros(); // >= 11
    let sub = ((us >> (e - SUB_BITS)) as usize) & (SUB - 1);
    (LINEAR_US as usize + (e as usize - 11) * SUB + sub).min(BUCKETS - 1)
}

/// The largest lag (us) a bucket holds: quantiles are reported from above.
fn upper(b: usize) -> u64 {
    if b < LINEAR_US as usize {
        return b as u64;
    }
    let o = (b - LINEAR_US as usize) / SUB;
    let sub = ((b - LINEAR_US as usize) % SUB) as u64;
    let e = o as u32 + 11;
    ((SUB as u64 + sub + 1) << (e - SUB_BITS)) - 1
}

/// Lag per batch, in whole microseconds.
pub struct LagHistogram {
    counts: Vec<u64>,
    n: u64,
    behind: u64,
    max_us: f64,
    last_us: f64,
}

impl Default for LagHistogram {
    fn default() -> Self {
        Self {
            counts: vec![0; BUCKETS],
            n: 0,
            behind: 0,
            max_us: 0.0,
            last_us: 0.0,
        }
    }
}

impl LagHistogram {
    /// One batch that ended `lag_us` after its due time (0 if it waited for it).
    pub fn record(&mut self, lag_us: f64) {
        self.n += 1;
        if lag_us > 0.0 {
            self.behind += 1;
        }
        self.max_us = self.max_us.max(lag_us);
        self.last_us = lag_us;
        self.counts[bucket(lag_us.max(0.0) as u64)] += 1;
    }

    /// The lag that a fraction `q` of batches did not exceed (bucket upper bound, us).
    pub fn quantile(&self, q: f64) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return (upper(b) as f64).min(self.max_us.ceil());
            }
        }
        self.max_us
    }

    /// Fraction of batches later than `us` (whole buckets whose lowest value is above it).
    pub fn fraction_over(&self, us: f64) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let over: u64 = self
            .counts
            .iter()
            .enumerate()
            .filter(|&(b, _)| b > 0 && upper(b - 1) as f64 >= us)
            .map(|(_, &c)| c)
            .sum();
        over as f64 / self.n as f64
    }

    pub fn summary(&self) -> Lag {
        let frac = |x: u64| {
            if self.n == 0 {
                0.0
            } else {
                x as f64 / self.n as f64
            }
        };
        Lag {
            batches: self.n,
            max_lag_us: self.max_us,
            final_lag_us: self.last_us,
            p50_lag_us: self.quantile(0.5),
            p99_lag_us: self.quantile(0.99),
            p999_lag_us: self.quantile(0.999),
            over_1ms_fraction: self.fraction_over(1000.0),
            behind_fraction: frac(self.behind),
            cpu_share: 0.0,
        }
    }
}

/// A worker's lag behind the wall clock over a real-time run (`summary.realtime`).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Lag {
    /// Batches paced (with `batch_slots = 1`, slots).
    pub batches: u64,
    /// Largest amount the worker was behind the wall clock, microseconds.
    pub max_lag_us: f64,
    /// How far behind it was when it finished.
    pub final_lag_us: f64,
    /// Lag quantiles over batches (0 for a batch on time), microseconds,
    /// rounded up to the histogram's resolution (1 us below 2 ms, 1.6 % above).
    pub p50_lag_us: f64,
    pub p99_lag_us: f64,
    pub p999_lag_us: f64,
    /// Fraction of batches more than 1 ms late.
    pub over_1ms_fraction: f64,
    /// Fraction of batches late by any amount (even 1 us).
    pub behind_fraction: f64,
    /// CPU time the emulation threads got over their wall time (whole run,
    /// all threads): a real-time worker spins, so about 1 when it had its
    /// core; well below 1 when the machine gave it less.
    pub cpu_share: f64,
}

impl Lag {
    /// The worst of two workers' figures (each figure its own maximum).
    pub fn worst(self, o: Lag) -> Lag {
        Lag {
            batches: self.batches.max(o.batches),
            max_lag_us: self.max_lag_us.max(o.max_lag_us),
            final_lag_us: self.final_lag_us.max(o.final_lag_us),
            p50_lag_us: self.p50_lag_us.max(o.p50_lag_us),
            p99_lag_us: self.p99_lag_us.max(o.p99_lag_us),
            p999_lag_us: self.p999_lag_us.max(o.p999_lag_us),
            over_1ms_fraction: self.over_1ms_fraction.max(o.over_1ms_fraction),
            behind_fraction: self.behind_fraction.max(o.behind_fraction),
            cpu_share: self.cpu_share.min(o.cpu_share),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_their_values_in_order() {
        let mut prev = 0;
        for us in (0..5000).chain((5000..10_000_000).step_by(997)) {
            let b = bucket(us);
            assert!(b >= prev, "bucket order at {us}");
            prev = b;
            assert!(upper(b) >= us, "{us} above its bucket's top {}", upper(b));
            if b > 0 {
                assert!(upper(b - 1) < us, "{us} belongs below bucket {b}");
            }
            // Resolution: 1 us, then within 1/64 of the value.
            assert!((upper(b) - us) as f64 <= (us as f64 / 64.0).max(0.0) + 0.5);
        }
    }

    #[test]
    fn quantiles_and_fractions() {
        let mut h = LagHistogram::default();
        for _ in 0..980 {
            h.record(0.0);
        }
        for _ in 0..15 {
            h.record(300.4);
        }
        for _ in 0..5 {
            h.record(4200.0);
        }
        let s = h.summary();
        assert_eq!(s.batches, 1000);
        assert_eq!(s.p50_lag_us, 0.0);
        assert_eq!(s.p99_lag_us, 300.0);
        assert!(
            (4200.0..=4200.0 * 1.016).contains(&s.p999_lag_us),
            "{}",
            s.p999_lag_us
        );
        assert_eq!(s.max_lag_us, 4200.0);
        assert!((s.behind_fraction - 0.02).abs() < 1e-9);
        assert!((s.over_1ms_fraction - 0.005).abs() < 1e-9);
        assert!((h.fraction_over(300.0) - 0.005).abs() < 1e-9);
        assert!((h.fraction_over(299.0) - 0.02).abs() < 1e-9);
    }

    proptest::proptest! {
        /// Quantiles from the histogram are the exact ones rounded up by at most its resolution.
        #[test]
        fn quantiles_bound_the_exact_ones(
            lags in proptest::collection::vec(0u64..50_000_000, 1..400),
            q in 0.01f64..1.0,
        ) {
            let mut h = LagHistogram::default();
            for &l in &lags {
                h.record(l as f64);
            }
            let mut sorted = lags.clone();
            sorted.sort_unstable();
            let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
            let exact = sorted[rank - 1] as f64;
            let got = h.quantile(q);
            proptest::prop_assert!(got >= exact, "q {} got {} < exact {}", q, got, exact);
            proptest::prop_assert!(got <= exact + exact / 64.0 + 1.0, "q {} got {} >> exact {}", q, got, exact);
            let over = sorted.iter().filter(|&&l| l as f64 > 1000.0).count() as f64 / sorted.len() as f64;
            proptest::prop_assert!((h.fraction_over(1000.0) - over).abs() < 1e-9);
        }
    }

    #[test]
    fn empty_histogram_reports_zero() {
        let s = LagHistogram::default().summary();
        assert_eq!((s.batches, s.p99_lag_us, s.behind_fraction), (0, 0.0, 0.0));
    }
}
