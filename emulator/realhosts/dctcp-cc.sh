#!/usr/bin/env bash
# DCTCP for real hosts on kernels without tcp_dctcp (docs/realhosts.md, "DCTCP hosts"):
# builds dctcp_cc.bpf.c against this kernel's BTF and registers it as the congestion control
# "planck_dctcp" (BPF struct_ops), or removes it.
#
#   dctcp-cc.sh load     # prints the name to use with TCP_CONGESTION / iperf3 -C; exit 0
#                        # if it is registered after the call (already there counts)
#   dctcp-cc.sh unload   # unregisters it (by name); no-op when absent
#   dctcp-cc.sh name     # the name, whether registered or not
#   dctcp-cc.sh select STATE   # the hosts' DCTCP: prints "dctcp" when the kernel has it, else
#                        # loads planck_dctcp and prints its name; adds it to
#                        # net.ipv4.tcp_allowed_congestion_control (a namespace may only
#                        # default to an allowed one). What it changed goes into the file
#                        # STATE (the caller's; selecting again with the same file keeps the
#                        # first record). Exit 1, nothing changed, when there is no DCTCP.
#   dctcp-cc.sh restore STATE  # undoes what `select` recorded in STATE (the allowed list as it
#                        # was; planck_dctcp unregistered only if that select registered it),
#                        # then removes STATE; no-op without STATE
#
# Needs root, clang-14, bpftool and /sys/kernel/btf/vmlinux (scripts/deps.sh installs the tools).
# A kernel with the real tcp_dctcp is better still: callers use "dctcp" when it is available.
set -euo pipefail

NAME=planck_dctcp
HERE=$(cd "$(dirname "$0")" && pwd)

AVAILABLE=/proc/sys/net/ipv4/tcp_available_congestion_control
ALLOWED=/proc/sys/net/ipv4/tcp_allowed_congestion_control
registered() { grep -qw "$NAME" "$AVAILABLE"; }

case "${1:-}" in
  name)
    echo "$NAME" ;;
  load)
    if registered; then echo "$NAME"; exit 0; fi
    [ -r /sys/kernel/btf/vmlinux ] || { echo "dctcp-cc: no kernel BTF (/sys/kernel/btf/vmlinux)" >&2; exit 1; }
    for t in clang-14 bpftool; do
      command -v "$t" >/dev/null || { echo "dctcp-cc: missing $t" >&2; exit 1; }
    done
    build=$(mktemp -d /tmp/planck-dctcp-cc.XXXXXX)
    trap 'rm -rf "$build"' EXIT
    bpftool btf dump file /sys/kernel/btf/vmlinux format c >"$build/vmlinux.h"
    clang-14 -O2 -g -target bpf -D__TARGET_ARCH_x86 -I"$build" -I/usr/include/x86_64-linux-gnu \
      -c "$HERE/dctcp_cc.bpf.c" -o "$build/dctcp_cc.bpf.o" \
      || { echo "dctcp-cc: build failed" >&2; exit 1; }
    bpftool struct_ops register "$build/dctcp_cc.bpf.o" >/dev/null 2>&1 \
      || { echo "dctcp-cc: the kernel refused the program (struct_ops tcp_congestion_ops)" >&2; exit 1; }
    registered || { echo "dctcp-cc: registered, yet $NAME is not in tcp_available_congestion_control" >&2; exit 1; }
    echo "$NAME" ;;
  unload)
    # bpftool also tries maps of that name already unregistered and waiting for their last
    # socket (EINPROGRESS) and then exits 255: what counts is that the name is gone.
    if registered; then
      bpftool struct_ops unregister name "$NAME" >/dev/null 2>&1 || true
      ! registered || { echo "dctcp-cc: $NAME is still registered" >&2; exit 1; }
    fi ;;
  select)
    state=${2:?usage: $0 select STATE}
    # Earlier records in STATE win: a second select must not forget that the first one
    # registered planck_dctcp or changed the allowed list.
    loaded= allowed_before=
    # shellcheck disable=SC1090
    [ -f "$state" ] && . "$state"
    save() { printf 'loaded=%q\nallowed_before=%q\n' "$loaded" "$allowed_before" >"$state"; }
    if grep -qw dctcp "$AVAILABLE"; then
      cc=dctcp
    else
      registered || was_absent=1
      cc=$("$0" load) || exit 1
      [ -n "${was_absent:-}" ] && loaded=1
      save
    fi
    allowed=$(cat "$ALLOWED")
    if ! grep -qw "$cc" <<<"$allowed"; then
      [ -n "$allowed_before" ] || allowed_before=$allowed
      save
      sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed $cc"
    fi
    save
    echo "$cc" ;;
  restore)
    state=${2:?usage: $0 restore STATE}
    [ -f "$state" ] || exit 0
    loaded= allowed_before=
    # shellcheck disable=SC1090
    . "$state"
    [ -n "$allowed_before" ] && sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed_before"
    [ -n "$loaded" ] && "$0" unload
    rm -f "$state" ;;
  *)
    echo "usage: $0 load|unload|name|select STATE|restore STATE" >&2; exit 2 ;;
esac
