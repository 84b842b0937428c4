/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A marker for scripts/iprof.sh: an 8-byte NOP ("nopl" with "KFI" in its
 * displacement). The iprof QEMU plugin snapshots its counters each time a
 * vCPU executes it, so that a test or benchmark brackets the code to be
 * profiled with two marks. Without the plugin it is a NOP.
 */
#ifndef KFI_IPROF_MARK_H
#define KFI_IPROF_MARK_H

#define KFI_IPROF_MARK() \
	asm volatile(".byte 0x0f, 0x1f, 0x84, 0x00, 0x4b, 0x46, 0x49, 0x00" \
		     ::: "memory")

#endif
