// SPDX-License-Identifier: GPL-2.0
//! What a provider's `kgetinfo` does besides filling its attributes: the
//! pre-filters on the hints, the plan of entries over the caller's
//! interfaces (`logic::plan`), the reuse of an open fabric and domain
//! named by the hints, and the list of entries; and the info of a
//! `KFI_CONNREQ` event. The provider supplies the interfaces it serves
//! and `fill`, which writes its attributes and addresses into one entry.

use super::base::{self, einval, InfoList};
use super::fabric::Fabric;
use super::logic::plan::{self, Addr, Family, Iface, NicWant, Plan};
use super::logic::nic::NicTable;
use super::sys::{self, kfi_info};
use super::Provider;
use core::ffi::{c_char, c_int, c_void};
use kernel::bindings;
use kernel::prelude::*;

/// A kmalloc'd `struct sockaddr_in`/`sockaddr_in6` of `a` and its length
/// (for `src_addr`/`dest_addr`).
pub(crate) fn info_addr(a: Addr) -> Result<(*mut c_void, usize)> {
    let mut buf = [0u8; sys::KFI_UTIL_SOCKADDR_MAX as usize];
    let len = super::addr::encode(&super::addr::sockaddr(a), &mut buf);
    Ok((base::kmemdup(&buf[..len])?, len))
}

/// Writes the address format and the addresses of plan `p` into entry
/// `e` (whose addresses are of `family`): socket addresses, or for an
/// entry named by its NIC address (`logic::nic`) a `struct kcxi_addr`
/// (`KFI_ADDR_CXI`).
pub(crate) fn set_addrs(e: &mut kfi_info, family: Family, p: &Plan) -> Result {
    if let Some(n) = p.nic {
        e.addr_format = sys::KFI_ADDR_CXI;
        let qw = super::addr::cxi_addr(n);
        (e.src_addr, e.src_addrlen) = (base::kmemdup(&qw.to_ne_bytes())?, sys::KFI_UTIL_CXI_ADDR_LEN as usize);
        return Ok(());
    }
    e.addr_format = match family {
        Family::V4 => sys::KFI_SOCKADDR_IN,
        Family::V6 => sys::KFI_SOCKADDR_IN6,
    };
    if let Some(src) = p.src {
        (e.src_addr, e.src_addrlen) = info_addr(src)?;
    }
    if let Some(dest) = p.dest {
        (e.dest_addr, e.dest_addrlen) = info_addr(dest)?;
    }
    Ok(())
}

/// The family the hints' `addr_format` asks for (`None` for either:
/// `KFI_FORMAT_UNSPEC`, `KFI_SOCKADDR`) and whether NIC addresses are
/// wanted; `Err` for a format the toolkit's providers do not offer.
pub(crate) fn wanted_format(format: u32) -> core::result::Result<(Option<Family>, NicWant), ()> {
    match format {
        sys::KFI_FORMAT_UNSPEC => Ok((None, NicWant::Allow)),
        sys::KFI_SOCKADDR => Ok((None, NicWant::No)),
        sys::KFI_SOCKADDR_IN => Ok((Some(Family::V4), NicWant::No)),
        sys::KFI_SOCKADDR_IN6 => Ok((Some(Family::V6), NicWant::No)),
        sys::KFI_ADDR_CXI => Ok((Some(Family::V4), NicWant::Only)),
        _ => Err(()),
    }
}

/// The open fabric and domain a consumer's hints name
/// (`hints->fabric_attr->fabric`, `hints->domain_attr->domain`: kfilnd's
/// reuse loop), checked to be ours and of the caller's namespace.
#[derive(Clone, Copy)]
struct Reuse<'a> {
    fabric: *mut sys::kfid_fabric,
    domain: *mut sys::kfid_domain,
    /// Only entries whose tag is this (the named domain's name filter,
    /// [`Provider::domain_scope`]).
    tag: Option<&'a [u8]>,
}

impl Reuse<'_> {
    const NONE: Reuse<'static> = Reuse { fabric: core::ptr::null_mut(), domain: core::ptr::null_mut(), tag: None };

    /// Reads the handles from the hints. `None` when they name an object
    /// that is not this provider's, a fabric of another namespace, or a
    /// domain of another fabric than the one named: no entry can match.
    ///
    /// # Safety
    /// `h` is NULL or valid hints; their fabric and domain handles are NULL
    /// or objects the consumer holds open for the call.
    unsafe fn of<'a>(h: *const kfi_info) -> Option<Reuse<'a>> {
        // SAFETY: by the caller's contract.
        let Some(h) = (unsafe { h.as_ref() }) else {
            return Some(Reuse::NONE);
        };
        // SAFETY: attributes are NULL or valid, as the hints.
        let (fa, da) = unsafe { (h.fabric_attr.as_ref(), h.domain_attr.as_ref()) };
        let mut r = Reuse::NONE;
        r.fabric = fa.map_or(core::ptr::null_mut(), |f| f.fabric);
        r.domain = da.map_or(core::ptr::null_mut(), |d| d.domain);
        if !r.domain.is_null() {
            // SAFETY: an open domain (any provider's: the provider reads
            // its header to tell whether it is one of its own).
            let (f, tag) = unsafe { crate::Prov::domain_scope(r.domain) }?;
            if !r.fabric.is_null() && r.fabric != f {
                return None;
            }
            r.fabric = f;
            r.tag = tag;
        }
        if !r.fabric.is_null() {
            // SAFETY: as for the domain.
            if !unsafe { sys::kfi_util_is_fabric(r.fabric) } {
                return None;
            }
            // SAFETY: ours and open; its namespace is referenced for its
            // life.
            let net = unsafe { Fabric::net(Fabric::from_header(r.fabric)) };
            // SAFETY: `net` is a live namespace.
            if !unsafe { sys::kfi_util_net_is_current(net) } {
                return None;
            }
        }
        Some(r)
    }
}

/// A provider's `kgetinfo` (its arguments first): `variants` entries per
/// plan (`logic::plan`) over `views`, the interfaces the provider serves
/// in the caller's namespace (in its order: IPv4 entries come first),
/// each written by `fill(entry, Some(interface), plan, version, variant)`
/// (kfi_verbs: variant 0 its direct mode, 1 its soft mode, 2 RDM); hints
/// are applied again by the core. `tag_of(i)` is what the hints' domain
/// restricts `views[i]` by (its name filter, [`Provider::domain_scope`]).
/// `keep(plan, source, variant)` may drop a plan's entry (kfi_verbs: a
/// destination its device does not reach, RDM on iWARP; `source`: the
/// node was a source address).
/// Before planning: ep types none of `variants` is, an `av_type` with
/// MSG-only variants and address formats other than sockaddrs and
/// `KFI_ADDR_CXI` get -ENODATA. A source node naming an interface gives
/// its entries named by NIC address (`logic::nic`, RDM variants only)
/// unless the hints ask for sockaddrs. Errors: -EINVAL (NULL `info`, a
/// bad node or service), -ENODATA (no entry), -ENOMEM.
///
/// # Safety
/// As `kgetinfo`: `node` and `service` are NULL or valid strings; `hints`
/// is NULL or valid, with fabric and domain handles NULL or open for the
/// call; `info` is NULL or writable.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn getinfo<'t>(
    version: u32,
    node: *const c_char,
    service: *const c_char,
    flags: u64,
    hints: *mut kfi_info,
    info: *mut *mut kfi_info,
    views: &[Iface<'_>],
    tag_of: impl Fn(usize) -> &'t [u8],
    keep: impl Fn(&Plan, bool, usize) -> bool,
    variants: &[u32],
    mut fill: impl FnMut(&mut kfi_info, Option<&Iface<'_>>, &Plan, u32, usize) -> Result,
) -> c_int {
    if info.is_null() {
        return einval();
    }
    // The endpoint types offered are the variants' (`KFI_EP_MSG`,
    // `KFI_EP_RDM`): entries of another type than the hints' are not made.
    // SAFETY: the core passes NULL or valid hints.
    let want_type = unsafe { hints.as_ref().and_then(|h| h.ep_attr.as_ref()) }.map_or(sys::KFI_EP_UNSPEC, |e| e.type_);
    // MSG endpoints use no address vector (one opens, `av.rs`, but no
    // endpoint of these entries uses it): a consumer asking for a kind of
    // AV gets no MSG entry (the generic rule would let an `KFI_AV_UNSPEC`
    // entry match any); RDM endpoints take either kind.
    // SAFETY: as above.
    let want_av = unsafe { hints.as_ref().and_then(|h| h.domain_attr.as_ref()) }.map_or(sys::KFI_AV_UNSPEC, |d| d.av_type);
    let offered = |ty: u32| (want_type == sys::KFI_EP_UNSPEC || want_type == ty) && (ty != sys::KFI_EP_MSG || want_av == sys::KFI_AV_UNSPEC);
    if !variants.iter().any(|&t| offered(t)) {
        return base::neg(bindings::ENODATA);
    }
    // The family the consumer asks for: IPv6 entries would match an
    // `KFI_SOCKADDR_IN` hint by the generic rule (a sockaddr_in6 can hold
    // an IPv4-mapped address), but IPv6 endpoints are IPv6 only (kfi_tcp:
    // V6ONLY sockets): the family is chosen here.
    // SAFETY: as above.
    let format = unsafe { hints.as_ref() }.map_or(sys::KFI_FORMAT_UNSPEC, |h| h.addr_format);
    let Ok((family, nic)) = wanted_format(format) else {
        return base::neg(bindings::ENODATA);
    };
    // On the heap: 64 plans of two addresses are too much for the stack.
    // One plan per view is always enough (`plan::plan`).
    let cap = views.len().max(sys::KFI_UTIL_MAX_IFACES as usize);
    let mut plans = match KVec::with_capacity(cap, GFP_KERNEL) {
        Ok(v) => v,
        Err(_) => return base::neg(bindings::ENOMEM),
    };
    for _ in 0..cap {
        // Capacity reserved above: cannot fail.
        let _ = plans.push(Plan::default(), GFP_KERNEL);
    }
    let source = flags & sys::KFI_SOURCE as u64 != 0;
    // SAFETY: the core passes NULL or valid strings.
    let (node, service) = unsafe { (base::c_bytes(node), base::c_bytes(service)) };
    // The table is read (under its lock) only where NIC addresses name
    // entries.
    let planned = match nic {
        NicWant::No => plan::plan_with(views, source, node, service, family, nic, NicTable::EMPTY, &mut plans),
        _ => super::addr::with_nic_table(|t| plan::plan_with(views, source, node, service, family, nic, t, &mut plans)),
    };
    let n = match planned {
        Ok(n) => n,
        Err(e) => return e.errno(),
    };
    // SAFETY: the core passes NULL or valid hints, whose handles the
    // consumer holds open for the call.
    let Some(reuse) = (unsafe { Reuse::of(hints) }) else {
        return base::neg(bindings::ENODATA);
    };
    let mut list = InfoList::new();
    for p in &plans[..n] {
        let iface = &views[p.iface];
        if reuse.tag.is_some_and(|tag| tag != tag_of(p.iface)) {
            continue;
        }
        for (v, &ty) in variants.iter().enumerate() {
            // NIC addresses name endpoints of an AV (RDM), not the
            // socket addresses MSG endpoints connect to.
            if !offered(ty) || !keep(p, source, v) || (p.nic.is_some() && ty == sys::KFI_EP_MSG) {
                continue;
            }
            let r = list.push().and_then(|e| {
                fill(e, Some(iface), p, version, v)?;
                // SAFETY: `fill` succeeded: both attributes are allocated.
                unsafe {
                    (*e.fabric_attr).fabric = reuse.fabric;
                    (*e.domain_attr).domain = reuse.domain;
                }
                Ok(())
            });
            if r.is_err() {
                return base::neg(bindings::ENOMEM);
            }
        }
    }
    if list.is_empty() {
        return base::neg(bindings::ENODATA);
    }
    // SAFETY: checked non-NULL above; the list becomes the caller's.
    unsafe { *info = list.into_raw() };
    0
}

/// The info of a `KFI_CONNREQ` event: the provider's attributes (`fill`,
/// with no interface), the connection's addresses and `handle` (the
/// request). No domain or fabric name: the work item reporting it runs
/// outside the consumer's namespace. `op_flags`: the passive endpoint's
/// default tx and rx op flags.
pub(crate) fn connreq_info(
    fill: impl FnOnce(&mut kfi_info, Option<&Iface<'_>>, &Plan, u32) -> Result,
    local: Addr,
    peer: Addr,
    handle: *mut sys::kfid,
    op_flags: (u64, u64),
) -> Result<*mut kfi_info> {
    let mut list = InfoList::new();
    let p = Plan { iface: 0, src: Some(local), dest: Some(peer), nic: None };
    let e = list.push()?;
    fill(e, None, &p, (sys::KFI_MAJOR_VERSION << 16) | sys::KFI_MINOR_VERSION)?;
    // The endpoint accepted from it applies its op flags as defaults: the
    // passive endpoint's (libfabric copies the pep's info into each
    // request), not the advertised set, which is for matching hints.
    // SAFETY: `fill` succeeded: the attributes are allocated.
    unsafe {
        (*e.tx_attr).op_flags = op_flags.0;
        (*e.rx_attr).op_flags = op_flags.1;
    }
    e.handle = handle;
    Ok(list.into_raw())
}

/// Largest number of CQs and of counters a domain advertises (the
/// toolkit's objects: bounded by memory only; the figure is what consumers
/// size their tables by).
const TOOLKIT_OBJS: usize = 256;

/// Transmit and receive contexts a domain advertises (`tx_ctx_cnt`,
/// `rx_ctx_cnt`): every endpoint has one of each and a scalable
/// endpoint's contexts are the toolkit's objects too, bounded by memory
/// only. kfilnd asks for one per CPU partition (its dynamic resource
/// hints): a domain without the figure (0) refused it.
const TOOLKIT_CTX: usize = 8192;

/// Fills what an entry says of the toolkit's part and of the provider:
/// thread safety, automatic progress of control and data, enabled
/// resource management, no address vector, the CQ, counter and context
/// counts;
/// the fabric's provider name and version and the API version asked for.
pub(crate) fn fill_common(
    dom: &mut sys::kfi_domain_attr,
    fab: &mut sys::kfi_fabric_attr,
    prov_name: &[u8],
    prov_version: u32,
    api_version: u32,
) -> Result {
    dom.threading = sys::KFI_THREAD_SAFE;
    dom.control_progress = sys::KFI_PROGRESS_AUTO;
    dom.data_progress = sys::KFI_PROGRESS_AUTO;
    dom.resource_mgmt = sys::KFI_RM_ENABLED;
    dom.av_type = sys::KFI_AV_UNSPEC;
    dom.cq_cnt = TOOLKIT_OBJS;
    dom.cntr_cnt = TOOLKIT_OBJS;
    dom.tx_ctx_cnt = TOOLKIT_CTX;
    dom.rx_ctx_cnt = TOOLKIT_CTX;
    fab.prov_name = base::kstrdup(prov_name)?;
    fab.prov_version = prov_version;
    fab.api_version = api_version;
    Ok(())
}

/// The domain name of a consumer's info (`info->domain_attr->name`), if
/// it has one: what `kfi_domain` opens.
///
/// # Safety
/// `info` is NULL or a valid info whose domain attributes are NULL or
/// valid, with a NULL or NUL-terminated name; it outlives the result.
pub(crate) unsafe fn info_domain_name<'a>(info: *const kfi_info) -> Option<&'a [u8]> {
    // SAFETY: caller's contract.
    let dattr = unsafe { info.as_ref().and_then(|i| i.domain_attr.as_ref()) }?;
    // SAFETY: caller's contract.
    unsafe { base::c_bytes(dattr.name) }
}
