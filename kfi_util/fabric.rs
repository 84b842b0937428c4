// SPDX-License-Identifier: GPL-2.0
//! The fabric object, the same for every provider, and the provider's
//! `kfabric` entry that opens it.
//!
//! A `#[repr(C)]` struct whose first field is the kfabric header
//! (`kfid_fabric`, in [`FabricBase`]) handed to the consumer; the C ops
//! tables (kfi_util_glue.c) call back into the `extern "C"` functions here
//! (and, for its domains and passive endpoints, into the provider's
//! `kfi_prov_fabric_domain`/`kfi_prov_fabric_passive_ep`), which recover
//! the object with `container_of`. A fabric holds a reference on the
//! caller's network namespace (the provider's sockets or connection
//! identifiers live there) and counts its open domains, passive endpoints
//! and EQs: closing a fabric with any open fails with -EBUSY, as they
//! point at their fabric.

use super::base::{self, einval};
use super::fid::{ChildCount, DomainBase, FabricBase};
use super::logic::xfer::Kind;
use super::sys;
use core::ffi::{c_int, c_void};
use core::ptr;
use kernel::bindings;
use kernel::prelude::*;

/// A fabric: the consumer sees `fab`.
#[repr(C)]
pub(crate) struct Fabric {
    /// Header and open children (domains, passive endpoints, EQs); first.
    base: FabricBase,
    /// The network namespace, referenced (`get_net`) for the fabric's life.
    net: *mut c_void,
}

const _: () = assert!(core::mem::offset_of!(Fabric, base) == 0);

impl Fabric {
    /// Allocates a fabric in the caller's namespace; returns its header.
    pub(crate) fn open(context: *mut c_void) -> Result<*mut sys::kfid_fabric> {
        let f = KBox::new(
            Fabric {
                base: FabricBase::new(),
                net: ptr::null_mut(),
            },
            GFP_KERNEL,
        )?;
        let f = KBox::into_raw(f);
        // SAFETY: `f` is our fresh allocation; the glue fills the header
        // with this provider's ops tables and takes a namespace reference.
        unsafe {
            (*f).net = sys::kfi_util_get_net();
            sys::kfi_util_fabric_init(&mut (*f).base.fab, context);
            Ok(&mut (*f).base.fab)
        }
    }

    /// Recovers a fabric from its header.
    ///
    /// # Safety
    /// `fab` is the header of a live fabric made by [`Fabric::open`] (our
    /// fabric ops table only ever passes those).
    pub(crate) unsafe fn from_header(fab: *mut sys::kfid_fabric) -> *mut Fabric {
        // SAFETY: the header is the first field of the base, itself the
        // first field of `Fabric`.
        unsafe { kernel::container_of!(fab, Fabric, base) as *mut Fabric }
    }

    /// The header of a fabric (what the consumer holds).
    ///
    /// # Safety
    /// `f` is a live fabric.
    pub(crate) unsafe fn header(f: *mut Fabric) -> *mut sys::kfid_fabric {
        // SAFETY: live by the caller's contract; no reference is formed.
        unsafe { core::ptr::addr_of_mut!((*f).base.fab) }
    }

    /// The fabric's network namespace (referenced for its life).
    ///
    /// # Safety
    /// `f` is a live fabric.
    pub(crate) unsafe fn net(f: *mut Fabric) -> *mut c_void {
        // SAFETY: live by the caller's contract.
        unsafe { (*f).net }
    }

    /// The count of `f`'s open children (domains, passive endpoints,
    /// EQs), which keeps it from closing.
    ///
    /// # Safety
    /// `f` is a live fabric; the count is used while it is.
    pub(crate) unsafe fn children<'a>(f: *mut Fabric) -> &'a ChildCount {
        // SAFETY: live by the caller's contract.
        unsafe { &(*f).base.children }
    }
}

/// `close` of a fabric (reached through the core's guard).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_fabric_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: this close is only installed on fabrics made by
    // `Fabric::open`, whose header starts with this fid.
    let f = unsafe { kernel::container_of!(fid, Fabric, base.fab.fid) as *mut Fabric };
    // SAFETY: `f` is live until freed below.
    if unsafe { (*f).base.children.busy() } {
        return base::neg(bindings::EBUSY);
    }
    // SAFETY: allocated by `open` with KBox; no domain refers to it any
    // more; the consumer gave up its pointer by closing.
    let f = unsafe { KBox::from_raw(f) };
    // SAFETY: the reference taken in `open`.
    unsafe { sys::kfi_util_put_net(f.net) };
    0
}

/// The provider's `kfabric` entry (`kfi_provider::kfabric`): opens a
/// fabric in the caller's network namespace (`attr` must be non-NULL; its
/// fields are not looked at).
///
/// # Safety
/// Called by the core: `fabric` is NULL or writable.
pub(crate) unsafe extern "C" fn kfabric_entry(
    attr: *mut sys::kfi_fabric_attr,
    fabric: *mut *mut sys::kfid_fabric,
    context: *mut c_void,
) -> c_int {
    if attr.is_null() || fabric.is_null() {
        return einval();
    }
    match Fabric::open(context) {
        Ok(f) => {
            // SAFETY: checked non-NULL above.
            unsafe { *fabric = f };
            0
        }
        Err(e) => e.to_errno(),
    }
}

/// The provider structure handed to the core (`kfi_provider_register`):
/// named `name`, at version `version`, the API version of the headers,
/// the toolkit's `kfabric` entry; the provider sets `kgetinfo`.
pub(crate) fn provider(name: &'static core::ffi::CStr, version: u32) -> sys::kfi_provider {
    // SAFETY: all-zero is valid for kfi_provider (pointers, integers,
    // options of functions; comp/ref_cnt are set by the core).
    let mut p: sys::kfi_provider = unsafe { core::mem::zeroed() };
    p.version = version;
    p.kfi_version = (sys::KFI_MAJOR_VERSION << 16) | sys::KFI_MINOR_VERSION;
    p.name = name.as_ptr();
    p.kfabric = Some(kfabric_entry);
    p
}

/// `close` of a domain (the toolkit's domain fid ops): [`close_domain`]
/// of the provider's domain type.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_domain_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: only installed on the provider's domains, all of type
    // `Provider::Domain`, made by `open_domain`.
    unsafe { close_domain::<<crate::Prov as super::Provider>::Domain>(fid) }
}

/// `query_atomic` of a domain (the toolkit's domain ops): the provider's
/// [`ProvDomain::atomic_count`] of a plain atomic into `attr` (`count`,
/// and `size` of one element); one it does not do: -EOPNOTSUPP, or
/// -KFI_ENOSYS from a provider without atomics (`kfi_prov_atomics`).
/// -EINVAL without a domain or `attr`; -KFI_EBADFLAGS for any flag
/// (kfabric defines none).
///
/// # Safety
/// `domain` is NULL or one of the provider's open domains; `attr` NULL or
/// writable.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_domain_query_atomic(
    domain: *mut sys::kfid_domain,
    datatype: u32,
    op: u32,
    attr: *mut sys::kfi_atomic_attr,
    flags: u64,
) -> c_int {
    if domain.is_null() || attr.is_null() {
        return einval();
    }
    if flags != 0 {
        return -(sys::KFI_EBADFLAGS as c_int);
    }
    // SAFETY: only installed on the provider's domains, all of type
    // `Provider::Domain` with their base first, open for the call.
    let d = unsafe { <<crate::Prov as super::Provider>::Domain as ProvDomain>::from_base(DomainBase::from_header(domain)) };
    match d.atomic_count(Kind::Atomic, datatype, op) {
        Some(count) => {
            // SAFETY: checked non-NULL; writable by the caller's contract.
            unsafe {
                (*attr).count = count;
                (*attr).size = sys::kfi_util_atomic_size(datatype as c_int);
            }
            0
        }
        // SAFETY: reads a constant of the provider's glue.
        None if unsafe { sys::kfi_util_atomics() } => base::neg(bindings::EOPNOTSUPP),
        None => -(sys::KFI_ENOSYS as c_int),
    }
}

/// A provider's domain object, as the toolkit opens and closes it.
///
/// # Safety
/// Implementors are `#[repr(C)]` with a [`DomainBase`] as their first
/// field (its header is what the consumer holds), and are only ever
/// allocated by [`open_domain`].
pub(crate) unsafe trait ProvDomain: Sized {
    /// The base (first field).
    #[inline(always)]
    fn base(&self) -> &DomainBase {
        // SAFETY: the base is the first field of a `#[repr(C)]` object
        // (trait contract).
        unsafe { &*(self as *const Self).cast::<DomainBase>() }
    }

    /// The fabric the domain was opened on (outlives it: counted).
    fn fabric(&self) -> *mut Fabric {
        self.base().fabric()
    }

    /// Called by [`close_domain`] once the close is decided, before the
    /// object is freed.
    fn closing(&self) {}

    /// The most elements of `datatype` one atomic of `kind` with `op`
    /// takes on this domain's endpoints, or `None` when it is not done.
    /// The one answer behind `kfi_query_atomic`, the endpoints' valid
    /// queries and the check of a triggered or deferred atomic when it is
    /// queued. By default no atomic is done.
    fn atomic_count(&self, _kind: Kind, _datatype: u32, _op: u32) -> Option<usize> {
        None
    }

    /// Recovers the domain from its base.
    ///
    /// # Safety
    /// `b` is the base of a live `Self`.
    #[inline(always)]
    unsafe fn from_base(b: &DomainBase) -> &Self {
        // SAFETY: the base is the first field (trait contract) of a live
        // `Self` (caller's contract).
        unsafe { &*(b as *const DomainBase).cast::<Self>() }
    }
}

/// Opens a provider's domain on fabric `f`, named `name` (its
/// statistics' directory, `kfabric/<provider>/<name>`): allocates `init` in place
/// (never moved again), counts it on the fabric, lets the provider's
/// `glue` fill its header (ops tables, class, context) and stores the
/// header in `*dom`. 0 or -ENOMEM.
///
/// # Safety
/// `f` is a live fabric of this provider the consumer holds open for the
/// call; `dom` is writable; `glue` fills a domain header.
pub(crate) unsafe fn open_domain<D: ProvDomain>(
    f: *mut Fabric,
    init: impl PinInit<D>,
    name: &[u8],
    glue: unsafe extern "C" fn(*mut sys::kfid_domain, *mut c_void),
    context: *mut c_void,
    dom: *mut *mut sys::kfid_domain,
) -> c_int {
    let b = match KBox::pin_init(init, GFP_KERNEL) {
        Ok(b) => b,
        Err(_) => return base::neg(bindings::ENOMEM),
    };
    // SAFETY: the object is never moved: `close_domain` frees it in place.
    let d = KBox::into_raw(unsafe { Pin::into_inner_unchecked(b) });
    // SAFETY: `D` starts with its `DomainBase` (trait contract).
    let db = d.cast::<DomainBase>();
    // SAFETY: `f` is live (caller's contract); `d` is our fresh object,
    // whose header `glue` fills before the consumer sees it.
    unsafe {
        Fabric::children(f).opened();
        glue(ptr::addr_of_mut!((*db).dom), context);
        // Its statistics' directory, removed by `close_domain` before
        // the object is freed (removal waits for the files' readers).
        let dir = sys::kfi_util_stats_domain(name.as_ptr().cast(), name.len(), db.cast());
        (*db).stats_dir.store(dir, core::sync::atomic::Ordering::Release);
        *dom = ptr::addr_of_mut!((*db).dom);
    }
    0
}

/// Closes a domain opened by [`open_domain`]: -EBUSY while a child
/// (memory region, CQ, counter, endpoint) is open; else
/// [`ProvDomain::closing`], the `KFI_REG_MR` binding is released, the
/// object is dropped and freed, and it is uncounted on its fabric.
///
/// # Safety
/// `fid` is the fid of a live domain of type `D` (the provider's domain
/// ops table only passes those); the consumer gives it up on success.
pub(crate) unsafe fn close_domain<D: ProvDomain>(fid: *mut sys::kfid) -> c_int {
    // SAFETY: caller's contract; the fid is the first field of the header,
    // itself the first field of the base, itself first in `D`.
    let d = unsafe { kernel::container_of!(fid, DomainBase, dom.fid) }.cast_mut().cast::<D>();
    // SAFETY: a live domain (caller's contract).
    if unsafe { (*d.cast::<DomainBase>()).children.busy() } {
        return base::neg(bindings::EBUSY);
    }
    // SAFETY: a live `D` (caller's contract).
    unsafe { (*d).closing() };
    // SAFETY: as above.
    unsafe { (*d.cast::<DomainBase>()).unbind_mr_eq() };
    // SAFETY: as above; the directory was made by `open_domain` (or is
    // NULL); no reader is left in its files once this returns.
    unsafe { sys::kfi_util_stats_remove((*d.cast::<DomainBase>()).stats_dir.swap(ptr::null_mut(), core::sync::atomic::Ordering::AcqRel)) };
    // SAFETY: allocated by `open_domain` with KBox; no child refers to it;
    // the consumer gave up its pointer by closing.
    let d = unsafe { KBox::from_raw(d) };
    let f = d.fabric();
    drop(d);
    // SAFETY: the fabric cannot be freed while this domain was counted.
    unsafe { Fabric::children(f).closed() };
    0
}
