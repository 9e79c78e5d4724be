//! Two real hosts on veths as `planck-emu hosts up` makes them, a sender in
//! the first and a receiver in the second, for the capture test and the
//! capture bench (included by path from both). Everything is named with a
//! short random prefix and removed by name when the pair drops.
#![allow(dead_code)]

use std::net::UdpSocket;
use std::os::fd::AsRawFd;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use planck_emu::config::Config;
use planck_emu::realhost::{ResolvedHost, lifecycle};
use planck_emu::runner::Setup;

pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

pub fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

pub fn process_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: as above.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Move the calling thread into namespace `ns`.
pub fn enter(ns: &str) {
    let f = std::fs::File::open(format!("/run/netns/{ns}")).expect("namespace");
    // SAFETY: setns on an open namespace file; affects this thread only.
    let rc = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
    assert_eq!(rc, 0, "setns {ns}");
}

/// The two hosts "a" (10.<net>.0.1) and "b" (10.<net>.0.2) through one switch.
pub struct Pair {
    pub hosts: Vec<ResolvedHost>,
    pub setup: Setup,
    pub prefix: String,
    pub net: u8,
    _dir: tempfile::TempDir,
}

impl Pair {
    pub fn up(tag: &str, net: u8) -> Pair {
        let prefix = format!("{tag}{:04x}", (std::process::id() ^ rand_bits()) & 0xffff);
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            dir.path().join("pair.json"),
            r#"{"switches":[{"name":"s"}],"endpoints":["a","b"],
                "links":[{"a":"a","b":"s"},{"a":"s","b":"b"}]}"#,
        )
        .unwrap();
        let p = &prefix;
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
            address = "10.{net}.0.1/24"
            veth = "{p}a-e"
            [[real_hosts.host]]
            endpoint = "b"
            namespace = "{p}b"
            address = "10.{net}.0.2/24"
            veth = "{p}b-e"
            "#,
            dir = dir.path().display()
        );
        let cfg: Config = toml::from_str(&text).expect("config");
        let topo = cfg.validate().expect("valid");
        let hosts = cfg.real_hosts.as_ref().unwrap().resolve(&topo).unwrap();
        if let Err(e) = lifecycle::up(&hosts, 1500, None) {
            lifecycle::down(&hosts);
            panic!("hosts up: {e}");
        }
        let setup = planck_emu::experiment::setup(&cfg, topo).expect("setup");
        Pair {
            hosts,
            setup,
            prefix,
            net,
            _dir: dir,
        }
    }

    pub fn ns(&self, host: char) -> String {
        format!("{}{host}", self.prefix)
    }
    pub fn veth(&self, host: char) -> String {
        format!("{}{host}-e", self.prefix)
    }

    /// Frames the veth pair of `host` dropped itself (either end), outside any capture.
    pub fn veth_drops(&self, host: char) -> u64 {
        let read = |f: &str| -> u64 {
            std::fs::read_to_string(format!("/sys/class/net/{}/statistics/{f}", self.veth(host)))
                .ok()
                .and_then(|s| s.trim().parse().ok())
                .unwrap_or(0)
        };
        let out = std::process::Command::new("ip")
            .args(["-n", &self.ns(host), "-j", "-s", "link", "show", "eth0"])
            .output()
            .expect("ip");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        let inner = |dir: &str| v[0]["stats64"][dir]["dropped"].as_u64().unwrap_or(0);
        read("rx_dropped") + read("tx_dropped") + inner("tx") + inner("rx")
    }
}

impl Drop for Pair {
    fn drop(&mut self) {
        lifecycle::down(&self.hosts);
    }
}

fn rand_bits() -> u32 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    t.subsec_nanos().rotate_left(7) ^ (t.as_secs() as u32)
}

/// Datagram payload of sequence number `seq`, `len` bytes: the number, then a pattern of it.
pub fn payload(seq: u32, len: usize, buf: &mut [u8]) {
    buf[..4].copy_from_slice(&seq.to_be_bytes());
    for (i, b) in buf[4..len].iter_mut().enumerate() {
        *b = (seq as usize).wrapping_mul(31).wrapping_add(i) as u8;
    }
}

/// Sends bursts from host a to b: each request (first seq, count, payload
/// length, ECT) is answered with how many sends succeeded.
pub struct Sender {
    pub go: mpsc::Sender<(u32, usize, usize, bool)>,
    pub sent: mpsc::Receiver<usize>,
    handle: Option<JoinHandle<()>>,
}

impl Sender {
    pub fn start(pair: &Pair) -> Sender {
        let (go, bursts) = mpsc::channel::<(u32, usize, usize, bool)>();
        let (sent_tx, sent) = mpsc::channel();
        let ns = pair.ns('a');
        let net = pair.net;
        let handle = std::thread::spawn(move || {
            enter(&ns);
            let sock = UdpSocket::bind(format!("10.{net}.0.1:0")).expect("bind a");
            sock.connect(format!("10.{net}.0.2:9")).unwrap();
            let mut buf = [0u8; 1472];
            while let Ok((first, n, len, ect)) = bursts.recv() {
                let tos: libc::c_int = if ect { 2 } else { 0 };
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
                let mut ok = 0;
                for s in first..first + n as u32 {
                    payload(s, len, &mut buf);
                    if sock.send(&buf[..len]).is_ok() {
                        ok += 1;
                    }
                }
                if sent_tx.send(ok).is_err() {
                    break;
                }
            }
        });
        Sender {
            go,
            sent,
            handle: Some(handle),
        }
    }

    /// Send a burst and wait until every send call returned.
    pub fn burst(&self, first: u32, n: usize, len: usize, ect: bool) -> usize {
        self.go.send((first, n, len, ect)).unwrap();
        self.sent.recv().unwrap()
    }

    /// Ask for a burst without waiting.
    pub fn start_burst(&self, first: u32, n: usize, len: usize, ect: bool) {
        self.go.send((first, n, len, ect)).unwrap();
    }

    pub fn stop(mut self) {
        let (dead, _) = mpsc::channel();
        self.go = dead;
        if let Some(h) = self.handle.take() {
            h.join().ok();
        }
    }
}

/// Takes the datagrams at host b (so its kernel does not answer with ICMP);
/// with `check`, keeps each one's sequence number and whether its bytes were intact.
/// How long the receiver's socket must stay quiet before a finished receiver stops.
const QUIET: Duration = Duration::from_secs(1);

pub struct Receiver {
    stop: mpsc::Sender<()>,
    handle: JoinHandle<(Vec<u32>, u64)>,
}

impl Receiver {
    pub fn start(pair: &Pair, check: bool) -> Receiver {
        let (stop, stopped) = mpsc::channel::<()>();
        // The sender may start as soon as this returns: the socket must be bound by then, or
        // the first datagrams meet a closed port (44 of 2,700 were lost so on a loaded machine).
        let (bound_tx, bound) = mpsc::channel::<()>();
        let ns = pair.ns('b');
        let net = pair.net;
        let handle = std::thread::spawn(move || {
            enter(&ns);
            let sock = UdpSocket::bind(format!("10.{net}.0.2:9")).expect("bind b");
            // Room for a whole burst while the test thread is busy.
            let size: libc::c_int = 8 << 20;
            // SAFETY: setsockopt on our socket with an int option.
            unsafe {
                libc::setsockopt(
                    sock.as_raw_fd(),
                    libc::SOL_SOCKET,
                    libc::SO_RCVBUFFORCE,
                    (&size as *const libc::c_int).cast(),
                    std::mem::size_of::<libc::c_int>() as libc::socklen_t,
                );
            }
            sock.set_read_timeout(Some(Duration::from_millis(100))).ok();
            let _ = bound_tx.send(());
            let mut buf = [0u8; 2048];
            let mut want = [0u8; 2048];
            let (mut seqs, mut damaged) = (Vec::new(), 0u64);
            let mut stop_asked = false;
            let mut last = std::time::Instant::now();
            loop {
                let got = sock.recv(&mut buf);
                if got.is_ok() {
                    last = std::time::Instant::now();
                }
                match got {
                    Ok(n) if check => {
                        let seq = if n >= 4 {
                            u32::from_be_bytes(buf[..4].try_into().unwrap())
                        } else {
                            u32::MAX
                        };
                        payload(seq, n.max(4), &mut want);
                        if n < 4 || buf[..n] != want[..n] {
                            damaged += 1;
                        }
                        seqs.push(seq);
                    }
                    Ok(_) => {}
                    Err(_) => {
                        stop_asked = stop_asked || stopped.try_recv().is_ok();
                        // Quiet for a whole second, not one timeout: on a loaded machine the
                        // last datagrams can still be on their way through the kernel.
                        if stop_asked && last.elapsed() >= QUIET {
                            break;
                        }
                    }
                }
            }
            (seqs, damaged)
        });
        bound
            .recv_timeout(Duration::from_secs(10))
            .expect("the receiver bound its socket within 10 s");
        Receiver { stop, handle }
    }

    /// Stop once the socket has been quiet for `QUIET`: (sequence numbers, damaged).
    pub fn finish(self) -> (Vec<u32>, u64) {
        let _ = self.stop.send(());
        self.handle.join().expect("receiver")
    }
}
