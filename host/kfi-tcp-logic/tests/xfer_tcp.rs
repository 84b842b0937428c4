// SPDX-License-Identifier: GPL-2.0
//! Tests of kfi_tcp/logic/xfer_tcp.rs: the tcp wire's frames per RMA and
//! the sends that ask for an ACK.
use kfi_tcp_logic::logic::xfer::*;
use kfi_tcp_logic::logic::xfer_tcp::*;

/// An RMA over more regions than a frame carries goes as several frames.
#[test]
fn rma_chunk_counts() {
    assert_eq!(rma_chunks(0), 1);
    assert_eq!(rma_chunks(1), 1);
    assert_eq!(rma_chunks(WIRE_RMA_IOVS), 1);
    assert_eq!(rma_chunks(WIRE_RMA_IOVS + 1), 2);
    assert_eq!(rma_chunks(IOV_MAX), IOV_MAX / WIRE_RMA_IOVS);
}

#[test]
fn ack_rules() {
    assert!(!wants_ack(0));
    assert!(!wants_ack(F_INJECT_COMPLETE | F_COMPLETION | F_SEND));
    assert!(wants_ack(F_TRANSMIT_COMPLETE));
    assert!(wants_ack(F_DELIVERY_COMPLETE));
    assert!(wants_ack(F_TRANSMIT_COMPLETE | F_DELIVERY_COMPLETE));
}
