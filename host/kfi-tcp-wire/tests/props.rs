// SPDX-License-Identifier: GPL-2.0
//! Property tests: encode/decode round trips in both byte orders, random
//! bytes never panic nor yield a header longer than the input, and every
//! single-byte mutation of a valid frame either decodes to a header that
//! re-encodes to exactly the mutated bytes, or is refused.

use kfi_tcp_wire::wire::cm::{self, CmHeader, CmType, CM_HDR_SIZE};
use kfi_tcp_wire::wire::hdr::*;
use kfi_tcp_wire::wire::{ByteOrder, WireError};
use proptest::prelude::*;

fn order() -> impl Strategy<Value = ByteOrder> {
    prop_oneof![Just(ByteOrder::Little), Just(ByteOrder::Big)]
}

fn rma_iov() -> impl Strategy<Value = RmaIov> {
    (any::<u64>(), 0u64..1 << 20, any::<u64>()).prop_map(|(addr, len, key)| RmaIov {
        addr,
        len,
        key,
    })
}

/// Any valid header, built through the public constructors.
fn header() -> impl Strategy<Value = MsgHeader> {
    let payload = prop_oneof![0u64..=MAX_INJECT as u64, any::<u64>().prop_map(|v| v >> 8)];
    let send = (payload.clone(), any::<Option<u64>>(), any::<bool>()).prop_map(|(p, cq, dc)| {
        let mut h = MsgHeader::send(p).unwrap();
        if let Some(d) = cq {
            h = h.with_cq_data(d).unwrap();
        }
        if dc {
            h = h.with_delivery_complete().unwrap();
        }
        h
    });
    let tagged = (
        payload.clone(),
        any::<u64>(),
        any::<Option<u64>>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(p, tag, cq, dc, op_form)| {
            let form = if op_form { TagForm::Op } else { TagForm::Flag };
            let mut h = MsgHeader::tagged(tag, p, form).unwrap();
            if let Some(d) = cq {
                h = h.with_cq_data(d).unwrap();
            }
            if dc {
                h = h.with_delivery_complete().unwrap();
            }
            h
        });
    let read_req =
        prop::collection::vec(rma_iov(), 0..=4).prop_map(|v| MsgHeader::read_req(&v).unwrap());
    let read_rsp = payload.prop_map(|p| MsgHeader::read_rsp(p).unwrap());
    let write = (
        prop::collection::vec(rma_iov(), 0..=4),
        any::<u64>(),
        any::<Option<u64>>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(v, frac, cq, dc, cc)| {
            let total: u64 = v.iter().map(|i| i.len).sum();
            let p = if total == 0 { 0 } else { frac % (total + 1) };
            let mut h = MsgHeader::write(&v, p).unwrap();
            if let Some(d) = cq {
                h = h.with_cq_data(d).unwrap();
            }
            if dc {
                h = h.with_delivery_complete().unwrap();
            }
            if cc {
                h = h.with_commit_complete().unwrap();
            }
            h
        });
    let ack = Just(MsgHeader::ack());
    (
        prop_oneof![send, tagged, read_req, read_rsp, write, ack],
        any::<u8>(),
    )
        .prop_map(|(h, id)| h.with_id(id))
}

/// A small valid frame (payload ≤ 64 bytes) with its bytes.
fn small_frame() -> impl Strategy<Value = (MsgHeader, ByteOrder, Vec<u8>)> {
    (header(), order()).prop_filter_map("payload too large", |(h, o)| {
        if h.payload_len() > 64 {
            return None;
        }
        let payload: Vec<u8> = (0..h.payload_len()).map(|i| i as u8 ^ 0x5a).collect();
        let mut buf = vec![0u8; h.hdr_size() + payload.len()];
        h.encode_frame(&payload, &mut buf, o).ok()?;
        Some((h, o, buf))
    })
}

/// Invariants of any successful header decode of `buf`.
fn check_decoded(buf: &[u8], o: ByteOrder, h: &MsgHeader) {
    assert!(h.hdr_size() <= buf.len());
    assert!((BASE_HDR_SIZE..=MAX_HDR_SIZE).contains(&h.hdr_size()));
    assert_eq!(h.payload_len() + h.hdr_size() as u64, h.size());
    assert_eq!(header_len(buf, o), Ok(h.hdr_size()));
    let (bytes, n) = h.to_bytes(o);
    assert_eq!(&bytes[..n], &buf[..h.hdr_size()], "re-encoding differs");
}

proptest! {
    #[test]
    fn round_trip(h in header(), o in order()) {
        let mut buf = [0u8; MAX_HDR_SIZE];
        let n = h.encode(&mut buf, o).unwrap();
        prop_assert_eq!(n, h.hdr_size());
        prop_assert_eq!(header_len(&buf[..16], o), Ok(n));
        let d = MsgHeader::decode(&buf[..n], o).unwrap();
        prop_assert_eq!(d, h);
        check_decoded(&buf[..n], o, &d);
        // The other byte order gives the same bytes only for headers whose
        // multi-byte fields are palindromes; decoding must never panic.
        let _ = MsgHeader::decode(&buf[..n], o.opposite());
    }

    #[test]
    fn frame_round_trip((h, o, buf) in small_frame()) {
        let f = Frame::decode(&buf, o).unwrap();
        prop_assert_eq!(f.header, h);
        prop_assert_eq!(f.len(), buf.len());
        prop_assert_eq!(f.payload.len() as u64, h.payload_len());
        prop_assert_eq!(f.payload, &buf[h.hdr_size()..]);
    }

    #[test]
    fn random_bytes_never_panic(buf in prop::collection::vec(any::<u8>(), 0..200), o in order()) {
        random_checks(&buf, o);
    }

    #[test]
    fn random_bytes_with_plausible_prefix(
        op in 0u8..6,
        flags in prop_oneof![Just(0u16), 0u16..0x100, any::<u16>()],
        od in prop_oneof![Just(0u8), Just(2u8), any::<u8>()],
        cnt in 0u8..6,
        hs in prop_oneof![(0u8..6).prop_map(|k| 16 + 8 * k), (0u8..5).prop_map(|k| 16 + 24 * k), any::<u8>()],
        size in prop_oneof![0u64..300, any::<u64>()],
        rest in prop::collection::vec(any::<u8>(), 0..200),
        o in order(),
    ) {
        let mut buf = vec![3, op];
        buf.extend(o.u16_to(flags));
        buf.extend([od, cnt, hs, 0]);
        buf.extend(o.u64_to(size));
        buf.extend(rest);
        random_checks(&buf, o);
    }

    #[test]
    fn cm_round_trip(
        kind in prop_oneof![Just(CmType::ConnReq), Just(CmType::ConnResp), Just(CmType::Nack)],
        data in prop::collection::vec(any::<u8>(), 0..=256),
        local in order(),
    ) {
        let mut buf = [0u8; CM_HDR_SIZE + 256];
        let n = cm::encode_msg(kind, &data, local, &mut buf).unwrap();
        prop_assert_eq!(n, CM_HDR_SIZE + data.len());
        let (h, d) = cm::decode_msg(&buf[..n]).unwrap();
        prop_assert_eq!(h.kind(), kind);
        prop_assert_eq!(d, &data[..]);
        prop_assert_eq!(h, CmHeader::new(kind, data.len(), local).unwrap());
        if kind == CmType::Nack {
            prop_assert_eq!(h.sender_order(), None);
        } else {
            prop_assert_eq!(h.sender_order(), Some(local));
            for me in [ByteOrder::Little, ByteOrder::Big] {
                let want = if me == local { me } else { ByteOrder::Big };
                prop_assert_eq!(h.msg_order(me), Ok(want));
            }
        }
    }

    #[test]
    fn cm_random_bytes(buf in prop::collection::vec(any::<u8>(), 0..300), fix in any::<bool>()) {
        let mut buf = buf;
        if fix && buf.len() >= 4 {
            buf[0] = 3;
            buf[1] %= 7;
            buf[2] &= 1;
        }
        match CmHeader::decode(&buf) {
            Ok(h) => {
                assert!(h.data_len() <= 256);
                assert_eq!(&h.to_bytes()[..4], &buf[..4]);
                assert_eq!(&h.to_bytes()[24..], &buf[24..32]);
                for me in [ByteOrder::Little, ByteOrder::Big] {
                    let _ = h.msg_order(me);
                }
            }
            Err(WireError::Truncated { need }) => assert!(need > buf.len()),
            Err(e) => assert!(e.errno() < 0),
        }
        if let Ok((h, d)) = cm::decode_msg(&buf) {
            assert_eq!(d.len(), h.data_len());
            assert!(h.msg_len() <= buf.len());
        }
    }
}

proptest! {
    // Each case decodes up to 128 × 256 mutants (about 1 ms).
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn single_byte_mutations((_h, o, buf) in small_frame()) {
        for pos in 0..buf.len().min(MAX_HDR_SIZE + 8) {
            let mut m = buf.clone();
            for v in 0..=255u8 {
                m[pos] = v;
                match MsgHeader::decode(&m, o) {
                    Ok(d) => check_decoded(&m, o, &d),
                    Err(e) => assert!(e.errno() < 0),
                }
                if let Ok(f) = Frame::decode(&m, o) {
                    assert_eq!(f.payload.len() as u64, f.header.payload_len());
                    assert!(f.len() <= m.len());
                }
            }
        }
    }
}

fn random_checks(buf: &[u8], o: ByteOrder) {
    match header_len(buf, o) {
        Ok(n) => assert!((BASE_HDR_SIZE..=MAX_HDR_SIZE).contains(&n)),
        Err(WireError::Truncated { need }) => assert!(need > buf.len()),
        Err(e) => assert!(e.errno() < 0),
    }
    match MsgHeader::decode(buf, o) {
        Ok(h) => check_decoded(buf, o, &h),
        Err(WireError::Truncated { need }) => assert!(need > buf.len()),
        Err(e) => assert!(e.errno() < 0),
    }
    match Frame::decode(buf, o) {
        Ok(f) => {
            assert!(f.len() <= buf.len());
            assert_eq!(f.payload.len() as u64, f.header.payload_len());
            assert_eq!(f.len() as u64, f.header.size());
        }
        Err(WireError::Truncated { need }) => assert!(need > buf.len()),
        Err(e) => assert!(e.errno() < 0),
    }
    let _ = RawBase::peek(buf, o);
}
