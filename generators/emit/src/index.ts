export { emitPackFiles, emitPackSources, type EmitOptions, type EmittedFile } from "./pack-sources.ts";
export { commentText, generatedHeader, type GeneratorInfo } from "./header.ts";
export { generatorInfoFrom } from "./generator-info.ts";
export { writePack } from "./write-pack.ts";
export { compareText, fitToolName, groupBy, shortHash, snakeCase, TOOL_NAME_PATTERN } from "./tool-name-helpers.ts";
export { emitRuntimeFactsSource, envVariableNames, isBooleanSchema, looksSecret, secretLookingArguments, squashName, upperSnake } from "./runtime-facts.ts";
export type { PackSource, SelectableOperation, SourceChoices, SourceInput, SourceKind, SourceRead } from "./pack-source.ts";
