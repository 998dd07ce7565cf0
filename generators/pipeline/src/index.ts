export { buildPack, detectKind, type GeneratedPack, type Jobs, type PackJob, type PackReport } from "./build-pack.ts";
export { generatePack, pipelineVersion, type GeneratePackOptions, type GeneratePackResult } from "./generate-pack.ts";
export { packJob, SNAPSHOT_PATH, withLiveSnapshot } from "./pack-job.ts";
export { asScaffolded, generatedEgressMap, generatedPackTools, installedPackage, SERVED_LIST_FILE, servedListText, writePackFiles, type WritePackOptions, type WrittenPack } from "./write-pack-files.ts";
export { defineConfig, type PackConfig, type SluiceConfig } from "./config.ts";
export { validateConfig } from "./validate-config.ts";
