#!/usr/bin/env python3
"""Reads Airlock's streams with a real browser: headless Chromium's EventSource, driven by Selenium.

    python3 Tests/Tools/browser_clients.py eventsource --page URL
    python3 Tests/Tools/browser_clients.py inspector --server URL [--screenshots DIR]
    python3 Tests/Tools/browser_clients.py page-results --page URL
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

`inspector` opens the traffic page of the Airlock server at URL (`URL/__admin/inspector/`),
waits for its feed, then sends the server traffic of its own (a matched request, a near miss, and
an XSS corpus: script tags, event handlers and `javascript:` URLs in paths, headers and bodies,
and bytes that are not UTF-8) and reports what the page shows without a reload: the rows, the
marked verdicts of the near miss, the "copy as" texts, whether any injected script ran, what
"Add as stub" did to the next such request, and the console's errors; with `--screenshots`, a PNG
of the list and of the near miss's detail.

`page-results` opens PAGE (served by the test), waits for `window.finished`, and prints
`window.results`.

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

# The versions this script was verified with (Selenium 4.51.0: 4.52.0 needs a certifi newer than
# the package index here has; axe-selenium-python 2.1.6 bundles axe-core, the accessibility rules
# `inspector` checks the page with, and requires pytest, which is never run), and every package
# they pulled in, pinned as constraints so that a fresh machine installs the same set.
REQUIREMENTS = ["selenium==4.51.0", "axe-selenium-python==2.1.6"]
CONSTRAINTS = """\
attrs==26.1.0
certifi==2026.10.19.post1
h11==0.16.0
idna==3.20
iniconfig==2.3.1
outcome==1.3.0.post0
packaging==26.4
pluggy==1.7.0
Pygments==2.21.0
PySocks==1.7.1
pytest==9.2.0
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


def note_no_browser(report, key):
    """Chromium or its driver is missing: a finding, and `key` set to None."""
    report.finding("Chromium or chromedriver is not installed here (Debian: chromium, chromium-driver): the browser was not opened (CI installs them)")
    report.extra[key] = None


def without_browser(report, key):
    """The result when Chromium or its driver is missing."""
    note_no_browser(report, key)
    return report.finish()


def finished_page(report, page, variable, key):
    """Opens `page`, waits for its `window.finished`, and puts `window.<variable>` and the
    console's errors in the result (under `key` and `console`); returns the variable's value, or
    None without a browser."""
    paths = browser_paths()
    if paths is None:
        note_no_browser(report, key)
        return None
    browser = open_browser(*paths)
    try:
        browser.set_page_load_timeout(PAGE_LIMIT)
        browser.get(page)
        if not wait_for(browser, "return window.finished === true", "that it finished", report):
            say(f"  the page had {browser.execute_script(f'return window.{variable}')}")
        value = browser.execute_script(f"return window.{variable}")
        report.extra[key] = value
        report.extra["console"] = [entry["message"] for entry in browser.get_log("browser") if entry.get("level") == "SEVERE"]
        return value
    finally:
        browser.quit()


def eventsource(arguments):
    report = toolenv.Report(TOOL, "eventsource")
    events = finished_page(report, arguments.page, "received", "events")
    if events is not None:
        for event in events:
            say(f"  EventSource: {event['type']!r} lastEventId {event['lastEventId']!r} data {event['data'][:60]!r} at {event['at']:.0f} ms")
        report.check(len(events) > 0, "the page received events", len(events))
    return report.finish()


# The traffic `inspector` sends. Every payload that could run would set window.__xss.
XSS = [
    ("GET", "/xss/%3Cscript%3Ewindow.__xss%3D1%3C%2Fscript%3E", {}, None),
    ("GET", "/xss/%3Cimg%20src%3Dx%20onerror%3D%22window.__xss%3D2%22%3E?q=%22%3E%3Csvg%20onload%3Dwindow.__xss%3D3%3E", {}, None),
    ("GET", "/xss/javascript:window.__xss=4", {"X-Evil": "<img src=x onerror=\"window.__xss=5\">", "Referer": "javascript:window.__xss=6"}, None),
    ("POST", "/xss/body", {"Content-Type": "text/html"}, b"<script>window.__xss=7</script><img src=x onerror=window.__xss=8>"),
    ("POST", "/xss/json", {"Content-Type": "application/json"}, b'{"<img src=x onerror=window.__xss=9>": "</script><script>window.__xss=10</script>"}'),
    ("POST", "/xss/bytes", {"Content-Type": "text/plain", "X-Latin": "caf\xe9 <b onmouseover=window.__xss=11>"}, b"\xff\xfe<script>window.__xss=12</script>\xc3\x28"),
]


def send(server, method, path, headers, body):
    """Sends one request with http.client (which sends header bytes as given, Latin-1) and
    returns the status and body."""
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(server)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.putrequest(method, path, skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name, value.encode("latin-1"))
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def wait_for(browser, script, what, report, limit=PAGE_LIMIT):
    """Polls `script` in the page until it is truthy; a problem when it is not within `limit`."""
    deadline = time.monotonic() + limit
    last_say = time.monotonic()
    while True:
        value = browser.execute_script(script)
        if value:
            return value
        if time.monotonic() > deadline:
            report.problem(f"the page did not show {what} within {limit} s")
            return None
        if time.monotonic() - last_say > HEARTBEAT:
            say(f"  waiting for the page to show {what}")
            last_say = time.monotonic()
        time.sleep(0.05)


def click_row(browser, path_part):
    """Clicks the newest row whose URL contains `path_part`; whether there was one."""
    return browser.execute_script(
        "const row = [...document.querySelectorAll('#rows tr')].find((tr) => tr.children[2].textContent.includes(arguments[0]));"
        "if (row) { row.click(); return true; } return false;", path_part)


def inspector(arguments):
    report = toolenv.Report(TOOL, "inspector")
    paths = browser_paths()
    if paths is None:
        return without_browser(report, "page")
    server = arguments.server.rstrip("/")
    page = server + "/__admin/inspector/" + (f"#token={arguments.token}" if arguments.token else "")
    browser = open_browser(*paths)
    result = {}
    try:
        browser.set_window_size(1400, 900)
        browser.set_page_load_timeout(PAGE_LIMIT)
        browser.get(page)
        wait_for(browser, "return document.getElementById('connection').textContent === 'Live'", "its feed as live", report)
        # A mark that a reload would wipe: exchanges must appear without one.
        browser.execute_script("window.__sameDocument = true")
        status, _ = send(server, "GET", "/users/1", {"Accept": "application/json"}, None)
        result["matchedStatus"] = status
        status, _ = send(server, "GET", "/users/2?page=3", {"Accept": "application/json"}, None)
        result["nearMissStatus"] = status
        for method, path, headers, body in XSS:
            send(server, method, path, headers, body)
        expected = 2 + len(XSS)
        wait_for(browser, f"return document.querySelectorAll('#rows tr').length >= {expected}", f"{expected} rows", report)
        result["sameDocument"] = bool(browser.execute_script("return window.__sameDocument === true"))
        result["rows"] = browser.execute_script("return [...document.querySelectorAll('#rows tr')].map((tr) => [...tr.children].map((td) => td.textContent))")
        if arguments.screenshots:
            os.makedirs(arguments.screenshots, exist_ok=True)
            browser.save_screenshot(os.path.join(arguments.screenshots, "inspector-list.png"))
        # Every exchange opened, the XSS corpus included; then the near miss.
        for index in range(len(result["rows"])):
            browser.execute_script("document.querySelectorAll('#rows tr')[arguments[0]].click()", index)
        result["xss"] = browser.execute_script("return window.__xss === undefined ? null : window.__xss")
        result["injectedElements"] = browser.execute_script(
            "return document.querySelectorAll('#rows img, #rows script, #rows svg, #detail img, #detail svg, #detail script').length")
        if click_row(browser, "/xss/bytes"):
            result["bytesDetail"] = browser.execute_script(
                "const d = document.getElementById('detail-body'); return {headerShown: d.textContent.includes('<b onmouseover=window.__xss=11>'), hex: [...d.querySelectorAll('pre.hex')].map((p) => p.textContent)}")
        if click_row(browser, "/users/2"):
            wait_for(browser, "return document.querySelector('#detail .verdict') !== null", "the near miss's verdicts", report)
            result["verdicts"] = browser.execute_script(
                "return [...document.querySelectorAll('#detail .verdict')].map((li) => ({text: li.textContent, differs: li.classList.contains('differs'), marked: li.querySelector('mark') !== null}))")
            result["copy"] = browser.execute_script(
                "const texts = {}; for (const pre of document.querySelectorAll('#detail pre[id^=copy-]')) texts[pre.id.slice(5)] = pre.textContent; return texts")
            if arguments.screenshots:
                browser.execute_script("for (const d of document.querySelectorAll('#detail details.copy')) d.open = (d.querySelector('pre').id === 'copy-stub-file')")
                browser.save_screenshot(os.path.join(arguments.screenshots, "inspector-near-miss.png"))
            # Add as stub: the next such request gets the stub's response.
            browser.execute_script("document.getElementById('add-as-stub').click()")
            result["addResult"] = wait_for(browser, "const r = document.getElementById('add-result'); return r && r.textContent.startsWith('Added') ? r.textContent : (r && r.textContent.startsWith('Not added') ? r.textContent : null)", "the add's result", report)
            status, body = send(server, "GET", "/users/2?page=3", {"Accept": "application/json"}, None)
            result["afterAdd"] = {"status": status, "body": body.decode("utf-8", "replace")}
        else:
            report.problem("no row for /users/2")
        # The keyboard alone: Tab from the search field reaches the rows, an arrow moves between
        # them, Enter opens one.
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys

        browser.find_element(By.ID, "search").click()
        reached = None
        for _ in range(12):
            browser.switch_to.active_element.send_keys(Keys.TAB)
            if browser.execute_script("return document.activeElement.tagName") == "TR":
                reached = browser.execute_script("return document.activeElement.dataset.sequence")
                break
        result["keyboard"] = {"firstRowReached": reached}
        if reached:
            browser.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
            browser.switch_to.active_element.send_keys(Keys.ENTER)
            result["keyboard"]["opened"] = browser.execute_script("return document.getElementById('detail-heading').textContent")
        # Search, filter and pause.
        search = browser.find_element(By.ID, "search")
        search.clear()
        search.send_keys("users/2")
        result["searched"] = browser.execute_script("return [...document.querySelectorAll('#rows tr')].map((tr) => tr.children[2].textContent)")
        search.clear()
        search.send_keys(Keys.BACKSPACE)
        browser.execute_script("const f = document.getElementById('filter'); f.value = 'matched'; f.dispatchEvent(new Event('change'))")
        result["filteredMatched"] = browser.execute_script("return [...document.querySelectorAll('#rows tr')].map((tr) => tr.children[2].textContent)")
        browser.execute_script("const f = document.getElementById('filter'); f.value = 'all'; f.dispatchEvent(new Event('change'))")
        before = browser.execute_script("return document.querySelectorAll('#rows tr').length")
        browser.find_element(By.ID, "pause").click()
        send(server, "GET", "/while-paused", {}, None)
        result["paused"] = {"button": wait_for(browser, "const b = document.getElementById('pause'); return b.textContent.includes('1 new') ? b.textContent : null", "the held exchange's count", report)}
        result["paused"]["rowsWhilePaused"] = browser.execute_script("return document.querySelectorAll('#rows tr').length") - before
        browser.find_element(By.ID, "pause").click()
        result["paused"]["rowsAfterResume"] = wait_for(browser, f"const n = document.querySelectorAll('#rows tr').length; return n > {before} ? n - {before} : null", "the held exchange after resuming", report)
        # axe-core's rules (labels, names, contrast, structure) on the page with a detail open.
        from axe_selenium_python import Axe

        axe = Axe(browser)
        axe.inject()
        audit = axe.run()
        result["axe"] = {
            "rules": len(audit.get("passes", [])) + len(audit.get("violations", [])),
            "violations": [{"id": v["id"], "impact": v.get("impact"), "help": v.get("help"), "nodes": len(v.get("nodes", []))} for v in audit.get("violations", [])],
        }
        for violation in result["axe"]["violations"]:
            say(f"  axe: {violation['id']} ({violation['impact']}): {violation['help']} — {violation['nodes']} element(s)")
        result["console"] = [entry["message"] for entry in browser.get_log("browser") if entry.get("level") == "SEVERE"]
        report.check(len(result["rows"]) >= expected, "the page listed the exchanges", len(result["rows"]))
    finally:
        browser.quit()
    report.extra["page"] = result
    return report.finish()


def page_results(arguments):
    report = toolenv.Report(TOOL, "page-results")
    finished_page(report, arguments.page, "results", "results")
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
    traffic = commands.add_parser("inspector", help="open a server's traffic page, send it traffic (an XSS corpus too), and report what the page shows")
    traffic.add_argument("--server", required=True, help="the server's base URL")
    traffic.add_argument("--token", help="the server's admin token, given to the page in its URL's fragment")
    traffic.add_argument("--screenshots", help="a folder for PNGs of the page")
    traffic.set_defaults(run=inspector)
    results = commands.add_parser("page-results", help="open a page, wait for window.finished, and print window.results")
    results.add_argument("--page", required=True)
    results.set_defaults(run=page_results)
    commands.add_parser("install", help="install Selenium and stop").set_defaults(run=install)
    return top


if __name__ == "__main__":
    sys.exit(toolenv.main(ENVIRONMENT, parser, __file__))
