/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixtures of the KUnit modules that reach a provider through the public
 * API only: kfi_tcp_kunit.c (the tcp provider's own suites),
 * kfi_verbs_kunit.c (the verbs provider's data transfers) and
 * kfi_prov_kunit.c (suites run against each provider of kfi_provs[]).
 * Each includes this file and gets its own copy of the statics; neither
 * uses every function, hence __maybe_unused.
 *
 * The fixtures open cur_prov: its prov_name hint and its addresses.
 * kfi_prov_kunit's suites set it before each case (Documentation/
 * toolkit-plan.md §4.1); in kfi_tcp_kunit it stays tcp.
 */
#ifndef KFI_KUNIT_FIX_H
#define KFI_KUNIT_FIX_H

#include <kunit/test.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <net/ipv6.h>

#include <kfabric.h>
#include <kfi_domain.h>
#include <kfi_endpoint.h>
#include <kfi_eq.h>
#include <kfi_errno.h>
#include <kfi_cm.h>
#include <kfi_tagged.h>

#define V17 KFI_VERSION(1, 7)

/* A provider the shared suites run against. */
struct kfi_kunit_prov {
	const char *name;	/* prov_name hint */
	const char *node;	/* local address of the endpoints */
	const char *node6;	/* an IPv6 one; NULL: the IPv6 cases skip */
	uint64_t caps;		/* what it supports; cases needing more skip */
	uint32_t proto;		/* ep_attr->protocol_version hint (0: any) */
	bool rdm;		/* has KFI_EP_RDM endpoints (kfi_rdm_<prov>) */
};

/* kfi_provs[KFI_PROV_<name>]: kfi_prov_kunit.c builds suites by name */
enum { KFI_PROV_tcp, KFI_PROV_verbs, KFI_PROV_verbs_soft, KFI_PROV_verbs_siw };

static struct kfi_kunit_prov kfi_provs[] = {
	/*
	 * caps: every capability tcp_getinfo_walk_every_bit finds
	 * (walk_rows), which it asserts; kfi_cntr_<prov> asks for all.
	 */
	[KFI_PROV_tcp] = { "tcp", "127.0.0.1", "::1",
			   KFI_MSG | KFI_RMA | KFI_TAGGED | KFI_READ |
			   KFI_WRITE | KFI_RECV | KFI_SEND | KFI_REMOTE_READ |
			   KFI_REMOTE_WRITE | KFI_MULTI_RECV | KFI_TRIGGER |
			   KFI_FENCE | KFI_LOCAL_COMM | KFI_REMOTE_COMM |
			   KFI_RMA_EVENT, 0, true },
	/*
	 * verbs: node is the address of the RDMA device under test, set by
	 * kfi_prov_kunit's verbs_node parameter (without it, its suites
	 * skip; the device is rxe, which does atomics); messages, RMA,
	 * atomics and their triggered forms in direct mode (protocol
	 * version 1: no tagged messages or multi-receive buffers; no counted
	 * remote accesses).
	 */
	[KFI_PROV_verbs] = { "verbs", NULL, NULL,
			     KFI_MSG | KFI_RMA | KFI_ATOMIC | KFI_READ |
			     KFI_WRITE |
			     KFI_SEND | KFI_RECV | KFI_REMOTE_READ |
			     KFI_REMOTE_WRITE | KFI_TRIGGER |
			     KFI_LOCAL_COMM | KFI_REMOTE_COMM, 1, true },
	/* verbs in soft mode (protocol version 2): tagged, multi-receive */
	[KFI_PROV_verbs_soft] = { "verbs", NULL, NULL,
				  KFI_MSG | KFI_RMA | KFI_ATOMIC | KFI_READ |
				  KFI_WRITE | KFI_TAGGED | KFI_MULTI_RECV |
				  KFI_SEND | KFI_RECV | KFI_REMOTE_READ |
				  KFI_REMOTE_WRITE | KFI_TRIGGER |
				  KFI_LOCAL_COMM | KFI_REMOTE_COMM, 2 },
	/*
	 * verbs on an iWARP device (siw; node: kfi_prov_kunit's siw_node),
	 * for the RDM suite only (rxm's credits): no atomics
	 */
	[KFI_PROV_verbs_siw] = { "verbs", NULL, NULL,
				 KFI_MSG | KFI_RMA | KFI_READ | KFI_WRITE |
				 KFI_SEND | KFI_RECV | KFI_REMOTE_READ |
				 KFI_REMOTE_WRITE | KFI_TRIGGER |
				 KFI_LOCAL_COMM | KFI_REMOTE_COMM, 1, true },
};

/* The provider the fixtures open. */
static const struct kfi_kunit_prov *cur_prov = &kfi_provs[KFI_PROV_tcp];

/* Hints naming provider @p. */
static __maybe_unused struct kfi_info *prov_hints(struct kunit *test,
						  const struct kfi_kunit_prov *p)
{
	struct kfi_info *h = kfi_allocinfo();

	KUNIT_ASSERT_NOT_NULL(test, h);
	h->fabric_attr->prov_name = kstrdup(p->name, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h->fabric_attr->prov_name);
	h->ep_attr->protocol_version = p->proto;
	return h;
}

/* Skips the case unless the provider under test has every cap of @caps. */
static __maybe_unused void prov_need(struct kunit *test, uint64_t caps)
{
	if ((cur_prov->caps & caps) != caps)
		kunit_skip(test, "%s: lacks caps %#llx", cur_prov->name,
			   (unsigned long long)(caps & ~cur_prov->caps));
}

KUNIT_DEFINE_ACTION_WRAPPER(fix_vfree, vfree, const void *);

/* @n zeroed bytes of vmalloc'ed memory, freed when the case ends. */
static __maybe_unused u8 *fix_vzalloc(struct kunit *test, size_t n)
{
	u8 *p = vzalloc(n);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fix_vfree, p),
			0);
	return p;
}

/* Fills @p with a pattern of @seed. */
static __maybe_unused void fill(u8 *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (u8)(seed + i * 7 + (i >> 8));
}

/* A tagged receive by kfi_trecvmsg() with @flags, context @ctx. */
static __maybe_unused ssize_t trecv_flags(struct kfid_ep *ep, void *buf,
					  size_t len, u64 tag, void *ctx,
					  u64 flags)
{
	struct kvec v = { buf, len };
	struct kfi_msg_tagged m = { .type = KFI_KVEC, .msg_iov = &v,
				    .iov_count = len ? 1 : 0, .tag = tag,
				    .context = ctx };

	return kfi_trecvmsg(ep, &m, flags);
}

/* ------------------------------------------------------------- domain */

struct dom_fixture {
	struct kfi_info *hints, *list;
	struct kfid_fabric *fab;
	struct kfid_domain *dom;
};

/*
 * Capabilities and default op flags the next dom_setup_at() asks for (a
 * suite or test sets them).
 */
static uint64_t dom_hint_caps, dom_hint_tx_flags, dom_hint_rx_flags;
/* The endpoint type the next dom_setup_at() asks for (0: any). */
static __maybe_unused enum kfi_ep_type dom_hint_ep_type;

static __maybe_unused void dom_setup_at(struct kunit *test,
					struct dom_fixture *f, int mr_mode,
					const char *node, uint64_t flags)
{
	memset(f, 0, sizeof(*f));
	f->hints = prov_hints(test, cur_prov);
	f->hints->caps = dom_hint_caps;
	f->hints->tx_attr->op_flags = dom_hint_tx_flags;
	f->hints->rx_attr->op_flags = dom_hint_rx_flags;
	f->hints->ep_attr->type = dom_hint_ep_type;
	KUNIT_ASSERT_EQ(test, kfi_getinfo(V17, node, NULL, flags, f->hints,
					  &f->list), 0);
	f->list->domain_attr->mr_mode = mr_mode;
	KUNIT_ASSERT_EQ(test, kfi_fabric(f->list->fabric_attr, &f->fab, NULL),
			0);
	KUNIT_ASSERT_EQ(test, kfi_domain(f->fab, f->list, &f->dom, NULL), 0);
}

static __maybe_unused void dom_setup(struct kunit *test, struct dom_fixture *f,
				     int mr_mode)
{
	dom_setup_at(test, f, mr_mode, NULL, 0);
}

static __maybe_unused void dom_teardown(struct kunit *test,
					struct dom_fixture *f)
{
	if (f->dom)
		KUNIT_EXPECT_EQ(test, kfi_close(&f->dom->fid), 0);
	if (f->fab)
		KUNIT_EXPECT_EQ(test, kfi_close(&f->fab->fid), 0);
	kfi_freeinfo(f->list);
	kfi_freeinfo(f->hints);
	/* a second teardown (a case's release after its own) does nothing */
	f->dom = NULL;
	f->fab = NULL;
	f->list = NULL;
	f->hints = NULL;
}

/* ---------------------------------------------------------------- CM */

#define CM_WAIT_MS 5000

/*
 * Two sides on one address in one fabric and domain: a pep with its EQ,
 * a client endpoint with its own, and (once accepted) a server endpoint
 * sharing the pep's EQ.
 */
struct cm_fixture {
	struct dom_fixture d;
	struct kfid_eq *peq, *ceq;
	struct kfid_pep *pep;
	struct kfid_ep *cep, *sep;
	/* the pep's address: sockaddr_in or sockaddr_in6 (cm_setup_at()) */
	union {
		struct sockaddr_in paddr;
		struct sockaddr_in6 paddr6;
	};
};

/* Room for a CM entry with 256 bytes of data. */
struct cm_event {
	struct kfi_eq_cm_entry e;
	u8 data[256];
};

static __maybe_unused void cm_open_eq(struct kunit *test, struct cm_fixture *f,
				      struct kfid_eq **eq)
{
	struct kfi_eq_attr attr = { .size = 16, .wait_obj = KFI_WAIT_UNSPEC };

	KUNIT_ASSERT_EQ(test, kfi_eq_open(f->d.fab, &attr, eq, NULL, NULL), 0);
}

/*
 * Everything on @node (KFI_SOURCE, port 0), a numeric address (the
 * provider's node or node6: 127.0.0.1 or ::1 for tcp); the pep listens on
 * it.
 */
static __maybe_unused void cm_setup_at(struct kunit *test, struct cm_fixture *f,
				       const char *node)
{
	size_t len = sizeof(f->paddr6);
	bool v6 = strchr(node, ':');
	struct in6_addr want6;
	__be32 want4;

	if (v6)
		KUNIT_ASSERT_EQ(test, in6_pton(node, -1, want6.s6_addr, -1,
					       NULL), 1);
	else
		KUNIT_ASSERT_EQ(test, in4_pton(node, -1, (u8 *)&want4, -1,
					       NULL), 1);

	memset(f, 0, sizeof(*f));
	dom_setup_at(test, &f->d, 0, node, KFI_SOURCE);
	KUNIT_ASSERT_NOT_NULL(test, f->d.list->src_addr);
	cm_open_eq(test, f, &f->peq);
	cm_open_eq(test, f, &f->ceq);
	KUNIT_ASSERT_EQ(test, kfi_passive_ep(f->d.fab, f->d.list, &f->pep,
					     NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_pep_bind(f->pep, &f->peq->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, kfi_listen(f->pep), 0);
	KUNIT_ASSERT_EQ(test, kfi_getname(&f->pep->fid, &f->paddr6, &len), 0);
	if (v6) {
		KUNIT_EXPECT_EQ(test, len, sizeof(f->paddr6));
		KUNIT_EXPECT_EQ(test, f->paddr6.sin6_family,
				(sa_family_t)AF_INET6);
		KUNIT_EXPECT_NE(test, f->paddr6.sin6_port, 0);
		KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(&f->paddr6.sin6_addr,
							&want6));
	} else {
		KUNIT_EXPECT_EQ(test, len, sizeof(f->paddr));
		KUNIT_EXPECT_EQ(test, f->paddr.sin_family, (sa_family_t)AF_INET);
		KUNIT_EXPECT_NE(test, f->paddr.sin_port, 0);
		KUNIT_EXPECT_EQ(test, f->paddr.sin_addr.s_addr, want4);
	}
	KUNIT_ASSERT_EQ(test, kfi_endpoint(f->d.dom, f->d.list, &f->cep, f), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(f->cep, &f->ceq->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, kfi_enable(f->cep), 0);
}

static __maybe_unused void cm_setup(struct kunit *test, struct cm_fixture *f)
{
	cm_setup_at(test, f, cur_prov->node);
}

static __maybe_unused void cm_teardown(struct kunit *test, struct cm_fixture *f)
{
	if (f->sep)
		KUNIT_EXPECT_EQ(test, kfi_close(&f->sep->fid), 0);
	if (f->cep)
		KUNIT_EXPECT_EQ(test, kfi_close(&f->cep->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&f->pep->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&f->peq->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&f->ceq->fid), 0);
	dom_teardown(test, &f->d);
}

/* Waits for one event; returns its type, the entry in @ev. */
static __maybe_unused int cm_wait(struct kunit *test, struct kfid_eq *eq,
				  struct cm_event *ev, ssize_t *len)
{
	uint32_t type = ~0U;

	memset(ev, 0, sizeof(*ev));
	*len = kfi_eq_sread(eq, &type, ev, sizeof(*ev), CM_WAIT_MS, 0);
	return *len < 0 ? (int)*len : (int)type;
}

/* Server side: waits for the request, checks it, returns its info. */
static __maybe_unused struct kfi_info *cm_get_connreq(struct kunit *test,
						      struct cm_fixture *f,
						      const char *data,
						      size_t dlen)
{
	struct cm_event ev;
	struct sockaddr_in *peer;
	struct sockaddr_in6 *peer6;
	ssize_t len;

	KUNIT_ASSERT_EQ(test, cm_wait(test, f->peq, &ev, &len), KFI_CONNREQ);
	KUNIT_EXPECT_EQ(test, (size_t)len, sizeof(ev.e) + dlen);
	KUNIT_EXPECT_PTR_EQ(test, ev.e.fid, &f->pep->fid);
	KUNIT_EXPECT_EQ(test, memcmp(ev.e.data, data, dlen), 0);
	KUNIT_ASSERT_NOT_NULL(test, ev.e.info);
	KUNIT_ASSERT_NOT_NULL(test, ev.e.info->handle);
	KUNIT_EXPECT_EQ(test, ev.e.info->handle->fclass,
			(size_t)KFI_CLASS_CONNREQ);
	KUNIT_EXPECT_EQ(test, ev.e.info->ep_attr->type, KFI_EP_MSG);
	/* the request names both ends */
	KUNIT_ASSERT_NOT_NULL(test, ev.e.info->dest_addr);
	KUNIT_ASSERT_NOT_NULL(test, ev.e.info->src_addr);
	if (f->paddr.sin_family == AF_INET6) {
		/* of the listener's family, as sockaddr_in6 */
		KUNIT_EXPECT_EQ(test, ev.e.info->addr_format,
				(u32)KFI_SOCKADDR_IN6);
		KUNIT_EXPECT_EQ(test, ev.e.info->dest_addrlen,
				sizeof(struct sockaddr_in6));
		KUNIT_EXPECT_EQ(test, ev.e.info->src_addrlen,
				sizeof(struct sockaddr_in6));
		peer6 = ev.e.info->dest_addr;
		KUNIT_EXPECT_EQ(test, peer6->sin6_family, (sa_family_t)AF_INET6);
		/* the fixtures connect from the listener's own address */
		KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(&peer6->sin6_addr,
							&f->paddr6.sin6_addr));
		KUNIT_EXPECT_NE(test, peer6->sin6_port, 0);
		peer6 = ev.e.info->src_addr;
		KUNIT_EXPECT_EQ(test, peer6->sin6_port, f->paddr6.sin6_port);
		return ev.e.info;
	}
	KUNIT_EXPECT_EQ(test, ev.e.info->addr_format, (u32)KFI_SOCKADDR_IN);
	peer = ev.e.info->dest_addr;
	KUNIT_EXPECT_EQ(test, peer->sin_family, (sa_family_t)AF_INET);
	KUNIT_EXPECT_EQ(test, peer->sin_addr.s_addr, f->paddr.sin_addr.s_addr);
	KUNIT_EXPECT_NE(test, peer->sin_port, 0);
	KUNIT_EXPECT_EQ(test, ((struct sockaddr_in *)ev.e.info->src_addr)->sin_port,
			f->paddr.sin_port);
	return ev.e.info;
}

/* ------------------------------------------------------- data transfers */

/*
 * A connected pair over loopback: client endpoint (cep) and server
 * endpoint (sep), each with a transmit and a receive CQ of the tagged
 * format (so that every field of an entry can be checked).
 */
struct xf_fixture {
	struct cm_fixture c;
	struct kfid_cq *ctx, *crx, *stx, *srx;
	/* with counters: client SEND, client READ|WRITE, server RECV,
	 * server REMOTE_READ|REMOTE_WRITE */
	struct kfid_cntr *cn[4];
};

#define XF_WAIT_MS 5000

/*
 * CQs opened by the next xf_setup() get xf_cq_handler (set by a test, then
 * cleared). The handler counts its calls, and those made in the thread in
 * xf_caller (a test sets it around its own kfi calls).
 */
static bool xf_handlers;
/* Bind flags of the next xf_connect()'s server receive CQ besides KFI_RECV. */
static uint64_t xf_srx_flags;
static struct task_struct *xf_caller;
static atomic_t xf_handler_calls, xf_handler_calls_in_caller;

static __maybe_unused void xf_cq_handler(struct kfid_cq *cq, void *context)
{
	atomic_inc(&xf_handler_calls);
	if (READ_ONCE(xf_caller) == current)
		atomic_inc(&xf_handler_calls_in_caller);
}

/*
 * With xf_aff set (by a test, around xf_setup()), the four CQs (client tx,
 * client rx, server tx, server rx: xf_aff[0..3]) are opened with
 * KFI_AFFINITY on xf_aff[i].cpu and aff_handler, which counts its calls
 * and those made on another CPU.
 */
struct aff_rec {
	int cpu;
	atomic_t calls, wrong;
	int wrong_cpu;
};

static struct aff_rec *xf_aff;

static __maybe_unused void aff_handler(struct kfid_cq *cq, void *context)
{
	struct aff_rec *r = context;
	int cpu = raw_smp_processor_id();

	if (cpu != r->cpu) {
		WRITE_ONCE(r->wrong_cpu, cpu);
		atomic_inc(&r->wrong);
	}
	atomic_inc(&r->calls);
}

static __maybe_unused struct kfid_cq *xf_cq(struct kunit *test,
					    struct xf_fixture *f, int i)
{
	struct kfi_cq_attr attr = { .size = 256,
				    .format = KFI_CQ_FORMAT_TAGGED };
	kfi_comp_handler h = xf_handlers ? xf_cq_handler : NULL;
	void *ctx = NULL;
	struct kfid_cq *cq;

	if (xf_aff) {
		attr.flags = KFI_AFFINITY;
		attr.signaling_vector = xf_aff[i].cpu;
		h = aff_handler;
		ctx = &xf_aff[i];
	}
	KUNIT_ASSERT_EQ(test, kfi_cq_open(f->c.d.dom, &attr, &cq, h, ctx), 0);
	return cq;
}

/* The node the next xf_open_ex() opens on (once; NULL: cur_prov->node). */
static const char *xf_next_node;

/*
 * Opens everything; @cinfo_tx_size sizes the client's transmit queue (0:
 * default); @cflags are the client's transmit CQ bind flags besides
 * KFI_TRANSMIT. Connects unless @connect is false (then the client is
 * enabled but not connected: xf_connect() finishes).
 */
static __maybe_unused void xf_open_ex(struct kunit *test, struct xf_fixture *f,
				      size_t ctx_size, uint64_t cflags,
				      bool cntrs)
{
	struct cm_fixture *c = &f->c;
	size_t len = sizeof(c->paddr6);
	const char *node = xf_next_node ?: cur_prov->node;
	int i;

	xf_next_node = NULL;
	memset(f, 0, sizeof(*f));
	dom_setup_at(test, &c->d, 0, node, KFI_SOURCE);
	KUNIT_ASSERT_EQ(test, c->d.list->addr_format,
			strchr(node, ':') ? (u32)KFI_SOCKADDR_IN6 :
					    (u32)KFI_SOCKADDR_IN);
	cm_open_eq(test, c, &c->peq);
	cm_open_eq(test, c, &c->ceq);
	KUNIT_ASSERT_EQ(test, kfi_passive_ep(c->d.fab, c->d.list, &c->pep,
					     NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_pep_bind(c->pep, &c->peq->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, kfi_listen(c->pep), 0);
	KUNIT_ASSERT_EQ(test, kfi_getname(&c->pep->fid, &c->paddr, &len), 0);
	f->ctx = xf_cq(test, f, 0);
	f->crx = xf_cq(test, f, 1);
	f->stx = xf_cq(test, f, 2);
	f->srx = xf_cq(test, f, 3);
	if (ctx_size)
		c->d.list->tx_attr->size = ctx_size;
	KUNIT_ASSERT_EQ(test, kfi_endpoint(c->d.dom, c->d.list, &c->cep, f),
			0);
	c->d.list->tx_attr->size = 0;
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(c->cep, &c->ceq->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(c->cep, &f->ctx->fid,
					  KFI_TRANSMIT | cflags), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(c->cep, &f->crx->fid, KFI_RECV), 0);
	for (i = 0; cntrs && i < 4; i++)
		KUNIT_ASSERT_EQ(test, kfi_cntr_open(c->d.dom, NULL, &f->cn[i],
						    NULL), 0);
	if (cntrs) {
		KUNIT_ASSERT_EQ(test, kfi_ep_bind(c->cep, &f->cn[0]->fid,
						  KFI_SEND), 0);
		KUNIT_ASSERT_EQ(test, kfi_ep_bind(c->cep, &f->cn[1]->fid,
						  KFI_READ | KFI_WRITE), 0);
	}
	KUNIT_ASSERT_EQ(test, kfi_enable(c->cep), 0);
}

static __maybe_unused void xf_open(struct kunit *test, struct xf_fixture *f,
				   size_t ctx_size, uint64_t cflags)
{
	xf_open_ex(test, f, ctx_size, cflags, false);
}

static __maybe_unused void xf_connect(struct kunit *test, struct xf_fixture *f)
{
	struct cm_fixture *c = &f->c;
	struct kfi_info *req;
	struct cm_event ev;
	ssize_t len;

	KUNIT_ASSERT_EQ(test, kfi_connect(c->cep, &c->paddr, NULL, 0), 0);
	req = cm_get_connreq(test, c, "", 0);
	KUNIT_ASSERT_EQ(test, kfi_endpoint(c->d.dom, req, &c->sep, f), 0);
	kfi_freeinfo(req);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(c->sep, &c->peq->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(c->sep, &f->stx->fid, KFI_TRANSMIT),
			0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(c->sep, &f->srx->fid,
					  KFI_RECV | xf_srx_flags), 0);
	if (f->cn[2]) {
		KUNIT_ASSERT_EQ(test, kfi_ep_bind(c->sep, &f->cn[2]->fid,
						  KFI_RECV), 0);
		/* remote accesses count only where they are events */
		if (cur_prov->caps & KFI_RMA_EVENT)
			KUNIT_ASSERT_EQ(test, kfi_ep_bind(c->sep,
							  &f->cn[3]->fid,
							  KFI_REMOTE_READ |
							  KFI_REMOTE_WRITE), 0);
	}
	KUNIT_ASSERT_EQ(test, kfi_enable(c->sep), 0);
	KUNIT_ASSERT_EQ(test, kfi_accept(c->sep, NULL, 0), 0);
	KUNIT_ASSERT_EQ(test, cm_wait(test, c->ceq, &ev, &len), KFI_CONNECTED);
	KUNIT_ASSERT_EQ(test, cm_wait(test, c->peq, &ev, &len), KFI_CONNECTED);
}

static __maybe_unused void xf_setup(struct kunit *test, struct xf_fixture *f)
{
	xf_open(test, f, 0, 0);
	xf_connect(test, f);
}

static __maybe_unused void xf_teardown(struct kunit *test, struct xf_fixture *f)
{
	struct cm_fixture *c = &f->c;
	int i;

	if (c->sep)
		KUNIT_EXPECT_EQ(test, kfi_close(&c->sep->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&c->cep->fid), 0);
	c->sep = NULL;
	c->cep = NULL;
	KUNIT_EXPECT_EQ(test, kfi_close(&f->ctx->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&f->crx->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&f->stx->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&f->srx->fid), 0);
	for (i = 0; i < 4; i++)
		if (f->cn[i])
			KUNIT_EXPECT_EQ(test, kfi_close(&f->cn[i]->fid), 0);
	cm_teardown(test, c);
}

/* Waits for one entry; returns 1, or the error (-KFI_EAVAIL: error entry). */
static __maybe_unused ssize_t xf_wait(struct kfid_cq *cq,
				      struct kfi_cq_tagged_entry *e)
{
	memset(e, 0, sizeof(*e));
	return kfi_cq_sread(cq, e, 1, NULL, XF_WAIT_MS);
}

/* Waits for an error entry and returns it in @e. */
static __maybe_unused void xf_wait_err(struct kunit *test, struct kfid_cq *cq,
				       struct kfi_cq_err_entry *e)
{
	struct kfi_cq_tagged_entry t;

	KUNIT_ASSERT_EQ(test, xf_wait(cq, &t), (ssize_t)-KFI_EAVAIL);
	memset(e, 0, sizeof(*e));
	KUNIT_ASSERT_EQ(test, kfi_cq_readerr(cq, e, 0), 1);
}

static __maybe_unused void xf_expect_none(struct kunit *test,
					  struct kfid_cq *cq)
{
	struct kfi_cq_tagged_entry e;

	KUNIT_EXPECT_EQ(test, kfi_cq_read(cq, &e, 1), (ssize_t)-EAGAIN);
}

#endif /* KFI_KUNIT_FIX_H */
