// SPDX-License-Identifier: GPL-2.0
//! Tests of kfi_util/logic/xfer.rs: the slot lists (property test against a
//! VecDeque model), post checks, completion-entry rules, tag
//! matching and multi-receive carving.

use kfi_util_logic::logic::xfer::*;
use proptest::prelude::*;
use std::collections::VecDeque;

fn links(n: usize) -> Links<Vec<u32>> {
    Links::new(vec![0; n])
}

fn items(k: &Links<Vec<u32>>, l: &List) -> Vec<usize> {
    let mut v = Vec::new();
    k.for_each(l, |i| v.push(i));
    v
}

// ---- Links / List ----

#[test]
fn push_front_is_taken_first() {
    let (mut k, mut l) = (links(4), List::new());
    k.push_front(&mut l, 2);
    assert_eq!((items(&k, &l), l.len(), l.front()), (vec![2], 1, Some(2)));
    k.push_front(&mut l, 0);
    k.push_back(&mut l, 3);
    assert_eq!(items(&k, &l), [0, 2, 3]);
    assert_eq!(k.pop_front(&mut l), Some(0));
    assert_eq!(k.pop_front(&mut l), Some(2));
    assert_eq!(k.pop_front(&mut l), Some(3));
    assert!(l.is_empty());
    // Onto an emptied list: head and tail both.
    k.push_front(&mut l, 1);
    k.push_back(&mut l, 2);
    assert_eq!(items(&k, &l), [1, 2]);
}

#[test]
fn all_is_index_order() {
    let mut k = links(5);
    let free = k.all();
    assert_eq!(k.slots(), 5);
    assert_eq!(items(&k, &free), [0, 1, 2, 3, 4]);
    assert_eq!((free.len(), free.front()), (5, Some(0)));
}

/// A list holding 0..4 (the free list of 4 slots).
fn four() -> (Links<Vec<u32>>, List) {
    let mut k = links(5);
    let mut l = List::new();
    for i in 0..4 {
        k.push_back(&mut l, i);
    }
    (k, l)
}

#[test]
fn remove_head_middle_tail() {
    let (mut k, mut l) = four();
    assert_eq!(k.remove_first(&mut l, |i| i == 0), Some(0));
    assert_eq!((items(&k, &l), l.len(), l.front()), (vec![1, 2, 3], 3, Some(1)));
    assert_eq!(k.remove_first(&mut l, |i| i == 2), Some(2));
    assert_eq!((items(&k, &l), l.len()), (vec![1, 3], 2));
    assert_eq!(k.remove_first(&mut l, |i| i == 3), Some(3));
    assert_eq!((items(&k, &l), l.len()), (vec![1], 1));
    // The tail moved back to 1: a push_back must follow it.
    k.push_back(&mut l, 4);
    assert_eq!((items(&k, &l), l.len()), (vec![1, 4], 2));
    k.push_back(&mut l, 0);
    assert_eq!(items(&k, &l), [1, 4, 0]);
    // Remove the only element, then reuse the list.
    let (mut k, mut l) = (links(2), List::new());
    k.push_back(&mut l, 1);
    assert_eq!(k.remove_first(&mut l, |_| true), Some(1));
    assert!(l.is_empty() && l.front().is_none());
    k.push_back(&mut l, 0);
    assert_eq!(items(&k, &l), [0]);
}

#[test]
fn find_first_leaves_the_list_and_remove_takes_one() {
    let (mut k, mut l) = four();
    assert_eq!(k.find_first(&l, |i| i >= 2), Some(2));
    assert_eq!(k.find_first(&l, |i| i > 3), None);
    assert_eq!(items(&k, &l), [0, 1, 2, 3]);
    assert!(k.remove(&mut l, 3));
    assert!(!k.remove(&mut l, 3));
    assert_eq!((items(&k, &l), l.len()), (vec![0, 1, 2], 3));
    k.push_back(&mut l, 3);
    assert_eq!(items(&k, &l), [0, 1, 2, 3]);
}

#[test]
fn source_filters() {
    // KFI_ADDR_UNSPEC receives from anyone, a sender without a handle
    // (KFI_ADDR_NOTAVAIL) included; a directed receive from its peer only
    assert!(src_match(ADDR_ANY, 3));
    assert!(src_match(ADDR_ANY, ADDR_ANY));
    assert!(src_match(3, 3));
    assert!(!src_match(3, 4));
    assert!(!src_match(3, ADDR_ANY));
    assert!(!src_match(0, ADDR_ANY));
}

#[test]
fn remove_first_takes_first_match_only() {
    let (mut k, mut l) = four();
    assert_eq!(k.remove_first(&mut l, |i| i % 2 == 1), Some(1));
    assert_eq!(items(&k, &l), [0, 2, 3]);
}

#[test]
fn remove_missing_and_pop_empty() {
    let (mut k, mut l) = four();
    let before = l;
    assert_eq!(k.remove_first(&mut l, |i| i == 4), None);
    assert_eq!(l, before);
    assert_eq!(items(&k, &l), [0, 1, 2, 3]);

    let mut e = List::default();
    assert_eq!(k.pop_front(&mut e), None);
    assert_eq!(k.remove_first(&mut e, |_| true), None);
    assert_eq!((e.len(), e.is_empty(), e), (0, true, List::new()));
    // Popping to empty resets the tail too.
    k.push_back(&mut e, 4);
    assert_eq!(k.pop_front(&mut e), Some(4));
    assert_eq!(e, List::new());
    k.push_back(&mut e, 4);
    assert_eq!(items(&k, &e), [4]);
}

#[derive(Clone, Debug)]
enum Op {
    /// Take the `pick`-th free slot and append it to list `l`.
    Push(usize, usize),
    /// Take the `pick`-th free slot and put it first on list `l`.
    PushFront(usize, usize),
    /// Pop the front of list `l` back onto the free list.
    Pop(usize),
    /// Move the first slot of `l` with `i % m == r` to the free list.
    Remove(usize, usize, usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..3usize, any::<usize>()).prop_map(|(l, p)| Op::Push(l, p)),
        (0..3usize, any::<usize>()).prop_map(|(l, p)| Op::PushFront(l, p)),
        (0..3usize).prop_map(Op::Pop),
        (0..3usize, 1..5usize, 0..5usize).prop_map(|(l, m, r)| Op::Remove(l, m, r % m)),
    ]
}

proptest! {
    #[test]
    fn links_match_model(n in 1usize..12, ops in proptest::collection::vec(op(), 0..200)) {
        let mut k = links(n);
        let mut free = k.all();
        let mut ls = [List::new(); 3];
        let mut mfree: VecDeque<usize> = (0..n).collect();
        let mut m: [VecDeque<usize>; 3] = Default::default();
        for o in ops {
            match o {
                Op::Push(l, pick) => {
                    if mfree.is_empty() {
                        prop_assert_eq!(k.pop_front(&mut free), None);
                        continue;
                    }
                    let s = mfree.remove(pick % mfree.len()).unwrap();
                    prop_assert_eq!(k.remove_first(&mut free, |i| i == s), Some(s));
                    k.push_back(&mut ls[l], s);
                    m[l].push_back(s);
                }
                Op::PushFront(l, pick) => {
                    if mfree.is_empty() {
                        continue;
                    }
                    let s = mfree.remove(pick % mfree.len()).unwrap();
                    prop_assert_eq!(k.remove_first(&mut free, |i| i == s), Some(s));
                    k.push_front(&mut ls[l], s);
                    m[l].push_front(s);
                }
                Op::Pop(l) => {
                    let got = k.pop_front(&mut ls[l]);
                    prop_assert_eq!(got, m[l].pop_front());
                    if let Some(s) = got {
                        k.push_back(&mut free, s);
                        mfree.push_back(s);
                    }
                }
                Op::Remove(l, md, r) => {
                    let got = k.remove_first(&mut ls[l], |i| i % md == r);
                    let want = m[l].iter().position(|&i| i % md == r).map(|p| m[l].remove(p).unwrap());
                    prop_assert_eq!(got, want);
                    if let Some(s) = got {
                        k.push_back(&mut free, s);
                        mfree.push_back(s);
                    }
                }
            }
            let mut seen = vec![0u32; n];
            for (l, ml) in ls.iter().chain([&free]).zip(m.iter().chain([&mfree])) {
                let v = items(&k, l);
                prop_assert_eq!(&v, &ml.iter().copied().collect::<Vec<_>>());
                prop_assert_eq!(l.len(), ml.len());
                prop_assert_eq!(l.is_empty(), ml.is_empty());
                prop_assert_eq!(l.front(), ml.front().copied());
                v.iter().for_each(|&i| seen[i] += 1);
            }
            prop_assert!(seen.iter().all(|&c| c == 1), "slot counts {:?}", seen);
        }
    }
}

// ---- tag matching ----

#[test]
fn tags() {
    assert!(tag_match(0x1234, 0, 0x1234));
    assert!(!tag_match(0x1234, 0, 0x1235));
    assert!(tag_match(0x1200, 0xff, 0x12ab));
    assert!(!tag_match(0x1200, 0xff, 0x13ab));
    assert!(tag_match(0xdead, u64::MAX, 0));
    assert!(tag_match(0, u64::MAX, u64::MAX));
    assert!(!tag_match(1 << 63, 0, 0));
}

// ---- multi-receive ----

#[test]
fn multi_recv_carving() {
    let mut b = MultiRecv::new(100, 30);
    assert_eq!(b.carve(40), Some(Carve { offset: 0, last: false }));
    assert_eq!(b.carve(20), Some(Carve { offset: 40, last: false }));
    assert_eq!(b.left(), 40);
    // 40 - 11 = 29 < 30: released.
    assert_eq!(b.carve(11), Some(Carve { offset: 60, last: true }));
    assert_eq!(b.used, 71);

    // Exactly `min` left is not released.
    let mut b = MultiRecv::new(100, 30);
    assert_eq!(b.carve(70), Some(Carve { offset: 0, last: false }));
    // Too large: None, state unchanged.
    let before = b;
    assert_eq!(b.carve(31), None);
    assert_eq!(b, before);
    // Exact fit.
    assert_eq!(b.carve(30), Some(Carve { offset: 70, last: true }));
    assert_eq!(b.left(), 0);
    assert_eq!(b.carve(1), None);
}

#[test]
fn multi_recv_min_zero_is_min_one() {
    let mut b = MultiRecv::new(10, 0);
    assert_eq!(b.carve(9), Some(Carve { offset: 0, last: false }));
    assert_eq!(b.carve(0), Some(Carve { offset: 9, last: false }));
    assert_eq!(b.carve(1), Some(Carve { offset: 9, last: true }));
    let mut b = MultiRecv::new(10, 1);
    assert_eq!(b.carve(9), Some(Carve { offset: 0, last: false }));
    assert_eq!(b.carve(1), Some(Carve { offset: 9, last: true }));
}

// ---- post checks ----

const KINDS: [Kind; 6] = [Kind::Send, Kind::Recv, Kind::TSend, Kind::TRecv, Kind::Read, Kind::Write];

#[test]
fn post_flags() {
    let bad = |k, f| check_post(k, f, 1, 8, 1 << 20);
    for k in KINDS {
        assert_eq!(bad(k, k.cq_flags() | F_COMPLETION | F_MORE), Ok(()), "{k:?}");
        assert_eq!(bad(k, F_TRIGGER), Err(PostError::BadFlags), "{k:?}");
        // fi_tagged(3): peek, claim, discard on tagged receives only.
        assert_eq!(bad(k, F_PEEK).is_ok(), k == Kind::TRecv, "{k:?}");
        assert_eq!(bad(k, F_PEEK | F_CLAIM).is_ok(), k == Kind::TRecv, "{k:?}");
        assert_eq!(bad(k, F_PEEK | F_DISCARD).is_ok(), k == Kind::TRecv, "{k:?}");
        assert_eq!(bad(k, F_CLAIM | F_DISCARD).is_ok(), k == Kind::TRecv, "{k:?}");
        // Discard alone names no message.
        assert_eq!(bad(k, F_DISCARD), Err(PostError::BadFlags), "{k:?}");
        assert_eq!(bad(k, 1 << 40), Err(PostError::BadFlags), "{k:?}");
        assert_eq!(bad(k, F_INJECT).is_ok(), k.is_tx() && k != Kind::Read, "{k:?}");
        assert_eq!(bad(k, F_REMOTE_CQ_DATA).is_ok(), k.is_tx() && k != Kind::Read, "{k:?}");
        assert_eq!(bad(k, F_DELIVERY_COMPLETE).is_ok(), k.is_tx() && k != Kind::Read, "{k:?}");
        assert_eq!(bad(k, F_MULTI_RECV).is_ok(), k == Kind::Recv, "{k:?}");
        assert_eq!(bad(k, F_CLAIM).is_ok(), k == Kind::TRecv, "{k:?}");
        // fi_msg(3): KFI_FENCE applies to transmits (reads included),
        // KFI_TRANSMIT_COMPLETE to sends and receives.
        assert_eq!(bad(k, F_FENCE).is_ok(), k.is_tx(), "{k:?}");
        assert_eq!(bad(k, F_TRANSMIT_COMPLETE).is_ok(), k != Kind::Read, "{k:?}");
    }
    assert_eq!(bad(Kind::Send, F_MULTI_RECV), Err(PostError::BadFlags));
    assert_eq!(bad(Kind::Recv, F_INJECT), Err(PostError::BadFlags));
    assert_eq!(bad(Kind::TRecv, F_MULTI_RECV), Err(PostError::BadFlags));
    assert_eq!(bad(Kind::Read, F_WRITE), Err(PostError::BadFlags));
    assert_eq!(bad(Kind::Write, F_READ), Err(PostError::BadFlags));
    // Flags are checked before the iov count and the length.
    assert_eq!(check_post(Kind::Recv, F_INJECT, 5, u64::MAX, 0), Err(PostError::BadFlags));
}

#[test]
fn post_sizes() {
    for k in KINDS {
        assert_eq!(check_post(k, 0, IOV_LIMIT, 100, 100), Ok(()));
        assert_eq!(check_post(k, 0, 0, 0, 100), Ok(()));
        assert_eq!(check_post(k, 0, IOV_MAX, 1, 100), Ok(()));
        assert_eq!(check_post(k, 0, IOV_MAX + 1, 1, 100), Err(PostError::BadIov));
        assert_eq!(check_post(k, 0, 1, 101, 100), Err(PostError::TooLong));
    }
    assert_eq!(check_post(Kind::Send, F_INJECT, 1, 128, 1 << 20), Ok(()));
    assert_eq!(check_post(Kind::Send, F_INJECT, 1, 129, 1 << 20), Err(PostError::TooLong));
    assert_eq!(check_post(Kind::Write, F_INJECT, 1, 129, 1 << 20), Err(PostError::TooLong));
    assert_eq!(check_post(Kind::Send, 0, 1, 129, 1 << 20), Ok(()));
    assert_eq!(INJECT_LIMIT, 128);
    assert_eq!(PostError::BadFlags.errno(), -260);
    assert_eq!(PostError::BadIov.errno(), -22);
    assert_eq!(PostError::TooLong.errno(), -90);
}

#[test]
fn rma_checks() {
    assert_eq!(check_rma(Kind::Write, 100, &[60, 40]), Ok(100));
    assert_eq!(check_rma(Kind::Write, 101, &[60, 40]), Err(PostError::TooLong));
    assert_eq!(check_rma(Kind::Read, 100, &[60, 30]), Ok(90));
    assert_eq!(check_rma(Kind::Read, 89, &[60, 30]), Err(PostError::TooLong));
    assert_eq!(check_rma(Kind::Read, 1, &[]), Err(PostError::BadIov));
    assert_eq!(check_rma(Kind::Read, 300, &[1; 256]), Ok(256));
    assert_eq!(check_rma(Kind::Read, 300, &[1; 257]), Err(PostError::BadIov));
    assert_eq!(check_rma(Kind::Read, 10, &[u64::MAX, 1]), Err(PostError::TooLong));
    assert_eq!(check_rma(Kind::Send, 1, &[1]), Err(PostError::BadIov));
}

// ---- kinds, ACKs and completion entries ----

#[test]
fn kinds() {
    let tx: Vec<bool> = KINDS.iter().map(|k| k.is_tx()).collect();
    assert_eq!(tx, [true, false, true, false, true, true]);
    let rma: Vec<bool> = KINDS.iter().map(|k| k.is_rma()).collect();
    assert_eq!(rma, [false, false, false, false, true, true]);
    let tagged: Vec<bool> = KINDS.iter().map(|k| k.is_tagged()).collect();
    assert_eq!(tagged, [false, false, true, true, false, false]);
    assert_eq!(Kind::Send.cq_flags(), (1 << 11) | (1 << 1));
    assert_eq!(Kind::TRecv.cq_flags(), (1 << 10) | (1 << 3));
    assert_eq!(Kind::Read.cq_flags(), (1 << 2) | (1 << 8));
    assert_eq!(Kind::Write.cq_flags(), (1 << 2) | (1 << 9));
}

#[test]
fn entry_rules() {
    // (selective, has KFI_COMPLETION, suppress) -> writes
    let table = [
        (false, false, false, true),
        (false, true, false, true),
        (true, false, false, false),
        (true, true, false, true),
        (false, false, true, false),
        (false, true, true, false),
        (true, false, true, false),
        (true, true, true, false),
    ];
    for (sel, comp, sup, want) in table {
        let f = if comp { F_COMPLETION | F_SEND } else { F_SEND };
        assert_eq!(writes_entry(sel, f, sup), want, "{sel} {comp} {sup}");
    }
}

#[test]
fn sends_accept_only_their_own_class_flag() {
    use kfi_util_logic::xfer::{check_post, Kind, PostError, F_MSG, F_TAGGED};
    assert_eq!(check_post(Kind::Send, F_TAGGED, 1, 8, 1 << 30), Err(PostError::BadFlags));
    assert_eq!(check_post(Kind::TSend, F_MSG, 1, 8, 1 << 30), Err(PostError::BadFlags));
    assert_eq!(check_post(Kind::Send, F_MSG, 1, 8, 1 << 30), Ok(()));
    assert_eq!(check_post(Kind::TSend, F_TAGGED, 1, 8, 1 << 30), Ok(()));
}

/// Tagged RMA (`KFI_TAGGED` on a read or write): kfilnd's entry flags,
/// the flag accepted on RMA kinds only, one region at least as long as
/// the local buffer.
#[test]
fn tagged_rma_flags_and_regions() {
    assert_eq!(Kind::Read.entry_flags(F_TAGGED), F_TAGGED | F_RMA | F_READ | F_SEND);
    assert_eq!(Kind::Write.entry_flags(F_TAGGED | F_COMPLETION), F_TAGGED | F_RMA | F_WRITE | F_SEND);
    assert_eq!(Kind::Write.entry_flags(0), F_RMA | F_WRITE);
    assert_eq!(Kind::Send.entry_flags(F_TAGGED), Kind::Send.cq_flags());
    assert!(check_post(Kind::Read, F_TAGGED, 1, 8, 1 << 30).is_ok());
    assert!(check_post(Kind::Write, F_TAGGED, 1, 8, 1 << 30).is_ok());
    assert_eq!(check_post(Kind::Send, F_TAGGED, 1, 8, 1 << 30), Err(PostError::BadFlags));
    assert_eq!(check_tagged_rma(100, 1, Some(100)), Ok(100));
    assert_eq!(check_tagged_rma(50, 1, Some(100)), Ok(50));
    assert_eq!(check_tagged_rma(101, 1, Some(100)), Err(PostError::BadIov));
    assert_eq!(check_tagged_rma(10, 2, Some(100)), Err(PostError::BadIov));
    assert_eq!(check_tagged_rma(10, 1, None), Err(PostError::BadIov));
}
