// SPDX-License-Identifier: GPL-2.0
//! Active MSG endpoints (`kfi_endpoint`) and their connection management
//! over rdma_cm: `connect`, `accept`, `shutdown`, `getname`, `getpeer`,
//! and the events reported on the endpoint's EQ (`KFI_CONNECTED`,
//! `KFI_SHUTDOWN`, error entries). Binding, enabling, aliases, options,
//! cancel and the entry of every data transfer are the toolkit's endpoint
//! base (`kfi_util/ep.rs`), which the endpoint embeds.
//!
//! An endpoint owns one connection of kfi_verbs_cm.c (an rdma_cm id; its
//! queue pair is created on the domain's device when the address is
//! resolved, or when the endpoint is opened from a `KFI_CONNREQ`), from
//! its opening to its close. The private data is libfabric verbs' (one
//! length byte, then at most 55 bytes of the consumer's CM data:
//! `logic/cmdata.rs`), so a userspace libfabric peer understands it.
//!
//! Its data transfers are the toolkit's queues over the queue pair
//! (`xfer.rs`).
//!
//! # Locks
//! `cm` (mutex; the consumer's CM calls and the rdma_cm handler, process
//! context): the connection's state. The handler calls in with the id's
//! handler mutex held, so `cm` is never held while calling a connection
//! method that takes that mutex (`accept`, `addr`, `close`), nor while
//! posting an event (the consumer's EQ handler runs from the post).

use crate::domain::Domain;
use crate::ffi::{kfi_info, sys, Conn, Wrs};
use crate::util::queues::Config;
use crate::xfer::{EpData, Prepared, SoftTx, NBOUNCE, NCHUNK};
use crate::logic::cmdata::{self, Mode};
use crate::soft::{soft_work, SoftRx};
use crate::util::base::DWork;
use crate::util::addr::{self, SockAddr};
use crate::util::base::{self, einval};
use crate::util::ep::{self as util_ep, publish_ep, EpAttrs, EpBase, EpConfig, EpRules, ProvEp};
use crate::util::fabric::{Fabric, ProvDomain};
use crate::util::fid::DomainBase;
use crate::util::pep::ConnReq;
use crate::util::rdm as util_rdm;
use core::ffi::{c_int, c_void};
use kernel::bindings;
use kernel::new_mutex;
use kernel::prelude::*;
use kernel::sync::{Arc, Mutex};

/// Where an endpoint's connection is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum St {
    /// Neither connecting nor accepting yet (an endpoint opened from a
    /// request has taken it, and waits for `accept`).
    Idle,
    /// `connect` or `accept` was called; `KFI_CONNECTED` or an error
    /// entry is to come.
    Connecting,
    /// `KFI_CONNECTED` was reported.
    Connected,
    /// The connection failed or ended (its event was reported).
    Down,
}

/// The connection's state, under `Ep::cm`.
struct CmState {
    st: St,
    /// The peer's reject data: `err_data` of the error entry, which stays
    /// valid while the endpoint is open. Written once, on the one
    /// transition from `Connecting` to `Down`.
    rej: [u8; cmdata::APP_MAX],
}

/// An endpoint: the consumer sees the header in `base`.
#[pin_data]
#[repr(C)]
pub(crate) struct Ep {
    /// Header, bindings, attributes, aliases and CM events; first.
    #[pin]
    base: EpBase,
    domain: *const Domain,
    /// `info->src_addr`, bound when connecting.
    src: Option<SockAddr>,
    /// Send and receive queue depths of the queue pair.
    depths: (u32, u32),
    /// Opened from a request (`accept`, not `connect`).
    from_req: bool,
    /// Soft mode (`ep_attr->protocol_version` 2): headers, bounce
    /// buffers, tag matching (`soft.rs`); else direct mode.
    soft_mode: bool,
    /// Soft mode's receive state (`soft.rs`); empty in direct mode.
    #[pin]
    pub(crate) soft: Mutex<SoftRx>,
    /// The transfer queues (`xfer.rs`); dropped before `conn`, whose
    /// address they hold while enabled.
    #[pin]
    data: EpData,
    /// The rdma_cm id and queue pair.
    conn: Conn,
    #[pin]
    cm: Mutex<CmState>,
    /// An RDM endpoint's connection map, from enable to close
    /// (`rdm.rs`).
    #[pin]
    rdm: Mutex<Option<Arc<crate::rdm::Rdm>>>,
}

const _: () = assert!(core::mem::offset_of!(Ep, base) == 0);

/// Largest message (a work request's bytes; every device takes 1 GiB).
pub(crate) const MAX_MSG_SIZE: u64 = 1 << 30;

/// Default queue depth (a size of 0 in the attributes).
const DEFAULT_QUEUE: usize = 128;

fn opbadstate() -> c_int {
    -(sys::KFI_EOPBADSTATE as c_int)
}

impl Ep {
    /// The endpoint's connection.
    pub(crate) fn conn(&self) -> &Conn {
        &self.conn
    }

    /// The wire mode.
    fn mode(&self) -> Mode {
        if self.soft_mode {
            Mode::Soft
        } else {
            Mode::Direct
        }
    }

    /// The queues failed what they held (`disconnected`); in soft mode
    /// the message being received fails too.
    fn data_down(&self) {
        self.data.disconnected();
        if self.soft_mode {
            self.soft_down(bindings::ECANCELED);
        }
    }

    /// Recovers an endpoint from its header.
    ///
    /// # Safety
    /// `ep` is the header of a live endpoint made by
    /// `kfi_prov_domain_endpoint` (our CM table is installed on those only).
    unsafe fn from_ep<'a>(ep: *mut sys::kfid_ep) -> &'a Ep {
        // SAFETY: by the caller's contract.
        unsafe { Ep::from_fid(&mut (*ep).fid) }
    }

    /// Moves `Idle` to `Connecting` and holds the EQ slots of the events
    /// to come; the EQ (the endpoint must be enabled).
    fn start(&self) -> core::result::Result<&crate::util::eq::Eq, c_int> {
        // Final once enabled: read before `cm` is taken (lock order).
        let eq = self.base.enabled_eq().ok_or_else(opbadstate)?;
        let mut g = self.cm.lock();
        match g.st {
            St::Idle => {}
            St::Connecting | St::Connected => return Err(base::neg(bindings::EISCONN)),
            St::Down => return Err(opbadstate()),
        }
        self.base.hold_cm(eq)?;
        g.st = St::Connecting;
        Ok(eq)
    }

    /// Undoes [`Ep::start`] after a call that failed.
    fn unstart(&self, eq: &crate::util::eq::Eq) {
        let mut g = self.cm.lock();
        if g.st == St::Connecting {
            g.st = St::Idle;
        }
        drop(g);
        self.base.unhold_cm(eq);
    }

    /// An event of the connection (the rdma_cm handler or the removal
    /// work, process context).
    fn cm_event(&self, kind: u32, status: c_int, pdata: &[u8]) {
        let Some(eq) = self.base.enabled_eq() else {
            return;
        };
        let fid = self.base.fid();
        let cm = self.base.cm();
        let mut g = self.cm.lock();
        match (kind, g.st) {
            (sys::KFI_VERBS_EV_QP, _) => {
                drop(g);
                self.data.qp_ready();
                if self.soft_mode {
                    self.soft_post_all();
                }
            }
            (sys::KFI_VERBS_EV_ESTABLISHED, St::Connecting)
                if !self.from_req && self.soft_mode && cmdata::decode(pdata).mode != Some(Mode::Soft) =>
            {
                // The peer accepted in direct mode (or is not kfi_verbs):
                // the two ends would not understand each other.
                g.st = St::Down;
                drop(g);
                let _ = self.conn.disconnect();
                self.conn.quiesce();
                self.data_down();
                // SAFETY: as below (no reject data).
                unsafe { cm.error(eq, fid, base::neg(bindings::EPROTO), &[]) };
            }
            (sys::KFI_VERBS_EV_ESTABLISHED, St::Connecting) => {
                g.st = St::Connected;
                drop(g);
                self.data.connected();
                cm.report(eq, fid, sys::KFI_CONNECTED, cmdata::decode(pdata).app);
            }
            (sys::KFI_VERBS_EV_ERROR | sys::KFI_VERBS_EV_DISCONNECTED | sys::KFI_VERBS_EV_REMOVED, St::Connecting) => {
                g.st = St::Down;
                let app = cmdata::decode(pdata).app;
                let n = app.len().min(g.rej.len());
                g.rej[..n].copy_from_slice(&app[..n]);
                let rej = g.rej[..n].as_ptr();
                drop(g);
                self.data_down();
                let err = if status != 0 { status } else { base::neg(bindings::ECONNRESET) };
                // SAFETY: `fid` is this endpoint's header, open while its
                // connection reports (close stops the connection first).
                // `rej` points into the pinned endpoint, written only on
                // this one transition to `Down` (just above), so its `n`
                // bytes stay as they are until the endpoint is freed.
                unsafe { cm.error(eq, fid, err, core::slice::from_raw_parts(rej, n)) };
            }
            (sys::KFI_VERBS_EV_DISCONNECTED | sys::KFI_VERBS_EV_REMOVED, St::Connected) => {
                g.st = St::Down;
                drop(g);
                // Flushed entries before the event (the connection
                // quiesced before reporting).
                self.data_down();
                cm.report(eq, fid, sys::KFI_SHUTDOWN, &[]);
            }
            _ => {}
        }
    }
}

// SAFETY: `#[repr(C)]` with its `EpBase` first (asserted above); allocated
// with KBox and published by `publish_ep` only (`kfi_prov_domain_endpoint`).
unsafe impl ProvEp for Ep {
    const RULES: EpRules = EpRules {
        default_queue: DEFAULT_QUEUE,
        max_queue: crate::logic::info::QUEUE_SIZE,
        tx_op_flags: crate::prov::TX_OP_FLAGS,
        rx_op_flags: crate::prov::RX_OP_FLAGS,
        // An RDMA target sees no completion of remote accesses.
        cntr_events: sys::KFI_SEND as u64 | sys::KFI_RECV as u64 | sys::KFI_READ as u64 | sys::KFI_WRITE as u64,
        rdm: true,
    };

    fn data(&self) -> &EpData {
        &self.data
    }

    /// Makes the work request contexts of the queues' slots (completions
    /// name the queues) and enables the queues. Soft mode: also the chunk
    /// contexts, the bounce buffers (posted now if the queue pair exists)
    /// and the receive work.
    fn enable(&self, c: &EpConfig) -> Result {
        if c.attrs.rdm {
            return self.enable_rdm(c);
        }
        // SAFETY: the domain outlives its endpoints.
        let d = unsafe { &*self.domain };
        let cfg = Config::new(c, MAX_MSG_SIZE, self.domain);
        let owner = (&self.data as *const EpData).cast::<c_void>();
        let (wrs, soft) = if self.soft_mode {
            let bounce = self.soft_alloc()?;
            // SAFETY: the endpoint is pinned and outlives the work, which
            // its queues' close stops (`EpData::close`) before the
            // endpoint is freed.
            let work = unsafe { DWork::new(soft_work, (self as *const Ep).cast_mut().cast())? };
            let st = SoftTx::new(work, cfg.tx_size, bounce)?;
            self.data.set_soft();
            (Wrs::new(owner, cfg.tx_size + NCHUNK, NBOUNCE)?, Some(st))
        } else {
            (Wrs::new(owner, cfg.tx_size, cfg.rx_size)?, None)
        };
        let prep = Prepared { wrs: Some(wrs), conn: &self.conn, qp: self.from_req, iwarp: d.dev().iwarp(), soft };
        self.data.enable(cfg, prep)?;
        if self.soft_mode && self.from_req {
            self.soft_post_all();
        }
        Ok(())
    }

    /// Tears the connection down (the peer sees it end; no event is
    /// reported after this; every work request completes, flushed), then
    /// the queues (soft mode: their receive work stopped; CQ reads holding
    /// the connection waited for), then what the receive work held.
    fn closing(&self) {
        // (Not under `rdm`: the map's close takes rdma_cm handler
        // mutexes, whose handlers take the endpoint's locks.)
        let map = self.rdm.lock().take();
        if let Some(r) = map {
            r.leave(self.base.role(), &self.data);
        }
        self.conn.close();
        drop(self.data.close());
        // CQ reads that took the connection before the queues let go of it.
        self.data.wait_calls();
        if self.soft_mode {
            self.soft_down(0);
        }
    }

    fn cm_data_size(&self) -> usize {
        if self.soft_mode {
            cmdata::APP_MAX_TRAILER
        } else {
            cmdata::APP_MAX
        }
    }
}

impl Ep {
    /// Enable of an RDM endpoint or context (`rdm.rs`): the toolkit's
    /// map (the endpoint's own, listening on its source address; a
    /// context's scalable endpoint's), its queues routing transmits to
    /// their peers' lanes.
    fn enable_rdm(&self, c: &EpConfig) -> Result {
        // SAFETY: the domain outlives its counted endpoints.
        let fabric = unsafe { (*self.domain).fabric() };
        let m = util_rdm::enable_ep(fabric, &self.data, c, |av| {
            let mut cfg = Config::new(c, crate::rdm::RDM_MAX_MSG_SIZE, self.domain);
            cfg.directed = c.attrs.directed;
            cfg.tagged_rma = true;
            let bits = av.rx_ctx_bits();
            cfg.addr_mask = if bits == 0 { u64::MAX } else { u64::MAX >> bits };
            let prep = Prepared { wrs: None, conn: core::ptr::null(), qp: false, iwarp: false, soft: None };
            self.data.enable(cfg, prep)
        })?;
        *self.rdm.lock() = Some(m);
        Ok(())
    }

    /// An endpoint of domain `d` (base `db`) with `attrs` over `conn`,
    /// not published yet (its connection reports to it).
    #[allow(clippy::too_many_arguments)]
    fn make(d: &Domain, db: &DomainBase, attrs: EpAttrs, src: Option<SockAddr>, depths: (u32, u32), from_req: bool, soft: bool, conn: Conn) -> Result<Pin<KBox<Ep>>> {
        let init = pin_init!(Ep {
            base <- EpBase::new(db, attrs),
            domain: d,
            src,
            depths,
            from_req,
            soft_mode: soft,
            soft <- new_mutex!(SoftRx::new(), "kfi_verbs_soft"),
            conn,
            cm <- new_mutex!(CmState { st: St::Idle, rej: [0; cmdata::APP_MAX] }, "kfi_verbs_ep"),
            data <- EpData::new(),
            rdm <- new_mutex!(None, "kfi_verbs_ep_rdm"),
        });
        let b = KBox::pin_init(init, GFP_KERNEL)?;
        // SAFETY: the endpoint is pinned and outlives its connection's
        // reports (`closing` closes the connection before the endpoint is
        // freed).
        unsafe { b.conn.set_owner((&*b as *const Ep).cast()) };
        Ok(b)
    }

    /// A context of a scalable endpoint of `domain` with `attrs` (its
    /// role), not published yet. (Its rdma_cm id, as an RDM endpoint's,
    /// carries nothing: the map's connections are its own.)
    pub(crate) fn new_ctx(domain: *mut sys::kfid_domain, attrs: EpAttrs) -> Result<Pin<KBox<Ep>>> {
        // SAFETY: the scalable endpoint's domain, one of ours, open for
        // the call.
        let (d, db) = unsafe { (Domain::from_fid(&mut (*domain).fid), DomainBase::from_header(domain)) };
        // SAFETY: the domain is open for the call; so is its fabric.
        let net = unsafe { Fabric::net(d.fabric()) };
        let conn = Conn::create(net, false, Some(d.dev())).map_err(Error::from_errno)?;
        Ep::make(d, db, attrs, None, (0, 0), false, false, conn)
    }
}

/// `endpoint` of a domain: a MSG endpoint with its rdma_cm id; with
/// `info->handle` from a `KFI_CONNREQ`, the endpoint that will accept that
/// request (its queue pair is created now, on the domain's device, which
/// must be the request's: else -EINVAL, and the request is refused, as it
/// is when the queue pair cannot be made).
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
    // SAFETY: our domain ops table passes our domains (checked non-NULL).
    let (d, db) = unsafe { (Domain::from_fid(&mut (*domain).fid), DomainBase::from_header(domain)) };
    // The wire mode: soft if the info says so (its entry), else direct;
    // an endpoint opened from a request speaks what the peer asked for.
    // SAFETY: `ep_attr` is NULL or valid (checked info).
    let mut soft = match unsafe { i.ep_attr.as_ref() }.map_or(0, |a| a.protocol_version) {
        0 | crate::prov::WIRE_DIRECT => false,
        crate::prov::WIRE_SOFT => true,
        _ => return einval(),
    };
    // Soft mode: a chunk context per chunk in flight besides the
    // consumer's slots; the receive queue holds the bounce buffers.
    let depths = |soft: bool| {
        if soft {
            ((attrs.tx_size + NCHUNK) as u32, NBOUNCE as u32)
        } else {
            (attrs.tx_size as u32, attrs.rx_size as u32)
        }
    };
    let (conn, src) = if i.handle.is_null() {
        // SAFETY: the domain is open for the call; so is its fabric.
        let net = unsafe { Fabric::net(d.fabric()) };
        match Conn::create(net, false, Some(d.dev())) {
            Ok(c) => (c, src),
            Err(e) => return e,
        }
    } else {
        // SAFETY: the consumer passes the info of one of our CONNREQ
        // events, its passive endpoint still open.
        let req = match unsafe { ConnReq::take(i.handle) } {
            Ok(r) => {
                soft = r.soft;
                r.conn
            }
            Err(e) => return e.to_errno(),
        };
        // The request is ours now: if its queue pair cannot be made on
        // this domain's device, it is refused (freed when `req` drops).
        let (sq, rq) = depths(soft);
        if let Err(e) = req.take(d.dev(), sq, rq) {
            let _ = req.reject(&[0]);
            return e;
        }
        (req, None)
    };
    let b = match Ep::make(d, db, attrs, src, depths(soft), !i.handle.is_null(), soft, conn) {
        Ok(b) => b,
        Err(e) => return e.to_errno(),
    };
    // SAFETY: `Ep` meets `ProvEp`'s contract; its base was made for
    // `domain`, which the consumer holds open; the glue fills an endpoint
    // header (`kfi_util_ep_init`); `ep` was checked.
    unsafe { publish_ep(b, sys::kfi_verbs_glue_ep_init, context, ep) };
    0
}

/// The consumer's CM data of a `connect` or `accept` as private data
/// (libfabric's layout); -EINVAL beyond 55 bytes.
///
/// # Safety
/// `param` is readable for `len` bytes (API contract).
unsafe fn pdata(param: *const c_void, len: usize, mode: Mode, out: &mut [u8; cmdata::TOTAL]) -> core::result::Result<usize, c_int> {
    // SAFETY: by the caller's contract.
    let app = unsafe { base::param_bytes(param, len) }.ok_or_else(einval)?;
    // Soft mode says so in a trailer (libfabric ignores it).
    let trailer = (mode == Mode::Soft).then_some(Mode::Soft);
    cmdata::encode(app, trailer, out).map_err(|_| einval())
}

/// `connect` of an endpoint: starts connecting to `addr` (a sockaddr_in
/// or sockaddr_in6) with `param` as CM data (at most 55 bytes).
/// `KFI_CONNECTED` or an error entry (-ECONNREFUSED when rejected, with
/// the reject's CM data; -ETIMEDOUT, -ENETUNREACH... when the peer cannot
/// be reached; -ENODEV when the route leaves through another device than
/// the domain's) follows on the EQ.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_verbs_ep_connect(
    ep: *mut sys::kfid_ep,
    addr: *const c_void,
    param: *const c_void,
    paramlen: usize,
) -> c_int {
    // SAFETY: only installed on our endpoints.
    let e = unsafe { Ep::from_ep(ep) };
    // Connectionless endpoints connect by themselves.
    if e.base.is_rdm() {
        return base::neg(bindings::ENOSYS);
    }
    let mut pd = [0u8; cmdata::TOTAL];
    // SAFETY: readable for `paramlen` bytes by the API contract.
    let n = match unsafe { pdata(param, paramlen, e.mode(), &mut pd) } {
        Ok(n) => n,
        Err(err) => return err,
    };
    // SAFETY: NULL or a sockaddr_in/sockaddr_in6 by the API contract (no
    // length given: the family's).
    let dst = match unsafe { addr::read_addr(addr, 0) } {
        Ok(a) => a,
        Err(err) => return err.to_errno(),
    };
    if e.src.is_some_and(|s| s.family != dst.family) {
        return einval();
    }
    if e.from_req {
        return base::neg(bindings::EISCONN);
    }
    let eq = match e.start() {
        Ok(eq) => eq,
        Err(err) => return err,
    };
    let (sq, rq) = e.depths;
    match e.conn.connect(e.src.as_ref(), &dst, &pd[..n], sq, rq) {
        Ok(()) => 0,
        Err(err) => {
            e.unstart(eq);
            err
        }
    }
}

/// `accept` of an endpoint opened from a request: replies with `param`
/// as CM data (at most 55 bytes); `KFI_CONNECTED` follows on the EQ.
/// -KFI_EOPBADSTATE for an endpoint not opened from a request (or not
/// enabled), -ENODEV if the device went away.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_verbs_ep_accept(ep: *mut sys::kfid_ep, param: *const c_void, paramlen: usize) -> c_int {
    // SAFETY: only installed on our endpoints.
    let e = unsafe { Ep::from_ep(ep) };
    if e.base.is_rdm() {
        return base::neg(bindings::ENOSYS);
    }
    let mut pd = [0u8; cmdata::TOTAL];
    // SAFETY: readable for `paramlen` bytes by the API contract.
    let n = match unsafe { pdata(param, paramlen, e.mode(), &mut pd) } {
        Ok(n) => n,
        Err(err) => return err,
    };
    if !e.from_req {
        return opbadstate();
    }
    let eq = match e.start() {
        Ok(eq) => eq,
        Err(err) => return err,
    };
    // `cm` is not held: accepting takes the handler mutex.
    match e.conn.accept(&pd[..n]) {
        Ok(()) => 0,
        Err(err) => {
            e.unstart(eq);
            err
        }
    }
}

/// `shutdown` of an endpoint: disconnects; `KFI_SHUTDOWN` is reported
/// once, here (the peer gets its own). -ENOTCONN if not connected.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_verbs_ep_shutdown(ep: *mut sys::kfid_ep, flags: u64) -> c_int {
    if flags != 0 {
        return einval();
    }
    // SAFETY: only installed on our endpoints.
    let e = unsafe { Ep::from_ep(ep) };
    if e.base.is_rdm() {
        return base::neg(bindings::ENOSYS);
    }
    let Some(eq) = e.base.enabled_eq() else {
        return base::neg(bindings::ENOTCONN);
    };
    {
        let mut g = e.cm.lock();
        if g.st != St::Connected {
            return base::neg(bindings::ENOTCONN);
        }
        g.st = St::Down;
    }
    let _ = e.conn.disconnect();
    // Every posted operation completes (flushed) before the event.
    e.conn.quiesce();
    e.data_down();
    e.base.cm().report(eq, e.base.fid(), sys::KFI_SHUTDOWN, &[]);
    0
}

/// `getname` of an endpoint: the connection's local address, else the
/// source address it was opened with.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_verbs_ep_getname(fid: *mut sys::kfid, addr: *mut c_void, len: *mut usize) -> c_int {
    // SAFETY: only installed on our endpoints.
    let e = unsafe { Ep::from_fid(fid) };
    if let Some(r) = e.rdm.lock().as_ref() {
        let a = r.name();
        // SAFETY: buffers as given by the consumer (API contract).
        return unsafe { crate::util::addr::write_name(e.base.nic(), &a, addr, len) };
    }
    let a = match (e.conn.addr(false), e.src) {
        (Ok(a), _) => a,
        (Err(_), Some(a)) => a,
        (Err(_), None) => return opbadstate(),
    };
    // SAFETY: buffers as given by the consumer (API contract).
    unsafe { addr::write_addr(&a, addr, len) }
}

/// `getpeer` of an endpoint: the peer's address (-ENOTCONN before the
/// connection is resolved).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_verbs_ep_getpeer(ep: *mut sys::kfid_ep, addr: *mut c_void, len: *mut usize) -> c_int {
    // SAFETY: only installed on our endpoints.
    let e = unsafe { Ep::from_ep(ep) };
    if e.base.is_rdm() {
        return base::neg(bindings::ENOSYS);
    }
    let a = match e.conn.addr(true) {
        Ok(a) => a,
        Err(_) => return base::neg(bindings::ENOTCONN),
    };
    // SAFETY: buffers as given by the consumer (API contract).
    unsafe { addr::write_addr(&a, addr, len) }
}

/// An event of an endpoint's connection (kfi_verbs_cm.c: the rdma_cm
/// handler or the removal work, process context).
///
/// # Safety
/// `ctx` is the endpoint named by `Conn::set_owner` (live until its
/// connection is closed); `ev` is valid for the call, its private data
/// `pdata_len` bytes (or NULL).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_verbs_ep_cm_event(ctx: *mut c_void, ev: *const sys::kfi_verbs_cm_ev) {
    // SAFETY: by the caller's contract.
    let (e, ev) = unsafe { (&*ctx.cast::<Ep>(), &*ev) };
    let pdata: &[u8] = if ev.pdata.is_null() {
        &[]
    } else {
        // SAFETY: `pdata_len` readable bytes, for the call.
        unsafe { core::slice::from_raw_parts(ev.pdata, ev.pdata_len as usize) }
    };
    e.cm_event(ev.type_ as u32, ev.status, pdata);
}
