//! One partition of the emulated network: the routers and endpoints that one
//! worker thread owns, the links between them, and the timeslot loop.
//!
//! Each timeslot: packets due this slot are delivered (routers route, classify
//! and enqueue them; endpoints consume data and ACKs); every router port sends
//! as many packets as its link rate allows this slot; endpoints start flows,
//! fire timers and send on their uplinks; queues are sampled. A packet sent
//! in slot t on a link with latency L is delivered in slot t + L (L >= 1), so a
//! packet crosses at most one hop per slot.
//!
//! ACKs do not occupy links by default: they are delivered to the sender
//! `ack_delay_slots` after the data packet reached the receiver, carrying the
//! cumulative ACK and the CE echo. With `transport.ack_path = "in_band"` they
//! are packets of `ack_bytes` on the reverse path, and links price every
//! frame by its length.
//!
//! The rooms: `placement` decides which partition emulates each switch port
//! and endpoint; `exchange` carries packets from a sender to their due slot
//! (the calendar of local deliveries, wires, split switches, outboxes, and
//! the inbound rings from other partitions); `arrivals` starts flows and
//! generates traffic (scheduled, sequential and Poisson flows, open-loop
//! streams); `partition` holds the partition, builds it and runs its slot;
//! `tests` checks placement, rings and runs on two workers against one.

mod arrivals;
mod exchange;
mod order;
mod partition;
mod placement;
#[cfg(test)]
mod tests;

pub use arrivals::{Arrivals, STREAM_FLOW_BIT};
pub use exchange::{Outbox, PackedTarget, Target, Transfer};
pub use partition::{HostIo, Partition, PartitionStats, QueueSample, Shared, mark_ready};
pub use placement::{NO_ROUTER, Placement};
