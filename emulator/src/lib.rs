//! planck-emu: a Flexplane-style emulator of data-plane resource-management
//! schemes over abstract packets, one MTU per timeslot.

pub mod clock;
pub mod config;
pub mod endpoint;
pub mod engine;
pub mod experiment;
pub mod fabric;
pub mod lab;
pub mod lag;
pub mod output;
pub mod packet;
pub mod pint_probe;
pub mod pint_stage;
pub mod queue;
pub mod realhost;
pub mod runner;
pub mod scheme;
pub mod stress;
