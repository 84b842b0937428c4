// SPDX-License-Identifier: GPL-2.0
//! Does a provider's `kfi_info` entry satisfy the caller's hints?
//!
//! Rules (one per field, each unit-tested on the host and in KUnit):
//! - capability sets (`caps`, attr `caps`, `msg_order`, `comp_order`): the entry
//!   must offer every bit the hints ask for;
//! - modes (`mode`, attr `mode`, `mr_mode`): the caller lists the modes it can
//!   live with, so every mode the entry requires must be in the hints. A hint
//!   of 0 means "not specified" and accepts any mode;
//! - enumerations (`addr_format`, ep `type`/`protocol`, `av_type`, progress,
//!   `resource_mgmt`): equal, or unspecified (0) in the hints;
//! - threading: the entry must be at least as safe as asked (`KFI_THREAD_SAFE`,
//!   the lowest non-zero value, satisfies every request);
//! - sizes and limits: the hint is a minimum the entry must reach;
//! - names (`fabric_attr.name`, `prov_name`, `domain_attr.name`): byte-equal
//!   when given.

#![allow(missing_docs)] // field and value names are those of the C API

use crate::logic::view::{DomainAttr, EpAttr, FabricAttr, Info, RxAttr, TxAttr};

/// The first field that made an entry fail the hints; logged at debug level
/// and asserted by the tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mismatch {
    Caps,
    Mode,
    AddrFormat,
    TxCaps,
    TxMode,
    TxOpFlags,
    TxMsgOrder,
    TxCompOrder,
    TxInjectSize,
    TxSize,
    TxIovLimit,
    TxRmaIovLimit,
    RxCaps,
    RxMode,
    RxOpFlags,
    RxMsgOrder,
    RxCompOrder,
    RxTotalBufferedRecv,
    RxSize,
    RxIovLimit,
    EpType,
    EpProtocol,
    EpProtocolVersion,
    EpMaxMsgSize,
    EpMsgPrefixSize,
    EpTxCtxCnt,
    EpRxCtxCnt,
    EpMemTagFormat,
    DomainName,
    DomainThreading,
    DomainControlProgress,
    DomainDataProgress,
    DomainResourceMgmt,
    DomainAvType,
    DomainMrMode,
    DomainMrKeySize,
    DomainCqDataSize,
    DomainCqCnt,
    DomainEpCnt,
    DomainTxCtxCnt,
    DomainRxCtxCnt,
    DomainMaxEpTxCtx,
    DomainMaxEpRxCtx,
    DomainCntrCnt,
    DomainMrIovLimit,
    DomainCaps,
    DomainMode,
    FabricName,
    ProvName,
    /// The hints have an attribute the entry lacks entirely.
    MissingAttr,
}

type Check = Result<(), Mismatch>;

fn superset(offered: u64, wanted: u64, m: Mismatch) -> Check {
    if wanted & !offered == 0 {
        Ok(())
    } else {
        Err(m)
    }
}

fn mode_ok(required: u64, accepted: u64, m: Mismatch) -> Check {
    if accepted == 0 || required & !accepted == 0 {
        Ok(())
    } else {
        Err(m)
    }
}

fn same_or_unspec(offered: u32, wanted: u32, m: Mismatch) -> Check {
    if wanted == 0 || wanted == offered {
        Ok(())
    } else {
        Err(m)
    }
}

fn at_least(offered: usize, wanted: usize, m: Mismatch) -> Check {
    if offered >= wanted {
        Ok(())
    } else {
        Err(m)
    }
}

fn name_ok(offered: Option<&[u8]>, wanted: Option<&[u8]>, m: Mismatch) -> Check {
    match wanted {
        None => Ok(()),
        Some(w) if offered == Some(w) => Ok(()),
        Some(_) => Err(m),
    }
}

/// Applies `f` when the hints carry the attribute; an attribute the hints
/// give but the entry lacks is a mismatch.
fn attr<T>(offered: Option<T>, wanted: Option<T>, f: impl FnOnce(T, T) -> Check) -> Check {
    match (offered, wanted) {
        (_, None) => Ok(()),
        (Some(o), Some(w)) => f(o, w),
        (None, Some(_)) => Err(Mismatch::MissingAttr),
    }
}

/// The five flag fields tx and rx attributes share: (caps, mode, op_flags,
/// msg_order, comp_order); modes are required-by-entry, the rest offered.
fn xattr_ok(o: [u64; 5], w: [u64; 5], m: [Mismatch; 5]) -> Check {
    superset(o[0], w[0], m[0])?;
    mode_ok(o[1], w[1], m[1])?;
    superset(o[2], w[2], m[2])?;
    superset(o[3], w[3], m[3])?;
    superset(o[4], w[4], m[4])
}

fn tx_ok(o: TxAttr, w: TxAttr) -> Check {
    use Mismatch::*;
    xattr_ok(
        [o.caps, o.mode, o.op_flags, o.msg_order, o.comp_order],
        [w.caps, w.mode, w.op_flags, w.msg_order, w.comp_order],
        [TxCaps, TxMode, TxOpFlags, TxMsgOrder, TxCompOrder],
    )?;
    at_least(o.inject_size, w.inject_size, TxInjectSize)?;
    at_least(o.size, w.size, TxSize)?;
    at_least(o.iov_limit, w.iov_limit, TxIovLimit)?;
    at_least(o.rma_iov_limit, w.rma_iov_limit, TxRmaIovLimit)
}

fn rx_ok(o: RxAttr, w: RxAttr) -> Check {
    use Mismatch::*;
    xattr_ok(
        [o.caps, o.mode, o.op_flags, o.msg_order, o.comp_order],
        [w.caps, w.mode, w.op_flags, w.msg_order, w.comp_order],
        [RxCaps, RxMode, RxOpFlags, RxMsgOrder, RxCompOrder],
    )?;
    at_least(o.total_buffered_recv, w.total_buffered_recv, RxTotalBufferedRecv)?;
    at_least(o.size, w.size, RxSize)?;
    at_least(o.iov_limit, w.iov_limit, RxIovLimit)
}

fn ep_ok(o: EpAttr, w: EpAttr) -> Check {
    use Mismatch::*;
    same_or_unspec(o.ep_type, w.ep_type, EpType)?;
    same_or_unspec(o.protocol, w.protocol, EpProtocol)?;
    if w.protocol_version > o.protocol_version {
        return Err(EpProtocolVersion);
    }
    at_least(o.max_msg_size, w.max_msg_size, EpMaxMsgSize)?;
    // A prefix the caller cannot accommodate: only when it asks for none.
    if o.msg_prefix_size > w.msg_prefix_size && w.msg_prefix_size != 0 {
        return Err(EpMsgPrefixSize);
    }
    at_least(o.tx_ctx_cnt, w.tx_ctx_cnt, EpTxCtxCnt)?;
    at_least(o.rx_ctx_cnt, w.rx_ctx_cnt, EpRxCtxCnt)?;
    // Tag bits: the caller may use fewer bits than offered, never more.
    superset(o.mem_tag_format, w.mem_tag_format, EpMemTagFormat)
}

fn threading_ok(offered: u32, wanted: u32) -> Check {
    // Lower non-zero values are safer; SAFE (1) satisfies any request.
    if wanted == 0 || (offered != 0 && offered <= wanted) {
        Ok(())
    } else {
        Err(Mismatch::DomainThreading)
    }
}

fn domain_ok(o: DomainAttr<'_>, w: DomainAttr<'_>) -> Check {
    use Mismatch::*;
    name_ok(o.name, w.name, DomainName)?;
    threading_ok(o.threading, w.threading)?;
    same_or_unspec(o.control_progress, w.control_progress, DomainControlProgress)?;
    same_or_unspec(o.data_progress, w.data_progress, DomainDataProgress)?;
    same_or_unspec(o.resource_mgmt, w.resource_mgmt, DomainResourceMgmt)?;
    same_or_unspec(o.av_type, w.av_type, DomainAvType)?;
    mode_ok(o.mr_mode as u32 as u64, w.mr_mode as u32 as u64, DomainMrMode)?;
    at_least(o.mr_key_size, w.mr_key_size, DomainMrKeySize)?;
    at_least(o.cq_data_size, w.cq_data_size, DomainCqDataSize)?;
    at_least(o.cq_cnt, w.cq_cnt, DomainCqCnt)?;
    at_least(o.ep_cnt, w.ep_cnt, DomainEpCnt)?;
    at_least(o.tx_ctx_cnt, w.tx_ctx_cnt, DomainTxCtxCnt)?;
    at_least(o.rx_ctx_cnt, w.rx_ctx_cnt, DomainRxCtxCnt)?;
    at_least(o.max_ep_tx_ctx, w.max_ep_tx_ctx, DomainMaxEpTxCtx)?;
    at_least(o.max_ep_rx_ctx, w.max_ep_rx_ctx, DomainMaxEpRxCtx)?;
    at_least(o.cntr_cnt, w.cntr_cnt, DomainCntrCnt)?;
    at_least(o.mr_iov_limit, w.mr_iov_limit, DomainMrIovLimit)?;
    superset(o.caps, w.caps, DomainCaps)?;
    mode_ok(o.mode, w.mode, DomainMode)
}

fn fabric_ok(o: FabricAttr<'_>, w: FabricAttr<'_>) -> Check {
    name_ok(o.name, w.name, Mismatch::FabricName)?;
    name_ok(o.prov_name, w.prov_name, Mismatch::ProvName)
}

/// Checks one provider entry against the hints; `Ok` when it satisfies them.
pub fn check(entry: &Info<'_>, hints: &Info<'_>) -> Check {
    superset(entry.caps, hints.caps, Mismatch::Caps)?;
    mode_ok(entry.mode, hints.mode, Mismatch::Mode)?;
    same_or_unspec(entry.addr_format, hints.addr_format, Mismatch::AddrFormat)?;
    attr(entry.tx, hints.tx, tx_ok)?;
    attr(entry.rx, hints.rx, rx_ok)?;
    attr(entry.ep, hints.ep, ep_ok)?;
    attr(entry.domain, hints.domain, domain_ok)?;
    attr(entry.fabric, hints.fabric, fabric_ok)
}

/// The provider named by the hints, if any: `kfi_getinfo` asks only that one.
pub fn wanted_provider<'a>(hints: Option<&Info<'a>>) -> Option<&'a [u8]> {
    hints.and_then(|h| h.fabric).and_then(|f| f.prov_name)
}
