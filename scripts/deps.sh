#!/usr/bin/env bash
# Installs what Planck's build, tests and lab need on a fresh Debian machine (idempotent).
set -euo pipefail

debs=(openvswitch-switch iperf3 iputils-ping ethtool iproute2 tcpdump tshark prometheus curl python3 unzip influxdb python3-scapy)
# ns-3 reference of the emulator accuracy experiment (emulator/accuracy/)
debs+=(libns3-dev libgsl-dev g++ pkg-config python3-matplotlib)
# kernel ECN marker of the real-host FCT reference (emulator/realhosts/ecn_marker.bpf.c);
# the collector's INT XDP fast path (collector/bpf/int_xdp.c, built by collector/build.rs)
debs+=(clang-14 libbpf-dev bpftool)
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
    systemctl disable --now prometheus openvswitch-switch influxdb >/dev/null 2>&1 || true
    pkill -x prometheus >/dev/null 2>&1 || true
fi
# The GUI's lint and browser tests: npm (ESLint, playwright-core) and headless Chromium.
if ! command -v npm >/dev/null || ! command -v chromium >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends chromium $(command -v npm >/dev/null || echo nodejs npm) >/dev/null
fi
# The INT tests run scapy under the python3 on PATH, which may not be Debian's.
if ! python3 -c 'import scapy' >/dev/null 2>&1; then
    echo "deps: installing scapy for $(command -v python3)"
    python3 -m pip install -q 'scapy==2.8.0' >/dev/null
fi
for tool in mvn cargo java; do
    command -v "$tool" >/dev/null || { echo "deps: $tool is required but not installed" >&2; exit 1; }
done
# The collector's fuzz targets (src/test/system/codec-fuzz.sh) need nightly and cargo-fuzz.
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    echo "deps: installing the nightly toolchain (cargo fuzz)"
    rustup toolchain install nightly --profile minimal >/dev/null
fi
command -v cargo-fuzz >/dev/null || { echo "deps: installing cargo-fuzz"; cargo install -q --locked cargo-fuzz --version 0.13.2; }
