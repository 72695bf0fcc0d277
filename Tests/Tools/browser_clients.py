#!/usr/bin/env python3
"""Reads Airlock's streams with a real browser: headless Chromium's EventSource, driven by Selenium.

    python3 Tests/Tools/browser_clients.py eventsource --page URL
    python3 Tests/Tools/browser_clients.py inspector --server URL [--screenshots DIR]
    python3 Tests/Tools/browser_clients.py bodies --server URL
    python3 Tests/Tools/browser_clients.py page-results --page URL [--trust-ca CA.pem]
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
markup sent raw in the request target, and bytes that are not UTF-8 in the path, a header and
the body) and reports what the page shows without a reload: the rows, the marked verdicts of the
near miss, the "copy as" texts, whether any injected script ran or element got in (checked with
each exchange's detail shown and every section open, and at the end), what
"Add as stub" did to the next such request, and the console's errors; with `--screenshots`, a PNG
of the list and of the near miss's detail.

`bodies` opens the traffic page of the Airlock server at URL, sends it a request whose header
fields come in a set order and gets JSON back, a form, a multipart body, a stream of server-sent
events and a WebSocket's messages, opens each and reports what the page shows: the header names in
order, the JSON tree's folds and leaves, the form's fields, the multipart parts, the stream's parts
with their times and the frames with theirs.

`page-results` opens PAGE (served by the test), waits for `window.finished`, and prints
`window.results`. With `--trust-ca`, Chromium trusts the certificates of CA.pem as a user's
browser would once told to: they go into an NSS database (Chromium's store on Linux) made with
`certutil` (Debian's `libnss3-tools`) in the browser's own temporary HOME, and certificate errors
stay errors.

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
import tempfile
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


def trust_store(scratch, ca_file):
    """An NSS database under `scratch`/.pki/nssdb (where Chromium on Linux reads the certificates
    its user trusts) that trusts the certificates of `ca_file` to identify servers."""
    import subprocess

    database = "sql:" + os.path.join(scratch, ".pki", "nssdb")
    os.makedirs(os.path.join(scratch, ".pki", "nssdb"))
    for command in (["-N", "--empty-password"], ["-A", "-t", "C,,", "-n", "Airlock test CA", "-i", ca_file]):
        subprocess.run(["certutil", "-d", database, *command], check=True, capture_output=True, timeout=60)


def open_browser(chromium, driver, trust_ca=None):
    """Chromium under chromedriver, with a temporary directory of its own (its profile, its
    singleton socket, and — as its HOME — the NSS database that trusts `trust_ca`, if given):
    `quit()` removes it, so a run leaves nothing in the system's."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    scratch = tempfile.mkdtemp(prefix="airlock-chromium-")
    environment = {**os.environ, "TMPDIR": scratch}
    if trust_ca:
        try:
            trust_store(scratch, trust_ca)
        except BaseException:
            shutil.rmtree(scratch, ignore_errors=True)
            raise
        environment["HOME"] = scratch
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--no-proxy-server"):
        options.add_argument(argument)
    options.add_argument(f"--user-data-dir={os.path.join(scratch, 'profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        browser = webdriver.Chrome(service=Service(driver, env=environment), options=options)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    quit_browser = browser.quit

    def quit():
        try:
            quit_browser()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    browser.quit = quit
    return browser


def note_no_browser(report, key):
    """Chromium or its driver is missing: a finding, and `key` set to None."""
    report.finding("Chromium or chromedriver is not installed here (Debian: chromium, chromium-driver): the browser was not opened (CI installs them)")
    report.extra[key] = None


def without_browser(report, key):
    """The result when Chromium or its driver is missing."""
    note_no_browser(report, key)
    return report.finish()


def finished_page(report, page, variable, key, trust_ca=None):
    """Opens `page`, waits for its `window.finished`, and puts `window.<variable>` and the
    console's errors in the result (under `key` and `console`); returns the variable's value, or
    None without a browser (or, with `trust_ca`, without `certutil`)."""
    paths = browser_paths()
    if paths is None:
        note_no_browser(report, key)
        return None
    if trust_ca and shutil.which("certutil") is None:
        report.finding("certutil is not installed here (Debian: libnss3-tools): Chromium could not be told to trust the CA, so the browser was not opened (CI installs it)")
        report.extra[key] = None
        return None
    browser = open_browser(*paths, trust_ca=trust_ca)
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
# What an app's client sends in a short session: an answered request, a near miss (the page
# differs from the stub's), a request a wildcard stub answers, a sign-up no stub answers, and the
# first request again.
SESSION = [
    ("GET", "/users/1", {"Accept": "application/json"}, None),
    ("GET", "/users/2?page=3", {"Accept": "application/json"}, None),
    ("GET", "/users/7?page=1", {"Accept": "application/json"}, None),
    ("POST", "/users", {"Accept": "application/json", "Content-Type": "application/json"}, b'{"name": "Grace"}'),
    ("GET", "/users/1", {"Accept": "application/json"}, None),
]

XSS = [
    ("GET", "/xss/%3Cscript%3Ewindow.__xss%3D1%3C%2Fscript%3E", {}, None),
    ("GET", "/xss/%3Cimg%20src%3Dx%20onerror%3D%22window.__xss%3D2%22%3E?q=%22%3E%3Csvg%20onload%3Dwindow.__xss%3D3%3E", {}, None),
    ("GET", "/xss/javascript:window.__xss=4", {"X-Evil": "<img src=x onerror=\"window.__xss=5\">", "Referer": "javascript:window.__xss=6"}, None),
    ("POST", "/xss/body", {"Content-Type": "text/html"}, b"<script>window.__xss=7</script><img src=x onerror=window.__xss=8>"),
    ("POST", "/xss/json", {"Content-Type": "application/json"}, b'{"<img src=x onerror=window.__xss=9>": "</script><script>window.__xss=10</script>"}'),
    ("POST", "/xss/bytes", {"Content-Type": "text/plain", "X-Latin": "caf\xe9 <b onmouseover=window.__xss=11>"}, b"\xff\xfe<script>window.__xss=12</script>\xc3\x28"),
]


# Sent over a socket byte for byte: markup in the request target itself (not percent-encoded, as
# http.client and browsers would), and bytes that are not UTF-8 in the path (percent-encoded: the
# server refuses raw ones in a request target with 400, the last request, which makes no row), a
# header and the body. `{authority}` becomes the server's. Every payload that could run would set
# window.__xss.
RAW = [
    b"GET /xss/<script>window.__xss=13</script> HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n",
    b"GET /xss/<img/src=x/onerror=window.__xss=14>?q=\"><svg/onload=window.__xss=15> HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n",
    b"POST /xss/%FF%FE<script>window.__xss=16</script>/%C3%28 HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n"
    b"X-Broken: \xc3\x28\xe2\x82<img src=x onerror=window.__xss=17>\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {length}\r\n\r\n"
    b"{body}",
    b"GET /xss/\xff\xfe<script>window.__xss=20</script> HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n",
]
# How many of RAW the server refuses before they reach the journal (the last).
RAW_REFUSED = 1
RAW_BODY = b"\xe2\x82<img src=x onerror=window.__xss=18>\xed\xa0\x80<script>window.__xss=19</script>\xc0\xaf"

# The only elements the page makes (inspector.html and inspector.js): any other in the list or the
# detail came from traffic.
PAGE_ELEMENTS = ["tr", "td", "span", "details", "summary", "div", "pre", "table", "caption", "thead", "tbody", "th", "h3",
                 "h4", "ol", "ul", "li", "mark", "dl", "dt", "dd", "p", "button", "section"]
FOREIGN_ELEMENTS = ("const allowed = new Set(arguments[0]);"
                    "return [...document.querySelectorAll('#rows *, #detail-body *')].filter((e) => !allowed.has(e.localName) "
                    "|| [...e.attributes].some((a) => a.name.startsWith('on') || /^\\s*javascript:/i.test(a.value))).map((e) => e.outerHTML.slice(0, 80))")


def send_raw(server, template):
    """Sends one request exactly as `template`'s bytes (its `{authority}`, `{length}` and `{body}`
    filled in) over a socket; returns the status (None when the server closed without one)."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(server)
    authority = f"{parts.hostname}:{parts.port}".encode()
    request = template.replace(b"{authority}", authority).replace(b"{length}", str(len(RAW_BODY)).encode()).replace(b"{body}", RAW_BODY)
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as connection:
        connection.sendall(request)
        answer = b""
        while b"\r\n" not in answer:
            chunk = connection.recv(4096)
            if not chunk:
                break
            answer += chunk
    words = answer.split(b"\r\n", 1)[0].split(b" ")
    return int(words[1]) if len(words) > 1 and words[1].isdigit() else None


def settle(browser):
    """Gives the page what it needs to run anything the detail could have let in: a round trip to
    the server (an injected image's request and its error go the same way) and two frames."""
    browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch('favicon.svg', {cache: 'no-store'}).catch(() => null).finally(() => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))")


def script_ran(browser):
    """window.__xss (None when no script of the corpus ran) and the elements the page did not make."""
    return (browser.execute_script("return window.__xss === undefined ? null : window.__xss"),
            browser.execute_script(FOREIGN_ELEMENTS, PAGE_ELEMENTS))


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


def open_traffic_page(browser, server, report, token=None):
    """Opens the traffic page of the server at `server` and waits for its feed to be live."""
    browser.set_window_size(1400, 900)
    browser.set_page_load_timeout(PAGE_LIMIT)
    browser.get(server + "/__admin/inspector/" + (f"#token={token}" if token else ""))
    wait_for(browser, "return document.getElementById('connection').textContent === 'Live'", "its feed as live", report)


def wait_for_detail(browser, sequence, what, report):
    """Waits until the detail shows exchange `sequence`: its heading and its facts in place."""
    script = f"return document.getElementById('detail-heading').textContent === 'Exchange #{sequence}' && document.querySelector('#detail-body dl') !== null"
    return bool(wait_for(browser, script, what, report))


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
    browser = open_browser(*paths)
    result = {}
    try:
        open_traffic_page(browser, server, report, arguments.token)
        # A mark that a reload would wipe: exchanges must appear without one.
        browser.execute_script("window.__sameDocument = true")
        # An app's session first (the article's picture of the list), then the XSS corpus.
        result["sessionStatuses"] = [send(server, method, path, headers, body)[0] for method, path, headers, body in SESSION]
        wait_for(browser, f"return document.querySelectorAll('#rows tr').length >= {len(SESSION)}", f"{len(SESSION)} rows", report)
        if arguments.screenshots:
            os.makedirs(arguments.screenshots, exist_ok=True)
            # Just tall enough for the session's rows.
            browser.set_window_size(1400, 460)
            browser.save_screenshot(os.path.join(arguments.screenshots, "inspector-list.png"))
            # The session's near miss, open: tall enough for the marked verdicts and, below them,
            # the copy sections and "Add as stub", the stub-file entry open.
            if click_row(browser, "/users/2"):
                wait_for(browser, "return document.querySelector('#detail .verdict') !== null", "the near miss's verdicts", report)
                browser.set_window_size(1400, 1900)
                browser.execute_script("for (const d of document.querySelectorAll('#detail details.copy')) d.open = (d.querySelector('pre').id === 'copy-stub-file')")
                settle(browser)
                result["nearMissShotShowsAll"] = browser.execute_script(
                    "const d = document.getElementById('detail'); const add = document.getElementById('add-as-stub').getBoundingClientRect();"
                    "return d.scrollTop === 0 && window.scrollY === 0 && add.bottom <= Math.min(window.innerHeight, d.getBoundingClientRect().bottom)")
                browser.save_screenshot(os.path.join(arguments.screenshots, "inspector-near-miss.png"))
            browser.set_window_size(1400, 900)
        for method, path, headers, body in XSS:
            send(server, method, path, headers, body)
        result["rawStatuses"] = [send_raw(server, template) for template in RAW]
        expected = len(SESSION) + len(XSS) + len(RAW) - RAW_REFUSED
        result["sent"] = expected
        wait_for(browser, f"return document.querySelectorAll('#rows tr').length >= {expected}", f"{expected} rows", report)
        result["sameDocument"] = bool(browser.execute_script("return window.__sameDocument === true"))
        result["rows"] = browser.execute_script("return [...document.querySelectorAll('#rows tr')].map((tr) => [...tr.children].map((td) => td.textContent))")
        # Every exchange opened, the XSS corpus included, each checked while it is the one shown:
        # its detail in place, every section open, then what ran and what got in.
        result["details"] = []
        for sequence in [row[0] for row in result["rows"]]:
            browser.execute_script("document.querySelector('#rows tr[data-sequence=\"' + arguments[0] + '\"]').click()", sequence)
            shown = wait_for_detail(browser, sequence, f"exchange #{sequence}'s detail", report)
            browser.execute_script("for (const d of document.querySelectorAll('#detail details')) d.open = true")
            settle(browser)
            xss, foreign = script_ran(browser)
            result["details"].append({"sequence": sequence, "shown": bool(shown), "xss": xss, "foreign": foreign})
        result["xss"], foreign = script_ran(browser)
        result["injectedElements"] = len(foreign)
        if click_row(browser, "/xss/bytes"):
            result["bytesDetail"] = browser.execute_script(
                "const d = document.getElementById('detail-body'); return {headerShown: d.textContent.includes('<b onmouseover=window.__xss=11>'), hex: [...d.querySelectorAll('pre.hex')].map((p) => p.textContent)}")
        if click_row(browser, "/users/2"):
            wait_for(browser, "return document.querySelector('#detail .verdict') !== null", "the near miss's verdicts", report)
            result["verdicts"] = browser.execute_script(
                "return [...document.querySelectorAll('#detail .verdict')].map((li) => ({text: li.textContent, differs: li.classList.contains('differs'), marked: li.querySelector('mark') !== null}))")
            result["copy"] = browser.execute_script(
                "const texts = {}; for (const pre of document.querySelectorAll('#detail pre[id^=copy-]')) texts[pre.id.slice(5)] = pre.textContent; return texts")
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


# What `bodies` sends: a JSON answer to a request whose header fields come in a set order, a form, a
# multipart body, a stream of server-sent events, and a WebSocket's frames (the server's stubs
# answer each: InspectorTests).
FORM = "name=Ada+Lovelace&city=London&markup=%3Cb%3Ex%3C%2Fb%3E"
BOUNDARY = "airlock-boundary"
MULTIPART = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nNotes\r\n"
             f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nline one\r\n"
             f"--{BOUNDARY}--\r\n")
ORDERED_HEADERS = {"X-Zeta": "1", "X-Alpha": "2", "X-Middle": "3"}


def open_row(browser, path_part, report):
    """Opens the newest row whose URL contains `path_part` and waits for its detail."""
    sequence = browser.execute_script(
        "const row = [...document.querySelectorAll('#rows tr')].find((tr) => tr.children[2].textContent.includes(arguments[0]));"
        "if (!row) return null; row.click(); return row.dataset.sequence;", path_part)
    if sequence is None:
        report.problem(f"no row for {path_part}")
        return False
    return wait_for_detail(browser, sequence, f"the detail of {path_part}", report)


def bodies(arguments):
    report = toolenv.Report(TOOL, "bodies")
    paths = browser_paths()
    if paths is None:
        return without_browser(report, "bodies")
    server = arguments.server.rstrip("/")
    browser = open_browser(*paths)
    result = {}
    try:
        open_traffic_page(browser, server, report)
        send(server, "GET", "/profile", ORDERED_HEADERS, None)
        send(server, "POST", "/form", {"Content-Type": "application/x-www-form-urlencoded"}, FORM.encode())
        send(server, "POST", "/upload", {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}, MULTIPART.encode())
        status, _ = send(server, "GET", "/events", {"Accept": "text/event-stream"}, None)
        result["eventsStatus"] = status
        # Answered by a WireMock mapping the test posted: the row names it.
        send(server, "GET", "/greeting", {}, None)
        import websocket  # websocket-client, which Selenium brings

        socket = websocket.create_connection(server.replace("http://", "ws://") + "/chat", timeout=30)
        result["webSocket"] = [socket.recv()]
        socket.send("marco")
        result["webSocket"].append(socket.recv())
        socket.close()
        wait_for(browser, "return [...document.querySelectorAll('#rows tr')].some((tr) => tr.children[2].textContent.endsWith('/chat') && tr.children[3].textContent === '101')", "the WebSocket's row", report)

        result["greetingAnsweredBy"] = wait_for(
            browser, "const row = [...document.querySelectorAll('#rows tr')].find((tr) => tr.children[2].textContent.endsWith('/greeting')); return row ? row.children[4].textContent : null",
            "the row of /greeting", report)
        rows = "[...document.querySelectorAll('#detail-body tbody')]"
        if open_row(browser, "/profile", report):
            result["headerOrder"] = browser.execute_script(
                f"return [...{rows}[0].querySelectorAll('tr')].map((tr) => tr.children[0].textContent).filter((name) => name.startsWith('X-'))")
            result["jsonTree"] = browser.execute_script(
                "const tree = document.querySelector('#detail-body .json'); if (!tree) return null;"
                "return {folds: [...tree.querySelectorAll('details')].map((d) => ({summary: d.querySelector('summary').textContent, open: d.open})),"
                " leaves: [...tree.querySelectorAll('div:not(.json)')].filter((d) => !d.querySelector('details')).map((d) => d.textContent)}")
            # Folding: a click on a level's summary closes it.
            result["folded"] = browser.execute_script(
                "const d = document.querySelector('#detail-body .json details details'); d.querySelector('summary').click(); return d.open === false")
        if open_row(browser, "/form", report):
            result["form"] = browser.execute_script(
                f"return [...{rows}[1].querySelectorAll('tr')].map((tr) => [...tr.children].map((td) => td.textContent))")
        if open_row(browser, "/upload", report):
            result["multipart"] = browser.execute_script(
                "return [...document.querySelectorAll('#detail-body .part')].map((part) => ({heading: part.querySelector('h4').textContent, texts: [...part.querySelectorAll('pre')].map((pre) => pre.textContent)}))")
        if open_row(browser, "/events", report):
            result["stream"] = browser.execute_script(
                "const h = [...document.querySelectorAll('#detail-body h4')].find((h) => h.textContent.startsWith('Stream')); "
                "return {heading: h ? h.textContent : null, parts: [...document.querySelectorAll('#detail-body ol.parts > li')].map((li) => ({at: li.querySelector('.note').textContent, text: li.querySelector('pre') ? li.querySelector('pre').textContent : null}))}")
        if open_row(browser, "/chat", report):
            # The detail follows the frames as they come (the row comes again with each).
            wait_for(browser, "return document.querySelectorAll('#detail-body ol.frames > li').length >= 3", "the WebSocket's frames", report)
            result["frames"] = browser.execute_script(
                "return [...document.querySelectorAll('#detail-body ol.frames > li')].map((li) => ({note: li.querySelector('.note').textContent, text: li.querySelector('pre') ? li.querySelector('pre').textContent : li.textContent}))")
        result["console"] = [entry["message"] for entry in browser.get_log("browser") if entry.get("level") == "SEVERE"]
    finally:
        browser.quit()
    report.extra["bodies"] = result
    return report.finish()


def page_results(arguments):
    report = toolenv.Report(TOOL, "page-results")
    finished_page(report, arguments.page, "results", "results", trust_ca=arguments.trust_ca)
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
    views = commands.add_parser("bodies", help="open a server's traffic page, send it a JSON, form, multipart, event-stream and WebSocket exchange, and report how the page shows each")
    views.add_argument("--server", required=True, help="the server's base URL")
    views.set_defaults(run=bodies)
    results = commands.add_parser("page-results", help="open a page, wait for window.finished, and print window.results")
    results.add_argument("--page", required=True)
    results.add_argument("--trust-ca", help="a PEM file of certificates Chromium trusts (in an NSS database of its own)")
    results.set_defaults(run=page_results)
    commands.add_parser("install", help="install Selenium and stop").set_defaults(run=install)
    return top


if __name__ == "__main__":
    sys.exit(toolenv.main(ENVIRONMENT, parser, __file__))
