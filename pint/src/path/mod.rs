//! Static per-flow aggregation: path tracing.
pub mod decoder;
pub mod encoder;
pub mod scheme;

pub use decoder::{DecoderLimits, PathDecoder, TraceStatus, Universe};
pub use encoder::{PathEncoder, encode_path};
pub use scheme::{Action, HopSampling, LayerPlan, MAX_HOPS, PathScheme, PathTracingConfig, XorLayer};
