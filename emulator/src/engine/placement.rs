//! Placement: which partition emulates each switch port and each endpoint,
//! and the rings the partitions exchange packets on.

use crate::fabric::topology::{Peer, Topology};

/// Marks a partition that holds no router of a switch.
pub const NO_ROUTER: u32 = u32::MAX;

/// Which partition emulates each switch port and each endpoint.
///
/// Switches of one group (rack, pod) share a partition and endpoints follow
/// their switch. An output-queued switch's output ports are independent (every
/// scheme keeps its state per output port), so a switch without endpoints
/// whose neighbours live on several partitions is *split* by output port: the
/// port towards a neighbour is emulated by the neighbour's partition, each
/// such partition holding a router for the switch that only ever uses its own
/// ports. A packet sent towards a split switch is routed at the sender (the
/// switch's routes are a function of the packet) and goes straight to the
/// partition of the port it will leave by, with the link's latency as before.
/// With 2 racks + aggregation on 2 workers this makes the partition
/// symmetric: each worker runs its ToR, its hosts and the aggregation ports
/// towards its rack.
#[derive(Clone, Debug)]
pub struct Placement {
    /// Per switch, per output port: the partition that emulates the port.
    pub port_part: Vec<Vec<u16>>,
    /// Per switch, per partition: the switch's local router index there, or
    /// `NO_ROUTER`. A switch that is not split has one router, on its group's
    /// partition.
    pub switch_local: Vec<Vec<u32>>,
    /// Switches split across partitions by output port.
    pub split: Vec<bool>,
    pub endpoint_part: Vec<u16>,
    pub endpoint_local: Vec<u32>,
    pub parts: usize,
}

impl Placement {
    /// Switches of one group share a partition; endpoints follow their switch;
    /// switches without endpoints that join several partitions are split by
    /// output port (see the type's comment).
    pub fn by_group(topo: &Topology, threads: usize) -> Placement {
        let mut groups: Vec<u32> = topo.switches.iter().map(|s| s.group).collect();
        groups.sort();
        groups.dedup();
        let parts = threads.clamp(1, groups.len().max(1));
        let home: Vec<u16> = topo
            .switches
            .iter()
            .map(|s| (groups.binary_search(&s.group).unwrap_or(0) % parts) as u16)
            .collect();
        let split = if parts > 1 {
            Self::switches_to_split(topo, &home)
        } else {
            vec![false; topo.switches.len()]
        };
        let port_part: Vec<Vec<u16>> = topo
            .switches
            .iter()
            .enumerate()
            .map(|(sid, sw)| {
                sw.ports
                    .iter()
                    .map(|p| match (split[sid], p.peer) {
                        // Neighbours of a split switch are never split themselves.
                        (true, Peer::Switch { switch, .. }) => home[switch as usize],
                        _ => home[sid],
                    })
                    .collect()
            })
            .collect();
        let mut counts = vec![0u32; parts];
        let mut switch_local = Vec::with_capacity(topo.switches.len());
        for (sid, ports) in port_part.iter().enumerate() {
            let mut local = vec![NO_ROUTER; parts];
            for (p, slot) in local.iter_mut().enumerate() {
                let holds = if split[sid] {
                    ports.iter().any(|&q| q as usize == p)
                } else {
                    home[sid] as usize == p
                };
                if holds {
                    *slot = counts[p];
                    counts[p] += 1;
                }
            }
            switch_local.push(local);
        }
        let mut ecounts = vec![0u32; parts];
        let mut endpoint_part = Vec::new();
        let mut endpoint_local = Vec::new();
        for e in &topo.endpoints {
            let p = home[e.switch as usize] as usize;
            endpoint_part.push(p as u16);
            endpoint_local.push(ecounts[p]);
            ecounts[p] += 1;
        }
        Placement {
            port_part,
            switch_local,
            split,
            endpoint_part,
            endpoint_local,
            parts,
        }
    }

    /// Split switches without endpoints whose neighbours sit on more than one
    /// partition, farthest from the endpoints first (the aggregation switch of
    /// racks, the cores of a fat tree), never two neighbours: a split switch's
    /// ports are placed by its neighbours, which must therefore be whole.
    fn switches_to_split(topo: &Topology, home: &[u16]) -> Vec<bool> {
        let n = topo.switches.len();
        let has_endpoint: Vec<bool> = topo
            .switches
            .iter()
            .map(|s| s.ports.iter().any(|p| matches!(p.peer, Peer::Endpoint(_))))
            .collect();
        // Hops from the nearest switch with endpoints (breadth first).
        let mut dist = vec![u32::MAX; n];
        let mut frontier: Vec<usize> = (0..n).filter(|&s| has_endpoint[s]).collect();
        for &s in &frontier {
            dist[s] = 0;
        }
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for s in frontier {
                for p in &topo.switches[s].ports {
                    if let Peer::Switch { switch, .. } = p.peer
                        && dist[switch as usize] == u32::MAX
                    {
                        dist[switch as usize] = dist[s] + 1;
                        next.push(switch as usize);
                    }
                }
            }
            frontier = next;
        }
        let mut order: Vec<usize> = (0..n).filter(|&s| !has_endpoint[s]).collect();
        order.sort_by_key(|&s| (std::cmp::Reverse(dist[s]), s));
        let mut split = vec![false; n];
        for s in order {
            let peers: Vec<usize> = topo.switches[s]
                .ports
                .iter()
                .filter_map(|p| match p.peer {
                    Peer::Switch { switch, .. } => Some(switch as usize),
                    Peer::Endpoint(_) => None,
                })
                .collect();
            let spans = peers.iter().any(|&q| home[q] != home[peers[0]]);
            if spans && peers.iter().all(|&q| !split[q]) {
                split[s] = true;
            }
        }
        split
    }

    /// The exchanges between partitions: for each partition, the (receiving
    /// partition, delay in slots) pairs it may send packets on, sorted. Each
    /// pair gets its own ring, so the packets in one ring fall due in the
    /// order they were sent and the receiver takes them straight from the
    /// ring in their slot. Delays are those of links that cross partitions
    /// (into a split switch: towards any partition holding one of its ports)
    /// and, between partitions that both have endpoints, the ACK delay.
    pub fn exchanges(&self, topo: &Topology, ack_delay: u32) -> Vec<Vec<(u16, u32)>> {
        let mut plan = vec![std::collections::BTreeSet::new(); self.parts];
        let mut link = |from: u16, peer: Peer, latency: u32| {
            let targets: Vec<u16> = match peer {
                Peer::Endpoint(e) => vec![self.endpoint_part[e as usize]],
                Peer::Switch { switch, .. } if self.split[switch as usize] => {
                    self.port_part[switch as usize].clone()
                }
                Peer::Switch { switch, .. } => vec![self.owner(switch)],
            };
            for to in targets {
                if to != from {
                    plan[from as usize].insert((to, latency));
                }
            }
        };
        for (sid, sw) in topo.switches.iter().enumerate() {
            for (p, port) in sw.ports.iter().enumerate() {
                link(self.port_part[sid][p], port.peer, port.link.latency_slots);
            }
        }
        for (e, ep) in topo.endpoints.iter().enumerate() {
            link(
                self.endpoint_part[e],
                Peer::Switch {
                    switch: ep.switch,
                    port: ep.port,
                },
                ep.link.latency_slots,
            );
        }
        let mut with_endpoints: Vec<u16> = self.endpoint_part.clone();
        with_endpoints.sort();
        with_endpoints.dedup();
        for &a in &with_endpoints {
            for &b in &with_endpoints {
                if a != b {
                    plan[a as usize].insert((b, ack_delay));
                }
            }
        }
        plan.into_iter().map(|s| s.into_iter().collect()).collect()
    }

    /// The partitions that send to `part` on `exchanges` (as made by
    /// `exchanges`), in index order, each with the smallest delay of its
    /// rings into `part`: everything that sender publishes before its
    /// progress p falls due at p + that delay or later, so `part` may run
    /// that far ahead of it, and needs to look at no other partition.
    pub fn senders(exchanges: &[Vec<(u16, u32)>], part: usize) -> Vec<(u16, u64)> {
        exchanges
            .iter()
            .enumerate()
            .filter_map(|(from, rings)| {
                rings
                    .iter()
                    .filter(|&&(to, _)| to as usize == part)
                    .map(|&(_, delay)| delay as u64)
                    .min()
                    .map(|delay| (from as u16, delay))
            })
            .collect()
    }

    /// The partition of an endpoint-facing or unsplit switch's router.
    pub(super) fn owner(&self, switch: u32) -> u16 {
        debug_assert!(!self.split[switch as usize]);
        self.switch_local[switch as usize]
            .iter()
            .position(|&l| l != NO_ROUTER)
            .expect("an unsplit switch has a router") as u16
    }
}
