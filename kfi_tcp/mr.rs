// SPDX-License-Identifier: GPL-2.0
//! Memory regions: kfi_tcp's part of them. The toolkit (`util::mr`) owns
//! the ops tables, the argument checks, the copy of the segments, the
//! `KFI_MR_COMPLETE` events and bind/control/close; what is the sockets
//! transport's is here: the registration's offset range and access
//! (`logic::mr::register`, applied by the toolkit), its key (requested, or chosen by the provider
//! on a `KFI_MR_PROV_KEY` domain) and the domain's key table, where the
//! RMA target path finds the region and checks every remote access with
//! `logic::mr::check` against its offset range and access. A region has up
//! to `logic::mr::SEG_LIMIT` (256) segments.

use crate::domain::Domain;
use crate::ffi::sys;
use crate::logic::mr::{self as rules, MrError, Region};
use crate::util::mr::{MrBase, MrReg, ProvMr};
use core::ptr::NonNull;
use kernel::prelude::*;

/// A memory region: the consumer sees the header in `base`.
#[repr(C)]
pub(crate) struct Mr {
    /// Header and domain; first.
    base: MrBase,
    pub(crate) region: Region,
    pub(crate) segs: KVec<sys::kfi_util_seg>,
}

const _: () = assert!(core::mem::offset_of!(Mr, base) == 0);

/// A region in its domain's table.
///
/// # Invariants
/// Points to a live `Mr` for as long as it is in the table: a region is
/// removed from the table before it is freed.
pub(crate) struct MrPtr(NonNull<Mr>);

impl MrPtr {
    /// The region (for the RMA target path, under the table's mutex).
    pub(crate) fn mr(&self) -> &Mr {
        // SAFETY: live while in the table (type invariant); the caller
        // reached `self` through the table.
        unsafe { self.0.as_ref() }
    }
}

// SAFETY: the region is only reached under its domain's table mutex and is
// freed only after removal from the table.
unsafe impl Send for MrPtr {}

// SAFETY: `#[repr(C)]` with the given `MrBase` first (asserted above),
// allocated with KBox by `register` only; our domains are all `Domain`s.
unsafe impl ProvMr for Mr {
    type Domain = Domain;
    const IOV_LIMIT: usize = rules::SEG_LIMIT;

    /// Lists the region in the domain's key table under its key: the
    /// requested one (-KFI_ENOKEY when in use) or, on a `KFI_MR_PROV_KEY`
    /// domain, one the provider chooses.
    fn register(d: &Domain, base: MrBase, reg: MrReg) -> Result<(KBox<Self>, u64)> {
        let mut m = KBox::new(Mr { base, region: reg.region, segs: reg.segs }, GFP_KERNEL)?;
        let mptr = MrPtr(NonNull::from(&mut *m));
        let mut t = d.mrs.lock();
        let key = if d.prov_key { t.choose_key() } else { reg.requested_key };
        match t.insert(key, mptr) {
            Ok(()) => Ok((m, key)),
            Err(e) if e == EEXIST => Err(Error::from_errno(MrError::KeyInUse.errno())),
            Err(_) => Err(ENOMEM),
        }
    }

    /// Removes the region from the domain's key table.
    fn closing(&self) {
        self.domain().mrs.lock().remove(self.base.key());
    }
}
