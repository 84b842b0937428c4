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
};

int kfi_verbs_client_register(void);
void kfi_verbs_client_unregister(void);
int kfi_verbs_ports(struct kfi_verbs_port *out, int max);
struct kfi_verbs_dev *kfi_verbs_dev_get(const char *name, size_t len,
					void *net);
void kfi_verbs_dev_put(struct kfi_verbs_dev *dev);

/* kfi_verbs_glue.c */
void kfi_verbs_glue_domain_init(struct kfid_domain *domain, void *context);

#endif
