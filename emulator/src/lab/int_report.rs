//! Telemetry reports as an INT sink switch of the lab fabric sends them: Ethernet / IPv4 /
//! UDP to the collector's report port, then a telemetry report v1.0 (INT v1.0 over TCP) or
//! v2.x (group header, one individual report, INT-MD with the v2 shim over TCP) around the
//! monitored packet's headers and its INT stack. Field layouts follow the specs (INT
//! v1.0 and v2.1, Telemetry Report v1.0 and v2.0), the same ones the collector's decoder
//! reads (`collector/src/decode/int/`).
//!
//! Every hop carries the five fields of [`INSTRUCTIONS`]: switch id, ingress + egress
//! port, hop latency, queue id + occupancy, egress port tx utilisation (5 words).

use std::net::Ipv4Addr;

use etherparse::{EtherType, Ethernet2Header, IpNumber, Ipv4Header, TcpHeader, UdpHeader};

use super::frames::FrameFields;
use super::rules::Mac;

/// Instruction bitmap (bit 0 = MSB): switch id (0), L1 ingress/egress port (1), hop
/// latency (2), queue id + occupancy (3), egress port tx utilisation (7).
pub const INSTRUCTIONS: u16 = 0x8000 | 0x4000 | 0x2000 | 0x1000 | 0x0100;
/// Words per hop for [`INSTRUCTIONS`] (all five fields are 4 bytes in v1.0 and v2.x).
pub const HOP_WORDS: usize = 5;
/// The INT-MD shim's DSCP marker is not used by the lab; the monitored packets carry DSCP 0.
const ORIGINAL_DSCP: u8 = 0;

/// Telemetry report format the sinks write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    /// Telemetry report v1.0 + INT v1.0.
    V10,
    /// Telemetry report v2.0/v2.1 + INT-MD v2.x.
    V2,
}

/// What one switch adds to a sampled packet's INT stack.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntHop {
    /// The switch number of the device id (`of:…0001` is 1).
    pub switch_id: u32,
    /// Ports numbered from 1, as in the control API.
    pub ingress_port: u16,
    pub egress_port: u16,
    /// Time from arrival at the switch to the start of transmission, ns (emulator clock).
    pub hop_latency_ns: u32,
    /// One queue per egress port: the queue id is the egress port's number (8 bits).
    pub queue_id: u8,
    /// Packets left in the egress queue when this packet was dequeued (24 bits).
    pub queue_occupancy: u32,
    /// Egress port transmit utilisation over the last complete window, per mille of the link rate.
    pub tx_utilization: u32,
}

impl IntHop {
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.switch_id.to_be_bytes());
        out.extend_from_slice(&self.ingress_port.to_be_bytes());
        out.extend_from_slice(&self.egress_port.to_be_bytes());
        out.extend_from_slice(&self.hop_latency_ns.to_be_bytes());
        out.extend_from_slice(&((u32::from(self.queue_id) << 24) | (self.queue_occupancy & 0x00ff_ffff)).to_be_bytes());
        out.extend_from_slice(&self.tx_utilization.to_be_bytes());
    }
}

/// Where reports go: the collector's address on the telemetry veth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReportAddress {
    pub src_mac: Mac,
    pub dst_mac: Mac,
    pub src_ip: Ipv4Addr,
    pub dst_ip: Ipv4Addr,
    pub src_port: u16,
    pub dst_port: u16,
}

/// One report about one sampled packet.
#[derive(Clone, Copy, Debug)]
pub struct Report<'a> {
    pub format: ReportFormat,
    /// Switch id of the sink (report header switch id / node id).
    pub sink: u32,
    /// Per-sink sequence number (22 bits are kept in v2.x).
    pub seq: u32,
    /// Low 32 bits of the sink's ingress time of the packet, ns (v1.0 header).
    pub ingress_ts: u32,
    /// Q flag: a hop's queue was at or above the congestion mark.
    pub congested_queue: bool,
    /// The monitored packet as the sink received it (its headers; the payload is not copied).
    pub packet: &'a FrameFields,
    /// Stack order: `hops[0]` is the sink (the last switch that pushed).
    pub hops: &'a [IntHop],
    /// RemainingHopCnt after the last push.
    pub remaining_hops: u8,
    /// E flag: a switch found no hop budget left and added nothing.
    pub exceeded: bool,
}

/// Writes the whole report frame into `out` (cleared first).
pub fn build_report(r: &Report<'_>, to: &ReportAddress, out: &mut Vec<u8>) {
    let mut body = Vec::with_capacity(192);
    match r.format {
        ReportFormat::V10 => v10_body(r, &mut body),
        ReportFormat::V2 => v2_body(r, &mut body),
    }
    out.clear();
    let eth = Ethernet2Header {
        source: to.src_mac.octets(),
        destination: to.dst_mac.octets(),
        ether_type: EtherType::IPV4,
    };
    let udp_len = (8 + body.len()) as u16;
    let mut ip = Ipv4Header::new(udp_len, 64, IpNumber::UDP, to.src_ip.octets(), to.dst_ip.octets())
        .expect("report fits IPv4");
    ip.dont_fragment = true;
    ip.header_checksum = ip.calc_header_checksum();
    let udp = UdpHeader::with_ipv4_checksum(to.src_port, to.dst_port, &ip, &body).expect("report fits UDP");
    eth.write(out).expect("vec write");
    ip.write(out).expect("vec write");
    udp.write(out).expect("vec write");
    out.extend_from_slice(&body);
}

/// Report header v1.0 (4 words), then the monitored packet as an Ethernet frame with the
/// INT v1.0 shim, metadata header and stack after its TCP header.
fn v10_body(r: &Report<'_>, out: &mut Vec<u8>) {
    // Ver 1 | Len 4 words | NProto 0 (Ethernet) | RepMdBits 0 | D Q F | hw_id 0
    out.push(0x14);
    out.push(0x00);
    out.push(0x00); // RepMdBits low bits, reserved, D = 0
    out.push(if r.congested_queue { 0x80 } else { 0 } | 0x40); // Q, F (tracked flow), hw_id 0
    out.extend_from_slice(&r.sink.to_be_bytes());
    out.extend_from_slice(&r.seq.to_be_bytes());
    out.extend_from_slice(&r.ingress_ts.to_be_bytes());
    let stack_words = r.hops.len() * HOP_WORDS;
    let int_len = 4 + 8 + stack_words * 4;
    inner_headers(r.packet, int_len, out);
    // Shim: type 1 (hop-by-hop) | reserved | length (shim + header + stack, words) | DSCP
    out.push(1);
    out.push(0);
    out.push((3 + stack_words) as u8);
    out.push(ORIGINAL_DSCP << 2);
    // Ver 1, Rep 0, C 0, E | M 0 | HopML | RemainingHopCnt | bitmap | reserved
    out.push(0x10 | if r.exceeded { 0x01 } else { 0 });
    out.push(0);
    out.push(HOP_WORDS as u8);
    out.push(r.remaining_hops);
    out.extend_from_slice(&INSTRUCTIONS.to_be_bytes());
    out.extend_from_slice(&[0, 0]);
    for h in r.hops {
        h.write(out);
    }
}

/// Group header, then one individual report (RepType INT, InType Ethernet, no local
/// metadata: the sink's own values are its hop in the stack) holding the monitored packet
/// with the INT-MD v2 shim, header and stack after its TCP header.
fn v2_body(r: &Report<'_>, out: &mut Vec<u8>) {
    let seq = r.seq & 0x003f_ffff;
    // Ver 2 | hw_id 0 | seq (22 bits)
    out.extend_from_slice(&((2u32 << 28) | seq).to_be_bytes());
    out.extend_from_slice(&r.sink.to_be_bytes());
    let start = out.len();
    out.push(0x13); // RepType 1 (INT), InType 3 (Ethernet)
    out.push(0); // Report Length, filled in below
    out.push(0); // MD Length: no RepMdBits metadata
    out.push(if r.congested_queue { 0x40 } else { 0 } | 0x20); // D 0, Q, F 1, I 0
    out.extend_from_slice(&0u16.to_be_bytes()); // RepMdBits
    out.extend_from_slice(&0u16.to_be_bytes()); // Domain Specific ID
    out.extend_from_slice(&0u16.to_be_bytes()); // DSMdBits
    out.extend_from_slice(&0u16.to_be_bytes()); // DSMdStatus
    let stack_words = r.hops.len() * HOP_WORDS;
    let int_len = 4 + 12 + stack_words * 4;
    inner_headers(r.packet, int_len, out);
    // Shim: Type 1 (INT-MD), NPT 0 | Length (header + stack, words) | reserved | DSCP
    out.push(0x10);
    out.push((3 + stack_words) as u8);
    out.push(0);
    out.push(ORIGINAL_DSCP << 2);
    // Ver 2, D 0, E, M 0 | reserved | HopML | RemainingHopCnt
    out.push(0x20 | if r.exceeded { 0x04 } else { 0 });
    out.push(0);
    out.push(HOP_WORDS as u8);
    out.push(r.remaining_hops);
    out.extend_from_slice(&INSTRUCTIONS.to_be_bytes());
    out.extend_from_slice(&[0; 6]); // domain id, DS instructions, DS flags
    for h in r.hops {
        h.write(out);
    }
    // The contents end on a word boundary (Ethernet 14 + IPv4 20 + TCP 20 = 54 bytes do
    // not): pad, and count the padding in Report Length.
    while !(out.len() - start).is_multiple_of(4) {
        out.push(0);
    }
    out[start + 1] = ((out.len() - start) / 4 - 1) as u8;
}

/// Ethernet / IPv4 / TCP of the monitored packet; the IPv4 length counts the INT
/// headers and the whole payload the packet carries on the wire.
fn inner_headers(p: &FrameFields, int_len: usize, out: &mut Vec<u8>) {
    let eth = Ethernet2Header {
        source: p.eth_src.octets(),
        destination: p.eth_dst.octets(),
        ether_type: EtherType::IPV4,
    };
    let mut tcp = TcpHeader::new(p.sport, p.dport, p.seq, 65535);
    tcp.ack = true;
    tcp.psh = true;
    tcp.acknowledgment_number = p.ack;
    let mut ip = Ipv4Header::new(
        (tcp.header_len() + int_len + p.payload as usize) as u16,
        p.ttl,
        IpNumber::TCP,
        p.ip_src.octets(),
        p.ip_dst.octets(),
    )
    .expect("packet fits IPv4");
    ip.identification = p.ip_id;
    ip.dont_fragment = true;
    ip.header_checksum = ip.calc_header_checksum();
    eth.write(out).expect("vec write");
    ip.write(out).expect("vec write");
    tcp.write(out).expect("vec write");
}
