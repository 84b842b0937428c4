// SPDX-License-Identifier: GPL-2.0
//! The FFI layer of kfabric.ko: the only file with `unsafe` besides the
//! exported entry points in `exports.rs`.
//!
//! It turns the C world (raw `kfi_info` lists, provider structures, kmalloc'd
//! strings) into owned RAII values with documented invariants, so that the
//! registry and `kfi_getinfo` logic above it is safe Rust:
//! - [`InfoBox`] owns one `kfi_info` entry (freed with everything it owns on
//!   drop); [`InfoList`] owns a chain of them.
//! - [`Provider`] is a registered provider with one reference held on it; the
//!   reference is dropped (and a deregistering thread possibly woken) on drop.

use kernel::bindings;
use crate::logic::view::{DomainAttr, EpAttr, FabricAttr, Info, RxAttr, TxAttr};
use core::ffi::{c_char, c_int, c_void, CStr};
use core::ptr::{self, NonNull};
use kernel::prelude::*;

/// Bindings generated from `include/*.h` and `kfi_sys.h` at build time.
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
    include!("kfi_sys_generated.rs");
}

pub(crate) use sys::{kfi_info, kfi_provider, kfid_fabric, module};

/// Bytes of a C string, without the NUL; `None` for NULL.
///
/// # Safety
/// `s` is NULL or points to a NUL-terminated string valid for `'a`.
pub(crate) unsafe fn c_bytes<'a>(s: *const c_char) -> Option<&'a [u8]> {
    if s.is_null() {
        return None;
    }
    // SAFETY: non-NULL and NUL-terminated for 'a, by the caller's contract.
    Some(unsafe { CStr::from_ptr(s) }.to_bytes())
}

/// Reads an attribute pointer as a reference.
///
/// # Safety
/// `p` is NULL or valid for reads for `'a`.
unsafe fn opt<'a, T>(p: *const T) -> Option<&'a T> {
    // SAFETY: by the caller's contract.
    unsafe { p.as_ref() }
}

/// Builds the logic view of one C entry.
///
/// # Safety
/// `i` and every attribute and string it points to are valid for `'a` (the
/// contract of a `kfi_info` handed to us by a consumer or provider).
pub(crate) unsafe fn view<'a>(i: &'a kfi_info) -> Info<'a> {
    // SAFETY (for every `opt`/`c_bytes` below): the caller guarantees the
    // pointers inside `i` are NULL or valid for 'a.
    unsafe {
        Info {
            caps: i.caps,
            mode: i.mode,
            addr_format: i.addr_format,
            src_addrlen: i.src_addrlen,
            dest_addrlen: i.dest_addrlen,
            tx: opt(i.tx_attr).map(|a| TxAttr {
                caps: a.caps,
                mode: a.mode,
                op_flags: a.op_flags,
                msg_order: a.msg_order,
                comp_order: a.comp_order,
                inject_size: a.inject_size,
                size: a.size,
                iov_limit: a.iov_limit,
                rma_iov_limit: a.rma_iov_limit,
                tclass: a.tclass,
            }),
            rx: opt(i.rx_attr).map(|a| RxAttr {
                caps: a.caps,
                mode: a.mode,
                op_flags: a.op_flags,
                msg_order: a.msg_order,
                comp_order: a.comp_order,
                total_buffered_recv: a.total_buffered_recv,
                size: a.size,
                iov_limit: a.iov_limit,
            }),
            ep: opt(i.ep_attr).map(|a| EpAttr {
                ep_type: a.type_,
                protocol: a.protocol,
                protocol_version: a.protocol_version,
                max_msg_size: a.max_msg_size,
                msg_prefix_size: a.msg_prefix_size,
                max_order_raw_size: a.max_order_raw_size,
                max_order_war_size: a.max_order_war_size,
                max_order_waw_size: a.max_order_waw_size,
                mem_tag_format: a.mem_tag_format,
                tx_ctx_cnt: a.tx_ctx_cnt,
                rx_ctx_cnt: a.rx_ctx_cnt,
                auth_key_size: a.auth_key_size,
            }),
            domain: opt(i.domain_attr).map(|a| DomainAttr {
                name: c_bytes(a.name),
                threading: a.threading,
                control_progress: a.control_progress,
                data_progress: a.data_progress,
                resource_mgmt: a.resource_mgmt,
                av_type: a.av_type,
                mr_mode: a.mr_mode,
                mr_key_size: a.mr_key_size,
                cq_data_size: a.cq_data_size,
                cq_cnt: a.cq_cnt,
                ep_cnt: a.ep_cnt,
                tx_ctx_cnt: a.tx_ctx_cnt,
                rx_ctx_cnt: a.rx_ctx_cnt,
                max_ep_tx_ctx: a.max_ep_tx_ctx,
                max_ep_rx_ctx: a.max_ep_rx_ctx,
                max_ep_stx_ctx: a.max_ep_stx_ctx,
                max_ep_srx_ctx: a.max_ep_srx_ctx,
                cntr_cnt: a.cntr_cnt,
                mr_iov_limit: a.mr_iov_limit,
                caps: a.caps,
                mode: a.mode,
                auth_key_size: a.auth_key_size,
                max_err_data: a.max_err_data,
                mr_cnt: a.mr_cnt,
                tclass: a.tclass,
            }),
            fabric: opt(i.fabric_attr).map(|a| FabricAttr {
                name: c_bytes(a.name),
                prov_name: c_bytes(a.prov_name),
                prov_version: a.prov_version,
                api_version: a.api_version,
            }),
        }
    }
}

/// kzalloc'd, zeroed `T` (process context).
fn zalloc<T>() -> Option<NonNull<T>> {
    // SAFETY: plain allocation; a NULL result is handled by `NonNull::new`.
    NonNull::new(unsafe { sys::kfi_glue_zalloc(core::mem::size_of::<T>()) }.cast())
}

/// kfree; NULL is fine.
fn free<T>(p: *const T) {
    // SAFETY: every pointer reaching here came from kmalloc (our allocations
    // or a provider's/consumer's, the kfi_info ownership contract) or is NULL.
    unsafe { sys::kfi_glue_free(p.cast()) }
}

/// A kmalloc'd copy of `len` bytes at `src` (NULL when `src` is NULL or 0 bytes).
///
/// # Safety
/// `src` is NULL or valid for `len` bytes.
unsafe fn memdup(src: *const c_void, len: usize) -> Result<*mut c_void> {
    if src.is_null() || len == 0 {
        return Ok(ptr::null_mut());
    }
    // SAFETY: valid for `len` bytes by the caller's contract.
    let p = unsafe { sys::kfi_glue_memdup(src, len) };
    if p.is_null() {
        Err(ENOMEM)
    } else {
        Ok(p)
    }
}

/// A kmalloc'd copy of a C string (NULL stays NULL).
///
/// # Safety
/// `s` is NULL or a valid NUL-terminated string.
unsafe fn strdup(s: *const c_char) -> Result<*mut c_char> {
    if s.is_null() {
        return Ok(ptr::null_mut());
    }
    // SAFETY: valid string by the caller's contract.
    let p = unsafe { sys::kfi_glue_strdup(s) };
    if p.is_null() {
        Err(ENOMEM)
    } else {
        Ok(p)
    }
}

/// Copies the attribute `*src` into a new allocation; NULL stays NULL.
///
/// # Safety
/// `src` is NULL or valid.
unsafe fn dup_attr<T: Copy>(src: *const T) -> Result<*mut T> {
    // SAFETY: NULL or valid by the caller's contract.
    match unsafe { src.as_ref() } {
        None => Ok(ptr::null_mut()),
        Some(v) => {
            let p = zalloc::<T>().ok_or(ENOMEM)?;
            // SAFETY: `p` is a fresh allocation of size_of::<T>().
            unsafe { p.as_ptr().write(*v) };
            Ok(p.as_ptr())
        }
    }
}

/// Frees one entry and everything it owns (not `next`, not `handle`, not the
/// open fabric/domain objects the attributes may name).
///
/// # Safety
/// `i` is NULL or an entry whose owned pointers are NULL or kmalloc'd, and
/// nothing else refers to them afterwards.
pub(crate) unsafe fn free_entry(i: *mut kfi_info) {
    // SAFETY: NULL or valid by the caller's contract.
    let Some(e) = (unsafe { i.as_ref() }) else { return };
    free(e.src_addr);
    free(e.dest_addr);
    free(e.tx_attr);
    free(e.rx_attr);
    // SAFETY: the attribute pointers are NULL or valid (caller's contract).
    unsafe {
        if let Some(a) = e.ep_attr.as_ref() {
            free(a.auth_key);
        }
        free(e.ep_attr);
        if let Some(a) = e.domain_attr.as_ref() {
            free(a.name);
            free(a.auth_key);
        }
        free(e.domain_attr);
        if let Some(a) = e.fabric_attr.as_ref() {
            free(a.name);
            free(a.prov_name);
        }
    }
    free(e.fabric_attr);
    free(i);
}

/// One owned `kfi_info` entry.
///
/// # Invariants
/// `ptr` is a kmalloc'd entry whose owned pointers are NULL or kmalloc'd,
/// whose strings are NUL-terminated, `next` is NULL, and nothing else owns it.
pub(crate) struct InfoBox {
    ptr: NonNull<kfi_info>,
}

// SAFETY: the entry is exclusively owned (type invariant); kmalloc memory may
// be freed from any thread.
unsafe impl Send for InfoBox {}

impl InfoBox {
    /// A new entry with every attribute allocated and zeroed (`kfi_allocinfo`).
    pub(crate) fn alloc() -> Result<Self> {
        let e = zalloc::<kfi_info>().ok_or(ENOMEM)?;
        // INVARIANT: fresh zeroed allocation: every pointer NULL.
        let b = InfoBox { ptr: e };
        // SAFETY: `e` is valid and exclusively ours.
        let i = unsafe { &mut *e.as_ptr() };
        i.tx_attr = zalloc().ok_or(ENOMEM)?.as_ptr();
        i.rx_attr = zalloc().ok_or(ENOMEM)?.as_ptr();
        i.ep_attr = zalloc().ok_or(ENOMEM)?.as_ptr();
        i.domain_attr = zalloc().ok_or(ENOMEM)?.as_ptr();
        i.fabric_attr = zalloc().ok_or(ENOMEM)?.as_ptr();
        Ok(b)
    }

    /// Deep copy of one entry (`kfi_dupinfo`): attributes, addresses, names
    /// and keys are copied; `next` is NULL; `handle` and the fabric/domain
    /// object pointers are references and are copied as they are.
    ///
    /// # Safety
    /// `src` is a valid entry (the `kfi_info` contract).
    pub(crate) unsafe fn dup(src: &kfi_info) -> Result<Self> {
        let e = zalloc::<kfi_info>().ok_or(ENOMEM)?;
        // SAFETY: fresh allocation.
        unsafe { e.as_ptr().write(*src) };
        // SAFETY: `e` is valid and ours.
        let i = unsafe { &mut *e.as_ptr() };
        i.next = ptr::null_mut();
        i.src_addr = ptr::null_mut();
        i.dest_addr = ptr::null_mut();
        i.tx_attr = ptr::null_mut();
        i.rx_attr = ptr::null_mut();
        i.ep_attr = ptr::null_mut();
        i.domain_attr = ptr::null_mut();
        i.fabric_attr = ptr::null_mut();
        // INVARIANT: every owned pointer is NULL now; each is filled below
        // with a fresh allocation, so a failure part-way frees exactly what
        // was copied.
        let b = InfoBox { ptr: e };
        // SAFETY: `src`'s pointers are valid for their stated lengths (the
        // kfi_info contract); the copies become owned by `i`.
        unsafe {
            i.src_addr = memdup(src.src_addr, src.src_addrlen)?;
            if i.src_addr.is_null() {
                i.src_addrlen = 0;
            }
            i.dest_addr = memdup(src.dest_addr, src.dest_addrlen)?;
            if i.dest_addr.is_null() {
                i.dest_addrlen = 0;
            }
            i.tx_attr = dup_attr(src.tx_attr)?;
            i.rx_attr = dup_attr(src.rx_attr)?;
            i.ep_attr = dup_attr(src.ep_attr)?;
            if let Some(a) = i.ep_attr.as_mut() {
                let key = a.auth_key;
                a.auth_key = ptr::null_mut();
                a.auth_key = memdup(key.cast(), a.auth_key_size)?.cast();
            }
            i.domain_attr = dup_attr(src.domain_attr)?;
            if let Some(a) = i.domain_attr.as_mut() {
                let (name, key) = (a.name, a.auth_key);
                a.name = ptr::null_mut();
                a.auth_key = ptr::null_mut();
                a.name = strdup(name)?;
                a.auth_key = memdup(key.cast(), a.auth_key_size)?.cast();
            }
            i.fabric_attr = dup_attr(src.fabric_attr)?;
            if let Some(a) = i.fabric_attr.as_mut() {
                let (name, prov) = (a.name, a.prov_name);
                a.name = ptr::null_mut();
                a.prov_name = ptr::null_mut();
                a.name = strdup(name)?;
                a.prov_name = strdup(prov)?;
            }
        }
        Ok(b)
    }

    /// The logic view of this entry.
    pub(crate) fn view(&self) -> Info<'_> {
        // SAFETY: valid entry by the type invariant, borrowed for `&self`.
        unsafe { view(self.ptr.as_ref()) }
    }

    /// Makes sure the entry names its provider and the API version it was
    /// produced for, so that `kfi_fabric(info->fabric_attr, ...)` finds the
    /// provider that produced it, whatever the provider filled in.
    pub(crate) fn stamp_provider(&mut self, prov_name: &CStr, api_version: u32) -> Result {
        // SAFETY: valid and exclusively ours by the type invariant.
        let i = unsafe { self.ptr.as_mut() };
        if i.fabric_attr.is_null() {
            i.fabric_attr = zalloc().ok_or(ENOMEM)?.as_ptr();
        }
        // SAFETY: non-NULL kmalloc'd attribute owned by the entry.
        let f = unsafe { &mut *i.fabric_attr };
        // SAFETY: `prov_name` is NUL-terminated.
        let name = unsafe { strdup(prov_name.as_ptr().cast()) }?;
        free(f.prov_name);
        f.prov_name = name;
        f.api_version = api_version;
        Ok(())
    }

    /// Adjusts a matching entry to the caller's hints: the scalar fields
    /// `logic::hints::alter` computes, then copies of the hints'
    /// authorization keys (ep and domain, each with its size, when the hint
    /// gives a key) and the hints' `handle`. On error the entry is still a
    /// valid, owned entry (freed by the caller).
    pub(crate) fn adjust(&mut self, a: &GetinfoArgs<'_>) -> Result {
        let (Some(hv), Some(h)) = (a.hints_view.as_ref(), NonNull::new(a.hints)) else {
            // No hints: an entry's tx/rx `op_flags` are the defaults an
            // endpoint opened from it applies to every operation, and
            // nobody asked for any. The set a provider supports is what
            // hints are matched against (above); as defaults it would
            // turn every receive into a multi-receive buffer. libfabric
            // returns the provider's flags here; its providers advertise
            // only harmless ones, ours advertise all they support.
            // SAFETY: valid and exclusively ours by the type invariant;
            // the attribute pointers are NULL or owned by the entry.
            let i = unsafe { self.ptr.as_mut() };
            // SAFETY: as above.
            unsafe {
                if let Some(t) = i.tx_attr.as_mut() {
                    t.op_flags = 0;
                }
                if let Some(r) = i.rx_attr.as_mut() {
                    r.op_flags = 0;
                }
            }
            return Ok(());
        };
        let p = self.ptr.as_ptr();
        // The view borrows only the entry's name strings (separate
        // allocations `write_back` does not touch); its scalars are copies.
        let altered = crate::logic::hints::alter(&self.view(), hv);
        // SAFETY: valid and exclusively ours by the type invariant; the
        // attribute pointers are NULL or owned by the entry. No reference
        // into the `kfi_info` or its attribute structs is alive (see above).
        let i = unsafe { &mut *p };
        // SAFETY: as above.
        unsafe { write_back(i, &altered) };
        // SAFETY: `hints` is a valid entry for the call (`GetinfoArgs`
        // invariant), its key pointers valid for their sizes.
        let h = unsafe { h.as_ref() };
        i.handle = h.handle;
        // SAFETY: entry attributes NULL or owned, hint attributes NULL or
        // valid (contracts above); the keys are the attributes' own fields.
        unsafe {
            if let (Some(e), Some(w)) = (i.ep_attr.as_mut(), h.ep_attr.as_ref()) {
                copy_key(&mut e.auth_key, &mut e.auth_key_size, w.auth_key, w.auth_key_size)?;
            }
            if let (Some(d), Some(w)) = (i.domain_attr.as_mut(), h.domain_attr.as_ref()) {
                copy_key(&mut d.auth_key, &mut d.auth_key_size, w.auth_key, w.auth_key_size)?;
            }
        }
        Ok(())
    }

    /// Gives up ownership (for the caller of `kfi_allocinfo`/`kfi_dupinfo`).
    pub(crate) fn into_raw(self) -> *mut kfi_info {
        let p = self.ptr.as_ptr();
        core::mem::forget(self);
        p
    }
}

/// Replaces an owned key (`*key`, NULL or kmalloc'd) by a copy of `src`
/// when `src` is a key (non-NULL, `len` > 0); the old key is freed once.
///
/// # Safety
/// `src` is NULL or valid for `len` bytes.
unsafe fn copy_key(key: &mut *mut u8, size: &mut usize, src: *const u8, len: usize) -> Result {
    if src.is_null() || len == 0 {
        return Ok(());
    }
    // SAFETY: valid for `len` bytes (caller's contract).
    let copy = unsafe { memdup(src.cast(), len) }?;
    free(*key);
    *key = copy.cast();
    *size = len;
    Ok(())
}

/// Writes the fields `logic::hints::alter` may change back into the entry.
///
/// # Safety
/// The attribute pointers of `i` are NULL or valid and exclusively owned.
unsafe fn write_back(i: &mut kfi_info, v: &Info<'_>) {
    i.caps = v.caps;
    // SAFETY: NULL or valid and ours (caller's contract).
    unsafe {
        if let (Some(a), Some(t)) = (i.tx_attr.as_mut(), v.tx) {
            a.caps = t.caps;
            a.op_flags = t.op_flags;
            a.inject_size = t.inject_size;
            a.size = t.size;
            a.iov_limit = t.iov_limit;
            a.rma_iov_limit = t.rma_iov_limit;
            a.tclass = t.tclass;
        }
        if let (Some(a), Some(r)) = (i.rx_attr.as_mut(), v.rx) {
            a.caps = r.caps;
            a.op_flags = r.op_flags;
            a.total_buffered_recv = r.total_buffered_recv;
            a.size = r.size;
            a.iov_limit = r.iov_limit;
        }
        if let (Some(a), Some(e)) = (i.ep_attr.as_mut(), v.ep) {
            a.max_order_raw_size = e.max_order_raw_size;
            a.max_order_war_size = e.max_order_war_size;
            a.max_order_waw_size = e.max_order_waw_size;
            a.tx_ctx_cnt = e.tx_ctx_cnt;
            a.rx_ctx_cnt = e.rx_ctx_cnt;
        }
        if let (Some(a), Some(d)) = (i.domain_attr.as_mut(), v.domain) {
            a.mr_mode = d.mr_mode;
            a.caps = d.caps;
            a.threading = d.threading;
            a.control_progress = d.control_progress;
            a.data_progress = d.data_progress;
            a.av_type = d.av_type;
            a.tclass = d.tclass;
        }
    }
}

impl Drop for InfoBox {
    fn drop(&mut self) {
        // SAFETY: exclusively owned entry (type invariant), freed once here.
        unsafe { free_entry(self.ptr.as_ptr()) }
    }
}

/// An owned chain of entries, as returned by a provider's `kgetinfo`.
///
/// # Invariants
/// `head` is NULL or the first of a chain of entries each satisfying
/// [`InfoBox`]'s invariant except for `next`, owned by nobody else.
pub(crate) struct InfoList {
    head: *mut kfi_info,
}

impl InfoList {
    /// Takes ownership of a provider's list.
    ///
    /// # Safety
    /// `head` is NULL or a list satisfying the type invariant.
    pub(crate) unsafe fn from_raw(head: *mut kfi_info) -> Self {
        InfoList { head }
    }

    /// Builds a list from entries, in order.
    pub(crate) fn from_entries(entries: KVec<InfoBox>) -> Self {
        let mut head: *mut kfi_info = ptr::null_mut();
        let mut tail: *mut *mut kfi_info = &mut head;
        for e in entries {
            let p = e.into_raw();
            // SAFETY: `tail` points at `head` or at the `next` field of the
            // previous entry, which we own; `p` is a valid owned entry.
            unsafe {
                *tail = p;
                tail = &mut (*p).next;
            }
        }
        InfoList { head }
    }

    /// Gives the list to the caller (freed later with `kfi_freeinfo`).
    pub(crate) fn into_raw(self) -> *mut kfi_info {
        let p = self.head;
        core::mem::forget(self);
        p
    }
}

impl Iterator for InfoList {
    type Item = InfoBox;

    /// Detaches the first entry.
    fn next(&mut self) -> Option<InfoBox> {
        let p = NonNull::new(self.head)?;
        // SAFETY: owned valid entry (type invariant).
        unsafe {
            self.head = (*p.as_ptr()).next;
            (*p.as_ptr()).next = ptr::null_mut();
        }
        // INVARIANT: detached, `next` is NULL, ownership moves to the box.
        Some(InfoBox { ptr: p })
    }
}

impl Drop for InfoList {
    fn drop(&mut self) {
        for _ in self.by_ref() {}
    }
}

/// Pointers to a provider registered with us.
///
/// # Invariants
/// `prov` stays valid from `kfi_provider_register` until
/// `kfi_provider_deregister` has returned, and `owner` (NULL for built-in
/// code) is the module holding its code.
#[derive(Clone, Copy)]
pub(crate) struct ProviderPtr {
    prov: NonNull<kfi_provider>,
    owner: *mut module,
}

// SAFETY: the provider structure is shared by design: its fields that change
// (`comp`, `ref_cnt`) are a completion and an atomic.
unsafe impl Send for ProviderPtr {}

impl ProviderPtr {
    /// Wraps what a provider passed to `kfi_provider_register`.
    ///
    /// # Safety
    /// `prov` is valid until it is deregistered (the registration contract).
    pub(crate) unsafe fn new(prov: NonNull<kfi_provider>, owner: *mut module) -> Self {
        ProviderPtr { prov, owner }
    }

    pub(crate) fn as_ptr(&self) -> *mut kfi_provider {
        self.prov.as_ptr()
    }

    fn get(&self) -> &kfi_provider {
        // SAFETY: valid while registered (type invariant); callers hold the
        // registry lock or a reference.
        unsafe { self.prov.as_ref() }
    }

    /// The provider's name (checked non-NULL at registration).
    pub(crate) fn name(&self) -> &CStr {
        // SAFETY: checked non-NULL and NUL-terminated at registration.
        unsafe { CStr::from_ptr(self.get().name) }
    }

    /// Prepares the reference count for a new registration: one reference
    /// owned by the registration itself.
    pub(crate) fn init_ref(&self) {
        // SAFETY: valid provider not yet visible to anyone else.
        unsafe { sys::kfi_glue_provider_init_ref(self.as_ptr()) }
    }

    /// Takes a reference; only under the registry lock while listed, so the
    /// count cannot already have dropped to zero.
    pub(crate) fn reference(&self) -> Provider {
        // SAFETY: valid provider, count >= 1 (listed).
        unsafe { sys::kfi_glue_provider_get(self.as_ptr()) };
        Provider { p: *self }
    }

    /// Drops the registration's reference and sleeps until every other one
    /// is gone. Process context; never under the registry lock.
    pub(crate) fn release_and_wait(self) {
        // SAFETY: valid provider; the registration's reference is ours.
        unsafe {
            sys::kfi_glue_provider_put(self.as_ptr());
            sys::kfi_glue_provider_wait_unused(self.as_ptr());
        }
    }
}

/// A provider with one reference held: deregistration cannot complete (and
/// the provider's code cannot go away) while this exists.
pub(crate) struct Provider {
    p: ProviderPtr,
}

/// The result of a provider's `kfabric` entry point.
pub(crate) type FabricOpen = core::result::Result<NonNull<kfid_fabric>, c_int>;

impl Provider {
    pub(crate) fn name(&self) -> &CStr {
        self.p.name()
    }

    /// The API version the provider was built for.
    pub(crate) fn kfi_version(&self) -> u32 {
        self.p.get().kfi_version
    }

    /// Calls the provider's `kgetinfo` at `version`; the list it returns
    /// becomes ours.
    pub(crate) fn getinfo(&self, version: u32, a: &GetinfoArgs<'_>) -> core::result::Result<InfoList, c_int> {
        let f = self.p.get().kgetinfo.ok_or(-(bindings::ENOSYS as c_int))?;
        let mut list: *mut kfi_info = ptr::null_mut();
        // SAFETY: provider entry point; the arguments are valid for the call
        // (`GetinfoArgs` invariant) and the provider is alive (we hold a
        // reference).
        let ret = unsafe { f(version, a.node, a.service, a.flags, a.hints, &mut list) };
        // SAFETY: on success the provider hands us a list it no longer owns;
        // on failure it must not have returned one, but take whatever is
        // there so nothing leaks.
        let list = unsafe { InfoList::from_raw(list) };
        if ret == 0 {
            Ok(list)
        } else {
            Err(ret)
        }
    }

    /// Calls the provider's `kfabric`; `context` is the caller's, passed on.
    pub(crate) fn open_fabric(&self, attr: &mut sys::kfi_fabric_attr, context: *mut c_void) -> FabricOpen {
        let f = self.p.get().kfabric.ok_or(-(bindings::ENOSYS as c_int))?;
        let mut fab: *mut kfid_fabric = ptr::null_mut();
        // SAFETY: provider alive (reference held); `attr` is a valid
        // reference; `context` is opaque to us and to the provider.
        let ret = unsafe { f(attr, &mut fab, context) };
        match (ret, NonNull::new(fab)) {
            (0, Some(f)) => Ok(f),
            (0, None) => Err(-(bindings::EIO as c_int)),
            (e, _) => Err(e),
        }
    }

    /// Pins the provider's module; false if it is being unloaded.
    pub(crate) fn pin_module(&self) -> bool {
        // SAFETY: `owner` is NULL or the provider's live module: the provider
        // is registered, and its module deregisters before it goes away.
        unsafe { sys::kfi_glue_module_get(self.p.owner) }
    }

    /// Undoes a successful [`Provider::pin_module`].
    pub(crate) fn unpin_module(&self) {
        // SAFETY: a pin taken by `pin_module` is released once.
        unsafe { sys::kfi_glue_module_put(self.p.owner) }
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        // SAFETY: we own one reference (taken in `reference`).
        unsafe { sys::kfi_glue_provider_put(self.p.as_ptr()) }
    }
}

pub(crate) use crate::logic::writer::BufWriter;

/// kmalloc'd copy of `text` with a NUL (for `kfi_tostr`'s result).
pub(crate) fn alloc_c_string(len: usize, fill: impl FnOnce(&mut [u8])) -> *mut c_char {
    // SAFETY: plain allocation, checked below.
    let p: *mut u8 = unsafe { sys::kfi_glue_zalloc(len + 1) }.cast();
    if p.is_null() {
        return ptr::null_mut();
    }
    // SAFETY: `p` is a fresh zeroed allocation of `len + 1` bytes.
    fill(unsafe { core::slice::from_raw_parts_mut(p, len + 1) });
    p.cast()
}

/// A pointer to a `'static`-for-its-lifetime object published by module init
/// and withdrawn by module exit (the registry mutex).
///
/// # Invariants
/// While non-NULL, `ptr` points to a live `T` that is only dropped after
/// [`Global::withdraw`]; exported functions cannot run after module exit
/// (no module can be linked to an unloaded one), so a reader never sees a
/// stale pointer.
pub(crate) struct Global<T> {
    ptr: core::sync::atomic::AtomicPtr<T>,
}

impl<T: Sync> Global<T> {
    pub(crate) const fn new() -> Self {
        Global { ptr: core::sync::atomic::AtomicPtr::new(ptr::null_mut()) }
    }

    /// Publishes `v`, which must stay alive until [`Global::withdraw`].
    pub(crate) fn publish(&self, v: Pin<&T>) {
        let p = v.get_ref() as *const T as *mut T;
        self.ptr.store(p, core::sync::atomic::Ordering::Release);
    }

    pub(crate) fn withdraw(&self) {
        self.ptr.store(ptr::null_mut(), core::sync::atomic::Ordering::Release);
    }

    pub(crate) fn get(&self) -> Option<&T> {
        let p = self.ptr.load(core::sync::atomic::Ordering::Acquire);
        // SAFETY: NULL or live until withdrawn (type invariant).
        unsafe { p.as_ref() }
    }
}

/// Validated arguments of one `kfi_getinfo` call.
///
/// # Invariants
/// `node`/`service` are NULL or valid strings and `hints` NULL or a valid
/// entry for `'a`; `node_text`/`hints_view` describe them.
pub(crate) struct GetinfoArgs<'a> {
    pub(crate) version: u32,
    pub(crate) flags: u64,
    pub(crate) node_text: Option<&'a [u8]>,
    pub(crate) hints_view: Option<Info<'a>>,
    node: *const c_char,
    service: *const c_char,
    hints: *mut kfi_info,
}

impl<'a> GetinfoArgs<'a> {
    /// # Safety
    /// `node`/`service` are NULL or valid strings and `hints` NULL or a valid
    /// entry for `'a`.
    pub(crate) unsafe fn new(
        version: u32,
        node: *const c_char,
        service: *const c_char,
        flags: u64,
        hints: *mut kfi_info,
    ) -> Self {
        // INVARIANT: validity is the caller's contract.
        GetinfoArgs {
            version,
            flags,
            // SAFETY: NULL or a valid string for 'a.
            node_text: unsafe { c_bytes(node) },
            // SAFETY: NULL or a valid entry for 'a.
            hints_view: unsafe { hints.as_ref() }.map(|h| unsafe { view(h) }),
            node,
            service,
            hints,
        }
    }
}

/// The provider name a fabric attribute asks for.
pub(crate) fn fabric_prov_name(attr: &sys::kfi_fabric_attr) -> Option<&[u8]> {
    // SAFETY: a valid attribute's `prov_name` is NULL or a valid string.
    unsafe { c_bytes(attr.prov_name) }
}

/// Keeps a provider module pinned for as long as a fabric it opened lives.
///
/// The fabric object is the provider's, and consumers close it with
/// `kfi_close(&fabric->fid)`, which calls the provider directly: the core is
/// not told. So the core interposes on that one call: the fabric's `fid.ops`
/// is pointed at a copy of the provider's table, living in this guard, whose
/// `close` restores the provider's table, lets the provider close the fabric
/// and then, from core code (the provider module may be unloaded as soon as
/// its pin is dropped), releases the pin and the provider reference.
#[repr(C)]
pub(crate) struct FabricGuard {
    pub(crate) ops: sys::kfi_ops,
    orig: *mut sys::kfi_ops,
    prov: Option<ProviderPtr>,
}

/// An allocated, not yet installed guard.
pub(crate) struct GuardBox(NonNull<FabricGuard>);

impl FabricGuard {
    /// Allocated before the provider is called, so installing cannot fail.
    pub(crate) fn alloc() -> Option<GuardBox> {
        zalloc::<FabricGuard>().map(GuardBox)
    }
}

impl GuardBox {
    /// Interposes on `fabric`'s close and sets its `api_version`; `p`'s
    /// reference and module pin now belong to the fabric.
    pub(crate) fn install(self, fabric: NonNull<kfid_fabric>, p: Provider, api_version: u32) -> *mut kfid_fabric {
        let g = self.0.as_ptr();
        core::mem::forget(self);
        let f = fabric.as_ptr();
        // SAFETY: `f` is the live fabric the provider just returned, with a
        // valid ops table (the kfid contract); `g` is our zeroed allocation.
        unsafe {
            (*g).orig = (*f).fid.ops;
            (*g).ops = *(*f).fid.ops;
            (*g).ops.close = Some(guarded_close);
            (*g).prov = Some(p.p);
            (*f).fid.ops = &mut (*g).ops;
            (*f).api_version = api_version;
        }
        core::mem::forget(p);
        f
    }
}

impl Drop for GuardBox {
    fn drop(&mut self) {
        free(self.0.as_ptr());
    }
}

/// `close` of a fabric opened through `kfi_fabric`.
unsafe extern "C" fn guarded_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: this function is only ever installed in a `FabricGuard`'s
    // `ops`, and `fid.ops` points at that field while it is installed, so
    // `container_of` yields the live guard.
    unsafe {
        let g = kernel::container_of!((*fid).ops, FabricGuard, ops) as *mut FabricGuard;
        let orig = (*g).orig;
        let Some(close) = (*orig).close else {
            return -(bindings::ENOSYS as c_int);
        };
        (*fid).ops = orig;
        let ret = close(fid);
        if ret != 0 {
            // Still open: keep interposing.
            (*fid).ops = &mut (*g).ops;
            return ret;
        }
        if let Some(p) = (*g).prov.take() {
            sys::kfi_glue_module_put(p.owner);
            sys::kfi_glue_provider_put(p.as_ptr());
        }
        free(g);
        0
    }
}

/// Creates `kfabric/info` in debugfs.
pub(crate) fn debugfs_init() {
    // SAFETY: called once from module init.
    unsafe { sys::kfi_glue_debugfs_init() };
}

/// Reports a broken internal invariant with a kernel WARNING (which fails
/// the test run). For paths that run once (module exit).
pub(crate) fn warn(what: &kernel::str::CStr) {
    // SAFETY: `what` is NUL-terminated; the glue only formats it.
    unsafe { sys::kfi_glue_warn(what.as_char_ptr().cast()) };
}

/// Whether `kfi_getinfo` logs why it leaves entries out (the
/// `getinfo_trace` parameter).
pub(crate) fn getinfo_trace() -> bool {
    // SAFETY: reads a module parameter; no precondition.
    unsafe { sys::kfi_glue_getinfo_trace() }
}

/// Removes the debugfs directory (module exit).
pub(crate) fn debugfs_exit() {
    // SAFETY: called once from module exit, after debugfs_init.
    unsafe { sys::kfi_glue_debugfs_exit() };
}
