// SPDX-License-Identifier: GPL-2.0
//! The provider's entry points: `kgetinfo` and `kfabric`.

use crate::util::base::{self, einval, InfoList};
use crate::domain::Domain;
use crate::fabric;
use crate::ffi::{self, kfi_info, sys};
use crate::logic::host;
use crate::logic::plan::{self, Addr, Family, Plan};
use crate::logic::writer::BufWriter;
use core::ffi::{c_char, c_int, c_void};
use core::fmt::Write;
use kernel::bindings;
use kernel::prelude::*;

/// Provider version reported in `fabric_attr->prov_version`.
const PROV_VERSION: u32 = (1 << 16) | 0;
/// The wire protocol version of libfabric's tcp provider.
const WIRE_VERSION: u32 = 3;
/// Inject size of the tcp wire protocol.
const INJECT_SIZE: usize = 128;
/// Local segments and remote regions per operation (an RMA over more
/// regions than a frame carries goes as several frames).
const IOV_LIMIT: usize = crate::logic::xfer::IOV_MAX;
/// Size of the authorization keys accepted (and not enforced: see
/// `fill`).
const AUTH_KEY_SIZE: usize = 4;
/// Segments per memory region (`kfi_mr_regv`/`regbv`/`regsgl`).
const MR_IOV_LIMIT: usize = crate::logic::mr::SEG_LIMIT;
/// Queue depths offered.
const QUEUE_SIZE: usize = 1024;
/// Largest message (1 GiB).
const MAX_MSG_SIZE: usize = 1 << 30;

/// Transmit capabilities: `KFI_TRIGGER` (triggered operations, aliases,
/// deferred work) is implemented for every transmit; `KFI_FENCE` is
/// accepted on every transmit and holds by construction (one connection
/// is one ordered stream its peer serves in order).
const TX_CAPS: u64 = sys::KFI_MSG as u64
    | sys::KFI_RMA as u64
    | sys::KFI_TAGGED as u64
    | sys::KFI_SEND as u64
    | sys::KFI_READ as u64
    | sys::KFI_WRITE as u64
    | sys::KFI_TRIGGER as u64
    | sys::KFI_FENCE as u64;
/// Receive capabilities: `KFI_RMA_EVENT`, because remote reads and writes
/// of our regions count on the counters bound with `KFI_REMOTE_READ` /
/// `KFI_REMOTE_WRITE`; `KFI_TRIGGER` for triggered receives.
const RX_CAPS: u64 = sys::KFI_MSG as u64
    | sys::KFI_RMA as u64
    | sys::KFI_TAGGED as u64
    | sys::KFI_RECV as u64
    | sys::KFI_REMOTE_READ as u64
    | sys::KFI_REMOTE_WRITE as u64
    | sys::KFI_MULTI_RECV as u64
    | sys::KFI_RMA_EVENT as u64
    | sys::KFI_TRIGGER as u64;
/// Default operation flags an endpoint accepts in `tx_attr->op_flags`
/// (applied to every transmit call but the `*msg` ones).
pub(crate) const TX_OP_FLAGS: u64 = sys::KFI_COMPLETION as u64
    | sys::KFI_INJECT as u64
    | sys::KFI_INJECT_COMPLETE as u64
    | sys::KFI_TRANSMIT_COMPLETE as u64
    | sys::KFI_DELIVERY_COMPLETE as u64
    | sys::KFI_MORE as u64
    | sys::KFI_FENCE as u64;
/// The same for `rx_attr->op_flags` (`KFI_MULTI_RECV` applies to untagged
/// receives only; `KFI_TRANSMIT_COMPLETE` asks nothing more of a receive
/// than that its data is placed, which is when it completes).
pub(crate) const RX_OP_FLAGS: u64 = sys::KFI_COMPLETION as u64
    | sys::KFI_MULTI_RECV as u64
    | sys::KFI_MORE as u64
    | sys::KFI_TRANSMIT_COMPLETE as u64;
const DOMAIN_CAPS: u64 = sys::KFI_LOCAL_COMM as u64 | sys::KFI_REMOTE_COMM as u64;
/// A byte stream keeps everything in order except completions.
const MSG_ORDER: u64 = sys::KFI_ORDER_RAR as u64
    | sys::KFI_ORDER_RAW as u64
    | sys::KFI_ORDER_RAS as u64
    | sys::KFI_ORDER_WAR as u64
    | sys::KFI_ORDER_WAW as u64
    | sys::KFI_ORDER_WAS as u64
    | sys::KFI_ORDER_SAR as u64
    | sys::KFI_ORDER_SAW as u64
    | sys::KFI_ORDER_SAS as u64;

/// The provider structure handed to the core.
pub(crate) fn provider() -> sys::kfi_provider {
    // SAFETY: all-zero is valid for kfi_provider (pointers, integers,
    // options of functions; comp/ref_cnt are set by the core).
    let mut p: sys::kfi_provider = unsafe { core::mem::zeroed() };
    p.version = PROV_VERSION;
    p.kfi_version = (sys::KFI_MAJOR_VERSION << 16) | sys::KFI_MINOR_VERSION;
    p.name = c"tcp".as_ptr();
    p.kgetinfo = Some(tcp_getinfo);
    p.kfabric = Some(tcp_fabric);
    p
}

/// A kmalloc'd `struct sockaddr_in`/`sockaddr_in6` of `a` and its length
/// (for `src_addr`/`dest_addr`).
fn info_addr(a: Addr) -> Result<(*mut c_void, usize)> {
    let mut buf = [0u8; sys::KFI_TCP_SOCKADDR_MAX as usize];
    let len = crate::sock::encode(&crate::sock::sockaddr(a), &mut buf);
    Ok((base::kmemdup(&buf[..len])?, len))
}

/// The `addr_format` of entries of a family.
fn addr_format(f: Family) -> u32 {
    match f {
        Family::V4 => sys::KFI_SOCKADDR_IN,
        Family::V6 => sys::KFI_SOCKADDR_IN6,
    }
}

/// The family the hints' `addr_format` asks for: `Ok(None)` for either
/// (`KFI_FORMAT_UNSPEC`, `KFI_SOCKADDR`), `Err` for a format this provider
/// does not offer.
fn wanted_family(format: u32) -> core::result::Result<Option<Family>, ()> {
    match format {
        sys::KFI_FORMAT_UNSPEC | sys::KFI_SOCKADDR => Ok(None),
        sys::KFI_SOCKADDR_IN => Ok(Some(Family::V4)),
        sys::KFI_SOCKADDR_IN6 => Ok(Some(Family::V6)),
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
    /// Only entries of this interface (the named domain's).
    iface: Option<&'a [u8]>,
}

impl Reuse<'_> {
    const NONE: Reuse<'static> = Reuse { fabric: core::ptr::null_mut(), domain: core::ptr::null_mut(), iface: None };

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
            // SAFETY: an open domain (any provider's: its header is read
            // only to tell whether it is ours).
            if !unsafe { sys::kfi_tcp_glue_is_domain(r.domain) } {
                return None;
            }
            // SAFETY: ours, open for the call.
            let d = unsafe { Domain::from_fid(&mut (*r.domain).fid) };
            // SAFETY: a domain's fabric outlives it.
            let f = unsafe { fabric::Fabric::header(d.fabric()) };
            if !r.fabric.is_null() && r.fabric != f {
                return None;
            }
            r.fabric = f;
            r.iface = d.iface();
        }
        if !r.fabric.is_null() {
            // SAFETY: as for the domain.
            if !unsafe { sys::kfi_tcp_glue_is_fabric(r.fabric) } {
                return None;
            }
            // SAFETY: ours and open; its namespace is referenced for its
            // life.
            let net = unsafe { fabric::Fabric::net(fabric::Fabric::from_header(r.fabric)) };
            // SAFETY: `net` is a live namespace.
            if !unsafe { sys::kfi_tcp_glue_net_is_current(net) } {
                return None;
            }
        }
        Some(r)
    }
}

fn fill(e: &mut kfi_info, iface: Option<&plan::Iface<'_>>, p: &Plan, version: u32) -> Result {
    e.caps = TX_CAPS | RX_CAPS | DOMAIN_CAPS;
    e.mode = 0;
    let family = iface.map(|i| i.family).or(p.src.map(|a| a.family)).or(p.dest.map(|a| a.family));
    e.addr_format = addr_format(family.unwrap_or_default());
    if let Some(src) = p.src {
        (e.src_addr, e.src_addrlen) = info_addr(src)?;
    }
    if let Some(dest) = p.dest {
        (e.dest_addr, e.dest_addrlen) = info_addr(dest)?;
    }
    // SAFETY: kfi_allocinfo allocated all five attributes.
    let (tx, rx, ep, dom, fab) = unsafe {
        (&mut *e.tx_attr, &mut *e.rx_attr, &mut *e.ep_attr, &mut *e.domain_attr, &mut *e.fabric_attr)
    };
    tx.caps = TX_CAPS;
    tx.op_flags = TX_OP_FLAGS;
    tx.msg_order = MSG_ORDER;
    tx.inject_size = INJECT_SIZE;
    tx.size = QUEUE_SIZE;
    tx.iov_limit = IOV_LIMIT;
    tx.rma_iov_limit = IOV_LIMIT;
    rx.caps = RX_CAPS;
    rx.op_flags = RX_OP_FLAGS;
    rx.msg_order = MSG_ORDER;
    rx.size = QUEUE_SIZE;
    rx.iov_limit = IOV_LIMIT;
    ep.type_ = sys::KFI_EP_MSG;
    ep.protocol = sys::KFI_PROTO_SOCK_TCP;
    ep.protocol_version = WIRE_VERSION;
    ep.max_msg_size = MAX_MSG_SIZE;
    ep.max_order_raw_size = MAX_MSG_SIZE;
    ep.max_order_war_size = MAX_MSG_SIZE;
    ep.max_order_waw_size = MAX_MSG_SIZE;
    ep.mem_tag_format = u64::MAX;
    ep.tx_ctx_cnt = 1;
    ep.rx_ctx_cnt = 1;
    // Authorization keys of 4 bytes (kfilnd's u32, a VNI on Slingshot) are
    // accepted and carried in the info; the tcp wire has no field for one,
    // so they separate nothing (libfabric's tcp provider has none either).
    ep.auth_key_size = AUTH_KEY_SIZE;
    dom.threading = sys::KFI_THREAD_SAFE;
    dom.control_progress = sys::KFI_PROGRESS_AUTO;
    dom.data_progress = sys::KFI_PROGRESS_AUTO;
    dom.resource_mgmt = sys::KFI_RM_ENABLED;
    dom.av_type = sys::KFI_AV_UNSPEC;
    dom.mr_mode = 0;
    dom.mr_key_size = 8;
    dom.cq_data_size = 8;
    dom.cq_cnt = 256;
    dom.ep_cnt = 8192;
    dom.tx_ctx_cnt = 8192;
    dom.rx_ctx_cnt = 8192;
    dom.max_ep_tx_ctx = 1;
    dom.max_ep_rx_ctx = 1;
    dom.cntr_cnt = 256;
    dom.mr_iov_limit = MR_IOV_LIMIT;
    dom.mr_cnt = 65535;
    dom.auth_key_size = AUTH_KEY_SIZE;
    dom.caps = DOMAIN_CAPS;
    if let Some(iface) = iface {
        dom.name = base::kstrdup(iface.name)?;
        // Fabric name: the address's subnet, "a.b.c.d/prefix" or the
        // RFC 5952 text of an IPv6 one, "fd00::/64".
        let mut buf = [0u8; 64];
        let mut w = BufWriter::new(&mut buf);
        let s = iface.subnet();
        let _ = match iface.family {
            Family::V4 => write!(w, "{}.{}.{}.{}", s[0], s[1], s[2], s[3]),
            Family::V6 => host::write_ipv6(&mut w, &s),
        };
        let _ = write!(w, "/{}", iface.prefix_len());
        fab.name = base::kstrdup(w.as_bytes())?;
    }
    fab.prov_name = base::kstrdup(b"tcp")?;
    fab.prov_version = PROV_VERSION;
    fab.api_version = version;
    Ok(())
}

/// `kgetinfo`: one entry per usable IPv4 and IPv6 address of the caller's
/// network namespace, IPv4 first (see `logic::plan`). Hints are applied again by the core.
unsafe extern "C" fn tcp_getinfo(
    version: u32,
    node: *const c_char,
    service: *const c_char,
    flags: u64,
    hints: *mut kfi_info,
    info: *mut *mut kfi_info,
) -> c_int {
    if info.is_null() {
        return einval();
    }
    // This provider offers MSG endpoints only so far.
    // SAFETY: the core passes NULL or valid hints.
    if let Some(ep) = unsafe { hints.as_ref().and_then(|h| h.ep_attr.as_ref()) } {
        if ep.type_ != sys::KFI_EP_UNSPEC && ep.type_ != sys::KFI_EP_MSG {
            return base::neg(bindings::ENODATA);
        }
    }
    // MSG endpoints use no address vector and `kfi_av_open` is not
    // offered: a consumer asking for a kind of AV gets nothing (the
    // generic rule would let an `KFI_AV_UNSPEC` entry match any).
    // SAFETY: as above.
    if let Some(d) = unsafe { hints.as_ref().and_then(|h| h.domain_attr.as_ref()) } {
        if d.av_type != sys::KFI_AV_UNSPEC {
            return base::neg(bindings::ENODATA);
        }
    }
    // The family the consumer asks for: IPv6 entries would match an
    // `KFI_SOCKADDR_IN` hint by the generic rule (a sockaddr_in6 can hold
    // an IPv4-mapped address), but this provider's IPv6 sockets are
    // V6ONLY: the family is chosen here.
    // SAFETY: as above.
    let format = unsafe { hints.as_ref() }.map_or(sys::KFI_FORMAT_UNSPEC, |h| h.addr_format);
    let Ok(family) = wanted_family(format) else {
        return base::neg(bindings::ENODATA);
    };
    let Ok(ifaces) = ffi::Ifaces::read() else {
        return base::neg(bindings::ENOMEM);
    };
    let views: KVec<plan::Iface<'_>> = match KVec::with_capacity(sys::KFI_TCP_MAX_IFACES as usize, GFP_KERNEL) {
        Ok(mut v) => {
            for i in ifaces.views() {
                // Capacity reserved above: cannot fail.
                let _ = v.push(i, GFP_KERNEL);
            }
            v
        }
        Err(_) => return base::neg(bindings::ENOMEM),
    };
    // On the heap: 64 plans of two addresses are too much for the stack.
    let mut plans = match KVec::with_capacity(sys::KFI_TCP_MAX_IFACES as usize, GFP_KERNEL) {
        Ok(v) => v,
        Err(_) => return base::neg(bindings::ENOMEM),
    };
    for _ in 0..sys::KFI_TCP_MAX_IFACES {
        // Capacity reserved above: cannot fail.
        let _ = plans.push(Plan::default(), GFP_KERNEL);
    }
    let source = flags & sys::KFI_SOURCE as u64 != 0;
    // SAFETY: the core passes NULL or valid strings.
    let (node, service) = unsafe { (base::c_bytes(node), base::c_bytes(service)) };
    let n = match plan::plan(&views, source, node, service, family, &mut plans) {
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
        if reuse.iface.is_some_and(|name| name != iface.name) {
            continue;
        }
        let r = list.push().and_then(|e| {
            fill(e, Some(iface), p, version)?;
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
    if list.is_empty() {
        return base::neg(bindings::ENODATA);
    }
    // SAFETY: checked non-NULL above; the list becomes the caller's.
    unsafe { *info = list.into_raw() };
    0
}

/// The info of a `KFI_CONNREQ` event: the provider's attributes, the
/// connection's addresses and `handle` (the request). No domain or fabric
/// name: the work item reporting it runs outside the consumer's namespace.
pub(crate) fn connreq_info(local: Addr, peer: Addr, handle: *mut sys::kfid, op_flags: (u64, u64)) -> Result<*mut kfi_info> {
    let mut list = InfoList::new();
    let p = Plan { iface: 0, src: Some(local), dest: Some(peer) };
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

/// `kfabric`: opens a fabric in the caller's network namespace.
unsafe extern "C" fn tcp_fabric(
    attr: *mut sys::kfi_fabric_attr,
    fabric: *mut *mut sys::kfid_fabric,
    context: *mut c_void,
) -> c_int {
    if attr.is_null() || fabric.is_null() {
        return einval();
    }
    match fabric::Fabric::open(context) {
        Ok(f) => {
            // SAFETY: checked non-NULL above.
            unsafe { *fabric = f };
            0
        }
        Err(e) => e.to_errno(),
    }
}
