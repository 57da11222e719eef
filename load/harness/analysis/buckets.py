"""Shares of async-profiler collapsed stacks by thread kind, and by code inside the serving
threads (event loops, carriers, workers): docs/blocking-client.md "Profile of one measured step"
and docs/tuning.md.

Usage: python -m harness.analysis.buckets FILE.collapsed[.gz] ...
"""
import collections
import gzip
import re
import sys

THREADS = [("JIT", r"CompilerThre"), ("GC", r"GC Thread|VM Thread|G1 "),
           ("event loop", r"vert\.x-eventloop"),
           ("carrier", r"ForkJoinPool-\d+-worker|VirtualThread|Poller|unparker|unblocker"),
           ("worker", r"executor-thread|vert\.x-worker|fanout"),
           ("vert.x internal", r"vert\.x-|vertx-")]
CODE = [("HttpClient 5 (socket client)", r"org/apache/hc/"),
        ("REST client + Vert.x HTTP client",
         r"io/vertx/core/http/impl/(HttpClient|Http1xClient|ClientHttp|HttpClientImpl"
         r"|HttpClientRequest|HttpClientResponse)|org/jboss/resteasy/reactive/client"
         r"|io/quarkus/rest/client|RestBlockingDelayClient|io/vertx/core/net/impl/pool"),
        ("HTTP server (Vert.x, Quarkus REST, app)",
         r"io/vertx/core/http/impl/Http1xServer|io/vertx/ext/web"
         r"|org/jboss/resteasy/reactive/server|io/quarkus/vertx/http|org/vtvr/"),
        ("Micrometer", r"io/micrometer"),
        ("JDK poller", r"sun/nio/ch/Poller"),
        ("virtual-thread machinery (park, unpark, scheduling)",
         r"java/lang/VirtualThread|jdk/internal/vm/Continuation|java/util/concurrent/ForkJoin"
         r"|LockSupport"),
        ("Netty I/O (epoll, no handler above)", r"io/netty/")]
SERVING = ("event loop", "carrier", "worker")


def kind(thread):
    """The kind of a thread by its name: one of THREADS, else 'other: NAME'."""
    for k, rx in THREADS:
        if re.search(rx, thread):
            return k
    return "other: " + re.sub(r"[-\d]+", "", thread)[:30]


def shares(lines):
    """-> (samples, Counter by thread kind, Counter by code in the serving threads) of
    collapsed-stack lines ('thread;frame;frame COUNT')."""
    by_thread, by_code, total = collections.Counter(), collections.Counter(), 0
    for line in lines:
        stack, _, n = line.rstrip().rpartition(" ")
        if not stack:
            continue
        n = int(n)
        total += n
        k = kind(stack.split(";")[0].strip("[]"))
        by_thread[k] += n
        if k in SERVING:
            by_code[next((c for c, rx in CODE if re.search(rx, stack)), "other")] += n
    return total, by_thread, by_code


def main(argv=None):
    for f in sys.argv[1:] if argv is None else argv:
        with gzip.open(f, "rt") if f.endswith(".gz") else open(f) as lines:
            total, by_thread, by_code = shares(lines)
        serving = sum(by_code.values())
        print(f"== {f}: {total} samples; threads: "
              + ", ".join(f"{k} {100 * v / total:.0f}%"
                          for k, v in by_thread.most_common(8)))
        print(f"   serving threads: {serving} samples")
        for c, v in by_code.most_common():
            print(f"     {100 * v / serving:5.1f}%  {c}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
