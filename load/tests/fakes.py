"""What the tests of a process started by System share: a Procs that records instead of starting, and a System on
compare's settings (test_bare.py, test_vtnative.py)."""
from harness import cli
from harness.runs import plan
from harness.runs.system import System


class FakePs:
    """Records what System starts instead of starting it."""

    def __init__(self):
        self.started = []

    def start(self, name, argv, **kw):
        self.started.append((name, argv, kw))
        return name


def settings(*argv):
    return plan.settings(cli.compare_parser().parse(["--seed", "7", *argv]))


def system(*argv):
    sysm = System(settings(*argv), "/tmp/out", FakePs())
    sysm.java = "/jdk/bin/java"
    return sysm
