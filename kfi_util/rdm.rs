// SPDX-License-Identifier: GPL-2.0
//! The connection map of a connectionless (`KFI_EP_RDM`) endpoint or of a
//! scalable endpoint, for any provider whose connections carry libfabric
//! 1.17 rxm's connect, accept and reject data (`logic::rxm`):
//! Documentation/rdm.md, "The connection cache".
//!
//! An RDM endpoint is a MSG endpoint's queues with one lane per peer
//! (`peers.rs`); each lane's data moves on one connection of the
//! provider ([`ProvRdm::Conn`], behind [`MapConn`]), opened on the first
//! transmit to the peer and kept. What this file adds is the map: who
//! connects, who accepts, what a peer's failure does.
//!
//! - **Enable** ([`Map::start`]) listens on the endpoint's source address
//!   ([`ProvRdm::listen`]: any address and an ephemeral port when none is
//!   given); `kfi_getname` returns it: what peers insert in their AVs.
//! - **First transmit** to an AV handle: the post (`peers::route`, under
//!   the queue lock) makes the lane and queues the operation on it; the
//!   map's work item connects, sending rxm's connect data (our
//!   listener's port, our connection id).
//! - **A peer's request** ([`Map::request`], from a work item of the
//!   provider): its AV handle is found from its source address and the
//!   port in its connect data (none: a peer not in the AV, whose messages
//!   report `KFI_ADDR_NOTAVAIL`); the lane's state (`logic::connmap`)
//!   decides: accept (rxm's accept data), or reject (`EALREADY`: the
//!   simultaneous connect it lost, or a stale request).
//! - **Failure**: a connection that ends fails the operations of its lane
//!   (the provider's cleanup calls `rdm_conn_lost`); the lane goes back
//!   to idle and the next transmit reconnects. Receives are the
//!   endpoint's, not a lane's: they stay posted.
//!
//! # Contexts and locks
//! Connection events come to a [`LaneRef`] ([`LaneRef::up`],
//! [`LaneRef::failed`], [`LaneRef::down`]) and requests to
//! [`Map::request`] from the provider's event context for that
//! connection (kfi_tcp: the connection's work item), process context,
//! never under `st` or the queue lock. They change the lane under the
//! endpoint's queue lock (a BH spinlock: nothing sleeps there) and do
//! what may sleep after it: accepting and rejecting, and handing
//! connections to stop to the map's work item ([`Map::bury`]: a
//! connection cannot be stopped from its own event context). Lock order:
//! the provider's event context, then `st` (mutex), then the queue lock,
//! then the provider's own data-path locks. [`MapConn`]'s `connect`,
//! `accept`, `reject`, `stop`, `retire` and [`ProvRdm::stop_listener`] are
//! called with neither `st` nor the queue lock held; only
//! [`ProvRdm::flow`] runs under the queue lock.
//!
//! # Lifetime
//! The endpoint holds the `Arc<Map>` from enable to close; connections
//! point to it and to the endpoint's queues (raw, in their [`LaneRef`]):
//! the close ([`Map::leave`]) stops the listener, then every connection
//! (those of the lanes, the pending and the dead ones; a request out of
//! `pending` and not yet on a lane or handed over is waited for), then
//! the work item, before the endpoint goes. [`Map::count_conn`] runs before a
//! connection exists and keeps room to hand it over, so [`Map::bury`]
//! never allocates.

use super::addr::SockAddr;
use super::av::Av;
use super::base;
use super::ep::{EpAttrs, EpConfig, Role};
use super::fabric::Fabric;
use super::sep::{MapSep, ProvSep};
use super::{sys, Provider};
use super::logic::connmap::Event;
use super::logic::rxm::{self, Accept, Connect, CtxExt, Reason};
use super::logic::xfer::ADDR_ANY;
use super::peers::HasPeers;
use super::queues::EpQueues;
use super::sep;
use core::ffi::c_void;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use kernel::bindings;
use kernel::prelude::*;
use kernel::sync::{Arc, ArcBorrow, CondVar, Mutex};
use kernel::workqueue::{Work, WorkItem};
use kernel::{impl_has_work, new_condvar, new_mutex, new_work};

/// A provider's connectionless endpoints: its connection type, listener
/// and per-lane state (implemented on the provider's `Prov`).
pub(crate) trait ProvRdm: Sized + 'static {
    /// A connection carrying one lane's data.
    type Conn: MapConn<Self>;
    /// What listens for peers' requests.
    type Listener: Send;
    /// The provider's per-lane state (`peers::Lane::x`).
    type Lane: super::peers::LaneExt;
    /// The provider's queue part (holding the lanes).
    type X: HasPeers<R = Self>;

    /// Listens on `src` in `net` for `map`, whose [`Map::accepted`] takes
    /// the connections; returns the listener and its port.
    fn listen(map: &Map<Self>, net: *mut c_void, src: &SockAddr) -> Result<(Self::Listener, u16)>;

    /// Stops a listener (may sleep; no lock held): no request reaches
    /// the map after it returns.
    fn stop_listener(l: Self::Listener);

    /// Under the queue lock, never sleeps: the lane of connection `c`
    /// has transmits queued that may go now.
    fn flow(c: &Arc<Self::Conn>);

    /// A context of a scalable endpoint ([`super::sep::MapSep`]) on
    /// `domain` (open for the call) with `attrs` (its role, queue sizes
    /// and flags), not published yet: the provider's endpoint object,
    /// enabled later through [`enable_ep`].
    fn context(domain: *mut sys::kfid_domain, attrs: EpAttrs) -> Result<Pin<KBox<<crate::Prov as Provider>::Endpoint>>>;
}

/// `kfi_enable` of an RDM endpoint or of a scalable endpoint's context
/// configured by `c`, whose queues are `d`, on a domain of `fabric`:
/// `enable` sets the queues up (with the bound AV). A whole endpoint
/// starts a map of its own, listening on its source address (any IPv4
/// address and an ephemeral port when none was given), stopped again if
/// `enable` fails; a context joins its scalable endpoint's (enabled
/// before it: the toolkit checked). Returns the map, which the endpoint
/// holds until its close ([`Map::leave`]).
pub(crate) fn enable_ep(
    fabric: *mut Fabric,
    d: &EpQueues<<crate::Prov as ProvRdm>::X>,
    c: &EpConfig,
    enable: impl FnOnce(&Av) -> Result,
) -> Result<Arc<Map<crate::Prov>>> {
    // SAFETY: bound (the toolkit checked; a context's is its scalable
    // endpoint's), open while bound.
    let av = unsafe { &*c.av.ok_or(EINVAL)? };
    if c.attrs.role != Role::Whole {
        // SAFETY: a context's scalable endpoint outlives it; every one of
        // this provider is a `MapSep`.
        let sep = unsafe { MapSep::from_base(&*c.attrs.sep) };
        let m = sep.map().ok_or(EINVAL)?;
        enable(av)?;
        m.join(c.attrs.role, d, av)?;
        return Ok(m);
    }
    // SAFETY: the domain is open for the call (its endpoint's enable);
    // so is its fabric.
    let net = unsafe { Fabric::net(fabric) };
    let src = c.attrs.src.unwrap_or(super::addr::ANY_V4);
    let m = Map::start(Some(d), (0, 0), av, net, src, c.attrs.rx_size)?;
    if let Err(e) = enable(av) {
        m.shut();
        return Err(e);
    }
    m.join(Role::Whole, d, av)?;
    Ok(m)
}

/// How a connection attempt failed ([`LaneRef::failed`]).
pub(crate) enum Failure<'a> {
    /// The peer rejected it with rxm's reject data.
    Rejected(&'a [u8]),
    /// Any other failure (positive errno).
    Error(u32),
}

/// A connection of a provider as the map uses it. Events about it go to
/// the [`LaneRef`] given to `connect` or `accept` (requests of accepted
/// connections to [`Map::request`]), from the provider's event context
/// for it, never from a call below.
pub(crate) trait MapConn<R: ProvRdm>: Send + Sync + 'static {
    /// Dials `dst` (from `src`; `None`: any) in `net`, with rxm's connect
    /// data `req` (the provider adds its own envelope); events go to `to`.
    fn connect(net: *mut c_void, src: Option<&SockAddr>, dst: &SockAddr, req: &[u8], to: LaneRef<R>) -> Result<Arc<Self>>;
    /// An accepted connection: read the peer's request, then deliver it
    /// to the map ([`Map::request`]) from its event context.
    fn start_request(self: &Arc<Self>);
    /// The peer's address and ours.
    fn addrs(&self) -> Result<(SockAddr, SockAddr)>;
    /// Accepts the request with rxm's accept data; events go to `to`.
    fn accept(self: &Arc<Self>, data: &[u8; rxm::ACCEPT_BYTES], to: LaneRef<R>) -> Result;
    /// Rejects the request with rxm's reject data (stopped later).
    fn reject(&self, data: &[u8; rxm::REJECT_BYTES]);
    /// Stops it for good (may sleep; never from its own event context).
    fn stop(&self);
    /// Stops it, then fails the operations it held (`err`, positive), and
    /// its lane's if it still is the lane's connection.
    fn retire(&self, err: u32);
}

/// Where a connection of the map reports: lane `lane` of the queues
/// `data` (the peer's address handle `from`), in map `map`. Copied into
/// the provider's connection.
pub(crate) struct LaneRef<R: ProvRdm> {
    map: *const Map<R>,
    data: *const EpQueues<R::X>,
    pub(crate) lane: u32,
    /// The handle the peer's messages report and directed receives
    /// match (`ADDR_ANY`: a peer not in the AV, until [`LaneRef::resolve`]
    /// finds it there).
    pub(crate) from: u64,
    /// The peer's listener (what the AV holds for it), and the AV's
    /// insert count when `from` was last looked for.
    listen: SockAddr,
    seen: u32,
    /// A transmit context's connection, on which the peer sends no
    /// messages.
    pub(crate) one_way: bool,
}

impl<R: ProvRdm> Clone for LaneRef<R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<R: ProvRdm> Copy for LaneRef<R> {}

impl<R: ProvRdm> LaneRef<R> {
    /// The queues it reports to.
    pub(crate) fn data_ptr(&self) -> *const EpQueues<R::X> {
        self.data
    }

    /// A connection from a peer that was not in the AV when it connected
    /// (`from` is `ADDR_ANY`): once the consumer inserted the peer's
    /// address, its messages report that handle and match receives
    /// directed to it, as with libfabric's rxm (kfilnd inserts a peer when
    /// its first message came, then posts receives directed to it). One
    /// atomic read while nothing was inserted since the last look; the
    /// caller keeps the updated copy: true when it changed (it looked).
    /// Any context but hard interrupts (the AV's lock).
    pub(crate) fn resolve(&mut self) -> bool {
        if self.from != ADDR_ANY {
            return false;
        }
        // SAFETY: as in `parts` (the map outlives its connections'
        // reports), not tied to the borrow of `self`.
        let av = unsafe { &*self.map }.av();
        let n = av.inserted();
        if n == self.seen {
            return false;
        }
        self.seen = n;
        self.from = av.find(&self.listen).unwrap_or(ADDR_ANY);
        true
    }

    fn parts(&self) -> (&Map<R>, &EpQueues<R::X>) {
        // SAFETY: an endpoint (a context) stops its connections before
        // it (its queues) and its map go (see "Lifetime"); connections
        // report only until stopped.
        unsafe { (&*self.map, &*self.data) }
    }

    /// The connection `c` is up: `data` is the peer's accept data when it
    /// was ours.
    pub(crate) fn up(&self, c: &R::Conn, data: &[u8]) {
        let (m, d) = self.parts();
        let lane = self.lane;
        if d.rdm_is_out(lane, c) {
            match Accept::decode(data) {
                Some(a) => d.rdm_out_up(lane, c, a.server_conn_id),
                None => {
                    // Not an rxm peer: this connection is no use.
                    if let Some(x) = d.rdm_event(lane, c, Event::Down, bindings::EPROTO) {
                        m.bury(x);
                    }
                }
            }
        } else if let Some(x) = d.rdm_event(lane, c, Event::InUp, 0) {
            m.bury(x);
        }
    }

    /// Our attempt `c` (or the connection being accepted) failed.
    pub(crate) fn failed(&self, c: &R::Conn, f: Failure<'_>) {
        let (m, d) = self.parts();
        let (e, errno) = match f {
            Failure::Rejected(data) => (Event::Rejected { already: rxm::reject_reason(data) == Reason::Already }, bindings::ECONNREFUSED),
            Failure::Error(err) => (Event::Down, err),
        };
        if let Some(x) = d.rdm_event(self.lane, c, e, errno) {
            m.bury(x);
        }
        if e == (Event::Rejected { already: true }) {
            m.arm_retry();
        }
    }

    /// The connection `c` ended (after failing what it held).
    pub(crate) fn down(&self, c: &R::Conn) {
        let (m, d) = self.parts();
        if let Some(x) = d.rdm_event(self.lane, c, Event::Down, bindings::ECONNRESET) {
            m.bury(x);
        }
    }
}

/// What `st` protects.
struct St<R: ProvRdm> {
    listener: Option<R::Listener>,
    /// Accepted connections whose request is not answered yet.
    pending: KVec<Arc<R::Conn>>,
    /// Connections to stop (dropped attempts, rejected requests, ended
    /// connections), by the work item. Its capacity is kept at `live` or
    /// more, so that handing one over never allocates: connections hand
    /// themselves over from their own event context, and could not stop
    /// themselves there.
    dead: KVec<Arc<R::Conn>>,
    /// Connections made (accepted or opened) and not stopped by the work
    /// item yet (an upper bound: the close stops the lanes' own).
    live: usize,
    /// Set by close: nothing is added any more.
    closing: bool,
    /// Requests between leaving `pending` and being on a lane or handed
    /// over ([`Map::request`]): the close waits for them (`settled`), as
    /// nothing else would find their connections.
    transit: usize,
    /// A scalable endpoint's contexts, enabled and not closed, by index
    /// (null: none): transmit contexts open connections, receive contexts
    /// take the peers' (the index their connect data names).
    tx: KVec<*const EpQueues<R::X>>,
    rx: KVec<*const EpQueues<R::X>>,
}

/// The connection map of an RDM endpoint (or scalable endpoint), and its
/// work item.
#[pin_data]
pub(crate) struct Map<R: ProvRdm> {
    #[pin]
    work: Work<Map<R>>,
    /// A plain RDM endpoint's queues (their lanes hold the peers, both
    /// directions); null for a scalable endpoint's map, whose contexts
    /// are in `st`.
    data: *const EpQueues<R::X>,
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
    st: Mutex<St<R>>,
    /// Signalled when `St::transit` drops to 0.
    #[pin]
    settled: CondVar,
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
/// `ctx` is a `Map<R>`, alive: its close cancels the timer first.
unsafe extern "C" fn map_retry<R: ProvRdm>(ctx: *mut c_void) {
    // SAFETY: by the contract above.
    unsafe { &*ctx.cast::<Map<R>>() }.kick();
}

// SAFETY: the raw pointers name the endpoint's queues and AV, which
// outlive the map's use of them (see "Lifetime"); the namespace is the
// fabric's, which outlives its endpoints.
unsafe impl<R: ProvRdm> Send for Map<R> {}
// SAFETY: as above; the mutable state is under `st` or atomic.
unsafe impl<R: ProvRdm> Sync for Map<R> {}

impl_has_work! {
    impl{R: ProvRdm} HasWork<Self> for Map<R> { self.work }
}

/// The rx queue depth stated in the connect data.
fn rx_size_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl<R: ProvRdm> Map<R> {
    /// The map of an endpoint with queues `data` (enabled), or with
    /// `None` of a scalable endpoint with `ctxs` transmit and receive
    /// contexts; AV `av`, listening on `src` in `net`, with receive
    /// queues of `rx_size`. Starts listening.
    pub(crate) fn start(data: Option<&EpQueues<R::X>>, ctxs: (usize, usize), av: &Av, net: *mut c_void, src: SockAddr, rx_size: usize) -> Result<Arc<Self>> {
        let data: *const EpQueues<R::X> = data.map_or(core::ptr::null(), |d| d);
        let tx = base::kvec_filled(core::ptr::null(), ctxs.0)?;
        let rx = base::kvec_filled(core::ptr::null(), ctxs.1)?;
        // SAFETY: `map_retry` does not sleep; its argument is set below,
        // before anything arms the timer; the close cancels it.
        let retry = unsafe { base::Timer::new(map_retry::<R>, core::ptr::null_mut()) }?;
        let r = Arc::pin_init(
            pin_init!(Map {
                work <- new_work!("kfi_util_rdm"),
                data,
                av,
                net,
                src,
                port: AtomicU32::new(u32::from(src.port)),
                rx_size: rx_size_of(rx_size),
                instance: base::random_u32() | 1,
                st <- new_mutex!(St { listener: None, pending: KVec::new(), dead: KVec::new(), live: 0, closing: false, transit: 0, tx, rx }, "kfi_util_rdm"),
                settled <- new_condvar!("kfi_util_rdm_settled"),
                want: AtomicBool::new(false),
                retry,
            }),
            GFP_KERNEL,
        )?;
        // SAFETY: the map outlives the timer (its close cancels it).
        unsafe { r.retry.set_ctx((&*r as *const Self).cast_mut().cast()) };
        let (l, port) = R::listen(&r, net, &src)?;
        // The port peers connect to (the address stays the one asked
        // for: any address when none was).
        r.port.store(u32::from(port), Ordering::SeqCst);
        r.st.lock().listener = Some(l);
        Ok(r)
    }

    /// The listener's address (what peers insert).
    pub(crate) fn name(&self) -> SockAddr {
        SockAddr { port: self.port.load(Ordering::SeqCst) as u16, ..self.src }
    }

    /// A plain endpoint's queues (`None`: a scalable endpoint's map).
    fn data(&self) -> Option<&EpQueues<R::X>> {
        // SAFETY: the endpoint's queues outlive the map (see "Lifetime").
        unsafe { self.data.as_ref() }
    }

    /// Endpoint (context) enable, its queues `d` enabled: `d` routes its
    /// transmits through the map, and a context joins the scalable
    /// endpoint's map (its queues stay until [`Map::leave`]).
    pub(crate) fn join(&self, role: Role, d: &EpQueues<R::X>, av: &Av) -> Result {
        let (tx, i) = match role {
            Role::Whole => {
                d.rdm_enable(self, av, false);
                return Ok(());
            }
            Role::Tx(i) => (true, i as usize),
            Role::Rx(i) => (false, i as usize),
        };
        d.rdm_enable(self, av, tx);
        let mut g = self.st.lock();
        let v = if tx { &mut g.tx } else { &mut g.rx };
        let slot = v.get_mut(i).ok_or(EINVAL)?;
        *slot = d;
        Ok(())
    }

    /// Endpoint (context) close, with its queues `d`: a plain endpoint's
    /// map stops; a context leaves its scalable endpoint's (from now on
    /// the map does not use its queues). Either way the connections of
    /// its lanes are stopped.
    pub(crate) fn leave(&self, role: Role, d: &EpQueues<R::X>) {
        let ctx = match role {
            Role::Whole => None,
            Role::Tx(i) => Some((true, i as usize)),
            Role::Rx(i) => Some((false, i as usize)),
        };
        match ctx {
            None => self.close(),
            Some((tx, i)) => {
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
        }
        for c in d.rdm_close() {
            c.stop();
        }
        if ctx.is_none() {
            // A work item running during `close` may have armed it.
            self.retry.cancel_sync();
        }
        self.settle();
    }

    /// Scalable endpoint close, after every context left: stops the
    /// listener and what is left of the connections.
    pub(crate) fn shut(&self) {
        self.close();
        self.retry.cancel_sync();
        self.settle();
    }

    /// Waits for the work item and stops the connections handed over.
    fn settle(&self) {
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
        // SAFETY: every map is in an `Arc` (made by `start`), alive here:
        // the caller holds it, or is a connection or post that the close
        // waits for.
        let a: Arc<Self> = unsafe { ArcBorrow::from_raw(self) }.into();
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

    /// A connection counted by [`Map::count_conn`] was not made after all.
    fn uncount(&self) {
        let mut g = self.st.lock();
        g.live = g.live.saturating_sub(1);
    }

    /// Hands `c` to the work item to stop. Never allocates (the room was
    /// made when `c` was counted), so it is safe from `c`'s own event
    /// context.
    fn bury(&self, c: Arc<R::Conn>) {
        let mut g = self.st.lock();
        if g.dead.push(c, GFP_NOWAIT).is_err() {
            // Not reached: every connection was counted.
            drop(g);
            base::warn_once!("kfabric: RDM connection not counted (left running)");
            return;
        }
        drop(g);
        self.kick();
    }

    /// The listener has a peer's connection: `make` makes ours of it
    /// (reporting to the map), which then reads the peer's request
    /// ([`MapConn::start_request`], then [`Map::request`]).
    pub(crate) fn accepted(&self, make: impl FnOnce(*const Self) -> Result<Arc<R::Conn>>) {
        if self.count_conn().is_err() {
            return;
        }
        let Ok(c) = make(self) else {
            self.uncount();
            return;
        };
        let mut g = self.st.lock();
        if g.closing || g.pending.push(c.clone(), GFP_KERNEL).is_err() {
            drop(g);
            // Not stopped here: this may be the connection's own event
            // context (kfi_verbs: the request's rdma_cm handler). A
            // closing map stops it after its listener is stopped.
            self.bury(c);
            return;
        }
        drop(g);
        c.start_request();
    }

    /// Rejects `c` with `reason` and hands it over to stop.
    fn refuse(&self, c: &Arc<R::Conn>, reason: Reason) {
        c.reject(&rxm::reject(reason));
        self.bury(c.clone());
    }

    /// A peer's connect request on `c` (rxm's connect data `data`, from
    /// `c`'s event context): accepted or rejected as the peer's lane
    /// decides (see the module comment).
    pub(crate) fn request(&self, c: &Arc<R::Conn>, data: &[u8]) {
        {
            let mut g = self.st.lock();
            if let Some(i) = g.pending.iter().position(|p| Arc::ptr_eq(p, c)) {
                base::kvec_remove(&mut g.pending, i);
            }
            if g.closing {
                drop(g);
                return self.refuse(c, Reason::ConnRefused);
            }
            g.transit += 1;
        }
        // Until `c` is on a lane (the close finds it there) or handed
        // over (stopped with the dead ones).
        let _transit = Transit(self);
        let (req, ext) = match (Connect::decode(data), CtxExt::decode(data)) {
            (Ok(r), Ok(e)) => (r, e),
            (Err(reason), _) | (_, Err(reason)) => return self.refuse(c, reason),
        };
        let Ok((peer, local)) = c.addrs() else {
            return self.refuse(c, Reason::Unspec);
        };
        // Its listener: where it said it listens, at the address it came
        // from; our side: the address it reached, our listener's port.
        let listen = SockAddr { port: req.port, ..peer };
        let own_port = self.name().port;
        let seen = self.av().inserted();
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
            // `st` (`leave`).
            None => match g.rx.get(rx_index).and_then(|&p| unsafe { p.as_ref() }) {
                // Nothing is sent on a connection a context accepts (its
                // scalable endpoint's own go from its transmit contexts).
                Some(d) => (d, (sep::MAX_CTX + rx_index) as u32, true),
                None => {
                    drop(g);
                    return self.refuse(c, Reason::ConnRefused);
                }
            },
            Some(_) => {
                drop(g);
                return self.refuse(c, Reason::ConnRefused);
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
        let Ok(r) = out else {
            return self.refuse(c, Reason::Unspec);
        };
        for x in r.drop.into_iter().flatten() {
            self.bury(x);
        }
        let Some((lane, accept)) = r.accept else {
            return self.refuse(c, Reason::Already);
        };
        let to = LaneRef { map: self, data: d, lane, from: handle, listen, seen, one_way: false };
        if c.accept(&accept, to).is_err() {
            // The lane lets go of it (and hands back `c` itself, buried
            // once, below).
            if let Some(x) = d.rdm_event(lane, c, Event::Down, bindings::ECONNRESET) {
                if !Arc::ptr_eq(&x, c) {
                    self.bury(x);
                }
            }
            self.bury(c.clone());
        }
    }

    /// A lane waits for the peer's request after losing a connect race:
    /// look again in [`RETRY_MS`].
    fn arm_retry(&self) {
        // Not once closing (the close cancels the timer after setting it).
        let g = self.st.lock();
        if !g.closing {
            self.retry.arm(kernel::time::msecs_to_jiffies(RETRY_MS) as u64);
        }
    }

    /// Opens the connections the lanes want: a plain endpoint's, or the
    /// transmit contexts' (only the work item uses their queues outside
    /// `st`: a closing context waits for it, [`Map::leave`]).
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
                // and this work item is done (`leave`).
                if let Some(d) = unsafe { p.as_ref() } {
                    self.connect_ctx(d, i as u32 + 1, true);
                }
                i += 1;
            }
        }
    }

    /// Opens the connections the lanes of `d` want (`ctx`: its number in
    /// our connection ids; `one_way`: a transmit context's).
    fn connect_ctx(&self, d: &EpQueues<R::X>, ctx: u32, one_way: bool) {
        if d.rdm_retry_due(kernel::time::msecs_to_jiffies(RETRY_MS) as u64) {
            self.arm_retry();
        }
        // Our connections come from our listener's address (a 1.17 peer
        // finds us in its AV by it), any port.
        let any = self.src.addr.iter().all(|&b| b == 0);
        let from = SockAddr { port: 0, ..self.src };
        while let Some(w) = d.rdm_take_want() {
            let (lane, dst, handle) = (w.lane, w.addr, w.handle);
            if self.st.lock().closing {
                return;
            }
            let c = Connect::new(self.name().port, self.rx_size, self.id(ctx, lane));
            let ext = w.one_way.then_some(CtxExt { rx_index: w.rx, flags: rxm::CTX_EXT_ONE_WAY });
            let (req, n) = CtxExt::request(&c, ext);
            let to = LaneRef { map: self, data: d, lane, from: handle, listen: dst, seen: 0, one_way };
            if self.count_conn().is_err() {
                d.rdm_connect_failed(lane, bindings::ENOMEM);
                continue;
            }
            match R::Conn::connect(self.net, (!any).then_some(&from), &dst, &req[..n], to) {
                Ok(c) => {
                    if let Some(x) = d.rdm_set_out(lane, c) {
                        self.bury(x);
                    }
                }
                Err(e) => {
                    self.uncount();
                    d.rdm_connect_failed(lane, (-e.to_errno()) as u32);
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

    /// Stops the listener, the work item and every connection not on a
    /// lane (the endpoint stops those of the lanes).
    fn close(&self) {
        let (l, pending) = {
            let mut g = self.st.lock();
            g.closing = true;
            (g.listener.take(), core::mem::replace(&mut g.pending, KVec::new()))
        };
        if let Some(l) = l {
            R::stop_listener(l);
        }
        self.retry.cancel_sync();
        for c in pending {
            c.stop();
        }
        // Requests already out of `pending` end on a lane (stopped by the
        // endpoint after this) or handed over (stopped below).
        {
            let mut g = self.st.lock();
            while g.transit > 0 {
                self.settled.wait(&mut g);
            }
        }
        // SAFETY: our initialised work item; once flushed it finds
        // `closing` and opens nothing (a post may still queue it: it then
        // only stops dead connections).
        unsafe { bindings::flush_work(Work::raw_get(&self.work)) };
        self.stop_dead();
    }
}

/// A request in transit ([`St::transit`]), counted until dropped.
struct Transit<'a, R: ProvRdm>(&'a Map<R>);

impl<R: ProvRdm> Drop for Transit<'_, R> {
    fn drop(&mut self) {
        let mut g = self.0.st.lock();
        g.transit -= 1;
        if g.transit == 0 {
            self.0.settled.notify_all();
        }
    }
}

impl<R: ProvRdm> WorkItem for Map<R> {
    type Pointer = Arc<Map<R>>;

    fn run(this: Arc<Map<R>>) {
        let _noio = base::NoIo::enter();
        this.stop_dead();
        if !this.st.lock().closing {
            this.connect_wanted();
        }
        this.stop_dead();
    }
}
