// SPDX-License-Identifier: GPL-2.0
//! The domain object: one interface of a fabric, owning the table of its
//! memory regions.
//!
//! The MR table maps keys to regions. It is a mutex-protected array sorted
//! by key (binary search; registration shifts entries): registrations and
//! the RMA target path, which runs in a connection's work item, are both in
//! process context. (The kernel crate's `RBTree` is not usable from a
//! module on every kernel configuration: it references a symbol of the
//! `bindings` crate that vmlinux does not always export.) A domain counts its
//! open children (MRs, CQs and endpoints): closing it with any open fails
//! with -EBUSY. An EQ bound with `KFI_REG_MR` gets a `KFI_MR_COMPLETE` for
//! every registration (the toolkit's `util::mr`, which holds that binding
//! in the domain's base until it closes).

use crate::util::base::{self, einval};
use crate::util::fabric::{open_domain, Fabric, ProvDomain};
use crate::util::fid::DomainBase;
use crate::util::getinfo::info_domain_name;
use crate::ffi::{kfi_info, sys};
use crate::logic::mr::KeyChooser;
use crate::mr::MrPtr;
use core::ffi::{c_int, c_void};
use kernel::bindings;
use kernel::new_mutex;
use kernel::prelude::*;
use kernel::sync::Mutex;

/// Registered regions of a domain, by key.
pub(crate) struct MrTable {
    /// Sorted by key, keys unique.
    by_key: KVec<(u64, MrPtr)>,
    pub(crate) chooser: KeyChooser,
}

impl MrTable {
    fn new() -> Self {
        MrTable { by_key: KVec::new(), chooser: KeyChooser::default() }
    }

    fn find(&self, key: u64) -> core::result::Result<usize, usize> {
        self.by_key.binary_search_by_key(&key, |e| e.0)
    }

    /// The region registered under `key` (for the RMA target path).
    pub(crate) fn get(&self, key: u64) -> Option<&MrPtr> {
        self.find(key).ok().map(|i| &self.by_key[i].1)
    }

    /// A key chosen by the provider, not in use.
    pub(crate) fn choose_key(&mut self) -> u64 {
        let MrTable { by_key, chooser } = self;
        chooser.choose(|k| by_key.binary_search_by_key(&k, |e| e.0).is_ok())
    }

    /// Adds `mr` under a key not in use: `EEXIST` if it is, `ENOMEM`.
    pub(crate) fn insert(&mut self, key: u64, mr: MrPtr) -> Result {
        let at = match self.find(key) {
            Ok(_) => return Err(EEXIST),
            Err(at) => at,
        };
        self.by_key.push((key, mr), GFP_KERNEL)?;
        self.by_key[at..].rotate_right(1);
        Ok(())
    }

    /// Removes the region registered under `key`, if any.
    pub(crate) fn remove(&mut self, key: u64) -> Option<MrPtr> {
        let at = self.find(key).ok()?;
        base::kvec_remove(&mut self.by_key, at).map(|e| e.1)
    }
}

/// A domain: the consumer sees `dom`.
#[pin_data]
#[repr(C)]
pub(crate) struct Domain {
    /// Header, open children (memory regions, CQs, counters, endpoints)
    /// and the counter list; first.
    #[pin]
    base: DomainBase,
    /// Keys are chosen by the provider (`KFI_MR_PROV_KEY` in the info the
    /// domain was opened with) rather than requested by the consumer.
    pub(crate) prov_key: bool,
    /// The interface the domain was opened on (`domain_attr->name`);
    /// length 0: opened without a name, it serves every interface.
    iface: ([u8; IFNAMSIZ], usize),
    #[pin]
    pub(crate) mrs: Mutex<MrTable>,
}

const _: () = assert!(core::mem::offset_of!(Domain, base) == 0);

/// Longest interface name, with its NUL (`IFNAMSIZ`).
const IFNAMSIZ: usize = 16;

impl Domain {
    /// Resolves the remote regions of an RMA (key, bounds and `need`ed
    /// access checked for each, before any byte moves) into the segments
    /// of the registered memory, in order: one per piece of a region
    /// segment the access touches, however many (allocated once, under
    /// the table's mutex), and whether any of the regions lets peers
    /// write it (`KFI_REMOTE_WRITE`). Errors: the region's
    /// check (-KFI_ENOKEY, -EACCES, -EFAULT), -ENOMEM. Process context.
    pub(crate) fn rma_segs(&self, iovs: &[crate::wire::RmaIov], need: u64) -> Result<(KVec<sys::kfi_util_seg>, bool)> {
        use crate::logic::mr::{check, pieces, MrError, REMOTE_WRITE};
        let mr_err = |e: MrError| Error::from_errno(e.errno());
        let t = self.mrs.lock();
        // Check every region and count the pieces first: nothing is
        // resolved unless all of it is valid.
        let mut n = 0usize;
        for iov in iovs {
            let mr = t.get(iov.key).ok_or(mr_err(MrError::NoKey))?.mr();
            let off = check(&mr.region, iov.addr, iov.len, need).map_err(mr_err)?;
            if !pieces(mr.segs.iter().map(|s| s.len), off, iov.len, |_| n += 1) {
                return Err(mr_err(MrError::OutOfBounds));
            }
        }
        let mut v = KVec::with_capacity(n, GFP_KERNEL)?;
        let mut bad = false;
        let mut writable = false;
        for iov in iovs {
            let mr = t.get(iov.key).ok_or(mr_err(MrError::NoKey))?.mr();
            writable |= mr.region.access & REMOTE_WRITE != 0;
            let off = check(&mr.region, iov.addr, iov.len, need).map_err(mr_err)?;
            pieces(mr.segs.iter().map(|s| s.len), off, iov.len, |p| {
                let s = &mr.segs[p.seg];
                let mut d = *s;
                if s.base.is_null() {
                    match u32::try_from(p.off).ok().and_then(|o| d.offset.checked_add(o)) {
                        Some(o) => d.offset = o,
                        None => bad = true,
                    }
                } else {
                    d.base = s.base.wrapping_byte_add(p.off);
                }
                d.len = p.len;
                // Within the capacity counted above: never allocates.
                bad |= v.push(d, GFP_KERNEL).is_err();
            });
        }
        if bad {
            return Err(mr_err(MrError::OutOfBounds));
        }
        Ok((v, writable))
    }

    /// Recovers a domain from its fid.
    ///
    /// # Safety
    /// `fid` is the fid of a live domain made by `kfi_prov_fabric_domain`
    /// (our domain ops tables only pass those).
    pub(crate) unsafe fn from_fid<'a>(fid: *mut sys::kfid) -> &'a Domain {
        // SAFETY: the fid is the first field of the header, itself first.
        unsafe { &*kernel::container_of!(fid, Domain, base.dom.fid) }
    }

    /// The interface the domain was opened on; `None` if it was opened
    /// without a name (any interface).
    pub(crate) fn iface(&self) -> Option<&[u8]> {
        let (name, len) = &self.iface;
        (*len != 0).then(|| &name[..*len])
    }
}

/// `domain` of a fabric: opens a domain on the interface named by
/// `info->domain_attr->name` (any when not given): -ENODEV if no such
/// interface exists in the fabric's namespace.
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_prov_fabric_domain(
    fabric: *mut sys::kfid_fabric,
    info: *mut kfi_info,
    dom: *mut *mut sys::kfid_domain,
    context: *mut c_void,
) -> c_int {
    if fabric.is_null() || dom.is_null() {
        return einval();
    }
    // SAFETY: the consumer passes NULL or a valid info whose domain name is
    // NULL or a valid string.
    let name = unsafe { info_domain_name(info) };
    let mut iface = ([0u8; IFNAMSIZ], 0);
    let Ok(ifaces) = base::Ifaces::read() else {
        return base::neg(bindings::ENOMEM);
    };
    if let Some(name) = name {
        if name.len() >= IFNAMSIZ {
            return base::neg(bindings::ENODEV);
        }
        iface.0[..name.len()].copy_from_slice(name);
        iface.1 = name.len();
        if !ifaces.views().any(|i| i.name == name) {
            return base::neg(bindings::ENODEV);
        }
    }
    // Endpoints named by NIC address: the net of the domain's interface
    // (any interface when it has none).
    let views = ifaces.views().filter(|i| name.map_or(true, |n| i.name == n));
    // SAFETY: as above (the info's addresses as its lengths say).
    let nic = match unsafe { crate::util::addr::info_nic_net(info, views) } {
        Ok(n) => n,
        Err(e) => return e.to_errno(),
    };
    // SAFETY: as above.
    let dattr = unsafe { info.as_ref().and_then(|i| i.domain_attr.as_ref()) };
    let prov_key = dattr.is_some_and(|d| d.mr_mode & sys::KFI_MR_PROV_KEY as c_int != 0);
    // SAFETY: only our fabric ops table reaches this function.
    let f = unsafe { Fabric::from_header(fabric) };
    let init = pin_init!(Domain {
        base <- DomainBase::new(f, nic),
        prov_key,
        iface,
        mrs <- new_mutex!(MrTable::new(), "kfi_tcp_mrs"),
    });
    // Its statistics are named after its interface ("any" for none).
    let sname: &[u8] = name.unwrap_or(b"any");
    // SAFETY: `f` is live (the consumer holds it open while calling us);
    // `dom` was checked; the glue fills a domain header.
    unsafe { open_domain(f, init, sname, sys::kfi_tcp_glue_domain_init, context, dom) }
}

// SAFETY: `#[repr(C)]` with its `DomainBase` first (asserted above);
// allocated only by `open_domain`.
unsafe impl ProvDomain for Domain {}
