"""The analysis modules (load/*.py) import each other by name, as they do when load/report.py runs."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree, as report.py does for the modules it imports
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
