//! One capture worker: decode -> flow state -> detect -> export, with its own flow table
//! (shared-nothing; PACKET_FANOUT hashes a flow's packets to one worker). Live capture
//! and pcap replay drive the same worker.

use std::sync::Arc;

use arc_swap::ArcSwap;

use crate::capture::FrameMeta;
use crate::capture::afpacket::DELIVERY_BATCH;
use crate::decode::{DecodeError, Decoder, PacketSample, Transport};
use crate::detect::{DetectionSettings, Transition};
use crate::export::{CongestionState, Event, EventSink, FlowId, FlowRate, MacAddr, PortCongestion};
use crate::flow::estimator::{SampleOutcome, SeqStep, WindowParams};
use crate::flow::{
    CompactKey, EstimatorKind, FlowKey, FlowTable, FlowView, NO_PORT, NO_SLOT, Quiet, RateEstimate,
};
use crate::forwarding::{CompiledMap, SwitchIdx};
use crate::metrics::{Metrics, WorkerCounters};

#[derive(Clone, Copy, Debug)]
pub struct WorkerConfig {
    pub worker_id: usize,
    pub window: WindowParams,
    pub max_flows: usize,
    /// Flows idle this long are forgotten (their load leaves the port); u64::MAX: never.
    pub idle_timeout_ns: u64,
    /// A flow silent for this many of its mean sample gaps (at least `quiet_min_ns`) stops
    /// adding to its port's load and is reported once at rate 0: it ended, moved off this
    /// switch, or stalled. Its state stays until `idle_timeout_ns`. 0: never.
    pub quiet_after_gaps: u32,
    pub quiet_min_ns: u64,
    /// Sampling ratio assumed for a switch before any TCP flow has measured it.
    pub default_sampling_ratio: f64,
}

impl Default for WorkerConfig {
    fn default() -> Self {
        WorkerConfig {
            worker_id: 0,
            window: WindowParams::default(),
            max_flows: 1 << 18,
            idle_timeout_ns: 2_000_000_000,
            quiet_after_gaps: 16,
            quiet_min_ns: 10_000_000,
            default_sampling_ratio: 1.0,
        }
    }
}

/// Prefetch distance of [`Worker::on_frames`], in frames: a frame's index entry is
/// prefetched when it is decoded, its flow's hot line PREFETCH_AHEAD frames later, and
/// it is applied PREFETCH_AHEAD frames after that. Long enough to cover a last-level
/// cache miss with other frames' work, short enough that the lines stay in L1.
pub const PREFETCH_AHEAD: usize = 16;
const STAGE_RING: usize = 2 * PREFETCH_AHEAD;

/// One captured frame, for [`Worker::on_frames`].
#[derive(Clone, Copy, Debug)]
pub struct CapturedFrame<'a> {
    pub ts_ns: u64,
    /// VLAN the capture layer stripped (AF_PACKET metadata), if any.
    pub vlan_hint: Option<u16>,
    /// Switch of the capture interface, for frames without an RSPAN VLAN.
    pub iface_switch: Option<SwitchIdx>,
    pub data: &'a [u8],
}

impl<'a> CapturedFrame<'a> {
    /// A ring delivery (up to DELIVERY_BATCH frames) as worker input; the first
    /// `batch.len()` entries are the frames, in order.
    #[inline]
    pub fn from_ring(
        batch: &[(FrameMeta, &'a [u8])],
        iface_switch: Option<SwitchIdx>,
    ) -> [CapturedFrame<'a>; DELIVERY_BATCH] {
        let mut out = [CapturedFrame {
            ts_ns: 0,
            vlan_hint: None,
            iface_switch,
            data: &[],
        }; DELIVERY_BATCH];
        for (o, (meta, data)) in out.iter_mut().zip(batch) {
            o.ts_ns = meta.ts_ns;
            o.vlan_hint = meta.vlan;
            o.data = data;
        }
        out
    }
}

/// A frame decoded and keyed, not yet applied to any state: what the flow's state needs
/// from the sample, kept small (40 bytes; staged frames are copied around): the compact
/// key and its hash, the counter the sample carries, and the MAC the flow's data goes
/// to. The full key is decoded again from the frame in the rare cases that need it (a
/// new flow, confirming an IPv6 match).
#[derive(Clone, Copy, Debug)]
struct FlowSample {
    ck: CompactKey,
    hash: u64,
    /// Sequence number after the segment (TcpSeq), ack number (TcpAck), or IPv4
    /// identification (Untracked; NO_IP_ID for IPv6).
    counter: u32,
    payload_len: u32,
    data_mac: [u8; 6],
    kind: SampleKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SampleKind {
    /// TCP carrying data, SYN or FIN: advances the sequence estimator.
    TcpSeq,
    /// TCP with nothing that advances the sequence (and not a pure ACK).
    TcpNoSeq,
    /// A pure ACK: measures the reverse direction.
    TcpAck,
    /// UDP or another protocol: sampled bytes only.
    Untracked,
    /// Skipped frames (only `kind` is set).
    Malformed,
    NotIp,
    UnknownSwitch,
}

impl FlowSample {
    const fn skipped(kind: SampleKind) -> FlowSample {
        FlowSample {
            ck: CompactKey::EMPTY,
            hash: 0,
            counter: 0,
            payload_len: 0,
            data_mac: [0; 6],
            kind,
        }
    }

    #[inline(always)]
    fn is_flow(&self) -> bool {
        !matches!(
            self.kind,
            SampleKind::Malformed | SampleKind::NotIp | SampleKind::UnknownSwitch
        )
    }
}

/// `counter` of an untracked sample without an IPv4 identification.
const NO_IP_ID: u32 = u32::MAX;

/// Flows examined for expiry per tick: bounds the work of one tick.
const SWEEP_PER_TICK: usize = 4096;
/// Expiry runs at most this often.
const SWEEP_INTERVAL_NS: u64 = 1_000_000;
/// Weight of a new observation in the per-switch sampling-ratio average.
const RATIO_GAIN: f64 = 0.1;

pub struct Worker<D: Decoder> {
    cfg: WorkerConfig,
    decoder: D,
    flows: FlowTable,
    map_source: Arc<ArcSwap<CompiledMap>>,
    map: Arc<CompiledMap>,
    /// This worker's share of each port's load, bits/s.
    partial_bps: Vec<u64>,
    /// Estimated mirror sampling ratio (true bytes / sampled bytes) per switch.
    sampling_ratio: Vec<Option<f64>>,
    settings: Arc<DetectionSettings>,
    sink: Option<EventSink>,
    metrics: Option<Arc<Metrics>>,
    pub counters: WorkerCounters,
    dirty: Vec<u32>,
    last_report_ns: u64,
    sweep_cursor: usize,
    reported_flows: i64,
    last_sweep_ns: u64,
}

impl<D: Decoder> Worker<D> {
    pub fn new(
        cfg: WorkerConfig,
        decoder: D,
        map_source: Arc<ArcSwap<CompiledMap>>,
        settings: Arc<DetectionSettings>,
        sink: Option<EventSink>,
        metrics: Option<Arc<Metrics>>,
    ) -> Self {
        let map = map_source.load_full();
        let mut w = Worker {
            cfg,
            decoder,
            flows: FlowTable::with_capacity(cfg.max_flows),
            map_source,
            partial_bps: Vec::new(),
            sampling_ratio: Vec::new(),
            map,
            settings,
            sink,
            metrics,
            counters: WorkerCounters::default(),
            dirty: Vec::with_capacity(cfg.max_flows),
            last_report_ns: 0,
            sweep_cursor: 0,
            reported_flows: 0,
            last_sweep_ns: 0,
        };
        w.adopt_map();
        w
    }

    pub fn flows(&self) -> &FlowTable {
        &self.flows
    }

    pub fn map(&self) -> &CompiledMap {
        &self.map
    }

    pub fn window(&self) -> &WindowParams {
        &self.cfg.window
    }

    /// Estimated sampling ratio of a switch's mirror, if measured.
    pub fn sampling_ratio(&self, switch: SwitchIdx) -> Option<f64> {
        self.sampling_ratio.get(switch as usize).copied().flatten()
    }

    /// Handle one captured frame. `iface_switch` is the switch of the capture interface,
    /// used when the frame carries no RSPAN VLAN.
    #[inline]
    pub fn on_frame(
        &mut self,
        ts_ns: u64,
        vlan_hint: Option<u16>,
        iface_switch: Option<SwitchIdx>,
        frame: &[u8],
    ) {
        let f = CapturedFrame {
            ts_ns,
            vlan_hint,
            iface_switch,
            data: frame,
        };
        let staged = self.stage(&f);
        self.apply(&staged, NO_SLOT, &f);
    }

    /// Handle captured frames in order, exactly as [`Worker::on_frame`] on each would,
    /// but faster: with many flows nearly every sample misses the cache on its flow
    /// state, so frames are decoded and hashed (and their index entries prefetched)
    /// 2 x PREFETCH_AHEAD frames before they are applied, their flows' hot lines
    /// prefetched PREFETCH_AHEAD frames before, keeping many misses in flight at once.
    pub fn on_frames(&mut self, frames: &[CapturedFrame<'_>]) {
        let n = frames.len();
        let mut ring = [FlowSample::skipped(SampleKind::UnknownSwitch); STAGE_RING];
        // The slot each staged frame's index entry pointed to when its hot line was
        // prefetched: a hint that spares probing the index again.
        let mut hints = [NO_SLOT; STAGE_RING];
        for i in 0..n + STAGE_RING {
            // Frame i - STAGE_RING leaves the ring before frame i takes its place.
            if i >= STAGE_RING {
                let j = i - STAGE_RING;
                self.apply(&ring[j % STAGE_RING], hints[j % STAGE_RING], &frames[j]);
            }
            if i >= PREFETCH_AHEAD && i - PREFETCH_AHEAD < n {
                let k = (i - PREFETCH_AHEAD) % STAGE_RING;
                if ring[k].is_flow() {
                    hints[k] = self.flows.prefetch_flow(ring[k].hash);
                }
            }
            if i < n {
                let st = self.stage(&frames[i]);
                if st.is_flow() {
                    self.flows.prefetch_index(st.hash);
                }
                ring[i % STAGE_RING] = st;
            }
        }
    }

    /// Decode a frame into its flow key, transport header and the MAC the flow's data
    /// goes to. A pure function of the frame and the current map.
    #[inline(always)]
    fn decode_sample(
        &self,
        f: &CapturedFrame<'_>,
    ) -> Result<(FlowKey, Transport, [u8; 6], u32), SampleKind> {
        match self.decoder.decode(f.data, f.vlan_hint) {
            Ok(p) => self.key_of(&p, f.iface_switch),
            Err(DecodeError::Malformed(_)) => Err(SampleKind::Malformed),
            Err(DecodeError::NotIp) => Err(SampleKind::NotIp),
        }
    }

    #[inline(always)]
    fn key_of(
        &self,
        p: &PacketSample,
        iface_switch: Option<SwitchIdx>,
    ) -> Result<(FlowKey, Transport, [u8; 6], u32), SampleKind> {
        let switch = match p.vlan {
            Some(v) => self.map.switch_for_vlan(v),
            None => iface_switch,
        };
        let Some(switch) = switch else {
            return Err(SampleKind::UnknownSwitch);
        };
        // A pure ACK's ack number measures the reverse direction, whose frames go to
        // this ack's source MAC.
        let (tuple, data_mac) = match p.transport {
            Transport::Tcp(seg) if seg.is_pure_ack() => (p.tuple.reversed(), p.src_mac),
            _ => (p.tuple, p.dst_mac),
        };
        let ip_id = p.ipv4_id.map_or(NO_IP_ID, u32::from);
        Ok((FlowKey { switch, tuple }, p.transport, data_mac, ip_id))
    }

    /// Decode a frame and find the flow it updates: no state changes. The decoder's
    /// fast path is inlined here; every other frame goes out of line.
    #[inline(always)]
    fn stage(&self, f: &CapturedFrame<'_>) -> FlowSample {
        match self.decoder.decode_common(f.data, f.vlan_hint) {
            Some(p) => self.sample_of(self.key_of(&p, f.iface_switch)),
            None => self.stage_general(f),
        }
    }

    #[inline(never)]
    fn stage_general(&self, f: &CapturedFrame<'_>) -> FlowSample {
        self.sample_of(self.decode_sample(f))
    }

    #[inline(always)]
    fn sample_of(&self, d: Result<(FlowKey, Transport, [u8; 6], u32), SampleKind>) -> FlowSample {
        let (key, transport, data_mac, ip_id) = match d {
            Ok(d) => d,
            Err(kind) => return FlowSample::skipped(kind),
        };
        let ck = self.flows.compact_key(&key);
        let (kind, counter, payload_len) = match transport {
            Transport::Tcp(seg) if seg.is_pure_ack() => (SampleKind::TcpAck, seg.ack, 0),
            Transport::Tcp(seg) if seg.payload_len > 0 || seg.syn || seg.fin => {
                (SampleKind::TcpSeq, seg.seq_end(), seg.payload_len)
            }
            Transport::Tcp(seg) => (SampleKind::TcpNoSeq, 0, seg.payload_len),
            Transport::Udp { payload_len } | Transport::Other { payload_len } => {
                (SampleKind::Untracked, ip_id, payload_len)
            }
        };
        FlowSample {
            ck,
            hash: self.flows.hash_compact(&ck),
            counter,
            payload_len,
            data_mac,
            kind,
        }
    }

    /// The full key of a staged frame, decoded again.
    #[inline(never)]
    fn full_key(&self, f: &CapturedFrame<'_>) -> FlowKey {
        match self.decode_sample(f) {
            Ok((key, _, _, _)) => key,
            // decode_sample is a pure function of the frame and the map, and the map
            // only changes in tick(), never between staging and applying a frame.
            Err(_) => unreachable!("a staged frame decodes again"),
        }
    }

    #[inline(always)]
    fn apply(&mut self, s: &FlowSample, hint: u32, f: &CapturedFrame<'_>) {
        self.counters.packets += 1;
        match s.kind {
            SampleKind::Malformed => self.counters.decode_errors += 1,
            SampleKind::NotIp => self.counters.non_ip += 1,
            SampleKind::UnknownSwitch => self.counters.unknown_vlan += 1,
            _ => self.on_sample(s, hint, f),
        }
    }

    /// The per-sample path. The common case, a TCP data sample of a known flow with
    /// usable sequence numbers inside an open window, touches only the flow's index
    /// entry and hot line, with integer arithmetic; everything else is out of line.
    #[inline(always)]
    fn on_sample(&mut self, s: &FlowSample, hint: u32, f: &CapturedFrame<'_>) {
        let ts_ns = f.ts_ns;
        let slot = match self
            .flows
            .find_hinted(hint, s.hash, s.ck, || self.full_key(f))
        {
            Some(slot) => slot,
            None => match self.insert_flow(s, f) {
                Some(slot) => slot,
                None => {
                    self.counters.flow_table_full += 1;
                    return;
                }
            },
        };
        if self.flows.hot_mut(slot).dst_mac != s.data_mac {
            self.remap_flow(slot, s.data_mac, ts_ns);
        }
        let params = self.cfg.window;
        let hot = self.flows.hot_mut(slot);
        self.counters.unmapped_samples += hot.unmapped as u64;
        if s.kind == SampleKind::TcpSeq && !hot.seq.unusable(&params) {
            let step = hot.seq.on_sample(s.counter, ts_ns, s.payload_len, &params);
            if step != SeqStep::Accepted {
                self.finish_seq(slot, step, ts_ns);
            }
        } else {
            self.on_sample_slow(slot, s, ts_ns);
        }
    }

    #[inline(never)]
    fn insert_flow(&mut self, s: &FlowSample, f: &CapturedFrame<'_>) -> Option<u32> {
        let key = self.full_key(f);
        let port = self
            .map
            .port_for(key.switch, &s.data_mac)
            .unwrap_or(NO_PORT);
        let is_tcp = s.kind != SampleKind::Untracked;
        self.flows
            .insert(s.hash, s.ck, key, s.data_mac, port, is_tcp, f.ts_ns)
    }

    /// The flow's data now goes to another MAC (a reroute to a shadow MAC, or back):
    /// move it to that MAC's port.
    #[inline(never)]
    fn remap_flow(&mut self, slot: u32, mac: [u8; 6], ts_ns: u64) {
        let (hot, cold) = self.flows.parts_mut(slot);
        let port = self.map.port_for(cold.key.switch, &mac).unwrap_or(NO_PORT);
        hot.dst_mac = mac;
        hot.unmapped = port == NO_PORT;
        if cold.port != port {
            let old_port = cold.port;
            let old = std::mem::replace(&mut cold.contributed_bps, 0);
            cold.port = port;
            self.adjust_port(old_port, old, 0, ts_ns);
            self.refresh_flow(slot, ts_ns);
        }
    }

    /// A sequence sample that started, closed a window or was rejected.
    #[inline(never)]
    fn finish_seq(&mut self, slot: u32, step: SeqStep, ts_ns: u64) {
        let params = self.cfg.window;
        let (hot, cold) = self.flows.parts_mut(slot);
        cold.last_seen_ns = cold.last_seen_ns.max(ts_ns);
        let switch = cold.key.switch;
        let (o, coverage) = cold.seq.finish(&mut hot.seq, step, ts_ns, &params);
        self.after_seq(slot, switch, o, coverage, SampleOutcome::Accepted, ts_ns);
    }

    fn after_seq(
        &mut self,
        slot: u32,
        switch: SwitchIdx,
        o: SampleOutcome,
        coverage: Option<crate::flow::estimator::WindowCoverage>,
        bytes_outcome: SampleOutcome,
        ts_ns: u64,
    ) {
        if let Some(c) = coverage
            && c.sampled_bytes > 0
            && c.covered_bytes >= c.sampled_bytes
        {
            self.observe_ratio(switch, c.covered_bytes as f64 / c.sampled_bytes as f64);
        }
        if o == SampleOutcome::RateUpdated || bytes_outcome == SampleOutcome::RateUpdated {
            self.refresh_flow(slot, ts_ns);
        }
    }

    /// Pure ACKs, TCP without usable sequence numbers, UDP and other protocols.
    #[inline(never)]
    fn on_sample_slow(&mut self, slot: u32, s: &FlowSample, ts_ns: u64) {
        let params = self.cfg.window;
        let switch = self.flows.cold_mut(slot).key.switch;
        let ratio = self.ratio_or_default(switch);
        let (hot, cold) = self.flows.parts_mut(slot);
        match s.kind {
            SampleKind::TcpAck => {
                cold.last_seen_ns = cold.last_seen_ns.max(ts_ns);
                let (o, _) = cold.ack.on_sample(s.counter, ts_ns, 0, &params);
                if o == SampleOutcome::RateUpdated {
                    self.refresh_flow(slot, ts_ns);
                }
            }
            SampleKind::TcpSeq | SampleKind::TcpNoSeq => {
                // Sampled bytes are only the fallback: kept while sequence numbers are
                // unusable.
                let b = if hot.seq.unusable(&params) {
                    cold.bytes
                        .on_sample(ts_ns, s.payload_len as f64 * ratio, &params)
                } else {
                    SampleOutcome::Accepted
                };
                let (o, coverage) = if s.kind == SampleKind::TcpSeq {
                    let step = hot.seq.on_sample(s.counter, ts_ns, s.payload_len, &params);
                    if step != SeqStep::Accepted {
                        cold.last_seen_ns = cold.last_seen_ns.max(ts_ns);
                    }
                    cold.seq.finish(&mut hot.seq, step, ts_ns, &params)
                } else {
                    cold.last_seen_ns = cold.last_seen_ns.max(ts_ns);
                    (SampleOutcome::Accepted, None)
                };
                self.after_seq(slot, switch, o, coverage, b, ts_ns);
            }
            // Skipped frames never reach a flow (apply counts them).
            SampleKind::Malformed | SampleKind::NotIp | SampleKind::UnknownSwitch => {}
            SampleKind::Untracked => {
                cold.last_seen_ns = cold.last_seen_ns.max(ts_ns);
                let b = cold
                    .bytes
                    .on_sample(ts_ns, s.payload_len as f64 * ratio, &params);
                let had_id_rate = cold.ipid.rate().is_some();
                let id = if s.counter != NO_IP_ID {
                    cold.ipid
                        .on_sample(s.counter as u16, ts_ns, s.payload_len, &params)
                } else {
                    SampleOutcome::Accepted
                };
                // A run of sequential IDs that ended changes the estimate too.
                let id_lost = had_id_rate && cold.ipid.rate().is_none();
                if b == SampleOutcome::RateUpdated || id == SampleOutcome::RateUpdated || id_lost {
                    self.refresh_flow(slot, ts_ns);
                }
            }
        }
    }

    #[inline]
    fn ratio_or_default(&self, switch: SwitchIdx) -> f64 {
        self.sampling_ratio
            .get(switch as usize)
            .copied()
            .flatten()
            .unwrap_or(self.cfg.default_sampling_ratio)
    }

    fn observe_ratio(&mut self, switch: SwitchIdx, r: f64) {
        if let Some(slot) = self.sampling_ratio.get_mut(switch as usize) {
            *slot = Some(match *slot {
                Some(old) => old + RATIO_GAIN * (r - old),
                None => r,
            });
        }
    }

    /// Re-read the flow's estimate, move its contribution to its port's load, and mark it
    /// for the next report.
    fn refresh_flow(&mut self, slot: u32, ts_ns: u64) {
        let params = self.cfg.window;
        let est = self.flows.view(slot).current(&params);
        let new_bps = est.map(|e| (e.bytes_per_sec * 8.0) as u64).unwrap_or(0);
        let quiet_after_ns = est.map_or(u64::MAX, |e| self.quiet_after(&e));
        let st = self.flows.cold_mut(slot);
        st.quiet = Quiet::Active;
        st.quiet_after_ns = quiet_after_ns;
        let old_bps = std::mem::replace(&mut st.contributed_bps, new_bps);
        let port = st.port;
        if !st.dirty {
            st.dirty = true;
            self.dirty.push(slot);
        }
        self.adjust_port(port, old_bps, new_bps, ts_ns);
    }

    /// How long the flow may be silent before it counts as gone from this switch: a
    /// multiple of the mean gap between the samples of its current estimate.
    fn quiet_after(&self, e: &RateEstimate) -> u64 {
        if self.cfg.quiet_after_gaps == 0 || e.samples < 2 || e.last_ns <= e.first_ns {
            return u64::MAX;
        }
        let gap = (e.last_ns - e.first_ns) / (e.samples - 1);
        gap.saturating_mul(u64::from(self.cfg.quiet_after_gaps))
            .max(self.cfg.quiet_min_ns)
    }

    fn adjust_port(&mut self, port: u32, old_bps: u64, new_bps: u64, ts_ns: u64) {
        if port == NO_PORT || old_bps == new_bps {
            return;
        }
        let p = port as usize;
        let partial = &mut self.partial_bps[p];
        *partial = partial.saturating_sub(old_bps).saturating_add(new_bps);
        let info = &self.map.ports[p];
        if let Some(t) = self.map.board.publish(
            p,
            self.cfg.worker_id,
            *partial,
            info.capacity_bps,
            &self.settings,
        ) {
            self.notify(p, t, ts_ns);
        }
    }

    fn notify(&mut self, port: usize, t: Transition, ts_ns: u64) {
        // The estimates that moved the port go out first, in the same batch: a controller
        // then weighs the notice against the flows it is made of, not against their rates
        // of up to a report interval ago.
        self.report_dirty();
        let now_us = crate::export::event::now_us();
        let info = &self.map.ports[port];
        let (state, load, cap) = match t {
            Transition::Congested {
                load_bps,
                capacity_bps,
            } => (CongestionState::Congested, load_bps, capacity_bps),
            Transition::Cleared {
                load_bps,
                capacity_bps,
            } => (CongestionState::Cleared, load_bps, capacity_bps),
        };
        if let Some(m) = &self.metrics {
            m.notices.inc();
            m.notice_latency
                .observe(now_us.saturating_sub(ts_ns / 1000) as f64 / 1e6);
        }
        if let Some(sink) = &self.sink {
            sink.send(Event::PortCongestion(PortCongestion {
                switch: self.map.switch_ids[info.switch as usize].clone(),
                port: info.port,
                state,
                utilization: load as f64 / cap as f64,
                load_bps: load as f64,
                capacity_bps: cap as f64,
                sample_us: ts_ns / 1000,
                time_us: now_us,
            }));
        }
    }

    /// Periodic work: pick up a new forwarding map, report changed flows once per report
    /// interval, expire idle flows, fold counters into the metrics.
    pub fn tick(&mut self, now_ns: u64) {
        if !Arc::ptr_eq(&self.map, &self.map_source.load()) {
            self.map = self.map_source.load_full();
            self.adopt_map();
        }
        if now_ns.saturating_sub(self.last_report_ns) >= self.settings.report_interval_ns() {
            self.last_report_ns = now_ns;
            self.report_dirty();
        }
        if now_ns.saturating_sub(self.last_sweep_ns) >= SWEEP_INTERVAL_NS {
            self.last_sweep_ns = now_ns;
            self.expire_idle(now_ns);
        }
        if let Some(m) = &self.metrics {
            self.counters.drain_into(m);
            let n = self.flows.len() as i64;
            m.flows.inc_by(n - self.reported_flows);
            self.reported_flows = n;
        }
    }

    /// Report what changed since the last report and fold the counters, without waiting
    /// for the interval (shutdown).
    pub fn flush(&mut self) {
        self.report_dirty();
        if let Some(m) = &self.metrics {
            self.counters.drain_into(m);
        }
    }

    fn report_dirty(&mut self) {
        let params = self.cfg.window;
        let mut dirty = std::mem::take(&mut self.dirty);
        let mut fresh = false;
        for &slot in &dirty {
            if !self.flows.is_live(slot) {
                continue;
            }
            let view: FlowView<'_> = self.flows.view(slot);
            let est = view.current(&params);
            let st = self.flows.cold_mut(slot);
            if !st.dirty {
                continue;
            }
            st.dirty = false;
            let (Some(est), Some(sink)) = (est, &self.sink) else {
                continue;
            };
            let quiet = st.quiet == Quiet::Withdrawn;
            if st.port == NO_PORT || (!quiet && est.last_ns == st.reported_to_ns) {
                continue;
            }
            if quiet {
                st.quiet = Quiet::Reported;
            }
            st.reported_to_ns = est.last_ns;
            // A round with new rates leaves at once; one of withdrawals only (flows gone
            // quiet) rides with the next round's rates after the lane's interval, as before.
            fresh |= !quiet;
            let dst_mac = self.flows.view(slot).dst_mac;
            let st = self.flows.cold_mut(slot);
            let port = &self.map.ports[st.port as usize];
            let t = st.key.tuple;
            sink.send(Event::FlowRate(FlowRate {
                flow: FlowId {
                    src: t.src,
                    dst: t.dst,
                    proto: t.proto,
                    sport: t.sport,
                    dport: t.dport,
                },
                switch: self.map.switch_ids[st.key.switch as usize].clone(),
                port: port.port,
                dst_mac: MacAddr(dst_mac),
                bytes_per_sec: if quiet { 0.0 } else { est.bytes_per_sec },
                samples: est.samples.max(1),
                first_sample_us: est.first_ns / 1000,
                last_sample_us: est.last_ns.max(est.first_ns) / 1000,
                // IPV4_ID travels as SAMPLED_BYTES without the low-confidence flag
                // (telemetry-events-v1 keeps its estimator values).
                estimator: match est.kind {
                    EstimatorKind::Ipv4Id => EstimatorKind::SampledBytes,
                    k => k,
                },
                low_confidence: est.kind.low_confidence(t.proto == crate::decode::frame::IPPROTO_TCP),
            }));
        }
        dirty.clear();
        self.dirty = dirty;
        if let (true, Some(sink)) = (fresh, &self.sink) {
            sink.end_of_report();
        }
    }

    /// Expires idle flows and withdraws the load of quiet ones (see
    /// [`WorkerConfig::quiet_after_gaps`]).
    fn expire_idle(&mut self, now_ns: u64) {
        if self.cfg.idle_timeout_ns == u64::MAX && self.cfg.quiet_after_gaps == 0 {
            return;
        }
        let n = self.flows.slot_count();
        if n == 0 {
            return;
        }
        for _ in 0..SWEEP_PER_TICK.min(n) {
            self.sweep_cursor = (self.sweep_cursor + 1) % n;
            let slot = self.sweep_cursor as u32;
            if !self.flows.is_live(slot) {
                continue;
            }
            let silent_ns = now_ns.saturating_sub(self.flows.view(slot).last_seen_ns());
            if silent_ns > self.cfg.idle_timeout_ns {
                let gone = self.flows.remove(slot);
                self.adjust_port(gone.port, gone.contributed_bps, 0, now_ns);
                continue;
            }
            let st = self.flows.cold_mut(slot);
            if st.quiet == Quiet::Active && silent_ns > st.quiet_after_ns {
                st.quiet = Quiet::Withdrawn;
                let (hot, st) = self.flows.parts_mut(slot);
                hot.seq.resume_after_silence();
                let (port, bps) = (st.port, std::mem::replace(&mut st.contributed_bps, 0));
                if !st.dirty {
                    st.dirty = true;
                    self.dirty.push(slot);
                }
                self.counters.quiet_flows += 1;
                self.adjust_port(port, bps, 0, now_ns);
            }
        }
    }

    /// A new forwarding map: remap every flow to its port and republish the loads.
    fn adopt_map(&mut self) {
        let map = self.map.clone();
        if self.sampling_ratio.len() < map.switch_ids.len() {
            self.sampling_ratio.resize(map.switch_ids.len(), None);
        }
        self.partial_bps = vec![0; map.ports.len()];
        for (hot, st) in self.flows.iter_mut() {
            st.port = map.port_for(st.key.switch, &hot.dst_mac).unwrap_or(NO_PORT);
            hot.unmapped = st.port == NO_PORT;
            if st.port != NO_PORT {
                self.partial_bps[st.port as usize] += st.contributed_bps;
            }
        }
        let now = crate::export::event::now_ns();
        for p in 0..map.ports.len() {
            if let Some(t) = map.board.publish(
                p,
                self.cfg.worker_id,
                self.partial_bps[p],
                map.ports[p].capacity_bps,
                &self.settings,
            ) {
                self.notify(p, t, now);
            }
        }
    }
}
