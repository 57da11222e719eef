"""`python -m harness`: the same entry point as the `vtvr-harness` command."""
from .cli import main

raise SystemExit(main())
