/** A tool's wire name as every provider accepts it: 1 to 64 letters, digits, `_` and `-`. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
