//! Throughput of the real-host path (`planck_emu::realhost`): frames per
//! second of one core's time taken from a host's veth (AF_PACKET TPACKET_V2
//! ring), inspected, stored, turned into abstract packets, delivered and
//! written to the other host's veth (sendmmsg), CE marking included.
//!
//! Two namespaces on veths as `planck-emu hosts up` makes them. A thread in
//! the first sends bursts of UDP datagrams (1,472 bytes: 1,500-byte IP
//! packets) to the second; between bursts the bench drains the ring through
//! the path, timing only the draining with the thread's CPU clock. The
//! engine's own cost per hop is what `--bench rack` measures; a frame costs
//! this path once plus one engine hop per switch it crosses.
//!
//! Needs root (namespaces, AF_PACKET); prints a note and exits otherwise.
//! Run: `cargo bench -p planck-emu --bench realhost`.

use std::net::UdpSocket;
use std::os::fd::AsRawFd;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use planck_emu::config::Config;
use planck_emu::endpoint::EndpointState;
use planck_emu::engine::HostIo;
use planck_emu::experiment::setup;
use planck_emu::packet::CE;
use planck_emu::realhost::{VethHosts, lifecycle};

const BURST: usize = 800;
const ROUNDS: usize = 150;
const REPEATS: usize = 5;

fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Move the calling thread into namespace `ns`.
fn enter(ns: &str) {
    let f = std::fs::File::open(format!("/run/netns/{ns}")).expect("namespace");
    // SAFETY: setns on an open namespace file; affects this thread only.
    let rc = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
    assert_eq!(rc, 0, "setns {ns}");
}

fn main() {
    if unsafe { libc::geteuid() } != 0 {
        println!("realhost bench: skipped (needs root for namespaces and AF_PACKET)");
        return;
    }
    let p = format!("rb{:04x}", std::process::id() & 0xffff);
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("pair.json"),
        r#"{"switches":[{"name":"s"}],"endpoints":["a","b"],
            "links":[{"a":"a","b":"s"},{"a":"s","b":"b"}]}"#,
    )
    .unwrap();
    let text = format!(
        r#"
        [emulation]
        mode = "realtime"
        [topology]
        kind = "custom"
        file = "{dir}/pair.json"
        [real_hosts]
        max_pps = 1e9
        [[real_hosts.host]]
        endpoint = "a"
        namespace = "{p}a"
        address = "10.214.0.1/24"
        veth = "{p}a-e"
        [[real_hosts.host]]
        endpoint = "b"
        namespace = "{p}b"
        address = "10.214.0.2/24"
        veth = "{p}b-e"
        "#,
        dir = dir.path().display()
    );
    let cfg: Config = toml::from_str(&text).expect("config");
    let topo = cfg.validate().expect("valid");
    let hosts = cfg.real_hosts.as_ref().unwrap().resolve(&topo).unwrap();
    struct Down(Vec<planck_emu::realhost::ResolvedHost>);
    impl Drop for Down {
        fn drop(&mut self) {
            lifecycle::down(&self.0);
        }
    }
    lifecycle::up(&hosts, 1500, None).expect("hosts up");
    let _down = Down(hosts.clone());
    let s = setup(&cfg, topo).expect("setup");
    let mut io = VethHosts::open(&hosts, &s, 0, 1500).expect("open veths");
    let mut eps: Vec<EndpointState> = (0..2).map(|i| EndpointState::new(i, 1 << 14)).collect();
    let mut ready = vec![0u64; 1];

    // The sending host: bursts on request. The receiving host: a socket that
    // takes the datagrams (so its kernel does not answer with ICMP).
    let (go, bursts) = mpsc::channel::<usize>();
    let (done_tx, done) = mpsc::channel::<()>();
    let (pa, pb) = (format!("{p}a"), format!("{p}b"));
    std::thread::spawn(move || {
        enter(&pb);
        let sock = UdpSocket::bind("10.214.0.2:9").expect("bind b");
        sock.set_read_timeout(Some(Duration::from_millis(200))).ok();
        let mut buf = [0u8; 2048];
        loop {
            if sock.recv(&mut buf).is_err() && done.try_recv().is_ok() {
                break;
            }
        }
    });
    let sender = std::thread::spawn(move || {
        enter(&pa);
        let sock = UdpSocket::bind("10.214.0.1:0").expect("bind a");
        sock.connect("10.214.0.2:9").unwrap();
        // ECT(0), so the marked half of the packets get CE in their headers.
        let tos: libc::c_int = 2;
        // SAFETY: setsockopt on our socket with an int option.
        unsafe {
            libc::setsockopt(
                sock.as_raw_fd(),
                libc::IPPROTO_IP,
                libc::IP_TOS,
                (&tos as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
        }
        let payload = [0x5au8; 1472];
        while let Ok(n) = bursts.recv() {
            for _ in 0..n {
                let _ = sock.send(&payload);
            }
        }
    });

    // Slots follow the clock, as in a real-time run (frames enter in the slot they arrived).
    let start = Instant::now();
    let mut t = 0u64;
    let mut figures = Vec::new();
    for rep in 0..REPEATS {
        let (mut frames, mut cpu, mut wall) = (0u64, 0.0, 0.0);
        for _ in 0..ROUNDS {
            go.send(BURST).unwrap();
            // Let the burst land in the ring (the sender's thread does the veth work).
            std::thread::sleep(Duration::from_millis(8));
            let (c0, w0) = (thread_cpu_seconds(), Instant::now());
            loop {
                t = (t + 1).max((start.elapsed().as_nanos() / 1200) as u64);
                io.exchange(t, &mut eps, &mut ready);
                let mut moved = 0;
                while let Some(mut pkt) = eps[0].nic.pop_front() {
                    // Every other packet as if a scheme had marked it.
                    if pkt.seq & 1 == 0 {
                        pkt.flags |= CE;
                    }
                    io.deliver(1, pkt, t);
                    moved += 1;
                }
                frames += moved;
                if moved == 0 {
                    break;
                }
            }
            io.exchange(t + 1, &mut eps, &mut ready); // flush the last writes
            cpu += thread_cpu_seconds() - c0;
            wall += w0.elapsed().as_secs_f64();
        }
        let pps = frames as f64 / cpu;
        println!(
            "realhost path, run {}: {frames} frames of 1514 bytes, {:.0} k frames per CPU-second ({:.2} us each), {:.0} k per wall second while draining",
            rep + 1,
            pps / 1e3,
            1e6 / pps,
            frames as f64 / wall / 1e3
        );
        figures.push(pps);
    }
    drop(go);
    let _ = done_tx.send(());
    sender.join().ok();
    let report = io.finish();
    let c = &report["hosts"];
    figures.sort_by(f64::total_cmp);
    println!(
        "realhost path: median {:.0} k frames per CPU-second ({:.1} Gb/s of 1500-byte packets); CE set on {} frames; refused/expired/ring drops at the sender's veth: {} / {} / {}",
        figures[REPEATS / 2] / 1e3,
        figures[REPEATS / 2] * 1500.0 * 8.0 / 1e9,
        c[1]["counters"]["ce_marked"],
        c[0]["counters"]["refused_not_ipv4"],
        c[1]["counters"]["expired"],
        c[0]["counters"]["ring_drops"],
    );
}
