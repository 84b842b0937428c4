#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest check kfi_info_stats: a domain's statistics, as kfi_info -s
prints them, while a real peer is connected.

kfi_pingpong's role=sink (a kernel consumer: one 4096-byte region, 4
untagged and 4 tagged 64-byte receives pre-posted, one accepted
connection) is the kernel side; this script is the peer (hostile.py's
wire helpers, used well): it connects, sends one 16-byte message, and
while the connection is up `kfi_info -s -p tcp` must show the sink's
domain ("any": the connection request's info names no interface) with
exact figures: the region, one connected endpoint whose
addresses are this connection's, one message of 16 bytes received,
seven receives still posted, its CQs. Once the peer leaves and the sink
closes everything, `kfi_info -s -p tcp` finds no open domain (exit 1).

Run by tests/guest/run.sh with kfi_pingpong.ko loaded:
  stats_check.py KFI_INFO
"""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "hostile"))
import hostile as h  # noqa: E402

PORT = 47790
MSG = b"statistics-check"   # 16 bytes


def kfi_info(tool, *args):
    p = subprocess.run([sys.executable, tool, "-s", *args],
                       capture_output=True, text=True, check=False)
    return p.returncode, p.stdout


def main():
    tool = sys.argv[1]
    # (the sink's own bound on its waits is hostile.py's 10 s; each
    # kfi_info here is a Python start, several seconds on the debug
    # kernel under emulation: the sink waits longer)
    sink = h.Sink(PORT, "timeout_ms=120000")
    sink.start()
    s = h.connect(PORT)
    h.handshake(s)
    s.sendall(h.frame(h.OP_MSG, MSG))
    ours, theirs = s.getsockname(), s.getpeername()
    want = ("ep0 type=msg state=connected local=%s:%d peer=%s:%d "
            "tx_ops=0 tx_bytes=0 rx_ops=1 rx_bytes=%d tx_errors=0 "
            "rx_errors=0 tx_busy=0 rx_posted=%d triggered=0" %
            (theirs[0], theirs[1], ours[0], ours[1], len(MSG),
             2 * h.RECVS - 1))
    ok = True
    # the message lands in the sink's first receive soon after
    deadline = time.monotonic() + 5
    while True:
        rc, out = kfi_info(tool, "-p", "tcp")
        if want in out or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    print(out, end="")
    # the sink opens its domain from the connection request's info,
    # which names no interface: kfi_tcp's domain on any ("any")
    if rc != 0 or not out.startswith("tcp/any:\n"):
        print("!domain tcp/any not listed first (rc %d)" % rc)
        ok = False
    if "    mr: regions=1 bytes=%d\n" % h.MR_LEN not in out:
        print("!mr: not one region of %d bytes" % h.MR_LEN)
        ok = False
    if "    endpoints: 1\n        %s\n" % want not in out:
        print("!endpoint line not as expected:\n        %s" % want)
        ok = False
    # the sink's two CQs (transmit, receive), no counters
    cqs = re.findall(r"^        cq\d+ size=\d+ .* overruns=0 lost=0 bound=1 ",
                     out, re.M)
    if "    cqs: 2\n" not in out or len(cqs) != 2:
        print("!cqs: not two, bound, without overruns")
        ok = False
    if "    cntrs: 0\n" not in out:
        print("!cntrs: the sink opens none")
        ok = False
    # -d picks the domain, another provider shows nothing of it
    rc, out2 = kfi_info(tool, "-p", "tcp", "-d", "any")
    if rc != 0 or "tcp/any:" not in out2:
        print("!-d any: not listed")
        ok = False
    rc, out2 = kfi_info(tool, "-p", "tcp", "-d", "nosuch")
    if rc != 1 or out2 != "kfi_info: no open domain\n":
        print("!-d nosuch: rc %d, %r" % (rc, out2))
        ok = False
    h.half_close(s)
    h.read_to_eof(s)
    s.close()
    if not sink.wait() or sink.errno != 0:
        print("!sink: errno %r, failure %r" % (sink.errno, sink.failure))
        ok = False
    rc, out = kfi_info(tool, "-p", "tcp")
    if rc != 1 or out != "kfi_info: no open domain\n":
        print("!after the sink closed: rc %d, %r" % (rc, out))
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
