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
use super::fid::{ChildCount, FabricBase};
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
