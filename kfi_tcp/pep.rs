// SPDX-License-Identifier: GPL-2.0
//! Passive endpoints (`kfi_passive_ep`, `kfi_listen`, `kfi_reject`) and
//! connection requests.
//!
//! A listening pep owns a [`Listener`]: a socket whose callbacks queue a
//! work item that accepts connections. Each accepted connection reads the
//! peer's connreq in its own work item, then [`Pep::report`]s it: a
//! [`ConnReq`] object (the `info->handle` of the `KFI_CONNREQ` event) is
//! created and the event posted on the pep's EQ. The consumer then either
//! opens an endpoint with that info (the endpoint takes the connection:
//! [`ConnReq::take`]) or rejects it; a request that is neither is
//! dropped when the pep closes. `info->handle` is therefore valid until it
//! is accepted, rejected or its pep closed.
//!
//! # Locks
//! `inner` (mutex; pep calls and work items, all process context): the EQ
//! binding, the listener, the connections not reported yet and the
//! requests not taken yet. It is never held while posting an event (the
//! consumer's handler runs from the post).

use crate::util::base::{self, einval};
use crate::conn::Conn;
use crate::util::eq::Eq;
use crate::util::addr::{self, SockAddr};
use crate::util::fabric::Fabric;
use crate::ffi::{self, kfi_info, sys};
use crate::sock::Sock;
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

struct PepInner {
    eq: Option<*const Eq>,
    listener: Option<Arc<Listener>>,
    /// Accepted connections whose request is not reported yet.
    pending: KVec<Arc<Conn>>,
    /// Reported requests not taken yet (owned here, KBox-allocated).
    reqs: KVec<*mut ConnReq>,
    /// Set by close: nothing is added any more.
    closing: bool,
}

// SAFETY: the raw pointers are owned (requests) or outlive the binding
// (EQ, counted as bound); accessed under the mutex only.
unsafe impl Send for PepInner {}

/// A passive endpoint: the consumer sees `pep`.
#[pin_data]
#[repr(C)]
pub(crate) struct Pep {
    pep: sys::kfid_pep,
    fabric: *mut Fabric,
    /// Address to listen on (from `info->src_addr`, IPv4 or IPv6; if
    /// none, port 0 of 0.0.0.0, or of :: for a `KFI_SOCKADDR_IN6` info).
    src: SockAddr,
    /// `info->tx_attr->op_flags` and `rx_attr->op_flags` of the pep's info:
    /// its connection requests' infos carry them (as libfabric copies the
    /// pep's info into each request), so endpoints accepted from them get
    /// the defaults the consumer asked for.
    op_flags: (u64, u64),
    #[pin]
    inner: Mutex<PepInner>,
}

/// A pending connection request, `info->handle` of a `KFI_CONNREQ`.
#[repr(C)]
pub(crate) struct ConnReq {
    fid: sys::kfid,
    conn: Arc<Conn>,
    pep: *const Pep,
}

/// The accepting socket of a listening pep.
#[pin_data]
pub(crate) struct Listener {
    #[pin]
    work: Work<Listener>,
    sock: Sock,
    pep: *const Pep,
    stopping: AtomicBool,
    /// Queues the work item again after a failed accept.
    retry: base::Timer,
}

impl_has_work! {
    impl HasWork<Self> for Listener { self.work }
}

// SAFETY: `pep` outlives the listener's use of it (the pep stops the
// listener before it goes); the socket is Send + Sync.
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
    fn stop(&self) {
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
            // SAFETY: the pep stops us before it goes.
            let pep = unsafe { &*this.pep };
            let Ok(c) = Conn::accepted(s, pep) else {
                continue;
            };
            let mut g = pep.inner.lock();
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
    /// Recovers a pep from its fid.
    ///
    /// # Safety
    /// `fid` is the fid of a live pep made by `kfi_prov_fabric_passive_ep`.
    unsafe fn from_fid<'a>(fid: *mut sys::kfid) -> &'a Pep {
        // SAFETY: the fid is the first field of the header, itself first.
        unsafe { &*kernel::container_of!(fid, Pep, pep.fid) }
    }

    /// Reports a connection's request (called by its work item): creates
    /// the request object and its info, posts `KFI_CONNREQ` with the
    /// peer's CM data. An error means the connection must close.
    pub(crate) fn report(&self, c: &Conn, data: &[u8]) -> Result {
        let local = c.name(false)?;
        let peer = c.name(true)?;
        let mut g = self.inner.lock();
        let eq = match (g.closing, g.eq) {
            (false, Some(eq)) => eq,
            _ => return Err(Error::from_errno(-(bindings::ESHUTDOWN as c_int))),
        };
        let i = g.pending.iter().position(|p| core::ptr::eq(&**p, c)).ok_or(EINVAL)?;
        ffi::fail_alloc()?;
        let req = KBox::new(
            ConnReq {
                // SAFETY: all-zero is a valid header; filled in below.
                fid: unsafe { core::mem::zeroed() },
                conn: g.pending[i].clone(),
                pep: self,
            },
            GFP_KERNEL,
        )?;
        let req = KBox::into_raw(req);
        // SAFETY: `req` is our fresh object; the glue sets class and ops.
        unsafe { sys::kfi_tcp_glue_connreq_init(&mut (*req).fid) };
        // SAFETY: as above.
        let info = match crate::util::getinfo::connreq_info(crate::prov::fill, addr::logic_addr(&local), addr::logic_addr(&peer), unsafe { &mut (*req).fid }, self.op_flags) {
            Ok(i) => i,
            Err(e) => {
                // SAFETY: never published; freed once.
                drop(unsafe { KBox::from_raw(req) });
                return Err(e);
            }
        };
        if ffi::fail_alloc().is_err() || g.reqs.push(req, GFP_KERNEL).is_err() {
            // SAFETY: never published; freed once each.
            unsafe {
                sys::kfi_freeinfo(info);
                drop(KBox::from_raw(req));
            }
            return Err(ENOMEM);
        }
        base::kvec_remove(&mut g.pending, i);
        drop(g);
        let mut buf = [0u8; 16 + crate::wire::cm::MAX_CM_DATA];
        let n = data.len().min(crate::wire::cm::MAX_CM_DATA);
        buf[..8].copy_from_slice(&(&self.pep.fid as *const sys::kfid as usize as u64).to_ne_bytes());
        buf[8..16].copy_from_slice(&(info as usize as u64).to_ne_bytes());
        buf[16..16 + n].copy_from_slice(&data[..n]);
        // SAFETY: the EQ stays bound (and open) until the pep closes, which
        // waits for this work item.
        if unsafe { &*eq }.post(sys::KFI_CONNREQ, false, &buf[..16 + n]).is_err() {
            // The EQ is full: the request is dropped, the peer sees the
            // connection close.
            // SAFETY: `info` was not handed out.
            unsafe { sys::kfi_freeinfo(info) };
            let req = self.take_req(req).ok_or(EINVAL)?;
            // SAFETY: unlisted by take_req, allocated with KBox.
            let req = unsafe { KBox::from_raw(req) };
            req.conn.stop();
            return Err(EAGAIN);
        }
        Ok(())
    }

    /// Unlists a reported request.
    fn take_req(&self, req: *mut ConnReq) -> Option<*mut ConnReq> {
        let mut g = self.inner.lock();
        let i = g.reqs.iter().position(|r| *r == req)?;
        base::kvec_remove(&mut g.reqs, i)
    }
}

impl ConnReq {
    /// Takes the connection of a request given as `info->handle`: the
    /// request object is freed, the connection becomes the caller's.
    /// `EINVAL` if `handle` is not a pending request.
    ///
    /// # Safety
    /// `handle` is NULL or the handle of a `KFI_CONNREQ` info whose pep is
    /// still open.
    pub(crate) unsafe fn take(handle: *mut sys::kfid) -> Result<Arc<Conn>> {
        if handle.is_null() {
            return Err(EINVAL);
        }
        // SAFETY: readable by the caller's contract.
        if unsafe { (*handle).fclass } != sys::KFI_CLASS_CONNREQ as usize {
            return Err(EINVAL);
        }
        let req = kernel::container_of!(handle, ConnReq, fid) as *mut ConnReq;
        // SAFETY: a live request (contract) names its live pep.
        let pep = unsafe { &*(*req).pep };
        let req = pep.take_req(req).ok_or(EINVAL)?;
        // SAFETY: unlisted above: ours alone; allocated with KBox.
        let req = unsafe { KBox::from_raw(req) };
        Ok(req.conn.clone())
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
    if fabric.is_null() || pep.is_null() {
        return einval();
    }
    // SAFETY: NULL or valid by the API contract.
    let info = unsafe { info.as_ref() };
    let mut src = addr::sockaddr(crate::logic::plan::Addr::v4([0; 4], 0));
    let mut op_flags = (0, 0);
    if let Some(i) = info {
        // SAFETY: NULL or valid attributes of a valid info.
        let (tx, rx) = unsafe { (i.tx_attr.as_ref(), i.rx_attr.as_ref()) };
        op_flags = (tx.map_or(0, |t| t.op_flags), rx.map_or(0, |r| r.op_flags));
        // SAFETY: `src_addr` holds `src_addrlen` bytes (API contract).
        match unsafe { addr::read_info_addr(i.src_addr, i.src_addrlen) } {
            Ok(Some(a)) => src = a,
            // An IPv6 entry without an address: any IPv6 address.
            Ok(None) if i.addr_format == sys::KFI_SOCKADDR_IN6 => {
                src = addr::sockaddr(crate::logic::plan::Addr::v6([0; 16], 0, 0));
            }
            Ok(None) => {}
            Err(e) => return e.to_errno(),
        }
    }
    // SAFETY: our fabric ops table passes our fabrics.
    let f = unsafe { Fabric::from_header(fabric) };
    let init = pin_init!(Pep {
        // SAFETY: all-zero is a valid header; filled in below.
        pep: unsafe { core::mem::zeroed() },
        fabric: f,
        src,
        op_flags,
        inner <- new_mutex!(PepInner {
            eq: None,
            listener: None,
            pending: KVec::new(),
            reqs: KVec::new(),
            closing: false,
        }, "kfi_tcp_pep"),
    });
    let b = match KBox::pin_init(init, GFP_KERNEL) {
        Ok(b) => b,
        Err(_) => return base::neg(bindings::ENOMEM),
    };
    // SAFETY: never moved: freed in place by `kfi_tcp_pep_close`.
    let p = KBox::into_raw(unsafe { Pin::into_inner_unchecked(b) });
    // SAFETY: `f` is live; `p` is our fresh object.
    unsafe {
        Fabric::children(f).opened();
        sys::kfi_tcp_glue_pep_init(&mut (*p).pep, context);
        *pep = &mut (*p).pep;
    }
    0
}

/// `bind` of a pep: its EQ (flags must be 0). Once only.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_pep_bind(fid: *mut sys::kfid, bfid: *mut sys::kfid, flags: u64) -> c_int {
    // SAFETY: only installed on our peps.
    let p = unsafe { Pep::from_fid(fid) };
    // SAFETY: NULL or a valid fid by the API contract.
    if flags != 0 || bfid.is_null() || unsafe { (*bfid).fclass } != sys::KFI_CLASS_EQ as usize {
        return einval();
    }
    // SAFETY: an EQ fid of this provider (the core hands out no others).
    let eq = unsafe { Eq::from_fid(bfid) };
    let mut g = p.inner.lock();
    if g.eq.is_some() {
        return einval();
    }
    eq.bind();
    g.eq = Some(eq);
    0
}

/// `listen` of a pep: -KFI_ENOEQ without an EQ, -EINVAL if already
/// listening, the socket's errno (-EADDRINUSE...) otherwise.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_pep_listen(pep: *mut sys::kfid_pep) -> c_int {
    // SAFETY: only installed on our peps.
    let p = unsafe { Pep::from_fid(&mut (*pep).fid) };
    let mut g = p.inner.lock();
    if g.eq.is_none() {
        return -(sys::KFI_ENOEQ as c_int);
    }
    if g.listener.is_some() {
        return einval();
    }
    // SAFETY: the fabric outlives its counted children.
    let net = unsafe { Fabric::net(p.fabric) };
    let r = (|| -> Result<Arc<Listener>> {
        let s = Sock::create(net, &p.src)?;
        // SAFETY: `listener_wake` does not sleep; its argument is set
        // below, before the timer can be armed (only the work item arms
        // it), and the timer is cancelled in `stop`.
        let retry = unsafe { base::Timer::new(listener_wake, core::ptr::null_mut()) }?;
        let l = Arc::pin_init(
            pin_init!(Listener {
                work <- new_work!("kfi_tcp_listener"),
                sock: s,
                pep: p,
                stopping: AtomicBool::new(false),
                retry,
            }),
            GFP_KERNEL,
        )?;
        let ctx = (&*l as *const Listener).cast_mut().cast();
        // SAFETY: the pep holds `l` until it stops it (cancelling the
        // timer); not armed yet.
        unsafe { l.retry.set_ctx(ctx) };
        // SAFETY: the pep holds `l` until it stops it (detaching first).
        unsafe { l.sock.install(listener_wake, ctx) };
        if let Err(e) = l.sock.listen(&p.src, BACKLOG) {
            l.stop();
            return Err(e);
        }
        Ok(l)
    })();
    match r {
        Ok(l) => {
            g.listener = Some(l);
            0
        }
        Err(e) => e.to_errno(),
    }
}

/// `getname` of a pep: its bound address (the port chosen at listen).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_pep_getname(fid: *mut sys::kfid, addr: *mut c_void, len: *mut usize) -> c_int {
    // SAFETY: only installed on our peps.
    let p = unsafe { Pep::from_fid(fid) };
    let a = match p.inner.lock().listener.as_ref() {
        Some(l) => match l.sock.name(false) {
            Ok(a) => a,
            Err(e) => return e.to_errno(),
        },
        None => p.src,
    };
    // SAFETY: buffers as given by the consumer (API contract).
    unsafe { crate::util::addr::write_addr(&a, addr, len) }
}

/// `reject` of a pep: refuses a reported request with CM data.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_pep_reject(
    _pep: *mut sys::kfid_pep,
    handle: *mut sys::kfid,
    param: *const c_void,
    paramlen: usize,
) -> c_int {
    // SAFETY: readable for `paramlen` bytes by the API contract.
    let Some(data) = (unsafe { base::param_bytes(param, paramlen) }) else {
        return einval();
    };
    // SAFETY: the consumer passes a handle from one of our CONNREQ events.
    match unsafe { ConnReq::take(handle) } {
        Ok(c) => {
            let r = c.reject(data);
            c.stop();
            match r {
                Ok(()) => 0,
                Err(e) => e.to_errno(),
            }
        }
        Err(e) => e.to_errno(),
    }
}

/// `close` of a connection request: rejects it without CM data.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_connreq_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: installed on our requests only.
    match unsafe { ConnReq::take(fid) } {
        Ok(c) => {
            let _ = c.reject(&[]);
            c.stop();
            0
        }
        Err(e) => e.to_errno(),
    }
}

/// `close` of a pep: stops listening, drops the connections and requests
/// not taken, unbinds the EQ.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_pep_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: only installed on our peps.
    let p = unsafe { Pep::from_fid(fid) };
    let listener = {
        let mut g = p.inner.lock();
        g.closing = true;
        g.listener.take()
    };
    if let Some(l) = listener {
        l.stop();
    }
    // No connection is added any more; stop those not reported (their
    // work may be reporting right now: stop waits, and report sees
    // `closing`).
    let pending = core::mem::replace(&mut p.inner.lock().pending, KVec::new());
    for c in pending.iter() {
        c.stop();
    }
    drop(pending);
    let (reqs, eq) = {
        let mut g = p.inner.lock();
        (core::mem::replace(&mut g.reqs, KVec::new()), g.eq.take())
    };
    for &r in reqs.iter() {
        // SAFETY: unlisted, owned, allocated with KBox.
        let r = unsafe { KBox::from_raw(r) };
        r.conn.stop();
    }
    if let Some(eq) = eq {
        // SAFETY: bound, hence open.
        unsafe { &*eq }.unbind();
    }
    let f = p.fabric;
    // SAFETY: allocated by `kfi_prov_fabric_passive_ep`; nothing refers to
    // it any more; the consumer gave up its pointer.
    drop(unsafe { KBox::from_raw(p as *const Pep as *mut Pep) });
    // SAFETY: the fabric outlives its counted children.
    unsafe { Fabric::children(f).closed() };
    0
}
