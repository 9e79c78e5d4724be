//! Which way a real host's frames are read from its veth (`[real_hosts]
//! capture`): the AF_PACKET ring (`ring`) or an AF_XDP socket (`xdp`). Both
//! hand the frames over as `RxFrame`s with the same arrival-time rule, so
//! everything after the capture is one path.

use serde::Deserialize;

use super::ring::{RxFrame, RxRing};
use super::xdp::XskRing;
pub use super::xdp_prog::XdpMode;

/// `real_hosts.capture`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CaptureKind {
    /// AF_PACKET, TPACKET_V2 mapped ring.
    #[default]
    Afpacket,
    /// AF_XDP socket fed by an XDP program on the veth.
    Afxdp,
}

/// `real_hosts.xdp_mode`: where the XDP program runs (AF_XDP only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum XdpModeSetting {
    #[default]
    Native,
    Generic,
}

impl From<XdpModeSetting> for XdpMode {
    fn from(m: XdpModeSetting) -> XdpMode {
        match m {
            XdpModeSetting::Native => XdpMode::Native,
            XdpModeSetting::Generic => XdpMode::Generic,
        }
    }
}

/// How one capture is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capture {
    Packet,
    Xdp(XdpMode),
}

impl Capture {
    pub fn new(kind: CaptureKind, mode: XdpModeSetting) -> Capture {
        match kind {
            CaptureKind::Afpacket => Capture::Packet,
            CaptureKind::Afxdp => Capture::Xdp(mode.into()),
        }
    }
    pub fn name(self) -> String {
        match self {
            Capture::Packet => "afpacket".into(),
            Capture::Xdp(m) => format!("afxdp ({})", m.name()),
        }
    }
}

/// One host's open capture.
pub enum CaptureRing {
    Packet(RxRing),
    Xdp(XskRing),
}

impl CaptureRing {
    /// Open `how` on `iface` for frames up to `max_frame` bytes, `frames` deep.
    pub fn open(
        how: Capture,
        iface: &str,
        max_frame: usize,
        frames: usize,
    ) -> Result<CaptureRing, String> {
        match how {
            Capture::Packet => RxRing::open(iface, max_frame, frames).map(CaptureRing::Packet),
            Capture::Xdp(mode) => {
                XskRing::open(iface, max_frame, frames, mode).map(CaptureRing::Xdp)
            }
        }
    }

    /// As `RxRing::poll`: frames that arrived by `not_after_ns`, oldest first, at most `limit`.
    pub fn poll(
        &mut self,
        limit: usize,
        not_after_ns: u64,
        on_frame: impl FnMut(RxFrame<'_>),
    ) -> usize {
        match self {
            CaptureRing::Packet(r) => r.poll(limit, not_after_ns, on_frame),
            CaptureRing::Xdp(r) => r.poll(limit, not_after_ns, on_frame),
        }
    }

    /// Kernel counters since the last call: (frames, frames dropped for want of room).
    pub fn take_stats(&mut self) -> (u64, u64) {
        match self {
            CaptureRing::Packet(r) => r.take_stats(),
            CaptureRing::Xdp(r) => r.take_stats(),
        }
    }
}
