// SPDX-License-Identifier: GPL-2.0
//! Tests of kfi_util/logic/connmap.rs: the connection state of an RDM
//! peer, alone and as two ends that dial each other in every order
//! (a small network model delivering their messages in any interleaving).

use kfi_util_logic::logic::connmap::*;
use proptest::prelude::*;

fn go(s: State, e: Event) -> (State, u8) {
    let (n, a) = step(s, e);
    (n, a.0)
}

#[test]
fn first_send_connects_and_later_ones_wait_then_flow() {
    assert_eq!(go(State::Idle, Event::Send), (State::Connecting, Actions::CONNECT));
    assert_eq!(go(State::Connecting, Event::Send), (State::Connecting, 0));
    assert_eq!(go(State::Connecting, Event::OutUp), (State::Up, Actions::FLOW));
    assert_eq!(go(State::Up, Event::Send), (State::Up, Actions::FLOW));
}

#[test]
fn refusal_and_failure_fail_the_waiting_and_the_next_send_reconnects() {
    assert_eq!(go(State::Connecting, Event::Rejected { already: false }), (State::Idle, Actions::FAIL_WAITING));
    assert_eq!(go(State::Connecting, Event::Down), (State::Idle, Actions::FAIL_WAITING));
    assert_eq!(go(State::Accepting, Event::Down), (State::Idle, Actions::FAIL_WAITING));
    assert_eq!(go(State::Waiting, Event::Down), (State::Idle, Actions::FAIL_WAITING));
    assert_eq!(go(State::Up, Event::Down), (State::Idle, Actions::DROP_UP));
    assert_eq!(go(State::Idle, Event::Down), (State::Idle, 0));
    // a lost race whose winner never calls: ours goes again
    assert_eq!(go(State::Waiting, Event::Retry), (State::Connecting, Actions::CONNECT));
    for s in [State::Idle, State::Connecting, State::Accepting, State::Up] {
        assert_eq!(go(s, Event::Retry), (s, 0));
    }
    assert_eq!(go(State::Idle, Event::Send), (State::Connecting, Actions::CONNECT));
}

#[test]
fn requests() {
    // nothing of ours: accepted
    assert_eq!(go(State::Idle, Event::Request { peer_wins: false, restarted: false }), (State::Accepting, Actions::ACCEPT_IN));
    assert_eq!(go(State::Waiting, Event::Request { peer_wins: true, restarted: false }), (State::Accepting, Actions::ACCEPT_IN));
    // simultaneous: the higher address keeps its own
    assert_eq!(go(State::Connecting, Event::Request { peer_wins: false, restarted: false }), (State::Connecting, Actions::REJECT_IN));
    assert_eq!(
        go(State::Connecting, Event::Request { peer_wins: true, restarted: false }),
        (State::Accepting, Actions::DROP_OUT | Actions::ACCEPT_IN)
    );
    assert_eq!(go(State::Accepting, Event::Request { peer_wins: true, restarted: false }), (State::Accepting, Actions::REJECT_IN));
    // a restarted peer's connection replaces ours; a stale request of the
    // same instance (an attempt it dropped) is refused
    assert_eq!(go(State::Up, Event::Request { peer_wins: false, restarted: true }), (State::Accepting, Actions::DROP_UP | Actions::ACCEPT_IN));
    assert_eq!(go(State::Up, Event::Request { peer_wins: true, restarted: false }), (State::Up, Actions::REJECT_IN));
    assert_eq!(go(State::Accepting, Event::InUp), (State::Up, Actions::FLOW));
    // stale outcomes change nothing
    for s in [State::Idle, State::Waiting, State::Accepting, State::Up] {
        assert_eq!(go(s, Event::OutUp), (s, 0));
        assert_eq!(go(s, Event::Rejected { already: true }), (s, 0));
    }
    for s in [State::Idle, State::Connecting, State::Waiting, State::Up] {
        assert_eq!(go(s, Event::InUp), (s, 0));
    }
}

/// A connection attempt on the wire, from `from` (0 or 1).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Msg {
    /// A connect request.
    Req { from: usize, id: u32 },
    /// Its answer: accepted or rejected (with EALREADY).
    Acc { to: usize, id: u32 },
    Rej { to: usize, id: u32 },
}

/// Two ends, 0 with the lower address; each may send first. Messages in
/// flight are delivered in the order `picks` chooses. Returns the end
/// states and the connections each end uses.
fn run(sends: [bool; 2], picks: &[usize]) -> ([State; 2], [Option<u32>; 2], usize) {
    let mut st = [State::Idle; 2];
    // the attempt each end has out (its id), the accepted one it waits on
    let mut out: [Option<u32>; 2] = [None; 2];
    let mut acc: [Option<u32>; 2] = [None; 2];
    let mut using: [Option<u32>; 2] = [None; 2];
    let mut wire: Vec<Msg> = Vec::new();
    let mut next_id = 1;
    let mut delivered = 0;
    let apply = |me: usize, e: Event, st: &mut [State; 2], out: &mut [Option<u32>; 2], acc: &mut [Option<u32>; 2], using: &mut [Option<u32>; 2], wire: &mut Vec<Msg>, next_id: &mut u32, req: Option<u32>| {
        let (n, a) = step(st[me], e);
        st[me] = n;
        if a.has(Actions::DROP_OUT) {
            out[me] = None;
        }
        if a.has(Actions::DROP_UP) {
            using[me] = None;
        }
        if a.has(Actions::REJECT_IN) {
            wire.push(Msg::Rej { to: 1 - me, id: req.unwrap() });
        }
        if a.has(Actions::ACCEPT_IN) {
            acc[me] = req;
            wire.push(Msg::Acc { to: 1 - me, id: req.unwrap() });
        }
        if a.has(Actions::CONNECT) {
            out[me] = Some(*next_id);
            wire.push(Msg::Req { from: me, id: *next_id });
            *next_id += 1;
        }
    };
    for me in 0..2 {
        if sends[me] {
            apply(me, Event::Send, &mut st, &mut out, &mut acc, &mut using, &mut wire, &mut next_id, None);
        }
    }
    let mut k = 0;
    while !wire.is_empty() {
        let i = picks.get(k).copied().unwrap_or(0) % wire.len();
        k += 1;
        let m = wire.remove(i);
        delivered += 1;
        match m {
            Msg::Req { from, id } => {
                let me = 1 - from;
                // end 1 has the higher address
                let peer_wins = from == 1;
                apply(me, Event::Request { peer_wins, restarted: false }, &mut st, &mut out, &mut acc, &mut using, &mut wire, &mut next_id, Some(id));
            }
            Msg::Acc { to, id } => {
                // The acceptor's side is up once the requester sees the
                // accept (the requester's ack, in tcp's handshake).
                if out[to] == Some(id) {
                    apply(to, Event::OutUp, &mut st, &mut out, &mut acc, &mut using, &mut wire, &mut next_id, None);
                    if st[to] == State::Up {
                        using[to] = Some(id);
                    }
                } else {
                    // an attempt dropped: the requester closes it, the
                    // acceptor sees it fail
                    let other = 1 - to;
                    if acc[other] == Some(id) {
                        acc[other] = None;
                        apply(other, Event::Down, &mut st, &mut out, &mut acc, &mut using, &mut wire, &mut next_id, None);
                    }
                    continue;
                }
                let other = 1 - to;
                if acc[other] == Some(id) {
                    apply(other, Event::InUp, &mut st, &mut out, &mut acc, &mut using, &mut wire, &mut next_id, None);
                    if st[other] == State::Up {
                        using[other] = Some(id);
                    }
                }
            }
            Msg::Rej { to, id } => {
                if out[to] == Some(id) {
                    out[to] = None;
                    apply(to, Event::Rejected { already: true }, &mut st, &mut out, &mut acc, &mut using, &mut wire, &mut next_id, None);
                }
            }
        }
        assert!(delivered < 100, "no end");
    }
    (st, using, delivered)
}

#[test]
fn one_side_connects() {
    for sends in [[true, false], [false, true]] {
        let (st, using, _) = run(sends, &[]);
        assert_eq!(st, [State::Up, State::Up]);
        assert!(using[0].is_some() && using[0] == using[1]);
    }
}

proptest! {
    /// Whoever sends first and however the messages interleave, both ends
    /// end up on one and the same connection.
    #[test]
    fn simultaneous_connects_settle_on_one_connection(picks in proptest::collection::vec(0usize..8, 0..16)) {
        let (st, using, _) = run([true, true], &picks);
        prop_assert_eq!(st, [State::Up, State::Up]);
        prop_assert!(using[0].is_some());
        prop_assert_eq!(using[0], using[1]);
    }
}

/// `State::apply` (what the toolkit's lanes call) is `step` in place.
#[test]
fn apply_is_step_in_place() {
    let mut s = State::Idle;
    assert_eq!(s.apply(Event::Send).0, Actions::CONNECT);
    assert_eq!(s, State::Connecting);
    assert_eq!(s.apply(Event::Rejected { already: true }).0, step(State::Connecting, Event::Rejected { already: true }).1 .0);
    assert_eq!(s, State::Waiting);
    assert_eq!(s.apply(Event::Retry).0, Actions::CONNECT);
    assert_eq!(s, State::Connecting);
}
