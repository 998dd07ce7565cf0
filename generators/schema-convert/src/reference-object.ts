import { getOwn, pointerFrom, SluiceError, unescapePointerSegment } from "@sluice/schema";

/**
 * Reference Objects and JSON Schema `$ref`s: local refs anywhere in the document
 * (`#/components/...`, `#/definitions/...`, `#/paths/...`). A ref to another file or URL is
 * never fetched: it is `EXTERNAL_REF` unless the caller maps it to a local file, which the
 * caller's `load` reads (the OpenAPI generator parses it as JSON or YAML; a source whose
 * schemas are self-contained, such as an MCP snapshot, gives none).
 * https://spec.openapis.org/oas/v3.1.0#reference-object
 */

/** A parsed document; `id` is `""` for the main document, else the mapped local file path. */
export interface SourceDocument {
  id: string;
  root: unknown;
}

export interface Located {
  value: unknown;
  document: SourceDocument;
  /** JSON pointer inside `document`. */
  pointer: string;
}

export class RefResolver {
  readonly main: SourceDocument;
  private readonly externalRefs: Readonly<Record<string, string>>;
  private readonly load: ((file: string) => unknown) | undefined;
  private readonly loaded = new Map<string, SourceDocument>();
  /**
   * Resolved targets by document and ref as written. A ref names one place in a document
   * the generator never edits, so it is resolved once: the IR, pagination and response
   * hints each follow the same shared refs thousands of times. Failures are not kept.
   */
  private readonly resolved = new Map<SourceDocument, Map<string, Located>>();

  constructor(root: unknown, externalRefs: Readonly<Record<string, string>> = {}, load?: (file: string) => unknown) {
    this.main = { id: "", root };
    this.externalRefs = externalRefs;
    this.load = load;
  }

  resolve(ref: string, from: SourceDocument): Located {
    let known = this.resolved.get(from);
    if (known === undefined) this.resolved.set(from, (known = new Map()));
    let located = known.get(ref);
    if (located === undefined) known.set(ref, (located = this.resolveOnce(ref, from)));
    return located;
  }

  private resolveOnce(ref: string, from: SourceDocument): Located {
    const hash = ref.indexOf("#");
    const target = hash === -1 ? ref : ref.slice(0, hash);
    const fragment = hash === -1 ? "" : ref.slice(hash + 1);
    const document = target === "" ? from : this.external(ref, target);
    let pointer: string;
    try {
      pointer = decodeURIComponent(fragment);
    } catch {
      throw new SluiceError("UNRESOLVED_REF", `$ref ${ref} is not a valid URI fragment.`, { pointer: fragment });
    }
    if (pointer !== "" && !pointer.startsWith("/")) {
      throw new SluiceError("UNRESOLVED_REF", `$ref ${ref}: only JSON pointer fragments are supported.`, { pointer });
    }
    let value: unknown = document.root;
    for (const segment of pointer === "" ? [] : pointer.slice(1).split("/").map(unescapePointerSegment)) {
      value = Array.isArray(value) && /^(0|[1-9][0-9]*)$/.test(segment) ? value[Number(segment)] : getOwn(value, segment);
      if (value === undefined) {
        throw new SluiceError("UNRESOLVED_REF", `$ref ${ref} points to nothing: ${pointer} does not exist${document.id === "" ? "" : ` in ${document.id}`}.`, { pointer });
      }
    }
    return { value, document, pointer };
  }

  /** Follow a chain of Reference Objects (parameters, request bodies, path items, ...) to the object. */
  deref(value: unknown, document: SourceDocument, pointer: string): Located {
    const first = getOwn(value, "$ref");
    if (typeof first !== "string") return { value, document, pointer };
    let current = this.resolve(first, document);
    // One hop is the common case (a shared parameter): no cycle set, no key strings, until a second.
    if (typeof getOwn(current.value, "$ref") !== "string") return current;
    const seen = new Set<string>([`${document.id}#${pointer}`]);
    for (;;) {
      const ref = getOwn(current.value, "$ref");
      if (typeof ref !== "string") return current;
      const key = `${current.document.id}#${current.pointer}`;
      if (seen.has(key)) throw new SluiceError("SPEC_INVALID", `$ref cycle through ${ref}.`, { pointer: current.pointer });
      seen.add(key);
      current = this.resolve(ref, current.document);
    }
  }

  private external(ref: string, target: string): SourceDocument {
    const file = this.externalRefs[ref] ?? this.externalRefs[target];
    if (file === undefined || this.load === undefined) {
      throw new SluiceError("EXTERNAL_REF", `$ref ${ref} points outside the document; sluice never fetches it. Map it to a local file to use it.`, {
        pointer: ref,
      });
    }
    let document = this.loaded.get(file);
    if (document === undefined) {
      document = { id: file, root: this.load(file) };
      this.loaded.set(file, document);
    }
    return document;
  }
}

export { pointerFrom };
