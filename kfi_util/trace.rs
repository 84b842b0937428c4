// SPDX-License-Identifier: GPL-2.0
//! kfabric's trace events from the toolkit's Rust side (kfi_conn is
//! fired by each provider's connection code: kfi_tcp's socket layer reads
//! the peer's address there) (the events are
//! defined in kfabric.ko: `kfi_util/kfi_trace.h`; the C wrappers in
//! `kfi_util_trace.c`).
//!
//! Each call first tests the event's bit in kfabric.ko's `kfi_trace_on`
//! (one relaxed load; the bit is set while anything is attached to the
//! event), and only then calls the C wrapper, out of line: with tracing
//! off, a trace point costs a load and a branch.

use crate::util::sys;
use core::ffi::{c_int, c_void, CStr};
use core::sync::atomic::{AtomicUsize, Ordering};

extern "C" {
    /// kfabric.ko's bits of the events that have a probe attached
    /// (`KFI_TP_*`), written by the tracepoints' registration callbacks.
    static kfi_trace_on: AtomicUsize;
}

/// A kfabric trace event (its bit in `kfi_trace_on`).
#[derive(Clone, Copy)]
pub(crate) enum Event {
    Complete = sys::KFI_TP_COMPLETE as isize,
    Conn = sys::KFI_TP_CONN as isize,
    Error = sys::KFI_TP_ERROR as isize,
    TrigQueue = sys::KFI_TP_TRIG_QUEUE as isize,
    TrigFire = sys::KFI_TP_TRIG_FIRE as isize,
    Stall = sys::KFI_TP_STALL as isize,
}

/// Whether `e` has a probe attached.
#[inline(always)]
pub(crate) fn on(e: Event) -> bool {
    // SAFETY: an exported variable of kfabric.ko, which every provider
    // module links against (so it is loaded while we are); only read, and
    // atomically (an AtomicUsize has the layout of its unsigned long).
    let bits = unsafe { kfi_trace_on.load(Ordering::Relaxed) };
    bits & (1 << e as usize) != 0
}

/// A completion (`err` 0) or error completion (`err` the positive
/// kfabric error) queued on `cq`.
#[inline(always)]
pub(crate) fn complete(cq: *const c_void, context: usize, flags: u64, len: usize, err: i32) {
    if on(Event::Complete) {
        complete_slow(cq, context, flags, len, err);
    }
}

#[cold]
fn complete_slow(cq: *const c_void, context: usize, flags: u64, len: usize, err: i32) {
    // SAFETY: plain values; the wrapper only records them.
    unsafe { sys::kfi_util_tp_complete(cq, context as *const c_void, flags, len as u64, err) };
}

/// An error `err` (positive) on `obj`, and what caused it.
#[inline(always)]
pub(crate) fn error(obj: *const c_void, err: u32, cause: &CStr) {
    if on(Event::Error) {
        error_slow(obj, err, cause);
    }
}

#[cold]
fn error_slow(obj: *const c_void, err: u32, cause: &CStr) {
    // SAFETY: the string is NUL-terminated (CStr) and copied by the event.
    unsafe { sys::kfi_util_tp_error(obj, err as c_int, cause.as_ptr()) };
}

/// A triggered operation (`op`: its `KFI_UTIL_X_*` kind, -1 for a counter
/// operation) queued on `cntr` for `threshold`, the counter at `value`.
#[inline(always)]
pub(crate) fn trig_queue(cntr: *const c_void, context: usize, threshold: u64, value: u64, op: i32, deferred: bool) {
    if on(Event::TrigQueue) {
        // SAFETY: plain values.
        unsafe { sys::kfi_util_tp_trig_queue(cntr, context as *const c_void, threshold, value, op, deferred) };
    }
}

/// A triggered operation of `cntr` is issued, the counter at `value`.
#[inline(always)]
pub(crate) fn trig_fire(cntr: *const c_void, context: usize, threshold: u64, value: u64) {
    if on(Event::TrigFire) {
        // SAFETY: plain values.
        unsafe { sys::kfi_util_tp_trig_fire(cntr, context as *const c_void, threshold, value) };
    }
}

/// A transmit on `obj` waits for flow control (`why`), `queued` waiting.
#[inline(always)]
pub(crate) fn stall(obj: *const c_void, why: &CStr, queued: u64) {
    if on(Event::Stall) {
        // SAFETY: as for error_slow.
        unsafe { sys::kfi_util_tp_stall(obj, why.as_ptr(), queued) };
    }
}
