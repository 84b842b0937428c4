#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hostile-peer tests of kfi_tcp.ko: a malicious libfabric-tcp peer.

Runs inside the test VM as root, with kfabric.ko, kfi_tcp.ko and
kfi_pingpong.ko loaded. For each case it starts one kfi_pingpong
"role=sink" session (a kernel passive endpoint with one registered region
and pre-posted receives, see tests/pingpong/kfi_pingpong.c), connects to it
over TCP, performs the connection handshake of libfabric 1.17's tcp
provider exactly, then sends one malformed (or, for the good cases, valid)
thing. It then reads until the kernel closes the connection (a connection
the kernel does not close within a few seconds is a hang), waits for the
session to end and checks what the kernel reported in
/sys/kernel/debug/kfi_pingpong/last, plus the kernel log: no warning, no
BUG, no oops.

The reader cases (READER_CASES, after them) turn it around: the kernel is
the initiator, a kfi_pingpong "role=reader" session that connects to us
(we listen and answer its connection request as the passive side does)
and posts one RMA read; we answer its read requests well or hostilely
(early, extra, mis-sized, unsolicited responses) and check its report:
the EQ outcome, the read's entry, and its buffer (only what the good
responses carried written, nothing outside it).

Every case prints "KFI-RESULT PASS|FAIL hostile_<case>"; after all cases a
kernel-to-kernel pingpong proves the module still works
("hostile_module_still_works").

Wire facts: /work/shared/reference/libfabric-tcp-wire.md section 1, and
kfi_tcp/wire/{cm,hdr}.rs (what our side checks). Errno values expected
here follow kfi_tcp/data.rs: every malformed header is EPROTO (data.rs maps
all wire::WireError values to it), RMA checks give EFAULT/KFI_ENOKEY
(logic/mr.rs), a message longer than its receive KFI_ETRUNC, end of stream
inside a frame ECONNRESET, end of stream between frames KFI_SHUTDOWN with no
cause. An established connection reports KFI_SHUTDOWN on its EQ however it
ended; the sink reports the cause kfi_tcp noted as eq_err.

Standard library only.
  hostile.py [--list] [--only CASE[,CASE...]] [--port-base N] [--family 4|6]
"""

import argparse
import os
import re
import socket
import struct
import subprocess
import sys
import threading
import traceback
import time
from collections import namedtuple

DBG = "/sys/kernel/debug/kfi_pingpong"
# The sink's address and the prefix of the result names; --family 6 runs
# the cases over IPv6 (::1) as "hostile6_<case>".
ADDR = "127.0.0.1"
PREFIX = "hostile_"

# The sink's setup (kfi_pingpong defaults; passed explicitly anyway).
KEY = 7
RECVS = 4               # untagged receives; as many tagged ones
RECV_SIZE = 64
MR_LEN = 4096
FILL = 0xA5
TAG = 1234

# The reader's read (kfi_pingpong role=reader): region i at RADDR + i *
# RLEN, RLEN bytes, key KEY; 4 regions a request frame (WIRE_IOVS); a
# well-behaved peer answers with fi_pingpong's alphabet, byte i of the
# read's buffer being ALPHABET[i % 62] (never the buffer's fill byte).
RADDR = 0x1000
RLEN = 16
WIRE_IOVS = 4
ALPHABET = (b"0123456789abcdefghijklmnopqrstuvwxyz"
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")

# Timing.
SINK_TIMEOUT_MS = 10000  # the sink's bound on every wait
CLOSE_TIMEOUT = 5.0      # the kernel must close the connection by then
CONNECT_TIMEOUT = 5.0    # the sink's passive endpoint must listen by then

# Errno values (positive, as in the EQ/CQ error entries).
EFAULT = 14
EPROTO = 71
ECONNRESET = 104
ECANCELED = 125
KFI_ETRUNC = 265
KFI_ENOKEY = 266

# Data frame ops, flags and op_data (kfi_tcp/wire/hdr.rs).
OP_MSG, OP_TAGGED, OP_READ_REQ, OP_READ_RSP, OP_WRITE = 0, 1, 2, 3, 4
F_REMOTE_CQ_DATA = 0x1
F_DELIVERY_COMPLETE = 0x4
F_TAGGED = 0x80
OP_DATA_ACK = 2
BASE_HDR = 16

# Kernel log lines that mean something went wrong in the kernel.
KERNEL_BAD = re.compile(
    r"WARNING:|BUG:|Oops|KASAN|UBSAN|general protection|Call Trace:|"
    r"kernel BUG|Kernel panic|scheduling while atomic|"
    r"sleeping function called|possible circular locking|"
    r"dropped an unexpected tagged message")


# ------------------------------------------------------------ wire

def connreq(data=b"", version=3, kind=0, seg_size=None, probe=1):
    """The 32-byte control header (+ CM data) the active side sends.

    seg_size is big-endian; conn_data is the endianness probe, 1 in our
    native order. The parameters let a case break any field.
    """
    if seg_size is None:
        seg_size = len(data)
    return (bytes([version, kind]) + struct.pack(">H", seg_size) +
            struct.pack("=IQQQ", 0, 0, 0, probe) + data)


def frame(op, payload=b"", flags=0, op_data=0, cq_data=None, tag=None,
          iovs=(), version=3, rma_iov_cnt=None, hdr_size=None, size=None):
    """A data frame: 16-byte base header, extension words, payload.

    Multi-byte fields are in native order (both ends are this host).
    rma_iov_cnt, hdr_size and size default to the consistent values;
    passing them explicitly makes a malformed frame.
    """
    ext = b""
    if cq_data is not None:
        ext += struct.pack("=Q", cq_data)
    if tag is not None:
        ext += struct.pack("=Q", tag)
    for addr, length, key in iovs:
        ext += struct.pack("=QQQ", addr, length, key)
    if rma_iov_cnt is None:
        rma_iov_cnt = len(iovs)
    if hdr_size is None:
        hdr_size = BASE_HDR + len(ext)
    if size is None:
        size = BASE_HDR + len(ext) + len(payload)
    base = struct.pack("=BBHBBBBQ", version, op, flags, op_data,
                       rma_iov_cnt, hdr_size, 0, size)
    return base + ext + payload


def parse_frames(data):
    """Splits bytes the kernel sent into (op, op_data, flags, payload)."""
    out = []
    off = 0
    while off + BASE_HDR <= len(data):
        _v, op, flags, op_data, _cnt, hsize, _id, size = struct.unpack_from(
            "=BBHBBBBQ", data, off)
        if size < hsize or off + size > len(data):
            break
        out.append((op, op_data, flags, data[off + hsize:off + size]))
        off += size
    return out, len(data) - off


# ------------------------------------------------------------ plumbing

class Sink:
    """One kfi_pingpong role=sink session, run by a thread's write."""

    def __init__(self, port, extra=""):
        self.line = ("role=sink addr=%s port=%d key=%d recvs=%d "
                     "recv_size=%d timeout_ms=%d %s" %
                     (ADDR, port, KEY, RECVS, RECV_SIZE, SINK_TIMEOUT_MS,
                      extra)).strip()
        self._init()

    def _init(self):
        self.errno = None       # 0 when the write succeeded
        self.failure = None     # anything else that went wrong
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        try:
            fd = os.open(DBG + "/run", os.O_WRONLY)
        except Exception as e:
            self.failure = repr(e)
            return
        try:
            os.write(fd, self.line.encode())
            self.errno = 0
        except OSError as e:
            self.errno = e.errno
        except Exception as e:
            self.failure = repr(e)
        finally:
            os.close(fd)

    def start(self):
        self.thread.start()

    def wait(self):
        """True once the session is over (bounded by its own timeout)."""
        self.thread.join(SINK_TIMEOUT_MS / 1000.0 * 2 + 10)
        return not self.thread.is_alive()


class Reader(Sink):
    """One kfi_pingpong role=reader session: the kernel connects to us
    and posts one read of `regions` regions (region i at RADDR + i * RLEN,
    RLEN bytes, key KEY)."""

    def __init__(self, port, regions, extra=""):
        self.line = ("role=reader addr=%s port=%d key=%d regions=%d "
                     "raddr=%d rlen=%d timeout_ms=%d %s" %
                     (ADDR, port, KEY, regions, RADDR, RLEN,
                      SINK_TIMEOUT_MS, extra)).strip()
        self._init()


def read_last():
    with open(DBG + "/last") as f:
        return f.read()


def parse_report(text, role="sink"):
    """The key=value words of the sink's (reader's) line of "last"."""
    for line in text.splitlines():
        words = line.split()
        if role in words and any(w.startswith("eq=") for w in words):
            return dict(w.split("=", 1) for w in words if "=" in w)
    return None


def kernel_log():
    try:
        return subprocess.run(["dmesg"], capture_output=True, text=True,
                              check=False).stdout.splitlines()
    except OSError:
        return []


def connect(port):
    """TCP connection to the sink, retried until its pep listens."""
    deadline = time.monotonic() + CONNECT_TIMEOUT
    while True:
        try:
            s = socket.create_connection((ADDR, port), timeout=1.0)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            s.settimeout(CLOSE_TIMEOUT)
            return s
        except (ConnectionRefusedError, socket.timeout):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("end of stream after %d of %d bytes" %
                                  (len(buf), n))
        buf += chunk
    return buf


def handshake(s):
    """Active side of the CM exchange: connreq out, connresp in."""
    s.sendall(connreq())
    resp = recv_exact(s, 32)
    if resp[0] != 3 or resp[1] != 1:
        raise ConnectionError("bad connresp: version %d type %d" %
                              (resp[0], resp[1]))
    (seg_size,) = struct.unpack_from(">H", resp, 2)
    (probe,) = struct.unpack_from("=Q", resp, 24)
    if probe != 1:
        raise ConnectionError("connresp endianness probe %#x" % probe)
    if seg_size:
        recv_exact(s, seg_size)


def read_to_eof(s, timeout=CLOSE_TIMEOUT):
    """Reads until the kernel closes: ("eof"|"reset"|"hang", bytes)."""
    data = b""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return "hang", data
        s.settimeout(left)
        try:
            chunk = s.recv(1 << 16)
        except socket.timeout:
            return "hang", data
        except ConnectionResetError:
            return "reset", data
        if not chunk:
            return "eof", data
        data += chunk


def half_close(s):
    """Ends our direction (FIN); the kernel may have closed already."""
    try:
        s.shutdown(socket.SHUT_WR)
    except OSError:
        pass


TCP_ESTABLISHED = 1


def tcp_sock(local_port, peer_port):
    """(state, tx_queue, rx_queue) of the loopback TCP socket with local
    port local_port and peer port peer_port, from /proc/net/tcp (tcp6 for
    IPv6): its TCP state, the bytes written to it and not acknowledged
    yet, the bytes received and not read yet; None if not found."""
    want = ":%04X" % local_port, ":%04X" % peer_port
    name = "/proc/net/tcp6" if ":" in ADDR else "/proc/net/tcp"
    with open(name) as f:
        for line in f.readlines()[1:]:
            w = line.split()
            if w[1].endswith(want[0]) and w[2].endswith(want[1]):
                tx, rx = w[4].split(":")
                return int(w[3], 16), int(tx, 16), int(rx, 16)
    return None


def tcp_queues(local_port, peer_port):
    """(tx_queue, rx_queue) of tcp_sock(), None if not found."""
    q = tcp_sock(local_port, peer_port)
    return None if q is None else q[1:]


def kernel_rx_queue(local_port, peer_port):
    """Bytes the kernel has not read yet on its end of our connection
    (its socket: local port local_port, peer port peer_port); None if
    not found."""
    q = tcp_queues(local_port, peer_port)
    return None if q is None else q[1]


def reset(s):
    """Closes with SO_LINGER {1, 0}: the kernel gets a RST."""
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                 struct.pack("ii", 1, 0))
    s.close()


def send_in_background(s, data, then_close=False):
    """Sends data from a thread (the kernel may stop reading); with
    then_close, ends our direction once all of it is sent."""
    def run():
        try:
            s.sendall(data)
            if then_close:
                half_close(s)
        except OSError:
            pass        # reset or timed out: the kernel closed or stalled
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


class FrameReader:
    """Reads the kernel's frames off a socket as they come."""

    def __init__(self):
        self.buf = bytearray()
        self.shut = False       # we ended our side

    def read(self, s, timeout):
        """One read: (None, frames) or, at the end, (status, frames)
        with status "eof", "reset" or "hang" (nothing for timeout s)."""
        s.settimeout(timeout)
        try:
            chunk = s.recv(1 << 16)
        except socket.timeout:
            return "hang", []
        except ConnectionResetError:
            return "reset", []
        if not chunk:
            return ("eof" if not self.buf else "eof mid-frame"), []
        self.buf += chunk
        frames, rest = parse_frames(bytes(self.buf))
        del self.buf[:len(self.buf) - rest]
        return None, frames


# ------------------------------------------------------------ cases
#
# A case's act(s, notes, port) gets the connected, handshaken socket
# (port: the sink's). It sends, and returns "close" if the kernel must now
# close the connection (read to EOF with a bound), or "gone" if the case
# is done with the socket. notes is a list for facts to print and
# problems found (strings starting with "!").

# What every error case reports: all 2 * RECVS receives fail, the first
# error entry being the connection's error when a receive was being filled
# (otherwise ECANCELED for all), nothing received, region untouched.
def error_report(err, first_cq_err=ECANCELED):
    # An established connection ended by an error reports KFI_SHUTDOWN
    # (as libfabric's tcp provider does); the cause is what kfi_tcp noted
    # (the sink's eq_err), the operations fail with error entries.
    return {"eq": "shutdown", "eq_err": err, "cq_errs": 2 * RECVS,
            "first_cq_err": first_cq_err, "recvs_done": 0,
            "mr_intact": 1, "mr_changed": 0, "unreported": 0}


def good_report(recv_data, mr_changed=0):
    # one receive completes; the other 2 * RECVS - 1 are flushed
    return {"eq": "shutdown", "eq_err": 0, "cq_errs": 2 * RECVS - 1,
            "first_cq_err": ECANCELED, "recvs_done": 1, "mr_intact": 1,
            "mr_changed": mr_changed, "unreported": 0,
            "recv_data": recv_data.hex()}


GOOD = bytes(range(0x30, 0x40))         # 16 bytes that are not FILL


def act_truncated(s, notes, port):
    # 8 bytes of a valid send header, then end of stream (FIN)
    s.sendall(frame(OP_MSG, GOOD)[:8])
    half_close(s)
    return "close"


def act_bad_version(s, notes, port):
    s.sendall(frame(OP_MSG, GOOD, version=2))
    return "close"


def act_unknown_op(s, notes, port):
    s.sendall(frame(9, GOOD))
    return "close"


def act_hdr_size_flags(s, notes, port):
    # CQ data flag set but hdr_size 16: where is the CQ data word?
    s.sendall(frame(OP_MSG, GOOD, flags=F_REMOTE_CQ_DATA, hdr_size=16))
    return "close"


def act_size_lt_hdr(s, notes, port):
    s.sendall(frame(OP_MSG, size=8))
    return "close"


def act_rma_iov_cnt5(s, notes, port):
    # a write with 5 iovs (the limit is 4), header sized consistently
    iovs = [(0, 8, KEY)] * 5
    s.sendall(frame(OP_WRITE, b"\x11" * 40, iovs=iovs))
    return "close"


def act_write_oob(s, notes, port):
    # crosses the end of the 4096-byte region
    s.sendall(frame(OP_WRITE, b"\x22" * 200, iovs=[(4000, 200, KEY)]))
    return "close"


def act_write_wrap(s, notes, port):
    # addr + len wraps around 2^64
    s.sendall(frame(OP_WRITE, b"\x22" * 16,
                    iovs=[(2 ** 64 - 8, 16, KEY)]))
    return "close"


def act_write_badkey(s, notes, port):
    s.sendall(frame(OP_WRITE, b"\x33" * 16, iovs=[(0, 16, KEY + 1)]))
    return "close"


def act_read_oob(s, notes, port):
    s.sendall(frame(OP_READ_REQ, iovs=[(4090, 100, KEY)]))
    return "close"


def act_stray_ack(s, notes, port):
    s.sendall(frame(OP_MSG, op_data=OP_DATA_ACK))
    return "close"


def act_msg_too_long(s, notes, port):
    # the kernel drops the rest of the frame and goes on: our clean end
    # of stream, between frames, ends the connection
    s.sendall(frame(OP_MSG, b"\x44" * (RECV_SIZE + 36)))
    half_close(s)
    return "close"


def act_stray_read_rsp(s, notes, port):
    s.sendall(frame(OP_READ_RSP, b"\x55" * 8))
    return "close"


def act_reset_mid_frame(s, notes, port):
    # a send header announcing RECV_SIZE bytes, half of them, then RST
    f = frame(OP_MSG, b"\x66" * RECV_SIZE)
    s.sendall(f[:BASE_HDR + RECV_SIZE // 2])
    time.sleep(0.2)     # let the kernel start filling the receive
    reset(s)
    return "gone"


def act_reset_at_boundary(s, notes, port):
    # a whole valid send, then RST between frames
    s.sendall(frame(OP_MSG, GOOD))
    time.sleep(0.2)
    reset(s)
    return "gone"


def act_flood(s, notes, port):
    # a send claiming 2^40 bytes, then 10 MB of garbage
    garbage = bytes((i * 7 + 3) & 0xFF for i in range(1 << 16)) * 160
    # the kernel reads and drops it all (truncation), until our end of
    # stream inside the frame
    send_in_background(s, frame(OP_MSG, size=BASE_HDR + (1 << 40)) +
                       garbage, then_close=True)
    return "close"


def act_tagged_flood(s, notes, port):
    # the same with a tagged send that matches the posted tagged receives
    garbage = bytes(1 << 20) * 10
    send_in_background(s, frame(OP_TAGGED, tag=TAG, size=BASE_HDR + 8 +
                                (1 << 40)) + garbage, then_close=True)
    return "close"


def act_eof_awaiting_recv(s, notes, port):
    # a tagged send nobody expects (tag 999), too large to be buffered as
    # unexpected (the limit is 4 MiB), so it waits for its receive; the
    # peer ends the stream after 1000 of its 8 MiB: end of stream inside a
    # frame
    s.sendall(frame(OP_TAGGED, tag=999, size=BASE_HDR + 8 + (8 << 20)) +
              b"\x77" * 1000)
    time.sleep(0.2)
    half_close(s)
    return "close"


def act_unexp_flood(s, notes, port):
    """20000 zero-length tagged sends nobody expects (tag 999), then a
    valid tagged send (tag 1234) and a clean end of stream.

    480 KB of frames, under the 4 MiB of unexpected messages a connection
    buffers even counting 200 bytes of bookkeeping per message: the kernel
    must get through them promptly (a few seconds), without a warning and
    without dropping any, and deliver the valid send.
    """
    burst = frame(OP_TAGGED, tag=999) * 20000 + frame(OP_TAGGED, GOOD,
                                                       tag=TAG)
    t0 = time.monotonic()
    s.sendall(burst)
    half_close(s)
    notes.append("sent %d bytes in %.1f s" % (len(burst),
                                               time.monotonic() - t0))
    return "close"


def act_read_req_flood(s, notes, port):
    """20000 read requests of the whole region, responses read late.

    The responses (4 KiB each) fill the socket after a few thousand; the
    requests (40 bytes each) keep coming. The kernel may stop reading
    requests until its responses drain (back-pressure) or queue their
    responses, but not without bound. The responses are only read once
    the kernel has taken all requests off its socket, or stopped taking
    them for 3 s; then every request must be answered with the region's
    bytes, and the stream end cleanly.
    """
    count = 20000
    sender = send_in_background(s, frame(OP_READ_REQ,
                                         iovs=[(0, MR_LEN, KEY)]) * count)
    ours = s.getsockname()[1]
    last, since = -1, time.monotonic()
    while True:
        queued = kernel_rx_queue(port, ours)
        if queued is None:
            notes.append("the kernel's end of the connection is gone")
            break
        if queued == 0 and not sender.is_alive():
            break
        if queued != last:
            last, since = queued, time.monotonic()
        elif time.monotonic() - since > 3.0:
            notes.append("kernel stopped reading requests "
                         "(back-pressure), %d bytes left" % queued)
            break
        time.sleep(0.1)
    want = bytes([FILL]) * MR_LEN
    reader = FrameReader()
    rsps = bad = 0
    status = None
    while status is None:
        if rsps + bad >= count and not reader.shut:
            half_close(s)
            reader.shut = True
        status, frames = reader.read(s, CLOSE_TIMEOUT)
        for op, _op_data, _flags, payload in frames:
            rsps += op == OP_READ_RSP
            bad += op != OP_READ_RSP or payload != want
    notes.append("%d read responses, %d bad frames, stream %s" %
                 (rsps, bad, status))
    if rsps != count or bad:
        notes.append("!expected %d read responses of the region's bytes" %
                     count)
    if status == "hang":
        notes.append("!hang: the kernel stopped answering")
    return "gone"


def act_good_send(s, notes, port):
    s.sendall(frame(OP_MSG, GOOD))
    half_close(s)
    return "close"


def act_good_tagged(s, notes, port):
    s.sendall(frame(OP_TAGGED, GOOD, tag=TAG))
    half_close(s)
    return "close"


def act_good_rma(s, notes, port):
    # write 16 bytes at offset 0 asking for an ACK, read 32 bytes back
    s.sendall(frame(OP_WRITE, GOOD, flags=F_DELIVERY_COMPLETE,
                    iovs=[(0, 16, KEY)]) +
              frame(OP_READ_REQ, iovs=[(0, 32, KEY)]))
    half_close(s)
    status, data = read_to_eof(s)
    frames, rest = parse_frames(data)
    acks = [f for f in frames if f[0] == OP_MSG and f[1] == OP_DATA_ACK]
    rsps = [f for f in frames if f[0] == OP_READ_RSP]
    want = GOOD + bytes([FILL]) * 16
    if len(acks) != 1:
        notes.append("!expected 1 ACK, got %d" % len(acks))
    if len(rsps) != 1 or rsps[0][3] != want:
        notes.append("!read response %r, expected %s" %
                     ([f[3].hex() for f in rsps], want.hex()))
    if rest or len(frames) != 2:
        notes.append("!%d frames, %d stray bytes from the kernel" %
                     (len(frames), rest))
    if status == "hang":
        notes.append("!hang: the kernel did not close the connection")
    return "gone"


def act_cm_garbage(s, notes, port):
    """Bad connection requests first, then this good connection.

    Each bad one must be closed by the kernel without a CONNREQ event;
    the passive endpoint must then still accept the good one.
    """
    bad = [
        ("version 2", connreq(version=2)),
        ("type connresp", connreq(kind=1)),
        ("type 9", connreq(kind=9)),
        ("seg_size 300", connreq(seg_size=300) + bytes(300)),
        ("probe 2", connreq(probe=2)),
        ("probe 0", connreq(probe=0)),
        ("10 bytes then FIN", connreq()[:10]),
    ]
    for name, data in bad:
        b = connect(port)
        b.sendall(data)
        if name.endswith("FIN"):
            half_close(b)
        status, got = read_to_eof(b)
        b.close()
        if status == "hang" or got:
            notes.append("!connreq %s: %s after %d bytes" %
                         (name, status, len(got)))
    handshake(s)
    s.sendall(frame(OP_MSG, GOOD))
    half_close(s)
    return "close"


class Case(namedtuple("Case", "name act expect sink_args handshake")):
    """A case: act(s, notes, port) after the handshake (unless
    handshake=False), the sink report expected, extra sink keys."""

    def __new__(cls, name, act, expect, sink_args="", handshake=True):
        return super().__new__(cls, name, act, expect, sink_args, handshake)


CASES = [
    # end of stream inside a frame (data.rs: ECONNRESET)
    Case("truncated", act_truncated, error_report(ECONNRESET)),
    # malformed headers: wire::WireError, mapped to EPROTO by data.rs
    Case("bad_version", act_bad_version, error_report(EPROTO)),
    Case("unknown_op", act_unknown_op, error_report(EPROTO)),
    Case("hdr_size_flags", act_hdr_size_flags, error_report(EPROTO)),
    Case("size_lt_hdr", act_size_lt_hdr, error_report(EPROTO)),
    Case("rma_iov_cnt5", act_rma_iov_cnt5, error_report(EPROTO)),
    # RMA checks (logic/mr.rs): before a byte is written
    Case("write_oob", act_write_oob, error_report(EFAULT)),
    Case("write_wrap", act_write_wrap, error_report(EFAULT)),
    Case("write_badkey", act_write_badkey, error_report(KFI_ENOKEY)),
    Case("read_oob", act_read_oob, error_report(EFAULT)),
    # frames nobody asked for
    Case("stray_ack", act_stray_ack, error_report(EPROTO)),
    Case("stray_read_rsp", act_stray_read_rsp, error_report(EPROTO)),
    # longer than its receive: that receive alone fails with KFI_ETRUNC
    # (the bytes that fit delivered), the rest of the frame is read and
    # dropped, the connection goes on until the peer's clean close
    Case("msg_too_long", act_msg_too_long,
         error_report(0, KFI_ETRUNC)),
    # a frame claiming 2^40 bytes is drained until the peer stops: end of
    # stream inside it, the receive it was truncated into fails with that
    Case("flood_1tb", act_flood, error_report(ECONNRESET, ECONNRESET)),
    Case("tagged_flood_1tb", act_tagged_flood,
         error_report(ECONNRESET, ECONNRESET)),
    # a reset while a receive is being filled: it fails with ECONNRESET
    Case("reset_mid_frame", act_reset_mid_frame,
         error_report(ECONNRESET, ECONNRESET)),
    # a reset is a socket error also between frames (Documentation/
    # kfi_tcp.md: socket errors end the connection with an EQ error)
    Case("reset_at_boundary", act_reset_at_boundary,
         dict(error_report(ECONNRESET), recvs_done=1,
              cq_errs=2 * RECVS - 1, recv_data=GOOD.hex())),
    # end of stream inside a frame whose header was read
    Case("eof_awaiting_recv", act_eof_awaiting_recv,
         error_report(ECONNRESET)),
    # resource bounds
    Case("unexp_flood", act_unexp_flood, good_report(GOOD)),
    # 20000 responses: the sink's 10 s bound is a hang detector, too
    # tight for this much work on the debug kernel (KASAN); 60 s still
    # catches a hang
    Case("read_req_flood", act_read_req_flood,
         dict(error_report(0), eq="shutdown"), sink_args="timeout_ms=60000"),
    # the connection-request phase: bad requests, then a good one
    Case("cm_garbage", act_cm_garbage, good_report(GOOD),
         handshake=False),
    # valid traffic
    Case("good_send", act_good_send, good_report(GOOD)),
    Case("good_tagged", act_good_tagged, good_report(GOOD)),
    Case("good_rma", act_good_rma,
         dict(good_report(b"", mr_changed=16), recvs_done=0,
              cq_errs=2 * RECVS), sink_args="expect_write=16"),
]


def run_case(c, port):
    """One sink session; returns True if the case passed."""
    notes = []
    log_mark = len(kernel_log())
    sink = Sink(port, c.sink_args)
    sink.start()
    t0 = time.monotonic()
    s = None
    try:
        s = connect(port)
        if c.handshake:
            handshake(s)
        how = c.act(s, notes, port)
        if how == "close":
            status, data = read_to_eof(s)
            if status == "hang":
                notes.append("!hang: the kernel did not close the "
                             "connection within %.0f s" % CLOSE_TIMEOUT)
            else:
                notes.append("kernel closed (%s) after %.1f s" %
                             (status, time.monotonic() - t0))
    except Exception as e:  # any failure of the peer side fails the case
        notes.append("!peer side failed: %r" % e)
    finally:
        if s is not None:
            s.close()
    if not sink.wait():
        notes.append("!the sink session did not end")
    elif sink.failure is not None:
        notes.append("!the sink session failed: %s" % sink.failure)
    elif sink.errno is None:
        notes.append("!the sink session did not run")
    elif sink.errno:
        notes.append("!write to run failed: %s" % os.strerror(sink.errno))
    last = read_last()
    report = parse_report(last)
    if report is None:
        notes.append("!no sink report in last: %r" % last.strip())
    else:
        for key, want in c.expect.items():
            got = report.get(key)
            if got != str(want):
                notes.append("!%s=%s, expected %s" % (key, got, want))
    bad = [l for l in kernel_log()[log_mark:] if KERNEL_BAD.search(l)]
    if bad:
        notes.append("!kernel log: %s" % " | ".join(bad[:6]))
    ok = not any(n.startswith("!") for n in notes)
    print("KFI-RESULT %s %s%s" % ("PASS" if ok else "FAIL", PREFIX, c.name))
    if report is not None:
        print("    report: %s" % " ".join(
            "%s=%s" % (k, report[k]) for k in
            ("eq", "eq_err", "cq_errs", "first_cq_err", "recvs_done",
             "mr_intact", "mr_changed", "unreported") if k in report))
    for n in notes:
        print("    %s" % n.lstrip("!"))
    sys.stdout.flush()
    return ok


# ------------------------------------------------------------ reader cases
#
# The kernel as the initiator of an RMA read (kfi_pingpong role=reader):
# we listen, the kernel connects (we answer its connection request as the
# passive side does), posts one kfi_readmsg() and sends its read requests;
# we answer them, well or not. A read over more than 4 regions goes out as
# several request frames, and responses carry no request id: they answer
# the requests in order (wire doc section 1). kfi_tcp (xfer.rs read_take,
# data.rs FrameKind::ReadRsp) takes a response as the next one of the
# oldest read whose request frames are in its socket; a response to a
# request not sent whole yet, or with no read outstanding, or whose length
# is not the one asked for, is the peer's protocol error: EPROTO, the
# connection ends (KFI_SHUTDOWN with EPROTO as the cause noted), every
# operation is failed or flushed first. The read's error entry: EPROTO
# when the refused response was for its last request frame (data.rs fails
# it then), else ECANCELED (it is still on the outstanding reads and the
# flush fails it); the cause is eq_err. Nothing is written into the read's
# buffer but the responses taken before the bad one, nothing outside it.

ReaderCase = namedtuple("ReaderCase",
                        "name act expect regions rcvbuf wmem check")


def reader_case(name, act, expect, regions=6, rcvbuf=None, wmem=None,
                check=None):
    """A reader case: act(s, notes, ctx) on the accepted, handshaken
    socket (ctx: a dict for facts check(report, ctx, notes) looks at);
    expect: the reader's report keys; rcvbuf: SO_RCVBUF of our listening
    socket; wmem: net.ipv4.tcp_wmem while the case runs (the kernel's
    socket send buffer)."""
    return ReaderCase(name, act, expect, regions, rcvbuf, wmem, check)


def alphabet(off, n):
    """The n bytes a well-behaved peer sends for buffer offset off."""
    return bytes(ALPHABET[(off + i) % len(ALPHABET)] for i in range(n))


def chunks_of(regions):
    """(offset in the read's buffer, length) of each request frame's
    share of a read of `regions` regions of RLEN bytes."""
    return [(j * RLEN, min(WIRE_IOVS, regions - j) * RLEN)
            for j in range(0, regions, WIRE_IOVS)]


def req_frame_len(n):
    """Bytes of a read request frame of n regions."""
    return BASE_HDR + 24 * n


def rsp(off, n):
    """A read response carrying the n bytes of buffer offset off."""
    return frame(OP_READ_RSP, alphabet(off, n))


def parse_reqs(data):
    """Splits bytes the kernel sent into read requests: a list of
    (op, [(addr, len, key)...]) and the bytes left over."""
    out = []
    off = 0
    while off + BASE_HDR <= len(data):
        _v, op, flags, _od, cnt, hsize, _id, size = struct.unpack_from(
            "=BBHBBBBQ", data, off)
        if size < hsize or off + size > len(data):
            break
        ext = off + BASE_HDR + (8 if flags & F_REMOTE_CQ_DATA else 0)
        iovs = [struct.unpack_from("=QQQ", data, ext + 24 * k)
                for k in range(cnt)] if op == OP_READ_REQ else []
        out.append((op, iovs))
        off += size
    return out, len(data) - off


def check_reqs(reqs, regions, notes, complete=True):
    """The requests are the read's frames in order, each with its
    regions (all of them with complete, else a prefix)."""
    want = [(RADDR + i * RLEN, RLEN, KEY) for i in range(regions)]
    got = []
    for op, iovs in reqs:
        if op != OP_READ_REQ:
            notes.append("!the kernel sent a frame of op %d" % op)
            return
        if len(iovs) > WIRE_IOVS:
            notes.append("!a read request of %d regions" % len(iovs))
        got += iovs
    n = len(got) if not complete else len(want)
    if got != want[:n] or (complete and len(got) != len(want)):
        notes.append("!read requests %r, expected %r" % (got[:8], want[:8]))


def read_reqs(s, regions, notes):
    """Reads the kernel's request frames of a read of `regions` regions
    (all of them), checking each; True if they all came."""
    count = len(chunks_of(regions))
    size = (count - 1) * req_frame_len(WIRE_IOVS) + \
        req_frame_len(regions - (count - 1) * WIRE_IOVS)
    data = recv_exact(s, size)
    reqs, rest = parse_reqs(data)
    if rest or len(reqs) != count:
        notes.append("!%d read requests (%d stray bytes), expected %d" %
                     (len(reqs), rest, count))
        return False
    check_reqs(reqs, regions, notes)
    return True


def act_good_read_6(s, notes, ctx):
    # both requests (4 + 2 regions), both answered, then a clean end
    if read_reqs(s, 6, notes):
        s.sendall(b"".join(rsp(o, n) for o, n in chunks_of(6)))
    half_close(s)
    return "close"


def act_read_rsp_extra(s, notes, ctx):
    # both answered, the read is done; then a response to nothing
    if read_reqs(s, 6, notes):
        s.sendall(b"".join(rsp(o, n) for o, n in chunks_of(6)) +
                  rsp(0, RLEN))
    return "close"


def act_read_rsp_too_long(s, notes, ctx):
    # the first request (64 bytes) answered with 80
    if read_reqs(s, 6, notes):
        s.sendall(rsp(0, 4 * RLEN + RLEN))
    return "close"


def act_read_rsp_short(s, notes, ctx):
    # the first request answered right, the last one (32 bytes) with 16
    if read_reqs(s, 6, notes):
        s.sendall(rsp(0, 4 * RLEN) + rsp(4 * RLEN, RLEN))
    return "close"


def act_read_rsp_unsolicited(s, notes, ctx):
    # no read posted (regions=0): a response out of the blue
    s.sendall(rsp(0, RLEN))
    return "close"


EARLY_REGIONS = 256     # kfi_tcp's rma_iov_limit: 64 request frames


def act_read_rsp_early(s, notes, ctx):
    """Responses to requests the kernel has not sent yet.

    The kernel's 64 request frames (7168 bytes) do not fit in what the
    connection buffers here (its socket's send buffer held at 4 KiB by
    tcp_wmem, ours a minimal receive buffer): while we read nothing, it
    stops in the middle of them. Once the queues are still, we count the
    frames it has handed to its socket (our receive queue plus its
    unacknowledged send queue), then answer all 64 requests and one more,
    and read nothing until the kernel has ended the connection (reading
    would let it send more requests while it takes our responses). The
    responses to the frames it sent are taken, exactly; the next one
    answers a request not sent whole: EPROTO. (Before the fix in d957e29
    all 64 were taken: the read completed while its requests were still
    going out, and the work item's next frame indexed its freed slot.)
    """
    ours, theirs = s.getsockname()[1], s.getpeername()[1]
    regions = EARLY_REGIONS
    frames = chunks_of(regions)
    total = sum(req_frame_len(n // RLEN) for _o, n in frames)
    # still for half a second: the kernel waits for room in its socket
    last, still, deadline = None, 0, time.monotonic() + CLOSE_TIMEOUT
    while still < 5 and time.monotonic() < deadline:
        time.sleep(0.1)
        k, o = tcp_queues(theirs, ours), tcp_queues(ours, theirs)
        cur = None if k is None or o is None else (k[0], o[1])
        still = still + 1 if cur is not None and cur == last else 0
        last = cur
    if still < 5:
        notes.append("!the connection's queues did not settle: %r" %
                     (last,))
        return "close"
    handed = last[0] + last[1]
    ctx["sent"] = handed // req_frame_len(WIRE_IOVS)
    notes.append("kernel stopped after %d of %d request bytes (%d whole "
                 "frames of %d)" % (handed, total, ctx["sent"],
                                    len(frames)))
    if handed >= total:
        notes.append("!the kernel sent every request: no early response "
                     "possible (buffers too large)")
    sender = send_in_background(s, b"".join(rsp(o, n) for o, n in frames) +
                                rsp(0, RLEN))
    deadline = time.monotonic() + CLOSE_TIMEOUT
    while time.monotonic() < deadline:
        k = tcp_sock(theirs, ours)
        if not sender.is_alive() and (k is None or
                                      k[0] != TCP_ESTABLISHED):
            break
        time.sleep(0.05)
    else:
        notes.append("!hang: the kernel did not end the connection")
    status, data = read_to_eof(s)
    reqs, _rest = parse_reqs(data)
    check_reqs(reqs, regions, notes, complete=False)
    if status == "hang":
        notes.append("!hang: the kernel did not close the connection")
    return "gone"


def check_early(report, ctx, notes):
    """The responses to the request frames the kernel had sent were taken
    (64 bytes each), no more."""
    written = int(report.get("written", -1))
    if report.get("changed") != str(written):
        notes.append("!changed=%s, expected written=%d" %
                     (report.get("changed"), written))
    sent = ctx.get("sent")
    if sent is not None and written != sent * WIRE_IOVS * RLEN:
        notes.append("!written=%d: expected the %d request frames sent "
                     "answered (%d bytes)" %
                     (written, sent, sent * WIRE_IOVS * RLEN))


def reader_error(read_err, written, cq_errs=1):
    """A reader case the kernel ends with EPROTO: the read failed with
    read_err, its first `written` bytes taken from good responses."""
    return {"eq": "shutdown", "eq_err": EPROTO,
            "read": "error" if cq_errs else "none", "read_err": read_err,
            "read_len": 0, "cq_errs": cq_errs, "written": written,
            "intact": 1, "changed": written, "outside": 0}


READER_CASES = [
    # well-behaved: 6 regions (two request frames) answered in order
    reader_case("good_read_6", act_good_read_6,
                {"eq": "shutdown", "eq_err": 0, "read": "done",
                 "read_err": 0, "read_len": 6 * RLEN, "cq_errs": 0,
                 "written": 6 * RLEN, "intact": 1, "changed": 6 * RLEN,
                 "outside": 0}),
    # a response beyond the requests: the read is complete, then EPROTO
    reader_case("read_rsp_extra", act_read_rsp_extra,
                dict(reader_error(0, 6 * RLEN, cq_errs=0), read="done",
                     read_len=6 * RLEN)),
    # wrong lengths: refused at the header, before a byte is written;
    # the first frame's response (the read still outstanding: flushed,
    # ECANCELED) and the last frame's (failed with the cause)
    reader_case("read_rsp_too_long", act_read_rsp_too_long,
                reader_error(ECANCELED, 0)),
    reader_case("read_rsp_short", act_read_rsp_short,
                reader_error(EPROTO, 4 * RLEN)),
    # no read outstanding at all
    reader_case("read_rsp_unsolicited", act_read_rsp_unsolicited,
                reader_error(0, 0, cq_errs=0), regions=0),
    # responses to requests not sent yet (the d957e29 fix): the read is
    # flushed (ECANCELED), only the responses to sent frames written
    reader_case("read_rsp_early", act_read_rsp_early,
                {k: v for k, v in reader_error(ECANCELED, 0).items()
                 if k not in ("written", "changed")},
                regions=EARLY_REGIONS, rcvbuf=1024,
                wmem="4096 4096 4096", check=check_early),
]


def listen_on(port, rcvbuf=None):
    """Our listening socket on ADDR:port (SO_RCVBUF set before listen, so
    the connection's window starts from it)."""
    ls = socket.socket(socket.AF_INET6 if ":" in ADDR else socket.AF_INET,
                       socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if rcvbuf is not None:
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    ls.bind((ADDR, port))
    ls.listen(1)
    ls.settimeout(CONNECT_TIMEOUT)
    return ls


def accept_handshake(ls):
    """Passive side of the CM exchange: connreq in, connresp out."""
    s, _peer = ls.accept()
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.settimeout(CLOSE_TIMEOUT)
    req = recv_exact(s, 32)
    if req[0] != 3 or req[1] != 0:
        raise ConnectionError("bad connreq: version %d type %d" %
                              (req[0], req[1]))
    (seg_size,) = struct.unpack_from(">H", req, 2)
    (probe,) = struct.unpack_from("=Q", req, 24)
    if probe != 1:
        raise ConnectionError("connreq endianness probe %#x" % probe)
    if seg_size:
        recv_exact(s, seg_size)
    s.sendall(connreq(kind=1))
    return s


class Sysctl:
    """Sets /proc/sys/NAME for a with block (nothing with value None)."""

    def __init__(self, name, value):
        self.path = "/proc/sys/" + name.replace(".", "/")
        self.value = value
        self.old = None

    def __enter__(self):
        if self.value is not None:
            with open(self.path) as f:
                self.old = f.read().strip()
            with open(self.path, "w") as f:
                f.write(self.value)
        return self

    def __exit__(self, *exc):
        if self.old is not None:
            with open(self.path, "w") as f:
                f.write(self.old)
        return False


def run_reader_case(c, port):
    """One reader session; returns True if the case passed."""
    notes = []
    ctx = {}
    log_mark = len(kernel_log())
    t0 = time.monotonic()
    with Sysctl("net.ipv4.tcp_wmem", c.wmem):
        ls = listen_on(port, c.rcvbuf)
        reader = Reader(port, c.regions)
        reader.start()
        s = None
        try:
            s = accept_handshake(ls)
            how = c.act(s, notes, ctx)
            if how == "close":
                status, _data = read_to_eof(s)
                if status == "hang":
                    notes.append("!hang: the kernel did not close the "
                                 "connection within %.0f s" % CLOSE_TIMEOUT)
                else:
                    notes.append("kernel closed (%s) after %.1f s" %
                                 (status, time.monotonic() - t0))
        except Exception as e:  # any failure of the peer side fails it
            notes.append("!peer side failed: %r" % e)
        finally:
            if s is not None:
                s.close()
            ls.close()
        ended = reader.wait()
    if not ended:
        notes.append("!the reader session did not end")
    elif reader.failure is not None:
        notes.append("!the reader session failed: %s" % reader.failure)
    elif reader.errno is None:
        notes.append("!the reader session did not run")
    elif reader.errno:
        notes.append("!write to run failed: %s" % os.strerror(reader.errno))
    last = read_last()
    report = parse_report(last, "reader")
    if report is None:
        notes.append("!no reader report in last: %r" % last.strip())
    else:
        for key, want in c.expect.items():
            got = report.get(key)
            if got != str(want):
                notes.append("!%s=%s, expected %s" % (key, got, want))
        if c.check is not None:
            c.check(report, ctx, notes)
    bad = [l for l in kernel_log()[log_mark:] if KERNEL_BAD.search(l)]
    if bad:
        notes.append("!kernel log: %s" % " | ".join(bad[:6]))
    ok = not any(n.startswith("!") for n in notes)
    print("KFI-RESULT %s %s%s" % ("PASS" if ok else "FAIL", PREFIX, c.name))
    if report is not None:
        print("    report: %s" % " ".join(
            "%s=%s" % (k, report[k]) for k in
            ("eq", "eq_err", "read", "read_err", "read_len", "cq_errs",
             "written", "intact", "changed", "outside") if k in report))
    for n in notes:
        print("    %s" % n.lstrip("!"))
    sys.stdout.flush()
    return ok


def module_still_works(port):
    """A kernel-to-kernel pingpong (guest.sh's "pair") after the cases."""
    lines = {
        "server": "role=server addr=%s oob_port=%d verify=1 iters=20 "
                  "sizes=64,4096,65536" % (ADDR, port),
        "client": "role=client addr=%s oob_port=%d verify=1 iters=20 "
                  "sizes=64,4096,65536" % (ADDR, port),
    }
    rc = {}

    def run(role):
        fd = os.open(DBG + "/run", os.O_WRONLY)
        try:
            os.write(fd, lines[role].encode())
            rc[role] = 0
        except OSError as e:
            rc[role] = e.errno
        finally:
            os.close(fd)

    ts = threading.Thread(target=run, args=("server",), daemon=True)
    ts.start()
    time.sleep(0.5)
    tc = threading.Thread(target=run, args=("client",), daemon=True)
    tc.start()
    tc.join(120)
    ts.join(120)
    ok = rc.get("server") == 0 and rc.get("client") == 0
    print("KFI-RESULT %s %smodule_still_works" %
          ("PASS" if ok else "FAIL", PREFIX))
    if not ok:
        print("    server: %s client: %s" % (rc.get("server"),
                                              rc.get("client")))
        print("    last: %s" % read_last().strip().replace("\n", " | "))
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated case names")
    ap.add_argument("--list", action="store_true", help="list the cases")
    ap.add_argument("--port-base", type=int, default=47700,
                    help="first sink port (one port per case)")
    ap.add_argument("--family", type=int, choices=(4, 6), default=4,
                    help="6: the sink on ::1, results named hostile6_*")
    args = ap.parse_args()
    global ADDR, PREFIX
    if args.family == 6:
        ADDR, PREFIX = "::1", "hostile6_"
    if args.list:
        for c in CASES + READER_CASES:
            print(c.name)
        return 0
    only = set(args.only.split(",")) if args.only else None
    if not os.access(DBG + "/run", os.W_OK):
        print("KFI-RESULT FAIL %ssetup" % PREFIX)
        print("    %s/run is not writable: is kfi_pingpong loaded?" % DBG)
        return 1
    failed = 0
    for i, c in enumerate(CASES):
        if only is not None and c.name not in only:
            continue
        if not guarded(c.name, run_case, c, args.port_base + i):
            failed += 1
    for i, c in enumerate(READER_CASES):
        if only is not None and c.name not in only:
            continue
        if not guarded(c.name, run_reader_case, c,
                       args.port_base + len(CASES) + i):
            failed += 1
    if not guarded("module_still_works", module_still_works,
                   args.port_base + len(CASES) + len(READER_CASES)):
        failed += 1
    return 1 if failed else 0


def guarded(name, fn, *args):
    """fn(*args), which prints its own result line; a case that dies of
    any exception (a bug here, a malformed report...) gets a FAIL line
    instead of vanishing from the results."""
    try:
        return fn(*args)
    except Exception:
        print("KFI-RESULT FAIL %s%s" % (PREFIX, name))
        for line in traceback.format_exc().splitlines():
            print("    " + line)
        sys.stdout.flush()
        return False


if __name__ == "__main__":
    sys.exit(main())
