// SPDX-License-Identifier: GPL-2.0
/*
 * kfi_rdm_bench.ko: aggregate message rate and bandwidth of N peers
 * sending to one endpoint (make bench, Documentation/benchmarks.md).
 * Runs at load, prints one line and fails the load with the error if a
 * kfabric call does:
 *
 *   kfi_rdm_bench: prov=P ep=rdm|msg peers=N size=S msgs=M window=W
 *                  ns=T msgs_per_s=R MBps=B
 *
 * N clients, each an endpoint of its own driven by a kernel thread
 * pinned to CPU i % ncpus, send M/N messages of S bytes each to one
 * server with at most W sends outstanding per client; the server's
 * thread reads its receive CQ (one CQ, 16 entries per read) and reposts
 * every receive. ep=rdm: the clients and the server are RDM endpoints,
 * the clients send to the server's AV handle. ep=msg: N connected pairs,
 * the server's N endpoints accepted from a passive endpoint, all bound
 * to the one receive CQ. T runs from the start of the senders to the
 * last receive. Parameters: prov, addr, ep, peers, size, msgs, window.
 *
 * MSG endpoints leave flow control to the consumer, and an iWARP queue
 * pair (siw) has no receiver-not-ready retry: a SEND that finds no
 * receive posted breaks the connection. So with ep=msg a sender only
 * sends into a receive its server has posted: it starts with the
 * receives posted before the accept and gains one each time the server
 * reposts one of its connection's (a counter in memory shared with the
 * server thread: the credits an application would send back).
 */
#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/completion.h>
#include <linux/in.h>
#include <linux/inet.h>
#include <linux/delay.h>

#include <kfabric.h>
#include <kfi_cm.h>
#include <kfi_domain.h>
#include <kfi_endpoint.h>
#include <kfi_eq.h>
#include <kfi_errno.h>

#define V17 KFI_VERSION(1, 7)
#define MAX_PEERS 64
#define WAIT_MS 60000

static char *prov = "tcp";
module_param(prov, charp, 0444);
MODULE_PARM_DESC(prov, "provider (tcp)");
static char *addr = "127.0.0.1";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "address of every endpoint");
static char *ep = "rdm";
module_param(ep, charp, 0444);
MODULE_PARM_DESC(ep, "rdm or msg");
static int peers = 1;
module_param(peers, int, 0444);
MODULE_PARM_DESC(peers, "senders (1..64)");
static int size = 64;
module_param(size, int, 0444);
MODULE_PARM_DESC(size, "message size in bytes");
static int msgs = 20000;
module_param(msgs, int, 0444);
MODULE_PARM_DESC(msgs, "messages in all (split between the senders)");
static int window = 16;
module_param(window, int, 0444);
MODULE_PARM_DESC(window, "sends outstanding per sender");

struct bench;

struct client {
	struct bench *b;
	struct kfid_ep *ep;
	struct kfid_cq *cq;
	struct kfid_eq *eq;
	struct kfid_av *av;
	kfi_addr_t server;
	struct task_struct *task;
	void *buf;
	int n, err;
	/* ep=msg: receives the server has posted for this sender so far */
	atomic_t credits;
};

struct bench {
	bool rdm;
	struct kfi_info *hints, *info;
	struct kfid_fabric *fab;
	struct kfid_domain *dom;
	/* the server: an RDM endpoint, or a pep and N accepted endpoints */
	struct kfid_ep *sep[MAX_PEERS];
	struct kfid_pep *pep;
	struct kfid_eq *seq;
	struct kfid_av *sav;
	struct kfid_cq *rcq;
	struct sockaddr_storage saddr;
	u8 *rbufs;
	int nrecv, total, err;
	struct client c[MAX_PEERS];
	struct completion go;
	atomic_t ready;
	u64 t0, t1;
};

static int recv_post(struct bench *b, struct kfid_ep *e, int i)
{
	void *buf = b->rbufs + (size_t)i * size;
	int r;

	while ((r = kfi_recv(e, buf, size, NULL, KFI_ADDR_UNSPEC,
			     (void *)(long)i)) == -EAGAIN)
		cond_resched();
	return r;
}

static int open_cq(struct bench *b, struct kfid_cq **cq)
{
	struct kfi_cq_attr a = { .size = 4096, .format = KFI_CQ_FORMAT_CONTEXT };

	return kfi_cq_open(b->dom, &a, cq, NULL, NULL);
}

/* Waits for one EQ event of @type on @eq; the entry's info (CONNREQ). */
static int eq_wait(struct kfid_eq *eq, u32 type, struct kfi_info **info)
{
	struct kfi_eq_cm_entry e;
	u32 ev;
	ssize_t r;

	r = kfi_eq_sread(eq, &ev, &e, sizeof(e), WAIT_MS, 0);
	if (r == -KFI_EAVAIL) {
		struct kfi_eq_err_entry err = {};

		kfi_eq_readerr(eq, &err, 0);
		return err.err ? -err.err : -EIO;
	}
	if (r < 0)
		return r;
	if (ev != type)
		return -EPROTO;
	if (info)
		*info = e.info;
	else
		kfi_freeinfo(e.info);
	return 0;
}

static struct kfi_info *info_for(struct bench *b)
{
	struct kfi_info *i = kfi_dupinfo(b->info);

	if (i)
		i->ep_attr->type = b->rdm ? KFI_EP_RDM : KFI_EP_MSG;
	return i;
}

static int server_open(struct bench *b)
{
	struct kfi_eq_attr ea = { .size = 256, .wait_obj = KFI_WAIT_UNSPEC };
	struct kfi_av_attr aa = { .type = KFI_AV_TABLE };
	struct kfi_info *i = info_for(b);
	size_t len = sizeof(b->saddr);
	int r;

	if (!i)
		return -ENOMEM;
	r = open_cq(b, &b->rcq);
	if (r)
		goto out;
	r = kfi_eq_open(b->fab, &ea, &b->seq, NULL, NULL);
	if (r)
		goto out;
	if (!b->rdm) {
		r = kfi_passive_ep(b->fab, i, &b->pep, b);
		r = r ?: kfi_pep_bind(b->pep, &b->seq->fid, 0);
		r = r ?: kfi_listen(b->pep);
		r = r ?: kfi_getname(&b->pep->fid, &b->saddr, &len);
		goto out;
	}
	r = kfi_av_open(b->dom, &aa, &b->sav, NULL);
	r = r ?: kfi_endpoint(b->dom, i, &b->sep[0], b);
	r = r ?: kfi_ep_bind(b->sep[0], &b->sav->fid, 0);
	r = r ?: kfi_ep_bind(b->sep[0], &b->rcq->fid, KFI_RECV);
	r = r ?: kfi_enable(b->sep[0]);
	r = r ?: kfi_getname(&b->sep[0]->fid, &b->saddr, &len);
out:
	kfi_freeinfo(i);
	return r;
}

static int client_open(struct bench *b, struct client *c)
{
	struct kfi_eq_attr ea = { .size = 16, .wait_obj = KFI_WAIT_UNSPEC };
	struct kfi_av_attr aa = { .type = KFI_AV_TABLE };
	struct kfi_info *i = info_for(b);
	int r;

	if (!i)
		return -ENOMEM;
	c->buf = kzalloc(size, GFP_KERNEL);
	r = c->buf ? open_cq(b, &c->cq) : -ENOMEM;
	r = r ?: kfi_endpoint(b->dom, i, &c->ep, c);
	r = r ?: kfi_ep_bind(c->ep, &c->cq->fid, KFI_TRANSMIT | KFI_RECV);
	if (b->rdm) {
		r = r ?: kfi_av_open(b->dom, &aa, &c->av, NULL);
		r = r ?: kfi_ep_bind(c->ep, &c->av->fid, 0);
		r = r ?: kfi_enable(c->ep);
		if (!r && kfi_av_insert(c->av, &b->saddr, 1, &c->server, 0,
					NULL) != 1)
			r = -EINVAL;
	} else {
		r = r ?: kfi_eq_open(b->fab, &ea, &c->eq, NULL, NULL);
		r = r ?: kfi_ep_bind(c->ep, &c->eq->fid, 0);
		r = r ?: kfi_enable(c->ep);
		r = r ?: kfi_connect(c->ep, &b->saddr, NULL, 0);
	}
	kfi_freeinfo(i);
	return r;
}

/* MSG: the server accepts peer @k's request; both sides connected. */
static int msg_accept(struct bench *b, struct client *c, int k)
{
	struct kfi_info *req = NULL;
	int r, j, per = b->nrecv / peers;

	r = eq_wait(b->seq, KFI_CONNREQ, &req);
	r = r ?: kfi_endpoint(b->dom, req, &b->sep[k], b);
	r = r ?: kfi_ep_bind(b->sep[k], &b->seq->fid, 0);
	r = r ?: kfi_ep_bind(b->sep[k], &b->rcq->fid, KFI_RECV | KFI_TRANSMIT);
	r = r ?: kfi_enable(b->sep[k]);
	for (j = 0; !r && j < per; j++)
		r = recv_post(b, b->sep[k], k * per + j);
	atomic_set(&c->credits, per);
	r = r ?: kfi_accept(b->sep[k], NULL, 0);
	r = r ?: eq_wait(b->seq, KFI_CONNECTED, NULL);
	r = r ?: eq_wait(c->eq, KFI_CONNECTED, NULL);
	kfi_freeinfo(req);
	return r;
}

/* A CQ read failed: says why (its error entry for -KFI_EAVAIL). */
static int cq_failed(struct kfid_cq *cq, const char *who, int r)
{
	struct kfi_cq_err_entry ee = {};

	if (r == -KFI_EAVAIL && kfi_cq_readerr(cq, &ee, 0) == 1)
		pr_err("kfi_rdm_bench: %s: error entry: err %d prov_errno %d len %zu\n",
		       who, ee.err, ee.prov_errno, ee.len);
	return r;
}

static int sender(void *arg)
{
	struct client *c = arg;
	struct bench *b = c->b;
	struct kfi_cq_entry e[16];
	int sent = 0, done = 0, r;
	kfi_addr_t to = b->rdm ? c->server : 0;

	atomic_inc(&b->ready);
	wait_for_completion(&b->go);
	while (done < c->n && !kthread_should_stop()) {
		while (sent < c->n && sent - done < window &&
		       (b->rdm || sent < atomic_read_acquire(&c->credits))) {
			r = kfi_send(c->ep, c->buf, size, NULL, to, NULL);
			if (r == -EAGAIN)
				break;
			if (r) {
				c->err = r;
				goto out;
			}
			sent++;
		}
		r = kfi_cq_read(c->cq, e, ARRAY_SIZE(e));
		if (r > 0)
			done += r;
		else if (r == -EAGAIN)
			cond_resched();
		else {
			c->err = cq_failed(c->cq, "sender", r);
			break;
		}
	}
out:
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

/* The server's loop: every receive reposted until @total are in. */
static int serve(struct bench *b)
{
	struct kfi_cq_entry e[16];
	unsigned long end = jiffies + msecs_to_jiffies(WAIT_MS);
	int got = 0, r, k, per = b->nrecv / peers;

	while (got < b->total) {
		r = kfi_cq_read(b->rcq, e, ARRAY_SIZE(e));
		if (r == -EAGAIN) {
			if (time_after(jiffies, end))
				return -ETIMEDOUT;
			cond_resched();
			continue;
		}
		if (r < 0)
			return cq_failed(b->rcq, "server", r);
		/*
		 * every receive goes back (those left over are flushed at
		 * the close)
		 */
		for (k = 0; k < r; k++) {
			int i = (long)e[k].op_context;
			struct kfid_ep *e2 = b->rdm ? b->sep[0] : b->sep[i / per];
			int rr = recv_post(b, e2, i);

			if (rr)
				return rr;
			if (!b->rdm)
				atomic_inc_return_release(&b->c[i / per].credits);
		}
		got += r;
	}
	return 0;
}

static void bench_close(struct bench *b)
{
	int i;

	for (i = 0; i < peers; i++) {
		struct client *c = &b->c[i];

		if (c->task)
			kthread_stop(c->task);
		if (c->ep)
			kfi_close(&c->ep->fid);
		if (c->av)
			kfi_close(&c->av->fid);
		if (c->eq)
			kfi_close(&c->eq->fid);
		if (c->cq)
			kfi_close(&c->cq->fid);
		kfree(c->buf);
	}
	for (i = 0; i < MAX_PEERS; i++)
		if (b->sep[i])
			kfi_close(&b->sep[i]->fid);
	if (b->pep)
		kfi_close(&b->pep->fid);
	if (b->sav)
		kfi_close(&b->sav->fid);
	if (b->rcq)
		kfi_close(&b->rcq->fid);
	if (b->seq)
		kfi_close(&b->seq->fid);
	if (b->dom)
		kfi_close(&b->dom->fid);
	if (b->fab)
		kfi_close(&b->fab->fid);
	kfi_freeinfo(b->info);
	kfi_freeinfo(b->hints);
	vfree(b->rbufs);
}

static int run(struct bench *b)
{
	int i, r, per;

	b->hints = kfi_allocinfo();
	if (!b->hints)
		return -ENOMEM;
	b->hints->fabric_attr->prov_name = kstrdup(prov, GFP_KERNEL);
	b->hints->ep_attr->type = b->rdm ? KFI_EP_RDM : KFI_EP_MSG;
	b->hints->caps = KFI_MSG;
	r = kfi_getinfo(V17, addr, NULL, KFI_SOURCE, b->hints, &b->info);
	r = r ?: kfi_fabric(b->info->fabric_attr, &b->fab, NULL);
	r = r ?: kfi_domain(b->fab, b->info, &b->dom, NULL);
	if (r)
		return r;
	/* receives: a window per sender, twice */
	per = 2 * window;
	b->nrecv = per * peers;
	b->rbufs = vzalloc((size_t)b->nrecv * size);
	if (!b->rbufs)
		return -ENOMEM;
	r = server_open(b);
	if (r)
		return r;
	for (i = 0; b->rdm && i < b->nrecv; i++) {
		r = recv_post(b, b->sep[0], i);
		if (r)
			return r;
	}
	for (i = 0; i < peers; i++) {
		struct client *c = &b->c[i];

		c->b = b;
		c->n = msgs / peers;
		b->total += c->n;
		r = client_open(b, c);
		r = r ?: (b->rdm ? 0 : msg_accept(b, c, i));
		if (r)
			return r;
		c->task = kthread_create(sender, c, "kfi_rdm_bench/%d", i);
		if (IS_ERR(c->task)) {
			r = PTR_ERR(c->task);
			c->task = NULL;
			return r;
		}
		kthread_bind(c->task, i % num_online_cpus());
		wake_up_process(c->task);
	}
	while (atomic_read(&b->ready) < peers)
		usleep_range(1000, 2000);
	b->t0 = ktime_get_ns();
	complete_all(&b->go);
	r = serve(b);
	b->t1 = ktime_get_ns();
	for (i = 0; !r && i < peers; i++)
		r = b->c[i].err;
	return r;
}

static int __init kfi_rdm_bench_init(void)
{
	struct bench *b;
	u64 ns;
	int r;

	if (peers < 1 || peers > MAX_PEERS || size < 1 || msgs < peers ||
	    window < 1 || (strcmp(ep, "rdm") && strcmp(ep, "msg")))
		return -EINVAL;
	b = vzalloc(sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->rdm = !strcmp(ep, "rdm");
	init_completion(&b->go);
	atomic_set(&b->ready, 0);
	r = run(b);
	complete_all(&b->go);
	ns = b->t1 - b->t0;
	if (!r && ns)
		pr_info("kfi_rdm_bench: prov=%s ep=%s peers=%d size=%d msgs=%d window=%d ns=%llu msgs_per_s=%llu MBps=%llu\n",
			prov, ep, peers, size, b->total, window, ns,
			div64_u64((u64)b->total * NSEC_PER_SEC, ns),
			div64_u64((u64)b->total * size * 1000, ns));
	bench_close(b);
	vfree(b);
	if (r)
		pr_err("kfi_rdm_bench: failed: %d (%s)\n", r, kfi_strerror(-r));
	return r;
}

static void __exit kfi_rdm_bench_exit(void)
{
}

module_init(kfi_rdm_bench_init);
module_exit(kfi_rdm_bench_exit);
MODULE_DESCRIPTION("Aggregate message rate of N senders to one kfabric endpoint");
MODULE_LICENSE("GPL");
