// SPDX-License-Identifier: GPL-2.0
//! The data phase of a connection (a child module of `conn.rs`): what its
//! work item does once `Established`.
//!
//! Each step sends at most one piece of the current outgoing frame and
//! receives at most one piece of the current incoming one:
//! - **tx**: owed ACKs first, then posted operations in order. A frame is
//!   the encoded header (`wire::MsgHeader`, in the connection's byte
//!   order) followed by the consumer's segments (or the inject copy),
//!   written with one non-blocking `sendmsg` per step, `MSG_MORE` while
//!   more is queued. Done when the last byte is taken by the socket,
//!   or on the peer's ACK when one was asked for. The payloads of
//!   operations done on the peer's ACK and of read responses are sent
//!   zero-copy (`MSG_SPLICE_PAGES`, pages that allow it); others are
//!   copied, since their buffers may be reused once the socket has them.
//! - **rx**: bytes are read ahead into a small staging buffer
//!   ([`STAGE`] bytes), so that a small frame (header and payload) or
//!   several take one socket read: the 16-byte base header, then the rest
//!   of the header (`wire::header_len` validates everything that decides
//!   how the stream is cut before it is used), then the payload: what the
//!   stage holds of it is copied, the rest is received straight into the
//!   posted buffer. An untagged message waits in the
//!   socket until a receive is posted (TCP back-pressure). A tagged one
//!   with no matching receive is read into a buffer of its own (at most
//!   [`UNEXP_LIMIT`] bytes per connection; beyond, it waits in the socket)
//!   and delivered when a matching receive is posted.
//!
//! A message longer than its receive fails that receive alone
//! (`KFI_ETRUNC`, the bytes that fit delivered, the rest of the frame read
//! and dropped); the stream goes on. Anything malformed — bad header,
//! unknown op, an ACK nobody asked for, end of stream inside a frame —
//! ends the connection: the operation concerned fails with its own error,
//! every other queued operation fails with -KFI_ECANCELED, and the
//! endpoint's EQ gets `KFI_SHUTDOWN`, as for an end of stream between
//! frames (libfabric's tcp provider does the same; the cause is logged,
//! rate-limited, and kept for `kfi_tcp_stat_last_break()`).
//!
//! RMA: a write's payload is received straight into the registered
//! memory its regions resolve to (`Domain::rma_segs`: key, access and
//! bounds of every region checked first; a bad one ends the connection
//! before a byte is written); a read request queues a response, sent
//! from the registered memory between frames; a read response fills the
//! oldest outstanding read (responses carry no id: order is the match).

use super::{Conn, Owner, Phase, Step};
use kernel::sync::Arc;
use crate::util::base;
use crate::util::trace;
use core::ffi::CStr;
use crate::ffi::{self, sys};
use crate::logic::xfer::{self as rules, Kind};
use crate::sock::{self, SkState};
use crate::wire::{self, ByteOrder, FrameKind, MsgHeader, TagForm};
use crate::logic::mr::{REMOTE_READ, REMOTE_WRITE};
use crate::logic::rxm;
use crate::util::xfer::{Buf, Seg, EMPTY_SEG};
use crate::util::tagmatch::{Unexp, UnexpList, UNEXP_LIMIT, UNEXP_MAX};
use crate::util::xfer::{RxWork, TxOp};
use crate::util::rdm::LaneRef;
use crate::Prov;
use crate::util::queues::{NoRoom, Room};
use crate::xfer::{Chunk, EpData, TxItem, TxTaken};
use core::ffi::c_int;
use kernel::bindings;
use kernel::prelude::*;

/// Warnings about remote writes with CQ data to an endpoint without a
/// receive CQ (a peer can send any number).
static NO_CQ_WARN: base::WarnLimit = base::WarnLimit::new();
/// Warnings about unexpected messages lost for want of memory.
static OOM_WARN: base::WarnLimit = base::WarnLimit::new();
/// Established connections ended by an error (the peer decides how often).
static BROKEN_INFO: base::WarnLimit = base::WarnLimit::new();

/// Read responses queued before the connection stops reading requests
/// (a peer that does not read our responses gets TCP back-pressure, not
/// our memory).
const RSP_MAX: usize = 64;

const HDR_MAX: usize = wire::hdr::MAX_HDR_SIZE;
const BASE: usize = wire::hdr::BASE_HDR_SIZE;
/// Bytes the receive side reads ahead of the parser: the largest header
/// and a small payload (a 64-byte message is one socket read, not two).
/// Larger payloads go straight from the socket to their buffer after the
/// part that was read ahead.
const STAGE: usize = 512;
const _: () = assert!(STAGE >= HDR_MAX);
/// The longest rxm prefix of a frame's payload: a rendezvous request's
/// packet and rendezvous headers.
const PRE_MAX: usize = rxm::PKT_BYTES + rxm::RNDV_BYTES;
const _: () = assert!(STAGE >= HDR_MAX + PRE_MAX);

/// Memory a remote access resolved to (`Domain::rma_segs`): one segment
/// per piece of a registered segment the access touches, however many (up
/// to 4 regions of up to 256 segments each); and whether a read response
/// from it may be spliced (none of its regions lets peers write it).
struct RmaSegs(KVec<Seg>, bool);

// SAFETY: descriptions of registered memory, valid while registered (the
// consumer keeps regions registered while peers may access them).
unsafe impl Send for RmaSegs {}

impl RmaSegs {
    const EMPTY: RmaSegs = RmaSegs(KVec::new(), false);

    fn segs(&self) -> &[Seg] {
        &self.0
    }
}

/// What the frame being sent is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum TxWhat {
    /// None: the next one is taken when there is one.
    Idle,
    Ack,
    /// The posted transmit in slot `.0` (a read request for a read).
    Op(usize),
    /// A read response from registered memory.
    Rsp,
    /// A read request of the connection's own rendezvous (`DataIo::rndv`).
    RndvRead,
    /// Its `rndv_rd_done` (an rxm control packet).
    RndvDone,
    /// A tagged RMA read's answer with its data, from the receive in
    /// `DataIo::trma_cur` (then completed).
    TrmaData,
    /// Any other answer to a tagged RMA (a write's, a failed read's).
    TrmaAns,
}

/// An answer to a peer's tagged RMA (kfabric's `TagRmaDone`/`TagRmaData`)
/// to send: the request's id, 0 or the error, the bytes; for a read that
/// matched, the receive it reads (completed once its data is in the
/// socket) and the tag.
struct TrmaOut {
    msg_id: u64,
    /// It answers a read (`TagRmaData`; else `TagRmaDone`).
    is_read: bool,
    err: u32,
    len: u64,
    read: Option<(RxWork, u64)>,
}

/// Completion flags of a receive a peer's tagged RMA consumed.
const TRMA_READ_RECV: u64 = rules::F_TAGGED | rules::F_RMA | rules::F_READ | rules::F_RECV;
const TRMA_WRITE_RECV: u64 = rules::F_TAGGED | rules::F_RMA | rules::F_WRITE | rules::F_RECV;

/// Segments of a frame: its head and the payload of a posted operation
/// (a read response's payload is in [`TxCur::rsp`]).
const TX_SEGS: usize = 1 + rules::IOV_LIMIT;

/// The frame being sent. It stays in place in [`DataIo`]: taking a frame
/// fills it from the queued operation under the queue lock, and sending
/// only moves `sent`.
struct TxCur {
    what: TxWhat,
    /// More frames were queued behind it when it was taken (`MSG_MORE`).
    queued: bool,
    /// The operation asked for `KFI_MORE`.
    more: bool,
    /// The payload may be spliced (see `tx_step`).
    splice: bool,
    /// The operation's rxm connection id (RDM lanes; see `fill_op`).
    rxm: Option<u32>,
    /// The `id` of the next frame (see `fill`).
    seq: u8,
    /// The encoded header, followed by an inject's payload: both are our
    /// copies, sent as the first segment.
    head: [u8; HDR_MAX + PRE_MAX + rules::INJECT_LIMIT],
    head_len: usize,
    /// `segs[1..nseg]`: the payload in the consumer's or registered
    /// memory; `segs[0]` is set to `head` on every send.
    segs: [Seg; TX_SEGS],
    nseg: usize,
    /// A read response's payload (registered memory), sent after the
    /// head, which goes by itself (spliced when no peer may write it).
    rsp: RmaSegs,
    /// A posted operation's payload when it is not copied into `segs`
    /// (more segments than they hold, or a part of the buffer: one frame
    /// of an RMA sent as several): `far_n` segments of the operation's
    /// slot, which the work item holds until the operation is done, from
    /// byte `far_skip` on; sent after the head, which goes by itself.
    far: *const Seg,
    far_n: usize,
    far_skip: usize,
    /// The operation is a read (on `tx_read` from `tx_next`: it is not
    /// reported here, sent or failed).
    read: bool,
    /// Frame `chunk` of `chunks` of the operation is being sent.
    chunk: usize,
    chunks: usize,
    total: usize,
    sent: usize,
}

impl TxCur {
    const IDLE: TxCur = TxCur {
        what: TxWhat::Idle,
        queued: false,
        more: false,
        splice: false,
        rxm: None,
        seq: 0,
        head: [0; HDR_MAX + PRE_MAX + rules::INJECT_LIMIT],
        head_len: 0,
        segs: [EMPTY_SEG; TX_SEGS],
        nseg: 1,
        rsp: RmaSegs::EMPTY,
        far: core::ptr::null(),
        far_n: 0,
        far_skip: 0,
        read: false,
        chunk: 0,
        chunks: 1,
        total: 0,
        sent: 0,
    };

    /// Takes a frame: `h` encoded, followed by `pre` (an rxm packet
    /// header) and `inline` bytes, then `payload`. False if the header
    /// does not encode (cannot happen for validated posts and our own
    /// frames).
    fn fill(&mut self, what: TxWhat, h: &MsgHeader, order: ByteOrder, pre: &[u8], inline: &[u8], payload: &[Seg]) -> bool {
        // The header's `id` numbers the frames this connection sends
        // (libfabric's debug builds check that they run 0, 1, 2...;
        // release builds ignore it).
        let Ok(n) = h.encode_with_id(self.seq, &mut self.head[..HDR_MAX], order) else {
            return false;
        };
        if pre.len() > PRE_MAX || inline.len() > rules::INJECT_LIMIT || payload.len() > TX_SEGS - 1 {
            return false;
        }
        self.head[n..n + pre.len()].copy_from_slice(pre);
        let n = n + pre.len();
        self.head[n..n + inline.len()].copy_from_slice(inline);
        self.head_len = n + inline.len();
        for (d, p) in self.segs[1..].iter_mut().zip(payload) {
            *d = *p;
        }
        self.nseg = 1 + payload.len();
        self.what = what;
        self.total = h.size() as usize;
        self.sent = 0;
        self.far = core::ptr::null();
        self.far_n = 0;
        self.read = false;
        self.chunk = 0;
        self.chunks = 1;
        self.seq = self.seq.wrapping_add(1);
        true
    }

    /// Takes frame `c` of the operation `op` in slot `i` (see `tx_step`);
    /// `rxm`: on an RDM lane, the peer's connection id for rxm packets.
    #[inline]
    fn fill_op(&mut self, i: usize, op: &TxOp, c: &Chunk, order: ByteOrder, rxm: Option<u32>) -> bool {
        match rxm {
            Some(conn_id) => self.fill_rxm(i, op, c, order, conn_id),
            None => match header(op, c, TagForm::Op) {
                Ok(h) => self.fill_body(i, op, c, &h, order, &[]),
                Err(_) => false,
            },
        }
    }

    /// `fill_op` on an RDM lane: rxm's packets (`conn_id` the peer's id).
    fn fill_rxm(&mut self, i: usize, op: &TxOp, c: &Chunk, order: ByteOrder, conn_id: u32) -> bool {
        let mut pkt = [0u8; PRE_MAX];
        if op.ext.trma {
            // A tagged RMA: kfabric's request names the receive by its tag
            // (the region's key) and the offset in it (its address, in
            // `data`); a write carries its payload.
            let write = op.kind == Kind::Write;
            let r = op.region(0);
            let p = rxm::Pkt { conn_id, msg_id: op.ext.rndv_key, op: Some(rxm::Op::Tagged), size: op.len, data: r.addr, tag: r.key, ..rxm::Pkt::default() };
            let Ok(head) = <&mut [u8; rxm::PKT_BYTES]>::try_from(&mut pkt[..rxm::PKT_BYTES]) else {
                return false;
            };
            rxm::encode(if write { rxm::Type::TagRmaWrite } else { rxm::Type::TagRmaRead }, &p, head);
            let Ok(h) = MsgHeader::send(rxm::PKT_BYTES as u64 + if write { op.len } else { 0 }) else {
                return false;
            };
            let pre = &pkt[..rxm::PKT_BYTES];
            let segs = op.buf.segs();
            let ok = if !write {
                self.fill(TxWhat::Op(i), &h, order, pre, &[], &[])
            } else if op.inject {
                self.fill(TxWhat::Op(i), &h, order, pre, &op.inline[..op.len as usize], &[])
            } else if segs.len() < TX_SEGS {
                self.fill(TxWhat::Op(i), &h, order, pre, &[], segs)
            } else {
                let ok = self.fill(TxWhat::Op(i), &h, order, pre, &[], &[]);
                self.far = segs.as_ptr();
                self.far_n = segs.len();
                self.far_skip = 0;
                ok
            };
            // Done on the target's answer (`rndv_wait`), not as a read.
            self.read = false;
            self.chunks = 1;
            return ok;
        }
        if op.ext.rndv {
            // A rendezvous: rxm's request names the whole buffer as one
            // piece (offset addressing, our key: see `EpData::rndv_buf`);
            // the peer reads it and answers with the key as message id.
            let tagged = op.kind == Kind::TSend;
            let p = rxm::Pkt {
                conn_id,
                msg_id: op.ext.rndv_key,
                op: Some(if tagged { rxm::Op::Tagged } else { rxm::Op::Msg }),
                cq_data: op.flags & rules::F_REMOTE_CQ_DATA != 0,
                size: op.buf.len,
                data: op.data,
                tag: if tagged { op.tag } else { 0 },
                ..rxm::Pkt::default()
            };
            let (head, rest) = pkt.split_at_mut(rxm::PKT_BYTES);
            let (Ok(head), Ok(rest)) = (<&mut [u8; rxm::PKT_BYTES]>::try_from(head), <&mut [u8; rxm::RNDV_BYTES]>::try_from(rest)) else {
                return false;
            };
            rxm::encode(rxm::Type::RndvReq, &p, head);
            rxm::encode_rndv(&[rxm::RmaIov { addr: 0, len: op.buf.len, key: op.ext.rndv_key }], rest);
            let Ok(h) = MsgHeader::send(PRE_MAX as u64) else {
                return false;
            };
            let ok = self.fill(TxWhat::Op(i), &h, order, &pkt, &[], &[]);
            self.chunks = 1;
            return ok;
        }
        let (h, pre) = match op.kind {
            // An untagged message of an RDM endpoint: rxm's eager packet,
            // the CQ data in it.
            Kind::Send => {
                let p = rxm::Pkt {
                    conn_id,
                    op: Some(rxm::Op::Msg),
                    cq_data: op.flags & rules::F_REMOTE_CQ_DATA != 0,
                    size: op.buf.len,
                    data: op.data,
                    ..rxm::Pkt::default()
                };
                let Ok(head) = <&mut [u8; rxm::PKT_BYTES]>::try_from(&mut pkt[..rxm::PKT_BYTES]) else {
                    return false;
                };
                rxm::encode(rxm::Type::Eager, &p, head);
                let Ok(mut h) = MsgHeader::send(op.buf.len + rxm::PKT_BYTES as u64) else {
                    return false;
                };
                if op.ext.ack {
                    let Ok(x) = h.with_delivery_complete() else {
                        return false;
                    };
                    h = x;
                }
                (h, &pkt[..rxm::PKT_BYTES])
            }
            _ => match header(op, c, TagForm::Flag) {
                Ok(h) => (h, &pkt[..0]),
                Err(_) => return false,
            },
        };
        self.fill_body(i, op, c, &h, order, pre)
    }

    /// The rest of `fill_op`: header `h` and rxm prefix `pre` taken, the
    /// payload as the operation has it.
    #[inline(always)]
    fn fill_body(&mut self, i: usize, op: &TxOp, c: &Chunk, h: &MsgHeader, order: ByteOrder, pre: &[u8]) -> bool {
        let chunks = op.chunks();
        let segs = op.buf.segs();
        let ok = if op.kind == Kind::Read {
            self.fill(TxWhat::Op(i), h, order, pre, &[], &[])
        } else if op.inject {
            self.fill(TxWhat::Op(i), h, order, pre, &op.inline[..op.buf.len as usize], &[])
        } else if chunks == 1 && segs.len() < TX_SEGS {
            self.fill(TxWhat::Op(i), h, order, pre, &[], segs)
        } else {
            let ok = self.fill(TxWhat::Op(i), h, order, pre, &[], &[]);
            self.far = segs.as_ptr();
            self.far_n = segs.len();
            self.far_skip = c.offset as usize;
            ok
        };
        self.read = op.kind == Kind::Read;
        self.chunks = chunks;
        ok
    }

    /// Takes the queued item `w` (`EpData::tx_next`'s fill).
    #[inline(always)]
    fn take(&mut self, w: TxItem<'_>, order: ByteOrder) -> bool {
        match w {
            TxItem::Ack => {
                self.more = false;
                self.splice = false;
                self.fill(TxWhat::Ack, &MsgHeader::ack(), order, &[], &[], &[])
            }
            TxItem::Op(i, op, rxm) => {
                self.more = op.flags & rules::F_MORE != 0;
                // Zero copy where the memory stays put until the peer has
                // it: an operation that completes on the peer's ACK.
                // Others complete when the socket has taken the bytes, so
                // they are copied.
                self.splice = op.ext.ack && !op.inject;
                self.rxm = rxm;
                self.fill_op(i, op, &op.chunk(0), order, rxm)
            }
        }
    }

    /// The far payload (see `far`).
    fn far_segs(&self) -> &[Seg] {
        if self.far.is_null() {
            return &[];
        }
        // SAFETY: `far_n` segments of a slot the work item holds until the
        // operation is reported (set by `fill_op`, cleared by every fill).
        unsafe { core::slice::from_raw_parts(self.far, self.far_n) }
    }
}

/// Bytes of small frames sent together (`TxBatch`): 46 frames of a 64-byte
/// message (a 24-byte header each), or fewer larger ones.
const BATCH_BYTES: usize = 4096;
/// Frames in one batch, at most.
const BATCH_FRAMES: usize = 64;
/// A frame longer than this (header and payload) goes by itself.
const BATCH_FRAME_MAX: usize = 512;
const _: () = assert!(BATCH_BYTES >= 2 * BATCH_FRAME_MAX);

/// A frame of a batch: where it ends in the batch's bytes, and what it is.
#[derive(Clone, Copy)]
struct BatchItem {
    end: u32,
    /// The posted transmit's slot; `NO_SLOT`: an ACK.
    slot: u32,
    /// It is a read request (done on its responses, not here).
    read: bool,
}

const NO_SLOT: u32 = u32::MAX;

/// Small frames that were queued together, sent with one socket call
/// (coalescing): each is taken as [`TxCur`] takes a frame, then its header
/// and payload are copied here, behind the previous one. A frame is done
/// (its operation reported, as after its own send) once the socket has
/// taken its last byte. Frames that do not qualify (see `fits`) go one by
/// one as before; the batch is always sent before the frame taken after
/// it.
///
/// The buffer is allocated when the data phase starts (the work item); a
/// connection that could not have it sends frame by frame.
struct TxBatch {
    buf: KVec<u8>,
    len: usize,
    sent: usize,
    items: [BatchItem; BATCH_FRAMES],
    /// `items[done..n]` are not done yet.
    n: usize,
    done: usize,
}

impl TxBatch {
    const EMPTY: TxBatch = TxBatch {
        buf: KVec::new(),
        len: 0,
        sent: 0,
        items: [BatchItem { end: 0, slot: NO_SLOT, read: false }; BATCH_FRAMES],
        n: 0,
        done: 0,
    };

    /// Frames are waiting to be sent or reported.
    #[inline(always)]
    fn busy(&self) -> bool {
        self.n > 0
    }

    /// The frame just taken into `cur` (nothing of it sent) may join:
    /// an ACK or a whole operation copied into `cur` (no far or spliced
    /// payload), short enough, with room left.
    #[inline]
    fn fits(&self, cur: &TxCur) -> bool {
        let kind_ok = match cur.what {
            TxWhat::Ack => true,
            TxWhat::Op(_) => cur.chunks == 1 && cur.far.is_null() && !cur.splice,
            _ => false,
        };
        kind_ok
            && cur.sent == 0
            && cur.total <= BATCH_FRAME_MAX
            && self.n < BATCH_FRAMES
            && self.len + cur.total <= self.buf.len()
    }

    /// Moves the frame in `cur` (which `fits`) behind the others; `cur`
    /// is idle again. False if its payload could not be copied whole.
    fn take(&mut self, cur: &mut TxCur) -> bool {
        let at = self.len;
        let head = &cur.head[..cur.head_len];
        let Some(dst) = self.buf.get_mut(at..at + cur.total) else {
            return false;
        };
        let (h, p) = dst.split_at_mut(head.len());
        h.copy_from_slice(head);
        if !p.is_empty() && base::copy_from_segs(&cur.segs[1..cur.nseg], p) != p.len() {
            return false;
        }
        let (slot, read) = match cur.what {
            TxWhat::Op(i) => (i as u32, cur.read),
            _ => (NO_SLOT, false),
        };
        self.items[self.n] = BatchItem { end: (at + cur.total) as u32, slot, read };
        self.n += 1;
        self.len = at + cur.total;
        cur.what = TxWhat::Idle;
        true
    }

    /// Empty again (every frame done or failed).
    fn reset(&mut self) {
        self.len = 0;
        self.sent = 0;
        self.n = 0;
        self.done = 0;
    }
}

/// Where the payload being received goes. Kept small: the state is
/// matched in place, and what is large (the regions of a remote access, a
/// read's buffer, the header) lives in [`DataIo`].
enum Dest {
    /// Into the receive in `DataIo::rxw`.
    Op,
    /// A message longer than its receive (`DataIo::rxw`): the first
    /// `room` bytes go into the receive's buffer, the rest is read and
    /// dropped; that receive alone fails (`KFI_ETRUNC`), the stream goes
    /// on.
    Trunc,
    Unexp(KVVec<u8>),
    /// A remote write into registered memory (`DataIo::rma`).
    Rma,
    /// A response to our read in slot `idx` (into `DataIo::read_buf`,
    /// from byte `DataIo::read_off`); `last`: its last (the read is off
    /// `tx_read` then, and done when the bytes are in).
    Read { idx: usize, last: bool },
    /// A response to a read of our rendezvous (`DataIo::rndv`), into
    /// `DataIo::read_buf` from `DataIo::read_off`.
    RndvRsp,
    /// A peer's tagged RMA write no receive matched: read and dropped
    /// (its answer says so).
    Drop,
    /// The data of our tagged RMA read `key`, into `DataIo::read_buf`.
    TrmaData { key: u64 },
    /// An untagged eager message behind an unmatched one, into a buffer
    /// of its own (kept in `DataIo::pending`).
    Pend(KVVec<u8>),
    /// A segment of the message in `DataIo::sar`.
    Sar,
}

/// Where a rendezvous's bytes go: a receive, or (a tagged message no
/// receive matched yet) a buffer of its own, kept as unexpected once in.
enum RndvTarget {
    Op(RxWork),
    Unexp(KVVec<u8>),
}

/// A rendezvous the peer asked us to read (RDM; rxm's read rendezvous,
/// Documentation/rxm-wire.md 7.1): one read request per piece it named,
/// its responses in order into the target, then `rndv_rd_done` echoing
/// its message id; the receive completes once that is in the socket.
struct RndvRx {
    target: RndvTarget,
    /// The sender's pieces, and the next to ask for.
    iovs: [rxm::RmaIov; rxm::RNDV_IOVS],
    n: usize,
    next: usize,
    /// Bytes to read (the message's, or what the receive holds), asked
    /// for so far, and in.
    want: u64,
    asked: u64,
    got: u64,
    /// Length of each read asked for, and how many responses are in.
    lens: [u64; rxm::RNDV_IOVS],
    rsp: usize,
    /// The message.
    size: u64,
    msg_id: u64,
    tag: u64,
    data: Option<u64>,
}

impl RndvRx {
    /// Every byte wanted is in.
    fn read(&self) -> bool {
        self.got == self.want && self.rsp == self.next
    }
}

/// A segmented message being received: rxm's SAR, which a 1.17 peer
/// without dynamic receive buffers uses for messages between the eager
/// limit and eight times it (segments of up to 16 KiB, back to back;
/// `Documentation/rxm-wire.md` 6). Matched on its first segment, each
/// segment placed at its offset, done on the last.
struct SarRx {
    /// Its sequence (`logic::rxm::Sar`).
    st: rxm::Sar,
    target: RndvTarget,
    tag: u64,
    data: Option<u64>,
}

/// Most messages kept unmatched per connection (see `DataIo::pending`).
const PENDING_MAX: usize = 256;

/// A message not matched to a receive yet (see `DataIo::pending`).
enum Pending {
    Rndv(RndvHdr),
    /// An untagged eager message: its payload, CQ data, ACK asked.
    Msg { buf: KVVec<u8>, data: Option<u64>, ack: bool },
}

/// A rendezvous request not matched to a receive yet.
struct RndvHdr {
    msg_id: u64,
    iovs: ([rxm::RmaIov; rxm::RNDV_IOVS], usize),
    size: u64,
    tagged: bool,
    tag: u64,
    data: Option<u64>,
}

/// Receive state. Past `Hdr`, `DataIo::hdr` is the frame's header.
enum Rx {
    /// Reading a header (from the stage, `DataIo::stage`).
    Hdr,
    /// A message waits for its receive to be posted.
    Await,
    /// Receiving the payload (`got` bytes so far).
    Body { dest: Dest, got: u64 },
}

/// The work item's data state (inside the connection's `io` mutex).
pub(super) struct DataIo {
    tx: TxCur,
    /// Small frames sent together, before `tx`'s.
    bat: TxBatch,
    rx: Rx,
    /// The receive of `Dest::Op` and `Dest::Trunc` (stale otherwise):
    /// kept here rather than in `Dest`, so the receive state stays small
    /// and is not moved with it.
    rxw: RxWork,
    /// The header of the frame being received (valid past `Rx::Hdr`).
    hdr: MsgHeader,
    /// The registered memory of the remote write being received.
    rma: RmaSegs,
    /// The buffer of the read whose response is being received, and where
    /// in it this response goes.
    read_buf: Buf,
    read_off: usize,
    /// Bytes read ahead: `stage[lo..hi]` are received and not consumed
    /// yet (a header, the start of a payload, whole small frames).
    stage: [u8; STAGE],
    lo: usize,
    hi: usize,
    /// Unexpected tagged messages.
    unexp: UnexpList,
    /// Read responses to send, in request order.
    rsp: KVec<RmaSegs>,
    /// Answers to the peer's tagged RMA to send, in request order (room
    /// for the one of the write being received is reserved when it
    /// starts), and the read whose data is being sent.
    trma_out: KVec<TrmaOut>,
    trma_cur: Option<(RxWork, u64, u64)>,
    /// The payload being received is the tagged RMA write with this id.
    trma: Option<u64>,
    /// Held operations were failed and the queues flushed (once).
    cleaned: bool,
    /// The endpoint whose data moves here, and the frames' byte order:
    /// set by the work item when the data phase starts (`ep` valid while
    /// the connection's `data_on` is set: the endpoint stops the
    /// connection before its data goes).
    ep: *const EpData,
    /// The endpoint's lane this connection moves (0 on a MSG endpoint),
    /// and the peer's address handle its messages report
    /// (`rules::ADDR_ANY`: none).
    lane: u32,
    from: u64,
    /// An RDM lane's connection: where `from` is looked for again while
    /// it is `ADDR_ANY` (`LaneRef::resolve`: a peer inserted after it
    /// connected).
    peer: Option<LaneRef<Prov>>,
    order: ByteOrder,
    /// The data phase started here.
    started: bool,
    /// The connection is an RDM lane's: its untagged messages carry rxm
    /// packets ([`DataIo::pkt`]).
    rdm: bool,
    /// A transmit context's: the peer may not send messages on it.
    one_way: bool,
    /// The rxm packet of the message being received (RDM), and for a
    /// rendezvous request its pieces.
    pkt: Option<rxm::Pkt>,
    pkt_type: rxm::Type,
    rndv_iovs: ([rxm::RmaIov; rxm::RNDV_IOVS], usize),
    /// The rendezvous being read (one at a time per connection), and
    /// those matched after it (read in turn).
    rndv: Option<RndvRx>,
    rndv_next: KVec<RndvRx>,
    /// Messages not matched to a receive yet, in arrival order: rendezvous
    /// requests, and the untagged eager messages behind them (read into
    /// buffers of their own, at most [`UNEXP_LIMIT`] bytes), so that the
    /// stream goes on: the responses to our reads come behind later
    /// requests, and the consumer may post its next receive only when an
    /// earlier message completes. Matched, in order, as receives come.
    pending: KVec<Pending>,
    pending_bytes: usize,
    /// The segmented message being received, if any.
    sar: Option<SarRx>,
    /// A receive CQ slot is held for the entry of the remote write being
    /// received (`EpData::take_remote_room`).
    rma_room: bool,
    /// A consumer's call found the connection broken; the work item
    /// reports it (that may sleep).
    broken: Option<Broken>,
    /// The last socket read of this step's receive came back short or
    /// empty: the socket had no more then, and more data marks the
    /// connection (`Conn::dirty`). See [`DataIo::settled`].
    drained: bool,
}

// SAFETY: `ep` is only dereferenced under the rules above; the rest is
// plain data and kernel allocations.
unsafe impl Send for DataIo {}

impl DataIo {
    /// After a step that moved something: nothing is left that another
    /// step could move now. No frame is being sent and none is queued (a
    /// post queueing one moves it itself, or kicks the work item); no
    /// frame is being received, none is read ahead, and the last socket
    /// read found the socket empty. What comes later marks the connection
    /// (`Conn::dirty`), which the caller looks at before it stops.
    fn settled(&self, tx_hint: bool) -> bool {
        self.drained
            && self.lo == self.hi
            && matches!(self.rx, Rx::Hdr)
            && self.tx.what == TxWhat::Idle
            && !self.bat.busy()
            && self.rsp.is_empty()
            && self.trma_out.is_empty()
            && self.rndv.is_none()
            && self.pending.is_empty()
            && !tx_hint
    }

    /// The payload of the message being received: the frame's, without
    /// its rxm packet header.
    fn body_len(&self) -> u64 {
        match self.pkt {
            Some(p) if self.pkt_type == rxm::Type::RndvReq => p.size,
            Some(_) => self.hdr.payload_len() - rxm::PKT_BYTES as u64,
            None => self.hdr.payload_len(),
        }
    }

    /// It is a tagged message (a tcp tagged frame, or an rxm tagged
    /// packet).
    fn tagged(&self) -> bool {
        self.hdr.kind() == FrameKind::TaggedSend || self.pkt.is_some_and(|p| p.op == Some(rxm::Op::Tagged))
    }

    /// Its tag.
    fn tag(&self) -> u64 {
        match self.pkt {
            Some(p) => p.tag,
            None => self.hdr.tag().unwrap_or(0),
        }
    }

    /// Its CQ data.
    fn cq_data(&self) -> Option<u64> {
        match self.pkt {
            Some(p) => p.cq_data.then_some(p.data),
            None => self.hdr.cq_data(),
        }
    }

    /// Names the lane and kind of endpoint the connection is for, if the
    /// data phase did not (a connection that ends before it started: its
    /// cleanup must know whose operations are its).
    pub(super) fn take_owner(&mut self, owner: Owner, lane: u32, from: u64) {
        if !self.started {
            self.lane = lane;
            self.from = from;
            self.rdm = matches!(owner, Owner::Rdm(_));
            self.one_way = owner.one_way();
        }
    }

    pub(super) fn new() -> DataIo {
        DataIo {
            tx: TxCur::IDLE,
            bat: TxBatch::EMPTY,
            rx: Rx::Hdr,
            rxw: RxWork::IDLE,
            hdr: MsgHeader::ack(),
            rma: RmaSegs::EMPTY,
            read_buf: Buf::EMPTY,
            read_off: 0,
            stage: [0; STAGE],
            lo: 0,
            hi: 0,
            unexp: UnexpList::new(),
            rsp: KVec::new(),
            cleaned: false,
            ep: core::ptr::null(),
            lane: 0,
            from: rules::ADDR_ANY,
            peer: None,
            order: ByteOrder::NATIVE,
            started: false,
            rdm: false,
            one_way: false,
            pkt: None,
            pkt_type: rxm::Type::Eager,
            rndv_iovs: ([rxm::RmaIov { addr: 0, len: 0, key: 0 }; rxm::RNDV_IOVS], 0),
            rndv: None,
            rndv_next: KVec::new(),
            pending: KVec::new(),
            pending_bytes: 0,
            sar: None,
            rma_room: false,
            broken: None,
            drained: false,
            trma_out: KVec::new(),
            trma_cur: None,
            trma: None,
        }
    }
}

/// Who runs a step: the work item (process context, may sleep and
/// allocate), or a consumer's call (`Conn::progress`: any context but
/// hard interrupts; never sleeps, allocates or reports to an EQ, and
/// leaves whatever would to the work item).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Work,
    Call,
}

/// What `Conn::take_next` did.
enum Took {
    /// Nothing is queued.
    None,
    /// The operation taken could not be encoded: failed.
    Failed,
    /// A frame is in `DataIo::tx`.
    Frame,
}

/// Why a step stopped short.
enum Halt {
    /// The connection ends.
    Broken(Broken),
    /// A consumer's call cannot go on without sleeping or allocating: the
    /// work item goes on from the same state.
    Defer,
}

impl From<Broken> for Halt {
    fn from(b: Broken) -> Halt {
        Halt::Broken(b)
    }
}

/// What [`Conn::progress`] did.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Progress {
    /// Everything that could move moved; the socket's callbacks kick the
    /// work item when more can.
    Done,
    /// Someone else holds the data state (the work item, or another call)
    /// and goes on.
    Busy,
    /// The data phase is not on (connecting, closed): the work item's job.
    Off,
    /// The work item has to go on from here (the budget ran out, or
    /// something needs process context: the socket is owned by a process,
    /// a buffer must be allocated, the connection broke).
    Work,
}

/// Inline progress steps per consumer call (each moves at most one piece
/// of a frame each way).
const CALL_BUDGET: usize = 16;

/// Why the connection ends.
struct Broken {
    /// Positive errno for the EQ error entry (0: a clean end of stream,
    /// reported as `KFI_SHUTDOWN`).
    err: u32,
}

fn proto() -> Broken {
    Broken { err: bindings::EPROTO }
}

/// What trace events say ended a connection with `err`.
fn cause(err: u32) -> &'static CStr {
    match err {
        bindings::ECONNRESET => c"connection reset by peer",
        bindings::EPROTO => c"malformed or unexpected frame from peer",
        bindings::ETIMEDOUT => c"peer timed out (TCP user timeout or keepalive)",
        bindings::EREMOTEIO => c"remote access refused (key, bounds or access)",
        bindings::EFAULT => c"remote access outside its registered region",
        bindings::EACCES => c"remote access the region does not permit",
        x if x == sys::KFI_ENOKEY as u32 => c"unknown remote key",
        bindings::EPIPE => c"broken pipe",
        bindings::ENOMEM => c"out of memory",
        bindings::EMSGSIZE => c"frame larger than allowed",
        _ => c"socket error",
    }
}

fn errno_of(e: Error) -> u32 {
    (-e.to_errno()) as u32
}

/// A buffer of `len` bytes for a tagged message no receive matches yet,
/// with its room in the unexpected list taken first: once its bytes are in,
/// keeping it cannot fail (no message is dropped for memory; without
/// memory the connection breaks, which its ends see). Allocating is the
/// work item's (a consumer's call defers).
fn unexp_buffer(d: &mut DataIo, len: u64, mode: Mode) -> core::result::Result<KVVec<u8>, Halt> {
    if mode == Mode::Call {
        return Err(Halt::Defer);
    }
    let oom = |_| Halt::from(Broken { err: bindings::ENOMEM });
    ffi::fail_alloc().map_err(oom)?;
    d.unexp.reserve(GFP_KERNEL | __GFP_NOWARN).map_err(|_| Halt::from(Broken { err: bindings::ENOMEM }))?;
    ffi::fail_alloc().map_err(oom)?;
    KVVec::from_elem(0u8, len as usize, GFP_KERNEL | __GFP_NOWARN).map_err(|_| Halt::from(Broken { err: bindings::ENOMEM }))
}

/// A buffer description of `b` (a rendezvous's own buffer).
fn buf_of(b: &mut KVVec<u8>) -> Buf {
    let mut x = Buf::EMPTY;
    x.segs[0] = sock::kseg_mut(&mut b[..]);
    x.nseg = 1;
    x.len = b.len() as u64;
    x
}

/// A read of one of our rendezvous (RDM: its key, see
/// `EpData::rndv_buf`): the part of the sending operation's buffer it
/// asks for. `None`: not one of ours (a registered region's key).
fn rndv_segs(ep: &EpData, lane: u32, h: &MsgHeader) -> core::result::Result<Option<RmaSegs>, Broken> {
    let [iov] = h.rma_iovs() else {
        return Ok(None);
    };
    let Some(buf) = ep.rndv_buf(lane, iov.key) else {
        return Ok(None);
    };
    let end = iov.addr.checked_add(iov.len).ok_or_else(proto)?;
    if end > buf.len {
        return Err(proto());
    }
    let mut v = KVec::new();
    let mut at = 0u64;
    for s in buf.segs() {
        let (lo, hi) = (at, at + s.len as u64);
        at = hi;
        let (from, to) = (iov.addr.max(lo), end.min(hi));
        if from >= to {
            continue;
        }
        let mut x = *s;
        let off = from - lo;
        if s.base.is_null() {
            x.offset = u32::try_from(u64::from(s.offset) + off).map_err(|_| proto())?;
        } else {
            x.base = s.base.wrapping_byte_add(off as usize);
        }
        x.len = (to - from) as usize;
        v.push(x, GFP_KERNEL).map_err(|_| Broken { err: bindings::ENOMEM })?;
    }
    // Copied, not spliced: the consumer may reuse its buffer once the
    // peer's done comes, which may be before our TCP is done with pages.
    Ok(Some(RmaSegs(v, false)))
}

/// The rendezvous `r` was read and its done sent: its receive completes
/// (a receive shorter than the message fails with `KFI_ETRUNC`, the
/// bytes that fit in), or a message no receive matched yet is kept.
fn rndv_finish(d: &mut DataIo, ep: &EpData, r: RndvRx) {
    match r.target {
        RndvTarget::Op(w) if r.want < r.size => ep.rx_failed(&w, sys::KFI_ETRUNC, r.want, r.size - r.want),
        RndvTarget::Op(w) => ep.rx_done(&w, r.size, r.data, r.tag),
        RndvTarget::Unexp(buf) => {
            let u = Unexp { tag: r.tag, src: d.from, data: r.data, ack: false, buf, claimed: None };
            // Within the room reserved when its buffer was allocated.
            if d.unexp.push(u).is_err() && OOM_WARN.allow() {
                pr_warn!("kfi_tcp: dropped an unexpected tagged message (no memory)\n");
            }
        }
    }
}

/// Resolves the regions of a remote access, or the reason to end the
/// connection.
fn resolve(ep: &EpData, h: &MsgHeader, need: u64) -> core::result::Result<RmaSegs, Broken> {
    // SAFETY: the domain outlives its endpoints, hence their connections.
    let dom = unsafe { &*ep.domain() };
    dom.rma_segs(h.rma_iovs(), need)
        .map(|(segs, writable)| RmaSegs(segs, !writable))
        .map_err(|e| Broken { err: errno_of(e) })
}

/// The header of frame `c` of an outgoing operation (an RMA over more
/// regions than a frame carries is several frames; CQ data and the ACK
/// request go with the last, which completes the operation at the peer).
///
/// Tagged messages go in `form`: op tagged on a MSG endpoint, op msg with
/// the tagged flag on an RDM lane (what rxm's tcp peers send and expect).
#[inline(always)]
fn header(op: &TxOp, c: &Chunk, form: TagForm) -> core::result::Result<MsgHeader, wire::WireError> {
    let mut h = match op.kind {
        Kind::TSend => MsgHeader::tagged(op.tag, op.buf.len, form)?,
        Kind::Write => MsgHeader::write(&c.regs[..c.n], c.len)?,
        Kind::Read => return MsgHeader::read_req(&c.regs[..c.n]),
        _ => MsgHeader::send(op.buf.len)?,
    };
    if op.flags & rules::F_REMOTE_CQ_DATA != 0 && c.last {
        h = h.with_cq_data(op.data)?;
    }
    if op.ext.ack && c.last {
        h = h.with_delivery_complete()?;
    }
    Ok(h)
}

impl Conn {
    /// The work item's turn in the data phase: one step.
    pub(super) fn step_data(self: &Arc<Self>, order: ByteOrder, owner: Owner) -> Step {
        let Some((data, lane, from)) = owner.data() else {
            return Step::Idle;
        };
        let Some(mut d) = self.lock_data() else {
            // A consumer's call holds it; it requeues us when done.
            return Step::Idle;
        };
        if !d.started {
            d.started = true;
            d.ep = data;
            d.lane = lane;
            d.from = from;
            d.peer = owner.rdm();
            d.rdm = matches!(owner, Owner::Rdm(_));
            d.one_way = owner.one_way();
            d.unexp.set_stream(lane);
            d.order = order;
            // Without it frames go one by one (see `TxBatch`).
            if let Ok(b) = base::zeroed_bytes(BATCH_BYTES, GFP_KERNEL | __GFP_NOWARN) {
                d.bat.buf = b;
            }
            // SAFETY: an endpoint stops its connection before its data goes.
            // (An RDM endpoint's CQ reads move the lanes whose
            // connections had events: `TcpProgress::Lanes`.)
            self.set_event_cqs(unsafe { &*data }.quiet_cqs());
            self.start_calls();
        }
        if d.from == rules::ADDR_ANY {
            if let Some(r) = d.peer.as_mut() {
                if r.resolve() {
                    d.from = r.from;
                }
            }
        }
        // SAFETY: an endpoint stops its connection before its data goes.
        let ep = unsafe { &*data };
        let step = match d.broken.take() {
            Some(b) => {
                self.broken(&mut d, ep, owner, b);
                Step::Progress
            }
            None => match self.data_step(&mut d, ep, Mode::Work) {
                Ok(true) => Step::Progress,
                Ok(false) | Err(Halt::Defer) => Step::Idle,
                Err(Halt::Broken(b)) => {
                    self.broken(&mut d, ep, owner, b);
                    Step::Progress
                }
            },
        };
        self.unlock_data(d);
        step
    }

    /// Moves frames from a consumer's call (a post, a CQ read), so that the
    /// data need not wait for the work item to be scheduled: up to
    /// [`CALL_BUDGET`] steps, until nothing moves. See [`Progress`] for
    /// what the caller does next.
    ///
    /// Context: any but hard interrupts; never sleeps, never allocates.
    pub(crate) fn progress(self: &Arc<Self>) -> Progress {
        if !self.calls_on() {
            return Progress::Off;
        }
        let Some(mut d) = self.data.try_lock() else {
            return Progress::Busy;
        };
        // Checked again under the lock: `stop` waits for it to be free.
        let mut out = Progress::Off;
        if self.calls_on() && d.broken.is_none() && !d.ep.is_null() {
            // SAFETY: `ep` is valid while calls are on (see `DataIo::ep`),
            // which they stay until `stop` has seen `data` free.
            let ep = unsafe { &*d.ep };
            out = Progress::Work;
            ffi::tr(sys::KFI_TCP_TR_PROGRESS);
            self.set_in_call(true);
            for _ in 0..CALL_BUDGET {
                match self.data_step(&mut d, ep, Mode::Call) {
                    // Something moved and more may: go on (a step that
                    // left nothing to do saves the one that would find
                    // nothing, often the whole cost of a small message).
                    Ok(true) if !d.settled(self.tx_hint.load(core::sync::atomic::Ordering::SeqCst)) => continue,
                    // A socket event came while we moved (often caused by
                    // us: ACKs that freed send space, processed when we
                    // let go of the socket): go on rather than leave it.
                    Ok(_) if self.take_dirty() => continue,
                    Ok(_) => out = Progress::Done,
                    Err(Halt::Defer) => {}
                    Err(Halt::Broken(b)) => d.broken = Some(b),
                }
                break;
            }
            self.set_in_call(false);
            // An event between our last look and the line above may have
            // left the work to us without kicking anyone: the caller kicks
            // the work item, as the event would have.
            if out == Progress::Done && self.dirty() {
                out = Progress::Work;
            }
        }
        self.unlock_data(d);
        out
    }

    /// A piece of each direction; true if something moved.
    fn data_step(&self, d: &mut DataIo, ep: &EpData, mode: Mode) -> core::result::Result<bool, Halt> {
        let order = d.order;
        let tx = self.tx_step(d, ep, order, mode);
        let rx = self.rx_step(d, ep, order, mode);
        match (tx, rx) {
            (Err(Halt::Broken(b)), _) | (_, Err(Halt::Broken(b))) => Err(Halt::Broken(b)),
            (Err(Halt::Defer), _) | (_, Err(Halt::Defer)) => Err(Halt::Defer),
            (Ok(t), Ok(r)) => Ok(t || r),
        }
    }

    /// Sends through the socket as `mode` allows.
    #[inline(always)]
    fn sock_send(&self, mode: Mode, segs: &[sys::kfi_util_seg], skip: usize, len: usize, more: bool, splice: bool) -> Result<usize> {
        match mode {
            Mode::Work => self.sock.send(segs, skip, len, more, splice),
            Mode::Call => self.sock.try_send(segs, skip, len, more, splice),
        }
    }

    /// Receives from the socket as `mode` allows.
    fn sock_recv(&self, mode: Mode, segs: &[sys::kfi_util_seg], skip: usize, len: usize) -> Result<usize> {
        match mode {
            Mode::Work => self.sock.recv(segs, skip, len),
            Mode::Call => self.sock.try_recv(segs, skip, len),
        }
    }

    /// Sends a piece of the current frame (or of the batch of small frames
    /// before it); true if something moved.
    fn tx_step(&self, d: &mut DataIo, ep: &EpData, order: ByteOrder, mode: Mode) -> core::result::Result<bool, Halt> {
        if d.bat.busy() {
            return self.batch_send(d, ep, mode);
        }
        if d.tx.what == TxWhat::Idle {
            // Read responses first (they answer requests already on the
            // wire), then ACKs and posted operations.
            if !d.rsp.is_empty() {
                let Some(r) = base::kvec_remove(&mut d.rsp, 0) else {
                    return Ok(false);
                };
                let len: u64 = r.segs().iter().map(|s| s.len as u64).sum();
                let h = MsgHeader::read_rsp(len).map_err(|_| Halt::from(proto()))?;
                if !d.tx.fill(TxWhat::Rsp, &h, order, &[], &[], &[]) {
                    return Err(proto().into());
                }
                // Zero copy only from memory no peer can change: spliced
                // pages are read when TCP sends them (and, over loopback,
                // when the reader copies them), so a write of the same
                // peer posted after this read (KFI_ORDER_WAR, advertised)
                // and served meanwhile would change what the read returns
                // (found by tests/stress). Regions peers may write are
                // copied into the socket's buffers.
                d.tx.splice = r.1;
                d.tx.rsp = r;
                d.tx.more = false;
                d.tx.queued = false;
            } else if !d.trma_out.is_empty() {
                self.trma_answer(d, ep, order)?;
            } else if self.rndv_frame(d, ep, order)? {
                // A read of our rendezvous, or its reads done.
            } else {
                // A frame with more queued behind it, and those behind it,
                // go together while they fit (`TxBatch`); the first that
                // does not stays in `d.tx`, sent after the batch. (One
                // place takes frames: `take_next` stays inlined.)
                loop {
                    match self.take_next(d, ep, order) {
                        Took::None if d.bat.busy() => return self.batch_send(d, ep, mode),
                        Took::None => return Ok(false),
                        Took::Failed if d.bat.busy() => continue,
                        Took::Failed => return Ok(true),
                        Took::Frame => {}
                    }
                    if (d.tx.queued || d.bat.busy()) && d.bat.fits(&d.tx) {
                        let queued = d.tx.queued;
                        if d.bat.take(&mut d.tx) {
                            if queued {
                                continue;
                            }
                            return self.batch_send(d, ep, mode);
                        }
                    }
                    if d.bat.busy() {
                        return self.batch_send(d, ep, mode);
                    }
                    break;
                }
            }
        }
        let cur = &mut d.tx;
        // A read response looks at the queue (rare); other frames know
        // what was queued behind them when they were taken.
        let queued = match cur.what {
            TxWhat::Rsp => ep.tx_more(d.lane),
            _ => cur.queued,
        };
        let more = cur.more || !d.rsp.is_empty() || queued;
        cur.segs[0] = sock::kseg(&cur.head[..cur.head_len]);
        // The head (our own buffer, reused for the next frame) is never
        // spliced: a spliced frame sends it by itself first.
        // A payload not in `segs` (a read response's, a far one) goes after
        // the head, which then goes by itself.
        let apart = cur.what == TxWhat::Rsp || !cur.far.is_null();
        // (A tagged RMA read's data is far: the receive's segments.)
        let (segs, skip, len, more) = if (cur.splice || apart) && cur.sent < cur.head_len {
            (&cur.segs[..1], cur.sent, cur.head_len - cur.sent, true)
        } else if cur.what == TxWhat::Rsp {
            (cur.rsp.segs(), cur.sent - cur.head_len, cur.total - cur.sent, more)
        } else if apart {
            (cur.far_segs(), cur.far_skip + (cur.sent - cur.head_len), cur.total - cur.sent, more)
        } else {
            (&cur.segs[..cur.nseg], cur.sent, cur.total - cur.sent, more)
        };
        match self.sock_send(mode, segs, skip, len, more, cur.splice && cur.sent >= cur.head_len) {
            Ok(k) => {
                cur.sent += k;
                if cur.sent == cur.total {
                    if let (TxWhat::Op(i), true) = (cur.what, cur.read) {
                        // Its responses may come now (`read_take`).
                        ep.read_req_sent(i);
                    }
                    if let (TxWhat::Op(i), true) = (cur.what, cur.chunk + 1 < cur.chunks) {
                        // The next frame of an RMA sent as several: the
                        // operation stays held, nothing is reported yet.
                        let j = cur.chunk + 1;
                        let (more, splice, read) = (cur.more, cur.splice, cur.read);
                        let r = cur.rxm;
                        if !ep.with_tx(i, |op| cur.fill_op(i, op, &op.chunk(j), order, r)) {
                            return Err(proto().into());
                        }
                        cur.chunk = j;
                        (cur.more, cur.splice, cur.read) = (more, splice, read);
                        return Ok(true);
                    }
                    match core::mem::replace(&mut cur.what, TxWhat::Idle) {
                        // A read is reported when its responses are in.
                        TxWhat::Op(_) if cur.read => {}
                        TxWhat::Op(i) => ep.tx_complete(i),
                        TxWhat::RndvDone => {
                            if let Some(r) = d.rndv.take() {
                                rndv_finish(d, ep, r);
                            }
                            // The next one matched meanwhile.
                            d.rndv = base::kvec_remove(&mut d.rndv_next, 0);
                        }
                        TxWhat::TrmaData => {
                            // Its bytes are in the socket (copied): the
                            // receive the peer read is done.
                            if let Some((w, len, tag)) = d.trma_cur.take() {
                                ep.rx_done_as(&w, len, None, tag, TRMA_READ_RECV);
                            }
                        }
                        TxWhat::Rsp => {
                            cur.rsp = RmaSegs::EMPTY;
                            ep.remote_hit(false);
                        }
                        _ => {}
                    }
                }
                Ok(true)
            }
            Err(e) => self.send_failed(e, len),
        }
    }

    /// A socket send of `len` bytes that took none: full (nothing moved),
    /// owned by a process (the work item's turn), or the end.
    fn send_failed(&self, e: Error, len: usize) -> core::result::Result<bool, Halt> {
        if e == EAGAIN {
            trace::stall((self as *const Self).cast(), c"socket send buffer full", len as u64);
            Ok(false)
        } else if e == EBUSY {
            Err(Halt::Defer)
        } else {
            Err(Broken { err: errno_of(e) }.into())
        }
    }

    /// Takes the next owed ACK or posted transmit into the idle `d.tx`.
    /// (Inlined: it is most of a small message's send step.)
    #[inline(always)]
    fn take_next(&self, d: &mut DataIo, ep: &EpData, order: ByteOrder) -> Took {
        // Our rendezvous reads and the consumer's are answered in order:
        // never both out at once.
        let reads = d.rndv.as_ref().map_or(true, |r| r.rsp == r.next && !(r.next < r.n && r.asked < r.want));
        let t = &mut d.tx;
        let taken = ep.tx_next(self, d.lane, reads, |w| t.take(w, order));
        match taken {
            None => Took::None,
            Some(TxTaken { slot, ok: false, .. }) => {
                // Cannot happen for a validated post.
                if let Some(i) = slot {
                    ep.tx_failed(i, bindings::EINVAL);
                }
                d.tx.what = TxWhat::Idle;
                Took::Failed
            }
            Some(TxTaken { more, .. }) => {
                d.tx.queued = more;
                Took::Frame
            }
        }
    }

    /// Sends what the socket takes of the batch, then reports each frame
    /// whose last byte it took, as `tx_step` does for a frame of its own.
    fn batch_send(&self, d: &mut DataIo, ep: &EpData, mode: Mode) -> core::result::Result<bool, Halt> {
        // `MSG_MORE` only if something follows now: a frame taken behind
        // the batch, a read response, or posts queued meanwhile (a
        // `KFI_MORE` of its frames asked for the batching itself, done).
        let more = d.tx.what != TxWhat::Idle || !d.rsp.is_empty() || self.tx_hint.load(core::sync::atomic::Ordering::Relaxed);
        let b = &mut d.bat;
        let left = b.len - b.sent;
        let seg = [sock::kseg(&b.buf[b.sent..b.len])];
        match self.sock_send(mode, &seg, 0, left, more, false) {
            Ok(k) => {
                b.sent += k;
                while b.done < b.n && b.items[b.done].end as usize <= b.sent {
                    let it = b.items[b.done];
                    b.done += 1;
                    match (it.slot, it.read) {
                        (NO_SLOT, _) => {}
                        // Its responses may come now (`read_take`); it is
                        // reported when they are in.
                        (i, true) => ep.read_req_sent(i as usize),
                        (i, false) => ep.tx_complete(i as usize),
                    }
                }
                if b.done == b.n {
                    b.reset();
                }
                Ok(true)
            }
            Err(e) => self.send_failed(e, left),
        }
    }

    /// Takes the next answer to a peer's tagged RMA: `TagRmaDone`, or
    /// `TagRmaData` with the bytes of the receive its read matched (sent
    /// from the receive's segments, copied: the receive completes once
    /// they are in the socket).
    fn trma_answer(&self, d: &mut DataIo, ep: &EpData, order: ByteOrder) -> core::result::Result<(), Halt> {
        let Some(o) = base::kvec_remove(&mut d.trma_out, 0) else {
            return Ok(());
        };
        let p = rxm::Pkt {
            conn_id: ep.rdm_peer_id(d.lane),
            msg_id: o.msg_id,
            op: Some(rxm::Op::Tagged),
            size: if o.err == 0 { o.len } else { 0 },
            data: u64::from(o.err),
            ..rxm::Pkt::default()
        };
        let mut pkt = [0u8; rxm::PKT_BYTES];
        let ty = if o.is_read { rxm::Type::TagRmaData } else { rxm::Type::TagRmaDone };
        rxm::encode(ty, &p, &mut pkt);
        let payload = if o.read.is_some() { o.len } else { 0 };
        let h = MsgHeader::send(rxm::PKT_BYTES as u64 + payload).map_err(|_| Halt::from(proto()))?;
        let what = if o.read.is_some() { TxWhat::TrmaData } else { TxWhat::TrmaAns };
        if !d.tx.fill(what, &h, order, &pkt, &[], &[]) {
            return Err(proto().into());
        }
        if let Some((w, tag)) = o.read {
            let skip = w.offset as usize;
            d.trma_cur = Some((w, o.len, tag));
            if let Some((w, _, _)) = d.trma_cur.as_ref() {
                let segs = w.op.buf.segs();
                d.tx.far = segs.as_ptr();
                d.tx.far_n = segs.len();
                d.tx.far_skip = skip;
            }
        }
        d.tx.splice = false;
        d.tx.more = false;
        d.tx.queued = false;
        Ok(())
    }

    /// Matches the messages kept unmatched (`DataIo::pending`), in order,
    /// until one finds no receive: a rendezvous request becomes the one
    /// being read or queues behind it (its receive an untagged one, a
    /// tagged one, or an unexpected buffer for a tagged message); an
    /// eager message is copied into its receive. True if one was matched.
    /// Work item only (it may allocate).
    fn pending_match(&self, d: &mut DataIo, ep: &EpData, mode: Mode) -> core::result::Result<bool, Halt> {
        let mut moved = false;
        loop {
            let head = match d.pending.first() {
                None => return Ok(moved),
                Some(Pending::Msg { buf, data, ack }) => Err((buf.len() as u64, *data, *ack)),
                Some(Pending::Rndv(h)) => Ok((h.size, h.tagged, h.tag)),
            };
            match head {
                Err((len, data, ack)) => {
                    // No receive (or no CQ slot for its entry): later.
                    let Some(w) = ep.rx_take_msg(len, d.from, d.lane).unwrap_or(None) else {
                        return Ok(moved);
                    };
                    let Some(Pending::Msg { buf, .. }) = base::kvec_remove(&mut d.pending, 0) else {
                        return Ok(moved);
                    };
                    d.pending_bytes -= buf.len();
                    let keep = w.room.min(len) as usize;
                    base::copy_to_segs(w.op.buf.segs(), w.offset as usize, &buf[..keep]);
                    if ack {
                        ep.owe_ack(d.lane);
                    }
                    if len > w.room {
                        ep.rx_failed(&w, sys::KFI_ETRUNC, w.room, len - w.room);
                    } else {
                        ep.rx_done(&w, len, data, 0);
                    }
                }
                Ok((len, tagged, tag)) => {
                    let Some(target) = self.whole_target(d, ep, len, tagged.then_some(tag), mode)? else {
                        return Ok(moved);
                    };
                    if d.rndv.is_some() {
                        ffi::fail_alloc()
                            .and_then(|()| d.rndv_next.reserve(1, GFP_KERNEL).map_err(|_| ENOMEM))
                            .map_err(|_| Halt::from(Broken { err: bindings::ENOMEM }))?;
                    }
                    let Some(Pending::Rndv(h)) = base::kvec_remove(&mut d.pending, 0) else {
                        return Ok(moved);
                    };
                    let want = match &target {
                        RndvTarget::Op(w) => w.room.min(len),
                        RndvTarget::Unexp(_) => len,
                    };
                    let (iovs, n) = h.iovs;
                    let r = RndvRx {
                        target,
                        iovs,
                        n,
                        next: 0,
                        want,
                        asked: 0,
                        got: 0,
                        lens: [0; rxm::RNDV_IOVS],
                        rsp: 0,
                        size: len,
                        msg_id: h.msg_id,
                        tag: h.tag,
                        data: h.data,
                    };
                    if d.rndv.is_none() {
                        d.rndv = Some(r);
                    } else if d.rndv_next.push(r, GFP_NOWAIT).is_err() {
                        // Reserved above: not reached.
                        return Err(Broken { err: bindings::ENOMEM }.into());
                    }
                }
            }
            moved = true;
        }
    }

    /// Where a message of `len` bytes not read in one piece (a rendezvous,
    /// a segmented one) goes: its receive (untagged, or tagged with
    /// `tag`), or for a tagged one with none yet an unexpected buffer of
    /// its own (within the connection's limits). `None`: it waits for a
    /// receive (or a CQ slot). Work item only.
    fn whole_target(&self, d: &mut DataIo, ep: &EpData, len: u64, tag: Option<u64>, mode: Mode) -> core::result::Result<Option<RndvTarget>, Halt> {
        let w = match tag {
            Some(t) => d.unexp.take_tagged(ep, t, d.from),
            None => ep.rx_take_msg(len, d.from, d.lane).unwrap_or(None),
        };
        Ok(Some(match w {
            Some(w) => RndvTarget::Op(w),
            None if tag.is_some() && d.unexp.has_room(len, UNEXP_MAX, UNEXP_LIMIT) => RndvTarget::Unexp(unexp_buffer(d, len, mode)?),
            None => {
                self.peer_gone()?;
                return Ok(None);
            }
        }))
    }

    /// A message waits for its receive: a peer that closed meanwhile ends
    /// the connection, inside a frame (its header is read), so not
    /// cleanly.
    fn peer_gone(&self) -> core::result::Result<(), Halt> {
        if let SkState::Closed(e) = self.sock.state() {
            let err = if e < 0 { (-e) as u32 } else { bindings::ECONNRESET };
            return Err(Broken { err }.into());
        }
        Ok(())
    }

    /// Takes the next frame of the rendezvous being read, if one is due:
    /// a read request for its next piece (once no other read of ours is
    /// out), or, every byte in, its `rndv_rd_done`. True if it took one.
    fn rndv_frame(&self, d: &mut DataIo, ep: &EpData, order: ByteOrder) -> core::result::Result<bool, Halt> {
        let Some(r) = d.rndv.as_mut() else {
            return Ok(false);
        };
        if r.next < r.n && r.asked < r.want {
            if ep.reads_out(d.lane) {
                return Ok(false);
            }
            let iov = r.iovs[r.next];
            let len = iov.len.min(r.want - r.asked);
            let h = MsgHeader::read_req(&[wire::RmaIov { addr: iov.addr, len, key: iov.key }]).map_err(|_| Halt::from(proto()))?;
            if !d.tx.fill(TxWhat::RndvRead, &h, order, &[], &[], &[]) {
                return Err(proto().into());
            }
            r.lens[r.next] = len;
            r.next += 1;
            r.asked += len;
        } else if r.read() {
            let p = rxm::Pkt { conn_id: ep.rdm_peer_id(d.lane), msg_id: r.msg_id, ..rxm::Pkt::default() };
            let mut pkt = [0u8; rxm::PKT_BYTES];
            rxm::encode(rxm::Type::RndvRdDone, &p, &mut pkt);
            let h = MsgHeader::send(rxm::PKT_BYTES as u64).map_err(|_| Halt::from(proto()))?;
            if !d.tx.fill(TxWhat::RndvDone, &h, order, &pkt, &[], &[]) {
                return Err(proto().into());
            }
        } else {
            return Ok(false);
        }
        d.tx.splice = false;
        d.tx.more = false;
        d.tx.queued = false;
        Ok(true)
    }

    /// Receives a piece of the current frame; true if something moved.
    fn rx_step(&self, d: &mut DataIo, ep: &EpData, order: ByteOrder, mode: Mode) -> core::result::Result<bool, Halt> {
        d.drained = false;
        if mode == Mode::Call && !d.unexp.is_empty() {
            // Delivering them frees their buffers (maybe vmalloc'ed, which
            // may sleep), and new tagged messages must queue behind them.
            return Err(Halt::Defer);
        }
        let mut moved = d.unexp.deliver(ep);
        if !d.pending.is_empty() {
            if mode == Mode::Call {
                return Err(Halt::Defer);
            }
            moved |= self.pending_match(d, ep, mode)?;
        }
        // The state is matched in place: a step that does not change it
        // (most do not) moves nothing.
        loop {
            match d.rx {
                Rx::Hdr => {
                    if d.rsp.len() >= RSP_MAX {
                        // Send responses before parsing more requests.
                        return Ok(moved);
                    }
                    let avail = d.hi - d.lo;
                    let need = if avail < BASE {
                        BASE
                    } else {
                        wire::header_len(&d.stage[d.lo..d.lo + BASE], order).map_err(|_| Halt::from(proto()))?
                    };
                    // On an RDM lane an untagged message starts with rxm's
                    // packet header: read with the frame's header.
                    let mut pre = 0;
                    if avail >= need {
                        d.hdr.decode_into(&d.stage[d.lo..d.lo + need], order).map_err(|_| Halt::from(proto()))?;
                        if d.rdm && d.hdr.kind() == FrameKind::Send {
                            pre = rxm::PKT_BYTES;
                            if d.hdr.payload_len() < pre as u64 {
                                return Err(proto().into());
                            }
                            // A rendezvous request: its rendezvous header too.
                            if avail >= need + 2 && d.stage[d.lo + need + 1] == rxm::Type::RndvReq as u8 {
                                pre = PRE_MAX;
                                if d.hdr.payload_len() != PRE_MAX as u64 {
                                    return Err(proto().into());
                                }
                            }
                        }
                    }
                    if avail >= need + pre {
                        // Decoded in place (past `Hdr` it is the frame's; until
                        // the state moves on, nobody looks at it).
                        ffi::tr(sys::KFI_TCP_TR_RX_HDR);
                        d.pkt = None;
                        if pre > 0 {
                            let at = d.lo + need;
                            let payload = d.hdr.payload_len();
                            let p = match rxm::decode(&d.stage[at..at + rxm::PKT_BYTES]) {
                                // Eager messages, rendezvous requests and the
                                // peer's reads done; the rest of rxm's
                                // protocol (segments, atomics) is not done
                                // here: the connection ends.
                                Ok((rxm::Type::Eager, p)) if p.size == payload - rxm::PKT_BYTES as u64 => {
                                    d.pkt_type = rxm::Type::Eager;
                                    p
                                }
                                // A segment: its bytes follow.
                                Ok((rxm::Type::Seg, p)) if u64::from(p.seg_size) == payload - rxm::PKT_BYTES as u64 && p.seg_size > 0 && p.size > 0 => {
                                    d.pkt_type = rxm::Type::Seg;
                                    p
                                }
                                Ok((rxm::Type::RndvReq, p)) if pre == PRE_MAX && p.size > rxm::EAGER_LIMIT as u64 => {
                                    let r = &d.stage[at + rxm::PKT_BYTES..at + PRE_MAX];
                                    let Some(iovs) = rxm::decode_rndv(r) else {
                                        return Err(proto().into());
                                    };
                                    d.rndv_iovs = iovs;
                                    d.pkt_type = rxm::Type::RndvReq;
                                    p
                                }
                                Ok((rxm::Type::RndvRdDone, p)) if payload == rxm::PKT_BYTES as u64 => {
                                    d.pkt_type = rxm::Type::RndvRdDone;
                                    p
                                }
                                // kfabric's tagged RMA: a write and a read's
                                // data carry `size` bytes, the rest none.
                                Ok((t @ (rxm::Type::TagRmaWrite | rxm::Type::TagRmaData), p)) if p.size == payload - rxm::PKT_BYTES as u64 => {
                                    d.pkt_type = t;
                                    p
                                }
                                Ok((t @ (rxm::Type::TagRmaRead | rxm::Type::TagRmaDone), p)) if payload == rxm::PKT_BYTES as u64 => {
                                    d.pkt_type = t;
                                    p
                                }
                                _ => return Err(proto().into()),
                            };
                            d.pkt = Some(p);
                        }
                        let h = &d.hdr;
                        if !d.pending.is_empty() {
                            // Messages are matched in order: one behind an
                            // unmatched message is kept too (a rendezvous
                            // request, an untagged eager message in a
                            // buffer, up to the limits), or waits in the
                            // socket; a tagged eager one waits only for
                            // a tagged request before it.
                            let first_seg = d.pkt_type == rxm::Type::Seg && d.pkt.is_some_and(|p| p.seg == Some(rxm::Seg::First));
                            let untagged_eager = h.kind() == FrameKind::Send && d.pkt.is_some() && d.pkt_type == rxm::Type::Eager && d.pkt.is_some_and(|p| p.op == Some(rxm::Op::Msg));
                            let rndv = h.kind() == FrameKind::Send && d.pkt.is_some() && d.pkt_type == rxm::Type::RndvReq;
                            let message = h.kind() == FrameKind::TaggedSend || (h.kind() == FrameKind::Send && (d.pkt.is_none() || matches!(d.pkt_type, rxm::Type::Eager | rxm::Type::RndvReq)));
                            let tagged_before = d.pending.iter().any(|x| matches!(x, Pending::Rndv(r) if r.tagged));
                            let wait = if untagged_eager {
                                let body = h.payload_len() - rxm::PKT_BYTES as u64;
                                d.pending.len() >= PENDING_MAX || d.pending_bytes as u64 + body > UNEXP_LIMIT as u64 || mode == Mode::Call
                            } else if rndv {
                                d.pending.len() >= PENDING_MAX
                            } else if first_seg {
                                // (Not kept: it waits in the socket.)
                                true
                            } else if message {
                                !(d.pkt.map_or(h.kind() == FrameKind::TaggedSend, |p| p.op == Some(rxm::Op::Tagged))) || tagged_before
                            } else {
                                false
                            };
                            if wait {
                                return Ok(moved);
                            }
                        }
                        if h.kind() == FrameKind::Write && (!d.rsp.is_empty() || d.tx.what == TxWhat::Rsp) {
                            // A write after read requests whose responses
                            // are not all in the socket yet would change
                            // what they return (responses are taken from
                            // the memory as they are sent; KFI_ORDER_WAR
                            // is advertised; found by tests/stress): it
                            // waits in the stage until they are. Sending
                            // them needs no receive, so this cannot stall.
                            return Ok(moved);
                        }
                        if mode == Mode::Call && matches!(h.kind(), FrameKind::Write | FrameKind::ReadReq) {
                            // Resolving the regions takes the domain's
                            // region table mutex (and queueing a read
                            // response may allocate): the work item's job.
                            return Err(Halt::Defer);
                        }
                        if d.pkt.is_some() && matches!(d.pkt_type, rxm::Type::TagRmaWrite | rxm::Type::TagRmaRead) {
                            // A peer's tagged RMA: its answer is queued
                            // (memory for it reserved now, in the work
                            // item), at most RSP_MAX of them.
                            if mode == Mode::Call {
                                return Err(Halt::Defer);
                            }
                            if d.trma_out.len() >= RSP_MAX {
                                return Ok(moved);
                            }
                            ffi::fail_alloc()
                                .and_then(|()| d.trma_out.reserve(1, GFP_KERNEL).map_err(|_| ENOMEM))
                                .map_err(|_| Halt::from(Broken { err: bindings::ENOMEM }))?;
                        }
                        if h.kind() == FrameKind::Write && h.cq_data().is_some() && !d.rma_room {
                            // Its entry must have room before a byte of
                            // it is taken: with the receive CQ full the
                            // frame waits (TCP back-pressure on the peer)
                            // until a read of the CQ frees a slot.
                            match ep.take_remote_room() {
                                Room::Taken => d.rma_room = true,
                                Room::Full => return Ok(moved),
                                Room::NoCq => {}
                            }
                        }
                        d.lo += need + pre;
                        moved = true;
                        match h.kind() {
                            FrameKind::Ack => {
                                if !ep.ack_received(d.lane) {
                                    return Err(proto().into());
                                }
                                // One frame per step.
                                return Ok(true);
                            }
                            FrameKind::Send if d.pkt.is_some() && d.pkt_type == rxm::Type::Seg => {
                                if d.one_way {
                                    return Err(proto().into());
                                }
                                let p = d.pkt.unwrap_or_default();
                                match &d.sar {
                                    None if rxm::Sar::first(&p).is_some() => d.rx = Rx::Await,
                                    Some(x) if x.st.continues(&p) => d.rx = Rx::Body { dest: Dest::Sar, got: 0 },
                                    _ => return Err(proto().into()),
                                }
                            }
                            FrameKind::Send if d.pkt.is_some() && d.pkt_type.is_tag_rma() => {
                                let p = d.pkt.unwrap_or_default();
                                match d.pkt_type {
                                    // Answers to ours.
                                    rxm::Type::TagRmaDone => {
                                        if !ep.trma_end(d.lane, p.msg_id, rxm::tag_rma_status(p.data)) {
                                            return Err(proto().into());
                                        }
                                        return Ok(true);
                                    }
                                    rxm::Type::TagRmaData if p.data != 0 => {
                                        if p.size != 0 || !ep.trma_end(d.lane, p.msg_id, rxm::tag_rma_status(p.data)) {
                                            return Err(proto().into());
                                        }
                                        return Ok(true);
                                    }
                                    rxm::Type::TagRmaData => {
                                        let Some((buf, len)) = ep.trma_read_buf(d.lane, p.msg_id) else {
                                            return Err(proto().into());
                                        };
                                        if p.size != len {
                                            return Err(proto().into());
                                        }
                                        d.read_buf = buf;
                                        d.read_off = 0;
                                        d.rx = Rx::Body { dest: Dest::TrmaData { key: p.msg_id }, got: 0 };
                                    }
                                    // Requests: never on a transmit
                                    // context's connection.
                                    _ if d.one_way => return Err(proto().into()),
                                    rxm::Type::TagRmaWrite => {
                                        // The receive the tag names (exact
                                        // match, from this peer), at the
                                        // offset asked; what does not fit
                                        // fails it (EMSGSIZE); none: the
                                        // payload is dropped (EREMOTEIO).
                                        let w = ep.rx_take_tagged(p.tag, d.from, |_, _, _| false).ok().flatten();
                                        d.trma = Some(p.msg_id);
                                        let dest = match w {
                                            Some(mut w) => {
                                                let at = p.data.min(w.room);
                                                w.offset += at;
                                                w.room -= at;
                                                let trunc = p.data > at || p.size > w.room;
                                                d.rxw = w;
                                                if trunc {
                                                    Dest::Trunc
                                                } else {
                                                    Dest::Op
                                                }
                                            }
                                            None => Dest::Drop,
                                        };
                                        d.rx = Rx::Body { dest, got: 0 };
                                    }
                                    rxm::Type::TagRmaRead => {
                                        let w = ep.rx_take_tagged(p.tag, d.from, |_, _, _| false).ok().flatten();
                                        let mut o = TrmaOut { msg_id: p.msg_id, is_read: true, err: 0, len: p.size, read: None };
                                        match w {
                                            Some(mut w) if p.data <= w.room && p.size <= w.room - p.data => {
                                                w.offset += p.data;
                                                o.read = Some((w, p.tag));
                                            }
                                            Some(w) => {
                                                ep.rx_failed(&w, bindings::EMSGSIZE, 0, p.size.saturating_sub(w.room));
                                                o.err = bindings::EMSGSIZE;
                                            }
                                            None => o.err = bindings::EREMOTEIO,
                                        }
                                        // Room was reserved above.
                                        if d.trma_out.push(o, GFP_NOWAIT).is_err() {
                                            return Err(Broken { err: bindings::ENOMEM }.into());
                                        }
                                        return Ok(true);
                                    }
                                    _ => return Err(proto().into()),
                                }
                            }
                            FrameKind::Send if d.pkt.is_some() && d.pkt_type == rxm::Type::RndvRdDone => {
                                // The peer read one of our rendezvous.
                                let key = d.pkt.map_or(0, |p| p.msg_id);
                                if !ep.rndv_done(d.lane, key) {
                                    return Err(proto().into());
                                }
                                return Ok(true);
                            }
                            // A transmit context receives nothing: the
                            // peer breaks the protocol.
                            FrameKind::Send | FrameKind::TaggedSend if d.one_way => return Err(proto().into()),
                            FrameKind::Send | FrameKind::TaggedSend => d.rx = Rx::Await,
                            FrameKind::Write => {
                                d.rma = resolve(ep, h, REMOTE_WRITE)?;
                                d.rx = Rx::Body { dest: Dest::Rma, got: 0 };
                            }
                            FrameKind::ReadReq => {
                                // Only the work item gets here (see above).
                                // A read of one of our rendezvous is served
                                // from its buffer.
                                let r = match rndv_segs(ep, d.lane, h)? {
                                    Some(r) => r,
                                    None => resolve(ep, h, REMOTE_READ)?,
                                };
                                ffi::fail_alloc().and_then(|()| d.rsp.push(r, GFP_KERNEL).map_err(|_| ENOMEM)).map_err(|_| Halt::from(Broken { err: bindings::ENOMEM }))?;
                                return Ok(true);
                            }
                            FrameKind::ReadRsp if d.rndv.as_ref().is_some_and(|r| r.rsp < r.next) => {
                                // Our rendezvous reads are out (no other
                                // read is then): its next response.
                                let Some(r) = d.rndv.as_mut() else {
                                    return Err(proto().into());
                                };
                                if h.payload_len() != r.lens[r.rsp] {
                                    return Err(proto().into());
                                }
                                let (buf, off) = match &mut r.target {
                                    RndvTarget::Op(w) => (w.op.buf, w.offset + r.got),
                                    RndvTarget::Unexp(b) => (buf_of(b), r.got),
                                };
                                d.read_buf = buf;
                                d.read_off = off as usize;
                                d.rx = Rx::Body { dest: Dest::RndvRsp, got: 0 };
                            }
                            FrameKind::ReadRsp => {
                                let Some((i, buf, c)) = ep.read_take(d.lane) else {
                                    return Err(proto().into());
                                };
                                if h.payload_len() != c.len {
                                    // Off the list only with its last
                                    // response; else the flush fails it.
                                    if c.last {
                                        ep.tx_failed(i, bindings::EPROTO);
                                    }
                                    return Err(proto().into());
                                }
                                d.read_buf = buf;
                                d.read_off = c.offset as usize;
                                d.rx = Rx::Body { dest: Dest::Read { idx: i, last: c.last }, got: 0 };
                            }
                        }
                        continue;
                    }
                    // Short of a header: read what the socket has, up to
                    // the stage's end (the few bytes kept move to the front).
                    if d.lo > 0 {
                        d.stage.copy_within(d.lo..d.hi, 0);
                        d.hi = avail;
                        d.lo = 0;
                    }
                    let seg = [sock::kseg_mut(&mut d.stage[..])];
                    let want = STAGE - d.hi;
                    match self.sock_recv(mode, &seg, d.hi, want) {
                        // End of stream between frames: the peer may still
                        // read (a half close), so a frame we are sending
                        // goes out whole first; the end is seen again.
                        Ok(0) if avail == 0 && d.tx.what != TxWhat::Idle => return Ok(moved),
                        Ok(0) if avail == 0 => return Err(Broken { err: 0 }.into()),
                        Ok(0) => return Err(Broken { err: bindings::ECONNRESET }.into()),
                        Ok(k) => {
                            d.hi += k;
                            // Short: the socket is empty, unless its end
                            // came with these bytes (FIN in the segment of
                            // the last data wakes us once, and that wake
                            // may be the one this call took): then it is
                            // not settled until a receive has seen the end.
                            d.drained = k < want && !self.sock.rx_ended();
                            moved = true;
                        }
                        Err(e) if e == EAGAIN => {
                            d.drained = true;
                            return Ok(moved);
                        }
                        Err(e) if e == EBUSY => return Err(Halt::Defer),
                        Err(e) => return Err(Broken { err: errno_of(e) }.into()),
                    }
                }
                Rx::Await if d.pkt.is_some() && d.pkt_type == rxm::Type::Seg => {
                    // A segmented message's first segment: matched as an
                    // eager message of its whole size would be.
                    if mode == Mode::Call {
                        return Err(Halt::Defer);
                    }
                    let p = d.pkt.unwrap_or_default();
                    let tag = d.tagged().then_some(d.tag());
                    let Some(target) = self.whole_target(d, ep, p.size, tag, mode)? else {
                        return Ok(moved);
                    };
                    let Some(st) = rxm::Sar::first(&p) else {
                        // Checked when its header came.
                        return Err(proto().into());
                    };
                    d.sar = Some(SarRx { st, target, tag: d.tag(), data: d.cq_data() });
                    d.rx = Rx::Body { dest: Dest::Sar, got: 0 };
                    moved = true;
                }
                Rx::Await if d.pkt.is_some() && d.pkt_type == rxm::Type::RndvReq => {
                    // A rendezvous request: kept aside, matched now or when
                    // a receive comes (`rndv_match`), read in turn; the
                    // stream goes on (our reads' responses are behind it).
                    if mode == Mode::Call {
                        // Matching may allocate (a queue slot, a buffer
                        // for an unexpected tagged message).
                        return Err(Halt::Defer);
                    }
                    let p = d.pkt.unwrap_or_default();
                    let h = RndvHdr {
                        msg_id: p.msg_id,
                        iovs: d.rndv_iovs,
                        size: d.body_len(),
                        tagged: d.tagged(),
                        tag: d.tag(),
                        data: d.cq_data(),
                    };
                    ffi::fail_alloc()
                        .and_then(|()| d.pending.push(Pending::Rndv(h), GFP_KERNEL).map_err(|_| ENOMEM))
                        .map_err(|_| Halt::from(Broken { err: bindings::ENOMEM }))?;
                    d.rx = Rx::Hdr;
                    moved = true;
                    self.pending_match(d, ep, mode)?;
                }
                Rx::Await if !d.pending.is_empty() && !d.tagged() => {
                    // Behind an unmatched message: kept in a buffer of its
                    // own (room checked with its header; the work item's).
                    if mode == Mode::Call {
                        return Err(Halt::Defer);
                    }
                    let len = d.body_len();
                    let oom = |_| Halt::from(Broken { err: bindings::ENOMEM });
                    ffi::fail_alloc().map_err(oom)?;
                    d.pending.reserve(1, GFP_KERNEL).map_err(|_| Halt::from(Broken { err: bindings::ENOMEM }))?;
                    let buf = KVVec::from_elem(0u8, len as usize, GFP_KERNEL | __GFP_NOWARN).map_err(|_| Halt::from(Broken { err: bindings::ENOMEM }))?;
                    d.rx = Rx::Body { dest: Dest::Pend(buf), got: 0 };
                    moved = true;
                }
                Rx::Await => {
                    let len = d.body_len();
                    let tagged = d.tagged();
                    let found = if tagged {
                        // Messages that came earlier get their receives
                        // first (posted between two looks: try again).
                        match d.unexp.take_tagged(ep, d.tag(), d.from) {
                            Some(w) => {
                                d.rxw = w;
                                true
                            }
                            None => false,
                        }
                    } else {
                        // Written in place: the receive is not moved.
                        match ep.rx_take_msg_into(len, d.from, d.lane, &mut d.rxw) {
                            Ok(found) => found,
                            // No CQ slot for its entry: it waits in the
                            // socket until a read frees one.
                            Err(NoRoom) => return Ok(moved),
                        }
                    };
                    let dest = match found {
                        true if len > d.rxw.room => Dest::Trunc,
                        true => Dest::Op,
                        false if tagged && d.unexp.has_room(len, UNEXP_MAX, UNEXP_LIMIT) => Dest::Unexp(unexp_buffer(d, len, mode)?),
                        false => {
                            // Nothing can move until a receive is posted.
                            self.peer_gone()?;
                            return Ok(moved);
                        }
                    };
                    ffi::tr(sys::KFI_TCP_TR_RX_MATCHED);
                    d.rx = Rx::Body { dest, got: 0 };
                    moved = true;
                }
                Rx::Body { .. } => {
                    let len = d.body_len();
                    let Rx::Body { dest, got } = &mut d.rx else {
                        return Ok(moved);
                    };
                    if mode == Mode::Call && matches!(dest, Dest::Unexp(_) | Dest::Pend(_)) {
                        // Keeping it as unexpected allocates at the end.
                        return Err(Halt::Defer);
                    }
                    if *got == len {
                        self.rx_finish(d, ep);
                        // One frame per step.
                        return Ok(true);
                    }
                    if d.hi > d.lo {
                        // Read ahead with the header: copied from the stage.
                        let k = (d.hi - d.lo).min((len - *got) as usize);
                        let src = &d.stage[d.lo..d.lo + k];
                        let done = match dest {
                            Dest::Op => base::copy_to_segs(d.rxw.op.buf.segs(), (d.rxw.offset + *got) as usize, src),
                            Dest::Trunc => {
                                // What fits is kept, the rest skipped.
                                let w = &d.rxw;
                                let keep = w.room.saturating_sub(*got).min(k as u64) as usize;
                                let c = base::copy_to_segs(w.op.buf.segs(), (w.offset + *got) as usize, &src[..keep]);
                                if c == keep { k } else { c }
                            }
                            Dest::Rma => base::copy_to_segs(d.rma.segs(), *got as usize, src),
                            Dest::Read { .. } | Dest::RndvRsp | Dest::TrmaData { .. } => base::copy_to_segs(d.read_buf.segs(), d.read_off + *got as usize, src),
                            Dest::Drop => k,
                            Dest::Sar => match d.sar.as_mut() {
                                Some(x) => {
                                    let at = x.st.got + *got;
                                    match &mut x.target {
                                        RndvTarget::Op(w) => {
                                            // What fits is kept, the rest
                                            // skipped (a short receive).
                                            let keep = w.room.saturating_sub(at).min(k as u64) as usize;
                                            let c = base::copy_to_segs(w.op.buf.segs(), (w.offset + at) as usize, &src[..keep]);
                                            if c == keep { k } else { c }
                                        }
                                        RndvTarget::Unexp(b) => {
                                            b[at as usize..at as usize + k].copy_from_slice(src);
                                            k
                                        }
                                    }
                                }
                                None => 0,
                            },
                            Dest::Unexp(b) | Dest::Pend(b) => {
                                b[*got as usize..*got as usize + k].copy_from_slice(src);
                                k
                            }
                        };
                        d.lo += k;
                        *got += k as u64;
                        if done != k {
                            // The destination was checked to hold the
                            // payload: cannot happen.
                            return Err(Broken { err: bindings::EFAULT }.into());
                        }
                        if *got == len {
                            // All of it was read ahead (a small message):
                            // complete it in this step.
                            self.rx_finish(d, ep);
                            return Ok(true);
                        }
                        moved = true;
                        continue;
                    }
                    let r = match dest {
                        Dest::Op => self.sock_recv(mode, d.rxw.op.buf.segs(), (d.rxw.offset + *got) as usize, (len - *got) as usize),
                        Dest::Trunc if *got < d.rxw.room => {
                            let w = &d.rxw;
                            self.sock_recv(mode, w.op.buf.segs(), (w.offset + *got) as usize, (w.room - *got) as usize)
                        }
                        Dest::Sar if d.sar.as_ref().is_some_and(|x| match &x.target {
                            RndvTarget::Op(w) => x.st.got + *got < w.room,
                            RndvTarget::Unexp(_) => true,
                        }) =>
                        {
                            match d.sar.as_ref().map(|x| (x.st.got + *got, &x.target)) {
                                Some((at, RndvTarget::Op(w))) => {
                                    let n = (len - *got).min(w.room - at);
                                    self.sock_recv(mode, w.op.buf.segs(), (w.offset + at) as usize, n as usize)
                                }
                                Some((at, RndvTarget::Unexp(b))) => {
                                    let seg = [sock::kseg(&b[..])];
                                    self.sock_recv(mode, &seg, at as usize, (len - *got) as usize)
                                }
                                None => Err(EINVAL),
                            }
                        }
                        Dest::Trunc | Dest::Drop | Dest::Sar => {
                            // Dropped: read into the stage, which holds
                            // nothing now (`lo == hi`) and is not advanced.
                            let n = ((len - *got) as usize).min(STAGE);
                            let seg = [sock::kseg(&d.stage[..n])];
                            self.sock_recv(mode, &seg, 0, n)
                        }
                        Dest::Rma => self.sock_recv(mode, d.rma.segs(), *got as usize, (len - *got) as usize),
                        Dest::Read { .. } | Dest::RndvRsp | Dest::TrmaData { .. } => self.sock_recv(mode, d.read_buf.segs(), d.read_off + *got as usize, (len - *got) as usize),
                        Dest::Unexp(b) | Dest::Pend(b) => {
                            let seg = [sock::kseg(&b[..])];
                            self.sock_recv(mode, &seg, *got as usize, (len - *got) as usize)
                        }
                    };
                    match r {
                        Ok(0) => return Err(Broken { err: bindings::ECONNRESET }.into()),
                        Ok(k) => {
                            d.drained = (k as u64) < len - *got;
                            *got += k as u64;
                            moved = true;
                        }
                        Err(e) if e == EAGAIN => {
                            d.drained = true;
                            return Ok(moved);
                        }
                        Err(e) if e == EBUSY => return Err(Halt::Defer),
                        Err(e) => return Err(Broken { err: errno_of(e) }.into()),
                    }
                }
            }
        }
    }

    /// A payload is in: complete its receive, or keep it as unexpected.
    /// The state goes back to `Hdr`.
    fn rx_finish(&self, d: &mut DataIo, ep: &EpData) {
        ffi::tr(sys::KFI_TCP_TR_RX_IN);
        if let Some(msg_id) = d.trma.take() {
            // A peer's tagged RMA write is in: the receive completes (or
            // fails), its answer is queued (room reserved when it began).
            let (body, tag) = (d.body_len(), d.tag());
            let mut o = TrmaOut { msg_id, is_read: false, err: 0, len: body, read: None };
            match core::mem::replace(&mut d.rx, Rx::Hdr) {
                Rx::Body { dest: Dest::Op, .. } => ep.rx_done_as(&d.rxw, body, None, tag, TRMA_WRITE_RECV),
                Rx::Body { dest: Dest::Trunc, .. } => {
                    let w = &d.rxw;
                    ep.rx_failed(&w, bindings::EMSGSIZE, w.room, body.saturating_sub(w.room));
                    o.err = bindings::EMSGSIZE;
                }
                _ => o.err = bindings::EREMOTEIO,
            }
            if d.trma_out.push(o, GFP_NOWAIT).is_err() && OOM_WARN.allow() {
                // Not reached (reserved); were it, the initiator's
                // operation waits until the connection ends.
                pr_warn!("kfi_tcp: tagged RMA answer lost (no memory)\n");
            }
            return;
        }
        let hdr = &d.hdr;
        let (body, data, tag) = (d.body_len(), d.cq_data(), d.tag());
        match &mut d.rx {
            Rx::Body { dest: Dest::Op, .. } => {
                if hdr.needs_ack() {
                    ep.owe_ack(d.lane);
                }
                ep.rx_done(&d.rxw, body, data, tag);
            }
            Rx::Body { dest: Dest::Trunc, .. } => {
                let w = &d.rxw;
                // The message was consumed (the sender's ACK is owed); its
                // receive has the bytes that fit.
                if hdr.needs_ack() {
                    ep.owe_ack(d.lane);
                }
                ep.rx_failed(w, sys::KFI_ETRUNC, w.room, body - w.room);
            }
            Rx::Body { dest: Dest::Rma, .. } => {
                d.rma = RmaSegs::EMPTY;
                ep.remote_hit(true);
                if let Some(data) = hdr.cq_data() {
                    if core::mem::take(&mut d.rma_room) {
                        ep.remote_write_data(hdr.payload_len(), data);
                    } else if NO_CQ_WARN.allow() {
                        // The peer decides how often: rate-limited.
                        pr_warn!("kfi_tcp: remote write data not reported (no receive CQ)\n");
                    }
                }
                if hdr.needs_ack() {
                    ep.owe_ack(d.lane);
                }
            }
            Rx::Body { dest: Dest::Read { idx, last: true }, .. } => ep.read_done(*idx),
            Rx::Body { dest: Dest::RndvRsp, .. } => {
                if let Some(r) = d.rndv.as_mut() {
                    r.got += r.lens[r.rsp];
                    r.rsp += 1;
                }
            }
            Rx::Body { dest: Dest::Read { last: false, .. }, .. } => {}
            Rx::Body { dest: Dest::TrmaData { key }, .. } => {
                // Checked when its header came: it waits.
                let _ = ep.trma_end(d.lane, *key, 0);
            }
            Rx::Body { dest: Dest::Drop, .. } => {}
            Rx::Body { dest: Dest::Sar, .. } => {
                let last = d.sar.as_mut().is_some_and(|x| x.st.placed(body));
                if last {
                    if let Some(x) = d.sar.take() {
                        match x.target {
                            RndvTarget::Op(w) if x.st.size > w.room => ep.rx_failed(&w, sys::KFI_ETRUNC, w.room, x.st.size - w.room),
                            RndvTarget::Op(w) => ep.rx_done(&w, x.st.size, x.data, x.tag),
                            RndvTarget::Unexp(buf) => {
                                let u = Unexp { tag: x.tag, src: d.from, data: x.data, ack: false, buf, claimed: None };
                                // Within the room reserved with its buffer.
                                if d.unexp.push(u).is_err() && OOM_WARN.allow() {
                                    pr_warn!("kfi_tcp: dropped an unexpected tagged message (no memory)\n");
                                }
                            }
                        }
                    }
                }
            }
            Rx::Body { dest: Dest::Pend(buf), .. } => {
                let buf = core::mem::replace(buf, KVVec::new());
                d.pending_bytes += buf.len();
                // Room reserved when its payload was buffered.
                if d.pending.push(Pending::Msg { buf, data, ack: hdr.needs_ack() }, GFP_NOWAIT).is_err() && OOM_WARN.allow() {
                    pr_warn!("kfi_tcp: dropped a message (no memory)\n");
                }
            }
            Rx::Body { dest: Dest::Unexp(buf), .. } => {
                let buf = core::mem::replace(buf, KVVec::new());
                let u = Unexp { tag, src: d.from, data, ack: hdr.needs_ack(), buf, claimed: None };
                // Within the capacity reserved when its payload was
                // buffered: allocates nothing.
                if d.unexp.push(u).is_err() {
                    // Not reached (see above); were it, the message is
                    // lost: say so rather than pretend.
                    if OOM_WARN.allow() {
                        pr_warn!("kfi_tcp: dropped an unexpected tagged message (no memory)\n");
                    }
                }
            }
            Rx::Hdr | Rx::Await => {}
        }
        d.rx = Rx::Hdr;
    }

    /// The connection ends: an established one reports `KFI_SHUTDOWN` on
    /// the EQ, whatever ended it (a clean end of stream, a reset, a
    /// protocol error: libfabric's tcp provider does the same; the cause is
    /// in the error entries of the operations it fails); one still being
    /// set up gets an EQ error entry. Every operation is failed (or
    /// flushed) first, so a consumer that sees `KFI_SHUTDOWN` finds all of
    /// their entries in its CQs (reading them right after the event raced
    /// with the flush: `tcp_msg_multi_recv_broken_once`).
    fn broken(&self, d: &mut DataIo, ep: &EpData, owner: Owner, b: Broken) {
        let err = if b.err == 0 { bindings::ECONNRESET } else { b.err };
        if b.err != 0 {
            trace::error((self as *const Self).cast(), b.err, cause(b.err));
        }
        if self.set_phase(Phase::Established, Phase::Closed) {
            if b.err != 0 {
                // KFI_SHUTDOWN carries no cause: the log and the stat do.
                ffi::note_break(b.err);
                if BROKEN_INFO.allow() {
                    pr_info!("kfi_tcp: connection ended by error {}\n", b.err);
                }
            }
            self.sock.shutdown();
            self.cleanup(d, ep, err);
            self.report_cm(owner, sys::KFI_SHUTDOWN, &[]);
            return;
        }
        if b.err != 0 {
            self.fail(owner, -(b.err as c_int), &[]);
        }
        self.cleanup(d, ep, err);
    }

    /// Fails the operations the work item holds with `err` and every
    /// queued one with -KFI_ECANCELED; drops unexpected messages. Once.
    pub(super) fn cleanup(&self, d: &mut DataIo, ep: &EpData, err: u32) {
        if d.cleaned {
            return;
        }
        d.cleaned = true;
        // The batch's frames are older than `tx`'s; a read is on
        // `tx_read` (the flush below fails it).
        for it in &d.bat.items[d.bat.done..d.bat.n] {
            if it.slot != NO_SLOT && !it.read {
                ep.tx_failed(it.slot as usize, err);
            }
        }
        d.bat.reset();
        if let TxWhat::Op(i) = core::mem::replace(&mut d.tx.what, TxWhat::Idle) {
            // A read is on `tx_read`: the flush below fails it.
            if !d.tx.read {
                ep.tx_failed(i, err);
            }
        }
        match core::mem::replace(&mut d.rx, Rx::Hdr) {
            Rx::Body { dest: Dest::Op, got } => ep.rx_failed(&d.rxw, err, got, 0),
            Rx::Body { dest: Dest::Trunc, got } => ep.rx_failed(&d.rxw, err, got.min(d.rxw.room), 0),
            Rx::Body { dest: Dest::Read { idx, last: true }, .. } => ep.tx_failed(idx, err),
            _ => {}
        }
        if core::mem::take(&mut d.rma_room) {
            ep.give_back_room();
        }
        if let Some(RndvRx { target: RndvTarget::Op(w), got, .. }) = d.rndv.take() {
            ep.rx_failed(&w, err, got, 0);
        }
        d.pending = KVec::new();
        d.pending_bytes = 0;
        if let Some(SarRx { target: RndvTarget::Op(w), st, .. }) = d.sar.take() {
            ep.rx_failed(&w, err, st.got, 0);
        }
        for r in core::mem::replace(&mut d.rndv_next, KVec::new()) {
            if let RndvTarget::Op(w) = r.target {
                ep.rx_failed(&w, err, 0, 0);
            }
        }
        d.rsp = KVec::new();
        // Receives a peer's tagged RMA read held fail.
        d.trma = None;
        if let Some((w, _, _)) = d.trma_cur.take() {
            ep.rx_failed(&w, err, 0, 0);
        }
        for o in core::mem::replace(&mut d.trma_out, KVec::new()) {
            if let Some((w, _)) = o.read {
                ep.rx_failed(&w, err, 0, 0);
            }
        }
        d.unexp.clear();
        if d.rdm {
            // One peer of a connectionless endpoint: its transmits fail,
            // the endpoint's receives stay.
            ep.rdm_conn_lost(d.lane, self, err);
        } else {
            ep.fail_all(bindings::ECANCELED);
        }
    }

    /// Stops a connection of an RDM endpoint from another context than
    /// its work item (`Rdm`'s work, the endpoint's close), then fails
    /// what it held: its own operations, and its lane's if it still is the
    /// lane's connection.
    pub(crate) fn retire(&self, err: u32) {
        let owner = self.owner();
        self.stop();
        let Some((data, lane, from)) = owner.data() else {
            return;
        };
        let Some(mut d) = self.data.try_lock() else {
            return;
        };
        d.take_owner(owner, lane, from);
        // SAFETY: an endpoint stops its connections (this one, above,
        // before the close goes on) before its data goes.
        self.cleanup(&mut d, unsafe { &*data }, err);
    }
}
