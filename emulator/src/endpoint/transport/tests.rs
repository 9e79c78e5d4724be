use std::collections::{BTreeMap, HashSet};

use proptest::prelude::*;

use super::*;
use crate::endpoint::receiver::FlowReceiver;

fn cfg(kind: TransportKind) -> TransportConfig {
    TransportConfig {
        kind,
        ..TransportConfig::default()
    }
}

fn gbn(kind: TransportKind) -> TransportConfig {
    TransportConfig {
        sack: false,
        ..cfg(kind)
    }
}

/// One flow over a path of `rtt` slots that sends one packet per slot and
/// drops the first transmission of every sequence in `drops`. Returns the
/// sender once it completes (or after `limit` slots).
fn run_lossy(size: u32, drops: &[u32], c: &TransportConfig, rtt: u64, limit: u64) -> FlowSender {
    run_lossy_traced(size, drops, c, rtt, limit).0
}

/// `run_lossy`, with every transmission as (slot, sequence).
fn run_lossy_traced(
    size: u32,
    drops: &[u32],
    c: &TransportConfig,
    rtt: u64,
    limit: u64,
) -> (FlowSender, Vec<(u64, u32)>) {
    let mut sends = Vec::new();
    let mut f = FlowSender::new(1, 0, 1, size, 0, 0, c);
    let mut r = FlowReceiver::default();
    let mut dropped: HashSet<u32> = HashSet::new();
    // slot -> packets arriving at the receiver / ACKs arriving at the sender
    let mut to_rx: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
    let mut to_tx: BTreeMap<u64, Vec<Ack>> = BTreeMap::new();
    for t in 0..limit {
        if let Some(seqs) = to_rx.remove(&t) {
            for s in seqs {
                r.on_data(s, s + 1 == size, false, c);
                let ack = Ack {
                    cum: r.expected,
                    sacked: (s >= r.expected).then_some(s),
                    ece: false,
                };
                to_tx.entry(t + rtt / 2).or_default().push(ack);
            }
        }
        if let Some(acks) = to_tx.remove(&t) {
            for a in acks {
                f.on_ack(a, t, c);
            }
        }
        if f.finish.is_some() {
            return (f, sends);
        }
        f.check_timeout(t, c);
        if f.can_send() {
            let s = f.take_seq(t);
            sends.push((t, s));
            if drops.contains(&s) && dropped.insert(s) {
                continue;
            }
            to_rx.entry(t + rtt / 2).or_default().push(s);
        }
    }
    (f, sends)
}

/// How often each sequence went out, and when the flow's last new packet
/// first did.
fn send_counts(sends: &[(u64, u32)], size: u32) -> (BTreeMap<u32, u32>, u64) {
    let mut n = BTreeMap::new();
    for &(_, s) in sends {
        *n.entry(s).or_insert(0) += 1;
    }
    let last_new = sends
        .iter()
        .find(|&&(_, s)| s + 1 == size)
        .map_or(u64::MAX, |&(t, _)| t);
    (n, last_new)
}

#[test]
fn slow_start_doubles_then_loss_halves() {
    for c in [cfg(TransportKind::Tcp), gbn(TransportKind::Tcp)] {
        let mut f = FlowSender::new(1, 0, 1, 1000, 0, 0, &c);
        for _ in 0..10 {
            assert!(f.can_send());
            f.take_seq(0);
        }
        assert!(!f.can_send());
        // RFC 5681 (2): one packet more per ACK, however much it covers.
        let mut g = f.clone();
        g.on_ack(Ack::cumulative(10, false), 5, &c);
        assert_eq!(g.cwnd, 11.0);
        // With an ACK per packet the window doubles in a round trip.
        for a in 1..=10 {
            assert_eq!(
                f.on_ack(Ack::cumulative(a, false), 5, &c),
                AckOutcome::Progress
            );
        }
        assert_eq!(f.cwnd, 20.0);
        for _ in 0..3 {
            assert_eq!(
                f.on_ack(Ack::cumulative(10, false), 6, &c),
                AckOutcome::Duplicate
            );
        }
        // Dupacks only count with data outstanding.
        assert_eq!(f.cwnd, 20.0);
        for _ in 0..20 {
            f.take_seq(6);
        }
        for _ in 0..3 {
            f.on_ack(Ack::cumulative(10, false), 7, &c);
        }
        // Half of the 20 in flight (SACK sender, peer without SACK blocks:
        // FlightSize; go-back-N: cwnd, here the same).
        assert_eq!(f.cwnd, 10.0);
        // Both resend packet 10 next: go-back-N rewinds, SACK/NewReno
        // retransmits the hole.
        assert!(f.can_send());
        assert_eq!(f.take_seq(8), 10);
        assert_eq!(f.retransmits, 1);
    }
}

#[test]
fn sack_repairs_several_losses_in_one_window_without_a_timeout() {
    let c = cfg(TransportKind::Tcp);
    let drops = [20, 23, 27, 31, 40];
    let f = run_lossy(200, &drops, &c, 20, 100_000);
    assert!(f.finish.is_some(), "flow did not complete");
    assert_eq!(f.timeouts, 0);
    assert_eq!(
        f.retransmits,
        drops.len() as u32,
        "only the lost packets are resent"
    );
    // One recovery episode: a single halving, not one per loss.
    assert!(f.ssthresh >= 10.0, "ssthresh {}", f.ssthresh);
    // Go-back-N, when asked for, resends far more than the losses.
    let g = run_lossy(200, &drops, &gbn(TransportKind::Tcp), 20, 100_000);
    assert!(g.finish.is_some());
    assert!(
        g.retransmits > f.retransmits,
        "{} vs {}",
        g.retransmits,
        f.retransmits
    );
}

#[test]
fn a_retransmission_in_flight_when_recovery_ends_is_not_sent_again() {
    // 39 is found lost and resent late in the recovery for 10 and 31;
    // recovery ends while its retransmission is in flight.
    let (f, sends) = run_lossy_traced(46, &[10, 31, 39], &cfg(TransportKind::Tcp), 20, 100_000);
    assert!(f.finish.is_some());
    assert_eq!(f.timeouts, 0);
    let (n, last_new) = send_counts(&sends, 46);
    assert!(n.values().all(|&k| k <= 2), "{n:?}");
    assert_eq!(n[&39], 2);
    // Beyond the three losses only rule 3's resends, once everything has
    // been sent, of packets not yet SACKed (ns-3 resends them too).
    let mut seen = HashSet::new();
    for &(t, s) in &sends {
        if !seen.insert(s) && ![10, 31, 39].contains(&s) {
            assert!(
                t > last_new,
                "{s} resent at {t}, before the last new packet at {last_new}"
            );
        }
    }
}

#[test]
fn newreno_without_sack_blocks_repairs_one_hole_per_round_trip() {
    // A receiver that sends no SACK blocks: three duplicate ACKs start
    // recovery and partial ACKs retransmit the next hole.
    let c = cfg(TransportKind::Tcp);
    let mut f = FlowSender::new(1, 0, 1, 100, 0, 0, &c);
    for _ in 0..10 {
        f.take_seq(0);
    }
    // 0 and 5 lost: packets 1..4 and 6..9 produce duplicate ACKs of 0.
    for _ in 0..3 {
        f.on_ack(Ack::cumulative(0, false), 1, &c);
    }
    assert!(f.can_send());
    assert_eq!(f.take_seq(2), 0);
    f.on_ack(Ack::cumulative(5, false), 10, &c);
    assert!(f.can_send());
    assert_eq!(f.take_seq(10), 5, "partial ACK retransmits the next hole");
    assert_eq!(f.timeouts, 0);
}

#[test]
fn rto_backs_off_and_is_floored() {
    let c = cfg(TransportKind::Tcp);
    let floor = c.min_rto_slots();
    let mut f = FlowSender::new(1, 0, 1, 100, 0, 0, &c);
    // A short RTT sample: the timer is the floor, not srtt + 4 rttvar.
    f.take_seq(0);
    f.on_ack(Ack::cumulative(1, false), 10, &c);
    assert_eq!(f.rtt.srtt, Some(10.0));
    assert_eq!(f.rtt.rto, floor);
    f.take_seq(10);
    let mut fired_at = 10u64;
    let mut expect = floor;
    for k in 0..5 {
        let due = fired_at + expect as u64;
        assert!(!f.check_timeout(due - 1, &c), "early at backoff {k}");
        assert!(f.check_timeout(due, &c), "not fired at backoff {k}");
        assert_eq!(f.cwnd, 1.0);
        fired_at = due;
        expect *= 2.0;
        assert_eq!(f.rtt.rto, expect.min(c.max_rto_slots()));
        // Resend the lost packet; it is lost again.
        assert!(f.can_send());
        assert_eq!(f.take_seq(due), 1);
    }
    assert_eq!(f.timeouts, 5);
    // A sample from new data ends the backoff (RFC 6298 5.7); the
    // retransmitted packet 1 was never timed (Karn).
    f.take_seq(fired_at);
    f.on_ack(Ack::cumulative(3, false), fired_at + 12, &c);
    assert_eq!(f.rtt.srtt, Some(0.875 * 10.0 + 0.125 * 12.0));
    assert_eq!(f.rtt.rto, floor);
}

/// Sends everything the window allows at slot `t`.
fn fill(f: &mut FlowSender, t: Slot) -> Vec<u32> {
    let mut sent = Vec::new();
    while f.can_send() {
        sent.push(f.take_seq(t));
    }
    sent
}

fn sack(cum: u32, s: u32) -> Ack {
    Ack {
        cum,
        sacked: Some(s),
        ece: false,
    }
}

/// RFC 5681 (4): ssthresh is half of what is in flight, not half of cwnd.
/// A flow limited by its host's link keeps growing cwnd (ACKs come back
/// for every packet) far beyond what it has in flight; halving that cwnd
/// left it sending at line rate into the full port that dropped it.
#[test]
fn loss_halves_the_data_in_flight_not_an_unused_window() {
    let c = cfg(TransportKind::Tcp);
    let mut f = FlowSender::new(1, 0, 1, 100_000, 0, 0, &c);
    f.cwnd = 1000.0;
    f.ssthresh = 1000.0;
    // The link lets only 40 out before the first loss shows.
    for _ in 0..40 {
        f.take_seq(0);
    }
    // 0 lost; 1, 2, 3 arrive: three SACK blocks above the hole.
    for s in 1..=3 {
        f.on_ack(sack(0, s), 10, &c);
    }
    // pipe = 40 sent - 3 SACKed - 1 lost = 36.
    assert_eq!(f.ssthresh, 18.0);
    assert_eq!(f.cwnd, 18.0);
    // Only the retransmission of 0 may go (pipe 36 > cwnd 18).
    assert_eq!(fill(&mut f, 11), vec![0]);
}

/// After a timeout the window slow-starts from one packet as the
/// retransmissions are acknowledged (RFC 5681 3.1, RFC 6675 5.1; ns-3's
/// CA_LOSS), one packet more per ACK however far the ACK jumps.
#[test]
fn window_slow_starts_while_a_timeout_repairs_the_lost_window() {
    let c = cfg(TransportKind::Tcp);
    let mut f = FlowSender::new(1, 0, 1, 62, 0, 0, &c);
    f.cwnd = 64.0;
    f.ssthresh = 1000.0;
    assert_eq!(fill(&mut f, 0).len(), 62);
    // 0..=59 lost; 60 and 61 arrive (too few SACKs for fast recovery).
    f.on_ack(sack(0, 60), 10, &c);
    f.on_ack(sack(0, 61), 10, &c);
    let rto = c.min_rto_slots() as Slot;
    assert!(f.check_timeout(rto, &c));
    assert_eq!(f.cwnd, 1.0);
    // ssthresh from the pipe before the timeout: 62 - 2 SACKed = 60.
    assert_eq!(f.ssthresh, 30.0);
    let mut t = rto;
    let mut rounds = 0;
    let mut sent = fill(&mut f, t);
    assert_eq!(sent, vec![0]);
    while f.finish.is_none() {
        rounds += 1;
        t += 10;
        let before = f.cwnd;
        for s in sent.clone() {
            // Lost packets resent in order: each ACK covers the next one.
            f.on_ack(
                Ack::cumulative(if s == 59 { 62 } else { s + 1 }, false),
                t,
                &c,
            );
            if f.finish.is_some() {
                break;
            }
        }
        if f.finish.is_none() {
            assert!(f.cwnd > before, "round {rounds}: cwnd {} stayed", f.cwnd);
        }
        sent = fill(&mut f, t);
        assert!(
            rounds < 10,
            "slow start repairs 60 packets in ~6 rounds, not 60"
        );
    }
    assert_eq!(f.retransmits, 60, "the SACKed 60 and 61 are not resent");
    // The 1 -> 2 -> 4 .. doubling: one packet per ACK, not per packet acked.
    assert!((6..=7).contains(&rounds), "{rounds} rounds");
}

/// ns-3's `NewAck` (and Linux, which samples the RTT on every such ACK):
/// an ACK of new data restarts the timer without the backoff of an
/// earlier timeout, even when Karn's rule gives no RTT sample.
#[test]
fn an_ack_of_new_data_clears_the_timer_backoff() {
    let c = cfg(TransportKind::Tcp);
    let floor = c.min_rto_slots();
    let mut f = FlowSender::new(1, 0, 1, 100, 0, 0, &c);
    fill(&mut f, 0);
    assert!(f.check_timeout(floor as Slot, &c));
    assert_eq!(f.rtt.rto, 2.0 * floor);
    assert_eq!(f.take_seq(floor as Slot), 0);
    // The retransmission is acknowledged: no sample (Karn), backoff gone.
    let t = floor as Slot + 10;
    f.on_ack(Ack::cumulative(1, false), t, &c);
    assert_eq!(f.rtt.srtt, None);
    assert_eq!(f.rtt.rto, floor);
    // The next timeout fires one floor after that ACK, not two.
    assert!(!f.check_timeout(t + floor as Slot - 1, &c));
    assert!(f.check_timeout(t + floor as Slot, &c));
}

/// RFC 6582 4.1 (Impatient), as ns-3 does with SACK too: in fast recovery
/// only the first partial ACK restarts the timer, so a recovery that drags
/// on ends in a timeout one RTO after it.
#[test]
fn only_the_first_partial_ack_of_a_recovery_restarts_the_timer() {
    let c = cfg(TransportKind::Tcp);
    let rto = c.min_rto_slots() as Slot;
    let mut f = FlowSender::new(1, 0, 1, 1000, 0, 0, &c);
    f.cwnd = 20.0;
    fill(&mut f, 0);
    // 0, 5 and 10 lost; the rest SACKed.
    for s in (1..20).filter(|s| s % 5 != 0) {
        f.on_ack(sack(0, s), 10, &c);
    }
    fill(&mut f, 10);
    // First partial ACK at 20: restarts the timer.
    f.on_ack(Ack::cumulative(5, false), 20, &c);
    // A later partial ACK does not.
    f.on_ack(Ack::cumulative(10, false), 20 + rto / 2, &c);
    assert!(!f.check_timeout(20 + rto - 1, &c));
    assert!(
        f.check_timeout(20 + rto, &c),
        "timer restarted by the second partial ACK"
    );
    // Once the recovery is over, every ACK of new data restarts it again.
    let mut g = FlowSender::new(1, 0, 1, 1000, 0, 0, &c);
    fill(&mut g, 0);
    g.on_ack(Ack::cumulative(5, false), 10, &c);
    g.on_ack(Ack::cumulative(6, false), 10 + rto / 2, &c);
    assert!(!g.check_timeout(10 + rto, &c));
}

/// RFC 5681 (4): when the timer fires again for a segment it already had
/// resent, ssthresh is held (ns-3: CA_LOSS with the head retransmitted),
/// rather than halving a one-packet window down to 2.
#[test]
fn a_second_timeout_for_the_same_segment_holds_ssthresh() {
    let c = cfg(TransportKind::Tcp);
    let mut f = FlowSender::new(1, 0, 1, 100, 0, 0, &c);
    f.cwnd = 40.0;
    assert_eq!(fill(&mut f, 0).len(), 40);
    // Only the last packet arrives.
    f.on_ack(sack(0, 39), 10, &c);
    let mut t = c.min_rto_slots() as Slot;
    assert!(f.check_timeout(t, &c));
    // Half the pipe (39) before the timeout.
    assert_eq!(f.ssthresh, 19.5);
    assert_eq!(fill(&mut f, t), vec![0]);
    t += 2 * c.min_rto_slots() as Slot;
    assert!(f.check_timeout(t, &c));
    // Not half of the one retransmission in flight.
    assert_eq!(f.ssthresh, 19.5, "held");
    assert_eq!(f.cwnd, 1.0);
}

#[test]
fn large_rtt_sets_the_timer_above_the_floor() {
    let c = TransportConfig {
        min_rto_us: 12.0,
        ..cfg(TransportKind::Tcp)
    };
    let mut e = RttEstimator::new(&c);
    e.sample(100.0);
    // srtt 100, rttvar 50: RTO = 100 + 200.
    assert_eq!(e.rto, 300.0);
    e.sample(100.0);
    // rttvar 37.5, srtt 100: 250.
    assert_eq!(e.rto, 250.0);
}

#[test]
fn dctcp_alpha_follows_its_formula() {
    // RFC 8257 3.3, written out independently: per ACK, count acked and
    // marked packets; once SND.UNA passes WindowEnd, alpha = (1 - g) alpha
    // + g * marked / acked and WindowEnd = SND.NXT.
    let c = cfg(TransportKind::Dctcp);
    let g = c.dctcp_g;
    let mut f = FlowSender::new(1, 0, 1, 1_000_000, 0, 0, &c);
    let (mut alpha, mut window_end, mut bytes_acked, mut bytes_marked) =
        (c.dctcp_init_alpha, 0u32, 0u32, 0u32);
    let mut una = 0u32;
    let mut x = 12345u64;
    let mut windows = 0;
    for round in 0..40u32 {
        while f.can_send() {
            f.take_seq(0);
        }
        let nxt = f.high_seq;
        // Marked share varies by round; ACKs cover 1 or 2 packets.
        while una < nxt {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let step = (1 + (x >> 62) as u32 % 2).min(nxt - una);
            let ece = ((x >> 33) % 10) < (round % 11) as u64;
            una += step;
            f.on_ack(Ack::cumulative(una, ece), 1, &c);
            bytes_acked += step;
            if ece {
                bytes_marked += step;
            }
            if una > window_end {
                alpha = (1.0 - g) * alpha + g * bytes_marked as f64 / bytes_acked as f64;
                window_end = f.high_seq;
                bytes_acked = 0;
                bytes_marked = 0;
                windows += 1;
            }
            assert!(
                (f.alpha - alpha).abs() < 1e-12,
                "alpha {} vs {}",
                f.alpha,
                alpha
            );
        }
    }
    assert!(
        windows >= 20 && alpha > 0.1,
        "{windows} windows, alpha {alpha}"
    );
}

#[test]
fn dctcp_cut_is_proportional_to_alpha() {
    let c = cfg(TransportKind::Dctcp);
    let mut f = FlowSender::new(1, 0, 1, 100_000, 0, 0, &c);
    f.cwnd = 100.0;
    f.ssthresh = 50.0;
    f.alpha = 1.0;
    for _ in 0..100 {
        f.take_seq(0);
    }
    f.on_ack(Ack::cumulative(1, true), 1, &c);
    // alpha was 1 -> stays 1 with every packet marked: window halves.
    assert!((f.cwnd - 50.0).abs() < 1e-9, "{}", f.cwnd);
    // No second cut within the same window.
    f.on_ack(Ack::cumulative(2, true), 2, &c);
    assert!(f.cwnd >= 50.0);
}

/// After an ECN cut the window holds for one window of data (the CWR state
/// of Linux and ns-3: neither growth nor a second cut) and moves again once
/// the cumulative ACK passes what was sent at the cut.
#[test]
fn ecn_cut_holds_the_window_until_the_cut_window_is_acknowledged() {
    let dctcp = cfg(TransportKind::Dctcp);
    let ecn_tcp = TransportConfig {
        ecn: true,
        ..cfg(TransportKind::Tcp)
    };
    for c in [dctcp, ecn_tcp] {
        let mut f = FlowSender::new(1, 0, 1, 1000, 0, 0, &c);
        for _ in 0..10 {
            f.take_seq(0);
        }
        // First ACK marked: alpha 1 (DCTCP: cwnd x (1 - 1/2)) or NewReno's
        // halving of what is in flight (RFC 3168 6.1.2 with RFC 5681 (4): 9
        // of the 10 sent are unacknowledged after this ACK).
        f.on_ack(Ack::cumulative(1, true), 10, &c);
        let cut = if c.kind == TransportKind::Dctcp {
            5.0
        } else {
            4.5
        };
        assert!((f.cwnd - cut).abs() < 1e-9, "{:?}: cwnd {}", c.kind, f.cwnd);
        // The rest of the first window, marked or not: no growth, no cut.
        for a in 2..=10 {
            f.on_ack(Ack::cumulative(a, a % 2 == 0), 10 + a as u64, &c);
            assert!(
                (f.cwnd - cut).abs() < 1e-9,
                "{:?}: ack {a} cwnd {}",
                c.kind,
                f.cwnd
            );
            while f.can_send() {
                f.take_seq(10 + a as u64);
            }
        }
        // Past the cut window: an unmarked ACK grows (congestion avoidance).
        f.on_ack(Ack::cumulative(11, false), 30, &c);
        assert!(
            (f.cwnd - (cut + 1.0 / cut)).abs() < 1e-9,
            "{:?}: cwnd {}",
            c.kind,
            f.cwnd
        );
        // And a marked one cuts again.
        let before = f.cwnd;
        f.on_ack(Ack::cumulative(12, true), 31, &c);
        assert!(f.cwnd < before, "{:?}: cwnd {} not cut", c.kind, f.cwnd);
    }
}

#[test]
fn timeout_resets_window_and_pfabric_keeps_it() {
    let c = cfg(TransportKind::Tcp);
    let mut f = FlowSender::new(1, 0, 1, 100, 0, 0, &c);
    f.take_seq(0);
    let rto = c.min_rto_slots() as u64;
    assert!(!f.check_timeout(rto - 1, &c));
    assert!(f.check_timeout(rto, &c));
    assert_eq!(f.cwnd, 1.0);
    assert_eq!(f.take_seq(rto), 0);
    let p = TransportConfig {
        init_cwnd: 12,
        ..cfg(TransportKind::Pfabric)
    };
    let mut g = FlowSender::new(2, 0, 1, 100, 0, 0, &p);
    g.take_seq(0);
    let rto = p.min_rto_slots() as u64;
    assert!(g.check_timeout(rto, &p));
    assert_eq!(g.cwnd, 12.0);
    // pFabric's timer does not back off.
    g.take_seq(rto);
    assert!(g.check_timeout(2 * rto, &p));
}

#[test]
fn completion_on_final_ack() {
    let c = cfg(TransportKind::Tcp);
    let mut f = FlowSender::new(1, 0, 1, 3, 0, 10, &c);
    for _ in 0..3 {
        f.take_seq(10);
    }
    assert_eq!(
        f.on_ack(Ack::cumulative(3, false), 20, &c),
        AckOutcome::Completed
    );
    assert_eq!(f.finish, Some(20));
    assert!(!f.can_send());
    assert_eq!(
        f.on_ack(Ack::cumulative(3, false), 21, &c),
        AckOutcome::Stale
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever the RTT samples, the timer stays within [floor, ceiling]
    /// and each backoff doubles it (up to the ceiling).
    #[test]
    fn rto_within_bounds(samples in prop::collection::vec(1.0f64..200_000.0, 1..40),
                         backoffs in 0usize..12) {
        let c = cfg(TransportKind::Tcp);
        let mut e = RttEstimator::new(&c);
        for s in samples {
            e.sample(s);
            prop_assert!(e.rto >= c.min_rto_slots() && e.rto <= c.max_rto_slots());
        }
        for _ in 0..backoffs {
            let before = e.rto;
            e.back_off();
            prop_assert_eq!(e.rto, (before * 2.0).min(c.max_rto_slots()));
        }
    }

    /// Any pattern of first-transmission losses in a flow is repaired, and
    /// unless the timer had to fire every lost packet is resent once and
    /// any other packet at most once, by NextSeg rule 3 after the flow's
    /// last new packet (with nothing else to send, ns-3 resends the lowest
    /// packet neither SACKed nor resent, lost or not). The timer
    /// has to fire only where too few packets follow a loss for three SACK
    /// blocks: a loss among the last packets, or two close together while
    /// the window is at its floor of two (halving the pipe, as ns-3 does,
    /// takes a window of 8 to 2).
    #[test]
    fn sack_resends_only_what_was_lost(size in 20u32..300,
                                       drops in prop::collection::btree_set(0u32..300, 0..12)) {
        let drops: Vec<u32> = drops.into_iter().filter(|&d| d < size).collect();
        let c = cfg(TransportKind::Tcp);
        let (f, sends) = run_lossy_traced(size, &drops, &c, 20, 2_000_000);
        prop_assert!(f.finish.is_some());
        prop_assert!(f.retransmits as usize >= drops.len());
        if f.timeouts == 0 {
            let (n, last_new) = send_counts(&sends, size);
            for (&s, &k) in &n {
                prop_assert_eq!(k, if drops.contains(&s) { 2 } else { k.min(2) }, "seq {}", s);
            }
            let mut seen = HashSet::new();
            for &(t, s) in &sends {
                if !seen.insert(s) && !drops.contains(&s) {
                    prop_assert!(t > last_new, "{} resent at {} before the last new packet at {}", s, t, last_new);
                }
            }
        }
        let spaced = drops.windows(2).all(|w| w[1] - w[0] >= 4);
        if spaced && drops.iter().all(|&d| d + 4 < size) {
            prop_assert_eq!(f.timeouts, 0, "drops {:?}", drops);
        }
    }
}

/// NextSeg rule 3 as ns-3 has it: in fast recovery, with nothing marked
/// lost left and no new data, the lowest packet neither SACKed nor resent
/// goes again. A loss among the last three packets (no three SACKs can
/// ever follow it) is then repaired in the recovery of an earlier hole,
/// not after the 10 ms timer.
#[test]
fn a_tail_loss_is_resent_within_the_recovery_of_an_earlier_hole() {
    let c = cfg(TransportKind::Tcp);
    // 6 packets, 1 and 5 lost: 2, 3, 4 mark 1 lost; nothing can mark 5.
    let f = run_lossy(6, &[1, 5], &c, 20, 100_000);
    assert!(f.finish.is_some());
    assert_eq!((f.timeouts, f.retransmits), (0, 2));
    // Not outside a recovery: a lone tail loss still needs the timer.
    let g = run_lossy(6, &[5], &c, 20, 100_000);
    assert_eq!((g.timeouts, g.retransmits), (1, 1));
}

/// TCP flow control: with the head lost and everything after it SACKed, a
/// sender puts no new data beyond the cumulative ACK + the receiver's window,
/// however large cwnd is; the window opens again with the cumulative ACK.
#[test]
fn new_data_stays_within_the_receive_window() {
    let c = TransportConfig {
        init_cwnd: 64,
        rcv_wnd_pkts: 16,
        ..cfg(TransportKind::Tcp)
    };
    let mut f = FlowSender::new(1, 0, 1, 1000, 0, 0, &c);
    let mut sent = Vec::new();
    while f.can_send() {
        sent.push(f.take_seq(0));
    }
    assert_eq!(
        sent,
        (0..16).collect::<Vec<u32>>(),
        "a window of 64 but a receive window of 16"
    );
    // Packet 0 lost; 1..16 SACKed: the recovery resends 0 and sends nothing new.
    for s in 1..16 {
        f.on_ack(
            Ack {
                cum: 0,
                sacked: Some(s),
                ece: false,
            },
            10 + s as u64,
            &c,
        );
    }
    let mut again = Vec::new();
    while f.can_send() {
        again.push(f.take_seq(30));
    }
    assert_eq!(
        again,
        vec![0],
        "only the lost head goes out while the receiver waits for it"
    );
    // The head arrives: the window slides to 16..32.
    f.on_ack(Ack::cumulative(16, false), 40, &c);
    let mut more = Vec::new();
    while f.can_send() {
        more.push(f.take_seq(41));
    }
    assert!(
        !more.is_empty() && more.iter().all(|&s| (16..32).contains(&s)),
        "{more:?}"
    );
}

/// A traced sender records what moved its state: the ECN cut, recovery
/// entry (SACK), retransmissions and the timeout, each with the state
/// after it; an untraced one records nothing.
#[test]
fn a_traced_sender_records_cuts_recovery_retransmissions_and_timeouts() {
    let c = TransportConfig {
        ecn: true,
        ..cfg(TransportKind::Tcp)
    };
    let mut f = FlowSender::new(7, 0, 1, 1000, 0, 0, &c);
    f.trace = Some(Box::default());
    let mut plain = FlowSender::new(8, 0, 1, 1000, 0, 0, &c);
    for g in [&mut f, &mut plain] {
        fill(g, 0);
        g.on_ack(Ack::cumulative(1, true), 5, &c);
        fill(g, 5);
        // 1 lost; 2, 3 and 4 SACKed: recovery, and 1 resent.
        for s in 2..=4 {
            g.on_ack(sack(1, s), 6, &c);
        }
        fill(g, 6);
        assert!(g.check_timeout(6 + c.min_rto_slots() as u64, &c));
    }
    assert!(plain.trace.is_none());
    let events: Vec<(TraceKind, u32)> = f
        .trace
        .as_ref()
        .unwrap()
        .events
        .iter()
        .map(|e| (e.event, e.seq))
        .collect();
    assert_eq!(
        events,
        vec![
            (TraceKind::EcnCut, 1),
            (TraceKind::Ack, 1),
            (TraceKind::Ack, 1),
            (TraceKind::Recovery, 1),
            (TraceKind::Rtx, 1),
            (TraceKind::Rto, 1),
        ]
    );
    let t = &f.trace.as_ref().unwrap().events;
    assert!(t.iter().all(|e| e.flow == 7));
    assert_eq!(t[0].cwnd, 4.5, "half of the 9 in flight");
    assert!(t[3].in_recovery && !t[0].in_recovery);
    assert_eq!(t[5].cwnd, 1.0);
    assert_eq!(f.timeouts, plain.timeouts);
    assert_eq!(f.retransmits, plain.retransmits);
}
