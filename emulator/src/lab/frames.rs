//! Mirrored samples as real frames (802.1Q / IPv4 / TCP) and where they go:
//! an AF_PACKET socket on a local interface (sendmmsg batches) or a pcap file.

use std::fs::File;
use std::net::Ipv4Addr;
use std::path::Path;
use std::time::Duration;

use std::io::{BufWriter, Write};
use std::sync::{Arc, Mutex};

use etherparse::{
    EtherType, Ethernet2Header, IpNumber, Ipv4Header, SingleVlanHeader, TcpHeader, VlanId, VlanPcp,
};
use pcap_file::pcap::{PcapPacket, PcapWriter};

use super::rules::Mac;

/// Everything a mirrored frame shows of the packet it copies.
#[derive(Clone, Copy, Debug)]
pub struct FrameFields {
    pub vlan: u16,
    pub eth_src: Mac,
    pub eth_dst: Mac,
    pub ip_src: Ipv4Addr,
    pub ip_dst: Ipv4Addr,
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub ack: u32,
    /// TCP payload bytes of the emulated packet.
    pub payload: u16,
    /// IPv4 Identification (the PINT digest when the fabric runs PINT, else 0).
    pub ip_id: u16,
    /// IPv4 TTL as the mirroring switch sent the packet.
    pub ttl: u8,
}

/// Ethernet + IPv4 + TCP header bytes of an emulated packet (no VLAN tag).
pub const HEADER_BYTES: u32 = 14 + 20 + 20;
/// 802.1Q tag added by the mirror.
pub const VLAN_BYTES: u32 = 4;

static ZEROS: [u8; 9000] = [0; 9000];

/// Write the frame's first `snap_len` bytes into `out` (cleared first): the
/// headers are built in full (lengths and checksums as for the whole packet),
/// the zero payload only up to the snap length. Returns the untruncated length.
pub fn build_frame(f: &FrameFields, snap_len: usize, out: &mut Vec<u8>) -> usize {
    out.clear();
    let payload = &ZEROS[..(f.payload as usize).min(ZEROS.len())];
    let eth = Ethernet2Header {
        source: f.eth_src.octets(),
        destination: f.eth_dst.octets(),
        ether_type: EtherType::VLAN_TAGGED_FRAME,
    };
    let vlan = SingleVlanHeader {
        pcp: VlanPcp::ZERO,
        drop_eligible_indicator: false,
        vlan_id: VlanId::try_new(f.vlan & 0x0fff).unwrap_or(VlanId::ZERO),
        ether_type: EtherType::IPV4,
    };
    let mut tcp = TcpHeader::new(f.sport, f.dport, f.seq, 65535);
    tcp.ack = true;
    tcp.psh = true;
    tcp.acknowledgment_number = f.ack;
    let mut ip = Ipv4Header::new(
        (tcp.header_len() + payload.len()) as u16,
        f.ttl,
        IpNumber::TCP,
        f.ip_src.octets(),
        f.ip_dst.octets(),
    )
    .expect("payload fits IPv4");
    ip.identification = f.ip_id;
    ip.dont_fragment = true;
    ip.header_checksum = ip.calc_header_checksum();
    // A zero payload adds nothing to the one's-complement sum but its length.
    tcp.checksum = tcp
        .calc_checksum_ipv4(&ip, payload)
        .expect("payload fits TCP");
    // Writing into a Vec cannot fail.
    eth.write(out).expect("vec write");
    vlan.write(out).expect("vec write");
    ip.write(out).expect("vec write");
    tcp.write(out).expect("vec write");
    let full = out.len() + payload.len();
    let snap = snap_len.max(1).min(full);
    if snap > out.len() {
        out.extend_from_slice(&payload[..snap - out.len()]);
    } else {
        out.truncate(snap);
    }
    full
}

/// A pcap file written through a buffer that the engine flushes every few
/// slots, so the file is readable while the fabric runs.
#[derive(Clone)]
pub struct SharedFile(Arc<Mutex<BufWriter<File>>>);

impl Write for SharedFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| std::io::Error::other("poisoned"))?
            .write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0
            .lock()
            .map_err(|_| std::io::Error::other("poisoned"))?
            .flush()
    }
}

/// Where mirrored frames go.
pub enum FrameSink {
    Pcap(PcapWriter<SharedFile>, SharedFile),
    Interface(InterfaceSink),
}

impl FrameSink {
    pub fn pcap(path: &Path) -> Result<FrameSink, String> {
        let f = File::create(path).map_err(|e| format!("pcap {}: {e}", path.display()))?;
        let shared = SharedFile(Arc::new(Mutex::new(BufWriter::with_capacity(1 << 16, f))));
        let w =
            PcapWriter::new(shared.clone()).map_err(|e| format!("pcap {}: {e}", path.display()))?;
        Ok(FrameSink::Pcap(w, shared))
    }

    pub fn interface(name: &str) -> Result<FrameSink, String> {
        InterfaceSink::open(name).map(FrameSink::Interface)
    }

    /// Queue one frame (pcap writes at once); returns false on a write failure.
    pub fn push(&mut self, frame: &[u8], orig_len: usize, ts: Duration) -> bool {
        match self {
            FrameSink::Pcap(w, _) => w
                .write_packet(&PcapPacket::new(ts, orig_len as u32, frame))
                .is_ok(),
            FrameSink::Interface(s) => {
                s.queue(frame);
                true
            }
        }
    }

    /// Send what is queued; returns the number of frames that failed.
    pub fn flush(&mut self) -> u64 {
        match self {
            FrameSink::Pcap(_, file) => u64::from(file.flush().is_err()),
            FrameSink::Interface(s) => s.flush(),
        }
    }
}

/// AF_PACKET transmit socket bound to one interface; frames are batched and
/// sent with one sendmmsg per flush.
pub struct InterfaceSink {
    fd: libc::c_int,
    ifindex: libc::c_int,
    frames: Vec<Vec<u8>>,
    used: usize,
    pending_failures: u64,
}

const BATCH: usize = 64;

impl InterfaceSink {
    pub fn open(name: &str) -> Result<InterfaceSink, String> {
        let cname = std::ffi::CString::new(name).map_err(|_| format!("bad interface {name:?}"))?;
        // SAFETY: plain libc calls with valid arguments; the fd is owned by the sink.
        unsafe {
            let ifindex = libc::if_nametoindex(cname.as_ptr());
            if ifindex == 0 {
                return Err(format!("no interface {name:?}"));
            }
            let fd = libc::socket(libc::AF_PACKET, libc::SOCK_RAW, 0);
            if fd < 0 {
                return Err(format!(
                    "AF_PACKET socket: {}",
                    std::io::Error::last_os_error()
                ));
            }
            // Mirror frames skip the interface's qdisc: they leave as the fabric emits them,
            // without a queueing layer's lock and enqueue/dequeue on the way (best effort: an
            // older kernel without the option keeps the qdisc path).
            let one: libc::c_int = 1;
            libc::setsockopt(
                fd,
                libc::SOL_PACKET,
                libc::PACKET_QDISC_BYPASS,
                (&one as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
            let mut sll: libc::sockaddr_ll = std::mem::zeroed();
            sll.sll_family = libc::AF_PACKET as u16;
            sll.sll_ifindex = ifindex as i32;
            sll.sll_protocol = 0;
            let r = libc::bind(
                fd,
                &sll as *const libc::sockaddr_ll as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_ll>() as u32,
            );
            if r < 0 {
                let e = std::io::Error::last_os_error();
                libc::close(fd);
                return Err(format!("bind to {name:?}: {e}"));
            }
            Ok(InterfaceSink {
                fd,
                ifindex: ifindex as i32,
                frames: (0..BATCH).map(|_| Vec::with_capacity(2048)).collect(),
                used: 0,
                pending_failures: 0,
            })
        }
    }

    fn queue(&mut self, frame: &[u8]) {
        if self.used == BATCH {
            // Counted by the caller's next flush; keep the batch bounded.
            self.flush_counted();
        }
        let b = &mut self.frames[self.used];
        b.clear();
        b.extend_from_slice(frame);
        self.used += 1;
    }

    fn flush_counted(&mut self) -> u64 {
        let failed = self.send_batch();
        self.pending_failures += failed;
        failed
    }

    fn flush(&mut self) -> u64 {
        let f = self.send_batch() + self.pending_failures;
        self.pending_failures = 0;
        f
    }

    fn send_batch(&mut self) -> u64 {
        if self.used == 0 {
            return 0;
        }
        let n = self.used;
        self.used = 0;
        let mut iov: Vec<libc::iovec> = self.frames[..n]
            .iter()
            .map(|f| libc::iovec {
                iov_base: f.as_ptr() as *mut libc::c_void,
                iov_len: f.len(),
            })
            .collect();
        // SAFETY: zeroed sockaddr_ll / mmsghdr are valid; pointers outlive the call.
        unsafe {
            let mut sll: libc::sockaddr_ll = std::mem::zeroed();
            sll.sll_family = libc::AF_PACKET as u16;
            sll.sll_ifindex = self.ifindex;
            sll.sll_halen = 6;
            let mut msgs: Vec<libc::mmsghdr> = Vec::with_capacity(n);
            for v in iov.iter_mut() {
                let mut m: libc::mmsghdr = std::mem::zeroed();
                m.msg_hdr.msg_name = &mut sll as *mut libc::sockaddr_ll as *mut libc::c_void;
                m.msg_hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_ll>() as u32;
                m.msg_hdr.msg_iov = v as *mut libc::iovec;
                m.msg_hdr.msg_iovlen = 1;
                msgs.push(m);
            }
            let mut sent = 0usize;
            let mut failed = 0u64;
            while sent < n {
                let r = libc::sendmmsg(
                    self.fd,
                    msgs.as_mut_ptr().add(sent),
                    (n - sent) as u32,
                    libc::MSG_DONTWAIT,
                );
                if r <= 0 {
                    // The frame at `sent` failed (full socket buffer, link down): skip it.
                    failed += 1;
                    sent += 1;
                } else {
                    sent += r as usize;
                }
            }
            failed
        }
    }
}

impl Drop for InterfaceSink {
    fn drop(&mut self) {
        // SAFETY: the fd is ours and closed once.
        unsafe {
            libc::close(self.fd);
        }
    }
}
