// SPDX-License-Identifier: GPL-2.0
/*
 * kfi_verbs.ko, C side: what the toolkit's ops tables (kfi_util/,
 * kfi_trigger/, compiled in by kfi_verbs_util.c) need of the provider. The
 * entries not implemented yet are kfi_enosys.h's -KFI_ENOSYS defaults,
 * never NULL. The fabric, the domain's tables (memory regions: mr.rs),
 * event queues, completion queues, counters and the endpoints' tables are
 * the toolkit's; the endpoints' connection
 * management is this provider's (ep.rs).
 */
#include <linux/module.h>

#include <kfi_enosys.h>
#include "verbs_sys.h"

/**
 * kfi_verbs_glue_domain_init() - Fill the kfabric header of a new domain.
 * @domain: The embedded struct kfid_domain of the provider's domain object.
 * @context: The consumer's context.
 */
void kfi_verbs_glue_domain_init(struct kfid_domain *domain, void *context)
{
	kfi_util_domain_init(domain, context, true);
}

/*
 * Atomics reach the queues, which do what the device does in hardware
 * (xfer.rs, logic/atomic.rs) and refuse the rest with -KFI_ENOSYS.
 */
const bool kfi_prov_atomics = true;

static struct kfi_ops_cm kfi_verbs_ep_cm_ops = {
	.size = sizeof(struct kfi_ops_cm),
	.setname = kfi_no_setname,
	.getname = kfi_verbs_ep_getname,
	.getpeer = kfi_verbs_ep_getpeer,
	.connect = kfi_verbs_ep_connect,
	.listen = kfi_no_listen,
	.accept = kfi_verbs_ep_accept,
	.reject = kfi_no_reject,
	.shutdown = kfi_verbs_ep_shutdown,
	.join = kfi_no_join,
};

/**
 * kfi_verbs_glue_ep_init() - Fill the kfabric header of a new endpoint: the
 *	toolkit's tables (kfi_util/ep.rs) with this provider's connection
 *	management (ep.rs).
 * @ep: The embedded struct kfid_ep of the endpoint's EpBase.
 * @context: The consumer's context.
 */
void kfi_verbs_glue_ep_init(struct kfid_ep *ep, void *context)
{
	kfi_util_ep_init(ep, context, &kfi_verbs_ep_cm_ops);
}
