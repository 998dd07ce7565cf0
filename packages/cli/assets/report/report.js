/* sluice report page: draws the embedded ReportData (see packages/cli/src/report/report-data.ts).
 * Plain browser script, no modules, no network; `d3` is the inlined d3-hierarchy UMD build. */
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("report-data").textContent);
  var NUM = new Intl.NumberFormat("en-US");
  var PCT = new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1 });
  var HEADER = 17; // px kept for a tile's label above the cells drawn inside it

  function own(object, key) {
    return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
  }

  function el(tag, props, children) {
    var node = document.createElement(tag);
    if (props) {
      Object.keys(props).forEach(function (key) {
        var value = props[key];
        if (value === undefined || value === null) return;
        if (key === "text") node.textContent = value;
        else if (key === "className") node.className = value;
        else if (key.indexOf("data-") === 0 || key.indexOf("aria-") === 0 || key === "role" || key === "tabindex" || key === "title" || key === "type" || key === "scope")
          node.setAttribute(key, String(value));
        else node[key] = value;
      });
    }
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  // ---- The tree the map draws: pack -> tools -> branches, with frame and rest blocks. ----
  var nodes = [];
  function make(props, parent) {
    props.id = nodes.length;
    props.parent = parent;
    props.children = [];
    props.depth = parent ? parent.depth + 1 : 0;
    nodes.push(props);
    if (parent) parent.children.push(props);
    return props;
  }

  var toolsByName = Object.create(null);
  data.tools.forEach(function (tool) { toolsByName[tool.name] = tool; });

  var root = make({ kind: "pack", label: data.pack, tool: "", path: "", tokens: data.totals.tokens, area: 0 }, null);

  function lastSegment(path, parentPath) {
    if (parentPath && path.indexOf(parentPath + ".") === 0) return path.slice(parentPath.length + 1);
    return path;
  }

  /** A branch's path from the tool's root: its parent's path (or alias) and its own last name. */
  function aliasOf(path, parent) {
    if (parent.kind !== "branch" || path.indexOf(parent.path + ".") === 0) return path;
    var base = parent.alias || parent.path;
    var dot = path.indexOf(".");
    return dot < 0 ? path : base + path.slice(dot);
  }

  /** Search entries for children the map does not draw (past the per-level limit). */
  var unlisted = [];

  /** The cycles a tool reaches, for the grey blocks that only a cut frees. */
  var cyclesByTool = Object.create(null);
  data.cycles.forEach(function (cycle) {
    cycle.tools.forEach(function (name) { (cyclesByTool[name] = cyclesByTool[name] || []).push(cycle); });
  });

  data.tools.forEach(function (tool) {
    var toolNode = make({
      kind: "tool", label: tool.name, tool: tool.name, path: "", tokens: tool.tokens, area: Math.max(0, tool.tokens),
      toolKind: tool.kind, source: tool.source, endpoint: tool.endpoint, priced: tool.priced, egress: tool.egress,
    }, root);
    var attributed = 0;
    // Branches, breadth first with an explicit queue: the depth comes from the data.
    var queue = [];
    tool.branches.forEach(function (branch) {
      queue.push({ branch: branch, parent: toolNode });
      if (branch.status === "visible" && branch.tokens > 0) attributed += branch.tokens;
    });
    for (var i = 0; i < queue.length; i++) {
      var item = queue[i];
      var branch = item.branch;
      var node = item.node = make({
        kind: "branch", label: lastSegment(branch.path, item.parent.path), tool: tool.name, path: branch.path,
        tokens: branch.tokens, area: Math.max(0, branch.tokens), status: branch.status, selector: branch.selector, reason: branch.reason,
        dropRefused: branch.dropRefused,
      }, item.parent);
      // The spelling paths() and the egress map use: a type selector (IssueFilter.team) opened
      // below filter is also filter.team, and search finds it under either name.
      node.alias = aliasOf(branch.path, item.parent);
      var inside = 0;
      (branch.children || []).forEach(function (child) {
        queue.push({ branch: child, parent: node });
        if (child.tokens > 0) inside += child.tokens;
      });
      if (branch.rest && branch.rest.paths > 0) node.unpricedBelow = branch.rest.paths;
      // Children past the per-level limit are not drawn, but search finds them and lands on their parent.
      if (branch.rest && branch.rest.selectors) {
        branch.rest.selectors.forEach(function (path) {
          unlisted.push({ kind: "unlisted", label: lastSegment(path, branch.path), tool: tool.name, path: path, alias: aliasOf(path, node), tokens: 0, parent: node, children: [], id: -1 });
        });
      }
      // A rest beside priced children is a block of its own; a rest alone would only repeat the branch.
      if (branch.rest && branch.rest.tokens > 0 && (branch.children || []).length > 0) {
        inside += branch.rest.tokens;
        node.restBlock = { paths: branch.rest.paths, tokens: branch.rest.tokens };
      }
      node.inside = inside;
    }
    // Rest and own blocks are added after the queue so that real branches come first.
    for (var j = 0; j < queue.length; j++) {
      var parentNode = queue[j].node;
      if (parentNode.restBlock) {
        make({
          kind: "rest", label: NUM.format(parentNode.restBlock.paths) + " more path" + (parentNode.restBlock.paths === 1 ? "" : "s"),
          tool: tool.name, path: parentNode.path, tokens: parentNode.restBlock.tokens, area: parentNode.restBlock.tokens, status: parentNode.status,
        }, parentNode);
      }
      var ownTokens = parentNode.tokens - parentNode.inside;
      if (parentNode.children.length > 0 && ownTokens > 0) {
        make({ kind: "own", label: "shared below", tool: tool.name, path: parentNode.path, tokens: ownTokens, area: ownTokens, status: parentNode.status }, parentNode);
      }
    }
    if (tool.frame > 0) {
      make({ kind: "frame", label: "frame", tool: tool.name, path: "", tokens: tool.frame, area: tool.frame }, toolNode);
    }
    var restTokens = tool.tokens - tool.frame - attributed;
    if (restTokens > 0) {
      make({
        kind: tool.priced ? "unattributed" : "unpriced",
        label: tool.priced ? "shared" : "not priced",
        tool: tool.name, path: "", tokens: restTokens, area: restTokens,
      }, toolNode);
    }
  });

  // Children drawn at a level: with area, largest first (ties by label, so the layout is stable).
  function drawable(node) {
    return node.children
      .filter(function (child) { return child.area > 0; })
      .sort(function (a, b) { return b.area - a.area || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0); });
  }

  function isStructural(node) {
    return node.kind === "frame" || node.kind === "rest" || node.kind === "own" || node.kind === "unattributed" || node.kind === "unpriced";
  }

  function toolOf(node) {
    var n = node;
    while (n && n.kind !== "tool") n = n.parent;
    return n;
  }

  /** What a branch's share is measured against: the tool, or for a withheld branch of a curated tool its *_full twin. */
  function shareBase(node) {
    if (node.kind === "tool") return { tokens: root.tokens, of: "the pack" };
    var tool = toolOf(node);
    if (!tool) return { tokens: 0, of: "" };
    var status = node.status;
    if ((status === "withheld" || status === "pinned") && tool.source && own(toolsByName, tool.source)) {
      return { tokens: toolsByName[tool.source].tokens, of: tool.source };
    }
    return { tokens: tool.tokens, of: tool.label };
  }

  function displayPath(node) {
    if (node.kind === "pack") return node.label;
    if (node.kind === "tool") return node.tool;
    if (isStructural(node)) return node.tool + (node.path ? " " + node.path : "") + ": " + node.label;
    return node.tool + " " + node.path;
  }

  function statusWord(node) {
    if (node.kind === "tool") return node.toolKind === "curated" || node.toolKind === "derived" ? node.toolKind : "";
    if (node.status === "withheld" || node.status === "pinned") return node.status;
    return "";
  }

  // ---- Details, tooltip ----
  var detailsBox = document.getElementById("details");
  var tooltip = document.getElementById("tooltip");

  /** What the grey blocks are, in the words the tooltip and the details line use. */
  var NOTES = {
    frame: "the tool's name, description and schema frame: sent whatever the arguments",
    unattributed: "not freed by dropping any one argument: definitions the arguments share",
    unpriced: "the tool is below the pricing threshold, so its arguments were not priced one by one",
    rest: "paths past the per-level limit or the depth bound, not priced one by one, summed",
    own: "not freed by dropping any one path below: the branch's own text and definitions its paths share",
  };

  function describe(node) {
    var parts = [];
    var base = shareBase(node);
    parts.push({ key: "path", text: displayPath(node) });
    parts.push({ key: "tokens", text: NUM.format(node.tokens) + " tokens" + (node.kind === "tool" && node.toolKind !== "plain" ? " (" + node.toolKind + ")" : "") });
    if (base.tokens > 0) parts.push({ key: "share", text: PCT.format(node.tokens / base.tokens) + " of " + base.of });
    if (node.kind === "branch") {
      if (node.unpricedBelow && !node.restBlock && node.children.length === 0) {
        parts.push({ key: "below", text: NUM.format(node.unpricedBelow) + " path" + (node.unpricedBelow === 1 ? "" : "s") + " below, not priced one by one" });
      }
      if (node.status === "visible" && node.dropRefused) parts.push({ key: "selector", prefix: "required, so narrow refuses a drop: ", text: node.dropRefused });
      else if (node.status === "visible") parts.push({ key: "selector", code: "drop: [" + JSON.stringify(node.selector) + "]", prefix: "drop it with " });
      else parts.push({ key: "selector", code: JSON.stringify(node.selector), prefix: node.status.toUpperCase() + " by ", suffix: node.reason ? " (" + node.reason + ")" : "" });
    } else if (node.kind === "tool") {
      if (node.endpoint) parts.push({ key: "endpoint", text: node.endpoint });
      if (node.source) parts.push({ key: "source", text: "narrows " + node.source });
      if (node.priced === false) parts.push({ key: "priced", text: "branches not priced" });
    } else if (own(NOTES, node.kind)) {
      parts.push({ key: "note", text: NOTES[node.kind] });
      // Shared text in a recursive tool is what the cycle's cuts free: say which, and link the table.
      var cycles = (node.kind === "own" || node.kind === "unattributed") && own(cyclesByTool, node.tool) ? cyclesByTool[node.tool] : [];
      if (cycles.length > 0) {
        var cuts = [];
        cycles.forEach(function (cycle) { cycle.cuts.forEach(function (cut) { if (cuts.indexOf(cut) < 0) cuts.push(cut); }); });
        // The cuts of the types opened right here (IssueFilter below filter) first.
        var here = Object.create(null);
        (node.parent ? node.parent.children : []).forEach(function (sibling) {
          var dot = sibling.path ? sibling.path.indexOf(".") : -1;
          if (sibling.kind === "branch" && dot > 0) here[sibling.path.slice(0, dot)] = true;
        });
        var typeOf = function (cut) { return cut.slice(0, cut.indexOf(".")); };
        cuts.sort(function (a, b) { return (here[typeOf(b)] ? 1 : 0) - (here[typeOf(a)] ? 1 : 0) || (a < b ? -1 : a > b ? 1 : 0); });
        var shown = cuts.slice(0, 4).map(function (cut) { return JSON.stringify(cut); }).join(", ") + (cuts.length > 4 ? ", … " + NUM.format(cuts.length - 4) + " more" : "");
        parts.push({ key: "cuts", prefix: "freed by cutting the cycle" + (cycles.length === 1 ? "" : "s") + ": ", code: "drop: [" + shown + "]", link: { href: "#cycles-section", text: "see Cycles" } });
      }
    }
    return parts;
  }

  function renderParts(container, parts, cls) {
    container.textContent = "";
    parts.forEach(function (part) {
      var span = el("span", { className: cls + "-" + part.key });
      if (part.prefix) span.appendChild(document.createTextNode(part.prefix));
      if (part.code) span.appendChild(el("code", { text: part.code }));
      if (part.text) span.appendChild(document.createTextNode(part.text));
      if (part.suffix) span.appendChild(document.createTextNode(part.suffix));
      if (part.link) {
        span.appendChild(document.createTextNode(" ("));
        span.appendChild(el("a", { href: part.link.href, className: "cycle-link", text: part.link.text }));
        span.appendChild(document.createTextNode(")"));
      }
      container.appendChild(span);
      container.appendChild(document.createTextNode(" "));
    });
  }

  function showDetails(node) {
    var row = el("div", { className: "d-row" });
    renderParts(row, describe(node), "d");
    detailsBox.textContent = "";
    detailsBox.appendChild(row);
  }

  function showTooltip(node, x, y) {
    var parts = describe(node);
    tooltip.textContent = "";
    parts.forEach(function (part) {
      var line = el("div", { className: "t-" + part.key });
      if (part.prefix) line.appendChild(document.createTextNode(part.prefix));
      if (part.code) line.appendChild(el("code", { text: part.code }));
      if (part.text) line.appendChild(document.createTextNode(part.text));
      if (part.suffix) line.appendChild(document.createTextNode(part.suffix));
      tooltip.appendChild(line);
    });
    var word = statusWord(node);
    if (word) tooltip.insertBefore(el("div", { className: "t-status", text: word }), tooltip.firstChild);
    tooltip.hidden = false;
    var w = tooltip.offsetWidth;
    var h = tooltip.offsetHeight;
    var left = Math.min(x + 14, window.innerWidth - w - 8);
    var top = y + 16 + h > window.innerHeight ? y - h - 10 : y + 16;
    tooltip.style.left = Math.max(4, left) + "px";
    tooltip.style.top = Math.max(4, top) + "px";
  }

  function hideTooltip() {
    tooltip.hidden = true;
  }

  // ---- The map ----
  var mapBox = document.getElementById("treemap");
  var crumbs = document.getElementById("breadcrumb");
  var current = root;
  var tileOf = Object.create(null); // node id -> tile element, for the level on screen
  var matches = null; // node ids matching the search, with their ancestors

  function layout(node, width, height, padding) {
    var kids = drawable(node);
    if (kids.length === 0 || width <= 0 || height <= 0) return [];
    var top = d3.hierarchy(node, function (d) { return d === node ? kids : null; })
      .sum(function (d) { return d === node ? 0 : d.area; });
    d3.treemap().tile(d3.treemapSquarify).size([width, height]).paddingInner(padding).round(true)(top);
    return top.children || [];
  }

  function nodeLabel(node) {
    return node.label;
  }

  function dataAttrs(node, props) {
    props["data-node"] = node.id;
    props["data-kind"] = node.kind;
    props["data-tool"] = node.tool || undefined;
    if (node.kind === "branch" || node.kind === "unlisted") props["data-path"] = node.path;
    if ((node.kind === "branch" || node.kind === "unlisted") && node.alias && node.alias !== node.path) props["data-alias"] = node.alias;
    if (node.status) props["data-status"] = node.status;
    if (node.kind === "tool") props["data-tool-kind"] = node.toolKind;
    return props;
  }

  function classesOf(node, base) {
    var list = [base, "kind-" + node.kind];
    if (node.status) list.push("status-" + node.status);
    if (matches && matches[node.id]) list.push("match");
    return list.join(" ");
  }

  function render() {
    mapBox.textContent = "";
    tileOf = Object.create(null);
    renderCrumbs();
    var width = mapBox.clientWidth;
    var height = mapBox.clientHeight;
    var tiles = layout(current, width, height, current.kind === "pack" ? 1 : 3);
    if (tiles.length === 0) {
      mapBox.appendChild(el("p", { className: "empty", text: "Nothing here has an area: no branch below " + displayPath(current) + " costs more than 0 tokens." }));
      return;
    }
    var fragment = document.createDocumentFragment();
    tiles.forEach(function (t) {
      var node = t.data;
      var w = t.x1 - t.x0;
      var h = t.y1 - t.y0;
      var zoomable = drawable(node).length > 0;
      var size = w < 34 || h < 15 ? " tiny" : w < 70 || h < 32 ? " small" : h >= 44 && w >= 56 ? " tall" : "";
      var word = statusWord(node);
      var label = nodeLabel(node);
      var aria = label + ", " + NUM.format(node.tokens) + " tokens" + (word ? ", " + word : "") + (zoomable ? "; Enter to zoom in" : "");
      var tile = el("div", dataAttrs(node, {
        className: classesOf(node, "tile") + size + (zoomable ? "" : " leaf"),
        tabindex: 0, role: "button", "aria-label": aria,
      }));
      tile.style.left = t.x0 + "px";
      tile.style.top = t.y0 + "px";
      tile.style.width = w + "px";
      tile.style.height = h + "px";
      var labelBox = el("div", { className: "label" }, [
        el("span", { className: "name", text: label }),
        el("span", { className: "meta" }, [word ? el("span", { className: "tag", text: word }) : null, el("span", { className: "count", text: " " + NUM.format(node.tokens) })]),
      ]);
      tile.appendChild(labelBox);
      var header = size === " tall" ? HEADER + 14 : HEADER;
      if (zoomable && w > 40 && h > header + 16) {
        layout(node, w - 4, h - header - 2, 0).forEach(function (c) {
          var child = c.data;
          var cw = c.x1 - c.x0;
          var ch = c.y1 - c.y0;
          var cell = el("div", dataAttrs(child, { className: classesOf(child, "cell") }));
          cell.style.left = 2 + c.x0 + "px";
          cell.style.top = header + c.y0 + "px";
          cell.style.width = cw + "px";
          cell.style.height = ch + "px";
          if (cw > 46 && ch > 14) {
            var cword = statusWord(child);
            cell.appendChild(el("div", { className: "clabel", text: nodeLabel(child) + (cword ? " · " + cword : "") }));
          }
          tile.appendChild(cell);
        });
      }
      tileOf[node.id] = tile;
      fragment.appendChild(tile);
    });
    mapBox.appendChild(fragment);
  }

  function nodeFromEvent(event) {
    var target = event.target;
    while (target && target !== mapBox) {
      if (target.hasAttribute && target.hasAttribute("data-node")) return { node: nodes[Number(target.getAttribute("data-node"))], element: target };
      target = target.parentNode;
    }
    return null;
  }

  function tileFromEvent(event) {
    var target = event.target;
    while (target && target !== mapBox) {
      if (target.classList && target.classList.contains("tile")) return nodes[Number(target.getAttribute("data-node"))];
      target = target.parentNode;
    }
    return null;
  }

  function renderCrumbs() {
    crumbs.textContent = "";
    var chain = [];
    for (var n = current; n; n = n.parent) chain.unshift(n);
    chain.forEach(function (node, index) {
      if (index > 0) crumbs.appendChild(el("span", { className: "sep", text: "›", "aria-hidden": "true" }));
      var text = node.kind === "branch" ? lastSegment(node.path, node.parent.path) : node.label;
      if (node === current) crumbs.appendChild(el("span", { className: "here", text: text + " (" + NUM.format(node.tokens) + ")", "aria-current": "location" }));
      else crumbs.appendChild(el("button", { type: "button", "data-node": node.id, text: text }));
    });
    if (current !== root) crumbs.appendChild(el("span", { className: "up-hint", text: "Escape or Backspace: up one level" }));
  }

  function zoomTo(node, focusId) {
    if (!node || drawable(node).length === 0) return false;
    current = node;
    hideTooltip();
    render();
    var focus = focusId !== undefined ? tileOf[focusId] : undefined;
    if (!focus) focus = mapBox.querySelector(".tile");
    if (focus) focus.focus({ preventScroll: true });
    showDetails(current);
    return true;
  }

  function zoomOut() {
    if (!current.parent) return;
    var from = current;
    zoomTo(current.parent, from.id);
  }

  crumbs.addEventListener("click", function (event) {
    var id = event.target && event.target.getAttribute ? event.target.getAttribute("data-node") : null;
    if (id === null) return;
    var chainChild = current;
    var target = nodes[Number(id)];
    while (chainChild.parent && chainChild.parent !== target) chainChild = chainChild.parent;
    zoomTo(target, chainChild.id);
  });

  mapBox.addEventListener("click", function (event) {
    var node = tileFromEvent(event);
    if (node) zoomTo(node);
  });

  mapBox.addEventListener("mousemove", function (event) {
    var hit = nodeFromEvent(event);
    if (!hit) return hideTooltip();
    showTooltip(hit.node, event.clientX, event.clientY);
    showDetails(hit.node);
  });
  mapBox.addEventListener("mouseleave", hideTooltip);

  mapBox.addEventListener("focusin", function (event) {
    var node = tileFromEvent(event);
    if (!node) return;
    showDetails(node);
    // A tooltip follows keyboard focus only: after a click the pointer already shows one.
    if (event.target.matches && !event.target.matches(":focus-visible")) return;
    var rect = event.target.getBoundingClientRect();
    showTooltip(node, rect.left + Math.min(rect.width / 2, 60), rect.top + Math.min(rect.height / 2, 24));
  });
  mapBox.addEventListener("focusout", hideTooltip);

  /** The tile nearest in the arrow's direction (by centre), so arrows follow the picture, not the DOM order. */
  function neighbour(from, key) {
    var a = from.getBoundingClientRect();
    var ax = a.left + a.width / 2;
    var ay = a.top + a.height / 2;
    var best = null;
    var bestScore = Infinity;
    Array.prototype.forEach.call(mapBox.querySelectorAll(".tile"), function (tile) {
      if (tile === from) return;
      var b = tile.getBoundingClientRect();
      var dx = b.left + b.width / 2 - ax;
      var dy = b.top + b.height / 2 - ay;
      var along = key === "ArrowRight" ? dx : key === "ArrowLeft" ? -dx : key === "ArrowDown" ? dy : -dy;
      var across = key === "ArrowRight" || key === "ArrowLeft" ? Math.abs(dy) : Math.abs(dx);
      if (along <= 0) return;
      var score = along + 2 * across;
      if (score < bestScore) { bestScore = score; best = tile; }
    });
    return best;
  }

  mapBox.addEventListener("keydown", function (event) {
    var node = tileFromEvent(event);
    if (!node) return;
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      zoomTo(node);
    } else if (event.key.indexOf("Arrow") === 0) {
      event.preventDefault();
      var next = neighbour(event.target, event.key);
      if (next) next.focus();
    }
  });

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    var typing = target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA");
    if (typing) return;
    if (event.key === "Escape" || event.key === "Backspace") {
      if (current !== root) {
        event.preventDefault();
        zoomOut();
      }
    }
  });

  var resizeTimer = 0;
  window.addEventListener("resize", function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(render, 120);
  });

  // ---- Search ----
  var searchBox = document.getElementById("search");
  var resultsBox = document.getElementById("search-results");
  var countBox = document.getElementById("search-count");
  // Unlisted children get ids after the drawn nodes (a result button names its node by id); they are no node's child.
  unlisted.forEach(function (entry) {
    entry.id = nodes.length;
    entry.depth = entry.parent.depth + 1;
    nodes.push(entry);
  });
  var searchable = nodes.filter(function (node) { return node.kind === "tool" || node.kind === "branch" || node.kind === "unlisted"; });
  var MAX_RESULTS = 100;
  // The example in the box comes from this pack: its fattest tool and that tool's costliest argument.
  if (data.tools.length > 0) {
    var example = data.tools[0];
    searchBox.placeholder = example.branches.length > 0 ? example.name + " or " + example.branches[0].path : example.name;
  }

  /** Where a search result lands: inside the node when it has an inside, else beside its siblings. */
  function jump(node) {
    if (node.kind === "unlisted") {
      // Not drawn: land inside its parent, where the "more paths" block holds it.
      zoomTo(node.parent);
      detailsBox.textContent = "";
      detailsBox.appendChild(el("div", { className: "d-row" }, [
        el("span", { className: "d-path", text: node.tool + " " + node.path + (node.alias && node.alias !== node.path ? " = " + node.alias : "") }),
        " ",
        el("span", { className: "d-note", text: "priced, but past the per-level limit: inside the \u201cmore paths\u201d block here; paths --by-cost lists its cost" }),
      ]));
      document.getElementById("map-section").scrollIntoView({ block: "nearest" });
      return;
    }
    var inside = drawable(node).length > 0;
    if (inside) zoomTo(node);
    else if (node.parent) zoomTo(node.parent, node.id);
    var tile = tileOf[node.id];
    if (tile) {
      tile.classList.add("flash");
      tile.focus({ preventScroll: true });
    }
    showDetails(node);
    document.getElementById("map-section").scrollIntoView({ block: "nearest" });
  }

  function applySearch() {
    var query = searchBox.value.trim().toLowerCase();
    resultsBox.textContent = "";
    matches = null;
    var rows = document.querySelectorAll("tr[data-search]");
    Array.prototype.forEach.call(rows, function (row) { row.classList.remove("match"); });
    if (query === "") {
      resultsBox.hidden = true;
      countBox.textContent = "";
      render();
      return;
    }
    function pathMatches(node) {
      return Boolean(node.path && (node.path.toLowerCase().indexOf(query) >= 0 || (node.alias && node.alias.toLowerCase().indexOf(query) >= 0)));
    }
    var found = searchable.filter(function (node) {
      return node.tool.toLowerCase().indexOf(query) >= 0 || pathMatches(node);
    });
    // A path that matches is a better hit than a tool name that matches; then bigger first.
    function pathHit(node) { return pathMatches(node) ? 0 : 1; }
    found.sort(function (a, b) {
      return pathHit(a) - pathHit(b) || b.tokens - a.tokens || a.id - b.id;
    });
    matches = Object.create(null);
    found.forEach(function (node) {
      for (var n = node; n && !matches[n.id]; n = n.parent) matches[n.id] = true;
    });
    delete matches[root.id];
    countBox.textContent = found.length === 0 ? "no match" : NUM.format(found.length) + (found.length === 1 ? " match" : " matches");
    found.slice(0, MAX_RESULTS).forEach(function (node) {
      var button = el("button", dataAttrs(node, { type: "button", className: "result" }), [
        el("span", { className: "result-path", text: displayPath(node) + (node.alias && node.alias !== node.path ? " = " + node.alias : "") + (statusWord(node) ? " (" + statusWord(node) + ")" : "") }),
        el("span", { className: "result-tokens", text: node.kind === "unlisted" ? "" : NUM.format(node.tokens) }),
      ]);
      resultsBox.appendChild(el("li", null, [button]));
    });
    if (found.length > MAX_RESULTS) resultsBox.appendChild(el("li", { className: "none", text: "… " + NUM.format(found.length - MAX_RESULTS) + " more; narrow the search" }));
    resultsBox.hidden = found.length === 0;
    Array.prototype.forEach.call(rows, function (row) {
      if (row.getAttribute("data-search").indexOf(query) >= 0) row.classList.add("match");
    });
    render();
  }

  var searchTimer = 0;
  searchBox.addEventListener("input", function () {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(applySearch, 80);
  });
  searchBox.addEventListener("keydown", function (event) {
    if (event.key === "Escape") {
      searchBox.value = "";
      applySearch();
    } else if (event.key === "Enter") {
      clearTimeout(searchTimer);
      applySearch();
      var first = resultsBox.querySelector("button");
      if (first) first.focus();
    } else if (event.key === "ArrowDown") {
      var top = resultsBox.querySelector("button");
      if (top) { event.preventDefault(); top.focus(); }
    }
  });
  resultsBox.addEventListener("click", function (event) {
    var target = event.target;
    while (target && target !== resultsBox && !(target.tagName === "BUTTON")) target = target.parentNode;
    if (!target || target === resultsBox) return;
    resultsBox.hidden = true;
    jump(nodes[Number(target.getAttribute("data-node"))]);
  });
  // The result list is a popup: it closes when focus or a click goes elsewhere, and reopens on the box.
  document.addEventListener("mousedown", function (event) {
    if (!resultsBox.hidden && !resultsBox.contains(event.target) && event.target !== searchBox) resultsBox.hidden = true;
  });
  searchBox.addEventListener("focus", function () {
    if (searchBox.value.trim() !== "" && resultsBox.firstChild) resultsBox.hidden = false;
  });
  resultsBox.addEventListener("keydown", function (event) {
    var item = event.target.closest ? event.target.closest("li") : null;
    if (!item) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      var sibling = event.key === "ArrowDown" ? item.nextElementSibling : item.previousElementSibling;
      var button = sibling && sibling.querySelector("button");
      if (button) button.focus();
      else if (event.key === "ArrowUp") searchBox.focus();
    } else if (event.key === "Escape") {
      resultsBox.hidden = true;
      searchBox.focus();
    }
  });

  // ---- Tables ----
  function toolButton(name) {
    return el("button", { type: "button", className: "tool-link", "data-tool": name, text: name });
  }

  function toolList(names, limit) {
    var shown = names.slice(0, limit);
    var box = el("span");
    shown.forEach(function (name, i) {
      if (i > 0) box.appendChild(document.createTextNode(", "));
      box.appendChild(toolButton(name));
    });
    if (names.length > limit) {
      var more = el("details", { className: "more" }, [el("summary", { text: "+" + NUM.format(names.length - limit) + " more" })]);
      var rest = el("span");
      names.slice(limit).forEach(function (name, i) {
        if (i > 0) rest.appendChild(document.createTextNode(", "));
        rest.appendChild(toolButton(name));
      });
      more.appendChild(rest);
      box.appendChild(more);
    }
    return box;
  }

  /** Selectors or type names as code, the first `limit` shown and the others behind a disclosure. */
  function codeList(items, limit) {
    var box = el("span");
    function add(target, list) {
      list.forEach(function (item, i) {
        if (i > 0) target.appendChild(document.createTextNode(" "));
        target.appendChild(el("code", { text: item }));
      });
    }
    var max = limit || items.length;
    add(box, items.slice(0, max));
    if (items.length > max) {
      var rest = el("span");
      add(rest, items.slice(max));
      box.appendChild(el("details", { className: "more" }, [el("summary", { text: "+" + NUM.format(items.length - max) + " more" }), rest]));
    }
    return box;
  }

  function table(containerId, columns, rows, empty) {
    var container = document.getElementById(containerId);
    container.textContent = "";
    if (rows.length === 0) {
      container.appendChild(el("p", { className: "none", text: empty }));
      return;
    }
    var head = el("tr", null, columns.map(function (column) {
      return el("th", { scope: "col", className: column.num ? "num" : undefined, text: column.title });
    }));
    var body = el("tbody");
    rows.forEach(function (row) {
      body.appendChild(el("tr", { "data-search": row.search.toLowerCase(), "data-tool": row.tool }, columns.map(function (column, i) {
        var value = row.cells[i];
        return el("td", { className: column.num ? "num" : undefined }, [typeof value === "number" ? NUM.format(value) : value]);
      })));
    });
    container.appendChild(el("div", { className: "table-wrap" }, [el("table", null, [el("thead", null, [head]), body])]));
  }

  table("cycles", [
    { title: "Types in the cycle" }, { title: "Tools reaching it" }, { title: "Cut with" }, { title: "Tokens saved", num: true },
  ], data.cycles.map(function (cycle) {
    return {
      search: cycle.types.join(" ") + " " + cycle.tools.join(" "),
      cells: [codeList(cycle.types, 6), toolList(cycle.tools, 6), codeList(cycle.cuts, 6), cycle.tokensSaved],
    };
  }), "No cycles: no definition refers back to itself.");

  table("shared", [
    { title: "Definition" }, { title: "Tools", num: true }, { title: "Carried by" }, { title: "Tokens each", num: true }, { title: "Tokens in all", num: true },
  ], data.sharedTypes.map(function (shared) {
    return {
      search: shared.name + " " + shared.tools.join(" "),
      cells: [el("code", { text: shared.name }), shared.tools.length, toolList(shared.tools, 4), shared.tokensEach, shared.tokensTotal],
    };
  }), "No definition is carried by two tools or more.");

  table("curated", [
    { title: "Curated tool" }, { title: "Twin" }, { title: "Tokens", num: true }, { title: "Twin tokens", num: true }, { title: "Saved", num: true }, { title: "Withheld (egress map)" },
  ], data.curated.map(function (curated) {
    var lines = el("ul", { className: "egress-lines" }, curated.withheldLines.slice(0, 5).map(function (line) { return el("li", { text: line }); }));
    var cell = el("div", null, [lines]);
    if (curated.withheldLines.length > 5) {
      cell.appendChild(el("details", { className: "more" }, [
        el("summary", { text: "+" + NUM.format(curated.withheldLines.length - 5) + " more lines" }),
        el("ul", { className: "egress-lines" }, curated.withheldLines.slice(5).map(function (line) { return el("li", { text: line }); })),
      ]));
    }
    return {
      tool: curated.name,
      search: curated.name + " " + curated.full + " " + curated.withheldLines.join(" "),
      cells: [toolButton(curated.name), toolButton(curated.full), curated.tokens, curated.fullTokens, curated.saved, cell],
    };
  }), "No curated tools in this pack.");

  if (data.suggestions.length > 0 || data.budget !== undefined) {
    document.getElementById("suggestions-section").hidden = false;
    var title = document.getElementById("suggestions-title");
    if (data.budget !== undefined) title.textContent = "Suggested projections to " + NUM.format(data.budget) + " tokens";
    table("suggestions", [
      { title: "Tool" }, { title: "Tokens after", num: true }, { title: "drop" }, { title: "keep" }, { title: "Steps (saved)" },
    ], data.suggestions.map(function (s) {
      var after = s.error ? s.error + (s.floor !== undefined ? ": floor " + NUM.format(s.floor) : "") : s.tokens;
      var steps = el("ol", { className: "list" }, s.steps.map(function (step) {
        return el("li", null, [el("code", { text: step.selector }), " −" + NUM.format(step.saved)]);
      }));
      return { tool: s.tool, search: s.tool + " " + s.drop.join(" "), cells: [toolButton(s.tool), after, codeList(s.drop), codeList(s.keep), steps] };
    }), "Every tool fits the budget.");
  }

  document.querySelector("main").addEventListener("click", function (event) {
    var target = event.target;
    if (!target.classList || !target.classList.contains("tool-link")) return;
    var name = target.getAttribute("data-tool");
    var toolNode = root.children.filter(function (n) { return n.tool === name; })[0];
    if (!toolNode) return;
    if (!zoomTo(toolNode)) zoomTo(root, toolNode.id);
    document.getElementById("map-section").scrollIntoView({ block: "start" });
  });

  render();
  document.documentElement.setAttribute("data-ready", "true");
})();
