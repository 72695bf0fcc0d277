"""What the scripts of Tests/Tools share: a pinned virtual environment they install themselves
into, running a command with its output echoed (and a heartbeat while it is quiet), and the
closing JSON result line a Swift test reads (see Tests/Tools/README.md).

Imported by har_tools.py, wiremock_client.py and contract_tools.py from their own folder; it writes nothing of its
own (no bytecode: the scripts set `sys.dont_write_bytecode` before importing it).
"""

import fcntl
import json
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

# Hang guards, not performance limits: a step that takes longer is stuck. A test reading a
# script's output gives up after 300 s without a line (the suite's hangGuard): the scripts print a
# line at least every HEARTBEAT seconds, and give up on a step (saying so) before that.
HEARTBEAT = 15  # seconds without a line before "still working" is printed
INSTALL_LIMIT = 20 * 60  # one pip run, or the wait for another run's

# The scripts wait for lines their Python children print (mitmdump's "listening at", a server's
# port): written to a pipe, a Python program's output is held in a buffer until it fills unless
# PYTHONUNBUFFERED is set. Every child (and the script itself, run again in its environment)
# inherits this, whatever the environment the test started with.
os.environ["PYTHONUNBUFFERED"] = "1"


class ToolError(Exception):
    """A step that could not run; the message says why."""


def say(line):
    print(line, flush=True)


try:
    import ctypes

    PRCTL = ctypes.CDLL(None, use_errno=True).prctl  # looked up before any fork
except (ImportError, OSError, AttributeError):
    PRCTL = None


def die_with_parent():
    """In a child, before exec: SIGKILL when the script ends, however it ends (Linux's
    PR_SET_PDEATHSIG), so that no child outlives a killed run."""
    if PRCTL is not None:
        PRCTL(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG


class Environment:
    """A script's virtual environment: `home` holds it (`venv/`, pip's cache, the install lock),
    with `requirements` installed under `constraints` (every dependency pinned) and checked by
    running `check` (Python code) in it."""

    def __init__(self, tool, home, requirements, constraints, check, what="the tools"):
        self.tool = tool
        self.home = Path(home)
        self.venv = self.home / "venv"
        self.python = self.venv / "bin" / "python"
        self.requirements = requirements
        self.constraints = constraints
        self.check = check
        self.what = what
        self.stamp_text = "\n".join(requirements) + "\n" + constraints

    def inside(self):
        """Whether this process runs in the environment."""
        try:
            return Path(sys.prefix).resolve() == self.venv.resolve()
        except OSError:
            return False

    def run_logged(self, arguments, what, limit=INSTALL_LIMIT, prefix="  ", statuses=(0,), cwd=None):
        """Runs a command (in `cwd`), echoing its output line by line (and a heartbeat when it is
        quiet); returns its lines; raises ToolError with the output's tail when it fails (exits
        with a status not in `statuses`)."""
        say(f"{self.tool}: {what}: {' '.join(str(a) for a in arguments)}")
        process = subprocess.Popen(
            [str(a) for a in arguments], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            errors="replace", preexec_fn=die_with_parent, cwd=cwd,
        )
        lines = []

        def pump():
            for line in process.stdout:
                lines.append(line.rstrip("\n"))
                say(prefix + line.rstrip("\n"))

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        started = time.monotonic()
        while True:
            try:
                process.wait(timeout=HEARTBEAT)
                break
            except subprocess.TimeoutExpired:
                elapsed = time.monotonic() - started
                if elapsed > limit:
                    process.kill()
                    process.wait()
                    reader.join(5)
                    raise ToolError(f"{what} did not finish within {limit} s and was stopped (a hang guard); its last output:\n" + "\n".join(lines[-30:]))
                say(f"{self.tool}: {what}: still running ({int(elapsed)} s)")
        reader.join(5)
        if process.returncode not in statuses:
            raise ToolError(f"{what} failed (exit status {process.returncode}); its last output:\n" + "\n".join(lines[-40:]))
        return lines

    def ensure(self):
        """Creates or reuses the environment with the pinned requirements. Several runs at once
        (tests in parallel) take turns through a lock file inside `home`."""
        self.home.mkdir(parents=True, exist_ok=True)
        slug = self.tool.replace("_", "-")
        with open(self.home / "install.lock", "w") as lock:
            waited = time.monotonic()
            announced = 0.0
            while True:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    elapsed = time.monotonic() - waited
                    if elapsed > INSTALL_LIMIT:
                        raise ToolError(f"another {self.tool} run held {self.home / 'install.lock'} for {INSTALL_LIMIT} s (a hang guard)")
                    if elapsed - announced >= 10:
                        announced = elapsed
                        say(f"{self.tool}: waiting for another run installing {self.what} ({int(elapsed)} s)")
                    time.sleep(0.5)
            stamp = self.venv / f"{slug}-pins.txt"
            if stamp.exists() and stamp.read_text() == self.stamp_text and self.python.exists():
                return
            if not self.python.exists() or subprocess.run([str(self.python), "-c", "pass"], capture_output=True).returncode != 0:
                self.run_logged([sys.executable, "-m", "venv", "--clear", self.venv], "creating the virtual environment")
            constraints = self.venv / f"{slug}-constraints.txt"
            constraints.write_text(self.constraints)
            self.run_logged(
                [
                    self.python, "-m", "pip", "install", "--disable-pip-version-check", "--no-input", "--progress-bar", "off",
                    "--cache-dir", self.home / "pip-cache", "-c", constraints, *self.requirements,
                ],
                "installing " + " ".join(self.requirements),
                prefix="  pip: ",
            )
            self.run_logged([self.python, "-c", self.check], "checking the installation")
            stamp.write_text(self.stamp_text)


class Report:
    """Problems (failures), findings (known, pinned differences), the checks made and extra
    result fields; `finish()` prints the closing JSON line."""

    def __init__(self, tool, command, strict=False):
        self.tool = tool
        self.command = command
        self.strict = strict
        self.problems = []
        self.findings = []
        self.checks = 0
        self.extra = {}
        self.section = ""

    def problem(self, text):
        self.problems.append(f"{self.section}: {text}" if self.section else text)
        say("PROBLEM: " + self.problems[-1])

    def finding(self, text):
        if self.strict:
            self.problem("(strict) " + text)
        else:
            self.findings.append(text)
            say("FINDING: " + text)

    def check(self, condition, what, got=None):
        """One checked value: `what` says what is expected; `got` what was found."""
        self.checks += 1
        if condition:
            say(f"  ok: {what}")
        else:
            self.problem(f"{what}; got {got!r}" if got is not None else what)
        return bool(condition)

    def equal(self, got, expected, what):
        return self.check(got == expected, f"{what} is {expected!r}", got)

    def finish(self):
        ok = not self.problems
        counted = f"{self.checks} checks, " if self.checks else ""
        say(f"{self.tool} {self.command}: {counted}{'ok' if ok else f'{len(self.problems)} problem(s)'}" + (f", {len(self.findings)} finding(s)" if self.findings else ""))
        result = {"tool": self.tool, "command": self.command, "ok": ok, "problems": self.problems, "findings": self.findings, "checks": self.checks}
        result.update(self.extra)
        print(json.dumps(result, ensure_ascii=True), flush=True)
        return 0 if ok else 1


def fail_to_run(tool, command, message):
    """The closing line of a command that could not run (exit status 2)."""
    say("PROBLEM: " + message)
    print(json.dumps({"tool": tool, "command": command, "ok": False, "problems": [message], "findings": [], "checks": 0}, ensure_ascii=True), flush=True)
    return 2


def stop_on_signal(number, frame):
    raise SystemExit(128 + number)  # unwinds through the finally blocks that stop the children


def main(environment, parser, script):
    """A script's entry point: signals and output set up for a test to read, the environment
    installed (once) and the script run again inside it, then the chosen command run with every
    failure turned into the closing result line. `parser()` sets `run` on each command."""
    sys.stdout.reconfigure(line_buffering=True)
    # A test process may start children with SIGINT and SIGTERM blocked or ignored; the script
    # stops on them (stopping its own children first), and its children get the default
    # dispositions (an exec resets handled signals).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT, signal.SIGTERM])
    signal.signal(signal.SIGINT, stop_on_signal)
    signal.signal(signal.SIGTERM, stop_on_signal)
    # One stream for a test to read: standard error (tracebacks included) joins standard output.
    os.dup2(sys.stdout.fileno(), sys.stderr.fileno())
    arguments = parser().parse_args()
    if not environment.inside():
        try:
            environment.ensure()
        except ToolError as error:
            return fail_to_run(environment.tool, arguments.command, f"could not install {environment.what} into {environment.venv}: {error}")
        os.execv(str(environment.python), [str(environment.python), str(Path(script).resolve()), *sys.argv[1:]])
    try:
        return arguments.run(arguments)
    except ToolError as error:
        return fail_to_run(environment.tool, arguments.command, str(error))
    except Exception:  # noqa: BLE001 — any other failure: say where
        return fail_to_run(environment.tool, arguments.command, f"{environment.tool} failed:\n" + traceback.format_exc())
