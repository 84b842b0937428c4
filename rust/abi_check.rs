// SPDX-License-Identifier: GPL-2.0
//! Compile-time checks tying `logic::abi` and the struct layouts to the
//! headers in `include/` (through bindgen's output). A header change that
//! breaks an assumption of the Rust code fails the build here.

use kernel::bindings;
use crate::ffi::sys;
use crate::logic::abi as a;
use core::mem::{offset_of, size_of};

/// Asserts that each named constant has the same value in the headers
/// (bindgen) and in `logic::abi`.
macro_rules! same_value {
    ($($name:ident),* $(,)?) => {
        $(const _: () = assert!(sys::$name as u64 == a::$name as u64, stringify!($name));)*
    };
}

same_value!(
    KFI_MAJOR_VERSION, KFI_MINOR_VERSION,
    KFI_MSG, KFI_RMA, KFI_TAGGED, KFI_ATOMIC, KFI_MULTICAST, KFI_TAGGED_RMA, KFI_READ,
    KFI_WRITE, KFI_RECV, KFI_SEND, KFI_REMOTE_READ, KFI_REMOTE_WRITE, KFI_MULTI_RECV,
    KFI_REMOTE_CQ_DATA, KFI_MORE, KFI_PEEK, KFI_TRIGGER, KFI_FENCE, KFI_COMPLETION,
    KFI_INJECT, KFI_INJECT_COMPLETE, KFI_TRANSMIT_COMPLETE, KFI_DELIVERY_COMPLETE,
    KFI_AFFINITY, KFI_COMMIT_COMPLETE, KFI_TAGGED_MULTI_RECV, KFI_RMA_PMEM, KFI_SOURCE_ERR,
    KFI_LOCAL_COMM, KFI_REMOTE_COMM, KFI_SHARED_AV, KFI_PROV_ATTR_ONLY, KFI_NUMERICHOST,
    KFI_RMA_EVENT, KFI_SOURCE, KFI_NAMED_RX_CTX, KFI_DIRECTED_RECV,
    KFI_CONTEXT, KFI_MSG_PREFIX, KFI_ASYNC_IOV, KFI_RX_CQ_DATA, KFI_LOCAL_MR,
    KFI_NOTIFY_FLAGS_ONLY, KFI_RESTRICTED_COMP, KFI_CONTEXT2,
    KFI_FORMAT_UNSPEC, KFI_SOCKADDR, KFI_SOCKADDR_IN, KFI_SOCKADDR_IN6, KFI_SOCKADDR_IB,
    KFI_ADDR_GNI, KFI_ADDR_CXI,
    KFI_EP_UNSPEC, KFI_EP_MSG, KFI_EP_DGRAM, KFI_EP_RDM, KFI_EP_SOCK_STREAM, KFI_EP_SOCK_DGRAM,
    KFI_PROTO_UNSPEC, KFI_PROTO_RDMA_CM_IB_RC, KFI_PROTO_IWARP, KFI_PROTO_IB_UD, KFI_PROTO_UDP,
    KFI_PROTO_SOCK_TCP, KFI_PROTO_IWARP_RDM, KFI_PROTO_IB_RDM, KFI_PROTO_GNI, KFI_PROTO_CXI,
    KFI_THREAD_UNSPEC, KFI_THREAD_SAFE, KFI_THREAD_FID, KFI_THREAD_DOMAIN,
    KFI_THREAD_COMPLETION, KFI_THREAD_ENDPOINT,
    KFI_PROGRESS_UNSPEC, KFI_PROGRESS_AUTO, KFI_PROGRESS_MANUAL,
    KFI_RM_UNSPEC, KFI_RM_DISABLED, KFI_RM_ENABLED,
    KFI_AV_UNSPEC, KFI_AV_MAP, KFI_AV_TABLE,
    KFI_MR_LOCAL, KFI_MR_RAW, KFI_MR_VIRT_ADDR, KFI_MR_PROV_KEY, KFI_MR_RMA_EVENT,
    KFI_MR_ENDPOINT,
    KFI_ORDER_RAR, KFI_ORDER_RAW, KFI_ORDER_RAS, KFI_ORDER_WAR, KFI_ORDER_WAW, KFI_ORDER_WAS,
    KFI_ORDER_SAR, KFI_ORDER_SAW, KFI_ORDER_SAS, KFI_ORDER_DATA,
    KFI_EOTHER, KFI_ETOOSMALL, KFI_EOPBADSTATE, KFI_EAVAIL, KFI_EBADFLAGS, KFI_ENOEQ,
    KFI_EDOMAIN, KFI_ENOCQ, KFI_ECRC, KFI_ETRUNC, KFI_ENOKEY, KFI_ENOAV, KFI_EOVERRUN,
);

// The Linux errno numbers `logic::errstr` uses are the kernel's.
const _: () = {
    let t = crate::logic::errstr::LINUX;
    let mut i = 0;
    while i < t.len() {
        assert!(t[i].0 > 0 && t[i].0 < 256);
        i += 1;
    }
    assert!(bindings::EINVAL == 22 && bindings::ENODATA == 61 && bindings::ECANCELED == 125);
    assert!(bindings::EKEYREJECTED == 129 && bindings::ETIMEDOUT == 110);
};

// Layouts: the fields the Rust code touches, against the C definitions.
const _: () = assert!(offset_of!(sys::kfi_info, next) == 0);
const _: () = assert!(size_of::<sys::kfi_info>() == 14 * 8);
const _: () = assert!(size_of::<sys::kfi_fabric_attr>() == 4 * 8);
const _: () = assert!(offset_of!(sys::kfid, fclass) == 0);
const _: () = assert!(offset_of!(sys::kfid_fabric, fid) == 0);
const _: () = assert!(size_of::<sys::kfi_ops>() == 5 * 8);
const _: () = assert!(offset_of!(crate::ffi::FabricGuard, ops) == 0);
// kfi_context / kfi_context2: four and eight words (the triggered context
// must fit in them).
const _: () = assert!(size_of::<sys::kfi_context>() == 4 * 8);
const _: () = assert!(size_of::<sys::kfi_context2>() == 8 * 8);
