//! Real Linux hosts as the lab fabric's endpoints (`[linux_hosts]`): host i is
//! the network namespace `<prefix>h<i>`, joined to host port i of the fabric by
//! the veth `<prefix>e<i>` (its peer `eth0` inside the namespace carries the
//! host's MAC and IP of `addr`). The fabric reads each frame a host sends from
//! its veth (the real-host capture ring of `crate::realhost`), carries it as one
//! packet through the rule tables, DropTail ports and mirror ports of the
//! fabric, and writes the frame to the destination host's veth when its packet
//! arrives. Mirror copies of a real packet are the real frame's own headers
//! (after the switch's rewrite, 802.1Q-tagged), so the collector reads real
//! TCP sequence numbers.
//!
//! Flows are real TCP connections: `POST /v1/flows` tells the source host's
//! agent (`tcp-agent.py`, the OVS lab's, one per namespace) to send one, and
//! `GET /v1/flows` reports what the agents measured (start before `connect`,
//! finish when the receiver read every byte and closed, the sender's
//! retransmissions). Parsing of the frames is in `classify` (pure, tested).

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::addr::{host_ip, host_mac};
use super::frames::{FrameSink, VLAN_BYTES};
use super::rules::Mac;
use crate::lag::LagHistogram;
use crate::realhost::capture::{Capture, CaptureKind, CaptureRing};
use crate::realhost::frame::{ETH_HEADER, Refusal, inspect};
use crate::realhost::store::FrameStore;

/// Frames in each host's receive ring.
const RING_FRAMES: usize = 2048;
/// Frames taken from one host's ring per slot at most.
pub const POLL_LIMIT: usize = 64;
/// Frames kept while their packets cross the fabric or wait in a mirror port:
/// far more than all port buffers (20 switches x 4 ports x 100) and mirror
/// buffers hold at once, so a frame is written over only after its packet left.
const STORE_FRAMES: usize = 1 << 15;
/// Agent flows remembered per fabric (a run has at most 255).
const MAX_AGENT_FLOWS: usize = 4096;
/// An agent must say `ready` within this.
const AGENT_START: Duration = Duration::from_secs(30);

/// `[linux_hosts]` of the fabric config.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinuxHostsSection {
    /// Names: namespace `<prefix>h<i>`, fabric-side veth `<prefix>e<i>` (1-8 of [a-z0-9]).
    pub prefix: String,
    /// The host agent run in every namespace (`src/test/system/ovs/tcp-agent.py`).
    pub agent: PathBuf,
    /// Each host's emulated NIC queue toward its edge port, packets.
    #[serde(default = "default_nic_buffer")]
    pub nic_buffer_pkts: u32,
    /// How frames are read from the veths: afpacket (default) or afxdp.
    #[serde(default)]
    pub capture: CaptureKind,
}

fn default_nic_buffer() -> u32 {
    100
}

impl LinuxHostsSection {
    pub fn validate(&self) -> anyhow::Result<()> {
        let p = &self.prefix;
        if p.is_empty()
            || p.len() > 8
            || !p
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        {
            anyhow::bail!("linux_hosts.prefix must be 1-8 characters of a-z and 0-9, got {p:?}");
        }
        if !(1..=4096).contains(&self.nic_buffer_pkts) {
            anyhow::bail!("linux_hosts.nic_buffer_pkts must be in 1..=4096");
        }
        if !self.agent.is_file() {
            anyhow::bail!("linux_hosts.agent {:?} is not a file", self.agent);
        }
        Ok(())
    }
    pub fn namespace(&self, i: usize) -> String {
        format!("{}h{i}", self.prefix)
    }
    pub fn veth(&self, i: usize) -> String {
        format!("{}e{i}", self.prefix)
    }
}

/// What the fabric needs of a real frame to forward it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Classified {
    pub eth_dst: Mac,
    pub ip_src: u32,
    pub ip_dst: u32,
    pub sport: u16,
    pub dport: u16,
}

/// Why a host's frame is not carried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    Oversize,
    NotIpv4,
    Malformed,
    /// IPv4 but not TCP (the fabric's rules and mirrors are TCP's), or a later fragment.
    NotTcp,
}

/// Reads what forwarding needs from an Ethernet + IPv4 + TCP frame. Pure: frames come from hosts.
pub fn classify(frame: &[u8], max_frame: usize) -> Result<Classified, Refused> {
    if frame.len() > max_frame {
        return Err(Refused::Oversize);
    }
    let info = inspect(frame).map_err(|r| match r {
        Refusal::NotIpv4 => Refused::NotIpv4,
        _ => Refused::Malformed,
    })?;
    let ip = &frame[ETH_HEADER..];
    let ihl = (ip[0] & 0x0f) as usize * 4;
    let total = u16::from_be_bytes([ip[2], ip[3]]) as usize;
    let frag_offset = u16::from_be_bytes([ip[6], ip[7]]) & 0x1fff;
    if ip[9] != 6 || frag_offset != 0 {
        return Err(Refused::NotTcp);
    }
    if total < ihl + 20 {
        return Err(Refused::Malformed);
    }
    let mut dst = [0u8; 8];
    dst[2..].copy_from_slice(&frame[..6]);
    Ok(Classified {
        eth_dst: Mac(u64::from_be_bytes(dst)),
        ip_src: info.src,
        ip_dst: info.dst,
        sport: u16::from_be_bytes([ip[ihl], ip[ihl + 1]]),
        dport: u16::from_be_bytes([ip[ihl + 2], ip[ihl + 3]]),
    })
}

/// The mirror copy of a real frame: its own bytes with the destination MAC the
/// switch sent it with and an 802.1Q tag (PCP 0, VID `vlan`) after the MACs, cut
/// to `snap_len`. Returns the copy's full length (frame + tag).
pub fn mirror_copy(
    frame: &[u8],
    eth_dst: Mac,
    vlan: u16,
    snap_len: usize,
    out: &mut Vec<u8>,
) -> usize {
    out.clear();
    out.extend_from_slice(&eth_dst.0.to_be_bytes()[2..]);
    out.extend_from_slice(&frame[6..12]);
    out.extend_from_slice(&0x8100u16.to_be_bytes());
    out.extend_from_slice(&(vlan & 0x0fff).to_be_bytes());
    out.extend_from_slice(&frame[12..]);
    let full = out.len();
    out.truncate(snap_len.max(ETH_HEADER + VLAN_BYTES as usize));
    full
}

/// One host's frame counters (`GET /v1/status`, `linuxHosts`).
#[derive(Debug, Default, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HostCounters {
    pub frames_in: u64,
    pub frames_out: u64,
    pub refused_oversize: u64,
    pub refused_not_ipv4: u64,
    pub refused_not_tcp: u64,
    pub refused_malformed: u64,
    pub unknown_destination: u64,
    pub nic_drops: u64,
    pub expired: u64,
    pub ring_drops: u64,
    pub tx_errors: u64,
}

/// A frame taken in, waiting on its host's emulated NIC.
#[derive(Clone, Copy, Debug)]
pub struct Intaken {
    pub frame: u32,
    pub len: u16,
    pub dst_host: usize,
    pub c: Classified,
}

pub struct HostPort {
    rx: CaptureRing,
    tx: FrameSink,
    queued: bool,
    pub nic: VecDeque<Intaken>,
    pub c: HostCounters,
    _lock: crate::realhost::VethLock,
}

/// The real hosts of one fabric: their veths, frames in flight, agents.
pub struct LinuxHosts {
    pub ports: Vec<HostPort>,
    by_ip: HashMap<u32, usize>,
    pub store: FrameStore,
    pub max_frame: usize,
    nic_cap: usize,
    agents: Agents,
    /// Lag behind the wall clock per slot (the fabric's real-time check).
    pub lag: LagHistogram,
    /// Real flows (5-tuples) the fabric has seen -> its flow index.
    pub flow_index: HashMap<(usize, usize, u16, u16), u32>,
    pub flow_table_full: u64,
    pub mirror_expired: u64,
    /// Per-flow (5-tuple) rules in the tables at the last status: (installed, hit by a packet,
    /// packets): a TE move in force is a per-flow rule its flow's packets hit.
    pub flow_rules: (u64, u64, u64),
    epoch_ns: Option<f64>,
    /// Wall clock and the engine thread's CPU time at the first slot: the share of a core the
    /// engine got tells a starved fabric (low share) from one with too much to do (share ~1).
    cpu_start: Option<(std::time::Instant, Duration)>,
}

/// CPU time of the calling thread.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn unix_ns() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as f64)
        .unwrap_or(0.0)
}

impl LinuxHosts {
    /// Opens every host's veth and starts its agent; one-line errors.
    pub fn open(cfg: &LinuxHostsSection, hosts: usize, mtu: u32) -> anyhow::Result<LinuxHosts> {
        let max_frame = mtu as usize + ETH_HEADER;
        let mut ports = Vec::new();
        for i in 0..hosts {
            let (ns, veth) = (cfg.namespace(i), cfg.veth(i));
            let at = |m: String| anyhow::anyhow!("linux host {i} ({ns}, {veth}): {m}");
            if !crate::realhost::lifecycle::namespace_exists(&ns) {
                return Err(at(
                    "no such network namespace (emulator/realhosts/lab-hosts.sh up creates it)"
                        .into(),
                ));
            }
            let sys = Path::new("/sys/class/net").join(&veth);
            let if_mtu: u32 = std::fs::read_to_string(sys.join("mtu"))
                .map_err(|_| at("no such interface".into()))?
                .trim()
                .parse()
                .unwrap_or(0);
            if if_mtu > mtu {
                return Err(at(format!("MTU {if_mtu} is above fabric.mtu_bytes {mtu}")));
            }
            let lock = crate::realhost::lock_veth(&veth).map_err(at)?;
            let rx = CaptureRing::open(
                Capture::new(cfg.capture, Default::default()),
                &veth,
                max_frame,
                RING_FRAMES,
            )
            .map_err(at)?;
            let tx = FrameSink::interface(&veth).map_err(at)?;
            ports.push(HostPort {
                rx,
                tx,
                queued: false,
                nic: VecDeque::with_capacity(cfg.nic_buffer_pkts as usize),
                c: HostCounters::default(),
                _lock: lock,
            });
        }
        let by_ip = (0..hosts).map(|i| (u32::from(host_ip(i)), i)).collect();
        let namespaces: Vec<String> = (0..hosts).map(|i| cfg.namespace(i)).collect();
        let agents = Agents::start(&cfg.agent, &namespaces)?;
        Ok(LinuxHosts {
            ports,
            by_ip,
            store: FrameStore::new(STORE_FRAMES, max_frame),
            max_frame,
            nic_cap: cfg.nic_buffer_pkts as usize,
            agents,
            lag: LagHistogram::default(),
            flow_index: HashMap::new(),
            flow_table_full: 0,
            mirror_expired: 0,
            flow_rules: (0, 0, 0),
            epoch_ns: None,
            cpu_start: None,
        })
    }

    /// Sends what was delivered last slot, then takes in every host's frames that had
    /// arrived by the end of slot `t` (`slot_ns` long), onto the hosts' NIC queues.
    pub fn exchange(&mut self, t: u64, slot_ns: f64) {
        let epoch = *self
            .epoch_ns
            .get_or_insert_with(|| unix_ns() - t as f64 * slot_ns);
        self.cpu_start
            .get_or_insert_with(|| (std::time::Instant::now(), thread_cpu()));
        let not_after = (epoch + (t + 1) as f64 * slot_ns) as u64;
        let LinuxHosts {
            ports,
            by_ip,
            store,
            max_frame,
            nic_cap,
            ..
        } = self;
        for p in ports.iter_mut() {
            if p.queued {
                p.queued = false;
                let failed = p.tx.flush();
                p.c.tx_errors += failed;
                p.c.frames_out -= failed.min(p.c.frames_out);
            }
            let HostPort { rx, nic, c, .. } = p;
            rx.poll(POLL_LIMIT, not_after, |f| {
                if f.incomplete() {
                    c.refused_oversize += 1;
                    return;
                }
                if f.vlan_tagged() {
                    c.refused_not_ipv4 += 1;
                    return;
                }
                let cl = match classify(f.data, *max_frame) {
                    Ok(cl) => cl,
                    Err(Refused::Oversize) => return c.refused_oversize += 1,
                    Err(Refused::NotIpv4) => return c.refused_not_ipv4 += 1,
                    Err(Refused::NotTcp) => return c.refused_not_tcp += 1,
                    Err(Refused::Malformed) => return c.refused_malformed += 1,
                };
                let Some(&dst_host) = by_ip.get(&cl.ip_dst) else {
                    return c.unknown_destination += 1;
                };
                if nic.len() >= *nic_cap {
                    return c.nic_drops += 1;
                }
                let frame = store.put(f.data);
                nic.push_back(Intaken {
                    frame,
                    len: f.data.len() as u16,
                    dst_host,
                    c: cl,
                });
                c.frames_in += 1;
            });
        }
    }

    /// Writes the frame of an arrived packet to host `h` (sent at the next exchange).
    pub fn deliver(&mut self, h: usize, frame: u32, eth_dst: Mac) {
        let p = &mut self.ports[h];
        let Some(fr) = self.store.get(frame) else {
            p.c.expired += 1;
            return;
        };
        fr[..6].copy_from_slice(&eth_dst.0.to_be_bytes()[2..]);
        let n = fr.len();
        p.tx.push(fr, n, Duration::ZERO);
        p.queued = true;
        p.c.frames_out += 1;
    }

    pub fn start_flow(
        &mut self,
        id: u64,
        src: usize,
        dst: usize,
        bytes: u64,
        sport: u16,
        dport: u16,
    ) -> Result<(), String> {
        self.agents.send(id, src, dst, bytes, sport, dport)
    }

    pub fn flows_json(&self) -> Value {
        self.agents.flows_json()
    }

    pub fn status_json(&mut self) -> Value {
        for p in &mut self.ports {
            p.c.ring_drops += p.rx.take_stats().1;
        }
        let lag = self.lag.summary();
        // Called on the engine thread (status requests and the drop at shutdown run there).
        let cpu_share = self.cpu_start.map_or(0.0, |(wall, cpu)| {
            (thread_cpu().saturating_sub(cpu)).as_secs_f64()
                / wall.elapsed().as_secs_f64().max(1e-9)
        });
        let hosts: Vec<&HostCounters> = self.ports.iter().map(|p| &p.c).collect();
        json!({"cpuShare": cpu_share, "lagMaxUs": lag.max_lag_us, "lagP50Us": lag.p50_lag_us, "lagP99Us": lag.p99_lag_us, "lagP999Us": lag.p999_lag_us,
            "over1msFraction": lag.over_1ms_fraction, "slots": lag.batches,
            "realFlows": self.flow_index.len(), "flowTableFull": self.flow_table_full,
            "mirrorExpired": self.mirror_expired, "agentFailures": self.agents.failures(),
            "flowRules": {"installed": self.flow_rules.0, "hit": self.flow_rules.1, "packets": self.flow_rules.2},
            "hosts": hosts})
    }
}

impl Drop for LinuxHosts {
    /// The run's real-time check and frame counters, on the fabric's log (one line).
    fn drop(&mut self) {
        eprintln!("planck-emu fabric: linux hosts {}", self.status_json());
    }
}

#[derive(Debug, Clone, Default)]
struct AgentFlow {
    src: usize,
    dst: usize,
    bytes: u64,
    start_us: Option<u64>,
    finish_us: Option<u64>,
    retransmits: u64,
    timeouts: i64,
    failure: Option<String>,
}

#[derive(Default)]
struct AgentTable {
    order: Vec<u64>,
    flows: HashMap<u64, AgentFlow>,
    /// Lines an agent wrote that name no flow (bad commands).
    stray: u64,
}

impl AgentTable {
    /// One line of an agent's output: `done ID START FINISH BYTES RETRANS RTOS` or `fail ID REASON`.
    fn on_line(&mut self, line: &str) {
        let w: Vec<&str> = line.split_whitespace().collect();
        let Some(f) = w
            .get(1)
            .and_then(|id| id.parse::<u64>().ok())
            .and_then(|id| self.flows.get_mut(&id))
        else {
            self.stray += 1;
            return;
        };
        match (w[0], w.len()) {
            ("done", 7) => {
                let n = |i: usize| w[i].parse::<i64>().ok();
                match (n(2), n(3), n(5), n(6)) {
                    (Some(s), Some(e), Some(r), Some(t)) if s >= 0 && e >= s => {
                        f.start_us = Some(s as u64);
                        f.finish_us = Some(e as u64);
                        f.retransmits = r.max(0) as u64;
                        f.timeouts = t;
                    }
                    _ => f.failure = Some(format!("unreadable report {line:?}")),
                }
            }
            ("fail", _) => f.failure = Some(w[2..].join(" ")),
            _ => f.failure = Some(format!("unreadable report {line:?}")),
        }
    }
}

/// One `tcp-agent.py` per host namespace, driven on stdin.
struct Agents {
    children: Vec<Child>,
    inputs: Vec<ChildStdin>,
    table: Arc<Mutex<AgentTable>>,
}

impl Agents {
    fn start(agent: &Path, namespaces: &[String]) -> anyhow::Result<Agents> {
        let table = Arc::new(Mutex::new(AgentTable::default()));
        let mut a = Agents {
            children: Vec::new(),
            inputs: Vec::new(),
            table,
        };
        let (ready_tx, ready_rx) = mpsc::channel::<(usize, String)>();
        for (i, ns) in namespaces.iter().enumerate() {
            let mut child = Command::new("ip")
                .args(["netns", "exec", ns, "python3"])
                .arg(agent)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .map_err(|e| anyhow::anyhow!("host agent in {ns}: {e}"))?;
            a.inputs.push(child.stdin.take().expect("piped"));
            let out = child.stdout.take().expect("piped");
            a.children.push(child);
            let (table, ready) = (a.table.clone(), ready_tx.clone());
            std::thread::Builder::new()
                .name(format!("agent-{i}"))
                .spawn(move || {
                    let mut lines = BufReader::new(out).lines();
                    let first = lines.next().and_then(|l| l.ok()).unwrap_or_default();
                    let _ = ready.send((i, first));
                    for line in lines.map_while(Result::ok) {
                        if let Ok(mut t) = table.lock() {
                            t.on_line(&line);
                        }
                    }
                })?;
        }
        for _ in namespaces {
            match ready_rx.recv_timeout(AGENT_START) {
                Ok((_, l)) if l == "ready" => {}
                Ok((i, l)) => {
                    anyhow::bail!("host agent in {} did not start (said {l:?})", namespaces[i])
                }
                Err(_) => anyhow::bail!(
                    "host agents did not start within {} s",
                    AGENT_START.as_secs()
                ),
            }
        }
        Ok(a)
    }

    fn send(
        &mut self,
        id: u64,
        src: usize,
        dst: usize,
        bytes: u64,
        sport: u16,
        dport: u16,
    ) -> Result<(), String> {
        let mut t = self
            .table
            .lock()
            .map_err(|_| "agent table poisoned".to_string())?;
        if t.flows.contains_key(&id) {
            return Err(format!("flow {id} already started"));
        }
        if t.flows.len() >= MAX_AGENT_FLOWS {
            return Err(format!("more than {MAX_AGENT_FLOWS} flows"));
        }
        let line = format!("send {id} {} {sport} {dport} {bytes}\n", host_ip(dst));
        self.inputs[src]
            .write_all(line.as_bytes())
            .and_then(|_| self.inputs[src].flush())
            .map_err(|e| format!("host agent {src}: {e}"))?;
        t.order.push(id);
        t.flows.insert(
            id,
            AgentFlow {
                src,
                dst,
                bytes,
                ..Default::default()
            },
        );
        Ok(())
    }

    fn failures(&self) -> usize {
        self.table
            .lock()
            .map(|t| t.flows.values().filter(|f| f.failure.is_some()).count())
            .unwrap_or(0)
    }

    fn flows_json(&self) -> Value {
        let Ok(t) = self.table.lock() else {
            return json!({"version": 1, "flows": []});
        };
        let flows: Vec<Value> = t
            .order
            .iter()
            .map(|id| {
                let f = &t.flows[id];
                let done = f.finish_us.is_some();
                json!({"id": id, "src": host_mac(f.src), "dst": host_mac(f.dst), "bytes": f.bytes,
                    "startUs": f.start_us.unwrap_or(0), "finishUs": f.finish_us,
                    "sentBytes": if done { f.bytes } else { 0 }, "done": done,
                    "retransmits": f.retransmits, "timeouts": f.timeouts.max(0),
                    "failure": f.failure})
            })
            .collect();
        json!({"version": 1, "flows": flows})
    }
}

impl Drop for Agents {
    fn drop(&mut self) {
        for w in &mut self.inputs {
            let _ = w.write_all(b"quit\n");
        }
        self.inputs.clear();
        for c in &mut self.children {
            let deadline = std::time::Instant::now() + Duration::from_secs(2);
            loop {
                match c.try_wait() {
                    Ok(Some(_)) => break,
                    Ok(None) if std::time::Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(20))
                    }
                    _ => {
                        let _ = c.kill();
                        let _ = c.wait();
                        break;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcp_frame(payload: usize) -> Vec<u8> {
        let mut f = vec![0u8; ETH_HEADER + 20 + 20 + payload];
        f[..6].copy_from_slice(&[0, 0, 0, 0, 0, 9]);
        f[6..12].copy_from_slice(&[0, 0, 0, 0, 0, 1]);
        f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
        let ip = &mut f[ETH_HEADER..];
        ip[0] = 0x45;
        let total = (40 + payload) as u16;
        ip[2..4].copy_from_slice(&total.to_be_bytes());
        ip[8] = 64;
        ip[9] = 6;
        ip[12..16].copy_from_slice(&[10, 0, 0, 1]);
        ip[16..20].copy_from_slice(&[10, 0, 0, 9]);
        ip[20..22].copy_from_slice(&10001u16.to_be_bytes());
        ip[22..24].copy_from_slice(&5001u16.to_be_bytes());
        ip[24..28].copy_from_slice(&0xdead_beefu32.to_be_bytes());
        f
    }

    #[test]
    fn a_tcp_frame_is_classified_by_its_headers() {
        let f = tcp_frame(100);
        let c = classify(&f, 1514).unwrap();
        assert_eq!(c.eth_dst, Mac(9));
        assert_eq!(c.ip_src, u32::from(std::net::Ipv4Addr::new(10, 0, 0, 1)));
        assert_eq!(c.ip_dst, u32::from(std::net::Ipv4Addr::new(10, 0, 0, 9)));
        assert_eq!((c.sport, c.dport), (10001, 5001));
    }

    #[test]
    fn frames_the_fabric_cannot_carry_are_refused_with_their_reason() {
        assert_eq!(classify(&tcp_frame(1461), 1514), Err(Refused::Oversize));
        let mut udp = tcp_frame(10);
        udp[ETH_HEADER + 9] = 17;
        assert_eq!(classify(&udp, 1514), Err(Refused::NotTcp));
        let mut frag = tcp_frame(10);
        frag[ETH_HEADER + 7] = 1;
        assert_eq!(classify(&frag, 1514), Err(Refused::NotTcp));
        let mut arp = tcp_frame(10);
        arp[12..14].copy_from_slice(&0x0806u16.to_be_bytes());
        assert_eq!(classify(&arp, 1514), Err(Refused::NotIpv4));
        // IP total length shorter than IP + TCP headers.
        let mut short = tcp_frame(0);
        short[ETH_HEADER + 2..ETH_HEADER + 4].copy_from_slice(&30u16.to_be_bytes());
        assert_eq!(classify(&short, 1514), Err(Refused::Malformed));
        // Cut inside the IP header.
        assert_eq!(classify(&tcp_frame(0)[..20], 1514), Err(Refused::Malformed));
    }

    #[test]
    fn a_mirror_copy_is_the_frame_tagged_with_the_rewritten_destination() {
        let f = tcp_frame(1000);
        let mut out = Vec::new();
        let full = mirror_copy(&f, Mac(0x0e00_0000_ff01), 101, 128, &mut out);
        assert_eq!(full, f.len() + 4);
        assert_eq!(out.len(), 128);
        assert_eq!(&out[..6], &[0x0e, 0, 0, 0, 0xff, 0x01]);
        assert_eq!(&out[6..12], &f[6..12]);
        assert_eq!(&out[12..16], &[0x81, 0x00, 0, 101]);
        assert_eq!(&out[16..], &f[12..12 + 112]);
        // The TCP sequence number is the host's own.
        assert_eq!(
            &out[18 + 20 + 4..18 + 20 + 8],
            &0xdead_beefu32.to_be_bytes()
        );
        // A snap longer than the frame keeps all of it.
        assert_eq!(mirror_copy(&f, Mac(1), 1, 4000, &mut out), f.len() + 4);
        assert_eq!(out.len(), f.len() + 4);
    }

    #[test]
    fn agent_reports_complete_or_fail_the_flows_they_name() {
        let mut t = AgentTable::default();
        for id in [1, 2, 3] {
            t.order.push(id);
            t.flows.insert(
                id,
                AgentFlow {
                    src: 0,
                    dst: 1,
                    bytes: 1000,
                    ..Default::default()
                },
            );
        }
        t.on_line("done 1 100 900 1000 3 0");
        t.on_line("fail 2 [Errno 111] Connection refused");
        t.on_line("done 3 900 100 1000 0 0");
        t.on_line("done 77 1 2 3 4 5");
        t.on_line("fail -1 bad command: x");
        let f1 = &t.flows[&1];
        assert_eq!(
            (f1.start_us, f1.finish_us, f1.retransmits),
            (Some(100), Some(900), 3)
        );
        assert_eq!(
            t.flows[&2].failure.as_deref(),
            Some("[Errno 111] Connection refused")
        );
        // Finish before start is not a completion.
        assert!(t.flows[&3].finish_us.is_none() && t.flows[&3].failure.is_some());
        assert_eq!(t.stray, 2);
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_are_classified_or_refused(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200)) {
            let _ = classify(&bytes, 1514);
        }

        #[test]
        fn a_tcp_frame_keeps_its_ports_and_its_copy_its_bytes(
            payload in 0usize..1460, sport in 1u16.., dport in 1u16.., vlan in 0u16..4096, snap in 18usize..1600,
        ) {
            let mut f = tcp_frame(payload);
            f[ETH_HEADER + 20..ETH_HEADER + 22].copy_from_slice(&sport.to_be_bytes());
            f[ETH_HEADER + 22..ETH_HEADER + 24].copy_from_slice(&dport.to_be_bytes());
            let c = classify(&f, 1514).unwrap();
            proptest::prop_assert_eq!((c.sport, c.dport), (sport, dport));
            let mut out = Vec::new();
            let full = mirror_copy(&f, c.eth_dst, vlan, snap, &mut out);
            proptest::prop_assert_eq!(full, f.len() + 4);
            proptest::prop_assert_eq!(out.len(), snap.min(full));
            proptest::prop_assert_eq!(u16::from_be_bytes([out[14], out[15]]), vlan);
            proptest::prop_assert_eq!(&out[16..], &f[12..12 + out.len() - 16]);
        }
    }

    #[test]
    fn section_names_and_bounds() {
        let s = LinuxHostsSection {
            prefix: "ab1".into(),
            agent: PathBuf::from("/nonexistent/agent.py"),
            nic_buffer_pkts: 100,
            capture: CaptureKind::Afpacket,
        };
        assert_eq!(
            (s.namespace(3), s.veth(15)),
            ("ab1h3".to_string(), "ab1e15".to_string())
        );
        assert!(
            s.validate()
                .unwrap_err()
                .to_string()
                .contains("is not a file")
        );
        let bad = LinuxHostsSection {
            prefix: "Bad-".into(),
            ..s.clone()
        };
        assert!(bad.validate().unwrap_err().to_string().contains("prefix"));
        let long = LinuxHostsSection {
            prefix: "abcdefghi".into(),
            ..s
        };
        assert!(long.validate().is_err());
    }
}
