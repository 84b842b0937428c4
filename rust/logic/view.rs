// SPDX-License-Identifier: GPL-2.0
//! Plain, borrow-only views of `struct kfi_info` and its attributes.
//!
//! The module builds these from the C structures (`rust/info.rs`); the matching
//! and formatting logic works on them only, so it runs unchanged on the host.
//! A `None` attribute stands for a NULL attribute pointer in C; a `None` name
//! for a NULL string.

#![allow(missing_docs)] // field and value names are those of the C API

/// View of `struct kfi_tx_attr`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxAttr {
    pub caps: u64,
    pub mode: u64,
    pub op_flags: u64,
    pub msg_order: u64,
    pub comp_order: u64,
    pub inject_size: usize,
    pub size: usize,
    pub iov_limit: usize,
    pub rma_iov_limit: usize,
    pub tclass: u32,
}

/// View of `struct kfi_rx_attr`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxAttr {
    pub caps: u64,
    pub mode: u64,
    pub op_flags: u64,
    pub msg_order: u64,
    pub comp_order: u64,
    pub total_buffered_recv: usize,
    pub size: usize,
    pub iov_limit: usize,
}

/// View of `struct kfi_ep_attr`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EpAttr {
    pub ep_type: u32,
    pub protocol: u32,
    pub protocol_version: u32,
    pub max_msg_size: usize,
    pub msg_prefix_size: usize,
    pub max_order_raw_size: usize,
    pub max_order_war_size: usize,
    pub max_order_waw_size: usize,
    pub mem_tag_format: u64,
    pub tx_ctx_cnt: usize,
    pub rx_ctx_cnt: usize,
    pub auth_key_size: usize,
}

/// View of `struct kfi_domain_attr`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DomainAttr<'a> {
    pub name: Option<&'a [u8]>,
    pub threading: u32,
    pub control_progress: u32,
    pub data_progress: u32,
    pub resource_mgmt: u32,
    pub av_type: u32,
    pub mr_mode: i32,
    pub mr_key_size: usize,
    pub cq_data_size: usize,
    pub cq_cnt: usize,
    pub ep_cnt: usize,
    pub tx_ctx_cnt: usize,
    pub rx_ctx_cnt: usize,
    pub max_ep_tx_ctx: usize,
    pub max_ep_rx_ctx: usize,
    pub max_ep_stx_ctx: usize,
    pub max_ep_srx_ctx: usize,
    pub cntr_cnt: usize,
    pub mr_iov_limit: usize,
    pub caps: u64,
    pub mode: u64,
    pub auth_key_size: usize,
    pub max_err_data: usize,
    pub mr_cnt: usize,
    pub tclass: u32,
}

/// View of `struct kfi_fabric_attr`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FabricAttr<'a> {
    pub name: Option<&'a [u8]>,
    pub prov_name: Option<&'a [u8]>,
    pub prov_version: u32,
    pub api_version: u32,
}

/// View of one `struct kfi_info` entry (not the list).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Info<'a> {
    pub caps: u64,
    pub mode: u64,
    pub addr_format: u32,
    pub src_addrlen: usize,
    pub dest_addrlen: usize,
    pub tx: Option<TxAttr>,
    pub rx: Option<RxAttr>,
    pub ep: Option<EpAttr>,
    pub domain: Option<DomainAttr<'a>>,
    pub fabric: Option<FabricAttr<'a>>,
}
