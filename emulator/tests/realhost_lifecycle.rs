//! `planck-emu hosts up|check|down` with `real_hosts.receive_cpus`: up hands each
//! host's receive work to those CPUs (RPS on its veth), check finds a host whose
//! setting was changed since, down removes everything by name. Needs root
//! (network namespaces, veths); without it the test prints why it is skipped and
//! passes.

use std::process::Command as Std;

use assert_cmd::Command;

const TOPO: &str = r#"{"switches":[{"name":"s"}],"endpoints":["a","b"],
  "links":[{"a":"a","b":"s","gbps":1},{"a":"s","b":"b","gbps":1}]}"#;

fn is_root() -> bool {
    Std::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

fn hosts(action: &str, config: &std::path::Path) -> (bool, String) {
    let out = Command::cargo_bin("planck-emu")
        .unwrap()
        .args(["hosts", action, "--config"])
        .arg(config)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned()
        + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

fn rps(ns: &str) -> String {
    let out = Std::new("ip")
        .args(["netns", "exec", ns, "cat", "/sys/class/net/eth0/queues/rx-0/rps_cpus"])
        .output()
        .unwrap();
    assert!(out.status.success(), "read rps_cpus in {ns}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn receive_cpus_are_set_checked_and_removed_with_the_hosts() {
    if !is_root() {
        println!("receive_cpus: skipped (needs root: network namespaces, veths)");
        return;
    }
    let p = format!("rhlc{}", std::process::id() % 100_000);
    let net = 100 + std::process::id() % 100;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pair.json"), TOPO).unwrap();
    let cfg = dir.path().join("c.toml");
    std::fs::write(
        &cfg,
        format!(
            "[emulation]\nslot_gbps = 1.0\nmode = \"realtime\"\n[topology]\nkind = \"custom\"\nfile = \"pair.json\"\n\
             [real_hosts]\nreceive_cpus = \"0\"\n\
             [[real_hosts.host]]\nendpoint = \"a\"\nnamespace = \"{p}a\"\naddress = \"10.{net}.7.1/24\"\nveth = \"{p}a-e\"\n\
             [[real_hosts.host]]\nendpoint = \"b\"\nnamespace = \"{p}b\"\naddress = \"10.{net}.7.2/24\"\nveth = \"{p}b-e\"\n"
        ),
    )
    .unwrap();
    struct Down<'a>(&'a std::path::Path);
    impl Drop for Down<'_> {
        fn drop(&mut self) {
            hosts("down", self.0);
        }
    }
    let _down = Down(&cfg);

    let (ok, out) = hosts("up", &cfg);
    assert!(ok, "hosts up: {out}");
    for h in ['a', 'b'] {
        // CPU 0 alone: mask 1, however many words sysfs shows.
        let mask = rps(&format!("{p}{h}"));
        assert_eq!(mask.trim_start_matches(['0', ',']), "1", "{h}: rps_cpus {mask}");
    }
    let (ok, out) = hosts("check", &cfg);
    assert!(ok, "hosts check: {out}");

    // Someone turns RPS off on b: check says so, in one line.
    let off = Std::new("ip")
        .args(["netns", "exec", &format!("{p}b"), "sh", "-c"])
        .arg("echo 0 > /sys/class/net/eth0/queues/rx-0/rps_cpus")
        .status()
        .unwrap();
    assert!(off.success());
    let (ok, out) = hosts("check", &cfg);
    assert!(!ok, "check passed with RPS off on b");
    assert_eq!(out.trim_end().lines().count(), 1, "{out}");
    assert!(out.contains("hands its receive work to CPUs []"), "{out}");

    let (ok, out) = hosts("down", &cfg);
    assert!(ok, "hosts down: {out}");
    for h in ['a', 'b'] {
        assert!(!std::path::Path::new(&format!("/run/netns/{p}{h}")).exists());
        assert!(!std::path::Path::new(&format!("/sys/class/net/{p}{h}-e")).exists());
    }
}
