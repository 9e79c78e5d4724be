//! Detect stage: port load = sum of the flow estimates mapped to the port; congestion
//! with hysteresis. Each worker owns a partial sum per port (its own flows) and publishes
//! it to a shared board; whichever worker moves a port across a threshold emits the
//! notice, at once, and the state flip is a compare-and-swap so it is emitted only once.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Shared per-port load partials (one slot per worker) and congestion state.
#[derive(Debug)]
pub struct PortLoadBoard {
    workers: usize,
    partial_bps: Box<[AtomicU64]>,
    congested: Box<[AtomicBool]>,
}

/// A state change of a port.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Transition {
    Congested { load_bps: u64, capacity_bps: u64 },
    Cleared { load_bps: u64, capacity_bps: u64 },
}

/// Thresholds that the controller may change at run time (`PUT /v1/config`).
#[derive(Debug)]
pub struct DetectionSettings {
    threshold_pct: AtomicU64,
    hysteresis_pct: AtomicU64,
    report_interval_ms: AtomicU64,
}

impl DetectionSettings {
    pub fn new(threshold_pct: f64, hysteresis_pct: f64, report_interval_ms: f64) -> Self {
        DetectionSettings {
            threshold_pct: AtomicU64::new(threshold_pct.to_bits()),
            hysteresis_pct: AtomicU64::new(hysteresis_pct.to_bits()),
            report_interval_ms: AtomicU64::new(report_interval_ms.to_bits()),
        }
    }
    pub fn set(&self, threshold_pct: f64, hysteresis_pct: f64, report_interval_ms: f64) {
        self.threshold_pct
            .store(threshold_pct.to_bits(), Ordering::Relaxed);
        self.hysteresis_pct
            .store(hysteresis_pct.to_bits(), Ordering::Relaxed);
        self.report_interval_ms
            .store(report_interval_ms.to_bits(), Ordering::Relaxed);
    }
    pub fn threshold_pct(&self) -> f64 {
        f64::from_bits(self.threshold_pct.load(Ordering::Relaxed))
    }
    pub fn hysteresis_pct(&self) -> f64 {
        f64::from_bits(self.hysteresis_pct.load(Ordering::Relaxed))
    }
    pub fn report_interval_ns(&self) -> u64 {
        (f64::from_bits(self.report_interval_ms.load(Ordering::Relaxed)) * 1e6) as u64
    }
}

impl PortLoadBoard {
    pub fn new(ports: usize, workers: usize) -> Self {
        let workers = workers.max(1);
        PortLoadBoard {
            workers,
            partial_bps: (0..ports * workers).map(|_| AtomicU64::new(0)).collect(),
            congested: (0..ports).map(|_| AtomicBool::new(false)).collect(),
        }
    }

    pub fn ports(&self) -> usize {
        self.congested.len()
    }

    pub fn is_congested(&self, port: usize) -> bool {
        self.congested[port].load(Ordering::Acquire)
    }

    pub fn set_congested(&self, port: usize, v: bool) {
        self.congested[port].store(v, Ordering::Release);
    }

    /// Total load of a port over all workers.
    pub fn load_bps(&self, port: usize) -> u64 {
        let base = port * self.workers;
        self.partial_bps[base..base + self.workers]
            .iter()
            .map(|a| a.load(Ordering::Relaxed))
            .sum()
    }

    /// Publish worker `worker`'s partial load of `port` and judge the port.
    pub fn publish(
        &self,
        port: usize,
        worker: usize,
        partial_bps: u64,
        capacity_bps: Option<u64>,
        settings: &DetectionSettings,
    ) -> Option<Transition> {
        self.partial_bps[port * self.workers + worker % self.workers]
            .store(partial_bps, Ordering::Relaxed);
        let capacity_bps = capacity_bps?;
        let load_bps = self.load_bps(port);
        let threshold = settings.threshold_pct() / 100.0 * capacity_bps as f64;
        let clear_below =
            (settings.threshold_pct() - settings.hysteresis_pct()) / 100.0 * capacity_bps as f64;
        let flag = &self.congested[port];
        if (load_bps as f64) > threshold {
            if flag
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return Some(Transition::Congested {
                    load_bps,
                    capacity_bps,
                });
            }
        } else if (load_bps as f64) < clear_below
            && flag
                .compare_exchange(true, false, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        {
            return Some(Transition::Cleared {
                load_bps,
                capacity_bps,
            });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hysteresis_across_workers() {
        let s = DetectionSettings::new(80.0, 10.0, 5.0);
        let b = PortLoadBoard::new(2, 2);
        let cap = Some(1000);
        assert_eq!(b.publish(1, 0, 500, cap, &s), None);
        // The second worker's flows push the port over 80 %.
        assert_eq!(
            b.publish(1, 1, 301, cap, &s),
            Some(Transition::Congested {
                load_bps: 801,
                capacity_bps: 1000
            })
        );
        assert_eq!(b.publish(1, 1, 350, cap, &s), None); // already congested: no repeat
        assert_eq!(b.publish(1, 1, 250, cap, &s), None); // 750: inside the hysteresis band
        assert_eq!(
            b.publish(1, 0, 400, cap, &s),
            Some(Transition::Cleared {
                load_bps: 650,
                capacity_bps: 1000
            })
        );
        assert_eq!(b.publish(1, 0, 300, cap, &s), None);
        assert_eq!(b.load_bps(0), 0);
        // Unknown capacity: never judged.
        assert_eq!(b.publish(0, 0, u64::MAX / 4, None, &s), None);
    }

    #[test]
    fn settings_change_at_run_time() {
        let s = DetectionSettings::new(80.0, 5.0, 5.0);
        let b = PortLoadBoard::new(1, 1);
        assert_eq!(b.publish(0, 0, 700, Some(1000), &s), None);
        s.set(50.0, 5.0, 5.0);
        assert!(matches!(
            b.publish(0, 0, 700, Some(1000), &s),
            Some(Transition::Congested { .. })
        ));
        assert_eq!(s.report_interval_ns(), 5_000_000);
    }
}
