import { compareText, fitToolName, groupBy, shortHash, snakeCase } from "@sluice/emit";

/** One operation as naming sees it. */
export interface OperationRef {
  method: string;
  path: string;
  operationId?: string;
}

/**
 * Wire names from operationIds (`GetCustomersCustomer` -> `get_customers_customer`,
 * `repos/get-content` -> `repos_get_content`), else `<method>_<path words>`. Names that
 * collide (duplicate operationIds included) all get a hash of `METHOD path`; longer than 64
 * characters, a readable prefix and a hash. Depends only on the set of operations.
 * https://spec.openapis.org/oas/v3.1.0#fixed-fields-7 (operationId)
 */
export function assignToolNames(operations: readonly OperationRef[]): Map<OperationRef, string> {
  const base = new Map<OperationRef, string>(operations.map((op) => [op, baseName(op)]));
  const groups = groupBy(operations, (op) => base.get(op)!);
  const taken = new Set<string>();
  const result = new Map<OperationRef, string>();
  const ordered = [...operations].sort((a, b) => compareText(operationKey(a), operationKey(b)));
  for (const op of ordered) {
    let candidate = base.get(op)!;
    if (groups.get(candidate)!.length > 1) candidate = `${candidate}_${shortHash(operationKey(op))}`;
    candidate = fitToolName(candidate);
    while (taken.has(candidate)) candidate = fitToolName(`${candidate}_${shortHash(candidate)}`);
    taken.add(candidate);
    result.set(op, candidate);
  }
  return result;
}

export function operationKey(op: OperationRef): string {
  return `${op.method.toUpperCase()} ${op.path}`;
}

function baseName(op: OperationRef): string {
  const fromId = op.operationId === undefined ? "" : words(op.operationId);
  if (fromId !== "") return fromId;
  const pathWords = words(op.path.replace(/[{}]/g, ""));
  return pathWords === "" ? op.method.toLowerCase() : `${op.method.toLowerCase()}_${pathWords}`;
}

function words(text: string): string {
  return snakeCase(text.replace(/[^A-Za-z0-9]+/g, "_")).replace(/^_+|_+$/g, "");
}
