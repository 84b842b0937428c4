// SPDX-License-Identifier: GPL-2.0
//! Fabric and domain objects.
//!
//! Each object is a `#[repr(C)]` struct whose first field is the kfabric
//! header (`kfid_fabric`, `kfid_domain`) handed to the consumer; the C ops
//! tables (kfi_tcp_glue.c) call back into the `extern "C"` functions here,
//! which recover the object with `container_of`. A fabric holds a reference
//! on the caller's network namespace (sockets of its endpoints will live
//! there) and counts its open domains and EQs: closing a fabric with any
//! open fails with -EBUSY, as they point at their fabric.

use crate::ffi::{self, einval, kfi_info, sys};
use core::ffi::{c_int, c_void};
use core::ptr;
use core::sync::atomic::{AtomicUsize, Ordering};
use kernel::bindings;
use kernel::prelude::*;

/// A fabric: the consumer sees `fab`.
#[repr(C)]
pub(crate) struct Fabric {
    fab: sys::kfid_fabric,
    /// The network namespace, referenced (`get_net`) for the fabric's life.
    net: *mut c_void,
    /// Open domains and event queues of this fabric.
    children: AtomicUsize,
}

impl Fabric {
    /// Allocates a fabric in the caller's namespace; returns its header.
    pub(crate) fn open(context: *mut c_void) -> Result<*mut sys::kfid_fabric> {
        let f = KBox::new(
            Fabric {
                // SAFETY: all-zero is a valid header; filled in below.
                fab: unsafe { core::mem::zeroed() },
                net: ptr::null_mut(),
                children: AtomicUsize::new(0),
            },
            GFP_KERNEL,
        )?;
        let f = KBox::into_raw(f);
        // SAFETY: `f` is our fresh allocation; the glue fills the header
        // with this provider's ops tables and takes a namespace reference.
        unsafe {
            (*f).net = sys::kfi_tcp_glue_get_net();
            sys::kfi_tcp_glue_fabric_init(&mut (*f).fab, context);
            Ok(&mut (*f).fab)
        }
    }

    /// Recovers a fabric from its header.
    ///
    /// # Safety
    /// `fab` is the header of a live fabric made by [`Fabric::open`] (our
    /// fabric ops table only ever passes those).
    pub(crate) unsafe fn from_header(fab: *mut sys::kfid_fabric) -> *mut Fabric {
        // SAFETY: the header is the first field of `Fabric`.
        unsafe { kernel::container_of!(fab, Fabric, fab) as *mut Fabric }
    }

    /// Counts a new domain or EQ of `f`.
    ///
    /// # Safety
    /// `f` is a live fabric.
    pub(crate) unsafe fn child_opened(f: *mut Fabric) {
        // SAFETY: live by the caller's contract.
        unsafe { (*f).children.fetch_add(1, Ordering::AcqRel) };
    }

    /// Uncounts a closed domain or EQ of `f`.
    ///
    /// # Safety
    /// `f` is a live fabric with a child counted by `child_opened`.
    pub(crate) unsafe fn child_closed(f: *mut Fabric) {
        // SAFETY: live while the child was counted.
        unsafe { (*f).children.fetch_sub(1, Ordering::AcqRel) };
    }
}

/// `close` of a fabric (reached through the core's guard).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_fabric_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: this close is only installed on fabrics made by
    // `Fabric::open`, whose header starts with this fid.
    let f = unsafe { kernel::container_of!(fid, Fabric, fab.fid) as *mut Fabric };
    // SAFETY: `f` is live until freed below.
    if unsafe { (*f).children.load(Ordering::Acquire) } != 0 {
        return ffi::neg(bindings::EBUSY);
    }
    // SAFETY: allocated by `open` with KBox; no domain refers to it any
    // more; the consumer gave up its pointer by closing.
    let f = unsafe { KBox::from_raw(f) };
    // SAFETY: the reference taken in `open`.
    unsafe { sys::kfi_tcp_glue_put_net(f.net) };
    0
}

/// A domain: one interface of a fabric.
#[repr(C)]
pub(crate) struct Domain {
    dom: sys::kfid_domain,
    fabric: *mut Fabric,
}

/// `domain` of a fabric: opens a domain on the interface named by
/// `info->domain_attr->name` (any when not given): -ENODEV if no such
/// interface exists in the fabric's namespace.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_fabric_domain(
    fabric: *mut sys::kfid_fabric,
    info: *mut kfi_info,
    dom: *mut *mut sys::kfid_domain,
    context: *mut c_void,
) -> c_int {
    if fabric.is_null() || dom.is_null() {
        return einval();
    }
    // SAFETY: the consumer passes NULL or a valid info; its domain name is
    // NULL or a valid string.
    let name = unsafe {
        info.as_ref()
            .and_then(|i| i.domain_attr.as_ref())
            .and_then(|d| ffi::c_bytes(d.name))
    };
    if let Some(name) = name {
        let Ok(ifaces) = ffi::Ifaces::read() else {
            return ffi::neg(bindings::ENOMEM);
        };
        if !ifaces.views().any(|i| i.name == name) {
            return ffi::neg(bindings::ENODEV);
        }
    }
    // SAFETY: only our fabric ops table reaches this function.
    let f = unsafe { Fabric::from_header(fabric) };
    let d = match KBox::new(
        Domain {
            // SAFETY: all-zero is a valid header; filled in below.
            dom: unsafe { core::mem::zeroed() },
            fabric: f,
        },
        GFP_KERNEL,
    ) {
        Ok(d) => KBox::into_raw(d),
        Err(_) => return ffi::neg(bindings::ENOMEM),
    };
    // SAFETY: `f` is live (the consumer holds it open while calling us);
    // `d` is our fresh allocation.
    unsafe {
        Fabric::child_opened(f);
        sys::kfi_tcp_glue_domain_init(&mut (*d).dom, context);
        *dom = &mut (*d).dom;
    }
    0
}

/// `close` of a domain.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tcp_domain_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: only installed on domains made by `kfi_tcp_fabric_domain`,
    // whose header starts with this fid.
    let d = unsafe { KBox::from_raw(kernel::container_of!(fid, Domain, dom.fid) as *mut Domain) };
    // SAFETY: the fabric cannot be freed while this domain is counted.
    unsafe { Fabric::child_closed(d.fabric) };
    0
}
