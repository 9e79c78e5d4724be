//! One capture worker: decode -> flow state -> detect -> export, with its own flow table
//! (shared-nothing; PACKET_FANOUT hashes a flow's packets to one worker). Live capture
//! and pcap replay drive the same worker.

use std::sync::Arc;

use arc_swap::ArcSwap;

use crate::decode::{DecodeError, Decoder, PacketSample, Record, Transport};
use crate::detect::{DetectionSettings, Transition};
use crate::export::{CongestionState, Event, EventSink, FlowId, FlowRate, MacAddr, PortCongestion};
use crate::flow::estimator::{SampleOutcome, WindowParams};
use crate::flow::{FlowKey, FlowTable, NO_PORT};
use crate::forwarding::{CompiledMap, SwitchIdx};
use crate::metrics::{Metrics, WorkerCounters};

#[derive(Clone, Copy, Debug)]
pub struct WorkerConfig {
    pub worker_id: usize,
    pub window: WindowParams,
    pub max_flows: usize,
    /// Flows idle this long are forgotten (their load leaves the port); u64::MAX: never.
    pub idle_timeout_ns: u64,
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
            default_sampling_ratio: 1.0,
        }
    }
}

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
        self.counters.packets += 1;
        match self.decoder.decode(frame, vlan_hint) {
            Ok(Record::Packet(p)) => self.on_packet(ts_ns, iface_switch, &p),
            Err(DecodeError::Malformed(_)) => self.counters.decode_errors += 1,
            Err(DecodeError::NotIp) => self.counters.non_ip += 1,
        }
    }

    #[inline]
    fn on_packet(&mut self, ts_ns: u64, iface_switch: Option<SwitchIdx>, p: &PacketSample) {
        let switch = match p.vlan {
            Some(v) => self.map.switch_for_vlan(v),
            None => iface_switch,
        };
        let Some(switch) = switch else {
            self.counters.unknown_vlan += 1;
            return;
        };
        let params = self.cfg.window;
        match p.transport {
            Transport::Tcp(seg) if seg.is_pure_ack() => {
                // The ack number measures the reverse direction, whose frames go to this
                // ack's source MAC.
                let key = FlowKey {
                    switch,
                    tuple: p.tuple.reversed(),
                };
                let Some(slot) = self.flow_slot(key, p.src_mac, ts_ns, true) else {
                    return;
                };
                let (o, _) = self
                    .flows
                    .get(slot)
                    .ack
                    .on_sample(seg.ack, ts_ns, 0, &params);
                if o == SampleOutcome::RateUpdated {
                    self.refresh_flow(slot, ts_ns);
                }
            }
            Transport::Tcp(seg) => {
                let key = FlowKey {
                    switch,
                    tuple: p.tuple,
                };
                let Some(slot) = self.flow_slot(key, p.dst_mac, ts_ns, true) else {
                    return;
                };
                let ratio = self.ratio_or_default(switch);
                let st = self.flows.get(slot);
                // Sampled bytes are only the fallback: kept while sequence numbers are
                // unusable (saves touching that state on the common path).
                let b = if st.seq.unusable(&params) {
                    st.bytes
                        .on_sample(ts_ns, seg.payload_len as f64 * ratio, &params)
                } else {
                    SampleOutcome::Accepted
                };
                let (o, coverage) = if seg.payload_len > 0 || seg.syn || seg.fin {
                    st.seq
                        .on_sample(seg.seq_end(), ts_ns, seg.payload_len, &params)
                } else {
                    (SampleOutcome::Accepted, None)
                };
                if let Some(c) = coverage
                    && c.sampled_bytes > 0
                    && c.covered_bytes >= c.sampled_bytes
                {
                    self.observe_ratio(switch, c.covered_bytes as f64 / c.sampled_bytes as f64);
                }
                if o == SampleOutcome::RateUpdated || b == SampleOutcome::RateUpdated {
                    self.refresh_flow(slot, ts_ns);
                }
            }
            Transport::Udp { payload_len } | Transport::Other { payload_len } => {
                let key = FlowKey {
                    switch,
                    tuple: p.tuple,
                };
                let Some(slot) = self.flow_slot(key, p.dst_mac, ts_ns, false) else {
                    return;
                };
                let ratio = self.ratio_or_default(switch);
                if self
                    .flows
                    .get(slot)
                    .bytes
                    .on_sample(ts_ns, payload_len as f64 * ratio, &params)
                    == SampleOutcome::RateUpdated
                {
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

    /// Find or create the flow, keeping its egress port in step with the MAC it is sent
    /// to (a reroute changes the destination to a shadow MAC).
    #[inline]
    fn flow_slot(&mut self, key: FlowKey, mac: [u8; 6], ts_ns: u64, is_tcp: bool) -> Option<u32> {
        let port = self.map.port_for(key.switch, &mac).unwrap_or(NO_PORT);
        let Some(slot) = self.flows.get_or_insert(key, mac, port, is_tcp, ts_ns) else {
            self.counters.flow_table_full += 1;
            return None;
        };
        if port == NO_PORT {
            self.counters.unmapped_samples += 1;
        }
        let st = self.flows.get(slot);
        st.last_seen_ns = ts_ns;
        if st.dst_mac != mac {
            st.dst_mac = mac;
            if st.port != port {
                let old_port = st.port;
                let old = std::mem::replace(&mut st.contributed_bps, 0);
                st.port = port;
                self.adjust_port(old_port, old, 0, ts_ns);
                self.refresh_flow(slot, ts_ns);
            }
        }
        Some(slot)
    }

    /// Re-read the flow's estimate, move its contribution to its port's load, and mark it
    /// for the next report.
    fn refresh_flow(&mut self, slot: u32, ts_ns: u64) {
        let params = self.cfg.window;
        let st = self.flows.get(slot);
        let new_bps = st
            .current(&params)
            .map(|e| (e.bytes_per_sec * 8.0) as u64)
            .unwrap_or(0);
        let old_bps = std::mem::replace(&mut st.contributed_bps, new_bps);
        let port = st.port;
        if !st.dirty {
            st.dirty = true;
            self.dirty.push(slot);
        }
        self.adjust_port(port, old_bps, new_bps, ts_ns);
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
        for &slot in &dirty {
            if !self.flows.is_live(slot) {
                continue;
            }
            let st = self.flows.get(slot);
            if !st.dirty {
                continue;
            }
            st.dirty = false;
            let (Some(est), Some(sink)) = (st.current(&params), &self.sink) else {
                continue;
            };
            if st.port == NO_PORT || est.last_ns == st.reported_to_ns {
                continue;
            }
            st.reported_to_ns = est.last_ns;
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
                dst_mac: MacAddr(st.dst_mac),
                bytes_per_sec: est.bytes_per_sec,
                samples: est.samples.max(1),
                first_sample_us: est.first_ns / 1000,
                last_sample_us: est.last_ns.max(est.first_ns) / 1000,
                estimator: est.kind,
            }));
        }
        dirty.clear();
        self.dirty = dirty;
    }

    fn expire_idle(&mut self, now_ns: u64) {
        if self.cfg.idle_timeout_ns == u64::MAX || self.flows.slot_count() == 0 {
            return;
        }
        let n = self.flows.slot_count();
        for _ in 0..SWEEP_PER_TICK.min(n) {
            self.sweep_cursor = (self.sweep_cursor + 1) % n;
            let slot = self.sweep_cursor as u32;
            if !self.flows.is_live(slot) {
                continue;
            }
            let st = self.flows.get(slot);
            if now_ns.saturating_sub(st.last_seen_ns) > self.cfg.idle_timeout_ns {
                let gone = self.flows.remove(slot);
                self.adjust_port(gone.port, gone.contributed_bps, 0, now_ns);
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
        for st in self.flows.iter_mut() {
            st.port = map.port_for(st.key.switch, &st.dst_mac).unwrap_or(NO_PORT);
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
