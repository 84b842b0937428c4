/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bits of kfabric.ko's kfi_trace_on (kfi_trace.h): event KFI_TP_<NAME>
 * has at least one probe attached. Shared by the events' definition and
 * the providers' Rust side (through util_sys.h).
 */
#ifndef _KFI_TRACE_BITS_H
#define _KFI_TRACE_BITS_H

#define KFI_TP_POST		0
#define KFI_TP_COMPLETE		1
#define KFI_TP_CONN		2
#define KFI_TP_ERROR		3
#define KFI_TP_TRIG_QUEUE	4
#define KFI_TP_TRIG_FIRE	5
#define KFI_TP_STALL		6

#endif
