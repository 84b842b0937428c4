// SPDX-License-Identifier: GPL-2.0
//! Does a provider's `kfi_info` entry satisfy the caller's hints, and how is
//! a matching entry adjusted to them?
//!
//! The rules are libfabric v1.17's (`prov/util/src/util_attr.c`:
//! `ofi_check_info` and the checks it calls for matching, `ofi_alter_info` for
//! adjusting; `src/fabric.c` for versions), restated here for the kfabric
//! types; every one has a host test written against the libfabric rule.
//! Matching (`check`), one line per field; "hint" is the caller's value,
//! "entry" the provider's:
//! - `caps`, attr `caps`, `op_flags`, `msg_order`, `comp_order`: the entry
//!   offers every bit of the hint. tx caps ignore the receive-side bits
//!   ([`IGNORED_TX_CAPS`]), rx caps the transmit-side ones ([`IGNORED_RX_CAPS`]).
//! - `mode`: every mode bit the entry requires is in the hint; a hint of 0
//!   means "the caller supports no mode" (fi_getinfo(3)), it is not a
//!   wildcard. The tx/rx `mode` hints fall back to `info->mode` when 0. An
//!   entry with `KFI_MR_LOCAL` also requires the `KFI_LOCAL_MR` mode unless
//!   the hint's `mr_mode` has `KFI_MR_LOCAL`. Domain `mode`: no fallback.
//! - `mr_mode`: an entry requiring `KFI_MR_LOCAL` needs `KFI_MR_LOCAL` in the
//!   hint's `mr_mode` or `KFI_LOCAL_MR` in its `mode`. A hint of 0
//!   (`KFI_MR_UNSPEC`) accepts every other bit. Otherwise the hint holds every
//!   bit the entry requires, where an entry bit that only matters for remote
//!   access (RAW, VIRT_ADDR, PROV_KEY, RMA_EVENT) is not required when the hint's
//!   `caps` exclude being an RMA target (and nothing at all is required then if
//!   the entry lacks `KFI_MR_LOCAL`). kfabric has no `KFI_MR_BASIC`/`SCALABLE`:
//!   libfabric's pre-1.5 branch does not apply.
//! - `addr_format`: 0 on either side matches. An entry `KFI_SOCKADDR` serves
//!   `KFI_SOCKADDR`, `_IN` and `_IN6` hints; `_IN` serves `KFI_SOCKADDR` and
//!   `_IN`; `_IN6` serves `KFI_SOCKADDR`, `_IN` and `_IN6`; `_IB` serves those
//!   and `_IB`; any other format only itself. So a `KFI_SOCKADDR` hint (any
//!   socket address) accepts every sockaddr entry.
//! - ep `type`, `av_type`: equal, or 0 on either side. ep `protocol`: equal or
//!   0 in the hint. `protocol_version`, `max_msg_size`: the hint is a maximum of
//!   what is needed (entry >= hint).
//! - ep `tx_ctx_cnt`/`rx_ctx_cnt`: at most the entry's domain
//!   `max_ep_tx_ctx`/`max_ep_rx_ctx`, or `KFI_SHARED_CONTEXT` with a non-zero
//!   `max_ep_stx_ctx`/`max_ep_srx_ctx`; a hint of 0 fails against an entry that
//!   requires shared contexts.
//! - ep `max_order_*_size`: entry >= hint, only when the hint's caps ask for
//!   RMA or atomics. `mem_tag_format`: only with `KFI_TAGGED` in the hint's caps
//!   and a non-zero hint: the hint's highest tag bit is not above the entry's.
//! - ep `auth_key_size`: equal to the entry's when non-zero.
//! - threading, progress and `resource_mgmt` are ordered levels, and the
//!   entry's level must not be above the hint's: threading SAFE < FID <
//!   ENDPOINT < COMPLETION < DOMAIN < UNSPEC; progress AUTO < MANUAL <
//!   UNSPEC; resource management ENABLED < DISABLED < UNSPEC. So a
//!   `KFI_RM_DISABLED` hint is served by a `KFI_RM_ENABLED` entry (the
//!   provider protecting resources the caller would not overrun anyway), and
//!   a `KFI_PROGRESS_MANUAL` hint by an AUTO entry, not the other way round.
//! - sizes and limits (`cq_data_size`, `cntr_cnt`, `mr_iov_limit`,
//!   `max_err_data`, `mr_cnt`, tx/rx sizes and iov limits, `inject_size`,
//!   `total_buffered_recv`): entry >= hint. libfabric leaves `mr_key_size`,
//!   `cq_cnt`, `ep_cnt`, domain `tx_ctx_cnt`/`rx_ctx_cnt` and `max_ep_*_ctx`
//!   to providers; the core applies fi_getinfo(3)'s general rule to them (a
//!   non-zero hint is a minimum the entry must reach). Not matched (as in
//!   libfabric): `max_ep_stx_ctx`, `max_ep_srx_ctx`, `msg_prefix_size`, domain
//!   `auth_key_size`, both `tclass`es.
//! - fabric `prov_version`: not above the entry's (so a consumer's
//!   `KFI_VERSION(1, 0)` accepts a 1.0 provider). `api_version`: a non-zero
//!   hint is not below the entry's; 0 matches (libfabric compares with the
//!   provider's static attribute, which is 0 there; here entries carry the
//!   API version they were produced for, so 0 must mean "unspecified").
//! - names (`fabric_attr.name`, `prov_name`, `domain_attr.name`): byte-equal
//!   when given. libfabric splits `prov_name` into a layered list and
//!   compares case-insensitively; kfabric has no layering and names are
//!   exact (the registry's rule).
//!
//! Adjusting ([`alter`], after a match): see its documentation.

#![allow(missing_docs)] // field and value names are those of the C API

use crate::logic::abi::*;
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
    EpTxCtxCnt,
    EpRxCtxCnt,
    EpMaxOrderSize,
    EpAuthKeySize,
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
    DomainMaxErrData,
    DomainMrCnt,
    FabricName,
    ProvName,
    ProvVersion,
    ApiVersion,
    /// The hints have an attribute the entry lacks entirely.
    MissingAttr,
}

/// Older receive-side bits a tx caps hint may carry; not matched there.
pub const IGNORED_TX_CAPS: u64 = KFI_REMOTE_READ
    | KFI_REMOTE_WRITE
    | KFI_RECV
    | KFI_DIRECTED_RECV
    | KFI_MULTI_RECV
    | KFI_SOURCE
    | KFI_RMA_EVENT
    | KFI_SOURCE_ERR;
/// Older transmit-side bits an rx caps hint may carry; not matched there.
pub const IGNORED_RX_CAPS: u64 = KFI_READ | KFI_WRITE | KFI_SEND | KFI_FENCE | KFI_MULTICAST | KFI_NAMED_RX_CTX;

/// Capabilities that select operations (a hint's replace the entry's).
pub const PRIMARY_CAPS: u64 = KFI_MSG
    | KFI_RMA
    | KFI_TAGGED
    | KFI_ATOMIC
    | KFI_MULTICAST
    | KFI_TAGGED_RMA
    | KFI_READ
    | KFI_WRITE
    | KFI_SEND
    | KFI_NAMED_RX_CTX
    | KFI_REMOTE_READ
    | KFI_REMOTE_WRITE
    | KFI_RECV
    | KFI_DIRECTED_RECV
    | KFI_REMOTE_COMM
    | KFI_LOCAL_COMM;
/// Capabilities that refine operations (the entry's are kept).
pub const SECONDARY_CAPS: u64 =
    KFI_TRIGGER | KFI_FENCE | KFI_RMA_PMEM | KFI_MULTI_RECV | KFI_SOURCE | KFI_RMA_EVENT | KFI_SOURCE_ERR | KFI_SHARED_AV;

const MSG_DIRECTION_CAPS: u64 = KFI_SEND | KFI_RECV;
const RMA_DIRECTION_CAPS: u64 = KFI_READ | KFI_WRITE | KFI_REMOTE_READ | KFI_REMOTE_WRITE;
/// MR mode bits that only matter when the memory is an RMA target.
const MR_RMA_TARGET: i32 = KFI_MR_RAW | KFI_MR_VIRT_ADDR | KFI_MR_PROV_KEY | KFI_MR_RMA_EVENT;

type Check = Result<(), Mismatch>;

fn ensure(ok: bool, m: Mismatch) -> Check {
    if ok {
        Ok(())
    } else {
        Err(m)
    }
}

fn superset(offered: u64, wanted: u64, m: Mismatch) -> Check {
    ensure(wanted & !offered == 0, m)
}

/// Every mode bit the entry requires is among those the caller supports.
fn modes_ok(required: u64, supported: u64, m: Mismatch) -> Check {
    ensure(required & !supported == 0, m)
}

fn at_least(offered: usize, wanted: usize, m: Mismatch) -> Check {
    ensure(offered >= wanted, m)
}

/// Equal, or unspecified (0) on either side.
fn compatible(offered: u32, wanted: u32, m: Mismatch) -> Check {
    ensure(wanted == 0 || offered == 0 || wanted == offered, m)
}

fn name_ok(offered: Option<&[u8]>, wanted: Option<&[u8]>, m: Mismatch) -> Check {
    ensure(wanted.is_none() || offered == wanted, m)
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

/// May the caller's entry address format be used where `offered` is served?
pub fn addr_format_ok(offered: u32, wanted: u32) -> bool {
    if offered == KFI_FORMAT_UNSPEC || wanted == KFI_FORMAT_UNSPEC {
        return true;
    }
    let inet = [KFI_SOCKADDR, KFI_SOCKADDR_IN];
    match offered {
        KFI_SOCKADDR | KFI_SOCKADDR_IN6 => inet.contains(&wanted) || wanted == KFI_SOCKADDR_IN6,
        KFI_SOCKADDR_IN => inet.contains(&wanted),
        KFI_SOCKADDR_IB => inet.contains(&wanted) || wanted == KFI_SOCKADDR_IN6 || wanted == KFI_SOCKADDR_IB,
        _ => offered == wanted,
    }
}

/// Position in the order "most parallel first"; unknown values rank below
/// everything (an unknown hint accepts nothing, an unknown entry any hint).
fn threading_level(t: u32) -> i32 {
    match t {
        KFI_THREAD_SAFE => 1,
        KFI_THREAD_FID => 2,
        KFI_THREAD_ENDPOINT => 3,
        KFI_THREAD_COMPLETION => 4,
        KFI_THREAD_DOMAIN => 5,
        KFI_THREAD_UNSPEC => 6,
        _ => -1,
    }
}

/// "Most automatic first".
fn progress_level(p: u32) -> i32 {
    match p {
        KFI_PROGRESS_AUTO => 1,
        KFI_PROGRESS_MANUAL => 2,
        KFI_PROGRESS_UNSPEC => 3,
        _ => -1,
    }
}

/// "Most managed first".
fn rm_level(r: u32) -> i32 {
    match r {
        KFI_RM_ENABLED => 1,
        KFI_RM_DISABLED => 2,
        KFI_RM_UNSPEC => 3,
        _ => -1,
    }
}

/// The entry's level must not be above the hint's.
fn level_ok(level: fn(u32) -> i32, offered: u32, wanted: u32, m: Mismatch) -> Check {
    ensure(level(wanted) >= level(offered), m)
}

/// Whether `caps` allow the caller's memory to be the target of RMA or
/// atomics: asked explicitly, or implied when no direction is given.
pub fn rma_target_allowed(caps: u64) -> bool {
    if caps & (KFI_RMA | KFI_ATOMIC) == 0 {
        return false;
    }
    caps & (KFI_REMOTE_READ | KFI_REMOTE_WRITE) != 0 || caps & (KFI_READ | KFI_WRITE) == 0
}

/// The MR mode bits an entry requires from a caller with these caps.
fn required_mr_mode(caps: u64, mr_mode: i32) -> i32 {
    if rma_target_allowed(caps) {
        mr_mode
    } else if mr_mode & KFI_MR_LOCAL == 0 {
        0
    } else {
        mr_mode & !MR_RMA_TARGET
    }
}

/// The mode bits the entry requires at the top level: its own, plus
/// `KFI_LOCAL_MR` for an `KFI_MR_LOCAL` entry when the caller's domain hint
/// does not accept `KFI_MR_LOCAL` directly.
fn required_mode(entry: &Info<'_>, hints: &Info<'_>) -> u64 {
    let local = entry.domain.is_some_and(|d| d.mr_mode & KFI_MR_LOCAL != 0);
    match hints.domain {
        Some(d) if local && d.mr_mode & KFI_MR_LOCAL == 0 => entry.mode | KFI_LOCAL_MR,
        _ => entry.mode,
    }
}

fn mr_mode_ok(entry_mr: i32, hints: &Info<'_>, wanted_mr: i32) -> Check {
    let m = Mismatch::DomainMrMode;
    if entry_mr & KFI_MR_LOCAL != 0 {
        ensure(hints.mode & KFI_LOCAL_MR != 0 || wanted_mr & KFI_MR_LOCAL != 0, m)?;
    }
    let required = required_mr_mode(hints.caps, entry_mr);
    ensure(wanted_mr == 0 || required & !wanted_mr == 0, m)
}

/// The five flag fields tx and rx attributes share: (caps, mode, op_flags,
/// msg_order, comp_order). `ignored` caps bits of the hint are not matched;
/// a mode hint of 0 falls back to `info_mode`.
fn xattr_ok(o: [u64; 5], w: [u64; 5], ignored: u64, info_mode: u64, m: [Mismatch; 5]) -> Check {
    superset(o[0], w[0] & !ignored, m[0])?;
    modes_ok(o[1], if w[1] != 0 { w[1] } else { info_mode }, m[1])?;
    superset(o[2], w[2], m[2])?;
    superset(o[3], w[3], m[3])?;
    superset(o[4], w[4], m[4])
}

fn tx_ok(o: TxAttr, w: TxAttr, info_mode: u64) -> Check {
    use Mismatch::*;
    xattr_ok(
        [o.caps, o.mode, o.op_flags, o.msg_order, o.comp_order],
        [w.caps, w.mode, w.op_flags, w.msg_order, w.comp_order],
        IGNORED_TX_CAPS,
        info_mode,
        [TxCaps, TxMode, TxOpFlags, TxMsgOrder, TxCompOrder],
    )?;
    at_least(o.inject_size, w.inject_size, TxInjectSize)?;
    at_least(o.size, w.size, TxSize)?;
    at_least(o.iov_limit, w.iov_limit, TxIovLimit)?;
    at_least(o.rma_iov_limit, w.rma_iov_limit, TxRmaIovLimit)
}

fn rx_ok(o: RxAttr, w: RxAttr, info_mode: u64) -> Check {
    use Mismatch::*;
    xattr_ok(
        [o.caps, o.mode, o.op_flags, o.msg_order, o.comp_order],
        [w.caps, w.mode, w.op_flags, w.msg_order, w.comp_order],
        IGNORED_RX_CAPS,
        info_mode,
        [RxCaps, RxMode, RxOpFlags, RxMsgOrder, RxCompOrder],
    )?;
    at_least(o.total_buffered_recv, w.total_buffered_recv, RxTotalBufferedRecv)?;
    at_least(o.size, w.size, RxSize)?;
    at_least(o.iov_limit, w.iov_limit, RxIovLimit)
}

/// Context count rule: `wanted` contexts fit `max` (or ask for shared ones
/// the domain has); a hint of 0 fails an entry that requires shared ones.
fn ctx_cnt_ok(wanted: usize, offered: usize, max: usize, max_shared: usize, m: Mismatch) -> Check {
    if wanted > max {
        ensure(wanted == KFI_SHARED_CONTEXT && max_shared != 0, m)
    } else {
        ensure(wanted != 0 || offered != KFI_SHARED_CONTEXT, m)
    }
}

/// Number of tag bits a `mem_tag_format` spans (its highest set bit).
fn tag_bits(format: u64) -> u32 {
    64 - format.leading_zeros()
}

fn ep_ok(o: EpAttr, w: EpAttr, dom: DomainAttr<'_>, caps: u64) -> Check {
    use Mismatch::*;
    compatible(o.ep_type, w.ep_type, EpType)?;
    ensure(w.protocol == KFI_PROTO_UNSPEC || w.protocol == o.protocol, EpProtocol)?;
    ensure(w.protocol_version <= o.protocol_version, EpProtocolVersion)?;
    at_least(o.max_msg_size, w.max_msg_size, EpMaxMsgSize)?;
    ctx_cnt_ok(w.tx_ctx_cnt, o.tx_ctx_cnt, dom.max_ep_tx_ctx, dom.max_ep_stx_ctx, EpTxCtxCnt)?;
    ctx_cnt_ok(w.rx_ctx_cnt, o.rx_ctx_cnt, dom.max_ep_rx_ctx, dom.max_ep_srx_ctx, EpRxCtxCnt)?;
    if caps & (KFI_RMA | KFI_ATOMIC) != 0 {
        at_least(o.max_order_raw_size, w.max_order_raw_size, EpMaxOrderSize)?;
        at_least(o.max_order_war_size, w.max_order_war_size, EpMaxOrderSize)?;
        at_least(o.max_order_waw_size, w.max_order_waw_size, EpMaxOrderSize)?;
    }
    ensure(w.auth_key_size == 0 || w.auth_key_size == o.auth_key_size, EpAuthKeySize)?;
    if caps & KFI_TAGGED != 0 && w.mem_tag_format != 0 {
        ensure(tag_bits(w.mem_tag_format) <= tag_bits(o.mem_tag_format), EpMemTagFormat)?;
    }
    Ok(())
}

fn domain_ok(o: DomainAttr<'_>, w: DomainAttr<'_>, hints: &Info<'_>) -> Check {
    use Mismatch::*;
    name_ok(o.name, w.name, DomainName)?;
    level_ok(threading_level, o.threading, w.threading, DomainThreading)?;
    level_ok(progress_level, o.control_progress, w.control_progress, DomainControlProgress)?;
    level_ok(progress_level, o.data_progress, w.data_progress, DomainDataProgress)?;
    level_ok(rm_level, o.resource_mgmt, w.resource_mgmt, DomainResourceMgmt)?;
    compatible(o.av_type, w.av_type, DomainAvType)?;
    at_least(o.cq_data_size, w.cq_data_size, DomainCqDataSize)?;
    mr_mode_ok(o.mr_mode, hints, w.mr_mode)?;
    at_least(o.cntr_cnt, w.cntr_cnt, DomainCntrCnt)?;
    at_least(o.mr_iov_limit, w.mr_iov_limit, DomainMrIovLimit)?;
    superset(o.caps, w.caps, DomainCaps)?;
    modes_ok(o.mode, w.mode, DomainMode)?;
    at_least(o.max_err_data, w.max_err_data, DomainMaxErrData)?;
    at_least(o.mr_cnt, w.mr_cnt, DomainMrCnt)?;
    // fi_getinfo(3)'s general rule, for fields libfabric leaves to providers.
    at_least(o.mr_key_size, w.mr_key_size, DomainMrKeySize)?;
    at_least(o.cq_cnt, w.cq_cnt, DomainCqCnt)?;
    at_least(o.ep_cnt, w.ep_cnt, DomainEpCnt)?;
    at_least(o.tx_ctx_cnt, w.tx_ctx_cnt, DomainTxCtxCnt)?;
    at_least(o.rx_ctx_cnt, w.rx_ctx_cnt, DomainRxCtxCnt)?;
    at_least(o.max_ep_tx_ctx, w.max_ep_tx_ctx, DomainMaxEpTxCtx)?;
    at_least(o.max_ep_rx_ctx, w.max_ep_rx_ctx, DomainMaxEpRxCtx)
}

fn fabric_ok(o: FabricAttr<'_>, w: FabricAttr<'_>) -> Check {
    use Mismatch::*;
    name_ok(o.name, w.name, FabricName)?;
    name_ok(o.prov_name, w.prov_name, ProvName)?;
    ensure(w.prov_version <= o.prov_version, ProvVersion)?;
    ensure(w.api_version == 0 || w.api_version >= o.api_version, ApiVersion)
}

/// Checks one provider entry against the hints; `Ok` when it satisfies them.
pub fn check(entry: &Info<'_>, hints: &Info<'_>) -> Check {
    if let (Some(o), Some(w)) = (entry.ep, hints.ep) {
        // Checked first, as libfabric does (the most selective field).
        compatible(o.ep_type, w.ep_type, Mismatch::EpType)?;
    }
    superset(entry.caps, hints.caps, Mismatch::Caps)?;
    modes_ok(required_mode(entry, hints), hints.mode, Mismatch::Mode)?;
    ensure(addr_format_ok(entry.addr_format, hints.addr_format), Mismatch::AddrFormat)?;
    attr(entry.fabric, hints.fabric, fabric_ok)?;
    attr(entry.domain, hints.domain, |o, w| domain_ok(o, w, hints))?;
    let dom = entry.domain.unwrap_or_default();
    attr(entry.ep, hints.ep, |o, w| ep_ok(o, w, dom, hints.caps))?;
    attr(entry.rx, hints.rx, |o, w| rx_ok(o, w, hints.mode))?;
    attr(entry.tx, hints.tx, |o, w| tx_ok(o, w, hints.mode))
}

/// `caps` for an adjusted attribute: the hint's primary capabilities (or,
/// without a hint, the attribute's that the entry keeps) plus the
/// attribute's secondary ones, with the attribute's directions added when
/// the result names an operation class but no direction.
pub fn adjusted_caps(info_caps: u64, hint_caps: u64, attr_caps: u64) -> u64 {
    let mut caps = if hint_caps == 0 {
        (info_caps & attr_caps & PRIMARY_CAPS) | (attr_caps & SECONDARY_CAPS)
    } else {
        (hint_caps & PRIMARY_CAPS) | (attr_caps & SECONDARY_CAPS)
    };
    if caps & (KFI_MSG | KFI_TAGGED) != 0 && caps & MSG_DIRECTION_CAPS == 0 {
        caps |= attr_caps & MSG_DIRECTION_CAPS;
    }
    if caps & (KFI_RMA | KFI_ATOMIC) != 0 && caps & RMA_DIRECTION_CAPS == 0 {
        caps |= attr_caps & RMA_DIRECTION_CAPS;
    }
    caps
}

/// The entry's `caps` after adjustment: as [`adjusted_caps`], then the
/// remote-access bits are dropped when the entry's MR modes for RMA targets
/// are not all accepted by the caller's `mr_mode`.
fn info_caps(entry: &Info<'_>, hints: &Info<'_>) -> u64 {
    let caps = adjusted_caps(entry.caps, hints.caps, entry.caps);
    let target_modes = entry.domain.map_or(0, |d| d.mr_mode) & MR_RMA_TARGET;
    if !rma_target_allowed(caps) || target_modes == 0 {
        return caps;
    }
    match hints.domain {
        Some(d) if d.mr_mode & target_modes == target_modes => caps,
        _ => caps & !(KFI_REMOTE_READ | KFI_REMOTE_WRITE),
    }
}

/// Copies `wanted` over `value` when it is non-zero.
fn take<T: Copy + Default + PartialEq>(value: &mut T, wanted: T) {
    if wanted != T::default() {
        *value = wanted;
    }
}

/// The entry as returned to the caller, for an entry that matched `hints`
/// (libfabric's `ofi_alter_info`, applied by the core to every provider's
/// entries so providers need not):
/// - `caps` of the entry and of its tx, rx and domain attributes: the hint's
///   primary capabilities replace the entry's, secondary ones stay the
///   entry's ([`adjusted_caps`]); remote-access bits are dropped when the
///   caller's `mr_mode` lacks an RMA-target MR mode the entry requires;
/// - domain `mr_mode`: narrowed to the bits the caller accepts and still
///   needs for its caps; `threading`, `control_progress`, `data_progress`,
///   `av_type`: the hint's when non-zero;
/// - ep `tx_ctx_cnt`, `rx_ctx_cnt` and (with RMA or atomic caps)
///   `max_order_*_size`: the hint's when non-zero;
/// - tx and rx `op_flags`: the hint's (the default flags of endpoints opened
///   with the entry), rx `total_buffered_recv`: the hint's; sizes, iov limits,
///   `inject_size`: the hint's when non-zero;
/// - kfabric additions (kfilnd passes them through the info to
///   `kfi_domain`/`kfi_endpoint`): tx and domain `tclass` the hint's when
///   non-zero. The authorization keys, `handle` and their sizes are copied by
///   the module (pointers); `fabric_attr` (names, `prov_version`) stays the
///   provider's.
pub fn alter<'a>(entry: &Info<'a>, hints: &Info<'_>) -> Info<'a> {
    let mut out = *entry;
    out.caps = info_caps(entry, hints);
    let caps = out.caps;
    if let Some(d) = out.domain.as_mut() {
        let w = hints.domain.unwrap_or_default();
        if hints.domain.is_some() && w.mr_mode & d.mr_mode != d.mr_mode {
            d.mr_mode = required_mr_mode(caps, d.mr_mode & w.mr_mode);
        }
        d.caps = adjusted_caps(caps, w.caps, d.caps);
        take(&mut d.threading, w.threading);
        take(&mut d.control_progress, w.control_progress);
        take(&mut d.data_progress, w.data_progress);
        take(&mut d.av_type, w.av_type);
        take(&mut d.tclass, w.tclass);
    }
    if let (Some(e), Some(w)) = (out.ep.as_mut(), hints.ep) {
        if caps & (KFI_RMA | KFI_ATOMIC) != 0 {
            take(&mut e.max_order_raw_size, w.max_order_raw_size);
            take(&mut e.max_order_war_size, w.max_order_war_size);
            take(&mut e.max_order_waw_size, w.max_order_waw_size);
        }
        take(&mut e.tx_ctx_cnt, w.tx_ctx_cnt);
        take(&mut e.rx_ctx_cnt, w.rx_ctx_cnt);
    }
    if let Some(r) = out.rx.as_mut() {
        r.caps = adjusted_caps(caps, hints.rx.map_or(0, |w| w.caps), r.caps);
        if let Some(w) = hints.rx {
            r.op_flags = w.op_flags;
            r.total_buffered_recv = w.total_buffered_recv;
            take(&mut r.size, w.size);
            take(&mut r.iov_limit, w.iov_limit);
        }
    }
    if let Some(t) = out.tx.as_mut() {
        t.caps = adjusted_caps(caps, hints.tx.map_or(0, |w| w.caps), t.caps);
        if let Some(w) = hints.tx {
            t.op_flags = w.op_flags;
            take(&mut t.inject_size, w.inject_size);
            take(&mut t.size, w.size);
            take(&mut t.iov_limit, w.iov_limit);
            take(&mut t.rma_iov_limit, w.rma_iov_limit);
            take(&mut t.tclass, w.tclass);
        }
    }
    out
}

/// The provider named by the hints, if any: `kfi_getinfo` asks only that one.
pub fn wanted_provider<'a>(hints: Option<&Info<'a>>) -> Option<&'a [u8]> {
    hints.and_then(|h| h.fabric).and_then(|f| f.prov_name)
}
