/**
 * The Linear report page in a real headless Chromium (the system package), opened from a
 * file with every other request refused: the treemap's largest areas, zooming in and back
 * (mouse, breadcrumb, keyboard), search, the withheld status on a curated tool, and a
 * clean console. Each state is saved as a PNG under artifacts/report-screenshots/ (CI
 * keeps that folder); docs/images/report-linear.png in the README is a copy of the overview,
 * made by hand so that a test run leaves the work tree as it was.
 *
 * Without /usr/bin/chromium the suite is skipped with a message, unless
 * SLUICE_REQUIRE_BROWSER=1 (set by CI), where the missing browser is a failure.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTools } from "../src/load-tools.ts";
import { buildReport } from "../src/report/build-report.ts";
import { renderReportHtml } from "../src/report/render-html.ts";
import type { ReportData } from "../src/report/report-data.ts";

// Browser globals used inside page functions: the project compiles without the DOM lib.
interface PageElement {
  getAttribute(name: string): string | null;
  classList: { contains(name: string): boolean };
  getBoundingClientRect(): { left: number; top: number; width: number; height: number };
}
declare const document: { activeElement: PageElement | null };
declare function getComputedStyle(element: unknown): { backgroundImage: string };

// SLUICE_CHROMIUM points elsewhere only to try the missing-browser paths of this file.
const CHROMIUM = process.env["SLUICE_CHROMIUM"] ?? "/usr/bin/chromium";
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SHOTS = join(ROOT, "artifacts/report-screenshots");
const haveBrowser = existsSync(CHROMIUM);
const requireBrowser = process.env["SLUICE_REQUIRE_BROWSER"] === "1";

if (!haveBrowser && !requireBrowser) {
  console.warn(`report-browser.test.ts: skipped, no Chromium at ${CHROMIUM} (install the Debian package "chromium"; SLUICE_REQUIRE_BROWSER=1 makes this a failure).`);
}

describe.runIf(!haveBrowser && requireBrowser)("browser required", () => {
  it(`finds Chromium at ${CHROMIUM}`, () => {
    expect.fail(`SLUICE_REQUIRE_BROWSER=1 but ${CHROMIUM} does not exist; install the Debian package "chromium".`);
  });
});

interface TileBox {
  kind: string;
  tool: string;
  path: string;
  status: string;
  area: number;
  label: string;
}

describe.runIf(haveBrowser)(`the Linear report in Chromium (${CHROMIUM})`, () => {
  let browser: Browser;
  let page: Page;
  let data: ReportData;
  let htmlBytes = 0;
  let work = "";
  const refused: string[] = [];
  const consoleErrors: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    data = await buildReport(await loadTools("linear", ROOT), { pack: "linear" });
    const html = renderReportHtml(data);
    work = mkdtempSync(join(tmpdir(), "sluice-report-browser-"));
    htmlBytes = Buffer.byteLength(html);
    const file = join(work, "linear-report.html");
    writeFileSync(file, html);
    mkdirSync(SHOTS, { recursive: true });

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 });
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") consoleErrors.push(`${message.type()}: ${message.text()}`);
    });
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.route("**/*", async (route) => {
      const url = route.request().url();
      if (url.startsWith("file:")) return route.continue();
      refused.push(url);
      return route.abort();
    });
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector("html[data-ready]");
  });

  afterAll(async () => {
    await browser?.close();
    if (work !== "") rmSync(work, { recursive: true, force: true });
  });

  const shot = (name: string, fullPage = false) => page.screenshot({ path: join(SHOTS, name), fullPage });

  /** The level-one rectangles on screen, largest first. */
  async function tiles(): Promise<TileBox[]> {
    const boxes = await page.$$eval("#treemap .tile", (elements) =>
      elements.map((element) => {
        const rect = element.getBoundingClientRect();
        return {
          kind: element.getAttribute("data-kind") ?? "",
          tool: element.getAttribute("data-tool") ?? "",
          path: element.getAttribute("data-path") ?? "",
          status: element.getAttribute("data-status") ?? "",
          area: rect.width * rect.height,
          label: element.querySelector(".label")?.textContent ?? "",
        };
      }),
    );
    return boxes.sort((a, b) => b.area - a.area);
  }

  const crumbs = () => page.$$eval("#breadcrumb > button, #breadcrumb > .here", (elements) => elements.map((element) => element.textContent ?? ""));

  async function backToPack(): Promise<void> {
    const top = page.locator("#breadcrumb > button").first();
    if ((await top.count()) > 0) await top.click();
    expect(await crumbs()).toHaveLength(1);
  }

  it("stays under 5 MB and loads from its file with no other request", async () => {
    expect(htmlBytes).toBeLessThan(5 * 1024 * 1024);
    expect(await page.locator("#treemap .tile").count()).toBeGreaterThan(100);
    expect(refused).toEqual([]);
  });

  it("draws the *_full tools with a recursive filter as the largest areas of the pack", async () => {
    const top = (await tiles()).slice(0, 10);
    const cyclic = new Set(data.cycles.flatMap((cycle) => cycle.tools));
    for (const tile of top) {
      expect(tile.kind).toBe("tool");
      expect(tile.tool).toMatch(/_full$/);
      expect(cyclic.has(tile.tool)).toBe(true);
    }
    // Most of them are list tools whose cost is the `filter` argument itself.
    const filterFirst = top.filter((tile) => data.tools.find((t) => t.name === tile.tool)?.branches[0]?.path === "filter");
    expect(filterFirst.length).toBeGreaterThanOrEqual(7);
    // Area follows tokens: the largest rectangle is a tool that sends the most.
    const most = Math.max(...data.tools.map((t) => t.tokens));
    expect(data.tools.find((t) => t.name === top[0]!.tool)?.tokens).toBe(most);
    await shot("01-overview.png");
  });

  it("zooms into issues_list_full on a click and shows filter as its largest branch", async () => {
    await page.locator('#treemap .tile[data-kind="tool"][data-tool="issues_list_full"]').click();
    expect(await crumbs()).toEqual([data.pack, expect.stringMatching(/^issues_list_full \(/)]);
    const inside = await tiles();
    expect(inside.every((t) => t.tool === "issues_list_full")).toBe(true);
    expect(inside[0]).toMatchObject({ kind: "branch", path: "filter", status: "visible" });
    // Hover gives the path, tokens, share of the tool and the selector that drops it.
    await page.locator('#treemap .tile[data-path="filter"]').hover({ position: { x: 420, y: 8 } });
    const tip = await page.locator("#tooltip").innerText();
    expect(tip).toContain("issues_list_full filter");
    expect(tip).toMatch(/of issues_list_full/);
    expect(tip).toContain('drop: ["filter"]');
    await shot("02-issues_list_full.png");
  });

  it("goes back with the breadcrumb and with Escape or Backspace", async () => {
    await page.locator("#breadcrumb > button").first().click();
    expect(await crumbs()).toEqual([expect.stringMatching(/^linear \(/)]);
    expect((await tiles()).length).toBeGreaterThan(100);

    // Keyboard only: Enter zooms into the focused rectangle, Escape and Backspace go up.
    await page.locator('#treemap .tile[data-kind="tool"][data-tool="issues_list_full"]').focus();
    await page.keyboard.press("Enter");
    expect(await crumbs()).toHaveLength(2);
    await page.keyboard.press("Enter"); // into the focused largest branch, filter
    const deeper = await crumbs();
    expect(deeper).toHaveLength(3);
    expect(deeper[2]).toMatch(/^filter \(/);
    await shot("03-issues_list_full-filter.png");
    await page.keyboard.press("Escape");
    expect(await crumbs()).toHaveLength(2);
    await page.keyboard.press("Backspace");
    expect(await crumbs()).toHaveLength(1);
    // Focus returns to the rectangle that was zoomed out of.
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-tool"))).toBe("issues_list_full");
  });

  it("moves between rectangles with the arrow keys, in the direction pressed", async () => {
    const centre = () =>
      page.evaluate(() => {
        const element = document.activeElement!;
        const rect = element.getBoundingClientRect();
        return { node: element.getAttribute("data-node"), tile: element.classList.contains("tile"), x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
      });
    const start = await centre();
    await page.keyboard.press("ArrowRight");
    const right = await centre();
    expect(right.tile).toBe(true);
    expect(right.x).toBeGreaterThan(start.x);
    await page.keyboard.press("ArrowDown");
    const down = await centre();
    expect(down.tile).toBe(true);
    expect(down.y).toBeGreaterThan(right.y);
    await page.keyboard.press("Tab");
    const tabbed = await centre();
    expect(tabbed.tile).toBe(true);
    expect(tabbed.node).not.toBe(down.node);
  });

  it("finds a path by search, highlights it and jumps to it", async () => {
    const query = "filter.assignee";
    const owner = data.tools.find((tool) => tool.branches.some((b) => b.path === query || (b.children ?? []).some((c) => c.path === query)));
    expect(owner, `a tool of the Linear report lists ${query}`).toBeDefined();
    await page.locator("#search").fill(query);
    const result = page.locator(`#search-results button[data-tool="${owner!.name}"][data-path="${query}"]`);
    await result.waitFor();
    expect(await page.locator("#search-count").innerText()).toMatch(/^\d[\d,]* match/);
    // Every path listed contains the query.
    const listed = await page.$$eval("#search-results button[data-path]", (elements) => elements.map((e) => e.getAttribute("data-path") ?? ""));
    expect(listed.length).toBeGreaterThan(0);
    for (const path of listed) expect(path.toLowerCase()).toContain(query);
    // The tools containing a match are highlighted on the map, and only those.
    const highlighted = await page.$$eval("#treemap .tile.match", (elements) => elements.map((e) => e.getAttribute("data-tool")));
    expect(highlighted).toContain(owner!.name);
    expect(highlighted.length).toBeLessThan(10);
    await shot("04-search.png");
    await result.click();
    const trail = await crumbs();
    expect(trail.slice(0, 2)).toEqual([data.pack, expect.stringMatching(new RegExp(`^${owner!.name}( \\(|$)`))]);
    const landedInside = /^assignee \(/.test(trail[trail.length - 1]!);
    const besideIt = (await page.locator(`#treemap .tile.match[data-path="${query}"]`).count()) === 1;
    expect(landedInside || besideIt).toBe(true);
    await shot("05-search-jump.png");
    // A tool's name finds the tool itself and its rows in the tables.
    await page.locator("#search").fill("issues_list");
    await page.locator('#search-results button[data-kind="tool"][data-tool="issues_list"]').waitFor();
    expect(await page.locator('#curated tr.match[data-tool="issues_list"]').count()).toBe(1);
    await page.locator("#search").fill("");
    await page.locator("#search").press("Escape");
  });

  it("finds a type selector by the path paths() lists, offers no drop narrow would refuse, and links a shared block to the cycle cuts", async () => {
    // issues_list_full opens filter into IssueFilter's members; paths() and the README spell them filter.team.
    await page.locator("#search").fill("filter.team");
    const typed = page.locator('#search-results button[data-tool="issues_list_full"][data-alias="filter.team"]');
    await typed.waitFor();
    expect(await typed.getAttribute("data-path")).toBe("IssueFilter.team");
    expect(await typed.innerText()).toContain("= filter.team");
    // Past the per-level limit it is not drawn: the jump lands inside filter and says where it is.
    await typed.click();
    expect((await crumbs()).slice(1, 3)).toEqual([expect.stringMatching(/^issues_list_full/), expect.stringMatching(/^filter/)]);
    expect(await page.locator("#details").innerText()).toContain("issues_list_full IssueFilter.team = filter.team");
    await page.locator("#search").fill("");
    await page.locator("#search").press("Escape");

    // A required argument: the details say narrow refuses its drop, and offer none.
    const required = data.tools.flatMap((tool) => tool.branches.filter((b) => b.dropRefused !== undefined).map((b) => ({ tool: tool.name, path: b.path })))[0];
    expect(required, "a Linear tool with a required argument the report marks").toBeDefined();
    await page.locator("#search").fill(required!.path);
    await page.locator(`#search-results button[data-tool="${required!.tool}"][data-path="${required!.path}"]`).click();
    const details = await page.locator("#details").innerText();
    expect(details).toContain("required, so narrow refuses a drop: Cannot withhold");
    expect(details).not.toContain("drop it with");
    await page.locator("#search").fill("");
    await page.locator("#search").press("Escape");

    // issues_list_full > filter: the grey block of shared definitions names the cuts that free it.
    await backToPack();
    await page.locator('#treemap .tile[data-kind="tool"][data-tool="issues_list_full"]').click();
    await page.locator('#treemap .tile[data-kind="branch"][data-path="filter"]').click();
    const grey = page.locator('#treemap .tile[data-kind="own"]');
    await grey.hover();
    const note = await page.locator("#details").innerText();
    expect(note).toMatch(/freed by cutting the cycles?: drop: \[.*"IssueFilter\.and"/);
    expect(await page.locator('#details a.cycle-link[href="#cycles-section"]').count()).toBe(1);
    await shot("06-shared-cuts.png");
    await backToPack();
  });

  it("marks the branches a curated tool withholds, in a pattern and in words", async () => {
    // issues_list when its withheld branches are listed, else the curated tool that saves the most and lists some.
    const withholds = (tool: ReportData["tools"][number]) =>
      tool.branches.some((b) => b.status === "withheld" || (b.children ?? []).some((c) => c.status === "withheld"));
    const curated = data.tools.filter((t) => t.kind === "curated" && withholds(t));
    const tool = curated.find((t) => t.name === "issues_list") ?? data.curated.map((c) => curated.find((t) => t.name === c.name)).find(Boolean);
    expect(tool, "a curated Linear tool lists a withheld branch").toBeDefined();
    await backToPack();
    await page.locator(`#curated button.tool-link[data-tool="${tool!.name}"]`).first().click();
    expect(await crumbs()).toEqual([data.pack, expect.stringMatching(new RegExp(`^${tool!.name} \\(`))]);
    await shot("06-curated-tool.png");
    let withheld = page.locator('#treemap .tile[data-status="withheld"]');
    if ((await withheld.count()) === 0) {
      // Withheld one level down: the tile holding a withheld cell opens to show it.
      expect(await page.locator('#treemap .cell[data-status="withheld"]').count()).toBeGreaterThan(0);
      await page.locator('#treemap .tile:has(.cell[data-status="withheld"])').first().click();
      withheld = page.locator('#treemap .tile[data-status="withheld"]');
    }
    expect(await withheld.count()).toBeGreaterThan(0);
    const first = withheld.first();
    expect(await first.locator(".label").innerText()).toMatch(/withheld/i);
    expect(await first.getAttribute("aria-label")).toMatch(/withheld/);
    const pattern = await first.evaluate((element) => getComputedStyle(element).backgroundImage);
    expect(pattern).toContain("repeating-linear-gradient");
    await page.mouse.move(0, 0);
    await shot("07-curated-withheld.png");
    await first.hover({ position: { x: 10, y: 8 } });
    expect(await page.locator("#tooltip").innerText()).toMatch(/WITHHELD by/);
    await shot("08-curated-withheld-hover.png");
  });

  it("draws the tables: cycles, shared definitions, curated twins", async () => {
    await backToPack();
    expect(await page.locator("#cycles tbody tr").count()).toBe(data.cycles.length);
    expect(await page.locator("#shared tbody tr").count()).toBe(data.sharedTypes.length);
    expect(await page.locator("#curated tbody tr").count()).toBe(data.curated.length);
    await shot("09-full-page.png", true);
  });

  it("attempted no network request and logged no error", () => {
    expect(refused).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});
