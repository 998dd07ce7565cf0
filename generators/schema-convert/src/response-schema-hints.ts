import { isPaginationKey, type ResponseHints } from "@sluice/core";
import { escapePointerSegment, getOwn, SluiceError } from "@sluice/schema";
import type { Located, RefResolver } from "./reference-object.ts";

/**
 * What a response schema tells the default response handler: which members are links it
 * may treat as hypermedia, which are ids, and whether the answer is an envelope around one
 * member. Only what differs from the handler's defaults. Read from a schema as written (an
 * OpenAPI Response Object's JSON schema, an MCP tool's outputSchema: the schema of its
 * structuredContent), `$ref`s followed by the resolver; both generators call it, so the same
 * schema gives the same hints whichever source it came from.
 */

/** Schema nodes read per response, across `$ref` hops and compositions: a bound on work, not on depth. */
const SCHEMA_NODE_BUDGET = 4_000;
/** Member names longer than this are not taken for ids by their description. */
const ID_NAME_MAX = 24;
const LINK_FORMATS = new Set(["uri", "url", "uri-reference", "iri", "iri-reference", "uri-template"]);
/** How a spec describes a member that is an id without naming it so (Asana's `gid`, Twilio's `sid`). */
const ID_DESCRIPTION = /\b(unique identifier|globally unique|uniquely identif|unique (string|id)\b)/i;
/**
 * Links for people (images in sizes, thumbnails, permalinks, downloads, web pages): the
 * handler never takes them for API hypermedia, so naming them would only cost bytes.
 */
const PEOPLE_LINK_NAME = /(image|thumb|icon|avatar|logo|photo|picture|permalink|download|html|web|homepage|blog|callback|receipt|checkout|redirect|^\d+x\d+$)/i;
/** Envelopes the handler unwraps without a hint. */
const DEFAULT_ENVELOPES = new Set(["data", "result"]);

function isDefaultLinkName(name: string): boolean {
  return /(_url|Url|_uri|Uri)$/.test(name) || name === "url" || name === "self" || name === "uri" || name === "href";
}

function isDefaultIdName(name: string): boolean {
  return name === "id" || /(_id|Id)$/.test(name);
}

/**
 * The links, ids and envelope of one response schema. Never throws on a schema it cannot
 * read (a dangling `$ref`): what cannot be read says nothing. What each schema node says is
 * kept per resolver, for every later schema of the same document.
 */
export function responseSchemaHints(resolver: RefResolver, schema: Located): Pick<ResponseHints, "links" | "ids" | "envelope"> {
  const hints: Pick<ResponseHints, "links" | "ids" | "envelope"> = {};
  const names = memberNames(memoOf(resolver), schema);
  if (names.links.size > 0) hints.links = [...names.links].sort();
  if (names.ids.size > 0) hints.ids = [...names.ids].sort();
  const envelope = envelopeOf(resolver, schema);
  if (envelope !== undefined) hints.envelope = envelope;
  return hints;
}

function deref(resolver: RefResolver, located: Located): Located | undefined {
  try {
    return resolver.deref(located.value, located.document, located.pointer);
  } catch (error) {
    if (error instanceof SluiceError) return undefined;
    throw error;
  }
}

/**
 * What one response schema node says: the link and id members it declares, and the nodes
 * below it in walk order, as place numbers (`UNREADABLE` for one that leads nowhere
 * readable: it still costs the walk a step).
 */
interface NodeFacts {
  links: readonly string[];
  ids: readonly string[];
  children: readonly number[];
}

/** A child whose `$ref`s lead nowhere, or to a value that is no schema object. */
const UNREADABLE = -1;

/**
 * What a document's schema nodes say, kept for every operation of the same document: a
 * generator asks for the hints of each operation in turn, and their responses share most
 * of their schemas (Stripe's 417 operations reach the same few hundred components). A
 * schema object is one place whatever way it is reached (inline, or by a `$ref` to its
 * pointer): the generator never edits a document it reads, and a parsed document holds each
 * object once (a YAML alias shares one object between two places, which say the same), so
 * places are numbered by the object itself, without building and hashing a
 * `document#pointer` key per member. A place is known by a number, so a walk marks what
 * it visited in one array instead of building a set of its own.
 */
interface ResolverMemo {
  resolver: RefResolver;
  /** Place number by the schema object there. */
  byObject: WeakMap<object, number>;
  /** Place number by `document#pointer`, for the rare place holding no object (a boolean schema). */
  byPointer: Map<string, number>;
  /** By place number. */
  places: Located[];
  /** By place number, computed when a walk first visits the place (a slot per place from the start: the array stays packed). */
  facts: (NodeFacts | undefined)[];
  /** By place number: the walk that last visited it. A typed array (grown by doubling): a walk marks places in no particular order, which would leave a plain array holey. */
  visitedBy: Int32Array;
  walksDone: number;
  /**
   * The names a walk from a place found. The walk is a function of the place it starts
   * from, so operations answering with the same schema (Stripe: 417 operations, 9 in 10
   * answering with a shared component or list of one) share one walk.
   */
  walks: Map<number, MemberNames>;
}

interface MemberNames {
  links: ReadonlySet<string>;
  ids: ReadonlySet<string>;
}

const memos = new WeakMap<RefResolver, ResolverMemo>();

function memoOf(resolver: RefResolver): ResolverMemo {
  let memo = memos.get(resolver);
  if (memo === undefined) memos.set(resolver, (memo = { resolver, byObject: new WeakMap(), byPointer: new Map(), places: [], facts: [], visitedBy: new Int32Array(1024), walksDone: 0, walks: new Map() }));
  return memo;
}

/** The place a site leads to once its `$ref`s are followed, or undefined when it leads nowhere readable. */
function target(memo: ResolverMemo, site: Located): number | undefined {
  // Without a `$ref` the site is the place itself: no copy of it from the resolver.
  const reached = typeof getOwn(site.value, "$ref") === "string" ? deref(memo.resolver, site) : site;
  if (reached === undefined) return undefined;
  const value = reached.value;
  if (typeof value === "object" && value !== null) {
    let number = memo.byObject.get(value);
    if (number === undefined) memo.byObject.set(value, (number = numbered(memo, reached)));
    return number;
  }
  const key = `${reached.document.id}#${reached.pointer}`;
  let number = memo.byPointer.get(key);
  if (number === undefined) memo.byPointer.set(key, (number = numbered(memo, reached)));
  return number;
}

/** A new place number for `reached`. */
function numbered(memo: ResolverMemo, reached: Located): number {
  const number = memo.places.length;
  memo.places.push(reached);
  memo.facts.push(undefined);
  if (number >= memo.visitedBy.length) {
    const grown = new Int32Array(memo.visitedBy.length * 2);
    grown.set(memo.visitedBy);
    memo.visitedBy = grown;
  }
  return number;
}

/** A place number when the site leads to a schema object, else `UNREADABLE`. */
function walkable(memo: ResolverMemo, site: Located): number {
  const number = target(memo, site);
  if (number === undefined) return UNREADABLE;
  const value = memo.places[number]!.value;
  return typeof value === "object" && value !== null ? number : UNREADABLE;
}

/**
 * Member names anywhere in the response schema that are links or ids the defaults would
 * not recognise by name. The walk (its order, its budget) is per operation; what each
 * node contributes is computed once per document.
 */
function memberNames(memo: ResolverMemo, root: Located): MemberNames {
  // The walk's first step is this place; from there on nothing depends on `root` itself.
  const first = walkable(memo, root);
  const known = first === UNREADABLE ? undefined : memo.walks.get(first);
  if (known !== undefined) return known;
  const links = new Set<string>();
  const ids = new Set<string>();
  const walk = (memo.walksDone += 1);
  const stack: number[] = [first];
  let budget = SCHEMA_NODE_BUDGET;
  while (stack.length > 0 && budget-- > 0) {
    const node = stack.pop()!;
    // Read afresh: computing a node's facts may number new places and grow the array.
    if (node === UNREADABLE || memo.visitedBy[node] === walk) continue;
    memo.visitedBy[node] = walk;
    let facts = memo.facts[node];
    if (facts === undefined) memo.facts[node] = facts = nodeFacts(memo, memo.places[node]!);
    // Most nodes name no link and no id: test before looping (this loop runs 380,000 times for Stripe).
    if (facts.links.length > 0) for (const name of facts.links) links.add(name);
    if (facts.ids.length > 0) for (const name of facts.ids) ids.add(name);
    const children = facts.children;
    for (let i = 0; i < children.length; i += 1) stack.push(children[i]!);
  }
  const found = { links, ids };
  if (first !== UNREADABLE) memo.walks.set(first, found);
  return found;
}

/** The keywords below a node a walk follows besides `properties`, in the order it pushes them. */
const SINGLE_CHILDREN = ["items", "additionalProperties", "not"] as const;
const LIST_CHILDREN = ["allOf", "anyOf", "oneOf"] as const;

/** The links or ids of a node that has none (nearly every node): one array for all. */
const NONE: readonly string[] = [];

function nodeFacts(memo: ResolverMemo, node: Located): NodeFacts {
  let links: string[] | undefined;
  let ids: string[] | undefined;
  const children: number[] = [];
  const properties = getOwn(node.value, "properties");
  if (typeof properties === "object" && properties !== null) {
    // Indexed loops and no closure per node: this runs once per place (4,000-odd for
    // Stripe), nearly all of it before V8 optimises it, where each for-of, forEach and
    // closure is an object of its own.
    const names = Object.keys(properties);
    for (let n = 0; n < names.length; n += 1) {
      const name = names[n]!;
      const property = getOwn(properties, name);
      // Member names seldom hold `~` or `/`: no escaping to do, and two regex replaces spared per member.
      const segment = name.includes("~") || name.includes("/") ? escapePointerSegment(name) : name;
      const site: Located = { value: property, document: node.document, pointer: `${node.pointer}/properties/${segment}` };
      const number = target(memo, site);
      const found = number === undefined ? undefined : memo.places[number]!.value;
      const format = getOwn(found, "format");
      const type = getOwn(found, "type");
      if (typeof format === "string" && LINK_FORMATS.has(format.toLowerCase()) && !isDefaultLinkName(name) && !isPaginationKey(name) && !PEOPLE_LINK_NAME.test(name)) (links ??= []).push(name);
      // An id by its format, or a short scalar its description calls unique; the cheap tests first, the name tests and the description's last.
      const scalar = type === "string" || type === "integer" || type === "number";
      if ((format === "uuid" || (scalar && name.length <= ID_NAME_MAX)) && !isDefaultIdName(name) && !isPaginationKey(name)) {
        if (format === "uuid") (ids ??= []).push(name);
        else {
          const description = getOwn(found, "description") ?? getOwn(property, "description");
          if (typeof description === "string" && ID_DESCRIPTION.test(description)) (ids ??= []).push(name);
        }
      }
      if (typeof property === "object" && property !== null) children.push(number === undefined || typeof found !== "object" || found === null ? UNREADABLE : number);
    }
  }
  for (let k = 0; k < SINGLE_CHILDREN.length; k += 1) {
    const keyword = SINGLE_CHILDREN[k]!;
    const value = getOwn(node.value, keyword);
    if (typeof value === "object" && value !== null) children.push(walkable(memo, { value, document: node.document, pointer: `${node.pointer}/${keyword}` }));
  }
  for (let k = 0; k < LIST_CHILDREN.length; k += 1) {
    const keyword = LIST_CHILDREN[k]!;
    const list = getOwn(node.value, keyword);
    if (!Array.isArray(list)) continue;
    for (let index = 0; index < list.length; index += 1) {
      const value: unknown = list[index];
      if (typeof value === "object" && value !== null) children.push(walkable(memo, { value, document: node.document, pointer: `${node.pointer}/${keyword}/${index}` }));
    }
  }
  return { links: links ?? NONE, ids: ids ?? NONE, children };
}

/** The member of a root object schema that is the whole answer: the only property, holding an object or a list. */
function envelopeOf(resolver: RefResolver, root: Located): string | undefined {
  const node = deref(resolver, root);
  const properties = getOwn(node?.value, "properties");
  if (node === undefined || typeof properties !== "object" || properties === null) return undefined;
  if (getOwn(node.value, "allOf") !== undefined || getOwn(node.value, "anyOf") !== undefined || getOwn(node.value, "oneOf") !== undefined) return undefined;
  const additional = getOwn(node.value, "additionalProperties");
  if (additional !== undefined && additional !== false) return undefined;
  const names = Object.keys(properties);
  if (names.length !== 1 || DEFAULT_ENVELOPES.has(names[0]!) || isPaginationKey(names[0]!)) return undefined;
  const inner = deref(resolver, { value: getOwn(properties, names[0]!), document: node.document, pointer: `${node.pointer}/properties/${escapePointerSegment(names[0]!)}` });
  const type = getOwn(inner?.value, "type");
  const shaped = type === "object" || type === "array" || getOwn(inner?.value, "properties") !== undefined || getOwn(inner?.value, "items") !== undefined;
  return shaped ? names[0] : undefined;
}
