// SPDX-License-Identifier: GPL-2.0
//! kfi_verbs.ko: the kfabric RDMA provider over the kernel's ib_verbs and
//! rdma_cm, registered as "verbs" (Documentation/verbs-plan.md).
//!
//! What works so far: RDMA devices tracked through an ib_client (hot add
//! and removal), `kfi_getinfo` entries for every address of an active
//! port (fabric and domain names as libfabric's verbs provider gives
//! them), the fabric, the domain (one per device, holding the device's
//! protection domain), the toolkit's event queues, completion queues,
//! counters and deferred work on them, and MSG endpoints and passive
//! endpoints that connect over rdma_cm (an RC queue pair each; CM data
//! in libfabric verbs' layout, `KFI_CONNREQ`, `KFI_CONNECTED`, rejects,
//! `KFI_SHUTDOWN`, hot removal) and send and receive messages over it
//! (also injected, with remote CQ data, triggered, deferred). Memory
//! registration, RMA, tagged messages and atomics return -KFI_ENOSYS, and
//! `kfi_getinfo` advertises no capability for them.
//!
//! Layout:
//! - `logic/` (+ the core's `host.rs`, `writer.rs`): kernel-independent
//!   logic, also the host crate `kfi-verbs-logic`;
//! - `ffi.rs` (and the toolkit's `util::base`): bindings generated from
//!   `include/` and `verbs_sys.h`, RAII wrappers of kfi_verbs_ib.c and
//!   kfi_verbs_cm.c (the only `unsafe` besides the C entry points);
//! - `prov.rs`: `kgetinfo`; `domain.rs`: the domain (the fabric, EQs, CQs
//!   and counters are the toolkit's); `ep.rs`, `pep.rs`: endpoints,
//!   passive endpoints and their connections; `xfer.rs`: an endpoint's
//!   transfers (the toolkit's queues over the queue pair);
//! - `trigger` (`kfi_trigger/`) and `util` (`kfi_util/`): the provider
//!   toolkit shared with the other providers.

use kernel::prelude::*;

mod domain;
mod ep;
mod ffi;
mod mr;
mod pep;
mod prov;
mod rdm;
mod soft;
mod xfer;
// The provider toolkit and the KFI_TRIGGER machinery (shared with the
// other providers). Parts of them have no user here yet (tag matching,
// remote-write CQ room, memory region tables: RMA and tagged messages
// come with later increments).
#[allow(dead_code)]
#[path = "../kfi_trigger/mod.rs"]
mod trigger;
#[allow(dead_code)]
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
    type TxExt = ();
    const TX_EXT_INIT: () = ();

    fn in_progress_work_on(_cpu: u32) -> bool {
        // No progress work item of this provider calls a CQ handler.
        false
    }

    #[inline(always)]
    fn trace(_point: util::Trace) {}

    unsafe fn domain_scope<'a>(dom: *mut ffi::sys::kfid_domain) -> Option<(*mut ffi::sys::kfid_fabric, Option<&'a [u8]>)> {
        // SAFETY: by the trait's contract `dom` is an open domain (of any
        // provider): its header is read only to tell whether it is ours.
        if !unsafe { ffi::sys::kfi_util_is_domain(dom) } {
            return None;
        }
        // SAFETY: ours, open for the call.
        let d = unsafe { domain::Domain::from_fid(&mut (*dom).fid) };
        // SAFETY: a domain's fabric outlives it.
        Some((unsafe { util::fabric::Fabric::header(util::fabric::ProvDomain::fabric(d)) }, Some(d.name())))
    }
}

// Shared with the core, the toolkit and the host crates; some helpers are
// used only by host tests.
#[allow(dead_code, unreachable_pub)]
mod logic {
    #[path = "../../rust/logic/writer.rs"]
    pub mod writer;
    pub use crate::util::logic::plan;
    #[path = "../logic/info.rs"]
    pub mod info;
    // The private data of connections (the endpoints of the next
    // increment use it).
    #[path = "../logic/cmdata.rs"]
    pub mod cmdata;
    #[path = "../logic/status.rs"]
    pub mod status;
    #[path = "../logic/proto.rs"]
    pub mod proto;
    #[path = "../logic/atomic.rs"]
    pub mod atomic;
}

module! {
    type: KfiVerbs,
    name: "kfi_verbs",
    author: "kfabric developers",
    description: "kfabric RDMA provider (ib_verbs, rdma_cm)",
    license: "GPL",
}

struct KfiVerbs {
    // Dropped in this order: deregistration first (it waits until no
    // fabric is open, so no domain holds a device), then the ib_client
    // (its remove callback frees each device's protection domain), then
    // the workqueue and the direct-mapped device.
    _provider: util::base::Registration,
    _client: ffi::IbClient,
    _wq: util::base::WorkQueue,
    _dma: util::base::DmaDevice,
}

impl kernel::Module for KfiVerbs {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let dma = util::base::DmaDevice::new(c"kfi_verbs")?;
        let wq = util::base::WorkQueue::new()?;
        let client = ffi::IbClient::register()?;
        let provider = util::base::Registration::new(prov::provider())?;
        Ok(KfiVerbs { _provider: provider, _client: client, _wq: wq, _dma: dma })
    }
}
