// SPDX-License-Identifier: GPL-2.0
//! Tests of kfi_util/logic/eq.rs against a VecDeque model.

use kfi_util_logic::logic::eq::*;
use proptest::prelude::*;
use std::collections::VecDeque;

fn ring(n: usize) -> Ring<Vec<Slot>> {
    Ring::new(vec![Slot::default(); n])
}

#[test]
fn fifo_and_errors_in_order() {
    let mut r = ring(4);
    let mut buf = [0u8; 64];
    assert_eq!(r.read(&mut buf, false), Err(ReadError::Empty));
    r.push(1, false, b"one").unwrap();
    r.push(9, true, b"error").unwrap();
    r.push(2, false, b"two").unwrap();
    assert_eq!(r.read(&mut buf, false), Ok((1, 3)));
    assert_eq!(&buf[..3], b"one");
    // an error at the head blocks normal reads until read_err takes it
    assert_eq!(r.read(&mut buf, false), Err(ReadError::ErrorAvail));
    assert_eq!(r.read_err(&mut buf, false), Ok(5));
    assert_eq!(&buf[..5], b"error");
    assert_eq!(r.read_err(&mut buf, false), Err(ReadError::Empty));
    assert_eq!(r.read(&mut buf, false), Ok((2, 3)));
    assert!(r.is_empty());
}

#[test]
fn peek_keeps_the_entry_and_small_buffer_loses_nothing() {
    let mut r = ring(2);
    let mut small = [0u8; 2];
    let mut buf = [0u8; 8];
    r.push(3, false, b"abcd").unwrap();
    assert_eq!(r.read(&mut small, false), Err(ReadError::TooSmall));
    assert_eq!(r.read(&mut buf, true), Ok((3, 4)));
    assert_eq!(r.len(), 1);
    assert_eq!(r.read(&mut buf, false), Ok((3, 4)));
    assert_eq!(r.len(), 0);
}

#[test]
fn full_and_too_large() {
    let mut r = ring(2);
    r.push(1, false, &[]).unwrap();
    r.push(1, false, &[]).unwrap();
    assert_eq!(r.push(1, false, &[]), Err(PushError::Full));
    assert_eq!(ring(2).push(1, false, &[0; SLOT_BYTES + 1]), Err(PushError::TooLarge));
    assert!(ring(2).push(1, false, &[7; SLOT_BYTES]).is_ok());
    assert_eq!(ReadError::Empty.errno(), -11);
    assert_eq!(ReadError::ErrorAvail.errno(), -259);
    assert_eq!(ReadError::TooSmall.errno(), -257);
}

#[test]
fn reserved_slot_is_kept_for_its_event() {
    let mut r = ring(2);
    let mut buf = [0u8; 8];
    r.reserve().unwrap();
    assert_eq!(r.reserved(), 1);
    r.push(1, false, b"a").unwrap();
    // the last free slot is promised: other events see the ring full
    assert_eq!(r.push(2, false, b"b"), Err(PushError::Full));
    assert_eq!(r.reserve(), Err(PushError::Full));
    // a too-large entry keeps the reservation
    assert_eq!(r.push_reserved(4, false, &[0; SLOT_BYTES + 1]), Err(PushError::TooLarge));
    assert_eq!(r.reserved(), 1);
    r.push_reserved(4, false, b"mr").unwrap();
    assert_eq!(r.reserved(), 0);
    assert_eq!(r.len(), 2);
    // nothing reserved any more
    assert_eq!(r.push_reserved(5, false, b"x"), Err(PushError::Full));
    assert_eq!(r.read(&mut buf, false), Ok((1, 1)));
    assert_eq!(r.read(&mut buf, false), Ok((4, 2)));
    assert_eq!(&buf[..2], b"mr");
    // a reservation given back frees its slot
    r.reserve().unwrap();
    r.reserve().unwrap();
    assert_eq!(r.push(6, false, b""), Err(PushError::Full));
    r.unreserve();
    assert_eq!(r.push(6, false, b""), Ok(()));
    r.unreserve();
    assert_eq!(r.reserved(), 0);
}

#[derive(Debug, Clone)]
enum Op {
    Push(u32, bool, Vec<u8>),
    Read(usize, bool),
    ReadErr(usize),
    Reserve,
    Unreserve,
    PushReserved(u32, Vec<u8>),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (any::<u32>(), any::<bool>(), proptest::collection::vec(any::<u8>(), 0..40)).prop_map(|(e, x, d)| Op::Push(e, x, d)),
        (0usize..48, any::<bool>()).prop_map(|(n, p)| Op::Read(n, p)),
        (0usize..48).prop_map(Op::ReadErr),
        Just(Op::Reserve),
        Just(Op::Unreserve),
        (any::<u32>(), proptest::collection::vec(any::<u8>(), 0..40)).prop_map(|(e, d)| Op::PushReserved(e, d)),
    ]
}

proptest! {
    #[test]
    fn matches_model(cap in 1usize..6, ops in proptest::collection::vec(op(), 0..200)) {
        let mut r = ring(cap);
        let mut model: VecDeque<(u32, bool, Vec<u8>)> = VecDeque::new();
        let mut reserved = 0usize;
        for o in ops {
            match o {
                Op::Reserve => {
                    let got = r.reserve();
                    if model.len() + reserved == cap {
                        prop_assert_eq!(got, Err(PushError::Full));
                    } else {
                        prop_assert_eq!(got, Ok(()));
                        reserved += 1;
                    }
                }
                Op::Unreserve => {
                    if reserved > 0 {
                        r.unreserve();
                        reserved -= 1;
                    }
                }
                Op::PushReserved(e, d) => {
                    let got = r.push_reserved(e, false, &d);
                    if reserved == 0 {
                        prop_assert_eq!(got, Err(PushError::Full));
                    } else {
                        // a reservation always finds its slot
                        prop_assert_eq!(got, Ok(()));
                        reserved -= 1;
                        model.push_back((e, false, d));
                    }
                }
                Op::Push(e, x, d) => {
                    let got = r.push(e, x, &d);
                    if model.len() + reserved == cap {
                        prop_assert_eq!(got, Err(PushError::Full));
                    } else {
                        prop_assert_eq!(got, Ok(()));
                        model.push_back((e, x, d));
                    }
                }
                Op::Read(n, peek) => {
                    let mut buf = vec![0u8; n];
                    let got = r.read(&mut buf, peek);
                    let want = match model.front() {
                        None => Err(ReadError::Empty),
                        Some((_, true, _)) => Err(ReadError::ErrorAvail),
                        Some((_, false, d)) if d.len() > n => Err(ReadError::TooSmall),
                        Some((e, false, d)) => Ok((*e, d.len())),
                    };
                    prop_assert_eq!(got, want);
                    if let Ok((_, len)) = got {
                        prop_assert_eq!(&buf[..len], &model.front().unwrap().2[..]);
                        if !peek { model.pop_front(); }
                    }
                }
                Op::ReadErr(n) => {
                    let mut buf = vec![0u8; n];
                    let got = r.read_err(&mut buf, false);
                    let want = match model.front() {
                        Some((_, true, d)) if d.len() > n => Err(ReadError::TooSmall),
                        Some((_, true, d)) => Ok(d.len()),
                        _ => Err(ReadError::Empty),
                    };
                    prop_assert_eq!(got, want);
                    if got.is_ok() { model.pop_front(); }
                }
            }
            prop_assert_eq!(r.len(), model.len());
            prop_assert_eq!(r.reserved(), reserved);
        }
    }
}
