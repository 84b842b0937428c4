// SPDX-License-Identifier: GPL-2.0
//! Throughput of the trigger engine against two naive designs.
//!
//! ```text
//! cargo run --release -p kfi-trigger-logic --bin trigger-bench
//! ```
//!
//! Workload, for each N in 1 k, 100 k, 1 M: thresholds drawn uniformly from
//! `1..=N` (so about a third of them are shared by several operations),
//! counter value starting at 0. Columns:
//! - **post**: N posts from empty, ops/s = N / time;
//! - **fire (jump)**: with N pending, one value jump to N makes everything
//!   due; ops/s = N / time to pop them all in order;
//! - **fire (+1)**: with N pending, the value goes 1, 2, ..., N and each
//!   step pops what became due; ops/s = N / time.
//!
//! Rows: **engine** as the module uses it; **engine, heap only** with the
//! sorted run turned off (`set_batch_min(usize::MAX)`), which is what any
//! single pop costs; and two baselines, implemented only here, both firing
//! in the correct `(threshold, seq)` order:
//! - **unsorted list** (the design of libfabric's sockets provider): posts
//!   append; every counter update scans the whole list for due operations,
//!   and picking the earliest due one is another scan;
//! - **sorted list**: a linked list kept in fire order, nodes allocated in
//!   post order (so a walk jumps around memory, as kernel list nodes do);
//!   a post walks from the head (O(n)), a fire takes the head.
//!
//! Their O(n)-per-operation columns cannot run to completion at 100 k and
//! 1 M (hours). Since the cost of one such operation is linear in the
//! number pending, the average over a whole run (the list growing from 0
//! to N, or shrinking from N to 0) equals the cost at N/2 pending: those
//! cells (marked `~`) are measured over a sample of operations at N/2
//! pending, on a list built untimed to that size, and extrapolated as
//! N / (per-operation time × N). Unmarked cells are full runs.

use kfi_trigger_logic::engine::{Engine, PostOutcome, Slot, BATCH_MIN};
use std::hint::black_box;
use std::time::{Duration, Instant};

const SIZES: [usize; 3] = [1_000, 100_000, 1_000_000];
/// Time each sampled (`~`) cell may spend.
const SAMPLE_BUDGET: Duration = Duration::from_millis(400);
/// Engine cells are the best of this many runs.
const REPEAT: usize = 3;

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    /// Uniform-enough in `1..=n`.
    fn threshold(&mut self, n: usize) -> u64 {
        self.next() % n as u64 + 1
    }
}

fn thresholds(n: usize, seed: u64) -> Vec<u64> {
    let mut r = XorShift(seed);
    (0..n).map(|_| r.threshold(n)).collect()
}

/// A measured or extrapolated rate.
#[derive(Clone, Copy)]
struct Rate {
    ops_per_s: f64,
    estimated: bool,
}

impl Rate {
    fn full(ops: usize, t: Duration) -> Self {
        Rate { ops_per_s: ops as f64 / t.as_secs_f64(), estimated: false }
    }
    fn sampled(ops: usize, t: Duration) -> Self {
        Rate { ops_per_s: ops as f64 / t.as_secs_f64(), estimated: true }
    }
    fn best(self, other: Rate) -> Rate {
        if other.ops_per_s > self.ops_per_s {
            other
        } else {
            self
        }
    }
}

impl std::fmt::Display for Rate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let v = self.ops_per_s;
        let s = if v >= 1e6 {
            format!("{:.1} M", v / 1e6)
        } else if v >= 1e3 {
            format!("{:.1} k", v / 1e3)
        } else {
            format!("{:.0}", v)
        };
        write!(f, "{}{}", if self.estimated { "~" } else { "" }, s)
    }
}

// ---------------------------------------------------------------- engine

fn engine_filled(thr: &[u64], batch_min: usize) -> Engine<Vec<Slot>> {
    let mut e = Engine::new(vec![Slot::EMPTY; thr.len()]);
    e.set_batch_min(batch_min);
    for (i, &t) in thr.iter().enumerate() {
        e.post(t, i as u64, 0).unwrap();
    }
    e
}

fn engine_post(thr: &[u64]) -> Rate {
    let mut e = Engine::new(vec![Slot::EMPTY; thr.len()]);
    let t0 = Instant::now();
    for (i, &t) in thr.iter().enumerate() {
        match e.post(t, i as u64, 0) {
            Ok(PostOutcome::Queued(h)) => {
                black_box(h);
            }
            other => panic!("{other:?}"),
        }
    }
    let r = Rate::full(thr.len(), t0.elapsed());
    assert_eq!(e.len(), thr.len());
    r
}

fn engine_fire_jump(thr: &[u64], batch_min: usize) -> Rate {
    let mut e = engine_filled(thr, batch_min);
    let n = thr.len();
    let t0 = Instant::now();
    let mut sum = 0u64;
    while let Some(f) = e.pop_ready(n as u64) {
        sum = sum.wrapping_add(f.token);
    }
    let r = Rate::full(n, t0.elapsed());
    black_box(sum);
    assert!(e.is_empty());
    r
}

fn engine_fire_step(thr: &[u64], batch_min: usize) -> Rate {
    let mut e = engine_filled(thr, batch_min);
    let n = thr.len();
    let t0 = Instant::now();
    let mut sum = 0u64;
    for v in 1..=n as u64 {
        while let Some(f) = e.pop_ready(v) {
            sum = sum.wrapping_add(f.token);
        }
    }
    let r = Rate::full(n, t0.elapsed());
    black_box(sum);
    assert!(e.is_empty());
    r
}

/// The longest single `pop_ready` call in a fire (+1) run: the one that
/// sorts the heap into the run (what a counter update holding the lock for
/// that call costs at worst).
fn engine_longest_pop(thr: &[u64]) -> Duration {
    let mut e = engine_filled(thr, BATCH_MIN);
    let mut longest = Duration::ZERO;
    for v in 1..=thr.len() as u64 {
        loop {
            let t0 = Instant::now();
            let f = e.pop_ready(v);
            longest = longest.max(t0.elapsed());
            if black_box(f).is_none() {
                break;
            }
        }
    }
    longest
}

// ------------------------------------------------- baseline: unsorted list

/// Operations in post order; `(threshold, seq, token)`.
struct Unsorted {
    ops: Vec<(u64, u64, u64)>,
    seq: u64,
}

impl Unsorted {
    fn new() -> Self {
        Unsorted { ops: Vec::new(), seq: 0 }
    }
    fn post(&mut self, t: u64, token: u64) {
        self.ops.push((t, self.seq, token));
        self.seq += 1;
    }
    /// One scan: the earliest due operation, if any.
    fn pop_ready(&mut self, v: u64) -> Option<u64> {
        let mut best: Option<(usize, u64, u64)> = None;
        for (i, &(t, s, _)) in self.ops.iter().enumerate() {
            if t <= v && best.is_none_or(|(_, bt, bs)| (t, s) < (bt, bs)) {
                best = Some((i, t, s));
            }
        }
        let (i, _, _) = best?;
        // Order among the rest is kept by seq, not by position.
        Some(self.ops.swap_remove(i).2)
    }
}

fn unsorted_filled(thr: &[u64]) -> Unsorted {
    let mut u = Unsorted::new();
    for (i, &t) in thr.iter().enumerate() {
        u.post(t, i as u64);
    }
    u
}

fn unsorted_post(thr: &[u64]) -> Rate {
    let t0 = Instant::now();
    let u = unsorted_filled(thr);
    let r = Rate::full(thr.len(), t0.elapsed());
    black_box(u.ops.len());
    r
}

/// `step`: the value rises by 1 per update, else one jump to N. Full run at
/// 1 k; otherwise sampled at N/2 pending (see the file's documentation).
fn unsorted_fire(thr: &[u64], step: bool) -> Rate {
    let n = thr.len();
    let full = n <= 1_000;
    // The sample list: N/2 thresholds from 1..=N/2, so that the +1 steps
    // find the same density of due operations (one per step) as a full run.
    let half;
    let mut u = unsorted_filled(if full {
        thr
    } else {
        half = thresholds(n / 2, 0x5eed);
        &half
    });
    let mut sum = 0u64;
    let mut fired = 0usize;
    let t0 = Instant::now();
    if step {
        // The cost counted is per fired operation, as in the full run.
        for v in 1..=n as u64 {
            while let Some(tok) = u.pop_ready(v) {
                sum = sum.wrapping_add(tok);
                fired += 1;
            }
            if !full && t0.elapsed() > SAMPLE_BUDGET {
                break;
            }
        }
    } else {
        while let Some(tok) = u.pop_ready(n as u64) {
            sum = sum.wrapping_add(tok);
            fired += 1;
            if !full && t0.elapsed() > SAMPLE_BUDGET {
                break;
            }
        }
    }
    let t = t0.elapsed();
    black_box(sum);
    if full {
        assert_eq!(fired, n);
        Rate::full(n, t)
    } else {
        Rate::sampled(fired, t)
    }
}

// --------------------------------------------------- baseline: sorted list

const END: u32 = u32::MAX;

/// Singly linked list in `(threshold, seq)` order over an arena whose
/// index is the post order.
struct SortedList {
    nodes: Vec<Node>,
    head: u32,
    seq: u64,
}

struct Node {
    t: u64,
    seq: u64,
    token: u64,
    next: u32,
}

impl SortedList {
    fn new() -> Self {
        SortedList { nodes: Vec::new(), head: END, seq: 0 }
    }

    fn post(&mut self, t: u64, token: u64) {
        let seq = self.seq;
        self.seq += 1;
        let me = self.nodes.len() as u32;
        // Walk to the last node that fires before the new one (every node
        // already there has a smaller seq, so "<= t" means "before").
        let mut prev = END;
        let mut cur = self.head;
        while cur != END && self.nodes[cur as usize].t <= t {
            prev = cur;
            cur = self.nodes[cur as usize].next;
        }
        self.nodes.push(Node { t, seq, token, next: cur });
        if prev == END {
            self.head = me;
        } else {
            self.nodes[prev as usize].next = me;
        }
    }

    fn pop_ready(&mut self, v: u64) -> Option<u64> {
        let h = self.head;
        if h == END || self.nodes[h as usize].t > v {
            return None;
        }
        let n = &self.nodes[h as usize];
        self.head = n.next;
        Some(n.token)
    }

    /// The list `post` would build from `thr`, built in O(n log n): nodes
    /// in post order, links in fire order.
    fn bulk(thr: &[u64]) -> Self {
        let mut l = SortedList::new();
        l.nodes = thr.iter().enumerate().map(|(i, &t)| Node { t, seq: i as u64, token: i as u64, next: END }).collect();
        l.seq = thr.len() as u64;
        let mut order: Vec<u32> = (0..thr.len() as u32).collect();
        order.sort_by_key(|&i| (l.nodes[i as usize].t, l.nodes[i as usize].seq));
        for w in order.windows(2) {
            l.nodes[w[0] as usize].next = w[1];
        }
        l.head = order.first().copied().unwrap_or(END);
        l
    }
}

/// Full run at 1 k; otherwise sampled posts onto a list of N/2.
fn sorted_post(thr: &[u64]) -> Rate {
    let n = thr.len();
    if n <= 1_000 {
        let t0 = Instant::now();
        let mut l = SortedList::new();
        for (i, &t) in thr.iter().enumerate() {
            l.post(t, i as u64);
        }
        let r = Rate::full(n, t0.elapsed());
        black_box(l.head);
        return r;
    }
    let mut l = SortedList::bulk(&thr[..n / 2]);
    let mut r = XorShift(0x5eed);
    let mut posted = 0;
    let t0 = Instant::now();
    while posted < n / 2 && t0.elapsed() < SAMPLE_BUDGET {
        l.post(r.threshold(n), posted as u64);
        posted += 1;
    }
    let rate = Rate::sampled(posted, t0.elapsed());
    black_box(l.head);
    rate
}

fn sorted_fire(thr: &[u64], step: bool) -> Rate {
    let n = thr.len();
    let mut l = SortedList::bulk(thr);
    let mut sum = 0u64;
    let t0 = Instant::now();
    if step {
        for v in 1..=n as u64 {
            while let Some(tok) = l.pop_ready(v) {
                sum = sum.wrapping_add(tok);
            }
        }
    } else {
        while let Some(tok) = l.pop_ready(n as u64) {
            sum = sum.wrapping_add(tok);
        }
    }
    let r = Rate::full(n, t0.elapsed());
    black_box(sum);
    assert_eq!(l.head, END);
    r
}

// ------------------------------------------------------------------ main

fn best_of(f: impl Fn() -> Rate) -> Rate {
    (1..REPEAT).fold(f(), |b, _| b.best(f()))
}

fn main() {
    if cfg!(debug_assertions) {
        eprintln!("note: debug build; use --release for meaningful numbers");
    }
    println!("trigger engine vs naive designs (ops/s; ~ = extrapolated from a sample, see bench/main.rs)");
    println!();
    println!("| {:<17} | {:>9} | {:>10} | {:>12} | {:>10} |", "structure", "pending", "post", "fire (jump)", "fire (+1)");
    println!("|{:-<19}|{:->11}|{:->12}|{:->14}|{:->12}|", "", ":", ":", ":", ":");
    let started = Instant::now();
    let mut longest = Vec::new();
    for &n in &SIZES {
        let thr = thresholds(n, 0x9e37_79b9_7f4a_7c15 ^ n as u64);
        let post = best_of(|| engine_post(&thr));
        let rows: [(&str, [Rate; 3]); 4] = [
            (
                "engine",
                [
                    post,
                    best_of(|| engine_fire_jump(&thr, BATCH_MIN)),
                    best_of(|| engine_fire_step(&thr, BATCH_MIN)),
                ],
            ),
            (
                "engine, heap only",
                [
                    post,
                    best_of(|| engine_fire_jump(&thr, usize::MAX)),
                    best_of(|| engine_fire_step(&thr, usize::MAX)),
                ],
            ),
            ("unsorted list", [unsorted_post(&thr), unsorted_fire(&thr, false), unsorted_fire(&thr, true)]),
            ("sorted list", [sorted_post(&thr), sorted_fire(&thr, false), sorted_fire(&thr, true)]),
        ];
        longest.push(format!("{:.0} µs at {} k", engine_longest_pop(&thr).as_secs_f64() * 1e6, n / 1000));
        for (name, [p, j, s]) in rows {
            let pending = format!("{} k", n / 1000);
            println!(
                "| {:<17} | {:>9} | {:>10} | {:>12} | {:>10} |",
                name,
                pending,
                p.to_string(),
                j.to_string(),
                s.to_string()
            );
        }
    }
    println!();
    println!("engine, longest single pop_ready in fire (+1) (the sort): {}", longest.join(", "));
    println!("total bench time: {:.1} s", started.elapsed().as_secs_f64());
}
