/**
 * A JSON parser (RFC 8259) that keeps what `JSON.parse` throws away: the exact lexeme of
 * every number and string, member order (integer-like keys included), duplicate keys, and
 * the offset of every value and member in the text. The compaction transforms work on
 * this tree so they can either re-serialize without changing a literal's spelling or cut
 * spans out of the original text without re-serializing at all.
 *
 * Offsets are UTF-16 code-unit indexes into the parsed string (what `String#slice` takes).
 */

export type JsonNode = JsonObject | JsonArray | JsonString | JsonNumber | JsonLiteral;

interface Span {
  /** Index of the first code unit of the value. */
  start: number;
  /** Index just past the last code unit of the value. */
  end: number;
}

export interface JsonMember {
  /** Decoded key. */
  key: string;
  /** The key as written, quotes and escapes included. */
  keyRaw: string;
  value: JsonNode;
  /** Index of the key's opening quote. */
  start: number;
  /** Index just past the member's value. */
  end: number;
}

export interface JsonObject extends Span {
  kind: "object";
  members: JsonMember[];
}

export interface JsonArray extends Span {
  kind: "array";
  items: JsonNode[];
}

export interface JsonString extends Span {
  kind: "string";
  value: string;
  raw: string;
}

export interface JsonNumber extends Span {
  kind: "number";
  raw: string;
}

export interface JsonLiteral extends Span {
  kind: "literal";
  raw: "true" | "false" | "null";
}

/** Thrown for text that is not exactly one JSON value; callers return their input untouched. */
export class JsonTextError extends Error {
  override readonly name = "JsonTextError";
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at offset ${offset}`);
  }
}

// Nesting deeper than this is refused rather than risking a stack overflow.
const MAX_DEPTH = 2_000;

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
// A string's body: anything but a quote, a backslash or a control character, or a valid escape.
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

/** Parses `text`, which must hold exactly one JSON value (whitespace around it allowed). */
export function parseJsonText(text: string): JsonNode {
  let pos = 0;

  const skipWhitespace = (): void => {
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
      else break;
    }
  };

  const parseString = (): JsonString => {
    STRING.lastIndex = pos;
    const match = STRING.exec(text);
    if (match === null) throw new JsonTextError("invalid string", pos);
    const start = pos;
    const raw = match[0];
    pos += raw.length;
    // Safe: the lexeme was validated above; JSON.parse only decodes its escapes.
    return { kind: "string", value: JSON.parse(raw) as string, raw, start, end: pos };
  };

  const parseValue = (depth: number): JsonNode => {
    if (depth > MAX_DEPTH) throw new JsonTextError("nesting too deep", pos);
    skipWhitespace();
    const start = pos;
    const c = text[pos];
    if (c === "{") {
      pos++;
      const members: JsonMember[] = [];
      skipWhitespace();
      if (text[pos] === "}") {
        pos++;
        return { kind: "object", members, start, end: pos };
      }
      for (;;) {
        skipWhitespace();
        if (text[pos] !== '"') throw new JsonTextError("expected a key", pos);
        const key = parseString();
        skipWhitespace();
        if (text[pos] !== ":") throw new JsonTextError("expected ':'", pos);
        pos++;
        const value = parseValue(depth + 1);
        members.push({ key: key.value, keyRaw: key.raw, value, start: key.start, end: value.end });
        skipWhitespace();
        if (text[pos] === ",") {
          pos++;
          continue;
        }
        if (text[pos] === "}") {
          pos++;
          return { kind: "object", members, start, end: pos };
        }
        throw new JsonTextError("expected ',' or '}'", pos);
      }
    }
    if (c === "[") {
      pos++;
      const items: JsonNode[] = [];
      skipWhitespace();
      if (text[pos] === "]") {
        pos++;
        return { kind: "array", items, start, end: pos };
      }
      for (;;) {
        items.push(parseValue(depth + 1));
        skipWhitespace();
        if (text[pos] === ",") {
          pos++;
          continue;
        }
        if (text[pos] === "]") {
          pos++;
          return { kind: "array", items, start, end: pos };
        }
        throw new JsonTextError("expected ',' or ']'", pos);
      }
    }
    if (c === '"') return parseString();
    for (const raw of ["true", "false", "null"] as const) {
      if (text.startsWith(raw, pos)) {
        pos += raw.length;
        return { kind: "literal", raw, start, end: pos };
      }
    }
    NUMBER.lastIndex = pos;
    const match = NUMBER.exec(text);
    if (match === null) throw new JsonTextError(pos >= text.length ? "unexpected end of input" : "unexpected character", pos);
    pos += match[0].length;
    return { kind: "number", raw: match[0], start, end: pos };
  };

  const root = parseValue(0);
  skipWhitespace();
  if (pos !== text.length) throw new JsonTextError("unexpected text after the JSON value", pos);
  return root;
}

/** Compact JSON of a tree: member order, duplicate keys and every literal's spelling as parsed. */
export function serializeJsonNode(node: JsonNode): string {
  const parts: string[] = [];
  const write = (n: JsonNode): void => {
    switch (n.kind) {
      case "object":
        parts.push("{");
        n.members.forEach((member, index) => {
          if (index > 0) parts.push(",");
          parts.push(member.keyRaw, ":");
          write(member.value);
        });
        parts.push("}");
        return;
      case "array":
        parts.push("[");
        n.items.forEach((item, index) => {
          if (index > 0) parts.push(",");
          write(item);
        });
        parts.push("]");
        return;
      default:
        parts.push(n.raw);
    }
  };
  write(node);
  return parts.join("");
}

/** The value of the member named `key`, if any; with duplicate keys the last wins, as in `JSON.parse`. */
export function memberValue(node: JsonObject, key: string): JsonNode | undefined {
  for (let index = node.members.length - 1; index >= 0; index--) {
    const member = node.members[index]!;
    if (member.key === key) return member.value;
  }
  return undefined;
}
