//! Receiving a real host's frames: AF_PACKET with a TPACKET_V2 memory-mapped
//! ring on the emulator's end of its veth.
//!
//! Not the collector's TPACKET_V3 ring (`planck-collector` capture): V3 hands
//! frames over a block at a time, and a block that is not full is handed over
//! only when its timer (at least 1 ms) expires. A capture for statistics can
//! wait; a host's packets cannot, they would each gain up to a millisecond
//! before entering the emulated network. V2 hands over every frame as soon as
//! the kernel wrote it, so a poll each timeslot sees it within a slot.
//! Sending goes through the lab fabric's `InterfaceSink` (sendmmsg batches).

use std::io;
use std::sync::atomic::{AtomicU32, Ordering};

const SOL_PACKET: libc::c_int = 263;
const PACKET_RX_RING: libc::c_int = 5;
const PACKET_STATISTICS: libc::c_int = 6;
const PACKET_VERSION: libc::c_int = 10;
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;
const TPACKET_V2: libc::c_int = 1;
const TP_STATUS_KERNEL: u32 = 0;
const TP_STATUS_USER: u32 = 1;
/// The frame was longer than the ring's frame: what is there is truncated.
const TP_STATUS_COPY: u32 = 1 << 1;
/// The frame's transport checksum is not filled in (checksum offload on the host).
pub const TP_STATUS_CSUMNOTREADY: u32 = 1 << 3;
const TP_STATUS_VLAN_VALID: u32 = 1 << 4;
const ETH_P_ALL: u16 = 0x0003;

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

#[repr(C)]
#[derive(Default)]
struct TpacketStats {
    tp_packets: u32,
    tp_drops: u32,
}

/// One received frame as the ring shows it.
pub struct RxFrame<'a> {
    pub data: &'a [u8],
    /// Length on the wire (more than `data` when truncated).
    pub wire_len: u32,
    pub status: u32,
}

impl RxFrame<'_> {
    /// Truncated by the ring or tagged: not carried as it is.
    pub fn incomplete(&self) -> bool {
        self.status & TP_STATUS_COPY != 0 || self.data.len() < self.wire_len as usize
    }
    pub fn vlan_tagged(&self) -> bool {
        self.status & TP_STATUS_VLAN_VALID != 0
    }
}

pub struct RxRing {
    fd: libc::c_int,
    map: *mut u8,
    map_len: usize,
    frame_size: usize,
    frames: usize,
    next: usize,
}

// Owned by one worker thread at a time.
unsafe impl Send for RxRing {}

fn os_err(what: &str) -> String {
    format!("{what}: {}", io::Error::last_os_error())
}

fn setsockopt<T>(fd: libc::c_int, opt: libc::c_int, val: &T, what: &str) -> Result<(), String> {
    // SAFETY: `val` is a valid T for the duration of the call.
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

impl RxRing {
    /// A ring of `frames` frames able to hold frames of `max_frame` bytes, on `iface`.
    pub fn open(iface: &str, max_frame: usize, frames: usize) -> Result<RxRing, String> {
        let c = std::ffi::CString::new(iface).map_err(|_| format!("bad interface {iface:?}"))?;
        // SAFETY: a valid C string.
        let ifindex = unsafe { libc::if_nametoindex(c.as_ptr()) };
        if ifindex == 0 {
            return Err(format!("no interface {iface:?}"));
        }
        // Header, the sockaddr_ll the kernel puts after it, alignment: 128 bytes is ample.
        let frame_size = (max_frame + 128).next_power_of_two().max(2048);
        let block_size = frame_size.max(4096);
        let per_block = block_size / frame_size;
        let blocks = frames.div_ceil(per_block).max(1);
        let frames = blocks * per_block;
        // SAFETY: plain socket call; the fd is owned by the ring from here on.
        let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
        if fd < 0 {
            return Err(os_err("AF_PACKET socket (needs CAP_NET_RAW)"));
        }
        let mut ring = RxRing {
            fd,
            map: std::ptr::null_mut(),
            map_len: 0,
            frame_size,
            frames,
            next: 0,
        };
        setsockopt(fd, PACKET_VERSION, &TPACKET_V2, "PACKET_VERSION TPACKET_V2")?;
        let req = TpacketReq {
            tp_block_size: block_size as u32,
            tp_block_nr: blocks as u32,
            tp_frame_size: frame_size as u32,
            tp_frame_nr: frames as u32,
        };
        setsockopt(fd, PACKET_RX_RING, &req, "PACKET_RX_RING")?;
        let len = block_size * blocks;
        // SAFETY: mapping the ring the kernel just set up on this socket.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(os_err("mmap of the packet ring"));
        }
        ring.map = map as *mut u8;
        ring.map_len = len;
        // The emulator's own frames to this host leave by the same veth: not input.
        setsockopt(fd, PACKET_IGNORE_OUTGOING, &1i32, "PACKET_IGNORE_OUTGOING")?;
        // SAFETY: zeroed sockaddr_ll is valid; filled in below.
        let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = ETH_P_ALL.to_be();
        sll.sll_ifindex = ifindex as i32;
        // SAFETY: sll outlives the call.
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
        Ok(ring)
    }

    fn header(&self, i: usize) -> *mut Tpacket2Hdr {
        // SAFETY: i < frames, so the frame lies inside the mapping.
        unsafe { self.map.add(i * self.frame_size) as *mut Tpacket2Hdr }
    }

    fn status(&self, i: usize) -> &AtomicU32 {
        // tp_status is the first field: written by the kernel, handed back by us.
        // SAFETY: the header is inside the mapping and 4-aligned.
        unsafe { &*(self.header(i) as *const AtomicU32) }
    }

    /// Hand every frame the kernel has written to `on_frame`, oldest first, at
    /// most `limit` and none that arrived after `not_after_ns` (Unix time, the
    /// kernel's receive timestamp); returns how many. Never blocks.
    pub fn poll(
        &mut self,
        limit: usize,
        not_after_ns: u64,
        mut on_frame: impl FnMut(RxFrame<'_>),
    ) -> usize {
        let mut n = 0;
        while n < limit {
            let i = self.next;
            let status = self.status(i).load(Ordering::Acquire);
            if status & TP_STATUS_USER == 0 {
                break;
            }
            // SAFETY: the frame is ours (TP_STATUS_USER).
            let ts = unsafe {
                let h = &*self.header(i);
                h.tp_sec as u64 * 1_000_000_000 + h.tp_nsec as u64
            };
            if ts > not_after_ns {
                break;
            }
            // SAFETY: the kernel handed the frame to us (TP_STATUS_USER); the
            // offsets it wrote stay within the frame.
            let (data, wire_len) = unsafe {
                let h = &*self.header(i);
                let start = (h.tp_mac as usize).min(self.frame_size);
                let len = (h.tp_snaplen as usize).min(self.frame_size - start);
                (
                    std::slice::from_raw_parts((self.header(i) as *const u8).add(start), len),
                    h.tp_len,
                )
            };
            on_frame(RxFrame {
                data,
                wire_len,
                status,
            });
            self.status(i).store(TP_STATUS_KERNEL, Ordering::Release);
            self.next = (i + 1) % self.frames;
            n += 1;
        }
        n
    }

    /// Kernel counters since the last call: (frames, frames dropped for want of ring room).
    pub fn take_stats(&self) -> (u64, u64) {
        let mut st = TpacketStats::default();
        let mut len = std::mem::size_of::<TpacketStats>() as libc::socklen_t;
        // SAFETY: st is a valid tpacket_stats buffer of `len` bytes.
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

impl Drop for RxRing {
    fn drop(&mut self) {
        // SAFETY: the mapping and fd are ours and released once.
        unsafe {
            if !self.map.is_null() {
                libc::munmap(self.map as *mut libc::c_void, self.map_len);
            }
            libc::close(self.fd);
        }
    }
}
