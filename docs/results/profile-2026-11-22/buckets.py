"""Usage: python3 buckets.py FILE.collapsed[.gz] ...
Shares of async-profiler collapsed stacks (gzipped or not) (with 'threads'): by thread kind, and by code inside serving threads."""
import collections
import gzip
import re
import sys
THREADS = [("JIT", r"CompilerThre"), ("GC", r"GC Thread|VM Thread|G1 "), ("event loop", r"vert\.x-eventloop"),
           ("carrier", r"ForkJoinPool-\d+-worker|VirtualThread|Poller|unparker|unblocker"),
           ("worker", r"executor-thread|vert\.x-worker|fanout"), ("vert.x internal", r"vert\.x-|vertx-")]
CODE = [("HttpClient 5 (socket client)", r"org/apache/hc/"),
        ("REST client + Vert.x HTTP client", r"io/vertx/core/http/impl/(HttpClient|Http1xClient|ClientHttp|HttpClientImpl|HttpClientRequest|HttpClientResponse)|org/jboss/resteasy/reactive/client|io/quarkus/rest/client|RestBlockingDelayClient|io/vertx/core/net/impl/pool"),
        ("HTTP server (Vert.x, Quarkus REST, app)", r"io/vertx/core/http/impl/Http1xServer|io/vertx/ext/web|org/jboss/resteasy/reactive/server|io/quarkus/vertx/http|org/vtvr/"),
        ("Micrometer", r"io/micrometer"),
        ("JDK poller", r"sun/nio/ch/Poller"),
        ("virtual-thread machinery (park, unpark, scheduling)", r"java/lang/VirtualThread|jdk/internal/vm/Continuation|java/util/concurrent/ForkJoin|LockSupport"),
        ("Netty I/O (epoll, no handler above)", r"io/netty/"),
        ]
def kind(t):
    for k, rx in THREADS:
        if re.search(rx, t): return k
    return "other: " + re.sub(r"[-\d]+", "", t)[:30]
for f in sys.argv[1:]:
    by_thread, by_code, total = collections.Counter(), collections.Counter(), 0
    for line in (gzip.open(f, 'rt') if f.endswith('.gz') else open(f)):
        stack, _, n = line.rstrip().rpartition(" ")
        n = int(n); total += n
        frames = stack.split(";")
        t = frames[0].strip("[]")
        k = kind(t); by_thread[k] += n
        if k in ("event loop", "carrier", "worker"):
            for c, rx in CODE:
                if re.search(rx, stack):
                    by_code[c] += n; break
            else:
                by_code["other"] += n
    serving = sum(by_code.values())
    print(f"== {f}: {total} samples; threads: " + ", ".join(f"{k} {100*v/total:.0f}%" for k, v in by_thread.most_common(8)))
    print(f"   serving threads: {serving} samples")
    for c, v in by_code.most_common():
        print(f"     {100*v/serving:5.1f}%  {c}")
