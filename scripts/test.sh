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

start=$SECONDS
stage() { echo "== $* ($((SECONDS - start)) s elapsed) =="; }

stage "Java: mvn install (unit, component and REST tests, .oar)"
mvn -B -q -ntp install

# The test build of the Rust workspace: release optimisation without link-time optimisation, with
# 16 codegen units and no debug info (cargo's profile, overridden for this run only). It takes 6
# minutes on a 2-core machine where the release profile (thin LTO, one codegen unit, debug info,
# for users' binaries and benchmarks) takes 12.5; `planck-emu stress` measured within 2 % of it.
export CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_DEBUG=0
stage "Rust: cargo test (release)"
cargo test --workspace --release
# Every binary and example the system tests use now exists, built from this tree: they and
# scripts/lab.sh use it rather than rebuild (scripts/cargo-release.sh says why).
export PLANCK_RUST_BUILT=1 LAB_SKIP_BUILD=1

stage "System tests"
failed=0
passed=0
for t in src/test/system/*.sh; do
    [ -e "$t" ] || continue
    echo "-- $t"
    t0=$SECONDS
    if timeout 600 bash "$t"; then
        passed=$((passed + 1))
        echo "-- $t: passed in $((SECONDS - t0)) s"
    else
        echo "FAILED: $t (after $((SECONDS - t0)) s)"
        failed=$((failed + 1))
    fi
done
stage "done"
echo "system: ${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
