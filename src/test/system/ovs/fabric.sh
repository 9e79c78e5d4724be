# Sourced library: a k=4 fat tree of Open vSwitch bridges (userspace datapath, a private
# ovsdb-server/ovs-vswitchd in $D) joined by veth pairs, with 16 hosts in network namespaces.
# Names, ports, datapath ids, MACs and IPs are FatTreeFabric's, so the app's routing plan
# applies unchanged:
#   core c        bridge ${P}c$c,      dpid 1<<24|c,          pod p on port 1+p
#   aggregation   bridge ${P}a$p$a,    dpid 2<<24|p<<16|a,    edge e on 1+e, core a*2+j on 3+j
#   edge          bridge ${P}e$p$e,    dpid 3<<24|p<<16|e,    host h on 1+h, aggregation a on 3+a
#   host h of edge (p,e): netns ${P}h$p$e$h, eth0 00:00:0a:0p:0e:0(h+2), 10.p.e.(h+2)/8
# Port 5 (k+1) is left for the mirror port. Every name starts with $P, so teardown is by name.
#
# The caller sets P (short unique prefix), D (private dir); it gets VSCTL, OFCTL and these
# functions: ovs_start, ovs_fabric_build CONTROLLER_PORT, ovs_fabric_shape RATE, ovs_teardown.

K=4
HALF=2
export OVS_RUNDIR=$D OVS_LOGDIR=$D OVS_DBDIR=$D OVS_SYSCONFDIR=$D
VSCTL=(ovs-vsctl --db="unix:$D/db.sock" --timeout=30)
OFCTL=(ovs-ofctl -O OpenFlow13)

ovs_bridges() {
  local c p a e
  for c in 0 1 2 3; do echo "${P}c$c"; done
  for p in 0 1 2 3; do for a in 0 1; do echo "${P}a$p$a"; done; done
  for p in 0 1 2 3; do for e in 0 1; do echo "${P}e$p$e"; done; done
}
ovs_hosts() {
  local p e h
  for p in 0 1 2 3; do for e in 0 1; do for h in 0 1; do echo "$p$e$h"; done; done; done
}
host_ip() { echo "10.${1:0:1}.${1:1:1}.$((${1:2:1} + 2))"; }
host_mac() { printf '00:00:0a:%02x:%02x:%02x' "${1:0:1}" "${1:1:1}" "$((${1:2:1} + 2))"; }
host_ns() { echo "${P}h$1"; }
# Every veth end this fabric creates, bridge side (the host ends move into namespaces).
ovs_links() {
  local p e a j
  for p in 0 1 2 3; do
    for e in 0 1; do for a in 0 1; do echo "${P}l$p$e${a}e ${P}l$p$e${a}a"; done; done
    for a in 0 1; do for j in 0 1; do echo "${P}u$p$a${j}a ${P}u$p$a${j}c"; done; done
  done
}

ovs_start() {
  ovsdb-tool create "$D/conf.db" /usr/share/openvswitch/vswitch.ovsschema
  ovsdb-server "$D/conf.db" --remote="punix:$D/db.sock" --pidfile="$D/ovsdb-server.pid" \
    --unixctl="$D/ovsdb-server.ctl" --log-file="$D/ovsdb-server.log" --detach --no-chdir >/dev/null 2>&1
  "${VSCTL[@]}" --no-wait init
  ovs-vswitchd "unix:$D/db.sock" --pidfile="$D/ovs-vswitchd.pid" --unixctl="$D/ovs-vswitchd.ctl" \
    --log-file="$D/ovs-vswitchd.log" --detach --no-chdir >/dev/null 2>&1
}

# Brings the whole fabric up, switches pointed at 127.0.0.1:$1 (OpenFlow 1.3, fail-secure so a
# switch without its controller forwards nothing rather than flooding).
ovs_fabric_build() {
  local ctl_port=$1 batch="$D/links.ip" c p a e j h ns x y
  : >"$batch"
  while read -r x y; do echo "link add $x type veth peer name $y" >>"$batch"; done < <(ovs_links)
  while read -r h; do echo "link add ${P}h${h}b type veth peer name ${P}h${h}n" >>"$batch"; done < <(ovs_hosts)
  ip -batch "$batch"
  while read -r x y; do
    sysctl -qw "net.ipv6.conf.$x.disable_ipv6=1" "net.ipv6.conf.$y.disable_ipv6=1"
    ip link set "$x" up; ip link set "$y" up
  done < <(ovs_links)

  local args=()
  add_br() { # name tier pod index
    args+=(-- add-br "$1" -- set bridge "$1" datapath_type=netdev fail_mode=secure protocols=OpenFlow13
           "other-config:datapath-id=$(printf '%010x%02x%04x' "$2" "$3" "$4")" other-config:disable-in-band=true
           -- set-controller "$1" "tcp:127.0.0.1:$ctl_port")
  }
  add_port() { args+=(-- add-port "$1" "$2" -- set interface "$2" "ofport_request=$3"); }
  for c in 0 1 2 3; do add_br "${P}c$c" 1 0 "$c"; done
  for p in 0 1 2 3; do
    for a in 0 1; do add_br "${P}a$p$a" 2 "$p" "$a"; done
    for e in 0 1; do add_br "${P}e$p$e" 3 "$p" "$e"; done
    for e in 0 1; do for a in 0 1; do
      add_port "${P}e$p$e" "${P}l$p$e${a}e" $((HALF + 1 + a))
      add_port "${P}a$p$a" "${P}l$p$e${a}a" $((1 + e))
    done; done
    for a in 0 1; do for j in 0 1; do
      add_port "${P}a$p$a" "${P}u$p$a${j}a" $((HALF + 1 + j))
      add_port "${P}c$((a * HALF + j))" "${P}u$p$a${j}c" $((1 + p))
    done; done
    for e in 0 1; do for h in 0 1; do add_port "${P}e$p$e" "${P}h$p$e${h}b" $((1 + h)); done; done
  done
  # Reconnect fast after a controller or switch restart (default backoff grows to 8 s).
  "${VSCTL[@]}" "${args[@]}"
  for b in $(ovs_bridges); do
    "${VSCTL[@]}" -- set controller "$b" max_backoff=1000 inactivity_probe=5000 >/dev/null
  done

  # Hosts: static ARP for every other host (the fabric forwards by destination MAC only and
  # drops broadcasts), no IPv6 chatter, checksums filled in (the userspace datapath does not).
  local neigh="$D/neigh.ip" o
  : >"$neigh"
  while read -r o; do echo "neigh replace $(host_ip "$o") lladdr $(host_mac "$o") dev eth0 nud permanent" >>"$neigh"; done < <(ovs_hosts)
  while read -r h; do
    ns=$(host_ns "$h")
    ip netns add "$ns"
    sysctl -qw "net.ipv6.conf.${P}h${h}b.disable_ipv6=1"
    ip link set "${P}h${h}b" up
    ip link set "${P}h${h}n" netns "$ns"
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
    ip -n "$ns" link set "${P}h${h}n" name eth0 address "$(host_mac "$h")"
    ip -n "$ns" addr add "$(host_ip "$h")/8" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    ip netns exec "$ns" ethtool -K eth0 tx off >/dev/null 2>&1
    grep -v " $(host_ip "$h") " "$neigh" | ip -n "$ns" -batch -
  done < <(ovs_hosts)
}

# Shapes every fabric link (both directions of each switch-switch veth, and each host's
# edge-side veth toward the host and its own eth0 toward the edge) to RATE with a tbf.
ovs_fabric_shape() {
  local rate=$1 x y h
  while read -r x y; do
    tc qdisc replace dev "$x" root tbf rate "$rate" burst 32kb latency 20ms
    tc qdisc replace dev "$y" root tbf rate "$rate" burst 32kb latency 20ms
  done < <(ovs_links)
  while read -r h; do
    tc qdisc replace dev "${P}h${h}b" root tbf rate "$rate" burst 32kb latency 20ms
    ip netns exec "$(host_ns "$h")" tc qdisc replace dev eth0 root tbf rate "$rate" burst 32kb latency 20ms
  done < <(ovs_hosts)
}

# Tears down by name: bridges, daemons, namespaces, veths. Safe to call twice.
ovs_teardown() {
  set +e
  local b h x y
  if [ -S "$D/db.sock" ]; then
    for b in $(ovs_bridges) "${P}rs"; do "${VSCTL[@]}" --timeout=5 --if-exists del-br "$b" 2>/dev/null; done
  fi
  for f in ovs-vswitchd ovsdb-server; do
    [ -f "$D/$f.pid" ] && kill "$(cat "$D/$f.pid")" 2>/dev/null
  done
  while read -r h; do ip netns del "$(host_ns "$h")" 2>/dev/null; ip link del "${P}h${h}b" 2>/dev/null; done < <(ovs_hosts)
  while read -r x y; do ip link del "$x" 2>/dev/null; done < <(ovs_links)
  for b in $(ovs_bridges); do ip link del "$b" 2>/dev/null; ip link del "${P}m${b#"$P"}x" 2>/dev/null; done
  ip link del "${P}cola" 2>/dev/null
  ip link del "${P}rs" 2>/dev/null
}

# Every host pings every other host $1 times (hosts in parallel); prints the pairs with a loss.
ovs_ping_all() {
  local count=$1 h o
  for h in $(ovs_hosts); do
    (
      for o in $(ovs_hosts); do
        [ "$o" = "$h" ] && continue
        ip netns exec "$(host_ns "$h")" ping -q -n -c "$count" -i 0.02 -W 1 "$(host_ip "$o")" >/dev/null 2>&1 \
          || echo "lost $(host_ip "$h") -> $(host_ip "$o")"
      done
    ) &
  done
  wait
}

# RSPAN VLAN of a bridge = its switch id, tier*100 + pod*10 + index: core c -> 10c,
# aggregation (p,a) -> 2pa, edge (p,e) -> 3pe.
bridge_vlan() {
  local s=${1#"$P"}
  case $s in
    c*) echo $((100 + ${s:1:1})) ;;
    a*) echo $((200 + ${s:1:1} * 10 + ${s:2:1})) ;;
    e*) echo $((300 + ${s:1:1} * 10 + ${s:2:1})) ;;
  esac
}

# Mirrors, as the app's mirror plan configures them through OVSDB: every bridge mirrors all its
# ports (select-all) into its mirror port 5 (k+1), a veth whose tbf at RATE drops what the
# oversubscribed mirror port cannot carry. The far ends of the mirror veths are ports of one
# more bridge, ${P}rs, standing for the RSPAN carrier: it tags each switch's copies with that
# switch's VLAN and sends them all into the collector link; the collector captures on ${P}colb.
# (This kernel has neither act_vlan nor 8021q, so the tagging is done by OVS.)
ovs_fabric_mirrors() {
  local rate=$1 b s v n=10 flows="$D/rspan.flows"
  ip link add "${P}cola" type veth peer name "${P}colb"
  for x in "${P}cola" "${P}colb"; do sysctl -qw "net.ipv6.conf.$x.disable_ipv6=1"; ip link set "$x" up; done
  "${VSCTL[@]}" -- add-br "${P}rs" -- set bridge "${P}rs" datapath_type=netdev fail_mode=secure \
    protocols=OpenFlow13 -- add-port "${P}rs" "${P}cola" -- set interface "${P}cola" ofport_request=1
  : >"$flows"
  for b in $(ovs_bridges); do
    s=${b#"$P"}; v=$(bridge_vlan "$b"); n=$((n + 1))
    ip link add "${P}m${s}x" type veth peer name "${P}m${s}y"
    sysctl -qw "net.ipv6.conf.${P}m${s}x.disable_ipv6=1" "net.ipv6.conf.${P}m${s}y.disable_ipv6=1"
    ip link set "${P}m${s}x" up; ip link set "${P}m${s}y" up
    "${VSCTL[@]}" -- add-port "$b" "${P}m${s}x" -- set interface "${P}m${s}x" ofport_request=5 \
      -- --id=@p get port "${P}m${s}x" \
      -- --id=@m create mirror name=planck select-all=true output-port=@p \
      -- set bridge "$b" mirrors=@m \
      -- add-port "${P}rs" "${P}m${s}y" -- set interface "${P}m${s}y" "ofport_request=$n" >/dev/null
    echo "in_port=$n actions=push_vlan:0x8100,set_field:$((v | 4096))->vlan_vid,output:1" >>"$flows"
    # After add-port: OVS resets a port's root qdisc when it takes the port.
    tc qdisc replace dev "${P}m${s}x" root tbf rate "$rate" burst 6kb limit 9kb
  done
  "${OFCTL[@]}" add-flows "${P}rs" "$flows"
}

# Mirror-port drops per bridge (the tbf's dropped count), "bridge=dropped/sent" lines.
ovs_mirror_drops() {
  local b s
  for b in $(ovs_bridges); do
    s=${b#"$P"}
    tc -s qdisc show dev "${P}m${s}x" | awk -v b="$b" '/Sent/ {sent=$4} /dropped/ {gsub(",", "", $7); print b "=" $7 "/" sent; exit}'
  done
}
