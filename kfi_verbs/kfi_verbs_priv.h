/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfi_verbs.ko, C side: what its C files share and Rust does not see (the
 * RDMA core's structures stay out of verbs_sys.h).
 */
#ifndef KFI_VERBS_PRIV_H
#define KFI_VERBS_PRIV_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <rdma/ib_verbs.h>

struct kfi_verbs_port;

/**
 * struct kfi_verbs_dev - One RDMA device as the provider sees it.
 * @ref: References: the list's while the device is live, one per domain
 *	and one per connection made on it.
 * @node: In kfi_verbs_devs while live (under kfi_verbs_devs_lock).
 * @lock: Protects @ib, @pd and @name. Held for read by whoever uses the
 *	ib_device, and by whoever creates or destroys a queue pair on it (so
 *	that removal, which takes it for write, finds every queue pair on
 *	@conns); see kfi_verbs_ib.c.
 * @ib: The device; NULL once removed.
 * @pd: The protection domain of every kfabric domain on the device;
 *	NULL once removed.
 * @name: The device's name (updated on rename).
 * @conns_lock: Protects @conns among the holders of @lock for read.
 * @conns: The connections with a queue pair on the device
 *	(struct kfi_verbs_conn.node).
 */
struct kfi_verbs_dev {
	struct kref ref;
	struct list_head node;
	struct rw_semaphore lock;
	struct ib_device *ib;
	struct ib_pd *pd;
	char name[IB_DEVICE_NAME_MAX];
	struct mutex conns_lock;
	struct list_head conns;
};

struct kfi_verbs_dev *kfi_verbs_dev_of(struct ib_device *ib);
int kfi_verbs_dev_port(struct kfi_verbs_dev *d, u32 port,
		       struct kfi_verbs_port *out);
void kfi_verbs_conns_remove(struct kfi_verbs_dev *d);

#endif
