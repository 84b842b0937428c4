// SPDX-License-Identifier: GPL-2.0
//! The provider's entry points: `kgetinfo` (one entry per address of an
//! active RDMA port in the caller's namespace) and `kfabric` (the
//! toolkit's).
//!
//! What the entries advertise is exactly what works: the fabric, the
//! domain (one per RDMA device), event and completion queues, counters
//! with deferred work, memory regions (`KFI_MR_PROV_KEY`: remote access
//! through fast registration), and MSG endpoints that connect, send and
//! receive messages (`KFI_MSG`, `KFI_SEND`, `KFI_RECV`) and read and
//! write remote regions (`KFI_RMA`, `KFI_READ`, `KFI_WRITE`,
//! `KFI_REMOTE_READ`, `KFI_REMOTE_WRITE`; one remote region per
//! operation), with remote CQ data on InfiniBand transports only, also
//! triggered (`KFI_TRIGGER`), and on devices with atomics (rxe, not siw)
//! `KFI_ATOMIC`: 64-bit fetch-add and compare-swap.
//!
//! Each address has two entries: direct mode first (`protocol_version`
//! 1: libfabric's verbs wire, every receive the consumer's buffer on the
//! receive queue), then soft mode (`protocol_version` 2, kfi_verbs peers
//! only: adds `KFI_TAGGED` and `KFI_MULTI_RECV`; `soft.rs`). Other
//! atomics and counting remote accesses (`KFI_RMA_EVENT`) are not
//! implemented and not advertised.

use crate::ffi::{self, kfi_info, sys, Ports};
use crate::logic::info::{fabric_name, queue_size};
use crate::logic::plan::{Family, Iface, Plan};
use crate::logic::writer::BufWriter;
use crate::util::base::{self, einval, Ifaces};
use crate::util::getinfo::{fill_common, getinfo, set_addrs};
use core::ffi::{c_char, c_int};
use kernel::bindings;
use kernel::prelude::*;

/// Provider version reported in `fabric_attr->prov_version`.
const PROV_VERSION: u32 = (1 << 16) | 0;
/// Version of the wire convention on connections in direct mode
/// (libfabric 1.17 verbs MSG: private data and immediate data as it
/// carries them; every receive is the consumer's buffer).
pub(crate) const WIRE_DIRECT: u32 = 1;
/// The same in soft mode (kfi_verbs peers only: headers, bounce buffers,
/// tag matching in software; `logic/proto.rs`).
pub(crate) const WIRE_SOFT: u32 = 2;
/// What soft mode adds: tagged messages (`KFI_TAGGED`, with probes) and
/// multi-receive buffers.
const SOFT_TX_CAPS: u64 = sys::KFI_TAGGED as u64;
const SOFT_RX_CAPS: u64 = sys::KFI_TAGGED as u64 | sys::KFI_MULTI_RECV as u64;

/// Transmit capabilities: `KFI_TRIGGER` (triggered operations, aliases,
/// deferred work: the toolkit's, over the same queues).
const TX_CAPS: u64 = sys::KFI_MSG as u64
    | sys::KFI_RMA as u64
    | sys::KFI_SEND as u64
    | sys::KFI_READ as u64
    | sys::KFI_WRITE as u64
    | sys::KFI_TRIGGER as u64;
/// Receive capabilities (`KFI_TRIGGER`: triggered receives; the remote
/// access bits: our regions are read and written by peers' devices).
const RX_CAPS: u64 = sys::KFI_MSG as u64
    | sys::KFI_RMA as u64
    | sys::KFI_RECV as u64
    | sys::KFI_REMOTE_READ as u64
    | sys::KFI_REMOTE_WRITE as u64
    | sys::KFI_TRIGGER as u64;
/// Atomics (devices with them: `KFI_ATOMIC` in caps, tx and rx): 64-bit
/// fetch-add and compare-swap on one element (`logic/atomic.rs`).
const ATOMIC_TX_CAPS: u64 = sys::KFI_ATOMIC as u64;
const ATOMIC_RX_CAPS: u64 = sys::KFI_ATOMIC as u64;
/// Memory registration modes: the provider chooses the keys (the device
/// does); addresses are offsets (no `KFI_MR_VIRT_ADDR`); local buffers
/// need no registration (no `KFI_MR_LOCAL`).
const MR_MODE: c_int = sys::KFI_MR_PROV_KEY as c_int;
/// Segments per memory region (`kfi_mr_regv`/`regbv`/`regsgl`): a
/// 1 MiB buffer as single pages, the most one fast registration holds.
const MR_IOV_LIMIT: usize = sys::KFI_VERBS_MR_PAGES as usize;
/// Both devices reach their own addresses and others'.
const DOMAIN_CAPS: u64 = sys::KFI_LOCAL_COMM as u64 | sys::KFI_REMOTE_COMM as u64;
/// Default operation flags an endpoint accepts in `tx_attr->op_flags`.
/// An RC send completes once the peer's device acknowledged it, placed
/// in the receive buffer: transmit and delivery complete hold. `KFI_MORE`
/// is accepted and changes nothing (one work request per call).
pub(crate) const TX_OP_FLAGS: u64 = sys::KFI_COMPLETION as u64
    | sys::KFI_INJECT as u64
    | sys::KFI_INJECT_COMPLETE as u64
    | sys::KFI_TRANSMIT_COMPLETE as u64
    | sys::KFI_DELIVERY_COMPLETE as u64
    | sys::KFI_MORE as u64;
/// The same for `rx_attr->op_flags`: `KFI_MULTI_RECV` for the entries
/// whose endpoints take multi-receive buffers (soft mode, RDM; a direct
/// mode endpoint refuses such a receive, -KFI_EBADFLAGS).
pub(crate) const RX_OP_FLAGS: u64 = sys::KFI_COMPLETION as u64 | sys::KFI_MORE as u64 | sys::KFI_MULTI_RECV as u64;
/// What an RC queue pair keeps in order (as libfabric's verbs provider
/// states it): sends and writes among themselves and each after the
/// other, reads after reads, writes and sends.
const MSG_ORDER: u64 = sys::KFI_ORDER_RAR as u64
    | sys::KFI_ORDER_RAW as u64
    | sys::KFI_ORDER_RAS as u64
    | sys::KFI_ORDER_WAW as u64
    | sys::KFI_ORDER_WAS as u64
    | sys::KFI_ORDER_SAW as u64
    | sys::KFI_ORDER_SAS as u64;

/// An RDM entry (`rdm.rs`, libfabric's `verbs;ofi_rxm` wire): messages
/// (tagged, multi-receive, remote CQ data in rxm's header) by eager rxm
/// packets, with sources and directed receives, triggered; RMA as RDMA
/// READ and WRITE on the peer's connection (as rxm's); kfabric's tagged
/// RMA; scalable endpoints (named receive contexts). No atomics over RDM
/// yet.
const RDM_TX_CAPS: u64 = sys::KFI_MSG as u64
    | sys::KFI_TAGGED as u64
    | sys::KFI_SEND as u64
    | sys::KFI_RMA as u64
    | sys::KFI_READ as u64
    | sys::KFI_WRITE as u64
    | sys::KFI_TRIGGER as u64
    | sys::KFI_NAMED_RX_CTX
    | sys::KFI_TAGGED_RMA as u64;
const RDM_RX_CAPS: u64 = sys::KFI_MSG as u64
    | sys::KFI_TAGGED as u64
    | sys::KFI_RECV as u64
    | sys::KFI_RMA as u64
    | sys::KFI_REMOTE_READ as u64
    | sys::KFI_REMOTE_WRITE as u64
    | sys::KFI_MULTI_RECV as u64
    | sys::KFI_TRIGGER as u64
    | sys::KFI_SOURCE
    | sys::KFI_DIRECTED_RECV;

/// Pieces of one buffer and remote regions of one RMA on RDM endpoints
/// (the toolkit's most).
const IOV_MAX: usize = crate::util::logic::xfer::IOV_MAX;
/// Bytes of an authorization key RDM endpoints take (not enforced).
const AUTH_KEY_SIZE: usize = 4;

/// The provider structure handed to the core.
pub(crate) fn provider() -> sys::kfi_provider {
    let mut p = crate::util::fabric::provider(c"verbs", PROV_VERSION);
    p.kgetinfo = Some(verbs_getinfo);
    p
}

/// Fills entry `e` for `port` (the addresses, of `family`, in `p`): a
/// `kgetinfo` entry, or the info of a connection request that came to
/// `port` (`pep.rs`); in soft mode if `soft`.
pub(crate) fn fill(e: &mut kfi_info, family: Family, port: &sys::kfi_verbs_port, p: &Plan, version: u32, soft: bool) -> Result {
    let (mut tx_caps, mut rx_caps) = match port.atomics {
        true => (TX_CAPS | ATOMIC_TX_CAPS, RX_CAPS | ATOMIC_RX_CAPS),
        false => (TX_CAPS, RX_CAPS),
    };
    if soft {
        tx_caps |= SOFT_TX_CAPS;
        rx_caps |= SOFT_RX_CAPS;
    }
    e.caps = tx_caps | rx_caps | DOMAIN_CAPS;
    e.mode = 0;
    set_addrs(e, family, p)?;
    // SAFETY: kfi_allocinfo allocated all five attributes.
    let (tx, rx, ep, dom, fab) = unsafe {
        (&mut *e.tx_attr, &mut *e.rx_attr, &mut *e.ep_attr, &mut *e.domain_attr, &mut *e.fabric_attr)
    };
    let depth = queue_size(port.max_qp_wr);
    tx.caps = tx_caps;
    tx.op_flags = TX_OP_FLAGS;
    tx.msg_order = MSG_ORDER;
    tx.inject_size = INJECT_SIZE;
    tx.size = depth;
    tx.iov_limit = iov_limit(port.max_send_sge);
    // One work request per operation: one remote region.
    tx.rma_iov_limit = 1;
    rx.caps = rx_caps;
    rx.op_flags = if soft { RX_OP_FLAGS } else { RX_OP_FLAGS & !(sys::KFI_MULTI_RECV as u64) };
    rx.msg_order = MSG_ORDER;
    rx.size = depth;
    rx.iov_limit = iov_limit(port.max_recv_sge);
    if soft {
        // Copied out of bounce buffers, streamed in chunks: any pieces.
        tx.iov_limit = sys::KFI_VERBS_SGE_MAX as usize;
        rx.iov_limit = sys::KFI_VERBS_SGE_MAX as usize;
    }
    ep.type_ = sys::KFI_EP_MSG;
    ep.protocol = if port.iwarp { sys::KFI_PROTO_IWARP } else { sys::KFI_PROTO_RDMA_CM_IB_RC };
    ep.protocol_version = if soft { WIRE_SOFT } else { WIRE_DIRECT };
    ep.max_msg_size = (port.max_msg as usize).min(crate::ep::MAX_MSG_SIZE as usize);
    ep.max_order_raw_size = ep.max_msg_size;
    ep.max_order_waw_size = ep.max_msg_size;
    ep.tx_ctx_cnt = 1;
    ep.rx_ctx_cnt = 1;
    dom.mr_mode = MR_MODE;
    dom.mr_key_size = 8;
    dom.mr_iov_limit = (port.max_fr_pages as usize).min(MR_IOV_LIMIT);
    dom.mr_cnt = port.max_mr as usize;
    // An endpoint holds at least one queue pair.
    dom.ep_cnt = port.max_qp as usize;
    // Immediate data: 4 bytes on InfiniBand transports, none on iWARP.
    dom.cq_data_size = if port.iwarp { 0 } else { 4 };
    dom.caps = DOMAIN_CAPS;
    dom.max_ep_tx_ctx = 1;
    dom.max_ep_rx_ctx = 1;
    dom.name = base::kstrdup(ffi::dev_name(port))?;
    let mut buf = [0u8; 32];
    let mut w = BufWriter::new(&mut buf);
    let _ = fabric_name(&mut w, port.iwarp, port.gid_prefix);
    fab.name = base::kstrdup(w.as_bytes())?;
    fill_common(dom, fab, b"verbs", PROV_VERSION, version)
}

/// Turns an entry filled by [`fill`] (direct mode) into the RDM one.
fn rdm(e: &mut kfi_info) {
    // SAFETY: `fill` allocated all five attributes.
    let (tx, rx, ep, dom) = unsafe { (&mut *e.tx_attr, &mut *e.rx_attr, &mut *e.ep_attr, &mut *e.domain_attr) };
    tx.caps = RDM_TX_CAPS;
    rx.caps = RDM_RX_CAPS;
    rx.op_flags = RX_OP_FLAGS;
    e.caps = RDM_TX_CAPS | RDM_RX_CAPS | DOMAIN_CAPS;
    // Messages are copied into and out of packet buffers; an RMA's or a
    // rendezvous read's pieces beyond what a work request holds go
    // through a registration of their own: any pieces. An RMA is a work
    // request per remote region.
    tx.iov_limit = IOV_MAX;
    rx.iov_limit = IOV_MAX;
    tx.rma_iov_limit = IOV_MAX;
    // Authorization keys of 4 bytes (kfilnd's u32: a VNI on Slingshot)
    // are accepted and carried in the info, as kfi_tcp does; nothing on
    // the wire carries one, so they separate nothing.
    ep.auth_key_size = AUTH_KEY_SIZE;
    dom.auth_key_size = AUTH_KEY_SIZE;
    ep.type_ = sys::KFI_EP_RDM;
    crate::util::sep::advertise(dom, ep);
    ep.max_msg_size = crate::rdm::RDM_MAX_MSG_SIZE as usize;
    ep.max_order_raw_size = 0;
    ep.max_order_waw_size = 0;
    // rxm's header carries 8 bytes of CQ data.
    dom.cq_data_size = 8;
}

/// Bytes of an inject (copied into the slot's own buffer at the call).
pub(crate) const INJECT_SIZE: usize = crate::util::logic::xfer::INJECT_LIMIT;

/// Segments of one operation: what a work request of the device holds,
/// at most `KFI_VERBS_SGE_MAX`.
fn iov_limit(dev_sge: u32) -> usize {
    (dev_sge as usize).min(sys::KFI_VERBS_SGE_MAX as usize)
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
    // Per address, the direct mode's entry (libfabric peers, zero copy)
    // first, then the soft mode's (tagged, multi-receive).
    let fill = |e: &mut kfi_info, iface: Option<&Iface<'_>>, p: &Plan, version: u32, v: usize| match iface {
        Some(iface) => {
            fill(e, iface.family, &ports[owner[p.iface]], p, version, v == 1)?;
            if v == 2 {
                rdm(e);
            }
            Ok(())
        }
        None => Err(EINVAL),
    };
    // An entry with a destination the consumer named (not a source node)
    // is kept only for the device rdma_cm would connect through: the one
    // whose network device holds that address, or the one the route to
    // it leaves by (as libfabric's verbs provider resolves it). Unknown
    // routes keep every entry.
    // (RDM on iWARP, whose queue pairs have no receiver-not-ready
    // retries, uses rxm's credits: `rdm.rs`.)
    let keep = |p: &Plan, source: bool, _v: usize| match (p.dest, source) {
        (Some(d), false) => match ffi::route_ifindex(&crate::util::addr::sockaddr(d)) {
            Some(ifindex) => i64::from(views[p.iface].index) == i64::from(ifindex),
            None => true,
        },
        _ => true,
    };
    // SAFETY: the core's arguments, passed on unchanged.
    // Three variants: MSG in direct and soft mode (protocol versions),
    // then RDM.
    unsafe { getinfo(version, node, service, flags, hints, info, &views, tag_of, keep, &[sys::KFI_EP_MSG, sys::KFI_EP_MSG, sys::KFI_EP_RDM], fill) }
}
