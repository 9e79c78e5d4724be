//! In-band Network Telemetry: telemetry reports that switches send to the collector over
//! UDP, decoded without allocation into a reusable [`ReportBuf`].
//!
//! Versions (one module each): the v0.5 report header with INT v0.5 shim/metadata/tail
//! (what INTCollector reads), the v1.0 telemetry report with INT v1.0, and the v2.0/v2.1
//! telemetry report (group header + individual reports; INT-MD with the v2 shim; drop
//! and queue reports). Every inconsistency is an [`IntError`] with its own counter; a
//! rejected packet leaves nothing in the buffer.

pub mod instructions;
pub mod packet;
pub mod v05;
pub mod v10;
pub mod v2;

use super::FiveTuple;

/// Most hops one report may carry (the `max_hops` setting is capped here).
pub const MAX_HOPS: usize = 16;
/// Most individual reports one v2.x packet may carry.
pub const MAX_REPORTS: usize = 16;

/// Telemetry report format of a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ReportVersion {
    /// Telemetry report v0.5 + INT v0.5.
    #[serde(rename = "0.5")]
    V05,
    /// Telemetry report v1.0 + INT v1.0.
    #[serde(rename = "1.0")]
    V10,
    /// Telemetry report v2.0 / v2.1 + INT-MD v2.x.
    #[serde(rename = "2")]
    V2,
}

impl ReportVersion {
    pub const ALL: [ReportVersion; 3] = [ReportVersion::V05, ReportVersion::V10, ReportVersion::V2];

    pub fn as_str(self) -> &'static str {
        match self {
            ReportVersion::V05 => "0.5",
            ReportVersion::V10 => "1.0",
            ReportVersion::V2 => "2",
        }
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// Metadata one switch added (or, for v2.x reports, the reporting node's own metadata).
/// Fields the bitmap did not ask for are 0; [`IntReport::hop_fields`] says which are set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HopMetadata {
    pub switch_id: u32,
    pub ingress_port: u16,
    pub egress_port: u16,
    /// Nanoseconds (as the switch reports it).
    pub hop_latency: u32,
    pub queue_id: u8,
    /// 24 bits.
    pub queue_occupancy: u32,
    /// 32 bits in v0.5, 64 in v1.0 and later.
    pub ingress_ts: u64,
    pub egress_ts: u64,
    pub l2_ingress_port: u32,
    pub l2_egress_port: u32,
    pub tx_utilization: u32,
    pub buffer_id: u8,
    /// 24 bits.
    pub buffer_occupancy: u32,
    /// v0.5 bit 6: queue id + congestion status (24 bits).
    pub congestion_queue_id: u8,
    pub queue_congestion: u32,
    /// v2.x drop reports.
    pub drop_queue_id: u8,
    pub drop_reason: u8,
}

/// What a report is about (v2.x distinguishes; v0.5/v1.0 reports always carry INT).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReportFlags {
    /// D: the packet was dropped.
    pub dropped: bool,
    /// Q: a congested queue is associated with the report.
    pub congested_queue: bool,
    /// F: a tracked flow is associated with the report.
    pub tracked_flow: bool,
    /// I (v2.x): an intermediate report.
    pub intermediate: bool,
}

/// One decoded telemetry report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntReport {
    pub version: ReportVersion,
    pub hw_id: u8,
    /// Sequence number (22 bits in v2.x).
    pub seq: u32,
    /// Switch id (v1.0) or node id (v2.x) of the reporting switch.
    pub node_id: Option<u32>,
    /// 32-bit ingress timestamp of the v0.5 and v1.0 report headers.
    pub report_ts: Option<u32>,
    pub flags: ReportFlags,
    /// The monitored packet's flow, when the report carries its headers.
    pub flow: Option<FiveTuple>,
    /// Original DSCP of the monitored packet (v0.5 tail, v1.0 shim, v2 shim with NPT 0).
    pub original_dscp: Option<u8>,
    /// v2.x: RepMdBits as normalised fields, and the reporting node's metadata.
    pub local_fields: u16,
    pub local: HopMetadata,
    /// v2.x drop/queue reports need not carry INT-MD.
    pub has_int: bool,
    /// Instruction bitmap as carried, and the normalised fields every hop holds.
    pub instructions: u16,
    pub hop_fields: u16,
    /// v0.5 MaxHopCnt or v1.0/v2 RemainingHopCnt as carried.
    pub hop_budget: u8,
    /// Hops in stack order: hops[0] is the last switch that pushed (nearest the sink).
    pub hop_count: u8,
    pub hops: [HopMetadata; MAX_HOPS],
}

impl HopMetadata {
    /// Every field 0 (what [`Default`] gives), usable in constants.
    pub const EMPTY: HopMetadata = HopMetadata {
        switch_id: 0,
        ingress_port: 0,
        egress_port: 0,
        hop_latency: 0,
        queue_id: 0,
        queue_occupancy: 0,
        ingress_ts: 0,
        egress_ts: 0,
        l2_ingress_port: 0,
        l2_egress_port: 0,
        tx_utilization: 0,
        buffer_id: 0,
        buffer_occupancy: 0,
        congestion_queue_id: 0,
        queue_congestion: 0,
        drop_queue_id: 0,
        drop_reason: 0,
    };
}

impl IntReport {
    pub const EMPTY: IntReport = IntReport {
        version: ReportVersion::V05,
        hw_id: 0,
        seq: 0,
        node_id: None,
        report_ts: None,
        flags: ReportFlags {
            dropped: false,
            congested_queue: false,
            tracked_flow: false,
            intermediate: false,
        },
        flow: None,
        original_dscp: None,
        local_fields: 0,
        local: HopMetadata::EMPTY,
        has_int: false,
        instructions: 0,
        hop_fields: 0,
        hop_budget: 0,
        hop_count: 0,
        hops: [HopMetadata::EMPTY; MAX_HOPS],
    };

    fn reset(&mut self, version: ReportVersion) {
        self.version = version;
        self.hw_id = 0;
        self.seq = 0;
        self.node_id = None;
        self.report_ts = None;
        self.flags = ReportFlags::default();
        self.flow = None;
        self.original_dscp = None;
        self.local_fields = 0;
        self.local = HopMetadata::default();
        self.has_int = false;
        self.instructions = 0;
        self.hop_fields = 0;
        self.hop_budget = 0;
        self.hop_count = 0;
    }

    /// The hops this report carries, in stack order.
    pub fn hops(&self) -> &[HopMetadata] {
        &self.hops[..self.hop_count as usize]
    }
}

/// The reports of one packet (one for v0.5/v1.0, up to [`MAX_REPORTS`] for v2.x).
/// Allocated once and reused: decoding writes in place.
pub struct ReportBuf {
    reports: Box<[IntReport; MAX_REPORTS]>,
    len: usize,
    stack: Box<RawStack>,
}

/// Stacks of at most this many bytes may be kept raw (6 hops of every v0.5 field take
/// 192, of every v1.0 field 288).
pub const RAW_STACK_MAX: usize = 256;

/// The hop stack of a v0.5/v1.0 report kept as bytes, its hops not yet read: the INT
/// state compares it with the flow's last stack and reads the hops only when it
/// differs (see `inband::state`).
pub struct RawStack {
    /// Keep stacks raw (set by [`ReportBuf::deferring`]).
    enabled: bool,
    /// The first report's hops are in `bytes`, not in its `hops`.
    pub(crate) pending: bool,
    pub(crate) set: &'static instructions::InstructionSet,
    pub(crate) plan: instructions::Plan,
    /// The first report's flow, while its hops are unread (its `flow` is set with them).
    pub(crate) flow: packet::PackedTuple,
    /// 8 bytes past the largest stack, so that word-wise reads of the last hop stay
    /// inside.
    pub(crate) bytes: [u8; RAW_STACK_MAX + 8],
}

impl Default for ReportBuf {
    fn default() -> Self {
        ReportBuf {
            reports: Box::new([IntReport::EMPTY; MAX_REPORTS]),
            len: 0,
            stack: Box::new(RawStack { enabled: false, pending: false, set: &instructions::V05, plan: instructions::Plan::EMPTY, flow: packet::PackedTuple([0; 5]), bytes: [0; RAW_STACK_MAX + 8] }),
        }
    }
}

impl ReportBuf {
    /// A buffer that keeps the hop stack of v0.5/v1.0 reports (up to [`RAW_STACK_MAX`]
    /// bytes) raw until [`ReportBuf::read_hops`]; for `IntState::apply_buf`.
    pub fn deferring() -> ReportBuf {
        let mut b = ReportBuf::default();
        b.stack.enabled = true;
        b
    }

    /// The decoded reports.
    ///
    /// # Panics
    /// When the hops of a [`ReportBuf::deferring`] buffer were not read yet.
    pub fn reports(&self) -> &[IntReport] {
        assert!(!self.stack.pending, "hop stack not read: call read_hops first");
        &self.reports[..self.len]
    }

    /// The version of each report (whether or not its hops were read).
    pub fn versions(&self) -> impl Iterator<Item = ReportVersion> + '_ {
        self.reports[..self.len].iter().map(|r| r.version)
    }

    /// The first report and its raw stack, while its hops are unread.
    pub(crate) fn pending(&self) -> Option<(&IntReport, &RawStack)> {
        self.stack.pending.then(|| (&self.reports[0], &*self.stack))
    }

    /// The first report, its hops read, and the raw stack they were read from.
    pub(crate) fn first_with_stack(&self) -> (&IntReport, &RawStack) {
        (&self.reports()[0], &*self.stack)
    }

    /// Reads the hops of a raw stack into the report.
    pub fn read_hops(&mut self) {
        if !self.stack.pending {
            return;
        }
        let st = &*self.stack;
        let r = &mut self.reports[0];
        let n = r.hop_count as usize;
        let hb = st.plan.hop_bytes;
        for (i, h) in r.hops[..n].iter_mut().enumerate() {
            st.set.read_hop(&st.plan, &st.bytes[i * hb..(i + 1) * hb], h);
        }
        r.flow = Some(st.flow.five_tuple());
        self.stack.pending = false;
    }

    pub fn clear(&mut self) {
        self.len = 0;
        self.stack.pending = false;
    }

    /// The next report slot, reset for `version`, and the raw stack when it may keep
    /// this report's (the only report of a v0.5/v1.0 packet).
    #[inline(always)]
    fn push(&mut self, version: ReportVersion) -> Result<(&mut IntReport, Option<&mut RawStack>), IntError> {
        if self.len == MAX_REPORTS {
            return Err(IntError::TooManyReports);
        }
        let r = &mut self.reports[self.len];
        self.len += 1;
        r.reset(version);
        let raw = (self.stack.enabled && version != ReportVersion::V2).then_some(&mut *self.stack);
        Ok((r, raw))
    }
}

/// Copies a stack of at most [`RAW_STACK_MAX`] bytes, a multiple of 4, in place (a
/// `copy_from_slice` of a length known only at run time is a call to `memmove`).
#[inline(always)]
fn copy_stack(to: &mut [u8; RAW_STACK_MAX + 8], from: &[u8]) {
    let n = from.len();
    debug_assert!(n <= RAW_STACK_MAX && n % 4 == 0);
    let mut i = 0;
    // 64-byte blocks first: 6 hops of every v0.5 field are 3 of them.
    while i + 64 <= n {
        let s: &[u8; 64] = from[i..].first_chunk().expect("64 bytes");
        *to[i..].first_chunk_mut().expect("64 bytes") = *s;
        i += 64;
    }
    if i + 32 <= n {
        let s: &[u8; 32] = from[i..].first_chunk().expect("32 bytes");
        *to[i..].first_chunk_mut().expect("32 bytes") = *s;
        i += 32;
    }
    while i + 4 <= n {
        let s: &[u8; 4] = from[i..].first_chunk().expect("4 bytes");
        *to[i..].first_chunk_mut().expect("4 bytes") = *s;
        i += 4;
    }
}

/// Why a packet was rejected. Every variant is counted on its own
/// (`planck_collector_int_rejected_total{reason=...}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum IntError {
    /// Outer frame: not Ethernet/IP/UDP (or truncated before the UDP payload).
    OuterMalformed,
    /// Outer UDP destination port is not a configured INT port.
    NotReportPort,
    ReportHeaderTruncated,
    /// Report version nibble not 0, 1 or 2.
    VersionUnknown,
    /// A version the configuration does not accept.
    VersionDisabled,
    /// v1.0 header length or v2.x report length disagrees with the packet.
    ReportLengthMismatch,
    /// Inner packet type (NProto / InType) or inner transport not decodable.
    InnerUnsupported,
    InnerTruncated,
    ShimTruncated,
    /// Shim type is not INT hop-by-hop / INT-MD.
    ShimTypeUnsupported,
    /// INT metadata header version does not match the report version.
    IntVersionMismatch,
    /// Instruction bitmap sets bits the version reserves.
    UnknownInstructionBits,
    /// v0.5 InsCnt or v1.0/v2 HopML disagrees with the bitmap.
    InstructionCountMismatch,
    /// v0.5 TotalHopCnt exceeds MaxHopCnt.
    HopCountExceedsMax,
    /// More hops than the configured `max_hops`.
    TooManyHops,
    /// The hop count or shim length claims more stack than the packet holds.
    HopCountExceedsPacket,
    /// The stack is not a whole number of hops.
    StackNotWholeHops,
    /// Shim length disagrees with the headers and stack it covers.
    ShimLengthMismatch,
    /// v0.5 INT tail missing.
    TailTruncated,
    /// v2.x MD Length disagrees with RepMdBits, or the metadata is cut short.
    ReportMetadataMismatch,
    /// v2.x individual report header cut short.
    IndividualReportTruncated,
    /// v2.x RepType other than INT.
    ReportTypeUnsupported,
    TooManyReports,
}

impl IntError {
    pub const ALL: [IntError; 23] = [
        IntError::OuterMalformed,
        IntError::NotReportPort,
        IntError::ReportHeaderTruncated,
        IntError::VersionUnknown,
        IntError::VersionDisabled,
        IntError::ReportLengthMismatch,
        IntError::InnerUnsupported,
        IntError::InnerTruncated,
        IntError::ShimTruncated,
        IntError::ShimTypeUnsupported,
        IntError::IntVersionMismatch,
        IntError::UnknownInstructionBits,
        IntError::InstructionCountMismatch,
        IntError::HopCountExceedsMax,
        IntError::TooManyHops,
        IntError::HopCountExceedsPacket,
        IntError::StackNotWholeHops,
        IntError::ShimLengthMismatch,
        IntError::TailTruncated,
        IntError::ReportMetadataMismatch,
        IntError::IndividualReportTruncated,
        IntError::ReportTypeUnsupported,
        IntError::TooManyReports,
    ];

    /// The counter label.
    pub fn reason(self) -> &'static str {
        match self {
            IntError::OuterMalformed => "outer_malformed",
            IntError::NotReportPort => "not_report_port",
            IntError::ReportHeaderTruncated => "report_header_truncated",
            IntError::VersionUnknown => "version_unknown",
            IntError::VersionDisabled => "version_disabled",
            IntError::ReportLengthMismatch => "report_length_mismatch",
            IntError::InnerUnsupported => "inner_unsupported",
            IntError::InnerTruncated => "inner_truncated",
            IntError::ShimTruncated => "shim_truncated",
            IntError::ShimTypeUnsupported => "shim_type_unsupported",
            IntError::IntVersionMismatch => "int_version_mismatch",
            IntError::UnknownInstructionBits => "unknown_instruction_bits",
            IntError::InstructionCountMismatch => "instruction_count_mismatch",
            IntError::HopCountExceedsMax => "hop_count_exceeds_max",
            IntError::TooManyHops => "too_many_hops",
            IntError::HopCountExceedsPacket => "hop_count_exceeds_packet",
            IntError::StackNotWholeHops => "stack_not_whole_hops",
            IntError::ShimLengthMismatch => "shim_length_mismatch",
            IntError::TailTruncated => "tail_truncated",
            IntError::ReportMetadataMismatch => "report_metadata_mismatch",
            IntError::IndividualReportTruncated => "individual_report_truncated",
            IntError::ReportTypeUnsupported => "report_type_unsupported",
            IntError::TooManyReports => "too_many_reports",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

impl std::fmt::Display for IntError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.reason())
    }
}

/// Counts of rejected packets per reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RejectCounts(pub [u64; IntError::ALL.len()]);

impl RejectCounts {
    pub fn count(&mut self, e: IntError) {
        self.0[e.index()] += 1;
    }

    pub fn get(&self, e: IntError) -> u64 {
        self.0[e.index()]
    }

    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }
}

/// Which reports the decoder accepts.
#[derive(Clone, Debug)]
pub struct IntDecoderConfig {
    /// UDP destination ports reports arrive on (frame decoding only; a UDP socket
    /// already chose its port).
    pub ports: Vec<u16>,
    pub versions: Vec<ReportVersion>,
    /// Most hops per report (1..=MAX_HOPS).
    pub max_hops: u8,
}

impl Default for IntDecoderConfig {
    fn default() -> Self {
        IntDecoderConfig {
            ports: vec![DEFAULT_PORT],
            versions: ReportVersion::ALL.to_vec(),
            max_hops: 8,
        }
    }
}

/// INTCollector's and ONOS's customary report port.
pub const DEFAULT_PORT: u16 = 54321;

/// Decodes telemetry reports; stateless apart from its settings.
#[derive(Clone, Debug)]
pub struct IntDecoder {
    versions: u8,
    max_hops: u8,
    /// The first configured port (usually the only one): checked before the bitset,
    /// whose line may have left the cache.
    first_port: u16,
    /// Bitset of accepted UDP ports.
    ports: Box<[u64; 1024]>,
}

impl IntDecoder {
    pub fn new(cfg: &IntDecoderConfig) -> Result<IntDecoder, String> {
        if cfg.max_hops == 0 || cfg.max_hops as usize > MAX_HOPS {
            return Err(format!("int.max_hops {} out of range 1-{MAX_HOPS}", cfg.max_hops));
        }
        if cfg.versions.is_empty() {
            return Err("int.versions is empty".into());
        }
        if cfg.ports.is_empty() || cfg.ports.contains(&0) {
            return Err("int.ports must list UDP ports 1-65535".into());
        }
        let mut ports = Box::new([0u64; 1024]);
        for &p in &cfg.ports {
            ports[p as usize / 64] |= 1 << (p % 64);
        }
        Ok(IntDecoder {
            versions: cfg.versions.iter().fold(0, |a, v| a | v.bit()),
            max_hops: cfg.max_hops,
            first_port: cfg.ports[0],
            ports,
        })
    }

    pub fn max_hops(&self) -> usize {
        self.max_hops as usize
    }

    fn accepts(&self, v: ReportVersion) -> Result<(), IntError> {
        if self.versions & v.bit() != 0 {
            Ok(())
        } else {
            Err(IntError::VersionDisabled)
        }
    }

    /// Decodes a captured Ethernet frame carrying a report to one of the configured UDP
    /// ports. On error `out` is empty.
    pub fn decode_frame(&self, frame: &[u8], out: &mut ReportBuf) -> Result<(), IntError> {
        out.clear();
        let (port, payload) = packet::outer_udp(frame).ok_or(IntError::OuterMalformed)?;
        if port != self.first_port && self.ports[port as usize / 64] & (1 << (port % 64)) == 0 {
            return Err(IntError::NotReportPort);
        }
        self.decode_payload(payload, out)
    }

    /// Decodes the UDP payload of a report datagram. On error `out` is empty.
    #[inline]
    pub fn decode_payload(&self, payload: &[u8], out: &mut ReportBuf) -> Result<(), IntError> {
        out.clear();
        let r = self.decode_versions(payload, out);
        if r.is_err() {
            out.clear();
        }
        r
    }

    #[inline(always)]
    fn decode_versions(&self, p: &[u8], out: &mut ReportBuf) -> Result<(), IntError> {
        let b0 = *p.first().ok_or(IntError::ReportHeaderTruncated)?;
        match b0 >> 4 {
            0 => {
                self.accepts(ReportVersion::V05)?;
                v05::decode(self, p, out)
            }
            // A v1.0 header is at least 4 words long. INTCollector's generator writes
            // version 1 over the v0.5 layout, whose next nibble (NProto) is 0-2: read
            // such headers as v0.5.
            1 if (b0 & 0x0f) < v10::MIN_HEADER_WORDS => {
                self.accepts(ReportVersion::V05)?;
                v05::decode(self, p, out)
            }
            1 => {
                self.accepts(ReportVersion::V10)?;
                v10::decode(self, p, out)
            }
            2 => {
                self.accepts(ReportVersion::V2)?;
                v2::decode(self, p, out)
            }
            _ => Err(IntError::VersionUnknown),
        }
    }

    /// Checks a stack of `stack_len` bytes against the plan and reads its hops (or keeps
    /// them raw in `raw`). `flow`: the report's flow, set in the report (or, while its
    /// hops are kept raw, beside them, the report's set by [`ReportBuf::read_hops`]).
    #[inline(always)]
    fn read_stack(
        &self,
        set: &'static instructions::InstructionSet,
        plan: &instructions::Plan,
        stack: &[u8],
        hops: usize,
        r: &mut IntReport,
        raw: Option<&mut RawStack>,
        flow: Option<packet::PackedTuple>,
    ) -> Result<(), IntError> {
        if hops > self.max_hops as usize {
            return Err(IntError::TooManyHops);
        }
        debug_assert!(stack.len() >= hops * plan.hop_bytes);
        let len = hops * plan.hop_bytes;
        match raw {
            Some(raw) if len <= RAW_STACK_MAX && plan.hop_bytes > 0 && flow.is_some() => {
                copy_stack(&mut raw.bytes, &stack[..len]);
                raw.set = set;
                raw.plan = *plan;
                raw.flow = flow.unwrap_or_default();
                raw.pending = true;
            }
            _ => {
                if let Some(f) = flow {
                    r.flow = Some(f.five_tuple());
                }
                for (i, chunk) in stack.chunks_exact(plan.hop_bytes.max(1)).take(hops).enumerate() {
                    set.read_hop(plan, chunk, &mut r.hops[i]);
                }
                if plan.hop_bytes == 0 {
                    for h in &mut r.hops[..hops] {
                        *h = HopMetadata::default();
                    }
                }
            }
        }
        r.hop_count = hops as u8;
        r.instructions = plan.bitmap;
        r.hop_fields = plan.fields;
        r.has_int = true;
        Ok(())
    }
}
