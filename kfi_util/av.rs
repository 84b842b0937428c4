// SPDX-License-Identifier: GPL-2.0
//! The address vector (`kfi_av_open` on a domain), the same for every
//! provider: the domain ops table points `av_open` at
//! `kfi_util_domain_av_open`. It numbers peer addresses (IPv4 and IPv6
//! socket addresses, `struct sockaddr_in`/`sockaddr_in6`, each read at
//! its family's size) with handles, `kfi_addr_t`, as `logic::av`
//! describes: consecutive from 0, a duplicate gets its handle again
//! (counted), `rx_ctx_bits` top bits for `kfi_rx_addr`.
//!
//! Inserts are synchronous (`KFI_EVENT`, asynchronous inserts reported on
//! an EQ, is -KFI_ENOSYS, as are shared AVs by name or address): the
//! call returns the number of addresses inserted; a bad one (the
//! unspecified address is no peer) gets `KFI_ADDR_NOTAVAIL` as its handle
//! and, with `KFI_SYNC_ERR`, its error in the `context` array; one of an
//! unknown family ends the list (its size is unknown), the rest failing
//! the same way. `insertsvc` takes a numeric node (IPv4, IPv6
//! with an optional numeric zone) and a decimal service (the port): no
//! name resolution. `insertsym` steps the address and the port. Unknown
//! handles give -ENOENT. On a domain of NIC addresses (opened from an
//! info of format `KFI_ADDR_CXI`, `logic::nic`) consumers' addresses are
//! `struct kcxi_addr`s instead: `insert` reads 8 bytes each, `insertsvc`
//! takes a NIC address (`0x1f` or decimal) and an endpoint index,
//! `insertsym` steps both, `lookup` and `straddr` give them back; the
//! table holds the socket addresses they stand for.
//!
//! Locking: the table is under a BH spinlock (`table`): lookups and
//! removals may come from any context but hard interrupts (consumers
//! remove peers from reference-count release paths). Inserts are process
//! context, serialised by a mutex (`grow`), which lets them allocate the
//! bigger table outside the spinlock.

use super::addr::{self, SockAddr};
use super::base;
use super::fid::DomainBase;
use super::logic::av::{self as rules, AvError, Entry, Table};
use super::logic::nic::{self, Nic, NicNet};
use super::sys;
use core::ffi::{c_char, c_int, c_void};
use core::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use kernel::bindings;
use kernel::prelude::*;
use kernel::sync::Mutex;
use kernel::new_mutex;
use super::sync::{new_spinlock_bh, SpinLockBh};

/// Entries allocated at open at most (more grow on demand).
const MAX_INITIAL: usize = 4096;

/// `KFI_ADDR_NOTAVAIL` (bindgen renders `UINT64_MAX` as an `i32` -1).
const ADDR_NOTAVAIL: u64 = u64::MAX;

type Slots = base::Storage<Entry>;

/// An address vector: the consumer sees `av`.
#[pin_data]
#[repr(C)]
pub(crate) struct Av {
    av: sys::kfid_av,
    /// The domain's base: its child count holds this AV.
    domain: *const DomainBase,
    #[pin]
    table: SpinLockBh<Table<Slots>>,
    /// Serialises inserts (they may grow the table).
    #[pin]
    grow: Mutex<()>,
    /// Endpoints bound to it (`kfi_ep_bind`): it cannot close while any
    /// is.
    bound: AtomicUsize,
    /// Addresses inserted so far (wrapping): a connection from a peer
    /// that was not in the table looks for it again only after this
    /// changed ([`Av::inserted`]).
    inserts: AtomicU32,
}

fn err(e: AvError) -> c_int {
    base::neg(match e {
        AvError::Inval => bindings::EINVAL,
        AvError::NoEnt => bindings::ENOENT,
        AvError::Full => bindings::ENOMEM,
        AvError::TooMany => bindings::ENOSPC,
    })
}

impl Av {
    /// Recovers the object from its header.
    ///
    /// # Safety
    /// `av` is the header of a live `Av` (only our ops table, installed by
    /// `kfi_util_domain_av_open`, calls the functions that use this).
    unsafe fn from_header<'a>(av: *mut sys::kfid_av) -> &'a Av {
        // SAFETY: by the caller's contract.
        unsafe { &*kernel::container_of!(av, Av, av) }
    }

    /// The address of `handle` (receive context bits ignored). Any
    /// context but hard interrupts.
    pub(crate) fn lookup(&self, handle: u64) -> Option<SockAddr> {
        self.table.lock().lookup(handle).map(addr::sockaddr)
    }

    /// The handle of address `a`, if it is in the table (receive context
    /// 0).
    pub(crate) fn find(&self, a: &SockAddr) -> Option<u64> {
        self.table.lock().find(&addr::logic_addr(a))
    }

    /// The net of its domain's NIC addresses, if the domain names
    /// endpoints so: then consumers' addresses are `struct kcxi_addr`s.
    fn nic(&self) -> Option<&NicNet> {
        // SAFETY: the domain outlives its children (it counts this AV).
        unsafe { &*self.domain }.nic()
    }

    /// How many addresses were inserted so far (wrapping; any context):
    /// read before a [`Av::find`] that missed, a later value says it may
    /// find the address now.
    pub(crate) fn inserted(&self) -> u32 {
        self.inserts.load(Ordering::Acquire)
    }

    /// Its `rx_ctx_bits`.
    pub(crate) fn rx_ctx_bits(&self) -> u32 {
        self.table.lock().rx_ctx_bits()
    }

    /// Whether `fid` is one of the toolkit's AVs.
    ///
    /// # Safety
    /// `fid` is a valid object header.
    pub(crate) unsafe fn is_av(fid: *mut sys::kfid) -> bool {
        // SAFETY: valid by the caller's contract.
        unsafe { sys::kfi_util_is_av(fid) }
    }

    /// The AV of `fid`.
    ///
    /// # Safety
    /// `fid` is the header of a live AV ([`Av::is_av`]).
    pub(crate) unsafe fn from_fid<'a>(fid: *mut sys::kfid) -> &'a Av {
        // SAFETY: the fid is the first field of the header (caller's
        // contract: one of ours).
        unsafe { &*kernel::container_of!(fid, Av, av.fid) }
    }

    /// An endpoint binds it.
    pub(crate) fn bind(&self) {
        self.bound.fetch_add(1, Ordering::AcqRel);
    }

    /// An endpoint bound to it closed.
    pub(crate) fn unbind(&self) {
        self.bound.fetch_sub(1, Ordering::AcqRel);
    }

    /// Inserts one address (process context, `grow` held): its handle.
    fn insert_one(&self, a: &SockAddr) -> core::result::Result<u64, c_int> {
        let a = addr::logic_addr(a);
        // Not a peer.
        if a.is_any() {
            return Err(base::neg(bindings::EINVAL));
        }
        loop {
            let want = {
                let mut t = self.table.lock();
                match t.insert(&a) {
                    Err(AvError::Full) => t.needs_room(),
                    Ok(h) => {
                        // After the entry is in: whoever sees the new
                        // count finds it.
                        self.inserts.fetch_add(1, Ordering::Release);
                        return Ok(h);
                    }
                    Err(e) => return Err(err(e)),
                }
            };
            let Some(n) = want else {
                return Err(base::neg(bindings::ENOMEM));
            };
            let Ok(v) = KVVec::from_elem(Entry::default(), n, GFP_KERNEL) else {
                return Err(base::neg(bindings::ENOMEM));
            };
            // The old storage is freed after the lock (its drop may sleep:
            // kvfree).
            let old = self.table.lock().move_to(base::Storage(v));
            drop(old);
        }
    }

    /// Inserts each address, writing its handle (`KFI_ADDR_NOTAVAIL` and
    /// its error in `errs` for a bad one); the number inserted.
    fn insert_all(
        &self,
        mut next: impl FnMut(usize) -> core::result::Result<SockAddr, c_int>,
        count: usize,
        handles: *mut u64,
        errs: *mut c_int,
    ) -> c_int {
        let _g = self.grow.lock();
        let mut done = 0;
        for i in 0..count {
            let r = next(i).and_then(|a| self.insert_one(&a));
            let (h, e) = match r {
                Ok(h) => {
                    done += 1;
                    (h, 0)
                }
                Err(e) => (ADDR_NOTAVAIL, e),
            };
            // SAFETY: the caller's arrays hold `count` entries (or are
            // NULL).
            unsafe {
                if !handles.is_null() {
                    *handles.add(i) = h;
                }
                if !errs.is_null() {
                    *errs.add(i) = e;
                }
            }
        }
        c_int::try_from(done).unwrap_or(c_int::MAX)
    }
}

/// The insert flags taken: `KFI_SYNC_ERR` (per-address errors in the
/// `context` array), `KFI_MORE` (a hint). `Err` for anything else
/// (`KFI_EVENT`: -KFI_ENOSYS).
fn insert_flags(flags: u64, context: *mut c_void) -> core::result::Result<*mut c_int, c_int> {
    if flags & sys::KFI_EVENT as u64 != 0 {
        return Err(-(sys::KFI_ENOSYS as c_int));
    }
    if flags & !(sys::KFI_SYNC_ERR as u64 | sys::KFI_MORE as u64) != 0 {
        return Err(base::neg(bindings::EINVAL));
    }
    if flags & sys::KFI_SYNC_ERR as u64 != 0 {
        if context.is_null() {
            return Err(base::neg(bindings::EINVAL));
        }
        return Ok(context.cast());
    }
    Ok(core::ptr::null_mut())
}

/// A formatted address (`straddr`), at most 80 bytes.
struct Text {
    b: [u8; 80],
    n: usize,
}

impl core::fmt::Write for Text {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let end = self.n.checked_add(s.len()).filter(|&e| e <= self.b.len()).ok_or(core::fmt::Error)?;
        self.b[self.n..end].copy_from_slice(s.as_bytes());
        self.n = end;
        Ok(())
    }
}

/// The domain ops table's `av_open`: -EINVAL for a bad type, rx_ctx_bits
/// or flag; -KFI_ENOSYS for what is not done (shared AVs, `KFI_EVENT`).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_domain_av_open(
    domain: *mut sys::kfid_domain,
    attr: *mut sys::kfi_av_attr,
    av: *mut *mut sys::kfid_av,
    context: *mut c_void,
) -> c_int {
    // SAFETY: NULL or the consumer's attributes, valid for the call.
    let (Some(attr), false, false) = (unsafe { attr.as_ref() }, domain.is_null(), av.is_null()) else {
        return base::neg(bindings::EINVAL);
    };
    if !matches!(attr.type_, sys::KFI_AV_UNSPEC | sys::KFI_AV_MAP | sys::KFI_AV_TABLE) {
        return base::neg(bindings::EINVAL);
    }
    if !attr.name.is_null() || !attr.map_addr.is_null() || attr.flags & sys::KFI_EVENT as u64 != 0 {
        return -(sys::KFI_ENOSYS as c_int);
    }
    if attr.flags & !(sys::KFI_SYMMETRIC as u64) != 0 {
        return base::neg(bindings::EINVAL);
    }
    let n = attr.count.min(MAX_INITIAL);
    let Ok(v) = KVVec::from_elem(Entry::default(), n, GFP_KERNEL) else {
        return base::neg(bindings::ENOMEM);
    };
    let table = match Table::new(base::Storage(v), attr.rx_ctx_bits) {
        Ok(t) => t,
        Err(e) => return err(e),
    };
    // SAFETY: `domain` is one of the provider's domains (only its domain
    // ops table calls us), which embed the base first.
    let d = unsafe { DomainBase::from_header(domain) };
    let init = pin_init!(Av {
        // SAFETY: all-zero is a valid header; filled in below.
        av: unsafe { core::mem::zeroed() },
        domain: d,
        table <- new_spinlock_bh!(table, "kfi_util_av"),
        grow <- new_mutex!((), "kfi_util_av_grow"),
        bound: AtomicUsize::new(0),
        inserts: AtomicU32::new(0),
    });
    let b = match KBox::pin_init(init, GFP_KERNEL) {
        Ok(b) => b,
        Err(_) => return base::neg(bindings::ENOMEM),
    };
    // SAFETY: the object stays pinned: it is only ever freed in place by
    // `kfi_util_av_close`, never moved.
    let p = KBox::into_raw(unsafe { Pin::into_inner_unchecked(b) });
    d.children.opened();
    // SAFETY: `p` is our fresh object.
    unsafe {
        sys::kfi_util_av_init(&mut (*p).av, context);
        *av = &mut (*p).av;
    }
    0
}

/// `close` of an address vector: -EBUSY while an endpoint is bound to it.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_av_close(fid: *mut sys::kfid) -> c_int {
    // SAFETY: only installed on AVs made by `kfi_util_domain_av_open`.
    if unsafe { Av::from_fid(fid) }.bound.load(Ordering::Acquire) != 0 {
        return base::neg(bindings::EBUSY);
    }
    // SAFETY: only installed on AVs made by `kfi_util_domain_av_open`
    // (KBox); the header starts with this fid. The consumer gave up its
    // pointer.
    let a = unsafe { KBox::from_raw(kernel::container_of!(fid, Av, av.fid) as *mut Av) };
    let d = a.domain;
    drop(a);
    // SAFETY: the domain outlives its counted children.
    unsafe { (*d).children.closed() };
    0
}

/// `insert`: `count` socket addresses, one after the other (each of its
/// family's size).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_av_insert(
    av: *mut sys::kfid_av,
    addr: *const c_void,
    count: usize,
    kfi_addr: *mut u64,
    flags: u64,
    context: *mut c_void,
) -> c_int {
    let errs = match insert_flags(flags, context) {
        Ok(e) => e,
        Err(e) => return e,
    };
    if count == 0 {
        return 0;
    }
    if addr.is_null() || c_int::try_from(count).is_err() {
        return base::neg(bindings::EINVAL);
    }
    // SAFETY: the AV ops table calls us with one of its AVs.
    let av = unsafe { Av::from_header(av) };
    if let Some(net) = av.nic() {
        // `struct kcxi_addr`s, 8 bytes each.
        let next = |i: usize| {
            // SAFETY: the consumer's array holds `count` addresses.
            let n = unsafe { addr::read_cxi(addr.cast::<u8>().add(i * sys::KFI_UTIL_CXI_ADDR_LEN as usize).cast()) };
            n.ok_or(EINVAL).and_then(|n| addr::nic_sockaddr(net, n)).map_err(|e| e.to_errno())
        };
        return av.insert_all(next, count, kfi_addr, errs);
    }
    let mut at = addr.cast::<u8>();
    let mut end = None;
    let next = |_| {
        if let Some(e) = end {
            return Err(e);
        }
        // SAFETY: the consumer's array holds `count` addresses; each is
        // read at its family's size.
        match unsafe { addr::read_addr(at.cast(), 0) } {
            Ok(a) => {
                // SAFETY: within the consumer's array (the address just
                // read).
                at = unsafe { at.add(sys_len(&a)) };
                Ok(a)
            }
            Err(e) => {
                // An unknown family: where the next one starts is unknown.
                end = Some(e.to_errno());
                Err(e.to_errno())
            }
        }
    };
    av.insert_all(next, count, kfi_addr, errs)
}

/// The consumer's size of `a` (`sockaddr_in` or `sockaddr_in6`).
fn sys_len(a: &SockAddr) -> usize {
    // SAFETY: plain function of the family.
    unsafe { sys::kfi_util_addr_len(u32::from(a.family)) }
}

/// The strings and the error array of `insertsvc`/`insertsym`.
///
/// # Safety
/// `node` and `service` are NULL or NUL-terminated strings readable
/// during the call.
unsafe fn svc_args<'a>(
    node: *const c_char,
    service: *const c_char,
    flags: u64,
    context: *mut c_void,
) -> core::result::Result<(&'a [u8], &'a [u8], *mut c_int), c_int> {
    // SAFETY: by the caller's contract.
    let (Some(node), Some(service)) = (unsafe { base::c_bytes(node) }, unsafe { base::c_bytes(service) }) else {
        return Err(base::neg(bindings::EINVAL));
    };
    Ok((node, service, insert_flags(flags, context)?))
}

/// `insertsvc`'s node and service on a domain of NIC addresses: the NIC
/// address (`0x1f` or decimal) and the endpoint index (decimal); -EINVAL
/// otherwise.
fn svc_nic(node: &[u8], service: &[u8]) -> core::result::Result<Nic, c_int> {
    match (nic::parse_nic(node), nic::parse_pid(service)) {
        (Some(nic), Some(pid)) => Ok(Nic { nic, pid }),
        _ => Err(base::neg(bindings::EINVAL)),
    }
}

/// `insertsvc`: a numeric node and a decimal service (on a domain of NIC
/// addresses: a NIC address and an endpoint index); 1 (inserted).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_av_insertsvc(
    av: *mut sys::kfid_av,
    node: *const c_char,
    service: *const c_char,
    kfi_addr: *mut u64,
    flags: u64,
    context: *mut c_void,
) -> c_int {
    // SAFETY: NULL or the consumer's strings.
    let (node, service, errs) = match unsafe { svc_args(node, service, flags, context) } {
        Ok(v) => v,
        Err(e) => return e,
    };
    // SAFETY: the AV ops table calls us with one of its AVs.
    let av = unsafe { Av::from_header(av) };
    let a = match av.nic() {
        Some(net) => svc_nic(node, service).and_then(|n| addr::nic_sockaddr(net, n).map_err(|e| e.to_errno())),
        None => rules::parse_svc(node, service).map(addr::sockaddr).map_err(err),
    };
    let mut e: c_int = 0;
    let errs = if errs.is_null() { &mut e as *mut c_int } else { errs };
    if av.insert_all(|_| a, 1, kfi_addr, errs) == 1 {
        return 1;
    }
    // SAFETY: written by `insert_all` (one entry).
    unsafe { *errs }
}

/// `insertsym`: `nodecnt` addresses from `node` on, each with `svccnt`
/// ports from `service` on (node-major).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_av_insertsym(
    av: *mut sys::kfid_av,
    node: *const c_char,
    nodecnt: usize,
    service: *const c_char,
    svccnt: usize,
    kfi_addr: *mut u64,
    flags: u64,
    context: *mut c_void,
) -> c_int {
    // SAFETY: NULL or the consumer's strings.
    let (node, service, errs) = match unsafe { svc_args(node, service, flags, context) } {
        Ok(v) => v,
        Err(e) => return e,
    };
    // SAFETY: the AV ops table calls us with one of its AVs.
    let av = unsafe { Av::from_header(av) };
    let Some(count) = nodecnt.checked_mul(svccnt).filter(|&c| c_int::try_from(c).is_ok()) else {
        return base::neg(bindings::EINVAL);
    };
    if let Some(net) = av.nic() {
        // NIC addresses from `node` on, each with endpoint indices from
        // `service` on.
        let first = match svc_nic(node, service) {
            Ok(n) => n,
            Err(e) => return e,
        };
        if count == 0 {
            return 0;
        }
        let next = |i: usize| {
            let nic = u32::try_from(i / svccnt).ok().and_then(|d| first.nic.checked_add(d));
            let pid = u16::try_from(i % svccnt).ok().and_then(|d| first.pid.checked_add(d));
            match (nic, pid) {
                (Some(nic), Some(pid)) => addr::nic_sockaddr(net, Nic { nic, pid }).map_err(|e| e.to_errno()),
                _ => Err(base::neg(bindings::EINVAL)),
            }
        };
        return av.insert_all(next, count, kfi_addr, errs);
    }
    let first = match rules::parse_svc(node, service) {
        Ok(a) => a,
        Err(e) => return err(e),
    };
    if count == 0 {
        return 0;
    }
    let next = |i: usize| {
        rules::sym_addr(&first, (i / svccnt) as u64, (i % svccnt) as u64).map(addr::sockaddr).map_err(err)
    };
    av.insert_all(next, count, kfi_addr, errs)
}

/// `remove`: one use of each handle; -ENOENT (and nothing removed) if
/// one names no entry.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_av_remove(
    av: *mut sys::kfid_av,
    kfi_addr: *mut u64,
    count: usize,
    flags: u64,
) -> c_int {
    if flags != 0 || (kfi_addr.is_null() && count != 0) {
        return base::neg(bindings::EINVAL);
    }
    if count == 0 {
        return 0;
    }
    // SAFETY: the consumer's array of `count` handles.
    let hs = unsafe { core::slice::from_raw_parts(kfi_addr, count) };
    // SAFETY: the AV ops table calls us with one of its AVs.
    let av = unsafe { Av::from_header(av) };
    let mut t = av.table.lock();
    // All or nothing: every handle checked first (a handle given twice
    // needs two uses).
    for (i, &h) in hs.iter().enumerate() {
        let again = hs[..i].iter().filter(|&&p| t.index(p) == t.index(h)).count();
        let ok = t.lookup(h).is_some() && again < t.uses(h) as usize;
        if !ok {
            return base::neg(bindings::ENOENT);
        }
    }
    for &h in hs {
        let _ = t.remove(h);
    }
    0
}

/// `lookup`: the address of a handle in the consumer's form, truncated
/// to `*addrlen`; `*addrlen` becomes its full size.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_av_lookup(
    av: *mut sys::kfid_av,
    handle: u64,
    addr: *mut c_void,
    addrlen: *mut usize,
) -> c_int {
    // SAFETY: NULL or the consumer's length.
    let Some(len) = (unsafe { addrlen.as_mut() }) else {
        return base::neg(bindings::EINVAL);
    };
    // SAFETY: the AV ops table calls us with one of its AVs.
    let av = unsafe { Av::from_header(av) };
    let Some(a) = av.lookup(handle) else {
        return base::neg(bindings::ENOENT);
    };
    let mut buf = [0u8; sys::KFI_UTIL_SOCKADDR_MAX as usize];
    let n = addr::encode_name(av.nic(), &a, &mut buf);
    let k = n.min(*len);
    if k != 0 {
        if addr.is_null() {
            return base::neg(bindings::EINVAL);
        }
        // SAFETY: the consumer's buffer holds `*len` bytes.
        unsafe { core::ptr::copy_nonoverlapping(buf.as_ptr(), addr.cast::<u8>(), k) };
    }
    *len = n;
    0
}

/// `straddr`: `addr` (a socket address) as text in `buf` (truncated to
/// `*len` with its NUL); `*len` becomes the full length with the NUL.
/// `buf`, or NULL for a bad address.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_av_straddr(
    av: *mut sys::kfid_av,
    addr: *const c_void,
    buf: *mut c_char,
    len: *mut usize,
) -> *const c_char {
    // SAFETY: NULL or the consumer's length.
    let Some(len) = (unsafe { len.as_mut() }) else {
        return core::ptr::null();
    };
    let mut w = Text { b: [0; 80], n: 0 };
    // SAFETY: the AV ops table calls us with one of its AVs.
    if unsafe { Av::from_header(av) }.nic().is_some() {
        // A `struct kcxi_addr`, as the cxi provider writes it.
        if addr.is_null() {
            return core::ptr::null();
        }
        // SAFETY: the consumer's address: 8 bytes, any alignment.
        let qw = unsafe { addr.cast::<u64>().read_unaligned() };
        if core::fmt::Write::write_fmt(&mut w, format_args!("fi_addr_cxi://0x{:016x}", qw)).is_err() {
            return core::ptr::null();
        }
    } else {
        // SAFETY: the consumer's address, read at its family's size.
        let Ok(a) = (unsafe { addr::read_addr(addr, 0) }) else {
            return core::ptr::null();
        };
        if rules::write_addr(&mut w, &addr::logic_addr(&a)).is_err() {
            return core::ptr::null();
        }
    }
    let text = &w.b[..w.n];
    if *len != 0 {
        if buf.is_null() {
            return core::ptr::null();
        }
        let k = text.len().min(*len - 1);
        // SAFETY: the consumer's buffer holds `*len` bytes.
        unsafe {
            core::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), k);
            *buf.add(k) = 0;
        }
    }
    *len = text.len() + 1;
    buf
}
