/**
 * The report as one self-contained HTML page: the data embedded as JSON, d3-hierarchy and
 * the page's own script and style inlined, so the file opens from disk with no network.
 * The page draws everything from the embedded data (tables included), which keeps the file
 * small: each fact is written once, in the JSON.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SluiceError } from "@sluice/schema";
import { REPORT_SCRIPT, REPORT_STYLE } from "../assets.ts";
import type { ReportData } from "./report-data.ts";

interface PageAssets {
  script: string;
  style: string;
  d3: string;
}

let cachedAssets: PageAssets | undefined;

/** The page's static parts, read once per process. */
function pageAssets(): PageAssets {
  if (cachedAssets !== undefined) return cachedAssets;
  const script = readAsset(REPORT_SCRIPT);
  const style = readAsset(REPORT_STYLE);
  // The UMD build defines a global `d3`; the package's `exports` map hides it from resolve, so
  // find it beside the module entry that resolve does return.
  const entry = createRequire(import.meta.url).resolve("d3-hierarchy");
  const dist = dirname(entry);
  const d3Code = readAsset(join(dist, "d3-hierarchy.min.js"));
  const licence = readAsset(join(dirname(dist), "LICENSE")).trim();
  const d3 = `/*! d3-hierarchy (ISC licence)\n${licence.replaceAll("*/", "* /")}\n*/\n${d3Code}`;
  cachedAssets = { script, style, d3 };
  return cachedAssets;
}

function readAsset(file: URL | string): string {
  try {
    return readFileSync(file instanceof URL ? fileURLToPath(file) : file, "utf8");
  } catch (error) {
    const where = file instanceof URL ? fileURLToPath(file) : file;
    throw new SluiceError("FILE_NOT_FOUND", `The report page needs ${where}, which could not be read (${(error as Error).message}); reinstall @sluice/cli.`);
  }
}

/** Inline code must not close its own element early; none of ours does, so refuse rather than rewrite. */
function inline(code: string, tag: "script" | "style"): string {
  if (new RegExp(`</${tag}`, "i").test(code)) {
    throw new SluiceError("IMPORT_FAILED", `An inlined report asset contains "</${tag}", which would end the element early.`);
  }
  return code;
}

/** JSON that can sit inside a script element: `<` escaped, so no string in the data can close the element or open a comment. */
export function embedJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const NUMBER = new Intl.NumberFormat("en-US");

/** The whole page for one report. Deterministic: identical data give identical bytes. */
export function renderReportHtml(data: ReportData): string {
  const assets = pageAssets();
  const pack = escapeHtml(data.pack);
  const summary = `${NUMBER.format(data.totals.tools)} tools · ${NUMBER.format(data.totals.tokens)} tokens (${escapeHtml(data.encoding)})`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="generator" content="sluice report">
<title>sluice report: ${pack}</title>
<style>
${inline(assets.style, "style")}
</style>
</head>
<body>
<header class="page-header">
<h1>sluice report: <span id="pack-name">${pack}</span></h1>
<p id="summary">${summary}</p>
</header>
<main>
<section id="map-section" aria-labelledby="map-title">
<div class="toolbar">
<h2 id="map-title">Where the tokens go</h2>
<div class="search">
<label for="search">Search tools and paths</label>
<input id="search" type="search" placeholder="a tool or a path" autocomplete="off" spellcheck="false" aria-controls="search-results">
<span id="search-count" aria-live="polite"></span>
<ul id="search-results" hidden></ul>
</div>
</div>
<nav id="breadcrumb" aria-label="Zoom level"></nav>
<div id="treemap" role="group" aria-label="Treemap of tokens. Tab or arrow keys move between rectangles, Enter zooms in, Escape or Backspace zooms out."></div>
<div id="details" aria-live="polite"><span class="hint">Hover or focus a rectangle for its path, tokens, share and the selector that drops it. Click or press Enter to zoom in; Escape, Backspace or the breadcrumb to zoom out.</span></div>
<div id="legend" aria-label="Legend">
<span class="key"><span class="swatch status-visible"></span>visible: sent to the model, dropped by the selector shown</span>
<span class="key"><span class="swatch status-withheld"></span>withheld (hatched): not sent by this tool</span>
<span class="key"><span class="swatch status-pinned"></span>pinned (cross-hatched): fixed to a value, not sent</span>
<span class="key"><span class="swatch kind-frame"></span>grey: the tool's frame, tokens no single path frees (shared), paths not priced one by one</span>
<p class="note">Area is tokens by real pruning (the tool without the branch); branches that cost 0 tokens or less have no area. At the pack level a tool's area is what it sends. Inside a curated tool, withheld and pinned branches are drawn at their size in the tool's <code>*_full</code> twin, so the tool's inside adds up to more than it sends.</p>
</div>
</section>
<section id="cycles-section" aria-labelledby="cycles-title">
<h2 id="cycles-title">Cycles</h2>
<p class="section-note">Definitions that refer to each other in a loop, the tools that reach them, and the type selectors whose drop cuts the loop.</p>
<div id="cycles"></div>
</section>
<section id="shared-section" aria-labelledby="shared-title">
<h2 id="shared-title">Shared definitions</h2>
<p class="section-note">Types sent again in every tool that carries them: narrowing one tool saves its copy once.</p>
<div id="shared"></div>
</section>
<section id="curated-section" aria-labelledby="curated-title">
<h2 id="curated-title">Curated tools and their <code>*_full</code> twins</h2>
<div id="curated"></div>
</section>
<section id="suggestions-section" aria-labelledby="suggestions-title" hidden>
<h2 id="suggestions-title">Suggested projections</h2>
<div id="suggestions"></div>
</section>
</main>
<div id="tooltip" role="tooltip" hidden></div>
<noscript><p class="noscript">This page draws the report with its inlined script; allow scripts for this file to see it.</p></noscript>
<script type="application/json" id="report-data">${embedJson(data)}</script>
<script>
${inline(assets.d3, "script")}
</script>
<script>
${inline(assets.script, "script")}
</script>
</body>
</html>
`;
}
