// SPDX-License-Identifier: GPL-2.0
//! Triggered operations and deferred work: one engine for both.
//!
//! - A data transfer posted with `KFI_TRIGGER` (the `*msg` calls) carries a
//!   `kfi_triggered_context` as its context: `KFI_TRIGGER_THRESHOLD` with
//!   `{cntr, threshold}`. It is checked like any post (a mistake is a
//!   negative errno at once), copied into a [`Pending`] and handed to the
//!   counter's engine (`cntr.rs`). When it fires it is posted on its
//!   endpoint like any other operation, with the triggered context as its
//!   completion context.
//! - `kfi_control(domain, KFI_QUEUE_WORK, &work)` queues a
//!   `kfi_deferred_work` the same way: a transfer (SEND, RECV, TSEND,
//!   TRECV, READ, WRITE — its completion also counted on
//!   `completion_cntr`) or a counter operation (CNTR_SET, CNTR_ADD on
//!   another counter); atomics are -KFI_ENOSYS. The trigger value counts
//!   success and error. `KFI_CANCEL_WORK` withdraws a work not yet fired;
//!   `KFI_FLUSH_WORK` withdraws all of a domain's.
//! - `kfi_cancel(ep, context)` withdraws a triggered transfer not yet
//!   fired: it completes with -KFI_ECANCELED.
//!
//! # Memory and lifetimes
//! A `Pending` is allocated when the operation is posted (`GFP_ATOMIC`:
//! posts may come from atomic context; -ENOMEM if that fails), owned by
//! the counter's engine or FIFO until it fires or is withdrawn, then
//! freed. The consumer's triggered context or deferred-work structure
//! must stay valid until then (API contract); nothing else of the
//! consumer's is referenced. An endpoint with triggered operations not yet
//! issued refuses to close (-EBUSY); so does a counter that deferred work
//! will still change (as CNTR_ADD/SET target or completion counter).

use super::cntr::{self, Cntr, CntrList, Waits};
use super::target::FireTarget;
use crate::util::base::{self, einval};
use crate::util::fid::DomainBase;
use crate::util::sys;
use crate::util::Provider;
use core::ffi::{c_int, c_void};
use kernel::bindings;
use kernel::prelude::*;

/// Largest inject payload, copied into the pending operation at post
/// time.
const INJECT_MAX: usize = crate::util::logic::xfer::INJECT_LIMIT;

/// What a pending operation does when it fires.
enum Action {
    /// A data transfer on an endpoint (the provider's [`FireTarget`]). An inject's payload was copied into
    /// `inline` when it was posted (the consumer may reuse its buffer as
    /// soon as the call returns); `x` then describes that copy when it
    /// fires.
    /// Lists longer than `x` holds (more than 4 local segments or remote
    /// regions), and the memory descriptor array of a list call, were
    /// copied into `segs`/`rma`/`desc` at post time, and `x` points to the
    /// copies (the consumer's arrays are valid for the call only).
    Xfer {
        ep: *const dyn FireTarget,
        x: sys::kfi_util_xfer,
        inline: Option<[u8; INJECT_MAX]>,
        /// Owned for `x` (read through its pointers, freed on drop).
        _segs: base::Table<sys::kfi_util_seg>,
        _rma: base::Table<sys::kfi_rma_iov>,
        _desc: base::Table<*mut c_void>,
    },
    /// `KFI_OP_CNTR_ADD` / `KFI_OP_CNTR_SET` on `target`.
    Cntr { target: *const Cntr, set: bool, value: u64 },
}

/// A triggered operation or deferred work waiting for its threshold.
pub(crate) struct Pending {
    action: Action,
    /// The consumer's handle: the triggered context or the deferred work.
    ctx: usize,
    /// A deferred work's completion counter (counted as a user).
    done: Option<*const Cntr>,
    /// Deferred work (withdrawn without a completion entry).
    deferred: bool,
    /// The threshold it waits for (set when queued; for trace events).
    threshold: u64,
}

// SAFETY: the pointers name objects that stay open while the pending
// operation exists (endpoints and counters refuse to close, see the
// module documentation); the transfer description is plain data.
unsafe impl Send for Pending {}

impl Pending {
    /// The consumer's handle (cancel looks operations up by it).
    pub(crate) fn ctx(&self) -> usize {
        self.ctx
    }

    /// Deferred work rather than a triggered transfer.
    pub(crate) fn is_deferred(&self) -> bool {
        self.deferred
    }

    /// The threshold it was queued for.
    pub(crate) fn threshold(&self) -> u64 {
        self.threshold
    }

    /// Records the threshold it is queued for.
    pub(crate) fn set_threshold(&mut self, t: u64) {
        self.threshold = t;
    }

    /// What trace events call its operation: the transfer's
    /// `KFI_UTIL_X_*` kind, -1 for a counter operation.
    pub(crate) fn trace_op(&self) -> i32 {
        match &self.action {
            Action::Xfer { x, .. } => x.kind,
            Action::Cntr { .. } => -1,
        }
    }

    /// Whether it is a transfer of the endpoint `ep`.
    pub(crate) fn is_on(&self, ep: &dyn FireTarget) -> bool {
        matches!(self.action, Action::Xfer { ep: e, .. } if core::ptr::addr_eq(e, ep))
    }
}

/// Releases what a pending operation holds on its objects.
fn release(p: &Pending) {
    match p.action {
        // SAFETY: the endpoint is open while this operation counts in it.
        Action::Xfer { ep, .. } => unsafe { &*ep }.trig_dec(),
        // SAFETY: counted as a user, hence open.
        Action::Cntr { target, .. } => unsafe { &*target }.unuse(),
    }
}

/// Issues an operation that became due (the counter's work item, process
/// context, no lock held). Hands it back when the endpoint's queue is full
/// (the caller retries it first, later).
pub(crate) fn fire(p: KBox<Pending>) -> core::result::Result<(), KBox<Pending>> {
    match &p.action {
        Action::Xfer { ep, x, inline, .. } => {
            // SAFETY: open while this operation counts in it.
            let e = unsafe { &**ep };
            let mut x = *x;
            if let Some(bytes) = inline {
                // The copy made at post time: `post_fired` copies it
                // again into the operation's slot before returning.
                // `inject_copy` left one segment of its length.
                x.seg[0].base = bytes.as_ptr() as *mut c_void;
            }
            let x = &x;
            let r = e.post_fired(x, p.done, p.deferred);
            if r == -(bindings::EAGAIN as isize) {
                return Err(p);
            }
            if r < 0 {
                // Refused now (e.g. the connection ended): it fails like a
                // queued operation would, in the CQ slot it holds.
                e.report_lost(x, (-r) as u32, p.done, p.deferred);
            }
            e.trig_dec();
        }
        Action::Cntr { target, set, value } => {
            // SAFETY: counted as a user, hence open.
            let t = unsafe { &**target };
            let (set, value) = (*set, *value);
            t.update(|c| {
                if set {
                    c.set(value);
                } else {
                    c.add(value);
                }
            });
            t.unuse();
        }
    }
    Ok(())
}

/// An operation withdrawn before it fired (kfi_cancel, KFI_CANCEL_WORK,
/// KFI_FLUSH_WORK, its counter closing): a triggered transfer completes
/// with -KFI_ECANCELED (in the CQ slot it took when posted); deferred work
/// just goes, giving its slot back. No lock held.
pub(crate) fn cancelled(p: KBox<Pending>) {
    if let Action::Xfer { ep, x, .. } = &p.action {
        // SAFETY: open while this operation counts in it.
        let e = unsafe { &**ep };
        if p.deferred {
            e.unreserve_for(x);
        } else {
            e.report_lost(x, bindings::ECANCELED, None, false);
        }
    }
    if let Some(c) = p.done {
        // SAFETY: counted as a user, hence open.
        unsafe { &*c }.unuse();
    }
    release(&p);
}

/// Queues `p` on `cntr`; on failure releases what it held (its CQ slot
/// included).
fn queue(cntr: &Cntr, threshold: u64, p: KBox<Pending>) -> c_int {
    let w = if p.deferred { Waits::Completions } else { Waits::Success };
    match cntr.trigger(w, threshold, p) {
        Ok(()) => 0,
        Err(p) => {
            if let Action::Xfer { ep, x, .. } = &p.action {
                // SAFETY: open while this operation counts in it.
                unsafe { &**ep }.unreserve_for(x);
            }
            if let Some(c) = p.done {
                // SAFETY: counted as a user just before, hence open.
                unsafe { &*c }.unuse();
            }
            release(&p);
            base::neg(bindings::EAGAIN)
        }
    }
}

/// A transfer posted with `KFI_TRIGGER` on `ep` (any context).
pub(crate) fn post_triggered(ep: &(dyn FireTarget + 'static), x: &sys::kfi_util_xfer) -> isize {
    let tctx = x.context.cast::<sys::kfi_triggered_context>();
    if tctx.is_null() {
        return einval() as isize;
    }
    // SAFETY: with KFI_TRIGGER the context is the consumer's triggered
    // context, valid until the operation completes (API contract).
    let t = unsafe { &*tctx };
    if t.event_type != sys::KFI_TRIGGER_THRESHOLD {
        return einval() as isize;
    }
    // SAFETY: the threshold member is the one KFI_TRIGGER_THRESHOLD
    // selects; the counter pointer is the consumer's.
    let (cptr, threshold) = unsafe { (t.trigger.threshold.cntr, t.trigger.threshold.threshold) };
    // SAFETY: NULL or a counter (API contract); checked to be ours.
    let Some(c) = (unsafe { cntr::from_consumer(cptr) }) else {
        return einval() as isize;
    };
    let mut x = *x;
    x.flags &= !(sys::KFI_TRIGGER as u64);
    // The flags the operation has now (the endpoint's defaults included)
    // are the ones it fires with.
    let r = ep.check(&mut x);
    if r != 0 {
        return r;
    }
    let inline = match inject_copy(&mut x) {
        Ok(i) => i,
        Err(e) => return e as isize,
    };
    let (segs, rma, desc) = match own_lists(&mut x) {
        Ok(t) => t,
        Err(e) => return e as isize,
    };
    let Ok(b) = KBox::<Pending>::new_uninit(GFP_ATOMIC) else {
        return base::neg(bindings::ENOMEM) as isize;
    };
    if let Err(e) = ep.reserve_for(&x) {
        return e;
    }
    ep.trig_inc();
    let p = KBox::write(b, Pending { action: Action::Xfer { ep, x, inline, _segs: segs, _rma: rma, _desc: desc }, ctx: tctx as usize, done: None, deferred: false, threshold: 0 });
    queue(c, threshold as u64, p) as isize
}

/// An inject's payload, copied now (its length was checked): the
/// triggered operation sends these bytes whatever the consumer does with
/// its buffer after the call. `None` for other transfers.
fn inject_copy(x: &mut sys::kfi_util_xfer) -> core::result::Result<Option<[u8; INJECT_MAX]>, c_int> {
    if x.flags & sys::KFI_INJECT as u64 == 0 {
        return Ok(None);
    }
    let mut bytes = [0u8; INJECT_MAX];
    let table;
    let segs: &[sys::kfi_util_seg] = if x.ext_desc.is_null() {
        &x.seg[..(x.nseg as usize).min(x.seg.len())]
    } else {
        // SAFETY: the C wrappers set `ext_desc` to the consumer's list of
        // `nseg` entries, readable during this call.
        table = unsafe { base::segs_table(x.ext_type, x.ext_desc, x.nseg as usize) }?;
        table.as_slice()
    };
    let len: usize = segs.iter().map(|s| s.len as usize).sum();
    if len > INJECT_MAX || base::copy_from_segs(segs, &mut bytes[..len]) != len {
        return Err(einval());
    }
    x.ext_desc = core::ptr::null();
    x.nseg = 1;
    x.seg[0] = sys::kfi_util_seg { base: core::ptr::null_mut(), page: core::ptr::null_mut(), offset: 0, len: len as _ };
    // The copy is provider memory: the consumer's descriptors do not
    // describe it (and its array may hold fewer entries than `nseg` now).
    x.desc = core::ptr::null_mut();
    x.descv = core::ptr::null_mut();
    Ok(Some(bytes))
}

/// Copies the lists of a transfer that are longer than its description
/// holds (the consumer's arrays are valid for the call only) and points
/// the description to the copies, which the pending operation owns.
fn own_lists(x: &mut sys::kfi_util_xfer) -> core::result::Result<Lists, c_int> {
    let mut segs = base::Table::NONE;
    let mut rma = base::Table::NONE;
    let mut desc = base::Table::NONE;
    if !x.ext_desc.is_null() {
        // SAFETY: the C wrappers set `ext_desc` to the consumer's list of
        // `nseg` entries, readable during this call.
        segs = unsafe { base::segs_table(x.ext_type, x.ext_desc, x.nseg as usize) }?;
        x.ext_type = sys::KFI_UTIL_SEGS as c_int;
        x.ext_desc = segs.as_slice().as_ptr().cast();
    }
    if !x.rma_ext.is_null() {
        // SAFETY: as above, `rma_count` regions.
        rma = unsafe { base::rma_table(x.rma_ext, x.rma_count as usize) }?;
        x.rma_ext = rma.as_slice().as_ptr();
    }
    if !x.descv.is_null() && x.nseg != 0 {
        // SAFETY: as above, `nseg` descriptors.
        desc = unsafe { base::desc_table(x.descv, x.nseg as usize) }?;
        x.descv = desc.as_slice().as_ptr().cast_mut();
    } else {
        // Valid for the call only: never kept.
        x.descv = core::ptr::null_mut();
    }
    Ok((segs, rma, desc))
}

/// The copies [`own_lists`] makes: segments, remote regions, descriptors.
type Lists = (base::Table<sys::kfi_util_seg>, base::Table<sys::kfi_rma_iov>, base::Table<*mut c_void>);

/// Withdraws the triggered transfer of `ep` whose context is `ctx`, if
/// one is pending on any counter of `dom` (any context). Another
/// endpoint's operation with the same context is not touched, nor is
/// deferred work (`KFI_CANCEL_WORK` withdraws that).
pub(crate) fn cancel_triggered(cntrs: &CntrList, ep: &dyn FireTarget, ctx: *mut c_void) -> bool {
    let mut found = None;
    cntrs.any(|c| {
        found = c.cancel(Waits::Success, |p| p.ctx() == ctx as usize && p.is_on(ep));
        found.is_some()
    });
    match found {
        Some(p) => {
            cancelled(p);
            true
        }
        None => false,
    }
}

/// Builds the pending operation of a deferred work.
///
/// # Safety
/// `w` is the consumer's valid deferred work (API contract).
unsafe fn deferred(w: &sys::kfi_deferred_work, ctx: usize) -> core::result::Result<Pending, c_int> {
    // SAFETY: by the caller's contract the op member matching `op_type`
    // points to a valid descriptor.
    unsafe {
        let mut x: sys::kfi_util_xfer = core::mem::zeroed();
        let (kind, ep, built) = match w.op_type {
            sys::KFI_OP_SEND | sys::KFI_OP_RECV => {
                let m = w.op.msg.as_ref().ok_or(einval())?;
                let k = if w.op_type == sys::KFI_OP_SEND { sys::KFI_UTIL_X_SEND } else { sys::KFI_UTIL_X_RECV };
                (k, m.ep, sys::kfi_util_xfer_build_msg(&mut x, &m.msg, m.flags))
            }
            sys::KFI_OP_TSEND | sys::KFI_OP_TRECV => {
                let m = w.op.tagged.as_ref().ok_or(einval())?;
                let k = if w.op_type == sys::KFI_OP_TSEND { sys::KFI_UTIL_X_TSEND } else { sys::KFI_UTIL_X_TRECV };
                (k, m.ep, sys::kfi_util_xfer_build_tagged(&mut x, &m.msg, m.flags))
            }
            sys::KFI_OP_READ | sys::KFI_OP_WRITE => {
                let m = w.op.rma.as_ref().ok_or(einval())?;
                let k = if w.op_type == sys::KFI_OP_READ { sys::KFI_UTIL_X_READ } else { sys::KFI_UTIL_X_WRITE };
                (k, m.ep, sys::kfi_util_xfer_build_rma(&mut x, &m.msg, m.flags))
            }
            sys::KFI_OP_CNTR_SET | sys::KFI_OP_CNTR_ADD => {
                let m = w.op.cntr.as_ref().ok_or(einval())?;
                let t = cntr::from_consumer(m.cntr).ok_or(einval())?;
                t.use_();
                let action = Action::Cntr { target: t, set: w.op_type == sys::KFI_OP_CNTR_SET, value: m.value };
                return Ok(Pending { action, ctx, done: None, deferred: true, threshold: 0 });
            }
            // Atomics: what the endpoint's provider does (the queues refuse
            // the rest when the work is queued, `check_deferred`).
            sys::KFI_OP_ATOMIC => {
                let m = w.op.atomic.as_ref().ok_or(einval())?;
                let n = core::ptr::null_mut();
                (sys::KFI_UTIL_X_ATOMIC, m.ep, sys::kfi_util_xfer_build_atomic(&mut x, &m.msg, n, 0, n, 0, m.flags))
            }
            sys::KFI_OP_FETCH_ATOMIC => {
                let m = w.op.fetch_atomic.as_ref().ok_or(einval())?;
                let f = &m.fetch;
                let built = sys::kfi_util_xfer_build_atomic(&mut x, &m.msg, core::ptr::null(), 0, f.msg_iov, f.iov_count, m.flags);
                (sys::KFI_UTIL_X_FATOMIC, m.ep, built)
            }
            sys::KFI_OP_COMPARE_ATOMIC => {
                let m = w.op.compare_atomic.as_ref().ok_or(einval())?;
                let (f, c) = (&m.fetch, &m.compare);
                let built = sys::kfi_util_xfer_build_atomic(&mut x, &m.msg, c.msg_iov, c.iov_count, f.msg_iov, f.iov_count, m.flags);
                (sys::KFI_UTIL_X_CATOMIC, m.ep, built)
            }
            _ => return Err(einval()),
        };
        if built != 0 {
            return Err(built);
        }
        x.kind = kind as c_int;
        if x.flags & sys::KFI_TRIGGER as u64 != 0 {
            return Err(-(sys::KFI_EBADFLAGS as c_int));
        }
        let e = crate::Prov::fire_target(ep).ok_or(einval())?;
        let done = match w.completion_cntr.is_null() {
            true => None,
            false => Some(cntr::from_consumer(w.completion_cntr).ok_or(einval())? as *const Cntr),
        };
        let r = e.check_deferred(&mut x);
        if r != 0 {
            return Err(r as c_int);
        }
        let inline = inject_copy(&mut x)?;
        let (segs, rma, desc) = own_lists(&mut x)?;
        e.reserve_for(&x).map_err(|e| e as c_int)?;
        if let Some(c) = done {
            (*c).use_();
        }
        e.trig_inc();
        Ok(Pending { action: Action::Xfer { ep: e, x, inline, _segs: segs, _rma: rma, _desc: desc }, ctx, done, deferred: true, threshold: 0 })
    }
}

/// `control` of a domain: `KFI_QUEUE_WORK`, `KFI_CANCEL_WORK` (never
/// sleep), `KFI_FLUSH_WORK` (process context). Others: -ENOSYS.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_domain_control(fid: *mut sys::kfid, command: c_int, arg: *mut c_void) -> c_int {
    // SAFETY: only installed on the provider's domains, which embed the
    // base first.
    let d = unsafe { DomainBase::from_fid(fid) };
    match command as u32 {
        sys::KFI_QUEUE_WORK | sys::KFI_CANCEL_WORK => {
            let wp = arg.cast::<sys::kfi_deferred_work>();
            // SAFETY: NULL or the consumer's deferred work (API contract).
            let Some(w) = (unsafe { wp.as_ref() }) else {
                return einval();
            };
            // SAFETY: as above.
            let Some(trigger) = (unsafe { cntr::from_consumer(w.triggering_cntr) }) else {
                return einval();
            };
            if command as u32 == sys::KFI_CANCEL_WORK {
                return match trigger.cancel(Waits::Completions, |p| p.ctx() == wp as usize) {
                    Some(p) => {
                        cancelled(p);
                        0
                    }
                    None => base::neg(bindings::ENOENT),
                };
            }
            // Memory first: building the operation takes references.
            let Ok(b) = KBox::<Pending>::new_uninit(GFP_ATOMIC) else {
                return base::neg(bindings::ENOMEM);
            };
            // SAFETY: as above.
            match unsafe { deferred(w, wp as usize) } {
                Ok(p) => queue(trigger, w.threshold, KBox::write(b, p)),
                Err(e) => e,
            }
        }
        sys::KFI_FLUSH_WORK => match d.cntrs.flush_deferred() {
            Ok(()) => 0,
            Err(e) => e.to_errno(),
        },
        _ => base::neg(bindings::ENOSYS),
    }
}
