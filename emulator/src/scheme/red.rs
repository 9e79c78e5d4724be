//! RED (Floyd & Jacobson): drop (or, with ECN, mark) with a probability that rises
//! linearly from 0 at `min_th` to `max_p` at `max_th` of the EWMA queue length;
//! at or above `max_th` every packet is dropped (a hard drop, marked or not).
//!
//! Two variants ([`RedVariant`]):
//! - `Floyd` (the default) is RED as Floyd and Jacobson wrote it and as ns-3's
//!   `RedQueueDisc` runs it with `Gentle` off and `Wait` on: the curve's
//!   probability p_b is spread by the count of packets since the last drop or
//!   mark (p_a = 0 while count x p_b < 1, then p_b / (2 - count x p_b), so
//!   drops come about evenly spaced), the count restarts when the average
//!   first crosses `min_th` (that packet passes), nothing is dropped early
//!   while the port holds at most one packet, and the average decays over the
//!   time the port sat idle as if a packet of the slot's size had arrived to
//!   an empty queue in every idle slot (avg x (1 - w)^(m + 1)).
//! - `Fixed` applies p_b to every packet as configured (no count, no idle
//!   decay), so the measured drop rate follows the curve directly: the
//!   calibration the accuracy tests check.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::route::TableRoute;
use super::{Admission, Enqueue, FifoSchedule, PatternRouter, QueueBank, RouterPorts, SingleQueue};
use crate::packet::{CE, ECT, Packet, PortId, QueueId, Slot};

/// How the curve's probability is applied (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RedVariant {
    #[default]
    Floyd,
    Fixed,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedParams {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    /// EWMA weight w_q.
    pub weight: f64,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
    pub variant: RedVariant,
}

impl RedParams {
    /// The configured curve: drop/mark probability at average queue `avg`.
    pub fn probability(&self, avg: f64) -> f64 {
        if avg < self.min_th {
            0.0
        } else if avg >= self.max_th {
            1.0
        } else {
            self.max_p * (avg - self.min_th) / (self.max_th - self.min_th)
        }
    }
}

pub struct RedEnqueue {
    pub params: RedParams,
    /// EWMA of the queue length, per port.
    pub avg: Vec<f64>,
    /// One generator per port: all RED state is per port, so a switch split
    /// across workers by output port draws exactly what it draws whole.
    rng: Vec<SmallRng>,
    /// Floyd: per port, packets since the last early drop or mark.
    count: Vec<u32>,
    /// Floyd: per port, whether the average was in [min_th, max_th) with
    /// more than one packet queued at the previous arrival.
    old: Vec<bool>,
    /// Floyd: per port, the first slot the port was empty, while it is.
    idle_since: Vec<Option<Slot>>,
}

impl RedEnqueue {
    pub fn new(params: RedParams, ports: usize, seed: u64) -> Self {
        RedEnqueue {
            params,
            avg: vec![0.0; ports],
            rng: (0..ports as u64)
                .map(|p| SmallRng::seed_from_u64(seed ^ p.wrapping_mul(0x9E37_79B9_7F4A_7C15)))
                .collect(),
            count: vec![0; ports],
            old: vec![false; ports],
            // As ns-3: a port starts idle (its average is 0 either way).
            idle_since: vec![Some(0); ports],
        }
    }

    /// Floyd's drop decision for one arrival at port `i`, `len` packets
    /// queued before it: `None` admits it, `Some(forced)` drops or marks it.
    fn floyd(&mut self, i: usize, len: u32, now: Slot) -> Option<bool> {
        let w = self.params.weight;
        let m = match self.idle_since[i].take() {
            Some(since) => now.saturating_sub(since),
            None => 0,
        };
        let decay = if m == 0 {
            1.0 - w
        } else {
            (1.0 - w).powf(m as f64 + 1.0)
        };
        let avg = &mut self.avg[i];
        *avg = *avg * decay + w * len as f64;
        let avg = *avg;
        self.count[i] = self.count[i].saturating_add(1);
        if avg < self.params.min_th || len <= 1 {
            self.old[i] = false;
            return None;
        }
        if avg >= self.params.max_th {
            return Some(true);
        }
        if !self.old[i] {
            self.old[i] = true;
            self.count[i] = 1;
            return None;
        }
        let pb = self.params.probability(avg);
        let cp = self.count[i] as f64 * pb;
        let pa = if cp < 1.0 {
            0.0
        } else if cp < 2.0 {
            pb / (2.0 - cp)
        } else {
            1.0
        };
        if pa > 0.0 && self.rng[i].r#gen::<f64>() <= pa {
            self.count[i] = 0;
            return Some(false);
        }
        None
    }
}

impl Enqueue for RedEnqueue {
    #[inline]
    fn enqueue(
        &mut self,
        mut pkt: Packet,
        port: PortId,
        queue: QueueId,
        bank: &mut QueueBank,
        now: Slot,
    ) -> Admission {
        let i = port as usize;
        let len = bank.port(port).len;
        let hit = match self.params.variant {
            RedVariant::Floyd => self.floyd(i, len, now),
            RedVariant::Fixed => {
                let avg = &mut self.avg[i];
                *avg += self.params.weight * (len as f64 - *avg);
                // A full port drops before the draw, as before the variants:
                // the same random stream, so fixed runs stay as they were.
                if bank.port(port).is_full() {
                    return Admission::Dropped;
                }
                let p = self.params.probability(*avg);
                if p > 0.0 && (p >= 1.0 || self.rng[i].r#gen::<f64>() < p) {
                    Some(p >= 1.0)
                } else {
                    None
                }
            }
        };
        let pq = bank.port(port);
        if pq.is_full() {
            return Admission::Dropped;
        }
        match hit {
            None => {
                pq.push(queue, pkt);
                Admission::Accepted
            }
            Some(false) if self.params.ecn && pkt.has(ECT) => {
                pkt.flags |= CE;
                pq.push(queue, pkt);
                Admission::Marked
            }
            Some(_) => Admission::Dropped,
        }
    }

    #[inline]
    fn drained(&mut self, port: PortId, now: Slot) {
        if self.params.variant == RedVariant::Floyd {
            self.idle_since[port as usize] = Some(now + 1);
        }
    }
}

pub type RedRouter = PatternRouter<TableRoute, SingleQueue, RedEnqueue, FifoSchedule>;

pub fn router(ports: &RouterPorts, route: TableRoute, params: RedParams, seed: u64) -> RedRouter {
    let e = RedEnqueue::new(params, ports.buffers.len(), seed);
    PatternRouter::new(ports, route, SingleQueue, e, FifoSchedule)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheme::QueueBank;

    fn params(variant: RedVariant, ecn: bool) -> RedParams {
        RedParams {
            min_th: 20.0,
            max_th: 60.0,
            max_p: 0.1,
            weight: 0.002,
            ecn,
            variant,
        }
    }

    /// Holds port 0 at `level` packets and offers `n` packets (each admitted
    /// one leaves again); returns the arrival indices that were hit.
    fn hits_at(
        red: &mut RedEnqueue,
        bank: &mut QueueBank,
        level: u32,
        n: u32,
        now: Slot,
    ) -> Vec<u32> {
        let pkt = Packet {
            flags: ECT,
            ..Packet::default()
        };
        while bank.ports[0].len < level {
            bank.ports[0].push(0, pkt);
        }
        let mut hit = Vec::new();
        for i in 0..n {
            match red.enqueue(pkt, 0, 0, bank, now) {
                Admission::Accepted => {
                    bank.ports[0].pop(0);
                }
                Admission::Marked => {
                    bank.ports[0].pop(0);
                    hit.push(i);
                }
                _ => hit.push(i),
            }
        }
        hit
    }

    #[test]
    fn floyd_spreads_drops_by_the_count_since_the_last() {
        // Queue held at 40: p_b = 0.05 once the average has settled.
        for ecn in [false, true] {
            let mut red = RedEnqueue::new(params(RedVariant::Floyd, ecn), 1, 7);
            let mut bank = QueueBank::new(&[1000], 1);
            hits_at(&mut red, &mut bank, 40, 5000, 0);
            let pb = red.params.probability(red.avg[0]);
            assert!((pb - 0.05).abs() < 0.002, "{pb}");
            let hits = hits_at(&mut red, &mut bank, 40, 40_000, 0);
            let gaps: Vec<u32> = hits.windows(2).map(|w| w[1] - w[0]).collect();
            let (lo, hi) = (gaps.iter().min().unwrap(), gaps.iter().max().unwrap());
            // p_a = 0 until count x p_b reaches 1, and 1 once it reaches 2.
            assert!(*lo >= 19 && *hi <= 40, "gaps {lo}..{hi}");
            let rate = hits.len() as f64 / 40_000.0;
            assert!(rate > pb / 2.0 && rate < pb, "rate {rate} against p_b {pb}");
            // Fixed draws p_b on every packet: geometric gaps, many short ones.
            let mut fixed = RedEnqueue::new(params(RedVariant::Fixed, ecn), 1, 7);
            let mut bank = QueueBank::new(&[1000], 1);
            hits_at(&mut fixed, &mut bank, 40, 5000, 0);
            let hits = hits_at(&mut fixed, &mut bank, 40, 40_000, 0);
            let short = hits.windows(2).filter(|w| w[1] - w[0] < 19).count();
            assert!(
                short > hits.len() / 4,
                "{short} of {} gaps short",
                hits.len()
            );
        }
    }

    #[test]
    fn floyd_average_decays_over_idle_time() {
        let mut red = RedEnqueue::new(params(RedVariant::Floyd, false), 1, 7);
        let mut bank = QueueBank::new(&[1000], 1);
        hits_at(&mut red, &mut bank, 50, 5000, 0);
        let before = red.avg[0];
        assert!((before - 50.0).abs() < 0.5, "{before}");
        while bank.ports[0].pop(0).is_some() {}
        red.drained(0, 100);
        // Empty from slot 101; a packet arrives in slot 1101 to an empty port.
        let pkt = Packet::default();
        assert_eq!(red.enqueue(pkt, 0, 0, &mut bank, 1101), Admission::Accepted);
        let expected = before * (1.0f64 - 0.002).powi(1001);
        assert!(
            (red.avg[0] - expected).abs() < 1e-9,
            "{} vs {expected}",
            red.avg[0]
        );
        // Fixed ignores idle time: one arrival moves the average by w only.
        let mut fixed = RedEnqueue::new(params(RedVariant::Fixed, false), 1, 7);
        let mut bank = QueueBank::new(&[1000], 1);
        hits_at(&mut fixed, &mut bank, 50, 5000, 0);
        while bank.ports[0].pop(0).is_some() {}
        let before = fixed.avg[0];
        fixed.drained(0, 100);
        fixed.enqueue(pkt, 0, 0, &mut bank, 1101);
        assert!((fixed.avg[0] - before * 0.998).abs() < 1e-9);
    }

    #[test]
    fn floyd_spares_the_crossing_packet_and_a_nearly_empty_port() {
        let pkt = Packet::default();
        // Average 50 (p_b 0.75) and a count far past 2 / p_b: a sure drop,
        // unless the port holds at most one packet.
        let mut bank = QueueBank::new(&[1000], 1);
        let mut red = RedEnqueue::new(params(RedVariant::Floyd, false), 1, 7);
        red.idle_since[0] = None;
        bank.ports[0].push(0, pkt);
        red.avg[0] = 50.0;
        red.old[0] = true;
        red.count[0] = 1000;
        assert_eq!(red.enqueue(pkt, 0, 0, &mut bank, 5), Admission::Accepted);
        assert!(!red.old[0]);
        bank.ports[0].push(0, pkt);
        red.avg[0] = 50.0;
        red.old[0] = true;
        red.count[0] = 1000;
        assert_eq!(red.enqueue(pkt, 0, 0, &mut bank, 5), Admission::Dropped);
        // w = 1 (the average is the queue): 40 queued, the first arrival over
        // min_th restarts the count and passes.
        let mut red = RedEnqueue::new(
            RedParams {
                weight: 1.0,
                max_p: 1.0,
                ..params(RedVariant::Floyd, false)
            },
            1,
            7,
        );
        red.idle_since[0] = None;
        let mut bank = QueueBank::new(&[1000], 1);
        while bank.ports[0].len < 40 {
            bank.ports[0].push(0, pkt);
        }
        assert_eq!(red.enqueue(pkt, 0, 0, &mut bank, 6), Admission::Accepted);
        assert_eq!(red.count[0], 1);
        // At max_th and above: dropped, even with ECN.
        while bank.ports[0].len < 60 {
            bank.ports[0].push(0, pkt);
        }
        let mut ecn = RedEnqueue::new(
            RedParams {
                weight: 1.0,
                ..params(RedVariant::Floyd, true)
            },
            1,
            7,
        );
        ecn.idle_since[0] = None;
        let ect = Packet {
            flags: ECT,
            ..Packet::default()
        };
        assert_eq!(ecn.enqueue(ect, 0, 0, &mut bank, 7), Admission::Dropped);
    }
}
