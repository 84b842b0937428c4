/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfabric "not supported" operation stubs for providers.
 *
 * The ops table contract (see <kfabric.h>) requires every ops table to set
 * .size and to fill in every function pointer.  A provider that does not
 * implement an operation points it at the matching kfi_no_*() stub below,
 * which ignores its arguments and returns -KFI_ENOSYS.  Each stub has
 * exactly the type of the ops table member it stands in for, e.g.
 *
 *	static struct kfi_ops_cm my_cm_ops = {
 *		.size = sizeof(struct kfi_ops_cm),
 *		.setname = kfi_no_setname,
 *		...
 *		.join = kfi_no_join,
 *	};
 *
 * The stubs never sleep and may be called from any context.
 */

#ifndef _KFI_ENOSYS_H_
#define _KFI_ENOSYS_H_

#include <kfabric.h>
#include <kfi_errno.h>
#include <kfi_domain.h>
#include <kfi_prov.h>
#include <kfi_atomic.h>
#include <kfi_rma.h>
#include <kfi_tagged.h>
#include <kfi_cm.h>

/* The stubs deliberately ignore every argument. */
__diag_push();
__diag_ignore_all("-Wunused-parameter",
		  "kfi_no_*() stubs ignore their arguments");

/* Generic object operations: struct kfi_ops */

/**
 * kfi_no_bind() - Stub for &struct kfi_ops.bind.
 * @fid: Ignored.
 * @bfid: Ignored.
 * @flags: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_bind(struct kfid *fid, struct kfid *bfid,
			      uint64_t flags)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_control() - Stub for &struct kfi_ops.control.
 * @fid: Ignored.
 * @command: Ignored.
 * @arg: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_control(struct kfid *fid, int command, void *arg)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_ops_open() - Stub for &struct kfi_ops.ops_open.
 * @fid: Ignored.
 * @name: Ignored.
 * @flags: Ignored.
 * @ops: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_ops_open(struct kfid *fid, const char *name,
				  uint64_t flags, void **ops, void *context)
{
	return -KFI_ENOSYS;
}

/* Fabric operations: struct kfi_ops_fabric */

/**
 * kfi_no_domain() - Stub for &struct kfi_ops_fabric.domain.
 * @fabric: Ignored.
 * @info: Ignored.
 * @dom: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_domain(struct kfid_fabric *fabric,
				struct kfi_info *info, struct kfid_domain **dom,
				void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_passive_ep() - Stub for &struct kfi_ops_fabric.passive_ep.
 * @fabric: Ignored.
 * @info: Ignored.
 * @pep: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_passive_ep(struct kfid_fabric *fabric,
				    struct kfi_info *info,
				    struct kfid_pep **pep, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_eq_open() - Stub for &struct kfi_ops_fabric.eq_open.
 * @fabric: Ignored.
 * @attr: Ignored.
 * @eq: Ignored.
 * @event_handler: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_eq_open(struct kfid_fabric *fabric,
				 struct kfi_eq_attr *attr, struct kfid_eq **eq,
				 kfi_event_handler event_handler, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_wait_open() - Stub for &struct kfi_ops_fabric.wait_open.
 * @fabric: Ignored.
 * @attr: Ignored.
 * @waitset: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_wait_open(struct kfid_fabric *fabric,
				   struct kfi_wait_attr *attr,
				   struct kfid_wait **waitset)
{
	return -KFI_ENOSYS;
}

/* Domain operations: struct kfi_ops_domain */

/**
 * kfi_no_av_open() - Stub for &struct kfi_ops_domain.av_open.
 * @domain: Ignored.
 * @attr: Ignored.
 * @av: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_av_open(struct kfid_domain *domain,
				 struct kfi_av_attr *attr, struct kfid_av **av,
				 void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_cq_open() - Stub for &struct kfi_ops_domain.cq_open.
 * @domain: Ignored.
 * @attr: Ignored.
 * @cq: Ignored.
 * @comp_handler: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_cq_open(struct kfid_domain *domain,
				 struct kfi_cq_attr *attr, struct kfid_cq **cq,
				 kfi_comp_handler comp_handler, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_endpoint() - Stub for &struct kfi_ops_domain.endpoint.
 * @domain: Ignored.
 * @info: Ignored.
 * @ep: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_endpoint(struct kfid_domain *domain,
				  struct kfi_info *info, struct kfid_ep **ep,
				  void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_scalable_ep() - Stub for &struct kfi_ops_domain.scalable_ep.
 * @domain: Ignored.
 * @info: Ignored.
 * @sep: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_scalable_ep(struct kfid_domain *domain,
				     struct kfi_info *info,
				     struct kfid_ep **sep, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_cntr_open() - Stub for &struct kfi_ops_domain.cntr_open.
 * @domain: Ignored.
 * @attr: Ignored.
 * @cntr: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_cntr_open(struct kfid_domain *domain,
				   struct kfi_cntr_attr *attr,
				   struct kfid_cntr **cntr, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_poll_open() - Stub for &struct kfi_ops_domain.poll_open.
 * @domain: Ignored.
 * @attr: Ignored.
 * @pollset: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_poll_open(struct kfid_domain *domain,
				   struct kfi_poll_attr *attr,
				   struct kfid_poll **pollset)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_stx_ctx() - Stub for &struct kfi_ops_domain.stx_ctx.
 * @domain: Ignored.
 * @attr: Ignored.
 * @stx: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_stx_ctx(struct kfid_domain *domain,
				 struct kfi_tx_attr *attr,
				 struct kfid_stx **stx, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_srx_ctx() - Stub for &struct kfi_ops_domain.srx_ctx.
 * @domain: Ignored.
 * @attr: Ignored.
 * @rx_ep: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_srx_ctx(struct kfid_domain *domain,
				 struct kfi_rx_attr *attr,
				 struct kfid_ep **rx_ep, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_query_atomic() - Stub for &struct kfi_ops_domain.query_atomic.
 * @domain: Ignored.
 * @datatype: Ignored.
 * @op: Ignored.
 * @attr: Ignored.
 * @flags: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_query_atomic(struct kfid_domain *domain,
				      enum kfi_datatype datatype,
				      enum kfi_op op,
				      struct kfi_atomic_attr *attr,
				      uint64_t flags)
{
	return -KFI_ENOSYS;
}

/* Memory registration operations: struct kfi_ops_mr */

/**
 * kfi_no_mr_reg() - Stub for &struct kfi_ops_mr.reg.
 * @fid: Ignored.
 * @buf: Ignored.
 * @len: Ignored.
 * @access: Ignored.
 * @offset: Ignored.
 * @requested_key: Ignored.
 * @flags: Ignored.
 * @mr: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_mr_reg(struct kfid *fid, const void *buf, size_t len,
				uint64_t access, uint64_t offset,
				uint64_t requested_key, uint64_t flags,
				struct kfid_mr **mr, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_mr_regv() - Stub for &struct kfi_ops_mr.regv.
 * @fid: Ignored.
 * @iov: Ignored.
 * @count: Ignored.
 * @access: Ignored.
 * @offset: Ignored.
 * @requested_key: Ignored.
 * @flags: Ignored.
 * @mr: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_mr_regv(struct kfid *fid, const struct kvec *iov,
				 size_t count, uint64_t access, uint64_t offset,
				 uint64_t requested_key, uint64_t flags,
				 struct kfid_mr **mr, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_mr_regbv() - Stub for &struct kfi_ops_mr.regbv.
 * @fid: Ignored.
 * @biov: Ignored.
 * @count: Ignored.
 * @access: Ignored.
 * @offset: Ignored.
 * @requested_key: Ignored.
 * @flags: Ignored.
 * @mr: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_mr_regbv(struct kfid *fid, const struct bio_vec *biov,
				  size_t count, uint64_t access,
				  uint64_t offset, uint64_t requested_key,
				  uint64_t flags, struct kfid_mr **mr,
				  void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_mr_regattr() - Stub for &struct kfi_ops_mr.regattr.
 * @fid: Ignored.
 * @attr: Ignored.
 * @flags: Ignored.
 * @mr: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_mr_regattr(struct kfid *fid,
				    const struct kfi_mr_attr *attr,
				    uint64_t flags, struct kfid_mr **mr)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_mr_regsgl() - Stub for &struct kfi_ops_mr.regsgl.
 * @fid: Ignored.
 * @sgl: Ignored.
 * @count: Ignored.
 * @access: Ignored.
 * @offset: Ignored.
 * @requested_key: Ignored.
 * @flags: Ignored.
 * @mr: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_mr_regsgl(struct kfid *fid,
				   const struct scatterlist *sgl, size_t count,
				   uint64_t access, uint64_t offset,
				   uint64_t requested_key, uint64_t flags,
				   struct kfid_mr **mr, void *context)
{
	return -KFI_ENOSYS;
}

/* Address vector operations: struct kfi_ops_av */

/**
 * kfi_no_av_insert() - Stub for &struct kfi_ops_av.insert.
 * @av: Ignored.
 * @addr: Ignored.
 * @count: Ignored.
 * @kfi_addr: Ignored.
 * @flags: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_av_insert(struct kfid_av *av, const void *addr,
				   size_t count, kfi_addr_t *kfi_addr,
				   uint64_t flags, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_av_insertsvc() - Stub for &struct kfi_ops_av.insertsvc.
 * @av: Ignored.
 * @node: Ignored.
 * @service: Ignored.
 * @kfi_addr: Ignored.
 * @flags: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_av_insertsvc(struct kfid_av *av, const char *node,
				      const char *service, kfi_addr_t *kfi_addr,
				      uint64_t flags, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_av_insertsym() - Stub for &struct kfi_ops_av.insertsym.
 * @av: Ignored.
 * @node: Ignored.
 * @nodecnt: Ignored.
 * @service: Ignored.
 * @svccnt: Ignored.
 * @kfi_addr: Ignored.
 * @flags: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_av_insertsym(struct kfid_av *av, const char *node,
				      size_t nodecnt, const char *service,
				      size_t svccnt, kfi_addr_t *kfi_addr,
				      uint64_t flags, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_av_remove() - Stub for &struct kfi_ops_av.remove.
 * @av: Ignored.
 * @kfi_addr: Ignored.
 * @count: Ignored.
 * @flags: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_av_remove(struct kfid_av *av, kfi_addr_t *kfi_addr,
				   size_t count, uint64_t flags)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_av_lookup() - Stub for &struct kfi_ops_av.lookup.
 * @av: Ignored.
 * @kfi_addr: Ignored.
 * @addr: Ignored.
 * @addrlen: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_av_lookup(struct kfid_av *av, kfi_addr_t kfi_addr,
				   void *addr, size_t *addrlen)
{
	return -KFI_ENOSYS;
}

/* Endpoint control operations: struct kfi_ops_ep */

/**
 * kfi_no_cancel() - Stub for &struct kfi_ops_ep.cancel.
 * @fid: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_cancel(kfid_t fid, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_getopt() - Stub for &struct kfi_ops_ep.getopt.
 * @fid: Ignored.
 * @level: Ignored.
 * @optname: Ignored.
 * @optval: Ignored.
 * @optlen: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_getopt(kfid_t fid, int level, int optname,
				void *optval, size_t *optlen)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_setopt() - Stub for &struct kfi_ops_ep.setopt.
 * @fid: Ignored.
 * @level: Ignored.
 * @optname: Ignored.
 * @optval: Ignored.
 * @optlen: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_setopt(kfid_t fid, int level, int optname,
				const void *optval, size_t optlen)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_tx_ctx() - Stub for &struct kfi_ops_ep.tx_ctx.
 * @sep: Ignored.
 * @index: Ignored.
 * @attr: Ignored.
 * @tx_ep: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_tx_ctx(struct kfid_ep *sep, int index,
				struct kfi_tx_attr *attr,
				struct kfid_ep **tx_ep, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_rx_ctx() - Stub for &struct kfi_ops_ep.rx_ctx.
 * @sep: Ignored.
 * @index: Ignored.
 * @attr: Ignored.
 * @rx_ep: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_rx_ctx(struct kfid_ep *sep, int index,
				struct kfi_rx_attr *attr,
				struct kfid_ep **rx_ep, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_rx_size_left() - Legacy stub with no ops table member.
 * @ep: Ignored.
 *
 * Kept for source compatibility with older providers.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_rx_size_left(struct kfid_ep *ep)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_tx_size_left() - Legacy stub with no ops table member.
 * @ep: Ignored.
 *
 * Kept for source compatibility with older providers.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_tx_size_left(struct kfid_ep *ep)
{
	return -KFI_ENOSYS;
}

/* Connection management operations: struct kfi_ops_cm */

/**
 * kfi_no_setname() - Stub for &struct kfi_ops_cm.setname.
 * @fid: Ignored.
 * @addr: Ignored.
 * @addrlen: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_setname(kfid_t fid, void *addr, size_t addrlen)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_getname() - Stub for &struct kfi_ops_cm.getname.
 * @fid: Ignored.
 * @addr: Ignored.
 * @addrlen: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_getname(kfid_t fid, void *addr, size_t *addrlen)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_getpeer() - Stub for &struct kfi_ops_cm.getpeer.
 * @ep: Ignored.
 * @addr: Ignored.
 * @addrlen: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_getpeer(struct kfid_ep *ep, void *addr,
				 size_t *addrlen)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_connect() - Stub for &struct kfi_ops_cm.connect.
 * @ep: Ignored.
 * @addr: Ignored.
 * @param: Ignored.
 * @paramlen: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_connect(struct kfid_ep *ep, const void *addr,
				 const void *param, size_t paramlen)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_listen() - Stub for &struct kfi_ops_cm.listen.
 * @pep: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_listen(struct kfid_pep *pep)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_accept() - Stub for &struct kfi_ops_cm.accept.
 * @ep: Ignored.
 * @param: Ignored.
 * @paramlen: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_accept(struct kfid_ep *ep, const void *param,
				size_t paramlen)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_reject() - Stub for &struct kfi_ops_cm.reject.
 * @pep: Ignored.
 * @handle: Ignored.
 * @param: Ignored.
 * @paramlen: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_reject(struct kfid_pep *pep, kfid_t handle,
				const void *param, size_t paramlen)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_shutdown() - Stub for &struct kfi_ops_cm.shutdown.
 * @ep: Ignored.
 * @flags: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_shutdown(struct kfid_ep *ep, uint64_t flags)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_join() - Stub for &struct kfi_ops_cm.join.
 * @ep: Ignored.
 * @addr: Ignored.
 * @flags: Ignored.
 * @mc: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_join(struct kfid_ep *ep, const void *addr,
			      uint64_t flags, struct kfid_mc **mc,
			      void *context)
{
	return -KFI_ENOSYS;
}

/* Message operations: struct kfi_ops_msg */

/**
 * kfi_no_msg_recv() - Stub for &struct kfi_ops_msg.recv.
 * @ep: Ignored.
 * @buf: Ignored.
 * @len: Ignored.
 * @desc: Ignored.
 * @src_addr: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_msg_recv(struct kfid_ep *ep, void *buf, size_t len,
				      void *desc, kfi_addr_t src_addr,
				      void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_msg_recvv() - Stub for &struct kfi_ops_msg.recvv.
 * @ep: Ignored.
 * @iov: Ignored.
 * @desc: Ignored.
 * @count: Ignored.
 * @src_addr: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_msg_recvv(struct kfid_ep *ep,
				       const struct kvec *iov, void **desc,
				       size_t count, kfi_addr_t src_addr,
				       void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_msg_recvbv() - Stub for &struct kfi_ops_msg.recvbv.
 * @ep: Ignored.
 * @biov: Ignored.
 * @desc: Ignored.
 * @count: Ignored.
 * @src_addr: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_msg_recvbv(struct kfid_ep *ep,
					const struct bio_vec *biov, void **desc,
					size_t count, kfi_addr_t src_addr,
					void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_msg_recvmsg() - Stub for &struct kfi_ops_msg.recvmsg.
 * @ep: Ignored.
 * @msg: Ignored.
 * @flags: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_msg_recvmsg(struct kfid_ep *ep,
					 const struct kfi_msg *msg,
					 uint64_t flags)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_msg_send() - Stub for &struct kfi_ops_msg.send.
 * @ep: Ignored.
 * @buf: Ignored.
 * @len: Ignored.
 * @desc: Ignored.
 * @dest_addr: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_msg_send(struct kfid_ep *ep, const void *buf,
				      size_t len, void *desc,
				      kfi_addr_t dest_addr, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_msg_sendv() - Stub for &struct kfi_ops_msg.sendv.
 * @ep: Ignored.
 * @iov: Ignored.
 * @desc: Ignored.
 * @count: Ignored.
 * @dest_addr: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_msg_sendv(struct kfid_ep *ep,
				       const struct kvec *iov, void **desc,
				       size_t count, kfi_addr_t dest_addr,
				       void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_msg_sendbv() - Stub for &struct kfi_ops_msg.sendbv.
 * @ep: Ignored.
 * @biov: Ignored.
 * @desc: Ignored.
 * @count: Ignored.
 * @dest_addr: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_msg_sendbv(struct kfid_ep *ep,
					const struct bio_vec *biov, void **desc,
					size_t count, kfi_addr_t dest_addr,
					void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_msg_sendmsg() - Stub for &struct kfi_ops_msg.sendmsg.
 * @ep: Ignored.
 * @msg: Ignored.
 * @flags: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_msg_sendmsg(struct kfid_ep *ep,
					 const struct kfi_msg *msg,
					 uint64_t flags)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_msg_inject() - Stub for &struct kfi_ops_msg.inject.
 * @ep: Ignored.
 * @buf: Ignored.
 * @len: Ignored.
 * @dest_addr: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_msg_inject(struct kfid_ep *ep, const void *buf,
					size_t len, kfi_addr_t dest_addr)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_msg_senddata() - Stub for &struct kfi_ops_msg.senddata.
 * @ep: Ignored.
 * @buf: Ignored.
 * @len: Ignored.
 * @desc: Ignored.
 * @data: Ignored.
 * @dest_addr: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_msg_senddata(struct kfid_ep *ep, const void *buf,
					  size_t len, void *desc, uint64_t data,
					  kfi_addr_t dest_addr, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_msg_injectdata() - Stub for &struct kfi_ops_msg.injectdata.
 * @ep: Ignored.
 * @buf: Ignored.
 * @len: Ignored.
 * @data: Ignored.
 * @dest_addr: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_msg_injectdata(struct kfid_ep *ep, const void *buf,
					    size_t len, uint64_t data,
					    kfi_addr_t dest_addr)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_msg_recvsgl() - Stub for &struct kfi_ops_msg.recvsgl.
 * @ep: Ignored.
 * @sgl: Ignored.
 * @desc: Ignored.
 * @count: Ignored.
 * @src_addr: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_msg_recvsgl(struct kfid_ep *ep,
					 const struct scatterlist *sgl,
					 void **desc, size_t count,
					 kfi_addr_t src_addr, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_msg_sendsgl() - Stub for &struct kfi_ops_msg.sendsgl.
 * @ep: Ignored.
 * @sgl: Ignored.
 * @desc: Ignored.
 * @count: Ignored.
 * @dest_addr: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_msg_sendsgl(struct kfid_ep *ep,
					 const struct scatterlist *sgl,
					 void **desc, size_t count,
					 kfi_addr_t dest_addr, void *context)
{
	return -KFI_ENOSYS;
}

/* RMA operations: struct kfi_ops_rma */

/**
 * kfi_no_rma_read() - Stub for &struct kfi_ops_rma.read.
 * @ep: Ignored.
 * @buf: Ignored.
 * @len: Ignored.
 * @desc: Ignored.
 * @src_addr: Ignored.
 * @addr: Ignored.
 * @key: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_rma_read(struct kfid_ep *ep, void *buf, size_t len,
				      void *desc, kfi_addr_t src_addr,
				      uint64_t addr, uint64_t key,
				      void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_rma_readv() - Stub for &struct kfi_ops_rma.readv.
 * @ep: Ignored.
 * @iov: Ignored.
 * @desc: Ignored.
 * @count: Ignored.
 * @src_addr: Ignored.
 * @addr: Ignored.
 * @key: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_rma_readv(struct kfid_ep *ep,
				       const struct kvec *iov, void **desc,
				       size_t count, kfi_addr_t src_addr,
				       uint64_t addr, uint64_t key,
				       void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_rma_readbv() - Stub for &struct kfi_ops_rma.readbv.
 * @ep: Ignored.
 * @biov: Ignored.
 * @desc: Ignored.
 * @count: Ignored.
 * @src_addr: Ignored.
 * @addr: Ignored.
 * @key: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_rma_readbv(struct kfid_ep *ep,
					const struct bio_vec *biov, void **desc,
					size_t count, kfi_addr_t src_addr,
					uint64_t addr, uint64_t key,
					void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_rma_readmsg() - Stub for &struct kfi_ops_rma.readmsg.
 * @ep: Ignored.
 * @msg: Ignored.
 * @flags: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_rma_readmsg(struct kfid_ep *ep,
					 const struct kfi_msg_rma *msg,
					 uint64_t flags)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_rma_write() - Stub for &struct kfi_ops_rma.write.
 * @ep: Ignored.
 * @buf: Ignored.
 * @len: Ignored.
 * @desc: Ignored.
 * @dest_addr: Ignored.
 * @addr: Ignored.
 * @key: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_rma_write(struct kfid_ep *ep, const void *buf,
				       size_t len, void *desc,
				       kfi_addr_t dest_addr, uint64_t addr,
				       uint64_t key, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_rma_writev() - Stub for &struct kfi_ops_rma.writev.
 * @ep: Ignored.
 * @iov: Ignored.
 * @desc: Ignored.
 * @count: Ignored.
 * @dest_addr: Ignored.
 * @addr: Ignored.
 * @key: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_rma_writev(struct kfid_ep *ep,
					const struct kvec *iov, void **desc,
					size_t count, kfi_addr_t dest_addr,
					uint64_t addr, uint64_t key,
					void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_rma_writebv() - Stub for &struct kfi_ops_rma.writebv.
 * @ep: Ignored.
 * @biov: Ignored.
 * @desc: Ignored.
 * @count: Ignored.
 * @dest_addr: Ignored.
 * @addr: Ignored.
 * @key: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_rma_writebv(struct kfid_ep *ep,
					 const struct bio_vec *biov,
					 void **desc, size_t count,
					 kfi_addr_t dest_addr, uint64_t addr,
					 uint64_t key, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_rma_writemsg() - Stub for &struct kfi_ops_rma.writemsg.
 * @ep: Ignored.
 * @msg: Ignored.
 * @flags: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_rma_writemsg(struct kfid_ep *ep,
					  const struct kfi_msg_rma *msg,
					  uint64_t flags)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_rma_inject() - Stub for &struct kfi_ops_rma.inject.
 * @ep: Ignored.
 * @buf: Ignored.
 * @len: Ignored.
 * @dest_addr: Ignored.
 * @addr: Ignored.
 * @key: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_rma_inject(struct kfid_ep *ep, const void *buf,
					size_t len, kfi_addr_t dest_addr,
					uint64_t addr, uint64_t key)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_rma_writedata() - Stub for &struct kfi_ops_rma.writedata.
 * @ep: Ignored.
 * @buf: Ignored.
 * @len: Ignored.
 * @desc: Ignored.
 * @data: Ignored.
 * @dest_addr: Ignored.
 * @addr: Ignored.
 * @key: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_rma_writedata(struct kfid_ep *ep, const void *buf,
					   size_t len, void *desc,
					   uint64_t data, kfi_addr_t dest_addr,
					   uint64_t addr, uint64_t key,
					   void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_rma_injectdata() - Stub for &struct kfi_ops_rma.injectdata.
 * @ep: Ignored.
 * @buf: Ignored.
 * @len: Ignored.
 * @data: Ignored.
 * @dest_addr: Ignored.
 * @addr: Ignored.
 * @key: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_rma_injectdata(struct kfid_ep *ep, const void *buf,
					    size_t len, uint64_t data,
					    kfi_addr_t dest_addr, uint64_t addr,
					    uint64_t key)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_rma_readsgl() - Stub for &struct kfi_ops_rma.readsgl.
 * @ep: Ignored.
 * @sgl: Ignored.
 * @desc: Ignored.
 * @count: Ignored.
 * @src_addr: Ignored.
 * @addr: Ignored.
 * @key: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_rma_readsgl(struct kfid_ep *ep,
					 const struct scatterlist *sgl,
					 void **desc, size_t count,
					 kfi_addr_t src_addr, uint64_t addr,
					 uint64_t key, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_rma_writesgl() - Stub for &struct kfi_ops_rma.writesgl.
 * @ep: Ignored.
 * @sgl: Ignored.
 * @desc: Ignored.
 * @count: Ignored.
 * @dest_addr: Ignored.
 * @addr: Ignored.
 * @key: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_rma_writesgl(struct kfid_ep *ep,
					  const struct scatterlist *sgl,
					  void **desc, size_t count,
					  kfi_addr_t dest_addr, uint64_t addr,
					  uint64_t key, void *context)
{
	return -KFI_ENOSYS;
}

/* Tagged message operations: struct kfi_ops_tagged */

/**
 * kfi_no_tagged_recv() - Stub for &struct kfi_ops_tagged.recv.
 * @ep: Ignored.
 * @buf: Ignored.
 * @len: Ignored.
 * @desc: Ignored.
 * @src_addr: Ignored.
 * @tag: Ignored.
 * @ignore: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_tagged_recv(struct kfid_ep *ep, void *buf,
					 size_t len, void *desc,
					 kfi_addr_t src_addr, uint64_t tag,
					 uint64_t ignore, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_tagged_recvv() - Stub for &struct kfi_ops_tagged.recvv.
 * @ep: Ignored.
 * @iov: Ignored.
 * @desc: Ignored.
 * @count: Ignored.
 * @src_addr: Ignored.
 * @tag: Ignored.
 * @ignore: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_tagged_recvv(struct kfid_ep *ep,
					  const struct kvec *iov, void **desc,
					  size_t count, kfi_addr_t src_addr,
					  uint64_t tag, uint64_t ignore,
					  void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_tagged_recvbv() - Stub for &struct kfi_ops_tagged.recvbv.
 * @ep: Ignored.
 * @biov: Ignored.
 * @desc: Ignored.
 * @count: Ignored.
 * @src_addr: Ignored.
 * @tag: Ignored.
 * @ignore: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_tagged_recvbv(struct kfid_ep *ep,
					   const struct bio_vec *biov,
					   void **desc, size_t count,
					   kfi_addr_t src_addr, uint64_t tag,
					   uint64_t ignore, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_tagged_recvmsg() - Stub for &struct kfi_ops_tagged.recvmsg.
 * @ep: Ignored.
 * @msg: Ignored.
 * @flags: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_tagged_recvmsg(struct kfid_ep *ep,
					    const struct kfi_msg_tagged *msg,
					    uint64_t flags)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_tagged_send() - Stub for &struct kfi_ops_tagged.send.
 * @ep: Ignored.
 * @buf: Ignored.
 * @len: Ignored.
 * @desc: Ignored.
 * @dest_addr: Ignored.
 * @tag: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_tagged_send(struct kfid_ep *ep, const void *buf,
					 size_t len, void *desc,
					 kfi_addr_t dest_addr, uint64_t tag,
					 void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_tagged_sendv() - Stub for &struct kfi_ops_tagged.sendv.
 * @ep: Ignored.
 * @iov: Ignored.
 * @desc: Ignored.
 * @count: Ignored.
 * @dest_addr: Ignored.
 * @tag: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_tagged_sendv(struct kfid_ep *ep,
					  const struct kvec *iov, void **desc,
					  size_t count, kfi_addr_t dest_addr,
					  uint64_t tag, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_tagged_sendbv() - Stub for &struct kfi_ops_tagged.sendbv.
 * @ep: Ignored.
 * @biov: Ignored.
 * @desc: Ignored.
 * @count: Ignored.
 * @dest_addr: Ignored.
 * @tag: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_tagged_sendbv(struct kfid_ep *ep,
					   const struct bio_vec *biov,
					   void **desc, size_t count,
					   kfi_addr_t dest_addr, uint64_t tag,
					   void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_tagged_sendmsg() - Stub for &struct kfi_ops_tagged.sendmsg.
 * @ep: Ignored.
 * @msg: Ignored.
 * @flags: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_tagged_sendmsg(struct kfid_ep *ep,
					    const struct kfi_msg_tagged *msg,
					    uint64_t flags)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_tagged_inject() - Stub for &struct kfi_ops_tagged.inject.
 * @ep: Ignored.
 * @buf: Ignored.
 * @len: Ignored.
 * @dest_addr: Ignored.
 * @tag: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_tagged_inject(struct kfid_ep *ep, const void *buf,
					   size_t len, kfi_addr_t dest_addr,
					   uint64_t tag)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_tagged_senddata() - Stub for &struct kfi_ops_tagged.senddata.
 * @ep: Ignored.
 * @buf: Ignored.
 * @len: Ignored.
 * @desc: Ignored.
 * @data: Ignored.
 * @dest_addr: Ignored.
 * @tag: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_tagged_senddata(struct kfid_ep *ep,
					     const void *buf, size_t len,
					     void *desc, uint64_t data,
					     kfi_addr_t dest_addr, uint64_t tag,
					     void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_tagged_injectdata() - Stub for &struct kfi_ops_tagged.injectdata.
 * @ep: Ignored.
 * @buf: Ignored.
 * @len: Ignored.
 * @data: Ignored.
 * @dest_addr: Ignored.
 * @tag: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_tagged_injectdata(struct kfid_ep *ep,
					       const void *buf, size_t len,
					       uint64_t data,
					       kfi_addr_t dest_addr,
					       uint64_t tag)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_tagged_recvsgl() - Stub for &struct kfi_ops_tagged.recvsgl.
 * @ep: Ignored.
 * @sgl: Ignored.
 * @desc: Ignored.
 * @count: Ignored.
 * @src_addr: Ignored.
 * @tag: Ignored.
 * @ignore: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_tagged_recvsgl(struct kfid_ep *ep,
					    const struct scatterlist *sgl,
					    void **desc, size_t count,
					    kfi_addr_t src_addr, uint64_t tag,
					    uint64_t ignore, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_tagged_sendsgl() - Stub for &struct kfi_ops_tagged.sendsgl.
 * @ep: Ignored.
 * @sgl: Ignored.
 * @desc: Ignored.
 * @count: Ignored.
 * @dest_addr: Ignored.
 * @tag: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_tagged_sendsgl(struct kfid_ep *ep,
					    const struct scatterlist *sgl,
					    void **desc, size_t count,
					    kfi_addr_t dest_addr, uint64_t tag,
					    void *context)
{
	return -KFI_ENOSYS;
}

/* Atomic operations: struct kfi_ops_atomic */

/**
 * kfi_no_atomic_write() - Stub for &struct kfi_ops_atomic.write.
 * @ep: Ignored.
 * @buf: Ignored.
 * @count: Ignored.
 * @desc: Ignored.
 * @dest_addr: Ignored.
 * @addr: Ignored.
 * @key: Ignored.
 * @datatype: Ignored.
 * @op: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_atomic_write(struct kfid_ep *ep, const void *buf,
					  size_t count, void *desc,
					  kfi_addr_t dest_addr, uint64_t addr,
					  uint64_t key,
					  enum kfi_datatype datatype,
					  enum kfi_op op, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_atomic_writev() - Stub for &struct kfi_ops_atomic.writev.
 * @ep: Ignored.
 * @iov: Ignored.
 * @desc: Ignored.
 * @count: Ignored.
 * @dest_addr: Ignored.
 * @addr: Ignored.
 * @key: Ignored.
 * @datatype: Ignored.
 * @op: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_atomic_writev(struct kfid_ep *ep,
					   const struct kfi_ioc *iov,
					   void **desc, size_t count,
					   kfi_addr_t dest_addr, uint64_t addr,
					   uint64_t key,
					   enum kfi_datatype datatype,
					   enum kfi_op op, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_atomic_writemsg() - Stub for &struct kfi_ops_atomic.writemsg.
 * @ep: Ignored.
 * @msg: Ignored.
 * @flags: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_atomic_writemsg(struct kfid_ep *ep,
					     const struct kfi_msg_atomic *msg,
					     uint64_t flags)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_atomic_inject() - Stub for &struct kfi_ops_atomic.inject.
 * @ep: Ignored.
 * @buf: Ignored.
 * @count: Ignored.
 * @dest_addr: Ignored.
 * @addr: Ignored.
 * @key: Ignored.
 * @datatype: Ignored.
 * @op: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_atomic_inject(struct kfid_ep *ep, const void *buf,
					   size_t count, kfi_addr_t dest_addr,
					   uint64_t addr, uint64_t key,
					   enum kfi_datatype datatype,
					   enum kfi_op op)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_atomic_readwrite() - Stub for &struct kfi_ops_atomic.readwrite.
 * @ep: Ignored.
 * @buf: Ignored.
 * @count: Ignored.
 * @desc: Ignored.
 * @result: Ignored.
 * @result_desc: Ignored.
 * @dest_addr: Ignored.
 * @addr: Ignored.
 * @key: Ignored.
 * @datatype: Ignored.
 * @op: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_atomic_readwrite(struct kfid_ep *ep,
					      const void *buf, size_t count,
					      void *desc, void *result,
					      void *result_desc,
					      kfi_addr_t dest_addr,
					      uint64_t addr, uint64_t key,
					      enum kfi_datatype datatype,
					      enum kfi_op op, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_atomic_readwritev() - Stub for &struct kfi_ops_atomic.readwritev.
 * @ep: Ignored.
 * @iov: Ignored.
 * @desc: Ignored.
 * @count: Ignored.
 * @resultv: Ignored.
 * @result_desc: Ignored.
 * @result_count: Ignored.
 * @dest_addr: Ignored.
 * @addr: Ignored.
 * @key: Ignored.
 * @datatype: Ignored.
 * @op: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_atomic_readwritev(struct kfid_ep *ep,
					       const struct kfi_ioc *iov,
					       void **desc, size_t count,
					       struct kfi_ioc *resultv,
					       void **result_desc,
					       size_t result_count,
					       kfi_addr_t dest_addr,
					       uint64_t addr, uint64_t key,
					       enum kfi_datatype datatype,
					       enum kfi_op op, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_atomic_readwritemsg() - Stub for &struct kfi_ops_atomic.readwritemsg.
 * @ep: Ignored.
 * @msg: Ignored.
 * @resultv: Ignored.
 * @result_desc: Ignored.
 * @result_count: Ignored.
 * @flags: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_atomic_readwritemsg(struct kfid_ep *ep,
						 const struct kfi_msg_atomic *msg,
						 struct kfi_ioc *resultv,
						 void **result_desc,
						 size_t result_count,
						 uint64_t flags)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_atomic_compwrite() - Stub for &struct kfi_ops_atomic.compwrite.
 * @ep: Ignored.
 * @buf: Ignored.
 * @count: Ignored.
 * @desc: Ignored.
 * @compare: Ignored.
 * @compare_desc: Ignored.
 * @result: Ignored.
 * @result_desc: Ignored.
 * @dest_addr: Ignored.
 * @addr: Ignored.
 * @key: Ignored.
 * @datatype: Ignored.
 * @op: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_atomic_compwrite(struct kfid_ep *ep,
					      const void *buf, size_t count,
					      void *desc, const void *compare,
					      void *compare_desc, void *result,
					      void *result_desc,
					      kfi_addr_t dest_addr,
					      uint64_t addr, uint64_t key,
					      enum kfi_datatype datatype,
					      enum kfi_op op, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_atomic_compwritev() - Stub for &struct kfi_ops_atomic.compwritev.
 * @ep: Ignored.
 * @iov: Ignored.
 * @desc: Ignored.
 * @count: Ignored.
 * @comparev: Ignored.
 * @compare_desc: Ignored.
 * @compare_count: Ignored.
 * @resultv: Ignored.
 * @result_desc: Ignored.
 * @result_count: Ignored.
 * @dest_addr: Ignored.
 * @addr: Ignored.
 * @key: Ignored.
 * @datatype: Ignored.
 * @op: Ignored.
 * @context: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_atomic_compwritev(struct kfid_ep *ep,
					       const struct kfi_ioc *iov,
					       void **desc, size_t count,
					       const struct kfi_ioc *comparev,
					       void **compare_desc,
					       size_t compare_count,
					       struct kfi_ioc *resultv,
					       void **result_desc,
					       size_t result_count,
					       kfi_addr_t dest_addr,
					       uint64_t addr, uint64_t key,
					       enum kfi_datatype datatype,
					       enum kfi_op op, void *context)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_atomic_compwritemsg() - Stub for &struct kfi_ops_atomic.compwritemsg.
 * @ep: Ignored.
 * @msg: Ignored.
 * @comparev: Ignored.
 * @compare_desc: Ignored.
 * @compare_count: Ignored.
 * @resultv: Ignored.
 * @result_desc: Ignored.
 * @result_count: Ignored.
 * @flags: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_atomic_compwritemsg(struct kfid_ep *ep,
						 const struct kfi_msg_atomic *msg,
						 const struct kfi_ioc *comparev,
						 void **compare_desc,
						 size_t compare_count,
						 struct kfi_ioc *resultv,
						 void **result_desc,
						 size_t result_count,
						 uint64_t flags)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_atomic_writevalid() - Stub for &struct kfi_ops_atomic.writevalid.
 * @ep: Ignored.
 * @datatype: Ignored.
 * @op: Ignored.
 * @count: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_atomic_writevalid(struct kfid_ep *ep,
					   enum kfi_datatype datatype,
					   enum kfi_op op, size_t *count)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_atomic_readwritevalid() - Stub for kfi_ops_atomic.readwritevalid.
 * @ep: Ignored.
 * @datatype: Ignored.
 * @op: Ignored.
 * @count: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_atomic_readwritevalid(struct kfid_ep *ep,
					       enum kfi_datatype datatype,
					       enum kfi_op op, size_t *count)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_atomic_compwritevalid() - Stub for kfi_ops_atomic.compwritevalid.
 * @ep: Ignored.
 * @datatype: Ignored.
 * @op: Ignored.
 * @count: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_atomic_compwritevalid(struct kfid_ep *ep,
					       enum kfi_datatype datatype,
					       enum kfi_op op, size_t *count)
{
	return -KFI_ENOSYS;
}

/* Event queue operations: struct kfi_ops_eq */

/**
 * kfi_no_eq_write() - Stub for &struct kfi_ops_eq.write.
 * @eq: Ignored.
 * @event: Ignored.
 * @buf: Ignored.
 * @len: Ignored.
 * @flags: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_eq_write(struct kfid_eq *eq, uint32_t event,
				      const void *buf, size_t len,
				      uint64_t flags)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_eq_sread() - Stub for &struct kfi_ops_eq.sread.
 * @eq: Ignored.
 * @event: Ignored.
 * @buf: Ignored.
 * @len: Ignored.
 * @timeout: Ignored.
 * @flags: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_eq_sread(struct kfid_eq *eq, uint32_t *event,
				      void *buf, size_t len, int timeout,
				      uint64_t flags)
{
	return -KFI_ENOSYS;
}

/* Completion queue operations: struct kfi_ops_cq */

/**
 * kfi_no_cq_readfrom() - Stub for &struct kfi_ops_cq.readfrom.
 * @cq: Ignored.
 * @buf: Ignored.
 * @count: Ignored.
 * @src_addr: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_cq_readfrom(struct kfid_cq *cq, void *buf,
					 size_t count, kfi_addr_t *src_addr)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_cq_sread() - Stub for &struct kfi_ops_cq.sread.
 * @cq: Ignored.
 * @buf: Ignored.
 * @count: Ignored.
 * @cond: Ignored.
 * @timeout: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_cq_sread(struct kfid_cq *cq, void *buf,
				      size_t count, const void *cond,
				      int timeout)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_cq_sreadfrom() - Stub for &struct kfi_ops_cq.sreadfrom.
 * @cq: Ignored.
 * @buf: Ignored.
 * @count: Ignored.
 * @src_addr: Ignored.
 * @cond: Ignored.
 * @timeout: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline ssize_t kfi_no_cq_sreadfrom(struct kfid_cq *cq, void *buf,
					  size_t count, kfi_addr_t *src_addr,
					  const void *cond, int timeout)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_cq_signal() - Stub for &struct kfi_ops_cq.signal.
 * @cq: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_cq_signal(struct kfid_cq *cq)
{
	return -KFI_ENOSYS;
}

/* Counter operations: struct kfi_ops_cntr */

/**
 * kfi_no_cntr_add() - Stub for &struct kfi_ops_cntr.add.
 * @cntr: Ignored.
 * @value: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_cntr_add(struct kfid_cntr *cntr, uint64_t value)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_cntr_set() - Stub for &struct kfi_ops_cntr.set.
 * @cntr: Ignored.
 * @value: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_cntr_set(struct kfid_cntr *cntr, uint64_t value)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_cntr_wait() - Stub for &struct kfi_ops_cntr.wait.
 * @cntr: Ignored.
 * @threshold: Ignored.
 * @timeout: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_cntr_wait(struct kfid_cntr *cntr, uint64_t threshold,
				   int timeout)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_cntr_adderr() - Stub for &struct kfi_ops_cntr.adderr.
 * @cntr: Ignored.
 * @value: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_cntr_adderr(struct kfid_cntr *cntr, uint64_t value)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_cntr_seterr() - Stub for &struct kfi_ops_cntr.seterr.
 * @cntr: Ignored.
 * @value: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_cntr_seterr(struct kfid_cntr *cntr, uint64_t value)
{
	return -KFI_ENOSYS;
}

/* Wait set operations: struct kfi_ops_wait */

/**
 * kfi_no_wait() - Stub for &struct kfi_ops_wait.wait.
 * @waitset: Ignored.
 * @timeout: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_wait(struct kfid_wait *waitset, int timeout)
{
	return -KFI_ENOSYS;
}

/* Poll set operations: struct kfi_ops_poll */

/**
 * kfi_no_poll() - Stub for &struct kfi_ops_poll.poll.
 * @pollset: Ignored.
 * @context: Ignored.
 * @count: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_poll(struct kfid_poll *pollset, void **context,
			      int count)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_poll_add() - Stub for &struct kfi_ops_poll.poll_add.
 * @pollset: Ignored.
 * @event_kfid: Ignored.
 * @flags: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_poll_add(struct kfid_poll *pollset,
				  struct kfid *event_kfid, uint64_t flags)
{
	return -KFI_ENOSYS;
}

/**
 * kfi_no_poll_del() - Stub for &struct kfi_ops_poll.poll_del.
 * @pollset: Ignored.
 * @event_kfid: Ignored.
 * @flags: Ignored.
 *
 * Return: -KFI_ENOSYS.
 */
static inline int kfi_no_poll_del(struct kfid_poll *pollset,
				  struct kfid *event_kfid, uint64_t flags)
{
	return -KFI_ENOSYS;
}

__diag_pop();

#endif /* _KFI_ENOSYS_H_ */
