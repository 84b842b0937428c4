// SPDX-License-Identifier: GPL-2.0
//! How a work request's completion status (`enum ib_wc_status`) becomes
//! the kfabric error of its operation's error entry (any status but a
//! flush also ends the connection: kfi_verbs_qp.c disconnects it).
//! Kernel-independent (also the host crate
//! `kfi-verbs-logic`); the numbers are checked against the kernel's
//! headers at build time (kfi_verbs_qp.c, xfer.rs).

/// `enum ib_wc_status` (include/rdma/ib_verbs.h), in its order.
pub mod wc {
    pub const SUCCESS: i32 = 0;
    pub const LOC_LEN_ERR: i32 = 1;
    pub const LOC_QP_OP_ERR: i32 = 2;
    pub const LOC_EEC_OP_ERR: i32 = 3;
    pub const LOC_PROT_ERR: i32 = 4;
    pub const WR_FLUSH_ERR: i32 = 5;
    pub const MW_BIND_ERR: i32 = 6;
    pub const BAD_RESP_ERR: i32 = 7;
    pub const LOC_ACCESS_ERR: i32 = 8;
    pub const REM_INV_REQ_ERR: i32 = 9;
    pub const REM_ACCESS_ERR: i32 = 10;
    pub const REM_OP_ERR: i32 = 11;
    pub const RETRY_EXC_ERR: i32 = 12;
    pub const RNR_RETRY_EXC_ERR: i32 = 13;
    pub const LOC_RDD_VIOL_ERR: i32 = 14;
    pub const REM_INV_RD_REQ_ERR: i32 = 15;
    pub const REM_ABORT_ERR: i32 = 16;
    pub const INV_EECN_ERR: i32 = 17;
    pub const INV_EEC_STATE_ERR: i32 = 18;
    pub const FATAL_ERR: i32 = 19;
    pub const RESP_TIMEOUT_ERR: i32 = 20;
    pub const GENERAL_ERR: i32 = 21;
}

/// The Linux error numbers used here (asm-generic/errno*.h) and
/// kfabric's `KFI_ETRUNC` (include/kfi_errno.h).
pub mod errno {
    pub const EIO: u32 = 5;
    pub const EACCES: u32 = 13;
    pub const EFAULT: u32 = 14;
    pub const EMSGSIZE: u32 = 90;
    pub const ETIMEDOUT: u32 = 110;
    pub const EREMOTEIO: u32 = 121;
    pub const ECANCELED: u32 = 125;
    pub const KFI_ETRUNC: u32 = 265;
}

/// The error of an operation whose work request completed with `status`
/// (not `SUCCESS`): a positive kfabric error number. `rx`: a receive (a
/// local length error there means the message did not fit).
pub fn error_of(status: i32, rx: bool) -> u32 {
    match status {
        wc::WR_FLUSH_ERR => errno::ECANCELED,
        wc::LOC_LEN_ERR if rx => errno::KFI_ETRUNC,
        wc::LOC_LEN_ERR => errno::EMSGSIZE,
        wc::REM_ACCESS_ERR | wc::LOC_ACCESS_ERR | wc::MW_BIND_ERR => errno::EACCES,
        wc::LOC_PROT_ERR => errno::EFAULT,
        wc::REM_INV_REQ_ERR | wc::REM_OP_ERR | wc::REM_INV_RD_REQ_ERR | wc::REM_ABORT_ERR => errno::EREMOTEIO,
        wc::RETRY_EXC_ERR | wc::RNR_RETRY_EXC_ERR | wc::RESP_TIMEOUT_ERR => errno::ETIMEDOUT,
        _ => errno::EIO,
    }
}
