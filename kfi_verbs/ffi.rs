// SPDX-License-Identifier: GPL-2.0
//! FFI layer of kfi_verbs.ko: its bindings, and RAII wrappers of its own C
//! (the RDMA devices of kfi_verbs_ib.c, the connections of
//! kfi_verbs_cm.c). The wrappers every provider needs
//! are the toolkit's (`crate::util::base`). Every `unsafe` block states the
//! contract it relies on.

use crate::util::addr::SockAddr;
use core::ffi::{c_int, c_void};
use core::ptr::NonNull;
use kernel::bindings;
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

impl DevRef {
    /// Whether the device speaks iWARP (no immediate data). Process
    /// context.
    pub(crate) fn iwarp(&self) -> bool {
        // SAFETY: a device this value references.
        unsafe { sys::kfi_verbs_dev_iwarp(self.as_ptr()) }
    }

    /// Whether the device does 64-bit atomics on RC queue pairs. Process
    /// context.
    pub(crate) fn atomics(&self) -> bool {
        // SAFETY: a device this value references.
        unsafe { sys::kfi_verbs_dev_atomics(self.as_ptr()) }
    }

    /// The device the domain's consumers map memory for (the cxi
    /// extension's `get_device`), valid while this reference is. Any
    /// context.
    pub(crate) fn dma(&self) -> *mut sys::device {
        // SAFETY: a device this value references.
        unsafe { sys::kfi_verbs_dev_dma(self.as_ptr()) }
    }

    /// The device, for kfi_verbs_cm.c (which takes its own reference).
    fn as_ptr(&self) -> *mut sys::kfi_verbs_dev {
        self.0.as_ptr()
    }
}

/// A negative errno of kfi_verbs_cm.c as a result.
fn cm_result(ret: c_int) -> core::result::Result<(), c_int> {
    if ret == 0 {
        Ok(())
    } else {
        Err(ret)
    }
}

/// One connection of kfi_verbs_cm.c: an rdma_cm id (an endpoint's, a
/// passive endpoint's listening one, or a connection request's) and the
/// queue pair on it. Every method is process context and may sleep; the
/// ones that take the id's handler mutex (`take`, `accept`, `addr`,
/// `set_owner`, `close`) are never called with a lock the owner's event
/// function takes.
///
/// # Invariants
/// `0` is a connection this value owns (freed by `kfi_verbs_conn_free`).
pub(crate) struct Conn(NonNull<sys::kfi_verbs_conn>);

// SAFETY: kfi_verbs_cm.c protects a connection's state with its own locks
// (its file comment); its functions may be called from any thread.
unsafe impl Send for Conn {}
// SAFETY: as above: every function taking a shared connection is safe to
// call concurrently (the C side counts the calls using the id).
unsafe impl Sync for Conn {}

impl Conn {
    /// Makes the id of an endpoint (`dev`: its domain's device) or of a
    /// passive endpoint (`dev` None), in namespace `net`.
    pub(crate) fn create(net: *mut c_void, pep: bool, dev: Option<&DevRef>) -> core::result::Result<Conn, c_int> {
        let kind = if pep { sys::KFI_VERBS_CONN_PEP } else { sys::KFI_VERBS_CONN_EP };
        let dev = dev.map_or(core::ptr::null_mut(), DevRef::as_ptr);
        let mut out = core::ptr::null_mut();
        // SAFETY: `net` is a namespace the caller holds (its fabric's);
        // `dev` is NULL or referenced by the caller; `out` is writable.
        cm_result(unsafe { sys::kfi_verbs_conn_create(net, kind as c_int, dev, &mut out) })?;
        // The C side returned 0: `out` is a new connection, ours.
        NonNull::new(out).map(Conn).ok_or(-(bindings::ENOMEM as c_int))
    }

    /// Takes ownership of the request of a `KFI_VERBS_EV_CONNREQ` event.
    ///
    /// # Safety
    /// `req` is the event's request, not owned by anyone else.
    pub(crate) unsafe fn from_request(req: *mut sys::kfi_verbs_conn) -> Option<Conn> {
        NonNull::new(req).map(Conn)
    }

    /// [`Conn::from_request`] of a request known not to be NULL.
    ///
    /// # Safety
    /// As [`Conn::from_request`].
    pub(crate) unsafe fn from_request_nn(req: NonNull<sys::kfi_verbs_conn>) -> Conn {
        Conn(req)
    }

    fn ptr(&self) -> *mut sys::kfi_verbs_conn {
        self.0.as_ptr()
    }

    /// Makes the connection a connectionless endpoint's: events go to
    /// `kfi_verbs_rdm_cm_event` (a listener's requests to
    /// `kfi_verbs_rdm_pep_event`). Before [`Conn::set_owner`].
    pub(crate) fn set_rdm(&self) {
        // SAFETY: our connection (invariant); a flag read by its handler,
        // which reports nothing before it has an owner.
        unsafe { sys::kfi_verbs_conn_set_rdm(self.ptr()) }
    }

    /// Gives a request back to kfi_verbs_cm.c (a `KFI_VERBS_EV_CONNREQ`
    /// refused: C rejects and frees it).
    pub(crate) fn into_raw(self) -> *mut sys::kfi_verbs_conn {
        let p = self.ptr();
        core::mem::forget(self);
        p
    }

    /// Names the object events are reported to (`kfi_verbs_ep_cm_event`
    /// or `kfi_verbs_pep_cm_event` get it as `ctx`).
    ///
    /// # Safety
    /// `owner` stays valid until [`Conn::close`] has returned (or the
    /// connection is dropped).
    pub(crate) unsafe fn set_owner(&self, owner: *const c_void) {
        // SAFETY: our connection (invariant); the pointer's lifetime is
        // the caller's contract.
        unsafe { sys::kfi_verbs_conn_set_owner(self.ptr(), owner.cast_mut()) }
    }

    /// [`Conn::set_owner`] of a passive endpoint's id not listening yet
    /// (nothing can be reported meanwhile): takes no handler mutex, so it
    /// may be called under locks the owner's event function takes.
    ///
    /// # Safety
    /// As [`Conn::set_owner`]; the connection has not listened yet.
    pub(crate) unsafe fn set_owner_fresh(&self, owner: *const c_void) {
        // SAFETY: our connection (invariant), which reports nothing yet
        // (the caller's contract); the pointer's lifetime is the caller's.
        unsafe { sys::kfi_verbs_conn_set_owner_fresh(self.ptr(), owner.cast_mut()) }
    }

    /// Binds a passive endpoint's id to `src` and listens.
    pub(crate) fn listen(&self, src: &SockAddr, backlog: c_int) -> core::result::Result<(), c_int> {
        // SAFETY: our connection (invariant); `src` is a valid address.
        cm_result(unsafe { sys::kfi_verbs_conn_listen(self.ptr(), src, backlog) })
    }

    /// Starts connecting to `dst` (from `src` if given) with private data
    /// `pdata`, creating a queue pair of the given depths.
    pub(crate) fn connect(
        &self,
        src: Option<&SockAddr>,
        dst: &SockAddr,
        pdata: &[u8],
        sq: u32,
        rq: u32,
    ) -> core::result::Result<(), c_int> {
        let src = src.map_or(core::ptr::null(), |s| s as *const SockAddr);
        // SAFETY: our connection; the addresses and `pdata` are valid for
        // the call (the C side copies the private data).
        cm_result(unsafe {
            sys::kfi_verbs_conn_connect(self.ptr(), src, dst, pdata.as_ptr().cast(), pdata.len(), sq, rq)
        })
    }

    /// Makes a request an endpoint's connection on `dev`, with a queue pair
    /// of the given depths.
    pub(crate) fn take(&self, dev: &DevRef, sq: u32, rq: u32) -> core::result::Result<(), c_int> {
        // SAFETY: our connection; `dev` is referenced by the caller.
        cm_result(unsafe { sys::kfi_verbs_conn_take(self.ptr(), dev.as_ptr(), sq, rq) })
    }

    /// Accepts a taken request with private data `pdata`.
    pub(crate) fn accept(&self, pdata: &[u8]) -> core::result::Result<(), c_int> {
        // SAFETY: our connection; `pdata` valid for the call.
        cm_result(unsafe { sys::kfi_verbs_conn_accept(self.ptr(), pdata.as_ptr().cast(), pdata.len()) })
    }

    /// Refuses a request with private data `pdata`.
    pub(crate) fn reject(&self, pdata: &[u8]) -> core::result::Result<(), c_int> {
        // SAFETY: our connection; `pdata` valid for the call.
        cm_result(unsafe { sys::kfi_verbs_conn_reject(self.ptr(), pdata.as_ptr().cast(), pdata.len()) })
    }

    /// Disconnects.
    pub(crate) fn disconnect(&self) -> core::result::Result<(), c_int> {
        // SAFETY: our connection.
        cm_result(unsafe { sys::kfi_verbs_conn_disconnect(self.ptr()) })
    }

    /// The local (or the peer's) address.
    pub(crate) fn addr(&self, peer: bool) -> core::result::Result<SockAddr, c_int> {
        // SAFETY: all-zero is a valid address.
        let mut a: SockAddr = unsafe { core::mem::zeroed() };
        // SAFETY: our connection; `a` is writable.
        cm_result(unsafe { sys::kfi_verbs_conn_addr(self.ptr(), peer, &mut a) })?;
        Ok(a)
    }

    /// A listening id's bound address, read without the handler mutex
    /// (see [`Conn::set_owner_fresh`]).
    pub(crate) fn bound_addr(&self) -> core::result::Result<SockAddr, c_int> {
        // SAFETY: all-zero is a valid address.
        let mut a: SockAddr = unsafe { core::mem::zeroed() };
        // SAFETY: our connection; `a` is writable.
        cm_result(unsafe { sys::kfi_verbs_conn_bound_addr(self.ptr(), &mut a) })?;
        Ok(a)
    }

    /// Stops the data path: nothing is posted after this, and everything
    /// posted has completed (flushed once disconnected) when it returns.
    /// Process context.
    pub(crate) fn quiesce(&self) {
        // SAFETY: our connection.
        unsafe { sys::kfi_verbs_conn_quiesce(self.ptr()) }
    }

    /// Handles up to `budget` completions of the queue pair in the
    /// caller's context (their done functions run here, bottom halves
    /// disabled); 0 if the softirq poller is at it or there is no queue
    /// pair. `busy`: the caller polls again soon (completion events are
    /// left to it meanwhile); false: it is about to sleep. Any context but
    /// hard interrupts.
    pub(crate) fn poll(&self, budget: u32, busy: bool) -> u32 {
        // SAFETY: our connection (invariant); never sleeps.
        let n = unsafe { sys::kfi_verbs_conn_poll(self.ptr(), budget as c_int, busy) };
        n.max(0) as u32
    }

    /// Tears the connection down (idempotent): nothing is reported to
    /// the owner once this has returned.
    pub(crate) fn close(&self) {
        // SAFETY: our connection.
        unsafe { sys::kfi_verbs_conn_close(self.ptr()) }
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        // SAFETY: the connection this value owns (invariant).
        unsafe { sys::kfi_verbs_conn_free(self.ptr()) }
    }
}

/// The interface index of the network device the caller's namespace
/// reaches `dst` through: the one holding the address if it is local,
/// else the route's; `None` without a route. Process context.
pub(crate) fn route_ifindex(dst: &SockAddr) -> Option<c_int> {
    // SAFETY: `dst` is a valid address for the call.
    let i = unsafe { sys::kfi_verbs_route_ifindex(dst) };
    (i > 0).then_some(i)
}

/// The work request contexts of an endpoint (kfi_verbs_qp.c): one per
/// transmit and receive slot.
///
/// # Invariants
/// `ptr` is a set this value owns (freed by `kfi_verbs_wrs_free`), with
/// `ntx` transmit and `nrx` receive contexts.
pub(crate) struct Wrs {
    ptr: NonNull<sys::kfi_verbs_wrs>,
    ntx: u32,
    nrx: u32,
}

// SAFETY: the set is plain memory; who uses which context is the owner's
// business (its queue lock, see `Conn::post_send`).
unsafe impl Send for Wrs {}
// SAFETY: a shared set is only posted on (`Conn::post_*`, unsafe: the
// caller guarantees the slot it names is its own, not posted), each post
// touching that slot's context and the set's connection pointer (written
// with WRITE_ONCE, the same value for every post on one connection).
unsafe impl Sync for Wrs {}

impl Wrs {
    /// Allocates the contexts of `ntx` transmit and `nrx` receive slots of
    /// `owner` (the endpoint's queues), which completions name
    /// (`kfi_verbs_tx_done`/`kfi_verbs_rx_done`). Process context.
    pub(crate) fn new(owner: *const c_void, ntx: usize, nrx: usize) -> Result<Wrs> {
        let (ntx, nrx) = (u32::try_from(ntx).map_err(|_| EINVAL)?, u32::try_from(nrx).map_err(|_| EINVAL)?);
        // SAFETY: process context (`kfi_enable`); `owner` is only stored.
        let p = unsafe { sys::kfi_verbs_wrs_alloc(owner.cast_mut(), ntx, nrx) };
        let ptr = NonNull::new(p).ok_or(ENOMEM)?;
        Ok(Wrs { ptr, ntx, nrx })
    }

    fn as_ptr(&self) -> *mut sys::kfi_verbs_wrs {
        self.ptr.as_ptr()
    }

    /// Makes the contexts a connectionless endpoint's connection's:
    /// completions go to `kfi_verbs_rdm_tx_done`/`_rx_done` with `owner`.
    /// Before any is posted.
    pub(crate) fn set_rdm(&self, owner: *const c_void) {
        // SAFETY: our set (invariant), none of it posted yet (the caller's
        // contract: it is new); `owner` is only stored.
        unsafe { sys::kfi_verbs_wrs_set_rdm(self.as_ptr(), owner.cast_mut()) }
    }
}

impl Drop for Wrs {
    fn drop(&mut self) {
        // SAFETY: our set (invariant); its owner closed the connection
        // before dropping it, so no work request of it is posted.
        unsafe { sys::kfi_verbs_wrs_free(self.as_ptr()) }
    }
}

impl Conn {
    /// Posts transmit slot `slot` of `w` as `r` describes it.
    ///
    /// # Safety
    /// The slot's context is not posted now, and `r`'s segments (memory
    /// they describe included) stay valid until the slot's completion;
    /// `w` outlives this connection's queue pair (it is dropped after
    /// [`Conn::close`]).
    pub(crate) unsafe fn post_send(&self, w: &Wrs, slot: usize, r: &sys::kfi_verbs_sq_req) -> core::result::Result<(), c_int> {
        if slot >= w.ntx as usize {
            return Err(-(bindings::EINVAL as c_int));
        }
        // SAFETY: our connection and set; the rest is the caller's
        // contract.
        cm_result(unsafe { sys::kfi_verbs_post_send(self.ptr(), w.as_ptr(), slot as u32, r) })
    }

    /// Posts receive slot `slot` of `w` on the buffer `segs`.
    ///
    /// # Safety
    /// As [`Conn::post_send`].
    pub(crate) unsafe fn post_recv(&self, w: &Wrs, slot: usize, segs: &[sys::kfi_util_seg]) -> core::result::Result<(), c_int> {
        if slot >= w.nrx as usize {
            return Err(-(bindings::EINVAL as c_int));
        }
        // SAFETY: our connection and set; the rest is the caller's
        // contract.
        cm_result(unsafe { sys::kfi_verbs_post_recv(self.ptr(), w.as_ptr(), slot as u32, segs.as_ptr(), segs.len() as u32) })
    }

    /// Registers receive slot `slot` of `w` on the buffer `segs` (more
    /// pieces than a work request holds); its receive is posted by
    /// [`Conn::post_recv_mr`] once the registration's completion came.
    ///
    /// # Safety
    /// As [`Conn::post_send`].
    pub(crate) unsafe fn post_recv_reg(&self, w: &Wrs, slot: usize, segs: &[sys::kfi_util_seg]) -> core::result::Result<(), c_int> {
        if slot >= w.nrx as usize {
            return Err(-(bindings::EINVAL as c_int));
        }
        // SAFETY: our connection and set; the rest is the caller's
        // contract.
        cm_result(unsafe { sys::kfi_verbs_post_recv_reg(self.ptr(), w.as_ptr(), slot as u32, segs.as_ptr(), segs.len() as u32) })
    }

    /// Posts the receive of slot `slot` of `w`, registered by
    /// [`Conn::post_recv_reg`] (its registration completed).
    ///
    /// # Safety
    /// As [`Conn::post_send`].
    pub(crate) unsafe fn post_recv_mr(&self, w: &Wrs, slot: usize) -> core::result::Result<(), c_int> {
        if slot >= w.nrx as usize {
            return Err(-(bindings::EINVAL as c_int));
        }
        // SAFETY: our connection and set; the rest is the caller's
        // contract.
        cm_result(unsafe { sys::kfi_verbs_post_recv_mr(self.ptr(), w.as_ptr(), slot as u32) })
    }

    /// The peer broke the protocol: the connection is disconnected (from
    /// process context) and DISCONNECTED reported. Any context.
    pub(crate) fn broken(&self) {
        // SAFETY: our connection.
        unsafe { sys::kfi_verbs_conn_broken(self.ptr()) }
    }

    /// Posts one chunk of a soft-mode message with transmit context
    /// `slot` of `w`: a SEND of `hdr` and then at most `max` bytes of
    /// `segs` from byte `skip` on. Returns the payload bytes it carries
    /// (fewer than `max` when the pieces fill the work request; at least
    /// one unless `max` is 0).
    ///
    /// # Safety
    /// As [`Conn::post_send`], for `hdr` too (memory in the kernel's
    /// linear map).
    pub(crate) unsafe fn post_chunk(
        &self,
        w: &Wrs,
        slot: usize,
        hdr: &[u8],
        segs: &[sys::kfi_util_seg],
        skip: u64,
        max: usize,
    ) -> core::result::Result<usize, c_int> {
        if slot >= w.ntx as usize {
            return Err(-(bindings::EINVAL as c_int));
        }
        let mut covered = 0usize;
        // SAFETY: our connection and set; the rest is the caller's
        // contract.
        cm_result(unsafe {
            sys::kfi_verbs_post_chunk(
                self.ptr(),
                w.as_ptr(),
                slot as u32,
                hdr.as_ptr().cast(),
                hdr.len() as u32,
                segs.as_ptr(),
                segs.len() as u32,
                skip as usize,
                max,
                &mut covered,
            )
        })?;
        Ok(covered)
    }
}

/// One registration of memory for remote access (kfi_verbs_mr.c: an FRWR
/// region made valid on its device's registration channel).
///
/// # Invariants
/// `0` is a registration this value owns (ended by `kfi_verbs_mr_dereg`,
/// which invalidates its key, when dropped).
pub(crate) struct RegMr(NonNull<sys::kfi_verbs_mr>);

// SAFETY: kfi_verbs_mr.c serialises everything done to a registration
// under its device's locks; it may be ended from any thread in process
// context.
unsafe impl Send for RegMr {}
// SAFETY: `&RegMr` gives no access to the registration.
unsafe impl Sync for RegMr {}

impl RegMr {
    /// Registers `segs` (`len` bytes in all, not 0) on `dev` for the
    /// remote accesses in `access`, its first byte at remote address
    /// `offset`; returns the registration and the key peers use. Process
    /// context (may sleep for seconds the first time on a device). The
    /// memory of `segs` must stay valid until the registration is
    /// dropped.
    pub(crate) fn new(dev: &DevRef, segs: &[sys::kfi_util_seg], len: u64, offset: u64, access: u64) -> Result<(RegMr, u64)> {
        let mut key = 0u64;
        let mut out = core::ptr::null_mut();
        // SAFETY: `dev` is referenced; `segs` is valid for its length and
        // describes memory the caller keeps valid (above); `key` and
        // `out` are writable.
        let ret = unsafe {
            sys::kfi_verbs_mr_reg(dev.as_ptr(), segs.as_ptr(), segs.len() as u32, len, offset, access, &mut key, &mut out)
        };
        if ret != 0 {
            return Err(Error::from_errno(ret));
        }
        // 0 returned: `out` is a registration, ours.
        NonNull::new(out).map(|m| (RegMr(m), key)).ok_or(ENOMEM)
    }
}

impl Drop for RegMr {
    fn drop(&mut self) {
        // SAFETY: the registration this value owns (invariant); process
        // context (dropped with its region at `kfi_close`, or on a failed
        // registration).
        unsafe { sys::kfi_verbs_mr_dereg(self.0.as_ptr()) }
    }
}
