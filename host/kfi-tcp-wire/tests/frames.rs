// SPDX-License-Identifier: GPL-2.0
//! Byte-exact frames, written out by hand from the libfabric 1.17 struct
//! layouts (prov/tcp/src/tcpx.h `tcpx_base_hdr`, `tcpx_cq_data_hdr`,
//! `tcpx_tag_hdr`, `tcpx_tag_data_hdr`; include/ofi_proto.h
//! `ofi_ctrl_hdr`, `ofi_rma_iov`), so that a layout mistake in the codec
//! shows up as a byte mismatch. Each case is encoded and compared with the
//! expected bytes, then the expected bytes are decoded and compared with
//! the header.

use kfi_tcp_wire::wire::cm::{self, CmHeader, CmType, CM_HDR_SIZE, MAX_CM_DATA};
use kfi_tcp_wire::wire::error::errno;
use kfi_tcp_wire::wire::hdr::*;
use kfi_tcp_wire::wire::{ByteOrder, WireError};

const LE: ByteOrder = ByteOrder::Little;
const BE: ByteOrder = ByteOrder::Big;

/// Encodes `h` (header only) and checks it against `expected`, then
/// decodes `expected` and checks it against `h`.
fn check_hdr(h: &MsgHeader, order: ByteOrder, expected: &[u8]) {
    let mut buf = [0xeeu8; 200];
    let n = h.encode(&mut buf, order).expect("encode");
    assert_eq!(&buf[..n], expected, "encoded bytes of {h:?}");
    assert_eq!(n, h.hdr_size());
    assert_eq!(header_len(expected, order), Ok(expected.len()));
    assert_eq!(header_len(&expected[..16], order), Ok(expected.len()));
    let d = MsgHeader::decode(expected, order).expect("decode");
    assert_eq!(&d, h);
    assert_eq!(d.payload_len() + d.hdr_size() as u64, d.size());
}

/// Same for a whole frame with its payload.
fn check_frame(h: &MsgHeader, payload: &[u8], order: ByteOrder, expected: &[u8]) {
    let mut buf = [0xeeu8; 400];
    let n = h
        .encode_frame(payload, &mut buf, order)
        .expect("encode_frame");
    assert_eq!(&buf[..n], expected);
    let f = Frame::decode(expected, order).expect("frame decode");
    assert_eq!(&f.header, h);
    assert_eq!(f.payload, payload);
    assert_eq!(f.len(), expected.len());
    check_hdr(h, order, &expected[..h.hdr_size()]);
}

fn le64(v: u64) -> [u8; 8] {
    v.to_le_bytes()
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

#[test]
fn constants() {
    assert_eq!(HDR_VERSION, 3);
    assert_eq!(BASE_HDR_SIZE, 16);
    assert_eq!(MAX_HDR_SIZE, 120);
    assert_eq!(max_header_size(), 120);
    assert_eq!(MAX_INJECT, 128);
    assert_eq!(IOV_LIMIT, 4);
    assert_eq!(RMA_IOV_LIMIT, 4);
    assert_eq!(RMA_IOV_SIZE, 24);
    assert_eq!(OP_DATA_ACK, 2);
    assert_eq!(Flags::REMOTE_CQ_DATA.bits(), 0x1);
    assert_eq!(Flags::DELIVERY_COMPLETE.bits(), 0x4);
    assert_eq!(Flags::COMMIT_COMPLETE.bits(), 0x8);
    assert_eq!(Flags::TAGGED.bits(), 0x80);
    assert_eq!(Flags::KNOWN.bits(), 0x8d);
    assert_eq!(
        [Op::Msg, Op::Tagged, Op::ReadReq, Op::ReadRsp, Op::Write].map(Op::as_u8),
        [0, 1, 2, 3, 4]
    );
    assert_eq!(cm::CTRL_HDR_VERSION, 3);
    assert_eq!(CM_HDR_SIZE, 32);
    assert_eq!(MAX_CM_DATA, 256);
    assert_eq!(
        [CmType::ConnReq, CmType::ConnResp, CmType::Nack].map(CmType::as_u8),
        [0, 1, 6]
    );
}

#[test]
fn hdr_size_rule() {
    let f = Flags::NONE;
    let cq = Flags::REMOTE_CQ_DATA;
    assert_eq!(hdr_size_for(Op::Msg, f, 0), Ok(16));
    assert_eq!(hdr_size_for(Op::Msg, cq, 0), Ok(24));
    assert_eq!(hdr_size_for(Op::Msg, Flags::TAGGED, 0), Ok(24));
    assert_eq!(hdr_size_for(Op::Msg, cq.union(Flags::TAGGED), 0), Ok(32));
    assert_eq!(
        hdr_size_for(Op::Msg, f, 3),
        Ok(16),
        "msg ignores rma_iov_cnt"
    );
    assert_eq!(hdr_size_for(Op::Tagged, f, 0), Ok(24));
    assert_eq!(hdr_size_for(Op::Tagged, cq, 0), Ok(32));
    assert_eq!(hdr_size_for(Op::ReadRsp, f, 4), Ok(16));
    for n in 0..=4 {
        assert_eq!(hdr_size_for(Op::ReadReq, f, n), Ok(16 + 24 * n));
        assert_eq!(hdr_size_for(Op::Write, f, n), Ok(16 + 24 * n));
        assert_eq!(hdr_size_for(Op::Write, cq, n), Ok(24 + 24 * n));
    }
    assert_eq!(
        hdr_size_for(Op::Write, cq, 5),
        Err(WireError::TooManyIovs(5))
    );
    assert_eq!(
        hdr_size_for(Op::ReadReq, cq, 1),
        Err(WireError::BadFlags(1))
    );
    assert_eq!(
        hdr_size_for(Op::Write, Flags::TAGGED, 1),
        Err(WireError::BadFlags(0x80))
    );
}

#[test]
fn send_plain() {
    let h = MsgHeader::send(5).unwrap();
    assert_eq!(h.kind(), FrameKind::Send);
    assert!(!h.needs_ack());
    #[rustfmt::skip]
    let hdr = [3, 0, 0, 0, 0, 0, 16, 0, 21, 0, 0, 0, 0, 0, 0, 0];
    check_frame(&h, b"hello", LE, &cat(&[&hdr, b"hello"]));
}

#[test]
fn send_zero_length_with_id() {
    let h = MsgHeader::send(0).unwrap().with_id(0xa5);
    #[rustfmt::skip]
    let hdr = [3, 0, 0, 0, 0, 0, 16, 0xa5, 16, 0, 0, 0, 0, 0, 0, 0];
    check_frame(&h, b"", LE, &hdr);
}

#[test]
fn ack() {
    let h = MsgHeader::ack();
    assert!(h.is_ack());
    assert_eq!(h.kind(), FrameKind::Ack);
    assert!(!h.needs_ack());
    assert_eq!(h.payload_len(), 0);
    #[rustfmt::skip]
    let b = [3, 0, 0, 0, 2, 0, 16, 0, 16, 0, 0, 0, 0, 0, 0, 0];
    check_frame(&h, b"", LE, &b);
    // Big-endian: only `size` changes.
    #[rustfmt::skip]
    let b = [3, 0, 0, 0, 2, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 16];
    check_frame(&h, b"", BE, &b);
}

#[test]
fn ack_with_stale_rma_iov_cnt_is_accepted() {
    // libfabric 1.17 does not set rma_iov_cnt (nor id) on ACKs and sends:
    // the pooled entry keeps whatever an earlier write left there.
    #[rustfmt::skip]
    let b = [3, 0, 0, 0, 2, 3, 16, 9, 16, 0, 0, 0, 0, 0, 0, 0];
    let h = MsgHeader::decode(&b, LE).unwrap();
    assert!(h.is_ack());
    assert_eq!(h.rma_iov_cnt(), 3);
    assert_eq!(h.id(), 9);
    assert!(h.rma_iovs().is_empty());
    let mut out = [0u8; 16];
    h.encode(&mut out, LE).unwrap();
    assert_eq!(out, b, "re-encoding reproduces the bytes");
}

#[test]
fn send_cq_data_delivery_complete() {
    let h = MsgHeader::send(3)
        .unwrap()
        .with_cq_data(0x1122_3344_5566_7788)
        .unwrap()
        .with_delivery_complete()
        .unwrap();
    assert!(h.needs_ack());
    assert_eq!(h.cq_data(), Some(0x1122_3344_5566_7788));
    #[rustfmt::skip]
    let hdr = [
        3, 0, 0x05, 0x00, 0, 0, 24, 0,
        27, 0, 0, 0, 0, 0, 0, 0,
        0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
    ];
    check_frame(&h, b"abc", LE, &cat(&[&hdr, b"abc"]));
    // The opposite byte order swaps flags, size and the CQ data word.
    #[rustfmt::skip]
    let hdr = [
        3, 0, 0x00, 0x05, 0, 0, 24, 0,
        0, 0, 0, 0, 0, 0, 0, 27,
        0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
    ];
    check_frame(&h, b"abc", BE, &cat(&[&hdr, b"abc"]));
}

#[test]
fn tagged_op_form() {
    let h = MsgHeader::tagged(1234, 64, TagForm::Op).unwrap();
    assert_eq!(h.kind(), FrameKind::TaggedSend);
    assert_eq!(h.tag(), Some(1234));
    assert_eq!(h.tag_form(), Some(TagForm::Op));
    let mut b = vec![3, 1, 0, 0, 0, 0, 24, 0];
    b.extend(le64(88));
    b.extend([0xd2, 0x04, 0, 0, 0, 0, 0, 0]);
    check_hdr(&h, LE, &b);
}

#[test]
fn tagged_op_form_with_cq_data() {
    let h = MsgHeader::tagged(0xaabb, 1, TagForm::Op)
        .unwrap()
        .with_cq_data(7)
        .unwrap();
    // tcpx_tag_data_hdr: base, cq_data, tag.
    let mut b = vec![3, 1, 1, 0, 0, 0, 32, 0];
    b.extend(le64(33));
    b.extend(le64(7));
    b.extend(le64(0xaabb));
    check_frame(&h, b"x", LE, &cat(&[&b, b"x"]));
}

#[test]
fn tagged_flag_form_as_rxm_sends() {
    let h = MsgHeader::tagged(1234, 4, TagForm::Flag).unwrap();
    assert_eq!(h.op(), Op::Msg);
    assert_eq!(h.kind(), FrameKind::TaggedSend);
    assert_eq!(h.tag_form(), Some(TagForm::Flag));
    let mut b = vec![3, 0, 0x80, 0, 0, 0, 24, 0];
    b.extend(le64(28));
    b.extend(le64(1234));
    check_frame(&h, b"ping", LE, &cat(&[&b, b"ping"]));

    let h = h
        .with_cq_data(0x55)
        .unwrap()
        .with_delivery_complete()
        .unwrap();
    let mut b = vec![3, 0, 0x85, 0, 0, 0, 32, 0];
    b.extend(le64(36));
    b.extend(le64(0x55));
    b.extend(le64(1234));
    check_frame(&h, b"ping", LE, &cat(&[&b, b"ping"]));
    assert!(h.needs_ack());

    // Big-endian peer: flags 0x0085 -> 00 85.
    let mut b = vec![3, 0, 0x00, 0x85, 0, 0, 32, 0];
    b.extend(36u64.to_be_bytes());
    b.extend(0x55u64.to_be_bytes());
    b.extend(1234u64.to_be_bytes());
    check_hdr(&h, BE, &b);
}

#[test]
fn tagged_op_with_tagged_flag_is_accepted() {
    // Not sent by 1.17, but its receiver treats it as tagged: accept.
    let mut b = vec![3, 1, 0x80, 0, 0, 0, 24, 0];
    b.extend(le64(24));
    b.extend(le64(99));
    let h = MsgHeader::decode(&b, LE).unwrap();
    assert_eq!(h.tag(), Some(99));
    assert_eq!(h.kind(), FrameKind::TaggedSend);
}

#[test]
fn write_one_iov() {
    let iov = RmaIov {
        addr: 0x1000,
        len: 8,
        key: 0x2a,
    };
    let h = MsgHeader::write(&[iov], 8).unwrap();
    assert_eq!(h.kind(), FrameKind::Write);
    assert_eq!(h.rma_iovs(), &[iov]);
    let mut b = vec![3, 4, 0, 0, 0, 1, 40, 0];
    b.extend(le64(48));
    b.extend(le64(0x1000));
    b.extend(le64(8));
    b.extend(le64(0x2a));
    check_frame(&h, b"12345678", LE, &cat(&[&b, b"12345678"]));
}

#[test]
fn write_four_iovs_cq_data_commit() {
    let iovs: Vec<RmaIov> = (0..4u64)
        .map(|i| RmaIov {
            addr: 0x1_0000_0000 + i * 0x100,
            len: i + 1,
            key: 0xdead_0000 + i,
        })
        .collect();
    let h = MsgHeader::write(&iovs, 10)
        .unwrap()
        .with_cq_data(0xc0ffee)
        .unwrap()
        .with_commit_complete()
        .unwrap();
    assert!(h.needs_ack());
    assert_eq!(h.hdr_size(), 120);
    let mut b = vec![3, 4, 0x09, 0, 0, 4, 120, 0];
    b.extend(le64(130));
    b.extend(le64(0xc0ffee));
    for i in 0..4u64 {
        b.extend(le64(0x1_0000_0000 + i * 0x100));
        b.extend(le64(i + 1));
        b.extend(le64(0xdead_0000 + i));
    }
    assert_eq!(b.len(), 120);
    check_frame(&h, b"0123456789", LE, &cat(&[&b, b"0123456789"]));

    // Big-endian: every 8-byte word swapped.
    let mut b = vec![3, 4, 0, 0x09, 0, 4, 120, 0];
    b.extend(130u64.to_be_bytes());
    b.extend(0xc0ffeeu64.to_be_bytes());
    for i in 0..4u64 {
        b.extend((0x1_0000_0000 + i * 0x100u64).to_be_bytes());
        b.extend((i + 1).to_be_bytes());
        b.extend((0xdead_0000 + i).to_be_bytes());
    }
    check_hdr(&h, BE, &b);
}

#[test]
fn write_four_iovs_no_cq_data() {
    let iovs = [RmaIov {
        addr: 1,
        len: 2,
        key: 3,
    }; 4];
    let h = MsgHeader::write(&iovs, 8)
        .unwrap()
        .with_delivery_complete()
        .unwrap();
    let mut b = vec![3, 4, 0x04, 0, 0, 4, 112, 0];
    b.extend(le64(120));
    for _ in 0..4 {
        b.extend(le64(1));
        b.extend(le64(2));
        b.extend(le64(3));
    }
    check_hdr(&h, LE, &b);
}

#[test]
fn read_request_and_response() {
    let iovs = [
        RmaIov {
            addr: 0x7f00_0000_1000,
            len: 4096,
            key: 1,
        },
        RmaIov {
            addr: 0,
            len: 100,
            key: 2,
        },
    ];
    let h = MsgHeader::read_req(&iovs).unwrap();
    assert_eq!(h.kind(), FrameKind::ReadReq);
    assert_eq!(h.payload_len(), 0);
    assert!(!h.needs_ack());
    let mut b = vec![3, 2, 0, 0, 0, 2, 64, 0];
    b.extend(le64(64));
    b.extend(le64(0x7f00_0000_1000));
    b.extend(le64(4096));
    b.extend(le64(1));
    b.extend(le64(0));
    b.extend(le64(100));
    b.extend(le64(2));
    check_frame(&h, b"", LE, &b);

    let r = MsgHeader::read_rsp(4196).unwrap();
    assert_eq!(r.kind(), FrameKind::ReadRsp);
    let mut b = vec![3, 3, 0, 0, 0, 0, 16, 0];
    b.extend(le64(16 + 4196));
    check_hdr(&r, LE, &b);
}

#[test]
fn read_response_as_libfabric_sends_it() {
    // 1.17 builds the response from a copy of the request header: it keeps
    // the request's rma_iov_cnt and id while hdr_size is 16.
    let mut b = vec![3, 3, 0, 0, 0, 2, 16, 7];
    b.extend(le64(16 + 3));
    b.extend(b"xyz");
    let f = Frame::decode(&b, LE).unwrap();
    assert_eq!(f.header.kind(), FrameKind::ReadRsp);
    assert_eq!(f.header.rma_iov_cnt(), 2);
    assert!(f.header.rma_iovs().is_empty());
    assert_eq!(f.payload, b"xyz");
}

#[test]
fn legacy_op_data_on_non_msg_ops_is_ignored() {
    // Releases up to 1.12 put their internal op type in op_data (3 for a
    // write); 1.17 ignores op_data except on op msg.
    let mut b = vec![3, 4, 0, 0, 3, 0, 16, 0];
    b.extend(le64(16));
    let h = MsgHeader::decode(&b, LE).unwrap();
    assert_eq!(h.op_data(), 3);
    assert_eq!(h.kind(), FrameKind::Write);
}

#[test]
fn cm_connreq_without_data() {
    let h = CmHeader::new(CmType::ConnReq, 0, LE).unwrap();
    #[rustfmt::skip]
    let b: [u8; 32] = [
        3, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0,
        1, 0, 0, 0, 0, 0, 0, 0,
    ];
    let mut buf = [0xeeu8; 64];
    assert_eq!(h.encode(&mut buf), Ok(32));
    assert_eq!(buf[..32], b);
    assert_eq!(cm::encode_msg(CmType::ConnReq, &[], LE, &mut buf), Ok(32));
    assert_eq!(buf[..32], b);
    let (d, data) = cm::decode_msg(&b).unwrap();
    assert_eq!(d, h);
    assert!(data.is_empty());
    assert_eq!(d.sender_order(), Some(LE));
    assert_eq!(d.msg_order(LE), Ok(LE));
    assert_eq!(d.check(CmType::ConnReq), Ok(()));
}

#[test]
fn cm_connreq_with_data_big_endian_host() {
    let data: Vec<u8> = (0..24u8).collect();
    let mut b = vec![3, 0, 0, 24];
    b.extend([0u8; 20]);
    b.extend([0, 0, 0, 0, 0, 0, 0, 1]);
    b.extend(&data);
    let mut buf = [0u8; 300];
    let n = cm::encode_msg(CmType::ConnReq, &data, BE, &mut buf).unwrap();
    assert_eq!(&buf[..n], &b[..]);
    let (h, d) = cm::decode_msg(&b).unwrap();
    assert_eq!(h.kind(), CmType::ConnReq);
    assert_eq!(h.data_len(), 24);
    assert_eq!(h.msg_len(), 56);
    assert_eq!(d, &data[..]);
    assert_eq!(h.sender_order(), Some(BE));
    // Mismatched hosts talk big-endian; matching hosts their own order.
    assert_eq!(h.msg_order(LE), Ok(BE));
    assert_eq!(h.msg_order(BE), Ok(BE));
}

#[test]
fn cm_connresp_max_data() {
    let data = [0x5au8; 256];
    let mut buf = [0u8; 300];
    let n = cm::encode_msg(CmType::ConnResp, &data, LE, &mut buf).unwrap();
    assert_eq!(n, 288);
    assert_eq!(buf[..4], [3, 1, 0x01, 0x00]);
    assert_eq!(buf[24..32], [1, 0, 0, 0, 0, 0, 0, 0]);
    let (h, d) = cm::decode_msg(&buf[..n]).unwrap();
    assert_eq!(h.check(CmType::ConnResp), Ok(()));
    assert_eq!(h.check(CmType::ConnReq).unwrap_err().errno(), -111);
    assert_eq!(d, &data[..]);
    assert_eq!(
        cm::encode_msg(CmType::ConnResp, &[0; 257], LE, &mut [0u8; 400]),
        Err(WireError::CmDataTooLong(257))
    );
}

#[test]
fn cm_nack_as_libfabric_sends_it() {
    // tcpx_pep_reject zeroes the header and never sets conn_data.
    let mut b = vec![3, 6, 0, 2];
    b.extend([0u8; 28]);
    b.extend(b"no");
    let mut buf = [0xffu8; 64];
    let n = cm::encode_msg(CmType::Nack, b"no", LE, &mut buf).unwrap();
    assert_eq!(&buf[..n], &b[..]);
    let (h, d) = cm::decode_msg(&b).unwrap();
    assert_eq!(h.kind(), CmType::Nack);
    assert_eq!(d, b"no");
    assert_eq!(h.sender_order(), None);
    assert_eq!(h.check(CmType::ConnResp), Err(WireError::Rejected));
    assert_eq!(WireError::Rejected.errno(), -111);
    assert_eq!(h.msg_order(LE), Err(WireError::BadEndianProbe(0)));
}

#[test]
fn cm_ignored_fields() {
    // seg_no, conn_id and msg_id are not interpreted.
    let mut b = [0xabu8; 32];
    b[..4].copy_from_slice(&[3, 1, 0, 0]);
    b[24..].copy_from_slice(&1u64.to_le_bytes());
    let h = CmHeader::decode(&b).unwrap();
    assert_eq!(h.kind(), CmType::ConnResp);
    assert_eq!(h.msg_order(LE), Ok(LE));
    assert_eq!(h.msg_order(BE), Ok(BE));
}

#[test]
fn byte_order_helpers() {
    assert_eq!(LE.opposite(), BE);
    assert_eq!(BE.opposite(), LE);
    let native = if cfg!(target_endian = "little") {
        LE
    } else {
        BE
    };
    assert_eq!(ByteOrder::NATIVE, native);
    assert_eq!(LE.u16_to(0x0102), [2, 1]);
    assert_eq!(BE.u16_to(0x0102), [1, 2]);
    assert_eq!(BE.u64_from([0, 0, 0, 0, 0, 0, 1, 0]), 256);
}

#[test]
fn errno_mapping() {
    use WireError::*;
    let cases: &[(WireError, i32)] = &[
        (Truncated { need: 16 }, -errno::EBADMSG),
        (BufferTooSmall { need: 16 }, -errno::ENOBUFS),
        (BadVersion(2), -errno::EPROTO),
        (UnknownOp(5), -errno::EPROTO),
        (BadFlags(2), -errno::EPROTO),
        (BadOpData(1), -errno::EPROTO),
        (
            BadHdrSize {
                got: 0,
                expected: 16,
            },
            -errno::EPROTO,
        ),
        (
            SizeTooSmall {
                size: 0,
                hdr_size: 16,
            },
            -errno::EBADMSG,
        ),
        (UnexpectedPayload { size: 80 }, -errno::EBADMSG),
        (TooManyIovs(5), -errno::EPROTO),
        (BadAck, -errno::EPROTO),
        (
            PayloadExceedsRma {
                payload: 2,
                rma_total: 1,
            },
            -errno::EMSGSIZE,
        ),
        (SizeOverflow, -errno::EMSGSIZE),
        (
            PayloadLenMismatch {
                expected: 1,
                got: 2,
            },
            -errno::EINVAL,
        ),
        (BadCmVersion(2), -errno::ENOPROTOOPT),
        (UnknownCmType(2), -errno::EPROTO),
        (
            UnexpectedCmType {
                expected: 1,
                got: 0,
            },
            -errno::ECONNREFUSED,
        ),
        (Rejected, -errno::ECONNREFUSED),
        (CmDataTooLong(300), -errno::EMSGSIZE),
        (BadEndianProbe(0), -errno::EPROTO),
    ];
    for (e, n) in cases {
        assert_eq!(e.errno(), *n, "{e:?}");
    }
    assert_eq!(
        (
            errno::EINVAL,
            errno::EPROTO,
            errno::EBADMSG,
            errno::EMSGSIZE,
            errno::ENOPROTOOPT,
            errno::ENOBUFS,
            errno::ECONNREFUSED
        ),
        (22, 71, 74, 90, 92, 105, 111)
    );
    assert!(Truncated { need: 1 }.is_truncated());
    assert!(!BadAck.is_truncated());
}

#[test]
fn builder_rules() {
    // Flags only where libfabric sends them.
    assert_eq!(
        MsgHeader::ack().with_cq_data(1),
        Err(WireError::BadFlags(1))
    );
    assert_eq!(
        MsgHeader::ack().with_delivery_complete(),
        Err(WireError::BadFlags(4))
    );
    assert_eq!(
        MsgHeader::read_req(&[]).unwrap().with_cq_data(1),
        Err(WireError::BadFlags(1))
    );
    assert_eq!(
        MsgHeader::read_rsp(1).unwrap().with_cq_data(1),
        Err(WireError::BadFlags(1))
    );
    assert_eq!(
        MsgHeader::send(1).unwrap().with_commit_complete(),
        Err(WireError::BadFlags(8))
    );
    // Limits.
    assert_eq!(
        MsgHeader::read_req(&[RmaIov::default(); 5]),
        Err(WireError::TooManyIovs(5))
    );
    assert_eq!(
        MsgHeader::write(&[RmaIov::default(); 5], 0),
        Err(WireError::TooManyIovs(5))
    );
    assert_eq!(
        MsgHeader::write(
            &[RmaIov {
                addr: 0,
                len: 3,
                key: 0
            }],
            4
        ),
        Err(WireError::PayloadExceedsRma {
            payload: 4,
            rma_total: 3
        })
    );
    assert_eq!(MsgHeader::send(u64::MAX), Err(WireError::SizeOverflow));
    assert!(MsgHeader::send(u64::MAX - 16).is_ok());
    assert_eq!(
        MsgHeader::send(u64::MAX - 16).unwrap().with_cq_data(0),
        Err(WireError::SizeOverflow)
    );
    // A failed modifier leaves nothing half-done (the value is consumed,
    // so check the same build again).
    let h = MsgHeader::send(u64::MAX - 16).unwrap();
    assert_eq!(h.flags(), Flags::NONE);
    assert_eq!(h.size(), u64::MAX);
    // Saturating RMA sum: huge iovs accept any payload.
    let big = [RmaIov {
        addr: 0,
        len: u64::MAX,
        key: 0,
    }; 2];
    assert!(MsgHeader::write(&big, u64::MAX - 72).is_ok());
    // Output buffers.
    let h = MsgHeader::send(2).unwrap();
    assert_eq!(
        h.encode(&mut [0u8; 15], LE),
        Err(WireError::BufferTooSmall { need: 16 })
    );
    assert_eq!(
        h.encode_frame(b"ab", &mut [0u8; 17], LE),
        Err(WireError::BufferTooSmall { need: 18 })
    );
    assert_eq!(
        h.encode_frame(b"abc", &mut [0u8; 64], LE),
        Err(WireError::PayloadLenMismatch {
            expected: 2,
            got: 3
        })
    );
    assert_eq!(
        CmHeader::new(CmType::ConnReq, 0, LE)
            .unwrap()
            .encode(&mut [0u8; 31]),
        Err(WireError::BufferTooSmall { need: 32 })
    );
    assert_eq!(
        cm::encode_msg(CmType::ConnReq, b"abc", LE, &mut [0u8; 34]),
        Err(WireError::BufferTooSmall { need: 35 })
    );
}

#[test]
fn raw_base_peek() {
    let mut b = vec![9, 200, 0x34, 0x12, 7, 8, 250, 1];
    b.extend(le64(3));
    let r = RawBase::peek(&b, LE).unwrap();
    assert_eq!(
        r,
        RawBase {
            version: 9,
            op: 200,
            flags: 0x1234,
            op_data: 7,
            rma_iov_cnt: 8,
            hdr_size: 250,
            id: 1,
            size: 3
        }
    );
    assert_eq!(
        RawBase::peek(&b[..15], LE),
        Err(WireError::Truncated { need: 16 })
    );
}

// decode_into reuses a header: whatever it held before (here a write with
// four regions, then a failed decode), the result equals a fresh decode.
#[test]
fn decode_into_reuses_a_header() {
    let iovs = [
        RmaIov { addr: 1, len: 2, key: 3 },
        RmaIov { addr: 4, len: 5, key: 6 },
        RmaIov { addr: 7, len: 8, key: 9 },
        RmaIov { addr: 10, len: 11, key: 12 },
    ];
    let order = ByteOrder::Little;
    let write = MsgHeader::write(&iovs, 26).unwrap();
    let (wb, wn) = write.to_bytes(order);
    let send = MsgHeader::send(64).unwrap().with_cq_data(7).unwrap();
    let (sb, sn) = send.to_bytes(order);

    let mut h = MsgHeader::ack();
    h.decode_into(&wb[..wn], order).unwrap();
    assert_eq!(h, write);
    h.decode_into(&sb[..sn], order).unwrap();
    assert_eq!(h, send);
    assert_eq!(h, MsgHeader::decode(&sb[..sn], order).unwrap());
    // A write cut inside its regions fails; the next decode is clean.
    h.decode_into(&wb[..wn], order).unwrap();
    assert!(h.decode_into(&wb[..wn - 8], order).is_err());
    h.decode_into(&sb[..sn], order).unwrap();
    assert_eq!(h, send);
}

/// `encode_with_id` writes what `with_id(..).encode(..)` writes, for every
/// kind of header (the sender numbers frames without copying them).
#[test]
fn encode_with_id_is_with_id_then_encode() {
    let headers = [
        MsgHeader::send(0).unwrap(),
        MsgHeader::send(4096).unwrap(),
        MsgHeader::read_rsp(40).unwrap(),
        MsgHeader::ack(),
    ];
    for h in headers {
        for id in [0u8, 1, 0x7f, 0xa5, 0xff] {
            for order in [ByteOrder::Little, ByteOrder::Big] {
                let mut a = [0u8; 64];
                let mut b = [0u8; 64];
                let na = h.with_id(id).encode(&mut a, order).unwrap();
                let nb = h.encode_with_id(id, &mut b, order).unwrap();
                assert_eq!(na, nb);
                assert_eq!(a[..na], b[..nb]);
                assert_eq!(b[7], id);
            }
        }
        // too small a buffer fails the same way
        let mut short = [0u8; 8];
        assert!(h.encode_with_id(1, &mut short, ByteOrder::Little).is_err());
    }
}
