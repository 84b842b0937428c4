// SPDX-License-Identifier: GPL-2.0
//! The records of a transfer every provider keeps the same way: a buffer
//! as segments ([`Buf`], in place or in a table the operation's slot
//! owns), a posted transmit ([`TxOp`], with the provider's own part) and
//! receive ([`RxOp`]), the counters bound to an endpoint
//! ([`Cntrs`]), and what a finished operation reports ([`Report`]: a CQ
//! entry or error entry, or its CQ reservation returned, then its
//! counters), built under the endpoint's queue lock and delivered after it
//! is dropped.

use super::base;
use super::cq::Cq;
use super::logic::cq::{Completion, ErrCompletion};
use super::logic::xfer::{self as rules, Kind, MultiRecv};
use super::sys;
use super::Provider;
use crate::trigger::cntr::Cntr;

/// A buffer segment (kernel virtual range or page range).
pub(crate) type Seg = sys::kfi_util_seg;

/// A segment describing nothing.
pub(crate) const EMPTY_SEG: Seg = Seg { base: core::ptr::null_mut(), page: core::ptr::null_mut(), offset: 0, len: 0 };

/// A buffer: up to [`rules::IOV_LIMIT`] segments in place, or up to
/// [`rules::IOV_MAX`] in a table of their own (`ext`).
///
/// A posted operation's slot owns its `ext` table (from
/// `base::Table::into_parts`) and frees it when the slot is freed
/// ([`Buf::release`], under the queue lock); copies of the `Buf` (the work
/// item's `RxWork`, a read's buffer) only use it while the slot is held.
#[derive(Clone, Copy)]
pub(crate) struct Buf {
    pub(crate) segs: [Seg; rules::IOV_LIMIT],
    /// NULL, or the table of `nseg` segments.
    pub(crate) ext: *mut Seg,
    pub(crate) nseg: usize,
    pub(crate) len: u64,
}

// SAFETY: the segments describe the consumer's memory, which it keeps
// valid until the operation completes (API contract); they are plain
// descriptions moved between the poster and the work item.
unsafe impl Send for Buf {}

impl Buf {
    /// No segments.
    pub(crate) const EMPTY: Buf = Buf { segs: [EMPTY_SEG; rules::IOV_LIMIT], ext: core::ptr::null_mut(), nseg: 0, len: 0 };

    /// The segments in use.
    #[inline]
    pub(crate) fn segs(&self) -> &[Seg] {
        if self.ext.is_null() {
            return &self.segs[..self.nseg];
        }
        // SAFETY: a table of `nseg` segments owned by the operation's slot,
        // which is held (not freed) while this `Buf` is used (see above).
        unsafe { core::slice::from_raw_parts(self.ext, self.nseg) }
    }

    /// Describes a slot's buffer of `len` bytes: the segments of `table`
    /// if it holds any (the buffer takes it over, see [`Buf::release`]),
    /// else `segs` (copied; at most [`rules::IOV_LIMIT`]). Entries past
    /// the count are left as they are: nothing reads them.
    #[inline(always)]
    pub(crate) fn describe(&mut self, segs: &[Seg], table: base::Table<Seg>, len: u64) {
        self.len = len;
        if table.is_some() {
            let (ext, n) = table.into_parts();
            self.ext = ext;
            self.nseg = n;
        } else {
            // (A loop: `copy_from_slice`'s length check ends in a panic
            // path objtool reports as falling through.)
            for (d, s) in self.segs.iter_mut().zip(segs) {
                *d = *s;
            }
            self.ext = core::ptr::null_mut();
            self.nseg = segs.len().min(rules::IOV_LIMIT);
        }
    }

    /// Frees the `ext` table of a slot's buffer (the slot is being freed).
    pub(crate) fn release(&mut self) {
        if !self.ext.is_null() {
            // SAFETY: the slot's own table, given up by `into_parts` when
            // the operation was posted, taken back once (cleared here).
            drop(unsafe { base::Table::from_parts(self.ext, self.nseg) });
            self.ext = core::ptr::null_mut();
        }
    }

    /// Address of the first byte, for the `buf` field of entries (kernel
    /// virtual buffers only; 0 for page lists).
    #[inline]
    pub(crate) fn addr(&self, offset: u64) -> usize {
        match self.segs().first() {
            Some(s) if !s.base.is_null() => (s.base as usize).wrapping_add(offset as usize),
            _ => 0,
        }
    }
}

/// A remote region of an RMA: address (or offset, for offset-addressed
/// regions), length, key.
#[derive(Clone, Copy, Default)]
pub(crate) struct RmaIov {
    pub(crate) addr: u64,
    pub(crate) len: u64,
    pub(crate) key: u64,
}

/// A transmit operation.
#[derive(Clone, Copy)]
pub(crate) struct TxOp {
    pub(crate) kind: Kind,
    pub(crate) flags: u64,
    pub(crate) context: usize,
    /// The payload: the consumer's buffer, or `inline` for injects.
    pub(crate) buf: Buf,
    pub(crate) inline: [u8; rules::INJECT_LIMIT],
    pub(crate) inject: bool,
    pub(crate) data: u64,
    pub(crate) tag: u64,
    /// The destination's address handle (connectionless endpoints; a
    /// connected endpoint's is stale).
    pub(crate) dest: u64,
    /// Write an entry on success.
    pub(crate) entry: bool,
    /// Remote regions of an RMA: up to [`rules::IOV_LIMIT`] here, more in
    /// `rma_ext` (owned by the slot like `Buf::ext`).
    pub(crate) rma: [RmaIov; rules::IOV_LIMIT],
    pub(crate) rma_ext: *mut sys::kfi_rma_iov,
    pub(crate) n_rma: usize,
    /// Bytes the operation moves (its entry's `len`).
    pub(crate) len: u64,
    /// Completion counter of released deferred work (counted as a user).
    pub(crate) extra: Option<*const Cntr>,
    /// Counted on the endpoint's bound counter (not for deferred work:
    /// fi_trigger(3), only its `completion_cntr` counts it).
    pub(crate) ep_cntr: bool,
    /// The provider's own part.
    pub(crate) ext: <crate::Prov as Provider>::TxExt,
    /// An atomic's datatype, operation and buffers (only read for the
    /// atomic kinds; stale otherwise).
    pub(crate) atomic: AtomicArgs,
}

/// What an atomic operation carries besides its operand (the buffer) and
/// its remote region. (Read by the providers that do atomics only.)
#[derive(Clone, Copy)]
#[allow(dead_code)]
pub(crate) struct AtomicArgs {
    /// `enum kfi_datatype`.
    pub(crate) datatype: u32,
    /// `enum kfi_op`.
    pub(crate) op: u32,
    /// Where a fetching or compare atomic puts the old value (the
    /// consumer's, valid until the operation completes), else NULL.
    pub(crate) result: *mut core::ffi::c_void,
    /// A compare atomic's compare operand (likewise), else NULL.
    pub(crate) compare: *const core::ffi::c_void,
}

// SAFETY: the buffer is `Send` (see `Buf`); the `rma_ext` table is owned
// by the slot like `Buf::ext`; `extra` names a counter kept open by its use
// count until the operation is reported.
unsafe impl Send for TxOp {}

/// A free transmit slot.
pub(crate) const TX_INIT: TxOp = TxOp {
    kind: Kind::Send,
    flags: 0,
    context: 0,
    buf: Buf::EMPTY,
    inline: [0; rules::INJECT_LIMIT],
    inject: false,
    data: 0,
    tag: 0,
    dest: rules::ADDR_ANY,
    entry: false,
    rma: [RmaIov { addr: 0, len: 0, key: 0 }; rules::IOV_LIMIT],
    rma_ext: core::ptr::null_mut(),
    n_rma: 0,
    len: 0,
    extra: None,
    ep_cntr: true,
    ext: <crate::Prov as Provider>::TX_EXT_INIT,
    atomic: AtomicArgs { datatype: 0, op: 0, result: core::ptr::null_mut(), compare: core::ptr::null() },
};

impl TxOp {
    /// Remote region `i` (`i < n_rma`).
    #[inline]
    pub(crate) fn region(&self, i: usize) -> RmaIov {
        if self.rma_ext.is_null() {
            return self.rma[i];
        }
        // SAFETY: a table of `n_rma` regions owned by the slot (see
        // `rma_ext`), held while the operation is; `i < n_rma`.
        let r = unsafe { &*self.rma_ext.add(i) };
        RmaIov { addr: r.addr, len: r.len as u64, key: r.key }
    }

    /// Frees the slot's tables (the slot is being freed, under the queue
    /// lock).
    pub(crate) fn release(&mut self) {
        self.buf.release();
        if !self.rma_ext.is_null() {
            // SAFETY: the slot's own table (see `rma_ext`), taken back once.
            drop(unsafe { base::Table::from_parts(self.rma_ext, self.n_rma) });
            self.rma_ext = core::ptr::null_mut();
        }
    }

    /// The bytes a transmit sends: an inject's copy in the slot (described
    /// in `one`), else the consumer's buffer. (kfi_verbs; kfi_tcp frames an
    /// inject's bytes from `inline` directly.)
    #[allow(dead_code)]
    pub(crate) fn payload<'a>(&'a self, one: &'a mut Seg) -> &'a [Seg] {
        if self.inject {
            *one = Seg { base: self.inline.as_ptr().cast_mut().cast(), page: core::ptr::null_mut(), offset: 0, len: self.buf.len as usize };
            core::slice::from_ref(one)
        } else {
            self.buf.segs()
        }
    }
}

/// A receive operation.
#[derive(Clone, Copy)]
pub(crate) struct RxOp {
    pub(crate) kind: Kind,
    pub(crate) flags: u64,
    pub(crate) context: usize,
    pub(crate) buf: Buf,
    pub(crate) tag: u64,
    pub(crate) ignore: u64,
    /// Source filter (`KFI_DIRECTED_RECV`): the only sender whose messages
    /// it takes, or [`rules::ADDR_ANY`].
    pub(crate) src: u64,
    pub(crate) entry: bool,
    /// A multi-receive buffer's consumption.
    pub(crate) multi: Option<MultiRecv>,
    /// A message that does not release this multi-receive buffer is being
    /// received into it (an `RxWork` for it is out): the slot must stay.
    pub(crate) filling: bool,
    /// Cancelled while `filling`: released, with its cancellation entry,
    /// when that message is done.
    pub(crate) cancelled: bool,
    /// Completion counter of released deferred work (counted as a user).
    pub(crate) extra: Option<*const Cntr>,
    /// Counted on the endpoint's bound counter (not for deferred work:
    /// fi_trigger(3), only its `completion_cntr` counts it).
    pub(crate) ep_cntr: bool,
}

// SAFETY: the buffer is `Send` (see `Buf`); `extra` names a counter kept
// open by its use count until the operation is reported.
unsafe impl Send for RxOp {}


/// A free receive slot.
pub(crate) const RX_INIT: RxOp = RxOp {
    kind: Kind::Recv,
    flags: 0,
    context: 0,
    buf: Buf::EMPTY,
    tag: 0,
    ignore: 0,
    src: rules::ADDR_ANY,
    entry: false,
    multi: None,
    filling: false,
    cancelled: false,
    extra: None,
    ep_cntr: true,
};

/// A receive taken for an incoming message, held by whoever moves its
/// bytes until it reports the receive done or failed (the slot stays
/// allocated meanwhile: see [`Buf`]).
pub(crate) struct RxWork {
    /// The receive's slot.
    pub(crate) idx: usize,
    pub(crate) op: RxOp,
    /// Offset into the buffer (multi-receive).
    pub(crate) offset: u64,
    /// Room from `offset`.
    pub(crate) room: u64,
    /// The buffer is released after this message (multi-receive).
    pub(crate) last: bool,
    /// The sender's address handle, reported in the entry
    /// ([`rules::ADDR_ANY`]: none).
    pub(crate) from: u64,
}

impl RxWork {
    /// No receive: a placeholder for a place that holds one at times.
    pub(crate) const IDLE: RxWork = RxWork { idx: usize::MAX, op: RX_INIT, offset: 0, room: 0, last: false, from: rules::ADDR_ANY };
}

/// Counters bound to an endpoint, per event.
#[derive(Clone, Copy, Default)]
pub(crate) struct Cntrs {
    pub(crate) send: Option<*const Cntr>,
    pub(crate) recv: Option<*const Cntr>,
    pub(crate) read: Option<*const Cntr>,
    pub(crate) write: Option<*const Cntr>,
    pub(crate) remote_read: Option<*const Cntr>,
    pub(crate) remote_write: Option<*const Cntr>,
}

impl Cntrs {
    /// The counter of an operation's completions, if it counts there
    /// (`ep_cntr`: see [`TxOp::ep_cntr`]).
    #[inline]
    pub(crate) fn for_op(&self, kind: Kind, ep_cntr: bool) -> Option<*const Cntr> {
        if ep_cntr {
            self.of(kind)
        } else {
            None
        }
    }

    /// The counter of an operation's completions.
    #[inline]
    pub(crate) fn of(&self, kind: Kind) -> Option<*const Cntr> {
        match kind {
            Kind::Send | Kind::TSend => self.send,
            Kind::Recv | Kind::TRecv => self.recv,
            Kind::Read | Kind::FetchAtomic | Kind::CompareAtomic => self.read,
            Kind::Write | Kind::Atomic => self.write,
        }
    }
}

/// What happened to an operation.
pub(crate) enum What {
    Done(Completion),
    Failed(ErrCompletion),
    /// Succeeded without an entry: return its CQ reservation.
    Quiet,
}

/// Something to report once `q` is dropped: on a CQ, on a counter.
pub(crate) struct Report {
    pub(crate) cq: Option<*const Cq>,
    pub(crate) what: What,
    pub(crate) cntr: Option<*const Cntr>,
    /// A deferred work's completion counter: counted, then released.
    pub(crate) extra: Option<*const Cntr>,
}

impl Report {
    #[inline]
    pub(crate) fn done(cq: Option<*const Cq>, c: Completion, cntr: Option<*const Cntr>) -> Report {
        Report { cq, what: What::Done(c), cntr, extra: None }
    }

    pub(crate) fn failed(cq: Option<*const Cq>, e: ErrCompletion, cntr: Option<*const Cntr>) -> Report {
        Report { cq, what: What::Failed(e), cntr, extra: None }
    }

    #[inline]
    pub(crate) fn quiet(cq: Option<*const Cq>, cntr: Option<*const Cntr>) -> Report {
        Report { cq, what: What::Quiet, cntr, extra: None }
    }

    /// Adds the completion counter of a released deferred work.
    #[inline]
    pub(crate) fn with_extra(mut self, extra: Option<*const Cntr>) -> Report {
        self.extra = extra;
        self
    }

    /// Delivers the report (no lock held): the CQ entry first, then the
    /// counter, so that a consumer woken by the counter finds the entry.
    pub(crate) fn deliver(self) {
        if let Some(cq) = self.cq {
            // SAFETY: CQ pointers come from the endpoint's bindings, valid
            // while it is bound (a CQ refuses to close while bound).
            let cq = unsafe { &*cq };
            match &self.what {
                What::Done(c) => cq.complete(c),
                What::Failed(e) => cq.complete_err(e),
                What::Quiet => cq.unreserve(1),
            }
        }
        let err = matches!(self.what, What::Failed(_));
        if let Some(c) = self.cntr {
            // SAFETY: as for CQs.
            unsafe { &*c }.hit(err);
        }
        if let Some(c) = self.extra {
            // SAFETY: counted as a user by the deferred work, so still
            // open; released here, once.
            let c = unsafe { &*c };
            c.hit(err);
            c.unuse();
        }
    }
}

/// The kind of a transfer description (`None`: not a known one).
pub(crate) fn kind_of(x: &sys::kfi_util_xfer) -> Option<Kind> {
    Some(match x.kind as u32 {
        sys::KFI_UTIL_X_SEND => Kind::Send,
        sys::KFI_UTIL_X_RECV => Kind::Recv,
        sys::KFI_UTIL_X_TSEND => Kind::TSend,
        sys::KFI_UTIL_X_TRECV => Kind::TRecv,
        sys::KFI_UTIL_X_READ => Kind::Read,
        sys::KFI_UTIL_X_WRITE => Kind::Write,
        sys::KFI_UTIL_X_ATOMIC => Kind::Atomic,
        sys::KFI_UTIL_X_FATOMIC => Kind::FetchAtomic,
        sys::KFI_UTIL_X_CATOMIC => Kind::CompareAtomic,
        _ => return None,
    })
}


/// The error entry of an operation. `released`: the entry hands a
/// multi-receive buffer back (its last one: `KFI_MULTI_RECV` is set on
/// exactly one entry per buffer).
pub(crate) fn errc(kind: Kind, flags: u64, context: usize, err: u32, released: bool) -> ErrCompletion {
    let multi = if released { flags & rules::F_MULTI_RECV } else { 0 };
    ErrCompletion {
        op_context: context,
        flags: kind.entry_flags(flags) | multi,
        err: err as i32,
        prov_errno: err as i32,
        ..ErrCompletion::default()
    }
}
