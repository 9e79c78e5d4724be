#!/usr/bin/env bash
# Planck's main job: the closed loop end to end on this machine. Builds the ONOS
# application (.oar), planck-collector, planck-emu and the lab controller, then runs the
# traffic-engineering experiment (k=4 fat tree, Static / Poll-100ms / PlanckTE / Optimal on
# stride(8), shuffle, random and random bijection) with the emulator as the fabric and the
# real collector capturing its mirror frames, and says where the report is.
#   scripts/main.sh           full experiment (a few minutes)
#   scripts/main.sh --quick   stride(8) and random bijection only
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh
echo "Live fabric view while the lab runs: http://127.0.0.1:8182/ (planck-lab --view)"
scripts/lab.sh "$@"

oar=$(ls app/target/planck-app-*.oar 2>/dev/null | head -1 || true)
if [ -n "$oar" ]; then
    echo "ONOS application archive: $oar  (install: onos-app <onos-host> install! $oar)"
fi
