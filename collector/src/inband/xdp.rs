//! The XDP fast path of INT reports (`int.xdp`): loads `bpf/int_xdp.c` onto the interface
//! reports arrive on, reads the reports it passes up from its ring buffer, and after each
//! report the state applied writes the kernel maps from the state (`xdp_filter`), under
//! a sequence lock the kernel checks. The kernel's counters go to /metrics.

use std::os::fd::{AsRawFd, RawFd};

use aya::maps::{Array, HashMap, MapData, PerCpuArray, RingBuf};
use aya::programs::{Xdp, XdpFlags};

use crate::decode::int::IntReport;

use super::state::IntState;
use super::xdp_filter::{
    C_NO_ENTRY, C_SHARED, COUNTERS, Clocks, KConfig, KFlowEntry, KFlowKey, KLinkKey, KLinkValue, KQueueKey, KQueueValue, RecordHead,
    SharedKey, SharedValue, flow_entry, flow_key, report_keys, shared_value,
};

#[cfg(int_xdp_built)]
static PROGRAM: &[u8] = aya::include_bytes_aligned!(concat!(env!("OUT_DIR"), "/int_xdp.o"));
#[cfg(not(int_xdp_built))]
static PROGRAM: &[u8] = &[];

pub struct XdpPath {
    // Holds the program and its link: dropping it detaches the program.
    _ebpf: aya::Ebpf,
    ring: RingBuf<MapData>,
    config: Array<MapData, KConfig>,
    cfg: KConfig,
    counters: PerCpuArray<MapData, u64>,
    flows: HashMap<MapData, KFlowKey, KFlowEntry>,
    links: HashMap<MapData, KLinkKey, KLinkValue>,
    queues: HashMap<MapData, KQueueKey, KQueueValue>,
    written: Shadow,
    /// Map writes that failed (a full LRU map evicts instead; so: unexpected errors).
    pub write_errors: u64,
}

fn err(interface: &str, what: &str, e: impl std::fmt::Display) -> String {
    // One line: aya's verifier errors carry the whole log.
    let msg = e.to_string();
    let first = msg.lines().next().unwrap_or("").to_string();
    format!("int.xdp: interface {interface:?}: {what}: {first}")
}

impl XdpPath {
    /// Loads the program with maps as large as the state's tables, fills its
    /// configuration and attaches it to `interface`.
    pub fn attach(interface: &str, ports: &[u16], state: &super::StateConfig) -> Result<XdpPath, String> {
        if PROGRAM.is_empty() {
            return Err("int.xdp: this collector was built without clang-14, so without bpf/int_xdp.c".into());
        }
        let size = |n: usize| n.clamp(1, 1 << 20) as u32;
        let widths = &state.widths;
        let mut ebpf = aya::EbpfLoader::new()
            .set_max_entries("flows", size(state.max_flows))
            .set_max_entries("links", size(state.max_ports))
            .set_max_entries("queues", size(state.max_queues))
            .load(PROGRAM)
            .map_err(|e| err(interface, "loading the program", e))?;
        let take = |ebpf: &mut aya::Ebpf, name: &str| ebpf.take_map(name).ok_or_else(|| format!("int.xdp: map {name} missing"));
        let mut config: Array<MapData, KConfig> = Array::try_from(take(&mut ebpf, "config")?).map_err(|e| err(interface, "config map", e))?;
        let cfg = KConfig {
            width_flow_latency: widths.flow_latency_ns,
            width_hop_latency: widths.hop_latency_ns,
            width_link: widths.link_utilization,
            width_occupancy: widths.queue_occupancy,
            width_congestion: widths.queue_congestion,
            generation: 0,
        };
        config.set(0, cfg, 0).map_err(|e| err(interface, "config map", e))?;
        let mut report_ports: Array<MapData, u8> = Array::try_from(take(&mut ebpf, "report_ports")?).map_err(|e| err(interface, "ports map", e))?;
        for p in ports {
            report_ports.set(*p as u32, 1, 0).map_err(|e| err(interface, "ports map", e))?;
        }
        let ring = RingBuf::try_from(take(&mut ebpf, "reports")?).map_err(|e| err(interface, "ring buffer", e))?;
        let counters = PerCpuArray::try_from(take(&mut ebpf, "counters")?).map_err(|e| err(interface, "counters", e))?;
        let flows = HashMap::try_from(take(&mut ebpf, "flows")?).map_err(|e| err(interface, "flows map", e))?;
        let links = HashMap::try_from(take(&mut ebpf, "links")?).map_err(|e| err(interface, "links map", e))?;
        let queues = HashMap::try_from(take(&mut ebpf, "queues")?).map_err(|e| err(interface, "queues map", e))?;
        let prog: &mut Xdp = ebpf
            .program_mut("int_xdp")
            .ok_or_else(|| "int.xdp: program int_xdp missing".to_string())?
            .try_into()
            .map_err(|e| err(interface, "program", e))?;
        prog.load().map_err(|e| err(interface, "verifier refused the program", e))?;
        prog.attach(interface, XdpFlags::default()).map_err(|e| err(interface, "attaching", e))?;
        Ok(XdpPath { _ebpf: ebpf, ring, config, cfg, counters, flows, links, queues, written: Shadow::new(), write_errors: 0 })
    }

    pub fn ring_fd(&self) -> RawFd {
        self.ring.as_raw_fd()
    }

    /// Hands the next record waiting in the ring to `f` (head, UDP payload); the record
    /// is released (and the kernel may filter again) only after `f` returned. False when
    /// the ring is empty.
    pub fn next_record(&mut self, f: impl FnOnce(&mut XdpWriter<'_>, Option<(RecordHead, &[u8])>)) -> bool {
        let Some(item) = self.ring.next() else { return false };
        let mut w = XdpWriter {
            config: &mut self.config,
            cfg: &mut self.cfg,
            flows: &mut self.flows,
            links: &mut self.links,
            queues: &mut self.queues,
            written: &mut self.written,
            write_errors: &mut self.write_errors,
        };
        f(&mut w, RecordHead::parse(&item));
        drop(item);
        true
    }

    /// A writer for reports that did not come through the ring (other interfaces).
    pub fn writer(&mut self) -> XdpWriter<'_> {
        XdpWriter {
            config: &mut self.config,
            cfg: &mut self.cfg,
            flows: &mut self.flows,
            links: &mut self.links,
            queues: &mut self.queues,
            written: &mut self.written,
            write_errors: &mut self.write_errors,
        }
    }

    /// The kernel counters, summed over CPUs, in the order of [`COUNTERS`].
    pub fn counters(&self) -> [u64; COUNTERS.len()] {
        let mut out = [0u64; COUNTERS.len()];
        for (i, o) in out.iter_mut().enumerate() {
            if let Ok(v) = self.counters.get(&(i as u32), 0) {
                *o = v.iter().sum();
            }
        }
        out
    }
}

/// What the collector last wrote into a kernel map, per key: `Some(v)` written, `None`
/// removed; a key not here may be in the kernel or not (so it is written). Writes that
/// would not change the kernel's maps are skipped, so a report that changed nothing costs
/// no system call: the ring drains quickly after a burst of new flows.
pub struct Written<K, V> {
    map: std::collections::HashMap<K, Option<V>>,
}

impl<K: std::hash::Hash + Eq + Copy, V: PartialEq + Copy> Written<K, V> {
    /// Past this many keys it starts over (keys expire from the state, not from here).
    const CAP: usize = 1 << 18;

    fn new() -> Self {
        Written { map: std::collections::HashMap::new() }
    }

    /// True when `v` must be written for `k`.
    fn differs(&self, k: &K, v: &Option<V>) -> bool {
        self.map.get(k) != Some(v)
    }

    fn record(&mut self, k: K, v: Option<V>) {
        if self.map.len() >= Self::CAP {
            self.map.clear();
        }
        self.map.insert(k, v);
    }

    fn forget(&mut self, k: &K) {
        self.map.remove(k);
    }
}

fn sync<K: aya::Pod + std::hash::Hash + Eq, V: aya::Pod + PartialEq>(map: &mut HashMap<MapData, K, V>, written: &mut Written<K, V>, k: K, v: Option<V>) -> bool {
    let ok = match v {
        Some(v) => map.insert(k, v, 0).is_ok(),
        None => {
            // Absent already is as good as removed.
            let _ = map.remove(&k);
            true
        }
    };
    if ok {
        written.record(k, v);
    }
    ok
}

/// Writes the kernel maps after a report was applied.
pub struct XdpWriter<'a> {
    config: &'a mut Array<MapData, KConfig>,
    cfg: &'a mut KConfig,
    flows: &'a mut HashMap<MapData, KFlowKey, KFlowEntry>,
    links: &'a mut HashMap<MapData, KLinkKey, KLinkValue>,
    queues: &'a mut HashMap<MapData, KQueueKey, KQueueValue>,
    written: &'a mut Shadow,
    write_errors: &'a mut u64,
}

/// What the collector last wrote into each kernel map, and scratch space.
pub struct Shadow {
    flows: Written<KFlowKey, KFlowEntry>,
    links: Written<KLinkKey, KLinkValue>,
    queues: Written<KQueueKey, KQueueValue>,
    keys: Vec<SharedKey>,
    links_due: Vec<(KLinkKey, Option<KLinkValue>)>,
    queues_due: Vec<(KQueueKey, Option<KQueueValue>)>,
    flows_due: Vec<(KFlowKey, Option<KFlowEntry>)>,
}

impl Shadow {
    fn new() -> Shadow {
        Shadow {
            flows: Written::new(),
            links: Written::new(),
            queues: Written::new(),
            keys: Vec::new(),
            links_due: Vec::new(),
            queues_due: Vec::new(),
            flows_due: Vec::new(),
        }
    }
}

impl XdpWriter<'_> {
    fn generation(&mut self, g: u64) {
        self.cfg.generation = g;
        if self.config.set(0, *self.cfg, 0).is_err() {
            *self.write_errors += 1;
        }
    }

    /// After `reports` were applied to `state`: brings every per-switch key they touched
    /// and their flows' entries in the kernel maps in line with the state. `head`: the
    /// ring record they came in (None: they came another way, and their flows' entries
    /// are removed).
    pub fn after_apply(&mut self, state: &IntState, reports: &[IntReport], head: Option<&RecordHead>) {
        let w = &mut *self.written;
        w.keys.clear();
        for r in reports {
            report_keys(r, &mut w.keys);
        }
        // The kernel found no entry or a missing key: an LRU map may have evicted what
        // was written, so write it again.
        if let Some(h) = head {
            if h.why == C_SHARED {
                for k in &w.keys {
                    match k {
                        SharedKey::Link(l) => w.links.forget(l),
                        SharedKey::Queue(q) => w.queues.forget(q),
                    }
                }
            }
            if h.why == C_NO_ENTRY {
                w.flows.forget(&h.key);
            }
        }
        w.links_due.clear();
        w.queues_due.clear();
        w.flows_due.clear();
        for k in &w.keys {
            match (k, shared_value(state, k)) {
                (SharedKey::Link(l), SharedValue::Link(v)) => {
                    if w.links.differs(l, &v) && !w.links_due.iter().any(|(x, _)| x == l) {
                        w.links_due.push((*l, v));
                    }
                }
                (SharedKey::Queue(q), SharedValue::Queue(v)) => {
                    if w.queues.differs(q, &v) && !w.queues_due.iter().any(|(x, _)| x == q) {
                        w.queues_due.push((*q, v));
                    }
                }
                _ => unreachable!("shared_value answers in the key's kind"),
            }
        }
        let clocks = Clocks::now();
        for r in reports {
            let Some(key) = r.flow.as_ref().and_then(flow_key) else { continue };
            let e = head.and_then(|h| flow_entry(state, h, r, &clocks));
            if w.flows.differs(&key, &e) {
                w.flows_due.push((key, e));
            }
        }
        if w.links_due.is_empty() && w.queues_due.is_empty() && w.flows_due.is_empty() {
            return;
        }
        let start = self.cfg.generation + 1;
        // Odd while writing: the kernel does not filter on what it reads meanwhile.
        self.generation(start);
        let w = &mut *self.written;
        let mut errors = 0;
        for (k, v) in w.links_due.drain(..) {
            errors += !sync(self.links, &mut w.links, k, v) as u64;
        }
        for (k, v) in w.queues_due.drain(..) {
            errors += !sync(self.queues, &mut w.queues, k, v) as u64;
        }
        for (k, v) in w.flows_due.drain(..) {
            errors += !sync(self.flows, &mut w.flows, k, v) as u64;
        }
        *self.write_errors += errors;
        self.generation(start + 1);
    }
}
