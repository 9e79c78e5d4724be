#!/usr/bin/env bash
# The INT XDP fast path (int.xdp, collector/bpf/int_xdp.c) on a veth pair between two
# network namespaces created here. A scripted sequence of 322 reports (examples/int_send.rs:
# 8 flows, 6 hops, INT v0.5 and v1.0, 40 rounds, then a v2 report and garbage) is sent
# twice: to the collector without XDP, then with the program attached. Checks:
# - the kernel sent up exactly the 16 reports the script expects, for the expected reasons
#   (8 new flows, a hop latency, a link and a queue interval, a path change, two header
#   shapes, v2 and garbage), and filtered the other 306;
# - the collector's INT metrics (events by measurement and cause, table sizes, rejections)
#   equal those of the run without XDP, and its reports plus the filtered ones equal the
#   reports of that run;
# - bad xdp configuration (no such interface, no interface given) fails with one line.
# A run in which reports came up because the collector was still busy with earlier ones
# (counter busy > 0: the machine too slow for the script's pacing) is repeated with
# slower pacing, at most three times.
#
# Needs root, ip, curl, clang-14 + libbpf-dev (scripts/deps.sh). Under a minute.
set -euo pipefail

NAME=int-xdp
fail() { echo "FAIL $NAME: $*"; exit 1; }
for tool in ip curl timeout; do
  command -v "$tool" >/dev/null || fail "missing $tool"
done
[ "$(id -u)" = 0 ] || fail "needs root (network namespaces, XDP)"

REPO=$(cd "$(dirname "$0")/../../.." && pwd)
TARGET_DIR=${CARGO_TARGET_DIR:-$REPO/target}
BIN="$TARGET_DIR/release/planck-collector"
SEND="$TARGET_DIR/release/examples/int_send"
"$REPO/scripts/cargo-release.sh" -p planck-collector --bin planck-collector --example int_send || fail "build"

P=ix$(printf '%04x' $((RANDOM % 65536)))
NS_S=${P}s
NS_C=${P}c
D=$(mktemp -d /tmp/planck-$NAME.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  ip netns del "$NS_S" 2>/dev/null || true
  ip netns del "$NS_C" 2>/dev/null || true
  rm -rf "$D"
}
trap cleanup EXIT

ip netns add "$NS_S"
ip netns add "$NS_C"
ip link add "${P}s0" type veth peer name "${P}c0"
ip link set "${P}s0" netns "$NS_S"
ip link set "${P}c0" netns "$NS_C"
ip -n "$NS_S" addr add 10.77.0.1/24 dev "${P}s0"
ip -n "$NS_C" addr add 10.77.0.2/24 dev "${P}c0"
for ns in "$NS_S" "$NS_C"; do ip -n "$ns" link set lo up; done
ip -n "$NS_S" link set "${P}s0" up
ip -n "$NS_C" link set "${P}c0" up

config() {  # file, with xdp (yes/no)
  cat > "$1" <<CONF
metrics_listen = "127.0.0.1:9901"
[int]
listen = ["0.0.0.0:54321"]
push_interval_ms = 600000
idle_timeout_ms = 1200000
CONF
  if [ "$2" = yes ]; then printf '[int.xdp]\ninterface = "%s"\n' "${P}c0" >> "$1"; fi
}

metrics() { ip netns exec "$NS_C" curl -fsS --max-time 2 http://127.0.0.1:9901/metrics; }
value() {  # metrics file, series (exact, with labels) -> value or 0
  awk -v s="$2" '$1 == s { print $2; f = 1 } END { if (!f) print 0 }' "$1"
}

# Runs the script against a collector with config $1; leaves its metrics in $2 and the
# script's expectation in $3.
run() {
  local cfg=$1 out=$2 expect=$3 settle=$4
  ip netns exec "$NS_C" timeout 120 "$BIN" int --config "$cfg" > "$D/collector.log" 2>&1 &
  local pid=$!
  PIDS+=("$pid")
  for _ in $(seq 1 50); do metrics >/dev/null 2>&1 && break; sleep 0.1; done
  metrics >/dev/null || fail "collector did not come up: $(cat "$D/collector.log")"
  ip netns exec "$NS_S" timeout 60 "$SEND" script 10.77.0.2:54321 "$settle" > "$expect" || fail "sender"
  # The metrics refresh every 500 ms; wait until every report is accounted for.
  local sent got
  sent=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sent"])' "$expect")
  for _ in $(seq 1 40); do
    metrics > "$out"
    got=$(( $(value "$out" planck_collector_int_datagrams_total) + $(value "$out" 'planck_collector_int_xdp_reports_total{outcome="filtered"}') ))
    [ "$got" -ge "$sent" ] && break
    sleep 0.25
  done
  sleep 0.6
  metrics > "$out"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
}

# The INT metrics both runs must agree on.
int_metrics() {
  grep -E '^planck_collector_int_(events_total|keys|keys_refused_total|keys_expired_total|rejected_total)[{ ]' "$1" | sort
}
reports() {
  grep -E '^planck_collector_int_reports_total' "$1" | awk '{ s += $2 } END { print s + 0 }'
}

config "$D/user.toml" no
config "$D/xdp.toml" yes

run "$D/user.toml" "$D/user.metrics" "$D/user.expect" 5
int_metrics "$D/user.metrics" > "$D/user.int"
[ "$(reports "$D/user.metrics")" = 321 ] || fail "userspace run: $(reports "$D/user.metrics") reports decoded, want 321"
grep -q 'events_total{measurement="queue_occupancy",cause="interval"} 1' "$D/user.int" || fail "userspace run lacks the queue interval event"

settle=30
for attempt in 1 2 3; do
  run "$D/xdp.toml" "$D/xdp.metrics" "$D/xdp.expect" "$settle"
  busy=$(value "$D/xdp.metrics" 'planck_collector_int_xdp_passed_total{reason="busy"}')
  [ "$busy" = 0 ] && break
  echo "$NAME: attempt $attempt: $busy reports came up while the collector was busy; slower pacing"
  settle=$((settle * 3))
done
[ "$busy" = 0 ] || fail "busy after three attempts"

m="$D/xdp.metrics"
want() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, d))' "$D/xdp.expect" "$1"; }
[ "$(value "$m" 'planck_collector_int_xdp_reports_total{outcome="reports"}')" = "$(want sent)" ] || fail "kernel saw $(value "$m" 'planck_collector_int_xdp_reports_total{outcome="reports"}') reports, sent $(want sent)"
[ "$(value "$m" 'planck_collector_int_xdp_reports_total{outcome="ring"}')" = "$(want ring)" ] || fail "ring: $(value "$m" 'planck_collector_int_xdp_reports_total{outcome="ring"}'), want $(want ring)"
[ "$(value "$m" 'planck_collector_int_xdp_reports_total{outcome="filtered"}')" = "$(want filtered)" ] || fail "filtered: $(value "$m" 'planck_collector_int_xdp_reports_total{outcome="filtered"}'), want $(want filtered)"
for reason in unsupported no_entry shape path latency shared due busy; do
  got=$(value "$m" "planck_collector_int_xdp_passed_total{reason=\"$reason\"}")
  exp=$(want "passed.get('$reason', 0)")
  [ "$got" = "$exp" ] || fail "passed for $reason: $got, want $exp"
done
[ "$(value "$m" planck_collector_int_xdp_map_write_errors_total)" = 0 ] || fail "map write errors"
int_metrics "$m" > "$D/xdp.int"
diff -u "$D/user.int" "$D/xdp.int" > "$D/diff" || fail "INT metrics differ from the userspace run: $(cat "$D/diff")"
up=$(reports "$m")
filtered=$(value "$m" 'planck_collector_int_xdp_reports_total{outcome="filtered"}')
[ $((up + filtered)) = 321 ] || fail "reports $up + filtered $filtered != 321"

# Bad configuration: one line, non-zero exit.
printf 'metrics_listen = "127.0.0.1:9901"\n[int]\n[int.xdp]\ninterface = "%snone"\n' "$P" > "$D/bad1.toml"
printf 'metrics_listen = "127.0.0.1:9901"\n[int]\n[int.xdp]\n' > "$D/bad2.toml"
for bad in bad1 bad2; do
  if ip netns exec "$NS_C" timeout 10 "$BIN" int --config "$D/$bad.toml" > "$D/$bad.out" 2>&1; then
    fail "$bad.toml was accepted"
  fi
  [ "$(wc -l < "$D/$bad.out")" = 1 ] || fail "$bad.toml: not one line: $(cat "$D/$bad.out")"
  grep -q 'int.xdp' "$D/$bad.out" || fail "$bad.toml: $(cat "$D/$bad.out")"
done

echo "PASS $NAME: $(want ring) reports up ($(want passed)), $(want filtered) filtered in the kernel; INT metrics equal the userspace run ($(wc -l < "$D/xdp.int") series)"
