"""Every process a run starts, in one place: own process group each, stopped with a grace period."""
import contextlib
import http.client
import os
import random
import re
import resource
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import datetime

import psutil

from harness.infra.errors import Fatal

# The whole run's stop (error, Ctrl-C, SIGTERM): SIGTERM to all at once, SIGKILL after this many s,
# so a run is gone within 10 s even when the app waits out quarkus.shutdown.timeout
STOP_ALL_GRACE_S = 7
_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


_sink = None


def set_log_sink(fn):
    """Routes log lines to FN (the live progress panel prints them above itself); None: stderr."""
    global _sink
    _sink = fn


def log(msg):
    """One timestamped line on stderr, as the bash scripts wrote them."""
    line = f"[{datetime.now():%H:%M:%S}] {msg}"
    if _sink:
        _sink(line)
    else:
        print(line, file=sys.stderr, flush=True)


class Terminated(BaseException):
    """SIGTERM, raised like KeyboardInterrupt so that every `finally` runs."""


def _on_sigterm(signum, frame):
    raise Terminated()


class Proc:
    """One started process: its name, Popen, and its log file."""

    def __init__(self, name, popen, log_path):
        self.name, self.popen, self.log_path = name, popen, log_path

    @property
    def pid(self):
        return self.popen.pid

    def alive(self):
        return self.popen.poll() is None

    def wait(self, timeout=None):
        """Exit status, or None when still running after TIMEOUT seconds."""
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            return None


def _tree(pid):
    """PID and its descendants (psutil), descendants first; finds those that left the group too."""
    try:
        root = psutil.Process(pid)
        return [*root.children(recursive=True)[::-1], root]
    except psutil.NoSuchProcess:
        return []


def _signal(procs, sig):
    for p in procs:
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            p.send_signal(sig)


def stop_trees(roots, sig=signal.SIGTERM, grace_s=20.0):
    """SIG to ROOTS' trees (pids or psutil.Process) at once; SIGKILL to the rest after GRACE_S."""
    procs = [p for r in roots for p in (_tree(r) if isinstance(r, int) else [r])]
    if not procs:
        return
    _signal(procs, sig)
    _, left = psutil.wait_procs(procs, timeout=5 if sig == signal.SIGKILL else grace_s)
    if left and sig != signal.SIGKILL:
        log(f"{', '.join(str(p.pid) for p in left)} ignored {signal.Signals(sig).name} "
            f"for {grace_s:g} s, killing")
        _signal(left, signal.SIGKILL)
        psutil.wait_procs(left, timeout=5)


class Procs:
    """The processes of one run. As a context manager it stops them all on the way out (success,
    error, Ctrl-C, SIGTERM); `adopt` takes a daemon a script started (MariaDB) to stop it too."""

    def __init__(self):
        self.running = []       # Proc, in start order
        self.adopted = {}       # name -> pid of a daemon started by a script of ours
        self.on_exit = []       # callables run before the stop (a graceful `db.sh stop`, a summary)

    def __enter__(self):
        self._old_term = signal.signal(signal.SIGTERM, _on_sigterm)
        return self

    def __exit__(self, kind, exc, tb):
        interrupted = kind in (KeyboardInterrupt, Terminated)
        if interrupted:
            log("interrupted" if kind is KeyboardInterrupt else "terminated")
        # a second Ctrl-C must not cut the stop short
        old_int = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            # in order: what uses the database, then a graceful stop of the database
            if not interrupted:
                self.stop_all(STOP_ALL_GRACE_S, adopted=False)
                for fn in self.on_exit:
                    with contextlib.suppress(Exception):
                        fn()
            self.stop_all(STOP_ALL_GRACE_S)   # on Ctrl-C all at once, within 10 s
        finally:
            signal.signal(signal.SIGINT, old_int)
            signal.signal(signal.SIGTERM, self._old_term)
        return False

    def start(self, name, argv, *, log_path=None, env=None, cwd=None, stdout=None, append=False):
        """Starts ARGV in its own session (a terminal Ctrl-C reaches only the runner, which stops
        all in order); its output goes to LOG_PATH, or to STDOUT when given."""
        out = stdout
        if out is None:
            out = open(log_path, "ab" if append else "wb") if log_path else subprocess.DEVNULL
        try:
            popen = subprocess.Popen(
                argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env=None if env is None else child_env(env), cwd=cwd, start_new_session=True)
        finally:
            if stdout is None and log_path:
                out.close()
        proc = Proc(name, popen, log_path)
        self.running.append(proc)
        return proc

    def run(self, name, argv, *, timeout=None, **kw):
        """Starts ARGV and waits -> exit status; 124 when it ran past TIMEOUT s (then stopped)."""
        proc = self.start(name, argv, **kw)
        rc = proc.wait(timeout)
        if rc is None:
            self.stop(proc, grace_s=5)
            rc = 124
        self.forget(proc)
        return rc

    def adopt(self, name, pid):
        self.adopted[name] = pid

    def release(self, name):
        self.adopted.pop(name, None)

    def forget(self, proc):
        if proc in self.running:
            self.running.remove(proc)

    def stop(self, proc, sig=signal.SIGTERM, grace_s=20.0):
        """SIG to PROC's tree, SIGKILL after GRACE_S; a finished or None PROC is a no-op."""
        if proc is None:
            return
        stop_trees([proc.pid], sig, grace_s)
        proc.wait(5)
        self.forget(proc)

    def stop_all(self, grace_s=STOP_ALL_GRACE_S, adopted=True):
        """Every started process (and adopted daemon) at once: SIGTERM, SIGKILL after GRACE_S."""
        roots = [p.pid for p in self.running] + (list(self.adopted.values()) if adopted else [])
        stop_trees(roots, signal.SIGTERM, grace_s)
        for p in self.running:
            p.wait(1)
        self.running.clear()
        if adopted:
            self.adopted.clear()


def port_free(port):
    """True when a server can bind PORT on 127.0.0.1 (SO_REUSEADDR, so TIME_WAIT is free)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


_GIVEN = set()   # every port free_port handed out: a server started just now may not have bound it


def free_port():
    """A TCP port free on 127.0.0.1, below the kernel's outgoing range, so a load test's many client
    sockets cannot take it between this check and the server's bind; never one it gave before (on
    2026-11-29 two apps started together were given the same one and one of them answered both)."""
    lo = 32768
    with contextlib.suppress(OSError, ValueError, IndexError):
        lo = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
    for port in random.sample(range(min(20000, lo - 2000), lo), 200):
        if port not in _GIVEN and port_free(port):
            _GIVEN.add(port)
            return port
    raise OSError("no free port found on 127.0.0.1")


def child_env(extra):
    """A child's environment: this one's with EXTRA over it (nothing here writes os.environ)."""
    return {**os.environ, **extra}


def fetch(url, timeout=2.0, method="GET", body=None, headers=None):
    """-> (status, body bytes) of one request, never through a proxy; (0, b'') when no answer came.
    A str BODY is sent as JSON."""
    if isinstance(body, str):
        body, headers = body.encode(), {"Content-Type": "application/json", **(headers or {})}
    req = urllib.request.Request(url, data=body or None, method=method, headers=headers or {})
    try:
        with _NO_PROXY.open(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    # refused, reset, timed out, garbled: no answer
    except (OSError, ValueError, http.client.HTTPException):
        return 0, b""


def http_status(url, timeout=2.0, method="GET", body=None, headers=None):
    """-> the HTTP status of one request (0: no answer), never through a proxy."""
    return fetch(url, timeout, method, body, headers)[0]


def save(data, path):
    with open(path, "wb") as f:
        f.write(data)


def children_cpu_ms():
    """User+system CPU ms of this process's reaped children: the load tool's whole tree."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return round((r.ru_utime + r.ru_stime) * 1000)


def wait_for(condition, timeout_s, every_s=0.02):
    """Until CONDITION() is true: True; False after TIMEOUT_S seconds."""
    end = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() >= end:
            return False
        time.sleep(every_s)
    return True


def wait_ready(proc, url, timeout_s):
    """Until URL answers 2xx: True; False after TIMEOUT_S s, or at once when PROC has exited."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if 200 <= http_status(url) < 300:
            return True
        if proc is not None and not proc.alive():
            return False
        time.sleep(0.2)
    return False


def tail(path, lines=20):
    """The last LINES lines of a log file, for an error message."""
    with contextlib.suppress(OSError):
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    return ""


def place(cpus):
    """`--set cpus=app=N`: this process (and all it starts) on the first cores, the app on the
    last N -> (the app's taskset prefix, N, the placement in words)."""
    m = re.fullmatch(r"app=([1-9][0-9]*)", cpus)
    if not m:
        raise Fatal(f"cpus takes app=N (N cores for the app), got '{cpus}'")
    ncpu, n = os.cpu_count(), int(m.group(1))
    if n >= ncpu:
        raise Fatal(f"cpus app={n} leaves no core for the rest ({ncpu} cores)")
    app_set, rest = range(ncpu - n, ncpu), range(0, ncpu - n)
    os.sched_setaffinity(0, set(rest))
    fmt = lambda r: str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}"   # noqa: E731
    return (["taskset", "-c", fmt(app_set)], str(n),
            f"app on cpu {fmt(app_set)}; "
            f"Vegeta, hey, delay service, database, sampler on cpu {fmt(rest)}")
