// SPDX-License-Identifier: GPL-2.0
//! One TCP connection of the provider: the connection-management handshake
//! of libfabric's tcp protocol, then the data frames.
//!
//! # Contexts and lifetime
//! A connection is an `Arc<Conn>` with a work item (`io_work`). The socket
//! callbacks only queue that work (see `sock.rs`), or, when the endpoint's
//! consumer moves the data in its own CQ reads, mark the connection, tell
//! its CQs and wake a blocked reader, leaving the work item to a backstop
//! timer (see `conn_wake`); CM messages and events happen in the
//! work item, in process context, on the provider's `WQ_MEM_RECLAIM`
//! workqueue. Data frames move in the work item and also in consumers'
//! calls (`Conn::progress` in `data.rs`: posts and CQ reads, any context
//! but hard interrupts, never sleeping). The workqueue never runs one work
//! item on two CPUs at once, so the work's own state (`io`) is only
//! contended by [`Conn::stop`] after the work stopped; the data state is
//! shared with the calls through a try-only lock (see "Locks").
//!
//! Holders: the endpoint (or, before one exists, the passive endpoint's
//! lists) holds one reference; a queued work item holds one; the socket
//! callbacks borrow the holder's (they may only run before `stop`, which
//! detaches them first, so theirs is never the last reference).
//! [`Conn::stop`] — detach the callbacks, forbid requeueing, flush the
//! work — is called by every holder before it drops its reference, after
//! which the connection touches neither its owner nor its queues.
//!
//! # Locks
//! `shared` (spinlock, process context only): phase, owner, the control
//! message to send. `io` (mutex): the control-message state of the work
//! item. `data` (a [`TryLock`], only ever tried): the data phase's state,
//! held by the work item while it moves frames, and by a consumer's call
//! that makes progress itself (`Conn::progress`, any context but hard
//! interrupts, never sleeping). Whoever finds it held leaves the work to
//! the holder: a consumer's call kicks the work item instead, the work
//! item sets `retry` and the holder requeues it on release. Socket
//! callbacks (softirq, holding the socket's spinlock) take a CQ's lock
//! (`Cq::progress_event`); nothing takes a socket's lock under a CQ's.

use crate::util::base::{self, Timer};
use crate::util::eq::{CmEvents, Eq};
use crate::xfer::EpData;
use crate::ffi::{self, sys};
use crate::pep::Pep;
use crate::rdm::Rdm;
use crate::util::rdm::{Failure, LaneRef};
use crate::Prov;
use crate::sock::{self, SkState, Sock};
use crate::util::addr::SockAddr;
use crate::wire::{ByteOrder, CmHeader, CmType};
use crate::wire::cm::{CM_HDR_SIZE, MAX_CM_DATA};
use core::ffi::{c_int, c_void, CStr};
use kernel::prelude::*;
use crate::util::sync::{TryGuard, TryLock};
use crate::util::cq::Cq;
use core::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, AtomicU32, Ordering};
use kernel::sync::{Arc, ArcBorrow, Mutex, SpinLock};
use kernel::workqueue::{Work, WorkItem};
use kernel::{impl_has_work, new_mutex, new_spinlock, new_work};

#[path = "data.rs"]
mod data;
pub(crate) use data::Progress;

/// Bytes of the largest control message.
const CM_MSG_MAX: usize = CM_HDR_SIZE + MAX_CM_DATA;

/// Steps of the work item per run before it requeues itself.
const BUDGET: usize = 64;

/// Where a connection is in its life.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Phase {
    /// Active side: TCP connect in progress; the connreq is queued.
    Connecting,
    /// Active side: connreq sent, reading the connresp or nack.
    AwaitResp,
    /// Passive side: reading the connreq.
    AwaitReq,
    /// Passive side: `KFI_CONNREQ` reported; waiting for accept/reject.
    Reported,
    /// Passive side: accepted, the connresp is being sent.
    Accepting,
    /// Data frames flow.
    Established,
    /// Over: shut down, refused or failed. Nothing more is reported.
    Closed,
}

impl Phase {
    /// Its name in trace events (kfi_conn).
    fn name(self) -> &'static CStr {
        match self {
            Phase::Connecting => c"connecting",
            Phase::AwaitResp => c"await_resp",
            Phase::AwaitReq => c"await_req",
            Phase::Reported => c"reported",
            Phase::Accepting => c"accepting",
            Phase::Established => c"established",
            Phase::Closed => c"closed",
        }
    }
}

/// Whom a connection reports to.
#[derive(Clone, Copy)]
pub(crate) enum Owner {
    /// Nobody (yet, or any more).
    None,
    /// A passive endpoint, until the request is reported.
    Pep(*const Pep),
    /// An endpoint: its EQ and its fid, for `KFI_CONNECTED`/`KFI_SHUTDOWN`
    /// and errors, posted through its `CmEvents` (which hold EQ slots for
    /// them); its data queues.
    Ep { eq: *const Eq, fid: *mut sys::kfid, data: *const EpData, cm: *const CmEvents },
    /// A connectionless endpoint's listener, until the request is read:
    /// the endpoint's map answers it (`Map::request`).
    RdmReq(*const Rdm),
    /// A connectionless endpoint (or a context of a scalable one): a lane
    /// of its queues (its peer's address handle, whether the peer sends
    /// no messages on it); connection events go to the lane's map
    /// (`LaneRef::up`, `failed`, `down`), never to an EQ.
    Rdm(LaneRef<Prov>),
}

impl Owner {
    /// Where the data of a connection owned so moves: the endpoint's
    /// queues, its lane, and the peer's address handle (a MSG endpoint:
    /// lane 0, none).
    pub(crate) fn data(&self) -> Option<(*const EpData, u32, u64)> {
        match *self {
            Owner::Ep { data, .. } => Some((data, 0, crate::logic::xfer::ADDR_ANY)),
            Owner::Rdm(r) => Some((r.data_ptr(), r.lane, r.from)),
            _ => None,
        }
    }

    /// What trace events name the owner by: the endpoint's fid, the
    /// passive endpoint, the connectionless endpoint's queues.
    fn trace_id(&self) -> *const c_void {
        match *self {
            Owner::None => core::ptr::null(),
            Owner::Pep(p) => p.cast(),
            Owner::Ep { fid, .. } => fid.cast_const().cast(),
            Owner::RdmReq(r) => r.cast(),
            Owner::Rdm(r) => r.data_ptr().cast(),
        }
    }

    /// The connectionless endpoint's lane it reports to.
    pub(super) fn rdm(&self) -> Option<LaneRef<Prov>> {
        match *self {
            Owner::Rdm(r) => Some(r),
            _ => None,
        }
    }

    /// A transmit context's connection (the peer sends no messages).
    pub(crate) fn one_way(&self) -> bool {
        matches!(self, Owner::Rdm(r) if r.one_way)
    }
}

/// A control message on its way out.
struct CtlOut {
    buf: [u8; CM_MSG_MAX],
    len: usize,
}

/// State shared by the consumer's calls and the work item.
struct Shared {
    phase: Phase,
    owner: Owner,
    /// Set by `stop`: the work item does nothing more and never requeues.
    stopping: bool,
    /// A control message waiting to be sent by the work item.
    ctl: Option<CtlOut>,
}

/// Receive state, owned by the work item.
struct Io {
    /// The control message being received.
    cm: [u8; CM_MSG_MAX],
    cm_got: usize,
    /// The control message being sent and how much of it went.
    ctl: Option<CtlOut>,
    ctl_sent: usize,
    /// CM data the peer sent with its connresp or nack (kept for
    /// `KFI_CONNECTED` and for `err_data` of a refusal, which must stay
    /// valid after the event is read).
    peer_data: [u8; MAX_CM_DATA],
    peer_data_len: usize,
    /// Byte order of the data frames.
    order: ByteOrder,
}

/// A connection.
#[pin_data]
pub(crate) struct Conn {
    #[pin]
    work: Work<Conn>,
    sock: Sock,
    #[pin]
    shared: SpinLock<Shared>,
    #[pin]
    io: Mutex<Io>,
    /// The data phase's state: used by the work item and, opportunistically
    /// and never sleeping, by the consumer's calls (see `data.rs`).
    data: TryLock<data::DataIo>,
    /// Set by whoever failed to take `data` in the work item: the holder
    /// requeues the work when it lets go.
    retry: AtomicBool,
    /// The data phase runs (set by the work item once `Established`,
    /// cleared when it ends and by `stop`): the consumer's calls may make
    /// progress themselves.
    data_on: AtomicBool,
    /// A socket event happened since a polling CQ read last made progress
    /// here (reads skip connections without one).
    dirty: AtomicBool,
    /// A consumer's call is moving data here (`Conn::progress`): a socket
    /// event meanwhile (often one that call caused, processed when it let
    /// go of the socket) is left to it, as to a polling consumer.
    in_call: AtomicBool,
    /// Changes whenever a poll takes `dirty` (a plain increment: a lost
    /// one between two pollers still changes it). The late check compares
    /// it with what it saw last time (`late_seen`).
    taken: AtomicU32,
    /// `taken` at the late check's last run.
    late_seen: AtomicU32,
    /// Armed by socket events while a consumer polls: it queues the work
    /// item once an event has waited a whole tick with no poll taking
    /// any (see `conn_late`).
    late: Timer,
    /// The CQs of the endpoint whose data moves here, when none of them
    /// has a completion handler (null otherwise, and before the data
    /// phase). A socket event tells them (`Cq::progress_event`): their reads
    /// make progress only after one, and their blocking readers are woken
    /// to move the data in their own calls, instead of the work item.
    /// Valid while the socket callbacks are installed: an endpoint stops
    /// its connection before it unbinds its CQs, and a CQ does not close
    /// while an endpoint is bound to it.
    event_cqs: [AtomicPtr<Cq>; 2],
    /// Frames may be queued to send on the connection's lane (posted
    /// transmits, owed ACKs): set under the endpoint's queue lock when one
    /// is queued, cleared under it by `EpData::tx_next` when it leaves
    /// none. Seen clear, `tx_next` returns at once without the lock: a
    /// frame queued meanwhile is moved by its poster's own progress, or
    /// by the work item that poster kicks when the connection is busy.
    pub(crate) tx_hint: AtomicBool,
    /// The CPU the work item is queued on (`KFI_AFFINITY` of the
    /// endpoint's receive CQ, else of its transmit CQ; see `cq.rs`), or
    /// -1: the CPU that queues it.
    cpu: AtomicI32,
}

impl_has_work! {
    impl HasWork<Self> for Conn { self.work }
}

// SAFETY: the raw pointers in `Owner` point to objects that outlive the
// connection's use of them (see the module comment: holders stop the
// connection before those objects go); everything else is Send + Sync.
unsafe impl Send for Shared {}


/// Socket callback target: queues the connection's work.
///
/// # Safety
/// `ctx` is `Arc::as_ptr` of a live connection whose holder keeps it
/// alive until the callbacks are detached.
unsafe extern "C" fn conn_wake(ctx: *mut c_void) {
    // SAFETY: by the contract above the connection is alive and its holder
    // keeps a reference until the callbacks are detached.
    let c = unsafe { ArcBorrow::<Conn>::from_raw(ctx.cast::<Conn>().cast_const()) };
    c.dirty.store(true, Ordering::SeqCst);
    let (woke, polled) = c.tell_cqs();
    if woke || polled || c.in_call.load(Ordering::SeqCst) {
        // A consumer blocked in a CQ read (woken now), polling one, or in
        // a call moving data here right now (it looks at `dirty` before it
        // lets go) moves the data in its own calls (it takes `dirty`). The
        // timer checks later that it did, and queues the work item only if
        // not (the consumer stopped reading): scheduling the work item now
        // would take the CPU from the consumer to find nothing to do.
        c.late.arm(1);
    } else {
        Arc::<Conn>::from(c).kick();
    }
}

/// The late check (`Conn::late`), in softirq context: queues the work
/// item if a socket event is still not taken by a poll and no poll took
/// one since the last check (the consumer stopped reading). A consumer
/// that is still reading is looked at again a tick later: during a long
/// transfer an event is nearly always pending, and queueing the work item
/// then would only take the consumer's CPU and the data from it.
///
/// # Safety
/// `ctx` is `Arc::as_ptr` of a live connection: `stop` cancels the timer
/// before its holder lets go.
unsafe extern "C" fn conn_late(ctx: *mut c_void) {
    // SAFETY: as above.
    let c = unsafe { ArcBorrow::<Conn>::from_raw(ctx.cast::<Conn>().cast_const()) };
    if !c.dirty.load(Ordering::SeqCst) {
        return;
    }
    let taken = c.taken.load(Ordering::Relaxed);
    if c.late_seen.swap(taken, Ordering::Relaxed) != taken {
        c.late.arm(1);
    } else {
        Arc::<Conn>::from(c).kick();
    }
}

/// A control message: header then CM data.
fn ctl_msg(kind: CmType, data: &[u8]) -> Result<CtlOut> {
    let mut out = CtlOut { buf: [0; CM_MSG_MAX], len: 0 };
    out.len = crate::wire::cm::encode_msg(kind, data, ByteOrder::NATIVE, &mut out.buf).map_err(|_| EINVAL)?;
    Ok(out)
}

/// What the work item learned in one step.
enum Step {
    /// Something moved; go on.
    Progress,
    /// Nothing to do until the socket wakes us.
    Idle,
}

impl Conn {
    fn new(sock: Sock, phase: Phase, owner: Owner, ctl: Option<CtlOut>) -> Result<Arc<Conn>> {
        ffi::fail_alloc()?;
        // SAFETY: `conn_late` does not sleep; the argument is set below,
        // before anything can arm the timer, to the connection, which
        // cancels it in `stop`.
        let late = unsafe { Timer::new(conn_late, core::ptr::null_mut()) }?;
        let c = Arc::pin_init(
            pin_init!(Conn {
                work <- new_work!("kfi_tcp_conn"),
                sock,
                shared <- new_spinlock!(Shared { phase, owner, stopping: false, ctl }, "kfi_tcp_conn"),
                io <- new_mutex!(Io {
                    cm: [0; CM_MSG_MAX],
                    cm_got: 0,
                    ctl: None,
                    ctl_sent: 0,
                    peer_data: [0; MAX_CM_DATA],
                    peer_data_len: 0,
                    order: ByteOrder::NATIVE,
                }, "kfi_tcp_conn_io"),
                data: TryLock::new(data::DataIo::new()),
                retry: AtomicBool::new(false),
                data_on: AtomicBool::new(false),
                dirty: AtomicBool::new(true),
                in_call: AtomicBool::new(false),
                taken: AtomicU32::new(0),
                late_seen: AtomicU32::new(0),
                late,
                event_cqs: [AtomicPtr::new(core::ptr::null_mut()), AtomicPtr::new(core::ptr::null_mut())],
                tx_hint: AtomicBool::new(false),
                cpu: AtomicI32::new(-1),
            }),
            GFP_KERNEL,
        )?;
        // SAFETY: `stop` cancels the late check before the last holder goes.
        unsafe { c.late.set_ctx((&*c as *const Conn).cast_mut().cast()) };
        // SAFETY: the holder (our caller, then the endpoint or pep) keeps a
        // reference until `stop` detached the callbacks.
        unsafe { c.sock.install(conn_wake, (&*c as *const Conn).cast_mut().cast()) };
        c.sock.trace_conn((&*c as *const Conn).cast(), owner.trace_id(), c"new", phase.name());
        Ok(c)
    }

    /// Active side: starts connecting to `dst` with `data` as the
    /// connreq's CM data; reports to `owner` (an endpoint).
    pub(crate) fn connect(net: *mut c_void, src: Option<&SockAddr>, dst: &SockAddr, data: &[u8], owner: Owner) -> Result<Arc<Conn>> {
        let ctl = ctl_msg(CmType::ConnReq, data)?;
        let s = Sock::create(net, dst)?;
        let c = Conn::new(s, Phase::Connecting, owner, Some(ctl))?;
        if let Err(e) = c.sock.connect(src, dst) {
            c.stop();
            return Err(e);
        }
        c.kick();
        Ok(c)
    }

    /// Passive side: a connection accepted by a listener (of a pep, or
    /// of a connectionless endpoint: `owner`); the caller lists it, then
    /// kicks it.
    pub(crate) fn accepted(s: Sock, owner: Owner) -> Result<Arc<Conn>> {
        Conn::new(s, Phase::AwaitReq, owner, None)
    }

    /// Queues the work item (on its CPU, see `cpu`).
    pub(crate) fn kick(self: &Arc<Self>) {
        let cpu = u32::try_from(self.cpu.load(Ordering::Relaxed)).ok();
        base::enqueue_on(cpu, self.clone());
    }

    /// Sets the CPU the work item runs on from now on (`None`: wherever
    /// it is queued).
    pub(crate) fn set_cpu(&self, cpu: Option<u32>) {
        self.cpu.store(cpu.map_or(-1, |c| c as i32), Ordering::Relaxed);
    }

    /// The function the connections' work items run (to tell them from
    /// other work, see `Cq`'s handler calls).
    pub(crate) fn work_fn() -> *const c_void {
        let f: unsafe extern "C" fn(*mut kernel::bindings::work_struct) =
            <Arc<Conn> as kernel::workqueue::WorkItemPointer<0>>::run;
        f as *const c_void
    }

    /// Takes the "socket event since the last poll" mark.
    pub(crate) fn take_dirty(&self) -> bool {
        // Read first: no write (and no locked instruction) when clear.
        if !self.dirty() || !self.dirty.swap(false, Ordering::SeqCst) {
            return false;
        }
        self.taken.store(self.taken.load(Ordering::Relaxed).wrapping_add(1), Ordering::Relaxed);
        ffi::tr(sys::KFI_TCP_TR_TAKE_DIRTY);
        true
    }

    /// The "socket event since the last poll" mark.
    pub(crate) fn dirty(&self) -> bool {
        self.dirty.load(Ordering::SeqCst)
    }

    /// Sets it again (a poll could not finish).
    pub(crate) fn set_dirty(&self) {
        self.dirty.store(true, Ordering::SeqCst);
    }

    /// A transmit was queued with `KFI_MORE` and not moved: the next post
    /// (or a CQ read, which this mark makes look) sends it with those
    /// behind it in one socket call. If neither comes, the late check
    /// queues the work item within a tick or two (see `conn_late`).
    /// Any context but hard interrupts.
    pub(crate) fn defer_tx(&self) {
        if !self.dirty() {
            self.set_dirty();
        }
        self.late.arm(1);
    }


    /// Whom it reports to.
    pub(crate) fn owner(&self) -> Owner {
        self.shared.lock().owner
    }

    /// The socket's local or peer address.
    pub(crate) fn name(&self, peer: bool) -> Result<SockAddr> {
        self.sock.name(peer)
    }

    /// Passive side: accepts a reported request, sending `data` in the
    /// connresp; `KFI_CONNECTED` follows on `owner`'s EQ once it is sent.
    pub(crate) fn accept(self: &Arc<Self>, data: &[u8], owner: Owner) -> Result {
        let ctl = ctl_msg(CmType::ConnResp, data)?;
        {
            let mut s = self.shared.lock();
            // Not once stopped: its owner may be going.
            if s.phase != Phase::Reported || s.stopping {
                return Err(EINVAL);
            }
            s.phase = Phase::Accepting;
            s.owner = owner;
            s.ctl = Some(ctl);
            self.moved(&s.owner, Phase::Reported, Phase::Accepting);
        }
        self.kick();
        Ok(())
    }

    /// Passive side: refuses a reported request with `data` in the nack,
    /// sent from the caller's context (a fresh connection has room for
    /// it), then shuts the connection down.
    pub(crate) fn reject(&self, data: &[u8]) -> Result {
        let ctl = ctl_msg(CmType::Nack, data)?;
        {
            let mut s = self.shared.lock();
            if s.phase != Phase::Reported {
                return Err(EINVAL);
            }
            s.phase = Phase::Closed;
            self.moved(&s.owner, Phase::Reported, Phase::Closed);
            s.owner = Owner::None;
        }
        let seg = [sock::kseg(&ctl.buf[..ctl.len])];
        let mut sent = 0;
        let mut r = Ok(());
        while sent < ctl.len {
            match self.sock.send(&seg, sent, ctl.len - sent, false, false) {
                Ok(n) => sent += n,
                Err(e) => {
                    r = Err(e);
                    break;
                }
            }
        }
        self.sock.shutdown();
        r
    }

    /// Shuts the connection down (`kfi_shutdown`): the peer sees end of
    /// stream, `KFI_SHUTDOWN` is reported once on the owner's EQ. Returns
    /// false if it was not connected.
    pub(crate) fn shutdown(self: &Arc<Self>) -> bool {
        let owner = {
            let mut s = self.shared.lock();
            if s.phase != Phase::Established {
                return false;
            }
            s.phase = Phase::Closed;
            self.data_on.store(false, Ordering::SeqCst);
            self.moved(&s.owner, Phase::Established, Phase::Closed);
            s.owner
        };
        self.sock.shutdown();
        self.report_cm(owner, sys::KFI_SHUTDOWN, &[]);
        // The work item fails what is still queued.
        self.kick();
        true
    }

    /// Stops the connection for good: no callback, no work, no report
    /// after this returns. Every holder calls it before letting go.
    pub(crate) fn stop(&self) {
        {
            let mut s = self.shared.lock();
            s.stopping = true;
            s.owner = Owner::None;
            self.data_on.store(false, Ordering::SeqCst);
        }
        self.sock.detach();
        // No socket callback can arm the late check now; an armed one is
        // cancelled (one running may queue the work, flushed next).
        self.late.cancel_sync();
        // SAFETY: `self.work` is this connection's initialised work item;
        // flushing waits for the queued or running instance, which sees
        // `stopping` and neither reports nor requeues.
        unsafe { kernel::bindings::flush_work(Work::raw_get(&self.work)) };
        // A consumer's call may still be making progress (it never sleeps
        // holding `data`, and sees `data_on` cleared when it next looks).
        while self.data.is_held() {
            base::sleep_briefly();
        }
    }

    /// One step of the control-message phases; `Idle` when waiting.
    fn step(self: &Arc<Self>, io: &mut Io) -> Step {
        // Take a control message to send, if one was queued.
        let (phase, owner) = {
            let mut s = self.shared.lock();
            if io.ctl.is_none() {
                if let Some(c) = s.ctl.take() {
                    io.ctl = Some(c);
                    io.ctl_sent = 0;
                }
            }
            (s.phase, s.owner)
        };
        let st = self.sock.state();
        match phase {
            Phase::Closed => {
                // Whatever ended it, operations still queued fail (a
                // connectionless endpoint's: those of its lane).
                if let Some((data, lane, from)) = owner.data() {
                    let Some(mut d) = self.lock_data() else {
                        return Step::Idle;
                    };
                    d.take_owner(owner, lane, from);
                    // SAFETY: an endpoint stops us before its data goes.
                    self.cleanup(&mut d, unsafe { &*data }, kernel::bindings::ECONNABORTED);
                    self.unlock_data(d);
                }
                Step::Idle
            }
            Phase::Connecting => match st {
                SkState::Connecting => Step::Idle,
                SkState::Established => {
                    self.set_phase(Phase::Connecting, Phase::AwaitResp);
                    Step::Progress
                }
                SkState::Closed(e) => {
                    let e = if e == 0 { -(kernel::bindings::ECONNREFUSED as c_int) } else { e };
                    self.fail(owner, e, &[]);
                    Step::Progress
                }
                SkState::Listening => Step::Idle,
            },
            Phase::AwaitResp => {
                if let Some(s) = self.send_ctl(io) {
                    return s;
                }
                match self.recv_cm(io) {
                    Err(e) => {
                        self.fail(owner, e, &[]);
                        Step::Progress
                    }
                    Ok(None) => Step::Idle,
                    Ok(Some((hdr, len))) => {
                        io.peer_data[..len].copy_from_slice(&io.cm[CM_HDR_SIZE..CM_HDR_SIZE + len]);
                        io.peer_data_len = len;
                        match hdr.kind() {
                            CmType::ConnResp => match hdr.msg_order(ByteOrder::NATIVE) {
                                Ok(o) => {
                                    io.order = o;
                                    self.set_phase(Phase::AwaitResp, Phase::Established);
                                    self.report_cm(owner, sys::KFI_CONNECTED, &io.peer_data[..len]);
                                    Step::Progress
                                }
                                Err(e) => {
                                    self.fail(owner, -e.errno(), &[]);
                                    Step::Progress
                                }
                            },
                            CmType::Nack => {
                                let data = &io.peer_data[..len];
                                self.fail(owner, -(kernel::bindings::ECONNREFUSED as c_int), data);
                                Step::Progress
                            }
                            CmType::ConnReq => {
                                self.fail(owner, -(kernel::bindings::EPROTO as c_int), &[]);
                                Step::Progress
                            }
                        }
                    }
                }
            }
            Phase::AwaitReq => match self.recv_cm(io) {
                // A peer that hangs up or talks nonsense before its request
                // is reported just goes away: there is nobody to tell.
                Err(_) => {
                    self.close_quietly();
                    Step::Idle
                }
                Ok(None) => Step::Idle,
                Ok(Some((hdr, len))) => {
                    let order = match (hdr.kind(), hdr.msg_order(ByteOrder::NATIVE)) {
                        (CmType::ConnReq, Ok(o)) => o,
                        _ => {
                            self.close_quietly();
                            return Step::Idle;
                        }
                    };
                    io.order = order;
                    self.set_phase(Phase::AwaitReq, Phase::Reported);
                    let data = &io.cm[CM_HDR_SIZE..CM_HDR_SIZE + len];
                    match owner {
                        Owner::Pep(p) => {
                            // SAFETY: a pep stops its pending connections
                            // before it goes, so it is alive while we run.
                            let pep = unsafe { &*p };
                            if pep.report(self, data).is_err() {
                                self.close_quietly();
                            }
                        }
                        Owner::RdmReq(r) => {
                            // SAFETY: an RDM endpoint stops its pending
                            // connections before it goes.
                            unsafe { &*r }.request(self, data);
                        }
                        _ => {}
                    }
                    // The answer (accept) may have moved us on already.
                    Step::Progress
                }
            },
            Phase::Reported => Step::Idle,
            Phase::Accepting => match self.send_ctl(io) {
                Some(s) => s,
                None => {
                    self.set_phase(Phase::Accepting, Phase::Established);
                    self.report_cm(owner, sys::KFI_CONNECTED, &[]);
                    Step::Progress
                }
            },
            Phase::Established => self.step_data(io.order, owner),
        }
    }

    /// Moves from `from` to `to`; false if the phase was not `from` (a
    /// concurrent shutdown or stop got there first).
    fn set_phase(&self, from: Phase, to: Phase) -> bool {
        let mut s = self.shared.lock();
        if s.phase != from {
            return false;
        }
        s.phase = to;
        if from == Phase::Established {
            self.data_on.store(false, Ordering::SeqCst);
        }
        self.moved(&s.owner, from, to);
        true
    }

    /// Trace event kfi_conn: the phase went from `from` to `to` (called
    /// where it changes, under `shared`).
    fn moved(&self, owner: &Owner, from: Phase, to: Phase) {
        self.sock.trace_conn((self as *const Self).cast(), owner.trace_id(), from.name(), to.name());
    }

    /// Lets consumers' calls make progress, if the data phase is still on
    /// (`data_on` changes only under `shared`, with the phase).
    fn start_calls(&self) {
        let s = self.shared.lock();
        if s.phase == Phase::Established && !s.stopping {
            self.data_on.store(true, Ordering::SeqCst);
        }
    }

    /// Names the CQs socket events are told to (see `event_cqs`); at the
    /// start of the data phase, by the work item. Their reads look here
    /// from now on.
    fn set_event_cqs(&self, cqs: [*const Cq; 2]) {
        for (slot, cq) in self.event_cqs.iter().zip(cqs) {
            slot.store(cq.cast_mut(), Ordering::SeqCst);
            if !cq.is_null() {
                // SAFETY: a bound CQ of the endpoint (see `event_cqs`).
                unsafe { &*cq }.progress_event();
            }
        }
    }

    /// From a socket callback: tells the endpoint's CQs (after `dirty` is
    /// set). Whether that woke a blocked reader, and whether one of them
    /// was polled in this tick or the last.
    fn tell_cqs(&self) -> (bool, bool) {
        let (mut woke, mut polled) = (false, false);
        for slot in &self.event_cqs {
            let cq = slot.load(Ordering::SeqCst);
            if !cq.is_null() {
                // SAFETY: valid while the callbacks are installed (see
                // `event_cqs`), and this is called from one of them.
                let cq = unsafe { &*cq };
                woke |= cq.progress_event();
                polled |= cq.polled_recently();
            }
        }
        (woke, polled)
    }

    /// Marks a consumer's call moving data here (see `in_call`).
    pub(crate) fn set_in_call(&self, on: bool) {
        self.in_call.store(on, Ordering::SeqCst);
    }

    /// True while consumers' calls may make progress.
    fn calls_on(&self) -> bool {
        self.data_on.load(Ordering::SeqCst)
    }

    /// Takes the data state for the work item; if a consumer's call holds
    /// it, asks it to requeue the work when done (`None`: come back then).
    fn lock_data(&self) -> Option<TryGuard<'_, data::DataIo>> {
        if let Some(g) = self.data.try_lock() {
            return Some(g);
        }
        self.retry.store(true, Ordering::SeqCst);
        // It may have let go before seeing the request.
        self.data.try_lock()
    }

    /// Lets go of the data state, requeueing the work if it asked.
    fn unlock_data(self: &Arc<Self>, g: TryGuard<'_, data::DataIo>) {
        drop(g);
        if self.retry.swap(false, Ordering::SeqCst) {
            self.kick();
        }
    }

    /// Sends what is left of the control message: `None` once all of it
    /// went (or there was none), `Some(step)` while some is left.
    fn send_ctl(&self, io: &mut Io) -> Option<Step> {
        let c = io.ctl.as_ref()?;
        let seg = [sock::kseg(&c.buf[..c.len])];
        match self.sock.send(&seg, io.ctl_sent, c.len - io.ctl_sent, false, false) {
            Ok(n) => {
                io.ctl_sent += n;
                if io.ctl_sent < c.len {
                    return Some(Step::Progress);
                }
                io.ctl = None;
                None
            }
            Err(e) if e == EAGAIN => Some(Step::Idle),
            // The state check of the next step reports the failure.
            Err(_) => Some(Step::Idle),
        }
    }

    /// Receives a control message: `Ok(Some)` with its header and data
    /// length once complete, `Ok(None)` while incomplete, negative errno
    /// on a bad header, end of stream or a socket error.
    fn recv_cm(&self, io: &mut Io) -> core::result::Result<Option<(CmHeader, usize)>, c_int> {
        loop {
            let want = if io.cm_got < CM_HDR_SIZE {
                CM_HDR_SIZE
            } else {
                let hdr = CmHeader::decode(&io.cm[..CM_HDR_SIZE]).map_err(|e| -e.errno())?;
                let total = hdr.msg_len();
                if io.cm_got == total {
                    io.cm_got = 0;
                    return Ok(Some((hdr, hdr.data_len())));
                }
                total
            };
            let seg = [sock::kseg(&io.cm[..want])];
            match self.sock.recv(&seg, io.cm_got, want - io.cm_got) {
                Ok(0) => return Err(-(kernel::bindings::ECONNRESET as c_int)),
                Ok(n) => io.cm_got += n,
                Err(e) if e == EAGAIN => return Ok(None),
                Err(e) => return Err(e.to_errno()),
            }
        }
    }

    /// The connection failed before or while connecting: one error entry
    /// on the owner's EQ (with the peer's reject data, if any), then
    /// closed.
    fn fail(&self, owner: Owner, err: c_int, data: &[u8]) {
        {
            let mut s = self.shared.lock();
            if s.phase == Phase::Closed {
                return;
            }
            let from = s.phase;
            s.phase = Phase::Closed;
            self.data_on.store(false, Ordering::SeqCst);
            self.moved(&s.owner, from, Phase::Closed);
        }
        self.sock.shutdown();
        if let Owner::Ep { eq, fid, cm, .. } = owner {
            // SAFETY: an endpoint unbinds its EQ only after stopping us;
            // its `CmEvents` and header live as long; `data` is the
            // connection's copy of the peer's data, kept while the
            // endpoint is open.
            unsafe { (*cm).error(&*eq, fid, err, data) };
        }
        if let Some(r) = owner.rdm() {
            // A refusal with the peer's reject data is rxm's reject.
            if err == -(kernel::bindings::ECONNREFUSED as c_int) && !data.is_empty() {
                r.failed(self, Failure::Rejected(data));
            } else {
                r.failed(self, Failure::Error(if err < 0 { (-err) as u32 } else { kernel::bindings::ECONNRESET }));
            }
        }
    }

    fn close_quietly(&self) {
        let mut s = self.shared.lock();
        let from = s.phase;
        s.phase = Phase::Closed;
        self.data_on.store(false, Ordering::SeqCst);
        if from != Phase::Closed {
            self.moved(&s.owner, from, Phase::Closed);
        }
        drop(s);
        self.sock.shutdown();
    }
}

impl Conn {
    /// Reports a connection event: an endpoint owner gets it on its EQ
    /// (`fid`, `info` NULL, `data`); a connectionless endpoint learns that
    /// the connection is up (`KFI_CONNECTED`, with the peer's CM data) or
    /// over (`KFI_SHUTDOWN`).
    pub(super) fn report_cm(&self, owner: Owner, event: u32, data: &[u8]) {
        if let Owner::Ep { eq, fid, cm, .. } = owner {
            // SAFETY: an endpoint unbinds its EQ only after stopping us; its
            // `CmEvents` lives as long.
            unsafe { (*cm).report(&*eq, fid, event, data) };
        }
        if let Some(r) = owner.rdm() {
            if event == sys::KFI_CONNECTED {
                r.up(self, data);
            } else {
                r.down(self);
            }
        }
    }
}

impl WorkItem for Conn {
    type Pointer = Arc<Conn>;

    fn run(this: Arc<Conn>) {
        ffi::count_conn_run();
        let _noio = base::NoIo::enter();
        let mut io = this.io.lock();
        for _ in 0..BUDGET {
            if this.shared.lock().stopping {
                return;
            }
            if let Step::Idle = this.step(&mut io) {
                return;
            }
        }
        drop(io);
        // Out of budget: let others run, then go on.
        if !this.shared.lock().stopping {
            this.kick();
        }
    }
}
