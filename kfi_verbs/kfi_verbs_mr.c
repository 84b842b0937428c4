// SPDX-License-Identifier: GPL-2.0
/*
 * kfi_verbs.ko, C side: memory regions a peer may access (remote read or
 * write), registered by fast registration (FRWR) and never through a
 * global rkey (Documentation/kfi_verbs.md, "Memory regions").
 *
 * A region's pages are DMA-mapped into a scatterlist, mapped into an FRWR
 * ib_mr (ib_map_mr_sg()) and made valid by an IB_WR_REG_MR work request.
 * Such a request needs a queue pair in RTS of the device's protection
 * domain, and a region must be usable by every endpoint of the domain
 * before any of them connects, so each device gets a registration channel
 * of its own: a loopback RC connection from the device's own address to
 * itself over rdma_cm (created on the first registration, rebuilt if it
 * breaks), on whose send queue REG_MR and LOCAL_INV requests are posted
 * one at a time and waited for. Closing a region invalidates its key
 * (LOCAL_INV) before its memory is unmapped; its ib_mr then waits on the
 * device's free list and gets the next key (ib_inc_rkey()) when reused, so
 * an old key never reaches a new region. Device removal deregisters every
 * region and frees the channel before the protection domain goes; a region
 * closed after that only frees its memory.
 *
 * Keys and addresses. The kfabric domain addresses regions by offset
 * (mr_mode without KFI_MR_VIRT_ADDR): remote address A of a region
 * registered at @offset is its byte A - @offset. The ib_mr's iova keeps the
 * low 32 bits of the region's first DMA address (every driver accepts a
 * new upper half, as xprtrdma relies on) and gets the upper half that puts
 * it at @offset + delta with delta below 2^32; the key handed to the
 * consumer is (delta << 32) | rkey, and the initiator posts remote address
 * A + (key >> 32) with rkey = the key's low 32 bits (xfer.rs).
 *
 * Locking: the device's @mr_lock serialises registrations, invalidations,
 * the channel and the lists, and keeps the ib_device and its protection
 * domain in place: removal takes it first (before the device's @lock) and
 * marks the device @mr_dead, so whoever holds it and finds the device not
 * dead may use @ib and @pd. The device's @lock is never held around
 * rdma_cm calls here: rdma_cm handlers take it inside their handler mutex
 * (kfi_verbs_cm.c), and rdma_connect()/rdma_destroy_id() take handler
 * mutexes. The channel's rdma_cm handler takes no lock (it runs on
 * rdma_cm's work queue, which removal may wait for).
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/inetdevice.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <net/addrconf.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "verbs_sys.h"
#include "kfi_verbs_priv.h"

/* How long the channel's connection setup and one request may take. */
#define KFI_VERBS_RC_TIMEOUT	(5 * HZ)
/* rdma_cm's address and route resolution timeout (ms). */
#define KFI_VERBS_RC_RESOLVE_MS	2000
/* Times a request the device cannot take for a moment is offered. */
#define KFI_VERBS_RC_TRIES	100

/**
 * struct kfi_verbs_regchan - A device's registration channel.
 * @pd: The device's protection domain.
 * @cq: The completion queue of both queue pairs (softirq polled).
 * @net: The namespace of the device's network device (referenced).
 * @listen: The listening id (its port is chosen by rdma_cm).
 * @active: The connecting id; requests are posted on its queue pair.
 * @qp: @active's queue pair, once created.
 * @passive: The accepted id (set by the handler, read after @listen is
 *	destroyed).
 * @step: Completed by the handler at each setup step.
 * @status: The outcome of the last step (negative errno or 0).
 * @routed: The route of @active is resolved.
 * @up: The connection is established.
 * @broken: The connection ended or a request failed: rebuild it.
 */
struct kfi_verbs_regchan {
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct net *net;
	struct rdma_cm_id *listen;
	struct rdma_cm_id *active;
	struct ib_qp *qp;
	struct rdma_cm_id *passive;
	struct completion step;
	int status;
	bool routed;
	bool up;
	bool broken;
};

/**
 * struct kfi_verbs_mr - A registered region.
 * @node: On the device's @mrs (under @mr_lock).
 * @dev: The device (referenced).
 * @mr: The FRWR ib_mr; NULL once the device removed it.
 * @sgl: The region's pages.
 * @nents: Entries of @sgl.
 * @mapped: Entries ib_dma_map_sg() gave (0: not mapped).
 */
struct kfi_verbs_mr {
	struct list_head node;
	struct kfi_verbs_dev *dev;
	struct ib_mr *mr;
	struct scatterlist *sgl;
	unsigned int nents;
	unsigned int mapped;
};

/* One request on the channel, waited for. */
struct kfi_verbs_rc_wait {
	struct ib_cqe cqe;
	struct completion done;
	enum ib_wc_status status;
};

static void kfi_verbs_rc_step(struct kfi_verbs_regchan *rc, int status)
{
	rc->status = status;
	complete(&rc->step);
}

static int kfi_verbs_rc_qp(struct kfi_verbs_regchan *rc, struct rdma_cm_id *id)
{
	struct ib_qp_init_attr a = {
		.send_cq = rc->cq,
		.recv_cq = rc->cq,
		/* one request at a time, plus a drain */
		.cap = { .max_send_wr = 4, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};

	return rdma_create_qp(id, rc->pd, &a);
}

/*
 * The channel's ids' events. Setup steps complete @step; a connection that
 * ends marks the channel broken. The passive side creates its queue pair
 * and accepts from here (returning an error makes rdma_cm destroy the new
 * id). Takes no lock.
 */
static int kfi_verbs_rc_handler(struct rdma_cm_id *id,
				struct rdma_cm_event *ev)
{
	struct kfi_verbs_regchan *rc = id->context;
	struct rdma_conn_param p = {};
	int ret;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = rdma_resolve_route(id, KFI_VERBS_RC_RESOLVE_MS);
		if (ret)
			kfi_verbs_rc_step(rc, ret);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		rc->routed = true;
		kfi_verbs_rc_step(rc, 0);
		break;
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (READ_ONCE(rc->passive))
			return -EBUSY;
		ret = kfi_verbs_rc_qp(rc, id);
		if (ret)
			return ret;
		ret = rdma_accept(id, &p);
		if (ret) {
			rdma_destroy_qp(id);
			return ret;
		}
		WRITE_ONCE(rc->passive, id);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (id == rc->active) {
			rc->up = true;
			kfi_verbs_rc_step(rc, 0);
		}
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		WRITE_ONCE(rc->broken, true);
		if (id == rc->active)
			kfi_verbs_rc_step(rc, ev->status < 0 ? ev->status :
					  -ECONNREFUSED);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		WRITE_ONCE(rc->broken, true);
		break;
	default:
		break;
	}
	return 0;
}

static void kfi_verbs_rc_destroy(struct kfi_verbs_regchan *rc)
{
	struct rdma_cm_id *passive;

	/* no request is handled after this: @passive is final */
	if (rc->listen)
		rdma_destroy_id(rc->listen);
	passive = READ_ONCE(rc->passive);
	if (rc->qp)
		rdma_destroy_qp(rc->active);
	if (rc->active)
		rdma_destroy_id(rc->active);
	if (passive) {
		rdma_destroy_qp(passive);
		rdma_destroy_id(passive);
	}
	if (rc->cq)
		ib_free_cq(rc->cq);
	if (rc->net)
		put_net(rc->net);
	kfree(rc);
}

/*
 * An address of the device's first port that has one (IPv4 first, then
 * IPv6) in @ss, and that port's network namespace,
 * referenced. Called under @mr_lock of a device not being removed.
 */
static int kfi_verbs_dev_addr(struct kfi_verbs_dev *d,
			      struct sockaddr_storage *ss, struct net **net)
{
	struct net_device *nd;
	u32 port;

	memset(ss, 0, sizeof(*ss));
	rdma_for_each_port(d->ib, port) {
		struct in_device *in;
		bool found = false;

		nd = ib_device_get_netdev(d->ib, port);
		if (!nd)
			continue;
		rcu_read_lock();
		in = __in_dev_get_rcu(nd);
		if (in) {
			struct sockaddr_in *s = (struct sockaddr_in *)ss;
			const struct in_ifaddr *ifa = rcu_dereference(in->ifa_list);

			if (ifa) {
				s->sin_family = AF_INET;
				s->sin_addr.s_addr = ifa->ifa_local;
				found = true;
			}
		}
		rcu_read_unlock();
#if IS_ENABLED(CONFIG_IPV6)
		if (!found) {
			struct sockaddr_in6 *s = (struct sockaddr_in6 *)ss;
			struct inet6_dev *idev = in6_dev_get(nd);
			struct inet6_ifaddr *ifp;

			if (idev) {
				read_lock_bh(&idev->lock);
				list_for_each_entry(ifp, &idev->addr_list, if_list) {
					if (ifp->flags & IFA_F_TENTATIVE)
						continue;
					s->sin6_family = AF_INET6;
					s->sin6_addr = ifp->addr;
					if (ipv6_addr_type(&ifp->addr) &
					    IPV6_ADDR_LINKLOCAL)
						s->sin6_scope_id = nd->ifindex;
					found = true;
					break;
				}
				read_unlock_bh(&idev->lock);
				in6_dev_put(idev);
			}
		}
#endif
		if (found)
			*net = get_net(dev_net(nd));
		dev_put(nd);
		if (found)
			return 0;
	}
	return -EADDRNOTAVAIL;
}

static void kfi_verbs_set_port(struct sockaddr_storage *ss, __be16 port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = port;
	else
		((struct sockaddr_in6 *)ss)->sin6_port = port;
}

/* The port rdma_cm bound an id to. */
static __be16 kfi_verbs_port_of(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)ss)->sin_port;
	return ((const struct sockaddr_in6 *)ss)->sin6_port;
}

/* Waits for the next setup step of @rc: its status, -ETIMEDOUT. */
static int kfi_verbs_rc_wait_step(struct kfi_verbs_regchan *rc)
{
	if (!wait_for_completion_timeout(&rc->step, KFI_VERBS_RC_TIMEOUT))
		return -ETIMEDOUT;
	return rc->status;
}

/*
 * Builds the channel of the device @d: listen on an rdma_cm port of its
 * address, connect to it from a second id, wait until established.
 * Called under @d's @mr_lock, the device not being removed.
 */
static int kfi_verbs_rc_create(struct kfi_verbs_dev *d,
			       struct kfi_verbs_regchan **out)
{
	struct kfi_verbs_regchan *rc;
	struct sockaddr_storage addr;
	struct rdma_conn_param p = { .retry_count = 7, .rnr_retry_count = 7 };
	struct net *net;
	int ret;

	ret = kfi_verbs_dev_addr(d, &addr, &net);
	if (ret)
		return ret;
	rc = kzalloc(sizeof(*rc), GFP_KERNEL);
	if (!rc) {
		put_net(net);
		return -ENOMEM;
	}
	rc->net = net;
	rc->pd = d->pd;
	init_completion(&rc->step);
	rc->cq = ib_alloc_cq(d->ib, NULL, 16, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(rc->cq)) {
		ret = PTR_ERR(rc->cq);
		rc->cq = NULL;
		goto fail;
	}
	rc->listen = rdma_create_id(net, kfi_verbs_rc_handler, rc,
				    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(rc->listen)) {
		ret = PTR_ERR(rc->listen);
		rc->listen = NULL;
		goto fail;
	}
	ret = rdma_bind_addr(rc->listen, (struct sockaddr *)&addr);
	if (!ret)
		ret = rdma_listen(rc->listen, 1);
	if (ret)
		goto fail;
	if (rc->listen->device != d->ib) {
		ret = -ENODEV;
		goto fail;
	}
	rc->active = rdma_create_id(net, kfi_verbs_rc_handler, rc,
				    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(rc->active)) {
		ret = PTR_ERR(rc->active);
		rc->active = NULL;
		goto fail;
	}
	kfi_verbs_set_port(&addr, kfi_verbs_port_of(&rc->listen->route.addr.src_addr));
	ret = rdma_resolve_addr(rc->active, NULL, (struct sockaddr *)&addr,
				KFI_VERBS_RC_RESOLVE_MS);
	if (!ret)
		ret = kfi_verbs_rc_wait_step(rc);
	if (!ret && (!rc->routed || rc->active->device != d->ib))
		ret = -ENODEV;
	if (ret)
		goto fail;
	ret = kfi_verbs_rc_qp(rc, rc->active);
	if (ret)
		goto fail;
	rc->qp = rc->active->qp;
	ret = rdma_connect(rc->active, &p);
	if (!ret)
		ret = kfi_verbs_rc_wait_step(rc);
	if (!ret && !rc->up)
		ret = -ECONNREFUSED;
	if (ret)
		goto fail;
	*out = rc;
	return 0;
fail:
	kfi_verbs_rc_destroy(rc);
	return ret;
}

/* The channel of @d, built or rebuilt as needed (under @mr_lock). */
static int kfi_verbs_rc_get(struct kfi_verbs_dev *d)
{
	if (d->rc && READ_ONCE(d->rc->broken)) {
		kfi_verbs_rc_destroy(d->rc);
		d->rc = NULL;
	}
	if (d->rc)
		return 0;
	return kfi_verbs_rc_create(d, &d->rc);
}

static void kfi_verbs_rc_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kfi_verbs_rc_wait *w = container_of(wc->wr_cqe,
						   struct kfi_verbs_rc_wait,
						   cqe);

	w->status = wc->status;
	complete(&w->done);
}

/*
 * Posts @wr on the channel of @d and waits for its completion. A request
 * that does not complete in time is flushed (the queue pair is drained, so
 * nothing refers to the stack afterwards) and the channel rebuilt next
 * time. Under @mr_lock, the channel built.
 */
static int kfi_verbs_rc_post(struct kfi_verbs_dev *d, struct ib_send_wr *wr)
{
	struct kfi_verbs_regchan *rc = d->rc;
	struct kfi_verbs_rc_wait w;
	int tries = 0, ret;

	init_completion(&w.done);
	w.cqe.done = kfi_verbs_rc_done;
	wr->wr_cqe = &w.cqe;
	wr->send_flags = IB_SEND_SIGNALED;
	wr->next = NULL;
	/* siw refuses a post with -ENOTCONN while it changes state */
	while ((ret = ib_post_send(rc->qp, wr, NULL)) == -ENOTCONN &&
	       ++tries < KFI_VERBS_RC_TRIES)
		usleep_range(1000, 2000);
	if (ret) {
		WRITE_ONCE(rc->broken, true);
		return ret;
	}
	if (!wait_for_completion_timeout(&w.done, KFI_VERBS_RC_TIMEOUT)) {
		WRITE_ONCE(rc->broken, true);
		ib_drain_qp(rc->qp);
		wait_for_completion(&w.done);
	}
	if (w.status != IB_WC_SUCCESS) {
		WRITE_ONCE(rc->broken, true);
		return -EIO;
	}
	return 0;
}

/* Invalidates @mr's key on the channel of @d (under @mr_lock). */
static int kfi_verbs_rc_invalidate(struct kfi_verbs_dev *d, struct ib_mr *mr)
{
	struct ib_send_wr inv = {
		.opcode = IB_WR_LOCAL_INV,
		.ex.invalidate_rkey = mr->rkey,
	};
	int ret = kfi_verbs_rc_get(d);

	if (!ret)
		ret = kfi_verbs_rc_post(d, &inv);
	return ret;
}

/*
 * An FRWR ib_mr of @d: one from the free list with its key advanced (so
 * that the key of its last region never names the next one), or a new
 * one. Under @mr_lock.
 */
static struct ib_mr *kfi_verbs_mr_take(struct kfi_verbs_dev *d)
{
	struct ib_mr *mr = list_first_entry_or_null(&d->mr_free, struct ib_mr,
						    qp_entry);

	if (mr) {
		list_del(&mr->qp_entry);
		ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
		return mr;
	}
	return ib_alloc_mr(d->pd, IB_MR_TYPE_MEM_REG, d->mr_pages);
}

/* Puts an invalidated ib_mr on the free list of @d (under @mr_lock). */
static void kfi_verbs_mr_give(struct kfi_verbs_dev *d, struct ib_mr *mr)
{
	list_add(&mr->qp_entry, &d->mr_free);
}

/**
 * kfi_verbs_segs_sg() - Describe segments as a scatterlist.
 * @segs: The segments (kernel addresses or pages).
 * @n: Their number.
 * @sgl: Entries to fill (initialised, as many as a count returned), or
 *	NULL to count only.
 *
 * A page segment is one entry (its pages are contiguous), a linear-map
 * address one, a vmalloc or module address one per page (devices that
 * work on kernel addresses take them from the linear map). Empty segments
 * are skipped.
 *
 * Context: Any. Return: the entries, or -EINVAL for a segment longer than
 * 4 GiB or an address of none of these kinds.
 */
int kfi_verbs_segs_sg(const struct kfi_util_seg *segs, unsigned int n,
		      struct scatterlist *sgl)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		const struct kfi_util_seg *s = &segs[i];
		size_t len = s->len, part;
		u8 *p = s->base;

		if (!len)
			continue;
		if (len > UINT_MAX)
			return -EINVAL;
		if (s->page) {
			if (sgl)
				sg_set_page(&sgl[k], s->page + (s->offset >>
								PAGE_SHIFT),
					    len, offset_in_page(s->offset));
			k++;
		} else if (virt_addr_valid(p)) {
			if (sgl)
				sg_set_buf(&sgl[k], p, len);
			k++;
		} else if (is_vmalloc_or_module_addr(p)) {
			for (; len; len -= part, p += part) {
				part = min_t(size_t, len,
					     PAGE_SIZE - offset_in_page(p));
				if (sgl)
					sg_set_page(&sgl[k], vmalloc_to_page(p),
						    part, offset_in_page(p));
				k++;
			}
		} else {
			return -EINVAL;
		}
	}
	return k;
}

static void kfi_verbs_mr_free(struct kfi_verbs_mr *m)
{
	kvfree(m->sgl);
	kfi_verbs_dev_put(m->dev);
	kfree(m);
}

/*
 * Registers @m (mapped) on the device @d: an ib_mr over its pages, the
 * iova and key for @offset, REG_MR on the channel. Under @d's @mr_lock,
 * the device not being removed.
 */
static int kfi_verbs_mr_frwr(struct kfi_verbs_dev *d, struct kfi_verbs_mr *m,
			     u64 len, u64 offset, u64 access, u64 *key)
{
	struct ib_reg_wr reg = { .wr.opcode = IB_WR_REG_MR };
	struct ib_mr *mr;
	u32 delta;
	u64 iova;
	int ret;

	ret = kfi_verbs_rc_get(d);
	if (ret)
		return ret;
	mr = kfi_verbs_mr_take(d);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	/*
	 * Every entry but the first must start on a page and every entry but
	 * the last end on one (the device maps pages): otherwise fewer
	 * entries are mapped.
	 */
	ret = ib_map_mr_sg(mr, m->sgl, m->mapped, NULL, PAGE_SIZE);
	if (ret != m->mapped || mr->length != len) {
		kfi_verbs_mr_give(d, mr);
		return ret < 0 ? ret : -EINVAL;
	}
	delta = lower_32_bits(mr->iova) - lower_32_bits(offset);
	iova = offset + delta;
	if (iova > U64_MAX - len) {
		kfi_verbs_mr_give(d, mr);
		return -EINVAL;
	}
	mr->iova = iova;
	reg.mr = mr;
	reg.key = mr->rkey;
	reg.access = IB_ACCESS_LOCAL_WRITE;
	if (access & KFI_REMOTE_READ)
		reg.access |= IB_ACCESS_REMOTE_READ;
	/* remote atomics on it too, as libfabric's verbs provider grants */
	if (access & KFI_REMOTE_WRITE)
		reg.access |= IB_ACCESS_REMOTE_WRITE |
			      (d->ib->attrs.atomic_cap != IB_ATOMIC_NONE ?
			       IB_ACCESS_REMOTE_ATOMIC : 0);
	ret = kfi_verbs_rc_post(d, &reg.wr);
	if (ret) {
		/* the request may have been flushed half done: a fresh key */
		if (!kfi_verbs_rc_invalidate(d, mr))
			kfi_verbs_mr_give(d, mr);
		else
			ib_dereg_mr(mr);
		return ret;
	}
	m->mr = mr;
	*key = (u64)delta << 32 | mr->rkey;
	return 0;
}

/**
 * kfi_verbs_mr_reg() - Register memory for remote access.
 * @d: The device (referenced by the caller).
 * @segs: The region's segments in order (kernel addresses or pages); the
 *	memory stays valid until kfi_verbs_mr_dereg().
 * @n: Their number.
 * @len: Their total length (not 0).
 * @offset: The remote address of the region's first byte.
 * @access: KFI_REMOTE_READ and/or KFI_REMOTE_WRITE (other bits ignored).
 * @key: The key peers use (see the file comment).
 * @out: The registration.
 *
 * Context: Process context (sleeps; the first registration on a device
 * builds its channel, up to a few seconds).
 * Return: 0; -EINVAL when the region does not fit one fast registration
 * (more than the device's pages per registration, or pieces that neither
 * start nor end on page boundaries inside it) or an address is not kernel
 * memory; -ENODEV when the device is gone; -ENOMEM; the channel's error
 * (-ETIMEDOUT, -ECONNREFUSED, -EADDRNOTAVAIL without an IP address, -EIO
 * when the device refuses the registration).
 */
int kfi_verbs_mr_reg(struct kfi_verbs_dev *d, const struct kfi_util_seg *segs,
		     unsigned int n, uint64_t len, uint64_t offset,
		     uint64_t access, uint64_t *key, struct kfi_verbs_mr **out)
{
	struct kfi_verbs_mr *m;
	int nents, ret;

	nents = kfi_verbs_segs_sg(segs, n, NULL);
	if (nents <= 0)
		return -EINVAL;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	kref_get(&d->ref);
	m->dev = d;
	INIT_LIST_HEAD(&m->node);
	m->sgl = kvmalloc_array(nents, sizeof(*m->sgl), GFP_KERNEL);
	if (!m->sgl) {
		kfi_verbs_mr_free(m);
		return -ENOMEM;
	}
	sg_init_table(m->sgl, nents);
	m->nents = kfi_verbs_segs_sg(segs, n, m->sgl);
	mutex_lock(&d->mr_lock);
	if (d->mr_dead) {
		ret = -ENODEV;
		goto out;
	}
	if (m->nents > d->mr_pages) {
		ret = -EINVAL;
		goto out;
	}
	m->mapped = ib_dma_map_sg(d->ib, m->sgl, m->nents, DMA_BIDIRECTIONAL);
	if (!m->mapped) {
		ret = -ENOMEM;
		goto out;
	}
	ret = kfi_verbs_mr_frwr(d, m, len, offset, access, key);
	if (!ret)
		list_add_tail(&m->node, &d->mrs);
	else
		ib_dma_unmap_sg(d->ib, m->sgl, m->nents, DMA_BIDIRECTIONAL);
out:
	mutex_unlock(&d->mr_lock);
	if (ret)
		kfi_verbs_mr_free(m);
	else
		*out = m;
	return ret;
}

/**
 * kfi_verbs_mr_dereg() - End a registration: its key is invalidated (no
 *	peer access completes after this returns), its memory unmapped.
 * @m: The registration (NULL is ignored).
 *
 * Context: Process context (sleeps).
 */
void kfi_verbs_mr_dereg(struct kfi_verbs_mr *m)
{
	struct kfi_verbs_dev *d;

	if (!m)
		return;
	d = m->dev;
	mutex_lock(&d->mr_lock);
	list_del(&m->node);
	if (m->mr) {
		/* deregistration invalidates too, when the channel cannot */
		if (!kfi_verbs_rc_invalidate(d, m->mr))
			kfi_verbs_mr_give(d, m->mr);
		else
			ib_dereg_mr(m->mr);
		m->mr = NULL;
		ib_dma_unmap_sg(d->ib, m->sgl, m->nents, DMA_BIDIRECTIONAL);
	}
	mutex_unlock(&d->mr_lock);
	kfi_verbs_mr_free(m);
}

/**
 * kfi_verbs_mrs_remove() - The device goes away: every region is
 *	deregistered (their owners keep an empty shell until they close it),
 *	the free ib_mrs and the channel are freed; registering fails with
 *	-ENODEV from now on.
 * @d: The device, still with its ib_device and protection domain; its
 *	lock not held (see the file comment).
 *
 * Context: Process context (the ib_client's remove callback).
 */
void kfi_verbs_mrs_remove(struct kfi_verbs_dev *d)
{
	struct kfi_verbs_mr *m;
	struct ib_mr *mr, *tmp;

	mutex_lock(&d->mr_lock);
	d->mr_dead = true;
	if (d->rc) {
		kfi_verbs_rc_destroy(d->rc);
		d->rc = NULL;
	}
	list_for_each_entry(m, &d->mrs, node) {
		if (!m->mr)
			continue;
		ib_dereg_mr(m->mr);
		m->mr = NULL;
		ib_dma_unmap_sg(d->ib, m->sgl, m->nents, DMA_BIDIRECTIONAL);
	}
	list_for_each_entry_safe(mr, tmp, &d->mr_free, qp_entry) {
		list_del(&mr->qp_entry);
		ib_dereg_mr(mr);
	}
	mutex_unlock(&d->mr_lock);
}
