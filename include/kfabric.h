/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfabric: kernel fabric interface, API version 1.7.
 *
 * This is the base header of kfabric, the in-kernel port of the OpenFabrics
 * Interfaces (libfabric).  It defines the capability and mode bits, the
 * attribute structures exchanged with kfi_getinfo(), the generic object
 * header &struct kfid that starts every kfabric object, and the calls that
 * work on any object (kfi_close(), kfi_control(), ...).
 */

#ifndef _KFABRIC_H_
#define _KFABRIC_H_

#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/kernel.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <kfi_errno.h>

#ifdef KFABRIC_DIRECT
#error "kfabric: KFABRIC_DIRECT (provider-direct) builds are not supported"
#endif

/**
 * DOC: Design
 *
 * The kfabric core module only brokers providers: it finds them for
 * kfi_getinfo() and opens fabrics with kfi_fabric().  Every later call is a
 * static inline wrapper in these headers that jumps straight through the
 * ops table the provider hung off the object, so the core is never on the
 * data path.
 */

/**
 * DOC: Ops table contract
 *
 * Every ops table a provider exposes (&struct kfi_ops, &struct
 * kfi_ops_fabric, &struct kfi_ops_domain, &struct kfi_ops_ep, ...) MUST
 * have its .size member set to sizeof() the ops structure, e.g.
 * ``.size = sizeof(struct kfi_ops_msg)``, and MUST fill in every function
 * pointer.  An operation the provider does not support is filled with a
 * stub returning -KFI_ENOSYS (see <kfi_enosys.h>), never left NULL.
 *
 * Data-path wrappers call through the table without any check, for speed.
 * Only the wrappers of optional or later-added operations (the *sgl()
 * calls added in API 1.7, kfi_join(), kfi_query_atomic(),
 * kfi_cntr_adderr(), kfi_cntr_seterr()) test the table with
 * KFI_CHECK_OP() first and return -KFI_ENOSYS when the operation is
 * absent.
 */

/**
 * DOC: Context rules
 *
 * Unless a wrapper's documentation says otherwise: calls that create,
 * configure, bind or destroy objects may sleep and are for process context
 * only; data-transfer calls, completion-queue and counter reads never sleep
 * and may be used from process or softirq context, also with spinlocks
 * held.  Callbacks (&typedef kfi_comp_handler, &typedef kfi_event_handler)
 * run in the provider's completion context and must not sleep.
 */

struct kvec;
struct bio_vec;
struct scatterlist;

/**
 * KFI_DEFINE_HANDLE() - Declare an opaque handle type.
 * @name: Name of the handle typedef to create.
 *
 * Declares a private dummy structure and a typedef @name that points to it,
 * giving a distinct pointer type that cannot be mixed up with others.
 */
#define KFI_DEFINE_HANDLE(name)				\
	struct name##_s { int dummy; };			\
	typedef struct name##_s *name

/**
 * DOC: API version
 *
 * KFI_MAJOR_VERSION and KFI_MINOR_VERSION give the kfabric API version these
 * headers describe.  Versions are packed into 32 bits as major << 16 | minor
 * by KFI_VERSION().
 */
#define KFI_MAJOR_VERSION	1
#define KFI_MINOR_VERSION	7

/**
 * KFI_VERSION() - Pack an API version number.
 * @major: Major version.
 * @minor: Minor version, below 0x10000.
 */
#define KFI_VERSION(major, minor)	(((major) << 16) | (minor))

/**
 * KFI_MAJOR() - Major part of a packed version.
 * @version: Version packed by KFI_VERSION().
 */
#define KFI_MAJOR(version)		((version) >> 16)

/**
 * KFI_MINOR() - Minor part of a packed version.
 * @version: Version packed by KFI_VERSION().
 */
#define KFI_MINOR(version)		((version) & 0xFFFF)

/**
 * KFI_VERSION_GE() - Test whether one packed version is at least another.
 * @v1: Version to test.
 * @v2: Version to compare against.
 *
 * Both arguments are evaluated more than once.
 */
#define KFI_VERSION_GE(v1, v2)					\
	(KFI_MAJOR(v1) > KFI_MAJOR(v2) ||			\
	 (KFI_MAJOR(v1) == KFI_MAJOR(v2) &&			\
	  KFI_MINOR(v1) >= KFI_MINOR(v2)))

/**
 * KFI_VERSION_LT() - Test whether one packed version is older than another.
 * @v1: Version to test.
 * @v2: Version to compare against.
 *
 * Both arguments are evaluated more than once.
 */
#define KFI_VERSION_LT(v1, v2)					\
	(KFI_MAJOR(v1) < KFI_MAJOR(v2) ||			\
	 (KFI_MAJOR(v1) == KFI_MAJOR(v2) &&			\
	  KFI_MINOR(v1) < KFI_MINOR(v2)))

/**
 * enum - Size limits for names and paths.
 * @KFI_PATH_MAX: Longest path kfabric handles.
 * @KFI_NAME_MAX: Longest object or provider name.
 * @KFI_VERSION_MAX: Longest version string.
 */
enum {
	KFI_PATH_MAX		= 256,
	KFI_NAME_MAX		= 64,
	KFI_VERSION_MAX		= 64
};

#ifndef UINT64_MAX
#define UINT64_MAX		0xFFFFFFFFFFFFFFFFULL
#endif

/**
 * kfi_version() - API version implemented by the loaded kfabric core.
 *
 * Context: Any context.
 * Return: KFI_VERSION(KFI_MAJOR_VERSION, KFI_MINOR_VERSION) of the core.
 */
uint32_t kfi_version(void);

struct kfid;
struct kfid_fabric;
struct kfid_domain;
struct kfid_av;
struct kfid_wait;
struct kfid_poll;
struct kfid_eq;
struct kfid_cq;
struct kfid_cntr;
struct kfid_ep;
struct kfid_pep;
struct kfid_stx;
struct kfid_mr;

/**
 * DOC: kfid_t
 *
 * kfid_t is a pointer to the generic header (&struct kfid) of any kfabric
 * object.
 */
typedef struct kfid *kfid_t;

/**
 * define KFI_PROV_SPECIFIC - Marks a provider specific enumeration value.
 *
 * Values with this (most significant 32-bit) bit set are private to a
 * provider, e.g. a provider-defined address format or protocol.
 */
#define KFI_PROV_SPECIFIC	(1U << 31)

/**
 * DOC: Capability and operation flags
 *
 * One 64-bit namespace is shared by the capability bits (kfi_info.caps,
 * tx/rx attribute caps), the operation flags passed to the *msg() calls and
 * the flags reported in completion entries.  Bits that are common to
 * several classes of calls grow up from bit 1, bits that only mean
 * something to a single call grow down from bit 59, and bits 60 to 63 are
 * left to providers.  The positions follow libfabric, plus kfabric's own
 * additions:
 *
 * KFI_TAGGED_RMA: RMA whose remote key is the tag of a posted tagged
 * receive (no memory region needed); requested with KFI_TAGGED on
 * kfi_readmsg()/kfi_writemsg().
 * KFI_TAGGED_MULTI_RECV: tagged receives may use multi-receive buffers.
 * KFI_NAMED_RX_CTX: a receive context can be addressed by index through
 * kfi_rx_addr().
 * KFI_DIRECTED_RECV: receives may be limited to one source address.
 * KFI_SOURCE: report the source address with completions; passed to
 * kfi_getinfo() it means node/service name the local side.
 * KFI_RMA_EVENT: remote RMA accesses can update counters.
 */
#define KFI_MSG			(1ULL << 1)
#define KFI_RMA			(1ULL << 2)
#define KFI_TAGGED		(1ULL << 3)
#define KFI_ATOMIC		(1ULL << 4)
#define KFI_ATOMICS		KFI_ATOMIC
#define KFI_MULTICAST		(1ULL << 5)
#define KFI_TAGGED_RMA		(1ULL << 6)

#define KFI_READ		(1ULL << 8)
#define KFI_WRITE		(1ULL << 9)
#define KFI_RECV		(1ULL << 10)
#define KFI_SEND		(1ULL << 11)
#define KFI_TRANSMIT		KFI_SEND
#define KFI_REMOTE_READ		(1ULL << 12)
#define KFI_REMOTE_WRITE	(1ULL << 13)

#define KFI_MULTI_RECV		(1ULL << 16)
#define KFI_REMOTE_CQ_DATA	(1ULL << 17)
#define KFI_MORE		(1ULL << 18)
#define KFI_PEEK		(1ULL << 19)
#define KFI_TRIGGER		(1ULL << 20)
#define KFI_FENCE		(1ULL << 21)

#define KFI_COMPLETION		(1ULL << 24)
#define KFI_EVENT		KFI_COMPLETION
#define KFI_INJECT		(1ULL << 25)
#define KFI_INJECT_COMPLETE	(1ULL << 26)
#define KFI_TRANSMIT_COMPLETE	(1ULL << 27)
#define KFI_DELIVERY_COMPLETE	(1ULL << 28)
#define KFI_AFFINITY		(1ULL << 29)
#define KFI_COMMIT_COMPLETE	(1ULL << 30)

#define KFI_TAGGED_MULTI_RECV	(1ULL << 31)

#define KFI_RMA_PMEM		(1ULL << 49)
#define KFI_SOURCE_ERR		(1ULL << 50)
#define KFI_LOCAL_COMM		(1ULL << 51)
#define KFI_REMOTE_COMM		(1ULL << 52)
#define KFI_SHARED_AV		(1ULL << 53)
#define KFI_PROV_ATTR_ONLY	(1ULL << 54)
#define KFI_NUMERICHOST		(1ULL << 55)
#define KFI_RMA_EVENT		(1ULL << 56)
#define KFI_SOURCE		(1ULL << 57)
#define KFI_NAMED_RX_CTX	(1ULL << 58)
#define KFI_DIRECTED_RECV	(1ULL << 59)

/**
 * enum - Address formats (kfi_info.addr_format).
 * @KFI_FORMAT_UNSPEC: Unspecified; the address is an opaque byte string.
 * @KFI_SOCKADDR: &struct sockaddr of any family.
 * @KFI_SOCKADDR_IN: &struct sockaddr_in.
 * @KFI_SOCKADDR_IN6: &struct sockaddr_in6.
 * @KFI_SOCKADDR_IB: &struct sockaddr_ib.
 * @KFI_ADDR_GNI: Cray GNI address.
 * @KFI_ADDR_CXI: HPE Slingshot (CXI) address.
 */
enum {
	KFI_FORMAT_UNSPEC,
	KFI_SOCKADDR,
	KFI_SOCKADDR_IN,
	KFI_SOCKADDR_IN6,
	KFI_SOCKADDR_IB,
	KFI_ADDR_GNI,
	KFI_ADDR_CXI
};

/**
 * DOC: Special address and key values
 *
 * KFI_ADDR_UNSPEC: no particular peer (e.g. receive from anyone).
 * KFI_ADDR_NOTAVAIL: the peer address is not known (completion entries).
 * KFI_KEY_NOTAVAIL: no key is available.
 * KFI_SHARED_CONTEXT: use a shared transmit or receive context.
 */
#define KFI_ADDR_UNSPEC		UINT64_MAX
#define KFI_ADDR_NOTAVAIL	UINT64_MAX
#define KFI_KEY_NOTAVAIL	UINT64_MAX
#define KFI_SHARED_CONTEXT	UINT64_MAX

/**
 * typedef kfi_addr_t - Handle of a peer address inserted into an AV.
 *
 * For a table AV this is the index of the entry; for a map AV it is a
 * provider-defined value.  The upper bits may carry a receive context
 * index, see kfi_rx_addr().
 */
typedef uint64_t kfi_addr_t;

/**
 * enum kfi_av_type - How an address vector stores addresses.
 * @KFI_AV_UNSPEC: Let the provider choose.
 * @KFI_AV_MAP: Addresses map to provider-defined kfi_addr_t values.
 * @KFI_AV_TABLE: Addresses are numbered consecutively from zero.
 */
enum kfi_av_type {
	KFI_AV_UNSPEC,
	KFI_AV_MAP,
	KFI_AV_TABLE
};

/**
 * DOC: Memory registration modes (kfi_domain_attr.mr_mode)
 *
 * KFI_MR_LOCAL: local buffers must be registered and their descriptor
 * passed with each operation.
 * KFI_MR_RAW: keys may be larger than 64 bits (see kfi_mr_raw_attr()).
 * KFI_MR_VIRT_ADDR: RMA addresses are virtual addresses, not offsets.
 * KFI_MR_PROV_KEY: the provider chooses the keys.
 * KFI_MR_RMA_EVENT: memory regions can be bound to counters.
 * KFI_MR_ENDPOINT: memory regions are bound to and enabled on an endpoint.
 */
#define KFI_MR_LOCAL		(1 << 1)
#define KFI_MR_RAW		(1 << 2)
#define KFI_MR_VIRT_ADDR	(1 << 3)
#define KFI_MR_PROV_KEY		(1 << 4)
#define KFI_MR_RMA_EVENT	(1 << 5)
#define KFI_MR_ENDPOINT		(1 << 6)

/**
 * enum kfi_progress - Who drives operations forward.
 * @KFI_PROGRESS_UNSPEC: Let the provider choose.
 * @KFI_PROGRESS_AUTO: The provider progresses work on its own.
 * @KFI_PROGRESS_MANUAL: Work only progresses while the consumer calls into
 *	the provider (e.g. reads a CQ).
 */
enum kfi_progress {
	KFI_PROGRESS_UNSPEC,
	KFI_PROGRESS_AUTO,
	KFI_PROGRESS_MANUAL
};

/**
 * enum kfi_threading - Concurrency the consumer needs from a domain.
 * @KFI_THREAD_UNSPEC: Let the provider choose.
 * @KFI_THREAD_SAFE: Any call may be made concurrently on any object.
 * @KFI_THREAD_FID: Calls on one object are serialised by the consumer.
 * @KFI_THREAD_DOMAIN: Calls on the whole domain are serialised.
 * @KFI_THREAD_COMPLETION: Calls sharing a completion object are serialised.
 * @KFI_THREAD_ENDPOINT: Calls on one endpoint are serialised.
 */
enum kfi_threading {
	KFI_THREAD_UNSPEC,
	KFI_THREAD_SAFE,
	KFI_THREAD_FID,
	KFI_THREAD_DOMAIN,
	KFI_THREAD_COMPLETION,
	KFI_THREAD_ENDPOINT,
};

/**
 * enum kfi_resource_mgmt - Provider protection against queue overruns.
 * @KFI_RM_UNSPEC: Let the provider choose.
 * @KFI_RM_DISABLED: The consumer sizes its queues so they cannot overrun.
 * @KFI_RM_ENABLED: The provider guards against overruns.
 */
enum kfi_resource_mgmt {
	KFI_RM_UNSPEC,
	KFI_RM_DISABLED,
	KFI_RM_ENABLED
};

/**
 * DOC: Message ordering bits (msg_order, comp_order)
 *
 * KFI_ORDER_xAy means operations of kind x are not reordered ahead of
 * earlier operations of kind y, where R is RMA/atomic read, W is
 * RMA/atomic write and S is send.  KFI_ORDER_STRICT sets all nine and
 * KFI_ORDER_DATA asks for data to be placed in order too.
 */
#define KFI_ORDER_NONE		0
#define KFI_ORDER_RAR		(1 << 0)
#define KFI_ORDER_RAW		(1 << 1)
#define KFI_ORDER_RAS		(1 << 2)
#define KFI_ORDER_WAR		(1 << 3)
#define KFI_ORDER_WAW		(1 << 4)
#define KFI_ORDER_WAS		(1 << 5)
#define KFI_ORDER_SAR		(1 << 6)
#define KFI_ORDER_SAW		(1 << 7)
#define KFI_ORDER_SAS		(1 << 8)
#define KFI_ORDER_STRICT	0x1FF
#define KFI_ORDER_DATA		(1 << 16)

/**
 * enum kfi_ep_type - Endpoint communication style.
 * @KFI_EP_UNSPEC: Let the provider choose.
 * @KFI_EP_MSG: Connected, reliable.
 * @KFI_EP_DGRAM: Connectionless, unreliable.
 * @KFI_EP_RDM: Connectionless, reliable (reliable datagram).
 * @KFI_EP_SOCK_STREAM: Connected byte stream.
 * @KFI_EP_SOCK_DGRAM: Connectionless socket-like datagrams.
 */
enum kfi_ep_type {
	KFI_EP_UNSPEC,
	KFI_EP_MSG,
	KFI_EP_DGRAM,
	KFI_EP_RDM,
	KFI_EP_SOCK_STREAM,
	KFI_EP_SOCK_DGRAM
};

/**
 * enum - Wire protocols (kfi_ep_attr.protocol).
 * @KFI_PROTO_UNSPEC: Let the provider choose.
 * @KFI_PROTO_RDMA_CM_IB_RC: InfiniBand reliable connected, RDMA CM setup.
 * @KFI_PROTO_IWARP: iWARP.
 * @KFI_PROTO_IB_UD: InfiniBand unreliable datagram.
 * @KFI_PROTO_UDP: UDP.
 * @KFI_PROTO_SOCK_TCP: TCP sockets.
 * @KFI_PROTO_IWARP_RDM: Reliable datagrams over iWARP.
 * @KFI_PROTO_IB_RDM: Reliable datagrams over InfiniBand.
 * @KFI_PROTO_GNI: Cray GNI.
 * @KFI_PROTO_CXI: HPE Slingshot (CXI).
 *
 * Two providers that implement the same protocol and capabilities are
 * expected to interoperate.
 */
enum {
	KFI_PROTO_UNSPEC,
	KFI_PROTO_RDMA_CM_IB_RC,
	KFI_PROTO_IWARP,
	KFI_PROTO_IB_UD,
	KFI_PROTO_UDP,
	KFI_PROTO_SOCK_TCP,
	KFI_PROTO_IWARP_RDM,
	KFI_PROTO_IB_RDM,
	KFI_PROTO_GNI,
	KFI_PROTO_CXI
};

/**
 * enum kfi_iov_type - Kind of buffer list carried by a message or MR.
 * @KFI_KVEC: Array of &struct kvec (kernel virtual addresses).
 * @KFI_BVEC: Array of &struct bio_vec (pages).
 * @KFI_SGL: &struct scatterlist, already DMA-mapped by the consumer.
 *
 * Selects which member of the buffer union in &struct kfi_msg,
 * &struct kfi_msg_rma, &struct kfi_msg_tagged and &struct kfi_mr_attr is
 * valid.
 */
enum kfi_iov_type {
	KFI_KVEC = 1,
	KFI_BVEC,
	KFI_SGL,
};

/**
 * enum - Traffic classes (tclass members of the attributes).
 * @KFI_TC_UNSPEC: Let the provider choose.
 * @KFI_TC_DSCP: Flag: the low 8 bits hold a DSCP value (kfi_tc_dscp_set()).
 * @KFI_TC_LABEL: Flag: the value is one of the labels below.
 * @KFI_TC_BEST_EFFORT: Ordinary traffic.
 * @KFI_TC_LOW_LATENCY: Small, latency-sensitive messages.
 * @KFI_TC_DEDICATED_ACCESS: Traffic given reserved network resources.
 * @KFI_TC_BULK_DATA: Large, bandwidth-bound transfers.
 * @KFI_TC_SCAVENGER: Lowest priority traffic.
 * @KFI_TC_NETWORK_CTRL: Network control traffic.
 */
enum {
	KFI_TC_UNSPEC = 0,
	KFI_TC_DSCP = 0x100,
	KFI_TC_LABEL = 0x200,
	KFI_TC_BEST_EFFORT = KFI_TC_LABEL,
	KFI_TC_LOW_LATENCY,
	KFI_TC_DEDICATED_ACCESS,
	KFI_TC_BULK_DATA,
	KFI_TC_SCAVENGER,
	KFI_TC_NETWORK_CTRL,
};

/**
 * kfi_tc_dscp_set() - Build a traffic class from a DSCP value.
 * @dscp: Differentiated services code point.
 *
 * Return: A tclass value carrying @dscp and the KFI_TC_DSCP flag.
 */
static inline uint32_t kfi_tc_dscp_set(uint8_t dscp)
{
	return (uint32_t)dscp | KFI_TC_DSCP;
}

/**
 * kfi_tc_dscp_get() - Extract the DSCP value from a traffic class.
 * @tclass: Traffic class value.
 *
 * Return: The DSCP value, or 0 if @tclass was not built by
 * kfi_tc_dscp_set().
 */
static inline uint8_t kfi_tc_dscp_get(uint32_t tclass)
{
	return (tclass & KFI_TC_DSCP) ? (uint8_t)tclass : 0;
}

/**
 * DOC: Mode bits (kfi_info.mode)
 *
 * Mode bits are requirements a provider puts on the consumer.  A consumer
 * lists in its hints the modes it can live with, and the provider only
 * returns configurations needing a subset of them.
 *
 * KFI_CONTEXT: every operation context must point to a &struct kfi_context
 * the provider may use until the operation completes.
 * KFI_CONTEXT2: as KFI_CONTEXT, with the larger &struct kfi_context2.
 * KFI_MSG_PREFIX: message buffers start with a provider-owned prefix.
 * KFI_ASYNC_IOV: iov arrays must stay valid until the operation completes.
 * KFI_RX_CQ_DATA: remote CQ data consumes a posted receive.
 * KFI_LOCAL_MR: local buffers must be registered.
 * KFI_NOTIFY_FLAGS_ONLY: completion entries may only carry the flags that
 * were requested.
 * KFI_RESTRICTED_COMP: CQs and counters may only serve one endpoint.
 */
#define KFI_CONTEXT		(1ULL << 59)
#define KFI_MSG_PREFIX		(1ULL << 58)
#define KFI_ASYNC_IOV		(1ULL << 57)
#define KFI_RX_CQ_DATA		(1ULL << 56)
#define KFI_LOCAL_MR		(1ULL << 55)
#define KFI_NOTIFY_FLAGS_ONLY	(1ULL << 54)
#define KFI_RESTRICTED_COMP	(1ULL << 53)
#define KFI_CONTEXT2		(1ULL << 52)

/**
 * struct kfi_tx_attr - Transmit context attributes.
 * @caps: Capabilities of the context (subset of kfi_info.caps).
 * @mode: Mode bits that apply to transmits.
 * @op_flags: Flags applied to every transmit posted without explicit flags.
 * @msg_order: KFI_ORDER_* guarantees for transmitted messages.
 * @comp_order: KFI_ORDER_* guarantees for completion reporting.
 * @inject_size: Largest payload the inject calls accept.
 * @size: Number of transmits that may be outstanding.
 * @iov_limit: Most buffer segments per local buffer list.
 * @rma_iov_limit: Most segments per remote (RMA) buffer list.
 * @tclass: Traffic class, see KFI_TC_*.
 */
struct kfi_tx_attr {
	uint64_t		caps;
	uint64_t		mode;
	uint64_t		op_flags;
	uint64_t		msg_order;
	uint64_t		comp_order;
	size_t			inject_size;
	size_t			size;
	size_t			iov_limit;
	size_t			rma_iov_limit;
	uint32_t		tclass;
};

/**
 * struct kfi_rx_attr - Receive context attributes.
 * @caps: Capabilities of the context (subset of kfi_info.caps).
 * @mode: Mode bits that apply to receives.
 * @op_flags: Flags applied to every receive posted without explicit flags.
 * @msg_order: KFI_ORDER_* guarantees for received messages.
 * @comp_order: KFI_ORDER_* guarantees for completion reporting.
 * @total_buffered_recv: Bytes the provider may buffer for unexpected
 *	messages.
 * @size: Number of receives that may be posted.
 * @iov_limit: Most buffer segments per receive buffer list.
 */
struct kfi_rx_attr {
	uint64_t		caps;
	uint64_t		mode;
	uint64_t		op_flags;
	uint64_t		msg_order;
	uint64_t		comp_order;
	size_t			total_buffered_recv;
	size_t			size;
	size_t			iov_limit;
};

/**
 * struct kfi_ep_attr - Endpoint attributes.
 * @type: Communication style.
 * @protocol: Wire protocol, KFI_PROTO_*.
 * @protocol_version: Version of @protocol.
 * @max_msg_size: Largest message or RMA transfer.
 * @msg_prefix_size: Prefix length when KFI_MSG_PREFIX mode is used.
 * @max_order_raw_size: Largest read-after-write transfer kept in order.
 * @max_order_war_size: Largest write-after-read transfer kept in order.
 * @max_order_waw_size: Largest write-after-write transfer kept in order.
 * @mem_tag_format: Layout of the tag bits used by tagged messages.
 * @tx_ctx_cnt: Transmit contexts of a scalable endpoint.
 * @rx_ctx_cnt: Receive contexts of a scalable endpoint.
 * @auth_key_size: Length of @auth_key in bytes.
 * @auth_key: Authorization key; kfi_freeinfo() kfree()s it.
 */
struct kfi_ep_attr {
	enum kfi_ep_type	type;
	uint32_t		protocol;
	uint32_t		protocol_version;
	size_t			max_msg_size;
	size_t			msg_prefix_size;
	size_t			max_order_raw_size;
	size_t			max_order_war_size;
	size_t			max_order_waw_size;
	uint64_t		mem_tag_format;
	size_t			tx_ctx_cnt;
	size_t			rx_ctx_cnt;
	size_t			auth_key_size;
	uint8_t			*auth_key;
};

/**
 * struct kfi_domain_attr - Domain attributes.
 * @domain: An open domain to reuse, or NULL.
 * @name: Domain (usually device) name; kfi_freeinfo() kfree()s it.
 * @threading: Concurrency model.
 * @control_progress: Progress model of control operations.
 * @data_progress: Progress model of data transfers.
 * @resource_mgmt: Overrun protection.
 * @av_type: Preferred address vector type.
 * @mr_mode: KFI_MR_* bits.
 * @mr_key_size: Size in bytes of memory region keys.
 * @cq_data_size: Bytes of remote CQ data a transfer can carry.
 * @cq_cnt: Completion queues the domain supports.
 * @ep_cnt: Endpoints the domain supports.
 * @tx_ctx_cnt: Transmit contexts the domain supports.
 * @rx_ctx_cnt: Receive contexts the domain supports.
 * @max_ep_tx_ctx: Most transmit contexts on one scalable endpoint.
 * @max_ep_rx_ctx: Most receive contexts on one scalable endpoint.
 * @max_ep_stx_ctx: Most shared transmit contexts per endpoint.
 * @max_ep_srx_ctx: Most shared receive contexts per endpoint.
 * @cntr_cnt: Counters the domain supports.
 * @mr_iov_limit: Most segments in one memory registration.
 * @caps: Domain-level capabilities.
 * @mode: Domain-level mode bits.
 * @auth_key: Default authorization key; kfi_freeinfo() kfree()s it.
 * @auth_key_size: Length of @auth_key in bytes.
 * @max_err_data: Largest err_data a CQ or EQ error entry may carry.
 * @mr_cnt: Memory regions the domain supports.
 * @tclass: Default traffic class.
 */
struct kfi_domain_attr {
	struct kfid_domain	*domain;
	char			*name;
	enum kfi_threading	threading;
	enum kfi_progress	control_progress;
	enum kfi_progress	data_progress;
	enum kfi_resource_mgmt	resource_mgmt;
	enum kfi_av_type	av_type;
	int			mr_mode;
	size_t			mr_key_size;
	size_t			cq_data_size;
	size_t			cq_cnt;
	size_t			ep_cnt;
	size_t			tx_ctx_cnt;
	size_t			rx_ctx_cnt;
	size_t			max_ep_tx_ctx;
	size_t			max_ep_rx_ctx;
	size_t			max_ep_stx_ctx;
	size_t			max_ep_srx_ctx;
	size_t			cntr_cnt;
	size_t			mr_iov_limit;
	uint64_t		caps;
	uint64_t		mode;
	uint8_t			*auth_key;
	size_t			auth_key_size;
	size_t			max_err_data;
	size_t			mr_cnt;
	uint32_t		tclass;
};

/**
 * struct kfi_fabric_attr - Fabric attributes.
 * @fabric: An open fabric to reuse, or NULL.
 * @name: Fabric name; kfi_freeinfo() kfree()s it.
 * @prov_name: Provider name; selects the provider in hints and in
 *	kfi_fabric().  kfi_freeinfo() kfree()s it.
 * @prov_version: Provider version, packed with KFI_VERSION().
 * @api_version: kfabric API version the provider was built for.
 */
struct kfi_fabric_attr {
	struct kfid_fabric	*fabric;
	char			*name;
	char			*prov_name;
	uint32_t		prov_version;
	uint32_t		api_version;
};

/**
 * struct kfi_info - Description of one usable fabric configuration.
 * @next: Next entry of a list returned by kfi_getinfo(), or NULL.
 * @caps: KFI_* capability bits.
 * @mode: KFI_* mode bits the configuration requires.
 * @addr_format: Format of @src_addr and @dest_addr (KFI_SOCKADDR_IN...).
 * @src_addrlen: Length of @src_addr.
 * @dest_addrlen: Length of @dest_addr.
 * @src_addr: Local address, kmalloc()ed; may be NULL.
 * @dest_addr: Remote address, kmalloc()ed; may be NULL.
 * @handle: Connection request (from a KFI_CONNREQ event) or object to
 *	reuse; may be NULL.
 * @tx_attr: Transmit attributes.
 * @rx_attr: Receive attributes.
 * @ep_attr: Endpoint attributes.
 * @domain_attr: Domain attributes.
 * @fabric_attr: Fabric attributes.
 *
 * The same structure serves as hints to kfi_getinfo() and as its answer.
 * The attribute structures and strings are separate allocations owned by
 * the kfi_info; they are released together by kfi_freeinfo().
 */
struct kfi_info {
	struct kfi_info		*next;
	uint64_t		caps;
	uint64_t		mode;
	uint32_t		addr_format;
	size_t			src_addrlen;
	size_t			dest_addrlen;
	void			*src_addr;
	void			*dest_addr;
	kfid_t			handle;
	struct kfi_tx_attr	*tx_attr;
	struct kfi_rx_attr	*rx_attr;
	struct kfi_ep_attr	*ep_attr;
	struct kfi_domain_attr	*domain_attr;
	struct kfi_fabric_attr	*fabric_attr;
};

/**
 * enum - Object classes (kfid.fclass).
 * @KFI_CLASS_UNSPEC: Not set.
 * @KFI_CLASS_FABRIC: &struct kfid_fabric.
 * @KFI_CLASS_DOMAIN: &struct kfid_domain.
 * @KFI_CLASS_EP: Active endpoint, &struct kfid_ep.
 * @KFI_CLASS_SEP: Scalable endpoint, &struct kfid_ep.
 * @KFI_CLASS_RX_CTX: Receive context of a scalable endpoint.
 * @KFI_CLASS_SRX_CTX: Shared receive context.
 * @KFI_CLASS_TX_CTX: Transmit context of a scalable endpoint.
 * @KFI_CLASS_STX_CTX: Shared transmit context, &struct kfid_stx.
 * @KFI_CLASS_PEP: Passive endpoint, &struct kfid_pep.
 * @KFI_CLASS_INTERFACE: Interface opened with kfi_open_ops().
 * @KFI_CLASS_AV: &struct kfid_av.
 * @KFI_CLASS_MR: &struct kfid_mr.
 * @KFI_CLASS_EQ: &struct kfid_eq.
 * @KFI_CLASS_CQ: &struct kfid_cq.
 * @KFI_CLASS_CNTR: &struct kfid_cntr.
 * @KFI_CLASS_WAIT: &struct kfid_wait.
 * @KFI_CLASS_POLL: &struct kfid_poll.
 * @KFI_CLASS_CONNREQ: Pending connection request.
 */
enum {
	KFI_CLASS_UNSPEC,
	KFI_CLASS_FABRIC,
	KFI_CLASS_DOMAIN,
	KFI_CLASS_EP,
	KFI_CLASS_SEP,
	KFI_CLASS_RX_CTX,
	KFI_CLASS_SRX_CTX,
	KFI_CLASS_TX_CTX,
	KFI_CLASS_STX_CTX,
	KFI_CLASS_PEP,
	KFI_CLASS_INTERFACE,
	KFI_CLASS_AV,
	KFI_CLASS_MR,
	KFI_CLASS_EQ,
	KFI_CLASS_CQ,
	KFI_CLASS_CNTR,
	KFI_CLASS_WAIT,
	KFI_CLASS_POLL,
	KFI_CLASS_CONNREQ
};

struct kfi_eq_attr;
struct kfi_wait_attr;

/**
 * typedef kfi_comp_handler - Completion notification callback of a CQ.
 * @cq: Completion queue that has new entries (or a new error).
 * @context: The context given to kfi_cq_open().
 *
 * Called by the provider from its completion path, which may be hard or
 * soft interrupt context: the handler must not sleep and should do no more
 * than schedule work that later drains the CQ with kfi_cq_read().  A
 * provider may hold back further calls until a read of the CQ has returned
 * -EAGAIN, so the consumer must drain the queue until -EAGAIN to be called
 * again.  The handler may run on any CPU and concurrently with reads,
 * except for a CQ opened with KFI_AFFINITY (&struct kfi_cq_attr), whose
 * handler a provider that accepts the flag calls on the CPU
 * signaling_vector only.
 */
typedef void (*kfi_comp_handler)(struct kfid_cq *cq, void *context);

/**
 * typedef kfi_event_handler - Event notification callback of an EQ.
 * @eq: Event queue that has new events.
 * @context: The context given to kfi_eq_open().
 *
 * Same rules as &typedef kfi_comp_handler: may be called from interrupt
 * context, must not sleep, and may be held back until kfi_eq_read() has
 * returned -EAGAIN.
 */
typedef void (*kfi_event_handler)(struct kfid_eq *eq, void *context);

/**
 * define KFI_SELECTIVE_COMPLETION - Bind flag for completions on request.
 *
 * Given to kfi_ep_bind() with a CQ, only operations posted with
 * KFI_COMPLETION generate successful completion entries.
 */
#define KFI_SELECTIVE_COMPLETION (1ULL << 59)

/**
 * struct kfi_ops - Operations common to every kfabric object.
 * @size: Must be sizeof(struct kfi_ops).
 * @close: Destroy the object.  May sleep; process context.
 * @bind: Associate another object (@bfid) with this one.  May sleep.
 * @control: Object-specific control command (KFI_GETFIDFLAG...).
 * @ops_open: Open a named provider-specific interface on the object.
 *
 * Every op must be filled in; see "Ops table contract" above.
 */
struct kfi_ops {
	size_t	size;
	int	(*close)(struct kfid *fid);
	int	(*bind)(struct kfid *fid, struct kfid *bfid, uint64_t flags);
	int	(*control)(struct kfid *fid, int command, void *arg);
	int	(*ops_open)(struct kfid *fid, const char *name,
			    uint64_t flags, void **ops, void *context);
};

/**
 * struct kfid - Header at the start of every kfabric object.
 * @fclass: Object class, KFI_CLASS_*.
 * @context: Consumer context given when the object was opened.
 * @ops: Generic operations of the object.
 * @comp: Completed when the last reference is dropped (kfi_prov.h).
 * @ref_cnt: Reference count, managed with kfi_init_id(), kfi_ref_id(),
 *	kfi_deref_id() and kfi_close_id().
 */
struct kfid {
	size_t			fclass;
	void			*context;
	struct kfi_ops		*ops;
	struct completion	comp;
	atomic_t		ref_cnt;
};

/**
 * kfi_getinfo() - Find fabric configurations that satisfy a request.
 * @version: API version the caller was written against (KFI_VERSION());
 *	a version newer than the core's is refused.
 * @node: Node name or address, or NULL.
 * @service: Service name or port, or NULL.
 * @flags: KFI_SOURCE to make @node/@service name the local side,
 *	KFI_NUMERICHOST, KFI_PROV_ATTR_ONLY.
 * @hints: Wanted capabilities and attributes, or NULL for anything.  With
 *	hints->fabric_attr->prov_name set, only that provider is asked.
 * @info: On success, a list of matching configurations.
 *
 * Every registered provider that matches is asked, and their answers are
 * chained into one list, which the caller releases with kfi_freeinfo().
 *
 * Context: Process context; may sleep.
 * Return: 0 on success, -ENODATA if nothing matches, another negative
 * error code on failure.
 */
int kfi_getinfo(uint32_t version, const char *node, const char *service,
		uint64_t flags, struct kfi_info *hints, struct kfi_info **info);

/**
 * kfi_freeinfo() - Free a list of kfi_info structures.
 * @info: First entry of the list; may be NULL.
 *
 * Frees every entry reachable through ->next together with its attribute
 * structures, addresses, names and authorization keys.
 *
 * Context: Any context that could call kfree().
 */
void kfi_freeinfo(struct kfi_info *info);

/**
 * kfi_allocinfo() - Allocate an empty kfi_info, e.g. for use as hints.
 *
 * All five attribute structures are allocated as well, zeroed.
 *
 * Context: Process context; may sleep.
 * Return: The new structure, or NULL when out of memory.
 */
struct kfi_info *kfi_allocinfo(void);

/**
 * kfi_dupinfo() - Deep-copy one kfi_info.
 * @info: Entry to copy; with NULL this behaves like kfi_allocinfo().
 *
 * Only @info itself is copied, not the entries that follow it.
 *
 * Context: Process context; may sleep.
 * Return: The copy, to be released with kfi_freeinfo(), or NULL when out
 * of memory.
 */
struct kfi_info *kfi_dupinfo(const struct kfi_info *info);

/**
 * struct kfi_ops_fabric - Operations of a fabric object.
 * @size: Must be sizeof(struct kfi_ops_fabric).
 * @domain: Open a domain, see kfi_domain().
 * @passive_ep: Open a passive endpoint, see kfi_passive_ep().
 * @eq_open: Open an event queue, see kfi_eq_open().
 * @wait_open: Open a wait set, see kfi_wait_open().
 */
struct kfi_ops_fabric {
	size_t	size;
	int	(*domain)(struct kfid_fabric *fabric, struct kfi_info *info,
			  struct kfid_domain **dom, void *context);
	int	(*passive_ep)(struct kfid_fabric *fabric, struct kfi_info *info,
			      struct kfid_pep **pep, void *context);
	int	(*eq_open)(struct kfid_fabric *fabric, struct kfi_eq_attr *attr,
			   struct kfid_eq **eq, kfi_event_handler event_handler,
			   void *context);
	int	(*wait_open)(struct kfid_fabric *fabric,
			     struct kfi_wait_attr *attr,
			     struct kfid_wait **waitset);
};

/**
 * struct kfid_fabric - A fabric: the set of resources of one network.
 * @fid: Generic object header.
 * @ops: Fabric operations.
 * @api_version: API version the fabric was opened with.
 */
struct kfid_fabric {
	struct kfid		fid;
	struct kfi_ops_fabric	*ops;
	uint32_t		api_version;
};

/**
 * kfi_fabric() - Open a fabric.
 * @attr: Fabric attributes, normally those returned by kfi_getinfo();
 *	@attr->prov_name and @attr->name must be set.
 * @fabric: On success, the new fabric.
 * @context: Consumer context stored in the fabric.
 *
 * The provider is chosen by exact name; there is no fallback to another
 * provider.  The provider's module stays pinned while the fabric is open.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success, -ENODEV if no provider of that name is
 * registered, another negative error code on failure.
 */
int kfi_fabric(struct kfi_fabric_attr *attr, struct kfid_fabric **fabric,
	       void *context);

/**
 * KFI_CHECK_OP() - Test that an ops table provides an operation.
 * @ops: Pointer to the ops table; may be NULL.
 * @opstype: Type of the ops table, e.g. struct kfi_ops_cntr.
 * @op: Member name of the operation.
 *
 * True when @ops is non-NULL, its size member covers the whole @op member
 * and @op is non-NULL.  @ops is evaluated more than once.
 */
#define KFI_CHECK_OP(ops, opstype, op)					\
	((ops) != NULL &&						\
	 (ops)->size >= offsetofend(opstype, op) &&			\
	 (ops)->op != NULL)

/**
 * kfi_close() - Destroy a kfabric object.
 * @fid: Object header.
 *
 * Objects must be closed in the reverse order of their dependencies
 * (endpoints before the CQs and AVs bound to them, domains before their
 * fabric); closing an object still in use fails with -EBUSY.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_close(struct kfid *fid)
{
	return fid->ops->close(fid);
}

/**
 * struct kfi_alias - Argument of the KFI_ALIAS control command.
 * @fid: Where the new alias object is returned.
 * @flags: Operation flags for the alias (e.g. KFI_TRANSMIT | KFI_TRIGGER).
 */
struct kfi_alias {
	struct kfid	**fid;
	uint64_t	flags;
};

/**
 * struct kfi_mr_raw_attr - Argument of the KFI_GET_RAW_MR control command.
 * @flags: Must be zero.
 * @base_addr: Returns the base address peers must use.
 * @raw_key: Buffer receiving the raw key.
 * @key_size: In: size of @raw_key.  Out: size of the key.
 */
struct kfi_mr_raw_attr {
	uint64_t	flags;
	uint64_t	*base_addr;
	uint8_t		*raw_key;
	size_t		*key_size;
};

/**
 * struct kfi_mr_map_raw - Argument of the KFI_MAP_RAW_MR control command.
 * @flags: Must be zero.
 * @base_addr: Base address from the peer's kfi_mr_raw_attr().
 * @raw_key: Raw key from the peer.
 * @key_size: Length of @raw_key.
 * @key: Returns a 64-bit key usable in RMA calls.
 */
struct kfi_mr_map_raw {
	uint64_t	flags;
	uint64_t	base_addr;
	uint8_t		*raw_key;
	size_t		key_size;
	uint64_t	*key;
};

/**
 * enum - Commands of kfi_control().
 * @KFI_GETFIDFLAG: Read the object's flags; arg is uint64_t *.
 * @KFI_SETFIDFLAG: Set the object's flags; arg is uint64_t *.
 * @KFI_GETOPSFLAG: Read default operation flags; arg is uint64_t *.
 * @KFI_SETOPSFLAG: Set default operation flags; arg is uint64_t *.
 * @KFI_ALIAS: Create an alias; arg is &struct kfi_alias.
 * @KFI_GETWAIT: Fetch the underlying wait object; arg is a pointer to it.
 * @KFI_ENABLE: Enable an endpoint or MR; arg is NULL.
 * @KFI_BACKLOG: Set the listen backlog of a passive endpoint; arg is int *.
 * @KFI_GET_RAW_MR: Arg is &struct kfi_mr_raw_attr.
 * @KFI_MAP_RAW_MR: Arg is &struct kfi_mr_map_raw.
 * @KFI_UNMAP_KEY: Release a mapped raw key; arg is uint64_t *.
 * @KFI_QUEUE_WORK: Queue triggered work on a domain; arg is
 *	&struct kfi_deferred_work.
 * @KFI_CANCEL_WORK: Cancel queued triggered work; arg is
 *	&struct kfi_deferred_work.
 * @KFI_FLUSH_WORK: Cancel all triggered work of a domain; arg is NULL.
 * @KFI_REFRESH: Update an MR's backing memory; arg is
 *	&struct kfi_mr_modify.
 */
enum {
	KFI_GETFIDFLAG,
	KFI_SETFIDFLAG,
	KFI_GETOPSFLAG,
	KFI_SETOPSFLAG,
	KFI_ALIAS,
	KFI_GETWAIT,
	KFI_ENABLE,
	KFI_BACKLOG,
	KFI_GET_RAW_MR,
	KFI_MAP_RAW_MR,
	KFI_UNMAP_KEY,
	KFI_QUEUE_WORK,
	KFI_CANCEL_WORK,
	KFI_FLUSH_WORK,
	KFI_REFRESH
};

/**
 * kfi_control() - Run a control command on an object.
 * @fid: Object header.
 * @command: One of the KFI_* control commands.
 * @arg: Command argument, see the command list.
 *
 * Context: Process context and may sleep, except KFI_QUEUE_WORK and
 * KFI_CANCEL_WORK, which never sleep.
 * Return: 0 on success or a negative error code; -KFI_ENOSYS for a
 * command the object does not support.
 */
static inline int kfi_control(struct kfid *fid, int command, void *arg)
{
	return fid->ops->control(fid, command, arg);
}

/**
 * kfi_alias() - Create an alias of an object with other default flags.
 * @fid: Object to alias.
 * @alias_fid: On success, the alias.
 * @flags: Default operation flags of the alias.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_alias(struct kfid *fid, struct kfid **alias_fid,
			    uint64_t flags)
{
	struct kfi_alias alias = {
		.fid = alias_fid,
		.flags = flags,
	};

	return kfi_control(fid, KFI_ALIAS, &alias);
}

/**
 * kfi_open_ops() - Open a named provider-specific interface.
 * @fid: Object offering the interface.
 * @name: Interface name defined by the provider.
 * @flags: Interface-specific flags.
 * @ops: On success, the provider's ops table for the interface.
 * @context: Interface-specific argument.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success, -KFI_ENOSYS if the name is unknown, or another
 * negative error code.
 */
static inline int kfi_open_ops(struct kfid *fid, const char *name,
			       uint64_t flags, void **ops, void *context)
{
	return fid->ops->ops_open(fid, name, flags, ops, context);
}

/**
 * enum kfi_type - What kfi_tostr() is asked to format.
 * @KFI_TYPE_INFO: &struct kfi_info.
 * @KFI_TYPE_EP_TYPE: &enum kfi_ep_type.
 * @KFI_TYPE_CAPS: uint64_t capability bits.
 * @KFI_TYPE_OP_FLAGS: uint64_t operation flags.
 * @KFI_TYPE_ADDR_FORMAT: uint32_t address format.
 * @KFI_TYPE_TX_ATTR: &struct kfi_tx_attr.
 * @KFI_TYPE_RX_ATTR: &struct kfi_rx_attr.
 * @KFI_TYPE_EP_ATTR: &struct kfi_ep_attr.
 * @KFI_TYPE_DOMAIN_ATTR: &struct kfi_domain_attr.
 * @KFI_TYPE_FABRIC_ATTR: &struct kfi_fabric_attr.
 * @KFI_TYPE_THREADING: &enum kfi_threading.
 * @KFI_TYPE_PROGRESS: &enum kfi_progress.
 * @KFI_TYPE_PROTOCOL: uint32_t protocol.
 * @KFI_TYPE_MSG_ORDER: uint64_t ordering bits.
 * @KFI_TYPE_MODE: uint64_t mode bits.
 * @KFI_TYPE_AV_TYPE: &enum kfi_av_type.
 * @KFI_TYPE_ATOMIC_TYPE: &enum kfi_datatype.
 * @KFI_TYPE_ATOMIC_OP: &enum kfi_op.
 * @KFI_TYPE_VERSION: Nothing (data may be NULL); the core's version.
 * @KFI_TYPE_EQ_EVENT: uint32_t EQ event number.
 * @KFI_TYPE_CQ_EVENT_FLAGS: uint64_t completion flags.
 * @KFI_TYPE_MR_MODE: int memory registration mode bits.
 * @KFI_TYPE_OP_TYPE: &enum kfi_op_type.
 */
enum kfi_type {
	KFI_TYPE_INFO,
	KFI_TYPE_EP_TYPE,
	KFI_TYPE_CAPS,
	KFI_TYPE_OP_FLAGS,
	KFI_TYPE_ADDR_FORMAT,
	KFI_TYPE_TX_ATTR,
	KFI_TYPE_RX_ATTR,
	KFI_TYPE_EP_ATTR,
	KFI_TYPE_DOMAIN_ATTR,
	KFI_TYPE_FABRIC_ATTR,
	KFI_TYPE_THREADING,
	KFI_TYPE_PROGRESS,
	KFI_TYPE_PROTOCOL,
	KFI_TYPE_MSG_ORDER,
	KFI_TYPE_MODE,
	KFI_TYPE_AV_TYPE,
	KFI_TYPE_ATOMIC_TYPE,
	KFI_TYPE_ATOMIC_OP,
	KFI_TYPE_VERSION,
	KFI_TYPE_EQ_EVENT,
	KFI_TYPE_CQ_EVENT_FLAGS,
	KFI_TYPE_MR_MODE,
	KFI_TYPE_OP_TYPE
};

/**
 * kfi_tostr() - Format a kfabric value or structure as text.
 * @data: Pointer to the value, of the type named by @datatype.
 * @datatype: What @data points to.
 *
 * The string is freshly allocated for each call, so concurrent callers do
 * not interfere.
 *
 * Context: Process context; may sleep.
 * Return: A NUL-terminated string the caller must kfree(), or NULL when
 * out of memory or @datatype is unknown.
 */
char *kfi_tostr(const void *data, enum kfi_type datatype);

/**
 * kfi_tostr_r() - Format a kfabric value or structure into a caller buffer.
 * @buf: Destination; always NUL-terminated on success.
 * @len: Size of @buf in bytes; output that does not fit is cut.
 * @data: Pointer to the value, of the type named by @datatype.
 * @datatype: What @data points to.
 *
 * The same text as kfi_tostr() without an allocation (a kfabric addition,
 * like libfabric's fi_tostr_r()).
 *
 * Context: Any context; does not sleep or allocate.
 * Return: @buf, or NULL when @buf is NULL, @len is 0, @data is NULL (except
 * for KFI_TYPE_VERSION) or @datatype is unknown.
 */
char *kfi_tostr_r(char *buf, size_t len, const void *data,
		  enum kfi_type datatype);

/**
 * enum kfi_param_type - Type of a kfabric parameter's value.
 * @KFI_PARAM_STRING: Free-form string.
 * @KFI_PARAM_INT: Decimal integer.
 * @KFI_PARAM_BOOL: Boolean, "0"/"1".
 */
enum kfi_param_type {
	KFI_PARAM_STRING,
	KFI_PARAM_INT,
	KFI_PARAM_BOOL
};

/**
 * struct kfi_param - One tunable of the core or of a provider.
 * @name: Parameter name.
 * @type: How to interpret @value.
 * @help_string: One-line description.
 * @value: Current value as text, or NULL if unset.
 */
struct kfi_param {
	const char *name;
	enum kfi_param_type type;
	const char *help_string;
	const char *value;
};

/**
 * kfi_getparams() - List the known kfabric parameters.
 * @params: On success, an array of @count entries owned by the caller.
 * @count: On success, the number of entries.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
int kfi_getparams(struct kfi_param **params, int *count);

/**
 * kfi_freeparams() - Free an array returned by kfi_getparams().
 * @params: The array; may be NULL.
 *
 * Context: Any context that could call kfree().
 */
void kfi_freeparams(struct kfi_param *params);

/**
 * struct kfi_context - Per-operation scratch space for the provider.
 * @internal: Owned by the provider while the operation is outstanding.
 *
 * When KFI_CONTEXT mode is in effect, the context argument of every
 * operation must point to one of these, which must stay valid until the
 * operation completes or is cancelled.
 */
struct kfi_context {
	void	*internal[4];
};

/**
 * struct kfi_context2 - Larger per-operation scratch space.
 * @internal: Owned by the provider while the operation is outstanding.
 *
 * Used instead of &struct kfi_context in KFI_CONTEXT2 mode.
 */
struct kfi_context2 {
	void	*internal[8];
};

#endif /* _KFABRIC_H_ */
