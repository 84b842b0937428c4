// SPDX-License-Identifier: GPL-2.0
/*
 * kfi_verbs.ko, C side: connections over rdma_cm (Documentation/
 * kfi_verbs.md, "Connections"). A struct kfi_verbs_conn is one rdma_cm id
 * (RDMA_PS_TCP, an RC queue pair) owned by a Rust object: an endpoint, a
 * passive endpoint (a listening id) or a connection request not taken
 * yet. C does the rdma_cm mechanics (address and route resolution, the
 * queue pair and its completion queue, connect, accept, reject,
 * disconnect, teardown, device removal) and reports what the consumer
 * must learn to the owner: kfi_verbs_ep_cm_event() for an endpoint,
 * kfi_verbs_pep_cm_event() for a passive endpoint (Rust: ep.rs, pep.rs).
 *
 * Contexts: every function here is process context and may sleep. The
 * rdma_cm handler runs in process context with the id's handler mutex
 * held; it calls the owner with that mutex held, so the owner never holds
 * a lock of its own while calling a function here that takes the handler
 * mutex (kfi_verbs_conn_take(), kfi_verbs_conn_accept(),
 * kfi_verbs_conn_close()).
 *
 * Locks: @lock (spinlock) of a connection protects @id, @closing,
 * @removed and @users. The consumer's calls use the id as a user
 * (kfi_verbs_conn_get()/_put()). Whoever clears @id destroys the id: the
 * owner's kfi_verbs_conn_close(), or, when the device goes away
 * (DEVICE_REMOVAL), the connection's @remove_work once no user is left.
 * The queue pair (@cq, @qp_id, @node) is created and destroyed with the
 * device's @lock held for read, and destroyed by the device's removal
 * with it held for write (kfi_verbs_ib.c), so each queue pair is destroyed
 * once and before the device's protection domain.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/mr_pool.h>
#include <rdma/rdma_cm.h>

#include "verbs_sys.h"
#include "kfi_verbs_priv.h"
#include "../kfi_util/kfi_trace.h"

/* Address and route resolution time-outs, milliseconds (as libfabric). */
#define KFI_VERBS_RESOLVE_MS 2000

static int kfi_verbs_cm_handler(struct rdma_cm_id *id,
				struct rdma_cm_event *ev);
static void kfi_verbs_remove_work(struct work_struct *w);
static void kfi_verbs_break_work(struct work_struct *w);

static struct kfi_verbs_conn *kfi_verbs_conn_alloc(int kind)
{
	struct kfi_verbs_conn *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return NULL;
	spin_lock_init(&c->lock);
	spin_lock_init(&c->post_lock);
	spin_lock_init(&c->cq_lock);
	mutex_init(&c->drain_lock);
	INIT_WORK(&c->remove_work, kfi_verbs_remove_work);
	INIT_WORK(&c->break_work, kfi_verbs_break_work);
	INIT_LIST_HEAD(&c->node);
	c->kind = kind;
	return c;
}

/**
 * kfi_verbs_conn_create() - Make a connection's rdma_cm id.
 * @net: The network namespace (the fabric's).
 * @kind: KFI_VERBS_CONN_EP or KFI_VERBS_CONN_PEP.
 * @dev: For an endpoint, the domain's device: the queue pair is created
 *	there, and a connection routed through another device fails.
 *	Referenced by the connection. NULL for a passive endpoint.
 * @out: The connection, without an owner (kfi_verbs_conn_set_owner()).
 *
 * Context: Process context (sleeps). Return: 0 or a negative errno.
 */
int kfi_verbs_conn_create(void *net, int kind, struct kfi_verbs_dev *dev,
			  struct kfi_verbs_conn **out)
{
	struct kfi_verbs_conn *c = kfi_verbs_conn_alloc(kind);
	struct rdma_cm_id *id;

	if (!c)
		return -ENOMEM;
	id = rdma_create_id(net, kfi_verbs_cm_handler, c, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id)) {
		kfree(c);
		return PTR_ERR(id);
	}
	c->id = id;
	if (dev) {
		kref_get(&dev->ref);
		c->dev = dev;
	}
	*out = c;
	return 0;
}

/*
 * The id, for a consumer's call (kfi_verbs_conn_put() after); NULL once
 * the connection is being destroyed or its device went away.
 */
static struct rdma_cm_id *kfi_verbs_conn_get(struct kfi_verbs_conn *c)
{
	struct rdma_cm_id *id = NULL;

	spin_lock(&c->lock);
	if (!c->closing && !c->removed && c->id) {
		id = c->id;
		c->users++;
	}
	spin_unlock(&c->lock);
	return id;
}

static void kfi_verbs_conn_put(struct kfi_verbs_conn *c)
{
	spin_lock(&c->lock);
	c->users--;
	spin_unlock(&c->lock);
	wake_up_var(&c->users);
}

static bool kfi_verbs_conn_idle(struct kfi_verbs_conn *c)
{
	bool idle;

	spin_lock(&c->lock);
	idle = !c->users;
	spin_unlock(&c->lock);
	return idle;
}

/* Whether the handler still reports to the owner. */
static bool kfi_verbs_conn_live(struct kfi_verbs_conn *c)
{
	bool live;

	spin_lock(&c->lock);
	live = !c->closing && !c->removed && c->id;
	spin_unlock(&c->lock);
	return live;
}

/**
 * kfi_verbs_conn_set_owner() - Name the owner events are reported to
 *	(none is reported before).
 * @c: The connection (an endpoint's or passive endpoint's).
 * @ctx: The owner, passed to its event function until
 *	kfi_verbs_conn_close().
 *
 * Context: Process context (sleeps: takes the handler mutex).
 */
void kfi_verbs_conn_set_owner(struct kfi_verbs_conn *c, void *ctx)
{
	struct rdma_cm_id *id = kfi_verbs_conn_get(c);

	if (id)
		rdma_lock_handler(id);
	WRITE_ONCE(c->ctx, ctx);
	if (id) {
		rdma_unlock_handler(id);
		kfi_verbs_conn_put(c);
	}
}

/**
 * kfi_verbs_conn_set_owner_fresh() - kfi_verbs_conn_set_owner() for an
 *	id that cannot report yet (a passive endpoint's, before it is bound
 *	and listens): no handler mutex is taken, so it may be called under
 *	locks that the owner's event function takes.
 * @c: The connection.
 * @ctx: The owner.
 *
 * Context: Any; before kfi_verbs_conn_listen().
 */
void kfi_verbs_conn_set_owner_fresh(struct kfi_verbs_conn *c, void *ctx)
{
	WRITE_ONCE(c->ctx, ctx);
}

/**
 * kfi_verbs_conn_set_rdm() - Make a connection a connectionless
 *	endpoint's: its events go to kfi_verbs_rdm_cm_event() (a listener's
 *	requests to kfi_verbs_rdm_pep_event(), and the requests it hands
 *	over are the same kind). Before kfi_verbs_conn_set_owner().
 * @c: The connection.
 *
 * Context: Process context, before the connection has an owner.
 */
void kfi_verbs_conn_set_rdm(struct kfi_verbs_conn *c)
{
	c->rdm = true;
}

static int kfi_verbs_sockaddr(const struct kfi_util_addr *a,
			      struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	return kfi_util_addr_encode(a, ss) ? 0 : -EINVAL;
}

/**
 * kfi_verbs_conn_listen() - Bind a passive endpoint's id and listen.
 * @c: The connection (KFI_VERBS_CONN_PEP).
 * @src: The address to listen on (port 0: one is chosen).
 * @backlog: Requests rdma_cm may hold before they are reported.
 *
 * Context: Process context (sleeps). Return: 0 or a negative errno.
 */
int kfi_verbs_conn_listen(struct kfi_verbs_conn *c,
			  const struct kfi_util_addr *src, int backlog)
{
	struct rdma_cm_id *id;
	struct sockaddr_storage ss;
	int ret;

	ret = kfi_verbs_sockaddr(src, &ss);
	if (ret)
		return ret;
	id = kfi_verbs_conn_get(c);
	if (!id)
		return -ENODEV;
	/* a passive endpoint of one family does not take the other's */
	if (ss.ss_family == AF_INET6)
		ret = rdma_set_afonly(id, 1);
	if (!ret)
		ret = rdma_bind_addr(id, (struct sockaddr *)&ss);
	if (!ret)
		ret = rdma_listen(id, backlog);
	kfi_verbs_conn_put(c);
	return ret;
}

/**
 * kfi_verbs_conn_connect() - Start an endpoint's connection: resolve
 *	@dst, create the queue pair, resolve the route, connect with
 *	@pdata. The outcome is reported to the owner.
 * @c: The connection (KFI_VERBS_CONN_EP, with a device).
 * @src: Source address, or NULL for the one the route gives.
 * @dst: The peer's address.
 * @pdata: Private data of the request (at most KFI_VERBS_PDATA_MAX).
 * @len: Its length.
 * @sq: Send queue depth (the consumer's transmit size).
 * @rq: Receive queue depth.
 *
 * Context: Process context (sleeps). Return: 0 or a negative errno (then
 * nothing is reported).
 */
int kfi_verbs_conn_connect(struct kfi_verbs_conn *c,
			   const struct kfi_util_addr *src,
			   const struct kfi_util_addr *dst,
			   const void *pdata, size_t len,
			   unsigned int sq, unsigned int rq)
{
	struct sockaddr_storage s, d;
	struct rdma_cm_id *id;
	int ret;

	if (len > sizeof(c->pdata) || !c->dev)
		return -EINVAL;
	ret = kfi_verbs_sockaddr(dst, &d);
	if (!ret && src)
		ret = kfi_verbs_sockaddr(src, &s);
	if (ret)
		return ret;
	id = kfi_verbs_conn_get(c);
	if (!id)
		return -ENODEV;
	/* the handler reads these once the resolution is under way */
	memcpy(c->pdata, pdata, len);
	c->pdata_len = len;
	c->sq = sq;
	c->rq = rq;
	ret = rdma_resolve_addr(id, src ? (struct sockaddr *)&s : NULL,
				(struct sockaddr *)&d, KFI_VERBS_RESOLVE_MS);
	kfi_verbs_conn_put(c);
	return ret;
}

/* Spreads the connections' completion queues over the device's vectors. */
static atomic_t kfi_verbs_cq_next = ATOMIC_INIT(0);

/*
 * Handles up to @budget completions of @c's completion queue, with
 * @cq_lock held and @poll_cq set: each goes to the done function of its
 * ib_cqe, as ib_cq's own pollers do. Returns how many were handled.
 */
static int kfi_verbs_cq_process(struct kfi_verbs_conn *c, int budget)
{
	int done = 0;

	while (done < budget) {
		int want = min(budget - done, KFI_VERBS_POLL_BATCH);
		int i, n = ib_poll_cq(c->poll_cq, want, c->wcs);

		if (n <= 0)
			break;
		for (i = 0; i < n; i++) {
			struct ib_wc *wc = &c->wcs[i];

			if (wc->wr_cqe)
				wc->wr_cqe->done(c->poll_cq, wc);
			else
				WARN_ON_ONCE(wc->status == IB_WC_SUCCESS);
		}
		done += n;
		if (n < want)
			break;
	}
	return done;
}

/*
 * The irq_poll handler of a connection's completion queue (softirq): handles
 * what is there, then re-arms the completion event (and runs again if a
 * completion came in between), as the RDMA core's IB_POLL_SOFTIRQ does. A
 * consumer's read may hold @cq_lock for a few completions meanwhile.
 */
static int kfi_verbs_cq_poll(struct irq_poll *iop, int budget)
{
	struct kfi_verbs_conn *c = container_of(iop, struct kfi_verbs_conn,
						iop);
	int done = 0;

	spin_lock(&c->cq_lock);
	if (c->poll_cq)
		done = kfi_verbs_cq_process(c, budget);
	spin_unlock(&c->cq_lock);
	if (done < budget) {
		irq_poll_complete(iop);
		/* @cq stays until irq_poll_disable() has waited for this */
		if (ib_req_notify_cq(c->cq, IB_CQ_NEXT_COMP |
				     IB_CQ_REPORT_MISSED_EVENTS) > 0)
			irq_poll_sched(iop);
	}
	return done;
}

/*
 * The completion event of a connection's completion queue (any context):
 * the softirq poller runs, unless a consumer busy-polls the queue; then the
 * reader handles the completions, and the queue stays unarmed until the
 * timer finds the reader gone.
 */
static void kfi_verbs_cq_event(struct ib_cq *cq, void *ctx)
{
	struct kfi_verbs_conn *c = ctx;
	unsigned long until = READ_ONCE(c->busy_until);

	if (time_before(jiffies, until)) {
		set_bit(KFI_VERBS_CQ_UNARMED, &c->cq_flags);
		mod_timer(&c->cq_timer, until);
		return;
	}
	irq_poll_sched(&c->iop);
}

/*
 * The busy-polling timer (softirq): while a reader still polls, look again
 * when its window ends; else the softirq poller handles what came and
 * re-arms the queue.
 */
static void kfi_verbs_cq_timer(struct timer_list *t)
{
	struct kfi_verbs_conn *c = from_timer(c, t, cq_timer);
	unsigned long until = READ_ONCE(c->busy_until);

	if (time_before(jiffies, until)) {
		mod_timer(&c->cq_timer, until);
		return;
	}
	if (test_and_clear_bit(KFI_VERBS_CQ_UNARMED, &c->cq_flags))
		irq_poll_sched(&c->iop);
}

/**
 * kfi_verbs_cq_unbusy() - End busy polling on a connection's completion
 *	queue: the softirq poller handles its completions again.
 * @c: The connection.
 *
 * For a blocking reader about to sleep, and for a completion the provider
 * itself waits for (a receive's registration, kfi_verbs_qp.c).
 *
 * Context: Any but hard interrupts; never sleeps.
 */
void kfi_verbs_cq_unbusy(struct kfi_verbs_conn *c)
{
	if (time_before(jiffies, READ_ONCE(c->busy_until)))
		WRITE_ONCE(c->busy_until, jiffies);
	if (!test_bit(KFI_VERBS_CQ_UNARMED, &c->cq_flags))
		return;
	/* the softirq runs when bottom halves are enabled again */
	local_bh_disable();
	if (test_and_clear_bit(KFI_VERBS_CQ_UNARMED, &c->cq_flags))
		irq_poll_sched(&c->iop);
	local_bh_enable();
}

/**
 * kfi_verbs_conn_poll() - Handle completions of a connection's queue pair
 *	in the caller's context.
 * @c: The connection.
 * @budget: The most to handle.
 * @busy: The caller polls again soon (a non-blocking CQ read); false: it
 *	is about to sleep (a blocking read): nothing is polled, completion
 *	events go to the softirq poller again.
 *
 * A polling consumer's CQ read (its endpoint's CQs have no completion
 * handler) calls this, as a raw verbs consumer polls its CQ: completions
 * reach the kfabric CQ without waiting for the softirq poller, and while
 * the reads go on, completion events are left to them (see
 * kfi_verbs_cq_event()). Nothing is handled when the softirq poller (or
 * another reader) is at it, or when the connection has no completion
 * queue.
 *
 * Context: Any but hard interrupts; takes @cq_lock with bottom halves
 * disabled, so the done functions run as from the softirq poller.
 * Return: The number of completions handled.
 */
int kfi_verbs_conn_poll(struct kfi_verbs_conn *c, int budget, bool busy)
{
	unsigned long until;
	int done = 0;

	if (!busy) {
		/*
		 * The reader sleeps until an entry is queued: the softirq
		 * poller hands them over (polling here would only save it a
		 * run when completions are already there).
		 */
		kfi_verbs_cq_unbusy(c);
		return 0;
	}
	until = jiffies + KFI_VERBS_BUSY_JIFFIES;
	if (READ_ONCE(c->busy_until) != until)
		WRITE_ONCE(c->busy_until, until);
	if (!spin_trylock_bh(&c->cq_lock))
		return 0;
	if (c->poll_cq)
		done = kfi_verbs_cq_process(c, budget);
	spin_unlock_bh(&c->cq_lock);
	return done;
}

/*
 * Creates the completion queue of @c on @d's device (its lock held for
 * read, the device present) and arms it.
 */
static int kfi_verbs_cq_create(struct kfi_verbs_conn *c,
			       struct kfi_verbs_dev *d)
{
	struct ib_cq_init_attr ca = { .cqe = c->cq_size };
	struct ib_cq *cq;

	if (d->ib->num_comp_vectors > 1)
		ca.comp_vector = (unsigned int)atomic_inc_return(&kfi_verbs_cq_next) %
				 d->ib->num_comp_vectors;
	cq = ib_create_cq(d->ib, kfi_verbs_cq_event, NULL, c, &ca);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	c->cq = cq;
	irq_poll_init(&c->iop, KFI_VERBS_POLL_BUDGET, kfi_verbs_cq_poll);
	timer_setup(&c->cq_timer, kfi_verbs_cq_timer, 0);
	c->busy_until = jiffies;
	c->cq_flags = 0;
	spin_lock_bh(&c->cq_lock);
	c->poll_cq = cq;
	spin_unlock_bh(&c->cq_lock);
	ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	return 0;
}

/*
 * Destroys the completion queue of @c (its queue pair destroyed): no poller
 * runs on it after this.
 */
static void kfi_verbs_cq_destroy(struct kfi_verbs_conn *c)
{
	spin_lock_bh(&c->cq_lock);
	c->poll_cq = NULL;
	spin_unlock_bh(&c->cq_lock);
	timer_shutdown_sync(&c->cq_timer);
	irq_poll_disable(&c->iop);
	ib_destroy_cq(c->cq);
	c->cq = NULL;
}

/*
 * Creates the queue pair of @c on its device, which must be that of @id
 * (-EXDEV if not). Called from the handler (active side) or with the
 * handler mutex held (kfi_verbs_conn_take()).
 */
static int kfi_verbs_qp_create(struct kfi_verbs_conn *c,
			       struct rdma_cm_id *id)
{
	struct kfi_verbs_dev *d = c->dev;
	struct ib_qp_init_attr a = {};
	u32 nmrs, pages;
	int ret = 0;

	down_read(&d->lock);
	if (!d->ib) {
		ret = -ENODEV;
		goto out;
	}
	if (id->device != d->ib) {
		ret = -EXDEV;
		goto out;
	}
	if (c->sq + 1 > d->ib->attrs.max_qp_wr ||
	    c->rq + 1 > d->ib->attrs.max_qp_wr) {
		ret = -EINVAL;
		goto out;
	}
	/*
	 * The pool of per-operation fast registrations: each operation that
	 * holds one of its ib_mrs adds up to two work requests (LOCAL_INV,
	 * REG_MR) before its own on the send queue.
	 */
	nmrs = min_t(u32, c->sq, KFI_VERBS_QP_MRS);
	while (nmrs && c->sq + 1 + 2 * nmrs > d->ib->attrs.max_qp_wr)
		nmrs /= 2;
	/* one more work request each way for ib_drain_qp() */
	c->cq_size = c->sq + 2 * nmrs + c->rq + 2;
	if (c->cq_size > d->ib->attrs.max_cqe) {
		ret = -EINVAL;
		goto out;
	}
	ret = kfi_verbs_cq_create(c, d);
	if (ret)
		goto out;
	a.qp_context = c;
	a.send_cq = c->cq;
	a.recv_cq = c->cq;
	a.cap.max_send_wr = c->sq + 1 + 2 * nmrs;
	a.cap.max_recv_wr = c->rq + 1;
	a.cap.max_send_sge = min_t(u32, KFI_VERBS_SGE_MAX,
				   d->ib->attrs.max_send_sge);
	a.cap.max_recv_sge = min_t(u32, KFI_VERBS_SGE_MAX,
				   d->ib->attrs.max_recv_sge);
	a.cap.max_inline_data = KFI_VERBS_INLINE;
	a.sq_sig_type = IB_SIGNAL_REQ_WR;
	a.qp_type = IB_QPT_RC;
	ret = rdma_create_qp(id, d->pd, &a);
	if (ret == -EINVAL && a.cap.max_inline_data) {
		/* a device without inline sends */
		a.cap.max_inline_data = 0;
		ret = rdma_create_qp(id, d->pd, &a);
	}
	if (ret) {
		kfi_verbs_cq_destroy(c);
		goto out;
	}
	pages = min_t(u32, KFI_VERBS_MR_PAGES,
		      d->ib->attrs.max_fast_reg_page_list_len);
	if (nmrs) {
		ret = ib_mr_pool_init(id->qp, &id->qp->rdma_mrs, nmrs,
				      IB_MR_TYPE_MEM_REG, pages, 0);
		if (ret) {
			rdma_destroy_qp(id);
			kfi_verbs_cq_destroy(c);
			goto out;
		}
	}
	c->nmrs = nmrs;
	c->iwarp = rdma_protocol_iwarp(d->ib, id->port_num);
	c->qp_id = id;
	/* the device's answers: what the queue pair really holds */
	c->max_inline = a.cap.max_inline_data;
	c->max_send_sge = a.cap.max_send_sge;
	c->max_recv_sge = a.cap.max_recv_sge;
	spin_lock_bh(&c->post_lock);
	c->post_qp = id->qp;
	spin_unlock_bh(&c->post_lock);
	mutex_lock(&d->conns_lock);
	list_add_tail(&c->node, &d->conns);
	mutex_unlock(&d->conns_lock);
out:
	up_read(&d->lock);
	return ret;
}

/*
 * Drains the queue pair of @c once (ib_drain_qp(): every work request
 * posted completes, flushed); a second caller waits for the first. With
 * the device's lock held (either way) and the queue pair existing.
 */
static void kfi_verbs_drain(struct kfi_verbs_conn *c)
{
	mutex_lock(&c->drain_lock);
	if (!c->drained) {
		ib_drain_qp(c->qp_id->qp);
		c->drained = true;
	}
	mutex_unlock(&c->drain_lock);
}

/*
 * Destroys the queue pair of @c, if any: every work request still posted
 * completes (flushed) first. With the device's lock held (read: the
 * owner's teardown; write: the device's removal).
 */
static void kfi_verbs_qp_destroy_locked(struct kfi_verbs_conn *c)
{
	if (!c->cq)
		return;
	/* no post after this; every one before completes in the drain */
	spin_lock_bh(&c->post_lock);
	c->post_qp = NULL;
	spin_unlock_bh(&c->post_lock);
	kfi_verbs_drain(c);
	rdma_destroy_qp(c->qp_id);
	c->qp_id = NULL;
	kfi_verbs_cq_destroy(c);
	mutex_lock(&c->dev->conns_lock);
	list_del_init(&c->node);
	mutex_unlock(&c->dev->conns_lock);
}

/**
 * kfi_verbs_conns_remove() - Destroy the queue pair of every connection
 *	on a device that goes away.
 * @d: The device, its @lock held for write.
 *
 * The connections' ids stay; rdma_cm's removal, which comes after, reports
 * DEVICE_REMOVAL on each and the connection's @remove_work destroys it.
 *
 * Context: Process context (the ib_client's remove callback).
 */
void kfi_verbs_conns_remove(struct kfi_verbs_dev *d)
{
	struct kfi_verbs_conn *c;

	/*
	 * A connection's @qp_id cannot go meanwhile: whoever destroys the id
	 * destroys the queue pair first, under the device's lock, which
	 * this holds.
	 */
	while ((c = list_first_entry_or_null(&d->conns, struct kfi_verbs_conn,
					     node)))
		kfi_verbs_qp_destroy_locked(c);
}

/* Reports @type to an endpoint's owner. */
static void kfi_verbs_report(struct kfi_verbs_conn *c, int type, int status,
			     const void *pdata, u8 len)
{
	struct kfi_verbs_cm_ev e = {
		.type = type,
		.status = status,
		.pdata = pdata,
		.pdata_len = pdata ? len : 0,
	};

	void *ctx = READ_ONCE(c->ctx);

	if (ctx && c->rdm)
		kfi_verbs_rdm_cm_event(ctx, &e);
	else if (ctx)
		kfi_verbs_ep_cm_event(ctx, &e);
}

/*
 * CONNECT_REQUEST on a listening id (rdma_cm holds the listener's handler
 * mutex too): @id is the request's new id, @l the listener. The request
 * becomes a connection of kind KFI_VERBS_CONN_REQ offered to the passive
 * endpoint; non-zero makes rdma_cm destroy @id.
 */
static int kfi_verbs_cm_connreq(struct kfi_verbs_conn *l,
				struct rdma_cm_id *id,
				struct rdma_cm_event *ev)
{
	struct kfi_verbs_conn *c;
	struct kfi_verbs_cm_ev e = {
		.type = KFI_VERBS_EV_CONNREQ,
		.pdata = ev->param.conn.private_data,
		.pdata_len = ev->param.conn.private_data_len,
	};

	if (l->kind != KFI_VERBS_CONN_PEP || !READ_ONCE(l->ctx) ||
	    !kfi_verbs_conn_live(l))
		goto refuse;
	c = kfi_verbs_conn_alloc(KFI_VERBS_CONN_REQ);
	if (!c)
		goto refuse;
	c->dev = kfi_verbs_dev_of(id->device);
	if (!c->dev) {
		kfree(c);
		goto refuse;
	}
	if (kfi_verbs_dev_port(c->dev, id->port_num, &e.port) ||
	    kfi_util_addr_decode(&id->route.addr.src_addr, 0, &e.local) ||
	    kfi_util_addr_decode(&id->route.addr.dst_addr, 0, &e.peer))
		goto free;
	c->id = id;
	c->rdm = l->rdm;
	id->context = c;
	e.req = c;
	if (!e.pdata)
		e.pdata_len = 0;
	if (l->rdm ? kfi_verbs_rdm_pep_event(l->ctx, &e) == 0 :
		     kfi_verbs_pep_cm_event(l->ctx, &e) == 0)
		return 0;
	id->context = l;
free:
	kfi_verbs_dev_put(c->dev);
	kfree(c);
refuse:
	rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	return 1;
}

/*
 * After DEVICE_REMOVAL: once no consumer's call uses the id, it is taken
 * (unless the owner's teardown took it first), the owner told, and the id
 * destroyed, which ends rdma_cm's removal.
 */
static void kfi_verbs_remove_work(struct work_struct *w)
{
	struct kfi_verbs_conn *c = container_of(w, struct kfi_verbs_conn,
						remove_work);
	struct kfi_verbs_cm_ev e = { .type = KFI_VERBS_EV_REMOVED,
				     .status = -ENODEV };
	struct rdma_cm_id *id;
	void *ctx;

	wait_var_event(&c->users, kfi_verbs_conn_idle(c));
	spin_lock(&c->lock);
	id = c->closing ? NULL : c->id;
	if (id)
		c->id = NULL;
	spin_unlock(&c->lock);
	if (!id)
		return;
	/* (the owner's teardown waits for this work before going) */
	ctx = READ_ONCE(c->ctx);
	/*
	 * By what @c is. A connectionless endpoint's listener is owned by
	 * its connection map, which learns nothing from the removal (its
	 * connections tell their own); a request not taken yet, by nobody.
	 */
	if (ctx && c->kind == KFI_VERBS_CONN_EP) {
		if (c->rdm)
			kfi_verbs_rdm_cm_event(ctx, &e);
		else
			kfi_verbs_ep_cm_event(ctx, &e);
	} else if (ctx && c->kind == KFI_VERBS_CONN_PEP && !c->rdm) {
		kfi_verbs_pep_cm_event(ctx, &e);
	}
	rdma_destroy_id(id);
}

/*
 * DEVICE_REMOVAL (rdma_cm's removal, after kfi_verbs_conns_remove()): the
 * id is left to @remove_work (rdma_cm waits for its destruction).
 */
static int kfi_verbs_cm_removal(struct kfi_verbs_conn *c)
{
	bool queue;

	spin_lock(&c->lock);
	queue = !c->closing && !c->removed && c->id;
	c->removed = true;
	spin_unlock(&c->lock);
	if (queue)
		queue_work(system_unbound_wq, &c->remove_work);
	return 0;
}

/* The status of a failed resolution or connection, as a negative errno. */
static int kfi_verbs_cm_status(const struct rdma_cm_event *ev)
{
	switch (ev->status) {
	case -ECONNREFUSED:
	case -ECONNRESET:
	case -ENETUNREACH:
	case -EHOSTUNREACH:
	case -EADDRNOTAVAIL:
		return ev->status;
	default:
		return -ETIMEDOUT;
	}
}

static void kfi_verbs_conn_param(struct rdma_cm_id *id,
				 struct rdma_conn_param *p,
				 const void *pdata, size_t len)
{
	const struct ib_device_attr *a = &id->device->attrs;

	memset(p, 0, sizeof(*p));
	p->private_data = pdata;
	p->private_data_len = len;
	p->responder_resources = clamp(a->max_qp_rd_atom, 0, 255);
	p->initiator_depth = clamp(a->max_qp_init_rd_atom, 0, 255);
	p->flow_control = 1;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

/* ADDR_RESOLVED and ROUTE_RESOLVED: the next step of a connect. */
static void kfi_verbs_cm_resolved(struct kfi_verbs_conn *c,
				  struct rdma_cm_id *id, bool route)
{
	struct rdma_conn_param p;
	int ret;

	if (!route) {
		ret = kfi_verbs_qp_create(c, id);
		if (!ret) {
			/* receives go on before the peer can send */
			kfi_verbs_report(c, KFI_VERBS_EV_QP, 0, NULL, 0);
			ret = rdma_resolve_route(id, KFI_VERBS_RESOLVE_MS);
		}
	} else {
		kfi_verbs_conn_param(id, &p, c->pdata, c->pdata_len);
		ret = rdma_connect_locked(id, &p);
	}
	if (ret) {
		/* receives posted at EV_QP are flushed before the error */
		kfi_verbs_conn_quiesce(c);
		kfi_verbs_report(c, KFI_VERBS_EV_ERROR,
				 ret == -EXDEV ? -ENODEV : ret, NULL, 0);
	}
}

static int kfi_verbs_cm_handler(struct rdma_cm_id *id,
				struct rdma_cm_event *ev)
{
	struct kfi_verbs_conn *c = id->context;
	const void *data;
	u8 len;

	if (trace_kfi_conn_enabled())
		trace_kfi_conn(KBUILD_MODNAME, c, READ_ONCE(c->ctx),
			       (struct sockaddr *)&id->route.addr.dst_addr,
			       "rdma_cm", rdma_event_msg(ev->event));
	if (ev->status && trace_kfi_error_enabled())
		trace_kfi_error(KBUILD_MODNAME, c, -ev->status,
				rdma_event_msg(ev->event));
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return kfi_verbs_cm_connreq(c, id, ev);
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		return kfi_verbs_cm_removal(c);
	/* a request not taken yet learns it when accepted; a pep, never */
	if (c->kind != KFI_VERBS_CONN_EP || !kfi_verbs_conn_live(c))
		return 0;
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		kfi_verbs_cm_resolved(c, id, false);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		kfi_verbs_cm_resolved(c, id, true);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		c->connected = true;
		data = ev->param.conn.private_data;
		kfi_verbs_report(c, KFI_VERBS_EV_ESTABLISHED, 0, data,
				 ev->param.conn.private_data_len);
		break;
	case RDMA_CM_EVENT_REJECTED:
		kfi_verbs_conn_quiesce(c);
		data = rdma_consumer_reject_data(id, ev, &len);
		/*
		 * siw reports an MPA reject, which carries the peer's private
		 * data, with -ECONNRESET, which rdma_consumer_reject_data()
		 * does not take for a consumer's reject on iWARP.
		 */
		if (!data && rdma_protocol_iwarp(id->device, id->port_num) &&
		    ev->param.conn.private_data &&
		    ev->param.conn.private_data_len) {
			data = ev->param.conn.private_data;
			len = ev->param.conn.private_data_len;
		}
		kfi_verbs_report(c, KFI_VERBS_EV_ERROR, -ECONNREFUSED, data,
				 len);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		kfi_verbs_conn_quiesce(c);
		kfi_verbs_report(c, KFI_VERBS_EV_ERROR, kfi_verbs_cm_status(ev),
				 NULL, 0);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		/* what was posted completes (flushed) before the news */
		kfi_verbs_conn_quiesce(c);
		kfi_verbs_report(c, KFI_VERBS_EV_DISCONNECTED, 0, NULL, 0);
		break;
	default:
		break;
	}
	return 0;
}

/**
 * kfi_verbs_conn_take() - Make a connection request an endpoint's: its
 *	queue pair is created on the domain's device and later events go to
 *	the endpoint once it is the owner (kfi_verbs_conn_set_owner()).
 * @c: The request (KFI_VERBS_CONN_REQ, from KFI_VERBS_EV_CONNREQ).
 * @dev: The domain's device.
 * @sq: Send queue depth.
 * @rq: Receive queue depth.
 *
 * On failure the request stays a request.
 *
 * Context: Process context (sleeps; takes the id's handler mutex, so never
 * called with a lock the owner's event function takes).
 * Return: 0; -ENODEV if the device went away; -EINVAL if the request
 * is not on @dev or for depths the device cannot hold; another errno.
 */
int kfi_verbs_conn_take(struct kfi_verbs_conn *c, struct kfi_verbs_dev *dev,
			unsigned int sq, unsigned int rq)
{
	struct rdma_cm_id *id;
	int ret;

	if (c->dev != dev)
		return -EINVAL;
	id = kfi_verbs_conn_get(c);
	if (!id)
		return -ENODEV;
	rdma_lock_handler(id);
	c->sq = sq;
	c->rq = rq;
	ret = kfi_verbs_qp_create(c, id);
	if (ret == -EXDEV)
		ret = -EINVAL;
	if (!ret)
		c->kind = KFI_VERBS_CONN_EP;
	rdma_unlock_handler(id);
	kfi_verbs_conn_put(c);
	return ret;
}

/**
 * kfi_verbs_conn_accept() - Accept a request taken by an endpoint.
 * @c: The connection (taken: KFI_VERBS_CONN_EP with a queue pair).
 * @pdata: Private data of the reply (at most KFI_VERBS_PDATA_MAX).
 * @len: Its length.
 *
 * Context: Process context (sleeps; takes the handler mutex).
 * Return: 0 (ESTABLISHED or an error is reported later) or a negative
 * errno.
 */
int kfi_verbs_conn_accept(struct kfi_verbs_conn *c, const void *pdata,
			  size_t len)
{
	struct rdma_conn_param p;
	struct rdma_cm_id *id;
	int ret;

	if (len > KFI_VERBS_PDATA_MAX)
		return -EINVAL;
	id = kfi_verbs_conn_get(c);
	if (!id)
		return -ENODEV;
	rdma_lock_handler(id);
	if (c->cq) {
		kfi_verbs_conn_param(id, &p, pdata, len);
		ret = rdma_accept(id, &p);
	} else {
		ret = -ENODEV;
	}
	rdma_unlock_handler(id);
	kfi_verbs_conn_put(c);
	return ret;
}

/**
 * kfi_verbs_conn_reject() - Refuse a connection request.
 * @c: The request (KFI_VERBS_CONN_REQ).
 * @pdata: Private data for the peer (at most KFI_VERBS_PDATA_MAX).
 * @len: Its length.
 *
 * The request is then to be freed (kfi_verbs_conn_free()).
 *
 * Context: Process context (sleeps). Return: 0 or a negative errno.
 */
int kfi_verbs_conn_reject(struct kfi_verbs_conn *c, const void *pdata,
			  size_t len)
{
	struct rdma_cm_id *id;
	int ret;

	if (len > KFI_VERBS_PDATA_MAX)
		return -EINVAL;
	id = kfi_verbs_conn_get(c);
	if (!id)
		return -ENODEV;
	ret = rdma_reject(id, pdata, len, IB_CM_REJ_CONSUMER_DEFINED);
	kfi_verbs_conn_put(c);
	return ret;
}

/*
 * Ends a connection whose queue pair failed: disconnects it and, as the
 * peer's side may never answer (both ends disconnecting at once), reports
 * the end itself, under the handler mutex like any event (the owner
 * ignores a second DISCONNECTED).
 */
static void kfi_verbs_break_work(struct work_struct *w)
{
	struct kfi_verbs_conn *c = container_of(w, struct kfi_verbs_conn,
						break_work);
	struct rdma_cm_id *id = kfi_verbs_conn_get(c);

	if (!id)
		return;
	rdma_disconnect(id);
	rdma_lock_handler(id);
	if (kfi_verbs_conn_live(c)) {
		kfi_verbs_conn_quiesce(c);
		kfi_verbs_report(c, KFI_VERBS_EV_DISCONNECTED, 0, NULL, 0);
	}
	rdma_unlock_handler(id);
	kfi_verbs_conn_put(c);
}

/**
 * kfi_verbs_conn_broken() - A work request of the connection failed (not
 *	flushed): its queue pair is in the error state, so the connection
 *	is over. Disconnects it from process context and reports
 *	DISCONNECTED to the owner.
 * @c: The connection.
 *
 * Context: Any (a completion: softirq); does not sleep.
 */
void kfi_verbs_conn_broken(struct kfi_verbs_conn *c)
{
	spin_lock_bh(&c->post_lock);
	/* without a queue pair the connection is being torn down anyway */
	if (c->post_qp)
		queue_work(system_unbound_wq, &c->break_work);
	spin_unlock_bh(&c->post_lock);
}

/**
 * kfi_verbs_conn_quiesce() - Stop a connection's data path: no work
 *	request is posted after this, and every one posted before has
 *	completed (flushed, if the queue pair is in the error state, as it
 *	is once disconnected) when this returns.
 * @c: The connection.
 *
 * The queue pair stays until kfi_verbs_conn_close(). While the device is
 * being removed the removal drains it instead (as it destroys it), maybe
 * after this returns.
 *
 * Context: Process context (sleeps: waits for the completions).
 */
void kfi_verbs_conn_quiesce(struct kfi_verbs_conn *c)
{
	spin_lock_bh(&c->post_lock);
	c->post_qp = NULL;
	spin_unlock_bh(&c->post_lock);
	if (!c->dev)
		return;
	/*
	 * Not when the device's removal holds (or waits for) the lock: it
	 * destroys the queue pair, drained, and may wait for this very
	 * handler to return (siw's destroy waits for the iw_cm work this
	 * runs in), so waiting for the lock here could deadlock.
	 */
	if (!down_read_trylock(&c->dev->lock))
		return;
	if (c->cq)
		kfi_verbs_drain(c);
	up_read(&c->dev->lock);
}

/**
 * kfi_verbs_conn_disconnect() - Disconnect a connection (the peer gets
 *	DISCONNECTED).
 * @c: The connection.
 *
 * Context: Process context (sleeps). Return: 0 or a negative errno.
 */
int kfi_verbs_conn_disconnect(struct kfi_verbs_conn *c)
{
	struct rdma_cm_id *id = kfi_verbs_conn_get(c);
	int ret;

	if (!id)
		return -ENOTCONN;
	ret = rdma_disconnect(id);
	kfi_verbs_conn_put(c);
	return ret;
}

/**
 * kfi_verbs_conn_addr() - A connection's local or peer address.
 * @c: The connection.
 * @peer: The peer's (else the local one).
 * @out: The address.
 *
 * Context: Process context (sleeps: takes the handler mutex).
 * Return: 0; -ENOTCONN if there is none (not bound or resolved yet, or
 * the device went away).
 */
int kfi_verbs_conn_addr(struct kfi_verbs_conn *c, bool peer,
			struct kfi_util_addr *out)
{
	struct rdma_cm_id *id = kfi_verbs_conn_get(c);
	struct sockaddr *sa;
	int ret;

	if (!id)
		return -ENOTCONN;
	rdma_lock_handler(id);
	sa = (struct sockaddr *)(peer ? &id->route.addr.dst_addr :
				      &id->route.addr.src_addr);
	if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
		ret = -ENOTCONN;
	else
		ret = kfi_util_addr_decode(sa, rdma_addr_size(sa), out);
	rdma_unlock_handler(id);
	kfi_verbs_conn_put(c);
	return ret;
}

/**
 * kfi_verbs_conn_bound_addr() - The address a passive endpoint's id is
 *	bound to (fixed once it listens), read without the handler mutex:
 *	for callers holding locks the owner's event function takes.
 * @c: The connection (listening).
 * @out: The address.
 *
 * Context: Any but hard interrupts.
 * Return: 0; -ENOTCONN if it is not bound (or the device went away).
 */
int kfi_verbs_conn_bound_addr(struct kfi_verbs_conn *c,
			      struct kfi_util_addr *out)
{
	struct rdma_cm_id *id = kfi_verbs_conn_get(c);
	struct sockaddr *sa;
	int ret;

	if (!id)
		return -ENOTCONN;
	sa = (struct sockaddr *)&id->route.addr.src_addr;
	if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
		ret = -ENOTCONN;
	else
		ret = kfi_util_addr_decode(sa, rdma_addr_size(sa), out);
	kfi_verbs_conn_put(c);
	return ret;
}

/**
 * kfi_verbs_conn_close() - Tear a connection down: it is disconnected,
 *	the queue pair's work requests flushed, the queue pair, its
 *	completion queue and the id destroyed. Nothing is reported to the
 *	owner once this has returned; later calls on the connection fail
 *	(-ENODEV, -ENOTCONN). Idempotent.
 * @c: The connection (or request).
 *
 * Context: Process context (sleeps: waits for a running handler, the
 * removal work and the consumer's calls on @c; never called with a lock
 * the owner's event function takes).
 */
void kfi_verbs_conn_close(struct kfi_verbs_conn *c)
{
	struct rdma_cm_id *id;

	spin_lock(&c->lock);
	c->closing = true;
	id = c->id;
	c->id = NULL;
	spin_unlock(&c->lock);
	/* a removal reporting now, or about to find @closing */
	cancel_work_sync(&c->remove_work);
	wait_var_event(&c->users, kfi_verbs_conn_idle(c));
	if (id) {
		/* wait out a handler that started before @closing was set */
		rdma_lock_handler(id);
		rdma_unlock_handler(id);
		if (c->connected)
			rdma_disconnect(id);
	}
	if (c->dev) {
		down_read(&c->dev->lock);
		kfi_verbs_qp_destroy_locked(c);
		up_read(&c->dev->lock);
	}
	/* queued by a completion before the queue pair went: finds @closing */
	cancel_work_sync(&c->break_work);
	if (id)
		rdma_destroy_id(id);
}

/**
 * kfi_verbs_conn_free() - Close a connection (kfi_verbs_conn_close()) and
 *	free it.
 * @c: The connection (or request); NULL is ignored.
 *
 * Context: Process context (sleeps), as kfi_verbs_conn_close().
 */
void kfi_verbs_conn_free(struct kfi_verbs_conn *c)
{
	if (!c)
		return;
	kfi_verbs_conn_close(c);
	if (c->dev)
		kfi_verbs_dev_put(c->dev);
	kfree(c);
}
