// SPDX-License-Identifier: GPL-2.0
/*
 * kfi_verbs.ko, C side: the data path of a connection's queue pair
 * (Documentation/kfi_verbs.md, "Data transfers"). An endpoint owns a set of
 * work request contexts (struct kfi_verbs_wrs), one per transmit and per
 * receive slot of its queues (kfi_util/queues.rs): posting a slot maps its
 * buffer for the device (the protection domain's local_dma_lkey; never a
 * global rkey), builds one work request on the stack and posts it; its
 * completion, through the ib_cqe of the slot, unmaps the buffer and hands
 * the outcome to Rust (kfi_verbs_tx_done(), kfi_verbs_rx_done()).
 *
 * Contexts and locks: posts come from any context but hard interrupts
 * (under the endpoint's queue lock, a BH spinlock) and never sleep; the
 * connection's @post_lock (kfi_verbs_cm.c) keeps its queue pair from being
 * destroyed during a post. Completions run with bottom halves disabled
 * (the CQ's irq_poll handler, or a busy-polling consumer's CQ read; see
 * kfi_verbs_conn_poll()) under the connection's @cq_lock only, one at a
 * time in the device's order. Every work request posted completes exactly
 * once: with its status, or flushed (IB_WC_WR_FLUSH_ERR) when the queue
 * pair is drained before it is destroyed, so the contexts outlive every
 * completion as long as the owner frees them only after
 * kfi_verbs_conn_close().
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <rdma/ib_verbs.h>
#include <rdma/mr_pool.h>
#include <rdma/rdma_cm.h>

#include "verbs_sys.h"
#include "kfi_verbs_priv.h"
#include "../kfi_util/kfi_trace.h"

/**
 * struct kfi_verbs_wr - The context of one slot's work request.
 * @cqe: Its completion entry (@cqe.done: send or receive).
 * @set: The set it belongs to.
 * @ib: The device of the mappings in @sge while posted, else NULL.
 * @slot: The slot's index (transmit or receive, by @cqe.done).
 * @nsge: Mapped entries of @sge.
 * @dir: Their DMA direction.
 * @pages: Bit i set: @sge[i] was mapped from a page, else from a kernel
 *	address (each is unmapped the way it was mapped).
 * @sge: The scatter/gather list of the work request.
 * @mr: While posted through a fast registration of its own: the ib_mr,
 *	taken from @qp's pool; else NULL.
 * @qp: The queue pair @mr goes back to.
 * @sgl: The buffer's pages mapped into @mr (allocated at the post).
 * @nents: Entries of @sgl.
 * @inv_by_op: The work request invalidates @mr itself when it succeeds
 *	(RDMA READ with invalidate).
 * @reg: A receive slot's registration is posted: its completion is the
 *	REG_MR's (kfi_verbs_post_recv_reg()).
 * @scratch: Where an atomic without a result buffer puts the old value.
 */
struct kfi_verbs_wr {
	struct ib_cqe cqe;
	struct kfi_verbs_wrs *set;
	struct ib_device *ib;
	u32 slot;
	u8 nsge;
	u8 dir;
	u8 pages;
	struct ib_sge sge[KFI_VERBS_SGE_MAX];
	struct ib_mr *mr;
	struct ib_qp *qp;
	struct scatterlist *sgl;
	int nents;
	bool inv_by_op;
	bool reg;
	u64 scratch;
};

/**
 * struct kfi_verbs_wrs - The work request contexts of an endpoint.
 * @owner: The endpoint (Rust), passed to the completion functions.
 * @ntx: Transmit slots (@wr[0 .. @ntx)).
 * @nrx: Receive slots (@wr[@ntx .. @ntx + @nrx)).
 * @conn: The connection the set's work requests were last posted on
 *	(told when one fails).
 * @wr: The contexts.
 */
struct kfi_verbs_wrs {
	void *owner;
	bool rdm;
	unsigned int ntx;
	unsigned int nrx;
	struct kfi_verbs_conn *conn;
	struct kfi_verbs_wr wr[];
};

/* The status numbers kfi_verbs/logic/status.rs maps (module `wc`). */
static_assert(IB_WC_SUCCESS == 0 && IB_WC_LOC_LEN_ERR == 1 &&
	      IB_WC_LOC_PROT_ERR == 4 && IB_WC_WR_FLUSH_ERR == 5 &&
	      IB_WC_MW_BIND_ERR == 6 && IB_WC_LOC_ACCESS_ERR == 8 &&
	      IB_WC_REM_INV_REQ_ERR == 9 && IB_WC_REM_ACCESS_ERR == 10 &&
	      IB_WC_REM_OP_ERR == 11 && IB_WC_RETRY_EXC_ERR == 12 &&
	      IB_WC_RNR_RETRY_EXC_ERR == 13 && IB_WC_REM_INV_RD_REQ_ERR == 15 &&
	      IB_WC_REM_ABORT_ERR == 16 && IB_WC_RESP_TIMEOUT_ERR == 20);

static void kfi_verbs_send_done(struct ib_cq *cq, struct ib_wc *wc);
static void kfi_verbs_recv_done(struct ib_cq *cq, struct ib_wc *wc);

/**
 * kfi_verbs_wrs_alloc() - Allocate an endpoint's work request contexts.
 * @owner: The endpoint, passed to kfi_verbs_tx_done()/_rx_done().
 * @ntx: Transmit slots.
 * @nrx: Receive slots.
 *
 * Context: Process context (sleeps). Return: the set, or NULL without
 * memory.
 */
struct kfi_verbs_wrs *kfi_verbs_wrs_alloc(void *owner, unsigned int ntx,
					  unsigned int nrx)
{
	struct kfi_verbs_wrs *w;
	unsigned int i;

	w = kvzalloc(struct_size(w, wr, (size_t)ntx + nrx), GFP_KERNEL);
	if (!w)
		return NULL;
	w->owner = owner;
	w->ntx = ntx;
	w->nrx = nrx;
	for (i = 0; i < ntx + nrx; i++) {
		w->wr[i].set = w;
		w->wr[i].slot = i < ntx ? i : i - ntx;
		w->wr[i].cqe.done = i < ntx ? kfi_verbs_send_done :
					      kfi_verbs_recv_done;
	}
	return w;
}

/**
 * kfi_verbs_wrs_set_rdm() - Make work request contexts a connectionless
 *	endpoint's connection's: their completions go to
 *	kfi_verbs_rdm_tx_done()/_rx_done() with @owner. Before any is posted.
 * @w: The set.
 * @owner: The connection's owner (replaces the one given at allocation).
 *
 * Context: Any; before the set is used.
 */
void kfi_verbs_wrs_set_rdm(struct kfi_verbs_wrs *w, void *owner)
{
	w->owner = owner;
	w->rdm = true;
}

/**
 * kfi_verbs_wrs_free() - Free work request contexts.
 * @w: The set (NULL is ignored); none of its work requests is posted
 *	(the queue pair they were posted on is destroyed).
 *
 * Context: Process context.
 */
void kfi_verbs_wrs_free(struct kfi_verbs_wrs *w)
{
	if (!w)
		return;
	kvfree(w);
}

static void kfi_verbs_unmap(struct kfi_verbs_wr *wr)
{
	unsigned int i;

	for (i = 0; i < wr->nsge; i++) {
		if (wr->pages & BIT(i))
			ib_dma_unmap_page(wr->ib, wr->sge[i].addr,
					  wr->sge[i].length, wr->dir);
		else
			ib_dma_unmap_single(wr->ib, wr->sge[i].addr,
					    wr->sge[i].length, wr->dir);
	}
	wr->nsge = 0;
	wr->pages = 0;
	wr->ib = NULL;
}

/* Maps one piece of a segment into the next entry of @wr's list. */
static int kfi_verbs_map_one(struct kfi_verbs_wr *wr, struct ib_device *ib,
			     u32 lkey, struct page *page, void *addr,
			     unsigned int off, size_t len)
{
	struct ib_sge *sge;
	u64 dma;

	if (wr->nsge >= KFI_VERBS_SGE_MAX)
		return -E2BIG;
	if (page)
		dma = ib_dma_map_page(ib, page, off, len, wr->dir);
	else
		dma = ib_dma_map_single(ib, addr, len, wr->dir);
	if (ib_dma_mapping_error(ib, dma))
		return -ENOMEM;
	sge = &wr->sge[wr->nsge];
	sge->addr = dma;
	sge->length = len;
	sge->lkey = lkey;
	if (page)
		wr->pages |= BIT(wr->nsge);
	wr->nsge++;
	return 0;
}

/*
 * Maps up to @max bytes of @segs, from byte @skip on, into @wr's list
 * after what it holds, while entries are left (at most @limit), cut into
 * pieces as kfi_verbs_map() says, the last one shortened to what fits.
 * Sets @covered to the bytes mapped. Return: 0; -EINVAL for an address
 * of none of the kinds it takes; -ENOMEM when a mapping fails (the caller
 * unmaps what was mapped).
 */
static int kfi_verbs_map_range(struct kfi_verbs_wr *wr, struct ib_device *ib,
			       u32 lkey, const struct kfi_util_seg *segs,
			       unsigned int n, size_t skip, size_t max,
			       unsigned int limit, size_t *covered)
{
	unsigned int i;
	int ret = 0;

	*covered = 0;
	for (i = 0; i < n && !ret && *covered < max; i++) {
		const struct kfi_util_seg *s = &segs[i];
		size_t len = s->len, off = 0, part;
		u8 *p = s->base;

		if (skip >= len) {
			skip -= len;
			continue;
		}
		off = skip;
		skip = 0;
		len = min(len - off, max - *covered);
		if (s->page) {
			if (wr->nsge >= limit)
				break;
			ret = kfi_verbs_map_one(wr, ib, lkey, s->page, NULL,
						s->offset + off, len);
			if (!ret)
				*covered += len;
		} else if (virt_addr_valid(p)) {
			if (wr->nsge >= limit)
				break;
			ret = kfi_verbs_map_one(wr, ib, lkey, NULL, p + off, 0,
						len);
			if (!ret)
				*covered += len;
		} else if (!is_vmalloc_or_module_addr(p)) {
			ret = -EINVAL;
		} else {
			for (p += off; len && !ret; len -= part, p += part) {
				part = min_t(size_t, len,
					     PAGE_SIZE - offset_in_page(p));
				if (wr->nsge >= limit)
					return 0;
				ret = kfi_verbs_map_one(wr, ib, lkey,
							vmalloc_to_page(p),
							NULL,
							offset_in_page(p),
							part);
				if (!ret)
					*covered += part;
			}
		}
	}
	return ret;
}

/*
 * Maps @segs into @wr's list: a page segment as one entry (it may span
 * pages: the pages of a bio_vec or scatterlist entry are contiguous), an
 * address in the kernel's linear map as one, a vmalloc or module address
 * (a vmalloc'ed buffer, a stack, a module's constant) as one per page,
 * through its page (devices that work on kernel addresses, as rxe does,
 * take them from the linear map). More entries than @max (or than the
 * list holds): -E2BIG; an address of none of these kinds: -EINVAL;
 * nothing stays mapped on failure.
 */
static int kfi_verbs_map(struct kfi_verbs_wr *wr, struct ib_device *ib,
			 u32 lkey, const struct kfi_util_seg *segs,
			 unsigned int n, int max, enum dma_data_direction dir)
{
	size_t total = 0, covered;
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		if (segs[i].len > U32_MAX)
			return -EINVAL;
		total += segs[i].len;
	}
	wr->ib = ib;
	wr->dir = dir;
	wr->nsge = 0;
	wr->pages = 0;
	ret = kfi_verbs_map_range(wr, ib, lkey, segs, n, 0, total,
				  min_t(unsigned int, max, KFI_VERBS_SGE_MAX),
				  &covered);
	if (!ret && covered < total)
		ret = -E2BIG;
	if (ret)
		kfi_verbs_unmap(wr);
	return ret;
}

/* Ends @wr's own fast registration: @mr back to the pool, pages unmapped. */
static void kfi_verbs_frwr_end(struct kfi_verbs_wr *wr, bool invalidated)
{
	struct ib_mr *mr = wr->mr;

	mr->need_inval = !invalidated;
	ib_mr_pool_put(wr->qp, &wr->qp->rdma_mrs, mr);
	ib_dma_unmap_sg(wr->qp->device, wr->sgl, wr->nents, wr->dir);
	kfree(wr->sgl);
	wr->sgl = NULL;
	wr->mr = NULL;
}

/* A fast registration being posted: its work requests, the key to restore. */
struct kfi_verbs_frwr {
	struct ib_send_wr inv;
	struct ib_reg_wr reg;
	struct ib_send_wr *first;
	u32 old_key;
};

/*
 * Prepares a fast registration of @wr's own over @segs (@nents
 * scatterlist entries, mapped for @wr->dir): the page list (GFP_ATOMIC)
 * in an ib_mr of @qp's pool (@wr->mr), its REG_MR with the next key byte
 * and @access in @f->reg, after a LOCAL_INV of the last key when it is
 * still valid; @f->first is the first work request to post. Return: 0;
 * -EAGAIN without memory or a free ib_mr; -ENOMEM when the pages cannot
 * be mapped; -EINVAL for pieces that do not meet on page boundaries (they
 * map short) or more pages than an ib_mr holds. Nothing is held on
 * failure.
 */
static int kfi_verbs_frwr_get(struct ib_qp *qp, struct kfi_verbs_wr *wr,
			      const struct kfi_util_seg *segs, unsigned int n,
			      int nents, int access, struct kfi_verbs_frwr *f)
{
	struct ib_mr *mr;
	int mapped, ret;

	wr->sgl = kmalloc_array(nents, sizeof(*wr->sgl), GFP_ATOMIC);
	if (!wr->sgl)
		return -EAGAIN;
	sg_init_table(wr->sgl, nents);
	kfi_verbs_segs_sg(segs, n, wr->sgl);
	wr->nents = nents;
	wr->qp = qp;
	mapped = ib_dma_map_sg(qp->device, wr->sgl, nents, wr->dir);
	if (!mapped) {
		ret = -ENOMEM;
		goto free;
	}
	mr = ib_mr_pool_get(qp, &qp->rdma_mrs);
	if (!mr) {
		/* every ib_mr of the pool is in use: try again later */
		ret = -EAGAIN;
		goto unmap;
	}
	if (ib_map_mr_sg(mr, wr->sgl, mapped, NULL, PAGE_SIZE) != mapped) {
		ib_mr_pool_put(qp, &qp->rdma_mrs, mr);
		ret = -EINVAL;
		goto unmap;
	}
	f->inv = (struct ib_send_wr){ .opcode = IB_WR_LOCAL_INV };
	f->reg = (struct ib_reg_wr){ .wr.opcode = IB_WR_REG_MR };
	f->first = &f->reg.wr;
	f->old_key = mr->rkey;
	if (mr->need_inval) {
		f->inv.ex.invalidate_rkey = mr->rkey;
		f->inv.next = &f->reg.wr;
		f->first = &f->inv;
	}
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	f->reg.mr = mr;
	f->reg.key = mr->rkey;
	f->reg.access = access;
	wr->mr = mr;
	return 0;
unmap:
	ib_dma_unmap_sg(qp->device, wr->sgl, nents, wr->dir);
free:
	kfree(wr->sgl);
	wr->sgl = NULL;
	return ret;
}

/*
 * The post of @f failed at @bad before its REG_MR went: the device knows
 * the ib_mr's old key (still valid, or invalidated by a LOCAL_INV that
 * was posted); the ib_mr and the pages go back.
 */
static void kfi_verbs_frwr_unget(struct kfi_verbs_wr *wr,
				 const struct kfi_verbs_frwr *f,
				 const struct ib_send_wr *bad)
{
	struct ib_mr *mr = wr->mr;

	ib_update_fast_reg_key(mr, f->old_key & 0xff);
	if (bad == &f->reg.wr && f->first == &f->inv)
		mr->need_inval = false;
	ib_mr_pool_put(wr->qp, &wr->qp->rdma_mrs, mr);
	wr->mr = NULL;
	ib_dma_unmap_sg(wr->qp->device, wr->sgl, wr->nents, wr->dir);
	kfree(wr->sgl);
	wr->sgl = NULL;
}

/*
 * Posts @op (its remaining fields set by the caller) over a fast
 * registration of its own: the buffer's pages (@r's segments, @nents
 * scatterlist entries) mapped into an ib_mr of @qp's pool and made valid
 * by a REG_MR (after a LOCAL_INV of the ib_mr's last key when it is still
 * valid) chained before @op, which then names it with one entry. The
 * REG_MR grants local write, and for an iWARP READ sink remote write (the
 * peer's read response is a write into it); such a READ invalidates the
 * ib_mr itself. The ib_mr and pages go back at @op's completion.
 * Return: 0 or as kfi_verbs_post_send().
 */
static int kfi_verbs_post_frwr(struct kfi_verbs_conn *c, struct ib_qp *qp,
			       struct kfi_verbs_wr *wr,
			       const struct kfi_verbs_sq_req *r, int nents,
			       struct ib_send_wr *op)
{
	bool sink = r->op == KFI_VERBS_OP_READ && c->iwarp;
	const struct ib_send_wr *bad = NULL;
	struct kfi_verbs_frwr f;
	struct ib_mr *mr;
	int ret;

	if (!c->nmrs)
		return -EINVAL;
	ret = kfi_verbs_frwr_get(qp, wr, r->segs, r->nseg, nents,
				 IB_ACCESS_LOCAL_WRITE |
				 (sink ? IB_ACCESS_REMOTE_WRITE : 0), &f);
	if (ret)
		return ret;
	mr = wr->mr;
	f.reg.wr.next = op;
	wr->sge[0].addr = mr->iova;
	wr->sge[0].length = mr->length;
	wr->sge[0].lkey = mr->lkey;
	op->sg_list = wr->sge;
	op->num_sge = 1;
	wr->inv_by_op = sink;
	if (sink) {
		op->opcode = IB_WR_RDMA_READ_WITH_INV;
		op->ex.invalidate_rkey = mr->rkey;
	}
	ret = ib_post_send(qp, f.first, &bad);
	if (!ret)
		return 0;
	if (bad == f.first || bad == &f.reg.wr)
		kfi_verbs_frwr_unget(wr, &f, bad);
	else
		/* the registration was posted, the operation not: valid */
		kfi_verbs_frwr_end(wr, false);
	return ret == -ENOTCONN ? -EAGAIN : ret;
}

/*
 * The kernel virtual addresses of @r's segments in @wr's list, for an
 * inline send (the device copies them at the post): a segment's own, or
 * its page's in the linear map. False if they do not fit or a page has
 * no such address (high memory); @wr->nsge is the entries set.
 */
static bool kfi_verbs_inline_sges(struct kfi_verbs_wr *wr,
				  const struct kfi_verbs_sq_req *r)
{
	unsigned int i;
	u8 *va;

	wr->nsge = 0;
	for (i = 0; i < r->nseg; i++) {
		const struct kfi_util_seg *s = &r->segs[i];

		if (!s->len)
			continue;
		if (wr->nsge >= KFI_VERBS_SGE_MAX)
			return false;
		va = s->page ? page_address(s->page) : s->base;
		if (!va)
			return false;
		if (s->page)
			va += s->offset;
		wr->sge[wr->nsge].addr = (uintptr_t)va;
		wr->sge[wr->nsge].length = s->len;
		wr->sge[wr->nsge].lkey = 0;
		wr->nsge++;
	}
	return true;
}

/*
 * The outcome of a post of @wr: a refused one is unmapped; siw refuses
 * posts with -ENOTCONN while its queue pair changes state, which is
 * -EAGAIN to the caller (retry).
 */
static int kfi_verbs_posted(struct kfi_verbs_wr *wr, int ret)
{
	if (ret)
		kfi_verbs_unmap(wr);
	return ret == -ENOTCONN ? -EAGAIN : ret;
}

/*
 * Posts the atomic @r of slot @wr on @qp: one 8-byte SGE on its result
 * buffer (or the slot's scratch word), mapped for the device to write.
 */
static int kfi_verbs_post_atomic(struct kfi_verbs_conn *c, struct ib_qp *qp,
				 struct kfi_verbs_wr *wr,
				 const struct kfi_verbs_sq_req *r)
{
	struct kfi_util_seg res = {
		.base = r->result ? r->result : &wr->scratch,
		.len = sizeof(u64),
	};
	struct ib_atomic_wr aw = {
		.wr.opcode = r->op == KFI_VERBS_OP_CMP_SWAP ?
			     IB_WR_ATOMIC_CMP_AND_SWP :
			     IB_WR_ATOMIC_FETCH_AND_ADD,
		.wr.send_flags = IB_SEND_SIGNALED |
				 (r->fence ? IB_SEND_FENCE : 0),
		.wr.wr_cqe = &wr->cqe,
		.remote_addr = r->raddr,
		.compare_add = r->compare_add,
		.swap = r->swap,
		.rkey = r->rkey,
	};
	int ret;

	ret = kfi_verbs_map(wr, qp->device, qp->pd->local_dma_lkey, &res, 1,
			    c->max_send_sge, DMA_FROM_DEVICE);
	if (ret)
		return ret;
	aw.wr.sg_list = wr->sge;
	aw.wr.num_sge = wr->nsge;
	return kfi_verbs_posted(wr, ib_post_send(qp, &aw.wr, NULL));
}

static enum ib_wr_opcode kfi_verbs_opcode(const struct kfi_verbs_sq_req *r)
{
	switch (r->op) {
	case KFI_VERBS_OP_WRITE:
		return r->imm ? IB_WR_RDMA_WRITE_WITH_IMM : IB_WR_RDMA_WRITE;
	case KFI_VERBS_OP_READ:
		return IB_WR_RDMA_READ;
	default:
		return r->imm ? IB_WR_SEND_WITH_IMM : IB_WR_SEND;
	}
}

/**
 * kfi_verbs_post_send() - Post a transmit slot's work request.
 * @c: The endpoint's connection.
 * @w: The endpoint's contexts.
 * @slot: The transmit slot (below the set's @ntx), not posted now.
 * @r: What to post; its segments (and their memory) stay valid until the
 *	slot completes.
 *
 * A send's or write's bytes are read by the device until the completion,
 * except for an inline one (@r->inline_ok and no larger than the queue
 * pair's inline size: copied now, not mapped). One completion follows a 0
 * return, through kfi_verbs_tx_done().
 *
 * Context: Any but hard interrupts; never sleeps.
 * A buffer of more pieces than a work request holds, and the sink of an
 * RDMA READ on iWARP, go through a fast registration of their own
 * (kfi_verbs_post_frwr()).
 *
 * Return: 0; -ENOTCONN without a queue pair (none yet, or destroyed);
 * -EAGAIN when the device cannot take it now (siw while its queue pair
 * changes state; every registration of the queue pair's pool in use, or
 * no memory for the page list); -EINVAL for a buffer one registration
 * cannot map (pieces that do not meet on page boundaries, more than its
 * pages) or an unknown @r->op; -ENOMEM when a buffer cannot be mapped;
 * the device's error (-ENOMEM when its send queue is full).
 */
int kfi_verbs_post_send(struct kfi_verbs_conn *c, struct kfi_verbs_wrs *w,
			unsigned int slot, const struct kfi_verbs_sq_req *r)
{
	struct kfi_verbs_wr *wr;
	struct ib_rdma_wr rw = {};
	struct ib_send_wr *s = &rw.wr;
	enum dma_data_direction dir = DMA_TO_DEVICE;
	struct ib_qp *qp;
	size_t total = 0;
	bool frwr = false;
	unsigned int i;
	int nents = 0, ret;

	if (slot >= w->ntx || r->op < KFI_VERBS_OP_SEND ||
	    r->op > KFI_VERBS_OP_CMP_SWAP || r->nseg > KFI_UTIL_IOV_MAX)
		return -EINVAL;
	if (r->op == KFI_VERBS_OP_READ) {
		if (r->imm)
			return -EINVAL;
		dir = DMA_FROM_DEVICE;
	}
	wr = &w->wr[slot];
	WRITE_ONCE(w->conn, c);
	for (i = 0; i < r->nseg; i++)
		total += r->segs[i].len;
	spin_lock_bh(&c->post_lock);
	qp = c->post_qp;
	if (!qp) {
		ret = -ENOTCONN;
		goto out;
	}
	if (r->op >= KFI_VERBS_OP_FETCH_ADD) {
		ret = kfi_verbs_post_atomic(c, qp, wr, r);
		goto out;
	}
	if (r->inline_ok && dir == DMA_TO_DEVICE && total &&
	    total <= c->max_inline && kfi_verbs_inline_sges(wr, r)) {
		/* copied by ib_post_send(): nothing to map */
		rw.wr.send_flags |= IB_SEND_INLINE;
		s->sg_list = wr->sge;
		s->num_sge = wr->nsge;
		wr->nsge = 0;
		wr->ib = NULL;
	} else {
		/* an iWARP READ sink is always registered (below) */
		if (c->iwarp && r->op == KFI_VERBS_OP_READ) {
			wr->nsge = 0;
			wr->ib = NULL;
			ret = -E2BIG;
		} else {
			ret = kfi_verbs_map(wr, qp->device,
					    qp->pd->local_dma_lkey, r->segs,
					    r->nseg, c->max_send_sge, dir);
		}
		if (ret == -E2BIG) {
			/* more pieces than a work request holds */
			nents = kfi_verbs_segs_sg(r->segs, r->nseg, NULL);
			ret = nents < 0 ? nents : 0;
			frwr = nents > 0;
		}
		if (ret)
			goto out;
		s->sg_list = wr->sge;
		s->num_sge = wr->nsge;
	}
	s->wr_cqe = &wr->cqe;
	s->opcode = kfi_verbs_opcode(r);
	s->send_flags |= IB_SEND_SIGNALED;
	if (r->fence)
		s->send_flags |= IB_SEND_FENCE;
	if (r->imm)
		s->ex.imm_data = cpu_to_be32(r->imm_data);
	if (r->op != KFI_VERBS_OP_SEND) {
		rw.remote_addr = r->raddr;
		rw.rkey = r->rkey;
	}
	if (frwr) {
		wr->dir = dir;
		wr->nsge = 0;
		wr->ib = NULL;
		ret = kfi_verbs_post_frwr(c, qp, wr, r, nents, s);
		goto out;
	}
	ret = kfi_verbs_posted(wr, ib_post_send(qp, s, NULL));
out:
	spin_unlock_bh(&c->post_lock);
	return ret;
}

/**
 * kfi_verbs_post_recv() - Post a receive slot's buffer.
 * @c: The endpoint's connection.
 * @w: The endpoint's contexts.
 * @slot: The receive slot (below the set's @nrx), not posted now.
 * @segs: The buffer, valid until the slot completes.
 * @n: Its segments.
 *
 * One completion follows a 0 return, through kfi_verbs_rx_done().
 *
 * Context: Any but hard interrupts; never sleeps.
 * Return: 0; -ENOTCONN without a queue pair; -EAGAIN when the device
 * cannot take it now; -E2BIG for more pieces than a work request holds
 * (kfi_verbs_post_recv_reg() takes them); -EINVAL for an address that
 * cannot be mapped; -ENOMEM when the buffer cannot be mapped; the
 * device's error.
 */
int kfi_verbs_post_recv(struct kfi_verbs_conn *c, struct kfi_verbs_wrs *w,
			unsigned int slot, const struct kfi_util_seg *segs,
			unsigned int n)
{
	struct kfi_verbs_wr *wr;
	struct ib_recv_wr rcv = {};
	struct ib_qp *qp;
	int ret;

	if (slot >= w->nrx || n > KFI_UTIL_IOV_MAX)
		return -EINVAL;
	wr = &w->wr[w->ntx + slot];
	WRITE_ONCE(w->conn, c);
	spin_lock_bh(&c->post_lock);
	qp = c->post_qp;
	if (!qp) {
		ret = -ENOTCONN;
		goto out;
	}
	ret = kfi_verbs_map(wr, qp->device, qp->pd->local_dma_lkey, segs, n,
			    c->max_recv_sge, DMA_FROM_DEVICE);
	if (ret)
		goto out;
	rcv.wr_cqe = &wr->cqe;
	rcv.sg_list = wr->sge;
	rcv.num_sge = wr->nsge;
	ret = kfi_verbs_posted(wr, ib_post_recv(qp, &rcv, NULL));
out:
	spin_unlock_bh(&c->post_lock);
	return ret;
}

/**
 * kfi_verbs_post_chunk() - Post one chunk of a soft-mode message.
 * @c: The endpoint's connection.
 * @w: The endpoint's contexts.
 * @slot: The transmit context to post it with (below the set's @ntx),
 *	not posted now.
 * @hdr: The chunk's header (a kernel address in the linear map), valid
 *	until the completion.
 * @hdr_len: Its bytes.
 * @segs: The message's buffer, valid until the completion.
 * @n: Its segments.
 * @skip: Where the chunk starts in the message.
 * @max: The most payload bytes the chunk may carry.
 * @covered: Set to the payload bytes it carries: @max, or fewer when the
 *	pieces fill the work request's entries (at least one byte unless
 *	@max is 0).
 *
 * One SEND: the header, then the payload from @skip. One completion
 * follows a 0 return, through kfi_verbs_tx_done().
 *
 * Context: Any but hard interrupts; never sleeps.
 * Return: 0; -ENOTCONN without a queue pair; -EAGAIN when the device
 * cannot take it now; -EINVAL for a buffer that cannot be mapped this way
 * or a bad @slot; -ENOMEM when the buffer cannot be mapped; the device's
 * error.
 */
int kfi_verbs_post_chunk(struct kfi_verbs_conn *c, struct kfi_verbs_wrs *w,
			 unsigned int slot, const void *hdr, unsigned int hdr_len,
			 const struct kfi_util_seg *segs, unsigned int n,
			 size_t skip, size_t max, size_t *covered)
{
	struct ib_send_wr s = {};
	struct kfi_verbs_wr *wr;
	struct ib_qp *qp;
	unsigned int limit;
	int ret;

	*covered = 0;
	if (slot >= w->ntx || n > KFI_UTIL_IOV_MAX || !hdr_len ||
	    !virt_addr_valid(hdr))
		return -EINVAL;
	wr = &w->wr[slot];
	WRITE_ONCE(w->conn, c);
	spin_lock_bh(&c->post_lock);
	qp = c->post_qp;
	if (!qp) {
		ret = -ENOTCONN;
		goto out;
	}
	limit = min_t(unsigned int, c->max_send_sge, KFI_VERBS_SGE_MAX);
	wr->ib = qp->device;
	wr->dir = DMA_TO_DEVICE;
	wr->nsge = 0;
	wr->pages = 0;
	ret = kfi_verbs_map_one(wr, qp->device, qp->pd->local_dma_lkey, NULL,
				(void *)hdr, 0, hdr_len);
	if (!ret && max)
		ret = kfi_verbs_map_range(wr, qp->device,
					  qp->pd->local_dma_lkey, segs, n, skip,
					  max, limit, covered);
	if (!ret && max && !*covered)
		ret = -EINVAL;
	if (ret) {
		kfi_verbs_unmap(wr);
		goto out;
	}
	s.wr_cqe = &wr->cqe;
	s.opcode = IB_WR_SEND;
	s.send_flags = IB_SEND_SIGNALED;
	s.sg_list = wr->sge;
	s.num_sge = wr->nsge;
	ret = kfi_verbs_posted(wr, ib_post_send(qp, &s, NULL));
out:
	spin_unlock_bh(&c->post_lock);
	if (ret)
		*covered = 0;
	return ret;
}

/**
 * kfi_verbs_post_recv_reg() - Register a receive slot's buffer of more
 *	pieces than a work request holds.
 * @c: The endpoint's connection.
 * @w: The endpoint's contexts.
 * @slot: The receive slot, not posted now.
 * @segs: The buffer, valid until the slot completes.
 * @n: Its segments.
 *
 * Maps the buffer's pages into an ib_mr of the queue pair's pool and
 * posts its REG_MR (local write access; after a LOCAL_INV of the ib_mr's
 * last key when still valid) on the send queue, signalled with the slot's
 * context: the receive itself is posted once that completes
 * (kfi_verbs_post_recv_mr()), because the receive queue is not ordered
 * with the send queue. One completion (@reg set) follows a 0 return,
 * through kfi_verbs_rx_done(); the ib_mr goes back to the pool with the
 * receive's completion, or with a failed registration's.
 *
 * Context: Any but hard interrupts; never sleeps.
 * Return: 0; -ENOTCONN without a queue pair; -EAGAIN when every ib_mr of
 * the pool is in use or without memory for the page list; -EINVAL for a
 * buffer one registration cannot map (pieces that do not meet on page
 * boundaries, more than its pages); the device's error.
 */
int kfi_verbs_post_recv_reg(struct kfi_verbs_conn *c, struct kfi_verbs_wrs *w,
			    unsigned int slot, const struct kfi_util_seg *segs,
			    unsigned int n)
{
	const struct ib_send_wr *bad = NULL;
	struct kfi_verbs_frwr f;
	struct kfi_verbs_wr *wr;
	struct ib_qp *qp;
	int nents, ret;

	if (slot >= w->nrx || n > KFI_UTIL_IOV_MAX)
		return -EINVAL;
	nents = kfi_verbs_segs_sg(segs, n, NULL);
	if (nents <= 0)
		return nents ? nents : -EINVAL;
	wr = &w->wr[w->ntx + slot];
	WRITE_ONCE(w->conn, c);
	spin_lock_bh(&c->post_lock);
	qp = c->post_qp;
	if (!qp) {
		ret = -ENOTCONN;
		goto out;
	}
	if (!c->nmrs) {
		ret = -EINVAL;
		goto out;
	}
	wr->dir = DMA_FROM_DEVICE;
	wr->nsge = 0;
	wr->ib = NULL;
	ret = kfi_verbs_frwr_get(qp, wr, segs, n, nents, IB_ACCESS_LOCAL_WRITE,
				 &f);
	if (ret)
		goto out;
	f.reg.wr.wr_cqe = &wr->cqe;
	f.reg.wr.send_flags = IB_SEND_SIGNALED;
	wr->inv_by_op = false;
	wr->reg = true;
	ret = ib_post_send(qp, f.first, &bad);
	if (ret) {
		/* nothing follows the REG_MR: it was not posted */
		wr->reg = false;
		kfi_verbs_frwr_unget(wr, &f, bad);
	}
out:
	spin_unlock_bh(&c->post_lock);
	/*
	 * The receive waits for this completion: it must not wait for a
	 * busy reader's next poll (on iWARP a message arriving meanwhile
	 * ends the connection).
	 */
	if (!ret)
		kfi_verbs_cq_unbusy(c);
	return ret == -ENOTCONN && qp ? -EAGAIN : ret;
}

/**
 * kfi_verbs_post_recv_mr() - Post a receive slot registered by
 *	kfi_verbs_post_recv_reg(), once its registration completed.
 * @c: The endpoint's connection.
 * @w: The endpoint's contexts.
 * @slot: The receive slot.
 *
 * One completion follows a 0 return, through kfi_verbs_rx_done(). On
 * failure the registration is undone (the ib_mr back to its pool).
 *
 * Context: Any but hard interrupts (a completion: softirq); never sleeps.
 * Return: 0; -EINVAL if the slot holds no registration; -ENOTCONN
 * without a queue pair; the device's error.
 */
int kfi_verbs_post_recv_mr(struct kfi_verbs_conn *c, struct kfi_verbs_wrs *w,
			   unsigned int slot)
{
	struct ib_recv_wr rcv = {};
	struct kfi_verbs_wr *wr;
	struct ib_qp *qp;
	int ret;

	if (slot >= w->nrx)
		return -EINVAL;
	wr = &w->wr[w->ntx + slot];
	if (!wr->mr)
		return -EINVAL;
	spin_lock_bh(&c->post_lock);
	qp = c->post_qp;
	if (!qp) {
		ret = -ENOTCONN;
	} else {
		wr->sge[0].addr = wr->mr->iova;
		wr->sge[0].length = wr->mr->length;
		wr->sge[0].lkey = wr->mr->lkey;
		rcv.wr_cqe = &wr->cqe;
		rcv.sg_list = wr->sge;
		rcv.num_sge = 1;
		ret = ib_post_recv(qp, &rcv, NULL);
	}
	spin_unlock_bh(&c->post_lock);
	if (ret)
		kfi_verbs_frwr_end(wr, false);
	return ret;
}

/* The outcome of a completion, as Rust reads it. */
static void kfi_verbs_wc_of(const struct ib_wc *wc, struct kfi_verbs_wc *k)
{
	k->status = wc->status;
	k->vendor_err = wc->vendor_err;
	k->byte_len = 0;
	k->imm = false;
	k->imm_data = 0;
	k->write_imm = false;
	k->reg = false;
	if (wc->status != IB_WC_SUCCESS)
		return;
	k->byte_len = wc->byte_len;
	if (wc->wc_flags & IB_WC_WITH_IMM) {
		k->imm = true;
		k->imm_data = be32_to_cpu(wc->ex.imm_data);
	}
	k->write_imm = wc->opcode == IB_WC_RECV_RDMA_WITH_IMM;
}

/* A failure that is not the flush of a teardown ends the connection. */
static void kfi_verbs_check_wc(struct kfi_verbs_wr *wr, const struct ib_wc *wc)
{
	struct kfi_verbs_conn *c = READ_ONCE(wr->set->conn);

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR &&
	    c) {
		trace_kfi_error(KBUILD_MODNAME, c, EIO,
				ib_wc_status_msg(wc->status));
		kfi_verbs_conn_broken(c);
	}
}

/* A slot's work request completed: unmapped, then reported to Rust. */
static void kfi_verbs_done(struct ib_wc *wc, bool tx)
{
	struct kfi_verbs_wr *wr = container_of(wc->wr_cqe, struct kfi_verbs_wr,
					       cqe);
	struct kfi_verbs_wc k;

	if (wr->reg) {
		/*
		 * A receive slot's registration: its ib_mr stays for the
		 * receive (kfi_verbs_post_recv_mr()) unless it failed.
		 */
		wr->reg = false;
		if (wc->status != IB_WC_SUCCESS)
			kfi_verbs_frwr_end(wr, false);
		kfi_verbs_check_wc(wr, wc);
		kfi_verbs_wc_of(wc, &k);
		k.reg = true;
		if (wr->set->rdm)
			kfi_verbs_rdm_rx_done(wr->set->owner, wr->slot, &k);
		else
			kfi_verbs_rx_done(wr->set->owner, wr->slot, &k);
		return;
	}
	if (wr->ib)
		kfi_verbs_unmap(wr);
	if (wr->mr)
		kfi_verbs_frwr_end(wr, wr->inv_by_op &&
				   wc->status == IB_WC_SUCCESS);
	kfi_verbs_check_wc(wr, wc);
	kfi_verbs_wc_of(wc, &k);
	if (wr->set->rdm && tx)
		kfi_verbs_rdm_tx_done(wr->set->owner, wr->slot, &k);
	else if (wr->set->rdm)
		kfi_verbs_rdm_rx_done(wr->set->owner, wr->slot, &k);
	else if (tx)
		kfi_verbs_tx_done(wr->set->owner, wr->slot, &k);
	else
		kfi_verbs_rx_done(wr->set->owner, wr->slot, &k);
}

static void kfi_verbs_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	kfi_verbs_done(wc, true);
}

static void kfi_verbs_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	kfi_verbs_done(wc, false);
}
