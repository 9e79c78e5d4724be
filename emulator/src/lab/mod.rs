//! The emulator as the Planck lab fabric: shadow-MAC rule tables per switch,
//! oversubscribed mirror ports emitting real frames, and the HTTP/JSON control
//! API of docs/protocol/emulator-control-v1.md.

pub mod addr;
pub mod api;
pub mod config;
pub mod engine;
pub mod frames;
pub mod int;
pub mod int_report;
pub mod linux_hosts;
pub mod pint;
pub mod rules;

pub use api::{RunningFabric, start};
pub use config::FabricConfig;
