"""Where things are and the tools the runs need: the repository, the app's jar and class path (the
bare baseline's), the vt-native server's jar and the Hyperfoil runner (each built when stale), and
load/tools.sh, the one home of JDK, Vegeta, hey and Python discovery, asked from here."""
import os
import re
import subprocess
import sys

from harness.infra import procs
from harness.infra.errors import Fatal
from harness.infra.procs import log

LOAD_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROOT = os.path.dirname(LOAD_DIR)
JAR = os.path.join(ROOT, "target", "quarkus-app", "quarkus-run.jar")
# The bare Vert.x baseline (docs/floor.md): a plain main in the app's code, run on a class path of
# the app's libraries (lib/boot: SmallRye Config's dependencies; lib/main) and classes (app/)
BARE_MAIN = "org.vtvr.bare.BareVertx"


def app_classpath():
    """The built app's class path without Quarkus' launcher: libraries and jar, as -cp wildcards."""
    base = os.path.dirname(JAR)
    return os.pathsep.join(os.path.join(base, *d, "*")
                           for d in (("lib", "boot"), ("lib", "main"), ("app",)))


def bash_env(snippet, *names):
    """Runs SNIPPET after sourcing load/tools.sh; the values of NAMES it sets."""
    code = (f'. "{LOAD_DIR}/tools.sh" && {snippet} && printf "%s\\0" '
            + " ".join(f'"${n}"' for n in names))
    r = subprocess.run(["bash", "-c", code], stdout=subprocess.PIPE, text=True)
    if r.returncode:
        raise Fatal(f"{snippet} failed (see above)")
    return r.stdout.split("\0")[:len(names)]


def java_home():
    """A JDK 21+ (tools.sh find_jdk: JAVA_HOME when it is one, else one beside the default java)."""
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
    """The app's jar, built (`./mvnw -B -q package -DskipTests`, through PS when given) when
    missing, older than SOURCES, or REBUILD."""
    return build_when_stale("the app", JAR, ["./mvnw", "-B", "-q", "package", "-DskipTests"],
                            sources, ps, build_log, rebuild, no_build)


VTNATIVE_DIR = os.path.join(LOAD_DIR, "vtnative")
# the series vt-native (issue #43): Helidon SE's runnable jar, its libraries in target/libs
VTNATIVE_JAR = os.path.join(VTNATIVE_DIR, "target", "vtvr-vtnative.jar")
# what it compiles and reads of the app besides its own sources (load/vtnative/pom.xml)
VTNATIVE_APP_SOURCES = (*(f"src/main/java/org/vtvr/{p}"
                          for p in ("api", "config", "cpu", "error", "limits", "scenario")),
                        "src/main/resources/application.properties")


def vtnative_jar(ps=None, build_log=None, rebuild=False, no_build=False):
    """load/vtnative's jar, built (`./mvnw -B -q -f load/vtnative/pom.xml package`) when missing,
    older than its sources or the app's it compiles, or REBUILD -> its path, or None when missing
    and NO_BUILD."""
    rel = os.path.relpath(VTNATIVE_DIR, ROOT)
    return build_when_stale("the vt-native server", VTNATIVE_JAR,
                            ["./mvnw", "-B", "-q", "-f", f"{rel}/pom.xml", "package"],
                            (f"{rel}/src", f"{rel}/pom.xml", *VTNATIVE_APP_SOURCES), ps, build_log,
                            rebuild, no_build)


HYPERFOIL_DIR = os.path.join(LOAD_DIR, "hyperfoil")
HYPERFOIL_MAIN = "org.vtvr.load.HyperfoilRun"


def hyperfoil_version():
    """The Hyperfoil version load/hyperfoil/pom.xml pins."""
    with open(os.path.join(HYPERFOIL_DIR, "pom.xml")) as f:
        m = re.search(r"<hyperfoil.version>([^<]+)<", f.read())
    return m.group(1) if m else "?"


def hyperfoil_command(java, ps=None, build_log=None):
    """The argv that runs load/hyperfoil's runner on JAVA (up to its arguments), compiled first
    when stale; its classpath is what Maven resolves from load/hyperfoil/pom.xml."""
    target = os.path.join(HYPERFOIL_DIR, "target")
    cp_file = os.path.join(target, "classpath.txt")
    main_class = os.path.join(target, "classes", *HYPERFOIL_MAIN.split(".")) + ".class"
    rel = os.path.relpath(HYPERFOIL_DIR, ROOT)
    build_when_stale("the Hyperfoil runner", main_class,
                     ["./mvnw", "-B", "-q", "-f", f"{rel}/pom.xml", "compile"],
                     (f"{rel}/src", f"{rel}/pom.xml"), ps, build_log,
                     rebuild=not os.path.isfile(cp_file))
    with open(cp_file) as f:
        cp = f.read().strip()
    return [java, "-Xms256m", "-Xmx2g", "--enable-native-access=ALL-UNNAMED", "-Dlog4j2.level=WARN",
            "-cp", os.pathsep.join((os.path.join(target, "classes"), cp)), HYPERFOIL_MAIN]


def build_when_stale(what, product, argv, sources, ps=None, build_log=None, rebuild=False,
                     no_build=False):
    """PRODUCT (a file), built by ARGV in the repository (through PS when given) when missing,
    older than SOURCES, or REBUILD -> its path, or None when it is missing and NO_BUILD."""
    stale = newer_than(product, sources) if os.path.isfile(product) else ""
    if not no_build and (rebuild or not os.path.isfile(product) or stale):
        log(f"building {what} "
            f"({stale + ' is newer than ' + os.path.basename(product) + '; ' if stale else ''}"
            f"{' '.join(argv)})")
        rc = ps.run("build", argv, cwd=ROOT, log_path=build_log) if ps else \
            subprocess.run(argv, cwd=ROOT, stdout=sys.stderr).returncode
        if rc:
            sys.stderr.write(procs.tail(build_log, 30) if build_log else "")
            raise Fatal(f"build of {what} failed{', see ' + build_log if build_log else ''}")
        if not os.path.isfile(product):
            raise Fatal(f"the build of {what} wrote no {product}")
        # built now: an incremental build that found nothing to redo leaves it as it was
        os.utime(product)
    return product if os.path.isfile(product) else None


def native_runner():
    """The native binary target/*-runner, or ''."""
    target = os.path.join(ROOT, "target")
    runners = (sorted(f for f in os.listdir(target) if f.endswith("-runner"))
               if os.path.isdir(target) else [])
    path = os.path.join(target, runners[0]) if runners else ""
    return path if path and os.access(path, os.X_OK) else ""
