/**
 * Percent-encoding as RFC 3986 / RFC 6570 define it: everything but the unreserved set
 * (`A-Z a-z 0-9 - . _ ~`) is encoded as UTF-8 octets. `encodeURIComponent` leaves
 * `! ' ( ) *` alone, so those are encoded here too.
 */
export function encodeUnreserved(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
}

/**
 * OpenAPI `allowReserved`: RFC 3986 reserved characters pass unencoded, except the few
 * that would change the meaning of a query string (`# & = +`, and `;`, a pair separator to
 * Rack / Rails and older Python: NEVER_WRITTEN in wire-name-rules.ts), which stay encoded
 * so a value can never add or split a parameter.
 */
export function encodeAllowReserved(value: string): string {
  return encodeUnreserved(value).replace(/%(3A|2F|3F|5B|5D|40|21|24|27|28|29|2A|2C)/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Path values: like {@link encodeUnreserved} (the builder refuses `.` and `..` segments). */
export const encodePathValue = encodeUnreserved;
