//! The per-switch keys of the INT state, shared by every flow through a switch:
//! (switch, egress port) -> link utilisation and (switch, queue) -> occupancy and
//! congestion; their updates, events and periodic pushes.

use super::flows::{HOT_HOPS, HotHop, QuickHop, QuickOps, SHAPE_CON, SHAPE_LINK, SHAPE_OCC};
use super::{Cause, EventKind, HopSlots, HopValues, IntEvent, IntervalWidths, NO_SLOT, StateConfig, StateCounters, Tracked};
use crate::decode::int::instructions::{Plan, be32, field};
use crate::decode::int::RawStack;
use crate::inband::table::Table;

/// Which per-switch keys a hop with these fields updates, and with what.
#[derive(Clone, Copy)]
struct HopUse {
    /// (switch, egress port): ports and utilisation both carried.
    link: bool,
    /// (switch, queue id) gets the occupancy...
    queue: bool,
    /// ... and the congestion too, when both are carried for the same queue.
    queue_congestion: bool,
    /// (switch, congestion queue id) gets the congestion alone.
    cqueue: bool,
}

impl HopUse {
    #[inline(always)]
    fn of(fields: u16, h: &HopValues) -> HopUse {
        let occ = fields & field::QUEUE_OCCUPANCY != 0;
        let con = fields & field::QUEUE_CONGESTION != 0;
        // Occupancy and congestion of one queue share its entry (and its push time).
        let same = occ && con && h.queue_id == h.congestion_queue_id;
        HopUse {
            link: fields & (field::L1_PORTS | field::TX_UTILIZATION) == field::L1_PORTS | field::TX_UTILIZATION,
            queue: occ,
            queue_congestion: same,
            cqueue: con && !same,
        }
    }
}

/// When a shared key was last pushed, and the earliest time its next periodic push
/// can be due: the short way checks that with one comparison.
#[derive(Clone, Copy, Debug)]
pub(super) struct PushClock {
    pub(super) last_ns: u64,
    /// `last_ns + every`; 0 (always worth the exact check) when `every` is 0.
    next_ns: u64,
}

impl PushClock {
    #[inline(always)]
    fn new(now: u64, every: u64) -> PushClock {
        PushClock { last_ns: now, next_ns: Self::next(now, every) }
    }

    #[inline(always)]
    fn next(last: u64, every: u64) -> u64 {
        if every == 0 { 0 } else { last.saturating_add(every) }
    }

    /// False only when [`PushClock::due`] would be false: `now < last + every`
    /// implies `now - last < every` (or `now < last`, where `due` is false but for
    /// `every` 0).
    #[inline(always)]
    fn may_be_due(&self, now: u64) -> bool {
        now >= self.next_ns
    }

    /// A periodic push is due at `now` (`every` since the last one); if so, it is
    /// recorded.
    #[inline(always)]
    fn due(&mut self, now: u64, every: u64) -> bool {
        let periodic = now.saturating_sub(self.last_ns) >= every;
        if periodic {
            *self = PushClock::new(now, every);
        }
        periodic
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) struct LinkEntry {
    pub(super) util: Tracked,
    pub(super) last_seen_ns: u64,
    pub(super) push: PushClock,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct QueueEntry {
    pub(super) occupancy: Option<Tracked>,
    pub(super) congestion: Option<Tracked>,
    pub(super) last_seen_ns: u64,
    pub(super) push: PushClock,
}

/// The per-switch keys: (switch, egress port) and (switch, queue).
pub(super) struct SwitchTables {
    pub(super) links: Table<(u32, u16), LinkEntry>,
    pub(super) queues: Table<(u32, u8), QueueEntry>,
}

/// The per-switch entries as the short way updates them (see [`SwitchTables::hot`]).
pub(super) struct HotTables<'a> {
    links: &'a mut [LinkEntry],
    queues: &'a mut [QueueEntry],
    widths: IntervalWidths,
    every: u64,
}

impl HotTables<'_> {
    /// The first pass of the short way: writes the value and last-seen time of every
    /// entry in `q` and tells whether that was all (true: every value stayed in its
    /// interval and no push can be due, so [`HotTables::apply_hop`] over the hops would
    /// have done just these writes and emitted nothing). On false the caller runs
    /// `apply_hop` over every hop, which writes the same values again and does the rest
    /// with its events: the writes here change nothing it reads (an entry's interval
    /// start and push times are left alone).
    #[inline(always)]
    pub(super) fn quick(&mut self, q: &QuickOps, now: u64) -> bool {
        if !q.ready || now >= q.push_floor || q.link_bound as usize > self.links.len() || q.queue_bound as usize > self.queues.len() {
            return false;
        }
        let hops = &q.hop[..(q.hops as usize).min(HOT_HOPS)];
        let (l, w) = (&mut *self.links, &self.widths);
        let queues = &mut *self.queues;
        // One loop per shape, with no test per hop of which keys it has.
        let loud = match q.shape {
            s if s == SHAPE_LINK | SHAPE_OCC | SHAPE_CON => quick_hops::<true, true, true>(l, queues, hops, w, now),
            s if s == SHAPE_LINK | SHAPE_OCC => quick_hops::<true, true, false>(l, queues, hops, w, now),
            SHAPE_LINK => quick_hops::<true, false, false>(l, queues, hops, w, now),
            s if s == SHAPE_OCC | SHAPE_CON => quick_hops::<false, true, true>(l, queues, hops, w, now),
            SHAPE_OCC => quick_hops::<false, true, false>(l, queues, hops, w, now),
            0 => false,
            _ => true,
        };
        !loud
    }

    /// The earliest time any entry of `q` can be due a periodic push (for
    /// [`QuickOps::push_floor`]; 0 when `q` is not ready).
    #[inline]
    pub(super) fn push_floor(&self, q: &QuickOps) -> u64 {
        if !q.ready || q.link_bound as usize > self.links.len() || q.queue_bound as usize > self.queues.len() {
            return 0;
        }
        let mut floor = u64::MAX;
        for h in &q.hop[..q.hops as usize] {
            if q.shape & SHAPE_LINK != 0 {
                floor = floor.min(self.links[h.link as usize].push.next_ns);
            }
            if q.shape & SHAPE_OCC != 0 {
                floor = floor.min(self.queues[h.queue as usize].push.next_ns);
            }
        }
        floor
    }

    /// For the short way: a hop whose values, fields and keys are those it had when its
    /// slots were filled (`h`: their indices and values), every key found (complete),
    /// and no table index moved since: the entries are updated at their indices, the
    /// same events emitted as by [`SwitchTables::apply_hop`]. An event's keys are read
    /// from hop `i` of the raw stack, which equals, under the state's mask, the one the
    /// slots were filled from.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn apply_hop(&mut self, h: &HotHop, raw: &RawStack, i: usize, fields: u16, now: u64, ts: u64, out: &mut impl FnMut(IntEvent)) {
        // Each entry is first updated for the common case (the value stays in its
        // interval, no push due), where nothing else changes; otherwise the whole
        // update runs again (the value and last-seen already written are written
        // the same), with its events.
        let w = &self.widths;
        if h.link != NO_SLOT {
            let e = &mut self.links[h.link as usize];
            e.last_seen_ns = now;
            let v = h.tx_utilization as u64;
            e.util.value = v;
            if v.wrapping_sub(e.util.start) >= w.link_utilization || e.push.may_be_due(now) {
                link_due(e, w, self.every, h, raw, i, fields, now, ts, out);
            }
        }
        // A complete hop with occupancy and congestion has a congestion queue entry of
        // its own exactly when the two queue ids differ.
        let con_here = fields & field::QUEUE_CONGESTION != 0 && h.cqueue == NO_SLOT;
        if h.queue != NO_SLOT {
            let e = &mut self.queues[h.queue as usize];
            e.last_seen_ns = now;
            let mut quiet = !e.push.may_be_due(now) && quiet_update(&mut e.occupancy, h.queue_occupancy, w.queue_occupancy);
            if con_here {
                quiet &= quiet_update(&mut e.congestion, h.queue_congestion, w.queue_congestion);
            }
            if !quiet {
                queue_due(e, w, self.every, h, con_here, raw, i, fields, now, ts, out);
            }
        }
        if h.cqueue != NO_SLOT {
            let e = &mut self.queues[h.cqueue as usize];
            e.last_seen_ns = now;
            if e.push.may_be_due(now) || !quiet_update(&mut e.congestion, h.queue_congestion, w.queue_congestion) {
                cqueue_due(e, w, self.every, h, raw, i, fields, now, ts, out);
            }
        }
    }
}

/// The entry updates of [`HotTables::quick`] for hops that all have a link entry
/// (`LINK`), a queue entry (`OCC`) that gets the congestion too (`CON`); true when a
/// value left its interval (or a queue entry has no such value yet). The caller checked
/// that every index is below the bounds of [`QuickOps`] and those within the tables.
#[inline(always)]
fn quick_hops<const LINK: bool, const OCC: bool, const CON: bool>(links: &mut [LinkEntry], queues: &mut [QueueEntry], hops: &[QuickHop], w: &IntervalWidths, now: u64) -> bool {
    let mut loud = false;
    for h in hops {
        if LINK {
            debug_assert!((h.link as usize) < links.len());
            // SAFETY: h.link < QuickOps::link_bound <= links.len() (HotTables::quick).
            let e = unsafe { links.get_unchecked_mut(h.link as usize) };
            e.last_seen_ns = now;
            let v = h.util as u64;
            e.util.value = v;
            loud |= v.wrapping_sub(e.util.start) >= w.link_utilization;
        }
        if OCC {
            debug_assert!((h.queue as usize) < queues.len());
            // SAFETY: h.queue < QuickOps::queue_bound <= queues.len() (HotTables::quick).
            let e = unsafe { queues.get_unchecked_mut(h.queue as usize) };
            e.last_seen_ns = now;
            loud |= !quiet_update(&mut e.occupancy, h.occupancy, w.queue_occupancy);
            if CON {
                loud |= !quiet_update(&mut e.congestion, h.congestion, w.queue_congestion);
            }
        }
    }
    loud
}

/// The link update of [`HotTables::apply_hop`] in full.
#[allow(clippy::too_many_arguments)]
#[cold]
#[inline(never)]
fn link_due(e: &mut LinkEntry, w: &IntervalWidths, every: u64, h: &HotHop, raw: &RawStack, i: usize, fields: u16, now: u64, ts: u64, out: &mut impl FnMut(IntEvent)) {
    e.last_seen_ns = now;
    let crossed = e.util.update(h.tx_utilization as u64, w.link_utilization);
    if let Some(cause) = due(crossed, &mut e.push, now, every) {
        out(IntEvent { ts_ns: ts, cause, kind: link_kind(&raw_hop_values(raw, i, fields)) });
    }
}

/// The queue update of [`HotTables::apply_hop`] in full.
#[allow(clippy::too_many_arguments)]
#[cold]
#[inline(never)]
fn queue_due(e: &mut QueueEntry, w: &IntervalWidths, every: u64, h: &HotHop, con_here: bool, raw: &RawStack, i: usize, fields: u16, now: u64, ts: u64, out: &mut impl FnMut(IntEvent)) {
    let occ = h.queue_occupancy;
    let con = con_here.then_some(h.queue_congestion);
    let (o, c) = queue_causes(w, every, e, Some(occ), con, now);
    if o.is_some() || c.is_some() {
        let v = raw_hop_values(raw, i, fields);
        debug_assert!(con.is_none() || v.queue_id == v.congestion_queue_id);
        let port = (fields & field::L1_PORTS != 0).then_some(v.egress_port);
        if let Some(cause) = o {
            out(IntEvent { ts_ns: ts, cause, kind: EventKind::QueueOccupancy { switch: v.switch_id, queue: v.queue_id, port, occupancy: occ } });
        }
        if let (Some(cause), Some(c)) = (c, con) {
            out(IntEvent { ts_ns: ts, cause, kind: EventKind::QueueCongestion { switch: v.switch_id, queue: v.queue_id, congestion: c } });
        }
    }
}

/// The congestion queue update of [`HotTables::apply_hop`] in full.
#[allow(clippy::too_many_arguments)]
#[cold]
#[inline(never)]
fn cqueue_due(e: &mut QueueEntry, w: &IntervalWidths, every: u64, h: &HotHop, raw: &RawStack, i: usize, fields: u16, now: u64, ts: u64, out: &mut impl FnMut(IntEvent)) {
    let con = h.queue_congestion;
    let (_, c) = queue_causes(w, every, e, None, Some(con), now);
    if let Some(cause) = c {
        let v = raw_hop_values(raw, i, fields);
        out(IntEvent { ts_ns: ts, cause, kind: EventKind::QueueCongestion { switch: v.switch_id, queue: v.congestion_queue_id, congestion: con } });
    }
}

impl SwitchTables {
    /// Changes whenever a cached slot index may point elsewhere.
    pub(super) fn generation(&self) -> u64 {
        self.links.generation() + self.queues.generation()
    }
}

impl SwitchTables {
    /// Per-switch keys of one hop's metadata. `slots`: where this hop's keys were found
    /// for the same flow last time (used when the keys are the same; `NONE` when there
    /// is no such flow), updated here.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn apply_hop(&mut self, cfg: &StateConfig, counters: &mut StateCounters, h: &HopValues, fields: u16, now: u64, ts: u64, out: &mut impl FnMut(IntEvent), slots: &mut HopSlots) {
        // The keys the cached indices were found at.
        let old = slots.values;
        let u = HopUse::of(fields, h);
        let mut complete = true;
        let mut link = NO_SLOT;
        if u.link {
            let key = (h.switch_id, h.egress_port);
            let cached = slots.link != NO_SLOT && (old.switch_id, old.egress_port) == key;
            let found = if cached { Some(slots.link) } else { self.links.find(&key) };
            link = match found {
                Some(i) => {
                    self.update_link(cfg, i, h, now, ts, out);
                    i
                }
                None if self.links.len() >= cfg.max_ports => {
                    counters.ports_refused += 1;
                    NO_SLOT
                }
                None => {
                    let i = self.links.insert(key, LinkEntry { util: Tracked::new(h.tx_utilization as u64, cfg.widths.link_utilization), last_seen_ns: now, push: PushClock::new(now, cfg.push_interval_ns) });
                    out(IntEvent { ts_ns: ts, cause: Cause::NewKey, kind: link_kind(h) });
                    i
                }
            };
            complete = link != NO_SLOT;
        }
        let port = (fields & field::L1_PORTS != 0).then_some(h.egress_port);
        let mut queue = NO_SLOT;
        let mut cqueue = NO_SLOT;
        if u.queue {
            let cached = slots.queue != NO_SLOT && (old.switch_id, old.queue_id) == (h.switch_id, h.queue_id);
            let con = u.queue_congestion.then_some(h.queue_congestion);
            queue = self.apply_queue(cfg, counters, h.switch_id, h.queue_id, port, Some(h.queue_occupancy), con, now, ts, out, cached.then_some(slots.queue));
            complete &= queue != NO_SLOT;
        }
        if u.cqueue {
            let cached = slots.cqueue != NO_SLOT && (old.switch_id, old.congestion_queue_id) == (h.switch_id, h.congestion_queue_id);
            cqueue = self.apply_queue(cfg, counters, h.switch_id, h.congestion_queue_id, port, None, Some(h.queue_congestion), now, ts, out, cached.then_some(slots.cqueue));
            complete &= cqueue != NO_SLOT;
        }
        *slots = HopSlots { link, queue, cqueue, complete, values: *h };
    }

    /// Fills `q` with the entry updates of a flow whose hops' keys are in `slots`
    /// (`fields`: the hop fields of its report; `complete`: every key was found), for the
    /// first pass of the short way; not ready when the hops do not all have the same
    /// keys, have a congestion queue entry of their own, or are more than [`HOT_HOPS`].
    /// As [`HotTables::apply_hop`] uses a hop's slots: the link entry gets the
    /// utilisation, the queue entry the occupancy, and the congestion when the report
    /// carries it (and the hop has no congestion queue entry of its own).
    pub(super) fn fill_quick(&self, q: &mut QuickOps, slots: &[HopSlots], fields: u16, complete: bool) {
        q.ready = false;
        if !complete || slots.is_empty() || slots.len() > HOT_HOPS {
            return;
        }
        let con = fields & field::QUEUE_CONGESTION != 0;
        let shape_of = |s: &HopSlots| {
            let link = if s.link != NO_SLOT { SHAPE_LINK } else { 0 };
            let queue = if s.queue != NO_SLOT { SHAPE_OCC | if con { SHAPE_CON } else { 0 } } else { 0 };
            link | queue
        };
        let shape = shape_of(&slots[0]);
        let (mut floor, mut link_bound, mut queue_bound) = (u64::MAX, 0, 0);
        for (h, s) in q.hop.iter_mut().zip(slots) {
            if s.cqueue != NO_SLOT || shape_of(s) != shape {
                return;
            }
            *h = QuickHop { link: s.link, util: s.values.tx_utilization, queue: s.queue, occupancy: s.values.queue_occupancy, congestion: s.values.queue_congestion };
            if shape & SHAPE_LINK != 0 {
                link_bound = link_bound.max(s.link + 1);
                floor = floor.min(self.links.get(s.link).push.next_ns);
            }
            if shape & SHAPE_OCC != 0 {
                queue_bound = queue_bound.max(s.queue + 1);
                floor = floor.min(self.queues.get(s.queue).push.next_ns);
            }
        }
        q.push_floor = floor;
        q.link_bound = link_bound;
        q.queue_bound = queue_bound;
        q.shape = shape;
        q.hops = slots.len() as u8;
        q.ready = true;
    }

    /// The entries of both tables as slices, for the short way's loop over a report's
    /// hops: their addresses and lengths, the widths and the push interval stay in
    /// registers instead of being read again through `self` for every entry.
    #[inline(always)]
    pub(super) fn hot<'a>(&'a mut self, cfg: &StateConfig) -> HotTables<'a> {
        HotTables { links: self.links.entries_mut(), queues: self.queues.entries_mut(), widths: cfg.widths, every: cfg.push_interval_ns }
    }

    #[inline(always)]
    fn update_link(&mut self, cfg: &StateConfig, i: u32, h: &HopValues, now: u64, ts: u64, out: &mut impl FnMut(IntEvent)) {
        let e = self.links.at(i);
        e.last_seen_ns = now;
        let crossed = e.util.update(h.tx_utilization as u64, cfg.widths.link_utilization);
        if let Some(cause) = due(crossed, &mut e.push, now, cfg.push_interval_ns) {
            out(IntEvent { ts_ns: ts, cause, kind: link_kind(h) });
        }
    }

    /// One queue key; returns its index (`NO_SLOT` when refused). `cached`: its index,
    /// when known.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn apply_queue(&mut self, cfg: &StateConfig, counters: &mut StateCounters, switch: u32, queue: u8, port: Option<u16>, occupancy: Option<u32>, congestion: Option<u32>, now: u64, ts: u64, out: &mut impl FnMut(IntEvent), cached: Option<u32>) -> u32 {
        let w = cfg.widths;
        let key = (switch, queue);
        let found = if cached.is_some() { cached } else { self.queues.find(&key) };
        match found {
            Some(i) => {
                update_queue(cfg, self.queues.at(i), switch, queue, port, occupancy, congestion, now, ts, out);
                i
            }
            None if self.queues.len() >= cfg.max_queues => {
                counters.queues_refused += 1;
                NO_SLOT
            }
            None => {
                let i = self.queues.insert(key, QueueEntry {
                    occupancy: occupancy.map(|v| Tracked::new(v as u64, w.queue_occupancy)),
                    congestion: congestion.map(|v| Tracked::new(v as u64, w.queue_congestion)),
                    last_seen_ns: now,
                    push: PushClock::new(now, cfg.push_interval_ns),
                });
                if let Some(v) = occupancy {
                    out(IntEvent { ts_ns: ts, cause: Cause::NewKey, kind: EventKind::QueueOccupancy { switch, queue, port, occupancy: v } });
                }
                if let Some(v) = congestion {
                    out(IntEvent { ts_ns: ts, cause: Cause::NewKey, kind: EventKind::QueueCongestion { switch, queue, congestion: v } });
                }
                i
            }
        }
    }
}

#[inline(always)]
fn link_kind(h: &HopValues) -> EventKind {
    EventKind::LinkUtilization { switch: h.switch_id, port: h.egress_port, utilization: h.tx_utilization }
}

/// A queue key that exists: its values, last-seen and push times.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn update_queue(cfg: &StateConfig, e: &mut QueueEntry, switch: u32, queue: u8, port: Option<u16>, occupancy: Option<u32>, congestion: Option<u32>, now: u64, ts: u64, out: &mut impl FnMut(IntEvent)) {
    let (o, c) = queue_causes(&cfg.widths, cfg.push_interval_ns, e, occupancy, congestion, now);
    if let (Some(cause), Some(v)) = (o, occupancy) {
        out(IntEvent { ts_ns: ts, cause, kind: EventKind::QueueOccupancy { switch, queue, port, occupancy: v } });
    }
    if let (Some(cause), Some(v)) = (c, congestion) {
        out(IntEvent { ts_ns: ts, cause, kind: EventKind::QueueCongestion { switch, queue, congestion: v } });
    }
}

/// [`update_queue`] without the events: why each of the two values is due one, if it is.
#[inline(always)]
fn queue_causes(w: &IntervalWidths, every: u64, e: &mut QueueEntry, occupancy: Option<u32>, congestion: Option<u32>, now: u64) -> (Option<Cause>, Option<Cause>) {
    e.last_seen_ns = now;
    let periodic = e.push.due(now, every);
    let o = occupancy.and_then(|v| track_optional(&mut e.occupancy, v as u64, w.queue_occupancy, periodic));
    let c = congestion.and_then(|v| track_optional(&mut e.congestion, v as u64, w.queue_congestion, periodic));
    (o, c)
}

/// The value of a tracked value that exists and stays in its interval is written, and
/// true returned; otherwise false (and the value may have been written): the caller
/// runs the whole update.
#[inline(always)]
fn quiet_update(slot: &mut Option<Tracked>, v: u32, width: u64) -> bool {
    match slot {
        Some(t) => {
            t.value = v as u64;
            (v as u64).wrapping_sub(t.start) < width
        }
        None => false,
    }
}

/// What the state reads of hop `i` of a raw stack, as [`HopValues::of`] the decoded hop.
fn raw_hop_values(raw: &RawStack, i: usize, fields: u16) -> HopValues {
    raw_values(&raw.plan, &raw.bytes[i * raw.plan.hop_bytes..], fields)
}

/// What the state reads of a raw hop (`hop`: from its first byte, laid out as `plan`
/// says; fields not in `fields` read as 0), as [`HopValues::of`] the decoded hop.
#[inline]
fn raw_values(plan: &Plan, hop: &[u8], fields: u16) -> HopValues {
    let r32 = |fl: u16| if fields & fl != 0 { be32(&hop[plan.offset(fl)..]) } else { 0 };
    let ports = r32(field::L1_PORTS);
    let queue = r32(field::QUEUE_OCCUPANCY);
    let congestion = r32(field::QUEUE_CONGESTION);
    HopValues {
        switch_id: r32(field::SWITCH_ID),
        egress_port: ports as u16,
        hop_latency: r32(field::HOP_LATENCY),
        tx_utilization: r32(field::TX_UTILIZATION),
        queue_id: (queue >> 24) as u8,
        queue_occupancy: queue & 0x00ff_ffff,
        congestion_queue_id: (congestion >> 24) as u8,
        queue_congestion: congestion & 0x00ff_ffff,
    }
}

/// A value a key may or may not carry yet (a queue's occupancy, its congestion): tracked
/// from its first report on (a new key), then an event when it crosses its interval or
/// the key's periodic push is due.
#[inline(always)]
fn track_optional(slot: &mut Option<Tracked>, v: u64, width: u64, periodic: bool) -> Option<Cause> {
    match slot {
        Some(t) => {
            if t.update(v, width) {
                Some(Cause::Interval)
            } else {
                periodic.then_some(Cause::Periodic)
            }
        }
        None => {
            *slot = Some(Tracked::new(v, width));
            Some(Cause::NewKey)
        }
    }
}

/// The cause of an event for a value that did or did not cross its interval, given when
/// its key was last pushed.
#[inline]
fn due(crossed: bool, push: &mut PushClock, now: u64, every: u64) -> Option<Cause> {
    let periodic = push.due(now, every);
    if crossed {
        Some(Cause::Interval)
    } else if periodic {
        Some(Cause::Periodic)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: u16 = field::SWITCH_ID | field::L1_PORTS | field::HOP_LATENCY | field::QUEUE_OCCUPANCY | field::QUEUE_CONGESTION | field::TX_UTILIZATION;
    const EVERY: u64 = 1000;

    fn hop(switch_id: u32, util: u32, occ: u32, cqueue_id: u8) -> HopValues {
        HopValues { switch_id, egress_port: 2, hop_latency: 5, tx_utilization: util, queue_id: 1, queue_occupancy: occ, congestion_queue_id: cqueue_id, queue_congestion: 7 }
    }

    /// Applies the hops the full way (as a flow's report does), returning their slots.
    fn apply(sw: &mut SwitchTables, cfg: &StateConfig, hops: &[HopValues], fields: u16, now: u64, events: &mut Vec<IntEvent>) -> Vec<HopSlots> {
        let mut counters = StateCounters::default();
        hops.iter()
            .map(|h| {
                let mut s = HopSlots::NONE;
                sw.apply_hop(cfg, &mut counters, h, fields, now, now, &mut |e| events.push(e), &mut s);
                s
            })
            .collect()
    }

    fn setup() -> (SwitchTables, StateConfig) {
        let cfg = StateConfig { push_interval_ns: EVERY, ..StateConfig::default() };
        (SwitchTables { links: Table::with_capacity(16), queues: Table::with_capacity(16) }, cfg)
    }

    #[test]
    fn quick_ops_hold_every_key_of_uniform_hops_only() {
        let (mut sw, cfg) = setup();
        let mut ev = Vec::new();
        let uniform: Vec<HopValues> = (0..4).map(|s| hop(s, 10, 20, 1)).collect();
        let slots = apply(&mut sw, &cfg, &uniform, ALL, 0, &mut ev);
        let mut q = QuickOps::NONE;
        sw.fill_quick(&mut q, &slots, ALL, true);
        assert!(q.ready);
        assert_eq!((q.shape, q.hops), (SHAPE_LINK | SHAPE_OCC | SHAPE_CON, 4));
        for (h, s) in q.hop.iter().zip(&slots) {
            assert_eq!((h.link, h.queue, h.util, h.occupancy, h.congestion), (s.link, s.queue, 10, 20, 7));
        }
        assert_eq!((q.link_bound, q.queue_bound), (4, 4));
        // Every entry was created at 0: its next push is due at EVERY.
        assert_eq!(q.push_floor, EVERY);
        // Without the congestion field, the queue entries get the occupancy only.
        let slots_occ = apply(&mut sw, &cfg, &uniform, ALL & !field::QUEUE_CONGESTION, 0, &mut ev);
        sw.fill_quick(&mut q, &slots_occ, ALL & !field::QUEUE_CONGESTION, true);
        assert_eq!((q.ready, q.shape), (true, SHAPE_LINK | SHAPE_OCC));
        // A hop whose congestion queue is another entry: not ready.
        let mut mixed = uniform.clone();
        mixed[2].congestion_queue_id = 3;
        let slots_mixed = apply(&mut sw, &cfg, &mixed, ALL, 0, &mut ev);
        assert_ne!(slots_mixed[2].cqueue, NO_SLOT);
        sw.fill_quick(&mut q, &slots_mixed, ALL, true);
        assert!(!q.ready);
        // Not ready either when a key was refused, or for more hops than the lists hold.
        sw.fill_quick(&mut q, &slots, ALL, false);
        assert!(!q.ready);
        let long: Vec<HopValues> = (0..HOT_HOPS as u32 + 1).map(|s| hop(s, 10, 20, 1)).collect();
        let slots_long = apply(&mut sw, &cfg, &long, ALL, 0, &mut ev);
        sw.fill_quick(&mut q, &slots_long, ALL, true);
        assert!(!q.ready);
    }

    #[test]
    fn quick_is_all_only_while_values_stay_and_no_push_is_due() {
        let (mut sw, cfg) = setup();
        let mut ev = Vec::new();
        let hops: Vec<HopValues> = (0..3).map(|s| hop(s, 10, 20, 1)).collect();
        let slots = apply(&mut sw, &cfg, &hops, ALL, 0, &mut ev);
        let mut q = QuickOps::NONE;
        sw.fill_quick(&mut q, &slots, ALL, true);
        assert!(sw.hot(&cfg).quick(&q, 500));
        assert!(sw.links.iter().all(|(_, e)| e.last_seen_ns == 500 && e.util.value == 10));
        assert!(sw.queues.iter().all(|(_, e)| e.last_seen_ns == 500));
        // Another flow moves one link entry to another interval: this flow's value
        // left it, so the full update must run.
        let other = apply(&mut sw, &cfg, &[hop(1, 1000, 20, 1)], ALL, 600, &mut ev);
        assert_eq!(other[0].link, slots[1].link);
        assert!(!sw.hot(&cfg).quick(&q, 700));
        let _ = apply(&mut sw, &cfg, &hops, ALL, 700, &mut ev);
        assert!(sw.hot(&cfg).quick(&q, 800));
        // At the push floor some entry may be due: the full update runs; after it the
        // floor is the entries' next push again.
        assert!(!sw.hot(&cfg).quick(&q, EVERY));
        let _ = apply(&mut sw, &cfg, &hops, ALL, EVERY, &mut ev);
        q.push_floor = sw.hot(&cfg).push_floor(&q);
        assert_eq!(q.push_floor, 2 * EVERY);
        assert!(sw.hot(&cfg).quick(&q, EVERY + 1));
        // An entry pushed by another flow only moves its next push later: the floor
        // kept by this flow stays below it.
        let _ = apply(&mut sw, &cfg, &[hop(0, 10, 20, 1)], ALL, 2 * EVERY + 5, &mut ev);
        assert!(sw.links.iter().all(|(_, e)| e.push.next_ns >= q.push_floor));
    }
}
