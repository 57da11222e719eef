"""Orchestrates, samples, analyses and reports the virtual-threads vs reactive comparison."""
