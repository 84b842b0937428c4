// SPDX-License-Identifier: GPL-2.0
//! Host build of `kfi_tcp/logic` (plus the core's `host` parser it uses):
//! the same source files `kfi_tcp.ko` compiles.
#![no_std]

#[path = "../../rust/logic/host.rs"]
pub mod host;
#[path = "../../kfi_tcp/logic/plan.rs"]
pub mod plan;
#[path = "../../kfi_tcp/logic/mr.rs"]
pub mod mr;
#[path = "../../kfi_tcp/logic/xfer_tcp.rs"]
pub mod xfer_tcp;
// The toolkit's rules xfer_tcp builds on (tested in host crate kfi-util-logic).
#[path = "../../kfi_util/logic/xfer.rs"]
pub mod xfer;

/// The module tree as kfi_tcp.ko sees it: `crate::logic::{host, plan, mr,
/// xfer_tcp}` and the toolkit's `xfer` (its `cq`, `eq` and `xfer` are tested
/// in host crate kfi-util-logic).
pub mod logic {
    pub use crate::{host, mr, plan, xfer, xfer_tcp};
}
