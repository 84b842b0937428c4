// SPDX-License-Identifier: GPL-2.0
/*
 * kfi_tcp.ko, C side: what is the provider's own of its objects' ops tables
 * (the domain's header with the toolkit's memory registration, the
 * endpoints' connection management; the slots not implemented are
 * kfi_enosys.h's -KFI_ENOSYS defaults, never NULL). Every other table,
 * the interface list and the namespace helpers are the toolkit's
 * (kfi_util/kfi_util_glue.c); the sockets are kfi_tcp_sock.c's.
 */
#include <linux/module.h>

#include <kfi_enosys.h>
#include "tcp_sys.h"

/**
 * kfi_tcp_glue_domain_init() - Fill the kfabric header of a new domain.
 * @domain: The embedded struct kfid_domain of the provider's domain object.
 * @context: The consumer's context.
 */
void kfi_tcp_glue_domain_init(struct kfid_domain *domain, void *context)
{
	kfi_util_domain_init(domain, context, true);
}

/**
 * kfi_prov_domain_device() - The device of every kfi_tcp domain: the
 *	toolkit's direct-mapped one (sockets move the bytes, by their pages).
 * @domain: One of the provider's domains.
 *
 * Return: The device.
 */
struct device *kfi_prov_domain_device(struct kfid_domain *domain)
{
	return kfi_util_dma_device();
}

/* No atomic operations over sockets: every atomic call is -KFI_ENOSYS. */
const bool kfi_prov_atomics;

/*
 * The connection management of endpoints (the rest of an endpoint's tables,
 * and every table of passive endpoints and connection requests, are the
 * toolkit's).
 */
static struct kfi_ops_cm kfi_tcp_ep_cm_ops = {
	.size = sizeof(struct kfi_ops_cm),
	.setname = kfi_no_setname,
	.getname = kfi_tcp_ep_getname,
	.getpeer = kfi_tcp_ep_getpeer,
	.connect = kfi_tcp_ep_connect,
	.listen = kfi_no_listen,
	.accept = kfi_tcp_ep_accept,
	.reject = kfi_no_reject,
	.shutdown = kfi_tcp_ep_shutdown,
	.join = kfi_no_join,
};

/**
 * kfi_tcp_glue_ep_init() - Fill the kfabric header of a new endpoint: the
 *	toolkit's tables (kfi_util/ep.rs) with this provider's connection
 *	management.
 * @ep: The embedded struct kfid_ep of the endpoint's EpBase.
 * @context: The consumer's context.
 */
void kfi_tcp_glue_ep_init(struct kfid_ep *ep, void *context)
{
	kfi_util_ep_init(ep, context, &kfi_tcp_ep_cm_ops);
}
