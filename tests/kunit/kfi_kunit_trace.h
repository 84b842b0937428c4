/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recorder of kfabric's trace events for KUnit cases: it attaches a
 * probe to each event (kfi_util/kfi_trace.h; attaching is what enables an
 * event, as trace-cmd, perf or bpftrace would), keeps what the probes saw,
 * and detaches them again. Probes run in any context: the records are
 * kept under an irq-safe spinlock, at most KFI_TR_MAX of them.
 */
#ifndef _KFI_KUNIT_TRACE_H
#define _KFI_KUNIT_TRACE_H

#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include "../../kfi_util/kfi_trace.h"

enum kfi_tr_ev { TR_POST, TR_COMPLETE, TR_CONN, TR_ERROR, TR_TRIG_QUEUE,
		 TR_TRIG_FIRE, TR_STALL };

/* One event as its probe saw it (fields not in the event are 0). */
struct kfi_tr_rec {
	enum kfi_tr_ev ev;
	char prov[16];
	const void *obj;	/* ep, cq, conn, cntr */
	const void *ctx;
	int op;
	u64 len, flags, threshold, value;
	long ret;
	int err;
	char str[40];		/* kfi_conn's "to", kfi_error's cause, kfi_stall's why */
};

#define KFI_TR_MAX 512
static struct {
	spinlock_t lock;
	int n, lost;
	struct kfi_tr_rec r[KFI_TR_MAX];
} kfi_tr;

static struct kfi_tr_rec *kfi_tr_new(enum kfi_tr_ev ev, const char *prov,
				     unsigned long *flags)
{
	struct kfi_tr_rec *r;

	spin_lock_irqsave(&kfi_tr.lock, *flags);
	if (kfi_tr.n == KFI_TR_MAX) {
		kfi_tr.lost++;
		spin_unlock_irqrestore(&kfi_tr.lock, *flags);
		return NULL;
	}
	r = &kfi_tr.r[kfi_tr.n++];
	memset(r, 0, sizeof(*r));
	r->ev = ev;
	strscpy(r->prov, prov, sizeof(r->prov));
	return r;
}

#define KFI_TR_END(r, flags)						\
	do {								\
		if (r)							\
			spin_unlock_irqrestore(&kfi_tr.lock, flags);	\
	} while (0)

static void kfi_tr_post(void *d, const char *prov, const void *ep, int op,
			const void *context, u64 len, u64 fl, u64 addr,
			long ret)
{
	unsigned long flags;
	struct kfi_tr_rec *r = kfi_tr_new(TR_POST, prov, &flags);

	if (r) {
		r->obj = ep;
		r->op = op;
		r->ctx = context;
		r->len = len;
		r->flags = fl;
		r->ret = ret;
	}
	KFI_TR_END(r, flags);
}

static void kfi_tr_complete(void *d, const char *prov, const void *cq,
			    const void *context, u64 fl, u64 len, int err)
{
	unsigned long flags;
	struct kfi_tr_rec *r = kfi_tr_new(TR_COMPLETE, prov, &flags);

	if (r) {
		r->obj = cq;
		r->ctx = context;
		r->flags = fl;
		r->len = len;
		r->err = err;
	}
	KFI_TR_END(r, flags);
}

static void kfi_tr_conn(void *d, const char *prov, const void *conn,
			const void *ep, const struct sockaddr *peer,
			const char *from, const char *to)
{
	unsigned long flags;
	struct kfi_tr_rec *r = kfi_tr_new(TR_CONN, prov, &flags);

	if (r) {
		r->obj = conn;
		r->ctx = ep;
		/* the peer's family in op (AF_INET, AF_INET6, 0) */
		r->op = peer ? peer->sa_family : 0;
		strscpy(r->str, to, sizeof(r->str));
	}
	KFI_TR_END(r, flags);
}

static void kfi_tr_error(void *d, const char *prov, const void *obj, int err,
			 const char *cause)
{
	unsigned long flags;
	struct kfi_tr_rec *r = kfi_tr_new(TR_ERROR, prov, &flags);

	if (r) {
		r->obj = obj;
		r->err = err;
		strscpy(r->str, cause, sizeof(r->str));
	}
	KFI_TR_END(r, flags);
}

static void kfi_tr_trig_queue(void *d, const char *prov, const void *cntr,
			      const void *context, u64 threshold, u64 value,
			      int op, bool deferred)
{
	unsigned long flags;
	struct kfi_tr_rec *r = kfi_tr_new(TR_TRIG_QUEUE, prov, &flags);

	if (r) {
		r->obj = cntr;
		r->ctx = context;
		r->threshold = threshold;
		r->value = value;
		r->op = op;
		r->ret = deferred;
	}
	KFI_TR_END(r, flags);
}

static void kfi_tr_trig_fire(void *d, const char *prov, const void *cntr,
			     const void *context, u64 threshold, u64 value)
{
	unsigned long flags;
	struct kfi_tr_rec *r = kfi_tr_new(TR_TRIG_FIRE, prov, &flags);

	if (r) {
		r->obj = cntr;
		r->ctx = context;
		r->threshold = threshold;
		r->value = value;
	}
	KFI_TR_END(r, flags);
}

static void kfi_tr_stall(void *d, const char *prov, const void *obj,
			 const char *why, u64 queued)
{
	unsigned long flags;
	struct kfi_tr_rec *r = kfi_tr_new(TR_STALL, prov, &flags);

	if (r) {
		r->obj = obj;
		r->len = queued;
		strscpy(r->str, why, sizeof(r->str));
	}
	KFI_TR_END(r, flags);
}

/* Every event's bit in kfi_trace_on. */
#define KFI_TR_ALL_BITS	(BIT(KFI_TP_POST) | BIT(KFI_TP_COMPLETE) |	\
			 BIT(KFI_TP_CONN) | BIT(KFI_TP_ERROR) |		\
			 BIT(KFI_TP_TRIG_QUEUE) | BIT(KFI_TP_TRIG_FIRE) |	\
			 BIT(KFI_TP_STALL))

/*
 * Attaches the probes (every event) and forgets earlier records. Skips the
 * case on a kernel without tracepoints (the base test kernel: the events
 * compile to nothing there; the debug kernel has them).
 */
static void kfi_tr_start(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_TRACEPOINTS))
		kunit_skip(test, "kernel without CONFIG_TRACEPOINTS");
	spin_lock_init(&kfi_tr.lock);
	kfi_tr.n = 0;
	kfi_tr.lost = 0;
	KUNIT_ASSERT_EQ(test, register_trace_kfi_post(kfi_tr_post, NULL), 0);
	KUNIT_ASSERT_EQ(test, register_trace_kfi_complete(kfi_tr_complete, NULL), 0);
	KUNIT_ASSERT_EQ(test, register_trace_kfi_conn(kfi_tr_conn, NULL), 0);
	KUNIT_ASSERT_EQ(test, register_trace_kfi_error(kfi_tr_error, NULL), 0);
	KUNIT_ASSERT_EQ(test, register_trace_kfi_trig_queue(kfi_tr_trig_queue, NULL), 0);
	KUNIT_ASSERT_EQ(test, register_trace_kfi_trig_fire(kfi_tr_trig_fire, NULL), 0);
	KUNIT_ASSERT_EQ(test, register_trace_kfi_stall(kfi_tr_stall, NULL), 0);
	/* attached: every event's bit is on (what the Rust side tests) */
	KUNIT_EXPECT_EQ(test, READ_ONCE(kfi_trace_on) & KFI_TR_ALL_BITS,
			KFI_TR_ALL_BITS);
}

/* Detaches them; no probe runs after this returns. */
static void kfi_tr_stop(struct kunit *test)
{
	unregister_trace_kfi_post(kfi_tr_post, NULL);
	unregister_trace_kfi_complete(kfi_tr_complete, NULL);
	unregister_trace_kfi_conn(kfi_tr_conn, NULL);
	unregister_trace_kfi_error(kfi_tr_error, NULL);
	unregister_trace_kfi_trig_queue(kfi_tr_trig_queue, NULL);
	unregister_trace_kfi_trig_fire(kfi_tr_trig_fire, NULL);
	unregister_trace_kfi_stall(kfi_tr_stall, NULL);
	tracepoint_synchronize_unregister();
	/* nothing attached: the trace points cost a load and a branch */
	KUNIT_EXPECT_EQ(test, READ_ONCE(kfi_trace_on) & KFI_TR_ALL_BITS, 0UL);
	KUNIT_EXPECT_EQ(test, kfi_tr.lost, 0);
}

/* Records of event @ev with context @ctx (NULL: any), counted. */
static __maybe_unused int kfi_tr_count(enum kfi_tr_ev ev, const void *ctx)
{
	int i, n = 0;

	for (i = 0; i < kfi_tr.n; i++)
		if (kfi_tr.r[i].ev == ev && (!ctx || kfi_tr.r[i].ctx == ctx))
			n++;
	return n;
}

/* The first record of @ev with context @ctx (NULL: any), or NULL. */
static __maybe_unused const struct kfi_tr_rec *kfi_tr_find(enum kfi_tr_ev ev, const void *ctx)
{
	int i;

	for (i = 0; i < kfi_tr.n; i++)
		if (kfi_tr.r[i].ev == ev && (!ctx || kfi_tr.r[i].ctx == ctx))
			return &kfi_tr.r[i];
	return NULL;
}

#endif
