"""Where things are and the tools the runs need: the repository, the app's jar (built when older than its sources)
and its class path (the bare baseline's), and load/tools.sh, the one home of JDK, Vegeta, hey and Python discovery,
asked from here."""
import os
import subprocess
import sys

from harness.infra import procs
from harness.infra.errors import Fatal
from harness.infra.procs import log

LOAD_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROOT = os.path.dirname(LOAD_DIR)
JAR = os.path.join(ROOT, "target", "quarkus-app", "quarkus-run.jar")
# The bare Vert.x baseline (docs/floor.md): a plain main in the app's own code, run from the jar's folder on a class
# path of the app's libraries (lib/boot: SmallRye Config's own dependencies; lib/main) and its classes (app/)
BARE_MAIN = "org.vtvr.bare.BareVertx"


def app_classpath():
    """The built app's class path without Quarkus' launcher: its libraries and its own jar, as java -cp wildcards."""
    base = os.path.dirname(JAR)
    return os.pathsep.join(os.path.join(base, *d, "*") for d in (("lib", "boot"), ("lib", "main"), ("app",)))


def bash_env(snippet, *names):
    """Runs SNIPPET after sourcing load/tools.sh; the values of NAMES it sets."""
    code = f'. "{LOAD_DIR}/tools.sh" && {snippet} && printf "%s\\0" ' + " ".join(f'"${n}"' for n in names)
    r = subprocess.run(["bash", "-c", code], stdout=subprocess.PIPE, text=True)
    if r.returncode:
        raise Fatal(f"{snippet} failed (see above)")
    return r.stdout.split("\0")[:len(names)]


def java_home():
    """A JDK 21+ (load/tools.sh find_jdk: JAVA_HOME when it is one, else one installed beside the default java)."""
    return bash_env("find_jdk", "JAVA_HOME")[0]


def newer_than(ref, paths):
    """The first file under PATHS (relative to the repository) newer than REF, or ''."""
    t = os.path.getmtime(ref)
    for p in paths:
        full = os.path.join(ROOT, p)
        walk = [(full, [], [""])] if os.path.isfile(full) else os.walk(full)
        for d, _, files in walk:
            for f in files:
                path = os.path.join(d, f) if f else d
                if os.path.getmtime(path) > t:
                    return os.path.relpath(path, ROOT)
    return ""


def ensure_jar(ps=None, build_log=None, rebuild=False, no_build=False, sources=("src", "pom.xml")):
    """The app's jar, built (`./mvnw -B -q package -DskipTests`, through PS when given) when missing, older than
    SOURCES, or REBUILD."""
    stale = newer_than(JAR, sources) if os.path.isfile(JAR) else ""
    if not no_build and (rebuild or not os.path.isfile(JAR) or stale):
        log(f"building the app ({stale + ' is newer than the jar; ' if stale else ''}"
            "./mvnw -B -q package -DskipTests)")
        argv = ["./mvnw", "-B", "-q", "package", "-DskipTests"]
        rc = ps.run("build", argv, cwd=ROOT, log_path=build_log) if ps else \
            subprocess.run(argv, cwd=ROOT, stdout=sys.stderr).returncode
        if rc:
            sys.stderr.write(procs.tail(build_log, 30) if build_log else "")
            raise Fatal(f"build failed{', see ' + build_log if build_log else ''}")
        if not os.path.isfile(JAR):
            raise Fatal(f"the build wrote no {JAR}")
    return JAR if os.path.isfile(JAR) else None


def native_runner():
    """The native binary target/*-runner, or ''."""
    target = os.path.join(ROOT, "target")
    runners = sorted(f for f in os.listdir(target) if f.endswith("-runner")) if os.path.isdir(target) else []
    path = os.path.join(target, runners[0]) if runners else ""
    return path if path and os.access(path, os.X_OK) else ""
