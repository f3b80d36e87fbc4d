"""``--cluster``'s first check, with nothing heavy imported: the address, then whether a
Dask scheduler answers there, within :data:`CONNECT_TIMEOUT` seconds of the command's start.

The command line calls :func:`check_cluster` before it imports the pipeline (numpy, pandas,
dask), and the probe waits only for what is left of the 5 s since the process started
(at least :data:`MIN_WAIT`): the whole command then fails within 5 s, not after the ten to
thirty seconds those imports took on a loaded machine before the probe even began.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import time

from shortclust.errors import ShortclustError, one_line

__all__ = ["CLUSTER_INSTALL", "CONNECT_TIMEOUT", "ClusterError", "check_cluster",
           "probe_scheduler"]

#: What ``--cluster`` needs when dask is missing.
CLUSTER_INSTALL = "--cluster needs dask.distributed: pip install 'shortclust[cluster]'"

#: Seconds to wait for a scheduler (``tcp://HOST:PORT``) before giving up in one line.
CONNECT_TIMEOUT = 5
#: The probe's shortest wait, however long the start-up took: a scheduler greets within
#: milliseconds, but a loaded machine can delay it.
MIN_WAIT = 1.0
#: Kept from the 5 s for printing the error and exiting.
_EXIT_MARGIN = 0.8


class ClusterError(ShortclustError):
    """``--cluster`` cannot be used: dask missing, a bad address, no scheduler there."""


def check_cluster(cluster: str) -> None:
    """Fail in one line, before anything runs, if ``cluster`` cannot be used here.

    ``cluster`` is ``local`` (a LocalCluster started here) or a scheduler address
    ``tcp://HOST:PORT``; dask.distributed must be installed (looked up, not imported).
    """
    if cluster != "local" and not (cluster.startswith(("tcp://", "tls://"))
                                   and ":" in cluster.split("://", 1)[1]):
        raise ClusterError(f"--cluster must be 'local' or a scheduler address "
                           f"tcp://HOST:PORT, got {cluster!r}")
    if importlib.util.find_spec("distributed") is None:
        raise ClusterError(CLUSTER_INSTALL)
    if cluster.startswith("tcp://"):
        probe_scheduler(cluster, max(MIN_WAIT, CONNECT_TIMEOUT - _EXIT_MARGIN - process_age()))


def process_age() -> float:
    """Seconds since this process started (Linux ``/proc``; 0 where it cannot be read)."""
    try:
        with open("/proc/self/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        with open("/proc/uptime", "rb") as handle:
            uptime = float(handle.read().split()[0])
        return max(0.0, uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return 0.0


def probe_scheduler(cluster: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """Fail within ``timeout`` seconds unless a Dask scheduler answers at ``cluster``.

    A Dask comm greets whoever connects (its handshake) before any request; an HTTP server
    or a silent socket says nothing, where the client would wait far past its own timeout.
    So: connect, and wait for the first bytes, both within ``timeout`` seconds in all.
    """
    deadline = time.monotonic() + timeout
    host, _, port = cluster.split("://", 1)[1].rpartition(":")
    try:
        number = int(port)
    except ValueError:
        raise ClusterError(f"--cluster {cluster}: the port {port!r} is not a number") from None
    try:
        sock = socket.create_connection((host.strip("[]"), number), timeout=timeout)
    except (OSError, ValueError, OverflowError) as exc:
        raise ClusterError(f"--cluster {cluster}: no scheduler answers there "
                           f"({one_line(exc) or type(exc).__name__}): start one with "
                           "`dask scheduler`, or use --cluster local") from None
    greeting = b""
    with sock:
        try:  # the greeting may come in pieces
            while len(greeting) < 8 and (left := deadline - time.monotonic()) > 0:
                sock.settimeout(left)
                piece = sock.recv(8 - len(greeting))
                if not piece:
                    break
                greeting += piece
        except OSError:  # a timeout: it listens, and says nothing
            pass
    if len(greeting) < 8:
        raise ClusterError(f"--cluster {cluster}: something listens there but it is not a Dask "
                           f"scheduler (it did not greet within {timeout:.1f} s): check the "
                           "address and port")
