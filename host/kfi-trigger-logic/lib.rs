// SPDX-License-Identifier: GPL-2.0
//! Host build of `kfi_trigger/engine.rs`: the same source file the trigger
//! engine in the kernel compiles.
#![no_std]

#[path = "../../kfi_trigger/engine.rs"]
pub mod engine;
