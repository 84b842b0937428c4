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
#include <kfi_endpoint.h>
#include <kfi_tagged.h>
#include <kfi_atomic.h>
#include "kfi_trace_bits.h"

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

/* Local segments and remote regions a struct kfi_util_xfer holds in place. */
#define KFI_UTIL_IOV_LIMIT 4

/* What struct kfi_util_xfer describes. */
#define KFI_UTIL_X_SEND		0
#define KFI_UTIL_X_RECV		1
#define KFI_UTIL_X_TSEND	2
#define KFI_UTIL_X_TRECV	3
#define KFI_UTIL_X_READ		4
#define KFI_UTIL_X_WRITE	5
#define KFI_UTIL_X_ATOMIC	6	/* kfi_atomic*(): no result */
#define KFI_UTIL_X_FATOMIC	7	/* kfi_fetch_atomic*(): the old value */
#define KFI_UTIL_X_CATOMIC	8	/* kfi_compare_atomic*() */

/**
 * struct kfi_util_xfer - One data-transfer call, whatever its variant: what
 *	the toolkit's ops tables (kfi_util_xfer.c) hand to kfi_util_ep_xfer().
 * @kind: KFI_UTIL_X_*.
 * @nseg: Number of segments (at most KFI_UTIL_IOV_MAX). Up to
 *	KFI_UTIL_IOV_LIMIT they are in @seg; beyond, @ext_desc describes them.
 * @seg: The buffer.
 * @context: Operation context.
 * @data: Remote CQ data (with KFI_REMOTE_CQ_DATA in @flags).
 * @tag: Tag of a tagged send or receive.
 * @ignore: Ignore mask of a tagged receive.
 * @flags: Operation flags: those of a *msg call, else the implied ones
 *	(KFI_INJECT, KFI_REMOTE_CQ_DATA).
 * @msg_call: The call was a *msg variant: @flags replace the endpoint's
 *	default operation flags instead of adding to them.
 * @no_entry: An inject call: no completion entry, ever.
 * @rma_whole: A single-region call (kfi_read(), kfi_write()...): @rma[0]
 *	covers the whole local buffer; its len is set by the provider.
 * @rma_count: Number of remote regions (at most KFI_UTIL_IOV_MAX): in @rma
 *	up to KFI_UTIL_IOV_LIMIT, else in @rma_ext.
 * @ext_type: The kind of list @ext_desc is (enum kfi_iov_type, or
 *	KFI_UTIL_SEGS).
 * @rma: Remote regions of an RMA read or write.
 * @ext_desc: With more than KFI_UTIL_IOV_LIMIT segments, the caller's list
 *	(valid for the call only), else NULL.
 * @rma_ext: With more than KFI_UTIL_IOV_LIMIT remote regions, the caller's
 *	array (valid for the call only), else NULL.
 * @addr: The call's address: destination of a send, read or write, source
 *	of a receive (KFI_DIRECTED_RECV); connected endpoints ignore it.
 * @desc: The memory descriptor of a single-buffer call (kfi_send(),
 *	kfi_read()...: its @desc argument, e.g. kfi_mr_desc()), else NULL.
 * @descv: The descriptor array of a list or *msg call (@nseg entries, or
 *	NULL; valid for the call only: a provider that keeps it copies it).
 * @atomic_type: An atomic's &enum kfi_datatype (its operand is the buffer,
 *	@rma[0] its remote elements, their len in bytes set by the wrapper).
 * @atomic_op: An atomic's &enum kfi_op.
 * @result: A fetching or compare atomic's result buffer (one, as many
 *	bytes as its remote elements; kernel address), else NULL.
 * @compare: A compare atomic's compare operand (likewise), else NULL.
 */
struct kfi_util_xfer {
	int kind;
	unsigned int nseg;
	struct kfi_util_seg seg[KFI_UTIL_IOV_LIMIT];
	void *context;
	uint64_t data;
	uint64_t tag;
	uint64_t ignore;
	uint64_t flags;
	bool msg_call;
	bool no_entry;
	bool rma_whole;
	unsigned int rma_count;
	int ext_type;
	struct kfi_rma_iov rma[KFI_UTIL_IOV_LIMIT];
	const void *ext_desc;
	const struct kfi_rma_iov *rma_ext;
	kfi_addr_t addr;
	void *desc;
	void **descv;
	int atomic_type;
	int atomic_op;
	void *result;
	const void *compare;
};

/*
 * Trace events (kfi_util/kfi_trace.h, kfi_util_trace.c): call only when
 * the event's bit (KFI_TP_*) is set in kfabric.ko's kfi_trace_on. Any
 * context; strings are NUL-terminated and copied.
 */
void kfi_util_tp_complete(const void *cq, const void *context, uint64_t flags,
			  uint64_t len, int err);
struct sockaddr;
void kfi_util_tp_conn(const void *conn, const void *ep,
		      const struct sockaddr *peer, const char *from,
		      const char *to);
void kfi_util_tp_error(const void *obj, int err, const char *cause);
void kfi_util_tp_trig_queue(const void *cntr, const void *context,
			    uint64_t threshold, uint64_t value, int op,
			    bool deferred);
void kfi_util_tp_trig_fire(const void *cntr, const void *context,
			   uint64_t threshold, uint64_t value);
void kfi_util_tp_stall(const void *obj, const char *why, uint64_t queued);

int kfi_util_xfer_build_msg(struct kfi_util_xfer *x, const struct kfi_msg *msg,
			    uint64_t flags);
int kfi_util_xfer_build_tagged(struct kfi_util_xfer *x,
			       const struct kfi_msg_tagged *msg,
			       uint64_t flags);
int kfi_util_xfer_build_rma(struct kfi_util_xfer *x,
			    const struct kfi_msg_rma *msg, uint64_t flags);
int kfi_util_xfer_build_atomic(struct kfi_util_xfer *x,
			       const struct kfi_msg_atomic *msg,
			       const struct kfi_ioc *comparev,
			       size_t compare_count, struct kfi_ioc *resultv,
			       size_t result_count, uint64_t flags);
size_t kfi_util_atomic_size(int datatype);

/*
 * Defined by the provider (its glue): whether its endpoints do atomic
 * operations at all. Without, every atomic call is -KFI_ENOSYS before it
 * reaches the queues.
 */
extern const bool kfi_prov_atomics;
bool kfi_util_atomics(void);

/**
 * kfi_util_atomic_valid() - The valid queries of the atomic ops table
 *	(kfi_util/ep.rs): whether the endpoint's provider does @kind of
 *	atomic on @datatype with @op.
 * @ep: The endpoint.
 * @kind: KFI_UTIL_X_ATOMIC, _FATOMIC or _CATOMIC.
 * @datatype: &enum kfi_datatype.
 * @op: &enum kfi_op.
 * @count: Where the most elements one operation takes goes.
 *
 * Context: Any. Return: 0, or -KFI_ENOSYS (not done), -EINVAL.
 */
int kfi_util_atomic_valid(struct kfid_ep *ep, int kind, int datatype, int op,
			  size_t *count);

/* The ops tables of the toolkit's data transfers (kfi_util_xfer.c). */
extern struct kfi_ops_msg kfi_util_ep_msg_ops;
extern struct kfi_ops_rma kfi_util_ep_rma_ops;
extern struct kfi_ops_tagged kfi_util_ep_tagged_ops;
extern struct kfi_ops_atomic kfi_util_ep_atomic_ops;

/**
 * kfi_util_ep_xfer() - Validate and queue one data transfer (kfi_util/ep.rs:
 *	an alias's flags added, a triggered one handed to the trigger
 *	machinery, the rest to the endpoint's queues).
 * @ep: The endpoint (or alias) the consumer called.
 * @x: The call, valid for the call only.
 *
 * Context: Any but hard interrupts; must not sleep.
 * Return: 0, or a negative errno (-EAGAIN: no room now, retry).
 */
ssize_t kfi_util_ep_xfer(struct kfid_ep *ep, const struct kfi_util_xfer *x);

/* Memory descriptor arrays copied for operations that outlive the call. */
int kfi_util_descs_dup(void *const *src, size_t count, void ***out);
void kfi_util_descs_free(void **descs);

/* The provider's workqueue (one per module). */
struct workqueue_struct;
int kfi_util_wq_init(void);
struct workqueue_struct *kfi_util_cm_wq(void);
struct workqueue_struct *kfi_util_wq(void);
void kfi_util_wq_exit(void);

/* Delayed work on the provider's workqueue (kfi_util_glue.c). */
struct kfi_util_dwork;
struct kfi_util_dwork *kfi_util_dwork_alloc(void (*fn)(void *ctx), void *ctx);
unsigned long kfi_util_jiffies(void);
u32 kfi_util_random_u32(void);
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
unsigned int kfi_util_nr_cpus(void);
bool kfi_util_in_work_on(int cpu, const void *fn);
void kfi_util_warn(const char *what);
void kfi_util_spin_lock_bh(spinlock_t *lock);
void kfi_util_spin_unlock_bh(spinlock_t *lock);
unsigned int kfi_util_noio_save(void);
void kfi_util_noio_restore(unsigned int flags);
struct module *kfi_util_this_module(void);
char *kfi_util_strndup(const char *s, size_t len);
void *kfi_util_memdup(const void *p, size_t len);

/* Address vectors: the ops table and what it calls (kfi_util/av.rs). */
void kfi_util_av_init(struct kfid_av *av, void *context);
bool kfi_util_is_av(const struct kfid *fid);
int kfi_util_domain_av_open(struct kfid_domain *domain,
			    struct kfi_av_attr *attr, struct kfid_av **av,
			    void *context);
int kfi_util_av_close(struct kfid *fid);
int kfi_util_av_insert(struct kfid_av *av, const void *addr, size_t count,
		       kfi_addr_t *kfi_addr, uint64_t flags, void *context);
int kfi_util_av_insertsvc(struct kfid_av *av, const char *node,
			  const char *service, kfi_addr_t *kfi_addr,
			  uint64_t flags, void *context);
int kfi_util_av_insertsym(struct kfid_av *av, const char *node,
			  size_t nodecnt, const char *service, size_t svccnt,
			  kfi_addr_t *kfi_addr, uint64_t flags, void *context);
int kfi_util_av_remove(struct kfid_av *av, kfi_addr_t *kfi_addr, size_t count,
		       uint64_t flags);
int kfi_util_av_lookup(struct kfid_av *av, kfi_addr_t kfi_addr, void *addr,
		       size_t *addrlen);
const char *kfi_util_av_straddr(struct kfid_av *av, const void *addr,
				char *buf, size_t *len);

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

/* Completion queues: the ops table and what it calls (kfi_util/cq.rs). */
void kfi_util_cq_init(struct kfid_cq *cq, void *context,
		      kfi_comp_handler handler);
bool kfi_util_is_cq(const struct kfid *fid);
int kfi_util_domain_cq_open(struct kfid_domain *domain,
			    struct kfi_cq_attr *attr, struct kfid_cq **cq,
			    kfi_comp_handler handler, void *context);
int kfi_util_cq_close(struct kfid *fid);
ssize_t kfi_util_cq_read(struct kfid_cq *cq, void *buf, size_t count);
ssize_t kfi_util_cq_readfrom(struct kfid_cq *cq, void *buf, size_t count,
			     kfi_addr_t *src_addr);
ssize_t kfi_util_cq_readerr(struct kfid_cq *cq, struct kfi_cq_err_entry *buf,
			    uint64_t flags);
ssize_t kfi_util_cq_sread(struct kfid_cq *cq, void *buf, size_t count,
			  const void *cond, int timeout);
ssize_t kfi_util_cq_sreadfrom(struct kfid_cq *cq, void *buf, size_t count,
			      kfi_addr_t *src_addr, const void *cond,
			      int timeout);
int kfi_util_cq_signal(struct kfid_cq *cq);
const char *kfi_util_cq_strerror(struct kfid_cq *cq, int prov_errno,
				 const void *err_data, char *buf, size_t len);

/* Network interfaces and namespaces (kfi_util_glue.c). */

/* Longest interface name, with its NUL (IFNAMSIZ). */
#define KFI_UTIL_IFNAMSIZ 16
/* At most this many addresses (IPv4 and IPv6) are listed by one kfi_getinfo. */
#define KFI_UTIL_MAX_IFACES 64

/**
 * struct kfi_util_iface - One address (IPv4 or IPv6) of a network interface.
 * @name: Interface name, NUL-terminated.
 * @index: Interface index (the scope id of its link-local addresses).
 * @family: AF_INET or AF_INET6.
 * @addr: Address, network byte order, as bytes (IPv4 in the first 4).
 * @prefix: Prefix length of its subnet.
 * @up: The interface is administratively up.
 */
struct kfi_util_iface {
	char name[KFI_UTIL_IFNAMSIZ];
	int index;
	unsigned short family;
	unsigned char addr[16];
	unsigned char prefix;
	bool up;
};

int kfi_util_ifaces(struct kfi_util_iface *out, int max);
void *kfi_util_get_net(void);
void kfi_util_put_net(void *net);
bool kfi_util_net_is_current(const void *net);

/**
 * struct kfi_util_addr - A socket address of either family, the toolkit's
 *	own form: converted from and to struct sockaddr_in/sockaddr_in6 by
 *	kfi_util_addr_decode() and kfi_util_addr_encode() only.
 * @family: AF_INET or AF_INET6.
 * @port: Port, host byte order.
 * @scope_id: IPv6 scope id (interface index of a link-local address), 0
 *	for none and for IPv4.
 * @addr: Address, network byte order; IPv4 in the first 4 bytes, the rest
 *	zero.
 */
struct kfi_util_addr {
	uint16_t family;
	uint16_t port;
	uint32_t scope_id;
	uint8_t addr[16];
};

/* Largest consumer address: struct sockaddr_in6 (checked at build time). */
#define KFI_UTIL_SOCKADDR_MAX 28

int kfi_util_addr_decode(const void *sa, size_t len, struct kfi_util_addr *out);
size_t kfi_util_addr_encode(const struct kfi_util_addr *a, void *out);
size_t kfi_util_addr_len(unsigned int family);

/*
 * NIC addresses (kfi_util/logic/nic.rs): the cxi provider's struct
 * kcxi_addr (include/kfi_cxi_ext.h), packed and unpacked here so that the
 * bit-field layout is the compiler's, as consumers see it.
 */
#define KFI_UTIL_CXI_ADDR_LEN 8
uint64_t kfi_util_cxi_addr(uint32_t nic, uint32_t pid);
void kfi_util_cxi_parts(uint64_t qw, uint32_t *nic, uint32_t *pid,
			uint32_t *flags);

/* Fabrics: the ops tables (kfi_util_glue.c) and what they call. */
void kfi_util_fabric_init(struct kfid_fabric *fabric, void *context);
bool kfi_util_is_fabric(const struct kfid_fabric *fabric);
int kfi_util_fabric_close(struct kfid *fid);

/**
 * kfi_prov_fabric_domain() - Open a domain on a fabric: the fabric ops
 *	table's domain entry, defined by the provider (kfi_tcp: domain.rs).
 * @fabric: One of the provider's fabrics (kfi_util/fabric.rs).
 * @info: The consumer's info (NULL or valid).
 * @dom: Where the new domain goes.
 * @context: The consumer's context.
 *
 * Context: Process context.
 * Return: 0, or a negative errno.
 */
int kfi_prov_fabric_domain(struct kfid_fabric *fabric, struct kfi_info *info,
			   struct kfid_domain **dom, void *context);

/**
 * kfi_prov_fabric_passive_ep() - Open a passive endpoint on a fabric: the
 *	fabric ops table's passive_ep entry, defined by the provider (kfi_tcp:
 *	pep.rs).
 * @fabric: One of the provider's fabrics (kfi_util/fabric.rs).
 * @info: The consumer's info.
 * @pep: Where the new passive endpoint goes.
 * @context: The consumer's context.
 *
 * Context: Process context.
 * Return: 0, or a negative errno.
 */
int kfi_prov_fabric_passive_ep(struct kfid_fabric *fabric,
			       struct kfi_info *info, struct kfid_pep **pep,
			       void *context);

/*
 * Domains: the provider's object, its header filled by the toolkit's ops
 * tables (kfi_util_glue.c), whose CQ, counter and control entries are the
 * toolkit's and whose close, bind and endpoint entries the provider's.
 */
void kfi_util_domain_init(struct kfid_domain *domain, void *context, bool mr);
bool kfi_util_is_domain(const struct kfid_domain *domain);

/**
 * kfi_util_domain_close() - Close a domain: the domain fid's close
 *	(kfi_util/fabric.rs), -EBUSY while a child is open.
 * @fid: One of the provider's domains.
 *
 * Context: Process context.
 * Return: 0, or a negative errno (-EBUSY while a child is open).
 */
int kfi_util_domain_close(struct kfid *fid);
int kfi_util_domain_query_atomic(struct kfid_domain *domain,
				 enum kfi_datatype datatype, enum kfi_op op,
				 struct kfi_atomic_attr *attr, uint64_t flags);

/**
 * kfi_util_domain_bind() - Bind an object to a domain: the domain fid's
 *	bind (kfi_util/mr.rs): an event queue with KFI_REG_MR, once.
 * @fid: One of the provider's domains.
 * @bfid: The object.
 * @flags: KFI_REG_MR.
 *
 * Context: Process context.
 * Return: 0, or -EINVAL.
 */
int kfi_util_domain_bind(struct kfid *fid, struct kfid *bfid, uint64_t flags);

/**
 * kfi_prov_domain_endpoint() - Open an active endpoint on a domain: the
 *	domain ops table's endpoint; defined by the provider.
 * @domain: One of the provider's domains.
 * @info: The consumer's info.
 * @ep: Where the new endpoint goes.
 * @context: The consumer's context.
 *
 * Context: Process context.
 * Return: 0, or a negative errno.
 */
int kfi_prov_domain_endpoint(struct kfid_domain *domain, struct kfi_info *info,
			     struct kfid_ep **ep, void *context);

/**
 * kfi_prov_domain_device() - The device a domain's consumers map memory
 *	for (the cxi extension's get_device, include/kfi_cxi_ext.h); defined
 *	by the provider.
 * @domain: One of the provider's domains.
 *
 * Context: Any.
 * Return: A device valid for the DMA API while the domain is open (its
 *	provider keeps it until its module unloads, which open domains
 *	prevent).
 */
struct device *kfi_prov_domain_device(struct kfid_domain *domain);

/*
 * The NIC address table (the provider's nic_map parameter,
 * kfi_util_glue.c): the text is read between lock and unlock, which
 * disable bottom halves and must not sleep in between;
 * kfi_util_nic_map_check() (kfi_util/addr.rs) says whether a text is a
 * table (0 or -EINVAL, -ENOSPC for one too long).
 */
#define KFI_UTIL_NIC_MAP_MAX 4096
const char *kfi_util_nic_map_lock_text(size_t *len);
void kfi_util_nic_map_unlock_text(void);
int kfi_util_nic_map_check(const char *text, size_t len);

/* A provider's direct-mapped device (kfi_util_glue.c). */
int kfi_util_dma_device_init(const char *name);
void kfi_util_dma_device_exit(void);
struct device *kfi_util_dma_device(void);

/*
 * Memory regions: the provider's object (embedding the toolkit's MrBase),
 * its header filled by the toolkit's ops tables (kfi_util_glue.c); the
 * domain's MR ops are the toolkit's when kfi_util_domain_init() is told the
 * provider registers memory. The entries below are kfi_util/mr.rs's.
 */
int kfi_util_mr_segs(const struct kfi_mr_attr *attr, struct kfi_util_seg *out);
void kfi_util_mr_init(struct kfid_mr *mr, void *context);
int kfi_util_mr_regattr(struct kfid *fid, const struct kfi_mr_attr *attr,
			uint64_t flags, struct kfid_mr **mr);
int kfi_util_mr_close(struct kfid *fid);
int kfi_util_mr_bind(struct kfid *fid, struct kfid *bfid, uint64_t flags);
int kfi_util_mr_control(struct kfid *fid, int command, void *arg);

/*
 * Endpoints: the provider's object (embedding the toolkit's EpBase), its
 * header filled by the toolkit's ops tables (kfi_util_glue.c) with the
 * provider's CM table; the entries below are kfi_util/ep.rs's.
 */
void kfi_util_ep_init(struct kfid_ep *ep, void *context,
		      struct kfi_ops_cm *cm);
bool kfi_util_is_ep(const struct kfid *fid);
void kfi_util_alias_init(struct kfid_ep *ep, void *context);
bool kfi_util_is_alias(const struct kfid *fid);
int kfi_util_ep_close(struct kfid *fid);
int kfi_util_ep_bind(struct kfid *fid, struct kfid *bfid, uint64_t flags);
int kfi_util_ep_control(struct kfid *fid, int command, void *arg);
ssize_t kfi_util_ep_cancel(struct kfid *fid, void *context);
int kfi_util_ep_getopt(struct kfid *fid, int level, int optname, void *optval,
		       size_t *optlen);
int kfi_util_ep_setopt(struct kfid *fid, int level, int optname,
		       const void *optval, size_t optlen);
int kfi_util_alias_close(struct kfid *fid);
ssize_t kfi_util_alias_cancel(struct kfid *fid, void *context);

/*
 * Scalable endpoints: the provider's object (embedding the toolkit's
 * SepBase), its header filled by the toolkit's ops tables (kfi_util_glue.c);
 * its contexts are the provider's endpoints with the context tables. The
 * entries below are kfi_util/sep.rs's.
 */
void kfi_util_sep_init(struct kfid_ep *sep, void *context);
void kfi_util_txc_init(struct kfid_ep *ep, void *context);
void kfi_util_rxc_init(struct kfid_ep *ep, void *context);
int kfi_util_domain_scalable_ep(struct kfid_domain *domain,
				struct kfi_info *info, struct kfid_ep **sep,
				void *context);
int kfi_util_sep_close(struct kfid *fid);
int kfi_util_sep_bind(struct kfid *fid, struct kfid *bfid, uint64_t flags);
int kfi_util_sep_control(struct kfid *fid, int command, void *arg);
int kfi_util_sep_getname(struct kfid *fid, void *addr, size_t *addrlen);
int kfi_util_sep_tx_ctx(struct kfid_ep *sep, int index,
			struct kfi_tx_attr *attr, struct kfid_ep **tx_ep,
			void *context);
int kfi_util_sep_rx_ctx(struct kfid_ep *sep, int index,
			struct kfi_rx_attr *attr, struct kfid_ep **rx_ep,
			void *context);

/*
 * Passive endpoints: the provider's object (embedding the toolkit's
 * PepBase), its header filled by the toolkit's ops tables
 * (kfi_util_glue.c); connection requests (info->handle of KFI_CONNREQ).
 * The entries below are kfi_util/pep.rs's.
 */
void kfi_util_pep_init(struct kfid_pep *pep, void *context);
void kfi_util_connreq_init(struct kfid *fid);
bool kfi_util_is_connreq(const struct kfid *fid);
int kfi_util_pep_close(struct kfid *fid);
int kfi_util_pep_bind(struct kfid *fid, struct kfid *bfid, uint64_t flags);
int kfi_util_pep_listen(struct kfid_pep *pep);
int kfi_util_pep_getname(struct kfid *fid, void *addr, size_t *addrlen);
int kfi_util_pep_reject(struct kfid_pep *pep, struct kfid *handle,
			const void *param, size_t paramlen);
int kfi_util_connreq_close(struct kfid *fid);

/*
 * Per-object statistics in debugfs (kfi_util_glue.c, kfi_util/stats.rs):
 * kfabric/<provider>/<domain>/{endpoints,cqs,cntrs,mr}. The provider's
 * directory lives from registration to deregistration; a domain's from
 * its open to its close (removed before the domain is freed: removal
 * waits for readers). kfi_util_stats_show() (Rust) writes one file's
 * text (file KFI_UTIL_STATS_*) into the struct seq_file @m with
 * kfi_util_seq_write().
 */
#define KFI_UTIL_STATS_EPS	0
#define KFI_UTIL_STATS_CQS	1
#define KFI_UTIL_STATS_CNTRS	2
#define KFI_UTIL_STATS_MR	3
void kfi_util_stats_init(const char *prov);
void kfi_util_stats_exit(void);
void *kfi_util_stats_domain(const char *name, size_t len, void *dom);
void kfi_util_stats_remove(void *dir);
void kfi_util_seq_write(void *m, const char *s, size_t len);
int kfi_util_stats_show(void *m, void *dom, unsigned int file);
size_t kfi_util_ep_addrs(struct kfid_ep *ep, char *buf, size_t len);

#endif
