// SPDX-License-Identifier: GPL-2.0
//! Reliable connectionless endpoints (`KFI_EP_RDM`) over kfi_tcp, speaking
//! libfabric 1.17's `tcp;ofi_rxm` (Documentation/rdm.md).
//!
//! The connection map and the lanes are the toolkit's (`util::rdm`,
//! `util::peers`); what is kfi_tcp's is given to them here:
//!
//! - the connection of a lane is a kfi_tcp connection (`conn.rs`,
//!   `data.rs`) carrying rxm's connect, accept and reject data as tcp's
//!   CM messages: [`MapConn`] for [`Conn`];
//! - the listener is a kfi_tcp listener (`pep.rs`, `Listen::Rdm`);
//! - a lane's own state ([`TcpLane`]) is what the work item's stream
//!   needs: transmits waiting for ACKs, read responses, rendezvous reads.
//!
//! Connection events come from the connections' work items (process
//! context), which is the event context the toolkit's map asks for: a
//! connection cannot stop itself there (`stop` flushes it), so the map
//! hands such connections to its own work item.

use crate::conn::{Conn, Owner};
use crate::ep::Ep;
use crate::ffi::sys;
use crate::util::ep::EpAttrs;
use crate::pep::{Listen, Listener};
use crate::util::addr::SockAddr;
use crate::util::logic::rxm;
use crate::util::logic::xfer::List;
use crate::util::peers::LaneExt;
use crate::util::rdm::{LaneRef, Map, MapConn, ProvRdm};
use crate::xfer::TcpExt;
use crate::Prov;
use core::ffi::c_void;
use core::sync::atomic::Ordering;
use kernel::prelude::*;
use kernel::sync::Arc;

/// kfi_tcp's map.
pub(crate) type Rdm = Map<Prov>;

/// kfi_tcp's state of one lane (`Lane::x`), under the queue lock.
pub(crate) struct TcpLane {
    /// An untagged message waits in the connection for a receive (the
    /// last `rx_take_msg` found none): an untagged receive posted now must
    /// make progress (otherwise nothing waits for it).
    pub(crate) msg_waiting: bool,
    /// Transmits sent whole, waiting for the peer's ACK (in order).
    pub(crate) tx_await: List,
    /// Read requests sent, waiting for their responses (in order).
    pub(crate) tx_read: List,
    /// RDM: rendezvous sends whose `rndv_req` went out, waiting for the
    /// peer's `rndv_rd_done` (it reads their buffers meanwhile); tagged
    /// RMAs waiting for the target's answer.
    pub(crate) rndv_wait: List,
    /// ACKs the work item still has to send.
    pub(crate) acks_owed: usize,
}

impl LaneExt for TcpLane {
    fn new() -> TcpLane {
        TcpLane { msg_waiting: false, tx_await: List::new(), tx_read: List::new(), rndv_wait: List::new(), acks_owed: 0 }
    }

    fn idle(&self) -> bool {
        self.tx_await.is_empty() && self.tx_read.is_empty() && self.rndv_wait.is_empty()
    }

    fn take_held(&mut self) -> [List; 3] {
        self.acks_owed = 0;
        [core::mem::take(&mut self.tx_await), core::mem::take(&mut self.tx_read), core::mem::take(&mut self.rndv_wait)]
    }

    fn reset_conn(&mut self) {
        self.msg_waiting = false;
    }
}

crate::util::peers::impl_has_peers!(TcpExt, peers);

impl ProvRdm for Prov {
    type Conn = Conn;
    type Listener = Arc<Listener>;
    type Lane = TcpLane;
    type X = TcpExt;

    fn listen(map: &Rdm, net: *mut c_void, src: &SockAddr) -> Result<(Arc<Listener>, u16)> {
        let l = Listener::start(net, src, Listen::Rdm(map))?;
        match l.name() {
            Ok(n) => Ok((l, n.port)),
            Err(e) => {
                l.stop();
                Err(e)
            }
        }
    }

    fn stop_listener(l: Arc<Listener>) {
        l.stop();
    }

    /// Frames may be queued: the connection's work item sends them.
    #[inline]
    fn flow(c: &Arc<Conn>) {
        c.tx_hint.store(true, Ordering::SeqCst);
        c.kick();
    }

    fn context(domain: *mut sys::kfid_domain, attrs: EpAttrs) -> Result<Pin<KBox<Ep>>> {
        Ep::new_ctx(domain, attrs)
    }
}

impl MapConn<Prov> for Conn {
    fn connect(net: *mut c_void, src: Option<&SockAddr>, dst: &SockAddr, req: &[u8], to: LaneRef<Prov>) -> Result<Arc<Conn>> {
        Conn::connect(net, src, dst, req, Owner::Rdm(to))
    }

    fn start_request(self: &Arc<Self>) {
        self.kick();
    }

    fn addrs(&self) -> Result<(SockAddr, SockAddr)> {
        Ok((self.name(true)?, self.name(false)?))
    }

    fn accept(self: &Arc<Self>, data: &[u8; rxm::ACCEPT_BYTES], to: LaneRef<Prov>) -> Result {
        Conn::accept(self, data, Owner::Rdm(to))
    }

    fn reject(&self, data: &[u8; rxm::REJECT_BYTES]) {
        let _ = Conn::reject(self, data);
    }

    fn stop(&self) {
        Conn::stop(self);
    }

    fn retire(&self, err: u32) {
        Conn::retire(self, err);
    }
}
