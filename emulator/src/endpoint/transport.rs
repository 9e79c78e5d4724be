//! Window-based transport per flow, in packets, as a TCP reference knows it:
//! slow start and congestion avoidance (RFC 5681), an RTT estimator and
//! retransmission timer with a floor and exponential backoff (RFC 6298),
//! SACK-based loss recovery (RFC 6675, the default) or go-back-N when
//! `sack = false`, DCTCP's reaction to ECN echoes (RFC 8257) and pFabric's
//! minimal rate control.
//!
//! Sequence numbers count packets. ACKs are never lost (they travel out of
//! band), so one SACK block per ACK (the packet that triggered it) gives the
//! sender the complete scoreboard a real SACK sender rebuilds from its
//! three or four most recent blocks.

use std::collections::BTreeSet;

use crate::config::{TransportConfig, TransportKind};
use crate::packet::Slot;

/// Duplicate ACKs (or SACKed packets above a hole) that declare it lost.
const DUP_THRESH: usize = 3;

/// What one ACK tells the sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ack {
    /// Cumulative ACK: packets [0, cum) are delivered.
    pub cum: u32,
    /// The packet that triggered this ACK, if it arrived above `cum` (its
    /// SACK block). `None` from receivers that report no SACK information.
    pub sacked: Option<u32>,
    /// ECN-Echo.
    pub ece: bool,
}

impl Ack {
    pub fn cumulative(cum: u32, ece: bool) -> Self {
        Ack {
            cum,
            sacked: None,
            ece,
        }
    }
}

/// RFC 6298 estimator state, in slots.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    pub srtt: Option<f64>,
    pub rttvar: f64,
    /// Current timeout, backoff included.
    pub rto: f64,
    min_rto: f64,
    max_rto: f64,
}

impl RttEstimator {
    pub fn new(cfg: &TransportConfig) -> Self {
        let min_rto = cfg.min_rto_slots();
        RttEstimator {
            srtt: None,
            rttvar: 0.0,
            // Before any sample the timer is the floor: in a data centre the
            // handshake's RTT sample is far below it (RFC 6298's 1 s initial
            // value is meant for paths of unknown length).
            rto: min_rto,
            min_rto,
            max_rto: cfg.max_rto_slots().max(min_rto),
        }
    }

    /// RFC 6298 (2.2)/(2.3) with alpha = 1/8, beta = 1/4, G = one slot; the
    /// result replaces any backoff (5.7).
    pub fn sample(&mut self, r: f64) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - r).abs();
                self.srtt = Some(0.875 * s + 0.125 * r);
            }
        }
        self.clear_backoff();
    }

    /// The timer from the estimate alone (RFC 6298 (2.4)), without backoff:
    /// what an ACK of new data restarts the timer with (ns-3's `NewAck`; Linux
    /// too takes RTT samples from every such ACK), so one timeout does not
    /// double the next one of a flow that has made progress since.
    pub fn clear_backoff(&mut self) {
        let rto = match self.srtt {
            Some(s) => s + (4.0 * self.rttvar).max(1.0),
            None => self.min_rto,
        };
        self.rto = rto.clamp(self.min_rto, self.max_rto);
    }

    /// RFC 6298 (5.5): double the timer, up to the maximum.
    pub fn back_off(&mut self) {
        self.rto = (self.rto * 2.0).min(self.max_rto);
    }
}

/// What a traced flow's sender did (`output.trace_flows`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceKind {
    /// An ACK that moved the state (cumulative point in `seq`).
    Ack,
    /// A retransmission of `seq`.
    Rtx,
    /// Loss recovery entered on this ACK (SACK or duplicate ACKs).
    Recovery,
    /// The window cut on an ECN echo.
    EcnCut,
    /// The retransmission timer fired (`seq`: the cumulative point).
    Rto,
    /// The last ACK: the flow completed.
    Done,
}

/// One event of a traced flow, with the sender's state after it: a row of
/// flow_trace.csv (packets; `time_us` is the slot's start).
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct TraceEvent {
    pub time_us: f64,
    pub slot: Slot,
    pub flow: u32,
    pub event: TraceKind,
    pub seq: u32,
    pub acked: u32,
    pub high_seq: u32,
    pub cwnd: f64,
    pub ssthresh: f64,
    /// RFC 6675 pipe after the event.
    pub pipe: u32,
    pub in_recovery: bool,
}

/// A traced flow's events, bounded by [`MAX_TRACE_EVENTS`]; the rest are counted.
#[derive(Clone, Debug, Default)]
pub struct FlowTrace {
    /// Microseconds per slot, for the events' `time_us`.
    pub slot_us: f64,
    pub events: Vec<TraceEvent>,
    pub dropped: u64,
}

impl FlowTrace {
    pub fn new(slot_us: f64) -> Self {
        FlowTrace {
            slot_us,
            ..Default::default()
        }
    }
}

/// Events kept per traced flow.
pub const MAX_TRACE_EVENTS: usize = 1_000_000;

#[derive(Clone, Debug)]
pub struct FlowSender {
    pub id: u32,
    pub src: u16,
    pub dst: u16,
    pub size: u32,
    pub class: u32,
    pub start: Slot,
    pub finish: Option<Slot>,
    /// Go-back-N: next sequence to send. SACK: next new sequence (= high_seq).
    pub next_seq: u32,
    /// Cumulative ACK: packets [0, acked) are delivered.
    pub acked: u32,
    /// Highest sequence ever sent + 1 (to tell retransmissions apart).
    pub high_seq: u32,
    pub cwnd: f64,
    pub ssthresh: f64,
    /// The receiver's window, packets (`rcv_wnd_pkts`).
    rcv_wnd: u32,
    dupacks: u32,
    /// Slot the retransmission timer was (re)started.
    timer_start: Slot,
    consecutive_timeouts: u32,
    pub rtt: RttEstimator,
    /// One timed packet per round trip (Karn: never a retransmitted one).
    rtt_probe: Option<(u32, Slot)>,
    /// SACK scoreboard: packets above `acked` the receiver holds.
    sacked: BTreeSet<u32>,
    /// Packets below this and not SACKed are lost (RFC 6675 IsLost, or
    /// everything outstanding after a timeout).
    lost_below: u32,
    /// Lost packets retransmitted in the current recovery, not yet (S)ACKed.
    retx: BTreeSet<u32>,
    /// Lowest sequence that may still need a retransmission.
    retx_cursor: u32,
    /// Lowest sequence NextSeg rule 3 may still pick in this recovery.
    rescue_cursor: u32,
    /// The receiver has sent SACK blocks (else recovery is NewReno's).
    peer_sacks: bool,
    /// In loss recovery until `acked` reaches `recovery_point`.
    in_recovery: bool,
    /// The recovery was entered by the retransmission timer (ns-3's and
    /// Linux's CA_LOSS): the window slow-starts from one packet as the
    /// retransmissions are acknowledged (RFC 5681 3.1, RFC 6675 5.1).
    after_rto: bool,
    /// No partial ACK of this fast recovery has restarted the timer yet
    /// (RFC 6582 4.1's Impatient variant, as ns-3 does).
    first_partial: bool,
    /// The first retransmission of a recovery is still to go (it ignores the pipe).
    rtx_exempt: bool,
    recovery_point: u32,
    /// DCTCP: EWMA of the marked fraction and the current observation window.
    pub alpha: f64,
    window_end: u32,
    window_acked: u32,
    window_marked: u32,
    /// No further window cut until this sequence is acknowledged.
    cut_until: u32,
    /// In the window after an ECN cut (Linux's and ns-3's CWR state): the
    /// window neither grows nor is cut again until `acked` passes `cut_until`.
    in_cwr: bool,
    pub retransmits: u32,
    pub timeouts: u32,
    /// HPCC's per-flow state (`hpcc`), unused by the other kinds.
    pub hpcc: hpcc::HpccState,
    /// Events of a flow named in `output.trace_flows`; `None` for the others.
    pub trace: Option<Box<FlowTrace>>,
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
            rcv_wnd: cfg.rcv_wnd_pkts.max(1),
            dupacks: 0,
            timer_start: start,
            consecutive_timeouts: 0,
            rtt: RttEstimator::new(cfg),
            rtt_probe: None,
            sacked: BTreeSet::new(),
            lost_below: 0,
            retx: BTreeSet::new(),
            retx_cursor: 0,
            rescue_cursor: 0,
            peer_sacks: false,
            in_recovery: false,
            after_rto: false,
            first_partial: true,
            rtx_exempt: false,
            recovery_point: 0,
            alpha: cfg.dctcp_init_alpha,
            window_end: 0,
            window_acked: 0,
            window_marked: 0,
            cut_until: 0,
            in_cwr: false,
            retransmits: 0,
            timeouts: 0,
            hpcc: hpcc::HpccState::default(),
            trace: None,
        }
    }

    fn sack_mode(cfg: &TransportConfig) -> bool {
        cfg.sack && cfg.kind != TransportKind::Pfabric
    }

    /// Packets in flight as RFC 6675 counts them ("pipe"): sent, not
    /// (S)ACKed, and not lost unless retransmitted.
    pub fn pipe(&self) -> u32 {
        let outstanding = self.high_seq - self.acked - self.sacked.len() as u32;
        let lost_end = self.lost_below.min(self.high_seq);
        let lost = if lost_end > self.acked {
            lost_end - self.acked - self.sacked.range(..lost_end).count() as u32
        } else {
            0
        };
        // Without SACK blocks each duplicate ACK is a packet that left the
        // network (NewReno's window inflation).
        let left = if self.sacked.is_empty() {
            self.dupacks
        } else {
            0
        };
        (outstanding - lost).saturating_sub(left) + self.retx.len() as u32
    }

    /// The next lost packet to retransmit (RFC 6675 NextSeg rule 1).
    fn next_lost(&mut self) -> Option<u32> {
        let mut s = self.retx_cursor.max(self.acked);
        let end = self.lost_below.min(self.high_seq);
        while s < end && (self.sacked.contains(&s) || self.retx.contains(&s)) {
            s += 1;
        }
        self.retx_cursor = s;
        (s < end).then_some(s)
    }

    /// RFC 6675 NextSeg rule 3, as ns-3 has it in fast recovery: with no
    /// lost packet left to resend and no new data, the lowest packet
    /// neither SACKed nor resent yet. ns-3 leaves out the rule's bound (below
    /// the highest SACKed packet), so a loss among a flow's last packets,
    /// which no three SACKs can ever mark, is resent in the recovery of an
    /// earlier hole instead of waiting for the timer.
    fn rescue(&self) -> Option<u32> {
        if !self.in_recovery || self.after_rto || !self.peer_sacks || self.next_seq < self.size {
            return None;
        }
        let mut s = self.rescue_cursor.max(self.acked);
        while s < self.high_seq && (self.sacked.contains(&s) || self.retx.contains(&s)) {
            s += 1;
        }
        (s < self.high_seq).then_some(s)
    }

    #[inline]
    pub fn can_send(&self) -> bool {
        if self.finish.is_some() {
            return false;
        }
        let wnd = self.cwnd.floor().max(1.0);
        if self.lost_below > self.acked || !self.sacked.is_empty() {
            // SACK bookkeeping in use: count the pipe, and look for a lost
            // packet or new data to send. The first retransmission of a
            // recovery goes out whatever the pipe (RFC 6675 5 (3)).
            let open = (self.pipe() as f64) < wnd;
            if !open && !self.rtx_exempt {
                return false;
            }
            let end = self.lost_below.min(self.high_seq);
            let mut s = self.retx_cursor.max(self.acked);
            while s < end {
                if !self.sacked.contains(&s) && !self.retx.contains(&s) {
                    return true;
                }
                s += 1;
            }
            return open && (self.new_data_allowed() || self.rescue().is_some());
        }
        if self.new_data_allowed() {
            return ((self.next_seq - self.acked) as f64) < wnd;
        }
        // Recovery whose holes are all repaired: rule 3 may still resend.
        self.rescue().is_some() && (self.pipe() as f64) < wnd
    }

    /// Unsent data within the receiver's window (TCP flow control: nothing
    /// beyond the cumulative ACK + `rcv_wnd_pkts`, which a receiver stuck on a
    /// lost packet could not hold).
    #[inline]
    fn new_data_allowed(&self) -> bool {
        self.next_seq < self.size && self.next_seq < self.acked.saturating_add(self.rcv_wnd)
    }

    /// Remaining packets (pFabric priority).
    #[inline]
    pub fn remaining(&self) -> u32 {
        self.size - self.acked
    }

    /// Take the next sequence number to put on the wire (call after `can_send`).
    #[inline]
    pub fn take_seq(&mut self, now: Slot) -> u32 {
        if self.trace.is_none() {
            return self.take_seq_inner(now);
        }
        let before = self.retransmits;
        let s = self.take_seq_inner(now);
        if self.retransmits > before {
            self.note(now, TraceKind::Rtx, s);
        }
        s
    }

    /// Records an event of a traced flow (call only when `trace` is set).
    fn note(&mut self, now: Slot, event: TraceKind, seq: u32) {
        let Some(slot_us) = self.trace.as_ref().map(|t| t.slot_us) else {
            return;
        };
        let e = TraceEvent {
            time_us: now as f64 * slot_us,
            slot: now,
            flow: self.id,
            event,
            seq,
            acked: self.acked,
            high_seq: self.high_seq,
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            pipe: self.pipe(),
            in_recovery: self.in_recovery,
        };
        if let Some(t) = self.trace.as_mut() {
            if t.events.len() < MAX_TRACE_EVENTS {
                t.events.push(e);
            } else {
                t.dropped += 1;
            }
        }
    }

    fn take_seq_inner(&mut self, now: Slot) -> u32 {
        if self.high_seq == self.acked {
            // Nothing was outstanding: the retransmission timer starts now.
            self.timer_start = now;
        }
        if self.lost_below > self.acked
            && let Some(s) = self.next_lost()
        {
            self.retx.insert(s);
            self.retransmits += 1;
            self.rtx_exempt = false;
            return s;
        }
        if self.next_seq >= self.size
            && let Some(s) = self.rescue()
        {
            self.rescue_cursor = s + 1;
            self.retx.insert(s);
            self.retransmits += 1;
            return s;
        }
        let s = self.next_seq;
        self.next_seq += 1;
        if s < self.high_seq {
            self.retransmits += 1;
            if self.rtt_probe.is_some_and(|(p, _)| p >= s) {
                self.rtt_probe = None;
            }
        } else {
            self.high_seq = s + 1;
            if self.rtt_probe.is_none() {
                self.rtt_probe = Some((s, now));
            }
        }
        s
    }

    pub fn on_ack(&mut self, ack: Ack, now: Slot, cfg: &TransportConfig) -> AckOutcome {
        if self.trace.is_none() {
            return self.on_ack_inner(ack, now, cfg);
        }
        let (recovering, cut) = (self.in_recovery, self.cut_until);
        let out = self.on_ack_inner(ack, now, cfg);
        let kind = match out {
            AckOutcome::Stale => return out,
            AckOutcome::Completed => TraceKind::Done,
            _ if !recovering && self.in_recovery => TraceKind::Recovery,
            _ if self.cut_until != cut && !self.in_recovery => TraceKind::EcnCut,
            _ => TraceKind::Ack,
        };
        self.note(now, kind, ack.cum);
        out
    }

    fn on_ack_inner(&mut self, ack: Ack, now: Slot, cfg: &TransportConfig) -> AckOutcome {
        if self.finish.is_some() || ack.cum < self.acked {
            return AckOutcome::Stale;
        }
        let sack = Self::sack_mode(cfg);
        self.peer_sacks |= ack.sacked.is_some();
        if ack.cum == self.acked {
            if self.high_seq <= self.acked {
                return AckOutcome::Duplicate;
            }
            if sack {
                if let Some(s) = ack.sacked
                    && s >= self.acked
                    && s < self.high_seq
                {
                    self.sacked.insert(s);
                    self.retx.remove(&s);
                }
                self.dupacks += 1;
                self.detect_loss(cfg);
            } else {
                self.dupacks += 1;
                if self.dupacks == DUP_THRESH as u32 && cfg.kind != TransportKind::Pfabric {
                    // Go-back-N: resend everything from the hole on.
                    self.ssthresh = (self.cwnd / 2.0).max(2.0);
                    self.cwnd = self.ssthresh;
                    self.next_seq = self.acked;
                    self.cut_until = self.high_seq;
                    self.rtt_probe = None;
                }
            }
            return AckOutcome::Duplicate;
        }
        let newly = ack.cum - self.acked;
        // A partial ACK in fast recovery restarts the timer only the first
        // time (RFC 6582 4.1, Impatient; ns-3's `m_isFirstPartialAck`): a
        // recovery that repairs one hole per round trip ends in a timeout
        // rather than lasting hundreds of round trips. Any other ACK of new
        // data restarts it without backoff.
        let partial = self.in_recovery && !self.after_rto && ack.cum < self.recovery_point;
        if !partial || self.first_partial {
            self.timer_start = now;
            self.rtt.clear_backoff();
        }
        self.first_partial &= !partial;
        self.acked = ack.cum;
        self.next_seq = self.next_seq.max(ack.cum);
        self.dupacks = 0;
        self.consecutive_timeouts = 0;
        if let Some((p, sent)) = self.rtt_probe
            && ack.cum > p
        {
            self.rtt.sample((now - sent) as f64);
            self.rtt_probe = None;
        }
        if sack {
            self.sacked = self.sacked.split_off(&ack.cum);
            self.retx = self.retx.split_off(&ack.cum);
            if let Some(s) = ack.sacked
                && s > ack.cum
                && s < self.high_seq
            {
                self.sacked.insert(s);
                self.retx.remove(&s);
            }
        }
        if self.acked >= self.size {
            self.finish = Some(now);
            return AckOutcome::Completed;
        }
        if self.in_recovery {
            if self.acked >= self.recovery_point {
                // The scoreboard stays: packets found lost (and perhaps
                // retransmitted) above the recovery point are still so.
                self.in_recovery = false;
                self.after_rto = false;
                self.first_partial = true;
                self.rtx_exempt = false;
            } else {
                // Partial ACK (RFC 6675 / NewReno): the window stays in fast
                // recovery; without SACK blocks the next hole is the new
                // cumulative point. After a timeout the window slow-starts
                // (RFC 5681 3.1; ns-3 grows it in CA_LOSS), else the repair
                // of a whole lost window went at one packet per round trip.
                if !self.peer_sacks {
                    self.lost_below = self.lost_below.max(self.acked + 1);
                }
                self.detect_loss(cfg);
                self.dctcp_observe(newly, ack.ece, cfg);
                if self.after_rto && matches!(cfg.kind, TransportKind::Tcp | TransportKind::Dctcp) {
                    self.grow(newly, cfg);
                }
                return AckOutcome::Progress;
            }
        } else if sack {
            self.detect_loss(cfg);
            if self.in_recovery {
                self.dctcp_observe(newly, ack.ece, cfg);
                return AckOutcome::Progress;
            }
        }
        match cfg.kind {
            TransportKind::Pfabric => {
                // Minimal rate control: recover towards the initial window after probing.
                self.cwnd = (self.cwnd + newly as f64).min(cfg.init_cwnd as f64);
            }
            TransportKind::Dctcp => {
                self.dctcp_observe(newly, ack.ece, cfg);
                self.in_cwr &= self.acked <= self.cut_until;
                if ack.ece && self.acked > self.cut_until {
                    self.cwnd = (self.cwnd * (1.0 - self.alpha / 2.0)).max(1.0);
                    self.ssthresh = self.cwnd;
                    self.cut_until = self.high_seq;
                    self.in_cwr = true;
                } else if !self.in_cwr {
                    self.grow(newly, cfg);
                }
            }
            // The window follows in-band feedback (`hpcc::on_feedback`).
            TransportKind::Hpcc => {}
            TransportKind::Tcp => {
                self.in_cwr &= self.acked <= self.cut_until;
                if ack.ece && cfg.ecn && self.acked > self.cut_until {
                    // RFC 3168 6.1.2: the same cut as for a loss (RFC 5681
                    // (4): half of what is in flight, as ns-3's NewReno).
                    self.ssthresh = self.loss_ssthresh(cfg);
                    self.cwnd = self.ssthresh;
                    self.cut_until = self.high_seq;
                    self.in_cwr = true;
                } else if !self.in_cwr {
                    self.grow(newly, cfg);
                }
            }
        }
        AckOutcome::Progress
    }

    /// RFC 8257 3.3: per window of data, alpha = (1 - g) alpha + g F.
    fn dctcp_observe(&mut self, newly: u32, ece: bool, cfg: &TransportConfig) {
        if cfg.kind != TransportKind::Dctcp {
            return;
        }
        self.window_acked += newly;
        if ece {
            self.window_marked += newly;
        }
        // The window ends when SND.UNA passes SND.NXT as it was when the
        // previous window ended.
        if self.acked > self.window_end {
            let f = self.window_marked as f64 / self.window_acked.max(1) as f64;
            self.alpha = (1.0 - cfg.dctcp_g) * self.alpha + cfg.dctcp_g * f;
            self.window_acked = 0;
            self.window_marked = 0;
            self.window_end = self.high_seq;
        }
    }

    /// RFC 6675 IsLost / entering recovery: a hole with DupThresh SACKed
    /// packets above it (or DupThresh duplicate ACKs without SACK blocks).
    fn detect_loss(&mut self, cfg: &TransportConfig) {
        let mark = if self.peer_sacks {
            // Everything below the DupThresh-th highest SACKed packet.
            self.sacked.iter().rev().nth(DUP_THRESH - 1).copied()
        } else if self.dupacks >= DUP_THRESH as u32 {
            Some(self.acked + 1)
        } else {
            None
        };
        let Some(mark) = mark else { return };
        if mark <= self.lost_below {
            return;
        }
        self.lost_below = mark;
        if !self.in_recovery {
            self.in_recovery = true;
            self.first_partial = true;
            self.rescue_cursor = self.acked;
            self.in_cwr = false;
            self.rtx_exempt = true;
            self.recovery_point = self.high_seq;
            // Karn: the timed packet may be among those resent.
            self.rtt_probe = None;
            if cfg.kind != TransportKind::Pfabric && self.acked >= self.cut_until {
                self.ssthresh = self.loss_ssthresh(cfg);
                self.cwnd = self.ssthresh;
                self.cut_until = self.high_seq;
            }
        }
    }

    /// ssthresh after a loss. NewReno halves what is in flight (RFC 5681
    /// (4)), not cwnd: a flow limited by its host's link grows cwnd far past
    /// what it has in flight (neither here nor in ns-3 does growth stop when
    /// the window is not the limit), and half of a cwnd of thousands kept
    /// such a flow sending at line rate into a full port through its whole
    /// recovery. With SACK blocks what is in flight is RFC 6675's pipe,
    /// after the scoreboard has marked this ACK's losses, as ns-3 counts it;
    /// without, FlightSize. DCTCP keeps its own cut.
    fn loss_ssthresh(&self, cfg: &TransportConfig) -> f64 {
        if cfg.kind != TransportKind::Tcp || !Self::sack_mode(cfg) {
            return (self.cwnd / 2.0).max(2.0);
        }
        let flight = if self.peer_sacks {
            self.pipe()
        } else {
            self.high_seq - self.acked
        };
        (flight as f64 / 2.0).max(2.0)
    }

    /// RFC 5681 (2) and (3), per ACK of new data however much it covers, as
    /// ns-3's NewReno does: one packet in slow start (a cumulative ACK that
    /// jumps over a repaired hole, or over everything SACKed after a
    /// timeout, is still one ACK), 1/cwnd in congestion avoidance.
    fn grow(&mut self, newly: u32, cfg: &TransportConfig) {
        if newly == 0 {
            return;
        }
        if self.cwnd < self.ssthresh {
            self.cwnd += 1.0;
        } else {
            self.cwnd += 1.0 / self.cwnd;
        }
        self.cwnd = self.cwnd.min(cfg.max_cwnd as f64);
    }

    /// Fire the retransmission timer if it expired; returns true on timeout.
    pub fn check_timeout(&mut self, now: Slot, cfg: &TransportConfig) -> bool {
        let fired = self.check_timeout_inner(now, cfg);
        if fired && self.trace.is_some() {
            self.note(now, TraceKind::Rto, self.acked);
        }
        fired
    }

    fn check_timeout_inner(&mut self, now: Slot, cfg: &TransportConfig) -> bool {
        let rto = if cfg.kind == TransportKind::Pfabric {
            // pFabric's fixed, small timer (its paper: about 3 RTTs).
            cfg.min_rto_slots()
        } else {
            self.rtt.rto
        };
        if self.finish.is_some()
            || self.high_seq == self.acked
            || now < self.timer_start + rto.ceil().max(1.0) as Slot
        {
            return false;
        }
        self.timeouts += 1;
        self.in_cwr = false;
        self.consecutive_timeouts += 1;
        self.dupacks = 0;
        self.timer_start = now;
        self.rtt_probe = None;
        match cfg.kind {
            TransportKind::Pfabric => {
                self.next_seq = self.acked;
                self.cut_until = self.high_seq;
                if self.consecutive_timeouts >= cfg.pfabric_probe_after {
                    self.cwnd = 1.0;
                }
            }
            _ => {
                self.rtt.back_off();
                // RFC 5681 (4): ssthresh is held when the timer fires again
                // for a segment it already had resent (ns-3: in CA_LOSS with
                // the head retransmitted), instead of falling to 2.
                let again = self.after_rto && self.retx.contains(&self.acked);
                if !again {
                    self.ssthresh = self.loss_ssthresh(cfg);
                }
                self.cwnd = 1.0;
                self.cut_until = self.high_seq;
                if Self::sack_mode(cfg) {
                    // RFC 6675 5.1: everything not SACKed is lost; resend it
                    // in order, skipping what the receiver holds.
                    self.in_recovery = true;
                    self.after_rto = true;
                    self.recovery_point = self.high_seq;
                    self.lost_below = self.high_seq;
                    self.retx.clear();
                    self.retx_cursor = self.acked;
                    self.next_seq = self.high_seq;
                } else {
                    self.next_seq = self.acked;
                }
            }
        }
        true
    }
}

pub mod hpcc;

#[cfg(test)]
mod tests;
