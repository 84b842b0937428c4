/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Timeline of the data path (scripts/timeline.sh): with KFI_TRACE=1, kfi_tcp
 * records a timestamp (ktime_get_ns(), the CPU, a point number) at each point
 * below into a ring of KFI_TCP_TR_RING records, which kfi_pingpong exposes
 * in debugfs; scripts/timeline/timeline.py lines the records up behind each
 * client send and prints when each point came, as a median. Without
 * KFI_TRACE nothing is recorded and nothing is compiled in: KFI_TCP_TR() is
 * empty and the Rust side's ffi::tr() does nothing.
 */
#ifndef KFI_TCP_TRACE_H
#define KFI_TCP_TRACE_H

/* kfi_pingpong's loop (the server's with KFI_TCP_TR_SERVER or'ed in): */
#define KFI_TCP_TR_PP_TX 1		/* a send starts */
#define KFI_TCP_TR_PP_TX_DONE 2		/* the send (and its completion) done */
#define KFI_TCP_TR_PP_RX_DONE 3		/* the message received (and for kfi,
					 * the next receive posted) */
#define KFI_TCP_TR_SERVER 0x80
/* the socket layer (kfi_tcp_sock.c; data_ready of the raw transport's
 * sockets too): */
#define KFI_TCP_TR_DATA_READY 10	/* sk_data_ready of the receiving socket */
#define KFI_TCP_TR_SEND_TAKE 11		/* a call's send takes the socket */
#define KFI_TCP_TR_SEND_PUSHED 12	/* tcp_sendmsg_locked() returned */
#define KFI_TCP_TR_SEND_GONE 13		/* the socket let go (softirqs ran) */
#define KFI_TCP_TR_RECV_TAKE 14		/* a call's receive takes the socket */
#define KFI_TCP_TR_RECV_READ 15		/* tcp_read_sock() returned */
#define KFI_TCP_TR_RECV_GONE 16		/* the socket let go */
/* the provider: */
#define KFI_TCP_TR_POST 20		/* a post (send, inject, recv) starts */
#define KFI_TCP_TR_POST_DONE 21		/* the post returns */
#define KFI_TCP_TR_TAKE_DIRTY 22	/* a poll takes a connection's event */
#define KFI_TCP_TR_PROGRESS 23		/* a call starts moving data */
#define KFI_TCP_TR_CQ_PUSH 24		/* a completion is queued */
#define KFI_TCP_TR_CQ_GOT 25		/* a CQ read returns entries */
#define KFI_TCP_TR_RX_HDR 26		/* a frame's header is decoded */
#define KFI_TCP_TR_RX_MATCHED 27	/* a message has its receive */
#define KFI_TCP_TR_RX_IN 28		/* a payload is in, to be completed */

#define KFI_TCP_TR_RING (1 << 20)

void kfi_tcp_tr(unsigned int point);
void *kfi_tcp_tr_buf(size_t *len);

#ifdef KFI_TCP_TRACE
#define KFI_TCP_TR(point) kfi_tcp_tr(KFI_TCP_TR_##point)
#define KFI_TCP_TR_AS(point, server) \
	kfi_tcp_tr(KFI_TCP_TR_##point | ((server) ? KFI_TCP_TR_SERVER : 0))
#else
#define KFI_TCP_TR(point) do { } while (0)
#define KFI_TCP_TR_AS(point, server) do { } while (0)
#endif

#endif
