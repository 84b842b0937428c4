// SPDX-License-Identifier: GPL-2.0
//! Flag and enum values of the kfabric 1.7 ABI, as the logic needs them.
//!
//! These mirror `include/*.h`. They are not a second source of truth: the module
//! asserts at compile time that every value here equals the one bindgen read
//! from the headers (`rust/abi_check.rs`), so a drift fails the build.

#![allow(missing_docs)] // field and value names are those of the C API

/// Builds an API version number from its parts (`KFI_VERSION`).
pub const fn version(major: u32, minor: u32) -> u32 {
    (major << 16) | minor
}
/// Major part of a version number (`KFI_MAJOR`).
pub const fn major(v: u32) -> u32 {
    v >> 16
}
/// Minor part of a version number (`KFI_MINOR`).
pub const fn minor(v: u32) -> u32 {
    v & 0xffff
}
/// The API version this implementation provides.
pub const KFI_MAJOR_VERSION: u32 = 1;
/// See [`KFI_MAJOR_VERSION`].
pub const KFI_MINOR_VERSION: u32 = 7;
/// `KFI_VERSION(KFI_MAJOR_VERSION, KFI_MINOR_VERSION)`.
pub const API_VERSION: u32 = version(KFI_MAJOR_VERSION, KFI_MINOR_VERSION);

/// The API version a caller's `version` argument stands for, or `None` when
/// it is newer than ours (refused with -ENOSYS). 0 means "any": it stands for
/// ours. Older versions, of any major number, are served as asked (libfabric
/// v1.17 `fi_getinfo` refuses only `FI_VERSION_LT(fi_version(), version)`).
pub const fn effective_version(version: u32) -> Option<u32> {
    if version == 0 {
        Some(API_VERSION)
    } else if version > API_VERSION {
        None
    } else {
        Some(version)
    }
}

/// `KFI_SHARED_CONTEXT`: an ep `tx_ctx_cnt`/`rx_ctx_cnt` asking for shared
/// contexts (`UINT64_MAX` in the header).
pub const KFI_SHARED_CONTEXT: usize = usize::MAX;

// Capability and operation flag bits (kfi_info.caps, op flags, CQ flags).
pub const KFI_MSG: u64 = 1 << 1;
pub const KFI_RMA: u64 = 1 << 2;
pub const KFI_TAGGED: u64 = 1 << 3;
pub const KFI_ATOMIC: u64 = 1 << 4;
pub const KFI_MULTICAST: u64 = 1 << 5;
pub const KFI_TAGGED_RMA: u64 = 1 << 6;
pub const KFI_READ: u64 = 1 << 8;
pub const KFI_WRITE: u64 = 1 << 9;
pub const KFI_RECV: u64 = 1 << 10;
pub const KFI_SEND: u64 = 1 << 11;
pub const KFI_REMOTE_READ: u64 = 1 << 12;
pub const KFI_REMOTE_WRITE: u64 = 1 << 13;
pub const KFI_MULTI_RECV: u64 = 1 << 16;
pub const KFI_REMOTE_CQ_DATA: u64 = 1 << 17;
pub const KFI_MORE: u64 = 1 << 18;
pub const KFI_PEEK: u64 = 1 << 19;
pub const KFI_TRIGGER: u64 = 1 << 20;
pub const KFI_FENCE: u64 = 1 << 21;
pub const KFI_COMPLETION: u64 = 1 << 24;
pub const KFI_INJECT: u64 = 1 << 25;
pub const KFI_INJECT_COMPLETE: u64 = 1 << 26;
pub const KFI_TRANSMIT_COMPLETE: u64 = 1 << 27;
pub const KFI_DELIVERY_COMPLETE: u64 = 1 << 28;
pub const KFI_AFFINITY: u64 = 1 << 29;
pub const KFI_COMMIT_COMPLETE: u64 = 1 << 30;
pub const KFI_TAGGED_MULTI_RECV: u64 = 1 << 31;
pub const KFI_RMA_PMEM: u64 = 1 << 49;
pub const KFI_SOURCE_ERR: u64 = 1 << 50;
pub const KFI_LOCAL_COMM: u64 = 1 << 51;
pub const KFI_REMOTE_COMM: u64 = 1 << 52;
pub const KFI_SHARED_AV: u64 = 1 << 53;
pub const KFI_PROV_ATTR_ONLY: u64 = 1 << 54;
pub const KFI_NUMERICHOST: u64 = 1 << 55;
pub const KFI_RMA_EVENT: u64 = 1 << 56;
pub const KFI_SOURCE: u64 = 1 << 57;
pub const KFI_NAMED_RX_CTX: u64 = 1 << 58;
pub const KFI_DIRECTED_RECV: u64 = 1 << 59;

// Mode bits (kfi_info.mode and attr modes).
pub const KFI_CONTEXT: u64 = 1 << 59;
pub const KFI_MSG_PREFIX: u64 = 1 << 58;
pub const KFI_ASYNC_IOV: u64 = 1 << 57;
pub const KFI_RX_CQ_DATA: u64 = 1 << 56;
pub const KFI_LOCAL_MR: u64 = 1 << 55;
pub const KFI_NOTIFY_FLAGS_ONLY: u64 = 1 << 54;
pub const KFI_RESTRICTED_COMP: u64 = 1 << 53;
pub const KFI_CONTEXT2: u64 = 1 << 52;

// Address formats.
pub const KFI_FORMAT_UNSPEC: u32 = 0;
pub const KFI_SOCKADDR: u32 = 1;
pub const KFI_SOCKADDR_IN: u32 = 2;
pub const KFI_SOCKADDR_IN6: u32 = 3;
pub const KFI_SOCKADDR_IB: u32 = 4;
pub const KFI_ADDR_GNI: u32 = 5;
pub const KFI_ADDR_CXI: u32 = 6;

// enum kfi_ep_type
pub const KFI_EP_UNSPEC: u32 = 0;
pub const KFI_EP_MSG: u32 = 1;
pub const KFI_EP_DGRAM: u32 = 2;
pub const KFI_EP_RDM: u32 = 3;
pub const KFI_EP_SOCK_STREAM: u32 = 4;
pub const KFI_EP_SOCK_DGRAM: u32 = 5;

// Endpoint protocols.
pub const KFI_PROTO_UNSPEC: u32 = 0;
pub const KFI_PROTO_RDMA_CM_IB_RC: u32 = 1;
pub const KFI_PROTO_IWARP: u32 = 2;
pub const KFI_PROTO_IB_UD: u32 = 3;
pub const KFI_PROTO_UDP: u32 = 4;
pub const KFI_PROTO_SOCK_TCP: u32 = 5;
pub const KFI_PROTO_IWARP_RDM: u32 = 6;
pub const KFI_PROTO_IB_RDM: u32 = 7;
pub const KFI_PROTO_GNI: u32 = 8;
pub const KFI_PROTO_CXI: u32 = 9;

// enum kfi_threading
pub const KFI_THREAD_UNSPEC: u32 = 0;
pub const KFI_THREAD_SAFE: u32 = 1;
pub const KFI_THREAD_FID: u32 = 2;
pub const KFI_THREAD_DOMAIN: u32 = 3;
pub const KFI_THREAD_COMPLETION: u32 = 4;
pub const KFI_THREAD_ENDPOINT: u32 = 5;

// enum kfi_progress
pub const KFI_PROGRESS_UNSPEC: u32 = 0;
pub const KFI_PROGRESS_AUTO: u32 = 1;
pub const KFI_PROGRESS_MANUAL: u32 = 2;

// enum kfi_resource_mgmt
pub const KFI_RM_UNSPEC: u32 = 0;
pub const KFI_RM_DISABLED: u32 = 1;
pub const KFI_RM_ENABLED: u32 = 2;

// enum kfi_av_type
pub const KFI_AV_UNSPEC: u32 = 0;
pub const KFI_AV_MAP: u32 = 1;
pub const KFI_AV_TABLE: u32 = 2;

// MR modes (domain_attr.mr_mode).
pub const KFI_MR_LOCAL: i32 = 1 << 1;
pub const KFI_MR_RAW: i32 = 1 << 2;
pub const KFI_MR_VIRT_ADDR: i32 = 1 << 3;
pub const KFI_MR_PROV_KEY: i32 = 1 << 4;
pub const KFI_MR_RMA_EVENT: i32 = 1 << 5;
pub const KFI_MR_ENDPOINT: i32 = 1 << 6;

// Message ordering bits.
pub const KFI_ORDER_RAR: u64 = 1 << 0;
pub const KFI_ORDER_RAW: u64 = 1 << 1;
pub const KFI_ORDER_RAS: u64 = 1 << 2;
pub const KFI_ORDER_WAR: u64 = 1 << 3;
pub const KFI_ORDER_WAW: u64 = 1 << 4;
pub const KFI_ORDER_WAS: u64 = 1 << 5;
pub const KFI_ORDER_SAR: u64 = 1 << 6;
pub const KFI_ORDER_SAW: u64 = 1 << 7;
pub const KFI_ORDER_SAS: u64 = 1 << 8;
pub const KFI_ORDER_DATA: u64 = 1 << 16;

/// Flags `kfi_getinfo` accepts; anything else is rejected with -EINVAL.
pub const GETINFO_FLAGS: u64 = KFI_SOURCE | KFI_NUMERICHOST | KFI_PROV_ATTR_ONLY;

// Extended error codes (kfi_errno.h); Linux errnos are used for the rest.
pub const KFI_EOTHER: i32 = 256;
pub const KFI_ETOOSMALL: i32 = 257;
pub const KFI_EOPBADSTATE: i32 = 258;
pub const KFI_EAVAIL: i32 = 259;
pub const KFI_EBADFLAGS: i32 = 260;
pub const KFI_ENOEQ: i32 = 261;
pub const KFI_EDOMAIN: i32 = 262;
pub const KFI_ENOCQ: i32 = 263;
pub const KFI_ECRC: i32 = 264;
pub const KFI_ETRUNC: i32 = 265;
pub const KFI_ENOKEY: i32 = 266;
pub const KFI_ENOAV: i32 = 267;
pub const KFI_EOVERRUN: i32 = 268;
