"""The run's database: the one the user named (QUARKUS_DATASOURCE_JDBC_URL and _REACTIVE_URL), one load/db.sh
already runs, or the embedded MariaDB started in the background (and stopped at the end) by load/db.sh."""
import os
import re
import subprocess
import sys

from harness.infra import procs
from harness.infra.errors import Fatal
from harness.infra.procs import log
from harness.infra.tools import LOAD_DIR

DB_SH = os.path.join(LOAD_DIR, "db.sh")


class Database:
    """Started with start(); ready() waits for it; env is what an app needs to reach it."""

    def __init__(self, ps, port, log_path, given=(None, None)):
        self.ps, self.port, self.log_path = ps, port, log_path
        self.jdbc, self.reactive = given
        self.starting = None
        self.env = {}

    def db(self, *argv, **kw):
        return self.ps.run("db.sh", [DB_SH, *argv], env={"DB_PORT": str(self.port)}, **kw)

    def start(self):
        if self.jdbc or self.reactive:
            if not (self.jdbc and self.reactive):
                raise Fatal("set both QUARKUS_DATASOURCE_JDBC_URL and QUARKUS_DATASOURCE_REACTIVE_URL "
                            "(same database), or neither")
            log(f"database: {self.jdbc} (given)")
            return
        if self.db("status") == 0:
            log(f"database: load/db.sh already runs MariaDB on {self.port}, reusing it (left running)")
        else:
            if not procs.port_free(self.port):
                log(f"port {self.port} is taken by a server load/db.sh does not run; the embedded DB gets a free port")
                self.port = procs.free_port()
            log(f"database: starting the embedded MariaDB on {self.port} (load/db.sh start; log: {self.log_path})")
            self.ps.on_exit.append(lambda: self.db("stop", timeout=30))
            # in the background: the delay service starts meanwhile; ready() waits for it
            self.starting = self.ps.start("db.sh start", [DB_SH, "start"], env={"DB_PORT": str(self.port)},
                                          log_path=self.log_path)
        # the app's only (not this process's environment: the next of N runs starts its own database)
        self.env = {"QUARKUS_DATASOURCE_JDBC_URL": f"jdbc:mysql://127.0.0.1:{self.port}/bench",
                    "QUARKUS_DATASOURCE_REACTIVE_URL": f"mysql://127.0.0.1:{self.port}/bench"}

    def ready(self):
        """Waits for the background `load/db.sh start`, once; MariaDB's pid joins the run's processes."""
        if self.starting is None:
            return
        rc, self.starting = self.starting.wait(), None
        status = subprocess.run([DB_SH, "status"], env=procs.child_env({"DB_PORT": str(self.port)}),
                                capture_output=True, text=True)
        if rc or status.returncode:
            sys.stderr.write(procs.tail(self.log_path))
            raise Fatal(f"load/db.sh start failed (exit {rc})")
        m = re.search(r"pid (\d+)", status.stdout)
        if m:
            self.ps.adopt("mariadb", int(m.group(1)))
        log("database: " + re.sub(r"^\[[0-9:]*\] ", "", procs.tail(self.log_path, 1).strip()))
