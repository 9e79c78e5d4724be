//! Real hosts: endpoints played by Linux network namespaces, each joined to
//! the emulator by a veth pair (Flexplane's point: unmodified hosts and
//! applications over emulated schemes).
//!
//! Every timeslot the emulator reads what each host sent from its veth
//! (AF_PACKET, TPACKET_V2 ring, `ring`; or AF_XDP, `xdp`, chosen in
//! `capture`), turns each frame into an abstract
//! packet at the host's NIC (`frame` reads addresses, class and ECN; the
//! frame itself waits in `store`), and the engine carries the packet through
//! the topology, scheme and timeslots as any other, paced in real time. When
//! the packet reaches another real host, its frame is written to that host's
//! veth (the lab fabric's AF_PACKET `InterfaceSink`), with CE set in the IP
//! header if a scheme marked it. A dropped packet's frame is never written:
//! drops are real. Frames longer than the emulated MTU, non-IPv4 frames and
//! frames to unknown addresses are refused and counted.
//!
//! The engine knows this module only through `engine::HostIo` (two calls in
//! a partition's slot). `lifecycle` creates, checks and removes the
//! namespaces and veths by name (`planck-emu hosts up|check|down`).

pub mod capture;
pub mod config;
pub mod frame;
pub mod lifecycle;
pub mod ring;
pub mod store;
pub mod xdp;
pub mod xdp_prog;

use std::collections::HashMap;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;
use serde_json::json;

pub use config::{FrameTime, RealHostConfig, RealHostsConfig, ResolvedHost, parse_cpu_list};

use crate::config::{Config, ConfigError};
use crate::endpoint::EndpointState;
use crate::engine::HostIo;
use crate::lab::frames::FrameSink;
use crate::packet::{CE, ECT, EndpointId, OPEN_LOOP, Packet, Slot};
use crate::runner::Setup;
use capture::{Capture, CaptureRing};
use frame::{ETH_HEADER, Refusal, fill_l4_checksum, inspect, set_ce};
use ring::{RxFrame, TP_STATUS_CSUMNOTREADY};
use store::FrameStore;

/// Frames in each host's receive ring (about 8 MB at a 1,500-byte MTU).
const RING_FRAMES: usize = 4096;
/// Frames taken from one host's ring per slot at most, so one host cannot
/// hold up a slot; the rest wait in the ring for the next slot.
const POLL_LIMIT: usize = 256;
/// Bounds of the frame store (see `store`).
const MIN_STORE_FRAMES: usize = 4096;
const MAX_STORE_FRAMES: usize = 1 << 18;
/// Delivered bytes are also kept per 100 ms of emulated time (an hour at most).
const BIN_US: f64 = 100_000.0;
const MAX_BINS: usize = 36_000;
/// Classes counted apart (strict priority's eight, from the IP precedence).
pub const CLASSES: usize = 8;

/// What happened to one real host's frames.
#[derive(Debug, Default, Clone, Serialize)]
pub struct HostCounters {
    /// Frames taken into the emulated network from this host.
    pub frames_in: u64,
    /// Their IP bytes.
    pub bytes_in: u64,
    /// Frames written to this host (their abstract packets arrived).
    pub frames_out: u64,
    pub bytes_out: u64,
    /// Frames written to this host with CE set by a scheme.
    pub ce_marked: u64,
    /// Refused: longer than the emulated MTU (or truncated by the ring).
    pub refused_oversize: u64,
    /// Refused: not IPv4 (ARP, IPv6, tagged): hosts have static neighbours.
    pub refused_not_ipv4: u64,
    pub refused_malformed: u64,
    /// Refused: destination address is no real host.
    pub unknown_destination: u64,
    /// Dropped: the host's emulated NIC queue was full.
    pub nic_drops: u64,
    /// Frames whose transport checksum the host left to an offload, filled in.
    pub checksum_filled: u64,
    /// Dropped on arrival: the frame had been written over in the store.
    pub expired: u64,
    /// Packets of built-in endpoints that reached this host (discarded).
    pub foreign: u64,
    /// Frames the kernel dropped because the receive ring was full.
    pub ring_drops: u64,
    /// Frames the veth did not take when written.
    pub tx_errors: u64,
    /// Slots of the first and last frame written to this host.
    pub first_out_slot: Option<Slot>,
    pub last_out_slot: Option<Slot>,
    /// Per class (0 = highest): frames taken in from this host, frames written to it.
    pub class_in: [u64; CLASSES],
    pub class_out: [u64; CLASSES],
    /// IP bytes written to this host per 100 ms of emulated time, per class:
    /// the rate the emulated network delivered, whatever the wall clock did.
    pub out_bytes_per_bin: Vec<[u64; CLASSES]>,
}

pub(crate) struct VethLock(#[allow(dead_code)] File);

/// An exclusive lock per veth, so two emulators never read one host.
pub(crate) fn lock_veth(veth: &str) -> Result<VethLock, String> {
    let dir = PathBuf::from("/run/lock");
    let dir = if dir.is_dir() {
        dir
    } else {
        std::env::temp_dir()
    };
    let path = dir.join(format!("planck-emu-veth-{veth}.lock"));
    let f = File::create(&path).map_err(|e| format!("lock {}: {e}", path.display()))?;
    // SAFETY: flock on a file we own.
    if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        return Err(format!("veth {veth:?} is in use by another planck-emu"));
    }
    Ok(VethLock(f))
}

struct HostPort {
    host: ResolvedHost,
    rx: CaptureRing,
    tx: FrameSink,
    /// Local endpoint index in the partition.
    local: usize,
    queued: bool,
    c: HostCounters,
    _lock: VethLock,
}

/// The real hosts of one partition.
pub struct VethHosts {
    ports: Vec<HostPort>,
    /// Local endpoint index -> index in `ports` (u32::MAX: built-in).
    by_local: Vec<u32>,
    /// IPv4 address -> endpoint id, for every real host.
    by_ip: HashMap<u32, EndpointId>,
    store: FrameStore,
    max_frame: usize,
    slot_ns: f64,
    /// Slots per bin of `out_bytes_per_bin`.
    bin_slots: u64,
    /// Unix time of slot 0 in ns, taken at the first slot.
    epoch_ns: Option<f64>,
}

impl VethHosts {
    /// Open the rings and sockets of `hosts` for partition `part` of `setup`.
    pub fn open(
        hosts: &[ResolvedHost],
        setup: &Setup,
        part: usize,
        mtu: u32,
    ) -> Result<VethHosts, String> {
        Self::open_with(hosts, setup, part, mtu, Capture::Packet)
    }

    /// As `open`, reading the hosts' frames `capture`'s way.
    pub fn open_with(
        hosts: &[ResolvedHost],
        setup: &Setup,
        part: usize,
        mtu: u32,
        capture: Capture,
    ) -> Result<VethHosts, String> {
        let pl = &setup.shared.placement;
        let max_frame = mtu as usize + ETH_HEADER;
        let mut by_local = vec![u32::MAX; setup.topo.endpoints.len()];
        let mut ports = Vec::new();
        for h in hosts {
            if pl.endpoint_part[h.endpoint as usize] as usize != part {
                continue;
            }
            let at = |m: String| {
                format!(
                    "real host {:?}: {m}",
                    setup.topo.endpoints[h.endpoint as usize].name
                )
            };
            preflight(h, mtu).map_err(at)?;
            let lock = lock_veth(&h.veth).map_err(at)?;
            let rx = CaptureRing::open(capture, &h.veth, max_frame, RING_FRAMES).map_err(at)?;
            let tx = FrameSink::interface(&h.veth).map_err(at)?;
            let local = pl.endpoint_local[h.endpoint as usize] as usize;
            by_local[local] = ports.len() as u32;
            ports.push(HostPort {
                host: h.clone(),
                rx,
                tx,
                local,
                queued: false,
                c: HostCounters::default(),
                _lock: lock,
            });
        }
        let by_ip = hosts
            .iter()
            .map(|h| (u32::from(h.ip), h.endpoint))
            .collect();
        // What the network can hold at once: every port buffer, every NIC
        // queue, every link's packets in flight; four times that.
        let topo = &setup.topo;
        let base = setup.shared.base_rate as f64 / 1000.0;
        let mut held = setup.shared.nic_capacity * topo.endpoints.len();
        for s in &topo.switches {
            for p in &s.ports {
                held += p.link.buffer_pkts as usize
                    + (p.link.latency_slots as f64 * (p.link.gbps / base).ceil()) as usize;
            }
        }
        let frames = (4 * held).clamp(MIN_STORE_FRAMES, MAX_STORE_FRAMES);
        Ok(VethHosts {
            ports,
            by_local,
            by_ip,
            store: FrameStore::new(frames, max_frame),
            max_frame,
            slot_ns: setup.slot_ns,
            bin_slots: ((BIN_US * 1000.0 / setup.slot_ns).round() as u64).max(1),
            epoch_ns: None,
        })
    }
}

/// Where a host's frames go in: its counters, endpoint id and local index.
struct Intake<'a> {
    c: &'a mut HostCounters,
    src: EndpointId,
    local: usize,
    by_ip: &'a HashMap<u32, EndpointId>,
    store: &'a mut FrameStore,
    max_frame: usize,
    t: Slot,
}

impl Intake<'_> {
    /// One frame from the host's ring onto its emulated NIC queue, or refused.
    fn take(&mut self, f: RxFrame<'_>, endpoints: &mut [EndpointState], ready: &mut [u64]) {
        let c = &mut *self.c;
        let max_frame = self.max_frame;
        if f.incomplete() || f.data.len() > max_frame {
            c.refused_oversize += 1;
            return;
        }
        if f.vlan_tagged() {
            c.refused_not_ipv4 += 1;
            return;
        }
        let info = match inspect(f.data) {
            Ok(i) => i,
            Err(Refusal::NotIpv4) => {
                c.refused_not_ipv4 += 1;
                return;
            }
            Err(_) => {
                c.refused_malformed += 1;
                return;
            }
        };
        let Some(&dst) = self.by_ip.get(&info.dst) else {
            c.unknown_destination += 1;
            return;
        };
        let ep = &mut endpoints[self.local];
        if ep.nic.len() >= ep.nic_capacity {
            c.nic_drops += 1;
            return;
        }
        let r = self.store.put(f.data);
        if f.status & TP_STATUS_CSUMNOTREADY != 0
            && let Some(fr) = self.store.get(r)
            && fill_l4_checksum(fr)
        {
            c.checksum_filled += 1;
        }
        let mut flags = OPEN_LOOP;
        if info.ect() {
            flags |= ECT;
        }
        if info.ce() {
            flags |= CE;
        }
        ep.nic.push_back(Packet {
            flow: info.flow,
            seq: r,
            prio: info.class(),
            stamp: self.t as u32,
            src: self.src,
            dst,
            tag: 0,
            flags,
            hops: 0,
            data: wire_len_data(f.data.len()),
        });
        crate::engine::mark_ready(ready, self.src as usize);
        c.frames_in += 1;
        c.bytes_in += (f.data.len() - ETH_HEADER) as u64;
        c.class_in[(info.class() as usize).min(CLASSES - 1)] += 1;
    }
}

/// A real host's frame carries its length for links that price by length
/// (`crate::packet::WIRE_LEN`).
fn wire_len_data(len: usize) -> [u8; 8] {
    let mut d = [0; 8];
    let w = crate::packet::WIRE_LEN;
    d[w..w + 2].copy_from_slice(&(len.min(u16::MAX as usize) as u16).to_le_bytes());
    d
}

fn unix_ns() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as f64)
        .unwrap_or(0.0)
}

/// Before opening anything: the namespace and veth exist and fit the MTU.
fn preflight(h: &ResolvedHost, mtu: u32) -> Result<(), String> {
    if !lifecycle::namespace_exists(&h.namespace) {
        return Err(format!(
            "no network namespace {:?} (planck-emu hosts up --config FILE creates it)",
            h.namespace
        ));
    }
    let sys = PathBuf::from("/sys/class/net").join(&h.veth);
    if !sys.exists() {
        return Err(format!(
            "no interface {:?} (planck-emu hosts up --config FILE creates it)",
            h.veth
        ));
    }
    let flags = std::fs::read_to_string(sys.join("flags")).unwrap_or_default();
    let up = u32::from_str_radix(flags.trim().trim_start_matches("0x"), 16).unwrap_or(0) & 1 != 0;
    if !up {
        return Err(format!("interface {:?} is down", h.veth));
    }
    let if_mtu: u32 = std::fs::read_to_string(sys.join("mtu"))
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    if if_mtu > mtu {
        return Err(format!(
            "interface {:?} has MTU {if_mtu}, above emulation.mtu_bytes {mtu}",
            h.veth
        ));
    }
    Ok(())
}

impl HostIo for VethHosts {
    fn serves(&self, local: usize) -> bool {
        self.by_local.get(local).is_some_and(|&i| i != u32::MAX)
    }

    fn deliver(&mut self, local: usize, pkt: Packet, t: Slot) {
        let p = &mut self.ports[self.by_local[local] as usize];
        if pkt.flags & OPEN_LOOP == 0 {
            p.c.foreign += 1;
            return;
        }
        let Some(fr) = self.store.get(pkt.seq) else {
            p.c.expired += 1;
            return;
        };
        if pkt.has(CE) && fr[ETH_HEADER + 1] & 0b11 != 0b11 && set_ce(fr) {
            p.c.ce_marked += 1;
        }
        let n = fr.len();
        p.tx.push(fr, n, Duration::ZERO);
        p.queued = true;
        p.c.frames_out += 1;
        p.c.bytes_out += (n - ETH_HEADER) as u64;
        p.c.first_out_slot.get_or_insert(t);
        p.c.last_out_slot = Some(t);
        let class = (pkt.prio as usize).min(CLASSES - 1);
        p.c.class_out[class] += 1;
        let bin = (t / self.bin_slots) as usize;
        if bin < MAX_BINS {
            if p.c.out_bytes_per_bin.len() <= bin {
                p.c.out_bytes_per_bin.resize(bin + 1, [0; CLASSES]);
            }
            p.c.out_bytes_per_bin[bin][class] += (n - ETH_HEADER) as u64;
        }
        self.store.release(pkt.seq);
    }

    fn exchange(&mut self, t: Slot, endpoints: &mut [EndpointState], ready: &mut [u64]) {
        // A frame enters the emulated network in the slot of its arrival: an
        // emulator that fell behind the wall clock (descheduled, busy machine)
        // takes in, slot by slot, only what had arrived by then, instead of
        // everything at once as a burst the hosts never sent.
        let slot_ns = self.slot_ns;
        let epoch = *self
            .epoch_ns
            .get_or_insert_with(|| unix_ns() - t as f64 * slot_ns);
        let not_after = (epoch + (t + 1) as f64 * slot_ns) as u64;
        let VethHosts {
            ports,
            by_ip,
            store,
            max_frame,
            ..
        } = self;
        for p in ports.iter_mut() {
            if p.queued {
                p.queued = false;
                let failed = p.tx.flush();
                p.c.tx_errors += failed;
                p.c.frames_out -= failed.min(p.c.frames_out);
            }
        }
        for p in ports.iter_mut() {
            let mut intake = Intake {
                c: &mut p.c,
                src: p.host.endpoint,
                local: p.local,
                by_ip,
                store,
                max_frame: *max_frame,
                t,
            };
            p.rx.poll(POLL_LIMIT, not_after, |f| intake.take(f, endpoints, ready));
        }
    }

    fn finish(&mut self) -> serde_json::Value {
        let slot_us = self.slot_ns / 1000.0;
        let hosts: Vec<_> = self
            .ports
            .iter_mut()
            .map(|p| {
                let failed = p.tx.flush();
                p.c.tx_errors += failed;
                p.c.ring_drops += p.rx.take_stats().1;
                let c = &p.c;
                // The rate at which the emulated network delivered to this
                // host, in emulated time: what the emulator did, whatever the
                // wall clock.
                let emulated_gbps = match (c.first_out_slot, c.last_out_slot) {
                    (Some(a), Some(b)) if b > a => {
                        c.bytes_out as f64 * 8.0 / ((b - a) as f64 * slot_us * 1000.0)
                    }
                    _ => 0.0,
                };
                json!({
                    "endpoint": p.host.endpoint,
                    "namespace": p.host.namespace,
                    "veth": p.host.veth,
                    "address": p.host.ip.to_string(),
                    "counters": c,
                    "received_gbps_emulated": emulated_gbps,
                })
            })
            .collect();
        json!({"hosts": hosts, "store_frames": self.store.capacity(),
            "bin_us": self.bin_slots as f64 * self.slot_ns / 1000.0})
    }
}

/// With real hosts configured: open every host's veth for the partition that
/// emulates it and hand the I/O to the runner. One-line errors.
pub fn attach(cfg: &Config, setup: &Setup) -> Result<(), ConfigError> {
    let Some(rh) = &cfg.real_hosts else {
        return Ok(());
    };
    let hosts = rh.resolve(&setup.topo).map_err(ConfigError::Invalid)?;
    let parts = setup.shared.placement.parts;
    let mut ios: Vec<Option<Box<dyn HostIo>>> = Vec::new();
    for part in 0..parts {
        let capture = Capture::new(rh.capture, rh.xdp_mode);
        let io = VethHosts::open_with(&hosts, setup, part, cfg.emulation.mtu_bytes, capture)
            .map_err(ConfigError::Invalid)?;
        ios.push((!io.ports.is_empty()).then(|| Box::new(io) as Box<dyn HostIo>));
    }
    *setup
        .host_io
        .lock()
        .map_err(|_| ConfigError::Invalid("real hosts: poisoned setup".into()))? = ios;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_veth_is_locked_by_one_emulator_at_a_time() {
        let name = format!("rhlock{}", std::process::id());
        let first = lock_veth(&name).unwrap();
        let second = lock_veth(&name).err().unwrap();
        assert_eq!(
            second,
            format!("veth {name:?} is in use by another planck-emu")
        );
        drop(first);
        assert!(lock_veth(&name).is_ok());
    }
}
