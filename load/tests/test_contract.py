"""The contract check's reading of a Schemathesis run: the cases it generated and the 5xx answers in its events."""
import tomllib

from harness.runs import contract


def test_cases_is_the_summarys_last_generated_count():
    assert contract.cases("== 12 generated ==\nsummary: 2104 generated, 2104 passed\n") == 2104
    assert contract.cases("schema could not be loaded\n") == 0


def test_server_errors_counts_5xx_statuses_in_the_ndjson_events(tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "events.ndjson").write_text(
        '{"response": {"status_code": 200}}\n{"response": {"status_code": 503}}\n{"a": {"status_code": 500}}\n')
    (tmp_path / "junit.xml").write_text('"status_code": 500')
    assert contract.server_errors(tmp_path) == 2
    assert contract.server_errors(tmp_path / "absent") == 0


def test_every_phase_runs_bounded_by_cases_not_time():
    """Without --max-time every phase runs once (with it, fuzzing and stateful repeat until the time is spent)."""
    opts = contract.ST_OPTIONS
    assert opts[opts.index("--phases") + 1] == "examples,coverage,fuzzing,stateful"
    assert opts[opts.index("--checks") + 1] == "all" and "--max-time" not in opts
    # a hang fails; a slow answer beside CI's load does not (`--checks all` alone holds each to 10 s)
    assert opts[opts.index("--max-response-time") + 1] == opts[opts.index("--request-timeout") + 1] == "30"
    with open(contract.CONFIG, "rb") as f:
        assert tomllib.load(f)["phases"]["stateful"]["generation"]["max-examples"] >= 1
