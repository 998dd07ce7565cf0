// The public surface of @sluice/catalog. Each area has its own entry module; this file
// only re-exports them by name (see test/public-surface.test.ts).
export {};
