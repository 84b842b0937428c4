// SPDX-License-Identifier: GPL-2.0
//! The soft mode's chunk header and message assembly.

use kfi_verbs_logic::proto::*;
use proptest::prelude::*;

#[test]
fn header_layout_is_little_endian_and_fixed() {
    let h = Hdr { op: Op::Msg, tagged: true, data: Some(0x1122_3344_5566_7788), len: 0x0102_0304, tag: 0xa1a2_a3a4_a5a6_a7a8 };
    let b = encode(&h);
    assert_eq!(b[..4], [1, 0, F_TAGGED | F_DATA, 0]);
    assert_eq!(b[4..8], [4, 3, 2, 1]);
    assert_eq!(b[8..16], 0xa1a2_a3a4_a5a6_a7a8u64.to_le_bytes());
    assert_eq!(b[16..24], 0x1122_3344_5566_7788u64.to_le_bytes());
    assert_eq!(decode(&b), Ok(h));
    assert_eq!(CONT_HDR[..4], [1, 1, 0, 0]);
    assert_eq!(decode(&CONT_HDR).unwrap().op, Op::Cont);
    assert_eq!(HDR_LEN + CHUNK, BOUNCE_LEN);
}

#[test]
fn no_data_flag_no_data() {
    let h = Hdr { op: Op::Msg, tagged: false, data: None, len: 5, tag: 0 };
    let mut b = encode(&h);
    assert_eq!(decode(&b).unwrap().data, None);
    // data bytes without the flag are ignored
    b[16] = 9;
    assert_eq!(decode(&b).unwrap().data, None);
}

#[test]
fn hostile_headers_are_refused() {
    let good = encode(&Hdr { op: Op::Msg, tagged: false, data: None, len: 5, tag: 0 });
    assert_eq!(decode(&good[..HDR_LEN - 1]), Err(ProtoError::Short));
    assert_eq!(decode(&[]), Err(ProtoError::Short));
    let mut b = good;
    b[0] = 2;
    assert_eq!(decode(&b), Err(ProtoError::Bad));
    b = good;
    b[1] = 2;
    assert_eq!(decode(&b), Err(ProtoError::Bad));
    b = good;
    b[2] = 4;
    assert_eq!(decode(&b), Err(ProtoError::Bad));
    b = good;
    b[3] = 1;
    assert_eq!(decode(&b), Err(ProtoError::Bad));
    // a continuation names nothing
    let mut c = CONT_HDR;
    c[4] = 1;
    assert_eq!(decode(&c), Err(ProtoError::Bad));
    c = CONT_HDR;
    c[2] = F_TAGGED;
    assert_eq!(decode(&c), Err(ProtoError::Bad));
    c = CONT_HDR;
    c[9] = 1;
    assert_eq!(decode(&c), Err(ProtoError::Bad));
}

#[test]
fn assembly_places_chunks_and_truncates() {
    // 20000 bytes into 10000 of room: 8168 + 8168 + 3664
    let mut a = Assembly::new(20000, 10000);
    assert!(a.truncated());
    assert_eq!(a.take(CHUNK), Ok(Place { at: 0, copy: CHUNK, last: false }));
    assert_eq!(a.take(CHUNK), Ok(Place { at: CHUNK as u64, copy: 10000 - CHUNK, last: false }));
    assert_eq!(a.take(20000 - 2 * CHUNK), Ok(Place { at: 2 * CHUNK as u64, copy: 0, last: true }));
    assert_eq!(a.delivered(), 10000);
    // nothing more may come
    assert_eq!(a.take(1), Err(ProtoError::Sequence));
    // a zero-length message is whole with its header
    let mut z = Assembly::new(0, 64);
    assert_eq!(z.take(0), Ok(Place { at: 0, copy: 0, last: true }));
    assert!(!z.truncated());
    // too much payload is refused and takes nothing
    let mut o = Assembly::new(10, 64);
    assert_eq!(o.take(11), Err(ProtoError::Sequence));
    assert_eq!(o.got, 0);
    assert_eq!(chunks(0), 1);
    assert_eq!(chunks(CHUNK as u64), 1);
    assert_eq!(chunks(CHUNK as u64 + 1), 2);
}

proptest! {
    #[test]
    fn any_header_round_trips(tagged: bool, data: Option<u64>, len: u32, tag: u64) {
        let h = Hdr { op: Op::Msg, tagged, data, len, tag };
        prop_assert_eq!(decode(&encode(&h)), Ok(h));
    }

    #[test]
    fn decode_never_panics(b in proptest::collection::vec(any::<u8>(), 0..40)) {
        let _ = decode(&b);
    }

    #[test]
    fn assembly_copies_exactly_the_room(total in 0u64..100_000, room in 0u64..100_000, cuts in proptest::collection::vec(1usize..CHUNK, 0..40)) {
        let mut a = Assembly::new(total, room);
        let (mut copied, mut at) = (0u64, 0u64);
        let mut cuts = cuts.into_iter();
        loop {
            let left = (total - a.got) as usize;
            let n = cuts.next().unwrap_or(CHUNK).min(left);
            let p = a.take(n).unwrap();
            prop_assert_eq!(p.at, at);
            prop_assert!(p.copy <= n);
            copied += p.copy as u64;
            at += n as u64;
            if p.last {
                break;
            }
            prop_assert!(n > 0);
        }
        prop_assert_eq!(copied, total.min(room));
        prop_assert_eq!(a.delivered(), total.min(room));
    }
}
