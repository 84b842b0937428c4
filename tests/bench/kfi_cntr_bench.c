// SPDX-License-Identifier: GPL-2.0
/*
 * kfi_cntr_bench.ko: the cost of a counter add with 0, 1 and 1000
 * triggered operations pending on the counter (make bench). Runs at load
 * and prints one line per case; the load fails with the error if a kfabric
 * call does.
 *
 *   kfi_cntr_bench: pending=N add_ns=X fire_add_ns=Y fire_all_us=Z
 *
 * add_ns: mean time of kfi_cntr_add(1) while N deferred CNTR_ADD works
 * wait on the counter at thresholds it never reaches (the engine's "is
 * anything due?" check); fire_add_ns: the add that makes all N due (it
 * queues the counter's work item, which pops and issues them), the median
 * of 101 rounds (5 with N = 1000); fire_all_us: from
 * that add until the N works have run (the target counter reached N),
 * the median likewise. A second line per case gives the rounds' ranges:
 *
 *   kfi_cntr_bench: pending=N rounds=R fire_add_min_ns=A fire_add_max_ns=B
 *                   fire_all_min_us=C fire_all_max_us=D
 *
 * Then the floor of any add that hands due operations to another context:
 * the median over 101 rounds of queue_work() of an empty work item on an
 * idle WQ_HIGHPRI workqueue (waking its worker), each round flushed:
 *
 *   kfi_cntr_bench: handoff queue_work_ns=X min_ns=A max_ns=B
 */
#include <linux/module.h>
#include <linux/ktime.h>
#include <linux/vmalloc.h>
#include <linux/sched.h>
#include <linux/sort.h>
#include <linux/workqueue.h>

#include <kfabric.h>
#include <kfi_domain.h>
#include <kfi_eq.h>
#include <kfi_errno.h>
#include <kfi_trigger.h>

#define V17 KFI_VERSION(1, 7)
#define ADDS 100000

struct bench {
	struct kfi_info *hints, *info;
	struct kfid_fabric *fab;
	struct kfid_domain *dom;
	struct kfid_cntr *t, *target;
	struct kfi_deferred_work *w;
	struct kfi_op_cntr *op;
};

static int bench_open(struct bench *b)
{
	int ret;

	b->hints = kfi_allocinfo();
	if (!b->hints)
		return -ENOMEM;
	b->hints->fabric_attr->prov_name = kstrdup("tcp", GFP_KERNEL);
	ret = kfi_getinfo(V17, "127.0.0.1", NULL, KFI_SOURCE, b->hints,
			  &b->info);
	if (ret)
		return ret;
	ret = kfi_fabric(b->info->fabric_attr, &b->fab, NULL);
	if (ret)
		return ret;
	ret = kfi_domain(b->fab, b->info, &b->dom, NULL);
	if (ret)
		return ret;
	ret = kfi_cntr_open(b->dom, NULL, &b->t, NULL);
	if (ret)
		return ret;
	return kfi_cntr_open(b->dom, NULL, &b->target, NULL);
}

static void bench_close(struct bench *b)
{
	if (b->target)
		kfi_close(&b->target->fid);
	if (b->t)
		kfi_close(&b->t->fid);
	if (b->dom)
		kfi_close(&b->dom->fid);
	if (b->fab)
		kfi_close(&b->fab->fid);
	kfi_freeinfo(b->info);
	kfi_freeinfo(b->hints);
}

/* Queues @n CNTR_ADD(1) works on b->target at @threshold of b->t. */
static int bench_queue(struct bench *b, int n, u64 threshold)
{
	int i, ret;

	for (i = 0; i < n; i++) {
		b->op[i] = (struct kfi_op_cntr){ .cntr = b->target, .value = 1 };
		b->w[i] = (struct kfi_deferred_work){
			.threshold = threshold, .triggering_cntr = b->t,
			.op_type = KFI_OP_CNTR_ADD, .op.cntr = &b->op[i] };
		while ((ret = kfi_control(&b->dom->fid, KFI_QUEUE_WORK,
					  &b->w[i])) == -EAGAIN)
			cond_resched();
		if (ret)
			return ret;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * One case: the mean add with @n works pending and none due, then @reps
 * rounds of "queue @n works due at the next add, time that add (and until
 * all have run)"; the firing add's median (and range) over the rounds:
 * one sample is mostly cache and scheduler noise under emulation.
 */
static int bench_case(struct bench *b, int n, int reps)
{
	static u64 fire[101], all[101];	/* module init runs once, alone */
	u64 base, t0, t1, t2, add_ns;
	int i, r, ret;

	/* n works far above the counter: adds only check the minimum */
	ret = bench_queue(b, n, U64_MAX);
	if (ret)
		return ret;
	t0 = ktime_get_ns();
	for (i = 0; i < ADDS; i++)
		kfi_cntr_add(b->t, 1);
	add_ns = (ktime_get_ns() - t0) / ADDS;
	ret = kfi_control(&b->dom->fid, KFI_FLUSH_WORK, NULL);
	if (ret)
		return ret;

	reps = min_t(int, reps, ARRAY_SIZE(fire));
	for (r = 0; r < reps; r++) {
		/* n works due at the next add */
		base = kfi_cntr_read(b->target);
		ret = bench_queue(b, n, kfi_cntr_read(b->t) + 1);
		if (ret)
			return ret;
		t0 = ktime_get_ns();
		kfi_cntr_add(b->t, 1);
		t1 = ktime_get_ns();
		ret = kfi_cntr_wait(b->target, base + n, 30000);
		t2 = ktime_get_ns();
		if (ret)
			return ret;
		fire[r] = t1 - t0;
		all[r] = t2 - t0;
		cond_resched();
	}
	sort(fire, reps, sizeof(u64), cmp_u64, NULL);
	sort(all, reps, sizeof(u64), cmp_u64, NULL);
	pr_info("kfi_cntr_bench: pending=%d add_ns=%llu fire_add_ns=%llu fire_all_us=%llu\n",
		n, add_ns, fire[reps / 2], all[reps / 2] / 1000);
	pr_info("kfi_cntr_bench: pending=%d rounds=%d fire_add_min_ns=%llu fire_add_max_ns=%llu fire_all_min_us=%llu fire_all_max_us=%llu\n",
		n, reps, fire[0], fire[reps - 1], all[0] / 1000,
		all[reps - 1] / 1000);
	return 0;
}

static void noop_work(struct work_struct *w)
{
}

/* The floor: handing a work item to an idle worker (see the top). */
static int bench_handoff(void)
{
	static u64 t[101];	/* module init runs once, alone */
	struct workqueue_struct *wq;
	struct work_struct w;
	u64 t0;
	int r;

	wq = alloc_workqueue("kfi_cntr_bench", WQ_HIGHPRI, 0);
	if (!wq)
		return -ENOMEM;
	INIT_WORK_ONSTACK(&w, noop_work);
	for (r = 0; r < ARRAY_SIZE(t); r++) {
		t0 = ktime_get_ns();
		queue_work(wq, &w);
		t[r] = ktime_get_ns() - t0;
		flush_work(&w);
		cond_resched();
	}
	destroy_work_on_stack(&w);
	destroy_workqueue(wq);
	sort(t, ARRAY_SIZE(t), sizeof(u64), cmp_u64, NULL);
	pr_info("kfi_cntr_bench: handoff queue_work_ns=%llu min_ns=%llu max_ns=%llu\n",
		t[ARRAY_SIZE(t) / 2], t[0], t[ARRAY_SIZE(t) - 1]);
	return 0;
}

static int __init kfi_cntr_bench_init(void)
{
	static const int cases[] = { 0, 1, 1000 }, reps[] = { 101, 101, 5 };
	struct bench b = {};
	int i, ret;

	b.w = vzalloc(1000 * sizeof(*b.w));
	b.op = vzalloc(1000 * sizeof(*b.op));
	ret = b.w && b.op ? bench_open(&b) : -ENOMEM;
	for (i = 0; !ret && i < ARRAY_SIZE(cases); i++)
		ret = bench_case(&b, cases[i], reps[i]);
	if (!ret)
		ret = bench_handoff();
	bench_close(&b);
	vfree(b.w);
	vfree(b.op);
	if (ret)
		pr_err("kfi_cntr_bench: failed: %d (%s)\n", ret,
		       kfi_strerror(-ret));
	return ret;
}

static void __exit kfi_cntr_bench_exit(void)
{
}

module_init(kfi_cntr_bench_init);
module_exit(kfi_cntr_bench_exit);
MODULE_DESCRIPTION("Cost of a kfabric counter add with triggered operations pending");
MODULE_LICENSE("GPL");
