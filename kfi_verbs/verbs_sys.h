/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the Rust side of kfi_verbs.ko sees of C: the public kfabric headers,
 * the provider toolkit's C side, and the functions of kfi_verbs_ib.c.
 * bindgen turns this into verbs_sys_generated.rs at build time. The RDMA
 * core's own structures stay opaque here: C owns every ib_* object
 * (Documentation/verbs-plan.md, section 2.2).
 */
#ifndef KFI_VERBS_SYS_H
#define KFI_VERBS_SYS_H

#include <kfabric.h>
#include <kfi_domain.h>
#include <kfi_eq.h>
#include <kfi_errno.h>
#include <kfi_prov.h>
#include <kfi_endpoint.h>
#include <kfi_cm.h>
#include <kfi_tagged.h>
#include <kfi_rma.h>
#include <kfi_trigger.h>
#include "../kfi_util/util_sys.h"
#include "../kfi_trigger/trigger_sys.h"

/* Longest RDMA device name, with its NUL (IB_DEVICE_NAME_MAX). */
#define KFI_VERBS_NAME_MAX 64
/* At most this many (device, port) pairs are listed by one kfi_getinfo. */
#define KFI_VERBS_MAX_PORTS 32

struct kfi_verbs_dev;

/**
 * struct kfi_verbs_port - What kfi_getinfo needs to know of one port of an
 *	RDMA device whose network device is in the caller's namespace: a
 *	snapshot, taken under the device's lock.
 * @dev_name: The RDMA device's name (the domain name), NUL-terminated.
 * @port: Port number.
 * @ifindex: Index of the port's network device (its IP addresses are the
 *	endpoints' addresses).
 * @iwarp: The port speaks iWARP (else InfiniBand transport: IB or RoCE).
 * @atomics: The device does 64-bit atomics (atomic_cap is not NONE).
 * @gid_prefix: Subnet prefix of GID 0, host byte order (0 if unreadable).
 * @max_msg: Largest message of the port (max_msg_sz).
 * @max_qp_wr: Deepest work queue of the device.
 * @max_send_sge: Most scatter/gather entries of a send work request.
 * @max_recv_sge: Most scatter/gather entries of a receive work request.
 * @max_cqe: Deepest completion queue of the device.
 * @max_fr_pages: Most pages of one fast registration.
 * @max_mr_size: Largest memory region.
 * @max_mr: Most memory regions of the device.
 * @max_qp: Most queue pairs of the device (each endpoint's connection
 *	holds one).
 */
struct kfi_verbs_port {
	char dev_name[KFI_VERBS_NAME_MAX];
	unsigned int port;
	int ifindex;
	bool iwarp;
	bool atomics;
	uint64_t gid_prefix;
	unsigned int max_msg;
	unsigned int max_qp_wr;
	unsigned int max_send_sge;
	unsigned int max_recv_sge;
	unsigned int max_cqe;
	unsigned int max_fr_pages;
	uint64_t max_mr_size;
	unsigned int max_mr;
	unsigned int max_qp;
};

int kfi_verbs_client_register(void);
void kfi_verbs_client_unregister(void);
int kfi_verbs_ports(struct kfi_verbs_port *out, int max);
struct kfi_verbs_dev *kfi_verbs_dev_get(const char *name, size_t len,
					void *net);
void kfi_verbs_dev_put(struct kfi_verbs_dev *dev);
bool kfi_verbs_dev_iwarp(struct kfi_verbs_dev *dev);
bool kfi_verbs_dev_atomics(struct kfi_verbs_dev *dev);
struct device *kfi_verbs_dev_dma(struct kfi_verbs_dev *d);
int kfi_verbs_route_ifindex(const struct kfi_util_addr *dst);

/* Connections (kfi_verbs_cm.c): rdma_cm ids and their queue pairs. */

/* Most private data a connect, accept or reject carries (an IB REQ's). */
#define KFI_VERBS_PDATA_MAX 56

/* Whom a connection reports to. */
#define KFI_VERBS_CONN_EP 1	/* an endpoint: kfi_verbs_ep_cm_event() */
#define KFI_VERBS_CONN_PEP 2	/* a passive endpoint: kfi_verbs_pep_cm_event() */
#define KFI_VERBS_CONN_REQ 3	/* a request not taken yet: nobody */

/* What a connection reports (struct kfi_verbs_cm_ev.type). */
#define KFI_VERBS_EV_ESTABLISHED 1	/* ep: connected, the peer's data */
#define KFI_VERBS_EV_ERROR 2		/* ep: connecting failed (@status) */
#define KFI_VERBS_EV_DISCONNECTED 3	/* ep: the connection ended */
#define KFI_VERBS_EV_REMOVED 4		/* ep, pep: the device went away */
#define KFI_VERBS_EV_CONNREQ 5		/* pep: a request (@req) */
#define KFI_VERBS_EV_QP 6		/* ep: the queue pair exists (connect) */

struct kfi_verbs_conn;

/**
 * struct kfi_verbs_cm_ev - What a connection reports to its owner.
 * @type: KFI_VERBS_EV_*.
 * @status: For KFI_VERBS_EV_ERROR and _REMOVED, a negative errno
 *	(-ECONNREFUSED when rejected, -ETIMEDOUT, -ENODEV...); else 0.
 * @pdata: The peer's private data as it arrived (padded by some
 *	transports), valid during the call only; NULL if none.
 * @pdata_len: Its length.
 * @req: For KFI_VERBS_EV_CONNREQ, the request, which the owner then
 *	owns if it returns 0 (kfi_verbs_conn_take(), _reject(), _free()).
 * @local: For KFI_VERBS_EV_CONNREQ, the address the request came to.
 * @peer: For KFI_VERBS_EV_CONNREQ, the address it came from.
 * @port: For KFI_VERBS_EV_CONNREQ, the port it came to (its device
 *	names the domain an endpoint accepting it must be opened on).
 */
struct kfi_verbs_cm_ev {
	int type;
	int status;
	const uint8_t *pdata;
	uint8_t pdata_len;
	struct kfi_verbs_conn *req;
	struct kfi_util_addr local;
	struct kfi_util_addr peer;
	struct kfi_verbs_port port;
};

int kfi_verbs_conn_create(void *net, int kind, struct kfi_verbs_dev *dev,
			  struct kfi_verbs_conn **out);
void kfi_verbs_conn_set_owner(struct kfi_verbs_conn *c, void *ctx);
void kfi_verbs_conn_set_owner_fresh(struct kfi_verbs_conn *c, void *ctx);
void kfi_verbs_conn_set_rdm(struct kfi_verbs_conn *c);
int kfi_verbs_conn_listen(struct kfi_verbs_conn *c,
			  const struct kfi_util_addr *src, int backlog);
int kfi_verbs_conn_connect(struct kfi_verbs_conn *c,
			   const struct kfi_util_addr *src,
			   const struct kfi_util_addr *dst,
			   const void *pdata, size_t len,
			   unsigned int sq, unsigned int rq);
int kfi_verbs_conn_take(struct kfi_verbs_conn *c, struct kfi_verbs_dev *dev,
			unsigned int sq, unsigned int rq);
int kfi_verbs_conn_accept(struct kfi_verbs_conn *c, const void *pdata,
			  size_t len);
int kfi_verbs_conn_reject(struct kfi_verbs_conn *c, const void *pdata,
			  size_t len);
int kfi_verbs_conn_disconnect(struct kfi_verbs_conn *c);
int kfi_verbs_conn_addr(struct kfi_verbs_conn *c, bool peer,
			struct kfi_util_addr *out);
int kfi_verbs_conn_bound_addr(struct kfi_verbs_conn *c,
			      struct kfi_util_addr *out);
void kfi_verbs_conn_quiesce(struct kfi_verbs_conn *c);
int kfi_verbs_conn_poll(struct kfi_verbs_conn *c, int budget, bool busy);
void kfi_verbs_conn_close(struct kfi_verbs_conn *c);
void kfi_verbs_conn_free(struct kfi_verbs_conn *c);

/*
 * Defined in Rust (ep.rs, pep.rs): called from the rdma_cm handler (process
 * context, the id's handler mutex held) or the removal work.
 * kfi_verbs_pep_cm_event() returns 0 when it takes a request, else a
 * negative errno (the request is rejected).
 */
void kfi_verbs_ep_cm_event(void *ctx, const struct kfi_verbs_cm_ev *ev);
int kfi_verbs_pep_cm_event(void *ctx, const struct kfi_verbs_cm_ev *ev);
/* rdm.rs: the same for a connectionless endpoint's connections and listener
 * (kfi_verbs_conn_set_rdm()). */
void kfi_verbs_rdm_cm_event(void *ctx, const struct kfi_verbs_cm_ev *ev);
int kfi_verbs_rdm_pep_event(void *ctx, const struct kfi_verbs_cm_ev *ev);

/* Data transfers (kfi_verbs_qp.c): work requests on a connection's QP. */

/* Scatter/gather entries asked for per work request (at most). */
#define KFI_VERBS_SGE_MAX 4
/* FRWR ib_mrs per queue pair for operations over more pieces (at most). */
#define KFI_VERBS_QP_MRS 32
/* Bytes asked for inline sends (the device may give fewer, or none). */
#define KFI_VERBS_INLINE 64

/* What a transmit work request does (struct kfi_verbs_sq_req.op). */
#define KFI_VERBS_OP_SEND 1
#define KFI_VERBS_OP_WRITE 2
#define KFI_VERBS_OP_READ 3
#define KFI_VERBS_OP_FETCH_ADD 4	/* 64-bit atomic fetch-and-add */
#define KFI_VERBS_OP_CMP_SWAP 5	/* 64-bit atomic compare-and-swap */

struct kfi_verbs_wrs;

/**
 * struct kfi_verbs_sq_req - One transmit work request to post.
 * @op: KFI_VERBS_OP_*.
 * @segs: The local buffer (source; for a read, the sink).
 * @nseg: Its segments.
 * @inline_ok: The bytes may be copied at the post (a send or write:
 *	the device reads them then instead of until the completion): sent
 *	inline when they fit the queue pair's inline size.
 * @imm: Carry @imm_data (send or write with immediate data).
 * @imm_data: The immediate data (host order; big-endian on the wire).
 * @fence: Wait for earlier reads and atomics (KFI_FENCE).
 * @raddr: Remote address of a write, read or atomic.
 * @rkey: Remote key of a write, read or atomic.
 * @compare_add: An atomic's addend (fetch-and-add) or compare operand
 *	(compare-and-swap).
 * @swap: A compare-and-swap's new value.
 * @result: Where an atomic puts the old value (8 bytes, a kernel
 *	address, valid until the completion), or NULL: the slot's own.
 *	An atomic has no @segs.
 */
struct kfi_verbs_sq_req {
	int op;
	const struct kfi_util_seg *segs;
	unsigned int nseg;
	bool inline_ok;
	bool imm;
	uint32_t imm_data;
	bool fence;
	uint64_t raddr;
	uint32_t rkey;
	uint64_t compare_add;
	uint64_t swap;
	void *result;
};

/**
 * struct kfi_verbs_wc - How a work request completed.
 * @status: The ib_wc_status (0: success).
 * @vendor_err: The device's own error code.
 * @byte_len: Bytes received (receives only; 0 on error).
 * @imm: Immediate data came (@imm_data, host order).
 * @imm_data: The immediate data.
 * @write_imm: The receive was consumed by a write with immediate data
 *	(no bytes landed in its buffer).
 * @reg: The completion is a receive slot's registration
 *	(kfi_verbs_post_recv_reg()), not its receive.
 */
struct kfi_verbs_wc {
	int status;
	uint32_t vendor_err;
	uint32_t byte_len;
	bool imm;
	uint32_t imm_data;
	bool write_imm;
	bool reg;
};

struct kfi_verbs_wrs *kfi_verbs_wrs_alloc(void *owner, unsigned int ntx,
					  unsigned int nrx);
void kfi_verbs_wrs_free(struct kfi_verbs_wrs *w);
void kfi_verbs_wrs_set_rdm(struct kfi_verbs_wrs *w, void *owner);
int kfi_verbs_post_send(struct kfi_verbs_conn *c, struct kfi_verbs_wrs *w,
			unsigned int slot, const struct kfi_verbs_sq_req *r);
int kfi_verbs_post_recv(struct kfi_verbs_conn *c, struct kfi_verbs_wrs *w,
			unsigned int slot, const struct kfi_util_seg *segs,
			unsigned int n);
int kfi_verbs_post_recv_reg(struct kfi_verbs_conn *c, struct kfi_verbs_wrs *w,
			    unsigned int slot, const struct kfi_util_seg *segs,
			    unsigned int n);
int kfi_verbs_post_recv_mr(struct kfi_verbs_conn *c, struct kfi_verbs_wrs *w,
			   unsigned int slot);
void kfi_verbs_conn_broken(struct kfi_verbs_conn *c);
int kfi_verbs_post_chunk(struct kfi_verbs_conn *c, struct kfi_verbs_wrs *w,
			 unsigned int slot, const void *hdr, unsigned int hdr_len,
			 const struct kfi_util_seg *segs, unsigned int n,
			 size_t skip, size_t max, size_t *covered);

/*
 * Defined in Rust (ep.rs): a slot's work request completed. Softirq
 * context (the completion queue's), no lock held.
 */
void kfi_verbs_tx_done(void *owner, unsigned int slot,
		       const struct kfi_verbs_wc *wc);
void kfi_verbs_rx_done(void *owner, unsigned int slot,
		       const struct kfi_verbs_wc *wc);
/* rdm.rs: the same for a set of kfi_verbs_wrs_set_rdm(). */
void kfi_verbs_rdm_tx_done(void *owner, unsigned int slot,
			   const struct kfi_verbs_wc *wc);
void kfi_verbs_rdm_rx_done(void *owner, unsigned int slot,
			   const struct kfi_verbs_wc *wc);

/* Memory regions for remote access (kfi_verbs_mr.c): fast registration. */

/* Most pages one region spans (fewer if the device allows fewer). */
#define KFI_VERBS_MR_PAGES 256

struct kfi_verbs_mr;

int kfi_verbs_mr_reg(struct kfi_verbs_dev *d, const struct kfi_util_seg *segs,
		     unsigned int n, uint64_t len, uint64_t offset,
		     uint64_t access, uint64_t *key, struct kfi_verbs_mr **out);
void kfi_verbs_mr_dereg(struct kfi_verbs_mr *m);

/* kfi_verbs_glue.c */
void kfi_verbs_glue_domain_init(struct kfid_domain *domain, void *context);
void kfi_verbs_glue_ep_init(struct kfid_ep *ep, void *context);

/* ep.rs: an endpoint's connection management (its CM ops table) */
int kfi_verbs_ep_connect(struct kfid_ep *ep, const void *addr,
			 const void *param, size_t paramlen);
int kfi_verbs_ep_accept(struct kfid_ep *ep, const void *param,
			size_t paramlen);
int kfi_verbs_ep_shutdown(struct kfid_ep *ep, uint64_t flags);
int kfi_verbs_ep_getname(struct kfid *fid, void *addr, size_t *addrlen);
int kfi_verbs_ep_getpeer(struct kfid_ep *ep, void *addr, size_t *addrlen);

#endif
