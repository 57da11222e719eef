"""The one error a user sees without a traceback."""


class Fatal(Exception):
    """A bad command line, setting or failed start: `error: MESSAGE`, exit 1, no traceback."""
