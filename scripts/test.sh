#!/usr/bin/env bash
# Runs every Planck test: Java (unit, component, REST), Rust (unit, property, accuracy),
# then the whole-system tests in src/test/system (real OVS, namespaces, iperf3).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
    echo "test.sh needs root (network namespaces, Open vSwitch, AF_PACKET)" >&2
    exit 1
fi

scripts/deps.sh

echo "== Java: mvn install (unit, component and REST tests, .oar) =="
mvn -B -q -ntp install

echo "== Rust: cargo test (release) =="
cargo test --workspace --release

echo "== System tests =="
failed=0
passed=0
for t in src/test/system/*.sh; do
    [ -e "$t" ] || continue
    echo "-- $t"
    if timeout 600 bash "$t"; then
        passed=$((passed + 1))
    else
        echo "FAILED: $t"
        failed=$((failed + 1))
    fi
done
echo "system: ${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
