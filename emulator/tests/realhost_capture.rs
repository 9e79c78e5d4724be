//! The real-host path with each capture (AF_PACKET ring, AF_XDP native and
//! generic): every datagram a host sent is accounted for (taken in, or counted
//! as dropped by the ring or the veth), every frame taken in is written out to
//! the other host, and what arrives there is byte for byte what was sent.
//! Needs root (namespaces, veths, XDP); without it each test prints why it is
//! skipped and passes.

#[path = "support/veth_pair.rs"]
mod veth_pair;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use planck_emu::config::Config;
use planck_emu::endpoint::EndpointState;
use planck_emu::engine::HostIo;
use planck_emu::realhost::VethHosts;
use planck_emu::realhost::capture::{Capture, XdpMode};
use planck_emu::realhost::xdp::XskRing;
use veth_pair::{Pair, Receiver, Sender, is_root};

/// The tests run one at a time: each paces an emulator and a sender and receiver thread in
/// real time, and side by side on a 2-core machine they starved one another's receivers.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

fn skip(test: &str) -> bool {
    if is_root() {
        return false;
    }
    println!("{test}: skipped (needs root: network namespaces, veths, XDP programs)");
    true
}

/// The XDP program on `iface` as `ip link` shows it: "xdp" (native), "xdpgeneric", or none.
fn xdp_shown(iface: &str) -> Option<String> {
    let out = std::process::Command::new("ip")
        .args(["-d", "link", "show", iface])
        .output()
        .expect("ip");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    ["xdpgeneric", "xdp"]
        .iter()
        .find(|m| {
            text.split_whitespace()
                .any(|w| w == **m || w.starts_with(&format!("{m}/")))
        })
        .map(|m| m.to_string())
}

/// Move what host a sent to host b through the real path (as a slot loop
/// does) until `done` and nothing new for 50 ms, at most `limit`.
/// Slots follow `clock` from the first call on, as in a real-time run.
fn carry(
    io: &mut VethHosts,
    eps: &mut [EndpointState],
    (clock, slot_ns, t): (&Instant, f64, &mut u64),
    done: &mut dyn FnMut() -> bool,
    limit: Duration,
) {
    let start = Instant::now();
    let mut ready = vec![0u64; 1];
    let mut last = Instant::now();
    let mut finished = false;
    while start.elapsed() < limit {
        *t = (*t + 1).max((clock.elapsed().as_nanos() as f64 / slot_ns) as u64);
        let t = *t;
        io.exchange(t, eps, &mut ready);
        let mut moved = false;
        while let Some(pkt) = eps[0].nic.pop_front() {
            io.deliver(1, pkt, t);
            moved = true;
        }
        finished = finished || done();
        if moved {
            last = Instant::now();
        } else if finished && last.elapsed() > Duration::from_millis(50) {
            break;
        } else {
            std::thread::sleep(Duration::from_micros(50));
        }
    }
    *t += 1;
    io.exchange(*t, eps, &mut ready);
}

fn frames_in_equal_frames_out(capture: Capture, tag: &str, net: u8) {
    let _one = serial();
    let pair = Pair::up(tag, net);
    let mut io = VethHosts::open_with(&pair.hosts, &pair.setup, 0, 1500, capture)
        .unwrap_or_else(|e| panic!("{}: {e}", capture.name()));
    let shown = xdp_shown(&pair.veth('a'));
    match capture {
        Capture::Packet => assert_eq!(shown, None),
        Capture::Xdp(XdpMode::Native) => assert_eq!(shown.as_deref(), Some("xdp")),
        Capture::Xdp(XdpMode::Generic) => assert_eq!(shown.as_deref(), Some("xdpgeneric")),
    }
    let rx = Receiver::start(&pair, true);
    let tx = Sender::start(&pair);
    let mut eps: Vec<EndpointState> = (0..2).map(|i| EndpointState::new(i, 1 << 14)).collect();
    // Small, mid and full-size datagrams, ECT and not, in bursts the sender
    // makes while the path runs.
    let (mut seq, mut sent) = (0u32, 0usize);
    let (clock, mut t) = (Instant::now(), 0u64);
    for round in 0..9 {
        let len = [18, 700, 1472][round % 3];
        let n = 300;
        tx.start_burst(seq, n, len, round % 2 == 0);
        let mut got = None;
        carry(
            &mut io,
            &mut eps,
            (&clock, pair.setup.slot_ns, &mut t),
            &mut || {
                if got.is_none() {
                    got = tx.sent.try_recv().ok();
                }
                got.is_some()
            },
            Duration::from_secs(20),
        );
        sent += got.expect("the sender finished its burst within 20 s");
        seq += n as u32;
    }
    tx.stop();
    let (seqs, damaged) = rx.finish();
    let report = io.finish();
    drop(io);
    assert_eq!(
        xdp_shown(&pair.veth('a')),
        None,
        "the program left the veth with the capture"
    );
    let a = &report["hosts"][0]["counters"];
    let b = &report["hosts"][1]["counters"];
    let n = |v: &serde_json::Value, k: &str| v[k].as_u64().unwrap_or_else(|| panic!("counter {k}"));
    let refused = [
        "refused_oversize",
        "refused_not_ipv4",
        "refused_malformed",
        "unknown_destination",
        "nic_drops",
    ]
    .iter()
    .map(|k| n(a, k))
    .sum::<u64>();
    let (veth_a, veth_b) = (pair.veth_drops('a'), pair.veth_drops('b'));
    println!(
        "{}: sent {sent}, taken in {}, ring drops {}, refused {refused}, veth drops {veth_a}; written {}, tx errors {}, veth drops {veth_b}; received {}, damaged {damaged}",
        capture.name(),
        n(a, "frames_in"),
        n(a, "ring_drops"),
        n(b, "frames_out"),
        n(b, "tx_errors"),
        seqs.len()
    );
    // Every frame host a sent is accounted for: taken in, or dropped where it is counted.
    assert_eq!(refused, 0, "nothing but the test's IPv4 datagrams was sent");
    assert_eq!(n(a, "frames_in") + n(a, "ring_drops") + veth_a, sent as u64);
    // The loss itself is small at this pace (bursts far below the ring's size).
    assert!(
        n(a, "frames_in") as f64 >= 0.99 * sent as f64,
        "more than 1 % lost in the capture"
    );
    // Every frame taken in was written to host b, and what b's socket took is what was written.
    assert_eq!(n(b, "frames_out"), n(a, "frames_in"));
    assert_eq!(n(b, "expired"), 0);
    assert_eq!(
        seqs.len() as u64 + n(b, "tx_errors") + veth_b,
        n(b, "frames_out")
    );
    // Byte for byte, each datagram once, every one of them one that was sent.
    assert_eq!(damaged, 0);
    let unique: HashSet<u32> = seqs.iter().copied().collect();
    assert_eq!(unique.len(), seqs.len(), "a datagram arrived twice");
    assert!(seqs.iter().all(|&s| s < seq));
}

#[test]
fn afpacket_carries_every_frame_it_takes() {
    if skip("afpacket_carries_every_frame_it_takes") {
        return;
    }
    frames_in_equal_frames_out(Capture::Packet, "xp", 215);
}

#[test]
fn afxdp_native_carries_every_frame_it_takes() {
    if skip("afxdp_native_carries_every_frame_it_takes") {
        return;
    }
    frames_in_equal_frames_out(Capture::Xdp(XdpMode::Native), "xn", 216);
}

#[test]
fn afxdp_generic_carries_every_frame_it_takes() {
    if skip("afxdp_generic_carries_every_frame_it_takes") {
        return;
    }
    frames_in_equal_frames_out(Capture::Xdp(XdpMode::Generic), "xg", 217);
}

/// The program's receive time reaches the ring: frames that arrived after the
/// slot's end stay in the ring, as with the AF_PACKET ring's timestamps.
#[test]
fn afxdp_takes_no_frame_that_arrived_after_the_slot() {
    if skip("afxdp_takes_no_frame_that_arrived_after_the_slot") {
        return;
    }
    let _one = serial();
    let pair = Pair::up("xt", 218);
    let mut ring = XskRing::open(&pair.veth('a'), 1514, 256, XdpMode::Native).unwrap();
    let tx = Sender::start(&pair);
    let before = unix_ns();
    assert_eq!(tx.burst(0, 40, 100, false), 40);
    std::thread::sleep(Duration::from_millis(50));
    let mut seen = Vec::new();
    assert_eq!(
        ring.poll(64, before - 1_000_000, |_| panic!(
            "a frame from before it was sent"
        )),
        0
    );
    let after = unix_ns();
    let n = ring.poll(64, after, |f| {
        seen.push(u32::from_be_bytes(f.data[42..46].try_into().unwrap()))
    });
    assert_eq!(n, 40);
    assert_eq!(seen, (0..40).collect::<Vec<_>>(), "in the order sent");
    assert_eq!(ring.take_stats(), (40, 0));
    tx.stop();
}

/// Bad uses of AF_XDP get one line each and leave the veth as it was.
#[test]
fn afxdp_errors_are_one_line() {
    if skip("afxdp_errors_are_one_line") {
        return;
    }
    let _one = serial();
    let pair = Pair::up("xe", 219);
    let veth = pair.veth('a');
    let e = XskRing::open("nosuchveth0", 1514, 256, XdpMode::Native)
        .err()
        .unwrap();
    assert_eq!(e, "no interface \"nosuchveth0\"");
    let e = XskRing::open(&veth, 5000, 256, XdpMode::Native)
        .err()
        .unwrap();
    assert!(
        e.starts_with("AF_XDP capture takes frames up to 3840 bytes"),
        "{e}"
    );
    let first = XskRing::open(&veth, 1514, 256, XdpMode::Native).unwrap();
    let e = XskRing::open(&veth, 1514, 256, XdpMode::Generic)
        .err()
        .unwrap();
    assert!(!e.contains('\n'), "{e}");
    assert!(e.contains("another AF_XDP socket"), "{e}");
    assert_eq!(
        xdp_shown(&veth).as_deref(),
        Some("xdp"),
        "the first capture's program stays"
    );
    drop(first);
    assert_eq!(xdp_shown(&veth), None);
    // A veth jumbo MTU is too much for native XDP without multi-buffer.
    std::process::Command::new("ip")
        .args(["link", "set", &veth, "mtu", "3700"])
        .status()
        .unwrap();
    std::process::Command::new("ip")
        .args(["-n", &pair.ns('a'), "link", "set", "eth0", "mtu", "3700"])
        .status()
        .unwrap();
    let e = XskRing::open(&veth, 3714, 256, XdpMode::Native)
        .err()
        .unwrap();
    assert!(e.contains("refuses native XDP at this MTU"), "{e}");
    assert_eq!(xdp_shown(&veth), None);
}

fn unix_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
}

/// `capture = "afxdp"` takes frames up to a page less the kernel's headroom:
/// a larger MTU is refused when the configuration is read.
#[test]
fn afxdp_with_a_jumbo_mtu_is_refused_by_the_config() {
    let base = |capture: &str, mtu: u32| {
        format!(
            r#"
            [emulation]
            mode = "realtime"
            mtu_bytes = {mtu}
            [topology]
            kind = "rack"
            hosts_per_rack = 2
            [real_hosts]
            max_pps = 1e9
            capture = "{capture}"
            [[real_hosts.host]]
            endpoint = "h0"
            namespace = "cfg-a"
            address = "10.219.0.1/24"
            veth = "cfg-a-e"
            "#
        )
    };
    let check = |text: String| -> Result<(), String> {
        let cfg: Config = toml::from_str(&text).map_err(|e| e.to_string())?;
        cfg.validate().map(|_| ()).map_err(|e| e.to_string())
    };
    assert_eq!(check(base("afxdp", 1500)), Ok(()));
    assert_eq!(check(base("afpacket", 9000)), Ok(()));
    let e = check(base("afxdp", 9000)).err().unwrap();
    assert!(
        e.contains("real_hosts.capture = \"afxdp\" takes frames up to 3840 bytes: emulation.mtu_bytes must be <= 3826, got 9000"),
        "{e}"
    );
    let e = check(base("afxdpp", 1500)).err().unwrap();
    assert!(e.contains("unknown variant `afxdpp`"), "{e}");
}
