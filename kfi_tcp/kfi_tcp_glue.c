// SPDX-License-Identifier: GPL-2.0
/*
 * kfi_tcp.ko, C side: the ops tables of the provider's objects (the slots
 * not implemented yet are kfi_enosys.h's -KFI_ENOSYS defaults, never NULL)
 * and wrappers of kernel inlines and macros the Rust side cannot call. The
 * fabric's tables, the interface list and the namespace helpers are the
 * toolkit's (kfi_util/kfi_util_glue.c).
 */
#include <linux/module.h>
#include <linux/workqueue.h>
#include <linux/scatterlist.h>
#include <linux/bvec.h>
#include <linux/uio.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/cpumask.h>

#include <kfi_enosys.h>
#include "tcp_sys.h"

/*
 * Every registration call becomes one kfi_mr_attr handed to the Rust
 * kfi_tcp_mr_regattr(), which validates it.
 */
static int kfi_tcp_mr_reg_common(struct kfid *fid, struct kfi_mr_attr *attr,
				 uint64_t access, uint64_t offset,
				 uint64_t requested_key, uint64_t flags,
				 struct kfid_mr **mr, void *context)
{
	attr->access = access;
	attr->offset = offset;
	attr->requested_key = requested_key;
	attr->context = context;
	return kfi_tcp_mr_regattr(fid, attr, flags, mr);
}

static int kfi_tcp_mr_reg(struct kfid *fid, const void *buf, size_t len,
			  uint64_t access, uint64_t offset,
			  uint64_t requested_key, uint64_t flags,
			  struct kfid_mr **mr, void *context)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct kfi_mr_attr attr = { .type = KFI_KVEC, .mr_iov = &iov,
				    .iov_count = 1 };

	return kfi_tcp_mr_reg_common(fid, &attr, access, offset, requested_key,
				     flags, mr, context);
}

static int kfi_tcp_mr_regv(struct kfid *fid, const struct kvec *iov,
			   size_t count, uint64_t access, uint64_t offset,
			   uint64_t requested_key, uint64_t flags,
			   struct kfid_mr **mr, void *context)
{
	struct kfi_mr_attr attr = { .type = KFI_KVEC, .mr_iov = iov,
				    .iov_count = count };

	return kfi_tcp_mr_reg_common(fid, &attr, access, offset, requested_key,
				     flags, mr, context);
}

static int kfi_tcp_mr_regbv(struct kfid *fid, const struct bio_vec *biov,
			    size_t count, uint64_t access, uint64_t offset,
			    uint64_t requested_key, uint64_t flags,
			    struct kfid_mr **mr, void *context)
{
	struct kfi_mr_attr attr = { .type = KFI_BVEC, .mr_biov = biov,
				    .iov_count = count };

	return kfi_tcp_mr_reg_common(fid, &attr, access, offset, requested_key,
				     flags, mr, context);
}

static int kfi_tcp_mr_regsgl(struct kfid *fid, const struct scatterlist *sgl,
			     size_t count, uint64_t access, uint64_t offset,
			     uint64_t requested_key, uint64_t flags,
			     struct kfid_mr **mr, void *context)
{
	struct kfi_mr_attr attr = { .type = KFI_SGL, .mr_sgl = sgl,
				    .iov_count = count };

	return kfi_tcp_mr_reg_common(fid, &attr, access, offset, requested_key,
				     flags, mr, context);
}

static struct kfi_ops_mr kfi_tcp_mr_ops = {
	.size = sizeof(struct kfi_ops_mr),
	.reg = kfi_tcp_mr_reg,
	.regv = kfi_tcp_mr_regv,
	.regbv = kfi_tcp_mr_regbv,
	.regattr = kfi_tcp_mr_regattr,
	.regsgl = kfi_tcp_mr_regsgl,
};


/**
 * kfi_tcp_glue_mr_segs() - Copy a registration's segments.
 * @attr: The registration; @attr->iov_count descriptors of @attr->type.
 * @out: Room for @attr->iov_count segments.
 *
 * Return: 0, or -EINVAL as kfi_util_segs() (also for an empty list).
 */
int kfi_tcp_glue_mr_segs(const struct kfi_mr_attr *attr,
			 struct kfi_util_seg *out)
{
	if (!attr->iov_count || !attr->mr_iov)
		return -EINVAL;
	return kfi_util_segs(attr->type, attr->mr_iov, attr->iov_count,
				 out);
}

static struct kfi_ops kfi_tcp_mr_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_tcp_mr_close,
	.bind = kfi_tcp_mr_bind,
	.control = kfi_tcp_mr_control,
	.ops_open = kfi_no_ops_open,
};

/**
 * kfi_tcp_glue_mr_init() - Fill the kfabric header of a new memory region.
 * @mr: The embedded struct kfid_mr (key, iova and mem_desc already set).
 * @context: The consumer's context.
 */
void kfi_tcp_glue_mr_init(struct kfid_mr *mr, void *context)
{
	mr->fid.fclass = KFI_CLASS_MR;
	mr->fid.context = context;
	mr->fid.ops = &kfi_tcp_mr_fid_ops;
}

/**
 * kfi_tcp_glue_domain_init() - Fill the kfabric header of a new domain.
 * @domain: The embedded struct kfid_domain of the provider's domain object.
 * @context: The consumer's context.
 */
void kfi_tcp_glue_domain_init(struct kfid_domain *domain, void *context)
{
	kfi_util_domain_init(domain, context, &kfi_tcp_mr_ops);
}

/*
 * The connection management of endpoints (the rest of an endpoint's tables,
 * and every table of passive endpoints and connection requests, are the
 * toolkit's).
 */
static struct kfi_ops_cm kfi_tcp_ep_cm_ops = {
	.size = sizeof(struct kfi_ops_cm),
	.setname = kfi_no_setname,
	.getname = kfi_tcp_ep_getname,
	.getpeer = kfi_tcp_ep_getpeer,
	.connect = kfi_tcp_ep_connect,
	.listen = kfi_no_listen,
	.accept = kfi_tcp_ep_accept,
	.reject = kfi_no_reject,
	.shutdown = kfi_tcp_ep_shutdown,
	.join = kfi_no_join,
};

/**
 * kfi_tcp_glue_ep_init() - Fill the kfabric header of a new endpoint: the
 *	toolkit's tables (kfi_util/ep.rs) with this provider's connection
 *	management.
 * @ep: The embedded struct kfid_ep of the endpoint's EpBase.
 * @context: The consumer's context.
 */
void kfi_tcp_glue_ep_init(struct kfid_ep *ep, void *context)
{
	kfi_util_ep_init(ep, context, &kfi_tcp_ep_cm_ops);
}
