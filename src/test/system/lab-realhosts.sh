#!/usr/bin/env bash
# Whole-system check of the lab with real Linux hosts (scripts/lab.sh --endpoints linux): 16
# network namespaces on veths (a random name prefix, removed by name) are the endpoints of the
# emulated k=4 fat tree; their TCP agents send stride(8)'s 16 flows under PlanckTE while the
# fabric mirrors to planck-collector and the lab controller reroutes.
# Asserted: every flow completed (real TCP, times from the hosts); frames crossed the fabric with
# none refused and none written over; mirror copies left the fabric and the collector's
# notices or flow reports reached the controller (decisions made on them); at least one reroute
# was decided, answered by the fabric as in force, and hit by its flow's packets (a per-flow
# rule with packets counted); the hosts and veths are gone afterwards. The fabric's lag behind
# real time is printed (a loaded machine may make it fall behind; that is reported, not failed).
set -euo pipefail
cd "$(dirname "$0")/../../.."
[ "$(id -u)" -eq 0 ] || { echo "SKIP lab-realhosts: needs root (namespaces, veths)"; exit 0; }
for t in ip ethtool tc python3; do
    command -v "$t" >/dev/null || { echo "FAIL lab-realhosts: $t is required (scripts/deps.sh)"; exit 1; }
done
# The lab's mirror veth and ports of its own, so a lab run of another checkout is not disturbed
# (scripts/lab.sh's LAB_IF and LAB_PORTS).
export LAB_IF="r$(printf %04x $((RANDOM % 65536)))" LAB_PORTS=$((1 + RANDOM % 900))
out=$(mktemp -d /tmp/planck-lab-realhosts.XXXXXX)
log="$out.log"
trap 'rm -rf "$out" "$log"' EXIT
fail() {
    echo "FAIL lab-realhosts: $*"
    exit 1
}

# Builds first (as lab-quick), then the run itself: about a minute on this machine.
if ! LAB_LINUX_ONLY=1 timeout 600 scripts/lab.sh --endpoints linux --workloads stride8 --modes planck --rounds 1 \
        --out "$out" > "$log" 2>&1; then
    tail -40 "$log" | tr '\r' '\n' | grep -v '^lab ' >&2 || true
    fail "scripts/lab.sh --endpoints linux failed"
fi
prefix=$(sed -n 's/^prefix = "\(.*\)"$/\1/p' "$out/linux-hosts.toml")
[ -n "$prefix" ] || fail "no host prefix in linux-hosts.toml"
if ip netns list | grep -q "^${prefix}h" || ip -o link | grep -q " ${prefix}e[0-9]"; then
    fail "namespaces or veths ${prefix}* left behind"
fi

# workload,mode,link_bps,flows,mean_mbps,median_mbps,mean_pct_of_optimal,moves,max_lag_us,unmatched
row=$(awk -F, '$1 == "stride8" && $2 == "PlanckTE"' "$out/throughput.csv")
[ -n "$row" ] || fail "no stride(8) / PlanckTE run in throughput.csv"
IFS=, read -r _ _ _ flows mean _ _ moves _ unmatched <<< "$row"
[ "$flows" -eq 16 ] || fail "$flows of 16 flows completed"
[ "$unmatched" -eq 0 ] || fail "$unmatched packets matched no rule"
awk -F, 'NR > 1 && !($10 > 0) {bad = 1} END {exit bad}' "$out/flows.csv" || fail "a flow has no throughput"
[ "$moves" -gt 0 ] || fail "PlanckTE moved no flow"

summary=$(grep -h '^planck-emu fabric: linux hosts ' "$out"/fabric/fabric-*.log | tail -1)
[ -n "$summary" ] || fail "the fabric left no real-host summary"
read -r frames_in frames_out refused expired agent_fail installed hit p50 p99 max <<< "$(python3 - "$summary" <<'PY'
import json, sys
s = json.loads(sys.argv[1].split(" linux hosts ", 1)[1])
h = s["hosts"]
t = lambda k: sum(x[k] for x in h)
refused = sum(t(k) for k in ("refusedOversize", "refusedNotIpv4", "refusedNotTcp", "refusedMalformed", "unknownDestination"))
print(t("framesIn"), t("framesOut"), refused, t("expired") + s["mirrorExpired"], s["agentFailures"],
      s["flowRules"]["installed"], s["flowRules"]["hit"], int(s["lagP50Us"]), int(s["lagP99Us"]), int(s["lagMaxUs"]))
PY
)"
# 16 flows of ~360 data segments each, and their ACKs.
[ "$frames_in" -ge 5760 ] || fail "only $frames_in frames entered the fabric"
[ "$frames_out" -ge 5760 ] || fail "only $frames_out frames were written to the hosts"
[ "$refused" -eq 0 ] || fail "$refused host frames refused"
[ "$expired" -eq 0 ] || fail "$expired frames written over before their packet or mirror copy left"
[ "$agent_fail" -eq 0 ] || fail "$agent_fail flows failed in the hosts"
[ "$installed" -gt 0 ] && [ "$hit" -gt 0 ] || fail "no per-flow TE rule carried packets ($hit of $installed hit)"

# | workload | mode | flows | moves | notices | max lag (us) | unmatched | mirror frames | mirror drops |
mirror=$(awk -F'|' '$2 ~ /stride\(8\)/ && $3 ~ /PlanckTE/ {gsub(/ /, "", $9); print $9}' "$out/report.md" | head -1)
[ "${mirror:-0}" -gt 0 ] || fail "the fabric sent no mirror copy to the collector"
# Decisions the controller made on the collector's telemetry (notices or flow reports), each
# answered by the fabric (rules in force) after it was decided.
awk -F, 'NR > 1 && $2 == "PlanckTE" && $11 > 0 {n++; if (!($10 >= $8 && $8 >= $7 && $6 > 0)) bad = 1}
         END {exit !(n > 0 && !bad)}' "$out/loop-latency.csv" \
    || fail "no decision on the collector's samples, or one answered before it was decided"
echo "PASS lab-realhosts: 16 real TCP flows over the emulated fat tree (mean $mean Mb/s of $(awk -F, 'NR == 2 {print $3 / 1e6}' "$out/throughput.csv") Mb/s links); $frames_in frames in, $frames_out out; $mirror mirror copies; $moves moves, $hit of $installed per-flow rules hit; fabric lag p50 $p50 us, p99 $p99 us, max $max us"
