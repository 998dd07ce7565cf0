/**
 * The files the report page inlines, found from this module. It sits at src/'s top because the
 * build puts every module's code in a file at dist/'s top (an entry or a chunk): one level below
 * the package in both, so the same relative URL names the same file (scripts/build-package.mjs
 * checks every such URL).
 */
export const REPORT_SCRIPT = new URL("../assets/report/report.js", import.meta.url);
export const REPORT_STYLE = new URL("../assets/report/report.css", import.meta.url);
