"""How far a run has got: a live panel on a terminal (rich), one plain line per step otherwise (CI, a pipe)."""
import sys
import time

from rich.console import Console
from rich.live import Live
from rich.table import Table

from harness.infra import procs


def clock(seconds):
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}:{seconds % 60:02d}" if seconds < 3600 else f"{seconds // 3600}h{seconds // 60 % 60:02d}"


class Progress:
    """Step k of n, scenario, mode, load, elapsed, ETA and the last step's headline; the log lines scroll above
    the live panel. `live` None: a panel when stderr is a terminal."""

    def __init__(self, total, live=None):
        self.total, self.t0 = total, time.monotonic()
        self.console = Console(stderr=True)
        self.live = None
        self.fields = {"step": f"0/{total}", "now": "starting", "elapsed": "0:00", "eta": "?", "last": "-"}
        if self.console.is_terminal if live is None else live:
            self.live = Live(self._panel(), console=self.console, refresh_per_second=2, transient=True)

    def __enter__(self):
        if self.live:
            self.live.start()
            procs.set_log_sink(lambda line: self.console.print(line, markup=False, highlight=False))
        return self

    def __exit__(self, *exc):
        if self.live:
            self.live.stop()
            procs.set_log_sink(None)
        return False

    def _panel(self):
        t = Table.grid(padding=(0, 2))
        t.add_column(style="bold")
        t.add_column()
        for key, label in (("step", "step"), ("now", "now"), ("elapsed", "elapsed"), ("eta", "ETA"),
                           ("last", "last step")):
            t.add_row(label, self.fields[key])
        return t

    def step(self, index, step, eta_s, unit):
        """Step INDEX (1-based) of the plan starts; ETA_S seconds of the run are left."""
        elapsed = time.monotonic() - self.t0
        self.fields.update(step=f"{index}/{self.total}", elapsed=clock(elapsed), eta=f"{clock(eta_s)} left",
                           now=f"{step.scenario} {step.series} {step.tool} {step.level}{unit} {step.extra}".strip())
        if self.live:
            self.live.update(self._panel())
        else:
            print(f"[{time.strftime('%H:%M:%S')}] step {index}/{self.total}: {self.fields['now']}, elapsed "
                  f"{self.fields['elapsed']}, ~{self.fields['eta']}", file=sys.stderr, flush=True)

    def headline(self, line):
        """The finished step's headline figures (its one-line report)."""
        self.fields["last"] = line
        if self.live:
            self.live.update(self._panel())
