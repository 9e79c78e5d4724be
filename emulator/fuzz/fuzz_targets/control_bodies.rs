//! Fabric control API bodies (rules, mirrors, flows): any bytes parse to a
//! command or a 400, never a panic; a rule or flow command the engine rejects
//! leaves rules and flows as they were. Mirror commands are only parsed (they
//! would open sinks).
#![no_main]

use std::sync::{Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;
use planck_emu::lab::FabricConfig;
use planck_emu::lab::api::{BodyKind, parse_body};
use planck_emu::lab::engine::{Command, FabricEngine};

fn engine() -> &'static Mutex<FabricEngine> {
    static E: OnceLock<Mutex<FabricEngine>> = OnceLock::new();
    E.get_or_init(|| {
        let cfg = FabricConfig::parse("[fabric]\ntopology = \"fattree:4\"\nmode = \"virtual\"\n").unwrap();
        Mutex::new(FabricEngine::new(&cfg, false).unwrap())
    })
}

fuzz_target!(|data: &[u8]| {
    let (kind, body) = match data.split_first() {
        Some((b, rest)) if b % 3 == 0 => (BodyKind::Rules, rest),
        Some((b, rest)) if b % 3 == 1 => (BodyKind::Flows, rest),
        Some((_, rest)) => (BodyKind::Mirrors, rest),
        None => (BodyKind::Rules, data),
    };
    let Ok(cmd) = parse_body(kind, body, 20, 16) else {
        return;
    };
    if kind == BodyKind::Mirrors {
        return;
    }
    let mut e = engine().lock().unwrap();
    let before = (e.handle(Command::Counters).unwrap()["rules"].clone(), e.handle(Command::Flows).unwrap());
    if let Err(err) = e.handle(cmd) {
        assert_eq!(err.code, 400);
        let after = (e.handle(Command::Counters).unwrap()["rules"].clone(), e.handle(Command::Flows).unwrap());
        assert_eq!(before, after);
    }
    // Keep the engine's clock moving so flows start and rules carry traffic.
    for _ in 0..16 {
        e.step();
    }
});
