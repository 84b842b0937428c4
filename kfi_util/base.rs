// SPDX-License-Identifier: GPL-2.0
//! The toolkit's FFI layer: RAII wrappers over the kernel objects every
//! provider uses (its registration, workqueue, delayed work, timers,
//! buffer lists, `kfi_info` lists, the namespace's interface list) and
//! small helpers. Every `unsafe` block states the contract it relies on;
//! the C side is `kfi_util_glue.c`.

use super::logic::plan::{Family, Iface};
use super::sys;
use core::ffi::{c_char, c_int, c_uint, c_void};
use core::ptr::{self, NonNull};
use kernel::bindings;
use kernel::prelude::*;
use sys::kfi_info;

/// Bytes of a C string, without the NUL; `None` for NULL.
///
/// # Safety
/// `s` is NULL or a valid NUL-terminated string for `'a`.
pub(crate) unsafe fn c_bytes<'a>(s: *const c_char) -> Option<&'a [u8]> {
    if s.is_null() {
        return None;
    }
    // SAFETY: non-NULL and NUL-terminated for 'a (caller's contract).
    Some(unsafe { core::ffi::CStr::from_ptr(s) }.to_bytes())
}

/// The registered provider: allocated, registered with the core on
/// creation, deregistered (waiting until unused) and freed on drop.
///
/// # Invariants
/// `prov` is a live allocation registered with the core until drop.
pub(crate) struct Registration {
    prov: NonNull<sys::kfi_provider>,
}

// SAFETY: the provider structure is shared with the core by design; we only
// free it after deregistration returned.
unsafe impl Send for Registration {}
// SAFETY: as above; `&Registration` gives no access to it.
unsafe impl Sync for Registration {}

impl Registration {
    /// Registers `p` (allocated here, so that its address is stable).
    pub(crate) fn new(p: sys::kfi_provider) -> Result<Self> {
        let b = KBox::new(p, GFP_KERNEL)?;
        let prov = NonNull::from(KBox::leak(b));
        // SAFETY: `prov` is valid until we free it in drop, after
        // deregistration; the owner is this module.
        let ret = unsafe { sys::__kfi_provider_register(prov.as_ptr(), sys::kfi_util_this_module()) };
        if ret != 0 {
            // SAFETY: not registered: still exclusively ours.
            drop(unsafe { KBox::from_raw(prov.as_ptr()) });
            return Err(Error::from_errno(ret));
        }
        // SAFETY: registered, live until drop; its name is a valid C
        // string (ours). The statistics' directory is removed in drop.
        unsafe { sys::kfi_util_stats_init((*prov.as_ptr()).name) };
        Ok(Registration { prov })
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        // SAFETY: registered by `new`; deregister returns once the core
        // holds no reference any more.
        let ret = unsafe { sys::kfi_provider_deregister(self.prov.as_ptr()) };
        if ret != 0 {
            warn_once!("provider deregistration failed");
            return; // leak rather than free what the core may still use
        }
        // SAFETY: no domain is open (deregistration waited for them).
        unsafe { sys::kfi_util_stats_exit() };
        // SAFETY: allocated by `new`, unused by the core now.
        drop(unsafe { KBox::from_raw(self.prov.as_ptr()) });
    }
}

/// The provider's workqueue (one per provider module: its connections,
/// listeners, counter and CQ work items), allocated at module init and
/// destroyed at exit.
///
/// # Invariants
/// At most one exists; work items are only queued while it does.
pub(crate) struct WorkQueue(());

impl WorkQueue {
    pub(crate) fn new() -> Result<Self> {
        // SAFETY: module init, before anything can queue work.
        kernel::error::to_result(unsafe { sys::kfi_util_wq_init() })?;
        Ok(WorkQueue(()))
    }
}

impl Drop for WorkQueue {
    fn drop(&mut self) {
        // SAFETY: the provider is deregistered: no fabric, hence no
        // endpoint, pep or connection is left to queue work.
        unsafe { sys::kfi_util_wq_exit() }
    }
}

/// The provider's device for the DMA API (`kfi_util_dma_device`: what
/// its domains name through the cxi extension's `get_device` when it has
/// no device of its own), registered at module init and removed at exit.
///
/// # Invariants
/// At most one exists; it outlives every domain (the provider's
/// registration, which waits for them, is dropped first).
pub(crate) struct DmaDevice(());

impl DmaDevice {
    pub(crate) fn new(name: &'static core::ffi::CStr) -> Result<Self> {
        // SAFETY: module init; registers the device `drop` removes.
        kernel::error::to_result(unsafe { sys::kfi_util_dma_device_init(name.as_ptr()) })?;
        Ok(DmaDevice(()))
    }
}

impl Drop for DmaDevice {
    fn drop(&mut self) {
        // SAFETY: module exit, after deregistration (no domain is open):
        // removes what `new` registered.
        unsafe { sys::kfi_util_dma_device_exit() }
    }
}

/// The provider's workqueue.
pub(crate) fn queue() -> &'static kernel::workqueue::Queue {
    // SAFETY: valid while a `WorkQueue` exists (invariant), which is for
    // as long as any connection or listener can run.
    unsafe { kernel::workqueue::Queue::from_raw(sys::kfi_util_wq().cast::<bindings::workqueue_struct>().cast_const()) }
}

/// The provider's workqueue for work that waits for the other's work items
/// (`kfi_util_cm_wq`).
pub(crate) fn cm_queue() -> &'static kernel::workqueue::Queue {
    // SAFETY: as `queue`: allocated with it, freed with it.
    unsafe { kernel::workqueue::Queue::from_raw(sys::kfi_util_cm_wq().cast::<bindings::workqueue_struct>().cast_const()) }
}

/// Queues a work item on the provider's workqueue: on `cpu` when given
/// (an online CPU, `KFI_AFFINITY`), else on the local CPU. Nothing if it
/// is queued already.
pub(crate) fn enqueue_on<W>(cpu: Option<u32>, w: W)
where
    W: kernel::workqueue::RawWorkItem<0, EnqueueOutput = core::result::Result<(), W>> + Send + 'static,
{
    let Some(cpu) = cpu else {
        let _ = queue().enqueue(w);
        return;
    };
    // SAFETY: returns the provider's workqueue, live while any work item
    // of it can be queued (see `queue`).
    let wq = unsafe { sys::kfi_util_wq() }.cast::<bindings::workqueue_struct>();
    // SAFETY: `__enqueue` hands the closure a valid work_struct pointer
    // (its contract); the workqueue is live (see `queue`); queue_work_on
    // returns whether it took the item, as `__enqueue` requires.
    let _ = unsafe { w.__enqueue(move |work| bindings::queue_work_on(cpu as c_int, wq, work)) };
}

/// A random number (`get_random_u32`; not for cryptography).
pub(crate) fn random_u32() -> u32 {
    // SAFETY: no arguments, any context.
    unsafe { sys::kfi_util_random_u32() }
}

/// The kernel's tick counter.
pub(crate) fn jiffies() -> u64 {
    // SAFETY: reads a counter.
    u64::from(unsafe { sys::kfi_util_jiffies() })
}

/// The end of a consumer's wait of `timeout` milliseconds (negative:
/// none), by the monotonic clock: ticks can come late and then several at
/// once (an emulator under load), so a wait of so many jiffies may end
/// early; waiting for [`Deadline::left`] until it is 0 waits at least the
/// time asked for.
pub(crate) struct Deadline(Option<kernel::time::Ktime>);

impl Deadline {
    pub(crate) fn new(timeout: core::ffi::c_int) -> Deadline {
        Deadline((timeout >= 0).then(|| {
            let now = kernel::time::Ktime::ktime_get().to_ns();
            kernel::time::Ktime::from_raw(now.saturating_add(i64::from(timeout) * 1_000_000))
        }))
    }

    /// The jiffies left to wait: 0 once past the end, at least 1 before
    /// it; `Jiffies::MAX` for no end.
    pub(crate) fn left(&self) -> kernel::time::Jiffies {
        let Some(end) = self.0 else {
            return kernel::time::Jiffies::MAX;
        };
        let ns = end.to_ns() - kernel::time::Ktime::ktime_get().to_ns();
        if ns <= 0 {
            return 0;
        }
        let ms = u32::try_from((ns as u64).div_ceil(1_000_000)).unwrap_or(u32::MAX);
        kernel::time::msecs_to_jiffies(ms).max(1)
    }
}

/// Lets one warning of a kind through per [`WarnLimit::PERIOD_MS`]: for
/// conditions a peer can cause at will, so that it cannot flood the log.
pub(crate) struct WarnLimit(core::sync::atomic::AtomicU64);

impl WarnLimit {
    /// Milliseconds between two warnings of a kind.
    const PERIOD_MS: u32 = 5000;

    pub(crate) const fn new() -> WarnLimit {
        WarnLimit(core::sync::atomic::AtomicU64::new(0))
    }

    /// Whether to warn now (and then not again for the period).
    pub(crate) fn allow(&self) -> bool {
        use core::sync::atomic::Ordering::Relaxed;
        let now = jiffies().max(1);
        let last = self.0.load(Relaxed);
        let period = kernel::time::msecs_to_jiffies(Self::PERIOD_MS) as u64;
        if last != 0 && now.wrapping_sub(last) < period {
            return false;
        }
        // One of several racing callers wins.
        self.0.compare_exchange(last, now, Relaxed, Relaxed).is_ok()
    }
}

/// Sleeps for about a millisecond (a tick or two).
///
/// Context: process context.
pub(crate) fn sleep_briefly() {
    // SAFETY: callers are in process context (their contract).
    unsafe { bindings::msleep(1) }
}

/// A kmalloc'd copy of `bytes` with a NUL (for kfi_info strings).
pub(crate) fn kstrdup(bytes: &[u8]) -> Result<*mut c_char> {
    // SAFETY: `bytes` is valid for its length; kstrndup stops at `len`.
    let p = unsafe { sys::kfi_util_strndup(bytes.as_ptr().cast(), bytes.len()) };
    if p.is_null() {
        Err(ENOMEM)
    } else {
        Ok(p)
    }
}

/// A kmalloc'd copy of `bytes`.
pub(crate) fn kmemdup(bytes: &[u8]) -> Result<*mut c_void> {
    // SAFETY: `bytes` is valid for its length.
    let p = unsafe { sys::kfi_util_memdup(bytes.as_ptr().cast(), bytes.len()) };
    if p.is_null() {
        Err(ENOMEM)
    } else {
        Ok(p)
    }
}

/// An owned list of `kfi_info` entries being built for `kgetinfo`; freed
/// with `kfi_freeinfo` unless handed to the caller.
///
/// # Invariants
/// `head` is NULL or a list of `count` entries allocated with
/// `kfi_allocinfo`, owned by us.
pub(crate) struct InfoList {
    head: *mut kfi_info,
    count: usize,
}

impl InfoList {
    pub(crate) fn new() -> Self {
        InfoList { head: ptr::null_mut(), count: 0 }
    }

    /// Appends a fresh entry (every attribute allocated) and returns it to
    /// be filled in.
    pub(crate) fn push(&mut self) -> Result<&mut kfi_info> {
        // SAFETY: plain allocation through the core.
        let e = unsafe { sys::kfi_allocinfo() };
        if e.is_null() {
            return Err(ENOMEM);
        }
        let mut link: *mut *mut kfi_info = &mut self.head;
        // SAFETY: walking our own list (invariant); lists are short.
        unsafe {
            while !(*link).is_null() {
                link = &mut (**link).next;
            }
            *link = e;
        }
        self.count += 1;
        // SAFETY: `e` is a valid entry owned by the list, borrowed mutably
        // for as long as `self`.
        Ok(unsafe { &mut *e })
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Hands the list over (to the core, which gives it to the consumer).
    pub(crate) fn into_raw(self) -> *mut kfi_info {
        let h = self.head;
        core::mem::forget(self);
        h
    }
}

impl Drop for InfoList {
    fn drop(&mut self) {
        // SAFETY: our own list (invariant), freed once.
        unsafe { sys::kfi_freeinfo(self.head) }
    }
}

/// The addresses of the caller's network namespace, IPv4 and IPv6, up to
/// `KFI_UTIL_MAX_IFACES` (`kfi_util_ifaces()`).
pub(crate) struct Ifaces {
    list: KBox<[sys::kfi_util_iface; sys::KFI_UTIL_MAX_IFACES as usize]>,
    n: usize,
}

impl Ifaces {
    /// Reads the interface list of the calling task's network namespace.
    pub(crate) fn read() -> Result<Self> {
        // SAFETY: all-zero is a valid `kfi_util_iface` array (bytes/bool).
        let mut list: KBox<[sys::kfi_util_iface; sys::KFI_UTIL_MAX_IFACES as usize]> =
            KBox::new(unsafe { core::mem::zeroed() }, GFP_KERNEL)?;
        let max = sys::KFI_UTIL_MAX_IFACES as c_int;
        // SAFETY: `list` has room for `max` entries.
        let n = unsafe { sys::kfi_util_ifaces(list.as_mut_ptr(), max) };
        Ok(Ifaces { list, n: n.clamp(0, max) as usize })
    }

    /// The interfaces as the logic sees them.
    pub(crate) fn views(&self) -> impl Iterator<Item = Iface<'_>> {
        self.list[..self.n].iter().map(|i| Iface {
            name: name_bytes(&i.name),
            index: u32::try_from(i.index).unwrap_or(0),
            family: if u32::from(i.family) == bindings::AF_INET6 {
                Family::V6
            } else {
                Family::V4
            },
            addr: i.addr,
            prefix: i.prefix,
            up: i.up,
        })
    }
}

/// A NUL-padded C char array as bytes (up to the first NUL).
pub(crate) fn name_bytes(a: &[c_char]) -> &[u8] {
    let len = a.iter().position(|&c| c == 0).unwrap_or(a.len());
    // SAFETY: `c_char` and `u8` have the same size and alignment; the
    // slice stays within `a`.
    unsafe { core::slice::from_raw_parts(a.as_ptr().cast::<u8>(), len) }
}

/// The consumer's CM data (`param`, `paramlen`): `None` for a NULL
/// pointer with a non-zero length.
///
/// # Safety
/// `param` is NULL or readable for `len` bytes, for `'a`.
pub(crate) unsafe fn param_bytes<'a>(param: *const c_void, len: usize) -> Option<&'a [u8]> {
    if len == 0 {
        return Some(&[]);
    }
    if param.is_null() {
        return None;
    }
    // SAFETY: readable for `len` bytes (caller's contract).
    Some(unsafe { core::slice::from_raw_parts(param.cast::<u8>(), len) })
}

/// Reports a broken internal invariant with a kernel WARNING (which fails
/// the test run) the first time this call site sees it. Usable in any
/// context, with locks held.
macro_rules! warn_once {
    ($what:literal) => {{
        static WARNED: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);
        if !WARNED.swap(true, core::sync::atomic::Ordering::Relaxed) {
            $crate::util::base::warn(kernel::c_str!($what));
        }
    }};
}
pub(crate) use warn_once;

/// The WARNING of [`warn_once!`].
pub(crate) fn warn(what: &kernel::str::CStr) {
    // SAFETY: `what` is NUL-terminated; the glue only formats it.
    unsafe { sys::kfi_util_warn(what.as_char_ptr().cast()) };
}

/// Negative errno as the C ABI wants it.
pub(crate) fn neg(e: u32) -> c_int {
    -(e as c_int)
}

/// `-EINVAL`, the most common answer to a bad argument.
pub(crate) fn einval() -> c_int {
    neg(bindings::EINVAL)
}

/// The number of possible CPUs.
pub(crate) fn nr_cpus() -> usize {
    // SAFETY: reads a constant of the kernel.
    unsafe { sys::kfi_util_nr_cpus() as usize }
}

/// A vector of `n` copies of `v` (process context).
pub(crate) fn kvec_filled<T: Clone>(v: T, n: usize) -> Result<KVec<T>> {
    let mut out = KVec::with_capacity(n, GFP_KERNEL)?;
    for _ in 0..n {
        out.push(v.clone(), GFP_KERNEL)?;
    }
    Ok(out)
}

/// `len` zero bytes, zeroed by the allocator (`__GFP_ZERO`, a `memset`):
/// `from_elem(0u8, ..)` writes them one at a time, about three
/// instructions a byte (`make iprof` counted 12 million to set up one
/// kfi_verbs RDM connection's 4 MiB of packet buffers). `flags` as for
/// any allocation of `A` (`Kmalloc`: `KVec`, `Vmalloc`, `KVmalloc`).
/// (kfi_verbs' packet buffers, kfi_tcp's frame batch.)
pub(crate) fn zeroed_bytes<A: kernel::alloc::Allocator>(len: usize, flags: kernel::alloc::Flags) -> Result<kernel::alloc::Vec<u8, A>> {
    let mut v = kernel::alloc::Vec::<u8, A>::with_capacity(len, flags | __GFP_ZERO)?;
    // SAFETY: the allocation holds at least `len` bytes, all zeroed by the
    // allocator (`__GFP_ZERO`), and zero is a valid `u8`.
    unsafe { v.set_len(len) };
    Ok(v)
}

/// Removes and returns `v[i]`, keeping the order of the rest (6.12's
/// `KVec`/`KVVec` have neither `remove` nor `pop`); `None` if out of range.
pub(crate) fn kvec_remove<T, A: kernel::alloc::Allocator>(v: &mut kernel::alloc::Vec<T, A>, i: usize) -> Option<T> {
    if i >= v.len() {
        return None;
    }
    v[i..].rotate_left(1);
    let n = v.len() - 1;
    // SAFETY: index `n` is initialised; after the read the length excludes
    // it, so it is neither dropped nor read again.
    unsafe {
        let e = ptr::read(v.as_ptr().add(n));
        v.set_len(n);
        Some(e)
    }
}

/// The text of a kfabric error number (`kfi_strerror`), copied into `buf`
/// (NUL-terminated, cut to `len`) when one is given; returns `buf`, or the
/// core's constant string when `buf` is NULL or `len` is 0.
///
/// # Safety
/// `buf` is NULL or writable for `len` bytes.
pub(crate) unsafe fn strerror_into(errno: c_int, buf: *mut c_char, len: usize) -> *const c_char {
    // SAFETY: the core's constant strings, for any number.
    let s = unsafe { sys::kfi_strerror(errno) };
    if buf.is_null() || len == 0 {
        return s;
    }
    // SAFETY: `s` is a NUL-terminated constant; `buf` is writable for
    // `len` bytes (caller's contract) and `n < len`.
    unsafe {
        let text = core::ffi::CStr::from_ptr(s).to_bytes();
        let n = text.len().min(len - 1);
        ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), n);
        *buf.add(n) = 0;
    }
    buf
}

/// A table of segments or remote regions longer than an operation's
/// description holds in place, allocated by the glue (`kmalloc`,
/// `GFP_ATOMIC`), freed on drop.
///
/// Invariant: `ptr` is NULL (no table) or a live allocation of `n`
/// elements of `T` made by `kfi_util_segs_dup` (for `kfi_util_seg`),
/// `kfi_util_rma_dup` (for `kfi_rma_iov`) or `kfi_util_descs_dup` (for
/// memory descriptors), owned by this value.
pub(crate) struct Table<T: TableElem> {
    ptr: *mut T,
    n: usize,
}

/// What a [`Table`] can hold, with the glue call that frees it.
pub(crate) trait TableElem: Sized {
    /// Frees a table of the glue's.
    ///
    /// # Safety
    /// `p` is NULL or a table of the matching `_dup` call, not used after.
    unsafe fn free(p: *mut Self);
}

impl TableElem for sys::kfi_util_seg {
    unsafe fn free(p: *mut Self) {
        // SAFETY: by the trait's contract.
        unsafe { sys::kfi_util_segs_free(p) }
    }
}

impl TableElem for sys::kfi_rma_iov {
    unsafe fn free(p: *mut Self) {
        // SAFETY: by the trait's contract.
        unsafe { sys::kfi_util_rma_free(p) }
    }
}

impl TableElem for *mut c_void {
    unsafe fn free(p: *mut Self) {
        // SAFETY: by the trait's contract.
        unsafe { sys::kfi_util_descs_free(p) }
    }
}

// SAFETY: the table is plain data owned by this value; what its entries
// describe is the consumer's, as for any segment (see `xfer::Buf`).
unsafe impl<T: TableElem> Send for Table<T> {}

impl<T: TableElem> Table<T> {
    /// No table.
    pub(crate) const NONE: Table<T> = Table { ptr: core::ptr::null_mut(), n: 0 };

    /// The elements (none for `NONE`).
    pub(crate) fn as_slice(&self) -> &[T] {
        if self.ptr.is_null() {
            return &[];
        }
        // SAFETY: a live allocation of `n` elements (type invariant).
        unsafe { core::slice::from_raw_parts(self.ptr, self.n) }
    }

    /// Whether there is a table.
    pub(crate) fn is_some(&self) -> bool {
        !self.ptr.is_null()
    }

    /// Gives up the table to a slot (see `xfer::Buf`), which frees it with
    /// [`Table::from_parts`] when it is done.
    pub(crate) fn into_parts(self) -> (*mut T, usize) {
        let p = (self.ptr, self.n);
        core::mem::forget(self);
        p
    }

    /// Takes back a table given up with [`Table::into_parts`].
    ///
    /// # Safety
    /// `(ptr, n)` came from `into_parts` and is taken back once.
    pub(crate) unsafe fn from_parts(ptr: *mut T, n: usize) -> Table<T> {
        Table { ptr, n }
    }
}

impl<T: TableElem> Drop for Table<T> {
    fn drop(&mut self) {
        // SAFETY: owned (type invariant), freed once.
        unsafe { T::free(self.ptr) }
    }
}

/// A table describing `count` buffer entries of `desc` (of `kfi_iov_type`
/// `kind`, or `KFI_UTIL_SEGS`): -EINVAL for a bad list, -EAGAIN without
/// memory now.
///
/// # Safety
/// `desc` is NULL or a list of `count` entries of that kind, readable
/// during the call.
pub(crate) unsafe fn segs_table(kind: c_int, desc: *const c_void, count: usize) -> core::result::Result<Table<sys::kfi_util_seg>, c_int> {
    let mut p = core::ptr::null_mut();
    // SAFETY: by the caller's contract; `p` is written by the glue.
    let r = unsafe { sys::kfi_util_segs_dup(kind, desc, count, &mut p) };
    if r != 0 {
        return Err(r);
    }
    Ok(Table { ptr: p, n: count })
}

/// A copy of `count` remote regions at `src` (as [`segs_table`]).
///
/// # Safety
/// `src` is NULL or `count` regions readable during the call.
pub(crate) unsafe fn rma_table(src: *const sys::kfi_rma_iov, count: usize) -> core::result::Result<Table<sys::kfi_rma_iov>, c_int> {
    let mut p = core::ptr::null_mut();
    // SAFETY: by the caller's contract; `p` is written by the glue.
    let r = unsafe { sys::kfi_util_rma_dup(src, count, &mut p) };
    if r != 0 {
        return Err(r);
    }
    Ok(Table { ptr: p, n: count })
}

/// A copy of `count` memory descriptors at `src` (as [`segs_table`]).
///
/// # Safety
/// `src` is NULL or `count` pointers readable during the call.
pub(crate) unsafe fn desc_table(src: *const *mut c_void, count: usize) -> core::result::Result<Table<*mut c_void>, c_int> {
    let mut p = core::ptr::null_mut();
    // SAFETY: by the caller's contract; `p` is written by the glue.
    let r = unsafe { sys::kfi_util_descs_dup(src, count, &mut p) };
    if r != 0 {
        return Err(r);
    }
    Ok(Table { ptr: p, n: count })
}

/// Copies the first `dst.len()` bytes described by `segs` into `dst`;
/// returns the bytes copied (fewer if the segments are shorter).
pub(crate) fn copy_from_segs(segs: &[sys::kfi_util_seg], dst: &mut [u8]) -> usize {
    copy_from_segs_at(segs, 0, dst)
}

/// Copies `dst.len()` bytes described by `segs`, after the first `skip`,
/// into `dst`; returns the bytes copied (fewer if the segments are
/// shorter).
pub(crate) fn copy_from_segs_at(segs: &[sys::kfi_util_seg], skip: usize, dst: &mut [u8]) -> usize {
    // SAFETY: `segs` describe memory the caller may read (a consumer's
    // buffer, valid during the call by the API contract); `dst` is
    // writable for its length.
    unsafe { sys::kfi_util_segs_copy_from(segs.as_ptr(), segs.len() as c_int, skip, dst.as_mut_ptr().cast(), dst.len()) }
}

/// Appends to `out` the pieces of `segs` that describe bytes
/// `at..at + len` of them (fewer if `segs` end first): for a device to
/// move part of a consumer's buffer (kfi_verbs: an RDMA READ into a
/// receive at its offset).
#[allow(dead_code)] // (kfi_verbs only)
pub(crate) fn segs_range(segs: &[sys::kfi_util_seg], at: usize, len: usize, out: &mut KVec<sys::kfi_util_seg>) -> Result {
    let mut res = Ok(());
    range_pieces(segs, at, len, |x| {
        res = res.and_then(|()| out.push(x, GFP_KERNEL).map_err(Error::from));
    });
    res
}

/// As [`segs_range`], into `out` (never allocates: callable under a
/// spinlock): the number of pieces, or `None` if they need more room.
#[allow(dead_code)] // (kfi_verbs only)
pub(crate) fn segs_range_in(segs: &[sys::kfi_util_seg], at: usize, len: usize, out: &mut [sys::kfi_util_seg]) -> Option<usize> {
    let mut n = 0usize;
    let mut fits = true;
    range_pieces(segs, at, len, |x| match out.get_mut(n) {
        Some(o) => {
            *o = x;
            n += 1;
        }
        None => fits = false,
    });
    fits.then_some(n)
}

/// Calls `f` with each piece of `segs` describing bytes `at..at + len`.
#[allow(dead_code)] // (kfi_verbs only)
fn range_pieces(segs: &[sys::kfi_util_seg], mut at: usize, mut len: usize, mut f: impl FnMut(sys::kfi_util_seg)) {
    for s in segs {
        if len == 0 {
            break;
        }
        if at >= s.len {
            at -= s.len;
            continue;
        }
        let n = (s.len - at).min(len);
        let mut x = sys::kfi_util_seg { base: s.base, page: s.page, offset: s.offset, len: n };
        if s.base.is_null() {
            // The pages of one piece (bio_vec, scatterlist) are
            // contiguous: the one holding the first byte, and the offset
            // in it (`nth_page`, with the kernel's virtual memory map).
            let off = s.offset as usize + at;
            x.page = s.page.wrapping_add(off / kernel::page::PAGE_SIZE);
            x.offset = (off % kernel::page::PAGE_SIZE) as c_uint;
        } else {
            x.base = s.base.cast::<u8>().wrapping_add(at).cast();
        }
        f(x);
        at = 0;
        len -= n;
    }
}

/// Copies `src` into the bytes described by `segs` after the first
/// `skip`; returns the bytes copied.
pub(crate) fn copy_to_segs(segs: &[sys::kfi_util_seg], skip: usize, src: &[u8]) -> usize {
    // SAFETY: `segs` describe a posted receive buffer, writable until the
    // operation completes (API contract); `src` is readable.
    unsafe { sys::kfi_util_segs_copy_to(segs.as_ptr(), segs.len() as c_int, skip, src.as_ptr().cast(), src.len()) }
}

/// A delayed work item on the provider's workqueue calling `f(ctx)` in
/// process context (`kfi_util_dwork_*` in kfi_util_glue.c).
///
/// # Invariants
/// Points to a live item until dropped; dropping cancels it and waits for
/// a running callback, so `ctx` is not used after the drop returns.
pub(crate) struct DWork(NonNull<sys::kfi_util_dwork>);

// SAFETY: the C item may be queued from any context and frees itself only
// in `drop`.
unsafe impl Send for DWork {}
// SAFETY: as above; `queue` is safe to call concurrently.
unsafe impl Sync for DWork {}

impl DWork {
    /// Allocates the item.
    ///
    /// # Safety
    /// `ctx` stays valid for `f` until the item is dropped.
    pub(crate) unsafe fn new(f: unsafe extern "C" fn(*mut c_void), ctx: *mut c_void) -> Result<DWork> {
        // SAFETY: the caller's contract covers `ctx`.
        let p = unsafe { sys::kfi_util_dwork_alloc(Some(f), ctx) };
        NonNull::new(p).map(DWork).ok_or(ENOMEM)
    }

    /// Runs the callback after `delay` jiffies (0: as soon as possible).
    /// Any context.
    pub(crate) fn queue(&self, delay: u64) {
        // SAFETY: live by the invariant.
        unsafe { sys::kfi_util_dwork_queue(self.0.as_ptr(), delay as _) }
    }
}

impl DWork {
    /// Runs the callback as soon as possible on `cpu` (an online CPU);
    /// nothing if a run is pending already. Any context.
    pub(crate) fn queue_on(&self, cpu: u32) {
        // SAFETY: live by the invariant.
        unsafe { sys::kfi_util_dwork_queue_on(self.0.as_ptr(), cpu as c_int) }
    }

    /// Whether the caller is this item's callback.
    pub(crate) fn is_current(&self) -> bool {
        // SAFETY: live by the invariant; a comparison of pointers.
        unsafe { sys::kfi_util_dwork_is_current(self.0.as_ptr()) }
    }

    /// Cancels a queued run and waits for a running one (process
    /// context).
    pub(crate) fn cancel_sync(&self) {
        // SAFETY: live by the invariant.
        unsafe { sys::kfi_util_dwork_cancel(self.0.as_ptr()) }
    }
}

impl Drop for DWork {
    fn drop(&mut self) {
        // SAFETY: live by the invariant; freed once, here.
        unsafe { sys::kfi_util_dwork_free(self.0.as_ptr()) }
    }
}

/// A kernel timer calling `f(ctx)` in softirq context
/// (`kfi_util_timer_*` in kfi_util_glue.c).
///
/// # Invariants
/// Points to a live timer until dropped; dropping shuts it down and waits
/// for a running callback, so `ctx` is not used after the drop returns.
pub(crate) struct Timer(NonNull<sys::kfi_util_timer>);

// SAFETY: the C timer may be armed from any context but hard interrupts
// and is freed only in `drop`.
unsafe impl Send for Timer {}
// SAFETY: as above; `arm` is safe to call concurrently (timer_reduce).
unsafe impl Sync for Timer {}

impl Timer {
    /// Allocates the timer, not armed.
    ///
    /// # Safety
    /// `f` does not sleep; `ctx` stays valid for `f` until the timer is
    /// cancelled for good or dropped.
    pub(crate) unsafe fn new(f: unsafe extern "C" fn(*mut c_void), ctx: *mut c_void) -> Result<Timer> {
        // SAFETY: the caller's contract covers `f` and `ctx`.
        let p = unsafe { sys::kfi_util_timer_alloc(Some(f), ctx) };
        NonNull::new(p).map(Timer).ok_or(ENOMEM)
    }

    /// Sets the callback's argument (before the timer is first armed).
    ///
    /// # Safety
    /// As for `ctx` of [`Timer::new`].
    pub(crate) unsafe fn set_ctx(&self, ctx: *mut c_void) {
        // SAFETY: live by the invariant; not armed yet (caller).
        unsafe { sys::kfi_util_timer_set_ctx(self.0.as_ptr(), ctx) }
    }

    /// Runs the callback `delay` jiffies from now at the latest (an armed
    /// timer that expires sooner keeps its expiry). Any context but hard
    /// interrupts.
    pub(crate) fn arm(&self, delay: u64) {
        // SAFETY: live by the invariant.
        unsafe { sys::kfi_util_timer_arm(self.0.as_ptr(), delay as _) }
    }

    /// Disarms it and waits for a running callback (process context).
    pub(crate) fn cancel_sync(&self) {
        // SAFETY: live by the invariant.
        unsafe { sys::kfi_util_timer_cancel(self.0.as_ptr()) }
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        // SAFETY: live by the invariant; freed once, here.
        unsafe { sys::kfi_util_timer_free(self.0.as_ptr()) }
    }
}

/// Storage handed to the kernel-independent logic (rings, engines) that
/// wants `AsRef<[T]> + AsMut<[T]>`: a `KVVec` (kvmalloc, so large arrays
/// need no contiguous pages).
pub(crate) struct Storage<T>(pub(crate) KVVec<T>);

impl<T> AsRef<[T]> for Storage<T> {
    fn as_ref(&self) -> &[T] {
        &self.0
    }
}

impl<T> AsMut<[T]> for Storage<T> {
    fn as_mut(&mut self) -> &mut [T] {
        &mut self.0
    }
}

/// A `memalloc_noio` scope: allocations (`GFP_KERNEL` ones included) made
/// while it lives do not start block I/O, so work items serving storage
/// clients on the reclaim path cannot deadlock on their own I/O.
pub(crate) struct NoIo(c_uint);

impl NoIo {
    /// Enters the scope (process context).
    pub(crate) fn enter() -> NoIo {
        // SAFETY: saves and sets the task's flag; restored in `drop`.
        NoIo(unsafe { sys::kfi_util_noio_save() })
    }
}

impl Drop for NoIo {
    fn drop(&mut self) {
        // SAFETY: restores what `enter` saved, on the same task (a guard
        // lives within one work item run).
        unsafe { sys::kfi_util_noio_restore(self.0) }
    }
}

