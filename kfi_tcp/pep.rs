// SPDX-License-Identifier: GPL-2.0
//! Passive endpoints (`kfi_passive_ep`, `kfi_listen`, `kfi_reject`): the
//! transport's part. The passive endpoint object, its EQ, its requests
//! not taken yet and its entries are the toolkit's (`kfi_util/pep.rs`,
//! `PepBase` first in [`Pep`]); kfi_tcp implements `ProvPep`.
//!
//! A listening pep owns a [`Listener`]: a socket whose callbacks queue a
//! work item that accepts connections. Each accepted connection reads the
//! peer's connreq in its own work item, then [`Pep::report`]s it through
//! the toolkit (the request, `info->handle` of the `KFI_CONNREQ` event,
//! carries the connection). The consumer then either opens an endpoint
//! with that info (the endpoint takes the connection: `ConnReq::take`) or
//! rejects it (a nack with the CM data goes to the peer); a request that
//! is neither is dropped when the pep closes (the connection just closes).
//!
//! # Locks
//! `lst` (mutex; pep calls and work items, all process context): the
//! listener and the connections not reported yet. Taken after the base's
//! `state` (a report forgets its connection under both), never held while
//! calling the toolkit.

use crate::conn::Conn;
use crate::rdm::Rdm;
use crate::ffi::{self, kfi_info, sys};
use crate::sock::Sock;
use crate::util::addr::{self, SockAddr};
use crate::util::base;
use crate::util::fabric::Fabric;
use crate::util::pep::{pep_info, publish_pep, PepBase, ProvPep};
use core::ffi::{c_int, c_void};
use core::sync::atomic::{AtomicBool, Ordering};
use kernel::bindings;
use kernel::prelude::*;
use kernel::sync::{Arc, ArcBorrow, Mutex};
use kernel::workqueue::{Work, WorkItem};
use kernel::{impl_has_work, new_mutex, new_work};

/// Listen backlog.
const BACKLOG: i32 = 128;

/// Connections a listener accepts per run of its work item.
const ACCEPT_BUDGET: usize = 16;
/// After a failed accept (no memory for the new socket: the connection
/// stays in the backlog, and no callback will come for it), look again
/// this much later.
const ACCEPT_RETRY_MS: u32 = 20;

/// What `lst` protects.
struct Lst {
    listener: Option<Arc<Listener>>,
    /// Accepted connections whose request is not reported yet.
    pending: KVec<Arc<Conn>>,
    /// Set by close: nothing is added any more.
    closing: bool,
}

/// A passive endpoint: the consumer sees its base's header.
#[pin_data]
#[repr(C)]
pub(crate) struct Pep {
    /// The toolkit's part; first.
    #[pin]
    base: PepBase,
    /// Address to listen on (`PepAttrs::src`).
    src: SockAddr,
    #[pin]
    lst: Mutex<Lst>,
}

/// Whom a listener hands its connections.
#[derive(Clone, Copy)]
pub(crate) enum Listen {
    /// A passive endpoint: the consumer answers their requests.
    Pep(*const Pep),
    /// A connectionless endpoint: it answers them itself.
    Rdm(*const Rdm),
}

/// The accepting socket of a listening pep or connectionless endpoint.
#[pin_data]
pub(crate) struct Listener {
    #[pin]
    work: Work<Listener>,
    sock: Sock,
    to: Listen,
    stopping: AtomicBool,
    /// Queues the work item again after a failed accept.
    retry: base::Timer,
}

impl_has_work! {
    impl HasWork<Self> for Listener { self.work }
}

// SAFETY: the pep or endpoint of `to` outlives the listener's use of it
// (it stops the listener before it goes); the socket is Send + Sync.
unsafe impl Send for Listener {}
// SAFETY: as above.
unsafe impl Sync for Listener {}


/// Socket callback target of a listener.
///
/// # Safety
/// `ctx` is `Arc::as_ptr` of a listener whose pep holds a reference until
/// the callbacks are detached.
/// Also the callback of the listener's retry timer (softirq), which the
/// listener cancels before its pep lets go of it.
unsafe extern "C" fn listener_wake(ctx: *mut c_void) {
    // SAFETY: alive and referenced by its pep (contract above).
    let l: Arc<Listener> = unsafe { ArcBorrow::from_raw(ctx.cast::<Listener>().cast_const()) }.into();
    let _ = base::queue().enqueue(l);
}

impl Listener {
    /// Listens on `src` in namespace `net` for `to`. The owner keeps the
    /// listener until it [`Listener::stop`]s it.
    pub(crate) fn start(net: *mut c_void, src: &SockAddr, to: Listen) -> Result<Arc<Listener>> {
        let s = Sock::create(net, src)?;
        // SAFETY: `listener_wake` does not sleep; its argument is set
        // below, before the timer can be armed (only the work item arms
        // it), and the timer is cancelled in `stop`.
        let retry = unsafe { base::Timer::new(listener_wake, core::ptr::null_mut()) }?;
        let l = Arc::pin_init(
            pin_init!(Listener {
                work <- new_work!("kfi_tcp_listener"),
                sock: s,
                to,
                stopping: AtomicBool::new(false),
                retry,
            }),
            GFP_KERNEL,
        )?;
        let ctx = (&*l as *const Listener).cast_mut().cast();
        // SAFETY: the owner holds `l` until it stops it (cancelling the
        // timer); not armed yet.
        unsafe { l.retry.set_ctx(ctx) };
        // SAFETY: the owner holds `l` until it stops it (detaching first).
        unsafe { l.sock.install(listener_wake, ctx) };
        if let Err(e) = l.sock.listen(src, BACKLOG) {
            l.stop();
            return Err(e);
        }
        Ok(l)
    }

    /// Its bound address (with the port chosen at listen).
    pub(crate) fn name(&self) -> Result<SockAddr> {
        self.sock.name(false)
    }

    /// Stops accepting, for good: no callback, no work after it returns.
    pub(crate) fn stop(&self) {
        self.stopping.store(true, Ordering::Release);
        self.sock.detach();
        // SAFETY: our initialised work item; after the flush it is idle
        // and, `stopping` being set, never requeued nor arms the timer.
        unsafe { bindings::flush_work(Work::raw_get(&self.work)) };
        self.retry.cancel_sync();
        // SAFETY: as above; a run the timer queued before it was
        // cancelled sees `stopping`.
        unsafe { bindings::flush_work(Work::raw_get(&self.work)) };
    }

    /// Accepting failed: try again later (the connection waits in the
    /// backlog; its peer sees a slow accept, not a hang).
    fn retry_later(&self) {
        if !self.stopping.load(Ordering::Acquire) {
            self.retry.arm(kernel::time::msecs_to_jiffies(ACCEPT_RETRY_MS) as u64);
        }
    }
}

impl WorkItem for Listener {
    type Pointer = Arc<Listener>;

    fn run(this: Arc<Listener>) {
        for _ in 0..ACCEPT_BUDGET {
            if this.stopping.load(Ordering::Acquire) {
                return;
            }
            // An injected failure stands for the accept's own allocations.
            let s = match ffi::fail_alloc().and_then(|()| this.sock.accept()) {
                Ok(Some(s)) => s,
                // Nothing pending: wait for the next callback.
                Ok(None) => return,
                Err(_) => {
                    this.retry_later();
                    return;
                }
            };
            let pep = match this.to {
                // SAFETY: the pep stops us before it goes.
                Listen::Pep(p) => unsafe { &*p },
                Listen::Rdm(r) => {
                    // SAFETY: the endpoint stops us before it goes.
                    unsafe { &*r }.accepted(|m| Conn::accepted(s, crate::conn::Owner::RdmReq(m)));
                    continue;
                }
            };
            let Ok(c) = Conn::accepted(s, crate::conn::Owner::Pep(pep)) else {
                continue;
            };
            let mut g = pep.lst.lock();
            if g.closing || ffi::fail_alloc().is_err() || g.pending.push(c.clone(), GFP_KERNEL).is_err() {
                drop(g);
                c.stop();
                continue;
            }
            drop(g);
            c.kick();
        }
        if !this.stopping.load(Ordering::Acquire) {
            let _ = base::queue().enqueue(this);
        }
    }
}

impl Pep {
    /// Reports a connection's request (called by its work item, once):
    /// the toolkit lists the request, forgets the connection as
    /// unreported here, and posts `KFI_CONNREQ` with the peer's CM data.
    /// An error means the connection must close (it stays listed as
    /// unreported: the pep's close stops it).
    pub(crate) fn report(&self, c: &Conn, data: &[u8]) -> Result {
        let local = c.name(false)?;
        let peer = c.name(true)?;
        let conn = {
            let g = self.lst.lock();
            g.pending.iter().find(|p| core::ptr::eq(&***p, c)).cloned().ok_or(EINVAL)?
        };
        let forget = || {
            let mut g = self.lst.lock();
            if let Some(i) = g.pending.iter().position(|p| core::ptr::eq(&**p, c)) {
                base::kvec_remove(&mut g.pending, i);
            }
        };
        self.base
            .report(conn, addr::logic_addr(&local), addr::logic_addr(&peer), data, crate::prov::fill, forget)
            .map_err(|(e, _conn)| e)
    }
}

// SAFETY: `Pep` is `#[repr(C)]` with its `PepBase` first, allocated with
// `KBox` by `kfi_prov_fabric_passive_ep` and published by `publish_pep`
// only.
unsafe impl ProvPep for Pep {
    type Req = Arc<Conn>;

    const CM_DATA_MAX: usize = crate::wire::cm::MAX_CM_DATA;

    /// -EINVAL if already listening, the socket's errno (-EADDRINUSE...)
    /// otherwise.
    fn listen(&self) -> Result {
        let mut g = self.lst.lock();
        if g.listener.is_some() || g.closing {
            return Err(EINVAL);
        }
        // SAFETY: the fabric outlives its counted children.
        let net = unsafe { Fabric::net(self.base.fabric()) };
        g.listener = Some(Listener::start(net, &self.src, Listen::Pep(self))?);
        Ok(())
    }

    /// Its bound address (the port chosen at listen).
    fn name(&self) -> Result<SockAddr> {
        match self.lst.lock().listener.as_ref() {
            Some(l) => l.name(),
            None => Ok(self.src),
        }
    }

    /// Stops listening, then the connections not reported (their work
    /// may be reporting right now: stop waits, and the toolkit refuses
    /// the report of a closing pep).
    fn closing(&self) {
        let listener = {
            let mut g = self.lst.lock();
            g.closing = true;
            g.listener.take()
        };
        if let Some(l) = listener {
            l.stop();
        }
        // No connection is added any more.
        let pending = core::mem::replace(&mut self.lst.lock().pending, KVec::new());
        for c in pending.iter() {
            c.stop();
        }
    }

    /// Sends a nack with `data` and closes the connection.
    fn reject(c: Arc<Conn>, data: &[u8]) -> Result {
        let r = c.reject(data);
        c.stop();
        r
    }

    /// The connection just closes.
    fn drop_req(c: Arc<Conn>) {
        c.stop();
    }
}

/// `passive_ep` of a fabric: a pep that will listen on `info->src_addr`
/// (any address of the info's family and an ephemeral port when none is
/// given).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_prov_fabric_passive_ep(
    fabric: *mut sys::kfid_fabric,
    info: *mut kfi_info,
    pep: *mut *mut sys::kfid_pep,
    context: *mut c_void,
) -> c_int {
    // SAFETY: NULL or valid by the API contract.
    let attrs = match unsafe { pep_info(fabric, info, pep) } {
        Ok(a) => a,
        Err(e) => return e,
    };
    let init = pin_init!(Pep {
        // SAFETY: our fabric ops table passes our fabrics (checked
        // non-NULL).
        base <- unsafe { PepBase::new(fabric, attrs) },
        src: attrs.src,
        lst <- new_mutex!(Lst { listener: None, pending: KVec::new(), closing: false }, "kfi_tcp_pep"),
    });
    let Ok(b) = KBox::pin_init(init, GFP_KERNEL) else {
        return base::neg(kernel::bindings::ENOMEM);
    };
    // SAFETY: `Pep` meets `ProvPep`'s contract; its base was made for
    // `fabric`, which the consumer holds open; `pep` was checked.
    unsafe { publish_pep(b, context, pep) };
    0
}
