// SPDX-License-Identifier: GPL-2.0
//! Soft mode's receive side (`ep_attr->protocol_version` 2; the wire is
//! `logic/proto.rs`): the endpoint's bounce buffers on the receive queue,
//! and the receive work (process context, the provider's workqueue) that
//! takes their completions in order, matches each message to a posted
//! receive (tagged or untagged, multi-receive buffers carved), copies it
//! out, and reposts the buffer. A tagged message no receive matches is
//! kept as unexpected (the toolkit's `UnexpList`, bounded as kfi_tcp's)
//! and delivered to a later receive or probe. A message that cannot go
//! anywhere yet (no untagged receive, no CQ slot, the unexpected bounds
//! reached) stays in its bounce buffer, not reposted: the work waits, and
//! the peer is held back by credits (`logic/proto.rs`: it sends only into
//! buffers we posted and told it of). A peer's RDMA write with immediate
//! data consumes a bounce buffer: its entry is the write's
//! (`KFI_REMOTE_CQ_DATA`, no receive consumed, as kfi_tcp reports it).
//!
//! A message longer than its receive fails that receive alone
//! (`KFI_ETRUNC`, what fits delivered); the connection goes on. A chunk
//! that breaks the protocol (bad header, out of sequence, too long) ends
//! the connection.
//!
//! # Locks
//! `Ep::soft` (mutex): the receive state, held by the work and by the
//! endpoint's CM paths (posting the bounce buffers, failing the message
//! being received when the connection ends); taken before the queues' `q`
//! (which the toolkit's calls take inside).

use crate::ep::Ep;
use crate::logic::proto::{self, Assembly, Hdr, Op, BOUNCE_LEN, HDR_LEN};
use crate::util::logic::xfer as rules;
use crate::util::base;
use crate::util::ep::ProvEp;
use crate::util::queues::{NoRoom, Room};
use crate::util::tagmatch::{Unexp, UnexpList, UNEXP_LIMIT, UNEXP_MAX};
use crate::util::xfer::RxWork;
use crate::xfer::{BounceWc, NBOUNCE};
use core::ffi::c_void;
use kernel::alloc::KVVec;
use kernel::bindings;
use kernel::prelude::*;

/// Where the message being received goes.
enum Dest {
    /// A posted receive (maybe too small: truncation).
    Op(RxWork),
    /// Its own buffer: an unexpected tagged message.
    Unexp(KVVec<u8>),
}

/// The message being received.
struct Msg {
    hdr: Hdr,
    asm: Assembly,
    dest: Dest,
}

/// The receive state of a soft-mode endpoint (under `Ep::soft`).
pub(crate) struct SoftRx {
    /// The bounce buffers (kmalloc'ed, [`BOUNCE_LEN`] bytes each), from
    /// enable to the endpoint's free; buffer `i` uses receive work
    /// request context `i`.
    bufs: KVec<KVec<u8>>,
    unexp: UnexpList,
    cur: Option<Msg>,
}

impl SoftRx {
    /// The state of a direct-mode endpoint, or of one not enabled yet.
    pub(crate) fn new() -> SoftRx {
        SoftRx { bufs: KVec::new(), unexp: UnexpList::new(), cur: None }
    }
}

/// What one bounce completion came to.
enum Step {
    /// Handled: the buffer goes back to the receive queue.
    Done,
    /// Cannot go anywhere yet: left as it is (the work waits).
    Wait,
    /// Failed or flushed: the connection is ending; not reposted.
    Drop,
    /// The peer broke the protocol: the connection ends.
    Broken,
}

impl Ep {
    /// Soft mode, at enable: allocates the bounce buffers (process
    /// context); where they are, for `SoftTx` (they stay there until the
    /// endpoint is freed).
    pub(crate) fn soft_alloc(&self) -> Result<[*const u8; NBOUNCE]> {
        let mut g = self.soft.lock();
        let mut bufs = KVec::with_capacity(NBOUNCE, GFP_KERNEL)?;
        let mut at = [core::ptr::null(); NBOUNCE];
        for p in at.iter_mut() {
            let b: KVec<u8> = base::zeroed_bytes(BOUNCE_LEN, GFP_KERNEL)?;
            *p = b.as_ptr();
            bufs.push(b, GFP_KERNEL)?;
        }
        g.bufs = bufs;
        Ok(at)
    }

    /// Soft mode, the queue pair exists: every bounce buffer goes to the
    /// receive queue (process context). One the device refuses is
    /// retried for a while (siw while its queue pair changes state), then
    /// left out.
    pub(crate) fn soft_post_all(&self) {
        let mut g = self.soft.lock();
        for (i, b) in g.bufs.iter_mut().enumerate() {
            for _ in 0..100 {
                // SAFETY: the buffer is not posted (this runs once, when
                // the queue pair is new) and lives in the endpoint, freed
                // after its close (which closes the connection first).
                match unsafe { self.data().post_bounce(i, b, false) } {
                    Err(e) if e == -(bindings::EAGAIN as isize) => base::sleep_briefly(),
                    _ => break,
                }
            }
        }
    }

    /// Soft mode, the connection ended (after the toolkit's lists were
    /// flushed, so the work takes no receive any more): the receive a
    /// message was going into fails with `err` (unless `err` is 0: the
    /// endpoint closes, its reservation is returned by the close) and the
    /// unexpected messages are dropped.
    pub(crate) fn soft_down(&self, err: u32) {
        let mut g = self.soft.lock();
        let cur = g.cur.take();
        g.unexp.clear();
        drop(g);
        if let (Some(Msg { dest: Dest::Op(w), .. }), true) = (cur, err != 0) {
            self.data().rx_failed(&w, err, 0, 0);
        }
    }

    /// The receive work: handles the bounce completions in order.
    fn soft_run(&self) {
        let ep = self.data();
        let mut g = self.soft.lock();
        let s = &mut *g;
        s.unexp.deliver(ep);
        let mut waiting = false;
        loop {
            let Some(front) = ep.bounce_front() else {
                // Closed.
                return;
            };
            let Some(wc) = front else {
                break;
            };
            match self.soft_step(s, &wc) {
                Step::Done => {
                    ep.bounce_pop();
                    let i = wc.idx as usize;
                    if let Some(b) = s.bufs.get_mut(i) {
                        // SAFETY: handled, so not posted; it lives in the
                        // endpoint (see `soft_post_all`).
                        let _ = unsafe { ep.post_bounce(i, b, true) };
                    }
                }
                Step::Drop => ep.bounce_pop(),
                Step::Wait => {
                    waiting = true;
                    break;
                }
                Step::Broken => {
                    ep.bounce_pop();
                    self.conn().broken();
                    break;
                }
            }
        }
        let held = !s.unexp.is_empty();
        drop(g);
        ep.rx_idle(waiting || held);
    }

    /// Handles one bounce completion.
    fn soft_step(&self, s: &mut SoftRx, wc: &BounceWc) -> Step {
        let ep = self.data();
        if !wc.ok {
            return Step::Drop;
        }
        if wc.write_imm {
            // A peer's write with CQ data: the entry is the write's.
            return match ep.take_remote_room() {
                Room::Taken => {
                    ep.remote_write_data(wc.len as u64, wc.imm as u64);
                    Step::Done
                }
                Room::Full => Step::Wait,
                Room::NoCq => Step::Done,
            };
        }
        let Some(buf) = s.bufs.get(wc.idx as usize) else {
            return Step::Broken;
        };
        let bytes = &buf[..(wc.len as usize).min(buf.len())];
        let Ok(hdr) = proto::decode(bytes) else {
            return Step::Broken;
        };
        let payload = &bytes[HDR_LEN..];
        match (&s.cur, hdr.op) {
            // A grant alone (counted as it completed), also between the
            // chunks of a message.
            (_, Op::Credit) => return Step::Done,
            (None, Op::Msg) => match self.soft_start(&mut s.unexp, hdr) {
                Some(Ok(m)) => s.cur = Some(m),
                Some(Err(())) => return Step::Broken,
                None => return Step::Wait,
            },
            (Some(_), Op::Cont) => {}
            _ => return Step::Broken,
        }
        let Some(m) = s.cur.as_mut() else {
            return Step::Broken;
        };
        let Ok(p) = m.asm.take(payload.len()) else {
            return Step::Broken;
        };
        let src = &payload[..p.copy];
        match &mut m.dest {
            Dest::Op(w) => {
                base::copy_to_segs(w.op.buf.segs(), (w.offset + p.at) as usize, src);
            }
            Dest::Unexp(b) => {
                let at = p.at as usize;
                b[at..at + src.len()].copy_from_slice(src);
            }
        }
        if p.last {
            if let Some(m) = s.cur.take() {
                self.soft_finish(&mut s.unexp, m);
            }
        }
        Step::Done
    }

    /// Finds where a new message goes: `None` if nowhere yet (it waits),
    /// `Some(Err(()))` without memory for an unexpected one (the
    /// connection ends, as kfi_tcp's does: no message is dropped).
    fn soft_start(&self, unexp: &mut UnexpList, hdr: Hdr) -> Option<core::result::Result<Msg, ()>> {
        let ep = self.data();
        let len = hdr.len as u64;
        let w = if hdr.tagged {
            // Messages that came earlier get their receives first.
            unexp.take_tagged(ep, hdr.tag, rules::ADDR_ANY)
        } else {
            match ep.rx_take_msg(len, rules::ADDR_ANY, 0) {
                Ok(Some(w)) => Some(w),
                Ok(None) | Err(NoRoom) => return None,
            }
        };
        let dest = match w {
            Some(w) => {
                let room = w.room;
                return Some(Ok(Msg { hdr, asm: Assembly::new(len, room), dest: Dest::Op(w) }));
            }
            None if unexp.has_room(len, UNEXP_MAX, UNEXP_LIMIT) => {
                // Room for its list entry first, so that keeping it once
                // its bytes are in cannot fail.
                if unexp.reserve(GFP_KERNEL | __GFP_NOWARN).is_err() {
                    return Some(Err(()));
                }
                match base::zeroed_bytes(len as usize, GFP_KERNEL | __GFP_NOWARN) {
                    Ok(b) => Dest::Unexp(b),
                    Err(_) => return Some(Err(())),
                }
            }
            None => return None,
        };
        Some(Ok(Msg { hdr, asm: Assembly::new(len, len), dest }))
    }

    /// A message is whole: its receive completes (or fails truncated), or
    /// it joins the unexpected ones (delivered to a receive posted while
    /// it came).
    fn soft_finish(&self, unexp: &mut UnexpList, m: Msg) {
        let ep = self.data();
        match m.dest {
            Dest::Op(w) if m.asm.truncated() => {
                ep.rx_failed(&w, crate::ffi::sys::KFI_ETRUNC, m.asm.room, m.asm.total - m.asm.room);
            }
            Dest::Op(w) => ep.rx_done(&w, m.asm.total, m.hdr.data, m.hdr.tag),
            Dest::Unexp(buf) => {
                let u = Unexp { tag: m.hdr.tag, src: rules::ADDR_ANY, data: m.hdr.data, ack: false, buf, claimed: None };
                // Within the room reserved when it started: allocates
                // nothing.
                if unexp.push(u).is_err() {
                    pr_warn!("kfi_verbs: dropped an unexpected tagged message (no memory)\n");
                }
                unexp.deliver(ep);
            }
        }
    }
}

/// The receive work's entry (`DWork`, process context).
///
/// # Safety
/// `ctx` is the endpoint the work was made for; the work is stopped
/// (`DWork` dropped, waiting for a running call) before the endpoint is
/// freed.
pub(crate) unsafe extern "C" fn soft_work(ctx: *mut c_void) {
    // SAFETY: by the contract above.
    let ep = unsafe { &*ctx.cast::<Ep>() };
    ep.soft_run();
}
