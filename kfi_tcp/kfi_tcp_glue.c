// SPDX-License-Identifier: GPL-2.0
/*
 * kfi_tcp.ko, C side: the ops tables of the provider's objects (the slots
 * not implemented yet are kfi_enosys.h's -KFI_ENOSYS defaults, never NULL)
 * and wrappers of kernel inlines and macros the Rust side cannot call.
 */
#include <linux/inetdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <linux/rcupdate.h>
#include <linux/scatterlist.h>
#include <linux/bvec.h>
#include <linux/uio.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/cpumask.h>
#include <net/net_namespace.h>

#include <kfi_enosys.h>
#include "tcp_sys.h"

/**
 * kfi_tcp_glue_ifaces() - List the IPv4 addresses of the caller's network
 * namespace.
 * @out: Array of at least @max entries.
 * @max: Capacity of @out.
 *
 * Context: Process context (reads under RCU, does not sleep).
 * Return: Number of entries written; at most @max.
 */
int kfi_tcp_glue_ifaces(struct kfi_tcp_iface *out, int max)
{
	struct net *net = current->nsproxy->net_ns;
	struct net_device *dev;
	struct in_device *in_dev;
	const struct in_ifaddr *ifa;
	int n = 0;

	rcu_read_lock();
	for_each_netdev_rcu(net, dev) {
		in_dev = __in_dev_get_rcu(dev);
		if (!in_dev)
			continue;
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			if (n == max)
				goto out;
			strscpy(out[n].name, dev->name, sizeof(out[n].name));
			memcpy(out[n].addr, &ifa->ifa_local, 4);
			out[n].prefix = ifa->ifa_prefixlen;
			out[n].up = !!(dev->flags & IFF_UP);
			n++;
		}
	}
out:
	rcu_read_unlock();
	return n;
}

/* The caller's network namespace, referenced; put with _put_net(). */
void *kfi_tcp_glue_get_net(void)
{
	return get_net(current->nsproxy->net_ns);
}

void kfi_tcp_glue_put_net(void *net)
{
	put_net(net);
}

/* kmalloc'd copies for kfi_info fields (kfi_freeinfo kfree()s them). */
char *kfi_tcp_glue_strndup(const char *s, size_t len)
{
	return kstrndup(s, len, GFP_KERNEL);
}

void *kfi_tcp_glue_memdup(const void *p, size_t len)
{
	return kmemdup(p, len, GFP_KERNEL);
}

struct module *kfi_tcp_glue_this_module(void)
{
	return THIS_MODULE;
}

static struct kfi_ops kfi_tcp_fabric_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_tcp_fabric_close,
	.bind = kfi_no_bind,
	.control = kfi_no_control,
	.ops_open = kfi_no_ops_open,
};

static struct kfi_ops_fabric kfi_tcp_fabric_ops = {
	.size = sizeof(struct kfi_ops_fabric),
	.domain = kfi_tcp_fabric_domain,
	.passive_ep = kfi_tcp_fabric_passive_ep,
	.eq_open = kfi_tcp_fabric_eq_open,
	.wait_open = kfi_no_wait_open,
};

/**
 * kfi_tcp_glue_fabric_init() - Fill the kfabric header of a new fabric.
 * @fabric: The embedded struct kfid_fabric of the provider's fabric object.
 * @context: The consumer's context.
 */
void kfi_tcp_glue_fabric_init(struct kfid_fabric *fabric, void *context)
{
	fabric->fid.fclass = KFI_CLASS_FABRIC;
	fabric->fid.context = context;
	fabric->fid.ops = &kfi_tcp_fabric_fid_ops;
	fabric->ops = &kfi_tcp_fabric_ops;
	fabric->api_version = KFI_VERSION(KFI_MAJOR_VERSION, KFI_MINOR_VERSION);
}

static struct kfi_ops kfi_tcp_domain_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_tcp_domain_close,
	.bind = kfi_no_bind,
	.control = kfi_no_control,
	.ops_open = kfi_no_ops_open,
};

static struct kfi_ops_domain kfi_tcp_domain_ops = {
	.size = sizeof(struct kfi_ops_domain),
	.av_open = kfi_no_av_open,
	.cq_open = kfi_tcp_domain_cq_open,
	.endpoint = kfi_tcp_domain_endpoint,
	.scalable_ep = kfi_no_scalable_ep,
	.cntr_open = kfi_no_cntr_open,
	.poll_open = kfi_no_poll_open,
	.stx_ctx = kfi_no_stx_ctx,
	.srx_ctx = kfi_no_srx_ctx,
	.query_atomic = kfi_no_query_atomic,
};

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
 * Return: 0, or -EINVAL for an unknown type, a NULL descriptor array, or a
 * kvec with a NULL base.
 */
int kfi_tcp_glue_mr_segs(const struct kfi_mr_attr *attr,
			 struct kfi_tcp_seg *out)
{
	struct scatterlist *sg;
	size_t i;

	switch (attr->type) {
	case KFI_KVEC:
		if (!attr->mr_iov)
			return -EINVAL;
		for (i = 0; i < attr->iov_count; i++) {
			if (!attr->mr_iov[i].iov_base)
				return -EINVAL;
			out[i] = (struct kfi_tcp_seg){
				.base = attr->mr_iov[i].iov_base,
				.len = attr->mr_iov[i].iov_len };
		}
		return 0;
	case KFI_BVEC:
		if (!attr->mr_biov)
			return -EINVAL;
		for (i = 0; i < attr->iov_count; i++) {
			if (!attr->mr_biov[i].bv_page)
				return -EINVAL;
			out[i] = (struct kfi_tcp_seg){
				.page = attr->mr_biov[i].bv_page,
				.offset = attr->mr_biov[i].bv_offset,
				.len = attr->mr_biov[i].bv_len };
		}
		return 0;
	case KFI_SGL:
		if (!attr->mr_sgl)
			return -EINVAL;
		for_each_sg((struct scatterlist *)attr->mr_sgl, sg,
			    attr->iov_count, i) {
			if (!sg_page(sg))
				return -EINVAL;
			out[i] = (struct kfi_tcp_seg){ .page = sg_page(sg),
						       .offset = sg->offset,
						       .len = sg->length };
		}
		return 0;
	default:
		return -EINVAL;
	}
}

static struct kfi_ops kfi_tcp_mr_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_tcp_mr_close,
	.bind = kfi_no_bind,
	.control = kfi_no_control,
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
	domain->fid.fclass = KFI_CLASS_DOMAIN;
	domain->fid.context = context;
	domain->fid.ops = &kfi_tcp_domain_fid_ops;
	domain->ops = &kfi_tcp_domain_ops;
	domain->mr = &kfi_tcp_mr_ops;
}

static struct kfi_ops kfi_tcp_eq_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_tcp_eq_close,
	.bind = kfi_no_bind,
	.control = kfi_no_control,
	.ops_open = kfi_no_ops_open,
};

static struct kfi_ops_eq kfi_tcp_eq_ops = {
	.size = sizeof(struct kfi_ops_eq),
	.read = kfi_tcp_eq_read,
	.readerr = kfi_tcp_eq_readerr,
	.write = kfi_tcp_eq_write,
	.sread = kfi_tcp_eq_sread,
	.strerror = kfi_tcp_eq_strerror,
};

/**
 * kfi_tcp_glue_eq_init() - Fill the kfabric header of a new event queue.
 * @eq: The embedded struct kfid_eq of the provider's EQ object.
 * @context: The consumer's context.
 * @handler: The consumer's event handler, or NULL.
 */
void kfi_tcp_glue_eq_init(struct kfid_eq *eq, void *context,
			  kfi_event_handler handler)
{
	eq->fid.fclass = KFI_CLASS_EQ;
	eq->fid.context = context;
	eq->fid.ops = &kfi_tcp_eq_fid_ops;
	eq->ops = &kfi_tcp_eq_ops;
	eq->event_handler = handler;
}

/*
 * Passive endpoints, connection requests and endpoints. Data operations
 * come with the data path; until then they are the -KFI_ENOSYS defaults.
 */
static struct kfi_ops kfi_tcp_pep_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_tcp_pep_close,
	.bind = kfi_tcp_pep_bind,
	.control = kfi_no_control,
	.ops_open = kfi_no_ops_open,
};

static struct kfi_ops_ep kfi_tcp_pep_ops = {
	.size = sizeof(struct kfi_ops_ep),
	.cancel = kfi_no_cancel,
	.getopt = kfi_no_getopt,
	.setopt = kfi_no_setopt,
	.tx_ctx = kfi_no_tx_ctx,
	.rx_ctx = kfi_no_rx_ctx,
};

static struct kfi_ops_cm kfi_tcp_pep_cm_ops = {
	.size = sizeof(struct kfi_ops_cm),
	.setname = kfi_no_setname,
	.getname = kfi_tcp_pep_getname,
	.getpeer = kfi_no_getpeer,
	.connect = kfi_no_connect,
	.listen = kfi_tcp_pep_listen,
	.accept = kfi_no_accept,
	.reject = kfi_tcp_pep_reject,
	.shutdown = kfi_no_shutdown,
	.join = kfi_no_join,
};

/**
 * kfi_tcp_glue_pep_init() - Fill the kfabric header of a new passive
 *	endpoint.
 * @pep: The embedded struct kfid_pep.
 * @context: The consumer's context.
 */
void kfi_tcp_glue_pep_init(struct kfid_pep *pep, void *context)
{
	pep->fid.fclass = KFI_CLASS_PEP;
	pep->fid.context = context;
	pep->fid.ops = &kfi_tcp_pep_fid_ops;
	pep->ops = &kfi_tcp_pep_ops;
	pep->cm = &kfi_tcp_pep_cm_ops;
}

static struct kfi_ops kfi_tcp_connreq_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_tcp_connreq_close,
	.bind = kfi_no_bind,
	.control = kfi_no_control,
	.ops_open = kfi_no_ops_open,
};

/**
 * kfi_tcp_glue_connreq_init() - Fill the header of a connection request
 *	(info->handle of a KFI_CONNREQ event; kfi_close() rejects it).
 * @fid: The embedded struct kfid.
 */
void kfi_tcp_glue_connreq_init(struct kfid *fid)
{
	fid->fclass = KFI_CLASS_CONNREQ;
	fid->context = NULL;
	fid->ops = &kfi_tcp_connreq_fid_ops;
}

static struct kfi_ops kfi_tcp_ep_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_tcp_ep_close,
	.bind = kfi_tcp_ep_bind,
	.control = kfi_tcp_ep_control,
	.ops_open = kfi_no_ops_open,
};

static struct kfi_ops_ep kfi_tcp_ep_ops = {
	.size = sizeof(struct kfi_ops_ep),
	.cancel = kfi_no_cancel,
	.getopt = kfi_no_getopt,
	.setopt = kfi_no_setopt,
	.tx_ctx = kfi_no_tx_ctx,
	.rx_ctx = kfi_no_rx_ctx,
};

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

static struct kfi_ops_msg kfi_tcp_ep_msg_ops = {
	.size = sizeof(struct kfi_ops_msg),
	.recv = kfi_no_msg_recv,
	.recvv = kfi_no_msg_recvv,
	.recvbv = kfi_no_msg_recvbv,
	.recvmsg = kfi_no_msg_recvmsg,
	.send = kfi_no_msg_send,
	.sendv = kfi_no_msg_sendv,
	.sendbv = kfi_no_msg_sendbv,
	.sendmsg = kfi_no_msg_sendmsg,
	.inject = kfi_no_msg_inject,
	.senddata = kfi_no_msg_senddata,
	.injectdata = kfi_no_msg_injectdata,
	.recvsgl = kfi_no_msg_recvsgl,
	.sendsgl = kfi_no_msg_sendsgl,
};

static struct kfi_ops_rma kfi_tcp_ep_rma_ops = {
	.size = sizeof(struct kfi_ops_rma),
	.read = kfi_no_rma_read,
	.readv = kfi_no_rma_readv,
	.readbv = kfi_no_rma_readbv,
	.readmsg = kfi_no_rma_readmsg,
	.write = kfi_no_rma_write,
	.writev = kfi_no_rma_writev,
	.writebv = kfi_no_rma_writebv,
	.writemsg = kfi_no_rma_writemsg,
	.inject = kfi_no_rma_inject,
	.writedata = kfi_no_rma_writedata,
	.injectdata = kfi_no_rma_injectdata,
	.readsgl = kfi_no_rma_readsgl,
	.writesgl = kfi_no_rma_writesgl,
};

static struct kfi_ops_tagged kfi_tcp_ep_tagged_ops = {
	.size = sizeof(struct kfi_ops_tagged),
	.recv = kfi_no_tagged_recv,
	.recvv = kfi_no_tagged_recvv,
	.recvbv = kfi_no_tagged_recvbv,
	.recvmsg = kfi_no_tagged_recvmsg,
	.send = kfi_no_tagged_send,
	.sendv = kfi_no_tagged_sendv,
	.sendbv = kfi_no_tagged_sendbv,
	.sendmsg = kfi_no_tagged_sendmsg,
	.inject = kfi_no_tagged_inject,
	.senddata = kfi_no_tagged_senddata,
	.injectdata = kfi_no_tagged_injectdata,
	.recvsgl = kfi_no_tagged_recvsgl,
	.sendsgl = kfi_no_tagged_sendsgl,
};

static struct kfi_ops_atomic kfi_tcp_ep_atomic_ops = {
	.size = sizeof(struct kfi_ops_atomic),
	.write = kfi_no_atomic_write,
	.writev = kfi_no_atomic_writev,
	.writemsg = kfi_no_atomic_writemsg,
	.inject = kfi_no_atomic_inject,
	.readwrite = kfi_no_atomic_readwrite,
	.readwritev = kfi_no_atomic_readwritev,
	.readwritemsg = kfi_no_atomic_readwritemsg,
	.compwrite = kfi_no_atomic_compwrite,
	.compwritev = kfi_no_atomic_compwritev,
	.compwritemsg = kfi_no_atomic_compwritemsg,
	.writevalid = kfi_no_atomic_writevalid,
	.readwritevalid = kfi_no_atomic_readwritevalid,
	.compwritevalid = kfi_no_atomic_compwritevalid,
};

/**
 * kfi_tcp_glue_ep_init() - Fill the kfabric header of a new endpoint.
 * @ep: The embedded struct kfid_ep.
 * @context: The consumer's context.
 */
void kfi_tcp_glue_ep_init(struct kfid_ep *ep, void *context)
{
	ep->fid.fclass = KFI_CLASS_EP;
	ep->fid.context = context;
	ep->fid.ops = &kfi_tcp_ep_fid_ops;
	ep->ops = &kfi_tcp_ep_ops;
	ep->cm = &kfi_tcp_ep_cm_ops;
	ep->msg = &kfi_tcp_ep_msg_ops;
	ep->rma = &kfi_tcp_ep_rma_ops;
	ep->tagged = &kfi_tcp_ep_tagged_ops;
	ep->atomic = &kfi_tcp_ep_atomic_ops;
}

static struct kfi_ops kfi_tcp_cq_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_tcp_cq_close,
	.bind = kfi_no_bind,
	.control = kfi_no_control,
	.ops_open = kfi_no_ops_open,
};

static struct kfi_ops_cq kfi_tcp_cq_ops = {
	.size = sizeof(struct kfi_ops_cq),
	.read = kfi_tcp_cq_read,
	.readfrom = kfi_tcp_cq_readfrom,
	.readerr = kfi_tcp_cq_readerr,
	.sread = kfi_tcp_cq_sread,
	.sreadfrom = kfi_tcp_cq_sreadfrom,
	.signal = kfi_tcp_cq_signal,
	.strerror = kfi_tcp_cq_strerror,
};

/**
 * kfi_tcp_glue_cq_init() - Fill the kfabric header of a new completion queue.
 * @cq: The embedded struct kfid_cq of the provider's CQ object.
 * @context: The consumer's context.
 * @handler: The consumer's completion handler, or NULL.
 */
void kfi_tcp_glue_cq_init(struct kfid_cq *cq, void *context,
			  kfi_comp_handler handler)
{
	cq->fid.fclass = KFI_CLASS_CQ;
	cq->fid.context = context;
	cq->fid.ops = &kfi_tcp_cq_fid_ops;
	cq->ops = &kfi_tcp_cq_ops;
	cq->comp_handler = handler;
}

/**
 * kfi_tcp_glue_is_cq() - Tell whether an object is a CQ of this provider.
 * @fid: A valid object header, e.g. as given to kfi_ep_bind().
 *
 * Return: true if @fid is the header of a CQ made by kfi_tcp_glue_cq_init().
 */
bool kfi_tcp_glue_is_cq(const struct kfid *fid)
{
	return fid->fclass == KFI_CLASS_CQ && fid->ops == &kfi_tcp_cq_fid_ops;
}

/**
 * kfi_tcp_glue_cpu_possible() - Check a CPU number given by a consumer.
 * @cpu: The number, e.g. kfi_cq_attr.signaling_vector with KFI_AFFINITY.
 *
 * Return: true if @cpu is a possible CPU.
 */
bool kfi_tcp_glue_cpu_possible(int cpu)
{
	return cpu >= 0 && cpu < nr_cpu_ids && cpu_possible(cpu);
}

/**
 * kfi_tcp_glue_spin_lock_bh() - spin_lock_bh() for the Rust side (sync.rs).
 * @lock: An initialised spinlock.
 *
 * Context: Process or softirq context.
 */
void kfi_tcp_glue_spin_lock_bh(spinlock_t *lock)
{
	spin_lock_bh(lock);
}

/**
 * kfi_tcp_glue_spin_unlock_bh() - spin_unlock_bh() for the Rust side.
 * @lock: A spinlock taken with kfi_tcp_glue_spin_lock_bh().
 */
void kfi_tcp_glue_spin_unlock_bh(spinlock_t *lock)
{
	spin_unlock_bh(lock);
}
