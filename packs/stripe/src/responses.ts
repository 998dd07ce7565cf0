/**
 * What Stripe answers reach the model as (hand-written). Stripe objects are flat and
 * mostly useful; what they carry for nobody is nulls (dozens per object), empty
 * `metadata`, the list envelope's own `object` and `url`, and related objects expanded in
 * full where an id would do. Items keep their `object` tag: several lists mix types
 * (a customer's sources are cards and bank accounts), and a page of one kind says
 * nothing about the next.
 *
 * An item of a list (a top-level list or one nested in an object, like a customer's
 * subscriptions) becomes a summary an agent picks from, by its `object` tag: ids and the
 * references it needs to act (customer, invoice, payment intent, price), amounts with
 * their currency, status flags, key dates, name/email for people, and the description
 * cut to 120 characters with a marker (the object's get tool returns it whole). Left to
 * the get: `metadata` (the caller's own free-form keys, up to 50 per object, unbounded
 * in a list; a search by metadata finds objects by it), `livemode` (the same for every
 * item of an answer: the key decides it), settings (collection method, billing reason,
 * receipt email) and amounts the listed ones imply (captured, capturable);
 * types not listed in `SUMMARY_FIELDS` keep every pruned member.
 */
import { defineOwn, isEmpty, isRecord, neverThrows, ownValue, type ResponseHandler } from "@sluice/core/pack";

type Json = unknown;

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

const BASE = ["id", "object"];
const TAIL = ["created", "description"];

/** The members kept in a list item, by its `object` tag (why: see the file comment). */
export const SUMMARY_FIELDS: Readonly<Record<string, readonly string[]>> = {
  customer: [...BASE, "name", "email", "phone", "balance", "currency", "delinquent", "default_source", ...TAIL],
  charge: [
    ...BASE, "amount", "amount_refunded", "currency", "status", "paid", "captured", "refunded", "disputed", "customer",
    "payment_intent", "invoice", "payment_method", "failure_code", "failure_message", "receipt_url", ...TAIL,
  ],
  invoice: [
    ...BASE, "number", "status", "customer", "customer_email", "customer_name", "subscription", "currency", "total", "amount_due",
    "amount_paid", "amount_remaining", "due_date", "period_start", "period_end", "paid", "hosted_invoice_url", "payment_intent", "charge", ...TAIL,
  ],
  payment_intent: [
    ...BASE, "amount", "amount_received", "currency", "status", "customer", "payment_method", "invoice", "latest_charge", "cancellation_reason", "canceled_at", "last_payment_error", "next_action", ...TAIL,
  ],
  subscription: [
    ...BASE, "status", "customer", "items", "currency", "current_period_start", "current_period_end", "cancel_at_period_end", "cancel_at",
    "canceled_at", "ended_at", "trial_end", "latest_invoice", "default_payment_method", ...TAIL,
  ],
  subscription_item: [...BASE, "price", "quantity"],
  price: [...BASE, "product", "unit_amount", "currency", "recurring", "type", "nickname", "active", "lookup_key"],
  product: [...BASE, "name", "active", "default_price", "url", ...TAIL],
  refund: [...BASE, "amount", "currency", "status", "reason", "charge", "payment_intent", "failure_reason", ...TAIL],
  card: [...BASE, "brand", "last4", "exp_month", "exp_year", "country", "customer"],
  bank_account: [...BASE, "bank_name", "last4", "country", "currency", "status", "customer"],
  payment_method: [...BASE, "type", "customer", "created"],
  tax_id: [...BASE, "type", "value", "country", "customer", "created"],
  balance_transaction: [...BASE, "amount", "fee", "net", "currency", "type", "status", "source", "available_on", ...TAIL],
  invoiceitem: [...BASE, "amount", "currency", "customer", "invoice", "subscription", "price", "quantity", "period", ...TAIL],
  line_item: [...BASE, "amount", "currency", "price", "quantity", "period", "subscription", "invoice_item", ...TAIL],
  payout: [...BASE, "amount", "currency", "status", "arrival_date", "method", "destination", "failure_code", "failure_message", ...TAIL],
};

/** Members of kept objects reduced further: an error's verdict, not the objects it carries; the action's kind. */
const SUMMARY_SUBFIELDS: Readonly<Record<string, readonly string[]>> = {
  last_payment_error: ["type", "code", "decline_code", "message", "param"],
  next_action: ["type"],
};

const TEXT_MAX = 120;
const CUT = new Set(["description", "failure_message"]);

/** `text` cut to `max` characters with a marker saying how much was cut and where it is whole. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = `${text.slice(0, max)}… [+${text.length - max} chars; whole text via get]`;
  // Cutting a text barely over the limit would make it longer: it stays whole then.
  return cut.length < text.length ? cut : text;
}

/** A pruned list item reduced to its summary; items of types not listed pass as they are. */
export function stripeSummary(item: Json): Json {
  if (!isRecord(item)) return item;
  const tag = ownValue(item, "object");
  const fields = typeof tag === "string" && Object.prototype.hasOwnProperty.call(SUMMARY_FIELDS, tag) ? SUMMARY_FIELDS[tag] : undefined;
  if (fields === undefined || fields.length === 0) return item;
  const out: Record<string, unknown> = {};
  for (const key of fields) {
    if (!Object.prototype.hasOwnProperty.call(item, key)) continue;
    let value = item[key];
    if (typeof value === "string" && CUT.has(key)) value = cutText(value, TEXT_MAX);
    const sub = Object.prototype.hasOwnProperty.call(SUMMARY_SUBFIELDS, key) ? SUMMARY_SUBFIELDS[key] : undefined;
    if (sub !== undefined && isRecord(value)) {
      const slim: Record<string, unknown> = {};
      for (const name of sub) if (Object.prototype.hasOwnProperty.call(value, name)) defineOwn(slim, name, value[name]);
      value = slim;
    }
    // An embedded object of a listed type (a subscription item's price) is summarized too.
    else if (isRecord(value) && key !== "metadata") value = stripeSummary(value);
    defineOwn(out, key, value);
  }
  return out;
}

function requestedExpansion(args: Readonly<Record<string, unknown>> | undefined): boolean {
  const expand = args === undefined ? undefined : ownValue(args as Record<string, unknown>, "expand");
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
    const id = ownValue(value, "id");
    if (!root && collapse && key !== undefined && typeof id === "string" && isReferenceField(parentTag, key)) return id;

    const tag = typeof ownValue(value, "object") === "string" ? (ownValue(value, "object") as string) : undefined;
    const isList = tag !== undefined && LIST_TAGS.has(tag) && Array.isArray(ownValue(value, "data"));
    const out: Record<string, unknown> = {};
    for (const name of Object.keys(value)) {
      const child = value[name];
      // The envelope's tag says "list"; its `url` is the path the model just called.
      if (name === "object" && isList) continue;
      if (root && isList && name === "url") continue;
      const pruned = isList && name === "data" ? walkItems(child as Json[]) : walk(child, tag, name, false);
      // An empty page is an answer too: a list keeps its `data` even when there is none.
      if (isEmpty(pruned) && !(isList && name === "data")) continue;
      defineOwn(out, name, pruned);
    }
    return out;
  };

  const walkItems = (items: Json[]): Json[] => {
    const out: Json[] = [];
    for (const item of items) {
      // An item of a list is a top-level object of its own: never collapsed to its id,
      // and summarized (its own lists already are, by the walk).
      const pruned = stripeSummary(walk(item, undefined, undefined, true));
      if (!isEmpty(pruned)) out.push(pruned);
    }
    return out;
  };

  return walk(body, undefined, undefined, true);
});
