// SPDX-License-Identifier: GPL-2.0
//! The data-transfer queues of an endpoint: posting (`kfi_send`,
//! `kfi_recv`, `kfi_tsend`, ... all arrive as one [`sys::kfi_util_xfer`]),
//! cancel, and the hand-over of operations to the connection's work item,
//! which moves the bytes (`data.rs`) and reports completions through the
//! functions here.
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
//! `SpinLockBh` (`q`), taken briefly by posts, cancel and the work item;
//! nothing sleeps or calls out under it except `Cq::try_reserve` (the CQ's
//! own BH spinlock: order q → CQ). Completions are written to the CQ after
//! `q` is dropped (the CQ calls the consumer's handler). The slot of an
//! operation the work item is moving stays allocated and off every list
//! until the work item reports it done; only the work item frees such
//! slots, so the buffer description it copied stays the consumer's.
//!
//! # Slot lifecycle
//! tx: free → `tx_pending` (posted) → taken by the work item → done, or
//! `tx_await` (sent with an ACK requested) → done on the ACK. rx: free →
//! `rx_msg` / `rx_tag` (posted) → taken by the work item (a multi-receive
//! buffer stays at the head of `rx_msg` until released) → done. Every
//! operation ends with exactly one of: a completion entry, an error entry,
//! or (successful without an entry: inject calls, selective completion)
//! the return of its CQ reservation.

use crate::util::base;
use crate::util::xfer::{self as records, errc, kind_of, Buf, Cntrs, Report, RxOp, RxWork, Seg, TxOp, What, RX_INIT, TX_INIT};
use crate::trigger::cntr::Cntr;
use crate::trigger::target::FireTarget;
use crate::conn::{Conn, Progress};
use crate::util::cq::{Cq, ProgressRef, ProgressSource};
use crate::domain::Domain;
use crate::ffi::sys;
use crate::wire::RmaIov;
use crate::logic::cq::Completion;
use crate::logic::xfer::{self as rules, Kind, Links, List, MultiRecv};
use crate::logic::xfer_tcp as wire_rules;
use crate::util::sync::{new_spinlock_bh, SpinLockBh};
use crate::util::tagmatch::TagQueues;
use core::ffi::c_void;
use core::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use kernel::bindings;
use kernel::prelude::*;
use kernel::sync::Arc;

/// Largest queue an endpoint accepts (slots are preallocated).
pub(crate) const MAX_QUEUE: usize = 4096;

/// What kfi_tcp keeps in a transmit operation (its `ext`).
#[derive(Clone, Copy)]
pub(crate) struct TxTcp {
    /// Ask the peer for an ACK and complete on it.
    pub(crate) ack: bool,
    /// Responses received so far of a read sent as several requests.
    pub(crate) rsp_got: usize,
    /// Requests of a read sent whole so far: a response beyond them is
    /// the peer's protocol error (it answered what it cannot have read),
    /// not the end of a read whose requests are still going out.
    pub(crate) req_sent: usize,
}

impl TxTcp {
    /// A free slot's.
    pub(crate) const INIT: TxTcp = TxTcp { ack: false, rsp_got: 0, req_sent: 0 };
}

/// One frame's share of an RMA (see [`TxOp::chunk`]).
pub(crate) struct Chunk {
    /// Its remote regions (`n` of them).
    pub(crate) regs: [RmaIov; wire_rules::WIRE_RMA_IOVS],
    pub(crate) n: usize,
    /// Where its bytes start in the local buffer, and how many.
    pub(crate) offset: u64,
    pub(crate) len: u64,
    /// The operation's last frame.
    pub(crate) last: bool,
}

impl Chunk {
    /// The only frame of an operation that is not an RMA.
    pub(crate) const WHOLE: Chunk =
        Chunk { regs: [RmaIov { addr: 0, len: 0, key: 0 }; wire_rules::WIRE_RMA_IOVS], n: 0, offset: 0, len: 0, last: true };
}

impl TxOp {
    /// Frames the operation is sent as (an RMA over more regions than a
    /// frame carries is several).
    pub(crate) fn chunks(&self) -> usize {
        if self.kind.is_rma() {
            wire_rules::rma_chunks(self.n_rma)
        } else {
            1
        }
    }

    /// Frame `j` of an RMA: its regions, and its part of the local buffer
    /// (what a write sends, where a read's response lands).
    #[inline]
    pub(crate) fn chunk(&self, j: usize) -> Chunk {
        if !self.kind.is_rma() {
            return Chunk::WHOLE;
        }
        let w = wire_rules::WIRE_RMA_IOVS;
        let first = j * w;
        let n = self.n_rma.saturating_sub(first).min(w);
        let offset = (0..first.min(self.n_rma)).map(|i| self.region(i).len).sum();
        let mut c = Chunk { regs: [RmaIov::default(); wire_rules::WIRE_RMA_IOVS], n, offset, len: 0, last: j + 1 >= self.chunks() };
        for k in 0..n {
            let r = self.region(first + k);
            c.regs[k] = RmaIov { addr: r.addr, len: r.len, key: r.key };
            c.len += r.len;
        }
        if self.kind == Kind::Write && c.last {
            // A write may send less than its regions hold: the last frame
            // ends with the payload.
            c.len = self.len.saturating_sub(offset).min(c.len);
        }
        c
    }
}

/// How [`EpData::post_as`] treats a transfer.
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
    /// The endpoint's domain (its MR table serves remote accesses).
    pub(crate) domain: *const Domain,
    pub(crate) cntrs: Cntrs,
}

impl Config {
    /// The CPU the connection's work runs on: `KFI_AFFINITY` of the
    /// receive CQ, else of the transmit CQ (see `cq.rs`).
    fn io_cpu(&self) -> Option<u32> {
        // SAFETY: bound CQs, valid while bound (see `Queues`).
        let cpu = |cq: Option<*const Cq>| cq.and_then(|c| unsafe { &*c }.cpu());
        cpu(self.rx_cq).or_else(|| cpu(self.tx_cq))
    }
}

/// What `q` protects.
struct Queues {
    /// Set by `kfi_enable` (slots allocated); posts before fail.
    enabled: bool,
    /// The connection failed or was shut down: posts fail with -ENOTCONN
    /// (receives and sends queued before are flushed with errors).
    down: bool,
    /// The connection, for kicking its work item after a post.
    conn: Option<Arc<Conn>>,
    /// An untagged message waits in the connection for a receive (the
    /// last `rx_take_msg` found none): an untagged receive posted now must
    /// make progress (otherwise nothing waits for it).
    msg_waiting: bool,
    cfg: Config,
    /// `KFI_OPT_MIN_MULTI_RECV`.
    min_multi: u64,
    tx: KVVec<TxOp>,
    tx_links: Links<KVVec<u32>>,
    /// Free slots, the last freed first (`Links::push_front`).
    tx_free: List,
    tx_pending: List,
    tx_await: List,
    /// Read requests sent, waiting for their responses (in order).
    tx_read: List,
    rx: KVVec<RxOp>,
    rx_links: Links<KVVec<u32>>,
    rx_free: List,
    rx_msg: List,
    rx_tag: List,
    /// ACKs the work item still has to send.
    acks_owed: usize,
    /// CQ entries reserved by operations not reported yet (returned at
    /// close for the operations that never complete).
    tx_res: usize,
    rx_res: usize,
}

// SAFETY: the CQ and counter pointers stay valid while the endpoint is
// bound to them (they refuse to close while bound); the rest is owned data.
unsafe impl Send for Queues {}

impl Queues {
    /// Frees transmit slot `i` (its tables with it).
    #[inline]
    fn free_tx(&mut self, i: usize) {
        self.tx[i].release();
        self.tx_links.push_front(&mut self.tx_free, i);
    }

    /// Frees receive slot `i` (its table with it).
    #[inline]
    fn free_rx(&mut self, i: usize) {
        self.rx[i].buf.release();
        self.rx_links.push_front(&mut self.rx_free, i);
    }

    /// An operation that held a CQ reservation is reported.
    fn unres(&mut self, tx: bool) {
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
}

/// The next frame to send, as [`EpData::tx_next`] shows it (under the
/// queue lock).
pub(crate) enum TxItem<'a> {
    /// An ACK to send.
    Ack,
    /// The operation in slot `.0`.
    Op(usize, &'a TxOp),
}

/// What [`EpData::tx_next`] took.
pub(crate) struct TxTaken {
    /// The operation's slot (`None`: an ACK).
    pub(crate) slot: Option<usize>,
    /// More frames are queued behind it (`MSG_MORE`).
    pub(crate) more: bool,
    /// The caller's `fill` took it (false: the operation could not be
    /// encoded; it is the caller's to fail).
    pub(crate) ok: bool,
}

/// The data-transfer side of an endpoint.
#[pin_data]
pub(crate) struct EpData {
    #[pin]
    q: SpinLockBh<Queues>,
    /// Triggered operations on this endpoint not issued yet (pending or
    /// due); the endpoint cannot close while any is.
    trig: AtomicUsize,
    /// Tagged receives posted so far (the work item matches unexpected
    /// messages again only when this moved).
    tag_posts: AtomicU64,
    /// [`ConnRef`]s out: consumers' calls making progress on the
    /// connection; `close` waits for them before it lets go of it.
    calls: AtomicUsize,
    /// Frames may be queued to send (posted transmits, owed ACKs): set
    /// under `q` when one is queued, cleared under `q` by `tx_next` when it
    /// leaves none. Seen clear, `tx_next` returns at once without the lock:
    /// a frame queued meanwhile is moved by its poster's own progress, or
    /// by the work item that poster kicks when the connection is busy.
    tx_hint: AtomicBool,
}

impl TagQueues for EpData {
    #[inline]
    fn tag_posts(&self) -> u64 {
        EpData::tag_posts(self)
    }
    #[inline]
    fn rx_take_tagged(&self, tag: u64, older: impl Fn(u64, u64) -> bool) -> core::result::Result<Option<RxWork>, ()> {
        EpData::rx_take_tagged(self, tag, older)
    }
    #[inline]
    fn take_probe(&self) -> Option<RxWork> {
        EpData::take_probe(self)
    }
    #[inline]
    fn rx_done(&self, w: &RxWork, len: u64, data: Option<u64>, tag: u64) {
        EpData::rx_done(self, w, len, data, tag)
    }
    #[inline]
    fn rx_failed(&self, w: &RxWork, err: u32, len: u64, olen: u64) {
        EpData::rx_failed(self, w, err, len, olen)
    }
    #[inline]
    fn owe_ack(&self) {
        EpData::owe_ack(self)
    }
}

/// The connection of an endpoint, taken by a consumer's call to make
/// progress on it (`Conn::progress`). While one exists the endpoint does
/// not drop its own reference (see [`EpData::wait_calls`]), so dropping
/// this one is never the last, whatever the context.
pub(crate) struct ConnRef<'a> {
    ep: &'a EpData,
    conn: Option<Arc<Conn>>,
    /// No CQ of the endpoint has a completion handler: its consumer polls,
    /// and its own calls may move the data. (With a handler they do not:
    /// completing an operation calls the handler, and a consumer may hold,
    /// around its posts and reads, a lock its handler takes; so handlers
    /// are only ever called from the work item, as before.)
    quiet: bool,
}

impl ConnRef<'_> {
    /// After a post: moves what the connection can move now and leaves the
    /// rest to its work item.
    pub(crate) fn after_post(&self) {
        if let Some(c) = &self.conn {
            if !self.quiet || c.progress() != Progress::Done {
                c.kick();
            }
        }
    }

    /// Queues the connection's work item (a CQ freed room it waits for).
    pub(crate) fn kick(&self) {
        if let Some(c) = &self.conn {
            c.kick();
        }
    }

    /// From a CQ read (of an endpoint without completion handlers): moves
    /// what the connection can move now. The work item is kicked only if
    /// it has to take over; the socket's callbacks kicked it for anything
    /// else, or armed its backstop timer. `polling`: a read that does not
    /// block (it comes back soon). True if it left work for a later read
    /// (the connection stays marked).
    pub(crate) fn poll(&self, polling: bool) -> bool {
        let Some(c) = &self.conn else {
            return false;
        };
        if !self.quiet {
            return false;
        }
        // Nothing happened on the socket since the last poll finished:
        // nothing to do (posts make their own progress).
        if !c.take_dirty() {
            return false;
        }
        match c.progress() {
            Progress::Done => false,
            Progress::Work => {
                c.set_dirty();
                c.kick();
                true
            }
            Progress::Busy | Progress::Off => {
                c.set_dirty();
                if !polling {
                    // A blocking reader does not come back soon: the
                    // work item takes over (the socket event that woke
                    // the reader did not kick it).
                    c.kick();
                }
                true
            }
        }
    }
}

impl Drop for ConnRef<'_> {
    fn drop(&mut self) {
        drop(self.conn.take());
        self.ep.calls.fetch_sub(1, Ordering::AcqRel);
    }
}

/// No CQ bound in `cfg` has a completion handler (see [`ConnRef`]).
#[inline]
fn quiet(cfg: &Config) -> bool {
    // SAFETY: bound CQs, valid while bound.
    [cfg.tx_cq, cfg.rx_cq].iter().flatten().all(|&cq| !unsafe { &*cq }.has_handler())
}

/// The receive CQ has no free slot for the entry of the message being
/// matched (a multi-receive buffer's, [`EpData::rx_take_msg`]): the
/// message waits; the CQ kicks the work item when a read frees a slot.
pub(crate) struct NoRoom;

/// A receive CQ slot for a remote write's entry ([`EpData::take_remote_room`]).
pub(crate) enum Room {
    /// Taken: the entry is written when the payload is in.
    Taken,
    /// The CQ is full: try again when a read frees a slot.
    Full,
    /// No receive CQ is bound: the entry cannot be written.
    NoCq,
}

/// The kind of transfer the C wrapper built (`None` for an unknown one).
fn neg(e: u32) -> isize {
    -(e as isize)
}

impl EpData {
    /// Initialiser of the empty (not enabled) queues.
    pub(crate) fn new() -> impl PinInit<EpData> {
        pin_init!(EpData {
            q <- new_spinlock_bh!(Queues {
                enabled: false,
                down: false,
                conn: None,
                msg_waiting: false,
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
                },
                min_multi: 0,
                tx: KVVec::new(),
                tx_links: Links::new(KVVec::new()),
                tx_free: List::new(),
                tx_pending: List::new(),
                tx_await: List::new(),
                tx_read: List::new(),
                rx: KVVec::new(),
                rx_links: Links::new(KVVec::new()),
                rx_free: List::new(),
                rx_msg: List::new(),
                rx_tag: List::new(),
                acks_owed: 0,
                tx_res: 0,
                rx_res: 0,
            }, "kfi_tcp_ep_q"),
            trig: AtomicUsize::new(0),
            tag_posts: AtomicU64::new(0),
            calls: AtomicUsize::new(0),
            tx_hint: AtomicBool::new(false),
        })
    }

    /// `kfi_enable`: allocates the slots (process context).
    pub(crate) fn enable(&self, cfg: Config) -> Result {
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
        // The old vectors (empty: enable happens once) are dropped after
        // the lock is released.
        let old = {
            let mut g = self.q.lock();
            if g.enabled {
                return Err(EINVAL);
            }
            g.cfg = cfg;
            if let Some(c) = &g.conn {
                c.set_cpu(cfg.io_cpu());
            }
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
        Ok(())
    }

    /// The connection, for a consumer's call to make progress on it.
    #[inline]
    pub(crate) fn conn_ref(&self) -> Option<ConnRef<'_>> {
        let g = self.q.lock();
        self.take_conn(&g)
    }

    #[inline]
    fn take_conn(&self, q: &Queues) -> Option<ConnRef<'_>> {
        let c = q.conn.as_ref()?.clone();
        // Counted under the lock that `close` takes the connection under.
        self.calls.fetch_add(1, Ordering::AcqRel);
        Some(ConnRef { ep: self, conn: Some(c), quiet: quiet(&q.cfg) })
    }

    /// The bound CQs (each once) if none has a completion handler, for
    /// the connection to tell about socket events (see `Conn`'s
    /// `event_cqs`); nulls otherwise.
    pub(crate) fn quiet_cqs(&self) -> [*const Cq; 2] {
        let g = self.q.lock();
        let none = [core::ptr::null(); 2];
        if !quiet(&g.cfg) {
            return none;
        }
        match (g.cfg.tx_cq, g.cfg.rx_cq) {
            (Some(t), Some(r)) if t == r => [t, core::ptr::null()],
            (t, r) => [t.unwrap_or(none[0]), r.unwrap_or(none[1])],
        }
    }

    /// Waits until no consumer's call holds the connection (endpoint
    /// close, after taking it out of the queues; process context).
    pub(crate) fn wait_calls(&self) {
        while self.calls.load(Ordering::Acquire) != 0 {
            base::sleep_briefly();
        }
    }

    /// Attaches the connection whose work item moves the data.
    pub(crate) fn set_conn(&self, c: Option<Arc<Conn>>) -> Option<Arc<Conn>> {
        let mut g = self.q.lock();
        if let Some(c) = &c {
            g.down = false;
            if g.enabled {
                c.set_cpu(g.cfg.io_cpu());
            }
        }
        core::mem::replace(&mut g.conn, c)
    }

    /// Tagged receives posted so far.
    pub(crate) fn tag_posts(&self) -> u64 {
        self.tag_posts.load(Ordering::Acquire)
    }

    /// Triggered operations not issued yet.
    pub(crate) fn trig_pending(&self) -> usize {
        self.trig.load(Ordering::Acquire)
    }

    /// `KFI_OPT_MIN_MULTI_RECV`.
    pub(crate) fn min_multi(&self) -> u64 {
        self.q.lock().min_multi
    }

    /// Sets `KFI_OPT_MIN_MULTI_RECV`.
    pub(crate) fn set_min_multi(&self, v: u64) {
        self.q.lock().min_multi = v;
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
        // The trigger flag is handled before (`trig.rs`); a released
        // operation has it removed.
        if x.flags & rules::F_TRIGGER != 0 {
            return neg(bindings::EINVAL);
        }
        let nseg = x.nseg as usize;
        if nseg > rules::IOV_MAX {
            return neg(bindings::EINVAL);
        }
        let mut buf = Buf::EMPTY;
        // Longer lists are described in tables of their own, owned here
        // until the operation's slot takes them (freed on every early
        // return).
        let mut seg_table = base::Table::NONE;
        if nseg > rules::IOV_LIMIT {
            // SAFETY: the C wrappers set `ext_desc` to the consumer's list
            // of `nseg` entries, readable during the call (or the
            // provider's own table for a triggered operation).
            seg_table = match unsafe { base::segs_table(x.ext_type, x.ext_desc, nseg) } {
                Ok(t) => t,
                Err(e) => return e as isize,
            };
        } else {
            for (d, s) in buf.segs.iter_mut().zip(&x.seg[..nseg]) {
                *d = *s;
            }
        }
        let segs: &[Seg] = if seg_table.is_some() { seg_table.as_slice() } else { &buf.segs[..nseg] };
        let len = segs.iter().fold(0u64, |a, s| a.saturating_add(s.len as u64));
        buf.nseg = nseg;
        buf.len = len;
        let mut rma = [records::RmaIov::default(); rules::IOV_LIMIT];
        let mut rma_table = base::Table::NONE;
        let mut n_rma = 0;
        let mut moved = len;
        if kind.is_rma() {
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
            moved = match rules::check_rma_total(kind, len, n_rma, total) {
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
        let defaults = if kind.is_tx() { cfg.tx_flags } else { cfg.rx_flags };
        // Default op flags that do not apply to this kind are ignored.
        let flags = if x.msg_call { x.flags } else { x.flags | (defaults & kind.allowed_flags()) };
        if let Err(e) = rules::check_post(kind, flags, nseg, len, cfg.max_msg) {
            return e.errno() as isize;
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
        if kind.is_tx() {
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
            op.entry = entry;
            op.ext = TxTcp { ack: wire_rules::wants_ack(flags), rsp_got: 0, req_sent: 0 };
            op.inject = flags & rules::F_INJECT != 0;
            // More regions than fit here are in `rma_ext` (below).
            for k in 0..n_rma.min(rules::IOV_LIMIT) {
                op.rma[k] = rma[k];
            }
            op.n_rma = n_rma;
            op.len = moved;
            op.extra = extra;
            op.ep_cntr = !deferred;
            op.rma_ext = rma_table.into_parts().0;
            if seg_table.is_some() {
                buf.ext = seg_table.into_parts().0;
            }
            if op.inject {
                // Copy now: the caller may reuse its buffer on return.
                let l = len as usize;
                let n = base::copy_from_segs(buf.segs(), &mut op.inline[..l]);
                buf.release();
                if n != l {
                    op.inject = false;
                    q.free_tx(i);
                    q.unres(true);
                    drop(g);
                    unreserve(cq);
                    return neg(bindings::EINVAL);
                }
                op.buf = Buf::EMPTY;
                op.buf.len = len;
            } else {
                op.buf = buf;
            }
            q.tx_links.push_back(&mut q.tx_pending, i);
            self.tx_hint.store(true, Ordering::SeqCst);
        } else {
            let Some(i) = q.rx_links.pop_front(&mut q.rx_free) else {
                q.unres(false);
                drop(g);
                unreserve(cq);
                return neg(bindings::EAGAIN);
            };
            if seg_table.is_some() {
                buf.ext = seg_table.into_parts().0;
            }
            let multi = (flags & rules::F_MULTI_RECV != 0).then(|| MultiRecv::new(len, q.min_multi));
            q.rx[i] = RxOp {
                kind,
                flags,
                context: x.context as usize,
                buf,
                tag: x.tag,
                ignore: x.ignore,
                entry,
                multi,
                filling: false,
                cancelled: false,
                extra,
                ep_cntr: !deferred,
            };
            if kind.is_tagged() {
                q.rx_links.push_back(&mut q.rx_tag, i);
                self.tag_posts.fetch_add(1, Ordering::AcqRel);
            } else {
                q.rx_links.push_back(&mut q.rx_msg, i);
            }
        }
        // Move it now if the connection allows (outside the lock), else
        // its work item does. An untagged receive only matters to a
        // message already waiting for one; otherwise the message that
        // takes it will find it.
        if !kind.is_tx() && !kind.is_tagged() && !q.msg_waiting {
            return 0;
        }
        let conn = self.take_conn(q);
        drop(g);
        if let Some(c) = conn {
            c.after_post();
        }
        0
    }

    /// `kfi_cancel`: removes a posted receive with `context` and reports
    /// it with -KFI_ECANCELED; -ENOENT if there is none. A multi-receive
    /// buffer a message is being received into is taken off its list now
    /// (no further message goes there) and released when that message is
    /// done (its entry first, then the cancellation: `piece_done`).
    pub(crate) fn cancel(&self, context: *mut c_void) -> isize {
        let ctx = context as usize;
        let mut g = self.q.lock();
        let q = &mut *g;
        let rx = &q.rx;
        let found = match q.rx_links.remove_first(&mut q.rx_tag, |i| rx[i].context == ctx) {
            Some(i) => Some(i),
            // A multi-receive buffer already partly filled is released
            // the same way.
            None => q.rx_links.remove_first(&mut q.rx_msg, |i| rx[i].context == ctx),
        };
        let Some(i) = found else {
            return neg(bindings::ENOENT);
        };
        if q.rx[i].filling {
            q.rx[i].cancelled = true;
            return 0;
        }
        let rep = q.cancelled_rx(i);
        drop(g);
        rep.deliver();
        0
    }

    // ---- the work item's side

    /// Takes the next thing to transmit: an owed ACK first (between
    /// frames), else the oldest posted operation. `fill` sees it under the
    /// queue lock (the operation stays in its slot: nothing is copied but
    /// what `fill` takes) and says whether it took it. `None` when nothing
    /// is queued.
    pub(crate) fn tx_next(&self, fill: impl FnOnce(TxItem<'_>) -> bool) -> Option<TxTaken> {
        if !self.tx_hint.load(Ordering::SeqCst) {
            return None;
        }
        let mut g = self.q.lock();
        let q = &mut *g;
        let (slot, ok) = if q.acks_owed > 0 {
            q.acks_owed -= 1;
            (None, fill(TxItem::Ack))
        } else if let Some(i) = q.tx_links.pop_front(&mut q.tx_pending) {
            let ok = fill(TxItem::Op(i, &q.tx[i]));
            if ok && q.tx[i].kind == Kind::Read {
                // A read waits for its responses from the moment its first
                // request starts out: one sent as several requests may
                // have responses back before its last request is sent.
                q.tx_links.push_back(&mut q.tx_read, i);
            }
            (Some(i), ok)
        } else {
            self.tx_hint.store(false, Ordering::SeqCst);
            return None;
        };
        let more = q.acks_owed > 0 || !q.tx_pending.is_empty();
        if !more {
            self.tx_hint.store(false, Ordering::SeqCst);
        }
        Some(TxTaken { slot, more, ok })
    }

    /// Frames may be queued to send (`tx_hint`, no lock).
    pub(crate) fn tx_queued(&self) -> bool {
        self.tx_hint.load(Ordering::SeqCst)
    }

    /// Whether frames are queued (for `MSG_MORE` after a read response).
    pub(crate) fn tx_more(&self) -> bool {
        let g = self.q.lock();
        g.acks_owed > 0 || !g.tx_pending.is_empty()
    }

    /// A transmit (not a read: those wait on `tx_read` from `tx_next`)
    /// went out whole: completed now, or on the peer's ACK.
    pub(crate) fn tx_sent(&self, idx: usize) {
        let rep = {
            let mut g = self.q.lock();
            let q = &mut *g;
            if q.tx[idx].ext.ack {
                q.tx_links.push_back(&mut q.tx_await, idx);
                Report::NONE
            } else {
                Self::tx_finish(q, idx)
            }
        };
        rep.deliver();
    }

    /// The peer acknowledged the oldest transmit that asked for it;
    /// false if none did (a protocol error).
    pub(crate) fn ack_received(&self) -> bool {
        let rep = {
            let mut g = self.q.lock();
            let q = &mut *g;
            let Some(i) = q.tx_links.pop_front(&mut q.tx_await) else {
                return false;
            };
            Self::tx_finish(q, i)
        };
        rep.deliver();
        true
    }

    /// The oldest outstanding read is the one the response that just
    /// arrived answers: its slot, its buffer, and the part of it this
    /// response fills (`None`: no read is outstanding, or the peer answered
    /// a request not sent yet: a protocol error). A read sent as
    /// several requests stays outstanding until its last response
    /// (`Chunk::last`), which takes it off the list.
    pub(crate) fn read_take(&self) -> Option<(usize, Buf, Chunk)> {
        let mut g = self.q.lock();
        let q = &mut *g;
        let i = q.tx_read.front()?;
        let op = &mut q.tx[i];
        if op.ext.rsp_got >= op.ext.req_sent {
            // A response to a request not sent yet.
            return None;
        }
        let c = op.chunk(op.ext.rsp_got);
        op.ext.rsp_got += 1;
        let buf = op.buf;
        if c.last {
            q.tx_links.pop_front(&mut q.tx_read);
        }
        Some((i, buf, c))
    }

    /// A request frame of the read in slot `i` (held by the work item) is
    /// in the socket.
    pub(crate) fn read_req_sent(&self, i: usize) {
        self.q.lock().tx[i].ext.req_sent += 1;
    }

    /// Calls `f` with the transmit in slot `i`, which the work item holds
    /// (to encode the next frame of an operation sent as several).
    pub(crate) fn with_tx<R>(&self, i: usize, f: impl FnOnce(&TxOp) -> R) -> R {
        let g = self.q.lock();
        f(&g.tx[i])
    }

    /// A read's response is in its buffer.
    pub(crate) fn read_done(&self, idx: usize) {
        let rep = {
            let mut g = self.q.lock();
            Self::tx_finish(&mut g, idx)
        };
        rep.deliver();
    }

    /// The domain (for the RMA target path).
    pub(crate) fn domain(&self) -> *const Domain {
        self.q.lock().cfg.domain
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
        };
        // SAFETY: bound CQ, valid while bound.
        unsafe { &*cq }.complete(&c);
    }

    /// Takes a receive CQ slot for the entry of a remote write with CQ
    /// data, before its payload is read (the work item). `Full`: the
    /// frame waits in the socket; the CQ kicks the connection's work item
    /// when a read frees a slot (`Cq::reserve_or_wait`).
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
    /// written (the connection ended).
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

    fn tx_finish(q: &mut Queues, i: usize) -> Report {
        let op = q.tx[i];
        q.tx[i].extra = None;
        q.free_tx(i);
        q.unres(true);
        let (cq, cntr) = (q.cfg.tx_cq, q.cfg.cntrs.for_op(op.kind, op.ep_cntr));
        if !op.entry {
            return Report::quiet(cq, cntr).with_extra(op.extra);
        }
        let c = Completion { op_context: op.context, flags: op.kind.cq_flags(), len: op.len as usize, buf: 0, data: 0, tag: 0 };
        Report::done(cq, c, cntr).with_extra(op.extra)
    }

    /// Owes the peer one ACK (a received message asked for it).
    pub(crate) fn owe_ack(&self) {
        let mut g = self.q.lock();
        g.acks_owed += 1;
        self.tx_hint.store(true, Ordering::SeqCst);
    }

    /// Takes the receive for an untagged message of `len` bytes: the
    /// oldest posted untagged receive (a multi-receive buffer is carved;
    /// one too full for the message is released first). `None` if none is
    /// posted: the message waits in the socket. `NoRoom` when the receive
    /// CQ has no slot for the entry of a message that would not release
    /// its multi-receive buffer (nothing is taken then).
    pub(crate) fn rx_take_msg(&self, len: u64) -> core::result::Result<Option<RxWork>, NoRoom> {
        loop {
            let released = {
                let mut g = self.q.lock();
                let q = &mut *g;
                // Decided under the lock the posts take (see `msg_waiting`).
                let Some(i) = q.rx_msg.front() else {
                    q.msg_waiting = true;
                    return Ok(None);
                };
                q.msg_waiting = false;
                let op = q.rx[i];
                let Some(mut m) = op.multi else {
                    q.rx_links.pop_front(&mut q.rx_msg);
                    return Ok(Some(RxWork { idx: i, op, offset: 0, room: op.buf.len, last: true }));
                };
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
                            q.rx_links.pop_front(&mut q.rx_msg);
                        } else {
                            q.rx[i].filling = true;
                        }
                        return Ok(Some(RxWork { idx: i, op, offset: c.offset, room: len, last: c.last }));
                    }
                    None if used == 0 => {
                        // Fresh buffer too small: truncation.
                        q.rx_links.pop_front(&mut q.rx_msg);
                        return Ok(Some(RxWork { idx: i, op, offset: 0, room: m.len, last: true }));
                    }
                    None => {
                        // Release the used buffer, try the next.
                        q.rx_links.pop_front(&mut q.rx_msg);
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
                };
                // The release always writes an entry (the consumer must
                // learn the buffer is back); it is no message to count.
                Report::done(cq, c, None).with_extra(op.extra).deliver();
            }
        }
    }

    /// Takes the oldest posted tagged receive matching `tag`, unless an
    /// older (unexpected) message, as told by `older(want, ignore)`,
    /// matches that receive too: then it is that message's, and the
    /// caller delivers it first (`Err(())`). `Ok(None)` if no receive
    /// matches.
    pub(crate) fn rx_take_tagged(&self, tag: u64, older: impl Fn(u64, u64) -> bool) -> core::result::Result<Option<RxWork>, ()> {
        let mut g = self.q.lock();
        let q = &mut *g;
        let rx = &q.rx;
        let mut conflict = false;
        let found = q.rx_links.remove_first(&mut q.rx_tag, |i| {
            // Peeks and claims look at messages already arrived only.
            if rules::is_probe(rx[i].flags) || !rules::tag_match(rx[i].tag, rx[i].ignore, tag) {
                return false;
            }
            conflict = older(rx[i].tag, rx[i].ignore);
            !conflict
        });
        if conflict {
            return Err(());
        }
        Ok(found.map(|i| {
            let op = q.rx[i];
            RxWork { idx: i, op, offset: 0, room: op.buf.len, last: true }
        }))
    }

    /// Takes the oldest posted probe (a tagged receive with `KFI_PEEK`, or
    /// `KFI_CLAIM` fetching a claimed message): the connection answers it
    /// from the messages already arrived (`data.rs`).
    pub(crate) fn take_probe(&self) -> Option<RxWork> {
        let mut g = self.q.lock();
        let q = &mut *g;
        let rx = &q.rx;
        let i = q.rx_links.remove_first(&mut q.rx_tag, |i| rules::is_probe(rx[i].flags))?;
        let op = q.rx[i];
        Some(RxWork { idx: i, op, offset: 0, room: op.buf.len, last: true })
    }

    /// A receive got its message: `len` bytes at `w.offset`, with the
    /// sender's CQ data and tag.
    pub(crate) fn rx_done(&self, w: &RxWork, len: u64, data: Option<u64>, tag: u64) {
        let mut released = None;
        let rep = {
            let mut g = self.q.lock();
            let q = &mut *g;
            // Read through the buffer's segment table before the last
            // message frees it with the slot.
            let buf = w.op.buf.addr(w.offset);
            if w.last {
                q.rx[w.idx].extra = None;
                q.free_rx(w.idx);
                q.unres(false);
            }
            let (cq, cntr) = (q.cfg.rx_cq, q.cfg.cntrs.for_op(w.op.kind, w.op.ep_cntr));
            let extra = if w.last { w.op.extra } else { None };
            let mut flags = w.op.kind.cq_flags();
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

    /// A receive failed (`err`, positive): truncation (`olen` bytes did
    /// not fit) or the connection failing under it.
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

    /// A transmit the work item held failed.
    pub(crate) fn tx_failed(&self, idx: usize, err: u32) {
        let rep = {
            let mut g = self.q.lock();
            let q = &mut *g;
            let op = q.tx[idx];
            q.tx[idx].extra = None;
            q.free_tx(idx);
            q.unres(true);
            Report::failed(q.cfg.tx_cq, errc(op.kind, op.flags, op.context, err, true), q.cfg.cntrs.for_op(op.kind, op.ep_cntr)).with_extra(op.extra)
        };
        rep.deliver();
    }

    /// A remote access of ours was served (`KFI_REMOTE_READ` when a read
    /// response went out, `KFI_REMOTE_WRITE` when a write landed): counted
    /// on the bound counter.
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

    /// The connection is gone: every queued operation fails with `err`
    /// (positive), in posting order per queue, and later posts fail with
    /// -ENOTCONN.
    pub(crate) fn fail_all(&self, err: u32) {
        let mut g = self.q.lock();
        g.down = true;
        g.acks_owed = 0;
        loop {
            let q = &mut *g;
            let next = if let Some(i) = q.tx_links.pop_front(&mut q.tx_await) {
                Some((true, i))
            } else if let Some(i) = q.tx_links.pop_front(&mut q.tx_read) {
                Some((true, i))
            } else if let Some(i) = q.tx_links.pop_front(&mut q.tx_pending) {
                Some((true, i))
            } else if let Some(i) = q.rx_links.pop_front(&mut q.rx_msg) {
                Some((false, i))
            } else {
                q.rx_links.pop_front(&mut q.rx_tag).map(|i| (false, i))
            };
            let Some((tx, i)) = next else {
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
            let rep = Report::failed(q.cq(tx), errc(op.0, op.1, op.2, err, true), q.cfg.cntrs.for_op(op.0, op.4)).with_extra(op.3);
            drop(g);
            rep.deliver();
            g = self.q.lock();
        }
    }

    /// Endpoint close, after the connection stopped: returns the CQ
    /// reservations of the operations not reported (queued, or held by the
    /// stopped work item: they complete nowhere, the endpoint is gone) and
    /// hands back the connection reference.
    pub(crate) fn close(&self) -> Option<Arc<Conn>> {
        let (tx, rx, conn, cfg) = {
            let mut g = self.q.lock();
            let q = &mut *g;
            let (tx, rx) = (q.tx_res, q.rx_res);
            q.tx_res = 0;
            q.rx_res = 0;
            q.tx_pending = List::new();
            q.tx_await = List::new();
            q.tx_read = List::new();
            q.rx_msg = List::new();
            q.rx_tag = List::new();
            q.enabled = false;
            // Completion counters of released deferred work that will
            // never be reported.
            // Tables of the operations never reported (freed slots have
            // none left).
            for o in q.tx.iter_mut() {
                o.release();
            }
            for o in q.rx.iter_mut() {
                o.buf.release();
            }
            let extras = Iterator::chain(q.tx.iter_mut().map(|o| &mut o.extra), q.rx.iter_mut().map(|o| &mut o.extra));
            for e in extras {
                if let Some(c) = e.take() {
                    // SAFETY: counted as a user, hence open.
                    unsafe { &*c }.unuse();
                }
            }
            (tx, rx, q.conn.take(), q.cfg)
        };
        for (cq, n) in [(cfg.tx_cq, tx), (cfg.rx_cq, rx)] {
            if let (Some(cq), true) = (cq, n > 0) {
                // SAFETY: a bound CQ, still bound (the caller unbinds
                // after this returns).
                unsafe { &*cq }.unreserve(n);
            }
        }
        conn
    }
}

/// The endpoint as the trigger machinery sees it (`crate::trigger`): what
/// triggered operations and deferred work are checked against, reserve
/// their CQ slot on, and are posted on when they fire.
impl FireTarget for EpData {
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

    /// Checks a transfer as [`EpData::post`] would, queuing nothing (a
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
    /// operation, released when it is reported, or here on failure).
    fn post_fired(&self, x: &sys::kfi_util_xfer, extra: Option<*const Cntr>, deferred: bool) -> isize {
        self.post_as(x, Post::Fired { extra, deferred }, &mut 0)
    }
}

/// A CQ makes progress on an endpoint through its connection.
impl ProgressSource for EpData {
    type Ref<'a> = ConnRef<'a>;

    #[inline]
    fn progress_ref(&self) -> Option<ConnRef<'_>> {
        self.conn_ref()
    }
}

impl ProgressRef for ConnRef<'_> {
    #[inline]
    fn poll(&self, polling: bool) -> bool {
        ConnRef::poll(self, polling)
    }

    fn room_freed(&self) {
        self.kick();
    }
}
