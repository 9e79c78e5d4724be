#!/usr/bin/env bash
# Checks the ONOS app's /metrics exposition with Prometheus' own linter: the exposition of a
# realistic state (written by PlanckMetricsExpositionTest during `mvn install`) must pass
# `promtool check metrics`, and promtool must reject a known-bad exposition (so a broken
# checker cannot pass silently).
set -euo pipefail
cd "$(dirname "$0")/../../.."

name="metrics-promtool"
prom="app/target/planck-metrics.prom"
bad="$(mktemp -t planck-bad-metrics.XXXXXX)"
trap 'rm -f "$bad"' EXIT

fail() {
    echo "FAIL $name: $*"
    exit 1
}

command -v promtool >/dev/null || fail "promtool not installed (Debian package prometheus; scripts/deps.sh installs it)"

if [ ! -s "$prom" ]; then
    echo "$name: $prom missing, generating it"
    mvn -B -q -ntp install -pl app -am -Dtest=PlanckMetricsExpositionTest \
        -Dsurefire.failIfNoSpecifiedTests=false >/dev/null
fi
[ -s "$prom" ] || fail "$prom was not generated"

for family in planck_telemetry_batches_total planck_telemetry_rejected_batches_total \
        planck_telemetry_events_total planck_telemetry_unknown_device_events_total \
        planck_telemetry_unknown_port_events_total planck_te_decision_latency_seconds \
        planck_reroutes_total planck_port_utilization_ratio planck_flow_records; do
    grep -q "^# TYPE $family " "$prom" || fail "$family missing from $prom"
done

if ! out=$(promtool check metrics < "$prom" 2>&1); then
    fail "promtool check metrics: $out"
fi

printf '# HELP planck_bad Counter without _total suffix\n# TYPE planck_bad counter\nplanck_bad 1\n' > "$bad"
if promtool check metrics < "$bad" >/dev/null 2>&1; then
    fail "promtool accepted a counter without _total; the check proves nothing"
fi

echo "PASS $name: $(grep -c '^# TYPE' "$prom") metric families in $prom pass promtool check metrics"
