/**
 * A boolean named like a secret (`is_secret`, `isSecret`, `secret: Boolean`) says whether,
 * never what: generate does not call it a secret nor advise making it a credential. A
 * string of the same family still is one. Both sources, each from a small spec written here.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { isBooleanSchema } from "@sluice/emit";
import { buildPack } from "../src/build-pack.ts";

const dir = mkdtempSync(join(tmpdir(), "sluice-secret-flags-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const secretWarnings = (warnings: readonly string[]) => warnings.filter((warning) => warning.includes("looks like a secret")).map((warning) => /^argument "([^"]+)"/.exec(warning)?.[1]);

it("OpenAPI: boolean flags in the query and the body are not secrets; the string beside them is", async () => {
  const spec = {
    openapi: "3.1.0",
    info: { title: "vault", version: "1" },
    servers: [{ url: "https://vault.example.com" }],
    paths: {
      "/variables": {
        post: {
          operationId: "createVariable",
          parameters: [
            { name: "is_secret", in: "query", schema: { type: "boolean" } },
            { name: "only_secret", in: "query", schema: { type: ["boolean", "null"] } },
          ],
          requestBody: {
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  properties: { name: { type: "string" }, isSecret: { anyOf: [{ type: "boolean" }, { type: "null" }] }, hasPassword: { enum: [true, false] }, client_secret: { type: "string" } },
                },
              },
            },
          },
          responses: { "201": { description: "created" } },
        },
      },
    },
  };
  writeFileSync(join(dir, "vault.json"), JSON.stringify(spec));
  const { report } = await buildPack({ name: "vault", spec: join(dir, "vault.json"), out: join(dir, "out"), regenerate: "" }, "0.0.0");
  expect(secretWarnings(report.warnings)).toEqual(["client_secret"]);
});

it("GraphQL: Boolean arguments and input members named like secrets are not secrets; a String password is", async () => {
  const sdl = `
type Query { variable(id: ID!): Variable }
type Variable { id: ID! name: String! }
input VariableInput { name: String! isSecret: Boolean hasPassword: Boolean! password: String }
type Mutation { createVariable(input: VariableInput!, secret: Boolean, apiKey: String): Variable }
`;
  writeFileSync(join(dir, "vault.graphql"), sdl);
  const { report } = await buildPack({ name: "vault", spec: join(dir, "vault.graphql"), out: join(dir, "out"), regenerate: "" }, "0.0.0");
  expect(secretWarnings(report.warnings).sort()).toEqual(["VariableInput.password", "apiKey"]);
});

it.each([
  [{ type: "boolean" }, true],
  [{ type: ["null", "boolean"] }, true],
  [{ const: false }, true],
  [{ enum: [true, null] }, true],
  [{ oneOf: [{ type: "boolean" }, { type: "null" }] }, true],
  [{ type: "null" }, false],
  [{ enum: [null] }, false],
  [{ type: ["boolean", "string"] }, false],
  [{ anyOf: [{ type: "boolean" }, { type: "string" }] }, false],
  [{ enum: ["true", "false"] }, false],
  [{}, false],
])("isBooleanSchema(%j) is %s", (schema, want) => expect(isBooleanSchema(schema)).toBe(want));
