#!/usr/bin/env bash
# Builds Planck's Rust binaries in release mode for a script or a system test, e.g.
#   scripts/cargo-release.sh -p planck-emu
#   scripts/cargo-release.sh -p planck-collector --example int_send
# Inside scripts/test.sh (PLANCK_RUST_BUILT=1) `cargo test --workspace --release` has already
# built every binary and example of the tree under test, so this only checks that the ones asked
# for are there: a `cargo build -p X` would resolve the dependencies' features for X alone (no
# dev-dependencies), which differ from the test build's, and rebuild much of the dependency tree
# (about a minute per distinct selection).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${PLANCK_RUST_BUILT:-}" != 1 ]; then
    exec cargo build --release -q "$@"
fi
dir="${CARGO_TARGET_DIR:-target}/release"
missing=()
while [ $# -gt 0 ]; do
    case "$1" in
        -p) bin="$2"; shift ;;
        --example) bin="examples/$2"; shift ;;
        --bin) bin="$2"; shift ;;
        *) echo "cargo-release: unknown argument $1" >&2; exit 2 ;;
    esac
    [ -x "$dir/$bin" ] || missing+=("$dir/$bin")
    shift
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "cargo-release: PLANCK_RUST_BUILT=1 but missing: ${missing[*]}" >&2
    exit 1
fi
