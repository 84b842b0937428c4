// SPDX-License-Identifier: GPL-2.0
/*
 * kfabric.ko: the definition of kfabric's trace events
 * (kfi_util/kfi_trace.h), exported for the providers, and kfi_trace_on,
 * the bits the providers' Rust code tests before calling into a trace
 * wrapper.
 */
#include <linux/bitops.h>
#include <linux/export.h>

#define CREATE_TRACE_POINTS
#include "kfi_trace.h"

/**
 * kfi_trace_on - Which kfabric trace events have a probe attached.
 *
 * Bit KFI_TP_<EVENT> is set by the event's registration callback (the
 * tracepoint core calls it, under its own mutex, when the first probe is
 * attached) and cleared when the last one goes. Read without a lock (a
 * stale bit costs one event or one wasted call, nothing else).
 */
unsigned long kfi_trace_on;
EXPORT_SYMBOL_GPL(kfi_trace_on);

#define KFI_TRACE_REG(name, bit)				\
int kfi_trace_reg_##name(void)					\
{								\
	set_bit(bit, &kfi_trace_on);				\
	return 0;						\
}								\
void kfi_trace_unreg_##name(void)				\
{								\
	clear_bit(bit, &kfi_trace_on);				\
}								\
EXPORT_TRACEPOINT_SYMBOL_GPL(kfi_##name)

KFI_TRACE_REG(post, KFI_TP_POST);
KFI_TRACE_REG(complete, KFI_TP_COMPLETE);
KFI_TRACE_REG(conn, KFI_TP_CONN);
KFI_TRACE_REG(error, KFI_TP_ERROR);
KFI_TRACE_REG(trig_queue, KFI_TP_TRIG_QUEUE);
KFI_TRACE_REG(trig_fire, KFI_TP_TRIG_FIRE);
KFI_TRACE_REG(stall, KFI_TP_STALL);
