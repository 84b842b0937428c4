/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The provider toolkit's C side (kfi_util_glue.c), as the Rust side of a
 * provider sees it: each provider's own sys header includes this one, so
 * its generated bindings (one `sys` module per crate) carry these names,
 * which the shared Rust code in kfi_util/ uses as `crate::util::sys`.
 *
 * The toolkit is compiled into every provider module (see
 * Documentation/architecture.md): these symbols exist once per module and
 * are never exported.
 */
#ifndef KFI_UTIL_SYS_H
#define KFI_UTIL_SYS_H

#include <kfabric.h>
#include <kfi_domain.h>
#include <kfi_rma.h>
#include <kfi_eq.h>

/**
 * struct kfi_util_seg - One segment of a buffer or a registered memory region.
 * @base: Kernel virtual address (kvec segments), else NULL.
 * @page: First page (bio_vec and scatterlist segments), else NULL.
 * @offset: Offset into @page.
 * @len: Length in bytes.
 */
struct kfi_util_seg {
	void *base;
	struct page *page;
	unsigned int offset;
	size_t len;
};

/*
 * Most local segments and remote regions of one operation (tx/rx
 * iov_limit, rma_iov_limit): a 1 MiB transfer as 4 KiB pages. Lists longer
 * than the transfer description holds are not copied into it; the provider
 * reads them during the call (kfi_util_segs_dup()).
 */
#define KFI_UTIL_IOV_MAX 256
/* A list of struct kfi_util_seg (the provider's own copy, for a triggered
 * operation), as a kfi_util_segs() type. */
#define KFI_UTIL_SEGS 0x100

int kfi_util_segs(enum kfi_iov_type type, const void *desc, size_t count,
		  struct kfi_util_seg *out);
int kfi_util_segs_dup(int type, const void *desc, size_t count,
		      struct kfi_util_seg **out);
void kfi_util_segs_free(struct kfi_util_seg *segs);
int kfi_util_rma_dup(const struct kfi_rma_iov *src, size_t count,
		     struct kfi_rma_iov **out);
void kfi_util_rma_free(struct kfi_rma_iov *rma);
size_t kfi_util_segs_copy_to(const struct kfi_util_seg *segs, int n,
			     size_t skip, const void *src, size_t len);
size_t kfi_util_segs_copy_from(const struct kfi_util_seg *segs, int n,
			       size_t skip, void *dst, size_t len);

/* The provider's workqueue (one per module). */
struct workqueue_struct;
int kfi_util_wq_init(void);
struct workqueue_struct *kfi_util_wq(void);
void kfi_util_wq_exit(void);

/* Delayed work on the provider's workqueue (kfi_util_glue.c). */
struct kfi_util_dwork;
struct kfi_util_dwork *kfi_util_dwork_alloc(void (*fn)(void *ctx), void *ctx);
unsigned long kfi_util_jiffies(void);
void kfi_util_dwork_queue(struct kfi_util_dwork *d, unsigned long delay);
void kfi_util_dwork_queue_on(struct kfi_util_dwork *d, int cpu);
bool kfi_util_dwork_is_current(struct kfi_util_dwork *d);
void kfi_util_dwork_cancel(struct kfi_util_dwork *d);
void kfi_util_dwork_free(struct kfi_util_dwork *d);
/* Timers calling back in softirq context (kfi_util_glue.c). */
struct kfi_util_timer;
struct kfi_util_timer *kfi_util_timer_alloc(void (*fn)(void *ctx), void *ctx);
void kfi_util_timer_set_ctx(struct kfi_util_timer *k, void *ctx);
void kfi_util_timer_arm(struct kfi_util_timer *k, unsigned long delay);
void kfi_util_timer_cancel(struct kfi_util_timer *k);
void kfi_util_timer_free(struct kfi_util_timer *k);

bool kfi_util_cpu_usable(int cpu);
bool kfi_util_in_work_on(int cpu, const void *fn);
void kfi_util_warn(const char *what);
void kfi_util_spin_lock_bh(spinlock_t *lock);
void kfi_util_spin_unlock_bh(spinlock_t *lock);
unsigned int kfi_util_noio_save(void);
void kfi_util_noio_restore(unsigned int flags);
struct module *kfi_util_this_module(void);
char *kfi_util_strndup(const char *s, size_t len);
void *kfi_util_memdup(const void *p, size_t len);

/* Event queues: the ops table and what it calls (kfi_util/eq.rs). */
void kfi_util_eq_init(struct kfid_eq *eq, void *context,
		      kfi_event_handler handler);
bool kfi_util_is_eq(const struct kfid *fid);
int kfi_util_fabric_eq_open(struct kfid_fabric *fabric,
			    struct kfi_eq_attr *attr, struct kfid_eq **eq,
			    kfi_event_handler handler, void *context);
int kfi_util_eq_close(struct kfid *fid);
ssize_t kfi_util_eq_read(struct kfid_eq *eq, uint32_t *event, void *buf,
			 size_t len, uint64_t flags);
ssize_t kfi_util_eq_readerr(struct kfid_eq *eq, struct kfi_eq_err_entry *buf,
			    uint64_t flags);
ssize_t kfi_util_eq_write(struct kfid_eq *eq, uint32_t event,
			  const void *buf, size_t len, uint64_t flags);
ssize_t kfi_util_eq_sread(struct kfid_eq *eq, uint32_t *event, void *buf,
			  size_t len, int timeout, uint64_t flags);
const char *kfi_util_eq_strerror(struct kfid_eq *eq, int prov_errno,
				 const void *err_data, char *buf, size_t len);

#endif
