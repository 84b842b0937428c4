// SPDX-License-Identifier: GPL-2.0
//! Property tests of kfi_util/logic/rxm.rs (the unit tests beside the
//! source check libfabric's captured bytes): hostile bytes never make a
//! decoder panic, and what the encoders write decodes to the same values.

use kfi_util_logic::logic::rxm::*;
use proptest::prelude::*;

fn ty_of(v: u8) -> Type {
    [
        Type::Eager,
        Type::Seg,
        Type::RndvReq,
        Type::RndvRdDone,
        Type::Credit,
        Type::RndvWrDone,
        Type::TagRmaWrite,
        Type::TagRmaRead,
        Type::TagRmaDone,
        Type::TagRmaData,
    ][v as usize % 10]
}

proptest! {
    #[test]
    fn any_bytes_decode_without_panic(b in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = decode(&b);
        let _ = decode_rndv(&b);
        let _ = Connect::decode(&b);
        let _ = Accept::decode(&b);
        let _ = reject_reason(&b);
        let _ = CtxExt::decode(&b);
    }

    #[test]
    fn context_extension_round_trips(port in any::<u16>(), rx in any::<u32>(), id in any::<u64>(),
                                     idx in any::<u16>(), one_way in any::<bool>()) {
        let c = Connect::new(port, rx, id);
        let e = CtxExt { rx_index: idx, flags: if one_way { CTX_EXT_ONE_WAY } else { 0 } };
        let (b, n) = CtxExt::request(&c, Some(e));
        prop_assert_eq!(n, CONNECT_BYTES + CTX_EXT_BYTES);
        // rxm's part is unchanged: a 1.17 acceptor reads it as before.
        prop_assert_eq!(Connect::decode(&b[..n]), Ok(c));
        prop_assert_eq!(CtxExt::decode(&b[..n]), Ok(Some(e)));
        let (b, n) = CtxExt::request(&c, None);
        prop_assert_eq!(n, CONNECT_BYTES);
        prop_assert_eq!(CtxExt::decode(&b[..n]), Ok(None));
    }

    #[test]
    fn context_extension_unknown_flags_refused(idx in any::<u16>(), flags in 2u16..) {
        let c = Connect::new(1, 1, 1);
        let (b, n) = CtxExt::request(&c, Some(CtxExt { rx_index: idx, flags }));
        prop_assert_eq!(CtxExt::decode(&b[..n]), Err(Reason::ConnRefused));
        // Short of the whole extension: none.
        prop_assert_eq!(CtxExt::decode(&b[..n - 1]), Ok(None));
        // Not ours: another magic is no extension (a peer's extra bytes).
        let mut b = b;
        b[CONNECT_BYTES] ^= 0xff;
        prop_assert_eq!(CtxExt::decode(&b[..n]), Ok(None));
    }

    #[test]
    fn packets_round_trip(t in any::<u8>(), conn in any::<u32>(), msg in any::<u64>(), tagged in any::<bool>(),
                          cq in any::<bool>(), size in any::<u64>(), data in any::<u64>(), tag in any::<u64>(),
                          seg_size in any::<u16>(), seg_no in any::<u32>(), seg in 0u8..4) {
        let ty = ty_of(t);
        let mut p = Pkt { conn_id: conn, msg_id: msg, ..Pkt::default() };
        if ty.is_tag_rma() {
            p.op = Some(Op::Tagged);
            p.cq_data = cq;
            p.size = size;
            p.data = data;
            p.tag = tag;
            // Over verbs their bytes go as segments (none: whole).
            p.seg_size = seg_size;
            p.seg_no = seg_no;
            p.seg = [None, Some(Seg::First), Some(Seg::Middle), Some(Seg::Last)][seg as usize % 4];
        }
        if matches!(ty, Type::Eager | Type::Seg | Type::RndvReq) {
            p.op = Some(if tagged { Op::Tagged } else { Op::Msg });
            p.cq_data = cq;
            p.size = size;
            p.data = if cq { data } else { 0 };
            p.tag = if tagged { tag } else { 0 };
        }
        if ty == Type::Seg {
            p.seg_size = seg_size;
            p.seg_no = seg_no;
            p.seg = Some([Seg::First, Seg::Middle, Seg::Last][(seg as usize).max(1) - 1]);
        }
        let mut b = [0u8; PKT_BYTES];
        encode(ty, &p, &mut b);
        prop_assert_eq!(decode(&b), Ok((ty, p)));
    }

    #[test]
    fn connection_data_round_trips(port in any::<u16>(), rx in any::<u32>(), id in any::<u64>(),
                                   sid in any::<u64>(), fc in any::<u8>()) {
        let c = Connect::new(port, rx, id);
        prop_assert_eq!(Connect::decode(&c.encode()), Ok(c));
        let a = Accept { server_conn_id: sid, rx_size: rx, flow_ctrl: fc };
        prop_assert_eq!(Accept::decode(&a.encode()), Some(a));
    }

    #[test]
    fn rendezvous_round_trips(v in proptest::collection::vec((any::<u64>(), any::<u64>(), any::<u64>()), 1..=4)) {
        let iovs: Vec<RmaIov> = v.iter().map(|&(addr, len, key)| RmaIov { addr, len, key }).collect();
        let mut b = [0u8; RNDV_BYTES];
        encode_rndv(&iovs, &mut b);
        let (got, n) = decode_rndv(&b).unwrap();
        prop_assert_eq!(n, iovs.len());
        prop_assert_eq!(&got[..n], &iovs[..]);
    }
}

/// A segment header of a message of `size` bytes.
fn seg_pkt(msg_id: u64, size: u64, no: u32, kind: Seg, len: u16) -> Pkt {
    Pkt { msg_id, size, seg_no: no, seg: Some(kind), seg_size: len, ..Pkt::default() }
}

#[test]
fn credit_packets_carry_their_count() {
    let mut b = [0u8; PKT_BYTES];
    encode_credit(7, 127, &mut b);
    assert_eq!(decode(&b), Ok((Type::Credit, Pkt { conn_id: 7, ..Pkt::default() })));
    assert_eq!(credits(&b), 127);
    // libfabric's: type 6, the count in ctrl_data (bytes 24-31).
    assert_eq!(b[1], 6);
    assert_eq!(u64::from_ne_bytes(b[24..32].try_into().unwrap()), 127);
    assert_eq!(credits(&b[..63]), 0);
}

#[test]
fn tag_rma_status_is_an_errno_or_eio() {
    assert_eq!(tag_rma_status(0), 0);
    assert_eq!(tag_rma_status(121), 121);
    assert_eq!(tag_rma_status(4095), 4095);
    assert_eq!(tag_rma_status(4096), 5);
    assert_eq!(tag_rma_status(u64::MAX), 5);
}

#[test]
fn sar_in_order_is_whole_once() {
    let size = 40_000u64;
    let seg = 16_384u64;
    let (k0, at0, l0) = Sar::segment(size, seg, 0);
    assert_eq!((k0, at0, l0), (Seg::First, 0, seg));
    let mut s = Sar::first(&seg_pkt(9, size, 0, k0, l0 as u16)).unwrap();
    assert!(!s.placed(l0));
    let (k1, at1, l1) = Sar::segment(size, seg, 1);
    assert_eq!((k1, at1), (Seg::Middle, seg));
    let p1 = seg_pkt(9, size, 1, k1, l1 as u16);
    assert!(s.continues(&p1));
    assert!(!s.placed(l1));
    let (k2, at2, l2) = Sar::segment(size, seg, 2);
    assert_eq!((k2, at2, l2), (Seg::Last, 2 * seg, size - 2 * seg));
    let p2 = seg_pkt(9, size, 2, k2, l2 as u16);
    assert!(s.continues(&p2));
    assert!(s.placed(l2));
}

#[test]
fn sar_refuses_what_breaks_the_sequence() {
    // One segment is no segmented message.
    assert!(Sar::first(&seg_pkt(1, 100, 0, Seg::First, 100)).is_none());
    assert!(Sar::first(&seg_pkt(1, 100, 0, Seg::Middle, 50)).is_none());
    let mut s = Sar::first(&seg_pkt(1, 100, 0, Seg::First, 40)).unwrap();
    s.placed(40);
    // Another message, a skipped number, another size, a second first.
    assert!(!s.continues(&seg_pkt(2, 100, 1, Seg::Middle, 40)));
    assert!(!s.continues(&seg_pkt(1, 100, 2, Seg::Middle, 40)));
    assert!(!s.continues(&seg_pkt(1, 101, 1, Seg::Middle, 40)));
    assert!(!s.continues(&seg_pkt(1, 100, 1, Seg::First, 40)));
    // Past the end, a last that does not end it, a middle that does.
    assert!(!s.continues(&seg_pkt(1, 100, 1, Seg::Last, 61)));
    assert!(!s.continues(&seg_pkt(1, 100, 1, Seg::Last, 40)));
    assert!(!s.continues(&seg_pkt(1, 100, 1, Seg::Middle, 60)));
    assert!(s.continues(&seg_pkt(1, 100, 1, Seg::Last, 60)));
    // A header without a segment kind.
    assert!(!s.continues(&Pkt { msg_id: 1, size: 100, seg_no: 1, seg: None, seg_size: 60, ..Pkt::default() }));
}

proptest! {
    /// Cutting any message into segments and feeding them back in order is
    /// accepted, ends exactly at the last, and covers every byte once.
    #[test]
    fn sar_segments_reassemble(size in 2u64..2_000_000, seg in 1u64..70_000) {
        prop_assume!(seg < size && seg <= u64::from(u16::MAX));
        let n = size.div_ceil(seg);
        let (k, _, l) = Sar::segment(size, seg, 0);
        let mut s = Sar::first(&seg_pkt(5, size, 7, k, l as u16)).unwrap();
        let mut covered = l;
        prop_assert!(!s.placed(l));
        for i in 1..n {
            let (k, at, l) = Sar::segment(size, seg, i);
            prop_assert_eq!(at, covered);
            let p = seg_pkt(5, size, 7 + i as u32, k, l as u16);
            prop_assert!(s.continues(&p));
            covered += l;
            prop_assert_eq!(s.placed(l), i + 1 == n);
        }
        prop_assert_eq!(covered, size);
    }
}
