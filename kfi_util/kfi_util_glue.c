// SPDX-License-Identifier: GPL-2.0
/*
 * The provider toolkit's C side: wrappers of kernel inlines and macros the
 * shared Rust code (kfi_util/) cannot call, and helpers on consumers'
 * buffer lists. Compiled into each provider module through a one-line
 * wrapper in the provider's directory (kfi_tcp/kfi_tcp_util.c), never
 * exported: every provider has its own copy, its own workqueue
 * (named after the module) and its own WARN prefix.
 */
#include <linux/random.h>
#include <linux/debugfs.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/dma-mapping.h>
#include <linux/platform_device.h>
#include <linux/bvec.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inetdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#include <linux/scatterlist.h>
#include <linux/uio.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/cpumask.h>
#include <linux/timer.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include <net/net_namespace.h>

#include <kfi_enosys.h>
#include <kfi_cxi_ext.h>
#include <kfi_cm.h>
#include "util_sys.h"
#include "util_iter.h"
#include "../kfi_trigger/trigger_sys.h"

static struct workqueue_struct *kfi_util_workqueue;
static struct workqueue_struct *kfi_util_cm_workqueue;

/**
 * kfi_util_wq_init() - Allocate the provider's workqueue.
 *
 * The provider's work items run there (kfi_tcp: connections and
 * listeners; counters, CQ handler hops). WQ_MEM_RECLAIM: storage consumers may need
 * their I/O to progress to free memory.
 *
 * Return: 0 or -ENOMEM.
 */
int kfi_util_wq_init(void)
{
	kfi_util_workqueue = alloc_workqueue(KBUILD_MODNAME,
					     WQ_MEM_RECLAIM | WQ_HIGHPRI, 0);
	if (!kfi_util_workqueue)
		return -ENOMEM;
	kfi_util_cm_workqueue = alloc_workqueue(KBUILD_MODNAME "_cm",
						WQ_MEM_RECLAIM, 0);
	if (!kfi_util_cm_workqueue) {
		destroy_workqueue(kfi_util_workqueue);
		return -ENOMEM;
	}
	return 0;
}

/**
 * kfi_util_cm_wq() - The provider's workqueue for work that waits for the
 *	work items of the other one (kfi_tcp: an RDM endpoint's connection
 *	map, which stops connections): flushing a work item of a workqueue
 *	from that same workqueue could deadlock it.
 */
struct workqueue_struct *kfi_util_cm_wq(void)
{
	return kfi_util_cm_workqueue;
}

/** kfi_util_wq() - The provider's workqueue (after _wq_init()). */
struct workqueue_struct *kfi_util_wq(void)
{
	return kfi_util_workqueue;
}

/** kfi_util_wq_exit() - Flush and free the provider's workqueue. */
void kfi_util_wq_exit(void)
{
	destroy_workqueue(kfi_util_cm_workqueue);
	destroy_workqueue(kfi_util_workqueue);
}


/*
 * memalloc_noio scope of the provider's work items: consumers on the
 * block-I/O reclaim path (storage clients) must not have their transfers
 * wait on allocations that recurse into I/O.
 */
unsigned int kfi_util_noio_save(void)
{
	return memalloc_noio_save();
}

void kfi_util_noio_restore(unsigned int flags)
{
	memalloc_noio_restore(flags);
}

/* kmalloc'd copies for kfi_info fields (kfi_freeinfo kfree()s them). */
char *kfi_util_strndup(const char *s, size_t len)
{
	return kstrndup(s, len, GFP_KERNEL);
}

void *kfi_util_memdup(const void *p, size_t len)
{
	return kmemdup(p, len, GFP_KERNEL);
}

struct module *kfi_util_this_module(void)
{
	return THIS_MODULE;
}

/**
 * kfi_util_segs() - Describe a consumer's buffer list as segments.
 * @type: Which kind of list @desc is.
 * @desc: Array of @count kvecs, bio_vecs, or a scatterlist of @count
 *	entries.
 * @count: Number of entries.
 * @out: Room for @count segments.
 *
 * Return: 0, or -EINVAL for an unknown type, a NULL list (with @count > 0),
 * a kvec with a NULL base or a page-less bio_vec/scatterlist entry.
 */
int kfi_util_segs(enum kfi_iov_type type, const void *desc, size_t count,
		  struct kfi_util_seg *out)
{
	const struct kvec *iov = desc;
	const struct bio_vec *biov = desc;
	struct scatterlist *sg;
	size_t i;

	if (!count)
		return 0;
	if (!desc)
		return -EINVAL;
	switch (type) {
	case KFI_KVEC:
		for (i = 0; i < count; i++) {
			if (!iov[i].iov_base)
				return -EINVAL;
			out[i] = (struct kfi_util_seg){ .base = iov[i].iov_base,
						       .len = iov[i].iov_len };
		}
		return 0;
	case KFI_BVEC:
		for (i = 0; i < count; i++) {
			if (!biov[i].bv_page)
				return -EINVAL;
			out[i] = (struct kfi_util_seg){
				.page = biov[i].bv_page,
				.offset = biov[i].bv_offset,
				.len = biov[i].bv_len };
		}
		return 0;
	case KFI_SGL:
		for_each_sg((struct scatterlist *)desc, sg, count, i) {
			if (!sg_page(sg))
				return -EINVAL;
			out[i] = (struct kfi_util_seg){ .page = sg_page(sg),
						       .offset = sg->offset,
						       .len = sg->length };
		}
		return 0;
	default:
		return -EINVAL;
	}
}

/**
 * kfi_util_segs_dup() - Describe a long buffer list in a new table.
 * @type: Which kind of list @desc is (enum kfi_iov_type, or KFI_UTIL_SEGS
 *	for an array of struct kfi_util_seg).
 * @desc: The list, @count entries.
 * @count: Number of entries (1 to KFI_UTIL_IOV_MAX).
 * @out: The table, which belongs to the operation until
 *	kfi_util_segs_free().
 *
 * For operations with more segments than a transfer description holds.
 *
 * Context: Any but hard interrupts (GFP_ATOMIC: posts may come from
 * atomic context).
 * Return: 0; -EINVAL for a bad list (as kfi_util_segs()) or count;
 * -EAGAIN when no memory is available now (the caller retries).
 */
int kfi_util_segs_dup(int type, const void *desc, size_t count,
		      struct kfi_util_seg **out)
{
	struct kfi_util_seg *t;
	int ret;

	*out = NULL;
	if (!count || count > KFI_UTIL_IOV_MAX || !desc)
		return -EINVAL;
	t = kmalloc_array(count, sizeof(*t), GFP_ATOMIC | __GFP_NOWARN);
	if (!t)
		return -EAGAIN;
	if (type == KFI_UTIL_SEGS) {
		memcpy(t, desc, count * sizeof(*t));
	} else {
		ret = kfi_util_segs(type, desc, count, t);
		if (ret) {
			kfree(t);
			return ret;
		}
	}
	*out = t;
	return 0;
}

/**
 * kfi_util_rma_dup() - Copy a long list of remote regions.
 * @src: The caller's regions.
 * @count: Their number (1 to KFI_UTIL_IOV_MAX).
 * @out: The copy, which belongs to the operation until
 *	kfi_util_rma_free().
 *
 * Context: Any but hard interrupts.
 * Return: 0, -EINVAL for a bad list, -EAGAIN when no memory is available
 * now.
 */
int kfi_util_rma_dup(const struct kfi_rma_iov *src, size_t count,
		     struct kfi_rma_iov **out)
{
	*out = NULL;
	if (!src || !count || count > KFI_UTIL_IOV_MAX)
		return -EINVAL;
	*out = kmemdup_array(src, count, sizeof(*src),
			     GFP_ATOMIC | __GFP_NOWARN);
	return *out ? 0 : -EAGAIN;
}

/**
 * kfi_util_rma_free() - Free a copy of kfi_util_rma_dup().
 * @rma: The copy, or NULL.
 *
 * Context: Any but hard interrupts.
 */
void kfi_util_rma_free(struct kfi_rma_iov *rma)
{
	kfree(rma);
}

/**
 * kfi_util_descs_dup() - Copy a memory descriptor array.
 * @src: The caller's array (an *msg call's desc).
 * @count: Its entries (1 to KFI_UTIL_IOV_MAX).
 * @out: The copy, which belongs to the operation until
 *	kfi_util_descs_free().
 *
 * Context: Any but hard interrupts.
 * Return: 0, -EINVAL for a bad array, -EAGAIN when no memory is available
 * now.
 */
int kfi_util_descs_dup(void *const *src, size_t count, void ***out)
{
	*out = NULL;
	if (!src || !count || count > KFI_UTIL_IOV_MAX)
		return -EINVAL;
	*out = kmemdup_array(src, count, sizeof(*src),
			     GFP_ATOMIC | __GFP_NOWARN);
	return *out ? 0 : -EAGAIN;
}

/**
 * kfi_util_descs_free() - Free a copy of kfi_util_descs_dup().
 * @descs: The copy, or NULL.
 *
 * Context: Any but hard interrupts.
 */
void kfi_util_descs_free(void **descs)
{
	kfree(descs);
}

/**
 * kfi_util_segs_free() - Free a table of kfi_util_segs_dup().
 * @segs: The table, or NULL.
 *
 * Context: Any but hard interrupts.
 */
void kfi_util_segs_free(struct kfi_util_seg *segs)
{
	kfree(segs);
}

/**
 * kfi_util_nr_cpus() - The number of possible CPUs.
 *
 * Return: num_possible_cpus().
 */
unsigned int kfi_util_nr_cpus(void)
{
	return num_possible_cpus();
}

/**
 * kfi_util_cpu_usable() - Check a CPU number given by a consumer.
 * @cpu: The number, e.g. kfi_cq_attr.signaling_vector with KFI_AFFINITY.
 *
 * Return: true if @cpu is an online CPU (work can be queued on it).
 */
bool kfi_util_cpu_usable(int cpu)
{
	return cpu >= 0 && cpu < nr_cpu_ids && cpu_online(cpu);
}

/**
 * kfi_util_in_work_on() - Is the caller one of the provider's progress work
 * items (a connection's, in kfi_tcp), running on @cpu and bound to it?
 * @cpu: The CPU.
 * @fn: The function of those work items (Rust's).
 *
 * A work item queued with queue_work_on() on the provider's (per-CPU)
 * workqueue runs in a kworker bound to that CPU alone; a CQ with
 * KFI_AFFINITY calls its completion handler directly only from such a
 * work item of its CPU, and from its own work item otherwise (never from
 * a consumer's call, which may hold locks its handler takes, nor from a
 * handler).
 *
 * Return: true if so.
 */
bool kfi_util_in_work_on(int cpu, const void *fn)
{
	struct work_struct *w = current_work();

	if (!w || (const void *)w->func != fn)
		return false;
	return current->nr_cpus_allowed == 1 && raw_smp_processor_id() == cpu;
}

/**
 * kfi_util_spin_lock_bh() - spin_lock_bh() for the Rust side (kfi_util/sync.rs).
 * @lock: An initialised spinlock.
 *
 * Used on kernels where spin_lock_bh() is not a call of the exported
 * _raw_spin_lock_bh() (PREEMPT_RT, CONFIG_INLINE_SPIN_LOCK_BH); elsewhere
 * sync.rs calls that directly.
 *
 * Context: Process or softirq context.
 */
void kfi_util_spin_lock_bh(spinlock_t *lock)
{
	spin_lock_bh(lock);
}

/**
 * kfi_util_spin_unlock_bh() - spin_unlock_bh() for the Rust side.
 * @lock: A spinlock taken with spin_lock_bh().
 *
 * Used where kfi_util_spin_lock_bh() is, or where spin_unlock_bh() is
 * inlined (CONFIG_INLINE_SPIN_UNLOCK_BH).
 */
void kfi_util_spin_unlock_bh(spinlock_t *lock)
{
	spin_unlock_bh(lock);
}

/**
 * struct kfi_util_dwork - A delayed work item calling back into Rust.
 * @dw: The kernel's delayed work.
 * @fn: Callback, run in process context on the provider's workqueue.
 * @ctx: Its argument.
 */
struct kfi_util_dwork {
	struct delayed_work dw;
	void (*fn)(void *ctx);
	void *ctx;
};

static void kfi_util_dwork_run(struct work_struct *w)
{
	struct kfi_util_dwork *d = container_of(to_delayed_work(w),
					       struct kfi_util_dwork, dw);

	d->fn(d->ctx);
}

/**
 * kfi_util_dwork_alloc() - Allocate a delayed work item.
 * @fn: Callback.
 * @ctx: Its argument.
 *
 * Context: Process context; may sleep.
 * Return: The item, or NULL without memory.
 */
struct kfi_util_dwork *kfi_util_dwork_alloc(void (*fn)(void *ctx), void *ctx)
{
	struct kfi_util_dwork *d = kzalloc(sizeof(*d), GFP_KERNEL);

	if (!d)
		return NULL;
	INIT_DELAYED_WORK(&d->dw, kfi_util_dwork_run);
	d->fn = fn;
	d->ctx = ctx;
	return d;
}

/**
 * kfi_util_jiffies() - The jiffies counter.
 *
 * Return: jiffies.
 */
unsigned long kfi_util_jiffies(void)
{
	return jiffies;
}

/**
 * kfi_util_random_u32() - A random number (not for cryptography).
 *
 * Return: get_random_u32().
 */
u32 kfi_util_random_u32(void)
{
	return get_random_u32();
}

/**
 * kfi_util_dwork_queue() - Run the item after @delay jiffies (0: now).
 * @d: The item.
 * @delay: Delay; 0 also brings forward a pending delayed run.
 *
 * Context: Any context.
 */
void kfi_util_dwork_queue(struct kfi_util_dwork *d, unsigned long delay)
{
	/*
	 * Now, with no delayed run pending: queue_delayed_work(), which does
	 * nothing when the item is queued already and otherwise queues it
	 * at once (mod_delayed_work() would take it off the queue with
	 * interrupts off first: a counter's add pays for this call).
	 */
	if (delay)
		queue_delayed_work(kfi_util_wq(), &d->dw, delay);
	else if (timer_pending(&d->dw.timer))
		mod_delayed_work(kfi_util_wq(), &d->dw, 0);
	else
		queue_delayed_work(kfi_util_wq(), &d->dw, 0);
}

/**
 * kfi_util_dwork_queue_on() - Run the item now on @cpu.
 * @d: The item.
 * @cpu: An online CPU (if it goes offline, the item runs elsewhere).
 *
 * Does nothing if the item is pending already.
 *
 * Context: Any context.
 */
void kfi_util_dwork_queue_on(struct kfi_util_dwork *d, int cpu)
{
	queue_delayed_work_on(cpu, kfi_util_wq(), &d->dw, 0);
}

/**
 * kfi_util_dwork_is_current() - Is the caller the item's callback?
 * @d: The item.
 *
 * Return: true when called from the callback of @d.
 */
bool kfi_util_dwork_is_current(struct kfi_util_dwork *d)
{
	return current_work() == &d->dw.work;
}

/**
 * kfi_util_dwork_cancel() - Cancel the item and wait for a running callback.
 * @d: The item. It may be queued again afterwards.
 *
 * Context: Process context; sleeps.
 */
void kfi_util_dwork_cancel(struct kfi_util_dwork *d)
{
	cancel_delayed_work_sync(&d->dw);
}

/**
 * kfi_util_dwork_free() - Cancel the item, wait for a running callback, free.
 * @d: The item, or NULL. Nothing may queue it any more.
 *
 * Context: Process context; sleeps.
 */
void kfi_util_dwork_free(struct kfi_util_dwork *d)
{
	if (!d)
		return;
	cancel_delayed_work_sync(&d->dw);
	kfree(d);
}

/**
 * struct kfi_util_timer - A timer calling back into Rust.
 * @t: The kernel's timer.
 * @fn: Callback, run in softirq context (must not sleep).
 * @ctx: Its argument.
 */
struct kfi_util_timer {
	struct timer_list t;
	void (*fn)(void *ctx);
	void *ctx;
};

static void kfi_util_timer_run(struct timer_list *t)
{
	struct kfi_util_timer *k = from_timer(k, t, t);

	k->fn(k->ctx);
}

/**
 * kfi_util_timer_alloc() - Allocate a timer.
 * @fn: Callback (softirq context).
 * @ctx: Its argument.
 *
 * Context: Process context; may sleep.
 * Return: The timer, not armed, or NULL without memory.
 */
struct kfi_util_timer *kfi_util_timer_alloc(void (*fn)(void *ctx), void *ctx)
{
	struct kfi_util_timer *k = kzalloc(sizeof(*k), GFP_KERNEL);

	if (!k)
		return NULL;
	timer_setup(&k->t, kfi_util_timer_run, 0);
	k->fn = fn;
	k->ctx = ctx;
	return k;
}

/**
 * kfi_util_timer_set_ctx() - Set the callback's argument.
 * @k: The timer, not armed yet.
 * @ctx: The argument.
 *
 * Context: Any context.
 */
void kfi_util_timer_set_ctx(struct kfi_util_timer *k, void *ctx)
{
	k->ctx = ctx;
}

/**
 * kfi_util_timer_arm() - Run the callback in @delay jiffies at the latest.
 * @k: The timer.
 * @delay: Delay from now.
 *
 * Arms the timer if it is not armed; an armed timer keeps its expiry if
 * that is sooner (timer_reduce()), so that repeated calls never push the
 * callback further away.
 *
 * Context: Any context but hard interrupts.
 */
void kfi_util_timer_arm(struct kfi_util_timer *k, unsigned long delay)
{
	timer_reduce(&k->t, jiffies + delay);
}

/**
 * kfi_util_timer_cancel() - Disarm the timer and wait for a running callback.
 * @k: The timer. It may be armed again afterwards.
 *
 * Context: Process context; do not hold what the callback takes.
 */
void kfi_util_timer_cancel(struct kfi_util_timer *k)
{
	timer_delete_sync(&k->t);
}

/**
 * kfi_util_timer_free() - Shut the timer down, wait for its callback, free.
 * @k: The timer, or NULL. Nothing may arm it any more.
 *
 * Context: Process context.
 */
void kfi_util_timer_free(struct kfi_util_timer *k)
{
	if (!k)
		return;
	timer_shutdown_sync(&k->t);
	kfree(k);
}

/**
 * kfi_util_warn() - Report a broken internal invariant.
 * @what: What broke (a NUL-terminated string).
 *
 * A kernel WARNING with a backtrace, so that the test harness, which fails
 * a run on any WARNING, cannot miss it. The Rust side calls it once per
 * place (kfi_util/base.rs, warn_once!).
 */
void kfi_util_warn(const char *what)
{
	WARN(1, KBUILD_MODNAME ": broken invariant: %s\n", what);
}

/*
 * The kernel virtual address of bytes [@skip, @skip + @len) of @segs when
 * one segment with a kernel virtual address holds them all (a message
 * into or out of a kvec: the common case), else NULL.
 */
static void *kfi_util_segs_flat(const struct kfi_util_seg *segs, int n,
				size_t skip, size_t len)
{
	int i;

	for (i = 0; i < n; i++) {
		if (skip < segs[i].len) {
			if (!segs[i].base || len > segs[i].len - skip)
				return NULL;
			return (char *)segs[i].base + skip;
		}
		skip -= segs[i].len;
	}
	return NULL;
}

/*
 * kfi_util_segs_copy() through an iov_iter over the segments. Not inlined:
 * its large frame (the iterator's vectors) stays off the common path.
 */
static noinline size_t kfi_util_segs_copy_iter(const struct kfi_util_seg *segs,
					       int n, size_t skip, void *buf,
					       size_t len, bool to_segs)
{
	struct kfi_util_vecs v __uninitialized;
	struct iov_iter it;
	size_t done = 0, total, got;

	while (done < len) {
		total = kfi_util_segs_iter(&it, to_segs ? ITER_DEST : ITER_SOURCE,
					   &v, segs, n, skip + done, len - done);
		if (!total)
			break;
		got = to_segs ? copy_to_iter((char *)buf + done, total, &it) :
				copy_from_iter((char *)buf + done, total, &it);
		done += got;
		if (got < total)
			break;
	}
	return done;
}

/* Copies between @buf and the bytes of @segs after @skip, either way. */
static size_t kfi_util_segs_copy(const struct kfi_util_seg *segs, int n,
				 size_t skip, void *buf, size_t len, bool to_segs)
{
	char *flat = kfi_util_segs_flat(segs, n, skip, len);

	if (!flat)
		return kfi_util_segs_copy_iter(segs, n, skip, buf, len, to_segs);
	/* what copy_to_iter()/copy_from_iter() do for a kvec */
	if (to_segs)
		memcpy(flat, buf, len);
	else
		memcpy(buf, flat, len);
	return len;
}

/**
 * kfi_util_segs_copy_to() - Copy bytes into a list of segments.
 * @segs: Destination segments.
 * @n: Number of @segs.
 * @skip: Bytes of @segs to leave before the copy.
 * @src: Source (kernel virtual memory).
 * @len: Bytes to copy.
 *
 * Used to deliver a message that arrived before its receive was posted.
 *
 * Context: Any context that may map pages (kmap_local).
 * Return: Bytes copied (less than @len only if @segs are shorter).
 */
size_t kfi_util_segs_copy_to(const struct kfi_util_seg *segs, int n,
			     size_t skip, const void *src, size_t len)
{
	return kfi_util_segs_copy(segs, n, skip, (void *)src, len, true);
}

/**
 * kfi_util_segs_copy_from() - Copy bytes out of a list of segments.
 * @segs: Source segments.
 * @n: Number of @segs.
 * @skip: Bytes of @segs to skip first.
 * @dst: Destination (kernel virtual memory).
 * @len: Bytes to copy.
 *
 * Used for inject calls, whose buffer is copied before the call returns.
 *
 * Context: Any context that may map pages (kmap_local); does not sleep.
 * Return: Bytes copied (less than @len only if @segs are shorter).
 */
size_t kfi_util_segs_copy_from(const struct kfi_util_seg *segs, int n,
			       size_t skip, void *dst, size_t len)
{
	return kfi_util_segs_copy(segs, n, skip, dst, len, false);
}

/* Address vectors (kfi_util/av.rs). */
static struct kfi_ops kfi_util_av_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_util_av_close,
	.bind = kfi_no_bind,
	.control = kfi_no_control,
	.ops_open = kfi_no_ops_open,
};

static struct kfi_ops_av kfi_util_av_ops = {
	.size = sizeof(struct kfi_ops_av),
	.insert = kfi_util_av_insert,
	.insertsvc = kfi_util_av_insertsvc,
	.insertsym = kfi_util_av_insertsym,
	.remove = kfi_util_av_remove,
	.lookup = kfi_util_av_lookup,
	.straddr = kfi_util_av_straddr,
};

/**
 * kfi_util_av_init() - Fill the kfabric header of a new address vector.
 * @av: The embedded struct kfid_av of the AV object (kfi_util/av.rs).
 * @context: The consumer's context.
 */
void kfi_util_av_init(struct kfid_av *av, void *context)
{
	av->fid.fclass = KFI_CLASS_AV;
	av->fid.context = context;
	av->fid.ops = &kfi_util_av_fid_ops;
	av->ops = &kfi_util_av_ops;
}

/**
 * kfi_util_is_av() - Tell whether an object is an address vector of this
 *	provider.
 * @fid: A valid object header, e.g. as given to kfi_ep_bind().
 *
 * Return: true if @fid is the header of an AV made by kfi_util_av_init().
 */
bool kfi_util_is_av(const struct kfid *fid)
{
	return fid->fclass == KFI_CLASS_AV && fid->ops == &kfi_util_av_fid_ops;
}

/* Event queues (kfi_util/eq.rs). */
static struct kfi_ops kfi_util_eq_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_util_eq_close,
	.bind = kfi_no_bind,
	.control = kfi_no_control,
	.ops_open = kfi_no_ops_open,
};

static struct kfi_ops_eq kfi_util_eq_ops = {
	.size = sizeof(struct kfi_ops_eq),
	.read = kfi_util_eq_read,
	.readerr = kfi_util_eq_readerr,
	.write = kfi_util_eq_write,
	.sread = kfi_util_eq_sread,
	.strerror = kfi_util_eq_strerror,
};

/**
 * kfi_util_eq_init() - Fill the kfabric header of a new event queue.
 * @eq: The embedded struct kfid_eq of the EQ object (kfi_util/eq.rs).
 * @context: The consumer's context.
 * @handler: The consumer's event handler, or NULL.
 */
void kfi_util_eq_init(struct kfid_eq *eq, void *context,
		      kfi_event_handler handler)
{
	eq->fid.fclass = KFI_CLASS_EQ;
	eq->fid.context = context;
	eq->fid.ops = &kfi_util_eq_fid_ops;
	eq->ops = &kfi_util_eq_ops;
	eq->event_handler = handler;
}

/**
 * kfi_util_is_eq() - Tell whether an object is an EQ of this provider.
 * @fid: A valid object header, e.g. as given to kfi_domain_bind().
 *
 * Return: true if @fid is the header of an EQ made by kfi_util_eq_init().
 */
bool kfi_util_is_eq(const struct kfid *fid)
{
	return fid->fclass == KFI_CLASS_EQ && fid->ops == &kfi_util_eq_fid_ops;
}

/* Completion queues (kfi_util/cq.rs). */
static struct kfi_ops kfi_util_cq_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_util_cq_close,
	.bind = kfi_no_bind,
	.control = kfi_no_control,
	.ops_open = kfi_no_ops_open,
};

static struct kfi_ops_cq kfi_util_cq_ops = {
	.size = sizeof(struct kfi_ops_cq),
	.read = kfi_util_cq_read,
	.readfrom = kfi_util_cq_readfrom,
	.readerr = kfi_util_cq_readerr,
	.sread = kfi_util_cq_sread,
	.sreadfrom = kfi_util_cq_sreadfrom,
	.signal = kfi_util_cq_signal,
	.strerror = kfi_util_cq_strerror,
};

/**
 * kfi_util_cq_init() - Fill the kfabric header of a new completion queue.
 * @cq: The embedded struct kfid_cq of the CQ (kfi_util/cq.rs).
 * @context: The consumer's context.
 * @handler: The consumer's completion handler, or NULL.
 */
void kfi_util_cq_init(struct kfid_cq *cq, void *context,
		      kfi_comp_handler handler)
{
	cq->fid.fclass = KFI_CLASS_CQ;
	cq->fid.context = context;
	cq->fid.ops = &kfi_util_cq_fid_ops;
	cq->ops = &kfi_util_cq_ops;
	cq->comp_handler = handler;
}

/**
 * kfi_util_is_cq() - Tell whether an object is a CQ of this provider.
 * @fid: A valid object header, e.g. as given to kfi_ep_bind().
 *
 * Return: true if @fid is the header of a CQ made by kfi_util_cq_init().
 */
bool kfi_util_is_cq(const struct kfid *fid)
{
	return fid->fclass == KFI_CLASS_CQ && fid->ops == &kfi_util_cq_fid_ops;
}

/* Network interfaces and namespaces (what kfi_getinfo lists). */

#if IS_ENABLED(CONFIG_IPV6)
/*
 * Appends the IPv6 addresses of @dev to @out (from @n, up to @max): those
 * that can be bound, neither tentative (duplicate address detection still
 * running) nor found duplicate. Under RCU (for __in6_dev_get()).
 */
static int kfi_util_ifaces6(struct net_device *dev,
			    struct kfi_util_iface *out, int n, int max)
{
	struct inet6_dev *idev = __in6_dev_get(dev);
	const struct inet6_ifaddr *ifp;

	if (!idev)
		return n;
	read_lock_bh(&idev->lock);
	list_for_each_entry(ifp, &idev->addr_list, if_list) {
		if (n == max)
			break;
		if (ifp->flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED))
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		strscpy(out[n].name, dev->name, sizeof(out[n].name));
		out[n].index = dev->ifindex;
		out[n].family = AF_INET6;
		memcpy(out[n].addr, &ifp->addr, sizeof(out[n].addr));
		out[n].prefix = ifp->prefix_len;
		out[n].up = !!(dev->flags & IFF_UP);
		n++;
	}
	read_unlock_bh(&idev->lock);
	return n;
}
#else
static int kfi_util_ifaces6(struct net_device *dev,
			    struct kfi_util_iface *out, int n, int max)
{
	return n;
}
#endif

/**
 * kfi_util_ifaces() - List the IPv4 and IPv6 addresses of the caller's
 * network namespace: per interface, its IPv4 addresses, then its IPv6 ones.
 * @out: Array of at least @max entries.
 * @max: Capacity of @out.
 *
 * Context: Process context (reads under RCU, does not sleep).
 * Return: Number of entries written; at most @max.
 */
int kfi_util_ifaces(struct kfi_util_iface *out, int max)
{
	struct net *net = current->nsproxy->net_ns;
	struct net_device *dev;
	struct in_device *in_dev;
	const struct in_ifaddr *ifa;
	int n = 0;

	rcu_read_lock();
	for_each_netdev_rcu(net, dev) {
		in_dev = __in_dev_get_rcu(dev);
		if (in_dev) {
			in_dev_for_each_ifa_rcu(ifa, in_dev) {
				if (n == max)
					goto out;
				memset(&out[n], 0, sizeof(out[n]));
				strscpy(out[n].name, dev->name,
					sizeof(out[n].name));
				out[n].index = dev->ifindex;
				out[n].family = AF_INET;
				memcpy(out[n].addr, &ifa->ifa_local, 4);
				out[n].prefix = ifa->ifa_prefixlen;
				out[n].up = !!(dev->flags & IFF_UP);
				n++;
			}
		}
		n = kfi_util_ifaces6(dev, out, n, max);
	}
out:
	rcu_read_unlock();
	return n;
}

/**
 * kfi_util_get_net() - Reference the caller's network namespace.
 *
 * Context: Process context.
 * Return: The namespace (a struct net), to be put with kfi_util_put_net().
 */
void *kfi_util_get_net(void)
{
	return get_net(current->nsproxy->net_ns);
}

/**
 * kfi_util_put_net() - Drop a namespace reference.
 * @net: A namespace referenced by kfi_util_get_net().
 */
void kfi_util_put_net(void *net)
{
	put_net(net);
}

/**
 * kfi_util_net_is_current() - Tell whether a namespace is the caller's.
 * @net: A namespace referenced by kfi_util_get_net().
 *
 * Return: true if @net is the calling task's network namespace.
 */
bool kfi_util_net_is_current(const void *net)
{
	return net == current->nsproxy->net_ns;
}

/* Socket addresses (kfi_util/addr.rs). */

static_assert(sizeof(struct sockaddr_in6) == KFI_UTIL_SOCKADDR_MAX);
static_assert(sizeof(struct sockaddr_in) <= KFI_UTIL_SOCKADDR_MAX);
static_assert(sizeof(((struct kfi_util_addr *)0)->addr) ==
	      sizeof(struct in6_addr));
static_assert(sizeof(struct kfi_util_addr) <= sizeof(struct sockaddr_storage));

/**
 * kfi_util_addr_len() - Size of a consumer address of a family.
 * @family: An address family.
 *
 * Return: sizeof(struct sockaddr_in) for AF_INET, sizeof(struct
 * sockaddr_in6) for AF_INET6, 0 for any other family.
 */
size_t kfi_util_addr_len(unsigned int family)
{
	switch (family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	default:
		return 0;
	}
}

/**
 * kfi_util_addr_decode() - Read a struct sockaddr_in or sockaddr_in6.
 * @sa: The address (may be unaligned).
 * @len: Its length as the caller states it, or 0 when the API gives none
 *	(kfi_connect()): then @sa holds as many bytes as its family needs.
 * @out: The toolkit's form.
 *
 * Return: 0; -EINVAL for NULL, a family other than AF_INET/AF_INET6, or a
 * @len other than the family's address size.
 */
int kfi_util_addr_decode(const void *sa, size_t len, struct kfi_util_addr *out)
{
	struct sockaddr_in6 s6;
	struct sockaddr_in s4;
	sa_family_t family;
	size_t need;

	if (!sa || (len && len < sizeof(family)))
		return -EINVAL;
	memcpy(&family, sa, sizeof(family));
	need = kfi_util_addr_len(family);
	if (!need || (len && len != need))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->family = family;
	if (family == AF_INET) {
		memcpy(&s4, sa, sizeof(s4));
		out->port = ntohs(s4.sin_port);
		memcpy(out->addr, &s4.sin_addr, sizeof(s4.sin_addr));
	} else {
		memcpy(&s6, sa, sizeof(s6));
		out->port = ntohs(s6.sin6_port);
		out->scope_id = s6.sin6_scope_id;
		memcpy(out->addr, &s6.sin6_addr, sizeof(s6.sin6_addr));
	}
	return 0;
}

/**
 * kfi_util_addr_encode() - Write an address as struct sockaddr_in or
 *	sockaddr_in6.
 * @a: The toolkit's form.
 * @out: Room for KFI_UTIL_SOCKADDR_MAX bytes (may be unaligned).
 *
 * Return: Bytes written (the family's address size); 0 for an unknown
 * family.
 */
size_t kfi_util_addr_encode(const struct kfi_util_addr *a, void *out)
{
	struct sockaddr_in6 s6 = {};
	struct sockaddr_in s4 = {};

	switch (a->family) {
	case AF_INET:
		s4.sin_family = AF_INET;
		s4.sin_port = htons(a->port);
		memcpy(&s4.sin_addr, a->addr, sizeof(s4.sin_addr));
		memcpy(out, &s4, sizeof(s4));
		return sizeof(s4);
	case AF_INET6:
		s6.sin6_family = AF_INET6;
		s6.sin6_port = htons(a->port);
		s6.sin6_scope_id = a->scope_id;
		memcpy(&s6.sin6_addr, a->addr, sizeof(s6.sin6_addr));
		memcpy(out, &s6, sizeof(s6));
		return sizeof(s6);
	default:
		return 0;
	}
}

/**
 * kfi_util_cxi_addr() - Pack a struct kcxi_addr.
 * @nic: NIC address (its low 20 bits are kept).
 * @pid: Endpoint index (its low 12 bits are kept).
 *
 * Return: The address's 64-bit word, flags 0.
 */
uint64_t kfi_util_cxi_addr(uint32_t nic, uint32_t pid)
{
	struct kcxi_addr a = { .qw = 0 };

	a.nic = nic;
	a.pid = pid;
	return a.qw;
}

/**
 * kfi_util_cxi_parts() - Unpack a struct kcxi_addr.
 * @qw: The address's 64-bit word.
 * @nic: Its NIC address.
 * @pid: Its endpoint index.
 * @flags: Its flags.
 */
void kfi_util_cxi_parts(uint64_t qw, uint32_t *nic, uint32_t *pid,
			uint32_t *flags)
{
	struct kcxi_addr a = { .qw = qw };

	*nic = a.nic;
	*pid = a.pid;
	*flags = a.flags;
}

/*
 * The cxi provider's extension interfaces (include/kfi_cxi_ext.h), which
 * consumers written for it open by name (Lustre's kfilnd opens the fabric's
 * unconditionally and sizes its scalable endpoints by the answer, and maps
 * its KFI_SGL buffers for the domain's device). Every other name is
 * -KFI_ENOSYS.
 */
static int kfi_util_cxi_dynamic_rsrc(struct kfid *fid, bool enable)
{
	/*
	 * Domains always take their sizes from the info they are opened
	 * with (the dynamic mode); the static one has nothing to select.
	 */
	return fid && fid->fclass == KFI_CLASS_FABRIC ? 0 : -EINVAL;
}

static struct kfi_cxi_fabric_ops kfi_util_cxi_fabric_ops = {
	.enable_dynamic_rsrc_alloc = kfi_util_cxi_dynamic_rsrc,
};

static int kfi_util_cxi_get_device(struct kfid *fid, struct device **device)
{
	if (!fid || fid->fclass != KFI_CLASS_DOMAIN || !device)
		return -EINVAL;
	*device = kfi_prov_domain_device(container_of(fid, struct kfid_domain,
						      fid));
	return *device ? 0 : -KFI_ENOSYS;
}

/*
 * A device for the DMA API with no hardware behind it: a platform device of
 * the provider's name with a 64-bit mask and no IOMMU, so that a mapping is
 * the direct one. It is what a provider's domains name (get_device) when
 * the provider moves bytes through the pages of consumers' buffers, never
 * their DMA addresses (kfi_tcp; kfi_verbs on devices without a DMA device
 * of their own, rxe and siw). Registered at module init, removed at exit
 * (open domains hold the module).
 */
static struct platform_device *kfi_util_dma_pdev;

/**
 * kfi_util_dma_device_init() - Register the provider's device (module init).
 * @name: Its name (the provider module's).
 *
 * Return: 0, or a negative errno.
 */
int kfi_util_dma_device_init(const char *name)
{
	struct platform_device *pdev;
	int rc;

	pdev = platform_device_register_simple(name, PLATFORM_DEVID_NONE,
					       NULL, 0);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);
	rc = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (rc) {
		platform_device_unregister(pdev);
		return rc;
	}
	kfi_util_dma_pdev = pdev;
	return 0;
}

/**
 * kfi_util_dma_device_exit() - Remove the provider's device (module exit).
 */
void kfi_util_dma_device_exit(void)
{
	platform_device_unregister(kfi_util_dma_pdev);
	kfi_util_dma_pdev = NULL;
}

/**
 * kfi_util_dma_device() - The provider's device.
 *
 * Return: The device registered by kfi_util_dma_device_init().
 */
struct device *kfi_util_dma_device(void)
{
	return &kfi_util_dma_pdev->dev;
}

/*
 * The administrator's NIC address table (Documentation/lnet.md,
 * kfi_util/logic/nic.rs): the provider's nic_map parameter, text checked
 * by kfi_util_nic_map_check() (Rust) before it replaces the table.
 * kfi_util_nic_map_lock protects kfi_util_nic_map_text; readers hold it
 * across their lookups (short, no sleeping).
 */
static char kfi_util_nic_map_text[KFI_UTIL_NIC_MAP_MAX];
static DEFINE_SPINLOCK(kfi_util_nic_map_lock);

static int kfi_util_nic_map_set(const char *val, const struct kernel_param *kp)
{
	size_t len = strnlen(val, KFI_UTIL_NIC_MAP_MAX);
	int rc;

	if (len == KFI_UTIL_NIC_MAP_MAX)
		return -ENOSPC;
	/* sysfs writes end in the newline echo adds: not part of the table */
	if (len && val[len - 1] == '\n')
		len--;
	rc = kfi_util_nic_map_check(val, len);
	if (rc)
		return rc;
	spin_lock_bh(&kfi_util_nic_map_lock);
	memcpy(kfi_util_nic_map_text, val, len);
	kfi_util_nic_map_text[len] = '\0';
	spin_unlock_bh(&kfi_util_nic_map_lock);
	return 0;
}

static int kfi_util_nic_map_get(char *buf, const struct kernel_param *kp)
{
	int n;

	spin_lock_bh(&kfi_util_nic_map_lock);
	n = scnprintf(buf, PAGE_SIZE, "%s\n", kfi_util_nic_map_text);
	spin_unlock_bh(&kfi_util_nic_map_lock);
	return n;
}

static const struct kernel_param_ops kfi_util_nic_map_ops = {
	.set = kfi_util_nic_map_set,
	.get = kfi_util_nic_map_get,
};
module_param_cb(nic_map, &kfi_util_nic_map_ops, NULL, 0644);
MODULE_PARM_DESC(nic_map,
		 "NIC addresses of IPv4 addresses: NIC=A.B.C.D[,NIC=A.B.C.D...], listed ones first (Documentation/lnet.md)");

/**
 * kfi_util_nic_map_lock_text() - Hold the NIC address table.
 * @len: Set to the length of its text.
 *
 * Context: Not in hard interrupt context; until
 *	kfi_util_nic_map_unlock_text(), bottom halves off, no sleeping.
 * Return: The table's text, checked by kfi_util_nic_map_check().
 */
const char *kfi_util_nic_map_lock_text(size_t *len)
	__acquires(&kfi_util_nic_map_lock)
{
	spin_lock_bh(&kfi_util_nic_map_lock);
	*len = strnlen(kfi_util_nic_map_text, KFI_UTIL_NIC_MAP_MAX);
	return kfi_util_nic_map_text;
}

/**
 * kfi_util_nic_map_unlock_text() - Let the NIC address table go.
 */
void kfi_util_nic_map_unlock_text(void)
	__releases(&kfi_util_nic_map_lock)
{
	spin_unlock_bh(&kfi_util_nic_map_lock);
}

static struct kfi_cxi_domain_ops kfi_util_cxi_domain_ops = {
	.get_device = kfi_util_cxi_get_device,
};

static int kfi_util_ops_open(struct kfid *fid, const char *name,
			     uint64_t flags, void **ops, void *context,
			     const char *want, void *table)
{
	if (!name || !ops)
		return -EINVAL;
	if (strcmp(name, want))
		return -KFI_ENOSYS;
	if (flags)
		return -EINVAL;
	*ops = table;
	return 0;
}

static int kfi_util_fabric_ops_open(struct kfid *fid, const char *name,
				    uint64_t flags, void **ops, void *context)
{
	return kfi_util_ops_open(fid, name, flags, ops, context,
				 KFI_CXI_FAB_OPS_1, &kfi_util_cxi_fabric_ops);
}

static int kfi_util_domain_ops_open(struct kfid *fid, const char *name,
				    uint64_t flags, void **ops, void *context)
{
	return kfi_util_ops_open(fid, name, flags, ops, context,
				 KFI_CXI_DOM_OPS_1, &kfi_util_cxi_domain_ops);
}

/*
 * Fabrics (kfi_util/fabric.rs). Their domains and passive endpoints are the
 * provider's: kfi_prov_fabric_domain(), kfi_prov_fabric_passive_ep().
 */
static struct kfi_ops kfi_util_fabric_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_util_fabric_close,
	.bind = kfi_no_bind,
	.control = kfi_no_control,
	.ops_open = kfi_util_fabric_ops_open,
};

static struct kfi_ops_fabric kfi_util_fabric_ops = {
	.size = sizeof(struct kfi_ops_fabric),
	.domain = kfi_prov_fabric_domain,
	.passive_ep = kfi_prov_fabric_passive_ep,
	.eq_open = kfi_util_fabric_eq_open,
	.wait_open = kfi_no_wait_open,
};

/**
 * kfi_util_fabric_init() - Fill the kfabric header of a new fabric.
 * @fabric: The embedded struct kfid_fabric of the fabric object
 *	(kfi_util/fabric.rs).
 * @context: The consumer's context.
 */
void kfi_util_fabric_init(struct kfid_fabric *fabric, void *context)
{
	fabric->fid.fclass = KFI_CLASS_FABRIC;
	fabric->fid.context = context;
	fabric->fid.ops = &kfi_util_fabric_fid_ops;
	fabric->ops = &kfi_util_fabric_ops;
	fabric->api_version = KFI_VERSION(KFI_MAJOR_VERSION, KFI_MINOR_VERSION);
}

/**
 * kfi_util_is_fabric() - Tell whether a fabric header is one of this
 *	provider's.
 * @fabric: Any provider's fabric (a consumer's getinfo hint).
 *
 * The fid's ops table is the core's guard, so the fabric ops table is
 * what identifies this provider's fabrics (each provider module has its
 * own copy of the table).
 *
 * Return: true for a fabric made by kfi_util_fabric_init().
 */
bool kfi_util_is_fabric(const struct kfid_fabric *fabric)
{
	return fabric->fid.fclass == KFI_CLASS_FABRIC &&
	       fabric->ops == &kfi_util_fabric_ops;
}

static struct kfi_ops kfi_util_domain_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_util_domain_close,
	.bind = kfi_util_domain_bind,
	.control = kfi_util_domain_control,
	.ops_open = kfi_util_domain_ops_open,
};

static struct kfi_ops_domain kfi_util_domain_ops = {
	.size = sizeof(struct kfi_ops_domain),
	.av_open = kfi_util_domain_av_open,
	.cq_open = kfi_util_domain_cq_open,
	.endpoint = kfi_prov_domain_endpoint,
	.scalable_ep = kfi_util_domain_scalable_ep,
	.cntr_open = kfi_util_domain_cntr_open,
	.poll_open = kfi_no_poll_open,
	.stx_ctx = kfi_no_stx_ctx,
	.srx_ctx = kfi_no_srx_ctx,
	.query_atomic = kfi_util_domain_query_atomic,
};

/*
 * Memory regions (kfi_util/mr.rs): every registration call becomes one
 * kfi_mr_attr handed to kfi_util_mr_regattr(), which validates it; the
 * region's fid entries are the toolkit's (the provider's part of a
 * registration and of a close are its ProvMr hooks).
 */
static int kfi_util_mr_reg_common(struct kfid *fid, struct kfi_mr_attr *attr,
				  uint64_t access, uint64_t offset,
				  uint64_t requested_key, uint64_t flags,
				  struct kfid_mr **mr, void *context)
{
	attr->access = access;
	attr->offset = offset;
	attr->requested_key = requested_key;
	attr->context = context;
	return kfi_util_mr_regattr(fid, attr, flags, mr);
}

static int kfi_util_mr_reg(struct kfid *fid, const void *buf, size_t len,
			   uint64_t access, uint64_t offset,
			   uint64_t requested_key, uint64_t flags,
			   struct kfid_mr **mr, void *context)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct kfi_mr_attr attr = { .type = KFI_KVEC, .mr_iov = &iov,
				    .iov_count = 1 };

	return kfi_util_mr_reg_common(fid, &attr, access, offset,
				      requested_key, flags, mr, context);
}

static int kfi_util_mr_regv(struct kfid *fid, const struct kvec *iov,
			    size_t count, uint64_t access, uint64_t offset,
			    uint64_t requested_key, uint64_t flags,
			    struct kfid_mr **mr, void *context)
{
	struct kfi_mr_attr attr = { .type = KFI_KVEC, .mr_iov = iov,
				    .iov_count = count };

	return kfi_util_mr_reg_common(fid, &attr, access, offset,
				      requested_key, flags, mr, context);
}

static int kfi_util_mr_regbv(struct kfid *fid, const struct bio_vec *biov,
			     size_t count, uint64_t access, uint64_t offset,
			     uint64_t requested_key, uint64_t flags,
			     struct kfid_mr **mr, void *context)
{
	struct kfi_mr_attr attr = { .type = KFI_BVEC, .mr_biov = biov,
				    .iov_count = count };

	return kfi_util_mr_reg_common(fid, &attr, access, offset,
				      requested_key, flags, mr, context);
}

static int kfi_util_mr_regsgl(struct kfid *fid, const struct scatterlist *sgl,
			      size_t count, uint64_t access, uint64_t offset,
			      uint64_t requested_key, uint64_t flags,
			      struct kfid_mr **mr, void *context)
{
	struct kfi_mr_attr attr = { .type = KFI_SGL, .mr_sgl = sgl,
				    .iov_count = count };

	return kfi_util_mr_reg_common(fid, &attr, access, offset,
				      requested_key, flags, mr, context);
}

static struct kfi_ops_mr kfi_util_mr_ops = {
	.size = sizeof(struct kfi_ops_mr),
	.reg = kfi_util_mr_reg,
	.regv = kfi_util_mr_regv,
	.regbv = kfi_util_mr_regbv,
	.regattr = kfi_util_mr_regattr,
	.regsgl = kfi_util_mr_regsgl,
};

/**
 * kfi_util_mr_segs() - Copy a registration's segments.
 * @attr: The registration; @attr->iov_count descriptors of @attr->type.
 * @out: Room for @attr->iov_count segments.
 *
 * Return: 0, or -EINVAL as kfi_util_segs() (also for an empty list).
 */
int kfi_util_mr_segs(const struct kfi_mr_attr *attr, struct kfi_util_seg *out)
{
	if (!attr->iov_count || !attr->mr_iov)
		return -EINVAL;
	return kfi_util_segs(attr->type, attr->mr_iov, attr->iov_count, out);
}

static struct kfi_ops kfi_util_mr_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_util_mr_close,
	.bind = kfi_util_mr_bind,
	.control = kfi_util_mr_control,
	.ops_open = kfi_no_ops_open,
};

/**
 * kfi_util_mr_init() - Fill the kfabric header of a new memory region.
 * @mr: The embedded struct kfid_mr of the provider's region object (its
 *	MrBase, kfi_util/mr.rs; key, iova and mem_desc already set).
 * @context: The consumer's context.
 */
void kfi_util_mr_init(struct kfid_mr *mr, void *context)
{
	mr->fid.fclass = KFI_CLASS_MR;
	mr->fid.context = context;
	mr->fid.ops = &kfi_util_mr_fid_ops;
}

/* Memory registration of a provider that has none yet. */
static struct kfi_ops_mr kfi_util_no_mr_ops = {
	.size = sizeof(struct kfi_ops_mr),
	.reg = kfi_no_mr_reg,
	.regv = kfi_no_mr_regv,
	.regbv = kfi_no_mr_regbv,
	.regattr = kfi_no_mr_regattr,
	.regsgl = kfi_no_mr_regsgl,
};

/**
 * kfi_util_domain_init() - Fill the kfabric header of a new domain.
 * @domain: The embedded struct kfid_domain of the provider's domain object
 *	(its DomainBase, kfi_util/fid.rs).
 * @context: The consumer's context.
 * @mr: Whether the provider registers memory (its region type implements
 *	ProvMr, kfi_util/mr.rs): the toolkit's memory registration ops; else
 *	none (-KFI_ENOSYS).
 */
void kfi_util_domain_init(struct kfid_domain *domain, void *context, bool mr)
{
	domain->fid.fclass = KFI_CLASS_DOMAIN;
	domain->fid.context = context;
	domain->fid.ops = &kfi_util_domain_fid_ops;
	domain->ops = &kfi_util_domain_ops;
	domain->mr = mr ? &kfi_util_mr_ops : &kfi_util_no_mr_ops;
}

/**
 * kfi_util_is_domain() - Tell whether a domain header is one of this
 *	provider's.
 * @domain: Any provider's domain (a consumer's getinfo hint).
 *
 * Each provider module has its own copy of the ops tables.
 * Return: true for a domain made by kfi_util_domain_init().
 */
bool kfi_util_is_domain(const struct kfid_domain *domain)
{
	return domain->fid.fclass == KFI_CLASS_DOMAIN &&
	       domain->ops == &kfi_util_domain_ops;
}

/*
 * Endpoints (kfi_util/ep.rs): the provider's object, whose bind, control,
 * close, cancel and option entries are the toolkit's (the provider's part
 * of close is its ProvEp::closing()) and whose connection management is
 * the provider's CM table. The data-transfer tables (kfi_util_xfer.c) hand
 * every call to kfi_util_ep_xfer().
 */
static struct kfi_ops kfi_util_ep_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_util_ep_close,
	.bind = kfi_util_ep_bind,
	.control = kfi_util_ep_control,
	.ops_open = kfi_no_ops_open,
};

static struct kfi_ops_ep kfi_util_ep_ops = {
	.size = sizeof(struct kfi_ops_ep),
	.cancel = kfi_util_ep_cancel,
	.getopt = kfi_util_ep_getopt,
	.setopt = kfi_util_ep_setopt,
	.tx_ctx = kfi_no_tx_ctx,
	.rx_ctx = kfi_no_rx_ctx,
};

/* No connection management: aliases, and endpoints of a provider without. */
static struct kfi_ops_cm kfi_util_no_cm_ops = {
	.size = sizeof(struct kfi_ops_cm),
	.setname = kfi_no_setname,
	.getname = kfi_no_getname,
	.getpeer = kfi_no_getpeer,
	.connect = kfi_no_connect,
	.listen = kfi_no_listen,
	.accept = kfi_no_accept,
	.reject = kfi_no_reject,
	.shutdown = kfi_no_shutdown,
	.join = kfi_no_join,
};

/* The data-transfer tables of endpoints and aliases. */
static void kfi_util_ep_data_ops(struct kfid_ep *ep)
{
	ep->msg = &kfi_util_ep_msg_ops;
	ep->rma = &kfi_util_ep_rma_ops;
	ep->tagged = &kfi_util_ep_tagged_ops;
	ep->atomic = &kfi_util_ep_atomic_ops;
}

/**
 * kfi_util_ep_init() - Fill the kfabric header of a new endpoint.
 * @ep: The embedded struct kfid_ep of the provider's endpoint object (its
 *	EpBase, kfi_util/ep.rs).
 * @context: The consumer's context.
 * @cm: The provider's connection management ops; NULL: none (-KFI_ENOSYS).
 */
void kfi_util_ep_init(struct kfid_ep *ep, void *context,
		      struct kfi_ops_cm *cm)
{
	ep->fid.fclass = KFI_CLASS_EP;
	ep->fid.context = context;
	ep->fid.ops = &kfi_util_ep_fid_ops;
	ep->ops = &kfi_util_ep_ops;
	ep->cm = cm ?: &kfi_util_no_cm_ops;
	kfi_util_ep_data_ops(ep);
}

/**
 * kfi_util_is_ep() - Tell whether an object is an endpoint of this provider.
 * @fid: A valid object header (e.g. the endpoint of deferred work).
 *
 * Return: true if @fid was made by kfi_util_ep_init() (an alias is not).
 */
bool kfi_util_is_ep(const struct kfid *fid)
{
	return (fid->fclass == KFI_CLASS_EP ||
		fid->fclass == KFI_CLASS_TX_CTX ||
		fid->fclass == KFI_CLASS_RX_CTX) &&
	       fid->ops == &kfi_util_ep_fid_ops;
}

/**
 * kfi_util_txc_init() - Fill the kfabric header of a transmit context of a
 *	scalable endpoint: an endpoint's tables (kfi_util/ep.rs; the
 *	queues refuse receives) without connection management.
 * @ep: The embedded struct kfid_ep of the context's EpBase.
 * @context: The consumer's context.
 */
void kfi_util_txc_init(struct kfid_ep *ep, void *context)
{
	kfi_util_ep_init(ep, context, NULL);
	ep->fid.fclass = KFI_CLASS_TX_CTX;
}

/**
 * kfi_util_rxc_init() - Fill the kfabric header of a receive context of a
 *	scalable endpoint (its queues refuse transmits).
 * @ep: The embedded struct kfid_ep of the context's EpBase.
 * @context: The consumer's context.
 */
void kfi_util_rxc_init(struct kfid_ep *ep, void *context)
{
	kfi_util_ep_init(ep, context, NULL);
	ep->fid.fclass = KFI_CLASS_RX_CTX;
}

/*
 * Scalable endpoints (kfi_util/sep.rs): bind (an AV), enable, close, the
 * context entries and getname; no data transfer on the endpoint itself
 * (its contexts move the data), so every data slot is -KFI_ENOSYS.
 */
static struct kfi_ops kfi_util_sep_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_util_sep_close,
	.bind = kfi_util_sep_bind,
	.control = kfi_util_sep_control,
	.ops_open = kfi_no_ops_open,
};

static struct kfi_ops_ep kfi_util_sep_ops = {
	.size = sizeof(struct kfi_ops_ep),
	.cancel = kfi_no_cancel,
	.getopt = kfi_no_getopt,
	.setopt = kfi_no_setopt,
	.tx_ctx = kfi_util_sep_tx_ctx,
	.rx_ctx = kfi_util_sep_rx_ctx,
};

static struct kfi_ops_cm kfi_util_sep_cm_ops = {
	.size = sizeof(struct kfi_ops_cm),
	.setname = kfi_no_setname,
	.getname = kfi_util_sep_getname,
	.getpeer = kfi_no_getpeer,
	.connect = kfi_no_connect,
	.listen = kfi_no_listen,
	.accept = kfi_no_accept,
	.reject = kfi_no_reject,
	.shutdown = kfi_no_shutdown,
	.join = kfi_no_join,
};

static struct kfi_ops_msg kfi_util_no_msg_ops = {
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

static struct kfi_ops_rma kfi_util_no_rma_ops = {
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

static struct kfi_ops_tagged kfi_util_no_tagged_ops = {
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

static struct kfi_ops_atomic kfi_util_no_atomic_ops = {
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
 * kfi_util_sep_init() - Fill the kfabric header of a new scalable endpoint.
 * @sep: The embedded struct kfid_ep of the provider's object (its SepBase,
 *	kfi_util/sep.rs).
 * @context: The consumer's context.
 */
void kfi_util_sep_init(struct kfid_ep *sep, void *context)
{
	sep->fid.fclass = KFI_CLASS_SEP;
	sep->fid.context = context;
	sep->fid.ops = &kfi_util_sep_fid_ops;
	sep->ops = &kfi_util_sep_ops;
	sep->cm = &kfi_util_sep_cm_ops;
	sep->msg = &kfi_util_no_msg_ops;
	sep->rma = &kfi_util_no_rma_ops;
	sep->tagged = &kfi_util_no_tagged_ops;
	sep->atomic = &kfi_util_no_atomic_ops;
}

static struct kfi_ops kfi_util_alias_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_util_alias_close,
	.bind = kfi_no_bind,
	.control = kfi_no_control,
	.ops_open = kfi_no_ops_open,
};

static struct kfi_ops_ep kfi_util_alias_ops = {
	.size = sizeof(struct kfi_ops_ep),
	.cancel = kfi_util_alias_cancel,
	.getopt = kfi_no_getopt,
	.setopt = kfi_no_setopt,
	.tx_ctx = kfi_no_tx_ctx,
	.rx_ctx = kfi_no_rx_ctx,
};

/**
 * kfi_util_alias_init() - Fill the kfabric header of an endpoint alias.
 * @ep: The embedded struct kfid_ep of the alias.
 * @context: Context (the endpoint's).
 *
 * The data-transfer tables are the endpoint's (kfi_util_ep_xfer() tells an
 * alias by its fid ops); connection management is not offered.
 */
void kfi_util_alias_init(struct kfid_ep *ep, void *context)
{
	ep->fid.fclass = KFI_CLASS_EP;
	ep->fid.context = context;
	ep->fid.ops = &kfi_util_alias_fid_ops;
	ep->ops = &kfi_util_alias_ops;
	ep->cm = &kfi_util_no_cm_ops;
	kfi_util_ep_data_ops(ep);
}

/**
 * kfi_util_is_alias() - Tell whether an endpoint header is an alias.
 * @fid: The header of one of this provider's endpoints or aliases.
 *
 * Return: true for an alias made by kfi_util_alias_init().
 */
bool kfi_util_is_alias(const struct kfid *fid)
{
	return fid->ops == &kfi_util_alias_fid_ops;
}

/*
 * Passive endpoints and connection requests: every entry is the toolkit's
 * (kfi_util/pep.rs), which calls the provider's ProvPep hooks.
 */
static struct kfi_ops kfi_util_pep_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_util_pep_close,
	.bind = kfi_util_pep_bind,
	.control = kfi_no_control,
	.ops_open = kfi_no_ops_open,
};

static struct kfi_ops_ep kfi_util_pep_ops = {
	.size = sizeof(struct kfi_ops_ep),
	.cancel = kfi_no_cancel,
	.getopt = kfi_no_getopt,
	.setopt = kfi_no_setopt,
	.tx_ctx = kfi_no_tx_ctx,
	.rx_ctx = kfi_no_rx_ctx,
};

static struct kfi_ops_cm kfi_util_pep_cm_ops = {
	.size = sizeof(struct kfi_ops_cm),
	.setname = kfi_no_setname,
	.getname = kfi_util_pep_getname,
	.getpeer = kfi_no_getpeer,
	.connect = kfi_no_connect,
	.listen = kfi_util_pep_listen,
	.accept = kfi_no_accept,
	.reject = kfi_util_pep_reject,
	.shutdown = kfi_no_shutdown,
	.join = kfi_no_join,
};

/**
 * kfi_util_pep_init() - Fill the kfabric header of a new passive endpoint.
 * @pep: The embedded struct kfid_pep of the provider's passive endpoint
 *	object (its PepBase, kfi_util/pep.rs).
 * @context: The consumer's context.
 */
void kfi_util_pep_init(struct kfid_pep *pep, void *context)
{
	pep->fid.fclass = KFI_CLASS_PEP;
	pep->fid.context = context;
	pep->fid.ops = &kfi_util_pep_fid_ops;
	pep->ops = &kfi_util_pep_ops;
	pep->cm = &kfi_util_pep_cm_ops;
}

static struct kfi_ops kfi_util_connreq_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_util_connreq_close,
	.bind = kfi_no_bind,
	.control = kfi_no_control,
	.ops_open = kfi_no_ops_open,
};

/**
 * kfi_util_connreq_init() - Fill the header of a connection request
 *	(info->handle of a KFI_CONNREQ event; kfi_close() rejects it).
 * @fid: The embedded struct kfid of the request (kfi_util/pep.rs).
 */
void kfi_util_connreq_init(struct kfid *fid)
{
	fid->fclass = KFI_CLASS_CONNREQ;
	fid->context = NULL;
	fid->ops = &kfi_util_connreq_fid_ops;
}

/**
 * kfi_util_is_connreq() - Tell whether an object is a connection request of
 *	this provider.
 * @fid: A valid object header (the info->handle a consumer passes).
 *
 * Return: true if @fid was made by kfi_util_connreq_init().
 */
bool kfi_util_is_connreq(const struct kfid *fid)
{
	return fid->fclass == KFI_CLASS_CONNREQ &&
	       fid->ops == &kfi_util_connreq_fid_ops;
}

/*
 * Per-object statistics (README "Statistics"):
 * kfabric/<provider>/ under kfabric.ko's debugfs directory, one directory
 * per open domain named after it ("lo", a second one on the same name
 * "lo.1", ...), four files in it whose text kfi_util_stats_show() (Rust,
 * kfi_util/stats.rs) writes. kfi_util_stats_lock serialises the choice of
 * a free name with the creation and removal of domain directories.
 * debugfs failures are not fatal (by debugfs design): no directory, no
 * statistics.
 */
static struct dentry *kfi_util_stats_dir;
static DEFINE_MUTEX(kfi_util_stats_lock);

/**
 * kfi_util_stats_init() - Create the provider's statistics directory.
 * @prov: The provider's name (kfabric/<prov>).
 *
 * Called once the provider is registered (kfabric.ko, which made
 * "kfabric", is loaded: we depend on it).
 */
void kfi_util_stats_init(const char *prov)
{
	struct dentry *root = debugfs_lookup("kfabric", NULL);

	if (IS_ERR_OR_NULL(root))
		return;
	kfi_util_stats_dir = debugfs_create_dir(prov, root);
	dput(root);
}

/**
 * kfi_util_stats_exit() - Remove the provider's statistics directory.
 *
 * Called after deregistration: no domain is open any more.
 */
void kfi_util_stats_exit(void)
{
	debugfs_remove_recursive(kfi_util_stats_dir);
	kfi_util_stats_dir = NULL;
}

#define KFI_UTIL_STATS_SHOW(fname, which)				\
static int kfi_util_stats_##fname##_show(struct seq_file *m, void *v)	\
{									\
	return kfi_util_stats_show(m, m->private, which);		\
}									\
DEFINE_SHOW_ATTRIBUTE(kfi_util_stats_##fname)

KFI_UTIL_STATS_SHOW(eps, KFI_UTIL_STATS_EPS);
KFI_UTIL_STATS_SHOW(cqs, KFI_UTIL_STATS_CQS);
KFI_UTIL_STATS_SHOW(cntrs, KFI_UTIL_STATS_CNTRS);
KFI_UTIL_STATS_SHOW(mr, KFI_UTIL_STATS_MR);

/**
 * kfi_util_stats_domain() - Create an open domain's statistics directory.
 * @name: The domain's name (not NUL-terminated).
 * @len: Its length.
 * @dom: The domain (its DomainBase), live until kfi_util_stats_remove().
 *
 * Process context. The directory is @name, or @name.N for the lowest N
 * not taken when a domain of that name is open already.
 *
 * Return: The directory for kfi_util_stats_remove(), or NULL (no debugfs,
 * no memory): the domain works without statistics.
 */
void *kfi_util_stats_domain(const char *name, size_t len, void *dom)
{
	struct dentry *d = NULL, *old;
	char buf[NAME_MAX];
	int i;

	if (IS_ERR_OR_NULL(kfi_util_stats_dir))
		return NULL;
	mutex_lock(&kfi_util_stats_lock);
	for (i = 0; i < 1024; i++) {
		if (i)
			snprintf(buf, sizeof(buf), "%.*s.%d", (int)len, name, i);
		else
			snprintf(buf, sizeof(buf), "%.*s", (int)len, name);
		old = debugfs_lookup(buf, kfi_util_stats_dir);
		if (!old)
			break;
		dput(old);
	}
	if (i < 1024)
		d = debugfs_create_dir(buf, kfi_util_stats_dir);
	mutex_unlock(&kfi_util_stats_lock);
	if (IS_ERR_OR_NULL(d))
		return NULL;
	debugfs_create_file("endpoints", 0400, d, dom, &kfi_util_stats_eps_fops);
	debugfs_create_file("cqs", 0400, d, dom, &kfi_util_stats_cqs_fops);
	debugfs_create_file("cntrs", 0400, d, dom, &kfi_util_stats_cntrs_fops);
	debugfs_create_file("mr", 0400, d, dom, &kfi_util_stats_mr_fops);
	return d;
}

/**
 * kfi_util_stats_remove() - Remove a domain's statistics directory.
 * @dir: What kfi_util_stats_domain() returned (NULL: nothing).
 *
 * Process context; returns once no reader is in its files.
 */
void kfi_util_stats_remove(void *dir)
{
	if (!dir)
		return;
	mutex_lock(&kfi_util_stats_lock);
	debugfs_remove_recursive(dir);
	mutex_unlock(&kfi_util_stats_lock);
}

/**
 * kfi_util_seq_write() - Append text to a statistics file being read.
 * @m: The file (a struct seq_file).
 * @s: The text.
 * @len: Its length.
 *
 * Any context (never sleeps).
 */
void kfi_util_seq_write(void *m, const char *s, size_t len)
{
	seq_write(m, s, len);
}

/* A socket address of a family the statistics print, as long as its family's. */
static bool kfi_util_stats_sockaddr(const struct sockaddr_storage *ss, size_t len)
{
	return (ss->ss_family == AF_INET && len == sizeof(struct sockaddr_in)) ||
	       (ss->ss_family == AF_INET6 && len == sizeof(struct sockaddr_in6));
}

/**
 * kfi_util_ep_addrs() - An endpoint's addresses, as its statistics print them.
 * @ep: One of the provider's endpoints (open for the call).
 * @buf: Where " local=ADDR peer=ADDR" is written (either part left out when
 *	the endpoint's getname/getpeer has no socket address to give).
 * @len: Room in @buf.
 *
 * Process context: asks the endpoint's own getname and getpeer, which may
 * sleep (a socket's lock).
 *
 * Return: The bytes written (at most @len - 1; NUL-terminated).
 */
size_t kfi_util_ep_addrs(struct kfid_ep *ep, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	size_t alen, n = 0;

	if (!len)
		return 0;
	buf[0] = 0;
	if (!ep->cm || ep->cm->size < offsetofend(struct kfi_ops_cm, getpeer))
		return 0;
	alen = sizeof(ss);
	if (ep->cm->getname && !ep->cm->getname(&ep->fid, &ss, &alen) &&
	    kfi_util_stats_sockaddr(&ss, alen))
		n += scnprintf(buf + n, len - n, " local=%pISpc", &ss);
	alen = sizeof(ss);
	if (ep->cm->getpeer && !ep->cm->getpeer(ep, &ss, &alen) &&
	    kfi_util_stats_sockaddr(&ss, alen))
		n += scnprintf(buf + n, len - n, " peer=%pISpc", &ss);
	return n;
}
