// SPDX-License-Identifier: GPL-2.0
//! An endpoint's data transfers over its RC queue pair: the toolkit's
//! queues (`util::queues::EpQueues`) with this provider's part,
//! [`VerbsExt`]. Every posted operation is one work request
//! (kfi_verbs_qp.c): a send or RDMA write (with immediate data for
//! `KFI_REMOTE_CQ_DATA`) or an RDMA read on the send queue, a receive
//! buffer on the receive queue; its completion (softirq) reports it
//! through the toolkit. A peer's write with immediate data consumes a
//! receive and reports it as that write (`KFI_RMA | KFI_REMOTE_WRITE |
//! KFI_REMOTE_CQ_DATA`, the receive's context).
//!
//! # Where a slot is
//! - Receives: on the toolkit's `rx_msg` until the queue pair exists
//!   (posted before the connection), then handed to the receive queue in
//!   posting order and kept on [`VerbsExt::rq`], whose head is the next
//!   to complete (an RC receive queue completes in order).
//! - Transmits: on the toolkit's `tx_pending` until the connection is up
//!   (the backlog, kept in order), then handed to the send queue and off
//!   every list until they complete.
//!
//! A slot handed to the device completes exactly once, by its work
//! completion: successfully, with an error, or flushed (`KFI_ECANCELED`)
//! when the connection ends (the queue pair is drained before
//! `KFI_SHUTDOWN` is reported and before it is destroyed). Slots still on
//! the toolkit's lists fail through `fail_all`. A receive handed to the
//! device cannot be taken back: `kfi_cancel` does not find it (-ENOENT).
//!
//! # Locks
//! Everything here runs under the queues' lock `q` (BH spinlock) but the
//! completion entry points, which take it through the toolkit. Posting a
//! work request takes the connection's post lock (BH spinlock) inside `q`,
//! and the device driver's own locks inside that: q → post_lock → driver.

use crate::ffi::{sys, Conn, Wrs};
use crate::logic::atomic::{self, AtomicError, Bufs, Call, IbAtomic};
use crate::logic::status::error_of;
use crate::util::logic::xfer::{self as rules, Kind, List};
use crate::util::queues::{EpQueues, QueueExt, Queues};
use crate::util::xfer::{RxWork, Seg};
use crate::NoProgress;
use core::ffi::{c_uint, c_void};
use kernel::bindings;

/// The endpoint's queues.
pub(crate) type EpData = EpQueues<VerbsExt>;

// The error numbers of the status table (`logic/status.rs`, also a host
// crate) are the kernel's; its status numbers are checked in
// kfi_verbs_qp.c.
const _: () = {
    use crate::logic::status::errno as e;
    assert!(e::EIO == bindings::EIO && e::EACCES == bindings::EACCES && e::EFAULT == bindings::EFAULT);
    assert!(e::EMSGSIZE == bindings::EMSGSIZE && e::ETIMEDOUT == bindings::ETIMEDOUT);
    assert!(e::EREMOTEIO == bindings::EREMOTEIO && e::ECANCELED == bindings::ECANCELED);
    assert!(e::KFI_ETRUNC == sys::KFI_ETRUNC);
};

/// The atomic call of an atomic kind.
pub(crate) fn atomic_call(kind: Kind) -> Option<Call> {
    match kind {
        Kind::Atomic => Some(Call::Atomic),
        Kind::FetchAtomic => Some(Call::Fetch),
        Kind::CompareAtomic => Some(Call::Compare),
        _ => None,
    }
}

/// The 64-bit word at the start of `segs` (native byte order, as the
/// device adds and compares it); 0 when they hold fewer than 8 bytes (a
/// `KFI_ATOMIC_READ` has no operand).
fn word_of(segs: &[Seg]) -> u64 {
    let mut b = [0u8; 8];
    if crate::util::base::copy_from_segs(segs, &mut b) != b.len() {
        return 0;
    }
    u64::from_ne_bytes(b)
}

// The kfabric numbers `logic/atomic.rs` maps are the headers'.
const _: () = {
    use crate::logic::atomic::kfi;
    assert!(kfi::INT64 == sys::KFI_INT64 as u32 && kfi::UINT64 == sys::KFI_UINT64 as u32);
    assert!(kfi::SUM == sys::KFI_SUM as u32 && kfi::ATOMIC_READ == sys::KFI_ATOMIC_READ as u32);
    assert!(kfi::CSWAP == sys::KFI_CSWAP as u32);
};

/// How many times a waiting request the device cannot take for a moment
/// is offered again, a millisecond apart.
const HAND_OVER_TRIES: u32 = 100;

/// What `kfi_enable` hands the queues ([`EpQueues::enable`]).
pub(crate) struct Prepared {
    /// The work request contexts (taken by the queues).
    pub(crate) wrs: Option<Wrs>,
    /// The endpoint's connection.
    pub(crate) conn: *const Conn,
    /// Its queue pair exists already (an endpoint opened from a request).
    pub(crate) qp: bool,
    /// The device has no immediate data (iWARP).
    pub(crate) iwarp: bool,
}

/// This provider's part of the queues (under `q`).
pub(crate) struct VerbsExt {
    /// The endpoint's connection: set at enable, valid from then until
    /// the endpoint's close (which closes the connection, so that nothing
    /// posts or completes, before the queues; the endpoint drops its
    /// queues before the connection).
    conn: *const Conn,
    /// The work request contexts, from enable to close.
    wrs: Option<Wrs>,
    /// Receives can be handed to the device (the queue pair exists).
    qp: bool,
    /// Transmits can be handed to the device (connected).
    up: bool,
    /// Receives handed to the device, in order (`rx_links`).
    rq: List,
    /// No immediate data: `KFI_REMOTE_CQ_DATA` is refused.
    iwarp: bool,
}

// SAFETY: `conn` names a connection, whose functions may be called from
// any thread (`Conn` is `Sync`), kept alive by the endpoint as above.
unsafe impl Send for VerbsExt {}

fn neg(e: u32) -> isize {
    -(e as isize)
}

impl VerbsExt {
    fn conn(&self) -> &Conn {
        // SAFETY: set at enable before any slot can be posted, and valid
        // until the endpoint's close, after which nothing posts (field
        // invariant).
        unsafe { &*self.conn }
    }
}

impl Queues<VerbsExt> {
    /// Hands transmit slot `i` (off every list) to the send queue.
    fn post_tx(&mut self, i: usize) -> core::result::Result<(), isize> {
        let op = &self.tx[i];
        let one: Seg;
        let segs: &[Seg] = if op.inject {
            // The bytes were copied into the slot at the call.
            one = Seg { base: op.inline.as_ptr().cast_mut().cast(), page: core::ptr::null_mut(), offset: 0, len: op.buf.len as usize };
            core::slice::from_ref(&one)
        } else {
            op.buf.segs()
        };
        let imm = op.flags & rules::F_REMOTE_CQ_DATA != 0;
        // One remote region (`posted` checked): the key's low half is the
        // device's rkey, its high half what places the region's offsets
        // in the device's addresses (kfi_verbs_mr.c).
        let (mut code, raddr, rkey) = match op.kind {
            Kind::Write | Kind::Read => {
                let r = op.region(0);
                let code = if op.kind == Kind::Write { sys::KFI_VERBS_OP_WRITE } else { sys::KFI_VERBS_OP_READ };
                (code, r.addr.wrapping_add(r.key >> 32), r.key as u32)
            }
            k if k.is_atomic() => {
                let r = op.region(0);
                (sys::KFI_VERBS_OP_FETCH_ADD, r.addr.wrapping_add(r.key >> 32), r.key as u32)
            }
            _ => (sys::KFI_VERBS_OP_SEND, 0, 0),
        };
        // An atomic's operands travel in the work request: read now (an
        // inject's from the slot's copy); `posted` checked the call.
        let (mut compare_add, mut swap, mut result) = (0u64, 0u64, core::ptr::null_mut());
        if op.kind.is_atomic() {
            let operand = word_of(segs);
            let a = &op.atomic;
            result = a.result;
            match atomic_call(op.kind).and_then(|c| atomic::ib_atomic(c, a.datatype, a.op)) {
                Some(IbAtomic::CmpSwap) => {
                    let c = Seg { base: a.compare.cast_mut(), page: core::ptr::null_mut(), offset: 0, len: 8 };
                    code = sys::KFI_VERBS_OP_CMP_SWAP;
                    compare_add = word_of(core::slice::from_ref(&c));
                    swap = operand;
                }
                _ => compare_add = operand,
            }
        }
        let segs: &[Seg] = if op.kind.is_atomic() { &[] } else { segs };
        let r = sys::kfi_verbs_sq_req {
            op: code as i32,
            segs: segs.as_ptr(),
            nseg: segs.len() as c_uint,
            inline_ok: op.inject,
            imm,
            // Immediate data is 4 bytes (`cq_data_size`).
            imm_data: op.data as u32,
            fence: op.flags & rules::F_FENCE != 0,
            raddr,
            rkey,
            compare_add,
            swap,
            result,
        };
        let Some(w) = self.ext.wrs.as_ref() else {
            return Err(neg(bindings::ENOTCONN));
        };
        // SAFETY: slot `i` is held (off every list) until its completion,
        // so its context is not posted and its buffer description (the
        // consumer's memory, or the slot's `inline` copy in the slot
        // vector, which is never resized after enable) and an atomic's
        // result buffer (the consumer's, valid until the completion by
        // the API contract) stay valid; `wrs` outlives the queue pair
        // (dropped after the connection's close).
        unsafe { self.ext.conn().post_send(w, i, &r) }.map_err(|e| e as isize)
    }

    /// Hands receive slot `i` (off the toolkit's lists) to the receive
    /// queue, at the tail of `ext.rq`.
    fn post_rx(&mut self, i: usize) -> core::result::Result<(), isize> {
        let Some(w) = self.ext.wrs.as_ref() else {
            return Err(neg(bindings::ENOTCONN));
        };
        // SAFETY: as in `post_tx`: the slot is held until its completion.
        let r = unsafe { self.ext.conn().post_recv(w, i, self.rx[i].buf.segs()) };
        match r {
            Ok(()) => {
                self.rx_links.push_back(&mut self.ext.rq, i);
                Ok(())
            }
            Err(e) => Err(e as isize),
        }
    }
}

impl QueueExt for VerbsExt {
    type Shared = ();
    type Prepared = Prepared;
    type Kick<'a> = ();
    type Progress<'a> = NoProgress;

    fn new() -> VerbsExt {
        VerbsExt { conn: core::ptr::null(), wrs: None, qp: false, up: false, rq: List::new(), iwarp: false }
    }

    fn enable(q: &mut Queues<VerbsExt>, p: &mut Prepared) {
        q.ext.conn = p.conn;
        q.ext.wrs = p.wrs.take();
        q.ext.qp = p.qp;
        q.ext.iwarp = p.iwarp;
    }

    #[inline(always)]
    fn init_tx(_kind: Kind, _flags: u64) {}

    /// Hands the slot to the device when it can take it; refuses what
    /// this provider does not do (tagged messages: -KFI_ENOSYS,
    /// multi-receive buffers: -KFI_EBADFLAGS, remote CQ data on iWARP:
    /// -EOPNOTSUPP, an RMA over more than one remote region: -EINVAL).
    fn posted<'a>(_ep: &'a EpData, q: &mut Queues<VerbsExt>, kind: Kind, i: usize) -> core::result::Result<Option<()>, isize> {
        match kind {
            Kind::Send | Kind::Write | Kind::Read => {
                if q.tx[i].flags & rules::F_REMOTE_CQ_DATA != 0 && q.ext.iwarp {
                    return Err(neg(bindings::EOPNOTSUPP));
                }
                if kind != Kind::Send && q.tx[i].n_rma != 1 {
                    return Err(neg(bindings::EINVAL));
                }
                // Transmits wait on `tx_pending` until connected; once
                // connected that list is empty (`connected` emptied it
                // under `q`), so the slot is its only entry.
                if q.ext.up {
                    q.tx_links.remove_first(&mut q.tx_pending, |j| j == i);
                    q.post_tx(i)?;
                }
            }
            Kind::Atomic | Kind::FetchAtomic | Kind::CompareAtomic => {
                let op = &q.tx[i];
                let r = op.region(0);
                let a = &op.atomic;
                let call = atomic_call(kind).unwrap_or(Call::Atomic);
                let raddr = r.addr.wrapping_add(r.key >> 32);
                let bufs = Bufs { operand: op.buf.len == atomic::ELEM, result: !a.result.is_null(), compare: !a.compare.is_null() };
                // SAFETY: the queues' domain outlives them.
                let atomics = unsafe { &*q.cfg.domain }.atomics();
                if let Err(e) = atomic::check(atomics, call, a.datatype, a.op, r.len, raddr, bufs) {
                    return Err(match e {
                        AtomicError::NotDone => neg(sys::KFI_ENOSYS),
                        AtomicError::Bad => neg(bindings::EINVAL),
                    });
                }
                if q.ext.up {
                    q.tx_links.remove_first(&mut q.tx_pending, |j| j == i);
                    q.post_tx(i)?;
                }
            }
            Kind::Recv => {
                if q.rx[i].flags & rules::F_MULTI_RECV != 0 {
                    return Err(neg(sys::KFI_EBADFLAGS));
                }
                if q.ext.qp {
                    q.rx_links.remove_first(&mut q.rx_msg, |j| j == i);
                    q.post_rx(i)?;
                }
            }
            _ => return Err(neg(sys::KFI_ENOSYS)),
        }
        Ok(None)
    }

    #[inline(always)]
    fn run_kick(_k: ()) {}

    #[inline(always)]
    fn defer_tx(_q: &mut Queues<VerbsExt>, _i: usize) -> bool {
        false
    }

    fn failing(_q: &mut Queues<VerbsExt>) {}

    /// Nothing of the provider's own fails by `fail_all`: what the device
    /// holds completes through the device (flushed).
    fn flush_next(_q: &mut Queues<VerbsExt>) -> Option<(bool, usize)> {
        None
    }

    fn msg_waiting(_q: &mut Queues<VerbsExt>, _waiting: bool) {}

    /// Completions come from the device's completion queue (softirq):
    /// reading a CQ moves nothing.
    fn progress_ref(_ep: &EpData) -> Option<NoProgress> {
        None
    }

    fn owe_ack(_ep: &EpData) {}
}

impl EpData {
    /// The queue pair exists (process context): receives posted so far go
    /// to the device, in order. A receive the device refuses fails with
    /// an error entry.
    pub(crate) fn qp_ready(&self) {
        self.hand_over(false);
    }

    /// The connection is established (process context): transmits posted
    /// so far go to the device, in order. One the device refuses fails
    /// with an error entry.
    pub(crate) fn connected(&self) {
        self.hand_over(true);
    }

    /// Hands the transmits (`tx`) or receives waiting on the toolkit's
    /// list to the device, in order, then lets later posts go straight
    /// to it: the flag is set once the list is empty, under `q`, so that
    /// nothing posted meanwhile overtakes what waits.
    fn hand_over(&self, tx: bool) {
        // A device that cannot take a request for a moment (siw while its
        // queue pair changes state: -EAGAIN) gets it again, for a while.
        let mut tries = 0;
        loop {
            let (i, err, w) = {
                let mut g = self.q.lock();
                let q = &mut *g;
                if !q.enabled || q.down {
                    return;
                }
                let next = if tx { q.tx_links.pop_front(&mut q.tx_pending) } else { q.rx_links.pop_front(&mut q.rx_msg) };
                let Some(i) = next else {
                    if tx {
                        q.ext.up = true;
                    } else {
                        q.ext.qp = true;
                    }
                    return;
                };
                match if tx { q.post_tx(i) } else { q.post_rx(i) } {
                    Ok(()) => continue,
                    Err(e) if e == neg(bindings::EAGAIN) && tries < HAND_OVER_TRIES => {
                        if tx {
                            q.tx_links.push_front(&mut q.tx_pending, i);
                        } else {
                            q.rx_links.push_front(&mut q.rx_msg, i);
                        }
                        drop(g);
                        tries += 1;
                        crate::util::base::sleep_briefly();
                        continue;
                    }
                    Err(e) if tx => (i, (-e) as u32, None),
                    Err(e) => (i, (-e) as u32, Some(RxWork { idx: i, op: q.rx[i], offset: 0, room: q.rx[i].buf.len, last: true })),
                }
            };
            match w {
                None => self.tx_failed(i, err),
                Some(w) => self.rx_failed(&w, err, 0, 0),
            }
        }
    }

    /// The connection ended (or never came): what waits in the toolkit's
    /// lists fails with -KFI_ECANCELED and later posts with -ENOTCONN.
    /// What the device holds was flushed before (the connection was
    /// quiesced) or is flushed by the close.
    pub(crate) fn disconnected(&self) {
        self.fail_all(bindings::ECANCELED);
    }

    /// `kfi_close`, after the connection's close (every work request
    /// completed): returns the CQ reservations of what never completed;
    /// the work request contexts, to be freed after the lock.
    pub(crate) fn close(&self) -> Option<Wrs> {
        self.close_with(|q| {
            q.ext.rq = List::new();
            q.ext.up = false;
            q.ext.qp = false;
            q.ext.wrs.take()
        })
    }

    /// Transmit slot `slot` completed (softirq).
    fn tx_wc(&self, slot: usize, wc: &sys::kfi_verbs_wc) {
        if wc.status == 0 {
            self.tx_complete(slot);
        } else {
            self.tx_failed(slot, error_of(wc.status, false));
        }
    }

    /// Receive slot `slot` completed (softirq): it is the head of `rq`.
    fn rx_wc(&self, slot: usize, wc: &sys::kfi_verbs_wc) {
        let w = {
            let mut g = self.q.lock();
            let q = &mut *g;
            // An RC receive queue completes in order.
            if q.ext.rq.front() == Some(slot) {
                q.rx_links.pop_front(&mut q.ext.rq);
            } else {
                crate::util::base::warn_once!("a receive completed out of order");
                q.rx_links.remove_first(&mut q.ext.rq, |j| j == slot);
            }
            RxWork { idx: slot, op: q.rx[slot], offset: 0, room: q.rx[slot].buf.len, last: true }
        };
        if wc.status == 0 && wc.write_imm {
            // A peer's write with immediate data consumed the receive:
            // its entry is the write's (fi_rma(3) `writedata`).
            let flags = rules::F_RMA | rules::F_REMOTE_WRITE;
            self.rx_done_as(&w, wc.byte_len as u64, Some(wc.imm_data as u64), 0, flags);
        } else if wc.status == 0 {
            let data = wc.imm.then_some(wc.imm_data as u64);
            self.rx_done(&w, wc.byte_len as u64, data, 0);
        } else {
            self.rx_failed(&w, error_of(wc.status, true), 0, 0);
        }
    }
}

/// A transmit work request completed (kfi_verbs_qp.c; softirq, no lock).
///
/// # Safety
/// `owner` is the `EpData` the work request contexts were made for (it
/// outlives every completion: the connection is closed first); `slot` is
/// a transmit slot it handed to the device; `wc` is valid for the call.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_verbs_tx_done(owner: *mut c_void, slot: c_uint, wc: *const sys::kfi_verbs_wc) {
    // SAFETY: by the caller's contract.
    let (ep, wc) = unsafe { (&*owner.cast::<EpData>(), &*wc) };
    ep.tx_wc(slot as usize, wc);
}

/// A receive work request completed (kfi_verbs_qp.c; softirq, no lock).
///
/// # Safety
/// As [`kfi_verbs_tx_done`], for a receive slot.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_verbs_rx_done(owner: *mut c_void, slot: c_uint, wc: *const sys::kfi_verbs_wc) {
    // SAFETY: by the caller's contract.
    let (ep, wc) = unsafe { (&*owner.cast::<EpData>(), &*wc) };
    ep.rx_wc(slot as usize, wc);
}
