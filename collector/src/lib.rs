//! Planck collector: mirrored-sample capture, TCP-sequence throughput estimation and
//! congestion notices. Stages: capture -> decode -> flow -> detect -> export.

pub mod capture;
pub mod config;
pub mod control;
pub mod decode;
pub mod detect;
pub mod export;
pub mod flow;
pub mod forwarding;
pub mod inband;
pub mod metrics;
pub mod pipeline;
pub mod replay;
pub mod runtime;
