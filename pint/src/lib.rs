//! PINT: probabilistic in-band network telemetry (Ben Basat et al., SIGCOMM 2020).
//!
//! A fixed budget of a few bits per packet answers three kinds of query:
//! - [`path`]: static per-flow values (path tracing: the switch id of every hop),
//! - [`latency`]: dynamic per-flow values (per-hop latency quantiles),
//! - [`aggregate`]: per-packet aggregates (the bottleneck's utilisation, as HPCC uses it).
//!
//! Each has a per-switch encoder (stateless, decides from seeded hashes of the
//! packet id and its hop number) and a sink-side recorder/inference that replays
//! those decisions from the same configuration.

pub mod aggregate;
pub mod compress;
pub mod error;
pub mod hash;
pub mod latency;
pub mod path;

pub use error::ConfigError;
