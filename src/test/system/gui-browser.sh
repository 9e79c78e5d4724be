#!/usr/bin/env bash
# Real-browser tests in headless Debian Chromium (playwright-core from npm, pinned in
# src/test/browser/package-lock.json):
#  1. the lab's live fabric view, served by the lab's FabricViewServer over a scripted k=4 fat
#     tree (ScriptedFabricView, lab test classes): links, loads, the congested port, moves as
#     they come, the latency histogram; screenshot saved;
#  2. the ONOS overlay's scripts in a harness page, fed the planckTopovData messages the Java
#     message handler sent in its unit tests (web/target/overlay-samples).
# Needs `mvn install` done (lab/target/planck-lab.jar, test classes), chromium and npm
# (scripts/deps.sh). Screenshots: results/browser/.
set -euo pipefail
cd "$(dirname "$0")/../../.."
repo=$PWD
out=${BROWSER_OUT:-$repo/results/browser}
mkdir -p "$out"

for t in java node npm; do command -v "$t" >/dev/null || { echo "gui-browser: $t is required" >&2; exit 1; }; done
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || { echo "gui-browser: chromium is required (scripts/deps.sh)" >&2; exit 1; }
[ -f lab/target/planck-lab.jar ] && [ -d lab/target/test-classes/org/planck/lab/view ] \
    || { echo "gui-browser: build first (mvn install)" >&2; exit 1; }

work=$(mktemp -d /tmp/gb-XXXXXX)
server_pid=""
cleanup() {
    [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

(cd src/test/browser && timeout 300 npm ci --no-audit --no-fund --loglevel=error >/dev/null)

echo "gui-browser: live fabric view"
java -cp lab/target/planck-lab.jar:lab/target/test-classes org.planck.lab.view.ScriptedFabricView 0 \
    >"$work/view.log" 2>&1 &
server_pid=$!
url=""
for _ in $(seq 100); do
    url=$(sed -n 's/^fabric view: //p' "$work/view.log")
    [ -n "$url" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/view.log" >&2; exit 1; }
    sleep 0.1
done
[ -n "$url" ] || { echo "gui-browser: the view server did not start" >&2; exit 1; }
hot=$(sed -n 's/^hot port: //p' "$work/view.log")
(cd src/test/browser && timeout 90 node fabric-view.test.js "$url" "$hot" "$out/lab-fabric-view.png")
kill "$server_pid"
server_pid=""

echo "gui-browser: ONOS overlay scripts in a harness page"
samples=web/target/overlay-samples
[ -d "$samples" ] || { echo "gui-browser: no $samples (run the web module's tests: mvn install)" >&2; exit 1; }
(cd src/test/browser && timeout 90 node overlay.test.js "$repo/web/src/main/resources/app/view/planckTopov" \
    "$repo/$samples" "$out/onos-overlay-panel.png")
echo "gui-browser: all checks passed; screenshots in $out"
