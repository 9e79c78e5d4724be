//! The fabric model: switches, ports, links and counters. Kept apart from the
//! schemes and the engine so that forwarding tables, mirrors and a control
//! plane can be layered on it.

pub mod counters;
pub mod topology;
