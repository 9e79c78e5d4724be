// SPDX-License-Identifier: GPL-2.0
// DCTCP (RFC 8257) as a BPF congestion control ("planck_dctcp"), for kernels built without
// tcp_dctcp: the real hosts of the emulator's DCTCP ports (docs/realhosts.md) need a sender
// that cuts its window by the fraction of marked bytes, not by half on every mark as cubic or
// reno with ECN do, and a receiver that echoes exactly which segments were marked.
//
// Sender: alpha (in 1/1024) is an EWMA with gain g = 1/16 of the fraction of delivered
// segments whose ACK echoed CE, folded in once per window of data (when snd_una passes the
// snd_nxt of the window's start); on ECE the kernel asks for ssthresh, which is
// cwnd * (1 - alpha / 2); a loss halves the window as Reno does; growth is Reno's.
// Receiver: ECE follows the CE state of the data received (set while the last segment was
// marked), and a change of state is acknowledged at once, after a delayed ACK of the
// segments before it if one was pending (RFC 8257 section 3.2).
//
// Build and register: emulator/realhosts/dctcp-cc.sh load (clang-14, bpftool, BTF).

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char _license[] SEC("license") = "GPL";

#define ALPHA_ONE 1024U
#define G_SHIFT 4
/* tcp_sock.ecn_flags: ECE on every ACK until the peer's CWR (include/net/tcp_ecn.h). */
#define ECN_DEMAND_CWR 4
/* tcp_congestion_ops.flags: the socket negotiates ECN and sends ECT (include/net/tcp.h). */
#define CONG_NEEDS_ECN 0x2

extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;

struct dctcp {
	/* Sender: the observation window and alpha. */
	__u32 window_end;
	__u32 delivered_at_start;
	__u32 delivered_ce_at_start;
	__u32 alpha;
	__u32 cwnd_before_cut;
	/* Receiver: the CE state of the last segment and rcv_nxt when it was set. */
	__u32 ce;
	__u32 rcv_nxt_at_change;
};

static __always_inline struct dctcp *state(struct sock *sk)
{
	return (struct dctcp *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static __always_inline void start_window(struct tcp_sock *tp, struct dctcp *d)
{
	d->window_end = tp->snd_nxt;
	d->delivered_at_start = tp->delivered;
	d->delivered_ce_at_start = tp->delivered_ce;
}

SEC("struct_ops")
void BPF_PROG(planck_dctcp_init, struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct dctcp *d = state(sk);

	/* RFC 8257 section 3.3: start from alpha = 1, the cautious end. */
	d->alpha = ALPHA_ONE;
	d->cwnd_before_cut = 0;
	d->ce = 0;
	d->rcv_nxt_at_change = tp->rcv_nxt;
	start_window(tp, d);
}

SEC("struct_ops")
__u32 BPF_PROG(planck_dctcp_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct dctcp *d = state(sk);
	__u32 cwnd = tp->snd_cwnd;
	/* cwnd * alpha / 2, alpha in 1/1024: at most half the window. */
	__u32 cut = (cwnd * d->alpha) >> 11;

	d->cwnd_before_cut = cwnd;
	return cwnd - cut > 2 ? cwnd - cut : 2;
}

SEC("struct_ops")
void BPF_PROG(planck_dctcp_in_ack_event, struct sock *sk, __u32 flags)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct dctcp *d = state(sk);
	__u32 alpha, ce, delivered, decay;

	if ((__s32)(tp->snd_una - d->window_end) < 0)
		return;
	/* alpha <- (1 - g) alpha + g F, F = marked / delivered over the window just ended. */
	alpha = d->alpha;
	decay = alpha >> G_SHIFT;
	alpha -= decay ? decay : alpha;
	ce = tp->delivered_ce - d->delivered_ce_at_start;
	if (ce) {
		delivered = tp->delivered - d->delivered_at_start;
		if (delivered == 0)
			delivered = 1;
		/* g F in 1/1024: ce * 1024 / 16 / delivered. */
		alpha += (ce << (10 - G_SHIFT)) / delivered;
		if (alpha > ALPHA_ONE)
			alpha = ALPHA_ONE;
	}
	d->alpha = alpha;
	start_window(tp, d);
}

static __always_inline void halve_on_loss(struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct dctcp *d = state(sk);
	__u32 half = tp->snd_cwnd >> 1;

	d->cwnd_before_cut = tp->snd_cwnd;
	tp->snd_ssthresh = half > 2 ? half : 2;
}

SEC("struct_ops")
void BPF_PROG(planck_dctcp_set_state, struct sock *sk, __u8 new_state)
{
	/* Entering fast recovery is a loss; a timeout arrives as CA_EVENT_LOSS below. */
	if (new_state == TCP_CA_Recovery &&
	    new_state != BPF_CORE_READ_BITFIELD((struct inet_connection_sock *)sk, icsk_ca_state))
		halve_on_loss(sk);
}

static __always_inline void echo_ce_state(struct tcp_sock *tp, __u32 ce)
{
	if (ce)
		tp->ecn_flags |= ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~ECN_DEMAND_CWR;
}

static __always_inline void on_data_ce(struct sock *sk, __u32 ce)
{
	struct inet_connection_sock *icsk = (struct inet_connection_sock *)sk;
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct dctcp *d = state(sk);

	if (d->ce != ce) {
		/* The segments before the change are acknowledged with their own state first. */
		if (icsk->icsk_ack.pending & ICSK_ACK_TIMER) {
			echo_ce_state(tp, d->ce);
			bpf_tcp_send_ack(sk, d->rcv_nxt_at_change);
		}
		icsk->icsk_ack.pending |= ICSK_ACK_NOW;
	}
	d->rcv_nxt_at_change = tp->rcv_nxt;
	d->ce = ce;
	echo_ce_state(tp, ce);
}

SEC("struct_ops")
void BPF_PROG(planck_dctcp_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	switch (ev) {
	case CA_EVENT_ECN_IS_CE:
		on_data_ce(sk, 1);
		break;
	case CA_EVENT_ECN_NO_CE:
		on_data_ce(sk, 0);
		break;
	case CA_EVENT_LOSS:
		halve_on_loss(sk);
		break;
	default:
		break;
	}
}

SEC("struct_ops")
__u32 BPF_PROG(planck_dctcp_undo_cwnd, struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct dctcp *d = state(sk);

	return tp->snd_cwnd > d->cwnd_before_cut ? tp->snd_cwnd : d->cwnd_before_cut;
}

SEC("struct_ops")
void BPF_PROG(planck_dctcp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC(".struct_ops")
struct tcp_congestion_ops planck_dctcp = {
	.init = (void *)planck_dctcp_init,
	.ssthresh = (void *)planck_dctcp_ssthresh,
	.in_ack_event = (void *)planck_dctcp_in_ack_event,
	.set_state = (void *)planck_dctcp_set_state,
	.cwnd_event = (void *)planck_dctcp_cwnd_event,
	.undo_cwnd = (void *)planck_dctcp_undo_cwnd,
	.cong_avoid = (void *)planck_dctcp_cong_avoid,
	.flags = CONG_NEEDS_ECN,
	.name = "planck_dctcp",
};
