//! INT telemetry report decoder: any bytes, as a UDP payload and as a captured frame,
//! are rejected with a reason or decode to reports within the configured bounds; a
//! buffer that keeps the hop stack raw gives the same result once its hops are read.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use planck_collector::decode::int::{
    IntDecoder, IntDecoderConfig, MAX_REPORTS, ReportBuf, ReportVersion,
};

const MAX_HOPS: u8 = 12;

fn decoder() -> &'static IntDecoder {
    static D: OnceLock<IntDecoder> = OnceLock::new();
    D.get_or_init(|| {
        IntDecoder::new(&IntDecoderConfig {
            ports: vec![54321],
            versions: ReportVersion::ALL.to_vec(),
            max_hops: MAX_HOPS,
        })
        .expect("valid settings")
    })
}

fuzz_target!(|data: &[u8]| {
    let d = decoder();
    let mut buf = ReportBuf::default();
    let mut raw = ReportBuf::deferring();
    for as_frame in [false, true] {
        let (result, deferred) = if as_frame {
            (d.decode_frame(data, &mut buf), d.decode_frame(data, &mut raw))
        } else {
            (d.decode_payload(data, &mut buf), d.decode_payload(data, &mut raw))
        };
        assert_eq!(result, deferred);
        raw.read_hops();
        assert_eq!(buf.reports(), raw.reports());
        match result {
            Ok(()) => {
                let reports = buf.reports();
                assert!(!reports.is_empty() && reports.len() <= MAX_REPORTS);
                for r in reports {
                    assert!(r.hop_count <= MAX_HOPS);
                    assert!(r.has_int || r.hop_count == 0);
                }
            }
            Err(e) => {
                assert!(buf.reports().is_empty(), "rejected ({e}) but left reports");
            }
        }
    }
});
