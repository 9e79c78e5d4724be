//! The per-switch PINT stage: what a switch does to a data packet as it leaves
//! an egress port, besides queueing it.
//!
//! - Path tracing: the switch runs its PINT path encoder (`pint::path`) on the
//!   digest. The digest rides in the IPv4 Identification field, modelled as
//!   `Packet::data[0..2]` (little-endian u16): data-centre TCP sets DF, so the
//!   ID is unused for reassembly (RFC 6864 lets atomic datagrams carry any
//!   value), it survives every L3 hop, and a switch rewrites it with one
//!   incremental checksum update. The IPv6 flow label (20 bits) would do for
//!   IPv6; the emulator's frames are IPv4. The hop number is the packet's hop
//!   count + 1 (a real switch: initial TTL - TTL + 1), the packet id a hash of
//!   (flow, sequence), fields no switch changes.
//! - HPCC feedback: the switch computes its egress port's utilisation
//!   U = qlen / (B T) + txRate / B (txRate an EWMA of departures over the base
//!   RTT T) and folds it into the packet's feedback: exact (INT, HPCC's per-hop
//!   records reduced to their maximum, which is all HPCC uses) or as PINT's 8-bit
//!   code (`pint::aggregate::UtilisationCodec`, max of codes). With HPCC-PINT the
//!   8-bit code is the ID's other byte, so path tracing gets the low 8 bits.
//!
//! The stage holds only per-port rate estimates; everything else is a pure
//! function of the packet, so it runs in every partition without coordination.

use std::sync::Arc;

use serde::Deserialize;

use pint::aggregate::UtilisationCodec;
use pint::compress::ValueCodec;
use pint::hash::mix64;
use pint::latency::{LatencyConfig, LatencyEncoder};
use pint::path::{PathEncoder, PathScheme, PathTracingConfig};

use crate::config::{TransportConfig, TransportKind};
use crate::endpoint::transport::FlowSender;
use crate::endpoint::transport::hpcc::{self, FEEDBACK_OFFSET, HpccFeedback};
use crate::fabric::topology::Topology;
use crate::packet::{ACK, EndpointId, Packet, PortId, Slot};

/// The `[pint]` section of an experiment.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PintStageConfig {
    /// Bits of the IPv4 ID used for the path digest; 0: no path tracing.
    pub path_bits: u32,
    /// Path length the layer probabilities are tuned for (the fabric's
    /// longest path in switches: 5 in a fat tree).
    pub path_hops: u32,
    /// Hash seed shared with the collector's decoder.
    pub seed: u64,
    /// Bits of the IPv4 ID above the path digest for the hop-latency code
    /// (PINT's dynamic per-flow query); 0: off.
    pub latency_bits: u32,
    /// Range of the multiplicative latency codec, ns.
    pub latency_min_ns: f64,
    pub latency_max_ns: f64,
    /// Measure the latency query: the last switch of each path acts as the sink
    /// (KLL sketch per flow and hop) and every switch records its exact hop
    /// latencies; the run writes `pint_latency.csv` (relative errors by packets).
    pub latency_probe: bool,
}

impl Default for PintStageConfig {
    fn default() -> Self {
        PintStageConfig {
            path_bits: 0,
            path_hops: 5,
            seed: 2020,
            latency_bits: 0,
            latency_min_ns: 100.0,
            latency_max_ns: 1_000_000.0,
            latency_probe: false,
        }
    }
}

impl PintStageConfig {
    pub fn validate(&self, transport: &TransportConfig) -> Result<(), String> {
        let pint_hpcc = transport.kind == TransportKind::Hpcc && transport.hpcc.feedback == HpccFeedback::Pint;
        let room = if pint_hpcc { 8 } else { 16 };
        if self.path_bits + self.latency_bits > room {
            return Err(format!(
                "pint.path_bits + latency_bits = {} does not fit: the IPv4 ID has {room} bits left{}",
                self.path_bits + self.latency_bits,
                if pint_hpcc { " beside HPCC-PINT's 8-bit utilisation" } else { "" }
            ));
        }
        if self.path_bits > 0 {
            PathScheme::new(self.path_config()).map_err(|e| format!("pint: {}", e.0))?;
        }
        if self.latency_bits > 0 {
            self.latency_config().map_err(|e| format!("pint latency: {e}"))?;
        }
        if self.latency_probe && self.latency_bits == 0 {
            return Err("pint.latency_probe needs latency_bits > 0".into());
        }
        Ok(())
    }

    pub fn latency_config(&self) -> Result<LatencyConfig, String> {
        Ok(LatencyConfig {
            codec: ValueCodec::multiplicative(self.latency_bits, self.latency_min_ns, self.latency_max_ns)
                .map_err(|e| e.0)?,
            seed: self.seed,
        })
    }

    pub fn path_config(&self) -> PathTracingConfig {
        PathTracingConfig::hybrid(self.path_bits, self.path_hops.clamp(1, 64), self.seed)
    }

    /// Whether switches run the stage at all.
    pub fn active(&self, transport: &TransportConfig) -> bool {
        self.path_bits > 0 || self.latency_bits > 0 || transport.kind == TransportKind::Hpcc
    }
}

/// Bytes of every packet's payload the telemetry takes: INT's header with
/// HPCC-INT, nothing with PINT (its fields live in the IPv4 ID).
pub fn int_overhead_bytes(transport: &TransportConfig) -> u32 {
    if transport.kind == TransportKind::Hpcc && transport.hpcc.feedback == HpccFeedback::Int {
        transport.hpcc.int_bytes
    } else {
        0
    }
}

/// HPCC's base RTT T in slots: the longest host-to-host path's latency plus the
/// ACK path's delay.
pub fn base_rtt_slots(topo: &Topology, tables: &[Vec<Vec<PortId>>], ack_delay_slots: u32) -> f64 {
    let n = topo.endpoints.len() as EndpointId;
    let mut worst = 0;
    for s in 0..n {
        for d in 0..n {
            if s != d {
                worst = worst.max(topo.path_latency(s, d, tables));
            }
        }
    }
    (worst + u64::from(ack_delay_slots)) as f64
}

/// The packet id both ends hash: flow and sequence (retransmissions repeat it).
#[inline]
pub fn packet_id(pkt: &Packet) -> u64 {
    mix64((u64::from(pkt.flow) << 32) | u64::from(pkt.seq))
}

/// The path digest a packet carries (the IPv4 ID as the stage left it).
#[inline]
pub fn path_digest(pkt: &Packet) -> u64 {
    u64::from(u16::from_le_bytes([pkt.data[0], pkt.data[1]]))
}

/// Per-port transmit-rate estimate.
#[derive(Debug, Clone, Copy, Default)]
struct PortRate {
    last: Option<Slot>,
    /// Packets per slot.
    rate: f64,
}

/// One partition's stage: encoders per local router, rate state per port.
#[derive(Debug)]
pub struct PintStage {
    encoders: Vec<Option<PathEncoder>>,
    rates: Vec<Vec<PortRate>>,
    hpcc: Option<HpccFeedback>,
    codec: UtilisationCodec,
    /// HPCC's base RTT T in slots.
    base_rtt: f64,
    latency: Option<LatencyEncoder>,
    path_bits: u32,
    slot_ns: f64,
    /// Per local router and port: the port leads to a host (this switch is the sink).
    to_host: Vec<Vec<bool>>,
    probe: Option<std::sync::Arc<std::sync::Mutex<crate::pint_probe::LatencyProbe>>>,
}

impl PintStage {
    /// `switches`: global switch id and, per port, whether it leads to a host.
    pub fn new(
        cfg: &PintStageConfig,
        transport: &TransportConfig,
        switches: &[(u32, Vec<bool>)],
        base_rtt_slots: f64,
        probe: Option<std::sync::Arc<std::sync::Mutex<crate::pint_probe::LatencyProbe>>>,
    ) -> Self {
        let scheme = (cfg.path_bits > 0)
            .then(|| Arc::new(PathScheme::new(cfg.path_config()).expect("validated pint config")));
        PintStage {
            encoders: switches
                .iter()
                .map(|(id, _)| scheme.as_ref().map(|s| PathEncoder::new(s.clone(), *id)))
                .collect(),
            rates: switches.iter().map(|(_, ports)| vec![PortRate::default(); ports.len()]).collect(),
            hpcc: (transport.kind == TransportKind::Hpcc).then_some(transport.hpcc.feedback),
            codec: UtilisationCodec::hpcc(cfg.seed),
            base_rtt: base_rtt_slots.max(1.0),
            latency: (cfg.latency_bits > 0)
                .then(|| LatencyEncoder::new(cfg.latency_config().expect("validated pint config"))),
            path_bits: cfg.path_bits,
            slot_ns: transport.slot_ns,
            to_host: switches.iter().map(|(_, p)| p.clone()).collect(),
            probe,
        }
    }

    /// The switch at local index `router` sends `pkt` out of `port` at `now`;
    /// `queued` packets are left behind it, `capacity` is the link rate in
    /// packets per slot.
    #[inline]
    pub fn on_transmit(&mut self, router: usize, port: usize, queued: u32, capacity: f64, now: Slot, pkt: &mut Packet) {
        let r = &mut self.rates[router][port];
        // EWMA over the base RTT of one packet per inter-departure gap.
        let gap = r.last.map_or(self.base_rtt, |l| (now - l).max(1) as f64);
        let w = (gap / self.base_rtt).min(1.0);
        r.rate = (1.0 - w) * r.rate + w * (1.0 / gap).min(capacity);
        r.last = Some(now);
        let rate = r.rate;
        if pkt.has(ACK) {
            return;
        }
        let hop = u32::from(pkt.hops) + 1;
        let id = packet_id(pkt);
        if let Some(e) = &self.encoders[router] {
            let d = e.encode(path_digest(pkt), id, hop);
            pkt.data[0..2].copy_from_slice(&(d as u16).to_le_bytes());
        }
        if let Some(l) = &self.latency {
            self.hop_latency(l, router, port, hop, id, now, pkt);
        }
        let Some(mode) = self.hpcc else { return };
        let u = f64::from(queued) / (capacity * self.base_rtt) + rate / capacity;
        match mode {
            HpccFeedback::Int => {
                if hop <= 1 {
                    pkt.data[FEEDBACK_OFFSET..FEEDBACK_OFFSET + 4].fill(0);
                }
                hpcc::write_int(pkt, u);
            }
            HpccFeedback::Pint => {
                let old = u32::from(pkt.data[FEEDBACK_OFFSET]);
                pkt.data[FEEDBACK_OFFSET] = self.codec.encode(old, id, hop, u) as u8;
                pkt.data[FEEDBACK_OFFSET + 1] = 1;
            }
        }
    }

    /// Sender side: an HPCC flow reacts to the feedback its ACK echoes.
    pub fn on_ack(&self, ack: &Packet, flow: &mut FlowSender, now: Slot, transport: &TransportConfig) {
        let Some(mode) = self.hpcc else { return };
        if flow.finish.is_some() {
            return;
        }
        if let Some(u) = hpcc::feedback(ack, mode, &self.codec) {
            hpcc::on_feedback(flow, u, now, self.base_rtt, &transport.hpcc, transport.max_cwnd as f64);
        }
    }

    /// PINT's latency query: the hop's latency (since the previous switch sent the
    /// packet, or the host for hop 1: link, queueing and serialisation) goes into the
    /// ID's bits above the path digest. `data[2..4]` keeps the low 16 bits of the slot
    /// the previous switch sent the packet (emulator bookkeeping, a real switch would
    /// use its own timestamps).
    #[allow(clippy::too_many_arguments)]
    fn hop_latency(&self, l: &LatencyEncoder, router: usize, port: usize, hop: u32, id: u64, now: Slot, pkt: &mut Packet) {
        let prev = if hop <= 1 { pkt.stamp as u16 } else { u16::from_le_bytes([pkt.data[2], pkt.data[3]]) };
        let slots = (now as u16).wrapping_sub(prev);
        pkt.data[2..4].copy_from_slice(&(now as u16).to_le_bytes());
        let ns = f64::from(slots) * self.slot_ns;
        let ident = u64::from(u16::from_le_bytes([pkt.data[0], pkt.data[1]]));
        let shift = self.path_bits;
        let code = l.encode(ident >> shift, id, hop, ns);
        let ident = (ident & ((1u64 << shift) - 1)) | (code << shift);
        pkt.data[0..2].copy_from_slice(&(ident as u16).to_le_bytes());
        if let Some(p) = &self.probe {
            let mut p = p.lock().expect("probe lock");
            p.exact(pkt.flow, hop, ns);
            if self.to_host[router][port] {
                p.sink(pkt.flow, hop, id, ident >> shift);
            }
        }
    }

    pub fn codec(&self) -> &UtilisationCodec {
        &self.codec
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pint::path::{DecoderLimits, PathDecoder, TraceStatus, Universe};

    fn tcp() -> TransportConfig {
        TransportConfig::default()
    }

    #[test]
    fn path_digest_decodes_to_the_switches_crossed() {
        let cfg = PintStageConfig { path_bits: 16, ..PintStageConfig::default() };
        let path = [3u32, 9, 17, 11, 4];
        let switches: Vec<(u32, Vec<bool>)> = path.iter().map(|&s| (s, vec![false; 4])).collect();
        let mut stage = PintStage::new(&cfg, &tcp(), &switches, 20.0, None);
        let scheme = Arc::new(PathScheme::new(cfg.path_config()).unwrap());
        let uni = Arc::new(Universe::new(&scheme, (0..20).collect()).unwrap());
        let mut dec = PathDecoder::new(scheme, uni, 5, DecoderLimits::default()).unwrap();
        let mut st = TraceStatus::Decoding;
        for seq in 0..500u32 {
            let mut p = Packet { flow: 77, seq, data: [0xee; 8], ..Packet::default() };
            for r in 0..path.len() {
                stage.on_transmit(r, 1, 0, 1.0, u64::from(seq), &mut p);
                p.hops += 1;
            }
            st = dec.observe(packet_id(&p), path_digest(&p));
            if st != TraceStatus::Decoding {
                break;
            }
        }
        assert_eq!(st, TraceStatus::Decoded);
        assert_eq!(dec.path(), Some(path.to_vec()));
    }

    #[test]
    fn utilisation_of_a_busy_port_with_a_queue() {
        let mut t = tcp();
        t.kind = TransportKind::Hpcc;
        let mut stage = PintStage::new(&PintStageConfig::default(), &t, &[(1, vec![false; 2]), (2, vec![false; 2])], 10.0, None);
        // Port 0 of switch 1 sends every slot with 10 packets queued: U = 10/10 + 1 = 2.
        let mut p = Packet::default();
        for now in 0..200 {
            p = Packet { seq: now as u32, ..Packet::default() };
            stage.on_transmit(0, 0, 10, 1.0, now, &mut p);
        }
        let codec = *stage.codec();
        let u = hpcc::feedback(&p, HpccFeedback::Int, &codec).unwrap();
        assert!((u - 2.0).abs() < 0.01, "{u}");
        // A second, idle hop (one packet every 20 slots, no queue) does not lower the maximum.
        p.hops = 1;
        stage.on_transmit(1, 0, 0, 1.0, 0, &mut p);
        assert!((hpcc::feedback(&p, HpccFeedback::Int, &codec).unwrap() - 2.0).abs() < 0.01);
    }

    #[test]
    fn pint_feedback_is_within_the_code_step() {
        let mut t = tcp();
        t.kind = TransportKind::Hpcc;
        t.hpcc.feedback = HpccFeedback::Pint;
        let mut stage = PintStage::new(&PintStageConfig::default(), &t, &[(1, vec![false])], 10.0, None);
        let mut p = Packet::default();
        for now in 0..200 {
            p = Packet { seq: now as u32, ..Packet::default() };
            stage.on_transmit(0, 0, 5, 1.0, now, &mut p);
        }
        let codec = *stage.codec();
        let u = hpcc::feedback(&p, HpccFeedback::Pint, &codec).unwrap();
        assert!((u / 1.5 - 1.0).abs() <= codec.relative_error_bound() + 0.01, "{u}");
    }

    #[test]
    fn config_rejects_digests_that_do_not_fit() {
        let mut t = tcp();
        assert!(PintStageConfig { path_bits: 17, ..PintStageConfig::default() }.validate(&t).is_err());
        assert!(PintStageConfig { path_bits: 16, ..PintStageConfig::default() }.validate(&t).is_ok());
        t.kind = TransportKind::Hpcc;
        t.hpcc.feedback = HpccFeedback::Pint;
        let e = PintStageConfig { path_bits: 16, ..PintStageConfig::default() }.validate(&t).unwrap_err();
        assert!(e.contains("8-bit"), "{e}");
        assert!(PintStageConfig { path_bits: 8, ..PintStageConfig::default() }.validate(&t).is_ok());
    }

    #[test]
    fn latency_code_carries_the_writer_hops_latency() {
        let cfg = PintStageConfig { path_bits: 8, latency_bits: 8, ..PintStageConfig::default() };
        let t = tcp();
        let switches = vec![(1, vec![false]), (2, vec![false]), (3, vec![true])];
        let mut stage = PintStage::new(&cfg, &t, &switches, 20.0, None);
        let lat = cfg.latency_config().unwrap();
        let rec = pint::latency::LatencyRecorder::new(lat, 3, 200).unwrap();
        // Sent at slot 100; the switches send it at 103, 110, 130: hop latencies 3, 7, 20 slots.
        let departures = [103u64, 110, 130];
        let mut seen = [false; 3];
        for seq in 0..300u32 {
            let mut p = Packet { flow: 5, seq, stamp: 100, ..Packet::default() };
            for (r, &d) in departures.iter().enumerate() {
                stage.on_transmit(r, 0, 0, 1.0, d, &mut p);
                p.hops += 1;
            }
            let code = path_digest(&p) >> 8;
            let hop = rec.writer(packet_id(&p));
            let want = [3.0, 7.0, 20.0][hop as usize - 1] * t.slot_ns;
            let got = lat.codec.decode(code as u32);
            assert!((got / want - 1.0).abs() <= lat.codec.error_bound() + 1e-9, "hop {hop}: {got} vs {want}");
            seen[hop as usize - 1] = true;
        }
        assert_eq!(seen, [true; 3], "every hop writes sometimes");
        let mut bad = cfg.clone();
        bad.path_bits = 12;
        assert!(bad.validate(&t).is_err());
    }
}
