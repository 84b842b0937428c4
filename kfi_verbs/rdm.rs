// SPDX-License-Identifier: GPL-2.0
//! Reliable connectionless endpoints (`KFI_EP_RDM`) over kfi_verbs,
//! speaking libfabric 1.17's `verbs;ofi_rxm` (Documentation/rdm.md,
//! "Over verbs"; the wire: Documentation/rxm-verbs-wire.md).
//!
//! The connection map and the lanes are the toolkit's (`util::rdm`,
//! `util::peers`), as kfi_tcp's are; what is kfi_verbs' is given to them
//! here:
//!
//! - a lane's connection is a [`VConn`]: an rdma_cm id and RC queue pair
//!   (kfi_verbs_cm.c, made a connectionless endpoint's by
//!   `Conn::set_rdm`) with [`NRX`] receive buffers of one rxm packet
//!   (64-byte header and up to 16 KiB) posted on its receive queue and
//!   [`NTX`] send buffers; rxm's connect, accept and reject data travel
//!   behind libfabric verbs' one-byte length in the private data;
//! - every rxm packet is one SEND of a send buffer (the header and the
//!   payload copied in), received into a receive buffer and copied out
//!   to the consumer's receive by the connection's work item;
//! - the listener is a passive rdma_cm id whose requests come to
//!   [`kfi_verbs_rdm_pep_event`].
//!
//! What is done: eager messages (untagged with CQ data, tagged) up to
//! rxm's 16 KiB and segmented ones (SAR) above, both ways, up to 1 GiB;
//! sources and directed receives, multi-receive buffers, unexpected
//! tagged messages; a peer's read rendezvous (libfabric's messages over
//! 128 KiB), read by RDMA READ into the matched receive (`rx_rndv`); RMA
//! as an RDMA READ or WRITE per remote region (`pump_lane`); kfabric's
//! tagged RMA as its packets, bytes copied (`tx_packet`, `rx_trma_*`,
//! answers owed in `VRx::owed`, sent by `answer`); rxm's credits on
//! iWARP (`VSt::fc`, `grant`), an accepted iWARP connection silent until
//! the peer's first packet (`VSt::hold_tx`); contexts of scalable
//! endpoints (the toolkit's `MapSep`; a transmit context's connection
//! carries nothing else to it). A write rendezvous or an atomic packet
//! ends the connection as a protocol error.
//!
//! # Contexts and locks
//! Connection events come from the rdma_cm handler with the id's handler
//! mutex held ([`kfi_verbs_rdm_cm_event`]): they go to the lane's
//! `LaneRef` (which never stops a connection from there) and never call a
//! function that takes that mutex. A request is answered from the
//! connection's work item ([`VConn`]'s `work`), which also moves received
//! packets (process context, `VConn::rx` mutex), reports the end of the
//! connection once it moved the packets that came before it, and posts
//! the lane's transmits when a connection event allowed them
//! (`ProvRdm::flow` runs under the queue lock and only queues it).
//! Completions (softirq) take `VConn::s` (BH spinlock), then, released,
//! the queue lock. Lock order:
//! handler mutex, map's `st`, `VConn::rx`, queue lock `q`, `VConn::s`,
//! the connection's post lock.

use crate::domain::Domain;
use crate::ffi::{sys, Conn, Wrs};
use crate::logic::status::{error_of, wc};
use crate::util::addr::SockAddr;
use crate::util::base;
use crate::util::logic::rxm::{self, Op, Pkt, Type, PKT_BYTES};
use crate::util::logic::xfer::{self as rules, Kind, List};
use crate::util::peers::{route, LaneExt};
use crate::util::queues::{NoRoom, Queues};
use crate::util::ep::EpAttrs;
use crate::util::rdm::{Failure, LaneRef, Map, MapConn, ProvRdm};
use crate::util::sync::{new_spinlock_bh, SpinLockBh};
use crate::util::tagmatch::{Unexp, UnexpList, UNEXP_LIMIT, UNEXP_MAX};
use crate::util::xfer::{RxWork, Seg};
use crate::xfer::{EpData, VerbsExt};
use crate::Prov;
use core::ffi::{c_int, c_uint, c_void};
use kernel::alloc::KVVec;
use kernel::bindings;
use kernel::prelude::*;
use kernel::sync::{Arc, ArcBorrow, Mutex};
use kernel::workqueue::{Work, WorkItem};
use kernel::{impl_has_work, new_mutex, new_work};

/// kfi_verbs' map.
pub(crate) type Rdm = Map<Prov>;

/// Receive buffers posted per connection. With `flow_ctrl` off both ways
/// (rxm's `PEER_OFF`), a peer that finds none waits for one (RNR retries
/// without end on both sides' queue pairs).
pub(crate) const NRX: usize = 32;
/// Send buffers per connection (rxm packets in flight).
pub(crate) const NTX: usize = 32;
/// RDMA READs of a peer's rendezvous (one at a time per connection, one
/// read per remote piece): transmit slots `NTX..NTX + NRD`.
const NRD: usize = rxm::RNDV_IOVS;
/// The send queue: packets and reads.
const NSQ: usize = NTX + NRD;
/// One rxm packet: header and eager payload (libfabric posts receives of
/// this size; never send more).
pub(crate) const BUF: usize = PKT_BYTES + rxm::EAGER_LIMIT as usize;
/// Largest message (as a MSG endpoint's): over rxm's eager limit a send
/// goes as segments (SAR), each one packet.
pub(crate) const RDM_MAX_MSG_SIZE: u64 = crate::ep::MAX_MSG_SIZE;
/// Payload of a segment (and most of an eager packet).
const SEG: u64 = rxm::EAGER_LIMIT as u64;
/// The transmit slot of a send buffer carrying no consumer's operation.
const NO_OP: u32 = u32::MAX;
/// Every send buffer free.
const ALL_TX: u64 = if NTX == 64 { u64::MAX } else { (1u64 << NTX) - 1 };

/// kfi_verbs' state of one lane (`Lane::x`), under the queue lock: the
/// operations of a lane are on its connection's send buffers once posted
/// (they complete or are flushed with it), so a lane holds none.
pub(crate) struct VerbsLane {
    /// An untagged message waits for a receive on this lane's connection.
    pub(crate) msg_waiting: bool,
    /// The next segment of the send first in line (a message over the
    /// eager limit goes as segments), or remote region of the RMA first
    /// in line (one work request each); 0: none of it is posted yet.
    sar_next: u64,
    /// The RMA's local bytes before that region.
    rma_at: u64,
    /// Tagged RMAs whose request is out, waiting for the target's answer
    /// (`TagRmaDone`, `TagRmaData`), in order.
    trma_wait: List,
}

impl LaneExt for VerbsLane {
    fn new() -> VerbsLane {
        VerbsLane { msg_waiting: false, sar_next: 0, rma_at: 0, trma_wait: List::new() }
    }

    fn idle(&self) -> bool {
        self.trma_wait.is_empty()
    }

    fn take_held(&mut self) -> [List; 3] {
        [core::mem::take(&mut self.trma_wait), List::new(), List::new()]
    }

    fn reset_conn(&mut self) {
        self.msg_waiting = false;
        // A new connection starts the message over (or it failed).
        self.sar_next = 0;
        self.rma_at = 0;
    }
}

crate::util::peers::impl_has_peers!(VerbsExt, peers);

/// The private data of a connect, accept or reject: libfabric verbs'
/// length byte, then rxm's bytes.
fn envelope(data: &[u8], out: &mut [u8; sys::KFI_VERBS_PDATA_MAX as usize]) -> Result<usize> {
    let n = data.len();
    if n + 1 > out.len() {
        return Err(EINVAL);
    }
    out[0] = n as u8;
    out[1..1 + n].copy_from_slice(data);
    Ok(n + 1)
}

/// The rxm bytes of received private data: its length byte is trusted,
/// not the padded length the transport reports.
fn unwrap_pdata(p: &[u8]) -> &[u8] {
    match p.split_first() {
        Some((&n, rest)) => &rest[..(n as usize).min(rest.len())],
        None => &[],
    }
}

/// Transmits that failed with their connection (`VSt::lost`), taken.
struct Lost {
    ops: [(u32, u32); NTX],
    n: usize,
}

impl Lost {
    /// Fails them on `d`, in order.
    fn report(&self, d: &EpData) {
        for &(i, err) in &self.ops[..self.n] {
            d.tx_failed(i as usize, err);
        }
    }
}

/// What a connection's completions and events share (under `VConn::s`).
struct VSt {
    /// Where events and data go (set when connecting or accepting).
    to: Option<LaneRef<Prov>>,
    /// Stopped: nothing is posted, the work does nothing.
    stopped: bool,
    /// Connected (sends may be posted).
    up: bool,
    /// The device refused a send with none in flight: the work item
    /// tries again after a pause.
    pump_retry: bool,
    /// The connection ended: the work item reports it to the lane once
    /// it moved the packets received before.
    ended: bool,
    /// The error operations flushed by a stop fail with.
    fail_err: u32,
    /// Free send buffers (bit `k`) and the transmit slot each one in use
    /// carries.
    tx_free: u64,
    tx_op: [u32; NTX],
    /// Transmits whose send failed while the connection was not stopped
    /// (it ended by itself), oldest first, with their errors: the work
    /// item reports them once the lane has let go of the connection
    /// (`rdm_conn_lost_then`), so that what a consumer posts on seeing
    /// one goes on a new connection. The stop reports those left.
    lost: [(u32, u32); NTX],
    lost_n: usize,
    /// The reads of the rendezvous being received still in flight, and
    /// the first error one had.
    rd_left: usize,
    rd_err: u32,
    /// A control packet (rendezvous `rd_done`) waits for a send buffer:
    /// the next send completion kicks the work item.
    ctrl_owed: bool,
    /// The send buffers (written under this lock while free, read by the
    /// device until their completion).
    tx: KVec<KVec<u8>>,
    /// Room for the local pieces of one region of an RMA (the device's
    /// mapping copies them at the post).
    pieces: KVec<Seg>,
    /// rxm's credits (`Documentation/rxm-verbs-wire.md` §4): asked for
    /// (`flow_ctrl` 1) on an iWARP device, whose queue pairs have no
    /// receiver-not-ready retries; `fc` once both sides said so.
    iwarp: bool,
    fc: bool,
    /// An accepted iWARP connection sends nothing before the peer's first
    /// packet came: MPA's rule (a responder's bytes right behind its MPA
    /// reply make the initiator's reply fail, `-EPROTO`).
    hold_tx: bool,
    /// The peer's `flow_ctrl` in its request (accepted connections).
    peer_fc: u8,
    /// SENDs the peer's posted receives take (one kept for credit
    /// packets; the peer is assumed to have one before it grants any).
    peer_credits: u64,
    /// Receives posted since our last grant (rxm's `rq_credits_avail`,
    /// from -1): granted in a credit packet once [`CREDIT_GRANT`].
    avail: i64,
    /// Receive completions not handled yet, oldest first: (buffer, bytes,
    /// success).
    ring: [(u16, u32, bool); NRX],
    head: usize,
    n: usize,
    /// A request not answered yet: its rxm bytes, for the work item.
    req: Option<([u8; sys::KFI_VERBS_PDATA_MAX as usize], usize)>,
    /// The map of a request (set by the listener).
    map: *const Rdm,
    /// The peer's and our address of a request (from its event).
    addrs: Option<(SockAddr, SockAddr)>,
}

/// The receive side (process context, under `VConn::rx`).
struct VRx {
    /// The receive buffers (buffer `k` is receive slot `k`).
    bufs: KVec<KVec<u8>>,
    /// Unexpected tagged messages of this connection.
    unexp: UnexpList,
    /// The segmented message being received (rxm sends one at a time on
    /// a connection).
    sar: Option<SarRx>,
    /// The peer's rendezvous being read into its receive.
    rndv: Option<RndvRx>,
    /// The peer's tagged RMA write being received (as segments).
    tw: Option<TrmaIn>,
    /// The bytes of our tagged RMA read coming in (as segments): the
    /// read's key and what came.
    trd: Option<rxm::Sar>,
    /// Answers to the peer's tagged RMAs not sent yet, oldest first (a
    /// read's bytes go whole before the next answer); at most
    /// [`ANSWERS_MAX`]: a request beyond waits in its buffer.
    owed: KVec<Answer>,
}

/// Receives posted since the last grant that make a credit packet worth
/// sending (rxm's threshold: half its receives).
const CREDIT_GRANT: i64 = (NRX / 2) as i64;

/// Most answers owed per connection (kfi_tcp's bound too).
const ANSWERS_MAX: usize = 64;

/// A peer's tagged RMA write coming in segments.
struct TrmaIn {
    st: rxm::Sar,
    /// The receive its tag matched, at the write's offset (`None`: none
    /// did: the bytes are dropped, `EREMOTEIO`), and whether the write is
    /// longer than it (what fits is placed, both sides fail `EMSGSIZE`).
    w: Option<RxWork>,
    trunc: bool,
    tag: u64,
}

/// An answer to a peer's tagged RMA (`msg_id` echoed).
enum Answer {
    /// To a write: bytes placed, or a positive errno.
    Done { msg_id: u64, size: u64, err: u32 },
    /// To a read: the bytes of `w` (the matched receive at the read's
    /// offset; it completes once the last packet is posted: they are
    /// copied), `next` the segment to send; or a positive errno.
    Data { msg_id: u64, w: Option<RxWork>, size: u64, tag: u64, next: u64, err: u32 },
}

/// The flags of a receive a peer's tagged RMA read or wrote.
const TRMA_READ_RECV: u64 = rules::F_TAGGED | rules::F_RMA | rules::F_READ | rules::F_RECV;
const TRMA_WRITE_RECV: u64 = rules::F_TAGGED | rules::F_RMA | rules::F_WRITE | rules::F_RECV;

/// How posting a packet went.
#[derive(PartialEq, Eq)]
enum Posted {
    Sent,
    /// Not now: no send buffer free (`ctrl_owed`: a send completion
    /// kicks the work item), the device full (retried after a pause), no
    /// credit (the peer's grant runs the work), or the connection not
    /// established yet, or an iWARP acceptor's peer silent so far (their
    /// event or first packet runs it).
    NoBuf,
    /// The connection is ending (nothing will be sent on it).
    Gone,
}

/// Pieces of a consumer's receive buffer.
struct Pieces(KVec<Seg>);

// SAFETY: they describe a posted receive's buffer (the consumer's, valid
// until the receive completes), used only by the connection's work item
// under `VConn::rx`; the raw pointers are never dereferenced here.
unsafe impl Send for Pieces {}

/// A rendezvous being received: its receive, what the reads fill of it,
/// and what answers and completes it.
struct RndvRx {
    w: RxWork,
    size: u64,
    msg_id: u64,
    tag: u64,
    data: Option<u64>,
    /// The local pieces of each read (valid until its completion).
    segs: [Pieces; NRD],
    /// A read that could not be posted (positive errno; 0: none).
    err: u32,
}

/// Where a message goes.
enum Dest {
    /// A posted receive (maybe too short: truncated).
    Op(RxWork),
    /// Its own buffer: an unexpected tagged message.
    Unexp(KVVec<u8>),
}

/// A segmented message being received.
struct SarRx {
    st: rxm::Sar,
    dest: Dest,
    tag: u64,
    data: Option<u64>,
}

/// A connection of a connectionless endpoint (see the module comment).
#[pin_data]
pub(crate) struct VConn {
    /// Dropped first: closed (nothing completes) before the buffers and
    /// contexts below go.
    conn: Conn,
    wrs: Wrs,
    #[pin]
    s: SpinLockBh<VSt>,
    #[pin]
    rx: Mutex<VRx>,
    #[pin]
    work: Work<VConn>,
}

// SAFETY: the raw pointers (`VSt::map`, a `LaneRef`'s) name the map and
// the endpoint's queues, which outlive the connection's use of them: the
// map stops every connection before they go (`util::rdm`, "Lifetime").
unsafe impl Send for VSt {}

impl VSt {
    /// Whether a SEND may go now: with credits on, one kept for credit
    /// packets (`credit`: this is one).
    fn may_send(&self, credit: bool) -> bool {
        !self.fc || self.peer_credits >= if credit { 1 } else { 2 }
    }

    /// A SEND went: one credit spent (credits on).
    fn sent(&mut self) {
        if self.fc {
            self.peer_credits = self.peer_credits.saturating_sub(1);
        }
    }
}

impl_has_work! {
    impl HasWork<Self> for VConn { self.work }
}

impl VConn {
    /// A connection over the id `conn` makes (an endpoint's id on the
    /// domain's device, or a request: `req`), its buffers allocated.
    /// `conn` is called only once everything else is: a request is not
    /// ours to free if this fails (its event refuses it).
    fn new(conn: impl FnOnce() -> Conn, req: bool) -> Result<Arc<VConn>> {
        let mut tx = KVec::with_capacity(NTX, GFP_KERNEL)?;
        for _ in 0..NTX {
            tx.push(base::zeroed_bytes(BUF, GFP_KERNEL)?, GFP_KERNEL)?;
        }
        let mut bufs = KVec::with_capacity(NRX, GFP_KERNEL)?;
        for _ in 0..NRX {
            bufs.push(base::zeroed_bytes(BUF, GFP_KERNEL)?, GFP_KERNEL)?;
        }
        let wrs = Wrs::new(core::ptr::null(), NSQ, NRX)?;
        let pieces = base::kvec_filled(crate::util::xfer::EMPTY_SEG, rules::IOV_MAX)?;
        let st = VSt {
            to: None,
            stopped: false,
            up: false,
            pump_retry: false,
            ended: false,
            fail_err: bindings::ECONNRESET,
            tx_free: ALL_TX,
            tx_op: [NO_OP; NTX],
            lost: [(NO_OP, 0); NTX],
            lost_n: 0,
            rd_left: 0,
            rd_err: 0,
            ctrl_owed: false,
            tx,
            pieces,
            iwarp: false,
            fc: false,
            hold_tx: false,
            peer_fc: rxm::FLOW_CTRL_PEER_OFF,
            peer_credits: 1,
            avail: -1,
            ring: [(0, 0, false); NRX],
            head: 0,
            n: 0,
            req: None,
            map: core::ptr::null(),
            addrs: None,
        };
        // The id is taken inside the initialiser, which runs only once the
        // allocation succeeded.
        let c = Arc::pin_init(
            pin_init!(VConn {
                conn: conn(),
                wrs,
                s <- new_spinlock_bh!(st, "kfi_verbs_rdm_conn"),
                rx <- new_mutex!(VRx { bufs, unexp: UnexpList::new(), sar: None, rndv: None, tw: None, trd: None, owed: KVec::new() }, "kfi_verbs_rdm_rx"),
                work <- new_work!("kfi_verbs_rdm_conn"),
            }),
            GFP_KERNEL,
        )?;
        c.wrs.set_rdm(c.owner());
        if !req {
            c.conn.set_rdm();
            // SAFETY: see `VConn::owner`.
            unsafe { c.conn.set_owner(c.owner()) };
        }
        Ok(c)
    }

    /// What the connection's reports name: this connection, in an `Arc`
    /// whose last reference goes only after `stop` (the map stops every
    /// connection it made), and `Conn::close` (in `stop`, or the drop)
    /// ends the reports first.
    fn owner(&self) -> *const c_void {
        (self as *const VConn).cast()
    }

    /// The queues it reports to, and its lane.
    fn lane_ref(&self) -> Option<LaneRef<Prov>> {
        let mut to = {
            let s = self.s.lock();
            if s.stopped {
                return None;
            }
            s.to?
        };
        // A peer not in the AV when it connected: found once inserted
        // (the AV's lock, outside ours); the copy kept for the next look.
        if to.resolve() {
            let mut s = self.s.lock();
            if let Some(t) = s.to.as_mut().filter(|t| t.lane == to.lane) {
                *t = to;
            }
        }
        Some(to)
    }

    /// Queues the work item (any context but hard interrupts).
    fn kick(&self) {
        // SAFETY: every `VConn` is in an `Arc` (made by `new`), alive
        // here: the caller holds it or is one of its reports, which end
        // before its last reference goes.
        let a: Arc<VConn> = unsafe { ArcBorrow::from_raw(self) }.into();
        base::enqueue_on(None, a);
    }

    /// Whether the connection ended since last asked, and the transmits
    /// that failed with it, not reported yet.
    fn take_ended(&self) -> (bool, Lost) {
        let mut s = self.s.lock();
        let n = core::mem::take(&mut s.lost_n);
        (core::mem::take(&mut s.ended), Lost { ops: s.lost, n })
    }

    /// Posts receive buffer `k` (process context, `rx` held).
    fn post_rx(&self, r: &mut VRx, k: usize) -> core::result::Result<(), c_int> {
        let Some(b) = r.bufs.get_mut(k) else {
            return Err(-(bindings::EINVAL as c_int));
        };
        let seg = Seg { base: b.as_mut_ptr().cast(), page: core::ptr::null_mut(), offset: 0, len: b.len() };
        // SAFETY: buffer `k` is not posted (handled, or never posted) and
        // lives in this connection, whose close (before the buffers are
        // freed) completes it; `wrs` outlives the queue pair.
        unsafe { self.conn.post_recv(&self.wrs, k, core::slice::from_ref(&seg)) }?;
        self.s.lock().avail += 1;
        Ok(())
    }

    /// Grants the peer the receives posted since the last grant, once
    /// they are [`CREDIT_GRANT`] (credits on; the work item).
    fn grant(&self, d: &EpData, to: LaneRef<Prov>) {
        let n = {
            let s = self.s.lock();
            if !s.fc || !s.up || s.avail < CREDIT_GRANT {
                return;
            }
            s.avail
        };
        let p = Pkt { conn_id: d.rdm_peer_id(to.lane), size: n as u64, ..Pkt::default() };
        if self.post_pkt(Type::Credit, &p, &[], 0) == Posted::Sent {
            self.s.lock().avail -= n;
        }
    }

    /// The queue pair exists: every receive buffer goes to it (process
    /// context).
    fn post_all(&self) {
        let mut r = self.rx.lock();
        for k in 0..NRX {
            for _ in 0..100 {
                match self.post_rx(&mut r, k) {
                    Err(e) if e == -(bindings::EAGAIN as c_int) => base::sleep_briefly(),
                    _ => break,
                }
            }
        }
    }

    /// Stops it for good (process context, never its own work item):
    /// nothing is reported or posted after this returns; what it held
    /// fails with `err`.
    fn stop_with(&self, err: u32) {
        let to = {
            let mut s = self.s.lock();
            s.stopped = true;
            s.fail_err = err;
            s.to
        };
        // Failed before (oldest first; the work item reports no more).
        let (_, lost) = self.take_ended();
        if let Some(to) = to {
            // SAFETY: as in `pump`: the queues outlive the stop.
            lost.report(unsafe { &*to.data_ptr() });
        }
        // Every work request completes (flushed) before this returns,
        // with `fail_err`.
        self.conn.close();
        // SAFETY: our initialised work item; never called from it (the
        // map stops connections from its own work or the close).
        unsafe { bindings::flush_work(Work::raw_get(&self.work)) };
        let mut r = self.rx.lock();
        r.unexp.clear();
        let rndv = r.rndv.take();
        if let Some(SarRx { dest: Dest::Op(w), st, .. }) = r.sar.take() {
            // (Not under `s`: the report takes the queue lock.)
            if let Some(to) = to {
                // SAFETY: the queues outlive the connection's use of them
                // (see `VSt`): this is its last.
                unsafe { &*to.data_ptr() }.rx_failed(&w, err, st.got.min(w.room), 0);
            }
        }
        if let (Some(x), Some(to)) = (rndv, to) {
            // SAFETY: as above.
            unsafe { &*to.data_ptr() }.rx_failed(&x.w, err, 0, 0);
        }
        // A peer's tagged RMA half received, or a read's bytes half sent.
        r.trd = None;
        let tw = r.tw.take().and_then(|x| x.w);
        let owed = core::mem::replace(&mut r.owed, KVec::new());
        if let Some(to) = to {
            // SAFETY: as above.
            let d = unsafe { &*to.data_ptr() };
            let reads = owed.iter().filter_map(|a| match a {
                Answer::Data { w, .. } => w.as_ref(),
                Answer::Done { .. } => None,
            });
            for w in Iterator::chain(tw.iter(), reads) {
                d.rx_failed(w, err, 0, 0);
            }
        }
    }
}

impl ProvRdm for Prov {
    type Conn = VConn;
    type Listener = Conn;
    type Lane = VerbsLane;
    type X = VerbsExt;

    fn listen(map: &Rdm, net: *mut c_void, src: &SockAddr) -> Result<(Conn, u16)> {
        let l = Conn::create(net, true, None).map_err(Error::from_errno)?;
        match Self::listen_on(map, &l, src) {
            Ok(port) => Ok((l, port)),
            Err(e) => {
                // Destroying the id takes its handler mutex: not here,
                // under the endpoint's lock (see `listen_on`). Without
                // memory for that, it goes now (no handler of it ever
                // ran, so nothing can deadlock; lockdep may see the order).
                let _ = base::queue().try_spawn(GFP_KERNEL, move || drop(l));
                Err(e)
            }
        }
    }

    fn stop_listener(l: Conn) {
        l.close();
    }

    /// Posts are for the work item (this runs under the queue lock).
    fn flow(c: &Arc<VConn>) {
        c.kick();
    }

    fn context(domain: *mut sys::kfid_domain, attrs: EpAttrs) -> Result<Pin<KBox<crate::ep::Ep>>> {
        crate::ep::Ep::new_ctx(domain, attrs)
    }
}

impl Prov {
    /// Makes `l` the map's listener on `src`: its port.
    fn listen_on(map: &Rdm, l: &Conn, src: &SockAddr) -> Result<u16> {
        l.set_rdm();
        // SAFETY: the map stops the listener (`stop_listener`, which
        // closes it) before it goes; it does not listen yet. (The
        // endpoint's enable calls this under the endpoint's lock, which
        // rdma_cm handlers take inside their handler mutex.)
        unsafe { l.set_owner_fresh((map as *const Rdm).cast()) };
        l.listen(src, 128).map_err(Error::from_errno)?;
        let a = l.bound_addr().map_err(Error::from_errno)?;
        Ok(a.port)
    }
}

impl MapConn<Prov> for VConn {
    fn connect(net: *mut c_void, src: Option<&SockAddr>, dst: &SockAddr, req: &[u8], to: LaneRef<Prov>) -> Result<Arc<VConn>> {
        // SAFETY: the queues the lane is on, alive while the map runs.
        let d = unsafe { &*to.data_ptr() };
        // SAFETY: the queues' domain (one of ours) outlives them.
        let dom = unsafe { &*d.domain().cast::<Domain>() };
        let conn = Conn::create(net, false, Some(dom.dev())).map_err(Error::from_errno)?;
        let c = VConn::new(move || conn, false)?;
        let iwarp = dom.dev().iwarp();
        {
            let mut s = c.s.lock();
            s.to = Some(to);
            s.iwarp = iwarp;
        }
        let mut pd = [0u8; sys::KFI_VERBS_PDATA_MAX as usize];
        let n = envelope(req, &mut pd)?;
        if iwarp {
            // rxm's credits on (its connect data's `flow_ctrl`).
            pd[1 + rxm::CONNECT_FLOW_CTRL] = rxm::FLOW_CTRL_PEER_ON;
        }
        c.conn.connect(src, dst, &pd[..n], NSQ as u32, NRX as u32).map_err(Error::from_errno)?;
        Ok(c)
    }

    fn start_request(self: &Arc<Self>) {
        self.kick();
    }

    fn addrs(&self) -> Result<(SockAddr, SockAddr)> {
        self.s.lock().addrs.ok_or(Error::from_errno(-(bindings::ENOTCONN as c_int)))
    }

    fn accept(self: &Arc<Self>, data: &[u8; rxm::ACCEPT_BYTES], to: LaneRef<Prov>) -> Result {
        // SAFETY: as in `connect`.
        let d = unsafe { &*to.data_ptr() };
        // SAFETY: as in `connect`.
        let dom = unsafe { &*d.domain().cast::<Domain>() };
        // Not in the request's event (this takes its handler mutex).
        // SAFETY: see `VConn::owner`.
        unsafe { self.conn.set_owner(self.owner()) };
        self.conn.take(dom.dev(), NSQ as u32, NRX as u32).map_err(Error::from_errno)?;
        self.post_all();
        // Credits on an iWARP device, unless the peer said not. (Asked
        // before the lock: the device's lock is a semaphore.)
        let iwarp = dom.dev().iwarp();
        let fc = {
            let mut s = self.s.lock();
            s.to = Some(to);
            s.iwarp = iwarp;
            s.fc = iwarp && s.peer_fc != rxm::FLOW_CTRL_PEER_OFF;
            s.hold_tx = iwarp;
            s.fc
        };
        let mut pd = [0u8; sys::KFI_VERBS_PDATA_MAX as usize];
        let n = envelope(data, &mut pd)?;
        if fc {
            pd[1 + rxm::ACCEPT_FLOW_CTRL] = rxm::FLOW_CTRL_PEER_ON;
        }
        self.conn.accept(&pd[..n]).map_err(Error::from_errno)
    }

    fn reject(&self, data: &[u8; rxm::REJECT_BYTES]) {
        let mut pd = [0u8; sys::KFI_VERBS_PDATA_MAX as usize];
        if let Ok(n) = envelope(data, &mut pd) {
            let _ = self.conn.reject(&pd[..n]);
        }
    }

    fn stop(&self) {
        self.stop_with(bindings::ECONNRESET);
    }

    fn retire(&self, err: u32) {
        let to = self.s.lock().to;
        self.stop_with(err);
        if let Some(to) = to {
            // SAFETY: as in `connect`.
            unsafe { &*to.data_ptr() }.rdm_conn_lost(to.lane, self, err);
        }
    }
}

impl WorkItem for VConn {
    type Pointer = Arc<VConn>;

    /// A request to answer, received packets to move, transmits to post.
    fn run(this: Arc<VConn>) {
        let _noio = base::NoIo::enter();
        let (req, map, pause, to) = {
            let mut s = this.s.lock();
            if s.stopped {
                return;
            }
            (s.req.take(), s.map, core::mem::take(&mut s.pump_retry), s.to)
        };
        if let (Some((b, n)), false) = (req, map.is_null()) {
            // SAFETY: the map stops its pending connections (this one)
            // before it goes.
            unsafe { &*map }.request(&this, &b[..n]);
        }
        loop {
            this.rx_run();
            // A rendezvous ended: packets behind it may go on.
            if !this.rndv_step() {
                break;
            }
        }
        if let Some(to) = to {
            // SAFETY: as in `pump`.
            this.grant(unsafe { &*to.data_ptr() }, to);
        }
        let (ended, lost) = this.take_ended();
        if let (true, Some(to)) = (ended, to) {
            // SAFETY: as in `pump`.
            let d = unsafe { &*to.data_ptr() };
            d.rdm_conn_lost_then(to.lane, &this, bindings::ECONNRESET, || lost.report(d));
            to.down(&this);
            return;
        }
        if pause {
            base::sleep_briefly();
        }
        this.pump();
    }
}

/// A post on an RDM endpoint (`QueueExt::posted`): a transmit goes to its
/// lane (`util::peers::route`) and, connected, to its connection's send
/// buffers now; a receive lets the connections whose messages wait for
/// one go on.
pub(crate) fn posted(q: &mut Queues<VerbsExt>, kind: Kind, i: usize) -> core::result::Result<(), isize> {
    if !kind.is_tx() {
        if !q.ext.peers.enabled() {
            return Err(-(bindings::ENOTCONN as isize));
        }
        let tagged = kind.is_tagged();
        for l in q.ext.peers.iter_mut() {
            if let (Some(c), true) = (&l.conn, tagged || l.x.msg_waiting) {
                c.kick();
            }
        }
        return Ok(());
    }
    if kind.is_atomic() {
        return Err(-(sys::KFI_ENOSYS as isize));
    }
    if q.tx[i].len > RDM_MAX_MSG_SIZE {
        return Err(-(bindings::EMSGSIZE as isize));
    }
    let r = route(q, i)?;
    if r.flow {
        pump_lane(q, r.lane);
    }
    Ok(())
}

/// Kicks the connection of every lane (under `q`): a read of the CQ
/// freed room a message may wait for.
pub(crate) fn kick_lanes(q: &Queues<VerbsExt>) {
    let mut l = 0;
    while let Some(x) = q.ext.peers.lane(l) {
        if let Some(c) = &x.conn {
            c.kick();
        }
        l += 1;
    }
}

/// Hands what waits on lane `lane` to its connection's free send
/// buffers, in order (under `q`).
fn pump_lane(q: &mut Queues<VerbsExt>, lane: u32) {
    let Queues { tx, tx_links, ext, .. } = q;
    let Some(l) = ext.peers.lane_mut(lane) else {
        return;
    };
    let Some(c) = l.conn.clone() else {
        return;
    };
    let peer_id = l.peer.peer_id as u32;
    let mut s = c.s.lock();
    if s.stopped || !s.up || s.hold_tx {
        return;
    }
    while let Some(i) = l.tx_pending.front() {
        if s.tx_free == 0 {
            return;
        }
        let k = s.tx_free.trailing_zeros() as usize;
        let op = &tx[i];
        let mut one = crate::util::xfer::EMPTY_SEG;
        let segs = op.payload(&mut one);
        // `last`: the work request that ends the operation's part here;
        // `answer`: it then waits for the target's answer (tagged RMA).
        let (r, last, answer);
        let pkt_seg;
        let mut rma_len = 0;
        let mut is_pkt = false;
        if op.kind.is_rma() && op.flags & rules::F_TAGGED == 0 {
            // RMA: an RDMA READ or WRITE per remote region of the
            // consumer's bytes for it, the region's key the peer's
            // registration (as rxm does). (Pieces beyond what a work
            // request holds go through a registration of their own.)
            let j = l.x.sar_next as usize;
            let reg = op.region(j);
            let code = if op.kind == Kind::Write { sys::KFI_VERBS_OP_WRITE } else { sys::KFI_VERBS_OP_READ };
            let VSt { pieces, .. } = &mut *s;
            let Some(n) = base::segs_range_in(segs, l.x.rma_at as usize, reg.len as usize, pieces) else {
                c.conn.broken();
                return;
            };
            r = sq_req(code, &pieces[..n], reg.addr.wrapping_add(reg.key >> 32), reg.key as u32);
            (last, answer) = (j + 1 >= op.n_rma, false);
            rma_len = reg.len;
        } else {
            // (No credit: the peer's grant runs the work item, which
            // pumps again.)
            if !s.may_send(false) {
                return;
            }
            is_pkt = true;
            let (ty, p, at, n, end) = tx_packet(op, peer_id, i, l.x.sar_next);
            let len = PKT_BYTES + n as usize;
            let Some(b) = s.tx.get_mut(k) else {
                return;
            };
            let mut hdr = [0u8; PKT_BYTES];
            rxm::encode(ty, &p, &mut hdr);
            pkt_seg = fill_buf(b, &hdr, segs, at as usize, len);
            r = sq_req(sys::KFI_VERBS_OP_SEND, core::slice::from_ref(&pkt_seg), 0, 0);
            (last, answer) = (end, ty.is_tag_rma());
        }
        // SAFETY: send buffer `k` is free (not posted) and lives in the
        // connection, whose close completes it before the buffers go; an
        // RMA's pieces are the consumer's, valid until its completion,
        // its slot held until then; `wrs` outlives the queue pair.
        match unsafe { c.conn.post_send(&c.wrs, k, &r) } {
            Ok(()) => {
                s.tx_free &= !(1u64 << k);
                if is_pkt {
                    s.sent();
                }
                if last {
                    // An RC queue pair completes in order: the send is
                    // done when its last packet is; a tagged RMA when its
                    // answer comes.
                    s.tx_op[k] = if answer { NO_OP } else { i as u32 };
                    l.x.sar_next = 0;
                    l.x.rma_at = 0;
                    tx_links.pop_front(&mut l.tx_pending);
                    if answer {
                        tx_links.push_back(&mut l.x.trma_wait, i);
                    }
                } else {
                    s.tx_op[k] = NO_OP;
                    l.x.sar_next += 1;
                    l.x.rma_at += rma_len;
                }
            }
            // The device cannot take it now: its next completion tries
            // again, or (none in flight) the work item after a pause.
            Err(e) if e == -(bindings::EAGAIN as c_int) => {
                if s.tx_free == ALL_TX {
                    s.pump_retry = true;
                    c.kick();
                }
                return;
            }
            Err(_) => {
                // The queue pair is gone or broken: the connection ends
                // and the lane's transmits fail with it.
                c.conn.broken();
                return;
            }
        }
    }
}

/// The next packet of transmit `op` (slot `i`) whose segment `j` is next:
/// its type and header, the offset and length of its payload in the
/// operation's buffer, and whether it is the operation's last.
///
/// A message goes eager (one packet) or as segments (SAR). A tagged RMA
/// goes as kfabric's packets (`Documentation/rxm-verbs-wire.md`): a write
/// as `TagRmaWrite` with its bytes (whole, or as segments), a read as one
/// `TagRmaRead`; `msg_id` is the slot, `data` the offset in the target's
/// receive, `tag` the region's key.
fn tx_packet(op: &crate::util::xfer::TxOp, peer_id: u32, i: usize, j: u64) -> (Type, Pkt, u64, u64, bool) {
    let trma = op.kind.is_rma();
    let tagged = trma || op.kind == Kind::TSend;
    let mut p = Pkt {
        conn_id: peer_id,
        op: Some(if tagged { Op::Tagged } else { Op::Msg }),
        cq_data: !trma && op.flags & rules::F_REMOTE_CQ_DATA != 0,
        size: op.len,
        data: op.data,
        tag: if tagged { op.tag } else { 0 },
        ..Pkt::default()
    };
    if trma {
        let reg = op.region(0);
        (p.msg_id, p.data, p.tag) = (i as u64, reg.addr, reg.key);
        if op.kind == Kind::Read {
            return (Type::TagRmaRead, p, 0, 0, true);
        }
    }
    let whole = if trma { Type::TagRmaWrite } else { Type::Eager };
    if op.len <= SEG {
        return (whole, p, 0, op.len, true);
    }
    let (kind, at, n) = rxm::Sar::segment(op.len, SEG, j);
    p.msg_id = i as u64;
    p.seg = Some(kind);
    p.seg_no = j as u32;
    p.seg_size = n as u16;
    (if trma { whole } else { Type::Seg }, p, at, n, kind == rxm::Seg::Last)
}

impl VConn {
    /// Posts what waits on its lane (process context).
    fn pump(&self) {
        let Some(to) = self.lane_ref() else {
            return;
        };
        // SAFETY: the queues outlive the connection's use (see `VSt`).
        let d = unsafe { &*to.data_ptr() };
        let mut g = d.q.lock();
        if g.ext.peers.lane(to.lane).is_some_and(|l| l.is_conn(self)) {
            pump_lane(&mut g, to.lane);
        }
    }

    /// Send buffer `k` completed (softirq).
    fn tx_wc(&self, k: usize, wc: &sys::kfi_verbs_wc) {
        if (NTX..NSQ).contains(&k) {
            return self.rd_wc(wc);
        }
        let (i, to, err, broken) = {
            let mut s = self.s.lock();
            if k >= NTX {
                return;
            }
            let i = core::mem::replace(&mut s.tx_op[k], NO_OP);
            s.tx_free |= 1u64 << k;
            if core::mem::take(&mut s.ctrl_owed) {
                self.kick();
            }
            match wc.status {
                0 => (i, s.to, 0, false),
                // Flushed by our stop: what the stop says.
                _ if s.stopped => (i, s.to, s.fail_err, false),
                // The queue pair is in error, the connection over: this
                // send failed, or was flushed as its end (the peer's
                // disconnect, another send's failure). Reported by the
                // work item (see `VSt::lost`).
                st => {
                    let err = if st == wc::WR_FLUSH_ERR { bindings::ECONNRESET } else { error_of(st, false) };
                    if i != NO_OP && s.lost_n < NTX {
                        let n = s.lost_n;
                        s.lost[n] = (i, err);
                        s.lost_n += 1;
                    }
                    s.up = false;
                    s.ended = true;
                    (NO_OP, s.to, err, true)
                }
            }
        };
        if broken {
            self.conn.broken();
            self.kick();
        }
        let Some(to) = to else {
            return;
        };
        // SAFETY: as in `pump`: completions end (the close flushes them)
        // before the queues go.
        let d = unsafe { &*to.data_ptr() };
        if i != NO_OP {
            if err == 0 {
                d.tx_complete(i as usize);
            } else {
                d.tx_failed(i as usize, err);
            }
        }
        if err == 0 {
            let mut g = d.q.lock();
            if g.ext.peers.lane(to.lane).is_some_and(|l| l.is_conn(self)) {
                pump_lane(&mut g, to.lane);
            }
        }
    }

    /// Receive buffer `k` completed (softirq): for the work item.
    fn rx_wc(&self, k: usize, wc: &sys::kfi_verbs_wc) {
        {
            let mut s = self.s.lock();
            // The peer spoke first: we may (MPA's rule, `hold_tx`).
            s.hold_tx = false;
            if s.n < NRX && k < NRX {
                let at = (s.head + s.n) % NRX;
                s.ring[at] = (k as u16, wc.byte_len, wc.status == 0);
                s.n += 1;
            }
        }
        self.kick();
    }

    /// Moves the received packets, in order (the work item).
    fn rx_run(&self) {
        let Some(to) = self.lane_ref() else {
            return;
        };
        // SAFETY: as in `pump`.
        let d = unsafe { &*to.data_ptr() };
        let mut r = self.rx.lock();
        r.unexp.deliver(d);
        loop {
            // Answers owed to the peer's tagged RMAs, as send buffers
            // allow (a send completion kicks the work for the rest).
            self.answer(&mut r, d, to);
            let front = {
                let s = self.s.lock();
                if s.stopped {
                    return;
                }
                (s.n > 0).then(|| s.ring[s.head])
            };
            let Some((k, len, ok)) = front else {
                return;
            };
            let step = if ok { self.rx_one(&mut r, d, to, k as usize, len as usize) } else { Step::Drop };
            match step {
                Step::Wait => return,
                Step::Done | Step::Drop | Step::Broken => {
                    {
                        let mut s = self.s.lock();
                        s.head = (s.head + 1) % NRX;
                        s.n -= 1;
                    }
                    match step {
                        Step::Done => {
                            // (siw refuses while its queue pair changes
                            // state: briefly.)
                            for _ in 0..100 {
                                match self.post_rx(&mut r, k as usize) {
                                    Err(e) if e == -(bindings::EAGAIN as c_int) => base::sleep_briefly(),
                                    _ => break,
                                }
                            }
                        }
                        Step::Broken => {
                            self.conn.broken();
                            return;
                        }
                        _ => {}
                    }
                }
            }
        }
    }

    /// Handles the packet in receive buffer `k` (`len` bytes).
    fn rx_one(&self, r: &mut VRx, d: &EpData, to: LaneRef<Prov>, k: usize, len: usize) -> Step {
        let VRx { bufs, unexp, sar, rndv, tw, trd, owed } = r;
        let Some(b) = bufs.get(k) else {
            return Step::Broken;
        };
        let bytes = &b[..len.min(b.len())];
        let Ok((ty, p)) = rxm::decode(bytes) else {
            return Step::Broken;
        };
        let payload = &bytes[PKT_BYTES..];
        match ty {
            // The peer's grant (credits on; else harmless).
            Type::Credit => {
                let mut s = self.s.lock();
                s.peer_credits = s.peer_credits.saturating_add(rxm::credits(bytes));
                return Step::Done;
            }
            // Answers to our tagged RMAs.
            Type::TagRmaDone => return trma_done(d, to, &p, payload),
            Type::TagRmaData => return rx_trma_data(d, to, trd, &p, payload),
            // A transmit context's connection carries nothing else to it.
            _ if to.one_way => return Step::Broken,
            Type::Eager => {}
            Type::Seg => return rx_seg(d, to, sar, unexp, &p, payload),
            Type::RndvReq => return self.rx_rndv(rndv, unexp, d, to, &p, payload),
            // A request's answer is owed once its last packet is in:
            // room for it first (else it waits for answers to go).
            Type::TagRmaWrite | Type::TagRmaRead if !owe_room(owed) => return Step::Wait,
            Type::TagRmaWrite => return rx_trma_write(d, to, tw, owed, &p, payload),
            Type::TagRmaRead => return rx_trma_read(d, to, owed, &p, payload),
            // Write rendezvous, atomics: not done here (a protocol error).
            _ => return Step::Broken,
        }
        if p.size != payload.len() as u64 {
            return Step::Broken;
        }
        let tag = (p.op == Some(Op::Tagged)).then_some(p.tag);
        let Some(mut dest) = dest_of(d, to, unexp, p.size, tag) else {
            // Kept in its buffer until a receive (or room) comes.
            return Step::Wait;
        };
        place(&mut dest, 0, payload);
        finish(d, to, unexp, dest, p.size, p.cq_data.then_some(p.data), p.tag);
        Step::Done
    }
}

impl VConn {
    /// A peer's rendezvous request `p` (its pieces in `payload`): once a
    /// receive matches, one RDMA READ per piece into it (what fits), the
    /// packet's buffer reposted; `rndv_step` answers and completes it.
    /// One at a time: a second waits in its buffer until then. Not kept
    /// as unexpected: it waits for its receive the same way.
    fn rx_rndv(&self, rndv: &mut Option<RndvRx>, unexp: &mut UnexpList, d: &EpData, to: LaneRef<Prov>, p: &Pkt, payload: &[u8]) -> Step {
        if rndv.is_some() {
            return Step::Wait;
        }
        let Some((iovs, count)) = rxm::decode_rndv(payload) else {
            return Step::Broken;
        };
        let iovs = &iovs[..count.min(NRD)];
        let total = iovs.iter().fold(0u64, |a, v| a.saturating_add(v.len));
        if iovs.is_empty() || total != p.size || p.size > RDM_MAX_MSG_SIZE {
            return Step::Broken;
        }
        let w = if p.op == Some(Op::Tagged) {
            unexp.take_tagged(d, p.tag, to.from)
        } else {
            d.rx_take_msg(p.size, to.from, to.lane).ok().flatten()
        };
        let Some(w) = w else {
            return Step::Wait;
        };
        let want = p.size.min(w.room);
        let mut x = RndvRx {
            w,
            size: p.size,
            msg_id: p.msg_id,
            tag: p.tag,
            data: p.cq_data.then_some(p.data),
            segs: core::array::from_fn(|_| Pieces(KVec::new())),
            err: 0,
        };
        let mut at = 0u64;
        for (k, v) in iovs.iter().enumerate() {
            if at >= want {
                break;
            }
            let n = v.len.min(want - at);
            let segs = &mut x.segs[k].0;
            let from = (x.w.offset + at) as usize;
            if base::segs_range(x.w.op.buf.segs(), from, n as usize, segs).is_err() {
                x.err = bindings::ENOMEM;
                break;
            }
            let r = sq_req(sys::KFI_VERBS_OP_READ, segs, v.addr, v.key as u32);
            // Counted first: its completion may come before the post
            // returns.
            self.s.lock().rd_left += 1;
            // SAFETY: read slot `NTX + k` is free (one rendezvous at a
            // time, its reads all completed before the next); the pieces
            // (kept in `x` until `rndv_step` sees every read complete)
            // describe the receive's buffer, writable until it completes;
            // `wrs` outlives the queue pair.
            if let Err(e) = unsafe { self.conn.post_send(&self.wrs, NTX + k, &r) } {
                self.s.lock().rd_left -= 1;
                x.err = (-e) as u32;
                break;
            }
            at += n;
        }
        *rndv = Some(x);
        Step::Done
    }

    /// A read of the rendezvous completed (softirq).
    fn rd_wc(&self, wc: &sys::kfi_verbs_wc) {
        {
            let mut s = self.s.lock();
            s.rd_left = s.rd_left.saturating_sub(1);
            if wc.status != 0 && s.rd_err == 0 {
                s.rd_err = if wc.status == wc::WR_FLUSH_ERR { bindings::ECONNRESET } else { error_of(wc.status, false) };
            }
        }
        self.kick();
    }

    /// The rendezvous being received, once its reads are done: `rd_done`
    /// to the peer (whose send completes with it), then its receive
    /// completes (short: `KFI_ETRUNC`). A failed read fails the receive
    /// and ends the connection (the peer's send fails with it). True if
    /// it ended (packets behind it may go on).
    fn rndv_step(&self) -> bool {
        let Some(to) = self.lane_ref() else {
            return false;
        };
        // SAFETY: as in `pump`.
        let d = unsafe { &*to.data_ptr() };
        let mut r = self.rx.lock();
        let Some(x) = r.rndv.as_ref() else {
            return false;
        };
        let (left, rd_err) = {
            let s = self.s.lock();
            (s.rd_left, s.rd_err)
        };
        if left > 0 {
            return false;
        }
        let err = if x.err != 0 { x.err } else { rd_err };
        if err == 0 && !self.post_rd_done(x.msg_id, d.rdm_peer_id(to.lane)) {
            // No send buffer yet: a send completion kicks us.
            return false;
        }
        let Some(x) = r.rndv.take() else {
            return false;
        };
        self.s.lock().rd_err = 0;
        if err != 0 {
            d.rx_failed(&x.w, err, 0, 0);
            drop(r);
            self.conn.broken();
            return true;
        }
        let VRx { unexp, .. } = &mut *r;
        finish(d, to, unexp, Dest::Op(x.w), x.size, x.data, x.tag);
        true
    }

    /// Sends `rd_done` for the peer's rendezvous `msg_id` (`peer_id`: the
    /// peer's index of the connection). False if no send buffer is free
    /// now (`ctrl_owed`); true once sent, or when it cannot be (the
    /// connection is ending: the peer's send fails anyway).
    fn post_rd_done(&self, msg_id: u64, peer_id: u32) -> bool {
        let p = Pkt { conn_id: peer_id, msg_id, ..Pkt::default() };
        self.post_pkt(Type::RndvRdDone, &p, &[], 0) != Posted::NoBuf
    }

    /// Posts a `ty` packet with header `p` and `n` bytes of payload from
    /// `segs` at `at` (copied into a free send buffer), carrying no
    /// operation of ours (process context).
    fn post_pkt(&self, ty: Type, p: &Pkt, segs: &[Seg], at: usize) -> Posted {
        let n = p.seg.map_or(if ty == Type::TagRmaData { p.size as usize } else { 0 }, |_| usize::from(p.seg_size));
        let mut s = self.s.lock();
        if s.stopped || s.ended {
            return Posted::Gone;
        }
        if !s.up || s.hold_tx {
            // A request may come before our side saw the connection
            // established: its event runs the work again (as the peer's
            // first packet does for an iWARP acceptor).
            return Posted::NoBuf;
        }
        // (No credit: the peer's grant comes as a packet, which runs the
        // work again.)
        if !s.may_send(ty == Type::Credit) {
            return Posted::NoBuf;
        }
        if s.tx_free == 0 {
            s.ctrl_owed = true;
            return Posted::NoBuf;
        }
        let k = s.tx_free.trailing_zeros() as usize;
        let Some(b) = s.tx.get_mut(k) else {
            return Posted::Gone;
        };
        let len = PKT_BYTES + n;
        let mut hdr = [0u8; PKT_BYTES];
        if ty == Type::Credit {
            // (`size` carries the count here.)
            rxm::encode_credit(p.conn_id, p.size, &mut hdr);
        } else {
            rxm::encode(ty, p, &mut hdr);
        }
        let seg = fill_buf(b, &hdr, segs, at, len);
        let r = sq_req(sys::KFI_VERBS_OP_SEND, core::slice::from_ref(&seg), 0, 0);
        // SAFETY: as in `pump_lane`: send buffer `k` is free and lives in
        // the connection, whose close completes it.
        match unsafe { self.conn.post_send(&self.wrs, k, &r) } {
            Ok(()) => {
                s.tx_free &= !(1u64 << k);
                s.tx_op[k] = NO_OP;
                s.sent();
                Posted::Sent
            }
            Err(e) if e == -(bindings::EAGAIN as c_int) => {
                // Retried by the work item after a pause.
                s.ctrl_owed = true;
                s.pump_retry = true;
                drop(s);
                self.kick();
                Posted::NoBuf
            }
            Err(_) => {
                drop(s);
                self.conn.broken();
                Posted::Gone
            }
        }
    }

    /// Sends the answers owed to the peer's tagged RMAs, in order, as
    /// send buffers allow (the work item, `rx` held); those left wait for
    /// a send completion, which kicks the work (`ctrl_owed`). A read's
    /// receive completes once its last packet is posted (its bytes are
    /// copied); if the connection ends first, it fails.
    fn answer(&self, r: &mut VRx, d: &EpData, to: LaneRef<Prov>) {
        if r.owed.is_empty() {
            return;
        }
        let peer_id = d.rdm_peer_id(to.lane);
        while let Some(a) = r.owed.first_mut() {
            let (posted, done) = match a {
                Answer::Done { msg_id, size, err } => {
                    let p = Pkt { conn_id: peer_id, msg_id: *msg_id, op: Some(Op::Tagged), size: *size, data: u64::from(*err), ..Pkt::default() };
                    (self.post_pkt(Type::TagRmaDone, &p, &[], 0), true)
                }
                Answer::Data { msg_id, w, size, next, err, .. } => {
                    let mut p = Pkt { conn_id: peer_id, msg_id: *msg_id, op: Some(Op::Tagged), data: u64::from(*err), ..Pkt::default() };
                    match w {
                        Some(w) if *err == 0 => {
                            p.size = *size;
                            let (at, last) = if *size <= SEG {
                                (0, true)
                            } else {
                                let (kind, at, n) = rxm::Sar::segment(*size, SEG, *next);
                                (p.seg, p.seg_no, p.seg_size) = (Some(kind), *next as u32, n as u16);
                                (at, kind == rxm::Seg::Last)
                            };
                            let posted = self.post_pkt(Type::TagRmaData, &p, w.op.buf.segs(), (w.offset + at) as usize);
                            if posted == Posted::Sent {
                                *next += 1;
                            }
                            (posted, last)
                        }
                        _ => (self.post_pkt(Type::TagRmaData, &p, &[], 0), true),
                    }
                }
            };
            match posted {
                Posted::NoBuf => return,
                Posted::Sent if !done => continue,
                _ => {}
            }
            if let Some(Answer::Data { w: Some(w), size, tag, err: 0, .. }) = base::kvec_remove(&mut r.owed, 0) {
                if posted == Posted::Sent {
                    d.rx_done_as(&w, size, None, tag, TRMA_READ_RECV);
                } else {
                    d.rx_failed(&w, bindings::ECONNRESET, 0, 0);
                }
            }
        }
    }
}

/// Whether an answer can be owed: fewer than [`ANSWERS_MAX`], room for
/// one more reserved (so that owing it allocates nothing).
fn owe_room(owed: &mut KVec<Answer>) -> bool {
    owed.len() < ANSWERS_MAX && owed.reserve(1, GFP_KERNEL).is_ok()
}

/// Owes `a` (room reserved by [`owe_room`]).
fn owe(owed: &mut KVec<Answer>, a: Answer) {
    // Within the room reserved: allocates nothing, cannot fail.
    let _ = owed.push(a, GFP_NOWAIT);
}

/// Fills send buffer `b` with a packet of `len` bytes: header `hdr`, then
/// the payload from `segs` at `at`; the piece that describes it.
fn fill_buf(b: &mut [u8], hdr: &[u8; PKT_BYTES], segs: &[Seg], at: usize, len: usize) -> Seg {
    b[..PKT_BYTES].copy_from_slice(hdr);
    base::copy_from_segs_at(segs, at, &mut b[PKT_BYTES..len]);
    Seg { base: b.as_mut_ptr().cast(), page: core::ptr::null_mut(), offset: 0, len }
}

/// A SEND of `segs` (`raddr`, `rkey` 0), or an RDMA READ into them of
/// the peer's `raddr` with `rkey`: signalled, not inline.
fn sq_req(op: u32, segs: &[Seg], raddr: u64, rkey: u32) -> sys::kfi_verbs_sq_req {
    sys::kfi_verbs_sq_req {
        op: op as i32,
        segs: segs.as_ptr(),
        nseg: segs.len() as c_uint,
        inline_ok: false,
        imm: false,
        imm_data: 0,
        fence: false,
        raddr,
        rkey,
        compare_add: 0,
        swap: 0,
        result: core::ptr::null_mut(),
    }
}

/// Where a message of `len` bytes (`tag`: tagged) from the lane `to`
/// goes: a posted receive, or its own buffer (an unexpected tagged one);
/// `None` if nowhere yet (it waits in its receive buffer).
fn dest_of(d: &EpData, to: LaneRef<Prov>, unexp: &mut UnexpList, len: u64, tag: Option<u64>) -> Option<Dest> {
    let Some(tag) = tag else {
        return match d.rx_take_msg(len, to.from, to.lane) {
            Ok(Some(w)) => Some(Dest::Op(w)),
            Ok(None) | Err(NoRoom) => None,
        };
    };
    if let Some(w) = unexp.take_tagged(d, tag, to.from) {
        return Some(Dest::Op(w));
    }
    // Room for its list entry first, so that keeping it once its bytes
    // are in cannot fail.
    if !unexp.has_room(len, UNEXP_MAX, UNEXP_LIMIT) || unexp.reserve(GFP_KERNEL | __GFP_NOWARN).is_err() {
        return None;
    }
    base::zeroed_bytes(len as usize, GFP_KERNEL | __GFP_NOWARN).ok().map(Dest::Unexp)
}

/// Puts `src` at `at` of message destination `dest` (what fits a short
/// receive).
fn place(dest: &mut Dest, at: u64, src: &[u8]) {
    match dest {
        Dest::Op(w) => {
            let keep = w.room.saturating_sub(at).min(src.len() as u64) as usize;
            base::copy_to_segs(w.op.buf.segs(), (w.offset + at) as usize, &src[..keep]);
        }
        Dest::Unexp(b) => {
            let at = at as usize;
            if let Some(to) = b.get_mut(at..at + src.len()) {
                to.copy_from_slice(src);
            }
        }
    }
}

/// A message of `size` bytes is whole in `dest`: its receive completes
/// (truncated: `KFI_ETRUNC`), or it joins the unexpected ones.
fn finish(d: &EpData, to: LaneRef<Prov>, unexp: &mut UnexpList, dest: Dest, size: u64, data: Option<u64>, tag: u64) {
    match dest {
        Dest::Op(w) if size > w.room => d.rx_failed(&w, sys::KFI_ETRUNC, w.room, size - w.room),
        Dest::Op(w) => d.rx_done(&w, size, data, tag),
        Dest::Unexp(buf) => {
            let u = Unexp { tag, src: to.from, data, ack: false, buf, claimed: None };
            // Within the room reserved with its buffer: allocates nothing.
            let _ = unexp.push(u);
            unexp.deliver(d);
        }
    }
}

/// A segment `p` with `payload`: the first is matched as its whole
/// message would be, each placed at its offset, the last completes it.
fn rx_seg(d: &EpData, to: LaneRef<Prov>, sar: &mut Option<SarRx>, unexp: &mut UnexpList, p: &Pkt, payload: &[u8]) -> Step {
    if payload.len() != usize::from(p.seg_size) {
        return Step::Broken;
    }
    if sar.is_none() {
        let Some(st) = rxm::Sar::first(p) else {
            return Step::Broken;
        };
        let tag = (p.op == Some(Op::Tagged)).then_some(p.tag);
        let Some(dest) = dest_of(d, to, unexp, p.size, tag) else {
            return Step::Wait;
        };
        *sar = Some(SarRx { st, dest, tag: p.tag, data: p.cq_data.then_some(p.data) });
    } else if !sar.as_ref().is_some_and(|x| x.st.continues(p)) {
        return Step::Broken;
    }
    let Some(x) = sar.as_mut() else {
        return Step::Broken;
    };
    place(&mut x.dest, x.st.got, payload);
    if x.st.placed(payload.len() as u64) {
        if let Some(x) = sar.take() {
            finish(d, to, unexp, x.dest, x.st.size, x.data, x.tag);
        }
    }
    Step::Done
}

/// The tagged RMA `key` of lane `lane` waiting for its answer: its
/// buffer and length (what a read's bytes go to). `None` if no such
/// operation waits (`read`: a read; else a write). The operation stays
/// until [`trma_end`], which only this connection's work item calls (a
/// connection's end fails the lane's after stopping that work): its
/// buffer stays valid meanwhile.
fn trma_op(d: &EpData, lane: u32, key: u64, read: bool) -> Option<(crate::util::xfer::Buf, u64)> {
    let g = d.q.lock();
    let l = g.ext.peers.lane(lane)?;
    let i = g.tx_links.find_first(&l.x.trma_wait, |i| i as u64 == key)?;
    let op = &g.tx[i];
    ((op.kind == Kind::Read) == read).then_some((op.buf, op.len))
}

/// Ends tagged RMA `key` of lane `lane` (a read if `read`): completes it,
/// or fails it with `err` (positive). False if no such operation waits.
fn trma_end(d: &EpData, lane: u32, key: u64, read: bool, err: u32) -> bool {
    let Some(i) = d.lane_take(lane, |x| &mut x.trma_wait, |i, op| i as u64 == key && (op.kind == Kind::Read) == read) else {
        return false;
    };
    if err == 0 {
        d.tx_complete(i);
    } else {
        d.tx_failed(i, err);
    }
    true
}

/// The answer to one of our tagged RMA writes.
fn trma_done(d: &EpData, to: LaneRef<Prov>, p: &Pkt, payload: &[u8]) -> Step {
    if !payload.is_empty() || p.seg.is_some() || !trma_end(d, to.lane, p.msg_id, false, rxm::tag_rma_status(p.data)) {
        return Step::Broken;
    }
    Step::Done
}

/// Bytes of one of our tagged RMA reads (whole, or its next segment), or
/// its failure; its last completes it. Exactly the bytes asked come.
fn rx_trma_data(d: &EpData, to: LaneRef<Prov>, trd: &mut Option<rxm::Sar>, p: &Pkt, payload: &[u8]) -> Step {
    let key = p.msg_id;
    if p.data != 0 {
        let ok = p.size == 0 && payload.is_empty() && trd.is_none() && trma_end(d, to.lane, key, true, rxm::tag_rma_status(p.data));
        return if ok { Step::Done } else { Step::Broken };
    }
    let Some((buf, len)) = trma_op(d, to.lane, key, true) else {
        return Step::Broken;
    };
    if len != p.size {
        return Step::Broken;
    }
    let at = match p.seg {
        None if trd.is_none() && payload.len() as u64 == p.size => {
            base::copy_to_segs(buf.segs(), 0, payload);
            return if trma_end(d, to.lane, key, true, 0) { Step::Done } else { Step::Broken };
        }
        None => return Step::Broken,
        Some(_) if payload.len() != usize::from(p.seg_size) => return Step::Broken,
        Some(_) => match trd {
            None => match rxm::Sar::first(p) {
                Some(st) => trd.insert(st).got,
                None => return Step::Broken,
            },
            Some(st) if st.continues(p) => st.got,
            Some(_) => return Step::Broken,
        },
    };
    base::copy_to_segs(buf.segs(), at as usize, payload);
    if trd.as_mut().is_some_and(|st| st.placed(payload.len() as u64)) {
        *trd = None;
        if !trma_end(d, to.lane, key, true, 0) {
            return Step::Broken;
        }
    }
    Step::Done
}

/// The receive a peer's tagged RMA `p` names: its tag, exactly, posted
/// for this peer (or any), moved to the offset asked (`p.data`); and
/// whether `p.size` bytes from there go beyond it.
fn trma_target(d: &EpData, to: LaneRef<Prov>, p: &Pkt) -> (Option<RxWork>, bool) {
    match d.rx_take_tagged(p.tag, to.from, |_, _, _| false).ok().flatten() {
        Some(mut w) => {
            let at = p.data.min(w.room);
            w.offset += at;
            w.room -= at;
            let trunc = p.data > at || p.size > w.room;
            (Some(w), trunc)
        }
        None => (None, false),
    }
}

/// Puts a tagged RMA write's bytes `src`, at `at` of it, into its
/// receive (what fits).
fn trma_place(w: &Option<RxWork>, at: u64, src: &[u8]) {
    if let Some(w) = w {
        let keep = w.room.saturating_sub(at).min(src.len() as u64) as usize;
        base::copy_to_segs(w.op.buf.segs(), (w.offset + at) as usize, &src[..keep]);
    }
}

/// A peer's tagged RMA write of `size` bytes is in: its receive completes
/// (or fails: too long), and the answer says so.
fn trma_written(d: &EpData, msg_id: u64, w: Option<RxWork>, trunc: bool, size: u64, tag: u64) -> Answer {
    match w {
        Some(w) if trunc => {
            d.rx_failed(&w, bindings::EMSGSIZE, w.room, size.saturating_sub(w.room));
            Answer::Done { msg_id, size: 0, err: bindings::EMSGSIZE }
        }
        Some(w) => {
            d.rx_done_as(&w, size, None, tag, TRMA_WRITE_RECV);
            Answer::Done { msg_id, size, err: 0 }
        }
        None => Answer::Done { msg_id, size: 0, err: bindings::EREMOTEIO },
    }
}

/// A packet of a peer's tagged RMA write (whole, or a segment): the first
/// matches the receive, each is placed, the last completes it and owes
/// the answer.
fn rx_trma_write(d: &EpData, to: LaneRef<Prov>, tw: &mut Option<TrmaIn>, owed: &mut KVec<Answer>, p: &Pkt, payload: &[u8]) -> Step {
    if p.seg.is_none() {
        if tw.is_some() || payload.len() as u64 != p.size {
            return Step::Broken;
        }
        let (w, trunc) = trma_target(d, to, p);
        trma_place(&w, 0, payload);
        owe(owed, trma_written(d, p.msg_id, w, trunc, p.size, p.tag));
        return Step::Done;
    }
    if payload.len() != usize::from(p.seg_size) {
        return Step::Broken;
    }
    let x = match tw {
        None => {
            let Some(st) = rxm::Sar::first(p) else {
                return Step::Broken;
            };
            let (w, trunc) = trma_target(d, to, p);
            tw.insert(TrmaIn { st, w, trunc, tag: p.tag })
        }
        Some(x) if x.st.continues(p) => x,
        Some(_) => return Step::Broken,
    };
    trma_place(&x.w, x.st.got, payload);
    if x.st.placed(payload.len() as u64) {
        if let Some(x) = tw.take() {
            owe(owed, trma_written(d, x.st.msg_id, x.w, x.trunc, x.st.size, x.tag));
        }
    }
    Step::Done
}

/// A peer's tagged RMA read: the answer owed is the receive's bytes from
/// the offset asked (all of them there, else `EMSGSIZE`, the receive
/// failing too), or `EREMOTEIO` (no receive).
fn rx_trma_read(d: &EpData, to: LaneRef<Prov>, owed: &mut KVec<Answer>, p: &Pkt, payload: &[u8]) -> Step {
    if !payload.is_empty() || p.seg.is_some() {
        return Step::Broken;
    }
    let (w, trunc) = trma_target(d, to, p);
    let err = match &w {
        Some(w) if trunc => {
            d.rx_failed(w, bindings::EMSGSIZE, 0, p.size.saturating_sub(w.room));
            bindings::EMSGSIZE
        }
        Some(_) => 0,
        None => bindings::EREMOTEIO,
    };
    let w = w.filter(|_| err == 0);
    owe(owed, Answer::Data { msg_id: p.msg_id, w, size: p.size, tag: p.tag, next: 0, err });
    Step::Done
}

/// What one receive completion came to.
#[derive(Clone, Copy)]
enum Step {
    /// Handled: the buffer is posted again.
    Done,
    /// Cannot go anywhere yet (no receive, no CQ slot): the work waits.
    Wait,
    /// Flushed or failed: the connection is ending.
    Drop,
    /// The peer broke the protocol: the connection ends.
    Broken,
}

/// An event of a connection of a connectionless endpoint (kfi_verbs_cm.c:
/// the rdma_cm handler, its mutex held, or the removal work).
///
/// # Safety
/// `ctx` is the `VConn` named by `set_owner` (alive until its connection
/// is closed); `ev` is valid for the call, its private data `pdata_len`
/// bytes (or NULL).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_verbs_rdm_cm_event(ctx: *mut c_void, ev: *const sys::kfi_verbs_cm_ev) {
    // SAFETY: by the caller's contract.
    let (c, ev) = unsafe { (&*ctx.cast::<VConn>(), &*ev) };
    let pdata: &[u8] = if ev.pdata.is_null() {
        &[]
    } else {
        // SAFETY: `pdata_len` readable bytes, for the call.
        unsafe { core::slice::from_raw_parts(ev.pdata, ev.pdata_len as usize) }
    };
    let Some(to) = c.lane_ref() else {
        return;
    };
    match ev.type_ as u32 {
        sys::KFI_VERBS_EV_QP => c.post_all(),
        sys::KFI_VERBS_EV_ESTABLISHED => {
            {
                let mut s = c.s.lock();
                s.up = true;
                if s.iwarp && s.map.is_null() {
                    // Ours connected: credits if the acceptor said so.
                    let accept = rxm::Accept::decode(unwrap_pdata(pdata));
                    s.fc = accept.is_some_and(|a| a.flow_ctrl != rxm::FLOW_CTRL_PEER_OFF);
                }
            }
            to.up(c, unwrap_pdata(pdata));
            c.kick();
        }
        sys::KFI_VERBS_EV_ERROR => {
            let data = unwrap_pdata(pdata);
            if ev.status == -(bindings::ECONNREFUSED as c_int) && !data.is_empty() {
                to.failed(c, Failure::Rejected(data));
            } else {
                let e = if ev.status < 0 { (-ev.status) as u32 } else { bindings::ECONNRESET };
                to.failed(c, Failure::Error(e));
            }
        }
        sys::KFI_VERBS_EV_DISCONNECTED | sys::KFI_VERBS_EV_REMOVED => {
            // The work item first moves what arrived before the end (the
            // queue pair was drained before this event), then reports it.
            {
                let mut s = c.s.lock();
                s.up = false;
                s.ended = true;
            }
            c.kick();
        }
        _ => {}
    }
}

/// A request to a connectionless endpoint's listener (kfi_verbs_cm.c,
/// the rdma_cm handler with the listener's and the request's handler
/// mutexes held): taken (0) and answered later from the new connection's
/// work item.
///
/// # Safety
/// `ctx` is the map named by `set_owner` on the listener (alive until
/// the listener is closed); `ev` is valid for the call.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_verbs_rdm_pep_event(ctx: *mut c_void, ev: *const sys::kfi_verbs_cm_ev) -> c_int {
    // SAFETY: by the caller's contract.
    let (map, ev) = unsafe { (&*ctx.cast::<Rdm>(), &*ev) };
    if ev.type_ as u32 != sys::KFI_VERBS_EV_CONNREQ {
        return 0;
    }
    let pdata: &[u8] = if ev.pdata.is_null() {
        &[]
    } else {
        // SAFETY: `pdata_len` readable bytes, for the call.
        unsafe { core::slice::from_raw_parts(ev.pdata, ev.pdata_len as usize) }
    };
    let data = unwrap_pdata(pdata);
    let mut req = [0u8; sys::KFI_VERBS_PDATA_MAX as usize];
    let n = data.len().min(req.len());
    req[..n].copy_from_slice(&data[..n]);
    let (peer, local) = (ev.peer, ev.local);
    let Some(raw) = core::ptr::NonNull::new(ev.req) else {
        return -(bindings::EINVAL as c_int);
    };
    let mut taken = false;
    map.accepted(|m| {
        // SAFETY: the event's request, ours once we return 0 (`new` wraps
        // it only once nothing else can fail, and `taken` tells).
        let c = VConn::new(|| unsafe { Conn::from_request_nn(raw) }, true)?;
        taken = true;
        {
            let mut s = c.s.lock();
            s.req = Some((req, n));
            s.peer_fc = rxm::Connect::decode(data).map_or(rxm::FLOW_CTRL_PEER_OFF, |c| c.flow_ctrl);
            s.map = m;
            s.addrs = Some((peer, local));
        }
        Ok(c)
    });
    if taken {
        0
    } else {
        -(bindings::ECONNREFUSED as c_int)
    }
}

/// A send buffer's work request completed (kfi_verbs_qp.c; softirq).
///
/// # Safety
/// `owner` is the `VConn` named by `Wrs::set_rdm` (alive until its
/// connection's close, which completes every work request); `wc` is valid
/// for the call.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_verbs_rdm_tx_done(owner: *mut c_void, slot: c_uint, wc: *const sys::kfi_verbs_wc) {
    // SAFETY: by the caller's contract.
    let (c, wc) = unsafe { (&*owner.cast::<VConn>(), &*wc) };
    c.tx_wc(slot as usize, wc);
}

/// A receive buffer's work request completed (kfi_verbs_qp.c; softirq).
///
/// # Safety
/// As [`kfi_verbs_rdm_tx_done`].
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_verbs_rdm_rx_done(owner: *mut c_void, slot: c_uint, wc: *const sys::kfi_verbs_wc) {
    // SAFETY: by the caller's contract.
    let (c, wc) = unsafe { (&*owner.cast::<VConn>(), &*wc) };
    c.rx_wc(slot as usize, wc);
}
