/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfi_verbs.ko, C side: what its C files share and Rust does not see (the
 * RDMA core's structures stay out of verbs_sys.h).
 */
#ifndef KFI_VERBS_PRIV_H
#define KFI_VERBS_PRIV_H

#include <linux/irq_poll.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "verbs_sys.h"

struct kfi_verbs_port;

/* Completions handled per ib_poll_cq() call. */
#define KFI_VERBS_POLL_BATCH 16
/* Completions one irq_poll run handles before it yields. */
#define KFI_VERBS_POLL_BUDGET 64
/* A reader that polled within this many jiffies polls (busy polling). */
#define KFI_VERBS_BUSY_JIFFIES 2
/* @cq_flags: a completion event was left to the busy reader, unarmed. */
#define KFI_VERBS_CQ_UNARMED 0
struct kfi_verbs_regchan;

/**
 * struct kfi_verbs_dev - One RDMA device as the provider sees it.
 * @ref: References: the list's while the device is live, one per domain
 *	and one per connection made on it.
 * @node: In kfi_verbs_devs while live (under kfi_verbs_devs_lock).
 * @lock: Protects @ib, @pd and @name. Held for read by whoever uses the
 *	ib_device, and by whoever creates or destroys a queue pair on it (so
 *	that removal, which takes it for write, finds every queue pair on
 *	@conns); see kfi_verbs_ib.c.
 * @ib: The device; NULL once removed.
 * @pd: The protection domain of every kfabric domain on the device;
 *	NULL once removed.
 * @name: The device's name (updated on rename).
 * @dma: The device's DMA device, referenced for the life of this
 *	structure (what the cxi extension's get_device names); NULL for
 *	devices that map virtually (rxe, siw) or through an IOMMU, whose
 *	domains name the provider's own direct-mapped device.
 * @conns_lock: Protects @conns among the holders of @lock for read.
 * @conns: The connections with a queue pair on the device
 *	(struct kfi_verbs_conn.node).
 * @mr_lock: Serialises memory registration on the device (kfi_verbs_mr.c)
 *	and protects @mr_dead, @rc, @mrs and @mr_free; while it is held and
 *	@mr_dead is false, @ib and @pd stay (removal takes it before @lock).
 *	Never taken inside @lock.
 * @mr_dead: The device is being removed: nothing registers any more.
 * @rc: The registration channel, NULL until the first registration.
 * @mrs: The registered regions (struct kfi_verbs_mr.node).
 * @mr_free: FRWR ib_mrs of closed regions, invalidated, waiting for reuse
 *	(listed through their qp_entry, which no QP pool uses here).
 * @mr_pages: Pages of each FRWR ib_mr: the most a region may span.
 */
struct kfi_verbs_dev {
	struct kref ref;
	struct list_head node;
	struct rw_semaphore lock;
	struct ib_device *ib;
	struct ib_pd *pd;
	char name[IB_DEVICE_NAME_MAX];
	struct device *dma;
	struct mutex conns_lock;
	struct list_head conns;
	struct mutex mr_lock;
	bool mr_dead;
	struct kfi_verbs_regchan *rc;
	struct list_head mrs;
	struct list_head mr_free;
	unsigned int mr_pages;
};

/**
 * struct kfi_verbs_conn - One rdma_cm id and what hangs on it.
 * @lock: Protects @id, @closing, @removed and @users.
 * @id: The rdma_cm id; NULL once its destruction is someone's (above).
 * @closing: The owner is destroying the connection: nothing more is
 *	reported to it.
 * @removed: The device went away (DEVICE_REMOVAL): @remove_work destroys
 *	the id.
 * @users: Consumer calls using @id.
 * @remove_work: Reports the removal to the owner and destroys the id.
 * @kind: Whom the handler reports to (KFI_VERBS_CONN_*).
 * @ctx: The owner (Rust; kfi_verbs_conn_set_owner()), NULL until named.
 * @dev: The device of the queue pair (referenced), NULL until known.
 * @cq: Completion queue of the queue pair (its own), NULL without a
 *	queue pair.
 * @cq_size: Entries of @cq.
 * @cq_lock: Serialises the polling of @cq (its irq_poll handler, softirq;
 *	consumers' reads, kfi_verbs_conn_poll()), so that completions are
 *	handled one at a time and in the device's order; protects @poll_cq
 *	and @wcs.
 * @poll_cq: @cq while it may be polled: set when it is created, cleared
 *	before it is destroyed.
 * @iop: Polls @cq in softirq context after its completion event.
 * @wcs: Completions being handled.
 * @busy_until: Until when (jiffies) a consumer's read polls @cq (busy
 *	polling, kfi_verbs_conn_poll()): a completion event in that time is
 *	left to it, and @cq stays unarmed (no softirq, no ksoftirqd wakeup
 *	per completion) until @cq_timer sees the reader gone.
 * @cq_flags: KFI_VERBS_CQ_UNARMED (atomic bit).
 * @cq_timer: Hands @cq back to the softirq poller (which re-arms it) once
 *	no reader has polled for KFI_VERBS_BUSY_JIFFIES.
 * @qp_id: The id the queue pair was created on (@id, kept until the queue
 *	pair is destroyed, which comes before the id's destruction).
 * @node: On the device's @conns while the queue pair exists.
 * @sq: Send queue depth to create (the consumer's, one more for drain).
 * @rq: Receive queue depth to create (likewise).
 * @connected: ESTABLISHED came: the connection must be disconnected.
 * @pdata: Private data of the active side's connect.
 * @pdata_len: Its length.
 * @post_lock: Protects @post_qp (kfi_verbs_qp.c posts under it).
 * @post_qp: The queue pair while work requests may be posted on it: set
 *	when it is created, cleared before it is drained and destroyed.
 * @max_inline: Bytes a send may carry inline on the queue pair.
 * @max_send_sge: Scatter/gather entries of a send work request.
 * @max_recv_sge: Scatter/gather entries of a receive work request.
 * @iwarp: The queue pair speaks iWARP: the sink of an RDMA READ must be
 *	registered with remote write access (kfi_verbs_qp.c).
 * @nmrs: FRWR ib_mrs in the queue pair's pool (qp->rdma_mrs), for
 *	operations over more pieces than a work request holds and for
 *	iWARP READ sinks; 0 without a pool.
 * @break_work: Disconnects after a failed work request
 *	(kfi_verbs_conn_broken()); queued only while @post_qp is set.
 * @drain_lock: Serialises the drains of the queue pair (ib_drain_qp()
 *	needs nobody else posting, and the queues hold one drain request
 *	each); protects @drained.
 * @drained: The queue pair was drained (it is in the error state and
 *	nothing is posted on it any more).
 */
struct kfi_verbs_conn {
	spinlock_t lock;
	struct rdma_cm_id *id;
	bool closing;
	bool removed;
	unsigned int users;
	struct work_struct remove_work;
	int kind;
	bool rdm;
	void *ctx;
	struct kfi_verbs_dev *dev;
	struct ib_cq *cq;
	unsigned int cq_size;
	spinlock_t cq_lock;
	struct ib_cq *poll_cq;
	struct irq_poll iop;
	struct ib_wc wcs[KFI_VERBS_POLL_BATCH];
	unsigned long busy_until;
	unsigned long cq_flags;
	struct timer_list cq_timer;
	struct rdma_cm_id *qp_id;
	struct list_head node;
	unsigned int sq;
	unsigned int rq;
	bool connected;
	u8 pdata[KFI_VERBS_PDATA_MAX];
	u8 pdata_len;
	spinlock_t post_lock;
	struct ib_qp *post_qp;
	unsigned int max_inline;
	unsigned int max_send_sge;
	unsigned int max_recv_sge;
	bool iwarp;
	unsigned int nmrs;
	struct work_struct break_work;
	struct mutex drain_lock;
	bool drained;
};

struct kfi_verbs_dev *kfi_verbs_dev_of(struct ib_device *ib);
int kfi_verbs_dev_port(struct kfi_verbs_dev *d, u32 port,
		       struct kfi_verbs_port *out);
void kfi_verbs_conns_remove(struct kfi_verbs_dev *d);
void kfi_verbs_conn_broken(struct kfi_verbs_conn *c);
void kfi_verbs_cq_unbusy(struct kfi_verbs_conn *c);
void kfi_verbs_mrs_remove(struct kfi_verbs_dev *d);
int kfi_verbs_segs_sg(const struct kfi_util_seg *segs, unsigned int n,
		      struct scatterlist *sgl);

#endif
