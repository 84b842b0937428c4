/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfabric error codes.
 *
 * Every kfabric call reports failure as a negative number.  Most codes are
 * ordinary Linux errno values under a KFI_ name; the fabric-specific ones
 * start at KFI_ERRNO_OFFSET (256) so they can never collide with a Linux
 * errno.  Both kinds are returned negated, e.g. -KFI_EAGAIN or -KFI_EAVAIL.
 */

#ifndef _KFI_ERRNO_H_
#define _KFI_ERRNO_H_

#include <linux/errno.h>

/**
 * DOC: Linux errno aliases
 *
 * The KFI_E* names below are plain aliases of the Linux errno of the same
 * suffix; a provider may return either spelling, a consumer may compare
 * against either.  KFI_SUCCESS is zero.
 */
#define KFI_SUCCESS		0
#define KFI_ENOENT		ENOENT
#define KFI_EIO			EIO
#define KFI_E2BIG		E2BIG
#define KFI_EBADF		EBADF
#define KFI_EAGAIN		EAGAIN
#define KFI_ENOMEM		ENOMEM
#define KFI_EACCES		EACCES
#define KFI_EBUSY		EBUSY
#define KFI_ENODEV		ENODEV
#define KFI_EINVAL		EINVAL
#define KFI_EMFILE		EMFILE
#define KFI_ENOSPC		ENOSPC
#define KFI_ENOSYS		ENOSYS
#define KFI_ENOMSG		ENOMSG
#define KFI_ENODATA		ENODATA
#define KFI_EMSGSIZE		EMSGSIZE
#define KFI_ENOPROTOOPT		ENOPROTOOPT
#define KFI_EOPNOTSUPP		EOPNOTSUPP
#define KFI_EADDRINUSE		EADDRINUSE
#define KFI_EADDRNOTAVAIL	EADDRNOTAVAIL
#define KFI_ENETDOWN		ENETDOWN
#define KFI_ENETUNREACH		ENETUNREACH
#define KFI_ECONNABORTED	ECONNABORTED
#define KFI_ECONNRESET		ECONNRESET
#define KFI_EISCONN		EISCONN
#define KFI_ENOTCONN		ENOTCONN
#define KFI_ESHUTDOWN		ESHUTDOWN
#define KFI_ETIMEDOUT		ETIMEDOUT
#define KFI_ECONNREFUSED	ECONNREFUSED
#define KFI_EHOSTUNREACH	EHOSTUNREACH
#define KFI_EALREADY		EALREADY
#define KFI_EINPROGRESS		EINPROGRESS
#define KFI_EREMOTEIO		EREMOTEIO
#define KFI_ECANCELED		ECANCELED
#define KFI_EKEYREJECTED	EKEYREJECTED

/**
 * define KFI_ERRNO_OFFSET - First fabric specific error code.
 *
 * Linux errno values all lie below this number.
 */
#define KFI_ERRNO_OFFSET	256

/**
 * enum - Fabric-specific error codes.
 * @KFI_EOTHER: Error that fits no other code.
 * @KFI_ETOOSMALL: The buffer supplied by the caller cannot hold the result.
 * @KFI_EOPBADSTATE: The object is not in a state that allows the operation.
 * @KFI_EAVAIL: An error entry is waiting on the queue; fetch it with the
 *	matching readerr call (kfi_cq_readerr(), kfi_eq_readerr()).
 * @KFI_EBADFLAGS: One or more of the flags are not supported.
 * @KFI_ENOEQ: No event queue is bound, or the bound one is unusable.
 * @KFI_EDOMAIN: The objects belong to different or invalid domains.
 * @KFI_ENOCQ: No completion queue is bound, or the bound one is unusable.
 * @KFI_ECRC: Data failed an integrity (CRC) check.
 * @KFI_ETRUNC: Received data did not fit the posted buffer and was cut.
 * @KFI_ENOKEY: A key needed for the access is missing.
 * @KFI_ENOAV: No address vector is bound, or the bound one is unusable.
 * @KFI_EOVERRUN: The queue overflowed and events were lost.
 * @FI_ERRNO_MAX: One past the last fabric-specific code (the spelling
 *	without a K is kept for source compatibility).
 */
enum {
	KFI_EOTHER	= KFI_ERRNO_OFFSET,
	KFI_ETOOSMALL	= 257,
	KFI_EOPBADSTATE	= 258,
	KFI_EAVAIL	= 259,
	KFI_EBADFLAGS	= 260,
	KFI_ENOEQ	= 261,
	KFI_EDOMAIN	= 262,
	KFI_ENOCQ	= 263,
	KFI_ECRC	= 264,
	KFI_ETRUNC	= 265,
	KFI_ENOKEY	= 266,
	KFI_ENOAV	= 267,
	KFI_EOVERRUN	= 268,
	FI_ERRNO_MAX
};

/**
 * define KFI_ERRNO_MAX - Alias of FI_ERRNO_MAX with the usual prefix.
 */
#define KFI_ERRNO_MAX		FI_ERRNO_MAX

/**
 * kfi_strerror() - Describe a kfabric or Linux error code.
 * @errnum: Error code, either as returned by a call (negative, e.g.
 *	-KFI_ETRUNC) or as stored in an error entry (positive).
 *
 * The result is a pointer to a constant string owned by the kfabric core;
 * it is never written to after module load, so the function is
 * thread-safe: any number of callers may use it at once and the string
 * remains valid while the core module is loaded.  Codes that kfabric does
 * not know yield a generic description rather than NULL.
 *
 * Context: Any context, including hard interrupt.  Does not sleep.
 * Return: A NUL-terminated, read-only description, never NULL.
 */
const char *kfi_strerror(int errnum);

#endif /* _KFI_ERRNO_H_ */
