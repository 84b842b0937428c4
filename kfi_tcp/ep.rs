// SPDX-License-Identifier: GPL-2.0
//! Active MSG endpoints (`kfi_endpoint`): binding (EQ, CQs), enabling,
//! connection management (`connect`, `accept`, `shutdown`, `getname`,
//! `getpeer`), options, and the entry of every data transfer (the queues
//! are in `xfer.rs`).
//!
//! An endpoint opened from a `KFI_CONNREQ` info (`info->handle`) takes the
//! request's connection at once and accepts it with `kfi_accept`; any other
//! endpoint creates its connection with `kfi_connect`. Either needs an EQ
//! bound and `kfi_enable` first. Connection progress is reported on that EQ
//! by the connection's work item (`conn.rs`).
//!
//! # Locks
//! `inner` (mutex; the consumer's CM and bind calls, process context):
//! bindings, enabled flag and the connection. The data queues have their
//! own BH spinlock (`xfer.rs`): transfers may be posted from softirq
//! context. The connection has its own locks; none is held while it
//! reports.

use crate::util::base::{self, einval};
use crate::trigger::cntr::Cntr;
use crate::conn::{Conn, Owner};
use crate::util::cq::Cq;
use crate::domain::Domain;
use crate::util::eq::{CmEvents, Eq};
use crate::util::fabric::Fabric;
use crate::ffi::{self, kfi_info, sys};
use crate::pep::ConnReq;
use crate::logic::xfer as rules;
use crate::util::addr::{self, SockAddr};
use crate::util::xfer::Cntrs;
use crate::xfer::{self, Config, EpData};
use core::ffi::{c_int, c_void};
use kernel::bindings;
use kernel::new_mutex;
use kernel::prelude::*;
use kernel::sync::{Arc, Mutex};

/// A CQ binding.
#[derive(Clone, Copy)]
struct CqBind {
    cq: *const Cq,
    selective: bool,
}

struct EpInner {
    eq: Option<*const Eq>,
    tx_cq: Option<CqBind>,
    rx_cq: Option<CqBind>,
    cntrs: Cntrs,
    enabled: bool,
    conn: Option<Arc<Conn>>,
}

// SAFETY: the EQ and CQ pointers stay valid while bound (they count
// bindings and refuse to close); accessed under the mutex only.
unsafe impl Send for EpInner {}

/// An endpoint: the consumer sees `ep`.
#[pin_data]
#[repr(C)]
pub(crate) struct Ep {
    ep: sys::kfid_ep,
    domain: *const Domain,
    /// `info->src_addr`, bound before connecting.
    src: Option<SockAddr>,
    /// Queue sizes and default flags from `info->tx_attr`/`rx_attr`.
    attrs: Attrs,
    #[pin]
    inner: Mutex<EpInner>,
    #[pin]
    data: EpData,
    /// Open aliases (`kfi_ep_alias`); the endpoint cannot close while any is.
    aliases: core::sync::atomic::AtomicUsize,
    /// Its connection events, with the EQ slots held for them (taken at
    /// connect or accept: a `KFI_CONNECTED` or error, then a
    /// `KFI_SHUTDOWN`), given back at close when unused.
    cm: CmEvents,
}

/// EQ slots an endpoint holds for the events of its connection.
const CM_EVENTS: usize = 2;

/// An alias of an endpoint (`kfi_ep_alias`): the same queues and
/// connection with other default operation flags. Only data transfers,
/// `kfi_cancel` and `kfi_close` are offered on it (its CM slots are
/// -KFI_ENOSYS). With `KFI_TRIGGER` every transfer posted on it is
/// triggered: its context is a `kfi_triggered_context`.
#[repr(C)]
struct Alias {
    ep: sys::kfid_ep,
    target: *const Ep,
    /// Operation flags added to the transfers of the directions in
    /// `dirs` (without the direction bits themselves).
    flags: u64,
    /// `KFI_TRANSMIT` and/or `KFI_RECV`: which transfers `flags` apply
    /// to (both when the alias was made with neither).
    dirs: u64,
}

#[derive(Clone, Copy)]
struct Attrs {
    tx_size: usize,
    rx_size: usize,
    tx_flags: u64,
    rx_flags: u64,
}

/// Default queue depth (what `kgetinfo` offers).
const DEFAULT_QUEUE: usize = 1024;
/// Largest message (as `kgetinfo` offers).
const MAX_MSG_SIZE: u64 = 1 << 30;

fn queue_size(requested: usize) -> Option<usize> {
    match requested {
        0 => Some(DEFAULT_QUEUE),
        n if n <= xfer::MAX_QUEUE => Some(n),
        _ => None,
    }
}

fn opbadstate() -> c_int {
    -(sys::KFI_EOPBADSTATE as c_int)
}

impl Ep {
    /// Recovers an endpoint from its fid.
    ///
    /// # Safety
    /// `fid` is the fid of a live endpoint made by `kfi_prov_domain_endpoint`.
    unsafe fn from_fid<'a>(fid: *mut sys::kfid) -> &'a Ep {
        // SAFETY: the fid is the first field of the header, itself first.
        unsafe { &*kernel::container_of!(fid, Ep, ep.fid) }
    }

    /// Recovers an endpoint from its header.
    ///
    /// # Safety
    /// As for [`Ep::from_fid`].
    unsafe fn from_ep<'a>(ep: *mut sys::kfid_ep) -> &'a Ep {
        // SAFETY: by the caller's contract.
        unsafe { Ep::from_fid(&mut (*ep).fid) }
    }

    fn owner(&self, eq: *const Eq) -> Owner {
        Owner::Ep { eq, fid: &self.ep.fid as *const sys::kfid as *mut sys::kfid, data: &self.data, cm: &self.cm }
    }

    /// Holds the EQ slots of the connection's events (connect, accept):
    /// -EAGAIN when the EQ has no room for them.
    fn hold_cm(&self, eq: *const Eq) -> core::result::Result<(), c_int> {
        // SAFETY: bound, hence open.
        self.cm.hold(unsafe { &*eq }, CM_EVENTS)
    }

    /// Gives back the held slots not used (a failed connect or accept, the
    /// close).
    fn unhold_cm(&self, eq: *const Eq) {
        // SAFETY: bound, hence open.
        self.cm.unhold(unsafe { &*eq })
    }

    /// The connection, if connected (or connecting).
    fn conn(&self) -> Option<Arc<Conn>> {
        self.inner.lock().conn.clone()
    }
}

/// `endpoint` of a domain: a MSG endpoint; with `info->handle` from a
/// `KFI_CONNREQ`, the endpoint that will accept that request.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_prov_domain_endpoint(
    domain: *mut sys::kfid_domain,
    info: *mut kfi_info,
    ep: *mut *mut sys::kfid_ep,
    context: *mut c_void,
) -> c_int {
    // SAFETY: NULL or valid by the API contract.
    let Some(i) = (unsafe { info.as_ref() }) else {
        return einval();
    };
    if domain.is_null() || ep.is_null() {
        return einval();
    }
    // SAFETY: NULL or valid (allocated by kfi_allocinfo or the consumer).
    if let Some(a) = unsafe { i.ep_attr.as_ref() } {
        if a.type_ != sys::KFI_EP_UNSPEC && a.type_ != sys::KFI_EP_MSG {
            return einval();
        }
    }
    let mut attrs = Attrs { tx_size: DEFAULT_QUEUE, rx_size: DEFAULT_QUEUE, tx_flags: 0, rx_flags: 0 };
    // SAFETY: NULL or valid, as `ep_attr`.
    if let Some(t) = unsafe { i.tx_attr.as_ref() } {
        let Some(n) = queue_size(t.size) else {
            return einval();
        };
        // Default flags the provider does not advertise are refused, not
        // ignored: the consumer would rely on them.
        if t.op_flags & !crate::prov::TX_OP_FLAGS != 0 {
            return -(sys::KFI_EBADFLAGS as c_int);
        }
        attrs.tx_size = n;
        attrs.tx_flags = t.op_flags;
    }
    // SAFETY: as above.
    if let Some(r) = unsafe { i.rx_attr.as_ref() } {
        let Some(n) = queue_size(r.size) else {
            return einval();
        };
        if r.op_flags & !crate::prov::RX_OP_FLAGS != 0 {
            return -(sys::KFI_EBADFLAGS as c_int);
        }
        attrs.rx_size = n;
        attrs.rx_flags = r.op_flags;
    }
    // SAFETY: `src_addr` holds `src_addrlen` bytes (API contract).
    let src = match unsafe { addr::read_info_addr(i.src_addr, i.src_addrlen) } {
        Ok(a) => a,
        Err(e) => return e.to_errno(),
    };
    let from_req = !i.handle.is_null();
    // SAFETY: our domain ops table passes our domains.
    let d = unsafe { Domain::from_fid(&mut (*domain).fid) };
    let src = if from_req { None } else { src };
    let init = pin_init!(Ep {
        // SAFETY: all-zero is a valid header; filled in below.
        ep: unsafe { core::mem::zeroed() },
        domain: d,
        src,
        attrs,
        inner <- new_mutex!(EpInner { eq: None, tx_cq: None, rx_cq: None, cntrs: Cntrs::default(), enabled: false, conn: None }, "kfi_tcp_ep"),
        data <- EpData::new(),
        aliases: core::sync::atomic::AtomicUsize::new(0),
        cm: CmEvents::new(),
    });
    let Ok(b) = KBox::pin_init(init, GFP_KERNEL) else {
        return base::neg(bindings::ENOMEM);
    };
    // The request is taken once nothing can fail any more: a failed call
    // leaves it pending, to be rejected or tried again.
    let conn = if from_req {
        // SAFETY: the consumer passes the info of one of our CONNREQ
        // events, its pep still open.
        match unsafe { ConnReq::take(i.handle) } {
            Ok(c) => Some(c),
            Err(e) => return e.to_errno(),
        }
    } else {
        None
    };
    b.inner.lock().conn = conn.clone();
    // SAFETY: never moved: freed in place by `kfi_tcp_ep_close`.
    let p = KBox::into_raw(unsafe { Pin::into_inner_unchecked(b) });
    // SAFETY: `p` is our fresh object.
    unsafe { (*p).data.set_conn(conn) };
    d.child_opened();
    // SAFETY: `p` is our fresh object.
    unsafe {
        sys::kfi_tcp_glue_ep_init(&mut (*p).ep, context);
        *ep = &mut (*p).ep;
    }
    0
}

/// `bind` of an endpoint, before `kfi_enable`: an EQ (flags 0), once; a
/// CQ of this provider for `KFI_TRANSMIT` and/or `KFI_RECV` completions
/// (optionally `KFI_SELECTIVE_COMPLETION`), once per direction; a counter
/// for any of `KFI_SEND`, `KFI_RECV`, `KFI_READ`, `KFI_WRITE`,
/// `KFI_REMOTE_READ`, `KFI_REMOTE_WRITE`, once per event.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_ep_bind(fid: *mut sys::kfid, bfid: *mut sys::kfid, flags: u64) -> c_int {
    // SAFETY: only installed on our endpoints.
    let e = unsafe { Ep::from_fid(fid) };
    if bfid.is_null() {
        return einval();
    }
    // SAFETY: a valid fid by the API contract.
    let class = unsafe { (*bfid).fclass } as u32;
    let mut g = e.inner.lock();
    if g.enabled {
        return opbadstate();
    }
    match class {
        sys::KFI_CLASS_EQ => {
            if flags != 0 || g.eq.is_some() {
                return einval();
            }
            // SAFETY: an EQ of this provider.
            let eq = unsafe { Eq::from_fid(bfid) };
            eq.bind();
            g.eq = Some(eq);
            0
        }
        sys::KFI_CLASS_CQ => {
            let dirs = flags & (sys::KFI_TRANSMIT as u64 | sys::KFI_RECV as u64);
            if dirs == 0 || flags & !(dirs | sys::KFI_SELECTIVE_COMPLETION) != 0 {
                return -(sys::KFI_EBADFLAGS as c_int);
            }
            // SAFETY: a valid fid (checked class and ops table next).
            if !unsafe { Cq::is_cq(bfid) } {
                return einval();
            }
            let tx = dirs & sys::KFI_TRANSMIT as u64 != 0;
            let rx = dirs & sys::KFI_RECV as u64 != 0;
            if (tx && g.tx_cq.is_some()) || (rx && g.rx_cq.is_some()) {
                return einval();
            }
            // SAFETY: a CQ of this provider.
            let cq = unsafe { Cq::from_fid(bfid) };
            let b = CqBind { cq, selective: flags & sys::KFI_SELECTIVE_COMPLETION != 0 };
            if tx {
                if cq.bind_ep(&e.data).is_err() {
                    return base::neg(bindings::ENOMEM);
                }
                g.tx_cq = Some(b);
            }
            if rx {
                if cq.bind_ep(&e.data).is_err() {
                    if tx {
                        g.tx_cq = None;
                        cq.unbind_ep(&e.data);
                    }
                    return base::neg(bindings::ENOMEM);
                }
                g.rx_cq = Some(b);
            }
            0
        }
        sys::KFI_CLASS_CNTR => {
            // SAFETY: a valid fid (class and ops table checked).
            if !unsafe { Cntr::is_cntr(bfid) } {
                return einval();
            }
            // SAFETY: a counter of this provider.
            let c: *const Cntr = unsafe { Cntr::from_fid(bfid) };
            let k = &mut g.cntrs;
            let events: [(u32, &mut Option<*const Cntr>); 6] = [
                (sys::KFI_SEND, &mut k.send),
                (sys::KFI_RECV, &mut k.recv),
                (sys::KFI_READ, &mut k.read),
                (sys::KFI_WRITE, &mut k.write),
                (sys::KFI_REMOTE_READ, &mut k.remote_read),
                (sys::KFI_REMOTE_WRITE, &mut k.remote_write),
            ];
            let all = events.iter().fold(0u64, |a, (f, _)| a | u64::from(*f));
            if flags == 0 || flags & !all != 0 {
                return -(sys::KFI_EBADFLAGS as c_int);
            }
            if events.iter().any(|(f, slot)| flags & u64::from(*f) != 0 && slot.is_some()) {
                return einval();
            }
            for (f, slot) in events {
                if flags & u64::from(f) != 0 {
                    // SAFETY: live (the consumer's bind); counted below.
                    unsafe { &*c }.bind_ep();
                    *slot = Some(c);
                }
            }
            0
        }
        _ => einval(),
    }
}

/// `KFI_ALIAS`: a new alias of `e` with `a.flags` (`KFI_TRANSMIT` and/or
/// `KFI_RECV` plus operation flags, e.g. `KFI_TRIGGER`).
fn make_alias(e: &Ep, a: &sys::kfi_alias) -> c_int {
    let dirs = sys::KFI_TRANSMIT as u64 | sys::KFI_RECV as u64;
    let allowed = dirs
        | sys::KFI_TRIGGER as u64
        | sys::KFI_COMPLETION as u64
        | sys::KFI_INJECT_COMPLETE as u64
        | sys::KFI_TRANSMIT_COMPLETE as u64
        | sys::KFI_DELIVERY_COMPLETE as u64
        | sys::KFI_MORE as u64;
    if a.fid.is_null() || a.flags & !allowed != 0 {
        return -(sys::KFI_EBADFLAGS as c_int);
    }
    let al = Alias {
        // SAFETY: all-zero is a valid header; filled in below.
        ep: unsafe { core::mem::zeroed() },
        target: e,
        flags: a.flags & !dirs,
        dirs: if a.flags & dirs == 0 { dirs } else { a.flags & dirs },
    };
    let Ok(b) = KBox::new(al, GFP_KERNEL) else {
        return base::neg(bindings::ENOMEM);
    };
    let p = KBox::into_raw(b);
    e.aliases.fetch_add(1, core::sync::atomic::Ordering::AcqRel);
    // SAFETY: `p` is ours; `a.fid` is the consumer's out pointer.
    unsafe {
        sys::kfi_tcp_glue_alias_init(&mut (*p).ep, (*e).ep.fid.context);
        *a.fid = &mut (*p).ep.fid;
    }
    0
}

/// Recovers an alias from its fid.
///
/// # Safety
/// `fid` is the fid of a live alias (`kfi_tcp_glue_is_alias`).
unsafe fn alias_of<'a>(fid: *const sys::kfid) -> &'a Alias {
    // SAFETY: the fid is the first field of the header, itself first.
    unsafe { &*kernel::container_of!(fid, Alias, ep.fid) }
}

/// `close` of an alias.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_alias_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: only installed on aliases.
    let a = unsafe { alias_of(fid) };
    // SAFETY: the endpoint outlives its aliases (it refuses to close).
    unsafe { &*a.target }.aliases.fetch_sub(1, core::sync::atomic::Ordering::AcqRel);
    // SAFETY: allocated by `make_alias`; the consumer gave it up.
    drop(unsafe { KBox::from_raw(a as *const Alias as *mut Alias) });
    0
}

/// `cancel` on an alias: as on its endpoint.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_alias_cancel(fid: *mut sys::kfid, context: *mut c_void) -> isize {
    // SAFETY: only installed on aliases; their endpoint is open.
    let e = unsafe { &*alias_of(fid).target };
    // SAFETY: the endpoint's own fid.
    unsafe { kfi_tcp_ep_cancel(&e.ep.fid as *const sys::kfid as *mut sys::kfid, context) }
}

/// `control` of an endpoint: `KFI_ENABLE` (needs an EQ: -KFI_ENOEQ) and
/// `KFI_ALIAS`.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_ep_control(fid: *mut sys::kfid, command: c_int, arg: *mut c_void) -> c_int {
    // SAFETY: only installed on our endpoints.
    let e = unsafe { Ep::from_fid(fid) };
    if command as u32 == sys::KFI_ALIAS {
        // SAFETY: NULL or the consumer's `struct kfi_alias`.
        return match unsafe { arg.cast::<sys::kfi_alias>().as_ref() } {
            Some(a) => make_alias(e, a),
            None => einval(),
        };
    }
    if command as u32 != sys::KFI_ENABLE {
        return base::neg(bindings::ENOSYS);
    }
    let mut g = e.inner.lock();
    if g.eq.is_none() {
        return -(sys::KFI_ENOEQ as c_int);
    }
    if g.enabled {
        return 0;
    }
    let cfg = Config {
        tx_cq: g.tx_cq.map(|b| b.cq),
        rx_cq: g.rx_cq.map(|b| b.cq),
        tx_selective: g.tx_cq.is_some_and(|b| b.selective),
        rx_selective: g.rx_cq.is_some_and(|b| b.selective),
        tx_flags: e.attrs.tx_flags,
        rx_flags: e.attrs.rx_flags,
        tx_size: e.attrs.tx_size,
        rx_size: e.attrs.rx_size,
        max_msg: MAX_MSG_SIZE,
        domain: e.domain,
        cntrs: g.cntrs,
    };
    if let Err(err) = e.data.enable(cfg) {
        return err.to_errno();
    }
    g.enabled = true;
    0
}

/// `connect` of an endpoint: starts connecting to `addr` (a sockaddr_in
/// or sockaddr_in6, of the family of the endpoint's `src_addr` if any)
/// with `param` as CM data (at most 256 bytes). `KFI_CONNECTED` or an
/// error entry (-ECONNREFUSED when refused or rejected, with the reject's
/// CM data) follows on the EQ.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_ep_connect(
    ep: *mut sys::kfid_ep,
    addr: *const c_void,
    param: *const c_void,
    paramlen: usize,
) -> c_int {
    // SAFETY: only installed on our endpoints.
    let e = unsafe { Ep::from_ep(ep) };
    // SAFETY: readable for `paramlen` bytes by the API contract.
    let Some(data) = (unsafe { base::param_bytes(param, paramlen) }) else {
        return einval();
    };
    if data.len() > crate::wire::cm::MAX_CM_DATA {
        return einval();
    }
    // SAFETY: NULL or a sockaddr_in/sockaddr_in6 by the API contract (no
    // length given: the family's).
    let dst = match unsafe { crate::util::addr::read_addr(addr, 0) } {
        Ok(a) => a,
        Err(e) => return e.to_errno(),
    };
    // A source of the other family cannot be bound to the peer's socket.
    if e.src.is_some_and(|s| s.family != dst.family) {
        return einval();
    }
    let mut g = e.inner.lock();
    let eq = match (g.enabled, g.eq, &g.conn) {
        (true, Some(eq), None) => eq,
        (_, _, Some(_)) => return base::neg(bindings::EISCONN),
        _ => return opbadstate(),
    };
    // SAFETY: the domain outlives its counted endpoints; so does its
    // fabric.
    let net = unsafe { Fabric::net((*e.domain).fabric()) };
    if let Err(err) = e.hold_cm(eq) {
        return err;
    }
    match Conn::connect(net, e.src.as_ref(), &dst, data, e.owner(eq)) {
        Ok(c) => {
            drop(e.data.set_conn(Some(c.clone())));
            g.conn = Some(c);
            0
        }
        Err(err) => {
            e.unhold_cm(eq);
            err.to_errno()
        }
    }
}

/// `accept` of an endpoint opened from a request: sends the connresp with
/// `param` as CM data; `KFI_CONNECTED` follows on the EQ.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_ep_accept(ep: *mut sys::kfid_ep, param: *const c_void, paramlen: usize) -> c_int {
    // SAFETY: only installed on our endpoints.
    let e = unsafe { Ep::from_ep(ep) };
    // SAFETY: readable for `paramlen` bytes by the API contract.
    let Some(data) = (unsafe { base::param_bytes(param, paramlen) }) else {
        return einval();
    };
    if data.len() > crate::wire::cm::MAX_CM_DATA {
        return einval();
    }
    let g = e.inner.lock();
    let (Some(eq), true, Some(c)) = (g.eq, g.enabled, g.conn.as_ref()) else {
        return opbadstate();
    };
    if let Err(err) = e.hold_cm(eq) {
        return err;
    }
    match c.accept(data, e.owner(eq)) {
        Ok(()) => 0,
        Err(err) => {
            e.unhold_cm(eq);
            err.to_errno()
        }
    }
}

/// `shutdown` of an endpoint: closes the connection; `KFI_SHUTDOWN` is
/// reported once. -ENOTCONN if not connected.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_ep_shutdown(ep: *mut sys::kfid_ep, flags: u64) -> c_int {
    if flags != 0 {
        return einval();
    }
    // SAFETY: only installed on our endpoints.
    let e = unsafe { Ep::from_ep(ep) };
    match e.conn() {
        Some(c) if c.shutdown() => 0,
        _ => base::neg(bindings::ENOTCONN),
    }
}

/// `getname` of an endpoint: the connection's local address, else the
/// source address it was opened with.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_ep_getname(fid: *mut sys::kfid, addr: *mut c_void, len: *mut usize) -> c_int {
    // SAFETY: only installed on our endpoints.
    let e = unsafe { Ep::from_fid(fid) };
    let a = match (e.conn().map(|c| c.name(false)), e.src) {
        (Some(Ok(a)), _) => a,
        (_, Some(a)) => a,
        (Some(Err(err)), None) => return err.to_errno(),
        (None, None) => return -(sys::KFI_EOPBADSTATE as c_int),
    };
    // SAFETY: buffers as given by the consumer (API contract).
    unsafe { crate::util::addr::write_addr(&a, addr, len) }
}

/// `getpeer` of an endpoint: the peer's address (-ENOTCONN if none).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_ep_getpeer(ep: *mut sys::kfid_ep, addr: *mut c_void, len: *mut usize) -> c_int {
    // SAFETY: only installed on our endpoints.
    let e = unsafe { Ep::from_ep(ep) };
    let a = match e.conn().map(|c| c.name(true)) {
        Some(Ok(a)) => a,
        _ => return base::neg(bindings::ENOTCONN),
    };
    // SAFETY: buffers as given by the consumer (API contract).
    unsafe { crate::util::addr::write_addr(&a, addr, len) }
}

/// `close` of an endpoint: stops its connection (the peer sees it close),
/// unbinds the EQ.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_ep_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: only installed on our endpoints.
    let e = unsafe { Ep::from_fid(fid) };
    // Triggered operations will still be posted here; aliases use it.
    if e.data.trig_pending() != 0 || e.aliases.load(core::sync::atomic::Ordering::Acquire) != 0 {
        return base::neg(bindings::EBUSY);
    }
    let (conn, eq, tx_cq, rx_cq, cntrs) = {
        let mut g = e.inner.lock();
        (g.conn.take(), g.eq.take(), g.tx_cq.take(), g.rx_cq.take(), core::mem::take(&mut g.cntrs))
    };
    if let Some(c) = conn {
        c.stop();
    }
    // The work item is stopped: return the CQ reservations of whatever
    // was still queued; drop the queues' connection reference once no
    // consumer's call holds one (theirs must not be the last).
    let last = e.data.close();
    e.data.wait_calls();
    drop(last);
    if let Some(eq) = eq {
        // The connection is stopped: it posts no more.
        e.unhold_cm(eq);
        // SAFETY: bound, hence open.
        unsafe { &*eq }.unbind();
    }
    for b in [tx_cq, rx_cq].into_iter().flatten() {
        // SAFETY: bound, hence open.
        unsafe { &*b.cq }.unbind_ep(&e.data);
    }
    let k = cntrs;
    for c in [k.send, k.recv, k.read, k.write, k.remote_read, k.remote_write].into_iter().flatten() {
        // SAFETY: bound, hence open.
        unsafe { &*c }.unbind_ep();
    }
    // SAFETY: the domain outlives its counted endpoints.
    let d = unsafe { &*e.domain };
    // SAFETY: allocated by `kfi_prov_domain_endpoint`; the connection is
    // stopped, so nothing refers to it; the consumer gave up its pointer.
    drop(unsafe { KBox::from_raw(e as *const Ep as *mut Ep) });
    d.child_closed();
    0
}

/// Every data transfer (`kfi_send`, `kfi_recvmsg`, `kfi_tinject`, ...):
/// validated and queued, never sleeping. -EAGAIN when the queue or the CQ
/// is full, -KFI_EOPBADSTATE before `kfi_enable`, -ENOTCONN once the
/// connection is gone.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_ep_xfer(ep: *mut sys::kfid_ep, x: *const sys::kfi_util_xfer) -> isize {
    ffi::tr(sys::KFI_TCP_TR_POST);
    // SAFETY: the caller's contract, passed on.
    let r = unsafe { ep_xfer(ep, x) };
    ffi::tr(sys::KFI_TCP_TR_POST_DONE);
    r
}

/// [`kfi_util_ep_xfer`] between its trace points.
///
/// # Safety
/// As `kfi_util_ep_xfer`: `ep` is one of our endpoints or aliases, `x` is
/// NULL or a transfer built by the C wrappers.
unsafe fn ep_xfer(ep: *mut sys::kfid_ep, x: *const sys::kfi_util_xfer) -> isize {
    // SAFETY: built by the C wrappers on their stack.
    let Some(x) = (unsafe { x.as_ref() }) else {
        return einval() as isize;
    };
    // SAFETY: our ops tables are installed on endpoints and aliases only.
    if unsafe { sys::kfi_tcp_glue_is_alias(&(*ep).fid) } {
        // SAFETY: checked just above; its endpoint is open.
        let a = unsafe { alias_of(&(*ep).fid) };
        let e = unsafe { &*a.target };
        let mut x = *x;
        let tx = !matches!(x.kind as u32, sys::KFI_UTIL_X_RECV | sys::KFI_UTIL_X_TRECV);
        let dir = if tx { sys::KFI_TRANSMIT as u64 } else { sys::KFI_RECV as u64 };
        if a.dirs & dir != 0 {
            x.flags |= a.flags;
        }
        if x.flags & sys::KFI_TRIGGER as u64 != 0 {
            return crate::trigger::trig::post_triggered(&e.data, &x);
        }
        return e.data.post(&x);
    }
    // SAFETY: only installed on our endpoints.
    let e = unsafe { Ep::from_ep(ep) };
    if x.msg_call && x.flags & sys::KFI_TRIGGER as u64 != 0 {
        return crate::trigger::trig::post_triggered(&e.data, x);
    }
    e.data.post(x)
}

/// The data queues of a consumer's endpoint (deferred work names its
/// endpoint): `None` for NULL or an object that is not one of our
/// endpoints.
///
/// # Safety
/// `ep` is NULL or a valid `kfid_ep`.
pub(crate) unsafe fn data_of<'a>(ep: *mut sys::kfid_ep) -> Option<&'a EpData> {
    if ep.is_null() {
        return None;
    }
    // SAFETY: valid by the caller's contract.
    if !unsafe { sys::kfi_tcp_glue_is_ep(&(*ep).fid) } {
        return None;
    }
    // SAFETY: one of ours.
    Some(&unsafe { Ep::from_ep(ep) }.data)
}

/// The domain of a consumer's endpoint (a region bound to it): `None` for
/// NULL or an object that is not one of our endpoints.
///
/// # Safety
/// `fid` is NULL or a valid `kfid`.
pub(crate) unsafe fn domain_of(fid: *mut sys::kfid) -> Option<*const Domain> {
    if fid.is_null() {
        return None;
    }
    // SAFETY: valid by the caller's contract.
    if !unsafe { sys::kfi_tcp_glue_is_ep(fid) } {
        return None;
    }
    // SAFETY: one of ours.
    Some(unsafe { Ep::from_fid(fid) }.domain)
}

/// `kfi_cancel`: a posted receive (matched by its context) completes with
/// -KFI_ECANCELED. -ENOENT if no queued receive has that context (sends
/// are not cancellable: they are on the wire in order).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_ep_cancel(fid: *mut sys::kfid, context: *mut c_void) -> isize {
    // SAFETY: only installed on our endpoints.
    let e = unsafe { Ep::from_fid(fid) };
    let r = e.data.cancel(context);
    if r == 0 {
        return 0;
    }
    // A triggered operation of this endpoint not fired yet?
    // SAFETY: the domain outlives its endpoints.
    if crate::trigger::trig::cancel_triggered(unsafe { &*e.domain }.cntrs(), &e.data, context) {
        return 0;
    }
    r
}

/// `kfi_getopt`: `KFI_OPT_MIN_MULTI_RECV` and `KFI_OPT_CM_DATA_SIZE`
/// (size_t each).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_ep_getopt(
    fid: *mut sys::kfid,
    level: c_int,
    optname: c_int,
    optval: *mut c_void,
    optlen: *mut usize,
) -> c_int {
    // SAFETY: only installed on our endpoints.
    let e = unsafe { Ep::from_fid(fid) };
    if level as u32 != sys::KFI_OPT_ENDPOINT || optval.is_null() || optlen.is_null() {
        return einval();
    }
    let v: usize = match optname as u32 {
        sys::KFI_OPT_MIN_MULTI_RECV => e.data.min_multi() as usize,
        sys::KFI_OPT_CM_DATA_SIZE => crate::wire::cm::MAX_CM_DATA,
        _ => return -(bindings::ENOPROTOOPT as c_int),
    };
    // SAFETY: valid pointers by the API contract.
    unsafe {
        if *optlen < core::mem::size_of::<usize>() {
            *optlen = core::mem::size_of::<usize>();
            return -(sys::KFI_ETOOSMALL as c_int);
        }
        core::ptr::write_unaligned(optval.cast::<usize>(), v);
        *optlen = core::mem::size_of::<usize>();
    }
    0
}

/// `kfi_setopt`: `KFI_OPT_MIN_MULTI_RECV` (applies to multi-receive
/// buffers posted afterwards); `KFI_OPT_CM_DATA_SIZE` up to 256.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_ep_setopt(
    fid: *mut sys::kfid,
    level: c_int,
    optname: c_int,
    optval: *const c_void,
    optlen: usize,
) -> c_int {
    // SAFETY: only installed on our endpoints.
    let e = unsafe { Ep::from_fid(fid) };
    if level as u32 != sys::KFI_OPT_ENDPOINT || optval.is_null() || optlen != core::mem::size_of::<usize>() {
        return einval();
    }
    // SAFETY: readable for `optlen` bytes by the API contract.
    let v = unsafe { core::ptr::read_unaligned(optval.cast::<usize>()) };
    match optname as u32 {
        sys::KFI_OPT_MIN_MULTI_RECV => {
            e.data.set_min_multi(v as u64);
            0
        }
        sys::KFI_OPT_CM_DATA_SIZE if v <= crate::wire::cm::MAX_CM_DATA => 0,
        sys::KFI_OPT_CM_DATA_SIZE => einval(),
        _ => -(bindings::ENOPROTOOPT as c_int),
    }
}

const _: () = assert!(rules::IOV_LIMIT == sys::KFI_UTIL_IOV_LIMIT as usize);
