// SPDX-License-Identifier: GPL-2.0
/*
 * kfi_verbs.ko, C side: the ops tables of the provider's own objects. The
 * slots not implemented yet are kfi_enosys.h's -KFI_ENOSYS defaults, never
 * NULL. Event queues, completion queues, counters and the fabric are the
 * toolkit's (kfi_util/, kfi_trigger/, compiled in by kfi_verbs_util.c).
 */
#include <linux/module.h>

#include <kfi_enosys.h>
#include "verbs_sys.h"

static struct kfi_ops kfi_verbs_domain_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_verbs_domain_close,
	.bind = kfi_no_bind,
	.control = kfi_util_domain_control,
	.ops_open = kfi_no_ops_open,
};

static struct kfi_ops_domain kfi_verbs_domain_ops = {
	.size = sizeof(struct kfi_ops_domain),
	.av_open = kfi_no_av_open,
	.cq_open = kfi_util_domain_cq_open,
	.endpoint = kfi_no_endpoint,
	.scalable_ep = kfi_no_scalable_ep,
	.cntr_open = kfi_util_domain_cntr_open,
	.poll_open = kfi_no_poll_open,
	.stx_ctx = kfi_no_stx_ctx,
	.srx_ctx = kfi_no_srx_ctx,
	.query_atomic = kfi_no_query_atomic,
};

static struct kfi_ops_mr kfi_verbs_mr_ops = {
	.size = sizeof(struct kfi_ops_mr),
	.reg = kfi_no_mr_reg,
	.regv = kfi_no_mr_regv,
	.regbv = kfi_no_mr_regbv,
	.regattr = kfi_no_mr_regattr,
	.regsgl = kfi_no_mr_regsgl,
};

/**
 * kfi_verbs_glue_domain_init() - Fill the kfabric header of a new domain.
 * @domain: The embedded struct kfid_domain of the provider's domain object.
 * @context: The consumer's context.
 */
void kfi_verbs_glue_domain_init(struct kfid_domain *domain, void *context)
{
	domain->fid.fclass = KFI_CLASS_DOMAIN;
	domain->fid.context = context;
	domain->fid.ops = &kfi_verbs_domain_fid_ops;
	domain->ops = &kfi_verbs_domain_ops;
	domain->mr = &kfi_verbs_mr_ops;
}

/**
 * kfi_verbs_glue_is_domain() - Whether @dom is one of this provider's
 *	domains.
 * @dom: An open domain of any provider.
 */
bool kfi_verbs_glue_is_domain(const struct kfid_domain *dom)
{
	return dom->fid.ops == &kfi_verbs_domain_fid_ops;
}

/**
 * kfi_prov_fabric_passive_ep() - The fabric's passive endpoint entry:
 *	passive endpoints (rdma_cm listeners) are not implemented yet.
 * @fabric: The fabric.
 * @info: The consumer's info.
 * @pep: Where the endpoint would go.
 * @context: The consumer's context.
 *
 * Return: -KFI_ENOSYS.
 */
int kfi_prov_fabric_passive_ep(struct kfid_fabric *fabric,
			       struct kfi_info *info, struct kfid_pep **pep,
			       void *context)
{
	return kfi_no_passive_ep(fabric, info, pep, context);
}

/**
 * kfi_util_ep_xfer() - Where the toolkit's data-transfer ops tables hand a
 *	transfer: this provider has no endpoint yet, so none reaches it.
 * @ep: The endpoint.
 * @x: The transfer.
 *
 * Return: -KFI_ENOSYS.
 */
ssize_t kfi_util_ep_xfer(struct kfid_ep *ep, const struct kfi_util_xfer *x)
{
	return -KFI_ENOSYS;
}
