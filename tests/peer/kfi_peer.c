// SPDX-License-Identifier: GPL-2.0
/*
 * kfi_peer: a kernel consumer that holds one connected kfabric MSG
 * endpoint for as long as it is loaded: the "peer module" of the
 * peer-death tests (tests/faults/net.sh).
 *
 * At load (in insmod's context, so in insmod's network namespace) it
 * opens a fabric, domain, EQ, CQ and endpoint of the tcp provider,
 * pre-posts `recvs` receives, connects to addr:port and waits for
 * KFI_CONNECTED; any failure fails the load (an error event, such as a
 * refused connection, with the event's error: -ECONNREFUSED). While
 * loaded it holds all of that (which pins kfabric.ko by linkage and,
 * through the open fabric, kfi_tcp.ko). Unloading closes everything in
 * order, which ends the connection: the other side must see KFI_SHUTDOWN
 * and error completions for what it had posted.
 *
 * addr and port are handed to kfi_getinfo() as the peer's node and
 * service, and the first entry's dest_addr is connected to, so addr is
 * any numeric address the provider takes: IPv4 ("10.99.0.2") or IPv6
 * ("fd00::2", "::1"), a link-local IPv6 one with its zone, an interface
 * name or index of the namespace ("fe80::2%kfa", "fe80::2%3"; without a
 * zone its scope id is 0 and kfi_connect() fails with -EINVAL). The
 * entry's family is the address's: its src_addr and dest_addr are a
 * struct sockaddr_in or a struct sockaddr_in6, nothing here reads them.
 * A malformed address fails the load with -EINVAL, one no interface
 * reaches (or a zone naming none) with -ENODATA, from kfi_getinfo().
 *
 * Parameters: addr (IPv4 or IPv6 address, IPv6 with an optional %zone,
 * required), port (required), recvs (receives to pre-post, 4),
 * recv_size (bytes each, 64).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/kernel.h>
#include <kfabric.h>
#include <kfi_errno.h>
#include <kfi_endpoint.h>
#include <kfi_domain.h>
#include <kfi_cm.h>
#include <kfi_eq.h>

static char *addr;
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "address of the passive endpoint to connect to: IPv4, or IPv6 with an optional %zone (fe80::2%eth0)");
static char *port;
module_param(port, charp, 0444);
MODULE_PARM_DESC(port, "its TCP port");
static unsigned int recvs = 4;
module_param(recvs, uint, 0444);
MODULE_PARM_DESC(recvs, "receives pre-posted before connecting (4)");
static unsigned int recv_size = 64;
module_param(recv_size, uint, 0444);
MODULE_PARM_DESC(recv_size, "bytes of each receive (64)");

#define PEER_MAX_RECVS 64

/* Everything the module holds while loaded; torn down in reverse order. */
static struct {
	struct kfi_info *info;
	struct kfid_fabric *fabric;
	struct kfid_domain *domain;
	struct kfid_eq *eq;
	struct kfid_cq *cq;
	struct kfid_ep *ep;
	void *buf;
} peer;

static void peer_close(void)
{
	if (peer.ep)
		kfi_close(&peer.ep->fid);
	if (peer.cq)
		kfi_close(&peer.cq->fid);
	if (peer.eq)
		kfi_close(&peer.eq->fid);
	if (peer.domain)
		kfi_close(&peer.domain->fid);
	if (peer.fabric)
		kfi_close(&peer.fabric->fid);
	kfi_freeinfo(peer.info);
	kfree(peer.buf);
	memset(&peer, 0, sizeof(peer));
}

static int peer_open(void)
{
	struct kfi_eq_attr eq_attr = { .size = 16 };
	struct kfi_cq_attr cq_attr = { .size = 2 * PEER_MAX_RECVS,
				       .format = KFI_CQ_FORMAT_CONTEXT };
	struct kfi_eq_cm_entry ev;
	struct kfi_eq_err_entry err = {};
	struct kfi_info *hints;
	uint32_t event;
	unsigned int i;
	ssize_t n;
	int ret;

	hints = kfi_allocinfo();
	if (!hints)
		return -ENOMEM;
	hints->ep_attr->type = KFI_EP_MSG;
	hints->caps = KFI_MSG;
	hints->fabric_attr->prov_name = kstrdup("tcp", GFP_KERNEL);
	ret = kfi_getinfo(0, addr, port, 0, hints, &peer.info);
	kfi_freeinfo(hints);
	if (ret)
		return ret;
	ret = kfi_fabric(peer.info->fabric_attr, &peer.fabric, NULL);
	if (ret)
		return ret;
	ret = kfi_domain(peer.fabric, peer.info, &peer.domain, NULL);
	if (ret)
		return ret;
	ret = kfi_eq_open(peer.fabric, &eq_attr, &peer.eq, NULL, NULL);
	if (ret)
		return ret;
	ret = kfi_cq_open(peer.domain, &cq_attr, &peer.cq, NULL, NULL);
	if (ret)
		return ret;
	ret = kfi_endpoint(peer.domain, peer.info, &peer.ep, NULL);
	if (ret)
		return ret;
	ret = kfi_ep_bind(peer.ep, &peer.eq->fid, 0);
	if (!ret)
		ret = kfi_ep_bind(peer.ep, &peer.cq->fid,
				  KFI_TRANSMIT | KFI_RECV);
	if (!ret)
		ret = kfi_enable(peer.ep);
	if (ret)
		return ret;
	peer.buf = kzalloc((size_t)recvs * recv_size + 1, GFP_KERNEL);
	if (!peer.buf)
		return -ENOMEM;
	for (i = 0; i < recvs; i++) {
		n = kfi_recv(peer.ep, peer.buf + (size_t)i * recv_size,
			     recv_size, NULL, 0, NULL);
		if (n)
			return (int)n;
	}
	ret = kfi_connect(peer.ep, peer.info->dest_addr, NULL, 0);
	if (ret)
		return ret;
	n = kfi_eq_sread(peer.eq, &event, &ev, sizeof(ev), 10000, 0);
	if (n == -KFI_EAVAIL) {
		/* The connection failed: its error entry says why. */
		n = kfi_eq_readerr(peer.eq, &err, 0);
		if (n < 0)
			return (int)n;
		return err.err ? -err.err : -ECONNREFUSED;
	}
	if (n < 0)
		return (int)n;
	return event == KFI_CONNECTED ? 0 : -ECONNREFUSED;
}

static int __init kfi_peer_init(void)
{
	/* "[fe80::2%kfa]:7471", "10.99.0.2:7471" */
	bool v6 = addr && strchr(addr, ':');
	int ret;

	if (!addr || !port || recvs > PEER_MAX_RECVS || !recv_size)
		return -EINVAL;
	ret = peer_open();
	if (ret) {
		pr_info("kfi_peer: connecting to %s%s%s:%s failed: %d\n",
			v6 ? "[" : "", addr, v6 ? "]" : "", port, ret);
		peer_close();
		return ret;
	}
	pr_info("kfi_peer: connected to %s%s%s:%s\n", v6 ? "[" : "", addr,
		v6 ? "]" : "", port);
	return 0;
}

static void __exit kfi_peer_exit(void)
{
	peer_close();
	pr_info("kfi_peer: closed\n");
}

module_init(kfi_peer_init);
module_exit(kfi_peer_exit);
MODULE_DESCRIPTION("kfabric test peer: holds one connected endpoint while loaded");
MODULE_LICENSE("GPL");
