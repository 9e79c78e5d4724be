#!/usr/bin/env bash
# Real-host FCT accuracy (docs/realhosts.md): 8 servers and 2 clients, every link at GBPS,
# the web-search workload (planck-fct: one TCP connection per flow, Poisson arrivals, the
# servers' responses load the clients' downlinks) over
#   emu-droptail  the emulated rack, DropTail ports of BUFFER packets
#   emu-dctcp     the emulated rack, DCTCP marking (CE at queue >= K), ECN on in the hosts
#   emu-pfabric   the emulated rack, pFabric ports; servers set the IP precedence from the
#                 response's remaining size (planck-fct server --tos-by-remaining)
#   emu-hull      the emulated rack, HULL phantom queues (defaults: gamma 0.95, mark above 2 packets), ECN
#   kern-droptail a kernel reference: a Linux bridge in a namespace, every port shaped to GBPS
#                 by HTB with a pfifo of BUFFER packets
#   kern-ecn      the same pfifo, and DCTCP-style marking at K by a tc egress BPF program
#                 (ecn_marker.bpf.c: CE on ECT frames arriving to a virtual copy of the
#                 port's queue, drained at GBPS, of >= K frames), ECN on in the hosts; needs
#                 clang and libbpf-dev (scripts/deps.sh)
#   kern-red      the same with RED marking at K (min K, max K+1 packets, probability 1,
#                 EWMA weight 1/2, ecn), ECN on in the hosts; needs sch_red
# Hosts' own interfaces are shaped to GBPS too (HTB, pfifo 1024 = the emulator's NIC queue).
# Hosts run cubic (set per socket on the servers: this kernel's namespaces default to bbr),
# except under ECN marking (emu-dctcp, emu-hull, kern-ecn, kern-red), where they run DCTCP:
# the kernel's tcp_dctcp if it has one, else planck_dctcp, registered for the run by
# dctcp-cc.sh (a BPF congestion control; this kernel offers reno, cubic and bbr only), on the
# servers' sockets and as the namespaces' default (the clients' CE echo), which takes it into
# net.ipv4.tcp_allowed_congestion_control for the run (restored on exit). Runs before Nov 26
# (second session) had cubic with ECN there, which halves on a mark.
#
# Usage (root): emulator/realhosts/fct-accuracy.sh OUT_DIR
#   NETS="emu-droptail emu-dctcp kern-droptail kern-red" LOADS="0.2 0.4 0.6" SEEDS="1 2 3"
#   RUN_SECONDS=20 GBPS=1 BUFFER=100 K=20 SLOT_DIV=4
# SLOT_DIV: emulated slots per full frame's time at GBPS (slot_gbps = SLOT_DIV x GBPS); frames
# hold a link for their own length (real_hosts.frame_time = "length"), so a 66-byte ACK passes
# a link in one slot where a 1,514-byte frame takes SLOT_DIV (HULL's phantom queues drain at
# gamma of their link's rate, whatever the slots).
# Then: python3 emulator/realhosts/fct_table.py OUT_DIR
# Every name starts with a random prefix fa<4 hex>; everything is removed on exit. Each run
# is bounded (timeout) and the whole script by the product of its loops.
set -euo pipefail

OUT=${1:?usage: fct-accuracy.sh OUT_DIR}
NETS=${NETS:-emu-droptail kern-droptail emu-dctcp kern-ecn emu-pfabric emu-hull}
LOADS=${LOADS:-0.2 0.4 0.6}
SEEDS=${SEEDS:-1 2 3}
RUN_SECONDS=${RUN_SECONDS:-20}
DRAIN_SECONDS=${DRAIN_SECONDS:-10}
GBPS=${GBPS:-1}
BUFFER=${BUFFER:-100}
K=${K:-20}
SLOT_DIV=${SLOT_DIV:-4}
# CPUs: the emulator's thread spins on EMU_CPU; every host process (servers, clients, and so
# their TCP stacks' sending side) runs on HOST_CPUS, in the kernel runs too, so hosts see the
# same machine on every network; the kernel bridge's work goes to EMU_CPU by RPS on its ports,
# and the hosts' receive work (IP, TCP, waking the program) to HOST_CPUS by RPS on the hosts'
# veths, on both networks (the emulator's real_hosts.receive_cpus), so that neither the bridge
# nor the emulator does a receiving host's work in its own writes to that host.
# Empty (the default on a 1-CPU machine): no pinning.
if [ "$(nproc)" -ge 2 ]; then EMU_CPU=${EMU_CPU-0}; HOST_CPUS=${HOST_CPUS-1-$(($(nproc) - 1))}; fi
EMU_CPU=${EMU_CPU:-}
HOST_CPUS=${HOST_CPUS:-}
# Command prefixes (taskset execs the command: a background job's $! stays its PID).
EMU_PIN=()
HOST_PIN=()
[ -z "$EMU_CPU" ] || EMU_PIN=(taskset -c "$EMU_CPU")
[ -z "$HOST_CPUS" ] || HOST_PIN=(taskset -c "$HOST_CPUS")
# This script and every process it starts (subshells, python3, ip, tc, sleep) run on HOST_CPUS
# too, so that none of them takes EMU_CPU from the emulator: scheduled there, they had held it
# for up to 5 ms at a time (perf sched), and the emulator, writing the stalled frames at once
# afterwards, made the hosts' ACK clocks send in synchronised bursts.
[ -z "$HOST_CPUS" ] || taskset -p -c "$HOST_CPUS" $$ >/dev/null
# A CPU list as taskset takes it ("1", "1-3", "0,2") -> its CPUs, space-separated.
cpus_of() {
  local parts part c out=()
  IFS=, read -ra parts <<<"$1"
  for part in "${parts[@]}"; do
    for ((c = ${part%-*}; c <= ${part#*-}; c++)); do out+=("$c"); done
  done
  echo "${out[@]}"
}
# HOST_CPUS as a sysfs CPU mask (32-CPU hexadecimal words, most significant first).
HOST_MASK=
if [ -n "$HOST_CPUS" ]; then
  words=() top=0
  for c in $(cpus_of "$HOST_CPUS"); do
    words[c / 32]=$((${words[c / 32]:-0} | 1 << (c % 32)))
    top=$((c / 32 > top ? c / 32 : top))
  done
  for ((w = top; w >= 0; w--)); do
    [ -z "$HOST_MASK" ] && HOST_MASK=$(printf '%x' "${words[w]:-0}") || HOST_MASK+=$(printf ',%08x' "${words[w]:-0}")
  done
fi
[ "$(id -u)" -eq 0 ] || { echo "fct-accuracy: needs root" >&2; exit 2; }

REPO=$(cd "$(dirname "$0")/../.." && pwd)
TARGET_DIR=${CARGO_TARGET_DIR:-$REPO/target}
(cd "$REPO" && cargo build --release -q -p planck-emu --bin planck-emu --bin planck-fct)
EMU=$TARGET_DIR/release/planck-emu
FCT=$TARGET_DIR/release/planck-fct
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cat >"$OUT/meta.json" <<EOF
{ "gbps": $GBPS, "buffer": $BUFFER, "k": $K, "slot_div": $SLOT_DIV, "emu_cpu": "$EMU_CPU", "host_cpus": "$HOST_CPUS", "run_seconds": $RUN_SECONDS, "seeds": "$SEEDS",
  "loads": "$LOADS", "nets": "$NETS", "kernel": "$(uname -r)" }
EOF

P=fa$(od -An -N2 -tx1 /dev/urandom | tr -d ' \n')
NET=10.214.$((RANDOM % 250)).
HOSTS=(s0 s1 s2 s3 s4 s5 s6 s7 c0 c1)
SERVERS=(s0 s1 s2 s3 s4 s5 s6 s7)
CLIENTS=(c0 c1)
ip_of() { # host -> address
  local i
  for i in "${!HOSTS[@]}"; do [ "${HOSTS[$i]}" = "$1" ] && echo "${NET}$((i + 1))" && return; done
}
EMU_PID=
EMU_CFG=
PIDS=()
log() { echo "[$(date +%H:%M:%S)] $*"; }

stop_emu() {
  [ -n "$EMU_PID" ] || return 0
  kill -TERM "$EMU_PID" 2>/dev/null || true
  for _ in $(seq 150); do kill -0 "$EMU_PID" 2>/dev/null || break; sleep 0.2; done
  kill -KILL "$EMU_PID" 2>/dev/null || true
  wait "$EMU_PID" 2>/dev/null || true
  EMU_PID=
}
teardown() {
  set +e
  stop_emu
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  PIDS=()
  [ -n "$EMU_CFG" ] && "$EMU" hosts down --config "$EMU_CFG" >/dev/null 2>&1
  EMU_CFG=
  for h in "${HOSTS[@]}"; do
    ip netns del "$P$h" 2>/dev/null
    ip link del "$P$h-e" 2>/dev/null
  done
  ip netns del "${P}sw" 2>/dev/null
  set -e
}
DCTCP_CC=$REPO/emulator/realhosts/dctcp-cc.sh
# The allowed list as it was; planck_dctcp unregistered only if this run registered it.
# Kernel threads that may run on any CPU (rcu_preempt, kdamond, khugepaged, kcompactd, unbound
# kworkers) go to HOST_CPUS for the experiment and back to their own CPUs on exit; per-CPU
# threads cannot move and stay. Left where they were, they took EMU_CPU from the emulator for
# up to 4 ms at a time (perf sched); with them moved, the emulator's max lag over the 18
# emulated runs of the standard set fell from 1.6-8.4 ms (median 4.2) to 2.3-5.1 ms (median
# 3.1) (docs/realhosts.md, Results). KTHREADS=stay leaves them alone.
KTHREADS=${KTHREADS:-move}
case $KTHREADS in move|stay) ;; *) echo "fct-accuracy: KTHREADS must be move or stay" >&2; exit 2 ;; esac
KT_SAVED=()
move_kthreads() {
  [ "$KTHREADS" = move ] && [ -n "$HOST_CPUS" ] && [ -n "$EMU_CPU" ] || return 0
  local pid cpus
  for pid in $(ps -o pid= --ppid 2); do
    cpus=$(taskset -p -c "$pid" 2>/dev/null | awk '{print $NF}') || continue
    # Only threads allowed on more than one CPU, the emulator's among them.
    case $cpus in *,*|*-*) ;; *) continue ;; esac
    case " $(cpus_of "$cpus") " in *" $EMU_CPU "*) ;; *) continue ;; esac
    taskset -p -c "$HOST_CPUS" "$pid" >/dev/null 2>&1 && KT_SAVED+=("$pid:$cpus")
  done
  echo "fct-accuracy: ${#KT_SAVED[@]} kernel threads moved to CPUs $HOST_CPUS for the run (KTHREADS=stay leaves them)" >&2
}
restore_kthreads() {
  local e
  for e in "${KT_SAVED[@]}"; do taskset -p -c "${e#*:}" "${e%%:*}" >/dev/null 2>&1 || true; done
  KT_SAVED=()
}
trap 'teardown; restore_kthreads; "$DCTCP_CC" restore "$OUT/cc.state"' EXIT
move_kthreads

# The hosts' DCTCP (see the header): its name, registered and allowed in namespaces.
dctcp_cc() {
  CC=$("$DCTCP_CC" select "$OUT/cc.state") || { echo "fct-accuracy: no DCTCP for the hosts" >&2; exit 2; }
}

host_sysctls() { # ecn(0|1) congestion-control
  for h in "${HOSTS[@]}"; do
    ip netns exec "$P$h" sysctl -qw net.ipv4.tcp_ecn="$1"
    [ "$2" = cubic ] || ip netns exec "$P$h" sysctl -qw net.ipv4.tcp_congestion_control="$2"
    # The host's NIC at GBPS, a FIFO as deep as the emulator's NIC queue.
    ip netns exec "$P$h" tc qdisc replace dev eth0 root handle 1: htb default 1
    ip netns exec "$P$h" tc class add dev eth0 parent 1: classid 1:1 htb rate "${GBPS}gbit" ceil "${GBPS}gbit" quantum 1514
    ip netns exec "$P$h" tc qdisc add dev eth0 parent 1:1 handle 10: pfifo limit 1024
  done
}

# The emulated rack: one switch, 10 endpoints, links at GBPS (a full frame takes SLOT_DIV slots).
emu_up() { # scheme-body [slots per frame time]
  local div=${2:-$SLOT_DIV}
  cat >"$OUT/rack.json" <<EOF
{ "switches": [{ "name": "tor" }],
  "endpoints": [$(printf '"%s",' "${HOSTS[@]}" | sed 's/,$//')],
  "links": [$(for h in "${HOSTS[@]}"; do
      printf '{ "a": "%s", "b": "tor", "gbps": %s, "buffer_pkts": %s, "latency_slots": 1 },' "$h" "$GBPS" "$BUFFER"
    done | sed 's/,$//')] }
EOF
  EMU_CFG=$OUT/emu.toml
  {
    cat <<EOF
[emulation]
slot_gbps = $(awk -v g="$GBPS" -v d="$div" 'BEGIN {print g * d}')
mode = "realtime"
duration_us = 3600000000.0
batch_slots = 1
sample_interval_slots = 10
[topology]
kind = "custom"
file = "rack.json"
[scheme]
$1
[real_hosts]
# The hosts' links add up to 10 x GBPS, but all responses end at the two clients: the
# real path carries at most 2 x GBPS of data plus ACKs and requests.
max_pps = 1000000
frame_time = "length"
${HOST_CPUS:+receive_cpus = \"$HOST_CPUS\"}
EOF
    for h in "${HOSTS[@]}"; do
      printf '[[real_hosts.host]]\nendpoint = "%s"\nnamespace = "%s"\naddress = "%s/24"\nveth = "%s"\n' \
        "$h" "$P$h" "$(ip_of "$h")" "$P$h-e"
    done
  } >"$EMU_CFG"
  "$EMU" hosts up --config "$EMU_CFG" >/dev/null
}
emu_start() { # run-dir
  "${EMU_PIN[@]}" "$EMU" run --config "$EMU_CFG" --out "$1/emu" >"$1/emu.summary.json" 2>"$1/emu.err" &
  EMU_PID=$!
  for _ in $(seq 100); do
    ip netns exec "${P}c0" ping -c1 -W1 "$(ip_of s0)" >/dev/null 2>&1 && return 0
    kill -0 "$EMU_PID" 2>/dev/null || { echo "emulator exited: $(cat "$1/emu.err")" >&2; exit 1; }
    sleep 0.2
  done
  echo "no ping through the emulator" >&2
  exit 1
}

# The kernel reference: a bridge in its own namespace, each port shaped to GBPS.
kern_up() { # leaf qdisc args
  ip netns add "${P}sw"
  ip -n "${P}sw" link add br0 type bridge
  ip -n "${P}sw" link set br0 up
  local i=0 h
  for h in "${HOSTS[@]}"; do
    ip netns add "$P$h"
    ip link add "$P$h-e" type veth peer name eth0 netns "$P$h"
    ip link set "$P$h-e" netns "${P}sw"
    ip -n "${P}sw" link set "$P$h-e" master br0 up
    ip -n "$P$h" addr add "$(ip_of "$h")/24" dev eth0
    ip -n "$P$h" link set eth0 up
    ip -n "$P$h" link set lo up
    ip netns exec "$P$h" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
    for end in "ip netns exec ${P}sw ethtool -K $P$h-e" "ip netns exec $P$h ethtool -K eth0"; do
      $end tso off gso off gro off tx off >/dev/null 2>&1 || true
    done
    # The switch's work on EMU_CPU, as the emulator's is: RPS takes each frame a host sends
    # (bridge, qdisc, the receiving host's stack, as the emulator's writes run it) there.
    if [ -n "$EMU_CPU" ]; then
      ip netns exec "${P}sw" sh -c "printf '%x' $((1 << EMU_CPU)) >/sys/class/net/$P$h-e/queues/rx-0/rps_cpus"
    fi
    if [ -n "$HOST_MASK" ]; then
      ip netns exec "$P$h" sh -c "echo $HOST_MASK >/sys/class/net/eth0/queues/rx-0/rps_cpus"
    fi
    ip netns exec "${P}sw" tc qdisc add dev "$P$h-e" root handle 1: htb default 1
    ip netns exec "${P}sw" tc class add dev "$P$h-e" parent 1: classid 1:1 htb rate "${GBPS}gbit" ceil "${GBPS}gbit" quantum 1514
    # shellcheck disable=SC2086
    ip netns exec "${P}sw" tc qdisc add dev "$P$h-e" parent 1:1 handle 10: $1
    if [ -n "${2:-}" ]; then
      ip netns exec "${P}sw" tc qdisc add dev "$P$h-e" clsact
      ip netns exec "${P}sw" tc filter add dev "$P$h-e" egress bpf da obj "$2" sec tc
    fi
    i=$((i + 1))
  done
}

kern_drops() { # packets the bridge's FIFOs towards the clients dropped so far
  for c in "${CLIENTS[@]}"; do
    ip netns exec "${P}sw" tc -s qdisc show dev "$P$c-e" | awk '$1 == "qdisc" {q = ($2 != "htb")}
      q && $1 == "Sent" {for (i = 1; i < NF; i++) if ($i == "(dropped") {gsub(",", "", $(i + 1)); print $(i + 1)}}'
  done | awk '{s += $1} END {print s + 0}'
}

run_load() { # net run-dir load seed
  local net=$1 dir=$2 load=$3 seed=$4 c
  mkdir -p "$dir"
  cut -d' ' -f1 /proc/loadavg >"$dir/loadavg"
  case $net in emu-*) emu_start "$dir" ;; esac
  "${HOST_PIN[@]}" ip netns exec "${P}c0" ping -q -c 20 -i 0.01 "$(ip_of s0)" | awk -F/ '/^rtt/ {print $5 * 1000}' >"$dir/rtt_us"
  local servers
  servers=$(for s in "${SERVERS[@]}"; do printf '%s:5300,' "$(ip_of "$s")"; done | sed 's/,$//')
  local cpids=()
  ce_count() { for c in "${CLIENTS[@]}"; do
      ip netns exec "$P$c" nstat -saz IpExtInCEPkts | awk '$1 == "IpExtInCEPkts" {print $2}'
    done | awk '{s += $1} END {print s + 0}'; }
  local ce0 kd0=0
  ce0=$(ce_count)
  case $net in kern-*) kd0=$(kern_drops) ;; esac
  for c in "${!CLIENTS[@]}"; do
    "${HOST_PIN[@]}" timeout $((RUN_SECONDS + DRAIN_SECONDS + 30)) ip netns exec "$P${CLIENTS[$c]}" "$FCT" client \
      --servers "$servers" --load "$load" --link-gbps "$GBPS" --seconds "$RUN_SECONDS" \
      --drain-seconds "$DRAIN_SECONDS" --seed $((seed * 100 + c)) --out "$dir/${CLIENTS[$c]}.csv" \
      2>"$dir/${CLIENTS[$c]}.log" &
    cpids+=($!)
  done
  for p in "${cpids[@]}"; do wait "$p" || echo "client exited $? ($dir)" >&2; done
  echo $(($(ce_count) - ce0)) >"$dir/ce_at_clients"  # CE packets the clients received
  case $net in kern-*) echo $(($(kern_drops) - kd0)) >"$dir/port_drops" ;; esac
  cut -d' ' -f1 /proc/loadavg >>"$dir/loadavg"
  case $net in
    emu-*)
      stop_emu
      python3 - "$dir/emu.summary.json" "$GBPS" <<'PY' || true
import json, sys
r = json.load(open(sys.argv[1]))["realtime"]
bound = 20 * 1514 * 8 / (float(sys.argv[2]) * 1e3)  # fct_table.py's rule, us
print(f"  emulator lag p99 {r['p99_lag_us']:.0f} us, max {r['max_lag_us']:.0f} us, CPU share {r['cpu_share']:.2f}"
      + ("" if r["p99_lag_us"] <= bound and r["max_lag_us"] <= 20000 else
         " -> real time NOT kept: this run is left out of the tables"))
PY
      ;;
  esac
}

for net in $NETS; do
  log "$net: setting up"
  tos=
  case $net in
    emu-droptail) emu_up 'kind = "droptail"'; ecn=0 ;;
    emu-dctcp) emu_up "kind = \"dctcp\"
k = $K"; ecn=1 ;;
    emu-pfabric) emu_up 'kind = "pfabric"'; ecn=0; tos=--tos-by-remaining ;;
    emu-hull) emu_up 'kind = "hull"'; ecn=1 ;;
    kern-droptail) kern_up "pfifo limit $BUFFER"; ecn=0 ;;
    kern-ecn)
      clang-14 -O2 -g -target bpf -I/usr/include/x86_64-linux-gnu \
        -DRATE_BPS="$(awk -v g="$GBPS" 'BEGIN {printf "%d", g * 1e9}')" \
        -DK_BYTES=$((K * 1514)) -DLIMIT_BYTES=$((BUFFER * 1514)) \
        -c "$REPO/emulator/realhosts/ecn_marker.bpf.c" -o "$OUT/ecn_marker.o"
      kern_up "pfifo limit $BUFFER" "$OUT/ecn_marker.o"; ecn=1 ;;
    kern-red)
      # Needs sch_red (this machine's kernel, built without modules, has only HTB, TBF and
      # the FIFOs): refuse clearly rather than run something else under its name.
      if ! { ip netns add "${P}qt" && ip -n "${P}qt" link add q0 type veth peer name q1 &&
             ip netns exec "${P}qt" tc qdisc add dev q0 root red limit 150000 min 30000 max 31500 \
               avpkt 1500 burst 20 probability 1.0 bandwidth 1gbit ecn; } >/dev/null 2>&1; then
        ip netns del "${P}qt" 2>/dev/null || true
        echo "kern-red: this kernel has no RED qdisc (sch_red); run the other networks" >&2
        exit 2
      fi
      ip netns del "${P}qt"
      kern_up "red limit $((BUFFER * 1514)) min $((K * 1514)) max $(((K + 1) * 1514)) avpkt 1514 burst $K probability 1.0 bandwidth ${GBPS}gbit ecn"; ecn=1 ;;
    *) echo "unknown net $net" >&2; exit 2 ;;
  esac
  CC=cubic
  case $net in emu-dctcp|emu-hull|kern-ecn|kern-red) dctcp_cc ;; esac
  log "$net: hosts' congestion control $CC"
  host_sysctls "$ecn" "$CC"
  total=$(( ($(echo "$LOADS" | wc -w) * $(echo "$SEEDS" | wc -w)) * (RUN_SECONDS + DRAIN_SECONDS + 40) + 60 ))
  for s in "${SERVERS[@]}"; do
    # shellcheck disable=SC2086
    "${HOST_PIN[@]}" timeout $((total + 30)) ip netns exec "$P$s" "$FCT" server --bind "$(ip_of "$s"):5300" --seconds "$total" --cc "$CC" $tos &
    PIDS+=($!)
  done
  sleep 0.5
  for load in $LOADS; do
    for seed in $SEEDS; do
      log "$net: load $load seed $seed"
      run_load "$net" "$OUT/$net/load$load/seed$seed" "$load" "$seed"
    done
  done
  teardown
done
log "done: python3 $REPO/emulator/realhosts/fct_table.py $OUT"
