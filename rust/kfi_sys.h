/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the Rust side of kfabric.ko sees of C: the public kfabric headers and
 * the few wrappers in kfabric_glue.c around kernel inlines and macros.
 * bindgen turns this into kfi_sys_generated.rs at build time.
 */
#ifndef KFI_SYS_H
#define KFI_SYS_H

#include <kfabric.h>
#include <kfi_errno.h>
#include <kfi_prov.h>

struct module;

void *kfi_glue_zalloc(size_t size);
void kfi_glue_free(const void *p);
void *kfi_glue_memdup(const void *p, size_t len);
char *kfi_glue_strdup(const char *s);
bool kfi_glue_module_get(struct module *m);
void kfi_glue_module_put(struct module *m);
void kfi_glue_provider_init_ref(struct kfi_provider *prov);
void kfi_glue_provider_get(struct kfi_provider *prov);
void kfi_glue_provider_put(struct kfi_provider *prov);
void kfi_glue_provider_wait_unused(struct kfi_provider *prov);
int kfi_glue_debugfs_init(void);
void kfi_glue_debugfs_exit(void);
void kfi_glue_warn(const char *what);
bool kfi_glue_getinfo_trace(void);

#endif
