"""The one error a user sees without a traceback."""


class Fatal(Exception):
    """A bad command line, setting or failed start: printed as `error: MESSAGE`, exit status 1, no traceback."""
