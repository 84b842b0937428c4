// SPDX-License-Identifier: GPL-2.0
//! Per-object statistics in debugfs: `kfabric/<provider>/<domain>/` (made
//! by `kfi_util_glue.c` when a domain opens, removed when it closes) has
//! four files, one line per object, `key=value` fields (README
//! "Statistics"):
//!
//! - `endpoints`: `ep<N>`, its type and state, its addresses, what it
//!   moved each way and how many operations failed
//!   ([`super::queues::EpStats`]);
//! - `cqs`: `cq<N>`, size, depth, overruns ([`Cq::stats`]);
//! - `cntrs`: `cntr<N>`, values and the triggered operations waiting
//!   ([`Cntr::stats`]);
//! - `mr`: the regions registered and their bytes.
//!
//! `N` numbers the objects of a kind in the order they were opened on the
//! domain. Each file is written in process context while the domain's
//! list of that kind is held (objects cannot close meanwhile): every
//! object's own lock is taken only to copy its figures.

use super::cq::Cq;
use super::ep::ProvEp;
use super::fid::DomainBase;
use super::sys;
use super::Provider;
use crate::trigger::cntr::Cntr;
use core::ffi::{c_int, c_uint, c_void};
use core::fmt::{self, Write};
use core::sync::atomic::Ordering;

/// The provider's endpoint object.
type PEp = <crate::Prov as Provider>::Endpoint;

/// A debugfs file being read (`struct seq_file`), as a text sink.
struct SeqOut(*mut c_void);

impl Write for SeqOut {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        // SAFETY: the seq_file `kfi_util_stats_show` was called with, for
        // its call; `s` is valid for `s.len()` bytes. Never sleeps.
        unsafe { sys::kfi_util_seq_write(self.0, s.as_ptr().cast(), s.len()) };
        Ok(())
    }
}

/// One endpoint's line.
fn endpoint(w: &mut dyn Write, id: u32, e: &PEp) -> fmt::Result {
    let b = e.base();
    write!(w, "ep{id} ")?;
    b.stats_type(w)?;
    let s = e.data().stats();
    let mut addrs = [0u8; 128];
    // SAFETY: the endpoint is open (listed); `addrs` has room for its
    // length; process context, as its getname/getpeer need.
    let n = unsafe { sys::kfi_util_ep_addrs(b.header(), addrs.as_mut_ptr().cast(), addrs.len()) };
    let addrs = core::str::from_utf8(&addrs[..n.min(addrs.len())]).unwrap_or("");
    let state = match (s.enabled, s.down) {
        (false, _) => "new",
        (true, true) => "down",
        // A MSG endpoint with a peer is connected.
        (true, false) if !b.is_rdm() && addrs.contains(" peer=") => "connected",
        (true, false) => "enabled",
    };
    let m = &s.moved;
    writeln!(
        w,
        " state={state}{addrs} tx_ops={} tx_bytes={} rx_ops={} rx_bytes={} tx_errors={} rx_errors={} tx_busy={} rx_posted={} triggered={}",
        m.tx_ops, m.tx_bytes, m.rx_ops, m.rx_bytes, m.tx_errors, m.rx_errors, s.tx_busy, s.rx_posted, s.triggered
    )
}

/// The line saying how many objects could not be listed, if any.
fn unlisted(w: &mut dyn Write, n: usize, what: &str) -> fmt::Result {
    if n != 0 {
        writeln!(w, "# {n} {what} not listed (no memory when opened)")?;
    }
    Ok(())
}

fn write_file(w: &mut dyn Write, d: &DomainBase, file: u32) -> fmt::Result {
    let mut res = Ok(());
    match file {
        sys::KFI_UTIL_STATS_EPS => {
            let n = d.eps.each(|id, a| {
                // SAFETY: listed endpoints are open: the close unlists
                // first, waiting for this list.
                res = res.and_then(|_| endpoint(w, id, unsafe { &*(a as *const PEp) }));
            });
            res?;
            unlisted(w, n, "endpoints")
        }
        sys::KFI_UTIL_STATS_CQS => {
            let n = d.cqs.each(|id, a| {
                // SAFETY: as for endpoints.
                let cq = unsafe { &*(a as *const Cq) };
                res = res.and_then(|_| {
                    write!(w, "cq{id} ")?;
                    cq.stats(w)?;
                    w.write_char('\n')
                });
            });
            res?;
            unlisted(w, n, "CQs")
        }
        sys::KFI_UTIL_STATS_CNTRS => {
            d.cntrs.each(|id, c: &Cntr| {
                res = res.and_then(|_| {
                    write!(w, "cntr{id} ")?;
                    c.stats(w)?;
                    w.write_char('\n')
                });
            });
            res
        }
        sys::KFI_UTIL_STATS_MR => writeln!(
            w,
            "regions={} bytes={}",
            d.mr_count.load(Ordering::Relaxed),
            d.mr_bytes.load(Ordering::Relaxed)
        ),
        _ => Ok(()),
    }
}

/// Writes statistics file `file` (`KFI_UTIL_STATS_*`) of domain `dom`
/// into the seq_file `m` (kfi_util_glue.c's show functions). 0.
///
/// # Safety
/// `m` is the seq_file being read; `dom` is the `DomainBase` of an open
/// domain (the file is removed before its domain is freed, and removal
/// waits for readers).
#[no_mangle]
pub(crate) unsafe extern "C" fn kfi_util_stats_show(m: *mut c_void, dom: *mut c_void, file: c_uint) -> c_int {
    // SAFETY: by the caller's contract.
    let d = unsafe { &*dom.cast::<DomainBase>() };
    // A seq_file keeps what was written; an overflow makes it call again
    // with more room, so a write error cannot happen here.
    let _ = write_file(&mut SeqOut(m), d, file);
    0
}
