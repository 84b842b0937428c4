// SPDX-License-Identifier: GPL-2.0
//! The endpoint base: what every provider's active MSG endpoint does the
//! same way, whatever its transport. A provider's endpoint embeds
//! [`EpBase`] as its first field and implements [`ProvEp`]; its transfer
//! queues (`Provider::Ep`) implement [`EpXfer`]. The toolkit then owns:
//!
//! - the endpoint's ops tables (`kfi_util_ep_init` in kfi_util_glue.c; the
//!   provider passes its CM table) and their entries here: `bind` (an EQ,
//!   CQs, counters), `control` (`KFI_ENABLE`, `KFI_ALIAS`), `close` (the
//!   provider's part through [`ProvEp::closing`]), `cancel`, `getopt` and
//!   `setopt`;
//! - aliases (`kfi_ep_alias`) and their ops tables;
//! - the entry of every data transfer, [`kfi_util_ep_xfer`], which hands
//!   the call to the queues (statically: no `dyn` on this path);
//! - the checks of the domain's `endpoint` entry that do not depend on the
//!   transport ([`ep_info`]: type, queue sizes, default operation flags)
//!   and the endpoint's publication ([`publish_ep`]);
//! - the EQ slots held for the connection's events ([`EpBase::hold_cm`]).
//!
//! What differs between providers is data: [`EpRules`] (queue depths, the
//! default operation flags offered, the counter events an endpoint may
//! bind), and the hooks of [`ProvEp`].
//!
//! # Locks
//! `binds` (mutex; the consumer's bind, control and close calls, process
//! context): the bindings and the enabled flag. Taken before the CQ's
//! endpoint list (`Cq::bind_ep`) and before whatever [`ProvEp::enable`]
//! takes (kfi_tcp: its queue lock); the provider never holds a lock of its
//! endpoint while calling an `EpBase` method that takes `binds`
//! ([`EpBase::enabled_eq`]). The data queues have their own BH spinlock (the
//! provider's): transfers may be posted from softirq context, and never
//! take `binds`.

use super::addr::SockAddr;
use super::av::Av;
use super::base::{self, einval};
use super::cq::Cq;
use super::eq::{CmEvents, Eq};
use super::fabric::ProvDomain;
use super::fid::DomainBase;
use super::logic::nic::NicNet;
use super::sys;
use super::logic::xfer::Kind;
use super::sep::SepBase;
use super::xfer::Cntrs;
use super::{Provider, Trace};
use crate::trigger::cntr::Cntr;
use crate::trigger::target::FireTarget;
use core::ffi::{c_int, c_void};
use core::ptr::addr_of_mut;
use core::sync::atomic::{AtomicUsize, Ordering};
use kernel::bindings;
use kernel::new_mutex;
use kernel::prelude::*;
use kernel::sync::Mutex;

/// The provider's endpoint object, as the toolkit's entries see it.
type PEp = <crate::Prov as Provider>::Endpoint;

/// Every event a counter can be bound to an endpoint for: `KFI_SEND`,
/// `KFI_RECV`, `KFI_READ`, `KFI_WRITE`, `KFI_REMOTE_READ`,
/// `KFI_REMOTE_WRITE`.
pub(crate) const CNTR_EVENTS: u64 = sys::KFI_SEND as u64
    | sys::KFI_RECV as u64
    | sys::KFI_READ as u64
    | sys::KFI_WRITE as u64
    | sys::KFI_REMOTE_READ as u64
    | sys::KFI_REMOTE_WRITE as u64;

/// EQ slots an endpoint holds for the events of its connection: a
/// `KFI_CONNECTED` or an error entry, then a `KFI_SHUTDOWN`.
const CM_EVENTS: usize = 2;

/// What a provider's endpoints offer, checked by the toolkit.
pub(crate) struct EpRules {
    /// Queue depth of a `tx_attr`/`rx_attr` size of 0 (what `kgetinfo`
    /// offers).
    pub(crate) default_queue: usize,
    /// Deepest queue.
    pub(crate) max_queue: usize,
    /// Default operation flags accepted in `tx_attr->op_flags`; others are
    /// refused (-KFI_EBADFLAGS), not ignored: the consumer would rely on
    /// them.
    pub(crate) tx_op_flags: u64,
    /// The same for `rx_attr->op_flags`.
    pub(crate) rx_op_flags: u64,
    /// The events of [`CNTR_EVENTS`] a counter may be bound for (kfi_tcp:
    /// all; an RDMA target sees no completion of remote accesses, so a
    /// verbs endpoint leaves out `KFI_REMOTE_READ`/`KFI_REMOTE_WRITE`).
    /// Binding for another: -KFI_EBADFLAGS.
    pub(crate) cntr_events: u64,
    /// Reliable connectionless endpoints (`KFI_EP_RDM`) are offered too
    /// (the provider's [`ProvEp::enable`] sees [`EpConfig::rdm`]).
    pub(crate) rdm: bool,
}

impl EpRules {
    /// One direction's queue depth and default operation flags from its
    /// attributes' `(size, op_flags)` (`None`: no attributes; size 0: the
    /// default depth): -EINVAL for a size beyond the deepest queue,
    /// -KFI_EBADFLAGS for a flag not in `offered`.
    pub(super) fn dir_attrs(&self, attr: Option<(usize, u64)>, offered: u64) -> core::result::Result<(usize, u64), c_int> {
        let Some((size, flags)) = attr else {
            return Ok((self.default_queue, 0));
        };
        let n = match size {
            0 => self.default_queue,
            n if n <= self.max_queue => n,
            _ => return Err(einval()),
        };
        if flags & !offered != 0 {
            return Err(-(sys::KFI_EBADFLAGS as c_int));
        }
        Ok((n, flags))
    }
}

/// Queue sizes and default operation flags from `info->tx_attr` and
/// `info->rx_attr`.
#[derive(Clone, Copy)]
pub(crate) struct EpAttrs {
    pub(crate) tx_size: usize,
    pub(crate) rx_size: usize,
    pub(crate) tx_flags: u64,
    pub(crate) rx_flags: u64,
    /// `info->src_addr`, if any (the address an active endpoint connects
    /// from; an RDM endpoint's listening address).
    pub(crate) src: Option<SockAddr>,
    /// A reliable connectionless endpoint (`KFI_EP_RDM`).
    pub(crate) rdm: bool,
    /// Receives honour their source address (`KFI_DIRECTED_RECV` in the
    /// info's or the receive attributes' capabilities; RDM only).
    pub(crate) directed: bool,
    /// A whole endpoint, or a context of the scalable endpoint `sep`.
    pub(crate) role: Role,
    pub(crate) sep: *const SepBase,
}

/// What part of an endpoint an endpoint object is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Role {
    /// An endpoint (`kfi_endpoint`): both directions.
    Whole,
    /// Transmit context `.0` of a scalable endpoint (`kfi_tx_context`):
    /// its queues take transmits only.
    Tx(u32),
    /// Receive context `.0` (`kfi_rx_context`): receives only.
    Rx(u32),
}

impl Role {
    /// The counter events an object of this role may bind (of
    /// [`CNTR_EVENTS`]).
    fn cntr_events(self) -> u64 {
        match self {
            Role::Whole => CNTR_EVENTS,
            Role::Tx(_) => sys::KFI_SEND as u64 | sys::KFI_READ as u64 | sys::KFI_WRITE as u64,
            Role::Rx(_) => sys::KFI_RECV as u64 | sys::KFI_REMOTE_READ as u64 | sys::KFI_REMOTE_WRITE as u64,
        }
    }

    /// The CQ directions of a bind's `flags` (`KFI_TRANSMIT`, `KFI_RECV`):
    /// a context's own when none is named (kfilnd binds with 0), none
    /// (refused) when the other is.
    fn cq_dirs(self, flags: u64) -> u64 {
        let (tx, rx) = (sys::KFI_TRANSMIT as u64, sys::KFI_RECV as u64);
        let dirs = flags & (tx | rx);
        match self {
            Role::Whole => dirs,
            Role::Tx(_) if dirs & !tx == 0 => tx,
            Role::Rx(_) if dirs & !rx == 0 => rx,
            _ => 0,
        }
    }
}

/// What `kfi_enable` hands the provider's queues ([`ProvEp::enable`]):
/// the bindings, final from then on, and the attributes.
#[derive(Clone, Copy)]
pub(crate) struct EpConfig {
    pub(crate) tx_cq: Option<*const Cq>,
    pub(crate) rx_cq: Option<*const Cq>,
    /// Bound with `KFI_SELECTIVE_COMPLETION`.
    pub(crate) tx_selective: bool,
    pub(crate) rx_selective: bool,
    pub(crate) attrs: EpAttrs,
    pub(crate) cntrs: Cntrs,
    /// The bound address vector (RDM endpoints have one).
    pub(crate) av: Option<*const Av>,
}

/// What the toolkit's endpoint entries ask of an endpoint's transfer
/// queues (`Provider::Ep`): implemented by the toolkit's
/// [`super::queues::EpQueues`] (kfi_tcp's `EpData`).
pub(crate) trait EpXfer {
    /// Validates and queues one transfer (`kfi_util_ep_xfer`): 0 or a
    /// negative errno. Any context but hard interrupts; never sleeps.
    fn post(&self, x: &sys::kfi_util_xfer) -> isize;

    /// `kfi_cancel` of a posted receive with `context`: 0 (reported with
    /// -KFI_ECANCELED), or a negative errno (-ENOENT: none).
    fn cancel(&self, context: *mut c_void) -> isize;

    /// `KFI_OPT_MIN_MULTI_RECV`.
    fn min_multi(&self) -> u64;

    /// Sets `KFI_OPT_MIN_MULTI_RECV` (for buffers posted afterwards).
    fn set_min_multi(&self, v: u64);

    /// Triggered operations on the queues not issued yet: the endpoint
    /// cannot close while any is.
    fn trig_pending(&self) -> usize;

    /// The queues as the trigger machinery sees them (triggered posts,
    /// their cancel).
    fn target(&self) -> &(dyn FireTarget + 'static);
}

/// A provider's endpoint object.
///
/// # Safety
/// Every value of an implementing type is `#[repr(C)]` with an [`EpBase`]
/// as its first field (the header the consumer holds), allocated with
/// `KBox` and published by [`publish_ep`] only, never moved. (A type with
/// no values, a provider's placeholder before it has endpoints, meets this
/// trivially.)
pub(crate) unsafe trait ProvEp: Sized {
    /// What the provider's endpoints offer.
    const RULES: EpRules;

    /// Its transfer queues (what posts go to, what CQs make progress on).
    fn data(&self) -> &<crate::Prov as Provider>::Ep;

    /// `kfi_enable`: sets the queues up with `cfg` (process context,
    /// under `binds`: see the module's lock order). Called once, with an
    /// EQ bound; an error fails the call and leaves the endpoint not
    /// enabled.
    fn enable(&self, cfg: &EpConfig) -> Result;

    /// `kfi_close`, once the close is decided and the bindings are taken
    /// out (process context, no lock held): stops the transport (nothing
    /// posts to the EQ or completes on the queues afterwards) and returns
    /// the CQ reservations of whatever was still queued. The bindings are
    /// released and the object freed after it returns.
    fn closing(&self);

    /// Largest CM data of `kfi_connect`, `kfi_accept` and `kfi_reject`
    /// (`KFI_OPT_CM_DATA_SIZE`).
    fn cm_data_size(&self) -> usize;

    /// The base (first field).
    #[inline(always)]
    fn base(&self) -> &EpBase {
        // SAFETY: the base is the first field of a `#[repr(C)]` object
        // (trait contract).
        unsafe { &*(self as *const Self).cast::<EpBase>() }
    }

    /// Recovers the endpoint from its base.
    ///
    /// # Safety
    /// `b` is the base of a live `Self`.
    #[inline(always)]
    unsafe fn from_base(b: &EpBase) -> &Self {
        // SAFETY: the base is the first field (trait contract) of a live
        // `Self` (caller's contract).
        unsafe { &*(b as *const EpBase).cast::<Self>() }
    }

    /// Recovers the endpoint from its fid.
    ///
    /// # Safety
    /// `fid` is the fid of a live `Self` (the endpoint's ops tables pass
    /// only those).
    #[inline(always)]
    unsafe fn from_fid<'a>(fid: *mut sys::kfid) -> &'a Self {
        // SAFETY: caller's contract.
        unsafe { Self::from_base(EpBase::from_fid(fid)) }
    }
}

/// A CQ binding.
#[derive(Clone, Copy)]
struct CqBind {
    cq: *const Cq,
    selective: bool,
}

/// What `binds` protects.
struct Binds {
    eq: Option<*const Eq>,
    av: Option<*const Av>,
    tx_cq: Option<CqBind>,
    rx_cq: Option<CqBind>,
    cntrs: Cntrs,
    /// `kfi_enable` succeeded: the bindings are final.
    enabled: bool,
}

// SAFETY: the EQ, CQ and counter pointers stay valid while bound (they
// count bindings and refuse to close); accessed under the mutex only.
unsafe impl Send for Binds {}

/// The toolkit's part of a provider's endpoint: first field of it.
///
/// # Invariants
/// `domain` counts the endpoint as a child from [`publish_ep`] to
/// `kfi_util_ep_close` (so it outlives the endpoint).
#[pin_data]
#[repr(C)]
pub(crate) struct EpBase {
    /// The header the consumer holds; first.
    ep: sys::kfid_ep,
    domain: *const DomainBase,
    /// Queue sizes and default flags from `info->tx_attr`/`rx_attr`.
    attrs: EpAttrs,
    #[pin]
    binds: Mutex<Binds>,
    /// Open aliases (`kfi_ep_alias`); the endpoint cannot close while any
    /// is.
    aliases: AtomicUsize,
    /// Its connection events, with the EQ slots held for them (taken at
    /// connect or accept, given back at close when unused).
    cm: CmEvents,
}

impl EpBase {
    /// A base for an endpoint of `domain` (which the consumer holds open
    /// for the call) with `attrs` ([`ep_info`]); its header is filled by
    /// [`publish_ep`].
    pub(crate) fn new(domain: &DomainBase, attrs: EpAttrs) -> impl PinInit<Self> {
        let domain: *const DomainBase = domain;
        pin_init!(EpBase {
            // SAFETY: all-zero is a valid header (NULL pointers, zero
            // class); filled in by `publish_ep`.
            ep: unsafe { core::mem::zeroed() },
            domain,
            attrs,
            binds <- new_mutex!(Binds { eq: None, av: None, tx_cq: None, rx_cq: None, cntrs: Cntrs::default(), enabled: false }, "kfi_util_ep"),
            aliases: AtomicUsize::new(0),
            cm: CmEvents::new(),
        })
    }

    /// Recovers a base from its fid.
    ///
    /// # Safety
    /// `fid` is the fid of a live endpoint of this provider.
    #[inline(always)]
    unsafe fn from_fid<'a>(fid: *mut sys::kfid) -> &'a EpBase {
        // SAFETY: the fid is the first field of the header, itself first.
        unsafe { &*kernel::container_of!(fid, EpBase, ep.fid) }
    }

    /// The domain the endpoint was opened on (open while it is).
    pub(crate) fn domain(&self) -> *const DomainBase {
        self.domain
    }

    /// The net of its domain's NIC addresses, if the domain names
    /// endpoints so.
    pub(crate) fn nic(&self) -> Option<&NicNet> {
        // SAFETY: the domain outlives its endpoints (it counts them).
        unsafe { &*self.domain }.nic()
    }

    /// The endpoint's fid (what its events name).
    pub(crate) fn fid(&self) -> *mut sys::kfid {
        &self.ep.fid as *const sys::kfid as *mut sys::kfid
    }

    /// The header the consumer holds.
    pub(crate) fn header(&self) -> *mut sys::kfid_ep {
        &self.ep as *const sys::kfid_ep as *mut sys::kfid_ep
    }

    /// A reliable connectionless endpoint (`KFI_EP_RDM`).
    pub(crate) fn is_rdm(&self) -> bool {
        self.attrs.rdm
    }

    /// What the statistics call the endpoint: `msg`, `rdm`, or a
    /// scalable endpoint's context, `tx_ctx`/`rx_ctx` with its index.
    pub(crate) fn stats_type(&self, w: &mut dyn core::fmt::Write) -> core::fmt::Result {
        match self.attrs.role {
            Role::Whole if self.attrs.rdm => w.write_str("type=rdm"),
            Role::Whole => w.write_str("type=msg"),
            Role::Tx(i) => write!(w, "type=tx_ctx index={i}"),
            Role::Rx(i) => write!(w, "type=rx_ctx index={i}"),
        }
    }

    /// A whole endpoint, or which context of a scalable endpoint.
    pub(crate) fn role(&self) -> Role {
        self.attrs.role
    }

    /// Its connection events.
    pub(crate) fn cm(&self) -> &CmEvents {
        &self.cm
    }

    /// The EQ, once the endpoint is enabled (`kfi_enable` needs one; the
    /// bindings are final then): `None` before. Takes `binds`.
    pub(crate) fn enabled_eq(&self) -> Option<&Eq> {
        let g = self.binds.lock();
        let eq = g.eq.filter(|_| g.enabled)?;
        // SAFETY: bound, hence open until the endpoint closes (it unbinds
        // then), which ends every borrow of `self`.
        Some(unsafe { &*eq })
    }

    /// Holds the EQ slots of the connection's events (connect, accept):
    /// -EAGAIN when `eq` has no room for them.
    pub(crate) fn hold_cm(&self, eq: &Eq) -> core::result::Result<(), c_int> {
        self.cm.hold(eq, CM_EVENTS)
    }

    /// Gives back the held slots not used (a failed connect or accept, the
    /// close).
    pub(crate) fn unhold_cm(&self, eq: &Eq) {
        self.cm.unhold(eq)
    }
}

/// The checks of a domain's `endpoint` entry that do not depend on the
/// transport, in this order: `info`, `domain` and `ep` set (-EINVAL), a
/// MSG (or unspecified) endpoint type (-EINVAL), then per direction the
/// queue size (-EINVAL beyond `rules.max_queue`) and the default operation
/// flags (-KFI_EBADFLAGS), then `src_addr` (a sockaddr_in or sockaddr_in6
/// of `src_addrlen` bytes, a `struct kcxi_addr` on a domain of NIC
/// addresses, or NULL: -EINVAL otherwise). The consumer's info
/// and the attributes.
///
/// # Safety
/// `info` is NULL or a valid info (allocated by `kfi_allocinfo` or the
/// consumer) whose attribute pointers are NULL or valid, for `'a`.
pub(crate) unsafe fn ep_info<'a>(
    rules: &EpRules,
    domain: *mut sys::kfid_domain,
    info: *mut sys::kfi_info,
    ep: *mut *mut sys::kfid_ep,
) -> core::result::Result<(&'a sys::kfi_info, EpAttrs), c_int> {
    // SAFETY: NULL or valid by the caller's contract.
    let Some(i) = (unsafe { info.as_ref() }) else {
        return Err(einval());
    };
    if domain.is_null() || ep.is_null() {
        return Err(einval());
    }
    // SAFETY: NULL or valid (caller's contract), as the other attributes.
    let rdm = match unsafe { i.ep_attr.as_ref() }.map(|a| a.type_) {
        None | Some(sys::KFI_EP_UNSPEC) | Some(sys::KFI_EP_MSG) => false,
        Some(sys::KFI_EP_RDM) if rules.rdm => true,
        Some(_) => return Err(einval()),
    };
    // SAFETY: as above.
    let rx_caps = unsafe { i.rx_attr.as_ref() }.map_or(0, |r| r.caps);
    let directed = rdm && (i.caps | rx_caps) & sys::KFI_DIRECTED_RECV != 0;
    // SAFETY: as above.
    let (tx_size, tx_flags) = rules.dir_attrs(unsafe { i.tx_attr.as_ref() }.map(|t| (t.size, t.op_flags)), rules.tx_op_flags)?;
    // SAFETY: as above.
    let (rx_size, rx_flags) = rules.dir_attrs(unsafe { i.rx_attr.as_ref() }.map(|r| (r.size, r.op_flags)), rules.rx_op_flags)?;
    // SAFETY: `domain` is one of the provider's (only its domain ops table
    // calls us), open for the call; `src_addr` holds `src_addrlen` bytes
    // (caller's contract).
    let src = unsafe { DomainBase::from_header(domain).info_src(i) }.map_err(|e| e.to_errno())?;
    let attrs = EpAttrs { tx_size, rx_size, tx_flags, rx_flags, src, rdm, directed, role: Role::Whole, sep: core::ptr::null() };
    Ok((i, attrs))
}

/// Publishes a new endpoint: counts it on its domain, lets the
/// provider's `glue` fill its header (which calls `kfi_util_ep_init` with
/// the provider's CM table) and stores the header in `*out`. Nothing can
/// fail any more.
///
/// # Safety
/// `E` meets [`ProvEp`]'s contract; the base of `b` was made by
/// [`EpBase::new`] for a domain the consumer holds open for the call;
/// `glue` fills an endpoint header; `out` is writable.
pub(crate) unsafe fn publish_ep<E: ProvEp>(
    b: Pin<KBox<E>>,
    glue: unsafe extern "C" fn(*mut sys::kfid_ep, *mut c_void),
    context: *mut c_void,
    out: *mut *mut sys::kfid_ep,
) {
    // SAFETY: never moved: `kfi_util_ep_close` frees it in place.
    let p = KBox::into_raw(unsafe { Pin::into_inner_unchecked(b) });
    // `E` starts with its `EpBase` (trait contract).
    let base = p.cast::<EpBase>();
    // SAFETY: `p` is our fresh object, its domain open (caller's
    // contract); the glue fills the header before the consumer sees it.
    unsafe {
        (*(*base).domain).children.opened();
        glue(addr_of_mut!((*base).ep), context);
        // Listed once its header is whole (statistics readers ask the
        // endpoint's own getname/getpeer through it).
        (*(*base).domain).eps.add(p as usize);
        *out = addr_of_mut!((*base).ep);
    }
}

/// One of the provider's endpoints, from a consumer's pointer (the
/// endpoint of deferred work, the endpoint a region is bound to): `None`
/// for NULL or any other object (an alias included).
///
/// # Safety
/// `fid` is NULL or a valid `kfid`; the endpoint stays open while the
/// reference is used.
pub(crate) unsafe fn endpoint_of<'a>(fid: *mut sys::kfid) -> Option<&'a PEp> {
    // SAFETY: NULL or valid by the caller's contract.
    if fid.is_null() || !unsafe { sys::kfi_util_is_ep(fid) } {
        return None;
    }
    // SAFETY: one of ours (checked), open (caller's contract).
    Some(unsafe { PEp::from_fid(fid) })
}

fn opbadstate() -> c_int {
    -(sys::KFI_EOPBADSTATE as c_int)
}

/// `bind` of an endpoint, before `kfi_enable`: an EQ of this provider
/// (flags 0), once; a CQ of this provider for `KFI_TRANSMIT` and/or
/// `KFI_RECV` completions (optionally `KFI_SELECTIVE_COMPLETION`), once
/// per direction; a counter of this provider for events of
/// [`EpRules::cntr_events`], once per event.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_ep_bind(fid: *mut sys::kfid, bfid: *mut sys::kfid, flags: u64) -> c_int {
    // SAFETY: only installed on our endpoints.
    let e = unsafe { PEp::from_fid(fid) };
    if bfid.is_null() {
        return einval();
    }
    // SAFETY: a valid fid by the API contract.
    let class = unsafe { (*bfid).fclass } as u32;
    let mut g = e.base().binds.lock();
    if g.enabled {
        return opbadstate();
    }
    match class {
        sys::KFI_CLASS_EQ => {
            // A context has no connection events (nor does its endpoint).
            if flags != 0 || g.eq.is_some() || e.base().attrs.role != Role::Whole {
                return einval();
            }
            // SAFETY: a valid fid (checked class and ops table next).
            if !unsafe { Eq::is_eq(bfid) } {
                return einval();
            }
            // SAFETY: an EQ of this provider.
            let eq = unsafe { Eq::from_fid(bfid) };
            eq.bind();
            g.eq = Some(eq);
            0
        }
        sys::KFI_CLASS_AV => {
            // A connected endpoint has no use for one.
            // A context sends to the AV of its scalable endpoint.
            if !e.base().attrs.rdm || flags != 0 || g.av.is_some() || e.base().attrs.role != Role::Whole {
                return einval();
            }
            // SAFETY: a valid fid (checked class and ops table next).
            if !unsafe { Av::is_av(bfid) } {
                return einval();
            }
            // SAFETY: an AV of this provider.
            let av = unsafe { Av::from_fid(bfid) };
            av.bind();
            g.av = Some(av);
            0
        }
        sys::KFI_CLASS_CQ => {
            let all = sys::KFI_TRANSMIT as u64 | sys::KFI_RECV as u64 | sys::KFI_SELECTIVE_COMPLETION;
            let dirs = e.base().attrs.role.cq_dirs(flags);
            if dirs == 0 || flags & !all != 0 {
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
                if cq.bind_ep(e.data()).is_err() {
                    return base::neg(bindings::ENOMEM);
                }
                g.tx_cq = Some(b);
            }
            if rx {
                if cq.bind_ep(e.data()).is_err() {
                    if tx {
                        g.tx_cq = None;
                        cq.unbind_ep(e.data());
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
            let allowed = PEp::RULES.cntr_events & e.base().attrs.role.cntr_events();
            if flags == 0 || flags & !allowed != 0 {
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

/// `control` of an endpoint: `KFI_ENABLE` (needs an EQ: -KFI_ENOEQ; the
/// provider sets its queues up, [`ProvEp::enable`]; once enabled, 0) and
/// `KFI_ALIAS`; anything else -ENOSYS.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_ep_control(fid: *mut sys::kfid, command: c_int, arg: *mut c_void) -> c_int {
    // SAFETY: only installed on our endpoints.
    let e = unsafe { PEp::from_fid(fid) };
    if command as u32 == sys::KFI_ALIAS {
        // SAFETY: NULL or the consumer's `struct kfi_alias`.
        return match unsafe { arg.cast::<sys::kfi_alias>().as_ref() } {
            Some(a) => make_alias(e.base(), a),
            None => einval(),
        };
    }
    if command as u32 != sys::KFI_ENABLE {
        return base::neg(bindings::ENOSYS);
    }
    let b = e.base();
    let mut g = b.binds.lock();
    if g.enabled {
        return 0;
    }
    // A connected endpoint reports its connection on an EQ; a
    // connectionless one sends to the addresses of an AV; a context to
    // those of its scalable endpoint's, which is enabled first.
    let av = if b.attrs.role == Role::Whole {
        g.av
    } else {
        // SAFETY: a context's scalable endpoint stays open while it is.
        match unsafe { &*b.attrs.sep }.enabled_av() {
            Some(av) => Some(av),
            None => return opbadstate(),
        }
    };
    if b.attrs.role == Role::Whole && b.attrs.rdm && av.is_none() {
        return -(sys::KFI_ENOAV as c_int);
    }
    if !b.attrs.rdm && g.eq.is_none() {
        return -(sys::KFI_ENOEQ as c_int);
    }
    let cfg = EpConfig {
        tx_cq: g.tx_cq.map(|b| b.cq),
        rx_cq: g.rx_cq.map(|b| b.cq),
        tx_selective: g.tx_cq.is_some_and(|b| b.selective),
        rx_selective: g.rx_cq.is_some_and(|b| b.selective),
        attrs: b.attrs,
        cntrs: g.cntrs,
        av,
    };
    if let Err(err) = e.enable(&cfg) {
        return err.to_errno();
    }
    g.enabled = true;
    0
}

/// `close` of an endpoint: -EBUSY while a triggered operation on it is
/// pending or an alias of it is open; else the provider stops it
/// ([`ProvEp::closing`]), its bindings (EQ with its held slots, CQs,
/// counters) are released, it is freed and uncounted on its domain.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_ep_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: only installed on our endpoints.
    let e = unsafe { PEp::from_fid(fid) };
    let b = e.base();
    // Triggered operations will still be posted here; aliases use it.
    if EpXfer::trig_pending(e.data()) != 0 || b.aliases.load(Ordering::Acquire) != 0 {
        return base::neg(bindings::EBUSY);
    }
    // Unlisted before it stops (a statistics reader holds the list while
    // it asks the endpoint for its addresses).
    // SAFETY: the domain outlives its counted endpoints (INVARIANT).
    unsafe { &*b.domain }.eps.remove(e as *const PEp as usize);
    let (eq, av, tx_cq, rx_cq, cntrs) = {
        let mut g = b.binds.lock();
        (g.eq.take(), g.av.take(), g.tx_cq.take(), g.rx_cq.take(), core::mem::take(&mut g.cntrs))
    };
    e.closing();
    if let Some(av) = av {
        // SAFETY: bound, hence open.
        unsafe { &*av }.unbind();
    }
    if let Some(eq) = eq {
        // SAFETY: bound, hence open.
        let eq = unsafe { &*eq };
        // The transport is stopped: it posts no more.
        b.unhold_cm(eq);
        eq.unbind();
    }
    for c in [tx_cq, rx_cq].into_iter().flatten() {
        // SAFETY: bound, hence open.
        unsafe { &*c.cq }.unbind_ep(e.data());
    }
    let k = cntrs;
    for c in [k.send, k.recv, k.read, k.write, k.remote_read, k.remote_write].into_iter().flatten() {
        // SAFETY: bound, hence open.
        unsafe { &*c }.unbind_ep();
    }
    // SAFETY: the domain outlives its counted endpoints (INVARIANT).
    let d = unsafe { &*b.domain };
    let (role, sep) = (b.attrs.role, b.attrs.sep);
    // SAFETY: allocated by the provider and published by `publish_ep`
    // (trait contract); stopped, so nothing refers to it; the consumer
    // gave up its pointer.
    drop(unsafe { KBox::from_raw(e as *const PEp as *mut PEp) });
    if role != Role::Whole {
        // SAFETY: a context's scalable endpoint stays open while it is
        // (it refuses to close before its contexts).
        unsafe { &*sep }.ctx_closed(role);
    }
    d.children.closed();
    0
}

/// `kfi_cancel`: a posted receive (matched by its context) completes with
/// -KFI_ECANCELED; else a triggered operation of this endpoint not fired
/// yet is withdrawn the same way. The queues' answer (-ENOENT) if
/// neither.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_ep_cancel(fid: *mut sys::kfid, context: *mut c_void) -> isize {
    // SAFETY: only installed on our endpoints.
    let e = unsafe { PEp::from_fid(fid) };
    let r = EpXfer::cancel(e.data(), context);
    if r == 0 {
        return 0;
    }
    // SAFETY: the domain outlives its endpoints (INVARIANT).
    let d = unsafe { &*e.base().domain };
    if crate::trigger::trig::cancel_triggered(&d.cntrs, EpXfer::target(e.data()), context) {
        return 0;
    }
    r
}

/// `kfi_getopt`: `KFI_OPT_MIN_MULTI_RECV` and `KFI_OPT_CM_DATA_SIZE`
/// (size_t each).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_ep_getopt(
    fid: *mut sys::kfid,
    level: c_int,
    optname: c_int,
    optval: *mut c_void,
    optlen: *mut usize,
) -> c_int {
    // SAFETY: only installed on our endpoints.
    let e = unsafe { PEp::from_fid(fid) };
    if level as u32 != sys::KFI_OPT_ENDPOINT || optval.is_null() || optlen.is_null() {
        return einval();
    }
    let v: usize = match optname as u32 {
        sys::KFI_OPT_MIN_MULTI_RECV => EpXfer::min_multi(e.data()) as usize,
        sys::KFI_OPT_CM_DATA_SIZE => e.cm_data_size(),
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
/// buffers posted afterwards); `KFI_OPT_CM_DATA_SIZE` up to the
/// provider's [`ProvEp::cm_data_size`].
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_ep_setopt(
    fid: *mut sys::kfid,
    level: c_int,
    optname: c_int,
    optval: *const c_void,
    optlen: usize,
) -> c_int {
    // SAFETY: only installed on our endpoints.
    let e = unsafe { PEp::from_fid(fid) };
    if level as u32 != sys::KFI_OPT_ENDPOINT || optval.is_null() || optlen != core::mem::size_of::<usize>() {
        return einval();
    }
    // SAFETY: readable for `optlen` bytes by the API contract.
    let v = unsafe { core::ptr::read_unaligned(optval.cast::<usize>()) };
    match optname as u32 {
        sys::KFI_OPT_MIN_MULTI_RECV => {
            EpXfer::set_min_multi(e.data(), v as u64);
            0
        }
        sys::KFI_OPT_CM_DATA_SIZE if v <= e.cm_data_size() => 0,
        sys::KFI_OPT_CM_DATA_SIZE => einval(),
        _ => -(bindings::ENOPROTOOPT as c_int),
    }
}

/// An alias of an endpoint (`kfi_ep_alias`): the same queues and
/// connection with other default operation flags. Only data transfers,
/// `kfi_cancel` and `kfi_close` are offered on it (its CM slots are
/// -KFI_ENOSYS). With `KFI_TRIGGER` every transfer posted on it is
/// triggered: its context is a `kfi_triggered_context`.
#[repr(C)]
struct Alias {
    ep: sys::kfid_ep,
    /// The endpoint (open while any alias of it is).
    target: *const EpBase,
    /// Operation flags added to the transfers of the directions in
    /// `dirs` (without the direction bits themselves).
    flags: u64,
    /// `KFI_TRANSMIT` and/or `KFI_RECV`: which transfers `flags` apply
    /// to (both when the alias was made with neither).
    dirs: u64,
}

/// `KFI_ALIAS`: a new alias of `e` with `a.flags` (`KFI_TRANSMIT` and/or
/// `KFI_RECV` plus operation flags, e.g. `KFI_TRIGGER`).
fn make_alias(e: &EpBase, a: &sys::kfi_alias) -> c_int {
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
    e.aliases.fetch_add(1, Ordering::AcqRel);
    // SAFETY: `p` is ours; `a.fid` is the consumer's out pointer.
    unsafe {
        sys::kfi_util_alias_init(&mut (*p).ep, e.ep.fid.context);
        *a.fid = &mut (*p).ep.fid;
    }
    0
}

/// Recovers an alias from its fid.
///
/// # Safety
/// `fid` is the fid of a live alias (`kfi_util_is_alias`).
#[inline(always)]
unsafe fn alias_of<'a>(fid: *const sys::kfid) -> &'a Alias {
    // SAFETY: the fid is the first field of the header, itself first.
    unsafe { &*kernel::container_of!(fid, Alias, ep.fid) }
}

/// `close` of an alias.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_alias_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: only installed on aliases.
    let a = unsafe { alias_of(fid) };
    // SAFETY: the endpoint outlives its aliases (it refuses to close).
    unsafe { &*a.target }.aliases.fetch_sub(1, Ordering::AcqRel);
    // SAFETY: allocated by `make_alias`; the consumer gave it up.
    drop(unsafe { KBox::from_raw(a as *const Alias as *mut Alias) });
    0
}

/// `cancel` on an alias: as on its endpoint.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_alias_cancel(fid: *mut sys::kfid, context: *mut c_void) -> isize {
    // SAFETY: only installed on aliases; their endpoint is open.
    let e = unsafe { &*alias_of(fid).target };
    // SAFETY: the endpoint's own fid.
    unsafe { kfi_util_ep_cancel(e.fid(), context) }
}

/// Every data transfer (`kfi_send`, `kfi_recvmsg`, `kfi_tinject`, ...),
/// as the toolkit's data ops tables (kfi_util_xfer.c) hand it: validated
/// and queued by the endpoint's queues ([`EpXfer::post`]), never sleeping;
/// a triggered one (`KFI_TRIGGER` in a `*msg` call's flags, or on a
/// triggering alias) goes to the trigger machinery. -EAGAIN when the
/// queue or the CQ is full, -KFI_EOPBADSTATE before `kfi_enable`,
/// -ENOTCONN once the connection is gone (the queues' answers).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_ep_xfer(ep: *mut sys::kfid_ep, x: *const sys::kfi_util_xfer) -> isize {
    crate::Prov::trace(Trace::Post);
    // SAFETY: the caller's contract, passed on.
    let r = unsafe { ep_xfer(ep, x) };
    crate::Prov::trace(Trace::PostDone);
    r
}

/// The valid queries of the atomic ops table (`kfi_atomic_writevalid`,
/// `readwritevalid`, `compwritevalid`) on an endpoint or alias: its
/// domain's [`ProvDomain::atomic_count`] into `*count`, or -KFI_ENOSYS;
/// -EINVAL for NULL arguments or an unknown kind.
///
/// # Safety
/// `ep` is NULL or one of our endpoints or aliases, open; `count` NULL or
/// writable.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_atomic_valid(
    ep: *mut sys::kfid_ep,
    kind: c_int,
    datatype: c_int,
    op: c_int,
    count: *mut usize,
) -> c_int {
    if ep.is_null() || count.is_null() {
        return einval();
    }
    let k = match kind as u32 {
        sys::KFI_UTIL_X_ATOMIC => Kind::Atomic,
        sys::KFI_UTIL_X_FATOMIC => Kind::FetchAtomic,
        sys::KFI_UTIL_X_CATOMIC => Kind::CompareAtomic,
        _ => return einval(),
    };
    // SAFETY: our atomic ops table is installed on endpoints and aliases
    // only; an alias's target is the base of one of our endpoints, open
    // while the alias is.
    let e = unsafe {
        if sys::kfi_util_is_alias(&(*ep).fid) {
            PEp::from_base(&*alias_of(&(*ep).fid).target)
        } else {
            PEp::from_fid(&mut (*ep).fid)
        }
    };
    // SAFETY: an endpoint's domain outlives it; every domain of the
    // provider is a `Provider::Domain`.
    let d = unsafe { <<crate::Prov as Provider>::Domain as ProvDomain>::from_base(&*e.base().domain()) };
    match d.atomic_count(k, datatype as u32, op as u32) {
        Some(n) => {
            // SAFETY: checked non-NULL; writable by the caller's contract.
            unsafe { *count = n };
            0
        }
        None => -(sys::KFI_ENOSYS as c_int),
    }
}

/// [`kfi_util_ep_xfer`] between its trace points.
///
/// # Safety
/// As `kfi_util_ep_xfer`: `ep` is one of our endpoints or aliases, `x` is
/// NULL or a transfer built by the C wrappers.
#[inline(always)]
unsafe fn ep_xfer(ep: *mut sys::kfid_ep, x: *const sys::kfi_util_xfer) -> isize {
    // SAFETY: built by the C wrappers on their stack.
    let Some(x) = (unsafe { x.as_ref() }) else {
        return einval() as isize;
    };
    // SAFETY: our ops tables are installed on endpoints and aliases only.
    if unsafe { sys::kfi_util_is_alias(&(*ep).fid) } {
        // SAFETY: checked just above; its endpoint is open.
        let a = unsafe { alias_of(&(*ep).fid) };
        // SAFETY: an alias's target is the base of one of our endpoints,
        // open while the alias is.
        let e = unsafe { PEp::from_base(&*a.target) };
        let mut x = *x;
        let tx = !matches!(x.kind as u32, sys::KFI_UTIL_X_RECV | sys::KFI_UTIL_X_TRECV);
        let dir = if tx { sys::KFI_TRANSMIT as u64 } else { sys::KFI_RECV as u64 };
        if a.dirs & dir != 0 {
            x.flags |= a.flags;
        }
        if x.flags & sys::KFI_TRIGGER as u64 != 0 {
            return crate::trigger::trig::post_triggered(EpXfer::target(e.data()), &x);
        }
        return EpXfer::post(e.data(), &x);
    }
    // SAFETY: only installed on our endpoints (or aliases, handled above).
    let e = unsafe { PEp::from_fid(&mut (*ep).fid) };
    if x.msg_call && x.flags & sys::KFI_TRIGGER as u64 != 0 {
        return crate::trigger::trig::post_triggered(EpXfer::target(e.data()), x);
    }
    EpXfer::post(e.data(), x)
}
