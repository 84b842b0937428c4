// SPDX-License-Identifier: GPL-2.0
//! Consumers' socket addresses (`struct sockaddr_in`/`sockaddr_in6`: the
//! `KFI_SOCKADDR_IN`/`_IN6` names of `src_addr`, `dest_addr`,
//! `kfi_connect`, `kfi_getname`...) and the toolkit's own form of them,
//! [`SockAddr`] (`struct kfi_util_addr`). `kfi_util_glue.c` converts
//! between the two; the logic's [`Addr`] converts to and from
//! [`SockAddr`] here.

use super::logic::nic::{self, Nic, NicNet, NicTable, NicTableError};
use super::logic::plan::{Addr, Family, Iface};
use super::sys;
use core::ffi::{c_char, c_int, c_void};
use kernel::bindings;
use kernel::error::to_result;
use kernel::prelude::*;

/// A socket address of either family in the toolkit's form (see
/// `struct kfi_util_addr`): consumers' `sockaddr_in`/`sockaddr_in6` are
/// converted by [`read_addr`] and [`write_addr`] (in C); a provider's
/// transport takes it as it is (kfi_tcp: its socket calls).
pub(crate) type SockAddr = sys::kfi_util_addr;

/// Any IPv4 address, port 0 (an ephemeral one): where a connectionless
/// endpoint listens when no source address was given.
pub(crate) const ANY_V4: SockAddr = SockAddr { family: bindings::AF_INET as u16, port: 0, scope_id: 0, addr: [0; 16] };

/// The address as the logic sees it.
pub(crate) fn logic_addr(a: &SockAddr) -> Addr {
    let family = if u32::from(a.family) == bindings::AF_INET6 { Family::V6 } else { Family::V4 };
    Addr { family, addr: a.addr, port: a.port, scope: a.scope_id }
}

/// A kernel address from the logic's.
pub(crate) fn sockaddr(a: Addr) -> SockAddr {
    let family = match a.family {
        Family::V4 => bindings::AF_INET,
        Family::V6 => bindings::AF_INET6,
    };
    SockAddr { family: family as u16, port: a.port, scope_id: a.scope, addr: a.addr }
}

/// The consumer's form of `a` (`struct sockaddr_in` or `sockaddr_in6`) in
/// `buf`; its length.
pub(crate) fn encode(a: &SockAddr, buf: &mut [u8; sys::KFI_UTIL_SOCKADDR_MAX as usize]) -> usize {
    // SAFETY: `buf` has room for KFI_UTIL_SOCKADDR_MAX bytes.
    unsafe { sys::kfi_util_addr_encode(a, buf.as_mut_ptr().cast()) }
}

/// Reads a consumer's `struct sockaddr_in` or `sockaddr_in6`: `len` its
/// stated length (which must be its family's size), or 0 when the API
/// states none (`kfi_connect`). `EINVAL` for NULL, another family or a
/// length not matching the family.
///
/// # Safety
/// `addr` is NULL or readable for `len` bytes (`len` 0: for the address
/// size of the family it names).
pub(crate) unsafe fn read_addr(addr: *const c_void, len: usize) -> Result<SockAddr> {
    // SAFETY: all-zero is a valid address.
    let mut a: SockAddr = unsafe { core::mem::zeroed() };
    // SAFETY: readable by the caller's contract (the C side reads the
    // family first, then the family's size only if `len` allows it).
    to_result(unsafe { sys::kfi_util_addr_decode(addr, len, &mut a) })?;
    Ok(a)
}

/// Reads an info's `src_addr`/`dest_addr` of `len` bytes: `None` when
/// NULL; `EINVAL` for a zero length or as [`read_addr`].
///
/// # Safety
/// `addr` is NULL or readable for `len` bytes.
pub(crate) unsafe fn read_info_addr(addr: *const c_void, len: usize) -> Result<Option<SockAddr>> {
    if addr.is_null() {
        return Ok(None);
    }
    if len == 0 {
        return Err(EINVAL);
    }
    // SAFETY: readable for `len` (> 0) bytes by the caller's contract.
    unsafe { read_addr(addr, len) }.map(Some)
}

/// Writes `a` to a consumer's buffer of `*len` bytes, as `getname` does:
/// `*len` becomes the address size (16 for IPv4, 28 for IPv6);
/// `-KFI_ETOOSMALL` if it did not fit.
///
/// # Safety
/// `addr` is writable for `*len` bytes (or NULL with `*len` 0); `len` valid.
pub(crate) unsafe fn write_addr(a: &SockAddr, addr: *mut c_void, len: *mut usize) -> c_int {
    let mut buf = [0u8; sys::KFI_UTIL_SOCKADDR_MAX as usize];
    let need = encode(a, &mut buf);
    // SAFETY: the caller's contract.
    unsafe { copy_out(&buf[..need], addr, len) }
}

/// Copies `bytes` to a consumer's buffer of `*len` bytes as `getname`
/// does: `*len` becomes their length; `-KFI_ETOOSMALL` if they did not
/// fit.
///
/// # Safety
/// As [`write_addr`].
unsafe fn copy_out(bytes: &[u8], addr: *mut c_void, len: *mut usize) -> c_int {
    if len.is_null() {
        return super::base::einval();
    }
    let need = bytes.len();
    // SAFETY: valid by the caller's contract.
    let have = unsafe { *len };
    // SAFETY: as above.
    unsafe { *len = need };
    if have < need || addr.is_null() {
        return -(sys::KFI_ETOOSMALL as c_int);
    }
    // SAFETY: writable for `have >= need` bytes.
    unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), addr.cast::<u8>(), need) };
    0
}

/// The same socket address (family, port, address and scope).
pub(crate) fn same_addr(a: &SockAddr, b: &SockAddr) -> bool {
    a.family == b.family && a.port == b.port && a.addr == b.addr && a.scope_id == b.scope_id
}

/// The `struct kcxi_addr` word of NIC address and endpoint index `n`
/// (flags 0).
pub(crate) fn cxi_addr(n: Nic) -> u64 {
    // SAFETY: plain function of its arguments.
    unsafe { sys::kfi_util_cxi_addr(n.nic, u32::from(n.pid)) }
}

/// The NIC address and endpoint index of a `struct kcxi_addr` word;
/// `None` if it has flags set (no address of ours has).
pub(crate) fn cxi_parts(qw: u64) -> Option<Nic> {
    let (mut nic, mut pid, mut flags) = (0, 0, 0);
    // SAFETY: plain function of `qw`; the outputs are ours.
    unsafe { sys::kfi_util_cxi_parts(qw, &mut nic, &mut pid, &mut flags) };
    (flags == 0).then_some(Nic { nic, pid: pid as u16 })
}

/// Reads a consumer's `struct kcxi_addr` at `addr`.
///
/// # Safety
/// `addr` is NULL or readable for [`sys::KFI_UTIL_CXI_ADDR_LEN`] bytes.
pub(crate) unsafe fn read_cxi(addr: *const c_void) -> Option<Nic> {
    if addr.is_null() {
        return None;
    }
    // SAFETY: readable for 8 bytes (caller's contract), any alignment.
    cxi_parts(unsafe { addr.cast::<u64>().read_unaligned() })
}

const _: () = assert!(sys::KFI_UTIL_NIC_MAP_MAX as usize == nic::NIC_TABLE_MAX);

/// Runs `f` on the administrator's NIC address table (the provider's
/// `nic_map` parameter), held for the call: `f` must not sleep (bottom
/// halves are off).
pub(crate) fn with_nic_table<R>(f: impl FnOnce(NicTable<'_>) -> R) -> R {
    let mut len = 0usize;
    // SAFETY: takes the table's lock; the text it returns stays valid and
    // unchanged until the unlock below.
    let text = unsafe { sys::kfi_util_nic_map_lock_text(&mut len) };
    // SAFETY: `text` holds `len` bytes, held by the lock.
    let bytes = unsafe { core::slice::from_raw_parts(text.cast::<u8>(), len) };
    let r = f(NicTable::of_checked(bytes));
    // SAFETY: the lock taken above.
    unsafe { sys::kfi_util_nic_map_unlock_text() };
    r
}

/// The parameter's check of a new table text (`kfi_util_glue.c`): 0,
/// -EINVAL for a malformed one, -ENOSPC for one too long.
///
/// # Safety
/// `text` is readable for `len` bytes.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_nic_map_check(text: *const c_char, len: usize) -> c_int {
    // SAFETY: the caller's contract.
    let bytes = unsafe { core::slice::from_raw_parts(text.cast::<u8>(), len) };
    match NicTable::parse(bytes) {
        Ok(_) => 0,
        Err(NicTableError::TooLong) => -(bindings::ENOSPC as c_int),
        Err(_) => -(bindings::EINVAL as c_int),
    }
}

/// The socket address NIC address `n` names: the table's address, else
/// the one in `net`; `EINVAL` if it is outside it.
pub(crate) fn nic_sockaddr(net: &NicNet, n: Nic) -> Result<SockAddr> {
    let (ip, port) = with_nic_table(|t| t.addr(net, n)).ok_or(EINVAL)?;
    Ok(sockaddr(Addr::v4(ip, port)))
}

/// The NIC address of `a` (the table's, else by `net`), if it has one.
pub(crate) fn sockaddr_nic(net: &NicNet, a: &SockAddr) -> Option<Nic> {
    let l = logic_addr(a);
    (l.family == Family::V4).then_some(())?;
    with_nic_table(|t| t.name(net, l.ip4(), l.port))
}

/// A consumer's name for `a` (`getname`, `av_lookup`) in `buf`: its
/// `struct kcxi_addr` when the domain names endpoints by NIC address
/// (`net`) and `a` has one, else its socket address; the length.
pub(crate) fn encode_name(net: Option<&NicNet>, a: &SockAddr, buf: &mut [u8; sys::KFI_UTIL_SOCKADDR_MAX as usize]) -> usize {
    match net.and_then(|n| sockaddr_nic(n, a)) {
        Some(n) => {
            let len = sys::KFI_UTIL_CXI_ADDR_LEN as usize;
            buf[..len].copy_from_slice(&cxi_addr(n).to_ne_bytes());
            len
        }
        None => encode(a, buf),
    }
}

/// [`write_addr`] of the consumer's name for `a` ([`encode_name`]).
///
/// # Safety
/// As [`write_addr`].
pub(crate) unsafe fn write_name(net: Option<&NicNet>, a: &SockAddr, addr: *mut c_void, len: *mut usize) -> c_int {
    let mut buf = [0u8; sys::KFI_UTIL_SOCKADDR_MAX as usize];
    let need = encode_name(net, a, &mut buf);
    // SAFETY: the caller's contract.
    unsafe { copy_out(&buf[..need], addr, len) }
}

/// The NIC net of a domain opened from `info`: `None` unless the info's
/// addresses are NIC addresses (`KFI_ADDR_CXI`, `logic::nic`); then the
/// net of the first IPv4 address among `views` (the domain's interface
/// addresses) whose NIC address (the table's first) is that of the info's
/// `src_addr`.
/// `EINVAL` for a missing or malformed `src_addr`, `ENODEV` if no address
/// matches.
///
/// # Safety
/// `info` is NULL or a valid info whose `src_addr` is NULL or holds
/// `src_addrlen` bytes.
pub(crate) unsafe fn info_nic_net<'a>(info: *const sys::kfi_info, views: impl Iterator<Item = Iface<'a>>) -> Result<Option<NicNet>> {
    // SAFETY: the caller's contract.
    let Some(i) = (unsafe { info.as_ref() }) else {
        return Ok(None);
    };
    if i.addr_format != sys::KFI_ADDR_CXI {
        return Ok(None);
    }
    if i.src_addrlen != sys::KFI_UTIL_CXI_ADDR_LEN as usize {
        return Err(EINVAL);
    }
    // SAFETY: `src_addr` holds `src_addrlen` (8) bytes or is NULL.
    let own = unsafe { read_cxi(i.src_addr) }.ok_or(EINVAL)?;
    with_nic_table(|t| {
        views
            .filter(|v| v.family == Family::V4 && v.up)
            .map(|v| t.own(v.ip4(), v.prefix_len()))
            .find(|(_, nic)| *nic == own.nic)
            .map(|(net, _)| Some(net))
            .ok_or(ENODEV)
    })
}
