// SPDX-License-Identifier: GPL-2.0
/*
 * kfi_pingpong: libfabric's fi_pingpong (util/pingpong.c of v1.17.0) for
 * kernel consumers, over kfabric MSG endpoints of the "tcp" provider (or
 * "verbs": prov=verbs, with fi_pingpong -p verbs as the peer), and,
 * as a baseline, the same exchange over plain kernel TCP sockets.
 *
 * The module speaks fi_pingpong's protocol, so either side can be the real
 * userspace fi_pingpong (-p tcp -e msg [-m tagged] [-c]):
 *
 * - an out-of-band (OOB) TCP control connection, client to server, port
 *   47592 by default;
 * - the server sends its passive endpoint's name over it: u32 length
 *   (big-endian), u32 address format (host order), the name bytes; the
 *   client opens its endpoint, pre-posts a receive and kfi_connect()s to
 *   that name without CM data; the server pre-posts its receive before
 *   kfi_accept();
 * - per message size, on the OOB connection: the client sends "q\0", the
 *   server answers "a\0"; then the timed iterations on the fabric (client:
 *   send then receive; server: receive then send), a send being an inject
 *   when the size is below tx_attr->inject_size; then the client sends its
 *   receive count as 10 bytes (decimal digits padded with NULs) and the
 *   server answers "cnt ok\0";
 * - at the end, on the fabric, each side sends "fin\0" with
 *   KFI_TRANSMIT_COMPLETE, waits for that completion and for the peer's
 *   "fin", closes the OOB connection and shuts the endpoint down.
 *
 * Tagged mode uses tag 1234 and an ignore mask of 0. With verify=1 (-c)
 * every payload sent in the timed loop is filled with a rotating
 * alphanumeric pattern and every payload received is checked against it.
 *
 * mode=stream is fabtests' fi_msg_bw loop over the same session (control
 * connection, sync, count exchange, fin): per size the client sends
 * `iters` messages with `window` of them outstanding (injected below
 * the inject size; each window's completions awaited before the next),
 * the server keeps up to a window of receives posted; once it has them
 * all it sends a 4-byte message, which ends the client's timing.
 * transport=raw sends each message with one sendmsg (and receives it
 * whole) instead.
 *
 * Every size ends with one line of "last" (after the "kfi_pingpong: "):
 *   ROLE TRANSPORT MODE bytes=N iters=N usec_per_xfer=U MBps=M xfers=N
 *        ns=N [window=N]
 * (xfers: 2 per iteration, 1 with mode=stream; ns: the timed loop's
 * nanoseconds; tools/kfi_pingpong prints fi_pingpong's columns from them).
 *
 * role=sink is no pingpong: it is the kernel end of the hostile-peer tests
 * (tests/hostile/hostile.py). It listens on addr:port (no control
 * connection), registers one 4096-byte region at offset 0 with key `key`
 * (KFI_REMOTE_READ | KFI_REMOTE_WRITE, filled with 0xa5), pre-posts
 * `recvs` receives and `recvs` tagged receives (tag 1234) of `recv_size`
 * bytes, accepts exactly one connection and waits until it ends: an EQ
 * KFI_SHUTDOWN or error entry. It then drains both CQs until every
 * receive is accounted for and reports, as one line of "last" (after
 * the "kfi_pingpong: " every line has):
 *   sink eq=shutdown|error|timeout eq_err=E cq_errs=N first_cq_err=E
 *        recvs_done=N mr_intact=0|1 mr_changed=N unreported=N
 *        recv_data=HEX
 * (errors are positive errno values, 0 when none; eq_err: the EQ error
 * entry's, or with eq=shutdown the cause kfi_tcp recorded for a connection
 * ended by an error (kfi_tcp_stat_last_break(), looked up at run time so
 * that this module needs no provider); mr_intact: the region
 * beyond its first expect_write bytes still holds the fill byte;
 * mr_changed: bytes of the region that no longer do; unreported:
 * receives that got no completion at all; recv_data: up to 32 bytes of
 * the first completed receive). The write to "run" succeeds whenever the
 * connection came and ended, whatever the peer did; -ETIMEDOUT when no
 * connection came or it did not end within timeout_ms.
 *
 * role=reader is the kernel end of the hostile-peer tests as the
 * initiator: it connects to addr:port (the peer listens and accepts),
 * posts one kfi_readmsg() of `regions` remote regions (region i at
 * raddr + i * rlen, rlen bytes, key `key`; more than 4 go out as several
 * read requests) into one local buffer filled with 0xa5 between two
 * 64-byte guard areas of the same byte, and waits until the connection
 * ends (the peer's close or a protocol error), as the sink does. With
 * regions=0 no read is posted. A well-behaved peer answers with
 * fi_pingpong's alphabet, byte i of the buffer being alphabet[i % 62]. It
 * reports, as one line of "last":
 *   reader eq=shutdown|error|timeout eq_err=E read=done|error|none
 *          read_err=E read_len=N cq_errs=N written=N intact=0|1
 *          changed=N outside=N
 * (eq, eq_err: as the sink's; read: the read's success or error entry,
 * or none; read_err: the error entry's errno; read_len: the success
 * entry's length; cq_errs: error entries of both CQs; written: the
 * longest prefix of the buffer holding the alphabet; intact: every byte
 * after it still holds 0xa5; changed: bytes of the buffer that do not;
 * outside: changed bytes of the guard areas). The write to "run" returns
 * as the sink's does.
 *
 * Interface (debugfs):
 *   /sys/kernel/debug/kfi_pingpong/run   write "key=value ..." to run one
 *                                         session in the writer's context;
 *                                         a read of the same open file
 *                                         then returns its result lines
 *   /sys/kernel/debug/kfi_pingpong/last  result lines of the last session
 *
 * Keys (defaults are fi_pingpong's where it has one):
 *   role=server|client|sink|reader  required
 *   addr=ADDRESS        IPv4 or IPv6 (a link-local one with its zone:
 *                       fe80::1%eth0 or fe80::1%2); client: the server
 *                       (127.0.0.1); server: the address to listen on for
 *                       the control connection (0.0.0.0) and the fabric
 *                       source address (the loopback address of addr's
 *                       family when addr is 0.0.0.0, :: or not given)
 *   oob_port=N          control port (47592)
 *   sizes=N,N,...|all   message sizes (64,256,1024,4096,65536,1048576);
 *                       "all" is fi_pingpong -S all (0, 1, 2, 3, 4, 6, ...
 *                       6 MiB)
 *   iters=N             iterations per size (10)
 *   tagged=0|1          tagged messages (0)
 *   verify=0|1          fill and check the payloads, fi_pingpong -c (0)
 *   transport=kfi|raw   kfabric, or plain kernel TCP (kfi)
 *   prov=tcp|verbs      the kfabric provider (tcp); verbs: the fabric
 *                       address is that of an RDMA device (addr)
 *   ep=msg|rdm          endpoint type (msg); rdm is fi_pingpong -e rdm:
 *                       the server sends its endpoint's name first, then
 *                       takes the client's; each inserts the other's in an
 *                       AV; the first send connects (the client's fabric
 *                       address is addr, the server's: reached there)
 *   wait=spin|sleep     poll completions (and raw sockets) like
 *                       fi_pingpong, or block in kfi_cq_sread()/recvmsg
 *                       (spin)
 *   timeout_ms=N        bound of every blocking wait (30000)
 *   mode=pingpong|stream  fi_pingpong's exchange, or fi_msg_bw's
 *                       one-way stream (pingpong)
 *   window=N            mode=stream: sends outstanding, 1 to 1024 (64)
 *   more=0|1            mode=stream, transport=kfi: every send of a window
 *                       but its last is posted with KFI_MORE (kfi_sendmsg,
 *                       KFI_INJECT below the inject size; each has a
 *                       completion), telling the provider that more
 *                       follow at once; the line adds more=1
 *   trigger=0|1         every send of the timed loop is a triggered one
 *                       (KFI_TRIGGER, at a counter's next value) made due
 *                       by one kfi_cntr_add(): the add's cost and the
 *                       trigger path's latency next to a plain send's; the
 *                       line adds trigger=1 add_ns=<mean add>
 * Keys of role=sink (addr defaults to 127.0.0.1; the any address means
 * its family's loopback address):
 *   port=N              TCP port of the passive endpoint (required)
 *   key=N               requested key of the region (7)
 *   recv_size=N         bytes of each posted receive (64)
 *   recvs=N             receives of each kind pre-posted (4)
 *   expect_write=N      the peer may legitimately write the first N bytes
 *                       of the region (0)
 * Keys of role=reader (addr as the sink's: the peer's address):
 *   port=N              TCP port the peer listens on (required)
 *   key=N               key of every remote region (7)
 *   regions=N           remote regions of the read, 0 to 256 (6)
 *   raddr=N             remote address of the first region (0)
 *   rlen=N              bytes of each region, 1 to 4096 (16)
 * Many sessions may run at once (e.g. both sides of a pair in one guest).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/in.h>
#include <linux/inet.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tcp.h>
#ifdef PP_WITH_IBV
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#endif
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include <kfabric.h>
#include <kfi_cm.h>
#include <kfi_domain.h>
#include <kfi_endpoint.h>
#include <kfi_eq.h>
#include <kfi_errno.h>
#include <kfi_rma.h>

/* kfi_tcp's diagnostic (kfi_tcp_sock.c), looked up with symbol_get(). */
int kfi_tcp_stat_last_break(void);
#include <kfi_tagged.h>
#include <kfi_trigger.h>
#include "iprof_mark.h"
#include "../../kfi_tcp/kfi_tcp_trace.h"

/* Protocol constants of fi_pingpong. */
#define PP_OOB_PORT		47592
#define PP_DEFAULT_ITERS	10
#define PP_TAG			1234ULL
#define PP_MAX_CTRL_MSG		64
#define PP_MAX_DATA_MSG		((1 << 22) + (1 << 21))
#define PP_MAX_ADDRLEN		1024
#define PP_CNT_LEN		10
#define PP_INTEG_SEED		7U
#define PP_MR_KEY		0xC0DE

/* Limits of this module. */
#define PP_MAX_SIZES		64
/* mode=stream: sends outstanding (fi_msg_bw's -W), at most */
#define PP_DEFAULT_WINDOW	64
#define PP_MAX_WINDOW		1024
/* mode=stream verify=1: the slots of the window, at most (bytes) */
#define PP_STREAM_VERIFY_MAX	(256ULL << 20)
#define PP_MAX_LINE		1024
#define PP_OUT_CAP		8192
#define PP_DEFAULT_TIMEOUT_MS	30000
#define PP_EQ_SLICE_MS		100
#define PP_CONNECT_RETRY_MS	100

/* role=sink. */
#define PP_SINK_MR_LEN		4096
#define PP_SINK_FILL		0xa5
#define PP_SINK_KEY		7
#define PP_SINK_RECV_SIZE	64
#define PP_SINK_RECVS		4
#define PP_SINK_MAX_RECVS	64
#define PP_SINK_MAX_RECV_SIZE	65536
#define PP_SINK_DRAIN_MS	5000
#define PP_SINK_DATA_MAX	32

/* role=reader. */
#define PP_READER_REGIONS	6
#define PP_READER_MAX_REGIONS	256	/* kfi_tcp's rma_iov_limit */
#define PP_READER_RLEN		16
#define PP_READER_MAX_RLEN	4096
#define PP_READER_GUARD		64
#define PP_READER_FILL		0xa5

static const char pp_alphabet[] =
	"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
#define PP_ALPHABET_LEN		((u32)sizeof(pp_alphabet) - 1)

/* Control and final messages, sent with their terminating NUL. */
static const char pp_sync_q[] = "q";
static const char pp_sync_a[] = "a";
static const char pp_cnt_ok[] = "cnt ok";
static const char pp_fin[] = "fin";

static const u32 pp_default_sizes[] = { 64, 256, 1024, 4096, 65536, 1048576 };

enum pp_transport {
	PP_KFI,
	PP_RAW,
	PP_IBV,
};

enum pp_wait {
	PP_WAIT_SPIN,
	PP_WAIT_SLEEP,
};

struct pp_opts {
	bool server;
	bool sink;
	bool reader;
	bool addr_set;
	struct sockaddr_storage addr;	/* port 0; AF_INET or AF_INET6 */
	u16 oob_port;
	u32 sizes[PP_MAX_SIZES];
	unsigned int nsizes;
	u32 iters;
	bool tagged;
	bool verify;
	enum pp_transport transport;
	enum pp_wait wait;
	u32 timeout_ms;
	const char *prov;		/* provider of the kfi transport */
	bool rdm;			/* ep=rdm: connectionless endpoints */
	bool stream;			/* mode=stream: fi_msg_bw's loop */
	bool trigger;			/* trigger=1: sends fired by an add */
	bool more;			/* more=1: KFI_MORE within a window */
	u32 window;			/* mode=stream: sends outstanding */
	/* role=sink */
	u16 port;
	u64 key;
	u32 recv_size;
	u32 recvs;
	u32 expect_write;
	/* role=reader */
	u32 regions;
	u64 raddr;
	u32 rlen;
};

/* The kfabric objects of a session. */
struct pp_kfi {
	struct kfi_info *hints;
	struct kfi_info *pep_info;	/* server: the passive endpoint's */
	struct kfi_info *info;		/* CONNREQ info, or the client's */
	struct kfid_fabric *fabric;
	struct kfid_eq *eq;
	struct kfid_pep *pep;
	struct kfid_domain *domain;
	struct kfid_mr *tx_mr;
	struct kfid_mr *rx_mr;
	struct kfid_mr *rma_mr;		/* sink: the remotely accessible region */
	struct kfid_cq *txcq;
	struct kfid_cq *rxcq;
	struct kfid_ep *ep;
	struct kfid_av *av;		/* ep=rdm: the peer's address */
	kfi_addr_t peer;		/* ep=rdm: its handle (0 on MSG) */
	void *tx_desc;
	void *rx_desc;
	struct kfi_context2 tx_ctx;
	struct kfi_context2 rx_ctx;
	struct kfi_context2 fin_ctx;
	/* trigger=1: the counter the sends wait on, an add per send */
	struct kfid_cntr *trig_cntr;
	struct kfi_triggered_context trig_ctx;
	u64 trig_seq, add_ns, adds;
	u64 tx_seq, rx_seq, tx_cq_cntr, rx_cq_cntr;
	size_t inject_size;
	size_t max_msg_size;
	size_t tx_prefix;
	size_t rx_prefix;
	bool connected;
};

struct pp_session {
	struct pp_opts o;
	struct socket *oob;		/* control connection */
	struct socket *data;		/* raw transport: data connection */
#ifdef PP_WITH_IBV
	struct pp_ibv *ibv;		/* ibv transport */
#endif
	/* Message buffers: prefix (kfi MSG_PREFIX mode) + payload. */
	u8 *tx_buf;
	u8 *rx_buf;
	size_t tx_len;			/* tx buffer, prefix included */
	size_t rx_len;			/* posted receive, prefix included */
	size_t max_size;		/* largest payload of the run */
	/*
	 * Buffer slots of tx_len (rx_len) bytes each: 1, or with mode=stream
	 * and verify=1 over kfabric one per message of the window (a send's
	 * buffer is the consumer's until it completes); tx_off and rx_off
	 * say which slot the next post uses.
	 */
	u32 slots;
	size_t tx_off, rx_off;
	/* Pattern counters (one per direction, never reset in a session). */
	u32 fill_iter;
	u32 check_iter;
	bool active;			/* inside the timed loop */
	bool watch_oob;			/* a closed OOB connection ends waits */
	long cnt_ack;
	struct pp_kfi k;
	/* role=sink: the region and the receives (buffers, contexts). */
	u8 *mr_buf;
	u8 *sink_bufs;
	struct kfi_context2 *sink_ctx;
	/* role=reader: the read's buffer between two guard areas. */
	u8 *rd_buf;
	struct kfi_rma_iov *rd_iov;
	/* Result lines of this session. */
	char *out;
	size_t out_len;
};

static struct dentry *pp_dir;
static DEFINE_MUTEX(pp_last_lock);
static char *pp_last;
static size_t pp_last_len;

static const char *pp_role(const struct pp_session *s)
{
	if (s->o.sink)
		return "sink";
	if (s->o.reader)
		return "reader";
	return s->o.server ? "server" : "client";
}

static const char *pp_tname(const struct pp_session *s)
{
	if (s->o.transport == PP_IBV)
		return "ibv";
	return s->o.transport == PP_RAW ? "raw" : "kfi";
}

static const char *pp_mode(const struct pp_session *s)
{
	return s->o.tagged ? "tagged" : "msg";
}

/*
 * Errors handed back to the writer must be Linux errno values: kfabric's
 * own codes (256 and up) become -EIO (they were logged with their text),
 * an interrupted wait becomes -EINTR (never restart a whole session).
 */
static int pp_user_errno(int err)
{
	if (err >= 0)
		return err;
	if (-err >= KFI_ERRNO_OFFSET)
		return -EIO;
	if (err == -ERESTARTSYS || err == -ERESTARTNOINTR ||
	    err == -ERESTARTNOHAND || err == -ERESTART_RESTARTBLOCK)
		return -EINTR;
	return err;
}

/* ------------------------------------------------------------ results */

static __printf(2, 3) void pp_out(struct pp_session *s, const char *fmt, ...)
{
	va_list args;

	if (!s->out)
		return;
	va_start(args, fmt);
	s->out_len += vscnprintf(s->out + s->out_len, PP_OUT_CAP - s->out_len,
				 fmt, args);
	va_end(args);
}

/*
 * One size done: fi_pingpong's usec/xfer (elapsed time over 2 transfers
 * per iteration; mode=stream: over 1, fi_msg_bw's) and MB/sec (bytes
 * moved per microsecond), here with two decimals in integer arithmetic;
 * then the transfers and the elapsed nanoseconds, from which
 * tools/kfi_pingpong prints fi_pingpong's columns (and, with mode=stream,
 * the window).
 */
static void pp_report(struct pp_session *s, u32 size, u64 ns)
{
	u64 xfers = (u64)s->o.iters * (s->o.stream ? 1 : 2);
	u64 bytes = xfers * size;
	u64 usec100, mbps100;
	char line[224];
	int n;

	if (!s->o.iters)
		return;		/* fi_pingpong prints nothing either */
	if (!ns)
		ns = 1;
	usec100 = div64_u64(ns, xfers * 10);
	mbps100 = mul_u64_u64_div_u64(bytes, 100000, ns);
	n = scnprintf(line, sizeof(line),
		      "%s %s %s bytes=%u iters=%u usec_per_xfer=%llu.%02llu MBps=%llu.%02llu xfers=%llu ns=%llu",
		      pp_role(s), pp_tname(s), pp_mode(s), size, s->o.iters,
		      usec100 / 100, usec100 % 100, mbps100 / 100,
		      mbps100 % 100, xfers, ns);
	if (s->o.stream)
		n += scnprintf(line + n, sizeof(line) - n, " window=%u",
			       s->o.window);
	if (s->o.more)
		n += scnprintf(line + n, sizeof(line) - n, " more=1");
	if (s->o.trigger && s->k.adds) {
		scnprintf(line + n, sizeof(line) - n, " trigger=1 add_ns=%llu",
			  div64_u64(s->k.add_ns, s->k.adds));
		s->k.add_ns = 0;
		s->k.adds = 0;
	}
	pr_info("%s\n", line);
	pp_out(s, KBUILD_MODNAME ": %s\n", line);
}

/*
 * Makes a copy of this session's lines the content of debugfs "last"
 * (the session keeps its own for a read of "run" on the same file).
 */
static void pp_publish(struct pp_session *s)
{
	char *old, *copy = NULL;

	if (s->out)
		copy = kmemdup(s->out, s->out_len + 1, GFP_KERNEL);
	mutex_lock(&pp_last_lock);
	old = pp_last;
	pp_last = copy;
	pp_last_len = copy ? s->out_len : 0;
	mutex_unlock(&pp_last_lock);
	kfree(old);
}

/* ------------------------------------------------------------ pattern */

/*
 * fi_pingpong's integrity pattern: the alphabet above, starting at
 * (n * 7) % 62 for the n-th filled (resp. checked) buffer of the run and
 * wrapping around. Fill and check keep separate counters, so each side's
 * n-th send matches the peer's n-th receive.
 */
static void pp_fill(struct pp_session *s, u8 *buf, size_t len)
{
	u32 idx = (s->fill_iter++ * PP_INTEG_SEED) % PP_ALPHABET_LEN;
	size_t i;

	for (i = 0; i < len; i++) {
		buf[i] = pp_alphabet[idx++];
		if (idx >= PP_ALPHABET_LEN)
			idx = 0;
	}
}

static int pp_check(struct pp_session *s, const u8 *buf, size_t len)
{
	u32 n = s->check_iter++;
	u32 idx = (n * PP_INTEG_SEED) % PP_ALPHABET_LEN;
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] != pp_alphabet[idx]) {
			pr_err("%s: data corrupted: buffer %u, size %zu, byte %zu: expected 0x%02x, got 0x%02x\n",
			       pp_role(s), n, len, i, pp_alphabet[idx], buf[i]);
			return -EBADMSG;
		}
		if (++idx >= PP_ALPHABET_LEN)
			idx = 0;
	}
	return 0;
}

/* ------------------------------------------------------------ buffers */

static int pp_alloc_bufs(struct pp_session *s, size_t tx_prefix,
			 size_t rx_prefix)
{
	size_t payload = max_t(size_t, s->max_size, PP_MAX_CTRL_MSG);

	s->tx_len = payload + tx_prefix;
	s->rx_len = payload + rx_prefix;
	s->slots = s->o.stream && s->o.verify && s->o.transport == PP_KFI ?
		   s->o.window : 1;
	if ((s->o.transport == PP_KFI && !strcmp(s->o.prov, "verbs")) ||
	    s->o.transport == PP_IBV) {
		/*
		 * Physically contiguous: kfi_verbs takes a vmalloc'ed buffer
		 * as one piece per page, at most 4 without registration.
		 */
		s->tx_buf = kzalloc(s->slots * s->tx_len, GFP_KERNEL);
		s->rx_buf = kzalloc(s->slots * s->rx_len, GFP_KERNEL);
	} else {
		s->tx_buf = kvzalloc(s->slots * s->tx_len, GFP_KERNEL);
		s->rx_buf = kvzalloc(s->slots * s->rx_len, GFP_KERNEL);
	}
	if (!s->tx_buf || !s->rx_buf) {
		pr_err("%s: no memory for %u %zu-byte message buffers\n",
		       pp_role(s), s->slots, payload);
		return -ENOMEM;
	}
	return 0;
}

static void pp_free_bufs(struct pp_session *s)
{
	kvfree(s->tx_buf);
	kvfree(s->rx_buf);
	s->tx_buf = NULL;
	s->rx_buf = NULL;
}

/* ------------------------------------------------------------ sockets */

static void pp_sock_timeouts(struct socket *sock, u32 ms)
{
	long t = msecs_to_jiffies(ms);

	WRITE_ONCE(sock->sk->sk_rcvtimeo, t);
	WRITE_ONCE(sock->sk->sk_sndtimeo, t);
}

static int pp_sock_create(struct pp_session *s, int family,
			  struct socket **res)
{
	int ret;

	ret = sock_create_kern(current->nsproxy->net_ns, family, SOCK_STREAM,
			       IPPROTO_TCP, res);
	if (ret) {
		pr_err("%s: sock_create_kern failed: %d\n", pp_role(s), ret);
		return ret;
	}
	pp_sock_timeouts(*res, s->o.timeout_ms);
	return 0;
}

#ifdef KFI_TCP_TRACE
/*
 * KFI_TRACE=1 (scripts/timeline.sh): the raw transport's data sockets record
 * when data arrives, as kfi_tcp's sockets do. All TCP sockets start with the
 * same sk_data_ready, kept here.
 */
static void (*pp_tr_saved_ready)(struct sock *sk);

static void pp_tr_data_ready(struct sock *sk)
{
	KFI_TCP_TR(DATA_READY);
	pp_tr_saved_ready(sk);
}

static void pp_tr_hook(struct socket *sock)
{
	struct sock *sk = sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	pp_tr_saved_ready = sk->sk_data_ready;
	sk->sk_data_ready = pp_tr_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
}

static void pp_tr_unhook(struct socket *sock)
{
	struct sock *sk = sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	if (sk->sk_data_ready == pp_tr_data_ready)
		sk->sk_data_ready = pp_tr_saved_ready;
	write_unlock_bh(&sk->sk_callback_lock);
}

static struct debugfs_blob_wrapper pp_tr_blob;

static void pp_tr_debugfs(struct dentry *dir)
{
	size_t len;

	pp_tr_blob.data = kfi_tcp_tr_buf(&len);
	pp_tr_blob.size = len;
	debugfs_create_blob("trace", 0400, dir, &pp_tr_blob);
}
#else
static void pp_tr_hook(struct socket *sock) { }
static void pp_tr_unhook(struct socket *sock) { }
static void pp_tr_debugfs(struct dentry *dir) { }
#endif

static void pp_sock_release(struct socket **sock)
{
	if (*sock) {
		pp_tr_unhook(*sock);
		kernel_sock_shutdown(*sock, SHUT_RDWR);
		sock_release(*sock);
		*sock = NULL;
	}
}

/*
 * Ends the control connection once the peer is done with the session too:
 * our side is shut down for writing, then the peer's side is read until it
 * closes it (bounded by the socket's receive timeout, the session's). So
 * neither side ends its data connection while the other may still wait
 * for a completion over it: on an RC queue pair a disconnect can overtake
 * the acknowledgement of a send the peer did receive, which then completes
 * flushed (-ECANCELED).
 */
static void pp_oob_close(struct pp_session *s)
{
	char c;
	int ret;

	if (s->oob) {
		kernel_sock_shutdown(s->oob, SHUT_WR);
		do {
			struct kvec iov = { .iov_base = &c, .iov_len = 1 };
			struct msghdr msg = {};

			ret = kernel_recvmsg(s->oob, &msg, &iov, 1, 1, 0);
		} while (ret > 0);
	}
	pp_sock_release(&s->oob);
}

/*
 * Addresses: an IPv4 or IPv6 socket address (port 0 in the options, the
 * port set where it is used). Text for kfi_getinfo's node: dotted quad, or
 * the IPv6 text with the scope id as a numeric zone ("fe80::1%3").
 */
static u32 pp_addr_len(const struct sockaddr_storage *a)
{
	return a->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					  sizeof(struct sockaddr_in);
}

static void pp_addr_set_port(struct sockaddr_storage *a, u16 port)
{
	if (a->ss_family == AF_INET6)
		((struct sockaddr_in6 *)a)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)a)->sin_port = htons(port);
}

static u16 pp_addr_port(const struct sockaddr_storage *a)
{
	return ntohs(a->ss_family == AF_INET6 ?
		     ((const struct sockaddr_in6 *)a)->sin6_port :
		     ((const struct sockaddr_in *)a)->sin_port);
}

/* The loopback address of @family (the family's "any" for @any). */
static void pp_addr_local(struct sockaddr_storage *a, int family, bool any)
{
	memset(a, 0, sizeof(*a));
	a->ss_family = family;
	if (family == AF_INET6) {
		if (!any)
			((struct sockaddr_in6 *)a)->sin6_addr = in6addr_loopback;
	} else {
		((struct sockaddr_in *)a)->sin_addr.s_addr =
			htonl(any ? INADDR_ANY : INADDR_LOOPBACK);
	}
}

static void pp_addr_node(const struct sockaddr_storage *a, char *buf,
			 size_t len)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)a;

	if (a->ss_family != AF_INET6)
		snprintf(buf, len, "%pI4",
			 &((const struct sockaddr_in *)a)->sin_addr);
	else if (sin6->sin6_scope_id)
		snprintf(buf, len, "%pI6c%%%u", &sin6->sin6_addr,
			 sin6->sin6_scope_id);
	else
		snprintf(buf, len, "%pI6c", &sin6->sin6_addr);
}

/* Room for pp_addr_node()'s text. */
#define PP_NODE_LEN	64

/* "a.b.c.d:port", or "[ipv6%zone]:port" (RFC 4007's text form). */
static void pp_addr_text(const struct sockaddr_storage *a, char *buf,
			 size_t len)
{
	char node[PP_NODE_LEN];

	pp_addr_node(a, node, sizeof(node));
	snprintf(buf, len, a->ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u",
		 node, pp_addr_port(a));
}

static int pp_tcp_listen(struct pp_session *s,
			 const struct sockaddr_storage *addr, u16 port,
			 struct socket **res, const char *what)
{
	struct sockaddr_storage a = *addr;
	struct socket *sock;
	int ret;

	pp_addr_set_port(&a, port);
	ret = pp_sock_create(s, a.ss_family, &sock);
	if (ret)
		return ret;
	sock_set_reuseaddr(sock->sk);
	ret = kernel_bind(sock, (struct sockaddr *)&a, pp_addr_len(&a));
	if (ret) {
		pr_err("%s: %s: bind to %pISpc failed: %d\n", pp_role(s), what,
		       &a, ret);
		goto fail;
	}
	ret = kernel_listen(sock, 10);
	if (ret) {
		pr_err("%s: %s: listen failed: %d\n", pp_role(s), what, ret);
		goto fail;
	}
	*res = sock;
	return 0;
fail:
	sock_release(sock);
	return ret;
}

static int pp_tcp_accept(struct pp_session *s, struct socket *lsock,
			 struct socket **res, const char *what)
{
	int ret;

	ret = kernel_accept(lsock, res, 0);
	if (ret) {
		if (ret == -EAGAIN)
			ret = -ETIMEDOUT;
		pr_err("%s: %s: accept failed: %d%s\n", pp_role(s), what, ret,
		       ret == -ETIMEDOUT ? " (timed out)" : "");
		return ret;
	}
	pp_sock_timeouts(*res, s->o.timeout_ms);
	tcp_sock_set_nodelay((*res)->sk);
	return 0;
}

/*
 * Connects to @addr:@port. A refused connection is retried until the
 * timeout, so that a client may be started just before its server.
 */
static int pp_tcp_connect(struct pp_session *s,
			  const struct sockaddr_storage *addr, u16 port,
			  struct socket **res, const char *what)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(s->o.timeout_ms);
	struct sockaddr_storage a = *addr;
	struct socket *sock;
	int ret;

	pp_addr_set_port(&a, port);
	for (;;) {
		ret = pp_sock_create(s, a.ss_family, &sock);
		if (ret)
			return ret;
		ret = kernel_connect(sock, (struct sockaddr *)&a,
				     pp_addr_len(&a), 0);
		if (!ret)
			break;
		sock_release(sock);
		if (ret == -EINPROGRESS || ret == -EAGAIN)
			ret = -ETIMEDOUT;
		if (ret == -ECONNREFUSED && time_before(jiffies, deadline)) {
			if (msleep_interruptible(PP_CONNECT_RETRY_MS))
				ret = -EINTR;
			else
				continue;
		}
		pr_err("%s: %s: connect to %pISpc failed: %d\n", pp_role(s),
		       what, &a, ret);
		return ret;
	}
	tcp_sock_set_nodelay(sock->sk);
	*res = sock;
	return 0;
}

/* Sends all of @buf; the socket's send timeout bounds each wait. */
static int pp_sock_send(struct socket *sock, const void *buf, size_t len)
{
	while (len) {
		struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
		struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
		int ret;

		ret = kernel_sendmsg(sock, &msg, &iov, 1, len);
		if (ret < 0)
			return ret == -EAGAIN ? -ETIMEDOUT : ret;
		if (!ret)
			return -ECONNABORTED;
		buf += ret;
		len -= ret;
	}
	return 0;
}

/* Receives exactly @len bytes; a closed connection is -ECONNABORTED. */
static int pp_sock_recv(struct socket *sock, void *buf, size_t len)
{
	while (len) {
		struct msghdr msg = { .msg_flags = 0 };
		struct kvec iov = { .iov_base = buf, .iov_len = len };
		int ret;

		ret = kernel_recvmsg(sock, &msg, &iov, 1, len, MSG_WAITALL);
		if (ret < 0)
			return ret == -EAGAIN ? -ETIMEDOUT : ret;
		if (!ret)
			return -ECONNABORTED;
		buf += ret;
		len -= ret;
	}
	return 0;
}

/* True once the peer closed (or broke) the control connection. */
static bool pp_oob_gone(struct pp_session *s)
{
	struct sock *sk;

	if (!s->watch_oob || !s->oob)
		return false;
	sk = s->oob->sk;
	return READ_ONCE(sk->sk_err) ||
	       (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN);
}

/* ------------------------------------------------------------ control */

static int pp_ctrl_send(struct pp_session *s, const void *buf, size_t len,
			const char *what)
{
	int ret = pp_sock_send(s->oob, buf, len);

	if (ret)
		pr_err("%s: control: sending %s failed: %d\n", pp_role(s), what,
		       ret);
	return ret;
}

static int pp_ctrl_recv(struct pp_session *s, void *buf, size_t len,
			const char *what)
{
	int ret = pp_sock_recv(s->oob, buf, len);

	if (ret)
		pr_err("%s: control: receiving %s failed: %d%s\n", pp_role(s),
		       what, ret,
		       ret == -ECONNABORTED ? " (peer closed the connection)" :
		       "");
	return ret;
}

/* Sets up the control connection: the server accepts, the client connects. */
static int pp_ctrl_init(struct pp_session *s)
{
	struct sockaddr_storage any;
	struct socket *lsock;
	int ret;

	if (!s->o.server)
		return pp_tcp_connect(s, &s->o.addr, s->o.oob_port, &s->oob,
				      "control");
	if (!s->o.addr_set)
		pp_addr_local(&any, AF_INET, true);
	ret = pp_tcp_listen(s, s->o.addr_set ? &s->o.addr : &any,
			    s->o.oob_port, &lsock, "control");
	if (ret)
		return ret;
	ret = pp_tcp_accept(s, lsock, &s->oob, "control");
	sock_release(lsock);
	return ret;
}

/* Name exchange: length (big-endian u32), format (host u32), name. */
static int pp_send_name(struct pp_session *s, const void *name, u32 len,
			u32 format)
{
	__be32 blen = cpu_to_be32(len);
	int ret;

	ret = pp_ctrl_send(s, &blen, sizeof(blen), "name length");
	if (!ret)
		ret = pp_ctrl_send(s, &format, sizeof(format), "address format");
	if (!ret)
		ret = pp_ctrl_send(s, name, len, "name");
	return ret;
}

/*
 * A link-local name carries the scope id (interface index) of the host
 * that sent it, meaningless here: the server is reached through the
 * interface this side named for the control connection (addr's zone).
 */
static void pp_name_local_scope(struct pp_session *s,
				struct sockaddr_storage *name)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)name;

	if (name->ss_family == AF_INET6 &&
	    (ipv6_addr_type(&sin6->sin6_addr) & IPV6_ADDR_LINKLOCAL) &&
	    s->o.addr.ss_family == AF_INET6)
		sin6->sin6_scope_id =
			((struct sockaddr_in6 *)&s->o.addr)->sin6_scope_id;
}

/*
 * Receives the server's name; only IPv4 and IPv6 socket addresses are
 * usable here. On success *@name is a kmalloc()ed copy of the name, with
 * room for a struct sockaddr_storage.
 */
static int pp_recv_name(struct pp_session *s, void **name, u32 *len,
			u32 *format)
{
	struct sockaddr *sa;
	__be32 blen;
	int ret;

	ret = pp_ctrl_recv(s, &blen, sizeof(blen), "name length");
	if (ret)
		return ret;
	*len = be32_to_cpu(blen);
	if (*len > PP_MAX_ADDRLEN) {
		pr_err("%s: control: name length %u over %u\n", pp_role(s),
		       *len, PP_MAX_ADDRLEN);
		return -EINVAL;
	}
	ret = pp_ctrl_recv(s, format, sizeof(*format), "address format");
	if (ret)
		return ret;
	*name = kzalloc(max_t(u32, *len, sizeof(struct sockaddr_storage)),
			GFP_KERNEL);
	if (!*name)
		return -ENOMEM;
	ret = pp_ctrl_recv(s, *name, *len, "name");
	if (ret)
		return ret;
	sa = *name;
	if ((sa->sa_family != AF_INET && sa->sa_family != AF_INET6) ||
	    *len < pp_addr_len(*name)) {
		pr_err("%s: control: peer name is not an IPv4 or IPv6 address (format %u, %u bytes)\n",
		       pp_role(s), *format, *len);
		return -EAFNOSUPPORT;
	}
	pp_name_local_scope(s, *name);
	return 0;
}

/* Per-size synchronisation: the client sends "q\0", the server "a\0". */
static int pp_ctrl_sync(struct pp_session *s)
{
	char buf[sizeof(pp_sync_q)];
	const char *want = s->o.server ? pp_sync_q : pp_sync_a;
	int ret;

	if (!s->o.server) {
		ret = pp_ctrl_send(s, pp_sync_q, sizeof(pp_sync_q), "sync");
		if (ret)
			return ret;
	}
	ret = pp_ctrl_recv(s, buf, sizeof(buf), "sync");
	if (ret)
		return ret;
	buf[sizeof(buf) - 1] = '\0';
	if (strcmp(buf, want)) {
		pr_err("%s: control: bad sync message \"%s\", expected \"%s\"\n",
		       pp_role(s), buf, want);
		return -EBADMSG;
	}
	if (s->o.server)
		ret = pp_ctrl_send(s, pp_sync_a, sizeof(pp_sync_a), "sync");
	return ret;
}

/*
 * After each size the client reports how many messages it received: 10
 * bytes of decimal digits padded with NULs; the server answers "cnt ok\0".
 * The server keeps the client's count (fi_pingpong's "#ack").
 */
static int pp_ctrl_count(struct pp_session *s)
{
	char buf[PP_CNT_LEN + 1] = {};
	long cnt;
	int ret;

	if (!s->o.server) {
		snprintf(buf, sizeof(buf), "%ld", s->cnt_ack);
		ret = pp_ctrl_send(s, buf, PP_CNT_LEN, "count");
		if (ret)
			return ret;
		memset(buf, 0, sizeof(buf));
		ret = pp_ctrl_recv(s, buf, sizeof(pp_cnt_ok), "count ack");
		if (ret)
			return ret;
		buf[sizeof(pp_cnt_ok) - 1] = '\0';
		if (strcmp(buf, pp_cnt_ok)) {
			pr_err("%s: control: bad count ack \"%s\"\n", pp_role(s),
			       buf);
			return -EBADMSG;
		}
		return 0;
	}
	ret = pp_ctrl_recv(s, buf, PP_CNT_LEN, "count");
	if (ret)
		return ret;
	if (kstrtol(buf, 10, &cnt) || cnt < 0) {
		pr_err("%s: control: bad count \"%s\"\n", pp_role(s), buf);
		return -EBADMSG;
	}
	if (cnt != s->o.iters)
		pr_warn("%s: client received %ld of %u messages\n", pp_role(s),
			cnt, s->o.iters);
	s->cnt_ack = cnt;
	return pp_ctrl_send(s, pp_cnt_ok, sizeof(pp_cnt_ok), "count ack");
}

/* ------------------------------------------------------------ waits */

/* Common end of a wait's polling round: signal, peer gone, deadline. */
static int pp_wait_check(struct pp_session *s, unsigned long deadline,
			 const char *what)
{
	if (signal_pending(current)) {
		pr_err("%s: %s: interrupted\n", pp_role(s), what);
		return -EINTR;
	}
	if (pp_oob_gone(s)) {
		pr_err("%s: %s: peer closed the control connection\n",
		       pp_role(s), what);
		return -ECONNABORTED;
	}
	if (time_after_eq(jiffies, deadline)) {
		pr_err("%s: %s: timed out after %u ms\n", pp_role(s), what,
		       s->o.timeout_ms);
		return -ETIMEDOUT;
	}
	return 0;
}

/* ------------------------------------------------------------ raw */

static int pp_raw_send(struct pp_session *s, size_t len, const char *what)
{
	int ret = pp_sock_send(s->data, s->tx_buf, len);

	if (ret)
		pr_err("%s: raw: sending %s failed: %d\n", pp_role(s), what, ret);
	return ret;
}

/*
 * wait=spin: polls the data socket (MSG_DONTWAIT) the way fi_pingpong's
 * provider polls its sockets, instead of sleeping in the receive.
 */
static int pp_sock_recv_spin(struct pp_session *s, struct socket *sock,
			     void *buf, size_t len, const char *what)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(s->o.timeout_ms);

	while (len) {
		struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
		struct kvec iov = { .iov_base = buf, .iov_len = len };
		int ret;

		ret = kernel_recvmsg(sock, &msg, &iov, 1, len, MSG_DONTWAIT);
		if (ret > 0) {
			buf += ret;
			len -= ret;
			deadline = jiffies + msecs_to_jiffies(s->o.timeout_ms);
			continue;
		}
		if (!ret)
			return -ECONNABORTED;
		if (ret != -EAGAIN)
			return ret;
		ret = pp_wait_check(s, deadline, what);
		if (ret)
			return ret;
		cond_resched();
	}
	return 0;
}

static int pp_raw_recv(struct pp_session *s, size_t len, const char *what)
{
	int ret;

	if (s->o.wait == PP_WAIT_SPIN)
		ret = pp_sock_recv_spin(s, s->data, s->rx_buf, len, what);
	else
		ret = pp_sock_recv(s->data, s->rx_buf, len);

	if (ret)
		pr_err("%s: raw: receiving %s failed: %d%s\n", pp_role(s), what,
		       ret,
		       ret == -ECONNABORTED ? " (peer closed the connection)" :
		       "");
	return ret;
}

/*
 * A transport that moves whole messages between the session's buffers
 * (raw sockets, a raw queue pair): its tx, rx and fin steps.
 */
struct pp_moves {
	const char *name;
	int (*send)(struct pp_session *s, size_t len, const char *what);
	int (*recv)(struct pp_session *s, size_t len, const char *what);
};

static int pp_moves_tx(const struct pp_moves *m, struct pp_session *s,
		       u32 size)
{
	if (s->o.verify && s->active)
		pp_fill(s, s->tx_buf, size);
	return m->send(s, size, "message");
}

static int pp_moves_rx(const struct pp_moves *m, struct pp_session *s,
		       u32 size)
{
	int ret = m->recv(s, size, "message");

	if (ret)
		return ret;
	if (s->o.verify && s->active) {
		ret = pp_check(s, s->rx_buf, size);
		if (ret)
			return ret;
	}
	s->cnt_ack++;
	return 0;
}

/* fi_pingpong's fin, each way; the control connection is closed after. */
static int pp_moves_finalize(const struct pp_moves *m, struct pp_session *s)
{
	int ret;

	memcpy(s->tx_buf, pp_fin, sizeof(pp_fin));
	ret = m->send(s, sizeof(pp_fin), "fin");
	if (!ret)
		ret = m->recv(s, sizeof(pp_fin), "fin");
	if (ret)
		return ret;
	if (s->o.verify && memcmp(s->rx_buf, pp_fin, sizeof(pp_fin))) {
		pr_err("%s: %s: bad fin message\n", pp_role(s), m->name);
		return -EBADMSG;
	}
	pp_oob_close(s);
	return 0;
}

static const struct pp_moves pp_raw_moves = {
	.name = "raw", .send = pp_raw_send, .recv = pp_raw_recv,
};

static int pp_raw_tx(struct pp_session *s, u32 size)
{
	return pp_moves_tx(&pp_raw_moves, s, size);
}

static int pp_raw_rx(struct pp_session *s, u32 size)
{
	return pp_moves_rx(&pp_raw_moves, s, size);
}

/*
 * Raw baseline: the server listens for the data connection on the fabric
 * source address and sends that address the way it would send its passive
 * endpoint's name; the client connects to it.
 */
static int pp_raw_connect(struct pp_session *s,
			  const struct sockaddr_storage *src)
{
	struct sockaddr_storage local = {};
	struct socket *lsock;
	void *name = NULL;
	u32 len, format;
	int ret;

	if (!s->o.server) {
		ret = pp_recv_name(s, &name, &len, &format);
		if (!ret) {
			struct sockaddr_storage *peer = name;

			ret = pp_tcp_connect(s, peer, pp_addr_port(peer),
					     &s->data, "data");
		}
		kfree(name);
		return ret;
	}
	ret = pp_tcp_listen(s, src, 0, &lsock, "data");
	if (ret)
		return ret;
	ret = kernel_getsockname(lsock, (struct sockaddr *)&local);
	if (ret < 0) {
		pr_err("%s: data: getsockname failed: %d\n", pp_role(s), ret);
		goto out;
	}
	ret = pp_send_name(s, &local, pp_addr_len(&local),
			   local.ss_family == AF_INET6 ? KFI_SOCKADDR_IN6 :
							 KFI_SOCKADDR_IN);
	if (!ret)
		ret = pp_tcp_accept(s, lsock, &s->data, "data");
out:
	sock_release(lsock);
	return ret;
}

static int pp_raw_finalize(struct pp_session *s)
{
	return pp_moves_finalize(&pp_raw_moves, s);
}

#ifdef PP_WITH_IBV
/* ------------------------------------------------------------ ibv */

/*
 * transport=ibv (ibv_pingpong.ko, this file built with PP_WITH_IBV): the same
 * exchange over one RC queue pair through the kernel's ib_verbs and
 * rdma_cm, without kfabric, the baseline of the verbs provider's
 * benchmark. Each side keeps one receive posted (reposted as soon as its
 * message is taken: the peer sends the next one only after our reply),
 * sends with a signalled work request (inline when it fits, as kfi_verbs
 * does for injects) and busy-polls its completion queue (IB_POLL_DIRECT)
 * for the send's and the receive's completions, which is the work
 * kfi_verbs does per message minus kfabric. Buffers are kmalloc'ed,
 * DMA-mapped once, reached through the protection domain's local key.
 */

/* The work requests, by wr_id. */
#define PP_IBV_RECV 1
#define PP_IBV_SEND 2

struct pp_ibv {
	spinlock_t lock;		/* @req, @ev_type, @ev_status */
	struct completion ev;		/* an rdma_cm event came */
	int ev_type;
	int ev_status;
	struct rdma_cm_id *listen;	/* server */
	struct rdma_cm_id *req;		/* server: the request */
	struct rdma_cm_id *id;		/* the connection */
	struct ib_pd *pd;
	struct ib_cq *cq;
	u64 tx_dma;
	u64 rx_dma;
	u32 max_inline;
	bool mapped;
	bool connected;
	int rx_ready;			/* receives completed, not taken */
	u32 rx_bytes;			/* length of the last one */
};

static int pp_ibv_handler(struct rdma_cm_id *id, struct rdma_cm_event *e)
{
	struct pp_session *s = id->context;
	struct pp_ibv *v = s->ibv;

	spin_lock(&v->lock);
	if (e->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		if (v->req) {
			spin_unlock(&v->lock);
			return -EBUSY;	/* rdma_cm destroys the new id */
		}
		v->req = id;
	}
	v->ev_type = e->event;
	v->ev_status = e->status;
	spin_unlock(&v->lock);
	complete(&v->ev);
	return 0;
}

/* Waits for rdma_cm event @want (armed by reinit_completion() before). */
static int pp_ibv_wait(struct pp_session *s, int want, const char *what)
{
	struct pp_ibv *v = s->ibv;
	int type, status;

	if (!wait_for_completion_timeout(&v->ev,
					 msecs_to_jiffies(s->o.timeout_ms))) {
		pr_err("%s: ibv: %s: timed out\n", pp_role(s), what);
		return -ETIMEDOUT;
	}
	spin_lock(&v->lock);
	type = v->ev_type;
	status = v->ev_status;
	spin_unlock(&v->lock);
	if (type != want) {
		pr_err("%s: ibv: %s: rdma_cm event %d (%s), status %d\n",
		       pp_role(s), what, type, rdma_event_msg(type), status);
		return status < 0 ? status : -ECONNREFUSED;
	}
	return 0;
}

static int pp_ibv_post_recv(struct pp_session *s)
{
	struct pp_ibv *v = s->ibv;
	struct ib_sge sge = { .addr = v->rx_dma, .length = s->rx_len,
			      .lkey = v->pd->local_dma_lkey };
	struct ib_recv_wr wr = { .wr_id = PP_IBV_RECV, .sg_list = &sge,
				 .num_sge = 1 };

	return ib_post_recv(v->id->qp, &wr, NULL);
}

/*
 * The queue pair of @id, its completion queue and protection domain, the
 * buffers mapped, the first receive posted.
 */
static int pp_ibv_qp(struct pp_session *s, struct rdma_cm_id *id)
{
	struct pp_ibv *v = s->ibv;
	struct ib_device *dev = id->device;
	struct ib_qp_init_attr a = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1, .max_inline_data = 64 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	int ret;

	v->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(v->pd)) {
		ret = PTR_ERR(v->pd);
		v->pd = NULL;
		return ret;
	}
	v->cq = ib_alloc_cq(dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(v->cq)) {
		ret = PTR_ERR(v->cq);
		v->cq = NULL;
		return ret;
	}
	a.send_cq = v->cq;
	a.recv_cq = v->cq;
	ret = rdma_create_qp(id, v->pd, &a);
	if (ret == -EINVAL) {
		a.cap.max_inline_data = 0;
		ret = rdma_create_qp(id, v->pd, &a);
	}
	if (ret)
		return ret;
	v->max_inline = a.cap.max_inline_data;
	v->tx_dma = ib_dma_map_single(dev, s->tx_buf, s->tx_len,
				      DMA_TO_DEVICE);
	v->rx_dma = ib_dma_map_single(dev, s->rx_buf, s->rx_len,
				      DMA_FROM_DEVICE);
	v->mapped = true;
	if (ib_dma_mapping_error(dev, v->tx_dma) ||
	    ib_dma_mapping_error(dev, v->rx_dma))
		return -ENOMEM;
	return pp_ibv_post_recv(s);
}

static void pp_ibv_param(struct rdma_conn_param *p)
{
	memset(p, 0, sizeof(*p));
	p->flow_control = 1;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

static struct rdma_cm_id *pp_ibv_id(struct pp_session *s)
{
	return rdma_create_id(current->nsproxy->net_ns, pp_ibv_handler, s,
			      RDMA_PS_TCP, IB_QPT_RC);
}

static int pp_ibv_server(struct pp_session *s,
			 const struct sockaddr_storage *src)
{
	struct pp_ibv *v = s->ibv;
	struct rdma_conn_param p;
	struct sockaddr_storage local;
	int ret;

	v->listen = pp_ibv_id(s);
	if (IS_ERR(v->listen)) {
		ret = PTR_ERR(v->listen);
		v->listen = NULL;
		return ret;
	}
	ret = rdma_bind_addr(v->listen, (struct sockaddr *)src);
	if (!ret)
		ret = rdma_listen(v->listen, 1);
	if (ret) {
		pr_err("%s: ibv: listen failed: %d\n", pp_role(s), ret);
		return ret;
	}
	local = v->listen->route.addr.src_addr;
	reinit_completion(&v->ev);
	ret = pp_send_name(s, &local, pp_addr_len(&local),
			   local.ss_family == AF_INET6 ? KFI_SOCKADDR_IN6 :
							 KFI_SOCKADDR_IN);
	if (!ret)
		ret = pp_ibv_wait(s, RDMA_CM_EVENT_CONNECT_REQUEST, "request");
	if (ret)
		return ret;
	spin_lock(&v->lock);
	v->id = v->req;
	spin_unlock(&v->lock);
	ret = pp_ibv_qp(s, v->id);
	if (ret)
		return ret;
	pp_ibv_param(&p);
	reinit_completion(&v->ev);
	/* outside its handler, an accept holds the id's handler mutex */
	rdma_lock_handler(v->id);
	ret = rdma_accept(v->id, &p);
	rdma_unlock_handler(v->id);
	if (!ret)
		ret = pp_ibv_wait(s, RDMA_CM_EVENT_ESTABLISHED, "accept");
	v->connected = !ret;
	return ret;
}

static int pp_ibv_client(struct pp_session *s)
{
	struct pp_ibv *v = s->ibv;
	struct rdma_conn_param p;
	void *name = NULL;
	u32 len, format;
	int ret;

	ret = pp_recv_name(s, &name, &len, &format);
	if (ret)
		return ret;
	v->id = pp_ibv_id(s);
	if (IS_ERR(v->id)) {
		ret = PTR_ERR(v->id);
		v->id = NULL;
		goto out;
	}
	reinit_completion(&v->ev);
	ret = rdma_resolve_addr(v->id, NULL, name, s->o.timeout_ms);
	if (!ret)
		ret = pp_ibv_wait(s, RDMA_CM_EVENT_ADDR_RESOLVED, "address");
	if (ret)
		goto out;
	reinit_completion(&v->ev);
	ret = rdma_resolve_route(v->id, s->o.timeout_ms);
	if (!ret)
		ret = pp_ibv_wait(s, RDMA_CM_EVENT_ROUTE_RESOLVED, "route");
	if (!ret)
		ret = pp_ibv_qp(s, v->id);
	if (ret)
		goto out;
	pp_ibv_param(&p);
	reinit_completion(&v->ev);
	ret = rdma_connect(v->id, &p);
	if (!ret)
		ret = pp_ibv_wait(s, RDMA_CM_EVENT_ESTABLISHED, "connect");
	v->connected = !ret;
out:
	kfree(name);
	return ret;
}

/* Polls the completion queue until a completion of @want came. */
static int pp_ibv_poll(struct pp_session *s, u64 want, const char *what)
{
	struct pp_ibv *v = s->ibv;
	unsigned long deadline = jiffies + msecs_to_jiffies(s->o.timeout_ms);
	struct ib_wc wc;
	int n, ret;

	for (;;) {
		if (want == PP_IBV_RECV && v->rx_ready) {
			v->rx_ready--;
			return 0;
		}
		n = ib_poll_cq(v->cq, 1, &wc);
		if (n < 0)
			return n;
		if (n) {
			if (wc.status != IB_WC_SUCCESS) {
				pr_err("%s: ibv: %s: completion status %d (%s)\n",
				       pp_role(s), what, wc.status,
				       ib_wc_status_msg(wc.status));
				return -EIO;
			}
			if (wc.wr_id == PP_IBV_RECV) {
				v->rx_ready++;
				v->rx_bytes = wc.byte_len;
			} else if (want == PP_IBV_SEND) {
				return 0;
			}
			continue;
		}
		ret = pp_wait_check(s, deadline, what);
		if (ret)
			return ret;
		cond_resched();
	}
}

static int pp_ibv_send(struct pp_session *s, size_t len, const char *what)
{
	struct pp_ibv *v = s->ibv;
	struct ib_device *dev = v->id->device;
	bool inl = len <= v->max_inline;
	/* an inline send is copied from the kernel address at the post */
	struct ib_sge sge = { .addr = inl ? (uintptr_t)s->tx_buf : v->tx_dma,
			      .length = len, .lkey = v->pd->local_dma_lkey };
	struct ib_send_wr wr = { .wr_id = PP_IBV_SEND, .sg_list = &sge,
				 .num_sge = len ? 1 : 0, .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED |
					       (inl ? IB_SEND_INLINE : 0) };
	int ret;

	if (!inl)
		ib_dma_sync_single_for_device(dev, v->tx_dma, len,
					      DMA_TO_DEVICE);
	ret = ib_post_send(v->id->qp, &wr, NULL);
	if (!ret)
		ret = pp_ibv_poll(s, PP_IBV_SEND, what);
	if (ret)
		pr_err("%s: ibv: sending %s failed: %d\n", pp_role(s), what,
		       ret);
	return ret;
}

static int pp_ibv_recv(struct pp_session *s, size_t len, const char *what)
{
	struct pp_ibv *v = s->ibv;
	int ret = pp_ibv_poll(s, PP_IBV_RECV, what);

	if (!ret && v->rx_bytes != len) {
		pr_err("%s: ibv: %s: %u bytes, expected %zu\n", pp_role(s),
		       what, v->rx_bytes, len);
		ret = -EBADMSG;
	}
	if (ret) {
		pr_err("%s: ibv: receiving %s failed: %d\n", pp_role(s), what,
		       ret);
		return ret;
	}
	ib_dma_sync_single_for_cpu(v->id->device, v->rx_dma, len,
				   DMA_FROM_DEVICE);
	/* the peer sends its next message after our reply only */
	return pp_ibv_post_recv(s);
}

static const struct pp_moves pp_ibv_moves = {
	.name = "ibv", .send = pp_ibv_send, .recv = pp_ibv_recv,
};

static int pp_ibv_tx(struct pp_session *s, u32 size)
{
	return pp_moves_tx(&pp_ibv_moves, s, size);
}

static int pp_ibv_rx(struct pp_session *s, u32 size)
{
	return pp_moves_rx(&pp_ibv_moves, s, size);
}

static int pp_ibv_finalize(struct pp_session *s)
{
	return pp_moves_finalize(&pp_ibv_moves, s);
}

static void pp_ibv_teardown(struct pp_session *s)
{
	struct pp_ibv *v = s->ibv;
	struct rdma_cm_id *req;

	if (!v)
		return;
	/* no request is taken after this */
	if (v->listen)
		rdma_destroy_id(v->listen);
	req = v->req;
	if (v->connected)
		rdma_disconnect(v->id);
	if (v->id && v->id->qp)
		rdma_destroy_qp(v->id);
	if (v->mapped) {
		ib_dma_unmap_single(v->id->device, v->tx_dma, s->tx_len,
				    DMA_TO_DEVICE);
		ib_dma_unmap_single(v->id->device, v->rx_dma, s->rx_len,
				    DMA_FROM_DEVICE);
	}
	if (v->cq)
		ib_free_cq(v->cq);
	if (v->pd)
		ib_dealloc_pd(v->pd);
	if (v->id)
		rdma_destroy_id(v->id);
	if (req && req != v->id)
		rdma_destroy_id(req);
	kfree(v);
	s->ibv = NULL;
}
#endif /* PP_WITH_IBV */

/* ------------------------------------------------------------ kfi */

enum pp_op {
	PP_OP_SEND,
	PP_OP_INJECT,
	PP_OP_RECV,
	PP_OP_FIN,
	PP_OP_TRIG,
	PP_OP_MORE,
};

static const char * const pp_op_name[][2] = {
	[PP_OP_SEND] = { "kfi_send", "kfi_tsend" },
	[PP_OP_INJECT] = { "kfi_inject", "kfi_tinject" },
	[PP_OP_RECV] = { "kfi_recv", "kfi_trecv" },
	[PP_OP_FIN] = { "kfi_sendmsg", "kfi_tsendmsg" },
	[PP_OP_TRIG] = { "kfi_sendmsg(KFI_TRIGGER)",
			 "kfi_tsendmsg(KFI_TRIGGER)" },
	[PP_OP_MORE] = { "kfi_sendmsg(KFI_MORE)", "kfi_tsendmsg(KFI_MORE)" },
};

static void pp_kfi_close(struct pp_session *s, struct kfid *fid,
			 const char *what)
{
	int ret = kfi_close(fid);

	if (ret)
		pr_err("%s: kfi_close(%s) failed: %d (%s)\n", pp_role(s), what,
		       ret, kfi_strerror(ret));
}

/* Logs a failed kfabric call; returns @ret. */
static int pp_kfi_err(struct pp_session *s, const char *call, long ret)
{
	pr_err("%s: %s failed: %ld (%s)\n", pp_role(s), call, ret,
	       kfi_strerror((int)ret));
	return (int)ret;
}

/* Reads the error entry behind -KFI_EAVAIL; returns its negated code. */
static int pp_kfi_cq_error(struct pp_session *s, struct kfid_cq *cq,
			   const char *what)
{
	struct kfi_cq_err_entry e = {};
	char text[80];
	ssize_t rd;

	rd = kfi_cq_readerr(cq, &e, 0);
	if (rd < 0)
		return pp_kfi_err(s, "kfi_cq_readerr", rd);
	pr_err("%s: %s: completion error %d (%s), provider: %s\n", pp_role(s),
	       what, e.err, kfi_strerror(e.err),
	       kfi_cq_strerror(cq, e.prov_errno, e.err_data, text,
			       sizeof(text)));
	return e.err ? -e.err : -EIO;
}

/*
 * Reads one completion from @cq without waiting. Returns 1 when one was
 * read (and counted in *@cur), 0 when the CQ was empty, or an error (an
 * error completion also counts, as in fi_pingpong).
 */
static int pp_kfi_cq_poll(struct pp_session *s, struct kfid_cq *cq, u64 *cur,
			  int timeout_ms, const char *what)
{
	struct kfi_cq_entry comp;
	ssize_t rd;

	if (timeout_ms)
		rd = kfi_cq_sread(cq, &comp, 1, NULL, timeout_ms);
	else
		rd = kfi_cq_read(cq, &comp, 1);
	if (rd > 0) {
		(*cur)++;
		return 1;
	}
	if (rd == -KFI_EAGAIN || rd == -KFI_ETIMEDOUT)
		return 0;
	if (rd == -KFI_EAVAIL) {
		(*cur)++;
		return pp_kfi_cq_error(s, cq, what);
	}
	return pp_kfi_err(s, timeout_ms ? "kfi_cq_sread" : "kfi_cq_read", rd);
}

/*
 * Waits until *@cur reaches @total. With wait=spin (fi_pingpong's way,
 * CQs without wait object) the CQ is polled, yielding the CPU when asked
 * to; with wait=sleep blocking reads are used. The timeout restarts on
 * every completion.
 */
static int pp_kfi_cq_wait(struct pp_session *s, struct kfid_cq *cq, u64 *cur,
			  u64 total, const char *what)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(s->o.timeout_ms);
	int ret;

	while (*cur < total) {
		ret = pp_kfi_cq_poll(s, cq, cur, s->o.wait == PP_WAIT_SLEEP ?
				     PP_EQ_SLICE_MS : 0, what);
		if (ret < 0)
			return ret;
		if (ret > 0) {
			deadline = jiffies + msecs_to_jiffies(s->o.timeout_ms);
			continue;
		}
		ret = pp_wait_check(s, deadline, what);
		if (ret)
			return ret;
		cond_resched();
	}
	return 0;
}

static ssize_t pp_kfi_post_once(struct pp_session *s, enum pp_op op,
				size_t len)
{
	struct pp_kfi *k = &s->k;
	u8 *tx = s->tx_buf + s->tx_off, *rx = s->rx_buf + s->rx_off;
	struct kvec iov = { .iov_base = tx, .iov_len = len };

	switch (op) {
	case PP_OP_SEND:
		if (s->o.tagged)
			return kfi_tsend(k->ep, tx, len, k->tx_desc,
					 k->peer, PP_TAG, &k->tx_ctx);
		return kfi_send(k->ep, tx, len, k->tx_desc, k->peer,
				&k->tx_ctx);
	case PP_OP_INJECT:
		if (s->o.tagged)
			return kfi_tinject(k->ep, tx, len, k->peer,
					   PP_TAG);
		return kfi_inject(k->ep, tx, len, k->peer);
	case PP_OP_RECV:
		if (s->o.tagged)
			return kfi_trecv(k->ep, rx, len, k->rx_desc,
					 KFI_ADDR_UNSPEC, PP_TAG, 0,
					 &k->rx_ctx);
		return kfi_recv(k->ep, rx, len, k->rx_desc,
				KFI_ADDR_UNSPEC, &k->rx_ctx);
	case PP_OP_FIN:
	case PP_OP_TRIG:
	case PP_OP_MORE: {
		/*
		 * fin: transmit-complete; a triggered send: fired by an add;
		 * more: others follow at once (injected below the inject size)
		 */
		bool fin = op == PP_OP_FIN;
		void *ctx = op == PP_OP_TRIG ? (void *)&k->trig_ctx :
			    fin ? (void *)&k->fin_ctx : (void *)&k->tx_ctx;
		u64 flags = fin ? KFI_TRANSMIT_COMPLETE :
			    op == PP_OP_TRIG ? KFI_TRIGGER : KFI_MORE;

		if (op == PP_OP_MORE && len - k->tx_prefix < k->inject_size)
			flags |= KFI_INJECT;

		if (s->o.tagged) {
			struct kfi_msg_tagged tmsg = {
				.type = KFI_KVEC,
				.msg_iov = &iov,
				.desc = &k->tx_desc,
				.iov_count = 1,
				.addr = k->peer,
				.tag = PP_TAG,
				.ignore = 0,
				.context = ctx,
			};

			return kfi_tsendmsg(k->ep, &tmsg, flags);
		} else {
			struct kfi_msg msg = {
				.type = KFI_KVEC,
				.msg_iov = &iov,
				.desc = &k->tx_desc,
				.iov_count = 1,
				.addr = k->peer,
				.context = ctx,
			};

			return kfi_sendmsg(k->ep, &msg, flags);
		}
	}
	}
	return -EINVAL;
}

/*
 * Posts one operation. While the provider's queue is full (-KFI_EAGAIN)
 * completions of the same direction are reaped and the post retried.
 * Counts the operation in tx_seq or rx_seq.
 */
static int pp_kfi_post(struct pp_session *s, enum pp_op op, size_t len)
{
	struct pp_kfi *k = &s->k;
	bool rx = op == PP_OP_RECV;
	const char *name = pp_op_name[op][s->o.tagged];
	unsigned long deadline = jiffies + msecs_to_jiffies(s->o.timeout_ms);
	ssize_t ret;
	int err;

	for (;;) {
		ret = pp_kfi_post_once(s, op, len);
		if (!ret)
			break;
		if (ret != -KFI_EAGAIN)
			return pp_kfi_err(s, name, ret);
		if (rx ? k->rx_cq_cntr < k->rx_seq : k->tx_cq_cntr < k->tx_seq) {
			err = pp_kfi_cq_poll(s, rx ? k->rxcq : k->txcq,
					     rx ? &k->rx_cq_cntr :
						  &k->tx_cq_cntr, 0, name);
			if (err < 0)
				return err;
		}
		err = pp_wait_check(s, deadline, name);
		if (err)
			return err;
		cond_resched();
	}
	if (rx)
		k->rx_seq++;
	else
		k->tx_seq++;
	return 0;
}

static int pp_kfi_post_rx(struct pp_session *s)
{
	return pp_kfi_post(s, PP_OP_RECV, s->rx_len);
}

/*
 * Posts one message of @size bytes from the current slot: injected below
 * the inject size (which has no completion: counted as completed), else
 * sent; does not wait.
 */
static int pp_kfi_send_post(struct pp_session *s, u32 size)
{
	struct pp_kfi *k = &s->k;
	int ret;

	if (size < k->inject_size) {
		ret = pp_kfi_post(s, PP_OP_INJECT, size + k->tx_prefix);
		if (!ret)
			k->tx_cq_cntr++;	/* an inject has no completion */
		return ret;
	}
	return pp_kfi_post(s, PP_OP_SEND, size + k->tx_prefix);
}

/*
 * trigger=1: the send is posted with KFI_TRIGGER at the counter's next
 * value, then one kfi_cntr_add() (timed) makes it due; its completion is
 * awaited as a plain send's is.
 */
static int pp_kfi_trig_tx(struct pp_session *s, u32 size)
{
	struct pp_kfi *k = &s->k;
	u64 t0;
	int ret;

	k->trig_ctx.event_type = KFI_TRIGGER_THRESHOLD;
	k->trig_ctx.trigger.threshold.cntr = k->trig_cntr;
	k->trig_ctx.trigger.threshold.threshold = k->trig_seq + 1;
	ret = pp_kfi_post(s, PP_OP_TRIG, size + k->tx_prefix);
	if (ret)
		return ret;
	t0 = ktime_get_ns();
	ret = kfi_cntr_add(k->trig_cntr, 1);
	k->add_ns += ktime_get_ns() - t0;
	k->adds++;
	if (ret)
		return pp_kfi_err(s, "kfi_cntr_add", ret);
	k->trig_seq++;
	return pp_kfi_cq_wait(s, k->txcq, &k->tx_cq_cntr, k->tx_seq,
			      "triggered send completion");
}

/* Sends one message and waits for its completion, or injects it. */
static int pp_kfi_tx(struct pp_session *s, u32 size)
{
	struct pp_kfi *k = &s->k;
	int ret;

	if (s->o.verify && s->active)
		pp_fill(s, s->tx_buf + k->tx_prefix, size);
	if (s->o.trigger && s->active)
		return pp_kfi_trig_tx(s, size);
	ret = pp_kfi_send_post(s, size);
	if (ret)
		return ret;
	return pp_kfi_cq_wait(s, k->txcq, &k->tx_cq_cntr, k->tx_seq,
			      "send completion");
}

/*
 * Waits for the posted receive, checks it, and posts the next one (always
 * of the full buffer: it may receive the next size, or "fin").
 */
static int pp_kfi_rx(struct pp_session *s, u32 size)
{
	struct pp_kfi *k = &s->k;
	int ret;

	ret = pp_kfi_cq_wait(s, k->rxcq, &k->rx_cq_cntr, k->rx_seq,
			     "receive completion");
	if (ret)
		return ret;
	if (s->o.verify && s->active) {
		ret = pp_check(s, s->rx_buf + k->rx_prefix, size);
		if (ret)
			return ret;
	}
	ret = pp_kfi_post_rx(s);
	if (!ret)
		s->cnt_ack++;
	return ret;
}

/*
 * mode=stream, the sender (fi_msg_bw's loop): @iters messages of @size
 * bytes, injected below the inject size, each window's completions
 * awaited before the next window (the data of a send in flight is the
 * provider's: with verify=1 each message of a window has a slot).
 */
static int pp_kfi_stream_tx(struct pp_session *s, u32 size)
{
	struct pp_kfi *k = &s->k;
	u32 i, j = 0;
	int ret = 0;

	for (i = 0; i < s->o.iters; i++) {
		s->tx_off = (i % s->slots) * s->tx_len;
		if (s->o.verify)
			pp_fill(s, s->tx_buf + s->tx_off + k->tx_prefix, size);
		if (s->o.more && j + 1 < s->o.window && i + 1 < s->o.iters)
			ret = pp_kfi_post(s, PP_OP_MORE, size + k->tx_prefix);
		else
			ret = pp_kfi_send_post(s, size);
		if (ret)
			break;
		if (++j == s->o.window) {
			j = 0;
			ret = pp_kfi_cq_wait(s, k->txcq, &k->tx_cq_cntr,
					     k->tx_seq, "send completion");
			if (ret)
				break;
		}
	}
	s->tx_off = 0;
	if (ret)
		return ret;
	return pp_kfi_cq_wait(s, k->txcq, &k->tx_cq_cntr, k->tx_seq,
			      "send completion");
}

/*
 * mode=stream, the receiver: receives for @iters messages, at most a
 * window posted at once (the first is the receive always pre-posted),
 * each window awaited whole and its messages checked in order; then the
 * receive for what comes next is posted again.
 */
static int pp_kfi_stream_rx(struct pp_session *s, u32 size)
{
	struct pp_kfi *k = &s->k;
	u32 posted = 1, done = 0;
	int ret = 0;

	while (done < s->o.iters) {
		while (posted < s->o.iters && posted - done < s->o.window) {
			s->rx_off = (posted % s->slots) * s->rx_len;
			ret = pp_kfi_post_rx(s);
			if (ret)
				goto out;
			posted++;
		}
		ret = pp_kfi_cq_wait(s, k->rxcq, &k->rx_cq_cntr, k->rx_seq,
				     "receive completion");
		if (ret)
			goto out;
		for (; done < posted && done < s->o.iters; done++) {
			if (!s->o.verify)
				continue;
			ret = pp_check(s, s->rx_buf + (done % s->slots) *
				       s->rx_len + k->rx_prefix, size);
			if (ret)
				goto out;
		}
	}
	s->cnt_ack += s->o.iters;
	s->rx_off = 0;
	ret = pp_kfi_post_rx(s);
out:
	s->rx_off = 0;
	return ret;
}

static int pp_kfi_hints(struct pp_session *s)
{
	struct kfi_info *h = kfi_allocinfo();

	if (!h)
		return -ENOMEM;
	s->k.hints = h;
	h->fabric_attr->prov_name = kstrdup(s->o.prov, GFP_KERNEL);
	if (!h->fabric_attr->prov_name)
		return -ENOMEM;
	h->ep_attr->type = s->o.rdm ? KFI_EP_RDM : KFI_EP_MSG;
	h->caps = s->o.tagged ? KFI_TAGGED : KFI_MSG;
	if (s->o.trigger)
		h->caps |= KFI_TRIGGER;
	h->mode = KFI_CONTEXT | KFI_CONTEXT2 | KFI_MSG_PREFIX;
	h->domain_attr->mr_mode = KFI_MR_LOCAL | KFI_MR_VIRT_ADDR |
				  KFI_MR_PROV_KEY;
	return 0;
}

/* fi_pingpong drops directed receive unless it asked for it. */
static void pp_kfi_no_directed_recv(struct kfi_info *info)
{
	info->caps &= ~KFI_DIRECTED_RECV;
	if (info->rx_attr)
		info->rx_attr->caps &= ~KFI_DIRECTED_RECV;
}

static int pp_kfi_getinfo(struct pp_session *s, const char *node,
			  const char *service, u64 flags,
			  struct kfi_info **info)
{
	int ret;

	ret = kfi_getinfo(KFI_VERSION(1, 7), node, service, flags, s->k.hints,
			  info);
	if (ret) {
		pr_err("%s: kfi_getinfo(%s, %s) for provider %s failed: %d (%s)\n",
		       pp_role(s), node ?: "NULL", service ?: "NULL",
		       s->k.hints->fabric_attr->prov_name, ret,
		       kfi_strerror(ret));
		return ret;
	}
	pp_kfi_no_directed_recv(*info);
	return 0;
}

static int pp_kfi_eq_open(struct pp_session *s)
{
	struct kfi_eq_attr attr = { .wait_obj = KFI_WAIT_UNSPEC };
	int ret;

	ret = kfi_eq_open(s->k.fabric, &attr, &s->k.eq, NULL, NULL);
	if (ret) {
		s->k.eq = NULL;
		return pp_kfi_err(s, "kfi_eq_open", ret);
	}
	return 0;
}

/* Room for a CM entry and the largest CM data (256 bytes over tcp). */
struct pp_cm_event {
	struct kfi_eq_cm_entry e;
	u8 data[256];
};

/*
 * Waits for the CM event @want on the EQ (for @fid unless NULL). A
 * KFI_CONNREQ's info is returned in *@info. Waits in slices so that a
 * peer gone from the control connection ends the wait early.
 */
static int pp_kfi_eq_wait(struct pp_session *s, u32 want, struct kfid *fid,
			  struct kfi_info **info, const char *what)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(s->o.timeout_ms);
	struct pp_cm_event ev;
	u32 event = 0;
	ssize_t rd;
	int ret;

	for (;;) {
		memset(&ev, 0, sizeof(ev));
		rd = kfi_eq_sread(s->k.eq, &event, &ev, sizeof(ev),
				  PP_EQ_SLICE_MS, 0);
		if (rd >= (ssize_t)sizeof(ev.e))
			break;
		if (rd == -KFI_EAVAIL) {
			struct kfi_eq_err_entry e = {};
			char text[80];

			rd = kfi_eq_readerr(s->k.eq, &e, 0);
			if (rd < 0)
				return pp_kfi_err(s, "kfi_eq_readerr", rd);
			pr_err("%s: %s: event queue error %d (%s), provider: %s\n",
			       pp_role(s), what, e.err, kfi_strerror(e.err),
			       kfi_eq_strerror(s->k.eq, e.prov_errno,
					       e.err_data, text, sizeof(text)));
			return e.err ? -e.err : -EIO;
		}
		if (rd >= 0) {
			pr_err("%s: %s: short event (%zd bytes)\n", pp_role(s),
			       what, rd);
			return -EIO;
		}
		if (rd != -KFI_EAGAIN && rd != -KFI_ETIMEDOUT)
			return pp_kfi_err(s, "kfi_eq_sread", rd);
		ret = pp_wait_check(s, deadline, what);
		if (ret)
			return ret;
	}
	if (event != want || (fid && ev.e.fid != fid)) {
		pr_err("%s: %s: unexpected CM event %u (fid %p), expected %u (fid %p)\n",
		       pp_role(s), what, event, ev.e.fid, want, fid);
		if (event == KFI_CONNREQ && ev.e.info) {
			if (s->k.pep)
				kfi_reject(s->k.pep, ev.e.info->handle, NULL, 0);
			kfi_freeinfo(ev.e.info);
		}
		return -EPROTO;
	}
	if (info)
		*info = ev.e.info;
	return 0;
}

/*
 * fi_pingpong's active resources: message buffers (registered when the
 * domain wants local MRs), a CQ per direction and the endpoint.
 */
static int pp_kfi_alloc_active(struct pp_session *s, struct kfi_info *fi)
{
	struct pp_kfi *k = &s->k;
	struct kfi_cq_attr attr = {
		.format = KFI_CQ_FORMAT_CONTEXT,
		.wait_obj = KFI_WAIT_NONE,
	};
	int ret;

	if (fi->tx_attr->mode & KFI_MSG_PREFIX)
		k->tx_prefix = fi->ep_attr->msg_prefix_size;
	if (fi->rx_attr->mode & KFI_MSG_PREFIX)
		k->rx_prefix = fi->ep_attr->msg_prefix_size;
	k->inject_size = fi->tx_attr->inject_size;
	k->max_msg_size = fi->ep_attr->max_msg_size;
	if (s->max_size > k->max_msg_size) {
		pr_err("%s: size %zu over the provider's max_msg_size %zu\n",
		       pp_role(s), s->max_size, k->max_msg_size);
		return -EMSGSIZE;
	}
	ret = pp_alloc_bufs(s, k->tx_prefix, k->rx_prefix);
	if (ret)
		return ret;
	if (fi->domain_attr->mr_mode & KFI_MR_LOCAL) {
		ret = kfi_mr_reg(k->domain, s->tx_buf, s->slots * s->tx_len,
				 KFI_SEND, 0,
				 PP_MR_KEY, 0, &k->tx_mr, NULL);
		if (ret) {
			k->tx_mr = NULL;
			return pp_kfi_err(s, "kfi_mr_reg", ret);
		}
		ret = kfi_mr_reg(k->domain, s->rx_buf, s->slots * s->rx_len,
				 KFI_RECV, 0,
				 PP_MR_KEY + 1, 0, &k->rx_mr, NULL);
		if (ret) {
			k->rx_mr = NULL;
			return pp_kfi_err(s, "kfi_mr_reg", ret);
		}
		k->tx_desc = kfi_mr_desc(k->tx_mr);
		k->rx_desc = kfi_mr_desc(k->rx_mr);
	}
	attr.size = fi->tx_attr->size;
	ret = kfi_cq_open(k->domain, &attr, &k->txcq, NULL, NULL);
	if (ret) {
		k->txcq = NULL;
		return pp_kfi_err(s, "kfi_cq_open(tx)", ret);
	}
	attr.size = fi->rx_attr->size;
	ret = kfi_cq_open(k->domain, &attr, &k->rxcq, NULL, NULL);
	if (ret) {
		k->rxcq = NULL;
		return pp_kfi_err(s, "kfi_cq_open(rx)", ret);
	}
	if (s->o.trigger) {
		ret = kfi_cntr_open(k->domain, NULL, &k->trig_cntr, NULL);
		if (ret) {
			k->trig_cntr = NULL;
			return pp_kfi_err(s, "kfi_cntr_open", ret);
		}
	}
	ret = kfi_endpoint(k->domain, fi, &k->ep, NULL);
	if (ret) {
		k->ep = NULL;
		return pp_kfi_err(s, "kfi_endpoint", ret);
	}
	return 0;
}

/*
 * Binds EQ (MSG) or AV (RDM) and CQs, enables the endpoint and pre-posts
 * a receive.
 */
static int pp_kfi_init_ep(struct pp_session *s)
{
	struct pp_kfi *k = &s->k;
	int ret;

	if (s->o.rdm)
		ret = kfi_ep_bind(k->ep, &k->av->fid, 0);
	else
		ret = kfi_ep_bind(k->ep, &k->eq->fid, 0);
	if (ret)
		return pp_kfi_err(s, s->o.rdm ? "kfi_ep_bind(av)" :
						"kfi_ep_bind(eq)", ret);
	ret = kfi_ep_bind(k->ep, &k->txcq->fid, KFI_TRANSMIT);
	if (ret)
		return pp_kfi_err(s, "kfi_ep_bind(tx cq)", ret);
	ret = kfi_ep_bind(k->ep, &k->rxcq->fid, KFI_RECV);
	if (ret)
		return pp_kfi_err(s, "kfi_ep_bind(rx cq)", ret);
	ret = kfi_enable(k->ep);
	if (ret)
		return pp_kfi_err(s, "kfi_enable", ret);
	return pp_kfi_post_rx(s);
}

/*
 * Once connected: one line of "last" with the endpoint's own and its
 * peer's address (kfi_getname/kfi_getpeer), e.g.
 *   client kfi local=[fd00::2]:41000 peer=[fd00::1]:46011
 * with a link-local address's scope id after a '%' inside the brackets.
 */
static void pp_kfi_report_names(struct pp_session *s)
{
	struct sockaddr_storage local = {}, peer = {};
	size_t llen = sizeof(local), plen = sizeof(peer);
	char ltext[PP_NODE_LEN + 8], ptext[PP_NODE_LEN + 8];
	int ret;

	ret = kfi_getname(&s->k.ep->fid, &local, &llen);
	if (!ret)
		ret = kfi_getpeer(s->k.ep, &peer, &plen);
	if (ret) {
		pp_kfi_err(s, "kfi_getname/kfi_getpeer", ret);
		return;
	}
	pp_addr_text(&local, ltext, sizeof(ltext));
	pp_addr_text(&peer, ptext, sizeof(ptext));
	pp_out(s, KBUILD_MODNAME ": %s kfi local=%s peer=%s\n", pp_role(s),
	       ltext, ptext);
}

static int pp_kfi_server_connect(struct pp_session *s,
				 const struct sockaddr_storage *src)
{
	struct pp_kfi *k = &s->k;
	u8 name[128];
	size_t len = sizeof(name);
	char node[PP_NODE_LEN];
	int ret;

	/* Passive side first: fabric, EQ, pep bound to the EQ, listening. */
	pp_addr_node(src, node, sizeof(node));
	ret = pp_kfi_getinfo(s, node, NULL, KFI_SOURCE, &k->pep_info);
	if (ret)
		return ret;
	ret = kfi_fabric(k->pep_info->fabric_attr, &k->fabric, NULL);
	if (ret) {
		k->fabric = NULL;
		return pp_kfi_err(s, "kfi_fabric", ret);
	}
	ret = pp_kfi_eq_open(s);
	if (ret)
		return ret;
	ret = kfi_passive_ep(k->fabric, k->pep_info, &k->pep, NULL);
	if (ret) {
		k->pep = NULL;
		return pp_kfi_err(s, "kfi_passive_ep", ret);
	}
	ret = kfi_pep_bind(k->pep, &k->eq->fid, 0);
	if (ret)
		return pp_kfi_err(s, "kfi_pep_bind", ret);
	ret = kfi_listen(k->pep);
	if (ret)
		return pp_kfi_err(s, "kfi_listen", ret);

	/* The client learns where to connect over the control connection. */
	ret = kfi_getname(&k->pep->fid, name, &len);
	if (ret)
		return pp_kfi_err(s, "kfi_getname", ret);
	ret = pp_send_name(s, name, len, k->pep_info->addr_format);
	if (ret)
		return ret;

	ret = pp_kfi_eq_wait(s, KFI_CONNREQ, &k->pep->fid, &k->info,
			     "waiting for the connection request");
	if (ret)
		return ret;
	ret = kfi_domain(k->fabric, k->info, &k->domain, NULL);
	if (ret) {
		k->domain = NULL;
		ret = pp_kfi_err(s, "kfi_domain", ret);
		goto reject;
	}
	ret = pp_kfi_alloc_active(s, k->info);
	if (ret)
		goto reject;
	ret = pp_kfi_init_ep(s);
	if (ret)
		return ret;
	ret = kfi_accept(k->ep, NULL, 0);
	if (ret)
		return pp_kfi_err(s, "kfi_accept", ret);
	ret = pp_kfi_eq_wait(s, KFI_CONNECTED, &k->ep->fid, NULL,
			     "waiting for the connection");
	if (ret)
		return ret;
	k->connected = true;
	pp_kfi_report_names(s);
	return 0;

reject:
	/* Once an endpoint exists it owns the request: closing it drops it. */
	if (!k->ep) {
		int err = kfi_reject(k->pep, k->info->handle, NULL, 0);

		if (err)
			pp_kfi_err(s, "kfi_reject", err);
	}
	return ret;
}

static int pp_kfi_client_connect(struct pp_session *s)
{
	struct pp_kfi *k = &s->k;
	struct sockaddr_storage *peer;
	char node[PP_NODE_LEN], service[8];
	void *name = NULL;
	u32 len, format;
	int ret;

	ret = pp_recv_name(s, &name, &len, &format);
	if (ret)
		goto out;
	peer = name;
	k->hints->addr_format = format;
	k->hints->dest_addr = kmemdup(name, len, GFP_KERNEL);
	if (!k->hints->dest_addr) {
		ret = -ENOMEM;
		goto out;
	}
	k->hints->dest_addrlen = len;
	pp_addr_node(peer, node, sizeof(node));
	snprintf(service, sizeof(service), "%u", pp_addr_port(peer));
	ret = pp_kfi_getinfo(s, node, service, 0, &k->info);
	if (ret)
		goto out;

	/* Fabric, EQ, domain; then the active resources. */
	ret = kfi_fabric(k->info->fabric_attr, &k->fabric, NULL);
	if (ret) {
		k->fabric = NULL;
		ret = pp_kfi_err(s, "kfi_fabric", ret);
		goto out;
	}
	ret = pp_kfi_eq_open(s);
	if (ret)
		goto out;
	ret = kfi_domain(k->fabric, k->info, &k->domain, NULL);
	if (ret) {
		k->domain = NULL;
		ret = pp_kfi_err(s, "kfi_domain", ret);
		goto out;
	}
	ret = pp_kfi_alloc_active(s, k->info);
	if (ret)
		goto out;
	ret = pp_kfi_init_ep(s);
	if (ret)
		goto out;
	ret = kfi_connect(k->ep, name, NULL, 0);
	if (ret) {
		ret = pp_kfi_err(s, "kfi_connect", ret);
		goto out;
	}
	ret = pp_kfi_eq_wait(s, KFI_CONNECTED, &k->ep->fid, NULL,
			     "waiting for the connection");
	if (!ret) {
		k->connected = true;
		pp_kfi_report_names(s);
	}
out:
	kfree(name);
	return ret;
}

/*
 * ep=rdm: fi_pingpong -e rdm's setup. Either side opens its domain, AV and
 * RDM endpoint on its fabric address (the server: addr's, or the loopback
 * address; the client: the address it reaches the server at, which on
 * this test's loopback is its own) and pre-posts a receive; the server
 * sends its endpoint's name over the control connection, then receives
 * the client's; each inserts the other's name into its AV. The first
 * send opens the connection.
 */
static int pp_kfi_rdm_setup(struct pp_session *s,
			    const struct sockaddr_storage *src)
{
	struct kfi_av_attr av_attr = { .type = KFI_AV_TABLE };
	struct pp_kfi *k = &s->k;
	u8 own[128];
	size_t own_len = sizeof(own);
	char node[PP_NODE_LEN], ltext[PP_NODE_LEN + 8], ptext[PP_NODE_LEN + 8];
	void *name = NULL;
	u32 len, format;
	int ret;

	pp_addr_node(src, node, sizeof(node));
	ret = pp_kfi_getinfo(s, node, NULL, KFI_SOURCE, &k->info);
	if (ret)
		return ret;
	ret = kfi_fabric(k->info->fabric_attr, &k->fabric, NULL);
	if (ret) {
		k->fabric = NULL;
		return pp_kfi_err(s, "kfi_fabric", ret);
	}
	ret = kfi_domain(k->fabric, k->info, &k->domain, NULL);
	if (ret) {
		k->domain = NULL;
		return pp_kfi_err(s, "kfi_domain", ret);
	}
	ret = kfi_av_open(k->domain, &av_attr, &k->av, NULL);
	if (ret) {
		k->av = NULL;
		return pp_kfi_err(s, "kfi_av_open", ret);
	}
	ret = pp_kfi_alloc_active(s, k->info);
	if (ret)
		return ret;
	ret = pp_kfi_init_ep(s);
	if (ret)
		return ret;
	ret = kfi_getname(&k->ep->fid, own, &own_len);
	if (ret)
		return pp_kfi_err(s, "kfi_getname", ret);
	if (s->o.server) {
		ret = pp_send_name(s, own, own_len, k->info->addr_format);
		if (!ret)
			ret = pp_recv_name(s, &name, &len, &format);
	} else {
		ret = pp_recv_name(s, &name, &len, &format);
		if (!ret)
			ret = pp_send_name(s, own, own_len,
					   k->info->addr_format);
	}
	if (ret)
		goto out;
	ret = kfi_av_insert(k->av, name, 1, &k->peer, 0, NULL);
	if (ret != 1) {
		ret = pp_kfi_err(s, "kfi_av_insert", ret < 0 ? ret : -EINVAL);
		goto out;
	}
	ret = 0;
	pp_addr_text((struct sockaddr_storage *)own, ltext, sizeof(ltext));
	pp_addr_text(name, ptext, sizeof(ptext));
	pp_out(s, KBUILD_MODNAME ": %s kfi rdm local=%s peer=%s\n",
	       pp_role(s), ltext, ptext);
out:
	kfree(name);
	return ret;
}

/*
 * "fin\0" with KFI_TRANSMIT_COMPLETE, its completion, the peer's "fin"
 * into the receive posted last, then the control connection is closed.
 */
static int pp_kfi_finalize(struct pp_session *s)
{
	struct pp_kfi *k = &s->k;
	int ret;

	memcpy(s->tx_buf + k->tx_prefix, pp_fin, sizeof(pp_fin));
	ret = pp_kfi_post(s, PP_OP_FIN, sizeof(pp_fin) + k->tx_prefix);
	if (ret)
		return ret;
	ret = pp_kfi_cq_wait(s, k->txcq, &k->tx_cq_cntr, k->tx_seq,
			     "fin send completion");
	if (ret)
		return ret;
	ret = pp_kfi_cq_wait(s, k->rxcq, &k->rx_cq_cntr, k->rx_seq,
			     "peer's fin");
	if (ret)
		return ret;
	if (s->o.verify &&
	    memcmp(s->rx_buf + k->rx_prefix, pp_fin, sizeof(pp_fin))) {
		pr_err("%s: bad fin message\n", pp_role(s));
		return -EBADMSG;
	}
	pp_oob_close(s);
	return 0;
}

/* Closes every kfabric object in the reverse order of creation. */
static void pp_kfi_teardown(struct pp_session *s)
{
	struct pp_kfi *k = &s->k;

	if (k->ep)
		pp_kfi_close(s, &k->ep->fid, "endpoint");
	if (k->av)
		pp_kfi_close(s, &k->av->fid, "address vector");
	if (k->trig_cntr)
		pp_kfi_close(s, &k->trig_cntr->fid, "trigger counter");
	if (k->rxcq)
		pp_kfi_close(s, &k->rxcq->fid, "rx cq");
	if (k->txcq)
		pp_kfi_close(s, &k->txcq->fid, "tx cq");
	if (k->rx_mr)
		pp_kfi_close(s, &k->rx_mr->fid, "rx mr");
	if (k->rma_mr)
		pp_kfi_close(s, &k->rma_mr->fid, "sink mr");
	if (k->tx_mr)
		pp_kfi_close(s, &k->tx_mr->fid, "tx mr");
	if (k->domain)
		pp_kfi_close(s, &k->domain->fid, "domain");
	if (k->pep)
		pp_kfi_close(s, &k->pep->fid, "passive endpoint");
	if (k->eq)
		pp_kfi_close(s, &k->eq->fid, "event queue");
	if (k->fabric)
		pp_kfi_close(s, &k->fabric->fid, "fabric");
	kfi_freeinfo(k->info);
	kfi_freeinfo(k->pep_info);
	kfi_freeinfo(k->hints);
	memset(k, 0, sizeof(*k));
}

/* ------------------------------------------------------------ sink */

/* What a sink session saw. */
struct pp_sink_result {
	const char *eq;		/* "shutdown", "error" or "timeout" */
	int eq_err;		/* positive: eq=error's, or shutdown's cause */
	u32 cq_errs;
	int first_cq_err;	/* positive, 0 when none */
	u32 recvs_done;
	int first_done;		/* receive index of the first completion */
	size_t first_len;
};

static size_t pp_sink_nrecv(const struct pp_session *s)
{
	return 2 * (size_t)s->o.recvs;
}

static int pp_sink_hints(struct pp_session *s)
{
	struct kfi_info *h = kfi_allocinfo();

	if (!h)
		return -ENOMEM;
	s->k.hints = h;
	h->fabric_attr->prov_name = kstrdup("tcp", GFP_KERNEL);
	if (!h->fabric_attr->prov_name)
		return -ENOMEM;
	h->ep_attr->type = KFI_EP_MSG;
	h->caps = KFI_MSG | KFI_TAGGED | KFI_RMA | KFI_REMOTE_READ |
		  KFI_REMOTE_WRITE;
	h->mode = KFI_CONTEXT | KFI_CONTEXT2;
	/* requested keys, offset addressing, no local registration */
	h->domain_attr->mr_mode = 0;
	return 0;
}

static int pp_sink_alloc(struct pp_session *s)
{
	size_t n = pp_sink_nrecv(s);

	s->mr_buf = kvmalloc(PP_SINK_MR_LEN, GFP_KERNEL);
	s->sink_bufs = kvzalloc(n * s->o.recv_size, GFP_KERNEL);
	s->sink_ctx = kcalloc(n, sizeof(*s->sink_ctx), GFP_KERNEL);
	if (!s->mr_buf || !s->sink_bufs || !s->sink_ctx)
		return -ENOMEM;
	memset(s->mr_buf, PP_SINK_FILL, PP_SINK_MR_LEN);
	return 0;
}

static void pp_sink_free(struct pp_session *s)
{
	kvfree(s->mr_buf);
	kvfree(s->sink_bufs);
	kfree(s->sink_ctx);
	s->mr_buf = NULL;
	s->sink_bufs = NULL;
	s->sink_ctx = NULL;
}

/*
 * The endpoint of the sink and the reader on their open domain: a tagged
 * CQ per direction (sized as the info says), the endpoint bound to the EQ
 * and the CQs, enabled.
 */
static int pp_bound_ep(struct pp_session *s)
{
	struct pp_kfi *k = &s->k;
	struct kfi_cq_attr attr = {
		.format = KFI_CQ_FORMAT_TAGGED,
		.wait_obj = KFI_WAIT_NONE,
	};
	int ret;

	attr.size = k->info->tx_attr->size;
	ret = kfi_cq_open(k->domain, &attr, &k->txcq, NULL, NULL);
	if (ret) {
		k->txcq = NULL;
		return pp_kfi_err(s, "kfi_cq_open(tx)", ret);
	}
	attr.size = k->info->rx_attr->size;
	ret = kfi_cq_open(k->domain, &attr, &k->rxcq, NULL, NULL);
	if (ret) {
		k->rxcq = NULL;
		return pp_kfi_err(s, "kfi_cq_open(rx)", ret);
	}
	ret = kfi_endpoint(k->domain, k->info, &k->ep, NULL);
	if (ret) {
		k->ep = NULL;
		return pp_kfi_err(s, "kfi_endpoint", ret);
	}
	ret = kfi_ep_bind(k->ep, &k->eq->fid, 0);
	if (ret)
		return pp_kfi_err(s, "kfi_ep_bind(eq)", ret);
	ret = kfi_ep_bind(k->ep, &k->txcq->fid, KFI_TRANSMIT);
	if (ret)
		return pp_kfi_err(s, "kfi_ep_bind(tx cq)", ret);
	ret = kfi_ep_bind(k->ep, &k->rxcq->fid, KFI_RECV);
	if (ret)
		return pp_kfi_err(s, "kfi_ep_bind(rx cq)", ret);
	ret = kfi_enable(k->ep);
	if (ret)
		return pp_kfi_err(s, "kfi_enable", ret);
	return 0;
}

/*
 * The endpoint of the accepted request: region, CQs, endpoint, bindings,
 * the pre-posted receives (untagged first, then tagged).
 */
static int pp_sink_endpoint(struct pp_session *s)
{
	struct pp_kfi *k = &s->k;
	size_t i, n = pp_sink_nrecv(s);
	ssize_t rd;
	int ret;

	ret = kfi_domain(k->fabric, k->info, &k->domain, NULL);
	if (ret) {
		k->domain = NULL;
		return pp_kfi_err(s, "kfi_domain", ret);
	}
	ret = kfi_mr_reg(k->domain, s->mr_buf, PP_SINK_MR_LEN,
			 KFI_REMOTE_READ | KFI_REMOTE_WRITE, 0, s->o.key, 0,
			 &k->rma_mr, NULL);
	if (ret) {
		k->rma_mr = NULL;
		return pp_kfi_err(s, "kfi_mr_reg", ret);
	}
	ret = pp_bound_ep(s);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		u8 *buf = s->sink_bufs + i * s->o.recv_size;

		if (i < s->o.recvs)
			rd = kfi_recv(k->ep, buf, s->o.recv_size, NULL,
				      KFI_ADDR_UNSPEC, &s->sink_ctx[i]);
		else
			rd = kfi_trecv(k->ep, buf, s->o.recv_size, NULL,
				       KFI_ADDR_UNSPEC, PP_TAG, 0,
				       &s->sink_ctx[i]);
		if (rd)
			return pp_kfi_err(s, i < s->o.recvs ? "kfi_recv" :
					  "kfi_trecv", rd);
	}
	return 0;
}

/*
 * The cause kfi_tcp noted for the last connection ended by an error (and
 * cleared), if kfi_tcp is loaded: KFI_SHUTDOWN itself carries none.
 */
static int pp_last_break(void)
{
	int (*f)(void) = symbol_get(kfi_tcp_stat_last_break);
	int err = 0;

	if (f) {
		err = f();
		symbol_put(kfi_tcp_stat_last_break);
	}
	return err;
}

/*
 * Waits until the connection ends: KFI_SHUTDOWN or an error entry on the
 * EQ, or the timeout (r->eq "timeout", -ETIMEDOUT). Further connection
 * requests are refused: the sink serves one connection. Also the wait of
 * role=reader, whose EQ has no passive endpoint.
 */
static int pp_sink_wait_end(struct pp_session *s, struct pp_sink_result *r)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(s->o.timeout_ms);
	const char *what = "waiting for the connection to end";
	struct pp_kfi *k = &s->k;
	struct pp_cm_event ev;
	u32 event;
	ssize_t rd;
	int ret;

	for (;;) {
		memset(&ev, 0, sizeof(ev));
		event = 0;
		rd = kfi_eq_sread(k->eq, &event, &ev, sizeof(ev),
				  PP_EQ_SLICE_MS, 0);
		if (rd >= (ssize_t)sizeof(ev.e)) {
			if (event == KFI_CONNECTED && ev.e.fid == &k->ep->fid) {
				k->connected = true;
			} else if (event == KFI_SHUTDOWN &&
				   ev.e.fid == &k->ep->fid) {
				r->eq = "shutdown";
				r->eq_err = pp_last_break();
				return 0;
			} else if (event == KFI_CONNREQ && ev.e.info) {
				pr_info("%s: refusing a second connection request\n",
					pp_role(s));
				if (k->pep)
					kfi_reject(k->pep, ev.e.info->handle,
						   NULL, 0);
				kfi_freeinfo(ev.e.info);
			} else {
				pr_err("%s: %s: unexpected CM event %u (fid %p)\n",
				       pp_role(s), what, event, ev.e.fid);
			}
			continue;
		}
		if (rd == -KFI_EAVAIL) {
			struct kfi_eq_err_entry e = {};

			rd = kfi_eq_readerr(k->eq, &e, 0);
			if (rd < 0)
				return pp_kfi_err(s, "kfi_eq_readerr", rd);
			if (e.fid != &k->ep->fid) {
				pr_err("%s: %s: error %d on another object\n",
				       pp_role(s), what, e.err);
				continue;
			}
			pr_info("%s: connection ended with error %d (%s)\n",
				pp_role(s), e.err, kfi_strerror(e.err));
			r->eq = "error";
			r->eq_err = e.err;
			return 0;
		}
		if (rd >= 0) {
			pr_err("%s: %s: short event (%zd bytes)\n", pp_role(s),
			       what, rd);
			return -EIO;
		}
		if (rd != -KFI_EAGAIN && rd != -KFI_ETIMEDOUT)
			return pp_kfi_err(s, "kfi_eq_sread", rd);
		ret = pp_wait_check(s, deadline, what);
		if (ret == -ETIMEDOUT)
			r->eq = "timeout";
		if (ret)
			return ret;
	}
}

/* Reads what @cq holds: completions and error entries, counted in @r. */
static int pp_sink_drain_cq(struct pp_session *s, struct kfid_cq *cq,
			    struct pp_sink_result *r, size_t *reported)
{
	struct kfi_cq_tagged_entry c[8];
	ssize_t rd;
	int i;

	for (;;) {
		rd = kfi_cq_read(cq, c, ARRAY_SIZE(c));
		if (rd == -KFI_EAGAIN)
			return 0;
		if (rd == -KFI_EAVAIL) {
			struct kfi_cq_err_entry e = {};

			rd = kfi_cq_readerr(cq, &e, 0);
			if (rd < 0)
				return pp_kfi_err(s, "kfi_cq_readerr", rd);
			if (!r->cq_errs++)
				r->first_cq_err = e.err;
			(*reported)++;
			continue;
		}
		if (rd < 0)
			return pp_kfi_err(s, "kfi_cq_read", rd);
		for (i = 0; i < rd; i++) {
			struct kfi_context2 *ctx = c[i].op_context;

			/* remote-write entries carry no operation */
			if (!(c[i].flags & KFI_RECV))
				continue;
			(*reported)++;
			if (!r->recvs_done++ && ctx >= s->sink_ctx &&
			    ctx < s->sink_ctx + pp_sink_nrecv(s)) {
				r->first_done = ctx - s->sink_ctx;
				r->first_len = c[i].len;
			}
		}
	}
}

/*
 * After the end: every receive ends with exactly one entry (completion or
 * error); with @wait, waits a little for those the provider is still
 * writing. Returns the number of receives that got none.
 */
static size_t pp_sink_drain(struct pp_session *s, struct pp_sink_result *r,
			    bool wait)
{
	unsigned long deadline = jiffies +
		msecs_to_jiffies(min_t(u32, s->o.timeout_ms, PP_SINK_DRAIN_MS));
	size_t reported = 0, n = pp_sink_nrecv(s);

	for (;;) {
		if (pp_sink_drain_cq(s, s->k.rxcq, r, &reported) ||
		    pp_sink_drain_cq(s, s->k.txcq, r, &reported))
			break;
		if (!wait || reported >= n ||
		    time_after_eq(jiffies, deadline) || signal_pending(current))
			break;
		msleep(20);
	}
	return reported >= n ? 0 : n - reported;
}

/* Appends the sink's report line (after the endpoint is closed). */
static void pp_sink_report(struct pp_session *s, struct pp_sink_result *r,
			   size_t unreported)
{
	u32 i, changed = 0;
	bool intact = true;
	const u8 *data = NULL;
	int dlen = 0;

	for (i = 0; i < PP_SINK_MR_LEN; i++) {
		if (s->mr_buf[i] == PP_SINK_FILL)
			continue;
		changed++;
		if (i >= s->o.expect_write)
			intact = false;
	}
	if (r->first_done >= 0) {
		data = s->sink_bufs + (size_t)r->first_done * s->o.recv_size;
		dlen = min_t(size_t, r->first_len,
			     min_t(size_t, s->o.recv_size, PP_SINK_DATA_MAX));
	}
	pp_out(s, KBUILD_MODNAME ": sink eq=%s eq_err=%d cq_errs=%u first_cq_err=%d recvs_done=%u mr_intact=%d mr_changed=%u unreported=%zu recv_data=%*phN\n",
	       r->eq, r->eq_err, r->cq_errs, r->first_cq_err, r->recvs_done,
	       intact, changed, unreported, dlen, data);
}

/*
 * role=sink: listens on addr:port, accepts one connection with the
 * region and receives in place, waits for its end, drains the CQs, closes
 * everything and reports.
 */
static int pp_sink_run(struct pp_session *s)
{
	struct pp_sink_result r = { .eq = "none", .first_done = -1 };
	struct pp_kfi *k = &s->k;
	size_t unreported = 0;
	char node[PP_NODE_LEN], service[8];
	int ret;

	/* a cause left from an earlier connection is not this one's */
	pp_last_break();
	ret = pp_sink_alloc(s);
	if (!ret)
		ret = pp_sink_hints(s);
	if (ret)
		goto out;
	pp_addr_node(&s->o.addr, node, sizeof(node));
	snprintf(service, sizeof(service), "%u", s->o.port);
	ret = pp_kfi_getinfo(s, node, service, KFI_SOURCE, &k->pep_info);
	if (ret)
		goto out;
	ret = kfi_fabric(k->pep_info->fabric_attr, &k->fabric, NULL);
	if (ret) {
		k->fabric = NULL;
		ret = pp_kfi_err(s, "kfi_fabric", ret);
		goto out;
	}
	ret = pp_kfi_eq_open(s);
	if (ret)
		goto out;
	ret = kfi_passive_ep(k->fabric, k->pep_info, &k->pep, NULL);
	if (ret) {
		k->pep = NULL;
		ret = pp_kfi_err(s, "kfi_passive_ep", ret);
		goto out;
	}
	ret = kfi_pep_bind(k->pep, &k->eq->fid, 0);
	if (ret) {
		ret = pp_kfi_err(s, "kfi_pep_bind", ret);
		goto out;
	}
	ret = kfi_listen(k->pep);
	if (ret) {
		ret = pp_kfi_err(s, "kfi_listen", ret);
		goto out;
	}
	pr_debug("sink: listening on %s:%s\n", node, service);

	ret = pp_kfi_eq_wait(s, KFI_CONNREQ, &k->pep->fid, &k->info,
			     "waiting for the connection request");
	if (ret)
		goto out;
	ret = pp_sink_endpoint(s);
	if (ret) {
		/* once an endpoint exists it owns the request */
		if (!k->ep)
			kfi_reject(k->pep, k->info->handle, NULL, 0);
		goto out;
	}
	ret = kfi_accept(k->ep, NULL, 0);
	if (ret) {
		ret = pp_kfi_err(s, "kfi_accept", ret);
		goto out;
	}
	ret = pp_sink_wait_end(s, &r);
	/* a connection still up keeps its receives posted: no wait */
	unreported = pp_sink_drain(s, &r, !ret);
out:
	/* nothing writes into the region once the endpoint is closed */
	pp_kfi_teardown(s);
	if (s->mr_buf && strcmp(r.eq, "none"))
		pp_sink_report(s, &r, unreported);
	pp_sink_free(s);
	return ret;
}

/* ------------------------------------------------------------ reader */

/* What a reader session saw of its read. */
struct pp_reader_result {
	const char *read;	/* "done", "error" or "none" */
	int read_err;		/* positive, 0 when none */
	size_t read_len;	/* the success entry's length */
	u32 cq_errs;		/* error entries on both CQs */
};

/* Bytes of the read's local buffer (the guard areas not counted). */
static size_t pp_reader_len(const struct pp_session *s)
{
	return (size_t)s->o.regions * s->o.rlen;
}

/*
 * The byte a well-behaved peer puts at offset @i of the read's buffer:
 * fi_pingpong's alphabet from offset 0 on, never the fill byte.
 */
static u8 pp_reader_pattern(size_t i)
{
	return pp_alphabet[i % PP_ALPHABET_LEN];
}

/**
 * pp_reader_alloc() - Allocate the read's buffer and its remote regions.
 * @s: Session of role=reader.
 *
 * The buffer has PP_READER_GUARD bytes before and after the part the read
 * targets; all of it holds PP_READER_FILL. Region i of the read is
 * raddr + i * rlen, rlen bytes, key @s->o.key.
 *
 * Return: 0 or -ENOMEM.
 */
static int pp_reader_alloc(struct pp_session *s)
{
	size_t total = pp_reader_len(s) + 2 * PP_READER_GUARD;
	u32 i;

	s->rd_buf = kvmalloc(total, GFP_KERNEL);
	s->rd_iov = kcalloc(max_t(u32, s->o.regions, 1), sizeof(*s->rd_iov),
			    GFP_KERNEL);
	if (!s->rd_buf || !s->rd_iov)
		return -ENOMEM;
	memset(s->rd_buf, PP_READER_FILL, total);
	for (i = 0; i < s->o.regions; i++) {
		s->rd_iov[i].addr = s->o.raddr + (u64)i * s->o.rlen;
		s->rd_iov[i].len = s->o.rlen;
		s->rd_iov[i].key = s->o.key;
	}
	return 0;
}

static void pp_reader_free(struct pp_session *s)
{
	kvfree(s->rd_buf);
	kfree(s->rd_iov);
	s->rd_buf = NULL;
	s->rd_iov = NULL;
}

/**
 * pp_reader_hints() - Hints of role=reader's endpoint.
 * @s: Session of role=reader.
 *
 * The sink's, from the initiator's side: tcp, MSG endpoint, reads, no
 * local registration (the buffer needs no descriptor).
 *
 * Return: 0 or -ENOMEM.
 */
static int pp_reader_hints(struct pp_session *s)
{
	struct kfi_info *h = kfi_allocinfo();

	if (!h)
		return -ENOMEM;
	s->k.hints = h;
	h->fabric_attr->prov_name = kstrdup("tcp", GFP_KERNEL);
	if (!h->fabric_attr->prov_name)
		return -ENOMEM;
	h->ep_attr->type = KFI_EP_MSG;
	h->caps = KFI_MSG | KFI_RMA | KFI_READ;
	h->mode = KFI_CONTEXT | KFI_CONTEXT2;
	h->domain_attr->mr_mode = 0;
	return 0;
}

/**
 * pp_reader_endpoint() - Domain, CQs and enabled endpoint of the reader.
 * @s: Session of role=reader, its fabric and EQ open.
 *
 * Return: 0 or the failed call's error.
 */
static int pp_reader_endpoint(struct pp_session *s)
{
	struct pp_kfi *k = &s->k;
	int ret;

	ret = kfi_domain(k->fabric, k->info, &k->domain, NULL);
	if (ret) {
		k->domain = NULL;
		return pp_kfi_err(s, "kfi_domain", ret);
	}
	return pp_bound_ep(s);
}

/**
 * pp_reader_post() - Post the one read of role=reader.
 * @s: Session of role=reader, connected.
 *
 * A kfi_readmsg() of all regions into the buffer between the guards, one
 * local segment, with a completion (context &s->k.tx_ctx).
 *
 * Return: 0 or the post's error.
 */
static int pp_reader_post(struct pp_session *s)
{
	struct kvec iov = {
		.iov_base = s->rd_buf + PP_READER_GUARD,
		.iov_len = pp_reader_len(s),
	};
	struct kfi_msg_rma msg = {
		.type = KFI_KVEC,
		.msg_iov = &iov,
		.desc = NULL,
		.iov_count = 1,
		.addr = 0,
		.rma_iov = s->rd_iov,
		.rma_iov_count = s->o.regions,
		.context = &s->k.tx_ctx,
	};
	ssize_t ret;

	ret = kfi_readmsg(s->k.ep, &msg, KFI_COMPLETION);
	if (ret)
		return pp_kfi_err(s, "kfi_readmsg", ret);
	return 0;
}

/* Reads what @cq holds: the read's entry, error entries counted in @r. */
static int pp_reader_drain_cq(struct pp_session *s, struct kfid_cq *cq,
			      struct pp_reader_result *r)
{
	struct kfi_cq_tagged_entry c[8];
	ssize_t rd;
	int i;

	for (;;) {
		rd = kfi_cq_read(cq, c, ARRAY_SIZE(c));
		if (rd == -KFI_EAGAIN)
			return 0;
		if (rd == -KFI_EAVAIL) {
			struct kfi_cq_err_entry e = {};

			rd = kfi_cq_readerr(cq, &e, 0);
			if (rd < 0)
				return pp_kfi_err(s, "kfi_cq_readerr", rd);
			r->cq_errs++;
			if (e.op_context == &s->k.tx_ctx) {
				r->read = "error";
				r->read_err = e.err;
			}
			continue;
		}
		if (rd < 0)
			return pp_kfi_err(s, "kfi_cq_read", rd);
		for (i = 0; i < rd; i++) {
			if (c[i].op_context != &s->k.tx_ctx)
				continue;
			r->read = "done";
			r->read_len = c[i].len;
		}
	}
}

/*
 * After the end: the read's entry, waited for a little with @wait (every
 * entry is written before KFI_SHUTDOWN; this covers an EQ error entry).
 */
static void pp_reader_drain(struct pp_session *s, struct pp_reader_result *r,
			    bool wait)
{
	unsigned long deadline = jiffies +
		msecs_to_jiffies(min_t(u32, s->o.timeout_ms, PP_SINK_DRAIN_MS));

	for (;;) {
		if (pp_reader_drain_cq(s, s->k.txcq, r) ||
		    pp_reader_drain_cq(s, s->k.rxcq, r))
			break;
		if (!wait || !s->o.regions || strcmp(r->read, "none") ||
		    time_after_eq(jiffies, deadline) || signal_pending(current))
			break;
		msleep(20);
	}
}

/**
 * pp_reader_report() - Append role=reader's report line.
 * @s: Session of role=reader, its endpoint closed.
 * @e: What the EQ said.
 * @r: What became of the read.
 *
 * Compares the buffer with what a well-behaved peer writes: written is
 * the longest prefix holding pp_reader_pattern(), intact says every byte
 * after it still holds the fill byte, changed counts the bytes that do
 * not, outside the changed bytes of the guard areas.
 */
static void pp_reader_report(struct pp_session *s, struct pp_sink_result *e,
			     struct pp_reader_result *r)
{
	size_t i, len = pp_reader_len(s), written = 0, changed = 0;
	const u8 *buf = s->rd_buf + PP_READER_GUARD;
	u32 outside = 0;
	bool intact = true;

	for (i = 0; i < PP_READER_GUARD; i++) {
		outside += s->rd_buf[i] != PP_READER_FILL;
		outside += buf[len + i] != PP_READER_FILL;
	}
	while (written < len && buf[written] == pp_reader_pattern(written))
		written++;
	for (i = 0; i < len; i++) {
		if (buf[i] == PP_READER_FILL)
			continue;
		changed++;
		if (i >= written)
			intact = false;
	}
	pp_out(s, KBUILD_MODNAME ": reader eq=%s eq_err=%d read=%s read_err=%d read_len=%zu cq_errs=%u written=%zu intact=%d changed=%zu outside=%u\n",
	       e->eq, e->eq_err, r->read, r->read_err, r->read_len,
	       r->cq_errs, written, intact, changed, outside);
}

/**
 * pp_reader_run() - role=reader: one RMA read as the connection's initiator.
 * @s: Session of role=reader.
 *
 * Connects to addr:port (a tcp peer that accepts), posts one read of
 * @s->o.regions regions (none with regions=0), waits until the connection
 * ends, takes the read's entry, closes everything and reports.
 *
 * Context: Process context; sleeps. Every wait is bounded by timeout_ms.
 * Return: 0 when the connection came and ended, or a negative error.
 */
static int pp_reader_run(struct pp_session *s)
{
	struct pp_sink_result e = { .eq = "none", .first_done = -1 };
	struct pp_reader_result r = { .read = "none" };
	struct pp_kfi *k = &s->k;
	char node[PP_NODE_LEN], service[8];
	int ret;

	/* a cause left from an earlier connection is not this one's */
	pp_last_break();
	ret = pp_reader_alloc(s);
	if (!ret)
		ret = pp_reader_hints(s);
	if (ret)
		goto out;
	pp_addr_node(&s->o.addr, node, sizeof(node));
	snprintf(service, sizeof(service), "%u", s->o.port);
	ret = pp_kfi_getinfo(s, node, service, 0, &k->info);
	if (ret)
		goto out;
	if (!k->info->dest_addr) {
		pr_err("reader: no destination address for %s:%s\n", node,
		       service);
		ret = -EINVAL;
		goto out;
	}
	ret = kfi_fabric(k->info->fabric_attr, &k->fabric, NULL);
	if (ret) {
		k->fabric = NULL;
		ret = pp_kfi_err(s, "kfi_fabric", ret);
		goto out;
	}
	ret = pp_kfi_eq_open(s);
	if (!ret)
		ret = pp_reader_endpoint(s);
	if (ret)
		goto out;
	ret = kfi_connect(k->ep, k->info->dest_addr, NULL, 0);
	if (ret) {
		ret = pp_kfi_err(s, "kfi_connect", ret);
		goto out;
	}
	ret = pp_kfi_eq_wait(s, KFI_CONNECTED, &k->ep->fid, NULL,
			     "waiting for the connection");
	if (ret)
		goto out;
	k->connected = true;
	if (s->o.regions) {
		ret = pp_reader_post(s);
		if (ret)
			goto out;
	}
	ret = pp_sink_wait_end(s, &e);
	/* a connection still up may still complete it: no wait */
	pp_reader_drain(s, &r, !ret);
out:
	/* nothing writes into the buffer once the endpoint is closed */
	pp_kfi_teardown(s);
	if (s->rd_buf && strcmp(e.eq, "none"))
		pp_reader_report(s, &e, &r);
	pp_reader_free(s);
	return ret;
}

/* ------------------------------------------------------------ session */

static int pp_tx(struct pp_session *s, u32 size)
{
#ifdef PP_WITH_IBV
	if (s->o.transport == PP_IBV)
		return pp_ibv_tx(s, size);
#endif
	return s->o.transport == PP_RAW ? pp_raw_tx(s, size) :
					  pp_kfi_tx(s, size);
}

static int pp_rx(struct pp_session *s, u32 size)
{
#ifdef PP_WITH_IBV
	if (s->o.transport == PP_IBV)
		return pp_ibv_rx(s, size);
#endif
	return s->o.transport == PP_RAW ? pp_raw_rx(s, size) :
					  pp_kfi_rx(s, size);
}

/* One size: sync, timed iterations, count exchange, report. */
static int pp_pingpong(struct pp_session *s, u32 size)
{
	ktime_t start;
	u64 ns;
	u32 i;
	int ret;

	ret = pp_ctrl_sync(s);
	if (ret)
		return ret;
	s->cnt_ack = 0;
	s->active = true;
	/* The client's timed loop is what scripts/iprof.sh profiles. */
	if (!s->o.server)
		KFI_IPROF_MARK();
	start = ktime_get();
	for (i = 0; i < s->o.iters; i++) {
		if (s->o.server) {
			ret = pp_rx(s, size);
			KFI_TCP_TR_AS(PP_RX_DONE, true);
			if (!ret) {
				KFI_TCP_TR_AS(PP_TX, true);
				ret = pp_tx(s, size);
				KFI_TCP_TR_AS(PP_TX_DONE, true);
			}
		} else {
			KFI_TCP_TR_AS(PP_TX, false);
			ret = pp_tx(s, size);
			KFI_TCP_TR_AS(PP_TX_DONE, false);
			if (!ret)
				ret = pp_rx(s, size);
			KFI_TCP_TR_AS(PP_RX_DONE, false);
		}
		if (ret) {
			s->active = false;
			pr_err("%s: %s %s: size %u failed at iteration %u: %d\n",
			       pp_role(s), pp_tname(s), pp_mode(s), size, i,
			       ret);
			return ret;
		}
	}
	ns = ktime_to_ns(ktime_sub(ktime_get(), start));
	if (!s->o.server)
		KFI_IPROF_MARK();
	s->active = false;
	ret = pp_ctrl_count(s);
	if (ret)
		return ret;
	pp_report(s, size, ns);
	return 0;
}

/* The message that ends a window-stream (mode=stream), receiver to sender. */
#define PP_STREAM_ACK	4

/*
 * mode=stream, one size (fi_msg_bw's bandwidth loop): sync; the client
 * sends @iters messages with a window of them outstanding, the server
 * receives them; the server then sends a PP_STREAM_ACK-byte message, and
 * the time is taken when it was sent (received); count exchange, report.
 */
static int pp_stream(struct pp_session *s, u32 size)
{
	ktime_t start;
	u64 ns;
	int ret;
	u32 i;

	ret = pp_ctrl_sync(s);
	if (ret)
		return ret;
	s->cnt_ack = 0;
	s->active = true;
	if (!s->o.server)
		KFI_IPROF_MARK();
	start = ktime_get();
	if (s->o.transport == PP_KFI) {
		ret = s->o.server ? pp_kfi_stream_rx(s, size) :
				    pp_kfi_stream_tx(s, size);
	} else {
		/* raw: one sendmsg (recvmsg until whole) per message */
		for (i = 0; i < s->o.iters && !ret; i++)
			ret = s->o.server ? pp_rx(s, size) : pp_tx(s, size);
	}
	s->active = false;
	if (!ret)
		ret = s->o.server ? pp_tx(s, PP_STREAM_ACK) :
				    pp_rx(s, PP_STREAM_ACK);
	ns = ktime_to_ns(ktime_sub(ktime_get(), start));
	if (!s->o.server)
		KFI_IPROF_MARK();
	if (ret) {
		pr_err("%s: %s %s: stream of size %u failed: %d\n",
		       pp_role(s), pp_tname(s), pp_mode(s), size, ret);
		return ret;
	}
	/* the ack is no message of the stream (fi_msg_bw counts none) */
	if (!s->o.server)
		s->cnt_ack = s->o.iters;
	ret = pp_ctrl_count(s);
	if (ret)
		return ret;
	pp_report(s, size, ns);
	return 0;
}

static int pp_run_suite(struct pp_session *s)
{
	unsigned int i;
	int ret;

	for (i = 0; i < s->o.nsizes; i++) {
		ret = s->o.stream ? pp_stream(s, s->o.sizes[i]) :
				    pp_pingpong(s, s->o.sizes[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The fabric (and raw data) source address of a server: addr, or the
 * loopback address of its family when it is the any address or not given.
 */
static void pp_src_addr(struct pp_session *s, struct sockaddr_storage *src)
{
	if (s->o.addr_set && !inet_addr_is_any((struct sockaddr *)&s->o.addr))
		*src = s->o.addr;
	else
		pp_addr_local(src, s->o.addr_set ? s->o.addr.ss_family :
			      AF_INET, false);
}

static int pp_raw_run(struct pp_session *s)
{
	struct sockaddr_storage src;
	int ret;

	pp_src_addr(s, &src);
	ret = pp_raw_connect(s, &src);
	if (!ret) {
		pp_tr_hook(s->data);
		ret = pp_alloc_bufs(s, 0, 0);
	}
	if (!ret)
		ret = pp_run_suite(s);
	if (!ret) {
		s->watch_oob = false;
		ret = pp_raw_finalize(s);
	}
	pp_sock_release(&s->data);
	return ret;
}

#ifdef PP_WITH_IBV
static int pp_ibv_run(struct pp_session *s)
{
	struct sockaddr_storage src;
	int ret;

	s->ibv = kzalloc(sizeof(*s->ibv), GFP_KERNEL);
	if (!s->ibv)
		return -ENOMEM;
	spin_lock_init(&s->ibv->lock);
	init_completion(&s->ibv->ev);
	ret = pp_alloc_bufs(s, 0, 0);
	pp_src_addr(s, &src);
	if (!ret)
		ret = s->o.server ? pp_ibv_server(s, &src) : pp_ibv_client(s);
	if (!ret)
		ret = pp_run_suite(s);
	if (!ret) {
		s->watch_oob = false;
		ret = pp_ibv_finalize(s);
	}
	pp_ibv_teardown(s);
	return ret;
}
#endif

static int pp_kfi_run(struct pp_session *s)
{
	int ret;

	ret = pp_kfi_hints(s);
	if (ret)
		goto out;
	if (s->o.rdm) {
		struct sockaddr_storage src = s->o.addr;

		if (s->o.server)
			pp_src_addr(s, &src);
		ret = pp_kfi_rdm_setup(s, &src);
	} else if (s->o.server) {
		struct sockaddr_storage src;

		pp_src_addr(s, &src);
		ret = pp_kfi_server_connect(s, &src);
	} else
		ret = pp_kfi_client_connect(s);
	if (!ret)
		ret = pp_run_suite(s);
	if (!ret) {
		/* the peer closes its control side once it has our fin */
		s->watch_oob = false;
		ret = pp_kfi_finalize(s);
	}
	if (s->k.connected) {
		int err = kfi_shutdown(s->k.ep, 0);

		if (err)
			pr_debug("%s: kfi_shutdown: %d\n", pp_role(s), err);
	}
out:
	/* nothing may still use the buffers once the endpoint is closed */
	pp_kfi_teardown(s);
	return ret;
}

static int pp_transport_run(struct pp_session *s)
{
#ifdef PP_WITH_IBV
	if (s->o.transport == PP_IBV)
		return pp_ibv_run(s);
#endif
	return s->o.transport == PP_RAW ? pp_raw_run(s) : pp_kfi_run(s);
}

/**
 * pp_run_session() - Run one fi_pingpong session.
 * @s: Session with its options parsed; everything else zero.
 *
 * Opens the control connection, runs the pingpong over the chosen
 * transport, releases everything and publishes the result lines (plus a
 * status line) as the content of debugfs "last".
 *
 * Context: Process context; sleeps. Every blocking wait is bounded by
 * the session's timeout.
 * Return: 0 on success or a negative Linux errno.
 */
static int pp_run_session(struct pp_session *s)
{
	unsigned int i;
	int ret;

	s->max_size = 0;
	for (i = 0; i < s->o.nsizes; i++)
		s->max_size = max_t(size_t, s->max_size, s->o.sizes[i]);
	s->out = kzalloc(PP_OUT_CAP, GFP_KERNEL);
	if (s->o.sink || s->o.reader) {
		ret = pp_user_errno(s->o.sink ? pp_sink_run(s) :
				    pp_reader_run(s));
		if (ret)
			pr_err("%s: session failed: %d\n", pp_role(s), ret);
		pp_out(s, KBUILD_MODNAME ": %s status=%d\n", pp_role(s), ret);
		pp_publish(s);
		return ret;
	}
	s->watch_oob = true;
	pr_debug("%s %s %s: %u sizes, %u iterations, verify %d\n", pp_role(s),
		 pp_tname(s), pp_mode(s), s->o.nsizes, s->o.iters, s->o.verify);

	ret = pp_ctrl_init(s);
	if (!ret)
		ret = pp_transport_run(s);
	pp_sock_release(&s->oob);
	pp_sock_release(&s->data);
	pp_free_bufs(s);

	ret = pp_user_errno(ret);
	if (ret)
		pr_err("%s %s %s: session failed: %d\n", pp_role(s),
		       pp_tname(s), pp_mode(s), ret);
	pp_out(s, KBUILD_MODNAME ": %s %s %s status=%d\n", pp_role(s),
	       pp_tname(s), pp_mode(s), ret);
	pp_publish(s);
	return ret;
}

/* ------------------------------------------------------------ options */

static int pp_parse_bool(const char *key, const char *val, bool *res)
{
	if (!strcmp(val, "0")) {
		*res = false;
	} else if (!strcmp(val, "1")) {
		*res = true;
	} else {
		pr_err("%s: expected 0 or 1, got \"%s\"\n", key, val);
		return -EINVAL;
	}
	return 0;
}

static int pp_parse_u32(const char *key, const char *val, u32 min, u32 max,
			u32 *res)
{
	if (kstrtou32(val, 0, res) || *res < min || *res > max) {
		pr_err("%s: expected a number in [%u, %u], got \"%s\"\n", key,
		       min, max, val);
		return -EINVAL;
	}
	return 0;
}

/* fi_pingpong -S all: 0, 1, then 2^i and 1.5 * 2^i up to its largest. */
static void pp_all_sizes(struct pp_opts *o)
{
	u32 i, pow, half;

	o->nsizes = 0;
	for (i = 0; o->nsizes + 2 <= PP_MAX_SIZES; i++) {
		pow = i ? 1U << i : 0;
		half = i ? pow + pow / 2 : 1;
		if (pow > PP_MAX_DATA_MSG)
			break;
		o->sizes[o->nsizes++] = pow;
		if (half > PP_MAX_DATA_MSG)
			break;
		o->sizes[o->nsizes++] = half;
	}
}

static int pp_parse_sizes(struct pp_opts *o, char *val)
{
	char *tok;
	int ret;

	if (!strcmp(val, "all")) {
		pp_all_sizes(o);
		return 0;
	}
	o->nsizes = 0;
	while ((tok = strsep(&val, ",")) != NULL) {
		if (!*tok)
			continue;
		if (o->nsizes == PP_MAX_SIZES) {
			pr_err("sizes: at most %d sizes\n", PP_MAX_SIZES);
			return -EINVAL;
		}
		ret = pp_parse_u32("sizes", tok, 0, PP_MAX_DATA_MSG,
				   &o->sizes[o->nsizes]);
		if (ret)
			return ret;
		o->nsizes++;
	}
	if (!o->nsizes) {
		pr_err("sizes: empty list\n");
		return -EINVAL;
	}
	return 0;
}

static int pp_parse_word(struct pp_opts *o, char *word, bool *role_set)
{
	char *val = strchr(word, '=');
	u32 v;
	int ret;

	if (!val) {
		pr_err("expected key=value, got \"%s\"\n", word);
		return -EINVAL;
	}
	*val++ = '\0';
	if (!strcmp(word, "role")) {
		o->sink = false;
		o->reader = false;
		if (!strcmp(val, "server")) {
			o->server = true;
		} else if (!strcmp(val, "client")) {
			o->server = false;
		} else if (!strcmp(val, "sink")) {
			o->server = true;
			o->sink = true;
		} else if (!strcmp(val, "reader")) {
			o->server = false;
			o->reader = true;
		} else {
			pr_err("role: expected server, client, sink or reader, got \"%s\"\n",
			       val);
			return -EINVAL;
		}
		*role_set = true;
		return 0;
	}
	if (!strcmp(word, "addr")) {
		memset(&o->addr, 0, sizeof(o->addr));
		if (inet_pton_with_scope(current->nsproxy->net_ns, AF_UNSPEC,
					 val, NULL, &o->addr)) {
			pr_err("addr: expected an IPv4 or IPv6 address (fe80::...%%ifname), got \"%s\"\n",
			       val);
			return -EINVAL;
		}
		pp_addr_set_port(&o->addr, 0);
		o->addr_set = true;
		return 0;
	}
	if (!strcmp(word, "oob_port")) {
		ret = pp_parse_u32(word, val, 1, 65535, &v);
		o->oob_port = v;
		return ret;
	}
	if (!strcmp(word, "port")) {
		ret = pp_parse_u32(word, val, 1, 65535, &v);
		o->port = v;
		return ret;
	}
	if (!strcmp(word, "key")) {
		if (kstrtou64(val, 0, &o->key)) {
			pr_err("key: expected a number, got \"%s\"\n", val);
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(word, "recv_size"))
		return pp_parse_u32(word, val, 1, PP_SINK_MAX_RECV_SIZE,
				    &o->recv_size);
	if (!strcmp(word, "recvs"))
		return pp_parse_u32(word, val, 1, PP_SINK_MAX_RECVS, &o->recvs);
	if (!strcmp(word, "expect_write"))
		return pp_parse_u32(word, val, 0, PP_SINK_MR_LEN,
				    &o->expect_write);
	if (!strcmp(word, "regions"))
		return pp_parse_u32(word, val, 0, PP_READER_MAX_REGIONS,
				    &o->regions);
	if (!strcmp(word, "rlen"))
		return pp_parse_u32(word, val, 1, PP_READER_MAX_RLEN,
				    &o->rlen);
	if (!strcmp(word, "raddr")) {
		if (kstrtou64(val, 0, &o->raddr)) {
			pr_err("raddr: expected a number, got \"%s\"\n", val);
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(word, "sizes"))
		return pp_parse_sizes(o, val);
	if (!strcmp(word, "iters"))
		return pp_parse_u32(word, val, 0, INT_MAX, &o->iters);
	if (!strcmp(word, "tagged"))
		return pp_parse_bool(word, val, &o->tagged);
	if (!strcmp(word, "mode")) {
		if (!strcmp(val, "pingpong")) {
			o->stream = false;
		} else if (!strcmp(val, "stream")) {
			o->stream = true;
		} else {
			pr_err("mode=pingpong or mode=stream, not \"%s\"\n", val);
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(word, "trigger"))
		return pp_parse_bool(word, val, &o->trigger);
	if (!strcmp(word, "more"))
		return pp_parse_bool(word, val, &o->more);
	if (!strcmp(word, "window"))
		return pp_parse_u32(word, val, 1, PP_MAX_WINDOW, &o->window);
	if (!strcmp(word, "verify"))
		return pp_parse_bool(word, val, &o->verify);
	if (!strcmp(word, "timeout_ms"))
		return pp_parse_u32(word, val, 1, INT_MAX, &o->timeout_ms);
	if (!strcmp(word, "transport")) {
		if (!strcmp(val, "kfi")) {
			o->transport = PP_KFI;
		} else if (!strcmp(val, "raw")) {
			o->transport = PP_RAW;
#ifdef PP_WITH_IBV
		} else if (!strcmp(val, "ibv")) {
			o->transport = PP_IBV;
#endif
		} else {
			pr_err("transport: expected kfi or raw%s, got \"%s\"\n",
			       IS_ENABLED(PP_WITH_IBV) ? " or ibv" : "", val);
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(word, "prov")) {
		if (!strcmp(val, "tcp")) {
			o->prov = "tcp";
		} else if (!strcmp(val, "verbs")) {
			o->prov = "verbs";
		} else {
			pr_err("prov: expected tcp or verbs, got \"%s\"\n", val);
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(word, "ep")) {
		if (!strcmp(val, "msg")) {
			o->rdm = false;
		} else if (!strcmp(val, "rdm")) {
			o->rdm = true;
		} else {
			pr_err("ep: expected msg or rdm, got \"%s\"\n", val);
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(word, "wait")) {
		if (!strcmp(val, "spin")) {
			o->wait = PP_WAIT_SPIN;
		} else if (!strcmp(val, "sleep")) {
			o->wait = PP_WAIT_SLEEP;
		} else {
			pr_err("wait: expected spin or sleep, got \"%s\"\n",
			       val);
			return -EINVAL;
		}
		return 0;
	}
	pr_err("unknown key \"%s\"\n", word);
	return -EINVAL;
}

/* Parses a line of key=value words into @o (defaults: fi_pingpong's). */
static int pp_parse(struct pp_opts *o, char *line)
{
	bool role_set = false;
	unsigned int i;
	char *word;
	int ret;

	o->oob_port = PP_OOB_PORT;
	o->prov = "tcp";
	o->iters = PP_DEFAULT_ITERS;
	o->window = PP_DEFAULT_WINDOW;
	o->timeout_ms = PP_DEFAULT_TIMEOUT_MS;
	o->nsizes = ARRAY_SIZE(pp_default_sizes);
	memcpy(o->sizes, pp_default_sizes, sizeof(pp_default_sizes));
	o->key = PP_SINK_KEY;
	o->recv_size = PP_SINK_RECV_SIZE;
	o->recvs = PP_SINK_RECVS;
	o->regions = PP_READER_REGIONS;
	o->rlen = PP_READER_RLEN;

	while ((word = strsep(&line, " \t\n")) != NULL) {
		if (!*word)
			continue;
		ret = pp_parse_word(o, word, &role_set);
		if (ret)
			return ret;
	}
	if (!role_set) {
		pr_err("role=server, role=client, role=sink or role=reader is required\n");
		return -EINVAL;
	}
	if (o->sink || o->reader) {
		if (!o->port) {
			pr_err("role=%s needs port=N\n",
			       o->sink ? "sink" : "reader");
			return -EINVAL;
		}
		if (!o->addr_set || inet_addr_is_any((struct sockaddr *)&o->addr)) {
			pp_addr_local(&o->addr, o->addr_set ?
				      o->addr.ss_family : AF_INET, false);
			o->addr_set = true;
		}
		return 0;
	}
	if (!o->server && !o->addr_set) {
		pp_addr_local(&o->addr, AF_INET, false);
		o->addr_set = true;
	}
	if (o->rdm && o->transport != PP_KFI) {
		pr_err("ep=rdm is for transport=kfi\n");
		return -EINVAL;
	}
	if (o->transport != PP_KFI) {
		if (o->tagged) {
			pr_err("transport=%s has no tagged mode\n",
			       o->transport == PP_RAW ? "raw" : "ibv");
			return -EINVAL;
		}
		for (i = 0; i < o->nsizes; i++) {
			if (!o->sizes[i] && o->transport == PP_RAW) {
				pr_err("transport=raw cannot send 0-byte messages\n");
				return -EINVAL;
			}
		}
	}
	if (o->trigger && (o->transport != PP_KFI || o->stream)) {
		pr_err("trigger=1 is for transport=kfi, mode=pingpong\n");
		return -EINVAL;
	}
	if (o->more && (o->transport != PP_KFI || !o->stream)) {
		pr_err("more=1 is for transport=kfi, mode=stream\n");
		return -EINVAL;
	}
	if (o->stream && o->transport == PP_IBV) {
		pr_err("transport=ibv has no mode=stream\n");
		return -EINVAL;
	}
	if (o->stream && o->verify && o->transport == PP_KFI) {
		/* a slot per message of the window (pp_alloc_bufs) */
		u64 most = 0, cap;

		for (i = 0; i < o->nsizes; i++)
			most = max_t(u64, most, o->sizes[i]);
		most = (most + PP_MAX_CTRL_MSG) * o->window;
		cap = strcmp(o->prov, "verbs") ? PP_STREAM_VERIFY_MAX :
		      KMALLOC_MAX_SIZE;
		if (most > cap) {
			pr_err("mode=stream verify=1: window x largest size (%llu bytes) over %llu\n",
			       most, cap);
			return -EINVAL;
		}
	}
	if (o->transport == PP_IBV && o->wait != PP_WAIT_SPIN) {
		pr_err("transport=ibv polls its completion queue (wait=spin)\n");
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------ debugfs */

/*
 * A write of "role=... [key=value ...]" (keys in the comment at the top)
 * runs one session; the write returns when it is over, with the byte
 * count on success or a negative errno.
 */
/*
 * An open "run" file: the lines of the last session run through it, which
 * a read of the same file returns (so that sessions run at once, e.g. both
 * ends in one machine, each get their own; "last" is whichever ended
 * last).
 */
struct pp_run_file {
	struct mutex lock;	/* protects out, len */
	char *out;
	size_t len;
};

static int pp_run_open(struct inode *inode, struct file *file)
{
	struct pp_run_file *rf = kzalloc(sizeof(*rf), GFP_KERNEL);

	if (!rf)
		return -ENOMEM;
	mutex_init(&rf->lock);
	file->private_data = rf;
	return nonseekable_open(inode, file);
}

static int pp_run_release(struct inode *inode, struct file *file)
{
	struct pp_run_file *rf = file->private_data;

	kfree(rf->out);
	kfree(rf);
	return 0;
}

static ssize_t pp_run_read(struct file *file, char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	struct pp_run_file *rf = file->private_data;
	ssize_t ret;

	mutex_lock(&rf->lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, rf->out ?: "",
				      rf->len);
	mutex_unlock(&rf->lock);
	return ret;
}

static ssize_t pp_run_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct pp_run_file *rf = file->private_data;
	struct pp_session *s;
	char *line;
	int ret;

	if (count > PP_MAX_LINE)
		return -EINVAL;
	line = memdup_user_nul(ubuf, count);
	if (IS_ERR(line))
		return PTR_ERR(line);
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s) {
		kfree(line);
		return -ENOMEM;
	}
	ret = pp_parse(&s->o, line);
	if (!ret)
		ret = pp_run_session(s);
	mutex_lock(&rf->lock);
	swap(rf->out, s->out);
	rf->len = rf->out ? s->out_len : 0;
	mutex_unlock(&rf->lock);
	kfree(s->out);
	kfree(s);
	kfree(line);
	return ret ? ret : count;
}

static ssize_t pp_last_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&pp_last_lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, pp_last ?: "",
				      pp_last_len);
	mutex_unlock(&pp_last_lock);
	return ret;
}

static const struct file_operations pp_run_fops = {
	.owner = THIS_MODULE,
	.open = pp_run_open,
	.release = pp_run_release,
	.read = pp_run_read,
	.write = pp_run_write,
	.llseek = noop_llseek,
};

static const struct file_operations pp_last_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = pp_last_read,
	.llseek = default_llseek,
};

static int __init pp_init(void)
{
	pp_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(pp_dir))
		return PTR_ERR(pp_dir);
	debugfs_create_file("run", 0600, pp_dir, NULL, &pp_run_fops);
	debugfs_create_file("last", 0400, pp_dir, NULL, &pp_last_fops);
	pp_tr_debugfs(pp_dir);
	return 0;
}

static void __exit pp_exit(void)
{
	/* waits for writers still running a session */
	debugfs_remove(pp_dir);
	kfree(pp_last);
}

module_init(pp_init);
module_exit(pp_exit);
MODULE_DESCRIPTION("fi_pingpong over kfabric (tcp provider) and kernel TCP sockets");
MODULE_LICENSE("GPL");
