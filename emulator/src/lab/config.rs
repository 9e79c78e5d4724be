//! `planck-emu fabric` configuration (TOML).

use std::path::Path;

use serde::Deserialize;

use crate::config::{Mode, TransportConfig};
use crate::fabric::topology::{LinkParams, Topology};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FabricConfig {
    pub fabric: FabricSection,
    #[serde(default)]
    pub control: ControlSection,
    #[serde(default)]
    pub transport: TransportConfig,
    /// PINT path tracing on the fabric's packets (off unless `path_bits` > 0).
    #[serde(default)]
    pub pint: super::pint::PintSection,
    /// INT source/transit/sink switches and their telemetry reports (off unless switches are named).
    #[serde(default)]
    pub int: super::int::IntSection,
    /// Real Linux hosts as the endpoints (docs/realhosts.md#the-lab-with-real-hosts).
    #[serde(default)]
    pub linux_hosts: Option<super::linux_hosts::LinuxHostsSection>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FabricSection {
    /// `fattree:K` or `switch:N` (one non-blocking switch of N host ports).
    pub topology: String,
    pub link_gbps: f64,
    /// Output buffer of every switch port, in packets.
    pub buffer_pkts: u32,
    pub latency_slots: u32,
    /// Only `droptail`: the fabric's queues are FIFO with tail drop.
    pub scheme: String,
    pub mode: Mode,
    pub mtu_bytes: u32,
    /// Real time: busy-wait for the next slot (exact pacing, one core busy)
    /// instead of sleeping.
    pub spin: bool,
    /// Real time without `spin`: the engine sleeps until this many microseconds of
    /// slots are due (or a control request arrives), then runs them back to back. Mirror
    /// and INT frames leave up to this late; rules are in force from the slot their
    /// request arrived in. 0: wait for each slot (sleeps only when more than 60 us ahead,
    /// so at 1 Gb/s it keeps a core busy). Real Linux hosts (`[linux_hosts]`) always wait
    /// for each slot: their frames must not wait for a batch.
    pub batch_us: u32,
    /// SCHED_FIFO priority (1-99) of the engine's thread while it sleeps between batches
    /// (never while it spins or waits slot by slot: a busy real-time thread starves its
    /// core); 0 for normal priority. The lab sets the controller's loop priority: at half
    /// of it the loop was slower and the fabric fell further behind (docs/lab.md).
    pub engine_rt_priority: u8,
}

impl Default for FabricSection {
    fn default() -> Self {
        FabricSection {
            topology: "fattree:4".into(),
            link_gbps: 1.0,
            buffer_pkts: 100,
            latency_slots: 1,
            scheme: "droptail".into(),
            mode: Mode::Realtime,
            mtu_bytes: 1500,
            spin: true,
            batch_us: 200,
            engine_rt_priority: 0,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ControlSection {
    pub listen: String,
    /// SCHED_FIFO priority of the control API's thread (1-99), 0 for normal priority. The
    /// controller's rule batches wait for this thread's answer: at normal priority it queues
    /// behind the busy engine thread and everything else on the machine (the engine's own
    /// priority is `fabric.engine_rt_priority`).
    pub rt_priority: u8,
}

impl Default for ControlSection {
    fn default() -> Self {
        ControlSection {
            listen: "127.0.0.1:9870".into(),
            rt_priority: 0,
        }
    }
}

impl FabricConfig {
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Self::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> anyhow::Result<Self> {
        let c: FabricConfig = toml::from_str(text)?;
        c.validate()?;
        Ok(c)
    }

    pub fn validate(&self) -> anyhow::Result<()> {
        if self.transport.ack_path != crate::config::AckPath::OutOfBand {
            anyhow::bail!(
                "transport.ack_path must be \"out_of_band\" in the lab fabric, got in_band"
            );
        }
        let f = &self.fabric;
        if f.scheme != "droptail" {
            anyhow::bail!("fabric.scheme must be \"droptail\", got {:?}", f.scheme);
        }
        if !(f.link_gbps > 0.0 && f.link_gbps <= 400.0) {
            anyhow::bail!("fabric.link_gbps must be in (0, 400]");
        }
        if f.buffer_pkts == 0 || f.latency_slots == 0 || f.latency_slots > 1000 {
            anyhow::bail!("fabric.buffer_pkts must be >= 1 and latency_slots in 1..=1000");
        }
        if !(128..=9000).contains(&f.mtu_bytes) {
            anyhow::bail!("fabric.mtu_bytes must be in 128..=9000");
        }
        if f.engine_rt_priority > 99 {
            anyhow::bail!(
                "fabric.engine_rt_priority must be 0 (normal) to 99, got {}",
                f.engine_rt_priority
            );
        }
        if f.batch_us > 10_000 {
            anyhow::bail!(
                "fabric.batch_us must be 0 to 10000 (frames leave up to that late), got {}",
                f.batch_us
            );
        }
        if self.control.rt_priority > 99 {
            anyhow::bail!(
                "control.rt_priority must be 0 (normal) to 99, got {}",
                self.control.rt_priority
            );
        }
        self.pint.validate()?;
        self.int.validate()?;
        if let Some(l) = &self.linux_hosts {
            l.validate()?;
            if self.pint.path_bits > 0 {
                anyhow::bail!(
                    "linux_hosts: PINT stamps the fabric's own packets only; turn [pint] off"
                );
            }
            if self.int.enabled() {
                anyhow::bail!(
                    "linux_hosts: INT is carried by the fabric's own packets only; turn [int] off"
                );
            }
        }
        self.topology()?;
        Ok(())
    }

    pub fn topology(&self) -> anyhow::Result<Topology> {
        let f = &self.fabric;
        let link = LinkParams {
            gbps: f.link_gbps,
            buffer_pkts: f.buffer_pkts,
            latency_slots: f.latency_slots,
        };
        let (kind, n) = f
            .topology
            .split_once(':')
            .ok_or_else(|| anyhow::anyhow!("fabric.topology must be fattree:K or switch:N"))?;
        let n: u32 = n
            .parse()
            .map_err(|_| anyhow::anyhow!("fabric.topology: bad number in {:?}", f.topology))?;
        match kind {
            "fattree" | "fat_tree" => Ok(Topology::fat_tree(n, link)?),
            "switch" if (1..=1024).contains(&n) => Ok(Topology::racks(1, n, link, link)?),
            _ => anyhow::bail!(
                "fabric.topology must be fattree:K or switch:N (N in 1..=1024), got {:?}",
                f.topology
            ),
        }
    }

    /// Slot length: one MTU at the link rate.
    pub fn slot_ns(&self) -> f64 {
        self.fabric.mtu_bytes as f64 * 8.0 / self.fabric.link_gbps
    }
}
