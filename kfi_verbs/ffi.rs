// SPDX-License-Identifier: GPL-2.0
//! FFI layer of kfi_verbs.ko: its bindings, and RAII wrappers of its own C
//! (the RDMA devices of kfi_verbs_ib.c). The wrappers every provider needs
//! are the toolkit's (`crate::util::base`). Every `unsafe` block states the
//! contract it relies on.

use core::ffi::c_void;
use core::ptr::NonNull;
use kernel::prelude::*;

/// Bindings generated from `include/`, `verbs_sys.h` and the toolkit's
/// headers at build time.
#[allow(
    non_camel_case_types,
    non_upper_case_globals,
    non_snake_case,
    dead_code,
    improper_ctypes,
    unreachable_pub,
    missing_docs,
    clippy::all
)]
pub(crate) mod sys {
    include!("verbs_sys_generated.rs");
}

pub(crate) use sys::kfi_info;

/// The provider's ib_client: registered for the module's life. While it
/// is, `kfi_verbs_ib.c` tracks every RDMA device (hot add and removal).
pub(crate) struct IbClient(());

impl IbClient {
    /// Registers the client (the add callback runs for every existing
    /// device before this returns).
    pub(crate) fn register() -> Result<Self> {
        // SAFETY: module init, process context.
        let ret = unsafe { sys::kfi_verbs_client_register() };
        if ret != 0 {
            return Err(Error::from_errno(ret));
        }
        Ok(IbClient(()))
    }
}

impl Drop for IbClient {
    fn drop(&mut self) {
        // SAFETY: registered by `register`; module exit, process context.
        // The remove callback runs for every device before this returns.
        unsafe { sys::kfi_verbs_client_unregister() }
    }
}

/// A reference on one RDMA device (`struct kfi_verbs_dev`).
///
/// # Invariants
/// `0` is a device referenced by this value (dropped with
/// `kfi_verbs_dev_put`).
pub(crate) struct DevRef(NonNull<sys::kfi_verbs_dev>);

// SAFETY: the device structure is reference counted and its fields are
// protected by its own locks (kfi_verbs_ib.c); any thread may use and drop
// a reference.
unsafe impl Send for DevRef {}
// SAFETY: as above; `&DevRef` gives no access to the device.
unsafe impl Sync for DevRef {}

impl DevRef {
    /// The live device named `name` one of whose ports has its network
    /// device in namespace `net`. Process context.
    pub(crate) fn get(name: &[u8], net: *mut c_void) -> Option<Self> {
        // SAFETY: `name` is valid for `len` bytes; `net` is a namespace
        // the caller holds a reference on.
        let d = unsafe { sys::kfi_verbs_dev_get(name.as_ptr().cast(), name.len(), net) };
        NonNull::new(d).map(DevRef)
    }
}

impl Drop for DevRef {
    fn drop(&mut self) {
        // SAFETY: the reference this value owns (invariant).
        unsafe { sys::kfi_verbs_dev_put(self.0.as_ptr()) }
    }
}

/// Up to `KFI_VERBS_MAX_PORTS` active ports of the live RDMA devices whose
/// network device is in the caller's namespace.
pub(crate) struct Ports {
    list: KBox<[sys::kfi_verbs_port; sys::KFI_VERBS_MAX_PORTS as usize]>,
    n: usize,
}

impl Ports {
    /// Takes the snapshot. Process context.
    pub(crate) fn read() -> Result<Self> {
        // SAFETY: all-zero is a valid `kfi_verbs_port` array (bytes,
        // integers, bools).
        let mut list: KBox<[sys::kfi_verbs_port; sys::KFI_VERBS_MAX_PORTS as usize]> =
            KBox::new(unsafe { core::mem::zeroed() }, GFP_KERNEL)?;
        let max = sys::KFI_VERBS_MAX_PORTS as core::ffi::c_int;
        // SAFETY: `list` has room for `max` entries; process context.
        let n = unsafe { sys::kfi_verbs_ports(list.as_mut_ptr(), max) };
        Ok(Ports { list, n: n.clamp(0, max) as usize })
    }

    /// The ports listed.
    pub(crate) fn get(&self) -> &[sys::kfi_verbs_port] {
        &self.list[..self.n]
    }
}

/// The name of a port's device, as bytes.
pub(crate) fn dev_name(p: &sys::kfi_verbs_port) -> &[u8] {
    crate::util::base::name_bytes(&p.dev_name)
}
