/**
 * What Stripe answers reach the model as (hand-written). Stripe objects are flat and
 * mostly useful; what they carry for nobody is nulls (dozens per object), empty
 * `metadata`, the list envelope's own `object` and `url`, and related objects expanded in
 * full where an id would do. Items keep their `object` tag: several lists mix types
 * (a customer's sources are cards and bank accounts), and a page of one kind says
 * nothing about the next.
 */
import { neverThrows, type ResponseHandler } from "@sluice/core";

type Json = unknown;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function own(value: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(value, key) ? value[key] : undefined;
}

function define(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Property names the spec marks expandable somewhere (`x-expansionResources`): unless
 * the caller asks for them with `expand`, Stripe sends their id. The conformance test
 * checks this list against the vendored spec.
 */
export const EXPANDABLE_FIELDS: ReadonlySet<string> = new Set(
  (
    "account additional_documentation application application_fee authorization back balance_transaction cancellation_policy " +
    "card card_statement cardholder cash_receipt charge check_image configuration coupon credit_note customer " +
    "customer_balance_transaction customer_communication customer_signature default_card default_payment_method default_source " +
    "destination destination_payment destination_payment_refund discount dispute duplicate_charge_documentation " +
    "failure_balance_transaction fee file front generated_card generated_sepa_debit generated_sepa_debit_mandate icon invoice " +
    "last_verification_report latest_attempt latest_invoice location logo mandate migrated_to on_behalf_of order original_payout " +
    "originating_transaction parent payment_intent payment_link payment_method pending_setup_intent price product promotion_code " +
    "quote receipt recipient refund refund_policy replaced_by replacement_for reversed_by review rolled_back_from rule schedule " +
    "service_documentation setup_attempt setup_intent shipping_documentation shipping_rate single_use_mandate source " +
    "source_refund source_transaction source_transfer source_transfer_reversal subscription subscription_schedule tax_code " +
    "tax_rate test_clock transaction transfer transfer_reversal uncategorized_file"
  ).split(" "),
);

/**
 * Places where one of those names holds an object that is part of its parent, not a
 * reference (`subscription_item.price`, `customer.discount`): keyed `<parent object
 * tag>.<field>`, with an empty tag for parents that have none. Collapsing these would
 * hide the amounts and terms the parent is about.
 */
export const EMBEDDED_FIELDS: ReadonlySet<string> = new Set([
  ".discount",
  "customer.discount",
  "discount.coupon",
  "invoice.discount",
  "invoiceitem.price",
  "issuing.authorization.card",
  "issuing.card.cardholder",
  "item.price",
  "line_item.price",
  "promotion_code.coupon",
  "scheduled_query_run.file",
  "source_mandate_notification.source",
  "subscription.discount",
  "subscription_item.price",
  "three_d_secure.card",
  "token.card",
  "topup.source",
]);

/** Whether an expanded object under `field` of an object tagged `parentTag` stands for a reference. */
export function isReferenceField(parentTag: string | undefined, field: string): boolean {
  return EXPANDABLE_FIELDS.has(field) && !EMBEDDED_FIELDS.has(`${parentTag ?? ""}.${field}`);
}

const LIST_TAGS = new Set(["list", "search_result"]);

function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  return isRecord(value) && Object.keys(value).length === 0;
}

function requestedExpansion(args: Readonly<Record<string, unknown>> | undefined): boolean {
  const expand = args === undefined ? undefined : own(args as Record<string, unknown>, "expand");
  return Array.isArray(expand) ? expand.length > 0 : typeof expand === "string" && expand !== "";
}

/**
 * The handler for every Stripe tool. Ids, `has_more`, `next_page`, `total_count` and
 * nested lists' `has_more`/`url` (the way to their next page) are kept; `false` and `0`
 * are answers and stay. When the call asked for `expand`, expanded objects stay whole.
 */
export const stripeResponse: ResponseHandler = neverThrows((body, info) => {
  const collapse = !requestedExpansion(info?.args);

  const walk = (value: Json, parentTag: string | undefined, key: string | undefined, root: boolean): Json => {
    if (Array.isArray(value)) {
      const out: Json[] = [];
      for (const item of value) {
        const pruned = walk(item, parentTag, key, false);
        if (!isEmpty(pruned)) out.push(pruned);
      }
      return out;
    }
    if (!isRecord(value)) return value;
    const id = own(value, "id");
    if (!root && collapse && key !== undefined && typeof id === "string" && isReferenceField(parentTag, key)) return id;

    const tag = typeof own(value, "object") === "string" ? (own(value, "object") as string) : undefined;
    const isList = tag !== undefined && LIST_TAGS.has(tag) && Array.isArray(own(value, "data"));
    const out: Record<string, unknown> = {};
    for (const name of Object.keys(value)) {
      const child = value[name];
      // The envelope's tag says "list"; its `url` is the path the model just called.
      if (name === "object" && isList) continue;
      if (root && isList && name === "url") continue;
      const pruned = isList && name === "data" ? walkItems(child as Json[]) : walk(child, tag, name, false);
      // An empty page is an answer too: a list keeps its `data` even when there is none.
      if (isEmpty(pruned) && !(isList && name === "data")) continue;
      define(out, name, pruned);
    }
    return out;
  };

  const walkItems = (items: Json[]): Json[] => {
    const out: Json[] = [];
    for (const item of items) {
      // An item of a list is a top-level object of its own: never collapsed to its id.
      const pruned = walk(item, undefined, undefined, true);
      if (!isEmpty(pruned)) out.push(pruned);
    }
    return out;
  };

  return walk(body, undefined, undefined, true);
});
