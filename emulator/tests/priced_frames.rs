//! Links that price real hosts' frames by length (`real_hosts.frame_time`):
//! the engine carries frames from a stand-in for the veth I/O (no namespaces
//! needed), and the slots they arrive in show what each frame cost.

use std::sync::{Arc, Mutex};

use planck_emu::config::Config;
use planck_emu::endpoint::EndpointState;
use planck_emu::engine::{HostIo, mark_ready};
use planck_emu::experiment::{setup, with_scheme};
use planck_emu::packet::{OPEN_LOOP, Packet, Slot, WIRE_LEN};
use planck_emu::runner::{RunVisitor, Stop};

/// Frames of given lengths put on endpoint 0's NIC at given slots, all to
/// endpoint 1; every delivery recorded as (slot, length).
struct Injector {
    plan: Vec<(Slot, u16)>,
    seen: Arc<Mutex<Vec<(Slot, u16)>>>,
}

impl HostIo for Injector {
    fn serves(&self, local: usize) -> bool {
        local <= 1
    }
    fn deliver(&mut self, _local: usize, pkt: Packet, t: Slot) {
        let len = u16::from_le_bytes([pkt.data[WIRE_LEN], pkt.data[WIRE_LEN + 1]]);
        self.seen.lock().unwrap().push((t, len));
    }
    fn exchange(&mut self, t: Slot, endpoints: &mut [EndpointState], ready: &mut [u64]) {
        for (i, &(at, len)) in self.plan.iter().enumerate() {
            if at == t {
                let mut data = [0; 8];
                data[WIRE_LEN..WIRE_LEN + 2].copy_from_slice(&len.to_le_bytes());
                endpoints[0].nic.push_back(Packet {
                    flow: 1,
                    seq: i as u32,
                    src: 0,
                    dst: 1,
                    flags: OPEN_LOOP,
                    data,
                    ..Packet::default()
                });
                mark_ready(ready, 0);
            }
        }
    }
    fn finish(&mut self) -> serde_json::Value {
        serde_json::Value::Null
    }
}

/// Two real hosts a and b on one switch, links at 0.2 Gb/s, slots at
/// `slot_gbps`; frames injected at a as `plan` says. Returns the deliveries.
fn carry(slot_gbps: f64, frame_time: &str, plan: Vec<(Slot, u16)>, slots: u64) -> Vec<(Slot, u16)> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("pair.json"),
        r#"{"switches":[{"name":"s"}],"endpoints":["a","b"],
          "links":[{"a":"a","b":"s","gbps":0.2,"buffer_pkts":200},{"a":"s","b":"b","gbps":0.2,"buffer_pkts":200}]}"#,
    )
    .unwrap();
    let slot_us = 1500.0 * 8.0 / (slot_gbps * 1e3);
    let text = format!(
        "[emulation]\nslot_gbps = {slot_gbps}\nmode = \"realtime\"\nduration_us = {}\n\
         [topology]\nkind = \"custom\"\nfile = \"pair.json\"\n\
         [real_hosts]\nframe_time = \"{frame_time}\"\n\
         [[real_hosts.host]]\nendpoint = \"a\"\nnamespace = \"pf-a\"\naddress = \"10.217.0.1/24\"\nveth = \"pf-a\"\n\
         [[real_hosts.host]]\nendpoint = \"b\"\nnamespace = \"pf-b\"\naddress = \"10.217.0.2/24\"\nveth = \"pf-b\"\n",
        slots as f64 * slot_us
    );
    let p = dir.path().join("c.toml");
    std::fs::write(&p, text).unwrap();
    let cfg = Config::load(&p).unwrap();
    let topo = cfg.validate().unwrap();
    let s = setup(&cfg, topo).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    *s.host_io.lock().unwrap() = vec![Some(Box::new(Injector {
        plan,
        seen: seen.clone(),
    }) as Box<dyn HostIo>)];
    with_scheme(
        &cfg.scheme,
        cfg.emulation.seed,
        RunVisitor {
            setup: &s,
            stop: Stop::AtSlot(cfg.emulation.slots()),
        },
    );
    let v = seen.lock().unwrap().clone();
    v
}

#[test]
fn a_short_frame_crosses_in_a_slot_per_hop_and_a_full_one_in_its_length() {
    // Slots a quarter of a full frame's time at the links' rate: a 66-byte
    // frame takes one slot per link, a 1,514-byte one four.
    let got = carry(0.8, "length", vec![(100, 66), (200, 1514)], 400);
    assert_eq!(got.len(), 2, "{got:?}");
    let (short, full) = (got[0].0 - 100, got[1].0 - 200);
    assert_eq!(full - short, 6, "short {short} slots, full {full} slots");
    // Priced by slot, both cost a full frame's time.
    let got = carry(0.8, "slot", vec![(100, 66), (200, 1514)], 400);
    assert_eq!(got[0].0 - 100, got[1].0 - 200, "{got:?}");
}

#[test]
fn a_link_carries_its_rate_in_bytes_whatever_the_frame_sizes() {
    // 400 short frames at once: 66 bytes each, 26,400 bytes, the links carry
    // a quarter of 1,514 bytes per slot, so about 70 slots from first to last.
    let got = carry(0.8, "length", (0..400).map(|_| (10, 66)).collect(), 300);
    assert_eq!(got.len(), 400);
    let span = got.last().unwrap().0 - got[0].0;
    assert!((66..=74).contains(&span), "400 short frames took {span} slots");
    // Priced by slot they take a link's full-frame time each: 4 slots.
    let got = carry(0.8, "slot", (0..100).map(|_| (10, 66)).collect(), 600);
    assert_eq!(got.len(), 100);
    let span = got.last().unwrap().0 - got[0].0;
    assert_eq!(span, 99 * 4);
    // Full frames priced by length: the same 4 slots each.
    let got = carry(0.8, "length", (0..100).map(|_| (10, 1514)).collect(), 600);
    assert_eq!(got.len(), 100);
    assert_eq!(got.last().unwrap().0 - got[0].0, 99 * 4);
}
