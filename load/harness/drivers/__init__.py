"""The load generators behind one interface (base.py): Vegeta (open model) and hey (closed model)."""
from harness.drivers.hey import Hey
from harness.drivers.vegeta import Vegeta

DRIVERS = {d.name: d for d in (Vegeta, Hey)}


def driver(name, binary):
    """The driver NAME ('vegeta', 'hey') running BINARY."""
    return DRIVERS[name](binary)
