/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Segments (struct kfi_util_seg) as an iov_iter, for socket calls and
 * copies. Static, so that a provider's data path (kfi_tcp_sock.c) and the
 * toolkit's copies (kfi_util_glue.c) each get them inlined.
 */
#ifndef KFI_UTIL_ITER_H
#define KFI_UTIL_ITER_H

#include <linux/bvec.h>
#include <linux/mm.h>
#include <linux/uio.h>
#include "util_sys.h"

/*
 * Fills @bv with the pieces of @segs after skipping @skip bytes, up to @len
 * bytes. Every segment is page-backed (kvec segments are translated; they
 * are kmalloc or vmalloc memory, or pages of their own).
 */
static __maybe_unused int kfi_util_segs_bvecs(struct bio_vec *bv, int max,
					      const struct kfi_util_seg *segs, int n, size_t skip,
			    size_t len, size_t *total)
{
	int i, nb = 0;

	*total = 0;
	for (i = 0; i < n && len; i++) {
		size_t l = segs[i].len, off = 0;

		if (skip >= l) {
			skip -= l;
			continue;
		}
		off = skip;
		l -= skip;
		skip = 0;
		if (l > len)
			l = len;
		while (l) {
			struct page *pg;
			size_t po, take;

			if (nb == max)
				return nb;
			if (segs[i].base) {
				const char *p = (const char *)segs[i].base + off;

				/* vmalloc, vmap'ed stacks, module data */
				pg = is_vmalloc_or_module_addr(p) ?
					     vmalloc_to_page(p) :
					     virt_to_page(p);
				po = offset_in_page(p);
				take = min_t(size_t, l, PAGE_SIZE - po);
			} else {
				size_t abs = segs[i].offset + off;

				pg = nth_page(segs[i].page, abs / PAGE_SIZE);
				po = abs % PAGE_SIZE;
				take = min_t(size_t, l, PAGE_SIZE - po);
			}
			bvec_set_page(&bv[nb++], pg, take, po);
			off += take;
			l -= take;
			len -= take;
			*total += take;
		}
	}
	return nb;
}

/*
 * Bvecs per socket call. The on-stack arrays are __uninitialized: only the
 * entries kfi_util_segs_bvecs() fills are read, and CONFIG_INIT_STACK_ALL_ZERO
 * would otherwise clear 512 bytes in every send and receive.
 */
#define KFI_UTIL_BVECS 32

/* Kernel virtual ranges per socket call (iovs plus a header, or the
 * segments of an RMA access). */
#define KFI_UTIL_KVECS 8

/* Room for the vectors of one socket call's iov_iter. */
struct kfi_util_vecs {
	union {
		struct kvec kv[KFI_UTIL_KVECS];
		struct bio_vec bv[KFI_UTIL_BVECS];
	};
};

/*
 * Fills @v->kv with the bytes of @segs after @skip, up to @len, if they all
 * lie in at most KFI_UTIL_KVECS kernel virtual segments. Returns the
 * number of kvecs, or 0 when they do not (or @len is 0).
 */
static __maybe_unused int kfi_util_segs_kvecs(struct kfi_util_vecs *v,
					      const struct kfi_util_seg *segs, int n, size_t skip,
			    size_t len, size_t *total)
{
	int i, nk = 0;

	*total = 0;
	for (i = 0; i < n && *total < len; i++) {
		size_t l = segs[i].len;

		if (skip >= l) {
			skip -= l;
			continue;
		}
		if (!segs[i].base || nk == KFI_UTIL_KVECS)
			return 0;
		l = min(l - skip, len - *total);
		v->kv[nk].iov_base = (char *)segs[i].base + skip;
		v->kv[nk++].iov_len = l;
		*total += l;
		skip = 0;
	}
	return nk;
}

/*
 * Sets @it over the bytes of @segs after @skip, up to @len: kvecs when they
 * all lie in a few kernel virtual segments (memcpy needs no page of them,
 * and their length has no limit), else bvecs (up to KFI_UTIL_BVECS
 * pages). Returns the bytes @it covers (0: none).
 */
static __maybe_unused size_t kfi_util_segs_iter(struct iov_iter *it, unsigned int dir,
						struct kfi_util_vecs *v,
			      const struct kfi_util_seg *segs, int n,
			      size_t skip, size_t len)
{
	size_t total;
	int nv;

	nv = kfi_util_segs_kvecs(v, segs, n, skip, len, &total);
	if (nv) {
		iov_iter_kvec(it, dir, v->kv, nv, total);
		return total;
	}
	nv = kfi_util_segs_bvecs(v->bv, KFI_UTIL_BVECS, segs, n, skip, len,
				 &total);
	if (!nv)
		return 0;
	iov_iter_bvec(it, dir, v->bv, nv, total);
	return total;
}

#endif
