#!/usr/bin/env bash
# Does the kernel reference's ECN marker (ecn_marker.bpf.c) mark where the shaped port's real
# queue is? Two namespaces over a bridge whose port towards b is HTB at RATE_MBPS with a pfifo
# of 100 packets and the marker at K = 20; a from a sends paced UDP with ECT(0) (iperf3 -S 2)
# at a rate below and above the port's. Below it the real queue stays short, so few frames
# should be marked; above it the queue fills to 100 and stays, so nearly every frame that
# gets through should be. A marker whose virtual queue drained faster or slower than HTB
# would mark nearly none above, or many below. A sender starved of CPU sends in bursts, which
# really fill the queue at any rate; so the sharper check is the marker's own count of frames
# its virtual queue had no room for against the pfifo's real drops: equal if the two queues
# are the same. Prints, for each offered rate, the frames b received, the CE frames among
# them, the port's drops and the marker's counters (bpftool).
# Usage (root): emulator/realhosts/ecn-marker-check.sh [RATE_MBPS=100]
set -euo pipefail
RATE=${1:-100}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
P=ek$(od -An -N2 -tx1 /dev/urandom | tr -d ' \n')
D=$(mktemp -d /tmp/planck-ecncheck.XXXXXX)
cleanup() {
  for n in sw a b; do ip netns del "$P$n" 2>/dev/null || true; done
  rm -rf "$D"
}
trap cleanup EXIT
clang-14 -O2 -g -target bpf -I/usr/include/x86_64-linux-gnu -DRATE_BPS=$((RATE * 1000000)) \
  -DK_BYTES=$((20 * 1514)) -DLIMIT_BYTES=$((100 * 1514)) \
  -c "$REPO/emulator/realhosts/ecn_marker.bpf.c" -o "$D/m.o"
ip netns add "${P}sw"
ip -n "${P}sw" link add br0 type bridge
ip -n "${P}sw" link set br0 up
i=1
for h in a b; do
  ip netns add "$P$h"
  ip link add "$P$h-e" type veth peer name eth0 netns "$P$h"
  ip link set "$P$h-e" netns "${P}sw"
  ip -n "${P}sw" link set "$P$h-e" master br0 up
  ip -n "$P$h" addr add "10.216.0.$i/24" dev eth0
  ip -n "$P$h" link set eth0 up
  i=$((i + 1))
  ip netns exec "${P}sw" ethtool -K "$P$h-e" tso off gso off gro off tx off >/dev/null 2>&1 || true
  ip netns exec "$P$h" ethtool -K eth0 tso off gso off gro off tx off >/dev/null 2>&1 || true
done
port=${P}b-e
ip netns exec "${P}sw" tc qdisc add dev "$port" root handle 1: htb default 1
ip netns exec "${P}sw" tc class add dev "$port" parent 1: classid 1:1 htb rate "${RATE}mbit" ceil "${RATE}mbit" quantum 1514
ip netns exec "${P}sw" tc qdisc add dev "$port" parent 1:1 handle 10: pfifo limit 100
ip netns exec "${P}sw" tc qdisc add dev "$port" clsact
ip netns exec "${P}sw" tc filter add dev "$port" egress bpf da obj "$D/m.o" sec tc
prog=$(ip netns exec "${P}sw" tc filter show dev "$port" egress | sed -n 's/.* id \([0-9]*\) .*/\1/p' | head -1)
map=$(bpftool prog show id "$prog" | sed -n 's/.*map_ids \([0-9]*\).*/\1/p')
marker() { bpftool map dump id "$map" -j | python3 -c 'import json,sys; v=json.load(sys.stdin)[0]["formatted"]["value"]; print(v["frames"], v["marked"], v["overflow"])'; }
ce() { ip netns exec "${P}b" nstat -saz IpExtInCEPkts | awk '$1 == "IpExtInCEPkts" {print $2}'; }
drops() { ip netns exec "${P}sw" tc -s qdisc show dev "$port" | awk '/^qdisc pfifo/ {f=1} f && /dropped/ {gsub(",", "", $7); print $7; exit}'; }
for pct in 90 110; do
  offered=$((RATE * pct / 100))
  ce0=$(ce); d0=$(drops); read -r f0 m0 o0 < <(marker)
  ip netns exec "${P}b" timeout 30 iperf3 -s -1 -p 5301 -J >"$D/s.json" 2>/dev/null &
  srv=$!
  sleep 0.5
  timeout 30 ip netns exec "${P}a" iperf3 -c 10.216.0.2 -p 5301 -u -b "${offered}M" -l 1400 -S 2 -t 5 \
    >/dev/null 2>&1 || true
  wait "$srv" || true
  got=$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["end"]["sum"]; print(e["packets"] - e["lost_packets"])' "$D/s.json" 2>/dev/null || echo 0)
  read -r f1 m1 o1 < <(marker)
  echo "offered ${pct} % of ${RATE} Mb/s: b received ${got} frames, CE on $(($(ce) - ce0)), port drops $(($(drops) - d0)); marker: $((f1 - f0)) frames, $((m1 - m0)) marked, $((o1 - o0)) over its virtual queue"
done
