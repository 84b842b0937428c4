/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfabric endpoints and message transfers.
 */

#ifndef _KFI_ENDPOINT_H_
#define _KFI_ENDPOINT_H_

#include <kfabric.h>
#include <kfi_domain.h>

/**
 * DOC: Endpoints
 *
 * An active endpoint (&struct kfid_ep) moves data.  A scalable endpoint is
 * an active endpoint with several transmit and receive contexts, each
 * itself a &struct kfid_ep, so that CPUs can post and complete work without
 * sharing queues.  A passive endpoint (&struct kfid_pep) only listens for
 * connection requests.
 */

/**
 * DOC: Data-transfer calls
 *
 * The send, receive, RMA, tagged and atomic calls never sleep.  They may be
 * called from process or softirq context, also with spinlocks held.  When
 * the provider has no room to queue the operation they return -KFI_EAGAIN;
 * the consumer should reap completions and retry.  Buffers and the
 * operation context must stay valid until the operation's completion is
 * read (or, for inject calls, until the call returns).
 */

/**
 * struct kfi_msg - Full description of a message send or receive.
 * @type: Which member of the buffer union is valid.
 * @msg_iov: Array of @iov_count kvecs (KFI_KVEC).
 * @msg_biov: Array of @iov_count bio_vecs (KFI_BVEC).
 * @msg_sgl: DMA-mapped scatterlist of @iov_count entries (KFI_SGL).
 * @desc: Array of @iov_count MR descriptors, or NULL.
 * @iov_count: Number of buffer segments.
 * @addr: Peer address; KFI_ADDR_UNSPEC to receive from anyone.
 * @context: Operation context, returned in the completion entry.
 * @data: Remote CQ data sent with KFI_REMOTE_CQ_DATA.
 */
struct kfi_msg {
	enum kfi_iov_type	type;
	union {
		const struct kvec	 *msg_iov;
		const struct bio_vec	 *msg_biov;
		const struct scatterlist *msg_sgl;
	};
	void			**desc;
	size_t			iov_count;
	kfi_addr_t		addr;
	void			*context;
	uint64_t		data;
};

/**
 * enum - Option levels of kfi_setopt() and kfi_getopt().
 * @KFI_OPT_ENDPOINT: Options of the endpoint itself.
 */
enum {
	KFI_OPT_ENDPOINT
};

/**
 * enum - Option names at level KFI_OPT_ENDPOINT.
 * @KFI_OPT_MIN_MULTI_RECV: size_t; when less than this much room is left
 *	in a multi-receive buffer, the provider releases it (reporting a
 *	completion with KFI_MULTI_RECV set).
 * @KFI_OPT_CM_DATA_SIZE: size_t; largest private data of connection
 *	management calls.
 */
enum {
	KFI_OPT_MIN_MULTI_RECV,
	KFI_OPT_CM_DATA_SIZE,
};

/**
 * struct kfi_ops_ep - Control operations of an endpoint.
 * @size: Must be sizeof(struct kfi_ops_ep).
 * @cancel: Cancel an outstanding operation, see kfi_cancel().
 * @getopt: Read an option, see kfi_getopt().
 * @setopt: Set an option, see kfi_setopt().
 * @tx_ctx: Open a transmit context of a scalable endpoint.
 * @rx_ctx: Open a receive context of a scalable endpoint.
 */
struct kfi_ops_ep {
	size_t	size;
	ssize_t	(*cancel)(struct kfid *fid, void *context);
	int	(*getopt)(struct kfid *fid, int level, int optname,
			  void *optval, size_t *optlen);
	int	(*setopt)(struct kfid *fid, int level, int optname,
			  const void *optval, size_t optlen);
	int	(*tx_ctx)(struct kfid_ep *sep, int index,
			  struct kfi_tx_attr *attr, struct kfid_ep **tx_ep,
			  void *context);
	int	(*rx_ctx)(struct kfid_ep *sep, int index,
			  struct kfi_rx_attr *attr, struct kfid_ep **rx_ep,
			  void *context);
};

/**
 * struct kfi_ops_msg - Message operations of an endpoint.
 * @size: Must be sizeof(struct kfi_ops_msg).
 * @recv: See kfi_recv().
 * @recvv: See kfi_recvv().
 * @recvbv: See kfi_recvbv().
 * @recvmsg: See kfi_recvmsg().
 * @send: See kfi_send().
 * @sendv: See kfi_sendv().
 * @sendbv: See kfi_sendbv().
 * @sendmsg: See kfi_sendmsg().
 * @inject: See kfi_inject().
 * @senddata: See kfi_senddata().
 * @injectdata: See kfi_injectdata().
 * @recvsgl: See kfi_recvsgl() (added in API 1.7).
 * @sendsgl: See kfi_sendsgl() (added in API 1.7).
 */
struct kfi_ops_msg {
	size_t	size;
	ssize_t	(*recv)(struct kfid_ep *ep, void *buf, size_t len, void *desc,
			kfi_addr_t src_addr, void *context);
	ssize_t	(*recvv)(struct kfid_ep *ep, const struct kvec *iov,
			 void **desc, size_t count, kfi_addr_t src_addr,
			 void *context);
	ssize_t	(*recvbv)(struct kfid_ep *ep, const struct bio_vec *biov,
			  void **desc, size_t count, kfi_addr_t src_addr,
			  void *context);
	ssize_t	(*recvmsg)(struct kfid_ep *ep, const struct kfi_msg *msg,
			   uint64_t flags);
	ssize_t	(*send)(struct kfid_ep *ep, const void *buf, size_t len,
			void *desc, kfi_addr_t dest_addr, void *context);
	ssize_t	(*sendv)(struct kfid_ep *ep, const struct kvec *iov,
			 void **desc, size_t count, kfi_addr_t dest_addr,
			 void *context);
	ssize_t	(*sendbv)(struct kfid_ep *ep, const struct bio_vec *biov,
			  void **desc, size_t count, kfi_addr_t dest_addr,
			  void *context);
	ssize_t	(*sendmsg)(struct kfid_ep *ep, const struct kfi_msg *msg,
			   uint64_t flags);
	ssize_t	(*inject)(struct kfid_ep *ep, const void *buf, size_t len,
			  kfi_addr_t dest_addr);
	ssize_t	(*senddata)(struct kfid_ep *ep, const void *buf, size_t len,
			    void *desc, uint64_t data, kfi_addr_t dest_addr,
			    void *context);
	ssize_t	(*injectdata)(struct kfid_ep *ep, const void *buf, size_t len,
			      uint64_t data, kfi_addr_t dest_addr);
	ssize_t	(*recvsgl)(struct kfid_ep *ep, const struct scatterlist *sgl,
			   void **desc, size_t count, kfi_addr_t src_addr,
			   void *context);
	ssize_t	(*sendsgl)(struct kfid_ep *ep, const struct scatterlist *sgl,
			   void **desc, size_t count, kfi_addr_t dest_addr,
			   void *context);
};

struct kfi_ops_cm;
struct kfi_ops_rma;
struct kfi_ops_tagged;
struct kfi_ops_atomic;

/**
 * struct kfid_ep - An active endpoint, or a context of a scalable one.
 * @fid: Generic object header.
 * @ops: Control operations.
 * @cm: Connection management operations.
 * @msg: Message operations.
 * @rma: RMA operations.
 * @tagged: Tagged message operations.
 * @atomic: Atomic operations.
 *
 * Calls that change an endpoint's configuration (kfi_control(),
 * kfi_setopt(), kfi_ep_bind()...) must not run concurrently with any other
 * call on the endpoint, because the provider may swap the ops tables to
 * suit the new configuration.  An ops table the endpoint does not support
 * must still be a valid table filled with -KFI_ENOSYS stubs.
 */
struct kfid_ep {
	struct kfid		fid;
	struct kfi_ops_ep	*ops;
	struct kfi_ops_cm	*cm;
	struct kfi_ops_msg	*msg;
	struct kfi_ops_rma	*rma;
	struct kfi_ops_tagged	*tagged;
	struct kfi_ops_atomic	*atomic;
};

/**
 * struct kfid_pep - A passive (listening) endpoint.
 * @fid: Generic object header.
 * @ops: Control operations.
 * @cm: Connection management operations.
 *
 * The leading members match &struct kfid_ep, so calls taking a
 * &struct kfid (kfi_setopt(), kfi_getname()...) work on both.
 */
struct kfid_pep {
	struct kfid		fid;
	struct kfi_ops_ep	*ops;
	struct kfi_ops_cm	*cm;
};

/**
 * struct kfid_stx - A shared transmit context.
 * @fid: Generic object header.
 * @ops: Control operations.
 */
struct kfid_stx {
	struct kfid		fid;
	struct kfi_ops_ep	*ops;
};

/**
 * kfi_passive_ep() - Open a passive endpoint.
 * @fabric: Fabric.
 * @info: Configuration returned by kfi_getinfo().
 * @pep: On success, the new passive endpoint.
 * @context: Consumer context stored in the endpoint.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_passive_ep(struct kfid_fabric *fabric,
				 struct kfi_info *info, struct kfid_pep **pep,
				 void *context)
{
	return fabric->ops->passive_ep(fabric, info, pep, context);
}

/**
 * kfi_endpoint() - Open an active endpoint.
 * @domain: Domain.
 * @info: Configuration returned by kfi_getinfo().
 * @ep: On success, the new endpoint.
 * @context: Consumer context stored in the endpoint.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_endpoint(struct kfid_domain *domain,
			       struct kfi_info *info, struct kfid_ep **ep,
			       void *context)
{
	return domain->ops->endpoint(domain, info, ep, context);
}

/**
 * kfi_scalable_ep() - Open a scalable endpoint.
 * @domain: Domain.
 * @info: Configuration; ep_attr->tx_ctx_cnt and rx_ctx_cnt give the
 *	number of contexts.
 * @sep: On success, the new scalable endpoint.
 * @context: Consumer context stored in the endpoint.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_scalable_ep(struct kfid_domain *domain,
				  struct kfi_info *info, struct kfid_ep **sep,
				  void *context)
{
	return domain->ops->scalable_ep(domain, info, sep, context);
}

/**
 * kfi_ep_bind() - Bind a CQ, counter, EQ or AV to an endpoint.
 * @ep: Endpoint.
 * @bfid: Object to bind.
 * @flags: For CQs and counters: KFI_TRANSMIT, KFI_RECV,
 *	KFI_SELECTIVE_COMPLETION...
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_ep_bind(struct kfid_ep *ep, struct kfid *bfid,
			      uint64_t flags)
{
	return ep->fid.ops->bind(&ep->fid, bfid, flags);
}

/**
 * kfi_pep_bind() - Bind an EQ to a passive endpoint.
 * @pep: Passive endpoint.
 * @bfid: Object to bind.
 * @flags: Bind flags.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_pep_bind(struct kfid_pep *pep, struct kfid *bfid,
			       uint64_t flags)
{
	return pep->fid.ops->bind(&pep->fid, bfid, flags);
}

/**
 * kfi_scalable_ep_bind() - Bind an object (usually an AV) to a scalable
 *	endpoint.
 * @sep: Scalable endpoint.
 * @bfid: Object to bind.
 * @flags: Bind flags.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_scalable_ep_bind(struct kfid_ep *sep, struct kfid *bfid,
				       uint64_t flags)
{
	return sep->fid.ops->bind(&sep->fid, bfid, flags);
}

/**
 * kfi_enable() - Enable an endpoint once its objects are bound.
 * @ep: Endpoint or context.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_enable(struct kfid_ep *ep)
{
	return ep->fid.ops->control(&ep->fid, KFI_ENABLE, NULL);
}

/**
 * kfi_cancel() - Cancel an outstanding operation.
 * @fid: Header of the endpoint or context the operation was posted to.
 * @context: Context of the operation to cancel.
 *
 * A cancelled operation completes with an error entry whose err is
 * KFI_ECANCELED.  An operation that is already finishing may complete
 * normally instead.
 *
 * Context: Process or softirq context, also with spinlocks held; does not
 * sleep.
 * Return: 0 if the cancellation was started, -KFI_ENOENT if no such
 * operation is outstanding, -KFI_EAGAIN to retry later, or another
 * negative error code.
 */
static inline ssize_t kfi_cancel(struct kfid *fid, void *context)
{
	struct kfid_ep *ep = container_of(fid, struct kfid_ep, fid);

	return ep->ops->cancel(fid, context);
}

/**
 * kfi_setopt() - Set an endpoint option.
 * @fid: Header of an active or passive endpoint.
 * @level: Option level, KFI_OPT_ENDPOINT.
 * @optname: Option name, e.g. KFI_OPT_MIN_MULTI_RECV.
 * @optval: New value.
 * @optlen: Size of @optval.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success, -KFI_ENOPROTOOPT for an unknown option, or
 * another negative error code.
 */
static inline int kfi_setopt(struct kfid *fid, int level, int optname,
			     const void *optval, size_t optlen)
{
	struct kfid_ep *ep = container_of(fid, struct kfid_ep, fid);

	return ep->ops->setopt(fid, level, optname, optval, optlen);
}

/**
 * kfi_getopt() - Read an endpoint option.
 * @fid: Header of an active or passive endpoint.
 * @level: Option level, KFI_OPT_ENDPOINT.
 * @optname: Option name.
 * @optval: Buffer for the value.
 * @optlen: In: size of @optval.  Out: size of the value.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success, -KFI_ENOPROTOOPT for an unknown option, or
 * another negative error code.
 */
static inline int kfi_getopt(struct kfid *fid, int level, int optname,
			     void *optval, size_t *optlen)
{
	struct kfid_ep *ep = container_of(fid, struct kfid_ep, fid);

	return ep->ops->getopt(fid, level, optname, optval, optlen);
}

/**
 * kfi_ep_alias() - Create an alias of an endpoint with other flags.
 * @ep: Endpoint.
 * @alias_ep: On success, the alias.
 * @flags: Default operation flags of the alias (e.g. KFI_TRIGGER).
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_ep_alias(struct kfid_ep *ep, struct kfid_ep **alias_ep,
			       uint64_t flags)
{
	struct kfid *fid;
	int ret;

	ret = kfi_alias(&ep->fid, &fid, flags);
	if (!ret)
		*alias_ep = container_of(fid, struct kfid_ep, fid);
	return ret;
}

/**
 * kfi_tx_context() - Open a transmit context of a scalable endpoint.
 * @ep: Scalable endpoint.
 * @index: Context index, below ep_attr->tx_ctx_cnt.
 * @attr: Context attributes, or NULL for the endpoint's.
 * @tx_ep: On success, the context.
 * @context: Consumer context stored in the context.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_tx_context(struct kfid_ep *ep, int index,
				 struct kfi_tx_attr *attr,
				 struct kfid_ep **tx_ep, void *context)
{
	return ep->ops->tx_ctx(ep, index, attr, tx_ep, context);
}

/**
 * kfi_rx_context() - Open a receive context of a scalable endpoint.
 * @ep: Scalable endpoint.
 * @index: Context index, below ep_attr->rx_ctx_cnt; peers reach it through
 *	kfi_rx_addr().
 * @attr: Context attributes, or NULL for the endpoint's.
 * @rx_ep: On success, the context.
 * @context: Consumer context stored in the context.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_rx_context(struct kfid_ep *ep, int index,
				 struct kfi_rx_attr *attr,
				 struct kfid_ep **rx_ep, void *context)
{
	return ep->ops->rx_ctx(ep, index, attr, rx_ep, context);
}

/**
 * kfi_stx_context() - Open a shared transmit context.
 * @domain: Domain.
 * @attr: Context attributes.
 * @stx: On success, the context.
 * @context: Consumer context stored in the context.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_stx_context(struct kfid_domain *domain,
				  struct kfi_tx_attr *attr,
				  struct kfid_stx **stx, void *context)
{
	return domain->ops->stx_ctx(domain, attr, stx, context);
}

/**
 * kfi_srx_context() - Open a shared receive context.
 * @domain: Domain.
 * @attr: Context attributes.
 * @rx_ep: On success, the context.
 * @context: Consumer context stored in the context.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_srx_context(struct kfid_domain *domain,
				  struct kfi_rx_attr *attr,
				  struct kfid_ep **rx_ep, void *context)
{
	return domain->ops->srx_ctx(domain, attr, rx_ep, context);
}

/**
 * kfi_recv() - Post a receive buffer.
 * @ep: Endpoint or receive context.
 * @buf: Buffer.
 * @len: Length of @buf.
 * @desc: MR descriptor of @buf, or NULL.
 * @src_addr: Accept only from this peer (KFI_DIRECTED_RECV), or
 *	KFI_ADDR_UNSPEC.
 * @context: Operation context.
 *
 * Context: Process or softirq context, also with spinlocks held; does not
 * sleep (see "Data-transfer calls").
 * Return: 0 on success, -KFI_EAGAIN if the receive queue is full, or
 * another negative error code.
 */
static inline ssize_t kfi_recv(struct kfid_ep *ep, void *buf, size_t len,
			       void *desc, kfi_addr_t src_addr, void *context)
{
	return ep->msg->recv(ep, buf, len, desc, src_addr, context);
}

/**
 * kfi_recvv() - Post a receive into a kvec array.
 * @ep: Endpoint or receive context.
 * @iov: Array of @count kvecs.
 * @desc: Array of @count MR descriptors, or NULL.
 * @count: Number of segments.
 * @src_addr: Source filter, or KFI_ADDR_UNSPEC.
 * @context: Operation context.
 *
 * Context: Process or softirq context, also with spinlocks held; does not
 * sleep (see "Data-transfer calls").
 * Return: As kfi_recv().
 */
static inline ssize_t kfi_recvv(struct kfid_ep *ep, const struct kvec *iov,
				void **desc, size_t count,
				kfi_addr_t src_addr, void *context)
{
	return ep->msg->recvv(ep, iov, desc, count, src_addr, context);
}

/**
 * kfi_recvbv() - Post a receive into a bio_vec array.
 * @ep: Endpoint or receive context.
 * @biov: Array of @count bio_vecs.
 * @desc: Array of @count MR descriptors, or NULL.
 * @count: Number of segments.
 * @src_addr: Source filter, or KFI_ADDR_UNSPEC.
 * @context: Operation context.
 *
 * Context: Process or softirq context, also with spinlocks held; does not
 * sleep (see "Data-transfer calls").
 * Return: As kfi_recv().
 */
static inline ssize_t kfi_recvbv(struct kfid_ep *ep,
				 const struct bio_vec *biov, void **desc,
				 size_t count, kfi_addr_t src_addr,
				 void *context)
{
	return ep->msg->recvbv(ep, biov, desc, count, src_addr, context);
}

/**
 * kfi_recvsgl() - Post a receive into a DMA-mapped scatterlist.
 * @ep: Endpoint or receive context.
 * @sgl: Scatterlist of @count mapped entries.
 * @desc: Array of @count MR descriptors, or NULL.
 * @count: Number of entries.
 * @src_addr: Source filter, or KFI_ADDR_UNSPEC.
 * @context: Operation context.
 *
 * Added in API 1.7; the wrapper checks that the provider has it.
 *
 * Context: Process or softirq context, also with spinlocks held; does not
 * sleep (see "Data-transfer calls").
 * Return: As kfi_recv(), or -KFI_ENOSYS if unsupported.
 */
static inline ssize_t kfi_recvsgl(struct kfid_ep *ep,
				  const struct scatterlist *sgl, void **desc,
				  size_t count, kfi_addr_t src_addr,
				  void *context)
{
	if (!KFI_CHECK_OP(ep->msg, struct kfi_ops_msg, recvsgl))
		return -KFI_ENOSYS;
	return ep->msg->recvsgl(ep, sgl, desc, count, src_addr, context);
}

/**
 * kfi_recvmsg() - Post a receive described by a kfi_msg.
 * @ep: Endpoint or receive context.
 * @msg: Receive description.
 * @flags: Operation flags (KFI_MULTI_RECV, KFI_COMPLETION...).
 *
 * Context: Process or softirq context, also with spinlocks held; does not
 * sleep (see "Data-transfer calls").
 * Return: As kfi_recv().
 */
static inline ssize_t kfi_recvmsg(struct kfid_ep *ep, const struct kfi_msg *msg,
				  uint64_t flags)
{
	return ep->msg->recvmsg(ep, msg, flags);
}

/**
 * kfi_send() - Send a message from one buffer.
 * @ep: Endpoint or transmit context.
 * @buf: Data.
 * @len: Length of @buf.
 * @desc: MR descriptor of @buf, or NULL.
 * @dest_addr: Destination (ignored on connected endpoints).
 * @context: Operation context.
 *
 * Context: Process or softirq context, also with spinlocks held; does not
 * sleep (see "Data-transfer calls").
 * Return: 0 on success, -KFI_EAGAIN if the transmit queue is full, or
 * another negative error code.
 */
static inline ssize_t kfi_send(struct kfid_ep *ep, const void *buf, size_t len,
			       void *desc, kfi_addr_t dest_addr,
			       void *context)
{
	return ep->msg->send(ep, buf, len, desc, dest_addr, context);
}

/**
 * kfi_sendv() - Send a message gathered from a kvec array.
 * @ep: Endpoint or transmit context.
 * @iov: Array of @count kvecs.
 * @desc: Array of @count MR descriptors, or NULL.
 * @count: Number of segments.
 * @dest_addr: Destination.
 * @context: Operation context.
 *
 * Context: Process or softirq context, also with spinlocks held; does not
 * sleep (see "Data-transfer calls").
 * Return: As kfi_send().
 */
static inline ssize_t kfi_sendv(struct kfid_ep *ep, const struct kvec *iov,
				void **desc, size_t count,
				kfi_addr_t dest_addr, void *context)
{
	return ep->msg->sendv(ep, iov, desc, count, dest_addr, context);
}

/**
 * kfi_sendbv() - Send a message gathered from a bio_vec array.
 * @ep: Endpoint or transmit context.
 * @biov: Array of @count bio_vecs.
 * @desc: Array of @count MR descriptors, or NULL.
 * @count: Number of segments.
 * @dest_addr: Destination.
 * @context: Operation context.
 *
 * Context: Process or softirq context, also with spinlocks held; does not
 * sleep (see "Data-transfer calls").
 * Return: As kfi_send().
 */
static inline ssize_t kfi_sendbv(struct kfid_ep *ep,
				 const struct bio_vec *biov, void **desc,
				 size_t count, kfi_addr_t dest_addr,
				 void *context)
{
	return ep->msg->sendbv(ep, biov, desc, count, dest_addr, context);
}

/**
 * kfi_sendsgl() - Send a message gathered from a DMA-mapped scatterlist.
 * @ep: Endpoint or transmit context.
 * @sgl: Scatterlist of @count mapped entries.
 * @desc: Array of @count MR descriptors, or NULL.
 * @count: Number of entries.
 * @dest_addr: Destination.
 * @context: Operation context.
 *
 * Added in API 1.7; the wrapper checks that the provider has it.
 *
 * Context: Process or softirq context, also with spinlocks held; does not
 * sleep (see "Data-transfer calls").
 * Return: As kfi_send(), or -KFI_ENOSYS if unsupported.
 */
static inline ssize_t kfi_sendsgl(struct kfid_ep *ep,
				  const struct scatterlist *sgl, void **desc,
				  size_t count, kfi_addr_t dest_addr,
				  void *context)
{
	if (!KFI_CHECK_OP(ep->msg, struct kfi_ops_msg, sendsgl))
		return -KFI_ENOSYS;
	return ep->msg->sendsgl(ep, sgl, desc, count, dest_addr, context);
}

/**
 * kfi_sendmsg() - Send a message described by a kfi_msg.
 * @ep: Endpoint or transmit context.
 * @msg: Message description.
 * @flags: Operation flags (KFI_REMOTE_CQ_DATA, KFI_INJECT, KFI_MORE...).
 *
 * Context: Process or softirq context, also with spinlocks held; does not
 * sleep (see "Data-transfer calls").
 * Return: As kfi_send().
 */
static inline ssize_t kfi_sendmsg(struct kfid_ep *ep, const struct kfi_msg *msg,
				  uint64_t flags)
{
	return ep->msg->sendmsg(ep, msg, flags);
}

/**
 * kfi_inject() - Send a small message without a completion.
 * @ep: Endpoint or transmit context.
 * @buf: Data, at most tx_attr->inject_size bytes; reusable on return.
 * @len: Length of @buf.
 * @dest_addr: Destination.
 *
 * Context: Process or softirq context, also with spinlocks held; does not
 * sleep (see "Data-transfer calls").
 * Return: As kfi_send().
 */
static inline ssize_t kfi_inject(struct kfid_ep *ep, const void *buf,
				 size_t len, kfi_addr_t dest_addr)
{
	return ep->msg->inject(ep, buf, len, dest_addr);
}

/**
 * kfi_senddata() - Send a message with remote CQ data.
 * @ep: Endpoint or transmit context.
 * @buf: Data.
 * @len: Length of @buf.
 * @desc: MR descriptor of @buf, or NULL.
 * @data: Remote CQ data delivered in the receiver's completion.
 * @dest_addr: Destination.
 * @context: Operation context.
 *
 * Context: Process or softirq context, also with spinlocks held; does not
 * sleep (see "Data-transfer calls").
 * Return: As kfi_send().
 */
static inline ssize_t kfi_senddata(struct kfid_ep *ep, const void *buf,
				   size_t len, void *desc, uint64_t data,
				   kfi_addr_t dest_addr, void *context)
{
	return ep->msg->senddata(ep, buf, len, desc, data, dest_addr, context);
}

/**
 * kfi_injectdata() - Inject a small message with remote CQ data.
 * @ep: Endpoint or transmit context.
 * @buf: Data, at most tx_attr->inject_size bytes; reusable on return.
 * @len: Length of @buf.
 * @data: Remote CQ data.
 * @dest_addr: Destination.
 *
 * Context: Process or softirq context, also with spinlocks held; does not
 * sleep (see "Data-transfer calls").
 * Return: As kfi_send().
 */
static inline ssize_t kfi_injectdata(struct kfid_ep *ep, const void *buf,
				     size_t len, uint64_t data,
				     kfi_addr_t dest_addr)
{
	return ep->msg->injectdata(ep, buf, len, data, dest_addr);
}

#endif /* _KFI_ENDPOINT_H_ */
