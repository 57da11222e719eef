"""How far a run has got: a live panel on a terminal (rich), else a line per step (CI, a pipe)."""
import sys
import threading
import time

from rich.console import Console
from rich.live import Live
from rich.table import Table

from harness.infra import procs


def clock(seconds):
    seconds = max(0, int(round(seconds)))
    return (f"{seconds // 60}:{seconds % 60:02d}" if seconds < 3600
            else f"{seconds // 3600}h{seconds // 60 % 60:02d}")


class Progress:
    """Step k of n, scenario, mode, load, elapsed, ETA and the last step's headline; log lines
    scroll above the live panel. `live` None: a panel when stderr is a terminal."""

    def __init__(self, total, live=None):
        self.total, self.t0 = total, time.monotonic()
        self.console = Console(stderr=True)
        self.live = None
        self.fields = {"step": f"0/{total}", "now": "starting", "elapsed": "0:00", "eta": "?",
                       "last": "-"}
        if self.console.is_terminal if live is None else live:
            self.live = Live(self._panel(), console=self.console, refresh_per_second=2,
                             transient=True)

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
        self.fields.update(step=f"{index}/{self.total}", elapsed=clock(elapsed),
                           eta=f"{clock(eta_s)} left",
                           now=f"{step.scenario} {step.series} {step.tool} {step.level}{unit} "
                               f"{step.extra}".strip())
        if self.live:
            self.live.update(self._panel())
        else:
            print(f"[{time.strftime('%H:%M:%S')}] step {index}/{self.total}: {self.fields['now']}, "
                  f"elapsed {self.fields['elapsed']}, ~{self.fields['eta']}", file=sys.stderr,
                  flush=True)

    def headline(self, line):
        """The finished step's headline figures (its one-line report)."""
        self.fields["last"] = line
        if self.live:
            self.live.update(self._panel())


class Stages:
    """A run of named stages, each with its expected seconds: a bar with the time left on a
    terminal (rich), a plain line per stage otherwise. Time left: what the stages not yet done
    should take, never below zero; a stage overrunning its estimate holds the bar."""

    def __init__(self, stages, live=None):
        self.stages = list(stages)                 # [(name, expected seconds)]
        self.index, self.t0, self.stage_t0 = -1, time.monotonic(), time.monotonic()
        self.console = Console(stderr=True)
        self.bar = None
        if self.console.is_terminal if live is None else live:
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
            self.bar = Progress(TextColumn("{task.description}"), BarColumn(),
                                TimeElapsedColumn(), TextColumn("{task.fields[left]}"),
                                console=self.console, transient=True)
            self.task = self.bar.add_task("starting", total=sum(s for _, s in self.stages),
                                          left="")

    def __enter__(self):
        if self.bar:
            self.bar.start()
            procs.set_log_sink(lambda line: self.console.print(line, markup=False, highlight=False))
            self.ticking = threading.Event()
            threading.Thread(target=self._tick_until_stopped, daemon=True).start()
        return self

    def __exit__(self, *exc):
        if self.bar:
            self.ticking.set()
            self.bar.stop()
            procs.set_log_sink(None)
        return False

    def _tick_until_stopped(self):
        while not self.ticking.wait(0.5):
            self.tick()

    def left_s(self):
        """Seconds the rest should take: the current stage's remainder (>= 0) and those after."""
        if self.index < 0:
            return sum(s for _, s in self.stages)
        now = max(0.0, self.stages[self.index][1] - (time.monotonic() - self.stage_t0))
        return now + sum(s for _, s in self.stages[self.index + 1:])

    def start(self, name):
        """The stage NAME begins (a name of the list given)."""
        self.index = [n for n, _ in self.stages].index(name)
        self.stage_t0 = time.monotonic()
        text = f"{self.index + 1}/{len(self.stages)} {name}"
        if self.bar:
            self.tick()
            self.bar.update(self.task, description=text)
        else:
            procs.log(f"{text} (about {clock(self.left_s())} left of the run)")

    def tick(self):
        """Moves the bar to the time spent, within the current stage's estimate."""
        if self.bar and self.index >= 0:
            done = sum(s for _, s in self.stages[:self.index])
            within = min(self.stages[self.index][1], time.monotonic() - self.stage_t0)
            self.bar.update(self.task, completed=done + within,
                            left=f"about {clock(self.left_s())} left")
