// SPDX-License-Identifier: GPL-2.0
//! The event queue (`kfi_eq_open` on a fabric), the same for every
//! provider: the provider's fabric ops table points `eq_open` at
//! `kfi_util_fabric_eq_open`, and its fabric embeds
//! [`FabricBase`](super::fid::FabricBase), whose child count the EQ holds.
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

use super::base::{self, einval};
use super::fid::{ChildCount, FabricBase};
use super::logic::eq::{PushError, ReadError, Ring, Slot, SLOT_BYTES};
use super::sys;
use core::ffi::{c_char, c_int, c_void};
use kernel::bindings;
use kernel::prelude::*;
use core::sync::atomic::{AtomicUsize, Ordering};
use super::sync::{new_spinlock_bh, SpinLockBh};
use kernel::new_condvar;
use kernel::sync::CondVar;

/// Default and largest number of entries.
const DEFAULT_SIZE: usize = 256;
const MAX_SIZE: usize = 4096;

/// Slot storage for the ring.
pub(crate) type Slots = base::Storage<Slot>;

/// An event queue: the consumer sees `eq`.
#[pin_data]
#[repr(C)]
pub(crate) struct Eq {
    eq: sys::kfid_eq,
    /// The fabric's count of open children, which counts this EQ (so the
    /// fabric, and the count, outlive it).
    parent: *const ChildCount,
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
    /// `kfi_util_fabric_eq_open`, calls the functions that use this).
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
        !fid.is_null() && unsafe { sys::kfi_util_is_eq(fid) }
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
pub(crate) unsafe extern "C" fn kfi_util_fabric_eq_open(
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
    // SAFETY: `fabric` is one of the provider's fabrics (only its ops
    // table calls us), which embed the base first.
    let children = unsafe { &FabricBase::from_header(fabric).children };
    let init = pin_init!(Eq {
        // SAFETY: all-zero is a valid header; filled in below.
        eq: unsafe { core::mem::zeroed() },
        parent: children,
        ring <- new_spinlock_bh!(Ring::new(base::Storage(slots)), "kfi_util_eq"),
        wait <- new_condvar!("kfi_util_eq_wait"),
        binds: AtomicUsize::new(0),
    });
    let b = match KBox::pin_init(init, GFP_KERNEL) {
        Ok(b) => b,
        Err(_) => return base::neg(bindings::ENOMEM),
    };
    // SAFETY: the object stays pinned: it is only ever freed in place by
    // `kfi_util_eq_close`, never moved.
    let p = KBox::into_raw(unsafe { Pin::into_inner_unchecked(b) });
    children.opened();
    // SAFETY: `p` is our fresh object.
    unsafe {
        sys::kfi_util_eq_init(&mut (*p).eq, context, handler);
        *eq = &mut (*p).eq;
    }
    0
}

/// `close` of an event queue: -EBUSY while an endpoint is bound to it.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_eq_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: only installed on our EQs.
    if unsafe { Eq::from_fid(fid) }.binds.load(Ordering::Acquire) != 0 {
        return base::neg(bindings::EBUSY);
    }
    // SAFETY: only installed on EQs made by `kfi_util_fabric_eq_open`;
    // the header starts with this fid. The consumer gave up its pointer.
    let e = unsafe { KBox::from_raw(kernel::container_of!(fid, Eq, eq.fid) as *mut Eq) };
    let parent = e.parent;
    drop(e);
    // SAFETY: the fabric outlives its counted children.
    unsafe { (*parent).closed() };
    0
}

/// `read` of an event queue.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_eq_read(
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
    // SAFETY: the EQ ops table calls us with one of its EQs.
    unsafe { Eq::from_header(eq) }.read(event, buf, len, peek)
}

/// `readerr` of an event queue: the head error entry, if any.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_eq_readerr(
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
    // SAFETY: the EQ ops table calls us with one of its EQs.
    match unsafe { Eq::from_header(eq) }.ring.lock().read_err(out, peek) {
        Ok(n) => n as isize,
        Err(e) => e.errno(),
    }
}

/// `write` of an event queue: the consumer queues its own event.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_eq_write(
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
    // SAFETY: the EQ ops table calls us with one of its EQs.
    match unsafe { Eq::from_header(eq) }.post(event, false, bytes) {
        Ok(()) => len as isize,
        Err(PushError::Full) => base::neg(bindings::EAGAIN) as isize,
        Err(PushError::TooLarge) => einval() as isize,
    }
}

/// `sread` of an event queue: waits up to `timeout` ms (negative: for
/// ever) for an entry. -EAGAIN on timeout, -EINTR on a signal.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_eq_sread(
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
    // SAFETY: the EQ ops table calls us with one of its EQs.
    let e = unsafe { Eq::from_header(eq) };
    let end = base::Deadline::new(timeout);
    let mut left = end.left();
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
            kernel::sync::CondVarTimeoutResult::Timeout | kernel::sync::CondVarTimeoutResult::Woken { .. } => left = end.left(),
            kernel::sync::CondVarTimeoutResult::Signal { .. } => {
                return base::neg(bindings::EINTR) as isize;
            }
        }
    }
}

/// `strerror` of an event queue: the text of a provider error number,
/// copied into `buf` when one is given.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_eq_strerror(
    _eq: *mut sys::kfid_eq,
    prov_errno: c_int,
    _err_data: *const c_void,
    buf: *mut c_char,
    len: usize,
) -> *const c_char {
    // SAFETY: `buf` is NULL or writable for `len` bytes (API contract).
    unsafe { base::strerror_into(prov_errno, buf, len) }
}

/// The connection-management events of one endpoint (`KFI_CONNECTED`,
/// `KFI_SHUTDOWN` and error entries), posted by the provider's connection
/// code (kfi_tcp: a connection's work item) on the endpoint's EQ.
///
/// An endpoint holds the EQ slots of the events one connection reports
/// from its connect or accept on ([`CmEvents::hold`]), so that a full EQ
/// refuses the call with `-EAGAIN` instead of losing an event later; the
/// events use those slots first, and free ones only beyond them.
pub(crate) struct CmEvents {
    /// Slots of the EQ held and not used yet.
    held: AtomicUsize,
}

/// Connection events lost (only beyond the slots an endpoint holds, which
/// cover what one connection reports).
static CM_LOST_WARN: base::WarnLimit = base::WarnLimit::new();

impl CmEvents {
    /// Nothing held.
    pub(crate) const fn new() -> Self {
        CmEvents { held: AtomicUsize::new(0) }
    }

    /// Holds `n` slots of `eq` (all or none): `-EAGAIN` when it has not
    /// that many free (the consumer reads the EQ and retries).
    pub(crate) fn hold(&self, eq: &Eq, n: usize) -> core::result::Result<(), c_int> {
        if !eq.hold(n) {
            return Err(base::neg(bindings::EAGAIN));
        }
        self.held.fetch_add(n, Ordering::AcqRel);
        Ok(())
    }

    /// Gives back the held slots not used (a failed connect or accept,
    /// the endpoint's close).
    pub(crate) fn unhold(&self, eq: &Eq) {
        let n = self.held.swap(0, Ordering::AcqRel);
        if n > 0 {
            eq.unhold(n);
        }
    }

    /// Posts `event` (`KFI_CONNECTED`, `KFI_SHUTDOWN`) as a CM entry:
    /// `fid`, no info, and the peer's CM `data` (cut to what an entry
    /// holds).
    pub(crate) fn report(&self, eq: &Eq, fid: *mut sys::kfid, event: u32, data: &[u8]) {
        let mut buf = [0u8; SLOT_BYTES];
        buf[..8].copy_from_slice(&(fid as usize as u64).to_ne_bytes());
        let n = data.len().min(SLOT_BYTES - 16);
        buf[16..16 + n].copy_from_slice(&data[..n]);
        self.post(eq, event, false, &buf[..16 + n]);
    }

    /// Posts the error entry of a connection that failed (`err`, a
    /// negative errno) for endpoint `fid`, with the peer's reject data
    /// as `err_data`.
    ///
    /// # Safety
    /// `fid` is the live endpoint's header; `data` stays valid while the
    /// endpoint is open (the consumer may read `err_data` after reading
    /// the entry).
    pub(crate) unsafe fn error(&self, eq: &Eq, fid: *mut sys::kfid, err: c_int, data: &[u8]) {
        // SAFETY: all-zero is a valid error entry.
        let mut e: sys::kfi_eq_err_entry = unsafe { core::mem::zeroed() };
        e.fid = fid;
        // SAFETY: `fid` is live (caller's contract).
        e.context = unsafe { (*fid).context };
        e.err = -err;
        e.prov_errno = -err;
        if !data.is_empty() {
            e.err_data = data.as_ptr() as *mut c_void;
            e.err_data_size = data.len();
        }
        let len = core::mem::size_of::<sys::kfi_eq_err_entry>();
        // SAFETY: `e` is a live entry of `len` bytes; the reader copies
        // the bytes back into the same struct.
        let bytes = unsafe { core::slice::from_raw_parts((&e as *const sys::kfi_eq_err_entry).cast::<u8>(), len) };
        self.post(eq, 0, true, bytes);
    }

    /// Posts in a held slot, or in a free one if none is left.
    fn post(&self, eq: &Eq, event: u32, error: bool, bytes: &[u8]) {
        let mine = self.held.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1)).is_ok();
        let r = if mine { eq.post_held(event, error, bytes) } else { eq.post(event, error, bytes) };
        if r.is_err() && CM_LOST_WARN.allow() {
            pr_warn!("a connection event was lost: EQ full\n");
        }
    }
}

