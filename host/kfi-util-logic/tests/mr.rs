// SPDX-License-Identifier: GPL-2.0
//! Tests of kfi_util/logic/mr.rs: registration validation, the remote-access
//! check, key choice and the segment walker.

use kfi_util_logic::logic::mr::*;
use proptest::prelude::*;

#[test]
fn registration_rules() {
    assert!(register(0, 4096, REMOTE_WRITE).is_ok());
    assert_eq!(register(0, 4096, 0), Err(MrError::BadAccess));
    assert_eq!(register(0, 4096, 1 << 3), Err(MrError::BadAccess));
    assert_eq!(register(0, 0, REMOTE_READ), Err(MrError::BadRange));
    assert_eq!(register(u64::MAX, 2, REMOTE_READ), Err(MrError::BadRange));
    assert!(register(u64::MAX - 1, 1, REMOTE_READ).is_ok());
}

#[test]
fn access_check() {
    let r = register(1000, 100, REMOTE_READ).unwrap();
    assert_eq!(check(&r, 1000, 100, REMOTE_READ), Ok(0));
    assert_eq!(check(&r, 1050, 10, REMOTE_READ), Ok(50));
    assert_eq!(check(&r, 1099, 1, REMOTE_READ), Ok(99));
    assert_eq!(check(&r, 1100, 0, REMOTE_READ), Ok(100));
    assert_eq!(check(&r, 999, 1, REMOTE_READ), Err(MrError::OutOfBounds));
    assert_eq!(check(&r, 1099, 2, REMOTE_READ), Err(MrError::OutOfBounds));
    assert_eq!(check(&r, u64::MAX, 2, REMOTE_READ), Err(MrError::OutOfBounds));
    assert_eq!(check(&r, 1000, 1, REMOTE_WRITE), Err(MrError::Denied));
    assert_eq!(MrError::NoKey.errno(), -266);
    assert_eq!(MrError::OutOfBounds.errno(), -14);
}

#[test]
fn keys_skip_taken() {
    let mut k = KeyChooser::default();
    assert_eq!(k.choose(|_| false), 0);
    assert_eq!(k.choose(|x| x == 1 || x == 2), 3);
    assert_eq!(k.choose(|_| false), 4);
}

#[test]
fn walker_splits_across_segments() {
    let mut out = vec![];
    assert!(pieces([10, 5, 20], 8, 10, |p| out.push(p)));
    assert_eq!(
        out,
        vec![Piece { seg: 0, off: 8, len: 2 }, Piece { seg: 1, off: 0, len: 5 }, Piece { seg: 2, off: 0, len: 3 }]
    );
    out.clear();
    assert!(!pieces([10, 5], 8, 10, |p| out.push(p)));
    assert!(out.is_empty());
    assert!(pieces([10], 10, 0, |p| out.push(p)));
    assert!(out.is_empty());
    assert!(!pieces([10], u64::MAX, 2, |_| {}));
    // segment lengths whose sum overflows: refused, not wrapped
    assert!(!pieces([usize::MAX, usize::MAX, 2], 0, 1, |_| {}));
}

#[test]
fn segment_count_limit() {
    assert_eq!(SEG_LIMIT, 256);
    assert_eq!(seg_count(0), Err(MrError::BadSegCount));
    assert_eq!(seg_count(1), Ok(()));
    assert_eq!(seg_count(256), Ok(()));
    assert_eq!(seg_count(257), Err(MrError::BadSegCount));
    assert_eq!(MrError::BadSegCount.errno(), -22);
}

/// A region of 256 pages, each registered with its own offset and length
/// (as a bio_vec list of partial pages): every access, wherever it starts
/// and however many segments it straddles, maps byte for byte onto the
/// segments in order, through all 256 of them.
#[test]
fn walker_maps_256_segments_byte_for_byte() {
    let lens: Vec<usize> = (0..SEG_LIMIT).map(|i| 4096 - (i % 7) * 8).collect();
    let starts: Vec<u64> = lens
        .iter()
        .scan(0u64, |t, &l| {
            let s = *t;
            *t += l as u64;
            Some(s)
        })
        .collect();
    let total: u64 = lens.iter().map(|&l| l as u64).sum();
    let check = |off: u64, len: u64| {
        let mut at = off;
        let mut segs = 0;
        assert!(pieces(lens.iter().copied(), off, len, |p| {
            // the piece starts exactly where the previous one ended
            assert_eq!(starts[p.seg] + p.off as u64, at);
            assert!(p.len > 0 && p.off + p.len <= lens[p.seg]);
            at += p.len as u64;
            segs += 1;
        }));
        assert_eq!(at, off + len);
        segs
    };
    assert_eq!(check(0, total), 256);
    // straddling: from inside segment 3 to inside segment 254
    let off = starts[3] + 100;
    let end = starts[254] + 37;
    assert_eq!(check(off, end - off), 252);
    // the very last byte, and the first
    assert_eq!(check(total - 1, 1), 1);
    assert_eq!(check(0, 1), 1);
    // one byte too many
    assert!(!pieces(lens.iter().copied(), 1, total, |_| panic!("called")));
}

proptest! {
    #[test]
    fn check_agrees_with_interval_math(base in 0u64..1 << 40, len in 1u64..1 << 20, addr: u64, n in 0u64..1 << 21) {
        let r = register(base, len, REMOTE_READ | REMOTE_WRITE).unwrap();
        let inside = addr >= base && (addr as u128 + n as u128) <= (base as u128 + len as u128);
        match check(&r, addr, n, REMOTE_WRITE) {
            Ok(off) => { prop_assert!(inside); prop_assert_eq!(off, addr - base); }
            Err(e) => { prop_assert!(!inside); prop_assert_eq!(e, MrError::OutOfBounds); }
        }
    }

    #[test]
    fn walker_covers_exactly(lens in proptest::collection::vec(0usize..50, 0..300), off in 0u64..200, n in 0u64..200) {
        let total: u64 = lens.iter().map(|&l| l as u64).sum();
        let mut covered = 0u64;
        let mut last: Option<(usize, usize)> = None;
        let ok = pieces(lens.iter().copied(), off, n, |p| {
            assert!(p.len > 0 && p.off + p.len <= lens[p.seg]);
            if let Some((s, _)) = last { assert!(p.seg > s); }
            last = Some((p.seg, p.off));
            covered += p.len as u64;
        });
        prop_assert_eq!(ok, off + n <= total);
        prop_assert_eq!(covered, if ok { n } else { 0 });
    }
}
