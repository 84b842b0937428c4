// SPDX-License-Identifier: GPL-2.0
//! The exported C entry points of kfabric.ko (exported by `kfabric_glue.c`,
//! declared in `include/`). Each checks its raw arguments, builds the safe
//! values of `ffi.rs`, and calls the logic. This is the other half of the FFI
//! layer: every `unsafe` block states the API contract it relies on.

use kernel::bindings;
use crate::ffi::{self, sys, BufWriter, GetinfoArgs, InfoBox, InfoList, ProviderPtr};
use crate::logic::{abi, errstr, tostr, view};
use crate::{getinfo, registry};
use core::ffi::{c_char, c_int, c_void};
use core::ptr::{self, NonNull};
use kernel::prelude::*;

fn neg(e: u32) -> c_int {
    -(e as c_int)
}

/// `kfi_getinfo()`: see include/kfabric.h.
///
/// # Safety
/// `node`/`service` NULL or valid strings, `hints` NULL or a valid entry,
/// `info` NULL or writable.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_getinfo(
    version: u32,
    node: *const c_char,
    service: *const c_char,
    flags: u64,
    hints: *mut sys::kfi_info,
    info: *mut *mut sys::kfi_info,
) -> c_int {
    if info.is_null() {
        return neg(bindings::EINVAL);
    }
    // SAFETY: `info` is writable by the API contract; cleared first so a
    // failing call never leaves a stale pointer behind.
    unsafe { *info = ptr::null_mut() };
    // SAFETY: argument validity is the API contract.
    let args = unsafe { GetinfoArgs::new(version, node, service, flags, hints) };
    match getinfo::getinfo(&args) {
        Ok(list) => {
            // SAFETY: checked non-NULL above.
            unsafe { *info = list.into_raw() };
            0
        }
        Err(e) => e,
    }
}

/// `kfi_freeinfo()`: frees a whole list; NULL is ignored.
///
/// # Safety
/// `info` is NULL or a list from kfi_getinfo/kfi_allocinfo/kfi_dupinfo (or
/// built by a provider with kmalloc), not used afterwards.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_freeinfo(info: *mut sys::kfi_info) {
    // SAFETY: ownership passes to us by the API contract.
    drop(unsafe { InfoList::from_raw(info) });
}

/// `kfi_allocinfo()`: a zeroed entry with all five attributes allocated.
#[no_mangle]
pub(crate) extern "C" fn kfi_allocinfo() -> *mut sys::kfi_info {
    InfoBox::alloc().map_or(ptr::null_mut(), InfoBox::into_raw)
}

/// `kfi_dupinfo()`: deep copy of one entry (`next` not followed); NULL gives
/// a fresh `kfi_allocinfo()`.
///
/// # Safety
/// `info` is NULL or a valid entry.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_dupinfo(info: *const sys::kfi_info) -> *mut sys::kfi_info {
    // SAFETY: NULL or valid by the API contract.
    match unsafe { info.as_ref() } {
        None => kfi_allocinfo(),
        // SAFETY: valid entry.
        Some(i) => unsafe { InfoBox::dup(i) }.map_or(ptr::null_mut(), InfoBox::into_raw),
    }
}

/// `kfi_fabric()`: opens a fabric on the provider `attr->prov_name` names.
///
/// # Safety
/// `attr` NULL or valid, `fabric` NULL or writable.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_fabric(
    attr: *mut sys::kfi_fabric_attr,
    fabric: *mut *mut sys::kfid_fabric,
    context: *mut c_void,
) -> c_int {
    // SAFETY: NULL or valid by the API contract.
    let (Some(attr), false) = (unsafe { attr.as_mut() }, fabric.is_null()) else {
        return neg(bindings::EINVAL);
    };
    match getinfo::fabric(attr, context) {
        Ok(f) => {
            // SAFETY: writable by the API contract.
            unsafe { *fabric = f };
            0
        }
        Err(e) => e,
    }
}

/// `kfi_version()`: the API version implemented, `KFI_VERSION(1, 7)`.
#[no_mangle]
pub(crate) extern "C" fn kfi_version() -> u32 {
    abi::API_VERSION
}

/// `kfi_strerror()`: constant text, safe from any context.
#[no_mangle]
pub(crate) extern "C" fn kfi_strerror(errnum: c_int) -> *const c_char {
    errstr::strerror(errnum).as_ptr().cast()
}

/// Reads what `data` points to as the `kfi_type` says.
///
/// # Safety
/// `data` is NULL or points to a valid value of the type `datatype` names.
unsafe fn value_of<'a>(data: *const c_void, datatype: sys::kfi_type, info: &'a mut Option<view::Info<'a>>, attrs: &'a mut Attrs<'a>) -> Option<tostr::Value<'a>> {
    use tostr::Value as V;
    if data.is_null() && datatype != sys::KFI_TYPE_VERSION {
        return None;
    }
    // SAFETY: `data` points to a value of the named type (caller's contract).
    unsafe {
        let u32v = || *data.cast::<u32>();
        let u64v = || *data.cast::<u64>();
        Some(match datatype {
            sys::KFI_TYPE_INFO => {
                *info = Some(ffi::view(&*data.cast::<sys::kfi_info>()));
                V::Info(info.as_ref()?)
            }
            sys::KFI_TYPE_EP_TYPE => V::EpType(u32v()),
            sys::KFI_TYPE_CAPS => V::Caps(u64v()),
            sys::KFI_TYPE_OP_FLAGS => V::OpFlags(u64v()),
            sys::KFI_TYPE_ADDR_FORMAT => V::AddrFormat(u32v()),
            sys::KFI_TYPE_TX_ATTR | sys::KFI_TYPE_RX_ATTR | sys::KFI_TYPE_EP_ATTR
            | sys::KFI_TYPE_DOMAIN_ATTR | sys::KFI_TYPE_FABRIC_ATTR => {
                // Attributes are viewed through a one-attribute kfi_info.
                let mut i: sys::kfi_info = core::mem::zeroed();
                match datatype {
                    sys::KFI_TYPE_TX_ATTR => i.tx_attr = data as *mut _,
                    sys::KFI_TYPE_RX_ATTR => i.rx_attr = data as *mut _,
                    sys::KFI_TYPE_EP_ATTR => i.ep_attr = data as *mut _,
                    sys::KFI_TYPE_DOMAIN_ATTR => i.domain_attr = data as *mut _,
                    _ => i.fabric_attr = data as *mut _,
                }
                attrs.info = i;
                let v = ffi::view(&attrs.info);
                attrs.view = Some(v);
                let v = attrs.view.as_ref()?;
                match datatype {
                    sys::KFI_TYPE_TX_ATTR => V::TxAttr(v.tx.as_ref()?),
                    sys::KFI_TYPE_RX_ATTR => V::RxAttr(v.rx.as_ref()?),
                    sys::KFI_TYPE_EP_ATTR => V::EpAttr(v.ep.as_ref()?),
                    sys::KFI_TYPE_DOMAIN_ATTR => V::DomainAttr(v.domain.as_ref()?),
                    _ => V::FabricAttr(v.fabric.as_ref()?),
                }
            }
            sys::KFI_TYPE_THREADING => V::Threading(u32v()),
            sys::KFI_TYPE_PROGRESS => V::Progress(u32v()),
            sys::KFI_TYPE_PROTOCOL => V::Protocol(u32v()),
            sys::KFI_TYPE_MSG_ORDER => V::MsgOrder(u64v()),
            sys::KFI_TYPE_MODE => V::Mode(u64v()),
            sys::KFI_TYPE_AV_TYPE => V::AvType(u32v()),
            sys::KFI_TYPE_ATOMIC_TYPE => V::AtomicType(u32v()),
            sys::KFI_TYPE_ATOMIC_OP => V::AtomicOp(u32v()),
            sys::KFI_TYPE_VERSION => V::Version,
            sys::KFI_TYPE_EQ_EVENT => V::EqEvent(u32v()),
            sys::KFI_TYPE_CQ_EVENT_FLAGS => V::CqEventFlags(u64v()),
            sys::KFI_TYPE_MR_MODE => V::MrMode(*data.cast::<i32>()),
            sys::KFI_TYPE_OP_TYPE => V::OpType(u32v()),
            _ => return None,
        })
    }
}

/// Storage for viewing a lone attribute structure.
struct Attrs<'a> {
    info: sys::kfi_info,
    view: Option<view::Info<'a>>,
}

/// Formats into `w`; false for an unknown type or NULL data.
///
/// # Safety
/// As for [`value_of`].
unsafe fn format(w: &mut dyn core::fmt::Write, data: *const c_void, datatype: sys::kfi_type) -> bool {
    let mut info = None;
    // SAFETY: zeroed kfi_info is valid (all NULL pointers / zero values).
    let mut attrs = Attrs { info: unsafe { core::mem::zeroed() }, view: None };
    // SAFETY: caller's contract.
    match unsafe { value_of(data, datatype, &mut info, &mut attrs) } {
        Some(v) => {
            let _ = tostr::write(w, v);
            true
        }
        None => false,
    }
}

/// `kfi_tostr()`: text for `data`, in a kmalloc'd string the caller frees
/// with kfree(); NULL for an unknown type, NULL data, or no memory.
/// Thread-safe (upstream libfabric returns a static buffer).
///
/// # Safety
/// `data` is NULL or points to a valid value of the type named.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tostr(data: *const c_void, datatype: sys::kfi_type) -> *mut c_char {
    let mut n = crate::logic::writer::Counter::default();
    // SAFETY: caller's contract.
    if !unsafe { format(&mut n, data, datatype) } {
        return ptr::null_mut();
    }
    ffi::alloc_c_string(n.0, |buf| {
        let mut w = BufWriter::new(buf);
        // SAFETY: caller's contract; same value as counted above.
        unsafe { format(&mut w, data, datatype) };
    })
}

/// `kfi_tostr_r()`: as kfi_tostr() into the caller's buffer (always
/// NUL-terminated, cut if too small). Returns `buf`, or NULL for an unknown
/// type, NULL data, or a NULL/empty buffer.
///
/// # Safety
/// `buf` NULL or writable for `len` bytes; `data` as for kfi_tostr().
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_tostr_r(
    buf: *mut c_char,
    len: usize,
    data: *const c_void,
    datatype: sys::kfi_type,
) -> *mut c_char {
    if buf.is_null() || len == 0 {
        return ptr::null_mut();
    }
    // SAFETY: writable for `len` bytes by the API contract.
    let out = unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), len) };
    let mut w = BufWriter::new(out);
    // SAFETY: caller's contract.
    if unsafe { format(&mut w, data, datatype) } {
        buf
    } else {
        ptr::null_mut()
    }
}

/// `kfi_getparams()`: the core has no tunable parameters yet.
#[no_mangle]
pub(crate) extern "C" fn kfi_getparams(_params: *mut *mut sys::kfi_param, _count: *mut c_int) -> c_int {
    neg(bindings::ENOSYS)
}

/// `kfi_freeparams()`: nothing is ever allocated by kfi_getparams().
#[no_mangle]
pub(crate) extern "C" fn kfi_freeparams(_params: *mut sys::kfi_param) {}

/// `kfi_provider_register()` (a macro passing THIS_MODULE).
///
/// # Safety
/// `prov` NULL or a provider structure that stays valid until deregistered;
/// `owner` the module containing its code (NULL for built-in code).
#[no_mangle]
pub(crate) unsafe extern "C" fn __kfi_provider_register(prov: *mut sys::kfi_provider, owner: *mut sys::module) -> c_int {
    let Some(nn) = NonNull::new(prov) else {
        return neg(bindings::EINVAL);
    };
    // SAFETY: valid provider by the API contract.
    let p = unsafe { nn.as_ref() };
    // SAFETY: `name` is NULL or a valid string by the API contract.
    let name = unsafe { ffi::c_bytes(p.name) };
    if name.map_or(true, |n| n.is_empty()) || p.kgetinfo.is_none() || p.kfabric.is_none() {
        return neg(bindings::EINVAL);
    }
    // A provider built for another major version, or a newer minor one,
    // does not share our structure layouts.
    if abi::major(p.kfi_version) != abi::KFI_MAJOR_VERSION || p.kfi_version > abi::API_VERSION {
        return neg(bindings::ENOSYS);
    }
    // SAFETY: validity until deregistration is the API contract.
    let pp = unsafe { ProviderPtr::new(nn, owner) };
    match registry::register(pp) {
        Ok(()) => {
            pr_info!("provider {:?} registered\n", pp.name());
            0
        }
        Err(e) => e,
    }
}

/// `kfi_provider_deregister()`: unlists the provider and sleeps until no
/// call into it is in flight and every fabric it opened is closed.
///
/// # Safety
/// `prov` NULL or a pointer previously registered (only compared).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_provider_deregister(prov: *mut sys::kfi_provider) -> c_int {
    if prov.is_null() {
        return neg(bindings::EINVAL);
    }
    match registry::deregister(prov) {
        Ok(()) => 0,
        Err(e) => e,
    }
}

/// Compile-time check that the definitions above have exactly the
/// signatures `include/` declares (bindgen's declarations of the same
/// symbols): a mismatch is a type error.
#[allow(dead_code)]
fn signatures_match_headers() {
    fn same<T>(_: T, _: T) {}
    same(sys::kfi_getinfo as unsafe extern "C" fn(_, _, _, _, _, _) -> _, kfi_getinfo);
    same(sys::kfi_freeinfo as unsafe extern "C" fn(_), kfi_freeinfo);
    same(sys::kfi_allocinfo as unsafe extern "C" fn() -> _, kfi_allocinfo);
    same(sys::kfi_dupinfo as unsafe extern "C" fn(_) -> _, kfi_dupinfo);
    same(sys::kfi_fabric as unsafe extern "C" fn(_, _, _) -> _, kfi_fabric);
    same(sys::kfi_version as unsafe extern "C" fn() -> _, kfi_version);
    same(sys::kfi_strerror as unsafe extern "C" fn(_) -> _, kfi_strerror);
    same(sys::kfi_tostr as unsafe extern "C" fn(_, _) -> _, kfi_tostr);
    same(sys::kfi_tostr_r as unsafe extern "C" fn(_, _, _, _) -> _, kfi_tostr_r);
    same(sys::kfi_getparams as unsafe extern "C" fn(_, _) -> _, kfi_getparams);
    same(sys::kfi_freeparams as unsafe extern "C" fn(_), kfi_freeparams);
    same(sys::__kfi_provider_register as unsafe extern "C" fn(_, _) -> _, __kfi_provider_register);
    same(sys::kfi_provider_deregister as unsafe extern "C" fn(_) -> _, kfi_provider_deregister);
}
