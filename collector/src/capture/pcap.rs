//! pcap / pcapng replay, as fast as possible or at the recorded pace.
//!
//! Files are read with `pcap-parser` (streaming, bounded buffer). Two things real
//! captures have that a strict reader refuses are accepted on purpose:
//! - records cut by a snap length (captured length < original length, and original
//!   length > the file's snap length): mirrored samples are exactly that;
//! - a last record cut short (tcpdump killed while writing, a capture still being
//!   written): every complete record is replayed and the cut is reported as a warning,
//!   as tcpdump and tshark do.

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

use pcap_parser::pcapng::Block;
use pcap_parser::traits::{PcapNGPacketBlock, PcapReaderIterator};
use pcap_parser::{Linktype, PcapBlockOwned, PcapError};

use super::FrameMeta;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Pace {
    /// As fast as the pipeline goes.
    Fast,
    /// Sleep to reproduce the recorded inter-packet times.
    Recorded,
}

/// Read buffer; grown (up to [`MAX_RECORD`]) for a larger record.
const BUFFER: usize = 64 << 10;
/// Largest record accepted. Snap lengths top out at 256 KiB (tcpdump's MAXIMUM_SNAPLEN);
/// a larger record is a corrupt length field.
pub const MAX_RECORD: usize = 16 << 20;

/// What a replay read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplayRead {
    /// Ethernet frames handed on.
    pub frames: u64,
    /// Packets of interfaces that are not Ethernet (pcapng), skipped.
    pub non_ethernet: u64,
    /// Bytes of an incomplete last record, ignored (0: the file ended cleanly).
    pub truncated_tail_bytes: u64,
}

/// A pcapng interface: link type and timestamp units.
#[derive(Clone, Copy, Debug)]
struct Interface {
    ethernet: bool,
    tsresol: u8,
    tsoffset_s: i64,
}

pub struct PcapReplay {
    reader: Box<dyn PcapReaderIterator + Send>,
    name: String,
    pace: Pace,
    started: Option<(Instant, u64)>,
}

impl PcapReplay {
    pub fn open(path: &Path, pace: Pace) -> Result<PcapReplay, String> {
        let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Self::from_reader(file, &path.display().to_string(), pace)
    }

    /// Replay from any byte stream (`name` is used in messages).
    pub fn from_reader(
        input: impl Read + Send + 'static,
        name: &str,
        pace: Pace,
    ) -> Result<PcapReplay, String> {
        let reader = pcap_parser::create_reader(BUFFER, input).map_err(|e| match e {
            PcapError::Eof | PcapError::Incomplete(_) => {
                format!("{name}: too short for a pcap or pcapng header")
            }
            PcapError::ReadError => format!("{name}: read error"),
            _ => format!("{name}: not a pcap or pcapng file"),
        })?;
        Ok(PcapReplay {
            reader,
            name: name.to_string(),
            pace,
            started: None,
        })
    }

    /// Call `f` for every Ethernet frame, in file order. A record cut short at the end of
    /// the file ends the replay normally (see [`ReplayRead::truncated_tail_bytes`]); a
    /// malformed record anywhere else is an error.
    pub fn for_each(mut self, mut f: impl FnMut(FrameMeta, &[u8])) -> Result<ReplayRead, String> {
        let mut read = ReplayRead::default();
        let mut interfaces: Vec<Interface> = Vec::new();
        // Legacy pcap: timestamp fraction in nanoseconds (else microseconds).
        let mut legacy_nanos = false;
        // Where a record's length field is and its byte order, for a cut-short tail.
        let mut length_field = LengthField::default();
        let mut buffer = BUFFER;
        let name = self.name.clone();
        loop {
            let n = read.frames;
            let consumed = match self.reader.next() {
                Ok((offset, block)) => {
                    let frame = match &block {
                        PcapBlockOwned::LegacyHeader(h) => {
                            if h.network != Linktype::ETHERNET {
                                return Err(format!(
                                    "{name}: link type {} is not Ethernet",
                                    h.network.0
                                ));
                            }
                            legacy_nanos = h.is_nanosecond_precision();
                            length_field = LengthField {
                                at: 8,
                                big_endian: h.is_bigendian(),
                            };
                            None
                        }
                        PcapBlockOwned::Legacy(b) => {
                            let frac_ns = if legacy_nanos {
                                b.ts_usec as u64
                            } else {
                                b.ts_usec as u64 * 1000
                            };
                            let ts_ns = b.ts_sec as u64 * 1_000_000_000 + frac_ns;
                            Some((ts_ns, b.origlen, b.data))
                        }
                        PcapBlockOwned::NG(Block::SectionHeader(shb)) => {
                            // Interface ids are numbered per section.
                            interfaces.clear();
                            length_field = LengthField {
                                at: 4,
                                big_endian: shb.big_endian(),
                            };
                            None
                        }
                        PcapBlockOwned::NG(Block::InterfaceDescription(idb)) => {
                            interfaces.push(Interface {
                                ethernet: idb.linktype == Linktype::ETHERNET,
                                tsresol: idb.if_tsresol,
                                tsoffset_s: idb.if_tsoffset,
                            });
                            None
                        }
                        PcapBlockOwned::NG(Block::EnhancedPacket(epb)) => {
                            let Some(iface) = interfaces.get(epb.if_id as usize) else {
                                return Err(format!(
                                    "{name}: pcapng packet for undeclared interface {} after {n} packets",
                                    epb.if_id
                                ));
                            };
                            if iface.ethernet {
                                let raw = (epb.ts_high as u64) << 32 | epb.ts_low as u64;
                                let ts_ns = scale_timestamp(raw, iface.tsresol)
                                    .saturating_add_signed(
                                        iface.tsoffset_s.saturating_mul(1_000_000_000),
                                    );
                                Some((ts_ns, epb.origlen, epb.packet_data()))
                            } else {
                                read.non_ethernet += 1;
                                None
                            }
                        }
                        PcapBlockOwned::NG(Block::SimplePacket(spb)) => {
                            let Some(iface) = interfaces.first() else {
                                return Err(format!(
                                    "{name}: pcapng packet before any interface after {n} packets"
                                ));
                            };
                            if iface.ethernet {
                                // A simple packet block has no timestamp.
                                Some((0, spb.origlen, spb.packet_data()))
                            } else {
                                read.non_ethernet += 1;
                                None
                            }
                        }
                        PcapBlockOwned::NG(_) => None,
                    };
                    if let Some((ts_ns, wire_len, data)) = frame {
                        pace_to(self.pace, &mut self.started, ts_ns);
                        f(
                            FrameMeta {
                                ts_ns,
                                vlan: None,
                                wire_len,
                            },
                            data,
                        );
                        read.frames += 1;
                    }
                    offset
                }
                Err(PcapError::Eof) => break,
                Err(PcapError::UnexpectedEof) => {
                    let tail = self.reader.data();
                    // A length no capture tool writes is a corrupt file, not a cut one.
                    if let Some(len) = length_field.read(tail)
                        && len as usize > MAX_RECORD
                    {
                        return Err(format!(
                            "{name}: record after {n} packets declares {len} bytes, more than {MAX_RECORD} (corrupt file)"
                        ));
                    }
                    read.truncated_tail_bytes = tail.len() as u64;
                    break;
                }
                Err(PcapError::Incomplete(_)) => {
                    let before = self.reader.data().len();
                    self.reader
                        .refill()
                        .map_err(|_| format!("{name}: read error after {n} packets"))?;
                    if self.reader.data().len() == before && !self.reader.reader_exhausted() {
                        grow(&mut *self.reader, &mut buffer, &name, n)?;
                    }
                    continue;
                }
                Err(PcapError::BufferTooSmall) => {
                    grow(&mut *self.reader, &mut buffer, &name, n)?;
                    self.reader
                        .refill()
                        .map_err(|_| format!("{name}: read error after {n} packets"))?;
                    continue;
                }
                Err(PcapError::ReadError) => {
                    return Err(format!("{name}: read error after {n} packets"));
                }
                Err(e) => {
                    let why = e.to_string();
                    return Err(format!(
                        "{name}: malformed record after {n} packets at byte {}: {why}",
                        self.reader.consumed()
                    ));
                }
            };
            self.reader.consume(consumed);
        }
        Ok(read)
    }
}

/// The length field of a record header: captured length (pcap) or block length (pcapng).
#[derive(Clone, Copy, Debug, Default)]
struct LengthField {
    at: usize,
    big_endian: bool,
}

impl LengthField {
    fn read(&self, record: &[u8]) -> Option<u32> {
        let b: [u8; 4] = record.get(self.at..self.at + 4)?.try_into().ok()?;
        Some(if self.big_endian {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        })
    }
}

/// A record does not fit the buffer: double it, up to [`MAX_RECORD`].
fn grow(
    reader: &mut dyn PcapReaderIterator,
    buffer: &mut usize,
    name: &str,
    n: u64,
) -> Result<(), String> {
    if *buffer >= MAX_RECORD || !reader.grow(*buffer * 2) {
        return Err(format!(
            "{name}: record after {n} packets is larger than {MAX_RECORD} bytes (corrupt length?)"
        ));
    }
    *buffer *= 2;
    Ok(())
}

fn pace_to(pace: Pace, started: &mut Option<(Instant, u64)>, ts_ns: u64) {
    if pace != Pace::Recorded {
        return;
    }
    match *started {
        None => *started = Some((Instant::now(), ts_ns)),
        Some((t0, ts0)) => {
            let due = t0 + Duration::from_nanos(ts_ns.saturating_sub(ts0));
            let now = Instant::now();
            if due > now {
                std::thread::sleep(due - now);
            }
        }
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
