// SPDX-License-Identifier: GPL-2.0
/*
 * A consumer module for the load/unload integration test: it links against
 * kfabric.ko's exports (so it cannot load without the core, and the core
 * cannot unload while it is loaded) and checks a few calls at init. Any
 * failure makes insmod fail.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kfabric.h>
#include <kfi_errno.h>
#include <kfi_cxi_ext.h>
#include <kfi_endpoint.h>
#include <kfi_domain.h>
#include <kfi_cm.h>
#include <kfi_eq.h>
#include <kfi_rma.h>
#include <kfi_tagged.h>
#include <kfi_atomic.h>
#include <kfi_trigger.h>

static int __init kfi_consumer_init(void)
{
	struct kfi_info *info = NULL, *dup;
	int ret;

	if (kfi_version() != KFI_VERSION(1, 7))
		return -EINVAL;
	if (strcmp(kfi_strerror(-KFI_ETRUNC), "Truncation error"))
		return -EINVAL;
	/* no provider is loaded in this test */
	ret = kfi_getinfo(KFI_VERSION(1, 7), NULL, NULL, 0, NULL, &info);
	if (ret != -ENODATA || info)
		return -EINVAL;
	info = kfi_allocinfo();
	if (!info)
		return -ENOMEM;
	info->fabric_attr->name = kstrdup("consumer", GFP_KERNEL);
	dup = kfi_dupinfo(info);
	ret = dup && dup->fabric_attr->name &&
	      !strcmp(dup->fabric_attr->name, "consumer") ? 0 : -EINVAL;
	kfi_freeinfo(dup);
	kfi_freeinfo(info);
	return ret;
}

static void __exit kfi_consumer_exit(void)
{
}

module_init(kfi_consumer_init);
module_exit(kfi_consumer_exit);
MODULE_DESCRIPTION("kfabric test consumer (links against kfabric.ko)");
MODULE_LICENSE("GPL");
