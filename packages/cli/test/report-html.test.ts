/**
 * The report page as a file: self-contained (nothing fetched from anywhere), the data
 * embedded so no string in it can end its script element, d3-hierarchy inlined with its
 * licence, and the same bytes for the same data. The page's behaviour in a browser is
 * report-browser.test.ts.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { embedJson, renderReportHtml } from "../src/report/render-html.ts";
import type { ReportData } from "../src/report/report-data.ts";

/** A small report written by hand; the hostile strings stand where a spec's text can reach. */
function sample(): ReportData {
  return {
    version: 1,
    pack: "demo</script><script>alert(1)</script>",
    encoding: "o200k_base",
    totals: { tools: 2, tokens: 1300 },
    tools: [
      {
        name: "items_list_full",
        endpoint: "GET /items",
        tokens: 1200,
        kind: "full",
        branches: [
          {
            path: "filter",
            tokens: 900,
            status: "visible",
            selector: "filter",
            children: [{ path: "filter.and", tokens: 500, status: "visible", selector: "ItemFilter.and" }],
            rest: { paths: 3, tokens: 100 },
          },
          { path: "note</script><!--", tokens: 40, status: "visible", selector: "note</script><!--" },
        ],
        frame: 60,
        priced: true,
        egress: { visible: 5, withheld: 0, pinned: 0 },
      },
      {
        name: "items_list",
        endpoint: "GET /items",
        tokens: 100,
        kind: "curated",
        source: "items_list_full",
        branches: [{ path: "filter", tokens: 900, status: "withheld", selector: "filter", reason: "dropped" }],
        frame: 60,
        priced: true,
        egress: { visible: 1, withheld: 1, pinned: 0 },
      },
    ],
    cycles: [{ types: ["ItemFilter"], tools: ["items_list_full"], cuts: ["ItemFilter.and"], tokensSaved: 500 }],
    sharedTypes: [{ name: "DateComparator", tools: ["items_list", "items_list_full"], tokensEach: 30, tokensTotal: 60 }],
    curated: [{ name: "items_list", full: "items_list_full", tokens: 100, fullTokens: 1200, saved: 1100, withheldLines: ["- filter: dropped"] }],
    suggestions: [],
  };
}

/** The text of every element `<tag ...>` up to its first `</tag`, as the HTML parser would end it. */
function elements(html: string, tag: string): Array<{ open: string; body: string }> {
  const found: Array<{ open: string; body: string }> = [];
  const openTag = new RegExp(`<${tag}\\b[^>]*>`, "gi");
  for (let match = openTag.exec(html); match !== null; match = openTag.exec(html)) {
    const start = match.index + match[0].length;
    const end = html.toLowerCase().indexOf(`</${tag}`, start);
    found.push({ open: match[0], body: html.slice(start, end) });
    openTag.lastIndex = end;
  }
  return found;
}

describe("renderReportHtml", () => {
  const data = sample();
  const html = renderReportHtml(data);

  it("embeds the data so that the parser ends the data element exactly where the JSON ends", () => {
    const [json, ...others] = elements(html, "script").filter((e) => e.open.includes('type="application/json"'));
    expect(others).toEqual([]);
    expect(json?.open).toContain('id="report-data"');
    expect(JSON.parse(json!.body)).toEqual(data);
    expect(json!.body).not.toMatch(/</);
  });

  it("escapes every < in embedded JSON, and the result still parses to the same value", () => {
    const value = { a: "</script><!--<script>", b: ["<", "\u2028"] };
    const text = embedJson(value);
    expect(text).not.toContain("<");
    expect(JSON.parse(text)).toEqual(value);
  });

  it("writes the pack name as text, never as markup", () => {
    expect(html).toContain("<title>sluice report: demo&#60;/script&#62;&#60;script&#62;alert(1)&#60;/script&#62;</title>");
    expect(html).not.toContain("<script>alert(1)");
  });

  it("loads nothing from anywhere: no src, href or url() to fetch, and a policy that forbids it", () => {
    for (const attribute of html.matchAll(/\b(src|href)\s*=\s*["']?([^"' >]*)/gi)) throw new Error(`the page references ${attribute[0]}`);
    expect(html).not.toMatch(/<link\b/i);
    expect(html).not.toMatch(/@import|url\(\s*['"]?(https?:|\/\/)/i);
    expect(html).toContain(`content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"`);
    const scripts = elements(html, "script");
    expect(scripts).toHaveLength(3);
    for (const script of scripts) expect(script.open).not.toMatch(/\bsrc=/i);
  });

  it("inlines d3-hierarchy from its installed dist file with its licence", () => {
    const entry = createRequire(import.meta.url).resolve("d3-hierarchy");
    const d3 = readFileSync(join(dirname(entry), "d3-hierarchy.min.js"), "utf8");
    const licence = readFileSync(join(dirname(dirname(entry)), "LICENSE"), "utf8");
    expect(html).toContain(d3);
    expect(d3.split("\n")[0]).toMatch(/^\/\/ https:\/\/d3js\.org\/d3-hierarchy\/ v\d/);
    expect(html).toContain(licence.split("\n")[0]!.trim());
    expect(html).toContain("Permission to use, copy, modify, and/or distribute this software");
  });

  it("inlines the page's own script and style read from assets/report", () => {
    const script = readFileSync(new URL("../assets/report/report.js", import.meta.url), "utf8");
    const style = readFileSync(new URL("../assets/report/report.css", import.meta.url), "utf8");
    expect(html).toContain(script);
    expect(html).toContain(style);
  });

  it("gives the same bytes for equal data, and different bytes for different data", () => {
    expect(renderReportHtml(structuredClone(data))).toBe(html);
    const other = structuredClone(data);
    other.tools[0]!.tokens += 1;
    expect(renderReportHtml(other)).not.toBe(html);
    expect(html).not.toMatch(/\b20\d\d-\d\d-\d\d/);
  });

  it("states the totals in the header", () => {
    expect(html).toContain('<p id="summary">2 tools · 1,300 tokens (o200k_base)</p>');
  });
});
