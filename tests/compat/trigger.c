// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include <linux/string.h>
#include <kfi_trigger.h>
#include "kfitest.h"

int kfitest_trigger(struct kfid_domain *dom, struct kfid_ep *ep,
		    struct kfid_cntr *c1, struct kfid_cntr *c2)
{
	static struct kfi_ioc iov, cmp, res;
	static struct kfi_rma_ioc riov;
	static struct kfi_op_compare_atomic cop;
	static struct kfi_op_cntr cntr_op;
	static struct kfi_deferred_work work, work2;
	struct kfi_triggered_context tctx = {
		.event_type = KFI_TRIGGER_THRESHOLD,
		.trigger.threshold = { .cntr = c1, .threshold = 3 },
	};
	int rc;

	cop.ep = ep;
	cop.msg.msg_iov = &iov;
	cop.msg.iov_count = 1;
	cop.msg.rma_iov = &riov;
	cop.msg.rma_iov_count = 1;
	cop.msg.datatype = KFI_UINT64;
	cop.msg.op = KFI_CSWAP;
	cop.compare.msg_iov = &cmp;
	cop.compare.iov_count = 1;
	cop.fetch.msg_iov = &res;
	cop.fetch.iov_count = 1;
	cop.flags = KFI_COMPLETION;

	work.threshold = 4;
	work.triggering_cntr = c1;
	work.completion_cntr = c2;
	work.op_type = KFI_OP_COMPARE_ATOMIC;
	work.op.compare_atomic = &cop;

	cntr_op.cntr = c2;
	cntr_op.value = 1;
	work2 = work;
	work2.op_type = KFI_OP_CNTR_ADD;
	work2.op.cntr = &cntr_op;

	rc = kfi_control(&dom->fid, KFI_QUEUE_WORK, &work);
	rc |= kfi_control(&dom->fid, KFI_QUEUE_WORK, &work2);
	rc |= kfi_control(&dom->fid, KFI_CANCEL_WORK, &work2);
	rc |= kfi_send(ep, NULL, 0, NULL, 0, &tctx);
	rc |= kfi_cntr_add(c1, 1);
	rc |= kfi_cntr_adderr(c1, 1);
	rc |= kfi_control(&dom->fid, KFI_FLUSH_WORK, NULL);
	return rc;
}
