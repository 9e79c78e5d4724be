//! Control endpoint bodies: any bytes give 204, 400 or 409, never a panic, and a
//! rejected body leaves the map as it was. The same bytes as an Authorization header
//! are refused (401, nothing changed) unless they are the configured credentials.
#![no_main]

use std::sync::{Arc, OnceLock};

use arc_swap::ArcSwap;
use libfuzzer_sys::fuzz_target;
use planck_collector::control::{ControlCredentials, ControlPlane};
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
    secured_refuses(data);
});

fn secured() -> &'static ControlPlane {
    static P: OnceLock<ControlPlane> = OnceLock::new();
    P.get_or_init(|| {
        let statics = StaticSwitches::default();
        let map = Arc::new(ArcSwap::from_pointee(CompiledMap::build(None, None, &statics, 1).unwrap()));
        ControlPlane::new("c1".into(), map, statics, 1, Arc::new(DetectionSettings::new(80.0, 5.0, 5.0)), Arc::new(Metrics::new()))
            .with_credentials(Some(ControlCredentials::new("te", "s3cret")))
    })
}

fn secured_refuses(data: &[u8]) {
    let Ok(auth) = std::str::from_utf8(data) else { return };
    let p = secured();
    let admitted = ControlCredentials::new("te", "s3cret").admit(Some(auth));
    let before = p.map.load().generation;
    let r = p.handle_request("PUT", "/v1/config", Some(auth), b"{}");
    if admitted {
        assert_eq!(r.status, 400, "{r:?}");
    } else {
        assert_eq!(r.status, 401, "{r:?}");
        assert_eq!(p.map.load().generation, before);
    }
}
