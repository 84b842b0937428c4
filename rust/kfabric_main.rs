// SPDX-License-Identifier: GPL-2.0
//! kfabric.ko: the core of the kernel fabric interface.
//!
//! It holds the provider registry and answers `kfi_getinfo`/`kfi_fabric`; it
//! is not on the data path: data calls are `static inline` wrappers in
//! `include/` jumping straight into the provider's ops tables.
//!
//! Layout of the crate:
//! - `logic/`: kernel-independent logic (hint matching, ranking, `kfi_tostr`,
//!   `kfi_strerror`), also built and tested on the host;
//! - `ffi.rs`: bindings generated from `include/` and RAII wrappers over the
//!   C structures (the only `unsafe` besides the entry points);
//! - `exports.rs`: the exported `kfi_*` functions;
//! - `registry.rs`, `getinfo.rs`: the registry and the getinfo/fabric logic;
//! - `abi_check.rs`: compile-time checks of layouts and values against the
//!   headers.

use kernel::prelude::*;

mod abi_check;
mod exports;
mod ffi;
mod getinfo;
// The shared logic is `pub` for its host crate; a few helpers are used only
// by the host tests.
#[allow(dead_code, unreachable_pub)]
mod logic;
mod registry;

module! {
    type: KFabric,
    name: "kfabric",
    author: "kfabric developers",
    description: "kfabric core: provider registry, kfi_getinfo, kfi_fabric",
    license: "GPL",
}

struct KFabric {
    registry: Pin<KBox<kernel::sync::Mutex<registry::Registry>>>,
}

impl kernel::Module for KFabric {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let registry = KBox::pin_init(registry::new(), GFP_KERNEL)?;
        registry::REGISTRY.publish(registry.as_ref());
        // debugfs failures are not fatal (by debugfs design).
        ffi::debugfs_init();
        pr_info!("API {}.{} ready\n", logic::abi::KFI_MAJOR_VERSION, logic::abi::KFI_MINOR_VERSION);
        Ok(KFabric { registry })
    }
}

impl Drop for KFabric {
    fn drop(&mut self) {
        ffi::debugfs_exit();
        // Every provider module links against us and deregisters in its own
        // exit, which runs before ours; anything left is a provider bug.
        let left = registry::count();
        if left != 0 {
            pr_err!("{} provider(s) still registered at unload\n", left);
            ffi::warn(kernel::c_str!("providers still registered at unload"));
        }
        registry::REGISTRY.withdraw();
        let _ = &self.registry;
    }
}
