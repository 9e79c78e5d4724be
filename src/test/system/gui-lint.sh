#!/usr/bin/env bash
# Lints the GUI's JavaScript with ESLint from npm, pinned in web/package.json + package-lock.json,
# rules in web/eslint.config.js: the ONOS topology overlay (web/src/main/resources/app/view), the
# lab's live fabric view (lab/.../view/fabric-view.js, not the vendored d3) and the Node scripts
# that drive headless Chromium (src/test/browser). ESLint 9 lints nothing outside web/, so the
# last two go in on stdin under the names the config gives them (lint-stdin/...).
set -euo pipefail
cd "$(dirname "$0")/../../../web"
command -v npm >/dev/null || { echo "gui-lint: npm is required (scripts/deps.sh installs it)" >&2; exit 1; }
timeout 300 npm ci --no-audit --no-fund --loglevel=error >/dev/null
timeout 60 npx --no-install eslint --max-warnings 0 src/main/resources/app/view
n=$(ls src/main/resources/app/view/*/*.js | wc -l)
lint_as() { # file, virtual directory
    timeout 60 npx --no-install eslint --max-warnings 0 --stdin --stdin-filename "lint-stdin/$2/$(basename "$1")" < "$1"
    n=$((n + 1))
}
lint_as ../lab/src/main/resources/org/planck/lab/view/fabric-view.js lab-view
for f in ../src/test/browser/*.js; do
    lint_as "$f" browser-tests
done
echo "gui-lint: ok ($n files)"
