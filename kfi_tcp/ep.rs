// SPDX-License-Identifier: GPL-2.0
//! Active MSG endpoints (`kfi_endpoint`): opening (from a `KFI_CONNREQ`
//! or not), connection management (`connect`, `accept`, `shutdown`,
//! `getname`, `getpeer`) and this provider's part of enabling and closing.
//! Binding, enabling, aliases, cancel, options and the entry of every
//! data transfer are the toolkit's endpoint base (`kfi_util/ep.rs`),
//! which the endpoint embeds; the queues are the toolkit's
//! (`kfi_util/queues.rs`) with kfi_tcp's part in `xfer.rs`.
//!
//! An endpoint opened from a `KFI_CONNREQ` info (`info->handle`) takes the
//! request's connection at once and accepts it with `kfi_accept`; any other
//! endpoint creates its connection with `kfi_connect`. Either needs an EQ
//! bound and `kfi_enable` first. Connection progress is reported on that EQ
//! by the connection's work item (`conn.rs`).
//!
//! # Locks
//! `conn` (mutex; the consumer's CM calls and close, process context):
//! the connection. Never held while the base's `binds` is taken (the EQ is
//! read from the base first). The data queues have their own BH spinlock
//! (`kfi_util/queues.rs`): transfers may be posted from softirq context. The
//! connection has its own locks; none is held while it reports.

use crate::util::base::{self, einval};
use crate::conn::{Conn, Owner};
use crate::domain::Domain;
use crate::util::ep::{self as util_ep, publish_ep, EpAttrs, EpBase, EpConfig, EpRules, ProvEp};
use crate::util::eq::Eq;
use crate::util::fabric::{Fabric, ProvDomain};
use crate::util::fid::DomainBase;
use crate::ffi::{kfi_info, sys};
use crate::util::pep::ConnReq;
use crate::logic::xfer as rules;
use crate::util::addr::SockAddr;
use crate::util::queues::Config;
use crate::xfer::{self, EpData};
use crate::util::rdm;
use crate::rdm::Rdm;
use core::ffi::{c_int, c_void};
use kernel::bindings;
use kernel::new_mutex;
use kernel::prelude::*;
use kernel::sync::{Arc, Mutex};

/// An endpoint: the consumer sees the header in `base`.
#[pin_data]
#[repr(C)]
pub(crate) struct Ep {
    /// Header, bindings, attributes, aliases and CM events; first.
    #[pin]
    base: EpBase,
    domain: *const Domain,
    /// `info->src_addr`, bound before connecting.
    src: Option<SockAddr>,
    /// The connection, once connecting (or taken from a request).
    #[pin]
    conn: Mutex<Option<Arc<Conn>>>,
    /// An RDM endpoint's connection map, from enable to close.
    #[pin]
    rdm: Mutex<Option<Arc<Rdm>>>,
    #[pin]
    data: EpData,
}

const _: () = assert!(core::mem::offset_of!(Ep, base) == 0);

/// Default queue depth (what `kgetinfo` offers).
const DEFAULT_QUEUE: usize = 1024;
/// Largest message (as `kgetinfo` offers).
const MAX_MSG_SIZE: u64 = 1 << 30;
/// Largest message of an RDM endpoint (by rxm's rendezvous above its
/// eager limit).
const RDM_MAX_MSG_SIZE: u64 = MAX_MSG_SIZE;

fn opbadstate() -> c_int {
    -(sys::KFI_EOPBADSTATE as c_int)
}

impl Ep {
    /// Recovers an endpoint from its header.
    ///
    /// # Safety
    /// `ep` is the header of a live endpoint made by
    /// `kfi_prov_domain_endpoint` (our CM table is installed on those only).
    unsafe fn from_ep<'a>(ep: *mut sys::kfid_ep) -> &'a Ep {
        // SAFETY: by the caller's contract.
        unsafe { Ep::from_fid(&mut (*ep).fid) }
    }

    fn owner(&self, eq: &Eq) -> Owner {
        Owner::Ep { eq, fid: self.base.fid(), data: &self.data, cm: self.base.cm() }
    }

    /// The connection, if connected (or connecting).
    fn conn(&self) -> Option<Arc<Conn>> {
        self.conn.lock().clone()
    }
}

// SAFETY: `#[repr(C)]` with its `EpBase` first (asserted above); allocated
// with KBox and published by `publish_ep` only (`kfi_prov_domain_endpoint`).
unsafe impl ProvEp for Ep {
    const RULES: EpRules = EpRules {
        default_queue: DEFAULT_QUEUE,
        max_queue: xfer::MAX_QUEUE,
        tx_op_flags: crate::prov::TX_OP_FLAGS,
        rx_op_flags: crate::prov::RX_OP_FLAGS,
        cntr_events: util_ep::CNTR_EVENTS,
        rdm: true,
    };

    #[inline(always)]
    fn data(&self) -> &EpData {
        &self.data
    }

    fn enable(&self, c: &EpConfig) -> Result {
        if !c.attrs.rdm {
            return self.data.enable(Config::new(c, MAX_MSG_SIZE, self.domain), ());
        }
        // SAFETY: the domain outlives its counted endpoints.
        let fabric = unsafe { (*self.domain).fabric() };
        let m = rdm::enable_ep(fabric, &self.data, c, |av| self.data.enable(rdm_config(c, av, self.domain), ()))?;
        *self.rdm.lock() = Some(m);
        Ok(())
    }

    /// Stops the connection (the peer sees it close), then returns the
    /// CQ reservations of whatever was still queued. An RDM endpoint
    /// stops its map, then the connections of its lanes; a context leaves
    /// its scalable endpoint's map, then stops its lanes' connections.
    fn closing(&self) {
        // (Not under `rdm`: the map's close waits for connection work.)
        let map = self.rdm.lock().take();
        if let Some(r) = map {
            r.leave(self.base.role(), &self.data);
        }
        let conn = self.conn.lock().take();
        if let Some(c) = conn {
            c.stop();
        }
        // The work item is stopped: return the CQ reservations of whatever
        // was still queued; drop the queues' connection reference once no
        // consumer's call holds one (theirs must not be the last).
        let last = self.data.close();
        self.data.wait_calls();
        drop(last);
    }

    fn cm_data_size(&self) -> usize {
        crate::wire::cm::MAX_CM_DATA
    }
}

impl Ep {
    /// A context of a scalable endpoint of `domain` with `attrs` (its
    /// role), not published yet.
    pub(crate) fn new_ctx(domain: *mut sys::kfid_domain, attrs: EpAttrs) -> Result<Pin<KBox<Ep>>> {
        // SAFETY: the scalable endpoint's domain, one of ours, open for
        // the call.
        let (d, db) = unsafe { (Domain::from_fid(&mut (*domain).fid), DomainBase::from_header(domain)) };
        let init = pin_init!(Ep {
            base <- EpBase::new(db, attrs),
            domain: d,
            src: None,
            conn <- new_mutex!(None, "kfi_tcp_ep"),
            rdm <- new_mutex!(None, "kfi_tcp_ep_rdm"),
            data <- EpData::new(),
        });
        KBox::pin_init(init, GFP_KERNEL)
    }
}

/// The queue configuration of an RDM endpoint or context enabled with
/// `c`, sending to the addresses of `av`: directed receives if asked
/// (naming peers without `av`'s receive-context bits), tagged RMA.
fn rdm_config(c: &EpConfig, av: &crate::util::av::Av, domain: *const Domain) -> Config {
    let mut cfg = Config::new(c, RDM_MAX_MSG_SIZE, domain);
    cfg.directed = c.attrs.directed;
    cfg.tagged_rma = true;
    let bits = av.rx_ctx_bits();
    cfg.addr_mask = if bits == 0 { u64::MAX } else { u64::MAX >> bits };
    cfg
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
    // SAFETY: NULL or valid by the API contract (allocated by
    // kfi_allocinfo or the consumer).
    let (i, attrs) = match unsafe { util_ep::ep_info(&Ep::RULES, domain, info, ep) } {
        Ok(v) => v,
        Err(e) => return e,
    };
    let src = attrs.src;
    let from_req = !i.handle.is_null();
    // SAFETY: our domain ops table passes our domains (checked non-NULL).
    let (d, db) = unsafe { (Domain::from_fid(&mut (*domain).fid), DomainBase::from_header(domain)) };
    let src = if from_req { None } else { src };
    let init = pin_init!(Ep {
        base <- EpBase::new(db, attrs),
        domain: d,
        src,
        conn <- new_mutex!(None, "kfi_tcp_ep"),
        rdm <- new_mutex!(None, "kfi_tcp_ep_rdm"),
        data <- EpData::new(),
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
    *b.conn.lock() = conn.clone();
    b.data.set_conn(conn);
    // SAFETY: `Ep` meets `ProvEp`'s contract; its base was made for
    // `domain`, which the consumer holds open; the glue fills an endpoint
    // header (`kfi_util_ep_init`); `ep` was checked.
    unsafe { publish_ep(b, sys::kfi_tcp_glue_ep_init, context, ep) };
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
    if e.base.is_rdm() {
        return base::neg(bindings::ENOSYS);
    }
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
    // Final once enabled: read before `conn` is taken (lock order).
    let eq = e.base.enabled_eq();
    let mut g = e.conn.lock();
    let eq = match (eq, &*g) {
        (Some(eq), None) => eq,
        (_, Some(_)) => return base::neg(bindings::EISCONN),
        _ => return opbadstate(),
    };
    // SAFETY: the domain outlives its counted endpoints; so does its
    // fabric.
    let net = unsafe { Fabric::net((*e.domain).fabric()) };
    if let Err(err) = e.base.hold_cm(eq) {
        return err;
    }
    match Conn::connect(net, e.src.as_ref(), &dst, data, e.owner(eq)) {
        Ok(c) => {
            drop(e.data.set_conn(Some(c.clone())));
            *g = Some(c);
            0
        }
        Err(err) => {
            e.base.unhold_cm(eq);
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
    if e.base.is_rdm() {
        return base::neg(bindings::ENOSYS);
    }
    // SAFETY: readable for `paramlen` bytes by the API contract.
    let Some(data) = (unsafe { base::param_bytes(param, paramlen) }) else {
        return einval();
    };
    if data.len() > crate::wire::cm::MAX_CM_DATA {
        return einval();
    }
    // Final once enabled: read before `conn` is taken (lock order).
    let eq = e.base.enabled_eq();
    let g = e.conn.lock();
    let (Some(eq), Some(c)) = (eq, g.as_ref()) else {
        return opbadstate();
    };
    if let Err(err) = e.base.hold_cm(eq) {
        return err;
    }
    match c.accept(data, e.owner(eq)) {
        Ok(()) => 0,
        Err(err) => {
            e.base.unhold_cm(eq);
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
    if e.base.is_rdm() {
        return base::neg(bindings::ENOSYS);
    }
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
    if let Some(r) = e.rdm.lock().as_ref() {
        let a = r.name();
        // SAFETY: buffers as given by the consumer (API contract).
        return unsafe { crate::util::addr::write_name(e.base.nic(), &a, addr, len) };
    }
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

const _: () = assert!(rules::IOV_LIMIT == sys::KFI_UTIL_IOV_LIMIT as usize);
