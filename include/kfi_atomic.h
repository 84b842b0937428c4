/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfabric atomic operations on remote memory.
 *
 * Three families exist: plain atomics update remote memory (kfi_atomic*),
 * fetch atomics also return the previous remote value (kfi_fetch_atomic*),
 * and compare atomics update conditionally on a compare value
 * (kfi_compare_atomic*).  Buffers are arrays of elements of an
 * &enum kfi_datatype, described by &struct kfi_ioc (counts are element
 * counts, not bytes).
 *
 * The transfer calls never sleep, may be used in process or softirq
 * context, also with spinlocks held, and return -KFI_EAGAIN when the
 * provider's queues are full.
 */

#ifndef _KFI_ATOMIC_H_
#define _KFI_ATOMIC_H_

#include <kfi_endpoint.h>

/**
 * struct kfi_ioc - Local buffer segment of an atomic operation.
 * @addr: Start of the segment.
 * @count: Number of elements.
 */
struct kfi_ioc {
	void			*addr;
	size_t			count;
};

/**
 * struct kfi_rma_ioc - Remote buffer segment of an atomic operation.
 * @addr: Remote address.
 * @count: Number of elements.
 * @key: Remote key.
 */
struct kfi_rma_ioc {
	uint64_t		addr;
	size_t			count;
	uint64_t		key;
};

/**
 * struct kfi_atomic_attr - Result of kfi_query_atomic().
 * @count: Most elements one operation can handle atomically.
 * @size: Size in bytes of one element.
 */
struct kfi_atomic_attr {
	size_t			count;
	size_t			size;
};

/**
 * struct kfi_msg_atomic - Full description of an atomic operation.
 * @msg_iov: Array of @iov_count local operand segments.
 * @desc: Array of @iov_count MR descriptors, or NULL.
 * @iov_count: Number of local segments.
 * @addr: Peer address.
 * @rma_iov: Array of @rma_iov_count remote segments.
 * @rma_iov_count: Number of remote segments.
 * @datatype: Element type.
 * @op: Operation.
 * @context: Operation context.
 * @data: Remote CQ data with KFI_REMOTE_CQ_DATA.
 */
struct kfi_msg_atomic {
	const struct kfi_ioc		*msg_iov;
	void				**desc;
	size_t				iov_count;
	kfi_addr_t			addr;
	const struct kfi_rma_ioc	*rma_iov;
	size_t				rma_iov_count;
	enum kfi_datatype		datatype;
	enum kfi_op			op;
	void				*context;
	uint64_t			data;
};

/**
 * struct kfi_msg_fetch - Where a fetch atomic returns previous values.
 * @msg_iov: Array of @iov_count result segments.
 * @desc: Array of @iov_count MR descriptors, or NULL.
 * @iov_count: Number of result segments.
 */
struct kfi_msg_fetch {
	struct kfi_ioc			*msg_iov;
	void				**desc;
	size_t				iov_count;
};

/**
 * struct kfi_msg_compare - Compare operands of a compare atomic.
 * @msg_iov: Array of @iov_count compare segments.
 * @desc: Array of @iov_count MR descriptors, or NULL.
 * @iov_count: Number of compare segments.
 */
struct kfi_msg_compare {
	const struct kfi_ioc		*msg_iov;
	void				**desc;
	size_t				iov_count;
};

/**
 * struct kfi_ops_atomic - Atomic operations of an endpoint.
 * @size: Must be sizeof(struct kfi_ops_atomic).
 * @write: See kfi_atomic().
 * @writev: See kfi_atomicv().
 * @writemsg: See kfi_atomicmsg().
 * @inject: See kfi_inject_atomic().
 * @readwrite: See kfi_fetch_atomic().
 * @readwritev: See kfi_fetch_atomicv().
 * @readwritemsg: See kfi_fetch_atomicmsg().
 * @compwrite: See kfi_compare_atomic().
 * @compwritev: See kfi_compare_atomicv().
 * @compwritemsg: See kfi_compare_atomicmsg().
 * @writevalid: See kfi_atomicvalid().
 * @readwritevalid: See kfi_fetch_atomicvalid().
 * @compwritevalid: See kfi_compare_atomicvalid().
 */
struct kfi_ops_atomic {
	size_t	size;
	ssize_t	(*write)(struct kfid_ep *ep, const void *buf, size_t count,
			 void *desc, kfi_addr_t dest_addr, uint64_t addr,
			 uint64_t key, enum kfi_datatype datatype,
			 enum kfi_op op, void *context);
	ssize_t	(*writev)(struct kfid_ep *ep, const struct kfi_ioc *iov,
			  void **desc, size_t count, kfi_addr_t dest_addr,
			  uint64_t addr, uint64_t key,
			  enum kfi_datatype datatype, enum kfi_op op,
			  void *context);
	ssize_t	(*writemsg)(struct kfid_ep *ep,
			    const struct kfi_msg_atomic *msg, uint64_t flags);
	ssize_t	(*inject)(struct kfid_ep *ep, const void *buf, size_t count,
			  kfi_addr_t dest_addr, uint64_t addr, uint64_t key,
			  enum kfi_datatype datatype, enum kfi_op op);
	ssize_t	(*readwrite)(struct kfid_ep *ep, const void *buf, size_t count,
			     void *desc, void *result, void *result_desc,
			     kfi_addr_t dest_addr, uint64_t addr, uint64_t key,
			     enum kfi_datatype datatype, enum kfi_op op,
			     void *context);
	ssize_t	(*readwritev)(struct kfid_ep *ep, const struct kfi_ioc *iov,
			      void **desc, size_t count,
			      struct kfi_ioc *resultv, void **result_desc,
			      size_t result_count, kfi_addr_t dest_addr,
			      uint64_t addr, uint64_t key,
			      enum kfi_datatype datatype, enum kfi_op op,
			      void *context);
	ssize_t	(*readwritemsg)(struct kfid_ep *ep,
				const struct kfi_msg_atomic *msg,
				struct kfi_ioc *resultv, void **result_desc,
				size_t result_count, uint64_t flags);
	ssize_t	(*compwrite)(struct kfid_ep *ep, const void *buf, size_t count,
			     void *desc, const void *compare,
			     void *compare_desc, void *result,
			     void *result_desc, kfi_addr_t dest_addr,
			     uint64_t addr, uint64_t key,
			     enum kfi_datatype datatype, enum kfi_op op,
			     void *context);
	ssize_t	(*compwritev)(struct kfid_ep *ep, const struct kfi_ioc *iov,
			      void **desc, size_t count,
			      const struct kfi_ioc *comparev,
			      void **compare_desc, size_t compare_count,
			      struct kfi_ioc *resultv, void **result_desc,
			      size_t result_count, kfi_addr_t dest_addr,
			      uint64_t addr, uint64_t key,
			      enum kfi_datatype datatype, enum kfi_op op,
			      void *context);
	ssize_t	(*compwritemsg)(struct kfid_ep *ep,
				const struct kfi_msg_atomic *msg,
				const struct kfi_ioc *comparev,
				void **compare_desc, size_t compare_count,
				struct kfi_ioc *resultv, void **result_desc,
				size_t result_count, uint64_t flags);
	int	(*writevalid)(struct kfid_ep *ep, enum kfi_datatype datatype,
			      enum kfi_op op, size_t *count);
	int	(*readwritevalid)(struct kfid_ep *ep,
				  enum kfi_datatype datatype,
				  enum kfi_op op, size_t *count);
	int	(*compwritevalid)(struct kfid_ep *ep,
				  enum kfi_datatype datatype,
				  enum kfi_op op, size_t *count);
};

/**
 * kfi_atomic() - Apply an atomic operation to remote memory.
 * @ep: Endpoint or transmit context.
 * @buf: Local operands.
 * @count: Number of elements.
 * @desc: MR descriptor of @buf, or NULL.
 * @dest_addr: Peer.
 * @addr: Remote address.
 * @key: Remote key.
 * @datatype: Element type.
 * @op: Operation.
 * @context: Operation context.
 *
 * Context: Process or softirq context, also with spinlocks held; does not
 * sleep.
 * Return: 0 on success, -KFI_EAGAIN if the queue is full, or another
 * negative error code.
 */
static inline ssize_t kfi_atomic(struct kfid_ep *ep, const void *buf,
				 size_t count, void *desc,
				 kfi_addr_t dest_addr, uint64_t addr,
				 uint64_t key, enum kfi_datatype datatype,
				 enum kfi_op op, void *context)
{
	return ep->atomic->write(ep, buf, count, desc, dest_addr, addr, key,
				 datatype, op, context);
}

/**
 * kfi_atomicv() - Atomic operation with operands in several segments.
 * @ep: Endpoint or transmit context.
 * @iov: Array of @count operand segments.
 * @desc: Array of @count MR descriptors, or NULL.
 * @count: Number of segments.
 * @dest_addr: Peer.
 * @addr: Remote address.
 * @key: Remote key.
 * @datatype: Element type.
 * @op: Operation.
 * @context: Operation context.
 *
 * Context: Does not sleep.
 * Return: As kfi_atomic().
 */
static inline ssize_t kfi_atomicv(struct kfid_ep *ep,
				  const struct kfi_ioc *iov, void **desc,
				  size_t count, kfi_addr_t dest_addr,
				  uint64_t addr, uint64_t key,
				  enum kfi_datatype datatype, enum kfi_op op,
				  void *context)
{
	return ep->atomic->writev(ep, iov, desc, count, dest_addr, addr, key,
				  datatype, op, context);
}

/**
 * kfi_atomicmsg() - Atomic operation described by a kfi_msg_atomic.
 * @ep: Endpoint or transmit context.
 * @msg: Operation description.
 * @flags: Operation flags.
 *
 * Context: Does not sleep.
 * Return: As kfi_atomic().
 */
static inline ssize_t kfi_atomicmsg(struct kfid_ep *ep,
				    const struct kfi_msg_atomic *msg,
				    uint64_t flags)
{
	return ep->atomic->writemsg(ep, msg, flags);
}

/**
 * kfi_inject_atomic() - Small atomic operation without a completion.
 * @ep: Endpoint or transmit context.
 * @buf: Operands; reusable on return.
 * @count: Number of elements.
 * @dest_addr: Peer.
 * @addr: Remote address.
 * @key: Remote key.
 * @datatype: Element type.
 * @op: Operation.
 *
 * Context: Does not sleep.
 * Return: As kfi_atomic().
 */
static inline ssize_t kfi_inject_atomic(struct kfid_ep *ep, const void *buf,
					size_t count, kfi_addr_t dest_addr,
					uint64_t addr, uint64_t key,
					enum kfi_datatype datatype,
					enum kfi_op op)
{
	return ep->atomic->inject(ep, buf, count, dest_addr, addr, key,
				  datatype, op);
}

/**
 * kfi_fetch_atomic() - Atomic operation returning the previous value.
 * @ep: Endpoint or transmit context.
 * @buf: Local operands (unused for KFI_ATOMIC_READ).
 * @count: Number of elements.
 * @desc: MR descriptor of @buf, or NULL.
 * @result: Receives the previous remote values.
 * @result_desc: MR descriptor of @result, or NULL.
 * @dest_addr: Peer.
 * @addr: Remote address.
 * @key: Remote key.
 * @datatype: Element type.
 * @op: Operation.
 * @context: Operation context.
 *
 * Context: Does not sleep.
 * Return: As kfi_atomic().
 */
static inline ssize_t kfi_fetch_atomic(struct kfid_ep *ep, const void *buf,
				       size_t count, void *desc, void *result,
				       void *result_desc, kfi_addr_t dest_addr,
				       uint64_t addr, uint64_t key,
				       enum kfi_datatype datatype,
				       enum kfi_op op, void *context)
{
	return ep->atomic->readwrite(ep, buf, count, desc, result,
				     result_desc, dest_addr, addr, key,
				     datatype, op, context);
}

/**
 * kfi_fetch_atomicv() - Fetch atomic with segmented buffers.
 * @ep: Endpoint or transmit context.
 * @iov: Array of @count operand segments.
 * @desc: Array of @count MR descriptors, or NULL.
 * @count: Number of operand segments.
 * @resultv: Array of @result_count result segments.
 * @result_desc: Array of @result_count MR descriptors, or NULL.
 * @result_count: Number of result segments.
 * @dest_addr: Peer.
 * @addr: Remote address.
 * @key: Remote key.
 * @datatype: Element type.
 * @op: Operation.
 * @context: Operation context.
 *
 * Context: Does not sleep.
 * Return: As kfi_atomic().
 */
static inline ssize_t kfi_fetch_atomicv(struct kfid_ep *ep,
					const struct kfi_ioc *iov, void **desc,
					size_t count, struct kfi_ioc *resultv,
					void **result_desc,
					size_t result_count,
					kfi_addr_t dest_addr, uint64_t addr,
					uint64_t key,
					enum kfi_datatype datatype,
					enum kfi_op op, void *context)
{
	return ep->atomic->readwritev(ep, iov, desc, count, resultv,
				      result_desc, result_count, dest_addr,
				      addr, key, datatype, op, context);
}

/**
 * kfi_fetch_atomicmsg() - Fetch atomic described by a kfi_msg_atomic.
 * @ep: Endpoint or transmit context.
 * @msg: Operation description.
 * @resultv: Array of @result_count result segments.
 * @result_desc: Array of @result_count MR descriptors, or NULL.
 * @result_count: Number of result segments.
 * @flags: Operation flags.
 *
 * Context: Does not sleep.
 * Return: As kfi_atomic().
 */
static inline ssize_t kfi_fetch_atomicmsg(struct kfid_ep *ep,
					  const struct kfi_msg_atomic *msg,
					  struct kfi_ioc *resultv,
					  void **result_desc,
					  size_t result_count, uint64_t flags)
{
	return ep->atomic->readwritemsg(ep, msg, resultv, result_desc,
					result_count, flags);
}

/**
 * kfi_compare_atomic() - Conditional atomic returning the previous value.
 * @ep: Endpoint or transmit context.
 * @buf: Local operands (swap values).
 * @count: Number of elements.
 * @desc: MR descriptor of @buf, or NULL.
 * @compare: Compare values (or masks for KFI_MSWAP).
 * @compare_desc: MR descriptor of @compare, or NULL.
 * @result: Receives the previous remote values.
 * @result_desc: MR descriptor of @result, or NULL.
 * @dest_addr: Peer.
 * @addr: Remote address.
 * @key: Remote key.
 * @datatype: Element type.
 * @op: One of the KFI_CSWAP* operations or KFI_MSWAP.
 * @context: Operation context.
 *
 * Context: Does not sleep.
 * Return: As kfi_atomic().
 */
static inline ssize_t kfi_compare_atomic(struct kfid_ep *ep, const void *buf,
					 size_t count, void *desc,
					 const void *compare,
					 void *compare_desc, void *result,
					 void *result_desc,
					 kfi_addr_t dest_addr, uint64_t addr,
					 uint64_t key,
					 enum kfi_datatype datatype,
					 enum kfi_op op, void *context)
{
	return ep->atomic->compwrite(ep, buf, count, desc, compare,
				     compare_desc, result, result_desc,
				     dest_addr, addr, key, datatype, op,
				     context);
}

/**
 * kfi_compare_atomicv() - Compare atomic with segmented buffers.
 * @ep: Endpoint or transmit context.
 * @iov: Array of @count operand segments.
 * @desc: Array of @count MR descriptors, or NULL.
 * @count: Number of operand segments.
 * @comparev: Array of @compare_count compare segments.
 * @compare_desc: Array of @compare_count MR descriptors, or NULL.
 * @compare_count: Number of compare segments.
 * @resultv: Array of @result_count result segments.
 * @result_desc: Array of @result_count MR descriptors, or NULL.
 * @result_count: Number of result segments.
 * @dest_addr: Peer.
 * @addr: Remote address.
 * @key: Remote key.
 * @datatype: Element type.
 * @op: One of the KFI_CSWAP* operations or KFI_MSWAP.
 * @context: Operation context.
 *
 * Context: Does not sleep.
 * Return: As kfi_atomic().
 */
static inline ssize_t kfi_compare_atomicv(struct kfid_ep *ep,
					  const struct kfi_ioc *iov,
					  void **desc, size_t count,
					  const struct kfi_ioc *comparev,
					  void **compare_desc,
					  size_t compare_count,
					  struct kfi_ioc *resultv,
					  void **result_desc,
					  size_t result_count,
					  kfi_addr_t dest_addr, uint64_t addr,
					  uint64_t key,
					  enum kfi_datatype datatype,
					  enum kfi_op op, void *context)
{
	return ep->atomic->compwritev(ep, iov, desc, count, comparev,
				      compare_desc, compare_count, resultv,
				      result_desc, result_count, dest_addr,
				      addr, key, datatype, op, context);
}

/**
 * kfi_compare_atomicmsg() - Compare atomic described by a kfi_msg_atomic.
 * @ep: Endpoint or transmit context.
 * @msg: Operation description.
 * @comparev: Array of @compare_count compare segments.
 * @compare_desc: Array of @compare_count MR descriptors, or NULL.
 * @compare_count: Number of compare segments.
 * @resultv: Array of @result_count result segments.
 * @result_desc: Array of @result_count MR descriptors, or NULL.
 * @result_count: Number of result segments.
 * @flags: Operation flags.
 *
 * Context: Does not sleep.
 * Return: As kfi_atomic().
 */
static inline ssize_t kfi_compare_atomicmsg(struct kfid_ep *ep,
					    const struct kfi_msg_atomic *msg,
					    const struct kfi_ioc *comparev,
					    void **compare_desc,
					    size_t compare_count,
					    struct kfi_ioc *resultv,
					    void **result_desc,
					    size_t result_count,
					    uint64_t flags)
{
	return ep->atomic->compwritemsg(ep, msg, comparev, compare_desc,
					compare_count, resultv, result_desc,
					result_count, flags);
}

/**
 * kfi_atomicvalid() - Check support for a plain atomic operation.
 * @ep: Endpoint.
 * @datatype: Element type.
 * @op: Operation.
 * @count: Returns the most elements one call can handle atomically.
 *
 * Context: Any context; does not sleep.
 * Return: 0 if supported, or a negative error code.
 */
static inline int kfi_atomicvalid(struct kfid_ep *ep,
				  enum kfi_datatype datatype, enum kfi_op op,
				  size_t *count)
{
	return ep->atomic->writevalid(ep, datatype, op, count);
}

/**
 * kfi_fetch_atomicvalid() - Check support for a fetch atomic operation.
 * @ep: Endpoint.
 * @datatype: Element type.
 * @op: Operation.
 * @count: Returns the most elements one call can handle atomically.
 *
 * Context: Any context; does not sleep.
 * Return: 0 if supported, or a negative error code.
 */
static inline int kfi_fetch_atomicvalid(struct kfid_ep *ep,
					enum kfi_datatype datatype,
					enum kfi_op op, size_t *count)
{
	return ep->atomic->readwritevalid(ep, datatype, op, count);
}

/**
 * kfi_compare_atomicvalid() - Check support for a compare atomic
 *	operation.
 * @ep: Endpoint.
 * @datatype: Element type.
 * @op: Operation.
 * @count: Returns the most elements one call can handle atomically.
 *
 * Context: Any context; does not sleep.
 * Return: 0 if supported, or a negative error code.
 */
static inline int kfi_compare_atomicvalid(struct kfid_ep *ep,
					  enum kfi_datatype datatype,
					  enum kfi_op op, size_t *count)
{
	return ep->atomic->compwritevalid(ep, datatype, op, count);
}

/**
 * kfi_query_atomic() - Ask a domain about support for an atomic operation.
 * @domain: Domain.
 * @datatype: Element type.
 * @op: Operation.
 * @attr: Returns the limits of the operation.
 * @flags: Query flags; zero asks about plain atomics.  kfabric defines no
 *	flags here yet, providers may define their own.
 *
 * Context: Any context; does not sleep.
 * Return: 0 if supported, -KFI_ENOSYS if the provider cannot answer
 * (optional operation), or another negative error code.
 */
static inline int kfi_query_atomic(struct kfid_domain *domain,
				   enum kfi_datatype datatype, enum kfi_op op,
				   struct kfi_atomic_attr *attr,
				   uint64_t flags)
{
	if (!KFI_CHECK_OP(domain->ops, struct kfi_ops_domain, query_atomic))
		return -KFI_ENOSYS;
	return domain->ops->query_atomic(domain, datatype, op, attr, flags);
}

#endif /* _KFI_ATOMIC_H_ */
