/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the Rust side of kfi_tcp.ko sees of C: the public kfabric headers and
 * the functions of kfi_tcp_glue.c. bindgen turns this into
 * tcp_sys_generated.rs at build time.
 */
#ifndef KFI_TCP_SYS_H
#define KFI_TCP_SYS_H

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
#include "kfi_tcp_trace.h"
#include "../kfi_util/util_sys.h"
#include "../kfi_trigger/trigger_sys.h"

void kfi_tcp_glue_domain_init(struct kfid_domain *domain, void *context);
void kfi_tcp_glue_ep_init(struct kfid_ep *ep, void *context);

/* kfi_tcp_sock.c: the provider's sockets (see the comment there). */
struct kfi_tcp_sk;

/* What kfi_tcp_sk_state() reports. */
#define KFI_TCP_SK_CONNECTING	0
#define KFI_TCP_SK_ESTABLISHED	1
#define KFI_TCP_SK_LISTEN	2
#define KFI_TCP_SK_CLOSED	3

/* Fault injection of the provider's own allocations (kfi_tcp_sock.c). */
void kfi_tcp_glue_fail_init(void);
void kfi_tcp_glue_fail_exit(void);
bool kfi_tcp_glue_fail_alloc(void);
int kfi_tcp_sk_create(void *net, int family, struct kfi_tcp_sk **out);
int kfi_tcp_sk_listen(struct kfi_tcp_sk *s, const struct kfi_util_addr *addr,
		      int backlog);
int kfi_tcp_sk_accept(struct kfi_tcp_sk *s, struct kfi_tcp_sk **out);
int kfi_tcp_sk_connect(struct kfi_tcp_sk *s, const struct kfi_util_addr *src,
		       const struct kfi_util_addr *dst);
void kfi_tcp_sk_install(struct kfi_tcp_sk *s, void (*wake)(void *ctx),
			void *ctx);
void kfi_tcp_sk_detach(struct kfi_tcp_sk *s);
void kfi_tcp_sk_release(struct kfi_tcp_sk *s);
void kfi_tcp_sk_shutdown(struct kfi_tcp_sk *s);
int kfi_tcp_sk_state(struct kfi_tcp_sk *s, int *err);
bool kfi_tcp_sk_rx_ended(struct kfi_tcp_sk *s);
void kfi_tcp_tp_conn(struct kfi_tcp_sk *s, const void *conn, const void *ep,
		     const char *from, const char *to);
int kfi_tcp_sk_name(struct kfi_tcp_sk *s, struct kfi_util_addr *out,
		    bool peer);
ssize_t kfi_tcp_sk_send(struct kfi_tcp_sk *s, const struct kfi_util_seg *segs,
			int n, size_t skip, size_t len, bool more, bool splice);
u64 kfi_tcp_stat_spliced(void);
u64 kfi_tcp_stat_call_bytes(void);
u64 kfi_tcp_stat_send_calls(void);
void kfi_tcp_stat_conn_ran(void);
void kfi_tcp_stat_broke(int err);
u64 kfi_tcp_stat_conn_runs(void);
int kfi_tcp_stat_last_break(void);
ssize_t kfi_tcp_sk_try_send(struct kfi_tcp_sk *s,
			    const struct kfi_util_seg *segs, int n, size_t skip,
			    size_t len, bool more, bool splice);
ssize_t kfi_tcp_sk_try_recv(struct kfi_tcp_sk *s,
			    const struct kfi_util_seg *segs, int n, size_t skip,
			    size_t len);
ssize_t kfi_tcp_sk_recv(struct kfi_tcp_sk *s, const struct kfi_util_seg *segs,
			int n, size_t skip, size_t len);

/* Implemented in Rust. */
int kfi_tcp_ep_connect(struct kfid_ep *ep, const void *addr,
		       const void *param, size_t paramlen);
int kfi_tcp_ep_accept(struct kfid_ep *ep, const void *param, size_t paramlen);
int kfi_tcp_ep_shutdown(struct kfid_ep *ep, uint64_t flags);
int kfi_tcp_ep_getname(struct kfid *fid, void *addr, size_t *addrlen);
int kfi_tcp_ep_getpeer(struct kfid_ep *ep, void *addr, size_t *addrlen);

#endif
