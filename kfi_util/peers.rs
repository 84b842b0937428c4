// SPDX-License-Identifier: GPL-2.0
//! The peers of a connectionless (RDM) endpoint, under its queue lock:
//! one [`Lane`] per peer (and receive context of the peer), with the
//! connection that carries its data, the transmits queued for it and the
//! state of its connection ([`Peer`], `logic::connmap`). The connection
//! map (`rdm.rs`, [`Map`]) drives these transitions from connection events;
//! posts route transmits to their lane ([`route`]). A provider keeps its
//! own per-lane state in [`Lane::x`] ([`ProvRdm::Lane`]) and its
//! connection type behind [`MapConn`].
//!
//! A MSG endpoint of a provider that uses lanes keeps its one data
//! stream on lane 0 ([`Peers::first`]), untouched by what is here.
//!
//! # Locks
//! Everything here is under the endpoint's queue lock `q` (BH spinlock):
//! nothing sleeps or allocates but with `GFP_ATOMIC`; the only provider
//! code called under it is [`ProvRdm::flow`]. Connections a transition
//! drops are handed back to the caller, which stops them outside `q`.

use super::addr::{same_addr, SockAddr};
use super::av::Av;
use super::base;
use super::logic::av as rules_av;
use super::logic::connmap::{Actions, Event, State};
use super::logic::rxm;
use super::logic::xfer::{List, ADDR_ANY};
use super::queues::{EpQueues, QueueExt, Queues};
use super::rdm::{Map, MapConn, ProvRdm};
use core::sync::atomic::Ordering;
use kernel::bindings;
use kernel::prelude::*;
use kernel::sync::Arc;

/// A provider's state of one lane (under `q`).
pub(crate) trait LaneExt: Send + 'static {
    /// A fresh lane's.
    fn new() -> Self;
    /// Holds no operation: a free lane may be reused for another peer.
    fn idle(&self) -> bool;
    /// The transmits the lane holds after sending them (failed with it, in
    /// this order); forgets what the lane owes the peer (ACKs).
    fn take_held(&mut self) -> [List; 3];
    /// Another connection takes the lane.
    fn reset_conn(&mut self);
}

/// The provider's queue part that holds an endpoint's [`Peers`].
pub(crate) trait HasPeers: QueueExt + Sized {
    type R: ProvRdm<X = Self>;
    fn peers(&self) -> &Peers<Self::R>;
    fn peers_mut(&mut self) -> &mut Peers<Self::R>;
}

/// Implements [`HasPeers`] for the provider's queue part `$x`, whose
/// field `$f` holds the lanes (of `crate::Prov`).
macro_rules! impl_has_peers {
    ($x:ty, $f:ident) => {
        impl $crate::util::peers::HasPeers for $x {
            type R = $crate::Prov;

            #[inline(always)]
            fn peers(&self) -> &$crate::util::peers::Peers<$crate::Prov> {
                &self.$f
            }

            #[inline(always)]
            fn peers_mut(&mut self) -> &mut $crate::util::peers::Peers<$crate::Prov> {
                &mut self.$f
            }
        }
    };
}
pub(crate) use impl_has_peers;

/// What an RDM endpoint knows of the peer of a lane.
pub(crate) struct Peer<R: ProvRdm> {
    /// In use: a peer of the AV, or one that connected to us.
    pub(crate) used: bool,
    /// Its address handle (`ADDR_ANY`: a peer not in the AV), and the
    /// address of its listener (where we connect).
    pub(crate) handle: u64,
    pub(crate) addr: SockAddr,
    /// The connection's state (see `connmap`).
    pub(crate) state: State,
    /// Our connection attempt while `Connecting` (the connection in use,
    /// or being accepted, is the lane's `conn`).
    pub(crate) out: Option<Arc<R::Conn>>,
    /// A connection is to be opened by the map's work item.
    pub(crate) want_connect: bool,
    /// When the lane went `Waiting` (jiffies).
    pub(crate) waiting_since: u64,
    /// The connection id the peer gave (its low 32 bits go in every rxm
    /// packet we send it; the high 32 bits name the peer's instance: a
    /// restarted peer has another).
    pub(crate) peer_id: u64,
    /// The peer's receive context our transmits on this lane go to (the
    /// top bits of their handle, `kfi_rx_addr`).
    pub(crate) rx: u16,
    /// A lane of one incoming connection (a peer not in the AV, our own
    /// request, a scalable endpoint's context connecting): nothing is
    /// sent on it but what its connection's protocol needs; released
    /// when the connection ends.
    pub(crate) inbound: bool,
    /// An inbound lane of a peer that was not in the AV when it connected,
    /// on a connection that carries both directions: the first transmit to
    /// that peer once inserted takes the lane over ([`Peers::lane_for`]),
    /// as a 1.17 peer sends on the connection it made (and refuses ours).
    pub(crate) adoptable: bool,
}

impl<R: ProvRdm> Peer<R> {
    const fn new() -> Self {
        Peer {
            used: false,
            handle: ADDR_ANY,
            addr: SockAddr { family: 0, port: 0, scope_id: 0, addr: [0; 16] },
            state: State::Idle,
            out: None,
            want_connect: false,
            waiting_since: 0,
            peer_id: 0,
            rx: 0,
            inbound: false,
            adoptable: false,
        }
    }
}

/// One data stream of an endpoint (a MSG endpoint has lane 0 only, an
/// RDM endpoint one per peer).
pub(crate) struct Lane<R: ProvRdm> {
    /// The connection that moves its data.
    pub(crate) conn: Option<Arc<R::Conn>>,
    /// RDM: the transmits queued for this peer, in posting order (a MSG
    /// endpoint's are on the toolkit's `tx_pending`).
    pub(crate) tx_pending: List,
    /// The provider's part.
    pub(crate) x: R::Lane,
    /// RDM: the peer.
    pub(crate) peer: Peer<R>,
}

impl<R: ProvRdm> Lane<R> {
    pub(crate) fn new() -> Self {
        Lane { conn: None, tx_pending: List::new(), x: R::Lane::new(), peer: Peer::new() }
    }

    /// Whether `c` is the lane's connection.
    #[inline(always)]
    pub(crate) fn is_conn(&self, c: &R::Conn) -> bool {
        self.conn.as_deref().is_some_and(|o| core::ptr::eq(o, c))
    }

    fn free(&self) -> bool {
        !self.peer.used && self.conn.is_none() && self.peer.out.is_none() && self.tx_pending.is_empty() && self.x.idle()
    }
}

/// An endpoint's lanes and how transmits find theirs (under `q`).
pub(crate) struct Peers<R: ProvRdm> {
    /// Lane 0.
    pub(crate) first: Lane<R>,
    /// Lanes 1 and up (RDM peers).
    more: KVec<Lane<R>>,
    /// Transmits are queued on the lane of their destination (RDM), not
    /// on the toolkit's `tx_pending`.
    pub(crate) per_lane_tx: bool,
    /// RDM: the connection map and the bound AV (valid while enabled:
    /// the close clears them under the lock before they go).
    map: *const Map<R>,
    av: *const Av,
    /// RDM: the lane of each AV index (+1; 0: none), and the AV's
    /// `rx_ctx_bits` (off in the index).
    by_handle: KVec<u32>,
    av_bits: u32,
    /// A transmit context of a scalable endpoint: its connections carry
    /// its transmits only (the peer sends no messages on them).
    one_way: bool,
    /// Lanes with [`Peer::adoptable`] set (none: a new peer's first
    /// transmit looks for none).
    adoptable: u32,
}

// SAFETY: `map` and `av` are only dereferenced under the queue lock while
// set (see above); the rest is Send.
unsafe impl<R: ProvRdm> Send for Peers<R> {}

impl<R: ProvRdm> Peers<R> {
    pub(crate) fn new() -> Self {
        Peers {
            first: Lane::new(),
            more: KVec::new(),
            per_lane_tx: false,
            map: core::ptr::null(),
            av: core::ptr::null(),
            by_handle: KVec::new(),
            av_bits: 0,
            one_way: false,
            adoptable: 0,
        }
    }

    #[inline(always)]
    pub(crate) fn lane(&self, l: u32) -> Option<&Lane<R>> {
        match l {
            0 => Some(&self.first),
            _ => self.more.get(l as usize - 1),
        }
    }

    #[inline(always)]
    pub(crate) fn lane_mut(&mut self, l: u32) -> Option<&mut Lane<R>> {
        match l {
            0 => Some(&mut self.first),
            _ => self.more.get_mut(l as usize - 1),
        }
    }

    /// Lane numbers in use: 0 and those of `more`.
    #[inline(always)]
    pub(crate) fn count(&self) -> u32 {
        1 + self.more.len() as u32
    }

    /// Every lane.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut Lane<R>> {
        Iterator::chain(core::iter::once(&mut self.first), self.more.iter_mut())
    }

    /// Endpoint close: every lane, taken (dropped by the caller outside
    /// the lock, once no consumer's call holds a connection).
    pub(crate) fn take_all(&mut self) -> (Lane<R>, KVec<Lane<R>>) {
        self.adoptable = 0;
        (core::mem::replace(&mut self.first, Lane::new()), core::mem::take(&mut self.more))
    }

    /// Enabled as an RDM endpoint (or context), not closed.
    #[inline(always)]
    pub(crate) fn enabled(&self) -> bool {
        !self.map.is_null()
    }

    /// The map, while enabled.
    fn map(&self) -> Option<&Map<R>> {
        // SAFETY: set while enabled; the close clears it under the queue
        // lock before the map goes.
        unsafe { self.map.as_ref() }
    }

    /// A lane for a new peer: a free one, else a new one (`GFP_ATOMIC`:
    /// under the queue lock). `None` without memory.
    fn new_lane(&mut self) -> Option<u32> {
        if let Some(l) = (0..self.count()).find(|&l| self.lane(l).is_some_and(|x| x.free())) {
            return Some(l);
        }
        self.more.push(Lane::new(), GFP_ATOMIC).ok()?;
        Some(self.count() - 1)
    }

    /// The lane of AV handle `handle` whose listener is `addr`: one per
    /// AV index and receive context (the handle's top bits, see
    /// `kfi_rx_addr`), made if there is none. A handle whose address
    /// changed (removed and reused by the AV) gets a new lane; the old one
    /// is left to its connection. `None` without memory.
    fn lane_for(&mut self, handle: u64, addr: &SockAddr) -> Option<u32> {
        let idx = rules_av::handle_index(handle, self.av_bits);
        let rx = rx_index(handle, self.av_bits);
        let at = usize::try_from(idx).ok()?;
        let ours = |x: &Lane<R>| x.peer.used && !x.peer.inbound && x.peer.handle == idx && x.peer.rx == rx && same_addr(&x.peer.addr, addr);
        if let Some(&l) = self.by_handle.get(at) {
            if l != 0 && self.lane(l - 1).is_some_and(ours) {
                return Some(l - 1);
            }
        }
        // Another receive context of the peer than the last one sent to
        // (the index remembers one lane per peer).
        let found = if rx != 0 || self.by_handle.get(at).is_some_and(|&l| l != 0) {
            (0..self.count()).find(|&l| self.lane(l).is_some_and(ours))
        } else {
            None
        };
        // A peer that connected before it was inserted: its connection
        // carries ours too.
        let adopt = |x: &Lane<R>| x.peer.adoptable && rx == 0 && same_addr(&x.peer.addr, addr);
        let found = match found {
            None if self.adoptable != 0 => (0..self.count()).find(|&l| self.lane(l).is_some_and(adopt)),
            f => f,
        };
        let lane = match found {
            Some(l) if self.lane(l).is_some_and(adopt) => {
                self.adoptable -= 1;
                let p = &mut self.lane_mut(l)?.peer;
                p.adoptable = false;
                p.inbound = false;
                p.handle = idx;
                l
            }
            Some(l) => l,
            None => {
                let l = self.new_lane()?;
                let p = &mut self.lane_mut(l)?.peer;
                *p = Peer { used: true, handle: idx, addr: *addr, rx, ..Peer::new() };
                l
            }
        };
        while self.by_handle.len() <= at {
            self.by_handle.push(0, GFP_ATOMIC).ok()?;
        }
        self.by_handle[at] = lane + 1;
        Some(lane)
    }
}

/// An AV handle's receive context (its top `bits`; one beyond any a
/// scalable endpoint has when it does not fit: the peer refuses it).
fn rx_index(handle: u64, bits: u32) -> u16 {
    rules_av::rx_index(handle, bits).min(u64::from(u16::MAX)) as u16
}

/// Operations taken off a lane, failed once the queue lock is dropped.
struct Doomed {
    held: [List; 3],
    queued: List,
}

impl Doomed {
    const NONE: Doomed = Doomed { held: [List::new(), List::new(), List::new()], queued: List::new() };

    /// Takes what the lane holds after sending it, and with `queued` the
    /// transmits not sent yet.
    fn take<R: ProvRdm>(l: &mut Lane<R>, queued: bool) -> Doomed {
        let held = l.x.take_held();
        let queued = if queued { core::mem::take(&mut l.tx_pending) } else { List::new() };
        Doomed { held, queued }
    }

    fn is_empty(&self) -> bool {
        self.queued.is_empty() && self.held.iter().all(|l| l.is_empty())
    }
}

/// What [`EpQueues::rdm_request`] decided about a peer's request.
pub(crate) struct RequestOutcome<R: ProvRdm> {
    /// Accept on lane `.0` with the accept data `.1`; `None`: reject it.
    pub(crate) accept: Option<(u32, [u8; rxm::ACCEPT_BYTES])>,
    /// Connections the decision dropped (to stop).
    pub(crate) drop: [Option<Arc<R::Conn>>; 2],
}

/// A lane that wants a connection ([`EpQueues::rdm_take_want`]).
pub(crate) struct Want {
    pub(crate) lane: u32,
    /// The peer's listener, and its handle.
    pub(crate) addr: SockAddr,
    pub(crate) handle: u64,
    /// Its receive context (connect data names it when not 0).
    pub(crate) rx: u16,
    /// The connection will carry our transmits only: a transmit
    /// context's, or one to a receive context other than 0 (see
    /// `logic::rxm::CtxExt`).
    pub(crate) one_way: bool,
}

/// Where [`route`] put a transmit.
pub(crate) struct Routed {
    /// Its lane.
    pub(crate) lane: u32,
    /// The lane's connection is up: the provider may move it now.
    pub(crate) flow: bool,
}

/// A post of transmit `i` on an RDM endpoint (under `q`, from
/// `QueueExt::posted`): it leaves the toolkit's `tx_pending` for the lane
/// of its destination (an address handle of the AV: -EINVAL otherwise),
/// which connects on its first transmit. -ENOTCONN before enable (or
/// after close), -EAGAIN without memory for a new lane.
#[inline]
pub(crate) fn route<X: HasPeers>(q: &mut Queues<X>, i: usize) -> core::result::Result<Routed, isize> {
    let neg = |e: u32| -(e as isize);
    let p = q.ext.peers();
    if p.av.is_null() {
        return Err(neg(bindings::ENOTCONN));
    }
    let dest = q.tx[i].dest;
    // SAFETY: set while enabled (checked above), the AV bound.
    let Some(addr) = unsafe { &*p.av }.lookup(dest) else {
        return Err(neg(bindings::EINVAL));
    };
    let Some(lane) = q.ext.peers_mut().lane_for(dest, &addr) else {
        return Err(neg(bindings::EAGAIN));
    };
    q.tx_links.remove(&mut q.tx_pending, i);
    let Queues { tx_links, ext, .. } = q;
    let p = ext.peers_mut();
    let map = p.map;
    let Some(l) = p.lane_mut(lane) else {
        return Err(neg(bindings::EAGAIN));
    };
    tx_links.push_back(&mut l.tx_pending, i);
    let a = l.peer.state.apply(Event::Send);
    if a.has(Actions::CONNECT) {
        l.peer.want_connect = true;
        // SAFETY: set with the AV (checked above).
        unsafe { &*map }.want_connect();
    }
    Ok(Routed { lane, flow: a.has(Actions::FLOW) })
}

/// An RDM endpoint's lanes: the connection map's changes, under the
/// queue lock.
impl<X: HasPeers> EpQueues<X> {
    /// Enable of an RDM endpoint or context: transmits go to their peer's
    /// lane; a transmit context's (`one_way`) carry only them.
    pub(crate) fn rdm_enable(&self, map: &Map<X::R>, av: &Av, one_way: bool) {
        let bits = av.rx_ctx_bits();
        let mut g = self.q.lock();
        let p = g.ext.peers_mut();
        p.one_way = one_way;
        p.per_lane_tx = true;
        p.map = map;
        p.av = av;
        p.av_bits = bits;
    }

    /// Fails what `d` took off a lane with `err`.
    fn fail_doomed(&self, mut d: Doomed, err: u32) {
        if d.is_empty() {
            return;
        }
        self.fail_picked(err, |q| {
            let i = d.held.iter_mut().find_map(|l| q.tx_links.pop_front(l));
            i.or_else(|| q.tx_links.pop_front(&mut d.queued)).map(|i| (true, i))
        });
    }

    /// A peer's request on `c`: the lane of `handle` (a new one for a
    /// peer not in the AV, and with `inbound`, see [`Peer::inbound`])
    /// decides, with `peer_wins` (rxm's rule) and its connection id;
    /// `accept` makes the accept data for the lane. `Err`: no lane (no
    /// memory, or the endpoint is closing).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn rdm_request(
        &self,
        handle: u64,
        listen: &SockAddr,
        c: &Arc<<X::R as ProvRdm>::Conn>,
        peer_id: u64,
        peer_wins: bool,
        inbound: bool,
        accept: impl FnOnce(u32) -> [u8; rxm::ACCEPT_BYTES],
    ) -> core::result::Result<RequestOutcome<X::R>, ()> {
        let (out, doomed) = {
            let mut g = self.q.lock();
            let p = g.ext.peers_mut();
            if p.map.is_null() {
                return Err(());
            }
            let lane = if handle == ADDR_ANY || inbound {
                // A peer not in the AV, ourselves, a context: a lane of
                // its own, which our sends never use (ours to ourselves
                // go on the lane of the handle, connected to this one).
                let l = p.new_lane().ok_or(())?;
                let h = if handle == ADDR_ANY { handle } else { rules_av::handle_index(handle, p.av_bits) };
                let adoptable = handle == ADDR_ANY && !inbound;
                let x = p.lane_mut(l).ok_or(())?;
                x.peer = Peer { used: true, inbound: true, adoptable, handle: h, addr: *listen, ..Peer::new() };
                p.adoptable += u32::from(adoptable);
                l
            } else {
                p.lane_for(handle, listen).ok_or(())?
            };
            let l = p.lane_mut(lane).ok_or(())?;
            let restarted = l.peer.state == State::Up && (l.peer.peer_id >> 32) != (peer_id >> 32);
            let a = l.peer.state.apply(Event::Request { peer_wins, restarted });
            let mut out = RequestOutcome { accept: None, drop: [None, None] };
            let mut doomed = Doomed::NONE;
            if a.has(Actions::DROP_OUT) {
                out.drop[0] = l.peer.out.take();
            }
            if a.has(Actions::DROP_UP) {
                // What went to the old instance is lost with it; what is
                // queued goes to the new one.
                out.drop[1] = l.conn.take();
                doomed = Doomed::take(l, false);
            }
            if a.has(Actions::ACCEPT_IN) {
                l.conn = Some(c.clone());
                l.peer.peer_id = peer_id;
                l.x.reset_conn();
                out.accept = Some((lane, accept(lane)));
            }
            (out, doomed)
        };
        self.fail_doomed(doomed, bindings::ECONNRESET);
        Ok(out)
    }

    /// Whether `c` is lane `lane`'s connection attempt of ours.
    pub(crate) fn rdm_is_out(&self, lane: u32, c: &<X::R as ProvRdm>::Conn) -> bool {
        let g = self.q.lock();
        g.ext.peers().lane(lane).and_then(|l| l.peer.out.as_deref()).is_some_and(|o| core::ptr::eq(o, c))
    }

    /// Our attempt `c` on lane `lane` is up; the peer's id is `peer_id`.
    pub(crate) fn rdm_out_up(&self, lane: u32, c: &<X::R as ProvRdm>::Conn, peer_id: u64) {
        let mut g = self.q.lock();
        let Some(l) = g.ext.peers_mut().lane_mut(lane) else {
            return;
        };
        if !l.peer.out.as_deref().is_some_and(|o| core::ptr::eq(o, c)) {
            return;
        }
        let a = l.peer.state.apply(Event::OutUp);
        if l.peer.state == State::Up {
            l.peer.peer_id = peer_id;
            l.conn = l.peer.out.take();
            l.x.reset_conn();
        }
        if a.has(Actions::FLOW) {
            if let Some(x) = &l.conn {
                X::R::flow(x);
            }
        }
    }

    /// Event `e` of connection `c` on lane `lane` (`errno`: the cause of
    /// a failure, for the transmits that waited): the connection the
    /// event dropped, to stop (the caller's own is never stopped here).
    pub(crate) fn rdm_event(&self, lane: u32, c: &<X::R as ProvRdm>::Conn, e: Event, errno: u32) -> Option<Arc<<X::R as ProvRdm>::Conn>> {
        let (bury, doomed, freed) = {
            let mut g = self.q.lock();
            let map = g.ext.peers().map;
            let l = g.ext.peers_mut().lane_mut(lane)?;
            let is = |x: &Option<Arc<<X::R as ProvRdm>::Conn>>| x.as_deref().is_some_and(|o| core::ptr::eq(o, c));
            let (out, cur) = (is(&l.peer.out), is(&l.conn));
            if !out && !cur {
                // Stale: a connection the lane no longer has.
                return None;
            }
            if out && l.peer.state != State::Connecting {
                // An attempt dropped in favour of the peer's: just goes.
                return l.peer.out.take();
            }
            let a = l.peer.state.apply(e);
            if l.peer.state == State::Waiting {
                l.peer.waiting_since = base::jiffies();
            }
            let mut bury = None;
            if out && matches!(e, Event::Rejected { .. } | Event::Down) {
                bury = l.peer.out.take();
            }
            if cur && (a.has(Actions::DROP_UP) || matches!(e, Event::Down)) {
                bury = l.conn.take();
            }
            let doomed = if a.has(Actions::FAIL_WAITING) { Doomed::take(l, true) } else { Doomed::NONE };
            let idle = l.peer.state == State::Idle;
            if cur && e == Event::Down && idle && !l.peer.inbound && !l.tx_pending.is_empty() && !map.is_null() {
                // Transmits routed after the connection's end was seen
                // (`rdm_conn_lost` failed what it had): none was sent,
                // they go on a new connection.
                if l.peer.state.apply(Event::Send).has(Actions::CONNECT) {
                    l.peer.want_connect = true;
                    // SAFETY: set while enabled (checked), under q.
                    unsafe { &*map }.want_connect();
                }
            }
            let mut freed = Doomed::NONE;
            let mut unadoptable = false;
            if l.peer.inbound && l.conn.is_none() && l.peer.out.is_none() {
                // Its connection is gone: the lane is free again.
                freed = Doomed::take(l, true);
                unadoptable = l.peer.adoptable;
                l.peer = Peer::new();
                l.x.reset_conn();
            }
            if a.has(Actions::FLOW) {
                if let Some(x) = &l.conn {
                    X::R::flow(x);
                }
            }
            if unadoptable {
                g.ext.peers_mut().adoptable -= 1;
            }
            (bury, doomed, freed)
        };
        self.fail_doomed(doomed, errno);
        self.fail_doomed(freed, errno);
        bury
    }

    /// Lanes waiting longer than `after` jiffies for the peer's request
    /// try again (they want a connection); true if some still wait.
    pub(crate) fn rdm_retry_due(&self, after: u64) -> bool {
        let now = base::jiffies();
        let mut g = self.q.lock();
        let p = g.ext.peers_mut();
        let Some(map) = p.map() else {
            return false;
        };
        let (mut due, mut waiting) = (false, false);
        let map: *const Map<X::R> = map;
        for l in p.iter_mut() {
            if l.peer.state != State::Waiting {
                continue;
            }
            if now.wrapping_sub(l.peer.waiting_since) < after {
                waiting = true;
                continue;
            }
            if l.peer.state.apply(Event::Retry).has(Actions::CONNECT) {
                l.peer.want_connect = true;
                due = true;
            }
        }
        if due {
            // SAFETY: set while enabled (checked above; still under q).
            unsafe { &*map }.want.store(true, Ordering::SeqCst);
        }
        waiting
    }

    /// The next lane that wants a connection.
    pub(crate) fn rdm_take_want(&self) -> Option<Want> {
        let mut g = self.q.lock();
        let p = g.ext.peers_mut();
        if p.map.is_null() {
            return None;
        }
        let one_way = p.one_way;
        for lane in 0..p.count() {
            let l = p.lane_mut(lane)?;
            if core::mem::take(&mut l.peer.want_connect) && l.peer.state == State::Connecting {
                return Some(Want { lane, addr: l.peer.addr, handle: l.peer.handle, rx: l.peer.rx, one_way: one_way || l.peer.rx != 0 });
            }
        }
        None
    }

    /// The attempt `c` for lane `lane` started; handed back (to stop) if
    /// the lane no longer wants it.
    pub(crate) fn rdm_set_out(&self, lane: u32, c: Arc<<X::R as ProvRdm>::Conn>) -> Option<Arc<<X::R as ProvRdm>::Conn>> {
        let mut g = self.q.lock();
        let p = g.ext.peers_mut();
        let ok = !p.map.is_null();
        match p.lane_mut(lane) {
            Some(l) if ok && l.peer.state == State::Connecting && l.peer.out.is_none() => {
                l.peer.out = Some(c);
                None
            }
            _ => Some(c),
        }
    }

    /// An attempt for lane `lane` could not start (`err`, positive): the
    /// transmits that waited for it fail.
    pub(crate) fn rdm_connect_failed(&self, lane: u32, err: u32) {
        let doomed = {
            let mut g = self.q.lock();
            let Some(l) = g.ext.peers_mut().lane_mut(lane) else {
                return;
            };
            if l.peer.state != State::Connecting || l.peer.out.is_some() {
                return;
            }
            if l.peer.state.apply(Event::Down).has(Actions::FAIL_WAITING) {
                Doomed::take(l, true)
            } else {
                Doomed::NONE
            }
        };
        self.fail_doomed(doomed, err);
    }

    /// Connection `c` of lane `lane` ended (its cleanup): if it still is
    /// the lane's, the lane's transmits fail with `err` (they were for
    /// the peer it connected to).
    pub(crate) fn rdm_conn_lost(&self, lane: u32, c: &<X::R as ProvRdm>::Conn, err: u32) {
        self.rdm_conn_lost_then(lane, c, err, || {});
    }

    /// As [`EpQueues::rdm_conn_lost`], with `first` reporting the
    /// connection's own failed transmits once the lane has let go of
    /// what it held: a transmit posted by a consumer who sees one of
    /// those failures is not failed with this connection.
    pub(crate) fn rdm_conn_lost_then(&self, lane: u32, c: &<X::R as ProvRdm>::Conn, err: u32, first: impl FnOnce()) {
        let doomed = {
            let mut g = self.q.lock();
            match g.ext.peers_mut().lane_mut(lane) {
                Some(l) if l.is_conn(c) => {
                    l.x.reset_conn();
                    Doomed::take(l, true)
                }
                _ => Doomed::NONE,
            }
        };
        first();
        self.fail_doomed(doomed, err);
    }

    /// Takes off the list `which` picks of lane `lane`'s state the first
    /// transmit for which `pred(slot, op)` holds (an operation waiting for
    /// the peer's answer): its slot, held by the caller, who completes it;
    /// `None` if none waits (a protocol error, for the caller).
    pub(crate) fn lane_take(
        &self,
        lane: u32,
        which: impl FnOnce(&mut <X::R as ProvRdm>::Lane) -> &mut List,
        mut pred: impl FnMut(usize, &super::xfer::TxOp) -> bool,
    ) -> Option<usize> {
        let mut g = self.q.lock();
        let q = &mut *g;
        let l = q.ext.peers_mut().lane_mut(lane)?;
        let tx = &q.tx;
        q.tx_links.remove_first(which(&mut l.x), |i| pred(i, &tx[i]))
    }

    /// The low 32 bits of the connection id lane `lane`'s peer gave (what
    /// our rxm packets to it carry).
    pub(crate) fn rdm_peer_id(&self, lane: u32) -> u32 {
        self.q.lock().ext.peers().lane(lane).map_or(0, |l| l.peer.peer_id as u32)
    }

    /// Close of an RDM endpoint (its map closed): no more routing; the
    /// lanes' connections and attempts, to stop.
    pub(crate) fn rdm_close(&self) -> KVec<Arc<<X::R as ProvRdm>::Conn>> {
        let mut all = KVec::new();
        loop {
            let next = {
                let mut g = self.q.lock();
                let p = g.ext.peers_mut();
                p.map = core::ptr::null();
                p.av = core::ptr::null();
                let c = p.iter_mut().find_map(|x| x.conn.take().or_else(|| x.peer.out.take()));
                c
            };
            let Some(c) = next else {
                return all;
            };
            if all.push(c.clone(), GFP_KERNEL).is_err() {
                c.stop();
            }
        }
    }
}
