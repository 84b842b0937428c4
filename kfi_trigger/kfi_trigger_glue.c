// SPDX-License-Identifier: GPL-2.0
/*
 * The counters' ops table (kfi_trigger/cntr.rs): compiled into each
 * provider module with the toolkit (kfi_tcp/kfi_tcp_util.c), never
 * exported.
 */
#include <kfi_enosys.h>
#include "trigger_sys.h"

static struct kfi_ops kfi_util_cntr_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = kfi_util_cntr_close,
	.bind = kfi_no_bind,
	.control = kfi_no_control,
	.ops_open = kfi_no_ops_open,
};

static struct kfi_ops_cntr kfi_util_cntr_ops = {
	.size = sizeof(struct kfi_ops_cntr),
	.read = kfi_util_cntr_read,
	.readerr = kfi_util_cntr_readerr,
	.add = kfi_util_cntr_add,
	.set = kfi_util_cntr_set,
	.wait = kfi_util_cntr_wait,
	.adderr = kfi_util_cntr_adderr,
	.seterr = kfi_util_cntr_seterr,
};

/**
 * kfi_util_cntr_init() - Fill the kfabric header of a new counter.
 * @cntr: The embedded struct kfid_cntr of the counter (kfi_trigger/cntr.rs).
 * @context: The consumer's context.
 */
void kfi_util_cntr_init(struct kfid_cntr *cntr, void *context)
{
	cntr->fid.fclass = KFI_CLASS_CNTR;
	cntr->fid.context = context;
	cntr->fid.ops = &kfi_util_cntr_fid_ops;
	cntr->ops = &kfi_util_cntr_ops;
}

/**
 * kfi_util_is_cntr() - Tell whether an object is a counter of this
 * provider.
 * @fid: A valid object header, e.g. as given to kfi_ep_bind().
 *
 * Return: true if @fid was made by kfi_util_cntr_init().
 */
bool kfi_util_is_cntr(const struct kfid *fid)
{
	return fid->fclass == KFI_CLASS_CNTR && fid->ops == &kfi_util_cntr_fid_ops;
}
