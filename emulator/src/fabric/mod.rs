//! The fabric model: switches, ports and links. Kept apart from the schemes
//! and the engine so that forwarding tables, mirrors and a control plane can
//! be layered on it. (Per-port counters are router state: `scheme::counters`.)

pub mod topology;
