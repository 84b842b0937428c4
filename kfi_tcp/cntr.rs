// SPDX-License-Identifier: GPL-2.0
//! Completion counters (`kfi_cntr_open` on a domain).
//!
//! A counter holds a success and an error count (`u64`, wrapping on add,
//! as `logic::trigger::Counter` — the trigger engine's view of a counter,
//! which will queue triggered operations beside it under the same lock).
//! Endpoints bound with `KFI_SEND`, `KFI_RECV`, `KFI_READ`, `KFI_WRITE`,
//! `KFI_REMOTE_READ` or `KFI_REMOTE_WRITE` count each such completion —
//! success or error — whether or not a CQ entry is written.
//!
//! # Contexts and locks
//! One `SpinLockBh` around the values: increments come from the
//! connections' work items and from the post path (cancel), reads and
//! `add`/`set` from any consumer context but hard interrupts. The
//! increment path takes the lock, changes two integers and wakes sleepers
//! if there are any: it never sleeps and never allocates. `wait` sleeps on
//! a condition variable (process context only).

use crate::domain::Domain;
use crate::ffi::{self, einval, sys};
use crate::logic::trigger::Counter;
use crate::sync::{new_spinlock_bh, SpinLockBh};
use core::ffi::{c_int, c_void};
use core::ptr;
use core::sync::atomic::{AtomicUsize, Ordering};
use kernel::bindings;
use kernel::new_condvar;
use kernel::prelude::*;
use kernel::sync::{CondVar, CondVarTimeoutResult};

struct State {
    c: Counter,
    /// Threads sleeping in `wait` (updates wake them only if any).
    sleepers: usize,
}

/// A counter: the consumer sees `cntr`.
#[pin_data]
#[repr(C)]
pub(crate) struct Cntr {
    cntr: sys::kfid_cntr,
    domain: *const Domain,
    /// Endpoint events bound to this counter; it cannot close while any is.
    bound: AtomicUsize,
    #[pin]
    state: SpinLockBh<State>,
    #[pin]
    wait: CondVar,
}

impl Cntr {
    /// Whether `fid` is a counter of this provider.
    ///
    /// # Safety
    /// `fid` is NULL or points to a valid `kfid`.
    pub(crate) unsafe fn is_cntr(fid: *const sys::kfid) -> bool {
        // SAFETY: non-NULL and valid by the caller's contract.
        !fid.is_null() && unsafe { sys::kfi_tcp_glue_is_cntr(fid) }
    }

    /// Recovers a counter from its fid.
    ///
    /// # Safety
    /// `fid` is the fid of a live counter of this provider (checked with
    /// [`Cntr::is_cntr`] when it comes from a consumer).
    pub(crate) unsafe fn from_fid<'a>(fid: *mut sys::kfid) -> &'a Cntr {
        // SAFETY: the fid is the first field of the header, itself first.
        unsafe { &*kernel::container_of!(fid, Cntr, cntr.fid) }
    }

    /// Recovers a counter from its header.
    ///
    /// # Safety
    /// `c` is the header of a live counter (our ops table passes only
    /// those).
    unsafe fn from_header<'a>(c: *mut sys::kfid_cntr) -> &'a Cntr {
        // SAFETY: by the caller's contract.
        unsafe { &*kernel::container_of!(c, Cntr, cntr) }
    }

    /// Counts one endpoint event bound to the counter.
    pub(crate) fn bind_ep(&self) {
        self.bound.fetch_add(1, Ordering::AcqRel);
    }

    /// Uncounts one (endpoint close).
    pub(crate) fn unbind_ep(&self) {
        self.bound.fetch_sub(1, Ordering::AcqRel);
    }

    /// Changes the values under the lock, then wakes waiters.
    fn update(&self, f: impl FnOnce(&mut Counter)) {
        let wake = {
            let mut g = self.state.lock();
            f(&mut g.c);
            g.sleepers > 0
        };
        if wake {
            self.wait.notify_all();
        }
    }

    /// One completion (the completion path: any context but hard
    /// interrupts; no allocation, no sleep).
    pub(crate) fn hit(&self, err: bool) {
        self.update(|c| {
            if err {
                c.add_err(1);
            } else {
                c.add(1);
            }
        });
    }

    fn values(&self) -> Counter {
        self.state.lock().c
    }

    /// `kfi_cntr_wait`: see [`kfi_tcp_cntr_wait`].
    fn wait_for(&self, threshold: u64, timeout: c_int) -> c_int {
        let mut left = if timeout < 0 {
            kernel::time::Jiffies::MAX
        } else {
            kernel::time::msecs_to_jiffies(timeout as u32)
        };
        let mut g = self.state.lock();
        let err0 = g.c.error();
        loop {
            if g.c.success() >= threshold {
                return 0;
            }
            if g.c.error() != err0 {
                return -(sys::KFI_EAVAIL as c_int);
            }
            if left == 0 {
                return ffi::neg(bindings::ETIMEDOUT);
            }
            g.sleepers += 1;
            let r = self.wait.wait_interruptible_timeout(&mut g, left);
            g.sleepers -= 1;
            match r {
                CondVarTimeoutResult::Timeout => left = 0,
                CondVarTimeoutResult::Woken { jiffies } => left = jiffies,
                CondVarTimeoutResult::Signal { .. } => return ffi::neg(bindings::EINTR),
            }
        }
    }
}

/// `cntr_open` of a domain. `attr` may be NULL (defaults); `events` must
/// be `KFI_CNTR_EVENTS_COMP`, `flags` 0; `wait_obj` NONE or UNSPEC
/// (`kfi_cntr_wait` works with both), WAIT_SET/WAIT_QUEUE -ENOSYS.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_domain_cntr_open(
    domain: *mut sys::kfid_domain,
    attr: *mut sys::kfi_cntr_attr,
    cntr: *mut *mut sys::kfid_cntr,
    context: *mut c_void,
) -> c_int {
    if domain.is_null() || cntr.is_null() {
        return einval();
    }
    // SAFETY: NULL or valid by the API contract.
    if let Some(a) = unsafe { attr.as_ref() } {
        if a.events != sys::KFI_CNTR_EVENTS_COMP || a.flags != 0 {
            return einval();
        }
        if a.wait_obj != sys::KFI_WAIT_NONE && a.wait_obj != sys::KFI_WAIT_UNSPEC {
            return ffi::neg(bindings::ENOSYS);
        }
    }
    // SAFETY: one of our domains (our domain ops table called us).
    let d = unsafe { Domain::from_fid(ptr::addr_of_mut!((*domain).fid)) };
    let init = pin_init!(Cntr {
        // SAFETY: all-zero is a valid header; filled in below.
        cntr: unsafe { core::mem::zeroed() },
        domain: d,
        bound: AtomicUsize::new(0),
        state <- new_spinlock_bh!(State { c: Counter::new(), sleepers: 0 }, "kfi_tcp_cntr"),
        wait <- new_condvar!("kfi_tcp_cntr_wait"),
    });
    let b = match KBox::pin_init(init, GFP_KERNEL) {
        Ok(b) => b,
        Err(_) => return ffi::neg(bindings::ENOMEM),
    };
    // SAFETY: never moved: freed in place by `kfi_tcp_cntr_close`.
    let p = KBox::into_raw(unsafe { Pin::into_inner_unchecked(b) });
    d.child_opened();
    // SAFETY: `p` is our fresh object.
    unsafe {
        sys::kfi_tcp_glue_cntr_init(&mut (*p).cntr, context);
        *cntr = &mut (*p).cntr;
    }
    0
}

/// `close` of a counter: -EBUSY while an endpoint is bound to it.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_cntr_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: only installed on our counters.
    let p = unsafe { kernel::container_of!(fid, Cntr, cntr.fid) as *mut Cntr };
    // SAFETY: live until freed below.
    let (bound, d) = unsafe { ((*p).bound.load(Ordering::Acquire), (*p).domain) };
    if bound != 0 {
        return ffi::neg(bindings::EBUSY);
    }
    // SAFETY: allocated by `kfi_tcp_domain_cntr_open`; nothing refers to
    // it; the consumer gave up its pointer.
    drop(unsafe { KBox::from_raw(p) });
    // SAFETY: the domain outlives its counted children.
    unsafe { (*d).child_closed() };
    0
}

/// `read`: the success count.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_cntr_read(c: *mut sys::kfid_cntr) -> u64 {
    // SAFETY: our ops table passes our counters.
    unsafe { Cntr::from_header(c) }.values().success()
}

/// `readerr`: the error count.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_cntr_readerr(c: *mut sys::kfid_cntr) -> u64 {
    // SAFETY: as above.
    unsafe { Cntr::from_header(c) }.values().error()
}

/// `add` to the success count (wraps modulo 2^64).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_cntr_add(c: *mut sys::kfid_cntr, v: u64) -> c_int {
    // SAFETY: as above.
    unsafe { Cntr::from_header(c) }.update(|c| {
        c.add(v);
    });
    0
}

/// `set` the success count.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_cntr_set(c: *mut sys::kfid_cntr, v: u64) -> c_int {
    // SAFETY: as above.
    unsafe { Cntr::from_header(c) }.update(|c| {
        c.set(v);
    });
    0
}

/// `adderr` to the error count.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_cntr_adderr(c: *mut sys::kfid_cntr, v: u64) -> c_int {
    // SAFETY: as above.
    unsafe { Cntr::from_header(c) }.update(|c| {
        c.add_err(v);
    });
    0
}

/// `seterr` the error count.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_cntr_seterr(c: *mut sys::kfid_cntr, v: u64) -> c_int {
    // SAFETY: as above.
    unsafe { Cntr::from_header(c) }.update(|c| {
        c.set_err(v);
    });
    0
}

/// `wait` until the success count is at least `threshold`: 0; the error
/// count changed meanwhile: -KFI_EAVAIL; `timeout` ms passed (negative:
/// no limit): -ETIMEDOUT; a signal: -EINTR. Process context.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_cntr_wait(c: *mut sys::kfid_cntr, threshold: u64, timeout: c_int) -> c_int {
    // SAFETY: as above.
    unsafe { Cntr::from_header(c) }.wait_for(threshold, timeout)
}
