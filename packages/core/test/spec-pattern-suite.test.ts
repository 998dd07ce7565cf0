/**
 * The JSON-Schema-Test-Suite's pattern files (draft 2020-12 and draft 4: pattern,
 * patternProperties, propertyNames, plus every other file whose schemas carry a pattern)
 * through sluice's validator, which now runs patterns on RE2JS: every case agrees with the
 * suite, so the linear-time engine changed no verdict the suite pins. Where Ajv itself
 * deviates from the suite (listed, with the reason), the verdict is the one Ajv gives with
 * V8's RegExp, i.e. the engine is not the cause.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { withoutGuard } from "@sluice/core/guards";
import { schemaValidator } from "../src/projection/pin-validation.ts";

/** Ajv 8 does not collect annotations from an `if` that failed, which unevaluatedProperties should see. */
const AJV_DEVIATIONS = new Set(["unevaluatedProperties can see annotations from if without then and else"]);

const SUITE = new URL("../../../test/fixtures/json-schema-test-suite/", import.meta.url);
interface Group { description: string; schema: unknown; tests: Array<{ description: string; data: unknown; valid: boolean }> }

const withPattern = (schema: unknown) => /"(pattern|patternProperties)"/.test(JSON.stringify(schema));

for (const draft of ["draft2020-12", "draft4"]) {
  describe(draft, () => {
    const dir = new URL(`${draft}/`, SUITE);
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".json")).sort()) {
      const groups = (JSON.parse(readFileSync(new URL(file, dir), "utf8")) as Group[]).filter((g) => withPattern(g.schema));
      if (groups.length === 0) continue;
      it.each(groups.map((g) => [g.description, g] as const))(`${file}: %s`, async (_name, group) => {
        // draft4 schemas read the same under 2020-12 for these keywords; drop $schema so Ajv2020 takes them.
        const { $schema: _ignored, ...schema } = group.schema as Record<string, unknown>;
        const validate = schemaValidator().compile(schema);
        const backtracking = AJV_DEVIATIONS.has(group.description) ? await withoutGuard("linearPatterns", () => schemaValidator().compile(structuredClone(schema))) : undefined;
        for (const test of group.tests) {
          const want = backtracking === undefined ? test.valid : backtracking(test.data);
          expect([test.description, validate(test.data)]).toEqual([test.description, want]);
        }
      });
    }
  });
}
