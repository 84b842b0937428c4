// SPDX-License-Identifier: GPL-2.0
//! `kfi_tostr`: human-readable text for kfabric values and structures.
//!
//! The layout follows libfabric's `fi_tostr` (a YAML-like block per structure,
//! flag sets as `[ A, B ]`) with kfabric's `KFI_` names. The debugfs listing of
//! `kfabric/info` is this output for every entry of every provider.

use crate::logic::abi::*;
use crate::logic::view::{DomainAttr, EpAttr, FabricAttr, Info, RxAttr, TxAttr};
use core::fmt::{self, Write};

/// A value `kfi_tostr` can print; mirrors `enum kfi_type`.
#[derive(Clone, Copy, Debug)]
pub enum Value<'a> {
    Info(&'a Info<'a>),
    EpType(u32),
    Caps(u64),
    OpFlags(u64),
    AddrFormat(u32),
    TxAttr(&'a TxAttr),
    RxAttr(&'a RxAttr),
    EpAttr(&'a EpAttr),
    DomainAttr(&'a DomainAttr<'a>),
    FabricAttr(&'a FabricAttr<'a>),
    Threading(u32),
    Progress(u32),
    Protocol(u32),
    MsgOrder(u64),
    Mode(u64),
    AvType(u32),
    AtomicType(u32),
    AtomicOp(u32),
    Version,
    EqEvent(u32),
    CqEventFlags(u64),
    MrMode(i32),
    OpType(u32),
}

const CAPS: &[(u64, &str)] = &[
    (KFI_MSG, "KFI_MSG"),
    (KFI_RMA, "KFI_RMA"),
    (KFI_TAGGED, "KFI_TAGGED"),
    (KFI_ATOMIC, "KFI_ATOMIC"),
    (KFI_MULTICAST, "KFI_MULTICAST"),
    (KFI_TAGGED_RMA, "KFI_TAGGED_RMA"),
    (KFI_READ, "KFI_READ"),
    (KFI_WRITE, "KFI_WRITE"),
    (KFI_RECV, "KFI_RECV"),
    (KFI_SEND, "KFI_SEND"),
    (KFI_REMOTE_READ, "KFI_REMOTE_READ"),
    (KFI_REMOTE_WRITE, "KFI_REMOTE_WRITE"),
    (KFI_MULTI_RECV, "KFI_MULTI_RECV"),
    (KFI_REMOTE_CQ_DATA, "KFI_REMOTE_CQ_DATA"),
    (KFI_TRIGGER, "KFI_TRIGGER"),
    (KFI_FENCE, "KFI_FENCE"),
    (KFI_TAGGED_MULTI_RECV, "KFI_TAGGED_MULTI_RECV"),
    (KFI_RMA_PMEM, "KFI_RMA_PMEM"),
    (KFI_SOURCE_ERR, "KFI_SOURCE_ERR"),
    (KFI_LOCAL_COMM, "KFI_LOCAL_COMM"),
    (KFI_REMOTE_COMM, "KFI_REMOTE_COMM"),
    (KFI_SHARED_AV, "KFI_SHARED_AV"),
    (KFI_RMA_EVENT, "KFI_RMA_EVENT"),
    (KFI_SOURCE, "KFI_SOURCE"),
    (KFI_NAMED_RX_CTX, "KFI_NAMED_RX_CTX"),
    (KFI_DIRECTED_RECV, "KFI_DIRECTED_RECV"),
];

const OP_FLAGS: &[(u64, &str)] = &[
    (KFI_MULTI_RECV, "KFI_MULTI_RECV"),
    (KFI_REMOTE_CQ_DATA, "KFI_REMOTE_CQ_DATA"),
    (KFI_MORE, "KFI_MORE"),
    (KFI_PEEK, "KFI_PEEK"),
    (KFI_TRIGGER, "KFI_TRIGGER"),
    (KFI_FENCE, "KFI_FENCE"),
    (KFI_COMPLETION, "KFI_COMPLETION"),
    (KFI_INJECT, "KFI_INJECT"),
    (KFI_INJECT_COMPLETE, "KFI_INJECT_COMPLETE"),
    (KFI_TRANSMIT_COMPLETE, "KFI_TRANSMIT_COMPLETE"),
    (KFI_DELIVERY_COMPLETE, "KFI_DELIVERY_COMPLETE"),
    (KFI_AFFINITY, "KFI_AFFINITY"),
    (KFI_COMMIT_COMPLETE, "KFI_COMMIT_COMPLETE"),
];

const CQ_FLAGS: &[(u64, &str)] = &[
    (KFI_MSG, "KFI_MSG"),
    (KFI_RMA, "KFI_RMA"),
    (KFI_TAGGED, "KFI_TAGGED"),
    (KFI_ATOMIC, "KFI_ATOMIC"),
    (KFI_READ, "KFI_READ"),
    (KFI_WRITE, "KFI_WRITE"),
    (KFI_RECV, "KFI_RECV"),
    (KFI_SEND, "KFI_SEND"),
    (KFI_REMOTE_READ, "KFI_REMOTE_READ"),
    (KFI_REMOTE_WRITE, "KFI_REMOTE_WRITE"),
    (KFI_MULTI_RECV, "KFI_MULTI_RECV"),
    (KFI_REMOTE_CQ_DATA, "KFI_REMOTE_CQ_DATA"),
];

const MODES: &[(u64, &str)] = &[
    (KFI_CONTEXT, "KFI_CONTEXT"),
    (KFI_MSG_PREFIX, "KFI_MSG_PREFIX"),
    (KFI_ASYNC_IOV, "KFI_ASYNC_IOV"),
    (KFI_RX_CQ_DATA, "KFI_RX_CQ_DATA"),
    (KFI_LOCAL_MR, "KFI_LOCAL_MR"),
    (KFI_NOTIFY_FLAGS_ONLY, "KFI_NOTIFY_FLAGS_ONLY"),
    (KFI_RESTRICTED_COMP, "KFI_RESTRICTED_COMP"),
    (KFI_CONTEXT2, "KFI_CONTEXT2"),
];

const ORDER: &[(u64, &str)] = &[
    (KFI_ORDER_RAR, "KFI_ORDER_RAR"),
    (KFI_ORDER_RAW, "KFI_ORDER_RAW"),
    (KFI_ORDER_RAS, "KFI_ORDER_RAS"),
    (KFI_ORDER_WAR, "KFI_ORDER_WAR"),
    (KFI_ORDER_WAW, "KFI_ORDER_WAW"),
    (KFI_ORDER_WAS, "KFI_ORDER_WAS"),
    (KFI_ORDER_SAR, "KFI_ORDER_SAR"),
    (KFI_ORDER_SAW, "KFI_ORDER_SAW"),
    (KFI_ORDER_SAS, "KFI_ORDER_SAS"),
    (KFI_ORDER_DATA, "KFI_ORDER_DATA"),
];

const MR_MODES: &[(u64, &str)] = &[
    (KFI_MR_LOCAL as u64, "KFI_MR_LOCAL"),
    (KFI_MR_RAW as u64, "KFI_MR_RAW"),
    (KFI_MR_VIRT_ADDR as u64, "KFI_MR_VIRT_ADDR"),
    (KFI_MR_PROV_KEY as u64, "KFI_MR_PROV_KEY"),
    (KFI_MR_RMA_EVENT as u64, "KFI_MR_RMA_EVENT"),
    (KFI_MR_ENDPOINT as u64, "KFI_MR_ENDPOINT"),
];

const EP_TYPES: &[&str] = &[
    "KFI_EP_UNSPEC",
    "KFI_EP_MSG",
    "KFI_EP_DGRAM",
    "KFI_EP_RDM",
    "KFI_EP_SOCK_STREAM",
    "KFI_EP_SOCK_DGRAM",
];
const ADDR_FORMATS: &[&str] = &[
    "KFI_FORMAT_UNSPEC",
    "KFI_SOCKADDR",
    "KFI_SOCKADDR_IN",
    "KFI_SOCKADDR_IN6",
    "KFI_SOCKADDR_IB",
    "KFI_ADDR_GNI",
    "KFI_ADDR_CXI",
];
const THREADING: &[&str] = &[
    "KFI_THREAD_UNSPEC",
    "KFI_THREAD_SAFE",
    "KFI_THREAD_FID",
    "KFI_THREAD_DOMAIN",
    "KFI_THREAD_COMPLETION",
    "KFI_THREAD_ENDPOINT",
];
const PROGRESS: &[&str] = &["KFI_PROGRESS_UNSPEC", "KFI_PROGRESS_AUTO", "KFI_PROGRESS_MANUAL"];
const RESOURCE_MGMT: &[&str] = &["KFI_RM_UNSPEC", "KFI_RM_DISABLED", "KFI_RM_ENABLED"];
const PROTOCOLS: &[&str] = &[
    "KFI_PROTO_UNSPEC",
    "KFI_PROTO_RDMA_CM_IB_RC",
    "KFI_PROTO_IWARP",
    "KFI_PROTO_IB_UD",
    "KFI_PROTO_UDP",
    "KFI_PROTO_SOCK_TCP",
    "KFI_PROTO_IWARP_RDM",
    "KFI_PROTO_IB_RDM",
    "KFI_PROTO_GNI",
    "KFI_PROTO_CXI",
];
const AV_TYPES: &[&str] = &["KFI_AV_UNSPEC", "KFI_AV_MAP", "KFI_AV_TABLE"];
const DATATYPES: &[&str] = &[
    "KFI_INT8",
    "KFI_UINT8",
    "KFI_INT16",
    "KFI_UINT16",
    "KFI_INT32",
    "KFI_UINT32",
    "KFI_INT64",
    "KFI_UINT64",
    "KFI_FLOAT",
    "KFI_DOUBLE",
    "KFI_FLOAT_COMPLEX",
    "KFI_DOUBLE_COMPLEX",
    "KFI_LONG_DOUBLE",
    "KFI_LONG_DOUBLE_COMPLEX",
];
const ATOMIC_OPS: &[&str] = &[
    "KFI_MIN",
    "KFI_MAX",
    "KFI_SUM",
    "KFI_PROD",
    "KFI_LOR",
    "KFI_LAND",
    "KFI_BOR",
    "KFI_BAND",
    "KFI_LXOR",
    "KFI_BXOR",
    "KFI_ATOMIC_READ",
    "KFI_ATOMIC_WRITE",
    "KFI_CSWAP",
    "KFI_CSWAP_NE",
    "KFI_CSWAP_LE",
    "KFI_CSWAP_LT",
    "KFI_CSWAP_GE",
    "KFI_CSWAP_GT",
    "KFI_MSWAP",
];
const EQ_EVENTS: &[&str] = &[
    "KFI_NOTIFY",
    "KFI_CONNREQ",
    "KFI_CONNECTED",
    "KFI_SHUTDOWN",
    "KFI_MR_COMPLETE",
    "KFI_AV_COMPLETE",
    "KFI_JOIN_COMPLETE",
];
const OP_TYPES: &[&str] = &[
    "KFI_OP_RECV",
    "KFI_OP_SEND",
    "KFI_OP_TRECV",
    "KFI_OP_TSEND",
    "KFI_OP_READ",
    "KFI_OP_WRITE",
    "KFI_OP_ATOMIC",
    "KFI_OP_FETCH_ATOMIC",
    "KFI_OP_COMPARE_ATOMIC",
    "KFI_OP_CNTR_SET",
    "KFI_OP_CNTR_ADD",
];

/// Writes `[ A, B ]`; bits without a name are shown as one hex remainder.
fn flags(w: &mut dyn Write, v: u64, names: &[(u64, &str)]) -> fmt::Result {
    if v == 0 {
        return w.write_str("[ ]");
    }
    w.write_str("[ ")?;
    let mut rest = v;
    let mut first = true;
    for &(bit, name) in names {
        if v & bit != 0 && rest & bit != 0 {
            if !first {
                w.write_str(", ")?;
            }
            w.write_str(name)?;
            rest &= !bit;
            first = false;
        }
    }
    if rest != 0 {
        if !first {
            w.write_str(", ")?;
        }
        write!(w, "{:#x}", rest)?;
    }
    w.write_str(" ]")
}

/// Writes the name of an enumerator, or `Unknown(n)`.
fn name(w: &mut dyn Write, v: u32, names: &[&str]) -> fmt::Result {
    match names.get(v as usize) {
        Some(n) => w.write_str(n),
        None => write!(w, "Unknown({})", v),
    }
}

fn text(w: &mut dyn Write, s: Option<&[u8]>) -> fmt::Result {
    match s {
        None => w.write_str("(null)"),
        Some(b) => b.iter().try_for_each(|&c| {
            if c.is_ascii_graphic() || c == b' ' {
                w.write_char(c as char)
            } else {
                write!(w, "\\x{:02x}", c)
            }
        }),
    }
}

fn version(w: &mut dyn Write, v: u32) -> fmt::Result {
    write!(w, "{}.{}", major(v), minor(v))
}

/// The five flag fields tx and rx attributes share, one line each.
fn xattr_flags(w: &mut dyn Write, v: [u64; 5], ind: &str) -> fmt::Result {
    let fields: [(&str, &[(u64, &str)]); 5] =
        [("caps", CAPS), ("mode", MODES), ("op_flags", OP_FLAGS), ("msg_order", ORDER), ("comp_order", ORDER)];
    for ((name, names), val) in fields.iter().zip(v) {
        write!(w, "{ind}    {name}: ")?;
        flags(w, val, names)?;
        w.write_char('\n')?;
    }
    Ok(())
}

fn tx_attr(w: &mut dyn Write, a: &TxAttr, ind: &str) -> fmt::Result {
    writeln!(w, "{ind}kfi_tx_attr:")?;
    xattr_flags(w, [a.caps, a.mode, a.op_flags, a.msg_order, a.comp_order], ind)?;
    writeln!(w, "{ind}    inject_size: {}", a.inject_size)?;
    writeln!(w, "{ind}    size: {}", a.size)?;
    writeln!(w, "{ind}    iov_limit: {}", a.iov_limit)?;
    writeln!(w, "{ind}    rma_iov_limit: {}", a.rma_iov_limit)?;
    writeln!(w, "{ind}    tclass: {:#x}", a.tclass)
}

fn rx_attr(w: &mut dyn Write, a: &RxAttr, ind: &str) -> fmt::Result {
    writeln!(w, "{ind}kfi_rx_attr:")?;
    xattr_flags(w, [a.caps, a.mode, a.op_flags, a.msg_order, a.comp_order], ind)?;
    writeln!(w, "{ind}    total_buffered_recv: {}", a.total_buffered_recv)?;
    writeln!(w, "{ind}    size: {}", a.size)?;
    writeln!(w, "{ind}    iov_limit: {}", a.iov_limit)
}

fn ep_attr(w: &mut dyn Write, a: &EpAttr, ind: &str) -> fmt::Result {
    writeln!(w, "{ind}kfi_ep_attr:")?;
    write!(w, "{ind}    type: ")?;
    name(w, a.ep_type, EP_TYPES)?;
    write!(w, "\n{ind}    protocol: ")?;
    name(w, a.protocol, PROTOCOLS)?;
    writeln!(w, "\n{ind}    protocol_version: {}", a.protocol_version)?;
    writeln!(w, "{ind}    max_msg_size: {}", a.max_msg_size)?;
    writeln!(w, "{ind}    msg_prefix_size: {}", a.msg_prefix_size)?;
    writeln!(w, "{ind}    max_order_raw_size: {}", a.max_order_raw_size)?;
    writeln!(w, "{ind}    max_order_war_size: {}", a.max_order_war_size)?;
    writeln!(w, "{ind}    max_order_waw_size: {}", a.max_order_waw_size)?;
    writeln!(w, "{ind}    mem_tag_format: {:#018x}", a.mem_tag_format)?;
    writeln!(w, "{ind}    tx_ctx_cnt: {}", a.tx_ctx_cnt)?;
    writeln!(w, "{ind}    rx_ctx_cnt: {}", a.rx_ctx_cnt)?;
    writeln!(w, "{ind}    auth_key_size: {}", a.auth_key_size)
}

fn domain_attr(w: &mut dyn Write, a: &DomainAttr<'_>, ind: &str) -> fmt::Result {
    writeln!(w, "{ind}kfi_domain_attr:")?;
    write!(w, "{ind}    name: ")?;
    text(w, a.name)?;
    write!(w, "\n{ind}    threading: ")?;
    name(w, a.threading, THREADING)?;
    write!(w, "\n{ind}    control_progress: ")?;
    name(w, a.control_progress, PROGRESS)?;
    write!(w, "\n{ind}    data_progress: ")?;
    name(w, a.data_progress, PROGRESS)?;
    write!(w, "\n{ind}    resource_mgmt: ")?;
    name(w, a.resource_mgmt, RESOURCE_MGMT)?;
    write!(w, "\n{ind}    av_type: ")?;
    name(w, a.av_type, AV_TYPES)?;
    write!(w, "\n{ind}    mr_mode: ")?;
    flags(w, a.mr_mode as u32 as u64, MR_MODES)?;
    writeln!(w, "\n{ind}    mr_key_size: {}", a.mr_key_size)?;
    writeln!(w, "{ind}    cq_data_size: {}", a.cq_data_size)?;
    writeln!(w, "{ind}    cq_cnt: {}", a.cq_cnt)?;
    writeln!(w, "{ind}    ep_cnt: {}", a.ep_cnt)?;
    writeln!(w, "{ind}    tx_ctx_cnt: {}", a.tx_ctx_cnt)?;
    writeln!(w, "{ind}    rx_ctx_cnt: {}", a.rx_ctx_cnt)?;
    writeln!(w, "{ind}    max_ep_tx_ctx: {}", a.max_ep_tx_ctx)?;
    writeln!(w, "{ind}    max_ep_rx_ctx: {}", a.max_ep_rx_ctx)?;
    writeln!(w, "{ind}    max_ep_stx_ctx: {}", a.max_ep_stx_ctx)?;
    writeln!(w, "{ind}    max_ep_srx_ctx: {}", a.max_ep_srx_ctx)?;
    writeln!(w, "{ind}    cntr_cnt: {}", a.cntr_cnt)?;
    writeln!(w, "{ind}    mr_iov_limit: {}", a.mr_iov_limit)?;
    write!(w, "{ind}    caps: ")?;
    flags(w, a.caps, CAPS)?;
    write!(w, "\n{ind}    mode: ")?;
    flags(w, a.mode, MODES)?;
    writeln!(w, "\n{ind}    auth_key_size: {}", a.auth_key_size)?;
    writeln!(w, "{ind}    max_err_data: {}", a.max_err_data)?;
    writeln!(w, "{ind}    mr_cnt: {}", a.mr_cnt)?;
    writeln!(w, "{ind}    tclass: {:#x}", a.tclass)
}

fn fabric_attr(w: &mut dyn Write, a: &FabricAttr<'_>, ind: &str) -> fmt::Result {
    writeln!(w, "{ind}kfi_fabric_attr:")?;
    write!(w, "{ind}    name: ")?;
    text(w, a.name)?;
    write!(w, "\n{ind}    prov_name: ")?;
    text(w, a.prov_name)?;
    write!(w, "\n{ind}    prov_version: ")?;
    version(w, a.prov_version)?;
    write!(w, "\n{ind}    api_version: ")?;
    version(w, a.api_version)?;
    w.write_char('\n')
}

fn info(w: &mut dyn Write, i: &Info<'_>) -> fmt::Result {
    w.write_str("kfi_info:\n    caps: ")?;
    flags(w, i.caps, CAPS)?;
    w.write_str("\n    mode: ")?;
    flags(w, i.mode, MODES)?;
    w.write_str("\n    addr_format: ")?;
    name(w, i.addr_format, ADDR_FORMATS)?;
    writeln!(w, "\n    src_addrlen: {}", i.src_addrlen)?;
    writeln!(w, "    dest_addrlen: {}", i.dest_addrlen)?;
    const IND: &str = "    ";
    match &i.tx {
        Some(a) => tx_attr(w, a, IND)?,
        None => w.write_str("    kfi_tx_attr: (null)\n")?,
    }
    match &i.rx {
        Some(a) => rx_attr(w, a, IND)?,
        None => w.write_str("    kfi_rx_attr: (null)\n")?,
    }
    match &i.ep {
        Some(a) => ep_attr(w, a, IND)?,
        None => w.write_str("    kfi_ep_attr: (null)\n")?,
    }
    match &i.domain {
        Some(a) => domain_attr(w, a, IND)?,
        None => w.write_str("    kfi_domain_attr: (null)\n")?,
    }
    match &i.fabric {
        Some(a) => fabric_attr(w, a, IND),
        None => w.write_str("    kfi_fabric_attr: (null)\n"),
    }
}

/// Formats `v` into `w`.
pub fn write(w: &mut dyn Write, v: Value<'_>) -> fmt::Result {
    match v {
        Value::Info(i) => info(w, i),
        Value::EpType(t) => name(w, t, EP_TYPES),
        Value::Caps(c) => flags(w, c, CAPS),
        Value::OpFlags(f) => flags(w, f, OP_FLAGS),
        Value::AddrFormat(f) => name(w, f, ADDR_FORMATS),
        Value::TxAttr(a) => tx_attr(w, a, ""),
        Value::RxAttr(a) => rx_attr(w, a, ""),
        Value::EpAttr(a) => ep_attr(w, a, ""),
        Value::DomainAttr(a) => domain_attr(w, a, ""),
        Value::FabricAttr(a) => fabric_attr(w, a, ""),
        Value::Threading(t) => name(w, t, THREADING),
        Value::Progress(p) => name(w, p, PROGRESS),
        Value::Protocol(p) => name(w, p, PROTOCOLS),
        Value::MsgOrder(o) => flags(w, o, ORDER),
        Value::Mode(m) => flags(w, m, MODES),
        Value::AvType(t) => name(w, t, AV_TYPES),
        Value::AtomicType(t) => name(w, t, DATATYPES),
        Value::AtomicOp(o) => name(w, o, ATOMIC_OPS),
        Value::Version => version(w, API_VERSION),
        Value::EqEvent(e) => name(w, e, EQ_EVENTS),
        Value::CqEventFlags(f) => flags(w, f, CQ_FLAGS),
        Value::MrMode(m) => flags(w, m as u32 as u64, MR_MODES),
        Value::OpType(t) => name(w, t, OP_TYPES),
    }
}
