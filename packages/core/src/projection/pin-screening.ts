import { escapePointerSegment, getOwn, isSchemaObject, SluiceError, walkSchema, type ArgumentIssue, type JsonSchemaObject } from "@sluice/schema";
import { ownArgumentIssues, type CallableTool } from "../call/arguments.ts";
import { guards } from "../guards.ts";

/**
 * Pins are sent on every call, so a pin must pass exactly what a call carrying it would:
 * screening (the withheld list, closed objects, `false` schemas) and validation, against
 * the tool being narrowed and each of its ancestors. Only the issues about the pinned
 * arguments count here; those about arguments the model has yet to send (a required one
 * missing) are the call's business, and the call-time parent check sees the pins again
 * together with them.
 *
 * An own `__proto__` key inside a pinned value is refused unless the schema declares a
 * member of that name: servers that merge JSON into objects read it as the prototype.
 */
export function screenPins(parent: CallableTool, pins: Readonly<Record<string, unknown>>): void {
  const keys = Object.keys(pins);
  if (keys.length === 0 || !guards.pinScreening) return;
  const problems: string[] = [];
  const declaresProto = declaresMember(parent.inputSchema, "__proto__");
  for (const key of keys) {
    const where = protoKeyIn(getOwn(pins, key));
    if (where !== undefined && !declaresProto) problems.push(`/${escapePointerSegment(key)}${where}: an own "__proto__" key, which the schema does not declare`);
  }
  for (let tool: CallableTool | undefined = parent; tool !== undefined; tool = tool.derivedFrom) {
    // What a call of `tool` carries: the new pins, and the pins of the tools between it and the parent.
    const args: Record<string, unknown> = {};
    for (const source of [parent.pins, pins]) {
      for (const key of Object.keys(source)) {
        if (!Object.prototype.hasOwnProperty.call(tool.pins, key)) Object.defineProperty(args, key, { value: getOwn(source, key), enumerable: true, writable: true, configurable: true });
      }
    }
    const about = (issue: ArgumentIssue) => keys.some((key) => issue.path === `/${escapePointerSegment(key)}` || issue.path.startsWith(`/${escapePointerSegment(key)}/`));
    const issues = ownArgumentIssues(tool, args).issues.filter(about);
    for (const issue of issues) problems.push(`${issue.path}: ${issue.message}${tool === parent ? "" : ` (refused by ${tool.name}, which ${parent.name} narrows)`}`);
    if (problems.length > 0) break;
  }
  if (problems.length === 0) return;
  const shown = problems.slice(0, 10);
  const more = problems.length > shown.length ? `; ... and ${problems.length - shown.length} more` : "";
  throw new SluiceError("PIN_INVALID", `Pinned ${keys.length === 1 ? `value for "${keys[0]}"` : "values"} would be refused in a call of ${parent.name}: ${shown.join("; ")}${more}.`, {
    pointer: "/properties/" + escapePointerSegment(keys.find((key) => problems.some((p) => p.startsWith(`/${escapePointerSegment(key)}`))) ?? keys[0]!),
  });
}

/** The pointer (below the value) of the first own `__proto__` key in a JSON value, walked without recursion. */
function protoKeyIn(value: unknown): string | undefined {
  const stack: Array<{ node: unknown; at: string }> = [{ node: value, at: "" }];
  while (stack.length > 0) {
    const { node, at } = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (Array.isArray(node)) {
      node.forEach((item, index) => stack.push({ node: item, at: `${at}/${index}` }));
      continue;
    }
    for (const key of Object.keys(node)) {
      if (key === "__proto__") return `${at}/__proto__`;
      stack.push({ node: (node as Record<string, unknown>)[key], at: `${at}/${escapePointerSegment(key)}` });
    }
  }
  return undefined;
}

function declaresMember(schema: JsonSchemaObject, name: string): boolean {
  let found = false;
  walkSchema(schema, ({ node }) => {
    const properties = getOwn(node, "properties");
    if (isSchemaObject(properties) && Object.prototype.hasOwnProperty.call(properties, name)) found = true;
  });
  return found;
}
