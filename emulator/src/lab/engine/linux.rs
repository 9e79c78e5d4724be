//! The engine's side of real Linux hosts (`lab::linux_hosts`): each slot, frames
//! in from the hosts' veths and one packet per host NIC onto its edge link; a
//! packet that reaches its host has its frame written out; flows are the hosts'
//! agents'. Everything else (rule lookup, queues, mirrors) is the engine's own.

use super::*;
use crate::lab::linux_hosts::LinuxHosts;

/// Real 5-tuples a fabric keeps (both directions of a TCP connection are two).
const MAX_REAL_FLOWS: usize = 1 << 16;

impl FabricEngine {
    /// Frames in, then each host's NIC sends its oldest packet onto its link.
    pub(super) fn linux_slot(&mut self, t: Slot) {
        let Some(mut lh) = self.linux.take() else {
            return;
        };
        lh.lag.record(self.lag_us as f64);
        lh.exchange(t, self.slot_ns);
        let ring = self.calendar.len() as u64;
        for h in 0..lh.ports.len() {
            let Some(x) = lh.ports[h].nic.pop_front() else {
                continue;
            };
            let Some(flow) = self.real_flow(&mut lh, h, x.dst_host, x.c.sport, x.c.dport) else {
                continue;
            };
            let pkt = Pkt {
                flow,
                seq: x.frame,
                eth_dst: x.c.eth_dst,
                payload: (x.len as u32).saturating_sub(HEADER_BYTES) as u16,
                ip_id: 0,
                hops: 0,
                // The config refuses INT with real hosts: their frames carry no INT stack.
                int: NO_INT,
            };
            let host = &self.hosts[h];
            let at = t + host.latency as u64;
            self.calendar[(at % ring) as usize].push((
                Dest::Switch {
                    sw: host.switch,
                    port: host.port,
                },
                pkt,
            ));
        }
        self.linux = Some(lh);
    }

    /// The engine flow of a real 5-tuple (made on its first frame): what rule lookup
    /// and mirror accounting key on.
    fn real_flow(
        &mut self,
        lh: &mut LinuxHosts,
        src: usize,
        dst: usize,
        sport: u16,
        dport: u16,
    ) -> Option<u32> {
        let key = (src, dst, sport, dport);
        if let Some(&i) = lh.flow_index.get(&key) {
            return Some(i);
        }
        if self.flows.len() >= MAX_REAL_FLOWS {
            lh.flow_table_full += 1;
            return None;
        }
        let idx = self.flows.len() as u32;
        self.flows.push(Flow {
            spec: FlowSpec {
                id: idx as u64,
                src,
                dst,
                bytes: 0,
                start_us: 0.0,
                sport,
                dport,
            },
            packets: 0,
            last_payload: 0,
            start_slot: self.now,
            sender: None,
            expected: 0,
            held: BTreeSet::new(),
            isn: 0,
            peer_isn: 0,
        });
        lh.flow_index.insert(key, idx);
        Some(idx)
    }

    /// A real packet reached host `h`: its frame goes out on the host's veth.
    pub(super) fn linux_receive(&mut self, h: usize, pkt: Pkt) {
        let f = &self.flows[pkt.flow as usize];
        if f.spec.dst != h || pkt.eth_dst != host_mac(h) {
            self.misdelivered += 1;
            return;
        }
        if let Some(lh) = self.linux.as_mut() {
            lh.deliver(h, pkt.seq, pkt.eth_dst);
        }
    }

    /// `POST /v1/flows` with real hosts: each source host's agent opens a TCP connection now.
    pub(super) fn linux_start_flows(&mut self, specs: Vec<FlowSpec>) -> ApiResult {
        let hosts = self.hosts.len();
        for (i, f) in specs.iter().enumerate() {
            if f.src >= hosts || f.dst >= hosts || f.src == f.dst {
                return Err(ApiError::bad(format!(
                    "flow {i}: src and dst must be two different hosts"
                )));
            }
            if f.bytes == 0 || f.bytes > 1 << 40 {
                return Err(ApiError::bad(format!("flow {i}: bytes out of range")));
            }
            if f.start_us != 0.0 {
                return Err(ApiError::bad(format!(
                    "flow {i}: real hosts start flows at once (startUs must be 0)"
                )));
            }
            if f.sport == 0 || f.dport != 5001 {
                return Err(ApiError::bad(format!(
                    "flow {i}: the hosts' agents listen on port 5001 only"
                )));
            }
        }
        let lh = self.linux.as_mut().expect("real-host fabric");
        for f in &specs {
            lh.start_flow(f.id, f.src, f.dst, f.bytes, f.sport, f.dport)
                .map_err(ApiError::bad)?;
        }
        Ok(json!({"version": 1, "accepted": specs.len(), "acceptedUs": self.time_us(self.now)}))
    }

    /// `GET /v1/status`, with the real hosts' lag quantiles and frame counters.
    pub(super) fn status_with_linux(&mut self) -> Value {
        let mut v = self.status_json();
        let mut fr = (0, 0, 0);
        for r in self.tables.iter().flat_map(|t| t.rules()) {
            if r.matcher.sport.is_some() && r.matcher.dport.is_some() {
                fr.0 += 1;
                fr.1 += u64::from(r.packets > 0);
                fr.2 += r.packets;
            }
        }
        if let Some(lh) = self.linux.as_mut() {
            lh.flow_rules = fr;
            v["linuxHosts"] = lh.status_json();
        }
        v
    }
}
