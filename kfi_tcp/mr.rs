// SPDX-License-Identifier: GPL-2.0
//! Memory regions (`kfi_mr_reg`, `regv`, `regbv`, `regsgl`, `regattr`).
//!
//! Every registration call reaches `kfi_tcp_mr_regattr` (the C wrappers
//! build a `kfi_mr_attr`). A region keeps a copy of its segments (kernel
//! virtual ranges for kvecs, pages for bio_vecs and scatterlists), so the
//! caller's descriptor arrays need not outlive the call; the memory itself
//! must stay valid until the region is closed. Remote accesses are checked
//! with `logic::mr::check` against the region's offset range and access.
//! A region has up to `logic::mr::SEG_LIMIT` (256) segments.
//!
//! With an EQ bound to the domain with `KFI_REG_MR`, registration is
//! asynchronous as fi_mr(3) describes it: a call that returns 0 has also
//! queued a `KFI_MR_COMPLETE` entry (`kfi_eq_entry`: the region's fid and
//! the registration's context) on that EQ, `*mr` written before the entry
//! can be read. Every failure is found during the call, so it is returned
//! by the call and nothing is queued ("an asynchronous event will not be
//! generated unless the registration call returns success"). The entry's
//! slot is reserved before anything is registered: with the EQ full the
//! call fails with -EAGAIN and registers nothing, so an event is never
//! lost.

use crate::util::base::{self, einval};
use crate::domain::Domain;
use crate::ffi::sys;
use crate::logic::mr::{self as rules, MrError, Region};
use core::ffi::c_int;
use core::ptr::NonNull;
use kernel::bindings;
use kernel::prelude::*;

/// A memory region: the consumer sees `mr`.
#[repr(C)]
pub(crate) struct Mr {
    mr: sys::kfid_mr,
    domain: *const Domain,
    pub(crate) region: Region,
    pub(crate) segs: KVec<sys::kfi_util_seg>,
}

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

fn err(e: MrError) -> c_int {
    e.errno()
}

/// `regattr` of a domain's MR ops (and, through the C wrappers, `reg`,
/// `regv`, `regbv` and `regsgl`).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_mr_regattr(
    fid: *mut sys::kfid,
    attr: *const sys::kfi_mr_attr,
    flags: u64,
    mr: *mut *mut sys::kfid_mr,
) -> c_int {
    // SAFETY: NULL or valid by the API contract.
    let Some(a) = (unsafe { attr.as_ref() }) else {
        return einval();
    };
    if fid.is_null() || mr.is_null() || flags != 0 || a.auth_key_size != 0 {
        return einval();
    }
    if let Err(e) = rules::seg_count(a.iov_count) {
        return err(e);
    }
    // The slot of the completion entry, when registrations report to an
    // EQ: taken first, given back (dropped) on any failure below.
    // SAFETY: our MR ops table is only installed on our domains.
    let d = unsafe { Domain::from_fid(fid) };
    let slot = match d.mr_eq().map(|eq| eq.reserve()).transpose() {
        Ok(s) => s,
        Err(_) => return base::neg(bindings::EAGAIN),
    };
    // SAFETY: all-zero is a valid segment (NULL pointers, zero lengths).
    let zero: sys::kfi_util_seg = unsafe { core::mem::zeroed() };
    let Ok(mut segs) = KVec::from_elem(zero, a.iov_count, GFP_KERNEL) else {
        return base::neg(bindings::ENOMEM);
    };
    // SAFETY: `a` describes `iov_count` valid descriptors of its type;
    // `segs` has room for that many.
    let ret = unsafe { sys::kfi_tcp_glue_mr_segs(a, segs.as_mut_ptr()) };
    if ret != 0 {
        return ret;
    }
    let total = segs.iter().try_fold(0u64, |t, s| t.checked_add(s.len as u64));
    let region = match total.ok_or(MrError::BadRange).and_then(|t| rules::register(a.offset, t, a.access)) {
        Ok(r) => r,
        Err(e) => return err(e),
    };
    let m = match KBox::new(
        Mr {
            // SAFETY: all-zero is a valid header; filled in below.
            mr: unsafe { core::mem::zeroed() },
            domain: d,
            region,
            segs,
        },
        GFP_KERNEL,
    ) {
        Ok(m) => KBox::into_raw(m),
        Err(_) => return base::neg(bindings::ENOMEM),
    };
    // SAFETY: `m` is our fresh allocation.
    let mptr = MrPtr(unsafe { NonNull::new_unchecked(m) });
    let key = {
        let mut t = d.mrs.lock();
        let key = if d.prov_key { t.choose_key() } else { a.requested_key };
        let ret = t.insert(key, mptr);
        drop(t);
        if let Err(e) = ret {
            // SAFETY: never published; freed once.
            drop(unsafe { KBox::from_raw(m) });
            return if e == EEXIST { err(MrError::KeyInUse) } else { base::neg(bindings::ENOMEM) };
        }
        key
    };
    d.child_opened();
    // SAFETY: `m` is live and now ours to publish; the glue fills the
    // header (fclass, context, ops).
    let mr_fid = unsafe {
        (*m).mr.key = key;
        (*m).mr.iova = a.offset;
        (*m).mr.mem_desc = m.cast();
        sys::kfi_tcp_glue_mr_init(&mut (*m).mr, a.context);
        *mr = &mut (*m).mr;
        &mut (*m).mr.fid as *mut sys::kfid
    };
    if let Some(slot) = slot {
        // `*mr` is written: the entry may be read now. Nothing of `m` is
        // used after this (the consumer may close it at once).
        let e = sys::kfi_eq_entry { fid: mr_fid, context: a.context, data: 0 };
        slot.post_entry(sys::KFI_MR_COMPLETE, &e);
    }
    0
}

/// `bind` of a memory region (`kfi_mr_bind`, which Lustre's kfilnd called
/// after each registration while it registered memory): to an endpoint of
/// the region's domain, flags 0, it succeeds and changes nothing. Regions
/// of this provider serve every endpoint of their domain (its `mr_mode`
/// has no `KFI_MR_ENDPOINT`), so there is nothing to attach. Anything but
/// one of our endpoints of that domain: -EINVAL; other flags (binding a
/// counter to the region's remote accesses is not offered):
/// -KFI_EBADFLAGS.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_mr_bind(fid: *mut sys::kfid, bfid: *mut sys::kfid, flags: u64) -> c_int {
    // SAFETY: only installed on regions made by `kfi_tcp_mr_regattr`.
    let m = unsafe { &*kernel::container_of!(fid, Mr, mr.fid) };
    if flags != 0 {
        return -(sys::KFI_EBADFLAGS as c_int);
    }
    // SAFETY: NULL or a valid fid by the API contract.
    match unsafe { crate::ep::domain_of(bfid) } {
        Some(d) if d == m.domain => 0,
        _ => einval(),
    }
}

/// `control` of a memory region: `KFI_ENABLE` (`kfi_mr_enable`) succeeds
/// (a region is enabled when registered); other commands -ENOSYS.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_mr_control(_fid: *mut sys::kfid, command: c_int, _arg: *mut core::ffi::c_void) -> c_int {
    if command as u32 == sys::KFI_ENABLE {
        0
    } else {
        base::neg(bindings::ENOSYS)
    }
}

/// `close` of a memory region.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_mr_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: only installed on regions made by `kfi_tcp_mr_regattr`.
    let m = unsafe { kernel::container_of!(fid, Mr, mr.fid) as *mut Mr };
    // SAFETY: a live region keeps its domain open (it is counted).
    let d = unsafe { &*(*m).domain };
    // SAFETY: live until freed below.
    let key = unsafe { (*m).mr.key };
    d.mrs.lock().remove(key);
    d.child_closed();
    // SAFETY: unlisted above (INVARIANT of MrPtr kept), allocated with
    // KBox, the consumer gave up its pointer by closing.
    drop(unsafe { KBox::from_raw(m) });
    0
}
