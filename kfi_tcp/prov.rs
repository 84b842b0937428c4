// SPDX-License-Identifier: GPL-2.0
//! The provider's entry points: `kgetinfo` (the toolkit's
//! `util::getinfo` over this namespace's interfaces, with this provider's
//! attributes) and `kfabric` (the toolkit's fabric).

use crate::ffi::{kfi_info, sys};
use crate::logic::host;
use crate::logic::plan::{self, Family, Plan};
use crate::logic::writer::BufWriter;
use crate::util::sep;
use crate::util::base;
use crate::util::getinfo::{fill_common, set_addrs};
use core::ffi::{c_char, c_int};
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

/// What RDM endpoints add to the receive capabilities: the source of each
/// message in its completion (`kfi_cq_readfrom`), receives from one source.
const RDM_RX_CAPS: u64 = sys::KFI_SOURCE | sys::KFI_DIRECTED_RECV;
/// And what it adds to transmits: the receive context of a scalable
/// endpoint named by `kfi_rx_addr` (`kfi_util/sep.rs`),
/// and tagged RMA (`KFI_TAGGED_RMA`: an RMA whose key is the tag of a
/// receive posted at the target, `data.rs`).
const RDM_TX_CAPS: u64 = sys::KFI_NAMED_RX_CTX | sys::KFI_TAGGED_RMA as u64;
/// The largest message of an RDM endpoint (over rxm's eager limit they go
/// by rendezvous).
const RDM_MAX_MSG_SIZE: usize = MAX_MSG_SIZE;
/// The entries' endpoint types, per interface address: MSG, then RDM
/// (`tcp;ofi_rxm`).
const VARIANTS: [u32; 2] = [sys::KFI_EP_MSG, sys::KFI_EP_RDM];

/// The provider structure handed to the core.
pub(crate) fn provider() -> sys::kfi_provider {
    let mut p = crate::util::fabric::provider(c"tcp", PROV_VERSION);
    p.kgetinfo = Some(tcp_getinfo);
    p
}

/// Writes this provider's attributes into `e`: the entry of `iface` (its
/// name and subnet name the domain and fabric) with the addresses of `p`,
/// or with no interface the info of a connection request.
pub(crate) fn fill(e: &mut kfi_info, iface: Option<&plan::Iface<'_>>, p: &Plan, version: u32) -> Result {
    e.caps = TX_CAPS | RX_CAPS | DOMAIN_CAPS;
    e.mode = 0;
    let family = iface.map(|i| i.family).or(p.src.map(|a| a.family)).or(p.dest.map(|a| a.family));
    set_addrs(e, family.unwrap_or_default(), p)?;
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
    dom.mr_mode = 0;
    dom.mr_key_size = 8;
    dom.cq_data_size = 8;
    dom.ep_cnt = 8192;
    dom.max_ep_tx_ctx = 1;
    dom.max_ep_rx_ctx = 1;
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
    fill_common(dom, fab, b"tcp", PROV_VERSION, version)
}

/// Turns a MSG entry filled by [`fill`] into the RDM one: reliable
/// connectionless endpoints speaking `tcp;ofi_rxm` 1.17 (`rdm.rs`), with
/// sources and directed receives, eager messages up to rxm's limit and
/// larger ones by its read rendezvous; any kind of AV.
fn rdm(e: &mut kfi_info) {
    // SAFETY: `fill` allocated all five attributes.
    let (tx, rx, ep, dom) = unsafe { (&mut *e.tx_attr, &mut *e.rx_attr, &mut *e.ep_attr, &mut *e.domain_attr) };
    rx.caps |= RDM_RX_CAPS;
    tx.caps |= RDM_TX_CAPS;
    e.caps |= RDM_RX_CAPS | RDM_TX_CAPS;
    sep::advertise(dom, ep);
    ep.type_ = sys::KFI_EP_RDM;
    ep.max_msg_size = RDM_MAX_MSG_SIZE;
    ep.max_order_raw_size = RDM_MAX_MSG_SIZE;
    ep.max_order_war_size = RDM_MAX_MSG_SIZE;
    ep.max_order_waw_size = RDM_MAX_MSG_SIZE;
}

/// `kgetinfo`: one entry per usable IPv4 and IPv6 address of the caller's
/// network namespace, IPv4 first (see `logic::plan`); a domain named in
/// the hints restricts them to its interface. Hints are applied again by
/// the core.
unsafe extern "C" fn tcp_getinfo(
    version: u32,
    node: *const c_char,
    service: *const c_char,
    flags: u64,
    hints: *mut kfi_info,
    info: *mut *mut kfi_info,
) -> c_int {
    let Ok(ifaces) = base::Ifaces::read() else {
        return base::neg(bindings::ENOMEM);
    };
    let views: KVec<plan::Iface<'_>> = match KVec::with_capacity(sys::KFI_UTIL_MAX_IFACES as usize, GFP_KERNEL) {
        Ok(mut v) => {
            for i in ifaces.views() {
                // Capacity reserved above: cannot fail.
                let _ = v.push(i, GFP_KERNEL);
            }
            v
        }
        Err(_) => return base::neg(bindings::ENOMEM),
    };
    // SAFETY: the core calls `kgetinfo` with arguments as `getinfo`
    // requires.
    unsafe {
        crate::util::getinfo::getinfo(version, node, service, flags, hints, info, &views, |i| views[i].name, |_, _, _| true, &VARIANTS, |e, i, p, v, k| {
            fill(e, i, p, v)?;
            if VARIANTS[k] == sys::KFI_EP_RDM {
                rdm(e);
            }
            Ok(())
        })
    }
}
