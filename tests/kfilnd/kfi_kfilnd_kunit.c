// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite kfi_kfilnd: a consumer written only against the public
 * headers (include/), making the calls Lustre's kfilnd makes, with its
 * hints, flags and completion handling, over kfi_tcp on lo (and
 * kfi_kfilnd_verbs over kfi_verbs): discovery by interface name with the
 * network number as service, NIC addresses (struct kcxi_addr) for its NID
 * and its peers (kfi_av_insertsvc of "%#x" and "%u"), the cxi fabric and
 * domain ops (get_device, KFI_SGL buffers mapped for it).
 *
 * Two kfilnd generations are followed (see Documentation/testing.md):
 * - current kfilnd (lustre-release master, lnet/klnds/kfilnd/): its
 *   kfi_getinfo sequence (probe on a copy of the hints, kfi_open_ops of the
 *   cxi extension, fabric and domain reuse, final call) and its data-path
 *   flags (multi-receive buffers, KFI_AFFINITY CQs of the DATA format,
 *   zero-length tagged sends carrying a status as CQ data);
 * - the last kfilnd that registered memory (Cray/lustre d37fbcff5b): its
 *   hints, the EQ bound to the domain with KFI_REG_MR, 256-page
 *   kfi_mr_regbv registrations followed by kfi_mr_bind/kfi_mr_enable, and
 *   RMA into a peer's region.
 * kfilnd itself uses scalable endpoints addressed through an AV, with
 * tagged RMA for bulk data: kfilnd_sep_bulk does that (1 GiB of PUTs and
 * GETs, handlers draining CQs from work on every CPU), over kfi_tcp and,
 * in suite kfi_kfilnd_verbs, over kfi_verbs on an RDMA device. The MSG cases use
 * a connected pair instead, whose connection management calls are not
 * kfilnd's.
 *
 * kfilnd stops the kernel (LBUG) on any completion whose flags are not in
 * its list: every entry read here is checked against that list
 * (kfl_flags_ok), and any other combination fails the case.
 */
#include <kunit/test.h>
#include <linux/bvec.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/in.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <kfabric.h>
#include <kfi_cm.h>
#include <kfi_cxi_ext.h>
#include <kfi_domain.h>
#include <kfi_endpoint.h>
#include <kfi_eq.h>
#include <kfi_errno.h>
#include <kfi_rma.h>
#include <kfi_tagged.h>

/*
 * kfilnd's node is the NI's interface (ni_interface); its service the LNet
 * network number. The MSG cases name the interface's address instead
 * (their endpoints connect by socket address).
 */
#define KFL_NODE	"127.0.0.1"
#define KFL_IFNAME	"lo"
#define KFL_NIC		1	/* 127.0.0.1/8: its low 20 bits */
#define KFL_SERVICE	"0"
/* The CPU partitions kfilnd sizes its contexts and CQs by. */
#define KFL_NCPTS	2
/* LNET_MAX_IOV and LNET_MAX_PAYLOAD (LNET_MTU). */
#define KFL_MAX_IOV	256
#define KFL_MAX_PAYLOAD	(1 << 20)
/* The credits kfilnd sizes its queues and multi-receive buffers with
 * (a small value of the modparam, so that a few messages fill a buffer). */
#define KFL_CREDITS	4
#define KFL_CQ_SIZE	(KFL_CREDITS * 10)
#define KFL_MIN_MULTI_RECV 4096
#define KFL_EQ_SIZE	1024
#define KFL_WAIT	(5 * HZ)
#define KFL_LOG		32

/* The connectionless capabilities current kfilnd also asks for (the
 * connectionless issue), left out of its hints here. */
#define KFL_CAPS_CONNECTIONLESS (KFI_NAMED_RX_CTX | KFI_TAGGED_RMA | \
				 KFI_DIRECTED_RECV)
/* Current kfilnd's caps minus KFL_CAPS_CONNECTIONLESS. */
#define KFL_CAPS_CURRENT (KFI_MSG | KFI_RMA | KFI_SEND | KFI_RECV |	\
			  KFI_READ | KFI_WRITE | KFI_REMOTE_READ |	\
			  KFI_REMOTE_WRITE | KFI_MULTI_RECV |		\
			  KFI_REMOTE_COMM | KFI_TAGGED)
/*
 * The registering kfilnd (R) asks for KFL_CAPS_CURRENT plus
 * KFI_NAMED_RX_CTX (connectionless: left out as above); issue 20 lists
 * KFI_RMA_EVENT and mr_cnt 1024 for it as well, so they are asked too.
 */
#define KFL_CAPS_R	(KFL_CAPS_CURRENT | KFI_RMA_EVENT)

/* ------------------------------------------------------ completion flags */

/*
 * kfilnd's `switch (flags)` lists, one row per combination: an entry with
 * any other flags stops the kernel. Current kfilnd's entries (its
 * tagged RMA ones, initiator and target, included), plus the registering
 * kfilnd's RMA initiator entries (RMA|READ, RMA|WRITE), as libfabric
 * defines them. Every row is accepted
 * in an error entry; @success: also in a success entry (a plain tagged
 * receive only fails or is cancelled: its success carries CQ data).
 */
static const struct {
	uint64_t flags;
	bool success;
} kfl_flags[] = {
	{ KFI_MSG | KFI_RECV, true },
	{ KFI_MSG | KFI_RECV | KFI_MULTI_RECV, true },
	{ KFI_TAGGED | KFI_RECV | KFI_REMOTE_CQ_DATA, true },
	{ KFI_TAGGED | KFI_RMA | KFI_READ | KFI_RECV, true },
	{ KFI_TAGGED | KFI_RMA | KFI_WRITE | KFI_RECV, true },
	{ KFI_TAGGED | KFI_SEND, true },
	{ KFI_TAGGED | KFI_RMA | KFI_READ | KFI_SEND, true },
	{ KFI_TAGGED | KFI_RMA | KFI_WRITE | KFI_SEND, true },
	{ KFI_MSG | KFI_SEND, true },
	{ KFI_RMA | KFI_READ, true },
	{ KFI_RMA | KFI_WRITE, true },
	{ KFI_TAGGED | KFI_RECV, false },
};

static void kfl_check_flags(struct kunit *test, uint64_t flags, bool error)
{
	char text[160];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kfl_flags); i++)
		if (kfl_flags[i].flags == flags &&
		    (error || kfl_flags[i].success))
			return;
	if (!kfi_tostr_r(text, sizeof(text), &flags, KFI_TYPE_CQ_EVENT_FLAGS))
		strscpy(text, "?", sizeof(text));
	KUNIT_FAIL(test, "%s entry flags %#llx (%s): kfilnd would LBUG",
		   error ? "error" : "success", flags, text);
}

/* --------------------------------------------------------------- CQs */

/*
 * A CQ as kfilnd uses one: its handler only notes the call (kfilnd queues
 * work that drains the CQ); entries are read only after a handler call,
 * never by polling, so a missing call fails the case.
 */
struct kfl_cq {
	struct kfid_cq *cq;
	atomic_t calls;
	wait_queue_head_t wq;
	unsigned int n_ok, n_err;
	struct kfi_cq_data_entry ok[KFL_LOG];
	struct kfi_cq_err_entry err[KFL_LOG];
};

static void kfl_cq_handler(struct kfid_cq *cq, void *context)
{
	struct kfl_cq *k = context;

	atomic_inc(&k->calls);
	wake_up(&k->wq);
}

static void kfl_cq_open(struct kunit *test, struct kfid_domain *dom,
			struct kfl_cq *k)
{
	struct kfi_cq_attr attr = {
		.size = KFL_CQ_SIZE,
		.flags = KFI_AFFINITY,
		.format = KFI_CQ_FORMAT_DATA,
		.wait_obj = KFI_WAIT_NONE,
		.signaling_vector = cpumask_first(cpu_online_mask),
		.wait_cond = KFI_CQ_COND_NONE,
	};

	atomic_set(&k->calls, 0);
	init_waitqueue_head(&k->wq);
	KUNIT_ASSERT_EQ(test, kfi_cq_open(dom, &attr, &k->cq, kfl_cq_handler,
					  k), 0);
}

/*
 * kfilnd's CQ work: kfi_cq_read one entry at a time until -EAGAIN; on
 * -KFI_EAVAIL, kfi_cq_readerr(cq, &err, 0) while it returns 1. Every
 * entry's flags are checked and the entry logged.
 */
static void kfl_cq_drain(struct kunit *test, struct kfl_cq *k)
{
	struct kfi_cq_data_entry e;
	struct kfi_cq_err_entry err;
	ssize_t rc;

	for (;;) {
		rc = kfi_cq_read(k->cq, &e, 1);
		if (rc == 1) {
			kfl_check_flags(test, e.flags, false);
			KUNIT_ASSERT_LT(test, k->n_ok, (unsigned int)KFL_LOG);
			k->ok[k->n_ok++] = e;
			continue;
		}
		if (rc == -EAGAIN)
			return;
		KUNIT_ASSERT_EQ_MSG(test, rc, (ssize_t)-KFI_EAVAIL,
				    "kfi_cq_read returned %zd", rc);
		/* kfilnd's entry is not initialised: no err_data buffer */
		memset(&err, 0, sizeof(err));
		while (kfi_cq_readerr(k->cq, &err, 0) == 1) {
			kfl_check_flags(test, err.flags, true);
			KUNIT_ASSERT_LT(test, k->n_err, (unsigned int)KFL_LOG);
			k->err[k->n_err++] = err;
			memset(&err, 0, sizeof(err));
		}
	}
}

/*
 * Waits for exactly @n_ok more entries and @n_err more error entries,
 * draining after each handler call. Returns the index of the first new
 * success entry in k->ok (the first new error entry is at the old n_err).
 */
static unsigned int kfl_cq_expect(struct kunit *test, struct kfl_cq *k,
				  unsigned int n_ok, unsigned int n_err)
{
	unsigned int first = k->n_ok, ok = k->n_ok + n_ok,
		     err = k->n_err + n_err;
	int seen;

	for (;;) {
		seen = atomic_read(&k->calls);
		kfl_cq_drain(test, k);
		if (k->n_ok >= ok && k->n_err >= err)
			break;
		KUNIT_ASSERT_GT_MSG(test,
				    wait_event_timeout(k->wq,
						       atomic_read(&k->calls) != seen,
						       KFL_WAIT), 0L,
				    "no handler call: %u of %u entries, %u of %u errors",
				    k->n_ok, ok, k->n_err, err);
	}
	KUNIT_EXPECT_EQ(test, k->n_ok, ok);
	KUNIT_EXPECT_EQ(test, k->n_err, err);
	return first;
}

/* Nothing more arrived; the handler was called, never without entries. */
static void kfl_cq_expect_end(struct kunit *test, struct kfl_cq *k)
{
	unsigned int ok = k->n_ok, err = k->n_err;
	int calls;

	kfl_cq_drain(test, k);
	KUNIT_EXPECT_EQ(test, k->n_ok, ok);
	KUNIT_EXPECT_EQ(test, k->n_err, err);
	calls = atomic_read(&k->calls);
	KUNIT_EXPECT_LE(test, calls, (int)(ok + err));
	if (ok + err)
		KUNIT_EXPECT_GE(test, calls, 1);
}

/* -------------------------------------------------------------- pages */

/* KFL_MAX_IOV pages as one bio_vec each (an LNet kiov of 1 MiB). */
struct kfl_pages {
	struct page *pg[KFL_MAX_IOV];
	struct bio_vec bv[KFL_MAX_IOV];
};

static u8 kfl_pattern(u32 seed, size_t at)
{
	return (u8)(seed + at * 7 + (at >> 9));
}

static void kfl_fill(u8 *p, size_t n, u32 seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = kfl_pattern(seed, i);
}

/* Pages filled with the pattern of @seed over the whole 1 MiB, or with
 * @seed's low byte when @flat. */
static struct kfl_pages *kfl_pages_alloc(struct kunit *test,
					 struct kfl_pages **slot, u32 seed,
					 bool flat)
{
	struct kfl_pages *p = kzalloc(sizeof(*p), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	*slot = p;
	for (i = 0; i < KFL_MAX_IOV; i++) {
		u8 *a;
		size_t j;

		p->pg[i] = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p->pg[i]);
		a = page_address(p->pg[i]);
		for (j = 0; j < PAGE_SIZE; j++)
			a[j] = flat ? (u8)seed :
				      kfl_pattern(seed, i * PAGE_SIZE + j);
		bvec_set_page(&p->bv[i], p->pg[i], PAGE_SIZE, 0);
	}
	return p;
}

static void kfl_pages_free(struct kfl_pages *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; i < KFL_MAX_IOV; i++)
		if (p->pg[i])
			__free_page(p->pg[i]);
	kfree(p);
}

/* Page @i of @a against page @j of @b: the first differing byte, or -1. */
static long kfl_page_diff(const struct kfl_pages *a, int i,
			  const struct kfl_pages *b, int j)
{
	const u8 *x = page_address(a->pg[i]), *y = page_address(b->pg[j]);
	size_t k;

	for (k = 0; k < PAGE_SIZE; k++)
		if (x[k] != y[k])
			return k;
	return -1;
}

static void kfl_expect_pages(struct kunit *test, const struct kfl_pages *a,
			     const struct kfl_pages *b, bool reversed)
{
	int i, j;
	long d;

	for (i = 0; i < KFL_MAX_IOV; i++) {
		j = reversed ? KFL_MAX_IOV - 1 - i : i;
		d = kfl_page_diff(a, i, b, j);
		KUNIT_EXPECT_EQ_MSG(test, d, -1L, "page %d differs at byte %ld",
				    i, d);
		if (d != -1)
			return;
	}
}

/* ------------------------------------------------------------ fixture */

/* One registration of the registering kfilnd's transactions. */
struct kfl_tn {
	u64 key;
	int id;
};

/*
 * Everything a case opens, closed by kfl_cleanup() (also when an
 * assertion ends the case early) in kfilnd's order: memory regions,
 * endpoints, CQs, domain, EQs, fabrics, then the infos and hints.
 */
struct kfl {
	u32 auth_key;		/* kfilnd's lnd_auth_key */
	struct kfi_info *hints, *hints_tmp, *info_tmp, *reuse, *info, *info2;
	struct kfid_fabric *fab, *probe_fab;
	struct kfid_domain *dom;
	struct kfid_eq *eq, *ceq;
	atomic_t eq_calls;
	wait_queue_head_t eq_wq;
	struct kfid_pep *pep;
	struct kfid_ep *ep, *cep;	/* server (or only) and client */
	struct kfl_cq cq[4];
	struct kfid_mr *mr[2];
	struct kfl_pages *pages[6];
	void *buf[8];
	struct kfi_rma_iov *riov;
	/* kfilnd's discovery: node = the interface, service = net number */
	bool by_if;
	char svc[8];
};

/* Client transmit/receive, server transmit/receive CQs. */
enum { KFL_CTX, KFL_CRX, KFL_STX, KFL_SRX };

/* kfilnd clears the hints' auth_key (LNet's memory) before freeing them. */
static void kfl_free_hints(struct kfi_info **hints)
{
	if (*hints) {
		(*hints)->ep_attr->auth_key = NULL;
		(*hints)->ep_attr->auth_key_size = 0;
		kfi_freeinfo(*hints);
	}
	*hints = NULL;
}

/* The header of an object that may not be open. */
#define KFL_FID(obj) ((obj) ? &(obj)->fid : NULL)

/* Closes @fid if open; with @test, the close must succeed. */
static void kfl_fid_close(struct kunit *test, struct kfid *fid)
{
	int rc;

	if (!fid)
		return;
	rc = kfi_close(fid);
	if (test)
		KUNIT_EXPECT_EQ(test, rc, 0);
}

/*
 * Closes every open object in kfilnd's order; with @test (the end of a
 * case) each close must return 0, without it (kfl_cleanup after a failed
 * assertion) the results are ignored.
 */
static void kfl_teardown(struct kunit *test, struct kfl *f)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(f->mr); i++) {
		kfl_fid_close(test, KFL_FID(f->mr[i]));
		f->mr[i] = NULL;
	}
	kfl_fid_close(test, KFL_FID(f->cep));
	f->cep = NULL;
	kfl_fid_close(test, KFL_FID(f->ep));
	f->ep = NULL;
	kfl_fid_close(test, KFL_FID(f->pep));
	f->pep = NULL;
	for (i = 0; i < ARRAY_SIZE(f->cq); i++) {
		kfl_fid_close(test, KFL_FID(f->cq[i].cq));
		f->cq[i].cq = NULL;
	}
	kfl_fid_close(test, KFL_FID(f->dom));
	f->dom = NULL;
	kfl_fid_close(test, KFL_FID(f->eq));
	f->eq = NULL;
	kfl_fid_close(test, KFL_FID(f->ceq));
	f->ceq = NULL;
	kfl_fid_close(test, KFL_FID(f->fab));
	f->fab = NULL;
	kfl_fid_close(test, KFL_FID(f->probe_fab));
	f->probe_fab = NULL;
}

static void kfl_cleanup(void *arg)
{
	struct kfl *f = arg;
	int i;

	kfl_teardown(NULL, f);
	kfi_freeinfo(f->info_tmp);
	kfi_freeinfo(f->reuse);
	kfi_freeinfo(f->info);
	kfi_freeinfo(f->info2);
	kfi_freeinfo(f->hints_tmp);
	kfl_free_hints(&f->hints);
	for (i = 0; i < ARRAY_SIZE(f->pages); i++)
		kfl_pages_free(f->pages[i]);
	for (i = 0; i < ARRAY_SIZE(f->buf); i++)
		kfree(f->buf[i]);
	kfree(f->riov);
}

static struct kfl *kfl_new(struct kunit *test)
{
	struct kfl *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->auth_key = 255;
	atomic_set(&f->eq_calls, 0);
	init_waitqueue_head(&f->eq_wq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kfl_cleanup, f),
			0);
	return f;
}

static void *kfl_buf(struct kunit *test, struct kfl *f, int slot, size_t len)
{
	f->buf[slot] = kzalloc(len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->buf[slot]);
	return f->buf[slot];
}

/* -------------------------------------------------------------- hints */

enum kfl_gen {
	KFL_CURRENT,	/* lustre-release master */
	KFL_R,		/* the last kfilnd registering memory */
};

/* The hints of kfilnd generation @gen, in f->hints. */
static void kfl_hints(struct kunit *test, struct kfl *f, enum kfl_gen gen)
{
	struct kfi_info *h = kfi_allocinfo();

	KUNIT_ASSERT_NOT_NULL(test, h);
	f->hints = h;
	h->caps = gen == KFL_CURRENT ? KFL_CAPS_CURRENT : KFL_CAPS_R;
	h->domain_attr->mr_iov_limit = KFL_MAX_IOV;
	h->domain_attr->mr_key_size = sizeof(int);
	h->domain_attr->resource_mgmt = KFI_RM_DISABLED;
	h->ep_attr->max_msg_size = KFL_MAX_PAYLOAD;
	h->rx_attr->op_flags = KFI_COMPLETION | KFI_MULTI_RECV;
	h->rx_attr->iov_limit = KFL_MAX_IOV;
	h->tx_attr->op_flags = KFI_COMPLETION;
	h->tx_attr->iov_limit = KFL_MAX_IOV;
	h->tx_attr->rma_iov_limit = KFL_MAX_IOV;
	if (gen == KFL_R) {
		h->domain_attr->mr_cnt = 1024;
		return;
	}
	h->fabric_attr->prov_version = KFI_VERSION(1, 0);
	h->domain_attr->tclass = KFI_TC_BEST_EFFORT;
	h->tx_attr->tclass = KFI_TC_BEST_EFFORT;
	h->ep_attr->auth_key = (u8 *)&f->auth_key;
	h->ep_attr->auth_key_size = sizeof(f->auth_key);
}

/*
 * The node and provider the suite runs on: kfi_kfilnd the loopback
 * address (kfi_tcp); kfi_kfilnd_verbs the RDMA device's (verbs_node),
 * asking for the verbs provider by name (kfi_tcp serves that address
 * too).
 */
static const char *kfl_node = KFL_NODE;
static const char *kfl_ifname = KFL_IFNAME;
static int kfl_nic = KFL_NIC;
static const char *kfl_prov;
/* MiB kfilnd_sep_bulk moves over kfi_tcp (0: KSB_BYTES) */
static unsigned int kfl_bulk_mib;
/*
 * The capabilities an answer to kfilnd's hints lacks: over kfi_verbs the
 * RMA-target ones (its memory regions take the device's keys,
 * KFI_MR_PROV_KEY, and kfilnd's mr_mode is 0: libfabric's rule drops
 * REMOTE_READ|REMOTE_WRITE). kfilnd registers no memory and does not look
 * at the answer's caps; its tagged RMA needs none of them.
 */
static u64 kfl_caps_lost;

static char *verbs_node;
module_param(verbs_node, charp, 0444);
MODULE_PARM_DESC(verbs_node, "Address of the RDMA device kfi_kfilnd_verbs uses");
static char *verbs_if;
module_param(verbs_if, charp, 0444);
MODULE_PARM_DESC(verbs_if, "Network device of that RDMA device");
static int verbs_nic = -1;
module_param(verbs_nic, int, 0444);
MODULE_PARM_DESC(verbs_nic, "NIC address of verbs_if's address (-1: not checked)");
/*
 * The MiB kfi_kfilnd_verbs moves: 1024, fewer on the debug kernel, where
 * rxe's packet processing falls behind its senders under KASAN and its
 * queued skbs exhaust the guest's memory within ~300 MiB.
 */
static unsigned int verbs_mib = 1024;
module_param(verbs_mib, uint, 0444);
MODULE_PARM_DESC(verbs_mib, "MiB kfi_kfilnd_verbs moves (1024)");

static int kfl_getinfo(struct kfl *f, struct kfi_info *hints,
		       struct kfi_info **info)
{
	if (kfl_prov && hints && !hints->fabric_attr->prov_name) {
		hints->fabric_attr->prov_name = kstrdup(kfl_prov, GFP_KERNEL);
		if (!hints->fabric_attr->prov_name)
			return -ENOMEM;
	}
	if (f->by_if)
		return kfi_getinfo(0, kfl_ifname, f->svc, KFI_SOURCE, hints,
				   info);
	return kfi_getinfo(0, kfl_node, KFL_SERVICE, KFI_SOURCE, hints, info);
}

/*
 * kfilnd_dev_alloc's address: an 8-byte struct kcxi_addr whose nic becomes
 * the NID, pid the network number (the service).
 */
static void kfl_check_cxi(struct kunit *test, struct kfl *f,
			  const struct kfi_info *i)
{
	const struct kcxi_addr *a = i->src_addr;
	unsigned int net;

	KUNIT_EXPECT_EQ(test, i->addr_format, (u32)KFI_ADDR_CXI);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_EQ(test, i->src_addrlen, sizeof(struct kcxi_addr));
	KUNIT_EXPECT_NULL(test, i->dest_addr);
	if (kfl_nic >= 0)
		KUNIT_EXPECT_EQ(test, (int)a->nic, kfl_nic);
	KUNIT_ASSERT_EQ(test, kstrtouint(f->svc, 10, &net), 0);
	KUNIT_EXPECT_EQ(test, (unsigned int)a->pid, net);
	KUNIT_EXPECT_EQ(test, (unsigned int)a->flags, 0U);
}

/*
 * What kfilnd relies on in an answer to its hints @h (no endpoint type):
 * the node names one interface, whose MSG entry comes first (kfilnd
 * takes the first), then its RDM entry; the first meets every limit, with
 * the op flags, traffic classes and a copy of the auth key carried over.
 */
static void kfl_check_info(struct kunit *test, struct kfl *f,
			   const struct kfi_info *i, const struct kfi_info *h)
{
	const struct sockaddr_in *sin = i->src_addr;

	if (f->by_if) {
		/* NIC addresses name AV endpoints: the RDM entry only */
		KUNIT_EXPECT_NULL(test, i->next);
		KUNIT_EXPECT_EQ(test, i->ep_attr->type, KFI_EP_RDM);
		KUNIT_EXPECT_GE(test, i->domain_attr->max_ep_tx_ctx,
				(size_t)KFL_NCPTS);
		KUNIT_EXPECT_GE(test, i->domain_attr->cq_cnt,
				(size_t)KFL_NCPTS * 2);
	} else {
		KUNIT_ASSERT_NOT_NULL(test, i->next);
		KUNIT_EXPECT_EQ(test, i->next->ep_attr->type, KFI_EP_RDM);
		KUNIT_EXPECT_NULL(test, i->next->next);
		KUNIT_EXPECT_EQ(test, i->ep_attr->type, KFI_EP_MSG);
	}
	KUNIT_EXPECT_EQ(test, i->caps & h->caps, h->caps & ~kfl_caps_lost);
	KUNIT_EXPECT_EQ(test, i->rx_attr->op_flags, h->rx_attr->op_flags);
	KUNIT_EXPECT_EQ(test, i->tx_attr->op_flags, h->tx_attr->op_flags);
	KUNIT_EXPECT_GE(test, i->rx_attr->iov_limit, (size_t)KFL_MAX_IOV);
	KUNIT_EXPECT_GE(test, i->tx_attr->iov_limit, (size_t)KFL_MAX_IOV);
	KUNIT_EXPECT_GE(test, i->tx_attr->rma_iov_limit, (size_t)KFL_MAX_IOV);
	KUNIT_EXPECT_GE(test, i->domain_attr->mr_iov_limit,
			(size_t)KFL_MAX_IOV);
	KUNIT_EXPECT_GE(test, i->domain_attr->mr_key_size, sizeof(int));
	KUNIT_EXPECT_GE(test, i->domain_attr->mr_cnt, h->domain_attr->mr_cnt);
	KUNIT_EXPECT_GE(test, i->ep_attr->max_msg_size,
			(size_t)KFL_MAX_PAYLOAD);
	KUNIT_EXPECT_GE(test, i->fabric_attr->prov_version,
			h->fabric_attr->prov_version);
	KUNIT_EXPECT_EQ(test, i->domain_attr->tclass, h->domain_attr->tclass);
	KUNIT_EXPECT_EQ(test, i->tx_attr->tclass, h->tx_attr->tclass);
	/* the source address: the node and service given */
	if (f->by_if) {
		kfl_check_cxi(test, f, i);
	} else {
		KUNIT_ASSERT_NOT_NULL(test, sin);
		KUNIT_EXPECT_EQ(test, i->src_addrlen, sizeof(*sin));
		KUNIT_EXPECT_EQ(test, sin->sin_family, (sa_family_t)AF_INET);
		KUNIT_EXPECT_EQ(test, sin->sin_addr.s_addr,
				htonl(INADDR_LOOPBACK));
		KUNIT_EXPECT_EQ(test, sin->sin_port, htons(0));
	}
	if (!h->ep_attr->auth_key)
		return;
	/* a copy (kfi_freeinfo frees it), the same bytes */
	KUNIT_ASSERT_NOT_NULL(test, i->ep_attr->auth_key);
	KUNIT_EXPECT_PTR_NE(test, i->ep_attr->auth_key, h->ep_attr->auth_key);
	KUNIT_EXPECT_EQ(test, i->ep_attr->auth_key_size,
			h->ep_attr->auth_key_size);
	KUNIT_EXPECT_EQ(test, memcmp(i->ep_attr->auth_key,
				     h->ep_attr->auth_key,
				     h->ep_attr->auth_key_size), 0);
}

/*
 * kfilnd's kfi_open_ops(fabric, KFI_CXI_FAB_OPS_1): the cxi fabric ops,
 * whose enable_dynamic_rsrc_alloc succeeds (domains take their sizes from
 * the info); an unknown name is -KFI_ENOSYS.
 */
static void kfl_fab_ops(struct kunit *test, struct kfid_fabric *fab)
{
	struct kfi_cxi_fabric_ops *ops = NULL;
	void *none = NULL;

	KUNIT_ASSERT_EQ(test, kfi_open_ops(&fab->fid, KFI_CXI_FAB_OPS_1, 0,
					   (void **)&ops, NULL), 0);
	KUNIT_ASSERT_NOT_NULL(test, ops);
	KUNIT_EXPECT_EQ(test, ops->enable_dynamic_rsrc_alloc(&fab->fid, true),
			0);
	KUNIT_EXPECT_EQ(test, kfi_open_ops(&fab->fid, "cxi_fab_ops_v9", 0,
					   &none, NULL), -KFI_ENOSYS);
	KUNIT_EXPECT_NULL(test, none);
}

/*
 * Current kfilnd's probe: getinfo on a kfi_dupinfo copy of the hints,
 * kfi_fabric on the answer, the cxi fabric ops opened (then kfilnd sizes
 * its hints for KFL_NCPTS partitions: dynamic resource allocation), then
 * all of it dropped.
 */
static void kfl_probe(struct kunit *test, struct kfl *f)
{
	f->hints_tmp = kfi_dupinfo(f->hints);
	KUNIT_ASSERT_NOT_NULL(test, f->hints_tmp);
	if (f->hints_tmp->ep_attr->auth_key == f->hints->ep_attr->auth_key) {
		/* not a copy: kfi_freeinfo would free LNet's key */
		f->hints_tmp->ep_attr->auth_key = NULL;
		KUNIT_FAIL(test, "kfi_dupinfo shared the auth_key");
	}
	KUNIT_ASSERT_EQ(test, kfl_getinfo(f, f->hints_tmp, &f->info_tmp), 0);
	kfl_check_info(test, f, f->info_tmp, f->hints_tmp);
	KUNIT_ASSERT_EQ(test, kfi_fabric(f->info_tmp->fabric_attr,
					 &f->probe_fab, NULL), 0);
	kfl_fab_ops(test, f->probe_fab);
	if (f->by_if) {
		/* kfilnd_dom_get: the dynamic resource hints */
		f->hints->domain_attr->cq_cnt = KFL_NCPTS * 2;
		f->hints->domain_attr->tx_ctx_cnt = KFL_NCPTS;
		f->hints->domain_attr->rx_ctx_cnt = KFL_NCPTS;
		f->hints->rx_attr->size = KFL_CREDITS + 4;
	}
	KUNIT_EXPECT_EQ(test, kfi_close(&f->probe_fab->fid), 0);
	f->probe_fab = NULL;
	kfi_freeinfo(f->info_tmp);
	f->info_tmp = NULL;
	kfi_freeinfo(f->hints_tmp);
	f->hints_tmp = NULL;
}

/*
 * kfilnd_dom_get() for an NI on 127.0.0.1: the probe (current kfilnd),
 * then, with f->fab/f->dom open from an earlier NI, the fabric and domain
 * reuse calls, then the final call, whose answer lands in *@info. Without
 * an open fabric, opens it and its domain from the answer. Returns the
 * number of kfi_getinfo calls made.
 */
static int kfl_dom_get(struct kunit *test, struct kfl *f, enum kfl_gen gen,
		       struct kfi_info **info)
{
	struct kfi_info *e;
	int calls = 0;

	kfl_hints(test, f, gen);
	if (gen == KFL_CURRENT) {
		kfl_probe(test, f);
		calls++;
	}
	if (f->fab) {
		/* fabric reuse: the first fabric answering 0 is taken */
		f->hints->fabric_attr->fabric = f->fab;
		KUNIT_ASSERT_EQ(test, kfl_getinfo(f, f->hints, &f->reuse), 0);
		calls++;
		for (e = f->reuse; e; e = e->next)
			KUNIT_EXPECT_PTR_EQ(test, e->fabric_attr->fabric,
					    f->fab);
		kfi_freeinfo(f->reuse);
		f->reuse = NULL;
		/* domain reuse, on that fabric */
		f->hints->domain_attr->domain = f->dom;
		KUNIT_ASSERT_EQ(test, kfl_getinfo(f, f->hints, &f->reuse), 0);
		calls++;
		for (e = f->reuse; e; e = e->next) {
			KUNIT_EXPECT_PTR_EQ(test, e->fabric_attr->fabric,
					    f->fab);
			KUNIT_EXPECT_PTR_EQ(test, e->domain_attr->domain,
					    f->dom);
		}
		kfi_freeinfo(f->reuse);
		f->reuse = NULL;
	}
	/* final call, with the reused fabric and domain in the hints */
	KUNIT_ASSERT_EQ(test, kfl_getinfo(f, f->hints, info), 0);
	calls++;
	kfl_check_info(test, f, *info, f->hints);
	KUNIT_EXPECT_PTR_EQ(test, (*info)->fabric_attr->fabric, f->fab);
	KUNIT_EXPECT_PTR_EQ(test, (*info)->domain_attr->domain, f->dom);
	kfl_free_hints(&f->hints);
	if (f->fab)
		return calls;
	KUNIT_ASSERT_EQ(test, kfi_fabric((*info)->fabric_attr, &f->fab, NULL),
			0);
	if (gen == KFL_CURRENT)
		/* dynamic resource allocation, before the domain */
		kfl_fab_ops(test, f->fab);
	KUNIT_ASSERT_EQ(test, kfi_domain(f->fab, *info, &f->dom, f), 0);
	return calls;
}

/*
 * Current kfilnd's hints (minus the connectionless caps) and its getinfo
 * sequence, for a first NI (probe, final: 2 calls; a fabric and domain
 * opened) and a second one on the same interface (probe, fabric reuse,
 * domain reuse, final: 4 calls, answered with the open handles): by
 * socket address, then as kfilnd names it, by interface (NIC addresses,
 * network numbers 0 and 1).
 */
static void kfilnd_getinfo_sequence_current(struct kunit *test)
{
	struct kfl *f = kfl_new(test);

	KUNIT_EXPECT_EQ(test, kfl_dom_get(test, f, KFL_CURRENT, &f->info), 2);
	KUNIT_EXPECT_EQ(test, kfl_dom_get(test, f, KFL_CURRENT, &f->info2), 4);
	kfl_teardown(test, f);

	f = kfl_new(test);
	f->by_if = true;
	strscpy(f->svc, "0", sizeof(f->svc));
	KUNIT_EXPECT_EQ(test, kfl_dom_get(test, f, KFL_CURRENT, &f->info), 2);
	strscpy(f->svc, "1", sizeof(f->svc));
	KUNIT_EXPECT_EQ(test, kfl_dom_get(test, f, KFL_CURRENT, &f->info2), 4);
	kfl_teardown(test, f);
}

/* The registering kfilnd's hints and sequence: no probe (1, then 3 calls). */
static void kfilnd_getinfo_sequence_r(struct kunit *test)
{
	struct kfl *f = kfl_new(test);

	KUNIT_EXPECT_EQ(test, kfl_dom_get(test, f, KFL_R, &f->info), 1);
	KUNIT_EXPECT_EQ(test, kfl_dom_get(test, f, KFL_R, &f->info2), 3);
	kfl_teardown(test, f);
}

/* ------------------------------------------------------------------ MR */

static void kfl_eq_handler(struct kfid_eq *eq, void *context)
{
	struct kfl *f = context;

	atomic_inc(&f->eq_calls);
	wake_up(&f->eq_wq);
}

/*
 * kfilnd's EQ work for one registration: after a handler call,
 * kfi_eq_read until -EAGAIN; the event must be KFI_MR_COMPLETE (anything
 * else is an LBUG), its context the registration's, its fid the region's.
 * Error entries (kfi_eq_readerr) fail the case.
 */
static void kfl_eq_expect_mr(struct kunit *test, struct kfl *f,
			     struct kfid_mr *mr, struct kfl_tn *tn)
{
	struct kfi_eq_err_entry err;
	struct kfi_eq_entry ev;
	unsigned int got = 0;
	uint32_t type;
	ssize_t rc;
	int seen;

	for (;;) {
		seen = atomic_read(&f->eq_calls);
		for (;;) {
			memset(&ev, 0, sizeof(ev));
			rc = kfi_eq_read(f->eq, &type, &ev, sizeof(ev), 0);
			if (rc == -EAGAIN)
				break;
			if (rc == -KFI_EAVAIL) {
				memset(&err, 0, sizeof(err));
				while (kfi_eq_readerr(f->eq, &err, 0) > 0)
					KUNIT_FAIL(test, "EQ error entry: err %d context %p",
						   err.err, err.context);
				continue;
			}
			KUNIT_ASSERT_EQ(test, rc, (ssize_t)sizeof(ev));
			KUNIT_EXPECT_EQ(test, type, (uint32_t)KFI_MR_COMPLETE);
			KUNIT_EXPECT_PTR_EQ(test, ev.context, (void *)tn);
			KUNIT_EXPECT_PTR_EQ(test, ev.fid, &mr->fid);
			got++;
		}
		if (got)
			break;
		KUNIT_ASSERT_GT_MSG(test,
				    wait_event_timeout(f->eq_wq,
						       atomic_read(&f->eq_calls) != seen,
						       KFL_WAIT), 0L,
				    "no EQ handler call for key %llu", tn->key);
	}
	KUNIT_EXPECT_EQ(test, got, 1U);
}

/*
 * The registering kfilnd's memory registration: an EQ of 1024 entries on
 * the fabric (otherwise zeroed attributes) bound to the domain with
 * KFI_REG_MR; per bulk transaction kfi_mr_regbv of 256 pages (one page a
 * bio_vec) with KFI_REMOTE_WRITE (a sink) or KFI_REMOTE_READ (a source),
 * offset 0, keys from 1 up, flags 0, the transaction as context; then,
 * without waiting, kfi_mr_bind to the endpoint and kfi_mr_enable; the
 * KFI_MR_COMPLETE event read from the EQ. Closed in kfilnd's order.
 */
static void kfilnd_r_memory_registration(struct kunit *test)
{
	struct kfl *f = kfl_new(test);
	struct kfi_eq_attr eq_attr = {};
	struct kfl_pages *p;
	struct kfl_tn tn[2];
	int i;

	kfl_dom_get(test, f, KFL_R, &f->info);
	eq_attr.size = KFL_EQ_SIZE;
	KUNIT_ASSERT_EQ(test, kfi_eq_open(f->fab, &eq_attr, &f->eq,
					  kfl_eq_handler, f), 0);
	KUNIT_ASSERT_EQ(test, kfi_domain_bind(f->dom, &f->eq->fid, KFI_REG_MR),
			0);
	/* the endpoint the regions are bound to, with its CQs, enabled */
	kfl_cq_open(test, f->dom, &f->cq[KFL_STX]);
	kfl_cq_open(test, f->dom, &f->cq[KFL_SRX]);
	KUNIT_ASSERT_EQ(test, kfi_endpoint(f->dom, f->info, &f->ep, f), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(f->ep, &f->eq->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(f->ep, &f->cq[KFL_STX].cq->fid,
					  KFI_TRANSMIT), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(f->ep, &f->cq[KFL_SRX].cq->fid,
					  KFI_RECV), 0);
	KUNIT_ASSERT_EQ(test, kfi_enable(f->ep), 0);

	p = kfl_pages_alloc(test, &f->pages[0], 1, false);
	for (i = 0; i < 2; i++) {
		struct kfid_mr *mr;

		tn[i].id = i;
		tn[i].key = i + 1;
		KUNIT_ASSERT_EQ(test, kfi_mr_regbv(f->dom, p->bv, KFL_MAX_IOV,
						   i ? KFI_REMOTE_READ :
						       KFI_REMOTE_WRITE,
						   0, tn[i].key, 0, &f->mr[i],
						   &tn[i]), 0);
		mr = f->mr[i];
		KUNIT_ASSERT_NOT_NULL(test, mr);
		KUNIT_EXPECT_EQ(test, kfi_mr_key(mr), tn[i].key);
		KUNIT_EXPECT_EQ(test, kfi_mr_bind(mr, &f->ep->fid, 0), 0);
		KUNIT_EXPECT_EQ(test, kfi_mr_enable(mr), 0);
		kfl_eq_expect_mr(test, f, mr, &tn[i]);
	}
	/* one handler call per event (the EQ was drained in between) */
	KUNIT_EXPECT_EQ(test, atomic_read(&f->eq_calls), 2);

	kfl_cq_expect_end(test, &f->cq[KFL_STX]);
	kfl_cq_expect_end(test, &f->cq[KFL_SRX]);
	kfl_teardown(test, f);
}

/* ----------------------------------------------------------- data path */

/* Room for a CM entry and its data. */
struct kfl_cm_event {
	struct kfi_eq_cm_entry e;
	u8 data[256];
};

static int kfl_cm_wait(struct kfid_eq *eq, struct kfl_cm_event *ev)
{
	uint32_t type = ~0U;
	ssize_t rc;

	memset(ev, 0, sizeof(*ev));
	rc = kfi_eq_sread(eq, &type, ev, sizeof(*ev), 5000, 0);
	return rc < 0 ? (int)rc : (int)type;
}

static void kfl_ep_setup(struct kunit *test, struct kfl *f,
			 struct kfid_ep *ep, struct kfid_eq *eq,
			 struct kfl_cq *tx, uint64_t tx_flags, struct kfl_cq *rx)
{
	size_t min = KFL_MIN_MULTI_RECV;

	KUNIT_ASSERT_EQ(test, kfi_setopt(&ep->fid, KFI_OPT_ENDPOINT,
					 KFI_OPT_MIN_MULTI_RECV, &min,
					 sizeof(min)), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(ep, &eq->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(ep, &tx->cq->fid,
					  KFI_TRANSMIT | tx_flags), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(ep, &rx->cq->fid, KFI_RECV), 0);
	KUNIT_ASSERT_EQ(test, kfi_enable(ep), 0);
}

/*
 * A connected pair on 127.0.0.1 opened from the answer to current
 * kfilnd's hints: client f->cep, server f->ep (from the connection
 * request, whose info must carry the same default op flags). Four CQs as
 * kfilnd opens them; the server's transmit CQ is bound with
 * KFI_SELECTIVE_COMPLETION.
 */
static void kfl_pair(struct kunit *test, struct kfl *f)
{
	struct kfl_cm_event ev;
	struct sockaddr_in paddr;
	struct kfi_info *req;
	size_t len = sizeof(paddr);
	struct kfi_eq_attr eq_attr = { .size = 64,
				       .wait_obj = KFI_WAIT_UNSPEC };
	int i, rc;

	kfl_dom_get(test, f, KFL_CURRENT, &f->info);
	KUNIT_ASSERT_EQ(test, kfi_eq_open(f->fab, &eq_attr, &f->eq, NULL,
					  NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_eq_open(f->fab, &eq_attr, &f->ceq, NULL,
					  NULL), 0);
	for (i = 0; i < ARRAY_SIZE(f->cq); i++)
		kfl_cq_open(test, f->dom, &f->cq[i]);
	KUNIT_ASSERT_EQ(test, kfi_passive_ep(f->fab, f->info, &f->pep, NULL),
			0);
	KUNIT_ASSERT_EQ(test, kfi_pep_bind(f->pep, &f->eq->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, kfi_listen(f->pep), 0);
	KUNIT_ASSERT_EQ(test, kfi_getname(&f->pep->fid, &paddr, &len), 0);

	KUNIT_ASSERT_EQ(test, kfi_endpoint(f->dom, f->info, &f->cep, f), 0);
	kfl_ep_setup(test, f, f->cep, f->ceq, &f->cq[KFL_CTX], 0,
		     &f->cq[KFL_CRX]);
	KUNIT_ASSERT_EQ(test, kfi_connect(f->cep, &paddr, NULL, 0), 0);

	KUNIT_ASSERT_EQ(test, kfl_cm_wait(f->eq, &ev), KFI_CONNREQ);
	req = ev.e.info;
	KUNIT_ASSERT_NOT_NULL(test, req);
	KUNIT_EXPECT_EQ(test, req->rx_attr->op_flags,
			KFI_COMPLETION | KFI_MULTI_RECV);
	KUNIT_EXPECT_EQ(test, req->tx_attr->op_flags, KFI_COMPLETION);
	/* whatever the request carried, the server runs with kfilnd's */
	req->rx_attr->op_flags = f->info->rx_attr->op_flags;
	req->tx_attr->op_flags = f->info->tx_attr->op_flags;
	rc = kfi_endpoint(f->dom, req, &f->ep, f);
	kfi_freeinfo(req);
	KUNIT_ASSERT_EQ(test, rc, 0);
	kfl_ep_setup(test, f, f->ep, f->eq, &f->cq[KFL_STX],
		     KFI_SELECTIVE_COMPLETION, &f->cq[KFL_SRX]);
	KUNIT_ASSERT_EQ(test, kfi_accept(f->ep, NULL, 0), 0);
	KUNIT_ASSERT_EQ(test, kfl_cm_wait(f->ceq, &ev), KFI_CONNECTED);
	KUNIT_ASSERT_EQ(test, kfl_cm_wait(f->eq, &ev), KFI_CONNECTED);
}

static void kfl_expect_entry(struct kunit *test,
			     const struct kfi_cq_data_entry *e, void *context,
			     uint64_t flags, size_t len)
{
	KUNIT_EXPECT_PTR_EQ(test, e->op_context, context);
	KUNIT_EXPECT_EQ(test, e->flags, flags);
	if (flags & KFI_RECV)
		KUNIT_EXPECT_EQ(test, e->len, len);
}

/*
 * Multi-receive buffers as kfilnd posts them (kfi_recv with the
 * endpoint's default op flags COMPLETION|MULTI_RECV, the buffer as
 * context, KFI_ADDR_UNSPEC) filled by kfi_send of up to 4096 bytes: each
 * entry names the buffer and where the message landed; the message that
 * leaves less than KFI_OPT_MIN_MULTI_RECV releases the buffer
 * (MSG|RECV|MULTI_RECV), the next goes to the next buffer; kfilnd's
 * shutdown cancel of a buffer is its ECANCELED MSG|RECV|MULTI_RECV entry.
 */
static void kfl_multi_recv(struct kunit *test, struct kfl *f)
{
	static const size_t lens[] = { 4096, 4096, 4096, 100, 4096 };
	/* buffer, offset of each message, and whether it releases */
	static const int at_buf[] = { 0, 0, 0, 0, 1 };
	static const size_t at_off[] = { 0, 4096, 8192, 12288, 0 };
	const size_t blen = roundup_pow_of_two(max_t(size_t,
						     KFL_CREDITS * 4096,
						     PAGE_SIZE));
	struct kfl_cq *srx = &f->cq[KFL_SRX], *ctx = &f->cq[KFL_CTX];
	unsigned int r, t, e0;
	int sctx[ARRAY_SIZE(lens)];
	u8 *b[2], *src;
	int i;

	b[0] = kfl_buf(test, f, 0, blen);
	b[1] = kfl_buf(test, f, 1, blen);
	src = kfl_buf(test, f, 2, ARRAY_SIZE(lens) * 4096);
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, kfi_recv(f->ep, b[i], blen, NULL,
					       KFI_ADDR_UNSPEC, b[i]), 0);
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		kfl_fill(src + i * 4096, lens[i], 10 + i);
		KUNIT_ASSERT_EQ(test, kfi_send(f->cep, src + i * 4096, lens[i],
					       NULL, 0, &sctx[i]), 0);
	}
	t = kfl_cq_expect(test, ctx, ARRAY_SIZE(lens), 0);
	r = kfl_cq_expect(test, srx, ARRAY_SIZE(lens), 0);
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		const struct kfi_cq_data_entry *e = &srx->ok[r + i];
		u8 *buf = b[at_buf[i]];

		kfl_expect_entry(test, &ctx->ok[t + i], &sctx[i],
				 KFI_MSG | KFI_SEND, 0);
		kfl_expect_entry(test, e, buf, KFI_MSG | KFI_RECV |
				 (i == 3 ? KFI_MULTI_RECV : 0), lens[i]);
		KUNIT_EXPECT_PTR_EQ(test, e->buf, (void *)(buf + at_off[i]));
		KUNIT_EXPECT_EQ(test, memcmp(buf + at_off[i], src + i * 4096,
					     lens[i]), 0);
	}
	/* the buffer left posted, cancelled as kfilnd does at shutdown */
	e0 = srx->n_err;
	KUNIT_ASSERT_EQ(test, kfi_cancel(&f->ep->fid, b[1]), (ssize_t)0);
	kfl_cq_expect(test, srx, 0, 1);
	KUNIT_EXPECT_PTR_EQ(test, srx->err[e0].op_context, (void *)b[1]);
	KUNIT_EXPECT_EQ(test, srx->err[e0].flags,
			KFI_MSG | KFI_RECV | KFI_MULTI_RECV);
	KUNIT_EXPECT_EQ(test, srx->err[e0].err, KFI_ECANCELED);
}

/*
 * Current kfilnd's tagged completion of a bulk transfer: the target posts
 * kfi_trecvmsg (KFI_BVEC, tag, ignore 0, KFI_COMPLETION), the initiator
 * answers with a zero-length kfi_tsenddata carrying be64(|status|) as CQ
 * data: TAGGED|RECV|REMOTE_CQ_DATA with the data, also when it is 0
 * (a plain TAGGED|RECV success is an LBUG), and TAGGED|SEND. A cancelled
 * tagged receive: ECANCELED TAGGED|RECV.
 */
static void kfl_tagged_status(struct kunit *test, struct kfl *f)
{
	static const int status[] = { 0, -EIO };
	struct kfl_cq *crx = &f->cq[KFL_CRX], *stx = &f->cq[KFL_STX];
	struct kfl_pages *sink = kfl_pages_alloc(test, &f->pages[0], 0x5a,
						 true);
	struct kfi_msg_tagged msg = {
		.type = KFI_BVEC,
		.msg_biov = sink->bv,
		.iov_count = 2,
		.addr = 0,
		.ignore = 0,
	};
	int tn[3], stn[2];
	unsigned int r, t, e0;
	int i;

	for (i = 0; i < 2; i++) {
		msg.tag = 0x100 + i;
		msg.context = &tn[i];
		KUNIT_ASSERT_EQ(test, kfi_trecvmsg(f->cep, &msg,
						   KFI_COMPLETION), (ssize_t)0);
		KUNIT_ASSERT_EQ(test, kfi_tsenddata(f->ep, NULL, 0, NULL,
						    (__force u64)cpu_to_be64(abs(status[i])),
						    0, 0x100 + i, &stn[i]),
				(ssize_t)0);
	}
	r = kfl_cq_expect(test, crx, 2, 0);
	/* the server's CQ is selective: the default op flag COMPLETION */
	t = kfl_cq_expect(test, stx, 2, 0);
	for (i = 0; i < 2; i++) {
		const struct kfi_cq_data_entry *e = &crx->ok[r + i];

		kfl_expect_entry(test, e, &tn[i],
				 KFI_TAGGED | KFI_RECV | KFI_REMOTE_CQ_DATA, 0);
		KUNIT_EXPECT_EQ(test, -(s64)be64_to_cpu((__force __be64)e->data),
				(s64)status[i]);
		kfl_expect_entry(test, &stx->ok[t + i], &stn[i],
				 KFI_TAGGED | KFI_SEND, 0);
	}
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_NULL_MSG(test, memchr_inv(page_address(sink->pg[i]),
						       0x5a, PAGE_SIZE),
				      "zero-length receive wrote page %d", i);

	msg.tag = 0x200;
	msg.context = &tn[2];
	KUNIT_ASSERT_EQ(test, kfi_trecvmsg(f->cep, &msg, KFI_COMPLETION),
			(ssize_t)0);
	e0 = crx->n_err;
	KUNIT_ASSERT_EQ(test, kfi_cancel(&f->cep->fid, &tn[2]), (ssize_t)0);
	kfl_cq_expect(test, crx, 0, 1);
	KUNIT_EXPECT_PTR_EQ(test, crx->err[e0].op_context, (void *)&tn[2]);
	KUNIT_EXPECT_EQ(test, crx->err[e0].flags, KFI_TAGGED | KFI_RECV);
	KUNIT_EXPECT_EQ(test, crx->err[e0].err, KFI_ECANCELED);
}

/*
 * Selective completion (server transmit CQ): kfi_sendmsg without
 * KFI_COMPLETION writes no entry, with it one, and kfi_send takes the
 * endpoint's default op flags (COMPLETION): one. The receives (kfi_recvmsg
 * with KFI_COMPLETION, so not multi-receive) all complete, in order.
 */
static void kfl_selective(struct kunit *test, struct kfl *f)
{
	struct kfl_cq *crx = &f->cq[KFL_CRX], *stx = &f->cq[KFL_STX];
	const size_t len = 200;
	struct kvec rv[3], sv[3];
	struct kfi_msg m = {
		.type = KFI_KVEC,
		.iov_count = 1,
		.addr = 0,
	};
	int rctx[3], sctx[3];
	unsigned int r, t;
	u8 *rb, *sb;
	int i;

	rb = kfl_buf(test, f, 3, 3 * len);
	sb = kfl_buf(test, f, 4, 3 * len);
	for (i = 0; i < 3; i++) {
		rv[i] = (struct kvec){ .iov_base = rb + i * len,
				       .iov_len = len };
		m.msg_iov = &rv[i];
		m.context = &rctx[i];
		KUNIT_ASSERT_EQ(test, kfi_recvmsg(f->cep, &m, KFI_COMPLETION),
				(ssize_t)0);
		kfl_fill(sb + i * len, len, 50 + i);
		sv[i] = (struct kvec){ .iov_base = sb + i * len,
				       .iov_len = len };
	}
	m.msg_iov = &sv[0];
	m.context = &sctx[0];
	KUNIT_ASSERT_EQ(test, kfi_sendmsg(f->ep, &m, 0), (ssize_t)0);
	m.msg_iov = &sv[1];
	m.context = &sctx[1];
	KUNIT_ASSERT_EQ(test, kfi_sendmsg(f->ep, &m, KFI_COMPLETION),
			(ssize_t)0);
	KUNIT_ASSERT_EQ(test, kfi_send(f->ep, sb + 2 * len, len, NULL, 0,
				       &sctx[2]), (ssize_t)0);
	r = kfl_cq_expect(test, crx, 3, 0);
	t = kfl_cq_expect(test, stx, 2, 0);
	for (i = 0; i < 3; i++) {
		kfl_expect_entry(test, &crx->ok[r + i], &rctx[i],
				 KFI_MSG | KFI_RECV, len);
		KUNIT_EXPECT_EQ(test, memcmp(rb + i * len, sb + i * len, len),
				0);
	}
	kfl_expect_entry(test, &stx->ok[t], &sctx[1], KFI_MSG | KFI_SEND, 0);
	kfl_expect_entry(test, &stx->ok[t + 1], &sctx[2], KFI_MSG | KFI_SEND,
			 0);
}

/* A 1 MiB message as 256 pages each way: kfi_sendmsg/kfi_recvmsg KFI_BVEC. */
static void kfl_bvec_256(struct kunit *test, struct kfl *f)
{
	struct kfl_cq *ctx = &f->cq[KFL_CTX], *srx = &f->cq[KFL_SRX];
	struct kfl_pages *src = kfl_pages_alloc(test, &f->pages[1], 3, false);
	struct kfl_pages *dst = kfl_pages_alloc(test, &f->pages[2], 0, true);
	struct kfi_msg m = { .type = KFI_BVEC, .iov_count = KFL_MAX_IOV };
	int rctx, sctx;
	unsigned int r, t;
	ssize_t rc;

	/* a refused post fails the case, and the RMA part still runs */
	m.msg_biov = dst->bv;
	m.context = &rctx;
	rc = kfi_recvmsg(f->ep, &m, KFI_COMPLETION);
	KUNIT_EXPECT_EQ(test, rc, (ssize_t)0);
	if (rc)
		return;
	m.msg_biov = src->bv;
	m.context = &sctx;
	rc = kfi_sendmsg(f->cep, &m, KFI_COMPLETION);
	KUNIT_EXPECT_EQ(test, rc, (ssize_t)0);
	if (rc) {
		/* kfilnd's cancel of a posted receive: ECANCELED MSG|RECV */
		r = srx->n_err;
		KUNIT_ASSERT_EQ(test, kfi_cancel(&f->ep->fid, &rctx),
				(ssize_t)0);
		kfl_cq_expect(test, srx, 0, 1);
		KUNIT_EXPECT_PTR_EQ(test, srx->err[r].op_context,
				    (void *)&rctx);
		KUNIT_EXPECT_EQ(test, srx->err[r].flags, KFI_MSG | KFI_RECV);
		KUNIT_EXPECT_EQ(test, srx->err[r].err, KFI_ECANCELED);
		return;
	}
	t = kfl_cq_expect(test, ctx, 1, 0);
	r = kfl_cq_expect(test, srx, 1, 0);
	kfl_expect_entry(test, &ctx->ok[t], &sctx, KFI_MSG | KFI_SEND, 0);
	kfl_expect_entry(test, &srx->ok[r], &rctx, KFI_MSG | KFI_RECV,
			 KFL_MAX_PAYLOAD);
	kfl_expect_pages(test, dst, src, false);
}

/*
 * The registering kfilnd's RMA: the target registers 256 pages
 * (REMOTE_READ|REMOTE_WRITE, offset 0, a requested key); the initiator
 * writes 256 local pages into it with one remote segment (kfi_writemsg,
 * KFI_BVEC), then reads it back into 256 other pages with 256 remote
 * segments naming the region's pages in reverse order (kfi_readmsg): the
 * region holds what was written, the read-back the region's pages
 * reversed; RMA|WRITE and RMA|READ at the initiator, nothing at the target.
 */
static void kfl_rma_256(struct kunit *test, struct kfl *f)
{
	struct kfl_cq *ctx = &f->cq[KFL_CTX];
	struct kfl_pages *src = kfl_pages_alloc(test, &f->pages[3], 7, false);
	struct kfl_pages *reg = kfl_pages_alloc(test, &f->pages[4], 0, true);
	struct kfl_pages *back = kfl_pages_alloc(test, &f->pages[5], 0, true);
	struct kfi_rma_iov one = { .addr = 0, .len = KFL_MAX_PAYLOAD,
				   .key = 1 };
	struct kfi_msg_rma m = { .type = KFI_BVEC, .iov_count = KFL_MAX_IOV };
	struct kfl_tn tn = { .key = 1 };
	int wctx, rctx, i;
	unsigned int t;
	ssize_t wrc, rrc;

	KUNIT_ASSERT_EQ(test, kfi_mr_regbv(f->dom, reg->bv, KFL_MAX_IOV,
					   KFI_REMOTE_READ | KFI_REMOTE_WRITE,
					   0, tn.key, 0, &f->mr[0], &tn), 0);
	f->riov = kcalloc(KFL_MAX_IOV, sizeof(*f->riov), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->riov);
	for (i = 0; i < KFL_MAX_IOV; i++)
		f->riov[i] = (struct kfi_rma_iov){
			.addr = (u64)(KFL_MAX_IOV - 1 - i) * PAGE_SIZE,
			.len = PAGE_SIZE,
			.key = tn.key,
		};

	m.msg_biov = src->bv;
	m.rma_iov = &one;
	m.rma_iov_count = 1;
	m.context = &wctx;
	wrc = kfi_writemsg(f->cep, &m, KFI_COMPLETION);
	KUNIT_EXPECT_EQ(test, wrc, (ssize_t)0);
	m.msg_biov = back->bv;
	m.rma_iov = f->riov;
	m.rma_iov_count = KFL_MAX_IOV;
	m.context = &rctx;
	rrc = kfi_readmsg(f->cep, &m, KFI_COMPLETION);
	KUNIT_EXPECT_EQ(test, rrc, (ssize_t)0);
	if (!wrc && !rrc) {
		t = kfl_cq_expect(test, ctx, 2, 0);
		kfl_expect_entry(test, &ctx->ok[t], &wctx, KFI_RMA | KFI_WRITE,
				 0);
		kfl_expect_entry(test, &ctx->ok[t + 1], &rctx,
				 KFI_RMA | KFI_READ, 0);
		/* the read came after the write on the connection */
		kfl_expect_pages(test, reg, src, false);
		kfl_expect_pages(test, back, reg, true);
	} else if (!wrc || !rrc) {
		kfl_cq_expect(test, ctx, 1, 0);
	}
	KUNIT_EXPECT_EQ(test, kfi_close(&f->mr[0]->fid), 0);
	f->mr[0] = NULL;
}

/*
 * kfilnd's data path on a connected MSG pair opened from the answer to
 * its hints: CQs of the DATA format with KFI_AFFINITY and a handler,
 * drained as kfilnd does; KFI_OPT_MIN_MULTI_RECV 4096; multi-receive
 * buffers; zero-length tagged sends carrying a status; selective
 * completion; 1 MiB as 256 pages by message and by RMA. Every entry's
 * flags are in kfilnd's lists; every count exact.
 */
static void kfilnd_msg_data_path(struct kunit *test)
{
	struct kfl *f = kfl_new(test);
	int i;

	kfl_pair(test, f);
	kfl_multi_recv(test, f);
	kfl_tagged_status(test, f);
	kfl_selective(test, f);
	kfl_bvec_256(test, f);
	kfl_rma_256(test, f);

	for (i = 0; i < ARRAY_SIZE(f->cq); i++)
		kfl_cq_expect_end(test, &f->cq[i]);
	kfl_teardown(test, f);
}

/* --------------------------------------- scalable endpoints, bulk data */

/*
 * kfilnd's own data path: two NIs on one node, each a scalable endpoint
 * bound to an AV (rx_ctx_bits 8, peers inserted with kfi_av_insertsvc),
 * with a receive and a transmit context per CPU partition, each with its
 * own KFI_AFFINITY CQ whose handler queues work on every CPU to drain it
 * (kfi_cq_read one entry at a time, kfi_cq_readerr on -KFI_EAVAIL, as
 * kfilnd_cq.c). Receive contexts hold multi-receive buffers (op_flags
 * COMPLETION|MULTI_RECV, KFI_OPT_MIN_MULTI_RECV), reposted when an entry
 * releases one. A transaction is LNet's bulk PUT or GET of 1 MiB in 256
 * pages: the initiator posts a tagged receive over its pages, directed to
 * the peer (the bulk), and one for the target's status, then sends a
 * request naming the key and its receive context; the target reads the
 * pages (PUT) or writes its own into them (GET) with tagged RMA to
 * kfi_rx_addr(peer, rx, 8), then sends the status with a zero-length
 * kfi_tsenddata. Transactions run until 1 GiB has moved, every byte
 * checked (the target checks a PUT's, the initiator a GET's); every
 * entry's flags must be in kfilnd's list.
 */
#define KSB_CPTS	KFL_NCPTS
#define KSB_TNS		2		/* per CPT and NI, in flight */
#define KSB_NI		2
#define KSB_CPUS	8		/* drain works per CQ, at most */
#define KSB_IMM_BUFS	4
#define KSB_IMM_SIZE	(4 * KFL_MIN_MULTI_RECV)
#define KSB_BULK	((size_t)KFL_MAX_IOV * PAGE_SIZE)
#define KSB_BYTES	(1ULL << 30)
#define KSB_RX_BITS	8
#define KSB_STATUS	(1ULL << 47)	/* tag bit of the status receive */
#define KSB_RX_SIZE	(512 + 8)	/* LNet's credits + kfilnd's buffers */
#define KSB_MAGIC	0x6b73625fU
#define KSB_WAIT	(600 * HZ)

/* The request message (kfilnd's BULK_PUT_REQ/BULK_GET_REQ). */
struct ksb_req {
	u32 magic;
	u8 put;
	u8 rx;		/* the initiator's receive context */
	u16 slot;
	u64 key;	/* the tag of its bulk receive */
	u32 seq;	/* the data's pattern */
};

struct ksb;
struct ksb_ni;

struct ksb_cq;
struct ksb_work {
	struct work_struct w;
	struct ksb_cq *cq;
};

struct ksb_cq {
	struct kfid_cq *cq;
	struct ksb_ni *ni;
	int cpt;
	struct ksb_work work[KSB_CPUS];
};

/*
 * A page set of 1 MiB, as a bio_vec array (KFI_BVEC) and as a scatterlist
 * mapped for the domain's device (kfilnd with KFI_SGL: dma_map_sgtable on
 * the cxi domain ops' get_device, iov_count = the mapped entries).
 */
struct ksb_pages {
	struct page *pg[KFL_MAX_IOV];
	struct bio_vec bv[KFL_MAX_IOV];
	struct sg_table sgt;
	struct device *dev;	/* set while @sgt is mapped */
};

/* An initiator's transaction slot. */
struct ksb_tn {
	struct ksb_ni *ni;
	int cpt, slot;
	struct ksb_pages pages;
	struct ksb_req req;
	u64 status_buf;
	atomic_t parts;		/* request sent, bulk in, status in */
	u64 status;
	int status_ctx;		/* the status receive's context */
};

/* A target's buffer for the peer's transaction (its cpt, slot). */
struct ksb_tgt {
	struct ksb_pages pages;
	struct ksb_req req;
	int cpt;		/* our context the request came on */
	int status_ctx;
};

struct ksb_ni {
	struct ksb *k;
	int idx;		/* also its network number (service) */
	struct kfid_ep *sep;
	struct kfid_av *av;
	kfi_addr_t peer;
	struct kcxi_addr addr;
	/*
	 * ksb->late: whether the peer is in the AV yet (NI 1 inserts NI 0 on
	 * its first request, under @insert, then starts its transactions),
	 * and how many transactions this NI started.
	 */
	bool known;
	struct mutex insert;
	atomic_t runs;
	struct kfid_ep *rx[KSB_CPTS], *tx[KSB_CPTS];
	struct ksb_cq rxcq[KSB_CPTS], txcq[KSB_CPTS];
	void *imm[KSB_CPTS][KSB_IMM_BUFS];
	struct ksb_tn tn[KSB_CPTS][KSB_TNS];
	struct ksb_tgt tgt[KSB_CPTS][KSB_TNS];
};

struct ksb {
	struct kfl *f;
	struct device *dev;	/* the domain's, for the DMA API */
	struct workqueue_struct *wq;
	struct ksb_ni ni[KSB_NI];
	int ncpu, cpu[KSB_CPUS];	/* the CPUs draining each CQ */
	atomic_t launched, idle, failures;
	atomic64_t moved;
	atomic_t entries;
	bool closing;
	bool late;		/* NI 1 learns NI 0 from its first request */
	wait_queue_head_t done;
	char why[160];
	u32 total;		/* transactions to run */
	u64 bytes;		/* what they move */
};

static u64 ksb_word(u32 seq, size_t i)
{
	return ((u64)seq << 32 | i) * 0x9e3779b97f4a7c15ULL;
}

static void ksb_fill(struct ksb_pages *p, u32 seq)
{
	size_t i, j, n = PAGE_SIZE / sizeof(u64);

	for (i = 0; i < KFL_MAX_IOV; i++) {
		u64 *w = page_address(p->pg[i]);

		for (j = 0; j < n; j++)
			w[j] = ksb_word(seq, i * n + j);
	}
}

static bool ksb_check(struct ksb_pages *p, u32 seq)
{
	size_t i, j, n = PAGE_SIZE / sizeof(u64);

	for (i = 0; i < KFL_MAX_IOV; i++) {
		u64 *w = page_address(p->pg[i]);

		for (j = 0; j < n; j++)
			if (w[j] != ksb_word(seq, i * n + j))
				return false;
	}
	return true;
}

static int ksb_pages_alloc(struct ksb_pages *p, struct device *dev)
{
	struct scatterlist *sg;
	int i, rc;

	for (i = 0; i < KFL_MAX_IOV; i++) {
		p->pg[i] = alloc_page(GFP_KERNEL);
		if (!p->pg[i])
			return -ENOMEM;
		bvec_set_page(&p->bv[i], p->pg[i], PAGE_SIZE, 0);
	}
	rc = sg_alloc_table(&p->sgt, KFL_MAX_IOV, GFP_KERNEL);
	if (rc)
		return rc;
	for_each_sgtable_sg(&p->sgt, sg, i)
		sg_set_page(sg, p->pg[i], PAGE_SIZE, 0);
	rc = dma_map_sgtable(dev, &p->sgt, DMA_BIDIRECTIONAL, 0);
	if (rc)
		return rc;
	p->dev = dev;
	return 0;
}

static void ksb_pages_free(struct ksb_pages *p)
{
	int i;

	if (p->dev)
		dma_unmap_sgtable(p->dev, &p->sgt, DMA_BIDIRECTIONAL, 0);
	p->dev = NULL;
	sg_free_table(&p->sgt);
	for (i = 0; i < KFL_MAX_IOV; i++)
		if (p->pg[i])
			__free_page(p->pg[i]);
}

/* Half the transactions describe their pages as kfilnd with KFI_SGL does. */
static void ksb_iov(const struct ksb_pages *p, u32 seq, enum kfi_iov_type *type,
		    const struct bio_vec **bv, const struct scatterlist **sgl,
		    size_t *count)
{
	if (seq & 2) {
		*type = KFI_SGL;
		*sgl = p->sgt.sgl;
		*count = p->sgt.nents;
	} else {
		*type = KFI_BVEC;
		*bv = p->bv;
		*count = KFL_MAX_IOV;
	}
}

/* A failure seen from a work item: kept (the first) and counted. */
static __printf(2, 3) void ksb_fail(struct ksb *k, const char *fmt, ...)
{
	va_list ap;

	if (atomic_inc_return(&k->failures) == 1) {
		va_start(ap, fmt);
		vsnprintf(k->why, sizeof(k->why), fmt, ap);
		va_end(ap);
	}
	wake_up(&k->done);
}

/* kfilnd's list (kfl_flags): a flag combination it would LBUG on. */
static bool ksb_flags_ok(u64 flags, bool error)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kfl_flags); i++)
		if (kfl_flags[i].flags == flags &&
		    (error || kfl_flags[i].success))
			return true;
	return false;
}

/* A post, replayed on -EAGAIN (kfilnd replays after a delay). */
#define KSB_POST(k, call)						\
	({								\
		ssize_t __r;						\
		int __n = 0;						\
		while ((__r = (call)) == -EAGAIN && __n++ < 1000)	\
			usleep_range(100, 200);				\
		if (__r)						\
			ksb_fail(k, "%s: %zd", #call, __r);		\
		__r;							\
	})

/* The next transaction of slot @tn, if any is left. */
static void ksb_start(struct ksb_tn *tn)
{
	struct ksb_ni *ni = tn->ni;
	struct ksb *k = ni->k;
	u32 seq = atomic_inc_return(&k->launched);
	struct kfi_msg_tagged tm = {
		.addr = ni->peer,
		.context = tn,
	};

	ksb_iov(&tn->pages, seq, &tm.type, &tm.msg_biov, &tm.msg_sgl,
		&tm.iov_count);
	if (seq > k->total || atomic_read(&k->failures)) {
		atomic_inc(&k->idle);
		wake_up(&k->done);
		return;
	}
	tn->req = (struct ksb_req){
		.magic = KSB_MAGIC,
		.put = seq & 1,
		.rx = tn->cpt,
		.slot = tn->slot,
		.key = ((u64)seq << 8 | (u64)(ni->idx * KSB_CPTS + tn->cpt) << 4 |
			tn->slot) & (KSB_STATUS - 1),
		.seq = seq,
	};
	atomic_inc(&ni->runs);
	if (tn->req.put)
		ksb_fill(&tn->pages, seq);
	atomic_set(&tn->parts, 3);
	tn->status = ~0ULL;
	tm.tag = tn->req.key;
	if (KSB_POST(k, kfi_trecvmsg(ni->rx[tn->cpt], &tm, KFI_COMPLETION)))
		return;
	if (KSB_POST(k, kfi_trecv(ni->rx[tn->cpt], &tn->status_buf,
				  sizeof(tn->status_buf), NULL, ni->peer,
				  tn->req.key | KSB_STATUS, 0,
				  &tn->status_ctx)))
		return;
	/* to the peer's context of the same partition */
	KSB_POST(k, kfi_send(ni->tx[tn->cpt], &tn->req, sizeof(tn->req), NULL,
			     kfi_rx_addr(ni->peer, tn->cpt, KSB_RX_BITS), tn));
}

/* One of the three parts of @tn's transaction is done. */
static void ksb_part(struct ksb_tn *tn)
{
	struct ksb *k = tn->ni->k;

	if (!atomic_dec_and_test(&tn->parts))
		return;
	if (tn->status)
		ksb_fail(k, "transaction %u: target status %llu", tn->req.seq,
			 tn->status);
	else if (!tn->req.put && !ksb_check(&tn->pages, tn->req.seq))
		ksb_fail(k, "GET %u: data differs", tn->req.seq);
	else
		atomic64_add(KSB_BULK, &k->moved);
	ksb_start(tn);
}

static int ksb_av_insert(struct ksb_ni *ni, const struct ksb_ni *peer);
static void ksb_start_all(struct ksb_ni *ni);

/*
 * kfilnd's peer lookup on a message from a NID it does not know yet
 * (kfilnd_peer_get): the peer goes into the AV now, after its connections
 * were made; our own transactions to it start then. False: it failed.
 */
static bool ksb_learn(struct ksb_ni *ni)
{
	struct ksb *k = ni->k;
	int rc = 0;
	bool start = false;

	if (smp_load_acquire(&ni->known))
		return true;
	mutex_lock(&ni->insert);
	if (!ni->known) {
		rc = ksb_av_insert(ni, &k->ni[1 - ni->idx]);
		if (rc)
			ksb_fail(k, "late kfi_av_insertsvc: %d", rc);
		else
			start = true;
		smp_store_release(&ni->known, !rc);
	}
	mutex_unlock(&ni->insert);
	if (start)
		ksb_start_all(ni);
	return !rc;
}

/* A request from the peer on our receive context @cpt. */
static void ksb_request(struct ksb_ni *ni, int cpt, const void *msg,
			size_t len)
{
	const struct ksb_req *r = msg;
	struct ksb *k = ni->k;
	struct ksb_tgt *t;
	struct kfi_rma_iov riov = { .addr = 0, .len = KSB_BULK };
	struct kfi_msg_rma m = {
		.rma_iov = &riov,
		.rma_iov_count = 1,
	};

	if (len != sizeof(*r) || r->magic != KSB_MAGIC || r->rx >= KSB_CPTS ||
	    r->slot >= KSB_TNS) {
		ksb_fail(k, "bad request (%zu bytes)", len);
		return;
	}
	if (!ksb_learn(ni))
		return;
	t = &ni->tgt[r->rx][r->slot];
	t->req = *r;
	t->cpt = cpt;
	if (!r->put)
		ksb_fill(&t->pages, r->seq);
	ksb_iov(&t->pages, r->seq, &m.type, &m.msg_biov, &m.msg_sgl,
		&m.iov_count);
	m.addr = kfi_rx_addr(ni->peer, r->rx, KSB_RX_BITS);
	m.context = t;
	riov.key = r->key;
	if (r->put)
		KSB_POST(k, kfi_readmsg(ni->tx[cpt], &m,
					KFI_TAGGED | KFI_COMPLETION));
	else
		KSB_POST(k, kfi_writemsg(ni->tx[cpt], &m,
					 KFI_TAGGED | KFI_COMPLETION));
}

/* The target's RMA of @t is done: the status to the initiator. */
static void ksb_rma_done(struct ksb_ni *ni, struct ksb_tgt *t)
{
	u64 status = t->req.put && !ksb_check(&t->pages, t->req.seq);

	KSB_POST(ni->k, kfi_tsenddata(ni->tx[t->cpt], NULL, 0, NULL,
				      cpu_to_be64(status),
				      kfi_rx_addr(ni->peer, t->req.rx,
						  KSB_RX_BITS),
				      t->req.key | KSB_STATUS,
				      &t->status_ctx));
}

static void ksb_event(struct ksb_cq *c, const struct kfi_cq_data_entry *e)
{
	struct ksb_ni *ni = c->ni;
	struct ksb *k = ni->k;
	void *ctx = e->op_context;

	atomic_inc(&k->entries);
	if (!ksb_flags_ok(e->flags, false)) {
		ksb_fail(k, "entry flags %#llx: kfilnd would LBUG", e->flags);
		return;
	}
	switch (e->flags) {
	case KFI_MSG | KFI_RECV:
	case KFI_MSG | KFI_RECV | KFI_MULTI_RECV:
		ksb_request(ni, c->cpt, e->buf, e->len);
		if (e->flags & KFI_MULTI_RECV)
			KSB_POST(k, kfi_recv(ni->rx[c->cpt], ctx,
					     KSB_IMM_SIZE, NULL,
					     KFI_ADDR_UNSPEC, ctx));
		break;
	case KFI_TAGGED | KFI_RMA | KFI_READ | KFI_RECV:
	case KFI_TAGGED | KFI_RMA | KFI_WRITE | KFI_RECV:
		ksb_part(ctx);
		break;
	case KFI_TAGGED | KFI_RECV | KFI_REMOTE_CQ_DATA: {
		struct ksb_tn *tn = container_of(ctx, struct ksb_tn,
						 status_ctx);

		tn->status = be64_to_cpu(e->data);
		ksb_part(tn);
		break;
	}
	case KFI_MSG | KFI_SEND:
		ksb_part(ctx);
		break;
	case KFI_TAGGED | KFI_RMA | KFI_READ | KFI_SEND:
	case KFI_TAGGED | KFI_RMA | KFI_WRITE | KFI_SEND:
		ksb_rma_done(ni, ctx);
		break;
	case KFI_TAGGED | KFI_SEND:
		break;
	default:
		ksb_fail(k, "unexpected entry %#llx", e->flags);
	}
}

/* kfilnd_cq_process_completion. */
static void ksb_drain(struct work_struct *w)
{
	struct ksb_cq *c = container_of(w, struct ksb_work, w)->cq;
	struct ksb *k = c->ni->k;
	struct kfi_cq_data_entry e;
	struct kfi_cq_err_entry err;
	ssize_t rc;

	for (;;) {
		rc = kfi_cq_read(c->cq, &e, 1);
		if (rc == 1) {
			ksb_event(c, &e);
		} else if (rc == -KFI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			while (kfi_cq_readerr(c->cq, &err, 0) == 1) {
				if (!ksb_flags_ok(err.flags, true))
					ksb_fail(k, "error flags %#llx",
						 err.flags);
				else if (!READ_ONCE(k->closing) ||
					 err.err != ECANCELED)
					ksb_fail(k, "error entry %#llx: %d",
						 err.flags, err.err);
				memset(&err, 0, sizeof(err));
			}
		} else {
			if (rc != -EAGAIN)
				ksb_fail(k, "kfi_cq_read: %zd", rc);
			return;
		}
	}
}

/* kfilnd_cq_completion: work on every CPU of the partition (here all). */
static void ksb_handler(struct kfid_cq *cq, void *context)
{
	struct ksb_cq *c = context;
	struct ksb *k = c->ni->k;
	int i;

	for (i = 0; i < k->ncpu; i++)
		queue_work_on(k->cpu[i], k->wq, &c->work[i].w);
}

static void ksb_cq_open(struct kunit *test, struct ksb *k, struct ksb_ni *ni,
			struct ksb_cq *c, int cpt)
{
	struct kfi_cq_attr attr = {
		.size = 1024,
		.flags = KFI_AFFINITY,
		.format = KFI_CQ_FORMAT_DATA,
		.wait_obj = KFI_WAIT_NONE,
		.signaling_vector = k->cpu[cpt % k->ncpu],
	};
	int i;

	c->ni = ni;
	c->cpt = cpt;
	for (i = 0; i < KSB_CPUS; i++) {
		c->work[i].cq = c;
		INIT_WORK(&c->work[i].w, ksb_drain);
	}
	KUNIT_ASSERT_EQ(test, kfi_cq_open(k->f->dom, &attr, &c->cq,
					  ksb_handler, c), 0);
}

/*
 * NI @i (network number @i) from @info: kfilnd_dev_alloc and
 * kfilnd_ep_alloc for each partition.
 */
static void ksb_ni_open(struct kunit *test, struct ksb *k, int i,
			struct kfi_info *info)
{
	struct ksb_ni *ni = &k->ni[i];
	struct kfi_av_attr av_attr = { .type = KFI_AV_UNSPEC,
				       .rx_ctx_bits = KSB_RX_BITS };
	struct kfi_rx_attr rx_attr = { .op_flags = KFI_COMPLETION |
						   KFI_MULTI_RECV };
	struct kfi_tx_attr tx_attr = { .op_flags = KFI_COMPLETION |
						   KFI_TRANSMIT_COMPLETE,
				       .tclass = KFI_TC_BEST_EFFORT };
	size_t min = KFL_MIN_MULTI_RECV, len = sizeof(ni->addr);
	int c, j;

	ni->k = k;
	ni->idx = i;
	info->ep_attr->tx_ctx_cnt = KSB_CPTS;
	info->ep_attr->rx_ctx_cnt = KSB_CPTS;
	KUNIT_ASSERT_EQ(test, kfi_av_open(k->f->dom, &av_attr, &ni->av, ni),
			0);
	KUNIT_ASSERT_EQ(test, kfi_scalable_ep(k->f->dom, info, &ni->sep, ni),
			0);
	KUNIT_ASSERT_EQ(test, kfi_scalable_ep_bind(ni->sep, &ni->av->fid, 0),
			0);
	KUNIT_ASSERT_EQ(test, kfi_enable(ni->sep), 0);
	/* its name: the info's NIC address and network number */
	KUNIT_ASSERT_EQ(test, kfi_getname(&ni->sep->fid, &ni->addr, &len), 0);
	KUNIT_EXPECT_EQ(test, len, sizeof(ni->addr));
	KUNIT_EXPECT_EQ(test, ni->addr.qw,
			((struct kcxi_addr *)info->src_addr)->qw);
	KUNIT_EXPECT_EQ(test, (int)ni->addr.pid, i);
	for (c = 0; c < KSB_CPTS; c++) {
		ksb_cq_open(test, k, ni, &ni->rxcq[c], c);
		ksb_cq_open(test, k, ni, &ni->txcq[c], c);
		KUNIT_ASSERT_EQ(test, kfi_rx_context(ni->sep, c, &rx_attr,
						     &ni->rx[c], ni), 0);
		KUNIT_ASSERT_EQ(test, kfi_setopt(&ni->rx[c]->fid,
						 KFI_OPT_ENDPOINT,
						 KFI_OPT_MIN_MULTI_RECV, &min,
						 sizeof(min)), 0);
		KUNIT_ASSERT_EQ(test, kfi_tx_context(ni->sep, c, &tx_attr,
						     &ni->tx[c], ni), 0);
		KUNIT_ASSERT_EQ(test, kfi_ep_bind(ni->rx[c],
						  &ni->rxcq[c].cq->fid, 0), 0);
		KUNIT_ASSERT_EQ(test, kfi_ep_bind(ni->tx[c],
						  &ni->txcq[c].cq->fid, 0), 0);
		KUNIT_ASSERT_EQ(test, kfi_enable(ni->rx[c]), 0);
		KUNIT_ASSERT_EQ(test, kfi_enable(ni->tx[c]), 0);
		for (j = 0; j < KSB_IMM_BUFS; j++) {
			ni->imm[c][j] = kzalloc(KSB_IMM_SIZE, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, ni->imm[c][j]);
			/* multi-receive through the default op_flags */
			KUNIT_ASSERT_EQ(test, kfi_recv(ni->rx[c], ni->imm[c][j],
						       KSB_IMM_SIZE, NULL,
						       KFI_ADDR_UNSPEC,
						       ni->imm[c][j]), 0);
		}
		for (j = 0; j < KSB_TNS; j++) {
			ni->tn[c][j].ni = ni;
			ni->tn[c][j].cpt = c;
			ni->tn[c][j].slot = j;
			KUNIT_ASSERT_EQ(test,
					ksb_pages_alloc(&ni->tn[c][j].pages,
							k->dev), 0);
			KUNIT_ASSERT_EQ(test,
					ksb_pages_alloc(&ni->tgt[c][j].pages,
							k->dev), 0);
		}
	}
}

/*
 * The peer's address, as kfilnd_peer.c inserts it: its NID's address (the
 * NIC address) as "%#x" and its network number as "%u"; the AV gives it
 * back as that struct kcxi_addr.
 */
static int ksb_av_insert(struct ksb_ni *ni, const struct ksb_ni *peer)
{
	struct kcxi_addr back = { .qw = 0 };
	size_t len = sizeof(back);
	char node[16], svc[8];
	int rc;

	snprintf(node, sizeof(node), "%#x", (unsigned int)peer->addr.nic);
	snprintf(svc, sizeof(svc), "%u", peer->idx);
	rc = kfi_av_insertsvc(ni->av, node, svc, &ni->peer, 0, ni);
	if (rc != 1)
		return rc < 0 ? rc : -EIO;
	rc = kfi_av_lookup(ni->av, ni->peer, &back, &len);
	if (rc)
		return rc;
	return len == sizeof(back) && back.qw == peer->addr.qw ? 0 : -EIO;
}

static void ksb_insert(struct kunit *test, struct ksb_ni *ni,
		       const struct ksb_ni *peer)
{
	KUNIT_ASSERT_EQ(test, ksb_av_insert(ni, peer), 0);
	ni->known = true;
}

/* Every transaction slot of @ni starts. */
static void ksb_start_all(struct ksb_ni *ni)
{
	int c, j;

	for (c = 0; c < KSB_CPTS; c++)
		for (j = 0; j < KSB_TNS; j++)
			ksb_start(&ni->tn[c][j]);
}

/* kfilnd's shutdown: contexts, then the drain works, CQs, sep, AV. */
static void ksb_close(struct kunit *test, struct ksb *k)
{
	int i, c, j;

	WRITE_ONCE(k->closing, true);
	for (i = 0; i < KSB_NI; i++) {
		struct ksb_ni *ni = &k->ni[i];

		for (c = 0; c < KSB_CPTS; c++) {
			kfl_fid_close(test, KFL_FID(ni->rx[c]));
			kfl_fid_close(test, KFL_FID(ni->tx[c]));
			ni->rx[c] = ni->tx[c] = NULL;
		}
	}
	if (k->wq)
		flush_workqueue(k->wq);
	for (i = 0; i < KSB_NI; i++) {
		struct ksb_ni *ni = &k->ni[i];

		for (c = 0; c < KSB_CPTS; c++) {
			kfl_fid_close(test, KFL_FID(ni->rxcq[c].cq));
			kfl_fid_close(test, KFL_FID(ni->txcq[c].cq));
			ni->rxcq[c].cq = ni->txcq[c].cq = NULL;
			for (j = 0; j < KSB_IMM_BUFS; j++) {
				kfree(ni->imm[c][j]);
				ni->imm[c][j] = NULL;
			}
			for (j = 0; j < KSB_TNS; j++) {
				ksb_pages_free(&ni->tn[c][j].pages);
				ksb_pages_free(&ni->tgt[c][j].pages);
				memset(&ni->tn[c][j].pages, 0,
				       sizeof(ni->tn[c][j].pages));
				memset(&ni->tgt[c][j].pages, 0,
				       sizeof(ni->tgt[c][j].pages));
			}
		}
		kfl_fid_close(test, KFL_FID(ni->sep));
		ni->sep = NULL;
		kfl_fid_close(test, KFL_FID(ni->av));
		ni->av = NULL;
	}
	if (k->wq)
		destroy_workqueue(k->wq);
	k->wq = NULL;
}

static void ksb_cleanup(void *arg)
{
	ksb_close(NULL, arg);
}

/*
 * kfilnd_dev_alloc's device: kfi_open_ops(domain, KFI_CXI_DOM_OPS_1) and
 * get_device, a device kfilnd maps its KFI_SGL buffers for.
 */
static struct device *ksb_device(struct kunit *test, struct kfid_domain *dom)
{
	struct kfi_cxi_domain_ops *ops = NULL;
	struct device *dev = NULL;

	KUNIT_ASSERT_EQ(test, kfi_open_ops(&dom->fid, KFI_CXI_DOM_OPS_1, 0,
					   (void **)&ops, NULL), 0);
	KUNIT_ASSERT_NOT_NULL(test, ops);
	KUNIT_ASSERT_EQ(test, ops->get_device(&dom->fid, &dev), 0);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	return dev;
}

static void ksb_run(struct kunit *test, bool late)
{
	struct kfl *f = kfl_new(test);
	struct ksb *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	unsigned long t0;
	u64 ms;
	long left;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, k);
	k->f = f;
	for_each_online_cpu(i) {
		if (k->ncpu == KSB_CPUS)
			break;
		k->cpu[k->ncpu++] = i;
	}
	k->bytes = kfl_prov ? (u64)verbs_mib << 20 :
		   kfl_bulk_mib ? (u64)kfl_bulk_mib << 20 : KSB_BYTES;
	if (late)
		k->bytes = min_t(u64, k->bytes, 64ULL << 20);
	k->late = late;
	k->total = k->bytes / KSB_BULK;
	init_waitqueue_head(&k->done);
	for (i = 0; i < KSB_NI; i++)
		mutex_init(&k->ni[i].insert);
	/*
	 * current kfilnd's hints, with its connectionless caps, for two NIs
	 * on one interface (networks 0 and 1, as kfi and kfi1): the second
	 * reuses the first's fabric and domain
	 */
	f->by_if = true;
	for (i = 0; i < KSB_NI; i++) {
		struct kfi_info **info = i ? &f->info2 : &f->info;

		kfl_hints(test, f, KFL_CURRENT);
		f->hints->caps |= KFL_CAPS_CONNECTIONLESS;
		/*
		 * kfilnd_dom_get's dynamic resource hints (the cxi fabric ops
		 * open): per partition two CQs and a context pair; receives
		 * for LNet's credits (512) and kfilnd's immediate buffers (8)
		 */
		f->hints->domain_attr->cq_cnt = KSB_CPTS * 2;
		f->hints->domain_attr->tx_ctx_cnt = KSB_CPTS;
		f->hints->domain_attr->rx_ctx_cnt = KSB_CPTS;
		f->hints->rx_attr->size = KSB_RX_SIZE;
		f->hints->fabric_attr->fabric = f->fab;
		f->hints->domain_attr->domain = f->dom;
		snprintf(f->svc, sizeof(f->svc), "%d", i);
		KUNIT_ASSERT_EQ(test, kfl_getinfo(f, f->hints, info), 0);
		kfl_check_info(test, f, *info, f->hints);
		KUNIT_EXPECT_EQ(test, (*info)->caps & f->hints->caps,
				f->hints->caps & ~kfl_caps_lost);
		kfl_free_hints(&f->hints);
		if (i)
			continue;
		KUNIT_ASSERT_EQ(test, kfi_fabric((*info)->fabric_attr, &f->fab,
						 NULL), 0);
		kfl_fab_ops(test, f->fab);
		KUNIT_ASSERT_EQ(test, kfi_domain(f->fab, *info, &f->dom, f), 0);
	}
	KUNIT_EXPECT_PTR_EQ(test, f->info2->domain_attr->domain, f->dom);
	k->dev = ksb_device(test, f->dom);
	k->wq = alloc_workqueue("ksb", WQ_MEM_RECLAIM, 0);
	KUNIT_ASSERT_NOT_NULL(test, k->wq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ksb_cleanup, k),
			0);
	for (i = 0; i < KSB_NI; i++)
		ksb_ni_open(test, k, i, i ? f->info2 : f->info);
	ksb_insert(test, &k->ni[0], &k->ni[1]);
	if (!late)
		ksb_insert(test, &k->ni[1], &k->ni[0]);

	t0 = jiffies;
	for (i = 0; i < (late ? 1 : KSB_NI); i++)
		ksb_start_all(&k->ni[i]);
	left = wait_event_timeout(k->done,
				  atomic_read(&k->idle) ==
					  KSB_NI * KSB_CPTS * KSB_TNS ||
				  atomic_read(&k->failures), KSB_WAIT);
	ms = jiffies_to_msecs(jiffies - t0);
	KUNIT_EXPECT_GT_MSG(test, left, 0L, "stalled: %lld of %u MiB moved",
			    (s64)atomic64_read(&k->moved) >> 20, k->total);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&k->failures), 0, "%s", k->why);
	KUNIT_EXPECT_EQ(test, (u64)atomic64_read(&k->moved), k->bytes);
	/* the late NI's own transactions ran (after it learnt its peer) */
	for (i = 0; i < KSB_NI; i++)
		KUNIT_EXPECT_GT(test, atomic_read(&k->ni[i].runs), 0);
	kunit_info(test, "%llu MiB in %llu ms (%llu MB/s), %d entries, %d drain CPUs",
		   (u64)atomic64_read(&k->moved) >> 20, ms,
		   ms ? (u64)atomic64_read(&k->moved) / 1000 / ms : 0,
		   atomic_read(&k->entries), k->ncpu);
	ksb_close(test, k);
	kfl_teardown(test, f);
}

static void kfilnd_sep_bulk(struct kunit *test)
{
	ksb_run(test, false);
}

/*
 * As kfilnd_sep_bulk, with NI 1 inserting NI 0 only when NI 0's first
 * request came (kfilnd_peer_get on a NID it does not know), after NI 0's
 * connections to it were made: its receives directed to NI 0 must take
 * NI 0's bulk data and status from those connections (64 MiB).
 */
static void kfilnd_sep_late_insert(struct kunit *test)
{
	ksb_run(test, true);
}

/*
 * NIC addresses, the toolkit's rules (Documentation/lnet.md), on lo
 * (127.0.0.1/8: NIC address 1): discovery by interface name in each
 * address format, the AV's NIC forms and their refusals, an endpoint's
 * name, the domain's device.
 */
static void kfilnd_nic_addresses(struct kunit *test)
{
	struct kfl *f = kfl_new(test);
	struct kfi_info *h, *i = NULL, *bad;
	struct kcxi_addr a = { .qw = 0 }, want = { .qw = 0 };
	struct kfi_cxi_domain_ops *dops = NULL;
	struct device *dev = NULL;
	const struct sockaddr_in *sin;
	struct kfid_domain *dom2;
	struct kfid_av *av;
	struct kfid_ep *ep;
	struct kfi_av_attr av_attr = { .type = KFI_AV_UNSPEC };
	kfi_addr_t hdl, sym[4];
	char buf[48], exp[48];
	size_t len;
	int k, n;

	h = kfi_allocinfo();
	KUNIT_ASSERT_NOT_NULL(test, h);
	f->hints = h;
	h->fabric_attr->prov_name = kstrdup("tcp", GFP_KERNEL);
	/* KFI_ADDR_CXI asked for: the RDM entry, named by NIC address */
	h->addr_format = KFI_ADDR_CXI;
	KUNIT_ASSERT_EQ(test, kfi_getinfo(0, "lo", "7", KFI_SOURCE, h, &i), 0);
	KUNIT_EXPECT_NULL(test, i->next);
	KUNIT_EXPECT_EQ(test, i->ep_attr->type, KFI_EP_RDM);
	KUNIT_EXPECT_EQ(test, i->addr_format, (u32)KFI_ADDR_CXI);
	KUNIT_ASSERT_EQ(test, i->src_addrlen, sizeof(a));
	memcpy(&a, i->src_addr, sizeof(a));
	KUNIT_EXPECT_EQ(test, (int)a.nic, 1);
	KUNIT_EXPECT_EQ(test, (int)a.pid, 7);
	f->info = i;
	i = NULL;
	/* ... not for a numeric node, and not a socket address */
	KUNIT_EXPECT_EQ(test, kfi_getinfo(0, "127.0.0.1", "7", KFI_SOURCE, h,
					  &i), -ENODATA);
	/* socket addresses asked for: the interface's, service = port */
	h->addr_format = KFI_SOCKADDR_IN;
	KUNIT_ASSERT_EQ(test, kfi_getinfo(0, "lo", "7471", KFI_SOURCE, h, &i),
			0);
	for (n = 0, bad = i; bad; bad = bad->next, n++) {
		sin = bad->src_addr;
		KUNIT_EXPECT_EQ(test, bad->addr_format, (u32)KFI_SOCKADDR_IN);
		KUNIT_ASSERT_EQ(test, bad->src_addrlen, sizeof(*sin));
		KUNIT_EXPECT_EQ(test, sin->sin_addr.s_addr,
				htonl(INADDR_LOOPBACK));
		KUNIT_EXPECT_EQ(test, ntohs(sin->sin_port), 7471);
	}
	KUNIT_EXPECT_EQ(test, n, 2);	/* MSG and RDM */
	kfi_freeinfo(i);
	i = NULL;
	/* refusals: an index past 12 bits, a name no interface has, a name
	 * as a peer */
	h->addr_format = KFI_FORMAT_UNSPEC;
	KUNIT_EXPECT_EQ(test, kfi_getinfo(0, "lo", "4096", KFI_SOURCE, h, &i),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_getinfo(0, "lo", "0x1", KFI_SOURCE, h, &i),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_getinfo(0, "nosuchif0", "0", KFI_SOURCE, h,
					  &i), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_getinfo(0, "lo", "0", 0, h, &i), -EINVAL);
	KUNIT_EXPECT_NULL(test, i);
	kfl_free_hints(&f->hints);

	KUNIT_ASSERT_EQ(test, kfi_fabric(f->info->fabric_attr, &f->fab, NULL),
			0);
	KUNIT_ASSERT_EQ(test, kfi_domain(f->fab, f->info, &f->dom, f), 0);
	/* a NIC address the interface does not have: no such device */
	bad = kfi_dupinfo(f->info);
	KUNIT_ASSERT_NOT_NULL(test, bad);
	((struct kcxi_addr *)bad->src_addr)->nic = 5;
	KUNIT_EXPECT_EQ(test, kfi_domain(f->fab, bad, &dom2, NULL), -ENODEV);
	((struct kcxi_addr *)bad->src_addr)->nic = 1;
	bad->src_addrlen = 4;
	KUNIT_EXPECT_EQ(test, kfi_domain(f->fab, bad, &dom2, NULL), -EINVAL);
	kfi_freeinfo(bad);

	/* the domain's device, and nothing by another name */
	KUNIT_ASSERT_EQ(test, kfi_open_ops(&f->dom->fid, KFI_CXI_DOM_OPS_1, 0,
					   (void **)&dops, NULL), 0);
	KUNIT_ASSERT_EQ(test, dops->get_device(&f->dom->fid, &dev), 0);
	KUNIT_EXPECT_NOT_NULL(test, dev);
	KUNIT_EXPECT_EQ(test, dops->get_device(&f->dom->fid, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_open_ops(&f->dom->fid, KFI_CXI_FAB_OPS_1, 0,
					   (void **)&dops, NULL), -KFI_ENOSYS);

	/* an endpoint's name: its NIC address and index */
	KUNIT_ASSERT_EQ(test, kfi_av_open(f->dom, &av_attr, &av, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_endpoint(f->dom, f->info, &ep, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(ep, &av->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, kfi_enable(ep), 0);
	len = sizeof(want);
	KUNIT_ASSERT_EQ(test, kfi_getname(&ep->fid, &want, &len), 0);
	KUNIT_EXPECT_EQ(test, len, sizeof(want));
	KUNIT_EXPECT_EQ(test, want.qw, a.qw);

	/* the AV: kfilnd's strings, struct kcxi_addr, steps */
	KUNIT_ASSERT_EQ(test, kfi_av_insertsvc(av, "0x5", "2", &hdl, 0, NULL),
			1);
	len = sizeof(a);
	KUNIT_ASSERT_EQ(test, kfi_av_lookup(av, hdl, &a, &len), 0);
	KUNIT_EXPECT_EQ(test, len, sizeof(a));
	KUNIT_EXPECT_EQ(test, (int)a.nic, 5);
	KUNIT_EXPECT_EQ(test, (int)a.pid, 2);
	want.qw = 0;
	want.nic = 0x10;
	want.pid = 3;
	KUNIT_ASSERT_EQ(test, kfi_av_insert(av, &want, 1, &hdl, 0, NULL), 1);
	KUNIT_ASSERT_EQ(test, kfi_av_lookup(av, hdl, &a, &len), 0);
	KUNIT_EXPECT_EQ(test, a.qw, want.qw);
	KUNIT_ASSERT_EQ(test, kfi_av_insertsym(av, "0x20", 2, "1", 2, sym, 0,
					       NULL), 4);
	for (k = 0; k < 4; k++) {
		KUNIT_ASSERT_EQ(test, kfi_av_lookup(av, sym[k], &a, &len), 0);
		KUNIT_EXPECT_EQ(test, (int)a.nic, 0x20 + k / 2);
		KUNIT_EXPECT_EQ(test, (int)a.pid, 1 + k % 2);
	}
	KUNIT_EXPECT_EQ(test, kfi_av_insertsvc(av, "0x100000", "0", &hdl, 0,
					       NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_av_insertsvc(av, "1", "4096", &hdl, 0, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_av_insertsvc(av, "127.0.0.1", "0", &hdl, 0,
					       NULL), -EINVAL);
	want.flags = 1;
	KUNIT_EXPECT_EQ(test, kfi_av_insert(av, &want, 1, &hdl, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, hdl, (kfi_addr_t)KFI_ADDR_NOTAVAIL);
	want.flags = 0;
	len = sizeof(buf);
	KUNIT_ASSERT_PTR_EQ(test, kfi_av_straddr(av, &want, buf, &len),
			    (const char *)buf);
	snprintf(exp, sizeof(exp), "fi_addr_cxi://0x%016llx",
		 (unsigned long long)want.qw);
	KUNIT_EXPECT_STREQ(test, buf, exp);

	KUNIT_EXPECT_EQ(test, kfi_close(&ep->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&av->fid), 0);
	kfl_teardown(test, f);
}

static struct kunit_case kfilnd_cases[] = {
	KUNIT_CASE(kfilnd_getinfo_sequence_current),
	KUNIT_CASE(kfilnd_getinfo_sequence_r),
	KUNIT_CASE(kfilnd_nic_addresses),
	KUNIT_CASE(kfilnd_r_memory_registration),
	KUNIT_CASE(kfilnd_msg_data_path),
	KUNIT_CASE_SLOW(kfilnd_sep_bulk),
	KUNIT_CASE_SLOW(kfilnd_sep_late_insert),
	{}
};

static struct kunit_suite kfilnd_suite = {
	.name = "kfi_kfilnd",
	.test_cases = kfilnd_cases,
};

/*
 * kfilnd's bulk path over kfi_verbs on the RDMA device named, with
 * kfilnd's own hints (mr_mode 0: kfl_caps_lost).
 */
static int kfilnd_verbs_init(struct kunit *test)
{
	if (!verbs_node)
		kunit_skip(test, "no RDMA device named (verbs_node)");
	if (!verbs_if)
		kunit_skip(test, "no network device named (verbs_if)");
	kfl_node = verbs_node;
	kfl_ifname = verbs_if;
	kfl_nic = verbs_nic;
	kfl_prov = "verbs";
	kfl_caps_lost = KFI_REMOTE_READ | KFI_REMOTE_WRITE;
	return 0;
}

static void kfilnd_verbs_exit(struct kunit *test)
{
	kfl_node = KFL_NODE;
	kfl_ifname = KFL_IFNAME;
	kfl_nic = KFL_NIC;
	kfl_prov = NULL;
	kfl_caps_lost = 0;
}

static struct kunit_case kfilnd_verbs_cases[] = {
	KUNIT_CASE_SLOW(kfilnd_sep_bulk),
	KUNIT_CASE_SLOW(kfilnd_sep_late_insert),
	{}
};

static struct kunit_suite kfilnd_verbs_suite = {
	.name = "kfi_kfilnd_verbs",
	.init = kfilnd_verbs_init,
	.exit = kfilnd_verbs_exit,
	.test_cases = kfilnd_verbs_cases,
};

/*
 * The administrator's NIC address table (kfi_tcp's nic_map parameter,
 * Documentation/lnet.md): listed addresses first, both ways. With
 * 127.0.0.1 listed as NIC 0x41, lo's entries are NIC 0x41 (the rule says
 * 1), and a peer inserted as 0x41 is 127.0.0.1 (the rule says
 * 127.0.0.65, where nobody listens): kfilnd_sep_bulk moves its data
 * through both.
 */
#define KFL_NIC_MAP	"/sys/module/kfi_tcp/parameters/nic_map"
#define KFL_TABLE	"0x41=127.0.0.1"
#define KFL_TABLE_NIC	0x41

static int kfl_param_write(const char *path, const char *val)
{
	struct file *f = filp_open(path, O_WRONLY, 0);
	loff_t pos = 0;
	ssize_t n;

	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_write(f, val, strlen(val), &pos);
	filp_close(f, NULL);
	return n < 0 ? n : 0;
}

static ssize_t kfl_param_read(const char *path, char *buf, size_t len)
{
	struct file *f = filp_open(path, O_RDONLY, 0);
	loff_t pos = 0;
	ssize_t n;

	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, len - 1, &pos);
	filp_close(f, NULL);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

static int kfilnd_table_init(struct kunit *test)
{
	int rc = kfl_param_write(KFL_NIC_MAP, KFL_TABLE);

	KUNIT_ASSERT_EQ_MSG(test, rc, 0, "setting %s", KFL_NIC_MAP);
	kfl_nic = KFL_TABLE_NIC;
	kfl_bulk_mib = 64;
	return 0;
}

static void kfilnd_table_exit(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kfl_param_write(KFL_NIC_MAP, ""), 0);
	kfl_nic = KFL_NIC;
	kfl_bulk_mib = 0;
}

#define KFL_TRACE	"/sys/module/kfabric/parameters/getinfo_trace"

/*
 * The administrator's getinfo trace (Documentation/lnet.md, "When LNet
 * does not start"): kfabric's getinfo_trace switched on and read back;
 * kfilnd's hints asking for one transmit context more than a domain has
 * are refused as without it (-ENODATA), the most it has are answered.
 * The guest script checks the log line the refusal wrote (check
 * getinfo_trace_logged).
 */
static void kfilnd_getinfo_trace(struct kunit *test)
{
	struct kfl *f = kfl_new(test);
	struct kfi_info *i = NULL;
	char buf[8] = "";

	KUNIT_ASSERT_EQ(test, kfl_param_write(KFL_TRACE, "1"), 0);
	KUNIT_EXPECT_GT(test, kfl_param_read(KFL_TRACE, buf, sizeof(buf)), 0);
	KUNIT_EXPECT_EQ(test, buf[0], 'Y');
	kfl_hints(test, f, KFL_CURRENT);
	f->hints->caps |= KFL_CAPS_CONNECTIONLESS;
	f->hints->fabric_attr->prov_name = kstrdup("tcp", GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->hints->fabric_attr->prov_name);
	f->hints->domain_attr->tx_ctx_cnt = 8193;
	KUNIT_EXPECT_EQ(test, kfi_getinfo(0, "lo", "0", KFI_SOURCE, f->hints,
					  &i), -ENODATA);
	KUNIT_EXPECT_NULL(test, i);
	f->hints->domain_attr->tx_ctx_cnt = 8192;
	KUNIT_EXPECT_EQ(test, kfi_getinfo(0, "lo", "0", KFI_SOURCE, f->hints,
					  &i), 0);
	kfi_freeinfo(i);
	KUNIT_EXPECT_EQ(test, kfl_param_write(KFL_TRACE, "0"), 0);
	KUNIT_EXPECT_GT(test, kfl_param_read(KFL_TRACE, buf, sizeof(buf)), 0);
	KUNIT_EXPECT_EQ(test, buf[0], 'N');
	kfl_teardown(test, f);
}

/*
 * The table's refusals (the table stays), lo's NIC address from it, a
 * domain of lo's rule address refused, an unlisted peer by the rule.
 */
static void kfilnd_nic_table(struct kunit *test)
{
	struct kfl *f = kfl_new(test);
	struct kfi_info *h, *i = NULL;
	struct kcxi_addr a = { .qw = 0 };
	struct kfid_domain *dom2;
	struct kfid_av *av;
	struct kfi_av_attr av_attr = { .type = KFI_AV_UNSPEC };
	kfi_addr_t hdl;
	char buf[64];
	size_t len;

	KUNIT_EXPECT_EQ(test, kfl_param_write(KFL_NIC_MAP,
					      "1=1.2.3.4,0x1=1.2.3.5"), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfl_param_write(KFL_NIC_MAP, "0x100000=1.2.3.4"),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kfl_param_write(KFL_NIC_MAP, "1=1.2.3"), -EINVAL);
	KUNIT_ASSERT_GT(test, kfl_param_read(KFL_NIC_MAP, buf, sizeof(buf)),
			0L);
	KUNIT_EXPECT_STREQ(test, buf, KFL_TABLE "\n");

	h = kfi_allocinfo();
	KUNIT_ASSERT_NOT_NULL(test, h);
	f->hints = h;
	h->fabric_attr->prov_name = kstrdup("tcp", GFP_KERNEL);
	h->addr_format = KFI_ADDR_CXI;
	KUNIT_ASSERT_EQ(test, kfi_getinfo(0, "lo", "9", KFI_SOURCE, h, &i), 0);
	f->info = i;
	KUNIT_ASSERT_EQ(test, i->src_addrlen, sizeof(a));
	memcpy(&a, i->src_addr, sizeof(a));
	KUNIT_EXPECT_EQ(test, (int)a.nic, KFL_TABLE_NIC);
	KUNIT_EXPECT_EQ(test, (int)a.pid, 9);
	kfl_free_hints(&f->hints);

	KUNIT_ASSERT_EQ(test, kfi_fabric(i->fabric_attr, &f->fab, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_domain(f->fab, i, &f->dom, f), 0);
	/* lo's address is NIC 0x41 now, not the rule's 1 */
	i = kfi_dupinfo(f->info);
	KUNIT_ASSERT_NOT_NULL(test, i);
	((struct kcxi_addr *)i->src_addr)->nic = KFL_NIC;
	KUNIT_EXPECT_EQ(test, kfi_domain(f->fab, i, &dom2, NULL), -ENODEV);
	kfi_freeinfo(i);

	/* a listed peer and an unlisted one (the rule: 127.0.0.66) */
	KUNIT_ASSERT_EQ(test, kfi_av_open(f->dom, &av_attr, &av, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_av_insertsvc(av, "0x41", "3", &hdl, 0, NULL),
			1);
	len = sizeof(a);
	KUNIT_ASSERT_EQ(test, kfi_av_lookup(av, hdl, &a, &len), 0);
	KUNIT_EXPECT_EQ(test, (int)a.nic, KFL_TABLE_NIC);
	KUNIT_EXPECT_EQ(test, (int)a.pid, 3);
	KUNIT_ASSERT_EQ(test, kfi_av_insertsvc(av, "0x42", "0", &hdl, 0, NULL),
			1);
	KUNIT_ASSERT_EQ(test, kfi_av_lookup(av, hdl, &a, &len), 0);
	KUNIT_EXPECT_EQ(test, (int)a.nic, 0x42);
	kfl_fid_close(test, &av->fid);
	kfl_teardown(test, f);
}

static struct kunit_case kfilnd_table_cases[] = {
	KUNIT_CASE(kfilnd_nic_table),
	KUNIT_CASE(kfilnd_getinfo_trace),
	KUNIT_CASE_SLOW(kfilnd_sep_bulk),
	{}
};

static struct kunit_suite kfilnd_table_suite = {
	.name = "kfi_kfilnd_table",
	.init = kfilnd_table_init,
	.exit = kfilnd_table_exit,
	.test_cases = kfilnd_table_cases,
};

kunit_test_suites(&kfilnd_suite, &kfilnd_verbs_suite, &kfilnd_table_suite);

MODULE_DESCRIPTION("KUnit suite: Lustre kfilnd's calls over the public kfabric API");
MODULE_LICENSE("GPL");
