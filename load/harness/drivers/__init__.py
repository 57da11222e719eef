"""The load generators behind one interface (base.py): Vegeta, Hyperfoil (open), hey (closed)."""
from harness.drivers.hey import Hey
from harness.drivers.hyperfoil import Hyperfoil
from harness.drivers.vegeta import Vegeta

DRIVERS = {d.name: d for d in (Vegeta, Hyperfoil, Hey)}
RATE_TOOLS = tuple(n for n, d in DRIVERS.items() if d.model == "rate")


def is_rate(tool):
    """True for a tool that sends at a rate (its level is requests/s, a ramp-in precedes it)."""
    return tool in RATE_TOOLS


def unit(tool):
    return " req/s" if is_rate(tool) else " in flight"


def driver(name, binary):
    """The driver NAME ('vegeta', 'hyperfoil', 'hey') running BINARY (Hyperfoil: runner command)."""
    return DRIVERS[name](binary)
