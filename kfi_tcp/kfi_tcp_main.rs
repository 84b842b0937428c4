// SPDX-License-Identifier: GPL-2.0
//! kfi_tcp.ko: the kfabric sockets provider, registered as "tcp".
//!
//! It speaks the wire protocol of userspace libfabric's tcp provider over
//! kernel TCP sockets (see Documentation/kfi_tcp.md): fabric, domain,
//! event and completion queues, counters, memory regions, passive and
//! active MSG endpoints, msg/tagged/RMA transfers, triggered operations
//! and deferred work. Slots not implemented (atomics, address vectors,
//! scalable endpoints...) return -KFI_ENOSYS.
//!
//! Layout:
//! - `logic/` (+ the core's `host.rs`, `writer.rs`): kernel-independent
//!   logic, also built as host crates;
//! - `ffi.rs` (and the toolkit's `util::base`): bindings generated from
//!   `include/` and `tcp_sys.h`, RAII wrappers (the only `unsafe` besides
//!   the C entry points);
//! - `prov.rs`: `kgetinfo` (this provider's attributes over the toolkit's
//!   getinfo) and `kfabric`; one file per object: `domain.rs`, `mr.rs`,
//!   `pep.rs`, `ep.rs` (fabrics, EQs, CQs and counters are the toolkit's,
//!   and so is the endpoint base `ep.rs` embeds);
//! - `sock.rs`, `kfi_tcp_sock.c`: kernel sockets; `conn.rs` (+ `data.rs`):
//!   a connection's work item; `wire/`: the frame codec;
//! - `xfer.rs`: kfi_tcp's part of an endpoint's transfer queues (the
//!   queues are the toolkit's `util::queues`);
//! - `trigger` (`kfi_trigger/`): counters, triggered operations and
//!   deferred work, shared with the other providers;
//! - `util` (`kfi_util/`): the provider toolkit shared with the other
//!   providers (RAII wrappers, the `spin_lock_bh` lock, the fabric,
//!   getinfo, EQs, CQs...).

use kernel::prelude::*;

mod conn;
mod domain;
mod ep;
mod ffi;
mod mr;
mod pep;
mod prov;
mod rdm;
mod sock;
mod xfer;
// The provider toolkit and the KFI_TRIGGER machinery (shared with the
// other providers).
#[path = "../kfi_trigger/mod.rs"]
mod trigger;
#[path = "../kfi_util/mod.rs"]
mod util;

/// The provider, as the toolkit sees it.
pub(crate) struct Prov;

impl util::Provider for Prov {
    type Ep = xfer::EpData;
    type Endpoint = ep::Ep;
    type Pep = pep::Pep;
    type Mr = mr::Mr;
    type Domain = domain::Domain;
    type Sep = util::sep::MapSep;
    type TxExt = xfer::TxTcp;
    const TX_EXT_INIT: xfer::TxTcp = xfer::TxTcp::INIT;

    fn in_progress_work_on(cpu: u32) -> bool {
        let f = conn::Conn::work_fn();
        // SAFETY: reads the current task's work and CPU; `f` is compared
        // only.
        unsafe { ffi::sys::kfi_util_in_work_on(cpu as core::ffi::c_int, f) }
    }

    #[inline(always)]
    fn trace(point: util::Trace) {
        ffi::tr(match point {
            util::Trace::CqPush => ffi::sys::KFI_TCP_TR_CQ_PUSH,
            util::Trace::CqGot => ffi::sys::KFI_TCP_TR_CQ_GOT,
            util::Trace::Post => ffi::sys::KFI_TCP_TR_POST,
            util::Trace::PostDone => ffi::sys::KFI_TCP_TR_POST_DONE,
        });
    }

    fn fail_alloc() -> Result {
        ffi::fail_alloc()
    }

    unsafe fn domain_scope<'a>(dom: *mut ffi::sys::kfid_domain) -> Option<(*mut ffi::sys::kfid_fabric, Option<&'a [u8]>)> {
        // SAFETY: an open domain of any provider (the trait's contract):
        // its header is read only to tell whether it is ours.
        if !unsafe { ffi::sys::kfi_util_is_domain(dom) } {
            return None;
        }
        // SAFETY: ours, open while the result is used.
        let d = unsafe { domain::Domain::from_fid(&mut (*dom).fid) };
        // SAFETY: a domain's fabric outlives it.
        let f = unsafe { util::fabric::Fabric::header(util::fabric::ProvDomain::fabric(d)) };
        Some((f, d.iface()))
    }
}
// The frame codec (also the host crate kfi-tcp-wire); the connection layer
// is its first user.
#[allow(dead_code, unreachable_pub, unused_imports)]
mod wire;

// Shared with the core and the host crates; some helpers are used only by
// host tests.
#[allow(dead_code, unreachable_pub)]
mod logic {
    #[path = "../../rust/logic/writer.rs"]
    pub mod writer;
    pub use crate::util::logic::{host, mr, plan, rxm, xfer};
    #[path = "../logic/xfer_tcp.rs"]
    pub mod xfer_tcp;
}

module! {
    type: KfiTcp,
    name: "kfi_tcp",
    author: "kfabric developers",
    description: "kfabric sockets provider (libfabric tcp wire protocol)",
    license: "GPL",
}

struct KfiTcp {
    // Dropped in this order: deregistration first (it waits until no
    // fabric is open, so no connection is left), then the workqueue,
    // the fault attribute and the DMA device.
    _provider: util::base::Registration,
    _wq: util::base::WorkQueue,
    _faults: ffi::FaultAttr,
    _dma: util::base::DmaDevice,
}

impl kernel::Module for KfiTcp {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let dma = util::base::DmaDevice::new(c"kfi_tcp")?;
        let wq = util::base::WorkQueue::new()?;
        let faults = ffi::FaultAttr::new();
        let provider = util::base::Registration::new(prov::provider())?;
        Ok(KfiTcp { _provider: provider, _wq: wq, _faults: faults, _dma: dma })
    }
}
