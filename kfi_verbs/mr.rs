// SPDX-License-Identifier: GPL-2.0
//! Memory regions: kfi_verbs' part of them. The toolkit (`util::mr`) owns
//! the ops tables, the argument checks, the copy of the segments, the
//! `KFI_MR_COMPLETE` events and bind/control/close; the rules every
//! provider applies to offsets and access bits are the toolkit's too
//! (`util::logic::mr::register`).
//!
//! A region with remote access (`KFI_REMOTE_READ`, `KFI_REMOTE_WRITE`) is
//! a fast registration on the domain's device ([`RegMr`],
//! kfi_verbs_mr.c), valid when `kfi_mr_reg` returns, its key invalidated
//! when it closes; the key is the provider's (`KFI_MR_PROV_KEY`: the
//! requested key is ignored) and encodes where the device placed the
//! region, so peers address it by offset. A region for local use only
//! needs nothing of the device: local buffers are reached through the
//! protection domain's local key at each operation. Its key is 0 and it
//! cannot be the target of an RMA.

use crate::domain::Domain;
use crate::ffi::RegMr;
use crate::util::logic::mr::{self as rules, REMOTE_READ, REMOTE_WRITE};
use crate::util::mr::{MrBase, MrReg, ProvMr};
use kernel::prelude::*;

/// A memory region: the consumer sees the header in `base`.
#[repr(C)]
pub(crate) struct Mr {
    /// Header and domain; first.
    base: MrBase,
    /// The fast registration of a region peers may access (invalidated
    /// and ended when the region is dropped, at its close).
    _remote: Option<RegMr>,
}

const _: () = assert!(core::mem::offset_of!(Mr, base) == 0);

// SAFETY: `#[repr(C)]` with the given `MrBase` first (asserted above),
// allocated with KBox by `register` only; our domains are all `Domain`s.
unsafe impl ProvMr for Mr {
    type Domain = Domain;
    const IOV_LIMIT: usize = rules::SEG_LIMIT;

    /// Registers a region with remote access on the device: -EINVAL when
    /// it does not fit one fast registration (kfi_verbs_mr.c: more than
    /// 256 pages, or pieces that do not meet on page boundaries).
    fn register(d: &Domain, base: MrBase, reg: MrReg) -> Result<(KBox<Self>, u64)> {
        let r = reg.region;
        let (remote, key) = if r.access & (REMOTE_READ | REMOTE_WRITE) != 0 {
            let (m, key) = RegMr::new(d.dev(), &reg.segs, r.len, r.base, r.access)?;
            (Some(m), key)
        } else {
            (None, 0)
        };
        Ok((KBox::new(Mr { base, _remote: remote }, GFP_KERNEL)?, key))
    }

    /// Nothing before the drop: dropping the region ends its registration.
    fn closing(&self) {}
}
