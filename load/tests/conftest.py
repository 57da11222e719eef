"""Shared pytest settings for the harness package's tests."""
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
