/**
 * An OpenAPI 3.0/3.1 or Swagger 2.0 document as a source of the pipeline (@sluice/emit's
 * PackSource): tools from its operations, runtime facts from its servers and security
 * schemes, response hints and pagination from its responses, and the warnings for what it
 * leaves unsaid. https://spec.openapis.org/oas/v3.1.0#openapi-object
 */
import { SluiceError, type PackIR, type ResponseHints, type RuntimeFacts } from "@sluice/core";
import { hasOwn } from "@sluice/schema";
import type { EmittedFile, PackSource, SourceInput, SourceRead } from "@sluice/emit";
import { buildOpenAPIPackIR } from "./build-pack-ir.ts";
import { emitPackSources } from "./emit-pack-sources.ts";
import { OPENAPI_GENERATOR } from "./generator-info.ts";
import { loadDocument } from "./load-document.ts";
import { openapiPackResponseHints, openapiResponseHints } from "./response-hints.ts";
import { openapiRuntimeFacts } from "./runtime-facts.ts";

export const openapiSource: PackSource = {
  kind: "openapi",
  unsupported: {
    authHeader: "its credentials come from the spec's security schemes (rename the variable with env)",
    endpoint: "an OpenAPI pack's server is baseUrl",
  },
  withholdsItself: false,
  collapseSpec: true,
  read: readOpenAPI,
};

async function readOpenAPI(input: SourceInput): Promise<SourceRead> {
  const { choices, step } = input;
  const server = choices.baseUrl;
  if (server !== undefined && !/^https?:\/\/[^\s/]+/.test(server)) throw new SluiceError("CONFIG_INVALID", `pack ${input.name}: baseUrl must be an http(s) URL, got "${server}".`);
  step(`parsing ${input.file}`);
  const document = loadDocument(input.text(), input.file);
  step("building tools");
  const { externalRefs } = choices;
  let ir = buildOpenAPIPackIR(document, { name: input.name, file: input.file, sha256: input.sha256 }, {
    ...(choices.credentialArguments === undefined ? {} : { credentialParameters: choices.credentialArguments }),
    detectCredentialParameters: choices.detectCredentialArguments ?? true,
    ...(externalRefs === undefined ? {} : { externalRefs }),
    select: (info) => input.select({ tool: info.tool, names: info.operationId === undefined ? [] : [info.operationId], suggest: info.operationId === undefined ? [] : [info.operationId], tags: info.tags, method: info.method, path: info.path }),
  });
  // The config's base URL replaces the spec's in every binding, before any pass.
  if (server !== undefined) ir = { ...ir, tools: ir.tools.map((tool) => (tool.binding.kind === "http" ? { ...tool, binding: { ...tool.binding, server } } : tool)) };
  return {
    ir,
    generator: OPENAPI_GENERATOR,
    facts: (final) => {
      step("runtime facts and pagination");
      const facts = openapiRuntimeFacts(document, final, externalRefs === undefined ? {} : { externalRefs });
      return server === undefined ? facts : { ...facts, server: { url: server, from: "config", variables: [] } };
    },
    responseHints: (final, facts) => {
      step("response hints");
      // Only tools whose answers say more than the defaults carry hints: the file stays small.
      const tools: Record<string, ResponseHints> = {};
      for (const tool of final.tools) {
        const pagination = hasOwn(facts.pagination, tool.name) ? facts.pagination[tool.name] : undefined;
        const hints = openapiResponseHints(document, tool, pagination === undefined ? {} : { pagination });
        if (Object.keys(hints).length > 0) Object.defineProperty(tools, tool.name, { value: hints, enumerable: true, writable: true, configurable: true });
      }
      return { shared: openapiPackResponseHints(document), tools };
    },
    warnings: specSilences,
    emit: emitSources,
  };
}

// Module level, so that it holds no reference to the parsed document once the facts are made.
function emitSources(ir: PackIR, options: { regenerate: string }): EmittedFile[] {
  return emitPackSources(ir, { runtimeModule: "./runtime.ts", regenerate: options.regenerate });
}

const ABSOLUTE_URL = /^[a-z][a-z0-9+.-]*:\/\//i;
const SET_BASE_URL =
  'set baseUrl: "https://..." in this pack\'s sluice.config entry and regenerate (or pass ctx.baseUrl on a call, or sluice serve --base-url URL / SLUICE_BASE_URL)';

/**
 * What an OpenAPI spec leaves unsaid and the user has to supply, each once, coded: no server
 * URL (Kubernetes), a relative one (`/api/v3`, relative to wherever the spec was served), no
 * security at all. Without these warnings generate is silent and calls fail far from the cause.
 */
function specSilences(ir: PackIR, facts: RuntimeFacts): string[] {
  const warnings: string[] = [];
  const http = ir.tools.flatMap((tool) => (tool.binding.kind === "http" ? [tool.binding] : []));
  const unset = http.filter((binding) => binding.server === undefined || binding.server === "");
  const relative = http.filter((binding) => binding.server !== undefined && binding.server !== "" && !ABSOLUTE_URL.test(binding.server));
  const of = (n: number) => (n === http.length ? `all ${n} tools` : `${n} of ${http.length} tools`);
  if (unset.length > 0) warnings.push(`NO_SERVER_URL: the spec names no server URL (${facts.server?.from === "host+basePath" ? "no host" : "no servers"}) for ${of(unset.length)}; their calls answer NO_BASE_URL until one is set: ${SET_BASE_URL}`);
  if (relative.length > 0) {
    const urls = [...new Set(relative.map((binding) => binding.server!))].sort();
    warnings.push(`RELATIVE_SERVER_URL: the spec's server URL ${urls.slice(0, 3).map((url) => JSON.stringify(url)).join(", ")} is relative (to wherever the spec was served, which sluice does not know) for ${of(relative.length)}; their calls answer NO_BASE_URL until one is set: ${SET_BASE_URL}`);
  }
  const secured = facts.credentials.length > 0 || http.some((binding) => (binding.auth ?? []).some((alternative) => alternative.length > 0));
  if (!secured) {
    warnings.push("NO_SECURITY: the spec declares no security scheme and no operation requires one, so calls go out without a credential; if the API needs one, declare it in the spec copy (securitySchemes and security) and regenerate, or give it in the pack's runtime (src/runtime.ts: auth) with its variable in credentialEnv");
  }
  return warnings;
}
