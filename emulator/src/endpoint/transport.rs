//! Window-based transport per flow, in packets: slow start, AIMD, fast
//! retransmit (go-back-N), retransmission timeouts, DCTCP's reaction to ECN
//! echoes and pFabric's minimal rate control.

use crate::config::{TransportConfig, TransportKind};
use crate::packet::Slot;

#[derive(Clone, Debug)]
pub struct FlowSender {
    pub id: u32,
    pub src: u16,
    pub dst: u16,
    pub size: u32,
    pub class: u32,
    pub start: Slot,
    pub finish: Option<Slot>,
    /// Next sequence to send.
    pub next_seq: u32,
    /// Cumulative ACK: packets [0, acked) are delivered.
    pub acked: u32,
    /// Highest sequence ever sent + 1 (to tell retransmissions apart).
    pub high_seq: u32,
    pub cwnd: f64,
    pub ssthresh: f64,
    dupacks: u32,
    last_progress: Slot,
    consecutive_timeouts: u32,
    /// DCTCP: EWMA of the marked fraction and the current observation window.
    pub alpha: f64,
    window_end: u32,
    window_acked: u32,
    window_marked: u32,
    /// No further window cut until this sequence is acknowledged.
    cut_until: u32,
    pub retransmits: u32,
    pub timeouts: u32,
}

/// What the sender learned from one ACK.
#[derive(Debug, PartialEq, Eq)]
pub enum AckOutcome {
    Progress,
    Duplicate,
    Completed,
    Stale,
}

impl FlowSender {
    pub fn new(
        id: u32,
        src: u16,
        dst: u16,
        size: u32,
        class: u32,
        start: Slot,
        cfg: &TransportConfig,
    ) -> Self {
        FlowSender {
            id,
            src,
            dst,
            size,
            class,
            start,
            finish: None,
            next_seq: 0,
            acked: 0,
            high_seq: 0,
            cwnd: cfg.init_cwnd as f64,
            ssthresh: cfg.max_cwnd as f64,
            dupacks: 0,
            last_progress: start,
            consecutive_timeouts: 0,
            alpha: 0.0,
            window_end: 0,
            window_acked: 0,
            window_marked: 0,
            cut_until: 0,
            retransmits: 0,
            timeouts: 0,
        }
    }

    #[inline]
    pub fn can_send(&self) -> bool {
        self.finish.is_none()
            && self.next_seq < self.size
            && ((self.next_seq - self.acked) as f64) < self.cwnd.floor().max(1.0)
    }

    /// Remaining packets (pFabric priority).
    #[inline]
    pub fn remaining(&self) -> u32 {
        self.size - self.acked
    }

    /// Take the next sequence number to put on the wire.
    #[inline]
    pub fn take_seq(&mut self, now: Slot) -> u32 {
        let s = self.next_seq;
        if self.next_seq == self.acked {
            // Nothing was outstanding: the RTO clock starts now.
            self.last_progress = now;
        }
        self.next_seq += 1;
        if s < self.high_seq {
            self.retransmits += 1;
        } else {
            self.high_seq = s + 1;
        }
        s
    }

    pub fn on_ack(&mut self, cum: u32, ece: bool, now: Slot, cfg: &TransportConfig) -> AckOutcome {
        if self.finish.is_some() || cum < self.acked {
            return AckOutcome::Stale;
        }
        if cum == self.acked {
            if self.next_seq > self.acked {
                self.dupacks += 1;
                if self.dupacks == 3 && cfg.kind != TransportKind::Pfabric {
                    // Fast retransmit; the receiver keeps no out-of-order data.
                    self.ssthresh = (self.cwnd / 2.0).max(2.0);
                    self.cwnd = self.ssthresh;
                    self.next_seq = self.acked;
                    self.cut_until = self.high_seq;
                }
            }
            return AckOutcome::Duplicate;
        }
        let newly = cum - self.acked;
        self.acked = cum;
        self.next_seq = self.next_seq.max(cum);
        self.dupacks = 0;
        self.consecutive_timeouts = 0;
        self.last_progress = now;
        if self.acked >= self.size {
            self.finish = Some(now);
            return AckOutcome::Completed;
        }
        match cfg.kind {
            TransportKind::Pfabric => {
                // Minimal rate control: recover towards the initial window after probing.
                self.cwnd = (self.cwnd + newly as f64).min(cfg.init_cwnd as f64);
            }
            TransportKind::Dctcp => {
                self.window_acked += newly;
                if ece {
                    self.window_marked += newly;
                }
                if self.acked >= self.window_end {
                    let f = self.window_marked as f64 / self.window_acked.max(1) as f64;
                    self.alpha = (1.0 - cfg.dctcp_g) * self.alpha + cfg.dctcp_g * f;
                    self.window_acked = 0;
                    self.window_marked = 0;
                    self.window_end = self.next_seq.max(self.acked + 1);
                }
                if ece && self.acked > self.cut_until {
                    self.cwnd = (self.cwnd * (1.0 - self.alpha / 2.0)).max(1.0);
                    self.ssthresh = self.cwnd;
                    self.cut_until = self.next_seq;
                } else {
                    self.grow(newly, cfg);
                }
            }
            TransportKind::Tcp => {
                if ece && cfg.ecn && self.acked > self.cut_until {
                    self.ssthresh = (self.cwnd / 2.0).max(2.0);
                    self.cwnd = self.ssthresh;
                    self.cut_until = self.next_seq;
                } else {
                    self.grow(newly, cfg);
                }
            }
        }
        AckOutcome::Progress
    }

    fn grow(&mut self, newly: u32, cfg: &TransportConfig) {
        if self.cwnd < self.ssthresh {
            self.cwnd += newly as f64;
        } else {
            self.cwnd += newly as f64 / self.cwnd;
        }
        self.cwnd = self.cwnd.min(cfg.max_cwnd as f64);
    }

    /// Fire the retransmission timer if it expired; returns true on timeout.
    pub fn check_timeout(&mut self, now: Slot, cfg: &TransportConfig) -> bool {
        if self.finish.is_some()
            || self.next_seq == self.acked
            || now < self.last_progress + cfg.rto_slots as u64
        {
            return false;
        }
        self.timeouts += 1;
        self.consecutive_timeouts += 1;
        self.next_seq = self.acked;
        self.dupacks = 0;
        self.last_progress = now;
        self.cut_until = self.high_seq;
        match cfg.kind {
            TransportKind::Pfabric => {
                if self.consecutive_timeouts >= cfg.pfabric_probe_after {
                    self.cwnd = 1.0;
                }
            }
            _ => {
                self.ssthresh = (self.cwnd / 2.0).max(2.0);
                self.cwnd = 1.0;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(kind: TransportKind) -> TransportConfig {
        TransportConfig {
            kind,
            ..TransportConfig::default()
        }
    }

    #[test]
    fn slow_start_doubles_then_loss_halves() {
        let c = cfg(TransportKind::Tcp);
        let mut f = FlowSender::new(1, 0, 1, 1000, 0, 0, &c);
        for _ in 0..10 {
            assert!(f.can_send());
            f.take_seq(0);
        }
        assert!(!f.can_send());
        assert_eq!(f.on_ack(10, false, 5, &c), AckOutcome::Progress);
        assert_eq!(f.cwnd, 20.0);
        for _ in 0..3 {
            assert_eq!(f.on_ack(10, false, 6, &c), AckOutcome::Duplicate);
        }
        // Dupacks only count with data outstanding.
        assert_eq!(f.cwnd, 20.0);
        f.take_seq(6);
        for _ in 0..3 {
            f.on_ack(10, false, 7, &c);
        }
        assert_eq!(f.cwnd, 10.0);
        assert_eq!(f.next_seq, 10);
    }

    #[test]
    fn dctcp_cut_is_proportional_to_marked_fraction() {
        let c = cfg(TransportKind::Dctcp);
        let mut f = FlowSender::new(1, 0, 1, 100_000, 0, 0, &c);
        f.cwnd = 100.0;
        f.ssthresh = 50.0;
        f.alpha = 1.0;
        for _ in 0..100 {
            f.take_seq(0);
        }
        f.on_ack(1, true, 1, &c);
        // alpha was 1 -> stays 1 with every packet marked: window halves.
        assert!((f.cwnd - 50.0).abs() < 1e-9, "{}", f.cwnd);
        // No second cut within the same window.
        f.on_ack(2, true, 2, &c);
        assert!(f.cwnd >= 50.0);
    }

    #[test]
    fn timeout_resets_window_and_pfabric_keeps_it() {
        let c = cfg(TransportKind::Tcp);
        let mut f = FlowSender::new(1, 0, 1, 100, 0, 0, &c);
        f.take_seq(0);
        assert!(!f.check_timeout(c.rto_slots as u64 - 1, &c));
        assert!(f.check_timeout(c.rto_slots as u64, &c));
        assert_eq!(f.cwnd, 1.0);
        assert_eq!(f.next_seq, 0);
        let p = TransportConfig {
            init_cwnd: 12,
            ..cfg(TransportKind::Pfabric)
        };
        let mut g = FlowSender::new(2, 0, 1, 100, 0, 0, &p);
        g.take_seq(0);
        assert!(g.check_timeout(p.rto_slots as u64, &p));
        assert_eq!(g.cwnd, 12.0);
    }

    #[test]
    fn completion_on_final_ack() {
        let c = cfg(TransportKind::Tcp);
        let mut f = FlowSender::new(1, 0, 1, 3, 0, 10, &c);
        for _ in 0..3 {
            f.take_seq(10);
        }
        assert_eq!(f.on_ack(3, false, 20, &c), AckOutcome::Completed);
        assert_eq!(f.finish, Some(20));
        assert!(!f.can_send());
        assert_eq!(f.on_ack(3, false, 21, &c), AckOutcome::Stale);
    }
}
