#!/usr/bin/env bash
# Whole-system check of the lab: scripts/lab.sh --quick runs the closed loop (planck-emu fabric,
# planck-collector on a veth, lab controller) and PlanckTE must beat Static on stride(8).
set -euo pipefail
cd "$(dirname "$0")/../../.."

out=$(mktemp -d /tmp/planck-lab-quick.XXXXXX)
trap 'rm -rf "$out"' EXIT

if ! timeout 600 scripts/lab.sh --quick --out "$out" > "$out.log" 2>&1; then
    tail -40 "$out.log" >&2
    rm -f "$out.log"
    echo "FAIL lab-quick: scripts/lab.sh --quick failed"
    exit 1
fi
rm -f "$out.log"

for f in report.md throughput.csv flows.csv loop-latency.csv throughput-cdf-stride8.png loop-latency-cdf.png; do
    [ -s "$out/$f" ] || { echo "FAIL lab-quick: $f missing from the report"; exit 1; }
done

mean() { awk -F, -v w="$1" -v m="$2" '$1 == w && $2 == m {print $5}' "$out/throughput.csv"; }
static=$(mean stride8 Static)
planck=$(mean stride8 PlanckTE)
optimal=$(mean stride8 Optimal)
if [ -z "$static" ] || [ -z "$planck" ]; then
    echo "FAIL lab-quick: stride(8) Static or PlanckTE missing from throughput.csv"
    exit 1
fi
if awk -v p="$planck" -v s="$static" 'BEGIN {exit !(p > s)}'; then
    echo "PASS lab-quick: stride(8) mean throughput PlanckTE $planck Mb/s > Static $static Mb/s (Optimal $optimal Mb/s)"
else
    echo "FAIL lab-quick: stride(8) PlanckTE $planck Mb/s does not beat Static $static Mb/s"
    exit 1
fi
