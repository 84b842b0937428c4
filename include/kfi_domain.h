/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfabric domains, memory regions and address vectors.
 *
 * A domain is one access point to a fabric, typically one device.  It owns
 * the completion queues, counters, endpoints, memory regions (MR) and
 * address vectors (AV) created through it.
 */

#ifndef _KFI_DOMAIN_H_
#define _KFI_DOMAIN_H_

#include <kfabric.h>
#include <kfi_eq.h>

/**
 * DOC: Address vector flags
 *
 * KFI_SYMMETRIC: every peer inserted the same addresses in the same order
 * (kfi_av_insertsym() and the AV attributes).
 * KFI_SYNC_ERR: report per-address insertion errors synchronously.
 */
#define KFI_SYMMETRIC		(1ULL << 59)
#define KFI_SYNC_ERR		(1ULL << 58)

/**
 * struct kfi_av_attr - Address vector attributes.
 * @type: Map or table.
 * @rx_ctx_bits: Number of high-order bits of a kfi_addr_t used to select
 *	a receive context of a scalable endpoint, see kfi_rx_addr().
 * @count: Expected number of addresses.
 * @ep_per_node: Expected number of endpoints per peer node.
 * @name: Name for sharing the AV, or NULL.
 * @map_addr: Base of a shared mapping, or NULL.
 * @flags: KFI_EVENT for asynchronous inserts, KFI_SYMMETRIC.
 */
struct kfi_av_attr {
	enum kfi_av_type	type;
	int			rx_ctx_bits;
	size_t			count;
	size_t			ep_per_node;
	const char		*name;
	void			*map_addr;
	uint64_t		flags;
};

/**
 * struct kfi_ops_av - Operations of an address vector.
 * @size: Must be sizeof(struct kfi_ops_av).
 * @insert: Insert binary addresses, see kfi_av_insert().
 * @insertsvc: Insert a node/service pair, see kfi_av_insertsvc().
 * @insertsym: Insert a symmetric range, see kfi_av_insertsym().
 * @remove: Remove addresses, see kfi_av_remove().
 * @lookup: Translate back to a binary address, see kfi_av_lookup().
 * @straddr: Format a binary address, see kfi_av_straddr().
 */
struct kfi_ops_av {
	size_t	size;
	int	(*insert)(struct kfid_av *av, const void *addr, size_t count,
			  kfi_addr_t *kfi_addr, uint64_t flags, void *context);
	int	(*insertsvc)(struct kfid_av *av, const char *node,
			     const char *service, kfi_addr_t *kfi_addr,
			     uint64_t flags, void *context);
	int	(*insertsym)(struct kfid_av *av, const char *node,
			     size_t nodecnt, const char *service,
			     size_t svccnt, kfi_addr_t *kfi_addr,
			     uint64_t flags, void *context);
	int	(*remove)(struct kfid_av *av, kfi_addr_t *kfi_addr,
			  size_t count, uint64_t flags);
	int	(*lookup)(struct kfid_av *av, kfi_addr_t kfi_addr, void *addr,
			  size_t *addrlen);
	const char *(*straddr)(struct kfid_av *av, const void *addr,
			       char *buf, size_t *len);
};

/**
 * struct kfid_av - An address vector.
 * @fid: Generic object header.
 * @ops: Address vector operations.
 */
struct kfid_av {
	struct kfid		fid;
	struct kfi_ops_av	*ops;
};

/**
 * struct kfid_mr - A registered memory region.
 * @fid: Generic object header.
 * @mem_desc: Local descriptor to pass as desc with data transfers.
 * @key: Remote access key, see kfi_mr_key().
 * @iova: I/O virtual address of the region's start.
 */
struct kfid_mr {
	struct kfid		fid;
	void			*mem_desc;
	uint64_t		key;
	uint64_t		iova;
};

/**
 * struct kfi_mr_attr - Full description of a memory registration.
 * @type: Which member of the buffer union is valid.
 * @mr_iov: Array of @iov_count kvecs (KFI_KVEC).
 * @mr_biov: Array of @iov_count bio_vecs (KFI_BVEC).
 * @mr_sgl: DMA-mapped scatterlist of @iov_count entries (KFI_SGL).
 * @iov_count: Number of buffer segments.
 * @access: KFI_READ, KFI_WRITE, KFI_REMOTE_READ, KFI_REMOTE_WRITE...
 * @offset: Offset peers add to addresses in this region.
 * @requested_key: Key wanted by the consumer (unless KFI_MR_PROV_KEY).
 * @context: Consumer context of the MR.
 * @auth_key_size: Length of @auth_key.
 * @auth_key: Authorization key, or NULL for the domain's.
 */
struct kfi_mr_attr {
	enum kfi_iov_type	type;
	union {
		const struct kvec	 *mr_iov;
		const struct bio_vec	 *mr_biov;
		const struct scatterlist *mr_sgl;
	};
	size_t			iov_count;
	uint64_t		access;
	uint64_t		offset;
	uint64_t		requested_key;
	void			*context;
	size_t			auth_key_size;
	uint8_t			*auth_key;
};

/**
 * struct kfi_mr_modify - Argument of the KFI_REFRESH control command.
 * @flags: Must be zero.
 * @attr: New backing memory of the region.
 */
struct kfi_mr_modify {
	uint64_t		flags;
	struct kfi_mr_attr	attr;
};

/**
 * enum kfi_datatype - Element types of atomic operations.
 * @KFI_INT8: int8_t.
 * @KFI_UINT8: uint8_t.
 * @KFI_INT16: int16_t.
 * @KFI_UINT16: uint16_t.
 * @KFI_INT32: int32_t.
 * @KFI_UINT32: uint32_t.
 * @KFI_INT64: int64_t.
 * @KFI_UINT64: uint64_t.
 * @KFI_FLOAT: IEEE single precision.
 * @KFI_DOUBLE: IEEE double precision.
 * @KFI_FLOAT_COMPLEX: Pair of single precision values.
 * @KFI_DOUBLE_COMPLEX: Pair of double precision values.
 * @KFI_LONG_DOUBLE: Extended precision.
 * @KFI_LONG_DOUBLE_COMPLEX: Pair of extended precision values.
 * @KFI_DATATYPE_LAST: Number of datatypes.
 */
enum kfi_datatype {
	KFI_INT8,
	KFI_UINT8,
	KFI_INT16,
	KFI_UINT16,
	KFI_INT32,
	KFI_UINT32,
	KFI_INT64,
	KFI_UINT64,
	KFI_FLOAT,
	KFI_DOUBLE,
	KFI_FLOAT_COMPLEX,
	KFI_DOUBLE_COMPLEX,
	KFI_LONG_DOUBLE,
	KFI_LONG_DOUBLE_COMPLEX,
	KFI_DATATYPE_LAST
};

/**
 * enum kfi_op - Atomic operations.
 * @KFI_MIN: Minimum.
 * @KFI_MAX: Maximum.
 * @KFI_SUM: Sum.
 * @KFI_PROD: Product.
 * @KFI_LOR: Logical or.
 * @KFI_LAND: Logical and.
 * @KFI_BOR: Bitwise or.
 * @KFI_BAND: Bitwise and.
 * @KFI_LXOR: Logical exclusive or.
 * @KFI_BXOR: Bitwise exclusive or.
 * @KFI_ATOMIC_READ: Read the target (fetch calls only).
 * @KFI_ATOMIC_WRITE: Write the target.
 * @KFI_CSWAP: Swap if equal to the compare value.
 * @KFI_CSWAP_NE: Swap if not equal.
 * @KFI_CSWAP_LE: Swap if the compare value is less or equal.
 * @KFI_CSWAP_LT: Swap if the compare value is less.
 * @KFI_CSWAP_GE: Swap if the compare value is greater or equal.
 * @KFI_CSWAP_GT: Swap if the compare value is greater.
 * @KFI_MSWAP: Masked swap.
 * @KFI_ATOMIC_OP_LAST: Number of operations.
 */
enum kfi_op {
	KFI_MIN,
	KFI_MAX,
	KFI_SUM,
	KFI_PROD,
	KFI_LOR,
	KFI_LAND,
	KFI_BOR,
	KFI_BAND,
	KFI_LXOR,
	KFI_BXOR,
	KFI_ATOMIC_READ,
	KFI_ATOMIC_WRITE,
	KFI_CSWAP,
	KFI_CSWAP_NE,
	KFI_CSWAP_LE,
	KFI_CSWAP_LT,
	KFI_CSWAP_GE,
	KFI_CSWAP_GT,
	KFI_MSWAP,
	KFI_ATOMIC_OP_LAST
};

struct kfi_atomic_attr;
struct kfi_cq_attr;
struct kfi_cntr_attr;

/**
 * struct kfi_ops_domain - Operations of a domain.
 * @size: Must be sizeof(struct kfi_ops_domain).
 * @av_open: Open an address vector, see kfi_av_open().
 * @cq_open: Open a completion queue, see kfi_cq_open().
 * @endpoint: Open an active endpoint, see kfi_endpoint().
 * @scalable_ep: Open a scalable endpoint, see kfi_scalable_ep().
 * @cntr_open: Open a counter, see kfi_cntr_open().
 * @poll_open: Open a poll set, see kfi_poll_open().
 * @stx_ctx: Open a shared transmit context, see kfi_stx_context().
 * @srx_ctx: Open a shared receive context, see kfi_srx_context().
 * @query_atomic: Query atomic support (optional), see kfi_query_atomic().
 */
struct kfi_ops_domain {
	size_t	size;
	int	(*av_open)(struct kfid_domain *domain, struct kfi_av_attr *attr,
			   struct kfid_av **av, void *context);
	int	(*cq_open)(struct kfid_domain *domain, struct kfi_cq_attr *attr,
			   struct kfid_cq **cq, kfi_comp_handler comp_handler,
			   void *context);
	int	(*endpoint)(struct kfid_domain *domain, struct kfi_info *info,
			    struct kfid_ep **ep, void *context);
	int	(*scalable_ep)(struct kfid_domain *domain,
			       struct kfi_info *info, struct kfid_ep **sep,
			       void *context);
	int	(*cntr_open)(struct kfid_domain *domain,
			     struct kfi_cntr_attr *attr,
			     struct kfid_cntr **cntr, void *context);
	int	(*poll_open)(struct kfid_domain *domain,
			     struct kfi_poll_attr *attr,
			     struct kfid_poll **pollset);
	int	(*stx_ctx)(struct kfid_domain *domain,
			   struct kfi_tx_attr *attr, struct kfid_stx **stx,
			   void *context);
	int	(*srx_ctx)(struct kfid_domain *domain,
			   struct kfi_rx_attr *attr, struct kfid_ep **rx_ep,
			   void *context);
	int	(*query_atomic)(struct kfid_domain *domain,
				enum kfi_datatype datatype, enum kfi_op op,
				struct kfi_atomic_attr *attr, uint64_t flags);
};

/**
 * struct kfi_ops_mr - Memory registration operations of a domain.
 * @size: Must be sizeof(struct kfi_ops_mr).
 * @reg: Register one virtually contiguous buffer, see kfi_mr_reg().
 * @regv: Register a kvec array, see kfi_mr_regv().
 * @regbv: Register a bio_vec array, see kfi_mr_regbv().
 * @regattr: Register from a full description, see kfi_mr_regattr().
 * @regsgl: Register a DMA-mapped scatterlist, see kfi_mr_regsgl()
 *	(added in API 1.7).
 */
struct kfi_ops_mr {
	size_t	size;
	int	(*reg)(struct kfid *fid, const void *buf, size_t len,
		       uint64_t access, uint64_t offset,
		       uint64_t requested_key, uint64_t flags,
		       struct kfid_mr **mr, void *context);
	int	(*regv)(struct kfid *fid, const struct kvec *iov,
			size_t count, uint64_t access,
			uint64_t offset, uint64_t requested_key,
			uint64_t flags, struct kfid_mr **mr, void *context);
	int	(*regbv)(struct kfid *fid, const struct bio_vec *biov,
			 size_t count, uint64_t access,
			 uint64_t offset, uint64_t requested_key,
			 uint64_t flags, struct kfid_mr **mr, void *context);
	int	(*regattr)(struct kfid *fid, const struct kfi_mr_attr *attr,
			   uint64_t flags, struct kfid_mr **mr);
	int	(*regsgl)(struct kfid *fid, const struct scatterlist *sgl,
			  size_t count, uint64_t access,
			  uint64_t offset, uint64_t requested_key,
			  uint64_t flags, struct kfid_mr **mr, void *context);
};

/**
 * define KFI_REG_MR - Domain bind flag to report MR registrations on an EQ.
 */
#define KFI_REG_MR		(1ULL << 59)

/**
 * struct kfid_domain - A fabric access domain.
 * @fid: Generic object header.
 * @ops: Domain operations.
 * @mr: Memory registration operations.
 */
struct kfid_domain {
	struct kfid		fid;
	struct kfi_ops_domain	*ops;
	struct kfi_ops_mr	*mr;
};

/**
 * kfi_domain() - Open a domain of a fabric.
 * @fabric: Open fabric.
 * @info: Configuration returned by kfi_getinfo().
 * @domain: On success, the new domain.
 * @context: Consumer context stored in the domain.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_domain(struct kfid_fabric *fabric, struct kfi_info *info,
			     struct kfid_domain **domain, void *context)
{
	return fabric->ops->domain(fabric, info, domain, context);
}

/**
 * kfi_domain_bind() - Bind an object (e.g. an EQ) to a domain.
 * @domain: Domain.
 * @fid: Object to bind.
 * @flags: Bind flags, e.g. KFI_REG_MR.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_domain_bind(struct kfid_domain *domain,
				  struct kfid *fid, uint64_t flags)
{
	return domain->fid.ops->bind(&domain->fid, fid, flags);
}

/**
 * kfi_cq_open() - Open a completion queue.
 * @domain: Domain.
 * @attr: Queue attributes.
 * @cq: On success, the new queue.
 * @comp_handler: Called when completions arrive, or NULL; see
 *	&typedef kfi_comp_handler for its context rules.
 * @context: Consumer context, passed to @comp_handler.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_cq_open(struct kfid_domain *domain,
			      struct kfi_cq_attr *attr, struct kfid_cq **cq,
			      kfi_comp_handler comp_handler, void *context)
{
	return domain->ops->cq_open(domain, attr, cq, comp_handler, context);
}

/**
 * kfi_cntr_open() - Open a counter.
 * @domain: Domain.
 * @attr: Counter attributes.
 * @cntr: On success, the new counter.
 * @context: Consumer context stored in the counter.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_cntr_open(struct kfid_domain *domain,
				struct kfi_cntr_attr *attr,
				struct kfid_cntr **cntr, void *context)
{
	return domain->ops->cntr_open(domain, attr, cntr, context);
}

/**
 * kfi_wait_open() - Open a wait set.
 * @fabric: Fabric.
 * @attr: Wait set attributes.
 * @waitset: On success, the new wait set.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_wait_open(struct kfid_fabric *fabric,
				struct kfi_wait_attr *attr,
				struct kfid_wait **waitset)
{
	return fabric->ops->wait_open(fabric, attr, waitset);
}

/**
 * kfi_poll_open() - Open a poll set.
 * @domain: Domain.
 * @attr: Poll set attributes.
 * @pollset: On success, the new poll set.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_poll_open(struct kfid_domain *domain,
				struct kfi_poll_attr *attr,
				struct kfid_poll **pollset)
{
	return domain->ops->poll_open(domain, attr, pollset);
}

/**
 * kfi_mr_reg() - Register a virtually contiguous kernel buffer.
 * @domain: Domain.
 * @buf: Start of the buffer.
 * @len: Length of the buffer.
 * @access: Allowed accesses (KFI_READ, KFI_REMOTE_WRITE...).
 * @offset: Offset peers add to addresses in this region.
 * @requested_key: Wanted key (ignored with KFI_MR_PROV_KEY).
 * @flags: Registration flags.
 * @mr: On success, the new memory region.
 * @context: Consumer context of the region.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_mr_reg(struct kfid_domain *domain, const void *buf,
			     size_t len, uint64_t access, uint64_t offset,
			     uint64_t requested_key, uint64_t flags,
			     struct kfid_mr **mr, void *context)
{
	return domain->mr->reg(&domain->fid, buf, len, access, offset,
			       requested_key, flags, mr, context);
}

/**
 * kfi_mr_regv() - Register an array of kvecs as one region.
 * @domain: Domain.
 * @iov: Array of @count kvecs.
 * @count: Number of segments.
 * @access: Allowed accesses.
 * @offset: Offset peers add to addresses in this region.
 * @requested_key: Wanted key.
 * @flags: Registration flags.
 * @mr: On success, the new memory region.
 * @context: Consumer context of the region.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_mr_regv(struct kfid_domain *domain,
			      const struct kvec *iov, size_t count,
			      uint64_t access, uint64_t offset,
			      uint64_t requested_key, uint64_t flags,
			      struct kfid_mr **mr, void *context)
{
	return domain->mr->regv(&domain->fid, iov, count, access, offset,
				requested_key, flags, mr, context);
}

/**
 * kfi_mr_regbv() - Register an array of bio_vecs as one region.
 * @domain: Domain.
 * @biov: Array of @count bio_vecs.
 * @count: Number of segments.
 * @access: Allowed accesses.
 * @offset: Offset peers add to addresses in this region.
 * @requested_key: Wanted key.
 * @flags: Registration flags.
 * @mr: On success, the new memory region.
 * @context: Consumer context of the region.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_mr_regbv(struct kfid_domain *domain,
			       const struct bio_vec *biov, size_t count,
			       uint64_t access, uint64_t offset,
			       uint64_t requested_key, uint64_t flags,
			       struct kfid_mr **mr, void *context)
{
	return domain->mr->regbv(&domain->fid, biov, count, access, offset,
				 requested_key, flags, mr, context);
}

/**
 * kfi_mr_regsgl() - Register a DMA-mapped scatterlist as one region.
 * @domain: Domain.
 * @sgl: Scatterlist of @count mapped entries.
 * @count: Number of entries.
 * @access: Allowed accesses.
 * @offset: Offset peers add to addresses in this region.
 * @requested_key: Wanted key.
 * @flags: Registration flags.
 * @mr: On success, the new memory region.
 * @context: Consumer context of the region.
 *
 * This operation was added in API 1.7; the wrapper checks that the
 * provider's table has it.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success, -KFI_ENOSYS if unsupported, or another negative
 * error code.
 */
static inline int kfi_mr_regsgl(struct kfid_domain *domain,
				const struct scatterlist *sgl, size_t count,
				uint64_t access, uint64_t offset,
				uint64_t requested_key, uint64_t flags,
				struct kfid_mr **mr, void *context)
{
	if (!KFI_CHECK_OP(domain->mr, struct kfi_ops_mr, regsgl))
		return -KFI_ENOSYS;
	return domain->mr->regsgl(&domain->fid, sgl, count, access, offset,
				  requested_key, flags, mr, context);
}

/**
 * kfi_mr_regattr() - Register memory described by a kfi_mr_attr.
 * @domain: Domain.
 * @attr: Description of the registration.
 * @flags: Registration flags.
 * @mr: On success, the new memory region.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_mr_regattr(struct kfid_domain *domain,
				 const struct kfi_mr_attr *attr,
				 uint64_t flags, struct kfid_mr **mr)
{
	return domain->mr->regattr(&domain->fid, attr, flags, mr);
}

/**
 * kfi_mr_desc() - Local descriptor of a memory region.
 * @mr: Memory region.
 *
 * Context: Any context.
 * Return: The value to pass as desc with data transfers.
 */
static inline void *kfi_mr_desc(struct kfid_mr *mr)
{
	return mr->mem_desc;
}

/**
 * kfi_mr_key() - Remote access key of a memory region.
 * @mr: Memory region.
 *
 * Context: Any context.
 * Return: The key peers use to access the region.
 */
static inline uint64_t kfi_mr_key(struct kfid_mr *mr)
{
	return mr->key;
}

/**
 * kfi_mr_raw_attr() - Fetch the raw key of a region (KFI_MR_RAW mode).
 * @mr: Memory region.
 * @base_addr: Returns the base address peers must use.
 * @raw_key: Buffer receiving the key.
 * @key_size: In: size of @raw_key.  Out: size of the key.
 * @flags: Must be zero.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success, -KFI_ETOOSMALL if @raw_key is too small, or
 * another negative error code.
 */
static inline int kfi_mr_raw_attr(struct kfid_mr *mr, uint64_t *base_addr,
				  uint8_t *raw_key, size_t *key_size,
				  uint64_t flags)
{
	struct kfi_mr_raw_attr attr = {
		.flags = flags,
		.base_addr = base_addr,
		.raw_key = raw_key,
		.key_size = key_size,
	};

	return mr->fid.ops->control(&mr->fid, KFI_GET_RAW_MR, &attr);
}

/**
 * kfi_mr_map_raw() - Turn a peer's raw key into a usable 64-bit key.
 * @domain: Domain.
 * @base_addr: Base address from the peer.
 * @raw_key: Raw key from the peer.
 * @key_size: Length of @raw_key.
 * @key: Returns the mapped key.
 * @flags: Must be zero.
 *
 * Release the mapping with kfi_mr_unmap_key().
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_mr_map_raw(struct kfid_domain *domain,
				 uint64_t base_addr, uint8_t *raw_key,
				 size_t key_size, uint64_t *key,
				 uint64_t flags)
{
	struct kfi_mr_map_raw map = {
		.flags = flags,
		.base_addr = base_addr,
		.raw_key = raw_key,
		.key_size = key_size,
		.key = key,
	};

	return domain->fid.ops->control(&domain->fid, KFI_MAP_RAW_MR, &map);
}

/**
 * kfi_mr_unmap_key() - Release a key made by kfi_mr_map_raw().
 * @domain: Domain.
 * @key: The mapped key.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_mr_unmap_key(struct kfid_domain *domain, uint64_t key)
{
	return domain->fid.ops->control(&domain->fid, KFI_UNMAP_KEY, &key);
}

/**
 * kfi_mr_bind() - Bind a memory region to an endpoint or counter.
 * @mr: Memory region.
 * @bfid: Object to bind.
 * @flags: Bind flags.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_mr_bind(struct kfid_mr *mr, struct kfid *bfid,
			      uint64_t flags)
{
	return mr->fid.ops->bind(&mr->fid, bfid, flags);
}

/**
 * kfi_mr_refresh() - Point a memory region at new kvec-described memory.
 * @mr: Memory region.
 * @iov: Array of @count kvecs.
 * @count: Number of segments.
 * @flags: Must be zero.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_mr_refresh(struct kfid_mr *mr, const struct kvec *iov,
				 size_t count, uint64_t flags)
{
	struct kfi_mr_modify modify = {
		.flags = flags,
		.attr = {
			.type = KFI_KVEC,
			.mr_iov = iov,
			.iov_count = count,
		},
	};

	return mr->fid.ops->control(&mr->fid, KFI_REFRESH, &modify);
}

/**
 * kfi_mr_enable() - Enable a memory region (KFI_MR_ENDPOINT mode).
 * @mr: Memory region, already bound to its endpoint.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_mr_enable(struct kfid_mr *mr)
{
	return mr->fid.ops->control(&mr->fid, KFI_ENABLE, NULL);
}

/**
 * kfi_av_open() - Open an address vector.
 * @domain: Domain.
 * @attr: Address vector attributes.
 * @av: On success, the new address vector.
 * @context: Consumer context stored in the AV.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_av_open(struct kfid_domain *domain,
			      struct kfi_av_attr *attr, struct kfid_av **av,
			      void *context)
{
	return domain->ops->av_open(domain, attr, av, context);
}

/**
 * kfi_av_bind() - Bind an EQ to an address vector for async inserts.
 * @av: Address vector.
 * @fid: Event queue.
 * @flags: Must be zero.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_av_bind(struct kfid_av *av, struct kfid *fid,
			      uint64_t flags)
{
	return av->fid.ops->bind(&av->fid, fid, flags);
}

/**
 * kfi_av_insert() - Insert binary addresses into an address vector.
 * @av: Address vector.
 * @addr: Array of @count addresses in the AV's address format.
 * @count: Number of addresses.
 * @kfi_addr: Array receiving one handle per address, or NULL for a table
 *	AV.
 * @flags: KFI_SYNC_ERR, KFI_MORE...
 * @context: Context of the KFI_AV_COMPLETE event for async inserts.
 *
 * Context: Process context; may sleep.
 * Return: Number of addresses inserted, or a negative error code.
 */
static inline int kfi_av_insert(struct kfid_av *av, const void *addr,
				size_t count, kfi_addr_t *kfi_addr,
				uint64_t flags, void *context)
{
	return av->ops->insert(av, addr, count, kfi_addr, flags, context);
}

/**
 * kfi_av_insertsvc() - Resolve and insert a node/service pair.
 * @av: Address vector.
 * @node: Node name or address.
 * @service: Service name or port.
 * @kfi_addr: Returns the handle.
 * @flags: Insert flags.
 * @context: Context of the completion event for async inserts.
 *
 * Context: Process context; may sleep.
 * Return: Number of addresses inserted (1), or a negative error code.
 */
static inline int kfi_av_insertsvc(struct kfid_av *av, const char *node,
				   const char *service, kfi_addr_t *kfi_addr,
				   uint64_t flags, void *context)
{
	return av->ops->insertsvc(av, node, service, kfi_addr, flags, context);
}

/**
 * kfi_av_insertsym() - Insert a symmetric range of nodes and services.
 * @av: Address vector.
 * @node: First node.
 * @nodecnt: Number of consecutive nodes.
 * @service: First service.
 * @svccnt: Number of consecutive services per node.
 * @kfi_addr: Array of @nodecnt * @svccnt handles, or NULL.
 * @flags: Insert flags.
 * @context: Context of the completion event for async inserts.
 *
 * Context: Process context; may sleep.
 * Return: Number of addresses inserted, or a negative error code.
 */
static inline int kfi_av_insertsym(struct kfid_av *av, const char *node,
				   size_t nodecnt, const char *service,
				   size_t svccnt, kfi_addr_t *kfi_addr,
				   uint64_t flags, void *context)
{
	return av->ops->insertsym(av, node, nodecnt, service, svccnt,
				  kfi_addr, flags, context);
}

/**
 * kfi_av_remove() - Remove addresses from an address vector.
 * @av: Address vector.
 * @kfi_addr: Array of @count handles.
 * @count: Number of handles.
 * @flags: Must be zero.
 *
 * Consumers drop peers from reference-count release paths, so removal
 * must not block.
 *
 * Context: Process or softirq context, also with spinlocks held; does not
 * sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_av_remove(struct kfid_av *av, kfi_addr_t *kfi_addr,
				size_t count, uint64_t flags)
{
	return av->ops->remove(av, kfi_addr, count, flags);
}

/**
 * kfi_av_lookup() - Get back the binary address behind a handle.
 * @av: Address vector.
 * @kfi_addr: Handle.
 * @addr: Buffer for the address.
 * @addrlen: In: size of @addr.  Out: size of the address.
 *
 * Context: Any context; does not sleep.
 * Return: 0 on success, -KFI_ETOOSMALL when @addr was too small (the
 * address is then truncated), or another negative error code.
 */
static inline int kfi_av_lookup(struct kfid_av *av, kfi_addr_t kfi_addr,
				void *addr, size_t *addrlen)
{
	return av->ops->lookup(av, kfi_addr, addr, addrlen);
}

/**
 * kfi_av_straddr() - Format a binary address as text.
 * @av: Address vector.
 * @addr: Address in the AV's format.
 * @buf: Output buffer.
 * @len: In: size of @buf.  Out: size needed, including the NUL.
 *
 * Context: Any context; does not sleep.
 * Return: @buf.
 */
static inline const char *kfi_av_straddr(struct kfid_av *av, const void *addr,
					 char *buf, size_t *len)
{
	return av->ops->straddr(av, addr, buf, len);
}

/**
 * kfi_rx_addr() - Address one receive context of a scalable endpoint.
 * @kfi_addr: Handle of the peer's scalable endpoint.
 * @rx_index: Receive context index on the peer.
 * @rx_ctx_bits: rx_ctx_bits of the address vector.
 *
 * The index is stored in the top @rx_ctx_bits bits of the handle.  With
 * @rx_ctx_bits of 0 (or out of range) there is no room for an index and
 * @kfi_addr is returned unchanged.
 *
 * Context: Any context.
 * Return: The handle targeting receive context @rx_index.
 */
static inline kfi_addr_t kfi_rx_addr(kfi_addr_t kfi_addr, int rx_index,
				     int rx_ctx_bits)
{
	if (rx_ctx_bits <= 0 || rx_ctx_bits > 64)
		return kfi_addr;
	return (kfi_addr_t)(((uint64_t)rx_index << (64 - rx_ctx_bits)) |
			    kfi_addr);
}

#endif /* _KFI_DOMAIN_H_ */
