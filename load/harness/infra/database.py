"""The run's database, one way for every design: the one the user named
(QUARKUS_DATASOURCE_JDBC_URL and _REACTIVE_URL), one load/db.sh already runs, or the embedded
MariaDB load/db.sh starts in the background (and stops at the end), in its own data folder
when a run needs one apart (chaos stops and starts it)."""
import os
import re
import subprocess
import sys

from harness.infra import procs
from harness.infra.errors import Fatal
from harness.infra.procs import log
from harness.infra.settings import ENV
from harness.infra.tools import LOAD_DIR

DB_SH = os.path.join(LOAD_DIR, "db.sh")


class Database:
    """Started with start(); ready() waits for it; env is what an app needs to reach it.

    PORT: where it listens (another free one if a foreign server holds it); GIVEN: the user's
    (JDBC URL, reactive URL), used as they are; FOLDER: its own data folder (load/db.sh's
    DB_DIR), never a server already running."""

    def __init__(self, ps, port, log_path, given=(None, None), folder=None):
        self.ps, self.port, self.log_path = ps, int(port), log_path
        self.jdbc, self.reactive = given
        self.folder, self.reuse = folder, not folder
        self.starting = None
        self.env = {}

    @classmethod
    def of_env(cls, ps, log_path, port=3306, folder=None):
        """The database a run uses: the user's (QUARKUS_DATASOURCE_*_URL), else MariaDB from
        load/db.sh on DB_PORT or PORT, in FOLDER when given."""
        return cls(ps, ENV.db_port or port, log_path, (ENV.jdbc_url, ENV.reactive_url), folder)

    def db_env(self):
        return {"DB_PORT": str(self.port), **({"DB_DIR": self.folder} if self.folder else {})}

    def db(self, *argv, **kw):
        return self.ps.run("db.sh", [DB_SH, *argv], env=self.db_env(), **kw)

    def start(self):
        if self.jdbc or self.reactive:
            if not (self.jdbc and self.reactive):
                raise Fatal("set both QUARKUS_DATASOURCE_JDBC_URL and "
                            "QUARKUS_DATASOURCE_REACTIVE_URL (same database), or neither")
            log(f"database: {self.jdbc} (given)")
            self.env = {"QUARKUS_DATASOURCE_JDBC_URL": self.jdbc,
                        "QUARKUS_DATASOURCE_REACTIVE_URL": self.reactive}
            return
        if self.reuse and self.db("status") == 0:
            log(f"database: load/db.sh already runs MariaDB on {self.port}, "
                "reusing it (left running)")
        else:
            if not procs.port_free(self.port):
                log(f"port {self.port} is taken by a server load/db.sh does not run; "
                    "the embedded DB gets a free port")
                self.port = procs.free_port()
            log(f"database: starting the embedded MariaDB on {self.port} "
                f"(load/db.sh start; log: {self.log_path})")
            self.ps.on_exit.append(lambda: self.db("stop", timeout=30, log_path=self.log_path,
                                                   append=True))
            # in the background: the delay service starts meanwhile; ready() waits for it
            self.starting = self.ps.start("db.sh start", [DB_SH, "start"], env=self.db_env(),
                                          log_path=self.log_path)
        # the app's only (not this process's environment: the next of N runs starts its own DB)
        self.env = {"QUARKUS_DATASOURCE_JDBC_URL": f"jdbc:mysql://127.0.0.1:{self.port}/bench",
                    "QUARKUS_DATASOURCE_REACTIVE_URL": f"mysql://127.0.0.1:{self.port}/bench"}

    def ready(self):
        """Waits once for the background `load/db.sh start`; MariaDB's pid joins the run's procs."""
        if self.starting is None:
            return
        rc, starting, self.starting = self.starting.wait(), self.starting, None
        self.ps.forget(starting)
        if rc or self.adopt():
            sys.stderr.write(procs.tail(self.log_path))
            raise Fatal(f"load/db.sh start failed (exit {rc}; log: {self.log_path})")
        log("database: " + re.sub(r"^\[[0-9:]*\] ", "", procs.tail(self.log_path, 1).strip()))

    def adopt(self):
        """MariaDB's pid joins the run's processes; -> load/db.sh status's exit code (0: up)."""
        status = subprocess.run([DB_SH, "status"], env=procs.child_env(self.db_env()),
                                capture_output=True, text=True)
        m = re.search(r"pid (\d+)", status.stdout)
        if m:
            self.ps.adopt("mariadb", int(m.group(1)))
        return status.returncode

    def stop(self):
        """Stops it now (chaos's outage); -> load/db.sh stop's exit code."""
        rc = self.db("stop", timeout=120, log_path=self.log_path, append=True)
        self.ps.release("mariadb")
        return rc

    def restart(self):
        """Starts it again after stop(); -> load/db.sh start's exit code."""
        rc = self.db("start", timeout=120, log_path=self.log_path, append=True)
        return rc or self.adopt()
