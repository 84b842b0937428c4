// SPDX-License-Identifier: GPL-2.0
//! The atomic operations an RC queue pair does in hardware, as kfabric
//! calls reach them: a 64-bit fetch-and-add and a 64-bit compare-and-swap
//! on one element (`IB_WR_ATOMIC_FETCH_AND_ADD`, `IB_WR_ATOMIC_CMP_AND_SWP`),
//! on devices that have atomics (`atomic_cap` not NONE: rxe; not siw).
//! Everything else is -KFI_ENOSYS: other datatypes, other operations, more
//! than one element (as libfabric's verbs provider offers them).

/// The kfabric numbers this module maps (`enum kfi_datatype`,
/// `enum kfi_op`; checked against the headers where the module is
/// built).
pub mod kfi {
    /// `KFI_INT64`.
    pub const INT64: u32 = 6;
    /// `KFI_UINT64`.
    pub const UINT64: u32 = 7;
    /// `KFI_SUM`.
    pub const SUM: u32 = 2;
    /// `KFI_ATOMIC_READ`.
    pub const ATOMIC_READ: u32 = 10;
    /// `KFI_CSWAP`.
    pub const CSWAP: u32 = 12;
}

/// Bytes of the one element an operation works on.
pub const ELEM: u64 = 8;

/// Which atomic call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// `kfi_atomic` (no result).
    Atomic,
    /// `kfi_fetch_atomic` (the old value).
    Fetch,
    /// `kfi_compare_atomic` (the old value).
    Compare,
}

/// The work request an atomic becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IbAtomic {
    /// Adds the operand (0 for `KFI_ATOMIC_READ`), returns the old value.
    FetchAdd,
    /// Swaps in the operand when the old value equals the compare
    /// operand; returns the old value.
    CmpSwap,
}

/// The work request for `call` on `datatype` with `op`, or `None` when
/// the hardware does not do it.
pub fn ib_atomic(call: Call, datatype: u32, op: u32) -> Option<IbAtomic> {
    if datatype != kfi::INT64 && datatype != kfi::UINT64 {
        return None;
    }
    match (call, op) {
        (Call::Atomic, kfi::SUM) => Some(IbAtomic::FetchAdd),
        (Call::Fetch, kfi::SUM | kfi::ATOMIC_READ) => Some(IbAtomic::FetchAdd),
        (Call::Compare, kfi::CSWAP) => Some(IbAtomic::CmpSwap),
        _ => None,
    }
}

/// Why a posted atomic is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicError {
    /// Not done by the hardware (-KFI_ENOSYS).
    NotDone,
    /// The remote address is not 8-byte aligned, or an operand, result
    /// or compare buffer is missing (-EINVAL).
    Bad,
}

/// The buffers a posted atomic came with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bufs {
    /// An operand of one element (none is right for `KFI_ATOMIC_READ`).
    pub operand: bool,
    /// A result buffer (needed by fetching and compare atomics).
    pub result: bool,
    /// A compare operand (needed by compare atomics).
    pub compare: bool,
}

/// Checks a posted atomic: `atomics` (the device has them), the call,
/// datatype and operation, its remote bytes `len` (one element), the
/// device address `raddr`, and the buffers the call needs.
pub fn check(atomics: bool, call: Call, datatype: u32, op: u32, len: u64, raddr: u64, b: Bufs) -> Result<IbAtomic, AtomicError> {
    let a = ib_atomic(call, datatype, op).filter(|_| atomics && len == ELEM).ok_or(AtomicError::NotDone)?;
    let needs_operand = op != kfi::ATOMIC_READ;
    if raddr % ELEM != 0
        || (needs_operand && !b.operand)
        || (call != Call::Atomic && !b.result)
        || (call == Call::Compare && !b.compare)
    {
        return Err(AtomicError::Bad);
    }
    Ok(a)
}
