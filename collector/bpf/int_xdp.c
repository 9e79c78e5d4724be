// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
//
// The INT collector's XDP fast path: parses INT v0.5 / v1.0 telemetry reports (UDP) and
// drops, counted, the reports that userspace would apply without an event: the flow's
// path, hop latencies, flow latency and every hop's link and queue values stay in the
// intervals userspace last recorded, and no periodic push or idle check is due. Every
// other report sent to a report port goes up, in arrival order, through a BPF ring
// buffer. Userspace stays the source of truth: it alone writes the flow, link and queue
// maps, from its own state, after applying each report that came up (and only for
// reports it accepted), so the kernel drops nothing userspace has not already agreed
// on. The rule is documented in docs/collector.md ("XDP fast path") and mirrored in
// collector/src/inband/xdp_filter.rs; the structures below are repeated there.
//
// Build: clang-14 -O2 -g -target bpf -c int_xdp.c (collector/build.rs does this).

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define MAX_HOPS 16
#define MAX_PAYLOAD 2048
#define NO_FIELD 0xff

// Per-CPU counters (index = enum below; the collector sums them for /metrics).
enum counter {
	C_REPORTS,        // UDP packets to a report port on this interface
	C_FILTERED,       // dropped here: no event
	C_RING,           // sent up through the ring buffer
	C_RING_FULL,      // ring buffer full: lost
	C_TOO_BIG,        // payload over MAX_PAYLOAD: passed to the socket
	C_UNSUPPORTED,    // not a v0.5/v1.0 report over IPv4 the filter reads (v2, IPv6, VLAN, ...)
	C_NO_ENTRY,       // flow unknown to the kernel (new, refused or evicted)
	C_SHAPE,          // header layout differs from the flow's last accepted report
	C_PATH,           // switch ids differ
	C_LATENCY,        // a hop or the flow latency changed interval
	C_SHARED,         // a link or queue key is unknown or changed interval
	C_DUE,            // periodic push or idle check due
	C_BUSY,           // reports still unread in the ring, or userspace writing its maps
	C_COUNT,
};

struct config {
	__u64 width_flow_latency;
	__u64 width_hop_latency;
	__u64 width_link;
	__u64 width_occupancy;
	__u64 width_congestion;
	// Odd while userspace writes the maps (a sequence lock; see the end of int_xdp).
	__u64 generation;
};

struct flow_key {
	__u32 src;
	__u32 dst;
	__u16 sport;
	__u16 dport;
	__u8 proto;
	__u8 pad[3];
};

// What the report's headers say, as far as decoding depends on it. A report is only
// dropped when this equals the shape of the flow's last report that userspace accepted.
struct shape {
	__u16 payload_len;
	__u16 stack_off;      // INT stack, from the UDP payload start
	__u16 bitmap;
	__u8 version;         // 0 = v0.5, 1 = v1.0
	__u8 hdr0;            // report header byte 0 (version nibble, NProto or Len)
	__u8 inner;           // inner packet kind (0 Ethernet, 1 IPv4)
	__u8 md_count;        // v0.5 InsCnt, v1.0 HopML
	__u8 md_hops;         // v0.5 TotalHopCnt, v1.0 0
	__u8 md_max_hops;     // v0.5 MaxHopCnt, v1.0 0
	__u8 shim_len;        // words
	__u8 l4_proto;
	__u8 l4_len;          // inner transport header bytes
	__u8 pad;
};

struct hop_expect {
	__u32 switch_id;
	__u32 pad;
	__u64 latency_interval;
};

struct flow_entry {
	struct shape shape;
	__u64 filter_until_ns;    // bpf_ktime_get_ns() deadline: pass from then on
	__u64 latency_interval;   // flow latency / width
	__u8 hops;
	__u8 hop_bytes;
	// Byte offsets within a hop, NO_FIELD when the bitmap lacks it.
	__u8 off_switch;
	__u8 off_ports;
	__u8 off_latency;
	__u8 off_occupancy;
	__u8 off_congestion;
	__u8 off_utilization;
	struct hop_expect hop[MAX_HOPS];   // stack order: hop[0] is the last switch
};

struct link_key {
	__u32 switch_id;
	__u16 port;
	__u16 pad;
};

struct link_value {
	__u64 interval;
};

struct queue_key {
	__u32 switch_id;
	__u8 queue;
	__u8 pad[3];
};

struct queue_value {
	__u64 occupancy_interval;
	__u64 congestion_interval;
	__u8 has_occupancy;
	__u8 has_congestion;
	__u8 pad[6];
};

// A per-CPU direct-mapped cache of link and queue map values, each slot tagged with the
// map generation it was read in (+1, so that a zeroed slot never matches): valid while
// the generation is unchanged, i.e. while userspace has written none of the maps. In the
// steady state a report then costs one hash lookup (its flow) instead of one per hop key.
#define CACHE_SLOTS 64

struct link_slot {
	__u64 tag;
	struct link_key key;
	__u64 interval;
};

struct queue_slot {
	__u64 tag;
	struct queue_key key;
	struct queue_value value;
};

struct hop_cache {
	struct link_slot links[CACHE_SLOTS];
	struct queue_slot queues[CACHE_SLOTS];
};

struct record {
	struct shape shape;
	struct flow_key key;
	__u32 len;
	__u8 filterable;          // shape and key are filled in
	__u8 why;                 // the counter of the check that sent it up
	__u16 pad;
	__u8 data[MAX_PAYLOAD];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct config);
} config SEC(".maps");

// UDP destination port -> 1 when reports arrive on it.
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} report_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, C_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct flow_key);
	__type(value, struct flow_entry);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, struct link_key);
	__type(value, struct link_value);
} links SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, struct queue_key);
	__type(value, struct queue_value);
} queues SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hop_cache);
} hop_cache SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} reports SEC(".maps");

static __always_inline void count(__u32 i)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &i);
	if (c)
		*c += 1;
}

static __always_inline __u32 rd32(const __u8 *p)
{
	return ((__u32)p[0] << 24) | ((__u32)p[1] << 16) | ((__u32)p[2] << 8) | p[3];
}

// Reads the 4 bytes at payload + off, or returns -1 when they are outside the packet.
static __always_inline int load32(const __u8 *payload, const void *end, __u32 off, __u32 *out)
{
	const __u8 *p = payload + (off & 0xfff);
	if ((const void *)(p + 4) > end)
		return -1;
	*out = rd32(p);
	return 0;
}

// Parses the report's headers into shape and key; 0 when it is a report the filter reads.
static __always_inline int parse(const __u8 *pl, const void *end, struct shape *s, struct flow_key *k)
{
	__u32 off;
	if ((const void *)(pl + 16) > end)
		return -1;
	__u8 b0 = pl[0];
	s->hdr0 = b0;
	if (b0 >> 4 == 0 || (b0 >> 4 == 1 && (b0 & 0x0f) < 4)) {
		s->version = 0;
		s->inner = b0 & 0x0f;
		off = 12;
	} else if (b0 >> 4 == 1) {
		s->version = 1;
		s->inner = pl[1] >> 5;
		off = (b0 & 0x0f) * 4;
	} else {
		return -1;
	}
	if (s->inner == 0) {
		const __u8 *e = pl + (off & 0x3f);
		if ((const void *)(e + 14) > end)
			return -1;
		if (e[12] != 0x08 || e[13] != 0x00)
			return -1;
		off += 14;
	} else if (s->inner != 1) {
		return -1;
	}
	const __u8 *ip = pl + (off & 0x7f);
	if ((const void *)(ip + 20) > end)
		return -1;
	if (ip[0] >> 4 != 4 || (ip[0] & 0x0f) < 5)
		return -1;
	__u32 ihl = (ip[0] & 0x0f) * 4;
	if ((((__u32)ip[6] << 8) | ip[7]) & 0x1fff)
		return -1;
	k->src = *(const __u32 *)(ip + 12);
	k->dst = *(const __u32 *)(ip + 16);
	k->proto = ip[9];
	off += ihl;
	const __u8 *t = pl + (off & 0xff);
	if ((const void *)(t + 20) > end)
		return -1;
	k->sport = ((__u16)t[0] << 8) | t[1];
	k->dport = ((__u16)t[2] << 8) | t[3];
	__u32 l4;
	if (k->proto == IPPROTO_UDP) {
		l4 = 8;
	} else if (k->proto == IPPROTO_TCP) {
		l4 = (t[12] >> 4) * 4;
		if (l4 < 20)
			return -1;
	} else {
		return -1;
	}
	s->l4_proto = k->proto;
	s->l4_len = l4;
	off += l4;
	const __u8 *shim = pl + (off & 0x1ff);
	if ((const void *)(shim + 12) > end)
		return -1;
	if (shim[0] != 1)
		return -1;
	const __u8 *md = shim + 4;
	if (s->version == 0) {
		if (md[0] >> 6 != 0)
			return -1;
		s->md_count = md[1] & 0x1f;
		s->md_max_hops = md[2];
		s->md_hops = md[3];
	} else {
		if (md[0] >> 4 != 1)
			return -1;
		s->md_count = md[2] & 0x1f;
	}
	s->shim_len = shim[2];
	s->bitmap = ((__u16)md[4] << 8) | md[5];
	s->stack_off = off + 12;
	return 0;
}

// The interval userspace holds for a link, through the cache; -1 when it holds none.
static __always_inline int link_interval(struct hop_cache *c, __u64 tag, const struct link_key *k, __u64 *out)
{
	struct link_slot *s = &c->links[(k->switch_id * 31 + k->port) & (CACHE_SLOTS - 1)];
	if (s->tag == tag && s->key.switch_id == k->switch_id && s->key.port == k->port) {
		*out = s->interval;
		return 0;
	}
	struct link_value *l = bpf_map_lookup_elem(&links, k);
	if (!l)
		return -1;
	s->tag = tag;
	s->key = *k;
	s->interval = l->interval;
	*out = l->interval;
	return 0;
}

static __always_inline int queue_value(struct hop_cache *c, __u64 tag, const struct queue_key *k, struct queue_value *out)
{
	struct queue_slot *s = &c->queues[(k->switch_id * 31 + k->queue) & (CACHE_SLOTS - 1)];
	if (s->tag == tag && s->key.switch_id == k->switch_id && s->key.queue == k->queue) {
		*out = s->value;
		return 0;
	}
	struct queue_value *q = bpf_map_lookup_elem(&queues, k);
	if (!q)
		return -1;
	s->tag = tag;
	s->key = *k;
	s->value = *q;
	*out = *q;
	return 0;
}

static __always_inline int shape_eq(const struct shape *a, const struct shape *b)
{
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;
	return x[0] == y[0] && x[1] == y[1];
}

// 0 when every hop of the report stays where the flow's entry and the link and queue
// maps say userspace left it; else the counter of the first difference.
static __always_inline int same_intervals(const __u8 *pl, const void *end, const struct flow_entry *f,
					  const struct config *cfg, __u64 gen)
{
	__u32 zero = 0;
	struct hop_cache *c = bpf_map_lookup_elem(&hop_cache, &zero);
	if (!c)
		return C_SHARED;
	__u64 tag = gen + 1;
	__u64 latency = 0;
	__u32 base = f->shape.stack_off;
#pragma clang loop unroll(disable)
	for (int i = 0; i < MAX_HOPS; i++) {
		if (i >= f->hops)
			break;
		__u32 sw, v;
		const struct hop_expect *h = &f->hop[i];
		if (load32(pl, end, base + f->off_switch, &sw) || sw != h->switch_id)
			return C_PATH;
		if (f->off_latency != NO_FIELD) {
			if (load32(pl, end, base + f->off_latency, &v))
				return C_SHAPE;
			latency += v;
			if ((__u64)v / cfg->width_hop_latency != h->latency_interval)
				return C_LATENCY;
		}
		if (f->off_ports != NO_FIELD && f->off_utilization != NO_FIELD) {
			__u32 ports, util;
			if (load32(pl, end, base + f->off_ports, &ports) ||
			    load32(pl, end, base + f->off_utilization, &util))
				return C_SHAPE;
			struct link_key lk = { .switch_id = sw, .port = ports & 0xffff };
			__u64 iv;
			if (link_interval(c, tag, &lk, &iv) || (__u64)util / cfg->width_link != iv)
				return C_SHARED;
		}
		if (f->off_occupancy != NO_FIELD) {
			__u32 q;
			if (load32(pl, end, base + f->off_occupancy, &q))
				return C_SHAPE;
			struct queue_key qk = { .switch_id = sw, .queue = q >> 24 };
			struct queue_value qv;
			if (queue_value(c, tag, &qk, &qv) || !qv.has_occupancy ||
			    (__u64)(q & 0xffffff) / cfg->width_occupancy != qv.occupancy_interval)
				return C_SHARED;
		}
		if (f->off_congestion != NO_FIELD) {
			__u32 q;
			if (load32(pl, end, base + f->off_congestion, &q))
				return C_SHAPE;
			struct queue_key qk = { .switch_id = sw, .queue = q >> 24 };
			struct queue_value qv;
			if (queue_value(c, tag, &qk, &qv) || !qv.has_congestion ||
			    (__u64)(q & 0xffffff) / cfg->width_congestion != qv.congestion_interval)
				return C_SHARED;
		}
		base += f->hop_bytes;
	}
	if (f->off_latency != NO_FIELD && latency / cfg->width_flow_latency != f->latency_interval)
		return C_LATENCY;
	return 0;
}

SEC("xdp")
int int_xdp(struct xdp_md *ctx)
{
	const void *data = (const void *)(long)ctx->data;
	const void *end = (const void *)(long)ctx->data_end;
	__u32 zero = 0;
	struct config *cfg = bpf_map_lookup_elem(&config, &zero);
	if (!cfg)
		return XDP_PASS;
	const struct ethhdr *eth = data;
	if ((const void *)(eth + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	const struct iphdr *ip = (const void *)(eth + 1);
	if ((const void *)(ip + 1) > end || ip->ihl < 5 || ip->protocol != IPPROTO_UDP)
		return XDP_PASS;
	// Fragments go to the stack, which reassembles them for the socket.
	if (ip->frag_off & bpf_htons(0x3fff))
		return XDP_PASS;
	const struct udphdr *udp = (const void *)ip + ip->ihl * 4;
	if ((const void *)(udp + 1) > end)
		return XDP_PASS;
	__u32 dport = bpf_ntohs(udp->dest);
	__u8 *ours = bpf_map_lookup_elem(&report_ports, &dport);
	if (!ours || !*ours)
		return XDP_PASS;
	count(C_REPORTS);
	const __u8 *pl = (const __u8 *)(udp + 1);
	__u32 plen = bpf_ntohs(udp->len);
	if (plen < 8 || (const void *)pl + (plen - 8) > end)
		return XDP_PASS;   // the stack counts and drops a bad UDP length
	plen -= 8;
	if (plen == 0 || plen > MAX_PAYLOAD) {
		count(C_TOO_BIG);
		return XDP_PASS;
	}

	struct shape s = {};
	struct flow_key k = {};
	int filterable = parse(pl, end, &s, &k) == 0;
	s.payload_len = plen;
	int why = C_UNSUPPORTED;
	__u64 gen = 0;
	if (filterable) {
		gen = *(volatile __u64 *)&cfg->generation;
		struct flow_entry *f = bpf_map_lookup_elem(&flows, &k);
		if (gen & 1 || bpf_ringbuf_query(&reports, BPF_RB_AVAIL_DATA) != 0)
			why = C_BUSY;
		else if (!f)
			why = C_NO_ENTRY;
		else if (!shape_eq(&s, &f->shape))
			why = C_SHAPE;
		else if (bpf_ktime_get_ns() >= f->filter_until_ns)
			why = C_DUE;
		else
			why = same_intervals(pl, end, f, cfg, gen);
		// Userspace wrote its maps while we read them: the reads may mix two states.
		if (why == 0 && *(volatile __u64 *)&cfg->generation != gen)
			why = C_BUSY;
		if (why == 0) {
			count(C_FILTERED);
			return XDP_DROP;
		}
	}
	count(why);
	struct record *r = bpf_ringbuf_reserve(&reports, sizeof(struct record), 0);
	if (!r) {
		count(C_RING_FULL);
		return XDP_DROP;
	}
	r->shape = s;
	r->key = k;
	r->len = plen;
	r->filterable = filterable;
	r->why = why;
	r->pad = 0;
	__u32 at = (const __u8 *)pl - (const __u8 *)data;
	if (bpf_xdp_load_bytes(ctx, at, r->data, plen) != 0) {
		bpf_ringbuf_discard(r, 0);
		count(C_RING_FULL);
		return XDP_DROP;
	}
	bpf_ringbuf_submit(r, 0);
	count(C_RING);
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
