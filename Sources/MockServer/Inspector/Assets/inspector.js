// Airlock's traffic page. Everything from traffic reaches the page as text: this script builds
// every element itself and puts values in with textContent (never as markup), and the server's
// Content-Security-Policy lets no other script, style or connection in.
"use strict";

(() => {
  const token = new URLSearchParams(location.hash.slice(1)).get("token");
  const authorization = token ? { Authorization: "Bearer " + token } : {};
  const exchanges = new Map();  // sequence → the exchange's row, as the feed last sent it
  const details = new Map();    // sequence → the exchange in full, once opened
  const held = [];              // what arrived while paused
  let paused = false;
  let selected = null;

  const $ = (id) => document.getElementById(id);

  /** An element with fixed attributes and children (strings become text nodes). */
  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
    for (const child of children.flat()) {
      if (child === null || child === undefined) continue;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  // MARK: The feed

  function setConnection(text) { $("connection").textContent = text; }

  async function follow() {
    let delay = 500;
    for (;;) {
      try {
        const response = await fetch("feed", { headers: authorization, cache: "no-store" });
        if (!response.ok) {
          setConnection(response.status === 401 ? "The admin API needs its token: open this page as …/__admin/inspector/#token=TOKEN" : "The feed answered " + response.status);
        } else {
          setConnection("Live");
          delay = 500;
          await read(response.body.getReader());
          setConnection("Disconnected; reconnecting…");
        }
      } catch (error) {
        setConnection("Disconnected; reconnecting…");
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 5000);
    }
  }

  async function read(reader) {
    const decoder = new TextDecoder();
    let text = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      text += decoder.decode(value, { stream: true });
      let end;
      while ((end = text.indexOf("\n\n")) >= 0) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        let type = "message";
        const data = [];
        for (const line of block.split("\n")) {
          if (line.startsWith("event:")) type = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
        }
        if (type === "exchange" && data.length) receive(JSON.parse(data.join("\n")));
        if (type === "missed" && data.length) setConnection("Live; " + data.join("") + " exchange(s) came faster than this page could take and are not listed: reload to see the journal");
      }
    }
  }

  function receive(exchange) {
    if (paused) {
      held.push(exchange);
      $("pause").textContent = "Resume (" + held.length + " new)";
      return;
    }
    const known = exchanges.get(exchange.sequence);
    // A finished exchange replaces the one in flight, never the other way round; a WebSocket's
    // row comes again with each new frame.
    if (known && known.ended && !exchange.ended) return;
    if (known && known.frames > exchange.frames) return;
    exchanges.set(exchange.sequence, exchange);
    details.delete(exchange.sequence);
    render();
    if (selected === exchange.sequence) openDetail(exchange.sequence);
    refreshState();
  }

  // MARK: The list

  function matchesFilter(exchange) {
    const filter = $("filter").value;
    if (filter === "unmatched" && exchange.matched) return false;
    if (filter === "matched" && !exchange.matched) return false;
    if (filter === "problems" && !exchange.problems) return false;
    const search = $("search").value.trim().toLowerCase();
    if (!search) return true;
    return [exchange.method, exchange.url, statusText(exchange), exchange.stub || "unmatched", exchange.source || "", exchange.operation || ""].some((field) => field.toLowerCase().includes(search));
  }

  function size(bytes) {
    if (bytes < 1024) return bytes + " B";
    if (bytes < 1024 * 1024) return (bytes / 1024).toFixed(1) + " KiB";
    return (bytes / 1024 / 1024).toFixed(1) + " MiB";
  }

  function clock(iso) {
    const date = new Date(iso);
    return isNaN(date) ? iso : date.toLocaleTimeString(undefined, { hour12: false }) + "." + String(date.getMilliseconds()).padStart(3, "0");
  }

  /** The stub (or "unmatched"), then the WireMock mapping that answered and the contract
   *  operation, where there are any. */
  function answeredBy(exchange) {
    const also = [exchange.source, exchange.operation ? "operation " + exchange.operation : null].filter(Boolean).map((text) => " · " + text);
    if (exchange.matched) return el("span", {}, exchange.stub || "a stub", ...also);
    return el("span", {}, el("span", { class: "unmatched" }, "unmatched"), ...also);
  }

  function statusText(exchange) {
    if (!exchange.ended) return "…";
    return exchange.status !== null ? String(exchange.status) : exchange.error || "failed";
  }

  function row(exchange) {
    const tr = el("tr", { tabindex: "0", "aria-selected": String(selected === exchange.sequence) },
      el("td", {}, String(exchange.sequence)),
      el("td", {}, exchange.method),
      el("td", {}, exchange.url),
      el("td", {}, statusText(exchange), exchange.problems ? el("span", { class: "unmatched" }, " ⚠", el("span", { class: "visually-hidden" }, " contract violations")) : null),
      el("td", {}, answeredBy(exchange)),
      el("td", {}, clock(exchange.time)),
      el("td", {}, exchange.ended ? size(exchange.size) : ""));
    tr.dataset.sequence = String(exchange.sequence);
    tr.addEventListener("click", () => select(exchange.sequence));
    tr.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); select(exchange.sequence); }
      if (event.key === "ArrowDown" && tr.nextElementSibling) { event.preventDefault(); tr.nextElementSibling.focus(); }
      if (event.key === "ArrowUp" && tr.previousElementSibling) { event.preventDefault(); tr.previousElementSibling.focus(); }
    });
    return tr;
  }

  function render() {
    const shown = [...exchanges.values()].filter(matchesFilter).sort((a, b) => b.sequence - a.sequence);
    const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.sequence : undefined;
    $("rows").replaceChildren(...shown.map(row));
    if (focused) {
      const again = $("rows").querySelector('tr[data-sequence="' + Number(focused) + '"]');
      if (again) again.focus();
    }
    $("count").textContent = String(exchanges.size);
    $("empty").hidden = exchanges.size > 0;
  }

  function select(sequence) {
    selected = sequence;
    for (const tr of $("rows").children) tr.setAttribute("aria-selected", String(tr.dataset.sequence === String(sequence)));
    openDetail(sequence);
    $("detail-heading").focus();
  }

  /** Shows an exchange in full, asking the server for it the first time. */
  async function openDetail(sequence) {
    let detail = details.get(sequence);
    if (!detail) {
      try {
        const response = await fetch("exchanges/" + sequence, { headers: authorization, cache: "no-store" });
        const answer = await response.json();
        if (!response.ok) {
          $("detail-heading").textContent = "Exchange #" + sequence;
          $("detail-body").replaceChildren(el("p", {}, answer.error || "The server answered " + response.status));
          $("detail").hidden = false;
          return;
        }
        detail = answer;
        details.set(sequence, detail);
      } catch (error) {
        return;
      }
    }
    if (selected === sequence) showDetail(detail);
  }

  // MARK: Bodies

  function decodeBase64(text) {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }

  function hexDump(bytes) {
    const lines = [];
    const shown = Math.min(bytes.length, 4096);
    for (let offset = 0; offset < shown; offset += 16) {
      const slice = bytes.slice(offset, Math.min(offset + 16, shown));
      const hex = [...slice].map((b) => b.toString(16).padStart(2, "0")).join(" ");
      const ascii = [...slice].map((b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : ".")).join("");
      lines.push(offset.toString(16).padStart(8, "0") + "  " + hex.padEnd(48) + " " + ascii);
    }
    if (bytes.length > shown) lines.push("… " + (bytes.length - shown) + " more bytes");
    return el("pre", { class: "hex" }, lines.join("\n"));
  }

  function jsonTree(value, name) {
    const label = name === undefined ? "" : name + ": ";
    if (value === null || typeof value !== "object") return el("div", {}, label + JSON.stringify(value));
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
    const summary = label + (Array.isArray(value) ? "[" + entries.length + "]" : "{" + entries.length + "}");
    const node = el("details", { open: "" }, el("summary", {}, summary), entries.map(([key, child]) => jsonTree(child, key)));
    return node;
  }

  function formTable(text) {
    const params = new URLSearchParams(text);
    return el("table", {}, el("caption", { class: "visually-hidden" }, "Form fields"),
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Name"), el("th", { scope: "col" }, "Value"))),
      el("tbody", {}, [...params].map(([name, value]) => el("tr", {}, el("td", {}, name), el("td", {}, value)))));
  }

  function multipartParts(text, contentType) {
    const match = /boundary="?([^";]+)"?/i.exec(contentType);
    if (!match) return el("pre", {}, text);
    const parts = text.split("--" + match[1]).slice(1).filter((part) => !part.startsWith("--"));
    return el("div", {}, parts.map((part, index) => {
      const split = part.replace(/^\r\n/, "").indexOf("\r\n\r\n");
      const trimmed = part.replace(/^\r\n/, "");
      const head = split >= 0 ? trimmed.slice(0, split) : "";
      const body = split >= 0 ? trimmed.slice(split + 4).replace(/\r\n$/, "") : trimmed;
      return el("div", { class: "part" }, el("h4", {}, "Part " + (index + 1)), el("pre", {}, head), el("pre", {}, body));
    }));
  }

  function bodyView(body) {
    if (!body || body.size === 0) return el("p", { class: "note" }, "No body.");
    const note = body.truncated ? el("p", { class: "note" }, "Only the first part of the body is shown (" + size(body.size) + " in all).") : null;
    const contentType = (body.contentType || "").toLowerCase();
    if (body.base64 !== undefined) {
      return el("div", {}, note, body.encoded ? el("p", { class: "note" }, "Kept in its Content-Encoding, " + size(body.size) + ".") : null, hexDump(decodeBase64(body.base64)));
    }
    const text = body.text;
    if (contentType.includes("json") || (!contentType && /^\s*[\[{]/.test(text))) {
      try { return el("div", { class: "json" }, note, jsonTree(JSON.parse(text))); } catch (error) { /* shown as text */ }
    }
    if (contentType.startsWith("application/x-www-form-urlencoded")) return el("div", {}, note, formTable(text));
    if (contentType.startsWith("multipart/")) return el("div", {}, note, multipartParts(text, body.contentType));
    return el("div", {}, note, el("pre", {}, text));
  }

  function headerTable(fields, caption) {
    if (!fields.length) return el("p", { class: "note" }, "No header fields.");
    return el("table", {}, el("caption", { class: "visually-hidden" }, caption),
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Name"), el("th", { scope: "col" }, "Value"))),
      el("tbody", {}, fields.map((field) => el("tr", {}, el("td", {}, field.name), el("td", {}, field.value)))));
  }

  // MARK: The detail

  function copySection(label, text, format) {
    if (!text) return null;
    const pre = el("pre", { id: "copy-" + format }, text);
    const result = el("span", { class: "copy-result", role: "status" });
    const button = el("button", { type: "button" }, "Copy");
    button.addEventListener("click", async () => {
      try { await navigator.clipboard.writeText(text); result.textContent = "Copied."; }
      catch (error) { getSelection().selectAllChildren(pre); result.textContent = "Selected: press Ctrl+C to copy."; }
    });
    return el("details", { class: "copy" }, el("summary", {}, label), el("div", {}, button, result), pre);
  }

  async function addAsStub(exchange, result) {
    result.textContent = "Adding…";
    try {
      const entry = JSON.parse(exchange.copy.stubFile);
      const response = await fetch("../stubs", {
        method: "POST",
        headers: Object.assign({ "Content-Type": "application/json" }, authorization),
        body: JSON.stringify({ stubs: [entry] }),
      });
      const answer = await response.json();
      result.textContent = response.ok ? "Added: the next such request gets this response." : "Not added: " + (answer.error || (answer.rejected || []).join("; "));
    } catch (error) {
      result.textContent = "Not added: " + error;
    }
  }

  function diagnosisView(diagnosis) {
    const nearest = diagnosis.nearest || [];
    return el("section", { "aria-labelledby": "why-heading" },
      el("h3", { id: "why-heading" }, "Why no stub answered"),
      nearest.length === 0 ? el("p", {}, "No registered stub comes close.") : el("ol", { class: "nearest" }, nearest.map((miss) =>
        el("li", {}, el("div", { class: "stub" }, miss.stub),
          el("ul", { class: "verdicts" }, miss.verdicts.map((verdict) =>
            el("li", { class: "verdict " + (verdict.matches ? "matches" : "differs") },
              el("span", { class: "visually-hidden" }, verdict.matches ? "matches: " : "differs: "),
              verdict.matches ? verdict.text : el("mark", {}, verdict.text))))))),
      el("details", {}, el("summary", {}, "The server's message"), el("pre", {}, diagnosis.message)));
  }

  function showDetail(exchange) {
    const response = exchange.response;
    const parts = [];
    parts.push(el("dl", {},
      el("dt", {}, "Request"), el("dd", {}, exchange.method + " " + exchange.url),
      el("dt", {}, "Status"), el("dd", {}, !response ? "in flight" : response.status !== null ? String(response.status) : response.error || "failed"),
      el("dt", {}, "Answered by"), el("dd", {}, answeredBy(exchange)),
      exchange.httpVersion ? [el("dt", {}, "Protocol"), el("dd", {}, exchange.httpVersion)] : null,
      exchange.operation ? [el("dt", {}, "Operation"), el("dd", {}, exchange.operation)] : null,
      el("dt", {}, "Time"), el("dd", {}, clock(exchange.time) + (response ? " (" + response.durationMs + " ms)" : ""))));
    if (exchange.diagnosis) parts.push(diagnosisView(exchange.diagnosis));
    if (exchange.problems && exchange.problems.length) {
      parts.push(el("section", { "aria-labelledby": "problems-heading" },
        el("h3", { id: "problems-heading" }, "Contract violations"),
        el("ul", { class: "problems" }, exchange.problems.map((problem) => el("li", { class: "verdict differs" }, problem)))));
    }
    parts.push(el("h3", {}, "Request"), headerTable(exchange.request.headers, "Request header fields"), bodyView(exchange.request.body));
    if (response) {
      parts.push(el("h3", {}, "Response"), headerTable(response.headers, "Response header fields"));
      if (response.parts) {
        parts.push(el("h4", {}, "Stream: " + response.parts.length + " parts"),
          el("ol", { class: "parts" }, response.parts.map((part) => el("li", {}, el("span", { class: "note" }, "at " + part.atMs + " ms"), bodyView(part.body)))));
      } else {
        parts.push(bodyView(response.body));
      }
    }
    if (exchange.frames) {
      parts.push(el("h3", {}, "WebSocket frames"), el("ol", { class: "frames" }, exchange.frames.map((frame) =>
        el("li", {}, el("span", { class: "note" }, frame.direction + " at " + frame.atMs + " ms "),
          frame.close ? "close " + (frame.close.code ?? "") + " " + frame.close.reason : bodyView(frame.body)))));
    }
    if (exchange.webhooks) {
      parts.push(el("h3", {}, "Webhooks"), el("ol", { class: "webhooks" }, exchange.webhooks.map((hook) =>
        el("li", {}, el("span", { class: "note" }, "at " + hook.atMs + " ms (delay " + hook.delayMs + " ms, took " + hook.durationMs + " ms) "),
          hook.method + " " + hook.url + ": ", hook.succeeded ? hook.outcome : el("mark", {}, hook.outcome)))));
    }
    const result = el("span", { class: "copy-result", role: "status", id: "add-result" });
    const add = el("button", { type: "button", id: "add-as-stub" }, "Add as stub");
    add.addEventListener("click", () => addAsStub(exchange, result));
    parts.push(el("h3", {}, "Copy as"),
      copySection("Swift (registerResponses)", exchange.copy.swift, "swift"),
      copySection("Stub-file entry", exchange.copy.stubFile, "stub-file"),
      copySection("WireMock mapping", exchange.copy.wireMock, "wiremock"),
      copySection("curl", exchange.copy.curl, "curl"),
      el("p", {}, add, result));
    $("detail-heading").textContent = "Exchange #" + exchange.sequence;
    $("detail-body").replaceChildren(...parts);
    $("detail").hidden = false;
  }

  // MARK: Scenarios and the recording

  let stateTimer = null;
  function refreshState() {
    if (stateTimer) return;
    stateTimer = setTimeout(async () => {
      stateTimer = null;
      try {
        const response = await fetch("state", { headers: authorization, cache: "no-store" });
        if (!response.ok) return;
        const { scenarios, cassette } = await response.json();
        $("scenario-list").replaceChildren(...(scenarios.length ? scenarios.map((s) => el("li", {}, s.name + ": " + s.state)) : [el("li", {}, "None")]));
        $("recording").textContent = !cassette ? "No cassette."
          : (cassette.recording ? "Recording into " : "Replaying ") + cassette.file + " (" + cassette.mode + "): " + cassette.recorded + " recorded, " + cassette.entries + " in all.";
      } catch (error) { /* the feed says when the server is gone */ }
    }, 300);
  }

  // MARK: Controls

  $("search").addEventListener("input", render);
  $("filter").addEventListener("change", render);
  $("pause").addEventListener("click", () => {
    paused = !paused;
    $("pause").setAttribute("aria-pressed", String(paused));
    $("pause").textContent = paused ? "Resume" : "Pause";
    if (!paused) for (const exchange of held.splice(0)) receive(exchange);
  });
  refreshState();
  follow();
})();
