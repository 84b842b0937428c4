// SPDX-License-Identifier: GPL-2.0
//! Tests of kfi_verbs/logic/atomic.rs: which atomics reach the hardware.

use kfi_verbs_logic::atomic::*;

#[test]
fn what_the_hardware_does() {
    use kfi::*;
    assert_eq!(ib_atomic(Call::Atomic, UINT64, SUM), Some(IbAtomic::FetchAdd));
    assert_eq!(ib_atomic(Call::Atomic, INT64, SUM), Some(IbAtomic::FetchAdd));
    assert_eq!(ib_atomic(Call::Fetch, UINT64, SUM), Some(IbAtomic::FetchAdd));
    assert_eq!(ib_atomic(Call::Fetch, UINT64, ATOMIC_READ), Some(IbAtomic::FetchAdd));
    assert_eq!(ib_atomic(Call::Compare, UINT64, CSWAP), Some(IbAtomic::CmpSwap));
    // everything else is not done
    for dt in 0..14 {
        for op in 0..19 {
            for call in [Call::Atomic, Call::Fetch, Call::Compare] {
                let want = (dt == INT64 || dt == UINT64)
                    && matches!((call, op), (Call::Atomic, SUM) | (Call::Fetch, SUM | ATOMIC_READ) | (Call::Compare, CSWAP));
                assert_eq!(ib_atomic(call, dt, op).is_some(), want, "{call:?} {dt} {op}");
            }
        }
    }
}

#[test]
fn post_checks() {
    use kfi::*;
    assert_eq!(check(true, Call::Fetch, UINT64, SUM, 8, 0x1000, Bufs { operand: true, result: true, compare: false }), Ok(IbAtomic::FetchAdd));
    assert_eq!(check(false, Call::Fetch, UINT64, SUM, 8, 0x1000, Bufs { operand: true, result: true, compare: false }), Err(AtomicError::NotDone));
    assert_eq!(check(true, Call::Fetch, UINT64, SUM, 16, 0x1000, Bufs { operand: true, result: true, compare: false }), Err(AtomicError::NotDone));
    assert_eq!(check(true, Call::Fetch, UINT64, SUM, 8, 0x1004, Bufs { operand: true, result: true, compare: false }), Err(AtomicError::Bad));
    assert_eq!(check(true, Call::Fetch, UINT64, SUM, 8, 0x1000, Bufs { operand: true, result: false, compare: false }), Err(AtomicError::Bad));
    assert_eq!(check(true, Call::Compare, UINT64, CSWAP, 8, 0x1000, Bufs { operand: true, result: true, compare: false }), Err(AtomicError::Bad));
    assert_eq!(check(true, Call::Compare, UINT64, CSWAP, 8, 0x1000, Bufs { operand: true, result: true, compare: true }), Ok(IbAtomic::CmpSwap));
    assert_eq!(check(true, Call::Atomic, INT64, SUM, 8, 0, Bufs { operand: true, result: false, compare: false }), Ok(IbAtomic::FetchAdd));
    assert_eq!(check(true, Call::Atomic, INT64, CSWAP, 8, 0, Bufs { operand: true, result: false, compare: false }), Err(AtomicError::NotDone));
    // an operand is needed but for an atomic read
    let none = Bufs { operand: false, result: true, compare: false };
    assert_eq!(check(true, Call::Fetch, UINT64, SUM, 8, 0, none), Err(AtomicError::Bad));
    assert_eq!(check(true, Call::Fetch, UINT64, ATOMIC_READ, 8, 0, none), Ok(IbAtomic::FetchAdd));
}
