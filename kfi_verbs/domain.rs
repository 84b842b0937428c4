// SPDX-License-Identifier: GPL-2.0
//! The domain object: one RDMA device, named by `info->domain_attr->name`
//! (the device name `kfi_getinfo` gives), in the fabric's network
//! namespace.
//!
//! A domain holds a reference on the device. When the device goes away
//! (hot removal) the domain stays valid until the consumer closes it;
//! nothing new can be opened on a removed device. Like every domain, it
//! counts its open children (CQs, counters, endpoints): closing it with
//! any open fails with -EBUSY.

use crate::ffi::{self, kfi_info, sys, DevRef, Ports};
use crate::logic::atomic;
use crate::util::logic::xfer::Kind;
use crate::util::base::{self, einval};
use crate::util::fabric::{open_domain, Fabric, ProvDomain};
use crate::util::fid::DomainBase;
use crate::util::getinfo::info_domain_name;
use core::ffi::{c_int, c_void};
use kernel::bindings;
use kernel::prelude::*;

/// Longest device name, with its NUL.
const NAME_MAX: usize = sys::KFI_VERBS_NAME_MAX as usize;

/// A domain: the consumer sees the header in `base`.
#[pin_data]
#[repr(C)]
pub(crate) struct Domain {
    /// Header, open children (CQs, counters) and the counter list; first.
    #[pin]
    base: DomainBase,
    /// The device, referenced for the domain's life (its ib resources
    /// are the device's to free at removal; the reference keeps only the
    /// provider's record of it). Endpoints create their queue pairs on it.
    dev: DevRef,
    /// The device name the domain was opened with.
    name: ([u8; NAME_MAX], usize),
    /// The device does 64-bit atomics (read at open).
    atomics: bool,
}

const _: () = assert!(core::mem::offset_of!(Domain, base) == 0);

impl Domain {
    /// Recovers a domain from its fid.
    ///
    /// # Safety
    /// `fid` is the fid of a live domain made by `kfi_prov_fabric_domain`
    /// (our domain ops table only passes those).
    pub(crate) unsafe fn from_fid<'a>(fid: *mut sys::kfid) -> &'a Domain {
        // SAFETY: the fid is the first field of the header, itself first.
        unsafe { &*kernel::container_of!(fid, Domain, base.dom.fid) }
    }

    /// The device name the domain was opened with.
    pub(crate) fn name(&self) -> &[u8] {
        &self.name.0[..self.name.1]
    }

    /// The device.
    pub(crate) fn dev(&self) -> &DevRef {
        &self.dev
    }

    /// Whether the device does 64-bit atomics.
    pub(crate) fn atomics(&self) -> bool {
        self.atomics
    }
}

/// `domain` of a fabric: opens a domain on the RDMA device named by
/// `info->domain_attr->name`. -EINVAL without a name; -ENODEV if no live
/// device of that name has a port in the fabric's namespace.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_prov_fabric_domain(
    fabric: *mut sys::kfid_fabric,
    info: *mut kfi_info,
    dom: *mut *mut sys::kfid_domain,
    context: *mut c_void,
) -> c_int {
    if fabric.is_null() || dom.is_null() {
        return einval();
    }
    // SAFETY: the consumer passes NULL or a valid info whose domain name is
    // NULL or a valid string.
    let Some(name) = (unsafe { info_domain_name(info) }) else {
        return einval();
    };
    if name.len() >= NAME_MAX {
        return base::neg(bindings::ENODEV);
    }
    // SAFETY: only our fabric ops table reaches this function.
    let f = unsafe { Fabric::from_header(fabric) };
    // SAFETY: `f` is live: the consumer holds it open while calling us.
    let Some(dev) = DevRef::get(name, unsafe { Fabric::net(f) }) else {
        return base::neg(bindings::ENODEV);
    };
    // Endpoints named by NIC address: the net of the address of the
    // device's network devices that the info names.
    let (Ok(ports), Ok(ifaces)) = (Ports::read(), base::Ifaces::read()) else {
        return base::neg(bindings::ENOMEM);
    };
    let ours = |index: u32| ports.get().iter().any(|p| ffi::dev_name(p) == name && i64::from(p.ifindex) == i64::from(index));
    // SAFETY: the consumer's info, valid for the call (its addresses as
    // its lengths say).
    let nic = match unsafe { crate::util::addr::info_nic_net(info, ifaces.views().filter(|v| ours(v.index))) } {
        Ok(n) => n,
        Err(e) => return e.to_errno(),
    };
    let mut n = ([0u8; NAME_MAX], name.len());
    n.0[..name.len()].copy_from_slice(name);
    let atomics = dev.atomics();
    let init = pin_init!(Domain {
        base <- DomainBase::new(f, nic),
        dev,
        name: n,
        atomics,
    });
    // SAFETY: `f` is live (as above); `dom` was checked; the glue fills a
    // domain header.
    unsafe { open_domain(f, init, name, sys::kfi_verbs_glue_domain_init, context, dom) }
}

/// The cxi extension's `get_device` (kfi_util_glue.c): the device the
/// domain's consumers map memory for.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_prov_domain_device(domain: *mut sys::kfid_domain) -> *mut sys::device {
    // SAFETY: only the toolkit's domain ops table calls this, with one of
    // our live domains (the consumer holds it open for the call).
    unsafe { Domain::from_fid(&mut (*domain).fid) }.dev().dma()
}

// SAFETY: `#[repr(C)]` with its `DomainBase` first (asserted above);
// allocated only by `open_domain`.
unsafe impl ProvDomain for Domain {
    /// One element of what the device does in hardware
    /// (`logic/atomic.rs`); nothing on a device without atomics.
    fn atomic_count(&self, kind: Kind, datatype: u32, op: u32) -> Option<usize> {
        let call = crate::xfer::atomic_call(kind)?;
        atomic::ib_atomic(call, datatype, op).filter(|_| self.atomics).map(|_| 1)
    }
}
