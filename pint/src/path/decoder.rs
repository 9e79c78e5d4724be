//! The sink's recording and inference for path tracing.
//!
//! Per hop the decoder keeps the set of switch ids still consistent with every
//! packet seen so far. A packet whose acting hops are all known but one narrows that
//! hop's set (the XOR of the known hops' digests is peeled off first); a packet with
//! a few unknown hops whose candidate sets are small narrows them jointly by
//! enumerating the combinations. A hop is decoded when one candidate is left.
//!
//! The true switch id of a hop is never removed (digests are deterministic), so as
//! long as the path stayed the same and every switch id is in the universe, a hop
//! decoded this way is the true one: the decoder cannot output a wrong path. When
//! that assumption breaks (the flow moved, a switch is unknown), some set empties or
//! a fully known packet disagrees; the decoder reports `Inconsistent` and the owner
//! resets it.

use std::sync::Arc;

use crate::error::{ConfigError, invalid};
use crate::hash::{packet_key, value_digest, value_key};
use crate::path::scheme::{Action, MAX_HOPS, PathScheme};

/// Every switch id a hop may have (the topology's switches), with their value keys,
/// and optionally the topology's links: consecutive hops of a path are neighbours,
/// which the sink uses to narrow a hop from its decoded neighbour hops.
#[derive(Debug, Clone)]
pub struct Universe {
    values: Vec<u32>,
    all: Vec<u32>,
    keys: Vec<Vec<u64>>,
    /// Per universe index, the sorted indices of its neighbours (None: links unknown).
    neighbours: Option<Vec<Vec<u32>>>,
}

impl Universe {
    pub fn new(scheme: &PathScheme, mut values: Vec<u32>) -> Result<Self, ConfigError> {
        values.sort_unstable();
        values.dedup();
        if values.is_empty() {
            return Err(invalid("switch id universe is empty"));
        }
        if values.len() > u32::MAX as usize {
            return Err(invalid("switch id universe too large"));
        }
        let keys = scheme
            .instances
            .iter()
            .map(|i| values.iter().map(|&v| value_key(i.seed, v)).collect())
            .collect();
        let all = (0..values.len() as u32).collect();
        Ok(Universe { values, all, keys, neighbours: None })
    }

    /// As `new`, plus the topology's links (undirected, between switch ids of the
    /// universe). A path must then follow links: a decoded hop restricts the hops
    /// beside it to its neighbours. A link to an id outside the universe is an error.
    pub fn with_links(
        scheme: &PathScheme,
        values: Vec<u32>,
        links: &[(u32, u32)],
    ) -> Result<Self, ConfigError> {
        let mut u = Universe::new(scheme, values)?;
        let mut adj = vec![Vec::new(); u.values.len()];
        for &(a, b) in links {
            let (Ok(i), Ok(j)) = (u.values.binary_search(&a), u.values.binary_search(&b)) else {
                return Err(invalid(format!("link {a}-{b} names a switch outside the universe")));
            };
            if i == j {
                return Err(invalid(format!("link {a}-{b} is a self-loop")));
            }
            adj[i].push(j as u32);
            adj[j].push(i as u32);
        }
        for n in &mut adj {
            n.sort_unstable();
            n.dedup();
        }
        u.neighbours = Some(adj);
        Ok(u)
    }

    /// True if the links of the topology are known.
    pub fn has_links(&self) -> bool {
        self.neighbours.is_some()
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    pub fn contains(&self, v: u32) -> bool {
        self.values.binary_search(&v).is_ok()
    }
}

/// Where a flow's trace stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceStatus {
    Decoding,
    Decoded,
    /// Packets contradict each other under the assumption of one fixed path over
    /// the universe: the path changed or a switch id is unknown. Reset and retrace.
    Inconsistent,
}

/// Bounds on the decoder's work and memory per flow.
#[derive(Debug, Clone, Copy)]
pub struct DecoderLimits {
    /// Observations with several unknown hops kept for later; beyond it new ones are
    /// dropped (and counted), which only slows decoding down.
    pub max_pending: usize,
    /// Largest number of joint combinations enumerated for one packet.
    pub enumeration_limit: u64,
    /// None: a hop is decoded as soon as one candidate is left, which is exact when
    /// every switch id is in the universe and the path stays fixed while decoding.
    /// Some(s): a hop is decoded only once packets in which it was the only unknown
    /// hop carried log2(universe) + s bits about it (joint inference narrows, but
    /// only such packets count as evidence, each once), so if that precondition is broken (an unknown switch, a path
    /// change mid-trace) a wrong hop is decoded with probability about 2^-s.
    pub confirm_bits: Option<f64>,
}

impl Default for DecoderLimits {
    fn default() -> Self {
        DecoderLimits { max_pending: 2048, enumeration_limit: 20_000, confirm_bits: None }
    }
}

#[derive(Debug, Clone, Copy)]
struct Observation {
    pkey: u64,
    instance: u8,
    residual: u64,
    unknown: u64,
    evaluated_at: u64,
}

/// Path-tracing inference for one flow whose packets cross `hops` PINT switches.
#[derive(Debug, Clone)]
pub struct PathDecoder {
    scheme: Arc<PathScheme>,
    universe: Arc<Universe>,
    limits: DecoderLimits,
    hops: u32,
    /// None: no packet has constrained the hop yet (the whole universe).
    candidates: Vec<Option<Vec<u32>>>,
    decided: Vec<u32>,
    undecided: u64,
    changed_at: Vec<u64>,
    clock: u64,
    pending: Vec<Observation>,
    packets: u64,
    dropped: u64,
    conflicts: u64,
    status: TraceStatus,
    scratch: Vec<Vec<u64>>,
    support: Vec<Vec<bool>>,
    next_joint_attempt: f64,
    evidence: Vec<f64>,
    stamps: Vec<u32>,
    hits: Vec<u32>,
    epoch: u32,
    decided_keys: Vec<Vec<u64>>,
    /// Hops whose candidate list changed since the link rule last ran on them.
    link_dirty: u64,
}

impl PathDecoder {
    pub fn new(
        scheme: Arc<PathScheme>,
        universe: Arc<Universe>,
        hops: u32,
        limits: DecoderLimits,
    ) -> Result<Self, ConfigError> {
        if hops == 0 || hops > MAX_HOPS {
            return Err(invalid(format!("path length {hops} not in 1..={MAX_HOPS}")));
        }
        let undecided = if hops == 64 { u64::MAX } else { (1u64 << hops) - 1 };
        Ok(PathDecoder {
            scheme,
            universe,
            limits,
            hops,
            candidates: vec![None; hops as usize],
            decided: vec![u32::MAX; hops as usize],
            undecided,
            changed_at: vec![0; hops as usize],
            clock: 1,
            pending: Vec::new(),
            packets: 0,
            dropped: 0,
            conflicts: 0,
            status: TraceStatus::Decoding,
            scratch: Vec::new(),
            support: Vec::new(),
            next_joint_attempt: 0.0,
            evidence: vec![0.0; hops as usize],
            stamps: Vec::new(),
            hits: Vec::new(),
            epoch: 0,
            decided_keys: Vec::new(),
            link_dirty: 0,
        })
    }

    /// Forget everything (the path changed); keeps the allocation.
    pub fn reset(&mut self) {
        let hops = self.hops;
        self.candidates.iter_mut().for_each(|c| *c = None);
        self.decided.iter_mut().for_each(|d| *d = u32::MAX);
        self.undecided = if hops == 64 { u64::MAX } else { (1u64 << hops) - 1 };
        self.changed_at.iter_mut().for_each(|c| *c = 0);
        self.clock = 1;
        self.pending.clear();
        self.packets = 0;
        self.next_joint_attempt = 0.0;
        self.evidence.iter_mut().for_each(|e| *e = 0.0);
        self.link_dirty = 0;
        self.status = TraceStatus::Decoding;
    }

    pub fn hops(&self) -> u32 {
        self.hops
    }
    pub fn status(&self) -> TraceStatus {
        self.status
    }
    /// Packets observed since the last reset.
    pub fn packets(&self) -> u64 {
        self.packets
    }
    /// Observations dropped because `max_pending` was reached.
    pub fn dropped_observations(&self) -> u64 {
        self.dropped
    }
    /// Contradictions seen (each one turned the status to Inconsistent).
    pub fn conflicts(&self) -> u64 {
        self.conflicts
    }
    pub fn decoded_hops(&self) -> u32 {
        self.hops - self.undecided.count_ones()
    }

    /// The switch id of every hop, once all are decoded.
    pub fn path(&self) -> Option<Vec<u32>> {
        (self.status == TraceStatus::Decoded)
            .then(|| self.decided.iter().map(|&i| self.universe.values[i as usize]).collect())
    }

    /// Switch id of one decoded hop (1-based).
    pub fn hop_value(&self, hop: u32) -> Option<u32> {
        let i = *self.decided.get(hop.checked_sub(1)? as usize)?;
        (i != u32::MAX).then(|| self.universe.values[i as usize])
    }

    /// Record one packet's digest field (all instances packed as the encoder left them).
    pub fn observe(&mut self, packet_id: u64, digest: u64) -> TraceStatus {
        if self.status == TraceStatus::Inconsistent {
            return self.status;
        }
        self.packets += 1;
        if self.status == TraceStatus::Decoded {
            return self.check_decoded(packet_id, digest);
        }
        let q = self.scheme.bits_per_instance;
        let field = self.scheme.field_mask();
        for i in 0..self.scheme.instances.len() {
            let mask = match self.scheme.action(i, packet_id, self.hops) {
                Action::Wrote(h) => 1u64 << (h - 1),
                Action::Xored(m) => m,
            };
            let mut obs = Observation {
                pkey: packet_key(self.scheme.instances[i].seed, packet_id),
                instance: i as u8,
                residual: (digest >> (i as u32 * q)) & field,
                unknown: mask,
                evaluated_at: 0,
            };
            let before = self.clock;
            if self.evaluate(&mut obs) {
                if self.pending.len() < self.limits.max_pending {
                    self.pending.push(obs);
                } else {
                    self.dropped += 1;
                }
            }
            if self.status == TraceStatus::Inconsistent {
                return self.status;
            }
            if self.clock != before {
                self.propagate();
            }
        }
        if self.undecided != 0 && self.status == TraceStatus::Decoding {
            self.solve_jointly();
        }
        self.apply_links();
        if self.undecided == 0 && self.status == TraceStatus::Decoding {
            self.status = TraceStatus::Decoded;
            self.pending.clear();
            self.decided_keys = self
                .universe
                .keys
                .iter()
                .map(|k| self.decided.iter().map(|&d| k[d as usize]).collect())
                .collect();
        }
        self.status
    }

    /// Steady state: the path is known, so a digest only has to match it. The value
    /// keys of the decoded hops are cached, so this is a few hashes per digest.
    fn check_decoded(&mut self, packet_id: u64, digest: u64) -> TraceStatus {
        let q = self.scheme.bits_per_instance;
        let field = self.scheme.field_mask();
        for i in 0..self.scheme.instances.len() {
            let pkey = packet_key(self.scheme.instances[i].seed, packet_id);
            let mut mask = match self.scheme.action_for_key(i, pkey, self.hops) {
                Action::Wrote(h) => 1u64 << (h - 1),
                Action::Xored(m) => m,
            };
            let keys = &self.decided_keys[i];
            let mut expect = 0u64;
            while mask != 0 {
                expect ^= value_digest(pkey, keys[mask.trailing_zeros() as usize], q);
                mask &= mask - 1;
            }
            if expect != (digest >> (i as u32 * q)) & field {
                self.conflict();
                return self.status;
            }
        }
        self.status
    }

    /// Re-evaluate pending observations until nothing changes.
    fn propagate(&mut self) {
        loop {
            let start = self.clock;
            let mut i = 0;
            while i < self.pending.len() {
                let mut o = self.pending[i];
                if !self.stale(&o) {
                    i += 1;
                    continue;
                }
                if self.evaluate(&mut o) {
                    self.pending[i] = o;
                    i += 1;
                } else {
                    self.pending.swap_remove(i);
                }
                if self.status == TraceStatus::Inconsistent {
                    return;
                }
            }
            if self.clock == start {
                return;
            }
        }
    }

    fn stale(&self, o: &Observation) -> bool {
        let mut m = o.unknown;
        while m != 0 {
            let h = m.trailing_zeros() as usize;
            if self.changed_at[h] > o.evaluated_at {
                return true;
            }
            m &= m - 1;
        }
        false
    }

    /// Apply one observation; true if it still constrains undecided hops jointly
    /// and should be kept.
    fn evaluate(&mut self, o: &mut Observation) -> bool {
        let q = self.scheme.bits_per_instance;
        let keys = &self.universe.keys[o.instance as usize];
        let mut known = o.unknown & !self.undecided;
        while known != 0 {
            let h = known.trailing_zeros() as usize;
            o.residual ^= value_digest(o.pkey, keys[self.decided[h] as usize], q);
            known &= known - 1;
        }
        o.unknown &= self.undecided;
        o.evaluated_at = self.clock;
        match o.unknown.count_ones() {
            0 => {
                if o.residual != 0 {
                    self.conflict();
                }
                false
            }
            1 => {
                let h = o.unknown.trailing_zeros() as usize;
                let (pkey, residual) = (o.pkey, o.residual);
                let keys = &self.universe.keys[o.instance as usize];
                let kept: Vec<u32> = match &self.candidates[h] {
                    None => self
                        .universe
                        .all
                        .iter()
                        .copied()
                        .filter(|&c| value_digest(pkey, keys[c as usize], q) == residual)
                        .collect(),
                    Some(c) => c
                        .iter()
                        .copied()
                        .filter(|&c| value_digest(pkey, keys[c as usize], q) == residual)
                        .collect(),
                };
                self.evidence[h] += f64::from(q);
                self.restrict(h, kept);
                false
            }
            _ => {
                self.enumerate(o);
                o.evaluated_at = self.clock;
                true
            }
        }
    }

    /// Joint narrowing of a few unknown hops when their combinations are few: the
    /// hops other than the largest list are enumerated, and the digest the largest
    /// one would need is looked up in a table of its digests (q <= 12 bits), so the
    /// cost is the product of the smaller lists plus the largest list's length.
    fn enumerate(&mut self, o: &Observation) {
        let n = self.universe.len() as u64;
        let q = self.scheme.bits_per_instance;
        let mut hops: Vec<usize> = bits(o.unknown).collect();
        let size = |h: usize| self.candidates[h].as_ref().map_or(n, |c| c.len() as u64);
        hops.sort_by_key(|&h| size(h));
        let table = q <= 12;
        let rest: u64 = if table {
            hops[..hops.len() - 1].iter().fold(1u64, |p, &h| p.saturating_mul(size(h)))
        } else {
            hops.iter().fold(1u64, |p, &h| p.saturating_mul(size(h)))
        };
        // A wrong candidate of the largest list survives with probability about
        // 1 - exp(-rest / 2^q): past 2^q combinations of the others, little is ruled out.
        let useful = if table { rest <= 1u64 << q } else { true };
        if rest > self.enumeration_limit() || !useful {
            return;
        }
        let keys = &self.universe.keys[o.instance as usize];
        self.scratch.resize_with(hops.len(), Vec::new);
        self.support.resize_with(hops.len(), Vec::new);
        for (l, &h) in hops.iter().enumerate() {
            let list = self.candidates[h].as_deref().unwrap_or(&self.universe.all);
            self.scratch[l].clear();
            self.scratch[l].extend(list.iter().map(|&c| value_digest(o.pkey, keys[c as usize], q)));
            self.support[l].clear();
            self.support[l].resize(list.len(), false);
        }
        let mut choice = vec![0usize; hops.len()];
        if table {
            let last = hops.len() - 1;
            if self.stamps.len() < (1usize << q) {
                self.stamps = vec![0; 1usize << q];
                self.hits = vec![0; 1usize << q];
                self.epoch = 0;
            }
            self.epoch = self.epoch.wrapping_add(1);
            if self.epoch == 0 {
                self.stamps.iter_mut().for_each(|s| *s = 0);
                self.hits.iter_mut().for_each(|s| *s = 0);
                self.epoch = 1;
            }
            for &d in &self.scratch[last] {
                self.stamps[d as usize] = self.epoch;
            }
            let mut lookup = TableLookup {
                digests: &self.scratch,
                support: &mut self.support,
                choice: &mut choice,
                stamps: &self.stamps,
                hits: &mut self.hits,
                epoch: self.epoch,
                target: o.residual,
            };
            lookup.run(0, 0);
            let epoch = self.epoch;
            for (c, &d) in self.scratch[last].iter().enumerate() {
                self.support[last][c] = self.hits[d as usize] == epoch;
            }
        } else {
            search(&self.scratch, &mut self.support, &mut choice, 0, 0, o.residual);
        }
        for (l, &h) in hops.iter().enumerate() {
            if self.support[l].iter().all(|&s| s) {
                self.maybe_decide(h);
                continue;
            }
            let list = self.candidates[h].as_deref().unwrap_or(&self.universe.all);
            let kept: Vec<u32> =
                list.iter().zip(&self.support[l]).filter(|(_, s)| **s).map(|(&c, _)| c).collect();
            self.restrict(h, kept);
            if self.status == TraceStatus::Inconsistent {
                return;
            }
        }
    }

    /// Global inference: once every undecided hop has a short candidate list and the
    /// kept packets carry enough bits to pin them all, search the combinations of all
    /// undecided hops against all kept packets. The true path always satisfies them,
    /// so a unique solution is the true path. The search is bounded; if it runs out
    /// of budget it tries again on a later packet.
    fn solve_jointly(&mut self) {
        let q = f64::from(self.scheme.bits_per_instance);
        let mut entropy = 0.0;
        let hops: Vec<usize> = bits(self.undecided).collect();
        for &h in &hops {
            match &self.candidates[h] {
                None => return,
                Some(c) => entropy += (c.len() as f64).log2(),
            }
        }
        // Enough bits for a unique answer, and new ones since the last attempt
        // (about one byte's worth), so failed searches are not repeated every packet.
        let bits_kept = q * self.pending.len() as f64;
        if entropy + 1.0 > bits_kept || bits_kept < self.next_joint_attempt {
            return;
        }
        self.next_joint_attempt = bits_kept + 8.0;
        // Peel decided hops out of every kept packet first.
        let mut i = 0;
        while i < self.pending.len() {
            let mut o = self.pending[i];
            if self.evaluate(&mut o) {
                self.pending[i] = o;
                i += 1;
            } else {
                self.pending.swap_remove(i);
            }
            if self.status != TraceStatus::Decoding {
                return;
            }
        }
        let qb = self.scheme.bits_per_instance;
        // Search order: smallest candidate lists first.
        let mut order = hops.clone();
        order.sort_by_key(|&h| self.candidates[h].as_ref().map_or(usize::MAX, Vec::len));
        let mut level_of = [usize::MAX; MAX_HOPS as usize];
        for (l, &h) in order.iter().enumerate() {
            level_of[h] = l;
        }
        let lists: Vec<&[u32]> =
            order.iter().map(|&h| self.candidates[h].as_deref().unwrap_or(&[])).collect();
        // Each kept packet becomes a constraint checked at the level of its last hop;
        // digests[level][cand] XORed into every constraint that involves the hop.
        let mut constraints: Vec<(u64, usize)> = Vec::new(); // (residual, check level)
        let mut terms: Vec<Vec<(usize, Vec<u64>)>> = vec![Vec::new(); order.len()];
        for o in &self.pending {
            let keys = &self.universe.keys[o.instance as usize];
            let mut last = 0;
            for h in bits(o.unknown) {
                last = last.max(level_of[h]);
            }
            let c = constraints.len();
            constraints.push((o.residual, last));
            for h in bits(o.unknown) {
                let l = level_of[h];
                terms[l].push((c, lists[l].iter().map(|&v| value_digest(o.pkey, keys[v as usize], qb)).collect()));
            }
        }
        let mut checks: Vec<Vec<usize>> = vec![Vec::new(); order.len()];
        for (c, &(_, l)) in constraints.iter().enumerate() {
            checks[l].push(c);
        }
        let mut search = JointSearch {
            lists: &lists,
            terms: &terms,
            checks: &checks,
            residuals: constraints.iter().map(|c| c.0).collect(),
            acc: vec![0; constraints.len()],
            choice: vec![0; order.len()],
            solution: None,
            solutions: 0,
            budget: 50_000,
        };
        search.run(0);
        if search.solutions == 1 && search.budget > 0 {
            let sol = search.solution.take().expect("one solution");
            let chosen: Vec<u32> = sol.iter().enumerate().map(|(l, &c)| lists[l][c]).collect();
            drop(search);
            for (l, &h) in order.iter().enumerate() {
                self.candidates[h] = Some(vec![chosen[l]]);
                self.clock += 1;
                self.changed_at[h] = self.clock;
                self.link_dirty |= 1u64 << h;
                self.maybe_decide(h);
            }
        } else if search.solutions == 0 && search.budget > 0 {
            self.conflict();
        }
    }

    /// A q-bit packet removes a 1 - 2^-q share of the combinations it enumerates;
    /// with fewer bits enumeration pays less, so its budget shrinks with q.
    fn enumeration_limit(&self) -> u64 {
        let shift = 8i32 - self.scheme.bits_per_instance as i32;
        let l = if shift > 0 {
            self.limits.enumeration_limit >> shift
        } else {
            self.limits.enumeration_limit
        };
        l.max(256)
    }

    fn restrict(&mut self, h: usize, kept: Vec<u32>) {
        let current = self.candidates[h].as_ref().map_or(self.universe.len(), Vec::len);
        if kept.is_empty() {
            self.conflict();
            return;
        }
        if kept.len() >= current {
            self.maybe_decide(h);
            return;
        }
        self.clock += 1;
        self.changed_at[h] = self.clock;
        self.candidates[h] = Some(kept);
        self.link_dirty |= 1u64 << h;
        self.maybe_decide(h);
    }

    /// Link rule (arc consistency between consecutive hops): a candidate of hop h
    /// stays only if some candidate of hop h-1 and of hop h+1 is its neighbour. It
    /// runs between packets, not inside an enumeration (lists must not change under
    /// it), until nothing changes; packets waiting on a narrowed hop are re-evaluated.
    fn apply_links(&mut self) {
        if self.link_dirty == 0 || self.universe.neighbours.is_none() {
            return;
        }
        let universe = self.universe.clone();
        let Some(adj) = universe.neighbours.as_ref() else { return };
        // Past this many candidates a neighbour union is not worth building.
        const LIMIT: usize = 256;
        let last = self.hops as usize - 1;
        while self.link_dirty != 0 && self.status == TraceStatus::Decoding {
            let h = self.link_dirty.trailing_zeros() as usize;
            self.link_dirty &= self.link_dirty - 1;
            let Some(src) = self.candidates[h].as_ref() else { continue };
            if src.len() > LIMIT {
                continue;
            }
            let mut reach: Vec<u32> = src.iter().flat_map(|&c| adj[c as usize].iter().copied()).collect();
            reach.sort_unstable();
            reach.dedup();
            for n in [h.wrapping_sub(1), h + 1] {
                if n > last {
                    continue;
                }
                let kept: Vec<u32> = match &self.candidates[n] {
                    None => reach.clone(),
                    Some(c) => c.iter().copied().filter(|x| reach.binary_search(x).is_ok()).collect(),
                };
                self.restrict(n, kept);
                if self.status != TraceStatus::Decoding {
                    return;
                }
            }
            if self.link_dirty == 0 {
                self.propagate();
                if self.undecided != 0 && self.status == TraceStatus::Decoding {
                    self.solve_jointly();
                }
            }
        }
    }

    /// Decode a hop left with one candidate once the evidence rule allows it.
    fn maybe_decide(&mut self, h: usize) {
        if self.undecided & (1u64 << h) == 0 {
            return;
        }
        let Some(c) = &self.candidates[h] else { return };
        if c.len() != 1 {
            return;
        }
        if let Some(s) = self.limits.confirm_bits {
            if self.evidence[h] < (self.universe.len() as f64).log2() + s {
                return;
            }
        }
        self.decided[h] = c[0];
        self.undecided &= !(1u64 << h);
        self.clock += 1;
        self.changed_at[h] = self.clock;
    }

    fn conflict(&mut self) {
        self.conflicts += 1;
        self.status = TraceStatus::Inconsistent;
    }
}

/// Enumeration of all levels but the last, which is matched through a digest table.
struct TableLookup<'a> {
    digests: &'a [Vec<u64>],
    support: &'a mut [Vec<bool>],
    choice: &'a mut [usize],
    stamps: &'a [u32],
    hits: &'a mut [u32],
    epoch: u32,
    target: u64,
}

impl TableLookup<'_> {
    fn run(&mut self, level: usize, acc: u64) {
        let last = self.digests.len() - 1;
        if level == last {
            let need = (acc ^ self.target) as usize;
            if self.stamps[need] == self.epoch {
                self.hits[need] = self.epoch;
                for (l, &c) in self.choice[..last].iter().enumerate() {
                    self.support[l][c] = true;
                }
            }
            return;
        }
        for c in 0..self.digests[level].len() {
            self.choice[level] = c;
            let d = self.digests[level][c];
            self.run(level + 1, acc ^ d);
        }
    }
}

/// Exhaustive, budgeted search for assignments of all undecided hops that satisfy
/// every kept packet; stops at the second solution.
struct JointSearch<'a> {
    lists: &'a [&'a [u32]],
    terms: &'a [Vec<(usize, Vec<u64>)>],
    checks: &'a [Vec<usize>],
    residuals: Vec<u64>,
    acc: Vec<u64>,
    choice: Vec<usize>,
    solution: Option<Vec<usize>>,
    solutions: u32,
    budget: u64,
}

impl JointSearch<'_> {
    fn run(&mut self, level: usize) {
        if level == self.lists.len() {
            self.solutions += 1;
            self.solution = Some(self.choice.clone());
            return;
        }
        for c in 0..self.lists[level].len() {
            if self.budget == 0 || self.solutions > 1 {
                return;
            }
            self.budget -= 1;
            for (k, d) in &self.terms[level] {
                self.acc[*k] ^= d[c];
            }
            if self.checks[level].iter().all(|&k| self.acc[k] == self.residuals[k]) {
                self.choice[level] = c;
                self.run(level + 1);
            }
            for (k, d) in &self.terms[level] {
                self.acc[*k] ^= d[c];
            }
        }
    }
}

/// Depth-first search over candidate digests; marks every candidate that takes part
/// in a combination whose XOR equals the residual.
fn search(
    digests: &[Vec<u64>],
    support: &mut [Vec<bool>],
    choice: &mut [usize],
    level: usize,
    acc: u64,
    target: u64,
) -> bool {
    if level + 1 == digests.len() {
        let need = acc ^ target;
        let mut any = false;
        for (c, &d) in digests[level].iter().enumerate() {
            if d == need {
                support[level][c] = true;
                any = true;
            }
        }
        if any {
            for (l, &c) in choice[..level].iter().enumerate() {
                support[l][c] = true;
            }
        }
        return any;
    }
    let mut any = false;
    for c in 0..digests[level].len() {
        choice[level] = c;
        any |= search(digests, support, choice, level + 1, acc ^ digests[level][c], target);
    }
    any
}

fn bits(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let h = m.trailing_zeros() as usize;
            m &= m - 1;
            h
        })
    })
}
