// SPDX-License-Identifier: GPL-2.0
//! The provider toolkit: what every kfabric provider needs besides its
//! transport, as shared source that each provider crate compiles (see
//! Documentation/architecture.md, "Provider toolkit"). A provider mounts it
//! at `crate::util`:
//!
//! ```ignore
//! #[path = "../kfi_util/mod.rs"]
//! mod util;
//! ```
//!
//! and provides `crate::ffi::sys`, its bindgen module, generated from a
//! header that includes `kfi_util/util_sys.h` (a name missing there fails
//! to compile); its C side compiles `kfi_util_glue.c` through a one-line
//! wrapper. Nothing here names a provider type.
//!
//! - `base`: RAII wrappers over kernel objects and small helpers;
//! - `sync`: the `spin_lock_bh` lock and a try-only lock;
//! - `xfer`: transfer records (buffers, transmits, receives, bound
//!   counters, reports);
//! - `queues`: an endpoint's transfer queues (posting, CQ reservations,
//!   cancel, multi-receive, completions), with the provider's part behind
//!   `QueueExt`;
//! - `tagmatch`: unexpected tagged messages, matched to receives and
//!   probes;
//! - `cq`: the completion queue, with its progress hook (`ProgressSource`);
//! - `eq`: the event queue;
//! - `ep`: the endpoint base (bindings, enable, aliases, cancel, options,
//!   the entry of every data transfer) a provider's endpoint embeds;
//! - `sep`: the scalable endpoint base (AV binding, enable, close order,
//!   the transmit and receive contexts, which are the provider's
//!   endpoints in a role);
//! - `rdm`: the connection map of a connectionless endpoint (or a
//!   scalable endpoint): listener, connect on first use, requests,
//!   simultaneous connects, retries, peer loss, contexts, close; the
//!   provider's connection behind `MapConn`, its hooks in `ProvRdm`;
//! - `peers`: an RDM endpoint's lanes (one per peer) under its queue
//!   lock, the post's route to them and the map's transitions;
//! - `pep`: the passive endpoint base (EQ binding, listen and reject
//!   checks, close order) a provider's passive endpoint embeds, and
//!   connection requests (`info->handle` of `KFI_CONNREQ`);
//! - `mr`: the memory region base (argument checks, segment copy, the
//!   `KFI_REG_MR` binding and `KFI_MR_COMPLETE` events, bind, control,
//!   close) a provider's region embeds;
//! - `logic`: kernel-independent rules (also the host crate
//!   `kfi-util-logic`);
//! - `fid`: child counting, and the fabric and domain bases a provider's
//!   fabric and domain embed;
//! - `fabric`: the fabric object (its ops table is `kfi_util_glue.c`'s)
//!   and the provider's `kfabric` entry;
//! - `getinfo`: `kgetinfo` but for the provider's attributes (hint
//!   pre-filters, plans over the interfaces, reuse of an open fabric and
//!   domain), and the info of a `KFI_CONNREQ` event;
//! - `addr`: consumers' socket addresses (`sockaddr_in`/`_in6`).

pub(crate) use crate::ffi::sys;

/// What the toolkit asks of the provider compiled with it, implemented by
/// the provider crate's `crate::Prov`. Static dispatch: the toolkit names
/// `crate::Prov` (and its endpoint type) directly, so nothing here is
/// generic and nothing on the data path is a `dyn` call.
pub(crate) trait Provider {
    /// An endpoint's transfer queues: what a CQ makes progress on
    /// (kfi_tcp: an endpoint's data, through its connection) and what
    /// the toolkit's endpoint entries post to.
    type Ep: cq::ProgressSource + ep::EpXfer;

    /// The endpoint object, which embeds [`ep::EpBase`] first (its queues
    /// are [`Provider::Ep`]).
    type Endpoint: ep::ProvEp;

    /// The passive endpoint object, which embeds [`pep::PepBase`] first.
    type Pep: pep::ProvPep;

    /// The scalable endpoint object, which embeds [`sep::SepBase`] first
    /// ([`sep::NoSep`]: none).
    type Sep: sep::ProvSep;

    /// The memory region object, which embeds [`mr::MrBase`] first.
    type Mr: mr::ProvMr;

    /// The domain object, which embeds [`fid::DomainBase`] first (every
    /// domain of the provider is one).
    type Domain: fabric::ProvDomain;

    /// What a transmit operation ([`xfer::TxOp`]) carries for the
    /// provider alone (kfi_tcp: the ACK it asks for, the read responses
    /// received so far).
    type TxExt: Copy;

    /// The `TxExt` of a free slot.
    const TX_EXT_INIT: Self::TxExt;

    /// Whether the caller is one of the provider's progress work items
    /// (kfi_tcp: a connection's), running on `cpu` and bound to it: a CQ
    /// with `KFI_AFFINITY` on `cpu` may call its handler from there.
    fn in_progress_work_on(cpu: u32) -> bool;

    /// Records a trace point (`KFI_TRACE` builds; nothing otherwise).
    fn trace(point: Trace);

    /// An injected allocation failure (the provider's fault injection
    /// attribute, tests/faults): `ENOMEM` when one is due. The toolkit
    /// asks where the provider asked before the code moved, so the same
    /// paths keep being exercised. By default never.
    fn fail_alloc() -> kernel::error::Result {
        Ok(())
    }

    /// The fire target of one of the provider's endpoints (deferred work
    /// names its endpoint by the consumer's pointer); `None` for NULL or
    /// an object that is not one of its endpoints. By default its queues'
    /// ([`ep::EpXfer::target`]).
    ///
    /// # Safety
    /// `ep` is NULL or a valid `kfid_ep`; the endpoint stays open while the
    /// reference is used.
    unsafe fn fire_target<'a>(hdr: *mut sys::kfid_ep) -> Option<&'a (dyn crate::trigger::target::FireTarget + 'static)> {
        use ep::{EpXfer, ProvEp};
        if hdr.is_null() {
            return None;
        }
        // SAFETY: a valid header (the trait's contract); the endpoint
        // stays open while the reference is used.
        let e = unsafe { ep::endpoint_of(core::ptr::addr_of_mut!((*hdr).fid)) }?;
        Some(EpXfer::target(e.data()))
    }

    /// What a consumer's getinfo hint naming an open domain restricts
    /// (`hints->domain_attr->domain`): `None` if `dom` is not one of the
    /// provider's domains; else the domain's fabric header and its name
    /// filter, compared with each entry's tag (kfi_tcp: the interface
    /// name the domain was opened on; `None`: any).
    ///
    /// # Safety
    /// `dom` is an open domain of any provider (only its header is read
    /// unless it is one of this provider's); it stays open while the name
    /// is used.
    unsafe fn domain_scope<'a>(dom: *mut sys::kfid_domain) -> Option<(*mut sys::kfid_fabric, Option<&'a [u8]>)>;
}

/// Trace points of the toolkit's data path (see [`Provider::trace`]).
#[derive(Clone, Copy)]
pub(crate) enum Trace {
    /// A completion is queued on a CQ.
    CqPush,
    /// A CQ read returned entries.
    CqGot,
    /// A data transfer call starts (`kfi_util_ep_xfer`).
    Post,
    /// It returns.
    PostDone,
}

pub(crate) mod addr;
pub(crate) mod av;
pub(crate) mod base;
pub(crate) mod cq;
pub(crate) mod ep;
pub(crate) mod eq;
pub(crate) mod fabric;
pub(crate) mod fid;
pub(crate) mod getinfo;
pub(crate) mod mr;
pub(crate) mod pep;
pub(crate) mod peers;
pub(crate) mod queues;
pub(crate) mod rdm;
pub(crate) mod sep;
pub(crate) mod stats;
pub(crate) mod sync;
pub(crate) mod tagmatch;
pub(crate) mod trace;
pub(crate) mod xfer;

// Kernel-independent rules, shared with the host crate kfi-util-logic;
// some helpers are used only by host tests.
#[allow(dead_code, unreachable_pub)]
pub(crate) mod logic {
    pub mod cq;
    pub mod eq;
    pub mod xfer;
    pub mod plan;
    pub mod mr;
    pub mod av;
    pub mod rxm;
    pub mod connmap;
    pub mod nic;
    // The core's numeric host and port parser, which `plan` uses.
    #[path = "../../rust/logic/host.rs"]
    pub mod host;
}
