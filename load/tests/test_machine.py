"""Tests of harness/machine.py: this machine's facts and a running app's settings from its /q/info."""
import sys

from harness.sampling import machine

INFO = {"settings": {"quarkus.thread-pool.max-threads": "200", "bench.max-in-flight": "5000"},
        "build": {"quarkusVersion": "3.30.6", "version": "1.0.0-SNAPSHOT"}, "java": {"version": "25.0.3"}}


def test_facts_of_this_machine_and_the_extras():
    f = machine.facts(java=sys.executable.replace("python", "no-such-java"), app_desc="x", runs=3)
    assert f["cores"] >= 1 and f["memory_mib"] > 0 and f["kernel"] and f["os"] and f["python"]
    assert f["jdk"] is None                       # a java that cannot run
    assert f["app_desc"] == "x" and f["runs"] == 3
    assert f["settings"] == {} and f["quarkus"] is None


def test_the_app_tells_its_settings_and_versions(http_server):
    base, routes = http_server
    routes["/q/info"] = (200, INFO)
    app = machine.app_info(base)
    assert app["settings"]["bench.max-in-flight"] == "5000"
    assert app["quarkus"] == "3.30.6" and app["java"] == "25.0.3"
    f = machine.facts(app=app)
    assert f["settings"]["quarkus.thread-pool.max-threads"] == "200" and f["quarkus"] == "3.30.6"


def test_an_app_without_q_info_gives_no_settings(http_server):
    base, _ = http_server
    assert machine.app_info(base) == {"settings": {}, "quarkus": None, "java": None, "info": {}}
    assert machine.app_info("http://127.0.0.1:9", timeout=1)["settings"] == {}   # nothing listening


def test_java_version_and_git_commit():
    assert machine.java_version("/nonexistent/java") is None
    assert machine.git_commit() is None or len(machine.git_commit()) >= 7
    assert machine.cpu_model() is None or isinstance(machine.cpu_model(), str)
