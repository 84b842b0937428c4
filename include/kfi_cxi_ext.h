/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names of the HPE Slingshot (cxi) provider's extension interfaces, as the
 * kfabric 1.7 distribution declares them. Consumers written for that
 * distribution (Lustre's kfilnd) include this header unconditionally and ask
 * for these ops with kfi_open_ops(); no provider in this tree implements
 * them, so such a request fails with -KFI_ENOSYS and the consumer falls back
 * to the portable API. Only the names and layouts are given here.
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
