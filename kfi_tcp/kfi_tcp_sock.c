// SPDX-License-Identifier: GPL-2.0
/*
 * kfi_tcp.ko: the kernel TCP sockets under the provider's connections and
 * passive endpoints, wrapped for the Rust side (kfi_tcp/sock.rs).
 *
 * A struct kfi_tcp_sk owns one socket. Its owner may install a wake
 * function: the socket's data_ready, write_space and state_change callbacks
 * then only call wake(ctx) (which queues the owner's work item) — nothing
 * is sent, received or allocated in callback (softirq) context. The
 * original callbacks are restored by kfi_tcp_sk_detach(), under the write
 * side of sk_callback_lock: once it returns, no callback is running wake()
 * and none will, so the owner may go away. kfi_tcp_sk_release() detaches
 * before releasing the socket: a socket never outlives the module with our
 * callbacks installed.
 *
 * Sends and receives never block (MSG_DONTWAIT): the owner's work item
 * retries when the callbacks say there is room or data. The _try_ variants
 * never sleep either: consumers' calls use them from any context but hard
 * interrupts, taking the socket only when no process owns it.
 */
#include <linux/bvec.h>
#include <linux/debugfs.h>
#include <linux/fault-inject.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/percpu.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/workqueue.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>

#include <kfi_enosys.h>
#include "tcp_sys.h"
#include "../kfi_util/util_iter.h"

/**
 * struct kfi_tcp_sk - A socket of the provider.
 * @sock: The kernel socket, owned.
 * @wake: Called from the socket callbacks while installed.
 * @ctx: Argument of @wake.
 * @installed: Our callbacks are in place (protected by sk_callback_lock).
 * @saved_data_ready: The socket's callbacks before ours.
 * @saved_write_space: See @saved_data_ready.
 * @saved_state_change: See @saved_data_ready.
 */
struct kfi_tcp_sk {
	struct socket *sock;
	void (*wake)(void *ctx);
	void *ctx;
	bool installed;
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_write_space)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
};

/*
 * Dead-peer detection, applied to every connection when it is made (a
 * change affects later connections). A peer that stops answering while
 * data is unacknowledged ends the connection after user_timeout_ms; an
 * idle connection is probed after keepalive_idle s, every keepalive_intvl
 * s, and ends after keepalive_cnt unanswered probes. Either way the
 * endpoint gets KFI_SHUTDOWN and its posted operations error completions
 * (Documentation/kfi_tcp.md, "Dead peers"). 0 disables the mechanism.
 */
static unsigned int user_timeout_ms = 30000;
module_param(user_timeout_ms, uint, 0644);
MODULE_PARM_DESC(user_timeout_ms,
		 "end a connection whose sent data stays unacknowledged this long (ms; 0: TCP's default, ~15 min)");
static unsigned int keepalive_idle = 10;
module_param(keepalive_idle, uint, 0644);
MODULE_PARM_DESC(keepalive_idle,
		 "probe an idle connection after this many seconds (0: no keepalive)");
static unsigned int keepalive_intvl = 5;
module_param(keepalive_intvl, uint, 0644);
MODULE_PARM_DESC(keepalive_intvl, "seconds between keepalive probes");
static unsigned int keepalive_cnt = 4;
module_param(keepalive_cnt, uint, 0644);
MODULE_PARM_DESC(keepalive_cnt, "unanswered probes that end a connection");

/* The dead-peer settings above, on a new connection's socket. */
static void kfi_tcp_sk_liveness(struct sock *sk)
{
	unsigned int idle = READ_ONCE(keepalive_idle);
	unsigned int intvl = READ_ONCE(keepalive_intvl);
	unsigned int cnt = READ_ONCE(keepalive_cnt);

	tcp_sock_set_user_timeout(sk, min_t(unsigned int, READ_ONCE(user_timeout_ms), INT_MAX));
	if (!idle)
		return;
	/* out-of-range values are refused by TCP and leave its default */
	tcp_sock_set_keepidle(sk, min_t(unsigned int, idle, MAX_TCP_KEEPIDLE));
	tcp_sock_set_keepintvl(sk, clamp_t(unsigned int, intvl, 1, MAX_TCP_KEEPINTVL));
	tcp_sock_set_keepcnt(sk, clamp_t(unsigned int, cnt, 1, MAX_TCP_KEEPCNT));
	sock_set_keepalive(sk);
}

#ifdef CONFIG_FAULT_INJECTION
/**
 * kfi_tcp_fail_alloc - Fault point of the provider's allocations.
 *
 * Consulted (kfi_tcp_glue_fail_alloc()) before the allocations a
 * connection's or a listener's work item makes (receive path, accepted
 * connections, connection requests) and before a connection's own
 * allocation. Those run in kworkers, out of reach of a consumer task's
 * fail-nth (which reaches this point too when the consumer's task gets
 * here). Driven like the kernel's other fault attributes: through
 * /sys/kernel/debug/kfi_tcp_fail_alloc/ (probability, interval, times,
 * space; failures are not logged: verbose 0), or by a test setting the
 * fields (tests/faults: space n, times 1, probability 100 fails the n-th
 * consultation from now). Exported (namespace KFI_TCP_FAULTS) for
 * tests/faults only; compiled out without CONFIG_FAULT_INJECTION.
 */
struct fault_attr kfi_tcp_fail_alloc = FAULT_ATTR_INITIALIZER;
EXPORT_SYMBOL_NS_GPL(kfi_tcp_fail_alloc, KFI_TCP_FAULTS);

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
static struct dentry *kfi_tcp_fail_dir;
#endif

/**
 * kfi_tcp_glue_fail_init() - Set up the kfi_tcp_fail_alloc attribute (module init).
 */
void kfi_tcp_glue_fail_init(void)
{
	/* an injected failure is expected: no stack dump in the log */
	kfi_tcp_fail_alloc.verbose = 0;
#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
	kfi_tcp_fail_dir = fault_create_debugfs_attr("kfi_tcp_fail_alloc", NULL,
						     &kfi_tcp_fail_alloc);
	if (IS_ERR(kfi_tcp_fail_dir))
		kfi_tcp_fail_dir = NULL;
#endif
}

/**
 * kfi_tcp_glue_fail_exit() - Remove what kfi_tcp_glue_fail_init() set up.
 */
void kfi_tcp_glue_fail_exit(void)
{
#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
	debugfs_remove_recursive(kfi_tcp_fail_dir);
#endif
}

/**
 * kfi_tcp_glue_fail_alloc() - Whether to fail the allocation about to be made.
 *
 * Context: Any but hard interrupts.
 * Return: true when a failure is injected here (kfi_tcp_fail_alloc).
 */
bool kfi_tcp_glue_fail_alloc(void)
{
	return should_fail(&kfi_tcp_fail_alloc, 1);
}
#else
void kfi_tcp_glue_fail_init(void)
{
}

void kfi_tcp_glue_fail_exit(void)
{
}

bool kfi_tcp_glue_fail_alloc(void)
{
	return false;
}
#endif

/* Takes ownership of @sock (released on failure). */
static int kfi_tcp_sk_wrap(struct socket *sock, struct kfi_tcp_sk **out)
{
	struct kfi_tcp_sk *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s) {
		sock_release(sock);
		return -ENOMEM;
	}
	s->sock = sock;
	tcp_sock_set_nodelay(sock->sk);
	kfi_tcp_sk_liveness(sock->sk);
	/* Allocations under the socket lock must not recurse into reclaim
	 * that may wait for this very connection (storage consumers). */
	sock->sk->sk_allocation = GFP_NOIO;
	sock->sk->sk_use_task_frag = false;
	*out = s;
	return 0;
}

/**
 * kfi_tcp_sk_create() - Create an unconnected TCP socket.
 * @net: Network namespace (the fabric's, referenced by it).
 * @family: AF_INET or AF_INET6 (then IPV6_V6ONLY).
 * @out: The new socket.
 *
 * Context: Process context; sleeps.
 * Return: 0 or a negative errno.
 */
int kfi_tcp_sk_create(void *net, int family, struct kfi_tcp_sk **out)
{
	struct socket *sock;
	int ret;

	if (family != AF_INET && family != AF_INET6)
		return -EAFNOSUPPORT;
	ret = sock_create_kern(net, family, SOCK_STREAM, IPPROTO_TCP, &sock);
	/* A kernel socket has no file: -ENFILE only says that the socket's
	 * inode could not be allocated. */
	if (ret == -ENFILE)
		ret = -ENOMEM;
	if (ret)
		return ret;
	/* An IPv6 socket speaks IPv6 only: a listener on :: does not take
	 * IPv4 peers as IPv4-mapped addresses (whatever bindv6only says). */
	if (family == AF_INET6) {
		ret = ip6_sock_set_v6only(sock->sk);
		if (ret) {
			sock_release(sock);
			return ret;
		}
	}
	return kfi_tcp_sk_wrap(sock, out);
}

/**
 * kfi_tcp_sk_listen() - Bind a socket and listen on it.
 * @s: A socket from kfi_tcp_sk_create().
 * @addr: Local address; port 0 picks one.
 * @backlog: Listen backlog.
 *
 * Context: Process context; sleeps.
 * Return: 0 or a negative errno (-EADDRINUSE...).
 */
int kfi_tcp_sk_listen(struct kfi_tcp_sk *s, const struct kfi_util_addr *addr,
		      int backlog)
{
	struct sockaddr_storage ss;
	size_t len = kfi_util_addr_encode(addr, &ss);
	int ret;

	if (!len)
		return -EAFNOSUPPORT;
	sock_set_reuseaddr(s->sock->sk);
	ret = kernel_bind(s->sock, (struct sockaddr *)&ss, len);
	if (ret)
		return ret;
	return kernel_listen(s->sock, backlog);
}

/**
 * kfi_tcp_sk_accept() - Take one pending connection of a listening socket.
 * @s: A listening socket.
 * @out: The connection's socket.
 *
 * Context: Process context; does not wait for a connection.
 * Return: 0, -EAGAIN when none is pending, or a negative errno.
 */
int kfi_tcp_sk_accept(struct kfi_tcp_sk *s, struct kfi_tcp_sk **out)
{
	struct socket *sock;
	int ret;

	ret = kernel_accept(s->sock, &sock, O_NONBLOCK);
	if (ret)
		return ret;
	/*
	 * The child was cloned from the listener with our callbacks and
	 * sk_user_data: give it the socket's own callbacks back before
	 * anyone installs on it (or saving them would make ours call
	 * themselves).
	 */
	write_lock_bh(&sock->sk->sk_callback_lock);
	if (sock->sk->sk_user_data == s) {
		sock->sk->sk_user_data = NULL;
		sock->sk->sk_data_ready = s->saved_data_ready;
		sock->sk->sk_write_space = s->saved_write_space;
		sock->sk->sk_state_change = s->saved_state_change;
	}
	write_unlock_bh(&sock->sk->sk_callback_lock);
	return kfi_tcp_sk_wrap(sock, out);
}

/**
 * kfi_tcp_sk_connect() - Start connecting (does not wait).
 * @s: A socket from kfi_tcp_sk_create(), callbacks installed first so the
 *	outcome reaches the owner through state_change.
 * @src: Local address to bind first (port 0: any), or NULL.
 * @dst: Peer address.
 *
 * Context: Process context.
 * Return: 0 (connected already) or -EINPROGRESS, or a negative errno.
 */
int kfi_tcp_sk_connect(struct kfi_tcp_sk *s, const struct kfi_util_addr *src,
		       const struct kfi_util_addr *dst)
{
	struct sockaddr_storage ss;
	size_t len;
	int ret;

	if (src) {
		len = kfi_util_addr_encode(src, &ss);
		if (!len)
			return -EAFNOSUPPORT;
		ret = kernel_bind(s->sock, (struct sockaddr *)&ss, len);
		if (ret)
			return ret;
	}
	len = kfi_util_addr_encode(dst, &ss);
	if (!len)
		return -EAFNOSUPPORT;
	return kernel_connect(s->sock, (struct sockaddr *)&ss, len, O_NONBLOCK);
}

static void kfi_tcp_sk_wake(struct sock *sk)
{
	struct kfi_tcp_sk *s;

	read_lock_bh(&sk->sk_callback_lock);
	s = sk->sk_user_data;
	if (s && s->installed)
		s->wake(s->ctx);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void kfi_tcp_sk_data_ready(struct sock *sk)
{
	KFI_TCP_TR(DATA_READY);
	kfi_tcp_sk_wake(sk);
}

static void kfi_tcp_sk_write_space(struct sock *sk)
{
	if (sk_stream_is_writeable(sk) && sk->sk_socket)
		clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
	kfi_tcp_sk_wake(sk);
}

static void kfi_tcp_sk_state_change(struct sock *sk)
{
	void (*saved)(struct sock *sk) = NULL;
	struct kfi_tcp_sk *s;

	read_lock_bh(&sk->sk_callback_lock);
	s = sk->sk_user_data;
	if (s && s->installed) {
		saved = s->saved_state_change;
		s->wake(s->ctx);
	}
	read_unlock_bh(&sk->sk_callback_lock);
	if (saved)
		saved(sk);
}

/**
 * kfi_tcp_sk_install() - Route the socket's callbacks to @wake.
 * @s: The socket; not installed yet.
 * @wake: Called (softirq or process context, must not sleep) when data
 *	arrives, room frees up or the state changes.
 * @ctx: Argument of @wake; must stay valid until kfi_tcp_sk_detach().
 */
void kfi_tcp_sk_install(struct kfi_tcp_sk *s, void (*wake)(void *ctx),
			void *ctx)
{
	struct sock *sk = s->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	s->wake = wake;
	s->ctx = ctx;
	s->saved_data_ready = sk->sk_data_ready;
	s->saved_write_space = sk->sk_write_space;
	s->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = s;
	sk->sk_data_ready = kfi_tcp_sk_data_ready;
	sk->sk_write_space = kfi_tcp_sk_write_space;
	sk->sk_state_change = kfi_tcp_sk_state_change;
	s->installed = true;
	write_unlock_bh(&sk->sk_callback_lock);
}

/**
 * kfi_tcp_sk_detach() - Restore the socket's own callbacks.
 * @s: The socket.
 *
 * Idempotent. When it returns no callback is calling @wake and none will.
 * Context: Process context.
 */
void kfi_tcp_sk_detach(struct kfi_tcp_sk *s)
{
	struct sock *sk = s->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	if (s->installed) {
		sk->sk_user_data = NULL;
		sk->sk_data_ready = s->saved_data_ready;
		sk->sk_write_space = s->saved_write_space;
		sk->sk_state_change = s->saved_state_change;
		s->installed = false;
	}
	write_unlock_bh(&sk->sk_callback_lock);
}

/**
 * kfi_tcp_sk_release() - Detach, close and free a socket.
 * @s: The socket; not used again.
 *
 * Context: Process context; may sleep.
 */
void kfi_tcp_sk_release(struct kfi_tcp_sk *s)
{
	kfi_tcp_sk_detach(s);
	sock_release(s->sock);
	kfree(s);
}

/**
 * kfi_tcp_sk_shutdown() - Shut both directions down (the peer sees EOF).
 * @s: The socket.
 */
void kfi_tcp_sk_shutdown(struct kfi_tcp_sk *s)
{
	kernel_sock_shutdown(s->sock, SHUT_RDWR);
}

/**
 * kfi_tcp_sk_state() - TCP state of the socket and its pending error.
 * @s: The socket.
 * @err: Set to the socket's pending error (negative), or 0. The error is
 *	left pending, so that the next receive or send reports it too (a
 *	reset between frames must not look like a clean end of stream).
 *
 * Return: KFI_TCP_SK_CONNECTING, _ESTABLISHED, _LISTEN or _CLOSED.
 */
int kfi_tcp_sk_state(struct kfi_tcp_sk *s, int *err)
{
	struct sock *sk = s->sock->sk;

	*err = -READ_ONCE(sk->sk_err);
	switch (READ_ONCE(sk->sk_state)) {
	case TCP_SYN_SENT:
	case TCP_SYN_RECV:
		return KFI_TCP_SK_CONNECTING;
	case TCP_ESTABLISHED:
		return KFI_TCP_SK_ESTABLISHED;
	case TCP_LISTEN:
		return KFI_TCP_SK_LISTEN;
	default:
		return KFI_TCP_SK_CLOSED;
	}
}

/**
 * kfi_tcp_sk_rx_ended() - Whether a receive would report the end.
 * @s: The socket.
 *
 * A lockless look, any context: true once the peer's FIN is in (or the
 * receive side is shut down) or an error is pending, i.e. once a receive
 * that finds no more data returns 0 or an error rather than -EAGAIN. A
 * short receive does not mean the end was not seen: FIN often comes with
 * the last data, in one segment, and wakes the socket once.
 *
 * Return: true if the end (or an error) is pending.
 */
bool kfi_tcp_sk_rx_ended(struct kfi_tcp_sk *s)
{
	struct sock *sk = s->sock->sk;

	return (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) ||
	       READ_ONCE(sk->sk_err);
}

/**
 * kfi_tcp_sk_name() - Local or peer address of the socket.
 * @s: The socket.
 * @out: The address.
 * @peer: The peer's rather than ours.
 *
 * Return: 0 or a negative errno (-ENOTCONN for an unconnected peer).
 */
int kfi_tcp_sk_name(struct kfi_tcp_sk *s, struct kfi_util_addr *out, bool peer)
{
	struct sockaddr_storage ss;
	int ret;

	ret = peer ? kernel_getpeername(s->sock, (struct sockaddr *)&ss) :
		     kernel_getsockname(s->sock, (struct sockaddr *)&ss);
	if (ret < 0)
		return ret;
	if (!kfi_util_addr_len(ss.ss_family))
		return -EAFNOSUPPORT;
	return kfi_util_addr_decode(&ss, 0, out);
}


/**
 * kfi_tcp_tp_conn() - Trace a connection's change of state (event
 *	kfi_conn) with its socket's peer address.
 * @s: The connection's socket.
 * @conn: The connection.
 * @ep: Its endpoint, or NULL.
 * @from: The state left.
 * @to: The state entered.
 *
 * The address is read from the socket without its lock, as the kernel's
 * own TCP trace events do: any context, never sleeps.
 */
void kfi_tcp_tp_conn(struct kfi_tcp_sk *s, const void *conn, const void *ep,
		     const char *from, const char *to)
{
	struct sock *sk = s->sock ? s->sock->sk : NULL;
	struct sockaddr_in6 sa = {};
	struct sockaddr_in *in = (struct sockaddr_in *)&sa;

	if (sk && sk->sk_family == AF_INET) {
		in->sin_family = AF_INET;
		in->sin_port = sk->sk_dport;
		in->sin_addr.s_addr = sk->sk_daddr;
#if IS_ENABLED(CONFIG_IPV6)
	} else if (sk && sk->sk_family == AF_INET6) {
		sa.sin6_family = AF_INET6;
		sa.sin6_port = sk->sk_dport;
		sa.sin6_addr = sk->sk_v6_daddr;
		sa.sin6_scope_id = sk->sk_bound_dev_if;
#endif
	}
	kfi_util_tp_conn(conn, ep, sa.sin6_family ? (struct sockaddr *)&sa : NULL,
			 from, to);
}

/* Payload bytes sent by splicing pages (MSG_SPLICE_PAGES) since load. */
static atomic64_t kfi_tcp_spliced = ATOMIC64_INIT(0);

/**
 * kfi_tcp_stat_spliced() - Bytes the provider has sent without copying.
 *
 * Counts the bytes handed to TCP with MSG_SPLICE_PAGES (the socket keeps
 * references to the pages instead of copying them) since the module was
 * loaded, over all connections. For statistics and tests.
 *
 * Context: Any context.
 * Return: The byte count.
 */
u64 kfi_tcp_stat_spliced(void)
{
	return atomic64_read(&kfi_tcp_spliced);
}
EXPORT_SYMBOL_NS_GPL(kfi_tcp_stat_spliced, KFI_TCP_STATS);

/* Bytes sent or received from consumers' calls (kfi_tcp_sk_try_*). */
static atomic64_t kfi_tcp_call_bytes = ATOMIC64_INIT(0);

/**
 * kfi_tcp_stat_call_bytes() - Bytes moved by consumers' own calls.
 *
 * Counts the bytes sent and received on connections from the consumers'
 * calls (posts, CQ reads) rather than from the connections' work items,
 * since the module was loaded. For statistics and tests.
 *
 * Context: Any context.
 * Return: The byte count.
 */
u64 kfi_tcp_stat_call_bytes(void)
{
	return atomic64_read(&kfi_tcp_call_bytes);
}
EXPORT_SYMBOL_NS_GPL(kfi_tcp_stat_call_bytes, KFI_TCP_STATS);

/* Socket send calls of the data path (per CPU: one plain increment each). */
static DEFINE_PER_CPU(u64, kfi_tcp_send_calls);

/**
 * kfi_tcp_stat_send_calls() - Socket send calls made for data frames.
 *
 * Counts the sendmsg calls of kfi_tcp_sk_send() and kfi_tcp_sk_try_send()
 * since the module was loaded, over all connections: small frames queued
 * together go in one call (coalescing), so this shows how many frames
 * shared one. For statistics and tests.
 *
 * Context: Any context.
 * Return: The count (a sum over the CPUs, not a snapshot).
 */
u64 kfi_tcp_stat_send_calls(void)
{
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += per_cpu(kfi_tcp_send_calls, cpu);
	return n;
}
EXPORT_SYMBOL_NS_GPL(kfi_tcp_stat_send_calls, KFI_TCP_STATS);

#ifdef KFI_TCP_TRACE
/* One record of the timeline ring (kfi_tcp_trace.h); 16 bytes. */
struct kfi_tcp_tr_rec {
	u64 ns;
	u16 point;
	u16 cpu;
	u32 pad;
};

static struct kfi_tcp_tr_rec kfi_tcp_tr_ring[KFI_TCP_TR_RING];
static atomic_t kfi_tcp_tr_next;

/**
 * kfi_tcp_tr() - Record a trace point (builds with KFI_TRACE=1 only).
 * @point: KFI_TCP_TR_* (kfi_tcp_trace.h).
 *
 * Writes the time, the CPU and @point into the next record of the ring,
 * overwriting the oldest once it wrapped. No lock: a record being written
 * while the ring is read may be torn (the reader sorts and drops zeroes).
 *
 * Context: Any.
 */
void kfi_tcp_tr(unsigned int point)
{
	u32 i = (u32)atomic_inc_return(&kfi_tcp_tr_next) & (KFI_TCP_TR_RING - 1);

	kfi_tcp_tr_ring[i].ns = ktime_get_ns();
	kfi_tcp_tr_ring[i].point = point;
	kfi_tcp_tr_ring[i].cpu = raw_smp_processor_id();
}
EXPORT_SYMBOL_GPL(kfi_tcp_tr);

/**
 * kfi_tcp_tr_buf() - The ring of kfi_tcp_tr() (builds with KFI_TRACE=1).
 * @len: Set to its size in bytes.
 *
 * Return: The ring, valid while kfi_tcp.ko is loaded.
 */
void *kfi_tcp_tr_buf(size_t *len)
{
	*len = sizeof(kfi_tcp_tr_ring);
	return kfi_tcp_tr_ring;
}
EXPORT_SYMBOL_GPL(kfi_tcp_tr_buf);
#endif

/* Runs of connections' work items (kfi_tcp_stat_conn_ran()). */
static atomic64_t kfi_tcp_conn_runs = ATOMIC64_INIT(0);

/**
 * kfi_tcp_stat_conn_ran() - Count a run of a connection's work item.
 *
 * Context: Any context.
 */
void kfi_tcp_stat_conn_ran(void)
{
	atomic64_inc(&kfi_tcp_conn_runs);
}

/**
 * kfi_tcp_stat_conn_runs() - Runs of connections' work items.
 *
 * Counts how often a connection's work item ran since the module was
 * loaded, over all connections: a consumer that polls its CQs moves its
 * data in its own calls, and the work item should then not run at all.
 * For statistics and tests.
 *
 * Context: Any context.
 * Return: The run count.
 */
u64 kfi_tcp_stat_conn_runs(void)
{
	return atomic64_read(&kfi_tcp_conn_runs);
}
EXPORT_SYMBOL_NS_GPL(kfi_tcp_stat_conn_runs, KFI_TCP_STATS);

/* Errno of the last established connection ended by an error. */
static atomic_t kfi_tcp_last_break = ATOMIC_INIT(0);

/**
 * kfi_tcp_stat_broke() - Note why an established connection ended.
 * @err: The positive errno (a reset, EPROTO for a malformed frame...).
 *
 * KFI_SHUTDOWN carries no cause; this keeps the last one for
 * kfi_tcp_stat_last_break().
 *
 * Context: Any context.
 */
void kfi_tcp_stat_broke(int err)
{
	atomic_set(&kfi_tcp_last_break, err);
}

/**
 * kfi_tcp_stat_last_break() - Take the cause of the last broken connection.
 *
 * An established connection that ends on the data path by an error (not a
 * clean end of stream) reports KFI_SHUTDOWN like any other end; its cause
 * is noted here. For diagnostics and tests (the hostile-peer checks).
 *
 * Context: Any context.
 * Return: The positive errno of the last such end since the previous call,
 * or 0; the value is cleared.
 */
int kfi_tcp_stat_last_break(void)
{
	return atomic_xchg(&kfi_tcp_last_break, 0);
}
EXPORT_SYMBOL_NS_GPL(kfi_tcp_stat_last_break, KFI_TCP_STATS);

/*
 * The vectors and message of a send (see kfi_tcp_sk_send()): with *@splice,
 * one run of bvecs of spliceable pages or of others (*@splice cleared if
 * the run cannot be spliced); without, kvecs or bvecs as kfi_util_segs_iter()
 * chooses. Returns the bytes the message covers (0: nothing to send).
 */
static size_t kfi_tcp_sk_send_prep(struct kfi_util_vecs *v,
				   struct msghdr *msg,
				   const struct kfi_util_seg *segs, int n,
				   size_t skip, size_t len, bool more,
				   bool *splice)
{
	size_t total;
	int nb, i;

	if (*splice) {
		nb = kfi_util_segs_bvecs(v->bv, KFI_UTIL_BVECS, segs, n, skip,
					 len, &total);
		if (!nb)
			return 0;
		*splice = sendpage_ok(v->bv[0].bv_page);
		total = v->bv[0].bv_len;
		for (i = 1; i < nb && sendpage_ok(v->bv[i].bv_page) == *splice;
		     i++)
			total += v->bv[i].bv_len;
		iov_iter_bvec(&msg->msg_iter, ITER_SOURCE, v->bv, i, total);
	} else {
		total = kfi_util_segs_iter(&msg->msg_iter, ITER_SOURCE, v, segs,
					   n, skip, len);
		if (!total)
			return 0;
	}
	if (more || total < len)
		msg->msg_flags |= MSG_MORE;
	if (*splice)
		msg->msg_flags |= MSG_SPLICE_PAGES;
	return total;
}

/**
 * kfi_tcp_sk_send() - Send bytes of a list of segments without blocking.
 * @s: The socket.
 * @segs: Segments (kernel virtual ranges or pages).
 * @n: Number of @segs.
 * @skip: Bytes of @segs already sent.
 * @len: Bytes to send after @skip.
 * @more: More data follows at once (MSG_MORE).
 * @splice: The caller keeps the memory unchanged until the peer has
 *          received it, so pages may be spliced rather than copied.
 *
 * Without @splice the data is copied into the socket's buffers: the caller
 * may complete the operation, and the consumer reuse its buffer, as soon as
 * this returns. With @splice, pages that may be referenced from an skb
 * (sendpage_ok(): not slab memory) are passed with MSG_SPLICE_PAGES: TCP
 * holds references to them, not copies, until the bytes are acknowledged.
 * One call sends either spliceable pages or others, never both (the
 * header in front of a payload goes by itself, copied). Sends at most 32
 * pages' worth per call, unless every byte lies in kernel virtual ranges
 * (at most 8) and is copied: then all of @len it can.
 *
 * Context: Process context.
 * Return: Bytes sent (> 0), -EAGAIN when the socket is full, or a negative
 * errno.
 */
ssize_t kfi_tcp_sk_send(struct kfi_tcp_sk *s, const struct kfi_util_seg *segs,
			int n, size_t skip, size_t len, bool more, bool splice)
{
	struct kfi_util_vecs v __uninitialized;
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	ssize_t ret;

	if (!kfi_tcp_sk_send_prep(&v, &msg, segs, n, skip, len, more, &splice))
		return 0;
	this_cpu_inc(kfi_tcp_send_calls);
	ret = sock_sendmsg(s->sock, &msg);
	if (splice && ret > 0)
		atomic64_add(ret, &kfi_tcp_spliced);
	return ret;
}

/*
 * A consumer's call that moves this many bytes or more takes the socket as
 * its owner rather than by its spinlock (kfi_tcp_sk_take()).
 */
#define KFI_TCP_SK_OWN_MIN (32 * 1024)

/*
 * How a consumer's call holds a socket (kfi_tcp_sk_take()).
 * @saved: The socket's sk_allocation, restored when let go.
 * @owned: Held as its owner (else by its spinlock).
 */
struct kfi_tcp_sk_hold {
	gfp_t saved;
	bool owned;
};

/*
 * Takes @sk for a consumer's call, never sleeping, so the caller may be in
 * any context but hard interrupts; false if a process owns it (the work
 * item then does the job). Two ways:
 *  - by its spinlock with bottom halves disabled, as softirq code takes
 *    it: enough to run TCP's non-sleeping paths (tcp_read_sock() is called
 *    so from sk_data_ready by other kernel users). For short calls, and
 *    always from a softirq handler (lockdep must not see the owner "mutex"
 *    taken in softirq context);
 *  - for a call that moves @len bytes or more (@own): as its owner, the
 *    way lock_sock() takes it but without waiting: the owner mark is set
 *    under the spinlock, which is then dropped. Segments and ACKs the
 *    softirq delivers meanwhile go to the backlog instead of spinning on
 *    the spinlock, and sends leave as they are made rather than when the
 *    bottom halves come back on. kfi_tcp_sk_let_go() processes the
 *    backlog as release_sock() does.
 * Socket allocations switch to GFP_NOWAIT while taken.
 */
static bool kfi_tcp_sk_take(struct sock *sk, struct kfi_tcp_sk_hold *h,
			    bool own)
{
	if (in_hardirq() || in_nmi() || irqs_disabled())
		return false;
	spin_lock_bh(&sk->sk_lock.slock);
	if (sock_owned_by_user_nocheck(sk)) {
		spin_unlock_bh(&sk->sk_lock.slock);
		return false;
	}
	h->saved = sk->sk_allocation;
	sk->sk_allocation = GFP_NOWAIT | __GFP_NOWARN;
	h->owned = own && !in_serving_softirq();
	if (h->owned) {
		sk->sk_lock.owned = 1;
		spin_unlock_bh(&sk->sk_lock.slock);
		/* lock_sock()'s annotation, as a trylock: we did not wait */
		mutex_acquire(&sk->sk_lock.dep_map, 0, 1, _RET_IP_);
	}
	return true;
}

/*
 * Lets go of @sk taken by kfi_tcp_sk_take(). An owner processes the
 * backlog first, as release_sock() does, less its cond_resched() (the
 * caller may be atomic; the backlog is bounded by the socket's buffers).
 */
static void kfi_tcp_sk_let_go(struct sock *sk, const struct kfi_tcp_sk_hold *h)
{
	struct sk_buff *skb, *next;

	if (!h->owned) {
		sk->sk_allocation = h->saved;
		spin_unlock_bh(&sk->sk_lock.slock);
		return;
	}
	spin_lock_bh(&sk->sk_lock.slock);
	while ((skb = sk->sk_backlog.head)) {
		sk->sk_backlog.head = NULL;
		sk->sk_backlog.tail = NULL;
		spin_unlock_bh(&sk->sk_lock.slock);
		do {
			next = skb->next;
			skb_mark_not_on_list(skb);
			/* sk_backlog_rcv() without INDIRECT_CALL_INET (its
			 * direct targets are not exported to modules) */
			if (sk_memalloc_socks() && skb_pfmemalloc(skb))
				__sk_backlog_rcv(sk, skb);
			else
				sk->sk_backlog_rcv(sk, skb);
			skb = next;
		} while (skb);
		spin_lock_bh(&sk->sk_lock.slock);
	}
	sk->sk_backlog.len = 0;
	if (sk->sk_prot->release_cb)
		sk->sk_prot->release_cb(sk);
	sk->sk_allocation = h->saved;
	sock_release_ownership(sk);
	if (waitqueue_active(&sk->sk_lock.wq))
		wake_up(&sk->sk_lock.wq);
	spin_unlock_bh(&sk->sk_lock.slock);
}

/**
 * kfi_tcp_sk_try_send() - kfi_tcp_sk_send() from any context.
 * @s: The socket.
 * @segs: Segments (kernel virtual ranges or pages).
 * @n: Number of @segs.
 * @skip: Bytes of @segs already sent.
 * @len: Bytes to send after @skip.
 * @more: More data follows at once (MSG_MORE).
 * @splice: As for kfi_tcp_sk_send().
 *
 * Sends as kfi_tcp_sk_send() does, but without sleeping: the socket is
 * taken only if nobody owns it (by its spinlock, or as its owner for 32 KiB
 * or more, see kfi_tcp_sk_take()), and TCP is entered below its locking
 * (tcp_sendmsg_locked(), which with MSG_DONTWAIT never waits).
 *
 * Context: Any context but hard interrupts; takes the socket's spinlock.
 * Return: As kfi_tcp_sk_send(), or -EBUSY when the socket is owned (or
 * the context is a hard interrupt): the caller leaves the work to process
 * context.
 */
ssize_t kfi_tcp_sk_try_send(struct kfi_tcp_sk *s,
			    const struct kfi_util_seg *segs, int n, size_t skip,
			    size_t len, bool more, bool splice)
{
	struct sock *sk = s->sock->sk;
	struct kfi_util_vecs v __uninitialized;
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	struct kfi_tcp_sk_hold h;
	size_t total;
	ssize_t ret;

	total = kfi_tcp_sk_send_prep(&v, &msg, segs, n, skip, len, more,
				     &splice);
	if (!total)
		return 0;
	KFI_TCP_TR(SEND_TAKE);
	if (!kfi_tcp_sk_take(sk, &h, total >= KFI_TCP_SK_OWN_MIN))
		return -EBUSY;
	this_cpu_inc(kfi_tcp_send_calls);
	ret = tcp_sendmsg_locked(sk, &msg, total);
	KFI_TCP_TR(SEND_PUSHED);
	/* -EAGAIN with send space left is a failed atomic allocation, not a
	 * full socket: no write_space will come, so let process context
	 * (the work item, GFP_NOIO) retry. */
	if (ret == -EAGAIN && sk_stream_memory_free(sk))
		ret = -EBUSY;
	kfi_tcp_sk_let_go(sk, &h);
	KFI_TCP_TR(SEND_GONE);
	if (ret > 0)
		atomic64_add(ret, &kfi_tcp_call_bytes);
	if (splice && ret > 0)
		atomic64_add(ret, &kfi_tcp_spliced);
	return ret;
}

/* tcp_read_sock() actor: copies into the iterator in desc->arg.data. */
static int kfi_tcp_sk_actor(read_descriptor_t *desc, struct sk_buff *skb,
			    unsigned int offset, size_t len)
{
	struct iov_iter *it = desc->arg.data;
	size_t take = min(len, desc->count);

	if (!take)
		return 0;
	if (skb_copy_datagram_iter(skb, offset, it, take)) {
		desc->error = -EFAULT;
		return 0;
	}
	desc->count -= take;
	return take;
}

/**
 * kfi_tcp_sk_try_recv() - kfi_tcp_sk_recv() from any context.
 * @s: The socket.
 * @segs: Destination segments.
 * @n: Number of @segs.
 * @skip: Bytes of @segs already filled.
 * @len: Bytes wanted after @skip; not 0.
 *
 * Receives as kfi_tcp_sk_recv() does, but without sleeping: the socket is
 * taken only if nobody owns it (by its spinlock, or as its owner for 32 KiB
 * or more, see kfi_tcp_sk_take()), and the bytes are copied straight from the
 * receive queue's skbs (tcp_read_sock()). A pending socket error is
 * reported (not cleared: the process-context path clears it).
 *
 * Context: Any context but hard interrupts; takes the socket's spinlock.
 * Return: As kfi_tcp_sk_recv(), or -EBUSY when the socket is owned (or
 * the context is a hard interrupt).
 */
ssize_t kfi_tcp_sk_try_recv(struct kfi_tcp_sk *s,
			    const struct kfi_util_seg *segs, int n, size_t skip,
			    size_t len)
{
	struct sock *sk = s->sock->sk;
	struct kfi_util_vecs v __uninitialized;
	struct iov_iter it;
	read_descriptor_t desc = { .arg.data = &it };
	struct kfi_tcp_sk_hold h;
	ssize_t ret;

	/* Nothing queued, nothing to report: say so without the lock (a
	 * poller calls this in a loop; the lock would hold off the softirq
	 * delivering the data it waits for). */
	if (skb_queue_empty_lockless(&sk->sk_receive_queue) &&
	    !READ_ONCE(sk->sk_err) &&
	    !(READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN))
		return -EAGAIN;
	desc.count = kfi_util_segs_iter(&it, ITER_DEST, &v, segs, n, skip, len);
	if (!desc.count)
		return -EINVAL;
	KFI_TCP_TR(RECV_TAKE);
	if (!kfi_tcp_sk_take(sk, &h, desc.count >= KFI_TCP_SK_OWN_MIN))
		return -EBUSY;
	ret = tcp_read_sock(sk, &desc, kfi_tcp_sk_actor);
	KFI_TCP_TR(RECV_READ);
	if (ret == 0 && desc.error)
		ret = desc.error;
	else if (ret == 0 && READ_ONCE(sk->sk_err))
		ret = -READ_ONCE(sk->sk_err);
	else if (ret == 0 && !(READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) &&
		 !sock_flag(sk, SOCK_DONE))
		ret = -EAGAIN;
	kfi_tcp_sk_let_go(sk, &h);
	KFI_TCP_TR(RECV_GONE);
	if (ret > 0)
		atomic64_add(ret, &kfi_tcp_call_bytes);
	return ret;
}

/**
 * kfi_tcp_sk_recv() - Receive into a list of segments without blocking.
 * @s: The socket.
 * @segs: Destination segments.
 * @n: Number of @segs.
 * @skip: Bytes of @segs already filled.
 * @len: Bytes wanted after @skip; not 0.
 *
 * Context: Process context.
 * Return: Bytes received (> 0), 0 at end of stream, -EAGAIN when nothing is
 * available, or a negative errno.
 */
ssize_t kfi_tcp_sk_recv(struct kfi_tcp_sk *s, const struct kfi_util_seg *segs,
			int n, size_t skip, size_t len)
{
	struct kfi_util_vecs v __uninitialized;
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };

	if (!kfi_util_segs_iter(&msg.msg_iter, ITER_DEST, &v, segs, n, skip, len))
		return -EINVAL;
	return sock_recvmsg(s->sock, &msg, msg.msg_flags);
}


