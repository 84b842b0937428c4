// SPDX-License-Identifier: GPL-2.0
//! kfi_trigger/engine.rs against trivial reference models: random
//! sequences of posts, increments (jumps, adds of 0, wrapping adds), sets
//! to lower values, partial and full drains, cancels (stale handles
//! included) and storage growth must fire exactly what the model fires, in
//! the same order.
//!
//! The sorted run (big jumps) only engages from `BATCH_MIN` due operations
//! by default; the property tests lower that with `set_batch_min` so that
//! small cases exercise it constantly, and `soak_default_tuning` runs the
//! default tuning at sizes that engage it, against a `BTreeMap` model.

use kfi_trigger_logic::engine::*;
use proptest::prelude::*;
use std::collections::{BTreeMap, HashMap};

/// The reference: pending operations in a plain list, scanned for the
/// earliest `(key, seq)` on every pop.
#[derive(Default)]
struct Model {
    /// `(key threshold, seq, token, handle)`.
    ops: Vec<(u64, u64, u64, Handle)>,
    next_seq: u64,
}

impl Model {
    fn earliest(&self) -> Option<usize> {
        (0..self.ops.len()).min_by_key(|&i| (self.ops[i].0, self.ops[i].1))
    }
    fn min_threshold(&self) -> Option<u64> {
        self.earliest().map(|i| self.ops[i].0)
    }
    fn has_ready(&self, v: u64) -> bool {
        self.ops.iter().any(|o| o.0 <= v)
    }
    fn pop_ready(&mut self, v: u64) -> Option<Fired> {
        let i = self.earliest().filter(|&i| self.ops[i].0 <= v)?;
        let (threshold, _, token, handle) = self.ops.remove(i);
        Some(Fired { handle, threshold, token })
    }
    fn cancel(&mut self, h: Handle) -> Option<u64> {
        let i = self.ops.iter().position(|o| o.3 == h)?;
        Some(self.ops.remove(i).2)
    }
    fn threshold(&self, h: Handle) -> Option<u64> {
        self.ops.iter().find(|o| o.3 == h).map(|o| o.0)
    }
}

#[derive(Debug, Clone)]
enum Thr {
    /// value + d (saturating; d may be negative)
    Rel(i8),
    /// a small absolute threshold (lots of ties)
    Abs(u8),
    /// u64::MAX - d
    NearMax(u8),
}

#[derive(Debug, Clone)]
enum Op {
    Post(Thr, u64),
    Add(u64),
    AddErr(u64),
    Set(u64),
    SetErr(u64),
    /// pop until nothing is due
    Drain,
    /// pop at most n
    DrainSome(u8),
    PopMin,
    /// cancel the i-th handle ever issued (modulo), live or stale
    Cancel(usize),
    /// a handle that was never issued
    CancelBogus(u32, u64),
    Grow(u8),
}

fn amount() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        1u64..4,
        4u64..200,
        (0u8..8).prop_map(|d| u64::MAX - u64::from(d)),
        any::<u64>(),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let thr = prop_oneof![
        4 => any::<i8>().prop_map(Thr::Rel),
        2 => (0u8..20).prop_map(Thr::Abs),
        1 => (0u8..4).prop_map(Thr::NearMax),
    ];
    prop_oneof![
        12 => (thr, any::<u64>()).prop_map(|(t, k)| Op::Post(t, k)),
        4 => amount().prop_map(Op::Add),
        1 => amount().prop_map(Op::AddErr),
        1 => amount().prop_map(Op::Set),
        1 => amount().prop_map(Op::SetErr),
        3 => Just(Op::Drain),
        2 => (0u8..5).prop_map(Op::DrainSome),
        1 => Just(Op::PopMin),
        3 => any::<usize>().prop_map(Op::Cancel),
        1 => (any::<u32>(), any::<u64>()).prop_map(|(s, q)| Op::CancelBogus(s, q)),
        1 => (0u8..8).prop_map(Op::Grow),
    ]
}

fn threshold(t: &Thr, v: u64) -> u64 {
    match *t {
        Thr::Rel(d) => v.saturating_add_signed(i64::from(d)),
        Thr::Abs(a) => u64::from(a),
        Thr::NearMax(d) => u64::MAX - u64::from(d),
    }
}

/// Checks everything observable that does not change the state.
fn check_state(e: &Engine<Vec<Slot>>, m: &Model, v: u64) -> Result<(), TestCaseError> {
    prop_assert_eq!(e.len(), m.ops.len());
    prop_assert_eq!(e.is_empty(), m.ops.is_empty());
    prop_assert_eq!(e.peek_min_threshold(), m.min_threshold());
    prop_assert_eq!(e.has_ready(v), m.has_ready(v));
    prop_assert!(e.held() >= e.len() && e.held() <= e.capacity());
    // Slots beyond len() are only held by cancelled run entries.
    prop_assert!(e.held() == e.len() || e.run_len() > 0);
    prop_assert_eq!(e.is_full(), e.held() == e.capacity());
    prop_assert_eq!(e.storage().len(), e.capacity());
    prop_assert_eq!(e.audit(), Ok(()));
    Ok(())
}

fn run(cap: usize, batch_min: usize, ops: Vec<Op>) -> Result<(), TestCaseError> {
    let mut e = Engine::new(vec![Slot::EMPTY; cap]);
    e.set_batch_min(batch_min);
    let mut m = Model::default();
    let mut c = Counter::new();
    let mut handles: Vec<Handle> = Vec::new();
    for o in ops {
        let v = c.trigger_value();
        match o {
            Op::Post(t, token) => {
                let t = threshold(&t, v);
                let full = e.is_full();
                let got = e.post(t, token, v);
                let key = if t > v {
                    t
                } else if m.has_ready(v) {
                    v
                } else {
                    // Fires now: never needs a slot.
                    prop_assert_eq!(got, Ok(PostOutcome::FireNow));
                    continue;
                };
                if full {
                    prop_assert_eq!(got, Err(Full));
                    continue;
                }
                let h = match got {
                    Ok(PostOutcome::Queued(h)) if t > v => h,
                    Ok(PostOutcome::QueuedReady(h)) if t <= v => h,
                    other => return Err(TestCaseError::fail(format!("post {t} at {v}: {other:?}"))),
                };
                prop_assert_eq!(h.seq(), m.next_seq);
                m.next_seq += 1;
                m.ops.push((key, h.seq(), token, h));
                prop_assert_eq!(e.threshold(h), Some(key));
                handles.push(h);
            }
            Op::Add(n) => {
                c.add(n);
            }
            Op::AddErr(n) => {
                c.add_err(n);
            }
            Op::Set(n) => {
                c.set(n);
            }
            Op::SetErr(n) => {
                c.set_err(n);
            }
            Op::Drain => loop {
                let (got, want) = (e.pop_ready(v), m.pop_ready(v));
                prop_assert_eq!(got, want);
                if got.is_none() {
                    break;
                }
            },
            Op::DrainSome(n) => {
                for _ in 0..n {
                    prop_assert_eq!(e.pop_ready(v), m.pop_ready(v));
                }
            }
            Op::PopMin => {
                prop_assert_eq!(e.pop_min(), m.pop_ready(u64::MAX));
            }
            Op::Cancel(i) => {
                if !handles.is_empty() {
                    let h = handles[i % handles.len()];
                    prop_assert_eq!(e.cancel(h), m.cancel(h));
                    prop_assert_eq!(e.threshold(h), None);
                }
            }
            Op::CancelBogus(slot, seq) => {
                let h = Handle::from_raw(slot, seq);
                prop_assert_eq!(e.threshold(h), m.threshold(h));
                prop_assert_eq!(e.cancel(h), m.cancel(h));
            }
            Op::Grow(extra) => {
                let shorter = vec![Slot::EMPTY; e.capacity().saturating_sub(1)];
                if e.capacity() > 0 {
                    prop_assert!(e.replace_storage(shorter).is_err());
                }
                let old = e.replace_storage(vec![Slot::EMPTY; e.capacity() + usize::from(extra)]);
                prop_assert!(old.is_ok());
                // every live handle survives the move
                for o in &m.ops {
                    prop_assert_eq!(e.threshold(o.3), Some(o.0));
                }
            }
        }
        check_state(&e, &m, c.trigger_value())?;
    }
    // Flush: everything left comes out in order.
    loop {
        let (got, want) = (e.pop_min(), m.pop_ready(u64::MAX));
        prop_assert_eq!(got, want);
        if got.is_none() {
            break;
        }
    }
    prop_assert_eq!(e.held(), 0);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Small storage (Full is common), run engaged from 0..6 due ops.
    #[test]
    fn matches_model_small(cap in 0usize..12, batch_min in 0usize..6, ops in proptest::collection::vec(op(), 0..300)) {
        run(cap, batch_min, ops)?;
    }

    /// Roomier storage; with the default tuning the run never engages.
    #[test]
    fn matches_model_roomy(cap in 12usize..80, batch_min in prop_oneof![0usize..40, Just(BATCH_MIN)], ops in proptest::collection::vec(op(), 0..400)) {
        run(cap, batch_min, ops)?;
    }

    /// The kernel's usage: drain completely after every change of the
    /// value. Then nothing is ever `QueuedReady`, and the fired sequence is
    /// the plain rule: at each change, everything due in `(threshold, post
    /// order)`; a post already met fires at once.
    #[test]
    fn full_drains_fire_in_threshold_order(
        batch_min in prop_oneof![0usize..4, Just(BATCH_MIN)],
        steps in proptest::collection::vec((proptest::collection::vec((0u64..60, any::<bool>()), 0..12), 0u64..25, any::<bool>()), 0..60),
    ) {
        let mut e = Engine::new(vec![Slot::EMPTY; 1000]);
        e.set_batch_min(batch_min);
        // (threshold, post number)
        let mut pending: Vec<(u64, u64)> = Vec::new();
        let mut posted = 0u64;
        let mut value = 0u64;
        let (mut fired, mut want) = (Vec::new(), Vec::new());
        for (posts, delta, lower) in steps {
            for (rel, abs) in posts {
                let t = if abs { rel } else { value + rel };
                match e.post(t, posted, value).unwrap() {
                    PostOutcome::FireNow => fired.push(posted),
                    PostOutcome::Queued(_) => pending.push((t, posted)),
                    PostOutcome::QueuedReady(h) => {
                        return Err(TestCaseError::fail(format!("QueuedReady {h:?} after a full drain")))
                    }
                }
                if t <= value {
                    want.push(posted);
                }
                posted += 1;
            }
            value = if lower { value.saturating_sub(delta) } else { value + delta };
            while let Some(f) = e.pop_ready(value) {
                fired.push(f.token);
            }
            let mut due: Vec<(u64, u64)> = pending.iter().copied().filter(|&(t, _)| t <= value).collect();
            pending.retain(|&(t, _)| t > value);
            due.sort();
            want.extend(due.iter().map(|&(_, p)| p));
            prop_assert_eq!(&fired, &want);
        }
    }
}

/// xorshift64: deterministic randomness for the soak test.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Default tuning at sizes where big jumps engage the sorted run, with
/// cancels inside the run, posts while it drains, partial drains, value
/// drops and growth; against a `BTreeMap` model.
#[test]
fn soak_default_tuning() {
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    let mut e = Engine::new(vec![Slot::EMPTY; 1024]);
    // key -> (token, handle); handle -> key
    let mut model: BTreeMap<(u64, u64), (u64, Handle)> = BTreeMap::new();
    let mut keys: HashMap<Handle, (u64, u64)> = HashMap::new();
    let mut handles: Vec<Handle> = Vec::new();
    let mut value = 0u64;
    let mut runs_seen = 0;
    let pop = |e: &mut Engine<Vec<Slot>>, model: &mut BTreeMap<_, _>, keys: &mut HashMap<_, _>, v: u64| {
        let got = e.pop_ready(v);
        let want = match model.first_key_value() {
            Some((&(t, q), &(token, handle))) if t <= v => {
                model.remove(&(t, q));
                keys.remove(&handle);
                Some(Fired { handle, threshold: t, token })
            }
            _ => None,
        };
        assert_eq!(got, want, "value {v}");
        got.is_some()
    };
    for round in 0..12 {
        // Post a batch of operations ahead of the value.
        let n = 2_000 + r.below(14_000);
        let spread = 1 + r.below(2 * n);
        for _ in 0..n {
            let t = value + 1 + r.below(spread);
            let token = r.next();
            let out = match e.post(t, token, value) {
                Err(Full) => {
                    assert!(e.is_full());
                    let bigger = vec![Slot::EMPTY; e.capacity() * 2];
                    e.replace_storage(bigger).unwrap();
                    e.post(t, token, value).unwrap()
                }
                Ok(o) => o,
            };
            let h = out.handle().unwrap();
            model.insert((t, h.seq()), (token, h));
            keys.insert(h, (t, h.seq()));
            handles.push(h);
        }
        // Jump: sometimes past everything, sometimes part way.
        value += match round % 3 {
            0 => spread + 1,
            1 => spread / 2,
            _ => spread / 6,
        };
        // Drain a part, then mix cancels (many land in the run), posts of
        // already-due operations, and drops of the value.
        for _ in 0..r.below(500) {
            pop(&mut e, &mut model, &mut keys, value);
        }
        if e.run_len() > 0 {
            runs_seen += 1;
        }
        for _ in 0..300 {
            match r.below(4) {
                0 => {
                    let h = handles[r.below(handles.len() as u64) as usize];
                    let want = keys.remove(&h).map(|k| model.remove(&k).unwrap().0);
                    assert_eq!(e.cancel(h), want);
                }
                1 => {
                    let t = value.saturating_sub(r.below(50));
                    let token = r.next();
                    match e.post(t, token, value).unwrap() {
                        PostOutcome::FireNow => assert!(model.first_key_value().is_none_or(|(k, _)| k.0 > value)),
                        PostOutcome::QueuedReady(h) => {
                            model.insert((value, h.seq()), (token, h));
                            keys.insert(h, (value, h.seq()));
                            handles.push(h);
                        }
                        PostOutcome::Queued(h) => panic!("{h:?} queued at {t} <= {value}"),
                    }
                }
                2 => {
                    pop(&mut e, &mut model, &mut keys, value);
                }
                _ => {
                    // a lower value pops nothing it should not
                    let low = value.saturating_sub(r.below(spread + 1));
                    pop(&mut e, &mut model, &mut keys, low);
                }
            }
        }
        assert_eq!(e.len(), model.len());
        assert_eq!(e.audit(), Ok(()));
        if round % 4 == 3 {
            // Drain everything due.
            while pop(&mut e, &mut model, &mut keys, value) {}
        }
    }
    while pop(&mut e, &mut model, &mut keys, u64::MAX) {}
    assert!(e.is_empty());
    assert_eq!(e.held(), 0);
    assert!(runs_seen >= 4, "the sorted run engaged in only {runs_seen} rounds");
}
