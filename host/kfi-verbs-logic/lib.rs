// SPDX-License-Identifier: GPL-2.0
//! Host build of `kfi_verbs/logic`: the same source files `kfi_verbs.ko`
//! compiles.
#![no_std]

#[path = "../../kfi_verbs/logic/info.rs"]
pub mod info;
#[path = "../../kfi_verbs/logic/cmdata.rs"]
pub mod cmdata;
#[path = "../../kfi_verbs/logic/status.rs"]
pub mod status;
#[path = "../../kfi_verbs/logic/atomic.rs"]
pub mod atomic;
#[path = "../../kfi_verbs/logic/proto.rs"]
pub mod proto;
