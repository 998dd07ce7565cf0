import { generatorInfoFrom } from "@sluice/emit";

/** Named in the header of every file emitted from an MCP snapshot. */
export const MCP_GENERATOR = generatorInfoFrom(new URL("../package.json", import.meta.url));
