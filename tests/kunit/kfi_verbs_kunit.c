// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites of kfi_verbs.ko through the public API only: its
 * kfi_getinfo entries for the software RDMA devices the guest set up,
 * domains on them, hot removal and addition of a device, and endpoints'
 * connection management. The guest
 * (tests/guest/verbs.sh) creates one rxe and one siw device, each on a
 * network device with an IPv4 address, and names them in the module
 * parameters; without them every case skips.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/module.h>
#include <linux/inet.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/delay.h>
#include <linux/umh.h>

#include <kfabric.h>
#include <kfi_domain.h>
#include <kfi_endpoint.h>
#include <kfi_eq.h>
#include <kfi_errno.h>
#include <kfi_cm.h>
#include <kfi_rma.h>
#include <kfi_atomic.h>
#include <kfi_trigger.h>
#include <linux/bvec.h>
#include <linux/scatterlist.h>
#include <linux/vmalloc.h>

#include "kfi_kunit_fix.h"

#define V17 KFI_VERSION(1, 7)
/* Pages of one fast registration (KFI_VERBS_MR_PAGES) */
#define KFI_VERBS_TEST_MR_PAGES 256
/*
 * A service without a node: every entry carries its local address with
 * this port (find_entry() tells the devices apart by address).
 */
#define SERVICE "7471"

static char *rxe_dev, *rxe_netdev, *rxe_node, *siw_dev, *siw_netdev,
	*siw_node;
module_param(rxe_dev, charp, 0444);
MODULE_PARM_DESC(rxe_dev, "Name of an rxe device in the test's namespace");
module_param(rxe_netdev, charp, 0444);
MODULE_PARM_DESC(rxe_netdev, "Its network device (to add it back)");
module_param(rxe_node, charp, 0444);
MODULE_PARM_DESC(rxe_node, "The IPv4 address of that network device");
module_param(siw_dev, charp, 0444);
MODULE_PARM_DESC(siw_dev, "Name of a siw device");
module_param(siw_netdev, charp, 0444);
MODULE_PARM_DESC(siw_netdev, "Its network device (to add it back)");
module_param(siw_node, charp, 0444);
MODULE_PARM_DESC(siw_node, "The IPv4 address of its network device");

static int verbs_init(struct kunit *test)
{
	if (!rxe_dev || !rxe_netdev || !rxe_node || !siw_dev || !siw_netdev ||
	    !siw_node)
		kunit_skip(test, "no RDMA devices named (module parameters)");
	return 0;
}

static struct kfi_info *verbs_hints(struct kunit *test)
{
	struct kfi_info *h = kfi_allocinfo();

	KUNIT_ASSERT_NOT_NULL(test, h);
	h->fabric_attr->prov_name = kstrdup("verbs", GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h->fabric_attr->prov_name);
	return h;
}

/*
 * The entry of @list for domain @dev with IPv4 source address @node, or
 * NULL.
 */
static struct kfi_info *find_entry(struct kfi_info *list, const char *dev,
				   const char *node)
{
	struct sockaddr_in *sin;
	__be32 a;

	if (!in4_pton(node, -1, (u8 *)&a, -1, NULL))
		return NULL;
	for (; list; list = list->next) {
		if (strcmp(list->domain_attr->name, dev) ||
		    list->addr_format != KFI_SOCKADDR_IN || !list->src_addr)
			continue;
		sin = list->src_addr;
		if (sin->sin_family == AF_INET && sin->sin_addr.s_addr == a)
			return list;
	}
	return NULL;
}

/* Runs the rdma tool (iproute2) with the arguments @args; its exit status. */
static int rdma_tool(const char *const *args)
{
	static char *envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
	char *argv[12] = { "/usr/bin/rdma" };
	int i;

	for (i = 0; args[i] && i < ARRAY_SIZE(argv) - 2; i++)
		argv[i + 1] = (char *)args[i];
	return call_usermodehelper(argv[0], argv, envp, UMH_WAIT_PROC);
}

/* Whether kfi_getinfo lists @dev with address @node (within 5 s). */
static bool listed_soon(struct kunit *test, const char *dev, const char *node)
{
	struct kfi_info *h = verbs_hints(test), *list;
	bool found = false;
	int i;

	for (i = 0; i < 50 && !found; i++) {
		if (i)
			msleep(100);
		list = NULL;
		if (!kfi_getinfo(V17, NULL, SERVICE, 0, h, &list))
			found = find_entry(list, dev, node);
		kfi_freeinfo(list);
	}
	kfi_freeinfo(h);
	return found;
}

/* Device @i of the two under test: 0 rxe, 1 siw. */
static const char *vx_dev(int i)
{
	return i ? siw_dev : rxe_dev;
}

static const char *vx_node(int i)
{
	return i ? siw_node : rxe_node;
}

/* Deletes device @i (rdma link delete). */
static void vx_dev_delete(struct kunit *test, int i)
{
	const char *del[] = { "link", "delete", vx_dev(i), NULL };

	KUNIT_ASSERT_EQ(test, rdma_tool(del), 0);
}

/* Adds device @i back on its network device and waits until listed. */
static void vx_dev_add(struct kunit *test, int i)
{
	const char *add[] = { "link", "add", vx_dev(i), "type",
			      i ? "siw" : "rxe", "netdev",
			      i ? siw_netdev : rxe_netdev, NULL };

	KUNIT_ASSERT_EQ(test, rdma_tool(add), 0);
	KUNIT_EXPECT_TRUE(test, listed_soon(test, vx_dev(i), vx_node(i)));
}

/* ------------------------------------------------------------ getinfo */

/*
 * Every device is listed with the names libfabric's verbs provider gives
 * (fabric: IB-0x<GID 0 subnet prefix> or Ethernet-iWARP; domain: the
 * device), its transport's protocol, message endpoints, the provider's
 * name, and the addresses of its network device as source addresses.
 */
static void verbs_getinfo_lists_devices(struct kunit *test)
{
	struct kfi_info *h = verbs_hints(test), *list = NULL, *e;

	KUNIT_ASSERT_EQ(test, kfi_getinfo(V17, NULL, SERVICE, 0, h, &list), 0);
	e = find_entry(list, rxe_dev, rxe_node);
	KUNIT_ASSERT_NOT_NULL_MSG(test, e, "no entry for %s %s", rxe_dev,
				  rxe_node);
	KUNIT_EXPECT_STREQ(test, e->fabric_attr->name,
			   "IB-0xfe80000000000000");
	KUNIT_EXPECT_STREQ(test, e->fabric_attr->prov_name, "verbs");
	KUNIT_EXPECT_EQ(test, e->ep_attr->type, KFI_EP_MSG);
	KUNIT_EXPECT_EQ(test, e->ep_attr->protocol,
			(uint32_t)KFI_PROTO_RDMA_CM_IB_RC);
	KUNIT_EXPECT_GT(test, e->tx_attr->size, (size_t)0);
	KUNIT_EXPECT_GT(test, e->ep_attr->max_msg_size, (size_t)0);
	e = find_entry(list, siw_dev, siw_node);
	KUNIT_ASSERT_NOT_NULL_MSG(test, e, "no entry for %s %s", siw_dev,
				  siw_node);
	KUNIT_EXPECT_STREQ(test, e->fabric_attr->name, "Ethernet-iWARP");
	KUNIT_EXPECT_EQ(test, e->ep_attr->protocol, (uint32_t)KFI_PROTO_IWARP);
	/* a device is listed only with its own addresses */
	KUNIT_EXPECT_NULL(test, find_entry(list, rxe_dev, siw_node));
	KUNIT_EXPECT_NULL(test, find_entry(list, siw_dev, rxe_node));
	for (e = list; e; e = e->next) {
		KUNIT_EXPECT_STREQ(test, e->fabric_attr->prov_name, "verbs");
		/* the device's queue pairs bound the endpoints */
		KUNIT_EXPECT_GT(test, e->domain_attr->ep_cnt, (size_t)0);
	}
	kfi_freeinfo(list);
	list = NULL;
	/* a consumer asking for endpoints finds the device, one asking for
	 * more than it has queue pairs does not */
	h->domain_attr->ep_cnt = 16;
	KUNIT_ASSERT_EQ(test, kfi_getinfo(V17, NULL, SERVICE, 0, h, &list), 0);
	KUNIT_EXPECT_NOT_NULL(test, find_entry(list, rxe_dev, rxe_node));
	kfi_freeinfo(list);
	list = NULL;
	h->domain_attr->ep_cnt = SIZE_MAX;
	KUNIT_EXPECT_EQ(test, kfi_getinfo(V17, NULL, SERVICE, 0, h, &list),
			-ENODATA);
	KUNIT_EXPECT_NULL(test, list);
	kfi_freeinfo(h);
}

/*
 * A node with KFI_SOURCE selects the device holding that address; a node
 * no device holds finds nothing.
 */
static void verbs_getinfo_by_node(struct kunit *test)
{
	struct kfi_info *h = verbs_hints(test), *list = NULL, *e;
	int n = 0;

	KUNIT_ASSERT_EQ(test, kfi_getinfo(V17, siw_node, "7471", KFI_SOURCE, h,
					  &list), 0);
	for (e = list; e; e = e->next, n++) {
		struct sockaddr_in *sin = e->src_addr;

		KUNIT_EXPECT_STREQ(test, e->domain_attr->name, siw_dev);
		KUNIT_ASSERT_NOT_NULL(test, sin);
		KUNIT_EXPECT_EQ(test, ntohs(sin->sin_port), 7471);
		/* direct mode first, then soft mode, then RDM (rxm with its
		 * credits on iWARP) */
		KUNIT_EXPECT_EQ(test, e->ep_attr->type,
				n < 2 ? KFI_EP_MSG : KFI_EP_RDM);
		if (n < 2)
			KUNIT_EXPECT_EQ(test, e->ep_attr->protocol_version,
					(uint32_t)(n + 1));
	}
	KUNIT_EXPECT_EQ(test, n, 3);
	kfi_freeinfo(list);
	list = NULL;
	/* on rxe (InfiniBand transport) the RDM entry (rxm) comes third too */
	KUNIT_ASSERT_EQ(test, kfi_getinfo(V17, rxe_node, "7471", KFI_SOURCE, h,
					  &list), 0);
	for (n = 0, e = list; e; e = e->next, n++) {
		KUNIT_EXPECT_STREQ(test, e->domain_attr->name, rxe_dev);
		KUNIT_EXPECT_EQ(test, e->ep_attr->type,
				n < 2 ? KFI_EP_MSG : KFI_EP_RDM);
	}
	KUNIT_EXPECT_EQ(test, n, 3);
	kfi_freeinfo(list);
	list = NULL;
	KUNIT_EXPECT_EQ(test, kfi_getinfo(V17, "127.0.0.1", NULL, KFI_SOURCE,
					  h, &list), -ENODATA);
	KUNIT_EXPECT_NULL(test, list);
	kfi_freeinfo(h);
}

/*
 * A destination node (no KFI_SOURCE) lists only the device rdma_cm would
 * connect through: the one whose network device holds that address (both
 * devices are in the same namespace, so each could otherwise be listed);
 * every entry carries the destination.
 */
static void verbs_getinfo_by_destination(struct kunit *test)
{
	const char *dev[] = { rxe_dev, siw_dev };
	const char *node[] = { rxe_node, siw_node };
	struct kfi_info *h = verbs_hints(test), *list, *e;
	struct sockaddr_in *d;
	__be32 a;
	int i, n;

	for (i = 0; i < 2; i++) {
		list = NULL;
		KUNIT_ASSERT_TRUE(test, in4_pton(node[i], -1, (u8 *)&a, -1,
						 NULL));
		KUNIT_ASSERT_EQ(test, kfi_getinfo(V17, node[i], SERVICE, 0, h,
						  &list), 0);
		n = 0;
		for (e = list; e; e = e->next) {
			if (e->addr_format != KFI_SOCKADDR_IN)
				continue;
			n++;
			KUNIT_EXPECT_STREQ(test, e->domain_attr->name, dev[i]);
			d = e->dest_addr;
			KUNIT_ASSERT_NOT_NULL(test, d);
			KUNIT_EXPECT_EQ(test, d->sin_addr.s_addr, a);
			KUNIT_EXPECT_EQ(test, ntohs(d->sin_port),
					(u16)simple_strtoul(SERVICE, NULL, 10));
		}
		KUNIT_EXPECT_GE(test, n, 1);
		kfi_freeinfo(list);
	}
	kfi_freeinfo(h);
}

/*
 * Exactly what the provider does is advertised: a consumer asking for
 * messages (send, receive, triggered) or RMA (both directions, with
 * provider keys, KFI_MR_PROV_KEY) gets its entries on both devices, with
 * one remote region per operation and the device's keys; atomics are
 * found on rxe (not on siw, which has none); tagged messages and
 * multi-receive buffers in the soft mode's entries (protocol version 2),
 * on both devices, and the RDM ones (rxe); one asking for counted remote
 * accesses, atomics on RDM endpoints,
 * reliable datagram endpoints, or RMA with memory modes that lack
 * KFI_MR_PROV_KEY finds nothing.
 */
static void verbs_getinfo_advertises_what_works(struct kunit *test)
{
	static const uint64_t caps[] = { KFI_RMA_EVENT };
	static const uint64_t soft[] = { KFI_TAGGED, KFI_MULTI_RECV,
					 KFI_TAGGED | KFI_MULTI_RECV };
	const uint64_t rma = KFI_MSG | KFI_RMA | KFI_READ | KFI_WRITE |
			     KFI_REMOTE_READ | KFI_REMOTE_WRITE;
	struct kfi_info *h = verbs_hints(test), *list = NULL, *e;
	int i;

	h->caps = KFI_MSG | KFI_SEND | KFI_RECV | KFI_TRIGGER;
	KUNIT_ASSERT_EQ(test, kfi_getinfo(V17, NULL, SERVICE, 0, h, &list), 0);
	KUNIT_EXPECT_NOT_NULL(test, find_entry(list, rxe_dev, rxe_node));
	KUNIT_EXPECT_NOT_NULL(test, find_entry(list, siw_dev, siw_node));
	kfi_freeinfo(list);
	list = NULL;
	h->caps = rma;
	h->domain_attr->mr_mode = KFI_MR_PROV_KEY;
	KUNIT_ASSERT_EQ(test, kfi_getinfo(V17, NULL, SERVICE, 0, h, &list), 0);
	for (i = 0; i < 2; i++) {
		e = find_entry(list, i ? siw_dev : rxe_dev,
			       i ? siw_node : rxe_node);
		KUNIT_ASSERT_NOT_NULL(test, e);
		KUNIT_EXPECT_EQ(test, e->caps & rma, rma);
		KUNIT_EXPECT_EQ(test, e->domain_attr->mr_mode,
				KFI_MR_PROV_KEY);
		KUNIT_EXPECT_EQ(test, e->tx_attr->rma_iov_limit, (size_t)1);
		KUNIT_EXPECT_EQ(test, e->domain_attr->mr_iov_limit,
				(size_t)KFI_VERBS_TEST_MR_PAGES);
		KUNIT_EXPECT_EQ(test, e->domain_attr->mr_key_size, (size_t)8);
	}
	kfi_freeinfo(list);
	list = NULL;
	/* atomics: rxe does them in hardware, siw has none */
	h->caps = KFI_MSG | KFI_ATOMIC;
	KUNIT_ASSERT_EQ(test, kfi_getinfo(V17, NULL, SERVICE, 0, h, &list), 0);
	KUNIT_EXPECT_NOT_NULL(test, find_entry(list, rxe_dev, rxe_node));
	KUNIT_EXPECT_NULL(test, find_entry(list, siw_dev, siw_node));
	kfi_freeinfo(list);
	list = NULL;
	h->caps = rma;
	/* a consumer that cannot take the provider's keys is no RMA target */
	h->domain_attr->mr_mode = KFI_MR_VIRT_ADDR;
	KUNIT_EXPECT_EQ(test, kfi_getinfo(V17, NULL, NULL, 0, h, &list),
			-ENODATA);
	KUNIT_EXPECT_NULL(test, list);
	h->domain_attr->mr_mode = 0;
	for (i = 0; i < ARRAY_SIZE(soft); i++) {
		h->caps = KFI_MSG | soft[i];
		KUNIT_ASSERT_EQ(test, kfi_getinfo(V17, NULL, SERVICE, 0, h,
						  &list), 0);
		KUNIT_EXPECT_NOT_NULL(test, find_entry(list, rxe_dev,
						       rxe_node));
		KUNIT_EXPECT_NOT_NULL(test, find_entry(list, siw_dev,
						       siw_node));
		for (e = list; e; e = e->next) {
			/* soft mode's MSG entries, or the RDM ones */
			if (e->ep_attr->type == KFI_EP_MSG)
				KUNIT_EXPECT_EQ(test,
						e->ep_attr->protocol_version,
						2U);
			else
				KUNIT_EXPECT_EQ(test, e->ep_attr->type,
						KFI_EP_RDM);
			KUNIT_EXPECT_EQ(test, e->caps & soft[i], soft[i]);
		}
		kfi_freeinfo(list);
		list = NULL;
	}
	for (i = 0; i < ARRAY_SIZE(caps); i++) {
		h->caps = caps[i];
		KUNIT_EXPECT_EQ_MSG(test, kfi_getinfo(V17, NULL, NULL, 0, h,
						      &list), -ENODATA,
				    "caps %#llx", caps[i]);
		KUNIT_EXPECT_NULL(test, list);
	}
	/*
	 * RDM (rxm over RC): messages, tagged, multi-receive, sources and
	 * directed receives, up to 1 GiB (segmented); RMA (256 regions and
	 * local pieces), scalable endpoints (named receive contexts) and
	 * kfabric's tagged RMA; no atomics yet.
	 */
	h->caps = KFI_MSG | KFI_TAGGED | KFI_MULTI_RECV | KFI_SOURCE |
		  KFI_DIRECTED_RECV | rma | KFI_NAMED_RX_CTX | KFI_TAGGED_RMA;
	h->ep_attr->type = KFI_EP_RDM;
	h->domain_attr->mr_mode = KFI_MR_PROV_KEY;
	KUNIT_ASSERT_EQ(test, kfi_getinfo(V17, NULL, SERVICE, 0, h, &list), 0);
	KUNIT_EXPECT_NOT_NULL(test, find_entry(list, rxe_dev, rxe_node));
	/* on iWARP too (with rxm's credits) */
	KUNIT_EXPECT_NOT_NULL(test, find_entry(list, siw_dev, siw_node));
	for (e = list; e; e = e->next) {
		KUNIT_EXPECT_EQ(test, e->ep_attr->type, KFI_EP_RDM);
		KUNIT_EXPECT_EQ(test, e->caps & KFI_ATOMIC, 0ULL);
		KUNIT_EXPECT_EQ(test, e->tx_attr->rma_iov_limit, (size_t)256);
		KUNIT_EXPECT_EQ(test, e->tx_attr->iov_limit, (size_t)256);
		KUNIT_EXPECT_EQ(test, e->rx_attr->iov_limit, (size_t)256);
		KUNIT_EXPECT_EQ(test, e->ep_attr->auth_key_size, (size_t)4);
		KUNIT_EXPECT_EQ(test, e->domain_attr->max_ep_tx_ctx,
				(size_t)256);
		KUNIT_EXPECT_EQ(test, e->domain_attr->max_ep_rx_ctx,
				(size_t)256);
		KUNIT_EXPECT_GE(test, e->ep_attr->tx_ctx_cnt, (size_t)1);
		KUNIT_EXPECT_EQ(test, e->ep_attr->max_msg_size,
				(size_t)1 << 30);
		KUNIT_EXPECT_EQ(test, e->domain_attr->cq_data_size, (size_t)8);
	}
	kfi_freeinfo(list);
	list = NULL;
	h->domain_attr->mr_mode = 0;
	h->caps = KFI_ATOMIC;
	KUNIT_EXPECT_EQ(test, kfi_getinfo(V17, NULL, NULL, 0, h, &list),
			-ENODATA);
	h->caps = 0;
	h->ep_attr->type = KFI_EP_MSG;
	KUNIT_EXPECT_EQ(test, kfi_getinfo(V17, NULL, NULL, 0, h, &list), 0);
	kfi_freeinfo(list);
	kfi_freeinfo(h);
}

/* ------------------------------------------------------------- domain */

struct vdom {
	struct kfi_info *hints, *list, *e;
	struct kfid_fabric *fab;
	struct kfid_domain *dom;
};

/* Fabric and domain of @dev's entry for @node. */
static void vdom_open(struct kunit *test, struct vdom *v, const char *dev,
		      const char *node)
{
	memset(v, 0, sizeof(*v));
	v->hints = verbs_hints(test);
	KUNIT_ASSERT_EQ(test, kfi_getinfo(V17, NULL, SERVICE, 0, v->hints,
					  &v->list), 0);
	v->e = find_entry(v->list, dev, node);
	KUNIT_ASSERT_NOT_NULL(test, v->e);
	KUNIT_ASSERT_EQ(test, kfi_fabric(v->e->fabric_attr, &v->fab, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_domain(v->fab, v->e, &v->dom, NULL), 0);
}

static void vdom_close(struct kunit *test, struct vdom *v)
{
	KUNIT_EXPECT_EQ(test, kfi_close(&v->dom->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&v->fab->fid), 0);
	kfi_freeinfo(v->list);
	kfi_freeinfo(v->hints);
}

/*
 * A domain on each device: completion queues, counters and memory regions
 * open on it and work; nothing crashes.
 */
static void verbs_domain_objects(struct kunit *test)
{
	struct kfi_cq_attr cattr = { .size = 8, .format = KFI_CQ_FORMAT_DATA };
	struct kfi_cq_data_entry ent;
	struct kfid_cq *cq;
	struct kfid_cntr *cntr;
	struct kfid_mr *mr;
	struct vdom v, w;
	char buf[8];

	vdom_open(test, &v, rxe_dev, rxe_node);
	vdom_open(test, &w, siw_dev, siw_node);
	KUNIT_ASSERT_EQ(test, kfi_cq_open(v.dom, &cattr, &cq, NULL, NULL), 0);
	KUNIT_EXPECT_EQ(test, kfi_cq_read(cq, &ent, 1), -EAGAIN);
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(w.dom, NULL, &cntr, NULL), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_add(cntr, 3), 0);
	KUNIT_EXPECT_EQ(test, kfi_cntr_read(cntr), 3ULL);
	/* a domain with a child open does not close */
	KUNIT_EXPECT_EQ(test, kfi_close(&v.dom->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, kfi_close(&w.dom->fid), -EBUSY);
	KUNIT_EXPECT_EQ(test, kfi_mr_reg(v.dom, buf, sizeof(buf),
					 KFI_REMOTE_WRITE, 0, 0, 0, &mr, NULL),
			0);
	KUNIT_EXPECT_EQ(test, kfi_close(&mr->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&cq->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&cntr->fid), 0);
	vdom_close(test, &w);
	vdom_close(test, &v);
}

/*
 * kfi_domain() names its device: without a name -EINVAL; a name no RDMA
 * device has (a network interface's, say) -ENODEV.
 */
static void verbs_domain_bad_names(struct kunit *test)
{
	struct kfid_domain *dom;
	struct vdom v;
	char *name;

	vdom_open(test, &v, rxe_dev, rxe_node);
	name = v.e->domain_attr->name;
	v.e->domain_attr->name = NULL;
	KUNIT_EXPECT_EQ(test, kfi_domain(v.fab, v.e, &dom, NULL), -EINVAL);
	v.e->domain_attr->name = "lo";
	KUNIT_EXPECT_EQ(test, kfi_domain(v.fab, v.e, &dom, NULL), -ENODEV);
	v.e->domain_attr->name = "";
	KUNIT_EXPECT_EQ(test, kfi_domain(v.fab, v.e, &dom, NULL), -ENODEV);
	v.e->domain_attr->name = name;
	vdom_close(test, &v);
}

/*
 * Hints naming an open domain (kfilnd reuses its domain so) find only
 * that device's entries, with the fabric and domain handles filled in.
 */
static void verbs_getinfo_reuses_open_domain(struct kunit *test)
{
	struct kfi_info *list = NULL, *e;
	struct vdom v;
	int n = 0;

	vdom_open(test, &v, siw_dev, siw_node);
	v.hints->domain_attr->domain = v.dom;
	KUNIT_ASSERT_EQ(test, kfi_getinfo(V17, NULL, NULL, 0, v.hints, &list),
			0);
	for (e = list; e; e = e->next, n++) {
		KUNIT_EXPECT_STREQ(test, e->domain_attr->name, siw_dev);
		KUNIT_EXPECT_PTR_EQ(test, e->domain_attr->domain, v.dom);
		KUNIT_EXPECT_PTR_EQ(test, e->fabric_attr->fabric, v.fab);
	}
	KUNIT_EXPECT_GT(test, n, 0);
	kfi_freeinfo(list);
	v.hints->domain_attr->domain = NULL;
	vdom_close(test, &v);
}

/*
 * Objects stay with their provider: a verbs CQ, counter or EQ bound to a
 * tcp endpoint is refused (-EINVAL), and hints for verbs naming a tcp domain
 * find nothing. (Both providers loaded, as make check has them.)
 */
static void verbs_objects_stay_with_their_provider(struct kunit *test)
{
	struct kfi_cq_attr cattr = { .size = 8, .format = KFI_CQ_FORMAT_DATA };
	struct kfi_info *th, *tlist = NULL, *list = NULL;
	struct kfid_fabric *tfab;
	struct kfid_domain *tdom;
	struct kfid_ep *tep;
	struct kfid_cq *cq;
	struct kfid_cntr *cntr;
	struct kfi_eq_attr eattr = { .size = 8 };
	struct kfid_eq *eq;
	struct vdom v;

	th = kfi_allocinfo();
	KUNIT_ASSERT_NOT_NULL(test, th);
	th->fabric_attr->prov_name = kstrdup("tcp", GFP_KERNEL);
	th->caps = KFI_MSG;
	if (kfi_getinfo(V17, "127.0.0.1", NULL, KFI_SOURCE, th, &tlist)) {
		kfi_freeinfo(th);
		kunit_skip(test, "tcp provider not loaded");
	}
	KUNIT_ASSERT_EQ(test, kfi_fabric(tlist->fabric_attr, &tfab, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_domain(tfab, tlist, &tdom, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_endpoint(tdom, tlist, &tep, NULL), 0);
	vdom_open(test, &v, rxe_dev, rxe_node);
	KUNIT_ASSERT_EQ(test, kfi_cq_open(v.dom, &cattr, &cq, NULL, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_cntr_open(v.dom, NULL, &cntr, NULL), 0);
	KUNIT_EXPECT_EQ(test, kfi_ep_bind(tep, &cq->fid, KFI_TRANSMIT),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_ep_bind(tep, &cntr->fid, KFI_SEND), -EINVAL);
	KUNIT_ASSERT_EQ(test, kfi_eq_open(v.fab, &eattr, &eq, NULL, NULL),
			0);
	KUNIT_EXPECT_EQ(test, kfi_ep_bind(tep, &eq->fid, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_close(&eq->fid), 0);
	v.hints->domain_attr->domain = tdom;
	KUNIT_EXPECT_EQ(test, kfi_getinfo(V17, NULL, NULL, 0, v.hints, &list),
			-ENODATA);
	v.hints->domain_attr->domain = NULL;
	KUNIT_EXPECT_EQ(test, kfi_close(&cntr->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&cq->fid), 0);
	vdom_close(test, &v);
	KUNIT_EXPECT_EQ(test, kfi_close(&tep->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&tdom->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&tfab->fid), 0);
	kfi_freeinfo(tlist);
	kfi_freeinfo(th);
}

/* ----------------------------------------------------------------- cm */

/* A port nothing listens on. */
#define NO_LISTENER 7999
/* An address of the test subnet no host has. */
#define NOBODY "10.95.0.99"

/*
 * An endpoint on @v's domain with an EQ bound, enabled. Its source
 * address is the entry's with port 0 (any), so that endpoints of one case
 * do not collide.
 */
static void vep_open(struct kunit *test, struct vdom *v, struct kfid_eq **eq,
		     struct kfid_ep **ep)
{
	struct kfi_eq_attr eattr = { .size = 8 };

	((struct sockaddr_in *)v->e->src_addr)->sin_port = 0;
	KUNIT_ASSERT_EQ(test, kfi_eq_open(v->fab, &eattr, eq, NULL, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_endpoint(v->dom, v->e, ep, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(*ep, &(*eq)->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, kfi_enable(*ep), 0);
}

static void vep_close(struct kunit *test, struct kfid_eq *eq,
		      struct kfid_ep *ep)
{
	KUNIT_EXPECT_EQ(test, kfi_close(&ep->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&eq->fid), 0);
}

/* @node:@port as a sockaddr_in. */
static struct sockaddr_in vaddr(const char *node, u16 port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };

	in4_pton(node, -1, (u8 *)&a.sin_addr.s_addr, -1, NULL);
	return a;
}

/* An EQ entry with room for CM data (struct kfi_eq_cm_entry's data[]). */
struct vev {
	u64 words[(sizeof(struct kfi_eq_cm_entry) + 64) / 8];
};

static struct kfi_eq_cm_entry *vev_cm(struct vev *ev)
{
	return (struct kfi_eq_cm_entry *)ev->words;
}

/*
 * Waits up to @ms for the next event of @eq: an error entry (copied to
 * @err, returns -KFI_EAVAIL), or an event (its number in @event, its
 * entry in @ev; returns its size); -EAGAIN if none came.
 */
static ssize_t veq_wait(struct kfid_eq *eq, int ms, uint32_t *event,
			struct vev *ev, struct kfi_eq_err_entry *err)
{
	ssize_t rd;

	rd = kfi_eq_sread(eq, event, ev->words, sizeof(ev->words), ms, 0);
	if (rd == -KFI_EAVAIL) {
		memset(err, 0, sizeof(*err));
		return kfi_eq_readerr(eq, err, 0) > 0 ? -KFI_EAVAIL : -EIO;
	}
	return rd;
}

/*
 * Connecting to a port nothing listens on (on each device, through its
 * own address): one error entry for the endpoint, -ECONNREFUSED with no
 * CM data, then nothing more; the endpoint cannot connect again
 * (-KFI_EOPBADSTATE) nor shut down (-ENOTCONN), and closes.
 */
static void verbs_cm_refused(struct kunit *test)
{
	const char *dev[] = { rxe_dev, siw_dev };
	const char *node[] = { rxe_node, siw_node };
	struct kfi_eq_err_entry err;
	struct vev ent;
	struct sockaddr_in dst;
	struct kfid_eq *eq;
	struct kfid_ep *ep;
	uint32_t event;
	struct vdom v;
	int i;

	for (i = 0; i < 2; i++) {
		vdom_open(test, &v, dev[i], node[i]);
		vep_open(test, &v, &eq, &ep);
		dst = vaddr(node[i], NO_LISTENER);
		KUNIT_ASSERT_EQ(test, kfi_connect(ep, &dst, "hi", 2), 0);
		KUNIT_EXPECT_EQ_MSG(test, veq_wait(eq, 10000, &event, &ent,
						   &err),
				    (ssize_t)-KFI_EAVAIL, "%s", dev[i]);
		KUNIT_EXPECT_EQ_MSG(test, err.err, ECONNREFUSED, "%s", dev[i]);
		KUNIT_EXPECT_PTR_EQ(test, err.fid, &ep->fid);
		KUNIT_EXPECT_EQ(test, err.err_data_size, (size_t)0);
		KUNIT_EXPECT_EQ(test, veq_wait(eq, 200, &event, &ent, &err),
				(ssize_t)-EAGAIN);
		KUNIT_EXPECT_EQ(test, kfi_connect(ep, &dst, NULL, 0),
				-KFI_EOPBADSTATE);
		KUNIT_EXPECT_EQ(test, kfi_shutdown(ep, 0), -ENOTCONN);
		vep_close(test, eq, ep);
		vdom_close(test, &v);
	}
}

/*
 * The calls' argument and state checks: CM data of at most 55 bytes
 * (libfabric verbs' limit, KFI_OPT_CM_DATA_SIZE), an address of the
 * source's family, connect only once enabled; accept without a request
 * and shutdown without a connection fail; data transfers without a CQ
 * bound fail (-KFI_ENOCQ); getname gives the source address.
 */
static void verbs_cm_checks(struct kunit *test)
{
	struct sockaddr_in6 dst6 = { .sin6_family = AF_INET6,
				     .sin6_port = htons(NO_LISTENER) };
	struct kfi_eq_attr eattr = { .size = 8 };
	struct sockaddr_in dst = vaddr(rxe_node, NO_LISTENER), name;
	struct kfi_eq_err_entry err;
	struct vev ent;
	size_t len = sizeof(size_t), nlen;
	char data[56], buf[8];
	struct kfid_eq *eq, *eq2;
	struct kfid_ep *ep, *ep2;
	size_t size = 0;
	uint32_t event;
	struct vdom v;

	memset(data, 'd', sizeof(data));
	vdom_open(test, &v, rxe_dev, rxe_node);
	/* not enabled: no connect */
	KUNIT_ASSERT_EQ(test, kfi_eq_open(v.fab, &eattr, &eq2, NULL, NULL), 0);
	((struct sockaddr_in *)v.e->src_addr)->sin_port = 0;
	KUNIT_ASSERT_EQ(test, kfi_endpoint(v.dom, v.e, &ep2, NULL), 0);
	KUNIT_EXPECT_EQ(test, kfi_connect(ep2, &dst, NULL, 0),
			-KFI_EOPBADSTATE);
	KUNIT_EXPECT_EQ(test, kfi_close(&ep2->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&eq2->fid), 0);

	vep_open(test, &v, &eq, &ep);
	KUNIT_EXPECT_EQ(test, kfi_getopt(&ep->fid, KFI_OPT_ENDPOINT,
					 KFI_OPT_CM_DATA_SIZE, &size, &len), 0);
	KUNIT_EXPECT_EQ(test, size, (size_t)55);
	nlen = sizeof(name);
	KUNIT_EXPECT_EQ(test, kfi_getname(&ep->fid, &name, &nlen), 0);
	KUNIT_EXPECT_EQ(test, nlen, sizeof(name));
	KUNIT_EXPECT_EQ(test, name.sin_addr.s_addr, dst.sin_addr.s_addr);
	KUNIT_EXPECT_EQ(test, kfi_connect(ep, &dst, data, 56), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_connect(ep, &dst6, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_connect(ep, NULL, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_accept(ep, NULL, 0), -KFI_EOPBADSTATE);
	KUNIT_EXPECT_EQ(test, kfi_accept(ep, data, 56), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_shutdown(ep, 0), -ENOTCONN);
	KUNIT_EXPECT_EQ(test, kfi_shutdown(ep, 1), -EINVAL);
	/* no CQ bound */
	KUNIT_EXPECT_EQ(test, kfi_send(ep, buf, sizeof(buf), NULL, 0, NULL),
			(ssize_t)-KFI_ENOCQ);
	KUNIT_EXPECT_EQ(test, kfi_recv(ep, buf, sizeof(buf), NULL, 0, NULL),
			(ssize_t)-KFI_ENOCQ);
	/* nothing was started: no event */
	KUNIT_EXPECT_EQ(test, veq_wait(eq, 100, &event, &ent, &err),
			(ssize_t)-EAGAIN);
	/* 55 bytes go (and are refused by nobody listening) */
	KUNIT_EXPECT_EQ(test, kfi_connect(ep, &dst, data, 55), 0);
	KUNIT_EXPECT_EQ(test, veq_wait(eq, 10000, &event, &ent, &err),
			(ssize_t)-KFI_EAVAIL);
	KUNIT_EXPECT_EQ(test, err.err, ECONNREFUSED);
	vep_close(test, eq, ep);
	vdom_close(test, &v);
}

/*
 * An address nobody answers for: an error entry (the address resolution
 * times out), not a hang. An endpoint closed while its connect is still
 * resolving reports nothing and closes at once.
 */
static void verbs_cm_unreachable(struct kunit *test)
{
	struct sockaddr_in dst = vaddr(NOBODY, NO_LISTENER);
	struct kfi_eq_err_entry err;
	struct vev ent;
	struct kfid_eq *eq, *eq2;
	struct kfid_ep *ep, *ep2;
	uint32_t event;
	struct vdom v;

	vdom_open(test, &v, rxe_dev, rxe_node);
	vep_open(test, &v, &eq, &ep);
	vep_open(test, &v, &eq2, &ep2);
	KUNIT_ASSERT_EQ(test, kfi_connect(ep, &dst, NULL, 0), 0);
	KUNIT_ASSERT_EQ(test, kfi_connect(ep2, &dst, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&ep2->fid), 0);
	KUNIT_EXPECT_EQ(test, veq_wait(eq, 30000, &event, &ent, &err),
			(ssize_t)-KFI_EAVAIL);
	KUNIT_EXPECT_TRUE_MSG(test, err.err == ETIMEDOUT ||
			      err.err == EHOSTUNREACH ||
			      err.err == ENETUNREACH, "err %d", err.err);
	KUNIT_EXPECT_PTR_EQ(test, err.fid, &ep->fid);
	KUNIT_EXPECT_EQ(test, veq_wait(eq2, 100, &event, &ent, &err),
			(ssize_t)-EAGAIN);
	KUNIT_EXPECT_EQ(test, kfi_close(&eq2->fid), 0);
	vep_close(test, eq, ep);
	vdom_close(test, &v);
}

/*
 * A listening passive endpoint on @v's address (port chosen by rdma_cm,
 * returned in @port), its EQ bound.
 */
static void vpep_open(struct kunit *test, struct vdom *v, struct kfid_eq **eq,
		      struct kfid_pep **pep, u16 *port)
{
	struct kfi_eq_attr eattr = { .size = 8 };
	struct sockaddr_in name;
	size_t len = sizeof(name);

	((struct sockaddr_in *)v->e->src_addr)->sin_port = 0;
	KUNIT_ASSERT_EQ(test, kfi_eq_open(v->fab, &eattr, eq, NULL, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_passive_ep(v->fab, v->e, pep, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_listen(*pep), -KFI_ENOEQ);
	KUNIT_ASSERT_EQ(test, kfi_pep_bind(*pep, &(*eq)->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, kfi_listen(*pep), 0);
	KUNIT_EXPECT_EQ(test, kfi_listen(*pep), -EINVAL);
	KUNIT_ASSERT_EQ(test, kfi_getname(&(*pep)->fid, &name, &len), 0);
	KUNIT_EXPECT_EQ(test, name.sin_addr.s_addr,
			((struct sockaddr_in *)v->e->src_addr)->sin_addr.s_addr);
	*port = ntohs(name.sin_port);
	KUNIT_EXPECT_NE(test, *port, 0);
}

/* Waits for @eq's KFI_CONNREQ; its info (the caller frees it). */
static struct kfi_info *vconnreq(struct kunit *test, struct kfid_eq *eq,
				 struct kfid_pep *pep, const char *data)
{
	struct kfi_eq_err_entry err;
	struct vev ent;
	uint32_t event = ~0;
	ssize_t rd;

	rd = veq_wait(eq, 10000, &event, &ent, &err);
	KUNIT_ASSERT_EQ_MSG(test, rd,
			    (ssize_t)(sizeof(*vev_cm(&ent)) + strlen(data)),
			    "err %d", rd == -KFI_EAVAIL ? err.err : 0);
	KUNIT_EXPECT_EQ(test, event, (uint32_t)KFI_CONNREQ);
	KUNIT_EXPECT_PTR_EQ(test, vev_cm(&ent)->fid, &pep->fid);
	KUNIT_EXPECT_EQ(test, memcmp(vev_cm(&ent)->data, data, strlen(data)),
			0);
	KUNIT_ASSERT_NOT_NULL(test, vev_cm(&ent)->info);
	KUNIT_EXPECT_NOT_NULL(test, vev_cm(&ent)->info->handle);
	return vev_cm(&ent)->info;
}

/* Waits for @event on @eq for @ep with CM data @data (NULL: none). */
static void vexpect(struct kunit *test, struct kfid_eq *eq, uint32_t event,
		    struct kfid_ep *ep, const char *data)
{
	struct kfi_eq_err_entry err;
	struct vev ent;
	size_t n = data ? strlen(data) : 0;
	uint32_t got = ~0;
	ssize_t rd;

	rd = veq_wait(eq, 10000, &got, &ent, &err);
	KUNIT_EXPECT_EQ_MSG(test, rd, (ssize_t)(sizeof(*vev_cm(&ent)) + n),
			    "event %u: err %d", event,
			    rd == -KFI_EAVAIL ? err.err : 0);
	if (rd < 0)
		return;
	KUNIT_EXPECT_EQ(test, got, event);
	KUNIT_EXPECT_PTR_EQ(test, vev_cm(&ent)->fid, &ep->fid);
	if (n)
		KUNIT_EXPECT_EQ(test, memcmp(vev_cm(&ent)->data, data, n), 0);
}

/*
 * Accepts the request of @info (freed) on @v's domain without CM data: an
 * endpoint with its own EQ (@aep, @aeq), and both it and the connecting
 * endpoint @ep (EQ @eq) report KFI_CONNECTED.
 */
static void vaccept(struct kunit *test, struct vdom *v, struct kfi_info *info,
		    struct kfid_eq *eq, struct kfid_ep *ep,
		    struct kfid_eq **aeq, struct kfid_ep **aep)
{
	struct kfi_eq_attr eattr = { .size = 8 };

	KUNIT_ASSERT_EQ(test, kfi_eq_open(v->fab, &eattr, aeq, NULL, NULL), 0);
	/* (the handle is freed once taken: not used after this) */
	KUNIT_ASSERT_EQ(test, kfi_endpoint(v->dom, info, aep, NULL), 0);
	kfi_freeinfo(info);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(*aep, &(*aeq)->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, kfi_enable(*aep), 0);
	KUNIT_ASSERT_EQ(test, kfi_accept(*aep, NULL, 0), 0);
	vexpect(test, eq, KFI_CONNECTED, ep, NULL);
	vexpect(test, *aeq, KFI_CONNECTED, *aep, NULL);
}

/*
 * A connection between two kernel endpoints on each device (rxe: RoCE
 * loopback; siw: iWARP over the loopback TCP path): the request reaches
 * the passive endpoint with the active side's CM data and an info naming
 * the device; the endpoint opened from it accepts with CM data, which the
 * active side gets with KFI_CONNECTED; both name each other (getname,
 * getpeer); kfi_shutdown on one side reports KFI_SHUTDOWN there and on the
 * peer, once each.
 */
static void verbs_cm_connect_accept(struct kunit *test)
{
	const char *dev[] = { rxe_dev, siw_dev };
	const char *node[] = { rxe_node, siw_node };
	struct kfi_eq_attr eattr = { .size = 8 };
	struct sockaddr_in dst, a, b;
	struct kfi_eq_err_entry err;
	struct vev ent;
	struct kfid_eq *eq, *peq, *aeq;
	struct kfid_ep *ep, *aep;
	struct kfid_pep *pep;
	struct kfi_info *info;
	size_t len;
	uint32_t event;
	struct vdom v;
	u16 port;
	int i;

	for (i = 0; i < 2; i++) {
		vdom_open(test, &v, dev[i], node[i]);
		vpep_open(test, &v, &peq, &pep, &port);
		vep_open(test, &v, &eq, &ep);
		dst = vaddr(node[i], port);
		KUNIT_ASSERT_EQ(test, kfi_connect(ep, &dst, "hello", 5), 0);
		info = vconnreq(test, peq, pep, "hello");
		KUNIT_EXPECT_STREQ(test, info->domain_attr->name, dev[i]);
		KUNIT_EXPECT_STREQ(test, info->fabric_attr->name,
				   v.e->fabric_attr->name);
		KUNIT_EXPECT_EQ(test, info->ep_attr->type, KFI_EP_MSG);
		KUNIT_ASSERT_EQ(test, kfi_eq_open(v.fab, &eattr, &aeq, NULL,
						  NULL), 0);
		/* (the handle is freed once taken: not used after this) */
		KUNIT_ASSERT_EQ(test, kfi_endpoint(v.dom, info, &aep, NULL), 0);
		kfi_freeinfo(info);
		KUNIT_ASSERT_EQ(test, kfi_ep_bind(aep, &aeq->fid, 0), 0);
		KUNIT_EXPECT_EQ(test, kfi_connect(aep, &dst, NULL, 0),
				-EISCONN);
		KUNIT_EXPECT_EQ(test, kfi_accept(aep, NULL, 0),
				-KFI_EOPBADSTATE);
		KUNIT_ASSERT_EQ(test, kfi_enable(aep), 0);
		KUNIT_ASSERT_EQ(test, kfi_accept(aep, "world", 5), 0);
		vexpect(test, eq, KFI_CONNECTED, ep, "world");
		vexpect(test, aeq, KFI_CONNECTED, aep, NULL);
		len = sizeof(a);
		KUNIT_EXPECT_EQ(test, kfi_getpeer(ep, &a, &len), 0);
		KUNIT_EXPECT_EQ(test, a.sin_port, dst.sin_port);
		KUNIT_EXPECT_EQ(test, a.sin_addr.s_addr, dst.sin_addr.s_addr);
		len = sizeof(a);
		KUNIT_EXPECT_EQ(test, kfi_getname(&ep->fid, &a, &len), 0);
		len = sizeof(b);
		KUNIT_EXPECT_EQ(test, kfi_getpeer(aep, &b, &len), 0);
		KUNIT_EXPECT_EQ(test, a.sin_port, b.sin_port);
		KUNIT_EXPECT_EQ(test, a.sin_addr.s_addr, b.sin_addr.s_addr);
		KUNIT_EXPECT_EQ(test, kfi_connect(ep, &dst, NULL, 0),
				-EISCONN);
		KUNIT_EXPECT_EQ(test, kfi_shutdown(ep, 0), 0);
		vexpect(test, eq, KFI_SHUTDOWN, ep, NULL);
		vexpect(test, aeq, KFI_SHUTDOWN, aep, NULL);
		KUNIT_EXPECT_EQ(test, kfi_shutdown(ep, 0), -ENOTCONN);
		KUNIT_EXPECT_EQ(test, kfi_shutdown(aep, 0), -ENOTCONN);
		KUNIT_EXPECT_EQ(test, veq_wait(eq, 200, &event, &ent, &err),
				(ssize_t)-EAGAIN);
		KUNIT_EXPECT_EQ(test, veq_wait(aeq, 10, &event, &ent, &err),
				(ssize_t)-EAGAIN);
		vep_close(test, aeq, aep);
		vep_close(test, eq, ep);
		KUNIT_EXPECT_EQ(test, kfi_close(&pep->fid), 0);
		KUNIT_EXPECT_EQ(test, kfi_close(&peq->fid), 0);
		vdom_close(test, &v);
	}
}

/*
 * A request is refused three ways, each seen by the active side as an
 * error entry -ECONNREFUSED: kfi_reject with CM data (the entry's
 * err_data), kfi_close of the request's handle, and the passive
 * endpoint's close with the request pending. An endpoint opened from a
 * request on a domain of another device fails (-EINVAL) and refuses it.
 */
static void verbs_cm_reject(struct kunit *test)
{
	struct kfi_eq_err_entry err;
	struct vev ent;
	struct sockaddr_in dst;
	struct kfid_eq *eq, *peq;
	struct kfid_ep *ep, *xep;
	struct kfid_pep *pep;
	struct kfi_info *info;
	uint32_t event;
	struct vdom v, w;
	char big[56];
	u16 port;
	int way;

	memset(big, 'b', sizeof(big));
	vdom_open(test, &v, rxe_dev, rxe_node);
	vdom_open(test, &w, siw_dev, siw_node);
	for (way = 0; way < 4; way++) {
		vpep_open(test, &v, &peq, &pep, &port);
		vep_open(test, &v, &eq, &ep);
		dst = vaddr(rxe_node, port);
		KUNIT_ASSERT_EQ(test, kfi_connect(ep, &dst, "q", 1), 0);
		info = vconnreq(test, peq, pep, "q");
		switch (way) {
		case 0:
			KUNIT_EXPECT_EQ(test, kfi_reject(pep, info->handle,
							 big, 56), -EINVAL);
			KUNIT_EXPECT_EQ(test, kfi_reject(pep, info->handle,
							 "no!", 3), 0);
			break;
		case 1:
			KUNIT_EXPECT_EQ(test, kfi_close(info->handle), 0);
			break;
		case 2:
			break;
		case 3:
			KUNIT_EXPECT_EQ(test, kfi_endpoint(w.dom, info, &xep,
							   NULL), -EINVAL);
			break;
		}
		kfi_freeinfo(info);
		if (way == 2) {
			KUNIT_EXPECT_EQ(test, kfi_close(&pep->fid), 0);
			KUNIT_EXPECT_EQ(test, kfi_close(&peq->fid), 0);
		}
		KUNIT_EXPECT_EQ_MSG(test, veq_wait(eq, 10000, &event, &ent,
						   &err),
				    (ssize_t)-KFI_EAVAIL, "way %d", way);
		KUNIT_EXPECT_EQ_MSG(test, err.err, ECONNREFUSED, "way %d", way);
		KUNIT_EXPECT_EQ(test, err.err_data_size, way ? 0 : (size_t)3);
		if (!way && err.err_data_size == 3)
			KUNIT_EXPECT_EQ(test, memcmp(err.err_data, "no!", 3), 0);
		vep_close(test, eq, ep);
		if (way != 2) {
			KUNIT_EXPECT_EQ(test, veq_wait(peq, 10, &event, &ent,
						       &err), (ssize_t)-EAGAIN);
			KUNIT_EXPECT_EQ(test, kfi_close(&pep->fid), 0);
			KUNIT_EXPECT_EQ(test, kfi_close(&peq->fid), 0);
		}
	}
	vdom_close(test, &w);
	vdom_close(test, &v);
}

/*
 * A passive endpoint listening on any address (no src_addr in its info)
 * takes requests through every device: one from an rxe endpoint to the rxe
 * address, one from a siw endpoint to the siw address, each reported with
 * an info naming its own device, accepted on that device's domain, both
 * connected.
 */
static void verbs_cm_wildcard_listen(struct kunit *test)
{
	struct kfi_eq_attr eattr = { .size = 8 };
	struct kfid_eq *peq, *eq[2], *aeq[2];
	struct kfid_ep *ep[2], *aep[2];
	struct kfi_info *pinfo, *info;
	struct sockaddr_in name, dst;
	struct vdom v[2];
	struct kfid_pep *pep;
	size_t len = sizeof(name);
	int i;

	vdom_open(test, &v[0], rxe_dev, rxe_node);
	vdom_open(test, &v[1], siw_dev, siw_node);
	pinfo = kfi_dupinfo(v[0].e);
	KUNIT_ASSERT_NOT_NULL(test, pinfo);
	kfree(pinfo->src_addr);
	pinfo->src_addr = NULL;
	pinfo->src_addrlen = 0;
	KUNIT_ASSERT_EQ(test, kfi_eq_open(v[0].fab, &eattr, &peq, NULL, NULL),
			0);
	KUNIT_ASSERT_EQ(test, kfi_passive_ep(v[0].fab, pinfo, &pep, NULL), 0);
	kfi_freeinfo(pinfo);
	KUNIT_ASSERT_EQ(test, kfi_pep_bind(pep, &peq->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, kfi_listen(pep), 0);
	KUNIT_ASSERT_EQ(test, kfi_getname(&pep->fid, &name, &len), 0);
	KUNIT_EXPECT_EQ(test, name.sin_addr.s_addr, htonl(INADDR_ANY));
	KUNIT_ASSERT_NE(test, name.sin_port, 0);
	for (i = 0; i < 2; i++) {
		vep_open(test, &v[i], &eq[i], &ep[i]);
		dst = vaddr(i ? siw_node : rxe_node, ntohs(name.sin_port));
		KUNIT_ASSERT_EQ(test, kfi_connect(ep[i], &dst, "w", 1), 0);
		info = vconnreq(test, peq, pep, "w");
		KUNIT_EXPECT_STREQ(test, info->domain_attr->name,
				   i ? siw_dev : rxe_dev);
		vaccept(test, &v[i], info, eq[i], ep[i], &aeq[i], &aep[i]);
	}
	for (i = 0; i < 2; i++) {
		vep_close(test, aeq[i], aep[i]);
		vexpect(test, eq[i], KFI_SHUTDOWN, ep[i], NULL);
		vep_close(test, eq[i], ep[i]);
	}
	KUNIT_EXPECT_EQ(test, kfi_close(&pep->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&peq->fid), 0);
	vdom_close(test, &v[1]);
	vdom_close(test, &v[0]);
}

/*
 * Hot removal while connections are being made: a request reported and
 * not taken yet (its active endpoint waiting), and a connect still
 * resolving an address nobody answers for. `rdma link delete` returns;
 * both active endpoints get one error entry (-ENODEV; the resolving one
 * may time out first: -ETIMEDOUT), the request can only be refused
 * (-ENODEV) and closed, and everything closes.
 */
static void verbs_cm_remove_connecting(struct kunit *test)
{
	struct kfi_eq_err_entry err;
	struct sockaddr_in dst;
	struct kfid_eq *eq, *eq2, *peq;
	struct kfid_ep *ep, *ep2;
	struct kfid_pep *pep;
	struct kfi_info *info;
	uint32_t event;
	struct vev ent;
	struct vdom v;
	u16 port;
	const char *del[] = { "link", "delete", rxe_dev, NULL };
	const char *add[] = { "link", "add", rxe_dev, "type", "rxe", "netdev",
			      rxe_netdev, NULL };

	vdom_open(test, &v, rxe_dev, rxe_node);
	vpep_open(test, &v, &peq, &pep, &port);
	vep_open(test, &v, &eq, &ep);
	vep_open(test, &v, &eq2, &ep2);
	dst = vaddr(rxe_node, port);
	KUNIT_ASSERT_EQ(test, kfi_connect(ep, &dst, NULL, 0), 0);
	info = vconnreq(test, peq, pep, "");
	dst = vaddr(NOBODY, NO_LISTENER);
	KUNIT_ASSERT_EQ(test, kfi_connect(ep2, &dst, NULL, 0), 0);
	KUNIT_ASSERT_EQ(test, rdma_tool(del), 0);
	KUNIT_EXPECT_EQ(test, veq_wait(eq, 10000, &event, &ent, &err),
			(ssize_t)-KFI_EAVAIL);
	KUNIT_EXPECT_EQ(test, err.err, ENODEV);
	KUNIT_EXPECT_EQ(test, veq_wait(eq2, 10000, &event, &ent, &err),
			(ssize_t)-KFI_EAVAIL);
	KUNIT_EXPECT_TRUE_MSG(test, err.err == ENODEV || err.err == ETIMEDOUT,
			      "err %d", err.err);
	KUNIT_EXPECT_EQ(test, kfi_reject(pep, info->handle, NULL, 0), -ENODEV);
	kfi_freeinfo(info);
	KUNIT_EXPECT_EQ(test, veq_wait(eq, 100, &event, &ent, &err),
			(ssize_t)-EAGAIN);
	KUNIT_EXPECT_EQ(test, veq_wait(peq, 10, &event, &ent, &err),
			(ssize_t)-EAGAIN);
	vep_close(test, eq2, ep2);
	vep_close(test, eq, ep);
	KUNIT_EXPECT_EQ(test, kfi_close(&pep->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&peq->fid), 0);
	vdom_close(test, &v);
	KUNIT_ASSERT_EQ(test, rdma_tool(add), 0);
	KUNIT_EXPECT_TRUE(test, listed_soon(test, rxe_dev, rxe_node));
}

/*
 * Hot removal under a connected pair: `rdma link delete` returns, both
 * endpoints get KFI_SHUTDOWN (once), then nothing; every object closes.
 * The device is added back for the cases after.
 */
static void verbs_cm_remove_connected(struct kunit *test)
{
	struct kfi_eq_err_entry err;
	struct vev ent;
	struct kfid_eq *eq, *peq, *aeq;
	struct kfid_ep *ep, *aep;
	struct kfid_pep *pep;
	struct kfi_info *info;
	struct sockaddr_in dst;
	uint32_t event;
	struct vdom v;
	u16 port;
	const char *del[] = { "link", "delete", rxe_dev, NULL };
	const char *add[] = { "link", "add", rxe_dev, "type", "rxe", "netdev",
			      rxe_netdev, NULL };

	vdom_open(test, &v, rxe_dev, rxe_node);
	vpep_open(test, &v, &peq, &pep, &port);
	vep_open(test, &v, &eq, &ep);
	dst = vaddr(rxe_node, port);
	KUNIT_ASSERT_EQ(test, kfi_connect(ep, &dst, NULL, 0), 0);
	info = vconnreq(test, peq, pep, "");
	vaccept(test, &v, info, eq, ep, &aeq, &aep);
	KUNIT_ASSERT_EQ(test, rdma_tool(del), 0);
	vexpect(test, eq, KFI_SHUTDOWN, ep, NULL);
	vexpect(test, aeq, KFI_SHUTDOWN, aep, NULL);
	KUNIT_EXPECT_EQ(test, veq_wait(eq, 200, &event, &ent, &err),
			(ssize_t)-EAGAIN);
	KUNIT_EXPECT_EQ(test, veq_wait(aeq, 10, &event, &ent, &err),
			(ssize_t)-EAGAIN);
	KUNIT_EXPECT_EQ(test, veq_wait(peq, 10, &event, &ent, &err),
			(ssize_t)-EAGAIN);
	KUNIT_EXPECT_EQ(test, kfi_shutdown(ep, 0), -ENOTCONN);
	vep_close(test, aeq, aep);
	vep_close(test, eq, ep);
	KUNIT_EXPECT_EQ(test, kfi_close(&pep->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&peq->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&v.dom->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&v.fab->fid), 0);
	kfi_freeinfo(v.list);
	kfi_freeinfo(v.hints);
	KUNIT_ASSERT_EQ(test, rdma_tool(add), 0);
	KUNIT_EXPECT_TRUE(test, listed_soon(test, rxe_dev, rxe_node));
}

/*
 * Hot removal of a device with a domain, a CQ and endpoints open on it (one
 * whose queue pair exists: its connect was refused; one idle): `rdma link
 * delete` returns; the device leaves the listing, no new domain opens on it
 * (-ENODEV), the idle endpoint cannot connect (-ENODEV), and what is open
 * stays usable and closes. Added back, it is listed and opens again.
 */
static void verbs_hot_remove_and_add(struct kunit *test)
{
	struct kfi_cq_attr cattr = { .size = 8, .format = KFI_CQ_FORMAT_DATA };
	struct kfi_cq_data_entry ent;
	struct kfi_info *h, *list = NULL;
	struct kfi_eq_err_entry err;
	struct vev cm;
	struct kfid_domain *dom;
	struct kfid_eq *eq, *eq2;
	struct kfid_ep *ep, *ep2;
	struct sockaddr_in dst;
	struct kfid_cq *cq;
	uint32_t event;
	struct vdom v;
	const char *del[] = { "link", "delete", rxe_dev, NULL };
	const char *add[] = { "link", "add", rxe_dev, "type", "rxe", "netdev",
			      rxe_netdev, NULL };

	vdom_open(test, &v, rxe_dev, rxe_node);
	KUNIT_ASSERT_EQ(test, kfi_cq_open(v.dom, &cattr, &cq, NULL, NULL), 0);
	vep_open(test, &v, &eq, &ep);
	vep_open(test, &v, &eq2, &ep2);
	dst = vaddr(rxe_node, NO_LISTENER);
	KUNIT_ASSERT_EQ(test, kfi_connect(ep, &dst, NULL, 0), 0);
	KUNIT_ASSERT_EQ(test, veq_wait(eq, 10000, &event, &cm, &err),
			(ssize_t)-KFI_EAVAIL);
	KUNIT_ASSERT_EQ(test, rdma_tool(del), 0);
	h = verbs_hints(test);
	KUNIT_EXPECT_EQ(test, kfi_getinfo(V17, NULL, SERVICE, 0, h, &list), 0);
	KUNIT_EXPECT_NULL(test, find_entry(list, rxe_dev, rxe_node));
	KUNIT_EXPECT_NOT_NULL(test, find_entry(list, siw_dev, siw_node));
	kfi_freeinfo(list);
	list = NULL;
	KUNIT_EXPECT_EQ(test, kfi_domain(v.fab, v.e, &dom, NULL), -ENODEV);
	KUNIT_EXPECT_EQ(test, kfi_connect(ep2, &dst, NULL, 0), -ENODEV);
	/* what is open stays usable, and closes */
	KUNIT_EXPECT_EQ(test, veq_wait(eq, 100, &event, &cm, &err),
			(ssize_t)-EAGAIN);
	KUNIT_EXPECT_EQ(test, kfi_cq_read(cq, &ent, 1), -EAGAIN);
	vep_close(test, eq, ep);
	vep_close(test, eq2, ep2);
	KUNIT_EXPECT_EQ(test, kfi_close(&cq->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&v.dom->fid), 0);
	kfi_freeinfo(h);
	KUNIT_ASSERT_EQ(test, rdma_tool(add), 0);
	KUNIT_EXPECT_TRUE(test, listed_soon(test, rxe_dev, rxe_node));
	KUNIT_EXPECT_EQ(test, kfi_domain(v.fab, v.e, &dom, NULL), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&dom->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&v.fab->fid), 0);
	kfi_freeinfo(v.list);
	kfi_freeinfo(v.hints);
}

/* ------------------------------------------------ data transfers (MSG) */

/*
 * The toolkit's connected-pair fixture (kfi_kunit_fix.h) on one device:
 * the verbs row of its provider table, at @node (the device's address).
 */
static void vx_open(struct kunit *test, struct xf_fixture *f,
		    const char *node, size_t tx_size, bool connect)
{
	kfi_provs[KFI_PROV_verbs].node = node;
	cur_prov = &kfi_provs[KFI_PROV_verbs];
	xf_open(test, f, tx_size, 0);
	if (connect)
		xf_connect(test, f);
}

static void vx_fill(u8 *p, size_t n, u8 seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = seed + i * 7;
}

/*
 * Waits for a receive entry of @len bytes for @ctx whose buf is @buf (the
 * address of a kvec buffer; NULL for pages).
 */
static void vx_expect_recv(struct kunit *test, struct kfid_cq *cq, void *ctx,
			   void *buf, size_t len, uint64_t more)
{
	struct kfi_cq_tagged_entry e;
	ssize_t rd = xf_wait(cq, &e);
	struct kfi_cq_err_entry err = {};

	if (rd == -KFI_EAVAIL)
		kfi_cq_readerr(cq, &err, 0);
	KUNIT_ASSERT_EQ_MSG(test, rd, 1, "err %d prov_errno %d", err.err,
			    err.prov_errno);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, ctx);
	KUNIT_EXPECT_EQ(test, e.flags, KFI_RECV | KFI_MSG | more);
	KUNIT_EXPECT_EQ(test, e.len, len);
	KUNIT_EXPECT_PTR_EQ(test, e.buf, buf);
}

/* Waits for a transmit entry for @ctx with @flags. */
static void vx_expect_tx(struct kunit *test, struct kfid_cq *cq, void *ctx,
			 uint64_t flags)
{
	struct kfi_cq_tagged_entry e;
	ssize_t rd = xf_wait(cq, &e);
	struct kfi_cq_err_entry err = {};

	if (rd == -KFI_EAVAIL)
		kfi_cq_readerr(cq, &err, 0);
	KUNIT_ASSERT_EQ_MSG(test, rd, 1, "err %d prov_errno %d", err.err,
			    err.prov_errno);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, ctx);
	KUNIT_EXPECT_EQ(test, e.flags, flags);
}

/* Waits for a send entry for @ctx. */
static void vx_expect_send(struct kunit *test, struct kfid_cq *cq, void *ctx)
{
	vx_expect_tx(test, cq, ctx, KFI_SEND | KFI_MSG);
}

/*
 * Every buffer kind both ways, on rxe and on siw: kvec (one and several),
 * bio_vec, scatterlist, a vmalloc'ed buffer across pages, an empty
 * message; receives in a kvec array, a bio_vec and a scatterlist. Each
 * receive completes in order with its context, length and buffer, and
 * holds exactly the bytes sent; each send completes with its context.
 */
static void verbs_msg_buffer_kinds(struct kunit *test)
{
	const char *node[] = { rxe_node, siw_node };
	struct xf_fixture f;
	struct scatterlist ssg[2], rsg[2];
	struct bio_vec sbv[2], rbv;
	struct kvec siov[3], riov[2];
	u8 *src, *dst, *vsrc;
	size_t off[7] = { 0, 512, 1024, 1536, 4096, 8192, 12288 };
	int i, k;

	src = kunit_kzalloc(test, 4 * PAGE_SIZE, GFP_KERNEL);
	dst = kunit_kzalloc(test, 4 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	vsrc = fix_vzalloc(test, 3 * PAGE_SIZE);
	for (i = 0; i < 2; i++) {
		vx_open(test, &f, node[i], 0, true);
		memset(dst, 0, 4 * PAGE_SIZE);
		vx_fill(src, 4 * PAGE_SIZE, 3 + i);
		vx_fill(vsrc, 3 * PAGE_SIZE, 101 + i);
		/* receives: 0-2 kvec (512 B), 3 kvec pair, 4 bvec, 5 sgl, 6 kvec */
		for (k = 0; k < 3; k++)
			KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, dst + off[k],
						       512, NULL, 0,
						       dst + off[k]), 0);
		riov[0] = (struct kvec){ dst + off[3], 100 };
		riov[1] = (struct kvec){ dst + off[3] + 200, 300 };
		KUNIT_ASSERT_EQ(test, kfi_recvv(f.c.sep, riov, NULL, 2, 0,
						dst + off[3]), 0);
		bvec_set_page(&rbv, virt_to_page(dst + off[4]), PAGE_SIZE, 0);
		KUNIT_ASSERT_EQ(test, kfi_recvbv(f.c.sep, &rbv, NULL, 1, 0,
						 dst + off[4]), 0);
		sg_init_table(rsg, 2);
		sg_set_buf(&rsg[0], dst + off[5], 1000);
		sg_set_buf(&rsg[1], dst + off[5] + 2000, 1000);
		KUNIT_ASSERT_EQ(test, kfi_recvsgl(f.c.sep, rsg, NULL, 2, 0,
						  dst + off[5]), 0);
		KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, dst + off[6], 4096,
					       NULL, 0, dst + off[6]), 0);
		/* sends in the same order */
		KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, src, 300, NULL, 0,
					       src), 0);
		siov[0] = (struct kvec){ src + 400, 10 };
		siov[1] = (struct kvec){ src + 500, 20 };
		siov[2] = (struct kvec){ src + 600, 30 };
		KUNIT_ASSERT_EQ(test, kfi_sendv(f.c.cep, siov, NULL, 3, 0,
						src + 400), 0);
		KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, src, 0, NULL, 0,
					       src + 1), 0);
		KUNIT_ASSERT_EQ(test, kfi_sendv(f.c.cep, siov, NULL, 2, 0,
						src + 401), 0);
		bvec_set_page(&sbv[0], virt_to_page(src + PAGE_SIZE), 1500, 100);
		bvec_set_page(&sbv[1], virt_to_page(src + 2 * PAGE_SIZE), 2000,
			      0);
		KUNIT_ASSERT_EQ(test, kfi_sendbv(f.c.cep, sbv, NULL, 2, 0,
						 sbv), 0);
		sg_init_table(ssg, 2);
		sg_set_buf(&ssg[0], src + 3 * PAGE_SIZE, 700);
		sg_set_buf(&ssg[1], src + 3 * PAGE_SIZE + 800, 1100);
		KUNIT_ASSERT_EQ(test, kfi_sendsgl(f.c.cep, ssg, NULL, 2, 0,
						  ssg), 0);
		/* across the first page boundary of a vmalloc area */
		KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, vsrc + 3000, 3000,
					       NULL, 0, vsrc), 0);
		vx_expect_send(test, f.ctx, src);
		vx_expect_send(test, f.ctx, src + 400);
		vx_expect_send(test, f.ctx, src + 1);
		vx_expect_send(test, f.ctx, src + 401);
		vx_expect_send(test, f.ctx, sbv);
		vx_expect_send(test, f.ctx, ssg);
		vx_expect_send(test, f.ctx, vsrc);

		vx_expect_recv(test, f.srx, dst, dst, 300, 0);
		KUNIT_EXPECT_EQ(test, memcmp(dst, src, 300), 0);
		vx_expect_recv(test, f.srx, dst + off[1], dst + off[1], 60, 0);
		KUNIT_EXPECT_EQ(test, memcmp(dst + off[1], src + 400, 10), 0);
		KUNIT_EXPECT_EQ(test, memcmp(dst + off[1] + 10, src + 500, 20),
				0);
		KUNIT_EXPECT_EQ(test, memcmp(dst + off[1] + 30, src + 600, 30),
				0);
		vx_expect_recv(test, f.srx, dst + off[2], dst + off[2], 0, 0);
		KUNIT_EXPECT_EQ(test, dst[off[2]], 0);
		/* 30 bytes into the pair: the first 100-byte piece */
		vx_expect_recv(test, f.srx, dst + off[3], dst + off[3], 30, 0);
		KUNIT_EXPECT_EQ(test, memcmp(dst + off[3], src + 400, 10), 0);
		KUNIT_EXPECT_EQ(test, memcmp(dst + off[3] + 10, src + 500, 20),
				0);
		vx_expect_recv(test, f.srx, dst + off[4], NULL, 3500, 0);
		KUNIT_EXPECT_EQ(test, memcmp(dst + off[4],
					     src + PAGE_SIZE + 100, 1500), 0);
		KUNIT_EXPECT_EQ(test, memcmp(dst + off[4] + 1500,
					     src + 2 * PAGE_SIZE, 2000), 0);
		/* 1800 bytes: 1000 in the first entry, 800 in the second */
		vx_expect_recv(test, f.srx, dst + off[5], NULL, 1800, 0);
		KUNIT_EXPECT_EQ(test, memcmp(dst + off[5],
					     src + 3 * PAGE_SIZE, 700), 0);
		KUNIT_EXPECT_EQ(test, memcmp(dst + off[5] + 700,
					     src + 3 * PAGE_SIZE + 800, 300),
				0);
		KUNIT_EXPECT_EQ(test, memcmp(dst + off[5] + 2000,
					     src + 3 * PAGE_SIZE + 1100, 800),
				0);
		vx_expect_recv(test, f.srx, dst + off[6], dst + off[6], 3000, 0);
		KUNIT_EXPECT_EQ(test, memcmp(dst + off[6], vsrc + 3000, 3000),
				0);
		xf_expect_none(test, f.srx);
		xf_expect_none(test, f.ctx);
		xf_teardown(test, &f);
	}
}

/*
 * Inject (no transmit entry, the buffer reusable at once), inline (40
 * bytes) and from the slot's own copy (128 bytes, more than the queue
 * pair's inline size), and remote CQ data: on rxe senddata and
 * injectdata carry their 4 bytes to the receive entry
 * (KFI_REMOTE_CQ_DATA); siw (iWARP has no immediate data) refuses them
 * with -EOPNOTSUPP and loses nothing. An inject longer than inject_size
 * is refused with -EMSGSIZE.
 */
static void verbs_msg_inject_and_data(struct kunit *test)
{
	const char *node[] = { rxe_node, siw_node };
	struct kfi_cq_tagged_entry e;
	struct xf_fixture f;
	u8 buf[64], dst[4][64], *big, *dst128;
	int i, k;

	big = kunit_kzalloc(test, 4096, GFP_KERNEL);
	dst128 = kunit_kzalloc(test, 128, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, big);
	KUNIT_ASSERT_NOT_NULL(test, dst128);
	for (i = 0; i < 2; i++) {
		vx_open(test, &f, node[i], 0, true);
		KUNIT_EXPECT_EQ(test, f.c.d.list->domain_attr->cq_data_size,
				i == 0 ? 4u : 0u);
		KUNIT_EXPECT_GE(test, f.c.d.list->tx_attr->inject_size, 64u);
		KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, dst[0], 64, NULL, 0,
					       dst[0]), 0);
		KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, dst128, 128, NULL, 0,
					       dst128), 0);
		for (k = 1; k < 4; k++)
			KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, dst[k], 64, NULL,
						       0, dst[k]), 0);
		vx_fill(buf, sizeof(buf), 9);
		vx_fill(big, 128, 77);
		KUNIT_ASSERT_EQ(test, kfi_inject(f.c.cep, buf, 40, 0), 0);
		/* longer than the queue pair's inline size: sent from the
		 * slot's own copy */
		KUNIT_ASSERT_EQ(test, kfi_inject(f.c.cep, big, 128, 0), 0);
		memset(big, 0, 128);
		/* the bytes were taken at the call */
		memset(buf, 0xee, sizeof(buf));
		KUNIT_EXPECT_EQ(test, kfi_inject(f.c.cep, big,
				f.c.d.list->tx_attr->inject_size + 1, 0),
				-EMSGSIZE);
		if (i == 0) {
			KUNIT_ASSERT_EQ(test, kfi_senddata(f.c.cep, "abcd", 4,
							   NULL, 0x1234abcd, 0,
							   buf), 0);
			KUNIT_ASSERT_EQ(test, kfi_injectdata(f.c.cep, "ef", 2,
							     0xfeedf00d, 0), 0);
		} else {
			KUNIT_EXPECT_EQ(test, kfi_senddata(f.c.cep, "abcd", 4,
							   NULL, 1, 0, buf),
					-EOPNOTSUPP);
			KUNIT_EXPECT_EQ(test, kfi_injectdata(f.c.cep, "ef", 2,
							     1, 0),
					-EOPNOTSUPP);
			KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, "abcd", 4, NULL,
						       0, buf), 0);
			KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, "ef", 2, NULL,
						       0, NULL), 0);
		}
		vx_expect_recv(test, f.srx, dst[0], dst[0], 40, 0);
		vx_fill(buf, sizeof(buf), 9);
		KUNIT_EXPECT_EQ(test, memcmp(dst[0], buf, 40), 0);
		vx_expect_recv(test, f.srx, dst128, dst128, 128, 0);
		vx_fill(big, 128, 77);
		KUNIT_EXPECT_EQ(test, memcmp(dst128, big, 128), 0);
		KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
		KUNIT_EXPECT_EQ(test, e.len, 4u);
		KUNIT_EXPECT_MEMEQ(test, dst[1], "abcd", 4);
		if (i == 0) {
			KUNIT_EXPECT_EQ(test, e.flags, KFI_RECV | KFI_MSG |
					KFI_REMOTE_CQ_DATA);
			KUNIT_EXPECT_EQ(test, e.data, 0x1234abcdull);
		}
		KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
		KUNIT_EXPECT_EQ(test, e.len, 2u);
		KUNIT_EXPECT_EQ(test, memcmp(dst[2], "ef", 2), 0);
		if (i == 0) {
			KUNIT_EXPECT_EQ(test, e.flags, KFI_RECV | KFI_MSG |
					KFI_REMOTE_CQ_DATA);
			KUNIT_EXPECT_EQ(test, e.data, 0xfeedf00dull);
		}
		/* the senddata's entry; none for the injects */
		vx_expect_send(test, f.ctx, buf);
		if (i == 1)
			KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);
		xf_expect_none(test, f.ctx);
		xf_teardown(test, &f);
	}
}

/*
 * Receives and sends posted before the connection exists: the receives
 * are handed to the queue pair when it is made, the sends wait for
 * KFI_CONNECTED, in order; one more than the transmit queue holds is
 * refused with -EAGAIN. After kfi_shutdown, receives still posted
 * complete with -KFI_ECANCELED error entries (in order, before
 * KFI_SHUTDOWN is read) and posts fail with -ENOTCONN.
 */
static void verbs_msg_before_and_after(struct kunit *test)
{
	const char *node[] = { rxe_node, siw_node };
	struct kfi_cq_tagged_entry e;
	struct kfi_cq_err_entry err;
	struct kfi_info *req;
	struct cm_event ev;
	struct xf_fixture f;
	u8 rbuf[2][16], sbuf[3][16], s_rx[3][16];
	ssize_t len;
	int i, k;

	for (i = 0; i < 2; i++) {
		vx_open(test, &f, node[i], 2, false);
		memset(rbuf, 0, sizeof(rbuf));
		for (k = 0; k < 2; k++) {
			snprintf(sbuf[k], 16, "early %d", k);
			KUNIT_ASSERT_EQ(test, kfi_recv(f.c.cep, rbuf[k], 16,
						       NULL, 0, rbuf[k]), 0);
			KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, sbuf[k], 16,
						       NULL, 0, sbuf[k]), 0);
		}
		KUNIT_EXPECT_EQ(test, kfi_send(f.c.cep, sbuf[2], 16, NULL, 0,
					       NULL), -EAGAIN);
		/* xf_connect() without its accept: receives go first */
		KUNIT_ASSERT_EQ(test, kfi_connect(f.c.cep, &f.c.paddr, NULL, 0),
				0);
		req = cm_get_connreq(test, &f.c, "", 0);
		KUNIT_ASSERT_EQ(test, kfi_endpoint(f.c.d.dom, req, &f.c.sep,
						   &f), 0);
		kfi_freeinfo(req);
		KUNIT_ASSERT_EQ(test, kfi_ep_bind(f.c.sep, &f.c.peq->fid, 0), 0);
		KUNIT_ASSERT_EQ(test, kfi_ep_bind(f.c.sep, &f.stx->fid,
						  KFI_TRANSMIT), 0);
		KUNIT_ASSERT_EQ(test, kfi_ep_bind(f.c.sep, &f.srx->fid,
						  KFI_RECV), 0);
		KUNIT_ASSERT_EQ(test, kfi_enable(f.c.sep), 0);
		for (k = 0; k < 3; k++)
			KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, s_rx[k],
						       16, NULL, 0,
						       s_rx[k]), 0);
		KUNIT_ASSERT_EQ(test, kfi_accept(f.c.sep, NULL, 0), 0);
		KUNIT_ASSERT_EQ(test, cm_wait(test, f.c.ceq, &ev, &len),
				KFI_CONNECTED);
		KUNIT_ASSERT_EQ(test, cm_wait(test, f.c.peq, &ev, &len),
				KFI_CONNECTED);
		vx_expect_recv(test, f.srx, s_rx[0], s_rx[0], 16, 0);
		KUNIT_EXPECT_STREQ(test, (char *)s_rx[0], "early 0");
		vx_expect_recv(test, f.srx, s_rx[1], s_rx[1], 16, 0);
		KUNIT_EXPECT_STREQ(test, (char *)s_rx[1], "early 1");
		vx_expect_send(test, f.ctx, sbuf[0]);
		vx_expect_send(test, f.ctx, sbuf[1]);
		/* the server answers into the client's early receives */
		KUNIT_ASSERT_EQ(test, kfi_send(f.c.sep, "back", 5, NULL,
					       0, NULL), 0);
		vx_expect_recv(test, f.crx, rbuf[0], rbuf[0], 5, 0);
		KUNIT_EXPECT_STREQ(test, (char *)rbuf[0], "back");
		KUNIT_ASSERT_EQ(test, xf_wait(f.stx, &e),
				1);
		/*
		 * Shut down: the rest is flushed, and its entries are there
		 * by the time each side's KFI_SHUTDOWN is read.
		 */
		KUNIT_ASSERT_EQ(test, kfi_shutdown(f.c.cep, 0), 0);
		KUNIT_EXPECT_EQ(test, cm_wait(test, f.c.ceq, &ev, &len),
				KFI_SHUTDOWN);
		KUNIT_ASSERT_EQ(test, kfi_cq_read(f.crx, &e, 1),
				(ssize_t)-KFI_EAVAIL);
		KUNIT_ASSERT_EQ(test, kfi_cq_readerr(f.crx, &err, 0), 1);
		KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)rbuf[1]);
		KUNIT_EXPECT_EQ(test, err.err, KFI_ECANCELED);
		KUNIT_EXPECT_EQ(test, cm_wait(test, f.c.peq, &ev, &len),
				KFI_SHUTDOWN);
		KUNIT_ASSERT_EQ(test, kfi_cq_read(f.srx, &e, 1),
				(ssize_t)-KFI_EAVAIL);
		KUNIT_ASSERT_EQ(test, kfi_cq_readerr(f.srx, &err, 0), 1);
		KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)s_rx[2]);
		KUNIT_EXPECT_EQ(test, err.err, KFI_ECANCELED);
		KUNIT_EXPECT_EQ(test, kfi_send(f.c.cep, "x", 1, NULL, 0,
					       NULL), -ENOTCONN);
		KUNIT_EXPECT_EQ(test, kfi_recv(f.c.sep, s_rx[0], 16,
					       NULL, 0, NULL),
				-ENOTCONN);
		xf_expect_none(test, f.crx);
		xf_expect_none(test, f.srx);
		xf_teardown(test, &f);
	}
}

/*
 * A message longer than its receive, on rxe and on siw: the receive
 * completes with an error entry (-KFI_ETRUNC on siw; rxe reports a queue
 * pair operation error, -EIO), the send with an error entry on rxe
 * (-EREMOTEIO: the peer's device refused it) and successfully on siw
 * (iWARP completes a send once sent); as the queue pairs are in the
 * error state the connection ends: the other posted receive is flushed
 * (-KFI_ECANCELED) and both sides report KFI_SHUTDOWN.
 */
static void verbs_msg_receive_too_small(struct kunit *test)
{
	const char *node[] = { rxe_node, siw_node };
	struct kfi_cq_tagged_entry e;
	struct kfi_cq_err_entry err;
	struct cm_event ev;
	struct xf_fixture f;
	u8 small[8], other[64], big[64] = "0123456789abcdef";
	ssize_t len;
	int i;

	for (i = 0; i < 2; i++) {
		vx_open(test, &f, node[i], 0, true);
		KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, small, sizeof(small),
					       NULL, 0, small), 0);
		KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, other, sizeof(other),
					       NULL, 0, other), 0);
		KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, big, 16, NULL, 0, big),
				0);
		xf_wait_err(test, f.srx, &err);
		KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)small);
		/* rxe fails the receive as a QP operation error (EIO) */
		KUNIT_EXPECT_EQ(test, err.err, i ? KFI_ETRUNC : EIO);
		if (i == 0) {
			/*
			 * the peer's device refused it: EREMOTEIO, or flushed
			 * (KFI_ECANCELED) when the peer's disconnect (a CM
			 * message, on another queue pair) overtook the refusal
			 */
			xf_wait_err(test, f.ctx, &err);
			KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)big);
			KUNIT_EXPECT_TRUE_MSG(test, err.err == EREMOTEIO ||
					      err.err == KFI_ECANCELED,
					      "err %d", err.err);
		} else {
			/* iWARP completes a send once it is sent */
			KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);
			KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)big);
		}
		xf_wait_err(test, f.srx, &err);
		KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)other);
		KUNIT_EXPECT_EQ(test, err.err, KFI_ECANCELED);
		KUNIT_EXPECT_EQ(test, cm_wait(test, f.c.ceq, &ev, &len),
				KFI_SHUTDOWN);
		KUNIT_EXPECT_EQ(test, cm_wait(test, f.c.peq, &ev, &len),
				KFI_SHUTDOWN);
		KUNIT_EXPECT_EQ(test, kfi_send(f.c.cep, "x", 1, NULL, 0, NULL),
				-ENOTCONN);
		xf_teardown(test, &f);
	}
}

/*
 * A device removed (rdma link delete) while a connected pair on it has
 * work posted, on rxe and on siw: every posted operation completes with
 * a -KFI_ECANCELED error entry (the client's receives and, on rxe, a send
 * held back by the peer's missing receive; the server's receives), then
 * both endpoints report KFI_SHUTDOWN; posts fail with -ENOTCONN and
 * everything closes. The device is added back. Before the removal,
 * kfi_cancel of a receive the device holds says -EBUSY (direct mode);
 * after its flush, -ENOENT.
 */
static void verbs_msg_remove_during_traffic(struct kunit *test)
{
	struct kfi_cq_err_entry err;
	struct kfi_cq_tagged_entry e;
	struct cm_event ev;
	struct xf_fixture f;
	u8 crx[3][8], srx[3][8], held[8];
	ssize_t len;
	int i, k;

	for (i = 0; i < 2; i++) {
		vx_open(test, &f, vx_node(i), 0, true);
		for (k = 0; k < 3; k++)
			KUNIT_ASSERT_EQ(test, kfi_recv(f.c.cep, crx[k], 8, NULL,
						       0, crx[k]), 0);
		KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, srx[0], 8, NULL, 0,
					       srx[0]), 0);
		/* traffic: one message each way */
		KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, "c2s", 4, NULL, 0,
					       NULL), 0);
		vx_expect_recv(test, f.srx, srx[0], srx[0], 4, 0);
		KUNIT_EXPECT_STREQ(test, (char *)srx[0], "c2s");
		KUNIT_ASSERT_EQ(test, kfi_send(f.c.sep, "s2c", 4, NULL, 0,
					       NULL), 0);
		vx_expect_recv(test, f.crx, crx[0], crx[0], 4, 0);
		KUNIT_EXPECT_STREQ(test, (char *)crx[0], "s2c");
		KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);
		KUNIT_ASSERT_EQ(test, xf_wait(f.stx, &e), 1);
		/*
		 * rxe: a send the peer has no receive for waits (retried;
		 * siw would end the connection instead). siw: the server
		 * has receives posted.
		 */
		if (i == 0)
			KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, "held", 5,
						       NULL, 0, held), 0);
		for (k = 1; i == 1 && k < 3; k++)
			KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, srx[k], 8, NULL,
						       0, srx[k]), 0);
		/* direct mode: a receive on the device cannot be withdrawn */
		KUNIT_EXPECT_EQ(test, kfi_cancel(&f.c.cep->fid, crx[1]),
				-EBUSY);
		KUNIT_EXPECT_EQ(test, kfi_cancel(&f.c.cep->fid, held),
				-ENOENT);
		vx_dev_delete(test, i);
		for (k = 1; k < 3; k++) {
			xf_wait_err(test, f.crx, &err);
			KUNIT_EXPECT_PTR_EQ(test, err.op_context,
					    (void *)crx[k]);
			KUNIT_EXPECT_EQ(test, err.err, KFI_ECANCELED);
			if (i == 0)
				continue;
			xf_wait_err(test, f.srx, &err);
			KUNIT_EXPECT_PTR_EQ(test, err.op_context,
					    (void *)srx[k]);
			KUNIT_EXPECT_EQ(test, err.err, KFI_ECANCELED);
		}
		if (i == 0) {
			xf_wait_err(test, f.ctx, &err);
			KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)held);
			KUNIT_EXPECT_EQ(test, err.err, KFI_ECANCELED);
		}
		KUNIT_EXPECT_EQ(test, cm_wait(test, f.c.ceq, &ev, &len),
				KFI_SHUTDOWN);
		KUNIT_EXPECT_EQ(test, cm_wait(test, f.c.peq, &ev, &len),
				KFI_SHUTDOWN);
		/* flushed: gone */
		KUNIT_EXPECT_EQ(test, kfi_cancel(&f.c.cep->fid, crx[1]),
				-ENOENT);
		xf_expect_none(test, f.crx);
		xf_expect_none(test, f.srx);
		xf_expect_none(test, f.ctx);
		KUNIT_EXPECT_EQ(test, kfi_send(f.c.cep, "x", 1, NULL, 0, NULL),
				-ENOTCONN);
		KUNIT_EXPECT_EQ(test, kfi_recv(f.c.sep, srx[0], 8, NULL, 0,
					       NULL), -ENOTCONN);
		xf_teardown(test, &f);
		vx_dev_add(test, i);
	}
}

/* One endpoint of verbs_rdm_remove_during_traffic(). */
struct vrdm {
	struct kfid_ep *ep;
	struct kfid_av *av;
	struct kfid_cq *tx, *rx;
	struct sockaddr_in name;
	kfi_addr_t peer;
};

static void vrdm_open(struct kunit *test, struct kfid_domain *dom,
		      const struct kfi_info *e, struct vrdm *n)
{
	struct kfi_cq_attr cattr = { .size = 64,
				     .format = KFI_CQ_FORMAT_TAGGED };
	struct kfi_av_attr aattr = { .type = KFI_AV_TABLE };
	size_t len = sizeof(n->name);

	KUNIT_ASSERT_EQ(test, kfi_endpoint(dom, (struct kfi_info *)e, &n->ep,
					   NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_av_open(dom, &aattr, &n->av, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_cq_open(dom, &cattr, &n->tx, NULL, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_cq_open(dom, &cattr, &n->rx, NULL, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(n->ep, &n->av->fid, 0), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(n->ep, &n->tx->fid, KFI_TRANSMIT), 0);
	KUNIT_ASSERT_EQ(test, kfi_ep_bind(n->ep, &n->rx->fid, KFI_RECV), 0);
	KUNIT_ASSERT_EQ(test, kfi_enable(n->ep), 0);
	KUNIT_ASSERT_EQ(test, kfi_getname(&n->ep->fid, &n->name, &len), 0);
}

static void vrdm_close(struct kunit *test, struct vrdm *n)
{
	KUNIT_EXPECT_EQ(test, kfi_close(&n->ep->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&n->av->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&n->tx->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&n->rx->fid), 0);
}

/*
 * The device under two connected RDM endpoints removed (rdma link delete)
 * with a receive posted: the removal returns (the endpoints' listeners and
 * connections let go of the device), the receive stays posted and does not
 * complete, a send to the peer after it fails with an error entry (no
 * device to connect through), and everything closes. Added back, the
 * device is listed again. (RDM endpoints are on rxe only.)
 */
static void verbs_rdm_remove_during_traffic(struct kunit *test)
{
	struct kfi_cq_tagged_entry e;
	struct kfi_cq_err_entry err;
	struct kfi_info *hints, *list = NULL, *ent;
	struct kfid_fabric *fab;
	struct kfid_domain *dom;
	struct vrdm n[2];
	char in[2][16] = {};
	ssize_t r;
	int i;

	memset(n, 0, sizeof(n));
	hints = verbs_hints(test);
	hints->ep_attr->type = KFI_EP_RDM;
	hints->caps = KFI_MSG;
	KUNIT_ASSERT_EQ(test, kfi_getinfo(V17, rxe_node, NULL, KFI_SOURCE,
					  hints, &list), 0);
	ent = find_entry(list, rxe_dev, rxe_node);
	KUNIT_ASSERT_NOT_NULL(test, ent);
	KUNIT_ASSERT_EQ(test, ent->ep_attr->type, KFI_EP_RDM);
	KUNIT_ASSERT_EQ(test, kfi_fabric(ent->fabric_attr, &fab, NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_domain(fab, ent, &dom, NULL), 0);
	for (i = 0; i < 2; i++)
		vrdm_open(test, dom, ent, &n[i]);
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, kfi_av_insert(n[i].av, &n[1 - i].name, 1,
						    &n[i].peer, 0, NULL), 1);
	/* connected: one message */
	KUNIT_ASSERT_EQ(test, kfi_recv(n[1].ep, in[0], sizeof(in[0]), NULL,
				       KFI_ADDR_UNSPEC, in[0]), 0);
	KUNIT_ASSERT_EQ(test, kfi_send(n[0].ep, "one", 4, NULL, n[0].peer,
				       NULL), 0);
	KUNIT_ASSERT_EQ(test, kfi_cq_sread(n[0].tx, &e, 1, NULL, XF_WAIT_MS),
			1);
	KUNIT_ASSERT_EQ(test, kfi_cq_sread(n[1].rx, &e, 1, NULL, XF_WAIT_MS),
			1);
	KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)in[0]);
	KUNIT_EXPECT_STREQ(test, in[0], "one");
	KUNIT_ASSERT_EQ(test, kfi_recv(n[1].ep, in[1], sizeof(in[1]), NULL,
				       KFI_ADDR_UNSPEC, in[1]), 0);
	vx_dev_delete(test, 0);
	r = kfi_send(n[0].ep, "two", 4, NULL, n[0].peer, in[1]);
	KUNIT_ASSERT_EQ(test, r, 0);
	KUNIT_ASSERT_EQ(test, kfi_cq_sread(n[0].tx, &e, 1, NULL, XF_WAIT_MS),
			(ssize_t)-KFI_EAVAIL);
	KUNIT_ASSERT_EQ(test, kfi_cq_readerr(n[0].tx, &err, 0), 1);
	KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)in[1]);
	KUNIT_EXPECT_NE_MSG(test, err.err, 0, "send after the removal");
	/* the receive stays posted: nothing completed it */
	KUNIT_EXPECT_EQ(test, kfi_cq_read(n[1].rx, &e, 1), (ssize_t)-EAGAIN);
	KUNIT_EXPECT_EQ(test, kfi_cq_read(n[0].tx, &e, 1), (ssize_t)-EAGAIN);
	KUNIT_EXPECT_EQ(test, in[1][0], 0);
	for (i = 0; i < 2; i++)
		vrdm_close(test, &n[i]);
	KUNIT_EXPECT_EQ(test, kfi_close(&dom->fid), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&fab->fid), 0);
	kfi_freeinfo(list);
	kfi_freeinfo(hints);
	vx_dev_add(test, 0);
}

/* Busy-polls @cq (kfi_cq_read) for one entry, at most XF_WAIT_MS. */
static ssize_t vx_busy_read(struct kfid_cq *cq, struct kfi_cq_tagged_entry *e)
{
	unsigned long end = jiffies + msecs_to_jiffies(XF_WAIT_MS);
	ssize_t rd;

	do {
		memset(e, 0, sizeof(*e));
		rd = kfi_cq_read(cq, e, 1);
		if (rd != -EAGAIN)
			return rd;
		cond_resched();
	} while (time_before(jiffies, end));
	return rd;
}

/*
 * Completions while a consumer busy-polls its CQs, and after it stops (on
 * both devices): busy reads get their entries (the reader handles the
 * queue pair's completions itself, completion events left to it); then a
 * consumer that waits on a counter without reading gets its completion
 * (the busy window ends and the softirq poller takes over); a blocking
 * read after busy reads gets its entry; a stream read alternately by busy
 * and blocking reads (reader and softirq poller both handing over
 * completions) arrives whole and in order.
 */
static void verbs_cq_busy_polling(struct kunit *test)
{
	const int n = 64;
	struct kfi_cq_tagged_entry e;
	struct xf_fixture f;
	u8 (*rx)[16] = kunit_kcalloc(test, n, 16, GFP_KERNEL);
	u8 tx[16];
	int i, k;

	KUNIT_ASSERT_NOT_NULL(test, rx);
	for (i = 0; i < 2; i++) {
		kfi_provs[KFI_PROV_verbs].node = vx_node(i);
		cur_prov = &kfi_provs[KFI_PROV_verbs];
		xf_open_ex(test, &f, 0, 0, true);
		xf_connect(test, &f);

		/* busy */
		KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, rx[0], 16, NULL, 0,
					       rx[0]), 0);
		vx_fill(tx, 16, 1);
		KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, tx, 16, NULL, 0, tx),
				0);
		KUNIT_ASSERT_EQ(test, vx_busy_read(f.srx, &e), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)rx[0]);
		KUNIT_EXPECT_EQ(test, memcmp(rx[0], tx, 16), 0);
		KUNIT_ASSERT_EQ(test, vx_busy_read(f.ctx, &e), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)tx);

		/* then a counter wait, nobody reading the CQ */
		KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, rx[1], 16, NULL, 0,
					       rx[1]), 0);
		vx_fill(tx, 16, 2);
		KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, tx, 16, NULL, 0, tx),
				0);
		KUNIT_EXPECT_EQ(test, kfi_cntr_wait(f.cn[2], 2, XF_WAIT_MS),
				0);
		KUNIT_EXPECT_EQ(test, kfi_cntr_read(f.cn[2]), 2ULL);
		KUNIT_EXPECT_EQ(test, memcmp(rx[1], tx, 16), 0);
		KUNIT_ASSERT_EQ(test, kfi_cq_read(f.srx, &e, 1), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)rx[1]);
		KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);

		/* busy reads of an empty CQ, then a blocking one */
		KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, rx[2], 16, NULL, 0,
					       rx[2]), 0);
		for (k = 0; k < 100; k++)
			KUNIT_ASSERT_EQ(test, kfi_cq_read(f.srx, &e, 1),
					(ssize_t)-EAGAIN);
		vx_fill(tx, 16, 3);
		KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, tx, 16, NULL, 0, tx),
				0);
		KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)rx[2]);
		KUNIT_EXPECT_EQ(test, memcmp(rx[2], tx, 16), 0);
		KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);

		/* a stream, read both ways in turn */
		for (k = 0; k < n; k++)
			KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, rx[k], 16, NULL,
						       0, rx[k]), 0);
		for (k = 0; k < n; k++) {
			vx_fill(tx, 16, 10 + k);
			KUNIT_ASSERT_EQ(test, kfi_inject(f.c.cep, tx, 16, 0),
					0);
		}
		for (k = 0; k < n; k++) {
			ssize_t rd = k % 2 ? xf_wait(f.srx, &e) :
					     vx_busy_read(f.srx, &e);

			KUNIT_ASSERT_EQ(test, rd, 1);
			KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)rx[k]);
			vx_fill(tx, 16, 10 + k);
			KUNIT_EXPECT_EQ(test, memcmp(rx[k], tx, 16), 0);
		}
		KUNIT_EXPECT_EQ(test, kfi_cntr_read(f.cn[2]), 3ULL + n);
		xf_expect_none(test, f.srx);
		xf_teardown(test, &f);
	}
}

/*
 * Soft mode (protocol version 2) on rxe and on siw: the connection is
 * made in the mode the client's entry names (the request's info says
 * it); tagged messages both ways, one of 200 KiB (25 chunks) from a
 * vmalloc'ed buffer; CQ data in a send's header (rxe; siw, without CQ
 * data, refuses it); a remote write with CQ data reported without a
 * receive (rxe); then the device goes away with receives posted and an
 * unexpected message held: the receives fail with KFI_ECANCELED, both
 * ends see KFI_SHUTDOWN, and everything closes.
 */
static void verbs_msg_soft_mode(struct kunit *test)
{
	const size_t big = 200 << 10;
	struct kfi_cq_err_entry err;
	struct kfi_cq_tagged_entry e;
	struct kfid_mr *mr;
	struct cm_event ev;
	struct xf_fixture f;
	u8 *src = fix_vzalloc(test, big), *dst = fix_vzalloc(test, big);
	u8 rx[2][16], region[16];
	ssize_t len;
	int i, k;

	vx_fill(src, big, 9);
	for (i = 0; i < 2; i++) {
		kfi_provs[KFI_PROV_verbs_soft].node = vx_node(i);
		cur_prov = &kfi_provs[KFI_PROV_verbs_soft];
		xf_open(test, &f, 0, 0);
		KUNIT_EXPECT_EQ(test, f.c.d.list->ep_attr->protocol_version,
				2U);
		xf_connect(test, &f);
		/* tagged both ways, the big one unexpected at first */
		KUNIT_ASSERT_EQ(test, kfi_tsend(f.c.cep, src, big, NULL, 0,
						0x42, src), 0);
		KUNIT_ASSERT_EQ(test, kfi_trecv(f.c.cep, rx[0], 16, NULL, 0,
						0x7, 0, rx[0]), 0);
		KUNIT_ASSERT_EQ(test, kfi_tsend(f.c.sep, "to-client", 10, NULL,
						0, 0x7, NULL), 0);
		KUNIT_ASSERT_EQ(test, xf_wait(f.crx, &e), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)rx[0]);
		KUNIT_EXPECT_EQ(test, e.flags, KFI_RECV | KFI_TAGGED);
		KUNIT_EXPECT_STREQ(test, (char *)rx[0], "to-client");
		KUNIT_ASSERT_EQ(test, xf_wait(f.stx, &e), 1);
		msleep(20);
		KUNIT_ASSERT_EQ(test, kfi_trecv(f.c.sep, dst, big, NULL, 0,
						0x40, 0x3, dst), 0);
		KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
		KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)dst);
		KUNIT_EXPECT_EQ(test, e.len, big);
		KUNIT_EXPECT_EQ(test, e.tag, 0x42ULL);
		KUNIT_EXPECT_EQ(test, memcmp(dst, src, big), 0);
		vx_expect_tx(test, f.ctx, src, KFI_SEND | KFI_TAGGED);
		/* CQ data travels in the header: rxe; siw has none */
		if (i == 0) {
			KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, rx[1], 16, NULL,
						       0, rx[1]), 0);
			KUNIT_ASSERT_EQ(test, kfi_senddata(f.c.cep, "d", 2,
							   NULL, 0xabcd, 0,
							   NULL), 0);
			KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
			KUNIT_EXPECT_EQ(test, e.flags, KFI_RECV | KFI_MSG |
					KFI_REMOTE_CQ_DATA);
			KUNIT_EXPECT_EQ(test, e.data, 0xabcdULL);
			KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);
			/* a write with data consumes no receive */
			memset(region, 0, sizeof(region));
			KUNIT_ASSERT_EQ(test, kfi_mr_reg(f.c.d.dom, region, 16,
							 KFI_REMOTE_WRITE, 0, 0,
							 0, &mr, NULL), 0);
			KUNIT_ASSERT_EQ(test, kfi_writedata(f.c.cep, "wd", 3,
							    NULL, 0x55, 0, 4,
							    kfi_mr_key(mr),
							    NULL), 0);
			KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
			KUNIT_EXPECT_EQ(test, e.flags, KFI_RMA |
					KFI_REMOTE_WRITE | KFI_REMOTE_CQ_DATA);
			KUNIT_EXPECT_EQ(test, e.data, 0x55ULL);
			KUNIT_EXPECT_STREQ(test, (char *)region + 4, "wd");
			vx_expect_tx(test, f.ctx, NULL, KFI_RMA | KFI_WRITE);
			KUNIT_EXPECT_EQ(test, kfi_close(&mr->fid), 0);
		} else {
			KUNIT_EXPECT_EQ(test, kfi_senddata(f.c.cep, "d", 2,
							   NULL, 1, 0, NULL),
					-EOPNOTSUPP);
		}
		/* removal: receives posted, a message held unexpected */
		for (k = 0; k < 2; k++)
			KUNIT_ASSERT_EQ(test, kfi_trecv(f.c.cep, rx[k], 16,
							NULL, 0, 0x9, 0, rx[k]),
					0);
		KUNIT_ASSERT_EQ(test, kfi_tsend(f.c.cep, "held", 5, NULL, 0,
						0x8, NULL), 0);
		KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);
		msleep(20);
		vx_dev_delete(test, i);
		for (k = 0; k < 2; k++) {
			xf_wait_err(test, f.crx, &err);
			KUNIT_EXPECT_PTR_EQ(test, err.op_context,
					    (void *)rx[k]);
			KUNIT_EXPECT_EQ(test, err.err, KFI_ECANCELED);
		}
		KUNIT_EXPECT_EQ(test, cm_wait(test, f.c.ceq, &ev, &len),
				KFI_SHUTDOWN);
		KUNIT_EXPECT_EQ(test, cm_wait(test, f.c.peq, &ev, &len),
				KFI_SHUTDOWN);
		xf_expect_none(test, f.crx);
		xf_expect_none(test, f.srx);
		KUNIT_EXPECT_EQ(test, kfi_tsend(f.c.cep, "x", 1, NULL, 0, 1,
						NULL), -ENOTCONN);
		xf_teardown(test, &f);
		vx_dev_add(test, i);
	}
}

/* ----------------------------------------------------- memory and RMA */

/* Waits for an RMA entry (@what: KFI_READ or KFI_WRITE) for @ctx. */
static void vx_expect_rma(struct kunit *test, struct kfid_cq *cq, void *ctx,
			  uint64_t what)
{
	vx_expect_tx(test, cq, ctx, KFI_RMA | what);
}

/* @n bytes of page-aligned, zeroed memory (kmalloc of a power of two). */
static u8 *vx_pages(struct kunit *test, size_t n)
{
	u8 *p = kunit_kzalloc(test, n, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, offset_in_page(p), 0UL);
	return p;
}

/*
 * Remote writes and reads on rxe and siw, data compared: a kvec region at
 * an offset (the guard bytes around it untouched), a region of three
 * bio_vecs (a partial first page, a whole page, a partial last page) and
 * a vmalloc'ed region across three pages, each written in part and read
 * back whole; an injected write; a read of a read-only region. On rxe
 * writedata places its bytes and reports its 4 bytes of data in an entry
 * of the receive it consumed (KFI_RMA | KFI_REMOTE_WRITE |
 * KFI_REMOTE_CQ_DATA); siw (no immediate data on iWARP) refuses it with
 * -EOPNOTSUPP. More than one remote region per operation: -EINVAL.
 */
static void verbs_rma_write_read(struct kunit *test)
{
	const char *node[] = { rxe_node, siw_node };
	struct kfid_mr *m1, *m2, *m3, *m4;
	struct xf_fixture f;
	struct kfi_cq_tagged_entry e;
	struct bio_vec bv[3];
	struct kvec liov[1];
	struct kfi_rma_iov riov[2];
	struct kfi_msg_rma rm = { .type = KFI_KVEC, .msg_iov = liov,
				  .iov_count = 1, .rma_iov = riov,
				  .rma_iov_count = 2 };
	u64 k1, k2, k3, k4;
	u8 *r1, *r2, *pg, *vm, *src, *dst, rx[16];
	size_t bvlen = (PAGE_SIZE - 100) + PAGE_SIZE + 1000;
	int i, j;

	r1 = kunit_kzalloc(test, 4096 + 64, GFP_KERNEL);
	r2 = kunit_kzalloc(test, 1000, GFP_KERNEL);
	src = kunit_kmalloc(test, 4 * PAGE_SIZE, GFP_KERNEL);
	dst = kunit_kzalloc(test, 4 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r1);
	KUNIT_ASSERT_NOT_NULL(test, r2);
	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	pg = vx_pages(test, 4 * PAGE_SIZE);
	vm = fix_vzalloc(test, 3 * PAGE_SIZE);
	bvec_set_page(&bv[0], virt_to_page(pg), PAGE_SIZE - 100, 100);
	bvec_set_page(&bv[1], virt_to_page(pg + PAGE_SIZE), PAGE_SIZE, 0);
	bvec_set_page(&bv[2], virt_to_page(pg + 2 * PAGE_SIZE), 1000, 0);
	for (i = 0; i < 2; i++) {
		vx_open(test, &f, node[i], 0, true);
		memset(r1, 0xee, 4096 + 64);
		memset(pg, 0xee, 4 * PAGE_SIZE);
		vx_fill(r2, 1000, 40 + i);
		/* region 1: remote addresses [1000, 5096) over r1 + 32 */
		KUNIT_ASSERT_EQ(test, kfi_mr_reg(f.c.d.dom, r1 + 32, 4096,
						 KFI_REMOTE_WRITE |
						 KFI_REMOTE_READ, 1000, 0, 0,
						 &m1, NULL), 0);
		KUNIT_ASSERT_EQ(test, kfi_mr_reg(f.c.d.dom, r2, 1000,
						 KFI_REMOTE_READ, 0, 0, 0, &m2,
						 NULL), 0);
		KUNIT_ASSERT_EQ(test, kfi_mr_regbv(f.c.d.dom, bv, 3,
						   KFI_REMOTE_WRITE |
						   KFI_REMOTE_READ, 5000, 0, 0,
						   &m3, NULL), 0);
		KUNIT_ASSERT_EQ(test, kfi_mr_reg(f.c.d.dom, vm + 2000, 6000,
						 KFI_REMOTE_WRITE |
						 KFI_REMOTE_READ, 0, 0, 0, &m4,
						 NULL), 0);
		k1 = kfi_mr_key(m1);
		k2 = kfi_mr_key(m2);
		k3 = kfi_mr_key(m3);
		k4 = kfi_mr_key(m4);
		/* the device's keys are all different */
		KUNIT_EXPECT_NE(test, (u32)k1, (u32)k2);
		KUNIT_EXPECT_NE(test, (u32)k1, (u32)k3);
		KUNIT_EXPECT_NE(test, (u32)k3, (u32)k4);

		/* region 1: write 4096 bytes, read them back */
		vx_fill(src, 4096, 5 + i);
		KUNIT_ASSERT_EQ(test, kfi_write(f.c.cep, src, 4096, NULL, 0,
						1000, k1, src), 0);
		vx_expect_rma(test, f.ctx, src, KFI_WRITE);
		memset(dst, 0, 4096);
		KUNIT_ASSERT_EQ(test, kfi_read(f.c.cep, dst, 4096, NULL, 0,
					       1000, k1, dst), 0);
		vx_expect_rma(test, f.ctx, dst, KFI_READ);
		KUNIT_EXPECT_EQ(test, memcmp(dst, src, 4096), 0);
		KUNIT_EXPECT_EQ(test, memcmp(r1 + 32, src, 4096), 0);
		for (j = 0; j < 32; j++) {
			KUNIT_EXPECT_EQ(test, r1[j], (u8)0xee);
			KUNIT_EXPECT_EQ(test, r1[32 + 4096 + j], (u8)0xee);
		}
		/* an inject into its last two bytes, read back with more */
		KUNIT_ASSERT_EQ(test, kfi_inject_write(f.c.cep, "xy", 2, 0,
						       5094, k1), 0);
		KUNIT_ASSERT_EQ(test, kfi_read(f.c.cep, dst, 100, NULL, 0,
					       4996, k1, dst), 0);
		vx_expect_rma(test, f.ctx, dst, KFI_READ);
		KUNIT_EXPECT_EQ(test, memcmp(dst, src + 3996, 98), 0);
		KUNIT_EXPECT_EQ(test, memcmp(dst + 98, "xy", 2), 0);

		/* region 2, read-only, from its offset 0 */
		KUNIT_ASSERT_EQ(test, kfi_read(f.c.cep, dst, 50, NULL, 0, 950,
					       k2, dst), 0);
		vx_expect_rma(test, f.ctx, dst, KFI_READ);
		KUNIT_EXPECT_EQ(test, memcmp(dst, r2 + 950, 50), 0);

		/* region 3 (bio_vecs): inside the first to inside the last */
		vx_fill(src, bvlen, 9 + i);
		KUNIT_ASSERT_EQ(test, kfi_write(f.c.cep, src, bvlen - 550,
						NULL, 0, 5050, k3, src), 0);
		vx_expect_rma(test, f.ctx, src, KFI_WRITE);
		memset(dst, 0, bvlen);
		KUNIT_ASSERT_EQ(test, kfi_read(f.c.cep, dst, bvlen, NULL, 0,
					       5000, k3, dst), 0);
		vx_expect_rma(test, f.ctx, dst, KFI_READ);
		for (j = 0; j < 50; j++)
			KUNIT_EXPECT_EQ(test, dst[j], (u8)0xee);
		KUNIT_EXPECT_EQ(test, memcmp(dst + 50, src, bvlen - 550), 0);
		for (j = bvlen - 500; j < bvlen; j++)
			KUNIT_EXPECT_EQ(test, dst[j], (u8)0xee);
		/* the pages hold the same bytes, nothing outside changed */
		KUNIT_EXPECT_EQ(test, memcmp(pg + 150, src, PAGE_SIZE - 150),
				0);
		KUNIT_EXPECT_EQ(test, pg[99], (u8)0xee);
		KUNIT_EXPECT_EQ(test, pg[2 * PAGE_SIZE + 1000], (u8)0xee);

		/* region 4 (vmalloc'ed, three pages) */
		vx_fill(src, 6000, 13 + i);
		KUNIT_ASSERT_EQ(test, kfi_write(f.c.cep, src, 6000, NULL, 0, 0,
						k4, src), 0);
		vx_expect_rma(test, f.ctx, src, KFI_WRITE);
		memset(dst, 0, 6000);
		KUNIT_ASSERT_EQ(test, kfi_read(f.c.cep, dst, 6000, NULL, 0, 0,
					       k4, dst), 0);
		vx_expect_rma(test, f.ctx, dst, KFI_READ);
		KUNIT_EXPECT_EQ(test, memcmp(dst, src, 6000), 0);
		KUNIT_EXPECT_EQ(test, memcmp(vm + 2000, src, 6000), 0);

		/* writedata: rxe consumes a receive, siw refuses */
		KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, rx, sizeof(rx), NULL,
					       0, rx), 0);
		if (i == 0) {
			KUNIT_ASSERT_EQ(test, kfi_writedata(f.c.cep, "abc", 3,
							    NULL, 99, 0, 2000,
							    k1, r1), 0);
			KUNIT_ASSERT_EQ(test, xf_wait(f.srx, &e), 1);
			KUNIT_EXPECT_PTR_EQ(test, e.op_context, (void *)rx);
			KUNIT_EXPECT_EQ(test, e.flags,
					KFI_RMA | KFI_REMOTE_WRITE |
					KFI_REMOTE_CQ_DATA);
			KUNIT_EXPECT_EQ(test, e.data, 99ULL);
			KUNIT_EXPECT_EQ(test, e.len, (size_t)3);
			KUNIT_EXPECT_EQ(test, memcmp(r1 + 32 + 1000, "abc", 3),
					0);
			vx_expect_rma(test, f.ctx, r1, KFI_WRITE);
		} else {
			KUNIT_EXPECT_EQ(test, kfi_writedata(f.c.cep, "abc", 3,
							    NULL, 99, 0, 2000,
							    k1, r1),
					-EOPNOTSUPP);
			/* the receive is still there for a message */
			KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, "m", 2, NULL,
						       0, NULL), 0);
			vx_expect_recv(test, f.srx, rx, rx, 2, 0);
			KUNIT_ASSERT_EQ(test, xf_wait(f.ctx, &e), 1);
		}

		/* two remote regions in one operation: -EINVAL */
		liov[0] = (struct kvec){ dst, 150 };
		riov[0] = (struct kfi_rma_iov){ .addr = 4996, .len = 100,
						.key = k1 };
		riov[1] = (struct kfi_rma_iov){ .addr = 0, .len = 50,
						.key = k2 };
		KUNIT_EXPECT_EQ(test, kfi_readmsg(f.c.cep, &rm, 0), -EINVAL);
		xf_expect_none(test, f.ctx);
		xf_expect_none(test, f.srx);
		KUNIT_EXPECT_EQ(test, kfi_close(&m4->fid), 0);
		KUNIT_EXPECT_EQ(test, kfi_close(&m3->fid), 0);
		KUNIT_EXPECT_EQ(test, kfi_close(&m2->fid), 0);
		KUNIT_EXPECT_EQ(test, kfi_close(&m1->fid), 0);
		xf_teardown(test, &f);
	}
}

/*
 * Buffers of more pieces than a work request holds (4 SGEs) go through a
 * fast registration of their own, on rxe and on siw (where every RDMA
 * READ sink does, registered with remote write access as iWARP wants): a
 * vmalloc'ed buffer over 17 pages sent into one receive, written into a
 * region and read back into another vmalloc'ed buffer, data compared; 8
 * whole pages as bio_vecs sent; 40 reads in turn (more than the queue
 * pair's 32 registrations: each reused, invalidated first on rxe);
 * receives into vmalloc'ed buffers over 5 and 17 pages (registered before
 * their receive is posted), in order with a plain one between them, and
 * one posted before the connection (registered once it is up); 5 pieces
 * that do not meet on page boundaries, sent or received: -EINVAL,
 * nothing posted.
 */
static void verbs_rma_long_buffers(struct kunit *test)
{
	const char *node[] = { rxe_node, siw_node };
	size_t len = 16 * PAGE_SIZE + 1000;
	u8 *vsrc, *vdst, *rx, *reg, *pg;
	struct bio_vec bv[8];
	struct kvec gap[5];
	struct xf_fixture f;
	struct kfi_cq_tagged_entry e;
	struct kfid_mr *m;
	u64 key;
	int i, k;

	vsrc = fix_vzalloc(test, 18 * PAGE_SIZE);
	vdst = fix_vzalloc(test, 18 * PAGE_SIZE);
	rx = vx_pages(test, 32 * PAGE_SIZE);
	reg = vx_pages(test, 32 * PAGE_SIZE);
	pg = vx_pages(test, 8 * PAGE_SIZE);
	for (k = 0; k < 8; k++)
		bvec_set_page(&bv[k], virt_to_page(pg + k * PAGE_SIZE),
			      PAGE_SIZE, 0);
	for (i = 0; i < 2; i++) {
		vx_open(test, &f, node[i], 0, false);
		/* a receive to register, posted before the connection */
		memset(vdst, 0, 18 * PAGE_SIZE);
		KUNIT_ASSERT_EQ(test, kfi_recv(f.c.cep, vdst + 7, len, NULL, 0,
					       vdst), 0);
		xf_connect(test, &f);
		vx_fill(vsrc + 100, len, 11 + i);
		KUNIT_ASSERT_EQ(test, kfi_send(f.c.sep, vsrc + 100, len, NULL,
					       0, NULL), 0);
		vx_expect_recv(test, f.crx, vdst, vdst + 7, len, 0);
		KUNIT_EXPECT_EQ(test, memcmp(vdst + 7, vsrc + 100, len), 0);
		KUNIT_ASSERT_EQ(test, xf_wait(f.stx, &e), 1);
		/* registered, plain, registered: in order */
		memset(vdst, 0, 18 * PAGE_SIZE);
		memset(rx, 0, 64);
		KUNIT_ASSERT_EQ(test, kfi_recv(f.c.cep, vdst + 100,
					       5 * PAGE_SIZE, NULL, 0, vdst), 0);
		KUNIT_ASSERT_EQ(test, kfi_recv(f.c.cep, rx, 64, NULL, 0, rx),
				0);
		KUNIT_ASSERT_EQ(test, kfi_recv(f.c.cep, vdst + 6 * PAGE_SIZE,
					       len - 6 * PAGE_SIZE, NULL, 0,
					       vsrc), 0);
		/*
		 * iWARP has no receiver-not-ready retry: a registered receive
		 * is on the receive queue only once its registration has
		 * completed (kfi_verbs.md, "Long receives"); give it that time
		 * before the peer sends (on rxe the sender would retry).
		 */
		if (i == 1)
			msleep(50);
		for (k = 0; k < 3; k++) {
			size_t l = k == 1 ? 64 : k ? len - 6 * PAGE_SIZE :
				   5 * PAGE_SIZE;

			KUNIT_ASSERT_EQ(test, kfi_send(f.c.sep, vsrc + 100 + k,
						       l, NULL, 0, NULL), 0);
			KUNIT_ASSERT_EQ(test, xf_wait(f.stx, &e), 1);
		}
		vx_expect_recv(test, f.crx, vdst, vdst + 100, 5 * PAGE_SIZE,
			       0);
		KUNIT_EXPECT_EQ(test, memcmp(vdst + 100, vsrc + 100,
					     5 * PAGE_SIZE), 0);
		vx_expect_recv(test, f.crx, rx, rx, 64, 0);
		KUNIT_EXPECT_EQ(test, memcmp(rx, vsrc + 101, 64), 0);
		vx_expect_recv(test, f.crx, vsrc, vdst + 6 * PAGE_SIZE,
			       len - 6 * PAGE_SIZE, 0);
		KUNIT_EXPECT_EQ(test, memcmp(vdst + 6 * PAGE_SIZE, vsrc + 102,
					     len - 6 * PAGE_SIZE), 0);
		vx_fill(vsrc + 100, len, 21 + i);
		memset(rx, 0, len);
		KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, rx, len, NULL, 0, rx),
				0);
		KUNIT_ASSERT_EQ(test, kfi_send(f.c.cep, vsrc + 100, len, NULL,
					       0, vsrc), 0);
		vx_expect_send(test, f.ctx, vsrc);
		vx_expect_recv(test, f.srx, rx, rx, len, 0);
		KUNIT_EXPECT_EQ(test, memcmp(rx, vsrc + 100, len), 0);
		/* 8 bio_vecs of a page each */
		vx_fill(pg, 8 * PAGE_SIZE, 31 + i);
		KUNIT_ASSERT_EQ(test, kfi_recv(f.c.sep, rx, 8 * PAGE_SIZE,
					       NULL, 0, rx), 0);
		KUNIT_ASSERT_EQ(test, kfi_sendbv(f.c.cep, bv, NULL, 8, 0, bv),
				0);
		vx_expect_send(test, f.ctx, bv);
		vx_expect_recv(test, f.srx, rx, rx, 8 * PAGE_SIZE, 0);
		KUNIT_EXPECT_EQ(test, memcmp(rx, pg, 8 * PAGE_SIZE), 0);
		/* write from and read into vmalloc'ed memory */
		memset(reg, 0, len);
		KUNIT_ASSERT_EQ(test, kfi_mr_reg(f.c.d.dom, reg, len,
						 KFI_REMOTE_WRITE |
						 KFI_REMOTE_READ, 0, 0, 0, &m,
						 NULL), 0);
		key = kfi_mr_key(m);
		KUNIT_ASSERT_EQ(test, kfi_write(f.c.cep, vsrc + 100, len, NULL,
						0, 0, key, vsrc), 0);
		vx_expect_rma(test, f.ctx, vsrc, KFI_WRITE);
		KUNIT_EXPECT_EQ(test, memcmp(reg, vsrc + 100, len), 0);
		memset(vdst, 0, 18 * PAGE_SIZE);
		KUNIT_ASSERT_EQ(test, kfi_read(f.c.cep, vdst + 3000, len, NULL,
					       0, 0, key, vdst), 0);
		vx_expect_rma(test, f.ctx, vdst, KFI_READ);
		KUNIT_EXPECT_EQ(test, memcmp(vdst + 3000, reg, len), 0);
		KUNIT_EXPECT_EQ(test, vdst[2999], (u8)0);
		KUNIT_EXPECT_EQ(test, vdst[3000 + len], (u8)0);
		/* more reads than the pool has registrations, in turn */
		for (k = 0; k < 40; k++) {
			reg[k] = k + 1;
			KUNIT_ASSERT_EQ(test, kfi_read(f.c.cep, vdst + 3000,
						       5 * PAGE_SIZE, NULL, 0,
						       0, key, NULL), 0);
			vx_expect_rma(test, f.ctx, NULL, KFI_READ);
			KUNIT_EXPECT_EQ(test, vdst[3000 + k], (u8)(k + 1));
		}
		/* refused */
		for (k = 0; k < 5; k++)
			gap[k] = (struct kvec){ rx + k * 200, 100 };
		KUNIT_EXPECT_EQ(test, kfi_sendv(f.c.cep, gap, NULL, 5, 0,
						NULL), -EINVAL);
		KUNIT_EXPECT_EQ(test, kfi_recvv(f.c.sep, gap, NULL, 5, 0,
						NULL), -EINVAL);
		xf_expect_none(test, f.ctx);
		xf_expect_none(test, f.srx);
		KUNIT_EXPECT_EQ(test, kfi_close(&m->fid), 0);
		xf_teardown(test, &f);
	}
}

/*
 * A read the target's device refuses, on rxe and on siw: with a key no
 * region has (the right index, the wrong key byte), beyond the region's
 * end, from a region without remote read access, and with the key of a
 * region closed before (its key invalidated). The read fails with an
 * error entry (rxe: EACCES, the responder's access error; siw ends the
 * connection, which flushes it), not a byte lands, and the connection
 * ends: KFI_SHUTDOWN at the initiator. (siw does not enforce the missing
 * read right: that case runs on rxe only.)
 */
static void verbs_rma_bad_access(struct kunit *test)
{
	const char *node[] = { rxe_node, siw_node };
	struct kfi_cq_err_entry err;
	struct kfi_cq_tagged_entry e;
	struct kfid_mr *rw, *wo, *gone;
	struct xf_fixture f;
	struct cm_event ev;
	u8 *mem, dst[16];
	u64 key, addr;
	ssize_t len, rd;
	int i, c;

	mem = kunit_kzalloc(test, 512, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mem);
	for (i = 0; i < 2; i++) {
		for (c = 0; c < 4; c++) {
			/*
			 * siw checks no access right of the memory a read
			 * response is sent from (its transmit path checks
			 * none): the region's rights reach the device and are
			 * enforced by rxe.
			 */
			if (i == 1 && c == 2)
				continue;
			vx_open(test, &f, node[i], 0, true);
			KUNIT_ASSERT_EQ(test, kfi_mr_reg(f.c.d.dom, mem, 128,
							 KFI_REMOTE_READ |
							 KFI_REMOTE_WRITE, 0,
							 0, 0, &rw, NULL), 0);
			KUNIT_ASSERT_EQ(test, kfi_mr_reg(f.c.d.dom, mem + 128,
							 128, KFI_REMOTE_WRITE,
							 0, 0, 0, &wo, NULL),
					0);
			KUNIT_ASSERT_EQ(test, kfi_mr_reg(f.c.d.dom, mem + 256,
							 128, KFI_REMOTE_READ,
							 0, 0, 0, &gone, NULL),
					0);
			addr = 0;
			switch (c) {
			case 0:	/* another key byte */
				key = kfi_mr_key(rw);
				key = (key & ~0xffULL) | ((key + 0x55) & 0xff);
				break;
			case 1:	/* crosses the end */
				key = kfi_mr_key(rw);
				addr = 120;
				break;
			case 2:	/* no remote read */
				key = kfi_mr_key(wo);
				break;
			default: /* closed */
				key = kfi_mr_key(gone);
				break;
			}
			KUNIT_EXPECT_EQ(test, kfi_close(&gone->fid), 0);
			memset(dst, 0x5a, sizeof(dst));
			KUNIT_ASSERT_EQ(test, kfi_read(f.c.cep, dst, 16, NULL,
						       0, addr, key, dst), 0);
			memset(&err, 0, sizeof(err));
			rd = xf_wait(f.ctx, &e);
			if (rd == -KFI_EAVAIL)
				KUNIT_EXPECT_EQ(test, kfi_cq_readerr(f.ctx, &err,
								     0), 1);
			KUNIT_EXPECT_EQ_MSG(test, rd, (ssize_t)-KFI_EAVAIL,
					    "device %d case %d key %#llx", i,
					    c, key);
			KUNIT_EXPECT_PTR_EQ(test, err.op_context, (void *)dst);
			if (i == 0)
				KUNIT_EXPECT_EQ_MSG(test, err.err, EACCES,
						    "case %d", c);
			else
				KUNIT_EXPECT_NE_MSG(test, err.err, 0,
						    "case %d", c);
			KUNIT_EXPECT_EQ(test, dst[0], (u8)0x5a);
			KUNIT_EXPECT_EQ(test, dst[15], (u8)0x5a);
			KUNIT_EXPECT_EQ(test, cm_wait(test, f.c.ceq, &ev, &len),
					KFI_SHUTDOWN);
			KUNIT_EXPECT_EQ(test, kfi_close(&wo->fid), 0);
			KUNIT_EXPECT_EQ(test, kfi_close(&rw->fid), 0);
			xf_teardown(test, &f);
		}
	}
}

/*
 * Keys and registration rules, on rxe and on siw. A region registered
 * again after its close gets another key (the device's key byte
 * advanced), and the new key works; regions for local use only get key
 * 0. Refused with -EINVAL, registering nothing: no access bits, an empty
 * region, pieces that do not meet on page boundaries (one fast
 * registration maps whole pages), more pages than one registration
 * holds. With an EQ bound to the domain with KFI_REG_MR, a registration
 * reports KFI_MR_COMPLETE with the region's fid and context.
 */
static void verbs_rma_keys_and_rules(struct kunit *test)
{
	const char *node[] = { rxe_node, siw_node };
	struct kfi_eq_attr eattr = { .size = 8, .wait_obj = KFI_WAIT_NONE };
	struct kfi_eq_entry ent;
	struct kfid_mr *m, *m2;
	struct kfid_eq *eq;
	struct xf_fixture f;
	struct vdom v;
	struct kvec gap[2];
	uint32_t event;
	u8 *mem, *big;
	u64 k1, k2;
	int i, tries;

	mem = vx_pages(test, 2 * PAGE_SIZE);
	big = fix_vzalloc(test, (KFI_VERBS_TEST_MR_PAGES + 1) * PAGE_SIZE);
	for (i = 0; i < 2; i++) {
		vx_open(test, &f, node[i], 0, true);
		KUNIT_ASSERT_EQ(test, kfi_mr_reg(f.c.d.dom, mem, 64,
						 KFI_REMOTE_WRITE, 0, 0, 0, &m,
						 NULL), 0);
		k1 = kfi_mr_key(m);
		KUNIT_EXPECT_EQ(test, kfi_close(&m->fid), 0);
		KUNIT_ASSERT_EQ(test, kfi_mr_reg(f.c.d.dom, mem, 64,
						 KFI_REMOTE_WRITE, 0, 0, 0, &m,
						 NULL), 0);
		k2 = kfi_mr_key(m);
		KUNIT_EXPECT_NE(test, (u32)k1, (u32)k2);
		KUNIT_ASSERT_EQ(test, kfi_write(f.c.cep, "new key", 8, NULL, 0,
						0, k2, NULL), 0);
		vx_expect_rma(test, f.ctx, NULL, KFI_WRITE);
		KUNIT_EXPECT_STREQ(test, (char *)mem, "new key");
		/* local use only */
		KUNIT_ASSERT_EQ(test, kfi_mr_reg(f.c.d.dom, mem + 64, 64,
						 KFI_READ | KFI_WRITE |
						 KFI_SEND | KFI_RECV, 0, 0, 0,
						 &m2, NULL), 0);
		KUNIT_EXPECT_EQ(test, kfi_mr_key(m2), 0ULL);
		KUNIT_EXPECT_EQ(test, kfi_close(&m2->fid), 0);
		/* refused */
		m2 = NULL;
		KUNIT_EXPECT_EQ(test, kfi_mr_reg(f.c.d.dom, mem, 64, 0, 0, 0,
						 0, &m2, NULL), -EINVAL);
		KUNIT_EXPECT_EQ(test, kfi_mr_reg(f.c.d.dom, mem, 0,
						 KFI_REMOTE_READ, 0, 0, 0, &m2,
						 NULL), -EINVAL);
		gap[0] = (struct kvec){ mem, 100 };
		gap[1] = (struct kvec){ mem + 200, 100 };
		KUNIT_EXPECT_EQ(test, kfi_mr_regv(f.c.d.dom, gap, 2,
						  KFI_REMOTE_READ, 0, 0, 0,
						  &m2, NULL), -EINVAL);
		/* pieces meeting on a page boundary are one registration */
		gap[0] = (struct kvec){ mem + 100, PAGE_SIZE - 100 };
		gap[1] = (struct kvec){ mem + PAGE_SIZE, 100 };
		KUNIT_EXPECT_EQ(test, kfi_mr_regv(f.c.d.dom, gap, 2,
						  KFI_REMOTE_READ, 0, 0, 0,
						  &m2, NULL), 0);
		if (m2)
			KUNIT_EXPECT_EQ(test, kfi_close(&m2->fid), 0);
		m2 = NULL;
		KUNIT_EXPECT_EQ(test, kfi_mr_reg(f.c.d.dom, big,
						 (KFI_VERBS_TEST_MR_PAGES + 1) *
						 PAGE_SIZE, KFI_REMOTE_READ, 0,
						 0, 0, &m2, NULL), -EINVAL);
		KUNIT_EXPECT_NULL(test, m2);
		KUNIT_EXPECT_EQ(test, kfi_mr_reg(f.c.d.dom, big,
						 KFI_VERBS_TEST_MR_PAGES *
						 PAGE_SIZE, KFI_REMOTE_READ, 0,
						 0, 0, &m2, NULL), 0);
		if (m2)
			KUNIT_EXPECT_EQ(test, kfi_close(&m2->fid), 0);
		KUNIT_EXPECT_EQ(test, kfi_close(&m->fid), 0);
		xf_teardown(test, &f);
		/* asynchronous registration (on a domain of its own) */
		vdom_open(test, &v, i ? siw_dev : rxe_dev, node[i]);
		KUNIT_ASSERT_EQ(test, kfi_eq_open(v.fab, &eattr, &eq, NULL,
						  NULL), 0);
		KUNIT_ASSERT_EQ(test, kfi_domain_bind(v.dom, &eq->fid,
						      KFI_REG_MR), 0);
		KUNIT_ASSERT_EQ(test, kfi_mr_reg(v.dom, mem, 64,
						 KFI_REMOTE_READ, 0, 0, 0, &m2,
						 mem), 0);
		for (tries = 0; tries < 100; tries++) {
			if (kfi_eq_read(eq, &event, &ent, sizeof(ent), 0) ==
			    sizeof(ent))
				break;
			msleep(10);
		}
		KUNIT_EXPECT_LT(test, tries, 100);
		KUNIT_EXPECT_EQ(test, event, (uint32_t)KFI_MR_COMPLETE);
		KUNIT_EXPECT_PTR_EQ(test, ent.fid, &m2->fid);
		KUNIT_EXPECT_PTR_EQ(test, ent.context, (void *)mem);
		KUNIT_EXPECT_EQ(test, kfi_close(&m2->fid), 0);
		/* the EQ stays bound until the domain closes */
		KUNIT_EXPECT_EQ(test, kfi_close(&eq->fid), -EBUSY);
		KUNIT_EXPECT_EQ(test, kfi_close(&v.dom->fid), 0);
		KUNIT_EXPECT_EQ(test, kfi_close(&eq->fid), 0);
		KUNIT_EXPECT_EQ(test, kfi_close(&v.fab->fid), 0);
		kfi_freeinfo(v.list);
		kfi_freeinfo(v.hints);
	}
}

/*
 * A device removed while regions are registered on it, on rxe and on
 * siw: the regions close afterwards (nothing left to invalidate), as
 * does the domain; after the device is added back, registration works
 * again (a new registration channel).
 */
static void verbs_rma_remove_with_regions(struct kunit *test)
{
	struct kfid_mr *m[2];
	struct vdom v;
	u8 *mem;
	int i;

	mem = kunit_kzalloc(test, 256, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mem);
	for (i = 0; i < 2; i++) {
		vdom_open(test, &v, vx_dev(i), vx_node(i));
		KUNIT_ASSERT_EQ(test, kfi_mr_reg(v.dom, mem, 128,
						 KFI_REMOTE_READ, 0, 0, 0,
						 &m[0], NULL), 0);
		KUNIT_ASSERT_EQ(test, kfi_mr_reg(v.dom, mem + 128, 128,
						 KFI_REMOTE_WRITE, 0, 0, 0,
						 &m[1], NULL), 0);
		vx_dev_delete(test, i);
		KUNIT_EXPECT_EQ(test, kfi_mr_reg(v.dom, mem, 128,
						 KFI_REMOTE_READ, 0, 0, 0,
						 &m[0], NULL), -ENODEV);
		KUNIT_EXPECT_EQ(test, kfi_close(&m[1]->fid), 0);
		KUNIT_EXPECT_EQ(test, kfi_close(&m[0]->fid), 0);
		vdom_close(test, &v);
		vx_dev_add(test, i);
		vdom_open(test, &v, vx_dev(i), vx_node(i));
		KUNIT_EXPECT_EQ(test, kfi_mr_reg(v.dom, mem, 128,
						 KFI_REMOTE_READ, 0, 0, 0,
						 &m[0], NULL), 0);
		KUNIT_EXPECT_EQ(test, kfi_close(&m[0]->fid), 0);
		vdom_close(test, &v);
	}
}

/*
 * A device removed while RMA is in flight, on rxe and on siw: reads into
 * a vmalloc'ed buffer (each through a fast registration of the queue
 * pair's pool) and writes are posted, the device is deleted at once;
 * every operation completes, with its bytes or flushed (-KFI_ECANCELED),
 * both sides report KFI_SHUTDOWN, the region and everything else close
 * (the queue pair's registrations all came back to its pool), and the
 * device is added back.
 */
static void verbs_rma_remove_during_traffic(struct kunit *test)
{
	struct kfi_cq_tagged_entry e;
	struct kfi_cq_err_entry err;
	struct xf_fixture f;
	struct cm_event ev;
	struct kfid_mr *m;
	u8 *reg, *vdst;
	ssize_t len, rd;
	int i, k, ok, flushed;
	u64 key;

	reg = vx_pages(test, 8 * PAGE_SIZE);
	vdst = fix_vzalloc(test, 8 * 6 * PAGE_SIZE);
	for (i = 0; i < 2; i++) {
		vx_open(test, &f, vx_node(i), 0, true);
		KUNIT_ASSERT_EQ(test, kfi_mr_reg(f.c.d.dom, reg, 8 * PAGE_SIZE,
						 KFI_REMOTE_READ |
						 KFI_REMOTE_WRITE, 0, 0, 0, &m,
						 NULL), 0);
		key = kfi_mr_key(m);
		for (k = 0; k < 8; k++) {
			KUNIT_ASSERT_EQ(test, kfi_read(f.c.cep,
						       vdst + k * 6 * PAGE_SIZE,
						       5 * PAGE_SIZE, NULL, 0,
						       0, key, NULL), 0);
			KUNIT_ASSERT_EQ(test, kfi_write(f.c.cep, reg, 64, NULL,
							0, 4096, key, NULL), 0);
		}
		vx_dev_delete(test, i);
		ok = 0;
		flushed = 0;
		for (k = 0; k < 16; k++) {
			rd = xf_wait(f.ctx, &e);
			if (rd == 1) {
				ok++;
				continue;
			}
			KUNIT_ASSERT_EQ(test, rd, (ssize_t)-KFI_EAVAIL);
			KUNIT_ASSERT_EQ(test, kfi_cq_readerr(f.ctx, &err, 0), 1);
			KUNIT_EXPECT_EQ(test, err.err, KFI_ECANCELED);
			flushed++;
		}
		KUNIT_EXPECT_EQ(test, ok + flushed, 16);
		KUNIT_EXPECT_EQ(test, cm_wait(test, f.c.ceq, &ev, &len),
				KFI_SHUTDOWN);
		KUNIT_EXPECT_EQ(test, cm_wait(test, f.c.peq, &ev, &len),
				KFI_SHUTDOWN);
		xf_expect_none(test, f.ctx);
		KUNIT_EXPECT_EQ(test, kfi_close(&m->fid), 0);
		xf_teardown(test, &f);
		vx_dev_add(test, i);
	}
}

/*
 * Triggered and deferred atomics on @f (rxe; @word[0] is 7, @key its
 * region's): a fetch-add queued with KFI_TRIGGER fires when its counter
 * reaches 1 (+1000, fetching 7), a deferred compare-swap when it reaches
 * 2 (1007 -> 42, fetching 1007); deferred work no hardware does
 * (KFI_CSWAP_GT) is refused when queued (-KFI_ENOSYS).
 */
static noinline void verbs_atomics_triggered(struct kunit *test,
					     struct xf_fixture *f,
					     u64 *word, u64 key)
{
	struct kfid_cntr *t;
	struct kfi_triggered_context tc = {
		.event_type = KFI_TRIGGER_THRESHOLD,
	};
	u64 tv = 1000, tres = 0, cv = 1007, sv = 42, dres = 0;
	struct kfi_ioc ioc = { &tv, 1 }, rres = { &tres, 1 };
	struct kfi_ioc sioc = { &sv, 1 }, cioc = { &cv, 1 }, dioc = { &dres, 1 };
	struct kfi_rma_ioc rioc = { .addr = 0, .count = 1, .key = key };
	struct kfi_msg_atomic am = { .msg_iov = &ioc, .iov_count = 1,
				     .rma_iov = &rioc, .rma_iov_count = 1,
				     .datatype = KFI_UINT64, .op = KFI_SUM,
				     .context = &tc };
	struct kfi_op_compare_atomic cop = {
		.ep = f->c.cep,
		.msg = { .msg_iov = &sioc, .iov_count = 1, .rma_iov = &rioc,
			 .rma_iov_count = 1, .datatype = KFI_UINT64,
			 .op = KFI_CSWAP, .context = &dres },
		.fetch = { .msg_iov = &dioc, .iov_count = 1 },
		.compare = { .msg_iov = &cioc, .iov_count = 1 },
		.flags = KFI_COMPLETION,
	};
	struct kfi_deferred_work dw = { .threshold = 2,
					.op_type = KFI_OP_COMPARE_ATOMIC,
					.op.compare_atomic = &cop };
	struct kfi_op_compare_atomic bad = cop;
	struct kfi_deferred_work bw;

	KUNIT_ASSERT_EQ(test, kfi_cntr_open(f->c.d.dom, NULL, &t, NULL), 0);
	tc.trigger.threshold.cntr = t;
	tc.trigger.threshold.threshold = 1;
	dw.triggering_cntr = t;
	KUNIT_ASSERT_EQ(test, kfi_fetch_atomicmsg(f->c.cep, &am, &rres, NULL, 1,
						  KFI_TRIGGER), 0);
	KUNIT_ASSERT_EQ(test, kfi_control(&f->c.d.dom->fid, KFI_QUEUE_WORK,
					  &dw), 0);
	bad.msg.op = KFI_CSWAP_GT;
	bw = dw;
	bw.threshold = 100;
	bw.op.compare_atomic = &bad;
	KUNIT_EXPECT_EQ(test, kfi_control(&f->c.d.dom->fid, KFI_QUEUE_WORK,
					  &bw), -KFI_ENOSYS);
	msleep(20);
	KUNIT_EXPECT_EQ(test, word[0], 7ULL);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(t, 1), 0);
	vx_expect_tx(test, f->ctx, &tc, KFI_ATOMIC | KFI_READ);
	KUNIT_EXPECT_EQ(test, tres, 7ULL);
	KUNIT_EXPECT_EQ(test, word[0], 1007ULL);
	KUNIT_ASSERT_EQ(test, kfi_cntr_add(t, 1), 0);
	vx_expect_tx(test, f->ctx, &dres, KFI_ATOMIC | KFI_READ);
	KUNIT_EXPECT_EQ(test, dres, 1007ULL);
	KUNIT_EXPECT_EQ(test, word[0], 42ULL);
	KUNIT_EXPECT_EQ(test, kfi_close(&t->fid), 0);
}

/*
 * Atomics (64-bit, one element), on rxe: kfi_atomic KFI_SUM, kfi_fetch_atomic
 * KFI_SUM and KFI_ATOMIC_READ, kfi_compare_atomic KFI_CSWAP that swaps and
 * one that does not, kfi_inject_atomic (its operand reusable at once), each
 * with its entry (KFI_ATOMIC with KFI_WRITE or KFI_READ), results and the
 * target words compared; the valid queries give count 1 for these and
 * -KFI_ENOSYS for another datatype or operation; refused: two elements or
 * another operation (-KFI_ENOSYS), an unaligned address, a fetch without
 * a result buffer or a sum without its operand (-EINVAL), nothing posted; triggered and deferred
 * atomics (verbs_atomics_triggered); kfi_query_atomic: count 1, size 8
 * for a 64-bit sum, -EOPNOTSUPP for floats, -KFI_EBADFLAGS for flags.
 * siw has no atomics: every call and valid query is -KFI_ENOSYS, and
 * kfi_query_atomic -EOPNOTSUPP.
 */
static void verbs_rma_atomics(struct kunit *test)
{
	struct xf_fixture f;
	struct kfid_mr *m;
	u64 *word, res, cmp, v, two[2] = { 1, 2 };
	struct kfi_atomic_attr attr;
	size_t count;
	u64 key;
	int i;

	word = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, word);
	for (i = 0; i < 2; i++) {
		vx_open(test, &f, i ? siw_node : rxe_node, 0, true);
		word[0] = 100;
		word[1] = 0;
		KUNIT_ASSERT_EQ(test, kfi_mr_reg(f.c.d.dom, word, 64,
						 KFI_REMOTE_READ |
						 KFI_REMOTE_WRITE, 0, 0, 0, &m,
						 NULL), 0);
		key = kfi_mr_key(m);
		v = 5;
		attr = (struct kfi_atomic_attr){};
		KUNIT_EXPECT_EQ(test, kfi_query_atomic(f.c.d.dom, KFI_UINT64,
						       KFI_SUM, &attr, 0),
				i ? -EOPNOTSUPP : 0);
		KUNIT_EXPECT_EQ(test, attr.count, (size_t)(i ? 0 : 1));
		KUNIT_EXPECT_EQ(test, attr.size, (size_t)(i ? 0 : 8));
		KUNIT_EXPECT_EQ(test, kfi_query_atomic(f.c.d.dom, KFI_FLOAT,
						       KFI_SUM, &attr, 0),
				-EOPNOTSUPP);
		KUNIT_EXPECT_EQ(test, kfi_query_atomic(f.c.d.dom, KFI_UINT64,
						       KFI_SUM, &attr, 1),
				-KFI_EBADFLAGS);
		if (i == 1) {
			KUNIT_EXPECT_EQ(test, kfi_atomic(f.c.cep, &v, 1, NULL,
							 0, 0, key, KFI_UINT64,
							 KFI_SUM, NULL),
					-KFI_ENOSYS);
			KUNIT_EXPECT_EQ(test, kfi_atomicvalid(f.c.cep,
							      KFI_UINT64,
							      KFI_SUM, &count),
					-KFI_ENOSYS);
			KUNIT_EXPECT_EQ(test, word[0], 100ULL);
			goto next;
		}
		KUNIT_EXPECT_EQ(test, kfi_atomicvalid(f.c.cep, KFI_UINT64,
						      KFI_SUM, &count), 0);
		KUNIT_EXPECT_EQ(test, count, (size_t)1);
		KUNIT_EXPECT_EQ(test, kfi_fetch_atomicvalid(f.c.cep, KFI_INT64,
							    KFI_ATOMIC_READ,
							    &count), 0);
		KUNIT_EXPECT_EQ(test, kfi_compare_atomicvalid(f.c.cep,
							      KFI_UINT64,
							      KFI_CSWAP,
							      &count), 0);
		KUNIT_EXPECT_EQ(test, kfi_atomicvalid(f.c.cep, KFI_UINT32,
						      KFI_SUM, &count),
				-KFI_ENOSYS);
		KUNIT_EXPECT_EQ(test, kfi_atomicvalid(f.c.cep, KFI_UINT64,
						      KFI_PROD, &count),
				-KFI_ENOSYS);
		KUNIT_EXPECT_EQ(test, kfi_compare_atomicvalid(f.c.cep,
							      KFI_UINT64,
							      KFI_CSWAP_NE,
							      &count),
				-KFI_ENOSYS);
		/* 100 + 5 */
		KUNIT_ASSERT_EQ(test, kfi_atomic(f.c.cep, &v, 1, NULL, 0, 0,
						 key, KFI_UINT64, KFI_SUM,
						 word), 0);
		vx_expect_tx(test, f.ctx, word, KFI_ATOMIC | KFI_WRITE);
		/* 105 + 10, fetching 105 */
		v = 10;
		res = 0;
		KUNIT_ASSERT_EQ(test, kfi_fetch_atomic(f.c.cep, &v, 1, NULL,
						       &res, NULL, 0, 0, key,
						       KFI_UINT64, KFI_SUM,
						       &res), 0);
		vx_expect_tx(test, f.ctx, &res, KFI_ATOMIC | KFI_READ);
		KUNIT_EXPECT_EQ(test, res, 105ULL);
		/* read: 115 */
		res = 0;
		KUNIT_ASSERT_EQ(test, kfi_fetch_atomic(f.c.cep, NULL, 1, NULL,
						       &res, NULL, 0, 0, key,
						       KFI_UINT64,
						       KFI_ATOMIC_READ, &res),
				0);
		vx_expect_tx(test, f.ctx, &res, KFI_ATOMIC | KFI_READ);
		KUNIT_EXPECT_EQ(test, res, 115ULL);
		/* 115 == 115: swapped for 7 */
		cmp = 115;
		v = 7;
		res = 0;
		KUNIT_ASSERT_EQ(test, kfi_compare_atomic(f.c.cep, &v, 1, NULL,
							 &cmp, NULL, &res,
							 NULL, 0, 0, key,
							 KFI_UINT64, KFI_CSWAP,
							 &cmp), 0);
		vx_expect_tx(test, f.ctx, &cmp, KFI_ATOMIC | KFI_READ);
		KUNIT_EXPECT_EQ(test, res, 115ULL);
		/* 7 != 1: nothing swapped */
		cmp = 1;
		v = 9;
		KUNIT_ASSERT_EQ(test, kfi_compare_atomic(f.c.cep, &v, 1, NULL,
							 &cmp, NULL, &res,
							 NULL, 0, 0, key,
							 KFI_UINT64, KFI_CSWAP,
							 &cmp), 0);
		vx_expect_tx(test, f.ctx, &cmp, KFI_ATOMIC | KFI_READ);
		KUNIT_EXPECT_EQ(test, res, 7ULL);
		/* inject: the second word + 3, its operand reused at once */
		v = 3;
		KUNIT_ASSERT_EQ(test, kfi_inject_atomic(f.c.cep, &v, 1, 0, 8,
							key, KFI_INT64,
							KFI_SUM), 0);
		v = 999;
		res = 0;
		KUNIT_ASSERT_EQ(test, kfi_fetch_atomic(f.c.cep, NULL, 1, NULL,
						       &res, NULL, 0, 8, key,
						       KFI_INT64,
						       KFI_ATOMIC_READ, &res),
				0);
		vx_expect_tx(test, f.ctx, &res, KFI_ATOMIC | KFI_READ);
		KUNIT_EXPECT_EQ(test, res, 3ULL);
		KUNIT_EXPECT_EQ(test, word[0], 7ULL);
		KUNIT_EXPECT_EQ(test, word[1], 3ULL);
		/* refused, nothing posted */
		KUNIT_EXPECT_EQ(test, kfi_atomic(f.c.cep, two, 2, NULL, 0, 0,
						 key, KFI_UINT64, KFI_SUM,
						 NULL), -KFI_ENOSYS);
		KUNIT_EXPECT_EQ(test, kfi_atomic(f.c.cep, &v, 1, NULL, 0, 0,
						 key, KFI_UINT64, KFI_MIN,
						 NULL), -KFI_ENOSYS);
		KUNIT_EXPECT_EQ(test, kfi_atomic(f.c.cep, &v, 1, NULL, 0, 4,
						 key, KFI_UINT64, KFI_SUM,
						 NULL), -EINVAL);
		KUNIT_EXPECT_EQ(test, kfi_fetch_atomic(f.c.cep, &v, 1, NULL,
						       NULL, NULL, 0, 0, key,
						       KFI_UINT64, KFI_SUM,
						       NULL), -EINVAL);
		/* a sum needs its operand (an atomic read does not) */
		KUNIT_EXPECT_EQ(test, kfi_fetch_atomic(f.c.cep, NULL, 1, NULL,
						       &res, NULL, 0, 0, key,
						       KFI_UINT64, KFI_SUM,
						       NULL), -EINVAL);
		KUNIT_EXPECT_EQ(test, word[0], 7ULL);
		verbs_atomics_triggered(test, &f, word, key);
next:
		xf_expect_none(test, f.ctx);
		KUNIT_EXPECT_EQ(test, kfi_close(&m->fid), 0);
		xf_teardown(test, &f);
	}
}

static struct kunit_case verbs_getinfo_cases[] = {
	KUNIT_CASE(verbs_getinfo_lists_devices),
	KUNIT_CASE(verbs_getinfo_by_node),
	KUNIT_CASE(verbs_getinfo_by_destination),
	KUNIT_CASE(verbs_getinfo_advertises_what_works),
	KUNIT_CASE(verbs_getinfo_reuses_open_domain),
	{}
};

static struct kunit_case verbs_domain_cases[] = {
	KUNIT_CASE(verbs_domain_objects),
	KUNIT_CASE(verbs_domain_bad_names),
	KUNIT_CASE(verbs_objects_stay_with_their_provider),
	KUNIT_CASE(verbs_hot_remove_and_add),
	{}
};

static struct kunit_case verbs_cm_cases[] = {
	KUNIT_CASE(verbs_cm_refused),
	KUNIT_CASE(verbs_cm_checks),
	KUNIT_CASE(verbs_cm_unreachable),
	KUNIT_CASE(verbs_cm_connect_accept),
	KUNIT_CASE(verbs_cm_reject),
	KUNIT_CASE(verbs_cm_wildcard_listen),
	KUNIT_CASE(verbs_cm_remove_connected),
	KUNIT_CASE(verbs_cm_remove_connecting),
	{}
};

static struct kunit_case verbs_msg_cases[] = {
	KUNIT_CASE(verbs_msg_buffer_kinds),
	KUNIT_CASE(verbs_msg_inject_and_data),
	KUNIT_CASE(verbs_msg_before_and_after),
	KUNIT_CASE(verbs_msg_receive_too_small),
	KUNIT_CASE(verbs_msg_remove_during_traffic),
	KUNIT_CASE(verbs_rdm_remove_during_traffic),
	KUNIT_CASE(verbs_msg_soft_mode),
	KUNIT_CASE(verbs_cq_busy_polling),
	{}
};

static struct kunit_case verbs_rma_cases[] = {
	KUNIT_CASE(verbs_rma_write_read),
	KUNIT_CASE(verbs_rma_long_buffers),
	KUNIT_CASE(verbs_rma_bad_access),
	KUNIT_CASE(verbs_rma_keys_and_rules),
	KUNIT_CASE(verbs_rma_remove_with_regions),
	KUNIT_CASE(verbs_rma_remove_during_traffic),
	KUNIT_CASE(verbs_rma_atomics),
	{}
};

static struct kunit_suite verbs_getinfo_suite = {
	.name = "kfi_verbs_getinfo",
	.init = verbs_init,
	.test_cases = verbs_getinfo_cases,
};

static struct kunit_suite verbs_domain_suite = {
	.name = "kfi_verbs_domain",
	.init = verbs_init,
	.test_cases = verbs_domain_cases,
};

static struct kunit_suite verbs_cm_suite = {
	.name = "kfi_verbs_cm",
	.init = verbs_init,
	.test_cases = verbs_cm_cases,
};

static struct kunit_suite verbs_msg_suite = {
	.name = "kfi_verbs_msg",
	.init = verbs_init,
	.test_cases = verbs_msg_cases,
};

static struct kunit_suite verbs_rma_suite = {
	.name = "kfi_verbs_rma",
	.init = verbs_init,
	.test_cases = verbs_rma_cases,
};

kunit_test_suites(&verbs_getinfo_suite, &verbs_domain_suite, &verbs_cm_suite,
		  &verbs_msg_suite, &verbs_rma_suite);

MODULE_DESCRIPTION("KUnit suites of the kfabric verbs provider");
MODULE_LICENSE("GPL");
