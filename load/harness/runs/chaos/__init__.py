"""The fault checks: probes, verification and the hostile client."""
