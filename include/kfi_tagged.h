/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfabric tagged messages.
 *
 * A tagged send carries a 64-bit tag; it lands in the first posted tagged
 * receive whose tag matches, ignoring the bits set in that receive's
 * ignore mask.  A posted tagged receive can also serve as the target of
 * tagged RMA (see <kfi_rma.h>).
 *
 * All calls here are data-transfer calls: they never sleep, may be used in
 * process or softirq context, also with spinlocks held, and return
 * -KFI_EAGAIN when the provider's queues are full.
 */

#ifndef _KFI_TAGGED_H_
#define _KFI_TAGGED_H_

#include <kfabric.h>
#include <kfi_endpoint.h>

/**
 * DOC: Tagged receive flags
 *
 * KFI_CLAIM: with KFI_PEEK, reserve the matched message for a later
 * receive that also passes KFI_CLAIM.
 * KFI_DISCARD: drop the matched (peeked or claimed) message.
 */
#define KFI_CLAIM		(1ULL << 59)
#define KFI_DISCARD		(1ULL << 58)

/**
 * struct kfi_msg_tagged - Full description of a tagged send or receive.
 * @type: Which member of the buffer union is valid.
 * @msg_iov: Array of @iov_count kvecs (KFI_KVEC).
 * @msg_biov: Array of @iov_count bio_vecs (KFI_BVEC).
 * @msg_sgl: DMA-mapped scatterlist of @iov_count entries (KFI_SGL).
 * @desc: Array of @iov_count MR descriptors, or NULL.
 * @iov_count: Number of buffer segments.
 * @addr: Peer address; KFI_ADDR_UNSPEC to receive from anyone.
 * @tag: Tag sent, or tag to match.
 * @ignore: Receives only: tag bits that need not match.
 * @context: Operation context.
 * @data: Remote CQ data sent with KFI_REMOTE_CQ_DATA.
 */
struct kfi_msg_tagged {
	enum kfi_iov_type	type;
	union {
		const struct kvec	 *msg_iov;
		const struct bio_vec	 *msg_biov;
		const struct scatterlist *msg_sgl;
	};
	void			**desc;
	size_t			iov_count;
	kfi_addr_t		addr;
	uint64_t		tag;
	uint64_t		ignore;
	void			*context;
	uint64_t		data;
};

/**
 * struct kfi_ops_tagged - Tagged message operations of an endpoint.
 * @size: Must be sizeof(struct kfi_ops_tagged).
 * @recv: See kfi_trecv().
 * @recvv: See kfi_trecvv().
 * @recvbv: See kfi_trecvbv().
 * @recvmsg: See kfi_trecvmsg().
 * @send: See kfi_tsend().
 * @sendv: See kfi_tsendv().
 * @sendbv: See kfi_tsendbv().
 * @sendmsg: See kfi_tsendmsg().
 * @inject: See kfi_tinject().
 * @senddata: See kfi_tsenddata().
 * @injectdata: See kfi_tinjectdata().
 * @recvsgl: See kfi_trecvsgl() (added in API 1.7).
 * @sendsgl: See kfi_tsendsgl() (added in API 1.7).
 */
struct kfi_ops_tagged {
	size_t	size;
	ssize_t	(*recv)(struct kfid_ep *ep, void *buf, size_t len, void *desc,
			kfi_addr_t src_addr, uint64_t tag, uint64_t ignore,
			void *context);
	ssize_t	(*recvv)(struct kfid_ep *ep, const struct kvec *iov,
			 void **desc, size_t count, kfi_addr_t src_addr,
			 uint64_t tag, uint64_t ignore, void *context);
	ssize_t	(*recvbv)(struct kfid_ep *ep, const struct bio_vec *biov,
			  void **desc, size_t count, kfi_addr_t src_addr,
			  uint64_t tag, uint64_t ignore, void *context);
	ssize_t	(*recvmsg)(struct kfid_ep *ep, const struct kfi_msg_tagged *msg,
			   uint64_t flags);
	ssize_t	(*send)(struct kfid_ep *ep, const void *buf, size_t len,
			void *desc, kfi_addr_t dest_addr, uint64_t tag,
			void *context);
	ssize_t	(*sendv)(struct kfid_ep *ep, const struct kvec *iov,
			 void **desc, size_t count, kfi_addr_t dest_addr,
			 uint64_t tag, void *context);
	ssize_t	(*sendbv)(struct kfid_ep *ep, const struct bio_vec *biov,
			  void **desc, size_t count, kfi_addr_t dest_addr,
			  uint64_t tag, void *context);
	ssize_t	(*sendmsg)(struct kfid_ep *ep, const struct kfi_msg_tagged *msg,
			   uint64_t flags);
	ssize_t	(*inject)(struct kfid_ep *ep, const void *buf, size_t len,
			  kfi_addr_t dest_addr, uint64_t tag);
	ssize_t	(*senddata)(struct kfid_ep *ep, const void *buf, size_t len,
			    void *desc, uint64_t data, kfi_addr_t dest_addr,
			    uint64_t tag, void *context);
	ssize_t	(*injectdata)(struct kfid_ep *ep, const void *buf, size_t len,
			      uint64_t data, kfi_addr_t dest_addr,
			      uint64_t tag);
	ssize_t	(*recvsgl)(struct kfid_ep *ep, const struct scatterlist *sgl,
			   void **desc, size_t count, kfi_addr_t src_addr,
			   uint64_t tag, uint64_t ignore, void *context);
	ssize_t	(*sendsgl)(struct kfid_ep *ep, const struct scatterlist *sgl,
			   void **desc, size_t count, kfi_addr_t dest_addr,
			   uint64_t tag, void *context);
};

/**
 * kfi_trecv() - Post a tagged receive buffer.
 * @ep: Endpoint or receive context.
 * @buf: Buffer.
 * @len: Length of @buf.
 * @desc: MR descriptor of @buf, or NULL.
 * @src_addr: Source filter, or KFI_ADDR_UNSPEC.
 * @tag: Tag to match.
 * @ignore: Tag bits that need not match.
 * @context: Operation context.
 *
 * Context: Process or softirq context, also with spinlocks held; does not
 * sleep.
 * Return: 0 on success, -KFI_EAGAIN if the queue is full, or another
 * negative error code.
 */
static inline ssize_t kfi_trecv(struct kfid_ep *ep, void *buf, size_t len,
				void *desc, kfi_addr_t src_addr, uint64_t tag,
				uint64_t ignore, void *context)
{
	return ep->tagged->recv(ep, buf, len, desc, src_addr, tag, ignore,
				context);
}

/**
 * kfi_trecvv() - Post a tagged receive into a kvec array.
 * @ep: Endpoint or receive context.
 * @iov: Array of @count kvecs.
 * @desc: Array of @count MR descriptors, or NULL.
 * @count: Number of segments.
 * @src_addr: Source filter, or KFI_ADDR_UNSPEC.
 * @tag: Tag to match.
 * @ignore: Tag bits that need not match.
 * @context: Operation context.
 *
 * Context: Does not sleep.
 * Return: As kfi_trecv().
 */
static inline ssize_t kfi_trecvv(struct kfid_ep *ep, const struct kvec *iov,
				 void **desc, size_t count,
				 kfi_addr_t src_addr, uint64_t tag,
				 uint64_t ignore, void *context)
{
	return ep->tagged->recvv(ep, iov, desc, count, src_addr, tag, ignore,
				 context);
}

/**
 * kfi_trecvbv() - Post a tagged receive into a bio_vec array.
 * @ep: Endpoint or receive context.
 * @biov: Array of @count bio_vecs.
 * @desc: Array of @count MR descriptors, or NULL.
 * @count: Number of segments.
 * @src_addr: Source filter, or KFI_ADDR_UNSPEC.
 * @tag: Tag to match.
 * @ignore: Tag bits that need not match.
 * @context: Operation context.
 *
 * Context: Does not sleep.
 * Return: As kfi_trecv().
 */
static inline ssize_t kfi_trecvbv(struct kfid_ep *ep,
				  const struct bio_vec *biov, void **desc,
				  size_t count, kfi_addr_t src_addr,
				  uint64_t tag, uint64_t ignore, void *context)
{
	return ep->tagged->recvbv(ep, biov, desc, count, src_addr, tag,
				  ignore, context);
}

/**
 * kfi_trecvsgl() - Post a tagged receive into a DMA-mapped scatterlist.
 * @ep: Endpoint or receive context.
 * @sgl: Scatterlist of @count mapped entries.
 * @desc: Array of @count MR descriptors, or NULL.
 * @count: Number of entries.
 * @src_addr: Source filter, or KFI_ADDR_UNSPEC.
 * @tag: Tag to match.
 * @ignore: Tag bits that need not match.
 * @context: Operation context.
 *
 * Added in API 1.7; the wrapper checks that the provider has it.
 *
 * Context: Does not sleep.
 * Return: As kfi_trecv(), or -KFI_ENOSYS if unsupported.
 */
static inline ssize_t kfi_trecvsgl(struct kfid_ep *ep,
				   const struct scatterlist *sgl, void **desc,
				   size_t count, kfi_addr_t src_addr,
				   uint64_t tag, uint64_t ignore, void *context)
{
	if (!KFI_CHECK_OP(ep->tagged, struct kfi_ops_tagged, recvsgl))
		return -KFI_ENOSYS;
	return ep->tagged->recvsgl(ep, sgl, desc, count, src_addr, tag,
				   ignore, context);
}

/**
 * kfi_trecvmsg() - Post a tagged receive described by a kfi_msg_tagged.
 * @ep: Endpoint or receive context.
 * @msg: Receive description.
 * @flags: Operation flags (KFI_COMPLETION, KFI_PEEK, KFI_CLAIM,
 *	KFI_DISCARD, KFI_MULTI_RECV...).
 *
 * Context: Does not sleep.
 * Return: As kfi_trecv().
 */
static inline ssize_t kfi_trecvmsg(struct kfid_ep *ep,
				   const struct kfi_msg_tagged *msg,
				   uint64_t flags)
{
	return ep->tagged->recvmsg(ep, msg, flags);
}

/**
 * kfi_tsend() - Send a tagged message from one buffer.
 * @ep: Endpoint or transmit context.
 * @buf: Data.
 * @len: Length of @buf.
 * @desc: MR descriptor of @buf, or NULL.
 * @dest_addr: Destination.
 * @tag: Tag of the message.
 * @context: Operation context.
 *
 * Context: Does not sleep.
 * Return: 0 on success, -KFI_EAGAIN if the queue is full, or another
 * negative error code.
 */
static inline ssize_t kfi_tsend(struct kfid_ep *ep, const void *buf,
				size_t len, void *desc, kfi_addr_t dest_addr,
				uint64_t tag, void *context)
{
	return ep->tagged->send(ep, buf, len, desc, dest_addr, tag, context);
}

/**
 * kfi_tsendv() - Send a tagged message gathered from a kvec array.
 * @ep: Endpoint or transmit context.
 * @iov: Array of @count kvecs.
 * @desc: Array of @count MR descriptors, or NULL.
 * @count: Number of segments.
 * @dest_addr: Destination.
 * @tag: Tag of the message.
 * @context: Operation context.
 *
 * Context: Does not sleep.
 * Return: As kfi_tsend().
 */
static inline ssize_t kfi_tsendv(struct kfid_ep *ep, const struct kvec *iov,
				 void **desc, size_t count,
				 kfi_addr_t dest_addr, uint64_t tag,
				 void *context)
{
	return ep->tagged->sendv(ep, iov, desc, count, dest_addr, tag,
				 context);
}

/**
 * kfi_tsendbv() - Send a tagged message gathered from a bio_vec array.
 * @ep: Endpoint or transmit context.
 * @biov: Array of @count bio_vecs.
 * @desc: Array of @count MR descriptors, or NULL.
 * @count: Number of segments.
 * @dest_addr: Destination.
 * @tag: Tag of the message.
 * @context: Operation context.
 *
 * Context: Does not sleep.
 * Return: As kfi_tsend().
 */
static inline ssize_t kfi_tsendbv(struct kfid_ep *ep,
				  const struct bio_vec *biov, void **desc,
				  size_t count, kfi_addr_t dest_addr,
				  uint64_t tag, void *context)
{
	return ep->tagged->sendbv(ep, biov, desc, count, dest_addr, tag,
				  context);
}

/**
 * kfi_tsendsgl() - Send a tagged message from a DMA-mapped scatterlist.
 * @ep: Endpoint or transmit context.
 * @sgl: Scatterlist of @count mapped entries.
 * @desc: Array of @count MR descriptors, or NULL.
 * @count: Number of entries.
 * @dest_addr: Destination.
 * @tag: Tag of the message.
 * @context: Operation context.
 *
 * Added in API 1.7; the wrapper checks that the provider has it.
 *
 * Context: Does not sleep.
 * Return: As kfi_tsend(), or -KFI_ENOSYS if unsupported.
 */
static inline ssize_t kfi_tsendsgl(struct kfid_ep *ep,
				   const struct scatterlist *sgl, void **desc,
				   size_t count, kfi_addr_t dest_addr,
				   uint64_t tag, void *context)
{
	if (!KFI_CHECK_OP(ep->tagged, struct kfi_ops_tagged, sendsgl))
		return -KFI_ENOSYS;
	return ep->tagged->sendsgl(ep, sgl, desc, count, dest_addr, tag,
				   context);
}

/**
 * kfi_tsendmsg() - Send a tagged message described by a kfi_msg_tagged.
 * @ep: Endpoint or transmit context.
 * @msg: Message description.
 * @flags: Operation flags (KFI_REMOTE_CQ_DATA, KFI_INJECT...).
 *
 * Context: Does not sleep.
 * Return: As kfi_tsend().
 */
static inline ssize_t kfi_tsendmsg(struct kfid_ep *ep,
				   const struct kfi_msg_tagged *msg,
				   uint64_t flags)
{
	return ep->tagged->sendmsg(ep, msg, flags);
}

/**
 * kfi_tinject() - Send a small tagged message without a completion.
 * @ep: Endpoint or transmit context.
 * @buf: Data, at most tx_attr->inject_size bytes; reusable on return.
 * @len: Length of @buf.
 * @dest_addr: Destination.
 * @tag: Tag of the message.
 *
 * Context: Does not sleep.
 * Return: As kfi_tsend().
 */
static inline ssize_t kfi_tinject(struct kfid_ep *ep, const void *buf,
				  size_t len, kfi_addr_t dest_addr,
				  uint64_t tag)
{
	return ep->tagged->inject(ep, buf, len, dest_addr, tag);
}

/**
 * kfi_tsenddata() - Send a tagged message with remote CQ data.
 * @ep: Endpoint or transmit context.
 * @buf: Data (may be NULL with @len 0).
 * @len: Length of @buf.
 * @desc: MR descriptor of @buf, or NULL.
 * @data: Remote CQ data.
 * @dest_addr: Destination.
 * @tag: Tag of the message.
 * @context: Operation context.
 *
 * Context: Does not sleep.
 * Return: As kfi_tsend().
 */
static inline ssize_t kfi_tsenddata(struct kfid_ep *ep, const void *buf,
				    size_t len, void *desc, uint64_t data,
				    kfi_addr_t dest_addr, uint64_t tag,
				    void *context)
{
	return ep->tagged->senddata(ep, buf, len, desc, data, dest_addr, tag,
				    context);
}

/**
 * kfi_tinjectdata() - Inject a small tagged message with remote CQ data.
 * @ep: Endpoint or transmit context.
 * @buf: Data, at most tx_attr->inject_size bytes; reusable on return.
 * @len: Length of @buf.
 * @data: Remote CQ data.
 * @dest_addr: Destination.
 * @tag: Tag of the message.
 *
 * Context: Does not sleep.
 * Return: As kfi_tsend().
 */
static inline ssize_t kfi_tinjectdata(struct kfid_ep *ep, const void *buf,
				      size_t len, uint64_t data,
				      kfi_addr_t dest_addr, uint64_t tag)
{
	return ep->tagged->injectdata(ep, buf, len, data, dest_addr, tag);
}

#endif /* _KFI_TAGGED_H_ */
