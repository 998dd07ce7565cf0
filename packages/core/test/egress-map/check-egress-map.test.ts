/**
 * The egress map comparison on hand-made maps: what the model can see and send is
 * compared, not lines. Each case is the smallest map that shows one rule.
 */
import { describe, expect, it } from "vitest";
import { checkEgressMap, isSluiceError } from "@sluice/core";
import { withoutGuard } from "@sluice/core/guards";

const HEADER = "# sluice egress map (hand-made for a test)\n";
const map = (...blocks: string[]) => HEADER + blocks.map((block) => `\n${block.trim()}\n`).join("");
const subjects = (committed: string, current: string) => {
  const check = checkEgressMap(committed, current);
  return { widened: check.widened.map((d) => d.subject), narrowed: check.narrowed.map((d) => d.subject), changed: check.changed.map((d) => d.subject) };
};
const NONE = { widened: [], narrowed: [], changed: [] };

// Amount is used twice by each of two tools: listed once, at the end.
const SHARED_AMOUNT = map(
  `tool create_payment
  endpoint POST /payments
  + amount: Amount
  + fee: Amount
  + reference: string`,
  `tool refund
  endpoint POST /refunds
  + amount: Amount
  + fee: Amount`,
  `type Amount
  + Amount.currency: string
  + Amount.value: integer`,
);

describe("a type listed in a section or inline is the same paths", () => {
  it("a type that moves from the shared section into a tool is no change; only what was dropped is named", () => {
    // refund without fee: Amount used once there, so listed inline.
    const refundWithoutFee = map(
      `tool create_payment
  endpoint POST /payments
  + amount: Amount
  + fee: Amount
  + reference: string`,
      `tool refund
  endpoint POST /refunds
  + amount: Amount
  + amount.currency: string
  + amount.value: integer`,
      `type Amount
  + Amount.currency: string
  + Amount.value: integer`,
    );
    expect(subjects(SHARED_AMOUNT, refundWithoutFee)).toEqual({ ...NONE, narrowed: ["tool refund: fee: Amount"] });
    expect(subjects(refundWithoutFee, SHARED_AMOUNT)).toEqual({ ...NONE, widened: ["tool refund: fee: Amount"] });
    // create_payment without Amount.value: the shapes differ, so each tool lists Amount inside it.
    const narrowedInOne = map(
      `tool create_payment
  endpoint POST /payments
  + amount: Amount
  + fee: Amount
  + reference: string
  type Amount
    + Amount.currency: string`,
      `tool refund
  endpoint POST /refunds
  + amount: Amount
  + fee: Amount
  type Amount
    + Amount.currency: string
    + Amount.value: integer`,
    );
    expect(subjects(SHARED_AMOUNT, narrowedInOne)).toEqual({ ...NONE, narrowed: ["tool create_payment: Amount.value: integer"] });
    expect(subjects(narrowedInOne, SHARED_AMOUNT)).toEqual({ ...NONE, widened: ["tool create_payment: Amount.value: integer"] });
  });

  it("a type used once more becomes a section: no change; a member added to it is named where it is reached", () => {
    const once = map(
      `tool create_payment
  endpoint POST /payments
  + amount: Amount
  + amount.currency: string
  + amount.value: integer
  + reference: string`,
    );
    const twiceWithTax = map(
      `tool create_payment
  endpoint POST /payments
  + amount: Amount
  + reference: string
  + tax: Amount`,
      `type Amount
  + Amount.currency: string
  + Amount.tax_code: string
  + Amount.value: integer`,
    );
    expect(subjects(once, twiceWithTax).widened).toEqual(["tool create_payment: Amount.tax_code: string", "tool create_payment: tax: Amount"]);
    expect(checkEgressMap(once, twiceWithTax).widened.map((d) => d.kind)).toEqual(["member", "member"]);
  });

  it("a type narrowed inline in one tool does not borrow another tool's wider section (guard egressSectionScope)", async () => {
    // refund dropped amount.value; create_payment still lists Amount, whole, in the shared section.
    const refundNarrowed = map(
      `tool create_payment
  endpoint POST /payments
  + amount: Amount
  + fee: Amount
  + reference: string`,
      `tool refund
  endpoint POST /refunds
  + amount: Amount
  + amount.currency: string`,
      `type Amount
  + Amount.currency: string
  + Amount.value: integer`,
    );
    // Undoing the narrowing gives refund amount.value back: that is a widening of refund.
    const undone = refundNarrowed.replace("  + amount.currency: string\n", "  + amount.currency: string\n  + amount.value: integer\n");
    expect(subjects(refundNarrowed, undone).widened).toEqual(["tool refund: amount.value: integer"]);
    expect(subjects(refundNarrowed, undone).narrowed).toEqual([]);
    await withoutGuard("egressSectionScope", () => {
      // Read as if refund used the shared section, amount.value was visible all along: the widening is missed.
      expect(subjects(refundNarrowed, undone).widened).toEqual([]);
    });
  });
});

describe("recursion, unions, enums, open keys, tools", () => {
  const FILTER = map(
    `tool issues
  endpoint POST graphql query issues
  + filter: IssueFilter
  + first: integer`,
    `type IssueFilter (recursive)
  + IssueFilter.and: IssueFilter[]
  + IssueFilter.title: string`,
  );

  it("a recursive type is compared once, by type: a new member is named by type, moving it is no change", () => {
    const moved = FILTER.replace(/\ntype IssueFilter \(recursive\)\n {2}\+ IssueFilter\.and: IssueFilter\[\]\n {2}\+ IssueFilter\.title: string\n/, "").replace(
      "  + first: integer\n",
      "  + first: integer\n  type IssueFilter (recursive)\n    + IssueFilter.and: IssueFilter[]\n    + IssueFilter.title: string\n",
    );
    expect(moved).not.toBe(FILTER);
    expect(subjects(FILTER, moved)).toEqual(NONE);
    const withOr = FILTER.replace("  + IssueFilter.title: string\n", "  + IssueFilter.or: IssueFilter[]\n  + IssueFilter.title: string\n");
    expect(subjects(FILTER, withOr)).toEqual({ ...NONE, widened: ["tool issues: IssueFilter.or: IssueFilter[]"] });
    expect(subjects(withOr, FILTER)).toEqual({ ...NONE, narrowed: ["tool issues: IssueFilter.or: IssueFilter[]"] });
  });

  it("an enum value added is named, one removed is a narrowing; in a section or inline alike (guard egressTypeChanges)", async () => {
    const inline = map(`tool list_issues
  endpoint GET /issues
  + state: State (enum: open | closed)`);
    const sectioned = map(
      `tool list_issues
  endpoint GET /issues
  + sort_state: State
  + state: State`,
      `type State: enum: open | closed`,
    );
    const grown = sectioned.replace("type State: enum: open | closed", "type State: enum: open | closed | merged");
    expect(subjects(inline, inline.replace("closed)", "closed | merged)")).widened).toEqual(["tool list_issues: state: enum value merged"]);
    expect(subjects(sectioned, grown).widened).toEqual(["tool list_issues: State: enum value merged"]);
    expect(subjects(grown, sectioned)).toEqual({ ...NONE, narrowed: ["tool list_issues: State: enum value merged"] });
    expect(checkEgressMap(sectioned, grown).widened[0]!.line).toBe(8); // the section heading, in the committed map
    await withoutGuard("egressTypeChanges", () => {
      expect(subjects(sectioned, grown).widened).toEqual([]);
    });
  });

  it("types: wider is named, narrower is not", () => {
    const at = (type: string) => map(`tool t\n  endpoint GET /t\n  + since: ${type}`);
    expect(subjects(at("string (date-time)"), at("string")).widened).toEqual(["tool t: since: string (was string (date-time))"]);
    expect(subjects(at("string"), at("string (date-time)"))).toEqual({ ...NONE, narrowed: ["tool t: since: string (date-time) (was string)"] });
    expect(subjects(at("integer"), at("string")).widened).toEqual(["tool t: since: string (was integer)"]);
    expect(subjects(at("string | null"), at("string")).widened).toEqual([]);
    expect(subjects(at("string"), at("string | null")).widened).toEqual(["tool t: since: string | null (was string)"]);
    expect(subjects(at("any"), at("object")).widened).toEqual([]);
  });

  it("a union branch added is named as a branch, with its members; a positional branch dropped renumbers nothing", () => {
    const two = map(`tool pay
  endpoint POST /pay
  + method: object | object
  + method.oneOf[0]: object
  + method.oneOf[0].card: string
  + method.oneOf[1]: object
  + method.oneOf[1].iban: string`);
    const three = two.replace("  + method: object | object\n", "  + method: object | object | object\n") + "  + method.oneOf[2]: object\n  + method.oneOf[2].wallet: string\n";
    const check = checkEgressMap(two, three);
    expect(check.widened.map((d) => [d.kind, d.subject])).toEqual([
      ["member", "tool pay: method.oneOf[2].wallet: string"],
      ["branch", "tool pay: method.oneOf[2]: object"],
    ]);
    expect(check.narrowed).toEqual([]);
    // Dropping branch 0 of three: the others move down one position, which is no widening.
    const dropped = map(`tool pay
  endpoint POST /pay
  + method: object | object
  + method.oneOf[0]: object
  + method.oneOf[0].iban: string
  + method.oneOf[1]: object
  + method.oneOf[1].wallet: string`);
    expect(subjects(three, dropped).widened).toEqual([]);
    expect(subjects(three, dropped).narrowed).toEqual(["tool pay: method.oneOf[0].card: string", "tool pay: method.oneOf[0]: object"]);
    // One branch left: its members are listed unqualified. Still the same paths.
    const one = map(`tool pay
  endpoint POST /pay
  + method: object
  + method.iban: string`);
    expect(subjects(two, one).widened).toEqual([]);
    // Back to two: the restored branch's member, and the union that has a branch more.
    expect(subjects(one, two).widened).toEqual(["tool pay: method.oneOf[0].card: string", "tool pay: method: object | object (was object)"]);
  });

  it("an open key and a pattern are named as such; a new tool is one widening; a withheld path that shows is named with its reason", () => {
    const before = map(`tool meta
  endpoint PUT /meta
  + labels: object
  + labels.name: string
  - labels.secret: projection
  - x-api-key: reserved: the credential header of this API, on the wire as X-Api-Key`);
    const after = map(
      `tool meta
  endpoint PUT /meta
  + labels: object
  + labels./^x-/: string
  + labels.*: string
  + labels.name: string
  + labels.secret: string
  - x-api-key: reserved: the credential header of this API, on the wire as X-Api-Key`,
      `tool meta_delete
  endpoint DELETE /meta`,
    );
    const check = checkEgressMap(before, after);
    expect(check.widened.map((d) => [d.kind, d.subject, d.line])).toEqual([
      ["any-key", "tool meta: labels.*: string", 5],
      ["pattern", "tool meta: labels./^x-/: string", 5],
      ["member", "tool meta: labels.secret: string (was withheld: projection)", 5],
      ["tool", "tool meta_delete (DELETE /meta)", undefined],
    ]);
    expect(check.changed.map((d) => d.subject)).toEqual(["tool meta: - labels.secret: projection (no longer listed)"]);
  });

  it("a pinned argument that becomes visible says it was pinned; fetched GraphQL fields are compared", () => {
    const pinned = map(`tool issues_list
  endpoint POST graphql query issues
  + first: integer
  = orderBy: "updatedAt"
  < nodes.id
  < nodes.title`);
    const unpinned = map(`tool issues_list
  endpoint POST graphql query issues
  + first: integer
  + orderBy: enum: createdAt | updatedAt
  < nodes.description
  < nodes.id
  < nodes.title`);
    expect(subjects(pinned, unpinned).widened).toEqual(["tool issues_list: < nodes.description", 'tool issues_list: orderBy: enum: createdAt | updatedAt (was pinned: "updatedAt")']);
    expect(subjects(unpinned, pinned)).toEqual({ ...NONE, narrowed: ["tool issues_list: < nodes.description", "tool issues_list: = orderBy: \"updatedAt\"", "tool issues_list: orderBy: enum: createdAt | updatedAt"] });
  });

  it("a map it cannot read is EGRESS_MAP_INVALID with the line, never a crash or a silent pass", () => {
    for (const [text, line] of [
      ["tool a\n  endpoint GET /a\n  ? what\n", 3],
      ["[{\"name\": \"a\"}]\n", 1],
      ["tool a\ntool a\n", 2],
    ] as const) {
      try {
        checkEgressMap(text, map(`tool a\n  endpoint GET /a`));
        expect.unreachable();
      } catch (error) {
        expect(isSluiceError(error, "EGRESS_MAP_INVALID")).toBe(true);
        expect((error as Error).message).toContain(`line ${line}:`);
      }
    }
  });
});
