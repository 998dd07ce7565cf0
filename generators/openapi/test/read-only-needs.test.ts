/**
 * A read-only member is offered (optional) where the request needs it and withheld elsewhere
 * (docs/openapi-read-only.md, rules 1 and 5 to 7). Each shape is a small spec written for the
 * rule; each test also holds that screening refuses what stays withheld.
 */
import { describe, expect, it } from "vitest";
import { definePack, type Tool } from "@sluice/core";
import { build, oas30 } from "./build.ts";

const CONTEXT = { credentials: (() => ({ token: "t" })) as never, baseUrl: "http://127.0.0.1:9" };

function tool(document: unknown, name: string): Tool {
  const found = definePack(build(document)).tools.find((t) => t.name === name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
}

function body(request: { body?: unknown }): unknown {
  return JSON.parse(String(request.body));
}

const json = (schema: unknown, extra: Record<string, unknown> = {}) => ({ required: true, content: { "application/json": { schema, ...extra } } });
const ok = { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Label" } } } } };

/** Labels on a document: added by name or by reference, removed by reference; the shared `Label` is a response's shape too. */
const labels = oas30(
  {
    "/docs/{doc}/labels": {
      post: {
        operationId: "relabel",
        parameters: [{ name: "doc", in: "path", required: true, schema: { type: "string" } }],
        requestBody: json({
          type: "object",
          properties: {
            attach: { type: "array", items: { type: "object", required: ["kind"], properties: { kind: { type: "string", enum: ["name", "ref"] }, name: { type: "string" }, id: { type: "string", readOnly: true } } } },
            detach: { type: "array", items: { type: "object", required: ["kind", "id"], properties: { kind: { type: "string", enum: ["ref"] }, id: { type: "string", readOnly: true } } } },
            owner: { $ref: "#/components/schemas/OwnerRef" },
            created: { type: "string", readOnly: true },
          },
        }),
        responses: ok,
      },
    },
    "/labels": {
      post: {
        operationId: "createLabel",
        requestBody: json({ $ref: "#/components/schemas/LabelWithColour" }),
        responses: ok,
      },
    },
    "/tags/{tag}": {
      get: { operationId: "getTag", parameters: [{ name: "tag", in: "path", required: true, schema: { type: "string" } }], responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Tag" } } } } } },
      put: {
        operationId: "replaceTag",
        parameters: [{ name: "tag", in: "path", required: true, schema: { type: "string" } }],
        requestBody: json({ $ref: "#/components/schemas/Tag" }),
        responses: { "200": { description: "ok" } },
      },
    },
    "/labels/{label}": {
      put: {
        operationId: "renameLabel",
        parameters: [{ name: "label", in: "path", required: true, schema: { type: "string" } }],
        requestBody: json({ $ref: "#/components/schemas/Label" }, { example: { name: "urgent", revision: 7 } }),
        responses: ok,
      },
    },
  },
  {
    components: {
      schemas: {
        // A response's shape reused for a request: `id` and `created_at` are required of responses.
        Tag: { type: "object", required: ["id", "title", "created_at"], properties: { id: { type: "string", readOnly: true }, title: { type: "string" }, created_at: { type: "string", readOnly: true } } },
        // Returned by responses too, but composed below by a schema written for a create request.
        Label: {
          type: "object",
          required: ["id", "name", "created_at"],
          properties: { id: { type: "string", readOnly: true }, name: { type: "string" }, revision: { type: "integer", readOnly: true }, created_at: { type: "string", readOnly: true } },
        },
        // Composed: the composer requires the part's read-only members (PagerDuty's custom-field shape).
        LabelWithColour: { allOf: [{ $ref: "#/components/schemas/Label" }, { type: "object", properties: { colour: { type: "string" } } }], required: ["id", "created_at", "name", "colour"] },
        // Reference-shaped: an identifier and a type tag, nothing writable.
        OwnerRef: { type: "object", properties: { id: { type: "string", readOnly: true }, type: { type: "string", enum: ["user"] }, self: { type: "string", readOnly: true } } },
      },
    },
  },
);

describe("read-only members the request needs", () => {
  it("offers an identifier of an array item, required where a request-only schema requires it, optional where not", async () => {
    const relabel = tool(labels, "relabel");
    const sent = await relabel.request({ doc: "d", attach: [{ kind: "ref", id: "L1" }, { kind: "name", name: "x" }], detach: [{ kind: "ref", id: "L2" }] }, CONTEXT);
    expect(body(sent)).toEqual({ attach: [{ kind: "ref", id: "L1" }, { kind: "name", name: "x" }], detach: [{ kind: "ref", id: "L2" }] });
    // Offered, never required: a detach item without its id is the API's to refuse.
    await expect(relabel.request({ doc: "d", detach: [{ kind: "ref" }] }, CONTEXT)).resolves.toMatchObject({ method: "POST" });
    const withheld = relabel.withheld.map((w) => w.path);
    expect(withheld).not.toContain("attach.id");
    expect(withheld).not.toContain("detach.id");
    // Not an identifier, not in an item, required nowhere: withheld and refused.
    expect(relabel.withheld).toContainEqual({ path: "created", reason: "read_only" });
    await expect(relabel.request({ doc: "d", created: "2020" }, CONTEXT)).rejects.toMatchObject({ code: "EGRESS_DENIED" });
  });

  it("offers the identifier of a reference-shaped object, and withholds its other read-only members", async () => {
    const relabel = tool(labels, "relabel");
    await expect(relabel.request({ doc: "d", owner: { id: "U1", type: "user" } }, CONTEXT)).resolves.toMatchObject({ method: "POST" });
    expect(relabel.withheld).toContainEqual({ path: "OwnerRef.self", reason: "read_only" });
    await expect(relabel.request({ doc: "d", owner: { id: "U1", self: "https://x" } }, CONTEXT)).rejects.toMatchObject({ code: "EGRESS_DENIED" });
  });

  it("a schema responses share: its required read-only members are neither required nor offered", async () => {
    const replace = tool(labels, "replace_tag");
    expect(replace.inputSchema.required).toEqual(["tag", "title"]);
    await expect(replace.request({ tag: "t", title: "n" }, CONTEXT)).resolves.toMatchObject({ method: "PUT" });
    for (const member of ["id", "created_at"]) {
      expect(replace.withheld).toContainEqual({ path: member, reason: "read_only" });
      await expect(replace.request({ tag: "t", title: "n", [member]: "x" }, CONTEXT)).rejects.toMatchObject({ code: "EGRESS_DENIED" });
    }
  });

  it("a request-only composer that requires its part's read-only members offers them, optional: its minimal call is taken", async () => {
    const create = tool(labels, "create_label");
    const minimal = { body: { name: "n", colour: "red" } };
    await expect(create.request(minimal, CONTEXT)).resolves.toMatchObject({ method: "POST" });
    await expect(create.request({ body: { ...minimal.body, id: "L1", created_at: "2020" } }, CONTEXT)).resolves.toMatchObject({ method: "POST" });
    expect(create.withheld.map((w) => w.path)).not.toContain("Label.id");
  });

  it("offers a member the spec's own request example sends, and only that one", async () => {
    const rename = tool(labels, "rename_label");
    const sent = await rename.request({ label: "l", name: "urgent", revision: 7 }, CONTEXT);
    expect(body(sent)).toEqual({ name: "urgent", revision: 7 });
    // The same `Label` is reached by other tools: the example's evidence is the document's, so they offer it too.
    expect(tool(labels, "create_label").withheld.map((w) => w.path)).not.toContain("Label.revision");
  });

  it("an inline request schema that requires a read-only member offers it, optional", async () => {
    const document = oas30({
      "/runs": {
        post: {
          operationId: "startRun",
          requestBody: json({ type: "object", required: ["token", "plan"], properties: { token: { type: "string", readOnly: true }, plan: { type: "string" }, started: { type: "string", readOnly: true } } }),
          responses: { "200": { description: "ok" } },
        },
      },
    });
    const start = tool(document, "start_run");
    expect(start.inputSchema.required).toEqual(["plan"]);
    await expect(start.request({ plan: "p", token: "t1" }, CONTEXT)).resolves.toMatchObject({ method: "POST" });
    await expect(start.request({ plan: "p", started: "now" }, CONTEXT)).rejects.toMatchObject({ code: "EGRESS_DENIED" });
  });
});
