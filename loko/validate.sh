#!/usr/bin/env bash
# Loko validation on real Open vSwitch, the whole thing in one command (docs/loko.md):
# builds the lab jar (the app's admission planner) if needed, then benchmarks a private OVS bridge,
# derives the switch model, admits flows under the shared-switch and the per-port model, drives
# them with greedy token-bucket bursts plus cross traffic, and writes report.md + plots.
#   sudo loko/validate.sh [--out DIR] [validate.py options]      (about 10 minutes)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
[ "$(id -u)" = 0 ] || { echo "validate.sh: must run as root (namespaces, OVS)"; exit 1; }
JAR=lab/target/planck-lab.jar
if [ ! -f "$JAR" ] || [ -n "$(find app/src/main/java/org/planck/app/admission lab/src/main/java/org/planck/lab/admission -newer "$JAR" -name '*.java' | head -1)" ]; then
  echo "validate.sh: building $JAR"
  mvn -B -q -ntp -o install -DskipTests -pl api,app,lab -am
fi
exec python3 loko/validate.py --lab-jar "$JAR" "$@"
