/**
 * What a spec says about one tool's answers, for the default response handler. Generators
 * compute it from the 2xx response schema and write it into a generated runtime, so it is
 * plain JSON and holds only what the handler cannot see for itself: every member is
 * optional, and an absent member means "nothing beyond the defaults".
 */
export interface ResponseHints {
  /**
   * URL prefixes of the API itself (the spec's server URLs). A link under one of them is
   * API hypermedia, which the model cannot follow and the tool's own arguments already
   * address. Usually one per pack, shared by every tool's hints.
   */
  api?: readonly string[];
  /**
   * Member names the schema types as links (`format: uri` / `url`) that the default rules do
   * not treat as hypermedia candidates by their name alone (which are `*_url`, `*Url`).
   */
  links?: readonly string[];
  /**
   * Member names that are identifiers beyond the default `id`, `*_id`, `*Id`
   * (`format: uuid`, Asana's `gid`, Twilio's `sid`): never removed, and they count as the
   * id that lets an object lose its duplicate ids and self links.
   */
  ids?: readonly string[];
  /**
   * Dotted paths (from the body root; arrays on the way are transparent) of pagination
   * fields (cursor, more-pages flag, next link) whose names the defaults do not recognise:
   * kept even when null or empty.
   */
  page?: readonly string[];
  /**
   * Dotted path of an envelope the schema declares around the answer (`payload`,
   * `data.issues` for a GraphQL root field): unwrapped level by level while each level
   * holds nothing else. `data` and `result` are unwrapped without a hint.
   */
  envelope?: string;
  /**
   * For a tool paginated by `Link` headers: the query parameter of the `rel="next"` URL the
   * tool takes back. The answer then says `has_more` and `next_<param>`: the header is
   * where the model would never see it.
   */
  link?: string;
}
