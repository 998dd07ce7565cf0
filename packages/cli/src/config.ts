/**
 * `@sluice/cli/config`: what a `sluice.config.*` file imports (`defineConfig`), without
 * loading the CLI. The types live with the pipeline that carries them out.
 */
export { CONFIG_FILES, defineConfig } from "@sluice/pipeline/config";
export type { McpSecretValue, McpSourceConfig, OperationSelection, PackConfig, ReformatterChoice, SluiceConfig, ToolChoice } from "@sluice/pipeline/config";
