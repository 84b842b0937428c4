// SPDX-License-Identifier: GPL-2.0
//! Passive endpoints (`kfi_passive_ep`, `kfi_listen`, `kfi_reject`) over
//! rdma_cm. The toolkit's passive endpoint base (`kfi_util/pep.rs`) owns
//! the EQ binding, the requests reported and not taken yet and their
//! `KFI_CONNREQ` events; this provider owns the listening rdma_cm id (one
//! connection of kfi_verbs_cm.c) and what a request carries: the
//! request's own connection (the child id of rdma_cm's CONNECT_REQUEST),
//! which the endpoint accepting it takes (`ep.rs`), or which is rejected
//! with the consumer's CM data (libfabric verbs' private data layout) or
//! without any when nobody takes it.
//!
//! A request's info names the device and port it came to (domain and
//! fabric names as `kfi_getinfo` gives them, sizes within the device's
//! limits): the accepting endpoint must be opened on a domain of that
//! device.
//!
//! # Locks
//! `listening` (mutex; `kfi_listen`, `getname`): whether the id listens.
//! Requests are reported from the rdma_cm handler (process context, the
//! listening and the request's handler mutexes held), which takes only
//! the base's lock.

use crate::ffi::{kfi_info, sys, Conn};
use crate::logic::cmdata;
use crate::logic::plan::{Iface, Plan};
use crate::util::addr::{self, SockAddr};
use crate::util::base;
use crate::util::fabric::Fabric;
use crate::util::pep::{pep_info, publish_pep, PepBase, ProvPep};
use core::ffi::{c_int, c_void};
use kernel::bindings;
use kernel::new_mutex;
use kernel::prelude::*;
use kernel::sync::Mutex;

/// Requests rdma_cm holds before they are reported.
const BACKLOG: c_int = 128;

/// A passive endpoint: the consumer sees the header in `base`.
#[pin_data]
#[repr(C)]
pub(crate) struct Pep {
    /// Header, EQ binding and pending requests; first.
    #[pin]
    base: PepBase,
    /// The address to listen on.
    src: SockAddr,
    /// The listening id.
    conn: Conn,
    #[pin]
    listening: Mutex<bool>,
}

const _: () = assert!(core::mem::offset_of!(Pep, base) == 0);

/// The consumer's CM data of a reject as private data (libfabric's
/// layout).
fn reject_pdata(data: &[u8], out: &mut [u8; cmdata::TOTAL]) -> Result<usize> {
    cmdata::encode(data, None, out).map_err(|_| EINVAL)
}

/// A connection request: its connection and the wire mode the peer asked
/// for (the trailer of its private data: soft, else direct).
pub(crate) struct Req {
    pub(crate) conn: Conn,
    pub(crate) soft: bool,
}

// SAFETY: `#[repr(C)]` with its `PepBase` first (asserted above), allocated
// with `KBox` by `kfi_prov_fabric_passive_ep` and published by
// `publish_pep` only.
unsafe impl ProvPep for Pep {
    type Req = Req;

    const CM_DATA_MAX: usize = cmdata::APP_MAX;

    /// Binds the id to the address and listens: -EINVAL if already
    /// listening, rdma_cm's errno (-EADDRINUSE, -EADDRNOTAVAIL...)
    /// otherwise.
    fn listen(&self) -> Result {
        let mut g = self.listening.lock();
        if *g {
            return Err(EINVAL);
        }
        self.conn.listen(&self.src, BACKLOG).map_err(Error::from_errno)?;
        *g = true;
        Ok(())
    }

    fn name(&self) -> Result<SockAddr> {
        // Bound once listening (with the port chosen then).
        Ok(self.conn.addr(false).unwrap_or(self.src))
    }

    /// Destroys the listening id: no request is reported afterwards.
    fn closing(&self) {
        self.conn.close();
    }

    fn reject(req: Req, data: &[u8]) -> Result {
        let mut pd = [0u8; cmdata::TOTAL];
        let n = reject_pdata(data, &mut pd)?;
        // The request is freed (its id destroyed) when `req` drops.
        req.conn.reject(&pd[..n]).map_err(Error::from_errno)
    }

    fn drop_req(req: Req) {
        let _ = Self::reject(req, &[]);
    }
}

/// `passive_ep` of a fabric: a passive endpoint that will listen on
/// `info->src_addr` (any address of the info's family and a port rdma_cm
/// chooses when none is given).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_prov_fabric_passive_ep(
    fabric: *mut sys::kfid_fabric,
    info: *mut kfi_info,
    pep: *mut *mut sys::kfid_pep,
    context: *mut c_void,
) -> c_int {
    // SAFETY: NULL or valid by the API contract.
    let a = match unsafe { pep_info(fabric, info, pep) } {
        Ok(a) => a,
        Err(e) => return e,
    };
    // SAFETY: only our fabric ops table reaches this function; the fabric
    // is open for the call.
    let net = unsafe { Fabric::net(Fabric::from_header(fabric)) };
    let conn = match Conn::create(net, true, None) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let init = pin_init!(Pep {
        // SAFETY: one of our fabrics (as above).
        base <- unsafe { PepBase::new(fabric, a) },
        src: a.src,
        conn,
        listening <- new_mutex!(false, "kfi_verbs_pep"),
    });
    let Ok(b) = KBox::pin_init(init, GFP_KERNEL) else {
        return base::neg(bindings::ENOMEM);
    };
    // SAFETY: the passive endpoint is pinned and outlives its connection's
    // reports (`closing` closes the connection before it is freed).
    unsafe { b.conn.set_owner((&*b as *const Pep).cast()) };
    // SAFETY: `Pep` meets `ProvPep`'s contract; its base was made for
    // `fabric`, which the consumer holds open; `pep` was checked.
    unsafe { publish_pep(b, context, pep) };
    0
}

/// An event of a passive endpoint's listening id (kfi_verbs_cm.c: the
/// rdma_cm handler or the removal work, process context): a request is
/// reported (0: the toolkit lists it; else it goes back to C, which
/// rejects it). The removal of the device the id was bound to stops the
/// listening silently (no event: the consumer's `kfi_listen` had
/// succeeded; later requests on other devices need a new passive
/// endpoint).
///
/// # Safety
/// `ctx` is the passive endpoint named by `Conn::set_owner` (live until
/// its connection is closed); `ev` is valid for the call, its private
/// data `pdata_len` bytes (or NULL), its request unowned.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_verbs_pep_cm_event(ctx: *mut c_void, ev: *const sys::kfi_verbs_cm_ev) -> c_int {
    // SAFETY: by the caller's contract.
    let (p, ev) = unsafe { (&*ctx.cast::<Pep>(), &*ev) };
    if ev.type_ as u32 != sys::KFI_VERBS_EV_CONNREQ {
        return 0;
    }
    // SAFETY: the event's request, unowned (caller's contract).
    let Some(req) = (unsafe { Conn::from_request(ev.req) }) else {
        return base::neg(bindings::EINVAL);
    };
    let pdata: &[u8] = if ev.pdata.is_null() {
        &[]
    } else {
        // SAFETY: `pdata_len` readable bytes, for the call.
        unsafe { core::slice::from_raw_parts(ev.pdata, ev.pdata_len as usize) }
    };
    let (local, peer, port) = (addr::logic_addr(&ev.local), addr::logic_addr(&ev.peer), ev.port);
    // A kfi_verbs peer in soft mode says so in its trailer; the request's
    // info offers that mode (and an endpoint opened from it must use it).
    let d = cmdata::decode(pdata);
    let soft = d.mode == Some(cmdata::Mode::Soft);
    let fill = |e: &mut kfi_info, _iface: Option<&Iface<'_>>, plan: &Plan, version: u32| {
        crate::prov::fill(e, local.family, &port, plan, version, soft)
    };
    match p.base.report(Req { conn: req, soft }, local, peer, d.app, fill, || {}) {
        Ok(()) => 0,
        Err((e, req)) => {
            // Back to C, which rejects and frees it (freeing it here would
            // wait for the handler this runs in).
            req.conn.into_raw();
            e.to_errno()
        }
    }
}
