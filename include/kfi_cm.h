/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfabric connection management: addressing of endpoints, connection setup
 * and teardown for KFI_EP_MSG endpoints, and multicast joins.
 *
 * Connection progress is reported on the event queue bound to the
 * endpoint (KFI_CONNREQ, KFI_CONNECTED, KFI_SHUTDOWN).  All calls here may
 * sleep and are for process context only.
 */

#ifndef _KFI_CM_H_
#define _KFI_CM_H_

#include <kfi_endpoint.h>

/**
 * struct kfid_mc - A joined multicast group.
 * @fid: Generic object header; close it to leave the group.
 * @addr: Address to send to the group, see kfi_mc_addr().
 */
struct kfid_mc {
	struct kfid	fid;
	kfi_addr_t	addr;
};

/**
 * struct kfi_ops_cm - Connection management operations.
 * @size: Must be sizeof(struct kfi_ops_cm).
 * @setname: Set the local address, see kfi_setname().
 * @getname: Read the local address, see kfi_getname().
 * @getpeer: Read the peer address, see kfi_getpeer().
 * @connect: Start a connection, see kfi_connect().
 * @listen: Start listening, see kfi_listen().
 * @accept: Accept a connection request, see kfi_accept().
 * @reject: Reject a connection request, see kfi_reject().
 * @shutdown: Close a connection, see kfi_shutdown().
 * @join: Join a multicast group (optional), see kfi_join().
 */
struct kfi_ops_cm {
	size_t	size;
	int	(*setname)(kfid_t fid, void *addr, size_t addrlen);
	int	(*getname)(struct kfid *fid, void *addr, size_t *addrlen);
	int	(*getpeer)(struct kfid_ep *ep, void *addr, size_t *addrlen);
	int	(*connect)(struct kfid_ep *ep, const void *addr,
			   const void *param, size_t paramlen);
	int	(*listen)(struct kfid_pep *pep);
	int	(*accept)(struct kfid_ep *ep, const void *param,
			  size_t paramlen);
	int	(*reject)(struct kfid_pep *pep, kfid_t handle,
			  const void *param, size_t paramlen);
	int	(*shutdown)(struct kfid_ep *ep, uint64_t flags);
	int	(*join)(struct kfid_ep *ep, const void *addr, uint64_t flags,
			struct kfid_mc **mc, void *context);
};

/**
 * kfi_setname() - Set the local address of an endpoint.
 * @fid: Header of an active or passive endpoint.
 * @addr: Address in the endpoint's address format.
 * @addrlen: Length of @addr.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_setname(struct kfid *fid, void *addr, size_t addrlen)
{
	struct kfid_ep *ep = container_of(fid, struct kfid_ep, fid);

	return ep->cm->setname(fid, addr, addrlen);
}

/**
 * kfi_getname() - Read the local address of an endpoint.
 * @fid: Header of an active or passive endpoint.
 * @addr: Buffer for the address.
 * @addrlen: In: size of @addr.  Out: size of the address.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success, -KFI_ETOOSMALL if @addr is too small, or another
 * negative error code.
 */
static inline int kfi_getname(struct kfid *fid, void *addr, size_t *addrlen)
{
	struct kfid_ep *ep = container_of(fid, struct kfid_ep, fid);

	return ep->cm->getname(fid, addr, addrlen);
}

/**
 * kfi_getpeer() - Read the address of a connected peer.
 * @ep: Connected endpoint.
 * @addr: Buffer for the address.
 * @addrlen: In: size of @addr.  Out: size of the address.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success, -KFI_ETOOSMALL if @addr is too small, or another
 * negative error code.
 */
static inline int kfi_getpeer(struct kfid_ep *ep, void *addr, size_t *addrlen)
{
	return ep->cm->getpeer(ep, addr, addrlen);
}

/**
 * kfi_listen() - Start accepting connection requests.
 * @pep: Passive endpoint with a bound event queue.
 *
 * Requests arrive as KFI_CONNREQ events.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_listen(struct kfid_pep *pep)
{
	return pep->cm->listen(pep);
}

/**
 * kfi_connect() - Start connecting an endpoint to a peer.
 * @ep: Enabled KFI_EP_MSG endpoint with a bound event queue.
 * @addr: Peer address.
 * @param: Private data for the peer, or NULL.
 * @paramlen: Length of @param.
 *
 * Completion is reported as KFI_CONNECTED (or an error) on the EQ.
 *
 * Context: Process context; may sleep.
 * Return: 0 if the attempt started, or a negative error code.
 */
static inline int kfi_connect(struct kfid_ep *ep, const void *addr,
			      const void *param, size_t paramlen)
{
	return ep->cm->connect(ep, addr, param, paramlen);
}

/**
 * kfi_accept() - Accept a connection request.
 * @ep: Endpoint opened with the request's info (info->handle set).
 * @param: Private data for the peer, or NULL.
 * @paramlen: Length of @param.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_accept(struct kfid_ep *ep, const void *param,
			     size_t paramlen)
{
	return ep->cm->accept(ep, param, paramlen);
}

/**
 * kfi_reject() - Reject a connection request.
 * @pep: Passive endpoint that received the request.
 * @connreq: The request (info->handle of the KFI_CONNREQ event).
 * @param: Private data for the peer, or NULL.
 * @paramlen: Length of @param.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_reject(struct kfid_pep *pep, kfid_t connreq,
			     const void *param, size_t paramlen)
{
	return pep->cm->reject(pep, connreq, param, paramlen);
}

/**
 * kfi_shutdown() - Close a connection.
 * @ep: Connected endpoint.
 * @flags: Must be zero.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_shutdown(struct kfid_ep *ep, uint64_t flags)
{
	return ep->cm->shutdown(ep, flags);
}

/**
 * kfi_join() - Join a multicast group.
 * @ep: Endpoint.
 * @addr: Group address.
 * @flags: KFI_SEND and/or KFI_RECV.
 * @mc: On success (possibly after a KFI_JOIN_COMPLETE event), the group.
 * @context: Consumer context stored in @mc.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success, -KFI_ENOSYS if the provider has no multicast
 * support, or another negative error code.
 */
static inline int kfi_join(struct kfid_ep *ep, const void *addr,
			   uint64_t flags, struct kfid_mc **mc, void *context)
{
	if (!KFI_CHECK_OP(ep->cm, struct kfi_ops_cm, join))
		return -KFI_ENOSYS;
	return ep->cm->join(ep, addr, flags, mc, context);
}

/**
 * kfi_mc_addr() - Address for sending to a joined multicast group.
 * @mc: Group.
 *
 * Context: Any context.
 * Return: The group's kfi_addr_t.
 */
static inline kfi_addr_t kfi_mc_addr(struct kfid_mc *mc)
{
	return mc->addr;
}

#endif /* _KFI_CM_H_ */
