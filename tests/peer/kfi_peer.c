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
 * With rma=N (1 to 4096) the other side must be kfi_pingpong's role=sink
 * (a 4096-byte region at offset 0 with key `key`, filled with 0xa5,
 * remotely readable and writable; untagged receives of at least 16 bytes
 * posted first; see kfi_pingpong.c), and once connected, still
 * in insmod's context, the load checks RMA and triggered operations
 * across the link before it holds the connection:
 *  1. two counters: "go", which only this module adds to, and "written",
 *     bound to the endpoint for KFI_WRITE (the CQ takes the transmit
 *     completions, as for the receives);
 *  2. a triggered RMA write (kfi_writemsg() with KFI_TRIGGER, "go" >= 1,
 *     KFI_DELIVERY_COMPLETE) of N bytes of a pattern with no 0xa5 in it to
 *     offset 0 of the sink's region, and a triggered send ("written" >= 1)
 *     of the 16 bytes "kfi_peer rma ok\0", which land in the sink's first
 *     untagged receive;
 *  3. after 100 ms nothing may have happened ("written" 0, no
 *     completion); then kfi_cntr_add("go", 1): the write fires, its
 *     completion counts on "written", which fires the send; both
 *     completions must come, in that order, with their exact flags;
 *  4. an ordinary RMA read of N + 64 bytes (at most 4096) from offset 0
 *     of the region: the first N bytes must be the pattern, the rest the
 *     sink's 0xa5.
 * The sink then reports (when this module is unloaded) mr_changed=N,
 * mr_intact=1 with expect_write=N, recvs_done=1 and the message as
 * recv_data. Anything else fails the load with a pr_err saying what, and
 * a negative errno, everything closed. The write asks for delivery
 * completion so that "written" counts data that landed: a sink that
 * refuses the access (a wrong key: kfi_tcp ends the connection then, its
 * wire carries no error reply) fails the write instead of acknowledging
 * it, and the load fails with -EKEYREJECTED ("remote key K rejected by
 * the sink (or the link failed)": a connection lost at that very moment
 * looks the same from here).
 * Local buffers need no registration: the hints' mr_mode is 0
 * (KFI_MR_UNSPEC, no KFI_MR_LOCAL), which kfi_tcp's entries match with
 * mr_mode 0 (descriptors ignored), so no descriptors are passed.
 *
 * Parameters: addr (IPv4 or IPv6 address, IPv6 with an optional %zone,
 * required), port (required), recvs (receives to pre-post, 4),
 * recv_size (bytes each, 64), rma (bytes of the RMA check, 0: none),
 * key (the sink's region key for rma, 7).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/kernel.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/uio.h>
#include <kfabric.h>
#include <kfi_errno.h>
#include <kfi_endpoint.h>
#include <kfi_domain.h>
#include <kfi_cm.h>
#include <kfi_eq.h>
#include <kfi_rma.h>
#include <kfi_trigger.h>

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
static unsigned int rma;
module_param(rma, uint, 0444);
MODULE_PARM_DESC(rma, "1-4096: at load, against a kfi_pingpong sink, a triggered RMA write of this many bytes to its region, a triggered send, a read back, all checked (fails the load otherwise); 0: none (0)");
static unsigned long long key = 7;
module_param(key, ullong, 0444);
MODULE_PARM_DESC(key, "with rma: the key of the sink's region (7)");

#define PEER_MAX_RECVS 64

/* rma: the sink's region (kfi_pingpong's role=sink) and the check. */
#define PEER_RMA_MAX		4096	/* bytes of the region, at offset 0 */
#define PEER_SINK_FILL		0xa5	/* what the region holds first */
#define PEER_RMA_SLACK		64	/* bytes read back beyond the write */
#define PEER_RMA_IDLE_MS	100	/* nothing may fire before "go" */
#define PEER_RMA_WAIT_MS	10000	/* bound of each completion's wait */
#define PEER_CLOSE_MS		5000	/* bound of an endpoint close's retries */

/* The triggered send: its NUL included, 16 bytes. */
static const char peer_rma_msg[] = "kfi_peer rma ok";

/* Everything the module holds while loaded; torn down in reverse order. */
static struct {
	struct kfi_info *info;
	struct kfid_fabric *fabric;
	struct kfid_domain *domain;
	struct kfid_eq *eq;
	struct kfid_cq *cq;
	struct kfid_cntr *go;		/* rma: only this module adds to it */
	struct kfid_cntr *written;	/* rma: the endpoint's KFI_WRITEs */
	struct kfid_ep *ep;
	void *buf;
	/*
	 * rma: the provider reads the triggered contexts and the buffers
	 * until the operations complete or are cancelled, so they live as
	 * long as the endpoint; rctx is the read's context.
	 */
	struct kfi_triggered_context wctx, sctx;
	u8 rctx;
	u8 *wbuf, *rbuf, *mbuf;
} peer;

static void peer_close(void)
{
	unsigned int tries = 0;
	int ret;

	if (peer.ep && rma) {
		/*
		 * An endpoint with triggered operations not issued yet refuses
		 * to close (-EBUSY): withdraw those still waiting for their
		 * counter (-KFI_ENOENT for those gone already).
		 */
		kfi_cancel(&peer.ep->fid, &peer.sctx);
		kfi_cancel(&peer.ep->fid, &peer.wctx);
	}
	while (peer.ep) {
		ret = kfi_close(&peer.ep->fid);
		if (!ret)
			break;
		/*
		 * One already due is being posted by its counter's work item
		 * (not cancellable): give it a moment. Past that, everything
		 * under the endpoint (and the buffers it may still read) stays:
		 * a leak, but no use after free.
		 */
		if (ret != -EBUSY || ++tries > PEER_CLOSE_MS / 20) {
			pr_err("kfi_peer: closing the endpoint failed: %d; leaking it\n",
			       ret);
			memset(&peer, 0, sizeof(peer));
			return;
		}
		msleep(20);
	}
	if (peer.written)
		kfi_close(&peer.written->fid);
	if (peer.go)
		kfi_close(&peer.go->fid);
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
	kfree(peer.wbuf);
	kfree(peer.rbuf);
	kfree(peer.mbuf);
	memset(&peer, 0, sizeof(peer));
}

static int peer_open(void)
{
	struct kfi_eq_attr eq_attr = { .size = 16 };
	/* MSG format: the rma check looks at each completion's flags */
	struct kfi_cq_attr cq_attr = { .size = 2 * PEER_MAX_RECVS,
				       .format = KFI_CQ_FORMAT_MSG };
	struct kfi_cntr_attr cntr_attr = { .events = KFI_CNTR_EVENTS_COMP };
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
	/*
	 * The mr_mode of the hints stays 0 (KFI_MR_UNSPEC): this module
	 * registers no local buffer, so only entries without KFI_MR_LOCAL
	 * match (kfi_tcp's mr_mode is 0: descriptors are ignored).
	 */
	if (rma)
		hints->caps |= KFI_RMA | KFI_TRIGGER;
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
	if (rma) {
		ret = kfi_cntr_open(peer.domain, &cntr_attr, &peer.go, NULL);
		if (!ret)
			ret = kfi_cntr_open(peer.domain, &cntr_attr,
					    &peer.written, NULL);
		if (ret)
			return ret;
	}
	ret = kfi_endpoint(peer.domain, peer.info, &peer.ep, NULL);
	if (ret)
		return ret;
	ret = kfi_ep_bind(peer.ep, &peer.eq->fid, 0);
	if (!ret)
		ret = kfi_ep_bind(peer.ep, &peer.cq->fid,
				  KFI_TRANSMIT | KFI_RECV);
	if (!ret && rma)
		ret = kfi_ep_bind(peer.ep, &peer.written->fid, KFI_WRITE);
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

/* ------------------------------------------------------------ rma=N */

/* Byte @i of the write: 1 to 127, never the sink's 0xa5 fill. */
static u8 peer_pattern(unsigned int i)
{
	return 1 + i % 127;
}

/* What a completion's context names (receives are posted without one). */
static const char *peer_op_name(const void *ctx)
{
	if (ctx == &peer.wctx)
		return "the triggered write";
	if (ctx == &peer.sctx)
		return "the triggered send";
	if (ctx == &peer.rctx)
		return "the read";
	return ctx ? "an unknown operation" : "a receive";
}

/* Whether the EQ says the connection ended (KFI_SHUTDOWN or an error). */
static bool peer_ended(void)
{
	struct kfi_eq_cm_entry ev;
	uint32_t event = 0;
	ssize_t n;

	n = kfi_eq_sread(peer.eq, &event, &ev, sizeof(ev), PEER_RMA_IDLE_MS,
			 0);
	return n == -KFI_EAVAIL || (n >= 0 && event == KFI_SHUTDOWN);
}

/*
 * An error entry is at the head of the CQ: reads it and says what failed.
 * The tcp wire has no error reply to an RMA access: a sink that refuses
 * one (no region with the key) ends the connection, and the endpoint only
 * sees KFI_SHUTDOWN and its operations failing (-KFI_ECANCELED), with no
 * cause. The write asked for delivery completion, so once it fired ("go"
 * added to) and while it is not acknowledged ("written" still 0), an
 * ended connection means the sink refused it (with its region at offset
 * 0 and N <= 4096 bytes: the key) or, which nothing here can tell apart,
 * that the link failed at that moment.
 */
static int peer_rma_cq_err(const char *what)
{
	struct kfi_cq_err_entry e = {};
	ssize_t n;

	n = kfi_cq_readerr(peer.cq, &e, 0);
	if (n < 0) {
		pr_err("kfi_peer: rma: kfi_cq_readerr failed: %zd\n", n);
		return (int)n;
	}
	if (kfi_cntr_read(peer.go) && !kfi_cntr_read(peer.written) &&
	    peer_ended()) {
		pr_err("kfi_peer: rma: remote key %llu rejected by the sink (or the link failed): the connection ended before the triggered write of %u bytes at offset 0 was acknowledged (%s failed: %d, %s)\n",
		       key, rma, peer_op_name(e.op_context), e.err,
		       kfi_strerror(e.err));
		return -EKEYREJECTED;
	}
	pr_err("kfi_peer: rma: waiting for %s: %s failed: %d (%s)\n", what,
	       peer_op_name(e.op_context), e.err, kfi_strerror(e.err));
	return e.err ? -e.err : -EIO;
}

/*
 * Waits (at most PEER_RMA_WAIT_MS) for the next completion, which must be
 * @ctx's with exactly @flags.
 */
static int peer_rma_expect(const void *ctx, u64 flags)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(PEER_RMA_WAIT_MS);
	const char *what = peer_op_name(ctx);
	struct kfi_cq_msg_entry e;
	long left;
	ssize_t n;

	for (;;) {
		left = (long)(deadline - jiffies);
		if (left <= 0) {
			pr_err("kfi_peer: rma: no completion of %s within %u ms (\"written\" %llu, errors %llu)\n",
			       what, PEER_RMA_WAIT_MS,
			       kfi_cntr_read(peer.written),
			       kfi_cntr_readerr(peer.written));
			return -ETIMEDOUT;
		}
		n = kfi_cq_sread(peer.cq, &e, 1, NULL,
				 jiffies_to_msecs(left));
		if (n == 1)
			break;
		if (n == -KFI_EAVAIL)
			return peer_rma_cq_err(what);
		if (n != -KFI_EAGAIN) {
			pr_err("kfi_peer: rma: kfi_cq_sread failed: %zd\n", n);
			return n < 0 ? (int)n : -EIO;
		}
	}
	if (e.op_context != ctx || e.flags != flags) {
		pr_err("kfi_peer: rma: expected the completion of %s (flags %#llx), got one of %s (flags %#llx)\n",
		       what, (unsigned long long)flags,
		       peer_op_name(e.op_context),
		       (unsigned long long)e.flags);
		return -EPROTO;
	}
	return 0;
}

/* The first N bytes read back are the pattern, the rest the fill. */
static int peer_rma_compare(size_t rlen)
{
	size_t i, bad = 0, first = 0;
	u8 want;

	for (i = 0; i < rlen; i++) {
		want = i < rma ? peer_pattern(i) : PEER_SINK_FILL;
		if (peer.rbuf[i] != want && !bad++)
			first = i;
	}
	if (!bad)
		return 0;
	want = first < rma ? peer_pattern(first) : PEER_SINK_FILL;
	pr_err("kfi_peer: rma: %zu of the %zu bytes read back are wrong; the first, byte %zu, is %#x, not %#x (%s)\n",
	       bad, rlen, first, peer.rbuf[first], want,
	       first < rma ? "the written pattern" : "the sink's fill");
	return -EIO;
}

/*
 * rma=N: the checks of the head comment, on the connected endpoint.
 * Returns 0 or a negative errno after a pr_err; the caller closes all.
 */
static int peer_rma(void)
{
	size_t rlen = min_t(size_t, rma + PEER_RMA_SLACK, PEER_RMA_MAX);
	struct kvec wiov, siov;
	struct kfi_rma_iov riov = { .addr = 0, .len = rma, .key = key };
	struct kfi_msg_rma wmsg = {
		.type = KFI_KVEC, .msg_iov = &wiov, .iov_count = 1,
		.rma_iov = &riov, .rma_iov_count = 1, .context = &peer.wctx,
	};
	struct kfi_msg smsg = {
		.type = KFI_KVEC, .msg_iov = &siov, .iov_count = 1,
		.context = &peer.sctx,
	};
	struct kfi_cq_msg_entry e;
	unsigned int i;
	ssize_t n;
	int ret;

	peer.wbuf = kmalloc(rma, GFP_KERNEL);
	peer.rbuf = kzalloc(rlen, GFP_KERNEL);
	peer.mbuf = kmemdup(peer_rma_msg, sizeof(peer_rma_msg), GFP_KERNEL);
	if (!peer.wbuf || !peer.rbuf || !peer.mbuf)
		return -ENOMEM;
	for (i = 0; i < rma; i++)
		peer.wbuf[i] = peer_pattern(i);
	wiov = (struct kvec){ peer.wbuf, rma };
	siov = (struct kvec){ peer.mbuf, sizeof(peer_rma_msg) };

	/*
	 * Delivery completion: "written" then counts a write that landed
	 * in the sink's region, and a refused one fails (peer_rma_cq_err).
	 */
	peer.wctx.event_type = KFI_TRIGGER_THRESHOLD;
	peer.wctx.trigger.threshold.cntr = peer.go;
	peer.wctx.trigger.threshold.threshold = 1;
	n = kfi_writemsg(peer.ep, &wmsg, KFI_TRIGGER | KFI_COMPLETION |
			 KFI_DELIVERY_COMPLETE);
	if (n) {
		pr_err("kfi_peer: rma: posting the triggered write failed: %zd\n",
		       n);
		return (int)n;
	}
	peer.sctx.event_type = KFI_TRIGGER_THRESHOLD;
	peer.sctx.trigger.threshold.cntr = peer.written;
	peer.sctx.trigger.threshold.threshold = 1;
	n = kfi_sendmsg(peer.ep, &smsg, KFI_TRIGGER | KFI_COMPLETION);
	if (n) {
		pr_err("kfi_peer: rma: posting the triggered send failed: %zd\n",
		       n);
		return (int)n;
	}

	/* Nothing moves before "go". */
	msleep(PEER_RMA_IDLE_MS);
	n = kfi_cq_read(peer.cq, &e, 1);
	if (n == 1) {
		pr_err("kfi_peer: rma: %s completed before \"go\"\n",
		       peer_op_name(e.op_context));
		return -EPROTO;
	}
	if (n == -KFI_EAVAIL)
		return peer_rma_cq_err("\"go\"");
	if (n != -KFI_EAGAIN) {
		pr_err("kfi_peer: rma: kfi_cq_read failed: %zd\n", n);
		return n < 0 ? (int)n : -EIO;
	}
	if (kfi_cntr_read(peer.written) || kfi_cntr_readerr(peer.written) ||
	    kfi_cntr_read(peer.go)) {
		pr_err("kfi_peer: rma: counters moved before \"go\": written %llu (errors %llu), go %llu\n",
		       kfi_cntr_read(peer.written),
		       kfi_cntr_readerr(peer.written), kfi_cntr_read(peer.go));
		return -EPROTO;
	}

	/*
	 * "go": the write fires; its completion counts on "written" (after
	 * its CQ entry), which fires the send. So the entries come in that
	 * order.
	 */
	ret = kfi_cntr_add(peer.go, 1);
	if (ret) {
		pr_err("kfi_peer: rma: kfi_cntr_add failed: %d\n", ret);
		return ret;
	}
	ret = peer_rma_expect(&peer.wctx, KFI_RMA | KFI_WRITE);
	if (!ret)
		ret = peer_rma_expect(&peer.sctx, KFI_MSG | KFI_SEND);
	if (ret)
		return ret;
	if (kfi_cntr_read(peer.written) != 1 ||
	    kfi_cntr_readerr(peer.written)) {
		pr_err("kfi_peer: rma: \"written\" is %llu (errors %llu), not 1\n",
		       kfi_cntr_read(peer.written),
		       kfi_cntr_readerr(peer.written));
		return -EPROTO;
	}

	/* An ordinary read of the write and some of the region after it. */
	n = kfi_read(peer.ep, peer.rbuf, rlen, NULL, 0, 0, key, &peer.rctx);
	if (n) {
		pr_err("kfi_peer: rma: posting the read failed: %zd\n", n);
		return (int)n;
	}
	ret = peer_rma_expect(&peer.rctx, KFI_RMA | KFI_READ);
	if (ret)
		return ret;
	ret = peer_rma_compare(rlen);
	if (ret)
		return ret;
	pr_info("kfi_peer: rma=%u verified: triggered write, triggered send, read back (%zu bytes, key %llu)\n",
		rma, rlen, key);
	return 0;
}

static int __init kfi_peer_init(void)
{
	/* "[fe80::2%kfa]:7471", "10.99.0.2:7471" */
	bool v6 = addr && strchr(addr, ':');
	int ret;

	if (!addr || !port || recvs > PEER_MAX_RECVS || !recv_size)
		return -EINVAL;
	if (rma > PEER_RMA_MAX) {
		pr_err("kfi_peer: rma=%u: at most %u bytes (the sink's region)\n",
		       rma, PEER_RMA_MAX);
		return -EINVAL;
	}
	ret = peer_open();
	if (ret) {
		pr_info("kfi_peer: connecting to %s%s%s:%s failed: %d\n",
			v6 ? "[" : "", addr, v6 ? "]" : "", port, ret);
		peer_close();
		return ret;
	}
	pr_info("kfi_peer: connected to %s%s%s:%s\n", v6 ? "[" : "", addr,
		v6 ? "]" : "", port);
	if (rma) {
		ret = peer_rma();
		if (ret) {
			pr_err("kfi_peer: rma=%u check failed: %d\n", rma, ret);
			peer_close();
			return ret;
		}
	}
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
