// SPDX-License-Identifier: GPL-2.0
//! A spinlock taken with bottom halves disabled (`spin_lock_bh`).
//!
//! The kernel crate of 6.12 only offers `spin_lock`. State that the public
//! API lets consumers reach from softirq context — CQ reads and data
//! transfer posts are documented as "process or softirq context" in
//! `include/` — must be locked with bottom halves disabled, or a softirq
//! interrupting a process-context holder on the same CPU deadlocks on the
//! lock. `SpinLockBh<T>` is the kernel's generic `Lock` with a backend that
//! calls `spin_lock_bh`/`spin_unlock_bh`: they are inline functions, which
//! without PREEMPT_RT come down to the exported `_raw_spin_lock_bh` and
//! `_raw_spin_unlock_bh`, called here directly (one call less per lock
//! and unlock, on the per-message path); on kernels that have them inline
//! or are PREEMPT_RT, through wrappers in `kfi_util_glue.c`. It works with
//! `CondVar`: waiting releases the lock with `spin_unlock_bh`, so the
//! waiter sleeps with bottom halves enabled, and relocks with
//! `spin_lock_bh`.
//!
//! Not for hard-interrupt context (nothing in the provider runs there).

#[cfg(any(CONFIG_PREEMPT_RT, CONFIG_INLINE_SPIN_LOCK_BH, CONFIG_INLINE_SPIN_UNLOCK_BH))]
use super::sys;
use kernel::bindings;
use kernel::sync::lock::{Backend, Lock};

/// A spinlock whose holder runs with bottom halves disabled.
pub(crate) type SpinLockBh<T> = Lock<T, SpinLockBhBackend>;

/// Creates a [`SpinLockBh`] initialiser with a lockdep class of its own
/// (one per call site) and the given name.
macro_rules! new_spinlock_bh {
    ($inner:expr, $name:literal $(,)?) => {
        $crate::util::sync::SpinLockBh::new($inner, kernel::c_str!($name), kernel::static_lock_class!())
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

    // Without PREEMPT_RT a `spinlock_t` is a union whose `rlock` (a
    // `raw_spinlock_t`) is at offset 0, and `spin_lock_bh` is exactly
    // `_raw_spin_lock_bh` on it when that is not inlined (likewise unlock).
    #[inline]
    unsafe fn lock(ptr: *mut Self::State) -> Self::GuardState {
        #[cfg(not(any(CONFIG_PREEMPT_RT, CONFIG_INLINE_SPIN_LOCK_BH)))]
        // SAFETY: `ptr` is an initialised spinlock (the caller's contract),
        // with the layout described above.
        unsafe {
            bindings::_raw_spin_lock_bh(ptr.cast())
        }
        #[cfg(any(CONFIG_PREEMPT_RT, CONFIG_INLINE_SPIN_LOCK_BH))]
        // SAFETY: `ptr` is an initialised spinlock (the caller's contract);
        // the glue's parameter is the same C type under bindgen's other
        // name.
        unsafe {
            sys::kfi_util_spin_lock_bh(ptr.cast())
        }
    }

    #[inline]
    unsafe fn unlock(ptr: *mut Self::State, _guard_state: &Self::GuardState) {
        #[cfg(not(any(CONFIG_PREEMPT_RT, CONFIG_INLINE_SPIN_UNLOCK_BH)))]
        // SAFETY: the caller owns the lock, taken by `lock` above; the
        // layout is as described above `lock`.
        unsafe {
            bindings::_raw_spin_unlock_bh(ptr.cast())
        }
        #[cfg(any(CONFIG_PREEMPT_RT, CONFIG_INLINE_SPIN_UNLOCK_BH))]
        // SAFETY: the caller owns the lock, taken by `lock` above.
        unsafe {
            sys::kfi_util_spin_unlock_bh(ptr.cast())
        }
    }
}

/// A lock that is only ever *tried*, never waited for: a flag and the data
/// it guards. For state that process context holds for long stretches (and
/// may sleep holding: a connection's work item) and that other contexts,
/// even softirq ones, use opportunistically and leave alone when busy. A
/// holder never spins or sleeps on it, so it cannot deadlock, and it needs
/// no lockdep class.
///
/// # Invariants
/// While `held` is true exactly one [`TryGuard`] exists, and only it
/// accesses `data`.
pub(crate) struct TryLock<T> {
    held: core::sync::atomic::AtomicBool,
    data: core::cell::UnsafeCell<T>,
}

// SAFETY: the flag gives one holder at a time access to the data (see the
// invariants), which is then only sent between threads, as `T: Send` allows.
unsafe impl<T: Send> Sync for TryLock<T> {}
// SAFETY: owning the lock is owning a `T`.
unsafe impl<T: Send> Send for TryLock<T> {}

impl<T> TryLock<T> {
    /// An unheld lock around `data`.
    pub(crate) const fn new(data: T) -> Self {
        TryLock { held: core::sync::atomic::AtomicBool::new(false), data: core::cell::UnsafeCell::new(data) }
    }

    /// Takes the lock if nobody holds it.
    ///
    /// Sequentially consistent (as are `is_held` and the release), so that
    /// a holder's later load of another flag and another thread's store of
    /// that flag before `is_held` cannot both miss each other (the
    /// store-then-load handshakes of `Conn::stop` and the work item's
    /// requeue request).
    pub(crate) fn try_lock(&self) -> Option<TryGuard<'_, T>> {
        use core::sync::atomic::Ordering;
        self.held
            .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
            .ok()
            .map(|_| TryGuard { lock: self })
    }

    /// True while somebody holds it (a hint: it may change at once).
    pub(crate) fn is_held(&self) -> bool {
        self.held.load(core::sync::atomic::Ordering::SeqCst)
    }
}

/// Access to a [`TryLock`]'s data; releases it when dropped.
pub(crate) struct TryGuard<'a, T> {
    lock: &'a TryLock<T>,
}

impl<T> core::ops::Deref for TryGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: this guard is the only holder (invariant of `TryLock`).
        unsafe { &*self.lock.data.get() }
    }
}

impl<T> core::ops::DerefMut for TryGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`; `&mut self` makes this access unique.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T> Drop for TryGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.held.store(false, core::sync::atomic::Ordering::SeqCst);
    }
}
