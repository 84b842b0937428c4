// SPDX-License-Identifier: GPL-2.0
/*
 * The provider toolkit's data-transfer entry points: the msg, tagged, RMA
 * and atomic ops tables every provider's endpoints install. Each call,
 * whatever its variant, is described in one struct kfi_util_xfer (its
 * buffers as segments, its memory descriptors and address kept for the
 * provider) and handed to kfi_util_ep_xfer() (kfi_util/ep.rs), which
 * passes it to the provider's queues. Compiled into each provider module (kfi_tcp/kfi_tcp_util.c).
 */
#include <linux/bvec.h>
#include <linux/scatterlist.h>
#include <linux/string.h>
#include <linux/uio.h>

#include <kfi_enosys.h>
#include "util_sys.h"

/*
 * Data transfers: every variant of every call becomes one struct
 * kfi_util_xfer handed to kfi_util_ep_xfer(), whose provider queues
 * validate and queue it. The calls never sleep (kfi_endpoint.h).
 */
static int kfi_util_xfer_segs(struct kfi_util_xfer *x, enum kfi_iov_type type,
			      const void *list, size_t count);

static ssize_t kfi_util_xfer_list(struct kfid_ep *ep, struct kfi_util_xfer *x,
				  enum kfi_iov_type type, const void *list,
				  size_t count)
{
	int ret = kfi_util_xfer_segs(x, type, list, count);

	return ret ? ret : kfi_util_post(ep, x);
}

/* A call with a list of @count buffers and their descriptors @desc. */
static ssize_t kfi_util_xfer_iov(struct kfid_ep *ep, struct kfi_util_xfer *x,
				 enum kfi_iov_type type, const void *list,
				 void **desc, size_t count, kfi_addr_t addr)
{
	x->descv = desc;
	x->addr = addr;
	return kfi_util_xfer_list(ep, x, type, list, count);
}

/* A call with one buffer and its descriptor @desc. */
static ssize_t kfi_util_xfer_buf(struct kfid_ep *ep, struct kfi_util_xfer *x,
				 const void *buf, size_t len, void *desc,
				 kfi_addr_t addr)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };

	x->desc = desc;
	x->addr = addr;
	/* A zero-length transfer may come without a buffer. */
	if (!len) {
		x->nseg = 0;
		return kfi_util_post(ep, x);
	}
	return kfi_util_xfer_list(ep, x, KFI_KVEC, &iov, 1);
}

static int kfi_util_xfer_segs(struct kfi_util_xfer *x, enum kfi_iov_type type,
			      const void *list, size_t count)
{
	int ret;

	if (count > KFI_UTIL_IOV_MAX)
		return -EINVAL;
	if (count > KFI_UTIL_IOV_LIMIT) {
		/* read by the provider during the call */
		if (!list)
			return -EINVAL;
		x->ext_type = type;
		x->ext_desc = list;
		x->nseg = count;
		return 0;
	}
	ret = kfi_util_segs(type, list, count, x->seg);
	if (ret)
		return ret;
	x->nseg = count;
	return 0;
}

/**
 * kfi_util_xfer_build_msg() - Describe a kfi_msg send or receive.
 * @x: Zeroed description; @x->kind set by the caller.
 * @msg: The message.
 * @flags: The operation flags.
 *
 * Also used for deferred work (KFI_OP_SEND, KFI_OP_RECV).
 *
 * Return: 0 or -EINVAL.
 */
int kfi_util_xfer_build_msg(struct kfi_util_xfer *x, const struct kfi_msg *msg,
			    uint64_t flags)
{
	if (!msg)
		return -EINVAL;
	x->descv = msg->desc;
	x->addr = msg->addr;
	x->context = msg->context;
	x->data = msg->data;
	x->flags = flags;
	x->msg_call = true;
	return kfi_util_xfer_segs(x, msg->type, msg->msg_iov, msg->iov_count);
}

/**
 * kfi_util_xfer_build_tagged() - Describe a kfi_msg_tagged transfer.
 * @x: Zeroed description; @x->kind set by the caller.
 * @msg: The message.
 * @flags: The operation flags.
 *
 * Return: 0 or -EINVAL.
 */
int kfi_util_xfer_build_tagged(struct kfi_util_xfer *x,
			       const struct kfi_msg_tagged *msg, uint64_t flags)
{
	if (!msg)
		return -EINVAL;
	x->tag = msg->tag;
	x->ignore = msg->ignore;
	x->descv = msg->desc;
	x->addr = msg->addr;
	x->context = msg->context;
	x->data = msg->data;
	x->flags = flags;
	x->msg_call = true;
	return kfi_util_xfer_segs(x, msg->type, msg->msg_iov, msg->iov_count);
}

/**
 * kfi_util_xfer_build_rma() - Describe a kfi_msg_rma read or write.
 * @x: Zeroed description; @x->kind set by the caller.
 * @msg: The message.
 * @flags: The operation flags.
 *
 * Return: 0 or -EINVAL.
 */
int kfi_util_xfer_build_rma(struct kfi_util_xfer *x,
			    const struct kfi_msg_rma *msg, uint64_t flags)
{
	if (!msg || (msg->rma_iov_count && !msg->rma_iov))
		return -EINVAL;
	if (msg->rma_iov_count > KFI_UTIL_IOV_MAX)
		return -EINVAL;
	if (msg->rma_iov_count > KFI_UTIL_IOV_LIMIT)
		x->rma_ext = msg->rma_iov;
	else
		memcpy(x->rma, msg->rma_iov,
		       msg->rma_iov_count * sizeof(x->rma[0]));
	x->rma_count = msg->rma_iov_count;
	x->descv = msg->desc;
	x->addr = msg->addr;
	x->context = msg->context;
	x->data = msg->data;
	x->flags = flags;
	x->msg_call = true;
	return kfi_util_xfer_segs(x, msg->type, msg->msg_iov, msg->iov_count);
}

static ssize_t kfi_util_xfer_msg(struct kfid_ep *ep, struct kfi_util_xfer *x,
				 const struct kfi_msg *msg, uint64_t flags)
{
	int ret = kfi_util_xfer_build_msg(x, msg, flags);

	return ret ? ret : kfi_util_post(ep, x);
}

#define KFI_UTIL_X(k, ...) (struct kfi_util_xfer){ .kind = (k), __VA_ARGS__ }

static ssize_t kfi_util_recv(struct kfid_ep *ep, void *buf, size_t len,
			     void *desc, kfi_addr_t src_addr, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_RECV, .context = context);

	return kfi_util_xfer_buf(ep, &x, buf, len, desc, src_addr);
}

static ssize_t kfi_util_recvv(struct kfid_ep *ep, const struct kvec *iov,
			      void **desc, size_t count, kfi_addr_t src_addr,
			     void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_RECV, .context = context);

	return kfi_util_xfer_iov(ep, &x, KFI_KVEC, iov, desc, count, src_addr);
}

static ssize_t kfi_util_recvbv(struct kfid_ep *ep, const struct bio_vec *biov,
			       void **desc, size_t count, kfi_addr_t src_addr,
			      void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_RECV, .context = context);

	return kfi_util_xfer_iov(ep, &x, KFI_BVEC, biov, desc, count, src_addr);
}

static ssize_t kfi_util_recvsgl(struct kfid_ep *ep,
				const struct scatterlist *sgl, void **desc,
			       size_t count, kfi_addr_t src_addr, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_RECV, .context = context);

	return kfi_util_xfer_iov(ep, &x, KFI_SGL, sgl, desc, count, src_addr);
}

static ssize_t kfi_util_recvmsg(struct kfid_ep *ep, const struct kfi_msg *msg,
				uint64_t flags)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_RECV);

	return kfi_util_xfer_msg(ep, &x, msg, flags);
}

static ssize_t kfi_util_send(struct kfid_ep *ep, const void *buf, size_t len,
			     void *desc, kfi_addr_t dest_addr, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_SEND, .context = context);

	return kfi_util_xfer_buf(ep, &x, buf, len, desc, dest_addr);
}

static ssize_t kfi_util_sendv(struct kfid_ep *ep, const struct kvec *iov,
			      void **desc, size_t count, kfi_addr_t dest_addr,
			     void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_SEND, .context = context);

	return kfi_util_xfer_iov(ep, &x, KFI_KVEC, iov, desc, count, dest_addr);
}

static ssize_t kfi_util_sendbv(struct kfid_ep *ep, const struct bio_vec *biov,
			       void **desc, size_t count, kfi_addr_t dest_addr,
			      void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_SEND, .context = context);

	return kfi_util_xfer_iov(ep, &x, KFI_BVEC, biov, desc, count, dest_addr);
}

static ssize_t kfi_util_sendsgl(struct kfid_ep *ep,
				const struct scatterlist *sgl, void **desc,
			       size_t count, kfi_addr_t dest_addr,
			       void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_SEND, .context = context);

	return kfi_util_xfer_iov(ep, &x, KFI_SGL, sgl, desc, count, dest_addr);
}

static ssize_t kfi_util_sendmsg(struct kfid_ep *ep, const struct kfi_msg *msg,
				uint64_t flags)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_SEND);

	return kfi_util_xfer_msg(ep, &x, msg, flags);
}

static ssize_t kfi_util_inject(struct kfid_ep *ep, const void *buf, size_t len,
			       kfi_addr_t dest_addr)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_SEND, .flags = KFI_INJECT,
					  .no_entry = true);

	return kfi_util_xfer_buf(ep, &x, buf, len, NULL, dest_addr);
}

static ssize_t kfi_util_senddata(struct kfid_ep *ep, const void *buf,
				 size_t len, void *desc, uint64_t data,
				kfi_addr_t dest_addr, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_SEND, .context = context,
					  .data = data,
					  .flags = KFI_REMOTE_CQ_DATA);

	return kfi_util_xfer_buf(ep, &x, buf, len, desc, dest_addr);
}

static ssize_t kfi_util_injectdata(struct kfid_ep *ep, const void *buf,
				   size_t len, uint64_t data,
				  kfi_addr_t dest_addr)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_SEND, .data = data,
					  .flags = KFI_INJECT |
						   KFI_REMOTE_CQ_DATA,
					  .no_entry = true);

	return kfi_util_xfer_buf(ep, &x, buf, len, NULL, dest_addr);
}

static ssize_t kfi_util_trecv(struct kfid_ep *ep, void *buf, size_t len,
			      void *desc, kfi_addr_t src_addr, uint64_t tag,
			     uint64_t ignore, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_TRECV, .context = context,
					  .tag = tag, .ignore = ignore);

	return kfi_util_xfer_buf(ep, &x, buf, len, desc, src_addr);
}

static ssize_t kfi_util_trecvv(struct kfid_ep *ep, const struct kvec *iov,
			       void **desc, size_t count, kfi_addr_t src_addr,
			      uint64_t tag, uint64_t ignore, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_TRECV, .context = context,
					  .tag = tag, .ignore = ignore);

	return kfi_util_xfer_iov(ep, &x, KFI_KVEC, iov, desc, count, src_addr);
}

static ssize_t kfi_util_trecvbv(struct kfid_ep *ep, const struct bio_vec *biov,
				void **desc, size_t count, kfi_addr_t src_addr,
			       uint64_t tag, uint64_t ignore, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_TRECV, .context = context,
					  .tag = tag, .ignore = ignore);

	return kfi_util_xfer_iov(ep, &x, KFI_BVEC, biov, desc, count, src_addr);
}

static ssize_t kfi_util_trecvsgl(struct kfid_ep *ep,
				 const struct scatterlist *sgl, void **desc,
				size_t count, kfi_addr_t src_addr, uint64_t tag,
				uint64_t ignore, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_TRECV, .context = context,
					  .tag = tag, .ignore = ignore);

	return kfi_util_xfer_iov(ep, &x, KFI_SGL, sgl, desc, count, src_addr);
}

static ssize_t kfi_util_trecvmsg(struct kfid_ep *ep,
				 const struct kfi_msg_tagged *msg,
				uint64_t flags)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_TRECV);
	int ret = kfi_util_xfer_build_tagged(&x, msg, flags);

	return ret ? ret : kfi_util_post(ep, &x);
}

static ssize_t kfi_util_tsend(struct kfid_ep *ep, const void *buf, size_t len,
			      void *desc, kfi_addr_t dest_addr, uint64_t tag,
			     void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_TSEND, .context = context,
					  .tag = tag);

	return kfi_util_xfer_buf(ep, &x, buf, len, desc, dest_addr);
}

static ssize_t kfi_util_tsendv(struct kfid_ep *ep, const struct kvec *iov,
			       void **desc, size_t count, kfi_addr_t dest_addr,
			      uint64_t tag, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_TSEND, .context = context,
					  .tag = tag);

	return kfi_util_xfer_iov(ep, &x, KFI_KVEC, iov, desc, count, dest_addr);
}

static ssize_t kfi_util_tsendbv(struct kfid_ep *ep, const struct bio_vec *biov,
				void **desc, size_t count, kfi_addr_t dest_addr,
			       uint64_t tag, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_TSEND, .context = context,
					  .tag = tag);

	return kfi_util_xfer_iov(ep, &x, KFI_BVEC, biov, desc, count, dest_addr);
}

static ssize_t kfi_util_tsendsgl(struct kfid_ep *ep,
				 const struct scatterlist *sgl, void **desc,
				size_t count, kfi_addr_t dest_addr,
				uint64_t tag, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_TSEND, .context = context,
					  .tag = tag);

	return kfi_util_xfer_iov(ep, &x, KFI_SGL, sgl, desc, count, dest_addr);
}

static ssize_t kfi_util_tsendmsg(struct kfid_ep *ep,
				 const struct kfi_msg_tagged *msg,
				uint64_t flags)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_TSEND);
	int ret = kfi_util_xfer_build_tagged(&x, msg, flags);

	x.ignore = 0;
	return ret ? ret : kfi_util_post(ep, &x);
}

static ssize_t kfi_util_tinject(struct kfid_ep *ep, const void *buf,
				size_t len, kfi_addr_t dest_addr, uint64_t tag)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_TSEND, .tag = tag,
					  .flags = KFI_INJECT,
					  .no_entry = true);

	return kfi_util_xfer_buf(ep, &x, buf, len, NULL, dest_addr);
}

static ssize_t kfi_util_tsenddata(struct kfid_ep *ep, const void *buf,
				  size_t len, void *desc, uint64_t data,
				 kfi_addr_t dest_addr, uint64_t tag,
				 void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_TSEND, .context = context,
					  .tag = tag, .data = data,
					  .flags = KFI_REMOTE_CQ_DATA);

	return kfi_util_xfer_buf(ep, &x, buf, len, desc, dest_addr);
}

static ssize_t kfi_util_tinjectdata(struct kfid_ep *ep, const void *buf,
				    size_t len, uint64_t data,
				   kfi_addr_t dest_addr, uint64_t tag)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_TSEND, .tag = tag,
					  .data = data,
					  .flags = KFI_INJECT |
						   KFI_REMOTE_CQ_DATA,
					  .no_entry = true);

	return kfi_util_xfer_buf(ep, &x, buf, len, NULL, dest_addr);
}

static ssize_t kfi_util_rma_msg(struct kfid_ep *ep, struct kfi_util_xfer *x,
				const struct kfi_msg_rma *msg, uint64_t flags)
{
	int ret = kfi_util_xfer_build_rma(x, msg, flags);

	return ret ? ret : kfi_util_post(ep, x);
}

/* One remote region covering the whole local buffer. */
#define KFI_UTIL_RMA(k, a, key_, ...)					\
	KFI_UTIL_X(k, .rma = { { .addr = (a), .key = (key_) } },		\
		  .rma_count = 1, .rma_whole = true, __VA_ARGS__)

static ssize_t kfi_util_read(struct kfid_ep *ep, void *buf, size_t len,
			     void *desc, kfi_addr_t src_addr, uint64_t addr,
			    uint64_t key, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_RMA(KFI_UTIL_X_READ, addr, key,
					    .context = context);

	return kfi_util_xfer_buf(ep, &x, buf, len, desc, src_addr);
}

static ssize_t kfi_util_readv(struct kfid_ep *ep, const struct kvec *iov,
			      void **desc, size_t count, kfi_addr_t src_addr,
			     uint64_t addr, uint64_t key, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_RMA(KFI_UTIL_X_READ, addr, key,
					    .context = context);

	return kfi_util_xfer_iov(ep, &x, KFI_KVEC, iov, desc, count, src_addr);
}

static ssize_t kfi_util_readbv(struct kfid_ep *ep, const struct bio_vec *biov,
			       void **desc, size_t count, kfi_addr_t src_addr,
			      uint64_t addr, uint64_t key, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_RMA(KFI_UTIL_X_READ, addr, key,
					    .context = context);

	return kfi_util_xfer_iov(ep, &x, KFI_BVEC, biov, desc, count, src_addr);
}

static ssize_t kfi_util_readsgl(struct kfid_ep *ep,
				const struct scatterlist *sgl, void **desc,
			       size_t count, kfi_addr_t src_addr,
			       uint64_t addr, uint64_t key, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_RMA(KFI_UTIL_X_READ, addr, key,
					    .context = context);

	return kfi_util_xfer_iov(ep, &x, KFI_SGL, sgl, desc, count, src_addr);
}

static ssize_t kfi_util_readmsg(struct kfid_ep *ep,
				const struct kfi_msg_rma *msg, uint64_t flags)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_READ);

	return kfi_util_rma_msg(ep, &x, msg, flags);
}

static ssize_t kfi_util_write(struct kfid_ep *ep, const void *buf, size_t len,
			      void *desc, kfi_addr_t dest_addr, uint64_t addr,
			     uint64_t key, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_RMA(KFI_UTIL_X_WRITE, addr, key,
					    .context = context);

	return kfi_util_xfer_buf(ep, &x, buf, len, desc, dest_addr);
}

static ssize_t kfi_util_writev(struct kfid_ep *ep, const struct kvec *iov,
			       void **desc, size_t count, kfi_addr_t dest_addr,
			      uint64_t addr, uint64_t key, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_RMA(KFI_UTIL_X_WRITE, addr, key,
					    .context = context);

	return kfi_util_xfer_iov(ep, &x, KFI_KVEC, iov, desc, count, dest_addr);
}

static ssize_t kfi_util_writebv(struct kfid_ep *ep, const struct bio_vec *biov,
				void **desc, size_t count, kfi_addr_t dest_addr,
			       uint64_t addr, uint64_t key, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_RMA(KFI_UTIL_X_WRITE, addr, key,
					    .context = context);

	return kfi_util_xfer_iov(ep, &x, KFI_BVEC, biov, desc, count, dest_addr);
}

static ssize_t kfi_util_writesgl(struct kfid_ep *ep,
				 const struct scatterlist *sgl, void **desc,
				size_t count, kfi_addr_t dest_addr,
				uint64_t addr, uint64_t key, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_RMA(KFI_UTIL_X_WRITE, addr, key,
					    .context = context);

	return kfi_util_xfer_iov(ep, &x, KFI_SGL, sgl, desc, count, dest_addr);
}

static ssize_t kfi_util_writemsg(struct kfid_ep *ep,
				 const struct kfi_msg_rma *msg, uint64_t flags)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_WRITE);

	return kfi_util_rma_msg(ep, &x, msg, flags);
}

static ssize_t kfi_util_inject_write(struct kfid_ep *ep, const void *buf,
				     size_t len, kfi_addr_t dest_addr,
				    uint64_t addr, uint64_t key)
{
	struct kfi_util_xfer x = KFI_UTIL_RMA(KFI_UTIL_X_WRITE, addr, key,
					    .flags = KFI_INJECT,
					    .no_entry = true);

	return kfi_util_xfer_buf(ep, &x, buf, len, NULL, dest_addr);
}

static ssize_t kfi_util_writedata(struct kfid_ep *ep, const void *buf,
				  size_t len, void *desc, uint64_t data,
				 kfi_addr_t dest_addr, uint64_t addr,
				 uint64_t key, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_RMA(KFI_UTIL_X_WRITE, addr, key,
					    .context = context, .data = data,
					    .flags = KFI_REMOTE_CQ_DATA);

	return kfi_util_xfer_buf(ep, &x, buf, len, desc, dest_addr);
}

static ssize_t kfi_util_inject_writedata(struct kfid_ep *ep, const void *buf,
					 size_t len, uint64_t data,
					kfi_addr_t dest_addr, uint64_t addr,
					uint64_t key)
{
	struct kfi_util_xfer x = KFI_UTIL_RMA(KFI_UTIL_X_WRITE, addr, key,
					    .data = data,
					    .flags = KFI_INJECT |
						     KFI_REMOTE_CQ_DATA,
					    .no_entry = true);

	return kfi_util_xfer_buf(ep, &x, buf, len, NULL, dest_addr);
}

struct kfi_ops_msg kfi_util_ep_msg_ops = {
	.size = sizeof(struct kfi_ops_msg),
	.recv = kfi_util_recv,
	.recvv = kfi_util_recvv,
	.recvbv = kfi_util_recvbv,
	.recvmsg = kfi_util_recvmsg,
	.send = kfi_util_send,
	.sendv = kfi_util_sendv,
	.sendbv = kfi_util_sendbv,
	.sendmsg = kfi_util_sendmsg,
	.inject = kfi_util_inject,
	.senddata = kfi_util_senddata,
	.injectdata = kfi_util_injectdata,
	.recvsgl = kfi_util_recvsgl,
	.sendsgl = kfi_util_sendsgl,
};

struct kfi_ops_rma kfi_util_ep_rma_ops = {
	.size = sizeof(struct kfi_ops_rma),
	.read = kfi_util_read,
	.readv = kfi_util_readv,
	.readbv = kfi_util_readbv,
	.readmsg = kfi_util_readmsg,
	.write = kfi_util_write,
	.writev = kfi_util_writev,
	.writebv = kfi_util_writebv,
	.writemsg = kfi_util_writemsg,
	.inject = kfi_util_inject_write,
	.writedata = kfi_util_writedata,
	.injectdata = kfi_util_inject_writedata,
	.readsgl = kfi_util_readsgl,
	.writesgl = kfi_util_writesgl,
};

struct kfi_ops_tagged kfi_util_ep_tagged_ops = {
	.size = sizeof(struct kfi_ops_tagged),
	.recv = kfi_util_trecv,
	.recvv = kfi_util_trecvv,
	.recvbv = kfi_util_trecvbv,
	.recvmsg = kfi_util_trecvmsg,
	.send = kfi_util_tsend,
	.sendv = kfi_util_tsendv,
	.sendbv = kfi_util_tsendbv,
	.sendmsg = kfi_util_tsendmsg,
	.inject = kfi_util_tinject,
	.senddata = kfi_util_tsenddata,
	.injectdata = kfi_util_tinjectdata,
	.recvsgl = kfi_util_trecvsgl,
	.sendsgl = kfi_util_tsendsgl,
};

/*
 * Atomics. The operand is the transfer's buffer (count elements of the
 * datatype; none for KFI_ATOMIC_READ), @rma[0] the remote elements (len
 * in bytes), @result and @compare one buffer each. Lists of operands
 * (kfi_ioc arrays) become kvec segments; a result or compare list must be
 * one buffer. Which datatypes, operations and counts work is the
 * provider's (kfi_util_atomic_valid()).
 */

/**
 * kfi_util_atomic_size() - Bytes of one element of an atomic datatype.
 * @datatype: &enum kfi_datatype.
 *
 * Return: the size, or 0 for an unknown datatype.
 */
size_t kfi_util_atomic_size(int datatype)
{
	switch (datatype) {
	case KFI_INT8:
	case KFI_UINT8:
		return 1;
	case KFI_INT16:
	case KFI_UINT16:
		return 2;
	case KFI_INT32:
	case KFI_UINT32:
	case KFI_FLOAT:
		return 4;
	case KFI_INT64:
	case KFI_UINT64:
	case KFI_DOUBLE:
	case KFI_FLOAT_COMPLEX:
		return 8;
	case KFI_DOUBLE_COMPLEX:
	case KFI_LONG_DOUBLE:
		return 16;
	case KFI_LONG_DOUBLE_COMPLEX:
		return 32;
	default:
		return 0;
	}
}

/**
 * kfi_util_atomics() - Whether the provider does atomics at all
 *	(kfi_prov_atomics, for the Rust side).
 *
 * Return: kfi_prov_atomics.
 */
bool kfi_util_atomics(void)
{
	return kfi_prov_atomics;
}

/* The byte length of @count elements of @x's datatype into @len. */
static int kfi_util_atomic_len(const struct kfi_util_xfer *x, size_t count,
			       size_t *len)
{
	size_t size = kfi_util_atomic_size(x->atomic_type);

	if (!kfi_prov_atomics)
		return -KFI_ENOSYS;
	if (!size || x->atomic_op < 0 || x->atomic_op >= KFI_ATOMIC_OP_LAST ||
	    count > SIZE_MAX / size)
		return -EINVAL;
	*len = count * size;
	return 0;
}

/* One buffer of a result or compare list (@n entries) into @out. */
static int kfi_util_atomic_one(const struct kfi_ioc *iov, size_t n,
			       void **out)
{
	if (!n)
		return 0;
	if (n != 1 || !iov)
		return -EINVAL;
	*out = iov->addr;
	return 0;
}

/* Operands @iov (@count kfi_ioc) as the transfer's kvec segments. */
static int kfi_util_atomic_iov(struct kfi_util_xfer *x,
			       const struct kfi_ioc *iov, size_t count,
			       size_t *total)
{
	struct kvec kv[KFI_UTIL_IOV_LIMIT];
	size_t i, len;
	int ret;

	*total = 0;
	if (count > KFI_UTIL_IOV_LIMIT || (count && !iov))
		return -EINVAL;
	for (i = 0; i < count; i++) {
		ret = kfi_util_atomic_len(x, iov[i].count, &len);
		if (ret)
			return ret;
		kv[i] = (struct kvec){ .iov_base = iov[i].addr,
				       .iov_len = len };
		*total += len;
	}
	return kfi_util_xfer_segs(x, KFI_KVEC, kv, count);
}

/**
 * kfi_util_xfer_build_atomic() - Describe a kfi_msg_atomic operation.
 * @x: Zeroed description; @x->kind set by the caller (KFI_UTIL_X_ATOMIC,
 *	_FATOMIC or _CATOMIC).
 * @msg: The operation (one remote segment).
 * @comparev: Compare operands (_CATOMIC; one buffer).
 * @compare_count: Their number.
 * @resultv: Result buffers (_FATOMIC, _CATOMIC; one buffer).
 * @result_count: Their number.
 * @flags: The operation flags.
 *
 * Return: 0 or -EINVAL.
 */
int kfi_util_xfer_build_atomic(struct kfi_util_xfer *x,
			       const struct kfi_msg_atomic *msg,
			       const struct kfi_ioc *comparev,
			       size_t compare_count, struct kfi_ioc *resultv,
			       size_t result_count, uint64_t flags)
{
	void *compare = NULL;
	size_t total, rlen;
	int ret;

	if (!msg || msg->rma_iov_count != 1 || !msg->rma_iov)
		return -EINVAL;
	x->atomic_type = msg->datatype;
	x->atomic_op = msg->op;
	ret = kfi_util_atomic_len(x, msg->rma_iov->count, &rlen);
	if (!ret)
		ret = kfi_util_atomic_one(resultv, result_count, &x->result);
	if (!ret)
		ret = kfi_util_atomic_one(comparev, compare_count, &compare);
	if (!ret)
		ret = kfi_util_atomic_iov(x, msg->msg_iov, msg->iov_count,
					  &total);
	if (ret)
		return ret;
	x->compare = compare;
	x->rma[0] = (struct kfi_rma_iov){ .addr = msg->rma_iov->addr,
					  .len = rlen,
					  .key = msg->rma_iov->key };
	x->rma_count = 1;
	x->descv = msg->desc;
	x->addr = msg->addr;
	x->context = msg->context;
	x->data = msg->data;
	x->flags = flags;
	x->msg_call = true;
	return 0;
}

/* A single-buffer atomic: @count elements at @buf (NULL: none). */
static ssize_t kfi_util_atomic_buf(struct kfid_ep *ep, struct kfi_util_xfer *x,
				   const void *buf, size_t count, void *desc,
				   kfi_addr_t addr)
{
	size_t len;
	int ret = kfi_util_atomic_len(x, count, &len);

	if (ret)
		return ret;
	x->rma[0].len = len;
	x->rma_count = 1;
	return kfi_util_xfer_buf(ep, x, buf, buf ? len : 0, desc, addr);
}

/* A list atomic: operands @iov, the remote elements as many. */
static ssize_t kfi_util_atomic_list(struct kfid_ep *ep,
				    struct kfi_util_xfer *x,
				    const struct kfi_ioc *iov, void **desc,
				    size_t count, kfi_addr_t addr)
{
	size_t total;
	int ret;

	if (!kfi_prov_atomics)
		return -KFI_ENOSYS;
	ret = kfi_util_atomic_iov(x, iov, count, &total);
	if (ret)
		return ret;
	x->rma[0].len = total;
	x->rma_count = 1;
	x->descv = desc;
	x->addr = addr;
	return kfi_util_post(ep, x);
}

#define KFI_UTIL_AX(k, a, key_, dt, op_, ...)				\
	KFI_UTIL_X(k, .rma = { { .addr = (a), .key = (key_) } },		\
		   .atomic_type = (dt), .atomic_op = (op_), __VA_ARGS__)

static ssize_t kfi_util_atomic(struct kfid_ep *ep, const void *buf,
			       size_t count, void *desc, kfi_addr_t dest_addr,
			       uint64_t addr, uint64_t key,
			       enum kfi_datatype datatype, enum kfi_op op,
			       void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_AX(KFI_UTIL_X_ATOMIC, addr, key,
					     datatype, op,
					     .context = context);

	return kfi_util_atomic_buf(ep, &x, buf, count, desc, dest_addr);
}

static ssize_t kfi_util_atomicv(struct kfid_ep *ep, const struct kfi_ioc *iov,
				void **desc, size_t count,
				kfi_addr_t dest_addr, uint64_t addr,
				uint64_t key, enum kfi_datatype datatype,
				enum kfi_op op, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_AX(KFI_UTIL_X_ATOMIC, addr, key,
					     datatype, op,
					     .context = context);

	return kfi_util_atomic_list(ep, &x, iov, desc, count, dest_addr);
}

static ssize_t kfi_util_atomicmsg(struct kfid_ep *ep,
				  const struct kfi_msg_atomic *msg,
				  uint64_t flags)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_ATOMIC);
	int ret = kfi_util_xfer_build_atomic(&x, msg, NULL, 0, NULL, 0, flags);

	return ret ? ret : kfi_util_post(ep, &x);
}

static ssize_t kfi_util_inject_atomic(struct kfid_ep *ep, const void *buf,
				      size_t count, kfi_addr_t dest_addr,
				      uint64_t addr, uint64_t key,
				      enum kfi_datatype datatype,
				      enum kfi_op op)
{
	struct kfi_util_xfer x = KFI_UTIL_AX(KFI_UTIL_X_ATOMIC, addr, key,
					     datatype, op,
					     .flags = KFI_INJECT,
					     .no_entry = true);

	return kfi_util_atomic_buf(ep, &x, buf, count, NULL, dest_addr);
}

static ssize_t kfi_util_fetch_atomic(struct kfid_ep *ep, const void *buf,
				     size_t count, void *desc, void *result,
				     void *result_desc, kfi_addr_t dest_addr,
				     uint64_t addr, uint64_t key,
				     enum kfi_datatype datatype,
				     enum kfi_op op, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_AX(KFI_UTIL_X_FATOMIC, addr, key,
					     datatype, op, .result = result,
					     .context = context);

	return kfi_util_atomic_buf(ep, &x, buf, count, desc, dest_addr);
}

static ssize_t kfi_util_fetch_atomicv(struct kfid_ep *ep,
				      const struct kfi_ioc *iov, void **desc,
				      size_t count, struct kfi_ioc *resultv,
				      void **result_desc, size_t result_count,
				      kfi_addr_t dest_addr, uint64_t addr,
				      uint64_t key, enum kfi_datatype datatype,
				      enum kfi_op op, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_AX(KFI_UTIL_X_FATOMIC, addr, key,
					     datatype, op,
					     .context = context);
	int ret = kfi_util_atomic_one(resultv, result_count, &x.result);

	return ret ? ret : kfi_util_atomic_list(ep, &x, iov, desc, count,
						dest_addr);
}

static ssize_t kfi_util_fetch_atomicmsg(struct kfid_ep *ep,
					const struct kfi_msg_atomic *msg,
					struct kfi_ioc *resultv,
					void **result_desc,
					size_t result_count, uint64_t flags)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_FATOMIC);
	int ret = kfi_util_xfer_build_atomic(&x, msg, NULL, 0, resultv,
					     result_count, flags);

	return ret ? ret : kfi_util_post(ep, &x);
}

static ssize_t kfi_util_compare_atomic(struct kfid_ep *ep, const void *buf,
				       size_t count, void *desc,
				       const void *compare, void *compare_desc,
				       void *result, void *result_desc,
				       kfi_addr_t dest_addr, uint64_t addr,
				       uint64_t key,
				       enum kfi_datatype datatype,
				       enum kfi_op op, void *context)
{
	struct kfi_util_xfer x = KFI_UTIL_AX(KFI_UTIL_X_CATOMIC, addr, key,
					     datatype, op, .result = result,
					     .compare = compare,
					     .context = context);

	return kfi_util_atomic_buf(ep, &x, buf, count, desc, dest_addr);
}

static ssize_t kfi_util_compare_atomicv(struct kfid_ep *ep,
					const struct kfi_ioc *iov, void **desc,
					size_t count,
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
	struct kfi_util_xfer x = KFI_UTIL_AX(KFI_UTIL_X_CATOMIC, addr, key,
					     datatype, op,
					     .context = context);
	void *compare = NULL;
	int ret = kfi_util_atomic_one(resultv, result_count, &x.result);

	if (!ret)
		ret = kfi_util_atomic_one(comparev, compare_count, &compare);
	if (ret)
		return ret;
	x.compare = compare;
	return kfi_util_atomic_list(ep, &x, iov, desc, count, dest_addr);
}

static ssize_t kfi_util_compare_atomicmsg(struct kfid_ep *ep,
					  const struct kfi_msg_atomic *msg,
					  const struct kfi_ioc *comparev,
					  void **compare_desc,
					  size_t compare_count,
					  struct kfi_ioc *resultv,
					  void **result_desc,
					  size_t result_count, uint64_t flags)
{
	struct kfi_util_xfer x = KFI_UTIL_X(KFI_UTIL_X_CATOMIC);
	int ret = kfi_util_xfer_build_atomic(&x, msg, comparev, compare_count,
					     resultv, result_count, flags);

	return ret ? ret : kfi_util_post(ep, &x);
}

static int kfi_util_atomic_writevalid(struct kfid_ep *ep,
				      enum kfi_datatype datatype,
				      enum kfi_op op, size_t *count)
{
	return kfi_util_atomic_valid(ep, KFI_UTIL_X_ATOMIC, datatype, op,
				     count);
}

static int kfi_util_atomic_readwritevalid(struct kfid_ep *ep,
					  enum kfi_datatype datatype,
					  enum kfi_op op, size_t *count)
{
	return kfi_util_atomic_valid(ep, KFI_UTIL_X_FATOMIC, datatype, op,
				     count);
}

static int kfi_util_atomic_compwritevalid(struct kfid_ep *ep,
					  enum kfi_datatype datatype,
					  enum kfi_op op, size_t *count)
{
	return kfi_util_atomic_valid(ep, KFI_UTIL_X_CATOMIC, datatype, op,
				     count);
}

struct kfi_ops_atomic kfi_util_ep_atomic_ops = {
	.size = sizeof(struct kfi_ops_atomic),
	.write = kfi_util_atomic,
	.writev = kfi_util_atomicv,
	.writemsg = kfi_util_atomicmsg,
	.inject = kfi_util_inject_atomic,
	.readwrite = kfi_util_fetch_atomic,
	.readwritev = kfi_util_fetch_atomicv,
	.readwritemsg = kfi_util_fetch_atomicmsg,
	.compwrite = kfi_util_compare_atomic,
	.compwritev = kfi_util_compare_atomicv,
	.compwritemsg = kfi_util_compare_atomicmsg,
	.writevalid = kfi_util_atomic_writevalid,
	.readwritevalid = kfi_util_atomic_readwritevalid,
	.compwritevalid = kfi_util_atomic_compwritevalid,
};
