// SPDX-License-Identifier: GPL-2.0
//! kfi_tcp's part of an endpoint's transfer queues. The queues themselves
//! (slots, posting, CQ reservations, cancel, multi-receive, the reports of
//! operations done or failed, the trigger and CQ-progress interfaces) are
//! the toolkit's `EpQueues` (`kfi_util/queues.rs`); kfi_tcp's endpoint
//! data is `EpQueues<TcpExt>` ([`EpData`]). What is kfi_tcp's alone:
//!
//! - under the queue lock ([`TcpExt`]), per data stream ([`Lane`]: a MSG
//!   endpoint has one, an RDM endpoint one per peer): the connection
//!   whose work item moves the data, transmits waiting for the peer's ACK
//!   (`tx_await`) and reads waiting for their responses (`tx_read`), the
//!   ACKs owed, whether a message waits for an untagged receive;
//! - outside it, in the connection: the "frames may be queued" hint
//!   (`Conn::tx_hint`; the consumer calls holding the connection,
//!   [`ConnRef`], are counted by the toolkit's `Call`);
//! - the work item's side of the stream: the next frame to send
//!   ([`EpData::tx_next`]), ACKs, read responses ([`EpData::read_take`]),
//!   and the split of an RMA into frames ([`TxOp::chunk`]).
//!
//! # Slot lifecycle (kfi_tcp's part)
//! A transmit taken by the work item (`tx_next`) is sent, then done
//! (`EpQueues::tx_complete`), or put on `tx_await` if it asked for an ACK
//! and done on it (`ack_received`); a read waits on `tx_read` from the
//! moment its first request starts out until its last response is in
//! (`read_take`, `read_done`).

use crate::conn::{Conn, Progress};
use crate::util::cq::{Cq, ProgressRef};
use crate::util::queues::{Call, EpQueues, QueueExt, Queues};
use crate::util::xfer::{Buf, TxOp};
use crate::wire::RmaIov;
use crate::logic::xfer::{self as rules_x, Kind, List};
use crate::logic::connmap::State;
use crate::util::addr::SockAddr;
use crate::util::av::Av;
use crate::util::base;
use crate::rdm::{self, Rdm, RequestOutcome};
use crate::logic::connmap::{Actions, Event};
use crate::logic::xfer_tcp as wire_rules;
use core::sync::atomic::Ordering;
use kernel::prelude::*;
use kernel::sync::Arc;

/// Largest queue an endpoint accepts (slots are preallocated).
pub(crate) const MAX_QUEUE: usize = 4096;

/// What kfi_tcp keeps in a transmit operation (its `ext`).
#[derive(Clone, Copy)]
pub(crate) struct TxTcp {
    /// Ask the peer for an ACK and complete on it.
    pub(crate) ack: bool,
    /// The lane it was taken for (set by `tx_next`).
    pub(crate) lane: u32,
    /// RDM: sent as a rendezvous (longer than rxm's eager limit): its
    /// `rndv_req` names the buffer under `rndv_key`, the peer reads it and
    /// answers `rndv_rd_done` with that key as the message id; the
    /// operation waits on its lane's `rndv_wait` until then.
    pub(crate) rndv: bool,
    pub(crate) rndv_key: u64,
    /// RDM: a tagged RMA (`KFI_TAGGED`): sent as kfabric's request packet
    /// (`TagRmaWrite` with its payload, or `TagRmaRead`), then waiting on
    /// `rndv_wait` under `rndv_key` for the target's answer.
    pub(crate) trma: bool,
    /// Responses received so far of a read sent as several requests.
    pub(crate) rsp_got: usize,
    /// Requests of a read sent whole so far: a response beyond them is
    /// the peer's protocol error (it answered what it cannot have read),
    /// not the end of a read whose requests are still going out.
    pub(crate) req_sent: usize,
}

impl TxTcp {
    /// A free slot's.
    pub(crate) const INIT: TxTcp = TxTcp { ack: false, lane: 0, rndv: false, rndv_key: 0, trma: false, rsp_got: 0, req_sent: 0 };
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

/// The next frame to send, as [`EpData::tx_next`] shows it (under the
/// queue lock).
pub(crate) enum TxItem<'a> {
    /// An ACK to send.
    Ack,
    /// The operation in slot `.0`; on an RDM lane, with the connection id
    /// its rxm packet names (the peer's, low 32 bits).
    Op(usize, &'a TxOp, Option<u32>),
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

/// An endpoint's data: the toolkit's queues with kfi_tcp's part.
pub(crate) type EpData = EpQueues<TcpExt>;

/// One data stream of an endpoint (a MSG endpoint has lane 0 only, an
/// RDM endpoint one per peer): its connection and what kfi_tcp keeps for
/// it under the queue lock.
pub(crate) struct Lane {
    /// The connection, for kicking its work item after a post.
    conn: Option<Arc<Conn>>,
    /// RDM: the transmits queued for this peer, in posting order (a MSG
    /// endpoint's are on the toolkit's `tx_pending`).
    tx_pending: List,
    /// An untagged message waits in the connection for a receive (the
    /// last `rx_take_msg` found none): an untagged receive posted now must
    /// make progress (otherwise nothing waits for it).
    msg_waiting: bool,
    /// Transmits sent whole, waiting for the peer's ACK (in order).
    tx_await: List,
    /// Read requests sent, waiting for their responses (in order).
    tx_read: List,
    /// RDM: rendezvous sends whose `rndv_req` went out, waiting for the
    /// peer's `rndv_rd_done` (it reads their buffers meanwhile).
    rndv_wait: List,
    /// ACKs the work item still has to send.
    acks_owed: usize,
    /// RDM: the peer (see [`RdmPeer`]).
    pub(crate) peer: RdmPeer,
}

/// What an RDM endpoint knows of the peer of a lane (`rdm.rs`), under the
/// queue lock.
pub(crate) struct RdmPeer {
    /// In use: a peer of the AV, or one that connected to us.
    pub(crate) used: bool,
    /// Its address handle (`rules::ADDR_ANY`: a peer not in the AV), and
    /// the address of its listener (where we connect).
    pub(crate) handle: u64,
    pub(crate) addr: SockAddr,
    /// The connection's state (see `connmap`).
    pub(crate) state: State,
    /// Our connection attempt while `Connecting` (the connection in use,
    /// or being accepted, is the lane's `conn`).
    pub(crate) out: Option<Arc<Conn>>,
    /// A connection is to be opened by the endpoint's work item.
    pub(crate) want_connect: bool,
    /// When the lane went `Waiting` (jiffies).
    pub(crate) waiting_since: u64,
    /// The connection id the peer gave (its low 32 bits go in every rxm
    /// packet we send it), and the instance part of it (the high 32 bits:
    /// a restarted peer has another).
    pub(crate) peer_id: u64,
    /// The peer's receive context our transmits on this lane go to (the
    /// top bits of their handle, `kfi_rx_addr`).
    pub(crate) rx: u16,
    /// A lane of one incoming connection (a peer not in the AV, our own
    /// request, a scalable endpoint's context connecting): nothing is sent
    /// on it but ACKs and reads; released when the connection ends.
    pub(crate) inbound: bool,
}

impl RdmPeer {
    const fn new() -> RdmPeer {
        RdmPeer {
            used: false,
            handle: rules_x::ADDR_ANY,
            addr: SockAddr { family: 0, port: 0, scope_id: 0, addr: [0; 16] },
            state: State::Idle,
            out: None,
            want_connect: false,
            waiting_since: 0,
            peer_id: 0,
            rx: 0,
            inbound: false,
        }
    }
}

impl Lane {
    const fn new() -> Lane {
        Lane {
            conn: None,
            tx_pending: List::new(),
            msg_waiting: false,
            tx_await: List::new(),
            tx_read: List::new(),
            rndv_wait: List::new(),
            acks_owed: 0,
            peer: RdmPeer::new(),
        }
    }

    /// Tells the connection that frames are queued (`Conn::tx_hint`).
    #[inline(always)]
    fn hint(&self) {
        if let Some(c) = &self.conn {
            c.tx_hint.store(true, Ordering::SeqCst);
        }
    }
}

/// kfi_tcp's state under the queue lock (`Queues::ext`).
pub(crate) struct TcpExt {
    /// Lane 0.
    first: Lane,
    /// Lanes 1 and up (RDM peers).
    more: KVec<Lane>,
    /// Transmits are queued on the lane of their destination (RDM), not
    /// on the toolkit's `tx_pending`.
    per_lane_tx: bool,
    /// RDM: the connection map and the bound AV (valid while enabled:
    /// the close clears them under the lock before they go).
    rdm: *const Rdm,
    av: *const Av,
    /// RDM: rendezvous sent (the middle bits of their keys).
    rndv_seq: u64,
    /// RDM: the lane the next CQ read looks at first.
    poll_next: u32,
    /// RDM: the lane of each AV index (+1; 0: none), and the AV's
    /// `rx_ctx_bits` (off in the index).
    by_handle: KVec<u32>,
    av_bits: u32,
    /// A transmit context of a scalable endpoint: its connections carry
    /// its transmits only (the peer sends no messages on them).
    one_way: bool,
}

// SAFETY: `rdm` and `av` are only dereferenced under the queue lock while
// set (see above); the rest is Send.
unsafe impl Send for TcpExt {}

impl TcpExt {
    #[inline(always)]
    fn lane(&self, l: u32) -> Option<&Lane> {
        match l {
            0 => Some(&self.first),
            _ => self.more.get(l as usize - 1),
        }
    }

    #[inline(always)]
    fn lane_mut(&mut self, l: u32) -> Option<&mut Lane> {
        match l {
            0 => Some(&mut self.first),
            _ => self.more.get_mut(l as usize - 1),
        }
    }

    /// Lane numbers in use: 0 and those of `more`.
    fn lane_count(&self) -> u32 {
        1 + self.more.len() as u32
    }

    /// RDM: a lane for a new peer: a free one, else a new one
    /// (`GFP_ATOMIC`: under the queue lock). `None` without memory.
    fn new_lane(&mut self) -> Option<u32> {
        for l in 0..self.lane_count() {
            let x = self.lane(l)?;
            let free = !x.peer.used
                && x.conn.is_none()
                && x.peer.out.is_none()
                && x.tx_pending.is_empty()
                && x.tx_await.is_empty()
                && x.tx_read.is_empty()
                && x.rndv_wait.is_empty();
            if free {
                return Some(l);
            }
        }
        self.more.push(Lane::new(), GFP_ATOMIC).ok()?;
        Some(self.lane_count() - 1)
    }

    /// RDM: the lane of AV handle `handle` whose listener is `addr`:
    /// one per AV index and receive context (the handle's top bits, see
    /// `kfi_rx_addr`), made if there is none. A handle whose address
    /// changed (removed and reused by the AV) gets a new lane; the old one
    /// is left to its connection. `None` without memory.
    fn lane_for(&mut self, handle: u64, addr: &SockAddr) -> Option<u32> {
        let idx = av_index(handle, self.av_bits);
        let rx = rx_index(handle, self.av_bits);
        let at = usize::try_from(idx).ok()?;
        let ours = |x: &Lane| x.peer.used && !x.peer.inbound && x.peer.handle == idx && x.peer.rx == rx && same_addr(&x.peer.addr, addr);
        if let Some(&l) = self.by_handle.get(at) {
            if l != 0 && self.lane(l - 1).is_some_and(ours) {
                return Some(l - 1);
            }
        }
        // Another receive context of the peer than the last one sent to
        // (the index remembers one lane per peer).
        let found = if rx != 0 || self.by_handle.get(at).is_some_and(|&l| l != 0) {
            (0..self.lane_count()).find(|&l| self.lane(l).is_some_and(ours))
        } else {
            None
        };
        let lane = match found {
            Some(l) => l,
            None => {
                let l = self.new_lane()?;
                let p = &mut self.lane_mut(l)?.peer;
                *p = RdmPeer { used: true, handle: idx, addr: *addr, rx, ..RdmPeer::new() };
                l
            }
        };
        while self.by_handle.len() <= at {
            self.by_handle.push(0, GFP_ATOMIC).ok()?;
        }
        self.by_handle[at] = lane + 1;
        Some(lane)
    }

    /// Every lane.
    fn lanes_mut(&mut self) -> impl Iterator<Item = &mut Lane> {
        Iterator::chain(core::iter::once(&mut self.first), self.more.iter_mut())
    }
}

/// The top bit of the keys our rendezvous sends name their buffers by: a
/// read request with such a key is served from the sending operation's
/// buffer, not from a registered region (consumers' keys with this bit set
/// still work: a key names a rendezvous only while one is out with it).
pub(crate) const RNDV_KEY: u64 = 1 << 63;

/// An AV handle's index: its receive-context bits (`kfi_rx_addr`) off.
fn av_index(handle: u64, bits: u32) -> u64 {
    crate::util::logic::av::handle_index(handle, bits)
}

/// An AV handle's receive context (its top `bits`; one beyond any a
/// scalable endpoint has when it does not fit: the peer refuses it).
fn rx_index(handle: u64, bits: u32) -> u16 {
    crate::util::logic::av::rx_index(handle, bits).min(u64::from(u16::MAX)) as u16
}

/// The same socket address.
fn same_addr(a: &SockAddr, b: &SockAddr) -> bool {
    a.family == b.family && a.port == b.port && a.addr == b.addr && a.scope_id == b.scope_id
}

/// Operations taken off a lane, failed once the queue lock is dropped.
struct Doomed([List; 4]);

impl Doomed {
    const NONE: Doomed = Doomed([List::new(), List::new(), List::new(), List::new()]);

    /// Takes the lane's transmits waiting for ACKs, responses and
    /// rendezvous reads, and with `queued` those not sent yet; forgets its
    /// owed ACKs.
    fn take(l: &mut Lane, queued: bool) -> Doomed {
        l.acks_owed = 0;
        let q = if queued { core::mem::take(&mut l.tx_pending) } else { List::new() };
        Doomed([core::mem::take(&mut l.tx_await), core::mem::take(&mut l.tx_read), core::mem::take(&mut l.rndv_wait), q])
    }

    fn is_empty(&self) -> bool {
        self.0.iter().all(|l| l.is_empty())
    }
}

/// The transmits queued for lane `l`, with the links they are threaded
/// on (`None`: no such lane).
#[inline(always)]
fn pending(q: &mut Queues<TcpExt>, l: u32) -> Option<(&mut crate::util::logic::xfer::Links<KVVec<u32>>, &mut List)> {
    let Queues { tx_links, tx_pending, ext, .. } = q;
    if !ext.per_lane_tx {
        return (l == 0).then_some((tx_links, tx_pending));
    }
    Some((tx_links, &mut ext.lane_mut(l)?.tx_pending))
}

/// The connections of a closed endpoint ([`EpData::close`]): dropped
/// outside the queue lock (a last reference releases a socket, which may
/// sleep).
pub(crate) struct Closed {
    #[allow(dead_code)]
    first: Option<Arc<Conn>>,
    #[allow(dead_code)]
    more: KVec<Lane>,
}

/// kfi_tcp's state outside the queue lock: none (the hint that frames
/// are queued is in the connection, `Conn::tx_hint`).
#[derive(Default)]
pub(crate) struct TcpShared;

impl QueueExt for TcpExt {
    type Shared = TcpShared;
    type Prepared = ();
    type Kick<'a> = ConnRef<'a>;
    type Progress<'a> = TcpProgress<'a>;

    fn new() -> TcpExt {
        TcpExt {
            first: Lane::new(),
            more: KVec::new(),
            per_lane_tx: false,
            rdm: core::ptr::null(),
            av: core::ptr::null(),
            rndv_seq: 0,
            poll_next: 0,
            by_handle: KVec::new(),
            av_bits: 0,
            one_way: false,
        }
    }

    /// The connections' work runs on the CQs' `KFI_AFFINITY` CPU.
    fn enable(q: &mut Queues<TcpExt>, _p: &mut ()) {
        let cpu = q.cfg.io_cpu();
        for l in q.ext.lanes_mut() {
            if let Some(c) = &l.conn {
                c.set_cpu(cpu);
            }
        }
    }

    #[inline(always)]
    fn init_tx(_kind: Kind, flags: u64) -> TxTcp {
        TxTcp { ack: wire_rules::wants_ack(flags), lane: 0, rndv: false, rndv_key: 0, trma: false, rsp_got: 0, req_sent: 0 }
    }

    /// Move it now if the connection allows (outside the lock), else its
    /// work item does. An untagged receive only matters to a message
    /// already waiting for one; otherwise the message that takes it will
    /// find it.
    #[inline(always)]
    fn posted<'a>(ep: &'a EpData, q: &mut Queues<TcpExt>, kind: Kind, i: usize) -> core::result::Result<Option<ConnRef<'a>>, isize> {
        if q.ext.per_lane_tx {
            return ep.rdm_posted(q, kind, i);
        }
        if kind.is_tx() {
            q.ext.first.hint();
        } else if !kind.is_tagged() && !q.ext.first.msg_waiting {
            return Ok(None);
        }
        Ok(ep.take_conn(q))
    }

    #[inline(always)]
    fn run_kick(k: ConnRef<'_>) {
        k.after_post();
    }

    /// A transmit that asked for an ACK waits for it on `tx_await`.
    #[inline(always)]
    fn defer_tx(q: &mut Queues<TcpExt>, i: usize) -> bool {
        let (ack, rndv, l) = (q.tx[i].ext.ack, q.tx[i].ext.rndv, q.tx[i].ext.lane);
        if !ack && !rndv {
            return false;
        }
        match q.ext.lane_mut(l) {
            // A rendezvous is done when the peer has read it (no ACK is
            // asked of its request).
            Some(lane) if rndv => {
                q.tx_links.push_back(&mut lane.rndv_wait, i);
                true
            }
            Some(lane) => {
                q.tx_links.push_back(&mut lane.tx_await, i);
                true
            }
            None => false,
        }
    }

    fn failing(q: &mut Queues<TcpExt>) {
        for l in q.ext.lanes_mut() {
            l.acks_owed = 0;
        }
    }

    /// Per lane: transmits waiting for an ACK first, then reads waiting
    /// for their responses, then (RDM) transmits queued.
    fn flush_next(q: &mut Queues<TcpExt>) -> Option<(bool, usize)> {
        let Queues { tx_links, ext, .. } = q;
        for l in ext.lanes_mut() {
            for list in [&mut l.tx_await, &mut l.tx_read, &mut l.rndv_wait, &mut l.tx_pending] {
                if let Some(i) = tx_links.pop_front(list) {
                    return Some((true, i));
                }
            }
        }
        None
    }

    #[inline(always)]
    fn msg_waiting(q: &mut Queues<TcpExt>, stream: u32, waiting: bool) {
        if let Some(l) = q.ext.lane_mut(stream) {
            l.msg_waiting = waiting;
        }
    }

    /// A MSG endpoint's connection; an RDM endpoint's connections that
    /// had socket events since they were last moved (a few per read,
    /// round robin over the lanes).
    #[inline]
    fn progress_ref(ep: &EpData) -> Option<TcpProgress<'_>> {
        let g = ep.q.lock();
        if !g.ext.per_lane_tx {
            return ep.take_conn(&g).map(TcpProgress::One);
        }
        drop(g);
        ep.rdm_progress_ref()
    }

    #[inline]
    fn owe_ack(ep: &EpData, stream: u32) {
        ep.owe_ack(stream)
    }
}

/// The connection of an endpoint, taken by a consumer's call to make
/// progress on it (`Conn::progress`). While one exists the endpoint does
/// not drop its own reference (see [`EpData::wait_calls`]), so dropping
/// this one is never the last, whatever the context.
pub(crate) struct ConnRef<'a> {
    conn: Arc<Conn>,
    /// No CQ of the endpoint has a completion handler (`Config::quiet`):
    /// its own calls may move the data; handlers are only ever called from
    /// the work item.
    quiet: bool,
    /// Counts this call until the connection reference (above, dropped
    /// first) is gone.
    _call: Call<'a>,
}

impl ConnRef<'_> {
    /// After a post: moves what the connection can move now and leaves the
    /// rest to its work item.
    pub(crate) fn after_post(&self) {
        let c = &self.conn;
        if !self.quiet || c.progress() != Progress::Done {
            c.kick();
        }
    }

    /// Queues the connection's work item (a CQ freed room it waits for).
    pub(crate) fn kick(&self) {
        self.conn.kick();
    }

    /// From a CQ read (of an endpoint without completion handlers): moves
    /// what the connection can move now. The work item is kicked only if
    /// it has to take over; the socket's callbacks kicked it for anything
    /// else, or armed its backstop timer. `polling`: a read that does not
    /// block (it comes back soon). True if it left work for a later read
    /// (the connection stays marked).
    pub(crate) fn poll(&self, polling: bool) -> bool {
        poll_conn(&self.conn, self.quiet, polling)
    }
}

/// [`ConnRef::poll`] of connection `c` (`quiet`: see `ConnRef`).
fn poll_conn(c: &Arc<Conn>, quiet: bool, polling: bool) -> bool {
    if !quiet {
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
                // A blocking reader does not come back soon: the work
                // item takes over (the socket event that woke the reader
                // did not kick it).
                c.kick();
            }
            true
        }
    }
}

/// kfi_tcp's side of the queues: the connection, and the work item's
/// stream (frames to send, ACKs, read responses).
impl EpData {
    /// (Inlined: in a post the reference then stays in registers, and the
    /// toolkit's `Result` around it costs nothing.)
    #[inline(always)]
    fn take_conn(&self, q: &Queues<TcpExt>) -> Option<ConnRef<'_>> {
        let c = q.ext.first.conn.as_ref()?.clone();
        // Counted under the lock that `close` takes the connection under.
        Some(ConnRef { conn: c, quiet: q.cfg.quiet(), _call: self.call(q) })
    }

    /// The bound CQs (each once) if none has a completion handler, for
    /// the connection to tell about socket events (see `Conn`'s
    /// `event_cqs`); nulls otherwise.
    pub(crate) fn quiet_cqs(&self) -> [*const Cq; 2] {
        let g = self.q.lock();
        let none = [core::ptr::null(); 2];
        if !g.cfg.quiet() {
            return none;
        }
        match (g.cfg.tx_cq, g.cfg.rx_cq) {
            (Some(t), Some(r)) if t == r => [t, core::ptr::null()],
            (t, r) => [t.unwrap_or(none[0]), r.unwrap_or(none[1])],
        }
    }

    /// Attaches the connection whose work item moves lane 0's data (a
    /// MSG endpoint's); frames queued before it are its to send.
    pub(crate) fn set_conn(&self, c: Option<Arc<Conn>>) -> Option<Arc<Conn>> {
        let mut g = self.q.lock();
        if let Some(c) = &c {
            g.down = false;
            if g.enabled {
                c.set_cpu(g.cfg.io_cpu());
            }
            c.tx_hint.store(true, Ordering::SeqCst);
        }
        core::mem::replace(&mut g.ext.first.conn, c)
    }

    /// Endpoint close, after the connections stopped: the toolkit returns
    /// the CQ reservations of the operations not reported; hands back the
    /// connection references (dropped by the caller once no consumer's
    /// call holds one: `wait_calls`).
    pub(crate) fn close(&self) -> Closed {
        self.close_with(|q| {
            let more = core::mem::take(&mut q.ext.more);
            let first = q.ext.first.conn.take();
            q.ext.first = Lane::new();
            Closed { first, more }
        })
    }

    /// Takes the next thing to transmit on lane `lane` of connection
    /// `hint`'s (its `Conn::tx_hint`): an owed ACK first (between frames),
    /// else the oldest posted operation. `fill` sees it under the queue
    /// lock (the operation stays in its slot: nothing is copied but what
    /// `fill` takes) and says whether it took it. `None` when nothing is
    /// queued.
    ///
    /// `reads`: a read may be taken (false while the connection's own
    /// rendezvous reads are out: responses are matched in order, so the
    /// two kinds never interleave); a read first in line waits then.
    pub(crate) fn tx_next(&self, conn: &Conn, lane: u32, reads: bool, fill: impl FnOnce(TxItem<'_>) -> bool) -> Option<TxTaken> {
        let hint = &conn.tx_hint;
        if !hint.load(Ordering::SeqCst) {
            return None;
        }
        let mut g = self.q.lock();
        let q = &mut *g;
        let rxm = if q.ext.per_lane_tx {
            // Only the lane's connection sends its frames (an attempt the
            // map dropped, or an old one, does not).
            let l = q.ext.lane(lane)?;
            if !l.conn.as_deref().is_some_and(|c| core::ptr::eq(c, conn)) {
                return None;
            }
            Some(l.peer.peer_id as u32)
        } else {
            None
        };
        let acks = q.ext.lane(lane).map_or(0, |l| l.acks_owed);
        let (slot, ok) = if acks > 0 {
            if let Some(l) = q.ext.lane_mut(lane) {
                l.acks_owed -= 1;
            }
            (None, fill(TxItem::Ack))
        } else if let Some(i) = pending(q, lane).and_then(|(_, list)| list.front()) {
            if !reads && q.tx[i].kind == Kind::Read {
                return None;
            }
            if let Some((links, list)) = pending(q, lane) {
                links.pop_front(list);
            }
            let op = &mut q.tx[i];
            op.ext.lane = lane;
            // An RDM message over rxm's eager limit goes as a rendezvous,
            // named by a key of its own (see `rndv_key`).
            // A tagged RMA waits for the target's answer the same way.
            op.ext.trma = rxm.is_some() && op.kind.is_rma() && op.flags & rules_x::F_TAGGED != 0;
            op.ext.rndv = op.ext.trma || (rxm.is_some() && matches!(op.kind, Kind::Send | Kind::TSend) && op.buf.len > crate::logic::rxm::EAGER_LIMIT as u64);
            if op.ext.rndv {
                q.ext.rndv_seq = q.ext.rndv_seq.wrapping_add(1);
                op.ext.rndv_key = RNDV_KEY | ((q.ext.rndv_seq & 0x7fff_ffff) << 32) | i as u64;
            }
            let ok = fill(TxItem::Op(i, &q.tx[i], rxm));
            if ok && q.tx[i].kind == Kind::Read && !q.tx[i].ext.trma {
                // A read waits for its responses from the moment its first
                // request starts out: one sent as several requests may
                // have responses back before its last request is sent.
                if let Some(l) = q.ext.lane_mut(lane) {
                    q.tx_links.push_back(&mut l.tx_read, i);
                }
            }
            (Some(i), ok)
        } else {
            hint.store(false, Ordering::SeqCst);
            return None;
        };
        let more = Self::lane_queued(q, lane);
        if !more {
            hint.store(false, Ordering::SeqCst);
        }
        Some(TxTaken { slot, more, ok })
    }

    /// Whether frames are queued on lane `lane` (under the lock).
    fn lane_queued(q: &mut Queues<TcpExt>, lane: u32) -> bool {
        q.ext.lane(lane).is_some_and(|l| l.acks_owed > 0) || pending(q, lane).is_some_and(|(_, list)| !list.is_empty())
    }

    /// Whether frames are queued on lane `lane` (for `MSG_MORE` after a
    /// read response).
    pub(crate) fn tx_more(&self, lane: u32) -> bool {
        Self::lane_queued(&mut self.q.lock(), lane)
    }

    /// The peer on lane `lane` acknowledged the oldest transmit that asked
    /// for it; false if none did (a protocol error).
    pub(crate) fn ack_received(&self, lane: u32) -> bool {
        let rep = {
            let mut g = self.q.lock();
            let q = &mut *g;
            let Some(l) = q.ext.lane_mut(lane) else {
                return false;
            };
            let Some(i) = q.tx_links.pop_front(&mut l.tx_await) else {
                return false;
            };
            q.finish_tx(i)
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
    pub(crate) fn read_take(&self, lane: u32) -> Option<(usize, Buf, Chunk)> {
        let mut g = self.q.lock();
        let q = &mut *g;
        let l = q.ext.lane_mut(lane)?;
        let i = l.tx_read.front()?;
        let op = &mut q.tx[i];
        if op.ext.rsp_got >= op.ext.req_sent {
            // A response to a request not sent yet.
            return None;
        }
        let c = op.chunk(op.ext.rsp_got);
        op.ext.rsp_got += 1;
        let buf = op.buf;
        if c.last {
            q.tx_links.pop_front(&mut l.tx_read);
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

    /// A read's response is in its buffer (a read never waits for an ACK:
    /// it is done without `tx_complete`).
    pub(crate) fn read_done(&self, idx: usize) {
        let rep = self.q.lock().finish_tx(idx);
        rep.deliver();
    }

    /// Owes the peer on lane `lane` one ACK (a received message asked for
    /// it).
    pub(crate) fn owe_ack(&self, lane: u32) {
        let mut g = self.q.lock();
        if let Some(l) = g.ext.lane_mut(lane) {
            l.acks_owed += 1;
            l.hint();
        }
    }
}

/// An RDM endpoint's lanes (see `rdm.rs`): the post's routing and the
/// connection map's changes, under the queue lock.
impl EpData {
    /// Enable of an RDM endpoint or context: transmits go to their peer's
    /// lane; a transmit context's (`one_way`) carry only them.
    pub(crate) fn rdm_enable(&self, rdm: &Rdm, av: &Av, one_way: bool) {
        let bits = av.rx_ctx_bits();
        let mut g = self.q.lock();
        g.ext.one_way = one_way;
        g.ext.per_lane_tx = true;
        g.ext.rdm = rdm;
        g.ext.av = av;
        g.ext.av_bits = bits;
    }

    /// A post on an RDM endpoint (`QueueExt::posted`): a transmit goes to
    /// the lane of its destination (an address handle of the AV: -EINVAL
    /// otherwise), which connects on its first; a receive lets the
    /// connections that hold messages for one go on.
    fn rdm_posted<'a>(&'a self, q: &mut Queues<TcpExt>, kind: Kind, i: usize) -> core::result::Result<Option<ConnRef<'a>>, isize> {
        if q.ext.rdm.is_null() {
            return Err(-(kernel::bindings::ENOTCONN as isize));
        }
        if !kind.is_tx() {
            let tagged = kind.is_tagged();
            for l in q.ext.lanes_mut() {
                if let (Some(c), true) = (&l.conn, tagged || l.msg_waiting) {
                    c.kick();
                }
            }
            return Ok(None);
        }
        let dest = q.tx[i].dest;
        // SAFETY: set while enabled (checked above), the AV bound.
        let av = unsafe { &*q.ext.av };
        let Some(addr) = av.lookup(dest) else {
            return Err(-(kernel::bindings::EINVAL as isize));
        };
        let Some(lane) = q.ext.lane_for(dest, &addr) else {
            return Err(-(kernel::bindings::EAGAIN as isize));
        };
        q.tx_links.remove(&mut q.tx_pending, i);
        let rdm = q.ext.rdm;
        let Some(l) = q.ext.lane_mut(lane) else {
            return Err(-(kernel::bindings::EAGAIN as isize));
        };
        q.tx_links.push_back(&mut l.tx_pending, i);
        let a = rdm::step(&mut l.peer.state, Event::Send);
        if a.has(Actions::CONNECT) {
            l.peer.want_connect = true;
            // SAFETY: set while enabled (checked above).
            unsafe { &*rdm }.want_connect();
        }
        if !a.has(Actions::FLOW) {
            return Ok(None);
        }
        l.hint();
        let Some(c) = l.conn.clone() else {
            return Ok(None);
        };
        Ok(Some(ConnRef { conn: c, quiet: q.cfg.quiet(), _call: self.call(q) }))
    }

    /// Fails what `d` took off a lane with `err`.
    fn fail_doomed(&self, mut d: Doomed, err: u32) {
        if d.is_empty() {
            return;
        }
        self.fail_picked(err, |q| d.0.iter_mut().find_map(|l| q.tx_links.pop_front(l)).map(|i| (true, i)));
    }

    /// A peer's request on `c`: the lane of `handle` (a new one for a
    /// peer not in the AV, and with `inbound`, see [`RdmPeer::inbound`])
    /// decides, with `peer_wins` (rxm's rule) and its connection id;
    /// `accept` makes the accept data for the lane. `Err`: no lane (no
    /// memory, or the endpoint is closing).
    pub(crate) fn rdm_request(
        &self,
        handle: u64,
        listen: &SockAddr,
        c: &Arc<Conn>,
        peer_id: u64,
        peer_wins: bool,
        inbound: bool,
        accept: impl FnOnce(u32) -> [u8; crate::logic::rxm::ACCEPT_BYTES],
    ) -> core::result::Result<RequestOutcome, ()> {
        let (out, doomed) = {
            let mut g = self.q.lock();
            let q = &mut *g;
            if q.ext.rdm.is_null() {
                return Err(());
            }
            let lane = if handle == rules_x::ADDR_ANY || inbound {
                // A peer not in the AV, ourselves, a context: a lane of
                // its own, which our sends never use (ours to ourselves
                // go on the lane of the handle, connected to this one).
                let l = q.ext.new_lane().ok_or(())?;
                let h = if handle == rules_x::ADDR_ANY { handle } else { av_index(handle, q.ext.av_bits) };
                let x = q.ext.lane_mut(l).ok_or(())?;
                x.peer = RdmPeer { used: true, inbound: true, handle: h, addr: *listen, ..RdmPeer::new() };
                l
            } else {
                q.ext.lane_for(handle, listen).ok_or(())?
            };
            let l = q.ext.lane_mut(lane).ok_or(())?;
            let restarted = l.peer.state == State::Up && (l.peer.peer_id >> 32) != (peer_id >> 32);
            let a = rdm::step(&mut l.peer.state, Event::Request { peer_wins, restarted });
            let mut out = RequestOutcome { accept: None, drop: [None, None] };
            let mut doomed = Doomed::NONE;
            if a.has(Actions::DROP_OUT) {
                out.drop[0] = l.peer.out.take();
            }
            if a.has(Actions::DROP_UP) {
                // What went to the old instance is lost with it; what is
                // queued goes to the new one.
                out.drop[1] = l.conn.take();
                doomed = Doomed::take(l, false);
            }
            if a.has(Actions::ACCEPT_IN) {
                l.conn = Some(c.clone());
                l.peer.peer_id = peer_id;
                l.msg_waiting = false;
                out.accept = Some((lane, accept(lane)));
            }
            (out, doomed)
        };
        self.fail_doomed(doomed, kernel::bindings::ECONNRESET);
        Ok(out)
    }

    /// Whether `c` is lane `lane`'s connection attempt of ours.
    pub(crate) fn rdm_is_out(&self, lane: u32, c: &Conn) -> bool {
        let g = self.q.lock();
        g.ext.lane(lane).and_then(|l| l.peer.out.as_deref()).is_some_and(|o| core::ptr::eq(o, c))
    }

    /// Our attempt `c` on lane `lane` is up; the peer's id is `peer_id`.
    pub(crate) fn rdm_out_up(&self, lane: u32, c: &Conn, peer_id: u64) {
        let mut g = self.q.lock();
        let Some(l) = g.ext.lane_mut(lane) else {
            return;
        };
        if !l.peer.out.as_deref().is_some_and(|o| core::ptr::eq(o, c)) {
            return;
        }
        let a = rdm::step(&mut l.peer.state, Event::OutUp);
        if l.peer.state == State::Up {
            l.peer.peer_id = peer_id;
            l.conn = l.peer.out.take();
            l.msg_waiting = false;
        }
        if a.has(Actions::FLOW) {
            l.hint();
            if let Some(x) = &l.conn {
                x.kick();
            }
        }
    }

    /// Event `e` of connection `c` on lane `lane` (`errno`: the cause of
    /// a failure, for the transmits that waited): the connection the
    /// event dropped, to stop (the caller's own is never stopped here).
    pub(crate) fn rdm_event(&self, lane: u32, c: &Conn, e: Event, errno: u32) -> Option<Arc<Conn>> {
        let (bury, doomed, freed) = {
            let mut g = self.q.lock();
            let l = g.ext.lane_mut(lane)?;
            let is = |x: &Option<Arc<Conn>>| x.as_deref().is_some_and(|o| core::ptr::eq(o, c));
            let (out, cur) = (is(&l.peer.out), is(&l.conn));
            if !out && !cur {
                // Stale: a connection the lane no longer has.
                return None;
            }
            if out && l.peer.state != State::Connecting {
                // An attempt dropped in favour of the peer's: just goes.
                return l.peer.out.take();
            }
            let a = rdm::step(&mut l.peer.state, e);
            if l.peer.state == State::Waiting {
                l.peer.waiting_since = base::jiffies();
            }
            let mut bury = None;
            if out && matches!(e, Event::Rejected { .. } | Event::Down) {
                bury = l.peer.out.take();
            }
            if cur && (a.has(Actions::DROP_UP) || matches!(e, Event::Down)) {
                bury = l.conn.take();
            }
            let doomed = if a.has(Actions::FAIL_WAITING) { Doomed::take(l, true) } else { Doomed::NONE };
            let mut freed = Doomed::NONE;
            if l.peer.inbound && l.conn.is_none() && l.peer.out.is_none() {
                // Its connection is gone: the lane is free again.
                freed = Doomed::take(l, true);
                l.peer = RdmPeer::new();
                l.msg_waiting = false;
            }
            if a.has(Actions::FLOW) {
                l.hint();
                if let Some(x) = &l.conn {
                    x.kick();
                }
            }
            (bury, doomed, freed)
        };
        self.fail_doomed(doomed, errno);
        self.fail_doomed(freed, errno);
        bury
    }

    /// Lanes waiting longer than `after` jiffies for the peer's request
    /// try again (they want a connection); true if some still wait.
    pub(crate) fn rdm_retry_due(&self, after: u64) -> bool {
        let now = base::jiffies();
        let mut g = self.q.lock();
        if g.ext.rdm.is_null() {
            return false;
        }
        let rdm = g.ext.rdm;
        let (mut due, mut waiting) = (false, false);
        for l in g.ext.lanes_mut() {
            if l.peer.state != State::Waiting {
                continue;
            }
            if now.wrapping_sub(l.peer.waiting_since) < after {
                waiting = true;
                continue;
            }
            if rdm::step(&mut l.peer.state, Event::Retry).has(Actions::CONNECT) {
                l.peer.want_connect = true;
                due = true;
            }
        }
        if due {
            // SAFETY: set while enabled (checked above).
            unsafe { &*rdm }.want.store(true, Ordering::SeqCst);
        }
        waiting
    }

    /// The next lane that wants a connection.
    pub(crate) fn rdm_take_want(&self) -> Option<Want> {
        let mut g = self.q.lock();
        if g.ext.rdm.is_null() {
            return None;
        }
        let one_way = g.ext.one_way;
        for lane in 0..g.ext.lane_count() {
            let l = g.ext.lane_mut(lane)?;
            if core::mem::take(&mut l.peer.want_connect) && l.peer.state == State::Connecting {
                return Some(Want { lane, addr: l.peer.addr, handle: l.peer.handle, rx: l.peer.rx, one_way: one_way || l.peer.rx != 0 });
            }
        }
        None
    }

    /// The attempt `c` for lane `lane` started; handed back (to stop) if
    /// the lane no longer wants it.
    pub(crate) fn rdm_set_out(&self, lane: u32, c: Arc<Conn>) -> Option<Arc<Conn>> {
        let mut g = self.q.lock();
        let ok = !g.ext.rdm.is_null();
        match g.ext.lane_mut(lane) {
            Some(l) if ok && l.peer.state == State::Connecting && l.peer.out.is_none() => {
                l.peer.out = Some(c);
                None
            }
            _ => Some(c),
        }
    }

    /// An attempt for lane `lane` could not start (`err`, positive): the
    /// transmits that waited for it fail.
    pub(crate) fn rdm_connect_failed(&self, lane: u32, err: u32) {
        let doomed = {
            let mut g = self.q.lock();
            let Some(l) = g.ext.lane_mut(lane) else {
                return;
            };
            if l.peer.state != State::Connecting || l.peer.out.is_some() {
                return;
            }
            let a = rdm::step(&mut l.peer.state, Event::Down);
            if a.has(Actions::FAIL_WAITING) {
                Doomed::take(l, true)
            } else {
                Doomed::NONE
            }
        };
        self.fail_doomed(doomed, err);
    }

    /// Connection `c` of lane `lane` ended (its cleanup): if it still is
    /// the lane's, the lane's transmits fail with `err` (they were for
    /// the peer it connected to).
    pub(crate) fn rdm_conn_lost(&self, lane: u32, c: &Conn, err: u32) {
        let doomed = {
            let mut g = self.q.lock();
            match g.ext.lane_mut(lane) {
                Some(l) if l.conn.as_deref().is_some_and(|o| core::ptr::eq(o, c)) => {
                    l.msg_waiting = false;
                    Doomed::take(l, true)
                }
                _ => Doomed::NONE,
            }
        };
        self.fail_doomed(doomed, err);
    }

    /// The peer read rendezvous `key` of lane `lane` (its `rndv_rd_done`):
    /// the send is done. False if no such rendezvous is out (a protocol
    /// error).
    pub(crate) fn rndv_done(&self, lane: u32, key: u64) -> bool {
        self.waiting_done(lane, key, false)
    }

    /// The operation waiting on lane `lane`'s `rndv_wait` under `key` (a
    /// tagged RMA with `trma`, else a rendezvous) is done.
    fn waiting_done(&self, lane: u32, key: u64, trma: bool) -> bool {
        let rep = {
            let mut g = self.q.lock();
            let q = &mut *g;
            let Some(l) = q.ext.lane_mut(lane) else {
                return false;
            };
            let tx = &q.tx;
            let Some(i) = q.tx_links.remove_first(&mut l.rndv_wait, |i| tx[i].ext.rndv_key == key && tx[i].ext.trma == trma) else {
                return false;
            };
            q.finish_tx(i)
        };
        rep.deliver();
        true
    }

    /// The target answered tagged RMA `key` of lane `lane`: done, or
    /// failed with `err` (positive). False if no such operation waits (a
    /// protocol error).
    pub(crate) fn trma_end(&self, lane: u32, key: u64, err: u32) -> bool {
        if err == 0 {
            return self.waiting_done(lane, key, true);
        }
        let i = {
            let mut g = self.q.lock();
            let q = &mut *g;
            let Some(l) = q.ext.lane_mut(lane) else {
                return false;
            };
            let tx = &q.tx;
            let Some(i) = q.tx_links.remove_first(&mut l.rndv_wait, |i| tx[i].ext.rndv_key == key && tx[i].ext.trma) else {
                return false;
            };
            i
        };
        self.tx_failed(i, err);
        true
    }

    /// The local buffer and length of tagged RMA read `key` of lane
    /// `lane` (where the target's data goes); `None` if no such read
    /// waits.
    pub(crate) fn trma_read_buf(&self, lane: u32, key: u64) -> Option<(Buf, u64)> {
        let mut g = self.q.lock();
        let q = &mut *g;
        let l = q.ext.lane_mut(lane)?;
        let tx = &q.tx;
        let i = q.tx_links.find_first(&l.rndv_wait, |i| tx[i].ext.rndv_key == key && tx[i].ext.trma && tx[i].kind == Kind::Read)?;
        Some((q.tx[i].buf, q.tx[i].len))
    }

    /// The buffer of rendezvous `key` out on lane `lane`, for the peer's
    /// read of it; `None` if none is out with that key. (The operation
    /// stays on `rndv_wait` until the peer's `rndv_rd_done`, which comes
    /// on the same connection after its reads: the buffer stays valid
    /// while they are served.)
    pub(crate) fn rndv_buf(&self, lane: u32, key: u64) -> Option<Buf> {
        if key & RNDV_KEY == 0 {
            return None;
        }
        let mut g = self.q.lock();
        let q = &mut *g;
        let l = q.ext.lane_mut(lane)?;
        let tx = &q.tx;
        let i = q.tx_links.find_first(&l.rndv_wait, |i| tx[i].ext.rndv_key == key && !tx[i].ext.trma)?;
        Some(q.tx[i].buf)
    }

    /// The low 32 bits of the connection id lane `lane`'s peer gave (what
    /// our rxm packets to it carry).
    pub(crate) fn rdm_peer_id(&self, lane: u32) -> u32 {
        self.q.lock().ext.lane(lane).map_or(0, |l| l.peer.peer_id as u32)
    }

    /// Reads of lane `lane` whose responses are still to come.
    pub(crate) fn reads_out(&self, lane: u32) -> bool {
        self.q.lock().ext.lane(lane).is_some_and(|l| !l.tx_read.is_empty())
    }

    /// Close of an RDM endpoint (its map closed): no more routing; the
    /// lanes' connections and attempts, to stop.
    pub(crate) fn rdm_close(&self) -> KVec<Arc<Conn>> {
        let mut all = KVec::new();
        loop {
            let next = {
                let mut g = self.q.lock();
                g.ext.rdm = core::ptr::null();
                g.ext.av = core::ptr::null();
                let n = g.ext.lane_count();
                (0..n).find_map(|l| {
                    let x = g.ext.lane_mut(l)?;
                    x.conn.take().or_else(|| x.peer.out.take())
                })
            };
            let Some(c) = next else {
                return all;
            };
            if all.push(c.clone(), GFP_KERNEL).is_err() {
                c.stop();
            }
        }
    }
}

/// A lane that wants a connection ([`EpData::rdm_take_want`]).
pub(crate) struct Want {
    pub(crate) lane: u32,
    /// The peer's listener, and its handle.
    pub(crate) addr: SockAddr,
    pub(crate) handle: u64,
    /// Its receive context (connect data names it when not 0).
    pub(crate) rx: u16,
    /// The connection will carry our transmits only: a transmit
    /// context's, or one to a receive context other than 0 (see
    /// `logic::rxm::CtxExt`).
    pub(crate) one_way: bool,
}

/// How many RDM lanes one CQ read moves, and looks at.
const RDM_POLL: usize = 4;
const RDM_SCAN: u32 = 64;

/// What a CQ read makes progress with (`QueueExt::Progress`).
pub(crate) enum TcpProgress<'a> {
    /// A MSG endpoint's connection.
    One(ConnRef<'a>),
    /// Connections of an RDM endpoint's lanes with socket events pending.
    Lanes {
        conns: [Option<Arc<Conn>>; RDM_POLL],
        quiet: bool,
        /// Counts this call until the references above are dropped.
        _call: Call<'a>,
    },
}

impl EpData {
    /// An RDM endpoint's [`TcpProgress::Lanes`]: up to [`RDM_POLL`]
    /// connections with pending socket events, from [`RDM_SCAN`] lanes
    /// after the last read's (under the queue lock); `None` if none has
    /// any.
    fn rdm_progress_ref(&self) -> Option<TcpProgress<'_>> {
        let mut g = self.q.lock();
        let q = &mut *g;
        let n = q.ext.lane_count();
        let mut conns: [Option<Arc<Conn>>; RDM_POLL] = Default::default();
        let mut k = 0;
        let start = q.ext.poll_next % n;
        for j in 0..n.min(RDM_SCAN) {
            let l = (start + j) % n;
            if let Some(c) = q.ext.lane(l).and_then(|x| x.conn.as_ref()) {
                if c.dirty() {
                    conns[k] = Some(c.clone());
                    k += 1;
                    if k == RDM_POLL {
                        q.ext.poll_next = l + 1;
                        break;
                    }
                }
            }
        }
        if k < RDM_POLL {
            q.ext.poll_next = start + n.min(RDM_SCAN);
        }
        if k == 0 {
            return None;
        }
        Some(TcpProgress::Lanes { conns, quiet: q.cfg.quiet(), _call: self.call(q) })
    }
}

impl ProgressRef for TcpProgress<'_> {
    #[inline]
    fn poll(&self, polling: bool) -> bool {
        match self {
            TcpProgress::One(c) => c.poll(polling),
            TcpProgress::Lanes { conns, quiet, .. } => {
                let mut again = false;
                for c in conns.iter().flatten() {
                    again |= poll_conn(c, *quiet, polling);
                }
                again
            }
        }
    }

    fn room_freed(&self) {
        match self {
            TcpProgress::One(c) => c.kick(),
            TcpProgress::Lanes { conns, .. } => {
                for c in conns.iter().flatten() {
                    c.kick();
                }
            }
        }
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
