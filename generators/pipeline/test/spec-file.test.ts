/**
 * The spec file as the pipeline reads it: what is wrong with it is said as what it is, with
 * a code (a folder where the spec was is not "missing").
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it, vi } from "vitest";
import { buildPack } from "../src/build-pack.ts";

const dir = mkdtempSync(join(tmpdir(), "sluice-spec-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it.each([
  ["missing", "gone.json", { code: "FILE_NOT_FOUND", message: expect.stringMatching(/^the spec of pack p does not exist \(.*gone\.json\)\.$/) }],
  ["under a file", "file.json/inner.json", { code: "FILE_NOT_FOUND" }],
  ["a directory", "folder.json", { code: "SPEC_INVALID", message: expect.stringMatching(/^the spec of pack p is a directory, not a spec file \(.*folder\.json\); name the OpenAPI or GraphQL file inside it\.$/) }],
])("a spec %s", async (_, spec, want) => {
  mkdirSync(join(dir, "folder.json"), { recursive: true });
  rmSync(join(dir, "file.json"), { force: true });
  await import("node:fs").then((fs) => fs.writeFileSync(join(dir, "file.json"), "{}"));
  await expect(buildPack({ name: "p", spec: join(dir, spec), out: join(dir, "out"), regenerate: "" }, "0.0.0")).rejects.toMatchObject(want);
});

it.each([
  ["detected", undefined],
  ["given", "openapi" as const],
])("a spec whose kind is %s is decoded once, for the kind and the parse alike; a byte-order mark is dropped", async (_, kind) => {
  const spec = { openapi: "3.0.3", info: { title: "t", version: "1" }, servers: [{ url: "https://api.example.test" }], paths: { "/things": { get: { operationId: "listThings", description: "Caf\u00e9 \u2014 things", responses: { "200": { description: "ok" } } } } } };
  const bytes = Buffer.from(`\uFEFF${JSON.stringify(spec)}`, "utf8");
  writeFileSync(join(dir, "bom.json"), bytes);
  const decode = vi.spyOn(TextDecoder.prototype, "decode");
  try {
    const pack = await buildPack({ name: "p", spec: join(dir, "bom.json"), out: join(dir, "out"), regenerate: "", ...(kind === undefined ? {} : { kind }) }, "0.0.0");
    expect(pack.ir.tools.map((tool) => [tool.name, tool.description])).toEqual([["list_things", "Caf\u00e9 \u2014 things"]]);
    expect(decode.mock.calls.filter(([input]) => ArrayBuffer.isView(input) && input.byteLength === bytes.byteLength)).toHaveLength(1);
  } finally {
    decode.mockRestore();
  }
});
