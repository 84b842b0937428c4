// SPDX-License-Identifier: GPL-2.0
//! Kernel-independent logic of the kfabric core.
//!
//! Everything here is written against `core` only. The same files are compiled
//! into `kfabric.ko` (as the `logic` module of the crate) and into the host crate
//! `host/kfabric-logic`, where `cargo test` exercises exactly the code the module
//! runs. Nothing here touches C structures: the module converts them into the
//! plain views of [`view`] first.

pub mod abi;
pub mod errstr;
pub mod hints;
pub mod host;
pub mod rank;
pub mod tostr;
pub mod view;
pub mod writer;
