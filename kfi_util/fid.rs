// SPDX-License-Identifier: GPL-2.0
//! What every provider's fabric and domain share: the kfabric header the
//! consumer holds and the count of open children that keeps the parent
//! from closing under them. A provider's `Fabric` and `Domain` embed
//! [`FabricBase`] and [`DomainBase`] as their first field, so that the
//! toolkit's objects opened on them (event queues on a fabric; completion
//! queues and counters on a domain) find their parent's count from the
//! header alone, without naming the provider's types.

use super::addr::{self, SockAddr};
use super::logic::nic::NicNet;
use super::eq::Eq;
use super::fabric::Fabric;
use super::sys;
use crate::trigger::cntr::CntrList;
use core::ffi::c_void;
use core::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use kernel::new_mutex;
use kernel::prelude::*;
use kernel::sync::Mutex;

/// Open children of an object. The object's close refuses (`-EBUSY`)
/// while [`ChildCount::busy`]; a child therefore may keep a pointer to
/// the count (and to its parent) for as long as it is counted.
pub(crate) struct ChildCount(AtomicUsize);

impl ChildCount {
    /// No child.
    pub(crate) const fn new() -> Self {
        ChildCount(AtomicUsize::new(0))
    }

    /// Counts a child that was just opened.
    pub(crate) fn opened(&self) {
        self.0.fetch_add(1, Ordering::AcqRel);
    }

    /// Uncounts a child that closed (one counted by [`ChildCount::opened`]).
    pub(crate) fn closed(&self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }

    /// Whether any child is open.
    pub(crate) fn busy(&self) -> bool {
        self.0.load(Ordering::Acquire) != 0
    }
}

/// Objects of one kind open on a domain, by address, each with the number
/// the statistics name it by (`ep3`, `cq0`: [`super::stats`]). Listing and
/// unlisting are process context (opens and closes); the list is read by
/// statistics readers, who may sleep while holding it (a socket's address
/// is read under `lock_sock`).
#[pin_data]
pub(crate) struct ObjList {
    #[pin]
    list: Mutex<KVec<(u32, usize)>>,
    /// The number of the next object listed.
    next: AtomicU32,
    /// Objects that could not be listed (no memory): they work, the
    /// statistics say how many they leave out.
    unlisted: AtomicUsize,
}

impl ObjList {
    /// An empty list.
    pub(crate) fn new() -> impl PinInit<Self> {
        pin_init!(ObjList {
            list <- new_mutex!(KVec::new(), "kfi_util_objs"),
            next: AtomicU32::new(0),
            unlisted: AtomicUsize::new(0),
        })
    }

    /// Lists the object at `addr` (process context). Without memory it
    /// stays unlisted (counted as such): statistics never make an open
    /// fail.
    pub(crate) fn add(&self, addr: usize) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        if self.list.lock().push((id, addr), GFP_KERNEL).is_err() {
            self.unlisted.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Unlists the object at `addr` (before it is freed; process context).
    pub(crate) fn remove(&self, addr: usize) {
        let mut g = self.list.lock();
        if let Some(i) = g.iter().position(|&(_, a)| a == addr) {
            let _ = super::base::kvec_remove(&mut g, i);
        } else {
            drop(g);
            let _ = self.unlisted.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
        }
    }

    /// Calls `f` with each listed object's number and address, in the
    /// order they were listed, holding the list (objects stay open while
    /// `f` runs); then returns how many are unlisted.
    pub(crate) fn each(&self, mut f: impl FnMut(u32, usize)) -> usize {
        let g = self.list.lock();
        for &(id, a) in g.iter() {
            f(id, a);
        }
        self.unlisted.load(Ordering::Relaxed)
    }
}

/// The toolkit's part of a provider's fabric: first field of it.
///
/// # Invariants
/// Embedded at offset 0 of a provider's fabric object; `fab` is the
/// header its fabric ops table is installed on.
#[repr(C)]
pub(crate) struct FabricBase {
    pub(crate) fab: sys::kfid_fabric,
    /// Open domains, passive endpoints and event queues.
    pub(crate) children: ChildCount,
}

impl FabricBase {
    /// A base whose header is filled in later by the provider's glue.
    pub(crate) fn new() -> Self {
        // SAFETY: all-zero is a valid header (NULL pointers, zero class).
        FabricBase { fab: unsafe { core::mem::zeroed() }, children: ChildCount::new() }
    }

    /// Recovers the base from a fabric header.
    ///
    /// # Safety
    /// `fab` is the header of a live fabric of this provider (only its
    /// fabric ops table calls the entries that use this).
    pub(crate) unsafe fn from_header<'a>(fab: *mut sys::kfid_fabric) -> &'a FabricBase {
        // SAFETY: the header is the first field (caller's contract).
        unsafe { &*kernel::container_of!(fab, FabricBase, fab) }
    }
}

/// The toolkit's part of a provider's domain: first field of it.
///
/// # Invariants
/// As [`FabricBase`], for domains.
#[pin_data]
#[repr(C)]
pub(crate) struct DomainBase {
    pub(crate) dom: sys::kfid_domain,
    /// Open memory regions, completion queues, counters and endpoints.
    pub(crate) children: ChildCount,
    /// Open counters (triggered operations are looked up there by
    /// context; deferred work is flushed there).
    #[pin]
    pub(crate) cntrs: CntrList,
    /// The EQ bound with `KFI_REG_MR` (NULL: none; `mr.rs`): registrations
    /// report `KFI_MR_COMPLETE` there. Set once; the binding it counts
    /// keeps the EQ open until the domain closes.
    pub(crate) mr_eq: AtomicPtr<Eq>,
    /// Open endpoints (the provider's endpoint objects, contexts of
    /// scalable endpoints included), for the statistics.
    #[pin]
    pub(crate) eps: ObjList,
    /// Open completion queues (`Cq`), for the statistics.
    #[pin]
    pub(crate) cqs: ObjList,
    /// Registered memory regions and their bytes, for the statistics.
    pub(crate) mr_count: AtomicUsize,
    pub(crate) mr_bytes: AtomicU64,
    /// The domain's statistics directory (`kfi_util_stats_domain`; NULL:
    /// none), set at open, removed at close before the domain is freed.
    pub(crate) stats_dir: AtomicPtr<c_void>,
    /// The fabric the domain was opened on (counts the domain, so it
    /// outlives it).
    fabric: *mut Fabric,
    /// Set when the domain names endpoints by NIC address (opened from
    /// an info of format `KFI_ADDR_CXI`, `logic::nic`): its interface's
    /// net, which completes peers' NIC addresses. Set at open, never
    /// changed.
    nic: Option<NicNet>,
}

impl DomainBase {
    /// A base on fabric `fabric` (which [`super::fabric::open_domain`]
    /// counts) whose header is filled in later by the provider's glue.
    /// `nic`: the net of its NIC addresses, if it names endpoints so
    /// ([`super::addr::info_nic_net`]).
    pub(crate) fn new(fabric: *mut Fabric, nic: Option<NicNet>) -> impl PinInit<Self> {
        pin_init!(DomainBase {
            // SAFETY: all-zero is a valid header (NULL pointers, zero class).
            dom: unsafe { core::mem::zeroed() },
            children: ChildCount::new(),
            cntrs <- CntrList::new(),
            mr_eq: AtomicPtr::new(core::ptr::null_mut()),
            eps <- ObjList::new(),
            cqs <- ObjList::new(),
            mr_count: AtomicUsize::new(0),
            mr_bytes: AtomicU64::new(0),
            stats_dir: AtomicPtr::new(core::ptr::null_mut()),
            fabric,
            nic,
        })
    }

    /// The net of its NIC addresses, if it names endpoints by them.
    pub(crate) fn nic(&self) -> Option<&NicNet> {
        self.nic.as_ref()
    }

    /// The source address of an endpoint opened on it from `i`: a socket
    /// address, or with NIC addresses the `struct kcxi_addr` of an info
    /// of format `KFI_ADDR_CXI` (`EINVAL` for a bad one or one outside
    /// the domain's net). `None` when the info has none.
    ///
    /// # Safety
    /// `i.src_addr` is NULL or holds `i.src_addrlen` bytes.
    pub(crate) unsafe fn info_src(&self, i: &sys::kfi_info) -> Result<Option<SockAddr>> {
        match (&self.nic, i.addr_format) {
            (Some(net), sys::KFI_ADDR_CXI) if !i.src_addr.is_null() => {
                if i.src_addrlen != sys::KFI_UTIL_CXI_ADDR_LEN as usize {
                    return Err(EINVAL);
                }
                // SAFETY: 8 readable bytes (caller's contract).
                let n = unsafe { addr::read_cxi(i.src_addr) }.ok_or(EINVAL)?;
                addr::nic_sockaddr(net, n).map(Some)
            }
            // SAFETY: the caller's contract.
            _ => unsafe { addr::read_info_addr(i.src_addr, i.src_addrlen) },
        }
    }

    /// The fabric the domain was opened on (outlives it).
    pub(crate) fn fabric(&self) -> *mut Fabric {
        self.fabric
    }

    /// Recovers the base from a domain header.
    ///
    /// # Safety
    /// `dom` is the header of a live domain of this provider (only its
    /// domain ops table calls the entries that use this).
    pub(crate) unsafe fn from_header<'a>(dom: *mut sys::kfid_domain) -> &'a DomainBase {
        // SAFETY: the header is the first field (caller's contract).
        unsafe { &*kernel::container_of!(dom, DomainBase, dom) }
    }

    /// Recovers the base from a domain's fid.
    ///
    /// # Safety
    /// As [`DomainBase::from_header`], for the fid of the header.
    pub(crate) unsafe fn from_fid<'a>(fid: *mut sys::kfid) -> &'a DomainBase {
        // SAFETY: the fid is the first field of the header, itself first.
        unsafe { &*kernel::container_of!(fid, DomainBase, dom.fid) }
    }
}
