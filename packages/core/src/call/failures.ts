import { getOwn } from "@sluice/schema";
import type { ApiFailure, FailureCheck } from "./types.ts";
import { isRecord } from "../responses/json.ts";

function text(value: unknown, limit = 300): string {
  const s = typeof value === "string" ? value : JSON.stringify(value) ?? "";
  return s.length > limit ? `${s.slice(0, limit)}...` : s;
}

/**
 * GraphQL's own envelope (every GraphQL tool is checked with it): a non-empty `errors`
 * list is a failure, even beside partial `data`. Rate limits are recognised by the codes
 * GitHub (`type: RATE_LIMITED`) and Linear (`extensions.code: RATELIMITED`) use.
 */
export const graphqlErrors: FailureCheck = (body) => {
  const errors = isRecord(body) ? getOwn(body, "errors") : undefined;
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  const messages = errors.slice(0, 5).map((e) => (isRecord(e) && typeof e.message === "string" ? e.message : text(e)));
  const first = errors[0];
  const extensions = isRecord(first) && isRecord(first.extensions) ? first.extensions : {};
  const apiCode = [extensions.code, isRecord(first) ? first.type : undefined].find((c): c is string => typeof c === "string");
  const failure: ApiFailure = { message: messages.join("; ") + (errors.length > 5 ? ` (and ${errors.length - 5} more)` : "") };
  if (apiCode !== undefined) failure.apiCode = apiCode;
  if (apiCode !== undefined && /^RATE_?LIMITED$/i.test(apiCode)) failure.rateLimited = true;
  return failure;
};

/**
 * Mutation payloads that report problems as data (`data.<field>.userErrors`, Shopify
 * style, or `errors` inside the payload, Saleor style): a non-empty list is a failure.
 */
export const graphqlUserErrors: FailureCheck = (body) => {
  const data = isRecord(body) ? getOwn(body, "data") : undefined;
  if (!isRecord(data)) return undefined;
  for (const field of Object.keys(data)) {
    const payload = data[field];
    if (!isRecord(payload)) continue;
    for (const key of ["userErrors", "errors"]) {
      const list = getOwn(payload, key);
      if (!Array.isArray(list) || list.length === 0) continue;
      const messages = list.slice(0, 5).map((e) => {
        if (!isRecord(e)) return text(e);
        const where = Array.isArray(e.field) ? `${e.field.join(".")}: ` : typeof e.field === "string" ? `${e.field}: ` : "";
        return where + (typeof e.message === "string" ? e.message : text(e));
      });
      return { message: `${field}: ${messages.join("; ")}` };
    }
  }
  return undefined;
};

/** Slack style: `ok: false` with an `error` code string. */
export const okFalse: FailureCheck = (body) => {
  if (!isRecord(body) || body.ok !== false) return undefined;
  const code = typeof body.error === "string" ? body.error : "unknown_error";
  const failure: ApiFailure = { message: code.replace(/_/g, " "), apiCode: code };
  if (code === "ratelimited") failure.rateLimited = true;
  return failure;
};

/** Runs checks in order; the first failure wins. */
export function anyFailure(...checks: readonly FailureCheck[]): FailureCheck {
  return (body, info) => {
    for (const check of checks) {
      const failure = check(body, info);
      if (failure !== undefined) return failure;
    }
    return undefined;
  };
}

/** The error message an API put in a failed answer, in the shapes common APIs use. */
export function apiMessage(body: unknown): string | undefined {
  if (typeof body === "string") return body.trim() === "" ? undefined : text(body.trim(), 500);
  if (!isRecord(body)) return undefined;
  if (typeof body.message === "string") return text(body.message, 500);
  const error = body.error;
  if (typeof error === "string") return text(typeof body.error_description === "string" ? `${error}: ${body.error_description}` : error, 500);
  if (isRecord(error) && typeof error.message === "string") return text(error.message, 500);
  const errors = body.errors;
  if (Array.isArray(errors) && errors.length > 0) {
    const first = errors[0];
    return text(isRecord(first) && typeof first.message === "string" ? first.message : first, 500);
  }
  return undefined;
}
