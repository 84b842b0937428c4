// SPDX-License-Identifier: GPL-2.0
//! FFI layer of kfi_tcp.ko: its bindings, and wrappers of its own C
//! (fault injection, statistics, trace points). The wrappers
//! every provider needs are the toolkit's (`crate::util::base`). Every
//! `unsafe` block states the contract it relies on.

use kernel::prelude::*;

/// Bindings generated from `include/`, `tcp_sys.h` and the toolkit's
/// `kfi_util/util_sys.h` at build time.
#[allow(
    non_camel_case_types,
    non_upper_case_globals,
    non_snake_case,
    dead_code,
    improper_ctypes,
    unreachable_pub,
    missing_docs,
    clippy::all
)]
pub(crate) mod sys {
    include!("tcp_sys_generated.rs");
}

pub(crate) use sys::kfi_info;

/// The `kfi_tcp_fail_alloc` fault attribute's debugfs files, set up at
/// module init and removed at exit.
pub(crate) struct FaultAttr(());

impl FaultAttr {
    pub(crate) fn new() -> Self {
        // SAFETY: module init; creates the attribute's debugfs files.
        unsafe { sys::kfi_tcp_glue_fail_init() };
        FaultAttr(())
    }
}

impl Drop for FaultAttr {
    fn drop(&mut self) {
        // SAFETY: module exit; removes what `new` created.
        unsafe { sys::kfi_tcp_glue_fail_exit() }
    }
}

/// Fault injection (`kfi_tcp_fail_alloc` in kfi_tcp_sock.c): `ENOMEM`
/// when a failure is injected at the allocation about to be made. Any
/// context but hard interrupts; without CONFIG_FAULT_INJECTION always Ok.
pub(crate) fn fail_alloc() -> Result {
    // SAFETY: no arguments; callable from any context but hard interrupts.
    if unsafe { sys::kfi_tcp_glue_fail_alloc() } {
        Err(ENOMEM)
    } else {
        Ok(())
    }
}

/// Records trace point `point` (`KFI_TCP_TR_*`, see kfi_tcp_trace.h) in a
/// build with `KFI_TRACE=1` (scripts/timeline.sh); nothing otherwise.
#[inline(always)]
pub(crate) fn tr(point: u32) {
    #[cfg(kfi_trace)]
    // SAFETY: takes a timestamp into a ring; callable from any context.
    unsafe {
        sys::kfi_tcp_tr(point)
    }
    #[cfg(not(kfi_trace))]
    let _ = point;
}

/// Notes the cause of an established connection's end by error
/// (`kfi_tcp_stat_last_break()`).
pub(crate) fn note_break(err: u32) {
    // SAFETY: takes a plain integer, callable from any context.
    unsafe { sys::kfi_tcp_stat_broke(err as core::ffi::c_int) }
}

/// Counts a run of a connection's work item (`kfi_tcp_stat_conn_runs()`).
pub(crate) fn count_conn_run() {
    // SAFETY: takes nothing, callable from any context.
    unsafe { sys::kfi_tcp_stat_conn_ran() }
}
