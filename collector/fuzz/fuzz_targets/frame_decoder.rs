//! Frame decoder and the worker behind it: no input may panic, and what the decoder
//! accepts must be self-consistent.
#![no_main]

use std::sync::{Arc, OnceLock};
use std::sync::Mutex;

use arc_swap::ArcSwap;
use libfuzzer_sys::fuzz_target;
use planck_collector::decode::{frame::decode_frame, MirroredFrameDecoder, Transport};
use planck_collector::detect::DetectionSettings;
use planck_collector::forwarding::{CompiledMap, StaticSwitches};
use planck_collector::pipeline::{Worker, WorkerConfig};

fn worker() -> &'static Mutex<(Worker<MirroredFrameDecoder>, u64)> {
    static W: OnceLock<Mutex<(Worker<MirroredFrameDecoder>, u64)>> = OnceLock::new();
    W.get_or_init(|| {
        let statics = StaticSwitches { vlans: vec![(1, "of:1".into()), (2, "of:2".into())], interface_switches: vec!["of:0".into()] };
        let map = CompiledMap::build(None, None, &statics, 1).unwrap();
        let cfg = WorkerConfig { max_flows: 4096, idle_timeout_ns: 1_000_000, ..WorkerConfig::default() };
        let w = Worker::new(cfg, MirroredFrameDecoder, Arc::new(ArcSwap::from_pointee(map)), Arc::new(DetectionSettings::new(80.0, 5.0, 1.0)), None, None);
        Mutex::new((w, 0))
    })
}

fuzz_target!(|data: &[u8]| {
    // First two bytes: an out-of-band VLAN hint (as AF_PACKET reports) and a time step.
    let (hint, step, frame) = match data {
        [a, b, rest @ ..] => ((*a & 1 == 1).then_some((*a as u16 >> 1) & 0x0fff), *b as u64, rest),
        _ => (None, 0, data),
    };
    if let Ok(s) = decode_frame(frame, hint) {
        if let Some(v) = hint {
            assert_eq!(s.vlan, Some(v));
        }
        match s.transport {
            Transport::Tcp(t) => {
                assert_eq!(s.tuple.proto, 6);
                assert!(t.payload_len <= 65535);
            }
            Transport::Udp { payload_len } => {
                assert_eq!(s.tuple.proto, 17);
                assert!(payload_len <= 65535);
            }
            Transport::Other { .. } => assert_eq!((s.tuple.sport, s.tuple.dport), (0, 0)),
        }
    }
    let mut guard = worker().lock().unwrap();
    let (w, ts) = &mut *guard;
    *ts += step * 10_000;
    w.on_frame(*ts, hint, Some(0), frame);
    w.tick(*ts);
});
