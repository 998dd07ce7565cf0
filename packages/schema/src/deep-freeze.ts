/**
 * Freezes a JSON value and everything below it, iteratively. Tool schemas are shared
 * (a pack stores each type once, every tool reaching it sees the same object), so a
 * caller mutating one in place would silently change, and possibly widen, other tools.
 * Frozen, such a write throws instead.
 */
export function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current !== "object" || current === null || Object.isFrozen(current)) continue;
    Object.freeze(current);
    for (const key of Object.keys(current)) stack.push((current as Record<string, unknown>)[key]);
  }
  return value;
}
