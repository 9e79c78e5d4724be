//! In-band Network Telemetry: the state and event stage behind the INT decoder
//! (`decode::int`), and the process that receives reports and exports what it finds.

pub mod state;

pub use state::{Cause, EventKind, IntEvent, IntState, IntervalWidths, StateConfig, StateCounters};
