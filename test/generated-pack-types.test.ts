/**
 * The generated packs stay typed now that their data is JSON text the checker does not read
 * (generators/emit/src/json-text.ts): each tool export is a `Tool<Args>` of its generated
 * interface, and a pin of the wrong type or of an unknown argument is a compile error. The
 * `@ts-expect-error` lines are the test: the repository's `tsc` (the first step of
 * `pnpm test`) fails on any that no longer finds its error, which is what a pack whose tools
 * widened to `Tool<any>` or `Tool<object>` would do. The `it`s check that the same values
 * behave at run time as the types say.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import type { DeriveOptions, Tool } from "@sluice/core";
import { generatedTools as linear, type LinearTypes } from "@sluice/pack-linear";
import { generatedTools as stripe, type StripeTypes } from "@sluice/pack-stripe";
import { generatedTools as github, type GitHubRestTypes as GithubTypes } from "@sluice/pack-github-rest";

type ArgsOf<T> = T extends Tool<infer A> ? A : never;

/** Never called: the compiler reads it, the test runner does not run it. */
function compileOnly(): void {
  // OpenAPI (Stripe): a number argument.
  stripe.getCustomers.derived({ name: "ten_customers", pin: { limit: 10 } });
  // @ts-expect-error limit is a number
  stripe.getCustomers.derived({ name: "wrong", pin: { limit: "ten" } });
  // @ts-expect-error getCustomers has no argument limitt
  stripe.getCustomers.derived({ name: "wrong", pin: { limitt: 10 } });
  // @ts-expect-error created is an object of bounds or a number, not a string
  stripe.getCustomers.derived({ name: "wrong", pin: { created: "yesterday" } });

  // OpenAPI (GitHub REST): an enum argument.
  github.reposListForOrg.derived({ name: "public_repos", pin: { type: "public" } });
  // @ts-expect-error "everything" is not one of the enum's values
  github.reposListForOrg.derived({ name: "wrong", pin: { type: "everything" } });

  // GraphQL (Linear): a boolean variable and an input object.
  linear.issuesList.derived({ name: "with_archived", pin: { includeArchived: true } });
  // @ts-expect-error includeArchived is a boolean
  linear.issuesList.derived({ name: "wrong", pin: { includeArchived: "no" } });
  // @ts-expect-error IssueFilter has no member nope
  linear.issuesList.derived({ name: "wrong", pin: { filter: { nope: {} } } });

  // Projections keep the argument type.
  const derived = stripe.getCustomers.derived({ name: "narrow", drop: ["created"] });
  // @ts-expect-error still a number after a derive
  derived.derived({ name: "wrong", pin: { limit: "ten" } });

  // call, request and invoke take the tool's arguments, not any record.
  void github.reposListForOrg.request({ org: "acme", type: "public" });
  // @ts-expect-error org is a string
  void github.reposListForOrg.request({ org: 1 });
  // @ts-expect-error reposListForOrg has no argument orgg
  void github.reposListForOrg.call({ orgg: "acme" });
  // @ts-expect-error org is required
  void github.reposListForOrg.invoke({});
  // A pinned argument leaves the type as it leaves the schema: the derived tool's call does
  // not ask for it, and sending it is a compile error (and EGRESS_DENIED at run time).
  const acme = github.reposListForOrg.derived({ name: "acme_repos", pin: { org: "acme" } });
  void acme.call({ type: "public" });
  // @ts-expect-error org is pinned
  void acme.call({ org: "other" });
  // Options built elsewhere (every pin optional in their type) take nothing out of the type.
  const built: DeriveOptions<GithubTypes.ReposListForOrgArgs> = { name: "built", pin: { type: "public" } };
  void github.reposListForOrg.derived(built).call({ org: "acme" });
  // @ts-expect-error org is still a string
  void github.reposListForOrg.derived(built).call({ org: 1 });
}

describe("generated tool exports are typed by their generated interfaces", () => {
  it("each export's Args is its interface, not a wider type", () => {
    expectTypeOf<ArgsOf<typeof stripe.getCustomers>>().toEqualTypeOf<StripeTypes.GetCustomersArgs>();
    expectTypeOf<ArgsOf<typeof linear.issuesList>>().toEqualTypeOf<LinearTypes.IssuesListArgs>();
    expectTypeOf<StripeTypes.GetCustomersArgs["limit"]>().toEqualTypeOf<number | undefined>();
    expect(typeof compileOnly).toBe("function");
  });

  it("a pin the types accept is accepted at run time, one they refuse is refused (the same values)", () => {
    expect(stripe.getCustomers.derived({ name: "ten_customers", pin: { limit: 10 } }).pins).toEqual({ limit: 10 });
    expect(() => stripe.getCustomers.derived({ name: "wrong", pin: { limit: "ten" } as never })).toThrow(expect.objectContaining({ code: expect.any(String) }));
    expect(() => github.reposListForOrg.derived({ name: "wrong", pin: { type: "everything" } as never })).toThrow(expect.objectContaining({ code: expect.any(String) }));
  });

  it("arguments the types accept build a request, ones they refuse are refused at run time (the same values)", async () => {
    const ctx = { baseUrl: "http://127.0.0.1:9" };
    expect((await github.reposListForOrg.request({ org: "acme", type: "public" }, ctx)).url).toBe("http://127.0.0.1:9/orgs/acme/repos?type=public");
    await expect(github.reposListForOrg.request({ org: 1 } as never, ctx)).rejects.toMatchObject({ code: "INVALID_ARGUMENTS" });
    await expect(github.reposListForOrg.request({} as never, ctx)).rejects.toMatchObject({ code: "INVALID_ARGUMENTS" });
    const acme = github.reposListForOrg.derived({ name: "acme_repos", pin: { org: "acme" } });
    expect((await acme.request({ type: "public" }, ctx)).url).toBe("http://127.0.0.1:9/orgs/acme/repos?type=public");
    await expect(acme.request({ org: "other" } as never, ctx)).rejects.toMatchObject({ code: "EGRESS_DENIED" });
  });
});
