//! HPCC (Li et al., SIGCOMM 2019) as a window transport beside DCTCP: the
//! sender keeps the window at the value that drives the most utilised link of
//! its path to the target utilisation `eta`, from per-packet in-band feedback.
//!
//! The feedback is the path's bottleneck utilisation U = qlen / (B T) + txRate / B,
//! computed by each switch for its egress port (see `crate::pint_stage`) and
//! carried back in the ACK, either exact (INT: the value a sender computes from
//! per-hop records) or as PINT's 8-bit code. The control law is HPCC's
//! Algorithm 1: an EWMA of U over one base RTT, a multiplicative step
//! W = Wc / (U / eta) + W_AI when U >= eta (or after `max_stage` additive
//! steps), else W = Wc + W_AI; the reference window Wc is updated once per RTT
//! (when the ACK passes the sequence sent at the last update).

use serde::Deserialize;

use super::FlowSender;
use crate::packet::{Packet, Slot};

/// HPCC's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HpccConfig {
    /// Target utilisation eta.
    pub eta: f64,
    /// Additive steps before a multiplicative one.
    pub max_stage: u32,
    /// Additive increase W_AI in packets per update (HPCC: a small share of
    /// the BDP, so that N flows add N * W_AI per RTT).
    pub w_ai_pkts: f64,
    /// Feedback the sender reads: exact per-hop INT or PINT's 8-bit value.
    pub feedback: HpccFeedback,
    /// INT header bytes per packet with `feedback = "int"` (HPCC's 42: 2 bytes
    /// of INT header and 8 per hop over 5 hops); they come out of every
    /// packet's payload. PINT rides in the IPv4 ID: no extra bytes.
    pub int_bytes: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HpccFeedback {
    Int,
    Pint,
}

impl Default for HpccConfig {
    fn default() -> Self {
        HpccConfig { eta: 0.95, max_stage: 5, w_ai_pkts: 0.1, feedback: HpccFeedback::Int, int_bytes: 42 }
    }
}

impl HpccConfig {
    pub fn validate(&self) -> Result<(), String> {
        if !(self.eta > 0.0 && self.eta <= 1.0) {
            return Err(format!("transport.hpcc.eta must be in (0, 1], got {}", self.eta));
        }
        if !(self.w_ai_pkts.is_finite() && self.w_ai_pkts > 0.0) {
            return Err(format!("transport.hpcc.w_ai_pkts must be > 0, got {}", self.w_ai_pkts));
        }
        Ok(())
    }
}

/// Per-flow HPCC state.
#[derive(Debug, Clone, Default)]
pub struct HpccState {
    /// Reference window Wc (0: not started; set to the initial window).
    pub w_c: f64,
    /// EWMA of the bottleneck utilisation.
    pub u: f64,
    inc_stage: u32,
    /// Wc is updated when an ACK passes this sequence.
    last_update_seq: u32,
    last_feedback: Option<Slot>,
    /// ACKs whose feedback was read.
    pub feedback_acks: u64,
}

/// Where the feedback sits in a packet's scheme bytes (`crate::pint_stage`
/// writes it, the receiver echoes it in the ACK). INT: 1 + U as an f32 (so 0
/// means no switch wrote it); PINT: the 8-bit code, then a byte the emulator
/// sets to 1 once a switch wrote the code (bookkeeping, not carried on a wire).
pub const FEEDBACK_OFFSET: usize = 4;

/// Write exact (INT) feedback: the larger of the packet's and `u`.
pub fn write_int(pkt: &mut Packet, u: f64) {
    let b = &mut pkt.data[FEEDBACK_OFFSET..FEEDBACK_OFFSET + 4];
    let old = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let v = old.max(1.0 + u as f32);
    b.copy_from_slice(&v.to_le_bytes());
}

/// Read the utilisation feedback an ACK echoes; None if no switch wrote one.
pub fn feedback(ack: &Packet, mode: HpccFeedback, codec: &pint::aggregate::UtilisationCodec) -> Option<f64> {
    let b = &ack.data[FEEDBACK_OFFSET..FEEDBACK_OFFSET + 4];
    match mode {
        HpccFeedback::Int => {
            let v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            (v >= 1.0).then(|| f64::from(v) - 1.0)
        }
        HpccFeedback::Pint => (b[1] == 1).then(|| codec.decode(u32::from(b[0]))),
    }
}

/// React to one ACK's feedback (`base_rtt` in slots). Call after the ACK was
/// applied to the window bookkeeping (`FlowSender::on_ack`).
pub fn on_feedback(f: &mut FlowSender, u_hop: f64, now: Slot, base_rtt: f64, cfg: &HpccConfig, max_cwnd: f64) {
    let s = &mut f.hpcc;
    if s.w_c == 0.0 {
        s.w_c = f.cwnd;
        s.u = u_hop;
        s.last_update_seq = f.high_seq;
    }
    s.feedback_acks += 1;
    let tau = s.last_feedback.map_or(base_rtt, |l| ((now - l) as f64).min(base_rtt));
    s.last_feedback = Some(now);
    s.u = (1.0 - tau / base_rtt) * s.u + (tau / base_rtt) * u_hop;
    let update = f.acked > s.last_update_seq;
    let w = if s.u >= cfg.eta || s.inc_stage >= cfg.max_stage {
        let w = s.w_c / (s.u / cfg.eta).max(1e-3) + cfg.w_ai_pkts;
        if update {
            s.inc_stage = 0;
        }
        w
    } else {
        let w = s.w_c + cfg.w_ai_pkts;
        if update {
            s.inc_stage += 1;
        }
        w
    };
    let w = w.clamp(1.0, max_cwnd);
    if update {
        s.w_c = w;
        s.last_update_seq = f.high_seq;
    }
    f.cwnd = w;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{TransportConfig, TransportKind};

    fn flow(cwnd: u32) -> (FlowSender, TransportConfig) {
        let cfg = TransportConfig { kind: TransportKind::Hpcc, init_cwnd: cwnd, ..TransportConfig::default() };
        (FlowSender::new(1, 0, 1, 100_000, 0, 0, &cfg), cfg)
    }

    /// Drive `rounds` RTTs of ACKs at utilisation `u` and return the window.
    fn drive(f: &mut FlowSender, u: f64, rounds: u32, rtt: u64) -> f64 {
        let cfg = HpccConfig::default();
        let mut now = 0;
        for _ in 0..rounds {
            // One RTT: the flow sends a window, each ACK carries feedback.
            let w = f.cwnd.floor().max(1.0) as u32;
            for _ in 0..w {
                f.take_seq(now);
            }
            for k in 0..w {
                now += rtt / u64::from(w.max(1));
                f.acked = f.acked.max(f.high_seq - w + k + 1);
                on_feedback(f, u, now, rtt as f64, &cfg, 10_000.0);
            }
        }
        f.cwnd
    }

    #[test]
    fn overloaded_bottleneck_shrinks_window_towards_eta() {
        let (mut f, _) = flow(40);
        // U = 2 (twice the link): the window should about halve * eta per RTT.
        let w = drive(&mut f, 2.0, 3, 40);
        assert!(w < 40.0 * 0.95 / 2.0 * 1.2, "window {w}");
        assert!(w >= 1.0);
    }

    #[test]
    fn idle_path_grows_additively_then_multiplicatively() {
        let (mut f, _) = flow(10);
        // U well below eta: additive steps, then (after max_stage) W = Wc * eta / U.
        let w = drive(&mut f, 0.2, 8, 40);
        assert!(w > 20.0, "window {w} should grow when the path is idle");
    }

    #[test]
    fn at_target_the_window_holds() {
        let (mut f, _) = flow(30);
        let w = drive(&mut f, 0.95, 10, 40);
        assert!((w - 30.0).abs() < 3.0, "window {w} should stay near 30 at U = eta");
    }

    #[test]
    fn feedback_decodes_both_encodings() {
        let codec = pint::aggregate::UtilisationCodec::hpcc(1);
        let mut p = Packet::default();
        assert_eq!(feedback(&p, HpccFeedback::Int, &codec), None);
        assert_eq!(feedback(&p, HpccFeedback::Pint, &codec), None);
        write_int(&mut p, 0.75);
        write_int(&mut p, 0.5);
        assert_eq!(feedback(&p, HpccFeedback::Int, &codec), Some(0.75));
        let code = codec.encode(0, 7, 1, 0.75);
        p.data[4] = code as u8;
        p.data[5] = 1;
        let u = feedback(&p, HpccFeedback::Pint, &codec).unwrap();
        assert!((u / 0.75 - 1.0).abs() <= codec.relative_error_bound() + 1e-9, "{u}");
    }

    #[test]
    fn rejects_bad_parameters() {
        assert!(HpccConfig { eta: 0.0, ..HpccConfig::default() }.validate().is_err());
        assert!(HpccConfig { w_ai_pkts: -1.0, ..HpccConfig::default() }.validate().is_err());
        assert!(HpccConfig::default().validate().is_ok());
    }
}
