"""Tests of harness/buckets.py on a few collapsed stacks (async-profiler's format), plain and gzipped."""
import gzip

from harness.analysis import buckets

STACKS = """[vert.x-eventloop-thread-0 tid=1];io/netty/channel/epoll/EpollEventLoop.run 30
[vert.x-eventloop-thread-0 tid=1];io/vertx/core/http/impl/Http1xServerConnection.handle;org/vtvr/X.y 10
[C2 CompilerThread0 tid=2];C2Compiler::compile 50
[ForkJoinPool-1-worker-1 tid=3];java/lang/VirtualThread.run;org/apache/hc/client5/Foo.bar 10
[Some Thread-12 tid=4];x 0
"""


def test_shares_by_thread_kind_and_by_code_in_serving_threads():
    total, by_thread, by_code = buckets.shares(STACKS.splitlines())
    assert total == 100
    assert by_thread == {"event loop": 40, "JIT": 50, "carrier": 10, "other: Some Thread tid=": 0}
    assert by_code == {"Netty I/O (epoll, no handler above)": 30, "HTTP server (Vert.x, Quarkus REST, app)": 10,
                       "HttpClient 5 (socket client)": 10}


def test_main_reads_gzipped_files(tmp_path, capsys):
    f = tmp_path / "a.collapsed.gz"
    with gzip.open(f, "wt") as out:
        out.write(STACKS)
    assert buckets.main([str(f)]) == 0
    text = capsys.readouterr().out
    assert "100 samples; threads: JIT 50%, event loop 40%, carrier 10%" in text and "serving threads: 50" in text
