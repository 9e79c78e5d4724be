#!/usr/bin/env bash
# DCTCP for real hosts on kernels without tcp_dctcp (docs/realhosts.md, "DCTCP hosts"):
# builds dctcp_cc.bpf.c against this kernel's BTF and registers it as the congestion control
# "planck_dctcp" (BPF struct_ops), or removes it.
#
#   dctcp-cc.sh load     # prints the name to use with TCP_CONGESTION / iperf3 -C; exit 0
#                        # if it is registered after the call (already there counts)
#   dctcp-cc.sh unload   # unregisters it (by name); no-op when absent
#   dctcp-cc.sh name     # the name, whether registered or not
#
# Needs root, clang-14, bpftool and /sys/kernel/btf/vmlinux (scripts/deps.sh installs the tools).
# A kernel with the real tcp_dctcp is better still: callers use "dctcp" when it is available.
set -euo pipefail

NAME=planck_dctcp
HERE=$(cd "$(dirname "$0")" && pwd)

registered() { grep -qw "$NAME" /proc/sys/net/ipv4/tcp_available_congestion_control; }

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
    if registered; then
      bpftool struct_ops unregister name "$NAME" >/dev/null 2>&1
    fi ;;
  *)
    echo "usage: $0 load|unload|name" >&2; exit 2 ;;
esac
