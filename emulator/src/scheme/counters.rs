//! Per-port counters kept by every router: what the scheme's admission
//! decisions and the port's sends came to, for reports and a control API.

use serde::Serialize;

use super::Admission;

#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct PortCounters {
    /// Packets accepted into the port's buffer.
    pub enqueued: u64,
    /// Packets sent on the port's link.
    pub transmitted: u64,
    /// Packets dropped at this port (offered or evicted).
    pub dropped: u64,
    /// Packets CE-marked at this port.
    pub marked: u64,
}

impl PortCounters {
    #[inline]
    pub fn record(&mut self, outcome: Admission) {
        match outcome {
            Admission::Accepted => self.enqueued += 1,
            Admission::Marked => {
                self.enqueued += 1;
                self.marked += 1;
            }
            Admission::Dropped => self.dropped += 1,
            Admission::Evicted => {
                self.enqueued += 1;
                self.dropped += 1;
            }
        }
    }
    pub fn add(&mut self, o: &PortCounters) {
        self.enqueued += o.enqueued;
        self.transmitted += o.transmitted;
        self.dropped += o.dropped;
        self.marked += o.marked;
    }
}
