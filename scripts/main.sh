#!/usr/bin/env bash
# Planck's main job. Until the lab (the closed loop on the emulated fabric) lands, it
# builds every component and shows what an operator installs: the ONOS application
# archive (.oar) and the collector and emulator binaries.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh

echo "== Building the ONOS application (mvn install) =="
mvn -B -q -ntp install -DskipTests
oar=$(ls app/target/planck-app-*.oar)

echo "== Building planck-collector and planck-emu (cargo build --release) =="
cargo build --release -q --workspace

echo
echo "ONOS application archive: $oar"
unzip -p "$oar" app.xml | sed -n 's/.*name="\([^"]*\)".*version="\([^"]*\)".*/  app \1, version \2/p' | head -1
unzip -l "$oar" | awk '/\.(jar|xml)$/ {print "  " $4}'
echo "Install into a running ONOS 2.7 with:  onos-app <onos-host> install! $oar"
echo
for bin in planck-collector planck-emu; do
    if [ -x "target/release/$bin" ]; then
        echo "$bin: target/release/$bin"
    fi
done
