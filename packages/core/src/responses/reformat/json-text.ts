/**
 * JSON read as text, token by token (RFC 8259 grammar), so that a reformatter can change
 * the spacing of an answer without parsing it into JS values: `JSON.parse` respells numbers
 * (`1.0` -> `1`, a 20-digit id loses digits) and drops duplicate keys, and a transform that
 * promises to keep every value must not. https://www.rfc-editor.org/rfc/rfc8259#section-2
 */

/** One token of a JSON text: its kind and its exact text. Whitespace is not a token. */
export interface JsonToken {
  kind: "punct" | "string" | "number" | "literal";
  text: string;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const LITERAL = /true|false|null/y;

/**
 * The tokens of `text` when it is one JSON value (grammar checked, nesting at most
 * `maxDepth`), else undefined. Linear in the text; no recursion.
 */
export function jsonTokens(text: string, maxDepth = 512): JsonToken[] | undefined {
  const tokens: JsonToken[] = [];
  // What may come next: a value, a key (or `}`), a `:`, a `,` or a close, and the stack of open containers.
  const stack: string[] = [];
  let expect: "value" | "firstValue" | "key" | "firstKey" | "colon" | "after" = "value";
  let i = 0;
  const n = text.length;
  const skipSpace = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
  };
  const read = (pattern: RegExp): string | undefined => {
    pattern.lastIndex = i;
    const match = pattern.exec(text);
    if (match === null) return undefined;
    i += match[0].length;
    return match[0];
  };
  skipSpace();
  if (i >= n) return undefined;
  while (true) {
    skipSpace();
    if (i >= n) return stack.length === 0 && expect === "after" ? tokens : undefined;
    const c = text[i]!;
    if (expect === "after") {
      if (stack.length === 0) return undefined; // trailing text after the value
      const open = stack[stack.length - 1]!;
      if (c === ",") {
        tokens.push({ kind: "punct", text: "," });
        i++;
        expect = open === "{" ? "key" : "value";
        continue;
      }
      if ((c === "}" && open === "{") || (c === "]" && open === "[")) {
        tokens.push({ kind: "punct", text: c });
        i++;
        stack.pop();
        expect = "after";
        continue;
      }
      return undefined;
    }
    if (expect === "colon") {
      if (c !== ":") return undefined;
      tokens.push({ kind: "punct", text: ":" });
      i++;
      expect = "value";
      continue;
    }
    if (expect === "key" || expect === "firstKey") {
      if (c === "}" && expect === "firstKey") {
        tokens.push({ kind: "punct", text: "}" });
        i++;
        stack.pop();
        expect = "after";
        continue;
      }
      const key = c === '"' ? read(STRING) : undefined;
      if (key === undefined) return undefined;
      tokens.push({ kind: "string", text: key });
      expect = "colon";
      continue;
    }
    // A value (or, right after `[`, the close).
    if (c === "]" && expect === "firstValue") {
      tokens.push({ kind: "punct", text: "]" });
      i++;
      stack.pop();
      expect = "after";
      continue;
    }
    if (c === "{" || c === "[") {
      if (stack.length >= maxDepth) return undefined;
      tokens.push({ kind: "punct", text: c });
      stack.push(c);
      i++;
      expect = c === "{" ? "firstKey" : "firstValue";
      continue;
    }
    const token = c === '"' ? read(STRING) : c === "-" || (c >= "0" && c <= "9") ? read(NUMBER) : read(LITERAL);
    if (token === undefined) return undefined;
    tokens.push({ kind: c === '"' ? "string" : c === "-" || (c >= "0" && c <= "9") ? "number" : "literal", text: token });
    expect = "after";
  }
}

/** Whether a JSON text is an object or an array (what an envelope, or a string holding one, looks like). */
export function looksLikeJsonContainer(text: string): boolean {
  const start = /^[ \t\r\n]*([[{])/.exec(text);
  return start !== null;
}
