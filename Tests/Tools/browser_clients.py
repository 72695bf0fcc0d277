#!/usr/bin/env python3
"""Reads Airlock's streams with a real browser: headless Chromium's EventSource, driven by Selenium.

    python3 Tests/Tools/browser_clients.py eventsource --page URL
    python3 Tests/Tools/browser_clients.py install

(`--help` lists every subcommand; Tests/Tools/README.md says what each one checks.)

It installs Selenium from PyPI, once, into a virtual environment under `.build/browser-clients/`
(the version pinned below, every dependency pinned too), then runs again inside it. Chromium and
its driver come from Debian's packages (`chromium`, `chromium-driver`: `.ci/run` installs them);
a machine without them skips the browser with a finding. It writes nothing else.

`eventsource` opens PAGE in Chromium. The page (served by the test) opens an `EventSource`, keeps
each event it gets in `window.received` (`type`, `data`, `lastEventId`, and the time since the
page opened), and sets `window.finished` when an event of type `done` arrives; it closes the
source then. The command waits for that (a hang guard of 120 s), then prints the events and the
browser console's errors in the closing line for the test to check.

Made for a test to drive as a child process: everything goes to standard output (standard error
is joined to it), a line at least every 15 seconds while it works, and the last line is one JSON
object: {"tool": "browser_clients", "command": ..., "ok": true|false, "problems": [...],
"findings": [...], "checks": N, "events": [...], "console": [...]}. Exit status: 0 ok,
1 problems, 2 Selenium could not be installed or the command could not run.
"""

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

sys.dont_write_bytecode = True  # nothing beside this script in the source tree

ROOT = Path(__file__).resolve().parents[2]
HOME = Path(os.environ.get("BROWSER_CLIENTS_HOME") or ROOT / ".build" / "browser-clients")
TOOL = "browser_clients"

# The version this script was verified with (Selenium 4.51.0: 4.52.0 needs a certifi newer than
# the package index here has), and every package it pulled in, pinned as constraints so that a
# fresh machine installs the same set.
REQUIREMENTS = ["selenium==4.51.0"]
CONSTRAINTS = """\
attrs==26.1.0
certifi==2026.10.19.post1
h11==0.16.0
idna==3.20
outcome==1.3.0.post0
PySocks==1.7.1
sniffio==1.3.1
sortedcontainers==2.4.0
trio==0.35.0
trio-websocket==0.12.2
typing_extensions==4.16.0
urllib3==2.8.0
websocket-client==1.9.2
wsproto==1.3.2
"""
sys.path.insert(0, str(Path(__file__).resolve().parent))
import toolenv  # noqa: E402  (Tests/Tools' shared installation and result line)
from toolenv import HEARTBEAT, say  # noqa: E402

ENVIRONMENT = toolenv.Environment(TOOL, HOME, REQUIREMENTS, CONSTRAINTS, "import selenium; print('selenium', selenium.__version__)", what="Selenium")

# A hang guard, not a performance limit: a page that has not finished by then is stuck.
PAGE_LIMIT = 120


def browser_paths():
    """Chromium and its driver from Debian's packages, if installed."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (chromium, driver) if chromium and driver else None


def open_browser(chromium, driver):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--no-proxy-server"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver), options=options)


def eventsource(arguments):
    report = toolenv.Report(TOOL, "eventsource")
    paths = browser_paths()
    if paths is None:
        report.finding("Chromium or chromedriver is not installed here (Debian: chromium, chromium-driver): the browser read was skipped (CI installs them)")
        report.extra["events"] = None
        return report.finish()
    browser = open_browser(*paths)
    try:
        browser.set_page_load_timeout(PAGE_LIMIT)
        browser.get(arguments.page)
        deadline = time.monotonic() + PAGE_LIMIT
        last_say = time.monotonic()
        while not browser.execute_script("return window.finished === true"):
            if time.monotonic() > deadline:
                report.problem(f"the page did not finish within {PAGE_LIMIT} s; it had {browser.execute_script('return window.received')}")
                break
            if time.monotonic() - last_say > HEARTBEAT:
                say(f"  waiting for the page: {len(browser.execute_script('return window.received') or [])} event(s) so far")
                last_say = time.monotonic()
            time.sleep(0.05)
        events = browser.execute_script("return window.received") or []
        for event in events:
            say(f"  EventSource: {event['type']!r} lastEventId {event['lastEventId']!r} data {event['data'][:60]!r} at {event['at']:.0f} ms")
        console = [entry["message"] for entry in browser.get_log("browser") if entry.get("level") == "SEVERE"]
        report.extra["events"] = events
        report.extra["console"] = console
        report.check(len(events) > 0, "the page received events", len(events))
    finally:
        browser.quit()
    return report.finish()


def install(arguments):
    report = toolenv.Report(TOOL, "install")
    if browser_paths() is None:
        report.finding("Chromium or chromedriver is not installed here (Debian: chromium, chromium-driver)")
    return report.finish()


def parser():
    top = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = top.add_subparsers(dest="command", required=True)
    page = commands.add_parser("eventsource", help="open a page whose EventSource collects events, and print them")
    page.add_argument("--page", required=True)
    page.set_defaults(run=eventsource)
    commands.add_parser("install", help="install Selenium and stop").set_defaults(run=install)
    return top


if __name__ == "__main__":
    sys.exit(toolenv.main(ENVIRONMENT, parser, __file__))
