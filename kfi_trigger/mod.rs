// SPDX-License-Identifier: GPL-2.0
//! Counters, triggered operations and deferred work: the whole
//! `KFI_TRIGGER` machinery, the same for every provider. A provider mounts
//! it at `crate::trigger` (`#[path = "../kfi_trigger/mod.rs"] mod
//! trigger;`) next to the toolkit (`crate::util`, see `kfi_util/mod.rs`),
//! compiles `kfi_trigger_glue.c` (the counter ops table), points its
//! domain ops table's `cntr_open` and `control` at
//! `kfi_util_domain_cntr_open` and `kfi_util_domain_control`, and
//! implements [`target::FireTarget`] for its endpoints (found through
//! `crate::Prov`, see `util::Provider`).
//!
//! - `engine`: the ordering of pending operations by (threshold,
//!   submission), kernel-independent (also the host crate
//!   `kfi-trigger-logic`);
//! - `cntr`: counters and each domain's counter list;
//! - `trig`: triggered transfers and deferred work;
//! - `target`: what an endpoint offers to fire operations on.

pub(crate) mod cntr;
pub(crate) mod target;
pub(crate) mod trig;

// Shared with the host crate; some helpers are used only by host tests.
#[allow(dead_code, unreachable_pub)]
pub(crate) mod engine;
