// SPDX-License-Identifier: GPL-2.0
//! Scalable endpoints over kfi_tcp: the toolkit's object
//! (`kfi_util/sep.rs`) with one connection map ([`Rdm`]) that its
//! contexts share: the listener peers connect to (`kfi_getname` names it)
//! and the work item that opens the transmit contexts' connections.
//!
//! Each context is an RDM endpoint's queues of its own (`ep.rs`, role
//! `Tx`/`Rx`): a transmit context keeps a lane per peer and receive
//! context it sends to (`kfi_rx_addr`), whose connection carries its
//! transmits only (connect data with kfabric's context extension, one
//! way: `logic::rxm::CtxExt`); a receive context takes the connections
//! peers open to it, which carry their messages, RMA and rendezvous (its
//! ACKs and read requests go back on them). So a context never takes
//! another's lock, and a CPU driving one context touches only its queues
//! and connections (see `Documentation/rdm.md`, "Scalable endpoints").

use crate::domain::Domain;
use crate::ep::Ep;
use crate::ffi::sys;
use crate::rdm::Rdm;
use crate::util::addr::SockAddr;
use crate::util::av::Av;
use crate::util::ep::EpAttrs;
use crate::util::fabric::{Fabric, ProvDomain};
use crate::util::sep::{ProvSep, SepBase};
use kernel::bindings;
use kernel::new_mutex;
use kernel::prelude::*;
use kernel::sync::{Arc, Mutex};

/// A scalable endpoint: the consumer sees the header in `base`.
#[pin_data]
#[repr(C)]
pub(crate) struct Sep {
    /// Header, AV, contexts open; first.
    #[pin]
    base: SepBase,
    domain: *const Domain,
    /// The map, from enable to close.
    #[pin]
    rdm: Mutex<Option<Arc<Rdm>>>,
}

const _: () = assert!(core::mem::offset_of!(Sep, base) == 0);

impl Sep {
    /// The map, once enabled (what a context's enable joins).
    pub(crate) fn rdm(&self) -> Option<Arc<Rdm>> {
        self.rdm.lock().clone()
    }
}

// SAFETY: `#[repr(C)]` with its `SepBase` first (asserted above);
// allocated with KBox by `open`, published by the toolkit only.
unsafe impl ProvSep for Sep {
    fn open(domain: *mut sys::kfid_domain, base: impl PinInit<SepBase>) -> Result<Pin<KBox<Sep>>> {
        // SAFETY: the toolkit's entry passes our domain (open for the
        // call).
        let d: *const Domain = unsafe { Domain::from_fid(&mut (*domain).fid) };
        KBox::pin_init(
            pin_init!(Sep {
                base <- base,
                domain: d,
                rdm <- new_mutex!(None, "kfi_tcp_sep"),
            }),
            GFP_KERNEL,
        )
    }

    /// Listens on the source address (any address and an ephemeral port
    /// when none was given).
    fn enable(&self, av: &Av) -> Result {
        // SAFETY: the domain outlives its counted children; so does its
        // fabric.
        let net = unsafe { Fabric::net((*self.domain).fabric()) };
        let any = SockAddr { family: bindings::AF_INET as u16, port: 0, scope_id: 0, addr: [0; 16] };
        let src = self.base.src().unwrap_or(any);
        let r = Rdm::start(None, self.base.counts(), av, net, src, self.base.rx_size())?;
        *self.rdm.lock() = Some(r);
        Ok(())
    }

    fn context(&self, attrs: EpAttrs) -> Result<Pin<KBox<Ep>>> {
        Ep::new_ctx(self.domain, self.base.domain(), attrs)
    }

    /// Every context is closed (they left the map): stops the listener
    /// and what is left of the map's connections.
    fn closing(&self) {
        if let Some(r) = self.rdm.lock().take() {
            r.shut();
        }
    }

    fn name(&self) -> Option<SockAddr> {
        self.rdm.lock().as_ref().map(|r| r.name())
    }
}
