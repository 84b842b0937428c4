// SPDX-License-Identifier: GPL-2.0
//! Host build of `kfi_tcp/logic`: the same source files `kfi_tcp.ko`
//! compiles.
#![no_std]

#[path = "../../kfi_tcp/logic/xfer_tcp.rs"]
pub mod xfer_tcp;
// The toolkit's rules xfer_tcp builds on (tested in host crate kfi-util-logic).
#[path = "../../kfi_util/logic/xfer.rs"]
pub mod xfer;

/// The module tree as kfi_tcp.ko sees it: `crate::logic::xfer_tcp`
/// and the toolkit's `xfer` (the toolkit's `cq`, `eq`, `xfer`, `plan` and `mr`
/// are tested in host crate kfi-util-logic).
pub mod logic {
    pub use crate::{xfer, xfer_tcp};
}
