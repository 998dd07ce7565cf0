import { SluiceError } from "@sluice/schema";

/**
 * BUDGET_UNREACHABLE with the floor it was measured against, so that a caller that wants
 * the smallest projection next (`sluice report --budget`) does not search for it again.
 */
export class BudgetUnreachableError extends SluiceError {
  readonly floor: { tokens: number; drop: string[] };

  constructor(message: string, floor: { tokens: number; drop: string[] }) {
    super("BUDGET_UNREACHABLE", message);
    this.floor = floor;
  }
}
