//! Forwarding map and collector config as pushed by the controller
//! (docs/protocol/forwarding-map-v1.md), and their compiled, lookup-ready form.

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::detect::PortLoadBoard;

pub type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// `PUT /v1/forwarding` body.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ForwardingMapV1 {
    pub version: u32,
    pub collector: String,
    pub generation: u64,
    pub switches: Vec<SwitchEntry>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SwitchEntry {
    pub switch: String,
    pub rspan_vlan: u16,
    pub mirror_port: u32,
    pub ports: Vec<PortEntry>,
    pub entries: Vec<MacEntry>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PortEntry {
    pub port: u32,
    pub capacity_bps: u64,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct MacEntry {
    pub mac: String,
    pub port: u32,
}

/// `PUT /v1/config` body.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CollectorConfigV1 {
    pub version: u32,
    pub congestion_threshold_pct: f64,
    pub hysteresis_pct: f64,
    pub flow_report_interval_ms: f64,
}

impl CollectorConfigV1 {
    pub fn validate(&self) -> Result<(), String> {
        if self.version != 1 {
            return Err(format!("unsupported version {}", self.version));
        }
        validate_detection(self.congestion_threshold_pct, self.hysteresis_pct)?;
        if !(1.0..=1000.0).contains(&self.flow_report_interval_ms) {
            return Err(format!(
                "flowReportIntervalMs {} out of range 1-1000",
                self.flow_report_interval_ms
            ));
        }
        Ok(())
    }
}

pub fn validate_detection(threshold_pct: f64, hysteresis_pct: f64) -> Result<(), String> {
    if !(threshold_pct > 0.0 && threshold_pct <= 100.0) {
        return Err(format!(
            "congestionThresholdPct {threshold_pct} out of range (0-100]"
        ));
    }
    if !(hysteresis_pct >= 0.0 && hysteresis_pct < threshold_pct) {
        return Err(format!(
            "hysteresisPct {hysteresis_pct} out of range [0-{threshold_pct})"
        ));
    }
    Ok(())
}

pub fn parse_mac(s: &str) -> Result<[u8; 6], String> {
    let mut out = [0u8; 6];
    let mut parts = s.split(':');
    for b in out.iter_mut() {
        let p = parts
            .next()
            .ok_or_else(|| format!("bad MAC address {s:?}"))?;
        if p.len() != 2 {
            return Err(format!("bad MAC address {s:?}"));
        }
        *b = u8::from_str_radix(p, 16).map_err(|_| format!("bad MAC address {s:?}"))?;
    }
    if parts.next().is_some() {
        return Err(format!("bad MAC address {s:?}"));
    }
    Ok(out)
}

pub fn format_mac(m: &[u8; 6]) -> String {
    format!(
        "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
        m[0], m[1], m[2], m[3], m[4], m[5]
    )
}

impl ForwardingMapV1 {
    /// Structural checks; a map that fails changes nothing.
    pub fn validate(&self, expected_collector: Option<&str>) -> Result<(), String> {
        if self.version != 1 {
            return Err(format!("unsupported version {}", self.version));
        }
        if let Some(id) = expected_collector
            && self.collector != id
        {
            return Err(format!(
                "map is for collector {:?}, this is {:?}",
                self.collector, id
            ));
        }
        let mut vlans = std::collections::HashSet::new();
        let mut ids = std::collections::HashSet::new();
        for sw in &self.switches {
            if sw.switch.is_empty() {
                return Err("empty switch id".into());
            }
            if !ids.insert(sw.switch.as_str()) {
                return Err(format!("switch {} listed twice", sw.switch));
            }
            if !(1..=4094).contains(&sw.rspan_vlan) {
                return Err(format!(
                    "switch {}: rspanVlan {} out of range 1-4094",
                    sw.switch, sw.rspan_vlan
                ));
            }
            if !vlans.insert(sw.rspan_vlan) {
                return Err(format!("rspanVlan {} used by two switches", sw.rspan_vlan));
            }
            let mut ports = std::collections::HashSet::new();
            for p in &sw.ports {
                if p.capacity_bps == 0 {
                    return Err(format!(
                        "switch {} port {}: capacityBps must be > 0",
                        sw.switch, p.port
                    ));
                }
                if !ports.insert(p.port) {
                    return Err(format!("switch {} port {} listed twice", sw.switch, p.port));
                }
            }
            let mut macs = std::collections::HashSet::new();
            for e in &sw.entries {
                let mac =
                    parse_mac(&e.mac).map_err(|err| format!("switch {}: {err}", sw.switch))?;
                if !macs.insert(mac) {
                    return Err(format!("switch {}: MAC {} mapped twice", sw.switch, e.mac));
                }
            }
        }
        Ok(())
    }
}

/// Index of a switch; stable for the life of the process so flow keys stay valid
/// across forwarding-map generations.
pub type SwitchIdx = u16;

/// A monitored egress port.
#[derive(Clone, Debug)]
pub struct MonitoredPort {
    pub switch: SwitchIdx,
    pub port: u32,
    /// None: the port appears in entries but not in `ports`, so its load is not judged.
    pub capacity_bps: Option<u64>,
}

/// The forwarding map compiled for the hot path.
#[derive(Debug)]
pub struct CompiledMap {
    pub generation: Option<u64>,
    /// Switch ids by index (append-only across generations).
    pub switch_ids: Vec<Arc<str>>,
    vlan_to_switch: Box<[Option<SwitchIdx>; 4096]>,
    mac_to_port: FastMap<(SwitchIdx, [u8; 6]), u32>,
    pub ports: Vec<MonitoredPort>,
    pub board: PortLoadBoard,
    /// The map as received, served back on GET.
    pub source: Option<ForwardingMapV1>,
}

/// Switch identities known without a forwarding map: the static VLAN map of the config
/// or CLI and the switch of each capture interface.
#[derive(Clone, Debug, Default)]
pub struct StaticSwitches {
    pub vlans: Vec<(u16, String)>,
    pub interface_switches: Vec<String>,
}

impl CompiledMap {
    pub fn build(
        prev: Option<&CompiledMap>,
        map: Option<&ForwardingMapV1>,
        statics: &StaticSwitches,
        workers: usize,
    ) -> Result<CompiledMap, String> {
        let mut switch_ids: Vec<Arc<str>> = prev.map(|p| p.switch_ids.clone()).unwrap_or_default();
        let intern = |id: &str, ids: &mut Vec<Arc<str>>| -> Result<SwitchIdx, String> {
            if let Some(i) = ids.iter().position(|s| &**s == id) {
                return Ok(i as SwitchIdx);
            }
            if ids.len() >= SwitchIdx::MAX as usize {
                return Err("too many switches".into());
            }
            ids.push(Arc::from(id));
            Ok((ids.len() - 1) as SwitchIdx)
        };
        let mut vlan_to_switch: Box<[Option<SwitchIdx>; 4096]> = Box::new([None; 4096]);
        for (vlan, id) in &statics.vlans {
            if !(1..=4094).contains(vlan) {
                return Err(format!("VLAN {vlan} out of range 1-4094"));
            }
            vlan_to_switch[*vlan as usize] = Some(intern(id, &mut switch_ids)?);
        }
        for id in &statics.interface_switches {
            intern(id, &mut switch_ids)?;
        }
        let mut mac_to_port = FastMap::default();
        let mut ports: Vec<MonitoredPort> = Vec::new();
        let mut port_index: FastMap<(SwitchIdx, u32), u32> = FastMap::default();
        if let Some(map) = map {
            map.validate(None)?;
            for sw in &map.switches {
                let s = intern(&sw.switch, &mut switch_ids)?;
                // The controller's VLAN assignment overrides the static one.
                vlan_to_switch[sw.rspan_vlan as usize] = Some(s);
                for p in &sw.ports {
                    port_index.insert((s, p.port), ports.len() as u32);
                    ports.push(MonitoredPort {
                        switch: s,
                        port: p.port,
                        capacity_bps: Some(p.capacity_bps),
                    });
                }
                for e in &sw.entries {
                    let mac = parse_mac(&e.mac)?;
                    let idx = *port_index.entry((s, e.port)).or_insert_with(|| {
                        ports.push(MonitoredPort {
                            switch: s,
                            port: e.port,
                            capacity_bps: None,
                        });
                        (ports.len() - 1) as u32
                    });
                    mac_to_port.insert((s, mac), idx);
                }
            }
        }
        let board = PortLoadBoard::new(ports.len(), workers);
        if let Some(prev) = prev {
            // A port that was congested stays congested until its load says otherwise.
            for (i, p) in ports.iter().enumerate() {
                if let Some(j) = prev
                    .ports
                    .iter()
                    .position(|q| q.switch == p.switch && q.port == p.port)
                {
                    board.set_congested(i, prev.board.is_congested(j));
                }
            }
        }
        Ok(CompiledMap {
            generation: map.map(|m| m.generation),
            switch_ids,
            vlan_to_switch,
            mac_to_port,
            ports,
            board,
            source: map.cloned(),
        })
    }

    #[inline]
    pub fn switch_for_vlan(&self, vlan: u16) -> Option<SwitchIdx> {
        self.vlan_to_switch.get(vlan as usize).copied().flatten()
    }

    pub fn switch_index(&self, id: &str) -> Option<SwitchIdx> {
        self.switch_ids
            .iter()
            .position(|s| &**s == id)
            .map(|i| i as SwitchIdx)
    }

    /// Egress port index for frames to `mac` at `switch`.
    #[inline]
    pub fn port_for(&self, switch: SwitchIdx, mac: &[u8; 6]) -> Option<u32> {
        self.mac_to_port.get(&(switch, *mac)).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub const EXAMPLE: &str = r#"{
      "version": 1, "collector": "c1", "generation": 12,
      "switches": [{
          "switch": "of:0000000000000001", "rspanVlan": 1, "mirrorPort": 5,
          "ports": [{"port": 1, "capacityBps": 10000000000}, {"port": 3, "capacityBps": 10000000000}],
          "entries": [{"mac": "00:00:00:00:00:01", "port": 1}, {"mac": "02:70:00:00:00:09", "port": 3}]
      }]}"#;

    #[test]
    fn example_from_contract_compiles() {
        let m: ForwardingMapV1 = serde_json::from_str(EXAMPLE).unwrap();
        m.validate(Some("c1")).unwrap();
        let c = CompiledMap::build(None, Some(&m), &StaticSwitches::default(), 2).unwrap();
        let s = c.switch_for_vlan(1).unwrap();
        assert_eq!(&*c.switch_ids[s as usize], "of:0000000000000001");
        let p = c.port_for(s, &[2, 0x70, 0, 0, 0, 9]).unwrap();
        assert_eq!(c.ports[p as usize].port, 3);
        assert_eq!(c.ports[p as usize].capacity_bps, Some(10_000_000_000));
        assert!(c.port_for(s, &[2, 0x70, 0, 0, 0, 8]).is_none());
        assert!(c.switch_for_vlan(2).is_none());
    }

    #[test]
    fn invalid_maps_are_rejected_with_reason() {
        let base: ForwardingMapV1 = serde_json::from_str(EXAMPLE).unwrap();
        assert!(base.validate(Some("c2")).unwrap_err().contains("c1"));
        let mut m = base.clone();
        m.switches[0].rspan_vlan = 4095;
        assert!(m.validate(None).unwrap_err().contains("rspanVlan"));
        let mut m = base.clone();
        m.switches[0].entries[0].mac = "00:00:00:00:00".into();
        assert!(m.validate(None).unwrap_err().contains("MAC"));
        let mut m = base.clone();
        m.switches[0].ports[0].capacity_bps = 0;
        assert!(m.validate(None).is_err());
        let mut m = base.clone();
        m.version = 2;
        assert!(m.validate(None).is_err());
        let mut m = base.clone();
        m.switches.push(m.switches[0].clone());
        assert!(m.validate(None).is_err());
        // Missing field: serde refuses.
        assert!(
            serde_json::from_str::<ForwardingMapV1>(
                r#"{"version":1,"collector":"c1","switches":[]}"#
            )
            .is_err()
        );
    }

    #[test]
    fn switch_indices_survive_new_generations() {
        let m: ForwardingMapV1 = serde_json::from_str(EXAMPLE).unwrap();
        let statics = StaticSwitches {
            vlans: vec![(7, "of:00000000000000aa".into())],
            interface_switches: vec![],
        };
        let a = CompiledMap::build(None, None, &statics, 1).unwrap();
        let b = CompiledMap::build(Some(&a), Some(&m), &statics, 1).unwrap();
        assert_eq!(
            a.switch_index("of:00000000000000aa"),
            b.switch_index("of:00000000000000aa")
        );
        assert_eq!(b.switch_ids.len(), 2);
    }

    #[test]
    fn config_ranges() {
        let ok = CollectorConfigV1 {
            version: 1,
            congestion_threshold_pct: 80.0,
            hysteresis_pct: 5.0,
            flow_report_interval_ms: 5.0,
        };
        ok.validate().unwrap();
        assert!(
            CollectorConfigV1 {
                congestion_threshold_pct: 0.0,
                ..ok
            }
            .validate()
            .is_err()
        );
        assert!(
            CollectorConfigV1 {
                congestion_threshold_pct: 101.0,
                ..ok
            }
            .validate()
            .is_err()
        );
        assert!(
            CollectorConfigV1 {
                hysteresis_pct: 80.0,
                ..ok
            }
            .validate()
            .is_err()
        );
        assert!(
            CollectorConfigV1 {
                flow_report_interval_ms: 0.5,
                ..ok
            }
            .validate()
            .is_err()
        );
        assert!(
            CollectorConfigV1 {
                flow_report_interval_ms: 1001.0,
                ..ok
            }
            .validate()
            .is_err()
        );
    }
}
