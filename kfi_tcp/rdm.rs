// SPDX-License-Identifier: GPL-2.0
//! Reliable connectionless endpoints (`KFI_EP_RDM`) over kfi_tcp, speaking
//! libfabric 1.17's `tcp;ofi_rxm` (Documentation/rdm-plan.md, R5).
//!
//! An RDM endpoint is a MSG endpoint's queues with one lane per peer
//! (`xfer.rs`: [`Lane`], its [`RdmPeer`]); each lane's frames move on one
//! kfi_tcp connection (`conn.rs`, `data.rs`), opened on the first
//! transmit to the peer and kept. What this file adds is the connection
//! map: who connects, who accepts, what a peer's failure does.
//!
//! - **Enable** opens a listener on the endpoint's source address (any
//!   address and an ephemeral port when none is given); `kfi_getname`
//!   returns it: what peers insert in their AVs.
//! - **First transmit** to an AV handle: the post (`TcpExt::route`, under
//!   the queue lock) makes the lane and queues the operation on it; the
//!   endpoint's work item ([`Rdm`] is a work item) connects, sending
//!   rxm's connect data (our listener's port, our connection id).
//! - **A peer's request** ([`Rdm::request`], in the new connection's work
//!   item): its AV handle is found from its source address and the port
//!   in its connect data (none: a peer not in the AV, whose messages
//!   report `KFI_ADDR_NOTAVAIL`); the lane's state (`logic::connmap`)
//!   decides: accept (rxm's accept data), or reject (`EALREADY`: the
//!   simultaneous connect it lost, or a stale request).
//! - **Failure**: a connection that ends fails the operations of its lane
//!   (its cleanup, `data.rs`); the lane goes back to idle and the next
//!   transmit reconnects. Receives are the endpoint's, not a lane's: they
//!   stay posted.
//!
//! # Contexts and locks
//! Connection events come from the connections' work items (process
//! context): [`Rdm::request`], [`Rdm::on_up`], [`Rdm::on_failed`],
//! [`Rdm::on_down`]. They change the lane under the endpoint's queue lock
//! (a BH spinlock: nothing sleeps there) and do what may sleep after it:
//! accepting and rejecting (the connection's own control messages), and
//! handing connections to stop to the endpoint's work item (a connection
//! cannot stop itself from its own work item: `stop` flushes it). `st`
//! (mutex, process context) holds the listener, the accepted connections
//! not answered yet and the connections to stop; taken before the queue
//! lock, never while calling into a connection's `stop`.
//!
//! # Lifetime
//! The endpoint holds the `Arc<Rdm>` from enable to close; connections
//! point to it and to the endpoint's queues (raw, in their `Owner`): the
//! close stops the listener, then every connection (those of the lanes,
//! the pending and the dead ones), then the work item, before the
//! endpoint goes.

use crate::conn::{Conn, Owner};
use crate::logic::connmap::{self, Actions, Event, State};
use crate::logic::rxm::{self, Accept, Connect, CtxExt, Reason};
use crate::util::sep;
use crate::logic::xfer::ADDR_ANY;
use crate::pep::{Listen, Listener};
use crate::sock::Sock;
use crate::util::addr::SockAddr;
use crate::util::av::Av;
use crate::util::base;
use crate::xfer::EpData;
use core::ffi::{c_int, c_void};
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use kernel::bindings;
use kernel::prelude::*;
use kernel::sync::{Arc, ArcBorrow, Mutex};
use kernel::workqueue::{Work, WorkItem};
use kernel::{impl_has_work, new_mutex, new_work};

/// What `st` protects.
struct St {
    listener: Option<Arc<Listener>>,
    /// Accepted connections whose request is not answered yet.
    pending: KVec<Arc<Conn>>,
    /// Connections to stop (dropped attempts, rejected requests, ended
    /// connections), by the work item. Its capacity is kept at `live` or
    /// more, so that handing one over never allocates: the connections'
    /// own work items hand themselves over, and could not stop themselves
    /// instead.
    dead: KVec<Arc<Conn>>,
    /// Connections made (accepted or opened) and not stopped by the work
    /// item yet (an upper bound: the close stops the lanes' own).
    live: usize,
    /// Set by close: nothing is added any more.
    closing: bool,
    /// A scalable endpoint's contexts, enabled and not closed, by index
    /// (null: none): transmit contexts open connections, receive contexts
    /// take the peers' (the index their connect data names).
    tx: KVec<*const EpData>,
    rx: KVec<*const EpData>,
}

/// The connection map of an RDM endpoint, and its work item.
#[pin_data]
pub(crate) struct Rdm {
    #[pin]
    work: Work<Rdm>,
    /// A plain RDM endpoint's queues (their lanes hold the peers, both
    /// directions); null for a scalable endpoint's map, whose contexts
    /// are in `st`.
    data: *const EpData,
    /// The bound AV (it cannot close while bound).
    av: *const Av,
    /// The network namespace connections are made in.
    net: *mut c_void,
    /// Where we listen, and the port chosen then.
    src: SockAddr,
    port: AtomicU32,
    /// The receive queue depth we state in the connect data.
    rx_size: u32,
    /// The high 32 bits of our connection ids: this endpoint instance
    /// (a peer that sees another one knows we restarted).
    instance: u32,
    #[pin]
    st: Mutex<St>,
    /// Lanes want connecting (set under the queue lock by posts).
    pub(crate) want: AtomicBool,
    /// Kicks the work item when lanes waiting after a lost connect race
    /// are due to try again ([`RETRY_MS`]).
    retry: base::Timer,
}

/// How long a lane whose request lost (`EALREADY`) waits for the peer's
/// before it tries again.
pub(crate) const RETRY_MS: u32 = 100;

/// The retry timer (softirq): kicks the work item.
///
/// # Safety
/// `ctx` is the `Rdm`, alive: its close cancels the timer first.
unsafe extern "C" fn rdm_retry(ctx: *mut c_void) {
    // SAFETY: by the contract above.
    unsafe { &*ctx.cast::<Rdm>() }.kick();
}

// SAFETY: the raw pointers name the endpoint's queues and AV, which
// outlive the `Rdm`'s use of them (see "Lifetime"); the namespace is the
// fabric's, which outlives its endpoints.
unsafe impl Send for Rdm {}
// SAFETY: as above; the mutable state is under `st` or atomic.
unsafe impl Sync for Rdm {}

impl_has_work! {
    impl HasWork<Self> for Rdm { self.work }
}

/// A reject with `reason`, sent on `c`, which is then stopped later.
fn reject(c: &Arc<Conn>, reason: Reason) {
    let _ = c.reject(&rxm::reject(reason));
}

/// The rx queue depth stated in the connect data.
fn rx_size_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Rdm {
    /// The map of an endpoint with queues `data` (enabled), or with
    /// `None` of a scalable endpoint with `ctxs` transmit and receive
    /// contexts; AV `av`, listening on `src` in `net`, with receive
    /// queues of `rx_size`. Starts listening.
    pub(crate) fn start(data: Option<&EpData>, ctxs: (usize, usize), av: &Av, net: *mut c_void, src: SockAddr, rx_size: usize) -> Result<Arc<Rdm>> {
        let data: *const EpData = data.map_or(core::ptr::null(), |d| d);
        let tx = base::kvec_filled(core::ptr::null(), ctxs.0)?;
        let rx = base::kvec_filled(core::ptr::null(), ctxs.1)?;
        // SAFETY: `rdm_retry` does not sleep; its argument is set below,
        // before anything arms the timer; the close cancels it.
        let retry = unsafe { base::Timer::new(rdm_retry, core::ptr::null_mut()) }?;
        let r = Arc::pin_init(
            pin_init!(Rdm {
                work <- new_work!("kfi_tcp_rdm"),
                data,
                av,
                net,
                src,
                port: AtomicU32::new(u32::from(src.port)),
                rx_size: rx_size_of(rx_size),
                instance: base::random_u32() | 1,
                st <- new_mutex!(St { listener: None, pending: KVec::new(), dead: KVec::new(), live: 0, closing: false, tx, rx }, "kfi_tcp_rdm"),
                want: AtomicBool::new(false),
                retry,
            }),
            GFP_KERNEL,
        )?;
        // SAFETY: the map outlives the timer (its close cancels it).
        unsafe { r.retry.set_ctx((&*r as *const Rdm).cast_mut().cast()) };
        let l = Listener::start(net, &src, Listen::Rdm(&*r))?;
        let name = match l.name() {
            Ok(n) => n,
            Err(e) => {
                l.stop();
                return Err(e);
            }
        };
        // The port peers connect to (the address stays the one asked
        // for: any address when none was).
        r.port.store(u32::from(name.port), Ordering::SeqCst);
        r.st.lock().listener = Some(l);
        Ok(r)
    }

    /// The listener's address (what peers insert).
    pub(crate) fn name(&self) -> SockAddr {
        SockAddr { port: self.port.load(Ordering::SeqCst) as u16, ..self.src }
    }

    /// A plain endpoint's queues (`None`: a scalable endpoint's map).
    fn data(&self) -> Option<&EpData> {
        // SAFETY: the endpoint's queues outlive the map (see "Lifetime").
        unsafe { self.data.as_ref() }
    }

    /// A context of a scalable endpoint is enabled (its queues `d`, which
    /// stay until [`Rdm::ctx_close`]): transmit context `i` (`tx`) opens
    /// connections from now on, receive context `i` takes them.
    pub(crate) fn ctx_open(&self, tx: bool, i: usize, d: &EpData) -> Result {
        let mut g = self.st.lock();
        let v = if tx { &mut g.tx } else { &mut g.rx };
        let slot = v.get_mut(i).ok_or(EINVAL)?;
        *slot = d;
        Ok(())
    }

    /// A context closes: from now on the map does not use its queues;
    /// the connections it handed over are stopped. The caller then stops
    /// the connections of its lanes and calls [`Rdm::settle`].
    pub(crate) fn ctx_close(&self, tx: bool, i: usize) {
        {
            let mut g = self.st.lock();
            let v = if tx { &mut g.tx } else { &mut g.rx };
            if let Some(slot) = v.get_mut(i) {
                *slot = core::ptr::null();
            }
        }
        // A running work item may still be connecting its lanes.
        self.settle();
    }

    /// Waits for the work item and stops the connections handed over.
    pub(crate) fn settle(&self) {
        // SAFETY: our initialised work item.
        unsafe { bindings::flush_work(Work::raw_get(&self.work)) };
        self.stop_dead();
    }

    fn av(&self) -> &Av {
        // SAFETY: bound to the endpoint, open until it closes.
        unsafe { &*self.av }
    }

    /// Our connection id for lane `lane` of transmit context `ctx` (0: a
    /// plain endpoint's; a receive context's lanes are numbered after
    /// [`sep::MAX_CTX`] transmit contexts).
    fn id(&self, ctx: u32, lane: u32) -> u64 {
        rxm::conn_id(self.instance, (ctx << 22) | (lane & ((1 << 22) - 1)))
    }

    /// Queues the work item (from any context but hard interrupts).
    pub(crate) fn kick(&self) {
        // SAFETY: every `Rdm` is in an `Arc` (made by `start`), alive here:
        // the caller holds it, or is a connection or post that the close
        // waits for.
        let a: Arc<Rdm> = unsafe { ArcBorrow::from_raw(self) }.into();
        // Not the connections' workqueue: this work flushes theirs.
        let _ = base::cm_queue().enqueue(a);
    }

    /// A lane wants connecting (a post, under the queue lock).
    pub(crate) fn want_connect(&self) {
        self.want.store(true, Ordering::SeqCst);
        self.kick();
    }

    /// Counts one more connection and makes room for handing it over
    /// later (see `St::dead`); `ENOMEM` (nothing counted) without memory.
    fn count_conn(&self) -> Result {
        let mut g = self.st.lock();
        let want = (g.live + 1).saturating_sub(g.dead.len());
        g.dead.reserve(want, GFP_KERNEL)?;
        g.live += 1;
        Ok(())
    }

    /// Hands `c` to the work item to stop. Never allocates (the room was
    /// made when `c` was counted), so it is safe from `c`'s own work item.
    fn bury(&self, c: Arc<Conn>) {
        let mut g = self.st.lock();
        if g.dead.push(c, GFP_NOWAIT).is_err() {
            // Not reached: every connection was counted.
            drop(g);
            base::warn_once!("kfi_tcp: RDM connection not counted (left running)");
            return;
        }
        drop(g);
        self.kick();
    }

    /// The listener accepted a connection (its work item): it reads the
    /// peer's request, then [`Rdm::request`].
    pub(crate) fn accepted(&self, s: Sock) {
        if self.count_conn().is_err() {
            return;
        }
        let Ok(c) = Conn::accepted(s, Owner::RdmReq(self)) else {
            return;
        };
        let mut g = self.st.lock();
        if g.closing || g.pending.push(c.clone(), GFP_KERNEL).is_err() {
            drop(g);
            c.stop();
            return;
        }
        drop(g);
        c.kick();
    }

    /// A peer's connect request on `c` (its work item): accepted or
    /// rejected as the peer's lane decides (see the module comment).
    pub(crate) fn request(&self, c: &Arc<Conn>, data: &[u8]) {
        {
            let mut g = self.st.lock();
            if let Some(i) = g.pending.iter().position(|p| Arc::ptr_eq(p, c)) {
                base::kvec_remove(&mut g.pending, i);
            }
            if g.closing {
                drop(g);
                reject(c, Reason::ConnRefused);
                self.bury(c.clone());
                return;
            }
        }
        let (req, ext) = match (Connect::decode(data), CtxExt::decode(data)) {
            (Ok(r), Ok(e)) => (r, e),
            (Err(reason), _) | (_, Err(reason)) => {
                reject(c, reason);
                self.bury(c.clone());
                return;
            }
        };
        let (Ok(peer), Ok(local)) = (c.name(true), c.name(false)) else {
            reject(c, Reason::Unspec);
            self.bury(c.clone());
            return;
        };
        // Its listener: where it said it listens, at the address it came
        // from; our side: the address it reached, our listener's port.
        let listen = SockAddr { port: req.port, ..peer };
        let own_port = self.name().port;
        let handle = self.av().find(&listen).unwrap_or(ADDR_ANY);
        let len = if u32::from(peer.family) == bindings::AF_INET6 { 16 } else { 4 };
        let peer_wins = rxm::requester_wins((&peer.addr[..len], req.port), (&local.addr[..len], own_port));
        let rx_index = ext.map_or(0, |e| usize::from(e.rx_index));
        // The receive context it is for (held while its lane is made: a
        // context closing waits for it, then finds the connection on the
        // lane); a plain endpoint has receive context 0 only.
        let g = self.st.lock();
        let (d, ctx, inbound) = match self.data() {
            Some(d) if rx_index == 0 => {
                // Our own request (a send to ourselves), a context's: a
                // lane of its own, whatever our attempt's state.
                let own = (req.client_conn_id >> 32) as u32 == self.instance;
                (d, 0, own || ext.is_some_and(|e| e.flags & rxm::CTX_EXT_ONE_WAY != 0))
            }
            // SAFETY: a receive context's queues stay until it leaves
            // `st` (`ctx_close`).
            None => match g.rx.get(rx_index).and_then(|&p| unsafe { p.as_ref() }) {
                // Nothing is sent on a connection a context accepts (its
                // scalable endpoint's own go from its transmit contexts).
                Some(d) => (d, (sep::MAX_CTX + rx_index) as u32, true),
                None => {
                    drop(g);
                    reject(c, Reason::ConnRefused);
                    self.bury(c.clone());
                    return;
                }
            },
            Some(_) => {
                drop(g);
                reject(c, Reason::ConnRefused);
                self.bury(c.clone());
                return;
            }
        };
        // A plain endpoint's queues outlive the map: only a context's need
        // the lock (its lane is new: the request fails nothing, completes
        // nothing, so no consumer's handler runs under it).
        let g = if self.data().is_some() {
            drop(g);
            None
        } else {
            Some(g)
        };
        let out = d.rdm_request(handle, &listen, c, req.client_conn_id, peer_wins, inbound, |lane| {
            Accept { server_conn_id: self.id(ctx, lane), rx_size: self.rx_size, flow_ctrl: rxm::FLOW_CTRL_PEER_OFF }.encode()
        });
        drop(g);
        match out {
            Ok(r) => {
                for x in r.drop.into_iter().flatten() {
                    self.bury(x);
                }
                if let Some((lane, accept)) = r.accept {
                    let owner = Owner::Rdm { rdm: self, data: d, lane, from: handle, one_way: false };
                    if c.accept(&accept, owner).is_err() {
                        d.rdm_event(lane, c, Event::Down, bindings::ECONNRESET);
                        self.bury(c.clone());
                    }
                } else {
                    reject(c, Reason::Already);
                    self.bury(c.clone());
                }
            }
            Err(()) => {
                reject(c, Reason::Unspec);
                self.bury(c.clone());
            }
        }
    }

    /// A connection of lane `lane` is up (its work item): `data` is the
    /// peer's accept data when it was ours.
    pub(crate) fn on_up(&self, d: &EpData, c: &Conn, lane: u32, data: &[u8]) {
        if d.rdm_is_out(lane, c) {
            match Accept::decode(data) {
                Some(a) => d.rdm_out_up(lane, c, a.server_conn_id),
                None => {
                    // Not an rxm peer: this connection is no use.
                    if let Some(x) = d.rdm_event(lane, c, Event::Down, bindings::EPROTO) {
                        self.bury(x);
                    }
                }
            }
        } else if let Some(x) = d.rdm_event(lane, c, Event::InUp, 0) {
            self.bury(x);
        }
    }

    /// Our attempt on lane `lane` (or the connection being accepted)
    /// failed with `err` (negative); `data`: the peer's reject data.
    pub(crate) fn on_failed(&self, d: &EpData, c: &Conn, lane: u32, err: c_int, data: &[u8]) {
        let refused = err == -(bindings::ECONNREFUSED as c_int);
        let e = if refused && !data.is_empty() {
            Event::Rejected { already: rxm::reject_reason(data) == Reason::Already }
        } else {
            Event::Down
        };
        let errno = if err < 0 { (-err) as u32 } else { bindings::ECONNRESET };
        if let Some(x) = d.rdm_event(lane, c, e, errno) {
            self.bury(x);
        }
        if e == (Event::Rejected { already: true }) {
            self.arm_retry();
        }
    }

    /// The connection of lane `lane` ended (its work item, after failing
    /// the lane's operations).
    pub(crate) fn on_down(&self, d: &EpData, c: &Conn, lane: u32) {
        if let Some(x) = d.rdm_event(lane, c, Event::Down, bindings::ECONNRESET) {
            self.bury(x);
        }
    }

    /// A lane waits for the peer's request after losing a connect race:
    /// look again in [`RETRY_MS`].
    pub(crate) fn arm_retry(&self) {
        // Not once closing (the close cancels the timer after setting it).
        let g = self.st.lock();
        if !g.closing {
            self.retry.arm(kernel::time::msecs_to_jiffies(RETRY_MS) as u64);
        }
    }

    /// Opens the connections the lanes want: a plain endpoint's, or the
    /// transmit contexts' (only the work item uses their queues outside
    /// `st`: a closing context waits for it, [`Rdm::ctx_close`]).
    fn connect_wanted(&self) {
        while self.want.swap(false, Ordering::SeqCst) {
            if let Some(d) = self.data() {
                self.connect_ctx(d, 0, false);
                continue;
            }
            let mut i = 0;
            loop {
                let p = {
                    let g = self.st.lock();
                    if i >= g.tx.len() {
                        break;
                    }
                    g.tx[i]
                };
                // SAFETY: a context's queues stay until it leaves `st`
                // and this work item is done (`ctx_close`).
                if let Some(d) = unsafe { p.as_ref() } {
                    self.connect_ctx(d, i as u32 + 1, true);
                }
                i += 1;
            }
        }
    }

    /// Opens the connections the lanes of `d` want (`ctx`: its number in
    /// our connection ids; `one_way`: a transmit context's).
    fn connect_ctx(&self, d: &EpData, ctx: u32, one_way: bool) {
        if d.rdm_retry_due(kernel::time::msecs_to_jiffies(RETRY_MS) as u64) {
            self.arm_retry();
        }
        // Our connections come from our listener's address (a 1.17 peer
        // finds us in its AV by it), any port.
        let any = self.src.addr.iter().all(|&b| b == 0);
        let from = SockAddr { port: 0, ..self.src };
        {
            while let Some(w) = d.rdm_take_want() {
                let (lane, dst, handle) = (w.lane, w.addr, w.handle);
                if self.st.lock().closing {
                    return;
                }
                let c = Connect::new(self.name().port, self.rx_size, self.id(ctx, lane));
                let ext = w.one_way.then_some(CtxExt { rx_index: w.rx, flags: rxm::CTX_EXT_ONE_WAY });
                let (req, n) = CtxExt::request(&c, ext);
                let owner = Owner::Rdm { rdm: self, data: d, lane, from: handle, one_way };
                if self.count_conn().is_err() {
                    d.rdm_connect_failed(lane, bindings::ENOMEM);
                    continue;
                }
                match Conn::connect(self.net, (!any).then_some(&from), &dst, &req[..n], owner) {
                    Ok(c) => {
                        if let Some(x) = d.rdm_set_out(lane, c) {
                            self.bury(x);
                        }
                    }
                    Err(e) => {
                        d.rdm_connect_failed(lane, (-e.to_errno()) as u32);
                    }
                }
            }
        }
    }

    /// Stops the connections handed to it.
    fn stop_dead(&self) {
        loop {
            // The list is swapped for one with room for the connections
            // still live (made outside the lock; no memory: try again).
            let live = {
                let g = self.st.lock();
                if g.dead.is_empty() {
                    return;
                }
                g.live
            };
            let Ok(fresh) = KVec::with_capacity(live, GFP_KERNEL) else {
                base::sleep_briefly();
                continue;
            };
            let dead = {
                let mut g = self.st.lock();
                if g.dead.is_empty() {
                    return;
                }
                let left = g.live.saturating_sub(g.dead.len());
                if fresh.capacity() < left {
                    // More were counted meanwhile.
                    continue;
                }
                g.live = left;
                core::mem::replace(&mut g.dead, fresh)
            };
            for c in dead {
                c.retire(bindings::ECONNRESET);
            }
        }
    }

    /// Endpoint close: stops the listener, the work item and every
    /// connection not on a lane (the endpoint stops those of the lanes).
    pub(crate) fn close(&self) {
        let (l, pending) = {
            let mut g = self.st.lock();
            g.closing = true;
            (g.listener.take(), core::mem::replace(&mut g.pending, KVec::new()))
        };
        if let Some(l) = l {
            l.stop();
        }
        self.retry.cancel_sync();
        for c in pending {
            c.stop();
        }
        // SAFETY: our initialised work item; once flushed it finds
        // `closing` and opens nothing (a post may still queue it: it then
        // only stops dead connections).
        unsafe { bindings::flush_work(Work::raw_get(&self.work)) };
        self.stop_dead();
    }

    /// After the lanes' connections stopped: connections buried since.
    pub(crate) fn close_end(&self) {
        // A work item running during `close` may have armed it.
        self.retry.cancel_sync();
        self.settle();
    }
}

impl WorkItem for Rdm {
    type Pointer = Arc<Rdm>;

    fn run(this: Arc<Rdm>) {
        let _noio = base::NoIo::enter();
        this.stop_dead();
        if !this.st.lock().closing {
            this.connect_wanted();
        }
        this.stop_dead();
    }
}

/// What [`EpData::rdm_request`] decided about a peer's request.
pub(crate) struct RequestOutcome {
    /// Accept on lane `.0` with the accept data `.1`; `None`: reject it.
    pub(crate) accept: Option<(u32, [u8; rxm::ACCEPT_BYTES])>,
    /// Connections the decision dropped (to stop).
    pub(crate) drop: [Option<Arc<Conn>>; 2],
}

/// The step of a lane's state (the lane's `state` is set to the result).
pub(crate) fn step(state: &mut State, e: Event) -> Actions {
    let (s, a) = connmap::step(*state, e);
    *state = s;
    a
}
