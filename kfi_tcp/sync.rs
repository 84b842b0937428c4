// SPDX-License-Identifier: GPL-2.0
//! A spinlock taken with bottom halves disabled (`spin_lock_bh`).
//!
//! The kernel crate of 6.12 only offers `spin_lock`. State that the public
//! API lets consumers reach from softirq context — CQ reads and data
//! transfer posts are documented as "process or softirq context" in
//! `include/` — must be locked with bottom halves disabled, or a softirq
//! interrupting a process-context holder on the same CPU deadlocks on the
//! lock. `SpinLockBh<T>` is the kernel's generic `Lock` with a backend that
//! calls `spin_lock_bh`/`spin_unlock_bh` (through `kfi_tcp_glue.c`: they
//! are inline functions). It works with `CondVar`: waiting releases the
//! lock with `spin_unlock_bh`, so the waiter sleeps with bottom halves
//! enabled, and relocks with `spin_lock_bh`.
//!
//! Not for hard-interrupt context (nothing in the provider runs there).

use crate::ffi::sys;
use kernel::bindings;
use kernel::sync::lock::{Backend, Lock};

/// A spinlock whose holder runs with bottom halves disabled.
pub(crate) type SpinLockBh<T> = Lock<T, SpinLockBhBackend>;

/// Creates a [`SpinLockBh`] initialiser with a lockdep class of its own
/// (one per call site) and the given name.
macro_rules! new_spinlock_bh {
    ($inner:expr, $name:literal $(,)?) => {
        $crate::sync::SpinLockBh::new($inner, kernel::c_str!($name), kernel::static_lock_class!())
    };
}
pub(crate) use new_spinlock_bh;

/// The `spin_lock_bh` backend of [`SpinLockBh`].
pub(crate) struct SpinLockBhBackend;

// SAFETY: the kernel's `spinlock_t` ensures mutual exclusion between
// `lock` and `unlock`; `relock` is the default, which calls `lock`, the
// same locking method.
unsafe impl Backend for SpinLockBhBackend {
    type State = bindings::spinlock_t;
    type GuardState = ();

    unsafe fn init(ptr: *mut Self::State, name: *const kernel::ffi::c_char, key: *mut bindings::lock_class_key) {
        // SAFETY: `ptr` is valid for writes, `name` and `key` valid for
        // reads indefinitely (the caller's contract).
        unsafe { bindings::__spin_lock_init(ptr, name, key) }
    }

    unsafe fn lock(ptr: *mut Self::State) -> Self::GuardState {
        // SAFETY: `ptr` is an initialised spinlock (the caller's contract);
        // the glue's parameter is the same C type under bindgen's other
        // name.
        unsafe { sys::kfi_tcp_glue_spin_lock_bh(ptr.cast()) }
    }

    unsafe fn unlock(ptr: *mut Self::State, _guard_state: &Self::GuardState) {
        // SAFETY: the caller owns the lock, taken by `lock` above.
        unsafe { sys::kfi_tcp_glue_spin_unlock_bh(ptr.cast()) }
    }
}
