"""Tests of load/report.py: the settings every report prints (from the build, the app's JVM options winning)."""
from harness import report


def test_settings_come_from_the_build_and_jvm_options_win():
    built = report.app_settings("")
    assert built["quarkus.thread-pool.max-threads"].isdigit()
    assert built["bench.blocking-client"] == "rest-client"          # a BenchConfig default
    assert built["bench.db-acquire-timeout"] == "3s"                # ${bench.db-acquire-timeout:3s} in the properties
    ran = report.app_settings("-XX:+UseParallelGC -Dbench.blocking-client=socket -Dbench.max-in-flight=7")
    assert ran["bench.blocking-client"] == "socket" and ran["bench.max-in-flight"] == "7"
    assert "requests in progress per mode 7" in report.settings_text({"java_opts": "-Dbench.max-in-flight=7"})
