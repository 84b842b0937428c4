// SPDX-License-Identifier: GPL-2.0
//! Hostile inputs named by the product requirements: truncated frames,
//! wrong version, unknown op, hdr_size/size inconsistent, rma_iov_cnt > 4
//! (plus the other rules the decoder enforces). Each case starts from a
//! valid frame and breaks one thing.

use kfi_tcp_wire::wire::cm::{self, CmHeader, CmType};
use kfi_tcp_wire::wire::hdr::*;
use kfi_tcp_wire::wire::{ByteOrder, WireError};

const LE: ByteOrder = ByteOrder::Little;
const BE: ByteOrder = ByteOrder::Big;

fn enc(h: &MsgHeader, order: ByteOrder) -> Vec<u8> {
    let mut buf = vec![0u8; 512];
    let payload: Vec<u8> = (0..h.payload_len()).map(|i| i as u8).collect();
    let n = h.encode_frame(&payload, &mut buf, order).unwrap();
    buf.truncate(n);
    buf
}

fn iov(len: u64) -> RmaIov {
    RmaIov {
        addr: 0x1000,
        len,
        key: 7,
    }
}

/// Valid frames of every kind (payloads kept small).
fn samples() -> Vec<MsgHeader> {
    vec![
        MsgHeader::send(5).unwrap(),
        MsgHeader::send(0).unwrap().with_cq_data(1).unwrap(),
        MsgHeader::ack(),
        MsgHeader::tagged(9, 3, TagForm::Op).unwrap(),
        MsgHeader::tagged(9, 3, TagForm::Flag)
            .unwrap()
            .with_cq_data(2)
            .unwrap(),
        MsgHeader::read_req(&[iov(10), iov(20)]).unwrap(),
        MsgHeader::read_rsp(30).unwrap(),
        MsgHeader::write(&[iov(4); 4], 16)
            .unwrap()
            .with_cq_data(3)
            .unwrap(),
        MsgHeader::write(&[iov(8)], 8)
            .unwrap()
            .with_delivery_complete()
            .unwrap(),
    ]
}

fn set_size(b: &mut [u8], size: u64, order: ByteOrder) {
    b[8..16].copy_from_slice(&order.u64_to(size));
}

#[test]
fn truncated_frames() {
    for order in [LE, BE] {
        for h in samples() {
            let b = enc(&h, order);
            let hdr = h.hdr_size();
            for cut in 0..b.len() {
                let t = &b[..cut];
                let need = if cut < 16 {
                    16
                } else if cut < hdr {
                    hdr
                } else {
                    b.len()
                };
                if cut < 16 {
                    assert_eq!(header_len(t, order), Err(WireError::Truncated { need: 16 }));
                    assert_eq!(
                        RawBase::peek(t, order),
                        Err(WireError::Truncated { need: 16 })
                    );
                } else {
                    assert_eq!(header_len(t, order), Ok(hdr));
                }
                if cut < hdr {
                    assert_eq!(
                        MsgHeader::decode(t, order),
                        Err(WireError::Truncated { need }),
                        "{h:?} cut at {cut}"
                    );
                } else {
                    assert_eq!(MsgHeader::decode(t, order), Ok(h));
                }
                assert_eq!(
                    Frame::decode(t, order),
                    Err(WireError::Truncated { need }),
                    "{h:?} cut at {cut}"
                );
            }
            assert!(Frame::decode(&b, order).is_ok());
        }
    }
}

#[test]
fn truncated_cm_messages() {
    let mut buf = [0u8; 64];
    let n = cm::encode_msg(CmType::ConnReq, b"0123456789", LE, &mut buf).unwrap();
    for cut in 0..n {
        let want = if cut < 32 { 32 } else { 42 };
        assert_eq!(
            cm::decode_msg(&buf[..cut]),
            Err(WireError::Truncated { need: want })
        );
        if cut < 32 {
            assert_eq!(
                CmHeader::decode(&buf[..cut]),
                Err(WireError::Truncated { need: 32 })
            );
        }
    }
    assert!(cm::decode_msg(&buf[..n]).is_ok());
}

#[test]
fn wrong_version() {
    for h in samples() {
        let mut b = enc(&h, LE);
        for v in [0u8, 1, 2, 4, 0x30, 0xff] {
            b[0] = v;
            assert_eq!(header_len(&b, LE), Err(WireError::BadVersion(v)));
            assert_eq!(MsgHeader::decode(&b, LE), Err(WireError::BadVersion(v)));
            assert_eq!(Frame::decode(&b, LE), Err(WireError::BadVersion(v)));
        }
    }
    let mut b = [0u8; 32];
    CmHeader::new(CmType::ConnReq, 0, LE)
        .unwrap()
        .encode(&mut b)
        .unwrap();
    for v in [0u8, 2, 4, 0xff] {
        b[0] = v;
        assert_eq!(CmHeader::decode(&b), Err(WireError::BadCmVersion(v)));
        assert_eq!(cm::decode_msg(&b), Err(WireError::BadCmVersion(v)));
        assert_eq!(WireError::BadCmVersion(v).errno(), -92);
    }
}

#[test]
fn unknown_op() {
    let mut b = enc(&MsgHeader::send(0).unwrap(), LE);
    for op in 5..=255u8 {
        b[1] = op;
        assert_eq!(header_len(&b, LE), Err(WireError::UnknownOp(op)));
        assert_eq!(MsgHeader::decode(&b, LE), Err(WireError::UnknownOp(op)));
        assert_eq!(WireError::UnknownOp(op).errno(), -71);
    }
}

#[test]
fn unknown_cm_type() {
    let mut b = [0u8; 32];
    CmHeader::new(CmType::ConnReq, 0, LE)
        .unwrap()
        .encode(&mut b)
        .unwrap();
    for t in (2..=255u8).filter(|&t| t != 6) {
        b[1] = t;
        assert_eq!(CmHeader::decode(&b), Err(WireError::UnknownCmType(t)));
    }
}

#[test]
fn cm_data_too_long() {
    let mut b = [0u8; 32];
    CmHeader::new(CmType::ConnReq, 0, LE)
        .unwrap()
        .encode(&mut b)
        .unwrap();
    for len in [257u16, 300, 0x0100 + 1, 0xffff] {
        b[2..4].copy_from_slice(&len.to_be_bytes());
        assert_eq!(
            CmHeader::decode(&b),
            Err(WireError::CmDataTooLong(len as usize))
        );
    }
    // seg_size is big-endian: 0x0001 little-endian would read as 256.
    b[2..4].copy_from_slice(&[0x01, 0x00]);
    assert_eq!(CmHeader::decode(&b).unwrap().data_len(), 256);
    assert_eq!(
        CmHeader::new(CmType::ConnReq, 70000, LE),
        Err(WireError::CmDataTooLong(70000))
    );
}

#[test]
fn bad_endian_probe() {
    let mut b = [0u8; 32];
    CmHeader::new(CmType::ConnResp, 0, LE)
        .unwrap()
        .encode(&mut b)
        .unwrap();
    for probe in [0u64, 2, 0x0100, u64::MAX, 0x0000_0001_0000_0000] {
        b[24..].copy_from_slice(&probe.to_le_bytes());
        let h = CmHeader::decode(&b).unwrap();
        assert_eq!(h.sender_order(), None);
        assert_eq!(h.msg_order(LE), Err(WireError::BadEndianProbe(probe)));
    }
}

#[test]
fn hdr_size_inconsistent() {
    for order in [LE, BE] {
        for h in samples() {
            let b = enc(&h, order);
            let good = h.hdr_size();
            for hs in 0..=255u8 {
                if usize::from(hs) == good {
                    continue;
                }
                let mut m = b.clone();
                m[6] = hs;
                let want = WireError::BadHdrSize {
                    got: hs,
                    expected: good,
                };
                assert_eq!(header_len(&m, order), Err(want), "{h:?}");
                assert_eq!(MsgHeader::decode(&m, order), Err(want));
                assert_eq!(Frame::decode(&m, order), Err(want));
            }
        }
    }
    // Flags that imply another header length than the one sent.
    let mut b = enc(&MsgHeader::send(8).unwrap(), LE);
    b[2] = 0x01; // CQ data announced, but hdr_size 16
    assert_eq!(
        MsgHeader::decode(&b, LE),
        Err(WireError::BadHdrSize {
            got: 16,
            expected: 24
        })
    );
}

#[test]
fn size_inconsistent() {
    for order in [LE, BE] {
        for h in samples() {
            let hdr = h.hdr_size() as u64;
            for size in [0, 1, 15, hdr - 1] {
                let mut b = enc(&h, order);
                set_size(&mut b, size, order);
                let want = WireError::SizeTooSmall {
                    size,
                    hdr_size: h.hdr_size(),
                };
                assert_eq!(header_len(&b, order), Err(want));
                assert_eq!(MsgHeader::decode(&b, order), Err(want));
            }
            // A size beyond the buffer is only a truncation for Frame.
            let mut b = enc(&h, order);
            let big = h.size() + 1;
            set_size(&mut b, big, order);
            match h.kind() {
                FrameKind::Ack => {
                    assert_eq!(MsgHeader::decode(&b, order), Err(WireError::BadAck))
                }
                FrameKind::ReadReq => assert_eq!(
                    MsgHeader::decode(&b, order),
                    Err(WireError::UnexpectedPayload { size: big })
                ),
                FrameKind::Write => assert!(matches!(
                    MsgHeader::decode(&b, order),
                    Err(WireError::PayloadExceedsRma { .. })
                )),
                _ => {
                    assert!(MsgHeader::decode(&b, order).is_ok());
                    assert_eq!(
                        Frame::decode(&b, order),
                        Err(WireError::Truncated { need: big as usize })
                    );
                }
            }
            // size u64::MAX never overflows anything.
            set_size(&mut b, u64::MAX, order);
            let _ = Frame::decode(&b, order);
            let _ = MsgHeader::decode(&b, order);
        }
    }
}

#[test]
fn rma_iov_cnt_over_limit() {
    for order in [LE, BE] {
        let read = enc(&MsgHeader::read_req(&[iov(1); 4]).unwrap(), order);
        let write = enc(&MsgHeader::write(&[iov(1); 4], 4).unwrap(), order);
        for base in [read, write] {
            for n in 5..=255u8 {
                let mut b = base.clone();
                b[5] = n;
                let want = WireError::TooManyIovs(n as usize);
                assert_eq!(header_len(&b, order), Err(want));
                assert_eq!(MsgHeader::decode(&b, order), Err(want));
                // Even with a hdr_size that would match 5 iovs.
                b[6] = 16 + 24 * 5;
                assert_eq!(MsgHeader::decode(&b, order), Err(want));
            }
        }
    }
    // Ops that carry no iovs ignore the (possibly stale) count.
    let mut b = enc(&MsgHeader::send(1).unwrap(), LE);
    b[5] = 200;
    let h = MsgHeader::decode(&b, LE).unwrap();
    assert_eq!(h.rma_iov_cnt(), 200);
    assert!(h.rma_iovs().is_empty());
}

#[test]
fn bad_flags() {
    // Unknown bits, including the reserved "transmit complete" bit 1.
    let b0 = enc(&MsgHeader::send(1).unwrap(), LE);
    for bit in (0..16).map(|i| 1u16 << i) {
        if Flags::KNOWN.bits() & bit != 0 {
            assert!(Flags::from_bits(bit).is_some());
            continue;
        }
        assert_eq!(Flags::from_bits(bit), None);
        let mut b = b0.clone();
        b[2..4].copy_from_slice(&bit.to_le_bytes());
        assert_eq!(MsgHeader::decode(&b, LE), Err(WireError::BadFlags(bit)));
    }
    // A flags word in the wrong byte order is refused, not misread.
    let h = MsgHeader::tagged(1, 0, TagForm::Flag).unwrap();
    let b = enc(&h, BE);
    assert_eq!(MsgHeader::decode(&b, LE), Err(WireError::BadFlags(0x8000)));
    // Tag on ops other than msg/tagged; CQ data on reads.
    let mut b = enc(&MsgHeader::write(&[iov(1)], 1).unwrap(), LE);
    b[2] = 0x80;
    assert_eq!(MsgHeader::decode(&b, LE), Err(WireError::BadFlags(0x80)));
    let mut b = enc(&MsgHeader::read_req(&[iov(1)]).unwrap(), LE);
    b[2] = 0x01;
    assert_eq!(MsgHeader::decode(&b, LE), Err(WireError::BadFlags(0x01)));
    let mut b = enc(&MsgHeader::read_rsp(0).unwrap(), LE);
    b[2] = 0x80;
    assert_eq!(MsgHeader::decode(&b, LE), Err(WireError::BadFlags(0x80)));
}

#[test]
fn bad_op_data_and_ack() {
    let b0 = enc(&MsgHeader::send(1).unwrap(), LE);
    for od in (1..=255u8).filter(|&v| v != OP_DATA_ACK) {
        let mut b = b0.clone();
        b[4] = od;
        assert_eq!(MsgHeader::decode(&b, LE), Err(WireError::BadOpData(od)));
    }
    // A msg with payload and op_data 2 is a malformed ACK.
    let mut b = b0.clone();
    b[4] = OP_DATA_ACK;
    assert_eq!(MsgHeader::decode(&b, LE), Err(WireError::BadAck));
    // ACK with flags.
    let mut b = enc(&MsgHeader::ack(), LE);
    b[2] = 0x04;
    assert_eq!(MsgHeader::decode(&b, LE), Err(WireError::BadAck));
}

#[test]
fn read_request_with_payload() {
    let mut b = enc(&MsgHeader::read_req(&[iov(1)]).unwrap(), LE);
    set_size(&mut b, 41, LE);
    b.push(0);
    assert_eq!(
        MsgHeader::decode(&b, LE),
        Err(WireError::UnexpectedPayload { size: 41 })
    );
}

#[test]
fn write_payload_beyond_iovs() {
    let mut b = enc(&MsgHeader::write(&[iov(4), iov(4)], 8).unwrap(), LE);
    set_size(&mut b, 64 + 9, LE);
    b.push(0);
    assert_eq!(
        MsgHeader::decode(&b, LE),
        Err(WireError::PayloadExceedsRma {
            payload: 9,
            rma_total: 8
        })
    );
    assert_eq!(
        WireError::PayloadExceedsRma {
            payload: 9,
            rma_total: 8
        }
        .errno(),
        -90
    );
}

#[test]
fn wrong_byte_order_is_caught_or_harmless() {
    // Reading a frame in the wrong order never panics; frames with flags
    // fail validation (the flags land in the high byte, where no flag is
    // defined). A flagless frame may decode with an absurd size, which
    // the reader's own limits must catch: the codec cannot.
    for h in samples() {
        let b = enc(&h, LE);
        let r = MsgHeader::decode(&b, BE);
        if h.flags() != Flags::NONE {
            assert!(matches!(r, Err(WireError::BadFlags(_))), "{h:?}");
        }
    }
}
