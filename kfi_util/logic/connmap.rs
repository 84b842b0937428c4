// SPDX-License-Identifier: GPL-2.0
//! The connection state of one peer of a connectionless (RDM) endpoint
//! (Documentation/rdm-plan.md, R3): connections open on the first
//! transmit, are cached, and are rebuilt after a failure; simultaneous
//! connects are resolved as libfabric 1.17's rxm does, so that either end
//! may be a kernel or a userspace peer.
//!
//! The provider feeds each event of a peer to [`step`] and carries out the
//! [`Actions`] it returns, in the order of their bits' documentation;
//! `step` never fails (an event that makes no sense in a state, such as
//! the outcome of an attempt already dropped, changes nothing).
//!
//! Simultaneous connects: both ends dial each other. The end with the
//! higher address wins ([`super::rxm::requester_wins`]): it rejects the
//! other's request with `EALREADY` and keeps its own, which the other end
//! accepts. The loser drops its own attempt as soon as it accepts the
//! winner's request, or, when the rejection comes first, waits for that
//! request ([`State::Waiting`]).

/// Where a peer's connection is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// No connection: the next transmit opens one.
    Idle,
    /// Our connect request is out.
    Connecting,
    /// Our request lost a simultaneous connect (rejected with
    /// `EALREADY`): the peer's request is on its way.
    Waiting,
    /// The peer's request was accepted; its connection is being set up.
    Accepting,
    /// Data flows.
    Up,
}

/// What happened to a peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A transmit to the peer was queued.
    Send,
    /// Our connection came up.
    OutUp,
    /// Our request was refused: `already`, by the winner of a simultaneous
    /// connect (`EALREADY`); otherwise for good (the operations waiting
    /// fail).
    Rejected { already: bool },
    /// The peer's connect request came; `peer_wins`: its address is the
    /// higher ([`super::rxm::requester_wins`]); `restarted`: it comes from
    /// another instance of the peer than the connection we hold (the
    /// process part of its connection id differs: it restarted).
    Request { peer_wins: bool, restarted: bool },
    /// The accepted connection came up.
    InUp,
    /// The connection in use or being set up failed or ended.
    Down,
    /// The peer's request did not come in time after ours lost
    /// ([`State::Waiting`]): the peer was not connecting after all (a
    /// 1.17 peer refuses a request while it still holds the connection we
    /// lost, until it sees it end), so ours goes again.
    Retry,
}

/// What the provider does after an event, a set of the bits below, in
/// this order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Actions(pub u8);

impl Actions {
    /// Drop our own attempt (closing it; its outcome is no longer
    /// awaited).
    pub const DROP_OUT: u8 = 1 << 0;
    /// Drop the connection that was up (the peer replaced it): what was in
    /// flight on it fails.
    pub const DROP_UP: u8 = 1 << 1;
    /// Reject the peer's request with `EALREADY`.
    pub const REJECT_IN: u8 = 1 << 2;
    /// Accept the peer's request.
    pub const ACCEPT_IN: u8 = 1 << 3;
    /// Open a connection to the peer.
    pub const CONNECT: u8 = 1 << 4;
    /// Fail the transmits waiting for a connection (it could not be made).
    pub const FAIL_WAITING: u8 = 1 << 5;
    /// Start moving the transmits queued for the peer.
    pub const FLOW: u8 = 1 << 6;

    /// Whether `bit` is set.
    pub fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }
}

impl State {
    /// Moves to the state after `e` ([`step`]) and returns what to do.
    pub fn apply(&mut self, e: Event) -> Actions {
        let (s, a) = step(*self, e);
        *self = s;
        a
    }
}

/// The next state of a peer in `s` after `e`, and what to do.
pub fn step(s: State, e: Event) -> (State, Actions) {
    use Event as E;
    use State as S;
    let a = |bits: u8| Actions(bits);
    match (s, e) {
        (S::Idle, E::Send) => (S::Connecting, a(Actions::CONNECT)),
        (S::Up, E::Send) => (S::Up, a(Actions::FLOW)),
        // Transmits wait for the connection being made.
        (_, E::Send) => (s, a(0)),

        (S::Connecting, E::OutUp) => (S::Up, a(Actions::FLOW)),
        (S::Connecting, E::Rejected { already: true }) => (S::Waiting, a(0)),
        (S::Connecting, E::Rejected { already: false }) => (S::Idle, a(Actions::FAIL_WAITING)),
        // Outcomes of an attempt no longer ours.
        (_, E::OutUp | E::Rejected { .. }) => (s, a(0)),

        // Nothing of ours in the way: theirs is taken.
        (S::Idle | S::Waiting, E::Request { .. }) => (S::Accepting, a(Actions::ACCEPT_IN)),
        (S::Connecting, E::Request { peer_wins: true, .. }) => (S::Accepting, a(Actions::DROP_OUT | Actions::ACCEPT_IN)),
        (S::Connecting, E::Request { peer_wins: false, .. }) => (S::Connecting, a(Actions::REJECT_IN)),
        // A second request while one is being accepted.
        (S::Accepting, E::Request { .. }) => (S::Accepting, a(Actions::REJECT_IN)),
        // A restarted peer: its new connection replaces the one we hold.
        (S::Up, E::Request { restarted: true, .. }) => (S::Accepting, a(Actions::DROP_UP | Actions::ACCEPT_IN)),
        // The same instance: a request of an attempt it dropped (a
        // simultaneous connect it lost), or one made before it saw the
        // connection fail, which we see soon too (and then reconnect).
        (S::Up, E::Request { restarted: false, .. }) => (S::Up, a(Actions::REJECT_IN)),

        (S::Accepting, E::InUp) => (S::Up, a(Actions::FLOW)),
        (_, E::InUp) => (s, a(0)),

        (S::Up, E::Down) => (S::Idle, a(Actions::DROP_UP)),
        (S::Connecting | S::Waiting | S::Accepting, E::Down) => (S::Idle, a(Actions::FAIL_WAITING)),
        (S::Idle, E::Down) => (S::Idle, a(0)),

        (S::Waiting, E::Retry) => (S::Connecting, a(Actions::CONNECT)),
        (_, E::Retry) => (s, a(0)),
    }
}
