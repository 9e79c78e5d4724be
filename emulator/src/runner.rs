//! Runs partitions on worker threads (Flexplane §4): each worker owns the
//! routers of some racks or pods with their endpoints, pinned to a core;
//! packets between workers travel in batches over bounded lock-free
//! single-producer single-consumer rings (one per sender, receiver and delay,
//! see `Placement::exchanges`; indices on separate cache lines, one
//! publication per batch), and the receiver takes each packet from its ring
//! in the slot it falls due. Workers do not synchronise per timeslot: each
//! runs ahead on its own and looks at the others' progress only when it has
//! reached the lookahead (the smallest delay of anything sent to it) plus
//! `skew_slots` past the slowest of them as last seen. With `skew_slots = 0`
//! no packet ever arrives after its due slot and runs are repeatable; with
//! more (Flexplane's loose synchronisation) late packets are delivered at
//! once and counted.
//! The calling thread only spawns the workers and blocks joining them.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier, OnceLock};
use std::time::{Duration, Instant};

use crate::config::Mode;
use crate::endpoint::transport::FlowSender;
use crate::endpoint::workload::{OpenLoopStream, WorkloadPlan};
use crate::engine::{Partition, PartitionStats, Placement, Shared, Transfer};
use crate::fabric::topology::Topology;
use crate::packet::Slot;
use crate::scheme::PortCounters;
use crate::scheme::route::TableRoute;
use crate::scheme::{Router, RouterPorts};
use crossbeam_utils::CachePadded;
use rtrb::{Consumer, Producer, RingBuffer};

/// Packets a worker may have in flight towards one other worker. A worker
/// runs at most the lookahead (plus loose skew) ahead, so a few thousand
/// transfers cover the fabrics we emulate; a small ring stays in cache (a
/// large one is written through at full length, every line a miss). A full
/// ring is no loss: the sender takes in its own input and retries.
const RING_TRANSFERS: usize = 1 << 12;
/// A waiting worker spins this long (peers are normally microseconds away),
/// then yields its core, then parks until woken.
const SPIN_WAIT: Duration = Duration::from_micros(50);
const YIELD_WAIT: Duration = Duration::from_micros(500);

/// Lets a worker that published progress wake peers parked waiting for it.
struct WorkerSync {
    waiting: Vec<CachePadded<AtomicBool>>,
    threads: Vec<std::sync::OnceLock<std::thread::Thread>>,
}

impl WorkerSync {
    fn new(n: usize) -> Self {
        WorkerSync {
            waiting: (0..n)
                .map(|_| CachePadded::new(AtomicBool::new(false)))
                .collect(),
            threads: (0..n).map(|_| std::sync::OnceLock::new()).collect(),
        }
    }
    fn wake_others(&self, me: usize) {
        for (j, w) in self.waiting.iter().enumerate() {
            if j != me
                && w.load(Ordering::Relaxed)
                && let Some(t) = self.threads[j].get()
            {
                t.unpark();
            }
        }
    }
}

pub struct Setup {
    pub topo: Topology,
    pub shared: Arc<Shared>,
    pub plan: WorkloadPlan,
    pub mode: Mode,
    pub slot_ns: f64,
    pub batch_slots: u64,
    /// Extra slots beyond the lookahead a worker may run ahead (loose synchronisation).
    pub skew_slots: u64,
    pub pin_threads: bool,
    /// Per partition, its real hosts' I/O (`crate::realhost`), taken by the
    /// worker that builds the partition.
    pub host_io: std::sync::Mutex<Vec<Option<Box<dyn crate::engine::HostIo>>>>,
}

impl Setup {
    fn take_host_io(&self, part: usize) -> Option<Box<dyn crate::engine::HostIo>> {
        self.host_io
            .lock()
            .ok()
            .and_then(|mut v| v.get_mut(part).and_then(Option::take))
    }
}

/// When workers stop.
#[derive(Clone)]
pub enum Stop {
    AtSlot(Slot),
    /// Stop when the flag is raised (or at the slot cap).
    Flag(Arc<AtomicBool>, Slot),
}

impl Stop {
    fn end(&self) -> Slot {
        match self {
            Stop::AtSlot(s) | Stop::Flag(_, s) => *s,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Lag {
    /// Largest amount the worker was behind the wall clock, microseconds.
    pub max_lag_us: f64,
    /// How far behind it was when it finished.
    pub final_lag_us: f64,
    /// Fraction of batches that started behind the wall clock.
    pub behind_fraction: f64,
}

/// What a finished worker hands back, independent of the scheme type.
pub struct PartitionReport {
    pub router_ids: Vec<u32>,
    pub counters: Vec<Vec<PortCounters>>,
    pub stats: PartitionStats,
    pub flows: Vec<FlowSender>,
    pub streams: Vec<OpenLoopStream>,
    pub slots: Slot,
    pub lag: Option<Lag>,
    pub load: WorkerLoad,
    /// The real hosts' counters, if this partition had any.
    pub real_hosts: Option<serde_json::Value>,
}

/// How one worker thread spent a run: the balance between workers bounds how
/// well a run scales with threads.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct WorkerLoad {
    /// Router hops this worker emulated.
    pub router_packets: u64,
    /// Wall time of the worker's emulation: from the moment all workers
    /// had built their partitions to this worker's last slot (setup,
    /// thread start and the report are not included).
    pub seconds: f64,
    /// Part of `seconds` spent waiting for other workers (progress or ring room).
    pub wait_seconds: f64,
}

pub struct RunOutput {
    pub parts: Vec<PartitionReport>,
    pub wall: Duration,
    pub threads: usize,
}

/// Something that can be handed a router constructor of a concrete type.
pub trait SchemeVisitor {
    type Out;
    fn visit<R, F>(self, build: F) -> Self::Out
    where
        R: Router,
        F: Fn(u32, &RouterPorts, TableRoute) -> R + Sync;
}

pub struct RunVisitor<'a> {
    pub setup: &'a Setup,
    pub stop: Stop,
}

impl SchemeVisitor for RunVisitor<'_> {
    type Out = RunOutput;
    fn visit<R, F>(self, build: F) -> RunOutput
    where
        R: Router,
        F: Fn(u32, &RouterPorts, TableRoute) -> R + Sync,
    {
        run(self.setup, &build, &self.stop)
    }
}

pub fn run<R, F>(setup: &Setup, build: &F, stop: &Stop) -> RunOutput
where
    R: Router,
    F: Fn(u32, &RouterPorts, TableRoute) -> R + Sync,
{
    let nparts = setup.shared.placement.parts;
    // Each worker's progress on its own cache line: a worker publishing must
    // not invalidate the line its peer publishes on.
    let progress: Vec<CachePadded<AtomicU64>> = (0..nparts)
        .map(|_| CachePadded::new(AtomicU64::new(0)))
        .collect();
    let sync = WorkerSync::new(nparts);
    let run_start = Instant::now();
    let ready = Barrier::new(nparts);
    let start = OnceLock::new();
    let crew = Crew {
        progress: &progress,
        sync: &sync,
        stop,
        setup,
        ready: &ready,
        start: &start,
    };
    let cores = if setup.pin_threads {
        core_affinity::get_core_ids().unwrap_or_default()
    } else {
        Vec::new()
    };
    let parts = if nparts == 1 {
        let mut p = Partition::new(0, &setup.topo, setup.shared.clone(), &setup.plan, build);
        p.host_io = setup.take_host_io(0);
        vec![worker(p, Vec::new(), &crew)]
    } else {
        // One ring per (sender, receiver, delay): see `Placement::exchanges`.
        // Receivers get theirs by sender, then delay, as partitions expect.
        let plan = &setup.shared.exchanges;
        let mut producers: Vec<Vec<Producer<Transfer>>> = Vec::new();
        let mut consumers: Vec<Vec<Consumer<Transfer>>> = (0..nparts).map(|_| Vec::new()).collect();
        for rings in plan {
            let mut row = Vec::new();
            for &(to, _) in rings {
                let (p, c) = RingBuffer::new(RING_TRANSFERS);
                row.push(p);
                consumers[to as usize].push(c);
            }
            producers.push(row);
        }
        let mut producers = producers.into_iter();
        let mut consumers = consumers.into_iter();
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..nparts)
                .map(|i| {
                    let tx = producers.next().expect("one ring row per worker");
                    let rx = consumers.next().expect("one ring column per worker");
                    let core = if cores.is_empty() {
                        None
                    } else {
                        Some(cores[i % cores.len()])
                    };
                    let crew = &crew;
                    s.spawn(move || {
                        let _ = crew.sync.threads[i].set(std::thread::current());
                        if let Some(c) = core {
                            core_affinity::set_for_current(c);
                        }
                        let mut p = Partition::new(
                            i,
                            &setup.topo,
                            setup.shared.clone(),
                            &setup.plan,
                            build,
                        );
                        p.attach_inbound(rx);
                        p.host_io = setup.take_host_io(i);
                        worker(p, tx, crew)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("emulation worker panicked"))
                .collect()
        })
    };
    RunOutput {
        parts,
        wall: run_start.elapsed(),
        threads: nparts,
    }
}

/// Hand the batch of outbound ring `k` to the ring, taking this worker's own
/// inbound packets into its calendar while the ring is full (so two workers
/// pushing to each other cannot wait on each other).
fn flush<R: Router>(part: &mut Partition<R>, k: usize, ring: &mut Producer<Transfer>) -> Duration {
    let batch = std::mem::take(&mut part.outbox.boxes[k]);
    let mut rest: &[Transfer] = &batch;
    let mut full_since: Option<Instant> = None;
    loop {
        let (_, left) = ring.push_partial_slice(rest);
        rest = left;
        if rest.is_empty() || ring.is_abandoned() {
            break;
        }
        full_since.get_or_insert_with(Instant::now);
        part.drain_inbound();
        std::hint::spin_loop();
    }
    let mut batch = batch;
    batch.clear();
    part.outbox.boxes[k] = batch;
    full_since.map_or(Duration::ZERO, |s| s.elapsed())
}

/// What all workers of one run share.
struct Crew<'a> {
    progress: &'a [CachePadded<AtomicU64>],
    sync: &'a WorkerSync,
    stop: &'a Stop,
    setup: &'a Setup,
    /// Every worker has built its partition: the emulation starts.
    ready: &'a Barrier,
    /// When it started (slot 0 of real-time pacing).
    start: &'a OnceLock<Instant>,
}

fn worker<R: Router>(
    mut part: Partition<R>,
    mut tx: Vec<Producer<Transfer>>,
    crew: &Crew,
) -> PartitionReport {
    let Crew {
        progress,
        sync,
        stop,
        setup,
        ready,
        start,
    } = *crew;
    let me = part.index;
    let nparts = progress.len();
    let end = stop.end();
    // Building a partition (tables, queues, generators) takes different
    // times on different workers; start together so that no worker counts a
    // peer's construction as waiting, and time only the emulation.
    ready.wait();
    let start = *start.get_or_init(Instant::now);
    let begun = Instant::now();
    let mut wait = Duration::ZERO;
    let (mut batches, mut behind) = (0u64, 0u64);
    let mut lag = Lag::default();
    // Workers never run more than lookahead (+ the configured loose skew) slots
    // ahead of the slowest other worker. With no extra skew this is exact: every
    // packet from another worker is in hand before its due slot.
    let allowance = part.lookahead.saturating_add(setup.skew_slots).max(1);
    // Progress is published once per batch. A batch longer than half the
    // allowance would hold a peer that is `allowance` slots behind waiting
    // for this batch to end, and the two would take turns instead of running
    // side by side: keep batches within half the allowance.
    let batch_slots = if nparts > 1 {
        setup.batch_slots.min((allowance / 2).max(1))
    } else {
        setup.batch_slots
    };
    // The slot this worker may run up to, as of its last look at the others'
    // progress: it looks again only on reaching it.
    let mut allowed = if nparts > 1 { 0 } else { end };
    while part.now < end {
        if let Stop::Flag(f, _) = stop
            && f.load(Ordering::Relaxed)
        {
            break;
        }
        if part.now >= allowed {
            let mut waited: Option<Instant> = None;
            let mut polls = 0u32;
            loop {
                if polls == 1 {
                    // Not allowed on at the first look: this is a wait.
                    waited = Some(Instant::now());
                }
                let slowest = (0..nparts)
                    .filter(|&j| j != me)
                    .map(|j| progress[j].load(Ordering::Acquire))
                    .min()
                    .unwrap_or(u64::MAX);
                // Everything the others sent before publishing that progress is now in the rings.
                part.refresh_inbound();
                allowed = slowest.saturating_add(allowance).min(end);
                if part.now < allowed {
                    break;
                }
                polls = polls.wrapping_add(1);
                // Reading the clock costs more than a poll: look at it now and then.
                let since = if polls.is_multiple_of(64) {
                    waited.map_or(Duration::ZERO, |w| w.elapsed())
                } else {
                    Duration::ZERO
                };
                if since < SPIN_WAIT {
                    std::hint::spin_loop();
                } else if since < YIELD_WAIT {
                    // The peer may be waiting for this very core (busy machine).
                    std::thread::yield_now();
                } else {
                    // Sleep until a peer publishes progress: on a busy machine the
                    // peer may be waiting for this very core. The timeout bounds
                    // a wake-up that raced with the flag.
                    sync.waiting[me].store(true, Ordering::SeqCst);
                    let again = (0..nparts)
                        .filter(|&j| j != me)
                        .map(|j| progress[j].load(Ordering::SeqCst))
                        .min()
                        .unwrap_or(u64::MAX);
                    if part.now >= again.saturating_add(allowance).min(end) {
                        std::thread::park_timeout(Duration::from_micros(200));
                    }
                    sync.waiting[me].store(false, Ordering::SeqCst);
                }
            }
            if let Some(w) = waited {
                wait += w.elapsed();
            }
        } else if setup.skew_slots > 0 {
            // Loose: a peer behind sends packets that are due already or
            // soon; take them as soon as they are published, not at the next
            // look at progress (up to the whole allowance later).
            part.refresh_inbound();
        }
        let batch_end = (part.now + batch_slots).min(allowed);
        while part.now + 1 < batch_end {
            part.step();
        }
        // The batch's last slot up to its last packet for another worker:
        // the rest of the slot does not hold up peers waiting for it.
        part.step_sends();
        for (k, ring) in tx.iter_mut().enumerate() {
            if !part.outbox.boxes[k].is_empty() {
                wait += flush(&mut part, k, ring);
            }
        }
        // Publish progress only after the batch's packets are in the rings.
        // A release store: a sequentially consistent one would also wait for
        // every store of the batch to drain. Without it the waiting flag may
        // be read before the progress is visible, and a peer that has just
        // gone to sleep then sleeps out its timeout (it sleeps only after
        // waiting far longer than that).
        progress[me].store(batch_end, Ordering::Release);
        sync.wake_others(me);
        part.step_rest();
        debug_assert_eq!(part.now, batch_end);
        if setup.mode == Mode::Realtime {
            batches += 1;
            let target = Duration::from_nanos((part.now as f64 * setup.slot_ns) as u64);
            let elapsed = start.elapsed();
            if elapsed < target {
                let ahead = target - elapsed;
                if ahead > Duration::from_micros(200) {
                    std::thread::sleep(ahead - Duration::from_micros(100));
                }
                while start.elapsed() < target {
                    std::hint::spin_loop();
                }
                lag.final_lag_us = 0.0;
            } else {
                behind += 1;
                let l = (elapsed - target).as_secs_f64() * 1e6;
                lag.max_lag_us = lag.max_lag_us.max(l);
                lag.final_lag_us = l;
            }
        }
    }
    progress[me].store(u64::MAX, Ordering::SeqCst);
    sync.wake_others(me);
    if setup.mode == Mode::Realtime {
        lag.behind_fraction = if batches == 0 {
            0.0
        } else {
            behind as f64 / batches as f64
        };
    }
    PartitionReport {
        router_ids: part.router_ids.clone(),
        counters: part.routers.iter().map(|r| r.counters().to_vec()).collect(),
        slots: part.now,
        lag: (setup.mode == Mode::Realtime).then_some(lag),
        load: WorkerLoad {
            router_packets: part.stats.router_packets,
            seconds: begun.elapsed().as_secs_f64(),
            wait_seconds: wait.as_secs_f64(),
        },
        real_hosts: part.host_io.as_mut().map(|io| io.finish()),
        flows: std::mem::take(&mut part.flows),
        streams: std::mem::take(&mut part.arrivals.streams),
        stats: std::mem::take(&mut part.stats),
    }
}

/// Placement helper re-exported for callers that build a `Setup` by hand.
pub fn placement(topo: &Topology, threads: usize) -> Placement {
    Placement::by_group(topo, threads)
}
