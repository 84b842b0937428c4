// SPDX-License-Identifier: GPL-2.0
//! `kfi_getinfo` and `kfi_fabric`: asking providers, filtering, ordering.
//!
//! Every provider's answer is filtered again here against the hints (a
//! provider that ignores a hint field cannot leak a non-matching entry to
//! the caller), stamped with the provider's name so `kfi_fabric` finds it
//! again, and the union is ordered best-first (`logic::rank`). No lock is
//! held while a provider runs.

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
    if abi::major(a.version) != abi::KFI_MAJOR_VERSION || a.version > abi::API_VERSION {
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

fn ask(p: &Provider, a: &GetinfoArgs<'_>, out: &mut KVec<InfoBox>) -> core::result::Result<(), c_int> {
    let list: InfoList = p.getinfo(a)?;
    for mut e in list {
        // Stamped first: the hints may name the provider.
        e.stamp_provider(p.name(), a.version).map_err(|_| neg(bindings::ENOMEM))?;
        if let Some(h) = &a.hints_view {
            if let Err(m) = hints::check(&e.view(), h) {
                pr_debug!("{:?} entry dropped: {:?}\n", p.name(), m);
                continue;
            }
        }
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
/// module and holds a provider reference until the fabric is closed.
pub(crate) fn fabric(
    attr: &mut crate::ffi::sys::kfi_fabric_attr,
    context: *mut c_void,
) -> core::result::Result<*mut crate::ffi::kfid_fabric, c_int> {
    let name = crate::ffi::fabric_prov_name(attr).ok_or(neg(bindings::EINVAL))?;
    let p = registry::lookup(name)?.ok_or(neg(bindings::ENODEV))?;
    let guard = crate::ffi::FabricGuard::alloc().ok_or(neg(bindings::ENOMEM))?;
    if !p.pin_module() {
        return Err(neg(bindings::ENODEV));
    }
    match p.open_fabric(attr, context) {
        Ok(f) => Ok(guard.install(f, p)),
        Err(e) => {
            p.unpin_module();
            Err(e)
        }
    }
}
