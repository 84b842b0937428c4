/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfabric event queues, completion queues, counters, wait sets and poll
 * sets.
 *
 * Event queues (EQ) report control-path events such as connection setup.
 * Completion queues (CQ) report finished data transfers.  Counters count
 * them instead of reporting each one.  Wait and poll sets group several of
 * these objects.
 */

#ifndef _KFI_EQ_H_
#define _KFI_EQ_H_

#include <kfabric.h>

/**
 * enum kfi_wait_obj - How a waiter blocks on an EQ, CQ or counter.
 * @KFI_WAIT_NONE: No blocking reads are possible.
 * @KFI_WAIT_UNSPEC: Let the provider choose.
 * @KFI_WAIT_SET: Block through the wait set given in the attributes.
 * @KFI_WAIT_QUEUE: A Linux wait queue, available through KFI_GETWAIT.
 */
enum kfi_wait_obj {
	KFI_WAIT_NONE,
	KFI_WAIT_UNSPEC,
	KFI_WAIT_SET,
	KFI_WAIT_QUEUE
};

/**
 * struct kfi_wait_attr - Wait set attributes.
 * @wait_obj: Underlying wait object.
 * @flags: Must be zero.
 */
struct kfi_wait_attr {
	enum kfi_wait_obj	wait_obj;
	uint64_t		flags;
};

/**
 * struct kfid_wait - A wait set.
 * @kfid: Generic object header (note: named kfid, not fid).
 * @ops: Wait set operations.
 */
struct kfid_wait {
	struct kfid		kfid;
	struct kfi_ops_wait	*ops;
};

/**
 * struct kfi_ops_wait - Operations of a wait set.
 * @size: Must be sizeof(struct kfi_ops_wait).
 * @wait: Block until an object in the set is signalled, see kfi_wait().
 */
struct kfi_ops_wait {
	size_t	size;
	int	(*wait)(struct kfid_wait *waitset, int timeout);
};

/**
 * struct kfi_poll_attr - Poll set attributes.
 * @flags: Must be zero.
 */
struct kfi_poll_attr {
	uint64_t		flags;
};

/**
 * struct kfi_ops_poll - Operations of a poll set.
 * @size: Must be sizeof(struct kfi_ops_poll).
 * @poll: Collect the contexts of members with pending events.
 * @poll_add: Add a CQ, EQ or counter to the set.
 * @poll_del: Remove a member from the set.
 */
struct kfi_ops_poll {
	size_t	size;
	int	(*poll)(struct kfid_poll *pollset, void **context, int count);
	int	(*poll_add)(struct kfid_poll *pollset, struct kfid *event_kfid,
			    uint64_t flags);
	int	(*poll_del)(struct kfid_poll *pollset, struct kfid *event_kfid,
			    uint64_t flags);
};

/**
 * struct kfid_poll - A poll set.
 * @fid: Generic object header.
 * @ops: Poll set operations.
 */
struct kfid_poll {
	struct kfid		fid;
	struct kfi_ops_poll	*ops;
};

/**
 * struct kfi_eq_attr - Event queue attributes.
 * @size: Number of events the queue can hold.
 * @flags: KFI_WRITE to allow kfi_eq_write().
 * @wait_obj: Wait object for kfi_eq_sread().
 * @signaling_vector: Preferred interrupt vector or CPU, if supported.
 * @wait_set: Wait set to join when @wait_obj is KFI_WAIT_SET.
 */
struct kfi_eq_attr {
	size_t			size;
	uint64_t		flags;
	enum kfi_wait_obj	wait_obj;
	int			signaling_vector;
	struct kfid_wait	*wait_set;
};

/**
 * enum - Event numbers reported by kfi_eq_read().
 * @KFI_NOTIFY: Generic notification; &struct kfi_eq_entry.
 * @KFI_CONNREQ: Connection request on a passive endpoint;
 *	&struct kfi_eq_cm_entry with the request in info->handle.
 * @KFI_CONNECTED: Connection established; &struct kfi_eq_cm_entry.
 * @KFI_SHUTDOWN: Connection closed; &struct kfi_eq_cm_entry.
 * @KFI_MR_COMPLETE: Asynchronous memory registration done;
 *	&struct kfi_eq_entry.
 * @KFI_AV_COMPLETE: Asynchronous address vector update done;
 *	&struct kfi_eq_entry.
 * @KFI_JOIN_COMPLETE: Multicast join done; &struct kfi_eq_entry.
 */
enum {
	KFI_NOTIFY,
	KFI_CONNREQ,
	KFI_CONNECTED,
	KFI_SHUTDOWN,
	KFI_MR_COMPLETE,
	KFI_AV_COMPLETE,
	KFI_JOIN_COMPLETE
};

/**
 * struct kfi_eq_entry - Generic event entry.
 * @fid: Object the event is about.
 * @context: Context of that object or of the operation.
 * @data: Event-specific data.
 */
struct kfi_eq_entry {
	struct kfid		*fid;
	void			*context;
	uint64_t		data;
};

/**
 * struct kfi_eq_err_entry - Error event entry, read with kfi_eq_readerr().
 * @fid: Object the error is about.
 * @context: Context of that object or of the operation.
 * @data: Event-specific data.
 * @err: Positive kfabric error code (KFI_E*).
 * @prov_errno: Provider-specific error code, see kfi_eq_strerror().
 * @err_data: Provider-specific error data; valid until the next read of
 *	the queue.
 * @err_data_size: Length of @err_data.
 */
struct kfi_eq_err_entry {
	struct kfid		*fid;
	void			*context;
	uint64_t		data;
	int			err;
	int			prov_errno;
	void			*err_data;
	size_t			err_data_size;
};

/**
 * struct kfi_eq_cm_entry - Connection management event entry.
 * @fid: Endpoint or passive endpoint concerned.
 * @info: For KFI_CONNREQ, the request; the reader must release it with
 *	kfi_freeinfo().
 * @data: Private data sent by the peer, as much as fits in the buffer
 *	given to kfi_eq_read().
 */
struct kfi_eq_cm_entry {
	struct kfid		*fid;
	struct kfi_info		*info;
	uint8_t			data[];
};

/**
 * struct kfi_ops_eq - Operations of an event queue.
 * @size: Must be sizeof(struct kfi_ops_eq).
 * @read: Non-blocking read, see kfi_eq_read().
 * @readerr: Read an error entry, see kfi_eq_readerr().
 * @write: Insert an event, see kfi_eq_write().
 * @sread: Blocking read, see kfi_eq_sread().
 * @strerror: Describe a provider error, see kfi_eq_strerror().
 */
struct kfi_ops_eq {
	size_t	size;
	ssize_t	(*read)(struct kfid_eq *eq, uint32_t *event,
			void *buf, size_t len, uint64_t flags);
	ssize_t	(*readerr)(struct kfid_eq *eq, struct kfi_eq_err_entry *buf,
			   uint64_t flags);
	ssize_t	(*write)(struct kfid_eq *eq, uint32_t event,
			 const void *buf, size_t len, uint64_t flags);
	ssize_t	(*sread)(struct kfid_eq *eq, uint32_t *event,
			 void *buf, size_t len, int timeout, uint64_t flags);
	const char *(*strerror)(struct kfid_eq *eq, int prov_errno,
				const void *err_data, char *buf, size_t len);
};

/**
 * struct kfid_eq - An event queue.
 * @fid: Generic object header.
 * @ops: Event queue operations.
 * @event_handler: Consumer callback given to kfi_eq_open(), or NULL.
 */
struct kfid_eq {
	struct kfid		fid;
	struct kfi_ops_eq	*ops;
	kfi_event_handler	event_handler;
};

/**
 * enum kfi_cq_format - Layout of the entries a CQ returns.
 * @KFI_CQ_FORMAT_UNSPEC: Let the provider choose.
 * @KFI_CQ_FORMAT_CONTEXT: &struct kfi_cq_entry.
 * @KFI_CQ_FORMAT_MSG: &struct kfi_cq_msg_entry.
 * @KFI_CQ_FORMAT_DATA: &struct kfi_cq_data_entry.
 * @KFI_CQ_FORMAT_TAGGED: &struct kfi_cq_tagged_entry.
 */
enum kfi_cq_format {
	KFI_CQ_FORMAT_UNSPEC,
	KFI_CQ_FORMAT_CONTEXT,
	KFI_CQ_FORMAT_MSG,
	KFI_CQ_FORMAT_DATA,
	KFI_CQ_FORMAT_TAGGED,
};

/**
 * struct kfi_cq_entry - Completion entry of KFI_CQ_FORMAT_CONTEXT.
 * @op_context: Context passed with the completed operation.
 */
struct kfi_cq_entry {
	void			*op_context;
};

/**
 * struct kfi_cq_msg_entry - Completion entry of KFI_CQ_FORMAT_MSG.
 * @op_context: Context passed with the completed operation.
 * @flags: KFI_* bits describing the operation (KFI_SEND, KFI_RECV...).
 * @len: Bytes received (for receives).
 */
struct kfi_cq_msg_entry {
	void			*op_context;
	uint64_t		flags;
	size_t			len;
};

/**
 * struct kfi_cq_data_entry - Completion entry of KFI_CQ_FORMAT_DATA.
 * @op_context: Context passed with the completed operation.
 * @flags: KFI_* bits describing the operation.
 * @len: Bytes received.
 * @buf: Start of the received data (useful with multi-receive buffers).
 * @data: Remote CQ data, valid when @flags has KFI_REMOTE_CQ_DATA.
 */
struct kfi_cq_data_entry {
	void			*op_context;
	uint64_t		flags;
	size_t			len;
	void			*buf;
	uint64_t		data;
};

/**
 * struct kfi_cq_tagged_entry - Completion entry of KFI_CQ_FORMAT_TAGGED.
 * @op_context: Context passed with the completed operation.
 * @flags: KFI_* bits describing the operation.
 * @len: Bytes received.
 * @buf: Start of the received data.
 * @data: Remote CQ data, valid when @flags has KFI_REMOTE_CQ_DATA.
 * @tag: Tag of the received message.
 */
struct kfi_cq_tagged_entry {
	void			*op_context;
	uint64_t		flags;
	size_t			len;
	void			*buf;
	uint64_t		data;
	uint64_t		tag;
};

/**
 * struct kfi_cq_err_entry - Error completion, read with kfi_cq_readerr().
 * @op_context: Context passed with the failed operation.
 * @flags: KFI_* bits describing the operation.
 * @len: Bytes transferred before the error.
 * @buf: Start of the received data.
 * @data: Remote CQ data, if any.
 * @tag: Tag of the message, if any.
 * @olen: Bytes that did not fit (with KFI_ETRUNC).
 * @err: Positive kfabric error code (KFI_E*).
 * @prov_errno: Provider-specific error code, see kfi_cq_strerror().
 * @err_data: Provider-specific error data; valid until the next read of
 *	the queue.
 * @err_data_size: Length of @err_data.
 */
struct kfi_cq_err_entry {
	void			*op_context;
	uint64_t		flags;
	size_t			len;
	void			*buf;
	uint64_t		data;
	uint64_t		tag;
	size_t			olen;
	int			err;
	int			prov_errno;
	void			*err_data;
	size_t			err_data_size;
};

/**
 * enum kfi_cq_wait_cond - Condition a blocking CQ read waits for.
 * @KFI_CQ_COND_NONE: Any entry.
 * @KFI_CQ_COND_THRESHOLD: At least the number of entries given as a
 *	size_t through the cond argument.
 */
enum kfi_cq_wait_cond {
	KFI_CQ_COND_NONE,
	KFI_CQ_COND_THRESHOLD
};

/**
 * struct kfi_cq_attr - Completion queue attributes.
 * @size: Number of entries the queue can hold.
 * @flags: 0 or KFI_AFFINITY: @signaling_vector is a CPU, on which the
 *	completion handler is called (and, where the provider can, the work
 *	producing the completions runs); an invalid or offline CPU fails the
 *	open with -EINVAL.
 * @format: Entry layout.
 * @wait_obj: Wait object for the blocking reads.
 * @signaling_vector: Preferred interrupt vector or CPU, if supported; the
 *	CPU with KFI_AFFINITY.
 * @wait_cond: Default condition of the blocking reads.
 * @wait_set: Wait set to join when @wait_obj is KFI_WAIT_SET.
 */
struct kfi_cq_attr {
	size_t			size;
	uint64_t		flags;
	enum kfi_cq_format	format;
	enum kfi_wait_obj	wait_obj;
	int			signaling_vector;
	enum kfi_cq_wait_cond	wait_cond;
	struct kfid_wait	*wait_set;
};

/**
 * struct kfi_ops_cq - Operations of a completion queue.
 * @size: Must be sizeof(struct kfi_ops_cq).
 * @read: Non-blocking read, see kfi_cq_read().
 * @readfrom: Non-blocking read with source addresses.
 * @readerr: Read an error entry, see kfi_cq_readerr().
 * @sread: Blocking read.
 * @sreadfrom: Blocking read with source addresses.
 * @signal: Wake up blocked readers.
 * @strerror: Describe a provider error.
 *
 * @read, @readfrom and @readerr must be safe to call from several CPUs at
 * once on the same CQ and must not sleep.
 */
struct kfi_ops_cq {
	size_t	size;
	ssize_t	(*read)(struct kfid_cq *cq, void *buf, size_t count);
	ssize_t	(*readfrom)(struct kfid_cq *cq, void *buf, size_t count,
			    kfi_addr_t *src_addr);
	ssize_t	(*readerr)(struct kfid_cq *cq, struct kfi_cq_err_entry *buf,
			   uint64_t flags);
	ssize_t	(*sread)(struct kfid_cq *cq, void *buf, size_t count,
			 const void *cond, int timeout);
	ssize_t	(*sreadfrom)(struct kfid_cq *cq, void *buf, size_t count,
			     kfi_addr_t *src_addr, const void *cond,
			     int timeout);
	int	(*signal)(struct kfid_cq *cq);
	const char *(*strerror)(struct kfid_cq *cq, int prov_errno,
				const void *err_data, char *buf, size_t len);
};

/**
 * struct kfid_cq - A completion queue.
 * @fid: Generic object header.
 * @ops: Completion queue operations.
 * @comp_handler: Consumer callback given to kfi_cq_open(), or NULL.
 */
struct kfid_cq {
	struct kfid		fid;
	struct kfi_ops_cq	*ops;
	kfi_comp_handler	comp_handler;
};

/**
 * enum kfi_cntr_events - What a counter counts.
 * @KFI_CNTR_EVENTS_COMP: Completed operations.
 */
enum kfi_cntr_events {
	KFI_CNTR_EVENTS_COMP
};

/**
 * struct kfi_cntr_attr - Counter attributes.
 * @events: What is counted.
 * @wait_obj: Wait object for kfi_cntr_wait().
 * @wait_set: Wait set to join when @wait_obj is KFI_WAIT_SET.
 * @flags: Must be zero.
 */
struct kfi_cntr_attr {
	enum kfi_cntr_events	events;
	enum kfi_wait_obj	wait_obj;
	struct kfid_wait	*wait_set;
	uint64_t		flags;
};

/**
 * struct kfi_ops_cntr - Operations of a counter.
 * @size: Must be sizeof(struct kfi_ops_cntr).
 * @read: Current success count.
 * @readerr: Current error count.
 * @add: Add to the success count.
 * @set: Set the success count.
 * @wait: Block until the success count reaches a threshold.
 * @adderr: Add to the error count (optional).
 * @seterr: Set the error count (optional).
 *
 * All ops except @wait must not sleep; @add, @set, @adderr and @seterr
 * must also be usable from the provider's own completion context, since
 * they may fire triggered operations.
 */
struct kfi_ops_cntr {
	size_t	size;
	uint64_t (*read)(struct kfid_cntr *cntr);
	uint64_t (*readerr)(struct kfid_cntr *cntr);
	int	(*add)(struct kfid_cntr *cntr, uint64_t value);
	int	(*set)(struct kfid_cntr *cntr, uint64_t value);
	int	(*wait)(struct kfid_cntr *cntr, uint64_t threshold,
			int timeout);
	int	(*adderr)(struct kfid_cntr *cntr, uint64_t value);
	int	(*seterr)(struct kfid_cntr *cntr, uint64_t value);
};

/**
 * struct kfid_cntr - A completion counter.
 * @fid: Generic object header.
 * @ops: Counter operations.
 */
struct kfid_cntr {
	struct kfid		fid;
	struct kfi_ops_cntr	*ops;
};

/**
 * kfi_wait() - Wait for any object of a wait set to be signalled.
 * @waitset: Wait set.
 * @timeout: Timeout in milliseconds, negative to wait forever.
 *
 * Context: Process context; sleeps.
 * Return: 0 when signalled, -KFI_ETIMEDOUT, or another negative error code.
 */
static inline int kfi_wait(struct kfid_wait *waitset, int timeout)
{
	return waitset->ops->wait(waitset, timeout);
}

/**
 * kfi_poll() - Find the members of a poll set that have pending events.
 * @pollset: Poll set.
 * @context: Array receiving the context of each ready member.
 * @count: Size of @context.
 *
 * Context: Any context; does not sleep.
 * Return: Number of contexts stored, or a negative error code.
 */
static inline int kfi_poll(struct kfid_poll *pollset, void **context,
			   int count)
{
	return pollset->ops->poll(pollset, context, count);
}

/**
 * kfi_poll_add() - Add an object to a poll set.
 * @pollset: Poll set.
 * @event_kfid: CQ, EQ or counter to add.
 * @flags: Must be zero.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_poll_add(struct kfid_poll *pollset,
			       struct kfid *event_kfid, uint64_t flags)
{
	return pollset->ops->poll_add(pollset, event_kfid, flags);
}

/**
 * kfi_poll_del() - Remove an object from a poll set.
 * @pollset: Poll set.
 * @event_kfid: Member to remove.
 * @flags: Must be zero.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_poll_del(struct kfid_poll *pollset,
			       struct kfid *event_kfid, uint64_t flags)
{
	return pollset->ops->poll_del(pollset, event_kfid, flags);
}

/**
 * kfi_eq_open() - Open an event queue.
 * @fabric: Fabric the queue belongs to.
 * @attr: Queue attributes.
 * @eq: On success, the new queue.
 * @event_handler: Called when events arrive, or NULL; see
 *	&typedef kfi_event_handler for its context rules.
 * @context: Consumer context, passed to @event_handler.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_eq_open(struct kfid_fabric *fabric,
			      struct kfi_eq_attr *attr, struct kfid_eq **eq,
			      kfi_event_handler event_handler, void *context)
{
	return fabric->ops->eq_open(fabric, attr, eq, event_handler, context);
}

/**
 * kfi_eq_read() - Read one event without blocking.
 * @eq: Event queue.
 * @event: Returns the event number (KFI_CONNREQ...).
 * @buf: Buffer for the event entry.
 * @len: Size of @buf.
 * @flags: KFI_PEEK to leave the event on the queue.
 *
 * Context: Any context but hard interrupts and sections with interrupts
 * disabled (the EQ's lock is a BH lock); does not sleep.
 * Return: Bytes stored in @buf, -KFI_EAGAIN if the queue is empty,
 * -KFI_EAVAIL if an error entry must be read with kfi_eq_readerr(), or
 * another negative error code.
 */
static inline ssize_t kfi_eq_read(struct kfid_eq *eq, uint32_t *event,
				  void *buf, size_t len, uint64_t flags)
{
	return eq->ops->read(eq, event, buf, len, flags);
}

/**
 * kfi_eq_readerr() - Read one error entry.
 * @eq: Event queue.
 * @buf: Receives the error entry.
 * @flags: KFI_PEEK to leave the entry on the queue.
 *
 * Context: Any context but hard interrupts and sections with interrupts
 * disabled (the EQ's lock is a BH lock); does not sleep.
 * Return: Size of the entry on success, -KFI_EAGAIN if there is none, or
 * another negative error code.
 */
static inline ssize_t kfi_eq_readerr(struct kfid_eq *eq,
				     struct kfi_eq_err_entry *buf,
				     uint64_t flags)
{
	return eq->ops->readerr(eq, buf, flags);
}

/**
 * kfi_eq_write() - Insert an event into an event queue.
 * @eq: Event queue opened with the KFI_WRITE flag.
 * @event: Event number.
 * @buf: Event entry.
 * @len: Size of @buf.
 * @flags: Must be zero.
 *
 * Context: Any context but hard interrupts and sections with interrupts
 * disabled (the EQ's lock is a BH lock); does not sleep.
 * Return: Bytes written or a negative error code.
 */
static inline ssize_t kfi_eq_write(struct kfid_eq *eq, uint32_t event,
				   const void *buf, size_t len, uint64_t flags)
{
	return eq->ops->write(eq, event, buf, len, flags);
}

/**
 * kfi_eq_sread() - Read one event, waiting for it if necessary.
 * @eq: Event queue.
 * @event: Returns the event number.
 * @buf: Buffer for the event entry.
 * @len: Size of @buf.
 * @timeout: Timeout in milliseconds, negative to wait forever.
 * @flags: KFI_PEEK to leave the event on the queue.
 *
 * Context: Process context; sleeps.
 * Return: As kfi_eq_read(), or -KFI_ETIMEDOUT.
 */
static inline ssize_t kfi_eq_sread(struct kfid_eq *eq, uint32_t *event,
				   void *buf, size_t len, int timeout,
				   uint64_t flags)
{
	return eq->ops->sread(eq, event, buf, len, timeout, flags);
}

/**
 * kfi_eq_strerror() - Describe a provider-specific EQ error.
 * @eq: Event queue that reported the error.
 * @prov_errno: prov_errno of the error entry.
 * @err_data: err_data of the error entry.
 * @buf: Optional buffer for the text, or NULL.
 * @len: Size of @buf.
 *
 * Context: Any context; does not sleep.
 * Return: The description (in @buf or a constant string).
 */
static inline const char *kfi_eq_strerror(struct kfid_eq *eq, int prov_errno,
					  const void *err_data, char *buf,
					  size_t len)
{
	return eq->ops->strerror(eq, prov_errno, err_data, buf, len);
}

/**
 * kfi_cq_read() - Read completions without blocking.
 * @cq: Completion queue.
 * @buf: Array of entries in the CQ's format.
 * @count: Number of entries @buf can hold.
 *
 * May be called on the same CQ from several CPUs concurrently; each entry
 * is returned to exactly one caller.
 *
 * Context: Process or softirq context, also with spinlocks held; does not
 * sleep.
 * Return: Number of entries read, -KFI_EAGAIN if the queue is empty,
 * -KFI_EAVAIL if an error entry must be read with kfi_cq_readerr(), or
 * another negative error code.
 */
static inline ssize_t kfi_cq_read(struct kfid_cq *cq, void *buf, size_t count)
{
	return cq->ops->read(cq, buf, count);
}

/**
 * kfi_cq_readfrom() - Read completions and their source addresses.
 * @cq: Completion queue.
 * @buf: Array of entries in the CQ's format.
 * @count: Number of entries @buf can hold.
 * @src_addr: Array of @count source addresses (KFI_ADDR_NOTAVAIL when
 *	unknown).
 *
 * Context: As kfi_cq_read().
 * Return: As kfi_cq_read().
 */
static inline ssize_t kfi_cq_readfrom(struct kfid_cq *cq, void *buf,
				      size_t count, kfi_addr_t *src_addr)
{
	return cq->ops->readfrom(cq, buf, count, src_addr);
}

/**
 * kfi_cq_readerr() - Read one error completion.
 * @cq: Completion queue.
 * @buf: Receives the error entry.
 * @flags: Must be zero.
 *
 * Context: As kfi_cq_read().
 * Return: 1 when an entry was read, -KFI_EAGAIN if there is none, or
 * another negative error code.
 */
static inline ssize_t kfi_cq_readerr(struct kfid_cq *cq,
				     struct kfi_cq_err_entry *buf,
				     uint64_t flags)
{
	return cq->ops->readerr(cq, buf, flags);
}

/**
 * kfi_cq_sread() - Read completions, waiting for them if necessary.
 * @cq: Completion queue.
 * @buf: Array of entries in the CQ's format.
 * @count: Number of entries @buf can hold.
 * @cond: Wait condition argument (see &enum kfi_cq_wait_cond), or NULL.
 * @timeout: Timeout in milliseconds, negative to wait forever.
 *
 * Context: Process context; sleeps.
 * Return: As kfi_cq_read(); -KFI_EAGAIN when nothing arrived before the
 * timeout or kfi_cq_signal() ended the wait (as libfabric's fi_cq_sread).
 */
static inline ssize_t kfi_cq_sread(struct kfid_cq *cq, void *buf,
				   size_t count, const void *cond, int timeout)
{
	return cq->ops->sread(cq, buf, count, cond, timeout);
}

/**
 * kfi_cq_sreadfrom() - Blocking read with source addresses.
 * @cq: Completion queue.
 * @buf: Array of entries in the CQ's format.
 * @count: Number of entries @buf can hold.
 * @src_addr: Array of @count source addresses.
 * @cond: Wait condition argument, or NULL.
 * @timeout: Timeout in milliseconds, negative to wait forever.
 *
 * Context: Process context; sleeps.
 * Return: As kfi_cq_sread().
 */
static inline ssize_t kfi_cq_sreadfrom(struct kfid_cq *cq, void *buf,
				       size_t count, kfi_addr_t *src_addr,
				       const void *cond, int timeout)
{
	return cq->ops->sreadfrom(cq, buf, count, src_addr, cond, timeout);
}

/**
 * kfi_cq_signal() - Wake up threads blocked reading a CQ.
 * @cq: Completion queue.
 *
 * Context: Any context but hard interrupts and sections with interrupts
 * disabled (the CQ's lock is a BH lock); does not sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_cq_signal(struct kfid_cq *cq)
{
	return cq->ops->signal(cq);
}

/**
 * kfi_cq_strerror() - Describe a provider-specific completion error.
 * @cq: Completion queue that reported the error.
 * @prov_errno: prov_errno of the error entry.
 * @err_data: err_data of the error entry.
 * @buf: Optional buffer for the text, or NULL.
 * @len: Size of @buf.
 *
 * Context: Any context; does not sleep.
 * Return: The description (in @buf or a constant string).
 */
static inline const char *kfi_cq_strerror(struct kfid_cq *cq, int prov_errno,
					  const void *err_data, char *buf,
					  size_t len)
{
	return cq->ops->strerror(cq, prov_errno, err_data, buf, len);
}

/**
 * kfi_cntr_read() - Read a counter's success count.
 * @cntr: Counter.
 *
 * Context: Any context, hard interrupts and sections with interrupts
 * disabled included; takes no lock, does not sleep.
 * Return: The current count.
 */
static inline uint64_t kfi_cntr_read(struct kfid_cntr *cntr)
{
	return cntr->ops->read(cntr);
}

/**
 * kfi_cntr_readerr() - Read a counter's error count.
 * @cntr: Counter.
 *
 * Context: Any context, hard interrupts and sections with interrupts
 * disabled included; takes no lock, does not sleep.
 * Return: The current error count.
 */
static inline uint64_t kfi_cntr_readerr(struct kfid_cntr *cntr)
{
	return cntr->ops->readerr(cntr);
}

/**
 * kfi_cntr_add() - Add to a counter's success count.
 * @cntr: Counter.
 * @value: Amount to add.
 *
 * May release triggered operations whose threshold is reached.
 *
 * Context: Process or softirq context, also with spinlocks held; must not
 * sleep.
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_cntr_add(struct kfid_cntr *cntr, uint64_t value)
{
	return cntr->ops->add(cntr, value);
}

/**
 * kfi_cntr_adderr() - Add to a counter's error count.
 * @cntr: Counter.
 * @value: Amount to add.
 *
 * Context: As kfi_cntr_add().
 * Return: 0 on success, -KFI_ENOSYS if the provider lacks the operation,
 * or another negative error code.
 */
static inline int kfi_cntr_adderr(struct kfid_cntr *cntr, uint64_t value)
{
	if (!KFI_CHECK_OP(cntr->ops, struct kfi_ops_cntr, adderr))
		return -KFI_ENOSYS;
	return cntr->ops->adderr(cntr, value);
}

/**
 * kfi_cntr_set() - Set a counter's success count.
 * @cntr: Counter.
 * @value: New count.
 *
 * Context: As kfi_cntr_add().
 * Return: 0 on success or a negative error code.
 */
static inline int kfi_cntr_set(struct kfid_cntr *cntr, uint64_t value)
{
	return cntr->ops->set(cntr, value);
}

/**
 * kfi_cntr_seterr() - Set a counter's error count.
 * @cntr: Counter.
 * @value: New error count.
 *
 * Context: As kfi_cntr_add().
 * Return: 0 on success, -KFI_ENOSYS if the provider lacks the operation,
 * or another negative error code.
 */
static inline int kfi_cntr_seterr(struct kfid_cntr *cntr, uint64_t value)
{
	if (!KFI_CHECK_OP(cntr->ops, struct kfi_ops_cntr, seterr))
		return -KFI_ENOSYS;
	return cntr->ops->seterr(cntr, value);
}

/**
 * kfi_cntr_wait() - Wait for a counter to reach a threshold.
 * @cntr: Counter.
 * @threshold: Success count to wait for.
 * @timeout: Timeout in milliseconds, negative to wait forever.
 *
 * Context: Process context; sleeps.
 * Return: 0 once the count is at least @threshold, -KFI_ETIMEDOUT,
 * -KFI_EAVAIL if the error count changed, or another negative error code.
 */
static inline int kfi_cntr_wait(struct kfid_cntr *cntr, uint64_t threshold,
				int timeout)
{
	return cntr->ops->wait(cntr, threshold, timeout);
}

#endif /* _KFI_EQ_H_ */
