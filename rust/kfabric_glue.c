// SPDX-License-Identifier: GPL-2.0
/*
 * kfabric.ko, C side: the symbol exports of the Rust implementation, wrappers
 * of kernel inlines the Rust side cannot call directly, and the debugfs
 * listing (6.12's Rust kernel crate has no debugfs abstraction).
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kfi_sys.h"

/* Implemented in Rust (kfabric_main.rs / exports.rs), declared in include/. */
EXPORT_SYMBOL_GPL(kfi_getinfo);
EXPORT_SYMBOL_GPL(kfi_freeinfo);
EXPORT_SYMBOL_GPL(kfi_allocinfo);
EXPORT_SYMBOL_GPL(kfi_dupinfo);
EXPORT_SYMBOL_GPL(kfi_fabric);
EXPORT_SYMBOL_GPL(kfi_version);
EXPORT_SYMBOL_GPL(kfi_strerror);
EXPORT_SYMBOL_GPL(kfi_tostr);
EXPORT_SYMBOL_GPL(kfi_tostr_r);
EXPORT_SYMBOL_GPL(kfi_getparams);
EXPORT_SYMBOL_GPL(kfi_freeparams);
EXPORT_SYMBOL_GPL(__kfi_provider_register);
EXPORT_SYMBOL_GPL(kfi_provider_deregister);

/*
 * Allocation for everything a struct kfi_info owns. kfi_info lists are
 * allocated by providers and consumers too and freed by kfi_freeinfo(), so the
 * one allocator all of them share is kmalloc/kfree. Process context only.
 */
void *kfi_glue_zalloc(size_t size)
{
	return kzalloc(size, GFP_KERNEL);
}

void kfi_glue_free(const void *p)
{
	kfree(p);
}

void *kfi_glue_memdup(const void *p, size_t len)
{
	return kmemdup(p, len, GFP_KERNEL);
}

char *kfi_glue_strdup(const char *s)
{
	return kstrdup(s, GFP_KERNEL);
}

bool kfi_glue_module_get(struct module *m)
{
	return try_module_get(m);
}

void kfi_glue_module_put(struct module *m)
{
	module_put(m);
}

/* Provider reference count: one reference for being registered, one for
 * every call into the provider in flight and for every open fabric. */
void kfi_glue_provider_init_ref(struct kfi_provider *prov)
{
	init_completion(&prov->comp);
	atomic_set(&prov->ref_cnt, 1);
}

void kfi_glue_provider_get(struct kfi_provider *prov)
{
	kfi_ref_provider(prov);
}

void kfi_glue_provider_put(struct kfi_provider *prov)
{
	kfi_deref_provider(prov);
}

void kfi_glue_provider_wait_unused(struct kfi_provider *prov)
{
	wait_for_completion(&prov->comp);
}

static struct dentry *kfi_debugfs_dir;

/*
 * kfabric/info: every entry of every registered provider, printed with
 * kfi_tostr() exactly as a consumer would see it from kfi_getinfo().
 */
static int kfi_info_show(struct seq_file *m, void *unused)
{
	struct kfi_info *list = NULL, *cur;
	char *text;
	int n = 0, ret;

	ret = kfi_getinfo(KFI_VERSION(KFI_MAJOR_VERSION, KFI_MINOR_VERSION),
			  NULL, NULL, 0, NULL, &list);
	if (ret == -ENODATA) {
		seq_puts(m, "# no entries\n");
		return 0;
	}
	if (ret) {
		seq_printf(m, "# kfi_getinfo: %d (%s)\n", ret, kfi_strerror(ret));
		return 0;
	}
	for (cur = list; cur; cur = cur->next) {
		text = kfi_tostr(cur, KFI_TYPE_INFO);
		if (!text) {
			ret = -ENOMEM;
			break;
		}
		seq_printf(m, "# entry %d\n%s", n++, text);
		kfree(text);
	}
	kfi_freeinfo(list);
	return ret;
}
DEFINE_SHOW_ATTRIBUTE(kfi_info);

int kfi_glue_debugfs_init(void)
{
	kfi_debugfs_dir = debugfs_create_dir("kfabric", NULL);
	debugfs_create_file("info", 0444, kfi_debugfs_dir, NULL, &kfi_info_fops);
	return 0;
}

void kfi_glue_debugfs_exit(void)
{
	debugfs_remove_recursive(kfi_debugfs_dir);
}

/*
 * getinfo_trace: an administrator's switch (Documentation/lnet.md,
 * "When LNet does not start"): each kfi_getinfo() logs why an entry of a
 * provider was left out, or the provider's own error, at KERN_INFO.
 */
static bool getinfo_trace;
module_param(getinfo_trace, bool, 0644);
MODULE_PARM_DESC(getinfo_trace,
		 "Log why kfi_getinfo leaves each provider entry out (default off)");

/**
 * kfi_glue_getinfo_trace() - Whether kfi_getinfo() explains what it drops.
 *
 * Return: The getinfo_trace parameter (any context).
 */
bool kfi_glue_getinfo_trace(void)
{
	return READ_ONCE(getinfo_trace);
}

/**
 * kfi_glue_warn() - Report a broken internal invariant.
 * @what: What broke (a NUL-terminated string).
 *
 * A kernel WARNING with a backtrace: the test harness fails a run on any.
 */
void kfi_glue_warn(const char *what)
{
	WARN(1, "kfabric: broken invariant: %s\n", what);
}
