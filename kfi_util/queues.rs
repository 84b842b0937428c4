// SPDX-License-Identifier: GPL-2.0
//! The data-transfer queues of an endpoint ([`EpQueues`]): posting
//! (`kfi_send`, `kfi_recv`, `kfi_tsend`, ... all arrive as one
//! [`sys::kfi_util_xfer`]), the CQ reservations, cancel, multi-receive
//! buffers, and the functions whoever moves the data (kfi_tcp: a
//! connection's work item) reports operations done or failed with. What
//! differs between transports is the provider's [`QueueExt`]: its state
//! under the same lock (`Queues::ext`), its state read without it
//! ([`QueueExt::Shared`]), and hooks called at fixed points (a slot
//! posted, a transmit done, a flush...).
//!
//! # Memory
//! Every operation lives in a slot preallocated at `kfi_enable` (as many as
//! `tx_attr->size` / `rx_attr->size`), threaded on index-linked lists
//! (`logic::xfer::Links`): posting fails with -EAGAIN when no slot (or no
//! CQ entry, reserved at post time) is free. The one allocation a post
//! makes is for a list longer than the description holds (more than 4
//! segments or remote regions): a `GFP_ATOMIC` table (`base::Table`),
//! -EAGAIN without memory, owned by the slot and `kfree`d with it (under
//! `q`, which `kfree` allows).
//!
//! # Contexts and locks
//! Posts may come from any context but hard interrupts, also under the
//! consumer's spinlocks (`kfi_endpoint.h`): the queues are under one
//! `SpinLockBh` (`q`), taken briefly by posts, cancel and whoever moves the
//! data; nothing sleeps or calls out under it except `Cq::try_reserve` and
//! `Cq::reserve_or_wait` (the CQ's own BH spinlock: order q → CQ) and the
//! provider's hooks, which never sleep and take only spinlocks of their
//! transport inside `q` (kfi_verbs: its post lock, then the device
//! driver's in `ib_post_*`). Completions are written
//! to the CQ after `q` is dropped (the CQ calls the consumer's handler).
//! The slot of an operation being moved stays allocated and off every
//! list until it is reported done; only its mover frees such slots, so the
//! buffer description it copied stays the consumer's.
//!
//! # Slot lifecycle
//! tx: free → `tx_pending` (posted) → taken by the mover (off every list,
//! or on the provider's own lists in `ext`) → done ([`EpQueues::tx_complete`],
//! which may leave it to the provider: [`QueueExt::defer_tx`]). rx: free →
//! `rx_msg` / `rx_tag` (posted) → taken by the mover (a multi-receive buffer
//! stays at the head of `rx_msg` until released) → done. Every operation
//! ends with exactly one of: a completion entry, an error entry, or
//! (successful without an entry: inject calls, selective completion) the
//! return of its CQ reservation.

use super::base;
use super::cq::{Cq, ProgressRef, ProgressSource};
use super::ep::{EpConfig, EpXfer};
use super::logic::cq::{Completion, ADDR_NOTAVAIL};
use super::logic::xfer::{self as rules, Kind, Links, List, MultiRecv};
use super::fabric::ProvDomain;
use super::mr::ProvMr;
use super::sync::{new_spinlock_bh, SpinLockBh};
use super::sys;
use super::tagmatch::TagQueues;
use super::xfer::{self as records, errc, kind_of, AtomicArgs, Cntrs, Report, RxOp, RxWork, Seg, What, RX_INIT, TX_INIT};
use super::Provider;
use crate::trigger::cntr::Cntr;
use crate::trigger::target::FireTarget;
use core::ffi::c_void;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use kernel::bindings;
use kernel::prelude::*;

/// The provider's domain object (named through its memory region type,
/// whose domain it is).
pub(crate) type PDomain = <<crate::Prov as Provider>::Mr as ProvMr>::Domain;

/// What the provider keeps in a transmit slot ([`records::TxOp::ext`]).
type TxExt = <crate::Prov as Provider>::TxExt;

/// The provider's part of an endpoint's queues: its state under `q`
/// (`Queues::ext`, a value of the implementing type) and outside it
/// ([`QueueExt::Shared`]), and the hooks the toolkit calls. Every hook is
/// statically dispatched and meant to be `#[inline]`: several are on the
/// per-message path. Hooks given `q` run under the queue lock (BH
/// spinlock): they never sleep, and take no lock but a CQ's (order q →
/// CQ) and their transport's own spinlocks (kfi_verbs: q → its post lock
/// → the device driver's).
pub(crate) trait QueueExt: Send + Sized + 'static {
    /// State read or written without `q` (kfi_tcp: the count of consumer
    /// calls holding the connection, the "frames may be queued" hint).
    type Shared: Sync + Default;

    /// What the provider makes at `kfi_enable` (process context, before
    /// `q` is taken: it may allocate) and hands [`EpQueues::enable`] for
    /// [`QueueExt::enable`] to install (per-slot provider state).
    type Prepared;

    /// What a post hands from under `q` to after it ([`QueueExt::posted`],
    /// [`QueueExt::run_kick`]; kfi_tcp: a reference to the connection).
    type Kick<'a>
    where
        Self: 'a;

    /// What a CQ makes progress on the endpoint with
    /// ([`ProgressSource::Ref`]; kfi_tcp: a reference to the connection).
    type Progress<'a>: ProgressRef
    where
        Self: 'a;

    /// Every non-blocking CQ read makes progress on the endpoint, not only
    /// after a transport event ([`ProgressSource::POLL_IDLE`]).
    const POLL_IDLE: bool = false;

    /// The state of queues not enabled yet.
    fn new() -> Self;

    /// `kfi_enable`, under `q` once `q.cfg` is set: installs what the
    /// provider prepared, leaving in `p` what it replaces (dropped after `q`
    /// is released).
    fn enable(q: &mut Queues<Self>, p: &mut Self::Prepared);

    /// The provider's part of a transmit slot being posted (kfi_tcp:
    /// whether it asks the peer for an ACK).
    fn init_tx(kind: Kind, flags: u64) -> TxExt;

    /// Under `q`, right after slot `i` was queued for a post of `kind`
    /// (on `tx_pending`, `rx_msg` or `rx_tag`). `Some(k)`: handed to
    /// [`QueueExt::run_kick`] once `q` is dropped (kfi_tcp: the connection
    /// moves it now, or its work item is kicked). `Err(e)`: the post fails
    /// with `e`; the toolkit unqueues and frees the slot and returns its
    /// CQ reservation.
    fn posted<'a>(ep: &'a EpQueues<Self>, q: &mut Queues<Self>, kind: Kind, i: usize) -> core::result::Result<Option<Self::Kick<'a>>, isize>;

    /// After a post, `q` dropped: what [`QueueExt::posted`] asked for.
    fn run_kick(k: Self::Kick<'_>);

    /// Where an inject's bytes are copied at post time for transmit slot
    /// `i`, `op` (at least `logic::xfer::INJECT_LIMIT` bytes; `ext` is
    /// `q.ext`). By default the slot's `inline` buffer.
    #[inline(always)]
    fn inject_dst<'a>(_ext: &'a mut Self, op: &'a mut records::TxOp, _i: usize) -> &'a mut [u8] {
        &mut op.inline
    }

    /// Slot `i` (transmit if `tx`) is freed, its tables with it. By default
    /// nothing.
    #[inline(always)]
    fn released(_q: &mut Queues<Self>, _tx: bool, _i: usize) {}

    /// `kfi_cancel` found no receive with `context` on the toolkit's
    /// lists: whether the provider holds one that cannot be taken back
    /// (kfi_verbs direct mode: on the device's receive queue), so that
    /// the call says -EBUSY (it completes later, at the latest flushed
    /// when the connection ends) rather than -ENOENT. By default false.
    #[inline(always)]
    fn holds_rx(_q: &Queues<Self>, _context: usize) -> bool {
        false
    }

    /// Transmit `i` went out whole ([`EpQueues::tx_complete`]): true if
    /// the provider keeps it and completes it later (kfi_tcp: it asked for
    /// an ACK and waits on the provider's list for it), false to complete
    /// it now.
    fn defer_tx(q: &mut Queues<Self>, i: usize) -> bool;

    /// [`EpQueues::fail_all`] starts (after `down` is set): the provider
    /// drops what it owes the peer (kfi_tcp: ACKs).
    fn failing(q: &mut Queues<Self>);

    /// [`EpQueues::fail_all`]: the next slot the provider holds on a list
    /// of its own (kfi_tcp: transmits waiting for an ACK, reads waiting
    /// for their responses), taken off it, as `(tx, slot)`; they fail
    /// first, then the toolkit's lists. `None` when it holds none.
    fn flush_next(q: &mut Queues<Self>) -> Option<(bool, usize)>;

    /// [`EpQueues::rx_take_msg`] for the provider's data stream `stream`
    /// found no untagged receive posted (`waiting`: a message waits for
    /// one) or found one (false). kfi_tcp notes it so that an untagged
    /// receive posted while a message waits makes progress on that
    /// stream ([`QueueExt::posted`]).
    fn msg_waiting(q: &mut Queues<Self>, stream: u32, waiting: bool);

    /// What a CQ bound to the endpoint makes progress with
    /// ([`ProgressSource::progress_ref`]; called under the CQ's endpoint
    /// lock, may take `q`). `None`: nothing to move.
    fn progress_ref(ep: &EpQueues<Self>) -> Option<Self::Progress<'_>>;

    /// A tagged message taken from the unexpected list of data stream
    /// `stream` asked the sender's side for an acknowledgement
    /// ([`TagQueues::owe_ack`]; kfi_tcp: an ACK frame is owed on it).
    fn owe_ack(ep: &EpQueues<Self>, stream: u32);
}

/// Whether the atomic `x` of `kind` over `len` remote bytes is one that
/// `domain` does ([`ProvDomain::atomic_count`] elements at most).
fn atomic_fits(domain: *const PDomain, kind: Kind, x: &sys::kfi_util_xfer, len: u64) -> bool {
    // SAFETY: a queue's domain outlives it (`Config::domain`).
    let d = unsafe { &*domain };
    // SAFETY: a pure function of its argument.
    let size = unsafe { sys::kfi_util_atomic_size(x.atomic_type) } as u64;
    match d.atomic_count(kind, x.atomic_type as u32, x.atomic_op as u32) {
        Some(n) => size != 0 && len != 0 && len % size == 0 && len / size <= n as u64,
        None => false,
    }
}

/// How [`EpQueues::post_as`] treats a transfer.
#[derive(Clone, Copy)]
enum Post {
    /// Queue it.
    Now,
    /// Only validate it (and tell its flags); `deferred`: as `Fired`.
    Check { deferred: bool },
    /// Queue it: released by a trigger, with a completion counter.
    /// `deferred`: deferred work, which writes a success entry only with
    /// `KFI_COMPLETION` and does not count on the endpoint's counters
    /// (fi_trigger(3)); its error entries are written like any other. Its
    /// CQ slot was taken when it was posted (`reserve_for`); it stays
    /// taken if this post fails.
    Fired { extra: Option<*const Cntr>, deferred: bool },
}

/// Endpoint configuration copied at enable.
#[derive(Clone, Copy)]
pub(crate) struct Config {
    pub(crate) tx_cq: Option<*const Cq>,
    pub(crate) rx_cq: Option<*const Cq>,
    pub(crate) tx_selective: bool,
    pub(crate) rx_selective: bool,
    /// Default operation flags (`tx_attr->op_flags`, `rx_attr->op_flags`).
    pub(crate) tx_flags: u64,
    pub(crate) rx_flags: u64,
    pub(crate) tx_size: usize,
    pub(crate) rx_size: usize,
    pub(crate) max_msg: u64,
    /// The endpoint's domain (kfi_tcp: its MR table serves remote
    /// accesses); it outlives its endpoints.
    pub(crate) domain: *const PDomain,
    pub(crate) cntrs: Cntrs,
    /// Receives honour their source address (`KFI_DIRECTED_RECV` on a
    /// connectionless endpoint); otherwise every receive takes messages
    /// from anyone.
    pub(crate) directed: bool,
    /// RMA with `KFI_TAGGED` (`KFI_TAGGED_RMA`: one region whose key is
    /// the tag of a receive posted at the target) is offered; otherwise
    /// refused, -KFI_EBADFLAGS.
    pub(crate) tagged_rma: bool,
    /// The bits of an address handle that name the peer (the AV's
    /// `rx_ctx_bits` off): what a directed receive keeps.
    pub(crate) addr_mask: u64,
}

impl Config {
    /// The configuration of queues enabled with `c` (what the toolkit's
    /// `kfi_enable` hands [`super::ep::ProvEp::enable`]), messages of at
    /// most `max_msg` bytes, on `domain`.
    pub(crate) fn new(c: &EpConfig, max_msg: u64, domain: *const PDomain) -> Config {
        Config {
            tx_cq: c.tx_cq,
            rx_cq: c.rx_cq,
            tx_selective: c.tx_selective,
            rx_selective: c.rx_selective,
            tx_flags: c.attrs.tx_flags,
            rx_flags: c.attrs.rx_flags,
            tx_size: c.attrs.tx_size,
            rx_size: c.attrs.rx_size,
            max_msg,
            domain,
            cntrs: c.cntrs,
            directed: false,
            tagged_rma: false,
            addr_mask: u64::MAX,
        }
    }

    /// The CPU the endpoint's progress should run on: `KFI_AFFINITY` of
    /// the receive CQ, else of the transmit CQ (see `cq.rs`).
    pub(crate) fn io_cpu(&self) -> Option<u32> {
        // SAFETY: bound CQs, valid while bound (see `Queues`).
        let cpu = |cq: Option<*const Cq>| cq.and_then(|c| unsafe { &*c }.cpu());
        cpu(self.rx_cq).or_else(|| cpu(self.tx_cq))
    }

    /// No bound CQ has a completion handler: the consumer polls, and its
    /// own calls (CQ reads, posts) may make progress on the endpoint. With
    /// a handler they do not: completing an operation calls the handler,
    /// and a consumer may hold, around its posts and reads, a lock its
    /// handler takes.
    #[inline]
    pub(crate) fn quiet(&self) -> bool {
        // SAFETY: bound CQs, valid while bound (see `Queues`).
        [self.tx_cq, self.rx_cq].iter().flatten().all(|&cq| !unsafe { &*cq }.has_handler())
    }
}

/// What `q` protects.
pub(crate) struct Queues<X> {
    /// Set by `kfi_enable` (slots allocated); posts before fail.
    pub(crate) enabled: bool,
    /// The transport failed or was shut down: posts fail with -ENOTCONN
    /// (receives and sends queued before are flushed with errors).
    pub(crate) down: bool,
    pub(crate) cfg: Config,
    /// `KFI_OPT_MIN_MULTI_RECV`.
    pub(crate) min_multi: u64,
    pub(crate) tx: KVVec<records::TxOp>,
    pub(crate) tx_links: Links<KVVec<u32>>,
    /// Free slots, the last freed first (`Links::push_front`).
    pub(crate) tx_free: List,
    /// Posted transmits not taken by the mover yet, in posting order.
    pub(crate) tx_pending: List,
    pub(crate) rx: KVVec<RxOp>,
    pub(crate) rx_links: Links<KVVec<u32>>,
    pub(crate) rx_free: List,
    pub(crate) rx_msg: List,
    pub(crate) rx_tag: List,
    /// CQ entries reserved by operations not reported yet (returned at
    /// close for the operations that never complete).
    pub(crate) tx_res: usize,
    pub(crate) rx_res: usize,
    /// What the endpoint moved (statistics).
    pub(crate) moved: Moved,
    /// The provider's part.
    pub(crate) ext: X,
}

/// What an endpoint's operations moved, for its statistics: operations
/// completed and their bytes, each way (transmits: sends, writes, reads
/// and atomics it initiated; receives: messages received), and
/// operations that completed in error (cancelled and flushed ones
/// included). Counted under `q` when an operation is reported.
#[derive(Clone, Copy, Default)]
pub(crate) struct Moved {
    pub(crate) tx_ops: u64,
    pub(crate) tx_bytes: u64,
    pub(crate) rx_ops: u64,
    pub(crate) rx_bytes: u64,
    pub(crate) tx_errors: u64,
    pub(crate) rx_errors: u64,
}

/// An endpoint's queues as its statistics show them
/// ([`EpQueues::stats`]).
pub(crate) struct EpStats {
    /// `kfi_enable` succeeded.
    pub(crate) enabled: bool,
    /// The transport failed or was shut down.
    pub(crate) down: bool,
    pub(crate) moved: Moved,
    /// Transmits posted and not completed yet.
    pub(crate) tx_busy: usize,
    /// Receives posted and not completed yet.
    pub(crate) rx_posted: usize,
    /// Triggered operations waiting to be issued here.
    pub(crate) triggered: usize,
}

impl Moved {
    const ZERO: Moved = Moved { tx_ops: 0, tx_bytes: 0, rx_ops: 0, rx_bytes: 0, tx_errors: 0, rx_errors: 0 };

    #[inline(always)]
    fn error(&mut self, tx: bool) {
        if tx {
            self.tx_errors += 1;
        } else {
            self.rx_errors += 1;
        }
    }
}

// SAFETY: the CQ and counter pointers stay valid while the endpoint is
// bound to them (they refuse to close while bound), the domain outlives
// its endpoints; the rest is owned data and the provider's `Send` part.
unsafe impl<X: Send> Send for Queues<X> {}

impl<X: QueueExt> Queues<X> {
    /// Frees transmit slot `i` (its tables with it).
    #[inline]
    pub(crate) fn free_tx(&mut self, i: usize) {
        self.tx[i].release();
        X::released(self, true, i);
        self.tx_links.push_front(&mut self.tx_free, i);
    }

    /// Frees receive slot `i` (its table with it).
    #[inline]
    pub(crate) fn free_rx(&mut self, i: usize) {
        self.rx[i].buf.release();
        X::released(self, false, i);
        self.rx_links.push_front(&mut self.rx_free, i);
    }

    /// An operation that held a CQ reservation is reported.
    pub(crate) fn unres(&mut self, tx: bool) {
        if tx && self.cfg.tx_cq.is_some() {
            self.tx_res -= 1;
        } else if !tx && self.cfg.rx_cq.is_some() {
            self.rx_res -= 1;
        }
    }

    /// Frees receive slot `i`, cancelled, and builds its -KFI_ECANCELED
    /// error entry (on the reservation it took when posted).
    fn cancelled_rx(&mut self, i: usize) -> Report {
        let op = self.rx[i];
        self.rx[i].extra = None;
        self.free_rx(i);
        self.unres(false);
        self.moved.error(false);
        Report::failed(self.cfg.rx_cq, errc(op.kind, op.flags, op.context, bindings::ECANCELED, true), self.cfg.cntrs.for_op(op.kind, op.ep_cntr)).with_extra(op.extra)
    }

    /// A message into multi-receive buffer `i` that did not release it is
    /// done: a buffer cancelled meanwhile is released now (its report,
    /// delivered after the message's own).
    fn piece_done(&mut self, i: usize) -> Option<Report> {
        self.rx[i].filling = false;
        self.rx[i].cancelled.then(|| self.cancelled_rx(i))
    }

    fn cq(&self, tx: bool) -> Option<*const Cq> {
        if tx {
            self.cfg.tx_cq
        } else {
            self.cfg.rx_cq
        }
    }

    /// Transmit `i` (held by the mover, or just taken off a provider's
    /// list) completed: frees its slot and builds its report.
    pub(crate) fn finish_tx(&mut self, i: usize) -> Report {
        let op = self.tx[i];
        self.tx[i].extra = None;
        self.free_tx(i);
        self.unres(true);
        self.moved.tx_ops += 1;
        self.moved.tx_bytes += op.len;
        let (cq, cntr) = (self.cfg.tx_cq, self.cfg.cntrs.for_op(op.kind, op.ep_cntr));
        if !op.entry {
            return Report::quiet(cq, cntr).with_extra(op.extra);
        }
        let c = Completion { op_context: op.context, flags: op.kind.entry_flags(op.flags), len: op.len as usize, buf: 0, data: 0, tag: 0, src: ADDR_NOTAVAIL };
        Report::done(cq, c, cntr).with_extra(op.extra)
    }

    /// A post that took slot `i` fails after all: the slot is freed
    /// without a report (its completion counter, if any, stays the
    /// caller's) and its CQ reservation is given up (the caller returns
    /// it to the CQ).
    fn drop_slot(&mut self, tx: bool, i: usize) {
        if tx {
            self.tx[i].extra = None;
            self.free_tx(i);
        } else {
            self.rx[i].extra = None;
            self.free_rx(i);
        }
        self.unres(tx);
    }
}

/// The data-transfer side of an endpoint. (`repr(C)` with `q` first:
/// the lock's address is the queues', one register less on the paths that
/// take it.)
#[pin_data]
#[repr(C)]
pub(crate) struct EpQueues<X: QueueExt> {
    #[pin]
    pub(crate) q: SpinLockBh<Queues<X>>,
    /// Triggered operations on this endpoint not issued yet (pending or
    /// due); the endpoint cannot close while any is.
    trig: AtomicUsize,
    /// Tagged receives posted so far (the mover matches unexpected
    /// messages again only when this moved).
    tag_posts: AtomicU64,
    /// Consumers' calls holding the provider's progress state ([`Call`]s
    /// out, counted under `q`); the provider's close takes that state out
    /// of `q`, then waits for them ([`EpQueues::wait_calls`]).
    calls: AtomicUsize,
    /// The provider's state read without `q`.
    pub(crate) shared: X::Shared,
}

/// The receive CQ has no free slot for the entry of the message being
/// matched (a multi-receive buffer's, [`EpQueues::rx_take_msg`]): the
/// message waits; the CQ tells the endpoint's progress when a read frees
/// a slot ([`ProgressRef::room_freed`]).
pub(crate) struct NoRoom;

/// A receive CQ slot for a remote write's entry ([`EpQueues::take_remote_room`]).
pub(crate) enum Room {
    /// Taken: the entry is written when the payload is in.
    Taken,
    /// The CQ is full: try again when a read frees a slot.
    Full,
    /// No receive CQ is bound: the entry cannot be written.
    NoCq,
}

/// A consumer's call holding an endpoint's progress state outside `q`
/// (kfi_tcp: its connection; kfi_verbs: its queue pair): counted under
/// `q` ([`EpQueues::call`]), uncounted when dropped. The provider's close
/// takes that state out of `q`, then waits for every call
/// ([`EpQueues::wait_calls`]), so the state outlives them.
pub(crate) struct Call<'a>(&'a AtomicUsize);

impl Drop for Call<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

fn neg(e: u32) -> isize {
    -(e as isize)
}

impl<X: QueueExt> EpQueues<X> {
    /// Counts a call that takes the provider's progress state out of `q`
    /// (held: `_q`).
    #[inline(always)]
    pub(crate) fn call(&self, _q: &Queues<X>) -> Call<'_> {
        self.calls.fetch_add(1, Ordering::AcqRel);
        Call(&self.calls)
    }

    /// Waits until no [`Call`] is out (endpoint close, after the provider
    /// took its progress state out of `q`; process context).
    pub(crate) fn wait_calls(&self) {
        while self.calls.load(Ordering::Acquire) != 0 {
            base::sleep_briefly();
        }
    }

    /// Initialiser of the empty (not enabled) queues.
    pub(crate) fn new() -> impl PinInit<Self> {
        pin_init!(Self {
            q <- new_spinlock_bh!(Queues {
                enabled: false,
                down: false,
                cfg: Config {
                    tx_cq: None,
                    rx_cq: None,
                    tx_selective: false,
                    rx_selective: false,
                    tx_flags: 0,
                    rx_flags: 0,
                    tx_size: 0,
                    rx_size: 0,
                    max_msg: 0,
                    domain: core::ptr::null(),
                    cntrs: Cntrs { send: None, recv: None, read: None, write: None, remote_read: None, remote_write: None },
                    directed: false,
                    tagged_rma: false,
                    addr_mask: u64::MAX,
                },
                min_multi: 0,
                tx: KVVec::new(),
                tx_links: Links::new(KVVec::new()),
                tx_free: List::new(),
                tx_pending: List::new(),
                rx: KVVec::new(),
                rx_links: Links::new(KVVec::new()),
                rx_free: List::new(),
                rx_msg: List::new(),
                rx_tag: List::new(),
                tx_res: 0,
                rx_res: 0,
                moved: Moved::ZERO,
                ext: X::new(),
            }, "kfi_util_ep_q"),
            trig: AtomicUsize::new(0),
            tag_posts: AtomicU64::new(0),
            calls: AtomicUsize::new(0),
            shared: Default::default(),
        })
    }

    /// `kfi_enable`: allocates the slots and installs `prep`, the
    /// provider's state for them (process context).
    pub(crate) fn enable(&self, cfg: Config, mut prep: X::Prepared) -> Result {
        let mut tx = KVVec::with_capacity(cfg.tx_size, GFP_KERNEL | __GFP_NOWARN)?;
        let mut tx_next = KVVec::with_capacity(cfg.tx_size, GFP_KERNEL | __GFP_NOWARN)?;
        for _ in 0..cfg.tx_size {
            tx.push(TX_INIT, GFP_KERNEL)?;
            tx_next.push(rules::NIL, GFP_KERNEL)?;
        }
        let mut rx = KVVec::with_capacity(cfg.rx_size, GFP_KERNEL | __GFP_NOWARN)?;
        let mut rx_next = KVVec::with_capacity(cfg.rx_size, GFP_KERNEL | __GFP_NOWARN)?;
        for _ in 0..cfg.rx_size {
            rx.push(RX_INIT, GFP_KERNEL)?;
            rx_next.push(rules::NIL, GFP_KERNEL)?;
        }
        let mut tx_links = Links::new(tx_next);
        let mut rx_links = Links::new(rx_next);
        let tx_free = tx_links.all();
        let rx_free = rx_links.all();
        // The old vectors (empty: enable happens once) and the provider's
        // replaced state are dropped after the lock is released.
        let old = {
            let mut g = self.q.lock();
            if g.enabled {
                return Err(EINVAL);
            }
            g.cfg = cfg;
            X::enable(&mut *g, &mut prep);
            g.tx_free = tx_free;
            g.rx_free = rx_free;
            g.enabled = true;
            (
                core::mem::replace(&mut g.tx, tx),
                core::mem::replace(&mut g.tx_links, tx_links),
                core::mem::replace(&mut g.rx, rx),
                core::mem::replace(&mut g.rx_links, rx_links),
            )
        };
        drop(old);
        drop(prep);
        Ok(())
    }

    /// Tagged receives posted so far.
    pub(crate) fn tag_posts(&self) -> u64 {
        self.tag_posts.load(Ordering::Acquire)
    }

    /// Triggered operations not issued yet.
    pub(crate) fn trig_pending(&self) -> usize {
        self.trig.load(Ordering::Acquire)
    }

    /// The queues' statistics (`q` held only to copy them).
    pub(crate) fn stats(&self) -> EpStats {
        let g = self.q.lock();
        EpStats {
            enabled: g.enabled,
            down: g.down,
            moved: g.moved,
            tx_busy: g.tx.len() - g.tx_free.len(),
            rx_posted: g.rx.len() - g.rx_free.len(),
            triggered: self.trig.load(Ordering::Relaxed),
        }
    }

    /// `KFI_OPT_MIN_MULTI_RECV`.
    pub(crate) fn min_multi(&self) -> u64 {
        self.q.lock().min_multi
    }

    /// Sets `KFI_OPT_MIN_MULTI_RECV`.
    pub(crate) fn set_min_multi(&self, v: u64) {
        self.q.lock().min_multi = v;
    }

    /// The domain (kfi_tcp: for the RMA target path).
    pub(crate) fn domain(&self) -> *const PDomain {
        self.q.lock().cfg.domain
    }

    /// Posts one transfer. Any context but hard interrupts; never sleeps.
    pub(crate) fn post(&self, x: &sys::kfi_util_xfer) -> isize {
        self.post_as(x, Post::Now, &mut 0)
    }

    fn check_as(&self, x: &mut sys::kfi_util_xfer, mode: Post) -> isize {
        let mut flags = 0;
        let r = self.post_as(x, mode, &mut flags);
        if r == 0 {
            x.flags = flags;
            x.msg_call = true;
        }
        r
    }

    /// `eff`: set to the operation's flags once they are known.
    fn post_as(&self, x: &sys::kfi_util_xfer, mode: Post, eff: &mut u64) -> isize {
        let Some(kind) = kind_of(x) else {
            return neg(bindings::EINVAL);
        };
        let (extra, deferred) = match mode {
            Post::Fired { extra, deferred } => (extra, deferred),
            Post::Check { deferred, .. } => (None, deferred),
            Post::Now => (None, false),
        };
        // The trigger flag is handled before (`kfi_trigger/trig.rs`); a
        // released operation has it removed.
        if x.flags & rules::F_TRIGGER != 0 {
            return neg(bindings::EINVAL);
        }
        let nseg = x.nseg as usize;
        if nseg > rules::IOV_MAX {
            return neg(bindings::EINVAL);
        }
        // Longer lists are described in tables of their own, owned here
        // until the operation's slot takes them (freed on every early
        // return); shorter ones are copied from `x` into the slot.
        let mut seg_table = base::Table::NONE;
        if nseg > rules::IOV_LIMIT {
            // SAFETY: the C wrappers set `ext_desc` to the consumer's list
            // of `nseg` entries, readable during the call (or the
            // provider's own table for a triggered operation).
            seg_table = match unsafe { base::segs_table(x.ext_type, x.ext_desc, nseg) } {
                Ok(t) => t,
                Err(e) => return e as isize,
            };
        }
        let segs: &[Seg] = if seg_table.is_some() { seg_table.as_slice() } else { &x.seg[..nseg] };
        let len = segs.iter().fold(0u64, |a, s| a.saturating_add(s.len as u64));
        let mut rma = [records::RmaIov::default(); rules::IOV_LIMIT];
        let mut rma_table = base::Table::NONE;
        let mut n_rma = 0;
        let mut moved = len;
        if kind.is_rma() || kind.is_atomic() {
            n_rma = x.rma_count as usize;
            let total = if n_rma > rules::IOV_LIMIT && n_rma <= rules::IOV_MAX {
                // SAFETY: the C wrapper set `rma_ext` to the consumer's
                // `rma_count` regions (or the provider's own copy),
                // readable during the call.
                rma_table = match unsafe { base::rma_table(x.rma_ext, n_rma) } {
                    Ok(t) => t,
                    Err(e) => return e as isize,
                };
                rma_table.as_slice().iter().try_fold(0u64, |a, r| a.checked_add(r.len as u64))
            } else {
                let mut total = Some(0u64);
                for (i, r) in x.rma[..n_rma.min(rules::IOV_LIMIT)].iter().enumerate() {
                    let l = if x.rma_whole && i == 0 { len } else { r.len as u64 };
                    rma[i] = records::RmaIov { addr: r.addr, len: l, key: r.key };
                    total = total.and_then(|t| t.checked_add(l));
                }
                total
            };
            let checked = if kind.is_rma() && x.flags & rules::F_TAGGED != 0 {
                rules::check_tagged_rma(len, n_rma, total)
            } else {
                rules::check_rma_total(kind, len, n_rma, total)
            };
            moved = match checked {
                Ok(m) => m,
                Err(e) => return e.errno() as isize,
            };
        }

        let mut g = self.q.lock();
        if !g.enabled {
            return -(sys::KFI_EOPBADSTATE as isize);
        }
        if g.down {
            return neg(bindings::ENOTCONN);
        }
        // By reference: the configuration is large, this is the hot path.
        let cfg = &g.cfg;
        // A context of a scalable endpoint has no queue for the other
        // direction (a queue of a whole endpoint is never empty).
        if (if kind.is_tx() { cfg.tx_size } else { cfg.rx_size }) == 0 {
            return -(sys::KFI_ENOSYS as isize);
        }
        let defaults = if kind.is_tx() { cfg.tx_flags } else { cfg.rx_flags };
        // Default op flags that do not apply to this kind are ignored.
        let flags = if x.msg_call { x.flags } else { x.flags | (defaults & kind.allowed_flags()) };
        if let Err(e) = rules::check_post(kind, flags, nseg, len, cfg.max_msg) {
            return e.errno() as isize;
        }
        if kind.is_rma() && flags & rules::F_TAGGED != 0 && !cfg.tagged_rma {
            return -(sys::KFI_EBADFLAGS as isize);
        }
        let (cq, selective) = if kind.is_tx() { (cfg.tx_cq, cfg.tx_selective) } else { (cfg.rx_cq, cfg.rx_selective) };
        // Completions go to a CQ, a counter, or both; deferred work needs
        // a CQ only when it asks for an entry.
        let no_cq = if deferred {
            flags & rules::F_COMPLETION != 0 && cq.is_none()
        } else {
            cq.is_none() && cfg.cntrs.of(kind).is_none()
        };
        if no_cq {
            return -(sys::KFI_ENOCQ as isize);
        }
        *eff = flags;
        if let Post::Check { .. } = mode {
            // A triggered or deferred atomic the domain does not do is
            // refused now rather than failing when it fires (an immediate
            // one finds out in the provider's `posted`).
            if kind.is_atomic() && !atomic_fits(cfg.domain, kind, x, moved) {
                return -(sys::KFI_ENOSYS as isize);
            }
            return 0;
        }
        let free = if kind.is_tx() { g.tx_free } else { g.rx_free };
        if free.is_empty() {
            return neg(bindings::EAGAIN);
        }
        // One CQ entry per operation, reserved now so that its completion
        // (or error) always has room.
        // A fired operation's slot was taken when it was posted.
        let fired = matches!(mode, Post::Fired { .. });
        if let (Some(cq), false) = (cq, fired) {
            // SAFETY: bound CQ, valid while bound.
            if !unsafe { &*cq }.try_reserve(1) {
                return neg(bindings::EAGAIN);
            }
        }
        let unreserve = |cq: Option<*const Cq>| {
            if let (Some(cq), false) = (cq, fired) {
                // SAFETY: as above.
                unsafe { &*cq }.unreserve(1);
            }
        };
        let entry = cq.is_some() && rules::writes_entry(selective || deferred, flags, x.no_entry);
        let q = &mut *g;
        if cq.is_some() {
            if kind.is_tx() {
                q.tx_res += 1;
            } else {
                q.rx_res += 1;
            }
        }
        let i = if kind.is_tx() {
            let Some(i) = q.tx_links.pop_front(&mut q.tx_free) else {
                q.unres(true);
                drop(g);
                unreserve(cq);
                return neg(bindings::EAGAIN);
            };
            // Every field is written (no initialiser copied over the
            // whole slot, under the lock): `inline` only when used, `rma`
            // only its `n_rma` entries.
            let op = &mut q.tx[i];
            op.kind = kind;
            op.flags = flags;
            op.context = x.context as usize;
            op.data = x.data;
            op.tag = x.tag;
            op.dest = x.addr;
            op.entry = entry;
            op.ext = X::init_tx(kind, flags);
            let inject = flags & rules::F_INJECT != 0;
            op.inject = inject;
            // More regions than fit here are in `rma_ext` (below).
            for k in 0..n_rma.min(rules::IOV_LIMIT) {
                op.rma[k] = rma[k];
            }
            op.n_rma = n_rma;
            op.len = moved;
            op.extra = extra;
            op.ep_cntr = !deferred;
            op.rma_ext = rma_table.into_parts().0;
            if kind.is_atomic() {
                op.atomic = AtomicArgs { datatype: x.atomic_type as u32, op: x.atomic_op as u32, result: x.result, compare: x.compare };
            }
            if inject {
                // Copy now: the caller may reuse its buffer on return.
                let l = len as usize;
                let n = base::copy_from_segs(segs, &mut X::inject_dst(&mut q.ext, op, i)[..l]);
                drop(seg_table);
                if n != l {
                    op.inject = false;
                    q.drop_slot(true, i);
                    drop(g);
                    unreserve(cq);
                    return neg(bindings::EINVAL);
                }
                op.buf.describe(&[], base::Table::NONE, len);
            } else {
                op.buf.describe(&x.seg[..nseg.min(rules::IOV_LIMIT)], seg_table, len);
            }
            q.tx_links.push_back(&mut q.tx_pending, i);
            i
        } else {
            let Some(i) = q.rx_links.pop_front(&mut q.rx_free) else {
                q.unres(false);
                drop(g);
                unreserve(cq);
                return neg(bindings::EAGAIN);
            };
            let multi = (flags & rules::F_MULTI_RECV != 0).then(|| MultiRecv::new(len, q.min_multi));
            // Field by field, as for a transmit: no whole slot is copied.
            let op = &mut q.rx[i];
            op.kind = kind;
            op.flags = flags;
            op.context = x.context as usize;
            op.buf.describe(&x.seg[..nseg.min(rules::IOV_LIMIT)], seg_table, len);
            op.tag = x.tag;
            op.ignore = x.ignore;
            // A directed receive names a peer: its handle without
            // receive-context bits (messages from any of its contexts
            // match, as their sources are reported).
            op.src = if q.cfg.directed && x.addr != rules::ADDR_ANY { x.addr & q.cfg.addr_mask } else { rules::ADDR_ANY };
            op.entry = entry;
            op.multi = multi;
            op.filling = false;
            op.cancelled = false;
            op.extra = extra;
            op.ep_cntr = !deferred;
            if kind.is_tagged() {
                q.rx_links.push_back(&mut q.rx_tag, i);
                // (Moved once more if the provider refuses the post: a
                // harmless extra look at the unexpected messages.)
                self.tag_posts.fetch_add(1, Ordering::AcqRel);
            } else {
                q.rx_links.push_back(&mut q.rx_msg, i);
            }
            i
        };
        // The provider moves it now or notes it for after the lock.
        let kick = match X::posted(self, q, kind, i) {
            Ok(k) => k,
            Err(e) => {
                let list = if kind.is_tx() {
                    &mut q.tx_pending
                } else if kind.is_tagged() {
                    &mut q.rx_tag
                } else {
                    &mut q.rx_msg
                };
                let links = if kind.is_tx() { &mut q.tx_links } else { &mut q.rx_links };
                links.remove_first(list, |j| j == i);
                q.drop_slot(kind.is_tx(), i);
                drop(g);
                unreserve(cq);
                return e;
            }
        };
        drop(g);
        if let Some(k) = kick {
            X::run_kick(k);
        }
        0
    }

    /// `kfi_cancel`: removes a posted receive with `context` and reports
    /// it with -KFI_ECANCELED; -ENOENT if there is none, -EBUSY if the
    /// provider holds it and cannot take it back ([`QueueExt::holds_rx`]). A
    /// multi-receive buffer a message is being received into is taken off
    /// its list now (no further message goes there) and released when
    /// that message is done (its entry first, then the cancellation:
    /// `piece_done`).
    pub(crate) fn cancel(&self, context: *mut c_void) -> isize {
        let ctx = context as usize;
        let mut g = self.q.lock();
        let q = &mut *g;
        // The first receive with `context`: tagged ones first, then
        // untagged (a multi-receive buffer already partly filled is
        // released the same way).
        let mut found = None;
        for (tagged, l) in [(true, &q.rx_tag), (false, &q.rx_msg)] {
            q.rx_links.for_each(l, |i| {
                if found.is_none() && q.rx[i].context == ctx {
                    found = Some((tagged, i));
                }
            });
            if found.is_some() {
                break;
            }
        }
        let Some((tagged, i)) = found else {
            return neg(if X::holds_rx(q, ctx) { bindings::EBUSY } else { bindings::ENOENT });
        };
        let list = if tagged { &mut q.rx_tag } else { &mut q.rx_msg };
        q.rx_links.remove_first(list, |j| j == i);
        if q.rx[i].filling {
            q.rx[i].cancelled = true;
            return 0;
        }
        let rep = q.cancelled_rx(i);
        drop(g);
        rep.deliver();
        0
    }

    // ---- the mover's side

    /// Transmit `i`, held by the mover, went out whole: completed now, or
    /// later by the provider ([`QueueExt::defer_tx`]).
    pub(crate) fn tx_complete(&self, i: usize) {
        let rep = {
            let mut g = self.q.lock();
            let q = &mut *g;
            if X::defer_tx(q, i) {
                return;
            }
            q.finish_tx(i)
        };
        rep.deliver();
    }

    /// Transmit `i`, held by the mover, failed (`err`, positive).
    pub(crate) fn tx_failed(&self, i: usize, err: u32) {
        let rep = {
            let mut g = self.q.lock();
            let q = &mut *g;
            let op = q.tx[i];
            q.tx[i].extra = None;
            q.free_tx(i);
            q.unres(true);
            q.moved.error(true);
            Report::failed(q.cfg.tx_cq, errc(op.kind, op.flags, op.context, err, true), q.cfg.cntrs.for_op(op.kind, op.ep_cntr)).with_extra(op.extra)
        };
        rep.deliver();
    }

    /// A remote write with CQ data landed: its entry on the receive CQ
    /// (`KFI_RMA | KFI_REMOTE_WRITE | KFI_REMOTE_CQ_DATA`), in the slot
    /// `take_remote_room` took.
    pub(crate) fn remote_write_data(&self, len: u64, data: u64) {
        let cq = {
            let mut g = self.q.lock();
            g.unres(false);
            g.cfg.rx_cq
        };
        let Some(cq) = cq else {
            return;
        };
        let c = Completion {
            op_context: 0,
            flags: rules::F_RMA | rules::F_REMOTE_WRITE | rules::F_REMOTE_CQ_DATA,
            len: len as usize,
            buf: 0,
            data,
            tag: 0,
            src: ADDR_NOTAVAIL,
        };
        // SAFETY: bound CQ, valid while bound.
        unsafe { &*cq }.complete(&c);
    }

    /// Takes a receive CQ slot for the entry of a remote write with CQ
    /// data, before its payload is read. `Full`: the payload waits (kfi_tcp:
    /// in the socket); the CQ tells the endpoint's progress when a read
    /// frees a slot (`Cq::reserve_or_wait`).
    pub(crate) fn take_remote_room(&self) -> Room {
        let mut g = self.q.lock();
        let Some(cq) = g.cfg.rx_cq else {
            return Room::NoCq;
        };
        // SAFETY: bound CQ, valid while bound.
        if !unsafe { &*cq }.reserve_or_wait() {
            return Room::Full;
        }
        g.rx_res += 1;
        Room::Taken
    }

    /// Returns a slot taken by `take_remote_room` whose entry will not be
    /// written (the transport ended).
    pub(crate) fn give_back_room(&self) {
        let cq = {
            let mut g = self.q.lock();
            g.unres(false);
            g.cfg.rx_cq
        };
        if let Some(cq) = cq {
            // SAFETY: bound CQ, valid while bound.
            unsafe { &*cq }.unreserve(1);
        }
    }

    /// Takes the receive for an untagged message of `len` bytes from
    /// `from` (an address handle, or [`rules::ADDR_ANY`]): the oldest
    /// posted untagged receive whose source filter takes it (a
    /// multi-receive buffer is carved; one too full for the message is
    /// released first). `None` if none is posted: the message waits
    /// (kfi_tcp: in the socket). `NoRoom` when the receive CQ has no slot
    /// for the entry of a message that would not release its
    /// multi-receive buffer (nothing is taken then). `stream`: the
    /// provider's data stream the message waits in
    /// ([`QueueExt::msg_waiting`]).
    pub(crate) fn rx_take_msg(&self, len: u64, from: u64, stream: u32) -> core::result::Result<Option<RxWork>, NoRoom> {
        let mut w = RxWork::IDLE;
        Ok(self.rx_take_msg_into(len, from, stream, &mut w)?.then_some(w))
    }

    /// [`EpQueues::rx_take_msg`] writing the receive into `out` (true),
    /// for a caller that keeps it in place: the hot path of a provider
    /// receiving one message after another.
    pub(crate) fn rx_take_msg_into(&self, len: u64, from: u64, stream: u32, out: &mut RxWork) -> core::result::Result<bool, NoRoom> {
        loop {
            let released = {
                let mut g = self.q.lock();
                let q = &mut *g;
                // Decided under the lock the posts take.
                let found = if q.cfg.directed {
                    let rx = &q.rx;
                    q.rx_links.find_first(&q.rx_msg, |i| rules::src_match(rx[i].src, from))
                } else {
                    q.rx_msg.front()
                };
                let Some(i) = found else {
                    X::msg_waiting(q, stream, true);
                    return Ok(false);
                };
                X::msg_waiting(q, stream, false);
                let Some(mut m) = q.rx[i].multi else {
                    q.rx_links.remove(&mut q.rx_msg, i);
                    out.op = q.rx[i];
                    (out.idx, out.offset, out.room, out.last, out.from) = (i, 0, out.op.buf.len, true, from);
                    return Ok(true);
                };
                let op = q.rx[i];
                let used = m.used;
                match m.carve(len) {
                    Some(c) => {
                        if !c.last {
                            // A message that does not release the buffer
                            // writes an entry of its own: its slot is
                            // taken now (the buffer's is for its last).
                            if let Some(cq) = q.cfg.rx_cq {
                                // SAFETY: bound CQ, valid while bound.
                                if !unsafe { &*cq }.reserve_or_wait() {
                                    return Err(NoRoom);
                                }
                                q.rx_res += 1;
                            }
                        }
                        q.rx[i].multi = Some(m);
                        if c.last {
                            q.rx_links.remove(&mut q.rx_msg, i);
                        } else {
                            q.rx[i].filling = true;
                        }
                        *out = RxWork { idx: i, op, offset: c.offset, room: len, last: c.last, from };
                        return Ok(true);
                    }
                    None if used == 0 => {
                        // Fresh buffer too small: truncation.
                        q.rx_links.remove(&mut q.rx_msg, i);
                        *out = RxWork { idx: i, op, offset: 0, room: m.len, last: true, from };
                        return Ok(true);
                    }
                    None => {
                        // Release the used buffer, try the next.
                        q.rx_links.remove(&mut q.rx_msg, i);
                        let buf = op.buf.addr(used);
                        q.rx[i].extra = None;
                        q.free_rx(i);
                        q.unres(false);
                        Some((q.cfg.rx_cq, op, buf))
                    }
                }
            };
            if let Some((cq, op, buf)) = released {
                let c = Completion {
                    op_context: op.context,
                    flags: op.kind.cq_flags() | rules::F_MULTI_RECV,
                    len: 0,
                    buf,
                    data: 0,
                    tag: 0,
                    src: ADDR_NOTAVAIL,
                };
                // The release always writes an entry (the consumer must
                // learn the buffer is back); it is no message to count.
                Report::done(cq, c, None).with_extra(op.extra).deliver();
            }
        }
    }

    /// Takes the oldest posted tagged receive matching `tag` from `from`,
    /// unless an older (unexpected) message, as told by `older(want,
    /// ignore, src)`, matches that receive too: then it is that message's,
    /// and the caller delivers it first (`Err(())`). `Ok(None)` if no
    /// receive matches.
    pub(crate) fn rx_take_tagged(&self, tag: u64, from: u64, older: impl Fn(u64, u64, u64) -> bool) -> core::result::Result<Option<RxWork>, ()> {
        let mut g = self.q.lock();
        let q = &mut *g;
        let rx = &q.rx;
        let mut conflict = false;
        let found = q.rx_links.remove_first(&mut q.rx_tag, |i| {
            // Peeks and claims look at messages already arrived only.
            let r = &rx[i];
            if rules::is_probe(r.flags) || !rules::tag_match(r.tag, r.ignore, tag) || !rules::src_match(r.src, from) {
                return false;
            }
            conflict = older(r.tag, r.ignore, r.src);
            !conflict
        });
        if conflict {
            return Err(());
        }
        Ok(found.map(|i| {
            let op = q.rx[i];
            RxWork { idx: i, op, offset: 0, room: op.buf.len, last: true, from }
        }))
    }

    /// Takes the oldest posted probe (a tagged receive with `KFI_PEEK`, or
    /// `KFI_CLAIM` fetching a claimed message): the mover answers it from
    /// the messages already arrived (`tagmatch.rs`).
    pub(crate) fn take_probe(&self) -> Option<RxWork> {
        let mut g = self.q.lock();
        let q = &mut *g;
        let rx = &q.rx;
        let i = q.rx_links.remove_first(&mut q.rx_tag, |i| rules::is_probe(rx[i].flags))?;
        let op = q.rx[i];
        // The source is the probed message's (set by whoever answers it).
        Some(RxWork { idx: i, op, offset: 0, room: op.buf.len, last: true, from: rules::ADDR_ANY })
    }

    /// A receive got its message: `len` bytes at `w.offset`, with the
    /// sender's CQ data (if it sent any) and tag.
    #[inline(always)]
    pub(crate) fn rx_done(&self, w: &RxWork, len: u64, data: Option<u64>, tag: u64) {
        self.rx_done_as(w, len, data, tag, w.op.kind.cq_flags());
    }

    /// As [`Self::rx_done`], the entry with `flags` instead of the
    /// receive's own: a receive consumed by a remote write with CQ data
    /// (an RDMA device's write with immediate data) reports
    /// `KFI_RMA | KFI_REMOTE_WRITE` (and `KFI_REMOTE_CQ_DATA`), no buffer,
    /// and the written length.
    pub(crate) fn rx_done_as(&self, w: &RxWork, len: u64, data: Option<u64>, tag: u64, flags: u64) {
        let mut released = None;
        let rep = {
            let mut g = self.q.lock();
            let q = &mut *g;
            // Read through the buffer's segment table before the last
            // message frees it with the slot.
            let buf = if flags & rules::F_RMA != 0 { 0 } else { w.op.buf.addr(w.offset) };
            if w.last {
                q.rx[w.idx].extra = None;
                q.free_rx(w.idx);
                q.unres(false);
            }
            q.moved.rx_ops += 1;
            q.moved.rx_bytes += len;
            let (cq, cntr) = (q.cfg.rx_cq, q.cfg.cntrs.for_op(w.op.kind, w.op.ep_cntr));
            let extra = if w.last { w.op.extra } else { None };
            let mut flags = flags;
            if data.is_some() {
                flags |= rules::F_REMOTE_CQ_DATA;
            }
            let multi = w.op.multi.is_some();
            if multi && w.last {
                flags |= rules::F_MULTI_RECV;
            }
            let c = Completion {
                op_context: w.op.context,
                flags,
                len: len as usize,
                buf,
                data: data.unwrap_or(0),
                tag: if w.op.kind.is_tagged() { tag } else { 0 },
                src: w.from,
            };
            if multi && !w.last {
                // A message that does not release its multi-receive buffer
                // has the slot it took in `rx_take_msg` (the buffer's is for
                // its last): an entry unless selective completion suppresses
                // it. The releasing entry is always written (fi_msg(3)).
                q.unres(false);
                released = q.piece_done(w.idx);
                if cq.is_some() && (w.op.entry || data.is_some()) {
                    Report::done(cq, c, cntr)
                } else {
                    Report::quiet(cq, cntr)
                }
            } else if cq.is_some() && (w.op.entry || data.is_some() || multi) {
                Report::done(cq, c, cntr).with_extra(extra)
            } else {
                Report::quiet(cq, cntr).with_extra(extra)
            }
        };
        rep.deliver();
        if let Some(r) = released {
            r.deliver();
        }
    }

    /// A receive failed (`err`, positive): `len` bytes landed, `olen` did
    /// not fit (truncation), or the transport failed under it.
    pub(crate) fn rx_failed(&self, w: &RxWork, err: u32, len: u64, olen: u64) {
        let mut released = None;
        let rep = {
            let mut g = self.q.lock();
            let q = &mut *g;
            let buf = w.op.buf.addr(w.offset);
            // A message that does not release its multi-receive buffer
            // fails alone, on its own reservation; the buffer stays posted
            // (and listed) until its last message or the flush, unless it
            // was cancelled meanwhile.
            let extra = if w.last {
                q.rx[w.idx].extra = None;
                q.free_rx(w.idx);
                w.op.extra
            } else {
                None
            };
            q.unres(false);
            q.moved.error(false);
            if !w.last {
                released = q.piece_done(w.idx);
            }
            let mut e = errc(w.op.kind, w.op.flags, w.op.context, err, w.last);
            e.len = len as usize;
            e.olen = olen as usize;
            e.buf = buf;
            Report::failed(q.cfg.rx_cq, e, q.cfg.cntrs.for_op(w.op.kind, w.op.ep_cntr)).with_extra(extra)
        };
        rep.deliver();
        if let Some(r) = released {
            r.deliver();
        }
    }

    /// A remote access of ours was served (`KFI_REMOTE_READ` when a read
    /// was answered, `KFI_REMOTE_WRITE` when a write landed): counted on
    /// the bound counter.
    pub(crate) fn remote_hit(&self, write: bool) {
        let c = {
            let g = self.q.lock();
            if write {
                g.cfg.cntrs.remote_write
            } else {
                g.cfg.cntrs.remote_read
            }
        };
        if let Some(c) = c {
            // SAFETY: bound counter, valid while bound.
            unsafe { &*c }.hit(false);
        }
    }

    /// The transport is gone: every queued operation fails with `err`
    /// (positive), the provider's held ones first
    /// ([`QueueExt::flush_next`]), then in posting order per queue, and
    /// later posts fail with -ENOTCONN.
    pub(crate) fn fail_all(&self, err: u32) {
        {
            let mut g = self.q.lock();
            g.down = true;
            X::failing(&mut *g);
        }
        self.fail_picked(err, |q| {
            if let Some(n) = X::flush_next(q) {
                Some(n)
            } else if let Some(i) = q.tx_links.pop_front(&mut q.tx_pending) {
                Some((true, i))
            } else if let Some(i) = q.rx_links.pop_front(&mut q.rx_msg) {
                Some((false, i))
            } else {
                q.rx_links.pop_front(&mut q.rx_tag).map(|i| (false, i))
            }
        });
    }

    /// Fails with `err` (positive) each operation `pick` takes off a list
    /// under `q`, as `(tx, slot)`, until it returns `None`: one at a time,
    /// each reported once `q` is dropped (a connectionless endpoint's
    /// provider fails one peer's transmits this way).
    pub(crate) fn fail_picked(&self, err: u32, mut pick: impl FnMut(&mut Queues<X>) -> Option<(bool, usize)>) {
        let mut g = self.q.lock();
        loop {
            let q = &mut *g;
            let Some((tx, i)) = pick(q) else {
                return;
            };
            let op = if tx {
                q.free_tx(i);
                let o = q.tx[i];
                q.tx[i].extra = None;
                (o.kind, o.flags, o.context, o.extra, o.ep_cntr)
            } else {
                q.free_rx(i);
                let o = q.rx[i];
                q.rx[i].extra = None;
                (o.kind, o.flags, o.context, o.extra, o.ep_cntr)
            };
            q.unres(tx);
            q.moved.error(tx);
            let rep = Report::failed(q.cq(tx), errc(op.0, op.1, op.2, err, true), q.cfg.cntrs.for_op(op.0, op.4)).with_extra(op.3);
            drop(g);
            rep.deliver();
            g = self.q.lock();
        }
    }

    /// Endpoint close, after the transport stopped: `f`, the provider's
    /// part, runs first under `q` (it empties its own lists and takes what
    /// it releases after); then the CQ reservations of the operations not
    /// reported (queued, or held by the stopped mover: they complete
    /// nowhere, the endpoint is gone) are returned.
    pub(crate) fn close_with<R>(&self, f: impl FnOnce(&mut Queues<X>) -> R) -> R {
        let (tx, rx, r, cfg) = {
            let mut g = self.q.lock();
            let q = &mut *g;
            let r = f(&mut *q);
            let (tx, rx) = (q.tx_res, q.rx_res);
            q.tx_res = 0;
            q.rx_res = 0;
            q.tx_pending = List::new();
            q.rx_msg = List::new();
            q.rx_tag = List::new();
            q.enabled = false;
            // Tables of the operations never reported (freed slots have
            // none left).
            for o in q.tx.iter_mut() {
                o.release();
            }
            for o in q.rx.iter_mut() {
                o.buf.release();
            }
            // Completion counters of released deferred work that will
            // never be reported.
            let extras = Iterator::chain(q.tx.iter_mut().map(|o| &mut o.extra), q.rx.iter_mut().map(|o| &mut o.extra));
            for e in extras {
                if let Some(c) = e.take() {
                    // SAFETY: counted as a user, hence open.
                    unsafe { &*c }.unuse();
                }
            }
            (tx, rx, r, q.cfg)
        };
        for (cq, n) in [(cfg.tx_cq, tx), (cfg.rx_cq, rx)] {
            if let (Some(cq), true) = (cq, n > 0) {
                // SAFETY: a bound CQ, still bound (the caller unbinds
                // after this returns).
                unsafe { &*cq }.unreserve(n);
            }
        }
        r
    }
}

/// The queues, as the toolkit's endpoint entries use them.
impl<X: QueueExt> EpXfer for EpQueues<X> {
    #[inline(always)]
    fn post(&self, x: &sys::kfi_util_xfer) -> isize {
        EpQueues::post(self, x)
    }

    fn cancel(&self, context: *mut c_void) -> isize {
        EpQueues::cancel(self, context)
    }

    fn min_multi(&self) -> u64 {
        EpQueues::min_multi(self)
    }

    fn set_min_multi(&self, v: u64) {
        EpQueues::set_min_multi(self, v)
    }

    fn trig_pending(&self) -> usize {
        EpQueues::trig_pending(self)
    }

    #[inline(always)]
    fn target(&self) -> &(dyn FireTarget + 'static) {
        self
    }
}

/// The receive queues, as unexpected-message matching sees them.
impl<X: QueueExt> TagQueues for EpQueues<X> {
    #[inline]
    fn tag_posts(&self) -> u64 {
        EpQueues::tag_posts(self)
    }
    #[inline]
    fn rx_take_tagged(&self, tag: u64, from: u64, older: impl Fn(u64, u64, u64) -> bool) -> core::result::Result<Option<RxWork>, ()> {
        EpQueues::rx_take_tagged(self, tag, from, older)
    }
    #[inline]
    fn take_probe(&self) -> Option<RxWork> {
        EpQueues::take_probe(self)
    }
    #[inline]
    fn rx_done(&self, w: &RxWork, len: u64, data: Option<u64>, tag: u64) {
        EpQueues::rx_done(self, w, len, data, tag)
    }
    #[inline]
    fn rx_failed(&self, w: &RxWork, err: u32, len: u64, olen: u64) {
        EpQueues::rx_failed(self, w, err, len, olen)
    }
    #[inline]
    fn owe_ack(&self, stream: u32) {
        X::owe_ack(self, stream)
    }
}

/// The endpoint as the trigger machinery sees it (`crate::trigger`): what
/// triggered operations and deferred work are checked against, reserve
/// their CQ slot on, and are posted on when they fire.
impl<X: QueueExt> FireTarget for EpQueues<X> {
    /// A triggered operation on this endpoint is queued.
    fn trig_inc(&self) {
        self.trig.fetch_add(1, Ordering::AcqRel);
    }

    /// It was issued or dropped.
    fn trig_dec(&self) {
        self.trig.fetch_sub(1, Ordering::AcqRel);
    }

    /// Takes the CQ slot of a triggered operation's completion when it is
    /// posted, as ordinary posts do (so that its entry, or error entry,
    /// always has room when it fires or is withdrawn). `Ok(true)`: taken;
    /// `Ok(false)`: no CQ is bound for its direction; `Err`: the CQ is
    /// full (-EAGAIN: the consumer reads it and retries).
    fn reserve_for(&self, x: &sys::kfi_util_xfer) -> core::result::Result<bool, isize> {
        let Some(kind) = kind_of(x) else {
            return Err(neg(bindings::EINVAL));
        };
        let cq = self.q.lock().cq(kind.is_tx());
        let Some(cq) = cq else {
            return Ok(false);
        };
        // SAFETY: bound CQ, valid while bound (the endpoint cannot close
        // while a triggered operation of it is pending).
        if unsafe { &*cq }.try_reserve(1) {
            Ok(true)
        } else {
            Err(neg(bindings::EAGAIN))
        }
    }

    /// Returns a slot taken by [`FireTarget::reserve_for`] whose entry will
    /// not be written (withdrawn deferred work, a post that failed).
    fn unreserve_for(&self, x: &sys::kfi_util_xfer) {
        let Some(kind) = kind_of(x) else {
            return;
        };
        if let Some(cq) = self.q.lock().cq(kind.is_tx()) {
            // SAFETY: as in `reserve_for`.
            unsafe { &*cq }.unreserve(1);
        }
    }

    /// A triggered operation that will not be queued after all (cancelled
    /// before it fired, or refused when it fired): an error entry with
    /// `err` in the CQ slot `reserve_for` took when it was posted, counted
    /// on the bound counter (not for deferred work) and on `extra`.
    fn report_lost(&self, x: &sys::kfi_util_xfer, err: u32, extra: Option<*const Cntr>, deferred: bool) {
        let kind = kind_of(x).unwrap_or(Kind::Write);
        let (cq, cntr) = {
            let g = self.q.lock();
            (g.cq(kind.is_tx()), g.cfg.cntrs.for_op(kind, !deferred))
        };
        let e = errc(kind, x.flags, x.context as usize, err, true);
        Report { cq, what: What::Failed(e), cntr, extra }.deliver();
    }

    /// Checks a transfer as [`EpQueues::post`] would, queuing nothing (a
    /// triggered post: mistakes are reported at once, not when it fires).
    ///
    /// On success `x` is rewritten to fire as posted now: its flags become
    /// the ones the post has (the endpoint's default op flags included) and
    /// it counts as a `*msg` call (the defaults are not applied again).
    fn check(&self, x: &mut sys::kfi_util_xfer) -> isize {
        self.check_as(x, Post::Check { deferred: false })
    }

    /// [`FireTarget::check`] for deferred work: it needs a CQ only if it asks
    /// for a completion entry (`KFI_COMPLETION`); a `completion_cntr`, or
    /// nothing, is enough otherwise (fi_trigger(3)).
    fn check_deferred(&self, x: &mut sys::kfi_util_xfer) -> isize {
        self.check_as(x, Post::Check { deferred: true })
    }

    /// Posts a transfer released by a trigger; `extra` is a deferred
    /// work's completion counter (its use count travels with the
    /// operation, released when it is reported, or by the caller on
    /// failure).
    fn post_fired(&self, x: &sys::kfi_util_xfer, extra: Option<*const Cntr>, deferred: bool) -> isize {
        self.post_as(x, Post::Fired { extra, deferred }, &mut 0)
    }
}

/// A CQ makes progress on an endpoint through the provider's hook.
impl<X: QueueExt> ProgressSource for EpQueues<X> {
    type Ref<'a> = X::Progress<'a>;
    const POLL_IDLE: bool = X::POLL_IDLE;

    #[inline]
    fn progress_ref(&self) -> Option<X::Progress<'_>> {
        X::progress_ref(self)
    }
}
