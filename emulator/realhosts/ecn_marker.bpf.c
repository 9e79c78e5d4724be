// SPDX-License-Identifier: Apache-2.0
// DCTCP-style ECN marking for the kernel reference of fct-accuracy.sh (docs/realhosts.md),
// where the kernel has no sch_red: a tc egress program (clsact) on a bridge port whose root
// qdisc is HTB at RATE_BPS over a pfifo. clsact egress runs before the root qdisc, so the
// program cannot read the pfifo's length; it keeps the same queue as a virtual one instead:
// bytes arrive with each frame and drain at exactly the shaped rate (what HTB does while
// backlogged). An ECT frame arriving to a backlog of K_BYTES or more gets CE (IP checksum
// updated), as the emulator's DCTCP stage marks a packet arriving to a queue >= K. A frame
// that would overflow LIMIT_BYTES is not counted (the pfifo drops it).
//
// Build: clang -O2 -g -target bpf -DRATE_BPS=1000000000 -DK_BYTES=30280 -DLIMIT_BYTES=151400 \
//          -c ecn_marker.bpf.c -o ecn_marker.o
// Attach: tc qdisc add dev PORT clsact; tc filter add dev PORT egress bpf da obj ecn_marker.o sec tc

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#ifndef RATE_BPS
#error "define RATE_BPS, K_BYTES and LIMIT_BYTES"
#endif

struct port {
	struct bpf_spin_lock lock;
	__u64 last_ns;
	__u64 backlog; /* bytes */
	__u64 frames;
	__u64 marked;
	__u64 overflow;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct port);
} port_state SEC(".maps");

SEC("tc")
int mark(struct __sk_buff *skb)
{
	__u32 zero = 0;
	struct port *p = bpf_map_lookup_elem(&port_state, &zero);
	if (!p)
		return TC_ACT_OK;
	__u64 now = bpf_ktime_get_ns();
	__u64 len = skb->len;
	int mark = 0;

	bpf_spin_lock(&p->lock);
	__u64 drained = (now - p->last_ns) * (RATE_BPS / 1000000) / 8000; /* bytes in (now - last) */
	p->last_ns = now;
	p->backlog = p->backlog > drained ? p->backlog - drained : 0;
	p->frames++;
	if (p->backlog + len > LIMIT_BYTES) {
		p->overflow++;
	} else {
		mark = p->backlog >= K_BYTES;
		p->backlog += len;
	}
	bpf_spin_unlock(&p->lock);
	if (!mark)
		return TC_ACT_OK;

	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);
	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return TC_ACT_OK;
	__u8 ecn = ip->tos & 3;
	if (ecn == 0 || ecn == 3)
		return TC_ACT_OK; /* Not-ECT, or CE already */
	/* The 16-bit word holding TOS (with version/IHL) before and after. */
	__u16 old = *(__u16 *)ip;
	__u16 new_word;
	__u8 *b = (__u8 *)&new_word;
	new_word = old;
	b[1] = ip->tos | 3;
	if (bpf_l3_csum_replace(skb, sizeof(*eth) + __builtin_offsetof(struct iphdr, check), old, new_word, 2))
		return TC_ACT_OK;
	__u8 tos = b[1];
	bpf_skb_store_bytes(skb, sizeof(*eth) + __builtin_offsetof(struct iphdr, tos), &tos, 1, 0);
	__sync_fetch_and_add(&p->marked, 1);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
