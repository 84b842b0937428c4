// SPDX-License-Identifier: GPL-2.0
//! `kfi_getinfo` and `kfi_fabric`: asking providers, filtering, ordering.
//!
//! Every provider's answer is filtered again here against the hints (a
//! provider that ignores a hint field cannot leak a non-matching entry to
//! the caller), stamped with the provider's name so `kfi_fabric` finds it
//! again, adjusted to the hints (`logic::hints::alter`, libfabric's
//! `ofi_alter_info`, so providers need not), and the union is ordered
//! best-first (`logic::rank`). No lock is held while a provider runs.
//!
//! Versions (libfabric v1.17 `fi_getinfo`/`fi_fabric`): only a version newer
//! than ours is refused (-ENOSYS); 0 means "any". A provider is asked at the
//! version the caller gave, and skipped when that is newer than the version
//! it was built for; with 0 it is asked at the version it was built for (ours,
//! `KFI_VERSION(1, 7)`, for every provider built with these headers), and
//! that version is what its entries' `fabric_attr->api_version` carries.

use kernel::bindings;
use crate::ffi::{GetinfoArgs, InfoBox, InfoList, Provider};
use crate::logic::{abi, hints, host, rank};
use crate::registry;
use core::ffi::{c_int, c_void};
use kernel::prelude::*;

fn neg(e: u32) -> c_int {
    -(e as c_int)
}

/// Checks what can be checked before any provider is asked.
fn validate(a: &GetinfoArgs<'_>) -> core::result::Result<(), c_int> {
    if abi::effective_version(a.version).is_none() {
        return Err(neg(bindings::ENOSYS));
    }
    if a.flags & !abi::GETINFO_FLAGS != 0 {
        return Err(neg(bindings::EINVAL));
    }
    if a.flags & abi::KFI_NUMERICHOST != 0 {
        match a.node_text {
            Some(n) if host::is_numeric_host(n) => {}
            // Numeric host promised but none (or a name) given.
            _ => return Err(neg(bindings::EINVAL)),
        }
    }
    Ok(())
}

/// The version provider `p` is asked at, or `None` when the caller asked
/// for one newer than `p` was built for (`p` is skipped).
fn version_for(p: &Provider, asked: u32) -> Option<u32> {
    let built = abi::effective_version(p.kfi_version())?;
    match asked {
        0 => Some(built),
        v if v > built => None,
        v => Some(v),
    }
}

fn ask(p: &Provider, a: &GetinfoArgs<'_>, out: &mut KVec<InfoBox>) -> core::result::Result<(), c_int> {
    let Some(version) = version_for(p, a.version) else {
        pr_debug!("{:?} skipped: built for an older API version\n", p.name());
        return Err(neg(bindings::ENODATA));
    };
    let trace = crate::ffi::getinfo_trace();
    let list: InfoList = match p.getinfo(version, a) {
        Ok(l) => l,
        Err(e) => {
            if trace {
                pr_info!("kfi_getinfo: provider {:?}: {}\n", p.name(), e);
            }
            return Err(e);
        }
    };
    for (i, mut e) in list.into_iter().enumerate() {
        // Stamped first: the hints may name the provider.
        e.stamp_provider(p.name(), version).map_err(|_| neg(bindings::ENOMEM))?;
        if let Some(h) = &a.hints_view {
            if let Err(m) = hints::check(&e.view(), h) {
                if trace {
                    pr_info!("kfi_getinfo: provider {:?} entry {} left out: {:?}\n", p.name(), i, m);
                }
                continue;
            }
        }
        e.adjust(a).map_err(|_| neg(bindings::ENOMEM))?;
        out.push(e, GFP_KERNEL).map_err(|_| neg(bindings::ENOMEM))?;
    }
    Ok(())
}

/// The list `kfi_getinfo` returns, or its negative errno.
pub(crate) fn getinfo(a: &GetinfoArgs<'_>) -> core::result::Result<InfoList, c_int> {
    validate(a)?;
    let wanted = hints::wanted_provider(a.hints_view.as_ref());
    let provs = registry::snapshot(wanted)?;
    if provs.is_empty() {
        return Err(neg(bindings::ENODATA));
    }
    let mut out = KVec::new();
    let mut first_err = 0;
    for p in provs.iter() {
        match ask(p, a, &mut out) {
            Ok(()) => {}
            Err(e) if e == neg(bindings::ENOMEM) => return Err(e),
            Err(e) if e == neg(bindings::ENODATA) => {}
            Err(e) => {
                if first_err == 0 {
                    first_err = e;
                }
            }
        }
    }
    drop(provs);
    if out.is_empty() {
        return Err(if first_err != 0 { first_err } else { neg(bindings::ENODATA) });
    }
    rank::stable_sort_by_key(out.as_mut_slice(), |e| rank::rank(&e.view()));
    Ok(InfoList::from_entries(out))
}

/// Opens a fabric on the provider `prov_name` names: pins the provider's
/// module and holds a provider reference until the fabric is closed. An
/// `api_version` newer than ours is refused (-ENOSYS); the fabric's
/// `api_version` is the attribute's, ours for 0 (libfabric's `fi_fabric`
/// copies the attribute's).
pub(crate) fn fabric(
    attr: &mut crate::ffi::sys::kfi_fabric_attr,
    context: *mut c_void,
) -> core::result::Result<*mut crate::ffi::kfid_fabric, c_int> {
    let api_version = abi::effective_version(attr.api_version).ok_or(neg(bindings::ENOSYS))?;
    let name = crate::ffi::fabric_prov_name(attr).ok_or(neg(bindings::EINVAL))?;
    let p = registry::lookup(name)?.ok_or(neg(bindings::ENODEV))?;
    let guard = crate::ffi::FabricGuard::alloc().ok_or(neg(bindings::ENOMEM))?;
    if !p.pin_module() {
        return Err(neg(bindings::ENODEV));
    }
    match p.open_fabric(attr, context) {
        Ok(f) => Ok(guard.install(f, p, api_version)),
        Err(e) => {
            p.unpin_module();
            Err(e)
        }
    }
}
