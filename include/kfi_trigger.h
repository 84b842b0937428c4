/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfabric triggered operations.
 */

#ifndef _KFI_TRIGGER_H_
#define _KFI_TRIGGER_H_

#include <linux/build_bug.h>
#include <kfabric.h>
#include <kfi_tagged.h>
#include <kfi_rma.h>
#include <kfi_atomic.h>

/**
 * DOC: Triggered operations
 *
 * A triggered operation is a data transfer (or counter update) that the
 * provider holds back until a counter reaches a threshold.  There are two
 * ways to request one:
 *
 * - Post an ordinary data-transfer call with the KFI_TRIGGER flag (or on an
 *   endpoint alias created with KFI_TRIGGER).  Its context argument must
 *   then point to a &struct kfi_triggered_context (or, in KFI_CONTEXT2
 *   mode, a &struct kfi_triggered_context2) naming the counter and the
 *   threshold.
 * - Describe the operation in a &struct kfi_deferred_work and queue it on
 *   the domain with kfi_control(&domain->fid, KFI_QUEUE_WORK, work).  Queued
 *   work is cancelled with KFI_CANCEL_WORK and all of a domain's work with
 *   KFI_FLUSH_WORK.
 *
 * Ordering rule: operations waiting on one counter fire in increasing
 * threshold order, even when a single counter update crosses several
 * thresholds at once; operations with equal thresholds fire in the order
 * they were submitted.  If the threshold is already reached at submission,
 * the operation may start at once.
 *
 * Every structure passed in (the triggered context, the deferred work, the
 * kfi_op_* description and the buffer lists it references) is owned by the
 * provider from submission until the operation has completed or has been
 * cancelled, and must stay valid that long.
 */

/**
 * enum kfi_trigger_event - Kind of condition a triggered operation waits on.
 * @KFI_TRIGGER_THRESHOLD: A counter reaching a threshold, described by
 *	&struct kfi_trigger_threshold.
 */
enum kfi_trigger_event {
	KFI_TRIGGER_THRESHOLD,
};

/**
 * enum kfi_op_type - Operation carried by a &struct kfi_deferred_work.
 * @KFI_OP_RECV: Message receive, &struct kfi_op_msg.
 * @KFI_OP_SEND: Message send, &struct kfi_op_msg.
 * @KFI_OP_TRECV: Tagged receive, &struct kfi_op_tagged.
 * @KFI_OP_TSEND: Tagged send, &struct kfi_op_tagged.
 * @KFI_OP_READ: RMA read, &struct kfi_op_rma.
 * @KFI_OP_WRITE: RMA write, &struct kfi_op_rma.
 * @KFI_OP_ATOMIC: Atomic update, &struct kfi_op_atomic.
 * @KFI_OP_FETCH_ATOMIC: Fetch atomic, &struct kfi_op_fetch_atomic.
 * @KFI_OP_COMPARE_ATOMIC: Compare atomic, &struct kfi_op_compare_atomic.
 * @KFI_OP_CNTR_SET: Set a counter, &struct kfi_op_cntr.
 * @KFI_OP_CNTR_ADD: Add to a counter, &struct kfi_op_cntr.
 */
enum kfi_op_type {
	KFI_OP_RECV,
	KFI_OP_SEND,
	KFI_OP_TRECV,
	KFI_OP_TSEND,
	KFI_OP_READ,
	KFI_OP_WRITE,
	KFI_OP_ATOMIC,
	KFI_OP_FETCH_ATOMIC,
	KFI_OP_COMPARE_ATOMIC,
	KFI_OP_CNTR_SET,
	KFI_OP_CNTR_ADD
};

/**
 * struct kfi_trigger_threshold - Counter condition of a trigger.
 * @cntr: Counter to watch.
 * @threshold: Fire once the counter's success count is at least this.
 */
struct kfi_trigger_threshold {
	struct kfid_cntr	*cntr;
	size_t			threshold;
};

/**
 * struct kfi_op_msg - Deferred message send or receive.
 * @ep: Endpoint or context to post on.
 * @msg: The message, as for kfi_sendmsg() / kfi_recvmsg().
 * @flags: Operation flags.
 */
struct kfi_op_msg {
	struct kfid_ep		*ep;
	struct kfi_msg		msg;
	uint64_t		flags;
};

/**
 * struct kfi_op_tagged - Deferred tagged send or receive.
 * @ep: Endpoint or context to post on.
 * @msg: The message, as for kfi_tsendmsg() / kfi_trecvmsg().
 * @flags: Operation flags.
 */
struct kfi_op_tagged {
	struct kfid_ep		*ep;
	struct kfi_msg_tagged	msg;
	uint64_t		flags;
};

/**
 * struct kfi_op_rma - Deferred RMA read or write.
 * @ep: Endpoint or context to post on.
 * @msg: The transfer, as for kfi_readmsg() / kfi_writemsg().
 * @flags: Operation flags.
 */
struct kfi_op_rma {
	struct kfid_ep		*ep;
	struct kfi_msg_rma	msg;
	uint64_t		flags;
};

/**
 * struct kfi_op_atomic - Deferred atomic update.
 * @ep: Endpoint or context to post on.
 * @msg: The operation, as for kfi_atomicmsg().
 * @flags: Operation flags.
 */
struct kfi_op_atomic {
	struct kfid_ep		*ep;
	struct kfi_msg_atomic	msg;
	uint64_t		flags;
};

/**
 * struct kfi_op_fetch_atomic - Deferred fetch atomic.
 * @ep: Endpoint or context to post on.
 * @msg: The operation, as for kfi_fetch_atomicmsg().
 * @fetch: Where the previous remote values go.
 * @flags: Operation flags.
 */
struct kfi_op_fetch_atomic {
	struct kfid_ep		*ep;
	struct kfi_msg_atomic	msg;
	struct kfi_msg_fetch	fetch;
	uint64_t		flags;
};

/**
 * struct kfi_op_compare_atomic - Deferred compare atomic.
 * @ep: Endpoint or context to post on.
 * @msg: The operation and its swap operands, as for
 *	kfi_compare_atomicmsg().
 * @fetch: Where the previous remote values go (the resultv, result_desc
 *	and result_count arguments of kfi_compare_atomicmsg()).
 * @compare: The compare operands (the comparev, compare_desc and
 *	compare_count arguments of kfi_compare_atomicmsg()).
 * @flags: Operation flags.
 *
 * kfabric 1.7 names this type in &struct kfi_deferred_work without
 * defining it; this definition follows libfabric's fi_op_compare_atomic.
 */
struct kfi_op_compare_atomic {
	struct kfid_ep		*ep;
	struct kfi_msg_atomic	msg;
	struct kfi_msg_fetch	fetch;
	struct kfi_msg_compare	compare;
	uint64_t		flags;
};

/**
 * struct kfi_op_cntr - Deferred counter update.
 * @cntr: Counter to update.
 * @value: Value to set or add.
 */
struct kfi_op_cntr {
	struct kfid_cntr	*cntr;
	uint64_t		value;
};

/**
 * struct kfi_triggered_context - Operation context of a triggered call.
 * @event_type: Kind of trigger; selects the member of @trigger.
 * @trigger: Trigger condition.
 * @trigger.threshold: Counter and threshold for KFI_TRIGGER_THRESHOLD.
 * @trigger.internal: Provider scratch space; sizes the union.
 *
 * Has the size of &struct kfi_context, so it can be used wherever one is
 * expected.  The provider may modify it while the operation is pending.
 */
struct kfi_triggered_context {
	enum kfi_trigger_event			event_type;
	union {
		struct kfi_trigger_threshold	threshold;
		void				*internal[3];
	} trigger;
};

/**
 * struct kfi_triggered_context2 - Triggered context in KFI_CONTEXT2 mode.
 * @event_type: Kind of trigger; selects the member of @trigger.
 * @trigger: Trigger condition.
 * @trigger.threshold: Counter and threshold for KFI_TRIGGER_THRESHOLD.
 * @trigger.internal: Provider scratch space; sizes the union.
 *
 * Has the size of &struct kfi_context2.
 */
struct kfi_triggered_context2 {
	enum kfi_trigger_event			event_type;
	union {
		struct kfi_trigger_threshold	threshold;
		void				*internal[7];
	} trigger;
};

static_assert(sizeof(struct kfi_triggered_context) ==
	      sizeof(struct kfi_context));
static_assert(sizeof(struct kfi_triggered_context2) ==
	      sizeof(struct kfi_context2));

/**
 * struct kfi_deferred_work - Work queued with KFI_QUEUE_WORK.
 * @context: Provider scratch space while the work is queued.
 * @threshold: Fire when @triggering_cntr reaches this value.
 * @triggering_cntr: Counter that releases the work.
 * @completion_cntr: Counter incremented when the released operation
 *	completes, or NULL.
 * @op_type: Kind of operation; selects the member of @op.
 * @op: The operation to perform.
 * @op.msg: For KFI_OP_RECV and KFI_OP_SEND.
 * @op.tagged: For KFI_OP_TRECV and KFI_OP_TSEND.
 * @op.rma: For KFI_OP_READ and KFI_OP_WRITE.
 * @op.atomic: For KFI_OP_ATOMIC.
 * @op.fetch_atomic: For KFI_OP_FETCH_ATOMIC.
 * @op.compare_atomic: For KFI_OP_COMPARE_ATOMIC.
 * @op.cntr: For KFI_OP_CNTR_SET and KFI_OP_CNTR_ADD.
 *
 * Passed to kfi_control() on a domain with KFI_QUEUE_WORK (to queue) or
 * KFI_CANCEL_WORK (to withdraw work that has not fired yet).  The
 * structure and everything it points to must stay valid until the work
 * has completed or been cancelled.
 */
struct kfi_deferred_work {
	struct kfi_context2			context;
	uint64_t				threshold;
	struct kfid_cntr			*triggering_cntr;
	struct kfid_cntr			*completion_cntr;
	enum kfi_op_type			op_type;
	union {
		struct kfi_op_msg		*msg;
		struct kfi_op_tagged		*tagged;
		struct kfi_op_rma		*rma;
		struct kfi_op_atomic		*atomic;
		struct kfi_op_fetch_atomic	*fetch_atomic;
		struct kfi_op_compare_atomic	*compare_atomic;
		struct kfi_op_cntr		*cntr;
	} op;
};

#endif /* _KFI_TRIGGER_H_ */
