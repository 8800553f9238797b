// planview browser review: builds the page from the JSON data island with DOM text nodes only
// (never parsed as markup), keeps the comments in memory until Save, and talks to the loopback server.
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("plan-data").textContent);
  var THEME_KEY = "planview-web-theme";

  var state = {
    comments: [], // {anchor_line, text, b}
    dirty: false,
    final: null, // "Approved" | "Saved" | "Closed"
    connected: false,
    current: -1,
    composer: null, // {b, node}
    busy: false,
    escArmed: false,
    leaving: false, // the page itself reloads (Reload after a conflict): no beforeunload question
  };
  var blocks = []; // b -> {node, el, rail, badge, thread, section}
  var ui = {};
  var events = null;

  function url(path) {
    return path; // the session is the review's cookie (same-origin requests carry it)
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  // -- inline runs -------------------------------------------------------------------------
  function inline(parent, runs) {
    (runs || []).forEach(function (run) {
      if (typeof run === "string") {
        parent.appendChild(document.createTextNode(run));
        return;
      }
      var node;
      switch (run.k) {
        case "code":
          node = el("code", null, run.x);
          break;
        case "em":
        case "strong":
        case "s":
          node = el(run.k);
          inline(node, run.c);
          break;
        case "a":
          if (run.href) {
            node = el("a");
            node.href = run.href;
            node.rel = "noopener noreferrer";
            node.target = "_blank";
          } else {
            node = el("span");
          }
          inline(node, run.c);
          break;
        case "br":
          node = el("br");
          break;
        case "img":
          node = el("span", "img", "[image: " + (run.alt || run.src || "") + "]");
          break;
        default:
          node = document.createTextNode("");
      }
      parent.appendChild(node);
    });
  }

  // -- blocks ------------------------------------------------------------------------------
  function sectionOf(line) {
    var found = null;
    data.sections.forEach(function (s) {
      if (s.start <= line && line <= s.end) found = s;
    });
    return found;
  }

  function render(node, parent, depth) {
    var out;
    switch (node.k) {
      case "h":
        out = el("h" + Math.min(6, Math.max(1, node.lvl)));
        inline(out, node.c);
        break;
      case "p":
        out = el("p");
        inline(out, node.c);
        break;
      case "code":
        out = el("pre");
        var code = el("code");
        if (node.lang) code.setAttribute("data-lang", node.lang);
        node.lines.forEach(function (runs) {
          var line = el("span", "ln");
          runs.forEach(function (run) {
            line.appendChild(run[0] ? el("span", "tok-" + run[0], run[1]) : document.createTextNode(run[1]));
          });
          code.appendChild(line);
        });
        out.appendChild(code);
        break;
      case "ul":
      case "ol":
        out = el(node.k);
        if (node.k === "ol" && node.from !== 1) out.start = node.from;
        node.c.forEach(function (item) {
          render(item, out, depth + 1);
        });
        parent.appendChild(out);
        return;
      case "li":
        out = el("li");
        if (node.task) {
          out.classList.add("task");
          var box = el("span", "box " + node.task, node.task === "done" ? "☑" : node.task === "doing" ? "◐" : "☐");
          box.setAttribute("aria-label", node.task === "done" ? "done" : node.task === "doing" ? "in progress" : "to do");
          out.appendChild(box);
        }
        if (node.b !== undefined) out.style.setProperty("--d", String(depth));
        node.c.forEach(function (child, i) {
          if (i === 0 && node.task && child.k === "p") {
            var span = el("span");
            inline(span, child.c);
            out.appendChild(span);
          } else {
            render(child, out, depth);
          }
        });
        break;
      case "quote":
        out = el("blockquote");
        node.c.forEach(function (child) {
          render(child, out, depth);
        });
        break;
      case "table":
        out = el("div", "table-wrap");
        var table = el("table");
        var thead = el("thead");
        var tr = el("tr");
        node.head.forEach(function (cell, i) {
          var th = el("th", node.align[i] ? "al-" + node.align[i] : null);
          inline(th, cell);
          tr.appendChild(th);
        });
        thead.appendChild(tr);
        table.appendChild(thead);
        var tbody = el("tbody");
        node.rows.forEach(function (row) {
          var r = el("tr");
          row.forEach(function (cell, i) {
            var td = el("td", node.align[i] ? "al-" + node.align[i] : null);
            inline(td, cell);
            r.appendChild(td);
          });
          tbody.appendChild(r);
        });
        table.appendChild(tbody);
        out.appendChild(table);
        break;
      case "hr":
        out = el("hr");
        break;
      case "raw":
        var pre = el("pre", "raw");
        pre.appendChild(el("code", null, node.x));
        if (node.front) {
          // Front matter folds to one line (as the terminal folds it); the summary opens it.
          out = el("details", "front");
          out.appendChild(el("summary", null, "Front matter · " + (node.n === 1 ? "1 line" : node.n + " lines")));
          out.appendChild(pre);
        } else {
          out = pre;
        }
        break;
      default:
        return;
    }
    if (node.b === undefined) {
      parent.appendChild(out);
      return;
    }
    var host = out;
    if (node.k !== "li") {
      host = el("div", "blk");
      host.appendChild(out);
    } else {
      out.classList.add("blk");
    }
    if (node.k === "h") {
      var section = sectionOf(node.start);
      if (section) host.id = "sec-" + section.i;
    }
    host.setAttribute("data-b", String(node.b));
    var rail = el("div", "rail");
    var add = el("button", "add");
    add.type = "button";
    add.appendChild(el("span", null, "+"));
    add.appendChild(el("span", "word", " Comment"));
    add.title = "Comment on this block (c)";
    add.setAttribute("aria-label", "Comment on this block");
    var quote = "";
    add.addEventListener("pointerdown", function () {
      quote = selectionIn(host);
    });
    add.addEventListener("click", function () {
      setCurrent(node.b, false);
      openComposer(node.b, quote || selectionIn(host));
      quote = "";
    });
    rail.appendChild(add);
    var badge = el("span", "badge");
    badge.hidden = true;
    rail.appendChild(badge);
    host.insertBefore(rail, host.firstChild);
    var thread = el("div", "thread");
    thread.hidden = true;
    host.appendChild(thread);
    blocks[node.b] = { node: node, el: host, badge: badge, thread: thread, section: sectionOf(node.start) };
    parent.appendChild(host);
  }

  function selectionIn(host) {
    var sel = window.getSelection();
    if (!sel || sel.isCollapsed || !sel.anchorNode || !host.contains(sel.anchorNode)) return "";
    return sel.toString().replace(/\s+/g, " ").trim().slice(0, 300);
  }

  // -- comments ----------------------------------------------------------------------------
  function renderThread(b) {
    var block = blocks[b];
    if (!block) return;
    var mine = state.comments.filter(function (c) {
      return c.b === b;
    });
    block.thread.textContent = "";
    block.thread.hidden = mine.length === 0;
    block.badge.hidden = mine.length === 0;
    block.badge.textContent = String(mine.length);
    block.badge.title = mine.length + " comment(s)";
    if (!mine.length) return;
    block.thread.appendChild(el("div", "label", mine.length === 1 ? "Review comment" : mine.length + " review comments"));
    mine.forEach(function (comment) {
      var row = el("div", "comment");
      row.appendChild(el("div", "text", comment.text));
      var edit = el("button", "edit", "Edit");
      edit.type = "button";
      edit.addEventListener("click", function () {
        openComposer(b, "", comment);
      });
      row.appendChild(edit);
      var del = el("button", "del", "Delete");
      del.type = "button";
      del.addEventListener("click", function () {
        state.comments.splice(state.comments.indexOf(comment), 1);
        if (state.composer && state.composer.editing === comment) closeComposer(); // its Save would do nothing
        state.dirty = true;
        renderThread(b);
        refresh();
      });
      row.appendChild(del);
      block.thread.appendChild(row);
    });
  }

  // `editing`: a comment of this block to change in place (emptied, it is deleted).
  function openComposer(b, quote, editing) {
    if (state.final || !blocks[b]) return;
    closeComposer();
    var block = blocks[b];
    var box = el("div", "composer");
    var area = el("textarea");
    area.placeholder = "Comment on this block…";
    area.setAttribute("aria-label", editing ? "Edit comment" : "Comment");
    if (editing) area.value = editing.text;
    else if (quote) area.value = "“" + quote + "” ";
    var row = el("div", "row");
    row.appendChild(el("span", "hint", editing ? "Ctrl+Enter saves · Esc cancels" : "Ctrl+Enter adds · Esc cancels"));
    var cancel = el("button", "btn", "Cancel");
    cancel.type = "button";
    var ok = el("button", "btn primary", editing ? "Save comment" : "Add comment");
    ok.type = "button";
    row.appendChild(cancel);
    row.appendChild(ok);
    box.appendChild(area);
    box.appendChild(row);
    block.el.insertBefore(box, block.thread.nextSibling);
    state.composer = { b: b, node: box, area: area, editing: editing || null };
    cancel.addEventListener("click", closeComposer);
    ok.addEventListener("click", commitComposer);
    area.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        commitComposer();
      } else if (event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        closeComposer();
      }
    });
    area.focus();
    area.setSelectionRange(area.value.length, area.value.length);
  }

  function commitComposer() {
    var c = state.composer;
    if (!c) return;
    var text = c.area.value.replace(/\s+/g, " ").trim();
    var at = c.editing ? state.comments.indexOf(c.editing) : -1;
    if (at >= 0 && text !== c.editing.text) {
      if (text) c.editing.text = text;
      else state.comments.splice(at, 1);
      state.dirty = true;
      renderThread(c.b);
    } else if (!c.editing && text) {
      state.comments.push({ anchor_line: blocks[c.b].node.end, text: text, b: c.b });
      state.dirty = true;
      renderThread(c.b);
    }
    closeComposer();
    refresh();
  }

  function closeComposer() {
    if (!state.composer) return;
    state.composer.node.remove();
    state.composer = null;
  }

  // -- navigation --------------------------------------------------------------------------
  function setCurrent(b, scroll) {
    if (!blocks[b]) return;
    if (blocks[state.current]) blocks[state.current].el.classList.remove("current");
    state.current = b;
    blocks[b].el.classList.add("current");
    if (scroll) blocks[b].el.scrollIntoView({ block: "nearest" });
  }

  function firstVisible() {
    var top = ui.header.getBoundingClientRect().bottom;
    for (var i = 0; i < blocks.length; i++) {
      if (blocks[i] && blocks[i].el.getBoundingClientRect().bottom > top + 4) return i;
    }
    return 0;
  }

  function move(step) {
    if (!blocks.length) return;
    var next = state.current < 0 ? firstVisible() : state.current + step;
    next = Math.max(0, Math.min(blocks.length - 1, next));
    setCurrent(next, true);
  }

  function onScroll() {
    var doc = document.documentElement;
    var max = doc.scrollHeight - doc.clientHeight;
    ui.bar.style.width = (max > 0 ? Math.min(100, (doc.scrollTop / max) * 100) : 100) + "%";
    var top = ui.header.getBoundingClientRect().bottom + 16;
    var active = null;
    data.sections.forEach(function (s) {
      var target = document.getElementById("sec-" + s.i);
      if (target && target.getBoundingClientRect().top <= top) active = s.i;
    });
    if (active === null && data.sections.length) active = data.sections[0].i;
    ui.links.forEach(function (link) {
      link.a.classList.toggle("active", link.i === active);
      if (link.i === active) link.a.setAttribute("aria-current", "true");
      else link.a.removeAttribute("aria-current");
    });
  }

  // -- status, side panel ------------------------------------------------------------------
  function refresh() {
    var n = state.comments.length;
    ui.count.textContent = String(n);
    var chip = ui.chip;
    chip.className = "chip";
    chip.textContent = "";
    if (state.final) {
      chip.classList.add("final");
      chip.textContent = state.final;
    } else {
      var parts = [state.connected ? "Connected" : "Connecting…"];
      parts.push(n === 1 ? "1 comment" : n + " comments");
      if (state.dirty) parts.push("unsaved");
      chip.classList.add(state.dirty ? "dirty" : state.connected ? "live" : "off");
      chip.textContent = parts.join(" · ");
    }
    ui.links.forEach(function (link) {
      var count = state.comments.filter(function (c) {
        var block = blocks[c.b];
        return block && block.section && block.section.i === link.i;
      }).length;
      link.count.hidden = count === 0;
      link.count.textContent = String(count);
    });
    ui.buttons.forEach(function (button) {
      button.disabled = !!state.final || state.busy;
    });
  }

  function buildSide() {
    var side = el("aside", "side");
    side.setAttribute("aria-label", "Plan outline");
    var facts = el("div", "facts");
    // Only the Steps section's checkboxes are counted; with none there is no counter at all.
    if (data.steps.total) {
      var steps = el("div", "fact steps");
      steps.appendChild(el("b", null, data.steps.done + "/" + data.steps.total));
      steps.appendChild(el("span", null, "Steps done"));
      facts.appendChild(steps);
    }
    var comments = el("div", "fact");
    ui.count = el("b", null, "0");
    comments.appendChild(ui.count);
    comments.appendChild(el("span", null, "Comments"));
    facts.appendChild(comments);
    if (data.changed) {
      var changed = el("div", "fact");
      changed.appendChild(el("b", null, String(data.changed)));
      changed.appendChild(el("span", null, "Changed sections"));
      facts.appendChild(changed);
    }
    side.appendChild(facts);
    if (data.diffs && data.diffs.length) {
      ui.diffButton = button("Show changes (d)", "btn diff-toggle", toggleDiff, "The words changed since your last review (d)");
      side.appendChild(ui.diffButton);
    }
    var list = el("ul", "outline");
    ui.links = [];
    data.sections.forEach(function (s) {
      if (!s.lvl) return;
      var li = el("li");
      var a = el("a", "lvl" + Math.min(6, s.lvl));
      a.href = "#sec-" + s.i;
      a.appendChild(el("span", "name", s.title || "(untitled)"));
      if (s.changed) {
        var dot = el("span", "dot");
        dot.title = "Changed since your last review";
        dot.setAttribute("role", "img");
        dot.setAttribute("aria-label", "changed since your last review");
        a.appendChild(dot);
      }
      var count = el("span", "count");
      count.hidden = true;
      a.appendChild(count);
      li.appendChild(a);
      list.appendChild(li);
      ui.links.push({ i: s.i, a: a, count: count });
    });
    side.appendChild(list);
    return side;
  }

  // -- header, sheet, theme ----------------------------------------------------------------
  function button(text, cls, onClick, title) {
    var b = el("button", cls, text);
    b.type = "button";
    if (title) b.title = title;
    b.addEventListener("click", onClick);
    return b;
  }

  function currentTheme() {
    var set = document.documentElement.getAttribute("data-theme");
    if (set) return set;
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }

  function toggleTheme() {
    var next = currentTheme() === "dark" ? "light" : "dark";
    document.documentElement.setAttribute("data-theme", next);
    try {
      window.localStorage.setItem(THEME_KEY, next);
    } catch (e) {
      /* not remembered */
    }
    ui.theme.textContent = next === "dark" ? "☀" : "☾";
  }

  function buildHeader() {
    var header = el("header", "top");
    header.appendChild(el("h1", null, data.title));
    ui.chip = el("span", "chip");
    ui.chip.setAttribute("role", "status");
    header.appendChild(ui.chip);
    ui.theme = button(currentTheme() === "dark" ? "☀" : "☾", "icon", toggleTheme, "Light or dark theme");
    ui.theme.setAttribute("aria-label", "Toggle light or dark theme");
    header.appendChild(ui.theme);
    var help = button("?", "icon help", toggleSheet, "Keyboard shortcuts (?)");
    help.setAttribute("aria-label", "Keyboard shortcuts");
    header.appendChild(help);
    var actions = el("div", "actions");
    ui.buttons = [];
    if (data.approve) {
      var approve = button("Approve & run", "btn primary", approve_, "Approve exactly this text and run it (a)");
      approve.id = "approve";
      actions.appendChild(approve);
      ui.buttons.push(approve);
    }
    var save = button("Save feedback", "btn", save_, "Write the comments into the plan file (s)");
    save.id = "save";
    var back = button("Back", "btn", back_, "Close the review without a decision (Esc)");
    back.id = "back";
    actions.appendChild(save);
    actions.appendChild(back);
    ui.buttons.push(save, back);
    header.appendChild(actions);
    var progress = el("div", "progress");
    ui.bar = el("div");
    progress.appendChild(ui.bar);
    header.appendChild(progress);
    return header;
  }

  function buildSheet() {
    var sheet = el("div", "sheet");
    sheet.hidden = true;
    sheet.setAttribute("role", "dialog");
    sheet.setAttribute("aria-label", "Keyboard shortcuts");
    var card = el("div", "card");
    card.appendChild(el("h2", null, "Keyboard shortcuts"));
    var dl = el("dl");
    // The rows come from planview's one key map (planview/keymap.py WEB), already filtered for this
    // page (approve, diff); onKey below handles the same keys (tests/web/test_web_keys.py checks it).
    (data.keys || []).forEach(function (row) {
      dl.appendChild(el("dt", null, row.shown === "Escape" ? "Esc" : row.shown));
      dl.appendChild(el("dd", null, row.what));
    });
    card.appendChild(dl);
    sheet.appendChild(card);
    sheet.addEventListener("click", function (event) {
      if (event.target === sheet) toggleSheet();
    });
    return sheet;
  }

  // -- word diffs (d): what changed since the last review, the same pieces as `planview diff` ----
  function buildDiff() {
    var panel = el("section", "diff");
    panel.id = "changes";
    panel.hidden = true;
    panel.setAttribute("aria-label", "Changes since your last review");
    panel.appendChild(el("h2", null, "Changes since your last review"));
    data.diffs.forEach(function (d) {
      var box = el("div", "diff-section " + d.status);
      box.appendChild(el("h3", null, "§ " + (d.title || "Preamble") + " · " + d.status));
      var pre = el("pre");
      d.pieces.forEach(function (piece) {
        var op = piece[0];
        // Text nodes only: a plan's text never becomes markup.
        pre.appendChild(op === "equal" ? document.createTextNode(piece[1]) : el(op === "insert" ? "ins" : "del", null, piece[1]));
      });
      box.appendChild(pre);
      panel.appendChild(box);
    });
    return panel;
  }

  function toggleDiff() {
    if (!ui.diff) return;
    ui.diff.hidden = !ui.diff.hidden;
    if (ui.diffButton) ui.diffButton.textContent = ui.diff.hidden ? "Show changes (d)" : "Hide changes (d)";
    if (!ui.diff.hidden) ui.diff.scrollIntoView({ block: "start" });
  }

  function toggleSheet() {
    ui.sheet.hidden = !ui.sheet.hidden;
  }

  function banner(kind, message, actionText, action) {
    if (ui.banner) ui.banner.remove();
    var box = el("div", "banner " + kind);
    box.setAttribute("role", kind === "error" ? "alert" : "status");
    box.appendChild(el("p", null, message));
    if (actionText) box.appendChild(button(actionText, "btn", action));
    ui.main.insertBefore(box, ui.main.firstChild);
    ui.banner = box;
  }

  // -- decisions ---------------------------------------------------------------------------
  function payload() {
    return JSON.stringify({
      base_sha256: data.base_sha256,
      comments: state.comments.map(function (c) {
        return { anchor_line: c.anchor_line, text: c.text };
      }),
    });
  }

  function post(path, body) {
    state.busy = true;
    refresh();
    return fetch(url(path), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: body,
      credentials: "same-origin", // the review's session cookie
    })
      .then(function (response) {
        return response
          .json()
          .catch(function () {
            return {};
          })
          .then(function (json) {
            return { status: response.status, json: json };
          });
      })
      .finally(function () {
        state.busy = false;
        refresh();
      });
  }

  function settle(result, okState, okMessage) {
    if (result.status === 200) {
      finish(okState, okMessage);
    } else if (result.status === 409) {
      banner(
        "conflict",
        "The plan changed on disk since this page loaded, so nothing was saved. Reload to see the new text (comments not yet saved are lost).",
        "Reload",
        function () {
          state.leaving = true; // the banner just said unsaved comments are lost: no second question
          window.location.reload();
        }
      );
    } else if (result.status === 410 && result.json.settled) {
      finishFrom(result.json.settled);
    } else {
      banner("error", (result.json && result.json.error) || "planview refused this (" + result.status + ")");
    }
  }

  function failed(error) {
    banner("error", "Could not reach planview (" + error + "). Is it still running?");
  }

  function save_() {
    if (state.final || state.busy) return;
    post("/api/feedback", payload()).then(function (r) {
      var n = r.json.comments;
      settle(
        r,
        "Saved",
        (n === 1 ? "1 comment was" : n + " comments were") +
          " saved into the plan file" +
          (data.to_model
            ? "; planview sends them to the model as a refinement. You can close this tab."
            : " (as > [!REVIEW] lines, where your agent or the next review reads them). You can close this tab.")
      );
    }, failed);
  }

  function approve_() {
    if (!data.approve || state.final || state.busy) return;
    post("/api/approve", payload()).then(function (r) {
      settle(r, "Approved", "Approved exactly the text on this page. planview carries on in the terminal; you can close this tab.");
    }, failed);
  }

  function back_() {
    if (state.final || state.busy) return;
    post("/api/cancel", "{}").then(function (r) {
      settle(r, "Closed", "Review closed with no decision. You can close this tab.");
    }, failed);
  }

  function finishFrom(settled) {
    var name = { approved: "Approved", saved: "Saved", closed: "Closed" }[settled.outcome] || "Closed";
    var why = settled.reason ? " (" + settled.reason + ")" : "";
    finish(name, "This review is over" + why + ". You can close this tab.");
  }

  function finish(name, message) {
    state.final = name;
    state.dirty = false;
    closeComposer();
    if (!ui.sheet.hidden) toggleSheet();
    document.body.classList.add("final");
    document.title = name + " · " + document.title;
    if (events) events.close();
    banner("final", message);
    refresh();
  }

  // -- keyboard ----------------------------------------------------------------------------
  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var typing = event.target && (event.target.tagName === "TEXTAREA" || event.target.tagName === "INPUT");
    if (typing) return;
    var key = event.key;
    if (key === "Escape") {
      event.preventDefault();
      if (state.composer) return closeComposer();
      if (!ui.sheet.hidden) return toggleSheet();
      if (state.final) return;
      if (state.dirty && !state.escArmed) {
        state.escArmed = true;
        banner("conflict", "You have unsaved comments: press s to save them, or Esc again to close without saving.");
        return;
      }
      return back_();
    }
    state.escArmed = false;
    if (key === "?") {
      event.preventDefault();
      return toggleSheet();
    }
    if (state.final) return;
    if (key === "j" || key === "k") {
      event.preventDefault();
      move(key === "j" ? 1 : -1);
    } else if (key === "c") {
      event.preventDefault();
      var b = state.current >= 0 ? state.current : firstVisible();
      setCurrent(b, true);
      openComposer(b, blocks[b] ? selectionIn(blocks[b].el) : "");
    } else if (key === "e") {
      var at = state.current >= 0 ? state.current : firstVisible(); // as `c` picks its block
      var mine = state.comments.filter(function (c) {
        return c.b === at;
      });
      if (mine.length) {
        event.preventDefault();
        setCurrent(at, true);
        openComposer(at, "", mine[mine.length - 1]);
      }
    } else if (key === "d" && ui.diff) {
      event.preventDefault();
      toggleDiff();
    } else if (key === "s") {
      event.preventDefault();
      save_();
    } else if (key === "a" && data.approve) {
      event.preventDefault();
      approve_();
    }
  }

  // -- events from the server --------------------------------------------------------------
  function connect() {
    if (!window.EventSource) return;
    events = new EventSource(url("/events"));
    events.addEventListener("open", function () {
      state.connected = true;
      refresh();
    });
    events.addEventListener("settled", function (event) {
      if (!state.final) finishFrom(JSON.parse(event.data));
    });
    events.addEventListener("error", function () {
      if (state.final) {
        events.close();
        return;
      }
      state.connected = false;
      refresh();
    });
  }

  // -- start -------------------------------------------------------------------------------
  function start() {
    ui.header = buildHeader();
    document.body.appendChild(ui.header);
    var layout = el("div", "layout");
    layout.appendChild(buildSide());
    ui.main = el("main", "doc");
    ui.main.id = "doc";
    if (data.diffs && data.diffs.length) {
      ui.diff = buildDiff();
      ui.main.appendChild(ui.diff);
    }
    data.nodes.forEach(function (node) {
      render(node, ui.main, 0);
    });
    if (!data.nodes.length) ui.main.appendChild(el("p", "img", "This plan is empty."));
    layout.appendChild(ui.main);
    document.body.appendChild(layout);
    ui.sheet = buildSheet();
    document.body.appendChild(ui.sheet);
    data.comments.forEach(function (c) {
      state.comments.push({ anchor_line: c.anchor_line, text: c.text, b: c.b === null ? 0 : c.b });
    });
    blocks.forEach(function (_, b) {
      renderThread(b);
    });
    refresh();
    onScroll();
    window.addEventListener("scroll", onScroll, { passive: true });
    window.addEventListener("resize", onScroll);
    document.addEventListener("keydown", onKey);
    // Closing or reloading the tab with comments not yet saved asks first (they live only here).
    window.addEventListener("beforeunload", function (event) {
      if (state.final || state.leaving || !(state.dirty || state.composer)) return;
      event.preventDefault();
      event.returnValue = "";
    });
    if (data.settled) finishFrom(data.settled);
    else connect();
    document.documentElement.setAttribute("data-ready", "1");
  }

  start();
})();
