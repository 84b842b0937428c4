// SPDX-License-Identifier: GPL-2.0
//! The provider registry.
//!
//! Providers are found by exact name only: an unknown name is an error, never
//! another provider (upstream fell back to the last one registered). The lock
//! protects the slot table and is never held while calling into a provider:
//! callers take a reference on each provider they need under the lock, drop
//! the lock, and call. Deregistration unlists the provider under the lock,
//! then, outside it, drops the registration's reference and sleeps until
//! every call in flight and every open fabric has released theirs.

use kernel::bindings;
use crate::ffi::{Global, Provider, ProviderPtr};
use core::ffi::c_int;
use kernel::new_mutex;
use kernel::prelude::*;
use kernel::sync::Mutex;

/// At most this many providers at once (there are two in this tree).
pub(crate) const MAX_PROVIDERS: usize = 16;

/// Registered providers, each with the sequence number of its registration
/// so that listings keep registration order even when slots are reused.
pub(crate) struct Registry {
    slots: [Option<(u64, ProviderPtr)>; MAX_PROVIDERS],
    seq: u64,
}

/// The registry, published by module init.
pub(crate) static REGISTRY: Global<Mutex<Registry>> = Global::new();

/// Creates the registry (module init).
pub(crate) fn new() -> impl PinInit<Mutex<Registry>> {
    new_mutex!(Registry { slots: [None; MAX_PROVIDERS], seq: 0 }, "kfi_registry")
}

/// References on a set of providers, in registration order.
pub(crate) struct Snapshot {
    refs: [Option<Provider>; MAX_PROVIDERS],
}

impl Snapshot {
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Provider> {
        self.refs.iter().flatten()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }
}

fn with<R>(f: impl FnOnce(&mut Registry) -> R) -> core::result::Result<R, c_int> {
    let reg = REGISTRY.get().ok_or(-(bindings::ENODEV as c_int))?;
    let mut guard = reg.lock();
    Ok(f(&mut guard))
}

impl Registry {
    fn listed(&self) -> impl Iterator<Item = &(u64, ProviderPtr)> {
        self.slots.iter().flatten()
    }

    fn by_name(&self, name: &[u8]) -> Option<ProviderPtr> {
        self.listed().map(|(_, p)| *p).find(|p| p.name().to_bytes() == name)
    }
}

/// Lists a provider. -EEXIST for a name already listed (or the same provider
/// twice), -ENOSPC when the table is full.
pub(crate) fn register(p: ProviderPtr) -> core::result::Result<(), c_int> {
    with(|r| {
        if r.listed().any(|(_, q)| q.as_ptr() == p.as_ptr()) || r.by_name(p.name().to_bytes()).is_some() {
            return Err(-(bindings::EEXIST as c_int));
        }
        let seq = r.seq;
        let slot = r.slots.iter_mut().find(|s| s.is_none()).ok_or(-(bindings::ENOSPC as c_int))?;
        // The registration's reference; nobody can see `p` before this.
        p.init_ref();
        *slot = Some((seq, p));
        r.seq += 1;
        Ok(())
    })?
}

/// Unlists a provider and waits until it is unused. -ENODATA if not listed
/// (as upstream kfabric).
pub(crate) fn deregister(prov: *mut crate::ffi::kfi_provider) -> core::result::Result<(), c_int> {
    let p = with(|r| {
        let slot = r.slots.iter_mut().find(|s| matches!(s, Some((_, q)) if q.as_ptr() == prov))?;
        slot.take().map(|(_, p)| p)
    })?
    .ok_or(-(bindings::ENODATA as c_int))?;
    // Outside the lock: may sleep until the last fabric is closed.
    p.release_and_wait();
    Ok(())
}

/// References on every listed provider, or on the one named `name`.
pub(crate) fn snapshot(name: Option<&[u8]>) -> core::result::Result<Snapshot, c_int> {
    with(|r| {
        let mut listed: [Option<(u64, ProviderPtr)>; MAX_PROVIDERS] = r.slots;
        crate::logic::rank::stable_sort_by_key(&mut listed, |s| s.map(|(seq, _)| seq).unwrap_or(u64::MAX));
        let mut refs: [Option<Provider>; MAX_PROVIDERS] = Default::default();
        for (out, (_, p)) in refs.iter_mut().zip(listed.iter().flatten()) {
            if name.map_or(true, |n| p.name().to_bytes() == n) {
                *out = Some(p.reference());
            }
        }
        Snapshot { refs }
    })
}

/// A reference on the provider named `name`, if listed.
pub(crate) fn lookup(name: &[u8]) -> core::result::Result<Option<Provider>, c_int> {
    with(|r| r.by_name(name).map(|p| p.reference()))
}

/// Number of listed providers (module exit checks it is zero).
pub(crate) fn count() -> usize {
    with(|r| r.listed().count()).unwrap_or(0)
}
