import { generatorInfoFrom } from "@sluice/emit";

/** Named in the header of every file emitted from an OpenAPI-built IR. */
export const OPENAPI_GENERATOR = generatorInfoFrom(new URL("../package.json", import.meta.url));
