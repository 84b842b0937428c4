// SPDX-License-Identifier: GPL-2.0
//! Owned kernel TCP sockets (`kfi_tcp_sock.c` does the socket calls).
//!
//! A [`Sock`] owns one socket. Its owner may [`Sock::install`] a wake
//! function: the socket callbacks (softirq) then only call it, and it only
//! queues the owner's work item. [`Sock::detach`] restores the socket's own
//! callbacks; after it returns the wake function is not running and will
//! not run again. Dropping a `Sock` detaches, then closes the socket.

use crate::ffi::sys;
use crate::util::addr::SockAddr;
use core::ffi::{c_int, c_void, CStr};
use core::ptr::NonNull;
use kernel::prelude::*;

/// What the TCP state machine says about a socket.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum SkState {
    Connecting,
    Established,
    Listening,
    /// Closed or closing; with the pending socket error (negative errno),
    /// 0 when it closed cleanly.
    Closed(c_int),
}

/// An owned socket.
///
/// # Invariants
/// `sk` was returned by `kfi_tcp_sk_create`/`kfi_tcp_sk_accept` and is
/// released exactly once, by `drop`.
pub(crate) struct Sock {
    sk: NonNull<sys::kfi_tcp_sk>,
}

// SAFETY: a socket may be used from any process context; the C side
// serialises on the socket lock.
unsafe impl Send for Sock {}
// SAFETY: every method is safe to call concurrently (socket lock inside).
unsafe impl Sync for Sock {}

fn check(ret: c_int) -> Result {
    if ret < 0 {
        Err(Error::from_errno(ret))
    } else {
        Ok(())
    }
}

fn from_raw(sk: *mut sys::kfi_tcp_sk) -> Result<Sock> {
    NonNull::new(sk).map(|sk| Sock { sk }).ok_or(ENOMEM)
}

impl Sock {
    /// A new unconnected socket in the namespace `net` (a fabric's) for
    /// addresses like `like` (IPv4 or IPv6; an IPv6 socket is V6ONLY).
    pub(crate) fn create(net: *mut c_void, like: &SockAddr) -> Result<Sock> {
        let mut sk = core::ptr::null_mut();
        // SAFETY: `net` is a namespace referenced by the calling fabric.
        check(unsafe { sys::kfi_tcp_sk_create(net, c_int::from(like.family), &mut sk) })?;
        from_raw(sk)
    }

    fn raw(&self) -> *mut sys::kfi_tcp_sk {
        self.sk.as_ptr()
    }

    /// Binds to `addr` and listens.
    pub(crate) fn listen(&self, addr: &SockAddr, backlog: i32) -> Result {
        // SAFETY: our live socket (invariant); `addr` is a valid address.
        check(unsafe { sys::kfi_tcp_sk_listen(self.raw(), addr, backlog) })
    }

    /// A pending connection of a listening socket, `None` if none.
    pub(crate) fn accept(&self) -> Result<Option<Sock>> {
        let mut sk = core::ptr::null_mut();
        // SAFETY: our live socket (invariant).
        match unsafe { sys::kfi_tcp_sk_accept(self.raw(), &mut sk) } {
            0 => from_raw(sk).map(Some),
            e if e == -(kernel::bindings::EAGAIN as c_int) => Ok(None),
            e => Err(Error::from_errno(e)),
        }
    }

    /// Starts connecting to `dst` (bound to `src` first if given). The
    /// outcome arrives through the wake function: install it first.
    pub(crate) fn connect(&self, src: Option<&SockAddr>, dst: &SockAddr) -> Result {
        let src = src.map_or(core::ptr::null(), |s| s as *const SockAddr);
        // SAFETY: our live socket; `src` is NULL or valid, `dst` valid.
        let ret = unsafe { sys::kfi_tcp_sk_connect(self.raw(), src, dst) };
        if ret == -(kernel::bindings::EINPROGRESS as c_int) {
            return Ok(());
        }
        check(ret)
    }

    /// Routes the socket callbacks to `wake(ctx)`.
    ///
    /// # Safety
    /// `ctx` stays valid for `wake` until [`Sock::detach`] returned or the
    /// socket is dropped; `wake` must not sleep (softirq context).
    pub(crate) unsafe fn install(&self, wake: unsafe extern "C" fn(*mut c_void), ctx: *mut c_void) {
        // SAFETY: our live socket; the contract on `ctx` is the caller's.
        unsafe { sys::kfi_tcp_sk_install(self.raw(), Some(wake), ctx) }
    }

    /// Restores the socket's own callbacks (idempotent).
    pub(crate) fn detach(&self) {
        // SAFETY: our live socket.
        unsafe { sys::kfi_tcp_sk_detach(self.raw()) }
    }

    /// Shuts both directions down: the peer reads end of stream.
    pub(crate) fn shutdown(&self) {
        // SAFETY: our live socket.
        unsafe { sys::kfi_tcp_sk_shutdown(self.raw()) }
    }

    /// The TCP state (and pending error, which this clears).
    pub(crate) fn state(&self) -> SkState {
        let mut err = 0;
        // SAFETY: our live socket.
        match unsafe { sys::kfi_tcp_sk_state(self.raw(), &mut err) } as u32 {
            sys::KFI_TCP_SK_CONNECTING if err == 0 => SkState::Connecting,
            sys::KFI_TCP_SK_ESTABLISHED if err == 0 => SkState::Established,
            sys::KFI_TCP_SK_LISTEN => SkState::Listening,
            _ => SkState::Closed(err),
        }
    }

    /// True once a receive that finds no more data reports the end of
    /// stream or an error instead of `EAGAIN` (a lockless look).
    pub(crate) fn rx_ended(&self) -> bool {
        // SAFETY: our live socket.
        unsafe { sys::kfi_tcp_sk_rx_ended(self.raw()) }
    }

    /// Our address (`peer` false) or the peer's.
    pub(crate) fn name(&self, peer: bool) -> Result<SockAddr> {
        // SAFETY: all-zero is a valid address.
        let mut a: SockAddr = unsafe { core::mem::zeroed() };
        // SAFETY: our live socket; `a` is writable.
        check(unsafe { sys::kfi_tcp_sk_name(self.raw(), &mut a, peer) })?;
        Ok(a)
    }

    /// Trace event kfi_conn for the connection `conn` (of endpoint `ep`)
    /// going from `from` to `to`, with this socket's peer address. Any
    /// context; a load and a branch when nobody traces.
    pub(crate) fn trace_conn(&self, conn: *const c_void, ep: *const c_void, from: &CStr, to: &CStr) {
        if crate::util::trace::on(crate::util::trace::Event::Conn) {
            // SAFETY: our live socket; the strings are NUL-terminated and
            // copied by the event.
            unsafe { sys::kfi_tcp_tp_conn(self.raw(), conn, ep, from.as_ptr(), to.as_ptr()) };
        }
    }

    /// Sends up to `len` bytes of `segs` after the first `skip`, without
    /// blocking: the bytes taken, or `EAGAIN` when the socket is full.
    /// `splice`: the memory stays unchanged until the peer has received
    /// it, so its pages may be passed by reference (zero copy) rather
    /// than copied (see `kfi_tcp_sk_send`). Process context.
    pub(crate) fn send(&self, segs: &[sys::kfi_util_seg], skip: usize, len: usize, more: bool, splice: bool) -> Result<usize> {
        // With `splice` the caller keeps the memory unchanged until the
        // peer has it; the pages stay alive through the socket's references.
        // SAFETY: our live socket; `segs` describe memory valid for the
        // call (kernel virtual ranges or pages owned by the caller).
        bytes(unsafe { sys::kfi_tcp_sk_send(self.raw(), segs.as_ptr(), segs.len() as c_int, skip, len, more, splice) })
    }

    /// As [`Sock::send`], from any context but hard interrupts, never
    /// sleeping: `EBUSY` when a process owns the socket (then the caller
    /// leaves the work to process context).
    pub(crate) fn try_send(&self, segs: &[sys::kfi_util_seg], skip: usize, len: usize, more: bool, splice: bool) -> Result<usize> {
        // SAFETY: as in `send`.
        bytes(unsafe { sys::kfi_tcp_sk_try_send(self.raw(), segs.as_ptr(), segs.len() as c_int, skip, len, more, splice) })
    }

    /// Receives up to `len` (> 0) bytes into `segs` after the first
    /// `skip`, without blocking: the bytes received, 0 at end of stream,
    /// or `EAGAIN` when nothing is there. Process context.
    pub(crate) fn recv(&self, segs: &[sys::kfi_util_seg], skip: usize, len: usize) -> Result<usize> {
        // SAFETY: as in `send`; the segments are writable.
        bytes(unsafe { sys::kfi_tcp_sk_recv(self.raw(), segs.as_ptr(), segs.len() as c_int, skip, len) })
    }

    /// As [`Sock::recv`], from any context but hard interrupts, never
    /// sleeping: `EBUSY` when a process owns the socket.
    pub(crate) fn try_recv(&self, segs: &[sys::kfi_util_seg], skip: usize, len: usize) -> Result<usize> {
        // SAFETY: as in `recv`.
        bytes(unsafe { sys::kfi_tcp_sk_try_recv(self.raw(), segs.as_ptr(), segs.len() as c_int, skip, len) })
    }
}

/// A byte count or a negative errno, as the C side returns them.
fn bytes(n: isize) -> Result<usize> {
    if n < 0 {
        Err(Error::from_errno(n as c_int))
    } else {
        Ok(n as usize)
    }
}

impl Drop for Sock {
    fn drop(&mut self) {
        // SAFETY: released once (invariant); detaches first.
        unsafe { sys::kfi_tcp_sk_release(self.raw()) }
    }
}

/// A segment over a kernel virtual range (a header buffer, a kvec).
pub(crate) fn kseg(buf: &[u8]) -> sys::kfi_util_seg {
    // SAFETY: all-zero is a valid segment.
    let mut s: sys::kfi_util_seg = unsafe { core::mem::zeroed() };
    s.base = buf.as_ptr() as *mut c_void;
    s.len = buf.len();
    s
}

/// A segment over a writable kernel virtual range (a receive buffer).
pub(crate) fn kseg_mut(buf: &mut [u8]) -> sys::kfi_util_seg {
    // SAFETY: all-zero is a valid segment.
    let mut s: sys::kfi_util_seg = unsafe { core::mem::zeroed() };
    s.base = buf.as_mut_ptr().cast();
    s.len = buf.len();
    s
}
