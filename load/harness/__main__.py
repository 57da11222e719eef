"""`python -m harness`: the same entry point as the `vtvr-harness` command."""
from harness.cli import main

raise SystemExit(main())
