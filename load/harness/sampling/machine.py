"""Facts about the machine a run measured on (psutil, platform) and its app (the /q/info)."""
import json
import os
import platform
import subprocess

import psutil

from harness.infra.procs import fetch

# the repository
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def cpu_model():
    """The CPU's model name; on Linux only /proc/cpuinfo has it (platform.processor() is empty)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def os_name():
    try:
        return platform.freedesktop_os_release().get("PRETTY_NAME") or platform.platform()
    except OSError:
        return platform.platform()


def java_version(java):
    """The first two lines of `JAVA -version`, joined; None when it cannot run."""
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30).stderr
    except (OSError, subprocess.SubprocessError):
        return None
    return " / ".join(out.strip().splitlines()[:2]) or None


def git_commit(root=ROOT):
    try:
        return subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def app_info(base_url, timeout=10.0):
    """The running app's /q/info (org.vtvr.config.SettingsInfo): {'settings': {key: value},
    'quarkus': version, 'java': version, 'info': the whole answer}; {} and None without /q/info."""
    try:
        info = json.loads(fetch(base_url.rstrip("/") + "/q/info", timeout)[1] or b"{}")
    except ValueError:
        info = {}
    return {"settings": info.get("settings") or {},
            "quarkus": (info.get("build") or {}).get("quarkusVersion"),
            "java": (info.get("java") or {}).get("version"), "info": info}


def facts(java=None, app=None, **extra):
    """machine.json of a run: this machine (psutil, platform), the JDK that JAVA names, the app's
    settings and Quarkus version from APP (an app_info() answer) and the EXTRA keys as given."""
    app = app or {}
    info = {"cores": psutil.cpu_count(), "physical_cores": psutil.cpu_count(logical=False),
            "cpu": cpu_model(), "memory_mib": psutil.virtual_memory().total // (1024 * 1024),
            "os": os_name(), "kernel": platform.release(), "python": platform.python_version(),
            "quarkus": app.get("quarkus"), "app_java": app.get("java"),
            "jdk": java_version(java) if java else None, "git_commit": git_commit()}
    info.update(extra)
    info["settings"] = dict(app.get("settings") or {})
    return info
