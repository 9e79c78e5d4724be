//! Topologies: racks behind one aggregation switch, k-ary fat trees, and custom
//! topologies read from JSON. Every endpoint hangs off exactly one switch port.

use std::collections::{HashMap, VecDeque};

use serde::Deserialize;

use crate::packet::{EndpointId, PortId};

/// Rate, buffer and propagation latency of a link, applied to both of its ends.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkParams {
    pub gbps: f64,
    /// Output buffer of each switch port on this link, in packets.
    pub buffer_pkts: u32,
    /// Propagation latency in timeslots (>= 1).
    pub latency_slots: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peer {
    Endpoint(EndpointId),
    Switch { switch: u32, port: PortId },
}

#[derive(Clone, Debug)]
pub struct SwitchPort {
    pub peer: Peer,
    pub link: LinkParams,
}

#[derive(Clone, Debug)]
pub struct Switch {
    pub name: String,
    /// Rack or pod: switches of one group are placed on the same worker thread.
    pub group: u32,
    pub ports: Vec<SwitchPort>,
}

#[derive(Clone, Debug)]
pub struct Endpoint {
    pub name: String,
    pub switch: u32,
    pub port: PortId,
    pub link: LinkParams,
}

#[derive(Clone, Debug, Default)]
pub struct Topology {
    pub endpoints: Vec<Endpoint>,
    pub switches: Vec<Switch>,
}

#[derive(Debug, thiserror::Error)]
pub enum TopologyError {
    #[error("topology: {0}")]
    Invalid(String),
    #[error("topology file: {0}")]
    Json(#[from] serde_json::Error),
}

fn invalid<T>(msg: impl Into<String>) -> Result<T, TopologyError> {
    Err(TopologyError::Invalid(msg.into()))
}

impl Topology {
    fn add_switch(&mut self, name: String, group: u32) -> u32 {
        self.switches.push(Switch {
            name,
            group,
            ports: Vec::new(),
        });
        (self.switches.len() - 1) as u32
    }
    fn attach_endpoint(&mut self, name: String, switch: u32, link: LinkParams) {
        let id = self.endpoints.len() as EndpointId;
        let sw = &mut self.switches[switch as usize];
        let port = sw.ports.len() as PortId;
        sw.ports.push(SwitchPort {
            peer: Peer::Endpoint(id),
            link,
        });
        self.endpoints.push(Endpoint {
            name,
            switch,
            port,
            link,
        });
    }
    fn connect_switches(&mut self, a: u32, b: u32, link: LinkParams) {
        let pa = self.switches[a as usize].ports.len() as PortId;
        let pb = self.switches[b as usize].ports.len() as PortId;
        self.switches[a as usize].ports.push(SwitchPort {
            peer: Peer::Switch {
                switch: b,
                port: pb,
            },
            link,
        });
        self.switches[b as usize].ports.push(SwitchPort {
            peer: Peer::Switch {
                switch: a,
                port: pa,
            },
            link,
        });
    }

    /// `racks` racks of `hosts` endpoints, each rack behind a ToR; with more than
    /// one rack the ToRs join one aggregation switch (Flexplane's topology).
    pub fn racks(
        racks: u32,
        hosts: u32,
        host: LinkParams,
        uplink: LinkParams,
    ) -> Result<Self, TopologyError> {
        if racks == 0 || hosts == 0 {
            return invalid("racks and hosts_per_rack must be >= 1");
        }
        let mut t = Topology::default();
        for r in 0..racks {
            let tor = t.add_switch(format!("tor{r}"), r);
            for h in 0..hosts {
                t.attach_endpoint(format!("h{}", r * hosts + h), tor, host);
            }
        }
        if racks > 1 {
            let agg = t.add_switch("agg".into(), 0);
            for r in 0..racks {
                t.connect_switches(r, agg, uplink);
            }
        }
        t.validate()?;
        Ok(t)
    }

    /// k-ary fat tree (Al-Fares et al.): k pods of k/2 edge and k/2 aggregation
    /// switches, (k/2)^2 core switches, k^3/4 hosts.
    pub fn fat_tree(k: u32, link: LinkParams) -> Result<Self, TopologyError> {
        if k < 2 || !k.is_multiple_of(2) || k > 48 {
            return invalid(format!("fat tree k must be even and in 2..=48, got {k}"));
        }
        let h = k / 2;
        let mut t = Topology::default();
        let mut edges = Vec::new();
        let mut aggs = Vec::new();
        for pod in 0..k {
            for e in 0..h {
                edges.push(t.add_switch(format!("edge{pod}_{e}"), pod));
            }
            for a in 0..h {
                aggs.push(t.add_switch(format!("agg{pod}_{a}"), pod));
            }
        }
        let mut cores = Vec::new();
        for c in 0..h * h {
            cores.push(t.add_switch(format!("core{c}"), c % k));
        }
        // Hosts first so that an edge switch's ports 0..k/2 face its hosts.
        for pod in 0..k {
            for e in 0..h {
                let sw = edges[(pod * h + e) as usize];
                for i in 0..h {
                    let id = (pod * h + e) * h + i;
                    t.attach_endpoint(format!("h{id}"), sw, link);
                }
            }
        }
        for pod in 0..k {
            for e in 0..h {
                for a in 0..h {
                    t.connect_switches(
                        edges[(pod * h + e) as usize],
                        aggs[(pod * h + a) as usize],
                        link,
                    );
                }
            }
            for a in 0..h {
                for j in 0..h {
                    t.connect_switches(
                        aggs[(pod * h + a) as usize],
                        cores[(a * h + j) as usize],
                        link,
                    );
                }
            }
        }
        t.validate()?;
        Ok(t)
    }

    /// Custom topology from JSON (see docs/emulator.md); `default` fills link
    /// fields that a link leaves out.
    pub fn from_json(text: &str, default: LinkParams) -> Result<Self, TopologyError> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct SwitchDef {
            name: String,
            #[serde(default)]
            group: Option<u32>,
        }
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct LinkDef {
            a: String,
            b: String,
            gbps: Option<f64>,
            buffer_pkts: Option<u32>,
            latency_slots: Option<u32>,
        }
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Doc {
            switches: Vec<SwitchDef>,
            endpoints: Vec<String>,
            links: Vec<LinkDef>,
        }
        let doc: Doc = serde_json::from_str(text)?;
        if doc.endpoints.len() > EndpointId::MAX as usize {
            return invalid(format!("at most {} endpoints", EndpointId::MAX));
        }
        let mut names: HashMap<&str, Peer> = HashMap::new();
        let mut t = Topology::default();
        for (i, s) in doc.switches.iter().enumerate() {
            let id = t.add_switch(s.name.clone(), s.group.unwrap_or(i as u32));
            if names
                .insert(
                    &s.name,
                    Peer::Switch {
                        switch: id,
                        port: 0,
                    },
                )
                .is_some()
            {
                return invalid(format!("duplicate node name '{}'", s.name));
            }
        }
        for (i, e) in doc.endpoints.iter().enumerate() {
            if names.insert(e, Peer::Endpoint(i as EndpointId)).is_some() {
                return invalid(format!("duplicate node name '{e}'"));
            }
        }
        let mut attached: Vec<Option<(u32, LinkParams)>> = vec![None; doc.endpoints.len()];
        for l in &doc.links {
            let link = LinkParams {
                gbps: l.gbps.unwrap_or(default.gbps),
                buffer_pkts: l.buffer_pkts.unwrap_or(default.buffer_pkts),
                latency_slots: l.latency_slots.unwrap_or(default.latency_slots),
            };
            let a = *names.get(l.a.as_str()).ok_or_else(|| {
                TopologyError::Invalid(format!("link names unknown node '{}'", l.a))
            })?;
            let b = *names.get(l.b.as_str()).ok_or_else(|| {
                TopologyError::Invalid(format!("link names unknown node '{}'", l.b))
            })?;
            match (a, b) {
                (Peer::Switch { switch: x, .. }, Peer::Switch { switch: y, .. }) => {
                    if x == y {
                        return invalid(format!("link from switch '{}' to itself", l.a));
                    }
                    t.connect_switches(x, y, link)
                }
                (Peer::Endpoint(e), Peer::Switch { switch, .. })
                | (Peer::Switch { switch, .. }, Peer::Endpoint(e)) => {
                    if attached[e as usize].is_some() {
                        return invalid(format!(
                            "endpoint '{}' has more than one link",
                            doc.endpoints[e as usize]
                        ));
                    }
                    attached[e as usize] = Some((switch, link));
                }
                (Peer::Endpoint(_), Peer::Endpoint(_)) => {
                    return invalid(format!(
                        "link {} - {} joins two endpoints; endpoints attach to switches",
                        l.a, l.b
                    ));
                }
            }
        }
        for (i, a) in attached.iter().enumerate() {
            let Some((sw, link)) = *a else {
                return invalid(format!("endpoint '{}' has no link", doc.endpoints[i]));
            };
            t.attach_endpoint(doc.endpoints[i].clone(), sw, link);
        }
        t.validate()?;
        Ok(t)
    }

    /// Checks link parameters and that every endpoint can reach every other.
    pub fn validate(&self) -> Result<(), TopologyError> {
        if self.endpoints.len() < 2 {
            return invalid("need at least 2 endpoints");
        }
        if self.endpoints.len() > EndpointId::MAX as usize {
            return invalid(format!("at most {} endpoints", EndpointId::MAX));
        }
        for s in &self.switches {
            if s.ports.len() > PortId::MAX as usize {
                return invalid(format!("switch '{}' has too many ports", s.name));
            }
            for p in &s.ports {
                check_link(&p.link, &s.name)?;
            }
        }
        let d = self.switch_distances();
        for e in &self.endpoints {
            if let Some(other) = self
                .endpoints
                .iter()
                .find(|o| d[o.switch as usize][e.switch as usize] == u32::MAX)
            {
                return invalid(format!(
                    "endpoint '{}' cannot reach '{}'",
                    other.name, e.name
                ));
            }
        }
        Ok(())
    }

    /// `d[t][s]`: switch hops from switch `s` to switch `t` (u32::MAX if unreachable).
    pub fn switch_distances(&self) -> Vec<Vec<u32>> {
        let n = self.switches.len();
        (0..n)
            .map(|target| {
                let mut dist = vec![u32::MAX; n];
                dist[target] = 0;
                let mut q = VecDeque::from([target]);
                while let Some(s) = q.pop_front() {
                    for p in &self.switches[s].ports {
                        if let Peer::Switch { switch, .. } = p.peer
                            && dist[switch as usize] == u32::MAX
                        {
                            dist[switch as usize] = dist[s] + 1;
                            q.push_back(switch as usize);
                        }
                    }
                }
                dist
            })
            .collect()
    }

    /// Next hops at every switch: `tables[switch][dst]` = equal-cost output ports.
    pub fn next_hops(&self) -> Vec<Vec<Vec<PortId>>> {
        let d = self.switch_distances();
        self.switches
            .iter()
            .enumerate()
            .map(|(s, sw)| {
                self.endpoints
                    .iter()
                    .map(|ep| {
                        if ep.switch as usize == s {
                            return vec![ep.port];
                        }
                        let to = &d[ep.switch as usize];
                        let closer = |p: &SwitchPort| match p.peer {
                            Peer::Switch { switch, .. } => {
                                to[switch as usize] != u32::MAX && to[switch as usize] + 1 == to[s]
                            }
                            Peer::Endpoint(_) => false,
                        };
                        sw.ports
                            .iter()
                            .enumerate()
                            .filter(|(_, p)| closer(p))
                            .map(|(i, _)| i as PortId)
                            .collect()
                    })
                    .collect()
            })
            .collect()
    }

    /// Sum of link latencies (slots) on a shortest path from `src` to `dst`,
    /// following the first equal-cost choice.
    pub fn path_latency(&self, src: EndpointId, dst: EndpointId, hops: &[Vec<Vec<PortId>>]) -> u64 {
        let s = &self.endpoints[src as usize];
        let mut lat = s.link.latency_slots as u64;
        let mut sw = s.switch as usize;
        for _ in 0..=self.switches.len() {
            let port = hops[sw][dst as usize][0] as usize;
            let p = &self.switches[sw].ports[port];
            lat += p.link.latency_slots as u64;
            match p.peer {
                Peer::Endpoint(_) => return lat,
                Peer::Switch { switch, .. } => sw = switch as usize,
            }
        }
        lat
    }

    /// Slowest link rate on the first shortest path (for ideal completion times).
    pub fn path_gbps(&self, src: EndpointId, dst: EndpointId, hops: &[Vec<Vec<PortId>>]) -> f64 {
        let s = &self.endpoints[src as usize];
        let mut rate = s.link.gbps;
        let mut sw = s.switch as usize;
        for _ in 0..=self.switches.len() {
            let p = &self.switches[sw].ports[hops[sw][dst as usize][0] as usize];
            rate = rate.min(p.link.gbps);
            match p.peer {
                Peer::Endpoint(_) => return rate,
                Peer::Switch { switch, .. } => sw = switch as usize,
            }
        }
        rate
    }
}

fn check_link(l: &LinkParams, at: &str) -> Result<(), TopologyError> {
    if !(l.gbps.is_finite() && l.gbps > 0.0 && l.gbps <= 10_000.0) {
        return invalid(format!(
            "link at '{at}': gbps must be in (0, 10000], got {}",
            l.gbps
        ));
    }
    if l.buffer_pkts == 0 || l.buffer_pkts > 1_000_000 {
        return invalid(format!(
            "link at '{at}': buffer_pkts must be in 1..=1000000, got {}",
            l.buffer_pkts
        ));
    }
    if l.latency_slots == 0 || l.latency_slots > 100_000 {
        return invalid(format!(
            "link at '{at}': latency_slots must be in 1..=100000, got {}",
            l.latency_slots
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    const L: LinkParams = LinkParams {
        gbps: 10.0,
        buffer_pkts: 64,
        latency_slots: 1,
    };

    #[test]
    fn fat_tree_k4_shape_and_ecmp() {
        let t = Topology::fat_tree(4, L).unwrap();
        assert_eq!(t.endpoints.len(), 16);
        assert_eq!(t.switches.len(), 20);
        assert!(t.switches.iter().all(|s| s.ports.len() == 4));
        let hops = t.next_hops();
        // From an edge switch to a host in another pod: both aggregation uplinks.
        let e0 = t.endpoints[0].switch as usize;
        assert_eq!(hops[e0][15].len(), 2);
        assert_eq!(hops[e0][1], vec![t.endpoints[1].port]);
        // host -> edge -> agg -> core -> agg -> edge -> host: 6 links.
        assert_eq!(t.path_latency(0, 15, &hops), 6);
        assert_eq!(t.path_latency(0, 1, &hops), 2);
    }

    #[test]
    fn racks_join_at_aggregation() {
        let t = Topology::racks(2, 3, L, L).unwrap();
        assert_eq!(t.endpoints.len(), 6);
        assert_eq!(t.switches.len(), 3);
        let hops = t.next_hops();
        assert_eq!(t.path_latency(0, 5, &hops), 4);
        assert!(Topology::racks(0, 3, L, L).is_err());
    }

    #[test]
    fn custom_topology_errors_are_specific() {
        let ok = r#"{"switches":[{"name":"s"}],"endpoints":["a","b"],"links":[{"a":"a","b":"s"},{"a":"s","b":"b","gbps":40}]}"#;
        let t = Topology::from_json(ok, L).unwrap();
        assert_eq!(t.switches[0].ports[1].link.gbps, 40.0);
        let bad =
            r#"{"switches":[{"name":"s"}],"endpoints":["a","b"],"links":[{"a":"a","b":"s"}]}"#;
        let e = Topology::from_json(bad, L).unwrap_err().to_string();
        assert!(e.contains("'b' has no link"), "{e}");
        let unknown =
            r#"{"switches":[{"name":"s"}],"endpoints":["a","b"],"links":[{"a":"a","b":"x"}]}"#;
        assert!(
            Topology::from_json(unknown, L)
                .unwrap_err()
                .to_string()
                .contains("unknown node 'x'")
        );
        let split = r#"{"switches":[{"name":"s"},{"name":"t"}],"endpoints":["a","b"],"links":[{"a":"a","b":"s"},{"a":"b","b":"t"}]}"#;
        assert!(
            Topology::from_json(split, L)
                .unwrap_err()
                .to_string()
                .contains("cannot reach")
        );
        let zero = r#"{"switches":[{"name":"s"}],"endpoints":["a","b"],"links":[{"a":"a","b":"s","buffer_pkts":0},{"a":"s","b":"b"}]}"#;
        assert!(
            Topology::from_json(zero, L)
                .unwrap_err()
                .to_string()
                .contains("buffer_pkts")
        );
    }
}
