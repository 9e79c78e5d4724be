//! pcap / pcapng replay, as fast as possible or at the recorded pace.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;
use std::time::{Duration, Instant};

use pcap_file::DataLink;
use pcap_file::pcap::PcapReader;
use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionOption;
use pcap_file::pcapng::{Block, PcapNgReader};

use super::FrameMeta;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Pace {
    /// As fast as the pipeline goes.
    Fast,
    /// Sleep to reproduce the recorded inter-packet times.
    Recorded,
}

enum Format {
    Pcap(PcapReader<BufReader<File>>),
    PcapNg(PcapNgReader<BufReader<File>>),
}

pub struct PcapReplay {
    format: Format,
    pace: Pace,
    started: Option<(Instant, u64)>,
}

const PCAPNG_MAGIC: [u8; 4] = [0x0a, 0x0d, 0x0d, 0x0a];

impl PcapReplay {
    pub fn open(path: &Path, pace: Pace) -> Result<PcapReplay, String> {
        let mut magic = [0u8; 4];
        File::open(path)
            .and_then(|mut f| f.read_exact(&mut magic))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let file = BufReader::with_capacity(
            1 << 20,
            File::open(path).map_err(|e| format!("{}: {e}", path.display()))?,
        );
        let format = if magic == PCAPNG_MAGIC {
            Format::PcapNg(
                PcapNgReader::new(file)
                    .map_err(|e| format!("{}: not a pcapng file: {e}", path.display()))?,
            )
        } else {
            let r = PcapReader::new(file)
                .map_err(|e| format!("{}: not a pcap file: {e}", path.display()))?;
            if r.header().datalink != DataLink::ETHERNET {
                return Err(format!(
                    "{}: link type {:?} is not Ethernet",
                    path.display(),
                    r.header().datalink
                ));
            }
            Format::Pcap(r)
        };
        Ok(PcapReplay {
            format,
            pace,
            started: None,
        })
    }

    fn pace_to(&mut self, ts_ns: u64) {
        if self.pace != Pace::Recorded {
            return;
        }
        match self.started {
            None => self.started = Some((Instant::now(), ts_ns)),
            Some((t0, ts0)) => {
                let due = t0 + Duration::from_nanos(ts_ns.saturating_sub(ts0));
                let now = Instant::now();
                if due > now {
                    std::thread::sleep(due - now);
                }
            }
        }
    }

    /// Call `f` for every Ethernet frame. Stops at the first read error (reported).
    pub fn for_each(mut self, mut f: impl FnMut(FrameMeta, &[u8])) -> Result<u64, String> {
        let mut n = 0u64;
        loop {
            match &mut self.format {
                Format::Pcap(r) => {
                    let Some(pkt) = r.next_packet() else { break };
                    let pkt = pkt.map_err(|e| format!("pcap read error after {n} packets: {e}"))?;
                    let ts_ns = pkt.timestamp.as_nanos() as u64;
                    let meta = FrameMeta {
                        ts_ns,
                        vlan: None,
                        wire_len: pkt.orig_len,
                    };
                    let data = pkt.data.into_owned();
                    self.pace_to(ts_ns);
                    f(meta, &data);
                    n += 1;
                }
                Format::PcapNg(r) => {
                    let Some(block) = r.next_block() else { break };
                    let block =
                        block.map_err(|e| format!("pcapng read error after {n} packets: {e}"))?;
                    let (ts_ns, wire_len, data, iface) = match block {
                        Block::EnhancedPacket(epb) => {
                            // pcap-file hands back the raw timestamp as nanoseconds; scale
                            // it by the interface's if_tsresol (default microseconds).
                            let raw = epb.timestamp.as_nanos() as u64;
                            (
                                raw,
                                epb.original_len,
                                epb.data.into_owned(),
                                Some(epb.interface_id),
                            )
                        }
                        Block::SimplePacket(spb) => {
                            (0, spb.original_len, spb.data.into_owned(), Some(0))
                        }
                        _ => continue,
                    };
                    let iface = iface.and_then(|i| r.interfaces().get(i as usize));
                    let Some(iface) = iface else {
                        return Err(format!(
                            "pcapng packet for an undeclared interface after {n} packets"
                        ));
                    };
                    if iface.linktype != DataLink::ETHERNET {
                        continue;
                    }
                    let resol = iface.options.iter().find_map(|o| match o {
                        InterfaceDescriptionOption::IfTsResol(r) => Some(*r),
                        _ => None,
                    });
                    let ts_ns = scale_timestamp(ts_ns, resol.unwrap_or(6));
                    self.pace_to(ts_ns);
                    f(
                        FrameMeta {
                            ts_ns,
                            vlan: None,
                            wire_len,
                        },
                        &data,
                    );
                    n += 1;
                }
            }
        }
        Ok(n)
    }
}

/// Convert a pcapng timestamp in `if_tsresol` units to nanoseconds.
fn scale_timestamp(raw: u64, resol: u8) -> u64 {
    if resol & 0x80 == 0 {
        let exp = resol as i32;
        if exp <= 9 {
            raw.saturating_mul(10u64.pow((9 - exp) as u32))
        } else {
            raw / 10u64.pow((exp - 9).min(19) as u32)
        }
    } else {
        let shift = (resol & 0x7f) as u32;
        ((raw as u128 * 1_000_000_000u128) >> shift.min(127)) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::scale_timestamp;

    #[test]
    fn pcapng_resolutions() {
        assert_eq!(scale_timestamp(1_500_000, 6), 1_500_000_000);
        assert_eq!(scale_timestamp(7, 9), 7);
        assert_eq!(scale_timestamp(1, 0), 1_000_000_000);
        assert_eq!(scale_timestamp(1 << 10, 0x80 | 10), 1_000_000_000);
    }
}
