//! Receiving a real host's frames with AF_XDP: the XDP program of `xdp_prog`
//! on the emulator's end of the veth redirects every frame to an XDP socket
//! whose memory (UMEM) the emulator maps; the kernel copies each frame into a
//! chunk of it and hands over a descriptor on the receive ring. Chunks go back
//! to the kernel on the fill ring as soon as the emulator has taken the frame
//! (into its frame store), so the ring never waits on the emulated network.
//!
//! A veth has no zero-copy AF_XDP: the socket is bound in copy mode
//! (`XDP_COPY`), and the kernel copies each frame as it does into the
//! AF_PACKET ring, in the sending host's context. `cargo bench -p planck-emu
//! --bench capture` found the two paths equal per CPU-second on a veth
//! (docs/emulator.md, "Throughput of the real path"); AF_XDP is here for a
//! NIC with zero-copy support and to measure against.
//!
//! Raw `libc` rather than a crate: xsk-rs builds libxdp and libbpf from
//! vendored C sources (clang, libelf and zlib headers at every clean build of
//! the emulator), and xdpilone, the pure-Rust one, is EUPL-1.2 licensed. The
//! socket protocol is four setsockopts, three mmaps and a bind; the rings are
//! a producer and a consumer index each (`linux/if_xdp.h`).

use std::io;
use std::sync::atomic::{AtomicU32, Ordering};

use super::ring::RxFrame;
use super::xdp_prog::{META_BYTES, XdpAttachment, XdpMode, attach};

/// The kernel leaves this much room in front of each frame in a chunk
/// (XDP_PACKET_HEADROOM); the program's metadata lies inside it.
const XDP_HEADROOM: usize = 256;
/// Aligned chunks are at most a page.
const MAX_CHUNK: usize = 4096;

/// The longest frame an AF_XDP capture can take (Ethernet header included).
pub const MAX_FRAME: usize = MAX_CHUNK - XDP_HEADROOM;

fn os_err(what: &str) -> String {
    format!("{what}: {}", io::Error::last_os_error())
}

fn sockopt<T>(fd: i32, opt: i32, val: &T, what: &str) -> Result<(), String> {
    // SAFETY: `val` is a valid T for the duration of the call.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_XDP,
            opt,
            val as *const T as *const libc::c_void,
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    };
    if rc != 0 { Err(os_err(what)) } else { Ok(()) }
}

/// One mapped ring: the kernel's producer and consumer indices and the entries.
struct Ring<T> {
    map: *mut u8,
    map_len: usize,
    producer: *const AtomicU32,
    consumer: *const AtomicU32,
    entries: *mut T,
    mask: u32,
}

impl<T> Ring<T> {
    fn map(
        fd: i32,
        off: &libc::xdp_ring_offset,
        size: u32,
        pgoff: u64,
        what: &str,
    ) -> Result<Ring<T>, String> {
        let len = off.desc as usize + size as usize * std::mem::size_of::<T>();
        // SAFETY: mapping the ring the kernel set up on this socket at `pgoff`.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_POPULATE,
                fd,
                pgoff as libc::off_t,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(os_err(&format!("mmap of the {what} ring")));
        }
        let map = map as *mut u8;
        // SAFETY: the offsets come from the kernel and lie inside the mapping.
        unsafe {
            Ok(Ring {
                map,
                map_len: len,
                producer: map.add(off.producer as usize) as *const AtomicU32,
                consumer: map.add(off.consumer as usize) as *const AtomicU32,
                entries: map.add(off.desc as usize) as *mut T,
                mask: size - 1,
            })
        }
    }
    fn producer(&self) -> &AtomicU32 {
        // SAFETY: inside the mapping, 4-aligned, shared with the kernel as an atomic.
        unsafe { &*self.producer }
    }
    fn consumer(&self) -> &AtomicU32 {
        // SAFETY: as `producer`.
        unsafe { &*self.consumer }
    }
    fn entry(&self, i: u32) -> *mut T {
        // SAFETY: masked index inside the ring.
        unsafe { self.entries.add((i & self.mask) as usize) }
    }
}

impl<T> Drop for Ring<T> {
    fn drop(&mut self) {
        // SAFETY: our mapping, unmapped once.
        unsafe { libc::munmap(self.map as *mut libc::c_void, self.map_len) };
    }
}

/// An XDP socket on queue 0 of one interface with its UMEM, fill and receive
/// rings and the program that feeds it.
pub struct XskRing {
    // Field order is drop order: the program leaves the interface first, then
    // the rings, the socket and the memory go.
    _prog: XdpAttachment,
    rx: Ring<libc::xdp_desc>,
    fill: Ring<u64>,
    mem: Memory,
    chunk: usize,
    /// Our copies of the indices we own: the receive ring's consumer, the fill ring's producer.
    rx_next: u32,
    fill_next: u32,
    /// Descriptors outside the UMEM (never expected: the kernel writes them).
    pub invalid: u64,
    /// Frames taken, and kernel drops counted, at the last `take_stats`.
    taken: u64,
    seen_drops: u64,
    seen_frames: u64,
}

// Owned by one worker thread at a time.
unsafe impl Send for XskRing {}

fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn realtime_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: as above.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl XskRing {
    /// A socket taking frames of up to `max_frame` bytes from `iface`, with
    /// `frames` chunks of memory (a power of two), the program attached in `mode`.
    pub fn open(
        iface: &str,
        max_frame: usize,
        frames: usize,
        mode: XdpMode,
    ) -> Result<XskRing, String> {
        if max_frame > MAX_FRAME {
            return Err(format!(
                "AF_XDP capture takes frames up to {MAX_FRAME} bytes, asked for {max_frame} (lower emulation.mtu_bytes or use capture = \"afpacket\")"
            ));
        }
        let c = std::ffi::CString::new(iface).map_err(|_| format!("bad interface {iface:?}"))?;
        // SAFETY: a valid C string.
        let ifindex = unsafe { libc::if_nametoindex(c.as_ptr()) };
        if ifindex == 0 {
            return Err(format!("no interface {iface:?}"));
        }
        let rx_queues = std::fs::read_dir(format!("/sys/class/net/{iface}/queues"))
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .filter(|e| e.file_name().to_string_lossy().starts_with("rx-"))
                    .count()
            })
            .unwrap_or(1);
        if rx_queues != 1 {
            return Err(format!(
                "{iface:?} has {rx_queues} receive queues; the AF_XDP capture reads queue 0 only (make the veth with one queue)"
            ));
        }
        let frames = frames.next_power_of_two().max(64);
        let chunk = (max_frame + XDP_HEADROOM).next_power_of_two().max(2048);
        let umem_len = frames * chunk;
        // SAFETY: an anonymous private mapping; ours until drop. Zeroed, so every
        // chunk's metadata reads 0 ("no receive time") until the program writes it.
        let umem = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                umem_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_POPULATE,
                -1,
                0,
            )
        };
        if umem == libc::MAP_FAILED {
            return Err(os_err("mmap of the AF_XDP memory"));
        }
        // Released on an early return as when the ring drops.
        let mut mem = Memory {
            fd: -1,
            umem: umem as *mut u8,
            len: umem_len,
        };
        // SAFETY: plain socket call.
        let fd = unsafe { libc::socket(libc::AF_XDP, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
        if fd < 0 {
            let e = io::Error::last_os_error();
            return Err(match e.raw_os_error() {
                Some(libc::EAFNOSUPPORT) => format!(
                    "this kernel has no AF_XDP sockets (CONFIG_XDP_SOCKETS); use capture = \"afpacket\": {e}"
                ),
                Some(libc::EPERM) => format!("AF_XDP socket needs root (CAP_NET_RAW): {e}"),
                _ => format!("AF_XDP socket: {e}"),
            });
        }
        mem.fd = fd;
        let reg = libc::xdp_umem_reg {
            addr: mem.umem as u64,
            len: umem_len as u64,
            chunk_size: chunk as u32,
            headroom: 0,
            flags: 0,
            tx_metadata_len: 0,
        };
        sockopt(fd, libc::XDP_UMEM_REG, &reg, "XDP_UMEM_REG")?;
        let size = frames as u32;
        sockopt(fd, libc::XDP_UMEM_FILL_RING, &size, "XDP_UMEM_FILL_RING")?;
        // The kernel binds only with a completion ring, even one never used.
        sockopt(
            fd,
            libc::XDP_UMEM_COMPLETION_RING,
            &size,
            "XDP_UMEM_COMPLETION_RING",
        )?;
        sockopt(fd, libc::XDP_RX_RING, &size, "XDP_RX_RING")?;
        // SAFETY: zeroed offsets are valid; the kernel fills them in.
        let mut off: libc::xdp_mmap_offsets = unsafe { std::mem::zeroed() };
        let mut len = std::mem::size_of::<libc::xdp_mmap_offsets>() as libc::socklen_t;
        // SAFETY: `off` is writable for `len` bytes.
        let rc = unsafe {
            libc::getsockopt(
                fd,
                libc::SOL_XDP,
                libc::XDP_MMAP_OFFSETS,
                &mut off as *mut _ as *mut libc::c_void,
                &mut len,
            )
        };
        if rc != 0 || len as usize != std::mem::size_of::<libc::xdp_mmap_offsets>() {
            return Err(os_err("XDP_MMAP_OFFSETS (needs Linux 5.4 or later)"));
        }
        let rx = Ring::<libc::xdp_desc>::map(
            fd,
            &off.rx,
            size,
            libc::XDP_PGOFF_RX_RING as u64,
            "receive",
        )?;
        let fill = Ring::<u64>::map(fd, &off.fr, size, libc::XDP_UMEM_PGOFF_FILL_RING, "fill")?;
        // Every chunk to the kernel before it can receive.
        for i in 0..size {
            // SAFETY: entry i of the fill ring, which we produce.
            unsafe { *fill.entry(i) = i as u64 * chunk as u64 };
        }
        fill.producer().store(size, Ordering::Release);
        // SAFETY: zeroed sockaddr_xdp is valid; filled in below.
        let mut sxdp: libc::sockaddr_xdp = unsafe { std::mem::zeroed() };
        sxdp.sxdp_family = libc::AF_XDP as u16;
        sxdp.sxdp_flags = libc::XDP_COPY;
        sxdp.sxdp_ifindex = ifindex;
        sxdp.sxdp_queue_id = 0;
        // A closed socket lets go of its queue only after an RCU grace period
        // (the kernel frees its memory pool deferred): an emulator started
        // right after another on the same veth waits for that, a second
        // capture alive beside the first gets EBUSY after a second.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
        let rc = loop {
            // SAFETY: sxdp outlives the call.
            let rc = unsafe {
                libc::bind(
                    fd,
                    &sxdp as *const libc::sockaddr_xdp as *const libc::sockaddr,
                    std::mem::size_of::<libc::sockaddr_xdp>() as u32,
                )
            };
            let busy = rc != 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EBUSY);
            if !busy || std::time::Instant::now() > deadline {
                break rc;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        };
        if rc != 0 {
            let e = io::Error::last_os_error();
            return Err(if e.raw_os_error() == Some(libc::EBUSY) {
                format!("{iface:?} is read by another AF_XDP socket already (another capture): {e}")
            } else {
                format!("binding an AF_XDP socket to {iface:?}: {e}")
            });
        }
        let prog = attach(iface, ifindex, fd, mode)?;
        Ok(XskRing {
            _prog: prog,
            rx,
            fill,
            mem,
            chunk,
            rx_next: 0,
            fill_next: size,
            invalid: 0,
            taken: 0,
            seen_drops: 0,
            seen_frames: 0,
        })
    }

    /// Hand every frame the kernel has written to `on_frame`, oldest first, at
    /// most `limit` and none that arrived after `not_after_ns` (Unix time; the
    /// program's receive time); returns how many. Never blocks.
    pub fn poll(
        &mut self,
        limit: usize,
        not_after_ns: u64,
        mut on_frame: impl FnMut(RxFrame<'_>),
    ) -> usize {
        let ready = self
            .rx
            .producer()
            .load(Ordering::Acquire)
            .wrapping_sub(self.rx_next);
        if ready == 0 {
            return 0;
        }
        // The program stamps CLOCK_MONOTONIC; the slots follow Unix time.
        let mono_to_unix = realtime_ns().wrapping_sub(monotonic_ns());
        let take = (ready as usize).min(limit) as u32;
        let mut n = 0u32;
        while n < take {
            // SAFETY: entries between our consumer index and the kernel's producer are ours.
            let d = unsafe { *self.rx.entry(self.rx_next) };
            let (addr, len) = (d.addr as usize, d.len as usize);
            let base = addr - addr % self.chunk;
            if addr < META_BYTES || addr + len > self.mem.len || addr + len > base + self.chunk {
                self.invalid += 1;
            } else {
                // SAFETY: bounds checked above; the kernel wrote the metadata
                // in front of the frame, or left the zero we put there.
                let stamp = unsafe {
                    (self.mem.umem.add(addr - META_BYTES) as *const u64).read_unaligned()
                };
                if stamp != 0 && stamp.wrapping_add(mono_to_unix) > not_after_ns {
                    break;
                }
                // SAFETY: the chunk is ours until it goes back on the fill ring.
                let data = unsafe { std::slice::from_raw_parts(self.mem.umem.add(addr), len) };
                on_frame(RxFrame {
                    data,
                    wire_len: len as u32,
                    status: 0,
                });
                // SAFETY: as above; 0 = no receive time, for the chunk's next frame.
                unsafe { (self.mem.umem.add(addr - META_BYTES) as *mut u64).write_unaligned(0) };
            }
            // SAFETY: the fill ring has room for every chunk (its size is the chunk count).
            unsafe { *self.fill.entry(self.fill_next) = base as u64 };
            self.fill_next = self.fill_next.wrapping_add(1);
            self.rx_next = self.rx_next.wrapping_add(1);
            n += 1;
        }
        self.taken += n as u64;
        if n > 0 {
            // Release: the frames are read (and the chunks' stamps cleared) before
            // the kernel may write them again.
            self.fill
                .producer()
                .store(self.fill_next, Ordering::Release);
            self.rx.consumer().store(self.rx_next, Ordering::Release);
        }
        n as usize
    }

    /// Kernel counters since the last call: (frames handed over, frames
    /// dropped for want of ring or fill room or as invalid).
    pub fn take_stats(&mut self) -> (u64, u64) {
        // SAFETY: zeroed statistics are valid; the kernel fills them in.
        let mut st: libc::xdp_statistics = unsafe { std::mem::zeroed() };
        let mut len = std::mem::size_of::<libc::xdp_statistics>() as libc::socklen_t;
        // SAFETY: `st` is writable for `len` bytes.
        let rc = unsafe {
            libc::getsockopt(
                self.mem.fd,
                libc::SOL_XDP,
                libc::XDP_STATISTICS,
                &mut st as *mut _ as *mut libc::c_void,
                &mut len,
            )
        };
        if rc != 0 {
            return (0, 0);
        }
        // rx_dropped: no chunk on the fill ring, or a frame longer than a chunk;
        // rx_ring_full: no room on the receive ring. Each drop counts in one.
        // (rx_fill_ring_empty_descs counts the same empty fill ring again.)
        let drops = st.rx_dropped + st.rx_ring_full;
        let frames = self.taken;
        let out = (
            frames - self.seen_frames,
            drops - self.seen_drops.min(drops),
        );
        self.seen_drops = drops;
        self.seen_frames = frames;
        out
    }
}

/// The socket and its memory, released after the program and the rings.
struct Memory {
    fd: i32,
    umem: *mut u8,
    len: usize,
}

impl Drop for Memory {
    fn drop(&mut self) {
        // SAFETY: ours, released once; nothing maps or uses them after this.
        unsafe {
            if self.fd >= 0 {
                libc::close(self.fd);
            }
            libc::munmap(self.umem as *mut libc::c_void, self.len);
        }
    }
}
