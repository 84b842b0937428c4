// SPDX-License-Identifier: GPL-2.0
//! Completion counters (`kfi_cntr_open` on a domain), the same for every
//! provider: the provider's domain ops table points `cntr_open` at
//! `kfi_util_domain_cntr_open`, and its domain embeds
//! [`DomainBase`](crate::util::fid::DomainBase), whose child count and
//! counter list ([`CntrList`]) a counter is kept in.
//!
//! A counter holds a success and an error count (`u64`, wrapping on add,
//! as `engine::Counter` — the trigger engine's view of a counter,
//! which will queue triggered operations beside it under the same lock).
//! Endpoints bound with `KFI_SEND`, `KFI_RECV`, `KFI_READ`, `KFI_WRITE`,
//! `KFI_REMOTE_READ` or `KFI_REMOTE_WRITE` count each such completion —
//! success or error — whether or not a CQ entry is written.
//!
//! # Triggered operations
//! Beside the values, under the same lock, each counter has two trigger
//! engines (`engine::Engine`: ordered by (threshold, submission
//! sequence), O(log n)) and a FIFO of operations already due
//! (`TokenRing`). They differ in the value they compare thresholds with:
//! - transfers posted with `KFI_TRIGGER` fire on the **success** count
//!   (`kfi_trigger.h`; every libfabric 1.17 provider with triggered
//!   operations compares `fi_cntr_read()`), so an error completion never
//!   releases a chain that waits for good data;
//! - deferred work (`KFI_QUEUE_WORK`) fires on success **plus** error
//!   count (fi_trigger(3): the triggering counter's "success plus error
//!   counter values").
//!
//! Keeping them apart also lets `KFI_FLUSH_WORK` drain the deferred work
//! without touching the triggered transfers' order. A triggered post (`trig.rs`) decides "already met?" and
//! queues in one step under the lock. A change of the values that makes
//! something due queues the counter's work item and leaves the due
//! operations where they are; the work item takes them one at a time
//! under the lock — the FIFO first, then the engines in threshold order,
//! equal thresholds in post order — and issues each in process context
//! with no lock held (a triggered operation whose completion bumps this
//! counter again just queues more). So an add costs the same whether it
//! makes one operation due or a million. What goes to the FIFO: a post
//! whose threshold is met while nothing in its engine is due, and
//! everything due when a value is about to go down (a `set`, an add that
//! wraps) or an engine is cancelled from or flushed. Tokens are
//! `KBox<Pending>` pointers owned by the engine or the FIFO.
//!
//! Storage: the engine's slots and the FIFO are preallocated; the FIFO is
//! always at least as long as both engines together, so popping never fails. A post
//! that finds no free slot returns -EAGAIN and asks the work item to grow
//! both (outside the lock, in process context: posts may come from atomic
//! context, where large allocations are not possible); the work item also
//! grows them ahead of time when they are three-quarters used.
//!
//! # Contexts and locks
//! One `SpinLockBh` around the values, the engine and the FIFO:
//! increments come from the connections' work items and from the post
//! path (cancel), reads and `add`/`set` from any consumer context but hard
//! interrupts. The increment path takes the lock, changes two integers,
//! looks at each engine's minimum and wakes sleepers and the work item:
//! it never sleeps and never allocates. `wait` sleeps on a condition variable
//! (process context only).

use super::engine::{Counter, Engine, Full, PostOutcome, Slot, TokenRing};
use super::trig::{self, Pending};
use crate::util::base::{self, einval};
use crate::util::fid::DomainBase;
use crate::util::sync::{new_spinlock_bh, SpinLockBh};
use crate::util::sys;
use crate::util::trace;
use core::ffi::{c_int, c_void};
use core::ptr;
use core::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use kernel::bindings;
use kernel::new_condvar;
use kernel::prelude::*;
use kernel::sync::{CondVar, CondVarTimeoutResult};

/// Engine storage.
type EngSlots = base::Storage<Slot>;
/// FIFO storage.
type Tokens = base::Storage<u64>;

/// Initial room for pending triggered operations per counter.
const INITIAL_SLOTS: usize = 64;
/// Due operations the work item issues per run before requeueing itself.
const ISSUE_BUDGET: usize = 256;

/// Which engine an operation waits in (see the module documentation).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Waits {
    /// A `KFI_TRIGGER` transfer: the success count.
    Success,
    /// Deferred work: success plus error count.
    Completions,
}

impl Waits {
    const ALL: [Waits; 2] = [Waits::Success, Waits::Completions];

    fn index(self) -> usize {
        self as usize
    }

    /// The value this engine's thresholds compare with.
    fn value(self, c: &Counter) -> u64 {
        match self {
            Waits::Success => c.success(),
            Waits::Completions => c.trigger_value(),
        }
    }
}

struct State {
    c: Counter,
    /// Threads sleeping in `wait` (updates wake them only if any).
    sleepers: usize,
    /// Indexed by [`Waits::index`].
    engines: [Engine<EngSlots>; 2],
    /// Due operations, in fire order (tokens).
    ready: TokenRing<Tokens>,
}

// SAFETY: the tokens are `KBox<Pending>` pointers owned by the state;
// `Pending` is `Send`.
unsafe impl Send for State {}

impl State {
    /// Both engines' values (indexed by [`Waits::index`]).
    fn values(&self) -> [u64; 2] {
        Waits::ALL.map(|w| w.value(&self.c))
    }

    /// Pops every operation of engine `w` due at `value` onto the FIFO.
    fn pop_due_at(&mut self, w: Waits, value: u64) {
        while let Some(f) = self.engines[w.index()].pop_ready(value) {
            // Cannot fail: the FIFO is at least as long as the engines
            // together.
            if self.ready.push_back(f.token).is_err() {
                base::warn_once!("trigger FIFO overflow");
            }
        }
    }

    /// Pops every operation of engine `w` due at the current value onto
    /// the FIFO, where only the work item (or a close) takes it.
    fn pop_due(&mut self, w: Waits) {
        let v = w.value(&self.c);
        self.pop_due_at(w, v);
    }

    /// Whether anything is due: in the FIFO, or in an engine at its value.
    fn any_due(&self) -> bool {
        !self.ready.is_empty() || Waits::ALL.iter().any(|&w| self.engines[w.index()].has_ready(w.value(&self.c)))
    }

    /// The next operation to issue: the FIFO's front, else the earliest
    /// one due in an engine. Whatever is in the FIFO became due before
    /// anything still in an engine (a post finding its threshold met goes
    /// to the FIFO only when nothing in its engine is due, and everything
    /// due was popped when the FIFO last took a due operation from an
    /// engine), so this is fire order.
    fn next_due(&mut self) -> Option<u64> {
        if let Some(t) = self.ready.pop_front() {
            return Some(t);
        }
        for w in Waits::ALL {
            let v = w.value(&self.c);
            if let Some(f) = self.engines[w.index()].pop_ready(v) {
                return Some(f.token);
            }
        }
        None
    }

    /// Operations held by both engines.
    fn held(&self) -> usize {
        self.engines.iter().map(|e| e.held()).sum()
    }

    /// Room for one more operation in engine `w` and the FIFO.
    fn has_room(&self, w: Waits) -> bool {
        !self.engines[w.index()].is_full() && self.ready.len() + self.held() < self.ready.capacity()
    }

    /// Whether the storage should grow ahead of use (an engine 3/4 taken,
    /// or a FIFO shorter than both engines).
    fn wants_growth(&self) -> bool {
        let full = self.engines.iter().any(|e| e.held() * 4 >= e.capacity() * 3);
        let cap: usize = self.engines.iter().map(|e| e.capacity()).sum();
        full || self.ready.capacity() < cap + 1
    }
}

/// A counter: the consumer sees `cntr`.
#[pin_data]
#[repr(C)]
pub(crate) struct Cntr {
    cntr: sys::kfid_cntr,
    /// The domain's base: its child count and counter list hold this
    /// counter, so it outlives it.
    domain: *const DomainBase,
    /// Endpoint events bound to this counter; it cannot close while any is.
    bound: AtomicUsize,
    /// Pending or in-flight operations that will change this counter
    /// (deferred CNTR_ADD/CNTR_SET targets, completion counters); it
    /// cannot close while any is.
    users: AtomicUsize,
    #[pin]
    state: SpinLockBh<State>,
    /// The success and error counts as of the last change, written under
    /// `state`'s lock after each change: `kfi_cntr_read`/`readerr` read
    /// them without a lock, so they work in any context (hard interrupts
    /// and with interrupts disabled included, as `kfi_eq.h` promises).
    seen: [AtomicU64; 2],
    #[pin]
    wait: CondVar,
    /// Issues due operations (set once at open, before publication).
    work: Option<base::DWork>,
}

impl Cntr {
    /// Whether `fid` is a counter of this provider.
    ///
    /// # Safety
    /// `fid` is NULL or points to a valid `kfid`.
    pub(crate) unsafe fn is_cntr(fid: *const sys::kfid) -> bool {
        // SAFETY: non-NULL and valid by the caller's contract.
        !fid.is_null() && unsafe { sys::kfi_util_is_cntr(fid) }
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

    /// Writes the counter's statistics (one line's fields, see README
    /// "Statistics"): its values, the endpoint events bound to it, the
    /// triggered transfers and deferred work waiting on it (with the
    /// lowest threshold of each), and the operations due but not issued
    /// yet. Any context (takes the counter's lock).
    pub(crate) fn stats(&self, w: &mut dyn core::fmt::Write) -> core::fmt::Result {
        let (ok, err, trig, trig_next, deferred, deferred_next, due) = {
            let mut g = self.state.lock();
            // Shown as due (not waiting) once the value reached them.
            for w in Waits::ALL {
                g.pop_due(w);
            }
            let e = &g.engines;
            (
                g.c.success(),
                g.c.error(),
                e[Waits::Success.index()].len(),
                e[Waits::Success.index()].peek_min_threshold(),
                e[Waits::Completions.index()].len(),
                e[Waits::Completions.index()].peek_min_threshold(),
                g.ready.len(),
            )
        };
        write!(w, "value={ok} errors={err} bound={} triggered={trig}", self.bound.load(Ordering::Relaxed))?;
        if let Some(t) = trig_next {
            write!(w, " next_threshold={t}")?;
        }
        write!(w, " deferred={deferred}")?;
        if let Some(t) = deferred_next {
            write!(w, " deferred_next={t}")?;
        }
        write!(w, " due={due}")
    }

    /// Counts one endpoint event bound to the counter.
    pub(crate) fn bind_ep(&self) {
        self.bound.fetch_add(1, Ordering::AcqRel);
    }

    /// Uncounts one (endpoint close).
    pub(crate) fn unbind_ep(&self) {
        self.bound.fetch_sub(1, Ordering::AcqRel);
    }

    /// Counts a pending or in-flight operation that will change this
    /// counter.
    pub(crate) fn use_(&self) {
        self.users.fetch_add(1, Ordering::AcqRel);
    }

    /// Uncounts it.
    pub(crate) fn unuse(&self) {
        self.users.fetch_sub(1, Ordering::AcqRel);
    }

    fn kick(&self, delay: u64) {
        if let Some(w) = &self.work {
            w.queue(delay);
        }
    }

    /// Changes the values under the lock, then wakes waiters, and the
    /// issuing work item if anything is due. What became due stays in
    /// its engine, where the work item pops it in order: the change costs
    /// the same whether it makes one operation due or a thousand. A change
    /// that lowers a value (`set`, `set_err`, an add that wraps) first
    /// pops what the old value had made due onto the FIFO, since a lower
    /// value would otherwise make it pending again. Any context but hard
    /// interrupts; no allocation.
    pub(crate) fn update(&self, f: impl FnOnce(&mut Counter)) {
        let (wake, due) = {
            let mut g = self.state.lock();
            let old = g.values();
            f(&mut g.c);
            self.seen[0].store(g.c.success(), Ordering::Release);
            self.seen[1].store(g.c.error(), Ordering::Release);
            let new = g.values();
            for w in Waits::ALL {
                if new[w.index()] < old[w.index()] {
                    g.pop_due_at(w, old[w.index()]);
                }
            }
            (g.sleepers > 0, g.any_due())
        };
        if wake {
            self.wait.notify_all();
        }
        if due {
            self.kick(0);
        }
    }

    /// Queues a triggered operation to fire when the value `w` names
    /// reaches `threshold`; at once (through the work item, in order) if it
    /// already has. Any context; no allocation. `EAGAIN` (the operation is
    /// handed back) when the storage is full: the work item grows it, the
    /// caller retries.
    pub(crate) fn trigger(&self, w: Waits, threshold: u64, mut p: KBox<Pending>) -> core::result::Result<(), KBox<Pending>> {
        p.set_threshold(threshold);
        let (ctx, op, deferred) = (p.ctx(), p.trace_op(), p.is_deferred());
        let token = KBox::into_raw(p) as usize as u64;
        let mut g = self.state.lock();
        if !g.has_room(w) {
            drop(g);
            self.kick(0);
            // SAFETY: not published: the token was never queued.
            return Err(unsafe { KBox::from_raw(token as usize as *mut Pending) });
        }
        let v = w.value(&g.c);
        let fire = match g.engines[w.index()].post(threshold, token, v) {
            Ok(PostOutcome::FireNow) => g.ready.push_back(token).is_ok(),
            Ok(PostOutcome::Queued(_)) => false,
            Ok(PostOutcome::QueuedReady(_)) => true,
            Err(Full) => {
                drop(g);
                self.kick(0);
                // SAFETY: as above.
                return Err(unsafe { KBox::from_raw(token as usize as *mut Pending) });
            }
        };
        let grow = g.wants_growth();
        drop(g);
        trace::trig_queue(self.trace_id(), ctx, threshold, v, op, deferred);
        if fire || grow {
            self.kick(0);
        }
        Ok(())
    }

    /// Removes the first pending (not yet due) operation for which `which`
    /// holds and hands it back; `None` if there is none.
    pub(crate) fn cancel(&self, w: Waits, which: impl Fn(&Pending) -> bool) -> Option<KBox<Pending>> {
        let mut g = self.state.lock();
        // What is due already is the work item's (queued by the change
        // that made it due), not cancellable.
        g.pop_due(w);
        let e = &mut g.engines[w.index()];
        // SAFETY (closure): tokens in the engine are live `Pending`s owned
        // by it; read under the lock.
        let h = e.find(|t| which(unsafe { &*(t as usize as *const Pending) }))?;
        let t = e.cancel(h)?;
        // SAFETY: removed from the engine: ours again.
        Some(unsafe { KBox::from_raw(t as usize as *mut Pending) })
    }

    /// Removes every pending operation of engine `w` (deferred work for
    /// `KFI_FLUSH_WORK`; both at close), handing each to `f` with no lock
    /// held. The other engine's operations are not touched: their order
    /// holds whatever the counter does meanwhile. Any context.
    pub(crate) fn flush(&self, w: Waits, mut f: impl FnMut(KBox<Pending>)) {
        // What is due already stays the work item's.
        self.state.lock().pop_due(w);
        loop {
            let Some(fired) = self.state.lock().engines[w.index()].pop_min() else {
                break;
            };
            // SAFETY: out of the engine: ours.
            f(unsafe { KBox::from_raw(fired.token as usize as *mut Pending) });
        }
    }

    /// Grows an engine that is 3/4 used, and the FIFO to hold both
    /// engines (process context).
    fn grow(&self) {
        let (caps, ring) = {
            let g = self.state.lock();
            if !g.wants_growth() {
                return;
            }
            let caps = [0, 1].map(|i| {
                let e = &g.engines[i];
                if e.held() * 4 >= e.capacity() * 3 {
                    (e.capacity() * 2).max(INITIAL_SLOTS)
                } else {
                    e.capacity()
                }
            });
            (caps, g.ready.capacity())
        };
        let (Ok(a), Ok(b), Ok(tokens)) = (
            KVVec::from_elem(Slot::EMPTY, caps[0], GFP_KERNEL | __GFP_NOWARN),
            KVVec::from_elem(Slot::EMPTY, caps[1], GFP_KERNEL | __GFP_NOWARN),
            KVVec::from_elem(0u64, (caps[0] + caps[1] + 1).max(ring), GFP_KERNEL | __GFP_NOWARN),
        ) else {
            pr_warn!("no memory to grow a counter's trigger storage\n");
            return;
        };
        let old = {
            let mut g = self.state.lock();
            let a = g.engines[0].replace_storage(base::Storage(a));
            let b = g.engines[1].replace_storage(base::Storage(b));
            (a, b, g.ready.replace_storage(base::Storage(tokens)))
        };
        // Old (or refused) storage is freed here, outside the lock.
        drop(old);
    }

    /// The work item: grow if needed, then issue due operations in order.
    fn issue(&self) {
        let _noio = base::NoIo::enter();
        self.grow();
        for _ in 0..ISSUE_BUDGET {
            let t = self.state.lock().next_due();
            let Some(t) = t else {
                return;
            };
            // SAFETY: popped from the FIFO: ours.
            let p = unsafe { KBox::from_raw(t as usize as *mut Pending) };
            let (ctx, threshold, deferred) = (p.ctx(), p.threshold(), p.is_deferred());
            let fired = trig::fire(p);
            if fired.is_ok() {
                let value = if deferred { self.success() + self.error() } else { self.success() };
                trace::trig_fire(self.trace_id(), ctx, threshold, value);
            }
            if let Err(p) = fired {
                // The endpoint's queue is full: first in line again,
                // retried shortly.
                let t = KBox::into_raw(p) as usize as u64;
                if self.state.lock().ready.push_front(t).is_err() {
                    base::warn_once!("trigger FIFO overflow");
                }
                self.kick(1);
                return;
            }
        }
        self.kick(0);
    }

    /// What trace events name this counter by (its address).
    fn trace_id(&self) -> *const c_void {
        (self as *const Self).cast()
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

    /// The success count (no lock: any context).
    fn success(&self) -> u64 {
        self.seen[0].load(Ordering::Acquire)
    }

    /// The error count (no lock: any context).
    fn error(&self) -> u64 {
        self.seen[1].load(Ordering::Acquire)
    }

    /// `kfi_cntr_wait`: see [`kfi_util_cntr_wait`].
    fn wait_for(&self, threshold: u64, timeout: c_int) -> c_int {
        let end = base::Deadline::new(timeout);
        let mut left = end.left();
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
                return base::neg(bindings::ETIMEDOUT);
            }
            g.sleepers += 1;
            let r = self.wait.wait_interruptible_timeout(&mut g, left);
            g.sleepers -= 1;
            match r {
                CondVarTimeoutResult::Timeout | CondVarTimeoutResult::Woken { .. } => left = end.left(),
                CondVarTimeoutResult::Signal { .. } => return base::neg(bindings::EINTR),
            }
        }
    }
}

/// `cntr_open` of a domain. `attr` may be NULL (defaults); `events` must
/// be `KFI_CNTR_EVENTS_COMP`, `flags` 0; `wait_obj` NONE or UNSPEC
/// (`kfi_cntr_wait` works with both), WAIT_SET/WAIT_QUEUE -ENOSYS.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_domain_cntr_open(
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
            return base::neg(bindings::ENOSYS);
        }
    }
    // SAFETY: one of the provider's domains (only its domain ops table
    // calls us), which embed the base first.
    let d = unsafe { DomainBase::from_header(domain) };
    let (Ok(slots), Ok(slots_d), Ok(tokens)) = (
        KVVec::from_elem(Slot::EMPTY, INITIAL_SLOTS, GFP_KERNEL | __GFP_NOWARN),
        KVVec::from_elem(Slot::EMPTY, INITIAL_SLOTS, GFP_KERNEL | __GFP_NOWARN),
        KVVec::from_elem(0u64, 2 * INITIAL_SLOTS + 1, GFP_KERNEL | __GFP_NOWARN),
    ) else {
        return base::neg(bindings::ENOMEM);
    };
    let state = State {
        c: Counter::new(),
        sleepers: 0,
        engines: [Engine::new(base::Storage(slots)), Engine::new(base::Storage(slots_d))],
        ready: TokenRing::new(base::Storage(tokens)),
    };
    let init = pin_init!(Cntr {
        // SAFETY: all-zero is a valid header; filled in below.
        cntr: unsafe { core::mem::zeroed() },
        domain: d,
        bound: AtomicUsize::new(0),
        users: AtomicUsize::new(0),
        state <- new_spinlock_bh!(state, "kfi_util_cntr"),
        seen: [AtomicU64::new(0), AtomicU64::new(0)],
        wait <- new_condvar!("kfi_util_cntr_wait"),
        work: None,
    });
    let b = match KBox::pin_init(init, GFP_KERNEL) {
        Ok(b) => b,
        Err(_) => return base::neg(bindings::ENOMEM),
    };
    // SAFETY: never moved: freed in place by `kfi_util_cntr_close`.
    let p = KBox::into_raw(unsafe { Pin::into_inner_unchecked(b) });
    // SAFETY: `p` lives until `kfi_util_cntr_close`, which drops the work
    // item (cancelling it and waiting) before freeing it.
    match unsafe { base::DWork::new(cntr_issue, p.cast()) } {
        // SAFETY: not published yet: we are the only user.
        Ok(w) => unsafe { (*p).work = Some(w) },
        Err(_) => {
            // SAFETY: ours, never published.
            drop(unsafe { KBox::from_raw(p) });
            return base::neg(bindings::ENOMEM);
        }
    }
    if d.cntrs.add(p).is_err() {
        // SAFETY: as above.
        drop(unsafe { KBox::from_raw(p) });
        return base::neg(bindings::ENOMEM);
    }
    d.children.opened();
    // SAFETY: `p` is our fresh object.
    unsafe {
        sys::kfi_util_cntr_init(&mut (*p).cntr, context);
        *cntr = &mut (*p).cntr;
    }
    0
}

/// The counter's work item.
///
/// # Safety
/// `ctx` is the counter (alive until its work item is dropped).
unsafe extern "C" fn cntr_issue(ctx: *mut c_void) {
    // SAFETY: by the contract above.
    unsafe { &*ctx.cast::<Cntr>() }.issue();
}

/// `close` of a counter: -EBUSY while an endpoint is bound to it or an
/// operation will still change it (deferred work targeting it, an
/// operation it is the completion counter of). Triggered operations still
/// pending on it are cancelled (reported with -KFI_ECANCELED).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_cntr_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: only installed on counters made here.
    let p = unsafe { kernel::container_of!(fid, Cntr, cntr.fid) as *mut Cntr };
    // SAFETY: live until freed below.
    let c = unsafe { &*p };
    let d = c.domain;
    if c.bound.load(Ordering::Acquire) != 0 || c.users.load(Ordering::Acquire) != 0 {
        return base::neg(bindings::EBUSY);
    }
    // SAFETY: the domain outlives its counted children.
    unsafe { (*d).cntrs.remove(p) };
    for w in Waits::ALL {
        c.flush(w, trig::cancelled);
    }
    // Stop the work item (waits for a running issue), then fail what was
    // due but not issued. Nothing queues it again: no endpoint is bound,
    // no operation targets the counter, the consumer is closing it.
    if let Some(w) = &c.work {
        w.cancel_sync();
    }
    loop {
        let t = c.state.lock().ready.pop_front();
        let Some(t) = t else { break };
        // SAFETY: popped from the FIFO: ours.
        trig::cancelled(unsafe { KBox::from_raw(t as usize as *mut Pending) });
    }
    // SAFETY: allocated by `kfi_util_domain_cntr_open`; nothing refers to
    // it; the consumer gave up its pointer.
    drop(unsafe { KBox::from_raw(p) });
    // SAFETY: the domain outlives its counted children.
    unsafe { (*d).children.closed() };
    0
}


/// `read`: the success count.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_cntr_read(c: *mut sys::kfid_cntr) -> u64 {
    // SAFETY: the counter ops table passes its counters.
    unsafe { Cntr::from_header(c) }.success()
}

/// `readerr`: the error count.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_cntr_readerr(c: *mut sys::kfid_cntr) -> u64 {
    // SAFETY: as above.
    unsafe { Cntr::from_header(c) }.error()
}

/// `add` to the success count (wraps modulo 2^64).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_cntr_add(c: *mut sys::kfid_cntr, v: u64) -> c_int {
    // SAFETY: as above.
    unsafe { Cntr::from_header(c) }.update(|c| {
        c.add(v);
    });
    0
}

/// Recovers a counter from a consumer's `kfid_cntr` pointer (triggered
/// contexts, deferred work), checking it is one of ours: `None` otherwise.
///
/// # Safety
/// `c` is NULL or a valid `kfid_cntr`.
pub(crate) unsafe fn from_consumer<'a>(c: *mut sys::kfid_cntr) -> Option<&'a Cntr> {
    if c.is_null() {
        return None;
    }
    // SAFETY: valid by the caller's contract.
    let fid = unsafe { ptr::addr_of_mut!((*c).fid) };
    // SAFETY: as above.
    if !unsafe { Cntr::is_cntr(fid) } {
        return None;
    }
    // SAFETY: checked to be ours.
    Some(unsafe { Cntr::from_fid(fid) })
}

/// `set` the success count.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_cntr_set(c: *mut sys::kfid_cntr, v: u64) -> c_int {
    // SAFETY: as above.
    unsafe { Cntr::from_header(c) }.update(|c| {
        c.set(v);
    });
    0
}

/// `adderr` to the error count.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_cntr_adderr(c: *mut sys::kfid_cntr, v: u64) -> c_int {
    // SAFETY: as above.
    unsafe { Cntr::from_header(c) }.update(|c| {
        c.add_err(v);
    });
    0
}

/// `seterr` the error count.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_cntr_seterr(c: *mut sys::kfid_cntr, v: u64) -> c_int {
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
pub(crate) unsafe extern "C" fn kfi_util_cntr_wait(c: *mut sys::kfid_cntr, threshold: u64, timeout: c_int) -> c_int {
    // SAFETY: as above.
    unsafe { Cntr::from_header(c) }.wait_for(threshold, timeout)
}

/// A domain's open counters (for cancelling triggered operations by
/// context, and flushing deferred work): a BH spinlock, as `kfi_cancel`
/// may come from softirq context. Part of every provider's domain
/// ([`DomainBase`]).
#[pin_data]
pub(crate) struct CntrList {
    /// Counter addresses, each with the number the statistics name it by.
    #[pin]
    list: SpinLockBh<KVec<(u32, usize)>>,
    /// The number of the next counter listed.
    next: AtomicU32,
}

impl CntrList {
    /// An empty list.
    pub(crate) fn new() -> impl PinInit<Self> {
        pin_init!(CntrList { list <- new_spinlock_bh!(KVec::new(), "kfi_util_dom_cntrs"), next: AtomicU32::new(0) })
    }

    /// Lists a new counter (process context).
    fn add(&self, c: *const Cntr) -> Result {
        // Room is made outside the lock; the push under it cannot fail.
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        loop {
            let need = {
                let mut g = self.list.lock();
                if g.len() < g.capacity() {
                    return g.push((id, c as usize), GFP_ATOMIC).map_err(|_| ENOMEM);
                }
                g.len() + 1
            };
            let mut v = KVec::with_capacity(need * 2, GFP_KERNEL)?;
            let old = {
                let mut g = self.list.lock();
                for &x in g.iter() {
                    v.push(x, GFP_ATOMIC).map_err(|_| ENOMEM)?;
                }
                core::mem::replace(&mut *g, v)
            };
            drop(old);
        }
    }

    /// Unlists a counter being closed.
    fn remove(&self, c: *const Cntr) {
        let mut g = self.list.lock();
        if let Some(i) = g.iter().position(|&(_, x)| x == c as usize) {
            let _ = base::kvec_remove(&mut g, i);
        }
    }

    /// `KFI_FLUSH_WORK`: withdraws every deferred work queued on the
    /// domain's counters (process context).
    pub(crate) fn flush_deferred(&self) -> Result {
        // A snapshot of the list (allocated outside the lock, before
        // anything is withdrawn); counters stay open during the call (API
        // contract).
        let n = self.list.lock().len();
        let mut snap = KVec::<usize>::with_capacity(n, GFP_KERNEL)?;
        {
            let g = self.list.lock();
            for &(_, c) in g.iter().take(n) {
                let _ = snap.push(c, GFP_ATOMIC);
            }
        }
        for &c in snap.iter() {
            // SAFETY: listed, hence open (see above).
            unsafe { &*(c as *const Cntr) }.flush(Waits::Completions, trig::cancelled);
        }
        Ok(())
    }

    /// Calls `f` on each open counter until it returns true; whether one
    /// did. Any context; `f` runs under the list's lock (it may take a
    /// counter's lock: order domain list, then counter).
    pub(crate) fn any(&self, mut f: impl FnMut(&Cntr) -> bool) -> bool {
        let g = self.list.lock();
        // SAFETY: listed counters are open: a counter unlists itself
        // (under this lock) before it is freed.
        g.iter().any(|&(_, c)| f(unsafe { &*(c as *const Cntr) }))
    }

    /// Calls `f` with each open counter and its number, in the order
    /// they were opened. As [`CntrList::any`]: any context, under the
    /// list's lock.
    pub(crate) fn each(&self, mut f: impl FnMut(u32, &Cntr)) {
        let g = self.list.lock();
        for &(id, c) in g.iter() {
            // SAFETY: as in `any`.
            f(id, unsafe { &*(c as *const Cntr) });
        }
    }
}
