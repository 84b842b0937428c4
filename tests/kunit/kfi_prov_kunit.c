// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites of the objects every provider offers, run against each
 * provider of kfi_provs[] (kfi_kunit_fix.h) through the public API only:
 * no symbol of a provider module, which is reached by its prov_name hint.
 * Suite kfi_<set>_<provider>: cq (completion queues), eq (event queues),
 * cntr (counters), trigger (triggered operations and deferred work). A
 * provider that is not registered (no entry for its node) skips every
 * case of its suites; a case needing a capability the provider lacks, or
 * an IPv6 node it has not got, skips. Needs lo up (tests/guest/run.sh).
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/sched/task.h>
#include <linux/ktime.h>
#include <linux/cpumask.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/bvec.h>
#include <linux/scatterlist.h>
#include <linux/string.h>
#include <linux/net.h>
#include <linux/fs.h>
#include <linux/umh.h>
#include <linux/socket.h>
#include <linux/in.h>
#include <net/net_namespace.h>

#include <kfabric.h>
#include <kfi_domain.h>
#include <kfi_endpoint.h>
#include <kfi_eq.h>
#include <kfi_errno.h>
#include <kfi_cm.h>
#include <kfi_rma.h>
#include <kfi_tagged.h>
#include <kfi_trigger.h>
#include <kfi_atomic.h>
#include "kfi_kunit_fix.h"
#include "kfi_kunit_trace.h"

/* Skips the case unless the provider under test has all of @caps. */
static void prov_needs(struct kunit *test, uint64_t caps)
{
	if ((cur_prov->caps & caps) != caps)
		kunit_skip(test, "%s lacks caps %#llx", cur_prov->name,
			   caps & ~cur_prov->caps);
}

/* ---------------------------------------------------------------- EQ */

struct eq_fixture {
	struct kfi_info *hints, *list;
	struct kfid_fabric *fab;
	struct kfid_eq *eq;
	atomic_t handler_calls;
};

static void eq_handler(struct kfid_eq *eq, void *context)
{
	struct eq_fixture *f = context;

	atomic_inc(&f->handler_calls);
}

static void eq_setup(struct kunit *test, struct eq_fixture *f, size_t size)
{
	struct kfi_eq_attr attr = { .size = size, .wait_obj = KFI_WAIT_NONE };

	memset(f, 0, sizeof(*f));
	f->hints = prov_hints(test, cur_prov);
	KUNIT_ASSERT_EQ(test, kfi_getinfo(V17, NULL, NULL, 0, f->hints,
					  &f->list), 0);
	KUNIT_ASSERT_EQ(test, kfi_fabric(f->list->fabric_attr, &f->fab, NULL),
			0);
	KUNIT_ASSERT_EQ(test, kfi_eq_open(f->fab, &attr, &f->eq, eq_handler,
					  f), 0);
	KUNIT_EXPECT_EQ(test, f->eq->fid.fclass, (size_t)KFI_CLASS_EQ);
}

static void eq_teardown(struct kunit *test, struct eq_fixture *f)
{
	/* the fabric is busy while its EQ is open */
	KUNIT_EXPECT_EQ(test, kfi_close(&f->fab->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, kfi_close(&f->eq->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&f->fab->fid), 0);
	kfi_freeinfo(f->list);
	kfi_freeinfo(f->hints);
}

static void eq_write_read_in_order(struct kunit *test)
{
	struct eq_fixture f;
	struct kfi_eq_entry in = { .data = 42 }, out;
	struct kfi_eq_err_entry err;
	char small[4];
	uint32_t ev = 0;

	eq_setup(test, &f, 8);
	in.context = &f;
	KUNIT_EXPECT_EQ(test, kfi_eq_read(f.eq, &ev, &out, sizeof(out), 0),
			(ssize_t)-EAGAIN);
	KUNIT_EXPECT_EQ(test, kfi_eq_write(f.eq, KFI_NOTIFY, &in, sizeof(in), 0),
			(ssize_t)sizeof(in));
	KUNIT_EXPECT_EQ(test, kfi_eq_write(f.eq, KFI_MR_COMPLETE, "xyz", 3, 0),
			(ssize_t)3);
	KUNIT_EXPECT_EQ(test, atomic_read(&f.handler_calls), 2);
	/* too small a buffer loses nothing */
	KUNIT_EXPECT_EQ(test, kfi_eq_read(f.eq, &ev, small, sizeof(small), 0),
			(ssize_t)-KFI_ETOOSMALL);
	/* peek leaves the entry */
	KUNIT_EXPECT_EQ(test, kfi_eq_read(f.eq, &ev, &out, sizeof(out),
					  KFI_PEEK), (ssize_t)sizeof(out));
	KUNIT_EXPECT_EQ(test, kfi_eq_read(f.eq, &ev, &out, sizeof(out), 0),
			(ssize_t)sizeof(out));
	KUNIT_EXPECT_EQ(test, ev, (uint32_t)KFI_NOTIFY);
	KUNIT_EXPECT_EQ(test, out.data, 42ULL);
	KUNIT_EXPECT_PTR_EQ(test, out.context, (void *)&f);
	KUNIT_EXPECT_EQ(test, kfi_eq_read(f.eq, &ev, small, sizeof(small), 0),
			(ssize_t)3);
	KUNIT_EXPECT_EQ(test, ev, (uint32_t)KFI_MR_COMPLETE);
	KUNIT_EXPECT_EQ(test, memcmp(small, "xyz", 3), 0);
	/* no error entry queued */
	KUNIT_EXPECT_EQ(test, kfi_eq_readerr(f.eq, &err, 0), (ssize_t)-EAGAIN);
	KUNIT_EXPECT_STREQ(test, kfi_eq_strerror(f.eq, -KFI_ETRUNC, NULL, NULL,
						 0), "Truncation error");
	eq_teardown(test, &f);
}

static void eq_full_and_bad_input(struct kunit *test)
{
	struct kfi_eq_attr attr = { .size = 100000 };
	struct eq_fixture f;
	struct kfid_eq *eq2;
	char big[512] = {};
	uint32_t ev;
	int i;

	eq_setup(test, &f, 4);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, kfi_eq_write(f.eq, KFI_NOTIFY, &i,
						   sizeof(i), 0),
				(ssize_t)sizeof(i));
	KUNIT_EXPECT_EQ(test, kfi_eq_write(f.eq, KFI_NOTIFY, &i, sizeof(i), 0),
			(ssize_t)-EAGAIN);
	for (i = 0; i < 4; i++) {
		int v = -1;

		KUNIT_EXPECT_EQ(test, kfi_eq_read(f.eq, &ev, &v, sizeof(v), 0),
				(ssize_t)sizeof(v));
		KUNIT_EXPECT_EQ(test, v, i);
	}
	KUNIT_EXPECT_EQ(test, kfi_eq_write(f.eq, KFI_NOTIFY, big, sizeof(big),
					   0), (ssize_t)-EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_eq_write(f.eq, KFI_NOTIFY, &i, sizeof(i),
					   1ULL << 3), (ssize_t)-EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_eq_read(f.eq, &ev, big, sizeof(big),
					  1ULL << 3), (ssize_t)-EINVAL);
	/* bad attributes */
	KUNIT_EXPECT_EQ(test, kfi_eq_open(f.fab, &attr, &eq2, NULL, NULL),
			-EINVAL);
	attr.size = 8;
	attr.wait_obj = KFI_WAIT_SET;
	KUNIT_EXPECT_EQ(test, kfi_eq_open(f.fab, &attr, &eq2, NULL, NULL),
			-ENOSYS);
	KUNIT_EXPECT_EQ(test, kfi_eq_open(f.fab, NULL, &eq2, NULL, NULL),
			-EINVAL);
	eq_teardown(test, &f);
}

struct eq_writer {
	struct kfid_eq *eq;
	struct completion done;
};

static int eq_writer_fn(void *arg)
{
	struct eq_writer *w = arg;
	u64 v = 7;

	msleep(100);
	kfi_eq_write(w->eq, KFI_NOTIFY, &v, sizeof(v), 0);
	complete(&w->done);
	return 0;
}

static void eq_sread_waits(struct kunit *test)
{
	struct eq_fixture f;
	struct eq_writer w;
	struct task_struct *t;
	u64 v = 0;
	uint32_t ev;
	ktime_t start;

	eq_setup(test, &f, 8);
	start = ktime_get();
	KUNIT_EXPECT_EQ(test, kfi_eq_sread(f.eq, &ev, &v, sizeof(v), 50, 0),
			(ssize_t)-EAGAIN);
	KUNIT_EXPECT_GE(test, ktime_ms_delta(ktime_get(), start), 40LL);
	/* woken by a writer on another thread */
	w.eq = f.eq;
	init_completion(&w.done);
	t = kthread_run(eq_writer_fn, &w, "kfi_eqw");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_EXPECT_EQ(test, kfi_eq_sread(f.eq, &ev, &v, sizeof(v), 10000, 0),
			(ssize_t)sizeof(v));
	KUNIT_EXPECT_EQ(test, v, 7ULL);
	wait_for_completion(&w.done);
	eq_teardown(test, &f);
}

/* ---------------------------------------------------------------- CQ */

/*
 * Completion queues. Entries cannot be produced without the data path yet:
 * the ring (formats, order, error at the head, credits, wrap-around,
 * arming) is covered by the host tests of kfi_util/logic/cq.rs; these
 * cases cover the object, its checks and its blocking reads.
 */

struct cq_fixture {
	struct kfi_info *hints, *list;
	struct kfid_fabric *fab;
	struct kfid_domain *dom;
	atomic_t handler_calls;
};

static void cq_handler(struct kfid_cq *cq, void *context)
{
	struct cq_fixture *f = context;

	atomic_inc(&f->handler_calls);
}

static void cq_setup(struct kunit *test, struct cq_fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->hints = prov_hints(test, cur_prov);
	KUNIT_ASSERT_EQ(test, kfi_getinfo(V17, NULL, NULL, 0, f->hints,
					  &f->list), 0);
	KUNIT_ASSERT_EQ(test, kfi_fabric(f->list->fabric_attr, &f->fab, NULL),
			0);
	KUNIT_ASSERT_EQ(test, kfi_domain(f->fab, f->list, &f->dom, NULL), 0);
}

static void cq_teardown(struct kunit *test, struct cq_fixture *f)
{
	/* the domain closes: no CQ is left counted */
	KUNIT_EXPECT_EQ(test, kfi_close(&f->dom->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&f->fab->fid), 0);
	kfi_freeinfo(f->list);
	kfi_freeinfo(f->hints);
}

static struct kfid_cq *cq_open(struct kunit *test, struct cq_fixture *f,
			       struct kfi_cq_attr *attr)
{
	struct kfid_cq *cq = NULL;

	KUNIT_ASSERT_EQ(test, kfi_cq_open(f->dom, attr, &cq, cq_handler, f), 0);
	KUNIT_ASSERT_NOT_NULL(test, cq);
	return cq;
}

static void cq_open_each_format(struct kunit *test)
{
	static const enum kfi_cq_format formats[] = {
		KFI_CQ_FORMAT_UNSPEC, KFI_CQ_FORMAT_CONTEXT, KFI_CQ_FORMAT_MSG,
		KFI_CQ_FORMAT_DATA, KFI_CQ_FORMAT_TAGGED,
	};
	struct kfi_cq_tagged_entry buf[2];
	kfi_addr_t src[2] = { 7, 7 };
	struct kfi_cq_attr attr;
	struct cq_fixture f;
	struct kfid_cq *cq;
	int i;

	cq_setup(test, &f);
	for (i = 0; i < ARRAY_SIZE(formats); i++) {
		attr = (struct kfi_cq_attr){
			.size = i ? 16 * i : 0,
			.format = formats[i],
			.wait_obj = i % 2 ? KFI_WAIT_UNSPEC : KFI_WAIT_NONE,
			.wait_cond = i % 2 ? KFI_CQ_COND_THRESHOLD :
					     KFI_CQ_COND_NONE,
		};
		cq = cq_open(test, &f, &attr);
		KUNIT_EXPECT_EQ(test, cq->fid.fclass, (size_t)KFI_CLASS_CQ);
		KUNIT_EXPECT_PTR_EQ(test, cq->fid.context, (void *)&f);
		KUNIT_EXPECT_TRUE(test, cq->comp_handler == cq_handler);
		KUNIT_EXPECT_EQ(test, kfi_cq_read(cq, buf, 2),
				(ssize_t)-KFI_EAGAIN);
		KUNIT_EXPECT_EQ(test, kfi_cq_readfrom(cq, buf, 2, src),
				(ssize_t)-EAGAIN);
		/* nothing read, no address written */
		KUNIT_EXPECT_EQ(test, src[0], 7ULL);
		KUNIT_EXPECT_EQ(test, kfi_close(&cq->fid), 0);
	}
	/* what kfilnd asks for: CPU affinity, DATA format, no wait object */
	attr = (struct kfi_cq_attr){ .size = 65536, .flags = KFI_AFFINITY,
				     .signaling_vector = 0,
				     .format = KFI_CQ_FORMAT_DATA,
				     .wait_obj = KFI_WAIT_NONE };
	cq = cq_open(test, &f, &attr);
	KUNIT_EXPECT_EQ(test, kfi_close(&cq->fid), 0);
	/* without KFI_AFFINITY the vector is only a hint */
	attr.flags = 0;
	attr.signaling_vector = -5;
	cq = cq_open(test, &f, &attr);
	KUNIT_EXPECT_EQ(test, kfi_close(&cq->fid), 0);
	/* no entry was ever queued: the handler was not called */
	KUNIT_EXPECT_EQ(test, atomic_read(&f.handler_calls), 0);
	cq_teardown(test, &f);
}

static void cq_bad_attributes(struct kunit *test)
{
	const struct kfi_cq_attr good = { .size = 8,
					  .format = KFI_CQ_FORMAT_MSG };
	struct kfi_cq_attr attr;
	struct cq_fixture f;
	struct kfid_cq *cq = NULL;
	int cpu;

	cq_setup(test, &f);
	attr = good;
	attr.size = 65537;
	KUNIT_EXPECT_EQ(test, kfi_cq_open(f.dom, &attr, &cq, NULL, NULL),
			-EINVAL);
	attr = good;
	attr.format = (enum kfi_cq_format)5;
	KUNIT_EXPECT_EQ(test, kfi_cq_open(f.dom, &attr, &cq, NULL, NULL),
			-EINVAL);
	attr = good;
	attr.flags = KFI_SEND;
	KUNIT_EXPECT_EQ(test, kfi_cq_open(f.dom, &attr, &cq, NULL, NULL),
			-EINVAL);
	/* KFI_AFFINITY needs a CPU number in range ... */
	attr.flags = KFI_AFFINITY;
	attr.signaling_vector = -1;
	KUNIT_EXPECT_EQ(test, kfi_cq_open(f.dom, &attr, &cq, NULL, NULL),
			-EINVAL);
	attr.signaling_vector = nr_cpu_ids;
	KUNIT_EXPECT_EQ(test, kfi_cq_open(f.dom, &attr, &cq, NULL, NULL),
			-EINVAL);
	/* ... and online: no work could be queued on an offline one */
	for_each_possible_cpu(cpu) {
		if (cpu_online(cpu))
			continue;
		attr.signaling_vector = cpu;
		KUNIT_EXPECT_EQ(test, kfi_cq_open(f.dom, &attr, &cq, NULL,
						  NULL), -EINVAL);
	}
	attr = good;
	attr.wait_cond = (enum kfi_cq_wait_cond)2;
	KUNIT_EXPECT_EQ(test, kfi_cq_open(f.dom, &attr, &cq, NULL, NULL),
			-EINVAL);
	/* wait sets and wait queues are not supported */
	attr = good;
	attr.wait_obj = KFI_WAIT_SET;
	KUNIT_EXPECT_EQ(test, kfi_cq_open(f.dom, &attr, &cq, NULL, NULL),
			-ENOSYS);
	attr.wait_obj = KFI_WAIT_QUEUE;
	KUNIT_EXPECT_EQ(test, kfi_cq_open(f.dom, &attr, &cq, NULL, NULL),
			-ENOSYS);
	attr = good;
	KUNIT_EXPECT_EQ(test, kfi_cq_open(f.dom, NULL, &cq, NULL, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_cq_open(f.dom, &attr, NULL, NULL, NULL),
			-EINVAL);
	KUNIT_EXPECT_NULL(test, cq);
	cq_teardown(test, &f);
}

static void cq_empty_and_bad_reads(struct kunit *test)
{
	struct kfi_cq_attr attr = { .format = KFI_CQ_FORMAT_TAGGED };
	struct kfi_cq_tagged_entry buf[4];
	struct kfi_cq_err_entry err;
	kfi_addr_t src[4];
	struct cq_fixture f;
	struct kfid_cq *cq;
	char text[6];

	cq_setup(test, &f);
	cq = cq_open(test, &f, &attr);
	/* NULL buffer or no room */
	KUNIT_EXPECT_EQ(test, kfi_cq_read(cq, NULL, 1), (ssize_t)-EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_cq_read(cq, buf, 0), (ssize_t)-EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_cq_readfrom(cq, NULL, 4, src),
			(ssize_t)-EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_cq_sread(cq, NULL, 1, NULL, 0),
			(ssize_t)-EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_cq_sreadfrom(cq, buf, 0, src, NULL, 0),
			(ssize_t)-EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_cq_readerr(cq, NULL, 0), (ssize_t)-EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_cq_readerr(cq, &err, KFI_PEEK),
			(ssize_t)-EINVAL);
	/* empty */
	KUNIT_EXPECT_EQ(test, kfi_cq_read(cq, buf, 4), (ssize_t)-EAGAIN);
	KUNIT_EXPECT_EQ(test, kfi_cq_readfrom(cq, buf, 4, NULL),
			(ssize_t)-EAGAIN);
	KUNIT_EXPECT_EQ(test, kfi_cq_readerr(cq, &err, 0), (ssize_t)-EAGAIN);
	/* a zero timeout does not wait */
	KUNIT_EXPECT_EQ(test, kfi_cq_sread(cq, buf, 4, NULL, 0),
			(ssize_t)-EAGAIN);
	KUNIT_EXPECT_STREQ(test, kfi_cq_strerror(cq, KFI_ETRUNC, NULL, NULL, 0),
			   "Truncation error");
	KUNIT_EXPECT_PTR_EQ(test, kfi_cq_strerror(cq, KFI_ETRUNC, NULL, text,
						  sizeof(text)),
			    (const char *)text);
	KUNIT_EXPECT_STREQ(test, text, "Trunc");
	KUNIT_EXPECT_EQ(test, atomic_read(&f.handler_calls), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&cq->fid), 0);
	cq_teardown(test, &f);
}

static void cq_sread_times_out(struct kunit *test)
{
	struct kfi_cq_attr attr = { .format = KFI_CQ_FORMAT_DATA };
	struct kfi_cq_data_entry buf[4];
	kfi_addr_t src[4];
	struct cq_fixture f;
	struct kfid_cq *cq;
	ktime_t start;
	s64 ms;

	cq_setup(test, &f);
	cq = cq_open(test, &f, &attr);
	start = ktime_get();
	KUNIT_EXPECT_EQ(test, kfi_cq_sread(cq, buf, 4, NULL, 50),
			(ssize_t)-EAGAIN);
	ms = ktime_ms_delta(ktime_get(), start);
	KUNIT_EXPECT_GE(test, ms, 40LL);
	KUNIT_EXPECT_LT(test, ms, 5000LL);
	start = ktime_get();
	KUNIT_EXPECT_EQ(test, kfi_cq_sreadfrom(cq, buf, 4, src, NULL, 50),
			(ssize_t)-EAGAIN);
	KUNIT_EXPECT_GE(test, ktime_ms_delta(ktime_get(), start), 40LL);
	KUNIT_EXPECT_EQ(test, kfi_close(&cq->fid), 0);
	/* a threshold CQ: the threshold is the value of cond */
	attr.wait_cond = KFI_CQ_COND_THRESHOLD;
	cq = cq_open(test, &f, &attr);
	start = ktime_get();
	KUNIT_EXPECT_EQ(test, kfi_cq_sread(cq, buf, 4, (void *)3, 30),
			(ssize_t)-EAGAIN);
	KUNIT_EXPECT_GE(test, ktime_ms_delta(ktime_get(), start), 20LL);
	KUNIT_EXPECT_EQ(test, kfi_close(&cq->fid), 0);
	cq_teardown(test, &f);
}

struct cq_signaller {
	struct kfid_cq *cq;
	struct completion done;
};

static int cq_signaller_fn(void *arg)
{
	struct cq_signaller *s = arg;

	msleep(100);
	kfi_cq_signal(s->cq);
	complete(&s->done);
	return 0;
}

static void cq_signal_wakes_sread(struct kunit *test)
{
	struct kfi_cq_attr attr = { .format = KFI_CQ_FORMAT_CONTEXT };
	struct kfi_cq_entry buf[1];
	struct cq_signaller s;
	struct task_struct *t;
	struct cq_fixture f;
	ktime_t start;
	s64 ms;

	cq_setup(test, &f);
	s.cq = cq_open(test, &f, &attr);
	init_completion(&s.done);
	start = ktime_get();
	t = kthread_run(cq_signaller_fn, &s, "kfi_cqsig");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	/* woken by the signal long before the timeout; nothing to read */
	KUNIT_EXPECT_EQ(test, kfi_cq_sread(s.cq, buf, 1, NULL, 10000),
			(ssize_t)-EAGAIN);
	ms = ktime_ms_delta(ktime_get(), start);
	wait_for_completion(&s.done);
	KUNIT_EXPECT_GE(test, ms, 90LL);
	KUNIT_EXPECT_LT(test, ms, 5000LL);
	/* a signal with nobody waiting is kept for the next blocking read */
	KUNIT_EXPECT_EQ(test, kfi_cq_signal(s.cq), 0);
	start = ktime_get();
	KUNIT_EXPECT_EQ(test, kfi_cq_sread(s.cq, buf, 1, NULL, 10000),
			(ssize_t)-EAGAIN);
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), start), 5000LL);
	/* ... which consumed it: the next one waits for its timeout */
	start = ktime_get();
	KUNIT_EXPECT_EQ(test, kfi_cq_sread(s.cq, buf, 1, NULL, 50),
			(ssize_t)-EAGAIN);
	KUNIT_EXPECT_GE(test, ktime_ms_delta(ktime_get(), start), 40LL);
	/* signals are not completions */
	KUNIT_EXPECT_EQ(test, atomic_read(&f.handler_calls), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&s.cq->fid), 0);
	cq_teardown(test, &f);
}

static void cq_domain_busy(struct kunit *test)
{
	struct kfi_cq_attr attr = { .format = KFI_CQ_FORMAT_MSG };
	struct cq_fixture f;
	struct kfid_cq *a, *b;

	cq_setup(test, &f);
	a = cq_open(test, &f, &attr);
	b = cq_open(test, &f, &attr);
	/* a domain with open CQs cannot close, nor can its fabric */
	KUNIT_EXPECT_EQ(test, kfi_close(&f.dom->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, kfi_close(&f.fab->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, kfi_close(&a->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&f.dom->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, kfi_close(&b->fid), 0);
	cq_teardown(test, &f);
}

/* ------------------------------------------------------------ counters */

static void cntr_values(struct kunit *test)
{
	struct kfi_cntr_attr attr = { .events = KFI_CNTR_EVENTS_COMP };
	struct dom_fixture d;
	struct kfid_cntr *c;

	dom_setup(test, &d, 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(d.dom, &attr, &c, &d), 0);
	KUNIT_EXPECT_EQ(test, c->fid.fclass, (size_t)KFI_CLASS_CNTR);
	KUNIT_EXPECT_PTR_EQ(test, c->fid.context, (void *)&d);
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(c), 0ULL);
	KUNIT_EXPECT_EQ(test, kfi_cntr_readerr(c), 0ULL);
	KUNIT_EXPECT_EQ(test, kfi_cntr_add(c, 5), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_add(c, U64_MAX), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(c), 4ULL); /* 64-bit wrap */
	KUNIT_EXPECT_EQ(test, kfi_cntr_set(c, 1ULL << 40), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(c), 1ULL << 40);
	KUNIT_EXPECT_EQ(test, kfi_cntr_adderr(c, 3), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_seterr(c, 9), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_adderr(c, 1), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_readerr(c), 10ULL);
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(c), 1ULL << 40);
	/* a counter keeps its domain busy */
	KUNIT_EXPECT_EQ(test, kfi_close(&d.dom->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, kfi_close(&c->fid), 0);
	/* bad attributes */
	attr.events = 1;
	KUNIT_EXPECT_EQ(test, kfi_cntr_open(d.dom, &attr, &c, NULL), -EINVAL);
	attr.events = KFI_CNTR_EVENTS_COMP;
	attr.flags = 1;
	KUNIT_EXPECT_EQ(test, kfi_cntr_open(d.dom, &attr, &c, NULL), -EINVAL);
	attr.flags = 0;
	attr.wait_obj = KFI_WAIT_SET;
	KUNIT_EXPECT_EQ(test, kfi_cntr_open(d.dom, &attr, &c, NULL), -ENOSYS);
	KUNIT_EXPECT_EQ(test, kfi_cntr_open(d.dom, NULL, NULL, NULL), -EINVAL);
	dom_teardown(test, &d);
}

struct cntr_bumper {
	struct kfid_cntr *c;
	bool err;
};

static int cntr_bumper_fn(void *arg)
{
	struct cntr_bumper *b = arg;

	msleep(50);
	if (b->err)
		kfi_cntr_adderr(b->c, 1);
	else
		kfi_cntr_add(b->c, 3);
	return 0;
}

static void cntr_wait(struct kunit *test)
{
	struct dom_fixture d;
	struct kfid_cntr *c;
	struct cntr_bumper b;
	struct task_struct *t;
	ktime_t t0;
	s64 ms;

	dom_setup(test, &d, 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(d.dom, NULL, &c, NULL), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_wait(c, 0, 0), 0);
	t0 = ktime_get();
	KUNIT_EXPECT_EQ(test, kfi_cntr_wait(c, 1, 100), -ETIMEDOUT);
	ms = ktime_ms_delta(ktime_get(), t0);
	KUNIT_EXPECT_GE(test, ms, (s64)90);
	/* woken by an add from another thread */
	b = (struct cntr_bumper){ .c = c };
	t = kthread_run(cntr_bumper_fn, &b, "kfi_cntr_add");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_EXPECT_EQ(test, kfi_cntr_wait(c, 3, 5000), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(c), 3ULL);
	msleep(10);
	/* an error while waiting ends the wait */
	b.err = true;
	t = kthread_run(cntr_bumper_fn, &b, "kfi_cntr_adderr");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_EXPECT_EQ(test, kfi_cntr_wait(c, 100, 5000), -KFI_EAVAIL);
	KUNIT_EXPECT_EQ(test, kfi_cntr_readerr(c), 1ULL);
	msleep(10);
	KUNIT_EXPECT_EQ(test, kfi_close(&c->fid), 0);
	dom_teardown(test, &d);
}

/* Counters bound to endpoint events count completions, also errors. */
static void cntr_endpoint_events(struct kunit *test)
{
	struct xf_fixture f;
	struct kfi_cq_tagged_entry e;
	struct kfi_cq_err_entry err;
	struct kfid_cntr *extra;
	struct kfid_mr *mr;
	char buf[4][8], rbuf[16] = "", mem[64] = "";
	int i;

	prov_needs(test, KFI_MSG | KFI_RMA | KFI_RMA_EVENT);
	xf_open_ex(test, &f, 0, 0, true);
	/* no binding after enable */
	KUNIT_EXPECT_EQ(test, kfi_ep_bind(f.c.cep, &f.cn[0]->fid, KFI_SEND),
			-KFI_EOPBADSTATE);
	xf_connect(test, &f);
	KUNIT_ASSERT_EQ(test, kfi_mr_reg(f.c.d.dom, mem, sizeof(mem),
					 KFI_REMOTE_READ | KFI_REMOTE_WRITE, 0,
					 5, 0, &mr, NULL), 0);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, buf[i], 8, NULL, 0,
					       NULL), 0);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, "cnt", 4, NULL, 0,
					       NULL), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_wait(f.cn[0], 3, 5000), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_wait(f.cn[2], 3, 5000), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(f.cn[0]), 3ULL);
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(f.cn[2]), 3ULL);
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
		KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);
	}
	/* RMA: each side counts its own event */
	KUNIT_ASSERT_EQ(test, kfi_write(f.c.cep, "written", 8, NULL, 0, 8, 5,
					NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_read(f.c.cep, rbuf, 8, NULL, 0, 8, 5, NULL),
			0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_wait(f.cn[1], 2, 5000), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_wait(f.cn[3], 2, 5000), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(f.cn[3]), 2ULL);
	KUNIT_EXPECT_STREQ(test, rbuf, "written");
	KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);
	KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);
	/* a cancelled receive is an error completion: counted as one */
	KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, buf[3], 8, NULL, 0, buf[3]),
			0);
	KUNIT_EXPECT_EQ(test, kfi_cancel(&f.c.sep->fid, buf[3]), 0);
	xf_wait_err(test, f.srx, &err);
	KUNIT_EXPECT_EQ(test, kfi_cntr_readerr(f.cn[2]), 1ULL);
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(f.cn[2]), 3ULL);
	/* bound counters cannot close */
	KUNIT_EXPECT_EQ(test, kfi_close(&f.cn[0]->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, kfi_close(&mr->fid), 0);
	xf_teardown(test, &f);

	/* bind errors */
	dom_setup(test, &f.c.d, 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(f.c.d.dom, NULL, &extra, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_endpoint(f.c.d.dom, f.c.d.list, &f.c.cep,
					   NULL), 0);
	KUNIT_EXPECT_EQ(test, kfi_ep_bind(f.c.cep, &extra->fid, 0),
			-KFI_EBADFLAGS);
	KUNIT_EXPECT_EQ(test, kfi_ep_bind(f.c.cep, &extra->fid,
					  KFI_SEND | KFI_TAGGED),
			-KFI_EBADFLAGS);
	KUNIT_EXPECT_EQ(test, kfi_ep_bind(f.c.cep, &extra->fid, KFI_SEND), 0);
	KUNIT_EXPECT_EQ(test, kfi_ep_bind(f.c.cep, &extra->fid,
					  KFI_SEND | KFI_RECV), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_close(&f.c.cep->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&extra->fid), 0);
	dom_teardown(test, &f.c.d);
}

/*
 * kfi_cntr_read/readerr work in any context, with interrupts disabled
 * too (kfi_eq.h): no BH lock on that path (a local_bh_enable() with
 * interrupts off would warn, which fails the run).
 */
static void cntr_read_irqs_off(struct kunit *test)
{
	struct dom_fixture d;
	struct kfid_cntr *c;
	unsigned long flags;
	u64 v, err;

	dom_setup(test, &d, 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(d.dom, NULL, &c, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(c, 3), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_adderr(c, 2), 0);
	local_irq_save(flags);
	v = kfi_cntr_read(c);
	err = kfi_cntr_readerr(c);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, v, 3ULL);
	KUNIT_EXPECT_EQ(test, err, 2ULL);
	KUNIT_EXPECT_EQ(test, kfi_close(&c->fid), 0);
	dom_teardown(test, &d);
}

static struct kunit_case cntr_cases[] = {
	KUNIT_CASE(cntr_values),
	KUNIT_CASE(cntr_wait),
	KUNIT_CASE(cntr_endpoint_events),
	KUNIT_CASE(cntr_read_irqs_off),
	{}
};

/* ------------------------------------------------------ triggered ops */

/*
 * Triggered sends over a connected pair: each carries its 4-byte id; the
 * server's receives (posted in order) tell the order they fired in.
 */
/*
 * What trig_setup() asks for (skipped without it): triggered messages;
 * a case that also triggers RMA or tagged transfers asks for more
 * (trig_setup_caps).
 */
#define TRIG_CAPS (KFI_MSG | KFI_TRIGGER)
#define TRIG_ALL_CAPS (TRIG_CAPS | KFI_TAGGED | KFI_RMA | KFI_RMA_EVENT)

/* What the next trig_setup() asks for (once; 0: TRIG_CAPS). */
static uint64_t trig_setup_caps;

struct trig_fixture {
	struct xf_fixture x;
	struct kfid_cntr *t;			/* the triggering counter */
	struct kfi_triggered_context *tctx;	/* one per operation */
	u32 *ids, *got;
	int n;
};

static void trig_setup(struct kunit *test, struct trig_fixture *f, int n)
{
	int i;

	uint64_t caps = trig_setup_caps ?: TRIG_CAPS;

	trig_setup_caps = 0;
	prov_needs(test, caps);
	memset(f, 0, sizeof(*f));
	f->n = n;
	f->tctx = kunit_kcalloc(test, n, sizeof(*f->tctx), GFP_KERNEL);
	f->ids = kunit_kcalloc(test, n, sizeof(u32), GFP_KERNEL);
	f->got = kunit_kcalloc(test, n, sizeof(u32), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->tctx);
	KUNIT_ASSERT_NOT_NULL(test, f->ids);
	KUNIT_ASSERT_NOT_NULL(test, f->got);
	/* triggered operations are found by asking for them */
	dom_hint_caps = caps;
	xf_open_ex(test, &f->x, 0, 0, true);
	dom_hint_caps = 0;
	xf_connect(test, &f->x);
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(f->x.c.d.dom, NULL, &f->t, NULL),
			0);
	for (i = 0; i < n; i++) {
		f->ids[i] = i;
		KUNIT_ASSERT_EQ(test, kfi_recv(f->x.c.sep, &f->got[i], 4, NULL,
					       0, &f->got[i]), 0);
	}
}

static void trig_teardown(struct kunit *test, struct trig_fixture *f)
{
	KUNIT_EXPECT_EQ(test, kfi_close(&f->t->fid), 0);
	xf_teardown(test, &f->x);
}

/* Posts send @i, fired when f->t reaches @threshold. */
static ssize_t trig_send(struct trig_fixture *f, int i, u64 threshold)
{
	struct kvec iov = { &f->ids[i], 4 };
	struct kfi_msg m = { .type = KFI_KVEC, .msg_iov = &iov,
			     .iov_count = 1, .context = &f->tctx[i] };

	f->tctx[i].event_type = KFI_TRIGGER_THRESHOLD;
	f->tctx[i].trigger.threshold.cntr = f->t;
	f->tctx[i].trigger.threshold.threshold = threshold;
	return kfi_sendmsg(f->x.c.cep, &m, KFI_TRIGGER);
}

/* Expects the next @k messages to carry these ids, in this order. */
static void trig_expect(struct kunit *test, struct trig_fixture *f,
			const int *want, int k)
{
	struct kfi_cq_tagged_entry e;
	u32 *where;
	int i;

	for (i = 0; i < k; i++) {
		KUNIT_ASSERT_EQ(test, xf_wait(f->x.srx, &e), 1);
		where = e.op_context;
		KUNIT_EXPECT_EQ(test, *where, (u32)want[i]);
	}
}

/* Nothing more arrives for a while. */
static void trig_expect_quiet(struct kunit *test, struct trig_fixture *f)
{
	msleep(50);
	xf_expect_none(test, f->x.srx);
}

static void trig_drain_tx(struct kunit *test, struct trig_fixture *f, int k)
{
	struct kfi_cq_tagged_entry e;
	int i;

	for (i = 0; i < k; i++)
		KUNIT_ASSERT_EQ(test, xf_wait(f->x.ctx, &e), 1);
}

/* 5,3,9,3,7 then +10 fires 3,3,5,7,9 (the two 3s in post order). */
static void trig_threshold_order_on_jump(struct kunit *test)
{
	static const u64 th[] = { 5, 3, 9, 3, 7 };
	static const int want[] = { 1, 3, 0, 4, 2 };
	struct trig_fixture f;
	int i;

	trig_setup(test, &f, 5);
	for (i = 0; i < 5; i++)
		KUNIT_ASSERT_EQ(test, trig_send(&f, i, th[i]), 0);
	trig_expect_quiet(test, &f);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(f.t, 10), 0);
	trig_expect(test, &f, want, 5);
	trig_drain_tx(test, &f, 5);
	/* completions carry the triggered context */
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(f.x.cn[0]), 5ULL);
	trig_teardown(test, &f);
}

/*
 * kfabric's trace events over a known exchange (kfi_kunit_trace.h attaches
 * a probe to each, as trace-cmd or bpftrace would): a connection set up,
 * three receives posted, three triggered sends (thresholds 2, 1, 2) fired
 * by one add of 2, every completion. Each event is checked: the posts
 * (kind, context, length, flags, result), the queued and fired triggered
 * operations (counter, context, threshold, order), one completion per
 * operation, and both ends of the connection established. Without a probe
 * the events' bits are off again.
 */
static void trig_trace_events(struct kunit *test)
{
	static const u64 th[] = { 2, 1, 2 };
	static const int want[] = { 1, 0, 2 }, fired[] = { 1, 0, 2 };
	const struct kfi_tr_rec *r;
	struct trig_fixture f;
	const void *cntr;
	int i, k, established = 0;

	kfi_tr_start(test);
	trig_setup(test, &f, 3);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, trig_send(&f, i, th[i]), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(f.t, 2), 0);
	trig_expect(test, &f, want, 3);
	trig_drain_tx(test, &f, 3);
	kfi_tr_stop(test);

	for (i = 0; i < 3; i++) {
		/* the receive: posted once, completed once */
		KUNIT_EXPECT_EQ(test, kfi_tr_count(TR_POST, &f.got[i]), 1);
		r = kfi_tr_find(TR_POST, &f.got[i]);
		if (r) {
			KUNIT_EXPECT_EQ(test, r->op, 1);	/* recv */
			KUNIT_EXPECT_EQ(test, r->len, 4ULL);
			KUNIT_EXPECT_EQ(test, r->ret, 0L);
			KUNIT_EXPECT_EQ(test, strncmp(r->prov, "kfi_", 4), 0);
		}
		KUNIT_EXPECT_EQ(test, kfi_tr_count(TR_COMPLETE, &f.got[i]), 1);
		r = kfi_tr_find(TR_COMPLETE, &f.got[i]);
		if (r) {
			KUNIT_EXPECT_EQ(test, r->err, 0);
			KUNIT_EXPECT_EQ(test, r->len, 4ULL);
			KUNIT_EXPECT_TRUE(test, r->flags & KFI_RECV);
		}
		/* the triggered send: posted (KFI_TRIGGER), queued, fired,
		 * completed, each once */
		KUNIT_EXPECT_EQ(test, kfi_tr_count(TR_POST, &f.tctx[i]), 1);
		r = kfi_tr_find(TR_POST, &f.tctx[i]);
		if (r) {
			KUNIT_EXPECT_EQ(test, r->op, 0);	/* send */
			KUNIT_EXPECT_EQ(test, r->len, 4ULL);
			KUNIT_EXPECT_TRUE(test, r->flags & KFI_TRIGGER);
			KUNIT_EXPECT_EQ(test, r->ret, 0L);
		}
		KUNIT_EXPECT_EQ(test, kfi_tr_count(TR_TRIG_QUEUE, &f.tctx[i]), 1);
		r = kfi_tr_find(TR_TRIG_QUEUE, &f.tctx[i]);
		if (r) {
			KUNIT_EXPECT_EQ(test, r->threshold, th[i]);
			KUNIT_EXPECT_EQ(test, r->value, 0ULL);
			KUNIT_EXPECT_EQ(test, r->op, 0);
			KUNIT_EXPECT_EQ(test, r->ret, 0L);	/* not deferred */
			KUNIT_EXPECT_NOT_NULL(test, r->obj);
		}
		KUNIT_EXPECT_EQ(test, kfi_tr_count(TR_TRIG_FIRE, &f.tctx[i]), 1);
		KUNIT_EXPECT_EQ(test, kfi_tr_count(TR_COMPLETE, &f.tctx[i]), 1);
		r = kfi_tr_find(TR_COMPLETE, &f.tctx[i]);
		if (r) {
			KUNIT_EXPECT_EQ(test, r->err, 0);
			KUNIT_EXPECT_TRUE(test, r->flags & KFI_SEND);
		}
	}
	/* fired in threshold order (the two 2s in post order), at value 2,
	 * on the counter they were queued on */
	r = kfi_tr_find(TR_TRIG_QUEUE, &f.tctx[0]);
	cntr = r ? r->obj : NULL;
	for (i = 0, k = 0; i < kfi_tr.n && k < 3; i++) {
		r = &kfi_tr.r[i];
		if (r->ev != TR_TRIG_FIRE)
			continue;
		KUNIT_EXPECT_PTR_EQ(test, r->ctx, (const void *)&f.tctx[fired[k]]);
		KUNIT_EXPECT_EQ(test, r->threshold, th[fired[k]]);
		KUNIT_EXPECT_EQ(test, r->value, 2ULL);
		KUNIT_EXPECT_PTR_EQ(test, r->obj, cntr);
		k++;
	}
	KUNIT_EXPECT_EQ(test, k, 3);
	/* both ends came up, with the peer's address */
	for (i = 0; i < kfi_tr.n; i++) {
		r = &kfi_tr.r[i];
		if (r->ev == TR_CONN && !strcmp(r->str, "established")) {
			established++;
			KUNIT_EXPECT_TRUE(test, r->op == AF_INET || r->op == AF_INET6);
		}
	}
	KUNIT_EXPECT_EQ(test, established, 2);
	/* nothing failed, nothing stalled */
	KUNIT_EXPECT_EQ(test, kfi_tr_count(TR_ERROR, NULL), 0);
	trig_teardown(test, &f);
}

/* Single increments fire one threshold at a time; equal ones in FIFO. */
static void trig_single_increments_fifo(struct kunit *test)
{
	static const u64 th[] = { 3, 1, 2, 2, 1 };
	static const int w1[] = { 1, 4 }, w2[] = { 2, 3 }, w3[] = { 0 };
	struct trig_fixture f;
	int i;

	trig_setup(test, &f, 5);
	for (i = 0; i < 5; i++)
		KUNIT_ASSERT_EQ(test, trig_send(&f, i, th[i]), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(f.t, 1), 0);
	trig_expect(test, &f, w1, 2);
	trig_expect_quiet(test, &f);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(f.t, 1), 0);
	trig_expect(test, &f, w2, 2);
	trig_expect_quiet(test, &f);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(f.t, 1), 0);
	trig_expect(test, &f, w3, 1);
	trig_drain_tx(test, &f, 5);
	trig_teardown(test, &f);
}

/* At, below and above the counter; a set to a lower value fires nothing. */
static void trig_immediate_and_set_lower(struct kunit *test)
{
	static const int w1[] = { 0, 1 }, w2[] = { 2 };
	struct trig_fixture f;

	trig_setup(test, &f, 3);
	KUNIT_ASSERT_EQ(test, kfi_cntr_set(f.t, 5), 0);
	KUNIT_ASSERT_EQ(test, trig_send(&f, 0, 5), 0);	/* at: fires */
	KUNIT_ASSERT_EQ(test, trig_send(&f, 1, 4), 0);	/* below: fires */
	trig_expect(test, &f, w1, 2);
	KUNIT_ASSERT_EQ(test, trig_send(&f, 2, 6), 0);	/* above: waits */
	KUNIT_ASSERT_EQ(test, kfi_cntr_set(f.t, 2), 0);
	trig_expect_quiet(test, &f);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(f.t, 3), 0);	/* 5: still not */
	trig_expect_quiet(test, &f);
	/* the error count does not count (kfi_trigger.h: success count) */
	KUNIT_ASSERT_EQ(test, kfi_cntr_adderr(f.t, 1), 0);
	trig_expect_quiet(test, &f);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(f.t, 1), 0);
	trig_expect(test, &f, w2, 1);
	trig_drain_tx(test, &f, 3);
	trig_teardown(test, &f);
}

/*
 * An add makes operations due and a set lowers the value before they are
 * issued (the add only wakes the issuing work item): they still fire, in
 * threshold order; so do those an add that wraps past U64_MAX made due.
 * Due operations cannot be cancelled. A post after the lowering waits for
 * its own threshold.
 */
static void trig_due_survives_lowering(struct kunit *test)
{
	static const int w1[] = { 1, 2, 0 }, w2[] = { 4 }, w3[] = { 3 };
	struct trig_fixture f;

	trig_setup(test, &f, 5);
	KUNIT_ASSERT_EQ(test, trig_send(&f, 0, 5), 0);
	KUNIT_ASSERT_EQ(test, trig_send(&f, 1, 3), 0);
	KUNIT_ASSERT_EQ(test, trig_send(&f, 2, 4), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(f.t, 5), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_set(f.t, 0), 0);
	KUNIT_EXPECT_EQ(test, kfi_cancel(&f.x.c.cep->fid, &f.tctx[0]), -ENOENT);
	trig_expect(test, &f, w1, 3);
	KUNIT_ASSERT_EQ(test, trig_send(&f, 3, 1), 0);
	trig_expect_quiet(test, &f);
	/* due at U64_MAX, then the value wraps to 1 before it is issued */
	KUNIT_ASSERT_EQ(test, kfi_cntr_set(f.t, U64_MAX - 1), 0);
	trig_expect(test, &f, w3, 1);
	KUNIT_ASSERT_EQ(test, trig_send(&f, 4, U64_MAX), 0);
	trig_expect_quiet(test, &f);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(f.t, 1), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(f.t, 2), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(f.t), 1ULL);
	trig_expect(test, &f, w2, 1);
	trig_drain_tx(test, &f, 5);
	trig_teardown(test, &f);
}

/* Cancel one pending operation among several. */
static void trig_cancel_one(struct kunit *test)
{
	static const int want[] = { 0, 2, 3 };
	struct trig_fixture f;
	struct kfi_cq_err_entry err;
	int i;

	trig_setup(test, &f, 4);
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, trig_send(&f, i, i + 1), 0);
	/* pending operations keep their endpoint open */
	KUNIT_EXPECT_EQ(test, kfi_close(&f.x.c.cep->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, kfi_cancel(&f.x.c.cep->fid, &f.tctx[1]), 0);
	KUNIT_EXPECT_EQ(test, kfi_cancel(&f.x.c.cep->fid, &f.tctx[1]), -ENOENT);
	xf_wait_err(test, f.x.ctx, &err);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)&f.tctx[1]);
	KUNIT_EXPECT_EQ(test, err.err, ECANCELED);
	KUNIT_EXPECT_EQ(test, err.flags, KFI_SEND | KFI_MSG);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(f.t, 4), 0);
	trig_expect(test, &f, want, 3);
	trig_drain_tx(test, &f, 3);
	trig_teardown(test, &f);
}

/* 64-bit thresholds near the top of the range. */
static void trig_near_overflow(struct kunit *test)
{
	static const int w1[] = { 1 }, w2[] = { 0 };
	struct trig_fixture f;

	trig_setup(test, &f, 2);
	KUNIT_ASSERT_EQ(test, kfi_cntr_set(f.t, U64_MAX - 2), 0);
	KUNIT_ASSERT_EQ(test, trig_send(&f, 0, U64_MAX), 0);
	KUNIT_ASSERT_EQ(test, trig_send(&f, 1, U64_MAX - 1), 0);
	trig_expect_quiet(test, &f);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(f.t, 1), 0);
	trig_expect(test, &f, w1, 1);
	trig_expect_quiet(test, &f);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(f.t, 1), 0);
	trig_expect(test, &f, w2, 1);
	trig_drain_tx(test, &f, 2);
	trig_teardown(test, &f);
}

/* Deferred work: n CNTR_ADD(1) on @target, triggered by @t at thresholds
 * 1..spread; posts retry while the engine grows. */
static struct kfi_deferred_work *queue_adds(struct kunit *test,
					    struct kfid_domain *dom,
					    struct kfid_cntr *t,
					    struct kfid_cntr *target, int n,
					    int spread)
{
	struct kfi_deferred_work *w = vzalloc(n * sizeof(*w));
	struct kfi_op_cntr *op = vzalloc(n * sizeof(*op));
	int i, r;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, op);
	for (i = 0; i < n; i++) {
		op[i] = (struct kfi_op_cntr){ .cntr = target, .value = 1 };
		w[i].threshold = (i * 7919) % spread + 1;
		w[i].triggering_cntr = t;
		w[i].op_type = KFI_OP_CNTR_ADD;
		w[i].op.cntr = &op[i];
		while ((r = kfi_control(&dom->fid, KFI_QUEUE_WORK, &w[i])) ==
		       -EAGAIN)
			cond_resched();
		KUNIT_ASSERT_EQ(test, r, 0);
	}
	return w;
}

static void free_adds(struct kfi_deferred_work *w)
{
	vfree(w[0].op.cntr);
	vfree(w);
}

/* 100 000 pending operations fired by one add. */
static void trig_100k_one_add(struct kunit *test)
{
	struct dom_fixture d;
	struct kfid_cntr *t, *target;
	struct kfi_deferred_work *w;
	const int n = 100000;

	dom_setup(test, &d, 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(d.dom, NULL, &t, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(d.dom, NULL, &target, NULL), 0);
	w = queue_adds(test, d.dom, t, target, n, 1000);
	msleep(20);
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(target), 0ULL);
	/* a target with work pending on it cannot close */
	KUNIT_EXPECT_EQ(test, kfi_close(&target->fid), -EBUSY);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(t, 1000), 0);
	/*
	 * A bound, not a timing goal: under KASAN on a busy 2-CPU emulator
	 * the 100 000 adds took over 30 s once (95 600 done); the case must
	 * stay within KUnit's 300 s.
	 */
	KUNIT_EXPECT_EQ(test, kfi_cntr_wait(target, n, 150000), 0);
	msleep(20);
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(target), (u64)n);
	KUNIT_EXPECT_EQ(test, kfi_close(&target->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&t->fid), 0);
	free_adds(w);
	dom_teardown(test, &d);
}

struct adder {
	struct kfid_cntr *t;
	int times;
};

static int adder_fn(void *arg)
{
	struct adder *a = arg;
	int i;

	for (i = 0; i < a->times; i++) {
		kfi_cntr_add(a->t, 1);
		if (!(i % 64))
			cond_resched();
	}
	return 0;
}

/* Increments from every CPU while work is posted: each fires once. */
static void trig_concurrent_adds(struct kunit *test)
{
	struct dom_fixture d;
	struct kfid_cntr *t, *target;
	struct kfi_deferred_work *w;
	struct task_struct *tasks[8];
	struct adder a;
	int cpu, k = 0, i;
	const int n = 20000;

	dom_setup(test, &d, 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(d.dom, NULL, &t, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(d.dom, NULL, &target, NULL), 0);
	a = (struct adder){ .t = t, .times = 5000 };
	for_each_online_cpu(cpu) {
		if (k == ARRAY_SIZE(tasks))
			break;
		tasks[k] = kthread_create(adder_fn, &a, "kfi_adder/%d", cpu);
		KUNIT_ASSERT_FALSE(test, IS_ERR(tasks[k]));
		kthread_bind(tasks[k], cpu);
		get_task_struct(tasks[k]);
		wake_up_process(tasks[k]);
		k++;
	}
	/* thresholds up to 10000, below the final value k * 5000 */
	w = queue_adds(test, d.dom, t, target, n, 10000);
	for (i = 0; i < k; i++) {
		kthread_stop(tasks[i]);
		put_task_struct(tasks[i]);
	}
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(t), (u64)k * 5000);
	KUNIT_EXPECT_EQ(test, kfi_cntr_wait(target, n, 30000), 0);
	msleep(50);
	/* no firing lost, none duplicated */
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(target), (u64)n);
	KUNIT_EXPECT_EQ(test, kfi_close(&target->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&t->fid), 0);
	free_adds(w);
	dom_teardown(test, &d);
}

/* CNTR_SET(5) then CNTR_ADD(5) gives 10; cancel and flush of work. */
static void trig_deferred_cntr_ops(struct kunit *test)
{
	struct dom_fixture d;
	struct kfid_cntr *t, *target;
	struct kfi_op_cntr set = { .value = 5 }, add = { .value = 5 };
	struct kfi_deferred_work ws = {}, wa = {}, wx = {};
	u64 one = 1;
	struct kfi_ioc ioc = { .addr = &one, .count = 1 };
	struct kfi_rma_ioc rioc = { .count = 1 };
	struct kfi_op_atomic aop = {
		.msg = { .msg_iov = &ioc, .iov_count = 1, .rma_iov = &rioc,
			 .rma_iov_count = 1, .datatype = KFI_UINT64,
			 .op = KFI_SUM },
	};

	dom_setup(test, &d, 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(d.dom, NULL, &t, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(d.dom, NULL, &target, NULL), 0);
	set.cntr = target;
	add.cntr = target;
	ws = (struct kfi_deferred_work){ .threshold = 1, .triggering_cntr = t,
					 .op_type = KFI_OP_CNTR_SET,
					 .op.cntr = &set };
	wa = ws;
	wa.op_type = KFI_OP_CNTR_ADD;
	wa.op.cntr = &add;
	wx = wa;
	wx.threshold = 2;
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(target, 100), 0);
	KUNIT_ASSERT_EQ(test, kfi_control(&d.dom->fid, KFI_QUEUE_WORK, &ws), 0);
	KUNIT_ASSERT_EQ(test, kfi_control(&d.dom->fid, KFI_QUEUE_WORK, &wa), 0);
	KUNIT_ASSERT_EQ(test, kfi_control(&d.dom->fid, KFI_QUEUE_WORK, &wx), 0);
	/* withdraw wx before it fires */
	KUNIT_EXPECT_EQ(test, kfi_control(&d.dom->fid, KFI_CANCEL_WORK, &wx),
			0);
	KUNIT_EXPECT_EQ(test, kfi_control(&d.dom->fid, KFI_CANCEL_WORK, &wx),
			-ENOENT);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(t, 2), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_wait(target, 10, 5000), 0);
	msleep(20);
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(target), 10ULL);
	/* flush withdraws what is queued */
	wx.threshold = 50;
	KUNIT_ASSERT_EQ(test, kfi_control(&d.dom->fid, KFI_QUEUE_WORK, &wx), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&target->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, kfi_control(&d.dom->fid, KFI_FLUSH_WORK, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(t, 100), 0);
	msleep(20);
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(target), 10ULL);
	/* bad work: an atomic where the provider does none */
	if (!(cur_prov->caps & KFI_ATOMIC)) {
		wx.op_type = KFI_OP_ATOMIC;
		wx.op.atomic = &aop;
		KUNIT_EXPECT_EQ(test, kfi_control(&d.dom->fid, KFI_QUEUE_WORK,
						  &wx), -ENOSYS);
	}
	wx.op_type = KFI_OP_CNTR_ADD;
	wx.op.cntr = &add;
	wx.triggering_cntr = NULL;
	KUNIT_EXPECT_EQ(test, kfi_control(&d.dom->fid, KFI_QUEUE_WORK, &wx),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_close(&target->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&t->fid), 0);
	dom_teardown(test, &d);
}

/*
 * A triggered write with threshold tx+1 posted before a plain write to the
 * same target lands after it; the write counter advances by 2. Then a
 * WRITE and a READ chained through a completion counter, and RECV->SEND
 * and TRECV->TSEND chains.
 */
/* The deferred work of trig_end_to_end (off the stack). */
struct e2e_work {
	struct kfi_deferred_work ww, rw, sw, tsw;
	struct kfi_op_rma wop, rop;
	struct kfi_op_msg sop;
	struct kfi_op_tagged top;
};

/*
 * Deferred work chained through a completion counter: a WRITE (w->wop)
 * fired by one add to fp->t, whose completion counter @done fires a READ
 * (w->rop, context @back) that brings back what the write put ("WRT2").
 */
static void trig_write_then_read(struct kunit *test, struct trig_fixture *fp,
				 struct e2e_work *w, struct kfid_cntr *done,
				 char *back)
{
	struct kfi_cq_tagged_entry e;

	w->ww = (struct kfi_deferred_work){ .threshold = 1,
					 .triggering_cntr = fp->t,
					 .completion_cntr = done,
					 .op_type = KFI_OP_WRITE,
					 .op.rma = &w->wop };
	w->rw = (struct kfi_deferred_work){ .threshold = 1,
					 .triggering_cntr = done,
					 .op_type = KFI_OP_READ,
					 .op.rma = &w->rop };
	KUNIT_ASSERT_EQ(test, kfi_control(&fp->x.c.d.dom->fid, KFI_QUEUE_WORK,
					  &w->rw), 0);
	KUNIT_ASSERT_EQ(test, kfi_control(&fp->x.c.d.dom->fid, KFI_QUEUE_WORK,
					  &w->ww), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(fp->t, 1), 0);
	KUNIT_ASSERT_EQ(test, xf_wait(fp->x.ctx, &e), 1);	/* the write */
	KUNIT_ASSERT_EQ(test, xf_wait(fp->x.ctx, &e), 1);	/* the read */
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)back);
	KUNIT_EXPECT_STREQ(test, back, "WRT2");
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(done), 1ULL);
}


/*
 * Triggered and deferred RMA, on every provider that does RMA (keys as
 * the provider gives them, kfi_mr_key()): a write queued with KFI_TRIGGER
 * waits for its counter (the client's READ|WRITE counter) and fires when
 * a plain write completes, before a read that then finds its bytes; a
 * deferred WRITE whose completion counter triggers a deferred READ: the
 * read returns what the write put, the completion counter counts one.
 */
static void trig_rma(struct kunit *test)
{
	struct trig_fixture *fp = kunit_kzalloc(test, sizeof(*fp), GFP_KERNEL);
	struct e2e_work *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct kfid_cntr *done;
	struct kfid_mr *mr;
	char *mem, back[8] = "";
	struct kvec tw = { "TRIG", 5 }, wv = { "WRT2", 5 }, rv = { back, 5 };
	struct kfi_rma_iov ri = { .addr = 0, .len = 5 };
	struct kfi_msg_rma tm = { .type = KFI_KVEC, .msg_iov = &tw,
				  .iov_count = 1, .rma_iov = &ri,
				  .rma_iov_count = 1 };

	KUNIT_ASSERT_NOT_NULL(test, fp);
	KUNIT_ASSERT_NOT_NULL(test, w);
	mem = kunit_kzalloc(test, 16, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mem);
	trig_setup_caps = TRIG_CAPS | KFI_RMA;
	trig_setup(test, fp, 1);
	KUNIT_ASSERT_EQ(test, kfi_mr_reg(fp->x.c.d.dom, mem, 16,
					 KFI_REMOTE_READ | KFI_REMOTE_WRITE, 0,
					 9, 0, &mr, NULL), 0);
	ri.key = kfi_mr_key(mr);
	tm.context = &fp->tctx[0];
	fp->tctx[0].event_type = KFI_TRIGGER_THRESHOLD;
	fp->tctx[0].trigger.threshold.cntr = fp->x.cn[1];
	fp->tctx[0].trigger.threshold.threshold = 1;
	KUNIT_ASSERT_EQ(test, kfi_writemsg(fp->x.c.cep, &tm, KFI_TRIGGER), 0);
	/* nothing moved yet */
	msleep(50);
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(fp->x.cn[1]), 0ULL);
	KUNIT_EXPECT_STREQ(test, mem, "");
	KUNIT_ASSERT_EQ(test, kfi_write(fp->x.c.cep, "PLAIN", 6, NULL, 0, 0,
					ri.key, NULL), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_wait(fp->x.cn[1], 2, 5000), 0);
	KUNIT_ASSERT_EQ(test, kfi_read(fp->x.c.cep, back, 6, NULL, 0, 0,
				       ri.key, NULL), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_wait(fp->x.cn[1], 3, 5000), 0);
	/* the triggered write came after the plain one */
	KUNIT_EXPECT_STREQ(test, back, "TRIG");
	KUNIT_EXPECT_STREQ(test, mem, "TRIG");
	trig_drain_tx(test, fp, 3);

	/* deferred WRITE, then READ through its completion counter */
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(fp->x.c.d.dom, NULL, &done, NULL),
			0);
	w->wop = (struct kfi_op_rma){ .ep = fp->x.c.cep,
				      .msg = { .type = KFI_KVEC, .msg_iov = &wv,
					       .iov_count = 1, .rma_iov = &ri,
					       .rma_iov_count = 1 },
				      .flags = KFI_COMPLETION };
	w->rop = (struct kfi_op_rma){ .ep = fp->x.c.cep,
				      .msg = { .type = KFI_KVEC, .msg_iov = &rv,
					       .iov_count = 1, .rma_iov = &ri,
					       .rma_iov_count = 1,
					       .context = back },
				      .flags = KFI_COMPLETION };
	memset(back, 0, sizeof(back));
	trig_write_then_read(test, fp, w, done, back);
	KUNIT_EXPECT_EQ(test, kfi_close(&done->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&mr->fid), 0);
	trig_teardown(test, fp);
}

/*
 * Over IPv6 (::1): a triggered send fires when its counter reaches the
 * threshold.
 */
static void trig_ipv6_threshold(struct kunit *test)
{
	struct trig_fixture *fp = kunit_kzalloc(test, sizeof(*fp), GFP_KERNEL);
	static const int want[] = { 1, 0 };

	KUNIT_ASSERT_NOT_NULL(test, fp);
	if (!cur_prov->node6)
		kunit_skip(test, "%s: no IPv6 node", cur_prov->name);
	xf_next_node = cur_prov->node6;
	trig_setup(test, fp, 2);
	KUNIT_ASSERT_EQ(test, trig_send(fp, 0, 3), 0);
	KUNIT_ASSERT_EQ(test, trig_send(fp, 1, 2), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(fp->t, 1), 0);
	trig_expect_quiet(test, fp);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(fp->t, 1), 0);
	trig_expect(test, fp, want, 1);
	trig_expect_quiet(test, fp);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(fp->t, 1), 0);
	trig_expect(test, fp, want + 1, 1);
	trig_drain_tx(test, fp, 2);
	trig_teardown(test, fp);
}

static void trig_end_to_end(struct kunit *test)
{
	struct trig_fixture *fp = kunit_kzalloc(test, sizeof(*fp), GFP_KERNEL);
	struct kfi_cq_tagged_entry e;
	struct kfid_cntr *done;
	struct kfid_mr *mr;
	char mem[16] = "", back[8] = "", reply[8] = "", treply[8] = "";
	struct kvec tw = { "TRIG", 5 }, wv = { "WRT2", 5 }, rv = { back, 5 };
	struct kvec sv = { "pong", 5 }, tsv = { "tpong", 6 };
	struct kfi_rma_iov ri = { .addr = 0, .len = 5, .key = 9 };
	struct kfi_msg_rma tm = { .type = KFI_KVEC, .msg_iov = &tw,
				  .iov_count = 1, .rma_iov = &ri,
				  .rma_iov_count = 1 };
	struct e2e_work *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, fp);
	trig_setup_caps = TRIG_ALL_CAPS;
	trig_setup(test, fp, 1);
	tm.context = &fp->tctx[0];
	KUNIT_ASSERT_NOT_NULL(test, w);
	/* deferred work writes endpoint completions only when asked */
	w->wop = (struct kfi_op_rma){ .msg = { .type = KFI_KVEC, .msg_iov = &wv,
					       .iov_count = 1, .rma_iov = &ri,
					       .rma_iov_count = 1 },
				      .flags = KFI_COMPLETION };
	w->rop = (struct kfi_op_rma){ .msg = { .type = KFI_KVEC, .msg_iov = &rv,
					       .iov_count = 1, .rma_iov = &ri,
					       .rma_iov_count = 1,
					       .context = back },
				      .flags = KFI_COMPLETION };
	w->sop = (struct kfi_op_msg){ .msg = { .type = KFI_KVEC, .msg_iov = &sv,
					       .iov_count = 1 },
				      .flags = KFI_COMPLETION };
	w->top = (struct kfi_op_tagged){ .msg = { .type = KFI_KVEC,
						  .msg_iov = &tsv,
						  .iov_count = 1, .tag = 42 },
					 .flags = KFI_COMPLETION };
	KUNIT_ASSERT_EQ(test, kfi_mr_reg(fp->x.c.d.dom, mem, sizeof(mem),
					 KFI_REMOTE_READ | KFI_REMOTE_WRITE, 0,
					 9, 0, &mr, NULL), 0);
	/* client's READ|WRITE counter is fp->x.cn[1]: at 0 now */
	fp->tctx[0].event_type = KFI_TRIGGER_THRESHOLD;
	fp->tctx[0].trigger.threshold.cntr = fp->x.cn[1];
	fp->tctx[0].trigger.threshold.threshold = 1;
	KUNIT_ASSERT_EQ(test, kfi_writemsg(fp->x.c.cep, &tm, KFI_TRIGGER), 0);
	KUNIT_ASSERT_EQ(test, kfi_write(fp->x.c.cep, "PLAIN", 5, NULL, 0, 0, 9,
					NULL), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_wait(fp->x.cn[1], 2, 5000), 0);
	/* the target counted both writes */
	KUNIT_EXPECT_EQ(test, kfi_cntr_wait(fp->x.cn[3], 2, 5000), 0);
	KUNIT_ASSERT_EQ(test, kfi_read(fp->x.c.cep, back, 5, NULL, 0, 0, 9,
				       NULL), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_wait(fp->x.cn[1], 3, 5000), 0);
	KUNIT_EXPECT_STREQ(test, back, "TRIG");
	KUNIT_EXPECT_STREQ(test, mem, "TRIG");
	trig_drain_tx(test, fp, 3);

	/* WRITE then READ chained through the completion counter */
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(fp->x.c.d.dom, NULL, &done, NULL), 0);
	w->wop.ep = fp->x.c.cep;
	w->rop.ep = fp->x.c.cep;
	memset(back, 0, sizeof(back));
	trig_write_then_read(test, fp, w, done, back);

	/* RECV -> SEND: the server answers when its receive completes
	 * (its RECV counter fp->x.cn[2] is at 0: the one preposted receive) */
	w->sop.ep = fp->x.c.sep;
	w->sw = (struct kfi_deferred_work){ .threshold = 1,
					 .triggering_cntr = fp->x.cn[2],
					 .op_type = KFI_OP_SEND, .op.msg = &w->sop };
	KUNIT_ASSERT_EQ(test, kfi_control(&fp->x.c.d.dom->fid, KFI_QUEUE_WORK,
					  &w->sw), 0);
	KUNIT_ASSERT_EQ(test, kfi_recv(fp->x.c.cep, reply, 8, NULL, 0, reply),
			0);
	KUNIT_ASSERT_EQ(test, kfi_inject(fp->x.c.cep, &fp->ids[0], 4, 0), 0);
	KUNIT_ASSERT_EQ(test, xf_wait(fp->x.crx, &e), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)reply);
	KUNIT_EXPECT_STREQ(test, reply, "pong");
	KUNIT_ASSERT_EQ(test, xf_wait(fp->x.srx, &e), 1);
	KUNIT_ASSERT_EQ(test, xf_wait(fp->x.stx, &e), 1);

	/* TRECV -> TSEND */
	KUNIT_ASSERT_EQ(test, kfi_trecv(fp->x.c.sep, reply, 8, NULL, 0, 7, 0,
					NULL), 0);
	w->top.ep = fp->x.c.sep;
	w->tsw = (struct kfi_deferred_work){ .threshold = 2,
					  .triggering_cntr = fp->x.cn[2],
					  .op_type = KFI_OP_TSEND,
					  .op.tagged = &w->top };
	KUNIT_ASSERT_EQ(test, kfi_control(&fp->x.c.d.dom->fid, KFI_QUEUE_WORK,
					  &w->tsw), 0);
	KUNIT_ASSERT_EQ(test, kfi_trecv(fp->x.c.cep, treply, 8, NULL, 0, 42, 0,
					treply), 0);
	KUNIT_ASSERT_EQ(test, kfi_tinject(fp->x.c.cep, "t", 2, 0, 7), 0);
	KUNIT_ASSERT_EQ(test, xf_wait(fp->x.crx, &e), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)treply);
	KUNIT_EXPECT_EQ(test, e.tag, 42ULL);
	KUNIT_EXPECT_STREQ(test, treply, "tpong");
	KUNIT_ASSERT_EQ(test, xf_wait(fp->x.srx, &e), 1);
	KUNIT_ASSERT_EQ(test, xf_wait(fp->x.stx, &e), 1);
	KUNIT_EXPECT_EQ(test, kfi_close(&mr->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&done->fid), 0);
	trig_teardown(test, fp);
}


/* An alias created with KFI_TRIGGER defers every transfer posted on it. */
static void trig_alias(struct kunit *test)
{
	static const int want[] = { 1, 0 };
	struct trig_fixture f;
	struct kfid_ep *alias;
	struct sockaddr_in sin;
	size_t l = sizeof(sin);
	int i;

	trig_setup(test, &f, 2);
	KUNIT_ASSERT_EQ(test, kfi_ep_alias(f.x.c.cep, &alias,
					   KFI_TRANSMIT | KFI_TRIGGER), 0);
	KUNIT_EXPECT_EQ(test, alias->fid.fclass, (size_t)KFI_CLASS_EP);
	for (i = 0; i < 2; i++) {
		f.tctx[i].event_type = KFI_TRIGGER_THRESHOLD;
		f.tctx[i].trigger.threshold.cntr = f.t;
		f.tctx[i].trigger.threshold.threshold = 2 - i;
		KUNIT_ASSERT_EQ(test, kfi_send(alias, &f.ids[i], 4, NULL, 0,
					       &f.tctx[i]), 0);
	}
	trig_expect_quiet(test, &f);
	/* connection management is not offered on an alias */
	KUNIT_EXPECT_EQ(test, kfi_getname(&alias->fid, &sin, &l), -KFI_ENOSYS);
	KUNIT_EXPECT_EQ(test, kfi_ep_alias(f.x.c.cep, &alias, KFI_MULTI_RECV),
			-KFI_EBADFLAGS);
	/* the endpoint stays while the alias (or its operations) does */
	KUNIT_EXPECT_EQ(test, kfi_close(&f.x.c.cep->fid), -EBUSY);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(f.t, 2), 0);
	trig_expect(test, &f, want, 2);
	trig_drain_tx(test, &f, 2);
	KUNIT_EXPECT_EQ(test, kfi_close(&alias->fid), 0);
	trig_teardown(test, &f);
}

/*
 * A KFI_TRIGGER transfer fires on the counter's success count: an error
 * completion does not release it. Deferred work counts success plus error
 * (fi_trigger(3)).
 */
static void trig_success_count_only(struct kunit *test)
{
	static const int want[] = { 0 };
	struct trig_fixture f;
	struct kfid_cntr *target;
	struct kfi_op_cntr add = { .value = 7 };
	struct kfi_deferred_work w = {};

	trig_setup(test, &f, 1);
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(f.x.c.d.dom, NULL, &target, NULL),
			0);
	add.cntr = target;
	w = (struct kfi_deferred_work){ .threshold = 2, .triggering_cntr = f.t,
					.op_type = KFI_OP_CNTR_ADD,
					.op.cntr = &add };
	KUNIT_ASSERT_EQ(test, trig_send(&f, 0, 2), 0);
	KUNIT_ASSERT_EQ(test, kfi_control(&f.x.c.d.dom->fid, KFI_QUEUE_WORK,
					  &w), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(f.t, 1), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_adderr(f.t, 1), 0);
	/* success 1 + error 1: the deferred work fires, the send does not */
	KUNIT_EXPECT_EQ(test, kfi_cntr_wait(target, 7, 5000), 0);
	trig_expect_quiet(test, &f);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(f.t, 1), 0);
	trig_expect(test, &f, want, 1);
	trig_drain_tx(test, &f, 1);
	KUNIT_EXPECT_EQ(test, kfi_close(&target->fid), 0);
	trig_teardown(test, &f);
}

/*
 * KFI_INJECT|KFI_TRIGGER (and KFI_INJECT on a KFI_TRIGGER alias): the
 * payload is the one in the buffer when the call returned, whatever the
 * buffer holds when the operation fires.
 */
static void trig_inject_copied_at_post(struct kunit *test)
{
	static const int want[] = { 0, 1 };
	struct trig_fixture f;
	struct kfid_ep *alias;
	struct kvec iov;
	struct kfi_msg m = { .type = KFI_KVEC, .msg_iov = &iov,
			     .iov_count = 1 };
	int i;

	trig_setup(test, &f, 2);
	KUNIT_ASSERT_EQ(test, kfi_ep_alias(f.x.c.cep, &alias,
					   KFI_TRANSMIT | KFI_TRIGGER), 0);
	for (i = 0; i < 2; i++) {
		iov = (struct kvec){ &f.ids[i], 4 };
		m.context = &f.tctx[i];
		f.tctx[i].event_type = KFI_TRIGGER_THRESHOLD;
		f.tctx[i].trigger.threshold.cntr = f.t;
		f.tctx[i].trigger.threshold.threshold = 1;
		if (i == 0)
			KUNIT_ASSERT_EQ(test, kfi_sendmsg(f.x.c.cep, &m,
					KFI_INJECT | KFI_TRIGGER), 0);
		else
			KUNIT_ASSERT_EQ(test, kfi_sendmsg(alias, &m,
							  KFI_INJECT), 0);
		/* the buffer is the caller's again */
		f.ids[i] = 0xdead0000 + i;
	}
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(f.t, 1), 0);
	trig_expect(test, &f, want, 2);
	trig_drain_tx(test, &f, 2);
	KUNIT_EXPECT_EQ(test, kfi_close(&alias->fid), 0);
	trig_teardown(test, &f);
}

/*
 * A triggered inject is sent from the provider's copy of its payload, so
 * the consumer's memory descriptors are neither kept nor read for it: a
 * zero-length KFI_INJECT|KFI_TRIGGER message whose desc array has no
 * entry (a 1-byte allocation: on a KASAN kernel any read of a descriptor
 * from it is reported) arrives empty when the counter reaches its
 * threshold.
 */
static void trig_inject_keeps_no_desc(struct kunit *test)
{
	struct trig_fixture f;
	struct kfi_cq_tagged_entry e;
	struct kfi_msg m = { .type = KFI_KVEC, .iov_count = 0 };
	/* the test's (freed when it ends: trig_setup may skip the case) */
	void **desc = kunit_kmalloc(test, 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, desc);
	trig_setup(test, &f, 1);
	m.desc = desc;
	m.context = &f.tctx[0];
	f.tctx[0].event_type = KFI_TRIGGER_THRESHOLD;
	f.tctx[0].trigger.threshold.cntr = f.t;
	f.tctx[0].trigger.threshold.threshold = 1;
	KUNIT_ASSERT_EQ(test, kfi_sendmsg(f.x.c.cep, &m,
					  KFI_INJECT | KFI_TRIGGER), 0);
	trig_expect_quiet(test, &f);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(f.t, 1), 0);
	KUNIT_ASSERT_EQ(test, xf_wait(f.x.srx, &e), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&f.got[0]);
	KUNIT_EXPECT_EQ(test, e.len, (size_t)0);
	trig_drain_tx(test, &f, 1);
	trig_teardown(test, &f);
}

/*
 * A triggered operation holds its CQ slot from its post: a full CQ refuses
 * the post (-EAGAIN) rather than losing its completion, and a pending one's
 * cancellation entry always finds room.
 */
static void trig_cq_slot_reserved(struct kunit *test)
{
	struct trig_fixture f;
	struct kfi_cq_tagged_entry e;
	struct kfi_cq_err_entry err;
	int sent = 0, tries = 0, got = 0, errs, i;
	bool rx_ready = true;
	static char sink[1];
	ssize_t r;

	trig_setup(test, &f, 2);
	KUNIT_ASSERT_EQ(test, trig_send(&f, 0, 1), 0);
	/*
	 * Fill the client's 256-entry transmit CQ with plain sends, each
	 * with a receive posted for it (an RC queue pair completes a send
	 * only once a receive took it; the first two take trig_setup's),
	 * whose entries are read as they come.
	 */
	while (tries < 100) {
		while (kfi_cq_read(f.x.srx, &e, 1) == 1)
			got++;
		if (!rx_ready)
			rx_ready = !kfi_recv(f.x.c.sep, sink, sizeof(sink),
					     NULL, 0, NULL);
		r = kfi_send(f.x.c.cep, "", 0, NULL, 0, NULL);
		if (r == -EAGAIN) {
			tries++;
			msleep(10);
			continue;
		}
		KUNIT_ASSERT_EQ(test, r, (ssize_t)0);
		sent++;
		tries = 0;
		rx_ready = false;
	}
	KUNIT_EXPECT_EQ(test, sent, 255);
	/* no room for another triggered operation either */
	KUNIT_EXPECT_EQ(test, trig_send(&f, 1, 1), (ssize_t)-EAGAIN);
	KUNIT_ASSERT_EQ(test, kfi_cancel(&f.x.c.cep->fid, &f.tctx[0]), 0);
	/*
	 * The sends' entries and the cancelled one's error entry, which
	 * comes at once: before the last sends' when they complete late
	 * (verbs soft mode streams one message at a time).
	 */
	for (i = 0, errs = 0; i < sent || !errs;) {
		r = xf_wait(f.x.ctx, &e);
		if (r == -KFI_EAVAIL && !errs++) {
			xf_wait_err(test, f.x.ctx, &err);
			KUNIT_EXPECT_PTR_EQ(test, err.op_context,
					    (void *)&f.tctx[0]);
			KUNIT_EXPECT_EQ(test, err.err, ECANCELED);
			continue;
		}
		KUNIT_ASSERT_EQ(test, r, (ssize_t)1);
		i++;
	}
	xf_expect_none(test, f.x.ctx);
	/* every message arrived */
	for (; got < sent; got++)
		KUNIT_ASSERT_EQ(test, xf_wait(f.x.srx, &e), 1);
	trig_teardown(test, &f);
}

/*
 * KFI_FLUSH_WORK withdraws deferred work only: the triggered transfers keep
 * their thresholds and their order. Deferred work writes no endpoint
 * completion and counts on no endpoint counter unless it asks
 * (KFI_COMPLETION); its completion counter counts it.
 */
static void trig_flush_and_deferred_completions(struct kunit *test)
{
	static const int want[] = { 2, 0, 1 };
	static const u64 th[] = { 2, 2, 1 };
	struct trig_fixture *fp = kunit_kzalloc(test, sizeof(*fp), GFP_KERNEL);
	struct kfid_cntr *target, *done;
	struct kfi_op_cntr add = { .value = 1 };
	struct kfi_deferred_work w = {}, ws = {};
	struct kfi_op_msg sop = {};
	struct kfi_cq_tagged_entry e;
	struct kvec sv;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, fp);
	trig_setup(test, fp, 5);
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(fp->x.c.d.dom, NULL, &target,
					    NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(fp->x.c.d.dom, NULL, &done, NULL),
			0);
	add.cntr = target;
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, trig_send(fp, i, th[i]), 0);
	w = (struct kfi_deferred_work){ .threshold = 1, .triggering_cntr = fp->t,
					.op_type = KFI_OP_CNTR_ADD,
					.op.cntr = &add };
	KUNIT_ASSERT_EQ(test, kfi_control(&fp->x.c.d.dom->fid, KFI_QUEUE_WORK,
					  &w), 0);
	KUNIT_ASSERT_EQ(test, kfi_control(&fp->x.c.d.dom->fid, KFI_FLUSH_WORK,
					  NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(fp->t, 2), 0);
	trig_expect(test, fp, want, 3);
	trig_drain_tx(test, fp, 3);
	msleep(20);
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(target), 0ULL);

	/* a deferred send without KFI_COMPLETION: no entry, no EP count */
	sv = (struct kvec){ &fp->ids[3], 4 };
	sop = (struct kfi_op_msg){ .ep = fp->x.c.cep,
				   .msg = { .type = KFI_KVEC, .msg_iov = &sv,
					    .iov_count = 1, .context = &sv } };
	ws = (struct kfi_deferred_work){ .threshold = 3,
					 .triggering_cntr = fp->t,
					 .completion_cntr = done,
					 .op_type = KFI_OP_SEND, .op.msg = &sop };
	KUNIT_ASSERT_EQ(test, kfi_control(&fp->x.c.d.dom->fid, KFI_QUEUE_WORK,
					  &ws), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(fp->t, 1), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_wait(done, 1, 5000), 0);
	KUNIT_ASSERT_EQ(test, xf_wait(fp->x.srx, &e), 1);
	KUNIT_EXPECT_EQ(test, *(u32 *)e.op_context, 3U);
	msleep(20);
	xf_expect_none(test, fp->x.ctx);
	/* the client's SEND counter counted the three triggered sends only */
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(fp->x.cn[0]), 3ULL);

	/* with KFI_COMPLETION: an entry, still no EP count */
	sv.iov_base = &fp->ids[4];
	sop.flags = KFI_COMPLETION;
	ws.threshold = 4;
	KUNIT_ASSERT_EQ(test, kfi_control(&fp->x.c.d.dom->fid, KFI_QUEUE_WORK,
					  &ws), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(fp->t, 1), 0);
	KUNIT_ASSERT_EQ(test, xf_wait(fp->x.ctx, &e), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&sv);
	KUNIT_EXPECT_EQ(test, e.flags, KFI_SEND | KFI_MSG);
	KUNIT_EXPECT_EQ(test, kfi_cntr_wait(done, 2, 5000), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(fp->x.cn[0]), 3ULL);
	KUNIT_ASSERT_EQ(test, xf_wait(fp->x.srx, &e), 1);
	KUNIT_EXPECT_EQ(test, *(u32 *)e.op_context, 4U);
	KUNIT_EXPECT_EQ(test, kfi_close(&done->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&target->fid), 0);
	trig_teardown(test, fp);
}

/*
 * Deferred work needs a CQ only when it asks for an entry (fi_trigger(3)):
 * a deferred send on an endpoint with no transmit CQ and no counter is
 * queued when it has a completion counter (or nothing to report to);
 * with KFI_COMPLETION it is -KFI_ENOCQ. An ordinary send there is
 * -KFI_ENOCQ.
 */
static void trig_deferred_needs_no_cq(struct kunit *test)
{
	struct cm_fixture c;
	struct kfid_cq *rcq;
	struct kfid_ep *ep;
	struct kfid_cntr *t, *done;
	struct kfi_cq_attr attr = { .size = 16, .format = KFI_CQ_FORMAT_DATA };
	struct kvec v = { "x", 2 };
	struct kfi_op_msg op = {};
	struct kfi_deferred_work w = {};

	prov_needs(test, KFI_MSG | KFI_TRIGGER);
	memset(&c, 0, sizeof(c));
	dom_setup_at(test, &c.d, 0, cur_prov->node, KFI_SOURCE);
	cm_open_eq(test, &c, &c.ceq);
	KUNIT_ASSERT_EQ(test, kfi_cq_open(c.d.dom, &attr, &rcq, NULL, NULL),
			0);
	KUNIT_ASSERT_EQ(test, kfi_endpoint(c.d.dom, c.d.list, &ep, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(ep, &c.ceq->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(ep, &rcq->fid, KFI_RECV), 0);
	KUNIT_ASSERT_EQ(test, kfi_enable(ep), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(c.d.dom, NULL, &t, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(c.d.dom, NULL, &done, NULL), 0);
	KUNIT_EXPECT_EQ(test, kfi_send(ep, "x", 2, NULL, 0, NULL),
			(ssize_t)-KFI_ENOCQ);
	op = (struct kfi_op_msg){ .ep = ep, .msg = { .type = KFI_KVEC,
						    .msg_iov = &v,
						    .iov_count = 1 } };
	w = (struct kfi_deferred_work){ .threshold = 100, .triggering_cntr = t,
					.completion_cntr = done,
					.op_type = KFI_OP_SEND, .op.msg = &op };
	KUNIT_EXPECT_EQ(test, kfi_control(&c.d.dom->fid, KFI_QUEUE_WORK, &w),
			0);
	KUNIT_EXPECT_EQ(test, kfi_control(&c.d.dom->fid, KFI_CANCEL_WORK, &w),
			0);
	op.flags = KFI_COMPLETION;
	KUNIT_EXPECT_EQ(test, kfi_control(&c.d.dom->fid, KFI_QUEUE_WORK, &w),
			-KFI_ENOCQ);
	KUNIT_EXPECT_EQ(test, kfi_close(&ep->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&done->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&t->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&rcq->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&c.ceq->fid), 0);
	dom_teardown(test, &c.d);
}

/* kfi_cancel looks only at the endpoint's own operations. */
static void trig_cancel_scope(struct kunit *test)
{
	static const int want[] = { 0 };
	struct trig_fixture f;

	trig_setup(test, &f, 1);
	KUNIT_ASSERT_EQ(test, trig_send(&f, 0, 1), 0);
	KUNIT_EXPECT_EQ(test, kfi_cancel(&f.x.c.sep->fid, &f.tctx[0]),
			(ssize_t)-ENOENT);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(f.t, 1), 0);
	trig_expect(test, &f, want, 1);
	trig_drain_tx(test, &f, 1);
	trig_teardown(test, &f);
}

/*
 * An alias's flags apply to its direction only: a KFI_TRANSMIT alias with
 * KFI_TRIGGER or KFI_DELIVERY_COMPLETE posts receives as they are.
 */
static void trig_alias_direction(struct kunit *test)
{
	struct trig_fixture f;
	struct kfid_ep *ta, *da;
	struct kfi_cq_tagged_entry e;
	u32 in[2] = {};
	int i;

	trig_setup(test, &f, 2);
	KUNIT_ASSERT_EQ(test, kfi_ep_alias(f.x.c.cep, &ta,
					   KFI_TRANSMIT | KFI_TRIGGER), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_alias(f.x.c.cep, &da,
					   KFI_TRANSMIT |
					   KFI_DELIVERY_COMPLETE), 0);
	KUNIT_ASSERT_EQ(test, kfi_recv(ta, &in[0], 4, NULL, 0, &in[0]), 0);
	KUNIT_ASSERT_EQ(test, kfi_recv(da, &in[1], 4, NULL, 0, &in[1]), 0);
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, kfi_send(f.x.c.sep, &f.ids[i], 4, NULL, 0,
					       NULL), 0);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, xf_wait(f.x.crx, &e), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&in[i]);
		KUNIT_EXPECT_EQ(test, in[i], (u32)i);
		KUNIT_ASSERT_EQ(test, xf_wait(f.x.stx, &e), 1);
	}
	KUNIT_EXPECT_EQ(test, kfi_close(&da->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&ta->fid), 0);
	trig_teardown(test, &f);
}

/* ---------------------------------------------------------- statistics */

/* printf into a buffer freed with the case (256 bytes at most). */
static __printf(2, 3) char *stats_fmt(struct kunit *test, const char *fmt, ...)
{
	char *p = kunit_kzalloc(test, 256, GFP_KERNEL);
	va_list ap;

	KUNIT_ASSERT_NOT_NULL(test, p);
	va_start(ap, fmt);
	vsnprintf(p, 256, fmt, ap);
	va_end(ap);
	return p;
}

/*
 * The text of statistics file @file of domain @dom (debugfs
 * kfabric/<provider>/<dom>/<file>), NUL-terminated, freed with the case;
 * NULL with *@err set (-ENOENT) when it cannot be read.
 */
static char *stats_read(struct kunit *test, const char *dom,
			const char *file, int *err)
{
	static const char out[] = "/tmp/kfi_kunit_stats";
	char *envp[] = { "PATH=/sbin:/bin:/usr/sbin:/usr/bin", NULL };
	char *argv[] = { "/bin/sh", "-c", NULL, NULL };
	struct file *fp;
	loff_t pos = 0;
	char *buf;
	ssize_t n;
	int rc;

	/*
	 * Read as an operator does (cat): debugfs files are not readable
	 * with kernel_read() (their proxy has no read_iter).
	 */
	argv[2] = stats_fmt(test,
		"cat /sys/kernel/debug/kfabric/%s/%s/%s > %s 2>/dev/null",
		cur_prov->name, dom, file, out);
	rc = call_usermodehelper(argv[0], argv, envp, UMH_WAIT_PROC);
	if (rc) {
		*err = rc > 0 ? -ENOENT : rc;
		return NULL;
	}
	fp = filp_open(out, O_RDONLY, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(fp), "%s: %ld", out, PTR_ERR(fp));
	buf = kunit_kzalloc(test, 4096, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	n = kernel_read(fp, buf, 4095, &pos);
	filp_close(fp, NULL);
	KUNIT_ASSERT_GE(test, n, (ssize_t)0);
	buf[n] = 0;
	return buf;
}

/* As stats_read(), which must succeed. */
static char *stats_text(struct kunit *test, const char *dom,
			const char *file)
{
	int err = 0;
	char *t = stats_read(test, dom, file, &err);

	KUNIT_ASSERT_NOT_NULL_MSG(test, t, "%s: %d", file, err);
	return t;
}

/* The line of @text that starts with "@id " (no newline), or "". */
static const char *stats_line(struct kunit *test, const char *text,
			      const char *id)
{
	size_t l = strlen(id);
	const char *p = text, *nl;
	char *line;

	while (*p) {
		nl = strchrnul(p, '\n');
		if (nl - p > l && !strncmp(p, id, l) && p[l] == ' ') {
			line = kunit_kzalloc(test, nl - p + 1, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, line);
			memcpy(line, p, nl - p);
			return line;
		}
		p = *nl ? nl + 1 : nl;
	}
	return "";
}

/* An endpoint's address as the statistics print it. */
static const char *stats_name(struct kunit *test, struct kfid_ep *ep)
{
	struct sockaddr_storage ss;
	size_t len = sizeof(ss);

	KUNIT_ASSERT_EQ(test, kfi_getname(&ep->fid, &ss, &len), 0);
	return stats_fmt(test, "%pISpc", &ss);
}

/*
 * kfabric/<provider>/<domain>/: a known exchange (three 4-byte sends,
 * a cancelled receive, a triggered send waiting, a 4 KiB region) shows
 * in every file with exact figures, each endpoint with its addresses;
 * the figures move when the triggered send fires and the region closes;
 * the directory goes with the domain.
 */
static void stats_debugfs(struct kunit *test)
{
	static const int first[] = { 0, 1, 2 }, last[] = { 3 };
	struct trig_fixture f;
	struct kfi_cq_err_entry err;
	struct kfid_mr *mr;
	const char *cn, *sn, *dn, *t;
	u32 *extra;
	u8 *mem;
	int i, rc, cancelled = 0, e = 0;
	unsigned int peak = 0;

	mem = kunit_kzalloc(test, 4096, GFP_KERNEL);
	extra = kunit_kzalloc(test, 4, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mem);
	KUNIT_ASSERT_NOT_NULL(test, extra);
	trig_setup(test, &f, 4);
	KUNIT_ASSERT_EQ(test, kfi_mr_reg(f.x.c.d.dom, mem, 4096,
					 KFI_REMOTE_READ, 0, 0x5a, 0, &mr,
					 NULL), 0);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, kfi_send(f.x.c.cep, &f.ids[i], 4, NULL,
					       0, NULL), 0);
	trig_expect(test, &f, first, 3);
	trig_drain_tx(test, &f, 3);
	KUNIT_ASSERT_EQ(test, kfi_recv(f.x.c.sep, extra, 4, NULL, 0, extra),
			0);
	/* verbs in direct mode cannot take a receive back from the device */
	rc = kfi_cancel(&f.x.c.sep->fid, extra);
	if (rc != -EBUSY) {
		KUNIT_ASSERT_EQ(test, rc, 0);
		xf_wait_err(test, f.x.srx, &err);
		KUNIT_EXPECT_EQ(test, err.err, ECANCELED);
		cancelled = 1;
	}
	KUNIT_ASSERT_EQ(test, trig_send(&f, 3, 5), 0);
	dn = kunit_kstrdup_const(test, f.x.c.d.list->domain_attr->name,
				 GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dn);
	cn = stats_name(test, f.x.c.cep);
	sn = stats_name(test, f.x.c.sep);

	t = stats_text(test, dn, "endpoints");
	KUNIT_EXPECT_STREQ(test, stats_line(test, t, "ep0"),
		stats_fmt(test,
			"ep0 type=msg state=connected local=%s peer=%s tx_ops=3 tx_bytes=12 rx_ops=0 rx_bytes=0 tx_errors=0 rx_errors=0 tx_busy=0 rx_posted=0 triggered=1",
			cn, sn));
	KUNIT_EXPECT_STREQ(test, stats_line(test, t, "ep1"),
		stats_fmt(test,
			"ep1 type=msg state=connected local=%s peer=%s tx_ops=0 tx_bytes=0 rx_ops=3 rx_bytes=12 tx_errors=0 rx_errors=%d tx_busy=0 rx_posted=%d triggered=0",
			sn, cn, cancelled, 2 - cancelled));
	/* two endpoints, nothing else */
	KUNIT_EXPECT_EQ(test, strlen(t),
			strlen(stats_line(test, t, "ep0")) +
			strlen(stats_line(test, t, "ep1")) + 2);

	/* CQs in the order opened: ctx, crx, stx, srx */
	t = stats_line(test, stats_text(test, dn, "cqs"), "cq3");
	KUNIT_EXPECT_NOT_NULL(test, strstr(t, stats_fmt(test,
		" queued=0 errors=0 reserved=%d peak=", 2 - cancelled)));
	KUNIT_EXPECT_NOT_NULL(test, strstr(t, " overruns=0 lost=0 bound=1 handler=no"));
	KUNIT_ASSERT_NOT_NULL(test, strstr(t, " peak="));
	KUNIT_EXPECT_EQ(test, sscanf(strstr(t, " peak="), " peak=%u", &peak),
			1);
	KUNIT_EXPECT_GE(test, peak, 1U);
	KUNIT_EXPECT_LE(test, peak, 4U);

	/* cn[0..3] then the triggering counter */
	t = stats_text(test, dn, "cntrs");
	KUNIT_EXPECT_STREQ(test, stats_line(test, t, "cntr0"),
		"cntr0 value=3 errors=0 bound=1 triggered=0 deferred=0 due=0");
	KUNIT_EXPECT_STREQ(test, stats_line(test, t, "cntr2"), stats_fmt(test,
		"cntr2 value=3 errors=%d bound=1 triggered=0 deferred=0 due=0",
		cancelled));
	KUNIT_EXPECT_STREQ(test, stats_line(test, t, "cntr4"),
		"cntr4 value=0 errors=0 bound=0 triggered=1 next_threshold=5 deferred=0 due=0");
	KUNIT_EXPECT_STREQ(test, stats_text(test, dn, "mr"),
			   "regions=1 bytes=4096\n");

	/* the triggered send fires */
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(f.t, 5), 0);
	trig_expect(test, &f, last, 1);
	trig_drain_tx(test, &f, 1);
	t = stats_text(test, dn, "endpoints");
	KUNIT_EXPECT_STREQ(test, stats_line(test, t, "ep0"),
		stats_fmt(test,
			"ep0 type=msg state=connected local=%s peer=%s tx_ops=4 tx_bytes=16 rx_ops=0 rx_bytes=0 tx_errors=0 rx_errors=0 tx_busy=0 rx_posted=0 triggered=0",
			cn, sn));
	KUNIT_EXPECT_NOT_NULL(test, strstr(stats_line(test, t, "ep1"),
		stats_fmt(test,
			  " rx_ops=4 rx_bytes=16 tx_errors=0 rx_errors=%d tx_busy=0 rx_posted=%d ",
			  cancelled, 1 - cancelled)));
	t = stats_text(test, dn, "cntrs");
	KUNIT_EXPECT_STREQ(test, stats_line(test, t, "cntr4"),
		"cntr4 value=5 errors=0 bound=0 triggered=0 deferred=0 due=0");
	KUNIT_EXPECT_STREQ(test, stats_line(test, t, "cntr0"),
		"cntr0 value=4 errors=0 bound=1 triggered=0 deferred=0 due=0");
	KUNIT_EXPECT_EQ(test, kfi_close(&mr->fid), 0);
	KUNIT_EXPECT_STREQ(test, stats_text(test, dn, "mr"),
			   "regions=0 bytes=0\n");

	/* the directory goes with the domain */
	trig_teardown(test, &f);
	KUNIT_EXPECT_NULL(test, stats_read(test, dn, "mr", &e));
	KUNIT_EXPECT_EQ(test, e, -ENOENT);
}

static struct kunit_case trigger_cases[] = {
	KUNIT_CASE(stats_debugfs),
	KUNIT_CASE(trig_threshold_order_on_jump),
	KUNIT_CASE(trig_trace_events),
	KUNIT_CASE(trig_success_count_only),
	KUNIT_CASE(trig_inject_copied_at_post),
	KUNIT_CASE(trig_inject_keeps_no_desc),
	KUNIT_CASE(trig_cq_slot_reserved),
	KUNIT_CASE(trig_flush_and_deferred_completions),
	KUNIT_CASE(trig_cancel_scope),
	KUNIT_CASE(trig_deferred_needs_no_cq),
	KUNIT_CASE(trig_alias_direction),
	KUNIT_CASE(trig_single_increments_fifo),
	KUNIT_CASE(trig_immediate_and_set_lower),
	KUNIT_CASE(trig_due_survives_lowering),
	KUNIT_CASE(trig_cancel_one),
	KUNIT_CASE(trig_near_overflow),
	KUNIT_CASE(trig_100k_one_add),
	KUNIT_CASE(trig_concurrent_adds),
	KUNIT_CASE(trig_deferred_cntr_ops),
	KUNIT_CASE(trig_end_to_end),
	KUNIT_CASE(trig_rma),
	KUNIT_CASE(trig_ipv6_threshold),
	KUNIT_CASE(trig_alias),
	{}
};

static struct kunit_case cq_cases[] = {
	KUNIT_CASE(cq_open_each_format),
	KUNIT_CASE(cq_bad_attributes),
	KUNIT_CASE(cq_empty_and_bad_reads),
	KUNIT_CASE(cq_sread_times_out),
	KUNIT_CASE(cq_signal_wakes_sread),
	KUNIT_CASE(cq_domain_busy),
	{}
};

static struct kunit_case eq_cases[] = {
	KUNIT_CASE(eq_write_read_in_order),
	KUNIT_CASE(eq_full_and_bad_input),
	KUNIT_CASE(eq_sread_waits),
	{}
};

/* ------------------------------------------------------- address vectors */

static struct kfid_av *av_open(struct kunit *test, struct dom_fixture *d,
			       enum kfi_av_type type, int rx_ctx_bits,
			       size_t count)
{
	struct kfi_av_attr attr = { .type = type, .rx_ctx_bits = rx_ctx_bits,
				    .count = count };
	struct kfid_av *av = NULL;

	KUNIT_ASSERT_EQ(test, kfi_av_open(d->dom, &attr, &av, d), 0);
	KUNIT_ASSERT_NOT_NULL(test, av);
	return av;
}

static struct sockaddr_in av_sin(u32 host, u16 port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(host) };
	return a;
}

/* Opening: every type, the attributes refused, the domain held. */
static void av_open_and_bad_attributes(struct kunit *test)
{
	struct kfi_av_attr attr = {};
	struct dom_fixture d;
	struct kfid_av *av, *t, *u;
	struct kfid_eq *eq;
	struct kfi_eq_attr eattr = {};

	dom_setup(test, &d, 0);
	av = av_open(test, &d, KFI_AV_MAP, 0, 0);
	KUNIT_EXPECT_EQ(test, av->fid.fclass, (size_t)KFI_CLASS_AV);
	KUNIT_EXPECT_PTR_EQ(test, av->fid.context, (void *)&d);
	KUNIT_EXPECT_EQ(test, kfi_close(&av->fid), 0);
	t = av_open(test, &d, KFI_AV_TABLE, 8, 16);
	u = av_open(test, &d, KFI_AV_UNSPEC, 32, 1 << 20);
	attr.type = 7;
	KUNIT_EXPECT_EQ(test, kfi_av_open(d.dom, &attr, &av, NULL), -EINVAL);
	attr.type = KFI_AV_MAP;
	attr.rx_ctx_bits = -1;
	KUNIT_EXPECT_EQ(test, kfi_av_open(d.dom, &attr, &av, NULL), -EINVAL);
	attr.rx_ctx_bits = 33;
	KUNIT_EXPECT_EQ(test, kfi_av_open(d.dom, &attr, &av, NULL), -EINVAL);
	attr.rx_ctx_bits = 0;
	attr.name = "shared";
	KUNIT_EXPECT_EQ(test, kfi_av_open(d.dom, &attr, &av, NULL),
			-KFI_ENOSYS);
	attr.name = NULL;
	attr.flags = KFI_EVENT;
	KUNIT_EXPECT_EQ(test, kfi_av_open(d.dom, &attr, &av, NULL),
			-KFI_ENOSYS);
	attr.flags = KFI_SYNC_ERR;
	KUNIT_EXPECT_EQ(test, kfi_av_open(d.dom, &attr, &av, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_av_open(d.dom, NULL, &av, NULL), -EINVAL);
	/* asynchronous inserts would need an EQ: not done */
	KUNIT_ASSERT_EQ(test, kfi_eq_open(d.fab, &eattr, &eq, NULL, NULL), 0);
	KUNIT_EXPECT_LT(test, kfi_av_bind(t, &eq->fid, 0), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&eq->fid), 0);
	/* a domain with an open AV cannot close */
	KUNIT_EXPECT_EQ(test, kfi_close(&d.dom->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, kfi_close(&t->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&d.dom->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, kfi_close(&u->fid), 0);
	dom_teardown(test, &d);
}

/*
 * Inserting a list of both families, looking up, duplicates, removal
 * (all or nothing), reuse of a freed handle, bad addresses with
 * KFI_SYNC_ERR, and growth well past the count given at open.
 */
static void av_insert_lookup_remove(struct kunit *test)
{
	struct sockaddr_in a = av_sin(0x0a000001, 4000), c = av_sin(0x0a000003, 1);
	struct sockaddr_in6 b = { .sin6_family = AF_INET6,
				  .sin6_port = htons(5) };
	struct sockaddr_in bad = a, got;
	struct sockaddr_in6 got6;
	u8 list[sizeof(a) + sizeof(b) + sizeof(c)];
	kfi_addr_t h[3], dup, many[3];
	int errs[3] = { 7, 7, 7 };
	struct dom_fixture d;
	struct kfid_av *av;
	size_t len;
	int k;

	b.sin6_addr.s6_addr[15] = 1;
	memcpy(list, &a, sizeof(a));
	memcpy(list + sizeof(a), &b, sizeof(b));
	memcpy(list + sizeof(a) + sizeof(b), &c, sizeof(c));
	dom_setup(test, &d, 0);
	av = av_open(test, &d, KFI_AV_TABLE, 0, 2);
	KUNIT_ASSERT_EQ(test, kfi_av_insert(av, list, 3, h, 0, NULL), 3);
	KUNIT_EXPECT_EQ(test, h[0], 0ULL);
	KUNIT_EXPECT_EQ(test, h[1], 1ULL);
	KUNIT_EXPECT_EQ(test, h[2], 2ULL);
	len = sizeof(got);
	KUNIT_ASSERT_EQ(test, kfi_av_lookup(av, h[0], &got, &len), 0);
	KUNIT_EXPECT_EQ(test, len, sizeof(a));
	KUNIT_EXPECT_EQ(test, memcmp(&got, &a, sizeof(a)), 0);
	len = sizeof(got6);
	KUNIT_ASSERT_EQ(test, kfi_av_lookup(av, h[1], &got6, &len), 0);
	KUNIT_EXPECT_EQ(test, len, sizeof(b));
	KUNIT_EXPECT_EQ(test, memcmp(&got6, &b, sizeof(b)), 0);
	/* too small: truncated, the full size said */
	memset(&got6, 0xee, sizeof(got6));
	len = 4;
	KUNIT_ASSERT_EQ(test, kfi_av_lookup(av, h[1], &got6, &len), 0);
	KUNIT_EXPECT_EQ(test, len, sizeof(b));
	KUNIT_EXPECT_EQ(test, memcmp(&got6, &b, 4), 0);
	KUNIT_EXPECT_EQ(test, ((u8 *)&got6)[4], 0xee);
	len = sizeof(got);
	KUNIT_EXPECT_EQ(test, kfi_av_lookup(av, 3, &got, &len), -ENOENT);
	KUNIT_EXPECT_EQ(test, kfi_av_lookup(av, h[0], &got, NULL), -EINVAL);

	/* a duplicate: the same handle, one more use */
	KUNIT_ASSERT_EQ(test, kfi_av_insert(av, &c, 1, &dup, 0, NULL), 1);
	KUNIT_EXPECT_EQ(test, dup, h[2]);
	KUNIT_EXPECT_EQ(test, kfi_av_remove(av, &dup, 1, 0), 0);
	len = sizeof(got);
	KUNIT_EXPECT_EQ(test, kfi_av_lookup(av, h[2], &got, &len), 0);
	/* all or nothing: h[2] has one use left, not two */
	many[0] = h[0];
	many[1] = h[2];
	many[2] = h[2];
	KUNIT_EXPECT_EQ(test, kfi_av_remove(av, many, 3, 0), -ENOENT);
	len = sizeof(got);
	KUNIT_EXPECT_EQ(test, kfi_av_lookup(av, h[0], &got, &len), 0);
	KUNIT_EXPECT_EQ(test, kfi_av_remove(av, many, 2, 0), 0);
	KUNIT_EXPECT_EQ(test, kfi_av_lookup(av, h[0], &got, &len), -ENOENT);
	KUNIT_EXPECT_EQ(test, kfi_av_lookup(av, h[2], &got, &len), -ENOENT);
	KUNIT_EXPECT_EQ(test, kfi_av_remove(av, &h[2], 1, 0), -ENOENT);
	KUNIT_EXPECT_EQ(test, kfi_av_remove(av, &h[1], 1, 1), -EINVAL);
	/* a freed handle goes to the next new address */
	KUNIT_ASSERT_EQ(test, kfi_av_insert(av, &a, 1, &dup, 0, NULL), 1);
	KUNIT_EXPECT_TRUE(test, dup == h[0] || dup == h[2]);

	/*
	 * A bad address in the list (no peer: the unspecified address): its
	 * handle not available, its error; the others inserted. An address
	 * of an unknown family ends the list (its size is unknown).
	 */
	bad.sin_addr.s_addr = 0;
	memcpy(list, &bad, sizeof(bad));
	memcpy(list + sizeof(bad), &c, sizeof(c));
	KUNIT_EXPECT_EQ(test, kfi_av_insert(av, list, 2, many, KFI_SYNC_ERR,
					    errs), 1);
	KUNIT_EXPECT_EQ(test, many[0], (kfi_addr_t)KFI_ADDR_NOTAVAIL);
	KUNIT_EXPECT_NE(test, many[1], (kfi_addr_t)KFI_ADDR_NOTAVAIL);
	KUNIT_EXPECT_EQ(test, errs[0], -EINVAL);
	KUNIT_EXPECT_EQ(test, errs[1], 0);
	bad.sin_family = AF_UNIX;
	memcpy(list, &c, sizeof(c));
	memcpy(list + sizeof(c), &bad, sizeof(bad));
	memcpy(list + 2 * sizeof(c), &a, sizeof(a));
	KUNIT_EXPECT_EQ(test, kfi_av_insert(av, list, 3, many, KFI_SYNC_ERR,
					    errs), 1);
	KUNIT_EXPECT_EQ(test, errs[0], 0);
	KUNIT_EXPECT_EQ(test, errs[1], -EINVAL);
	KUNIT_EXPECT_EQ(test, errs[2], -EINVAL);
	KUNIT_EXPECT_EQ(test, many[2], (kfi_addr_t)KFI_ADDR_NOTAVAIL);
	KUNIT_EXPECT_EQ(test, kfi_av_remove(av, many, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, kfi_av_insert(av, &a, 1, many, KFI_SYNC_ERR,
					    NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_av_insert(av, &a, 1, many, KFI_EVENT, NULL),
			-KFI_ENOSYS);
	KUNIT_EXPECT_EQ(test, kfi_av_insert(av, NULL, 1, many, 0, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_av_insert(av, &a, 0, many, 0, NULL), 0);

	/* growth: 1000 more, each found again */
	for (k = 0; k < 1000; k++) {
		c = av_sin(0x0b000000 + k, 9);
		KUNIT_ASSERT_EQ(test, kfi_av_insert(av, &c, 1, &dup, 0, NULL),
				1);
		KUNIT_ASSERT_EQ(test, dup, (kfi_addr_t)k + 3);
	}
	for (k = 0; k < 1000; k += 97) {
		c = av_sin(0x0b000000 + k, 9);
		len = sizeof(got);
		KUNIT_ASSERT_EQ(test, kfi_av_lookup(av, k + 3, &got, &len), 0);
		KUNIT_EXPECT_EQ(test, memcmp(&got, &c, sizeof(c)), 0);
	}
	KUNIT_EXPECT_EQ(test, kfi_close(&av->fid), 0);
	dom_teardown(test, &d);
}

/*
 * insertsvc (numeric node and service), insertsym, straddr, and handles
 * carrying a receive context index (kfi_rx_addr).
 */
static void av_services_strings_rx_contexts(struct kunit *test)
{
	struct sockaddr_in got, want;
	struct sockaddr_in6 got6;
	kfi_addr_t h, h6, bad, sym[6];
	struct dom_fixture d;
	struct kfid_av *av;
	char buf[64];
	size_t len;
	int k;

	dom_setup(test, &d, 0);
	av = av_open(test, &d, KFI_AV_UNSPEC, 8, 0);
	KUNIT_ASSERT_EQ(test, kfi_av_insertsvc(av, "10.1.2.3", "4000", &h, 0,
					       NULL), 1);
	want = av_sin(0x0a010203, 4000);
	len = sizeof(got);
	KUNIT_ASSERT_EQ(test, kfi_av_lookup(av, h, &got, &len), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&got, &want, sizeof(want)), 0);
	KUNIT_ASSERT_EQ(test, kfi_av_insertsvc(av, "::1", "5", &h6, 0, NULL),
			1);
	len = sizeof(got6);
	KUNIT_ASSERT_EQ(test, kfi_av_lookup(av, h6, &got6, &len), 0);
	KUNIT_EXPECT_EQ(test, got6.sin6_family, (u16)AF_INET6);
	KUNIT_EXPECT_EQ(test, ntohs(got6.sin6_port), 5);
	KUNIT_EXPECT_EQ(test, got6.sin6_addr.s6_addr[15], 1);
	/* no name resolution; the handle of a failed insert: none */
	KUNIT_EXPECT_EQ(test, kfi_av_insertsvc(av, "no.such.host", "1", &bad,
					       0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, bad, (kfi_addr_t)KFI_ADDR_NOTAVAIL);
	KUNIT_EXPECT_EQ(test, kfi_av_insertsvc(av, "10.1.2.3", "http", &bad, 0,
					       NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_av_insertsvc(av, "0.0.0.0", "1", &bad, 0,
					       NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_av_insertsvc(av, NULL, "1", &bad, 0, NULL),
			-EINVAL);

	/* a receive context in the top 8 bits: the same peer */
	len = sizeof(got);
	KUNIT_ASSERT_EQ(test, kfi_av_lookup(av, kfi_rx_addr(h, 5, 8), &got,
					    &len), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&got, &want, sizeof(want)), 0);

	/* 2 nodes x 3 services, node-major */
	KUNIT_ASSERT_EQ(test, kfi_av_insertsym(av, "10.0.0.255", 2, "100", 3,
					       sym, 0, NULL), 6);
	for (k = 0; k < 6; k++) {
		want = av_sin(0x0a0000ff + k / 3, 100 + k % 3);
		len = sizeof(got);
		KUNIT_ASSERT_EQ(test, kfi_av_lookup(av, sym[k], &got, &len), 0);
		KUNIT_EXPECT_EQ(test, memcmp(&got, &want, sizeof(want)), 0);
	}

	/* straddr: libfabric's form, truncated to the buffer */
	want = av_sin(0x0a010203, 4000);
	len = sizeof(buf);
	KUNIT_ASSERT_PTR_EQ(test, kfi_av_straddr(av, &want, buf, &len),
			    (const char *)buf);
	KUNIT_EXPECT_STREQ(test, buf, "fi_sockaddr_in://10.1.2.3:4000");
	KUNIT_EXPECT_EQ(test, len, strlen(buf) + 1);
	len = 8;
	KUNIT_ASSERT_PTR_EQ(test, kfi_av_straddr(av, &want, buf, &len),
			    (const char *)buf);
	KUNIT_EXPECT_STREQ(test, buf, "fi_sock");
	KUNIT_EXPECT_EQ(test, len, strlen("fi_sockaddr_in://10.1.2.3:4000") + 1);
	len = sizeof(buf);
	KUNIT_ASSERT_PTR_EQ(test, kfi_av_straddr(av, &got6, buf, &len),
			    (const char *)buf);
	KUNIT_EXPECT_STREQ(test, buf, "fi_sockaddr_in6://[::1]:5");

	/* removal by a handle with a receive context too */
	KUNIT_EXPECT_EQ(test, kfi_av_remove(av, (kfi_addr_t[]){ kfi_rx_addr(h, 3, 8) },
					    1, 0), 0);
	len = sizeof(got);
	KUNIT_EXPECT_EQ(test, kfi_av_lookup(av, h, &got, &len), -ENOENT);
	KUNIT_EXPECT_EQ(test, kfi_close(&av->fid), 0);
	dom_teardown(test, &d);
}

static struct kunit_case av_cases[] = {
	KUNIT_CASE(av_open_and_bad_attributes),
	KUNIT_CASE(av_insert_lookup_remove),
	KUNIT_CASE(av_services_strings_rx_contexts),
	{}
};

/* ------------------------------------------- messages, tagged, multi-receive */

static void msg_tagged(struct kunit *test)
{
	struct xf_fixture f;
	struct kfi_cq_tagged_entry e;
	char a[8] = "", b[8] = "", u1[8] = "", u2[8] = "";
	struct kvec iov = { u2, sizeof(u2) };
	struct kfi_msg_tagged tm = { .type = KFI_KVEC, .msg_iov = &iov,
				     .iov_count = 1, .tag = 0x77,
				     .context = u2 };

	prov_need(test, KFI_TAGGED);
	xf_setup(test, &f);
	/* a takes tag 0x10 exactly, b any tag 0x2? */
	KUNIT_ASSERT_EQ(test, kfi_trecv(f.c.sep, a, 8, NULL, 0, 0x10, 0, a), 0);
	KUNIT_ASSERT_EQ(test, kfi_trecv(f.c.sep, b, 8, NULL, 0, 0x20, 0xf, b),
			0);
	KUNIT_ASSERT_EQ(test, kfi_tsend(f.c.cep, "for-b", 6, NULL, 0, 0x2c,
					NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_tsenddata(f.c.cep, "for-a", 6, NULL, 5, 0,
					    0x10, NULL), 0);
	KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)b);
	KUNIT_EXPECT_EQ(test, e.flags, KFI_RECV | KFI_TAGGED);
	KUNIT_EXPECT_EQ(test, e.tag, 0x2cULL);
	KUNIT_EXPECT_STREQ(test, b, "for-b");
	KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)a);
	KUNIT_EXPECT_EQ(test, e.flags,
			KFI_RECV | KFI_TAGGED | KFI_REMOTE_CQ_DATA);
	KUNIT_EXPECT_EQ(test, e.tag, 0x10ULL);
	KUNIT_EXPECT_EQ(test, e.data, 5ULL);
	KUNIT_EXPECT_STREQ(test, a, "for-a");
	KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);
	KUNIT_EXPECT_EQ(test, e.flags, KFI_SEND | KFI_TAGGED);
	KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);

	/* unexpected: two messages with tag 0x77 arrive before any receive;
	 * a later message for a posted receive is not held up by them */
	KUNIT_ASSERT_EQ(test, kfi_tinject(f.c.cep, "first", 6, 0, 0x77), 0);
	KUNIT_ASSERT_EQ(test, kfi_tinject(f.c.cep, "second", 7, 0, 0x77), 0);
	KUNIT_ASSERT_EQ(test, kfi_trecv(f.c.sep, a, 8, NULL, 0, 0x99, 0, a),
			0);
	KUNIT_ASSERT_EQ(test, kfi_tinject(f.c.cep, "late", 5, 0, 0x99), 0);
	KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)a);
	KUNIT_EXPECT_STREQ(test, a, "late");
	KUNIT_ASSERT_EQ(test, kfi_trecv(f.c.sep, u1, 8, NULL, 0, 0x77, 0, u1),
			0);
	KUNIT_ASSERT_EQ(test, kfi_trecvmsg(f.c.sep, &tm, 0), 0);
	KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)u1);
	KUNIT_EXPECT_STREQ(test, u1, "first");
	KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)u2);
	KUNIT_EXPECT_EQ(test, e.len, (size_t)7);
	KUNIT_EXPECT_STREQ(test, u2, "second");
	xf_teardown(test, &f);
}

/*
 * A message longer than its receive fails that receive alone (KFI_ETRUNC,
 * the bytes that fit delivered, olen the bytes lost); the rest of the
 * frame is dropped and the connection carries on. The same for a fresh
 * multi-receive buffer too small for the message (released, once).
 */
static void msg_truncation_fails_one_receive(struct kunit *test)
{
	struct xf_fixture f;
	struct kfi_cq_err_entry err;
	struct kfi_cq_tagged_entry e;
	struct cm_event ev;
	char small[8] = "", other[8] = "", multi[8] = "", last[8] = "";
	struct kvec mv = { multi, sizeof(multi) };
	struct kfi_msg mm = { .type = KFI_KVEC, .msg_iov = &mv,
			      .iov_count = 1, .context = multi };

	prov_need(test, KFI_MULTI_RECV);
	xf_setup(test, &f);
	KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, small, sizeof(small), NULL, 0,
				       small), 0);
	KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, other, sizeof(other), NULL, 0,
				       other), 0);
	KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, "0123456789abcdef", 16, NULL,
				       0, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, "next", 5, NULL, 0, NULL), 0);
	xf_wait_err(test, f.srx, &err);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)small);
	KUNIT_EXPECT_EQ(test, err.err, KFI_ETRUNC);
	KUNIT_EXPECT_EQ(test, err.flags, KFI_RECV | KFI_MSG);
	KUNIT_EXPECT_EQ(test, err.len, (size_t)8);
	KUNIT_EXPECT_EQ(test, err.olen, (size_t)8);
	KUNIT_EXPECT_EQ(test, memcmp(small, "01234567", 8), 0);
	/* the stream goes on: the next message lands in the next receive */
	KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)other);
	KUNIT_EXPECT_STREQ(test, other, "next");

	/* a fresh multi-receive buffer too small */
	KUNIT_ASSERT_EQ(test, kfi_recvmsg(f.c.sep, &mm, KFI_MULTI_RECV), 0);
	KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, last, sizeof(last), NULL, 0,
				       last), 0);
	KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, "ABCDEFGHIJKL", 12, NULL, 0,
				       NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, "end", 4, NULL, 0, NULL), 0);
	xf_wait_err(test, f.srx, &err);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)multi);
	KUNIT_EXPECT_EQ(test, err.err, KFI_ETRUNC);
	KUNIT_EXPECT_EQ(test, err.flags, KFI_RECV | KFI_MSG | KFI_MULTI_RECV);
	KUNIT_EXPECT_EQ(test, err.olen, (size_t)4);
	KUNIT_EXPECT_EQ(test, memcmp(multi, "ABCDEFGH", 8), 0);
	KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)last);
	KUNIT_EXPECT_STREQ(test, last, "end");
	xf_expect_none(test, f.srx);
	/* no CM event: the connection is up */
	KUNIT_EXPECT_EQ(test, kfi_eq_read(f.c.peq, NULL, &ev, sizeof(ev), 0),
			(ssize_t)-EAGAIN);
	xf_teardown(test, &f);
}

static void msg_cancel(struct kunit *test)
{
	struct xf_fixture f;
	struct kfi_cq_tagged_entry e;
	struct kfi_cq_err_entry err;
	char b[3][8] = {};

	prov_need(test, KFI_TAGGED);
	xf_setup(test, &f);
	KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, b[0], 8, NULL, 0, b[0]), 0);
	KUNIT_ASSERT_EQ(test, kfi_trecv(f.c.sep, b[1], 8, NULL, 0, 1, 0, b[1]),
			0);
	KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, b[2], 8, NULL, 0, b[2]), 0);
	KUNIT_EXPECT_EQ(test, kfi_cancel(&f.c.sep->fid, b[1]), 0);
	KUNIT_EXPECT_EQ(test, kfi_cancel(&f.c.sep->fid, b[1]), -ENOENT);
	xf_wait_err(test, f.srx, &err);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)b[1]);
	KUNIT_EXPECT_EQ(test, err.err, ECANCELED);
	KUNIT_EXPECT_EQ(test, err.flags, KFI_RECV | KFI_TAGGED);
	KUNIT_EXPECT_EQ(test, kfi_cancel(&f.c.sep->fid, b[2]), 0);
	xf_wait_err(test, f.srx, &err);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)b[2]);
	KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, "x", 2, NULL, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)b[0]);
	KUNIT_EXPECT_STREQ(test, b[0], "x");
	xf_teardown(test, &f);
}

static void msg_multi_recv(struct kunit *test)
{
	struct xf_fixture f;
	struct kfi_cq_tagged_entry e;
	u8 mbuf[256], next[128], want[100];
	u8 (*src)[100] = kunit_kzalloc(test, 3 * 100, GFP_KERNEL);
	struct kvec iov = { mbuf, sizeof(mbuf) };
	struct kfi_msg m = { .type = KFI_KVEC, .msg_iov = &iov,
			     .iov_count = 1, .context = mbuf };
	size_t min = 64, l = sizeof(min);
	int i;

	prov_need(test, KFI_MULTI_RECV);
	KUNIT_ASSERT_NOT_NULL(test, src);
	xf_setup(test, &f);
	KUNIT_ASSERT_EQ(test, kfi_setopt(&f.c.sep->fid, KFI_OPT_ENDPOINT,
					 KFI_OPT_MIN_MULTI_RECV, &min,
					 sizeof(min)), 0);
	min = 0;
	KUNIT_ASSERT_EQ(test, kfi_getopt(&f.c.sep->fid, KFI_OPT_ENDPOINT,
					 KFI_OPT_MIN_MULTI_RECV, &min, &l), 0);
	KUNIT_EXPECT_EQ(test, min, (size_t)64);
	KUNIT_ASSERT_EQ(test, kfi_recvmsg(f.c.sep, &m, KFI_MULTI_RECV), 0);
	KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, next, sizeof(next), NULL, 0,
				       next), 0);
	/* each send's buffer stays untouched until its completion */
	for (i = 0; i < 3; i++) {
		fill(src[i], sizeof(src[i]), i);
		KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, src[i], sizeof(src[i]),
					       NULL, 0, NULL), 0);
	}
	/* 100 at 0; 100 at 100, leaving 56 < 64: released; 100 in next */
	KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)mbuf);
	KUNIT_EXPECT_PTR_EQ(test, e.buf, (void *)mbuf);
	KUNIT_EXPECT_EQ(test, e.flags, KFI_RECV | KFI_MSG);
	KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.buf, (void *)(mbuf + 100));
	KUNIT_EXPECT_EQ(test, e.flags, KFI_RECV | KFI_MSG | KFI_MULTI_RECV);
	KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)next);
	for (i = 0; i < 2; i++) {
		fill(want, sizeof(want), i);
		KUNIT_EXPECT_EQ(test, memcmp(mbuf + 100 * i, want, 100), 0);
	}
	fill(want, sizeof(want), 2);
	KUNIT_EXPECT_EQ(test, memcmp(next, want, 100), 0);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);
	xf_teardown(test, &f);
}

/*
 * KFI_PEEK, KFI_CLAIM and KFI_DISCARD on kfi_trecvmsg (fi_tagged(3),
 * kfi_tagged.h): a peek reports an arrived message without taking it (or
 * KFI_ENOMSG), a claim keeps it for the receive with the same context, a
 * discard drops it.
 */
static void msg_peek_claim_discard(struct kunit *test)
{
	struct xf_fixture f;
	struct kfi_cq_tagged_entry e;
	struct kfi_cq_err_entry err;
	struct kfi_context claim = {}, other = {};
	char buf[16] = "", plain[16] = "";

	prov_need(test, KFI_TAGGED);
	xf_setup(test, &f);
	KUNIT_ASSERT_EQ(test, kfi_tsend(f.c.cep, "hello", 6, NULL, 0, 5, NULL),
			0);
	KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);
	msleep(50);	/* arrived, and kept as unexpected */
	/* a peek: the message's length and tag, nothing copied */
	KUNIT_ASSERT_EQ(test, trecv_flags(f.c.sep, buf, sizeof(buf), 5, &other,
					  KFI_PEEK), 0);
	KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&other);
	KUNIT_EXPECT_EQ(test, e.flags, KFI_RECV | KFI_TAGGED);
	KUNIT_EXPECT_EQ(test, e.len, (size_t)6);
	KUNIT_EXPECT_EQ(test, e.tag, 5ULL);
	KUNIT_EXPECT_EQ(test, buf[0], 0);
	/* nothing with tag 6 */
	KUNIT_ASSERT_EQ(test, trecv_flags(f.c.sep, buf, sizeof(buf), 6, &other,
					  KFI_PEEK), 0);
	xf_wait_err(test, f.srx, &err);
	KUNIT_EXPECT_EQ(test, err.err, ENOMSG);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)&other);
	/* claimed: a plain receive does not get it, its claim does */
	KUNIT_ASSERT_EQ(test, trecv_flags(f.c.sep, NULL, 0, 5, &claim,
					  KFI_PEEK | KFI_CLAIM), 0);
	KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
	KUNIT_EXPECT_EQ(test, e.len, (size_t)6);
	KUNIT_ASSERT_EQ(test, kfi_trecv(f.c.sep, plain, sizeof(plain), NULL, 0,
					5, 0, plain), 0);
	msleep(50);
	xf_expect_none(test, f.srx);
	KUNIT_ASSERT_EQ(test, trecv_flags(f.c.sep, buf, sizeof(buf), 5, &claim,
					  KFI_CLAIM), 0);
	KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&claim);
	KUNIT_EXPECT_EQ(test, e.len, (size_t)6);
	KUNIT_EXPECT_STREQ(test, buf, "hello");
	/* the claim is spent */
	KUNIT_ASSERT_EQ(test, trecv_flags(f.c.sep, buf, sizeof(buf), 5, &claim,
					  KFI_CLAIM), 0);
	xf_wait_err(test, f.srx, &err);
	KUNIT_EXPECT_EQ(test, err.err, ENOMSG);
	/* peek and discard: gone, the plain receive still waits */
	KUNIT_ASSERT_EQ(test, kfi_tsend(f.c.cep, "bye", 4, NULL, 0, 7, NULL),
			0);
	KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);
	msleep(50);
	KUNIT_ASSERT_EQ(test, trecv_flags(f.c.sep, NULL, 0, 7, &other,
					  KFI_PEEK | KFI_DISCARD), 0);
	KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
	KUNIT_EXPECT_EQ(test, e.len, (size_t)4);
	KUNIT_ASSERT_EQ(test, trecv_flags(f.c.sep, NULL, 0, 7, &other,
					  KFI_PEEK), 0);
	xf_wait_err(test, f.srx, &err);
	KUNIT_EXPECT_EQ(test, err.err, ENOMSG);
	/* discard alone names no message */
	KUNIT_EXPECT_EQ(test, trecv_flags(f.c.sep, NULL, 0, 7, &other,
					  KFI_DISCARD), (ssize_t)-KFI_EBADFLAGS);
	/* the plain receive gets the next tag-5 message */
	KUNIT_ASSERT_EQ(test, kfi_tsend(f.c.cep, "again", 6, NULL, 0, 5, NULL),
			0);
	KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)plain);
	KUNIT_EXPECT_STREQ(test, plain, "again");
	KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);
	xf_teardown(test, &f);
}

/*
 * Truncation over the provider's IPv6 address behaves as over IPv4 (the
 * same test; the fixture checks the IPv6 entry, listener and CONNREQ).
 */
static void msg_ipv6_truncation_fails_one_receive(struct kunit *test)
{
	if (!cur_prov->node6)
		kunit_skip(test, "%s: no IPv6 address", cur_prov->name);
	xf_next_node = cur_prov->node6;
	msg_truncation_fails_one_receive(test);
}

static void msg_selective_completion(struct kunit *test)
{
	struct xf_fixture f;
	struct kfi_cq_tagged_entry e;
	struct kvec iov = { "sel", 4 };
	struct kfi_msg m = { .type = KFI_KVEC, .msg_iov = &iov,
			     .iov_count = 1, .context = &iov };
	char buf[2][4];

	xf_open(test, &f, 0, KFI_SELECTIVE_COMPLETION);
	xf_connect(test, &f);
	KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, buf[0], 4, NULL, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, buf[1], 4, NULL, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, "one", 4, NULL, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_sendmsg(f.c.cep, &m, KFI_COMPLETION), 0);
	KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
	KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
	KUNIT_EXPECT_STREQ(test, buf[1], "sel");
	/* only the send that asked for it */
	KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&iov);
	xf_expect_none(test, f.ctx);
	xf_teardown(test, &f);
}

/*
 * Selective completion on the receive side: the messages of a multi-receive
 * buffer posted without KFI_COMPLETION write no entry; the entry that
 * releases the buffer is always written (fi_msg(3)), with KFI_MULTI_RECV,
 * once.
 */
static void msg_multi_recv_selective(struct kunit *test)
{
	struct xf_fixture f;
	struct kfi_cq_tagged_entry e;
	char *buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	size_t min = 16;
	int i;

	prov_need(test, KFI_MULTI_RECV);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	xf_srx_flags = KFI_SELECTIVE_COMPLETION;
	xf_open(test, &f, 0, 0);
	xf_connect(test, &f);
	xf_srx_flags = 0;
	KUNIT_ASSERT_EQ(test, kfi_setopt(&f.c.sep->fid, KFI_OPT_ENDPOINT,
					 KFI_OPT_MIN_MULTI_RECV, &min,
					 sizeof(min)), 0);
	{
		struct kvec v = { buf, 64 };
		struct kfi_msg m = { .type = KFI_KVEC, .msg_iov = &v,
				     .iov_count = 1, .context = buf };

		KUNIT_ASSERT_EQ(test, kfi_recvmsg(f.c.sep, &m,
						  KFI_MULTI_RECV), 0);
	}
	/* 3 x 16 bytes: 16 left, the buffer is not released yet */
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, "0123456789abcdef", 16,
					       NULL, 0, NULL), 0);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);
	msleep(50);
	xf_expect_none(test, f.srx);
	/* the fourth leaves less than 16 bytes: released, one entry */
	KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, "0123456789abcdef", 16, NULL,
				       0, NULL), 0);
	KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
	KUNIT_EXPECT_EQ(test, e.flags, KFI_RECV | KFI_MSG | KFI_MULTI_RECV);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)buf);
	KUNIT_EXPECT_EQ(test, e.len, (size_t)16);
	KUNIT_EXPECT_PTR_EQ(test, e.buf, (void *)(buf + 48));
	KUNIT_EXPECT_EQ(test, memcmp(buf + 32, "0123456789abcdef", 16), 0);
	KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);
	msleep(20);
	xf_expect_none(test, f.srx);
	xf_teardown(test, &f);
}

/*
 * Messages of every length around the providers' inner boundaries (verbs
 * soft mode: 8168-byte chunks; tcp: its staging), up to 1 MiB, from a
 * vmalloc'ed buffer into one and into a bio_vec of pages, each compared
 * byte for byte; then a tagged message of 100 KiB that arrives before its
 * receive (kept as unexpected) and one behind it that a posted receive
 * takes first.
 */
static void msg_long_messages(struct kunit *test)
{
	static const size_t len[] = { 0, 1, 8167, 8168, 8169, 3 * 8168 + 5,
				      65536, 1 << 20 };
	const size_t max = 1 << 20;
	struct xf_fixture f;
	struct kfi_cq_tagged_entry e;
	struct page *pg[2];
	struct bio_vec bv[2];
	u8 *src, *dst, *want;
	char late[8] = "";
	size_t i;

	/* (verbs direct mode: its own long-buffer cases, kfi_verbs_msg) */
	prov_need(test, KFI_TAGGED);
	/* room for the offsets and the byte past each message */
	src = fix_vzalloc(test, max + 64);
	dst = fix_vzalloc(test, max + 64);
	fill(src, max + 64, 3);
	xf_setup(test, &f);
	for (i = 0; i < ARRAY_SIZE(len); i++) {
		memset(dst, 0, len[i] + 1);
		KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, dst, len[i] + 1, NULL,
					       0, dst), 0);
		KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, src + i, len[i], NULL,
					       0, src), 0);
		KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
		KUNIT_EXPECT_EQ(test, e.len, len[i]);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(dst, src + i, len[i]), 0,
				    "length %zu", len[i]);
		KUNIT_EXPECT_EQ(test, dst[len[i]], 0);
		KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)src);
	}
	/* into two pages through a bio_vec: 5000 bytes at offset 100 */
	for (i = 0; i < 2; i++) {
		pg[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, pg[i]);
		bvec_set_page(&bv[i], pg[i], PAGE_SIZE - 100 * (1 - i),
			      100 * (1 - i));
	}
	KUNIT_ASSERT_EQ(test, kfi_recvbv(f.c.sep, bv, NULL, 2, 0, bv), 0);
	KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, src, 5000, NULL, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
	KUNIT_EXPECT_EQ(test, e.len, (size_t)5000);
	want = page_address(pg[0]) + 100;
	KUNIT_EXPECT_EQ(test, memcmp(want, src, PAGE_SIZE - 100), 0);
	KUNIT_EXPECT_EQ(test, memcmp(page_address(pg[1]), src + PAGE_SIZE - 100,
				     5000 - (PAGE_SIZE - 100)), 0);
	KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);
	for (i = 0; i < 2; i++)
		__free_page(pg[i]);
	if (cur_prov->caps & KFI_TAGGED) {
		/* 100 KiB unexpected, then a message a receive waits for */
		KUNIT_ASSERT_EQ(test, kfi_trecv(f.c.sep, late, sizeof(late),
						NULL, 0, 0x2, 0, late), 0);
		KUNIT_ASSERT_EQ(test, kfi_tsend(f.c.cep, src + 7, 100 << 10,
						NULL, 0, 0x1, NULL), 0);
		KUNIT_ASSERT_EQ(test, kfi_tsend(f.c.cep, "late", 5, NULL, 0,
						0x2, NULL), 0);
		KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)late);
		KUNIT_EXPECT_STREQ(test, late, "late");
		memset(dst, 0, 100 << 10);
		KUNIT_ASSERT_EQ(test, kfi_trecv(f.c.sep, dst, max, NULL, 0,
						0x1, 0, dst), 0);
		KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)dst);
		KUNIT_EXPECT_EQ(test, e.len, (size_t)(100 << 10));
		KUNIT_EXPECT_EQ(test, e.tag, 0x1ULL);
		KUNIT_EXPECT_EQ(test, memcmp(dst, src + 7, 100 << 10), 0);
		KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);
		KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);
	}
	xf_teardown(test, &f);
}

static struct kunit_case msg_cases[] = {
	KUNIT_CASE(msg_tagged),
	KUNIT_CASE(msg_truncation_fails_one_receive),
	KUNIT_CASE(msg_cancel),
	KUNIT_CASE(msg_multi_recv),
	KUNIT_CASE(msg_peek_claim_discard),
	KUNIT_CASE(msg_ipv6_truncation_fails_one_receive),
	KUNIT_CASE(msg_long_messages),
	KUNIT_CASE(msg_selective_completion),
	KUNIT_CASE(msg_multi_recv_selective),
	{}
};

/* ------------------------------------------- connectionless endpoints */

#define RDM_MAX 16
/*
 * How long a completion that must come may take (no case waits this out
 * when it passes): rdma_cm resends a connection message lost on rxe (a
 * loaded emulator drops some) only after about 4.3 s (its response
 * timeout, 4.096 us << 20), and a debug kernel under load took longer
 * than 5 s for one of 16 x 15 connections.
 */
#define RDM_WAIT_MS 20000

/* One RDM endpoint with its CQs and AV; peer[j]: node j's handle in it. */
struct rdm_node {
	struct kfid_ep *ep;
	struct kfid_cq *tx, *rx;
	struct kfid_av *av;
	struct sockaddr_storage addr;	/* its name (sockaddr_in or _in6) */
	kfi_addr_t peer[RDM_MAX];
};

struct rdm_fixture {
	struct dom_fixture d;
	int n;
	struct rdm_node node[RDM_MAX];
	struct kunit *test;	/* for rdm_release() */
};

/* The rx_ctx_bits of the AVs rdm_open() opens, and the transmit queue
 * depth of its endpoints (0: the entry's); a test sets, then clears. */
static int rdm_av_bits;
static size_t rdm_tx_size;

/*
 * The longest message the next rdm_setup() needs (0: any); a case sets it,
 * rdm_need() clears it.
 */
static size_t rdm_min_msg;

/*
 * Skips the case unless the provider under test offers an RDM entry with
 * @caps on its node, for messages of rdm_min_msg bytes (the entry the
 * fixtures then open: rdm_dom_setup()).
 */
/* The provider's RDM entries on its node with @caps (NULL: none). */
static struct kfi_info *rdm_entries(struct kunit *test, uint64_t caps)
{
	struct kfi_info *h, *list = NULL;
	int ret;

	h = prov_hints(test, cur_prov);
	h->ep_attr->type = KFI_EP_RDM;
	h->caps = caps;
	ret = kfi_getinfo(V17, cur_prov->node, NULL, KFI_SOURCE, h, &list);
	kfi_freeinfo(h);
	if (ret == -ENODATA)
		return NULL;
	KUNIT_ASSERT_EQ(test, ret, 0);
	return list;
}

/* Whether the provider's RDM entry offers @caps (parts of a case). */
static bool rdm_offers(struct kunit *test, uint64_t caps)
{
	struct kfi_info *list = cur_prov->rdm ? rdm_entries(test, caps) : NULL;

	kfi_freeinfo(list);
	return list != NULL;
}

static void rdm_need(struct kunit *test, uint64_t caps)
{
	struct kfi_info *list;
	size_t min = rdm_min_msg;

	rdm_min_msg = 0;
	if (!cur_prov->rdm)
		kunit_skip(test, "%s: no RDM endpoints", cur_prov->name);
	list = rdm_entries(test, caps);
	if (!list)
		kunit_skip(test, "%s: no RDM entry with caps %#llx",
			   cur_prov->name, (unsigned long long)caps);
	if (list->ep_attr->max_msg_size < min) {
		size_t max = list->ep_attr->max_msg_size;

		kfi_freeinfo(list);
		kunit_skip(test, "%s: RDM messages up to %zu bytes, not %zu",
			   cur_prov->name, max, min);
	}
	kfi_freeinfo(list);
}

/* The domain of the provider's RDM entry with @caps on @node. */
static void rdm_dom_setup(struct kunit *test, struct dom_fixture *d,
			  uint64_t caps, const char *node)
{
	uint64_t saved = dom_hint_caps;

	dom_hint_caps |= caps;
	dom_hint_ep_type = KFI_EP_RDM;
	dom_setup_at(test, d, 0, node, KFI_SOURCE);
	dom_hint_ep_type = 0;
	dom_hint_caps = saved;
}

/*
 * Opens node @i: an RDM endpoint (with @caps besides the entry's), its
 * AV, a transmit and a receive CQ; listening on @src (NULL: the entry's
 * address, an ephemeral port).
 */
static void rdm_open(struct kunit *test, struct rdm_fixture *f, int i,
		     uint64_t caps, const struct sockaddr_storage *src)
{
	struct kfi_cq_attr cq_attr = { .size = 1024,
				       .format = KFI_CQ_FORMAT_TAGGED };
	struct kfi_av_attr av_attr = { .type = KFI_AV_TABLE,
				       .rx_ctx_bits = rdm_av_bits };
	struct rdm_node *n = &f->node[i];
	struct kfi_info *info = kfi_dupinfo(f->d.list);
	size_t len = sizeof(n->addr);

	KUNIT_ASSERT_NOT_NULL(test, info);
	info->ep_attr->type = KFI_EP_RDM;
	info->caps |= caps;
	if (rdm_tx_size)
		info->tx_attr->size = rdm_tx_size;
	if (src) {
		size_t l = src->ss_family == AF_INET6 ?
			   sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);

		kfree(info->src_addr);
		info->src_addr = kmemdup(src, l, GFP_KERNEL);
		info->src_addrlen = l;
	}
	KUNIT_ASSERT_EQ(test, kfi_endpoint(f->d.dom, info, &n->ep, n), 0);
	kfi_freeinfo(info);
	KUNIT_ASSERT_EQ(test, kfi_av_open(f->d.dom, &av_attr, &n->av, n), 0);
	KUNIT_ASSERT_EQ(test, kfi_cq_open(f->d.dom, &cq_attr, &n->tx, NULL,
					  NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_cq_open(f->d.dom, &cq_attr, &n->rx, NULL,
					  NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(n->ep, &n->av->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(n->ep, &n->tx->fid, KFI_TRANSMIT),
			0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(n->ep, &n->rx->fid, KFI_RECV), 0);
	KUNIT_ASSERT_EQ(test, kfi_enable(n->ep), 0);
	KUNIT_ASSERT_EQ(test, kfi_getname(&n->ep->fid, &n->addr, &len), 0);
	KUNIT_ASSERT_EQ(test, len, n->addr.ss_family == AF_INET6 ?
			sizeof(struct sockaddr_in6) :
			sizeof(struct sockaddr_in));
	/* the port is at the same place in both families */
	KUNIT_ASSERT_NE(test, ((struct sockaddr_in *)&n->addr)->sin_port, 0);
}

/* What node @n has open (also half-opened: a failed rdm_open()). */
static void rdm_close(struct kunit *test, struct rdm_node *n)
{
	if (n->ep)
		KUNIT_EXPECT_EQ(test, kfi_close(&n->ep->fid), 0);
	if (n->av)
		KUNIT_EXPECT_EQ(test, kfi_close(&n->av->fid), 0);
	if (n->tx)
		KUNIT_EXPECT_EQ(test, kfi_close(&n->tx->fid), 0);
	if (n->rx)
		KUNIT_EXPECT_EQ(test, kfi_close(&n->rx->fid), 0);
	n->ep = NULL;
	n->av = NULL;
	n->tx = NULL;
	n->rx = NULL;
}

/* Node @i's AV gets the address of every node of @mask (bit j: node j). */
static void rdm_insert(struct kunit *test, struct rdm_fixture *f, int i,
		       unsigned long mask)
{
	int j;

	for (j = 0; j < f->n; j++) {
		if (!(mask & BIT(j)))
			continue;
		KUNIT_ASSERT_EQ(test, kfi_av_insert(f->node[i].av,
						    &f->node[j].addr, 1,
						    &f->node[i].peer[j], 0,
						    NULL), 1);
	}
}

static void rdm_teardown(struct kunit *test, struct rdm_fixture *f);

/* The case ended (maybe early): what its fixture still has open closes. */
static void rdm_release(void *p)
{
	struct rdm_fixture *f = p;

	rdm_teardown(f->test, f);
}

/* @n nodes on @node (a loopback address), each knowing all. */
static void rdm_setup_at(struct kunit *test, struct rdm_fixture *f, int n,
			 uint64_t caps, const char *node)
{
	int i;

	rdm_need(test, caps);
	memset(f, 0, sizeof(*f));
	f->test = test;
	/*
	 * A failed assertion ends the case here or later: what is open then
	 * closes with the case (its posted buffers are the case's), so that
	 * nothing is left on the devices for later cases and their removal.
	 */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rdm_release, f),
			0);
	rdm_dom_setup(test, &f->d, caps, node);
	f->n = n;
	for (i = 0; i < n; i++)
		rdm_open(test, f, i, caps, NULL);
	for (i = 0; i < n; i++)
		rdm_insert(test, f, i, BIT(n) - 1);
}

/* A zeroed fixture, freed with the case (too large for the stack). */
static struct rdm_fixture *rdm_fix(struct kunit *test)
{
	struct rdm_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	return f;
}

static void rdm_setup(struct kunit *test, struct rdm_fixture *f, int n,
		      uint64_t caps)
{
	rdm_setup_at(test, f, n, caps, cur_prov->node);
}

static void rdm_teardown(struct kunit *test, struct rdm_fixture *f)
{
	int i;

	for (i = 0; i < RDM_MAX; i++)
		rdm_close(test, &f->node[i]);
	dom_teardown(test, &f->d);
}

/* One entry of @cq, with its source; the count or error. */
static ssize_t rdm_wait(struct kfid_cq *cq, struct kfi_cq_tagged_entry *e,
			kfi_addr_t *src)
{
	memset(e, 0, sizeof(*e));
	*src = 0;
	return kfi_cq_sreadfrom(cq, e, 1, src, NULL, RDM_WAIT_MS);
}

/* As rdm_wait(); an error entry is read and its error returned (-err). */
static ssize_t rdm_wait_ok(struct kunit *test, struct kfid_cq *cq,
			   struct kfi_cq_tagged_entry *e, kfi_addr_t *src)
{
	struct kfi_cq_err_entry err = {};
	ssize_t r = rdm_wait(cq, e, src);

	if (r != -KFI_EAVAIL || kfi_cq_readerr(cq, &err, 0) != 1)
		return r;
	kunit_info(test, "error entry: %d, flags %#llx", err.err,
		   (unsigned long long)err.flags);
	return -err.err;
}

/*
 * Two endpoints: untagged (with CQ data) and tagged messages both ways,
 * the first from each side opening the connection (the second side's
 * replies go on the connection its peer opened); sources reported.
 */
static void rdm_pair_send_recv(struct kunit *test)
{
	struct rdm_fixture *f = rdm_fix(test);
	struct rdm_node *a, *b;
	struct kfi_cq_tagged_entry e;
	char in[2][64], out[64];
	kfi_addr_t src;
	int k;

	rdm_setup(test, f, 2, KFI_DIRECTED_RECV);
	a = &f->node[0];
	b = &f->node[1];
	for (k = 0; k < 2; k++) {
		struct rdm_node *s = k ? b : a, *r = k ? a : b;
		int si = k ? 1 : 0;

		memset(in, 0, sizeof(in));
		KUNIT_ASSERT_EQ(test, kfi_recv(r->ep, in[0], sizeof(in[0]),
					       NULL, KFI_ADDR_UNSPEC, in[0]),
				0);
		KUNIT_ASSERT_EQ(test, kfi_trecv(r->ep, in[1], sizeof(in[1]),
						NULL, KFI_ADDR_UNSPEC, 0x77, 0,
						in[1]), 0);
		snprintf(out, sizeof(out), "untagged %d", k);
		KUNIT_ASSERT_EQ(test, kfi_senddata(s->ep, out, 20, NULL,
						   0xd00d + k,
						   s->peer[1 - si], out), 0);
		KUNIT_ASSERT_EQ(test, rdm_wait(s->tx, &e, &src), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)out);
		KUNIT_EXPECT_EQ(test, e.flags, (u64)(KFI_MSG | KFI_SEND));
		KUNIT_ASSERT_EQ(test, rdm_wait(r->rx, &e, &src), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)in[0]);
		KUNIT_EXPECT_EQ(test, e.len, (size_t)20);
		KUNIT_EXPECT_EQ(test, e.flags,
				(u64)(KFI_MSG | KFI_RECV | KFI_REMOTE_CQ_DATA));
		KUNIT_EXPECT_EQ(test, e.data, (u64)(0xd00d + k));
		KUNIT_EXPECT_EQ(test, src, r->peer[si]);
		KUNIT_EXPECT_STREQ(test, in[0], out);

		snprintf(out, sizeof(out), "tagged %d", k);
		KUNIT_ASSERT_EQ(test, kfi_tsend(s->ep, out, 20, NULL,
						s->peer[1 - si], 0x77, out),
				0);
		KUNIT_ASSERT_EQ(test, rdm_wait(s->tx, &e, &src), 1);
		KUNIT_EXPECT_EQ(test, e.flags, (u64)(KFI_TAGGED | KFI_SEND));
		KUNIT_ASSERT_EQ(test, rdm_wait(r->rx, &e, &src), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)in[1]);
		KUNIT_EXPECT_EQ(test, e.tag, 0x77ULL);
		KUNIT_EXPECT_EQ(test, e.flags, (u64)(KFI_TAGGED | KFI_RECV));
		KUNIT_EXPECT_EQ(test, src, r->peer[si]);
		KUNIT_EXPECT_STREQ(test, in[1], out);
	}
	/* plain reads give no source; transmits have none */
	KUNIT_ASSERT_EQ(test, kfi_send(a->ep, "x", 1, NULL, a->peer[1], NULL),
			0);
	KUNIT_ASSERT_EQ(test, rdm_wait(a->tx, &e, &src), 1);
	KUNIT_EXPECT_EQ(test, src, (kfi_addr_t)KFI_ADDR_NOTAVAIL);
	KUNIT_ASSERT_EQ(test, kfi_recv(b->ep, in[0], sizeof(in[0]), NULL,
				       KFI_ADDR_UNSPEC, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_cq_sread(b->rx, &e, 1, NULL, RDM_WAIT_MS),
			1);
	/*
	 * The statistics of both (debugfs kfabric/<prov>/<domain>/endpoints):
	 * connectionless, so a local address and no peer; what each moved
	 */
	{
		const char *t = stats_text(test, f->d.list->domain_attr->name,
					   "endpoints");

		KUNIT_EXPECT_STREQ(test, stats_line(test, t, "ep0"), stats_fmt(test,
			"ep0 type=rdm state=enabled local=%s tx_ops=3 tx_bytes=41 rx_ops=2 rx_bytes=40 tx_errors=0 rx_errors=0 tx_busy=0 rx_posted=0 triggered=0",
			stats_name(test, a->ep)));
		KUNIT_EXPECT_STREQ(test, stats_line(test, t, "ep1"), stats_fmt(test,
			"ep1 type=rdm state=enabled local=%s tx_ops=2 tx_bytes=40 rx_ops=3 rx_bytes=41 tx_errors=0 rx_errors=0 tx_busy=0 rx_posted=0 triggered=0",
			stats_name(test, b->ep)));
	}
	rdm_teardown(test, f);
}

/*
 * Sixteen endpoints, every one sending to every other at once (so that
 * most pairs connect both ways at the same time): each message arrives
 * once, from the right source, with the right bytes.
 */
static void rdm_many_peers(struct kunit *test)
{
	struct rdm_fixture *f = rdm_fix(test);
	u8 (*in)[RDM_MAX][32], (*out)[RDM_MAX][32];
	struct kfi_cq_tagged_entry e;
	u32 seen[RDM_MAX] = {};
	kfi_addr_t src;
	int i, j, k, n = RDM_MAX;

	in = kunit_kzalloc(test, sizeof(u8) * RDM_MAX * RDM_MAX * 32,
			   GFP_KERNEL);
	out = kunit_kzalloc(test, sizeof(u8) * RDM_MAX * RDM_MAX * 32,
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);
	rdm_setup(test, f, n, 0);
	for (i = 0; i < n; i++)
		for (j = 0; j < n - 1; j++)
			KUNIT_ASSERT_EQ(test,
					kfi_recv(f->node[i].ep, in[i][j], 32,
						 NULL, KFI_ADDR_UNSPEC,
						 in[i][j]), 0);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			if (i == j)
				continue;
			fill(out[i][j], 32, i * RDM_MAX + j);
			KUNIT_ASSERT_EQ(test,
					kfi_send(f->node[i].ep, out[i][j], 32,
						 NULL, f->node[i].peer[j],
						 out[i][j]), 0);
		}
	for (i = 0; i < n; i++) {
		for (k = 0; k < n - 1; k++) {
			KUNIT_ASSERT_EQ(test, rdm_wait_ok(test, f->node[i].tx,
							  &e, &src), 1);
			KUNIT_ASSERT_EQ(test, rdm_wait_ok(test, f->node[i].rx,
							  &e, &src), 1);
			/* the source names a node, whose bytes these are */
			for (j = 0; j < n; j++)
				if (j != i && src == f->node[i].peer[j])
					break;
			KUNIT_ASSERT_LT(test, j, n);
			KUNIT_EXPECT_EQ(test, memcmp(e.op_context, out[j][i], 32),
					0);
			KUNIT_EXPECT_FALSE(test, seen[i] & BIT(j));
			seen[i] |= BIT(j);
		}
		KUNIT_EXPECT_EQ(test, seen[i], (u32)((BIT(n) - 1) & ~BIT(i)));
	}
	rdm_teardown(test, f);
}

/*
 * KFI_DIRECTED_RECV: a receive for one source takes only its messages; a
 * sender not in the AV is reported as KFI_ADDR_NOTAVAIL and matches only
 * receives from anyone.
 */
static void rdm_directed_and_unknown_sources(struct kunit *test)
{
	struct rdm_fixture *f = rdm_fix(test);
	struct rdm_node *a, *b, *c;
	struct kfi_cq_tagged_entry e;
	char from_b[16] = "", any[16] = "", t_b[16] = "", t_any[16] = "";
	kfi_addr_t src;

	rdm_need(test, KFI_DIRECTED_RECV);
	rdm_dom_setup(test, &f->d, KFI_DIRECTED_RECV, cur_prov->node);
	f->n = 3;
	rdm_open(test, f, 0, KFI_DIRECTED_RECV, NULL);
	rdm_open(test, f, 1, 0, NULL);
	rdm_open(test, f, 2, 0, NULL);
	a = &f->node[0];
	b = &f->node[1];
	c = &f->node[2];
	/* a knows b only; b and c know a */
	rdm_insert(test, f, 0, BIT(1));
	rdm_insert(test, f, 1, BIT(0));
	rdm_insert(test, f, 2, BIT(0));
	KUNIT_ASSERT_EQ(test, kfi_recv(a->ep, from_b, sizeof(from_b), NULL,
				       a->peer[1], from_b), 0);
	KUNIT_ASSERT_EQ(test, kfi_recv(a->ep, any, sizeof(any), NULL,
				       KFI_ADDR_UNSPEC, any), 0);
	KUNIT_ASSERT_EQ(test, kfi_trecv(a->ep, t_b, sizeof(t_b), NULL,
					a->peer[1], 5, 0, t_b), 0);
	KUNIT_ASSERT_EQ(test, kfi_trecv(a->ep, t_any, sizeof(t_any), NULL,
					KFI_ADDR_UNSPEC, 5, 0, t_any), 0);
	/* c first: it must pass the receive directed at b */
	KUNIT_ASSERT_EQ(test, kfi_send(c->ep, "from c", 7, NULL, c->peer[0],
				       NULL), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(a->rx, &e, &src), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)any);
	KUNIT_EXPECT_EQ(test, src, (kfi_addr_t)KFI_ADDR_NOTAVAIL);
	KUNIT_EXPECT_STREQ(test, any, "from c");
	KUNIT_ASSERT_EQ(test, kfi_tsend(c->ep, "tc", 3, NULL, c->peer[0], 5,
					NULL), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(a->rx, &e, &src), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)t_any);
	KUNIT_EXPECT_STREQ(test, t_any, "tc");
	KUNIT_ASSERT_EQ(test, kfi_send(b->ep, "from b", 7, NULL, b->peer[0],
				       NULL), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(a->rx, &e, &src), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)from_b);
	KUNIT_EXPECT_EQ(test, src, a->peer[1]);
	KUNIT_EXPECT_STREQ(test, from_b, "from b");
	KUNIT_ASSERT_EQ(test, kfi_tsend(b->ep, "tb", 3, NULL, b->peer[0], 5,
					NULL), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(a->rx, &e, &src), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)t_b);
	KUNIT_EXPECT_STREQ(test, t_b, "tb");
	/* a answers c: c is not in its AV, so it cannot */
	KUNIT_EXPECT_EQ(test, kfi_send(a->ep, "x", 1, NULL, 7, NULL),
			(ssize_t)-EINVAL);
	rdm_teardown(test, f);
}

/*
 * A peer inserted only after it connected (as kfilnd inserts a peer when
 * its first message came): its later messages on the same connection
 * report its new handle and match receives directed to it, and our
 * transmits to it go on the connection it made (the peer refuses a second
 * one while it holds that one, as a 1.17 peer does).
 */
static void rdm_inserted_after_connect(struct kunit *test)
{
	struct rdm_fixture *f = rdm_fix(test);
	struct rdm_node *a, *c;
	struct kfi_cq_tagged_entry e;
	char first[16] = "", dir[16] = "", tdir[16] = "", back[16] = "";
	char out[16];
	kfi_addr_t src;
	int k;

	rdm_need(test, KFI_DIRECTED_RECV);
	rdm_dom_setup(test, &f->d, KFI_DIRECTED_RECV, cur_prov->node);
	f->n = 2;
	rdm_open(test, f, 0, KFI_DIRECTED_RECV, NULL);
	rdm_open(test, f, 1, 0, NULL);
	a = &f->node[0];
	c = &f->node[1];
	rdm_insert(test, f, 1, BIT(0));
	KUNIT_ASSERT_EQ(test, kfi_recv(a->ep, first, sizeof(first), NULL,
				       KFI_ADDR_UNSPEC, first), 0);
	KUNIT_ASSERT_EQ(test, kfi_send(c->ep, "first", 6, NULL, c->peer[0],
				       NULL), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait_ok(test, a->rx, &e, &src), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)first);
	KUNIT_EXPECT_EQ(test, src, (kfi_addr_t)KFI_ADDR_NOTAVAIL);
	KUNIT_EXPECT_STREQ(test, first, "first");
	KUNIT_ASSERT_EQ(test, rdm_wait_ok(test, c->tx, &e, &src), 1);

	/* a learns c: receives directed to it take c's next messages */
	rdm_insert(test, f, 0, BIT(1));
	KUNIT_ASSERT_EQ(test, kfi_recv(a->ep, dir, sizeof(dir), NULL,
				       a->peer[1], dir), 0);
	KUNIT_ASSERT_EQ(test, kfi_trecv(a->ep, tdir, sizeof(tdir), NULL,
					a->peer[1], 9, 0, tdir), 0);
	KUNIT_ASSERT_EQ(test, kfi_send(c->ep, "second", 7, NULL, c->peer[0],
				       NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_tsend(c->ep, "third", 6, NULL, c->peer[0],
					9, NULL), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait_ok(test, a->rx, &e, &src), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)dir);
	KUNIT_EXPECT_EQ(test, src, a->peer[1]);
	KUNIT_EXPECT_STREQ(test, dir, "second");
	KUNIT_ASSERT_EQ(test, rdm_wait_ok(test, a->rx, &e, &src), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)tdir);
	KUNIT_EXPECT_EQ(test, e.flags, (u64)(KFI_TAGGED | KFI_RECV));
	KUNIT_EXPECT_EQ(test, src, a->peer[1]);
	KUNIT_EXPECT_STREQ(test, tdir, "third");
	for (k = 0; k < 2; k++)
		KUNIT_ASSERT_EQ(test, rdm_wait_ok(test, c->tx, &e, &src), 1);

	/* a answers, twice: on c's connection, from a's handle at c */
	for (k = 0; k < 2; k++) {
		memset(back, 0, sizeof(back));
		snprintf(out, sizeof(out), "reply %d", k);
		KUNIT_ASSERT_EQ(test, kfi_recv(c->ep, back, sizeof(back), NULL,
					       KFI_ADDR_UNSPEC, back), 0);
		KUNIT_ASSERT_EQ(test, kfi_send(a->ep, out, sizeof(out), NULL,
					       a->peer[1], out), 0);
		KUNIT_ASSERT_EQ(test, rdm_wait_ok(test, a->tx, &e, &src), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)out);
		KUNIT_ASSERT_EQ(test, rdm_wait_ok(test, c->rx, &e, &src), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)back);
		KUNIT_EXPECT_EQ(test, src, c->peer[0]);
		KUNIT_EXPECT_STREQ(test, back, out);
	}
	rdm_teardown(test, f);
}

/* Bad uses: binding, enabling, destinations, sizes, the AV held. */
static void rdm_bad_input(struct kunit *test)
{
	struct rdm_fixture *f = rdm_fix(test);
	struct kfi_av_attr av_attr = { .type = KFI_AV_TABLE };
	struct kfi_info *info;
	struct kfid_ep *ep;
	struct kfid_av *av;
	static char big[64];

	rdm_setup(test, f, 1, 0);
	/* a handle the AV does not have; more than the eager limit */
	KUNIT_EXPECT_EQ(test, kfi_send(f->node[0].ep, "x", 1, NULL, 3, NULL),
			(ssize_t)-EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_send(f->node[0].ep, big, (1UL << 30) + 1,
				       NULL, f->node[0].peer[0], NULL),
			(ssize_t)-EMSGSIZE);
	/* the bound AV cannot close */
	KUNIT_EXPECT_EQ(test, kfi_close(&f->node[0].av->fid), -EBUSY);
	/* connection calls are for connected endpoints */
	KUNIT_EXPECT_EQ(test, kfi_connect(f->node[0].ep, &f->node[0].addr, NULL,
					  0), -ENOSYS);
	KUNIT_ASSERT_EQ(test, kfi_av_open(f->d.dom, &av_attr, &av, NULL), 0);
	/* RDM without an AV; a second AV; an AV on a MSG endpoint */
	info = kfi_dupinfo(f->d.list);
	KUNIT_ASSERT_NOT_NULL(test, info);
	info->ep_attr->type = KFI_EP_RDM;
	KUNIT_ASSERT_EQ(test, kfi_endpoint(f->d.dom, info, &ep, NULL), 0);
	KUNIT_EXPECT_EQ(test, kfi_enable(ep), -KFI_ENOAV);
	KUNIT_EXPECT_EQ(test, kfi_ep_bind(ep, &av->fid, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_ep_bind(ep, &av->fid, 0), 0);
	KUNIT_EXPECT_EQ(test, kfi_ep_bind(ep, &f->node[0].av->fid, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_close(&ep->fid), 0);
	info->ep_attr->type = KFI_EP_MSG;
	KUNIT_ASSERT_EQ(test, kfi_endpoint(f->d.dom, info, &ep, NULL), 0);
	KUNIT_EXPECT_EQ(test, kfi_ep_bind(ep, &av->fid, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_close(&ep->fid), 0);
	kfi_freeinfo(info);
	KUNIT_EXPECT_EQ(test, kfi_close(&av->fid), 0);
	rdm_teardown(test, f);
}

/*
 * A peer that goes away: what was sent to it before is done, what is
 * sent after fails with an error entry (no hang); a new endpoint at its
 * address is then reached by the next send (a new connection).
 */
static void rdm_peer_gone_then_back(struct kunit *test)
{
	struct rdm_fixture *f = rdm_fix(test);
	struct rdm_node *a, *b;
	struct kfi_cq_tagged_entry e;
	struct kfi_cq_err_entry err;
	struct sockaddr_storage at;
	char in[16];
	kfi_addr_t src;
	int i, failed = 0;

	rdm_setup(test, f, 2, 0);
	a = &f->node[0];
	b = &f->node[1];
	KUNIT_ASSERT_EQ(test, kfi_recv(b->ep, in, sizeof(in), NULL,
				       KFI_ADDR_UNSPEC, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_send(a->ep, "one", 4, NULL, a->peer[1],
				       NULL), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(a->tx, &e, &src), 1);
	KUNIT_ASSERT_EQ(test, rdm_wait(b->rx, &e, &src), 1);
	at = b->addr;
	rdm_close(test, b);
	/*
	 * Sends until one fails: those before the end is seen may still go
	 * into the socket; none may hang.
	 */
	for (i = 0; i < 50 && !failed; i++) {
		ssize_t r;

		KUNIT_ASSERT_EQ(test, kfi_send(a->ep, "lost", 5, NULL,
					       a->peer[1], NULL), 0);
		r = rdm_wait(a->tx, &e, &src);
		if (r == -KFI_EAVAIL) {
			KUNIT_ASSERT_EQ(test, kfi_cq_readerr(a->tx, &err, 0),
					1);
			KUNIT_EXPECT_TRUE_MSG(test, err.err == ECONNRESET ||
						    err.err == ECONNREFUSED ||
						    err.err == EPIPE ||
						    err.err == ECONNABORTED,
					      "err %d after %d sends", err.err, i);
			KUNIT_EXPECT_EQ(test, err.flags,
					(u64)(KFI_MSG | KFI_SEND));
			failed = 1;
		} else {
			KUNIT_ASSERT_EQ(test, r, 1);
			msleep(20);
		}
	}
	KUNIT_EXPECT_TRUE(test, failed);
	/* back at the same address */
	rdm_open(test, f, 1, 0, &at);
	rdm_insert(test, f, 1, BIT(0));
	memset(in, 0, sizeof(in));
	KUNIT_ASSERT_EQ(test, kfi_recv(b->ep, in, sizeof(in), NULL,
				       KFI_ADDR_UNSPEC, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_send(a->ep, "again", 6, NULL, a->peer[1],
				       NULL), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(a->tx, &e, &src), 1);
	KUNIT_ASSERT_EQ(test, rdm_wait(b->rx, &e, &src), 1);
	KUNIT_EXPECT_STREQ(test, in, "again");
	KUNIT_EXPECT_EQ(test, src, b->peer[0]);
	rdm_teardown(test, f);
}

/*
 * An endpoint closed while its peers' first sends to it connect: every
 * round a new endpoint (a new address; in its peers' AVs, and every other
 * round the peers in its own), three peers send to it, and it closes
 * after 0 to 7.5 ms (round by round), its listener and connections being
 * made and answered. Each send
 * completes exactly once, as a success or an error entry (none hangs),
 * and nothing crashes (the close finds the requests in transit).
 */
static void rdm_close_while_connecting(struct kunit *test)
{
	struct rdm_fixture *f = rdm_fix(test);
	struct kfi_cq_tagged_entry e;
	struct kfi_cq_err_entry err;
	struct rdm_node *x;
	kfi_addr_t src;
	int round, j, ok = 0, failed = 0;

	rdm_setup(test, f, 4, 0);
	x = &f->node[0];
	for (round = 0; round < 16; round++) {
		rdm_close(test, x);
		rdm_open(test, f, 0, 0, NULL);
		if (round & 1)
			rdm_insert(test, f, 0, BIT(1) | BIT(2) | BIT(3));
		for (j = 1; j < 4; j++) {
			KUNIT_ASSERT_EQ(test, kfi_av_insert(f->node[j].av,
							    &x->addr, 1,
							    &f->node[j].peer[0],
							    0, NULL), 1);
			KUNIT_ASSERT_EQ(test, kfi_send(f->node[j].ep, "x", 2,
						       NULL, f->node[j].peer[0],
						       &f->node[j]), 0);
		}
		/* from before the requests come to well into their answers */
		if (round)
			usleep_range(round * 500, round * 500 + 200);
		rdm_close(test, x);
		for (j = 1; j < 4; j++) {
			/* (longer on iWARP: a request that reaches the closing
			 * listener is dropped by iw_cm without a reject, and
			 * the sender waits out siw's MPA timeout, 10 s, per
			 * attempt) */
			ssize_t r = kfi_cq_sreadfrom(f->node[j].tx, &e, 1, &src,
						     NULL, 3 * RDM_WAIT_MS);

			if (r == -KFI_EAVAIL) {
				KUNIT_ASSERT_EQ(test,
						kfi_cq_readerr(f->node[j].tx,
							       &err, 0), 1);
				KUNIT_EXPECT_PTR_EQ(test, err.op_context,
						    (void *)&f->node[j]);
				KUNIT_EXPECT_NE(test, err.err, 0);
				failed++;
				continue;
			}
			KUNIT_ASSERT_EQ_MSG(test, r, 1, "round %d peer %d",
					    round, j);
			KUNIT_EXPECT_PTR_EQ(test, e.op_context,
					    (void *)&f->node[j]);
			ok++;
		}
		for (j = 1; j < 4; j++)
			KUNIT_EXPECT_EQ(test, kfi_cq_read(f->node[j].tx, &e, 1),
					(ssize_t)-EAGAIN);
	}
	kunit_info(test, "%d sends completed, %d failed", ok, failed);
	rdm_teardown(test, f);
}

/*
 * What MSG endpoints do works on RDM ones as well: RMA writes and reads of
 * a peer's region (if the provider's RDM entry offers RMA), a
 * multi-receive buffer filled by two senders (each entry with its
 * source), and a triggered send fired by a counter.
 */
static void rdm_rma_multi_recv_trigger(struct kunit *test)
{
	struct rdm_fixture *f = rdm_fix(test);
	struct rdm_node *a, *b, *c;
	struct kfi_cq_tagged_entry e;
	struct kfi_triggered_context tctx = {};
	struct kfid_cntr *cntr;
	struct kfid_mr *mr;
	char *mem, back[8] = "";
	u8 mbuf[256], want[100];
	u8 (*src100)[100] = kunit_kzalloc(test, 2 * 100, GFP_KERNEL);
	struct kvec iov = { mbuf, sizeof(mbuf) };
	struct kfi_msg m = { .type = KFI_KVEC, .msg_iov = &iov,
			     .iov_count = 1, .context = mbuf,
			     .addr = KFI_ADDR_UNSPEC };
	struct kvec tv = { "TRIG", 5 };
	struct kfi_msg tm = { .type = KFI_KVEC, .msg_iov = &tv,
			      .iov_count = 1, .context = &tctx };
	size_t min = 64;
	kfi_addr_t from[2], none;
	bool rma = rdm_offers(test, KFI_RMA | KFI_MULTI_RECV | KFI_TRIGGER);
	int i;

	rdm_setup(test, f, 3,
		  (rma ? KFI_RMA : 0) | KFI_MULTI_RECV | KFI_TRIGGER);
	a = &f->node[0];
	b = &f->node[1];
	c = &f->node[2];
	mem = kunit_kzalloc(test, 16, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mem);
	KUNIT_ASSERT_NOT_NULL(test, src100);
	if (!rma) {
		kunit_info(test, "%s: no RMA on RDM: multi-receive and trigger only",
			   cur_prov->name);
		goto multi;
	}
	KUNIT_ASSERT_EQ(test, kfi_mr_reg(f->d.dom, mem, 16,
					 KFI_REMOTE_READ | KFI_REMOTE_WRITE, 0,
					 11, 0, &mr, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_write(a->ep, "WRITE", 6, NULL, a->peer[1], 0,
					kfi_mr_key(mr), back), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(a->tx, &e, &none), 1);
	KUNIT_EXPECT_EQ(test, e.flags, (u64)(KFI_RMA | KFI_WRITE));
	/* a's read after its write, on the same connection: ordered */
	KUNIT_ASSERT_EQ(test, kfi_read(a->ep, back, 6, NULL, a->peer[1], 0,
				       kfi_mr_key(mr), back), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(a->tx, &e, &none), 1);
	KUNIT_EXPECT_EQ(test, e.flags, (u64)(KFI_RMA | KFI_READ));
	KUNIT_EXPECT_STREQ(test, back, "WRITE");
	KUNIT_EXPECT_STREQ(test, mem, "WRITE");
	/* a key b does not have: the reader's operation fails */
	KUNIT_ASSERT_EQ(test, kfi_read(c->ep, back, 6, NULL, c->peer[1], 0,
				       kfi_mr_key(mr) + 1, back), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(c->tx, &e, &none),
			(ssize_t)-KFI_EAVAIL);
	{
		struct kfi_cq_err_entry err = {};

		KUNIT_ASSERT_EQ(test, kfi_cq_readerr(c->tx, &err, 0), 1);
		KUNIT_EXPECT_EQ(test, err.flags, (u64)(KFI_RMA | KFI_READ));
		KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)back);
		KUNIT_EXPECT_NE(test, err.err, 0);
	}
	KUNIT_EXPECT_EQ(test, kfi_close(&mr->fid), 0);

multi:
	/* multi-receive: a's 100 bytes at 0, c's at 100, then released */
	KUNIT_ASSERT_EQ(test, kfi_setopt(&b->ep->fid, KFI_OPT_ENDPOINT,
					 KFI_OPT_MIN_MULTI_RECV, &min,
					 sizeof(min)), 0);
	KUNIT_ASSERT_EQ(test, kfi_recvmsg(b->ep, &m, KFI_MULTI_RECV), 0);
	for (i = 0; i < 2; i++) {
		struct rdm_node *s = i ? c : a;

		fill(src100[i], 100, 40 + i);
		KUNIT_ASSERT_EQ(test, kfi_send(s->ep, src100[i], 100, NULL,
					       s->peer[1], NULL), 0);
		KUNIT_ASSERT_EQ(test, rdm_wait(s->tx, &e, &none), 1);
		KUNIT_ASSERT_EQ(test, rdm_wait(b->rx, &e, &from[i]), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.buf, (void *)(mbuf + 100 * i));
		KUNIT_EXPECT_EQ(test, e.flags, (u64)(KFI_RECV | KFI_MSG |
						     (i ? KFI_MULTI_RECV : 0)));
		fill(want, 100, 40 + i);
		KUNIT_EXPECT_EQ(test, memcmp(mbuf + 100 * i, want, 100), 0);
	}
	KUNIT_EXPECT_EQ(test, from[0], b->peer[0]);
	KUNIT_EXPECT_EQ(test, from[1], b->peer[2]);

	/* a triggered send to b fires when a's counter reaches 2 */
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(f->d.dom, NULL, &cntr, NULL), 0);
	tctx.event_type = KFI_TRIGGER_THRESHOLD;
	tctx.trigger.threshold.cntr = cntr;
	tctx.trigger.threshold.threshold = 2;
	tm.addr = a->peer[1];
	memset(back, 0, sizeof(back));
	KUNIT_ASSERT_EQ(test, kfi_recv(b->ep, back, sizeof(back), NULL,
				       KFI_ADDR_UNSPEC, back), 0);
	KUNIT_ASSERT_EQ(test, kfi_sendmsg(a->ep, &tm, KFI_TRIGGER), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(cntr, 1), 0);
	msleep(30);
	KUNIT_EXPECT_EQ(test, kfi_cq_read(b->rx, &e, 1), (ssize_t)-EAGAIN);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(cntr, 1), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(b->rx, &e, &from[0]), 1);
	KUNIT_EXPECT_STREQ(test, back, "TRIG");
	KUNIT_EXPECT_EQ(test, from[0], b->peer[0]);
	KUNIT_ASSERT_EQ(test, rdm_wait(a->tx, &e, &none), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&tctx);
	KUNIT_EXPECT_EQ(test, kfi_close(&cntr->fid), 0);
	rdm_teardown(test, f);
}

/*
 * RMA of several remote regions from a buffer of several pieces, on RDM
 * endpoints (what kfilnd's hints ask: many of each): a write of three
 * regions of b's memory region (at offsets 0, 3000 and 9000) from five
 * local pieces of odd lengths, then a read of the same regions into seven
 * other pieces; both compared byte for byte, nothing else of the region
 * written. Skipped where the RDM entry offers no RMA.
 */
static void rdm_rma_regions(struct kunit *test)
{
	static const size_t wl[] = { 700, 1300, 1500, 1, 2499 };
	static const size_t rl[] = { 100, 900, 1000, 1000, 1, 1999, 1000 };
	const size_t total = 6000, size = 12000;
	struct rdm_fixture *f = rdm_fix(test);
	struct rdm_node *a;
	struct kfi_cq_tagged_entry e;
	struct kfid_mr *mr;
	struct kvec wv[ARRAY_SIZE(wl)], rv[ARRAY_SIZE(rl)];
	struct kfi_rma_iov reg[3] = {
		{ .addr = 0, .len = 1000 },
		{ .addr = 3000, .len = 2000 },
		{ .addr = 9000, .len = 3000 },
	};
	struct kfi_msg_rma m = { .type = KFI_KVEC, .rma_iov = reg,
				 .rma_iov_count = 3 };
	u8 *mem = kunit_kzalloc(test, size, GFP_KERNEL);
	u8 *src = kunit_kzalloc(test, total, GFP_KERNEL);
	u8 *dst = kunit_kzalloc(test, total, GFP_KERNEL);
	kfi_addr_t none;
	size_t at, i;

	KUNIT_ASSERT_NOT_NULL(test, mem);
	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	if (!rdm_offers(test, KFI_RMA))
		kunit_skip(test, "%s: no RMA on RDM", cur_prov->name);
	rdm_setup(test, f, 2, KFI_RMA);
	a = &f->node[0];
	KUNIT_ASSERT_EQ(test, kfi_mr_reg(f->d.dom, mem, size,
					 KFI_REMOTE_READ | KFI_REMOTE_WRITE, 0,
					 12, 0, &mr, NULL), 0);
	for (i = 0; i < 3; i++)
		reg[i].key = kfi_mr_key(mr);
	fill(src, total, 5);
	for (i = 0, at = 0; i < ARRAY_SIZE(wl); at += wl[i], i++)
		wv[i] = (struct kvec){ src + at, wl[i] };
	m.msg_iov = wv;
	m.iov_count = ARRAY_SIZE(wl);
	m.addr = a->peer[1];
	m.context = wv;
	KUNIT_ASSERT_EQ(test, kfi_writemsg(a->ep, &m, KFI_COMPLETION), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(a->tx, &e, &none), 1);
	KUNIT_EXPECT_EQ(test, e.flags, (u64)(KFI_RMA | KFI_WRITE));
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)wv);
	/* (the region is compared once the read, which follows the write on
	 * the same connection, is done: a write's completion says it left,
	 * KFI_TRANSMIT_COMPLETE, not that it is in place) */
	for (i = 0, at = 0; i < ARRAY_SIZE(rl); at += rl[i], i++)
		rv[i] = (struct kvec){ dst + at, rl[i] };
	m.msg_iov = rv;
	m.iov_count = ARRAY_SIZE(rl);
	m.context = rv;
	KUNIT_ASSERT_EQ(test, kfi_readmsg(a->ep, &m, KFI_COMPLETION), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(a->tx, &e, &none), 1);
	KUNIT_EXPECT_EQ(test, e.flags, (u64)(KFI_RMA | KFI_READ));
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)rv);
	KUNIT_EXPECT_EQ(test, memcmp(dst, src, total), 0);
	KUNIT_EXPECT_EQ(test, memcmp(mem, src, 1000), 0);
	KUNIT_EXPECT_EQ(test, memcmp(mem + 3000, src + 1000, 2000), 0);
	KUNIT_EXPECT_EQ(test, memcmp(mem + 9000, src + 3000, 3000), 0);
	KUNIT_EXPECT_NULL(test, memchr_inv(mem + 1000, 0, 2000));
	KUNIT_EXPECT_NULL(test, memchr_inv(mem + 5000, 0, 4000));
	KUNIT_EXPECT_EQ(test, kfi_close(&mr->fid), 0);
	rdm_teardown(test, f);
}

/*
 * Messages over rxm's eager limit go as a rendezvous (the receiver reads
 * the sender's buffer): untagged with CQ data from a three-piece buffer,
 * tagged into a receive posted after the message came (kept as
 * unexpected), one into a receive too short for it (KFI_ETRUNC, what fits
 * delivered, the connection stays), and eager messages between them.
 */
static void rdm_rendezvous(struct kunit *test)
{
	const size_t big = 1 << 20, mid = 200 << 10;
	struct rdm_fixture *f = rdm_fix(test);
	struct rdm_node *a, *b;
	struct kfi_cq_tagged_entry e;
	struct kfi_cq_err_entry err = {};
	u8 *src = fix_vzalloc(test, big), *dst = fix_vzalloc(test, big);
	struct kvec v[3];
	kfi_addr_t from;
	char small[16] = "";

	rdm_min_msg = big;
	rdm_setup(test, f, 2, 0);
	a = &f->node[0];
	b = &f->node[1];
	fill(src, big, 77);
	v[0] = (struct kvec){ src, 1000 };
	v[1] = (struct kvec){ src + 1000, 300000 };
	v[2] = (struct kvec){ src + 301000, big - 301000 };
	{
		struct kfi_msg m = { .type = KFI_KVEC, .msg_iov = v,
				     .iov_count = 3, .addr = a->peer[1],
				     .context = src, .data = 0xfeed };

		KUNIT_ASSERT_EQ(test, kfi_recv(b->ep, dst, big, NULL,
					       KFI_ADDR_UNSPEC, dst), 0);
		KUNIT_ASSERT_EQ(test, kfi_sendmsg(a->ep, &m,
						  KFI_REMOTE_CQ_DATA), 0);
	}
	KUNIT_ASSERT_EQ(test, rdm_wait(b->rx, &e, &from), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)dst);
	KUNIT_EXPECT_EQ(test, e.len, big);
	KUNIT_EXPECT_EQ(test, e.flags,
			(u64)(KFI_MSG | KFI_RECV | KFI_REMOTE_CQ_DATA));
	KUNIT_EXPECT_EQ(test, e.data, 0xfeedULL);
	KUNIT_EXPECT_EQ(test, from, b->peer[0]);
	KUNIT_EXPECT_EQ(test, memcmp(dst, src, big), 0);
	/* the send completes once the peer has read it */
	KUNIT_ASSERT_EQ(test, rdm_wait(a->tx, &e, &from), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)src);

	/* tagged, unexpected: sent before its receive is posted */
	memset(dst, 0, big);
	KUNIT_ASSERT_EQ(test, kfi_tsend(a->ep, src + 5, mid, NULL, a->peer[1],
					0x51, src + 5), 0);
	KUNIT_ASSERT_EQ(test, kfi_send(a->ep, "eager", 6, NULL, a->peer[1],
				       NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_recv(b->ep, small, sizeof(small), NULL,
				       KFI_ADDR_UNSPEC, small), 0);
	/* the eager message behind it is not held up */
	KUNIT_ASSERT_EQ(test, rdm_wait(b->rx, &e, &from), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)small);
	KUNIT_EXPECT_STREQ(test, small, "eager");
	msleep(20);
	KUNIT_ASSERT_EQ(test, kfi_trecv(b->ep, dst, big, NULL, KFI_ADDR_UNSPEC,
					0x51, 0, dst), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(b->rx, &e, &from), 1);
	KUNIT_EXPECT_EQ(test, e.len, mid);
	KUNIT_EXPECT_EQ(test, e.tag, 0x51ULL);
	KUNIT_EXPECT_EQ(test, e.flags, (u64)(KFI_TAGGED | KFI_RECV));
	KUNIT_EXPECT_EQ(test, from, b->peer[0]);
	KUNIT_EXPECT_EQ(test, memcmp(dst, src + 5, mid), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(a->tx, &e, &from), 1);
	KUNIT_ASSERT_EQ(test, rdm_wait(a->tx, &e, &from), 1);

	/* into a receive too short: truncated, the connection stays */
	memset(dst, 0, big);
	KUNIT_ASSERT_EQ(test, kfi_recv(b->ep, dst, 100000, NULL,
				       KFI_ADDR_UNSPEC, dst), 0);
	KUNIT_ASSERT_EQ(test, kfi_send(a->ep, src, mid, NULL, a->peer[1],
				       NULL), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(b->rx, &e, &from), (ssize_t)-KFI_EAVAIL);
	KUNIT_ASSERT_EQ(test, kfi_cq_readerr(b->rx, &err, 0), 1);
	KUNIT_EXPECT_EQ(test, err.err, KFI_ETRUNC);
	KUNIT_EXPECT_EQ(test, err.len, (size_t)100000);
	KUNIT_EXPECT_EQ(test, err.olen, mid - 100000);
	KUNIT_EXPECT_EQ(test, memcmp(dst, src, 100000), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(a->tx, &e, &from), 1);
	KUNIT_ASSERT_EQ(test, kfi_recv(b->ep, small, sizeof(small), NULL,
				       KFI_ADDR_UNSPEC, small), 0);
	KUNIT_ASSERT_EQ(test, kfi_send(a->ep, "after", 6, NULL, a->peer[1],
				       NULL), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(b->rx, &e, &from), 1);
	KUNIT_EXPECT_STREQ(test, small, "after");
	KUNIT_ASSERT_EQ(test, rdm_wait(a->tx, &e, &from), 1);
	rdm_teardown(test, f);
}

/* Over IPv6 (::1): names, a message each way with its source. */
static void rdm_ipv6(struct kunit *test)
{
	struct rdm_fixture *f = rdm_fix(test);
	struct kfi_cq_tagged_entry e;
	char in[16];
	kfi_addr_t src;
	int k;

	if (!cur_prov->node6)
		kunit_skip(test, "%s: no IPv6 node", cur_prov->name);
	rdm_setup_at(test, f, 2, 0, cur_prov->node6);
	KUNIT_EXPECT_EQ(test, f->node[0].addr.ss_family, (sa_family_t)AF_INET6);
	for (k = 0; k < 2; k++) {
		struct rdm_node *s = &f->node[k], *r = &f->node[1 - k];

		memset(in, 0, sizeof(in));
		KUNIT_ASSERT_EQ(test, kfi_recv(r->ep, in, sizeof(in), NULL,
					       KFI_ADDR_UNSPEC, NULL), 0);
		KUNIT_ASSERT_EQ(test, kfi_send(s->ep, "six", 4, NULL,
					       s->peer[1 - k], NULL), 0);
		KUNIT_ASSERT_EQ(test, rdm_wait(r->rx, &e, &src), 1);
		KUNIT_EXPECT_STREQ(test, in, "six");
		KUNIT_EXPECT_EQ(test, src, r->peer[k]);
		KUNIT_ASSERT_EQ(test, rdm_wait(s->tx, &e, &src), 1);
	}
	rdm_teardown(test, f);
}

/* ------------------------------------------------- a hostile rxm peer */

/* A kernel TCP socket connected to @to, reads bounded by 2 s; NULL if not. */
static struct socket *hp_connect(struct kunit *test,
				 const struct sockaddr_storage *to)
{
	struct socket *sock;
	int len = to->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					      sizeof(struct sockaddr_in);

	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, to->ss_family,
					       SOCK_STREAM, IPPROTO_TCP, &sock),
			0);
	sock->sk->sk_rcvtimeo = 2 * HZ;
	sock->sk->sk_sndtimeo = 2 * HZ;
	if (kernel_connect(sock, (struct sockaddr *)to, len, 0)) {
		sock_release(sock);
		return NULL;
	}
	return sock;
}

static int hp_send(struct socket *sock, const void *buf, size_t len)
{
	struct kvec v = { (void *)buf, len };
	struct msghdr m = {};

	return kernel_sendmsg(sock, &m, &v, 1, len);
}

/* Reads until @len bytes or the end: how many came (0 at once: EOF). */
static int hp_recv(struct socket *sock, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		struct kvec v = { buf + got, len - got };
		struct msghdr m = {};
		int r = kernel_recvmsg(sock, &m, &v, 1, len - got, 0);

		if (r <= 0)
			return got ? got : r;
		got += r;
	}
	return got;
}

/* Whether the peer closes the connection (EOF) within the read timeout. */
static bool hp_closed(struct socket *sock)
{
	u8 b[256];
	int i;

	for (i = 0; i < 64; i++) {
		int r = hp_recv(sock, b, sizeof(b));

		if (r == 0)
			return true;
		if (r < 0)
			return r != -EAGAIN;
	}
	return false;
}

/* libfabric tcp's CM header (32 bytes) with @len bytes of CM data. */
static void hp_cm_hdr(u8 *h, u8 type, u16 len)
{
	memset(h, 0, 32);
	h[0] = 3;
	h[1] = type;
	h[2] = len >> 8;
	h[3] = len & 0xff;
	*(u64 *)(h + 24) = 1;
}

/*
 * rxm's connect data (Documentation/rxm-wire.md 3.3) for a requester
 * listening on @port with id @id; @version other than 1 is refused.
 */
static void hp_connect_data(u8 *d, u8 version, u16 port, u64 id)
{
	memset(d, 0, 24);
	d[0] = version;
	d[1] = 2;	/* little endian (x86-64) */
	d[2] = 4;
	d[3] = 3;
	*(u16 *)(d + 4) = port;
	d[6] = 2;
	*(u32 *)(d + 8) = 16384;
	*(u32 *)(d + 12) = 64;
	*(u64 *)(d + 16) = id;
}

/*
 * Connects to @to as an rxm peer (connreq with rxm's connect data) and
 * reads the connresp; NULL if refused.
 */
static struct socket *hp_handshake(struct kunit *test,
				   const struct sockaddr_storage *to, u64 id)
{
	struct socket *s = hp_connect(test, to);
	u8 m[32 + 24], r[32 + 16];

	KUNIT_ASSERT_NOT_NULL(test, s);
	hp_cm_hdr(m, 0, 24);
	hp_connect_data(m + 32, 1, 1, id);
	KUNIT_ASSERT_EQ(test, hp_send(s, m, sizeof(m)), (int)sizeof(m));
	if (hp_recv(s, r, sizeof(r)) != sizeof(r) || r[1] != 1) {
		sock_release(s);
		return NULL;
	}
	return s;
}

/*
 * A tcp message frame whose payload is the 64-byte rxm header @pkt and
 * @extra bytes of @tail.
 */
static int hp_send_pkt_flags(struct socket *s, const u8 *pkt,
			     const void *tail, size_t extra, u16 flags)
{
	u8 f[16 + 64 + 128] = {};
	size_t len = 16 + 64 + extra;

	f[0] = 3;
	*(u16 *)(f + 2) = flags;
	f[6] = 16;
	*(u64 *)(f + 8) = len;
	memcpy(f + 16, pkt, 64);
	if (extra)
		memcpy(f + 80, tail, extra);
	return hp_send(s, f, len);
}

static int hp_send_pkt(struct socket *s, const u8 *pkt, const void *tail,
		       size_t extra)
{
	return hp_send_pkt_flags(s, pkt, tail, extra, 0);
}

/* An rxm packet header of @type (op msg, @size), version @version. */
static void hp_pkt(u8 *p, u8 version, u8 type, u64 size, u64 msg_id)
{
	memset(p, 0, 64);
	p[0] = version;
	p[1] = type;
	*(u64 *)(p + 16) = msg_id;
	p[32] = 2;
	*(u64 *)(p + 40) = size;
}

/*
 * Malformed connection data and rxm packets from a peer: each refused or
 * ending its connection (EOF), no crash, no lost state; the endpoint then
 * still exchanges a message with a well-behaved peer.
 */
static void rdm_hostile_peer(struct kunit *test)
{
	struct rdm_fixture *f = rdm_fix(test);
	struct kfi_cq_tagged_entry e;
	struct socket *s;
	u8 m[32 + 24], r[32 + 2], pkt[64], rndv[104] = {};
	char in[16] = "";
	kfi_addr_t src;
	int i;

	rdm_need(test, 0);
	if (strcmp(cur_prov->name, "tcp"))
		kunit_skip(test, "the tcp provider's wire");
	rdm_setup(test, f, 2, 0);

	/* connect data of another version: rejected with reason 1 */
	s = hp_connect(test, &f->node[1].addr);
	KUNIT_ASSERT_NOT_NULL(test, s);
	hp_cm_hdr(m, 0, 24);
	hp_connect_data(m + 32, 9, 1, 1);
	KUNIT_ASSERT_EQ(test, hp_send(s, m, sizeof(m)), (int)sizeof(m));
	KUNIT_ASSERT_EQ(test, hp_recv(s, r, sizeof(r)), (int)sizeof(r));
	KUNIT_EXPECT_EQ(test, r[1], 6);		/* nack */
	KUNIT_EXPECT_EQ(test, r[32], 1);
	KUNIT_EXPECT_EQ(test, r[33], 1);	/* ECONNREFUSED */
	KUNIT_EXPECT_TRUE(test, hp_closed(s));
	sock_release(s);
	/* connect data cut short */
	s = hp_connect(test, &f->node[1].addr);
	KUNIT_ASSERT_NOT_NULL(test, s);
	hp_cm_hdr(m, 0, 10);
	KUNIT_ASSERT_EQ(test, hp_send(s, m, 32 + 10), 42);
	KUNIT_ASSERT_EQ(test, hp_recv(s, r, sizeof(r)), (int)sizeof(r));
	KUNIT_EXPECT_EQ(test, r[1], 6);
	sock_release(s);

	/*
	 * The framing is right: a good eager packet from such a peer (not in
	 * the AV) is delivered, its connection kept.
	 */
	s = hp_handshake(test, &f->node[1].addr, 0x99ULL << 32);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, kfi_recv(f->node[1].ep, in, sizeof(in), NULL,
				       KFI_ADDR_UNSPEC, NULL), 0);
	hp_pkt(pkt, 4, 0, 10, 0);
	hp_send_pkt(s, pkt, "0123456789", 10);
	KUNIT_ASSERT_EQ(test, rdm_wait(f->node[1].rx, &e, &src), 1);
	KUNIT_EXPECT_EQ(test, e.len, (size_t)10);
	KUNIT_EXPECT_EQ(test, memcmp(in, "0123456789", 10), 0);
	KUNIT_EXPECT_EQ(test, src, (kfi_addr_t)KFI_ADDR_NOTAVAIL);
	/*
	 * Two more asking for delivery complete: each answered by an ACK
	 * frame, whose id byte numbers our frames on the connection (0, 1:
	 * libfabric's debug builds check it).
	 */
	for (i = 0; i < 2; i++) {
		u8 ack[16];

		KUNIT_ASSERT_EQ(test, kfi_recv(f->node[1].ep, in, sizeof(in),
					       NULL, KFI_ADDR_UNSPEC, NULL), 0);
		hp_send_pkt_flags(s, pkt, "0123456789", 10, 0x4);
		KUNIT_ASSERT_EQ(test, rdm_wait(f->node[1].rx, &e, &src), 1);
		KUNIT_ASSERT_EQ(test, hp_recv(s, ack, sizeof(ack)), 16);
		KUNIT_EXPECT_EQ(test, ack[0], 3);
		KUNIT_EXPECT_EQ(test, ack[4], 2);	/* op_data: ACK */
		KUNIT_EXPECT_EQ(test, ack[7], (u8)i);	/* id */
	}
	/*
	 * kfabric's tagged RMA from such a peer: a write to a tag no receive
	 * has is answered TagRmaDone with EREMOTEIO (the connection kept);
	 * a read of a posted tagged receive is answered TagRmaData with its
	 * bytes, and the receive completes as read.
	 */
	{
		u8 ans[16 + 64 + 10];

		s->sk->sk_rcvtimeo = 5 * HZ;
		hp_pkt(pkt, 4, 0x40, 10, 0x1234);
		pkt[34] = 1;				/* op tagged */
		*(u64 *)(pkt + 56) = 0x7777;		/* tag */
		hp_send_pkt(s, pkt, "0123456789", 10);
		KUNIT_ASSERT_EQ(test, hp_recv(s, ans, 16 + 64), 16 + 64);
		KUNIT_EXPECT_EQ(test, ans[16 + 1], 0x42);
		KUNIT_EXPECT_EQ(test, *(u64 *)(ans + 16 + 16), 0x1234ULL);
		KUNIT_EXPECT_EQ(test, *(u64 *)(ans + 16 + 48), (u64)EREMOTEIO);
		memcpy(in, "tagged-rma", 10);
		KUNIT_ASSERT_EQ(test, kfi_trecv(f->node[1].ep, in, 10, NULL,
						KFI_ADDR_UNSPEC, 0x7778, 0, in),
				0);
		hp_pkt(pkt, 4, 0x41, 10, 0x1235);
		pkt[34] = 1;
		*(u64 *)(pkt + 56) = 0x7778;
		hp_send_pkt(s, pkt, NULL, 0);
		KUNIT_ASSERT_EQ(test, hp_recv(s, ans, sizeof(ans)),
				(int)sizeof(ans));
		KUNIT_EXPECT_EQ(test, ans[16 + 1], 0x43);
		KUNIT_EXPECT_EQ(test, *(u64 *)(ans + 16 + 16), 0x1235ULL);
		KUNIT_EXPECT_EQ(test, *(u64 *)(ans + 16 + 48), 0ULL);
		KUNIT_EXPECT_EQ(test, memcmp(ans + 16 + 64, "tagged-rma", 10),
				0);
		KUNIT_ASSERT_EQ(test, rdm_wait(f->node[1].rx, &e, &src), 1);
		KUNIT_EXPECT_EQ(test, e.flags, (u64)(KFI_TAGGED | KFI_RMA |
						     KFI_READ | KFI_RECV));
		KUNIT_EXPECT_EQ(test, e.len, (size_t)10);
	}
	s->sk->sk_rcvtimeo = HZ / 2;
	KUNIT_EXPECT_FALSE(test, hp_closed(s));
	sock_release(s);
	memset(in, 0, sizeof(in));

	/* each bad packet ends its connection */
	for (i = 0; i < 10; i++) {
		s = hp_handshake(test, &f->node[1].addr, (u64)(0x100 + i) << 32);
		KUNIT_ASSERT_NOT_NULL(test, s);
		switch (i) {
		case 0:	/* control version */
			hp_pkt(pkt, 3, 0, 0, 0);
			hp_send_pkt(s, pkt, NULL, 0);
			break;
		case 1:	/* unknown type */
			hp_pkt(pkt, 4, 12, 0, 0);
			hp_send_pkt(s, pkt, NULL, 0);
			break;
		case 2:	/* eager size other than the payload's */
			hp_pkt(pkt, 4, 0, 40, 0);
			hp_send_pkt(s, pkt, "0123456789", 10);
			break;
		case 3:	/* rendezvous request naming 5 pieces */
			hp_pkt(pkt, 4, 2, 1 << 20, 1);
			rndv[96] = 5;
			hp_send_pkt(s, pkt, rndv, sizeof(rndv));
			break;
		case 4:	/* done of a rendezvous never sent */
			hp_pkt(pkt, 4, 3, 0, 77);
			hp_send_pkt(s, pkt, NULL, 0);
			break;
		case 5:	/* a first segment carrying nothing */
			hp_pkt(pkt, 4, 1, 40000, 1);
			pkt[24] = 1;
			hp_send_pkt(s, pkt, NULL, 0);
			break;
		case 8:	/* the answer to a tagged RMA never asked */
			hp_pkt(pkt, 4, 0x42, 0, 555);
			hp_send_pkt(s, pkt, NULL, 0);
			break;
		case 9:	/* a tagged RMA write shorter than it says */
			hp_pkt(pkt, 4, 0x40, 100, 1);
			hp_send_pkt(s, pkt, "0123456789", 10);
			break;
		case 7:	/* a middle segment of a message never begun */
			hp_pkt(pkt, 4, 1, 40000, 1);
			pkt[2] = 10;	/* seg_size */
			pkt[24] = 2;
			hp_send_pkt(s, pkt, "0123456789", 10);
			break;
		case 6:	/* a frame shorter than an rxm header */
			{
				u8 fr[16 + 8] = { 3, 0, 0, 0, 0, 0, 16 };

				*(u64 *)(fr + 8) = sizeof(fr);
				hp_send(s, fr, sizeof(fr));
			}
			break;
		}
		KUNIT_EXPECT_TRUE_MSG(test, hp_closed(s), "case %d", i);
		sock_release(s);
	}

	/* a well-behaved peer is still served */
	KUNIT_ASSERT_EQ(test, kfi_recv(f->node[1].ep, in, sizeof(in), NULL,
				       KFI_ADDR_UNSPEC, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_send(f->node[0].ep, "still", 6, NULL,
				       f->node[0].peer[1], NULL), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(f->node[1].rx, &e, &src), 1);
	KUNIT_EXPECT_STREQ(test, in, "still");
	KUNIT_EXPECT_EQ(test, src, f->node[1].peer[0]);
	KUNIT_ASSERT_EQ(test, rdm_wait(f->node[0].tx, &e, &src), 1);
	/* nothing was completed for the hostile peers */
	KUNIT_EXPECT_EQ(test, kfi_cq_read(f->node[1].rx, &e, 1),
			(ssize_t)-EAGAIN);
	rdm_teardown(test, f);
}

#define PIPE_N		8
#define PIPE_LEN	(32 * 1024)

/*
 * Rendezvous messages back to back on one connection: the receiver reads
 * one at a time while the next requests (and its reads' responses behind
 * them) keep coming. Eight with eight receives posted; then three with one
 * receive posted, reposted as each completes (the second waits for a
 * receive while the first's responses are still to be read), then an
 * eager message: every message in order into its receive, bytes checked.
 */
static void rdm_rendezvous_pipelined(struct kunit *test)
{
	struct rdm_fixture *f = rdm_fix(test);
	struct rdm_node *a, *b;
	struct kfi_cq_tagged_entry e;
	u8 *out = kunit_kzalloc(test, PIPE_N * PIPE_LEN, GFP_KERNEL);
	u8 *in = kunit_kzalloc(test, PIPE_N * PIPE_LEN, GFP_KERNEL);
	kfi_addr_t src;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_NOT_NULL(test, in);
	rdm_min_msg = PIPE_LEN;
	rdm_setup(test, f, 2, 0);
	a = &f->node[0];
	b = &f->node[1];
	for (i = 0; i < PIPE_N; i++) {
		fill(out + i * PIPE_LEN, PIPE_LEN, 100 + i);
		KUNIT_ASSERT_EQ(test, kfi_recv(b->ep, in + i * PIPE_LEN,
					       PIPE_LEN, NULL, KFI_ADDR_UNSPEC,
					       in + i * PIPE_LEN), 0);
	}
	for (i = 0; i < PIPE_N; i++)
		KUNIT_ASSERT_EQ(test, kfi_send(a->ep, out + i * PIPE_LEN,
					       PIPE_LEN, NULL, a->peer[1],
					       out + i * PIPE_LEN), 0);
	for (i = 0; i < PIPE_N; i++) {
		KUNIT_ASSERT_EQ(test, rdm_wait(b->rx, &e, &src), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context,
				    (void *)(in + i * PIPE_LEN));
		KUNIT_EXPECT_EQ(test, e.len, (size_t)PIPE_LEN);
	}
	for (i = 0; i < PIPE_N; i++)
		KUNIT_ASSERT_EQ(test, rdm_wait(a->tx, &e, &src), 1);
	KUNIT_EXPECT_EQ(test, memcmp(in, out, PIPE_N * PIPE_LEN), 0);

	/* one receive at a time */
	memset(in, 0, PIPE_N * PIPE_LEN);
	KUNIT_ASSERT_EQ(test, kfi_recv(b->ep, in, PIPE_LEN, NULL,
				       KFI_ADDR_UNSPEC, in), 0);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, kfi_send(a->ep, out + i * PIPE_LEN,
					       PIPE_LEN, NULL, a->peer[1], NULL),
				0);
	KUNIT_ASSERT_EQ(test, kfi_send(a->ep, "eager", 6, NULL, a->peer[1],
				       NULL), 0);
	for (i = 0; i < 4; i++) {
		u8 *next = in + (i + 1) * PIPE_LEN;

		KUNIT_ASSERT_EQ(test, rdm_wait(b->rx, &e, &src), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context,
				    (void *)(in + i * PIPE_LEN));
		if (i < 3)
			KUNIT_ASSERT_EQ(test, kfi_recv(b->ep, next, PIPE_LEN,
						       NULL, KFI_ADDR_UNSPEC,
						       next), 0);
	}
	KUNIT_EXPECT_EQ(test, memcmp(in, out, 3 * PIPE_LEN), 0);
	KUNIT_EXPECT_STREQ(test, (char *)in + 3 * PIPE_LEN, "eager");
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, rdm_wait(a->tx, &e, &src), 1);
	rdm_teardown(test, f);
}

/*
 * A full transmit queue says -EAGAIN and loses nothing: four rendezvous
 * sends wait for receives the peer has not posted, the fifth post is
 * refused; once the peer posts, all four complete and the fifth,
 * posted again, goes too; every message arrives once, in order.
 */
static void rdm_eagain_replay(struct kunit *test)
{
	struct rdm_fixture *f = rdm_fix(test);
	struct rdm_node *a, *b;
	struct kfi_cq_tagged_entry e;
	u8 *out = kunit_kzalloc(test, 5 * PIPE_LEN, GFP_KERNEL);
	u8 *in = kunit_kzalloc(test, 5 * PIPE_LEN, GFP_KERNEL);
	kfi_addr_t src;
	int i, got;

	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_NOT_NULL(test, in);
	/* checked before the depth is set for rdm_setup() (a skip keeps it) */
	rdm_min_msg = PIPE_LEN;
	rdm_need(test, 0);
	rdm_tx_size = 4;
	rdm_setup(test, f, 2, 0);
	rdm_tx_size = 0;
	a = &f->node[0];
	b = &f->node[1];
	for (i = 0; i < 5; i++)
		fill(out + i * PIPE_LEN, PIPE_LEN, 50 + i);
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, kfi_send(a->ep, out + i * PIPE_LEN,
					       PIPE_LEN, NULL, a->peer[1],
					       out + i * PIPE_LEN), 0);
	KUNIT_EXPECT_EQ(test, kfi_send(a->ep, out + 4 * PIPE_LEN, PIPE_LEN,
				       NULL, a->peer[1], out + 4 * PIPE_LEN),
			(ssize_t)-EAGAIN);
	msleep(50);
	/*
	 * tcp sends these by rendezvous: nothing completes while the peer
	 * has no receive. A provider that segments them (kfi_verbs: SAR into
	 * the peer's packet buffers) may have completed some, in order.
	 */
	got = 0;
	while (got < 4 && kfi_cq_read(a->tx, &e, 1) == 1) {
		KUNIT_EXPECT_PTR_EQ(test, e.op_context,
				    (void *)(out + got * PIPE_LEN));
		got++;
	}
	if (!strcmp(cur_prov->name, "tcp"))
		KUNIT_EXPECT_EQ(test, got, 0);
	for (i = 0; i < 5; i++)
		KUNIT_ASSERT_EQ(test, kfi_recv(b->ep, in + i * PIPE_LEN,
					       PIPE_LEN, NULL, KFI_ADDR_UNSPEC,
					       in + i * PIPE_LEN), 0);
	for (i = got; i < 4; i++) {
		KUNIT_ASSERT_EQ(test, rdm_wait(a->tx, &e, &src), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context,
				    (void *)(out + i * PIPE_LEN));
	}
	/* the replay */
	KUNIT_ASSERT_EQ(test, kfi_send(a->ep, out + 4 * PIPE_LEN, PIPE_LEN,
				       NULL, a->peer[1], out + 4 * PIPE_LEN),
			0);
	KUNIT_ASSERT_EQ(test, rdm_wait(a->tx, &e, &src), 1);
	for (i = 0; i < 5; i++) {
		KUNIT_ASSERT_EQ(test, rdm_wait(b->rx, &e, &src), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context,
				    (void *)(in + i * PIPE_LEN));
	}
	KUNIT_EXPECT_EQ(test, memcmp(in, out, 5 * PIPE_LEN), 0);
	KUNIT_EXPECT_EQ(test, kfi_cq_read(b->rx, &e, 1), (ssize_t)-EAGAIN);
	rdm_teardown(test, f);
}

/* ------------------------------------------------ scalable endpoints */

#define SEP_CTX		4
#define SEP_BITS	8	/* kfilnd's rx_ctx_bits */
#define SEP_MSGS	8	/* per transmit and receive context pair */
#define SEP_LEN		64

/*
 * A scalable endpoint with SEP_CTX transmit and receive contexts, each
 * with a CQ of its own; peer[j]: node j's handle in its AV.
 */
struct sep_node {
	struct kfid_ep *sep;
	struct kfid_ep *tx[SEP_CTX], *rx[SEP_CTX];
	struct kfid_cq *txcq[SEP_CTX], *rxcq[SEP_CTX];
	struct kfid_av *av;
	struct sockaddr_storage addr;
	kfi_addr_t peer[2];
};

struct sep_fixture {
	struct dom_fixture d;
	struct sep_node node[2];
	struct kunit *test;	/* for sep_release() */
};

/* The scalable endpoint of node @i, not enabled (@caps added). */
static void sep_make(struct kunit *test, struct sep_fixture *f, int i,
		     uint64_t caps)
{
	struct kfi_av_attr av_attr = { .type = KFI_AV_TABLE,
				       .rx_ctx_bits = SEP_BITS };
	struct sep_node *n = &f->node[i];
	struct kfi_info *info = kfi_dupinfo(f->d.list);

	KUNIT_ASSERT_NOT_NULL(test, info);
	info->ep_attr->type = KFI_EP_RDM;
	info->ep_attr->tx_ctx_cnt = SEP_CTX;
	info->ep_attr->rx_ctx_cnt = SEP_CTX;
	info->caps |= caps;
	KUNIT_ASSERT_EQ(test, kfi_scalable_ep(f->d.dom, info, &n->sep, n), 0);
	kfi_freeinfo(info);
	KUNIT_EXPECT_EQ(test, n->sep->fid.fclass, (size_t)KFI_CLASS_SEP);
	KUNIT_ASSERT_EQ(test, kfi_av_open(f->d.dom, &av_attr, &n->av, n), 0);
	KUNIT_ASSERT_EQ(test, kfi_scalable_ep_bind(n->sep, &n->av->fid, 0), 0);
}

/*
 * Context @c of node @i, both kinds, the way kfilnd opens them: a CQ each
 * bound with flags 0, receive context first, each enabled.
 */
static void sep_ctx_open(struct kunit *test, struct sep_node *n,
			 struct dom_fixture *d, int c)
{
	struct kfi_cq_attr cq_attr = { .size = 1024,
				       .format = KFI_CQ_FORMAT_TAGGED };

	KUNIT_ASSERT_EQ(test, kfi_rx_context(n->sep, c, NULL, &n->rx[c], n),
			0);
	KUNIT_EXPECT_EQ(test, n->rx[c]->fid.fclass, (size_t)KFI_CLASS_RX_CTX);
	KUNIT_ASSERT_EQ(test, kfi_tx_context(n->sep, c, NULL, &n->tx[c], n),
			0);
	KUNIT_EXPECT_EQ(test, n->tx[c]->fid.fclass, (size_t)KFI_CLASS_TX_CTX);
	KUNIT_ASSERT_EQ(test, kfi_cq_open(d->dom, &cq_attr, &n->rxcq[c], NULL,
					  NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_cq_open(d->dom, &cq_attr, &n->txcq[c], NULL,
					  NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(n->rx[c], &n->rxcq[c]->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(n->tx[c], &n->txcq[c]->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, kfi_enable(n->rx[c]), 0);
	KUNIT_ASSERT_EQ(test, kfi_enable(n->tx[c]), 0);
}

static void sep_open(struct kunit *test, struct sep_fixture *f, int i,
		     uint64_t caps)
{
	struct sep_node *n = &f->node[i];
	size_t len = sizeof(n->addr);
	int c;

	sep_make(test, f, i, caps);
	KUNIT_ASSERT_EQ(test, kfi_enable(n->sep), 0);
	KUNIT_ASSERT_EQ(test, kfi_getname(&n->sep->fid, &n->addr, &len), 0);
	KUNIT_ASSERT_NE(test, ((struct sockaddr_in *)&n->addr)->sin_port, 0);
	for (c = 0; c < SEP_CTX; c++)
		sep_ctx_open(test, n, &f->d, c);
}

static void sep_ctx_close(struct kunit *test, struct sep_node *n, int c)
{
	if (n->tx[c])
		KUNIT_EXPECT_EQ(test, kfi_close(&n->tx[c]->fid), 0);
	if (n->rx[c])
		KUNIT_EXPECT_EQ(test, kfi_close(&n->rx[c]->fid), 0);
	if (n->txcq[c])
		KUNIT_EXPECT_EQ(test, kfi_close(&n->txcq[c]->fid), 0);
	if (n->rxcq[c])
		KUNIT_EXPECT_EQ(test, kfi_close(&n->rxcq[c]->fid), 0);
	n->tx[c] = n->rx[c] = NULL;
	n->txcq[c] = n->rxcq[c] = NULL;
}

/* Contexts in an order of their own (rx 3, tx 0, ...), then the rest. */
static void sep_close(struct kunit *test, struct sep_node *n)
{
	int c;

	if (n->sep) {
		for (c = SEP_CTX - 1; c >= 0; c--)
			sep_ctx_close(test, n, c);
		KUNIT_EXPECT_EQ(test, kfi_close(&n->sep->fid), 0);
	}
	if (n->av)
		KUNIT_EXPECT_EQ(test, kfi_close(&n->av->fid), 0);
	n->sep = NULL;
	n->av = NULL;
}

static void sep_teardown(struct kunit *test, struct sep_fixture *f);

/* The case ended (maybe early): what its fixture still has open closes. */
static void sep_release(void *p)
{
	struct sep_fixture *f = p;

	sep_teardown(f->test, f);
}

static struct sep_fixture *sep_setup(struct kunit *test, uint64_t caps)
{
	struct sep_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	int i, j;

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->test = test;
	/* as rdm_setup_at() */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, sep_release, f),
			0);
	rdm_need(test, caps);
	rdm_dom_setup(test, &f->d, caps, cur_prov->node);
	if (f->d.list->domain_attr->max_ep_tx_ctx < SEP_CTX) {
		dom_teardown(test, &f->d);
		kunit_skip(test, "%s: no scalable endpoints of %d contexts",
			   cur_prov->name, SEP_CTX);
	}
	for (i = 0; i < 2; i++)
		sep_open(test, f, i, caps);
	for (i = 0; i < 2; i++)
		for (j = 0; j < 2; j++)
			KUNIT_ASSERT_EQ(test,
					kfi_av_insert(f->node[i].av,
						      &f->node[j].addr, 1,
						      &f->node[i].peer[j], 0,
						      NULL), 1);
	return f;
}

static void sep_teardown(struct kunit *test, struct sep_fixture *f)
{
	sep_close(test, &f->node[0]);
	sep_close(test, &f->node[1]);
	dom_teardown(test, &f->d);
}

/* What a message of the all-to-all test says. */
struct sep_msg {
	u8 node, tx, rx;
	u8 tagged;
	u32 seq;
	u8 fill[SEP_LEN - 8];
};

/* One transmit context driven by a work item on a CPU of its own. */
struct sep_worker {
	struct work_struct w;
	struct sep_fixture *f;
	int node, c;
	struct sep_msg out[SEP_CTX][SEP_MSGS];
	int sent, done, err;
	unsigned int cpu;
};

/*
 * Transmit context c of the node: SEP_MSGS messages to each receive
 * context of the other node (kfi_rx_addr), the last of each a tagged one
 * (tag 0x100 + c); then its completions, every one a success.
 */
static void sep_worker_fn(struct work_struct *w)
{
	struct sep_worker *k = container_of(w, struct sep_worker, w);
	struct sep_node *n = &k->f->node[k->node];
	kfi_addr_t peer = n->peer[1 - k->node];
	struct kfi_cq_tagged_entry e;
	unsigned long end = jiffies + msecs_to_jiffies(RDM_WAIT_MS);
	int j, s;

	k->cpu = raw_smp_processor_id();
	for (j = 0; j < SEP_CTX; j++) {
		kfi_addr_t to = kfi_rx_addr(peer, j, SEP_BITS);

		for (s = 0; s < SEP_MSGS; s++) {
			struct sep_msg *m = &k->out[j][s];
			ssize_t r;

			m->node = k->node;
			m->tx = k->c;
			m->rx = j;
			m->seq = s;
			m->tagged = s == SEP_MSGS - 1;
			fill(m->fill, sizeof(m->fill), k->node * 100 + k->c * 10 + j + s);
			do {
				r = m->tagged ?
				    kfi_tsend(n->tx[k->c], m, sizeof(*m), NULL,
					      to, 0x100 + k->c, m) :
				    kfi_send(n->tx[k->c], m, sizeof(*m), NULL,
					     to, m);
				if (r == -EAGAIN &&
				    kfi_cq_read(n->txcq[k->c], &e, 1) == 1)
					k->done++;
			} while (r == -EAGAIN && time_before(jiffies, end));
			if (r) {
				k->err = r;
				return;
			}
			k->sent++;
		}
	}
	while (k->done < k->sent && time_before(jiffies, end)) {
		ssize_t r = kfi_cq_sread(n->txcq[k->c], &e, 1, NULL, 100);

		if (r == 1)
			k->done++;
		else if (r != -EAGAIN) {
			struct kfi_cq_err_entry err = {};

			k->err = r;
			/* an error entry: its error, to be reported */
			if (r == -KFI_EAVAIL &&
			    kfi_cq_readerr(n->txcq[k->c], &err, 0) == 1)
				k->err = -err.err;
			return;
		}
	}
}

/*
 * Two scalable endpoints with four transmit and four receive contexts
 * each: every transmit context, driven from a work item on its own CPU,
 * sends to every receive context of the other node (kfi_rx_addr); each
 * receive context gets exactly its messages, in order per sender, each
 * from the sender's address (kfi_cq_readfrom), the tagged ones into
 * receives directed to that address; each entry on that context's CQ.
 */
static void sep_contexts_all_to_all(struct kunit *test)
{
	struct sep_fixture *f = sep_setup(test, KFI_DIRECTED_RECV);
	struct sep_worker *k = kunit_kcalloc(test, 2 * SEP_CTX, sizeof(*k),
					     GFP_KERNEL);
	struct sep_msg (*in)[SEP_CTX][SEP_CTX * SEP_MSGS] =
		kunit_kzalloc(test, 2 * sizeof(*in), GFP_KERNEL);
	struct kfi_cq_tagged_entry e;
	kfi_addr_t src;
	int i, c, j, s, cpus = 0;
	unsigned int used = 0;

	KUNIT_ASSERT_NOT_NULL(test, k);
	KUNIT_ASSERT_NOT_NULL(test, in);
	/*
	 * Receive context j of node i: untagged receives for the untagged
	 * messages, and per sending context one tagged receive directed to
	 * the other node.
	 */
	for (i = 0; i < 2; i++) {
		struct sep_node *n = &f->node[i];

		for (j = 0; j < SEP_CTX; j++) {
			struct sep_msg *b = in[i][j];

			for (s = 0; s < SEP_CTX * (SEP_MSGS - 1); s++)
				KUNIT_ASSERT_EQ(test,
						kfi_recv(n->rx[j], &b[s],
							 sizeof(*b), NULL,
							 KFI_ADDR_UNSPEC,
							 &b[s]), 0);
			for (c = 0; c < SEP_CTX; c++, s++)
				KUNIT_ASSERT_EQ(test,
						kfi_trecv(n->rx[j], &b[s],
							  sizeof(*b), NULL,
							  n->peer[1 - i],
							  0x100 + c, 0,
							  &b[s]), 0);
		}
	}
	for (i = 0; i < 2 * SEP_CTX; i++) {
		k[i].f = f;
		k[i].node = i / SEP_CTX;
		k[i].c = i % SEP_CTX;
		INIT_WORK(&k[i].w, sep_worker_fn);
		queue_work_on(cpumask_local_spread(i, NUMA_NO_NODE),
			      system_wq, &k[i].w);
	}
	for (i = 0; i < 2 * SEP_CTX; i++) {
		flush_work(&k[i].w);
		KUNIT_EXPECT_EQ(test, k[i].err, 0);
		KUNIT_EXPECT_EQ(test, k[i].sent, SEP_CTX * SEP_MSGS);
		KUNIT_EXPECT_EQ(test, k[i].done, k[i].sent);
		if (!(used & BIT(k[i].cpu % 32)))
			cpus++;
		used |= BIT(k[i].cpu % 32);
	}
	/* driven from more than one CPU (each CPU the machine has) */
	KUNIT_EXPECT_EQ(test, cpus, min_t(int, num_online_cpus(), 2 * SEP_CTX));
	for (i = 0; i < 2; i++) {
		struct sep_node *n = &f->node[i];

		for (j = 0; j < SEP_CTX; j++) {
			int next[SEP_CTX] = {}, tagged = 0;

			for (s = 0; s < SEP_CTX * SEP_MSGS; s++) {
				struct sep_msg *m;
				u8 want[SEP_LEN - 8];

				memset(&e, 0, sizeof(e));
				KUNIT_ASSERT_EQ(test,
						kfi_cq_sreadfrom(n->rxcq[j], &e,
								 1, &src, NULL,
								 RDM_WAIT_MS),
						1);
				m = e.op_context;
				KUNIT_EXPECT_EQ(test, src, n->peer[1 - i]);
				KUNIT_EXPECT_EQ(test, e.len, sizeof(*m));
				KUNIT_ASSERT_EQ(test, (int)m->node, 1 - i);
				KUNIT_ASSERT_LT(test, (int)m->tx, SEP_CTX);
				KUNIT_EXPECT_EQ(test, (int)m->rx, j);
				/* in order per sending context */
				KUNIT_EXPECT_EQ(test, (int)m->seq, next[m->tx]);
				next[m->tx] = m->seq + 1;
				fill(want, sizeof(want),
				     m->node * 100 + m->tx * 10 + j + m->seq);
				KUNIT_EXPECT_EQ(test, memcmp(m->fill, want,
							     sizeof(want)), 0);
				if (m->tagged) {
					tagged++;
					KUNIT_EXPECT_EQ(test, e.flags,
							(u64)(KFI_TAGGED |
							      KFI_RECV));
					KUNIT_EXPECT_EQ(test, e.tag,
							0x100ULL + m->tx);
				} else {
					KUNIT_EXPECT_EQ(test, e.flags,
							(u64)(KFI_MSG |
							      KFI_RECV));
				}
			}
			KUNIT_EXPECT_EQ(test, tagged, SEP_CTX);
			for (c = 0; c < SEP_CTX; c++)
				KUNIT_EXPECT_EQ(test, next[c], SEP_MSGS);
			/* nothing more, and nothing on another context */
			KUNIT_EXPECT_EQ(test, kfi_cq_read(n->rxcq[j], &e, 1),
					(ssize_t)-EAGAIN);
		}
	}
	sep_teardown(test, f);
}

/*
 * A receive context with a multi-receive buffer (its own
 * KFI_OPT_MIN_MULTI_RECV): two of the peer's transmit contexts fill it,
 * packed, the second entry releasing it; a counter bound to that receive
 * context triggers a send queued on a transmit context of the same node;
 * a transmit context's counter counts its sends; RMA from a transmit
 * context to a region of the peer.
 */
static void sep_multi_recv_trigger_cntr(struct kunit *test)
{
	struct sep_fixture *f = sep_setup(test, KFI_MULTI_RECV | KFI_TRIGGER |
					  KFI_RMA);
	struct sep_node *a = &f->node[0], *b = &f->node[1];
	struct kfi_triggered_context tctx = {};
	struct kfi_cq_tagged_entry e;
	struct kfid_cntr *rxc, *txc;
	struct kfid_mr *mr;
	u8 *mbuf = kunit_kzalloc(test, 256, GFP_KERNEL), want[100];
	u8 (*src100)[100] = kunit_kzalloc(test, 2 * 100, GFP_KERNEL);
	char back[8] = "", *mem;
	struct kvec iov = { mbuf, 256 };
	struct kfi_msg m = { .type = KFI_KVEC, .msg_iov = &iov,
			     .iov_count = 1, .context = mbuf,
			     .addr = KFI_ADDR_UNSPEC };
	struct kvec tv = { "TRIG", 5 };
	struct kfi_msg tm = { .type = KFI_KVEC, .msg_iov = &tv,
			      .iov_count = 1, .context = &tctx };
	size_t min = 64, got = sizeof(min);
	kfi_addr_t src;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, mbuf);
	KUNIT_ASSERT_NOT_NULL(test, src100);
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(f->d.dom, NULL, &rxc, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(f->d.dom, NULL, &txc, NULL), 0);
	/* enabled already: bound no more; fresh contexts take counters */
	KUNIT_EXPECT_EQ(test, kfi_ep_bind(a->rx[1], &rxc->fid, KFI_RECV),
			-KFI_EOPBADSTATE);
	sep_ctx_close(test, a, 1);
	sep_ctx_close(test, b, 2);
	KUNIT_ASSERT_EQ(test, kfi_rx_context(a->sep, 1, NULL, &a->rx[1], NULL),
			0);
	KUNIT_ASSERT_EQ(test, kfi_tx_context(a->sep, 1, NULL, &a->tx[1], NULL),
			0);
	KUNIT_ASSERT_EQ(test, kfi_rx_context(b->sep, 2, NULL, &b->rx[2], NULL),
			0);
	KUNIT_ASSERT_EQ(test, kfi_tx_context(b->sep, 2, NULL, &b->tx[2], NULL),
			0);
	{
		struct kfi_cq_attr cq_attr = { .size = 64,
					       .format = KFI_CQ_FORMAT_TAGGED };

		KUNIT_ASSERT_EQ(test, kfi_cq_open(f->d.dom, &cq_attr,
						  &a->rxcq[1], NULL, NULL), 0);
		KUNIT_ASSERT_EQ(test, kfi_cq_open(f->d.dom, &cq_attr,
						  &a->txcq[1], NULL, NULL), 0);
		KUNIT_ASSERT_EQ(test, kfi_cq_open(f->d.dom, &cq_attr,
						  &b->rxcq[2], NULL, NULL), 0);
		KUNIT_ASSERT_EQ(test, kfi_cq_open(f->d.dom, &cq_attr,
						  &b->txcq[2], NULL, NULL), 0);
	}
	/* kfilnd's style and the explicit one */
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(a->rx[1], &a->rxcq[1]->fid,
					  KFI_RECV), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(a->tx[1], &a->txcq[1]->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(b->rx[2], &b->rxcq[2]->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(b->tx[2], &b->txcq[2]->fid,
					  KFI_TRANSMIT), 0);
	/* a context binds only the counter events of its direction */
	KUNIT_EXPECT_EQ(test, kfi_ep_bind(a->rx[1], &rxc->fid, KFI_SEND),
			-KFI_EBADFLAGS);
	KUNIT_EXPECT_EQ(test, kfi_ep_bind(b->tx[2], &txc->fid, KFI_RECV),
			-KFI_EBADFLAGS);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(a->rx[1], &rxc->fid, KFI_RECV), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(b->tx[2], &txc->fid, KFI_SEND), 0);
	KUNIT_ASSERT_EQ(test, kfi_enable(a->rx[1]), 0);
	KUNIT_ASSERT_EQ(test, kfi_enable(a->tx[1]), 0);
	KUNIT_ASSERT_EQ(test, kfi_enable(b->rx[2]), 0);
	KUNIT_ASSERT_EQ(test, kfi_enable(b->tx[2]), 0);
	/* once enabled, again: nothing to do */
	KUNIT_EXPECT_EQ(test, kfi_enable(b->tx[2]), 0);

	/* multi-receive on a's receive context 1 */
	KUNIT_ASSERT_EQ(test, kfi_setopt(&a->rx[1]->fid, KFI_OPT_ENDPOINT,
					 KFI_OPT_MIN_MULTI_RECV, &min,
					 sizeof(min)), 0);
	min = 0;
	KUNIT_ASSERT_EQ(test, kfi_getopt(&a->rx[1]->fid, KFI_OPT_ENDPOINT,
					 KFI_OPT_MIN_MULTI_RECV, &min, &got),
			0);
	KUNIT_EXPECT_EQ(test, min, (size_t)64);
	KUNIT_ASSERT_EQ(test, kfi_recvmsg(a->rx[1], &m, KFI_MULTI_RECV), 0);
	/* the trigger: a's transmit context 0 sends to b's receive context 0
	 * once a's receive context 1 counted two messages */
	tctx.event_type = KFI_TRIGGER_THRESHOLD;
	tctx.trigger.threshold.cntr = rxc;
	tctx.trigger.threshold.threshold = 2;
	tm.addr = kfi_rx_addr(a->peer[1], 0, SEP_BITS);
	memset(back, 0, sizeof(back));
	KUNIT_ASSERT_EQ(test, kfi_recv(b->rx[0], back, sizeof(back), NULL,
				       KFI_ADDR_UNSPEC, back), 0);
	KUNIT_ASSERT_EQ(test, kfi_sendmsg(a->tx[0], &tm, KFI_TRIGGER), 0);
	for (i = 0; i < 2; i++) {
		struct kfid_ep *tx = b->tx[2 + i];
		struct kfid_cq *cq = b->txcq[2 + i];

		fill(src100[i], 100, 70 + i);
		KUNIT_ASSERT_EQ(test, kfi_send(tx, src100[i], 100, NULL,
					       kfi_rx_addr(b->peer[0], 1,
							   SEP_BITS), NULL),
				0);
		KUNIT_ASSERT_EQ(test, rdm_wait(cq, &e, &src), 1);
		KUNIT_ASSERT_EQ(test, rdm_wait(a->rxcq[1], &e, &src), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.buf, (void *)(mbuf + 100 * i));
		KUNIT_EXPECT_EQ(test, e.flags, (u64)(KFI_RECV | KFI_MSG |
						     (i ? KFI_MULTI_RECV : 0)));
		KUNIT_EXPECT_EQ(test, src, a->peer[1]);
		fill(want, 100, 70 + i);
		KUNIT_EXPECT_EQ(test, memcmp(mbuf + 100 * i, want, 100), 0);
		if (!i) {
			/* one counted: the trigger waits */
			msleep(30);
			KUNIT_EXPECT_EQ(test, kfi_cq_read(b->rxcq[0], &e, 1),
					(ssize_t)-EAGAIN);
		}
	}
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(rxc), 2ULL);
	/* only b's transmit context 2 counts */
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(txc), 1ULL);
	KUNIT_ASSERT_EQ(test, rdm_wait(b->rxcq[0], &e, &src), 1);
	KUNIT_EXPECT_STREQ(test, back, "TRIG");
	KUNIT_EXPECT_EQ(test, src, b->peer[0]);
	KUNIT_ASSERT_EQ(test, rdm_wait(a->txcq[0], &e, &src), 1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&tctx);

	/* RMA from a transmit context into b's region; the read back */
	mem = kunit_kzalloc(test, 16, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mem);
	KUNIT_ASSERT_EQ(test, kfi_mr_reg(f->d.dom, mem, 16,
					 KFI_REMOTE_READ | KFI_REMOTE_WRITE, 0,
					 12, 0, &mr, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_write(a->tx[3], "CTXW", 5, NULL,
					kfi_rx_addr(a->peer[1], 3, SEP_BITS), 0,
					kfi_mr_key(mr), NULL), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(a->txcq[3], &e, &src), 1);
	KUNIT_EXPECT_EQ(test, e.flags, (u64)(KFI_RMA | KFI_WRITE));
	KUNIT_ASSERT_EQ(test, kfi_read(a->tx[3], back, 5, NULL,
				       kfi_rx_addr(a->peer[1], 3, SEP_BITS), 0,
				       kfi_mr_key(mr), NULL), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(a->txcq[3], &e, &src), 1);
	KUNIT_EXPECT_STREQ(test, back, "CTXW");
	KUNIT_EXPECT_STREQ(test, mem, "CTXW");
	KUNIT_EXPECT_EQ(test, kfi_close(&mr->fid), 0);
	/* a bound counter waits for its context */
	KUNIT_EXPECT_EQ(test, kfi_close(&rxc->fid), -EBUSY);
	sep_close(test, a);
	sep_close(test, b);
	KUNIT_EXPECT_EQ(test, kfi_close(&rxc->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&txc->fid), 0);
	dom_teardown(test, &f->d);
}

/*
 * What is refused, and how: bad indexes and attributes, a context opened
 * twice, before its scalable endpoint is enabled, transfers of the other
 * direction or on the scalable endpoint itself, bindings a context does
 * not take, closing the scalable endpoint (and its AV) before its
 * contexts; a send to a receive context the peer does not have fails
 * with an error entry.
 */
static void sep_bad_input(struct kunit *test)
{
	struct sep_fixture *f = sep_setup(test, 0);
	struct sep_node *a = &f->node[0], *x = &f->node[1];
	struct kfi_av_attr av_attr = { .type = KFI_AV_TABLE };
	struct kfi_tx_attr tx_attr = { .op_flags = KFI_MULTI_RECV };
	struct kfi_cq_err_entry err = {};
	struct kfi_cq_tagged_entry e;
	struct kfi_info *info;
	struct kfid_ep *ep, *sep;
	struct kfid_av *av;
	struct kfid_cntr *cntr;
	char buf[8];
	size_t len = sizeof(buf);
	kfi_addr_t src;

	KUNIT_EXPECT_EQ(test, kfi_tx_context(a->sep, SEP_CTX, NULL, &ep, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_rx_context(a->sep, -1, NULL, &ep, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_tx_context(a->sep, 0, NULL, &ep, NULL),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, kfi_tx_context(x->sep, 0, &tx_attr, &ep, NULL),
			-KFI_EBADFLAGS);
	/* the wrong direction: no queue for it */
	KUNIT_EXPECT_EQ(test, kfi_recv(a->tx[0], buf, sizeof(buf), NULL,
				       KFI_ADDR_UNSPEC, NULL),
			(ssize_t)-KFI_ENOSYS);
	KUNIT_EXPECT_EQ(test, kfi_send(a->rx[0], "x", 1, NULL, a->peer[1],
				       NULL), (ssize_t)-KFI_ENOSYS);
	/* no transfers on the scalable endpoint itself */
	KUNIT_EXPECT_EQ(test, kfi_send(a->sep, "x", 1, NULL, a->peer[1], NULL),
			(ssize_t)-KFI_ENOSYS);
	KUNIT_EXPECT_EQ(test, kfi_trecv(a->sep, buf, 1, NULL, 0, 0, 0, NULL),
			(ssize_t)-KFI_ENOSYS);
	/* bound contexts and scalable endpoints refuse more */
	KUNIT_ASSERT_EQ(test, kfi_av_open(f->d.dom, &av_attr, &av, NULL), 0);
	KUNIT_EXPECT_EQ(test, kfi_scalable_ep_bind(a->sep, &av->fid, 0),
			-KFI_EOPBADSTATE);
	KUNIT_EXPECT_EQ(test, kfi_ep_bind(a->tx[1], &av->fid, 0),
			-KFI_EOPBADSTATE);
	/* the AV and the scalable endpoint wait for their users */
	KUNIT_EXPECT_EQ(test, kfi_close(&a->av->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, kfi_close(&a->sep->fid), -EBUSY);

	/* a fresh one: the order of setup is checked */
	info = kfi_dupinfo(f->d.list);
	KUNIT_ASSERT_NOT_NULL(test, info);
	info->ep_attr->type = KFI_EP_MSG;
	KUNIT_EXPECT_EQ(test, kfi_scalable_ep(f->d.dom, info, &sep, NULL),
			-EINVAL);
	info->ep_attr->type = KFI_EP_RDM;
	info->ep_attr->tx_ctx_cnt = 257;
	KUNIT_EXPECT_EQ(test, kfi_scalable_ep(f->d.dom, info, &sep, NULL),
			-EINVAL);
	info->ep_attr->tx_ctx_cnt = 2;
	info->ep_attr->rx_ctx_cnt = 0;	/* one */
	KUNIT_ASSERT_EQ(test, kfi_scalable_ep(f->d.dom, info, &sep, NULL), 0);
	kfi_freeinfo(info);
	len = sizeof(buf);
	KUNIT_EXPECT_EQ(test, kfi_getname(&sep->fid, buf, &len),
			-KFI_EOPBADSTATE);
	KUNIT_EXPECT_EQ(test, kfi_enable(sep), -KFI_ENOAV);
	KUNIT_EXPECT_EQ(test, kfi_scalable_ep_bind(sep, &av->fid, 1), -EINVAL);
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(f->d.dom, NULL, &cntr, NULL), 0);
	KUNIT_EXPECT_EQ(test, kfi_scalable_ep_bind(sep, &cntr->fid, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_scalable_ep_bind(sep, &av->fid, 0), 0);
	KUNIT_EXPECT_EQ(test, kfi_scalable_ep_bind(sep, &av->fid, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_rx_context(sep, 1, NULL, &ep, NULL), -EINVAL);
	KUNIT_ASSERT_EQ(test, kfi_tx_context(sep, 1, NULL, &ep, NULL), 0);
	/* a context enables after its scalable endpoint */
	KUNIT_EXPECT_EQ(test, kfi_enable(ep), -KFI_EOPBADSTATE);
	KUNIT_EXPECT_EQ(test, kfi_ep_bind(ep, &x->rxcq[0]->fid, KFI_RECV),
			-KFI_EBADFLAGS);
	KUNIT_EXPECT_EQ(test, kfi_ep_bind(ep, &x->rxcq[0]->fid,
					  KFI_TRANSMIT | KFI_RECV),
			-KFI_EBADFLAGS);
	KUNIT_EXPECT_EQ(test, kfi_ep_bind(ep, &cntr->fid, KFI_REMOTE_WRITE),
			-KFI_EBADFLAGS);
	KUNIT_EXPECT_EQ(test, kfi_close(&sep->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, kfi_close(&ep->fid), 0);
	/* unused index reopened, then closed with its endpoint never enabled */
	KUNIT_ASSERT_EQ(test, kfi_tx_context(sep, 1, NULL, &ep, NULL), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&ep->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&sep->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&cntr->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&av->fid), 0);

	/* the peer has receive contexts 0..3: index 9 is refused */
	KUNIT_ASSERT_EQ(test, kfi_send(a->tx[0], "x", 1, NULL,
				       kfi_rx_addr(a->peer[1], 9, SEP_BITS),
				       NULL), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(a->txcq[0], &e, &src),
			(ssize_t)-KFI_EAVAIL);
	KUNIT_ASSERT_EQ(test, kfi_cq_readerr(a->txcq[0], &err, 0), 1);
	KUNIT_EXPECT_EQ(test, err.err, ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, err.flags, (u64)(KFI_MSG | KFI_SEND));
	sep_teardown(test, f);
}

/*
 * A plain RDM endpoint and a scalable one talk both ways (the plain one
 * to receive context 0 by the plain address and to context 2 by
 * kfi_rx_addr; a transmit context to the plain one); then the scalable
 * endpoint goes away mid-stream (error entries, no hang) and comes back
 * at the same address, reached again by the next send.
 */
static void sep_plain_peer_and_restart(struct kunit *test)
{
	struct sep_fixture *f = sep_setup(test, 0);
	struct rdm_fixture *r = rdm_fix(test);
	struct sep_node *s = &f->node[1];
	struct rdm_node *p;
	struct kfi_cq_tagged_entry e;
	struct kfi_cq_err_entry err;
	kfi_addr_t sh, ph, src;
	char in[3][16];
	int i, failed = 0;
	struct sockaddr_storage at;

	/* the plain endpoint on the same domain */
	r->d = f->d;
	r->n = 1;
	rdm_av_bits = SEP_BITS;
	rdm_open(test, r, 0, 0, NULL);
	rdm_av_bits = 0;
	p = &r->node[0];
	KUNIT_ASSERT_EQ(test, kfi_av_insert(p->av, &s->addr, 1, &sh, 0, NULL),
			1);
	KUNIT_ASSERT_EQ(test, kfi_av_insert(s->av, &p->addr, 1, &ph, 0, NULL),
			1);
	memset(in, 0, sizeof(in));
	KUNIT_ASSERT_EQ(test, kfi_recv(s->rx[0], in[0], 16, NULL,
				       KFI_ADDR_UNSPEC, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_recv(s->rx[2], in[1], 16, NULL,
				       KFI_ADDR_UNSPEC, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_recv(p->ep, in[2], 16, NULL,
				       KFI_ADDR_UNSPEC, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_send(p->ep, "to rx0", 7, NULL, sh, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_send(p->ep, "to rx2", 7, NULL,
				       kfi_rx_addr(sh, 2, SEP_BITS), NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_send(s->tx[1], "to plain", 9, NULL, ph,
				       NULL), 0);
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, rdm_wait(p->tx, &e, &src), 1);
	KUNIT_ASSERT_EQ(test, rdm_wait(s->txcq[1], &e, &src), 1);
	KUNIT_ASSERT_EQ(test, rdm_wait(s->rxcq[0], &e, &src), 1);
	KUNIT_EXPECT_EQ(test, src, ph);
	KUNIT_ASSERT_EQ(test, rdm_wait(s->rxcq[2], &e, &src), 1);
	KUNIT_EXPECT_EQ(test, src, ph);
	KUNIT_ASSERT_EQ(test, rdm_wait(p->rx, &e, &src), 1);
	KUNIT_EXPECT_EQ(test, src, sh);
	KUNIT_EXPECT_STREQ(test, in[0], "to rx0");
	KUNIT_EXPECT_STREQ(test, in[1], "to rx2");
	KUNIT_EXPECT_STREQ(test, in[2], "to plain");

	/* the scalable endpoint goes */
	at = s->addr;
	sep_close(test, s);
	for (i = 0; i < 50 && !failed; i++) {
		ssize_t n;

		KUNIT_ASSERT_EQ(test, kfi_send(p->ep, "lost", 5, NULL,
					       kfi_rx_addr(sh, 2, SEP_BITS),
					       NULL), 0);
		n = rdm_wait(p->tx, &e, &src);
		if (n == -KFI_EAVAIL) {
			KUNIT_ASSERT_EQ(test, kfi_cq_readerr(p->tx, &err, 0),
					1);
			KUNIT_EXPECT_NE(test, err.err, 0);
			failed = 1;
		} else {
			KUNIT_ASSERT_EQ(test, n, 1);
			msleep(20);
		}
	}
	KUNIT_EXPECT_TRUE(test, failed);
	/* back at the same address: reached again */
	{
		struct kfi_info *info = kfi_dupinfo(f->d.list);
		size_t l = at.ss_family == AF_INET6 ?
			   sizeof(struct sockaddr_in6) :
			   sizeof(struct sockaddr_in);

		KUNIT_ASSERT_NOT_NULL(test, info);
		kfree(info->src_addr);
		info->src_addr = kmemdup(&at, l, GFP_KERNEL);
		info->src_addrlen = l;
		kfi_freeinfo(f->d.list);
		f->d.list = info;
	}
	memset(s, 0, sizeof(*s));
	sep_open(test, f, 1, 0);
	memset(in, 0, sizeof(in));
	KUNIT_ASSERT_EQ(test, kfi_recv(s->rx[2], in[1], 16, NULL,
				       KFI_ADDR_UNSPEC, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_send(p->ep, "again", 6, NULL,
				       kfi_rx_addr(sh, 2, SEP_BITS), NULL), 0);
	KUNIT_ASSERT_EQ(test, rdm_wait(p->tx, &e, &src), 1);
	KUNIT_ASSERT_EQ(test, rdm_wait(s->rxcq[2], &e, &src), 1);
	KUNIT_EXPECT_STREQ(test, in[1], "again");
	rdm_close(test, p);
	sep_teardown(test, f);
}

/* Tags of the tagged RMA test: kfilnd's shape, session << 16 | key. */
#define TRMA_TAG(k)	((0x5eedULL << 16) | (k))
#define TRMA_PAGES	3

/* One entry of @cq: 1, or the error entry's err (negative). */
static ssize_t trma_entry(struct kunit *test, struct kfid_cq *cq,
			  struct kfi_cq_tagged_entry *e,
			  struct kfi_cq_err_entry *err, kfi_addr_t *src)
{
	ssize_t r = rdm_wait(cq, e, src);

	if (r == -KFI_EAVAIL) {
		memset(err, 0, sizeof(*err));
		KUNIT_ASSERT_EQ(test, kfi_cq_readerr(cq, err, 0), 1);
		return -err->err;
	}
	return r;
}

/*
 * Tagged RMA, the way kfilnd moves bulk data: node a posts a tagged
 * receive (directed to b, exact tag) and b reads it (kfi_readmsg with
 * KFI_TAGGED, the tag as key) or writes into it (kfi_writemsg), from a
 * transmit context to the receive context named by kfi_rx_addr; both
 * sides complete with kfilnd's flags. Targets as bio_vec pages and as a
 * scatterlist; an offset into the receive; a key no receive has
 * (EREMOTEIO at the initiator, nothing at the target); an RMA longer than
 * the receive (EMSGSIZE both sides); a receive directed elsewhere is not
 * matched, then cancelled; a zero-length tsenddata consumes a tagged
 * receive with its data.
 */
static void sep_tagged_rma(struct kunit *test)
{
	struct sep_fixture *f = sep_setup(test, KFI_TAGGED_RMA |
					  KFI_DIRECTED_RECV);
	struct sep_node *a = &f->node[0], *b = &f->node[1];
	const size_t len = TRMA_PAGES * PAGE_SIZE - 100;
	struct page *pg[TRMA_PAGES] = {};
	struct bio_vec bv[TRMA_PAGES];
	struct scatterlist sg[TRMA_PAGES];
	struct kfi_cq_tagged_entry e;
	struct kfi_cq_err_entry err;
	struct kfi_rma_iov riov = { .addr = 0, .len = len };
	u8 *buf = kunit_kzalloc(test, len, GFP_KERNEL);
	u8 *want = kunit_kzalloc(test, len, GFP_KERNEL);
	struct kvec kv = { buf, len };
	struct kfi_msg_tagged tm = { .iov_count = TRMA_PAGES };
	struct kfi_msg_rma rm = { .type = KFI_KVEC, .msg_iov = &kv,
				  .iov_count = 1, .rma_iov = &riov,
				  .rma_iov_count = 1 };
	kfi_addr_t to_rx1 = kfi_rx_addr(b->peer[0], 1, SEP_BITS);
	kfi_addr_t to_rx2 = kfi_rx_addr(b->peer[0], 2, SEP_BITS);
	kfi_addr_t src;
	char small[100], tiny[8];
	int i, k;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, want);
	for (i = 0; i < TRMA_PAGES; i++) {
		pg[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, pg[i]);
	}
	/* the last piece is short: the receive is len bytes */
	for (i = 0; i < TRMA_PAGES; i++)
		bvec_set_page(&bv[i], pg[i], i == TRMA_PAGES - 1 ?
			      PAGE_SIZE - 100 : PAGE_SIZE, 0);
	sg_init_table(sg, TRMA_PAGES);
	for (i = 0; i < TRMA_PAGES; i++)
		sg_set_page(&sg[i], pg[i], bv[i].bv_len, 0);

	/* 1: a's pages (bio_vec) are read by b */
	for (i = 0; i < TRMA_PAGES; i++)
		fill(page_address(pg[i]), bv[i].bv_len, 30 + i);
	tm.type = KFI_BVEC;
	tm.msg_biov = bv;
	tm.addr = a->peer[1];
	tm.tag = TRMA_TAG(1);
	tm.context = &tm;
	KUNIT_ASSERT_EQ(test, kfi_trecvmsg(a->rx[1], &tm, KFI_COMPLETION), 0);
	riov.key = TRMA_TAG(1);
	rm.addr = to_rx1;
	rm.context = &rm;
	KUNIT_ASSERT_EQ(test, kfi_readmsg(b->tx[2], &rm,
					  KFI_TAGGED | KFI_COMPLETION), 0);
	KUNIT_ASSERT_EQ(test, trma_entry(test, b->txcq[2], &e, &err, &src), 1);
	KUNIT_EXPECT_EQ(test, e.flags, (u64)(KFI_TAGGED | KFI_RMA | KFI_READ |
					     KFI_SEND));
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&rm);
	KUNIT_ASSERT_EQ(test, trma_entry(test, a->rxcq[1], &e, &err, &src), 1);
	KUNIT_EXPECT_EQ(test, e.flags, (u64)(KFI_TAGGED | KFI_RMA | KFI_READ |
					     KFI_RECV));
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)&tm);
	KUNIT_EXPECT_EQ(test, e.len, len);
	KUNIT_EXPECT_EQ(test, e.tag, TRMA_TAG(1));
	KUNIT_EXPECT_EQ(test, src, a->peer[1]);
	for (i = 0; i < TRMA_PAGES; i++) {
		fill(want, bv[i].bv_len, 30 + i);
		KUNIT_EXPECT_EQ(test, memcmp(buf + i * PAGE_SIZE, want,
					     bv[i].bv_len), 0);
	}

	/* 2: b writes into a's pages (scatterlist), at offset 0 */
	for (i = 0; i < TRMA_PAGES; i++)
		memset(page_address(pg[i]), 0, PAGE_SIZE);
	fill(buf, len, 77);
	tm.type = KFI_SGL;
	tm.msg_sgl = sg;
	tm.tag = TRMA_TAG(2);
	KUNIT_ASSERT_EQ(test, kfi_trecvmsg(a->rx[2], &tm, KFI_COMPLETION), 0);
	riov.key = TRMA_TAG(2);
	rm.addr = to_rx2;
	KUNIT_ASSERT_EQ(test, kfi_writemsg(b->tx[0], &rm,
					   KFI_TAGGED | KFI_COMPLETION), 0);
	KUNIT_ASSERT_EQ(test, trma_entry(test, b->txcq[0], &e, &err, &src), 1);
	KUNIT_EXPECT_EQ(test, e.flags, (u64)(KFI_TAGGED | KFI_RMA | KFI_WRITE |
					     KFI_SEND));
	KUNIT_ASSERT_EQ(test, trma_entry(test, a->rxcq[2], &e, &err, &src), 1);
	KUNIT_EXPECT_EQ(test, e.flags, (u64)(KFI_TAGGED | KFI_RMA | KFI_WRITE |
					     KFI_RECV));
	KUNIT_EXPECT_EQ(test, e.len, len);
	KUNIT_EXPECT_EQ(test, e.tag, TRMA_TAG(2));
	for (i = 0, k = 0; i < TRMA_PAGES; k += bv[i].bv_len, i++)
		KUNIT_EXPECT_EQ(test, memcmp(page_address(pg[i]), buf + k,
					     bv[i].bv_len), 0);

	/* 3: at an offset (the region's address), a shorter write */
	memset(small, 0, sizeof(small));
	kv.iov_base = "OFFSET";
	kv.iov_len = 7;
	riov.addr = 50;
	riov.len = 7;
	riov.key = TRMA_TAG(3);
	KUNIT_ASSERT_EQ(test, kfi_trecv(a->rx[1], small, sizeof(small), NULL,
					a->peer[1], TRMA_TAG(3), 0, small), 0);
	rm.addr = to_rx1;
	KUNIT_ASSERT_EQ(test, kfi_writemsg(b->tx[1], &rm, KFI_TAGGED), 0);
	KUNIT_ASSERT_EQ(test, trma_entry(test, b->txcq[1], &e, &err, &src), 1);
	KUNIT_ASSERT_EQ(test, trma_entry(test, a->rxcq[1], &e, &err, &src), 1);
	KUNIT_EXPECT_EQ(test, e.len, (size_t)7);
	KUNIT_EXPECT_STREQ(test, small + 50, "OFFSET");
	KUNIT_EXPECT_EQ(test, small[0], 0);

	/* 4: a key no receive has: the initiator fails, the target sees
	 * nothing; the connection goes on */
	riov.addr = 0;
	riov.key = TRMA_TAG(4);
	kv.iov_base = tiny;
	kv.iov_len = sizeof(tiny);
	riov.len = sizeof(tiny);
	KUNIT_ASSERT_EQ(test, kfi_readmsg(b->tx[1], &rm, KFI_TAGGED), 0);
	KUNIT_EXPECT_EQ(test, trma_entry(test, b->txcq[1], &e, &err, &src),
			(ssize_t)-EREMOTEIO);
	KUNIT_EXPECT_EQ(test, err.flags, (u64)(KFI_TAGGED | KFI_RMA |
					       KFI_READ | KFI_SEND));
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)&rm);
	KUNIT_ASSERT_EQ(test, kfi_writemsg(b->tx[1], &rm, KFI_TAGGED), 0);
	KUNIT_EXPECT_EQ(test, trma_entry(test, b->txcq[1], &e, &err, &src),
			(ssize_t)-EREMOTEIO);
	KUNIT_EXPECT_EQ(test, err.flags, (u64)(KFI_TAGGED | KFI_RMA |
					       KFI_WRITE | KFI_SEND));
	KUNIT_EXPECT_EQ(test, kfi_cq_read(a->rxcq[1], &e, 1), (ssize_t)-EAGAIN);

	/* 5: longer than the receive: EMSGSIZE both sides, what fits lands */
	memset(small, 0, sizeof(small));
	fill(buf, 200, 9);
	kv.iov_base = buf;
	kv.iov_len = 200;
	riov.len = 200;
	riov.key = TRMA_TAG(5);
	KUNIT_ASSERT_EQ(test, kfi_trecv(a->rx[1], small, sizeof(small), NULL,
					a->peer[1], TRMA_TAG(5), 0, small), 0);
	KUNIT_ASSERT_EQ(test, kfi_writemsg(b->tx[1], &rm, KFI_TAGGED), 0);
	KUNIT_EXPECT_EQ(test, trma_entry(test, b->txcq[1], &e, &err, &src),
			(ssize_t)-EMSGSIZE);
	KUNIT_EXPECT_EQ(test, trma_entry(test, a->rxcq[1], &e, &err, &src),
			(ssize_t)-EMSGSIZE);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)small);
	KUNIT_EXPECT_EQ(test, err.olen, (size_t)100);
	KUNIT_EXPECT_EQ(test, memcmp(small, buf, sizeof(small)), 0);
	/* a read longer than the receive */
	KUNIT_ASSERT_EQ(test, kfi_trecv(a->rx[1], small, sizeof(small), NULL,
					a->peer[1], TRMA_TAG(5), 0, small), 0);
	KUNIT_ASSERT_EQ(test, kfi_readmsg(b->tx[1], &rm, KFI_TAGGED), 0);
	KUNIT_EXPECT_EQ(test, trma_entry(test, b->txcq[1], &e, &err, &src),
			(ssize_t)-EMSGSIZE);
	KUNIT_EXPECT_EQ(test, trma_entry(test, a->rxcq[1], &e, &err, &src),
			(ssize_t)-EMSGSIZE);

	/* 6: a receive directed to another peer (a itself) is not b's */
	KUNIT_ASSERT_EQ(test, kfi_trecv(a->rx[1], small, sizeof(small), NULL,
					a->peer[0], TRMA_TAG(6), 0, small), 0);
	riov.key = TRMA_TAG(6);
	riov.len = 10;
	kv.iov_len = 10;
	KUNIT_ASSERT_EQ(test, kfi_writemsg(b->tx[1], &rm, KFI_TAGGED), 0);
	KUNIT_EXPECT_EQ(test, trma_entry(test, b->txcq[1], &e, &err, &src),
			(ssize_t)-EREMOTEIO);
	KUNIT_EXPECT_EQ(test, kfi_cancel(&a->rx[1]->fid, small), 0);
	KUNIT_EXPECT_EQ(test, trma_entry(test, a->rxcq[1], &e, &err, &src),
			(ssize_t)-ECANCELED);
	KUNIT_EXPECT_EQ(test, err.flags, (u64)(KFI_TAGGED | KFI_RECV));

	/* 7: a zero-length tsenddata consumes a tagged receive, with data */
	KUNIT_ASSERT_EQ(test, kfi_trecv(a->rx[1], small, sizeof(small), NULL,
					a->peer[1], TRMA_TAG(7), 0, small), 0);
	KUNIT_ASSERT_EQ(test, kfi_tsenddata(b->tx[3], NULL, 0, NULL,
					    0xfeedULL, to_rx1, TRMA_TAG(7),
					    NULL), 0);
	KUNIT_ASSERT_EQ(test, trma_entry(test, b->txcq[3], &e, &err, &src), 1);
	KUNIT_EXPECT_EQ(test, e.flags, (u64)(KFI_TAGGED | KFI_SEND));
	KUNIT_ASSERT_EQ(test, trma_entry(test, a->rxcq[1], &e, &err, &src), 1);
	KUNIT_EXPECT_EQ(test, e.flags, (u64)(KFI_TAGGED | KFI_RECV |
					     KFI_REMOTE_CQ_DATA));
	KUNIT_EXPECT_EQ(test, e.data, 0xfeedULL);
	KUNIT_EXPECT_EQ(test, e.len, (size_t)0);

	/* refused at post time: two regions, a local buffer longer than the
	 * region */
	{
		struct kfi_rma_iov two[2] = { riov, riov };

		rm.rma_iov = two;
		rm.rma_iov_count = 2;
		KUNIT_EXPECT_EQ(test, kfi_writemsg(b->tx[1], &rm, KFI_TAGGED),
				(ssize_t)-EINVAL);
		rm.rma_iov = &riov;
		rm.rma_iov_count = 1;
		riov.len = 5;
		KUNIT_EXPECT_EQ(test, kfi_readmsg(b->tx[1], &rm, KFI_TAGGED),
				(ssize_t)-EINVAL);
	}
	sep_teardown(test, f);
	for (i = 0; i < TRMA_PAGES; i++)
		__free_page(pg[i]);
}

#define TRMA_BIG	(300 << 10)	/* beyond one packet of any provider */
#define TRMA_OPS	(2 * SEP_CTX)

/*
 * Tagged RMA of bulk size: TRMA_OPS receives of TRMA_BIG bytes posted on
 * one receive context of a, then read (odd) and written (even) all at
 * once by b from its four transmit contexts, the writes at an offset
 * into their receives (the region's address); every byte compared, each
 * receive completed once with its length and tag.
 */
static void sep_tagged_rma_bulk(struct kunit *test)
{
	struct sep_fixture *f = sep_setup(test, KFI_TAGGED_RMA |
					  KFI_DIRECTED_RECV);
	struct sep_node *a = &f->node[0], *b = &f->node[1];
	const size_t off = 1000, wlen = TRMA_BIG - 2 * off;
	u8 *rbuf = fix_vzalloc(test, TRMA_OPS * TRMA_BIG);
	u8 *lbuf = fix_vzalloc(test, TRMA_OPS * TRMA_BIG);
	u8 *want = fix_vzalloc(test, TRMA_BIG);
	struct trma_bulk {
		struct kfi_rma_iov riov[TRMA_OPS];
		struct kvec kv[TRMA_OPS];
		struct kfi_msg_rma rm[TRMA_OPS];
	} *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct kfi_rma_iov *riov;
	struct kvec *kv;
	struct kfi_msg_rma *rm;
	struct kfi_cq_tagged_entry e;
	struct kfi_cq_err_entry err;
	kfi_addr_t to_rx0 = kfi_rx_addr(b->peer[0], 0, SEP_BITS), src;
	bool seen[TRMA_OPS] = {};
	int i, n;

	KUNIT_ASSERT_NOT_NULL(test, t);
	riov = t->riov;
	kv = t->kv;
	rm = t->rm;
	for (i = 0; i < TRMA_OPS; i++) {
		u8 *r = rbuf + i * TRMA_BIG, *l = lbuf + i * TRMA_BIG;
		bool rd = i & 1;

		/* a read takes the receive's bytes; a write puts b's */
		fill(rd ? r : l, rd ? TRMA_BIG : wlen, 100 + i);
		KUNIT_ASSERT_EQ(test, kfi_trecv(a->rx[0], r, TRMA_BIG, NULL,
						a->peer[1], TRMA_TAG(100 + i),
						0, r), 0);
		kv[i] = (struct kvec){ l, rd ? TRMA_BIG : wlen };
		riov[i] = (struct kfi_rma_iov){ .addr = rd ? 0 : off,
						.len = kv[i].iov_len,
						.key = TRMA_TAG(100 + i) };
		rm[i] = (struct kfi_msg_rma){ .type = KFI_KVEC,
					      .msg_iov = &kv[i],
					      .iov_count = 1,
					      .rma_iov = &riov[i],
					      .rma_iov_count = 1,
					      .addr = to_rx0,
					      .context = &rm[i] };
	}
	for (i = 0; i < TRMA_OPS; i++)
		KUNIT_ASSERT_EQ(test, (i & 1 ?
			kfi_readmsg(b->tx[i % SEP_CTX], &rm[i], KFI_TAGGED) :
			kfi_writemsg(b->tx[i % SEP_CTX], &rm[i], KFI_TAGGED)),
			(ssize_t)0);
	/* the initiators: each operation once, with kcxi's flags */
	for (n = 0; n < TRMA_OPS; n++) {
		int c = n % SEP_CTX;

		KUNIT_ASSERT_EQ(test, trma_entry(test, b->txcq[c], &e, &err,
						 &src), 1);
		i = (struct kfi_msg_rma *)e.op_context - rm;
		KUNIT_ASSERT_TRUE(test, i >= 0 && i < TRMA_OPS &&
				  i % SEP_CTX == c);
		KUNIT_EXPECT_EQ(test, e.flags, (u64)(KFI_TAGGED | KFI_RMA |
			(i & 1 ? KFI_READ : KFI_WRITE) | KFI_SEND));
	}
	/* the target: each receive once, its length the bytes moved */
	for (n = 0; n < TRMA_OPS; n++) {
		KUNIT_ASSERT_EQ(test, trma_entry(test, a->rxcq[0], &e, &err,
						 &src), 1);
		i = ((u8 *)e.op_context - rbuf) / TRMA_BIG;
		KUNIT_ASSERT_TRUE(test, i >= 0 && i < TRMA_OPS && !seen[i]);
		seen[i] = true;
		KUNIT_EXPECT_EQ(test, e.tag, TRMA_TAG(100 + i));
		KUNIT_EXPECT_EQ(test, e.len, (size_t)kv[i].iov_len);
		KUNIT_EXPECT_EQ(test, src, a->peer[1]);
		KUNIT_EXPECT_EQ(test, e.flags, (u64)(KFI_TAGGED | KFI_RMA |
			(i & 1 ? KFI_READ : KFI_WRITE) | KFI_RECV));
	}
	for (i = 0; i < TRMA_OPS; i++) {
		u8 *r = rbuf + i * TRMA_BIG, *l = lbuf + i * TRMA_BIG;

		fill(want, TRMA_BIG, 100 + i);
		if (i & 1) {
			KUNIT_EXPECT_EQ_MSG(test, memcmp(l, want, TRMA_BIG), 0,
					    "read %d", i);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, memcmp(r + off, want, wlen), 0,
				    "write %d", i);
		/* nothing before the offset or after the bytes written */
		KUNIT_EXPECT_NULL(test, memchr_inv(r, 0, off));
		KUNIT_EXPECT_NULL(test, memchr_inv(r + off + wlen, 0, off));
	}
	sep_teardown(test, f);
}

static struct kunit_case rdm_cases[] = {
	KUNIT_CASE(rdm_pair_send_recv),
	KUNIT_CASE(rdm_directed_and_unknown_sources),
	KUNIT_CASE(rdm_inserted_after_connect),
	KUNIT_CASE(rdm_bad_input),
	KUNIT_CASE(rdm_many_peers),
	KUNIT_CASE(rdm_peer_gone_then_back),
	KUNIT_CASE(rdm_close_while_connecting),
	KUNIT_CASE(rdm_rma_multi_recv_trigger),
	KUNIT_CASE(rdm_rma_regions),
	KUNIT_CASE(rdm_rendezvous),
	KUNIT_CASE(rdm_rendezvous_pipelined),
	KUNIT_CASE(rdm_eagain_replay),
	KUNIT_CASE(rdm_ipv6),
	KUNIT_CASE(rdm_hostile_peer),
	KUNIT_CASE(sep_contexts_all_to_all),
	KUNIT_CASE(sep_multi_recv_trigger_cntr),
	KUNIT_CASE(sep_bad_input),
	KUNIT_CASE(sep_plain_peer_and_restart),
	KUNIT_CASE(sep_tagged_rma),
	KUNIT_CASE(sep_tagged_rma_bulk),
	{}
};

/* ------------------------------------------------- suites per provider */

/*
 * .init of every suite: @p is the provider of the case's fixtures; the
 * case skips when @p has no entry for its node (not registered, or no
 * device there).
 */
static char *verbs_node;
module_param(verbs_node, charp, 0444);
MODULE_PARM_DESC(verbs_node, "Address of the RDMA device the verbs suites use");
static char *siw_node;
module_param(siw_node, charp, 0444);
MODULE_PARM_DESC(siw_node, "Address of the iWARP device kfi_rdm_verbs_siw uses");

static int prov_use(struct kunit *test, const struct kfi_kunit_prov *p)
{
	struct kfi_info *h, *list = NULL;
	int ret;

	if (p == &kfi_provs[KFI_PROV_verbs] ||
	    p == &kfi_provs[KFI_PROV_verbs_soft]) {
		if (!verbs_node)
			kunit_skip(test, "verbs: no device named (verbs_node)");
		kfi_provs[KFI_PROV_verbs].node = verbs_node;
		kfi_provs[KFI_PROV_verbs_soft].node = verbs_node;
	}
	if (p == &kfi_provs[KFI_PROV_verbs_siw]) {
		if (!siw_node)
			kunit_skip(test, "verbs: no iWARP device named (siw_node)");
		kfi_provs[KFI_PROV_verbs_siw].node = siw_node;
	}
	cur_prov = p;
	h = prov_hints(test, p);
	ret = kfi_getinfo(V17, p->node, NULL, p->node ? KFI_SOURCE : 0, h,
			  &list);
	kfi_freeinfo(list);
	kfi_freeinfo(h);
	if (ret == -ENODATA)
		kunit_skip(test, "provider %s not registered (no entry for %s)",
			   p->name, p->node ?: "any node");
	KUNIT_ASSERT_EQ(test, ret, 0);
	return 0;
}

/*
 * The counter suite opens its endpoints from an entry found by asking for
 * every capability the provider has (as kfi_tcp_msg does, from walk_rows):
 * what it shows working is what a consumer asking for it gets.
 */
static int prov_use_all_caps(struct kunit *test,
			     const struct kfi_kunit_prov *p)
{
	prov_use(test, p);
	dom_hint_caps = p->caps;
	return 0;
}


static void prov_done(struct kunit *test)
{
	dom_hint_caps = 0;
}

/* Suite kfi_<set>_<p>: <set>_cases against provider @p, set up by @use. */
#define KFI_PROV_SUITE(set, p, use)					\
	static int set##_init_##p(struct kunit *test)			\
	{								\
		return use(test, &kfi_provs[KFI_PROV_##p]);		\
	}								\
	static struct kunit_suite set##_suite_##p = {			\
		.name = "kfi_" #set "_" #p,				\
		.init = set##_init_##p,					\
		.exit = prov_done,					\
		.test_cases = set##_cases,				\
	}

/* All the suites of provider @p, and the list of them. */
#define KFI_PROV_SUITES(p)						\
	KFI_PROV_SUITE(cq, p, prov_use);				\
	KFI_PROV_SUITE(eq, p, prov_use);				\
	KFI_PROV_SUITE(cntr, p, prov_use_all_caps);			\
	KFI_PROV_SUITE(trigger, p, prov_use);				\
	KFI_PROV_SUITE(msg, p, prov_use);				\
	KFI_PROV_SUITE(av, p, prov_use);				\
	KFI_PROV_SUITE(rdm, p, prov_use)
#define KFI_PROV_SUITE_LIST(p)						\
	&cq_suite_##p, &eq_suite_##p, &cntr_suite_##p, &trigger_suite_##p, \
	&msg_suite_##p, &av_suite_##p, &rdm_suite_##p

/*
 * Another provider: its KFI_PROV_<name> row of kfi_provs[]
 * (kfi_kunit_fix.h), KFI_PROV_SUITES(name) and its list here, and its
 * suites in tests/guest/expected.
 */
KFI_PROV_SUITES(tcp);
KFI_PROV_SUITES(verbs);
KFI_PROV_SUITES(verbs_soft);
/* RDM on iWARP (rxm's credits): the RDM suite on siw */
KFI_PROV_SUITE(rdm, verbs_siw, prov_use);

kunit_test_suites(KFI_PROV_SUITE_LIST(tcp), KFI_PROV_SUITE_LIST(verbs),
		  KFI_PROV_SUITE_LIST(verbs_soft), &rdm_suite_verbs_siw);

MODULE_DESCRIPTION("KUnit suites of the objects every kfabric provider offers");
MODULE_LICENSE("GPL");
