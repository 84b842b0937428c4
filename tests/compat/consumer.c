// SPDX-License-Identifier: GPL-2.0
/* Consumer-style usage: the calls and patterns Lustre kfilnd relies on. */
#include <linux/module.h>
#include <linux/uio.h>
#include <linux/bvec.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include "kfi_endpoint.h"
#include "kfi_errno.h"
#include "kfi_rma.h"
#include "kfi_tagged.h"
#include "kfitest.h"

static void comp_cb(struct kfid_cq *cq, void *context)
{
	struct kfi_cq_data_entry event;
	struct kfi_cq_err_entry error;
	ssize_t rc;

	(void)context;
	do {
		rc = kfi_cq_read(cq, &event, 1);
		if (rc == -KFI_EAVAIL) {
			while (kfi_cq_readerr(cq, &error, 0) == 1)
				pr_info("err %d %s\n", error.err,
					kfi_strerror(error.err));
		}
	} while (rc != -EAGAIN);
}

int kfitest_consumer(struct kfid_domain *dom, struct kfid_ep *tx,
		     struct kfid_ep *rx, struct kfid_cq *cq,
		     struct scatterlist *sgl, struct bio_vec *bv)
{
	struct kfi_info *hints, *info;
	struct kfid_fabric *fab;
	struct kfid_domain *d2;
	struct kfid_av *av;
	struct kfid_ep *sep, *ctx;
	struct kfid_cq *cq2;
	struct kfi_cq_attr cq_attr = {
		.format = KFI_CQ_FORMAT_DATA,
		.wait_obj = KFI_WAIT_NONE,
		.wait_cond = KFI_CQ_COND_NONE,
	};
	struct kfi_av_attr av_attr = {
		.type = KFI_AV_UNSPEC,
		.rx_ctx_bits = 8,
	};
	struct kfi_rma_iov rma_iov = {
		.len = 4096,
		.key = 42,
	};
	struct kfi_msg_rma rma = {
		.type = KFI_SGL,
		.msg_sgl = sgl,
		.iov_count = 1,
		.addr = kfi_rx_addr(7, 3, 8),
		.rma_iov = &rma_iov,
		.rma_iov_count = 1,
		.context = NULL,
	};
	struct kfi_msg_tagged msg = {
		.type = KFI_BVEC,
		.msg_biov = bv,
		.iov_count = 1,
		.addr = KFI_ADDR_UNSPEC,
		.tag = 5,
		.ignore = 0,
	};
	struct kfi_cq_err_entry fake_error = {
		.op_context = NULL,
		.flags = KFI_TAGGED | KFI_RMA | KFI_WRITE | KFI_SEND,
		.err = EIO,
	};
	size_t min_multi_recv = 4096;
	kfi_addr_t addr;
	int rc;

	hints = kfi_allocinfo();
	if (!hints)
		return -ENOMEM;
	hints->caps = KFI_MSG | KFI_RMA | KFI_SEND | KFI_RECV | KFI_READ |
		KFI_WRITE | KFI_REMOTE_READ | KFI_REMOTE_WRITE |
		KFI_MULTI_RECV | KFI_REMOTE_COMM | KFI_NAMED_RX_CTX |
		KFI_TAGGED | KFI_TAGGED_RMA | KFI_DIRECTED_RECV |
		KFI_TAGGED_MULTI_RECV;
	hints->fabric_attr->prov_version = KFI_VERSION(1, 7);
	hints->domain_attr->resource_mgmt = KFI_RM_DISABLED;
	hints->domain_attr->tclass = KFI_TC_LOW_LATENCY;
	hints->ep_attr->max_msg_size = 1 << 20;
	hints->rx_attr->op_flags = KFI_COMPLETION | KFI_MULTI_RECV;
	hints->rx_attr->msg_order = KFI_ORDER_NONE;
	hints->tx_attr->op_flags = KFI_COMPLETION | KFI_TRANSMIT_COMPLETE;
	hints->tx_attr->iov_limit = 256;
	hints->tx_attr->rma_iov_limit = 256;
	rc = kfi_getinfo(0, "0x1", "49152", KFI_SOURCE, hints, &info);
	kfi_freeinfo(hints);
	if (rc)
		return rc;
	hints = kfi_dupinfo(info);
	rc = kfi_fabric(info->fabric_attr, &fab, NULL);
	if (!rc)
		rc = kfi_domain(fab, info, &d2, NULL);
	if (!rc)
		rc = kfi_av_open(dom, &av_attr, &av, NULL);
	if (!rc)
		rc = kfi_av_insertsvc(av, "0x1", "1", &addr, 0, NULL);
	if (!rc)
		rc = kfi_av_remove(av, &addr, 1, 0);
	if (!rc)
		rc = kfi_scalable_ep(dom, info, &sep, NULL);
	if (!rc)
		rc = kfi_scalable_ep_bind(sep, &av->fid, 0);
	if (!rc)
		rc = kfi_rx_context(sep, 0, info->rx_attr, &ctx, NULL);
	if (!rc)
		rc = kfi_tx_context(sep, 0, info->tx_attr, &ctx, NULL);
	if (!rc)
		rc = kfi_cq_open(dom, &cq_attr, &cq2, comp_cb, NULL);
	if (!rc)
		rc = kfi_ep_bind(ctx, &cq2->fid, KFI_TRANSMIT | KFI_RECV);
	if (!rc)
		rc = kfi_enable(ctx);
	if (!rc)
		rc = kfi_setopt(&rx->fid, KFI_OPT_ENDPOINT,
				KFI_OPT_MIN_MULTI_RECV, &min_multi_recv,
				sizeof(min_multi_recv));
	if (!rc)
		rc = kfi_open_ops(&fab->fid, "ext", 0, NULL, NULL);
	if (!rc)
		rc = kfi_enable(sep);
	kfi_freeinfo(info);
	kfi_freeinfo(hints);
	if (rc)
		return rc;

	rc = kfi_recv(rx, NULL, 0, NULL, KFI_ADDR_UNSPEC, NULL);
	rc |= kfi_send(tx, NULL, 0, NULL, addr, NULL);
	rc |= kfi_tsenddata(tx, NULL, 0, NULL, 1, addr, 2, NULL);
	rc |= kfi_trecvmsg(rx, &msg, KFI_COMPLETION);
	rc |= kfi_writemsg(tx, &rma, KFI_TAGGED | KFI_COMPLETION);
	rc |= kfi_readmsg(tx, &rma, KFI_TAGGED | KFI_COMPLETION);
	rc |= kfi_cancel(&rx->fid, NULL);
	rc |= kfi_mr_regsgl(dom, sgl, 1, KFI_READ, 0, 0, 0, NULL, NULL);
	if (fake_error.err)
		rc |= kfi_close(&cq->fid);
	rc |= kfi_close(&sep->fid);
	rc |= kfi_close(&av->fid);
	rc |= kfi_close(&d2->fid);
	rc |= kfi_close(&fab->fid);
	pr_info("%u %s %u %u\n", kfi_version(), kfi_strerror(-KFI_ETRUNC),
		KFI_MAJOR(kfi_version()), KFI_MINOR(kfi_version()));
	return rc;
}
