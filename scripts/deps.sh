#!/usr/bin/env bash
# Installs what Planck's build, tests and lab need on a fresh Debian machine (idempotent).
set -euo pipefail

debs=(openvswitch-switch iperf3 ethtool iproute2 tcpdump prometheus curl python3)
# ns-3 reference of the emulator accuracy experiment (emulator/accuracy/)
debs+=(libns3-dev libgsl-dev g++ pkg-config python3-matplotlib)
missing=()
for p in "${debs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "deps: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # The prometheus package would start a server; we only need promtool.
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    systemctl disable --now prometheus openvswitch-switch >/dev/null 2>&1 || true
    pkill -x prometheus >/dev/null 2>&1 || true
fi
for tool in mvn cargo java; do
    command -v "$tool" >/dev/null || { echo "deps: $tool is required but not installed" >&2; exit 1; }
done
