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
//! device cannot be taken back: `kfi_cancel` says -EBUSY.
//!
//! # Locks
//! Everything here runs under the queues' lock `q` (BH spinlock) but the
//! completion entry points, which take it through the toolkit. Posting a
//! work request takes the connection's post lock (BH spinlock) inside `q`,
//! and the device driver's own locks inside that: q → post_lock → driver.

use crate::ffi::{sys, Conn, Wrs};
use crate::logic::atomic::{self, AtomicError, Bufs, Call, IbAtomic};
use crate::logic::proto::{self, Credits, Hdr, Op, CHUNK, HDR_LEN};
use crate::util::base::DWork;
use crate::logic::status::error_of;
use crate::util::logic::xfer::{self as rules, Kind, List};
use crate::util::queues::{EpQueues, QueueExt, Queues};
use crate::util::xfer::{RxWork, Seg};
use core::ffi::{c_int, c_uint, c_void};
use core::sync::atomic::{AtomicBool, Ordering};
use kernel::bindings;
use kernel::prelude::*;

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
    /// Soft mode: its state (`None`: direct mode).
    pub(crate) soft: Option<KBox<SoftTx>>,
}

/// Chunk contexts of a soft-mode connection: the chunks of the message
/// being sent that may be in flight at once (transmit contexts after the
/// consumer's slots).
pub(crate) const NCHUNK: usize = 16;
/// Bounce buffers of a soft-mode connection (its receive queue): the
/// credits each side starts with (`logic/proto.rs`).
pub(crate) const NBOUNCE: usize = proto::BOUNCES as usize;
/// The owner of a chunk context carrying a grant alone.
const GRANT_OWNER: u32 = u32::MAX;
const _: () = assert!(NCHUNK <= 32 && NBOUNCE <= u16::MAX as usize);

/// A bounce buffer's completion, waiting for the receive work.
#[derive(Clone, Copy)]
pub(crate) struct BounceWc {
    pub(crate) idx: u16,
    /// Completed successfully (else flushed or failed: not reposted).
    pub(crate) ok: bool,
    /// A peer's RDMA write with immediate data consumed it.
    pub(crate) write_imm: bool,
    pub(crate) len: u32,
    pub(crate) imm: u32,
}

const NO_WC: BounceWc = BounceWc { idx: 0, ok: false, write_imm: false, len: 0, imm: 0 };

/// A soft-mode send being streamed or in flight.
#[derive(Clone, Copy, Default)]
struct SlotSt {
    /// Chunks posted and not completed.
    out: u16,
    /// Every chunk is posted.
    all: bool,
    /// The first error (positive), 0 if none: the send fails once its
    /// chunks in flight completed.
    err: u32,
}

/// A soft-mode endpoint's state under `q`: the transmit stream (one
/// message's chunks at a time, in posting order with the RMA operations
/// between them), the credits (`logic/proto.rs`), and the bounce
/// buffers' completions waiting for the receive work (`soft.rs`).
pub(crate) struct SoftTx {
    /// The receive work (process context): kicked by bounce completions,
    /// by receives posted while it waits, by a CQ's freed room.
    work: DWork,
    /// The header of the chunk in flight on each chunk context (in the
    /// linear map, as the device maps headers: this structure is
    /// kmalloc'ed).
    chunk_hdr: [[u8; HDR_LEN]; NCHUNK],
    /// The peer's buffers we may fill, our reposted ones not granted.
    credits: Credits,
    /// Where each bounce buffer is (the endpoint's `SoftRx`, which outlives
    /// this): a completing buffer's header is read for its grant.
    bounce: [*const u8; NBOUNCE],
    slots: KVec<SlotSt>,
    /// Consumer transmit slots: chunk context `k` is work request
    /// context `ntx + k`.
    ntx: usize,
    /// The transmit slot of each chunk context in flight.
    owner: [u32; NCHUNK],
    /// Free chunk contexts (bit `k`).
    free: u32,
    /// The send being streamed and the bytes of it posted so far.
    cur: Option<(usize, u64)>,
    /// Bounce completions not handled yet, oldest at `head`.
    ring: [BounceWc; NBOUNCE],
    head: usize,
    n: usize,
    /// The receive work waits (for a receive, a CQ slot, a matching
    /// receive for its unexpected messages) or is running: a receive
    /// posted now kicks it.
    pub(crate) rx_wait: bool,
}

impl SoftTx {
    /// The soft state of queues with `ntx` transmit slots, its receive
    /// work `work`, its bounce buffers at `bounce` (each at least a header
    /// long, alive as long as the queues) (process context).
    pub(crate) fn new(work: DWork, ntx: usize, bounce: [*const u8; NBOUNCE]) -> Result<KBox<SoftTx>> {
        let mut slots = KVec::with_capacity(ntx, GFP_KERNEL)?;
        for _ in 0..ntx {
            slots.push(SlotSt::default(), GFP_KERNEL)?;
        }
        let free = if NCHUNK == 32 { u32::MAX } else { (1u32 << NCHUNK) - 1 };
        let st = SoftTx {
            work,
            chunk_hdr: [[0u8; HDR_LEN]; NCHUNK],
            credits: Credits::new(),
            bounce,
            slots,
            ntx,
            owner: [0; NCHUNK],
            free,
            cur: None,
            ring: [NO_WC; NBOUNCE],
            head: 0,
            n: 0,
            rx_wait: false,
        };
        Ok(KBox::new(st, GFP_KERNEL)?)
    }

    /// Runs the receive work soon. Any context.
    pub(crate) fn kick(&self) {
        self.work.queue(0);
    }

    /// The oldest bounce completion not handled yet.
    pub(crate) fn front(&self) -> Option<BounceWc> {
        (self.n > 0).then(|| self.ring[self.head])
    }

    /// Drops the oldest bounce completion (handled).
    pub(crate) fn pop(&mut self) {
        if self.n > 0 {
            self.head = (self.head + 1) % NBOUNCE;
            self.n -= 1;
        }
    }

    fn push(&mut self, wc: BounceWc) {
        if self.n < NBOUNCE {
            self.ring[(self.head + self.n) % NBOUNCE] = wc;
            self.n += 1;
        }
    }
}

/// Where [`Queues::post_rx`] put a receive.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RxPost {
    /// On the receive queue.
    Posted,
    /// Its registration is posted.
    Held,
    /// It needs a registration, which waits for the connection.
    NotYet,
}

/// What streaming the current send did.
enum Streamed {
    /// No chunk context is free: the rest goes when one completes.
    Blocked,
    /// Nothing is being streamed any more (done, or failed with chunks in
    /// flight: it fails when they complete).
    Done,
    /// The send failed before any of it went out: the caller reports it.
    Failed(usize, u32),
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
    /// A receive whose registration is posted (more pieces than a work
    /// request holds): it goes to the receive queue when that completes,
    /// and later receives wait on `rx_msg` behind it (`qp` is false).
    rx_hold: Option<usize>,
    /// No immediate data: `KFI_REMOTE_CQ_DATA` is refused.
    iwarp: bool,
    /// Soft mode (`None`: direct mode).
    pub(crate) soft: Option<KBox<SoftTx>>,
    /// An RDM endpoint's lanes (`rdm.rs`, `util::peers`; a MSG
    /// endpoint's are unused: its one connection is `conn`).
    pub(crate) peers: crate::util::peers::Peers<crate::Prov>,
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
        let mut one = crate::util::xfer::EMPTY_SEG;
        // An inject's bytes were copied into the slot at the call.
        let segs = op.payload(&mut one);
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
            // Small sends and writes are copied at the post (inline), as
            // injects are: no mapping, and the device need not fetch them.
            inline_ok: matches!(op.kind, Kind::Send | Kind::TSend | Kind::Write),
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

    /// Hands receive slot `i` (off the toolkit's lists) to the device:
    /// to the receive queue, at the tail of `ext.rq` (`Posted`); a buffer
    /// of more pieces than a work request holds first to a registration
    /// of its own (`Held`: `ext.rx_hold`, its receive follows when that
    /// completes), which needs the connection (`NotYet` before it: the
    /// caller keeps the slot first in line).
    fn post_rx(&mut self, i: usize) -> core::result::Result<RxPost, isize> {
        let Some(w) = self.ext.wrs.as_ref() else {
            return Err(neg(bindings::ENOTCONN));
        };
        let segs = self.rx[i].buf.segs();
        // SAFETY: as in `post_tx`: the slot is held until its completion.
        match unsafe { self.ext.conn().post_recv(w, i, segs) } {
            Ok(()) => {
                self.rx_links.push_back(&mut self.ext.rq, i);
                Ok(RxPost::Posted)
            }
            Err(e) if e == -(bindings::E2BIG as c_int) => {
                if !self.ext.up {
                    return Ok(RxPost::NotYet);
                }
                // SAFETY: as above.
                unsafe { self.ext.conn().post_recv_reg(w, i, segs) }.map_err(|e| e as isize)?;
                self.ext.rx_hold = Some(i);
                Ok(RxPost::Held)
            }
            Err(e) => Err(e as isize),
        }
    }

    /// Soft mode, connected: hands what waits on `tx_pending` to the
    /// device in posting order: a send as chunks while chunk contexts are
    /// free (one send at a time), an RMA or atomic as its one work request.
    /// Stops when the chunk contexts are all in flight (the next chunk
    /// completion goes on) or nothing waits. Returns a transmit that
    /// failed before any of it went out, off every list: the caller
    /// reports it after `q` and pumps again.
    fn pump(&mut self) -> Option<(usize, u32)> {
        loop {
            match self.stream() {
                Streamed::Blocked => return None,
                Streamed::Failed(i, e) => return Some((i, e)),
                Streamed::Done => {}
            }
            let i = self.tx_links.pop_front(&mut self.tx_pending)?;
            let op = &self.tx[i];
            if matches!(op.kind, Kind::Send | Kind::TSend) {
                let st = self.ext.soft.as_deref_mut()?;
                st.slots[i] = SlotSt::default();
                st.cur = Some((i, 0));
                continue;
            }
            // A write with immediate data consumes one of the peer's
            // buffers: it waits for a credit like a chunk.
            let imm = op.kind == Kind::Write && op.flags & rules::F_REMOTE_CQ_DATA != 0;
            if imm {
                let st = self.ext.soft.as_deref_mut()?;
                if !st.credits.can_send() {
                    self.tx_links.push_front(&mut self.tx_pending, i);
                    return None;
                }
            }
            if let Err(e) = self.post_tx(i) {
                return Some((i, (-e) as u32));
            }
            if imm {
                if let Some(st) = self.ext.soft.as_deref_mut() {
                    st.credits.send_write();
                }
            }
        }
    }

    /// Soft mode: returns what is owed in a header of its own when it is
    /// enough to matter and no chunk is about to carry it (a chunk
    /// context free, the last credit to send it with). A failure is left
    /// to the connection's end (the post only fails when it is going).
    fn maybe_grant(&mut self) {
        let Queues { ext, .. } = self;
        let VerbsExt { conn, wrs, soft, .. } = ext;
        let (Some(st), Some(w)) = (soft.as_deref_mut(), wrs.as_ref()) else {
            return;
        };
        if !st.credits.grant_due() || st.free == 0 {
            return;
        }
        let k = st.free.trailing_zeros() as usize;
        let grant = st.credits.owed.min(u8::MAX as u32) as u8;
        st.chunk_hdr[k] = proto::encode(&proto::credit(grant));
        // SAFETY: set at enable, valid until the endpoint's close.
        let conn: &Conn = unsafe { &**conn };
        // SAFETY: chunk context `k` is free; the header lives in `st`,
        // freed only at close after the connection's close.
        if unsafe { conn.post_chunk(w, st.ntx + k, &st.chunk_hdr[k], &[], 0, 0) }.is_ok() {
            st.credits.send_grant();
            st.free &= !(1u32 << k);
            st.owner[k] = GRANT_OWNER;
        }
    }

    /// Posts chunks of the send being streamed while chunk contexts are
    /// free.
    fn stream(&mut self) -> Streamed {
        let Queues { tx, ext, .. } = self;
        let VerbsExt { conn, wrs, soft, .. } = ext;
        let (Some(st), Some(w)) = (soft.as_deref_mut(), wrs.as_ref()) else {
            return Streamed::Done;
        };
        let Some((i, mut off)) = st.cur else {
            return Streamed::Done;
        };
        // SAFETY: set at enable, valid until the endpoint's close (the
        // field's invariant); nothing streams before enable.
        let conn: &Conn = unsafe { &**conn };
        let op = &tx[i];
        let mut one = crate::util::xfer::EMPTY_SEG;
        let segs = op.payload(&mut one);
        let len = op.buf.len;
        loop {
            // A chunk context and a credit (the last kept for a grant).
            if st.free == 0 || !st.credits.can_send() {
                st.cur = Some((i, off));
                return Streamed::Blocked;
            }
            let k = st.free.trailing_zeros() as usize;
            let max = (len - off).min(CHUNK as u64) as usize;
            // What `credits.send` returns once it went: all that is owed.
            let grant = st.credits.owed.min(u8::MAX as u32) as u8;
            let h = if off == 0 {
                Hdr {
                    op: Op::Msg,
                    tagged: op.kind == Kind::TSend,
                    data: (op.flags & rules::F_REMOTE_CQ_DATA != 0).then_some(op.data),
                    len: len as u32,
                    tag: op.tag,
                    grant,
                }
            } else {
                proto::cont(grant)
            };
            st.chunk_hdr[k] = proto::encode(&h);
            let hdr: &[u8] = &st.chunk_hdr[k];
            // SAFETY: chunk context `k` is free (not posted); the send's
            // slot is held off every list until its last chunk completes,
            // so its buffer (the consumer's, or the slot's `inline` copy)
            // stays valid; the headers live in `st`, freed only at close
            // after the connection's close; `w` outlives the queue pair.
            match unsafe { conn.post_chunk(w, st.ntx + k, hdr, segs, off, max) } {
                Ok(n) => {
                    st.credits.send();
                    st.free &= !(1u32 << k);
                    st.owner[k] = i as u32;
                    st.slots[i].out += 1;
                    off += n as u64;
                    if off >= len {
                        st.slots[i].all = true;
                        st.cur = None;
                        return Streamed::Done;
                    }
                }
                Err(e) => {
                    st.cur = None;
                    let e = (-e) as u32;
                    if st.slots[i].out == 0 {
                        return Streamed::Failed(i, e);
                    }
                    st.slots[i].err = e;
                    return Streamed::Done;
                }
            }
        }
    }
}

/// What the queues tell without `q`.
#[derive(Default)]
pub(crate) struct VerbsShared {
    /// Soft mode (set at enable, before any slot is posted).
    soft: AtomicBool,
}

/// Completions a CQ read handles on one endpoint's queue pair.
const READ_BUDGET: u32 = 16;

/// A CQ's progress on an endpoint (the toolkit's `ProgressSource`): a
/// polling consumer's read handles the queue pair's completions itself
/// (`Conn::poll`), as a raw verbs consumer polls its CQ, instead of
/// waiting for the softirq poller; in soft mode a read that frees room
/// kicks the receive work.
pub(crate) struct VerbsProgress<'a> {
    ep: &'a EpData,
    /// `None`: an RDM endpoint's (its connections' completions come
    /// through the softirq poller; a read that frees room kicks them).
    conn: Option<&'a Conn>,
    /// No CQ of the endpoint has a completion handler (`Config::quiet`):
    /// only then do completions come in the reader's call.
    quiet: bool,
    /// Keeps `conn` (the endpoint's close waits for this).
    _call: crate::util::queues::Call<'a>,
}

impl crate::util::cq::ProgressRef for VerbsProgress<'_> {
    fn poll(&self, polling: bool) -> bool {
        let (true, Some(conn)) = (self.quiet, self.conn) else {
            return false;
        };
        conn.poll(READ_BUDGET, polling);
        // Busy polling: the CQ stays marked, so that a blocking read after
        // these hands the queue pair's completions back to the softirq
        // poller (`Conn::poll` with `busy` false) before it sleeps.
        polling
    }

    fn room_freed(&self) {
        let g = self.ep.q.lock();
        if let Some(st) = g.ext.soft.as_deref() {
            st.kick();
        }
        if g.ext.peers.per_lane_tx {
            // Messages waiting for a CQ slot go on.
            crate::rdm::kick_lanes(&g);
        }
    }
}

impl Queues<VerbsExt> {
    /// [`QueueExt::posted`] in soft mode: transmits go in order through
    /// [`Queues::pump`] once connected; receives stay on the toolkit's
    /// lists (the receive work matches messages to them), kicking the
    /// work when it waits or for a probe (answered from the unexpected
    /// messages).
    fn posted_soft(&mut self, kind: Kind, i: usize) -> core::result::Result<(), isize> {
        if kind.is_tx() {
            if self.tx[i].flags & rules::F_REMOTE_CQ_DATA != 0 && self.ext.iwarp {
                return Err(neg(bindings::EOPNOTSUPP));
            }
            if kind.is_rma() && self.tx[i].n_rma != 1 {
                return Err(neg(bindings::EINVAL));
            }
            if kind.is_atomic() {
                self.check_atomic(kind, i)?;
            }
            let streaming = self.ext.soft.as_deref().is_some_and(|st| st.cur.is_some());
            // Nothing else waits when nothing streams (every pump empties
            // the list or leaves a send streaming): the slot goes first.
            if self.ext.up && !streaming && self.tx_pending.front() == Some(i) {
                if let Some((j, e)) = self.pump() {
                    if j != i {
                        // Not reached (see above); were it, `j` is tried
                        // again by the next pump.
                        self.tx_links.push_front(&mut self.tx_pending, j);
                    }
                    return Err(-(e as isize));
                }
            }
            return Ok(());
        }
        let probe = rules::is_probe(self.rx[i].flags);
        if let Some(st) = self.ext.soft.as_deref() {
            if st.rx_wait || probe {
                st.kick();
            }
        }
        Ok(())
    }

    /// Checks an atomic the device is to do (`posted`).
    fn check_atomic(&self, kind: Kind, i: usize) -> core::result::Result<(), isize> {
        let op = &self.tx[i];
        let r = op.region(0);
        let a = &op.atomic;
        let call = atomic_call(kind).unwrap_or(Call::Atomic);
        let raddr = r.addr.wrapping_add(r.key >> 32);
        let bufs = Bufs { operand: op.buf.len == atomic::ELEM, result: !a.result.is_null(), compare: !a.compare.is_null() };
        // SAFETY: the queues' domain outlives them.
        let atomics = unsafe { &*self.cfg.domain }.atomics();
        atomic::check(atomics, call, a.datatype, a.op, r.len, raddr, bufs).map(|_| ()).map_err(|e| match e {
            AtomicError::NotDone => neg(sys::KFI_ENOSYS),
            AtomicError::Bad => neg(bindings::EINVAL),
        })
    }
}

impl QueueExt for VerbsExt {
    type Shared = VerbsShared;
    type Prepared = Prepared;
    type Kick<'a> = ();
    type Progress<'a> = VerbsProgress<'a>;
    const POLL_IDLE: bool = true;

    fn new() -> VerbsExt {
        VerbsExt {
            conn: core::ptr::null(),
            wrs: None,
            qp: false,
            up: false,
            rq: List::new(),
            rx_hold: None,
            iwarp: false,
            soft: None,
            peers: crate::util::peers::Peers::new(),
        }
    }

    fn enable(q: &mut Queues<VerbsExt>, p: &mut Prepared) {
        q.ext.conn = p.conn;
        q.ext.wrs = p.wrs.take();
        q.ext.qp = p.qp;
        q.ext.iwarp = p.iwarp;
        core::mem::swap(&mut q.ext.soft, &mut p.soft);
    }

    #[inline(always)]
    fn init_tx(_kind: Kind, _flags: u64) {}

    /// Hands the slot to the device when it can take it; refuses what
    /// this provider does not do (in direct mode tagged messages:
    /// -KFI_ENOSYS, multi-receive buffers: -KFI_EBADFLAGS; remote CQ data
    /// on iWARP: -EOPNOTSUPP, an RMA over more than one remote region:
    /// -EINVAL).
    fn posted<'a>(_ep: &'a EpData, q: &mut Queues<VerbsExt>, kind: Kind, i: usize) -> core::result::Result<Option<()>, isize> {
        if q.ext.peers.per_lane_tx {
            return crate::rdm::posted(q, kind, i).map(|()| None);
        }
        if q.ext.soft.is_some() {
            return q.posted_soft(kind, i).map(|()| None);
        }
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
                q.check_atomic(kind, i)?;
                if q.ext.up {
                    q.tx_links.remove_first(&mut q.tx_pending, |j| j == i);
                    q.post_tx(i)?;
                }
            }
            Kind::Recv => {
                if q.rx[i].flags & rules::F_MULTI_RECV != 0 {
                    return Err(neg(sys::KFI_EBADFLAGS));
                }
                // `qp`: nothing waits before it (the list is empty).
                if q.ext.qp {
                    q.rx_links.remove_first(&mut q.rx_msg, |j| j == i);
                    match q.post_rx(i)? {
                        RxPost::Posted => {}
                        RxPost::Held => q.ext.qp = false,
                        RxPost::NotYet => {
                            q.rx_links.push_back(&mut q.rx_msg, i);
                            q.ext.qp = false;
                        }
                    }
                }
            }
            _ => return Err(neg(sys::KFI_ENOSYS)),
        }
        Ok(None)
    }

    #[inline(always)]
    fn run_kick(_k: ()) {}

    /// Direct mode: a receive handed to the device's receive queue cannot
    /// be withdrawn (-EBUSY: it completes with a message, or flushed when
    /// the connection ends).
    fn holds_rx(q: &Queues<VerbsExt>, context: usize) -> bool {
        let mut held = q.ext.rx_hold.is_some_and(|i| q.rx[i].context == context);
        q.rx_links.for_each(&q.ext.rq, |i| held |= q.rx[i].context == context);
        held
    }

    #[inline(always)]
    fn defer_tx(_q: &mut Queues<VerbsExt>, _i: usize) -> bool {
        false
    }

    fn failing(_q: &mut Queues<VerbsExt>) {}

    /// What the device holds completes through the device (flushed); in
    /// soft mode a send whose streaming stopped with none of its chunks in
    /// flight is the provider's: it fails here.
    fn flush_next(q: &mut Queues<VerbsExt>) -> Option<(bool, usize)> {
        let st = q.ext.soft.as_deref_mut()?;
        let (i, _) = st.cur?;
        if st.slots[i].out != 0 {
            return None;
        }
        st.cur = None;
        Some((true, i))
    }

    /// Soft mode: an untagged message waits for a receive; one posted now
    /// kicks the receive work.
    fn msg_waiting(q: &mut Queues<VerbsExt>, stream: u32, waiting: bool) {
        if q.ext.peers.per_lane_tx {
            if let Some(l) = q.ext.peers.lane_mut(stream) {
                l.x.msg_waiting = waiting;
            }
            return;
        }
        if let (Some(st), true) = (q.ext.soft.as_deref_mut(), waiting) {
            st.rx_wait = true;
        }
    }

    /// Until the endpoint's close: the connection, to poll its queue
    /// pair's completions (see [`VerbsProgress`]).
    fn progress_ref(ep: &EpData) -> Option<VerbsProgress<'_>> {
        let g = ep.q.lock();
        if g.ext.peers.per_lane_tx {
            return Some(VerbsProgress { ep, conn: None, quiet: g.cfg.quiet(), _call: ep.call(&g) });
        }
        if g.ext.conn.is_null() {
            return None;
        }
        // SAFETY: set, so valid until the endpoint's close, which clears
        // it under `q` and then waits for the call counted here.
        let conn = unsafe { &*g.ext.conn };
        Some(VerbsProgress { ep, conn: Some(conn), quiet: g.cfg.quiet(), _call: ep.call(&g) })
    }

    fn owe_ack(_ep: &EpData, _stream: u32) {}
}

impl EpData {
    /// The queue pair exists (process context): receives posted so far go
    /// to the device, in order. A receive the device refuses fails with
    /// an error entry.
    pub(crate) fn qp_ready(&self) {
        if self.is_soft() {
            // Receives stay in software; the endpoint posts its bounce
            // buffers (`soft.rs`).
            self.q.lock().ext.qp = true;
        } else {
            self.hand_over(false);
        }
    }

    /// The connection is established (process context): transmits posted
    /// so far go to the device, in order. One the device refuses fails
    /// with an error entry.
    pub(crate) fn connected(&self) {
        if self.is_soft() {
            self.pump_report(true);
        } else {
            self.hand_over(true);
            // Receives that wait for a registration go now; they are on
            // the receive queue before the consumer hears of the
            // connection (for a while: iWARP has no receiver-not-ready
            // retry, a message finding no receive ends the connection).
            self.hand_over(false);
            for _ in 0..HAND_OVER_TRIES {
                let g = self.q.lock();
                if g.ext.qp || g.down || !g.enabled {
                    break;
                }
                drop(g);
                crate::util::base::sleep_briefly();
            }
        }
    }

    /// Soft mode (set before enable).
    pub(crate) fn set_soft(&self) {
        self.shared.soft.store(true, Ordering::Relaxed);
    }

    /// Soft mode.
    pub(crate) fn is_soft(&self) -> bool {
        self.shared.soft.load(Ordering::Relaxed)
    }

    /// Soft mode: pumps the transmit stream (`up`: connected now),
    /// reporting what fails before it went out.
    fn pump_report(&self, up: bool) {
        loop {
            let failed = {
                let mut g = self.q.lock();
                let q = &mut *g;
                if !q.enabled || q.down {
                    return;
                }
                if up {
                    q.ext.up = true;
                }
                if !q.ext.up {
                    return;
                }
                q.pump()
            };
            match failed {
                Some((i, e)) => self.tx_failed(i, e),
                None => return,
            }
        }
    }

    /// Soft mode: hands bounce buffer `idx` (`buf`) to the receive queue
    /// (its work request context is receive context `idx`); `repost`: it
    /// was handled, a credit owed to the peer.
    ///
    /// # Safety
    /// `buf` stays valid and is not accessed until the buffer's
    /// completion is handled (or the connection is closed).
    pub(crate) unsafe fn post_bounce(&self, idx: usize, buf: &mut [u8], repost: bool) -> core::result::Result<(), isize> {
        let mut g = self.q.lock();
        let q = &mut *g;
        let Some(w) = q.ext.wrs.as_ref() else {
            return Err(neg(bindings::ENOTCONN));
        };
        if !q.ext.qp || q.down {
            return Err(neg(bindings::ENOTCONN));
        }
        let seg = Seg { base: buf.as_mut_ptr().cast(), page: core::ptr::null_mut(), offset: 0, len: buf.len() };
        // SAFETY: by the caller's contract; the context is free (the
        // buffer is not posted); `wrs` outlives the queue pair.
        unsafe { q.ext.conn().post_recv(w, idx, core::slice::from_ref(&seg)) }.map_err(|e| e as isize)?;
        // A buffer posted again is a credit owed to the peer (the first
        // posts are the credits it starts with).
        if let (Some(st), true) = (q.ext.soft.as_deref_mut(), repost) {
            st.credits.reposted();
            q.maybe_grant();
        }
        Ok(())
    }

    /// Soft mode: the oldest bounce completion not handled yet, and
    /// marks the receive work as waiting (running counts: a receive
    /// posted meanwhile kicks it again). `None` when the queues are gone.
    pub(crate) fn bounce_front(&self) -> Option<Option<BounceWc>> {
        let mut g = self.q.lock();
        let st = g.ext.soft.as_deref_mut()?;
        st.rx_wait = true;
        Some(st.front())
    }

    /// Soft mode: the oldest bounce completion was handled.
    pub(crate) fn bounce_pop(&self) {
        if let Some(st) = self.q.lock().ext.soft.as_deref_mut() {
            st.pop();
        }
    }

    /// Soft mode: the receive work stops; `waiting`: it waits for
    /// something a post or a CQ read brings (a receive posted then kicks
    /// it).
    pub(crate) fn rx_idle(&self, waiting: bool) {
        let mut g = self.q.lock();
        if let Some(st) = g.ext.soft.as_deref_mut() {
            st.rx_wait = waiting;
            if st.n > 0 && !waiting {
                // A completion came after the last look.
                st.kick();
            }
        }
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
                // A receive waiting for its registration goes first.
                if !q.enabled || q.down || (!tx && q.ext.rx_hold.is_some()) {
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
                let r = if tx { q.post_tx(i).map(|()| RxPost::Posted) } else { q.post_rx(i) };
                match r {
                    Ok(RxPost::Posted) => continue,
                    // The rest waits for its registration.
                    Ok(RxPost::Held) => return,
                    Ok(RxPost::NotYet) => {
                        q.rx_links.push_front(&mut q.rx_msg, i);
                        return;
                    }
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
                    Err(e) => (i, (-e) as u32, Some(RxWork { idx: i, op: q.rx[i], offset: 0, room: q.rx[i].buf.len, last: true, from: rules::ADDR_ANY })),
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
    /// the work request contexts, to be freed after the lock. Soft mode:
    /// the receive work is stopped (waited for) after the lock.
    pub(crate) fn close(&self) -> Option<Wrs> {
        self.close_with(|q| {
            q.ext.rq = List::new();
            q.ext.rx_hold = None;
            q.ext.up = false;
            q.ext.qp = false;
            // No CQ read takes the connection after this.
            q.ext.conn = core::ptr::null();
            (q.ext.wrs.take(), q.ext.soft.take())
        })
        .0
    }

    /// Soft mode: chunk context `k` completed (softirq). Its send
    /// completes with its last chunk (fails once its chunks in flight
    /// completed, if one failed); the stream goes on.
    fn chunk_wc(&self, k: usize, wc: &sys::kfi_verbs_wc) {
        let (fin, failed) = {
            let mut g = self.q.lock();
            let q = &mut *g;
            let Some(st) = q.ext.soft.as_deref_mut() else {
                return;
            };
            st.free |= 1u32 << k;
            let mut fin = None;
            // (A grant alone has no send to complete.)
            if st.owner[k] != GRANT_OWNER {
                let i = st.owner[k] as usize;
                st.slots[i].out = st.slots[i].out.saturating_sub(1);
                if wc.status != 0 && st.slots[i].err == 0 {
                    st.slots[i].err = error_of(wc.status, false);
                    if st.cur.is_some_and(|(c, _)| c == i) {
                        st.cur = None;
                    }
                }
                let sl = st.slots[i];
                fin = (sl.out == 0 && (sl.all || sl.err != 0)).then_some((i, sl.err));
            }
            let failed = if q.ext.up && !q.down { q.pump() } else { None };
            q.maybe_grant();
            (fin, failed)
        };
        match fin {
            Some((i, 0)) => self.tx_complete(i),
            Some((i, err)) => self.tx_failed(i, err),
            None => {}
        }
        if let Some((i, e)) = failed {
            self.tx_failed(i, e);
            self.pump_report(false);
        }
    }

    /// Transmit slot `slot` completed (softirq).
    fn tx_wc(&self, slot: usize, wc: &sys::kfi_verbs_wc) {
        if self.is_soft() {
            let ntx = self.q.lock().ext.soft.as_deref().map_or(usize::MAX, |st| st.ntx);
            if slot >= ntx {
                self.chunk_wc(slot - ntx, wc);
                return;
            }
        }
        if wc.status == 0 {
            self.tx_complete(slot);
        } else {
            self.tx_failed(slot, error_of(wc.status, false));
        }
    }

    /// Soft mode: bounce buffer `idx` completed (softirq): queued for the
    /// receive work.
    fn bounce_wc(&self, idx: usize, wc: &sys::kfi_verbs_wc) {
        let failed = {
            let mut g = self.q.lock();
            let q = &mut *g;
            let Some(st) = q.ext.soft.as_deref_mut() else {
                return;
            };
            let ok = wc.status == 0;
            let write_imm = ok && wc.write_imm;
            st.push(BounceWc { idx: idx as u16, ok, write_imm, len: wc.byte_len, imm: wc.imm_data });
            st.kick();
            // The credits its header returns count now, whatever becomes
            // of the message (it may wait for a receive).
            let grant = match (ok && !write_imm, st.bounce.get(idx)) {
                (true, Some(&p)) => {
                    let n = (wc.byte_len as usize).min(HDR_LEN);
                    // SAFETY: the buffer is the endpoint's (`bounce`'s
                    // invariant), at least a header long; its receive just
                    // completed (the device wrote it, it is unmapped) and
                    // nothing writes it until it is posted again.
                    proto::grant_of(unsafe { core::slice::from_raw_parts(p, n) })
                }
                _ => 0,
            };
            if grant == 0 {
                return;
            }
            st.credits.granted(grant);
            let failed = if q.ext.up && !q.down { q.pump() } else { None };
            q.maybe_grant();
            failed
        };
        if let Some((i, e)) = failed {
            self.tx_failed(i, e);
            self.pump_report(false);
        }
    }

    /// The registration of receive `slot` completed (softirq): its receive
    /// goes to the receive queue (or fails), then the receives waiting
    /// behind it, in order, until one needs a registration again.
    fn rx_reg_wc(&self, slot: usize, wc: &sys::kfi_verbs_wc) {
        let mut first = Some(slot);
        loop {
            let failed = {
                let mut g = self.q.lock();
                let q = &mut *g;
                let work = |q: &Queues<VerbsExt>, i: usize| RxWork { idx: i, op: q.rx[i], offset: 0, room: q.rx[i].buf.len, last: true, from: rules::ADDR_ANY };
                let mut failed = None;
                if let Some(i) = first.take() {
                    q.ext.rx_hold = None;
                    let r = match (wc.status, q.ext.wrs.as_ref()) {
                        // SAFETY: as in `post_tx`: the slot is held until
                        // its completion.
                        (0, Some(w)) => unsafe { q.ext.conn().post_recv_mr(w, i) }.map_err(|e| (-e) as u32),
                        (0, None) => Err(bindings::ENOTCONN),
                        (st, _) => Err(error_of(st, true)),
                    };
                    match r {
                        Ok(()) => q.rx_links.push_back(&mut q.ext.rq, i),
                        Err(e) => failed = Some((work(q, i), e)),
                    }
                }
                while failed.is_none() && q.enabled && !q.down && q.ext.rx_hold.is_none() {
                    let Some(i) = q.rx_links.pop_front(&mut q.rx_msg) else {
                        q.ext.qp = true;
                        break;
                    };
                    match q.post_rx(i) {
                        Ok(RxPost::Posted) => continue,
                        Ok(RxPost::Held) => break,
                        Ok(RxPost::NotYet) => {
                            q.rx_links.push_front(&mut q.rx_msg, i);
                            break;
                        }
                        // The queue pair is going: the flush fails it.
                        Err(e) if e == neg(bindings::ENOTCONN) || e == neg(bindings::EAGAIN) => {
                            q.rx_links.push_front(&mut q.rx_msg, i);
                            break;
                        }
                        Err(e) => failed = Some((work(q, i), (-e) as u32)),
                    }
                }
                failed
            };
            match failed {
                Some((w, e)) => self.rx_failed(&w, e, 0, 0),
                None => return,
            }
        }
    }

    /// Receive slot `slot` completed (softirq): it is the head of `rq`.
    fn rx_wc(&self, slot: usize, wc: &sys::kfi_verbs_wc) {
        if self.is_soft() {
            self.bounce_wc(slot, wc);
            return;
        }
        if wc.reg {
            self.rx_reg_wc(slot, wc);
            return;
        }
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
            RxWork { idx: slot, op: q.rx[slot], offset: 0, room: q.rx[slot].buf.len, last: true, from: rules::ADDR_ANY }
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
