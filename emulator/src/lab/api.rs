//! The control API (docs/protocol/emulator-control-v1.md): an HTTP/JSON
//! server on its own thread that parses and checks requests, then hands them
//! to the engine thread over a bounded channel and waits for the answer.

use std::io::Read;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;
use std::time::Duration;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tiny_http::{Header, Method, Response, Server};

use super::addr::{host_by_mac, parse_switch_id, topology_json};
use super::config::FabricConfig;
use super::engine::{
    ApiError, ApiResult, Command, FabricEngine, FlowSpec, MirrorSpec, Request, SinkSpec,
};
use super::rules::{Mac, OpKind, RuleActions, RuleMatch, RuleOp};

/// Largest request body accepted.
const MAX_BODY: u64 = 8 << 20;
/// Requests waiting for the engine; more are answered 503.
const QUEUE: usize = 64;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesBody {
    version: u32,
    ops: Vec<OpBody>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OpBody {
    op: OpKind,
    switch: String,
    priority: u32,
    #[serde(rename = "match", default)]
    matcher: RuleMatch,
    #[serde(default)]
    actions: Option<RuleActions>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MirrorsBody {
    version: u32,
    #[serde(default)]
    sink: Option<SinkBody>,
    mirrors: Vec<MirrorBody>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
enum SinkBody {
    Interface { name: String },
    Pcap { path: PathBuf },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct MirrorBody {
    switch: String,
    rspan_vlan: u16,
    rate_bps: u64,
    buffer_bytes: u64,
    snap_len: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FlowsBody {
    version: u32,
    flows: Vec<FlowBody>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct FlowBody {
    id: u64,
    src: Mac,
    dst: Mac,
    bytes: u64,
    #[serde(default)]
    start_us: f64,
    sport: u16,
    dport: u16,
}

/// Identity facts the API needs to resolve names without asking the engine.
struct Names {
    switches: usize,
    hosts: usize,
}

fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| ApiError::bad(format!("bad body: {e}")))
}

fn check_version(v: u32) -> Result<(), ApiError> {
    if v == 1 {
        Ok(())
    } else {
        Err(ApiError::bad(format!(
            "unsupported version {v}, expected 1"
        )))
    }
}

fn switch_index(id: &str, n: &Names) -> Result<usize, ApiError> {
    parse_switch_id(id, n.switches).ok_or_else(|| ApiError::bad(format!("unknown switch {id:?}")))
}

fn rules_command(body: &[u8], n: &Names) -> Result<Command, ApiError> {
    let b: RulesBody = parse(body)?;
    check_version(b.version)?;
    let mut ops = Vec::with_capacity(b.ops.len());
    for (i, o) in b.ops.into_iter().enumerate() {
        if o.op == OpKind::Add && o.actions.is_none() {
            return Err(ApiError::bad(format!("op {i}: add needs actions")));
        }
        ops.push(RuleOp {
            kind: o.op,
            switch: switch_index(&o.switch, n)
                .map_err(|e| ApiError::bad(format!("op {i}: {}", e.message)))?,
            priority: o.priority,
            matcher: o.matcher,
            actions: o.actions,
        });
    }
    Ok(Command::Rules(ops))
}

fn mirrors_command(body: &[u8], n: &Names) -> Result<Command, ApiError> {
    let b: MirrorsBody = parse(body)?;
    check_version(b.version)?;
    let mut mirrors = Vec::new();
    for (i, m) in b.mirrors.into_iter().enumerate() {
        if !(1..=4094).contains(&m.rspan_vlan) {
            return Err(ApiError::bad(format!(
                "mirror {i}: rspanVlan must be in 1..=4094"
            )));
        }
        if m.rate_bps == 0 || m.buffer_bytes < 64 || !(64..=65535).contains(&m.snap_len) {
            return Err(ApiError::bad(format!(
                "mirror {i}: rateBps must be > 0, bufferBytes >= 64, snapLen in 64..=65535"
            )));
        }
        mirrors.push(MirrorSpec {
            switch: switch_index(&m.switch, n)?,
            vlan: m.rspan_vlan,
            rate_bps: m.rate_bps,
            buffer_bytes: m.buffer_bytes,
            snap_len: m.snap_len,
        });
    }
    let sink = b.sink.map(|s| match s {
        SinkBody::Interface { name } => SinkSpec::Interface(name),
        SinkBody::Pcap { path } => SinkSpec::Pcap(path),
    });
    Ok(Command::Mirrors { sink, mirrors })
}

fn flows_command(body: &[u8], n: &Names) -> Result<Command, ApiError> {
    let b: FlowsBody = parse(body)?;
    check_version(b.version)?;
    let mut flows = Vec::new();
    for (i, f) in b.flows.into_iter().enumerate() {
        let host = |m: Mac| {
            host_by_mac(m, n.hosts)
                .ok_or_else(|| ApiError::bad(format!("flow {i}: unknown host {m}")))
        };
        flows.push(FlowSpec {
            id: f.id,
            src: host(f.src)?,
            dst: host(f.dst)?,
            bytes: f.bytes,
            start_us: f.start_us,
            sport: f.sport,
            dport: f.dport,
        });
    }
    Ok(Command::StartFlows(flows))
}

/// Which request body a byte string is parsed as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyKind {
    Rules,
    Mirrors,
    Flows,
}

/// Parse and check one request body against a fabric of `switches` switches
/// and `hosts` hosts, as the server does before the engine sees it.
pub fn parse_body(
    kind: BodyKind,
    body: &[u8],
    switches: usize,
    hosts: usize,
) -> Result<Command, ApiError> {
    let n = Names { switches, hosts };
    match kind {
        BodyKind::Rules => rules_command(body, &n),
        BodyKind::Mirrors => mirrors_command(body, &n),
        BodyKind::Flows => flows_command(body, &n),
    }
}

fn ask(tx: &SyncSender<Request>, cmd: Command) -> ApiResult {
    let (rtx, rrx) = sync_channel(1);
    match tx.try_send(Request { cmd, reply: rtx }) {
        Ok(()) => {}
        Err(TrySendError::Full(_)) => {
            return Err(ApiError {
                code: 503,
                message: "engine busy, retry".into(),
            });
        }
        Err(TrySendError::Disconnected(_)) => {
            return Err(ApiError {
                code: 503,
                message: "engine stopped".into(),
            });
        }
    }
    rrx.recv_timeout(Duration::from_secs(10))
        .unwrap_or_else(|_| {
            Err(ApiError {
                code: 504,
                message: "engine did not answer".into(),
            })
        })
}

fn json_response(code: u16, v: &Value) -> Response<std::io::Cursor<Vec<u8>>> {
    let header =
        Header::from_bytes(&b"Content-Type"[..], &b"application/json"[..]).expect("static header");
    Response::from_data(serde_json::to_vec(v).unwrap_or_default())
        .with_status_code(code)
        .with_header(header)
}

fn error_json(e: &ApiError) -> Value {
    json!({"code": e.code, "message": e.message})
}

/// A running fabric: the control API's address and the two threads.
pub struct RunningFabric {
    pub addr: SocketAddr,
    pub engine: JoinHandle<()>,
    pub server: JoinHandle<()>,
}

impl RunningFabric {
    /// Wait until a `POST /v1/shutdown` stopped both threads.
    pub fn join(self) {
        let _ = self.server.join();
        let _ = self.engine.join();
    }
}

/// Build the engine, bind the control API and start both threads.
pub fn start(cfg: &FabricConfig) -> anyhow::Result<RunningFabric> {
    let engine = FabricEngine::new(cfg, cfg.fabric.spin)?;
    let link_bps = (cfg.fabric.link_gbps * 1e9) as u64;
    let topo_doc = topology_json(engine.topology(), link_bps);
    let names = Names {
        switches: engine.topology().switches.len(),
        hosts: engine.topology().endpoints.len(),
    };
    let server = control_server_at_priority(&cfg.control.listen, cfg.control.rt_priority)
        .map_err(|e| anyhow::anyhow!("control.listen {}: {e}", cfg.control.listen))?;
    let addr = server
        .server_addr()
        .to_ip()
        .ok_or_else(|| anyhow::anyhow!("control.listen must be an IP address"))?;
    let (tx, rx) = sync_channel::<Request>(QUEUE);
    let rt_priority = cfg.control.rt_priority;
    // The engine is part of the loop too (it puts rules in force and emits the samples): when
    // it sleeps between batches it may run at a real-time priority of its own. Never while it
    // spins or waits slot by slot: a busy real-time thread would starve its core.
    let engine_rt = (cfg.fabric.engine_rt_priority > 0 && engine.sleeps_between_batches())
        .then_some(cfg.fabric.engine_rt_priority);
    let engine = std::thread::Builder::new()
        .name("fabric-engine".into())
        .spawn(move || {
            if let Some(p) = engine_rt {
                if let Err(e) = realtime_priority(p) {
                    eprintln!("planck-emu fabric: engine at normal priority (SCHED_FIFO {p}: {e})");
                }
            }
            engine.run(rx)
        })?;
    let server = std::thread::Builder::new()
        .name("fabric-control".into())
        .spawn(move || {
            if rt_priority > 0 {
                if let Err(e) = realtime_priority(rt_priority) {
                    eprintln!(
                        "planck-emu fabric: control API at normal priority (SCHED_FIFO {rt_priority}: {e})"
                    );
                }
            }
            serve(server, tx, topo_doc, names)
        })?;
    Ok(RunningFabric {
        addr,
        engine,
        server,
    })
}

/// The control server with its own threads at SCHED_FIFO `priority` (0: normal priority).
/// tiny_http reads every request in threads of its own (an accept thread and a pool it
/// starts), not in the thread that answers: at normal priority a rule batch waited there,
/// behind everything else on the machine, before the answering thread saw it. Those threads
/// inherit the policy of the thread that creates the server, so it is created in a thread at
/// that priority (without reset-on-fork for this one step).
fn control_server_at_priority(listen: &str, priority: u8) -> std::io::Result<Server> {
    if priority == 0 {
        return control_server(listen);
    }
    let listen = listen.to_string();
    std::thread::scope(|s| {
        s.spawn(move || {
            if let Err(e) = set_fifo(priority, 0) {
                eprintln!(
                    "planck-emu fabric: control API's reader threads at normal priority (SCHED_FIFO {priority}: {e})"
                );
            }
            control_server(&listen)
        })
        .join()
        .unwrap_or_else(|_| Err(std::io::Error::other("control server thread panicked")))
    })
}

/// Moves the calling thread to SCHED_FIFO at `priority`, with SCHED_RESET_ON_FORK.
fn realtime_priority(priority: u8) -> std::io::Result<()> {
    set_fifo(priority, libc::SCHED_RESET_ON_FORK)
}

fn set_fifo(priority: u8, flags: libc::c_int) -> std::io::Result<()> {
    if priority > 99 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "priority must be 1-99",
        ));
    }
    let param = libc::sched_param {
        sched_priority: i32::from(priority),
    };
    // SAFETY: pid 0 is the calling thread; `param` outlives the call.
    let rc = unsafe {
        libc::sched_setscheduler(0, libc::SCHED_FIFO | flags, &param)
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Binds the control API with TCP_NODELAY on the listening socket, which Linux hands on to
/// every accepted connection. tiny_http writes a response through a 1 KiB buffer, so an
/// answer of a few KiB (counters, flows, topology) leaves in several segments; with Nagle on,
/// each one after the first waits for the ACK of the last, which the client delays by up to
/// 40 ms. Every hop of the control loop pays that otherwise.
fn control_server(listen: &str) -> std::io::Result<Server> {
    use std::os::fd::AsRawFd;
    let listener = std::net::TcpListener::bind(listen)?;
    let one: libc::c_int = 1;
    // SAFETY: a valid socket fd owned by `listener`, and a c_int option value of its size.
    let rc = unsafe {
        libc::setsockopt(
            listener.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_NODELAY,
            (&one as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Server::from_listener(listener, None).map_err(std::io::Error::other)
}

fn serve(server: Server, tx: SyncSender<Request>, topo_doc: Value, names: Names) {
    for mut req in server.incoming_requests() {
        let mut body = Vec::new();
        if req
            .as_reader()
            .take(MAX_BODY + 1)
            .read_to_end(&mut body)
            .is_err()
            || body.len() as u64 > MAX_BODY
        {
            let e = ApiError::bad("body unreadable or larger than 8 MiB");
            let _ = req.respond(json_response(400, &error_json(&e)));
            continue;
        }
        let path = req.url().split('?').next().unwrap_or("").to_string();
        let method = req.method().clone();
        if method == Method::Post && path == "/v1/shutdown" {
            let _ = ask(&tx, Command::Shutdown);
            let _ = req.respond(Response::empty(204));
            return;
        }
        let result: ApiResult = match (method, path.as_str()) {
            (Method::Get, "/v1/topology") => Ok(topo_doc.clone()),
            (Method::Get, "/v1/counters") => ask(&tx, Command::Counters),
            (Method::Get, "/v1/status") => ask(&tx, Command::Status),
            (Method::Get, "/v1/flows") => ask(&tx, Command::Flows),
            (Method::Post, "/v1/rules") => rules_command(&body, &names).and_then(|c| ask(&tx, c)),
            (Method::Put, "/v1/mirrors") => {
                mirrors_command(&body, &names).and_then(|c| ask(&tx, c))
            }
            (Method::Post, "/v1/flows") => flows_command(&body, &names).and_then(|c| ask(&tx, c)),
            (
                _,
                "/v1/topology" | "/v1/counters" | "/v1/status" | "/v1/flows" | "/v1/rules"
                | "/v1/mirrors" | "/v1/shutdown",
            ) => Err(ApiError {
                code: 405,
                message: "method not allowed".into(),
            }),
            _ => Err(ApiError {
                code: 404,
                message: format!("no resource {path}"),
            }),
        };
        let resp = match result {
            Ok(v) => json_response(200, &v),
            Err(e) => json_response(e.code, &error_json(&e)),
        };
        let _ = req.respond(resp);
    }
}
