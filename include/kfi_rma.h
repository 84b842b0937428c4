/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfabric remote memory access (RMA): one-sided reads and writes of a
 * peer's registered memory.
 *
 * The remote buffer is named by an address and a key.  Normally the key is
 * that of a memory region (kfi_mr_key()).  With the KFI_TAGGED_RMA
 * capability, kfi_readmsg() and kfi_writemsg() called with the KFI_TAGGED
 * flag instead take as key the tag of a tagged receive the peer posted,
 * and access that receive's buffer; no memory region is involved.
 *
 * All calls here are data-transfer calls: they never sleep, may be used in
 * process or softirq context, also with spinlocks held, and return
 * -KFI_EAGAIN when the provider's queues are full.
 */

#ifndef _KFI_RMA_H_
#define _KFI_RMA_H_

#include <kfabric.h>
#include <kfi_endpoint.h>

/**
 * struct kfi_rma_iov - One segment of a remote buffer.
 * @addr: Remote address (or offset, without KFI_MR_VIRT_ADDR).
 * @len: Length of the segment.
 * @key: Memory region key, or tag for tagged RMA.
 */
struct kfi_rma_iov {
	uint64_t		addr;
	size_t			len;
	uint64_t		key;
};

/**
 * struct kfi_msg_rma - Full description of an RMA read or write.
 * @type: Which member of the buffer union is valid.
 * @msg_iov: Array of @iov_count kvecs (KFI_KVEC).
 * @msg_biov: Array of @iov_count bio_vecs (KFI_BVEC).
 * @msg_sgl: DMA-mapped scatterlist of @iov_count entries (KFI_SGL).
 * @desc: Array of @iov_count MR descriptors, or NULL.
 * @iov_count: Number of local segments.
 * @addr: Peer address.
 * @rma_iov: Array of @rma_iov_count remote segments.
 * @rma_iov_count: Number of remote segments.
 * @context: Operation context.
 * @data: Remote CQ data for writes with KFI_REMOTE_CQ_DATA.
 */
struct kfi_msg_rma {
	enum kfi_iov_type	 type;
	union {
		const struct kvec	 *msg_iov;
		const struct bio_vec	 *msg_biov;
		const struct scatterlist *msg_sgl;
	};
	void			 **desc;
	size_t			 iov_count;
	kfi_addr_t		 addr;
	const struct kfi_rma_iov *rma_iov;
	size_t			 rma_iov_count;
	void			 *context;
	uint64_t		 data;
};

/**
 * struct kfi_ops_rma - RMA operations of an endpoint.
 * @size: Must be sizeof(struct kfi_ops_rma).
 * @read: See kfi_read().
 * @readv: See kfi_readv().
 * @readbv: See kfi_readbv().
 * @readmsg: See kfi_readmsg().
 * @write: See kfi_write().
 * @writev: See kfi_writev().
 * @writebv: See kfi_writebv().
 * @writemsg: See kfi_writemsg().
 * @inject: See kfi_inject_write().
 * @writedata: See kfi_writedata().
 * @injectdata: See kfi_inject_writedata().
 * @readsgl: See kfi_readsgl() (added in API 1.7).
 * @writesgl: See kfi_writesgl() (added in API 1.7).
 */
struct kfi_ops_rma {
	size_t	size;
	ssize_t	(*read)(struct kfid_ep *ep, void *buf, size_t len, void *desc,
			kfi_addr_t src_addr, uint64_t addr, uint64_t key,
			void *context);
	ssize_t	(*readv)(struct kfid_ep *ep, const struct kvec *iov,
			 void **desc, size_t count, kfi_addr_t src_addr,
			 uint64_t addr, uint64_t key, void *context);
	ssize_t	(*readbv)(struct kfid_ep *ep, const struct bio_vec *biov,
			  void **desc, size_t count, kfi_addr_t src_addr,
			  uint64_t addr, uint64_t key, void *context);
	ssize_t	(*readmsg)(struct kfid_ep *ep, const struct kfi_msg_rma *msg,
			   uint64_t flags);
	ssize_t	(*write)(struct kfid_ep *ep, const void *buf, size_t len,
			 void *desc, kfi_addr_t dest_addr, uint64_t addr,
			 uint64_t key, void *context);
	ssize_t	(*writev)(struct kfid_ep *ep, const struct kvec *iov,
			  void **desc, size_t count, kfi_addr_t dest_addr,
			  uint64_t addr, uint64_t key, void *context);
	ssize_t	(*writebv)(struct kfid_ep *ep, const struct bio_vec *biov,
			   void **desc, size_t count, kfi_addr_t dest_addr,
			   uint64_t addr, uint64_t key, void *context);
	ssize_t	(*writemsg)(struct kfid_ep *ep, const struct kfi_msg_rma *msg,
			    uint64_t flags);
	ssize_t	(*inject)(struct kfid_ep *ep, const void *buf, size_t len,
			  kfi_addr_t dest_addr, uint64_t addr, uint64_t key);
	ssize_t	(*writedata)(struct kfid_ep *ep, const void *buf, size_t len,
			     void *desc, uint64_t data, kfi_addr_t dest_addr,
			     uint64_t addr, uint64_t key, void *context);
	ssize_t	(*injectdata)(struct kfid_ep *ep, const void *buf, size_t len,
			      uint64_t data, kfi_addr_t dest_addr,
			      uint64_t addr, uint64_t key);
	ssize_t	(*readsgl)(struct kfid_ep *ep, const struct scatterlist *sgl,
			   void **desc, size_t count, kfi_addr_t src_addr,
			   uint64_t addr, uint64_t key, void *context);
	ssize_t	(*writesgl)(struct kfid_ep *ep, const struct scatterlist *sgl,
			    void **desc, size_t count, kfi_addr_t dest_addr,
			    uint64_t addr, uint64_t key, void *context);
};

/**
 * kfi_read() - Read remote memory into one local buffer.
 * @ep: Endpoint or transmit context.
 * @buf: Local destination.
 * @len: Bytes to read.
 * @desc: MR descriptor of @buf, or NULL.
 * @src_addr: Peer to read from.
 * @addr: Remote address.
 * @key: Remote key.
 * @context: Operation context.
 *
 * Context: Process or softirq context, also with spinlocks held; does not
 * sleep.
 * Return: 0 on success, -KFI_EAGAIN if the queue is full, or another
 * negative error code.
 */
static inline ssize_t kfi_read(struct kfid_ep *ep, void *buf, size_t len,
			       void *desc, kfi_addr_t src_addr, uint64_t addr,
			       uint64_t key, void *context)
{
	return ep->rma->read(ep, buf, len, desc, src_addr, addr, key, context);
}

/**
 * kfi_readv() - Read remote memory into a kvec array.
 * @ep: Endpoint or transmit context.
 * @iov: Array of @count kvecs.
 * @desc: Array of @count MR descriptors, or NULL.
 * @count: Number of segments.
 * @src_addr: Peer to read from.
 * @addr: Remote address.
 * @key: Remote key.
 * @context: Operation context.
 *
 * Context: Does not sleep.
 * Return: As kfi_read().
 */
static inline ssize_t kfi_readv(struct kfid_ep *ep, const struct kvec *iov,
				void **desc, size_t count, kfi_addr_t src_addr,
				uint64_t addr, uint64_t key, void *context)
{
	return ep->rma->readv(ep, iov, desc, count, src_addr, addr, key,
			      context);
}

/**
 * kfi_readbv() - Read remote memory into a bio_vec array.
 * @ep: Endpoint or transmit context.
 * @biov: Array of @count bio_vecs.
 * @desc: Array of @count MR descriptors, or NULL.
 * @count: Number of segments.
 * @src_addr: Peer to read from.
 * @addr: Remote address.
 * @key: Remote key.
 * @context: Operation context.
 *
 * Context: Does not sleep.
 * Return: As kfi_read().
 */
static inline ssize_t kfi_readbv(struct kfid_ep *ep,
				 const struct bio_vec *biov, void **desc,
				 size_t count, kfi_addr_t src_addr,
				 uint64_t addr, uint64_t key, void *context)
{
	return ep->rma->readbv(ep, biov, desc, count, src_addr, addr, key,
			       context);
}

/**
 * kfi_readsgl() - Read remote memory into a DMA-mapped scatterlist.
 * @ep: Endpoint or transmit context.
 * @sgl: Scatterlist of @count mapped entries.
 * @desc: Array of @count MR descriptors, or NULL.
 * @count: Number of entries.
 * @src_addr: Peer to read from.
 * @addr: Remote address.
 * @key: Remote key.
 * @context: Operation context.
 *
 * Added in API 1.7; the wrapper checks that the provider has it.
 *
 * Context: Does not sleep.
 * Return: As kfi_read(), or -KFI_ENOSYS if unsupported.
 */
static inline ssize_t kfi_readsgl(struct kfid_ep *ep,
				  const struct scatterlist *sgl, void **desc,
				  size_t count, kfi_addr_t src_addr,
				  uint64_t addr, uint64_t key, void *context)
{
	if (!KFI_CHECK_OP(ep->rma, struct kfi_ops_rma, readsgl))
		return -KFI_ENOSYS;
	return ep->rma->readsgl(ep, sgl, desc, count, src_addr, addr, key,
				context);
}

/**
 * kfi_readmsg() - RMA read described by a kfi_msg_rma.
 * @ep: Endpoint or transmit context.
 * @msg: Read description.
 * @flags: Operation flags; KFI_TAGGED for tagged RMA.
 *
 * Context: Does not sleep.
 * Return: As kfi_read().
 */
static inline ssize_t kfi_readmsg(struct kfid_ep *ep,
				  const struct kfi_msg_rma *msg, uint64_t flags)
{
	return ep->rma->readmsg(ep, msg, flags);
}

/**
 * kfi_write() - Write one local buffer to remote memory.
 * @ep: Endpoint or transmit context.
 * @buf: Local source.
 * @len: Bytes to write.
 * @desc: MR descriptor of @buf, or NULL.
 * @dest_addr: Peer to write to.
 * @addr: Remote address.
 * @key: Remote key.
 * @context: Operation context.
 *
 * Context: Does not sleep.
 * Return: 0 on success, -KFI_EAGAIN if the queue is full, or another
 * negative error code.
 */
static inline ssize_t kfi_write(struct kfid_ep *ep, const void *buf,
				size_t len, void *desc, kfi_addr_t dest_addr,
				uint64_t addr, uint64_t key, void *context)
{
	return ep->rma->write(ep, buf, len, desc, dest_addr, addr, key,
			      context);
}

/**
 * kfi_writev() - Write a kvec array to remote memory.
 * @ep: Endpoint or transmit context.
 * @iov: Array of @count kvecs.
 * @desc: Array of @count MR descriptors, or NULL.
 * @count: Number of segments.
 * @dest_addr: Peer to write to.
 * @addr: Remote address.
 * @key: Remote key.
 * @context: Operation context.
 *
 * Context: Does not sleep.
 * Return: As kfi_write().
 */
static inline ssize_t kfi_writev(struct kfid_ep *ep, const struct kvec *iov,
				 void **desc, size_t count,
				 kfi_addr_t dest_addr, uint64_t addr,
				 uint64_t key, void *context)
{
	return ep->rma->writev(ep, iov, desc, count, dest_addr, addr, key,
			       context);
}

/**
 * kfi_writebv() - Write a bio_vec array to remote memory.
 * @ep: Endpoint or transmit context.
 * @biov: Array of @count bio_vecs.
 * @desc: Array of @count MR descriptors, or NULL.
 * @count: Number of segments.
 * @dest_addr: Peer to write to.
 * @addr: Remote address.
 * @key: Remote key.
 * @context: Operation context.
 *
 * Context: Does not sleep.
 * Return: As kfi_write().
 */
static inline ssize_t kfi_writebv(struct kfid_ep *ep,
				  const struct bio_vec *biov, void **desc,
				  size_t count, kfi_addr_t dest_addr,
				  uint64_t addr, uint64_t key, void *context)
{
	return ep->rma->writebv(ep, biov, desc, count, dest_addr, addr, key,
				context);
}

/**
 * kfi_writesgl() - Write a DMA-mapped scatterlist to remote memory.
 * @ep: Endpoint or transmit context.
 * @sgl: Scatterlist of @count mapped entries.
 * @desc: Array of @count MR descriptors, or NULL.
 * @count: Number of entries.
 * @dest_addr: Peer to write to.
 * @addr: Remote address.
 * @key: Remote key.
 * @context: Operation context.
 *
 * Added in API 1.7; the wrapper checks that the provider has it.
 *
 * Context: Does not sleep.
 * Return: As kfi_write(), or -KFI_ENOSYS if unsupported.
 */
static inline ssize_t kfi_writesgl(struct kfid_ep *ep,
				   const struct scatterlist *sgl, void **desc,
				   size_t count, kfi_addr_t dest_addr,
				   uint64_t addr, uint64_t key, void *context)
{
	if (!KFI_CHECK_OP(ep->rma, struct kfi_ops_rma, writesgl))
		return -KFI_ENOSYS;
	return ep->rma->writesgl(ep, sgl, desc, count, dest_addr, addr, key,
				 context);
}

/**
 * kfi_writemsg() - RMA write described by a kfi_msg_rma.
 * @ep: Endpoint or transmit context.
 * @msg: Write description.
 * @flags: Operation flags; KFI_TAGGED for tagged RMA,
 *	KFI_REMOTE_CQ_DATA to deliver msg->data.
 *
 * Context: Does not sleep.
 * Return: As kfi_write().
 */
static inline ssize_t kfi_writemsg(struct kfid_ep *ep,
				   const struct kfi_msg_rma *msg,
				   uint64_t flags)
{
	return ep->rma->writemsg(ep, msg, flags);
}

/**
 * kfi_inject_write() - Write a small buffer without a completion.
 * @ep: Endpoint or transmit context.
 * @buf: Data, at most tx_attr->inject_size bytes; reusable on return.
 * @len: Length of @buf.
 * @dest_addr: Peer to write to.
 * @addr: Remote address.
 * @key: Remote key.
 *
 * Context: Does not sleep.
 * Return: As kfi_write().
 */
static inline ssize_t kfi_inject_write(struct kfid_ep *ep, const void *buf,
				       size_t len, kfi_addr_t dest_addr,
				       uint64_t addr, uint64_t key)
{
	return ep->rma->inject(ep, buf, len, dest_addr, addr, key);
}

/**
 * kfi_writedata() - RMA write that also delivers remote CQ data.
 * @ep: Endpoint or transmit context.
 * @buf: Local source.
 * @len: Bytes to write.
 * @desc: MR descriptor of @buf, or NULL.
 * @data: Remote CQ data.
 * @dest_addr: Peer to write to.
 * @addr: Remote address.
 * @key: Remote key.
 * @context: Operation context.
 *
 * Context: Does not sleep.
 * Return: As kfi_write().
 */
static inline ssize_t kfi_writedata(struct kfid_ep *ep, const void *buf,
				    size_t len, void *desc, uint64_t data,
				    kfi_addr_t dest_addr, uint64_t addr,
				    uint64_t key, void *context)
{
	return ep->rma->writedata(ep, buf, len, desc, data, dest_addr, addr,
				  key, context);
}

/**
 * kfi_inject_writedata() - Inject a small RMA write with remote CQ data.
 * @ep: Endpoint or transmit context.
 * @buf: Data, at most tx_attr->inject_size bytes; reusable on return.
 * @len: Length of @buf.
 * @data: Remote CQ data.
 * @dest_addr: Peer to write to.
 * @addr: Remote address.
 * @key: Remote key.
 *
 * Context: Does not sleep.
 * Return: As kfi_write().
 */
static inline ssize_t kfi_inject_writedata(struct kfid_ep *ep,
					   const void *buf, size_t len,
					   uint64_t data, kfi_addr_t dest_addr,
					   uint64_t addr, uint64_t key)
{
	return ep->rma->injectdata(ep, buf, len, data, dest_addr, addr, key);
}

#endif /* _KFI_RMA_H_ */
