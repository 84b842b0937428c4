// SPDX-License-Identifier: GPL-2.0
//! The provider's entry points: `kgetinfo` (one entry per address of an
//! active RDMA port in the caller's namespace) and `kfabric` (the
//! toolkit's).
//!
//! What the entries advertise is exactly what works. So far that is the
//! fabric, the domain (one per RDMA device), event and completion queues
//! and counters with deferred work, and MSG endpoints that connect (no
//! capability bit names that); memory registration and data transfers
//! are not implemented yet, so no capability bit is set:
//! a consumer asking for `KFI_MSG` (or any other capability) does not get
//! these entries, a consumer listing everything (NULL hints) does.

use crate::ffi::{self, kfi_info, sys, Ports};
use crate::logic::info::{fabric_name, queue_size};
use crate::logic::plan::{Family, Iface, Plan};
use crate::logic::writer::BufWriter;
use crate::util::base::{self, einval, Ifaces};
use crate::util::getinfo::{addr_format, fill_common, getinfo, info_addr};
use core::ffi::{c_char, c_int};
use kernel::bindings;
use kernel::prelude::*;

/// Provider version reported in `fabric_attr->prov_version`.
const PROV_VERSION: u32 = (1 << 16) | 0;
/// Version of the wire convention on connections (libfabric 1.17 verbs
/// MSG: private data and immediate data as it carries them).
const WIRE_VERSION: u32 = 1;

/// The provider structure handed to the core.
pub(crate) fn provider() -> sys::kfi_provider {
    // SAFETY: all-zero is valid for kfi_provider (pointers, integers,
    // options of functions; comp/ref_cnt are set by the core).
    let mut p: sys::kfi_provider = unsafe { core::mem::zeroed() };
    p.version = PROV_VERSION;
    p.kfi_version = (sys::KFI_MAJOR_VERSION << 16) | sys::KFI_MINOR_VERSION;
    p.name = c"verbs".as_ptr();
    p.kgetinfo = Some(verbs_getinfo);
    p.kfabric = Some(crate::util::fabric::kfabric_entry);
    p
}

/// Fills entry `e` for `port` (the addresses, of `family`, in `p`): a
/// `kgetinfo` entry, or the info of a connection request that came to
/// `port` (`pep.rs`).
pub(crate) fn fill(e: &mut kfi_info, family: Family, port: &sys::kfi_verbs_port, p: &Plan, version: u32) -> Result {
    e.caps = 0;
    e.mode = 0;
    e.addr_format = addr_format(family);
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
    let depth = queue_size(port.max_qp_wr);
    tx.size = depth;
    rx.size = depth;
    ep.type_ = sys::KFI_EP_MSG;
    ep.protocol = if port.iwarp { sys::KFI_PROTO_IWARP } else { sys::KFI_PROTO_RDMA_CM_IB_RC };
    ep.protocol_version = WIRE_VERSION;
    ep.max_msg_size = port.max_msg as usize;
    ep.tx_ctx_cnt = 1;
    ep.rx_ctx_cnt = 1;
    dom.name = base::kstrdup(ffi::dev_name(port))?;
    let mut buf = [0u8; 32];
    let mut w = BufWriter::new(&mut buf);
    let _ = fabric_name(&mut w, port.iwarp, port.gid_prefix);
    fab.name = base::kstrdup(w.as_bytes())?;
    fill_common(dom, fab, b"verbs", PROV_VERSION, version)
}

/// `kgetinfo`: for each active port of an RDMA device whose network
/// device is in the caller's namespace, one entry per IPv4 and IPv6
/// address of that network device (the toolkit's address rules: node,
/// service, `KFI_SOURCE`); hints are applied again by the core.
unsafe extern "C" fn verbs_getinfo(
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
    let (Ok(ports), Ok(ifaces)) = (Ports::read(), Ifaces::read()) else {
        return base::neg(bindings::ENOMEM);
    };
    let ports = ports.get();
    // One view per (port, address of its network device); `owner[i]` is
    // the port of `views[i]`.
    let cap = sys::KFI_UTIL_MAX_IFACES as usize;
    let (Ok(mut views), Ok(mut owner)) = (KVec::with_capacity(cap, GFP_KERNEL), KVec::with_capacity(cap, GFP_KERNEL))
    else {
        return base::neg(bindings::ENOMEM);
    };
    for (pi, port) in ports.iter().enumerate() {
        for v in ifaces.views().filter(|v| i64::from(v.index) == i64::from(port.ifindex)) {
            if views.len() == cap {
                break;
            }
            // Capacity reserved above: cannot fail.
            let _ = views.push(v, GFP_KERNEL);
            let _ = owner.push(pi, GFP_KERNEL);
        }
    }
    let tag_of = |i: usize| ffi::dev_name(&ports[owner[i]]);
    let fill = |e: &mut kfi_info, iface: Option<&Iface<'_>>, p: &Plan, version: u32| match iface {
        Some(iface) => fill(e, iface.family, &ports[owner[p.iface]], p, version),
        None => Err(EINVAL),
    };
    // SAFETY: the core's arguments, passed on unchanged.
    unsafe { getinfo(version, node, service, flags, hints, info, &views, tag_of, fill) }
}
