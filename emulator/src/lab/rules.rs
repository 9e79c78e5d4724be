//! Per-switch flow-rule tables of the lab fabric (OpenFlow-like): match on
//! ingress port, MACs, IPs and the transport 5-tuple; highest priority wins;
//! actions rewrite the destination MAC (shadow-MAC paths) and pick the output.

use std::fmt;
use std::net::Ipv4Addr;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A 48-bit MAC address, `aa:bb:cc:dd:ee:ff` on the wire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Mac(pub u64);

impl Mac {
    pub fn octets(self) -> [u8; 6] {
        let b = self.0.to_be_bytes();
        [b[2], b[3], b[4], b[5], b[6], b[7]]
    }
}

impl fmt::Display for Mac {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let o = self.octets();
        write!(
            f,
            "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
            o[0], o[1], o[2], o[3], o[4], o[5]
        )
    }
}

impl FromStr for Mac {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let parts: Vec<&str> = s.split(':').collect();
        if parts.len() != 6 {
            return Err(format!("bad MAC address {s:?}"));
        }
        let mut v = 0u64;
        for p in parts {
            if p.len() != 2 {
                return Err(format!("bad MAC address {s:?}"));
            }
            let b = u8::from_str_radix(p, 16).map_err(|_| format!("bad MAC address {s:?}"))?;
            v = (v << 8) | b as u64;
        }
        Ok(Mac(v))
    }
}

impl Serialize for Mac {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Mac {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Match fields; every field given must equal the packet's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RuleMatch {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_port: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eth_src: Option<Mac>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eth_dst: Option<Mac>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ip_src: Option<Ipv4Addr>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ip_dst: Option<Ipv4Addr>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proto: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sport: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dport: Option<u16>,
}

/// The header fields of one packet as a rule sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Headers {
    pub in_port: u16,
    pub eth_src: Mac,
    pub eth_dst: Mac,
    pub ip_src: Ipv4Addr,
    pub ip_dst: Ipv4Addr,
    pub proto: u8,
    pub sport: u16,
    pub dport: u16,
}

fn field_ok<T: PartialEq>(want: Option<T>, have: T) -> bool {
    want.is_none_or(|w| w == have)
}

fn disjoint<T: PartialEq>(a: Option<T>, b: Option<T>) -> bool {
    matches!((a, b), (Some(x), Some(y)) if x != y)
}

impl RuleMatch {
    #[inline]
    pub fn matches(&self, h: &Headers) -> bool {
        field_ok(self.in_port, h.in_port)
            && field_ok(self.eth_src, h.eth_src)
            && field_ok(self.eth_dst, h.eth_dst)
            && field_ok(self.ip_src, h.ip_src)
            && field_ok(self.ip_dst, h.ip_dst)
            && field_ok(self.proto, h.proto)
            && field_ok(self.sport, h.sport)
            && field_ok(self.dport, h.dport)
    }

    /// Two matches overlap unless some field is given by both with different values.
    pub fn overlaps(&self, o: &RuleMatch) -> bool {
        !(disjoint(self.in_port, o.in_port)
            || disjoint(self.eth_src, o.eth_src)
            || disjoint(self.eth_dst, o.eth_dst)
            || disjoint(self.ip_src, o.ip_src)
            || disjoint(self.ip_dst, o.ip_dst)
            || disjoint(self.proto, o.proto)
            || disjoint(self.sport, o.sport)
            || disjoint(self.dport, o.dport))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RuleActions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_eth_dst: Option<Mac>,
    /// Output port, numbered from 1.
    pub output: u16,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    pub priority: u32,
    pub matcher: RuleMatch,
    pub actions: RuleActions,
    pub packets: u64,
    pub bytes: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpKind {
    Add,
    Delete,
}

/// One operation of a `POST /v1/rules` batch, switch already resolved to an index.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleOp {
    pub kind: OpKind,
    pub switch: usize,
    pub priority: u32,
    pub matcher: RuleMatch,
    pub actions: Option<RuleActions>,
}

/// One switch's rules, sorted by descending priority.
#[derive(Clone, Debug, Default)]
pub struct RuleTable {
    rules: Vec<Rule>,
    /// Bumped on every change so cached lookups can tell they are stale.
    pub generation: u32,
}

impl RuleTable {
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Index of the rule in force for these headers.
    #[inline]
    pub fn lookup(&self, h: &Headers) -> Option<usize> {
        self.rules.iter().position(|r| r.matcher.matches(h))
    }

    pub fn rule_mut(&mut self, i: usize) -> &mut Rule {
        &mut self.rules[i]
    }

    /// Add (or replace the actions of) a rule; `ports` is the switch's port count.
    pub fn add(
        &mut self,
        priority: u32,
        matcher: RuleMatch,
        actions: RuleActions,
        ports: u16,
    ) -> Result<(), String> {
        if actions.output == 0 || actions.output > ports {
            return Err(format!(
                "output port {} does not exist (ports 1..={ports})",
                actions.output
            ));
        }
        if let Some(p) = matcher.in_port
            && (p == 0 || p > ports)
        {
            return Err(format!("inPort {p} does not exist (ports 1..={ports})"));
        }
        if let Some(r) = self
            .rules
            .iter_mut()
            .find(|r| r.priority == priority && r.matcher == matcher)
        {
            r.actions = actions;
            self.generation = self.generation.wrapping_add(1);
            return Ok(());
        }
        if self
            .rules
            .iter()
            .any(|r| r.priority == priority && r.matcher.overlaps(&matcher))
        {
            return Err(format!(
                "a rule of priority {priority} with an overlapping match exists"
            ));
        }
        let at = self
            .rules
            .iter()
            .position(|r| r.priority < priority)
            .unwrap_or(self.rules.len());
        self.rules.insert(
            at,
            Rule {
                priority,
                matcher,
                actions,
                packets: 0,
                bytes: 0,
            },
        );
        self.generation = self.generation.wrapping_add(1);
        Ok(())
    }

    pub fn delete(&mut self, priority: u32, matcher: &RuleMatch) -> Result<(), String> {
        let i = self
            .rules
            .iter()
            .position(|r| r.priority == priority && r.matcher == *matcher)
            .ok_or_else(|| format!("no rule of priority {priority} with that match"))?;
        self.rules.remove(i);
        self.generation = self.generation.wrapping_add(1);
        Ok(())
    }
}

/// Apply a batch all-or-nothing: on the first failing op nothing changes.
/// `ports[s]` is switch s's port count. Returns the number of ops applied.
pub fn apply_batch(
    tables: &mut [RuleTable],
    ops: &[RuleOp],
    ports: &[u16],
) -> Result<usize, String> {
    let mut touched: Vec<(usize, RuleTable)> = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        if op.switch >= tables.len() {
            return Err(format!("op {i}: unknown switch"));
        }
        let pos = match touched.iter().position(|(s, _)| *s == op.switch) {
            Some(p) => p,
            None => {
                touched.push((op.switch, tables[op.switch].clone()));
                touched.len() - 1
            }
        };
        let table = &mut touched[pos].1;
        let r = match op.kind {
            OpKind::Add => match op.actions {
                Some(a) => table.add(op.priority, op.matcher, a, ports[op.switch]),
                None => Err("add needs actions".to_string()),
            },
            OpKind::Delete => table.delete(op.priority, &op.matcher),
        };
        r.map_err(|e| format!("op {i}: {e}"))?;
    }
    for (s, t) in touched {
        tables[s] = t;
    }
    Ok(ops.len())
}
