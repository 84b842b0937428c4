// SPDX-License-Identifier: GPL-2.0
//! The memory region base: what every provider's memory registration
//! (`kfi_mr_reg`, `regv`, `regbv`, `regsgl`, `regattr`) does the same way,
//! whatever its transport. A provider's region embeds [`MrBase`] as its
//! first field and implements [`ProvMr`]. The toolkit then owns:
//!
//! - the domain's MR ops table and the region's fid table
//!   (`kfi_util_domain_init(domain, context, true)` and
//!   `kfi_util_mr_init` in kfi_util_glue.c): every registration call
//!   becomes one `kfi_mr_attr` handed to [`kfi_util_mr_regattr`];
//! - the checks that do not depend on the transport: a NULL domain,
//!   attribute or result pointer, flags, an authorization key (-EINVAL);
//!   no segment or more than [`ProvMr::IOV_LIMIT`] (-EINVAL); a bad
//!   buffer list, a total length beyond 64 bits (-EINVAL); the offset
//!   range and access bits (`logic::mr::register`: -EINVAL);
//! - the copy of the segments (kernel virtual ranges for kvecs, pages for
//!   bio_vecs and scatterlists), so that the caller's descriptor arrays
//!   need not outlive the call (the memory itself must stay valid until
//!   the region is closed);
//! - the domain's `KFI_REG_MR` binding ([`DomainBase::bind_mr_eq`]) and the
//!   `KFI_MR_COMPLETE` event of each registration (below);
//! - `bind` (an endpoint of the region's domain, flags 0), `control`
//!   (`KFI_ENABLE`) and `close` (the provider's [`ProvMr::closing`], then
//!   the region is freed and uncounted on its domain).
//!
//! What the provider decides is in [`ProvMr::register`]: which offsets and
//! access bits a region may have, its key (requested or the provider's),
//! and how the transport reaches the memory (kfi_tcp: a key table its RMA
//! target searches; an RDMA provider: a registered `ib_mr`).
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

use super::base::{self, einval};
use super::eq::Eq;
use super::fabric::ProvDomain;
use super::fid::DomainBase;
use super::logic::mr::{self as rules, Region};
use super::sys;
use super::Provider;
use core::ffi::{c_int, c_void};
use core::ptr::addr_of_mut;
use core::sync::atomic::Ordering;
use kernel::bindings;
use kernel::prelude::*;

/// The provider's region object, as the toolkit's entries see it.
type PMr = <crate::Prov as Provider>::Mr;

/// A registration, checked and copied, as the provider's
/// [`ProvMr::register`] gets it.
pub(crate) struct MrReg {
    /// The segments, in order (1 to [`ProvMr::IOV_LIMIT`]); the region's
    /// to keep.
    pub(crate) segs: KVec<sys::kfi_util_seg>,
    /// `requested_key`.
    pub(crate) requested_key: u64,
    /// The region as the offset and access rules accepted it
    /// (`logic::mr::register`: its first remote address `offset`, its
    /// total length, not 0 and not wrapping the 64-bit offsets, and its
    /// access bits, known and not none).
    pub(crate) region: Region,
}

/// A provider's memory region object.
///
/// # Safety
/// Every value of an implementing type is `#[repr(C)]` with the
/// [`MrBase`] [`ProvMr::register`] was given as its first field, allocated
/// with `KBox` by `register` and published by the toolkit only, never
/// moved. Every domain of the provider whose header gets the toolkit's MR
/// ops (`kfi_util_domain_init(.., true)`) is a [`ProvMr::Domain`]. (A
/// type with no values, a provider's placeholder before it registers
/// memory, meets this trivially.)
pub(crate) unsafe trait ProvMr: Sized {
    /// The provider's domain object.
    type Domain: ProvDomain;

    /// Most segments (kvecs, bio_vecs, scatterlist entries) of one region:
    /// the domain's `mr_iov_limit`.
    const IOV_LIMIT: usize;

    /// Registers `reg` on `domain` (process context, may sleep, no lock of
    /// the toolkit held; the offset range and access bits passed the
    /// toolkit's rules, `reg.region`): checks what is the transport's
    /// (key, layout), allocates the region with `base` as its first field, makes it
    /// reachable to the transport and returns it with its key. Its header
    /// is filled and published after this returns; nothing can fail then.
    /// On error nothing may remain registered.
    fn register(domain: &Self::Domain, base: MrBase, reg: MrReg) -> Result<(KBox<Self>, u64)>;

    /// `kfi_close` (process context, no lock held): the transport stops
    /// reaching the region. It is freed, and uncounted on its domain,
    /// after this returns.
    fn closing(&self);

    /// The base (first field).
    #[inline(always)]
    fn base(&self) -> &MrBase {
        // SAFETY: the base is the first field of a `#[repr(C)]` object
        // (trait contract).
        unsafe { &*(self as *const Self).cast::<MrBase>() }
    }

    /// The domain the region was registered on (open while it is).
    fn domain(&self) -> &Self::Domain {
        // SAFETY: the region's domain is one of the provider's
        // `Self::Domain`s (trait contract) and outlives its counted
        // regions (INVARIANT of `MrBase`).
        unsafe { <Self::Domain as ProvDomain>::from_base(&*self.base().domain) }
    }
}

/// The toolkit's part of a provider's memory region: first field of it.
///
/// # Invariants
/// `domain` counts the region as a child from its publication to
/// `kfi_util_mr_close` (so it outlives the region).
#[repr(C)]
pub(crate) struct MrBase {
    /// The header the consumer holds; first.
    mr: sys::kfid_mr,
    domain: *const DomainBase,
    /// Bytes registered (counted in the domain's statistics).
    len: u64,
}

impl MrBase {
    /// The region's key (written when the region is published; what
    /// [`ProvMr::register`] returned).
    pub(crate) fn key(&self) -> u64 {
        self.mr.key
    }

}

/// Recovers a region from its fid.
///
/// # Safety
/// `fid` is the fid of a live region of this provider.
unsafe fn region_of<'a>(fid: *mut sys::kfid) -> &'a PMr {
    // SAFETY: the fid is the first field of the header, itself the first
    // field of the base, itself first in `PMr` (trait contract); live by
    // the caller's contract.
    unsafe { &*kernel::container_of!(fid, MrBase, mr.fid).cast::<PMr>() }
}

impl DomainBase {
    /// The EQ registrations report to (`KFI_REG_MR`), if one is bound.
    pub(crate) fn mr_eq(&self) -> Option<&Eq> {
        let p = self.mr_eq.load(Ordering::Acquire);
        // SAFETY: NULL or an EQ bound to this domain, which stays open
        // while the domain is (the binding is counted; `Eq` close refuses
        // with -EBUSY until the domain's close uncounts it).
        unsafe { p.as_ref() }
    }

    /// Binds an EQ of this provider with `KFI_REG_MR` (memory
    /// registrations then report `KFI_MR_COMPLETE` on it), once: the
    /// `kfi_domain_bind` of a provider that registers memory. Any other
    /// flags (also 0: a default EQ for the domain's endpoints is not
    /// implemented), another object, or a second binding: -EINVAL. The
    /// binding lasts until the domain closes.
    ///
    /// # Safety
    /// `bfid` is NULL or a valid fid.
    pub(crate) unsafe fn bind_mr_eq(&self, bfid: *mut sys::kfid, flags: u64) -> c_int {
        // SAFETY: NULL or valid (caller's contract).
        if flags != sys::KFI_REG_MR as u64 || !unsafe { Eq::is_eq(bfid) } {
            return einval();
        }
        // SAFETY: an EQ of this provider (checked above), open.
        let eq = unsafe { Eq::from_fid(bfid) };
        // Counted before it is published: a registration that sees it may
        // post at once.
        eq.bind();
        let p = eq as *const Eq as *mut Eq;
        if self.mr_eq.compare_exchange(core::ptr::null_mut(), p, Ordering::AcqRel, Ordering::Acquire).is_err() {
            eq.unbind();
            return einval();
        }
        0
    }

    /// Releases the `KFI_REG_MR` binding (the domain's close).
    pub(crate) fn unbind_mr_eq(&self) {
        if let Some(eq) = self.mr_eq() {
            eq.unbind();
        }
    }
}

/// `bind` of a domain (the toolkit's domain fid ops): an EQ of this
/// provider with `KFI_REG_MR`, once ([`DomainBase::bind_mr_eq`]); anything
/// else -EINVAL.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_domain_bind(fid: *mut sys::kfid, bfid: *mut sys::kfid, flags: u64) -> c_int {
    // SAFETY: only installed on our domains.
    let d = unsafe { DomainBase::from_fid(fid) };
    // SAFETY: NULL or a valid fid by the API contract.
    unsafe { d.bind_mr_eq(bfid, flags) }
}

/// `regattr` of a domain's MR ops (and, through the C wrappers, `reg`,
/// `regv`, `regbv` and `regsgl`).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_mr_regattr(
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
    if a.iov_count == 0 || a.iov_count > PMr::IOV_LIMIT {
        return einval();
    }
    // SAFETY: our MR ops table is only installed on our domains.
    let db = unsafe { DomainBase::from_fid(fid) };
    // The slot of the completion entry, when registrations report to an
    // EQ: taken first, given back (dropped) on any failure below.
    let slot = match db.mr_eq().map(|eq| eq.reserve()).transpose() {
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
    let ret = unsafe { sys::kfi_util_mr_segs(a, segs.as_mut_ptr()) };
    if ret != 0 {
        return ret;
    }
    let Some(len) = segs.iter().try_fold(0u64, |t, s| t.checked_add(s.len as u64)) else {
        return einval();
    };
    let region = match rules::register(a.offset, len, a.access) {
        Ok(r) => r,
        Err(e) => return e.errno(),
    };
    let reg = MrReg { segs, requested_key: a.requested_key, region };
    // SAFETY: the MR ops are installed only on domains of type
    // `PMr::Domain` (trait contract), live for the call.
    let d = unsafe { <<PMr as ProvMr>::Domain as ProvDomain>::from_base(db) };
    let b = MrBase {
        // SAFETY: all-zero is a valid header; filled in below.
        mr: unsafe { core::mem::zeroed() },
        domain: db,
        len,
    };
    let (m, key) = match PMr::register(d, b, reg) {
        Ok(r) => r,
        Err(e) => return e.to_errno(),
    };
    let m = KBox::into_raw(m);
    // SAFETY: `PMr` starts with the base it was given (trait contract).
    let mb = m.cast::<MrBase>();
    db.children.opened();
    db.mr_count.fetch_add(1, Ordering::Relaxed);
    db.mr_bytes.fetch_add(len, Ordering::Relaxed);
    // SAFETY: `m` is live and now ours to publish; the glue fills the
    // header (fclass, context, ops).
    let mr_fid = unsafe {
        (*mb).mr.key = key;
        (*mb).mr.iova = a.offset;
        (*mb).mr.mem_desc = m.cast();
        sys::kfi_util_mr_init(addr_of_mut!((*mb).mr), a.context);
        *mr = addr_of_mut!((*mb).mr);
        addr_of_mut!((*mb).mr.fid)
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
/// serve every endpoint of their domain (the domain's `mr_mode` has no
/// `KFI_MR_ENDPOINT`), so there is nothing to attach. Anything but one of
/// this provider's endpoints of that domain: -EINVAL; other flags (binding
/// a counter to the region's remote accesses is not offered):
/// -KFI_EBADFLAGS.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_mr_bind(fid: *mut sys::kfid, bfid: *mut sys::kfid, flags: u64) -> c_int {
    use super::ep::ProvEp;
    // SAFETY: only installed on our regions.
    let m = unsafe { region_of(fid) };
    if flags != 0 {
        return -(sys::KFI_EBADFLAGS as c_int);
    }
    // SAFETY: NULL or a valid fid by the API contract.
    match unsafe { super::ep::endpoint_of(bfid) } {
        Some(e) if e.base().domain() == m.base().domain => 0,
        _ => einval(),
    }
}

/// `control` of a memory region: `KFI_ENABLE` (`kfi_mr_enable`) succeeds
/// (a region is enabled when registered); other commands -ENOSYS.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_mr_control(_fid: *mut sys::kfid, command: c_int, _arg: *mut c_void) -> c_int {
    if command as u32 == sys::KFI_ENABLE {
        0
    } else {
        base::neg(bindings::ENOSYS)
    }
}

/// `close` of a memory region: the provider's [`ProvMr::closing`], then
/// the region is freed and uncounted on its domain.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_mr_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: only installed on our regions.
    let m = unsafe { region_of(fid) };
    m.closing();
    let (d, len) = (m.base().domain, m.base().len);
    // SAFETY: the domain outlives its counted regions (INVARIANT).
    unsafe {
        (*d).mr_count.fetch_sub(1, Ordering::Relaxed);
        (*d).mr_bytes.fetch_sub(len, Ordering::Relaxed);
    }
    // SAFETY: allocated by the provider with KBox and published by
    // `kfi_util_mr_regattr` (trait contract); unreachable to the
    // transport now; the consumer gave up its pointer by closing.
    drop(unsafe { KBox::from_raw(m as *const PMr as *mut PMr) });
    // SAFETY: the domain outlives its counted regions (INVARIANT).
    unsafe { (*d).children.closed() };
    0
}
