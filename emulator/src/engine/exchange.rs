//! The cross-worker exchange: where a sent packet goes. A link's sending
//! end (`Wire`) leads to a target in this partition, through the calendar of
//! due deliveries, or to another partition, through an outbound box that the
//! runner publishes on a ring; a link into a split switch is routed at the
//! sender to the partition of the port the packet will leave by. Packets from
//! other partitions are taken from their rings in their due slot.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use rtrb::Consumer;

use super::partition::Partition;
use super::placement::NO_ROUTER;
use crate::packet::{Packet, PortId, Slot};
use crate::scheme::route::TableRoute;
use crate::scheme::{Route, Router};

/// Where a packet goes inside a partition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Switch { idx: u32, port: PortId },
    Endpoint { idx: u32 },
}

/// A packet on its way to another partition. `to` is already in the
/// receiving partition's local indices (the sender knows the placement), so
/// nothing is looked up on the way in.
#[derive(Clone, Copy, Debug)]
pub struct Transfer {
    /// Due slot, low 32 bits: sender and receiver are never 2^31 slots apart,
    /// and 40 bytes instead of 48 is less for the cores to pass around.
    pub arrive: u32,
    pub to: PackedTarget,
    pub pkt: Packet,
}

/// Where a link (or the ACK path) leads: a target in this partition (`dest ==
/// WireEnd::LOCAL`), a target in another partition, reached through outbound
/// box `dest`, or into a split switch (`dest == WireEnd::SPLIT`, `to` holding
/// the index of the link's `SplitEntry`), where the partition depends on the
/// packet. A plain struct, not an enum: the local send path tests one field.
#[derive(Clone, Copy, Debug)]
pub(super) struct WireEnd {
    pub(super) to: PackedTarget,
    pub(super) dest: u16,
}

impl WireEnd {
    pub(super) const LOCAL: u16 = u16::MAX;
    pub(super) const SPLIT: u16 = u16::MAX - 1;
}

/// A link into a split switch, as the sending partition sees it: for each
/// destination endpoint, the target (the switch's router in the partition
/// of the output port the packet will leave by, at the link's input port)
/// and where that is (`WireEnd::LOCAL` or an outbound box); `ROUTE_EACH`
/// where ECMP candidates sit on different partitions and the flow hash
/// decides.
#[derive(Clone, Debug)]
struct SplitEntry {
    split: u32,
    in_port: PortId,
    delay: u32,
    by_dst: Vec<(PackedTarget, u16)>,
}

/// See `SplitEntry`.
const ROUTE_EACH: u16 = u16::MAX - 2;
/// See `Outbox::ack_dest`.
const NO_RING: u16 = u16::MAX - 3;

/// A switch split by output port, as seen by partitions sending to it: its
/// routes (the same table its routers use) pick the output port, whose
/// partition then receives the packet.
#[derive(Clone, Debug)]
pub(super) struct SplitSwitch {
    /// Per destination endpoint: the partition and local router index that
    /// every candidate output port leads to, or `None` when ECMP candidates
    /// sit on different partitions and the flow hash decides.
    by_dst: Vec<Option<(u16, u32)>>,
    route: TableRoute,
    port_part: Vec<u16>,
    /// Local router index of the switch in each partition (`NO_ROUTER` if none).
    local: Vec<u32>,
}

impl SplitSwitch {
    pub(super) fn new(next_hops: &[Vec<PortId>], port_part: &[u16], local: &[u32]) -> Self {
        let by_dst = next_hops
            .iter()
            .map(|ports| {
                let part = port_part[*ports.first()? as usize];
                ports
                    .iter()
                    .all(|&p| port_part[p as usize] == part)
                    .then_some((part, local[part as usize]))
            })
            .collect();
        SplitSwitch {
            by_dst,
            route: TableRoute::new(next_hops),
            port_part: port_part.to_vec(),
            local: local.to_vec(),
        }
    }
}

/// The sending end of a link: where it leads, its latency and its rate credit.
#[derive(Clone, Copy, Debug)]
pub(super) struct Wire {
    pub(super) to: WireEnd,
    pub(super) latency: u32,
    /// Link rate in Mb/s; the base rate sends one packet per slot.
    pub(super) rate: u32,
    pub(super) credit: u32,
    /// Slot of the last credit update (credit is refilled lazily).
    last: Slot,
}

impl Wire {
    /// A link starts with a full credit: it can send in slot 0.
    pub(super) fn new(to: WireEnd, latency: u32, rate: u32, base: u32) -> Self {
        Wire {
            to,
            latency,
            rate,
            credit: rate.max(base),
            last: 0,
        }
    }
    /// Refill the rate credit for the slots since the last visit.
    #[inline]
    pub(super) fn refill(&mut self, t: Slot, base: u32) {
        let cap = self.rate.max(base) as u64;
        let add = (t - self.last).min(cap) * self.rate as u64;
        self.credit = (self.credit as u64 + add).min(cap) as u32;
        self.last = t;
    }

    /// A link that prices each frame by its length (`Shared::frame_bytes`):
    /// the credit is kept `base` above its true value, which a frame sent on
    /// a positive true credit may leave negative (by less than one MTU's
    /// price, `base`). Starts with one slot's credit.
    pub(super) fn priced_by_length(mut self, base: u32) -> Self {
        self.credit = self.rate + base;
        self
    }
    /// Refill a length-priced link: at most one slot's worth of true credit
    /// is kept, so an idle link sends no faster than its rate afterwards.
    #[inline]
    pub(super) fn refill_priced(&mut self, t: Slot, base: u32) {
        let cap = (self.rate + base) as u64;
        let add = (t - self.last).min(cap) * self.rate as u64;
        self.credit = (self.credit as u64 + add).min(cap) as u32;
        self.last = t;
    }
    /// Whether a length-priced link may start a frame in this slot (its
    /// true credit is positive).
    #[inline]
    pub(super) fn can_start(&self, base: u32) -> bool {
        self.credit > base
    }
    /// Start a frame of `price` (credit units, at most `base`) on a
    /// length-priced link: the slots after this one that it still takes to
    /// serialise (0 when it fits in what this slot had left).
    #[inline]
    pub(super) fn start(&mut self, price: u32, base: u32) -> u64 {
        debug_assert!(self.can_start(base) && price <= base);
        self.credit -= price;
        if self.credit >= base {
            0
        } else {
            (base - self.credit).div_ceil(self.rate) as u64
        }
    }
}

/// A packet's price on a length-priced link (`frame_price`): an in-band ACK
/// is `ack_bytes` long, a real host's frame carries its length, and every
/// other packet is one MTU.
#[inline]
pub(super) fn packet_price(pkt: &Packet, ack_bytes: u32, frame_bytes: u32, base: u32) -> u32 {
    let len = if pkt.has(crate::packet::ACK) {
        ack_bytes
    } else {
        pkt.wire_len()
    };
    frame_price(len, frame_bytes, base)
}

/// A frame's price on a length-priced link, in credit units: `base` for one
/// MTU-sized frame (`frame_bytes`) or a packet without a length, in
/// proportion for a shorter one, at least 1.
#[inline]
pub(super) fn frame_price(wire_len: u32, frame_bytes: u32, base: u32) -> u32 {
    if wire_len == 0 || wire_len >= frame_bytes {
        base
    } else {
        ((base as u64 * wire_len as u64).div_ceil(frame_bytes as u64) as u32).max(1)
    }
}

/// Packets leaving the partition: a batch per other partition, and the
/// routes of split switches that decide which partition a packet goes to.
pub struct Outbox {
    /// Transfers for each outbound ring (see `Placement::exchanges`),
    /// published once per batch.
    pub boxes: Vec<Vec<Transfer>>,
    /// Per partition: (delay, index in `boxes`) of the rings towards it.
    rings: Vec<Vec<(u32, u16)>>,
    /// Per partition: where ACKs to its endpoints go (`WireEnd::LOCAL` or a box).
    pub(super) ack_dest: Vec<u16>,
    splits: Vec<SplitSwitch>,
    /// The links of this partition into split switches.
    entries: Vec<SplitEntry>,
    me: u16,
}

impl Outbox {
    pub(super) fn new(
        exchanges: &[(u16, u32)],
        splits: Vec<SplitSwitch>,
        me: u16,
        parts: usize,
        ack_delay: u32,
    ) -> Self {
        let rings: Vec<Vec<(u32, u16)>> = (0..parts)
            .map(|j| {
                exchanges
                    .iter()
                    .enumerate()
                    .filter(|(_, (to, _))| *to as usize == j)
                    .map(|(k, &(_, delay))| (delay, k as u16))
                    .collect()
            })
            .collect();
        let mut outbox = Outbox {
            boxes: exchanges.iter().map(|_| Vec::new()).collect(),
            rings,
            ack_dest: Vec::new(),
            splits,
            entries: Vec::new(),
            me,
        };
        // No ring means no endpoints there: no ACK ever goes there.
        outbox.ack_dest = (0..parts as u16)
            .map(|j| outbox.find_dest(j, ack_delay).unwrap_or(NO_RING))
            .collect();
        outbox
    }

    /// Where a packet for `part` sent with `delay` goes: `WireEnd::LOCAL`, or
    /// the box of its ring if there is one.
    fn find_dest(&self, part: u16, delay: u32) -> Option<u16> {
        if part == self.me {
            return Some(WireEnd::LOCAL);
        }
        self.rings[part as usize]
            .iter()
            .find(|&&(d, _)| d == delay)
            .map(|&(_, k)| k)
    }

    /// `find_dest` for a link that crosses: it has a ring (see
    /// `Placement::exchanges`). For building wires; sends use the result.
    pub(super) fn dest(&self, part: u16, delay: u32) -> u16 {
        self.find_dest(part, delay)
            .unwrap_or_else(|| panic!("no ring towards partition {part} for delay {delay}"))
    }

    /// Target and destination of a packet entering a split switch at
    /// `in_port` over a link of `delay`, to leave by a port of `part`, where
    /// the switch's router is `idx`.
    fn split_hop(&self, part: u16, idx: u32, in_port: PortId, delay: u32) -> (PackedTarget, u16) {
        debug_assert_ne!(idx, NO_ROUTER);
        (
            PackedTarget::pack(Target::Switch { idx, port: in_port }),
            self.dest(part, delay),
        )
    }

    /// The end of a link with `latency` into split switch `split` at `in_port`.
    pub(super) fn split_end(&mut self, split: u32, in_port: PortId, latency: u32) -> WireEnd {
        let s = &self.splits[split as usize];
        let by_dst = s
            .by_dst
            .iter()
            .map(|hop| match *hop {
                Some((part, idx)) => self.split_hop(part, idx, in_port, latency),
                None => (PackedTarget(0), ROUTE_EACH),
            })
            .collect();
        self.entries.push(SplitEntry {
            split,
            in_port,
            delay: latency,
            by_dst,
        });
        WireEnd {
            to: PackedTarget(self.entries.len() as u32 - 1),
            dest: WireEnd::SPLIT,
        }
    }

    /// Target and destination of a packet sent on split entry `entry`.
    #[inline]
    fn enter_split(&mut self, entry: PackedTarget, pkt: &Packet) -> (PackedTarget, u16) {
        debug_assert!((entry.0 as usize) < self.entries.len());
        // SAFETY: split ends are only made by `split_end`, with the index of
        // the entry it pushed, and entries are never removed.
        let e = unsafe { self.entries.get_unchecked(entry.0 as usize) };
        debug_assert!((pkt.dst as usize) < e.by_dst.len());
        // SAFETY: `by_dst` has one entry per endpoint of the topology, and
        // packets only ever carry endpoint ids of the topology (flows and
        // streams are validated against it).
        let hop = unsafe { *e.by_dst.get_unchecked(pkt.dst as usize) };
        if hop.1 != ROUTE_EACH {
            return hop;
        }
        self.route_into_split(entry, pkt)
    }

    /// A packet whose output port at the split switch (hence partition)
    /// depends on its flow: routed there now (the router there routes it
    /// again, identically).
    #[inline(never)]
    fn route_into_split(&mut self, entry: PackedTarget, pkt: &Packet) -> (PackedTarget, u16) {
        let (split, in_port, delay) = {
            let e = &self.entries[entry.0 as usize];
            (e.split as usize, e.in_port, e.delay)
        };
        let s = &mut self.splits[split];
        let out = s.route.route(pkt, in_port);
        let part = s.port_part[out as usize];
        let idx = s.local[part as usize];
        self.split_hop(part, idx, in_port, delay)
    }
}

/// A packet due at a local target.
#[derive(Clone, Copy, Debug)]
pub(super) struct Delivery {
    pub(super) pkt: Packet,
    pub(super) to: PackedTarget,
}

/// `Target` packed into 32 bits: bit 31 set = endpoint `idx`; else switch
/// `idx` (bits 16..31) and input port (bits 0..16).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedTarget(pub(super) u32);

impl PackedTarget {
    pub(super) const ENDPOINT: u32 = 1 << 31;
    #[inline]
    pub(super) fn pack(t: Target) -> Self {
        match t {
            Target::Switch { idx, port } => PackedTarget((idx << 16) | port as u32),
            Target::Endpoint { idx } => PackedTarget(Self::ENDPOINT | idx),
        }
    }
}

/// A ring of packets from another partition, all sent with the same delay,
/// so they fall due in ring order: each slot takes the due ones from its head.
pub(super) struct Inbound {
    ring: Consumer<Transfer>,
    /// Transfers known to be in the ring (as of the last look at its tail).
    avail: usize,
    /// Read from the ring ahead of their slot, in ring order (links that
    /// price by length: `deliver_inbound_priced`); at most what the ring
    /// held, as each leaves in its slot.
    held: Vec<Transfer>,
}

/// The slot nearest to `now` whose low 32 bits are `low`.
#[inline]
pub(super) fn full_slot(now: Slot, low: u32) -> Slot {
    now.wrapping_add(low.wrapping_sub(now as u32) as i32 as i64 as u64)
}

/// Deliveries due in this partition, by slot: a ring of buckets as long as
/// the longest delay of anything sent here, and, for packets from other
/// partitions due further ahead than that (loose synchronisation), a heap.
pub(super) struct Calendar {
    pub(super) buckets: Vec<Vec<Delivery>>,
    /// Buckets - 1 (their number is a power of two).
    pub(super) mask: u64,
    far: BinaryHeap<Reverse<(Slot, u64)>>,
    far_items: HashMap<u64, Delivery>,
    far_seq: u64,
}

impl Calendar {
    /// A calendar of `horizon` buckets (a power of two).
    pub(super) fn new(horizon: u64) -> Self {
        debug_assert!(horizon.is_power_of_two());
        Calendar {
            buckets: (0..horizon).map(|_| Vec::new()).collect(),
            mask: horizon - 1,
            far: BinaryHeap::new(),
            far_items: HashMap::new(),
            far_seq: 0,
        }
    }

    /// File a delivery due at `arrive` (>= `now`).
    #[inline]
    fn put(&mut self, now: Slot, arrive: Slot, d: Delivery) {
        let mask = self.mask;
        debug_assert!(self.buckets.len() == mask as usize + 1);
        if arrive <= now + mask {
            // SAFETY: the calendar has mask + 1 buckets (a power of two).
            unsafe { self.buckets.get_unchecked_mut((arrive & mask) as usize) }.push(d);
        } else {
            self.far_seq += 1;
            self.far.push(Reverse((arrive, self.far_seq)));
            self.far_items.insert(self.far_seq, d);
        }
    }

    /// Move the far deliveries that now fit into the ring of buckets.
    pub(super) fn pull_far(&mut self, t: Slot) {
        while let Some(&Reverse((arrive, seq))) = self.far.peek() {
            if arrive > t + self.mask {
                break;
            }
            self.far.pop();
            if let Some(d) = self.far_items.remove(&seq) {
                self.buckets[(arrive.max(t) & self.mask) as usize].push(d);
            }
        }
    }
}

/// Send a packet down a link (or the ACK path) that ends at `end`: into the
/// calendar (its `buckets` and `mask`, passed apart so that the send loops
/// keep them in registers) or into an outbound box.
// Always inlined: the common case is one compare and a push.
#[inline(always)]
pub(super) fn send(
    calendar: &mut [Vec<Delivery>],
    mask: u64,
    outbox: &mut Outbox,
    end: WireEnd,
    arrive: Slot,
    pkt: Packet,
) {
    let (mut to, mut dest) = (end.to, end.dest);
    if dest == WireEnd::SPLIT {
        (to, dest) = outbox.enter_split(to, &pkt);
    }
    if dest == WireEnd::LOCAL {
        debug_assert!(calendar.len() == mask as usize + 1);
        // SAFETY: the calendar has mask + 1 buckets (a power of two).
        unsafe { calendar.get_unchecked_mut((arrive & mask) as usize) }.push(Delivery { to, pkt })
    } else {
        outbox.boxes[dest as usize].push(Transfer {
            arrive: arrive as u32,
            to,
            pkt,
        })
    }
}

impl<R: Router> Partition<R> {
    /// The packets of other partitions due now (or late), in ring order:
    /// partitions in index order, then by delay.
    // Out of line: the single-partition slot loop stays as lean as before.
    #[inline(never)]
    pub(super) fn deliver_inbound(&mut self, t: Slot) {
        if self.shared.frame_bytes > 0 {
            return self.deliver_inbound_priced(t);
        }
        let mut inbound = std::mem::take(&mut self.inbound);
        for i in inbound.iter_mut().filter(|i| i.avail > 0) {
            let chunk = i
                .ring
                .read_chunk(i.avail)
                .expect("transfers seen in the ring stay readable");
            let (a, b) = chunk.as_slices();
            let mut taken = 0;
            for tr in a.iter().chain(b) {
                if self.due_slot(tr.arrive) > t {
                    break;
                }
                self.deliver_one(tr.to, tr.pkt, t);
                taken += 1;
            }
            chunk.commit(taken);
            i.avail -= taken;
        }
        self.inbound = inbound;
    }

    /// `deliver_inbound` over links that price frames by length. A frame
    /// that ends after its slot arrives a slot or more late (`Wire::start`),
    /// so a ring that several links share is no longer in order of arrival:
    /// what is not yet due is read past and held, and each slot delivers,
    /// in ring order, the held transfers due and then the ring's.
    #[inline(never)]
    fn deliver_inbound_priced(&mut self, t: Slot) {
        let mut inbound = std::mem::take(&mut self.inbound);
        for i in inbound.iter_mut() {
            i.held.retain(|tr| {
                let due = self.due_slot(tr.arrive) <= t;
                if due {
                    self.deliver_one(tr.to, tr.pkt, t);
                }
                !due
            });
            if i.avail == 0 {
                continue;
            }
            let chunk = i
                .ring
                .read_chunk(i.avail)
                .expect("transfers seen in the ring stay readable");
            let (a, b) = chunk.as_slices();
            for tr in a.iter().chain(b) {
                if self.due_slot(tr.arrive) > t {
                    i.held.push(*tr);
                } else {
                    self.deliver_one(tr.to, tr.pkt, t);
                }
            }
            chunk.commit_all();
            i.avail = 0;
        }
        self.inbound = inbound;
    }

    /// Take the rings from other partitions, in `Placement::exchanges`
    /// order (by sending partition, then delay).
    pub fn attach_inbound(&mut self, rings: Vec<Consumer<Transfer>>) {
        self.inbound = rings
            .into_iter()
            .map(|ring| Inbound {
                ring,
                avail: 0,
                held: Vec::new(),
            })
            .collect();
    }

    /// Look at what the other partitions have published. Called after seeing
    /// their progress: every packet they sent before it, so every packet due
    /// before `progress + lookahead`, is then known to be in the rings.
    pub fn refresh_inbound(&mut self) {
        for i in &mut self.inbound {
            i.avail = i.ring.slots();
        }
    }

    /// Move everything published to the calendar: makes room for a peer
    /// waiting to send while this partition waits to send to it.
    pub fn drain_inbound(&mut self) {
        let mut inbound = std::mem::take(&mut self.inbound);
        for i in &mut inbound {
            // Held transfers came out of the ring before what is in it.
            let held = std::mem::take(&mut i.held);
            self.accept(&held);
            let n = i.ring.slots();
            if n > 0 {
                let chunk = i.ring.read_chunk(n).expect("slots() are readable");
                let (a, b) = chunk.as_slices();
                self.accept(a);
                self.accept(b);
                chunk.commit_all();
            }
            i.avail = 0;
        }
        self.inbound = inbound;
    }

    /// The slot a transfer due at `low` (low 32 bits) is delivered in: its
    /// due slot, or now if that has passed (loose synchronisation; counted).
    #[inline]
    fn due_slot(&mut self, low: u32) -> Slot {
        let arrive = full_slot(self.now, low);
        if arrive < self.now {
            self.stats.late_transfers += 1;
            self.stats.late_slots += self.now - arrive;
            return self.now;
        }
        arrive
    }

    /// Packets from other partitions into the calendar. Late ones are
    /// delivered in the current slot.
    #[inline(never)]
    fn accept(&mut self, batch: &[Transfer]) {
        let now = self.now;
        for tr in batch {
            let arrive = self.due_slot(tr.arrive);
            let d = Delivery {
                to: tr.to,
                pkt: tr.pkt,
            };
            self.calendar.put(now, arrive, d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wire(rate: u32, base: u32) -> Wire {
        let end = WireEnd {
            to: PackedTarget::pack(Target::Endpoint { idx: 0 }),
            dest: WireEnd::LOCAL,
        };
        Wire::new(end, 1, rate, base).priced_by_length(base)
    }

    /// Each slot: refill, then start frames of `len` bytes while the link
    /// may. Returns (start slot, extra serialisation slots) per frame.
    fn drive(w: &mut Wire, base: u32, len: u32, slots: u64) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        for t in 0..slots {
            w.refill_priced(t, base);
            while w.can_start(base) {
                out.push((t, w.start(frame_price(len, 1514, base), base)));
            }
        }
        out
    }

    #[test]
    fn full_frames_on_a_quarter_rate_link_take_four_slots_each() {
        // Slots four times the link's rate: an MTU frame serialises over
        // four slots, and the next starts when the last is out.
        let (base, rate) = (800, 200);
        let mut w = wire(rate, base);
        let sent = drive(&mut w, base, 1514, 20);
        assert_eq!(sent, (0..5).map(|i| (4 * i, 3)).collect::<Vec<_>>());
    }

    #[test]
    fn short_frames_share_a_slot_and_the_rate_holds_in_bytes() {
        let (base, rate) = (800, 200);
        let mut w = wire(rate, base);
        // 66-byte ACKs: 35 credit units each, 200 per slot.
        let sent = drive(&mut w, base, 66, 1000);
        let bytes = sent.len() as f64 * 66.0;
        // The link's rate is a quarter of an MTU frame (1514 bytes) per slot.
        let per_slot = bytes / 1000.0;
        assert!((per_slot - 1514.0 / 4.0).abs() / (1514.0 / 4.0) < 0.07, "{per_slot} bytes/slot");
        // Up to six start in one slot, none waits past the slot its credit allows.
        let mut per = std::collections::HashMap::new();
        for (t, extra) in &sent {
            *per.entry(*t).or_insert(0) += 1;
            assert!(*extra <= 1);
        }
        assert!(per.values().all(|&n| (5..=6).contains(&n)));
    }

    #[test]
    fn at_the_base_rate_a_full_frame_is_one_slot_and_short_ones_share_it() {
        let base = 1000;
        let mut w = wire(base, base);
        assert_eq!(drive(&mut w, base, 1514, 3), vec![(0, 0), (1, 0), (2, 0)]);
        let mut w = wire(base, base);
        // 20 frames of 150 bytes (100 credit each) fit in two slots.
        let sent = drive(&mut w, base, 150, 2);
        assert_eq!(sent.len(), 20);
        assert!(sent.iter().all(|&(_, extra)| extra == 0));
    }

    #[test]
    fn a_price_is_proportional_and_never_zero() {
        assert_eq!(frame_price(0, 1514, 800), 800);
        assert_eq!(frame_price(1514, 1514, 800), 800);
        assert_eq!(frame_price(9000, 1514, 800), 800);
        assert_eq!(frame_price(757, 1514, 800), 400);
        assert_eq!(frame_price(1, 1514, 800), 1);
        assert_eq!(frame_price(1, 1514, 1), 1);
    }
}
