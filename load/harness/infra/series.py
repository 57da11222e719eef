"""A series' name: a mode, the floor or a ladder rung, its delay client (+socket), A/A mark -aa."""

AA_SUFFIX = "-aa"   # the A/A series: the same mode measured again in the run, from a fresh app


def base_of(series):
    """The URL's mode of a series: virtual+socket -> virtual, reactive-aa -> reactive."""
    return series.removesuffix(AA_SUFFIX).split("+")[0]


def client_of(series):
    """The bench.blocking-client the app of SERIES runs with ('' : the app's default)."""
    return series.removesuffix(AA_SUFFIX).partition("+")[2]
