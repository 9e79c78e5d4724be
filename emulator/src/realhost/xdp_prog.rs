//! The XDP program that hands a veth's frames to the emulator's XDP socket,
//! and the `bpf(2)` calls that load and attach it.
//!
//! The program is 19 instructions, assembled here rather than compiled from
//! C: building it needs no clang, libbpf or libxdp at build time, and its
//! whole behaviour is on this page. It does what libxdp's default AF_XDP
//! program does (redirect to the socket in an XSKMAP at the frame's receive
//! queue, pass the frame to the stack if there is none) and one thing more:
//! it writes the receive time (CLOCK_MONOTONIC, `bpf_ktime_get_ns`) into 8
//! bytes of XDP metadata in front of the frame. The kernel copies metadata
//! with the frame into the socket's memory, so the emulator sees when each
//! frame arrived, as the AF_PACKET ring's timestamp lets it, and a frame
//! enters the emulated network in the slot it arrived.
//!
//! Attached through a BPF link (`BPF_LINK_CREATE`): the program leaves the
//! interface when the link's descriptor is closed, so an emulator that exits,
//! however it exits, leaves no program behind; and a second program on the
//! same interface is refused (EBUSY) instead of replacing the first.

use std::io;

/// XDP metadata in front of each frame: the receive time in ns (CLOCK_MONOTONIC).
pub const META_BYTES: usize = 8;

/// Where the program is attached on the veth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XdpMode {
    /// In the veth driver (`XDP_FLAGS_DRV_MODE`): the veth runs the program
    /// in its NAPI poll, before any socket buffer work of the stack.
    Native,
    /// Generic (`XDP_FLAGS_SKB_MODE`): in the stack's receive path, on the
    /// socket buffer, as for any driver without XDP.
    Generic,
}

impl XdpMode {
    fn flags(self) -> u32 {
        match self {
            XdpMode::Native => 1 << 2,  // XDP_FLAGS_DRV_MODE
            XdpMode::Generic => 1 << 1, // XDP_FLAGS_SKB_MODE
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            XdpMode::Native => "native",
            XdpMode::Generic => "generic",
        }
    }
}

const BPF_MAP_CREATE: libc::c_long = 0;
const BPF_MAP_UPDATE_ELEM: libc::c_long = 2;
const BPF_PROG_LOAD: libc::c_long = 5;
const BPF_LINK_CREATE: libc::c_long = 28;
const BPF_MAP_TYPE_XSKMAP: u32 = 17;
const BPF_PROG_TYPE_XDP: u32 = 6;
/// `enum bpf_attach_type`: BPF_XDP.
const BPF_XDP: u32 = 37;
const BPF_PSEUDO_MAP_FD: u8 = 1;

// Helpers the program calls (`enum bpf_func_id`).
const FN_KTIME_GET_NS: i32 = 5;
const FN_REDIRECT_MAP: i32 = 51;
const FN_XDP_ADJUST_META: i32 = 54;
/// `XDP_PASS`: what `bpf_redirect_map` does when the map has no socket.
const XDP_PASS: i32 = 2;

/// Offsets in `struct xdp_md`.
const MD_DATA: i16 = 0;
const MD_DATA_META: i16 = 8;
const MD_RX_QUEUE: i16 = 16;

/// One `struct bpf_insn`: opcode, dst and src registers, offset, immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Insn(u64);

impl Insn {
    const fn new(code: u8, dst: u8, src: u8, off: i16, imm: i32) -> Insn {
        Insn(
            code as u64
                | ((dst as u64 & 0xf) << 8)
                | ((src as u64 & 0xf) << 12)
                | ((off as u16 as u64) << 16)
                | ((imm as u32 as u64) << 32),
        )
    }
    pub fn code(self) -> u8 {
        self.0 as u8
    }
    pub fn off(self) -> i16 {
        (self.0 >> 16) as u16 as i16
    }
    pub fn imm(self) -> i32 {
        (self.0 >> 32) as u32 as i32
    }
}

const MOV64_REG: u8 = 0xbf; // BPF_ALU64 | BPF_MOV | BPF_X
const MOV64_IMM: u8 = 0xb7; // BPF_ALU64 | BPF_MOV | BPF_K
const ADD64_IMM: u8 = 0x07; // BPF_ALU64 | BPF_ADD | BPF_K
const CALL: u8 = 0x85; // BPF_JMP | BPF_CALL
const EXIT: u8 = 0x95; // BPF_JMP | BPF_EXIT
const JNE_IMM: u8 = 0x55; // BPF_JMP | BPF_JNE | BPF_K
const JGT_REG: u8 = 0x2d; // BPF_JMP | BPF_JGT | BPF_X
const LDX_W: u8 = 0x61; // BPF_LDX | BPF_MEM | BPF_W
const STX_DW: u8 = 0x7b; // BPF_STX | BPF_MEM | BPF_DW
const LD_IMM64: u8 = 0x18; // BPF_LD | BPF_IMM | BPF_DW (two slots)

/// Index of the instruction the redirect starts at (both jumps land there).
pub const REDIRECT_AT: usize = 13;

/// The program, with `map_fd` the XSKMAP.
pub fn program(map_fd: i32) -> Vec<Insn> {
    vec![
        // 0: keep the context; 1-2: the receive time, before anything else.
        Insn::new(MOV64_REG, 6, 1, 0, 0),
        Insn::new(CALL, 0, 0, 0, FN_KTIME_GET_NS),
        Insn::new(MOV64_REG, 7, 0, 0, 0),
        // 3-5: make room for 8 bytes of metadata; no room -> redirect without.
        Insn::new(MOV64_REG, 1, 6, 0, 0),
        Insn::new(MOV64_IMM, 2, 0, 0, -(META_BYTES as i32)),
        Insn::new(CALL, 0, 0, 0, FN_XDP_ADJUST_META),
        Insn::new(JNE_IMM, 0, 0, (REDIRECT_AT - 7) as i16, 0),
        // 7-11: the verifier wants data_meta + 8 <= data proven before the store.
        Insn::new(LDX_W, 2, 6, MD_DATA_META, 0),
        Insn::new(LDX_W, 3, 6, MD_DATA, 0),
        Insn::new(MOV64_REG, 4, 2, 0, 0),
        Insn::new(ADD64_IMM, 4, 0, 0, META_BYTES as i32),
        Insn::new(JGT_REG, 4, 3, (REDIRECT_AT - 12) as i16, 0),
        // 12: *(u64 *)data_meta = receive time
        Insn::new(STX_DW, 2, 7, 0, 0),
        // 13-18: return bpf_redirect_map(&xsks, ctx->rx_queue_index, XDP_PASS)
        Insn::new(LDX_W, 2, 6, MD_RX_QUEUE, 0),
        Insn::new(LD_IMM64, 1, BPF_PSEUDO_MAP_FD, 0, map_fd),
        Insn::new(0, 0, 0, 0, 0),
        Insn::new(MOV64_IMM, 3, 0, 0, XDP_PASS),
        Insn::new(CALL, 0, 0, 0, FN_REDIRECT_MAP),
        Insn::new(EXIT, 0, 0, 0, 0),
    ]
}

/// `union bpf_attr`, as far as the four commands used here reach.
struct Attr([u8; 128]);

impl Attr {
    fn new() -> Attr {
        Attr([0; 128])
    }
    fn u32(&mut self, at: usize, v: u32) -> &mut Attr {
        self.0[at..at + 4].copy_from_slice(&v.to_ne_bytes());
        self
    }
    fn u64(&mut self, at: usize, v: u64) -> &mut Attr {
        self.0[at..at + 8].copy_from_slice(&v.to_ne_bytes());
        self
    }
    fn name(&mut self, at: usize, s: &str) -> &mut Attr {
        let b = s.as_bytes();
        let n = b.len().min(15);
        self.0[at..at + n].copy_from_slice(&b[..n]);
        self
    }
    fn call(&mut self, cmd: libc::c_long) -> io::Result<i32> {
        // SAFETY: the attribute buffer is valid for its whole length during the
        // call; the kernel reads no further than the size passed.
        let r = unsafe { libc::syscall(libc::SYS_bpf, cmd, self.0.as_mut_ptr(), self.0.len()) };
        if r < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(r as i32)
        }
    }
}

struct Fd(i32);

impl Drop for Fd {
    fn drop(&mut self) {
        // SAFETY: the descriptor is ours and closed once.
        unsafe { libc::close(self.0) };
    }
}

/// The program attached to one interface, redirecting to one XDP socket.
/// Dropping it detaches the program (the link is closed first).
pub struct XdpAttachment {
    link: Option<Fd>,
    _prog: Fd,
    _map: Fd,
}

impl Drop for XdpAttachment {
    fn drop(&mut self) {
        self.link.take();
    }
}

fn verifier_says(log: &[u8]) -> String {
    let text = String::from_utf8_lossy(log);
    let text = text.trim_end_matches('\0');
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty() && !l.starts_with("processed"))
        .unwrap_or("")
        .trim()
        .to_string()
}

/// Load the program for socket `xsk_fd` (bound to queue 0) and attach it to
/// `ifindex` in `mode`. Errors are one line naming the cause.
pub fn attach(
    iface: &str,
    ifindex: u32,
    xsk_fd: i32,
    mode: XdpMode,
) -> Result<XdpAttachment, String> {
    let map = Attr::new()
        .u32(0, BPF_MAP_TYPE_XSKMAP)
        .u32(4, 4)
        .u32(8, 4)
        .u32(12, 1)
        .name(28, "planck_xsks")
        .call(BPF_MAP_CREATE)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::EPERM) => format!(
                "AF_XDP capture needs root (CAP_BPF and CAP_NET_ADMIN) to load its XDP program: {e}"
            ),
            Some(libc::EINVAL) => {
                format!("this kernel has no XSKMAP (AF_XDP needs Linux 4.18 or later): {e}")
            }
            _ => format!("creating the XSKMAP: {e}"),
        })
        .map(Fd)?;
    let key = 0u32;
    Attr::new()
        .u32(0, map.0 as u32)
        .u64(8, &key as *const u32 as u64)
        .u64(16, &xsk_fd as *const i32 as u64)
        .call(BPF_MAP_UPDATE_ELEM)
        .map_err(|e| format!("putting the XDP socket of {iface:?} into the XSKMAP: {e}"))?;
    let insns = program(map.0);
    let license = c"GPL";
    let load = |log: Option<&mut Vec<u8>>| {
        let mut a = Attr::new();
        a.u32(0, BPF_PROG_TYPE_XDP)
            .u32(4, insns.len() as u32)
            .u64(8, insns.as_ptr() as u64)
            .u64(16, license.as_ptr() as u64)
            .name(48, "planck_xsk")
            .u32(68, BPF_XDP);
        if let Some(log) = log {
            a.u32(24, 1)
                .u32(28, log.len() as u32)
                .u64(32, log.as_mut_ptr() as u64);
        }
        a.call(BPF_PROG_LOAD)
    };
    let prog = match load(None) {
        Ok(fd) => Fd(fd),
        Err(e) => {
            let mut log = vec![0u8; 1 << 16];
            let again = load(Some(&mut log));
            if let Ok(fd) = again {
                drop(Fd(fd));
            }
            return Err(format!(
                "loading the XDP program for {iface:?}: {e}; verifier: {}",
                verifier_says(&log)
            ));
        }
    };
    let link = Attr::new()
        .u32(0, prog.0 as u32)
        .u32(4, ifindex)
        .u32(8, BPF_XDP)
        .u32(12, mode.flags())
        .call(BPF_LINK_CREATE)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::EBUSY) | Some(libc::EEXIST) => format!(
                "{iface:?} has an XDP program attached already (another capture, or `ip link set {iface} xdp off`): {e}"
            ),
            Some(libc::ERANGE) => format!(
                "{iface:?}: the veth refuses {} XDP at this MTU (a single-buffer XDP program on a veth carries frames up to about 3 500 bytes; lower emulation.mtu_bytes or use capture = \"afpacket\"): {e}",
                mode.name()
            ),
            Some(libc::EOPNOTSUPP) => format!(
                "{iface:?} does not support {} XDP (try xdp_mode = \"generic\"): {e}",
                mode.name()
            ),
            _ => format!("attaching the XDP program to {iface:?} ({} mode): {e}", mode.name()),
        })
        .map(Fd)?;
    Ok(XdpAttachment {
        link: Some(link),
        _prog: prog,
        _map: map,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_jumps_land_on_the_redirect_and_the_program_ends_in_exit() {
        let p = program(7);
        for (i, insn) in p.iter().enumerate() {
            if insn.code() == JNE_IMM || insn.code() == JGT_REG {
                let target = i as i64 + 1 + insn.off() as i64;
                assert_eq!(target, REDIRECT_AT as i64, "jump at {i}");
            }
        }
        // The redirect block starts by reading the receive queue.
        assert_eq!(p[REDIRECT_AT], Insn::new(LDX_W, 2, 6, MD_RX_QUEUE, 0));
        assert_eq!(p.last().unwrap().code(), EXIT);
        // The map is the second-to-last call's first argument (a two-slot load).
        let ld = p.iter().position(|i| i.code() == LD_IMM64).unwrap();
        assert_eq!(p[ld].imm(), 7);
        assert_eq!(p[ld + 1], Insn(0));
    }

    #[test]
    fn instructions_encode_as_the_kernel_reads_them() {
        // r6 = r1: code 0xbf, dst 6 in the low nibble, src 1 in the high one.
        assert_eq!(Insn::new(MOV64_REG, 6, 1, 0, 0).0, 0x16bf);
        // r2 = -8: the immediate as a 32-bit two's complement.
        let i = Insn::new(MOV64_IMM, 2, 0, 0, -8);
        assert_eq!(i.imm(), -8);
        assert_eq!(i.0 >> 32, 0xffff_fff8);
        // A negative offset keeps to its 16 bits.
        let j = Insn::new(JGT_REG, 4, 3, -1, 0);
        assert_eq!(j.off(), -1);
        assert_eq!((j.0 >> 8) & 0xff, 0x34);
    }

    #[test]
    fn the_verifiers_last_words_are_reported() {
        let log = b"0: (bf) r6 = r1\n1: (85) call bpf_ktime_get_ns#5\ninvalid access to packet\nprocessed 12 insns\n\0\0";
        assert_eq!(verifier_says(log), "invalid access to packet");
    }
}
