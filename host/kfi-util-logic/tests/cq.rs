// SPDX-License-Identifier: GPL-2.0
//! Tests of kfi_util/logic/cq.rs: entry layouts against `#[repr(C)]` mirrors
//! of the C structures, each read rule, credits, arming, wrap-around, and a
//! property test against a VecDeque model.

use kfi_util_logic::logic::cq::*;
use proptest::prelude::*;
use std::collections::VecDeque;
use std::mem::{offset_of, size_of};

// Mirrors of include/kfi_eq.h (pointers as usize; the host is LP64 like
// the kernel).
#[repr(C)]
struct CEntry {
    op_context: usize,
}
#[repr(C)]
struct CMsg {
    op_context: usize,
    flags: u64,
    len: usize,
}
#[repr(C)]
struct CData {
    op_context: usize,
    flags: u64,
    len: usize,
    buf: usize,
    data: u64,
}
#[repr(C)]
struct CTagged {
    op_context: usize,
    flags: u64,
    len: usize,
    buf: usize,
    data: u64,
    tag: u64,
}
#[repr(C)]
struct CErr {
    op_context: usize,
    flags: u64,
    len: usize,
    buf: usize,
    data: u64,
    tag: u64,
    olen: usize,
    err: i32,
    prov_errno: i32,
    err_data: usize,
    err_data_size: usize,
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_ne_bytes(b[at..at + 8].try_into().unwrap())
}

fn i32_at(b: &[u8], at: usize) -> i32 {
    i32::from_ne_bytes(b[at..at + 4].try_into().unwrap())
}

fn ring(n: usize) -> Ring<Vec<Slot>> {
    Ring::new(vec![Slot::default(); n])
}

fn done(i: u64) -> Completion {
    Completion {
        op_context: 0x1000 + i as usize,
        flags: 1 << 10 | i,
        len: 100 + i as usize,
        buf: 0x2000 + i as usize,
        data: 0xd00 + i,
        tag: 0x7a6 + i,
        src: 0x500 + i,
    }
}

fn failed(i: u64) -> ErrCompletion {
    ErrCompletion {
        op_context: 0x3000 + i as usize,
        flags: 1 << 11,
        len: 5,
        buf: 0x4000,
        data: 9,
        tag: 10 + i,
        olen: 77,
        err: 265,
        prov_errno: -3,
    }
}

/// Decodes entry `i` of `buf` written in `f`; fields the format lacks are 0.
fn decode(f: Format, buf: &[u8], i: usize) -> Completion {
    let b = &buf[i * f.entry_bytes()..(i + 1) * f.entry_bytes()];
    let mut c = Completion { op_context: u64_at(b, offset_of!(CEntry, op_context)) as usize, ..Default::default() };
    if f != Format::Context {
        c.flags = u64_at(b, offset_of!(CMsg, flags));
        c.len = u64_at(b, offset_of!(CMsg, len)) as usize;
    }
    if f == Format::Data || f == Format::Tagged {
        c.buf = u64_at(b, offset_of!(CData, buf)) as usize;
        c.data = u64_at(b, offset_of!(CData, data));
    }
    if f == Format::Tagged {
        c.tag = u64_at(b, offset_of!(CTagged, tag));
    }
    c
}

/// What a completion looks like through `f`.
fn project(f: Format, c: &Completion) -> Completion {
    let mut p = Completion { op_context: c.op_context, ..Default::default() };
    if f != Format::Context {
        p.flags = c.flags;
        p.len = c.len;
    }
    if f == Format::Data || f == Format::Tagged {
        p.buf = c.buf;
        p.data = c.data;
    }
    if f == Format::Tagged {
        p.tag = c.tag;
    }
    p
}

const FORMATS: [Format; 4] = [Format::Context, Format::Msg, Format::Data, Format::Tagged];

#[test]
fn layouts_match_the_c_structures() {
    assert_eq!(CONTEXT_BYTES, size_of::<CEntry>());
    assert_eq!(MSG_BYTES, size_of::<CMsg>());
    assert_eq!(DATA_BYTES, size_of::<CData>());
    assert_eq!(TAGGED_BYTES, size_of::<CTagged>());
    assert_eq!(ERR_BYTES, size_of::<CErr>());
    assert_eq!(offset::OP_CONTEXT, offset_of!(CErr, op_context));
    assert_eq!(offset::FLAGS, offset_of!(CErr, flags));
    assert_eq!(offset::LEN, offset_of!(CErr, len));
    assert_eq!(offset::BUF, offset_of!(CErr, buf));
    assert_eq!(offset::DATA, offset_of!(CErr, data));
    assert_eq!(offset::TAG, offset_of!(CErr, tag));
    assert_eq!(offset::OLEN, offset_of!(CErr, olen));
    assert_eq!(offset::ERR, offset_of!(CErr, err));
    assert_eq!(offset::PROV_ERRNO, offset_of!(CErr, prov_errno));
    assert_eq!(offset::ERR_DATA, offset_of!(CErr, err_data));
    assert_eq!(offset::ERR_DATA_SIZE, offset_of!(CErr, err_data_size));
    // every format is a prefix of the next
    assert_eq!(offset_of!(CMsg, len), offset_of!(CTagged, len));
    assert_eq!(offset_of!(CData, data), offset_of!(CTagged, data));
    assert_eq!(Format::Context.entry_bytes(), 8);
    assert_eq!(Format::Msg.entry_bytes(), 24);
    assert_eq!(Format::Data.entry_bytes(), 40);
    assert_eq!(Format::Tagged.entry_bytes(), 48);
}

#[test]
fn formats_and_conditions_from_c_values() {
    assert_eq!(Format::from_raw(FORMAT_UNSPEC), Some(Format::Context));
    assert_eq!(Format::from_raw(FORMAT_CONTEXT), Some(Format::Context));
    assert_eq!(Format::from_raw(FORMAT_MSG), Some(Format::Msg));
    assert_eq!(Format::from_raw(FORMAT_DATA), Some(Format::Data));
    assert_eq!(Format::from_raw(FORMAT_TAGGED), Some(Format::Tagged));
    assert_eq!(Format::from_raw(5), None);
    assert_eq!(Format::from_raw(u32::MAX), None);
    assert_eq!(WaitCond::from_raw(COND_NONE), Some(WaitCond::None));
    assert_eq!(WaitCond::from_raw(COND_THRESHOLD), Some(WaitCond::Threshold));
    assert_eq!(WaitCond::from_raw(2), None);
    // thresholds: at least 1, at most the entries asked for
    assert_eq!(WaitCond::None.threshold(50, 8), 1);
    assert_eq!(WaitCond::Threshold.threshold(0, 8), 1);
    assert_eq!(WaitCond::Threshold.threshold(4, 8), 4);
    assert_eq!(WaitCond::Threshold.threshold(50, 8), 8);
    assert_eq!(WaitCond::Threshold.threshold(usize::MAX, 1), 1);
    assert_eq!(queue_size(0), Some(DEFAULT_SIZE));
    assert_eq!(queue_size(1), Some(1));
    assert_eq!(queue_size(MAX_SIZE), Some(MAX_SIZE));
    assert_eq!(queue_size(MAX_SIZE + 1), None);
    assert_eq!(ReadError::Empty.errno(), -11);
    assert_eq!(ReadError::ErrorAvail.errno(), -259);
    assert_eq!(ReadError::Invalid.errno(), -22);
}

#[test]
fn each_format_writes_its_fields_and_nothing_more() {
    let c = done(3);
    for f in FORMATS {
        let mut buf = [0xaau8; TAGGED_BYTES + 8];
        c.encode(f, &mut buf[..f.entry_bytes()]);
        assert_eq!(decode(f, &buf, 0), project(f, &c), "{f:?}");
        assert!(buf[f.entry_bytes()..].iter().all(|&b| b == 0xaa), "{f:?} wrote past its entry");
    }
}

#[test]
fn error_entry_layout() {
    let e = failed(1);
    let mut b = [0xaau8; ERR_BYTES];
    // No error-data buffer supplied (err_data_size 0 on entry).
    b[offset_of!(CErr, err_data_size)..][..8].fill(0);
    e.encode(&mut b);
    assert_eq!(u64_at(&b, offset_of!(CErr, op_context)), e.op_context as u64);
    assert_eq!(u64_at(&b, offset_of!(CErr, flags)), e.flags);
    assert_eq!(u64_at(&b, offset_of!(CErr, len)), e.len as u64);
    assert_eq!(u64_at(&b, offset_of!(CErr, buf)), e.buf as u64);
    assert_eq!(u64_at(&b, offset_of!(CErr, data)), e.data);
    assert_eq!(u64_at(&b, offset_of!(CErr, tag)), e.tag);
    assert_eq!(u64_at(&b, offset_of!(CErr, olen)), e.olen as u64);
    assert_eq!(i32_at(&b, offset_of!(CErr, err)), 265);
    assert_eq!(i32_at(&b, offset_of!(CErr, prov_errno)), -3);
    assert_eq!(u64_at(&b, offset_of!(CErr, err_data)), 0);
    assert_eq!(u64_at(&b, offset_of!(CErr, err_data_size)), 0);
}

/// libfabric >= 1.5: a consumer may supply the error-data buffer; it keeps
/// its pointer, and the size says how much was copied (nothing: this
/// provider has no error data).
#[test]
fn error_entry_keeps_a_supplied_err_data_buffer() {
    let e = failed(1);
    let mut b = [0u8; ERR_BYTES];
    b[offset_of!(CErr, err_data)..][..8].copy_from_slice(&0x1234_5678u64.to_ne_bytes());
    b[offset_of!(CErr, err_data_size)..][..8].copy_from_slice(&64u64.to_ne_bytes());
    e.encode(&mut b);
    assert_eq!(u64_at(&b, offset_of!(CErr, err_data)), 0x1234_5678);
    assert_eq!(u64_at(&b, offset_of!(CErr, err_data_size)), 0);
    assert_eq!(u64_at(&b, offset_of!(CErr, op_context)), e.op_context as u64);
}

#[test]
fn reads_stop_before_an_error_entry() {
    let mut r = ring(8);
    let mut buf = [0u8; 4 * MSG_BYTES];
    assert_eq!(r.read(Format::Msg, &mut buf, None), Err(ReadError::Empty));
    assert_eq!(r.read_err(), Err(ReadError::Empty));
    for e in [Entry::Done(done(1)), Entry::Done(done(2)), Entry::Failed(failed(3)), Entry::Done(done(4))] {
        let _ = r.try_push(e).unwrap();
    }
    // an error entry is queued: a blocking read need not wait for more
    assert!(r.ready(8));
    // not the head: readerr finds nothing
    assert_eq!(r.read_err(), Err(ReadError::Empty));
    assert_eq!(r.read(Format::Msg, &mut buf, None), Ok(2));
    assert_eq!(decode(Format::Msg, &buf, 0), project(Format::Msg, &done(1)));
    assert_eq!(decode(Format::Msg, &buf, 1), project(Format::Msg, &done(2)));
    assert_eq!(r.read(Format::Msg, &mut buf, None), Err(ReadError::ErrorAvail));
    assert_eq!(r.read(Format::Msg, &mut buf, None), Err(ReadError::ErrorAvail));
    assert_eq!(r.read_err(), Ok(failed(3)));
    assert!(!r.ready(2));
    assert!(r.ready(1));
    assert_eq!(r.read_err(), Err(ReadError::Empty));
    assert_eq!(r.read(Format::Msg, &mut buf, None), Ok(1));
    assert_eq!(decode(Format::Msg, &buf, 0), project(Format::Msg, &done(4)));
    assert_eq!(r.read(Format::Msg, &mut buf, None), Err(ReadError::Empty));
    assert!(r.is_empty());
}

#[test]
fn readfrom_gives_each_entry_its_source() {
    let mut r = ring(8);
    for i in 1..=3 {
        let _ = r.try_push(Entry::Done(done(i))).unwrap();
    }
    // a completion that names no source reports KFI_ADDR_NOTAVAIL
    let _ = r.try_push(Entry::Done(Completion { op_context: 9, ..Default::default() })).unwrap();
    let _ = r.try_push(Entry::Failed(failed(5))).unwrap();
    let mut buf = [0u8; 8 * TAGGED_BYTES];
    // the address array limits the count as the entry buffer does
    let mut src = [0u64; 2];
    assert_eq!(r.read(Format::Tagged, &mut buf, Some(&mut src)), Ok(2));
    assert_eq!(src, [0x501, 0x502]);
    assert_eq!(decode(Format::Tagged, &buf, 1), project(Format::Tagged, &done(2)));
    let mut src = [7u64; 4];
    assert_eq!(r.read(Format::Context, &mut buf, Some(&mut src)), Ok(2));
    assert_eq!(src, [0x503, ADDR_NOTAVAIL, 7, 7]);
    // an error entry stops readfrom too; nothing written for it
    assert_eq!(r.read(Format::Tagged, &mut buf, Some(&mut src)), Err(ReadError::ErrorAvail));
    assert_eq!(src, [0x503, ADDR_NOTAVAIL, 7, 7]);
    assert_eq!(r.read(Format::Tagged, &mut buf, Some(&mut [])), Err(ReadError::Invalid));
    assert_eq!(Completion::default().src, u64::MAX);
}

#[test]
fn buffer_smaller_than_an_entry_takes_nothing() {
    let mut r = ring(2);
    let _ = r.try_push(Entry::Done(done(1))).unwrap();
    let mut small = [0u8; DATA_BYTES - 1];
    assert_eq!(r.read(Format::Data, &mut small, None), Err(ReadError::Invalid));
    assert_eq!(r.read(Format::Data, &mut [], None), Err(ReadError::Invalid));
    assert_eq!(r.len(), 1);
    // a buffer for 1.5 entries reads one
    let mut buf = [0u8; DATA_BYTES + DATA_BYTES / 2];
    let _ = r.try_push(Entry::Done(done(2))).unwrap();
    assert_eq!(r.read(Format::Data, &mut buf, None), Ok(1));
    assert_eq!(r.read(Format::Data, &mut buf, None), Ok(1));
    assert_eq!(decode(Format::Data, &buf, 0), project(Format::Data, &done(2)));
}

#[test]
fn credits_keep_room_for_every_posted_operation() {
    let mut r = ring(4);
    assert!(r.try_reserve(0));
    assert!(r.try_reserve(3));
    assert_eq!((r.reserved(), r.free()), (3, 1));
    assert!(!r.try_reserve(2), "only one slot is unpromised");
    // an unreserved completion takes the last free slot, then is refused
    assert_eq!(r.try_push(Entry::Done(done(9))), Ok(Notify::Handler));
    assert_eq!(r.try_push(Entry::Done(done(10))), Err(Full));
    assert!(!r.try_reserve(1));
    // every reservation still completes, errors included
    assert_eq!(r.push_reserved(Entry::Done(done(1))), Ok(Notify::Quiet));
    assert_eq!(r.push_reserved(Entry::Failed(failed(2))), Ok(Notify::Quiet));
    assert_eq!(r.reserved(), 1);
    r.unreserve(1).unwrap();
    assert_eq!((r.len(), r.reserved(), r.free()), (3, 0, 1));
    // misuse is reported and leaves consistent accounting
    assert_eq!(r.push_reserved(Entry::Done(done(3))), Err(NotReserved));
    assert_eq!(r.len(), 3);
    assert!(r.try_reserve(1));
    assert_eq!(r.unreserve(2), Err(NotReserved));
    assert_eq!((r.reserved(), r.free()), (0, 1));
    // reading frees slots for new reservations
    let mut buf = [0u8; 4 * CONTEXT_BYTES];
    assert_eq!(r.read(Format::Context, &mut buf, None), Ok(2));
    assert!(r.try_reserve(3));
    assert!(!r.try_reserve(1));
}

#[test]
fn wraps_around_in_order() {
    let mut r = ring(3);
    let mut buf = [0u8; 2 * TAGGED_BYTES];
    let mut next_in = 0u64;
    let mut next_out = 0u64;
    for round in 0..50 {
        let n = 1 + round % 3;
        assert!(r.try_reserve(n as usize));
        for _ in 0..n {
            let _ = r.push_reserved(Entry::Done(done(next_in))).unwrap();
            next_in += 1;
        }
        while let Ok(k) = r.read(Format::Tagged, &mut buf, None) {
            for i in 0..k {
                assert_eq!(decode(Format::Tagged, &buf, i), project(Format::Tagged, &done(next_out)));
                next_out += 1;
            }
        }
        assert!(r.is_empty());
    }
    assert_eq!(next_in, next_out);
}

#[test]
fn handler_is_asked_for_once_per_drain() {
    let mut r = ring(8);
    let mut buf = [0u8; CONTEXT_BYTES];
    assert!(r.is_armed());
    assert_eq!(r.try_push(Entry::Done(done(1))), Ok(Notify::Handler));
    assert_eq!(r.try_push(Entry::Done(done(2))), Ok(Notify::Quiet));
    // reading without reaching -EAGAIN does not re-arm
    assert_eq!(r.read(Format::Context, &mut buf, None), Ok(1));
    assert_eq!(r.try_push(Entry::Failed(failed(3))), Ok(Notify::Quiet));
    assert_eq!(r.read(Format::Context, &mut buf, None), Ok(1));
    assert_eq!(r.read(Format::Context, &mut buf, None), Err(ReadError::ErrorAvail));
    assert!(!r.is_armed());
    assert!(r.read_err().is_ok());
    assert!(!r.is_armed(), "emptied, but not seen empty yet");
    // draining until -EAGAIN re-arms: the next push calls the handler
    assert_eq!(r.read(Format::Context, &mut buf, None), Err(ReadError::Empty));
    assert!(r.is_armed());
    assert!(r.try_reserve(2));
    assert_eq!(r.push_reserved(Entry::Done(done(4))), Ok(Notify::Handler));
    assert_eq!(r.push_reserved(Entry::Done(done(5))), Ok(Notify::Quiet));
    // readerr finding the queue empty re-arms too; finding a normal head
    // does not
    assert_eq!(r.read_err(), Err(ReadError::Empty));
    assert!(!r.is_armed());
    let mut two = [0u8; 2 * CONTEXT_BYTES];
    assert_eq!(r.read(Format::Context, &mut two, None), Ok(2));
    assert_eq!(r.read_err(), Err(ReadError::Empty));
    assert!(r.is_armed());
    // a rejected read (no room) does not arm
    let _ = r.try_push(Entry::Done(done(6)));
    assert_eq!(r.read(Format::Context, &mut [], None), Err(ReadError::Invalid));
    assert!(!r.is_armed());
}

#[test]
fn threshold_readiness() {
    let mut r = ring(8);
    assert!(!r.ready(1));
    assert!(!r.ready(0), "0 is read as 1");
    let _ = r.try_push(Entry::Done(done(1)));
    assert!(r.ready(0) && r.ready(1) && !r.ready(2));
    let _ = r.try_push(Entry::Done(done(2)));
    assert!(r.ready(2) && !r.ready(3));
    let _ = r.try_push(Entry::Failed(failed(3)));
    assert!(r.ready(8), "an error entry ends the wait");
}

#[derive(Debug, Clone)]
enum Op {
    Reserve(usize),
    Unreserve(usize),
    PushReserved(Entry),
    TryPush(Entry),
    Read(usize, usize),
    ReadErr,
}

fn entry() -> impl Strategy<Value = Entry> {
    (any::<u64>(), any::<u64>(), any::<bool>()).prop_map(|(i, t, err)| {
        if err {
            Entry::Failed(ErrCompletion { tag: t, ..failed(i) })
        } else {
            Entry::Done(Completion { tag: t, ..done(i) })
        }
    })
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0usize..4).prop_map(Op::Reserve),
        (0usize..3).prop_map(Op::Unreserve),
        entry().prop_map(Op::PushReserved),
        entry().prop_map(Op::TryPush),
        (0usize..4, 0usize..5).prop_map(|(f, n)| Op::Read(f, n)),
        Just(Op::ReadErr),
    ]
}

/// The model of a push: queued at the back; the handler is due if armed.
fn push(q: &mut VecDeque<Entry>, e: Entry, armed: &mut bool) -> Notify {
    q.push_back(e);
    if std::mem::replace(armed, false) {
        Notify::Handler
    } else {
        Notify::Quiet
    }
}

proptest! {
    #[test]
    fn matches_model(cap in 1usize..7, ops in proptest::collection::vec(op(), 0..300)) {
        let mut r = ring(cap);
        let mut q: VecDeque<Entry> = VecDeque::new();
        let mut reserved = 0usize;
        let mut armed = true;
        for o in ops {
            match o {
                Op::Reserve(n) => {
                    let ok = q.len() + reserved + n <= cap;
                    prop_assert_eq!(r.try_reserve(n), ok);
                    if ok { reserved += n; }
                }
                Op::Unreserve(n) => {
                    let got = r.unreserve(n);
                    if n <= reserved {
                        prop_assert_eq!(got, Ok(()));
                        reserved -= n;
                    } else {
                        prop_assert_eq!(got, Err(NotReserved));
                        reserved = 0;
                    }
                }
                Op::PushReserved(e) => {
                    let got = r.push_reserved(e);
                    if reserved == 0 {
                        prop_assert_eq!(got, Err(NotReserved));
                    } else {
                        reserved -= 1;
                        prop_assert_eq!(got, Ok(push(&mut q, e, &mut armed)));
                    }
                }
                Op::TryPush(e) => {
                    let got = r.try_push(e);
                    if q.len() + reserved == cap {
                        prop_assert_eq!(got, Err(Full));
                    } else {
                        prop_assert_eq!(got, Ok(push(&mut q, e, &mut armed)));
                    }
                }
                Op::Read(f, n) => {
                    let f = FORMATS[f];
                    let mut buf = vec![0u8; n * f.entry_bytes()];
                    let got = r.read(f, &mut buf, None);
                    if n == 0 {
                        prop_assert_eq!(got, Err(ReadError::Invalid));
                    } else if q.is_empty() {
                        prop_assert_eq!(got, Err(ReadError::Empty));
                        armed = true;
                    } else if matches!(q.front(), Some(Entry::Failed(_))) {
                        prop_assert_eq!(got, Err(ReadError::ErrorAvail));
                    } else {
                        let k = got.unwrap();
                        prop_assert!(k >= 1 && k <= n);
                        for i in 0..k {
                            let Some(Entry::Done(c)) = q.pop_front() else {
                                panic!("read past an error entry");
                            };
                            prop_assert_eq!(decode(f, &buf, i), project(f, &c));
                        }
                        // stopped because full, empty, or at an error entry
                        prop_assert!(k == n || !matches!(q.front(), Some(Entry::Done(_))));
                    }
                }
                Op::ReadErr => {
                    let got = r.read_err();
                    match q.front() {
                        Some(Entry::Failed(e)) => {
                            prop_assert_eq!(got, Ok(*e));
                            q.pop_front();
                        }
                        Some(Entry::Done(_)) => prop_assert_eq!(got, Err(ReadError::Empty)),
                        None => {
                            prop_assert_eq!(got, Err(ReadError::Empty));
                            armed = true;
                        }
                    }
                }
            }
            prop_assert_eq!(r.len(), q.len());
            prop_assert_eq!(r.reserved(), reserved);
            prop_assert_eq!(r.is_armed(), armed);
            prop_assert!(r.len() + r.reserved() <= cap);
            let errors = q.iter().any(|e| matches!(e, Entry::Failed(_)));
            prop_assert_eq!(r.ready(2), errors || q.len() >= 2);
        }
    }
}
