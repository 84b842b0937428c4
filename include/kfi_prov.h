/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfabric provider interface.
 *
 * For provider modules only; consumers never need this header.  A provider
 * fills in a &struct kfi_provider, registers it from its module init with
 * kfi_provider_register() and deregisters it on exit.  It then answers
 * kfi_getinfo() through ->kgetinfo and creates fabrics through ->kfabric;
 * everything after that goes through the ops tables of the objects it
 * creates (see the ops table contract in <kfabric.h>).
 */

#ifndef _KFI_PROV_H_
#define _KFI_PROV_H_

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/module.h>
#include <kfabric.h>

/**
 * DOC: Object lifetime
 *
 * Helpers are provided for the &struct kfid header every object starts
 * with: kfi_init_id() when the object is created, kfi_ref_id() and
 * kfi_deref_id() around uses by other objects or by provider code running
 * outside the consumer's call, and kfi_close_id() in the close op to wait
 * for those uses to drain.  Every object a provider creates should also
 * hold a kfi_ref_provider() reference until it is destroyed, so that
 * kfi_provider_deregister() cannot complete under it.
 */

/**
 * struct kfi_provider - A registered kfabric provider.
 * @version: Provider version, packed with KFI_VERSION().
 * @kfi_version: kfabric API version the provider was built for; use
 *	KFI_VERSION(KFI_MAJOR_VERSION, KFI_MINOR_VERSION).
 * @context: Reserved for the kfabric core; providers leave it zeroed and
 *	never touch it.
 * @name: Unique provider name (matched against fabric_attr->prov_name).
 * @kgetinfo: Answer kfi_getinfo(): return a kfi_info list (allocated with
 *	kfi_allocinfo()/kfi_dupinfo()) of configurations matching @hints, or
 *	-ENODATA.  Called in process context without core locks held; may
 *	sleep.
 * @kfabric: Open a fabric for kfi_fabric().  Process context; may sleep.
 * @cleanup: Called by the core when the provider is deregistered (or its
 *	registration fails), or NULL.  Process context; may sleep.
 * @comp: Completed when @ref_cnt drops to zero; managed by the core and
 *	by kfi_ref_provider()/kfi_deref_provider().
 * @ref_cnt: Reference count; initialised by the core at registration.
 *
 * The structure must stay allocated (normally as a static object of the
 * provider module) until kfi_provider_deregister() has returned.
 */
struct kfi_provider {
	uint32_t version;
	uint32_t kfi_version;
	struct kfi_context context;
	const char *name;
	int (*kgetinfo)(uint32_t version, const char *node, const char *service,
			uint64_t flags, struct kfi_info *hints,
			struct kfi_info **info);
	int (*kfabric)(struct kfi_fabric_attr *attr,
		       struct kfid_fabric **fabric, void *context);
	void (*cleanup)(void);
	struct completion comp;
	atomic_t ref_cnt;
};

/**
 * __kfi_provider_register() - Register a provider with the kfabric core.
 * @provider: Provider description.
 * @owner: Module implementing the provider; the core holds a reference on
 *	it while fabrics of the provider are open.
 *
 * Use kfi_provider_register(), which passes the calling module.  The
 * provider becomes visible to kfi_getinfo() and kfi_fabric() on success.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success, -EEXIST if a provider of the same name and an
 * equal or newer version is registered, -ENOSYS if @provider->kfi_version
 * is incompatible with the core, or another negative error code.
 */
int __kfi_provider_register(struct kfi_provider *provider,
			    struct module *owner);

/**
 * kfi_provider_register() - Register a provider owned by the calling module.
 * @prov: Provider description (&struct kfi_provider pointer).
 *
 * Expands to __kfi_provider_register(@prov, THIS_MODULE).
 */
#define kfi_provider_register(prov) \
	__kfi_provider_register((prov), THIS_MODULE)

/**
 * kfi_provider_deregister() - Remove a provider from the kfabric core.
 * @provider: Provider registered earlier.
 *
 * The provider can no longer be found once this starts.  The call then
 * runs @provider->cleanup and waits until every reference taken with
 * kfi_ref_provider() has been dropped, so all objects of the provider
 * must be closed (or be closing) for it to return.
 *
 * Context: Process context; sleeps.
 * Return: 0 on success, -ENODATA if @provider was not registered, or
 * another negative error code.
 */
int kfi_provider_deregister(struct kfi_provider *provider);

/**
 * kfi_ref_provider() - Take a reference on a provider.
 * @provider: Registered provider.
 *
 * Providers take one per object they create and drop it when the object
 * is destroyed, so that deregistration waits for those objects.
 *
 * Context: Any context.
 */
static inline void kfi_ref_provider(struct kfi_provider *provider)
{
	atomic_inc(&provider->ref_cnt);
}

/**
 * kfi_deref_provider() - Drop a reference taken with kfi_ref_provider().
 * @provider: Registered provider.
 *
 * Dropping the last reference wakes up kfi_provider_deregister().
 *
 * Context: Any context; does not sleep.
 */
static inline void kfi_deref_provider(struct kfi_provider *provider)
{
	if (atomic_dec_and_test(&provider->ref_cnt))
		complete(&provider->comp);
}

/**
 * kfi_init_id() - Initialise the reference count of a new object.
 * @fid: Header of the object being created.
 *
 * Call right after allocating the object, before anyone else can see it.
 * The object starts with one reference, which kfi_close_id() drops.
 *
 * Context: Any context.
 */
static inline void kfi_init_id(struct kfid *fid)
{
	init_completion(&fid->comp);
	atomic_set(&fid->ref_cnt, 1);
}

/**
 * kfi_ref_id() - Take a reference on an object.
 * @fid: Object header.
 *
 * Taken when another object starts using this one (e.g. an endpoint bound
 * to a CQ) or while provider code runs on the object outside of a
 * consumer call.
 *
 * Context: Any context.
 */
static inline void kfi_ref_id(struct kfid *fid)
{
	atomic_inc(&fid->ref_cnt);
}

/**
 * kfi_deref_id() - Drop a reference taken with kfi_ref_id().
 * @fid: Object header.
 *
 * Dropping the last reference wakes up kfi_close_id().
 *
 * Context: Any context; does not sleep.
 */
static inline void kfi_deref_id(struct kfid *fid)
{
	if (atomic_dec_and_test(&fid->ref_cnt))
		complete(&fid->comp);
}

/**
 * kfi_close_id() - Drop the initial reference and wait for all others.
 * @fid: Object header.
 *
 * Called from the close op before the object is freed.  Returns once every
 * reference has been dropped.
 *
 * Context: Process context; sleeps.  Must not be called with spinlocks
 * held, nor while holding a lock that a reference holder needs in order
 * to drop its reference.
 */
static inline void kfi_close_id(struct kfid *fid)
{
	kfi_deref_id(fid);
	wait_for_completion(&fid->comp);
}

#endif /* _KFI_PROV_H_ */
