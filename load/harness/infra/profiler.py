"""async-profiler for `compare --profile` (docs/floor.md "Where the floor's cost goes"): fetched
from Maven Central into load/.tools, attached to the app with jcmd for one measured trial, writing
its samples as collapsed stacks."""
import os
import subprocess
import zipfile

from harness.infra import tools
from harness.infra.errors import Fatal
from harness.infra.procs import log

VERSION = "4.1"
ARTIFACT = f"tools.profiler:async-profiler:{VERSION}:jar:linux-x64"
HOME = os.path.join(tools.LOAD_DIR, ".tools", f"async-profiler-{VERSION}")
LIB = os.path.join(HOME, "linux-x64", "libasyncProfiler.so")
# CPU time of every thread (itimer: no perf_events needed), a sample per 2 ms of it, split by thread
EVENT = "event=itimer,interval=2ms,threads"
JCMD_TIMEOUT_S = 30


def library(ps=None, build_log=None):
    """The path of libasyncProfiler.so, fetched and unpacked when missing."""
    if os.path.isfile(LIB):
        return LIB
    log(f"fetching async-profiler {VERSION} ({ARTIFACT}) "
        f"into {os.path.relpath(HOME, tools.ROOT)}")
    argv = ["./mvnw", "-B", "-q", "dependency:copy", f"-Dartifact={ARTIFACT}",
            f"-DoutputDirectory={HOME}"]
    rc = ps.run("fetch async-profiler", argv, cwd=tools.ROOT, log_path=build_log) if ps else \
        subprocess.run(argv, cwd=tools.ROOT).returncode
    jar = os.path.join(HOME, f"async-profiler-{VERSION}-linux-x64.jar")
    if rc or not os.path.isfile(jar):
        raise Fatal(f"could not fetch {ARTIFACT} from Maven"
                    f"{', see ' + build_log if build_log else ''}")
    with zipfile.ZipFile(jar) as z:
        z.extractall(HOME)
    if not os.path.isfile(LIB):
        raise Fatal(f"{jar} holds no linux-x64/libasyncProfiler.so")
    return LIB


class Profiler:
    """Starts and stops async-profiler in a running JVM by its pid (jcmd JVMTI.agent_load; the JVM
    needs -XX:+EnableDynamicAgentLoading to load it without a warning)."""

    def __init__(self, java_home, lib):
        self.jcmd = os.path.join(java_home, "bin", "jcmd")
        self.lib = lib

    def _agent(self, pid, options):
        # the options reach the agent only as one argument quoted for jcmd's own parser
        r = subprocess.run([self.jcmd, str(pid), "JVMTI.agent_load", self.lib, f'"{options}"'],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=JCMD_TIMEOUT_S)
        if r.returncode or "return code: 0" not in r.stdout:
            raise Fatal(f"async-profiler in pid {pid} ({options}): {r.stdout.strip()[-300:]}")

    def start(self, pid):
        self._agent(pid, f"start,{EVENT}")

    def stop(self, pid, path):
        """Stops the profiler of PID and writes its samples to PATH as collapsed stacks
        ('thread;frame;... N')."""
        self._agent(pid, f"stop,collapsed,file={path}")
