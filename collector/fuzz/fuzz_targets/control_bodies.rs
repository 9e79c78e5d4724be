//! Control endpoint bodies: any bytes give 204, 400 or 409, never a panic, and a
//! rejected body leaves the map as it was.
#![no_main]

use std::sync::{Arc, OnceLock};

use arc_swap::ArcSwap;
use libfuzzer_sys::fuzz_target;
use planck_collector::control::ControlPlane;
use planck_collector::detect::DetectionSettings;
use planck_collector::forwarding::{CompiledMap, StaticSwitches};
use planck_collector::metrics::Metrics;

fn plane() -> &'static ControlPlane {
    static P: OnceLock<ControlPlane> = OnceLock::new();
    P.get_or_init(|| {
        let statics = StaticSwitches::default();
        let map = Arc::new(ArcSwap::from_pointee(CompiledMap::build(None, None, &statics, 2).unwrap()));
        ControlPlane::new("c1".into(), map, statics, 2, Arc::new(DetectionSettings::new(80.0, 5.0, 5.0)), Arc::new(Metrics::new()))
    })
}

fuzz_target!(|data: &[u8]| {
    let p = plane();
    let (path, body) = match data.split_first() {
        Some((b, rest)) if b & 1 == 1 => ("/v1/config", rest),
        Some((_, rest)) => ("/v1/forwarding", rest),
        None => ("/v1/forwarding", data),
    };
    let before = p.map.load().generation;
    let r = p.handle("PUT", path, body);
    assert!(matches!(r.status, 204 | 400 | 409), "{r:?}");
    if r.status != 204 {
        assert_eq!(p.map.load().generation, before);
    }
});
