//! Real-host configuration: every bad one fails with one line and changes nothing.

use assert_cmd::Command;

const TOPO: &str = r#"{"switches":[{"name":"s"}],"endpoints":["a","b","c"],
  "links":[{"a":"a","b":"s","gbps":2},{"a":"s","b":"b","gbps":1},{"a":"s","b":"c"}]}"#;

fn config(emulation: &str, hosts: &str, extra: &str) -> String {
    format!(
        "[emulation]\nslot_gbps = 2.0\nmode = \"realtime\"\n{emulation}\n[topology]\nkind = \"custom\"\nfile = \"pair.json\"\n{extra}\n[real_hosts]\n{hosts}"
    )
}

const TWO: &str = "[[real_hosts.host]]\nendpoint = \"a\"\nnamespace = \"rhcfg-none-a\"\naddress = \"10.215.0.1/24\"\nveth = \"rhcfg-a\"\n[[real_hosts.host]]\nendpoint = \"b\"\nnamespace = \"rhcfg-none-b\"\naddress = \"10.215.0.2/24\"\nveth = \"rhcfg-b\"\n";

/// `planck-emu <args> --config` fails with one stderr line containing `needle`.
fn rejects(args: &[&str], text: &str, needle: &str) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pair.json"), TOPO).unwrap();
    let p = dir.path().join("c.toml");
    std::fs::write(&p, text).unwrap();
    let out = Command::cargo_bin("planck-emu")
        .unwrap()
        .args(args)
        .arg("--config")
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "accepted: {text}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
    assert!(err.contains(needle), "{err} lacks {needle:?}");
    assert!(out.stdout.is_empty());
}

#[test]
fn bad_real_host_configs_are_one_line_errors() {
    let run = &["run"][..];
    rejects(
        run,
        &config("", TWO, "").replace("realtime", "virtual"),
        "need emulation.mode = \"realtime\"",
    );
    rejects(
        run,
        &config("threads = 2", TWO, ""),
        "emulation.threads must be 1",
    );
    rejects(
        run,
        &config("", &TWO.replace("\"b\"\nnamespace", "\"x\"\nnamespace"), ""),
        "no endpoint of that name",
    );
    rejects(
        run,
        &config("", &TWO.replace("rhcfg-b\"", "rhcfg-a\""), ""),
        "veth \"rhcfg-a\" used twice",
    );
    rejects(
        run,
        &config("", &TWO.replace("0.2/24", "0.2"), ""),
        "needs a prefix length",
    );
    rejects(
        run,
        &config("", &TWO.replace("0.2/24", "0.2/40"), ""),
        "prefix length must be",
    );
    rejects(
        run,
        &config("", &TWO.replace("10.215.0.2/24", "10.216.0.2/24"), ""),
        "not in one subnet",
    );
    rejects(
        run,
        &config("", &TWO.replace("rhcfg-a\"", "this-name-is-too-long\""), ""),
        "not an interface name",
    );
    rejects(
        run,
        &config("", &format!("max_pps = 200000\n{TWO}"), ""),
        "above what the real path carries",
    );
    rejects(
        run,
        &config(
            "",
            TWO,
            "[[workload]]\nkind = \"poisson\"\nload = 0.5\nsizes = \"web_search\"",
        ),
        "built-in traffic",
    );
    rejects(
        run,
        &config(
            "",
            TWO,
            "[[workload]]\nkind = \"flows\"\nflows = [{ src = 2, dst = 1, bytes = 1000 }]",
        ),
        "endpoint b is a real host",
    );
    rejects(
        run,
        &config("", &format!("bogus = 1\n{TWO}"), ""),
        "unknown field `bogus`",
    );
    rejects(
        run,
        &config("", &format!("frame_time = \"bytes\"\n{TWO}"), ""),
        "unknown variant `bytes`",
    );
    // PINT writes where a frame keeps its length.
    rejects(
        run,
        &config("", TWO, "[pint]\npath_bits = 8"),
        "frame_time = \"length\" keeps a frame's length",
    );
    rejects(
        run,
        &config("", &format!("receive_cpus = \"1-\"\n{TWO}"), ""),
        "real_hosts.receive_cpus: CPU list \"1-\"",
    );
    rejects(
        run,
        &config("", &format!("receive_cpus = \"3-1\"\n{TWO}"), ""),
        "runs backwards",
    );
    rejects(
        run,
        &config("", &format!("receive_cpus = \"1,1\"\n{TWO}"), ""),
        "listed twice",
    );
    // A CPU that is not online here: refused before anything is created.
    rejects(
        &["hosts", "up"],
        &config("", &format!("receive_cpus = \"4000\"\n{TWO}"), ""),
        "CPU 4000 is not online here",
    );
    assert!(!std::path::Path::new("/run/netns/rhcfg-none-a").exists());
    // Valid, but nothing exists on the system: refused before anything is opened.
    rejects(
        run,
        &config("", TWO, ""),
        "no network namespace \"rhcfg-none-a\"",
    );
    rejects(
        &["hosts", "check"],
        &config("", TWO, ""),
        "no such namespace",
    );
}
