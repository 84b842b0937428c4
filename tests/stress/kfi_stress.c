// SPDX-License-Identifier: GPL-2.0
/*
 * kfi_stress: a bounded-time stress of a kfabric provider with data
 * checks, written only against the public headers (include/), over MSG
 * endpoints on one local address (kfi_tcp in `make check`): 127.0.0.1 by
 * default, or any IPv4 or IPv6 node the provider's kfi_getinfo takes with
 * KFI_SOURCE ("::1", "fe80::1%eth0"); nothing in it depends on the family.
 *
 * Several kthreads share one fabric and domain; each owns a passive
 * endpoint, an EQ, a transmit and a receive CQ, five counters and a few
 * connected endpoint pairs, and runs a seeded random mix on them: sends
 * and receives (untagged and tagged, 0 B to 256 KiB, one to three kvec
 * segments or page lists, with and without CQ data, transmit/delivery
 * complete), injects, RMA writes (plain, with CQ data, delivery complete,
 * inject) and reads over one to eight remote segments in random order
 * against regions with canary bytes around them, cancels of posted
 * receives, counter adds, triggered tagged sends and RMA writes firing on
 * a counter's threshold (and cancels of them), and closing and
 * reconnecting pairs mid-run (after quiescing them; the side left open
 * sees KFI_SHUTDOWN and its posted receives flushed).
 *
 * Every payload is a window of a pattern pool chosen by (seed, thread,
 * pair, direction, operation number), so the receiver knows every byte it
 * must get; every RMA is mirrored in a shadow copy of the target region,
 * and every read is compared with the shadow as it was when the read was
 * posted (the provider advertises RAW/WAR/WAW ordering). Every operation
 * asking for a completion is a record that must complete exactly once,
 * with the exact flags, length, tag and data; counters must end at the
 * exact values; regions must equal their shadows at every quiesce and the
 * canaries around them must be intact. -EAGAIN from a post is flow
 * control: the thread reads its CQs and retries.
 *
 * debugfs: write "key=value ..." to /sys/kernel/debug/kfi_stress/run
 * (keys seconds, threads, pairs, seed, reconnect_ms, node; defaults are the
 * module parameters) to run in the writer's context; the write fails with
 * -EIO when any error was found. node is the address every thread's
 * passive endpoint listens on and its clients bind to and connect to: it
 * is handed to kfi_getinfo() with KFI_SOURCE as it is written (IPv4 or
 * IPv6 text, an IPv6 one with a %zone: interface name or index), and the
 * address connected to is the passive endpoint's kfi_getname(), of
 * whatever family. /sys/kernel/debug/kfi_stress/last holds the summary
 * line "kfi_stress: ... errors=N" (Documentation/testing.md). Writing
 * anything to /sys/kernel/debug/kfi_stress/stop ends the running run (or
 * the next one) early, as if its time were up: its threads quiesce, check
 * and close as at the end of any run. A test that changes the network
 * under a run (netem) undoes the change and then stops the run, so the
 * closes run on a clean link whatever the machine's speed.
 */
#include <linux/bvec.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include <kfabric.h>
#include <kfi_cm.h>
#include <kfi_domain.h>
#include <kfi_endpoint.h>
#include <kfi_eq.h>
#include <kfi_errno.h>
#include <kfi_rma.h>
#include <kfi_tagged.h>
#include <kfi_trigger.h>

/* set by the stop file, cleared when a run ends */
static bool st_stop_req;

static unsigned int seconds = 45;
module_param(seconds, uint, 0644);
MODULE_PARM_DESC(seconds, "default duration of a run (s)");
static unsigned int threads = 4;
module_param(threads, uint, 0644);
MODULE_PARM_DESC(threads, "default number of threads");
static unsigned int pairs = 2;
module_param(pairs, uint, 0644);
MODULE_PARM_DESC(pairs, "default connected endpoint pairs per thread");
static unsigned int seed = 1;
module_param(seed, uint, 0644);
MODULE_PARM_DESC(seed, "default seed of the random mix");
static unsigned int reconnect_ms = 1500;
module_param(reconnect_ms, uint, 0644);
MODULE_PARM_DESC(reconnect_ms, "default interval of a thread's reconnects (ms)");
/* INET6_ADDRSTRLEN, '%' and an interface name (IFNAMSIZ) fit. */
#define ST_NODE_LEN	64
static char node[ST_NODE_LEN] = "127.0.0.1";
module_param_string(node, node, sizeof(node), 0644);
MODULE_PARM_DESC(node, "default address to listen on and connect to: IPv4 or IPv6, with an optional %zone (127.0.0.1)");
/* Triggered RMA writes in the mix (with triggered tagged sends). */
static bool trig_writes = true;
module_param(trig_writes, bool, 0644);
MODULE_PARM_DESC(trig_writes, "include triggered RMA writes in the mix (on)");

#define ST_MAX_THREADS	16
#define ST_MAX_PAIRS	8
#define ST_MAXMSG	(256 * 1024)
#define ST_RBUF		(ST_MAXMSG + 8192)
#define ST_NRECV	3		/* untagged receives posted per endpoint */
#define ST_POOL		(1024 * 1024)	/* pattern pool */
#define ST_REG_NORMAL	(192 * 1024)
#define ST_REG_TRIG	(32 * 1024)	/* area of triggered writes */
#define ST_REG		(ST_REG_NORMAL + ST_REG_TRIG)
#define ST_GUARD_LO	(PAGE_SIZE + 37)
#define ST_GUARD_HI	(PAGE_SIZE + 11)
#define ST_CANARY	0xa5
#define ST_FIFO		64		/* untagged messages in flight per direction */
#define ST_TWINDOW	16		/* tagged messages ahead of their receives */
#define ST_MAX_TRIG	8		/* pending triggered operations per thread */
#define ST_INJECT	128
#define ST_CQ_SIZE	1024
#define ST_STALL	(60 * HZ)
#define ST_MAGIC	0x57a55e55u
#define ST_WD_MAGIC	0x5744ULL	/* writedata CQ data: magic << 48 */
#define ST_TRIG_TAG	(1ULL << 50)
#define ST_JUNK_SHIFT	52		/* tag bits a receive ignores */
#define ST_IGNORE	(0xfULL << ST_JUNK_SHIFT)

enum st_kind { OP_SEND, OP_TSEND, OP_WRITE, OP_READ, OP_RECV, OP_TRECV };
enum st_state { ST_POSTED = 1, ST_DONE, ST_DROPPED };
enum st_cancel { CANCEL_NONE, CANCEL_OK, CANCEL_LATE, CANCEL_FLUSH };

struct st_stats {
	u64 send, inject, tsend, tinject, recv, trecv, write, inject_write,
	    writedata, read, cancel_ok, cancel_late, trig_posted, trig_fired,
	    trig_cancelled, cntr_adds, reconnects, eagain, completions,
	    err_entries, flushed, dropped, bytes, verified, wd_seen;
};

struct st_run;
struct st_thread;
struct st_pair;

/*
 * One operation asking for a completion. Its address is the operation's
 * context (a triggered one's kfi_triggered_context comes first).
 */
struct st_op {
	union {
		struct kfi_triggered_context tctx;
		struct kfi_context kctx;
	};
	u32 magic;
	u8 kind, state, cancel, side;	/* side: the posting endpoint */
	bool trig;
	struct st_pair *p;
	u32 gen;
	u64 seq;	/* message number, tag index or trigger serial */
	size_t len;	/* payload (receives: expected message length) */
	u32 off;	/* pool window */
	u64 tag, data;
	bool has_data;
	void *buf;	/* owned by the op (freed with it) */
	int rslot;	/* untagged receive: buffer slot */
	struct kvec iov[3];
	int nseg;
	u8 *expect;	/* read: the region's bytes when posted */
	u32 roff;	/* triggered write: region offset */
	u64 threshold;
	struct st_op *trecv;	/* triggered tagged send: its receive */
	struct kfi_rma_iov riov[8];	/* read: its remote pieces */
	int nriov;
	struct list_head node;
};

struct st_msg {		/* an untagged message not yet received */
	u64 seq;
	u32 len, off;
	bool has_data;
	u64 data;
};

struct st_side {
	struct kfid_ep *ep;
	u8 *mem, *reg, *shadow;
	struct kfid_mr *mr;
	u64 key, base;
	void *rbuf[ST_NRECV];
	struct st_op *rop[ST_NRECV];
	bool shutdown;		/* KFI_SHUTDOWN seen on this endpoint */
	bool connected;
	bool trig_write;	/* a triggered write into this region pending */
};

/* Direction d: from side d to side 1 - d. */
struct st_dir {
	u64 send_seq, recv_seq;
	struct st_msg fifo[ST_FIFO];
	u64 ts, tr, tdone;	/* tagged: sent, receives posted, received */
	u64 trig_j;
	int trig_rx;		/* triggered sends' receives not completed */
	u64 wd_sent, wd_seen;	/* writedata entries */
};

struct st_pair {
	struct st_thread *t;
	int idx;
	u32 gen;
	bool closing;
	struct st_side s[2];
	struct st_dir d[2];
	int inflight;		/* transmit ops and triggered ops pending */
};

struct st_thread {
	struct st_run *run;
	int id;
	struct task_struct *task;
	u64 rng;
	bool handler;
	wait_queue_head_t wq;
	atomic_t calls;
	struct kfid_eq *eq;
	struct kfid_pep *pep;
	struct sockaddr_storage paddr;	/* the pep's kfi_getname(), any family */
	struct kfi_info *connreq;
	struct kfid_cq *txcq, *rxcq;
	struct kfid_cntr *c_send, *c_recv, *c_rma, *c_remote, *c_trig;
	u64 tval;
	u64 exp_send[2], exp_recv[2], exp_rma[2], exp_remote;
	struct st_pair pairs[ST_MAX_PAIRS];
	int npairs;
	struct list_head live, dropped;
	int ntrig;
	struct st_op *trigs[ST_MAX_TRIG];
	struct bio_vec bv[ST_RBUF / PAGE_SIZE + 4];	/* transmit posts */
	struct bio_vec rbv[ST_RBUF / PAGE_SIZE + 4];	/* receive posts */
	int depth;	/* st_progress nesting (a post retrying inside one) */
	struct st_stats st;
	unsigned long last_progress;
	int errors;
	bool abort;
	struct completion done;
};

struct st_run {
	unsigned int seconds, nthreads, npairs, seed, reconnect_ms;
	char node[ST_NODE_LEN];		/* kfi_getinfo()'s KFI_SOURCE node */
	unsigned long deadline;
	struct kfi_info *hints, *info;
	struct kfid_fabric *fab;
	struct kfid_domain *dom;
	struct kfid_cntr *gcntr;	/* added to by every thread */
	atomic64_t gadds;
	u8 *pool, *pool2;
	struct st_thread *t[ST_MAX_THREADS];
	atomic_t errors;
};

static DEFINE_MUTEX(st_lock);
static char st_last[1280] = "kfi_stress: no run yet\n";
static struct dentry *st_dir;

/* ------------------------------------------------------------- helpers */

static u64 st_mix(u64 x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static u64 st_rand(struct st_thread *t)
{
	t->rng += 0x9e3779b97f4a7c15ULL;
	return st_mix(t->rng);
}

static u32 st_below(struct st_thread *t, u32 n)
{
	return n ? (u32)(st_rand(t) % n) : 0;
}

/* A hash of the thread, pair, direction and number of a message. */
static u64 st_key(struct st_thread *t, struct st_pair *p, int d, u64 n,
		  u64 what)
{
	return st_mix(((u64)t->run->seed << 32) ^ ((u64)t->id << 24) ^
		      ((u64)p->idx << 16) ^ ((u64)d << 8) ^ what ^
		      st_mix(n + 1));
}

/* A message size: 0 B to 256 KiB, most of them small, odd ones too. */
static size_t st_size_from(u64 r, size_t max)
{
	u32 c = r % 100;
	size_t n;

	r >>= 8;
	if (c < 30)
		n = r % 65;
	else if (c < 55)
		n = 65 + r % (4096 - 64);
	else if (c < 80)
		n = 4097 + r % (65536 - 4096);
	else if (c < 93)
		n = 65537 + r % (ST_MAXMSG / 2 - 65536);
	else
		n = ST_MAXMSG / 2 + r % (ST_MAXMSG / 2 + 1);
	return min(n, max);
}

static u32 st_pool_off(u64 r, size_t len)
{
	return (u32)(r % (ST_POOL - len + 1));
}

#define st_err(t, fmt, ...)						\
	do {								\
		(t)->errors++;						\
		(t)->abort = true;					\
		if (atomic_inc_return(&(t)->run->errors) <= 20)		\
			pr_err("kfi_stress: thread %d: " fmt "\n",	\
			       (t)->id, ##__VA_ARGS__);			\
	} while (0)

static const u8 *st_pool_at(struct st_thread *t, u32 off, int seg)
{
	return (seg & 1 ? t->run->pool2 : t->run->pool) + off;
}

/* Compares @len bytes gathered from @iov with the pool at @off. */
static bool st_iov_matches(struct st_thread *t, const struct kvec *iov,
			   int nseg, size_t len, u32 off)
{
	const u8 *want = t->run->pool + off;
	size_t done = 0, n;
	int i;

	for (i = 0; i < nseg && done < len; i++) {
		n = min(len - done, iov[i].iov_len);
		if (memcmp(iov[i].iov_base, want + done, n))
			return false;
		done += n;
	}
	return done == len;
}

/* Bio_vecs over the vmalloc range [@p, @p + @len), one per page piece. */
static int st_bvecs(struct bio_vec *bv, const u8 *p, size_t len)
{
	int n = 0;

	while (len) {
		size_t in = offset_in_page(p);
		size_t k = min(len, (size_t)PAGE_SIZE - in);

		bvec_set_page(&bv[n++], vmalloc_to_page(p), k, in);
		p += k;
		len -= k;
	}
	return n;
}

static struct st_op *st_op_new(struct st_thread *t, struct st_pair *p,
			       int kind, int side)
{
	struct st_op *op = kzalloc(sizeof(*op), GFP_KERNEL);

	if (!op) {
		st_err(t, "out of memory");
		return NULL;
	}
	op->magic = ST_MAGIC;
	op->kind = kind;
	op->side = side;
	op->p = p;
	op->gen = p->gen;
	op->rslot = -1;
	INIT_LIST_HEAD(&op->node);
	return op;
}

static void st_op_free(struct st_op *op)
{
	list_del(&op->node);
	kvfree(op->buf);
	kvfree(op->expect);
	op->magic = 0;
	kfree(op);
}

static void st_op_posted(struct st_thread *t, struct st_op *op)
{
	op->state = ST_POSTED;
	list_add_tail(&op->node, &t->live);
	if (op->kind <= OP_READ)
		op->p->inflight++;
}

/* ------------------------------------------------------- CQ and EQ work */

static void st_progress(struct st_thread *t);

/*
 * Posts with -EAGAIN as flow control: read the CQs (which also posts the
 * receives owed) and try again, until the thread stalls.
 */
#define ST_POST(t, call)						\
	({								\
		ssize_t __rc;						\
		while ((__rc = (call)) == -EAGAIN && !(t)->abort) {	\
			(t)->st.eagain++;				\
			st_progress(t);					\
			st_check_stall(t, "post -EAGAIN");		\
			cond_resched();					\
		}							\
		__rc;							\
	})

/* What a stalled thread still waits for (the log says where it hangs). */
static void st_dump_stall(struct st_thread *t)
{
	struct st_op *op;
	int i, d, n = 0;

	for (i = 0; i < t->npairs; i++) {
		struct st_pair *p = &t->pairs[i];

		for (d = 0; d < 2; d++)
			pr_info("thread %d pair %d dir %d: inflight %d send_seq %llu recv_seq %llu ts %llu tr %llu tdone %llu trig_rx %d wd %llu/%llu shutdown %d\n",
				t->id, i, d, p->inflight, p->d[d].send_seq,
				p->d[d].recv_seq, p->d[d].ts, p->d[d].tr,
				p->d[d].tdone, p->d[d].trig_rx,
				p->d[d].wd_seen, p->d[d].wd_sent,
				p->s[d].shutdown);
	}
	list_for_each_entry(op, &t->live, node) {
		if (n++ == 16)
			break;
		pr_info("thread %d live op: kind %u pair %d side %u seq %llu len %zu trig %d threshold %llu (counter %llu) cancel %u\n",
			t->id, op->kind, op->p->idx, op->side, op->seq, op->len,
			op->trig, op->threshold, t->tval, op->cancel);
	}
}

static void st_check_stall(struct st_thread *t, const char *what)
{
	if (!t->abort && time_after(jiffies, t->last_progress + ST_STALL)) {
		st_err(t, "stalled %u s in %s", ST_STALL / HZ, what);
		st_dump_stall(t);
	}
}

static struct st_side *st_side_of(struct st_thread *t, struct kfid *fid,
				  struct st_pair **pp, int *sp)
{
	int i, s;

	for (i = 0; i < t->npairs; i++)
		for (s = 0; s < 2; s++)
			if (t->pairs[i].s[s].ep && &t->pairs[i].s[s].ep->fid == fid) {
				*pp = &t->pairs[i];
				*sp = s;
				return &t->pairs[i].s[s];
			}
	return NULL;
}

struct st_cm_event {
	struct kfi_eq_cm_entry e;
	u8 data[256];
};

static void st_eq_poll(struct st_thread *t)
{
	struct st_cm_event ev;
	struct kfi_eq_err_entry err;
	struct st_pair *p;
	struct st_side *s;
	uint32_t type;
	ssize_t rc;
	int si;

	for (;;) {
		memset(&ev, 0, sizeof(ev));
		rc = kfi_eq_read(t->eq, &type, &ev, sizeof(ev), 0);
		if (rc == -EAGAIN)
			return;
		if (rc == -KFI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			if (kfi_eq_readerr(t->eq, &err, 0) > 0)
				st_err(t, "EQ error entry: err %d prov %d",
				       err.err, err.prov_errno);
			continue;
		}
		if (rc < 0) {
			st_err(t, "kfi_eq_read: %zd", rc);
			return;
		}
		t->last_progress = jiffies;
		if (type == KFI_CONNREQ) {
			if (t->connreq || ev.e.fid != &t->pep->fid) {
				st_err(t, "unexpected KFI_CONNREQ");
				kfi_freeinfo(ev.e.info);
				continue;
			}
			t->connreq = ev.e.info;
			continue;
		}
		s = st_side_of(t, ev.e.fid, &p, &si);
		if (!s) {
			st_err(t, "EQ event %u for an unknown fid", type);
			continue;
		}
		if (type == KFI_CONNECTED && !s->connected) {
			s->connected = true;
		} else if (type == KFI_SHUTDOWN && !s->shutdown) {
			s->shutdown = true;
			if (!p->closing)
				st_err(t, "KFI_SHUTDOWN on pair %d side %d mid-run",
				       p->idx, si);
		} else {
			st_err(t, "EQ event %u on pair %d side %d (connected %d shutdown %d)",
			       type, p->idx, si, s->connected, s->shutdown);
		}
	}
}

static struct st_op *st_op_of(struct st_thread *t, void *ctx, bool err)
{
	struct st_op *op = ctx;

	if (!op || op->magic != ST_MAGIC || op->p->t != t) {
		st_err(t, "%s entry with a context that is no operation: %p",
		       err ? "error" : "success", ctx);
		return NULL;
	}
	if (op->state != ST_POSTED) {
		st_err(t, "second completion of op kind %u seq %llu (state %u)",
		       op->kind, op->seq, op->state);
		return NULL;
	}
	return op;
}

static u64 st_op_flags(const struct st_op *op)
{
	switch (op->kind) {
	case OP_SEND:
		return KFI_MSG | KFI_SEND;
	case OP_TSEND:
		return KFI_TAGGED | KFI_SEND;
	case OP_WRITE:
		return KFI_RMA | KFI_WRITE;
	case OP_READ:
		return KFI_RMA | KFI_READ;
	case OP_RECV:
		return KFI_MSG | KFI_RECV;
	default:
		return KFI_TAGGED | KFI_RECV;
	}
}

/* The operation is accounted: off the live list, its slot given back. */
static void st_retire(struct st_thread *t, struct st_op *op)
{
	struct st_pair *p = op->p;
	int i;

	if (op->kind <= OP_READ)
		p->inflight--;
	if (op->kind == OP_RECV && op->rslot >= 0 &&
	    p->s[op->side].rop[op->rslot] == op)
		p->s[op->side].rop[op->rslot] = NULL;
	if (op->kind == OP_TRECV && op->trig)
		p->d[1 - op->side].trig_rx--;
	if (op->trig) {
		for (i = 0; i < t->ntrig; i++)
			if (t->trigs[i] == op) {
				t->trigs[i] = t->trigs[--t->ntrig];
				break;
			}
		if (op->kind == OP_WRITE)
			p->s[1 - op->side].trig_write = false;
	}
	op->state = ST_DONE;
	st_op_free(op);
}

static void st_recv_done(struct st_thread *t, struct st_op *op,
			 const struct kfi_cq_tagged_entry *e)
{
	struct st_pair *p = op->p;
	int d = 1 - op->side;
	struct st_dir *dir = &p->d[d];
	struct st_msg *m;
	u64 want = st_op_flags(op);

	if (op->kind == OP_RECV) {
		if (dir->recv_seq == dir->send_seq) {
			st_err(t, "pair %d dir %d: a message nobody sent (len %zu)",
			       p->idx, d, e->len);
			return;
		}
		m = &dir->fifo[dir->recv_seq % ST_FIFO];
		if (m->has_data)
			want |= KFI_REMOTE_CQ_DATA;
		if (e->flags != want || e->len != m->len ||
		    (m->has_data && e->data != m->data)) {
			st_err(t, "pair %d dir %d msg %llu: flags %#llx len %zu data %#llx, want %#llx %u %#llx",
			       p->idx, d, m->seq, e->flags, e->len, e->data,
			       want, m->len, m->data);
		} else if (!st_iov_matches(t, op->iov, op->nseg, m->len,
					   m->off)) {
			st_err(t, "pair %d dir %d msg %llu: %u bytes differ from what was sent",
			       p->idx, d, m->seq, m->len);
		} else {
			t->st.verified += m->len;
		}
		dir->recv_seq++;
		t->st.recv++;
		return;
	}
	/* tagged */
	if (op->has_data)
		want |= KFI_REMOTE_CQ_DATA;
	if (e->flags != want || e->len != op->len || e->tag != op->tag ||
	    (op->has_data && e->data != op->data)) {
		st_err(t, "pair %d dir %d tagged %llu: flags %#llx len %zu tag %#llx data %#llx, want %#llx %zu %#llx %#llx",
		       p->idx, d, op->seq, e->flags, e->len, e->tag, e->data,
		       want, op->len, op->tag, op->data);
	} else if (!st_iov_matches(t, op->iov, op->nseg, op->len, op->off)) {
		st_err(t, "pair %d dir %d tagged %llu: %zu bytes differ",
		       p->idx, d, op->seq, op->len);
	} else {
		t->st.verified += op->len;
	}
	if (!op->trig)
		dir->tdone++;
	t->st.trecv++;
}

static void st_apply_shadow(struct st_side *dst, u32 roff, const u8 *src,
			    size_t len)
{
	memcpy(dst->shadow + roff, src, len);
}

/* A remote write with CQ data landed in one of our regions. */
static void st_writedata_seen(struct st_thread *t,
			      const struct kfi_cq_tagged_entry *e)
{
	u64 want = KFI_RMA | KFI_REMOTE_WRITE | KFI_REMOTE_CQ_DATA;
	u64 data = e->data;
	int idx = (data >> 40) & 0xff, d = (data >> 39) & 1;
	struct st_dir *dir;

	if (e->flags != want || (data >> 48) != ST_WD_MAGIC ||
	    idx >= t->npairs) {
		st_err(t, "remote write entry flags %#llx data %#llx", e->flags,
		       data);
		return;
	}
	dir = &t->pairs[idx].d[d];
	if ((data & ((1ULL << 39) - 1)) != dir->wd_seen) {
		st_err(t, "pair %d dir %d: writedata %llu arrived, %llu expected",
		       idx, d, data & ((1ULL << 39) - 1), dir->wd_seen);
		return;
	}
	dir->wd_seen++;
	t->st.wd_seen++;
}

/* Where a read differs: the region offset, and whether it got later data. */
static void st_read_mismatch(struct st_thread *t, struct st_op *op)
{
	struct st_side *dst = &op->p->s[1 - op->side];
	const u8 *got = op->buf, *want = op->expect;
	size_t i, at = 0, bad = 0, later = 0, first = op->len;
	u64 roff = 0;
	int k;

	for (k = 0; k < op->nriov; k++) {
		for (i = 0; i < op->riov[k].len; i++, at++) {
			u64 o = op->riov[k].addr - dst->base + i;

			if (got[at] == want[at])
				continue;
			if (first == op->len) {
				first = at;
				roff = o;
			}
			bad++;
			later += got[at] == dst->shadow[o];
		}
	}
	st_err(t, "pair %d side %d: read of %zu bytes in %d pieces differs from the region's shadow when posted: %zu bytes, first at %zu (region offset %llu: got %#x want %#x); %zu of them hold what later writes put there",
	       op->p->idx, op->side, op->len, op->nriov, bad, first, roff,
	       first < op->len ? got[first] : 0,
	       first < op->len ? want[first] : 0, later);
}

static void st_handle(struct st_thread *t, const struct kfi_cq_tagged_entry *e,
		      bool rx)
{
	struct st_op *op;

	t->st.completions++;
	if (rx && (e->flags & KFI_REMOTE_WRITE)) {
		st_writedata_seen(t, e);
		return;
	}
	op = st_op_of(t, e->op_context, false);
	if (!op)
		return;
	if (op->cancel == CANCEL_OK || op->cancel == CANCEL_FLUSH) {
		st_err(t, "op kind %u seq %llu completed after a successful cancel/flush",
		       op->kind, op->seq);
	}
	if (rx != (op->kind >= OP_RECV)) {
		st_err(t, "op kind %u on the wrong CQ", op->kind);
		return;
	}
	switch (op->kind) {
	case OP_RECV:
	case OP_TRECV:
		st_recv_done(t, op, e);
		t->exp_recv[0]++;
		break;
	case OP_READ:
		if (e->flags != st_op_flags(op)) {
			st_err(t, "read entry flags %#llx", e->flags);
		} else if (memcmp(op->buf, op->expect, op->len)) {
			st_read_mismatch(t, op);
		} else {
			t->st.verified += op->len;
		}
		t->exp_rma[0]++;
		break;
	case OP_WRITE:
		if (e->flags != st_op_flags(op))
			st_err(t, "write entry flags %#llx", e->flags);
		if (op->trig) {
			/* it fired and its bytes left: later posts follow it */
			st_apply_shadow(&op->p->s[1 - op->side], op->roff,
					t->run->pool + op->off, op->len);
			t->st.trig_fired++;
		}
		t->exp_rma[0]++;
		break;
	default:
		if (e->flags != st_op_flags(op))
			st_err(t, "send entry flags %#llx, want %#llx", e->flags,
			       st_op_flags(op));
		if (op->trig)
			t->st.trig_fired++;
		t->exp_send[0]++;
		break;
	}
	st_retire(t, op);
}

static void st_handle_err(struct st_thread *t, const struct kfi_cq_err_entry *e)
{
	struct st_op *op;
	bool ok;

	t->st.completions++;
	t->st.err_entries++;
	op = st_op_of(t, e->op_context, true);
	if (!op)
		return;
	ok = e->err == ECANCELED &&
	     (op->cancel == CANCEL_OK || op->cancel == CANCEL_FLUSH) &&
	     e->flags == st_op_flags(op);
	if (!ok) {
		st_err(t, "error entry err %d flags %#llx for op kind %u seq %llu pair %d side %d (cancel state %u)",
		       e->err, e->flags, op->kind, op->seq, op->p->idx,
		       op->side, op->cancel);
	}
	if (op->cancel == CANCEL_FLUSH)
		t->st.flushed++;
	switch (op->kind) {
	case OP_RECV:
	case OP_TRECV:
		t->exp_recv[1]++;
		break;
	case OP_READ:
	case OP_WRITE:
		t->exp_rma[1]++;
		break;
	default:
		t->exp_send[1]++;
		break;
	}
	st_retire(t, op);
}

static int st_drain(struct st_thread *t, struct kfid_cq *cq, bool rx)
{
	struct kfi_cq_tagged_entry e[8];	/* KASAN: frame under 1024 B */
	struct kfi_cq_err_entry err;
	int got = 0;
	ssize_t n, i;

	for (;;) {
		n = kfi_cq_read(cq, e, ARRAY_SIZE(e));
		if (n > 0) {
			for (i = 0; i < n; i++)
				st_handle(t, &e[i], rx);
			got += n;
			continue;
		}
		if (n == -KFI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			if (kfi_cq_readerr(cq, &err, 0) != 1) {
				st_err(t, "kfi_cq_readerr found nothing after -KFI_EAVAIL");
				return got;
			}
			st_handle_err(t, &err);
			got++;
			continue;
		}
		if (n != -EAGAIN)
			st_err(t, "kfi_cq_read: %zd", n);
		return got;
	}
}

static void st_post_recvs(struct st_thread *t, struct st_pair *p, bool all);

/* Reads every CQ and the EQ, and posts the receives owed. */
static void st_progress(struct st_thread *t)
{
	int got, i;

	t->depth++;
	got = st_drain(t, t->txcq, false) + st_drain(t, t->rxcq, true);
	st_eq_poll(t);
	if (got)
		t->last_progress = jiffies;
	/* not from a post retrying inside a receive post */
	for (i = 0; i < t->npairs && t->depth == 1; i++)
		st_post_recvs(t, &t->pairs[i], false);
	t->depth--;
}

static void st_cq_handler(struct kfid_cq *cq, void *context)
{
	struct st_thread *t = context;

	atomic_inc(&t->calls);
	wake_up(&t->wq);
}

/* Progress, then a short wait for more (a blocking read or the handler). */
static void st_wait(struct st_thread *t)
{
	struct kfi_cq_tagged_entry e;
	int calls = atomic_read(&t->calls);
	ssize_t n;

	st_progress(t);
	if (t->handler) {
		wait_event_timeout(t->wq, atomic_read(&t->calls) != calls, 2);
		return;
	}
	n = kfi_cq_sread(st_below(t, 2) ? t->rxcq : t->txcq, &e, 1, NULL, 2);
	if (n == 1) {
		/* sread does not say which CQ: ask the entry */
		st_handle(t, &e, !!(e.flags & (KFI_RECV | KFI_REMOTE_WRITE)));
		t->last_progress = jiffies;
	}
	/* an error entry at the head is read by the next progress */
}

/* ------------------------------------------------------------ receives */

static void st_post_recv(struct st_thread *t, struct st_pair *p, int s,
			 int slot)
{
	struct st_side *sd = &p->s[s];
	struct st_op *op = st_op_new(t, p, OP_RECV, s);
	u8 *b = sd->rbuf[slot];
	u32 v = st_below(t, 3);
	ssize_t rc;

	if (!op)
		return;
	op->rslot = slot;
	if (v == 0) {
		op->nseg = 1;
		op->iov[0] = (struct kvec){ b, ST_RBUF };
		rc = ST_POST(t, kfi_recv(sd->ep, b, ST_RBUF, NULL, 0, op));
	} else if (v == 1) {
		/* the second half first: placement is checked */
		op->nseg = 3;
		op->iov[0] = (struct kvec){ b + ST_RBUF / 2, ST_RBUF / 2 };
		op->iov[1] = (struct kvec){ b, 1000 };
		op->iov[2] = (struct kvec){ b + 1000, ST_RBUF / 2 - 1000 };
		rc = ST_POST(t, kfi_recvv(sd->ep, op->iov, NULL, 3, 0, op));
	} else {
		struct kfi_msg m = { .type = KFI_BVEC, .msg_biov = t->rbv,
				     .context = op };

		op->nseg = 1;
		op->iov[0] = (struct kvec){ b + 100, ST_RBUF - 100 };
		m.iov_count = st_bvecs(t->rbv, b + 100, ST_RBUF - 100);
		rc = ST_POST(t, kfi_recvmsg(sd->ep, &m, KFI_COMPLETION));
	}
	if (rc) {
		if (!t->abort)
			st_err(t, "posting a receive: %zd", rc);
		st_op_free(op);
		return;
	}
	sd->rop[slot] = op;
	st_op_posted(t, op);
}

/* Tagged receive for message @k of direction @d (into side 1 - d). */
static struct st_op *st_post_trecv(struct st_thread *t, struct st_pair *p,
				   int d, u64 k, bool trig)
{
	struct st_side *sd = &p->s[1 - d];
	u64 r = st_key(t, p, d, k, trig ? 0x77 : 0x55);
	struct st_op *op = st_op_new(t, p, OP_TRECV, 1 - d);
	size_t slack = st_below(t, 3) ? 0 : st_below(t, 64) + 1;
	u64 junk = (r >> 60) & 0xf;
	ssize_t rc;

	if (!op)
		return NULL;
	op->trig = trig;
	op->seq = k;
	op->len = st_size_from(r, ST_MAXMSG);
	op->off = st_pool_off(st_mix(r), op->len);
	op->tag = (trig ? ST_TRIG_TAG : 0) | ((u64)d << 40) | k |
		  (junk << ST_JUNK_SHIFT);
	op->has_data = (r >> 20) & 1;
	op->data = st_mix(r ^ 0xda7a);
	op->buf = kvmalloc(op->len + slack + 1, GFP_KERNEL);
	if (!op->buf) {
		st_err(t, "out of memory");
		kfree(op);
		return NULL;
	}
	if (op->len + slack > 2 && st_below(t, 2)) {
		size_t a = (op->len + slack) / 2;

		/* two segments, the second placed first */
		op->nseg = 2;
		op->iov[0] = (struct kvec){ (u8 *)op->buf + (op->len + slack - a), a };
		op->iov[1] = (struct kvec){ op->buf, op->len + slack - a };
		rc = ST_POST(t, kfi_trecvv(sd->ep, op->iov, NULL, 2, 0,
					   op->tag & ~ST_IGNORE, ST_IGNORE, op));
	} else {
		op->nseg = 1;
		op->iov[0] = (struct kvec){ op->buf, op->len + slack };
		rc = ST_POST(t, kfi_trecv(sd->ep, op->buf, op->len + slack,
					  NULL, 0, op->tag & ~ST_IGNORE,
					  ST_IGNORE, op));
	}
	if (rc) {
		if (!t->abort)
			st_err(t, "posting a tagged receive: %zd", rc);
		kvfree(op->buf);
		kfree(op);
		return NULL;
	}
	st_op_posted(t, op);
	return op;
}

/*
 * Keeps ST_NRECV untagged receives posted on each open endpoint, and
 * posts the receives of tagged messages already sent (all of them with
 * @all, else only when many are waiting).
 */
static void st_post_recvs(struct st_thread *t, struct st_pair *p, bool all)
{
	int s, i, d;

	if (p->closing || t->abort)
		return;
	for (s = 0; s < 2; s++) {
		if (!p->s[s].ep)
			continue;
		for (i = 0; i < ST_NRECV; i++)
			if (!p->s[s].rop[i])
				st_post_recv(t, p, s, i);
	}
	for (d = 0; d < 2; d++) {
		struct st_dir *dir = &p->d[d];

		while (dir->tr < dir->ts &&
		       (all || dir->ts - dir->tr > ST_TWINDOW / 2) && !t->abort) {
			if (!st_post_trecv(t, p, d, dir->tr, false))
				return;
			dir->tr++;
		}
	}
}

/* ------------------------------------------------------------ the mix */

/* A window of the pool as one to three segments (alternating copies). */
static int st_src_iov(struct st_thread *t, struct kvec *iov, u32 off,
		      size_t len)
{
	int n = len >= 3 ? 1 + st_below(t, 3) : 1, i;
	size_t at = 0, k;

	for (i = 0; i < n; i++) {
		k = i == n - 1 ? len - at : st_below(t, len - at);
		iov[i] = (struct kvec){ (void *)st_pool_at(t, off + at, i), k };
		at += k;
	}
	return n;
}

static void st_do_send(struct st_thread *t, struct st_pair *p, int d)
{
	struct st_dir *dir = &p->d[d];
	struct kfid_ep *ep = p->s[d].ep;
	u64 r = st_key(t, p, d, dir->send_seq, 0x11);
	struct st_msg *m;
	struct st_op *op = NULL;
	struct kvec iov[3];
	u32 v = st_below(t, 10);
	ssize_t rc;
	int n;

	if (dir->send_seq - dir->recv_seq >= ST_FIFO)
		return;
	m = &dir->fifo[dir->send_seq % ST_FIFO];
	m->seq = dir->send_seq;
	m->len = st_size_from(r, v < 3 ? ST_INJECT : ST_MAXMSG);
	m->off = st_pool_off(st_mix(r), m->len);
	m->has_data = (r >> 40) & 1;
	m->data = st_mix(r ^ 0xda7a);
	if (v < 3) {
		/* inject: no completion; counted on the send counter */
		rc = ST_POST(t, m->has_data ?
				 kfi_injectdata(ep, t->run->pool + m->off, m->len,
						m->data, 0) :
				 kfi_inject(ep, t->run->pool + m->off, m->len, 0));
		if (rc) {
			st_err(t, "inject: %zd", rc);
			return;
		}
		t->exp_send[0]++;
		t->st.inject++;
	} else {
		op = st_op_new(t, p, OP_SEND, d);
		if (!op)
			return;
		op->seq = m->seq;
		op->len = m->len;
		if (v < 5) {
			rc = ST_POST(t, m->has_data ?
					 kfi_senddata(ep, t->run->pool + m->off,
						      m->len, NULL, m->data, 0, op) :
					 kfi_send(ep, t->run->pool + m->off,
						  m->len, NULL, 0, op));
		} else if (v < 7 && !m->has_data) {
			n = st_src_iov(t, iov, m->off, m->len);
			rc = ST_POST(t, kfi_sendv(ep, iov, NULL, n, 0, op));
		} else {
			struct kfi_msg msg = { .type = KFI_BVEC,
					       .msg_biov = t->bv,
					       .context = op,
					       .data = m->data };
			u64 flags = KFI_COMPLETION |
				    (m->has_data ? KFI_REMOTE_CQ_DATA : 0);

			if (v == 8)
				flags |= KFI_TRANSMIT_COMPLETE;
			else if (v == 9)
				flags |= KFI_DELIVERY_COMPLETE;
			msg.iov_count = st_bvecs(t->bv, t->run->pool + m->off,
						 m->len);
			rc = ST_POST(t, kfi_sendmsg(ep, &msg, flags));
		}
		if (rc) {
			st_err(t, "send: %zd", rc);
			kfree(op);
			return;
		}
		st_op_posted(t, op);
		t->st.send++;
	}
	t->st.bytes += m->len;
	dir->send_seq++;
}

static void st_do_tsend(struct st_thread *t, struct st_pair *p, int d)
{
	struct st_dir *dir = &p->d[d];
	struct kfid_ep *ep = p->s[d].ep;
	u64 k = dir->ts, r = st_key(t, p, d, k, 0x55);
	size_t len = st_size_from(r, ST_MAXMSG);
	u32 off = st_pool_off(st_mix(r), len);
	u64 tag = ((u64)d << 40) | k | (((r >> 60) & 0xf) << ST_JUNK_SHIFT);
	bool has_data = (r >> 20) & 1;
	u64 data = st_mix(r ^ 0xda7a);
	struct st_op *op;
	struct kvec iov[3];
	ssize_t rc;
	int n;

	if (dir->ts - dir->tdone >= ST_TWINDOW)
		return;
	if (len <= ST_INJECT && st_below(t, 2)) {
		rc = ST_POST(t, has_data ?
				 kfi_tinjectdata(ep, t->run->pool + off, len,
						 data, 0, tag) :
				 kfi_tinject(ep, t->run->pool + off, len, 0, tag));
		if (rc) {
			st_err(t, "tinject: %zd", rc);
			return;
		}
		t->exp_send[0]++;
		t->st.tinject++;
	} else {
		op = st_op_new(t, p, OP_TSEND, d);
		if (!op)
			return;
		op->seq = k;
		if (has_data) {
			rc = ST_POST(t, kfi_tsenddata(ep, t->run->pool + off, len,
						      NULL, data, 0, tag, op));
		} else {
			n = st_src_iov(t, iov, off, len);
			rc = ST_POST(t, kfi_tsendv(ep, iov, NULL, n, 0, tag, op));
		}
		if (rc) {
			st_err(t, "tsend: %zd", rc);
			kfree(op);
			return;
		}
		st_op_posted(t, op);
		t->st.tsend++;
	}
	t->st.bytes += len;
	dir->ts++;
}

/* A receive posted before its tagged message is sent. */
static void st_do_trecv_ahead(struct st_thread *t, struct st_pair *p, int d)
{
	struct st_dir *dir = &p->d[d];

	if (dir->tr < dir->ts || dir->tr - dir->ts >= ST_TWINDOW / 2)
		return;
	if (st_post_trecv(t, p, d, dir->tr, false))
		dir->tr++;
}

/*
 * Remote segments: [a, a + len) of the target's region cut into @n
 * pieces, listed in a random order. The local bytes map to the pieces in
 * list order.
 */
static int st_rma_iov(struct st_thread *t, struct st_side *dst,
		      struct kfi_rma_iov *riov, u32 a, size_t len)
{
	int n, i, j;
	size_t at = 0, k;
	struct kfi_rma_iov tmp;

	n = st_below(t, 10) ? 1 + st_below(t, 4) : 5 + st_below(t, 4);
	n = min_t(size_t, n, len);
	for (i = 0; i < n; i++) {
		k = i == n - 1 ? len - at : 1 + st_below(t, len - at - (n - 1 - i));
		riov[i] = (struct kfi_rma_iov){ .addr = dst->base + a + at,
						.len = k, .key = dst->key };
		at += k;
	}
	for (i = n - 1; i > 0; i--) {
		j = st_below(t, i + 1);
		tmp = riov[i];
		riov[i] = riov[j];
		riov[j] = tmp;
	}
	return n;
}

/* Target frames (counted on the target's remote counter) of @n regions. */
static u64 st_frames(int n)
{
	return DIV_ROUND_UP(n, 4);
}

static void st_do_write(struct st_thread *t, struct st_pair *p, int d)
{
	struct st_side *dst = &p->s[1 - d];
	struct kfid_ep *ep = p->s[d].ep;
	size_t len = max_t(size_t, 1, st_size_from(st_rand(t), ST_REG_NORMAL / 2));
	u32 a = st_below(t, ST_REG_NORMAL - len + 1);
	u32 off = st_pool_off(st_rand(t), len);
	struct kfi_rma_iov riov[8];
	struct kvec iov[3];
	u32 v = st_below(t, 10);
	struct st_op *op;
	size_t at = 0;
	ssize_t rc;
	int n, i;

	if (v < 2 && len <= ST_INJECT) {
		rc = ST_POST(t, kfi_inject_write(ep, t->run->pool + off, len, 0,
						 dst->base + a, dst->key));
		if (rc) {
			st_err(t, "inject_write: %zd", rc);
			return;
		}
		st_apply_shadow(dst, a, t->run->pool + off, len);
		t->exp_rma[0]++;
		t->exp_remote++;
		t->st.inject_write++;
		t->st.bytes += len;
		return;
	}
	op = st_op_new(t, p, OP_WRITE, d);
	if (!op)
		return;
	op->len = len;
	if (v < 4) {
		n = 1;
		riov[0] = (struct kfi_rma_iov){ dst->base + a, len, dst->key };
		if (v == 3) {
			u64 data = (ST_WD_MAGIC << 48) | ((u64)p->idx << 40) |
				   ((u64)d << 39) | p->d[d].wd_sent;

			rc = ST_POST(t, kfi_writedata(ep, t->run->pool + off, len,
						      NULL, data, 0, dst->base + a,
						      dst->key, op));
			if (!rc)
				p->d[d].wd_sent++;
		} else {
			rc = ST_POST(t, kfi_write(ep, t->run->pool + off, len,
						  NULL, 0, dst->base + a,
						  dst->key, op));
		}
	} else {
		struct kfi_msg_rma m = { .type = KFI_KVEC, .msg_iov = iov,
					 .rma_iov = riov, .context = op };
		u64 flags = KFI_COMPLETION;

		n = st_rma_iov(t, dst, riov, a, len);
		m.iov_count = st_src_iov(t, iov, off, len);
		m.rma_iov_count = n;
		if (v == 8)
			flags |= KFI_DELIVERY_COMPLETE;
		else if (v == 9)
			flags |= KFI_TRANSMIT_COMPLETE | KFI_FENCE;
		rc = ST_POST(t, kfi_writemsg(ep, &m, flags));
	}
	if (rc) {
		st_err(t, "write: %zd", rc);
		kfree(op);
		return;
	}
	/* the shadow follows the stream: later reads see this write */
	for (i = 0; i < n; i++) {
		st_apply_shadow(dst, riov[i].addr - dst->base,
				t->run->pool + off + at, riov[i].len);
		at += riov[i].len;
	}
	t->exp_remote += st_frames(n);
	st_op_posted(t, op);
	t->st.write++;
	t->st.bytes += len;
}

static void st_do_read(struct st_thread *t, struct st_pair *p, int d)
{
	struct st_side *dst = &p->s[1 - d];
	struct kfid_ep *ep = p->s[d].ep;
	size_t area = dst->trig_write ? ST_REG_NORMAL : ST_REG;
	size_t len = max_t(size_t, 1, st_size_from(st_rand(t), area / 2));
	u32 a = st_below(t, area - len + 1);
	struct kfi_rma_iov riov[8];
	struct kfi_msg_rma m = { .type = KFI_KVEC, .rma_iov = riov };
	struct st_op *op = st_op_new(t, p, OP_READ, d);
	size_t at = 0;
	ssize_t rc;
	int n, i;

	if (!op)
		return;
	op->len = len;
	op->buf = kvmalloc(len, GFP_KERNEL);
	op->expect = kvmalloc(len, GFP_KERNEL);
	if (!op->buf || !op->expect) {
		st_err(t, "out of memory");
		st_op_free(op);
		return;
	}
	memset(op->buf, 0x5a, len);
	n = st_rma_iov(t, dst, riov, a, len);
	memcpy(op->riov, riov, n * sizeof(*riov));
	op->nriov = n;
	for (i = 0; i < n; i++) {
		memcpy(op->expect + at, dst->shadow + (riov[i].addr - dst->base),
		       riov[i].len);
		at += riov[i].len;
	}
	if (n == 1 && st_below(t, 2)) {
		rc = ST_POST(t, kfi_read(ep, op->buf, len, NULL, 0, riov[0].addr,
					 riov[0].key, op));
	} else {
		size_t h = st_below(t, len + 1);

		/* local: the second part first */
		op->iov[0] = (struct kvec){ (u8 *)op->buf, h };
		op->iov[1] = (struct kvec){ (u8 *)op->buf + h, len - h };
		m.msg_iov = op->iov;
		m.iov_count = 2;
		m.rma_iov_count = n;
		m.context = op;
		rc = ST_POST(t, kfi_readmsg(ep, &m, KFI_COMPLETION));
	}
	if (rc) {
		st_err(t, "read: %zd", rc);
		st_op_free(op);
		return;
	}
	t->exp_remote += st_frames(n);
	st_op_posted(t, op);
	t->st.read++;
	t->st.bytes += len;
}

/* Cancels a posted untagged receive, or a tagged one posted ahead. */
static void st_do_cancel(struct st_thread *t, struct st_pair *p, int s)
{
	struct st_side *sd = &p->s[s];
	struct st_dir *dir = &p->d[1 - s];
	struct st_op *op;
	ssize_t rc;

	if (st_below(t, 2)) {
		op = sd->rop[st_below(t, ST_NRECV)];
		if (!op)
			return;
		rc = kfi_cancel(&sd->ep->fid, op);
		if (rc == 0) {
			op->cancel = CANCEL_OK;
			t->st.cancel_ok++;
		} else if (rc == -ENOENT) {
			/* taken by a message: its completion must come */
			op->cancel = CANCEL_LATE;
			t->st.cancel_late++;
		} else {
			st_err(t, "kfi_cancel of a receive: %zd", rc);
		}
		return;
	}
	/* a receive for a tagged message not sent yet: must cancel */
	if (dir->tr < dir->ts)
		return;
	op = st_post_trecv(t, p, 1 - s, dir->tr, false);
	if (!op)
		return;
	rc = kfi_cancel(&sd->ep->fid, op);
	if (rc) {
		st_err(t, "kfi_cancel of a tagged receive nothing matched: %zd",
		       rc);
		return;
	}
	op->cancel = CANCEL_OK;
	t->st.cancel_ok++;
	/* dir->tr stays: the message gets another receive */
}

static void st_do_cntr_add(struct st_thread *t)
{
	u64 n = 1 + st_below(t, 3);
	int rc = kfi_cntr_add(t->c_trig, n);

	if (rc) {
		st_err(t, "kfi_cntr_add: %d", rc);
		return;
	}
	t->tval += n;
	t->st.cntr_adds++;
	if (!kfi_cntr_add(t->run->gcntr, 1))
		atomic64_inc(&t->run->gadds);
}

/* A triggered tagged send (its receive posted first) or RMA write. */
static void st_do_trig(struct st_thread *t, struct st_pair *p, int d)
{
	struct st_dir *dir = &p->d[d];
	struct st_side *dst = &p->s[1 - d];
	struct kfid_ep *ep = p->s[d].ep;
	struct st_op *op, *rop = NULL;
	ssize_t rc;

	if (t->ntrig >= ST_MAX_TRIG)
		return;
	if (!trig_writes || st_below(t, 2) || dst->trig_write) {
		u64 j = dir->trig_j;
		struct kvec iov;
		struct kfi_msg_tagged m = { .type = KFI_KVEC, .msg_iov = &iov,
					    .iov_count = 1 };

		rop = st_post_trecv(t, p, d, j, true);
		if (!rop)
			return;
		dir->trig_rx++;
		op = st_op_new(t, p, OP_TSEND, d);
		if (!op)
			return;
		op->trecv = rop;
		op->seq = j;
		op->len = rop->len;
		iov = (struct kvec){ t->run->pool + rop->off, rop->len };
		m.tag = rop->tag;
		m.data = rop->data;
		m.context = op;
		op->trig = true;
		op->tctx.event_type = KFI_TRIGGER_THRESHOLD;
		op->tctx.trigger.threshold.cntr = t->c_trig;
		op->threshold = t->tval + 1 + st_below(t, 4);
		op->tctx.trigger.threshold.threshold = op->threshold;
		rc = ST_POST(t, kfi_tsendmsg(ep, &m, KFI_TRIGGER | KFI_COMPLETION |
					     (rop->has_data ? KFI_REMOTE_CQ_DATA : 0)));
		dir->trig_j++;
	} else {
		struct kvec iov;
		struct kfi_rma_iov riov;
		struct kfi_msg_rma m = { .type = KFI_KVEC, .msg_iov = &iov,
					 .iov_count = 1, .rma_iov = &riov,
					 .rma_iov_count = 1 };

		op = st_op_new(t, p, OP_WRITE, d);
		if (!op)
			return;
		op->len = 1 + st_below(t, ST_REG_TRIG);
		op->roff = ST_REG_NORMAL + st_below(t, ST_REG_TRIG - op->len + 1);
		op->off = st_pool_off(st_rand(t), op->len);
		iov = (struct kvec){ t->run->pool + op->off, op->len };
		riov = (struct kfi_rma_iov){ dst->base + op->roff, op->len,
					     dst->key };
		m.context = op;
		op->trig = true;
		op->tctx.event_type = KFI_TRIGGER_THRESHOLD;
		op->tctx.trigger.threshold.cntr = t->c_trig;
		op->threshold = t->tval + 1 + st_below(t, 4);
		op->tctx.trigger.threshold.threshold = op->threshold;
		rc = ST_POST(t, kfi_writemsg(ep, &m, KFI_TRIGGER | KFI_COMPLETION));
		if (!rc) {
			dst->trig_write = true;
			t->exp_remote++;
		}
	}
	if (rc) {
		st_err(t, "triggered post: %zd", rc);
		kfree(op);
		return;
	}
	st_op_posted(t, op);
	t->trigs[t->ntrig++] = op;
	t->st.trig_posted++;
	t->st.bytes += op->len;
}

/* Cancels a pending triggered operation (none has fired: all above tval). */
static void st_do_trig_cancel(struct st_thread *t)
{
	struct st_op *op;
	ssize_t rc;

	if (!t->ntrig)
		return;
	op = t->trigs[st_below(t, t->ntrig)];
	if (op->threshold <= t->tval || op->cancel)
		return;
	rc = kfi_cancel(&op->p->s[op->side].ep->fid, op);
	if (rc) {
		st_err(t, "kfi_cancel of a pending triggered op: %zd", rc);
		return;
	}
	op->cancel = CANCEL_OK;
	t->st.trig_cancelled++;
	if (op->kind == OP_WRITE) {
		t->exp_remote--;
		return;
	}
	/* its message never goes: its receive must cancel too */
	rc = kfi_cancel(&op->p->s[1 - op->side].ep->fid, op->trecv);
	if (rc) {
		st_err(t, "kfi_cancel of a cancelled triggered send's receive: %zd",
		       rc);
		return;
	}
	op->trecv->cancel = CANCEL_OK;
}

/* Fires every pending triggered operation of the thread. */
static void st_fire_all(struct st_thread *t)
{
	u64 top = t->tval;
	int i;

	for (i = 0; i < t->ntrig; i++)
		if (!t->trigs[i]->cancel)
			top = max(top, t->trigs[i]->threshold);
	if (top > t->tval) {
		if (kfi_cntr_add(t->c_trig, top - t->tval))
			st_err(t, "kfi_cntr_add");
		t->st.cntr_adds++;
		t->tval = top;
	}
}

/* --------------------------------------------------- connection life */

static int st_ep_open(struct st_thread *t, struct kfi_info *info,
		      struct kfid_ep **ep)
{
	struct kfid_ep *e;
	int rc;

	rc = kfi_endpoint(t->run->dom, info, &e, t);
	if (rc)
		return rc;
	rc = kfi_ep_bind(e, &t->eq->fid, 0) ?:
	     kfi_ep_bind(e, &t->txcq->fid, KFI_TRANSMIT) ?:
	     kfi_ep_bind(e, &t->rxcq->fid, KFI_RECV) ?:
	     kfi_ep_bind(e, &t->c_send->fid, KFI_SEND) ?:
	     kfi_ep_bind(e, &t->c_recv->fid, KFI_RECV) ?:
	     kfi_ep_bind(e, &t->c_rma->fid, KFI_READ | KFI_WRITE) ?:
	     kfi_ep_bind(e, &t->c_remote->fid,
			 KFI_REMOTE_READ | KFI_REMOTE_WRITE) ?:
	     kfi_enable(e);
	if (rc) {
		kfi_close(&e->fid);
		return rc;
	}
	*ep = e;
	return 0;
}

/* Waits (with progress) until @cond or the thread stalls. */
#define ST_WAIT_FOR(t, cond, what)					\
	do {								\
		(t)->last_progress = jiffies;				\
		while (!(cond) && !(t)->abort) {			\
			st_wait(t);					\
			st_check_stall(t, what);			\
		}							\
	} while (0)

static int st_connect(struct st_thread *t, struct st_pair *p)
{
	struct kfi_info *req;
	int rc;

	memset(p->s[0].rop, 0, sizeof(p->s[0].rop));
	memset(p->s[1].rop, 0, sizeof(p->s[1].rop));
	p->s[0].connected = p->s[1].connected = false;
	p->s[0].shutdown = p->s[1].shutdown = false;
	rc = st_ep_open(t, t->run->info, &p->s[0].ep);
	if (rc)
		return rc;
	rc = kfi_connect(p->s[0].ep, &t->paddr, NULL, 0);
	if (rc)
		return rc;
	ST_WAIT_FOR(t, t->connreq, "waiting for KFI_CONNREQ");
	if (t->abort)
		return -ETIMEDOUT;
	req = t->connreq;
	t->connreq = NULL;
	rc = st_ep_open(t, req, &p->s[1].ep);
	kfi_freeinfo(req);
	if (rc)
		return rc;
	rc = kfi_accept(p->s[1].ep, NULL, 0);
	if (rc)
		return rc;
	ST_WAIT_FOR(t, p->s[0].connected && p->s[1].connected,
		    "waiting for KFI_CONNECTED");
	p->closing = false;
	st_post_recvs(t, p, false);
	return t->abort ? -ETIMEDOUT : 0;
}

static bool st_quiet(struct st_pair *p)
{
	int d;

	if (p->inflight)
		return false;
	for (d = 0; d < 2; d++)
		if (p->d[d].recv_seq != p->d[d].send_seq ||
		    p->d[d].tdone != p->d[d].ts || p->d[d].trig_rx ||
		    p->d[d].wd_seen != p->d[d].wd_sent)
			return false;
	return true;
}

/* Every region equals its shadow; the canaries around it are intact. */
static void st_check_regions(struct st_thread *t, struct st_pair *p)
{
	int s;

	for (s = 0; s < 2; s++) {
		struct st_side *sd = &p->s[s];
		size_t i;

		if (memchr_inv(sd->mem, ST_CANARY, ST_GUARD_LO) ||
		    memchr_inv(sd->reg + ST_REG, ST_CANARY, ST_GUARD_HI))
			st_err(t, "pair %d side %d: a canary around the region changed",
			       p->idx, s);
		if (memcmp(sd->reg, sd->shadow, ST_REG)) {
			for (i = 0; i < ST_REG && sd->reg[i] == sd->shadow[i]; i++)
				;
			st_err(t, "pair %d side %d: region differs from its shadow at %zu",
			       p->idx, s, i);
		} else {
			t->st.verified += ST_REG;
		}
	}
}

/* A triggered operation of the pair has not completed yet. */
static bool st_trigs_left(struct st_thread *t, struct st_pair *p)
{
	int i;

	for (i = 0; i < t->ntrig; i++)
		if (t->trigs[i]->p == p)
			return true;
	return false;
}

/*
 * Brings the pair to rest: every triggered operation fired and completed,
 * every tagged message's receive posted, a fence message each way (so
 * every earlier RMA landed), then waits for every completion.
 *
 * The fence goes only after the triggered operations completed: the
 * counter add that makes them due returns before they are posted (the
 * counter's work item posts them), so a message posted right after it
 * may go first, and a triggered write behind the fence may not have
 * landed when the regions are compared (seen as a mismatch in the
 * triggered-write area once in about five runs).
 */
static void st_quiesce(struct st_thread *t, struct st_pair *p)
{
	int d;

	st_fire_all(t);
	st_post_recvs(t, p, true);
	ST_WAIT_FOR(t, !st_trigs_left(t, p), "triggered operations completing");
	for (d = 0; d < 2 && !t->abort; d++) {
		u64 want = p->d[d].send_seq + 1;

		/* a send of any size: st_do_send returns early on a full FIFO */
		while (p->d[d].send_seq < want && !t->abort) {
			st_do_send(t, p, d);
			if (p->d[d].send_seq < want)
				st_wait(t);
		}
	}
	ST_WAIT_FOR(t, st_quiet(p), "quiescing a pair");
	if (!t->abort)
		st_check_regions(t, p);
}

/*
 * Closes both endpoints of a quiesced pair with their receives posted:
 * mode 0/1 closes side 0/1 first (its receives go without entries; the
 * other side sees KFI_SHUTDOWN and its receives are flushed with
 * ECANCELED), mode 2 shuts side 0 down first (both sides flushed).
 */
static void st_close_pair(struct st_thread *t, struct st_pair *p, int mode)
{
	struct st_op *op, *n;
	int first = mode == 1 ? 1 : 0, other = 1 - first, s;
	int rc;

	p->closing = true;
	if (mode == 2) {
		rc = kfi_shutdown(p->s[0].ep, 0);
		if (rc)
			st_err(t, "kfi_shutdown: %d", rc);
		list_for_each_entry(op, &t->live, node)
			if (op->p == p && op->kind >= OP_RECV && !op->cancel)
				op->cancel = CANCEL_FLUSH;
		ST_WAIT_FOR(t, p->s[0].shutdown && p->s[1].shutdown,
			    "waiting for KFI_SHUTDOWN on both sides");
	} else {
		rc = kfi_close(&p->s[first].ep->fid);
		if (rc)
			st_err(t, "closing an endpoint: %d", rc);
		p->s[first].ep = NULL;
		/*
		 * its receives end without an entry (a cancelled one's entry
		 * was written by the cancel)
		 */
		list_for_each_entry_safe(op, n, &t->live, node) {
			if (op->p != p || op->side != first ||
			    op->cancel == CANCEL_OK)
				continue;
			if (op->kind < OP_RECV)
				st_err(t, "transmit op live at close");
			op->state = ST_DROPPED;
			list_move_tail(&op->node, &t->dropped);
			t->st.dropped++;
		}
		list_for_each_entry(op, &t->live, node)
			if (op->p == p && op->side == other && !op->cancel)
				op->cancel = CANCEL_FLUSH;
		ST_WAIT_FOR(t, p->s[other].shutdown,
			    "waiting for KFI_SHUTDOWN after the peer's close");
	}
	/* every flushed receive reported */
	ST_WAIT_FOR(t, ({
		bool left = false;

		list_for_each_entry(op, &t->live, node)
			left |= op->p == p;
		!left;
	}), "waiting for flushed receives");
	for (s = 0; s < 2; s++) {
		if (!p->s[s].ep)
			continue;
		rc = kfi_close(&p->s[s].ep->fid);
		if (rc)
			st_err(t, "closing an endpoint: %d", rc);
		p->s[s].ep = NULL;
	}
	for (s = 0; s < 2; s++)
		memset(p->s[s].rop, 0, sizeof(p->s[s].rop));
	/* the next connection is a new stream: receives ahead are gone */
	for (s = 0; s < 2; s++)
		p->d[s].tr = p->d[s].ts;
}

static void st_reconnect(struct st_thread *t, struct st_pair *p)
{
	int rc;

	st_quiesce(t, p);
	if (t->abort)
		return;
	st_close_pair(t, p, st_below(t, 3));
	if (t->abort)
		return;
	p->gen++;
	rc = st_connect(t, p);
	if (rc) {
		st_err(t, "reconnecting pair %d: %d", p->idx, rc);
		return;
	}
	t->st.reconnects++;
}

/* ------------------------------------------------------ set up, tear down */

static int st_side_alloc(struct st_thread *t, struct st_pair *p, int s)
{
	struct st_side *sd = &p->s[s];
	struct bio_vec *bv;
	int i, n, rc;

	sd->mem = vmalloc(ST_GUARD_LO + ST_REG + ST_GUARD_HI);
	sd->shadow = vmalloc(ST_REG);
	if (!sd->mem || !sd->shadow)
		return -ENOMEM;
	memset(sd->mem, ST_CANARY, ST_GUARD_LO + ST_REG + ST_GUARD_HI);
	sd->reg = sd->mem + ST_GUARD_LO;
	for (i = 0; i < ST_REG; i++)
		sd->reg[i] = (u8)st_key(t, p, s, i / 8, 0x99);
	memcpy(sd->shadow, sd->reg, ST_REG);
	for (i = 0; i < ST_NRECV; i++) {
		sd->rbuf[i] = vmalloc(ST_RBUF);
		if (!sd->rbuf[i])
			return -ENOMEM;
	}
	sd->key = 1000 + t->id * 100 + p->idx * 2 + s;
	sd->base = ((u64)(1 + p->idx * 2 + s) << 32) + 4096 * t->id + 17;
	if (s == 0)
		return kfi_mr_reg(t->run->dom, sd->reg, ST_REG,
				  KFI_REMOTE_READ | KFI_REMOTE_WRITE, sd->base,
				  sd->key, 0, &sd->mr, NULL);
	/* the other side's region as page pieces (a multi-segment region) */
	bv = kcalloc(ST_REG / PAGE_SIZE + 2, sizeof(*bv), GFP_KERNEL);
	if (!bv)
		return -ENOMEM;
	n = st_bvecs(bv, sd->reg, ST_REG);
	rc = kfi_mr_regbv(t->run->dom, bv, n, KFI_REMOTE_READ | KFI_REMOTE_WRITE,
			  sd->base, sd->key, 0, &sd->mr, NULL);
	kfree(bv);
	return rc;
}

static void st_side_free(struct st_side *sd)
{
	int i;

	if (sd->mr)
		kfi_close(&sd->mr->fid);
	vfree(sd->mem);
	vfree(sd->shadow);
	for (i = 0; i < ST_NRECV; i++)
		vfree(sd->rbuf[i]);
}

static int st_thread_open(struct st_thread *t)
{
	struct st_run *run = t->run;
	struct kfi_cq_attr cq_attr = { .size = ST_CQ_SIZE,
				       .format = KFI_CQ_FORMAT_TAGGED };
	struct kfi_eq_attr eq_attr = { .size = 64,
				       .wait_obj = KFI_WAIT_UNSPEC };
	size_t len = sizeof(t->paddr);
	kfi_comp_handler h = t->handler ? st_cq_handler : NULL;
	int rc, i, s;

	rc = kfi_eq_open(run->fab, &eq_attr, &t->eq, NULL, NULL) ?:
	     kfi_cq_open(run->dom, &cq_attr, &t->txcq, h, t) ?:
	     kfi_cq_open(run->dom, &cq_attr, &t->rxcq, h, t) ?:
	     kfi_cntr_open(run->dom, NULL, &t->c_send, NULL) ?:
	     kfi_cntr_open(run->dom, NULL, &t->c_recv, NULL) ?:
	     kfi_cntr_open(run->dom, NULL, &t->c_rma, NULL) ?:
	     kfi_cntr_open(run->dom, NULL, &t->c_remote, NULL) ?:
	     kfi_cntr_open(run->dom, NULL, &t->c_trig, NULL) ?:
	     kfi_passive_ep(run->fab, run->info, &t->pep, NULL) ?:
	     kfi_pep_bind(t->pep, &t->eq->fid, 0) ?:
	     kfi_listen(t->pep) ?:
	     kfi_getname(&t->pep->fid, &t->paddr, &len);
	if (rc)
		return rc;
	for (i = 0; i < t->npairs; i++) {
		struct st_pair *p = &t->pairs[i];

		p->t = t;
		p->idx = i;
		for (s = 0; s < 2; s++) {
			rc = st_side_alloc(t, p, s);
			if (rc)
				return rc;
		}
		rc = st_connect(t, p);
		if (rc)
			return rc;
	}
	return 0;
}

static void st_close_fid(struct st_thread *t, struct kfid *fid,
			 const char *what)
{
	int rc;

	if (!fid)
		return;
	rc = kfi_close(fid);
	if (rc)
		st_err(t, "closing the %s: %d", what, rc);
}

#define ST_FID(x) ((x) ? &(x)->fid : NULL)

/* After an error: what may still be pending is cancelled, then closed. */
static void st_thread_close(struct st_thread *t)
{
	struct st_op *op, *n;
	int i, s;

	for (i = 0; i < t->ntrig; i++) {
		op = t->trigs[i];
		if (op->p->s[op->side].ep)
			kfi_cancel(&op->p->s[op->side].ep->fid, op);
	}
	for (i = 0; i < t->npairs; i++)
		for (s = 0; s < 2; s++) {
			if (t->pairs[i].s[s].ep)
				kfi_close(&t->pairs[i].s[s].ep->fid);
			t->pairs[i].s[s].ep = NULL;
		}
	st_close_fid(t, ST_FID(t->pep), "passive endpoint");
	if (t->connreq)
		kfi_freeinfo(t->connreq);
	st_close_fid(t, ST_FID(t->txcq), "transmit CQ");
	st_close_fid(t, ST_FID(t->rxcq), "receive CQ");
	st_close_fid(t, ST_FID(t->c_send), "counter");
	st_close_fid(t, ST_FID(t->c_recv), "counter");
	st_close_fid(t, ST_FID(t->c_rma), "counter");
	st_close_fid(t, ST_FID(t->c_remote), "counter");
	st_close_fid(t, ST_FID(t->c_trig), "counter");
	st_close_fid(t, ST_FID(t->eq), "EQ");
	for (i = 0; i < t->npairs; i++)
		for (s = 0; s < 2; s++)
			st_side_free(&t->pairs[i].s[s]);
	list_for_each_entry_safe(op, n, &t->live, node)
		st_op_free(op);
	list_for_each_entry_safe(op, n, &t->dropped, node)
		st_op_free(op);
}

/* The end of a clean run: every pair quiesced, checked and closed. */
static void st_finish(struct st_thread *t)
{
	struct kfi_cq_tagged_entry e;
	int i;

	for (i = 0; i < t->npairs && !t->abort; i++) {
		st_quiesce(t, &t->pairs[i]);
		if (!t->abort)
			st_close_pair(t, &t->pairs[i], i % 3);
	}
	if (t->abort)
		return;
	st_progress(t);
	if (!list_empty(&t->live))
		st_err(t, "operations without a completion at the end");
	if (t->ntrig)
		st_err(t, "%d triggered operations never completed", t->ntrig);
	if (kfi_cq_read(t->txcq, &e, 1) != -EAGAIN ||
	    kfi_cq_read(t->rxcq, &e, 1) != -EAGAIN)
		st_err(t, "CQ entries left at the end");
#define ST_CNTR(c, ok, err)						\
	do {								\
		u64 v = kfi_cntr_read(c), ve = kfi_cntr_readerr(c);	\
		if (v != (ok) || ve != (err))				\
			st_err(t, "counter " #c " %llu/%llu, expected %llu/%llu", \
			       v, ve, (u64)(ok), (u64)(err));		\
	} while (0)
	ST_CNTR(t->c_send, t->exp_send[0], t->exp_send[1]);
	ST_CNTR(t->c_recv, t->exp_recv[0], t->exp_recv[1]);
	ST_CNTR(t->c_rma, t->exp_rma[0], t->exp_rma[1]);
	ST_CNTR(t->c_remote, t->exp_remote, 0);
	ST_CNTR(t->c_trig, t->tval, 0);
#undef ST_CNTR
}

static int st_thread_fn(void *arg)
{
	struct st_thread *t = arg;
	struct st_run *run = t->run;
	unsigned long next_reconnect;
	int rc;

	t->last_progress = jiffies;
	rc = st_thread_open(t);
	if (rc && !t->abort)
		st_err(t, "setting up: %d", rc);
	next_reconnect = jiffies + msecs_to_jiffies(run->reconnect_ms) +
			 st_below(t, msecs_to_jiffies(run->reconnect_ms));
	while (!t->abort && time_before(jiffies, run->deadline) &&
	       !READ_ONCE(st_stop_req)) {
		struct st_pair *p = &t->pairs[st_below(t, t->npairs)];
		int d = st_below(t, 2);
		u32 c = st_below(t, 100);

		if (c < 22)
			st_do_send(t, p, d);
		else if (c < 38)
			st_do_tsend(t, p, d);
		else if (c < 44)
			st_do_trecv_ahead(t, p, d);
		else if (c < 58)
			st_do_write(t, p, d);
		else if (c < 70)
			st_do_read(t, p, d);
		else if (c < 76)
			st_do_cancel(t, p, d);
		else if (c < 83)
			st_do_trig(t, p, d);
		else if (c < 85)
			st_do_trig_cancel(t);
		else if (c < 92)
			st_do_cntr_add(t);
		else
			st_wait(t);
		st_progress(t);
		if (run->reconnect_ms && time_after(jiffies, next_reconnect)) {
			st_reconnect(t, p);
			next_reconnect = jiffies +
					 msecs_to_jiffies(run->reconnect_ms);
		}
		cond_resched();
	}
	if (!t->abort)
		st_finish(t);
	st_thread_close(t);
	complete(&t->done);
	return 0;
}

/* ---------------------------------------------------------------- run */

static void st_sum(struct st_stats *a, const struct st_stats *b)
{
	const u64 *x = (const u64 *)b;
	u64 *y = (u64 *)a;
	size_t i;

	for (i = 0; i < sizeof(*a) / sizeof(u64); i++)
		y[i] += x[i];
}

static int st_run(struct st_run *run)
{
	struct st_stats sum = {};
	unsigned long start = jiffies, ms;
	u64 gv;
	int i, errors, rc;

	run->hints = kfi_allocinfo();
	if (!run->hints)
		return -ENOMEM;
	run->hints->caps = KFI_MSG | KFI_TAGGED | KFI_RMA | KFI_TRIGGER |
			   KFI_RMA_EVENT;
	run->hints->ep_attr->type = KFI_EP_MSG;
	/*
	 * The node names the local address: the first entry's src_addr is
	 * it (port 0), a link-local one with its interface's scope id.
	 * 0.0.0.0 and :: give entries without one: the passive endpoints
	 * listen on every address of that family.
	 */
	rc = kfi_getinfo(KFI_VERSION(1, 7), run->node, NULL, KFI_SOURCE,
			 run->hints, &run->info);
	if (rc)
		goto out;
	rc = kfi_fabric(run->info->fabric_attr, &run->fab, NULL);
	if (rc)
		goto out;
	rc = kfi_domain(run->fab, run->info, &run->dom, NULL);
	if (rc)
		goto out;
	rc = kfi_cntr_open(run->dom, NULL, &run->gcntr, NULL);
	if (rc)
		goto out;
	run->pool = vmalloc(ST_POOL);
	run->pool2 = vmalloc(ST_POOL);
	rc = -ENOMEM;
	if (!run->pool || !run->pool2)
		goto out;
	for (i = 0; i < ST_POOL; i += 8) {
		u64 v = st_mix(((u64)run->seed << 32) ^ i);

		memcpy(run->pool + i, &v, 8);
	}
	memcpy(run->pool2, run->pool, ST_POOL);

	run->deadline = jiffies + run->seconds * HZ;
	for (i = 0; i < run->nthreads; i++) {
		struct st_thread *t = kzalloc(sizeof(*t), GFP_KERNEL);

		rc = -ENOMEM;
		if (!t)
			goto stop;
		run->t[i] = t;
		t->run = run;
		t->id = i;
		t->rng = st_mix(((u64)run->seed << 16) ^ (i + 1));
		t->handler = i & 1;
		t->npairs = run->npairs;
		init_waitqueue_head(&t->wq);
		atomic_set(&t->calls, 0);
		INIT_LIST_HEAD(&t->live);
		INIT_LIST_HEAD(&t->dropped);
		init_completion(&t->done);
		t->task = kthread_run(st_thread_fn, t, "kfi_stress/%d", i);
		if (IS_ERR(t->task)) {
			rc = PTR_ERR(t->task);
			run->t[i] = NULL;
			kfree(t);
			goto stop;
		}
	}
	rc = 0;
stop:
	for (i = 0; i < run->nthreads; i++)
		if (run->t[i]) {
			wait_for_completion(&run->t[i]->done);
			st_sum(&sum, &run->t[i]->st);
		}
	ms = jiffies_to_msecs(jiffies - start);
	gv = kfi_cntr_read(run->gcntr);
	if (!rc && gv != (u64)atomic64_read(&run->gadds)) {
		atomic_inc(&run->errors);
		pr_err("kfi_stress: shared counter %llu, %lld adds\n", gv,
		       (s64)atomic64_read(&run->gadds));
	}
	errors = atomic_read(&run->errors) + (rc ? 1 : 0);
	snprintf(st_last, sizeof(st_last),
		 "kfi_stress: seconds=%lu.%03lu threads=%u endpoints=%u seed=%u node=%s ops=%llu send=%llu inject=%llu tsend=%llu tinject=%llu recv=%llu trecv=%llu write=%llu inject_write=%llu writedata=%llu read=%llu cancel=%llu cancel_late=%llu trig=%llu trig_fired=%llu trig_cancel=%llu cntr_add=%llu shared_cntr=%llu reconnect=%llu flushed=%llu dropped=%llu eagain=%llu completions=%llu err_entries=%llu bytes=%llu verified=%llu errors=%d\n",
		 ms / 1000, ms % 1000, run->nthreads, run->nthreads * run->npairs * 2,
		 run->seed, run->node,
		 sum.send + sum.inject + sum.tsend + sum.tinject + sum.write +
		 sum.inject_write + sum.read + sum.cancel_ok + sum.cancel_late +
		 sum.trig_posted + sum.trig_cancelled + sum.cntr_adds +
		 sum.reconnects,
		 sum.send, sum.inject, sum.tsend, sum.tinject, sum.recv,
		 sum.trecv, sum.write, sum.inject_write, sum.wd_seen, sum.read,
		 sum.cancel_ok, sum.cancel_late, sum.trig_posted,
		 sum.trig_fired, sum.trig_cancelled, sum.cntr_adds, gv,
		 sum.reconnects, sum.flushed, sum.dropped, sum.eagain,
		 sum.completions, sum.err_entries, sum.bytes, sum.verified,
		 errors);
	pr_info("%s", st_last);
	for (i = 0; i < run->nthreads; i++)
		kfree(run->t[i]);
	if (!rc && errors)
		rc = -EIO;
out:
	if (rc && rc != -EIO && !run->t[0])
		snprintf(st_last, sizeof(st_last),
			 "kfi_stress: node=%s setup failed: %d errors=1\n",
			 run->node, rc);
	if (run->gcntr)
		kfi_close(&run->gcntr->fid);
	if (run->dom)
		kfi_close(&run->dom->fid);
	if (run->fab)
		kfi_close(&run->fab->fid);
	kfi_freeinfo(run->info);
	kfi_freeinfo(run->hints);
	vfree(run->pool);
	vfree(run->pool2);
	return rc;
}

/*
 * "key=value ...": numbers, and node, a text the provider's kfi_getinfo()
 * reads (a malformed one fails the run there, with its error).
 */
static int st_parse(struct st_run *run, char *s)
{
	char *tok, *v;
	unsigned int x;

	while ((tok = strsep(&s, " \t\n"))) {
		if (!*tok)
			continue;
		v = strchr(tok, '=');
		if (!v)
			return -EINVAL;
		*v++ = 0;
		if (!strcmp(tok, "node")) {
			if (!*v || strscpy(run->node, v, sizeof(run->node)) < 0)
				return -EINVAL;
			continue;
		}
		if (kstrtouint(v, 0, &x))
			return -EINVAL;
		if (!strcmp(tok, "seconds"))
			run->seconds = x;
		else if (!strcmp(tok, "threads") && x >= 1 && x <= ST_MAX_THREADS)
			run->nthreads = x;
		else if (!strcmp(tok, "pairs") && x >= 1 && x <= ST_MAX_PAIRS)
			run->npairs = x;
		else if (!strcmp(tok, "seed"))
			run->seed = x;
		else if (!strcmp(tok, "reconnect_ms"))
			run->reconnect_ms = x;
		else
			return -EINVAL;
	}
	return 0;
}

static ssize_t st_run_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	struct st_run *run;
	char *buf;
	int rc;

	if (len > 256)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run) {
		kfree(buf);
		return -ENOMEM;
	}
	run->seconds = seconds;
	run->nthreads = clamp(threads, 1U, (unsigned int)ST_MAX_THREADS);
	run->npairs = clamp(pairs, 1U, (unsigned int)ST_MAX_PAIRS);
	run->seed = seed;
	run->reconnect_ms = reconnect_ms;
	/* node may be written through sysfs meanwhile: copy it whole. */
	kernel_param_lock(THIS_MODULE);
	strscpy(run->node, node, sizeof(run->node));
	kernel_param_unlock(THIS_MODULE);
	atomic_set(&run->errors, 0);
	atomic64_set(&run->gadds, 0);
	rc = st_parse(run, buf);
	kfree(buf);
	if (!rc) {
		mutex_lock(&st_lock);
		rc = st_run(run);
		WRITE_ONCE(st_stop_req, false);
		mutex_unlock(&st_lock);
	}
	kfree(run);
	return rc ? rc : len;
}

static ssize_t st_last_read(struct file *file, char __user *ubuf, size_t len,
			    loff_t *ppos)
{
	return simple_read_from_buffer(ubuf, len, ppos, st_last,
				       strlen(st_last));
}

static ssize_t st_stop_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	WRITE_ONCE(st_stop_req, true);
	return len;
}

static const struct file_operations st_stop_fops = {
	.owner = THIS_MODULE,
	.write = st_stop_write,
};

static const struct file_operations st_run_fops = {
	.owner = THIS_MODULE,
	.write = st_run_write,
};

static const struct file_operations st_last_fops = {
	.owner = THIS_MODULE,
	.read = st_last_read,
};

static int __init st_init(void)
{
	st_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("run", 0200, st_dir, NULL, &st_run_fops);
	debugfs_create_file("last", 0400, st_dir, NULL, &st_last_fops);
	debugfs_create_file("stop", 0200, st_dir, NULL, &st_stop_fops);
	return 0;
}

static void __exit st_exit(void)
{
	debugfs_remove_recursive(st_dir);
}

module_init(st_init);
module_exit(st_exit);
MODULE_DESCRIPTION("kfabric stress with data checks over MSG endpoints");
MODULE_LICENSE("GPL");
