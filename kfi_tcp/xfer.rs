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
use crate::util::peers::{route, Lane, Peers};
use crate::logic::xfer_tcp as wire_rules;
use crate::Prov;
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

/// kfi_tcp's state under the queue lock (`Queues::ext`).
pub(crate) struct TcpExt {
    /// The lanes (lane 0: a MSG endpoint's), `util::peers`.
    pub(crate) peers: Peers<Prov>,
    /// RDM: rendezvous sent (the middle bits of their keys).
    rndv_seq: u64,
    /// RDM: the lane the next CQ read looks at first.
    poll_next: u32,
}

/// Tells lane `l`'s connection that frames are queued (`Conn::tx_hint`).
#[inline(always)]
fn hint(l: &Lane<Prov>) {
    if let Some(c) = &l.conn {
        c.tx_hint.store(true, Ordering::SeqCst);
    }
}

/// The top bit of the keys our rendezvous sends name their buffers by: a
/// read request with such a key is served from the sending operation's
/// buffer, not from a registered region (consumers' keys with this bit set
/// still work: a key names a rendezvous only while one is out with it).
pub(crate) const RNDV_KEY: u64 = 1 << 63;

/// The transmits queued for lane `l`, with the links they are threaded
/// on (`None`: no such lane).
#[inline(always)]
fn pending(q: &mut Queues<TcpExt>, l: u32) -> Option<(&mut crate::util::logic::xfer::Links<KVVec<u32>>, &mut List)> {
    let Queues { tx_links, tx_pending, ext, .. } = q;
    if !ext.peers.per_lane_tx {
        return (l == 0).then_some((tx_links, tx_pending));
    }
    Some((tx_links, &mut ext.peers.lane_mut(l)?.tx_pending))
}

/// The connections of a closed endpoint ([`EpData::close`]): dropped
/// outside the queue lock (a last reference releases a socket, which may
/// sleep).
pub(crate) struct Closed {
    #[allow(dead_code)]
    first: Lane<Prov>,
    #[allow(dead_code)]
    more: KVec<Lane<Prov>>,
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
        TcpExt { peers: Peers::new(), rndv_seq: 0, poll_next: 0 }
    }

    /// The connections' work runs on the CQs' `KFI_AFFINITY` CPU.
    fn enable(q: &mut Queues<TcpExt>, _p: &mut ()) {
        let cpu = q.cfg.io_cpu();
        for l in q.ext.peers.iter_mut() {
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
        if q.ext.peers.per_lane_tx {
            return ep.rdm_posted(q, kind, i);
        }
        if kind.is_tx() {
            hint(&q.ext.peers.first);
            if q.tx[i].flags & rules_x::F_MORE != 0 && q.cfg.quiet() {
                // KFI_MORE: the consumer posts more right after this; the
                // frames go together from the next post's progress, or
                // from a CQ read (`defer_tx`).
                if let Some(c) = &q.ext.peers.first.conn {
                    c.defer_tx();
                }
                return Ok(None);
            }
        } else if !kind.is_tagged() && !q.ext.peers.first.x.msg_waiting {
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
        match q.ext.peers.lane_mut(l) {
            // A rendezvous is done when the peer has read it (no ACK is
            // asked of its request).
            Some(lane) if rndv => {
                q.tx_links.push_back(&mut lane.x.rndv_wait, i);
                true
            }
            Some(lane) => {
                q.tx_links.push_back(&mut lane.x.tx_await, i);
                true
            }
            None => false,
        }
    }

    fn failing(q: &mut Queues<TcpExt>) {
        for l in q.ext.peers.iter_mut() {
            l.x.acks_owed = 0;
        }
    }

    /// Per lane: transmits waiting for an ACK first, then reads waiting
    /// for their responses, then (RDM) transmits queued.
    fn flush_next(q: &mut Queues<TcpExt>) -> Option<(bool, usize)> {
        let Queues { tx_links, ext, .. } = q;
        for l in ext.peers.iter_mut() {
            for list in [&mut l.x.tx_await, &mut l.x.tx_read, &mut l.x.rndv_wait, &mut l.tx_pending] {
                if let Some(i) = tx_links.pop_front(list) {
                    return Some((true, i));
                }
            }
        }
        None
    }

    #[inline(always)]
    fn msg_waiting(q: &mut Queues<TcpExt>, stream: u32, waiting: bool) {
        if let Some(l) = q.ext.peers.lane_mut(stream) {
            l.x.msg_waiting = waiting;
        }
    }

    /// A MSG endpoint's connection; an RDM endpoint's connections that
    /// had socket events since they were last moved (a few per read,
    /// round robin over the lanes).
    #[inline]
    fn progress_ref(ep: &EpData) -> Option<TcpProgress<'_>> {
        let g = ep.q.lock();
        if !g.ext.peers.per_lane_tx {
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
        let c = q.ext.peers.first.conn.as_ref()?.clone();
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
        core::mem::replace(&mut g.ext.peers.first.conn, c)
    }

    /// Endpoint close, after the connections stopped: the toolkit returns
    /// the CQ reservations of the operations not reported; hands back the
    /// connection references (dropped by the caller once no consumer's
    /// call holds one: `wait_calls`).
    pub(crate) fn close(&self) -> Closed {
        self.close_with(|q| {
            let (first, more) = q.ext.peers.take_all();
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
    // (Inlined: a small message's send step is mostly this.)
    #[inline(always)]
    pub(crate) fn tx_next(&self, conn: &Conn, lane: u32, reads: bool, fill: impl FnOnce(TxItem<'_>) -> bool) -> Option<TxTaken> {
        let hint = &conn.tx_hint;
        if !hint.load(Ordering::SeqCst) {
            return None;
        }
        let mut g = self.q.lock();
        let q = &mut *g;
        let rxm = if q.ext.peers.per_lane_tx {
            // Only the lane's connection sends its frames (an attempt the
            // map dropped, or an old one, does not).
            let l = q.ext.peers.lane(lane)?;
            if !l.conn.as_deref().is_some_and(|c| core::ptr::eq(c, conn)) {
                return None;
            }
            Some(l.peer.peer_id as u32)
        } else {
            None
        };
        let acks = q.ext.peers.lane(lane).map_or(0, |l| l.x.acks_owed);
        let slot = if acks > 0 {
            if let Some(l) = q.ext.peers.lane_mut(lane) {
                l.x.acks_owed -= 1;
            }
            None
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
            Some(i)
        } else {
            hint.store(false, Ordering::SeqCst);
            return None;
        };
        // One call of `fill` (it is inlined here).
        let ok = fill(match slot {
            None => TxItem::Ack,
            Some(i) => TxItem::Op(i, &q.tx[i], rxm),
        });
        if let (Some(i), true) = (slot, ok) {
            if q.tx[i].kind == Kind::Read && !q.tx[i].ext.trma {
                // A read waits for its responses from the moment its first
                // request starts out: one sent as several requests may
                // have responses back before its last request is sent.
                if let Some(l) = q.ext.peers.lane_mut(lane) {
                    q.tx_links.push_back(&mut l.x.tx_read, i);
                }
            }
        }
        let more = Self::lane_queued(q, lane);
        if !more {
            hint.store(false, Ordering::SeqCst);
        }
        Some(TxTaken { slot, more, ok })
    }

    /// Whether frames are queued on lane `lane` (under the lock).
    fn lane_queued(q: &mut Queues<TcpExt>, lane: u32) -> bool {
        q.ext.peers.lane(lane).is_some_and(|l| l.x.acks_owed > 0) || pending(q, lane).is_some_and(|(_, list)| !list.is_empty())
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
            let Some(l) = q.ext.peers.lane_mut(lane) else {
                return false;
            };
            let Some(i) = q.tx_links.pop_front(&mut l.x.tx_await) else {
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
        let l = q.ext.peers.lane_mut(lane)?;
        let i = l.x.tx_read.front()?;
        let op = &mut q.tx[i];
        if op.ext.rsp_got >= op.ext.req_sent {
            // A response to a request not sent yet.
            return None;
        }
        let c = op.chunk(op.ext.rsp_got);
        op.ext.rsp_got += 1;
        let buf = op.buf;
        if c.last {
            q.tx_links.pop_front(&mut l.x.tx_read);
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
        if let Some(l) = g.ext.peers.lane_mut(lane) {
            l.x.acks_owed += 1;
            hint(l);
        }
    }
}

/// An RDM endpoint's lanes (see `rdm.rs`): kfi_tcp's part of a post,
/// and of the peer's rendezvous and tagged RMA answers.
impl EpData {
    /// A post on an RDM endpoint (`QueueExt::posted`): a transmit goes to
    /// the lane of its destination (`util::peers::route`), which connects
    /// on its first; a receive lets the connections that hold messages for
    /// one go on.
    fn rdm_posted<'a>(&'a self, q: &mut Queues<TcpExt>, kind: Kind, i: usize) -> core::result::Result<Option<ConnRef<'a>>, isize> {
        if !kind.is_tx() {
            if !q.ext.peers.enabled() {
                return Err(-(kernel::bindings::ENOTCONN as isize));
            }
            let tagged = kind.is_tagged();
            for l in q.ext.peers.iter_mut() {
                if let (Some(c), true) = (&l.conn, tagged || l.x.msg_waiting) {
                    c.kick();
                }
            }
            return Ok(None);
        }
        let r = route(q, i)?;
        if !r.flow {
            return Ok(None);
        }
        let Some(l) = q.ext.peers.lane(r.lane) else {
            return Ok(None);
        };
        hint(l);
        let Some(c) = l.conn.clone() else {
            return Ok(None);
        };
        Ok(Some(ConnRef { conn: c, quiet: q.cfg.quiet(), _call: self.call(q) }))
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
            let Some(l) = q.ext.peers.lane_mut(lane) else {
                return false;
            };
            let tx = &q.tx;
            let Some(i) = q.tx_links.remove_first(&mut l.x.rndv_wait, |i| tx[i].ext.rndv_key == key && tx[i].ext.trma == trma) else {
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
        let Some(i) = self.lane_take(lane, |x| &mut x.rndv_wait, |_, op| op.ext.rndv_key == key && op.ext.trma) else {
            return false;
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
        let l = q.ext.peers.lane_mut(lane)?;
        let tx = &q.tx;
        let i = q.tx_links.find_first(&l.x.rndv_wait, |i| tx[i].ext.rndv_key == key && tx[i].ext.trma && tx[i].kind == Kind::Read)?;
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
        let l = q.ext.peers.lane_mut(lane)?;
        let tx = &q.tx;
        let i = q.tx_links.find_first(&l.x.rndv_wait, |i| tx[i].ext.rndv_key == key && !tx[i].ext.trma)?;
        Some(q.tx[i].buf)
    }

    /// Reads of lane `lane` whose responses are still to come.
    pub(crate) fn reads_out(&self, lane: u32) -> bool {
        self.q.lock().ext.peers.lane(lane).is_some_and(|l| !l.x.tx_read.is_empty())
    }
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
        let n = q.ext.peers.count();
        let mut conns: [Option<Arc<Conn>>; RDM_POLL] = Default::default();
        let mut k = 0;
        let start = q.ext.poll_next % n;
        for j in 0..n.min(RDM_SCAN) {
            let l = (start + j) % n;
            if let Some(c) = q.ext.peers.lane(l).and_then(|x| x.conn.as_ref()) {
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
