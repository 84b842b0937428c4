/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The HPE Slingshot (cxi) provider's extension interfaces and address form,
 * as the kfabric 1.7 distribution declares them. Consumers written for that
 * provider (Lustre's kfilnd) include this header unconditionally. Both
 * providers of this tree implement the two ops tables (the fabric's: a
 * no-op, domains always size themselves from their info; the domain's:
 * a device valid for the DMA API) and name endpoints with struct kcxi_addr
 * when getinfo's node is an interface name (addr_format KFI_ADDR_CXI: the
 * NIC address is the interface address's host part, the pid an endpoint
 * index; Documentation/lnet.md). Names and layouts are the distribution's.
 */
#ifndef _KFI_CXI_EXT_H_
#define _KFI_CXI_EXT_H_

#include <linux/types.h>

struct kfid;
struct device;

/* Name passed to kfi_open_ops() on a fabric for struct kfi_cxi_fabric_ops. */
#define KFI_CXI_FAB_OPS_1 "cxi_fab_ops_v1"

/**
 * struct kfi_cxi_fabric_ops - cxi fabric extension operations.
 * @enable_dynamic_rsrc_alloc: Select whether domains reserve resources from
 *	the provider's parameters (false) or from the domain attributes of the
 *	kfi_info used to open them (true).
 */
struct kfi_cxi_fabric_ops {
	int (*enable_dynamic_rsrc_alloc)(struct kfid *fid, bool enable);
};

/* Name passed to kfi_open_ops() on a domain for struct kfi_cxi_domain_ops. */
#define KFI_CXI_DOM_OPS_1 "cxi_dom_ops_v1"

/**
 * struct kfi_cxi_domain_ops - cxi domain extension operations.
 * @get_device: Return the struct device behind a domain.
 */
struct kfi_cxi_domain_ops {
	int (*get_device)(struct kfid *fid, struct device **device);
};

/**
 * struct kcxi_addr - A cxi fabric address packed into one 64-bit word.
 * @pid: Process (endpoint) index on the NIC.
 * @nic: NIC address.
 * @flags: Address flags.
 * @qw: The whole word.
 */
struct kcxi_addr {
	union {
		struct {
			uint64_t pid:12;
			uint64_t nic:20;
			uint64_t flags:10;
		};
		uint64_t qw;
	};
};

#endif /* _KFI_CXI_EXT_H_ */
