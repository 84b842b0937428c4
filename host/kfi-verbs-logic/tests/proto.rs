// SPDX-License-Identifier: GPL-2.0
//! The soft mode's chunk header and message assembly.

use kfi_verbs_logic::proto::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

#[test]
fn header_layout_is_little_endian_and_fixed() {
    let h = Hdr { op: Op::Msg, tagged: true, data: Some(0x1122_3344_5566_7788), len: 0x0102_0304, tag: 0xa1a2_a3a4_a5a6_a7a8, grant: 9 };
    let b = encode(&h);
    assert_eq!(b[..4], [1, 0, F_TAGGED | F_DATA, 9]);
    assert_eq!(grant_of(&b), 9);
    assert_eq!(b[4..8], [4, 3, 2, 1]);
    assert_eq!(b[8..16], 0xa1a2_a3a4_a5a6_a7a8u64.to_le_bytes());
    assert_eq!(b[16..24], 0x1122_3344_5566_7788u64.to_le_bytes());
    assert_eq!(decode(&b), Ok(h));
    let c = encode(&cont(3));
    assert_eq!(c[..4], [1, 1, 0, 3]);
    assert_eq!(decode(&c), Ok(cont(3)));
    let g = encode(&credit(200));
    assert_eq!(g[..4], [1, 2, 0, 200]);
    assert_eq!(decode(&g), Ok(credit(200)));
    assert_eq!(grant_of(&g), 200);
    // not a header: no grant
    assert_eq!(grant_of(&g[..HDR_LEN - 1]), 0);
    assert_eq!(grant_of(&[2, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 0);
    assert_eq!(HDR_LEN + CHUNK, BOUNCE_LEN);
}

#[test]
fn no_data_flag_no_data() {
    let h = Hdr { op: Op::Msg, tagged: false, data: None, len: 5, tag: 0, grant: 0 };
    let mut b = encode(&h);
    assert_eq!(decode(&b).unwrap().data, None);
    // data bytes without the flag are ignored
    b[16] = 9;
    assert_eq!(decode(&b).unwrap().data, None);
}

#[test]
fn hostile_headers_are_refused() {
    let good = encode(&Hdr { op: Op::Msg, tagged: false, data: None, len: 5, tag: 0, grant: 0 });
    assert_eq!(decode(&good[..HDR_LEN - 1]), Err(ProtoError::Short));
    assert_eq!(decode(&[]), Err(ProtoError::Short));
    let mut b = good;
    b[0] = 2;
    assert_eq!(decode(&b), Err(ProtoError::Bad));
    b = good;
    b[1] = 3;
    assert_eq!(decode(&b), Err(ProtoError::Bad));
    b = good;
    b[2] = 4;
    assert_eq!(decode(&b), Err(ProtoError::Bad));
    // a continuation or a grant names nothing
    for h in [cont(1), credit(1)] {
        let mut c = encode(&h);
        c[4] = 1;
        assert_eq!(decode(&c), Err(ProtoError::Bad));
        c = encode(&h);
        c[2] = F_TAGGED;
        assert_eq!(decode(&c), Err(ProtoError::Bad));
        c = encode(&h);
        c[9] = 1;
        assert_eq!(decode(&c), Err(ProtoError::Bad));
    }
}

#[test]
fn assembly_places_chunks_and_truncates() {
    // 20000 bytes into 10000 of room: 8168 + 8168 + 3664
    let mut a = Assembly::new(20000, 10000);
    assert!(a.truncated());
    assert_eq!(a.take(CHUNK), Ok(Place { at: 0, copy: CHUNK, last: false }));
    assert_eq!(a.take(CHUNK), Ok(Place { at: CHUNK as u64, copy: 10000 - CHUNK, last: false }));
    assert_eq!(a.take(20000 - 2 * CHUNK), Ok(Place { at: 2 * CHUNK as u64, copy: 0, last: true }));
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
}

#[test]
fn credits_keep_one_for_a_grant() {
    let mut c = Credits::new();
    assert_eq!(c, Credits { have: BOUNCES, owed: 0 });
    // chunks until one credit is left
    let mut sent = 0;
    while c.can_send() {
        c.send();
        sent += 1;
    }
    assert_eq!(sent, BOUNCES - 1);
    assert_eq!(c.have, 1);
    // nothing owed yet: no grant due
    assert!(!c.grant_due());
    for _ in 0..GRANT_THRESHOLD - 1 {
        c.reposted();
    }
    assert!(!c.grant_due());
    c.reposted();
    assert!(c.grant_due());
    assert_eq!(c.send_grant(), GRANT_THRESHOLD as u8);
    assert_eq!(c, Credits { have: 0, owed: 0 });
    assert!(!c.grant_due());
    // the peer's grant, never beyond what it can have posted
    c.granted(5);
    assert_eq!(c.have, 5);
    c.granted(255);
    assert_eq!(c.have, BOUNCES);
    // a chunk carries all that is owed
    c.reposted();
    c.reposted();
    assert_eq!(c.send(), 2);
    assert_eq!(c.owed, 0);
    c.send_write();
    assert_eq!(c.have, BOUNCES - 2);
}

/// Two sides exchanging chunks both ways at random (each checking for a
/// due grant whenever it reposts a buffer or receives credits) never send
/// into a buffer that is not posted, and once everything in flight has
/// landed and been processed both can send again: no deadlock.
#[test]
fn credits_never_deadlock_or_overrun() {
    use proptest::test_runner::{Config, TestRunner};

    struct Side {
        c: Credits,
        posted: u32,
        full: u32,
    }
    // One chunk of side `i` lands in side `j`'s buffers.
    fn land(s: &mut [Side; 2], wire: &mut [Vec<u8>; 2], i: usize) -> Result<(), TestCaseError> {
        let j = 1 - i;
        let g = wire[i].remove(0);
        prop_assert!(s[j].posted > 0, "a chunk found no buffer");
        s[j].posted -= 1;
        s[j].full += 1;
        s[j].c.granted(g);
        if s[j].c.grant_due() {
            let g = s[j].c.send_grant();
            wire[j].push(g);
        }
        Ok(())
    }
    // Side `j` processes a buffer and reposts it.
    fn process(s: &mut [Side; 2], wire: &mut [Vec<u8>; 2], j: usize) {
        s[j].full -= 1;
        s[j].posted += 1;
        s[j].c.reposted();
        if s[j].c.grant_due() {
            let g = s[j].c.send_grant();
            wire[j].push(g);
        }
    }
    let mut runner = TestRunner::new(Config::with_cases(300));
    runner
        .run(&proptest::collection::vec(any::<(bool, u8)>(), 1..600), |steps| {
            let side = || Side { c: Credits::new(), posted: BOUNCES, full: 0 };
            let mut s = [side(), side()];
            let mut wire: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
            for (dir, what) in steps {
                let i = dir as usize;
                match what % 3 {
                    0 if s[i].c.can_send() => {
                        let g = s[i].c.send();
                        wire[i].push(g);
                    }
                    1 if !wire[i].is_empty() => land(&mut s, &mut wire, i)?,
                    _ if s[i].full > 0 => process(&mut s, &mut wire, i),
                    _ => {}
                }
            }
            // let everything land and be processed
            while !wire[0].is_empty() || !wire[1].is_empty() || s[0].full + s[1].full > 0 {
                for i in 0..2 {
                    while !wire[i].is_empty() {
                        land(&mut s, &mut wire, i)?;
                    }
                    while s[i].full > 0 {
                        process(&mut s, &mut wire, i);
                    }
                }
            }
            for x in &s {
                prop_assert!(x.c.can_send(), "stuck: {:?}", x.c);
                prop_assert_eq!(x.posted, BOUNCES);
            }
            Ok(())
        })
        .unwrap();
}

proptest! {
    #[test]
    fn any_header_round_trips(tagged: bool, data: Option<u64>, len: u32, tag: u64, grant: u8) {
        let h = Hdr { op: Op::Msg, tagged, data, len, tag, grant };
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
        prop_assert_eq!(a.truncated(), total > room);
    }
}
