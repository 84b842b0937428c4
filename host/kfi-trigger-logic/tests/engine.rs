// SPDX-License-Identifier: GPL-2.0
//! One test per rule of kfi_trigger/engine.rs.

use kfi_trigger_logic::engine::*;

fn engine(n: usize) -> Engine<Vec<Slot>> {
    Engine::new(vec![Slot::default(); n])
}

/// Pops everything due at `value`, returning the tokens in fire order.
fn drain(e: &mut Engine<Vec<Slot>>, value: u64) -> Vec<u64> {
    let mut out = Vec::new();
    while let Some(f) = e.pop_ready(value) {
        out.push(f.token);
    }
    out
}

/// Posts with value 0 (nothing met unless threshold 0); returns the handle.
fn queue(e: &mut Engine<Vec<Slot>>, threshold: u64, token: u64) -> Handle {
    match e.post(threshold, token, 0).unwrap() {
        PostOutcome::Queued(h) => h,
        other => panic!("threshold {threshold} at value 0: {other:?}"),
    }
}

#[test]
fn jump_fires_in_threshold_order_equal_thresholds_in_post_order() {
    let mut e = engine(8);
    // tokens name the post order: 5,3,9,3,7
    for (tok, thr) in [5u64, 3, 9, 3, 7].into_iter().enumerate() {
        queue(&mut e, thr, tok as u64);
    }
    let mut fired = Vec::new();
    while let Some(f) = e.pop_ready(10) {
        fired.push((f.threshold, f.token));
    }
    assert_eq!(fired, [(3, 1), (3, 3), (5, 0), (7, 4), (9, 2)]);
    assert!(e.is_empty());
}

#[test]
fn single_increments_fire_one_threshold_at_a_time() {
    let mut e = engine(8);
    for (tok, thr) in [5u64, 3, 9, 3, 7].into_iter().enumerate() {
        queue(&mut e, thr, tok as u64);
    }
    let mut c = Counter::new();
    let mut per_value = Vec::new();
    for _ in 0..10 {
        let v = c.add(1);
        per_value.push(drain(&mut e, v));
    }
    let expect: [&[u64]; 10] = [&[], &[], &[1, 3], &[], &[0], &[], &[4], &[], &[2], &[]];
    assert_eq!(per_value, expect);
}

#[test]
fn equal_thresholds_are_fifo() {
    let mut e = engine(1000);
    for tok in 0..1000 {
        queue(&mut e, 42, tok);
    }
    assert_eq!(drain(&mut e, 41), Vec::<u64>::new());
    assert_eq!(drain(&mut e, 42), (0..1000).collect::<Vec<_>>());
}

#[test]
fn already_met_fires_now_without_a_slot() {
    let mut e = engine(0);
    // at, below the value; threshold 0 is always met
    assert_eq!(e.post(7, 1, 7), Ok(PostOutcome::FireNow));
    assert_eq!(e.post(3, 2, 7), Ok(PostOutcome::FireNow));
    assert_eq!(e.post(0, 3, 0), Ok(PostOutcome::FireNow));
    // above: needs a slot, and there is none
    assert_eq!(e.post(8, 4, 7), Err(Full));
    assert!(e.is_empty());
}

#[test]
fn already_met_queues_behind_due_operations_not_yet_popped() {
    let mut e = engine(8);
    queue(&mut e, 2, 10);
    queue(&mut e, 4, 11);
    queue(&mut e, 9, 12);
    // value jumps to 5; the caller pops only the first due op...
    assert_eq!(e.pop_ready(5).map(|f| f.token), Some(10));
    // ...then a post already met at 5 must wait for the one at 4 (triggered
    // before this post existed), whatever its own threshold: it is ordered
    // as if its threshold were the value, 5
    let h = match e.post(1, 13, 5).unwrap() {
        PostOutcome::QueuedReady(h) => h,
        other => panic!("{other:?}"),
    };
    assert_eq!(e.threshold(h), Some(5));
    assert!(matches!(e.post(5, 14, 5), Ok(PostOutcome::QueuedReady(_))));
    // still before anything not yet due
    queue(&mut e, 6, 16);
    assert_eq!(drain(&mut e, 5), [11, 13, 14]);
    // nothing due now: back to FireNow
    assert_eq!(e.post(5, 15, 5), Ok(PostOutcome::FireNow));
    assert_eq!(drain(&mut e, u64::MAX), [16, 12]);
}

#[test]
fn value_going_down_fires_nothing() {
    let mut e = engine(8);
    queue(&mut e, 10, 1);
    queue(&mut e, 20, 2);
    let mut c = Counter::new();
    assert_eq!(drain(&mut e, c.add(15)), [1]);
    // set lower: nothing fires, nothing is lost
    assert_eq!(drain(&mut e, c.set(3)), Vec::<u64>::new());
    assert_eq!(e.len(), 1);
    queue(&mut e, 6, 3);
    assert_eq!(drain(&mut e, c.add(2)), Vec::<u64>::new());
    assert_eq!(drain(&mut e, c.add(0)), Vec::<u64>::new());
    assert_eq!(drain(&mut e, c.add(17)), [3, 2]);
}

#[test]
fn cancel_one_among_many() {
    let mut e = engine(64);
    let handles: Vec<Handle> = (0..50).map(|i| queue(&mut e, (i * 7) % 13 + 1, i)).collect();
    assert_eq!(e.cancel(handles[17]), Some(17));
    assert_eq!(e.len(), 49);
    let mut expect: Vec<(u64, u64)> = (0..50).filter(|&i| i != 17).map(|i| ((i * 7) % 13 + 1, i)).collect();
    expect.sort();
    let mut got = Vec::new();
    while let Some(f) = e.pop_ready(u64::MAX) {
        got.push((f.threshold, f.token));
    }
    assert_eq!(got, expect);
}

#[test]
fn stale_handles_cancel_nothing() {
    let mut e = engine(2);
    let a = queue(&mut e, 5, 1);
    assert_eq!(e.cancel(a), Some(1));
    assert_eq!(e.cancel(a), None);
    // the slot is reused by a new op; the old handle must not reach it
    let b = queue(&mut e, 5, 2);
    assert_eq!(a.to_raw().0, b.to_raw().0);
    assert_eq!(e.cancel(a), None);
    assert_eq!(e.threshold(a), None);
    // a fired op's handle is stale too
    let f = e.pop_ready(5).unwrap();
    assert_eq!(f.handle, b);
    assert_eq!(e.cancel(b), None);
    // handles that never existed
    assert_eq!(e.cancel(Handle::from_raw(1, 0)), None);
    assert_eq!(e.cancel(Handle::from_raw(u32::MAX, u64::MAX)), None);
    assert_eq!(e.cancel(Handle::from_raw(0, u64::MAX)), None);
    assert!(e.is_empty());
}

#[test]
fn thresholds_at_below_and_above_the_value() {
    let mut e = engine(8);
    queue(&mut e, 99, 3);
    queue(&mut e, 100, 2);
    queue(&mut e, 101, 1);
    assert_eq!(drain(&mut e, 100), [3, 2]);
    assert_eq!(e.peek_min_threshold(), Some(101));
    assert!(!e.has_ready(100));
    assert!(e.has_ready(101));
    assert_eq!(drain(&mut e, 101), [1]);
    assert_eq!(e.peek_min_threshold(), None);
}

#[test]
fn thresholds_near_u64_max() {
    let mut e = engine(8);
    let mut c = Counter::new();
    queue(&mut e, u64::MAX, 1);
    queue(&mut e, u64::MAX - 1, 2);
    queue(&mut e, u64::MAX, 3);
    assert_eq!(drain(&mut e, c.set(u64::MAX - 2)), Vec::<u64>::new());
    assert_eq!(drain(&mut e, c.add(1)), [2]);
    // success + error saturates instead of wrapping to a small value
    assert_eq!(c.add_err(5), u64::MAX);
    assert_eq!(drain(&mut e, c.trigger_value()), [1, 3]);
    // success wraps like the C counter does: the trigger value goes down
    let mut c = Counter::new();
    c.set(u64::MAX);
    assert_eq!(c.add(2), 1);
    assert_eq!(c.success(), 1);
    assert_eq!(e.post(u64::MAX, 4, u64::MAX), Ok(PostOutcome::FireNow));
    assert!(matches!(e.post(u64::MAX, 5, u64::MAX - 1), Ok(PostOutcome::Queued(_))));
    assert_eq!(drain(&mut e, u64::MAX), [5]);
}

#[test]
fn counter_trigger_value_counts_errors() {
    let mut c = Counter::new();
    assert_eq!(c.add(3), 3);
    assert_eq!(c.add_err(2), 5);
    assert_eq!((c.success(), c.error()), (3, 2));
    assert_eq!(c.set_err(0), 3);
    assert_eq!(c.set(5), 5);
    assert_eq!(c.add(5), 10);
}

#[test]
fn one_jump_fires_100_000() {
    const N: u64 = 100_000;
    let mut e = engine(N as usize);
    // thresholds in a scrambled order (multiplicative permutation of 1..=N)
    for i in 0..N {
        let thr = (i * 7919) % N + 1;
        queue(&mut e, thr, thr);
    }
    assert_eq!(e.len(), N as usize);
    assert!(e.is_full());
    let fired = drain(&mut e, N);
    assert_eq!(fired, (1..=N).collect::<Vec<_>>());
    assert!(e.is_empty());
}

#[test]
fn full_storage_fails_cleanly_and_grows() {
    let mut e = engine(3);
    let hs: Vec<Handle> = [30, 10, 20].iter().map(|&t| queue(&mut e, t, t)).collect();
    assert!(e.is_full());
    assert_eq!(e.post(5, 5, 0), Err(Full));
    assert_eq!(e.post(5, 5, 0), Err(Full));
    assert_eq!(e.len(), 3);
    // too short a replacement is handed back
    assert!(e.replace_storage(vec![Slot::EMPTY; 2]).is_err());
    // grow (as the module does: new storage allocated outside the lock)
    let old = e.replace_storage(vec![Slot::EMPTY; 6]).unwrap();
    assert_eq!(old.len(), 3);
    assert_eq!(e.capacity(), 6);
    queue(&mut e, 5, 5);
    // handles survive the move
    assert_eq!(e.cancel(hs[2]), Some(20));
    assert_eq!(drain(&mut e, 100), [5, 10, 30]);
}

#[test]
fn flush_pops_in_fire_order() {
    let mut e = engine(8);
    for t in [u64::MAX, 3, 1, 3] {
        queue(&mut e, t, t);
    }
    let mut got = Vec::new();
    while let Some(f) = e.pop_min() {
        got.push(f.threshold);
    }
    assert_eq!(got, [1, 3, 3, u64::MAX]);
    assert_eq!(e.into_storage().len(), 8);
}

#[test]
fn seqs_increase_and_slots_are_reused() {
    let mut e = engine(2);
    let a = queue(&mut e, 1, 0);
    let b = queue(&mut e, 1, 0);
    assert!(a.seq() < b.seq());
    e.pop_ready(1).unwrap();
    let c = queue(&mut e, 1, 0);
    assert!(b.seq() < c.seq());
    assert_eq!(c.to_raw().0, a.to_raw().0);
    assert_eq!(PostOutcome::Queued(c).handle(), Some(c));
    assert_eq!(PostOutcome::FireNow.handle(), None);
}

#[test]
fn a_due_pop_sorts_the_heap_into_a_run_with_the_same_order() {
    let mut e = engine(64);
    e.set_batch_min(0);
    let hs: Vec<Handle> = (0..40).map(|i| queue(&mut e, (i * 17) % 23 + 1, i)).collect();
    // due at 12: the thresholds 1..=12 (23 distinct values cycle)
    let first = e.pop_ready(12).unwrap();
    assert!(e.run_len() > 0, "the jump was not sorted into a run");
    assert_eq!(first.threshold, 1);
    // cancel in the middle of the run: the slot stays held until passed
    let mid = hs.iter().copied().find(|&h| e.threshold(h) == Some(6)).unwrap();
    let (slot, _) = mid.to_raw();
    assert!(e.cancel(mid).is_some());
    assert_eq!(e.held(), e.len() + 1);
    // neither the stale handle nor a forged one with the dead marker
    // reaches the cancelled entry
    assert_eq!(e.cancel(mid), None);
    assert_eq!(e.cancel(Handle::from_raw(slot, u64::MAX)), None);
    assert_eq!(e.threshold(Handle::from_raw(slot, u64::MAX)), None);
    // grow while the run is there: it moves, handles still work
    e.replace_storage(vec![Slot::EMPTY; 100]).unwrap();
    assert_eq!(e.capacity(), 100);
    // a post that is not due yet; the value drops: the run waits too
    queue(&mut e, 30, 99);
    let mut got = vec![first.threshold];
    while let Some(f) = e.pop_ready(4) {
        got.push(f.threshold);
    }
    assert_eq!(e.peek_min_threshold(), Some(5));
    while let Some(f) = e.pop_ready(12) {
        got.push(f.threshold);
    }
    assert_eq!(e.held(), e.len());
    let mut want: Vec<u64> = (0..40).map(|i| (i * 17) % 23 + 1).filter(|&t| t <= 12).collect();
    want.sort();
    want.remove(want.iter().position(|&t| t == 6).unwrap());
    assert_eq!(got, want);
    // the whole heap was sorted: what is not due yet waits in the run
    assert_eq!(e.run_len(), 40 - want.len() - 1);
    let rest = drain(&mut e, 30);
    // 41 posted, want.len() fired, one cancelled
    assert_eq!(rest.len(), 41 - want.len() - 1);
    assert!(e.is_empty());
}

#[test]
fn live_handle_names_only_pending_operations() {
    use kfi_trigger_logic::engine::{Engine, Slot};
    let mut e = Engine::new(vec![Slot::default(); 8]);
    let h = e.post(5, 50, 0).unwrap().handle().unwrap();
    let (slot, _) = h.to_raw();
    assert_eq!(e.live_handle(slot), Some(h));
    // free slots and out-of-range slots name nothing
    assert_eq!(e.live_handle(slot + 1), None);
    assert_eq!(e.live_handle(100), None);
    assert_eq!(e.cancel(h), Some(50));
    assert_eq!(e.live_handle(slot), None);
    // a reused slot names the new operation
    let h2 = e.post(7, 70, 0).unwrap().handle().unwrap();
    if h2.to_raw().0 == slot {
        assert_eq!(e.live_handle(slot), Some(h2));
        assert_ne!(h2.seq(), h.seq());
    }
    let f = e.pop_ready(7).unwrap();
    assert_eq!(f.token, 70);
    assert_eq!(e.live_handle(h2.to_raw().0), None);
}

#[test]
fn find_by_token_sees_heap_and_run_but_not_dead() {
    let mut e = Engine::new(vec![Slot::default(); 64]);
    e.set_batch_min(1);
    let hs: Vec<Handle> = (0..20u64).map(|i| e.post(10 + i, 100 + i, 0).unwrap().handle().unwrap()).collect();
    assert_eq!(e.find(|t| t == 105), Some(hs[5]));
    assert_eq!(e.find(|t| t == 999), None);
    // a jump sorts the due part into the run; find still sees it
    assert_eq!(e.pop_ready(25).unwrap().token, 100);
    assert!(e.run_len() > 0);
    assert_eq!(e.find(|t| t == 110), Some(hs[10]));
    assert_eq!(e.cancel(hs[10]), Some(110));
    assert_eq!(e.find(|t| t == 110), None);
}

#[test]
fn token_ring_is_a_fifo_with_push_front_and_growth() {
    let mut r = TokenRing::new(vec![0u64; 3]);
    assert!(r.is_empty());
    r.push_back(1).unwrap();
    r.push_back(2).unwrap();
    r.push_back(3).unwrap();
    assert_eq!(r.push_back(4), Err(RingFull));
    assert_eq!(r.pop_front(), Some(1));
    r.push_back(4).unwrap(); // wraps
    assert_eq!(r.pop_front(), Some(2));
    r.push_front(9).unwrap();
    assert_eq!(r.len(), 3);
    assert!(r.replace_storage(vec![0u64; 2]).is_err());
    r.replace_storage(vec![0u64; 8]).unwrap();
    r.push_back(5).unwrap();
    let got: Vec<u64> = std::iter::from_fn(|| r.pop_front()).collect();
    assert_eq!(got, vec![9, 3, 4, 5]);
    assert_eq!(r.pop_front(), None);
}

#[test]
fn posts_after_the_run_interleave_with_it() {
    let mut e = engine(64);
    e.set_batch_min(0);
    for t in [10u64, 20, 30, 40] {
        queue(&mut e, t, t);
    }
    // the first due pop sorts everything, due or not, into the run
    assert_eq!(e.pop_ready(10).unwrap().token, 10);
    assert_eq!(e.run_len(), 3);
    // later posts go into the heap, before, between and after run entries
    // (equal thresholds after the earlier post)
    for t in [15u64, 20, 35, 50] {
        queue(&mut e, t, t + 1000);
    }
    let got: Vec<u64> = std::iter::from_fn(|| e.pop_ready(100).map(|f| f.token)).collect();
    assert_eq!(got, [1015, 20, 1020, 30, 1035, 40, 1050]);
    assert!(e.is_empty());
    assert_eq!(e.held(), 0);
}

#[test]
fn cancelling_most_of_the_run_gives_the_slots_back() {
    let mut e = engine(16);
    e.set_batch_min(0);
    let hs: Vec<Handle> = (1..=16u64).map(|t| queue(&mut e, t, t)).collect();
    assert!(e.is_full());
    assert_eq!(e.pop_ready(1).unwrap().token, 1);
    assert_eq!(e.run_len(), 15);
    // cancel 16, 14, ..., 4 from the back: dead entries may hold up to
    // half the run's slots...
    for h in hs[3..].iter().rev().step_by(2) {
        assert!(e.cancel(*h).is_some());
        assert_eq!(e.audit(), Ok(()));
    }
    assert_eq!((e.len(), e.held()), (8, 15));
    // ...and one more compacts it
    assert_eq!(e.cancel(hs[14]), Some(15));
    assert_eq!(e.audit(), Ok(()));
    assert_eq!((e.len(), e.held(), e.run_len()), (7, 7, 7));
    // the freed slots are reusable; order and handles survive compaction
    while !e.is_full() {
        queue(&mut e, 100, 0);
    }
    assert_eq!(e.audit(), Ok(()));
    for t in [2u64, 3, 5, 7, 9, 11, 13] {
        assert_eq!(e.threshold(hs[t as usize - 1]), Some(t));
    }
    let got: Vec<u64> = std::iter::from_fn(|| e.pop_ready(16).map(|f| f.token)).collect();
    assert_eq!(got, [2, 3, 5, 7, 9, 11, 13]);
}
