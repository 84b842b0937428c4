// SPDX-License-Identifier: GPL-2.0
//! Scalable endpoints (`kfi_scalable_ep`): what every provider's does the
//! same way. A scalable endpoint is a connectionless (RDM) endpoint whose
//! transfers go through transmit and receive contexts (`kfi_tx_context`,
//! `kfi_rx_context`), each a `kfid_ep` of its own with its own CQs and
//! counters, so that CPUs post and complete without sharing queues; a
//! sender names receive context `i` of a peer with `kfi_rx_addr`.
//!
//! The toolkit owns the object ([`SepBase`], first field of the
//! provider's [`ProvSep`]): its ops tables (`kfi_util_sep_init` in
//! kfi_util_glue.c), the domain's `scalable_ep` entry, `bind` (an AV,
//! once), `control` (`KFI_ENABLE`, which needs the AV), `close` (-EBUSY
//! while a context is open: contexts are closed first, in any order) and
//! the context entries, which check the index and the attributes and make
//! each context an endpoint of the provider ([`ProvSep::context`]) with
//! the role [`Role::Tx`] or [`Role::Rx`]: the endpoint base then binds its
//! CQs (flags 0: the context's direction) and counters, enables it once
//! the scalable endpoint is, and refuses transfers of the other
//! direction (its queues have none: -KFI_ENOSYS). What the provider adds
//! is the transport: [`ProvSep::enable`] (the listener and the
//! connection map its contexts share), [`ProvSep::closing`] and the
//! address (`getname`, its CM table). Both providers' is [`MapSep`]: the
//! toolkit's connection map, its contexts the provider's endpoints
//! ([`ProvRdm::context`]).
//!
//! # Locks
//! `st` (mutex, process context): the AV, the enabled flag and which
//! contexts are open. Taken after a context's `binds` (its enable reads
//! the AV) and never while calling the provider.

use super::addr::SockAddr;
use super::av::Av;
use super::base::{self, einval};
use super::ep::{self as util_ep, publish_ep, EpAttrs, ProvEp, Role};
use super::fabric::Fabric;
use super::fid::DomainBase;
use super::rdm::{Map, ProvRdm};
use super::sys;
use super::Provider;
use core::ffi::{c_int, c_void};
use core::ptr::addr_of_mut;
use kernel::bindings;
use kernel::new_mutex;
use kernel::prelude::*;
use kernel::sync::{Arc, Mutex};

/// The provider's scalable endpoint object.
type PSep = <crate::Prov as Provider>::Sep;
/// The provider's endpoint object (what a context is).
type PEp = <crate::Prov as Provider>::Endpoint;

/// Most contexts of each kind a scalable endpoint has (an AV's
/// `rx_ctx_bits` of 8 names 256).
pub(crate) const MAX_CTX: usize = 256;

/// What an RDM entry of `kfi_getinfo` says of scalable endpoints: up to
/// [`MAX_CTX`] contexts each way; by default one per CPU (a consumer that
/// does not size them, as kfilnd without its CXI fabric ops, gets one per
/// CPU partition).
pub(crate) fn advertise(dom: &mut sys::kfi_domain_attr, ep: &mut sys::kfi_ep_attr) {
    dom.max_ep_tx_ctx = MAX_CTX;
    dom.max_ep_rx_ctx = MAX_CTX;
    ep.tx_ctx_cnt = base::nr_cpus().clamp(1, MAX_CTX);
    ep.rx_ctx_cnt = ep.tx_ctx_cnt;
}

/// A provider's scalable endpoint object.
///
/// # Safety
/// Every value of an implementing type is `#[repr(C)]` with a [`SepBase`]
/// as its first field, allocated with `KBox` and published by the
/// toolkit's `scalable_ep` entry only, never moved.
pub(crate) unsafe trait ProvSep: Sized {
    /// The provider's object with the base `base`, for the domain's
    /// `scalable_ep` entry (called only if the provider's endpoints
    /// offer RDM, [`super::ep::EpRules::rdm`]).
    fn open(domain: *mut sys::kfid_domain, base: impl PinInit<SepBase>) -> Result<Pin<KBox<Self>>>;

    /// `kfi_enable`, once, with the bound AV (process context, no lock
    /// held): starts what the contexts share.
    fn enable(&self, av: &Av) -> Result;

    /// A context with `attrs` (its role, queue sizes and flags), not
    /// published yet: the provider's endpoint object.
    fn context(&self, attrs: EpAttrs) -> Result<Pin<KBox<PEp>>>;

    /// `kfi_close`, every context closed: stops what `enable` started.
    fn closing(&self);

    /// Its address once enabled (`kfi_getname`: what peers insert).
    fn name(&self) -> Option<SockAddr>;

    /// Recovers the object from its base.
    ///
    /// # Safety
    /// `b` is the base of a live `Self`.
    #[inline(always)]
    unsafe fn from_base(b: &SepBase) -> &Self {
        // SAFETY: the base is the first field (trait contract) of a live
        // `Self` (caller's contract).
        unsafe { &*(b as *const SepBase).cast::<Self>() }
    }
}

/// The scalable endpoint of every provider whose connectionless
/// endpoints are the toolkit's connection map (`rdm.rs`): one map that
/// its contexts share, made by enable: the listener peers connect to
/// (`kfi_getname` names it) and the work item that opens the transmit
/// contexts' connections.
///
/// Each context is an RDM endpoint's queues of its own (the provider's
/// endpoint, [`ProvRdm::context`], role `Tx`/`Rx`): a transmit context
/// keeps a lane per peer and receive context it sends to
/// (`kfi_rx_addr`), whose connection carries its transmits only (connect
/// data with kfabric's context extension, one way: `logic::rxm::CtxExt`);
/// a receive context takes the connections peers open to it, which carry
/// their messages, RMA and rendezvous (its ACKs and read requests go back
/// on them). So a context never takes another's lock, and a CPU driving
/// one context touches only its queues and connections (see
/// `Documentation/rdm.md`, "Scalable endpoints").
#[pin_data]
#[repr(C)]
pub(crate) struct MapSep {
    /// Header, AV, contexts open; first.
    #[pin]
    base: SepBase,
    /// The domain's header (open while the endpoint is: counted).
    domain: *mut sys::kfid_domain,
    /// The map, from enable to close.
    #[pin]
    map: Mutex<Option<Arc<Map<crate::Prov>>>>,
}

const _: () = assert!(core::mem::offset_of!(MapSep, base) == 0);

impl MapSep {
    /// The map, once enabled (what a context's enable joins).
    pub(crate) fn map(&self) -> Option<Arc<Map<crate::Prov>>> {
        self.map.lock().clone()
    }
}

// SAFETY: `#[repr(C)]` with its `SepBase` first (asserted above);
// allocated with KBox by `open`, published by the toolkit only.
unsafe impl ProvSep for MapSep {
    fn open(domain: *mut sys::kfid_domain, base: impl PinInit<SepBase>) -> Result<Pin<KBox<MapSep>>> {
        KBox::pin_init(
            pin_init!(MapSep {
                base <- base,
                domain,
                map <- new_mutex!(None, "kfi_util_sep_map"),
            }),
            GFP_KERNEL,
        )
    }

    /// Listens on the source address (any address and an ephemeral port
    /// when none was given).
    fn enable(&self, av: &Av) -> Result {
        // SAFETY: the domain outlives its counted children (`SepBase`'s
        // invariant); so does its fabric.
        let net = unsafe { Fabric::net((*self.base.domain()).fabric()) };
        let src = self.base.src().unwrap_or(super::addr::ANY_V4);
        let m = Map::start(None, self.base.counts(), av, net, src, self.base.rx_size())?;
        *self.map.lock() = Some(m);
        Ok(())
    }

    fn context(&self, attrs: EpAttrs) -> Result<Pin<KBox<PEp>>> {
        <crate::Prov as ProvRdm>::context(self.domain, attrs)
    }

    /// Every context is closed (they left the map): stops the listener
    /// and what is left of the map's connections.
    fn closing(&self) {
        // Not under `map`: the map's close takes the provider's connection
        // locks (kfi_verbs: rdma_cm handler mutexes), whose handlers take
        // endpoints' locks, under which a context's enable reads `map`.
        let m = self.map.lock().take();
        if let Some(m) = m {
            m.shut();
        }
    }

    fn name(&self) -> Option<SockAddr> {
        self.map.lock().as_ref().map(|m| m.name())
    }
}

/// What `st` protects.
struct St {
    av: Option<*const Av>,
    enabled: bool,
    /// Which transmit and receive contexts are open, by index.
    tx_open: KVec<bool>,
    rx_open: KVec<bool>,
    open: usize,
}

// SAFETY: the AV pointer stays valid while bound (it refuses to close);
// accessed under the mutex only.
unsafe impl Send for St {}

/// The toolkit's part of a scalable endpoint: first field of the
/// provider's object.
///
/// # Invariants
/// `domain` counts the endpoint as a child from its publication to its
/// close (so it outlives it); `attrs.sep` is null (contexts get their own
/// copy naming this base).
#[pin_data]
#[repr(C)]
pub(crate) struct SepBase {
    /// The header the consumer holds; first.
    ep: sys::kfid_ep,
    domain: *const DomainBase,
    /// The contexts' defaults (`info->tx_attr`, `rx_attr`), its source
    /// address and whether receives are directed.
    attrs: EpAttrs,
    tx_cnt: usize,
    rx_cnt: usize,
    #[pin]
    st: Mutex<St>,
}

impl SepBase {
    /// Recovers a base from its fid.
    ///
    /// # Safety
    /// `fid` is the fid of a live scalable endpoint of this provider.
    #[inline(always)]
    unsafe fn from_fid<'a>(fid: *mut sys::kfid) -> &'a SepBase {
        // SAFETY: the fid is the first field of the header, itself first.
        unsafe { &*kernel::container_of!(fid, SepBase, ep.fid) }
    }

    /// The domain it was opened on (open while it is).
    pub(crate) fn domain(&self) -> *const DomainBase {
        self.domain
    }

    /// The source address it was opened with (`info->src_addr`).
    pub(crate) fn src(&self) -> Option<SockAddr> {
        self.attrs.src
    }

    /// Its receive queue depth (each receive context's default).
    pub(crate) fn rx_size(&self) -> usize {
        self.attrs.rx_size
    }

    /// How many transmit and receive contexts it has.
    pub(crate) fn counts(&self) -> (usize, usize) {
        (self.tx_cnt, self.rx_cnt)
    }

    /// The bound AV once enabled (what a context's enable needs).
    pub(crate) fn enabled_av(&self) -> Option<*const Av> {
        let g = self.st.lock();
        g.av.filter(|_| g.enabled)
    }

    /// A context closed (the endpoint base's close, after freeing it).
    pub(crate) fn ctx_closed(&self, role: Role) {
        let mut g = self.st.lock();
        let slot = match role {
            Role::Tx(i) => g.tx_open.get_mut(i as usize),
            Role::Rx(i) => g.rx_open.get_mut(i as usize),
            Role::Whole => None,
        };
        if let Some(s) = slot {
            if core::mem::take(s) {
                g.open -= 1;
            }
        }
    }
}

/// The domain's `scalable_ep` entry: checks `info` as `kfi_endpoint`
/// does (sizes, default flags, source address; an endpoint type of RDM or
/// unspecified, -EINVAL otherwise) and its context counts
/// (`ep_attr->tx_ctx_cnt`, `rx_ctx_cnt`: 0 is 1, more than [`MAX_CTX`]
/// -EINVAL), then lets the provider make its object (-KFI_ENOSYS if it
/// has no scalable endpoints).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_domain_scalable_ep(
    domain: *mut sys::kfid_domain,
    info: *mut sys::kfi_info,
    sep: *mut *mut sys::kfid_ep,
    context: *mut c_void,
) -> c_int {
    if !PEp::RULES.rdm {
        return -(sys::KFI_ENOSYS as c_int);
    }
    // SAFETY: NULL or valid by the API contract.
    let (i, mut attrs) = match unsafe { util_ep::ep_info(&PEp::RULES, domain, info, sep) } {
        Ok(v) => v,
        Err(e) => return e,
    };
    // SAFETY: NULL or valid (the API contract; checked by `ep_info`).
    let ea = unsafe { i.ep_attr.as_ref() };
    if ea.is_some_and(|a| a.type_ == sys::KFI_EP_MSG) {
        return einval();
    }
    let cnt = |n: usize| match n {
        0 => Some(1),
        n if n <= MAX_CTX => Some(n),
        _ => None,
    };
    let (Some(tx_cnt), Some(rx_cnt)) = (cnt(ea.map_or(0, |a| a.tx_ctx_cnt)), cnt(ea.map_or(0, |a| a.rx_ctx_cnt))) else {
        return einval();
    };
    // SAFETY: as above.
    let rx_caps = unsafe { i.rx_attr.as_ref() }.map_or(0, |r| r.caps);
    attrs.rdm = true;
    attrs.directed = (i.caps | rx_caps) & sys::KFI_DIRECTED_RECV != 0;
    let (Ok(tx_open), Ok(rx_open)) = (base::kvec_filled(false, tx_cnt), base::kvec_filled(false, rx_cnt)) else {
        return base::neg(bindings::ENOMEM);
    };
    // SAFETY: our domain ops table passes our domains (checked non-NULL).
    let db: *const DomainBase = unsafe { DomainBase::from_header(domain) };
    let init = pin_init!(SepBase {
        // SAFETY: all-zero is a valid header; filled in below.
        ep: unsafe { core::mem::zeroed() },
        domain: db,
        attrs,
        tx_cnt,
        rx_cnt,
        st <- new_mutex!(St { av: None, enabled: false, tx_open, rx_open, open: 0 }, "kfi_util_sep"),
    });
    let b = match PSep::open(domain, init) {
        Ok(b) => b,
        Err(e) => return e.to_errno(),
    };
    // SAFETY: never moved: the close frees it in place.
    let p = KBox::into_raw(unsafe { Pin::into_inner_unchecked(b) });
    let base = p.cast::<SepBase>();
    // SAFETY: our fresh object (its base first: trait contract), its
    // domain open for the call; the header is filled before the consumer
    // sees it.
    unsafe {
        (*db).children.opened();
        sys::kfi_util_sep_init(addr_of_mut!((*base).ep), context);
        *sep = addr_of_mut!((*base).ep);
    }
    0
}

/// `bind` of a scalable endpoint, before `kfi_enable`: an AV of this
/// provider, once, flags 0 (-EINVAL otherwise; -KFI_EOPBADSTATE once
/// enabled).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_sep_bind(fid: *mut sys::kfid, bfid: *mut sys::kfid, flags: u64) -> c_int {
    // SAFETY: only installed on our scalable endpoints.
    let b = unsafe { SepBase::from_fid(fid) };
    if bfid.is_null() || flags != 0 {
        return einval();
    }
    // SAFETY: a valid fid by the API contract.
    if unsafe { (*bfid).fclass } as u32 != sys::KFI_CLASS_AV || !unsafe { Av::is_av(bfid) } {
        return einval();
    }
    let mut g = b.st.lock();
    if g.enabled {
        return -(sys::KFI_EOPBADSTATE as c_int);
    }
    if g.av.is_some() {
        return einval();
    }
    // SAFETY: an AV of this provider (checked).
    let av = unsafe { Av::from_fid(bfid) };
    av.bind();
    g.av = Some(av);
    0
}

/// `control` of a scalable endpoint: `KFI_ENABLE` (needs the AV:
/// -KFI_ENOAV; once enabled, 0); anything else -ENOSYS.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_sep_control(fid: *mut sys::kfid, command: c_int, _arg: *mut c_void) -> c_int {
    if command as u32 != sys::KFI_ENABLE {
        return base::neg(bindings::ENOSYS);
    }
    // SAFETY: only installed on our scalable endpoints.
    let b = unsafe { SepBase::from_fid(fid) };
    // SAFETY: ours (the base is first in the provider's object).
    let s = unsafe { PSep::from_base(b) };
    // Enables are the consumer's setup, serialised by `st`: held across
    // the provider's enable (which does not take it).
    let mut g = b.st.lock();
    if g.enabled {
        return 0;
    }
    let Some(av) = g.av else {
        return -(sys::KFI_ENOAV as c_int);
    };
    // SAFETY: bound, hence open.
    if let Err(e) = s.enable(unsafe { &*av }) {
        return e.to_errno();
    }
    g.enabled = true;
    0
}

/// `close` of a scalable endpoint: -EBUSY while a context is open; else
/// the provider stops it, the AV is unbound, it is freed and uncounted
/// on its domain.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_sep_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: only installed on our scalable endpoints.
    let b = unsafe { SepBase::from_fid(fid) };
    let (av, enabled) = {
        let mut g = b.st.lock();
        if g.open != 0 {
            return base::neg(bindings::EBUSY);
        }
        (g.av.take(), g.enabled)
    };
    // SAFETY: ours.
    let s = unsafe { PSep::from_base(b) };
    if enabled {
        s.closing();
    }
    if let Some(av) = av {
        // SAFETY: bound, hence open.
        unsafe { &*av }.unbind();
    }
    // SAFETY: the domain outlives its counted children (INVARIANT).
    let d = unsafe { &*b.domain };
    // SAFETY: allocated by the provider, published by the entry above;
    // stopped, no context left; the consumer gave up its pointer.
    drop(unsafe { KBox::from_raw(s as *const PSep as *mut PSep) });
    d.children.closed();
    0
}

/// A context of `sep` with index `index`, of role `Tx` or `Rx` (`mk`),
/// with `attr`'s `(size, op_flags)` (`None`: the scalable endpoint's).
///
/// # Safety
/// `sep` is one of our scalable endpoints; `out` NULL or writable.
unsafe fn open_ctx(
    sep: *mut sys::kfid_ep,
    index: c_int,
    attr: Option<(usize, u64)>,
    tx: bool,
    out: *mut *mut sys::kfid_ep,
    context: *mut c_void,
) -> c_int {
    if sep.is_null() || out.is_null() {
        return einval();
    }
    // SAFETY: only installed on our scalable endpoints.
    let b = unsafe { SepBase::from_fid(&mut (*sep).fid) };
    // SAFETY: ours.
    let s = unsafe { PSep::from_base(b) };
    let cnt = if tx { b.tx_cnt } else { b.rx_cnt };
    let Some(i) = usize::try_from(index).ok().filter(|&i| i < cnt) else {
        return einval();
    };
    let rules = &PEp::RULES;
    let mut attrs = b.attrs;
    // The direction the context lacks has no queue (its posts are
    // refused).
    if tx {
        let (size, flags) = match attr {
            Some(a) => match rules.dir_attrs(Some(a), rules.tx_op_flags) {
                Ok(v) => v,
                Err(e) => return e,
            },
            None => (b.attrs.tx_size, b.attrs.tx_flags),
        };
        (attrs.tx_size, attrs.tx_flags, attrs.rx_size, attrs.rx_flags) = (size, flags, 0, 0);
        attrs.role = Role::Tx(i as u32);
    } else {
        let (size, flags) = match attr {
            Some(a) => match rules.dir_attrs(Some(a), rules.rx_op_flags) {
                Ok(v) => v,
                Err(e) => return e,
            },
            None => (b.attrs.rx_size, b.attrs.rx_flags),
        };
        (attrs.rx_size, attrs.rx_flags, attrs.tx_size, attrs.tx_flags) = (size, flags, 0, 0);
        attrs.role = Role::Rx(i as u32);
    }
    attrs.sep = b;
    {
        let mut g = b.st.lock();
        let slot = if tx { &mut g.tx_open[i] } else { &mut g.rx_open[i] };
        if *slot {
            // Open already: one object per context.
            return base::neg(bindings::EBUSY);
        }
        *slot = true;
        g.open += 1;
    }
    let e = match s.context(attrs) {
        Ok(e) => e,
        Err(err) => {
            b.ctx_closed(attrs.role);
            return err.to_errno();
        }
    };
    let glue = if tx { sys::kfi_util_txc_init } else { sys::kfi_util_rxc_init };
    // SAFETY: the provider's endpoint meets `ProvEp`'s contract; its base
    // was made for the scalable endpoint's domain, open while it is; the
    // glue fills a context header; `out` was checked.
    unsafe { publish_ep(e, glue, context, out) };
    0
}

/// `tx_ctx` of a scalable endpoint (`kfi_tx_context`): transmit context
/// `index` (below `ep_attr->tx_ctx_cnt`: -EINVAL otherwise; -EBUSY while
/// it is open), with `attr`'s size and default flags, or the endpoint's
/// when NULL. It is enabled after the scalable endpoint.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_sep_tx_ctx(
    sep: *mut sys::kfid_ep,
    index: c_int,
    attr: *mut sys::kfi_tx_attr,
    tx_ep: *mut *mut sys::kfid_ep,
    context: *mut c_void,
) -> c_int {
    // SAFETY: NULL or the consumer's attributes (API contract).
    let a = unsafe { attr.as_ref() }.map(|a| (a.size, a.op_flags));
    // SAFETY: the caller's contract, passed on.
    unsafe { open_ctx(sep, index, a, true, tx_ep, context) }
}

/// `rx_ctx` of a scalable endpoint (`kfi_rx_context`): as `tx_ctx`, for
/// receive context `index`.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_sep_rx_ctx(
    sep: *mut sys::kfid_ep,
    index: c_int,
    attr: *mut sys::kfi_rx_attr,
    rx_ep: *mut *mut sys::kfid_ep,
    context: *mut c_void,
) -> c_int {
    // SAFETY: NULL or the consumer's attributes (API contract).
    let a = unsafe { attr.as_ref() }.map(|a| (a.size, a.op_flags));
    // SAFETY: the caller's contract, passed on.
    unsafe { open_ctx(sep, index, a, false, rx_ep, context) }
}

/// `getname` of a scalable endpoint: its address once enabled
/// (-KFI_EOPBADSTATE before).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_sep_getname(fid: *mut sys::kfid, addr: *mut c_void, len: *mut usize) -> c_int {
    // SAFETY: only installed on our scalable endpoints.
    let b = unsafe { SepBase::from_fid(fid) };
    // SAFETY: as above.
    let s = unsafe { PSep::from_base(b) };
    // SAFETY: the domain outlives its endpoints (it counts them).
    let nic = unsafe { &*b.domain() }.nic();
    match s.name() {
        // SAFETY: buffers as given by the consumer (API contract).
        Some(a) => unsafe { super::addr::write_name(nic, &a, addr, len) },
        None => -(sys::KFI_EOPBADSTATE as c_int),
    }
}
