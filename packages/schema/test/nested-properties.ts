/** `{ properties: { a: { properties: { a: ... {} } } } }`, `levels` objects with `properties` above a `{}` leaf. Built iteratively. */
export function nestedProperties(levels: number): Record<string, unknown> {
  let node: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++) node = { properties: { a: node } };
  return node;
}
