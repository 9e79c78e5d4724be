#!/usr/bin/env bash
# Whole-system check of the lab: scripts/lab.sh --quick runs the closed loop (planck-emu fabric,
# planck-collector on a veth, lab controller) for stride(8) and random bijection under Static,
# Poll-100ms, PlanckTE and Optimal. Asserted: the report is complete, every run finished every
# flow with no packet left unrouted, PlanckTE received the collector's congestion notices and
# moved flows with the loop latency reported. PlanckTE's throughput against Static on stride(8)
# is printed; it varies from run to run on a 2-core machine, so it is asserted only with
# LAB_REQUIRE_TE_WIN=1.
# The live fabric view in headless Chromium during that same run (lab/live-view.sh; required
# here, optional in the lab): screenshot of a PlanckTE run with loaded links and a move listed,
# every move the page showed within its poll interval + 2 s of moves.csv's time (a page that
# stops updating fails), the report embedding the screenshot and linking the page, index.html
# linking every file. The live view's 1 s target is printed, met or not: the page runs at nice
# 19 beside a lab that holds both cores, so how late it is measures the machine (fresh-clone runs
# here: max 858, 878 and 1,067 ms).
set -euo pipefail
cd "$(dirname "$0")/../../.."
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || { echo "FAIL lab-quick: chromium is required (scripts/deps.sh)"; exit 1; }
# The recorder's playwright-core, installed before the lab starts so the page opens in time.
[ -d src/test/browser/node_modules/playwright-core ] \
    || (cd src/test/browser && timeout 300 npm ci --no-audit --no-fund --loglevel=error >/dev/null)

out=$(mktemp -d /tmp/planck-lab-quick.XXXXXX)
log="$out.log"
trap 'rm -rf "$out" "$log"' EXIT
fail() {
    echo "FAIL lab-quick: $*"
    exit 1
}

if ! timeout 600 scripts/lab.sh --quick --rounds 4 --out "$out" > "$log" 2>&1; then
    tail -40 "$log" | tr '\r' '\n' | grep -v '^lab ' >&2 || true
    fail "scripts/lab.sh --quick failed"
fi

for f in report.md throughput.csv flows.csv loop-latency.csv moves.csv throughput-cdf-stride8.png \
         throughput-cdf-bijection.png loop-latency-cdf.png; do
    [ -s "$out/$f" ] || fail "$f missing from the report"
done

# workload,mode,link_bps,flows,mean_mbps,median_mbps,mean_pct_of_optimal,moves,max_lag_us,unmatched
runs=$(tail -n +2 "$out/throughput.csv" | wc -l)
[ "$runs" -eq 8 ] || fail "expected 8 runs in throughput.csv, found $runs"
# stride(8) and random bijection: 16 hosts, one flow each per round, 4 rounds (--rounds 4)
awk -F, 'NR > 1 && ($4 != 64 || $10 != 0) {bad = 1; print "  " $0} END {exit bad}' "$out/throughput.csv" \
    || fail "a run did not finish its 64 flows (16 hosts x 4 rounds) or left packets unrouted"
awk -F, 'NR > 1 && $2 == "PlanckTE" && $8 > 0 {n++} END {exit !(n > 0)}' "$out/throughput.csv" \
    || fail "PlanckTE moved no flow"
grep -q '^| PlanckTE | \*\*sample → applied (loop)\*\* | [1-9]' "$out/report.md" \
    || fail "no PlanckTE loop latency in the report"
awk -F, 'NR > 1 && $2 == "PlanckTE" && $3 == "NOTICE" {n++} END {exit !(n > 0)}' "$out/loop-latency.csv" \
    || fail "no collector congestion notice reached the controller"

for f in lab-live-view.png live-view.json live-view-checks.txt index.html; do
    [ -s "$out/$f" ] || fail "$f missing from the report (live view: $(cat "$out/live-view.log" 2>/dev/null))"
done
if grep -v '^target not met - ' "$out/live-view-checks.txt" | grep -qv '^ok - '; then
    sed 's/^/  /' "$out/live-view-checks.txt" >&2
    fail "the live view failed a check"
fi
for check in 'the screenshot shows a PlanckTE run' 'links with non-zero load: [1-9]' 'TE moves listed: [1-9]' \
             "TE moves shown within the page's poll interval + 2000 ms of the move"; do
    grep -q "^ok - $check" "$out/live-view-checks.txt" || fail "live view check missing: $check"
done
grep -qF '![live fabric view during a PlanckTE run](lab-live-view.png)' "$out/report.md" \
    || fail "report.md does not embed the live view screenshot"
grep -qF '<http://127.0.0.1:8182/>' "$out/report.md" || fail "report.md does not link the live page"
while IFS= read -r f; do
    grep -qF "href=\"$f\"" "$out/index.html" || fail "index.html does not link $f"
done < <(cd "$out" && find . -type f ! -name index.html | sed 's|^\./||')
lag=$(sed -n "s/^ok - TE moves shown within the page's poll interval + 2000 ms of the move (moves.csv time_ms to first drawn): //p" \
      "$out/live-view-checks.txt")
target=$(grep -E '^(ok|target not met) - TE moves shown within 1000 ms' "$out/live-view-checks.txt" || true)

mean() { awk -F, -v w="$1" -v m="$2" '$1 == w && $2 == m {print $5}' "$out/throughput.csv"; }
static=$(mean stride8 Static)
planck=$(mean stride8 PlanckTE)
optimal=$(mean stride8 Optimal)
summary="stride(8) mean Mb/s: PlanckTE $planck, Static $static, Optimal $optimal"
if [ "${LAB_REQUIRE_TE_WIN:-0}" = 1 ] && ! awk -v p="$planck" -v s="$static" 'BEGIN {exit !(p > s)}'; then
    fail "PlanckTE does not beat Static ($summary)"
fi
echo "PASS lab-quick: closed loop complete; $summary; live view in Chromium: moves on the page after $lag;" \
    "the 1 s target: ${target:-not reported}"
