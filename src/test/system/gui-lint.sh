#!/usr/bin/env bash
# Lints the ONOS topology overlay's JavaScript (web/src/main/resources/app/view) with ESLint
# from npm, pinned in web/package.json + package-lock.json, rules in web/eslint.config.js.
set -euo pipefail
cd "$(dirname "$0")/../../../web"
command -v npm >/dev/null || { echo "gui-lint: npm is required (scripts/deps.sh installs it)" >&2; exit 1; }
timeout 300 npm ci --no-audit --no-fund --loglevel=error >/dev/null
timeout 60 npx --no-install eslint --max-warnings 0 src/main/resources/app/view
echo "gui-lint: ok ($(ls src/main/resources/app/view/*/*.js | wc -l) files)"
