/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfabric's trace events (system "kfabric"): usable from tracefs
 * (events/kfabric/), trace-cmd, perf and bpftrace. Defined once, in
 * kfabric.ko (rust/kfabric_trace.c, which exports the tracepoints); the
 * providers fire them from the toolkit's C side (kfi_util/kfi_util_trace.c
 * and the transfer entry in kfi_util_xfer.c).
 *
 * Zero cost when disabled: the C call sites are static-key tracepoints;
 * the Rust ones first test a bit of kfi_trace_on (one load), which the
 * tracepoints' registration callbacks set while anything (ftrace, perf,
 * BPF, a module's probe) is attached to that event.
 *
 * Pointers (endpoint, CQ, counter, context) are printed hashed (%p), the
 * same object the same way within a boot: enough to follow one operation
 * from its post to its completion. A probe gets them raw.
 *
 * Events:
 *   kfi_post       a data transfer call returns (any variant; triggered
 *                  ones have KFI_TRIGGER in flags)
 *   kfi_complete   a completion (or error completion) is queued on a CQ
 *   kfi_conn       a connection changes state
 *   kfi_error      an error with its cause (a connection ending by error,
 *                  a malformed frame, a refused remote access)
 *   kfi_trig_queue a triggered operation or deferred work is queued
 *   kfi_trig_fire  it becomes due and is issued
 *   kfi_stall      a transmit waits for flow control (socket buffer full,
 *                  no credits) with work queued
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM kfabric

#if !defined(_KFI_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _KFI_TRACE_H

#include <linux/tracepoint.h>
#include <linux/socket.h>
#include <linux/in.h>
#include <linux/in6.h>

#include "kfi_trace_bits.h"

extern unsigned long kfi_trace_on;
int kfi_trace_reg_post(void);
void kfi_trace_unreg_post(void);
int kfi_trace_reg_complete(void);
void kfi_trace_unreg_complete(void);
int kfi_trace_reg_conn(void);
void kfi_trace_unreg_conn(void);
int kfi_trace_reg_error(void);
void kfi_trace_unreg_error(void);
int kfi_trace_reg_trig_queue(void);
void kfi_trace_unreg_trig_queue(void);
int kfi_trace_reg_trig_fire(void);
void kfi_trace_unreg_trig_fire(void);
int kfi_trace_reg_stall(void);
void kfi_trace_unreg_stall(void);

/* The operation kinds (struct kfi_util_xfer's KFI_UTIL_X_*). */
#define kfi_trace_op_name(op)						\
	__print_symbolic(op, { 0, "send" }, { 1, "recv" },		\
			 { 2, "tsend" }, { 3, "trecv" }, { 4, "read" },	\
			 { 5, "write" }, { 6, "atomic" },		\
			 { 7, "fetch_atomic" }, { 8, "compare_atomic" },	\
			 { -1, "cntr_op" })

TRACE_EVENT_FN(kfi_post,
	TP_PROTO(const char *prov, const void *ep, int op, const void *context,
		 u64 len, u64 flags, u64 addr, long ret),
	TP_ARGS(prov, ep, op, context, len, flags, addr, ret),
	TP_STRUCT__entry(
		__string(prov, prov)
		__field(const void *, ep)
		__field(int, op)
		__field(const void *, context)
		__field(u64, len)
		__field(u64, flags)
		__field(u64, addr)
		__field(long, ret)
	),
	TP_fast_assign(
		__assign_str(prov);
		__entry->ep = ep;
		__entry->op = op;
		__entry->context = context;
		__entry->len = len;
		__entry->flags = flags;
		__entry->addr = addr;
		__entry->ret = ret;
	),
	TP_printk("%s ep=%p %s ctx=%p len=%llu flags=%#llx addr=%#llx ret=%ld",
		  __get_str(prov), __entry->ep, kfi_trace_op_name(__entry->op),
		  __entry->context, __entry->len, __entry->flags, __entry->addr,
		  __entry->ret),
	kfi_trace_reg_post, kfi_trace_unreg_post
);

TRACE_EVENT_FN(kfi_complete,
	TP_PROTO(const char *prov, const void *cq, const void *context,
		 u64 flags, u64 len, int err),
	TP_ARGS(prov, cq, context, flags, len, err),
	TP_STRUCT__entry(
		__string(prov, prov)
		__field(const void *, cq)
		__field(const void *, context)
		__field(u64, flags)
		__field(u64, len)
		__field(int, err)
	),
	TP_fast_assign(
		__assign_str(prov);
		__entry->cq = cq;
		__entry->context = context;
		__entry->flags = flags;
		__entry->len = len;
		__entry->err = err;
	),
	TP_printk("%s cq=%p ctx=%p flags=%#llx len=%llu err=%d",
		  __get_str(prov), __entry->cq, __entry->context,
		  __entry->flags, __entry->len, __entry->err),
	kfi_trace_reg_complete, kfi_trace_unreg_complete
);

TRACE_EVENT_FN(kfi_conn,
	TP_PROTO(const char *prov, const void *conn, const void *ep,
		 const struct sockaddr *peer, const char *from, const char *to),
	TP_ARGS(prov, conn, ep, peer, from, to),
	TP_STRUCT__entry(
		__string(prov, prov)
		__field(const void *, conn)
		__field(const void *, ep)
		__array(u8, peer, sizeof(struct sockaddr_in6))
		__string(from, from)
		__string(to, to)
	),
	TP_fast_assign(
		__assign_str(prov);
		__entry->conn = conn;
		__entry->ep = ep;
		memset(__entry->peer, 0, sizeof(__entry->peer));
		if (peer && peer->sa_family == AF_INET)
			memcpy(__entry->peer, peer, sizeof(struct sockaddr_in));
		else if (peer && peer->sa_family == AF_INET6)
			memcpy(__entry->peer, peer, sizeof(struct sockaddr_in6));
		__assign_str(from);
		__assign_str(to);
	),
	TP_printk("%s conn=%p ep=%p peer=%pISpc %s -> %s", __get_str(prov),
		  __entry->conn, __entry->ep, __entry->peer, __get_str(from),
		  __get_str(to)),
	kfi_trace_reg_conn, kfi_trace_unreg_conn
);

TRACE_EVENT_FN(kfi_error,
	TP_PROTO(const char *prov, const void *obj, int err, const char *cause),
	TP_ARGS(prov, obj, err, cause),
	TP_STRUCT__entry(
		__string(prov, prov)
		__field(const void *, obj)
		__field(int, err)
		__string(cause, cause)
	),
	TP_fast_assign(
		__assign_str(prov);
		__entry->obj = obj;
		__entry->err = err;
		__assign_str(cause);
	),
	TP_printk("%s obj=%p err=%d cause=%s", __get_str(prov), __entry->obj,
		  __entry->err, __get_str(cause)),
	kfi_trace_reg_error, kfi_trace_unreg_error
);

TRACE_EVENT_FN(kfi_trig_queue,
	TP_PROTO(const char *prov, const void *cntr, const void *context,
		 u64 threshold, u64 value, int op, bool deferred),
	TP_ARGS(prov, cntr, context, threshold, value, op, deferred),
	TP_STRUCT__entry(
		__string(prov, prov)
		__field(const void *, cntr)
		__field(const void *, context)
		__field(u64, threshold)
		__field(u64, value)
		__field(int, op)
		__field(bool, deferred)
	),
	TP_fast_assign(
		__assign_str(prov);
		__entry->cntr = cntr;
		__entry->context = context;
		__entry->threshold = threshold;
		__entry->value = value;
		__entry->op = op;
		__entry->deferred = deferred;
	),
	TP_printk("%s cntr=%p ctx=%p %s%s threshold=%llu value=%llu",
		  __get_str(prov), __entry->cntr, __entry->context,
		  __entry->deferred ? "deferred " : "",
		  kfi_trace_op_name(__entry->op), __entry->threshold,
		  __entry->value),
	kfi_trace_reg_trig_queue, kfi_trace_unreg_trig_queue
);

TRACE_EVENT_FN(kfi_trig_fire,
	TP_PROTO(const char *prov, const void *cntr, const void *context,
		 u64 threshold, u64 value),
	TP_ARGS(prov, cntr, context, threshold, value),
	TP_STRUCT__entry(
		__string(prov, prov)
		__field(const void *, cntr)
		__field(const void *, context)
		__field(u64, threshold)
		__field(u64, value)
	),
	TP_fast_assign(
		__assign_str(prov);
		__entry->cntr = cntr;
		__entry->context = context;
		__entry->threshold = threshold;
		__entry->value = value;
	),
	TP_printk("%s cntr=%p ctx=%p threshold=%llu value=%llu",
		  __get_str(prov), __entry->cntr, __entry->context,
		  __entry->threshold, __entry->value),
	kfi_trace_reg_trig_fire, kfi_trace_unreg_trig_fire
);

TRACE_EVENT_FN(kfi_stall,
	TP_PROTO(const char *prov, const void *obj, const char *why, u64 queued),
	TP_ARGS(prov, obj, why, queued),
	TP_STRUCT__entry(
		__string(prov, prov)
		__field(const void *, obj)
		__string(why, why)
		__field(u64, queued)
	),
	TP_fast_assign(
		__assign_str(prov);
		__entry->obj = obj;
		__assign_str(why);
		__entry->queued = queued;
	),
	TP_printk("%s obj=%p %s queued=%llu", __get_str(prov), __entry->obj,
		  __get_str(why), __entry->queued),
	kfi_trace_reg_stall, kfi_trace_unreg_stall
);

#endif /* _KFI_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE kfi_trace
#include <trace/define_trace.h>
