// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include <linux/uio.h>
#include <linux/bvec.h>
#include <linux/scatterlist.h>
#include <kfabric.h>
#include <kfi_endpoint.h>
#include "kfitest.h"

static int __init kfitest_init(void)
{
	return kfitest_provider_init();
}

static void __exit kfitest_exit(void)
{
	kfitest_provider_exit();
}

module_init(kfitest_init);
module_exit(kfitest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kfabric header compatibility test");
