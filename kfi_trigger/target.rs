// SPDX-License-Identifier: GPL-2.0
//! What a provider's endpoint offers the trigger machinery: the target a
//! triggered operation or deferred work is posted on when its counter
//! reaches the threshold.
//!
//! Counters call it only from their work item (`Cntr::issue`, process
//! context, no lock held) and when an operation is posted, cancelled or
//! flushed; the counter-increment path never calls it. Endpoints of
//! another provider are never targets: `Provider::fire_target` answers
//! only for its own.

use super::cntr::Cntr;
use crate::util::sys;

/// An endpoint that triggered operations and deferred work are posted on.
pub(crate) trait FireTarget: Sync {
    /// Checks a transfer posted with `KFI_TRIGGER` as a plain post would;
    /// on success `x` has the flags it will fire with (the endpoint's
    /// defaults included). 0 or a negative errno.
    fn check(&self, x: &mut sys::kfi_util_xfer) -> isize;

    /// As [`FireTarget::check`], for deferred work (fi_trigger(3) rules).
    fn check_deferred(&self, x: &mut sys::kfi_util_xfer) -> isize;

    /// Takes the CQ slot of the operation's completion at post time
    /// (`Ok(false)`: it needs none). Any context.
    fn reserve_for(&self, x: &sys::kfi_util_xfer) -> core::result::Result<bool, isize>;

    /// Gives back what [`FireTarget::reserve_for`] took.
    fn unreserve_for(&self, x: &sys::kfi_util_xfer);

    /// Issues an operation that became due (process context, no lock
    /// held), with `extra` counted on completion: 0, `-EAGAIN` (retried
    /// later, first in line) or another negative errno (then
    /// [`FireTarget::report_lost`] follows).
    fn post_fired(&self, x: &sys::kfi_util_xfer, extra: Option<*const Cntr>, deferred: bool) -> isize;

    /// Completes an operation that will not be issued with error `err` in
    /// the slot it reserved (counted on `extra` too).
    fn report_lost(&self, x: &sys::kfi_util_xfer, err: u32, extra: Option<*const Cntr>, deferred: bool);

    /// Counts a pending operation on this endpoint (which refuses to
    /// close while any is).
    fn trig_inc(&self);

    /// Uncounts it.
    fn trig_dec(&self);
}
