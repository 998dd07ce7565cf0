/**
 * An optional request body keeps its required members (issue 22). Where
 * `requestBody.required` is absent the call may send no body at all, but a body that is sent
 * is the schema's object, required members included. Flattened into arguments, that is
 * `dependentRequired` on the body's members. Held on Adyen Checkout 3.1 (vendored in
 * test/fixtures/outside), where every body is optional, and on a minimal fixture.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { buildOpenAPIPackIR, loadDocument } from "@sluice/generator-openapi";
import { definePack, egressMap, isSluiceError, projectionFloor, type CallContext, type PackDefinition, type Tool } from "@sluice/core";
import { withoutGuard } from "@sluice/core/guards";
import { Ajv2020 } from "ajv/dist/2020.js";
import { LONG, sweep } from "./support/tier.ts";

const adyen = (() => {
  const file = fileURLToPath(new URL("./fixtures/outside/adyen-checkout.yaml", import.meta.url));
  const ir = buildOpenAPIPackIR(loadDocument(readFileSync(file), "adyen-checkout.yaml"), { name: "adyen", file: "adyen-checkout.yaml", sha256: "0".repeat(64) });
  return { ir, pack: definePack(ir as unknown as PackDefinition) };
})();
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const ctx: CallContext = { baseUrl: "http://127.0.0.1:9", credentials: { ApiKeyAuth: { token: "test-key" }, BasicAuth: { username: "u", password: "p" } } };
const refunds = adyen.pack.tool("post_payments_payment_psp_reference_refunds") as Tool<object>;
const psp = { paymentPspReference: "QFQTPCQ8HXSKGK82" };
const issuesOf = (tool: Tool<object>, args: unknown) => tool.check(args).map((issue) => [issue.code, issue.path]);

async function codeOf(fn: () => unknown): Promise<string | undefined> {
  try {
    await fn();
  } catch (error) {
    if (isSluiceError(error)) return error.code;
    throw error;
  }
  return undefined;
}

describe("Adyen Checkout: optional bodies keep their required members", () => {
  it("no operation accepts a body that lacks a member its schema requires", () => {
    // Before: 13 of Adyen's optional-body operations took `{ reference }` alone. Each body
    // member alone must now bring in every member the spec's schema requires (read there).
    const document = loadDocument(readFileSync(fileURLToPath(new URL("./fixtures/outside/adyen-checkout.yaml", import.meta.url))), "adyen-checkout.yaml") as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const schemaOf = (ref: string) => document.components.schemas[ref.replace("#/components/schemas/", "")];
    const lacking: string[] = [];
    let checked = 0;
    // The quick tier: a fixed sample (one to five required members); the long tier (tier.ts) takes every operation.
    const quick = new Set(["post_cancels", "post_payment_methods", "post_payments_payment_psp_reference_refunds", "post_orders", "post_payments_details"]);
    for (const ir of sweep(adyen.ir.tools, (tool) => quick.has(tool.name))) {
      if (ir.binding.kind !== "http" || ir.binding.body?.fields === undefined) continue;
      const operation = document.paths[ir.binding.path][ir.binding.method.toLowerCase()];
      const schema = schemaOf(operation.requestBody.content["application/json"].schema.$ref);
      const spec = new Set<string>(schema.required ?? []);
      if (operation.requestBody.required === true || spec.size === 0) continue;
      const tool = adyen.pack.tool(ir.name) as Tool<object>;
      const argOf = new Map(Object.entries(ir.binding.body.fields).map(([arg, member]) => [member, arg]));
      const base = Object.fromEntries(ir.parameters.required.map((arg) => [arg, "x"]));
      // The schema screening compiles, checked with Ajv alone: a member's own type error must not hide the rule.
      const validate = ajv.compile(tool.inputSchema);
      const refusedForLack = (args: Record<string, unknown>) => !validate(args) && (validate.errors ?? []).some((error) => error.keyword === "dependentRequired");
      for (const [arg, member] of Object.entries(ir.binding.body.fields)) {
        const all = Object.fromEntries([...spec].map((name) => [argOf.get(name)!, "x"]));
        checked++;
        if (refusedForLack({ ...base, ...all, [arg]: "x" })) lacking.push(`${ir.name}: ${member} refused with every required member`);
        for (const name of spec) {
          if (name === member) continue;
          const { [argOf.get(name)!]: _left, ...rest } = all;
          if (!refusedForLack({ ...base, ...rest, [arg]: "x" })) lacking.push(`${ir.name}: ${member} accepted without ${name}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(LONG ? 300 : 20);
    expect(lacking).toEqual([]);
  });

  it("a refund with no body is valid and sends none; with its required members it is sent as given", async () => {
    expect(refunds.check(psp)).toEqual([]);
    expect((await refunds.request(psp, ctx)).body).toBeUndefined();
    const body = { amount: { currency: "EUR", value: 500 }, merchantAccount: "YOUR_MERCHANT_ACCOUNT", reference: "YOUR_UNIQUE_REFERENCE" };
    const request = await refunds.request({ ...psp, ...body }, ctx);
    expect(JSON.parse(String(request.body))).toEqual(body);
  });

  it("a refund with only a reference is refused, naming what it lacks", async () => {
    // A member names the first required one; each required one names the others.
    expect(issuesOf(refunds, { ...psp, reference: "r" })).toEqual([["dependentRequired", "/amount"]]);
    expect(issuesOf(refunds, { ...psp, reference: "r", amount: { currency: "EUR", value: 1 } })).toEqual([["dependentRequired", "/merchantAccount"]]);
    expect(refunds.check({ ...psp, reference: "r" })[0]!.message).toBe("is required when reference is given (a request body that is sent must carry it)");
    expect(await codeOf(() => refunds.request({ ...psp, reference: "r" }, ctx))).toBe("INVALID_ARGUMENTS");
  });

  it("the egress map still lists every member (requiredness is not visibility)", () => {
    const entry = egressMap([refunds])[0]!;
    expect(entry.visible.map((path) => path.segments.join("."))).toEqual(expect.arrayContaining(["amount", "merchantAccount", "reference", "splits"]));
  });
});

describe("projections of an optional body's members", () => {
  it("dropping an optional member is fine; the rule for it goes with it", () => {
    const narrowed = refunds.derived({ name: "refund_no_splits", drop: ["splits", "reference"] });
    expect(narrowed.inputSchema.dependentRequired).toEqual({ amount: ["merchantAccount"], merchantAccount: ["amount"] });
    expect(narrowed.check(psp)).toEqual([]);
    expect(narrowed.check({ ...psp, amount: { currency: "EUR", value: 1 } }).map((issue) => issue.path)).toEqual(["/merchantAccount"]);
  });

  it("withholding a member a sent body requires is REQUIRED_DROPPED, unless every member that needs it goes too", async () => {
    expect(await codeOf(() => refunds.derived({ name: "x", drop: ["merchantAccount"] }))).toBe("REQUIRED_DROPPED");
    expect(await codeOf(() => refunds.derived({ name: "x", keep: ["paymentPspReference", "reference"] }))).toBe("REQUIRED_DROPPED");
    const noBody = refunds.derived({ name: "refund_without_body", drop: ["amount", "merchantAccount", "reference", "splits"] });
    expect(noBody.inputSchema.dependentRequired).toBeUndefined();
    expect((await noBody.request(psp, ctx)).body).toBeUndefined();
  });

  it("a pinned member is always sent, so what it needs becomes required", async () => {
    const pinned = refunds.derived({ name: "refund_for_account", pin: { merchantAccount: "ACME" } });
    expect(pinned.inputSchema.required).toEqual(["paymentPspReference", "amount"]);
    expect(issuesOf(pinned, psp)).toEqual([["required", "/amount"]]);
    const request = await pinned.request({ ...psp, amount: { currency: "EUR", value: 5 } }, ctx);
    expect(JSON.parse(String(request.body))).toEqual({ amount: { currency: "EUR", value: 5 }, merchantAccount: "ACME" });
  });

  it("the pinned projection holds on its own, without the parent check behind it", async () => {
    await withoutGuard("parentCheck", async () => {
      const pinned = refunds.derived({ name: "refund_for_account", pin: { merchantAccount: "ACME" } });
      expect(await codeOf(() => pinned.request(psp, ctx))).toBe("INVALID_ARGUMENTS");
    });
  });

  it("the smallest projection keeps what a sent body requires", async () => {
    const floor = await projectionFloor(refunds, {});
    expect(floor.drop).not.toEqual(expect.arrayContaining(["merchantAccount"]));
    expect(floor.drop).not.toEqual(expect.arrayContaining(["amount"]));
    const tool = refunds.derived({ name: "floor", drop: floor.drop });
    expect(tool.check({ ...psp, merchantAccount: "m" }).map((issue) => issue.path)).toEqual(["/amount"]);
  });
});
