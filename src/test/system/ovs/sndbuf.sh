# shellcheck shell=bash
# The send buffer of ovs-vswitchd's frames, for the fabric's lifetime (sourced by the OVS fabric's
# scripts in the root namespace, before and after they run the switches in ${P}sw).
#
# The userspace datapath sends every frame, to every port, through one AF_PACKET socket created
# with the default send buffer (net.core.wmem_default, 208 KiB here). A frame waiting in a port's
# qdisc is still charged to that socket: the links' tbf queues and, above all, the 20
# oversubscribed mirror ports, whose queues are always full, use it up, and then every send of
# the switch fails with EAGAIN ("error sending Ethernet packet ... Resource temporarily
# unavailable" in ovs-vswitchd.log): real traffic is dropped on every port, not just the excess
# on the congested one. Measured with src/test/system/ovs/capacity.sh (2.5 Mb/s links, mirrors
# at 250 kb/s, stride(8) placed one flow per port): 4.5 Mb/s in total with 988 retransmits at
# the default, 37.2 Mb/s with none at 4 MiB (docs/ovs-fabric.md).
#
# The setting is machine-wide (a namespace cannot change it) and sockets take it when created,
# so it is raised before ovs-vswitchd starts and put back when the fabric is gone, unless
# someone else changed it meanwhile.
OVS_SNDBUF_BYTES=${OVS_SNDBUF_BYTES:-4194304}
OVS_SNDBUF_SAVED=""

# Raises the default (unless OVS_SNDBUF=default, to compare with the old behaviour) and puts it
# back when the calling script exits.
ovs_sndbuf_raise() {
  local now
  trap ovs_sndbuf_restore EXIT
  [ "${OVS_SNDBUF:-raise}" = default ] && return 0
  now=$(sysctl -n net.core.wmem_default)
  if [ "$now" -lt "$OVS_SNDBUF_BYTES" ]; then
    OVS_SNDBUF_SAVED=$now
    sysctl -qw "net.core.wmem_default=$OVS_SNDBUF_BYTES"
  fi
}

ovs_sndbuf_restore() {
  if [ -n "$OVS_SNDBUF_SAVED" ] && [ "$(sysctl -n net.core.wmem_default)" = "$OVS_SNDBUF_BYTES" ]; then
    sysctl -qw "net.core.wmem_default=$OVS_SNDBUF_SAVED"
  fi
  OVS_SNDBUF_SAVED=""
}
