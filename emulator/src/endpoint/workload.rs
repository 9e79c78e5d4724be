//! Workload plans: which flows and packet streams each endpoint originates.

use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp};

use super::sizes::{DATA_MINING_CDF, SizeDistribution, WEB_SEARCH_CDF, packets_for};
use crate::config::{ArrivalProcess, Destination, FlowSizes, SizeDistName, Workload};
use crate::packet::{EndpointId, Slot};

/// A flow with a known start time.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowArrival {
    pub start: Slot,
    pub src: EndpointId,
    pub dst: EndpointId,
    pub size: u32,
    pub class: u32,
}

/// Poisson flow arrivals at one endpoint.
#[derive(Clone, Debug)]
pub struct PoissonFlows {
    pub src: EndpointId,
    /// Next arrival, in (fractional) slots.
    pub next: f64,
    pub stop: Slot,
    pub class: u32,
    pub gap: Exp<f64>,
    pub sizes: Arc<SizeDistribution>,
    pub rng: SmallRng,
}

/// Open-loop packet stream from one source.
#[derive(Clone, Debug)]
pub struct OpenLoopStream {
    pub src: EndpointId,
    /// None: a uniformly random other endpoint per packet.
    pub dst: Option<EndpointId>,
    pub class: u32,
    pub process: ArrivalProcess,
    /// Packets per slot.
    pub rate: f64,
    /// 1 / rate: multiplying is cheaper than dividing on every arrival.
    pub mean_gap: f64,
    pub next: f64,
    pub rng: SmallRng,
    pub sent: u64,
    pub nic_dropped: u64,
    pub seq: u32,
    /// Global flow id, assigned when the stream is placed on a partition.
    pub flow: u32,
    /// Poisson streams at `PER_SLOT_RATES`: thresholds for a slot's
    /// arrival count (see `poisson_count_thresholds`).
    pub per_slot: Option<Arc<[u64]>>,
}

impl OpenLoopStream {
    #[inline]
    pub fn gap(&mut self) -> f64 {
        match self.process {
            ArrivalProcess::Constant => self.mean_gap,
            // Ziggurat exponential: no logarithm on the common path.
            ArrivalProcess::Poisson => self.rng.sample::<f64, _>(rand_distr::Exp1) * self.mean_gap,
        }
    }
}

/// Everything the endpoints will originate during a run.
#[derive(Clone, Debug, Default)]
pub struct WorkloadPlan {
    /// Flows with fixed start times, sorted by start.
    pub scheduled: Vec<FlowArrival>,
    /// Shuffle: per source, the flows it sends one after another.
    pub sequential: Vec<(EndpointId, Vec<FlowArrival>)>,
    pub poisson: Vec<PoissonFlows>,
    pub open_loop: Vec<OpenLoopStream>,
}

pub struct PlanContext {
    pub endpoints: usize,
    pub slot_ns: f64,
    pub payload_bytes: u32,
    pub slots: Slot,
    pub seed: u64,
    /// Host link rate as a fraction of the base rate, per endpoint.
    pub host_rate: Vec<f64>,
}

/// Random other endpoint.
#[inline]
pub fn other_endpoint<R: Rng>(rng: &mut R, n: usize, src: EndpointId) -> EndpointId {
    other_endpoint_from(rng.next_u32(), n, src)
}

/// The other endpoint that 32 uniform random bits pick.
#[inline]
pub fn other_endpoint_from(bits: u32, n: usize, src: EndpointId) -> EndpointId {
    // Multiply-shift range reduction (bias below n / 2^32).
    let d = ((bits as u64 * (n as u64 - 1)) >> 32) as EndpointId;
    if d >= src { d + 1 } else { d }
}

/// Poisson streams with rates in this range (packets per slot) draw each
/// slot's arrival count at once: one draw per slot instead of an exponential
/// gap per packet. Slower streams keep the gaps (most slots have none);
/// faster ones would need long tables.
pub const PER_SLOT_RATES: std::ops::RangeInclusive<f64> = 0.25..=8.0;

/// Thresholds on a 32-bit uniform for the number of Poisson(`rate`)
/// arrivals in one slot: the count is the first k with u < t[k]; entry k is
/// P(N <= k) * 2^32, and the last entry is 2^32 (the tail beyond it is below
/// 2^-32 in all).
pub fn poisson_count_thresholds(rate: f64) -> Arc<[u64]> {
    let full = (1u64 << 32) as f64;
    let mut t = Vec::new();
    let (mut p, mut cdf) = ((-rate).exp(), 0.0);
    for k in 1.. {
        cdf += p;
        let th = (cdf * full).floor() as u64;
        if th >= 1 << 32 || (1.0 - cdf) * full < 1.0 {
            break;
        }
        t.push(th);
        p *= rate / k as f64;
    }
    t.push(1 << 32);
    t.into()
}

fn us_to_slot(us: f64, slot_ns: f64) -> Slot {
    (us.max(0.0) * 1000.0 / slot_ns).round() as Slot
}

impl WorkloadPlan {
    pub fn build(workloads: &[Workload], ctx: &PlanContext) -> Result<Self, String> {
        let mut plan = WorkloadPlan::default();
        let n = ctx.endpoints;
        let mut rng = SmallRng::seed_from_u64(ctx.seed ^ 0x00c0_ffee);
        for (wi, w) in workloads.iter().enumerate() {
            let wseed = ctx
                .seed
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                .wrapping_add(wi as u64 * 7919);
            match w {
                Workload::Poisson {
                    load,
                    sizes,
                    start_us,
                    stop_us,
                    class,
                } => {
                    let dist = Arc::new(match sizes {
                        FlowSizes::Named(SizeDistName::WebSearch) => {
                            SizeDistribution::parse(WEB_SEARCH_CDF)?
                        }
                        FlowSizes::Named(SizeDistName::DataMining) => {
                            SizeDistribution::parse(DATA_MINING_CDF)?
                        }
                        FlowSizes::File { cdf_file } => {
                            let t = std::fs::read_to_string(cdf_file).map_err(|e| {
                                format!("cannot read cdf file {}: {e}", cdf_file.display())
                            })?;
                            SizeDistribution::parse(&t)
                                .map_err(|e| format!("{}: {e}", cdf_file.display()))?
                        }
                    });
                    let mean_pkts = (dist.mean_bytes() / ctx.payload_bytes as f64).max(1.0);
                    let start = us_to_slot(*start_us, ctx.slot_ns) as f64;
                    let stop = stop_us
                        .map(|s| us_to_slot(s, ctx.slot_ns))
                        .unwrap_or(ctx.slots);
                    for src in 0..n {
                        let rate = load * ctx.host_rate[src] / mean_pkts;
                        let gap = Exp::new(rate).map_err(|e| format!("poisson rate: {e}"))?;
                        let mut r = SmallRng::seed_from_u64(
                            wseed ^ (src as u64).wrapping_mul(0x2545_F491_4F6C_DD1D),
                        );
                        let next = start + gap.sample(&mut r);
                        plan.poisson.push(PoissonFlows {
                            src: src as EndpointId,
                            next,
                            stop,
                            class: *class,
                            gap,
                            sizes: dist.clone(),
                            rng: r,
                        });
                    }
                }
                Workload::Stride {
                    k,
                    flow_bytes,
                    start_us,
                } => {
                    let size = packets_for(*flow_bytes as f64, ctx.payload_bytes);
                    let start = us_to_slot(*start_us, ctx.slot_ns);
                    for s in 0..n {
                        let d = (s + *k as usize) % n;
                        plan.scheduled.push(FlowArrival {
                            start,
                            src: s as EndpointId,
                            dst: d as EndpointId,
                            size,
                            class: 0,
                        });
                    }
                }
                Workload::Random {
                    flow_bytes,
                    start_us,
                } => {
                    let size = packets_for(*flow_bytes as f64, ctx.payload_bytes);
                    let start = us_to_slot(*start_us, ctx.slot_ns);
                    for s in 0..n {
                        let d = other_endpoint(&mut rng, n, s as EndpointId);
                        plan.scheduled.push(FlowArrival {
                            start,
                            src: s as EndpointId,
                            dst: d,
                            size,
                            class: 0,
                        });
                    }
                }
                Workload::RandomBijection {
                    flow_bytes,
                    start_us,
                } => {
                    let size = packets_for(*flow_bytes as f64, ctx.payload_bytes);
                    let start = us_to_slot(*start_us, ctx.slot_ns);
                    let perm = derangement(&mut rng, n);
                    for (s, &d) in perm.iter().enumerate() {
                        plan.scheduled.push(FlowArrival {
                            start,
                            src: s as EndpointId,
                            dst: d as EndpointId,
                            size,
                            class: 0,
                        });
                    }
                }
                Workload::Shuffle {
                    flow_bytes,
                    start_us,
                } => {
                    let size = packets_for(*flow_bytes as f64, ctx.payload_bytes);
                    let start = us_to_slot(*start_us, ctx.slot_ns);
                    for s in 0..n {
                        let mut dsts: Vec<usize> = (0..n).filter(|&d| d != s).collect();
                        dsts.shuffle(&mut rng);
                        let flows = dsts
                            .into_iter()
                            .map(|d| FlowArrival {
                                start,
                                src: s as EndpointId,
                                dst: d as EndpointId,
                                size,
                                class: 0,
                            })
                            .collect();
                        plan.sequential.push((s as EndpointId, flows));
                    }
                }
                Workload::Flows { flows } => {
                    for f in flows {
                        plan.scheduled.push(FlowArrival {
                            start: us_to_slot(f.start_us, ctx.slot_ns),
                            src: f.src,
                            dst: f.dst,
                            size: packets_for(f.bytes as f64, ctx.payload_bytes),
                            class: f.class,
                        });
                    }
                }
                Workload::OpenLoop {
                    sources,
                    destination,
                    rate,
                    process,
                    class,
                } => {
                    for &src in sources {
                        let mut r = SmallRng::seed_from_u64(
                            wseed ^ (src as u64).wrapping_mul(0x2545_F491_4F6C_DD1D),
                        );
                        let mut s = OpenLoopStream {
                            src,
                            dst: match destination {
                                Destination::Endpoint(d) => Some(*d),
                                Destination::Random(_) => None,
                            },
                            class: *class,
                            process: *process,
                            rate: *rate,
                            mean_gap: 1.0 / rate,
                            next: 0.0,
                            rng: SmallRng::seed_from_u64(0),
                            sent: 0,
                            nic_dropped: 0,
                            seq: 0,
                            flow: 0,
                            per_slot: (*process == ArrivalProcess::Poisson
                                && PER_SLOT_RATES.contains(rate))
                            .then(|| poisson_count_thresholds(*rate)),
                        };
                        s.rng = SmallRng::seed_from_u64(r.r#gen());
                        s.next = match process {
                            ArrivalProcess::Constant => r.r#gen::<f64>() / rate,
                            ArrivalProcess::Poisson => s.gap(),
                        };
                        plan.open_loop.push(s);
                    }
                }
            }
        }
        plan.scheduled.sort_by_key(|f| f.start);
        Ok(plan)
    }
}

/// Uniform random permutation without fixed points (rejection sampling).
pub fn derangement<R: Rng>(rng: &mut R, n: usize) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    loop {
        p.shuffle(rng);
        if p.iter().enumerate().all(|(i, &d)| i != d) {
            return p;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    #[test]
    fn per_slot_counts_follow_the_poisson_distribution() {
        for rate in [0.25, 1.0, 3.0, 8.0] {
            let t = poisson_count_thresholds(rate);
            assert_eq!(*t.last().unwrap(), 1 << 32);
            assert!(t.windows(2).all(|w| w[0] <= w[1]));
            // P(N = k) from the thresholds against the formula.
            let mut prev = 0u64;
            let mut p = (-rate).exp();
            for (k, &th) in t.iter().enumerate().take(t.len() - 1) {
                let got = (th - prev) as f64 / (1u64 << 32) as f64;
                assert!(
                    (got - p).abs() < 1e-9,
                    "rate {rate}, P(N = {k}): {got} vs {p}"
                );
                prev = th;
                p *= rate / (k + 1) as f64;
            }
            // Sampled mean.
            let mut rng = SmallRng::seed_from_u64(7);
            let draws = 200_000;
            let total: usize = (0..draws)
                .map(|_| {
                    let u = rng.next_u32() as u64;
                    t.iter().position(|&th| u < th).unwrap()
                })
                .sum();
            let mean = total as f64 / draws as f64;
            let sigma = (rate / draws as f64).sqrt();
            assert!(
                (mean - rate).abs() < 5.0 * sigma,
                "rate {rate}: mean {mean}"
            );
        }
    }

    fn ctx(n: usize) -> PlanContext {
        PlanContext {
            endpoints: n,
            slot_ns: 1200.0,
            payload_bytes: 1460,
            slots: 10_000,
            seed: 3,
            host_rate: vec![1.0; n],
        }
    }

    #[test]
    fn planck_patterns() {
        let w = vec![
            Workload::Stride {
                k: 8,
                flow_bytes: 1460 * 10,
                start_us: 0.0,
            },
            Workload::RandomBijection {
                flow_bytes: 1460,
                start_us: 12.0,
            },
            Workload::Shuffle {
                flow_bytes: 1460,
                start_us: 0.0,
            },
        ];
        let p = WorkloadPlan::build(&w, &ctx(16)).unwrap();
        let stride: Vec<_> = p.scheduled.iter().filter(|f| f.size == 10).collect();
        assert_eq!(stride.len(), 16);
        assert!(
            stride
                .iter()
                .all(|f| f.dst as usize == (f.src as usize + 8) % 16)
        );
        let bij: Vec<_> = p.scheduled.iter().filter(|f| f.size == 1).collect();
        assert_eq!(bij.len(), 16);
        assert!(bij.iter().all(|f| f.src != f.dst && f.start == 10));
        let mut dsts: Vec<_> = bij.iter().map(|f| f.dst).collect();
        dsts.sort();
        dsts.dedup();
        assert_eq!(dsts.len(), 16, "bijection hits every endpoint once");
        assert_eq!(p.sequential.len(), 16);
        assert!(
            p.sequential
                .iter()
                .all(|(s, fl)| fl.len() == 15 && fl.iter().all(|f| f.dst != *s))
        );
    }
}
