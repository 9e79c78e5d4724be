//! The XDP fast path of INT reports (`int.xdp`): loads `bpf/int_xdp.c` onto the interface
//! reports arrive on, reads the reports it passes up from its ring buffer, and after each
//! report the state applied writes the kernel maps from the state (`xdp_filter`), under
//! a sequence lock the kernel checks. The kernel's counters go to /metrics.

use std::collections::HashSet;
use std::os::fd::{AsRawFd, RawFd};

use aya::maps::{Array, HashMap, MapData, PerCpuArray, RingBuf};
use aya::programs::{Xdp, XdpFlags};

use crate::decode::int::IntReport;

use super::state::IntState;
use super::xdp_filter::{
    COUNTERS, Clocks, KConfig, KFlowEntry, KFlowKey, KLinkKey, KLinkValue, KQueueKey, KQueueValue, RecordHead,
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
    keys: Vec<SharedKey>,
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
    /// Loads the program, fills its configuration and attaches it to `interface`.
    pub fn attach(interface: &str, ports: &[u16], widths: &super::IntervalWidths) -> Result<XdpPath, String> {
        if PROGRAM.is_empty() {
            return Err("int.xdp: this collector was built without clang-14, so without bpf/int_xdp.c".into());
        }
        let mut ebpf = aya::EbpfLoader::new().load(PROGRAM).map_err(|e| err(interface, "loading the program", e))?;
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
        Ok(XdpPath { _ebpf: ebpf, ring, config, cfg, counters, flows, links, queues, keys: Vec::new(), write_errors: 0 })
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
            keys: &mut self.keys,
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
            keys: &mut self.keys,
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

/// Writes the kernel maps after a report was applied.
pub struct XdpWriter<'a> {
    config: &'a mut Array<MapData, KConfig>,
    cfg: &'a mut KConfig,
    flows: &'a mut HashMap<MapData, KFlowKey, KFlowEntry>,
    links: &'a mut HashMap<MapData, KLinkKey, KLinkValue>,
    queues: &'a mut HashMap<MapData, KQueueKey, KQueueValue>,
    keys: &'a mut Vec<SharedKey>,
    write_errors: &'a mut u64,
}

impl XdpWriter<'_> {
    fn generation(&mut self, g: u64) {
        self.cfg.generation = g;
        if self.config.set(0, *self.cfg, 0).is_err() {
            *self.write_errors += 1;
        }
    }

    /// After `reports` were applied to `state`: rewrites every per-switch key they
    /// touched and the flow entries. `head`: the ring record they came in (None: they
    /// came another way, and their flows' entries are removed).
    pub fn after_apply(&mut self, state: &IntState, reports: &[IntReport], head: Option<&RecordHead>) {
        self.keys.clear();
        for r in reports {
            report_keys(r, self.keys);
        }
        let mut seen = HashSet::with_capacity(self.keys.len());
        self.keys.retain(|k| seen.insert(*k));
        let clocks = Clocks::now();
        let start = self.cfg.generation + 1;
        // Odd while writing: the kernel does not filter on what it reads meanwhile.
        self.generation(start);
        for k in self.keys.iter() {
            let ok = match (k, shared_value(state, k)) {
                (SharedKey::Link(l), SharedValue::Link(Some(v))) => self.links.insert(*l, v, 0).is_ok(),
                (SharedKey::Queue(q), SharedValue::Queue(Some(v))) => self.queues.insert(*q, v, 0).is_ok(),
                // Gone from the state (refused or expired): the kernel must not find it.
                (SharedKey::Link(l), _) => {
                    let _ = self.links.remove(l);
                    true
                }
                (SharedKey::Queue(q), _) => {
                    let _ = self.queues.remove(q);
                    true
                }
            };
            if !ok {
                *self.write_errors += 1;
            }
        }
        for r in reports {
            let Some(key) = r.flow.as_ref().and_then(flow_key) else { continue };
            match head.and_then(|h| flow_entry(state, h, r, &clocks)) {
                Some(e) => {
                    if self.flows.insert(key, e, 0).is_err() {
                        *self.write_errors += 1;
                    }
                }
                None => {
                    let _ = self.flows.remove(&key);
                }
            }
        }
        self.generation(start + 1);
    }
}
