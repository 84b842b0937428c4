/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counters, triggered operations and deferred work (kfi_trigger/), as the
 * provider's bindings see them; included by the provider's sys header
 * after kfi_util/util_sys.h.
 */
#ifndef KFI_TRIGGER_SYS_H
#define KFI_TRIGGER_SYS_H

#include <kfabric.h>
#include <kfi_domain.h>
#include <kfi_eq.h>
#include <kfi_trigger.h>

/* The counter ops table and what it calls (kfi_trigger/cntr.rs). */
void kfi_util_cntr_init(struct kfid_cntr *cntr, void *context);
bool kfi_util_is_cntr(const struct kfid *fid);
int kfi_util_domain_cntr_open(struct kfid_domain *domain,
			      struct kfi_cntr_attr *attr,
			      struct kfid_cntr **cntr, void *context);
int kfi_util_cntr_close(struct kfid *fid);
uint64_t kfi_util_cntr_read(struct kfid_cntr *cntr);
uint64_t kfi_util_cntr_readerr(struct kfid_cntr *cntr);
int kfi_util_cntr_add(struct kfid_cntr *cntr, uint64_t value);
int kfi_util_cntr_set(struct kfid_cntr *cntr, uint64_t value);
int kfi_util_cntr_wait(struct kfid_cntr *cntr, uint64_t threshold,
		       int timeout);
int kfi_util_cntr_adderr(struct kfid_cntr *cntr, uint64_t value);
int kfi_util_cntr_seterr(struct kfid_cntr *cntr, uint64_t value);

/* kfi_control() of a domain: deferred work (kfi_trigger/trig.rs). */
int kfi_util_domain_control(struct kfid *fid, int command, void *arg);

#endif
