//! The receiving end of a transport flow: reassembly of out-of-order data
//! (with SACK), and which arrivals get an ACK (delayed ACKs).

use std::collections::BTreeSet;

use crate::config::TransportConfig;

/// Out-of-order packets held per flow, as a host's receive buffer would.
pub const REASSEMBLY_PACKETS: usize = 4096;

#[derive(Debug, Default)]
pub struct FlowReceiver {
    /// Next in-order sequence expected: the cumulative ACK.
    pub expected: u32,
    held: BTreeSet<u32>,
    /// In-order packets received since the last ACK.
    unacked: u32,
    last_ce: bool,
    /// One past the flow's last packet, once its FIN has arrived (0 before).
    end: u32,
}

/// What the receiver does with one data packet.
#[derive(Debug, PartialEq, Eq)]
pub struct DataOutcome {
    /// Packets newly delivered in order (0 for a hole or a duplicate).
    pub delivered: u32,
    /// ACK now (else a delayed-ACK timer should be armed).
    pub ack_now: bool,
    /// The SACK block to report: this packet, if it is held above the
    /// cumulative point (never one dropped for want of buffer).
    pub sack: Option<u32>,
}

impl FlowReceiver {
    pub fn on_data(&mut self, seq: u32, fin: bool, ce: bool, cfg: &TransportConfig) -> DataOutcome {
        let before = self.expected;
        if fin {
            self.end = seq + 1;
        }
        let mut out_of_order = false;
        let mut sack = None;
        if seq == self.expected {
            self.expected += 1;
            if cfg.sack {
                while self.held.remove(&self.expected) {
                    self.expected += 1;
                }
            }
        } else if seq > self.expected {
            out_of_order = true;
            if cfg.sack && (self.held.contains(&seq) || self.held.len() < REASSEMBLY_PACKETS) {
                self.held.insert(seq);
                sack = Some(seq);
            }
        } else {
            out_of_order = true;
        }
        let delivered = self.expected - before;
        // Filled a hole (delivered more than one) or out of order: ACK at
        // once (RFC 5681 4.2); DCTCP ACKs at once when CE changes (RFC 8257 3.2).
        let ce_changed = ce != self.last_ce;
        self.last_ce = ce;
        let immediate = !cfg.delayed_ack
            || out_of_order
            || delivered > 1
            || fin
            || ce_changed
            || !self.held.is_empty()
            || self.unacked >= 1;
        if immediate {
            self.unacked = 0;
        } else {
            self.unacked += delivered;
        }
        DataOutcome {
            delivered,
            ack_now: immediate,
            sack,
        }
    }

    /// Every packet of the flow, up to its FIN, has arrived.
    pub fn complete(&self) -> bool {
        self.end > 0 && self.expected >= self.end
    }

    /// The delayed-ACK timer fired: an ACK is due if data is still unacknowledged.
    pub fn timer_due(&mut self) -> bool {
        let due = self.unacked > 0;
        self.unacked = 0;
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_out_of_order_data_with_sack_and_not_without() {
        let c = TransportConfig::default();
        let mut r = FlowReceiver::default();
        assert_eq!(r.on_data(0, false, false, &c).delivered, 1);
        assert_eq!(r.on_data(2, false, false, &c).delivered, 0);
        assert_eq!(r.on_data(3, false, false, &c).delivered, 0);
        assert_eq!(r.on_data(1, false, false, &c).delivered, 3);
        assert_eq!(r.expected, 4);
        let g = TransportConfig {
            sack: false,
            ..c
        };
        let mut r = FlowReceiver::default();
        r.on_data(0, false, false, &g);
        r.on_data(2, false, false, &g);
        assert_eq!(r.on_data(1, false, false, &g).delivered, 1);
        assert_eq!(r.expected, 2);
    }

    #[test]
    fn a_packet_dropped_for_want_of_buffer_is_not_sacked() {
        let c = TransportConfig::default();
        let mut r = FlowReceiver::default();
        for s in 1..=REASSEMBLY_PACKETS as u32 {
            assert_eq!(r.on_data(s, false, false, &c).sack, Some(s));
        }
        let full = REASSEMBLY_PACKETS as u32 + 1;
        assert_eq!(r.on_data(full, false, false, &c).sack, None);
        assert_eq!(r.on_data(0, false, false, &c).delivered, full);
    }

    #[test]
    fn delayed_ack_every_second_packet_and_at_once_on_reorder_fin_or_ce() {
        let c = TransportConfig {
            delayed_ack: true,
            ..TransportConfig::default()
        };
        let mut r = FlowReceiver::default();
        assert!(!r.on_data(0, false, false, &c).ack_now);
        assert!(r.on_data(1, false, false, &c).ack_now);
        assert!(!r.on_data(2, false, false, &c).ack_now);
        assert!(r.timer_due());
        assert!(!r.timer_due());
        assert!(r.on_data(4, false, false, &c).ack_now, "out of order");
        assert!(r.on_data(3, false, false, &c).ack_now, "hole filled");
        assert!(r.on_data(5, false, true, &c).ack_now, "CE changed");
        assert!(!r.on_data(6, false, true, &c).ack_now);
        assert!(r.on_data(7, true, true, &c).ack_now, "FIN");
        let off = TransportConfig::default();
        let mut r = FlowReceiver::default();
        assert!(r.on_data(0, false, false, &off).ack_now);
    }

    #[test]
    fn complete_once_everything_up_to_the_fin_is_in() {
        let c = TransportConfig::default();
        let mut r = FlowReceiver::default();
        r.on_data(0, false, false, &c);
        r.on_data(2, true, false, &c);
        assert!(!r.complete(), "FIN in, packet 1 missing");
        r.on_data(1, false, false, &c);
        assert!(r.complete(), "the hole filled after the FIN");
        let mut r = FlowReceiver::default();
        r.on_data(0, false, false, &c);
        r.on_data(1, false, false, &c);
        assert!(!r.complete(), "no FIN yet");
        r.on_data(2, true, false, &c);
        assert!(r.complete());
    }
}
