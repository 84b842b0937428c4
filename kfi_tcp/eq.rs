// SPDX-License-Identifier: GPL-2.0
//! The event queue (`kfi_eq_open` on a fabric).
//!
//! Entries live in a ring of fixed-size slots allocated at open
//! (`logic::eq`), so posting an event never allocates. The ring is
//! protected by a spinlock taken with bottom halves disabled
//! (`sync::SpinLockBh`): the provider posts its connection events from
//! work items, never from the socket callbacks themselves, but consumers
//! may read (`kfi_eq_read`, `readerr`, documented for any context) from
//! softirq context. `sread` sleeps on a condition variable; the
//! consumer's event handler is called after an entry is queued, with no
//! lock held. A slot can be reserved for an event posted later
//! ([`Eq::reserve`]): memory registration reserves its `KFI_MR_COMPLETE`
//! slot before it registers anything, so that the event is never lost.

use crate::util::base::{self, einval};
use crate::fabric::Fabric;
use crate::ffi::sys;
use crate::logic::eq::{PushError, ReadError, Ring, Slot, SLOT_BYTES};
use core::ffi::{c_char, c_int, c_void};
use kernel::bindings;
use kernel::prelude::*;
use core::sync::atomic::{AtomicUsize, Ordering};
use crate::util::sync::{new_spinlock_bh, SpinLockBh};
use kernel::new_condvar;
use kernel::sync::CondVar;

/// Default and largest number of entries.
const DEFAULT_SIZE: usize = 256;
const MAX_SIZE: usize = 4096;

/// Slot storage for the ring.
pub(crate) type Slots = crate::util::base::Storage<Slot>;

/// An event queue: the consumer sees `eq`.
#[pin_data]
#[repr(C)]
pub(crate) struct Eq {
    eq: sys::kfid_eq,
    fabric: *mut Fabric,
    #[pin]
    ring: SpinLockBh<Ring<Slots>>,
    #[pin]
    wait: CondVar,
    /// Endpoints, passive endpoints and domains (`KFI_REG_MR`) this EQ is
    /// bound to: it cannot close while any is (they post to it).
    binds: AtomicUsize,
}

fn is_peek(flags: u64) -> core::result::Result<bool, c_int> {
    let peek = sys::KFI_PEEK as u64;
    if flags & !peek != 0 {
        return Err(base::neg(bindings::EINVAL));
    }
    Ok(flags & peek != 0)
}

impl Eq {
    /// Recovers the object from its header.
    ///
    /// # Safety
    /// `eq` is the header of a live `Eq` (only our ops table, installed by
    /// `open`, calls the functions that use this).
    unsafe fn from_header<'a>(eq: *mut sys::kfid_eq) -> &'a Eq {
        // SAFETY: by the caller's contract.
        unsafe { &*kernel::container_of!(eq, Eq, eq) }
    }

    /// Recovers an EQ from its fid.
    ///
    /// # Safety
    /// `fid` is the fid of a live EQ of this provider.
    pub(crate) unsafe fn from_fid<'a>(fid: *mut sys::kfid) -> &'a Eq {
        // SAFETY: the fid is the first field of the header, itself first.
        unsafe { &*kernel::container_of!(fid, Eq, eq.fid) }
    }

    /// Whether `fid` is an EQ of this provider (its class and ops table are
    /// ours), so that [`Eq::from_fid`] may be used on it.
    ///
    /// # Safety
    /// `fid` is NULL or points to a valid `kfid`.
    pub(crate) unsafe fn is_eq(fid: *const sys::kfid) -> bool {
        // SAFETY: non-NULL and valid by the caller's contract.
        !fid.is_null() && unsafe { sys::kfi_tcp_glue_is_eq(fid) }
    }

    /// Counts a binding (an endpoint will post to this EQ).
    pub(crate) fn bind(&self) {
        self.binds.fetch_add(1, Ordering::AcqRel);
    }

    /// Uncounts a binding.
    pub(crate) fn unbind(&self) {
        self.binds.fetch_sub(1, Ordering::AcqRel);
    }

    /// Queues an entry and wakes readers; calls the consumer's handler
    /// after the lock is dropped.
    pub(crate) fn post(&self, event: u32, error: bool, bytes: &[u8]) -> core::result::Result<(), PushError> {
        self.ring.lock().push(event, error, bytes)?;
        self.queued();
        Ok(())
    }

    /// Reserves the slot of an event posted later with
    /// [`Reserved::post`]: `Full` when every free slot is taken or
    /// reserved. Dropping the reservation gives the slot back.
    pub(crate) fn reserve(&self) -> core::result::Result<Reserved<'_>, PushError> {
        self.ring.lock().reserve()?;
        Ok(Reserved { eq: Some(self) })
    }

    /// Reserves `n` slots, all or none, for the connection events an
    /// endpoint will post ([`Eq::post_held`]): false when the EQ has not
    /// that many free.
    pub(crate) fn hold(&self, n: usize) -> bool {
        let mut r = self.ring.lock();
        for i in 0..n {
            if r.reserve().is_err() {
                for _ in 0..i {
                    r.unreserve();
                }
                return false;
            }
        }
        true
    }

    /// Gives back `n` slots of [`Eq::hold`] that will not be used.
    pub(crate) fn unhold(&self, n: usize) {
        let mut r = self.ring.lock();
        for _ in 0..n {
            r.unreserve();
        }
    }

    /// Posts an event into a slot of [`Eq::hold`] (as [`Eq::post`]
    /// otherwise).
    pub(crate) fn post_held(&self, event: u32, error: bool, bytes: &[u8]) -> core::result::Result<(), PushError> {
        self.ring.lock().push_reserved(event, error, bytes)?;
        self.queued();
        Ok(())
    }

    /// An entry was queued: wakes readers, then calls the consumer's
    /// handler (no lock is held here).
    fn queued(&self) {
        self.wait.notify_all();
        if let Some(h) = self.eq.event_handler {
            // SAFETY: the consumer's handler with its own context; no lock
            // is held.
            unsafe { h(&self.eq as *const _ as *mut _, self.eq.fid.context) };
        }
    }

    fn read(&self, event: *mut u32, buf: *mut c_void, len: usize, peek: bool) -> isize {
        let out = if len == 0 || buf.is_null() {
            &mut [][..]
        } else {
            // SAFETY: the consumer passes a buffer writable for `len` bytes.
            unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), len) }
        };
        match self.ring.lock().read(out, peek) {
            Ok((ev, n)) => {
                if !event.is_null() {
                    // SAFETY: writable by the API contract.
                    unsafe { *event = ev };
                }
                n as isize
            }
            Err(e) => e.errno(),
        }
    }
}

/// A slot of an EQ promised to one event (see [`Eq::reserve`]).
pub(crate) struct Reserved<'a> {
    /// `None` once posted.
    eq: Option<&'a Eq>,
}

impl Reserved<'_> {
    /// Queues the event into the reserved slot, wakes readers and calls
    /// the consumer's handler (with no lock held). An entry larger than a
    /// slot (never, for the provider's own entries) is dropped.
    pub(crate) fn post(mut self, event: u32, error: bool, bytes: &[u8]) {
        let Some(eq) = self.eq.take() else {
            return;
        };
        let pushed = {
            let mut r = eq.ring.lock();
            let ok = r.push_reserved(event, error, bytes).is_ok();
            if !ok {
                r.unreserve();
            }
            ok
        };
        if pushed {
            eq.queued();
        }
    }
}

impl Reserved<'_> {
    /// [`Reserved::post`] of a generic entry (`kfi_eq_entry`).
    pub(crate) fn post_entry(self, event: u32, e: &sys::kfi_eq_entry) {
        let len = core::mem::size_of::<sys::kfi_eq_entry>();
        // SAFETY: `e` is a live `kfi_eq_entry` of `len` bytes; it has no
        // padding (two pointers and a u64), and the reader copies the
        // bytes back into the same struct.
        let bytes = unsafe { core::slice::from_raw_parts((e as *const sys::kfi_eq_entry).cast::<u8>(), len) };
        self.post(event, false, bytes);
    }
}

impl Drop for Reserved<'_> {
    fn drop(&mut self) {
        if let Some(eq) = self.eq.take() {
            eq.ring.lock().unreserve();
        }
    }
}

/// `eq_open` of a fabric.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_fabric_eq_open(
    fabric: *mut sys::kfid_fabric,
    attr: *mut sys::kfi_eq_attr,
    eq: *mut *mut sys::kfid_eq,
    handler: sys::kfi_event_handler,
    context: *mut c_void,
) -> c_int {
    // SAFETY: NULL or valid by the API contract.
    let (Some(attr), false, false) = (unsafe { attr.as_ref() }, fabric.is_null(), eq.is_null()) else {
        return einval();
    };
    let size = match attr.size {
        0 => DEFAULT_SIZE,
        n if n <= MAX_SIZE => n,
        _ => return einval(),
    };
    if attr.flags != 0 || attr.signaling_vector != 0 {
        return einval();
    }
    // Waiting is done with kfi_eq_sread; wait sets are not supported.
    if attr.wait_obj != sys::KFI_WAIT_NONE && attr.wait_obj != sys::KFI_WAIT_UNSPEC {
        return base::neg(bindings::ENOSYS);
    }
    let Ok(slots) = KVVec::from_elem(Slot::default(), size, GFP_KERNEL | __GFP_NOWARN) else {
        return base::neg(bindings::ENOMEM);
    };
    // SAFETY: `fabric` is one of our fabrics (our ops table called us).
    let f = unsafe { Fabric::from_header(fabric) };
    let init = pin_init!(Eq {
        // SAFETY: all-zero is a valid header; filled in below.
        eq: unsafe { core::mem::zeroed() },
        fabric: f,
        ring <- new_spinlock_bh!(Ring::new(crate::util::base::Storage(slots)), "kfi_tcp_eq"),
        wait <- new_condvar!("kfi_tcp_eq_wait"),
        binds: AtomicUsize::new(0),
    });
    let b = match KBox::pin_init(init, GFP_KERNEL) {
        Ok(b) => b,
        Err(_) => return base::neg(bindings::ENOMEM),
    };
    // SAFETY: the object stays pinned: it is only ever freed in place by
    // `kfi_tcp_eq_close`, never moved.
    let p = KBox::into_raw(unsafe { Pin::into_inner_unchecked(b) });
    // SAFETY: `p` is our fresh object and `f` a live fabric.
    unsafe {
        Fabric::child_opened(f);
        sys::kfi_tcp_glue_eq_init(&mut (*p).eq, context, handler);
        *eq = &mut (*p).eq;
    }
    0
}

/// `close` of an event queue: -EBUSY while an endpoint is bound to it.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_eq_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: only installed on our EQs.
    if unsafe { Eq::from_fid(fid) }.binds.load(Ordering::Acquire) != 0 {
        return base::neg(bindings::EBUSY);
    }
    // SAFETY: only installed on EQs made by `kfi_tcp_fabric_eq_open`; the
    // header starts with this fid. The consumer gave up its pointer.
    let e = unsafe { KBox::from_raw(kernel::container_of!(fid, Eq, eq.fid) as *mut Eq) };
    // SAFETY: the fabric outlives its counted children.
    unsafe { Fabric::child_closed(e.fabric) };
    0
}

/// `read` of an event queue.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_eq_read(
    eq: *mut sys::kfid_eq,
    event: *mut u32,
    buf: *mut c_void,
    len: usize,
    flags: u64,
) -> isize {
    let peek = match is_peek(flags) {
        Ok(p) => p,
        Err(e) => return e as isize,
    };
    // SAFETY: our ops table calls us with our EQ.
    unsafe { Eq::from_header(eq) }.read(event, buf, len, peek)
}

/// `readerr` of an event queue: the head error entry, if any.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_eq_readerr(
    eq: *mut sys::kfid_eq,
    buf: *mut sys::kfi_eq_err_entry,
    flags: u64,
) -> isize {
    let peek = match is_peek(flags) {
        Ok(p) => p,
        Err(e) => return e as isize,
    };
    if buf.is_null() {
        return einval() as isize;
    }
    let len = core::mem::size_of::<sys::kfi_eq_err_entry>();
    // SAFETY: the consumer passes a writable error entry.
    let out = unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), len) };
    // SAFETY: our ops table calls us with our EQ.
    match unsafe { Eq::from_header(eq) }.ring.lock().read_err(out, peek) {
        Ok(n) => n as isize,
        Err(e) => e.errno(),
    }
}

/// `write` of an event queue: the consumer queues its own event.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_eq_write(
    eq: *mut sys::kfid_eq,
    event: u32,
    buf: *const c_void,
    len: usize,
    flags: u64,
) -> isize {
    if flags != 0 || len > SLOT_BYTES || (buf.is_null() && len != 0) {
        return einval() as isize;
    }
    let bytes = if len == 0 {
        &[][..]
    } else {
        // SAFETY: readable for `len` bytes by the API contract.
        unsafe { core::slice::from_raw_parts(buf.cast::<u8>(), len) }
    };
    // SAFETY: our ops table calls us with our EQ.
    match unsafe { Eq::from_header(eq) }.post(event, false, bytes) {
        Ok(()) => len as isize,
        Err(PushError::Full) => base::neg(bindings::EAGAIN) as isize,
        Err(PushError::TooLarge) => einval() as isize,
    }
}

/// `sread` of an event queue: waits up to `timeout` ms (negative: for
/// ever) for an entry. -EAGAIN on timeout, -EINTR on a signal.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_eq_sread(
    eq: *mut sys::kfid_eq,
    event: *mut u32,
    buf: *mut c_void,
    len: usize,
    timeout: c_int,
    flags: u64,
) -> isize {
    let peek = match is_peek(flags) {
        Ok(p) => p,
        Err(e) => return e as isize,
    };
    // SAFETY: our ops table calls us with our EQ.
    let e = unsafe { Eq::from_header(eq) };
    let mut left = if timeout < 0 {
        kernel::time::Jiffies::MAX
    } else {
        kernel::time::msecs_to_jiffies(timeout as u32)
    };
    loop {
        let n = e.read(event, buf, len, peek);
        if n != ReadError::Empty.errno() {
            return n;
        }
        let mut g = e.ring.lock();
        if !g.is_empty() {
            continue;
        }
        if left == 0 {
            return base::neg(bindings::EAGAIN) as isize;
        }
        match e.wait.wait_interruptible_timeout(&mut g, left) {
            kernel::sync::CondVarTimeoutResult::Timeout => left = 0,
            kernel::sync::CondVarTimeoutResult::Woken { jiffies } => left = jiffies,
            kernel::sync::CondVarTimeoutResult::Signal { .. } => {
                return base::neg(bindings::EINTR) as isize;
            }
        }
    }
}

/// `strerror` of an event queue: the text of a provider error number,
/// copied into `buf` when one is given.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_eq_strerror(
    _eq: *mut sys::kfid_eq,
    prov_errno: c_int,
    _err_data: *const c_void,
    buf: *mut c_char,
    len: usize,
) -> *const c_char {
    // SAFETY: `buf` is NULL or writable for `len` bytes (API contract).
    unsafe { base::strerror_into(prov_errno, buf, len) }
}
