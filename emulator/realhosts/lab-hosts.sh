#!/usr/bin/env bash
# The lab's 16 real Linux hosts for `planck-emu fabric` with [linux_hosts] (docs/realhosts.md,
# "The lab with real hosts"). Host i (0-15) is the namespace <P>h<i> with `eth0`, MAC
# 00:00:00:00:hh:ll and IP 10.0.hh.ll/8 of i+1 (the fabric's own host identities), permanent
# neighbour entries for the other 15, offloads off (a frame is a packet), IPv6 off; its peer
# <P>e<i> stays in this namespace for the fabric to read and write. eth0 is shaped by HTB to the
# link rate with every frame charged at least a full MTU frame (mpu), so a host sends at most one
# frame per timeslot, as the fabric's links carry them.
#
#   lab-hosts.sh up PREFIX MBPS [HOSTS]    # HOSTS defaults to 16
#   lab-hosts.sh down PREFIX [HOSTS]       # removes exactly what `up` made, by name
set -euo pipefail

usage() { echo "usage: lab-hosts.sh up PREFIX MBPS [HOSTS] | down PREFIX [HOSTS]" >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd=$1 prefix=$2
[[ "$prefix" =~ ^[a-z0-9]{1,8}$ ]] || { echo "lab-hosts: PREFIX must be 1-8 of a-z0-9" >&2; exit 2; }

down() {
    local n=$1 i
    for i in $(seq 0 $((n - 1))); do
        ip link del "${prefix}e$i" 2>/dev/null || true
        ip netns del "${prefix}h$i" 2>/dev/null || true
    done
}

case "$cmd" in
    down)
        down "${3:-16}"
        ;;
    up)
        [ $# -ge 3 ] || usage
        mbps=$3 n=${4:-16}
        [[ "$mbps" =~ ^[0-9]+$ ]] && [ "$mbps" -ge 1 ] && [ "$mbps" -le 10000 ] \
            || { echo "lab-hosts: MBPS must be 1-10000" >&2; exit 2; }
        [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 2 ] && [ "$n" -le 250 ] || { echo "lab-hosts: HOSTS must be 2-250" >&2; exit 2; }
        trap 'down "$n"' ERR
        for i in $(seq 0 $((n - 1))); do
            ns="${prefix}h$i" veth="${prefix}e$i"
            if ip netns list | grep -qw "$ns" || [ -e "/sys/class/net/$veth" ]; then
                echo "lab-hosts: $ns or $veth exists already (lab-hosts.sh down $prefix)" >&2
                exit 1
            fi
            a=$((i + 1))
            mac=$(printf '00:00:00:00:%02x:%02x' $((a >> 8)) $((a & 255)))
            ip netns add "$ns"
            ip link add "$veth" mtu 1500 type veth peer name eth0 netns "$ns"
            ip -n "$ns" link set eth0 address "$mac" mtu 1500
            ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
            ip -n "$ns" addr add "10.0.$((a >> 8)).$((a & 255))/8" dev eth0
            ip -n "$ns" link set lo up
            ip -n "$ns" link set eth0 up
            ip netns exec "$ns" ethtool -K eth0 tso off gso off gro off tx off >/dev/null
            sysctl -qw "net.ipv6.conf.$veth.disable_ipv6=1"
            ip link set "$veth" arp off up
            ethtool -K "$veth" tso off gso off gro off tx off >/dev/null
            ip netns exec "$ns" tc qdisc add dev eth0 root handle 1: htb default 1
            ip netns exec "$ns" tc class add dev eth0 parent 1: classid 1:1 htb \
                rate "${mbps}mbit" ceil "${mbps}mbit" mpu 1514 burst 3028 cburst 3028 quantum 1514
            ip netns exec "$ns" tc qdisc add dev eth0 parent 1:1 handle 10: pfifo limit 1000
        done
        for i in $(seq 0 $((n - 1))); do
            for j in $(seq 0 $((n - 1))); do
                [ "$i" != "$j" ] || continue
                b=$((j + 1))
                ip -n "${prefix}h$i" neigh replace "10.0.$((b >> 8)).$((b & 255))" \
                    lladdr "$(printf '00:00:00:00:%02x:%02x' $((b >> 8)) $((b & 255)))" dev eth0 nud permanent
            done
        done
        trap - ERR
        ;;
    *) usage ;;
esac
