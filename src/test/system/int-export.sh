#!/usr/bin/env bash
# INT export against real servers: a real influxd (Debian influxdb) and a real prometheus,
# each on loopback in its own temp dir, started and stopped here. planck-collector (the
# `int` subcommand) receives a scripted sequence of INT reports over UDP (built with scapy
# from the INT specs), writes its events to InfluxDB and shows its gauges on /metrics,
# which prometheus scrapes. Checks: the values queried back equal the values sent
# (InfluxDB: each key's value at its last event; Prometheus: each key's latest value), the
# event counts per measurement in InfluxDB and on /metrics equal what interval detection
# predicts for the script, and the two bad packets are counted by reason.
#
# Needs influxd, prometheus, curl, python3 with scapy (scripts/deps.sh).
set -euo pipefail

NAME=int-export
fail() { echo "FAIL $NAME: $*"; exit 1; }
for tool in influxd prometheus curl python3; do
  command -v "$tool" >/dev/null || fail "missing $tool (scripts/deps.sh installs it)"
done
python3 -c 'import scapy' 2>/dev/null || fail "python3 scapy missing (scripts/deps.sh installs python3-scapy)"

REPO=$(cd "$(dirname "$0")/../../.." && pwd)
TARGET_DIR=${CARGO_TARGET_DIR:-$REPO/target}
BIN="$TARGET_DIR/release/planck-collector"
"$REPO/scripts/cargo-release.sh" -p planck-collector || fail "build"

D=$(mktemp -d /tmp/planck-$NAME.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$D"
}
trap cleanup EXIT

# Free loopback ports, chosen by the kernel.
read -r INFLUX_HTTP INFLUX_RPC PROM_PORT METRICS_PORT INT_PORT < <(python3 - <<'PY'
import socket
socks = []
for kind in [socket.SOCK_STREAM] * 4 + [socket.SOCK_DGRAM]:
    s = socket.socket(socket.AF_INET, kind); s.bind(("127.0.0.1", 0)); socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
)

wait_for() {  # url, what
  for _ in $(seq 1 100); do
    curl -fsS -o /dev/null "$1" 2>/dev/null && return 0
    sleep 0.2
  done
  fail "$2 did not come up ($1)"
}

# --- influxd ---
cat > "$D/influxdb.conf" <<CONF
reporting-disabled = true
bind-address = "127.0.0.1:$INFLUX_RPC"
[meta]
  dir = "$D/influx/meta"
[data]
  dir = "$D/influx/data"
  wal-dir = "$D/influx/wal"
  query-log-enabled = false
[http]
  bind-address = "127.0.0.1:$INFLUX_HTTP"
  log-enabled = false
[monitor]
  store-enabled = false
[continuous_queries]
  enabled = false
CONF
influxd -config "$D/influxdb.conf" >"$D/influxd.log" 2>&1 &
PIDS+=($!)
wait_for "http://127.0.0.1:$INFLUX_HTTP/ping" influxd
curl -fsS -XPOST "http://127.0.0.1:$INFLUX_HTTP/query" --data-urlencode "q=CREATE DATABASE planck_int" >/dev/null \
  || fail "cannot create the database"

# --- collector ---
cat > "$D/collector.toml" <<CONF
metrics_listen = "127.0.0.1:$METRICS_PORT"
[int]
listen = ["127.0.0.1:$INT_PORT"]
push_interval_ms = 600000
[int.intervals]
flow_latency_ns = 100
hop_latency_ns = 100
link_utilization = 100
queue_occupancy = 10
queue_congestion = 10
[int.influx]
url = "http://127.0.0.1:$INFLUX_HTTP"
database = "planck_int"
flush_ms = 50
CONF
"$BIN" int --config "$D/collector.toml" >"$D/collector.log" 2>&1 &
PIDS+=($!)
wait_for "http://127.0.0.1:$METRICS_PORT/metrics" "collector /metrics"

# --- prometheus ---
cat > "$D/prometheus.yml" <<CONF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: planck-int
    static_configs:
      - targets: ["127.0.0.1:$METRICS_PORT"]
CONF
prometheus --config.file="$D/prometheus.yml" --storage.tsdb.path="$D/prom" \
  --web.listen-address="127.0.0.1:$PROM_PORT" >"$D/prometheus.log" 2>&1 &
PIDS+=($!)
wait_for "http://127.0.0.1:$PROM_PORT/-/ready" prometheus

# --- reports ---
timeout 60 python3 "$REPO/src/test/system/int/send_reports.py" 127.0.0.1 "$INT_PORT" "$D/expected.json" \
  || fail "sending reports"

# --- compare ---
if ! timeout 60 python3 - "$D/expected.json" "$INFLUX_HTTP" "$PROM_PORT" <<'PY'
import json, sys, time, urllib.parse, urllib.request
exp = json.load(open(sys.argv[1]))
influx, prom = sys.argv[2], sys.argv[3]

def get(url):
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.load(r)

def influx_q(q):
    res = get("http://127.0.0.1:%s/query?db=planck_int&q=%s" % (influx, urllib.parse.quote(q)))["results"][0]
    return res.get("series", [])

def prom_q(q):
    return get("http://127.0.0.1:%s/api/v1/query?query=%s" % (prom, urllib.parse.quote(q)))["data"]["result"]

def check(deadline, fn):
    last = None
    while time.time() < deadline:
        try:
            last = fn()
            if last is None:
                return
        except Exception as e:  # servers still catching up
            last = repr(e)
        time.sleep(0.5)
    print("mismatch:", last)
    sys.exit(1)

deadline = time.time() + 45
events = exp["events"]

def influx_counts():
    got = {}
    for m in events:
        field = "hops" if m == "flow_path" else "value"
        s = influx_q('SELECT count("%s") FROM "int_%s"' % (field, m))
        got[m] = s[0]["values"][0][1] if s else 0
    return None if got == events else ("influx event counts", got, "want", events)
check(deadline, influx_counts)

def influx_last():
    for m, items in exp["last_event"].items():
        for it in items:
            k = it["key"]
            if m in ("queue_occupancy", "queue_congestion"):
                where = "\"switch\"='%d' AND \"queue\"='%d'" % (k[0], k[1])
            elif m == "link_utilization":
                where = "\"switch\"='%d' AND \"port\"='%d'" % (k[0], k[1])
            elif m == "hop_latency":
                where = "\"dst\"='%s' AND \"switch\"='%d'" % (k[0], k[1])
            else:
                where = "\"dst\"='%s'" % k[0]
            s = influx_q('SELECT last("value") FROM "int_%s" WHERE %s' % (m, where))
            got = s[0]["values"][0][1] if s else None
            if got != it["value"]:
                return ("influx last", m, k, got, "want", it["value"])
    return None
check(deadline, influx_last)

def prom_values():
    for m in ("queue_occupancy", "queue_congestion", "link_utilization"):
        for it in exp["last"][m]:
            k = it["key"]
            label = "port" if m == "link_utilization" else "queue"
            r = prom_q('planck_collector_int_%s{switch="%d",%s="%d"}' % (m, k[0], label, k[1]))
            got = float(r[0]["value"][1]) if r else None
            if got != it["value"]:
                return ("prometheus", m, k, got, "want", it["value"])
    for m, n in events.items():
        r = prom_q('sum(planck_collector_int_events_total{measurement="%s"})' % m)
        got = float(r[0]["value"][1]) if r else None
        if got != n:
            return ("prometheus events", m, got, "want", n)
    r = prom_q('sum(planck_collector_int_reports_total)')
    if not r or float(r[0]["value"][1]) != exp["reports"]:
        return ("prometheus reports", r, "want", exp["reports"])
    for reason, n in exp["rejected"].items():
        r = prom_q('planck_collector_int_rejected_total{reason="%s"}' % reason)
        if not r or float(r[0]["value"][1]) != n:
            return ("prometheus rejected", reason, r, "want", n)
    return None
check(deadline, prom_values)
print("events %s" % json.dumps(events, sort_keys=True))
PY
then
  echo "--- collector log"; tail -20 "$D/collector.log"
  fail "values or event counts differ (above)"
fi
curl -fsS "http://127.0.0.1:$METRICS_PORT/metrics" >"$D/metrics.txt" || fail "collector /metrics"
grep -q '^planck_collector_int_influx_lines_total [1-9]' "$D/metrics.txt" \
  || fail "collector reports no lines written to InfluxDB"
# promtool reads the OpenMetrics exposition as text format and so finds no HELP for
# counters (OpenMetrics names the family without _total); anything else is a finding.
out=$(promtool check metrics <"$D/metrics.txt" 2>&1 | grep -v '_total no help text$' || true)
[ -z "$out" ] || fail "promtool check metrics: $out"
echo "PASS $NAME: reports through planck-collector into influxd and prometheus; values and event counts as predicted"
