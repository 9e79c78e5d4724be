//! In-band Network Telemetry: the state and event stage behind the INT decoder
//! (`decode::int`), its metrics, and the thread that receives reports and exports what
//! it finds (InfluxDB through `export::influx`, gauges on /metrics).

pub mod config;
pub mod metrics;
pub mod pint_flows;
pub mod pint_live;
pub mod pint_replay;
pub mod runtime;
pub mod state;
pub mod xdp;
pub mod xdp_filter;
mod flow_key;
mod table;

pub use state::{Cause, EventKind, IntEvent, IntState, IntervalWidths, StateConfig, StateCounters};
