// SPDX-License-Identifier: GPL-2.0
//! The passive endpoint base and connection requests: what every
//! provider's passive endpoint (`kfi_passive_ep`, `kfi_listen`,
//! `kfi_reject`) does the same way, whatever its transport. A provider's
//! passive endpoint embeds [`PepBase`] as its first field and implements
//! [`ProvPep`]. The toolkit then owns:
//!
//! - the passive endpoint's ops tables (`kfi_util_pep_init` in
//!   kfi_util_glue.c) and their entries here: `bind` (an EQ of this
//!   provider, flags 0, once), `listen` (-KFI_ENOEQ without an EQ, then
//!   [`ProvPep::listen`]), `getname` ([`ProvPep::name`]), `reject` (CM data
//!   up to [`ProvPep::CM_DATA_MAX`], then [`ProvPep::reject`]) and `close`;
//! - the requests reported and not taken yet, and their object
//!   [`ConnReq`], the `info->handle` of a `KFI_CONNREQ` event (its fid ops
//!   table: `kfi_util_connreq_init`; `kfi_close` of it rejects without CM
//!   data);
//! - the report of a request ([`PepBase::report`]): the request object,
//!   its info (getinfo's `connreq_info`, with the provider's `fill`), the
//!   `KFI_CONNREQ` event;
//! - [`pep_info`] (the address to listen on and the default operation
//!   flags a request's info carries) and [`publish_pep`].
//!
//! What a request carries is the provider's ([`ProvPep::Req`]: kfi_tcp, the
//! accepted connection; an rdma_cm provider, the child `rdma_cm_id`), and
//! so is what a reject or a dropped request sends on the wire.
//!
//! A request is taken ([`ConnReq::take`], by the provider's `endpoint`
//! entry: the payload becomes the new endpoint's), rejected
//! (`kfi_reject`, `kfi_close` of the handle), or dropped when its passive
//! endpoint closes ([`ProvPep::drop_req`]). `info->handle` is therefore
//! valid until one of these.
//!
//! # Locks
//! `state` (mutex; the consumer's calls and the provider's reporting
//! context, all process context): the EQ binding, the requests not taken
//! yet, the closing flag. It is never held while posting an event (the
//! consumer's handler runs from the post) nor while calling a [`ProvPep`]
//! hook, except the `listed` closure of [`PepBase::report`], which runs
//! under it: a provider lock taken there comes after `state`.

use super::addr::{self, SockAddr};
use super::base::{self, einval};
use super::eq::Eq;
use super::fabric::Fabric;
use super::getinfo::connreq_info;
use super::logic::plan::{Addr, Iface, Plan};
use super::sys;
use super::Provider;
use core::ffi::{c_int, c_void};
use core::ptr::addr_of_mut;
use kernel::bindings;
use kernel::new_mutex;
use kernel::prelude::*;
use kernel::sync::Mutex;

/// The provider's passive endpoint object, as the toolkit's entries see
/// it.
type PPep = <crate::Prov as Provider>::Pep;

/// What one of the provider's requests carries.
type PReq = <PPep as ProvPep>::Req;

/// A provider's passive endpoint object.
///
/// # Safety
/// Every value of an implementing type is `#[repr(C)]` with a [`PepBase`]
/// as its first field (the header the consumer holds), allocated with
/// `KBox` and published by [`publish_pep`] only, never moved. (A type with
/// no values, a provider's placeholder before it has passive endpoints,
/// meets this trivially.)
pub(crate) unsafe trait ProvPep: Sized {
    /// What a request carries until it is taken, rejected or dropped
    /// (kfi_tcp: the accepted connection; an rdma_cm provider: the child
    /// id of the CONNECT_REQUEST).
    type Req;

    /// Largest CM data of `kfi_reject` (-EINVAL above it), and the most of
    /// the peer's CM data a `KFI_CONNREQ` event carries.
    const CM_DATA_MAX: usize;

    /// `kfi_listen`, with an EQ bound (process context, no lock held):
    /// starts accepting requests, reported with [`PepBase::report`].
    /// -EINVAL when already listening; the transport's errno
    /// (-EADDRINUSE...).
    fn listen(&self) -> Result;

    /// `kfi_getname`: the address listened on (its port chosen at listen),
    /// else the one it will listen on.
    fn name(&self) -> Result<SockAddr>;

    /// `kfi_close`, once the close is decided (process context, no lock
    /// held): stops listening and whatever was not reported yet, so that
    /// no [`PepBase::report`] runs or comes afterwards. The requests not
    /// taken are dropped after it returns, then the EQ is unbound.
    fn closing(&self);

    /// Refuses a request with `data` (at most [`ProvPep::CM_DATA_MAX`]
    /// bytes; empty for `kfi_close` of the handle) and lets go of it:
    /// `kfi_reject` (process context, no lock held). An error is
    /// `kfi_reject`'s; the request is gone either way.
    fn reject(req: Self::Req, data: &[u8]) -> Result;

    /// Lets go of a request nobody took nor rejected (its passive
    /// endpoint closes; process context, no lock held).
    fn drop_req(req: Self::Req);

    /// The base (first field).
    #[inline(always)]
    fn base(&self) -> &PepBase {
        // SAFETY: the base is the first field of a `#[repr(C)]` object
        // (trait contract).
        unsafe { &*(self as *const Self).cast::<PepBase>() }
    }

    /// Recovers the passive endpoint from its fid.
    ///
    /// # Safety
    /// `fid` is the fid of a live `Self` (the ops tables pass only those).
    #[inline(always)]
    unsafe fn from_fid<'a>(fid: *mut sys::kfid) -> &'a Self {
        // SAFETY: the fid is the first field of the header, itself the
        // first field of the base, itself first in `Self` (trait
        // contract); live by the caller's contract.
        unsafe { &*kernel::container_of!(fid, PepBase, pep.fid).cast::<Self>() }
    }
}

/// What the consumer's info says of a passive endpoint
/// ([`pep_info`]).
#[derive(Clone, Copy)]
pub(crate) struct PepAttrs {
    /// The address to listen on: `info->src_addr` (IPv4 or IPv6), else
    /// port 0 of 0.0.0.0, or of :: for a `KFI_SOCKADDR_IN6` info.
    pub(crate) src: SockAddr,
    /// `tx_attr->op_flags` and `rx_attr->op_flags`: its requests' infos
    /// carry them (as libfabric copies the pep's info into each request),
    /// so endpoints accepted from them get the defaults the consumer
    /// asked for.
    pub(crate) op_flags: (u64, u64),
}

/// The checks of a fabric's `passive_ep` entry that do not depend on the
/// transport: `fabric` and `pep` set (-EINVAL), an address in
/// `info->src_addr` readable as a sockaddr_in or sockaddr_in6 (its
/// errno); the info may be NULL.
///
/// # Safety
/// `info` is NULL or a valid info whose attribute and address pointers are
/// NULL or valid.
pub(crate) unsafe fn pep_info(
    fabric: *mut sys::kfid_fabric,
    info: *mut sys::kfi_info,
    pep: *mut *mut sys::kfid_pep,
) -> core::result::Result<PepAttrs, c_int> {
    if fabric.is_null() || pep.is_null() {
        return Err(einval());
    }
    let mut a = PepAttrs { src: addr::sockaddr(Addr::v4([0; 4], 0)), op_flags: (0, 0) };
    // SAFETY: NULL or valid (caller's contract).
    let Some(i) = (unsafe { info.as_ref() }) else {
        return Ok(a);
    };
    // SAFETY: NULL or valid attributes of a valid info.
    let (tx, rx) = unsafe { (i.tx_attr.as_ref(), i.rx_attr.as_ref()) };
    a.op_flags = (tx.map_or(0, |t| t.op_flags), rx.map_or(0, |r| r.op_flags));
    // SAFETY: `src_addr` holds `src_addrlen` bytes (caller's contract).
    match unsafe { addr::read_info_addr(i.src_addr, i.src_addrlen) } {
        Ok(Some(s)) => a.src = s,
        // An IPv6 entry without an address: any IPv6 address.
        Ok(None) if i.addr_format == sys::KFI_SOCKADDR_IN6 => a.src = addr::sockaddr(Addr::v6([0; 16], 0, 0)),
        Ok(None) => {}
        Err(e) => return Err(e.to_errno()),
    }
    Ok(a)
}

/// What `state` protects.
struct PepState {
    eq: Option<*const Eq>,
    /// Reported requests not taken yet (owned here, KBox-allocated).
    reqs: KVec<*mut ConnReq>,
    /// Set by close: nothing is reported any more.
    closing: bool,
}

// SAFETY: the requests are owned; the EQ outlives its binding (counted);
// accessed under the mutex only.
unsafe impl Send for PepState {}

/// The toolkit's part of a provider's passive endpoint: first field of it.
///
/// # Invariants
/// `fabric` counts the passive endpoint as a child from [`publish_pep`] to
/// `kfi_util_pep_close` (so it outlives it).
#[pin_data]
#[repr(C)]
pub(crate) struct PepBase {
    /// The header the consumer holds; first.
    pep: sys::kfid_pep,
    fabric: *mut Fabric,
    /// Default tx and rx op flags of its requests' infos.
    op_flags: (u64, u64),
    #[pin]
    state: Mutex<PepState>,
}

/// A pending connection request, `info->handle` of a `KFI_CONNREQ`.
#[repr(C)]
pub(crate) struct ConnReq {
    /// Its header; first.
    fid: sys::kfid,
    /// The passive endpoint that reported it (open while it is listed).
    pep: *const PepBase,
    /// What the provider's request carries.
    req: PReq,
}

impl PepBase {
    /// A base for a passive endpoint of `fabric` (which the consumer holds
    /// open for the call) with `attrs` ([`pep_info`]); its header is
    /// filled by [`publish_pep`].
    ///
    /// # Safety
    /// `fabric` is one of this provider's fabric headers.
    pub(crate) unsafe fn new(fabric: *mut sys::kfid_fabric, attrs: PepAttrs) -> impl PinInit<Self> {
        // SAFETY: one of our fabrics (caller's contract).
        let fabric = unsafe { Fabric::from_header(fabric) };
        pin_init!(PepBase {
            // SAFETY: all-zero is a valid header (NULL pointers, zero
            // class); filled in by `publish_pep`.
            pep: unsafe { core::mem::zeroed() },
            fabric,
            op_flags: attrs.op_flags,
            state <- new_mutex!(PepState { eq: None, reqs: KVec::new(), closing: false }, "kfi_util_pep"),
        })
    }

    /// The fabric it was opened on (open while the passive endpoint is).
    pub(crate) fn fabric(&self) -> *mut Fabric {
        self.fabric
    }

    /// The passive endpoint's fid (what its events name).
    fn fid(&self) -> *mut sys::kfid {
        &self.pep.fid as *const sys::kfid as *mut sys::kfid
    }

    /// Reports a connection request (from the provider's reporting
    /// context: process context, no lock of the passive endpoint held):
    /// lists a [`ConnReq`] carrying `req`, builds its info (the
    /// provider's `fill`, as for `kgetinfo` but with no interface; the
    /// connection's `local` and `peer` addresses; the passive endpoint's
    /// default operation flags), calls `listed` under `state` once it is
    /// listed (the provider forgets it as unreported there), then posts
    /// `KFI_CONNREQ` with at most [`ProvPep::CM_DATA_MAX`] bytes of the
    /// peer's `data`.
    ///
    /// The EQ slot is reserved first: on any error (-ESHUTDOWN when the
    /// passive endpoint is closing or has no EQ, -EAGAIN when the EQ is
    /// full, -ENOMEM) nothing is listed nor posted and `req` comes back to
    /// the caller, whose request it still is.
    pub(crate) fn report(
        &self,
        req: PReq,
        local: Addr,
        peer: Addr,
        data: &[u8],
        fill: impl FnOnce(&mut sys::kfi_info, Option<&Iface<'_>>, &Plan, u32) -> Result,
        listed: impl FnOnce(),
    ) -> core::result::Result<(), (Error, PReq)> {
        let mut g = self.state.lock();
        let eq = match (g.closing, g.eq) {
            // SAFETY: bound, hence open until the passive endpoint closes,
            // which cannot happen before this returns (it sets `closing`
            // and then waits for the provider's reporting contexts).
            (false, Some(eq)) => unsafe { &*eq },
            _ => return Err((Error::from_errno(-(bindings::ESHUTDOWN as c_int)), req)),
        };
        let slot = match eq.reserve() {
            Ok(s) => s,
            Err(_) => return Err((EAGAIN, req)),
        };
        if let Err(e) = crate::Prov::fail_alloc() {
            return Err((e, req));
        }
        let r = match KBox::<ConnReq>::new_uninit(GFP_KERNEL) {
            Ok(r) => KBox::into_raw(r.write(ConnReq {
                // SAFETY: all-zero is a valid header; filled in below.
                fid: unsafe { core::mem::zeroed() },
                pep: self,
                req,
            })),
            Err(e) => return Err((e.into(), req)),
        };
        // SAFETY: `r` is our fresh object; the glue sets class and ops.
        unsafe { sys::kfi_util_connreq_init(addr_of_mut!((*r).fid)) };
        // SAFETY: as above.
        let info = connreq_info(fill, local, peer, unsafe { addr_of_mut!((*r).fid) }, self.op_flags);
        let info = match info {
            Ok(i) => i,
            Err(e) => {
                // SAFETY: never published; freed once.
                let r = unsafe { KBox::from_raw(r) };
                return Err((e, KBox::into_inner(r).req));
            }
        };
        if crate::Prov::fail_alloc().is_err() || g.reqs.push(r, GFP_KERNEL).is_err() {
            // SAFETY: never published; freed once each.
            let r = unsafe {
                sys::kfi_freeinfo(info);
                KBox::from_raw(r)
            };
            return Err((ENOMEM, KBox::into_inner(r).req));
        }
        listed();
        drop(g);
        let mut buf = [0u8; 16 + PPep::CM_DATA_MAX];
        let n = data.len().min(PPep::CM_DATA_MAX);
        buf[..8].copy_from_slice(&(self.fid() as usize as u64).to_ne_bytes());
        buf[8..16].copy_from_slice(&(info as usize as u64).to_ne_bytes());
        buf[16..16 + n].copy_from_slice(&data[..n]);
        // The slot is ours: the event cannot be lost. The request may be
        // taken as soon as it is read; nothing of it is used after this.
        slot.post(sys::KFI_CONNREQ, false, &buf[..16 + n]);
        Ok(())
    }

    /// Unlists a reported request.
    fn take_req(&self, req: *mut ConnReq) -> Option<*mut ConnReq> {
        let mut g = self.state.lock();
        let i = g.reqs.iter().position(|r| *r == req)?;
        base::kvec_remove(&mut g.reqs, i)
    }
}

impl ConnReq {
    /// Takes a request given as `info->handle`: the request object is
    /// freed, what it carries becomes the caller's (the provider's
    /// `endpoint` entry: the new endpoint's). -EINVAL if `handle` is not a
    /// pending request of this provider.
    ///
    /// # Safety
    /// `handle` is NULL or a valid object header; if it is one of this
    /// provider's requests, its passive endpoint is still open.
    pub(crate) unsafe fn take(handle: *mut sys::kfid) -> Result<PReq> {
        // SAFETY: NULL or valid (caller's contract).
        if handle.is_null() || !unsafe { sys::kfi_util_is_connreq(handle) } {
            return Err(EINVAL);
        }
        let req = kernel::container_of!(handle, ConnReq, fid) as *mut ConnReq;
        // SAFETY: one of our requests (checked), live (caller's contract),
        // names its live passive endpoint.
        let pep = unsafe { &*(*req).pep };
        let req = pep.take_req(req).ok_or(EINVAL)?;
        // SAFETY: unlisted above: ours alone; allocated with KBox.
        Ok(KBox::into_inner(unsafe { KBox::from_raw(req) }).req)
    }
}

/// Publishes a new passive endpoint: counts it on its fabric, fills its
/// header (`kfi_util_pep_init`) and stores the header in `*out`. Nothing
/// can fail any more.
///
/// # Safety
/// `P` meets [`ProvPep`]'s contract; the base of `b` was made by
/// [`PepBase::new`] for a fabric the consumer holds open for the call;
/// `out` is writable.
pub(crate) unsafe fn publish_pep<P: ProvPep>(b: Pin<KBox<P>>, context: *mut c_void, out: *mut *mut sys::kfid_pep) {
    // SAFETY: never moved: `kfi_util_pep_close` frees it in place.
    let p = KBox::into_raw(unsafe { Pin::into_inner_unchecked(b) });
    // SAFETY: `P` starts with its `PepBase` (trait contract).
    let base = p.cast::<PepBase>();
    // SAFETY: `p` is our fresh object, its fabric open (caller's
    // contract); the header is filled before the consumer sees it.
    unsafe {
        Fabric::children((*base).fabric).opened();
        sys::kfi_util_pep_init(addr_of_mut!((*base).pep), context);
        *out = addr_of_mut!((*base).pep);
    }
}

/// `bind` of a passive endpoint: an EQ of this provider, flags 0, once.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_pep_bind(fid: *mut sys::kfid, bfid: *mut sys::kfid, flags: u64) -> c_int {
    // SAFETY: only installed on our passive endpoints.
    let p = unsafe { PPep::from_fid(fid) };
    // SAFETY: NULL or a valid fid by the API contract (class and ops
    // table checked before it is used as an EQ).
    if flags != 0 || bfid.is_null() || !unsafe { Eq::is_eq(bfid) } {
        return einval();
    }
    // SAFETY: an EQ of this provider.
    let eq = unsafe { Eq::from_fid(bfid) };
    let mut g = p.base().state.lock();
    if g.eq.is_some() {
        return einval();
    }
    eq.bind();
    g.eq = Some(eq);
    0
}

/// `listen` of a passive endpoint: -KFI_ENOEQ without an EQ; else the
/// provider's ([`ProvPep::listen`]: -EINVAL if already listening, the
/// transport's errno).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_pep_listen(pep: *mut sys::kfid_pep) -> c_int {
    // SAFETY: only installed on our passive endpoints.
    let p = unsafe { PPep::from_fid(addr_of_mut!((*pep).fid)) };
    if p.base().state.lock().eq.is_none() {
        return -(sys::KFI_ENOEQ as c_int);
    }
    match p.listen() {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
}

/// `getname` of a passive endpoint: the provider's [`ProvPep::name`].
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_pep_getname(fid: *mut sys::kfid, addr: *mut c_void, len: *mut usize) -> c_int {
    // SAFETY: only installed on our passive endpoints.
    let p = unsafe { PPep::from_fid(fid) };
    match p.name() {
        // SAFETY: buffers as given by the consumer (API contract).
        Ok(a) => unsafe { addr::write_addr(&a, addr, len) },
        Err(e) => e.to_errno(),
    }
}

/// `reject` of a passive endpoint: refuses a reported request with CM
/// data (at most [`ProvPep::CM_DATA_MAX`] bytes: -EINVAL above it, the
/// request staying pending).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_pep_reject(
    _pep: *mut sys::kfid_pep,
    handle: *mut sys::kfid,
    param: *const c_void,
    paramlen: usize,
) -> c_int {
    // SAFETY: readable for `paramlen` bytes by the API contract.
    let Some(data) = (unsafe { base::param_bytes(param, paramlen) }) else {
        return einval();
    };
    if data.len() > PPep::CM_DATA_MAX {
        return einval();
    }
    // SAFETY: the consumer passes a valid handle; one of our requests has
    // its passive endpoint open.
    match unsafe { ConnReq::take(handle) } {
        Ok(r) => match PPep::reject(r, data) {
            Ok(()) => 0,
            Err(e) => e.to_errno(),
        },
        Err(e) => e.to_errno(),
    }
}

/// `close` of a connection request: rejects it without CM data.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_connreq_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: installed on our requests only.
    match unsafe { ConnReq::take(fid) } {
        Ok(r) => {
            let _ = PPep::reject(r, &[]);
            0
        }
        Err(e) => e.to_errno(),
    }
}

/// `close` of a passive endpoint: stops listening and what was not
/// reported ([`ProvPep::closing`]), drops the requests not taken
/// ([`ProvPep::drop_req`]), unbinds the EQ, frees it and uncounts it on
/// its fabric.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_pep_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: only installed on our passive endpoints.
    let p = unsafe { PPep::from_fid(fid) };
    let b = p.base();
    b.state.lock().closing = true;
    // Nothing is reported once this returns.
    p.closing();
    let (reqs, eq) = {
        let mut g = b.state.lock();
        (core::mem::replace(&mut g.reqs, KVec::new()), g.eq.take())
    };
    for &r in reqs.iter() {
        // SAFETY: unlisted, owned, allocated with KBox.
        PPep::drop_req(KBox::into_inner(unsafe { KBox::from_raw(r) }).req);
    }
    drop(reqs);
    if let Some(eq) = eq {
        // SAFETY: bound, hence open.
        unsafe { &*eq }.unbind();
    }
    let f = b.fabric;
    // SAFETY: allocated by the provider and published by `publish_pep`
    // (trait contract); stopped, so nothing refers to it; the consumer
    // gave up its pointer.
    drop(unsafe { KBox::from_raw(p as *const PPep as *mut PPep) });
    // SAFETY: the fabric outlives its counted children (INVARIANT).
    unsafe { Fabric::children(f).closed() };
    0
}
