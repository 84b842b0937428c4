// SPDX-License-Identifier: GPL-2.0
//! The completion queue (`kfi_cq_open` on a domain), the same for every
//! provider: the provider's domain ops table points `cq_open` at
//! `kfi_util_domain_cq_open`. A CQ makes progress on the endpoints bound
//! to it through the provider's [`ProgressSource`] (kfi_tcp: an endpoint's
//! connection), statically dispatched: the endpoint type is the
//! provider's `<crate::Prov as Provider>::Ep`.
//!
//! Entries live in a ring allocated at open (`logic::cq`), so completing an
//! operation never allocates. The endpoint code reserves one slot per
//! operation when it is posted (`try_reserve`: the post fails with -EAGAIN
//! when the CQ is full) and fills it when the operation completes
//! (`complete`, `complete_err`), so a completion is never lost. The entry
//! of a remote write with CQ data is reserved when its header arrives; with
//! the CQ full the frame waits in the socket (`reserve_or_wait`: the next
//! read that frees a slot kicks the connection). So is the entry of a message
//! that lands in a multi-receive buffer without releasing it (the buffer's
//! own reservation is for its last message).
//!
//! Locking: one spinlock around the ring, taken with bottom halves
//! disabled (`sync::SpinLockBh`), because consumers may read a CQ, and post
//! operations that reserve in it, from softirq context as well as process
//! context. It is never taken from hard-interrupt context and never held
//! while calling the consumer's handler. Reads from several CPUs at once
//! each get distinct entries (the whole read happens under the lock).
//!
//! Completion handler (`kfid_cq.comp_handler`, the `handler` argument of
//! `kfi_cq_open`): called after an entry is queued, with no lock held, in
//! the context of whoever completed the operation (a connection's work
//! item, or a post path), and only when *armed*. Consumers' reads and
//! posts make progress on the data only for endpoints without handlers,
//! so a handler never runs inside the consumer's own read. The CQ is armed at open
//! and whenever a read (`read`, `readfrom`, `readerr`, `sread`,
//! `sreadfrom`) finds it empty (the read returns -EAGAIN), and disarmed by
//! the call. A consumer that drains until -EAGAIN therefore always gets
//! the next call, and is not called again before it has drained.
//!
//! CPU affinity (`KFI_AFFINITY` in the attributes' `flags`, with
//! `signaling_vector` an online CPU; nvme-tcp's per-queue `io_cpu` is the
//! model): the handler is only ever called on that CPU, and the work items
//! of the connections of endpoints whose receive CQ (else transmit CQ) has
//! it are queued there (`queue_work_on`), so the work producing this CQ's
//! completions runs there too. A completion produced elsewhere (the other
//! CQ of an endpoint whose two CQs name different CPUs, a `kfi_cancel`, a
//! counter's trigger work) hands the handler call to the CQ's own work
//! item on its CPU (`hop`); one produced by a connection's work item
//! running on the CPU calls it directly. A polling consumer's own reads and posts
//! still move data in the consumer's context (that is where it asked for
//! it), and a CPU that goes offline later makes the workqueue run these
//! items elsewhere.
//!
//! Blocking reads (`sread`, `sreadfrom`) wait on a condition variable until
//! enough entries are queued (1, or with `KFI_CQ_COND_THRESHOLD` the value
//! of the `cond` pointer, at most `count`) or an error entry is queued, the
//! timeout (ms; negative: forever) expires, or `kfi_cq_signal` is called;
//! then they read what is there: -EAGAIN if nothing. A signal is remembered
//! until one blocking read that is not yet satisfied consumes it (as in
//! libfabric's `ofi_cq_signal`), so a signal sent just before the reader
//! blocks is not lost. -EINTR on a pending signal of the task.

use super::base::{self, einval};
use super::fid::DomainBase;
use super::logic::cq::{self as rules, Completion, Entry, ErrCompletion, Format, Notify, Ring, Slot, WaitCond};
use super::sync::{new_spinlock_bh, SpinLockBh};
use super::{sys, trace, Provider, Trace};
use core::ffi::{c_char, c_int, c_void};
use core::ptr;
use core::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use kernel::bindings;
use kernel::new_condvar;
use kernel::prelude::*;
use kernel::sync::{CondVar, CondVarTimeoutResult};

// The logic writes entries in these layouts; they must be the C ones.
const _: () = {
    use core::mem::{offset_of, size_of};
    use rules::offset as o;
    assert!(size_of::<sys::kfi_cq_entry>() == rules::CONTEXT_BYTES);
    assert!(size_of::<sys::kfi_cq_msg_entry>() == rules::MSG_BYTES);
    assert!(size_of::<sys::kfi_cq_data_entry>() == rules::DATA_BYTES);
    assert!(size_of::<sys::kfi_cq_tagged_entry>() == rules::TAGGED_BYTES);
    assert!(size_of::<sys::kfi_cq_err_entry>() == rules::ERR_BYTES);
    assert!(offset_of!(sys::kfi_cq_entry, op_context) == o::OP_CONTEXT);
    assert!(offset_of!(sys::kfi_cq_msg_entry, flags) == o::FLAGS);
    assert!(offset_of!(sys::kfi_cq_msg_entry, len) == o::LEN);
    assert!(offset_of!(sys::kfi_cq_data_entry, flags) == o::FLAGS);
    assert!(offset_of!(sys::kfi_cq_data_entry, len) == o::LEN);
    assert!(offset_of!(sys::kfi_cq_data_entry, buf) == o::BUF);
    assert!(offset_of!(sys::kfi_cq_data_entry, data) == o::DATA);
    assert!(offset_of!(sys::kfi_cq_tagged_entry, buf) == o::BUF);
    assert!(offset_of!(sys::kfi_cq_tagged_entry, data) == o::DATA);
    assert!(offset_of!(sys::kfi_cq_tagged_entry, tag) == o::TAG);
    assert!(offset_of!(sys::kfi_cq_err_entry, op_context) == o::OP_CONTEXT);
    assert!(offset_of!(sys::kfi_cq_err_entry, flags) == o::FLAGS);
    assert!(offset_of!(sys::kfi_cq_err_entry, len) == o::LEN);
    assert!(offset_of!(sys::kfi_cq_err_entry, buf) == o::BUF);
    assert!(offset_of!(sys::kfi_cq_err_entry, data) == o::DATA);
    assert!(offset_of!(sys::kfi_cq_err_entry, tag) == o::TAG);
    assert!(offset_of!(sys::kfi_cq_err_entry, olen) == o::OLEN);
    assert!(offset_of!(sys::kfi_cq_err_entry, err) == o::ERR);
    assert!(offset_of!(sys::kfi_cq_err_entry, prov_errno) == o::PROV_ERRNO);
    assert!(offset_of!(sys::kfi_cq_err_entry, err_data) == o::ERR_DATA);
    assert!(offset_of!(sys::kfi_cq_err_entry, err_data_size) == o::ERR_DATA_SIZE);
    assert!(sys::KFI_CQ_FORMAT_UNSPEC == rules::FORMAT_UNSPEC);
    assert!(sys::KFI_CQ_FORMAT_CONTEXT == rules::FORMAT_CONTEXT);
    assert!(sys::KFI_CQ_FORMAT_MSG == rules::FORMAT_MSG);
    assert!(sys::KFI_CQ_FORMAT_DATA == rules::FORMAT_DATA);
    assert!(sys::KFI_CQ_FORMAT_TAGGED == rules::FORMAT_TAGGED);
    assert!(sys::KFI_CQ_COND_NONE == rules::COND_NONE);
    assert!(sys::KFI_CQ_COND_THRESHOLD == rules::COND_THRESHOLD);
};

// `KFI_ADDR_NOTAVAIL`, the source `readfrom` reports for an entry without
// one (bindgen renders the header's `UINT64_MAX` as an `i32` -1).
const _: () = assert!(sys::KFI_ADDR_NOTAVAIL as sys::kfi_addr_t == rules::ADDR_NOTAVAIL);
const _: () = assert!(sys::KFI_ADDR_UNSPEC as sys::kfi_addr_t == super::logic::xfer::ADDR_ANY);

/// Slot storage for the ring (up to 65536 slots of 72 bytes: kvmalloc).
pub(crate) type Slots = base::Storage<Slot>;

/// What the CQ's lock protects.
struct State {
    ring: Ring<Slots>,
    /// A `kfi_cq_signal` not yet consumed by a blocking read.
    signaled: bool,
    /// Threads sleeping in a blocking read (pushes wake them only if any).
    sleepers: usize,
    /// Transport events that woke sleepers ([`Cq::progress_event`]): a reader
    /// that sees it move while it made progress goes round again instead
    /// of sleeping.
    events: u64,
    /// Statistics: the most entries queued at once; reservations refused
    /// for want of room (posts that failed with -EAGAIN, peers' data left
    /// waiting); entries lost (a completion with no reservation on a full
    /// ring: a provider bug, also warned about).
    peak: usize,
    refused: u64,
    lost: u64,
}

/// The provider's endpoint type, what a CQ makes progress on.
type Ep = <crate::Prov as Provider>::Ep;

/// What a CQ makes progress on: an endpoint bound to it (kfi_tcp: its
/// connection's socket, moved in the reader's context).
pub(crate) trait ProgressSource: Sync + 'static {
    /// What keeps the endpoint's progress state alive once the CQ's
    /// endpoint lock is dropped (kfi_tcp: `ConnRef`, a reference to the
    /// connection).
    type Ref<'a>: ProgressRef
    where
        Self: 'a;

    /// Non-blocking reads make progress on the endpoint even when no
    /// transport event marked the CQ (kfi_verbs: the device's CQ is
    /// polled, as a raw verbs consumer does; its events are not the
    /// reader's to see). Blocking reads still only after an event or a
    /// read that left work behind.
    const POLL_IDLE: bool;

    /// Called under the CQ's endpoint lock (a BH spinlock): must not
    /// sleep; may take the endpoint's queue lock (order: CQ endpoints,
    /// then endpoint queue, then CQ ring). `None`: nothing to move (no
    /// connection).
    fn progress_ref(&self) -> Option<Self::Ref<'_>>;
}

/// Progress on one endpoint, without the CQ's locks.
pub(crate) trait ProgressRef {
    /// Moves what can move now, in the reader's context; never sleeps.
    /// `polling`: a non-blocking read. True: work was left behind (the CQ
    /// stays dirty).
    fn poll(&self, polling: bool) -> bool;

    /// A read freed room the endpoint waits for ([`Cq::reserve_or_wait`]):
    /// let its progress (kfi_tcp: the connection's work item) go on.
    fn room_freed(&self);
}

/// Endpoints a CQ makes progress on.
struct Eps {
    list: KVec<*const Ep>,
    /// Where the next read starts (round robin).
    next: usize,
}

// SAFETY: the pointers name bound endpoints, valid until they unbind
// (which takes the lock around this).
unsafe impl Send for Eps {}

/// Endpoints one CQ read makes progress on (in turn, when more are bound).
const PROGRESS_EPS: usize = 4;

/// A completion queue: the consumer sees `cq`.
#[pin_data]
#[repr(C)]
pub(crate) struct Cq {
    cq: sys::kfid_cq,
    /// The domain's base: its child count holds this CQ, so it outlives it.
    domain: *const DomainBase,
    format: Format,
    wait_cond: WaitCond,
    /// Endpoints bound to this CQ; it cannot close while any is.
    bound: AtomicUsize,
    /// The bound endpoints, for reads to make progress on their
    /// connections.
    #[pin]
    eps: SpinLockBh<Eps>,
    #[pin]
    state: SpinLockBh<State>,
    #[pin]
    wait: CondVar,
    /// `State::sleepers`, readable without the lock (socket callbacks
    /// look at it on every event).
    sleeping: AtomicUsize,
    /// A connection waits for a free slot (`reserve_or_wait`): the next
    /// read that frees one kicks the bound endpoints' work items.
    room_wanted: AtomicBool,
    /// Jiffies of the last non-blocking read (0: none), see
    /// `polled_recently`.
    polled: AtomicU64,
    /// A socket event of a bound endpoint's connection may have left
    /// something for reads to move (`progress_event`), or a read left work
    /// behind: reads look at the endpoints only when set, so that an idle
    /// poll takes no lock.
    dirty: AtomicBool,
    /// `KFI_AFFINITY`: the CPU the handler and the completion work run on.
    cpu: Option<u32>,
    /// With `cpu` and a handler: the work item calling the handler on
    /// `cpu` for completions produced elsewhere (set once at open, before
    /// the CQ is published).
    hop: Option<base::DWork>,
    /// The ring is empty and armed (`Ring::is_armed`): a non-blocking read
    /// would change nothing and return -EAGAIN, so it does so without the
    /// lock. Stored under `state` after every change of the ring (see
    /// `sync_idle`); a read that races with a push may miss that entry
    /// and sees it at its next poll (a push onto an armed ring calls the
    /// handler itself).
    idle: AtomicBool,
}

impl Cq {
    /// Recovers a CQ from its fid (as given to `kfi_ep_bind`).
    ///
    /// # Safety
    /// `fid` is the fid of a live CQ of this provider: check it with
    /// [`Cq::is_cq`] first when it comes from a consumer.
    pub(crate) unsafe fn from_fid<'a>(fid: *mut sys::kfid) -> &'a Cq {
        // SAFETY: the fid is the first field of the header, itself the
        // first field of `Cq` (caller's contract: a live CQ of ours).
        unsafe { &*kernel::container_of!(fid, Cq, cq.fid) }
    }

    /// Whether `fid` is a CQ of this provider (its class and ops table are
    /// ours), so that [`Cq::from_fid`] may be used on it.
    ///
    /// # Safety
    /// `fid` is NULL or points to a valid `kfid`.
    pub(crate) unsafe fn is_cq(fid: *const sys::kfid) -> bool {
        // SAFETY: non-NULL and valid by the caller's contract.
        !fid.is_null() && unsafe { sys::kfi_util_is_cq(fid) }
    }

    /// Recovers the object from its header.
    ///
    /// # Safety
    /// `cq` is the header of a live `Cq` (only its ops table, installed by
    /// `kfi_util_domain_cq_open`, calls the functions that use this).
    unsafe fn from_header<'a>(cq: *mut sys::kfid_cq) -> &'a Cq {
        // SAFETY: by the caller's contract.
        unsafe { &*kernel::container_of!(cq, Cq, cq) }
    }

    /// Counts an endpoint bound to this CQ (from `kfi_ep_bind`) and lists
    /// it for progress: `ep` stays valid until [`Cq::unbind_ep`].
    pub(crate) fn bind_ep(&self, ep: *const Ep) -> Result {
        loop {
            let need = {
                let mut g = self.eps.lock();
                if g.list.len() < g.list.capacity() {
                    // Room: no allocation under the lock.
                    g.list.push(ep, GFP_ATOMIC)?;
                    break;
                }
                g.list.len() + 1
            };
            // Grow outside the lock (process context), then swap in.
            let mut bigger = KVec::with_capacity(need.max(4) * 2, GFP_KERNEL)?;
            let old = {
                let mut g = self.eps.lock();
                if g.list.capacity() >= bigger.capacity() {
                    bigger
                } else {
                    for p in g.list.iter() {
                        bigger.push(*p, GFP_ATOMIC)?;
                    }
                    core::mem::replace(&mut g.list, bigger)
                }
            };
            drop(old);
        }
        self.bound.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }

    /// The CPU of `KFI_AFFINITY`, if any.
    pub(crate) fn cpu(&self) -> Option<u32> {
        self.cpu
    }

    /// Writes the CQ's statistics (one line's fields, see README
    /// "Statistics"): its size, the entries queued (errors among them),
    /// the slots reserved by operations in flight, the most entries queued
    /// at once, reservations refused and entries lost for want of room,
    /// the endpoints bound. Any context (takes the ring's lock).
    pub(crate) fn stats(&self, w: &mut dyn core::fmt::Write) -> core::fmt::Result {
        let (size, queued, errors, reserved, peak, refused, lost) = {
            let g = self.state.lock();
            (g.ring.capacity(), g.ring.len(), g.ring.errors(), g.ring.reserved(), g.peak, g.refused, g.lost)
        };
        write!(
            w,
            "size={size} queued={queued} errors={errors} reserved={reserved} peak={peak} overruns={refused} lost={lost} bound={}",
            self.bound.load(Ordering::Relaxed)
        )?;
        if let Some(cpu) = self.cpu {
            write!(w, " cpu={cpu}")?;
        }
        write!(w, " handler={}", if self.has_handler() { "yes" } else { "no" })
    }

    /// True if the consumer gave a completion handler.
    pub(crate) fn has_handler(&self) -> bool {
        self.cq.comp_handler.is_some()
    }

    /// Makes progress on (up to [`PROGRESS_EPS`] of) the bound endpoints'
    /// connections, in turn, before a read looks at the ring: the data a
    /// polling consumer waits for moves in its own call, not only when a
    /// work item gets the CPU. Only after a socket event or a read that
    /// left work behind (`dirty`): an idle poll looks at no endpoint
    /// (unless the provider polls idle endpoints, `POLL_IDLE`: then every
    /// non-blocking read does).
    /// `polling`: a non-blocking read (see `ProgressRef::poll`). Never sleeps.
    fn progress(&self, polling: bool) {
        // Taken before the connections' marks are: an event after this
        // sets it again (see `Conn::tell_cqs`).
        // Read first: an idle poll writes no shared cache line.
        // (A CQ with a handler is bound only to endpoints that are not
        // quiet, whose progress does nothing in a read: no idle poll.)
        let idle = <Ep as ProgressSource>::POLL_IDLE && polling && !self.has_handler();
        if !idle && (!self.dirty.load(Ordering::Relaxed) || !self.dirty.swap(false, Ordering::SeqCst)) {
            return;
        }
        let mut refs: [Option<<Ep as ProgressSource>::Ref<'_>>; PROGRESS_EPS] = Default::default();
        let mut again = {
            let mut g = self.eps.lock();
            let n = g.list.len();
            if n == 0 {
                return;
            }
            let start = g.next % n;
            for (k, r) in refs.iter_mut().enumerate().take(n) {
                let ep = g.list[(start + k) % n];
                // SAFETY: a bound endpoint unbinds (under this lock) before
                // it goes, and waits for its progress refs before that.
                *r = unsafe { &*ep }.progress_ref();
            }
            g.next = (start + PROGRESS_EPS) % n;
            // More endpoints than one read looks at: the next read goes on.
            n > PROGRESS_EPS
        };
        for r in refs.iter().flatten() {
            again |= ProgressRef::poll(r, polling);
        }
        if again {
            self.dirty.store(true, Ordering::SeqCst);
        }
    }

    /// Reserves one slot for an entry the peer's data will produce (not a
    /// post: nothing can be refused); false when none is free, and then
    /// the next read that frees one kicks the bound endpoints' work items
    /// (see `room_wanted`), so the caller leaves the data in the socket
    /// until then. Any context but hard interrupts.
    pub(crate) fn reserve_or_wait(&self) -> bool {
        if self.try_reserve(1) {
            return true;
        }
        self.room_wanted.store(true, Ordering::SeqCst);
        // A read that freed a slot before it saw the wish kicks nobody:
        // look once more.
        self.try_reserve(1)
    }

    /// A non-blocking read: socket events of bound endpoints then only
    /// mark their connections for a tick (see `polled_recently`).
    /// Mirrors the ring's state into `idle`; call under `state` after
    /// changing the ring.
    fn sync_idle(&self, st: &State) {
        self.idle.store(st.ring.is_empty() && st.ring.is_armed(), Ordering::Release);
    }

    fn mark_polled(&self) {
        let now = base::jiffies().max(1);
        if self.polled.load(Ordering::Relaxed) != now {
            self.polled.store(now, Ordering::Relaxed);
        }
    }

    /// Read without blocking in this tick or the previous one: its
    /// consumer polls and moves the data itself (see `Conn`'s `conn_wake`).
    pub(crate) fn polled_recently(&self) -> bool {
        let p = self.polled.load(Ordering::Relaxed);
        p != 0 && base::jiffies().wrapping_sub(p) <= 1
    }

    /// After a read took entries, with no lock held: tells the bound
    /// endpoints if one waits for room.
    fn room_freed(&self) {
        if !self.room_wanted.load(Ordering::SeqCst) || !self.room_wanted.swap(false, Ordering::SeqCst) {
            return;
        }
        let g = self.eps.lock();
        for &ep in g.list.iter() {
            // SAFETY: a bound endpoint unbinds (under this lock) before
            // it goes, and waits for its progress refs before that.
            if let Some(r) = unsafe { &*ep }.progress_ref() {
                r.room_freed();
            }
        }
    }

    /// Uncounts an endpoint (when it is closed).
    pub(crate) fn unbind_ep(&self, ep: *const Ep) {
        {
            let mut g = self.eps.lock();
            if let Some(i) = g.list.iter().position(|&p| p == ep) {
                let _ = base::kvec_remove(&mut g.list, i);
            }
        }
        self.bound.fetch_sub(1, Ordering::AcqRel);
    }

    /// Promises `n` slots to operations being posted; false when the CQ
    /// has not that much room (the post then fails with -EAGAIN). Any
    /// context but hard interrupts.
    #[inline]
    pub(crate) fn try_reserve(&self, n: usize) -> bool {
        let mut g = self.state.lock();
        let ok = g.ring.try_reserve(n);
        if !ok {
            g.refused += 1;
        }
        ok
    }

    /// Returns `n` promised slots: operations that will write no entry
    /// (a post that failed after reserving; a successful operation posted
    /// without `KFI_COMPLETION` under selective completion).
    #[inline]
    pub(crate) fn unreserve(&self, n: usize) {
        if self.state.lock().ring.unreserve(n).is_err() {
            base::warn_once!("CQ: more slots returned than were reserved");
        }
    }

    /// Queues the completion of an operation that reserved a slot, wakes
    /// blocking readers and calls the handler if armed. Call with no
    /// provider lock held (the handler runs here).
    pub(crate) fn complete(&self, e: &Completion) {
        trace::complete(self.trace_id(), e.op_context, e.flags, e.len, 0);
        self.push_reserved(Entry::Done(*e));
    }

    /// As [`Cq::complete`], for a failed operation.
    pub(crate) fn complete_err(&self, e: &ErrCompletion) {
        trace::complete(self.trace_id(), e.op_context, e.flags, e.len, e.err);
        self.push_reserved(Entry::Failed(*e));
    }

    /// What trace events name this CQ by (its address).
    fn trace_id(&self) -> *const c_void {
        (self as *const Self).cast()
    }

    fn push_reserved(&self, e: Entry) {
        crate::Prov::trace(Trace::CqPush);
        let mut g = self.state.lock();
        let (pushed, unreserved) = match g.ring.push_reserved(e) {
            Ok(n) => (Some(n), false),
            // A provider bug: still queue the entry if there is room.
            Err(_) => (g.ring.try_push(e).ok(), true),
        };
        if pushed.is_none() {
            g.lost += 1;
        }
        g.peak = g.peak.max(g.ring.len());
        self.sync_idle(&g);
        let wake = g.sleepers > 0;
        drop(g);
        if unreserved {
            if pushed.is_some() {
                base::warn_once!("CQ: completion without a reservation (queued)");
            } else {
                base::warn_once!("CQ: completion without a reservation (lost, CQ full)");
            }
        }
        if let Some(n) = pushed {
            self.notify(n, wake);
        }
    }

    /// After a push, with no lock held: wakes blocking readers if any and
    /// calls the handler if the push disarmed the CQ.
    fn notify(&self, n: Notify, wake: bool) {
        if wake {
            self.wait.notify_all();
        }
        if n != Notify::Handler {
            return;
        }
        if let (Some(hop), Some(cpu)) = (&self.hop, self.cpu) {
            if !crate::Prov::in_progress_work_on(cpu) {
                hop.queue_on(cpu);
                return;
            }
        }
        self.call_handler();
    }

    fn call_handler(&self) {
        if let Some(h) = self.cq.comp_handler {
            // SAFETY: the consumer's handler with its own context, on
            // this live CQ; no lock is held.
            unsafe { h(&self.cq as *const _ as *mut _, self.cq.fid.context) };
        }
    }

    /// The consumer's array of `count` entries in this CQ's format; `None`
    /// for NULL, 0 entries or a size that overflows.
    ///
    /// # Safety
    /// `buf` is NULL or writable for `count` entries of the CQ's format,
    /// and not otherwise accessed for `'a`.
    unsafe fn out<'a>(&self, buf: *mut c_void, count: usize) -> Option<&'a mut [u8]> {
        let len = count.checked_mul(self.format.entry_bytes())?;
        if buf.is_null() || len == 0 || len > isize::MAX as usize {
            return None;
        }
        // SAFETY: writable for `len` bytes by the caller's contract.
        Some(unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), len) })
    }

    /// Reads under the lock into `out`; sets a source address per entry
    /// read when `src` is given.
    ///
    /// # Safety
    /// `src` is NULL or writable for as many addresses as `out` holds
    /// entries.
    unsafe fn read_locked(&self, st: &mut State, out: &mut [u8], src: *mut sys::kfi_addr_t) -> isize {
        let src = if src.is_null() {
            None
        } else {
            let n = out.len() / self.format.entry_bytes();
            // SAFETY: writable for as many addresses as `out` holds
            // entries (caller's contract).
            Some(unsafe { core::slice::from_raw_parts_mut(src, n) })
        };
        let r = st.ring.read(self.format, out, src);
        self.sync_idle(st);
        match r {
            Ok(n) => n as isize,
            Err(e) => e.errno(),
        }
    }

    /// `read`/`readfrom`.
    ///
    /// # Safety
    /// As [`Cq::out`] and [`Cq::read_locked`].
    unsafe fn read(&self, buf: *mut c_void, count: usize, src: *mut sys::kfi_addr_t) -> isize {
        // SAFETY: the consumer's buffer (caller's contract).
        let Some(out) = (unsafe { self.out(buf, count) }) else {
            return einval() as isize;
        };
        self.mark_polled();
        self.progress(true);
        if self.idle.load(Ordering::Acquire) {
            // Nothing queued and armed already: no lock (see `idle`).
            return rules::ReadError::Empty.errno();
        }
        // SAFETY: `src` holds `count` addresses (caller's contract).
        let n = unsafe { self.read_locked(&mut self.state.lock(), out, src) };
        if n > 0 {
            self.room_freed();
        }
        n
    }

    /// `sread`/`sreadfrom`: see the module documentation.
    ///
    /// # Safety
    /// As [`Cq::read`].
    unsafe fn sread(
        &self,
        buf: *mut c_void,
        count: usize,
        src: *mut sys::kfi_addr_t,
        cond: *const c_void,
        timeout: c_int,
    ) -> isize {
        // SAFETY: the consumer's buffer (caller's contract).
        let Some(out) = (unsafe { self.out(buf, count) }) else {
            return einval() as isize;
        };
        let threshold = self.wait_cond.threshold(cond as usize, count);
        let end = base::Deadline::new(timeout);
        let mut left = end.left();
        let mut seen = self.state.lock().events;
        loop {
            // Socket events of bound endpoints without handlers wake us
            // (`progress_event`) rather than their work items: the data
            // moves here, in the reader's context.
            self.progress(false);
            let mut g = self.state.lock();
            let stop = g.ring.ready(threshold) || left == 0 || core::mem::take(&mut g.signaled);
            if stop {
                // SAFETY: `src` holds `count` addresses (caller's contract).
                let n = unsafe { self.read_locked(&mut g, out, src) };
                drop(g);
                if n > 0 {
                    self.room_freed();
                }
                return n;
            }
            if g.events != seen {
                // An event came while we made progress: look again.
                seen = g.events;
                continue;
            }
            g.sleepers += 1;
            self.sleeping.fetch_add(1, Ordering::SeqCst);
            let r = self.wait.wait_interruptible_timeout(&mut g, left);
            self.sleeping.fetch_sub(1, Ordering::SeqCst);
            g.sleepers -= 1;
            seen = g.events;
            match r {
                CondVarTimeoutResult::Timeout | CondVarTimeoutResult::Woken { .. } => left = end.left(),
                CondVarTimeoutResult::Signal { .. } => {
                    drop(g);
                    // An event may have woken us too: do not leave it.
                    self.progress(false);
                    return base::neg(bindings::EINTR) as isize;
                }
            }
        }
    }

    /// From an event of a bound endpoint's transport (kfi_tcp: a socket
    /// callback of its connection, softirq or process context), after it
    /// marked what has work: the next read makes progress, and threads
    /// sleeping in a blocking read are woken to make it themselves. True if
    /// one was woken (else the caller kicks its work item as usual).
    pub(crate) fn progress_event(&self) -> bool {
        self.dirty.store(true, Ordering::SeqCst);
        if self.sleeping.load(Ordering::SeqCst) == 0 {
            return false;
        }
        {
            // Under the lock: a reader about to sleep either sees the new
            // count before it waits, or is on the wait queue already.
            let mut g = self.state.lock();
            if g.sleepers == 0 {
                return false;
            }
            g.events = g.events.wrapping_add(1);
        }
        self.wait.notify_all();
        true
    }
}

/// The hop work item (`Cq::hop`): the handler, on the CQ's CPU.
///
/// # Safety
/// `ctx` is a live `Cq`: its close cancels the item (waiting for a run)
/// before it frees the CQ.
unsafe extern "C" fn cq_hop(ctx: *mut c_void) {
    // SAFETY: by the contract above.
    let cq = unsafe { &*ctx.cast::<Cq>() };
    cq.call_handler();
}

/// `cq_open` of a domain.
///
/// Attributes: `size` 0 means 1024, at most 65536 (-EINVAL above); `flags`
/// 0 or `KFI_AFFINITY`, which requires `signaling_vector` to be an online
/// CPU (-EINVAL otherwise): the completion handler is then only called on
/// that CPU and the connections whose completions come here do their work
/// there (see the module documentation); without it `signaling_vector` is
/// ignored;
/// `format` UNSPEC (= CONTEXT), CONTEXT, MSG, DATA or TAGGED; `wait_cond`
/// NONE or THRESHOLD; `wait_obj` NONE or UNSPEC (blocking reads work with
/// either), WAIT_SET and WAIT_QUEUE: -ENOSYS. Anything else: -EINVAL.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_domain_cq_open(
    domain: *mut sys::kfid_domain,
    attr: *mut sys::kfi_cq_attr,
    cq: *mut *mut sys::kfid_cq,
    handler: sys::kfi_comp_handler,
    context: *mut c_void,
) -> c_int {
    // SAFETY: NULL or valid by the API contract.
    let (Some(attr), false, false) = (unsafe { attr.as_ref() }, domain.is_null(), cq.is_null()) else {
        return einval();
    };
    let (Some(size), Some(format), Some(wait_cond)) = (
        rules::queue_size(attr.size),
        Format::from_raw(attr.format),
        WaitCond::from_raw(attr.wait_cond),
    ) else {
        return einval();
    };
    let affinity = sys::KFI_AFFINITY as u64;
    if attr.flags & !affinity != 0 {
        return einval();
    }
    let cpu = if attr.flags & affinity != 0 {
        // SAFETY: a plain query of the online-CPU mask.
        if !unsafe { sys::kfi_util_cpu_usable(attr.signaling_vector) } {
            return einval();
        }
        Some(attr.signaling_vector as u32)
    } else {
        None
    };
    // Blocking reads are built in; wait sets and wait queues are not.
    if attr.wait_obj != sys::KFI_WAIT_NONE && attr.wait_obj != sys::KFI_WAIT_UNSPEC {
        return base::neg(bindings::ENOSYS);
    }
    let Ok(slots) = KVVec::from_elem(Slot::default(), size, GFP_KERNEL | __GFP_NOWARN) else {
        return base::neg(bindings::ENOMEM);
    };
    // SAFETY: `domain` is one of the provider's domains (only its domain
    // ops table calls us), which embed the base first.
    let d = unsafe { DomainBase::from_header(domain) };
    let state = State { ring: Ring::new(base::Storage(slots)), signaled: false, sleepers: 0, events: 0, peak: 0, refused: 0, lost: 0 };
    let init = pin_init!(Cq {
        // SAFETY: all-zero is a valid header; filled in below.
        cq: unsafe { core::mem::zeroed() },
        domain: d,
        format,
        wait_cond,
        bound: AtomicUsize::new(0),
        eps <- new_spinlock_bh!(Eps { list: KVec::new(), next: 0 }, "kfi_util_cq_eps"),
        state <- new_spinlock_bh!(state, "kfi_util_cq"),
        wait <- new_condvar!("kfi_util_cq_wait"),
        sleeping: AtomicUsize::new(0),
        dirty: AtomicBool::new(true),
        idle: AtomicBool::new(true),
        cpu,
        hop: None,
        room_wanted: AtomicBool::new(false),
        polled: AtomicU64::new(0),
    });
    // On failure the initialiser, and the slots it owns, are dropped.
    let b = match KBox::pin_init(init, GFP_KERNEL) {
        Ok(b) => b,
        Err(_) => return base::neg(bindings::ENOMEM),
    };
    // SAFETY: the object stays pinned: it is only ever freed in place by
    // `kfi_util_cq_close`, never moved.
    let p = KBox::into_raw(unsafe { Pin::into_inner_unchecked(b) });
    if cpu.is_some() && handler.is_some() {
        // SAFETY: the CQ is freed only by `kfi_util_cq_close`, which drops
        // the item (cancelling it) first.
        match unsafe { base::DWork::new(cq_hop, p.cast()) } {
            // SAFETY: not published yet: nobody else sees the object.
            Ok(w) => unsafe { (*p).hop = Some(w) },
            Err(_) => {
                // SAFETY: ours, unpublished, allocated by KBox above.
                drop(unsafe { KBox::from_raw(p) });
                return base::neg(bindings::ENOMEM);
            }
        }
    }
    d.children.opened();
    // SAFETY: `p` is our fresh object; the glue fills the header.
    unsafe {
        sys::kfi_util_cq_init(&mut (*p).cq, context, handler);
        // Listed once its header is whole (statistics read its handler).
        d.cqs.add(p as usize);
        *cq = &mut (*p).cq;
    }
    0
}

/// `close` of a completion queue: -EBUSY while endpoints are bound.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_cq_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: only installed on CQs made by `kfi_util_domain_cq_open`,
    // whose header starts with this fid.
    let p = unsafe { kernel::container_of!(fid, Cq, cq.fid) as *mut Cq };
    // SAFETY: live until freed below.
    let (bound, d) = unsafe { ((*p).bound.load(Ordering::Acquire), (*p).domain) };
    if bound != 0 {
        return base::neg(bindings::EBUSY);
    }
    // SAFETY: live until freed below.
    if let Some(hop) = unsafe { (*p).hop.as_ref() } {
        // Closing from the handler the hop runs would wait for itself.
        if hop.is_current() {
            return base::neg(bindings::EDEADLK);
        }
        // No run after this: nothing calls the handler any more (no
        // endpoint is bound, so nothing completes here).
        hop.cancel_sync();
    }
    // SAFETY: the domain outlives its counted CQs; unlisted before it
    // is freed (a statistics reader holds the list while it looks).
    unsafe { (*d).cqs.remove(p as usize) };
    // SAFETY: allocated with KBox by `kfi_util_domain_cq_open`; no endpoint
    // refers to it; the consumer gave up its pointer by closing.
    drop(unsafe { KBox::from_raw(p) });
    // SAFETY: the domain cannot be freed while this CQ was counted.
    unsafe { (*d).children.closed() };
    0
}

/// `read` of a completion queue.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_cq_read(cq: *mut sys::kfid_cq, buf: *mut c_void, count: usize) -> isize {
    // SAFETY: the CQ ops table calls us with its CQ; `buf` holds `count`
    // entries by the API contract.
    let n = unsafe { Cq::from_header(cq).read(buf, count, ptr::null_mut()) };
    if n > 0 {
        crate::Prov::trace(Trace::CqGot);
    }
    n
}

/// `readfrom` of a completion queue: as `read`, with the source address
/// handle of each entry (`KFI_ADDR_NOTAVAIL` when it has none: transmits,
/// MSG endpoints, a sender not in the AV); `src_addr` may be NULL.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_cq_readfrom(
    cq: *mut sys::kfid_cq,
    buf: *mut c_void,
    count: usize,
    src_addr: *mut sys::kfi_addr_t,
) -> isize {
    // SAFETY: the CQ ops table calls us with its CQ; `buf` and `src_addr`
    // hold `count` entries by the API contract.
    unsafe { Cq::from_header(cq).read(buf, count, src_addr) }
}

/// `readerr` of a completion queue: pops the head error entry (1), or
/// -EAGAIN when the head is not one. `err_data` is always NULL.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_cq_readerr(
    cq: *mut sys::kfid_cq,
    buf: *mut sys::kfi_cq_err_entry,
    flags: u64,
) -> isize {
    if flags != 0 || buf.is_null() {
        return einval() as isize;
    }
    // SAFETY: the CQ ops table calls us with its CQ.
    let c = unsafe { Cq::from_header(cq) };
    let e = {
        let mut g = c.state.lock();
        let e = g.ring.read_err();
        c.sync_idle(&g);
        e
    };
    match e {
        Ok(e) => {
            c.room_freed();
            let len = core::mem::size_of::<sys::kfi_cq_err_entry>();
            // SAFETY: the consumer passes a writable error entry.
            e.encode(unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), len) });
            1
        }
        Err(e) => e.errno(),
    }
}

/// `sread` of a completion queue.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_cq_sread(
    cq: *mut sys::kfid_cq,
    buf: *mut c_void,
    count: usize,
    cond: *const c_void,
    timeout: c_int,
) -> isize {
    // SAFETY: the CQ ops table calls us with its CQ; `buf` holds `count`
    // entries by the API contract.
    unsafe { Cq::from_header(cq).sread(buf, count, ptr::null_mut(), cond, timeout) }
}

/// `sreadfrom` of a completion queue.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_cq_sreadfrom(
    cq: *mut sys::kfid_cq,
    buf: *mut c_void,
    count: usize,
    src_addr: *mut sys::kfi_addr_t,
    cond: *const c_void,
    timeout: c_int,
) -> isize {
    // SAFETY: the CQ ops table calls us with its CQ; `buf` and `src_addr`
    // hold `count` entries by the API contract.
    unsafe { Cq::from_header(cq).sread(buf, count, src_addr, cond, timeout) }
}

/// `signal` of a completion queue: makes one unsatisfied blocking read
/// (one blocked now, or the next) return early.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_cq_signal(cq: *mut sys::kfid_cq) -> c_int {
    // SAFETY: the CQ ops table calls us with its CQ.
    let c = unsafe { Cq::from_header(cq) };
    c.state.lock().signaled = true;
    c.wait.notify_all();
    0
}

/// `strerror` of a completion queue: the text of a provider error number,
/// copied into `buf` when one is given.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_cq_strerror(
    _cq: *mut sys::kfid_cq,
    prov_errno: c_int,
    _err_data: *const c_void,
    buf: *mut c_char,
    len: usize,
) -> *const c_char {
    // SAFETY: `buf` is NULL or writable for `len` bytes (API contract).
    unsafe { base::strerror_into(prov_errno, buf, len) }
}
