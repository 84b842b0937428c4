// SPDX-License-Identifier: GPL-2.0
//! Host build of `kfi_util/logic`, the provider-independent logic every
//! provider compiles (Documentation/toolkit-plan.md): the same source files
//! the provider modules mount.
#![no_std]

#[path = "../../kfi_util/logic/eq.rs"]
pub mod eq;
#[path = "../../kfi_util/logic/cq.rs"]
pub mod cq;
#[path = "../../kfi_util/logic/xfer.rs"]
pub mod xfer;
#[path = "../../kfi_util/logic/plan.rs"]
pub mod plan;
#[path = "../../kfi_util/logic/mr.rs"]
pub mod mr;
#[path = "../../kfi_util/logic/av.rs"]
pub mod av;
#[path = "../../kfi_util/logic/rxm.rs"]
pub mod rxm;
#[path = "../../kfi_util/logic/connmap.rs"]
pub mod connmap;
#[path = "../../kfi_util/logic/nic.rs"]
pub mod nic;
// The core's numeric host and port parser, which `plan` uses.
#[path = "../../rust/logic/host.rs"]
pub mod host;

/// The module tree as a provider sees it: `crate::util::logic::{cq, eq,
/// xfer, plan, mr, av, rxm, connmap, nic, host}`.
pub mod logic {
    pub use crate::{av, connmap, cq, eq, host, mr, nic, plan, rxm, xfer};
}
