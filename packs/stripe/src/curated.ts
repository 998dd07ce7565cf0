/**
 * Curated Stripe tools (hand-written). The fattest tools by `paths --by-cost` are the
 * Issuing card and cardholder writes: ~6,000 of their ~6,700 tokens are three copies of
 * the ~300-value merchant category enum under `spending_controls`. The curated tools
 * keep spending limits by amount and interval and withhold the category lists; the
 * `*_full` twins restrict by category.
 */
import { curate, type DeriveOptions, type Tool } from "@sluice/core/pack";
import * as generated from "./tools.gen.ts";

const withoutCategoryLists = {
  drop: ["spending_controls.allowed_categories", "spending_controls.blocked_categories", "spending_controls.spending_limits.categories"],
} satisfies DeriveOptions;

export const postIssuingCardholders = curate(generated.postIssuingCardholders, withoutCategoryLists);
export const postIssuingCardholdersCardholder = curate(generated.postIssuingCardholdersCardholder, withoutCategoryLists);
export const postIssuingCards = curate(generated.postIssuingCards, withoutCategoryLists);
export const postIssuingCardsCard = curate(generated.postIssuingCardsCard, withoutCategoryLists);

export const curated: readonly Tool<object>[] = [postIssuingCardholders, postIssuingCardholdersCardholder, postIssuingCards, postIssuingCardsCard];
