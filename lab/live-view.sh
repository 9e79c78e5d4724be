#!/usr/bin/env bash
# The lab's live fabric view in a real browser, during a real lab run (called by scripts/lab.sh):
#
#   lab/live-view.sh record DIR [planck-lab experiment args...]
#       waits for the page the lab serves (--view in the args, default 127.0.0.1:8182), loads it
#       in headless Chromium at nice 19 (src/test/browser/lab-live-view.js), takes a screenshot
#       mid-run and notes when each TE move appears; writes DIR/live-view.json (+ .png, .log).
#       Without chromium, node or playwright-core it writes why and exits 0: the lab goes on.
#   lab/live-view.sh report DIR [RECORDER_PID]
#       after the experiment: waits (at most 60 s) for the recorder, then judges the recording
#       against DIR/moves.csv, appends a "Live fabric view" section to DIR/report.md and writes
#       DIR/index.html linking every file (org.planck.lab.report.LabReportFinish).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

skip() { # reason, url
    printf '{"status": "skipped", "reason": "%s", "url": "%s"}\n' "$1" "$2" > "$dir/live-view.json"
    echo "live view: not recorded: $1"
}

record() {
    local view=127.0.0.1:8182
    while [ $# -gt 0 ]; do
        case "$1" in
            --view) view="${2:-}"; shift $(( $# > 1 ? 2 : 1 )) ;;
            --view=*) view="${1#--view=}"; shift ;;
            *) shift ;;
        esac
    done
    local url="http://$view/"
    [ "$view" != off ] || { skip "the lab ran with --view off" ""; return 0; }
    local chromium=${CHROMIUM:-/usr/bin/chromium}
    [ -x "$chromium" ] || { skip "chromium is not installed (scripts/deps.sh installs it)" "$url"; return 0; }
    command -v node >/dev/null || { skip "node is not installed (scripts/deps.sh installs it)" "$url"; return 0; }
    if [ ! -d src/test/browser/node_modules/playwright-core ]; then
        (cd src/test/browser && timeout 300 npm ci --no-audit --no-fund --loglevel=error >/dev/null 2>&1) \
            || { skip "playwright-core could not be installed (npm ci in src/test/browser failed)" "$url"; return 0; }
    fi
    echo "live view: recording $url with $("$chromium" --version 2>/dev/null | head -1)"
    # A browser must not take the CPU from the loop it watches: lowest priority, bounded.
    if ! (cd src/test/browser && CHROMIUM="$chromium" timeout --foreground 900 nice -n 19 node lab-live-view.js "$url" "$dir" 880); then
        [ -s "$dir/live-view.json" ] || skip "the browser recorder failed (see live-view.log)" "$url"
    fi
    return 0
}

report() {
    local pid=${1:-}
    if [ -n "$pid" ]; then
        for _ in $(seq 600); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        # Still there: end it and its browser (its own process group, see scripts/lab.sh).
        kill -TERM -- -"$pid" 2>/dev/null || true
    fi
    java -cp "$repo/lab/target/planck-lab.jar" org.planck.lab.report.LabReportFinish "$dir"
}

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -d "$dir" ] || { echo "usage: lab/live-view.sh record|report DIR [...]" >&2; exit 2; }
dir=$(cd "$dir" && pwd)
shift 2
case "$cmd" in
    record) record "$@" ;;
    report) report "$@" ;;
    *) echo "usage: lab/live-view.sh record|report DIR [...]" >&2; exit 2 ;;
esac
