#!/usr/bin/env bash
# Fuzzes the telemetry-events-v1 codec (the REST ingestion parser) with Jazzer for a bounded
# time: every input must be rejected with a reason or decode to a batch that round-trips.
set -euo pipefail
cd "$(dirname "$0")/../../.."

name="codec-fuzz"
seconds="${PLANCK_FUZZ_SECONDS:-30}"
jazzer_version=0.22.1
work="$(mktemp -d -t planck-codec-fuzz.XXXXXX)"
trap 'rm -rf "$work"' EXIT

fail() {
    echo "FAIL $name: $*"
    exit 1
}

if [ ! -d api/target/test-classes/org/planck/api/telemetry ]; then
    mvn -B -q -ntp install -pl api -DskipTests >/dev/null || fail "cannot build api"
fi
[ -f api/target/test-classes/org/planck/api/telemetry/TelemetryBatchCodecFuzzer.class ] \
    || fail "fuzz target not compiled"

mvn -B -q -ntp dependency:get -Dartifact="com.code-intelligence:jazzer:${jazzer_version}" >/dev/null \
    || fail "cannot fetch Jazzer ${jazzer_version}"
m2="${HOME}/.m2/repository/com/code-intelligence"
jazzer_cp="${m2}/jazzer/${jazzer_version}/jazzer-${jazzer_version}.jar:${m2}/jazzer-api/${jazzer_version}/jazzer-api-${jazzer_version}.jar"

mvn -B -q -ntp dependency:build-classpath -pl api -Dmdep.outputFile="$work/cp.txt" >/dev/null \
    || fail "cannot resolve the api classpath"
cp="api/target/classes:api/target/test-classes:$(cat "$work/cp.txt"):${jazzer_cp}"

mkdir -p "$work/corpus"
cp api/src/test/fuzz/telemetry-corpus/* "$work/corpus/"
if ! timeout $((seconds + 120)) java -cp "$cp" com.code_intelligence.jazzer.Jazzer \
        --target_class=org.planck.api.telemetry.TelemetryBatchCodecFuzzer \
        --instrumentation_includes='org.planck.**:com.fasterxml.jackson.**:org.onlab.packet.**' \
        --reproducer_path="$work" \
        -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=4096 \
        "$work/corpus" >"$work/log" 2>&1; then
    tail -40 "$work/log"
    fail "Jazzer found a crash (log above)"
fi
runs=$(grep -o 'Done [0-9]* runs' "$work/log" | grep -o '[0-9]*' || echo "?")

# The collector's INT report decoder (cargo-fuzz / libFuzzer, target int_report): every
# input is rejected with a reason or decodes within bounds, never a panic.
int_seconds="${PLANCK_INT_FUZZ_SECONDS:-20}"
mkdir -p "$work/int-corpus"
if ! (cd collector/fuzz && timeout $((int_seconds + 1500)) cargo +nightly fuzz run int_report \
        "$work/int-corpus" seeds/int_report -- -max_total_time="$int_seconds" -rss_limit_mb=2048 \
        >"$work/int.log" 2>&1); then
    tail -40 "$work/int.log"
    fail "cargo fuzz int_report found a crash or did not run (log above)"
fi
int_runs=$(grep -o 'Done [0-9]* runs' "$work/int.log" | grep -o '[0-9]*' || echo "?")
echo "PASS $name: ${runs} inputs in ${seconds}s, every one rejected with a reason or round-tripped; INT decoder: ${int_runs} inputs in ${int_seconds}s without a crash"
