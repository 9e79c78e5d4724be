//! `planck-fct`: a request/response load generator for real hosts, to measure
//! flow completion times (FCT) of real TCP over an emulated scheme or a kernel
//! reference network (docs/realhosts.md).
//!
//! `server` answers each connection's request (an 8-byte big-endian size) with
//! that many bytes and closes. `client` opens one connection per flow at
//! Poisson arrival times (rate = load x link rate / mean flow size, sizes from
//! the emulator's flow-size CDFs), picks a server uniformly at random, and
//! records per flow the time from `connect` to the last byte received (FCT)
//! in a CSV. The flows are the servers' responses, so the load falls on the
//! client's downlink, as in the pFabric / DCTCP web-search experiments.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use planck_emu::endpoint::sizes::{DATA_MINING_CDF, SizeDistribution, WEB_SEARCH_CDF};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp};

/// Largest response a request may ask for: bounds what a bad request costs.
const MAX_FLOW_BYTES: u64 = 1 << 30;
/// Connections a server serves at once; further ones wait in the backlog.
const MAX_SERVER_CONNS: usize = 1024;

#[derive(Parser)]
#[command(name = "planck-fct", about = "FCT load generator for real hosts")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Answer requests: read an 8-byte big-endian size, send that many bytes, close.
    Server {
        #[arg(long, default_value = "0.0.0.0:5300")]
        bind: SocketAddr,
        /// Exit after this many seconds (bounded runs).
        #[arg(long, default_value_t = 3600.0)]
        seconds: f64,
        /// Mark each response's packets with its remaining size as IP precedence
        /// (pFabric's priority for unmodified TCP; see `class_for_remaining`).
        #[arg(long)]
        tos_by_remaining: bool,
        /// TCP congestion control of the responses (TCP_CONGESTION; root may pick
        /// any the kernel has, e.g. cubic when the namespace's default is bbr).
        #[arg(long)]
        cc: Option<String>,
    },
    /// Open one connection per flow at Poisson times; write one CSV row per flow.
    Client {
        /// Servers, comma-separated ip:port.
        #[arg(long, value_delimiter = ',', required = true)]
        servers: Vec<SocketAddr>,
        /// Offered load on this client's downlink, 0..1.
        #[arg(long)]
        load: f64,
        /// The client's link rate, Gb/s (the load's denominator).
        #[arg(long, default_value_t = 1.0)]
        link_gbps: f64,
        /// web_search, data_mining or a CDF file ("bytes cdf" per line).
        #[arg(long, default_value = "web_search")]
        cdf: String,
        /// Start flows for this long (seconds).
        #[arg(long)]
        seconds: f64,
        /// Then wait at most this long for flows still running; they are written unfinished.
        #[arg(long, default_value_t = 10.0)]
        drain_seconds: f64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Flows in flight at most; an arrival beyond it is recorded as not started.
        #[arg(long, default_value_t = 512)]
        max_inflight: usize,
        #[arg(long)]
        out: PathBuf,
    },
}

fn main() {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Server {
            bind,
            seconds,
            tos_by_remaining,
            cc,
        } => server(bind, seconds, tos_by_remaining, cc),
        Cmd::Client {
            servers,
            load,
            link_gbps,
            cdf,
            seconds,
            drain_seconds,
            seed,
            max_inflight,
            out,
        } => {
            let opts = ClientOpts {
                servers,
                load,
                link_gbps,
                cdf,
                seconds,
                drain_seconds,
                seed,
                max_inflight,
                out,
            };
            client(opts)
        }
    };
    if let Err(e) = r {
        eprintln!("planck-fct: {e:#}");
        std::process::exit(2);
    }
}

/// Remaining bytes of a response -> class (0 most urgent). The emulator reads
/// class = 7 - IP precedence, and pFabric serves the lowest class first, so a
/// response carries (a coarse, 8-level) remaining size as pFabric prescribes.
/// Bounds follow the web-search sizes' quantiles.
const CLASS_BOUNDS: [u64; 7] = [
    10_000, 30_000, 80_000, 200_000, 1_000_000, 3_000_000, 10_000_000,
];

fn class_for_remaining(left: u64) -> u8 {
    CLASS_BOUNDS.iter().position(|&b| left <= b).unwrap_or(7) as u8
}

fn set_tos(s: &impl std::os::fd::AsRawFd, class: u8) -> std::io::Result<()> {
    let tos: libc::c_int = ((7 - class as libc::c_int) << 5) & 0xe0;
    // SAFETY: setsockopt on a socket we own, with an int option value.
    let r = unsafe {
        libc::setsockopt(
            s.as_raw_fd(),
            libc::IPPROTO_IP,
            libc::IP_TOS,
            &tos as *const _ as *const libc::c_void,
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

fn set_cc(s: &impl std::os::fd::AsRawFd, cc: &str) -> std::io::Result<()> {
    // SAFETY: setsockopt on a socket we own, with a byte string of its length.
    let r = unsafe {
        libc::setsockopt(
            s.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            cc.as_ptr() as *const libc::c_void,
            cc.len() as libc::socklen_t,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

fn server(
    bind: SocketAddr,
    seconds: f64,
    tos_by_remaining: bool,
    cc: Option<String>,
) -> Result<()> {
    let listener = TcpListener::bind(bind).with_context(|| format!("bind {bind}"))?;
    listener.set_nonblocking(true)?;
    if tos_by_remaining {
        // The handshake (SYN-ACK) takes the listener's TOS: most urgent.
        set_tos(&listener, 0).context("IP_TOS")?;
    }
    if let Some(cc) = &cc {
        // Accepted sockets inherit the listener's congestion control.
        set_cc(&listener, cc).with_context(|| format!("TCP_CONGESTION {cc}"))?;
    }
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let active = Arc::new(AtomicUsize::new(0));
    while Instant::now() < deadline {
        match listener.accept() {
            Ok((s, _)) => {
                if active.load(Ordering::Relaxed) >= MAX_SERVER_CONNS {
                    drop(s); // refused: the client records the failure
                    continue;
                }
                active.fetch_add(1, Ordering::Relaxed);
                let active = active.clone();
                std::thread::spawn(move || {
                    let _ = serve(s, tos_by_remaining);
                    active.fetch_sub(1, Ordering::Relaxed);
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_micros(200));
            }
            Err(e) => return Err(e).context("accept"),
        }
    }
    Ok(())
}

fn serve(mut s: TcpStream, tos_by_remaining: bool) -> std::io::Result<()> {
    s.set_nonblocking(false)?;
    s.set_nodelay(true)?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut req = [0u8; 8];
    s.read_exact(&mut req)?;
    let size = u64::from_be_bytes(req);
    if size == 0 || size > MAX_FLOW_BYTES {
        return Err(std::io::Error::other("bad request size"));
    }
    let buf = [0u8; 64 * 1024];
    let mut left = size;
    let mut class = u8::MAX;
    while left > 0 {
        // With priorities, write in pieces no larger than the class's span so
        // that the class drops as the response drains (the kernel's send
        // buffer still holds up to its size of older, lower-class data).
        let mut n = left.min(buf.len() as u64);
        if tos_by_remaining {
            let c = class_for_remaining(left);
            if c != class {
                set_tos(&s, c)?;
                class = c;
            }
            if c > 0 {
                n = n.min(left - CLASS_BOUNDS[c as usize - 1]);
            }
        }
        s.write_all(&buf[..n as usize])?;
        left -= n;
    }
    s.shutdown(Shutdown::Write)
}

struct ClientOpts {
    servers: Vec<SocketAddr>,
    load: f64,
    link_gbps: f64,
    cdf: String,
    seconds: f64,
    drain_seconds: f64,
    seed: u64,
    max_inflight: usize,
    out: PathBuf,
}

struct Record {
    id: u64,
    server: SocketAddr,
    size: u64,
    start_us: f64,
    fct_us: Option<f64>,
    status: &'static str,
}

fn sizes(cdf: &str) -> Result<SizeDistribution> {
    let text = match cdf {
        "web_search" => WEB_SEARCH_CDF.to_string(),
        "data_mining" => DATA_MINING_CDF.to_string(),
        f => std::fs::read_to_string(f).with_context(|| format!("cdf {f}"))?,
    };
    SizeDistribution::parse(&text).map_err(anyhow::Error::msg)
}

/// One flow: connect, ask for `size` bytes, read them all. FCT from connect to the last byte.
fn fetch(server: SocketAddr, size: u64) -> std::result::Result<(), &'static str> {
    let mut s =
        TcpStream::connect_timeout(&server, Duration::from_secs(5)).map_err(|_| "connect")?;
    s.set_nodelay(true).map_err(|_| "socket")?;
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|_| "socket")?;
    s.write_all(&size.to_be_bytes()).map_err(|_| "request")?;
    let mut buf = vec![0u8; 64 * 1024];
    let mut got = 0u64;
    while got < size {
        match s.read(&mut buf) {
            Ok(0) => return Err("short"),
            Ok(n) => got += n as u64,
            Err(_) => return Err("read"),
        }
    }
    Ok(())
}

fn client(o: ClientOpts) -> Result<()> {
    if !(o.load > 0.0 && o.load <= 1.0) {
        bail!("--load must be in (0, 1], got {}", o.load);
    }
    if !(o.link_gbps > 0.0 && o.seconds > 0.0 && o.drain_seconds >= 0.0) {
        bail!("--link-gbps and --seconds must be > 0, --drain-seconds >= 0");
    }
    let dist = sizes(&o.cdf)?;
    let mean = dist.mean_bytes();
    // Flows per second so that their bytes fill `load` of the link.
    let rate = o.load * o.link_gbps * 1e9 / 8.0 / mean;
    let gaps = Exp::new(rate).context("arrival rate")?;
    let mut rng = SmallRng::seed_from_u64(o.seed);
    let mut w = csv::Writer::from_path(&o.out).with_context(|| format!("{}", o.out.display()))?;
    w.write_record(["id", "server", "size_bytes", "start_us", "fct_us", "status"])?;

    // One record per arrival, by id; a finished flow's thread sends its result back.
    let (tx, rx) = mpsc::channel::<(u64, Option<f64>, &'static str)>();
    let inflight = Arc::new(AtomicUsize::new(0));
    let t0 = Instant::now();
    let end = Duration::from_secs_f64(o.seconds);
    let mut next = Duration::ZERO;
    let mut records: Vec<Record> = Vec::new();
    let mut pending = 0usize;
    let take = |records: &mut Vec<Record>, (id, fct, status): (u64, Option<f64>, &'static str)| {
        let r = &mut records[id as usize];
        r.fct_us = fct;
        r.status = status;
    };
    loop {
        next += Duration::from_secs_f64(gaps.sample(&mut rng));
        if next >= end {
            break;
        }
        let server = o.servers[rng.gen_range(0..o.servers.len())];
        let size = (dist.sample_bytes(&mut rng).round() as u64).clamp(1, MAX_FLOW_BYTES);
        // Wait for the arrival time (sleep, then a short spin for precision).
        loop {
            let now = t0.elapsed();
            if now >= next {
                break;
            }
            let left = next - now;
            if left > Duration::from_micros(300) {
                std::thread::sleep(left - Duration::from_micros(200));
            } else {
                std::hint::spin_loop();
            }
        }
        while let Ok(m) = rx.try_recv() {
            take(&mut records, m);
            pending -= 1;
        }
        let id = records.len() as u64;
        let start_us = t0.elapsed().as_secs_f64() * 1e6;
        let full = inflight.load(Ordering::Acquire) >= o.max_inflight;
        records.push(Record {
            id,
            server,
            size,
            start_us,
            fct_us: None,
            status: if full { "not_started" } else { "unfinished" },
        });
        if full {
            continue;
        }
        inflight.fetch_add(1, Ordering::AcqRel);
        pending += 1;
        let (tx, inflight) = (tx.clone(), inflight.clone());
        std::thread::spawn(move || {
            let begin = Instant::now();
            let r = fetch(server, size);
            let fct = begin.elapsed().as_secs_f64() * 1e6;
            let _ = tx.send((id, r.is_ok().then_some(fct), r.err().unwrap_or("ok")));
            inflight.fetch_sub(1, Ordering::AcqRel);
        });
    }
    drop(tx);
    // Flows still running after the drain time stay "unfinished".
    let deadline = Instant::now() + Duration::from_secs_f64(o.drain_seconds);
    while pending > 0 {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(m) => {
                take(&mut records, m);
                pending -= 1;
            }
            Err(_) => break,
        }
    }
    let count = |st: &str| records.iter().filter(|r| r.status == st).count();
    for r in &records {
        w.write_record([
            r.id.to_string(),
            r.server.to_string(),
            r.size.to_string(),
            format!("{:.0}", r.start_us),
            r.fct_us.map(|f| format!("{f:.0}")).unwrap_or_default(),
            r.status.to_string(),
        ])?;
    }
    w.flush()?;
    eprintln!(
        "planck-fct: {} flows: {} completed, {} not started (max in flight), {} unfinished after the drain, \
         {} failed; {:.1} flows/s offered, mean size {:.0} B",
        records.len(),
        count("ok"),
        count("not_started"),
        count("unfinished"),
        records.len() - count("ok") - count("not_started") - count("unfinished"),
        rate,
        mean
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_follows_the_remaining_size() {
        assert_eq!(class_for_remaining(1), 0);
        assert_eq!(class_for_remaining(10_000), 0);
        assert_eq!(class_for_remaining(10_001), 1);
        assert_eq!(class_for_remaining(1_000_000), 4);
        assert_eq!(class_for_remaining(10_000_001), 7);
        // Never more urgent as more remains.
        let mut prev = 0;
        for left in (1..40_000_000).step_by(9_973) {
            let c = class_for_remaining(left);
            assert!(c >= prev);
            prev = c;
        }
    }
}
