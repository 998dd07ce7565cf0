/** JSON Pointer (RFC 6901) segments, and their use as URI fragments in `$ref`. */

export function escapePointerSegment(segment: string | number): string {
  const text = typeof segment === "string" ? segment : String(segment);
  // Nearly every segment holds neither character: then no regex runs and no string is made.
  if (text.indexOf("~") === -1 && text.indexOf("/") === -1) return text;
  return text.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function unescapePointerSegment(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

export function pointerFrom(segments: readonly (string | number)[]): string {
  return segments.map((s) => "/" + escapePointerSegment(s)).join("");
}

/** `#/$defs/A%20B/properties/x` -> [`$defs`, `A B`, `properties`, `x`]. Returns undefined when not a local fragment. */
export function parseLocalRef(ref: string): string[] | undefined {
  if (!ref.startsWith("#")) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (fragment === "") return [];
  if (!fragment.startsWith("/")) return undefined; // plain-name anchors are not supported
  return fragment.slice(1).split("/").map(unescapePointerSegment);
}

/** The `$ref` value that points at `#/$defs/<name>`. */
export function defRef(name: string): string {
  return "#/$defs/" + escapePointerSegment(name).replace(/[%\s"#<>\\^`{|}]/g, (c) => encodeURIComponent(c));
}
