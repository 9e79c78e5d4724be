#!/usr/bin/env bash
# Loads Planck's four OSGi bundles, as the .oar ships them, into a real Apache Karaf 4.2
# container on top of the ONOS 2.7 SDK bundles they import, and checks what an operator
# would see on `onos-app install`: every bundle resolves and starts (no missing
# Import-Package), the CLI commands are registered, and every SCR component of the app
# waits for ONOS core services only (named), never fails to load or activate.
#
# ONOS 2.7 ships Karaf 4.2.14, which is not on Maven Central; 4.2.11 is the nearest that is.
# The ONOS core (device/flow/store implementations) is not on Maven Central either, so the
# components are expected to stop at UNSATISFIED_REFERENCE on those services.
#
# Needs: java 11+, mvn, network for the first run (Karaf tarball and bundles land in ~/.m2).
# Bounded: each container command has a timeout; the whole test is < 3 min after downloads.
set -euo pipefail
cd "$(dirname "$0")/../../.."
repo=$PWD

KARAF_VERSION=4.2.11
M2=${M2_REPO:-$HOME/.m2/repository}
: "${JAVA_HOME:=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
export JAVA_HOME

say() { echo "karaf-bundles: $*"; }
fail() { echo "karaf-bundles: FAIL: $*" >&2; exit 1; }

work=$(mktemp -d /tmp/kb-XXXXXX)
karaf_pgid=""
cleanup() {
    if [ -n "$karaf_pgid" ]; then
        kill -TERM -- "-$karaf_pgid" 2>/dev/null || true
        for _ in $(seq 20); do kill -0 -- "-$karaf_pgid" 2>/dev/null || break; sleep 0.5; done
        kill -KILL -- "-$karaf_pgid" 2>/dev/null || true
    fi
    if [ -n "${KARAF_TEST_KEEP:-}" ]; then echo "karaf-bundles: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# --- what to install -------------------------------------------------------------------
# The .oar this checkout built (mvn install); ~/.m2 may hold another checkout's.
oar=$(ls "$repo"/app/target/planck-app-*.oar 2>/dev/null | head -1 || true)
if [ -z "$oar" ]; then
    say "no app/target/planck-app-*.oar; building it (mvn install -DskipTests)"
    mvn -B -q -ntp install -DskipTests
    oar=$(ls "$repo"/app/target/planck-app-*.oar | head -1)
fi
say "app archive: $oar"

say "fetching Karaf $KARAF_VERSION and the ONOS 2.7 SDK bundles (cached in $M2)"
mvn -B -q -ntp dependency:get -Dartifact=org.apache.karaf:apache-karaf:$KARAF_VERSION:tar.gz \
    >"$work/mvn.log" 2>&1 || { cat "$work/mvn.log" >&2; fail "could not fetch Karaf $KARAF_VERSION"; }
mvn -B -q -ntp -f src/test/karaf/pom.xml dependency:copy-dependencies \
    -DoutputDirectory="$work/lib" -DincludeScope=runtime \
    -DexcludeGroupIds=org.apache.karaf,org.apache.karaf.features,org.apache.karaf.shell,org.apache.karaf.jaas,org.apache.karaf.system,org.osgi,org.ops4j,org.ops4j.base,org.ops4j.pax.url,org.ops4j.pax.swissbox,org.apache.felix,org.apache.sshd,org.jline,org.slf4j,com.sun.xml.bind,org.glassfish.jaxb,jakarta.xml.bind,jakarta.activation,com.sun.istack,javax.activation,javax.inject,xml-apis,com.google.errorprone,com.google.j2objc,org.codehaus.mojo,org.apache.servicemix.bundles \
    >"$work/mvn.log" 2>&1 || { cat "$work/mvn.log" >&2; fail "could not fetch the SDK bundles"; }
# Only OSGi bundles go into the container; plain jars pulled in transitively are
# annotations or APIs the container's system bundle already exports.
python3 - "$work/lib" <<'EOF'
import os, sys, zipfile
d = sys.argv[1]
for f in sorted(os.listdir(d)):
    p = os.path.join(d, f)
    try:
        mf = zipfile.ZipFile(p).read('META-INF/MANIFEST.MF').decode('utf-8', 'replace')
    except KeyError:
        mf = ''
    if 'Bundle-SymbolicName' not in mf:
        os.remove(p)
EOF
# KARAF_TEST_DROP=<jar name prefix> leaves a library out, to see the test catch a bundle
# that does not resolve.
if [ -n "${KARAF_TEST_DROP:-}" ]; then rm -v "$work/lib/$KARAF_TEST_DROP"*.jar; fi
mkdir -p "$work/oar"
(cd "$work/oar" && unzip -q "$oar")
planck_jars=()
for m in api app cli web; do
    j=$(find "$work/oar/m2" -name "planck-$m-*.jar" | head -1)
    [ -n "$j" ] || fail "planck-$m bundle missing from $oar"
    # The .oar is staged from ~/.m2, which concurrent builds of other checkouts on the same
    # machine overwrite; then this checkout's module jar is the one to test.
    own="$repo/$m/target/$(basename "$j")"
    if [ -f "$own" ] && ! cmp -s "$j" "$own"; then
        say "warning: the .oar's planck-$m differs from $m/target (another checkout's build in ~/.m2); using $m/target's"
        j=$own
    fi
    planck_jars+=("$j")
done

# --- the container ---------------------------------------------------------------------
tar xzf "$M2/org/apache/karaf/apache-karaf/$KARAF_VERSION/apache-karaf-$KARAF_VERSION.tar.gz" -C "$work"
kh="$work/apache-karaf-$KARAF_VERSION"
# Karaf 4.2.11 predates Java 17: declare the execution environment (as for 15) so the
# framework can start on the JDK we build with; ONOS 2.7 needs the same on 17.
jv=$("$JAVA_HOME/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/.*java.specification.version = //p')
if ! grep -q "^eecap-$jv" "$kh/etc/config.properties"; then
    vers="1.8,9.0,10.0,11.0,13.0,14.0,15.0"
    for v in $(seq 16 "$jv"); do vers="$vers,$v.0"; done
    cat >>"$kh/etc/config.properties" <<EOF
eecap-$jv = osgi.ee; osgi.ee="OSGi/Minimum"; version:List<Version>="1.0,1.1,1.2", \\
 osgi.ee; osgi.ee="JavaSE"; version:List<Version>="1.0,1.1,1.2,1.3,1.4,1.5,1.6,1.7,$vers", \\
 osgi.ee; osgi.ee="JRE"; version:List<Version>="1.0,1.1", \\
 osgi.ee; osgi.ee="JavaSE/compact1"; version:List<Version>="$vers", \\
 osgi.ee; osgi.ee="JavaSE/compact2"; version:List<Version>="$vers", \\
 osgi.ee; osgi.ee="JavaSE/compact3"; version:List<Version>="$vers"
EOF
    echo "jre-$jv = \${jre-15}" >>"$kh/etc/jre.properties"
fi
# Ports of our own so parallel runs and a real ONOS on this machine do not clash.
base=$((20000 + RANDOM % 20000))
ssh_port=$base
sed -i "s/^sshPort.*/sshPort = $ssh_port/" "$kh/etc/org.apache.karaf.shell.cfg"
sed -i "s/^sshHost.*/sshHost = 127.0.0.1/" "$kh/etc/org.apache.karaf.shell.cfg"
sed -i "s/^rmiRegistryPort.*/rmiRegistryPort = $((base + 1))/; s/^rmiServerPort.*/rmiServerPort = $((base + 2))/; s/^rmiRegistryHost.*/rmiRegistryHost = 127.0.0.1/; s/^rmiServerHost.*/rmiServerHost = 127.0.0.1/" \
    "$kh/etc/org.apache.karaf.management.cfg"
# Karaf's jetty.xml declares the JAAS realm "karaf" that ONOS's web.xml files name.
cat >"$kh/etc/org.ops4j.pax.web.cfg" <<EOF
org.osgi.service.http.port = $((base + 3))
org.ops4j.pax.web.listening.addresses = 127.0.0.1
org.ops4j.pax.web.config.file = \${karaf.etc}/jetty.xml
javax.servlet.context.tempdir = \${karaf.data}/pax-web-jsp
EOF
http_port=$((base + 3))

t0=$SECONDS
say "starting Karaf $KARAF_VERSION (ssh on 127.0.0.1:$ssh_port)"
setsid "$kh/bin/karaf" server >"$work/karaf.out" 2>&1 &
karaf_pgid=$!

# Runs Karaf shell commands (one per line on stdin) and prints their output.
kcmd() {
    timeout "${KCMD_TIMEOUT:-60}" "$kh/bin/client" -a "$ssh_port" -h 127.0.0.1 -u karaf -p karaf -b 2>/dev/null
}
for i in $(seq 90); do
    if echo "bundle:list -t 0" | KCMD_TIMEOUT=10 kcmd | grep -q "Apache Karaf :: Shell :: Core"; then break; fi
    kill -0 "$karaf_pgid" 2>/dev/null || { tail -20 "$kh/data/log/karaf.log" >&2 || true; fail "Karaf exited while starting"; }
    [ "$i" -lt 90 ] || fail "Karaf shell not up after 90 s"
    sleep 1
done
say "container up after $((SECONDS - t0)) s; installing scr and war (Felix SCR, Pax Web)"
echo "feature:install scr war" | KCMD_TIMEOUT=120 kcmd >"$work/features.out" || true
echo "feature:list -i" | kcmd >"$work/features.txt"
for f in scr war; do
    grep -qE "^$f +\|" "$work/features.txt" || { cat "$work/features.out" >&2; fail "Karaf feature $f did not install"; }
done

# --- install: libraries and SDK first, then Planck --------------------------------------
# One shell session per batch: a client JVM per bundle would cost minutes.
say "installing $(ls "$work/lib" | wc -l) SDK and library bundles, then Planck's from the .oar"
for j in "$work"/lib/*.jar; do echo "$j"; done >"$work/lib-jars"
printf '%s\n' "${planck_jars[@]}" >"$work/planck-jars"
{
    echo "bundle:install $(sed 's/^/file:/' "$work/lib-jars" | tr '\n' ' ')"
    echo "bundle:install $(sed 's/^/file:/' "$work/planck-jars" | tr '\n' ' ')"
} | KCMD_TIMEOUT=120 kcmd >"$work/install.out" 2>&1 || true
echo "bundle:list -t 0 -l --no-format" | kcmd >"$work/locations.txt"
# "<id> <jar>" for each bundle we installed, from the container's own location column.
ids_of() {
    while read -r j; do
        id=$(awk -F'|' -v loc="file:$j" '{l=$NF; gsub(/^ +| +$/, "", l); if (l == loc) {gsub(/ /, "", $1); print $1}}' "$work/locations.txt")
        [ -n "$id" ] || { cat "$work/install.out" >&2; fail "$(basename "$j") was not installed"; }
        echo "$id $j"
    done <"$1"
}
ids_of "$work/lib-jars" >"$work/lib-ids"
ids_of "$work/planck-jars" >"$work/planck-ids"
# As in ONOS: the platform (onos-rest's web application among it) is up before an app is
# installed. Started together, two web applications of the "karaf" realm race in Pax Web 7.2
# ("LoginService has different IdentityService to ConstraintSecurityHandler") and one of
# them is not deployed: that is the container's race, not something an operator meets.
echo "bundle:start $(cut -d' ' -f1 "$work/lib-ids" | tr '\n' ' ')" | KCMD_TIMEOUT=120 kcmd >"$work/start.out" 2>&1 || true
rest_up='Started HttpServiceContext\{httpContext=WebAppHttpContext\{org\.onosproject\.onos-rest'
for i in $(seq 60); do
    grep -qE "$rest_up" "$kh/data/log/karaf.log" && break
    [ "$i" -lt 60 ] || fail "ONOS's REST web application (onos-rest) not deployed after 60 s"
    sleep 1
done
echo "bundle:start $(cut -d' ' -f1 "$work/planck-ids" | tr '\n' ' ')" | KCMD_TIMEOUT=120 kcmd >>"$work/start.out" 2>&1 || true

# --- assertions --------------------------------------------------------------------------
failures=0
failed=()
check() { if eval "$2"; then say "ok   - $1"; else say "FAIL - $1"; failures=$((failures + 1)); failed+=("$1"); fi; }
# Batch output only reaches the client in full when it goes through a pipe in the shell.
kq() { sed 's/$/ | grep -v "^@@never@@"/' | kcmd | sed 's/\x1b\[[0-9;]*m//g'; }

echo "bundle:list -t 0 --no-format" | kq >"$work/bundles.txt"
state_of() { awk -F'|' -v id="$1" '$1+0 == id && $1 ~ /[0-9]/ {gsub(/ /, "", $2); print $2}' "$work/bundles.txt"; }
# Active, or Karaf's "Waiting": started, with Declarative Services components waiting for
# references (checked one by one below). Installed/Resolved/Failure mean it did not start.
unresolved=()
while read -r id jar; do
    st=$(state_of "$id")
    mf=$(unzip -p "$jar" META-INF/MANIFEST.MF)
    case "$st" in
        Active) ;;
        Waiting) grep -q "Service-Component" <<<"$mf" || unresolved+=("$id:$(basename "$jar"):$st") ;;
        Resolved) grep -q "Fragment-Host" <<<"$mf" || unresolved+=("$id:$(basename "$jar"):$st") ;;
        *) unresolved+=("$id:$(basename "$jar"):$st") ;;
    esac
done < <(cat "$work/lib-ids" "$work/planck-ids")
if [ ${#unresolved[@]} -gt 0 ]; then
    for u in "${unresolved[@]}"; do echo "  not started: $u"; done
    # The first few diagnoses name the missing packages; the rest usually cascade.
    for u in "${unresolved[@]:0:3}"; do echo "bundle:diag ${u%%:*}"; done | kq | grep -E 'osgi.wiring|Status|^[a-z]' | sed -n '1,40s/^/    /p' || true
fi
nlib=$(wc -l <"$work/lib-ids")
check "all $nlib SDK/library and 4 Planck bundles resolved and started (${#unresolved[@]} not)" '[ ${#unresolved[@]} -eq 0 ]'
while read -r id jar; do
    name=$(basename "$jar" .jar)
    check "$name started (bundle $id: $(state_of "$id"))" '[[ "$(state_of "$id")" =~ ^(Active|Waiting)$ ]]'
done <"$work/planck-ids"

# CLI: every @Command in the cli bundle's sources is registered in the container's shell.
mapfile -t commands < <(grep -rhoE 'name = "planck-[a-z-]+"' cli/src/main/java | sed 's/name = "\(.*\)"/\1/' | sort -u)
[ ${#commands[@]} -gt 0 ] || fail "no @Command found in cli/src/main/java"
for c in "${commands[@]}"; do echo "onos:$c --help"; done | kq >"$work/help.txt"
missing=()
for c in "${commands[@]}"; do grep -qE "^ +onos:$c( |$)" "$work/help.txt" || missing+=("$c"); done
check "all ${#commands[@]} planck CLI commands registered as onos:planck-* (missing: ${missing[*]:-none})" '[ ${#missing[@]} -eq 0 ]'

# SCR: every Planck component is known to SCR and none failed. A component that is not
# active may wait only for ONOS core services, or for Planck services that another Planck
# component provides (and that is itself waiting): a Planck service nobody provides, or a
# reference to anything else, is a wiring defect.
echo "scr:list" | kq >"$work/scr.txt"
mapfile -t comps < <(awk '/^org\.planck\./ {name = $1; next} name && /Id: [0-9]+, State:/ {
        sub(/.*State: */, ""); gsub(/ /, "_"); print name " " $0; name = ""}' "$work/scr.txt")
expected=$(for j in "${planck_jars[@]}"; do unzip -l "$j" 'OSGI-INF/*.xml' 2>/dev/null | grep -oE 'OSGI-INF/[^ ]+\.xml'; done | wc -l)
check "SCR knows all $expected Planck components (sees ${#comps[@]})" '[ ${#comps[@]} -eq "$expected" ]'
for entry in "${comps[@]}"; do echo "scr:info ${entry% *}"; done | kq >"$work/scr-info.txt"
provided=$(awk '/^Class: +org\.planck\./ {p = 1} /^Class: / && !/org\.planck\./ {p = 0}
        p && /^Services: / {gsub(/[][,]/, " "); for (i = 2; i <= NF; i++) print $i}' "$work/scr-info.txt" | sort -u)
bad=()
core_waits=()
for entry in "${comps[@]}"; do
    name=${entry% *}; st=${entry#* }
    waits=$(awk -v n="$name" '/^Component Description: / {c = $3} c == n && /^  - [A-Za-z]+: .* UNSATISFIED/ {print $3}' \
        "$work/scr-info.txt" | sort -u | tr '\n' ' ')
    case "$st" in
        ACTIVE|SATISFIED) say "     $name: $st" ;;
        UNSATISFIED_REFERENCE)
            say "     $name: waits for ${waits:-?}"
            [ -n "$waits" ] || bad+=("$name:UNSATISFIED_REFERENCE-without-a-named-reference")
            for w in $waits; do
                case "$w" in
                    org.onosproject.*) core_waits+=("$w") ;;
                    org.planck.api.*) grep -qx "$w" <<<"$provided" || bad+=("$name:waits-for-$w-which-no-Planck-component-provides") ;;
                    *) bad+=("$name:waits-for-$w") ;;
                esac
            done
            ;;
        *) bad+=("$name:$st") ;;
    esac
done
check "no Planck component failed; waiting ones wait for ONOS core or provided Planck services (${bad[*]:-ok})" '[ ${#bad[@]} -eq 0 ]'
say "     ONOS core services the app needs: $(printf '%s\n' "${core_waits[@]}" | sort -u | sed 's/org.onosproject.//' | tr '\n' ' ')"
check "the app waits for ONOS core services (so the container lacks them, as expected)" '[ ${#core_waits[@]} -gt 0 ]'

# REST: the planck-web bundle deploys as a web application at /onos/planck, behind the
# "karaf" realm like ONOS's own, and a resource that needs no ONOS service answers.
body=""
for _ in $(seq 30); do
    body=$(curl -s -m 5 -u karaf:karaf "http://127.0.0.1:$http_port/onos/planck/v1/versions" || true)
    [ -n "$body" ] && break
    sleep 1
done
check "GET /onos/planck/v1/versions answers from the container ($body)" \
    'python3 -c "import json,sys; d=json.loads(sys.argv[1]); sys.exit(0 if d[\"telemetryEvents\"] >= 1 and d[\"forwardingMap\"] >= 1 else 1)" "$body" 2>/dev/null'
code=$(curl -s -o /dev/null -w '%{http_code}' -m 5 "http://127.0.0.1:$http_port/onos/planck/v1/versions" || true)
check "the same request without credentials is refused (HTTP $code)" '[ "$code" = 401 ]'

errors=$(grep -E '\| ERROR \|' "$kh/data/log/karaf.log" | grep -iE 'planck' | sed -n 1,5p || true)
check "no ERROR from a Planck bundle in karaf.log" '[ -z "$errors" ]'
[ -z "$errors" ] || echo "$errors"

say "container work took $((SECONDS - t0)) s"
if [ "$failures" -ne 0 ]; then
    say "$failures check(s) failed; karaf.log tail:"
    tail -30 "$kh/data/log/karaf.log" | cut -c1-300
    # Last, so that a log that keeps only the tail still names what failed.
    for f in "${failed[@]}"; do say "failed: ${f:0:200}"; done
    exit 1
fi
say "all checks passed"
