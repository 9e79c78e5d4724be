#![allow(dead_code)]
use planck_emu::config::Config;
use planck_emu::experiment::run_config;
use planck_emu::output::Report;

pub fn run_toml(text: &str) -> Report {
    let cfg: Config = toml::from_str(text).expect("test config parses");
    run_config(&cfg).expect("test config is valid")
}

/// Mean sampled occupancy of `switch` port facing endpoint/switch `peer`.
pub fn port<'a>(r: &'a Report, switch: &str, peer: &str) -> &'a planck_emu::output::PortReport {
    r.ports
        .iter()
        .find(|p| p.switch == switch && p.peer == peer)
        .expect("port exists")
}

pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * s2)
}

/// One switch `s`: endpoint h0 on a `sink_gbps` link, h1..=hN on `src_gbps` links.
pub fn star_topology(
    dir: &std::path::Path,
    n: usize,
    sink_gbps: f64,
    src_gbps: f64,
    buffer: u32,
) -> std::path::PathBuf {
    let mut links = vec![format!(
        r#"{{"a":"h0","b":"s","gbps":{sink_gbps},"buffer_pkts":{buffer}}}"#
    )];
    for i in 1..=n {
        links.push(format!(
            r#"{{"a":"h{i}","b":"s","gbps":{src_gbps},"buffer_pkts":{buffer}}}"#
        ));
    }
    let eps: Vec<String> = (0..=n).map(|i| format!("\"h{i}\"")).collect();
    let json = format!(
        r#"{{"switches":[{{"name":"s"}}],"endpoints":[{}],"links":[{}]}}"#,
        eps.join(","),
        links.join(",")
    );
    let path = dir.join("star.json");
    std::fs::write(&path, json).unwrap();
    path
}
