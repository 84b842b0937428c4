// SPDX-License-Identifier: GPL-2.0
/*
 * The provider toolkit's trace calls (events defined in kfabric.ko:
 * kfi_trace.h). Each provider compiles its own copy (KBUILD_MODNAME names
 * the provider in every event). The Rust side calls these only when the
 * event's bit in kfi_trace_on is set. kfi_post is fired here too, by
 * kfi_util_post(), the static-key-guarded wrapper of the transfer entry
 * that kfi_util_xfer.c calls: each provider's wrapper file includes this
 * file before kfi_util_xfer.c (one translation unit).
 */
#include <linux/bvec.h>
#include <linux/scatterlist.h>
#include <linux/uio.h>
#include "kfi_trace.h"

/**
 * kfi_util_trace_len() - The byte length of a transfer's buffer (for a
 *	trace event only: it walks a long list).
 * @x: The transfer.
 *
 * Return: the sum of its segments' lengths.
 */
static u64 kfi_util_trace_len(const struct kfi_util_xfer *x)
{
	struct scatterlist *sg;
	u64 len = 0;
	unsigned int i;

	if (x->nseg <= KFI_UTIL_IOV_LIMIT || !x->ext_desc) {
		for (i = 0; i < x->nseg && i < KFI_UTIL_IOV_LIMIT; i++)
			len += x->seg[i].len;
		return len;
	}
	switch (x->ext_type) {
	case KFI_KVEC:
		for (i = 0; i < x->nseg; i++)
			len += ((const struct kvec *)x->ext_desc)[i].iov_len;
		break;
	case KFI_BVEC:
		for (i = 0; i < x->nseg; i++)
			len += ((const struct bio_vec *)x->ext_desc)[i].bv_len;
		break;
	case KFI_SGL:
		for_each_sg((struct scatterlist *)x->ext_desc, sg, x->nseg, i)
			len += sg->length;
		break;
	case KFI_UTIL_SEGS:
		for (i = 0; i < x->nseg; i++)
			len += ((const struct kfi_util_seg *)x->ext_desc)[i].len;
		break;
	}
	return len;
}

/**
 * kfi_util_post() - Hand a transfer to the provider (kfi_util_ep_xfer())
 *	and trace the call with its result.
 * @ep: The endpoint.
 * @x: The transfer.
 *
 * Return: what kfi_util_ep_xfer() returns.
 */
static ssize_t kfi_util_post(struct kfid_ep *ep, const struct kfi_util_xfer *x)
{
	ssize_t ret = kfi_util_ep_xfer(ep, x);

	if (trace_kfi_post_enabled())
		trace_kfi_post(KBUILD_MODNAME, ep, x->kind, x->context,
			       kfi_util_trace_len(x), x->flags, x->addr, ret);
	return ret;
}

/**
 * kfi_util_tp_complete() - Trace a completion queued on a CQ.
 * @cq: The CQ.
 * @context: The operation's context.
 * @flags: The entry's flags.
 * @len: Its length.
 * @err: 0, or the positive kfabric error of an error entry.
 */
void kfi_util_tp_complete(const void *cq, const void *context, u64 flags,
			  u64 len, int err)
{
	trace_kfi_complete(KBUILD_MODNAME, cq, context, flags, len, err);
}

/**
 * kfi_util_tp_conn() - Trace a connection's change of state.
 * @conn: The connection.
 * @ep: Its endpoint (NULL before one is bound).
 * @peer: The peer's address, or NULL.
 * @from: The state left.
 * @to: The state entered.
 */
void kfi_util_tp_conn(const void *conn, const void *ep,
		      const struct sockaddr *peer, const char *from,
		      const char *to)
{
	trace_kfi_conn(KBUILD_MODNAME, conn, ep, peer, from, to);
}

/**
 * kfi_util_tp_error() - Trace an error and its cause.
 * @obj: The object it happened on (a connection, an endpoint).
 * @err: The positive error number.
 * @cause: What happened.
 */
void kfi_util_tp_error(const void *obj, int err, const char *cause)
{
	trace_kfi_error(KBUILD_MODNAME, obj, err, cause);
}

/**
 * kfi_util_tp_trig_queue() - Trace a triggered operation being queued.
 * @cntr: Its counter.
 * @context: The consumer's triggered context or deferred work.
 * @threshold: Its threshold.
 * @value: The counter's value then.
 * @op: The transfer kind (KFI_UTIL_X_*), -1 for a counter operation.
 * @deferred: Deferred work (kfi_control(KFI_QUEUE_WORK)).
 */
void kfi_util_tp_trig_queue(const void *cntr, const void *context,
			    u64 threshold, u64 value, int op, bool deferred)
{
	trace_kfi_trig_queue(KBUILD_MODNAME, cntr, context, threshold, value,
			     op, deferred);
}

/**
 * kfi_util_tp_trig_fire() - Trace a triggered operation being issued.
 * @cntr: Its counter.
 * @context: The consumer's triggered context or deferred work.
 * @threshold: Its threshold.
 * @value: The counter's value now.
 */
void kfi_util_tp_trig_fire(const void *cntr, const void *context,
			   u64 threshold, u64 value)
{
	trace_kfi_trig_fire(KBUILD_MODNAME, cntr, context, threshold, value);
}

/**
 * kfi_util_tp_stall() - Trace a transmit waiting for flow control.
 * @obj: The connection.
 * @why: What it waits for.
 * @queued: Bytes (or operations, as @why says) waiting.
 */
void kfi_util_tp_stall(const void *obj, const char *why, u64 queued)
{
	trace_kfi_stall(KBUILD_MODNAME, obj, why, queued);
}
