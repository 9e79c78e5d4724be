#!/bin/sh
# Instructions, simulated L1 misses and branch mispredictions per INT report on the hot path, under cachegrind
# (counts that do not depend on the load of the machine). Usage:
#   collector/benches/int_reports_cachegrind.sh [BENCH_BINARY] [steady|one_in_ten_crossing]
# BENCH_BINARY defaults to the newest target/release/deps/int_reports-*, built with
#   cargo bench -p planck-collector --bench int_reports --no-run
# Sums the functions of the hot path (IntDecoder::decode_frame, the benchmark loop into
# which the state is inlined, the state's out-of-line functions, memcpy) and divides by
# the reports the benchmark prints. The first pass (new flows, full path) is in the sum
# too: the more reports the run gets (PROFILE_SECONDS, wall time), the less it weighs.
set -eu
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:-$(ls -t "$REPO"/target/release/deps/int_reports-* | grep -v '\.d$' | head -1)}
INPUT=${2:-steady}
OUT=$(mktemp -d "$REPO/target/int-cg.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes --D1=32768,8,64 --LL=1048576,16,64 \
  --cachegrind-out-file="$OUT/cg.out" "$BIN" --bench --profile-time "${PROFILE_SECONDS:-6}" --exact \
  "int_v05_6hops_all_fields_100flows/$INPUT" 2>"$OUT/stderr" >/dev/null
REPORTS=$(sed -n "s/^$INPUT: \([0-9]*\) reports.*/\1/p" "$OUT/stderr")
[ -n "$REPORTS" ] && [ "$REPORTS" -gt 0 ] || { echo "no report count from the bench" >&2; exit 1; }
python3 - "$OUT/cg.out" "$REPORTS" "$INPUT" <<'PY'
import collections, re, sys
path, reports, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
names, events, fn = {}, None, None
tot = collections.defaultdict(lambda: None)
def ref(s):
    m = re.match(r'\((\d+)\)(?: (.*))?', s)
    if not m:
        return s
    if m.group(2) is not None:
        names[m.group(1)] = m.group(2)
    return names[m.group(1)]
for line in open(path):
    if line.startswith('events:'):
        events = line.split()[1:]
    elif line.startswith('fn='):
        fn = ref(line[3:].strip())
    elif line[:1].isdigit() and fn is not None:
        v = [int(x) for x in line.split()[1:]]
        t = tot[fn] or [0] * len(events)
        for i, x in enumerate(v):
            t[i] += x
        tot[fn] = t
hot = lambda f: any(k in f for k in ('Bencher<M>::iter', 'decode_frame', 'inband::state', 'IntState', 'SwitchTables', 'memcpy', 'memmove'))
sums = collections.defaultdict(lambda: [0] * len(events))
for f, v in tot.items():
    if hot(f):
        part = 'decode' if 'decode_frame' in f else 'state and loop'
        for i, x in enumerate(v):
            sums[part][i] += x
            sums['total'][i] += x
ir, d1, bcm, bim = events.index('Ir'), events.index('D1mr'), events.index('Bcm'), events.index('Bim')
print(f'{name}: {reports} reports')
for part in ('decode', 'state and loop', 'total'):
    v = sums[part]
    print(f'  {part:15s} {v[ir] / reports:7.1f} instructions, {v[d1] / reports:5.2f} L1 read misses, {(v[bcm] + v[bim]) / reports:5.2f} mispredicted branches per report')
PY
