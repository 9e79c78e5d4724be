//! Runs partitions on worker threads (Flexplane §4): each worker owns the
//! routers of some racks or pods with their endpoints, pinned to a core;
//! packets between workers travel in batches over bounded lock-free
//! single-producer single-consumer rings (one per sender, receiver and delay,
//! see `Placement::exchanges`; indices on separate cache lines, one
//! publication per batch), and the receiver takes each packet from its ring
//! in the slot it falls due. Workers do not synchronise per timeslot: each
//! runs ahead on its own and looks at progress only when it has reached its
//! allowance past one of the workers that send to it, as last seen: a
//! sender's lookahead (the smallest delay of its rings into this worker)
//! plus `skew_slots`. Workers that send nothing to it are never looked at
//! (Flexplane: a worker waits only for the partitions that send to it), so
//! what a look costs grows with its senders, not with the workers. With `skew_slots = 0`
//! no packet ever arrives after its due slot and runs are repeatable; with
//! more (Flexplane's loose synchronisation) late packets are delivered at
//! once and counted.
//! The calling thread only spawns the workers and blocks joining them.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex, OnceLock};
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
/// A thread none of whose own workers may run on for this long runs other
/// threads' runnable workers: a peer on its core is a few microseconds
/// (one batch) away, one off its core a scheduler time slice.
const STEAL_AFTER: Duration = Duration::from_micros(10);

/// Lets a worker that published progress wake threads parked waiting for it
/// (indexed by OS thread, which may run several workers).
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
    /// Wake every parked thread (the caller's own is running, so not parked).
    fn wake_parked(&self) {
        for (w, t) in self.waiting.iter().zip(&self.threads) {
            if w.load(Ordering::Relaxed)
                && let Some(t) = t.get()
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
    /// OS threads to run the workers on; 0: one per worker, up to the cores
    /// the run may use (see `os_threads`).
    pub os_threads: usize,
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

pub use crate::lag::Lag;

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
    /// Times the worker looked at its senders' progress (on reaching its
    /// allowance, and before parking).
    pub progress_looks: u64,
    /// Progress lines loaded in those looks: one per sender per look.
    pub progress_loads: u64,
}

pub struct RunOutput {
    pub parts: Vec<PartitionReport>,
    pub wall: Duration,
    pub threads: usize,
    /// OS threads that ran the workers.
    pub os_threads: usize,
    /// CPU time those threads got during the emulation (all of them): in
    /// real time a worker spins, so a share of a core well below 1 means the
    /// machine gave it less (a busy machine), not that it had nothing to do.
    pub cpu_seconds: f64,
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
    let cores = if setup.pin_threads {
        core_affinity::get_core_ids().unwrap_or_default()
    } else {
        Vec::new()
    };
    let nthreads = match setup.os_threads {
        0 => os_threads(nparts, &cores),
        n => n.min(nparts),
    };
    let sync = WorkerSync::new(nthreads);
    let run_start = Instant::now();
    let ready = Barrier::new(nthreads);
    let start = OnceLock::new();
    let finished = AtomicUsize::new(0);
    let cpu_ns = AtomicU64::new(0);
    let crew = Crew {
        progress: &progress,
        sync: &sync,
        stop,
        setup,
        ready: &ready,
        start: &start,
        finished: &finished,
        cpu_ns: &cpu_ns,
    };
    // Every partition in a slot of its own; each thread builds its own
    // block (memory is first touched by the core that will use it).
    let pool: Vec<Mutex<Option<Worker<R>>>> = (0..nparts).map(|_| Mutex::new(None)).collect();
    let block = |t: usize| (t * nparts / nthreads)..((t + 1) * nparts / nthreads);
    let build_worker = |i: usize, tx: Vec<Producer<Transfer>>, rx: Vec<Consumer<Transfer>>| {
        let mut p = Partition::new(i, &setup.topo, setup.shared.clone(), &setup.plan, build);
        if !rx.is_empty() {
            p.attach_inbound(rx);
        }
        p.host_io = setup.take_host_io(i);
        *pool[i].lock().expect("pool") = Some(Worker::new(p, tx, setup, nparts));
    };
    if nparts == 1 {
        build_worker(0, Vec::new(), Vec::new());
        thread_main(&pool, block(0), 0, &crew);
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
        let mut ends: Vec<Option<RingEnds>> =
            producers.into_iter().zip(consumers).map(Some).collect();
        std::thread::scope(|s| {
            for t in 0..nthreads {
                let mine: Vec<_> = block(t)
                    .map(|i| {
                        (
                            i,
                            ends[i].take().expect("one ring row and column per worker"),
                        )
                    })
                    .collect();
                let core = if cores.is_empty() {
                    None
                } else {
                    Some(cores[t % cores.len()])
                };
                let (crew, pool, build_worker) = (&crew, &pool, &build_worker);
                s.spawn(move || {
                    let _ = crew.sync.threads[t].set(std::thread::current());
                    if let Some(c) = core {
                        core_affinity::set_for_current(c);
                    }
                    for (i, (tx, rx)) in mine {
                        build_worker(i, tx, rx);
                    }
                    thread_main(pool, block(t), t, crew);
                });
            }
        });
    }
    let start = *crew.start.get().expect("the run started");
    let parts = pool
        .into_iter()
        .map(|w| {
            w.into_inner()
                .expect("emulation worker panicked")
                .expect("every worker built")
                .report(&crew, start)
        })
        .collect();
    RunOutput {
        parts,
        wall: run_start.elapsed(),
        threads: nparts,
        os_threads: nthreads,
        cpu_seconds: cpu_ns.load(Ordering::Relaxed) as f64 * 1e-9,
    }
}

/// OS threads for `nparts` workers: one each, but never more than the cores
/// the run may use. A worker waiting for a peer that has no core of its own
/// waits for the scheduler (a time slice, milliseconds) at every meeting,
/// and exact workers meet every few slots; so surplus workers share a
/// thread, which runs each of its partitions in turn, a batch at a time.
fn os_threads(nparts: usize, pinned: &[core_affinity::CoreId]) -> usize {
    let cores = if pinned.is_empty() {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        pinned.len()
    };
    nparts.min(cores).max(1)
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

/// A worker's outbound and inbound rings.
type RingEnds = (Vec<Producer<Transfer>>, Vec<Consumer<Transfer>>);

/// What all workers of one run share.
struct Crew<'a> {
    progress: &'a [CachePadded<AtomicU64>],
    sync: &'a WorkerSync,
    stop: &'a Stop,
    setup: &'a Setup,
    /// Every thread has built its partitions: the emulation starts.
    ready: &'a Barrier,
    /// When it started (slot 0 of real-time pacing).
    start: &'a OnceLock<Instant>,
    /// Workers that reached their last slot.
    finished: &'a AtomicUsize,
    /// CPU time the threads spent from the start to the end, nanoseconds.
    cpu_ns: &'a AtomicU64,
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

/// One partition and its place in the run.
struct Worker<R: Router> {
    part: Partition<R>,
    tx: Vec<Producer<Transfer>>,
    /// The workers that send to this one, each with how far past it this
    /// one may run: the sender's lookahead plus the loose skew.
    senders: Vec<(usize, u64)>,
    batch_slots: u64,
    /// Looks at the senders' progress, and progress lines loaded.
    looks: std::cell::Cell<(u64, u64)>,
    /// The slot this worker may run up to, as of its last look at the
    /// others' progress: it looks again only on reaching it.
    allowed: Slot,
    /// Not allowed on since then (the wait is counted when it runs again).
    blocked_since: Option<Instant>,
    wait: Duration,
    lag: crate::lag::LagHistogram,
    done: bool,
    /// Emulation time at its last slot.
    finished: Option<Duration>,
}

/// What one turn of a worker did.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Turn {
    Ran,
    Blocked,
    Done,
}

impl<R: Router> Worker<R> {
    fn new(part: Partition<R>, tx: Vec<Producer<Transfer>>, setup: &Setup, nparts: usize) -> Self {
        // Workers never run more than a sender's lookahead (+ the configured
        // loose skew) slots ahead of that sender. With no extra skew this is
        // exact: every packet from another worker is in hand before its due slot.
        let allow = |lookahead: u64| lookahead.saturating_add(setup.skew_slots).max(1);
        let senders: Vec<(usize, u64)> = part
            .senders
            .iter()
            .map(|&(j, lookahead)| (j as usize, allow(lookahead)))
            .collect();
        // Progress is published once per batch. A batch longer than half an
        // allowance would hold a peer that is that allowance behind waiting
        // for this batch to end, and the two would take turns instead of
        // running side by side: keep batches within half of the allowances
        // of this worker past its senders and of its receivers past it.
        let meet = senders
            .iter()
            .map(|&(_, a)| a)
            .chain(std::iter::once(allow(part.out_lookahead)))
            .min()
            .unwrap_or(u64::MAX);
        let batch_slots = if nparts > 1 {
            setup.batch_slots.min((meet / 2).max(1))
        } else {
            setup.batch_slots
        };
        Worker {
            part,
            tx,
            senders,
            batch_slots,
            looks: std::cell::Cell::new((0, 0)),
            allowed: 0,
            blocked_since: None,
            wait: Duration::ZERO,
            lag: Default::default(),
            done: false,
            finished: None,
        }
    }

    /// How far the others' progress lets this worker run (`order`: SeqCst
    /// for the look just before parking, see `thread_main`).
    fn limit(&self, crew: &Crew, order: Ordering) -> Slot {
        let (looks, loads) = self.looks.get();
        self.looks
            .set((looks + 1, loads + self.senders.len() as u64));
        allowed_by(crew.progress, &self.senders, crew.stop.end(), order)
    }

    /// Run one batch if the others' progress allows it.
    fn turn(&mut self, crew: &Crew) -> Turn {
        if self.done {
            return Turn::Done;
        }
        let end = crew.stop.end();
        let stopped = matches!(crew.stop, Stop::Flag(f, _) if f.load(Ordering::Relaxed));
        if self.part.now >= end || stopped {
            self.done = true;
            crew.progress[self.part.index].store(u64::MAX, Ordering::SeqCst);
            crew.sync.wake_parked();
            return Turn::Done;
        }
        if self.part.now >= self.allowed {
            self.allowed = self.limit(crew, Ordering::Acquire);
            // Everything the others sent before publishing that progress is now in the rings.
            self.part.refresh_inbound();
            if self.part.now >= self.allowed {
                self.blocked_since.get_or_insert_with(Instant::now);
                return Turn::Blocked;
            }
        } else if crew.setup.skew_slots > 0 {
            // Loose: a peer behind sends packets that are due already or
            // soon; take them as soon as they are published, not at the next
            // look at progress (up to the whole allowance later).
            self.part.refresh_inbound();
        }
        if let Some(b) = self.blocked_since.take() {
            self.wait += b.elapsed();
        }
        let part = &mut self.part;
        let batch_end = (part.now + self.batch_slots).min(self.allowed);
        while part.now + 1 < batch_end {
            part.step();
        }
        // The batch's last slot up to its last packet for another worker:
        // the rest of the slot does not hold up peers waiting for it.
        part.step_sends();
        for (k, ring) in self.tx.iter_mut().enumerate() {
            if !part.outbox.boxes[k].is_empty() {
                self.wait += flush(part, k, ring);
            }
        }
        // Publish progress only after the batch's packets are in the rings.
        // A release store: a sequentially consistent one would also wait for
        // every store of the batch to drain. Without it the waiting flag may
        // be read before the progress is visible, and a peer that has just
        // gone to sleep then sleeps out its timeout (it sleeps only after
        // waiting far longer than that).
        crew.progress[part.index].store(batch_end, Ordering::Release);
        crew.sync.wake_parked();
        part.step_rest();
        debug_assert_eq!(part.now, batch_end);
        if crew.setup.mode == Mode::Realtime {
            self.pace(crew);
        }
        Turn::Ran
    }

    fn pace(&mut self, crew: &Crew) {
        let start = *crew.start.get().expect("set before the first turn");
        let target = Duration::from_nanos((self.part.now as f64 * crew.setup.slot_ns) as u64);
        let elapsed = start.elapsed();
        if elapsed < target {
            let ahead = target - elapsed;
            if ahead > Duration::from_micros(200) {
                std::thread::sleep(ahead - Duration::from_micros(100));
            }
            while start.elapsed() < target {
                std::hint::spin_loop();
            }
            self.lag.record(0.0);
        } else {
            self.lag.record((elapsed - target).as_secs_f64() * 1e6);
        }
    }

    fn report(mut self, crew: &Crew, start: Instant) -> PartitionReport {
        let part = &mut self.part;
        let realtime = crew.setup.mode == Mode::Realtime;
        PartitionReport {
            router_ids: part.router_ids.clone(),
            counters: part.routers.iter().map(|r| r.counters().to_vec()).collect(),
            slots: part.now,
            lag: realtime.then(|| self.lag.summary()),
            load: WorkerLoad {
                router_packets: part.stats.router_packets,
                seconds: self
                    .finished
                    .unwrap_or_else(|| start.elapsed())
                    .as_secs_f64(),
                wait_seconds: self.wait.as_secs_f64(),
                progress_looks: self.looks.get().0,
                progress_loads: self.looks.get().1,
            },
            real_hosts: part.host_io.as_mut().map(|io| io.finish()),
            flows: std::mem::take(&mut part.flows),
            streams: std::mem::take(&mut part.arrivals.streams),
            stats: std::mem::take(&mut part.stats),
        }
    }
}

/// The slot up to which a worker may run: `allowance` past each of its
/// `senders`' published progress, and no further than `end`. Only senders
/// are loaded: a worker that sends nothing to this one cannot hold it up.
fn allowed_by(
    progress: &[CachePadded<AtomicU64>],
    senders: &[(usize, u64)],
    end: Slot,
    order: Ordering,
) -> Slot {
    senders
        .iter()
        .map(|&(j, allowance)| progress[j].load(order).saturating_add(allowance))
        .fold(end, Slot::min)
}

/// One OS thread. It runs its own block of workers in turn, a batch each;
/// when none of them may run on for longer than a peer normally takes
/// (`STEAL_AFTER`), the peer's thread is likely off its core (more workers
/// than free cores, or a busy machine), and it runs any other worker that
/// may run on and that no thread holds. So a run never waits for the
/// scheduler to bring a thread back, and more workers than cores cost
/// only the turns, not the time slices. When nothing at all may run on,
/// it spins, then yields its core, then parks until a peer publishes.
fn thread_main<R: Router>(
    pool: &[Mutex<Option<Worker<R>>>],
    own: std::ops::Range<usize>,
    me: usize,
    crew: &Crew,
) {
    // Building a partition (tables, queues, generators) takes different
    // times on different workers; start together so that no worker counts a
    // peer's construction as waiting, and time only the emulation.
    crew.ready.wait();
    let start = *crew.start.get_or_init(Instant::now);
    let cpu_start = thread_cpu();
    let n = pool.len();
    let mut idle_since: Option<Instant> = None;
    let mut polls = 0u32;
    // Run worker k if it is free and not done: Some(true) if it ran a batch.
    let try_turn = |k: usize| -> Option<bool> {
        let mut guard = pool[k].try_lock().ok()?;
        let w = guard.as_mut()?;
        if w.done {
            return None;
        }
        match w.turn(crew) {
            Turn::Ran => Some(true),
            Turn::Blocked => Some(false),
            Turn::Done => {
                w.finished = Some(start.elapsed());
                crew.finished.fetch_add(1, Ordering::AcqRel);
                Some(true)
            }
        }
    };
    while crew.finished.load(Ordering::Acquire) < n {
        let mut ran = false;
        for k in own.clone() {
            ran |= try_turn(k) == Some(true);
        }
        let stealing = idle_since.is_some_and(|t| polls > 0 && t.elapsed() >= STEAL_AFTER);
        if !ran && stealing {
            for k in (own.end..n).chain(0..own.start) {
                ran |= try_turn(k) == Some(true);
            }
        }
        if ran {
            idle_since = None;
            polls = 0;
            continue;
        }
        // Nothing this thread may run: wait for the others.
        polls = polls.wrapping_add(1);
        // Reading the clock costs more than a poll: look at it now and then.
        let since = if polls == 1 {
            idle_since = Some(Instant::now());
            Duration::ZERO
        } else if polls.is_multiple_of(16) {
            idle_since.map_or(Duration::ZERO, |w| w.elapsed())
        } else {
            Duration::ZERO
        };
        if since < SPIN_WAIT {
            std::hint::spin_loop();
        } else if since < YIELD_WAIT {
            // The peer may be waiting for this very core (busy machine).
            std::thread::yield_now();
        } else {
            // Sleep until a peer publishes progress. The timeout bounds a
            // wake-up that raced with the flag.
            crew.sync.waiting[me].store(true, Ordering::SeqCst);
            let runnable = (0..n).any(|k| {
                pool[k].try_lock().ok().is_some_and(|g| {
                    g.as_ref()
                        .is_some_and(|w| !w.done && w.part.now < w.limit(crew, Ordering::SeqCst))
                })
            });
            if !runnable && crew.finished.load(Ordering::SeqCst) < n {
                std::thread::park_timeout(Duration::from_micros(200));
            }
            crew.sync.waiting[me].store(false, Ordering::SeqCst);
        }
    }
    crew.cpu_ns.fetch_add(
        (thread_cpu() - cpu_start).as_nanos() as u64,
        Ordering::Relaxed,
    );
}

/// Placement helper re-exported for callers that build a `Setup` by hand.
pub fn placement(topo: &Topology, threads: usize) -> Placement {
    Placement::by_group(topo, threads)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(slots: &[u64]) -> Vec<CachePadded<AtomicU64>> {
        slots
            .iter()
            .map(|&s| CachePadded::new(AtomicU64::new(s)))
            .collect()
    }

    /// A worker runs up to each sender's allowance past that sender and is
    /// never held by a worker that sends nothing to it, however far behind.
    #[test]
    fn only_senders_hold_a_worker_back() {
        // Worker 1 receives from 0 only; worker 2 is stuck at slot 0.
        let p = progress(&[50, 10, 0]);
        let o = Ordering::Acquire;
        assert_eq!(allowed_by(&p, &[(0, 4)], 1000, o), 54);
        // With 2 as a sender too, it would be held at 2's progress + 4.
        assert_eq!(allowed_by(&p, &[(0, 4), (2, 4)], 1000, o), 4);
        // Per-sender allowances: the tightest one decides.
        assert_eq!(allowed_by(&p, &[(0, 4), (2, 60)], 1000, o), 54);
        assert_eq!(allowed_by(&p, &[(0, 40), (2, 60)], 1000, o), 60);
        // No senders: run to the end. A finished sender (u64::MAX) holds nothing.
        assert_eq!(allowed_by(&p, &[], 1000, o), 1000);
        let done = progress(&[u64::MAX, 0]);
        assert_eq!(allowed_by(&done, &[(0, 4)], 1000, o), 1000);
        assert_eq!(allowed_by(&p, &[(0, 4)], 30, o), 30);
    }
}
