//! Live capture: AF_PACKET with a memory-mapped ring. Several workers open their own ring on
//! the same interface and join one PACKET_FANOUT group (hash mode), so the kernel spreads
//! flows over workers and each worker owns its flows outright.
//!
//! Two handovers ([`Handover`]): TPACKET_V3 hands over whole blocks, which is cheapest per
//! frame but holds a frame until its block is full or retired by the block timeout (whose
//! 1 ms is one jiffy, 4 ms at HZ=250); TPACKET_V2 hands over every frame as it lands, which
//! bounds the capture's share of the loop to a wake-up at a somewhat higher cost per frame.

use std::ffi::CString;
use std::io;
use std::sync::atomic::{AtomicU32, Ordering};

use super::FrameMeta;

/// Most frames handed to the worker at once by [`PacketRing::poll_once`].
pub const DELIVERY_BATCH: usize = 64;

const SOL_PACKET: libc::c_int = 263;
const PACKET_ADD_MEMBERSHIP: libc::c_int = 1;
const PACKET_RX_RING: libc::c_int = 5;
const PACKET_STATISTICS: libc::c_int = 6;
const PACKET_VERSION: libc::c_int = 10;
const PACKET_FANOUT: libc::c_int = 18;
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;
const PACKET_MR_PROMISC: libc::c_ushort = 1;
const TPACKET_V2: libc::c_int = 1;
const TPACKET_V3: libc::c_int = 2;
const PACKET_FANOUT_HASH: u32 = 0;
const PACKET_FANOUT_FLAG_DEFRAG: u32 = 0x8000;
const TP_STATUS_KERNEL: u32 = 0;
const TP_STATUS_USER: u32 = 1;
const TP_STATUS_VLAN_VALID: u32 = 1 << 4;
const ETH_P_ALL: u16 = 0x0003;

#[repr(C)]
#[allow(dead_code)]
struct TpacketReq3 {
    tp_block_size: u32,
    tp_block_nr: u32,
    tp_frame_size: u32,
    tp_frame_nr: u32,
    tp_retire_blk_tov: u32,
    tp_sizeof_priv: u32,
    tp_feature_req_word: u32,
}

/// Head of `struct tpacket_block_desc` with its `tpacket_hdr_v1`.
#[repr(C)]
#[allow(dead_code)]
struct BlockDesc {
    version: u32,
    offset_to_priv: u32,
    block_status: u32,
    num_pkts: u32,
    offset_to_first_pkt: u32,
}

/// `struct tpacket3_hdr` with `tpacket_hdr_variant1`.
#[repr(C)]
#[allow(dead_code)]
struct Tpacket3Hdr {
    tp_next_offset: u32,
    tp_sec: u32,
    tp_nsec: u32,
    tp_snaplen: u32,
    tp_len: u32,
    tp_status: u32,
    tp_mac: u16,
    tp_net: u16,
    tp_rxhash: u32,
    tp_vlan_tci: u32,
    tp_vlan_tpid: u16,
    tp_padding: u16,
}

/// `struct tpacket_req` (TPACKET_V2).
#[repr(C)]
struct TpacketReq {
    tp_block_size: u32,
    tp_block_nr: u32,
    tp_frame_size: u32,
    tp_frame_nr: u32,
}

/// `struct tpacket2_hdr`.
#[repr(C)]
#[allow(dead_code)]
struct Tpacket2Hdr {
    tp_status: u32,
    tp_len: u32,
    tp_snaplen: u32,
    tp_mac: u16,
    tp_net: u16,
    tp_sec: u32,
    tp_nsec: u32,
    tp_vlan_tci: u16,
    tp_vlan_tpid: u16,
    tp_padding: [u8; 4],
}

/// Slot of one frame in a TPACKET_V2 ring: room for the header and any mirror sample
/// (samples are truncated well below this).
const V2_FRAME_SIZE: u32 = 2048;

#[repr(C)]
#[derive(Default)]
#[allow(dead_code)]
struct TpacketStatsV3 {
    tp_packets: u32,
    tp_drops: u32,
    tp_freeze_q_cnt: u32,
}

#[repr(C)]
#[allow(dead_code)]
struct PacketMreq {
    mr_ifindex: libc::c_int,
    mr_type: libc::c_ushort,
    mr_alen: libc::c_ushort,
    mr_address: [u8; 8],
}

/// How the kernel hands captured frames to the worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Handover {
    /// TPACKET_V3: whole blocks (cheapest per frame; a frame waits for its block).
    #[default]
    Block,
    /// TPACKET_V2: every frame as it lands (lowest latency).
    Frame,
}

#[derive(Clone, Copy, Debug)]
pub struct RingConfig {
    pub handover: Handover,
    pub block_size: u32,
    pub block_count: u32,
    /// Longest time the kernel holds a partly filled block (ms): bounds capture latency.
    pub block_timeout_ms: u32,
    pub promiscuous: bool,
}

impl Default for RingConfig {
    fn default() -> Self {
        RingConfig {
            handover: Handover::Block,
            block_size: 1 << 20,
            block_count: 64,
            block_timeout_ms: 1,
            promiscuous: true,
        }
    }
}

pub struct PacketRing {
    handover: Handover,
    fd: libc::c_int,
    map: *mut u8,
    map_len: usize,
    block_size: usize,
    block_count: usize,
    next_block: usize,
    /// TPACKET_V2: frames per block, total frames, next frame slot.
    frames_per_block: usize,
    frame_count: usize,
    next_frame: usize,
}

// The ring is owned by one worker thread at a time.
unsafe impl Send for PacketRing {}

fn os_err(what: &str) -> String {
    format!("{what}: {}", io::Error::last_os_error())
}

fn setsockopt<T>(fd: libc::c_int, opt: libc::c_int, val: &T, what: &str) -> Result<(), String> {
    let rc = unsafe {
        libc::setsockopt(
            fd,
            SOL_PACKET,
            opt,
            val as *const T as *const libc::c_void,
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    };
    if rc != 0 { Err(os_err(what)) } else { Ok(()) }
}

pub fn interface_index(name: &str) -> Result<u32, String> {
    let c = CString::new(name).map_err(|_| format!("bad interface name {name:?}"))?;
    let idx = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if idx == 0 {
        Err(format!("no interface {name:?}"))
    } else {
        Ok(idx)
    }
}

impl PacketRing {
    /// Open a ring on `iface`; `fanout_group` joins the hash fanout group with that id.
    pub fn open(
        iface: &str,
        cfg: &RingConfig,
        fanout_group: Option<u16>,
    ) -> Result<PacketRing, String> {
        if cfg.block_size < 4096 || !cfg.block_size.is_power_of_two() || cfg.block_count == 0 {
            return Err(
                "ring block size must be a power of two >= 4096 and block count > 0".into(),
            );
        }
        let ifindex = interface_index(iface)?;
        // Protocol 0 at creation: nothing is queued before the ring and bind are set.
        let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
        if fd < 0 {
            return Err(os_err("AF_PACKET socket (needs CAP_NET_RAW)"));
        }
        let frames_per_block = (cfg.block_size / V2_FRAME_SIZE) as usize;
        let mut ring = PacketRing {
            handover: cfg.handover,
            fd,
            map: std::ptr::null_mut(),
            map_len: 0,
            block_size: cfg.block_size as usize,
            block_count: cfg.block_count as usize,
            next_block: 0,
            frames_per_block,
            frame_count: frames_per_block * cfg.block_count as usize,
            next_frame: 0,
        };
        match cfg.handover {
            Handover::Block => {
                setsockopt(fd, PACKET_VERSION, &TPACKET_V3, "PACKET_VERSION TPACKET_V3")?;
                let req = TpacketReq3 {
                    tp_block_size: cfg.block_size,
                    tp_block_nr: cfg.block_count,
                    tp_frame_size: 2048,
                    tp_frame_nr: cfg.block_size / 2048 * cfg.block_count,
                    tp_retire_blk_tov: cfg.block_timeout_ms.max(1),
                    tp_sizeof_priv: 0,
                    tp_feature_req_word: 0,
                };
                setsockopt(fd, PACKET_RX_RING, &req, "PACKET_RX_RING")?;
            }
            Handover::Frame => {
                setsockopt(fd, PACKET_VERSION, &TPACKET_V2, "PACKET_VERSION TPACKET_V2")?;
                let req = TpacketReq {
                    tp_block_size: cfg.block_size,
                    tp_block_nr: cfg.block_count,
                    tp_frame_size: V2_FRAME_SIZE,
                    tp_frame_nr: ring.frame_count as u32,
                };
                setsockopt(fd, PACKET_RX_RING, &req, "PACKET_RX_RING")?;
            }
        }
        let len = cfg.block_size as usize * cfg.block_count as usize;
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_LOCKED,
                fd,
                0,
            )
        };
        let map = if map == libc::MAP_FAILED {
            // MAP_LOCKED can fail under RLIMIT_MEMLOCK; the ring works unlocked too.
            unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED,
                    fd,
                    0,
                )
            }
        } else {
            map
        };
        if map == libc::MAP_FAILED {
            return Err(os_err("mmap of the packet ring"));
        }
        ring.map = map as *mut u8;
        ring.map_len = len;
        let _ = setsockopt(fd, PACKET_IGNORE_OUTGOING, &1i32, "PACKET_IGNORE_OUTGOING");
        let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = ETH_P_ALL.to_be();
        sll.sll_ifindex = ifindex as i32;
        let rc = unsafe {
            libc::bind(
                fd,
                &sll as *const libc::sockaddr_ll as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_ll>() as u32,
            )
        };
        if rc != 0 {
            return Err(os_err(&format!("bind to {iface}")));
        }
        if cfg.promiscuous {
            let mreq = PacketMreq {
                mr_ifindex: ifindex as i32,
                mr_type: PACKET_MR_PROMISC,
                mr_alen: 0,
                mr_address: [0; 8],
            };
            setsockopt(
                fd,
                PACKET_ADD_MEMBERSHIP,
                &mreq,
                "PACKET_ADD_MEMBERSHIP promiscuous",
            )?;
        }
        if let Some(group) = fanout_group {
            let arg: u32 = group as u32 | ((PACKET_FANOUT_HASH | PACKET_FANOUT_FLAG_DEFRAG) << 16);
            setsockopt(fd, PACKET_FANOUT, &arg, "PACKET_FANOUT")?;
        }
        Ok(ring)
    }

    fn block(&self, i: usize) -> *mut u8 {
        unsafe { self.map.add(i * self.block_size) }
    }

    fn block_status(&self, i: usize) -> &AtomicU32 {
        // block_status is written by the kernel and handed back by us: acquire/release.
        unsafe {
            &*(self
                .block(i)
                .add(std::mem::offset_of!(BlockDesc, block_status))
                as *const AtomicU32)
        }
    }

    /// Process every block (or frame) the kernel has handed over, waiting up to `wait_ms` for
    /// one. Frames are handed over in order, in groups of up to [`DELIVERY_BATCH`] (so the
    /// worker can overlap their memory accesses). Returns the number of frames seen.
    pub fn poll_once(
        &mut self,
        wait_ms: i32,
        on_frames: impl FnMut(&[(FrameMeta, &[u8])]),
    ) -> Result<usize, String> {
        match self.handover {
            Handover::Block => self.poll_blocks(wait_ms, on_frames),
            Handover::Frame => self.poll_frames(wait_ms, on_frames),
        }
    }

    fn wait(&self, wait_ms: i32) -> Result<(), String> {
        let mut pfd = libc::pollfd {
            fd: self.fd,
            events: libc::POLLIN | libc::POLLERR,
            revents: 0,
        };
        let rc = unsafe { libc::poll(&mut pfd, 1, wait_ms) };
        if rc < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(format!("poll: {e}"));
            }
        }
        Ok(())
    }

    fn frame_slot(&self, i: usize) -> *mut u8 {
        let block = i / self.frames_per_block;
        let within = i % self.frames_per_block;
        unsafe {
            self.map
                .add(block * self.block_size + within * V2_FRAME_SIZE as usize)
        }
    }

    fn frame_status(&self, i: usize) -> &AtomicU32 {
        // tp_status leads the header; written by the kernel, handed back by us.
        unsafe { &*(self.frame_slot(i) as *const AtomicU32) }
    }

    /// TPACKET_V2: every frame the kernel has marked as ours, in ring order, delivered in
    /// groups of up to [`DELIVERY_BATCH`]; their slots go back to the kernel after delivery.
    fn poll_frames(
        &mut self,
        wait_ms: i32,
        mut on_frames: impl FnMut(&[(FrameMeta, &[u8])]),
    ) -> Result<usize, String> {
        if self.frame_status(self.next_frame).load(Ordering::Acquire) & TP_STATUS_USER == 0 {
            self.wait(wait_ms)?;
        }
        let none = FrameMeta {
            ts_ns: 0,
            vlan: None,
            wire_len: 0,
        };
        let mut frames = 0;
        loop {
            let first = self.next_frame;
            let mut batch: [(FrameMeta, &[u8]); DELIVERY_BATCH] = [(none, &[]); DELIVERY_BATCH];
            let mut taken = 0;
            while taken < DELIVERY_BATCH {
                let i = (first + taken) % self.frame_count;
                let status = self.frame_status(i).load(Ordering::Acquire);
                if status & TP_STATUS_USER == 0 {
                    break;
                }
                let base = self.frame_slot(i);
                let hdr = unsafe { &*(base as *const Tpacket2Hdr) };
                let start = hdr.tp_mac as usize;
                let len = (hdr.tp_snaplen as usize).min((V2_FRAME_SIZE as usize).saturating_sub(start));
                let data = unsafe { std::slice::from_raw_parts(base.add(start), len) };
                let vlan = (status & TP_STATUS_VLAN_VALID != 0)
                    .then_some(hdr.tp_vlan_tci & 0x0fff);
                batch[taken] = (
                    FrameMeta {
                        ts_ns: hdr.tp_sec as u64 * 1_000_000_000 + hdr.tp_nsec as u64,
                        vlan,
                        wire_len: hdr.tp_len,
                    },
                    data,
                );
                taken += 1;
            }
            if taken == 0 {
                break;
            }
            // The frames point into their slots: deliver them before handing the slots back.
            on_frames(&batch[..taken]);
            for k in 0..taken {
                self.frame_status((first + k) % self.frame_count)
                    .store(TP_STATUS_KERNEL, Ordering::Release);
            }
            self.next_frame = (first + taken) % self.frame_count;
            frames += taken;
            if frames >= self.frame_count {
                break;
            }
        }
        Ok(frames)
    }

    fn poll_blocks(
        &mut self,
        wait_ms: i32,
        mut on_frames: impl FnMut(&[(FrameMeta, &[u8])]),
    ) -> Result<usize, String> {
        let mut frames = 0;
        let none = FrameMeta {
            ts_ns: 0,
            vlan: None,
            wire_len: 0,
        };
        let mut batch: [(FrameMeta, &[u8]); DELIVERY_BATCH] = [(none, &[]); DELIVERY_BATCH];
        let mut batched = 0;
        if self.block_status(self.next_block).load(Ordering::Acquire) & TP_STATUS_USER == 0 {
            self.wait(wait_ms)?;
        }
        for _ in 0..self.block_count {
            let i = self.next_block;
            let status = self.block_status(i);
            if status.load(Ordering::Acquire) & TP_STATUS_USER == 0 {
                break;
            }
            let base = self.block(i);
            let desc = unsafe { &*(base as *const BlockDesc) };
            let mut off = desc.offset_to_first_pkt as usize;
            for _ in 0..desc.num_pkts {
                if off + std::mem::size_of::<Tpacket3Hdr>() > self.block_size {
                    break;
                }
                let hdr = unsafe { &*(base.add(off) as *const Tpacket3Hdr) };
                let start = off + hdr.tp_mac as usize;
                let end = start + hdr.tp_snaplen as usize;
                if end <= self.block_size {
                    let data = unsafe {
                        std::slice::from_raw_parts(base.add(start), hdr.tp_snaplen as usize)
                    };
                    let vlan = (hdr.tp_status & TP_STATUS_VLAN_VALID != 0)
                        .then_some((hdr.tp_vlan_tci & 0x0fff) as u16);
                    let meta = FrameMeta {
                        ts_ns: hdr.tp_sec as u64 * 1_000_000_000 + hdr.tp_nsec as u64,
                        vlan,
                        wire_len: hdr.tp_len,
                    };
                    batch[batched] = (meta, data);
                    batched += 1;
                    if batched == DELIVERY_BATCH {
                        on_frames(&batch);
                        batched = 0;
                    }
                    frames += 1;
                }
                if hdr.tp_next_offset == 0 {
                    break;
                }
                off += hdr.tp_next_offset as usize;
            }
            // The frames point into the block: deliver them before handing it back.
            if batched > 0 {
                on_frames(&batch[..batched]);
                batched = 0;
            }
            status.store(TP_STATUS_KERNEL, Ordering::Release);
            self.next_block = (self.next_block + 1) % self.block_count;
        }
        Ok(frames)
    }

    /// Kernel counters since the last call: (frames received, frames dropped).
    pub fn take_stats(&self) -> (u64, u64) {
        let mut st = TpacketStatsV3::default();
        let mut len = std::mem::size_of::<TpacketStatsV3>() as libc::socklen_t;
        let rc = unsafe {
            libc::getsockopt(
                self.fd,
                SOL_PACKET,
                PACKET_STATISTICS,
                &mut st as *mut _ as *mut libc::c_void,
                &mut len,
            )
        };
        if rc != 0 {
            return (0, 0);
        }
        (st.tp_packets as u64, st.tp_drops as u64)
    }
}

impl Drop for PacketRing {
    fn drop(&mut self) {
        unsafe {
            if !self.map.is_null() {
                libc::munmap(self.map as *mut libc::c_void, self.map_len);
            }
            libc::close(self.fd);
        }
    }
}
