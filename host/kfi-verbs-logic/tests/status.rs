// SPDX-License-Identifier: GPL-2.0
//! The completion-status table of kfi_verbs (logic/status.rs).

use kfi_verbs_logic::status::{errno, error_of, wc};

#[test]
fn flush_is_cancel_on_both_sides() {
    assert_eq!(error_of(wc::WR_FLUSH_ERR, true), errno::ECANCELED);
    assert_eq!(error_of(wc::WR_FLUSH_ERR, false), errno::ECANCELED);
}

#[test]
fn length_error_is_truncation_on_receive_only() {
    assert_eq!(error_of(wc::LOC_LEN_ERR, true), errno::KFI_ETRUNC);
    assert_eq!(error_of(wc::LOC_LEN_ERR, false), errno::EMSGSIZE);
}

#[test]
fn access_protection_remote_and_timeouts() {
    for s in [wc::REM_ACCESS_ERR, wc::LOC_ACCESS_ERR, wc::MW_BIND_ERR] {
        assert_eq!(error_of(s, false), errno::EACCES, "status {s}");
    }
    assert_eq!(error_of(wc::LOC_PROT_ERR, false), errno::EFAULT);
    for s in [wc::REM_INV_REQ_ERR, wc::REM_OP_ERR, wc::REM_INV_RD_REQ_ERR, wc::REM_ABORT_ERR] {
        assert_eq!(error_of(s, false), errno::EREMOTEIO, "status {s}");
    }
    for s in [wc::RETRY_EXC_ERR, wc::RNR_RETRY_EXC_ERR, wc::RESP_TIMEOUT_ERR] {
        assert_eq!(error_of(s, true), errno::ETIMEDOUT, "status {s}");
    }
}

#[test]
fn everything_else_is_eio() {
    for s in [wc::LOC_QP_OP_ERR, wc::LOC_EEC_OP_ERR, wc::BAD_RESP_ERR, wc::FATAL_ERR, wc::GENERAL_ERR, 22, 99, -1] {
        assert_eq!(error_of(s, false), errno::EIO, "status {s}");
    }
}
