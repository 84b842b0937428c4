// SPDX-License-Identifier: GPL-2.0
//! Unexpected tagged messages: the ones that arrived before a receive
//! matched them, kept by whoever moves an endpoint's data (kfi_tcp: a
//! connection's work item), matched against the receives posted since, and
//! the probes (`KFI_PEEK`, `KFI_CLAIM`, `KFI_DISCARD`: fi_tagged(3))
//! answered from them.
//!
//! The list is owned by one context at a time (the caller's `&mut`; in
//! kfi_tcp the connection's data state mutex): no lock here. The endpoint's
//! queues are reached through [`TagQueues`], which the provider's endpoint
//! implements; the matching rules are `logic::xfer::tag_match`.
//!
//! Memory: an entry's payload buffer is allocated by the provider when the
//! message's header shows it unexpected, and the list's room for its entry
//! is reserved then ([`UnexpList::reserve`]), so keeping the message once
//! its bytes are in allocates nothing ([`UnexpList::push`]).

use super::base;
use super::logic::xfer::{self as rules};
use super::sys;
use super::xfer::RxWork;
use kernel::alloc::{AllocError, Flags, KVVec};
use kernel::bindings;
use kernel::prelude::*;

/// Bytes of unexpected tagged messages a connection buffers.
pub(crate) const UNEXP_LIMIT: usize = 4 << 20;
/// Unexpected tagged messages a connection buffers (zero-length ones
/// cost a 48-byte list entry each, not payload): 1.5 MiB of list at most.
pub(crate) const UNEXP_MAX: usize = 32768;

/// A tagged message that arrived before its receive.
pub(crate) struct Unexp {
    pub(crate) tag: u64,
    /// The sender's address handle (`rules::ADDR_ANY`: none; connected
    /// endpoints).
    pub(crate) src: u64,
    pub(crate) data: Option<u64>,
    /// The sender asked for an acknowledgement (owed once it is taken).
    pub(crate) ack: bool,
    pub(crate) buf: KVVec<u8>,
    /// Claimed by a `KFI_PEEK | KFI_CLAIM` with this context: only the
    /// `KFI_CLAIM` receive with the same context takes it.
    pub(crate) claimed: Option<usize>,
}

impl Unexp {
    /// An unclaimed message a receive for `want`/`ignore` from `filter`
    /// takes.
    #[inline]
    fn matches(&self, want: u64, ignore: u64, filter: u64) -> bool {
        self.claimed.is_none() && rules::tag_match(want, ignore, self.tag) && rules::src_match(filter, self.src)
    }
}

/// What matching needs of an endpoint's receive queues.
pub(crate) trait TagQueues {
    /// Tagged receives posted so far (a counter that moves with each).
    fn tag_posts(&self) -> u64;
    /// Takes the oldest posted tagged receive matching `tag` from `from`
    /// unless an older unexpected message, as `older(want, ignore,
    /// src_filter)` tells, matches it first; `Err(())`: try again (the
    /// queues moved meanwhile).
    fn rx_take_tagged(&self, tag: u64, from: u64, older: impl Fn(u64, u64, u64) -> bool) -> core::result::Result<Option<RxWork>, ()>;
    /// Takes the oldest posted probe.
    fn take_probe(&self) -> Option<RxWork>;
    /// A receive completed with `len` bytes.
    fn rx_done(&self, w: &RxWork, len: u64, data: Option<u64>, tag: u64);
    /// A receive failed (`err`, positive).
    fn rx_failed(&self, w: &RxWork, err: u32, len: u64, olen: u64);
    /// An acknowledgement is owed to the peer on the provider's data
    /// stream `stream`.
    fn owe_ack(&self, stream: u32);
}

/// The unexpected messages of one data stream, oldest first.
pub(crate) struct UnexpList {
    list: KVVec<Unexp>,
    /// Payload bytes held.
    bytes: usize,
    /// `TagQueues::tag_posts` when the list was last matched: all of it is
    /// looked at again only after new tagged receives.
    seen: u64,
    /// The first `checked` messages were matched against the receives
    /// posted up to `seen`; the ones after them joined since, and are
    /// matched (alone: a flood of unexpected messages must not cost a pass
    /// over all of them each) at the next look. A receive posted while a
    /// message's payload was still arriving (after the last look, before
    /// the message was in the list) is found that way. (Found by kfi_tcp's
    /// stress under netem: such a receive waited forever.)
    checked: usize,
    /// The provider's data stream the messages came in (their ACKs are
    /// owed there: [`TagQueues::owe_ack`]).
    stream: u32,
}

impl UnexpList {
    /// An empty list.
    pub(crate) fn new() -> UnexpList {
        UnexpList { list: KVVec::new(), bytes: 0, seen: 0, checked: 0, stream: 0 }
    }

    /// Names the data stream the messages come in (0 until set).
    pub(crate) fn set_stream(&mut self, stream: u32) {
        self.stream = stream;
    }

    /// No message is held.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// One more message of `len` bytes fits under the bounds (`max`
    /// messages, `limit` payload bytes).
    #[inline]
    pub(crate) fn has_room(&self, len: u64, max: usize, limit: usize) -> bool {
        self.list.len() < max && self.bytes.saturating_add(len as usize) <= limit
    }

    /// Reserves the entry of a message whose payload is about to be
    /// received (process context with `GFP_KERNEL`).
    pub(crate) fn reserve(&mut self, flags: Flags) -> core::result::Result<(), AllocError> {
        self.list.reserve(1, flags)
    }

    /// Keeps a message whose entry was reserved; allocates nothing. A
    /// message without a reservation is dropped (`Err`): the caller says
    /// so.
    pub(crate) fn push(&mut self, u: Unexp) -> core::result::Result<(), ()> {
        let len = u.buf.len();
        self.list.push(u, GFP_NOWAIT).map_err(|_| ())?;
        self.bytes += len;
        Ok(())
    }

    /// Whether an unclaimed message matches a receive for `want`/`ignore`
    /// from `filter`.
    #[inline]
    pub(crate) fn any_match(&self, want: u64, ignore: u64, filter: u64) -> bool {
        self.list.iter().any(|u| u.matches(want, ignore, filter))
    }

    /// Drops every message.
    pub(crate) fn clear(&mut self) {
        self.list = KVVec::new();
        self.checked = 0;
        self.bytes = 0;
    }

    /// Takes message `i` off the list.
    fn take(&mut self, i: usize, ep: &impl TagQueues) -> Option<Unexp> {
        let u = base::kvec_remove(&mut self.list, i)?;
        self.bytes = self.bytes.saturating_sub(u.buf.len());
        if u.ack {
            ep.owe_ack(self.stream);
        }
        Some(u)
    }

    /// Delivers messages to receives posted since they came (only looked
    /// at again once new tagged receives were posted); true if any moved.
    pub(crate) fn deliver(&mut self, ep: &impl TagQueues) -> bool {
        let gen = ep.tag_posts();
        let mut i = if gen != self.seen {
            0
        } else if self.checked < self.list.len() {
            self.checked
        } else {
            return false;
        };
        self.seen = gen;
        // Probes are answered when they are posted (a new post: `i` is 0).
        let mut moved = i == 0 && self.answer_probes(ep);
        while i < self.list.len() {
            if self.list[i].claimed.is_some() {
                // Its claim fetches it.
                i += 1;
                continue;
            }
            let (tag, src) = (self.list[i].tag, self.list[i].src);
            // Earlier messages matching the receive come first.
            let earlier = &self.list[..i];
            let older = |want: u64, ignore: u64, filter: u64| earlier.iter().any(|u| u.matches(want, ignore, filter));
            let Ok(Some(w)) = ep.rx_take_tagged(tag, src, older) else {
                i += 1;
                continue;
            };
            let Some(u) = self.take(i, ep) else {
                break;
            };
            complete(ep, &w, &u.buf, u.data, tag);
            moved = true;
        }
        self.checked = self.list.len();
        moved
    }

    /// Takes the receive of a tagged message with `tag` from `from` that
    /// has just come: the messages kept before it get their receives
    /// first (one posted between two looks is tried again, a few times).
    /// `None` if no receive matches it: the caller keeps it, or lets it
    /// wait.
    pub(crate) fn take_tagged(&mut self, ep: &impl TagQueues, tag: u64, from: u64) -> Option<RxWork> {
        for _ in 0..4 {
            self.deliver(ep);
            let me = &*self;
            if let Ok(w) = ep.rx_take_tagged(tag, from, |want, ignore, filter| me.any_match(want, ignore, filter)) {
                return w;
            }
        }
        None
    }

    /// Answers the posted probes, oldest first (fi_tagged(3)):
    /// - `KFI_PEEK`: the oldest unclaimed match completes the probe with
    ///   its length, tag and CQ data (no data is copied); with
    ///   `KFI_CLAIM` it is kept for the claim with the same context, with
    ///   `KFI_DISCARD` it is dropped; no match: `KFI_ENOMSG`.
    /// - `KFI_CLAIM` alone: the message claimed with that context is
    ///   received into the buffer (with `KFI_DISCARD`: dropped, length 0);
    ///   none: `KFI_ENOMSG`.
    ///
    /// A message not in the list yet (still arriving, or not sent) is not
    /// seen: its peek fails.
    fn answer_probes(&mut self, ep: &impl TagQueues) -> bool {
        let mut moved = false;
        while let Some(mut w) = ep.take_probe() {
            moved = true;
            let f = w.op.flags;
            let ctx = w.op.context;
            let at = if f & rules::F_PEEK != 0 {
                self.list.iter().position(|u| u.matches(w.op.tag, w.op.ignore, w.op.src))
            } else {
                self.list.iter().position(|u| u.claimed == Some(ctx))
            };
            let Some(at) = at else {
                ep.rx_failed(&w, bindings::ENOMSG, 0, 0);
                continue;
            };
            let (tag, data, len) = {
                let u = &self.list[at];
                w.from = u.src;
                (u.tag, u.data, u.buf.len() as u64)
            };
            if f & rules::F_PEEK != 0 && f & rules::F_DISCARD == 0 {
                if f & rules::F_CLAIM != 0 {
                    self.list[at].claimed = Some(ctx);
                }
                ep.rx_done(&w, len, data, tag);
                continue;
            }
            // Taken off the list: received (a claim) or dropped.
            let Some(u) = self.take(at, ep) else {
                break;
            };
            if f & rules::F_DISCARD != 0 {
                ep.rx_done(&w, if f & rules::F_PEEK != 0 { len } else { 0 }, data, tag);
            } else {
                complete(ep, &w, &u.buf, data, tag);
            }
        }
        moved
    }
}

/// Copies a held message into its receive and completes it; one longer
/// than the receive fails it alone with `KFI_ETRUNC` (the stream is
/// intact).
fn complete(ep: &impl TagQueues, w: &RxWork, buf: &[u8], data: Option<u64>, tag: u64) {
    let len = buf.len() as u64;
    if len > w.room {
        base::copy_to_segs(w.op.buf.segs(), 0, &buf[..w.room as usize]);
        ep.rx_failed(w, sys::KFI_ETRUNC, w.room, len - w.room);
    } else {
        base::copy_to_segs(w.op.buf.segs(), 0, buf);
        ep.rx_done(w, len, data, tag);
    }
}
