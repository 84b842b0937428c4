// SPDX-License-Identifier: GPL-2.0
//! The trigger engine's ordering core: one counter's set of pending
//! triggered operations, kept in fire order, over caller-provided storage.
//!
//! Written against `core` only (no allocation, no `unsafe`), so that the
//! same file is compiled into the kernel module and into the host crate
//! `host/kfi-trigger-logic`, where unit, property and benchmark runs
//! exercise exactly the code the module runs.
//!
//! # Rules (kfi_trigger(3), semantics.md "Triggered operations")
//! - An operation with threshold `t` is due once the counter's trigger value
//!   `v` satisfies `t <= v`. Values and thresholds are full `u64`s; nothing
//!   here adds to either, so `u64::MAX` is an ordinary threshold (due only
//!   at value `u64::MAX`).
//! - Due operations fire in ascending threshold order, even when the value
//!   jumps past several thresholds at once; equal thresholds fire in the
//!   order they were posted. The engine gives each posted operation a
//!   sequence number (`u64`, increasing per engine) and fires in
//!   `(threshold, seq)` order.
//! - A value that goes down (a counter `set` lower) makes nothing due; what
//!   is pending stays pending until the value reaches it again.
//!
//! # Storage: the caller's slots
//! Counter updates arrive from completion paths (softirq, CQ callbacks),
//! which must neither sleep nor allocate, and a counter may have a million
//! operations queued on it. So every operation lives in a [`Slot`] of a
//! slice the caller owns (a `KVVec` in the module: 32 bytes per slot, so
//! 32 MiB for a million, beyond kmalloc's reach), taken when it is posted;
//! [`Engine::post`] fails with [`Full`] instead of allocating, and the
//! caller grows the storage outside its lock and retries (see
//! [`Engine::replace_storage`]). Firing and cancelling never need space.
//!
//! Each slot does two jobs, index by index:
//! - the *slot role*: slot `i` is operation `i`'s identity. It holds the
//!   operation's current position, so an arbitrary operation is found (and
//!   cancelled) without a search;
//! - the *entry role*: position `p` holds one operation's sort key
//!   `(threshold, seq)`, token and slot index. Entries move as the order
//!   changes; slots never do, which is what keeps handles valid.
//!
//! Positions are laid out as `[heap | gap | run]` (the run is described
//! below). The gap has exactly as many positions as there are free slots,
//! and its entries name them: that is the free list. A post takes the
//! free slot named at the gap's first position and puts its entry there
//! (the heap grows by one); an entry leaving the heap's end or the run's
//! front leaves its own slot's name behind. So freeing a slot writes
//! nothing outside the entries already being touched.
//!
//! # Order: a heap, plus a sorted run
//! Positions `0..heap_len` form a 4-ary min-heap on `(threshold, seq)`.
//! The whole key sits in the entry, so sifting reads contiguous memory and
//! picks the earliest of four children without data-dependent branches.
//! Post and cancel are O(log n), and so is a pop.
//!
//! A pop from a heap of a million operations still costs a few cache and
//! TLB misses in its bottom levels (about 400 ns on the machine
//! `trigger-bench` ran on). So when a pop finds a due operation at the
//! root of a heap of at least [`BATCH_MIN`] entries, and the *sorted run*
//! at the top end of the storage is empty, the engine moves the whole heap
//! into the run and sorts it once (O(n log n), sequential memory access),
//! due or not; pops from the run then cost O(1) each. Every operation is
//! sorted into a run at most once, so that is O(log n) per operation
//! posted, and firing one at a time from a million pending runs about as
//! fast as firing them all after one jump. The price is that the one
//! `pop_ready` call that sorts takes O(n log n): about 55 ms for a million
//! pending operations, 4 ms for 100 000, none below [`BATCH_MIN`] (the
//! module calls it under the counter's lock; a caller that cannot afford
//! that turns it off with [`Engine::set_batch_min`]`(usize::MAX)`).
//!
//! A pop takes the earlier of the heap's root and the run's front. Posts
//! always go into the heap, so operations posted after the sort interleave
//! with the run by that comparison. Cancelling an entry in the run marks
//! it dead (O(1)); it keeps its slot until the run's front passes it, or
//! until dead entries are more than half the run, when the cancel compacts
//! the run (O(run), so O(1) amortized per cancel).
//!
//! # Handles
//! A [`Handle`] names an operation by `(slot index, seq)`. A slot is reused
//! after its operation fires or is cancelled, but the new operation has a
//! new seq, so a stale handle never matches it: cancel with a stale handle
//! returns `None` and touches nothing. (A handle from a *different* engine
//! may match; each counter's handles belong to that counter.)
//!
//! # How the module uses it
//! One `Engine` per counter, inside the counter's spinlock together with
//! the counter's values ([`Counter`]). Popped operations are issued outside
//! the lock, through one ordered issue list per counter, so that nothing
//! popped later overtakes them:
//! - post: under the lock, `post(threshold, token, counter.trigger_value())`.
//!   Taking the "already met?" decision in the same critical section as the
//!   insertion is what keeps an operation from being stranded (an increment
//!   between an unlocked check and the insertion would never see it).
//!   [`PostOutcome::FireNow`]: append to the issue list (still under the
//!   lock). [`Full`]: drop the lock, allocate storage twice as large, take
//!   the lock, [`Engine::replace_storage`] (unless another poster already
//!   grew it), post again; free the old storage after unlocking.
//! - increment: under the lock, update the value; if
//!   [`Engine::has_ready`], wake the issuer. The issuer takes the issue
//!   list's front, else `pop_ready(value)`, one operation per lock hold,
//!   and issues it with the lock dropped (issuing under the lock would
//!   deadlock when an operation's own completion increments the same
//!   counter). So the increment is O(1) however many it makes due.
//! - set (a value that may go down): first, under the lock,
//!   `while let Some(f) = pop_ready(old value)` append to the issue list,
//!   so what was due stays due; then update the value.
//! - cancel (CANCEL_WORK): under the lock, `cancel(handle)`; flush
//!   (FLUSH_WORK, counter close): `while let Some(f) = pop_min()`.

/// Slot indices are `u32`s below this.
const NIL: u32 = u32::MAX;

/// The seq of a cancelled entry waiting in the sorted run. Live seqs are
/// below `u64::MAX` (posting stops short of it), so no live entry and no
/// handle of a live operation carries it.
const DEAD: u64 = u64::MAX;

/// Children per heap node: four keep a million entries ten levels deep and
/// fit one node's children in two cache lines.
const ARITY: usize = 4;

/// Fewest heap entries worth sorting a run from (below this, popping from
/// the heap is as fast: it fits in the caches).
pub const BATCH_MIN: usize = 4096;

/// The most slots one engine uses: slot indices are `u32`s below
/// `u32::MAX`. Storage beyond this is ignored.
pub const MAX_SLOTS: usize = NIL as usize;

/// One unit of engine storage; see the module documentation for the two
/// roles each slot plays. Contents are private: the caller only allocates
/// slots (`Slot::default()` or [`Slot::EMPTY`]) and hands them over.
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    /// Entry role: threshold of the operation at this position.
    e_threshold: u64,
    /// Entry role: its seq ([`DEAD`] for a cancelled run entry).
    e_seq: u64,
    /// Entry role: its token.
    e_token: u64,
    /// Entry role: its slot index.
    e_slot: u32,
    /// Slot role: position of this slot's operation while it has one;
    /// meaningless while the slot is free.
    s_link: u32,
}

// The layout the module documentation (and the cache-line arithmetic of
// ARITY) counts on.
const _: () = assert!(core::mem::size_of::<Slot>() == 32);

impl Slot {
    /// An unused slot.
    pub const EMPTY: Slot = Slot { e_threshold: 0, e_seq: 0, e_token: 0, e_slot: NIL, s_link: NIL };
}

impl Default for Slot {
    fn default() -> Self {
        Slot::EMPTY
    }
}

/// Names one posted operation (see "Handles" in the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Handle {
    slot: u32,
    seq: u64,
}

impl Handle {
    /// The operation's submission sequence number; equal thresholds fire in
    /// increasing seq order.
    pub fn seq(self) -> u64 {
        self.seq
    }

    /// The handle as two integers, for storing it in the caller's own
    /// descriptor (e.g. a triggered context's reserved words).
    pub fn to_raw(self) -> (u32, u64) {
        (self.slot, self.seq)
    }

    /// Rebuilds a handle from [`Handle::to_raw`]. Any pair is harmless: one
    /// that names no live operation is simply not found.
    pub fn from_raw(slot: u32, seq: u64) -> Self {
        Handle { slot, seq }
    }
}

/// What [`Engine::post`] decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PostOutcome {
    /// The threshold is met and no queued operation is due: this one is
    /// first in line. It was *not* queued (it used no slot); the caller
    /// issues it now, in order with anything it popped earlier.
    FireNow,
    /// Queued; not due at the value given.
    Queued(Handle),
    /// The threshold is met, but due operations are still queued (the caller
    /// drained only part of them). Queued behind them, and before anything
    /// not yet due; the caller pops it with [`Engine::pop_ready`] in turn.
    QueuedReady(Handle),
}

impl PostOutcome {
    /// The handle, unless the operation fires at once.
    pub fn handle(self) -> Option<Handle> {
        match self {
            PostOutcome::FireNow => None,
            PostOutcome::Queued(h) | PostOutcome::QueuedReady(h) => Some(h),
        }
    }
}

/// Every usable slot holds an operation (-EAGAIN to the caller's retry
/// path: grow the storage, then post again). Nothing was changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Full;

/// An operation taken out of the engine because it is due (or flushed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fired {
    /// Its handle (now stale).
    pub handle: Handle,
    /// The threshold it was ordered by: the one it was posted with, or the
    /// counter value at the time if it was posted already due behind other
    /// due operations ([`PostOutcome::QueuedReady`]).
    pub threshold: u64,
    /// The caller's token.
    pub token: u64,
}

/// The pending set of one counter. See the module documentation.
///
/// # Invariants
/// `cap` is the storage length (at most [`MAX_SLOTS`]); positions and
/// slots are both `0..cap`.
/// - `heap_len <= run_start <= cap`. Positions `0..heap_len` (the heap)
///   satisfy the 4-ary min-heap property on `(e_threshold, e_seq)`;
///   positions `run_start..cap` (the run) are in ascending
///   `(e_threshold, e_seq)` order among live entries, and the run's first
///   entry, if any, is live.
/// - Every heap and run entry names a distinct slot (in use) whose
///   `s_link` is the entry's position. Each gap position
///   (`heap_len..run_start`) names, in `e_slot` only, a distinct free slot;
///   together they name every free slot.
/// - `dead` run entries have `e_seq == DEAD`; every other entry's seq is
///   below `next_seq`, so live seqs are distinct.
/// - A cancel that leaves more than half of the run dead compacts it, so
///   cancelled operations never hold more slots than the run had live
///   entries at the last cancel (pops from the front only shrink that).
pub struct Engine<S> {
    slots: S,
    cap: usize,
    heap_len: usize,
    run_start: usize,
    dead: usize,
    next_seq: u64,
    batch_min: usize,
}

impl<S: AsRef<[Slot]> + AsMut<[Slot]>> Engine<S> {
    /// An empty engine over `slots` (their contents are ignored; O(n)).
    /// The storage's length must not change while the engine has it, other
    /// than through [`Engine::replace_storage`].
    pub fn new(mut slots: S) -> Self {
        let cap = slots.as_ref().len().min(MAX_SLOTS);
        // All positions are gap, and all slots free.
        for (p, e) in slots.as_mut()[..cap].iter_mut().enumerate() {
            e.e_slot = p as u32;
        }
        Engine {
            slots,
            cap,
            heap_len: 0,
            run_start: cap,
            dead: 0,
            next_seq: 0,
            batch_min: BATCH_MIN,
        }
    }

    /// Number of pending operations.
    pub fn len(&self) -> usize {
        self.heap_len + self.run_len() - self.dead
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of operations the storage can hold.
    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// Slots in use: [`Engine::len`] plus cancelled operations that had
    /// been sorted into the run and keep their slot until the operations
    /// before them have been popped.
    pub fn held(&self) -> usize {
        self.heap_len + self.run_len()
    }

    /// True when the next post that needs a slot would fail with [`Full`].
    pub fn is_full(&self) -> bool {
        self.held() >= self.cap
    }

    /// Sets the fewest heap entries worth sorting into a run (default
    /// [`BATCH_MIN`]; `usize::MAX` never sorts, small values make tests
    /// exercise the run). Only speed depends on it, never the order.
    pub fn set_batch_min(&mut self, min: usize) {
        self.batch_min = min;
    }

    /// The smallest pending threshold.
    pub fn peek_min_threshold(&self) -> Option<u64> {
        self.peek_min().map(|(_, e)| e.threshold)
    }

    /// True when some pending operation is due at `value`.
    pub fn has_ready(&self, value: u64) -> bool {
        matches!(self.peek_min_threshold(), Some(t) if t <= value)
    }

    /// Posts an operation with `threshold` and the caller's `token`, given
    /// the counter's current trigger `value` (read under the same lock).
    ///
    /// Decides "already met?" and queues in one step, so no increment can
    /// slip in between (see the module documentation):
    /// - met, and nothing due is queued: [`PostOutcome::FireNow`], nothing
    ///   stored (so this case never fails with [`Full`]);
    /// - met, but due operations are still queued: it goes behind them,
    ///   [`PostOutcome::QueuedReady`];
    /// - not met: [`PostOutcome::Queued`].
    ///
    /// An operation queued already due is ordered with `value` as its
    /// threshold (its [`Engine::threshold`] and [`Fired::threshold`] say so):
    /// that puts it after every queued operation due at `value`, which were
    /// triggered before it was even posted, and before every operation not
    /// yet due. (Were the caller to let the value go down before draining,
    /// it waits for `value` again, like the operations queued ahead of it.)
    ///
    /// Fails with [`Full`], changing nothing, when every slot is taken (and,
    /// never in practice, after 2^64 - 1 queued posts, when seqs run out).
    pub fn post(&mut self, threshold: u64, token: u64, value: u64) -> Result<PostOutcome, Full> {
        if threshold > value {
            self.insert(threshold, token).map(PostOutcome::Queued)
        } else if self.has_ready(value) {
            self.insert(value, token).map(PostOutcome::QueuedReady)
        } else {
            Ok(PostOutcome::FireNow)
        }
    }

    /// Takes the next operation due at `value`: the pending one with the
    /// smallest `(threshold, seq)`, if its threshold is `<= value`. Call in a
    /// loop after every change of the value; a lower value than before
    /// simply finds nothing due.
    ///
    /// O(log n), and O(1) from the sorted run; a call that finds a due
    /// operation in a heap of [`BATCH_MIN`] or more while the run is empty
    /// sorts the heap into the run first (see the module documentation).
    pub fn pop_ready(&mut self, value: u64) -> Option<Fired> {
        let (pos, e) = self.peek_min()?;
        if e.threshold > value {
            return None;
        }
        if pos < self.heap_len && self.run_len() == 0 && self.heap_len >= self.batch_min {
            self.batch();
            // The earliest due entry is now the run's front.
            return Some(self.take_run_front());
        }
        Some(if pos < self.heap_len { self.remove_from_heap(pos) } else { self.take_run_front() })
    }

    /// Takes the first pending operation whatever its threshold (flushing
    /// a counter's work in fire order): `pop_ready(u64::MAX)`.
    pub fn pop_min(&mut self) -> Option<Fired> {
        self.pop_ready(u64::MAX)
    }

    /// Removes the operation `handle` names and returns its token; `None`
    /// (and no change) if it already fired, was cancelled, or never existed.
    /// O(log n) (amortized O(1) in the run).
    pub fn cancel(&mut self, handle: Handle) -> Option<u64> {
        let pos = self.position(handle)?;
        if pos < self.heap_len {
            return Some(self.remove_from_heap(pos).token);
        }
        if pos == self.run_start {
            return Some(self.take_run_front().token);
        }
        // Inside the run: removing it would shift the run, so it is marked
        // and skipped (and its slot freed) when the front gets there, or
        // when dead entries make up half the run and it is compacted.
        let s = self.slots.as_mut();
        s[pos].e_seq = DEAD;
        let token = s[pos].e_token;
        self.dead += 1;
        if self.dead * 2 > self.run_len() {
            self.compact_run();
        }
        Some(token)
    }

    /// The handle of the operation pending in `slot`, if one is (for a
    /// caller that kept only the slot index and part of the seq, e.g. in
    /// a triggered context's one spare word, and checks the rest itself).
    pub fn live_handle(&self, slot: u32) -> Option<Handle> {
        let k = slot as usize;
        if k >= self.cap {
            return None;
        }
        let s = self.slots.as_ref();
        let h = Handle { slot, seq: s[s[k].s_link as usize % self.cap.max(1)].e_seq };
        self.position(h).map(|_| h)
    }

    /// The first pending operation (in storage order, not fire order)
    /// whose token satisfies `pred`: O(n), for rare lookups such as
    /// cancelling by the caller's context.
    pub fn find(&self, mut pred: impl FnMut(u64) -> bool) -> Option<Handle> {
        let s = self.slots.as_ref();
        let live = (0..self.heap_len).chain(self.run_start..self.cap);
        live.map(|p| &s[p])
            .find(|e| e.e_seq != DEAD && pred(e.e_token))
            .map(|e| Handle { slot: e.e_slot, seq: e.e_seq })
    }

    /// The threshold the pending operation `handle` is ordered by.
    pub fn threshold(&self, handle: Handle) -> Option<u64> {
        let pos = self.position(handle)?;
        Some(self.slots.as_ref()[pos].e_threshold)
    }

    /// The storage, e.g. to check its length.
    pub fn storage(&self) -> &S {
        &self.slots
    }

    /// Moves the engine onto `new` storage, at least as long as the current
    /// one, and returns the old storage; gives `new` back unchanged if it
    /// is shorter.
    ///
    /// Copies the state (O(n), no allocation), so the module can grow
    /// without allocating under its spinlock: allocate a larger `KVVec`
    /// outside the lock, take the lock, replace, drop the lock, then free
    /// the old storage. Handles stay valid.
    pub fn replace_storage(&mut self, mut new: S) -> Result<S, S> {
        let (cap, new_cap) = (self.cap, new.as_ref().len().min(MAX_SLOTS));
        if new_cap < cap {
            return Err(new);
        }
        let (run_start, new_start) = (self.run_start, new_cap - self.run_len());
        {
            let (old, dst) = (self.slots.as_ref(), new.as_mut());
            // Every slot role, the heap and the gap stay where they are.
            // (An element loop rather than `copy_from_slice`, whose length
            // panic objtool cannot see as noreturn in a kernel module.)
            for (d, o) in dst[..cap].iter_mut().zip(&old[..cap]) {
                *d = *o;
            }
            // The run moves to the new top end (entry roles only: the
            // positions it lands on are also slots, maybe in use)...
            for (i, o) in old[run_start..cap].iter().enumerate() {
                let p = new_start + i;
                let d = &mut dst[p];
                d.e_threshold = o.e_threshold;
                d.e_seq = o.e_seq;
                d.e_token = o.e_token;
                d.e_slot = o.e_slot;
                dst[o.e_slot as usize].s_link = p as u32;
            }
            // ...and the gap grows by the new, free slots.
            for (i, d) in dst[run_start..new_start].iter_mut().enumerate() {
                d.e_slot = (cap + i) as u32;
            }
        }
        self.cap = new_cap;
        self.run_start = new_start;
        Ok(core::mem::replace(&mut self.slots, new))
    }

    /// Checks every invariant of [`Engine`] (the layout, heap order, run
    /// order, links and free list); O(n), for tests. Names the first one
    /// found broken.
    pub fn audit(&self) -> Result<(), &'static str> {
        let (s, cap) = (self.slots.as_ref(), self.cap);
        if self.heap_len > self.run_start || self.run_start > cap || cap > s.len() {
            return Err("layout");
        }
        let key = |p: usize| Entry::at(s, p).key();
        if (1..self.heap_len).any(|p| key(parent(p)) > key(p)) {
            return Err("heap order");
        }
        let run = self.run_start..cap;
        let live: usize = run.clone().filter(|&p| s[p].e_seq != DEAD).count();
        if self.run_len() - live != self.dead {
            return Err("dead count");
        }
        if !run.is_empty() && s[self.run_start].e_seq == DEAD {
            return Err("dead run front");
        }
        let mut last = None;
        for p in run.clone().filter(|&p| s[p].e_seq != DEAD) {
            if last.is_some_and(|k| k > key(p)) {
                return Err("run order");
            }
            last = Some(key(p));
        }
        // Held entries link back, so no two name the same slot.
        let held = |p: usize| p < self.heap_len || run.contains(&p);
        let in_use = |k: usize| k < cap && held(s[k].s_link as usize) && s[s[k].s_link as usize].e_slot as usize == k;
        for p in (0..cap).filter(|&p| held(p)) {
            let k = s[p].e_slot as usize;
            if k >= cap || s[k].s_link as usize != p || (s[p].e_seq >= self.next_seq && s[p].e_seq != DEAD) {
                return Err("held entry");
            }
        }
        // Gap names are free slots; with the held ones they name each slot
        // once (checked by power sums, which a repeat cannot keep equal
        // by chance in practice).
        if (self.heap_len..self.run_start).any(|p| s[p].e_slot as usize >= cap || in_use(s[p].e_slot as usize)) {
            return Err("gap names a slot in use");
        }
        let sums = |f: &dyn Fn(usize) -> u128| (0..cap).fold((0u128, 0u128, 0u128), |(a, b, c), p| {
            let x = f(p);
            (a.wrapping_add(x), b.wrapping_add(x.wrapping_mul(x)), c.wrapping_add(x.wrapping_mul(x).wrapping_mul(x)))
        });
        if sums(&|p| s[p].e_slot as u128) != sums(&|p| p as u128) {
            return Err("free list");
        }
        Ok(())
    }

    /// Gives the storage back.
    pub fn into_storage(self) -> S {
        self.slots
    }

    /// Entries in the sorted run, cancelled ones included (for statistics
    /// and tests).
    pub fn run_len(&self) -> usize {
        self.cap - self.run_start
    }

    /// Position and entry of the earliest pending operation: the earlier of
    /// the heap's root and the run's front (which is live).
    fn peek_min(&self) -> Option<(usize, Entry)> {
        let s = self.slots.as_ref();
        let heap = (self.heap_len > 0).then(|| (0, Entry::at(s, 0)));
        let run = (self.run_start < self.cap).then(|| (self.run_start, Entry::at(s, self.run_start)));
        match (heap, run) {
            (Some(h), Some(r)) => Some(if h.1.key() < r.1.key() { h } else { r }),
            (h, r) => h.or(r),
        }
    }

    /// Queues an operation in the heap, ordered by `(threshold, next seq)`.
    fn insert(&mut self, threshold: u64, token: u64) -> Result<Handle, Full> {
        // seq DEAD (u64::MAX) is never handed out.
        if self.is_full() || self.next_seq == DEAD {
            return Err(Full);
        }
        let s = self.slots.as_mut();
        // Not full, so the gap is not empty: its first position becomes the
        // heap's last, and the free slot it names is the new operation's.
        let pos = self.heap_len;
        let slot = s[pos].e_slot;
        self.heap_len += 1;
        let seq = self.next_seq;
        self.next_seq += 1;
        sift_up(s, pos, Entry { threshold, seq, token, slot });
        Ok(Handle { slot, seq })
    }

    /// Position of the live operation `handle` names.
    fn position(&self, handle: Handle) -> Option<usize> {
        let s = self.slots.as_ref();
        let k = handle.slot as usize;
        if k >= self.cap || handle.seq == DEAD {
            return None;
        }
        // A slot in use links to its position, and that entry names it back.
        // A free slot's link is stale, and no heap or run entry names a free
        // slot, so the check fails. A reused slot's entry has a newer seq
        // than a stale handle; a cancelled run entry has DEAD.
        let pos = s[k].s_link as usize;
        let held = pos < self.heap_len || (self.run_start <= pos && pos < self.cap);
        (held && s[pos].e_slot == handle.slot && s[pos].e_seq == handle.seq).then_some(pos)
    }

    /// Removes heap entry `pos` (`pos < heap_len`), restores the heap by
    /// moving the last entry into the hole, and leaves the freed slot's
    /// name at the heap's old last position, now the gap's first.
    fn remove_from_heap(&mut self, pos: usize) -> Fired {
        let s = self.slots.as_mut();
        let gone = Entry::at(s, pos);
        self.heap_len -= 1;
        let last = self.heap_len;
        if pos != last {
            let moved = Entry::at(s, last);
            // The moved entry came from the bottom: it can only need to go
            // up if the hole is not at the root and its parent is later.
            if pos > 0 && moved.key() < Entry::at(s, parent(pos)).key() {
                sift_up(s, pos, moved);
            } else {
                sift_down(s, pos, last, moved);
            }
        }
        s[last].e_slot = gone.slot;
        gone.fired()
    }

    /// Takes the run's front (which exists and is live), then skips any
    /// dead entries behind it so that the next front is live too. The
    /// positions passed join the gap, still naming their slots, now free.
    fn take_run_front(&mut self) -> Fired {
        let s = self.slots.as_ref();
        let front = Entry::at(s, self.run_start);
        self.run_start += 1;
        while self.run_start < self.cap && s[self.run_start].e_seq == DEAD {
            self.run_start += 1;
            self.dead -= 1;
        }
        front.fired()
    }

    /// Sorts the whole heap into the (empty) run: [heap | gap] becomes
    /// [gap | run], and the slots in use are relinked. O(n log n), all of it
    /// sequential memory access; every entry is sorted into a run at most
    /// once, so that cost is O(log n) per operation posted.
    fn batch(&mut self) {
        let (n, cap) = (self.heap_len, self.cap);
        let start = cap - n;
        let s = self.slots.as_mut();
        // Whole slots move here, slot roles included; the links of slots
        // in use are rebuilt below, and those of free slots mean nothing.
        s[..cap].rotate_left(n);
        s[start..cap].sort_unstable_by_key(|e| Entry::at_ref(e).key());
        for pos in start..cap {
            let k = s[pos].e_slot as usize;
            s[k].s_link = pos as u32;
        }
        self.heap_len = 0;
        self.run_start = start;
    }

    /// Drops the run's cancelled entries: live entries close up at the top
    /// end in their order, and the positions freed join the gap, each still
    /// naming its (now free) slot. O(run length). Only entry roles move.
    fn compact_run(&mut self) {
        let (cap, start) = (self.cap, self.run_start);
        let s = self.slots.as_mut();
        let mut w = cap;
        for r in (start..cap).rev() {
            if s[r].e_seq == DEAD {
                continue;
            }
            w -= 1;
            if w != r {
                // s[w] is a dead entry (live ones before it were all moved
                // up already): trade places, so its slot name stays in the
                // run's lower part, which becomes gap.
                let (live, dead) = (Entry::at(s, r), Entry::at(s, w));
                dead.place(s, r);
                live.place(s, w);
            }
        }
        self.run_start = w;
        self.dead = 0;
    }
}

/// An entry held in registers while it moves.
#[derive(Clone, Copy)]
struct Entry {
    threshold: u64,
    seq: u64,
    token: u64,
    slot: u32,
}

impl Entry {
    #[inline]
    fn at(s: &[Slot], pos: usize) -> Entry {
        Entry::at_ref(&s[pos])
    }

    #[inline]
    fn at_ref(e: &Slot) -> Entry {
        Entry { threshold: e.e_threshold, seq: e.e_seq, token: e.e_token, slot: e.e_slot }
    }

    /// The fire order as one integer: `(threshold, seq)` ascending.
    #[inline]
    fn key(self) -> u128 {
        (u128::from(self.threshold) << 64) | u128::from(self.seq)
    }

    /// Writes the entry at position `pos` and records the position in its
    /// slot.
    #[inline]
    fn place(self, s: &mut [Slot], pos: usize) {
        let e = &mut s[pos];
        e.e_threshold = self.threshold;
        e.e_seq = self.seq;
        e.e_token = self.token;
        e.e_slot = self.slot;
        // Positions are below cap <= MAX_SLOTS, so they fit a u32.
        s[self.slot as usize].s_link = pos as u32;
    }

    fn fired(self) -> Fired {
        Fired { handle: Handle { slot: self.slot, seq: self.seq }, threshold: self.threshold, token: self.token }
    }
}

fn parent(pos: usize) -> usize {
    (pos - 1) / ARITY
}

/// First child of `pos` in a heap of `len`, if any. (On 64-bit `pos * ARITY`
/// cannot overflow since `pos < MAX_SLOTS`; on 32-bit the checked form
/// stops at the end instead of wrapping.)
#[inline]
fn first_child(pos: usize, len: usize) -> Option<usize> {
    pos.checked_mul(ARITY).and_then(|x| x.checked_add(1)).filter(|&c| c < len)
}

/// Puts `e` into the hole at `pos`, moving later parents down.
fn sift_up(s: &mut [Slot], mut pos: usize, e: Entry) {
    let key = e.key();
    while pos > 0 {
        let p = parent(pos);
        let pe = Entry::at(s, p);
        if key >= pe.key() {
            break;
        }
        pe.place(s, pos);
        pos = p;
    }
    e.place(s, pos);
}

/// Position and key of the earlier of two children, chosen without a
/// branch on the keys (which are as good as random, so a branch would
/// mispredict about half the time).
#[inline]
fn earlier(a: (usize, u128), b: (usize, u128)) -> (usize, u128) {
    let b_first = b.1 < a.1;
    (if b_first { b.0 } else { a.0 }, if b_first { b.1 } else { a.1 })
}

/// Puts `e` into the hole at `pos` of a heap of `len` entries, moving
/// earlier children up.
fn sift_down(s: &mut [Slot], mut pos: usize, len: usize, e: Entry) {
    let key = e.key();
    while let Some(first) = first_child(pos, len) {
        let child = |c: usize| (c, Entry::at(s, c).key());
        let (best, best_key) = if first + ARITY <= len {
            // A full node: a two-round tournament.
            let a = earlier(child(first), child(first + 1));
            let b = earlier(child(first + 2), child(first + 3));
            earlier(a, b)
        } else {
            (first + 1..len).fold(child(first), |m, c| earlier(m, child(c)))
        };
        if best_key >= key {
            break;
        }
        Entry::at(s, best).place(s, pos);
        pos = best;
    }
    e.place(s, pos);
}

/// A counter's two values and the trigger value derived from them (the
/// part of a counter the engine's callers need; the module keeps one
/// beside each engine, under the same lock).
///
/// - `success` and `error` are `u64`s that wrap modulo 2^64 on `add`, as
///   the C API's counters (and `AtomicU64::fetch_add`) do.
/// - The trigger value is `success + error`, *saturating* at `u64::MAX`:
///   deferred work counts both toward its threshold, and a sum that
///   overflowed must not wrap to a small number and look like a decrease.
///   A value that does go down (a `set`, or an `add` that wraps) makes
///   nothing due.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counter {
    success: u64,
    error: u64,
}

impl Counter {
    /// A counter at zero.
    pub const fn new() -> Self {
        Counter { success: 0, error: 0 }
    }

    /// Success count (`kfi_cntr_read`).
    pub fn success(&self) -> u64 {
        self.success
    }

    /// Error count (`kfi_cntr_readerr`).
    pub fn error(&self) -> u64 {
        self.error
    }

    /// `success + error`, saturating: the value thresholds compare against.
    pub fn trigger_value(&self) -> u64 {
        self.success.saturating_add(self.error)
    }

    /// Adds to the success count (wrapping); returns the new trigger value.
    pub fn add(&mut self, n: u64) -> u64 {
        self.success = self.success.wrapping_add(n);
        self.trigger_value()
    }

    /// Adds to the error count (wrapping); returns the new trigger value.
    pub fn add_err(&mut self, n: u64) -> u64 {
        self.error = self.error.wrapping_add(n);
        self.trigger_value()
    }

    /// Sets the success count; returns the new trigger value.
    pub fn set(&mut self, v: u64) -> u64 {
        self.success = v;
        self.trigger_value()
    }

    /// Sets the error count; returns the new trigger value.
    pub fn set_err(&mut self, v: u64) -> u64 {
        self.error = v;
        self.trigger_value()
    }
}

/// A FIFO of tokens over caller-provided storage (the operations an
/// engine popped, waiting to be issued in order). Pushing never
/// allocates: the caller keeps the storage at least as long as the
/// operations that can be in the engine and the FIFO together, growing it
/// with [`TokenRing::replace_storage`] outside its lock.
pub struct TokenRing<S> {
    buf: S,
    head: usize,
    len: usize,
}

/// The ring has no room (the caller grows it and retries).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RingFull;

impl<S: AsRef<[u64]> + AsMut<[u64]>> TokenRing<S> {
    /// An empty ring over `buf`.
    pub fn new(buf: S) -> Self {
        TokenRing { buf, head: 0, len: 0 }
    }

    /// Tokens queued.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Tokens it can hold.
    pub fn capacity(&self) -> usize {
        self.buf.as_ref().len()
    }

    /// Appends a token.
    pub fn push_back(&mut self, t: u64) -> Result<(), RingFull> {
        let cap = self.capacity();
        if self.len == cap {
            return Err(RingFull);
        }
        let at = (self.head + self.len) % cap;
        self.buf.as_mut()[at] = t;
        self.len += 1;
        Ok(())
    }

    /// Puts a token back at the front (it is issued first).
    pub fn push_front(&mut self, t: u64) -> Result<(), RingFull> {
        let cap = self.capacity();
        if self.len == cap {
            return Err(RingFull);
        }
        self.head = (self.head + cap - 1) % cap;
        self.buf.as_mut()[self.head] = t;
        self.len += 1;
        Ok(())
    }

    /// Takes the first token.
    pub fn pop_front(&mut self) -> Option<u64> {
        if self.len == 0 {
            return None;
        }
        let t = self.buf.as_ref()[self.head];
        self.head = (self.head + 1) % self.capacity();
        self.len -= 1;
        Some(t)
    }

    /// Moves the ring onto `new` storage (at least `len()` long; the old
    /// storage is given back, or `new` if it is too short).
    pub fn replace_storage(&mut self, mut new: S) -> Result<S, S> {
        if new.as_ref().len() < self.len {
            return Err(new);
        }
        let cap = self.capacity();
        for i in 0..self.len {
            new.as_mut()[i] = self.buf.as_ref()[(self.head + i) % cap];
        }
        self.head = 0;
        Ok(core::mem::replace(&mut self.buf, new))
    }
}
